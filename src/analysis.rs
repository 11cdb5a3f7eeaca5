//! The whole analysis of one shape: memory plan, BFS distances from the goal, connected
//! components, and (on request) the depth and component of every board.
//!
//! Supported: every shape of 2..=12 cells (ranks fit in `u32`). Memory: `n!/4` bytes of
//! two-bit marks, plus `5 * n!` bytes when per-board results are kept (a depth byte and a
//! `u32` component id per board). [`plan`] checks that against the memory available before
//! anything is allocated.

use indicatif::{DecimalBytes, HumanCount};

use crate::bfs::{Engine, StateMarks};
use crate::components::{self, ComponentArray, Components};
use crate::distances::{self, DepthArray, Distances};
use crate::progress::Progress;
use crate::shape::Shape;

/// Largest number of cells the dense index supports (12! < 2^32).
pub const MAX_CELLS: usize = 12;

/// What [`analyze`] keeps beyond the summary figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// Keep the depth and component of every board (needed for `nodes.csv`).
    pub per_board: bool,
}

/// Why a shape cannot be analyzed here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalyzeError {
    /// The dense index does not fit in memory (or in `u32` ranks).
    #[error("{0}")]
    TooLarge(String),
}

/// The memory a run needs, checked against what is available.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Bytes the run will allocate (dominant terms).
    pub bytes: u64,
    /// Bytes available on this machine when planned.
    pub available: u64,
}

/// Bytes an analysis of `cells` cells needs with `options`.
pub fn bytes_needed(cells: usize, options: Options) -> Option<u64> {
    let boards = crate::rank::factorial(cells)?;
    let marks = boards.div_ceil(4);
    let lists = (boards / 256).max(1 << 16) * 4 * 4;
    let per_board = if options.per_board {
        boards.checked_mul(5)?
    } else {
        0
    };
    marks.checked_add(lists)?.checked_add(per_board)
}

/// Bytes of memory available now (what the OS reports as available), or `u64::MAX` when the
/// OS does not say (then the allocation itself is the check).
pub fn available_memory() -> u64 {
    match sysinfo::System::new() {
        Ok(mut sys) => {
            sys.refresh_memory();
            match sys.available_memory() {
                0 => u64::MAX,
                bytes => bytes,
            }
        }
        Err(_) => u64::MAX,
    }
}

/// Checks that `shape` can be analyzed with `options` in `available` bytes.
///
/// # Errors
/// [`AnalyzeError::TooLarge`] with the bytes needed and the largest board that fits, when the
/// shape has more than [`MAX_CELLS`] cells or needs more than `available` bytes.
pub fn plan(shape: Shape, options: Options, available: u64) -> Result<Plan, AnalyzeError> {
    let cells = shape.cells();
    let needed = bytes_needed(cells, options);
    if cells <= MAX_CELLS
        && let Some(bytes) = needed
        && bytes <= available
    {
        return Ok(Plan { bytes, available });
    }
    let largest = (2..=MAX_CELLS)
        .rev()
        .find(|&c| bytes_needed(c, options).is_some_and(|b| b <= available));
    let fits = match largest {
        Some(c) => format!(
            "the largest board that fits is {c} cells ({})",
            shapes_with(c)
        ),
        None => "no board fits".to_string(),
    };
    let boards = match shape.board_count() {
        Some(b) => HumanCount(b).to_string(),
        None => format!("{cells}!"),
    };
    let reachable = match shape.board_count() {
        Some(b) if shape.rows() > 1 && shape.cols() > 1 => {
            format!(
                ", of which {} are reachable from the goal",
                HumanCount(b / 2)
            )
        }
        _ => String::new(),
    };
    let need = match needed {
        Some(b) if cells <= MAX_CELLS => format!("needs {} of memory", DecimalBytes(b)),
        Some(b) => format!(
            "would need {} for a two-bit dense index (ranks above 12 cells do not fit in 32 bits)",
            DecimalBytes(b)
        ),
        None => "would need more bytes than a 64-bit machine can address".to_string(),
    };
    Err(AnalyzeError::TooLarge(format!(
        "{shape} has {boards} boards{reachable}; analyzing it {need}, {} available; {fits}",
        DecimalBytes(available)
    )))
}

/// The rectangular shapes with `cells` cells, e.g. `3x4, 4x3, 2x6, 6x2, 1x12`.
fn shapes_with(cells: usize) -> String {
    let mut names: Vec<(usize, usize)> = (2..cells)
        .filter(|r| cells % r == 0)
        .map(|r| (r, cells / r))
        .collect();
    names.sort_by_key(|&(r, c)| (r.abs_diff(c), r.min(c) == 1, r > c));
    names.push((1, cells));
    let list: Vec<String> = names.iter().map(|(r, c)| format!("{r}x{c}")).collect();
    list.join(", ")
}

/// Per-board results: depth and component of every rank.
pub struct PerBoard {
    /// Depth from the goal of every board.
    pub depths: DepthArray,
    /// Component id of every board (0 = the goal's).
    pub components: ComponentArray,
}

/// Everything [`analyze`] computes for one shape.
pub struct Analysis {
    /// The shape analyzed.
    pub shape: Shape,
    /// All boards, `n!`.
    pub boards: u64,
    /// Undirected edges of the whole game graph (see [`Shape::edge_count`]).
    pub edges: u64,
    /// BFS from the goal.
    pub distances: Distances,
    /// Connected components, the goal's included.
    pub components: Components,
    /// Per-board depth and component, when [`Options::per_board`].
    pub per_board: Option<PerBoard>,
}

/// Analyzes `shape`: BFS from the goal, then components over the rest.
///
/// # Errors
/// [`AnalyzeError::TooLarge`] as [`plan`], checked against [`available_memory`] before any
/// allocation.
pub fn analyze(
    shape: Shape,
    options: Options,
    progress: &dyn Progress,
) -> Result<Analysis, AnalyzeError> {
    plan(shape, options, available_memory())?;
    Ok(analyze_unchecked(shape, options, progress))
}

/// [`analyze`] without the memory check (the caller has called [`plan`]).
///
/// # Panics
/// When `shape` has more than [`MAX_CELLS`] cells.
pub fn analyze_unchecked(shape: Shape, options: Options, progress: &dyn Progress) -> Analysis {
    let boards = shape.board_count().unwrap_or(0);
    let engine = Engine::new(shape);
    let marks = StateMarks::new(boards);
    let per_board = options.per_board.then(|| PerBoard {
        depths: DepthArray::new(boards),
        components: ComponentArray::new(boards),
    });
    let distances = match &per_board {
        Some(pb) => distances::from_goal(&engine, &marks, &pb.depths, progress),
        None => distances::from_goal(&engine, &marks, &(), progress),
    };
    let reachable = distances.reachable();
    let mut components = components::find_rest(
        &engine,
        &marks,
        1,
        per_board.as_ref().map(|pb| &pb.components),
        reachable,
        progress,
    );
    components.add(reachable);
    Analysis {
        shape,
        boards,
        edges: shape.edge_count().unwrap_or(0),
        distances,
        components,
        per_board,
    }
}

/// The depth of every board from the goal, one byte per rank ([`distances::UNREACHABLE`]
/// outside the goal's component): the exact table of a shape of at most 12 cells, for
/// walking downhill to the goal.
///
/// # Errors
/// [`AnalyzeError::TooLarge`] when the table (`n!` bytes plus the marks) does not fit.
pub fn depth_table(shape: Shape, progress: &dyn Progress) -> Result<Vec<u8>, AnalyzeError> {
    let options = Options { per_board: true };
    plan(shape, options, available_memory())?;
    let boards = shape.board_count().unwrap_or(0);
    let engine = Engine::new(shape);
    let marks = StateMarks::new(boards);
    let depths = DepthArray::new(boards);
    distances::from_goal(&engine, &marks, &depths, progress);
    Ok(depths.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_refuses_big_boards_with_the_numbers() {
        let big = Shape::new(4, 4).unwrap();
        let err = plan(big, Options::default(), 24_000_000_000)
            .unwrap_err()
            .to_string();
        assert!(err.contains("10,461,394,944,000 are reachable"), "{err}");
        assert!(
            err.contains("largest board that fits is 12 cells (3x4, 4x3, 2x6, 6x2, 1x12)"),
            "{err}"
        );
        let small = plan(Shape::new(3, 4).unwrap(), Options::default(), 100_000_000).unwrap_err();
        assert!(small.to_string().contains("11 cells"), "{small}");
        assert!(plan(Shape::new(3, 3).unwrap(), Options::default(), 1 << 30).is_ok());
    }
}
