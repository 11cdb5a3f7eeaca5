//! The whole-space BFS on one machine, on the parity or the lexicographic index, with the
//! components; and the exact depth table of a board of at most 12 cells.

use indicatif::DecimalBytes;

use crate::bfs::{self, LexSpace, Parity, ParitySpace, StateMarks, StateSpace};
use crate::board::Board;
use crate::components::{self, ComponentArray, Components, Method};
use crate::distances::{self, DepthArray, Distances};
use crate::metric::Metric;
use crate::progress::Progress;
use crate::shape::Shape;

use super::{
    AnalyzeError, LINE_SEARCH_CELLS, Lookup, Options, PerBoard, SEARCH_CELLS, TableMarks,
    available_memory, rare_limit, table_from_marks,
};

/// What an engine gives [`analyze_unchecked`](super::analyze_unchecked).
pub(super) type Parts = (Distances, Components, Option<PerBoard>);

pub(super) fn analyze_parity(
    goal: &Board,
    options: Options,
    progress: &dyn Progress,
) -> Result<(Parts, Option<TableMarks>), AnalyzeError> {
    let shape = goal.shape();
    let class = Parity::of(goal);
    let space = ParitySpace::with_metric(shape, class, options.metric)
        .expect("a board of 2 rows and 2 columns or more");
    let depths = match options.per_board {
        true => Some(DepthArray::try_new(space.size())?),
        false => None,
    };
    let marks = StateMarks::try_new(space.size())?;
    let keep = options.table && table_from_marks(shape, options.metric);
    let marking = match keep {
        true => (bfs::Marking::Depths, rare_limit(space.size())),
        false => (bfs::Marking::Frontier, 0),
    };
    let (distances, listed) = match &depths {
        Some(d) => distances::from_goal_marked(&space, &marks, goal, d, progress, marking)?,
        None => distances::from_goal_marked(&space, &marks, goal, &(), progress, marking)?,
    };
    let reachable = distances.reachable();
    let mut components = Components::default();
    components.add(reachable);
    let mut marks = Some(marks);
    if options.search_components && shape.cells() <= SEARCH_CELLS {
        // The rest of the goal's class (nothing, by the theorem), then the other class.
        let goal_marks = marks.as_ref().expect("the marks");
        let rest = components::find_rest(&space, goal_marks, 1, None, reachable, progress);
        if !keep {
            // Before the other class's marks are allocated.
            marks = None;
        }
        let other = ParitySpace::with_metric(shape, class.flipped(), options.metric)
            .expect("the same shape");
        let other_marks = StateMarks::try_new(other.size())?;
        let found = components::find_rest(&other, &other_marks, 1, None, 0, progress);
        for (&size, &count) in rest.sizes.iter().chain(&found.sizes) {
            for _ in 0..count {
                components.add(size);
            }
        }
    } else {
        components.method = Method::Theorem;
        components.add(space.size());
    }
    let marked = marks.filter(|_| keep).map(|marks| TableMarks {
        space: space.clone(),
        marks,
        listed,
        limit: marking.1.min(bfs::list_limit(space.size()) as u64),
    });
    let per_board = depths.map(|depths| PerBoard {
        lookup: Lookup::Parity { space, depths },
    });
    Ok(((distances, components, per_board), marked))
}

pub(super) fn analyze_lex(
    goal: &Board,
    options: Options,
    progress: &dyn Progress,
) -> Result<Parts, AnalyzeError> {
    let space = LexSpace::with_metric(goal.shape(), options.metric).expect("at most 12 cells");
    let marks = StateMarks::try_new(space.size())?;
    let per_board = match options.per_board {
        true => Some((
            DepthArray::try_new(space.size())?,
            ComponentArray::try_new(space.size())?,
        )),
        false => None,
    };
    let distances = match &per_board {
        Some((depths, _)) => distances::from_goal(&space, &marks, goal, depths, progress)?,
        None => distances::from_goal(&space, &marks, goal, &(), progress)?,
    };
    let reachable = distances.reachable();
    let search = per_board.is_some() || options.search_components;
    let components = if !search && goal.shape().cells() > LINE_SEARCH_CELLS {
        // One BFS per path took 6.6 s on 1x11 and about 80 s on 1x12 (39.9 million
        // components) for a figure the theorem states.
        Components::of_line(goal.shape())
    } else {
        let mut found = components::find_rest(
            &space,
            &marks,
            1,
            per_board.as_ref().map(|(_, c)| c),
            reachable,
            progress,
        );
        found.add(reachable);
        found
    };
    let per_board = per_board.map(|(depths, components)| PerBoard {
        lookup: Lookup::Lex { depths, components },
    });
    Ok((distances, components, per_board))
}

/// The depth of every board from the goal in `metric`, one byte per lexicographic rank
/// ([`distances::UNREACHABLE`] outside the goal's component): the exact table of a shape of at
/// most 12 cells, for walking downhill to the goal.
///
/// # Errors
/// [`AnalyzeError::TooLarge`] when the table (`n!` bytes plus the marks) does not fit, or the
/// shape has more than 12 cells.
pub fn depth_table(
    shape: Shape,
    metric: Metric,
    progress: &dyn Progress,
) -> Result<Vec<u8>, AnalyzeError> {
    let Some(space) = LexSpace::with_metric(shape, metric) else {
        return Err(AnalyzeError::TooLarge(format!(
            "an exact table of {shape} would have {}! entries; it is built up to {} cells",
            shape.cells(),
            LexSpace::MAX_CELLS
        )));
    };
    let bytes = space.size() + space.size() / 4;
    let available = available_memory();
    if bytes > available {
        return Err(AnalyzeError::TooLarge(format!(
            "an exact table of {shape} needs {} of memory, {} available",
            DecimalBytes(bytes),
            DecimalBytes(available)
        )));
    }
    let marks = StateMarks::try_new(space.size())?;
    let depths = DepthArray::try_new(space.size())?;
    distances::from_goal(&space, &marks, &Board::goal(shape), &depths, progress)?;
    Ok(depths.to_vec())
}
