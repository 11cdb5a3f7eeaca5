//! The memory plan: what an analysis needs, what this machine has, and the one refusal
//! that says how large a board can be analyzed.

use indicatif::{DecimalBytes, HumanCount};

use crate::bfs::{self, LexSpace, ParitySpace};
use crate::shape::Shape;

use super::{AnalyzeError, Engine, Options, SEARCH_CELLS};

/// The memory a run needs, checked against what is available.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryPlan {
    /// Bytes the run will allocate (dominant terms).
    pub bytes: u64,
    /// Bytes available on this machine when planned.
    pub available: u64,
}

/// Bytes an analysis of `shape` needs with `options` (the dominant terms: marks, layer lists,
/// the buckets of bucketed claims, per-board arrays), or `None` when no engine supports it.
pub fn bytes_needed(shape: Shape, options: Options) -> Option<u64> {
    let engine = Engine::for_shape(shape)?;
    if options.per_board && shape.cells() > SEARCH_CELLS {
        return None;
    }
    let size = engine.index_size(shape.cells())?;
    let marks = size.div_ceil(4);
    let lists = bfs::list_limit(size) as u64 * 2 * 8 + bfs::Claims::configured().memory();
    let per_board = match (options.per_board, engine) {
        (false, _) => 0,
        (true, Engine::Parity) => size,
        (true, Engine::Lex) => size.checked_mul(5)?,
    };
    marks.checked_add(lists)?.checked_add(per_board)
}

/// Bytes of memory this process can still use: the least of what the OS reports as available
/// (`MemAvailable`), what its cgroup's memory limit leaves (the limit less the cgroup's
/// anonymous memory; page cache is reclaimable), and what its address-space limit
/// (`RLIMIT_AS`, `ulimit -v`) leaves beyond the address space it maps now. `u64::MAX` when
/// none of them is known (then the allocation itself is the check).
pub fn available_memory() -> u64 {
    let (os, cgroup) = match sysinfo::System::new() {
        Ok(mut sys) => {
            sys.refresh_memory();
            let os = match sys.available_memory() {
                0 => u64::MAX,
                bytes => bytes,
            };
            let cgroup = sys
                .cgroup_limits()
                .map_or(u64::MAX, |c| c.total_memory.saturating_sub(c.rss));
            (os, cgroup)
        }
        Err(_) => (u64::MAX, u64::MAX),
    };
    os.min(cgroup).min(address_space_left())
}

/// What `RLIMIT_AS` leaves of the address space beyond what this process maps now (its
/// `VmSize`), or `u64::MAX` when it is unlimited or cannot be read.
#[allow(clippy::unnecessary_cast)] // rlim_t is u32 on 32-bit Linux
pub fn address_space_left() -> u64 {
    #[cfg(target_os = "linux")]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one rlimit through a valid pointer.
        if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0
            || limit.rlim_cur == libc::RLIM_INFINITY
        {
            return u64::MAX;
        }
        // The first field of /proc/self/statm: the pages mapped.
        let mapped = std::fs::read_to_string("/proc/self/statm")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok());
        // SAFETY: sysconf only reads a constant.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
        match mapped {
            Some(pages) => (limit.rlim_cur as u64).saturating_sub(pages * page),
            None => limit.rlim_cur as u64,
        }
    }
    #[cfg(not(target_os = "linux"))]
    u64::MAX
}

/// Checks that `shape` can be analyzed with `options` in `available` bytes.
///
/// # Errors
/// [`AnalyzeError::TooLarge`] with the bytes needed and the largest boards that fit, when no
/// engine supports the shape or it needs more than `available` bytes.
pub fn plan(shape: Shape, options: Options, available: u64) -> Result<MemoryPlan, AnalyzeError> {
    let cells = shape.cells();
    let needed = bytes_needed(shape, options);
    if let Some(bytes) = needed
        && bytes <= available
    {
        return Ok(MemoryPlan { bytes, available });
    }
    let fits = |s: Shape| bytes_needed(s, options).is_some_and(|b| b <= available);
    let largest = (2..=ParitySpace::MAX_CELLS)
        .rev()
        .map(|c| shapes_with(c, fits))
        .find(|names| !names.is_empty());
    let fits = match largest {
        Some(names) => format!("the largest boards that fit: {}", names.join(", ")),
        None => "no board fits".to_string(),
    };
    let boards = match shape.board_count() {
        Some(b) => HumanCount(b).to_string(),
        None => format!("{cells}!"),
    };
    let reachable = match shape.board_count() {
        Some(b) if shape.rows() > 1 && shape.cols() > 1 => {
            format!(", {} reachable from the goal", HumanCount(b / 2))
        }
        _ => String::new(),
    };
    let need = match (Engine::for_shape(shape), needed) {
        (Some(_), Some(b)) => format!(
            "{} of memory, {} available",
            DecimalBytes(b),
            DecimalBytes(available)
        ),
        (Some(_), None) if options.per_board => {
            format!("per-board results (nodes.csv), which are written up to {SEARCH_CELLS} cells")
        }
        (None, _) if shape.rows() == 1 || shape.cols() == 1 => format!(
            "a one-line board's index of all {cells}! boards, kept up to {} cells",
            LexSpace::MAX_CELLS
        ),
        _ => format!(
            "an index of {cells}!/2 boards, beyond the {} cells a 64-bit index holds",
            ParitySpace::MAX_CELLS
        ),
    };
    let onward = match (Engine::for_shape(shape), needed) {
        (Some(Engine::Parity), Some(_)) => format!(
            "; search it layer by layer to a chosen depth with {}, or spread the marks over \
             several machines with {} (see the README)",
            crate::frontend::arg(crate::frontend::Input::MaxDepth, "D"),
            crate::frontend::arg(crate::frontend::Input::Processes, "N")
        ),
        _ => String::new(),
    };
    Err(AnalyzeError::TooLarge(format!(
        "{shape} has {boards} boards{reachable}; analyzing it needs {need}; {fits}{onward}"
    )))
}

/// The rectangular shapes of `cells` cells for which `fits` holds, e.g. `3x4, 4x3, 2x6, 6x2`.
fn shapes_with(cells: usize, fits: impl Fn(Shape) -> bool) -> Vec<String> {
    let mut shapes: Vec<Shape> = (1..=cells)
        .filter(|r| cells % r == 0)
        .filter_map(|r| Shape::new(r, cells / r).ok())
        .filter(|&s| fits(s))
        .collect();
    shapes.sort_by_key(|s| {
        let (r, c) = (s.rows(), s.cols());
        (r.min(c) == 1, r.abs_diff(c), r > c)
    });
    shapes.iter().map(Shape::to_string).collect()
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
        assert!(err.contains("10,461,394,944,000 reachable"), "{err}");
        assert!(
            err.contains("the largest boards that fit: 2x7, 7x2"),
            "{err}"
        );
        assert!(err.contains("--processes"), "{err}");
        let small = plan(Shape::new(3, 4).unwrap(), Options::default(), 50_000_000).unwrap_err();
        assert!(small.to_string().contains("fit: 1x11, 11x1"), "{small}");
        assert!(plan(Shape::new(3, 3).unwrap(), Options::default(), 1 << 30).is_ok());
        let line = plan(Shape::new(1, 13).unwrap(), Options::default(), u64::MAX).unwrap_err();
        assert!(line.to_string().contains("up to 12 cells"), "{line}");
        let nodes = plan(
            Shape::new(2, 7).unwrap(),
            Options {
                per_board: true,
                ..Options::default()
            },
            u64::MAX,
        );
        assert!(
            nodes.unwrap_err().to_string().contains("nodes.csv"),
            "per-board results stop at 12 cells"
        );
    }
}
