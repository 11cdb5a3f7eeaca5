//! Progress reporting: algorithms call a [`Progress`] sink; they never print.
//!
//! The CLI turns these calls into indicatif bars on stderr; library users and tests pass
//! [`NoProgress`] or their own implementation. Calls may come from several threads.

/// Receives progress from long-running work (BFS layers, exports, table builds).
///
/// A task is opened with [`Progress::begin`], advanced with [`Progress::update`] (absolute
/// position, monotone within the task) and closed with [`Progress::end`]. Tasks do not nest.
pub trait Progress: Sync {
    /// A task named `task` starts; `total` is its length in `unit`s (0 when unknown).
    fn begin(&self, task: &str, total: u64, unit: &str);
    /// The current task has reached `done` of its total; `note` is a short status
    /// (e.g. `depth 17: 5,638 boards`), possibly empty.
    fn update(&self, done: u64, note: &str);
    /// The current task is finished.
    fn end(&self);
    /// The current task's position and note between two of its steps (e.g. the nodes of one
    /// long IDA* iteration so far): shown where a bar is drawn, but not logged as a line as
    /// [`Progress::update`]s are. Called at most a few dozen times a second. Ignored by
    /// default.
    fn refresh(&self, _done: u64, _note: &str) {}
    /// Something the user should know that does not stop the work (e.g. a corrupt checkpoint
    /// passed over for an older one): one line, without a `warning:` prefix. Ignored by
    /// default.
    fn warn(&self, _message: &str) {}
    /// A line about how the work will run (e.g. the memory and disk a search plans to use),
    /// shown where the progress is. Ignored by default.
    fn note(&self, _line: &str) {}
    /// Whether the caller wants the work stopped (e.g. a Python user pressed Ctrl-C): the
    /// whole-space BFS asks after each layer ([`crate::distances::from_goal_marked`]), the
    /// frontier search before each chunk of a layer ([`crate::bfs::frontier::search_stored`]),
    /// IDA* every 16,384 expansions ([`crate::solve::solve_toward`], which then returns
    /// [`crate::solve::SolveError::TimeUp`]), and a work that stops returns [`Interrupted`] (the analysis,
    /// [`crate::analysis::AnalyzeError::Interrupted`]), having written nothing. Called from
    /// one thread at a time, at most once a layer or a chunk; `false` by default (never
    /// stop).
    fn stop_requested(&self) -> bool {
        false
    }
}

/// Work stopped because its [`Progress`] asked ([`Progress::stop_requested`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

/// A [`Progress`] that ignores everything.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&self, _task: &str, _total: u64, _unit: &str) {}
    fn update(&self, _done: u64, _note: &str) {}
    fn end(&self) {}
}
