//! How many worker threads a request gets: one rule for every front end (the command line's
//! `--threads` and `RAYON_NUM_THREADS`, the Python package's `threads=`). A request is capped
//! at [`PER_CORE`] threads per core, with a warning, since more threads than that only add
//! switching; a request above [`MAX_ASKED`] is not a number of threads at all, and each front
//! end refuses it.

/// Threads per core beyond which a request is capped: more only adds switching.
pub const PER_CORE: usize = 4;

/// The most threads a front end accepts in a request (more is refused, not capped): 65,536.
pub const MAX_ASKED: usize = 65_536;

/// This machine's cores as the standard library counts them (its available parallelism,
/// which a CPU affinity mask or a container's quota lowers), at least 1.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// The threads a request for `asked` gets on a machine of `cores` cores (counted as at least
/// 1): `asked` itself up to [`PER_CORE`] per core, else that cap, with the warning the front
/// end gives, which names the request as `shown` (`--threads 64`, `threads=64`):
/// `--threads 64 is more than 4 threads per core on 2 cores; using 8`.
pub fn capped(asked: usize, cores: usize, shown: &str) -> (usize, Option<String>) {
    let cores = cores.max(1);
    let cap = PER_CORE * cores;
    if asked <= cap {
        return (asked, None);
    }
    let warning =
        format!("{shown} is more than {PER_CORE} threads per core on {cores} cores; using {cap}");
    (cap, Some(warning))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_capped_at_four_per_core() {
        assert_eq!(capped(8, 2, "--threads 8"), (8, None));
        assert_eq!(capped(1, 2, "--threads 1"), (1, None));
        assert_eq!(
            capped(9, 2, "threads=9"),
            (
                8,
                Some("threads=9 is more than 4 threads per core on 2 cores; using 8".into())
            )
        );
        // No core counted is one core.
        assert_eq!(capped(MAX_ASKED, 0, "x").0, PER_CORE);
    }
}
