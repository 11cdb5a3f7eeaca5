//! Files that survive interruption: the one writer every output goes through ([`atomic`]) and
//! the checkpoint container ([`container`]). This module sits below everything that writes
//! (the engine's checkpoints in [`crate::bfs`], the exports, the charts, the pattern-database
//! cache) and imports nothing of the crate.

pub mod atomic;
pub mod container;
pub mod folder;
pub mod read;

pub use atomic::{TempFile, WriteBehind, abandon, commit, temp_beside};
pub use folder::Start;
pub use read::open_regular;

/// For the tests of `--resume`: `NPUZZLE_KILL_AFTER_STEP=N` makes the process kill itself
/// (SIGKILL, no cleanup) right after checkpoint step `N` (a layer of the distributed engine or
/// of the frontier search), as a crashed machine would.
///
/// Only in builds with debug assertions (`cargo build`) or the `test-hooks` feature (the
/// binary `cargo test` runs, `--release` too); a release build does nothing here and never
/// reads the variable.
#[inline(always)]
pub fn fault_injection(step: u64) {
    #[cfg(any(debug_assertions, feature = "test-hooks"))]
    if let Some(n) = std::env::var("NPUZZLE_KILL_AFTER_STEP")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        && n == step
    {
        #[cfg(unix)]
        // SAFETY: raising a signal on this process has no memory-safety preconditions.
        unsafe {
            libc::raise(libc::SIGKILL);
        }
        std::process::abort();
    }
    #[cfg(not(any(debug_assertions, feature = "test-hooks")))]
    let _ = step;
}
