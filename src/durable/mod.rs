//! Files that survive interruption: the one writer every output goes through ([`atomic`]) and
//! the checkpoint container ([`container`]). This module sits below everything that writes
//! (the engine's checkpoints in [`crate::bfs`], the exports, the charts, the pattern-database
//! cache) and imports nothing of the crate.

pub mod atomic;
pub mod container;

pub use atomic::{TempFile, WriteBehind, abandon, commit, temp_beside};
