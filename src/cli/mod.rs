//! The binary's commands: each submodule turns parsed arguments into library calls and prints
//! the report. Only this layer prints.

pub mod analyze;
pub mod board;
pub mod conventions;
pub mod draw;
pub mod export;
pub mod geometry;
pub mod progress;
pub mod random;
pub mod sample;
#[cfg(feature = "serve")]
pub mod serve;
pub mod solve;

use std::fmt;
use std::path::Path;

/// A path as the reports print it: control and invisible characters escaped
/// ([`npuzzle::board::printable`]), so that a folder's name cannot drive the terminal.
pub fn shown(path: &Path) -> String {
    npuzzle::export::shown(path)
}

/// Makes the folder `dir` that `flag` names (`--scratch`, `--checkpoint`) ready for a run's
/// files ([`npuzzle::durable::folder::make`]), or one line and exit 1 that say why it cannot
/// be: `--scratch /proc/x: /proc is not a folder npuzzle can write in (...)`.
pub fn make_folder(flag: &str, dir: &Path) -> Result<(), CliError> {
    npuzzle::durable::folder::make(dir).map_err(|e| {
        CliError::runtime(format!(
            "{flag} {}: {}",
            shown(dir),
            npuzzle::board::printable(&e.to_string())
        ))
    })
}

/// The arguments after the program's name, as given (an argument that is not UTF-8 with its
/// bad bytes replaced): what `summary.json` records as the command
/// ([`npuzzle::export::Provenance`]).
pub fn arguments() -> Vec<String> {
    std::env::args_os()
        .skip(1)
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect()
}

/// What went wrong, as the exit code tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Bad command line or bad input data (a malformed board, a size too large): exit 2.
    Usage,
    /// The work could not be done (an unwritable folder, a failed write): exit 1.
    Runtime,
}

/// A one-line error for stderr, with its exit code.
#[derive(Debug)]
pub struct CliError {
    /// Which exit code.
    pub failure: Failure,
    /// The message, without the `error: ` prefix.
    pub message: String,
}

impl CliError {
    /// A usage or input error (exit 2).
    pub fn usage(message: impl fmt::Display) -> CliError {
        CliError {
            failure: Failure::Usage,
            message: message.to_string(),
        }
    }

    /// A runtime error (exit 1).
    pub fn runtime(message: impl fmt::Display) -> CliError {
        CliError {
            failure: Failure::Runtime,
            message: message.to_string(),
        }
    }

    /// A depth-limited analysis's error as the command line reports it (`analyze
    /// --max-depth`, `--all-pairs`): flags that cannot work and a board beyond the index are
    /// usage errors, as without `--max-depth`; the rest runtime errors.
    pub fn limited(e: npuzzle::analysis::AnalyzeError) -> CliError {
        use npuzzle::analysis::AnalyzeError;
        match e {
            AnalyzeError::Refused(_) | AnalyzeError::TooLarge(_) => CliError::usage(e),
            e => CliError::runtime(e),
        }
    }

    /// The process exit code: 2 for usage, 1 for runtime.
    pub fn exit_code(&self) -> u8 {
        match self.failure {
            Failure::Usage => 2,
            Failure::Runtime => 1,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// `--metric`: what one move is (see [`npuzzle::metric`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum MetricArg {
    /// Single-tile: one tile slides one cell.
    #[default]
    #[value(alias = "single-tile")]
    Stm,
    /// Multi-tile: 1 to k tiles of the blank's row or column slide one cell each.
    #[value(alias = "multi-tile")]
    Mtm,
}

impl From<MetricArg> for npuzzle::metric::Metric {
    fn from(m: MetricArg) -> Self {
        match m {
            MetricArg::Stm => npuzzle::metric::Metric::Stm,
            MetricArg::Mtm => npuzzle::metric::Metric::Mtm,
        }
    }
}
