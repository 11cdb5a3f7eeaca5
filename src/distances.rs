//! BFS distances from the goal: the depth distribution (boards per BFS layer), the antipodes
//! (the boards at the maximum depth; that depth is the goal's eccentricity, "God's number" for
//! the single-tile metric when the goal is the standard one) and, on request, every board's
//! depth. Works on any [`StateSpace`] through the engine's layer driver.

use crate::bfs::{self, Marking, OnVisit, StateIndex, StateMarks, StateSpace};
pub use crate::bfs::{DepthArray, UNREACHABLE};
use crate::board::Board;
use crate::progress::{Interrupted, Progress};

/// The layers of at most the asked number of boards, board by board: each its depth and its
/// boards' indices ([`bfs::Layers::listed`]).
pub type Listed = Vec<(u32, Vec<StateIndex>)>;

/// The result of the BFS from the goal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Distances {
    /// `layer_sizes[d]` = boards at depth `d` (moves from the goal); index 0 is the goal.
    pub layer_sizes: Vec<u64>,
    /// The boards at the maximum depth, by ascending lexicographic rank (empty when that layer
    /// is too large to list, see [`crate::bfs::list_limit`]).
    pub antipodes: Vec<Board>,
}

impl Distances {
    /// Boards reachable from the goal (the goal's component), `sum(layer_sizes)`.
    pub fn reachable(&self) -> u64 {
        self.layer_sizes.iter().sum()
    }

    /// The maximum depth (the goal's eccentricity).
    pub fn max_depth(&self) -> u32 {
        self.layer_sizes.len().saturating_sub(1) as u32
    }
}

/// BFS from `goal` over `marks` (fresh, `space.size()` boards), reporting each layer to
/// `progress` (boards reached so far out of the space's size) and each board's depth to
/// `visit`.
///
/// # Errors
/// [`Interrupted`] when `progress` asks to stop ([`Progress::stop_requested`], asked after
/// each layer); the marks and `visit`'s results are then incomplete.
///
/// # Panics
/// When `goal` is not in `space`.
pub fn from_goal<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    goal: &Board,
    visit: &impl OnVisit,
    progress: &dyn Progress,
) -> Result<Distances, Interrupted> {
    from_goal_marked(space, marks, goal, visit, progress, (Marking::Frontier, 0)).map(|d| d.0)
}

/// [`from_goal`] leaving `marking` in the marks, with the layers of at most `listed` boards
/// board by board ([`bfs::Layers::listed`]).
///
/// # Errors
/// [`Interrupted`], as [`from_goal`].
///
/// # Panics
/// When `goal` is not in `space`, or under [`Marking::Depths`] when the space has no sides.
pub fn from_goal_marked<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    goal: &Board,
    visit: &impl OnVisit,
    progress: &dyn Progress,
    (marking, listed): (Marking, u64),
) -> Result<(Distances, Listed), Interrupted> {
    let seed = space
        .rank(goal)
        .expect("the goal lies in the space searched");
    progress.begin("distances", space.size(), "boards");
    let tuning = bfs::Tuning {
        marking,
        listed,
        ..bfs::Tuning::for_size(space.size())
    };
    let on_layer = |depth, size, reached| {
        let size = indicatif::HumanCount(size);
        progress.update(reached, &format!("depth {depth}: {size} boards"));
    };
    let layers = bfs::run_until(space, marks, seed, visit, on_layer, tuning, || {
        progress.stop_requested()
    });
    progress.end();
    let layers = layers.ok_or(Interrupted)?;
    let mut antipodes: Vec<Board> = layers.last.iter().map(|&i| space.unrank(i)).collect();
    antipodes.sort_by_cached_key(Board::rank);
    let distances = Distances {
        layer_sizes: layers.sizes,
        antipodes,
    };
    Ok((distances, layers.listed))
}
