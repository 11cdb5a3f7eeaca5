//! `solve --batch`: a file of boards, one a line, solved into CSV rows in line order. The
//! lines are read and the rows written in chunks (streamed through three threads when a
//! distance table answers), so the memory stays bounded whatever the file's length.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, BufRead, Read, Write};
use std::path::Path;

use npuzzle::solve::input::AnyBoard;
use npuzzle::solve::{self, Algorithm, Goal, Heuristic, Solution, SolveError, input};
use npuzzle::table::DistanceTable;
use npuzzle::{Board, NoProgress, Shape};

use super::table::from_walk;
use super::{Config, Fail, Heuristics, MAX_BOARD_BYTES, goal_of};
use crate::cli::CliError;

/// A line of a batch file as read: its text, or why it is not a board's (too long, not
/// UTF-8), reported in its place while the lines after it are read on.
type LineText = Result<String, String>;

/// The longest line [`batch_lines`] reads past (and reports as not a board) before it stops:
/// a file with no line break in its first 64 MiB is not a batch of boards (`/dev/zero`).
const MAX_SKIPPED_LINE: u64 = 64 << 20;

/// The lines of a batch file, read one at a time, each at most [`MAX_BOARD_BYTES`]: a line
/// too long or not valid UTF-8 is yielded as `Ok(Err(why))` and the reading goes on; yields
/// `Err` (and then stops) for an unreadable file or a line longer than
/// [`MAX_SKIPPED_LINE`]. `-` reads standard input.
fn batch_lines(
    path: &Path,
) -> Result<impl Iterator<Item = Result<LineText, CliError>> + Send, CliError> {
    let name = path.display().to_string();
    let mut reader: Box<dyn io::BufRead + Send> = if path.as_os_str() == "-" {
        Box::new(io::BufReader::new(io::stdin()))
    } else {
        let file = std::fs::File::open(path)
            .map_err(|e| CliError::usage(format!("{name}: cannot read: {e}")))?;
        Box::new(io::BufReader::new(file))
    };
    let mut number = 0usize;
    let mut done = false;
    Ok(std::iter::from_fn(move || {
        if done {
            return None;
        }
        number += 1;
        let mut line = Vec::new();
        let read = (&mut reader)
            .take(MAX_BOARD_BYTES + 1)
            .read_until(b'\n', &mut line);
        let result = match read {
            Ok(0) => return None,
            Ok(_) if line.len() as u64 > MAX_BOARD_BYTES => {
                let ended = line.last() == Some(&b'\n');
                match skip_line(&mut reader, MAX_SKIPPED_LINE - line.len() as u64, ended) {
                    Ok(true) => Ok(Err(format!(
                        "longer than {} KiB, not a board",
                        MAX_BOARD_BYTES / 1024
                    ))),
                    Ok(false) => Err(format!(
                        "line {number} is longer than {} MiB without a line break: not a \
                         batch of boards",
                        MAX_SKIPPED_LINE >> 20
                    )),
                    Err(e) => Err(format!("cannot read: {e}")),
                }
            }
            Ok(_) => Ok(String::from_utf8(line).map_err(|_| "not text (invalid UTF-8)".into())),
            Err(e) => Err(format!("cannot read: {e}")),
        };
        done = result.is_err();
        Some(result.map_err(|why| CliError::usage(format!("{name}: {why}"))))
    }))
}

/// Reads past the rest of a line (its line break included), at most `limit` bytes, unless
/// it `ended` already: `Ok(true)` when the line (or the file) ended within them.
fn skip_line(reader: &mut impl BufRead, mut limit: u64, ended: bool) -> io::Result<bool> {
    if ended {
        return Ok(true);
    }
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(true);
        }
        let (used, ended) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (buf.len(), false),
        };
        reader.consume(used);
        if ended {
            return Ok(true);
        }
        limit = match limit.checked_sub(used as u64) {
            Some(left) if left > 0 => left,
            _ => return Ok(false),
        };
    }
}

/// The boards of each shape in the batch file `path` (lines that do not read as boards are
/// not counted): read once before solving, so that `--pdb default` knows whether large
/// pattern databases pay for themselves. Empty for a file that cannot be read twice (a pipe).
pub(super) fn batch_work(path: &Path, shape: Option<Shape>) -> HashMap<Shape, u64> {
    let mut work = HashMap::new();
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return work;
    }
    let Ok(lines) = batch_lines(path) else {
        return work;
    };
    let mut columns = Columns::default();
    for line in lines.map_while(Result::ok).filter_map(Result::ok) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(line) = columns.board(line) else {
            continue;
        };
        if let Ok(board) = input::parse_flat(line, shape) {
            *work.entry(board.shape()).or_insert(0) += 1;
        }
    }
    work
}

/// Where a batch's board is on its lines: the whole line, or, after a first line `board,...`
/// (`sample`'s `board,depth`), the first field of a CSV. A lone `board` header is skipped too.
#[derive(Default)]
struct Columns {
    /// Whether the lines are CSV; `None` before the first line.
    csv: Option<bool>,
}

impl Columns {
    /// The board of `line` (neither empty nor a comment), or `None` for the header.
    fn board<'a>(&mut self, line: &'a str) -> Option<&'a str> {
        let first = line.split(',').next().unwrap_or("").trim();
        match self.csv {
            None => {
                let header = first.eq_ignore_ascii_case("board");
                self.csv = Some(header && line.contains(','));
                (!header).then_some(line)
            }
            Some(true) => Some(first),
            Some(false) => Some(line),
        }
    }
}

/// Lines of a batch file read, solved and written together when the boards are searched:
/// enough to keep every thread busy while a few boards take much longer than the rest.
const SEARCH_CHUNK: usize = 64;

/// Lines of a batch file read, solved and written together from a distance table (each
/// board takes microseconds): large, so that the threads seldom wait for each other.
const TABLE_CHUNK: usize = 16_384;

/// Lines of a table chunk one thread takes at a time: parsed, walked together
/// ([`DistanceTable::solve_many`]) and written as CSV.
const TABLE_TASK: usize = 256;

/// Chunks waiting between the reader, the solver and the writer: memory stays bounded (about
/// 10 MB from a table: 16,384 lines in and out, seven chunks at most) whatever the length of
/// the batch.
const CHUNKS_IN_FLIGHT: usize = 2;

/// One line of a batch, read and waiting to be solved: its number and its text (neither
/// empty nor a comment), or why it cannot be a board.
type BatchLine = (usize, LineText);

/// Counts of a batch run.
#[derive(Default)]
struct BatchCounts {
    boards: usize,
    bad: usize,
    failed: usize,
}

/// The CSV rows of some lines of a batch, in line order, and the messages for stderr between
/// them: message `(at, text)` goes after the first `at` bytes of `text`.
#[derive(Default)]
struct Rows {
    text: String,
    notes: Vec<(usize, String)>,
    counts: BatchCounts,
}

impl Rows {
    /// The row of line `number` (or, for a failure, its message naming `method`).
    fn push(
        &mut self,
        number: usize,
        result: Result<Solution, SolveError>,
        method: &str,
        path: &Path,
    ) {
        self.counts.boards += 1;
        match result {
            Ok(s) => {
                let _ = write!(
                    self.text,
                    "{number},{},{},{},{:.6},",
                    s.length(),
                    s.expanded,
                    s.generated,
                    s.elapsed.as_secs_f64(),
                );
                s.metric.write_notation(&s.moves, "", &mut self.text);
                self.text.push('\n');
            }
            Err(SolveError::Unsolvable) => {
                let _ = writeln!(self.text, "{number},unsolvable,0,0,0.000000,");
            }
            Err(e) => {
                self.counts.failed += 1;
                self.note(format!(
                    "error: {} line {number}: {method} {e}",
                    path.display()
                ));
            }
        }
    }

    /// Line `number` could not be read as a board.
    fn bad(&mut self, number: usize, e: impl std::fmt::Display, path: &Path) {
        self.counts.boards += 1;
        self.counts.bad += 1;
        self.note(format!("error: {} line {number}: {e}", path.display()));
    }

    fn note(&mut self, message: String) {
        self.notes.push((self.text.len(), message));
    }

    /// Writes the rows to `out` and the messages to stderr, in order (`out` flushed before
    /// each message and at the end).
    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        let mut at = 0;
        for (until, message) in &self.notes {
            out.write_all(&self.text.as_bytes()[at..*until])?;
            out.flush()?;
            eprintln!("{message}");
            at = *until;
        }
        out.write_all(&self.text.as_bytes()[at..])?;
        out.flush()
    }
}

/// `--batch`: CSV on stdout, bad lines on stderr. From a distance table, a regular file
/// streams through three stages that run at once, a few chunks apart ([`streamed`]): a thread
/// reads lines, the solver's threads parse and walk a chunk of [`TABLE_CHUNK`] lines in
/// parallel, and a thread writes the rows in line order. Searched boards (each taking
/// milliseconds or more) go [`SEARCH_CHUNK`] lines at a time on this thread: read, solved
/// (IDA* in parallel, the algorithms that store boards one at a time within their memory
/// cap), written. From standard input or a pipe, one line at a time, each row written as
/// soon as it is solved.
pub(super) fn run_batch(
    config: &Config,
    path: &Path,
    heuristics: &mut Heuristics,
    out: &mut (impl Write + Send),
) -> Result<(), Fail> {
    let lines = batch_lines(path)?;
    let file = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    writeln!(out, "line,moves,expanded,nodes,seconds,solution")?;
    let mut counts = BatchCounts::default();
    let mut tally = |rows: &[Rows]| {
        for r in rows {
            counts.boards += r.counts.boards;
            counts.bad += r.counts.bad;
            counts.failed += r.counts.failed;
        }
    };
    if file && heuristics.table.is_some() {
        streamed(config, path, heuristics, out, lines, &mut tally)?;
    } else {
        // (No threads of its own: a search's heuristics are sized to the memory left, and
        // each new thread reserves address space.)
        let chunk = if file { SEARCH_CHUNK } else { 1 };
        let mut result = Ok(());
        read_chunks(lines, chunk, |lines| {
            let written = lines
                .map_err(Fail::from)
                .and_then(|lines| solve_lines(config, path, heuristics, &lines))
                .and_then(|rows| {
                    tally(&rows);
                    rows.iter()
                        .try_for_each(|r| r.write_to(out))
                        .map_err(Fail::Io)
                });
            result = written;
            result.is_ok()
        });
        result?;
    }
    let BatchCounts {
        boards,
        bad,
        failed,
    } = counts;
    if bad > 0 && failed > 0 {
        // Both kinds: the count is of every board not solved, and the exit that of bad input.
        return Err(CliError::usage(format!(
            "{}: {} of {boards} boards were not solved: {bad} could not be read and {failed} \
             failed (see above)",
            path.display(),
            bad + failed
        ))
        .into());
    }
    if bad > 0 {
        return Err(CliError::usage(format!(
            "{}: {bad} of {boards} boards could not be read (see above); the others were solved",
            path.display()
        ))
        .into());
    }
    if failed > 0 {
        return Err(CliError::runtime(format!(
            "{}: {failed} of {boards} boards were not solved",
            path.display()
        ))
        .into());
    }
    Ok(())
}

/// [`run_batch`]'s three stages at once: `lines` read on a thread of their own, each chunk
/// solved on this one (its work in parallel), and its rows written by a third thread, at most
/// [`CHUNKS_IN_FLIGHT`] chunks waiting between two stages; `tally` counts each chunk's rows.
fn streamed(
    config: &Config,
    path: &Path,
    heuristics: &mut Heuristics,
    out: &mut (impl Write + Send),
    lines: impl Iterator<Item = Result<LineText, CliError>> + Send,
    tally: &mut impl FnMut(&[Rows]),
) -> Result<(), Fail> {
    use std::sync::mpsc::sync_channel;
    let (read, written) = std::thread::scope(|scope| {
        let (line_tx, line_rx) = sync_channel(CHUNKS_IN_FLIGHT);
        let (row_tx, row_rx) = sync_channel::<Vec<Rows>>(CHUNKS_IN_FLIGHT);
        scope.spawn(move || read_chunks(lines, TABLE_CHUNK, |c| line_tx.send(c).is_ok()));
        let writer = scope.spawn(move || -> io::Result<()> {
            for rows in row_rx {
                rows.iter().try_for_each(|r| r.write_to(out))?;
            }
            Ok(())
        });
        let mut read: Result<(), Fail> = Ok(());
        for lines in line_rx.iter() {
            match lines
                .map_err(Fail::from)
                .and_then(|lines| solve_lines(config, path, heuristics, &lines))
            {
                Ok(rows) => {
                    tally(&rows);
                    // A writer that stopped has its error to tell.
                    if row_tx.send(rows).is_err() {
                        break;
                    }
                }
                Err(e) => {
                    read = Err(e);
                    break;
                }
            }
        }
        drop((row_tx, line_rx));
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the writer panicked")));
        (read, written)
    });
    written?;
    read
}

/// Hands the boards' lines of `lines` (neither empty nor comments) to `to`, `chunk` at a
/// time, and then the read error that stopped them, if any. Returns when the lines end or
/// `to` answers `false`.
fn read_chunks(
    lines: impl Iterator<Item = Result<LineText, CliError>>,
    chunk: usize,
    mut to: impl FnMut(Result<Vec<BatchLine>, CliError>) -> bool,
) {
    let mut pending = Vec::with_capacity(chunk);
    let mut columns = Columns::default();
    for (i, line) in lines.enumerate() {
        let line = match line {
            Ok(Ok(line)) => line,
            Ok(Err(why)) => {
                pending.push((i + 1, Err(why)));
                if pending.len() >= chunk && !to(Ok(std::mem::take(&mut pending))) {
                    return;
                }
                continue;
            }
            Err(e) => {
                if pending.is_empty() || to(Ok(std::mem::take(&mut pending))) {
                    to(Err(e));
                }
                return;
            }
        };
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let Some(text) = columns.board(text) else {
            continue; // The header.
        };
        let text = if text.len() == line.len() {
            line
        } else {
            text.to_string()
        };
        pending.push((i + 1, Ok(text)));
        if pending.len() >= chunk && !to(Ok(std::mem::take(&mut pending))) {
            return;
        }
    }
    if !pending.is_empty() {
        to(Ok(pending));
    }
}

/// The rows of `lines`: walked down the distance table, in parallel tasks of [`TABLE_TASK`]
/// lines; otherwise searched, the heuristics prepared first, one at a time, then the
/// searches in parallel unless one of them stores boards (their memory cap is for one
/// search at a time).
fn solve_lines(
    config: &Config,
    path: &Path,
    heuristics: &mut Heuristics,
    lines: &[BatchLine],
) -> Result<Vec<Rows>, Fail> {
    use rayon::prelude::*;
    if let Some(table) = &heuristics.table {
        return Ok(lines
            .par_chunks(TABLE_TASK)
            .map(|task| table_rows(config, path, table, task))
            .collect());
    }
    let parsed: Vec<_> = lines
        .par_iter()
        .map(|(_, line)| parse(line, config))
        .collect();
    let small = || {
        parsed.iter().flatten().filter_map(|b| match b {
            AnyBoard::Board(board) => Some(board),
            AnyBoard::Wide(_) => None,
        })
    };
    // --goal, read once for each shape of board.
    let mut goals: HashMap<Shape, Goal> = HashMap::new();
    for board in small() {
        if !goals.contains_key(&board.shape())
            && let Some(goal) = goal_of(config, board.shape())?
        {
            goals.insert(board.shape(), goal);
        }
    }
    // Unsolvable boards are answered before any table is built.
    let mut jobs = Vec::with_capacity(lines.len());
    for board in small() {
        let (algorithm, kind) = config.method(board.shape());
        let reached = goals
            .get(&board.shape())
            .map_or_else(|| board.is_solvable(), |g| g.reaches(board));
        let heuristic = if !reached {
            None
        } else if algorithm.uses_heuristic() {
            Some(heuristics.get(board.shape(), kind)?)
        } else {
            // BFS and UCS ignore it; any heuristic of the right shape will do.
            Some(Heuristic::hamming(board.shape()))
        };
        jobs.push((board, algorithm, heuristic));
    }
    let standard: HashMap<Shape, Goal> = jobs
        .iter()
        .map(|j| j.0.shape())
        .filter(|s| !goals.contains_key(s))
        .map(|s| (s, Goal::standard(s)))
        .collect();
    let solve_one =
        |&(board, algorithm, ref heuristic): &(&Board, Algorithm, Option<Heuristic>)| {
            heuristic.as_ref().map_or(Err(SolveError::Unsolvable), |h| {
                let limits = config.limits(algorithm);
                let shape = board.shape();
                let goal = goals.get(&shape).or_else(|| standard.get(&shape));
                let goal = goal.expect("a goal for every shape");
                let metric = config.metric;
                solve::solve_toward(board, goal, metric, algorithm, h, &limits, &NoProgress)
            })
        };
    let results: Vec<Result<Solution, SolveError>> = if jobs.iter().any(|j| j.1.stores_boards()) {
        jobs.iter().map(solve_one).collect()
    } else {
        jobs.par_iter().map(solve_one).collect()
    };
    // Boards over 64 cells: IDA* with linear conflict (or Manhattan), in parallel.
    let wide_boards: Vec<_> = parsed
        .iter()
        .flatten()
        .filter_map(|b| match b {
            AnyBoard::Wide(board) => Some(board),
            AnyBoard::Board(_) => None,
        })
        .collect();
    let wide_results: Vec<Result<Result<Solution, SolveError>, CliError>> = wide_boards
        .par_iter()
        .map(|board| {
            let kind = super::wide::wide_method(config, &board.to_string())?;
            let limits = config.limits(Algorithm::IdaStar);
            Ok(solve::wide::solve(board, kind, &limits, &NoProgress))
        })
        .collect();
    let mut rows = Rows::default();
    let mut solved = jobs.iter().zip(results);
    let mut wide_solved = wide_results.into_iter();
    for ((number, _), board) in lines.iter().zip(&parsed) {
        match board {
            Ok(AnyBoard::Board(_)) => {
                let ((_, algorithm, _), result) = solved.next().expect("a job per board");
                rows.push(*number, result, algorithm.name(), path);
            }
            Ok(AnyBoard::Wide(_)) => match wide_solved.next().expect("a result per board") {
                Ok(result) => rows.push(*number, result, Algorithm::IdaStar.name(), path),
                Err(e) => rows.bad(*number, e, path),
            },
            Err(e) => rows.bad(*number, e, path),
        }
    }
    Ok(vec![rows])
}

/// The board of a batch line (of any size the assignment allows), or why there is none.
fn parse(line: &LineText, config: &Config) -> Result<AnyBoard, String> {
    match line {
        Ok(text) => input::parse_flat_any(text, config.shape).map_err(|e| e.to_string()),
        Err(why) => Err(why.clone()),
    }
}

/// The rows of `lines` from `table`: the boards parsed, walked together, and written. The
/// seconds of each row are the mean of the walks made together.
fn table_rows(config: &Config, path: &Path, table: &DistanceTable, lines: &[BatchLine]) -> Rows {
    let parsed: Vec<_> = lines
        .iter()
        .map(|(_, line)| match parse(line, config)? {
            AnyBoard::Board(board) => Ok(board),
            AnyBoard::Wide(board) => Err(format!("a {board} board is not in a table")),
        })
        .collect();
    let boards: Vec<Board> = parsed.iter().flatten().cloned().collect();
    let started = std::time::Instant::now();
    let walks = table.solve_many(&boards);
    let elapsed = started.elapsed() / boards.len().max(1) as u32;
    let mut rows = Rows::default();
    rows.text
        .reserve(lines.len() * (24 + 2 * table.layers().len()));
    let mut walks = boards.iter().zip(walks);
    for ((number, _), board) in lines.iter().zip(&parsed) {
        match board {
            Ok(_) => {
                let (board, walk) = walks.next().expect("a walk per board");
                rows.push(
                    *number,
                    from_walk(table, board, walk, elapsed),
                    "table",
                    path,
                );
            }
            Err(e) => rows.bad(*number, e, path),
        }
    }
    rows
}
