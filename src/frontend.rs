//! Whose words the library's messages use for the inputs they ask for: the command line's
//! (`give --rows and --cols`, the default) or the Python package's (`give rows= and cols=`).
//!
//! A message that tells the user what to give names the input through [`arg`], never by a
//! literal flag, so that each front end's users read their own spelling. The front end is
//! chosen once, when it starts ([`set`]: the Python module does so on import; the binary
//! never does), and read everywhere after; each front end is its own process (or its own
//! copy of the library, in the Python module), so the choice never crosses between them.

use std::sync::atomic::{AtomicU8, Ordering};

/// A front end of the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FrontEnd {
    /// The `npuzzle` command: flags (`--rows 3`).
    #[default]
    Cli,
    /// The Python package `npuzzle`: keyword arguments (`rows=3`).
    Python,
}

/// An input a message may ask the user to give or change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// The board's rows (`--rows`, `rows=`).
    Rows,
    /// The board's columns (`--cols`, `cols=`).
    Cols,
    /// The depth a frontier search stops at (`--max-depth`, `max_depth=`).
    MaxDepth,
    /// The solver's heuristic (`--heuristic`, `heuristic=`).
    Heuristic,
    /// A distance table written with an analysis (`--table`, `table=True`).
    Table,
    /// The solver's algorithm (`--algorithm`; the Python package always runs IDA*).
    Algorithm,
    /// Processes of a distributed analysis (`--processes`; the command line only).
    Processes,
    /// A folder for a frontier search's layers (`--scratch`; the command line only).
    Scratch,
    /// A frontier search's memory budget (`--memory`; the Python package uses the memory
    /// available).
    Memory,
}

impl Input {
    /// The command line's flag.
    fn flag(self) -> &'static str {
        match self {
            Input::Rows => "--rows",
            Input::Cols => "--cols",
            Input::MaxDepth => "--max-depth",
            Input::Table => "--table",
            Input::Heuristic => "--heuristic",
            Input::Algorithm => "--algorithm",
            Input::Processes => "--processes",
            Input::Scratch => "--scratch",
            Input::Memory => "--memory",
        }
    }

    /// The Python package's keyword, where it has one.
    fn keyword(self) -> Option<&'static str> {
        match self {
            Input::Rows => Some("rows"),
            Input::Cols => Some("cols"),
            Input::MaxDepth => Some("max_depth"),
            Input::Table => Some("table"),
            Input::Heuristic => Some("heuristic"),
            Input::Algorithm | Input::Processes | Input::Scratch | Input::Memory => None,
        }
    }
}

impl FrontEnd {
    /// `input` given `value` as this front end spells it (`value` empty: the input's name
    /// alone; a switch, `--table`, takes none). The command line: `--max-depth D`; Python:
    /// `max_depth=D`, a string value quoted (`heuristic="linear-conflict"`), a switch
    /// `table=True`; an input Python lacks is named as the
    /// command line's (`the command line's --processes N`).
    ///
    /// ```
    /// use npuzzle::frontend::{FrontEnd, Input};
    /// assert_eq!(FrontEnd::Cli.arg(Input::MaxDepth, "D"), "--max-depth D");
    /// assert_eq!(FrontEnd::Python.arg(Input::MaxDepth, "D"), "max_depth=D");
    /// assert_eq!(FrontEnd::Python.arg(Input::Rows, ""), "rows=");
    /// assert_eq!(
    ///     FrontEnd::Python.arg(Input::Heuristic, "linear-conflict"),
    ///     "heuristic=\"linear-conflict\""
    /// );
    /// assert_eq!(FrontEnd::Python.arg(Input::Processes, "N"), "the command line's --processes N");
    /// ```
    pub fn arg(self, input: Input, value: &str) -> String {
        let flag = || match value {
            "" => input.flag().to_string(),
            v => format!("{} {v}", input.flag()),
        };
        match (self, input.keyword()) {
            (FrontEnd::Cli, _) => flag(),
            (FrontEnd::Python, Some(k)) => match value {
                "" if input == Input::Table => format!("{k}=True"),
                "" => format!("{k}="),
                v if input == Input::Heuristic => format!("{k}={v:?}"),
                v => format!("{k}={v}"),
            },
            (FrontEnd::Python, None) => format!("the command line's {}", flag()),
        }
    }

    /// How this front end writes a distance table for `shape` (e.g. `3x4`; empty: any
    /// shape, `R C`): `` `analyze R C --table` `` or `` `npuzzle.analyze(R, C, table=True,
    /// output=DIR)` ``.
    pub fn table_command(self, shape: &str) -> String {
        let (rows, cols) = shape.split_once('x').unwrap_or(("R", "C"));
        match self {
            FrontEnd::Cli => format!("`analyze {rows} {cols} --table`"),
            FrontEnd::Python => {
                format!("`npuzzle.analyze({rows}, {cols}, table=True, output=DIR)`")
            }
        }
    }
}

/// The front end in force, as [`FrontEnd`]'s discriminant.
static CURRENT: AtomicU8 = AtomicU8::new(0);

/// Chooses the front end whose words the messages use, for the rest of the process. Called
/// once by a front end as it starts (the Python module on import).
pub fn set(front: FrontEnd) {
    CURRENT.store(front as u8, Ordering::Relaxed);
}

/// The front end in force ([`FrontEnd::Cli`] unless [`set`] chose another).
pub fn current() -> FrontEnd {
    match CURRENT.load(Ordering::Relaxed) {
        1 => FrontEnd::Python,
        _ => FrontEnd::Cli,
    }
}

/// `input` given `value` in the words of the front end in force ([`FrontEnd::arg`]).
pub fn arg(input: Input, value: &str) -> String {
    current().arg(input, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every input in both front ends' words (the Python package's keywords are those of
    /// python/npuzzle/__init__.pyi); the library never sets the front end in its tests, so
    /// the command line's words are in force.
    #[test]
    fn each_front_end_names_its_inputs() {
        let cases = [
            (Input::Rows, "3", "--rows 3", "rows=3"),
            (Input::Cols, "", "--cols", "cols="),
            (Input::MaxDepth, "D", "--max-depth D", "max_depth=D"),
            (Input::Table, "", "--table", "table=True"),
            (
                Input::Heuristic,
                "linear-conflict",
                "--heuristic linear-conflict",
                "heuristic=\"linear-conflict\"",
            ),
            (
                Input::Algorithm,
                "idastar",
                "--algorithm idastar",
                "the command line's --algorithm idastar",
            ),
            (
                Input::Processes,
                "N",
                "--processes N",
                "the command line's --processes N",
            ),
            (
                Input::Scratch,
                "DIR",
                "--scratch DIR",
                "the command line's --scratch DIR",
            ),
            (Input::Memory, "", "--memory", "the command line's --memory"),
        ];
        for (input, value, cli, python) in cases {
            assert_eq!(FrontEnd::Cli.arg(input, value), cli);
            assert_eq!(FrontEnd::Python.arg(input, value), python);
            assert_eq!(arg(input, value), cli);
        }
        assert_eq!(current(), FrontEnd::Cli);
        assert_eq!(
            FrontEnd::Python.table_command("3x4"),
            "`npuzzle.analyze(3, 4, table=True, output=DIR)`"
        );
        assert_eq!(FrontEnd::Cli.table_command(""), "`analyze R C --table`");
    }
}
