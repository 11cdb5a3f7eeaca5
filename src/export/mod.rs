//! Writing the analysis: `edges.csv`, `nodes.csv`, `depths.csv`, `hardest.txt`,
//! `summary.json` (and, through [`crate::plot`], `depth_histogram.png`).
//!
//! Every file is written to a temporary name in its folder, synced, and renamed over the final
//! name when complete ([`crate::durable`]: npuzzle's one writer, also used by the charts, the
//! pattern database cache and the checkpoints), so an interrupted run leaves the previous file
//! intact. Outputs are
//! deterministic: large files are formatted in parallel in fixed rank chunks and written in
//! rank order. Boards are labelled as in the original R analysis ([`crate::board`]).

pub mod geometry;
#[cfg(feature = "parquet")]
pub mod parquet;

use crate::durable::{WriteBehind, commit, temp_beside};

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::components::Method;
use crate::graph;
use crate::metric::Metric;
use crate::progress::Progress;
use crate::rank::SequentialUnranker;
use crate::shape::Shape;

/// Ranks formatted per parallel work item.
const CHUNK: u32 = 1 << 15;
/// The most depths a saved `summary.json` may list (the largest radius of a board of at most
/// 64 cells is far below).
pub const MAX_SAVED_DEPTHS: usize = 10_000;
/// The largest `summary.json` read, in bytes (one analyze writes is a few hundred kB at most).
pub const MAX_SUMMARY_BYTES: u64 = 16 << 20;

/// Work items per batch: one batch is written while the next is formatted (this also bounds
/// the memory of streamed exports).
const BATCH: u32 = 4;

/// An output file could not be written, or a saved result (`summary.json`) read.
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} {}: {source}", path.display())]
pub struct ExportError {
    /// What failed: `write` (an output) or `read` (a saved result).
    pub action: &'static str,
    /// The file (or folder) that failed.
    pub path: PathBuf,
    /// The cause.
    pub source: io::Error,
}

fn fail(path: &Path) -> impl FnOnce(io::Error) -> ExportError + '_ {
    move |source| ExportError {
        action: "write",
        path: path.to_path_buf(),
        source,
    }
}

fn fail_read(path: &Path) -> impl FnOnce(io::Error) -> ExportError + '_ {
    move |source| ExportError {
        action: "read",
        path: path.to_path_buf(),
        source,
    }
}

/// How boards are written in `edges.csv` and `nodes.csv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardFormat {
    /// R-analysis labels (`123456789`; `1-2-...-12` from 10 cells on).
    Labels,
    /// Dense ranks `0..n!` (compact; CSV with a `from,to` header, read by R's `read.csv`
    /// and igraph's `graph_from_data_frame`).
    Ranks,
}

/// Writes `path` atomically: `write` fills a temporary file in the same folder
/// ([`temp_beside`]), which is then committed over `path` ([`commit`]).
///
/// # Errors
/// [`ExportError`] when the folder is not writable or a write fails; `path` is then untouched.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<WriteBehind<'_>>) -> io::Result<()>,
) -> Result<(), ExportError> {
    let tmp = temp_beside(path).map_err(fail(path))?;
    {
        // Small enough that the large chunks of the streamed exports bypass it (no copy).
        let mut out = BufWriter::with_capacity(1 << 16, WriteBehind::new(tmp.as_file()));
        write(&mut out).map_err(fail(path))?;
        out.flush().map_err(fail(path))?;
    }
    commit(tmp, path).map_err(fail(path))?;
    Ok(())
}

/// Creates `dir` (and parents) and checks that folders and files can be created in it
/// ([`crate::durable::folder::make`]).
///
/// # Errors
/// [`ExportError`] naming `dir` when it cannot be created or written, and the folder at
/// fault when one that exists cannot hold it (`cannot write /proc/x/3x3: /proc is not a
/// folder npuzzle can write in (...)`).
pub fn prepare_dir(dir: &Path) -> Result<(), ExportError> {
    crate::durable::folder::make(dir).map_err(fail(dir))?;
    temp_beside(&dir.join("npuzzle-probe")).map_err(fail(dir))?;
    Ok(())
}

/// `path` as messages show it: its bad bytes and control characters escaped
/// ([`crate::board::printable`]).
pub fn shown(path: &Path) -> String {
    crate::board::printable(&path.display().to_string())
}

/// Every file `analyze` may write into a results folder.
pub const OUTPUTS: [&str; 9] = [
    "table.npt",
    "edges.csv",
    "edges.parquet",
    "nodes.csv",
    "nodes.parquet",
    "depths.csv",
    "hardest.txt",
    "summary.json",
    "depth_histogram.png",
];

/// Moves the outputs of an earlier run that this one did not rewrite (any of [`OUTPUTS`] not in
/// `written`) into `dir/stale/` (`npuzzle analyze` and the Python package's `analyze`), replacing older stale copies, so that no file beside the new
/// `summary.json` describes another run; returns their names, and those of them that replaced
/// an older copy (for the report). Files that are not `analyze` outputs are left alone.
///
/// # Errors
/// The I/O error of a move, naming the file; `stale` that is a symbolic link or not a folder
/// (never followed: the files would land elsewhere).
pub fn set_aside_stale(
    dir: &Path,
    written: &[&str],
) -> Result<(Vec<&'static str>, Vec<&'static str>), String> {
    let (mut moved, mut replaced) = (Vec::new(), Vec::new());
    let stale = dir.join("stale");
    for name in OUTPUTS {
        let path = dir.join(name);
        if written.contains(&name) || !path.is_file() {
            continue;
        }
        match std::fs::symlink_metadata(&stale) {
            Ok(m) if !m.is_dir() => {
                return Err(format!(
                    "{} is not a folder (a symbolic link is not followed): move it away to \
                     let {} be set aside there",
                    shown(&stale),
                    shown(&path)
                ));
            }
            _ => {}
        }
        if std::fs::symlink_metadata(stale.join(name)).is_ok() {
            replaced.push(name);
        }
        std::fs::create_dir_all(&stale)
            .and_then(|()| std::fs::rename(&path, stale.join(name)))
            .map_err(|e| format!("cannot move {} to {}: {e}", shown(&path), shown(&stale)))?;
        moved.push(name);
    }
    Ok((moved, replaced))
}

/// Formats ranks `0..end` in parallel chunks with `format_chunk` and writes them in rank
/// order to `out`, pipelined: one batch is written while the next is formatted. Reports
/// progress per batch.
///
/// # Errors
/// The first error of `out`.
pub fn write_chunked(
    out: &mut (impl Write + Send),
    end: u32,
    progress: &dyn Progress,
    format_chunk: impl Fn(u32, u32, &mut Vec<u8>) + Sync,
) -> io::Result<()> {
    write_chunks(out, end, progress, &format_chunk)
}

/// [`write_chunked`] through trait objects: its callers pass one closure per board size
/// (`with_cells!`), and the parallel pipeline is compiled once rather than once for each
/// (a sixth of the crate's code before, issue 62). A call per chunk costs nothing beside
/// formatting the chunk.
fn write_chunks(
    out: &mut (dyn Write + Send),
    end: u32,
    progress: &dyn Progress,
    format_chunk: &(dyn Fn(u32, u32, &mut Vec<u8>) + Sync),
) -> io::Result<()> {
    let batch_end = |start: u32| start.saturating_add(CHUNK * BATCH).min(end);
    let format_batch = |start: u32| -> Vec<Vec<u8>> {
        let stop = batch_end(start);
        (start..stop)
            .step_by(CHUNK as usize)
            .collect::<Vec<u32>>()
            .into_par_iter()
            .map(|lo| {
                let mut buf = Vec::with_capacity(CHUNK as usize * 48);
                format_chunk(lo, lo.saturating_add(CHUNK).min(stop), &mut buf);
                buf
            })
            .collect()
    };
    let mut start = 0u32;
    let mut ready = format_batch(start);
    while start < end {
        let next_start = batch_end(start);
        let (written, next) = rayon::join(
            || ready.iter().try_for_each(|buf| out.write_all(buf)),
            || {
                if next_start < end {
                    format_batch(next_start)
                } else {
                    Vec::new()
                }
            },
        );
        written?;
        progress.update(u64::from(next_start), "");
        ready = next;
        start = next_start;
    }
    Ok(())
}

/// Appends the board `perm` in `format` (`rank` is its rank) to `out`.
#[inline(always)]
pub fn put_board(out: &mut Vec<u8>, perm: &[u8], rank: u32, format: BoardFormat) {
    match format {
        BoardFormat::Ranks => out.extend_from_slice(itoa::Buffer::new().format(rank).as_bytes()),
        BoardFormat::Labels if perm.len() <= 9 => out.extend(perm.iter().map(|&v| b'1' + v)),
        BoardFormat::Labels => {
            let mut digits = itoa::Buffer::new();
            for (i, &v) in perm.iter().enumerate() {
                if i > 0 {
                    out.push(b'-');
                }
                out.extend_from_slice(digits.format(u32::from(v) + 1).as_bytes());
            }
        }
    }
}

/// Writes the edge list of the whole game graph of `shape` (at most 12 cells) in `metric`:
/// header `from,to`, one row per undirected edge (from each board, its blank's right then
/// down moves: one each in STM, every jump in MTM), in rank order of `from`. Streamed: memory stays bounded whatever the size.
///
/// # Errors
/// [`ExportError`] when the file cannot be written.
pub fn write_edges(
    path: &Path,
    shape: Shape,
    metric: Metric,
    format: BoardFormat,
    progress: &dyn Progress,
) -> Result<(), ExportError> {
    let boards = shape.board_count().unwrap_or(0) as u32;
    progress.begin("edges.csv", u64::from(boards), "boards");
    let result = write_atomically(path, |out| {
        out.write_all(b"from,to\n")?;
        crate::with_cells!(shape.cells(), N => write_chunked(out, boards, progress, |lo, hi, buf| {
            edges_chunk::<N>(shape, metric, lo, hi, format, buf)
        }))
    });
    progress.end();
    result
}

fn edges_chunk<const N: usize>(
    shape: Shape,
    metric: Metric,
    lo: u32,
    hi: u32,
    format: BoardFormat,
    out: &mut Vec<u8>,
) {
    graph::for_each_forward_edge_in::<N>(metric, shape.cols(), lo, hi, |r, perm, nb, next| {
        put_board(out, perm, r, format);
        out.push(b',');
        put_board(out, next, nb, format);
        out.push(b'\n');
    });
}

/// The analysis' per-board results, which a nodes file (`path`) needs.
fn per_board_of<'a>(
    analysis: &'a Analysis,
    path: &Path,
) -> Result<&'a crate::analysis::PerBoard, ExportError> {
    let per_board = analysis
        .per_board
        .as_ref()
        .ok_or_else(|| fail(path)(io::Error::other("per-board results were not kept")))?;
    if per_board.overflowed() {
        return Err(fail(path)(io::Error::other(format!(
            "a board lies deeper than {} moves, beyond what per-board depths hold",
            crate::bfs::DepthArray::MAX_DEPTH
        ))));
    }
    Ok(per_board)
}

/// Writes `nodes.csv`: header `board,rank,component,depth` (`rank,component,depth` with
/// [`BoardFormat::Ranks`]), one row per board in rank order; `depth` is empty for boards
/// the goal cannot reach. Needs the analysis' per-board results.
///
/// # Errors
/// [`ExportError`] when the file cannot be written (or per-board results are missing).
pub fn write_nodes(
    path: &Path,
    analysis: &Analysis,
    format: BoardFormat,
    progress: &dyn Progress,
) -> Result<(), ExportError> {
    let per_board = per_board_of(analysis, path)?;
    let shape = analysis.shape;
    let boards = analysis.boards as u32;
    progress.begin("nodes.csv", u64::from(boards), "boards");
    let result = write_atomically(path, |out| {
        out.write_all(match format {
            BoardFormat::Labels => b"board,rank,component,depth\n",
            BoardFormat::Ranks => b"rank,component,depth\n",
        })?;
        crate::with_cells!(shape.cells(), N => write_chunked(out, boards, progress, |lo, hi, buf| {
            let mut unranker = SequentialUnranker::<N>::default();
            let mut num = itoa::Buffer::new();
            for r in lo..hi {
                let perm = unranker.unrank(u64::from(r)).perm;
                if format == BoardFormat::Labels {
                    put_board(buf, &perm, r, BoardFormat::Labels);
                    buf.push(b',');
                }
                let (component, depth) = per_board.get(&perm, u64::from(r));
                buf.extend_from_slice(num.format(r).as_bytes());
                buf.push(b',');
                buf.extend_from_slice(num.format(component).as_bytes());
                buf.push(b',');
                if let Some(d) = depth {
                    buf.extend_from_slice(num.format(d).as_bytes());
                }
                buf.push(b'\n');
            }
        }))
    });
    progress.end();
    result
}

/// One row of `summary.json`'s component sizes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeCount {
    /// Boards in each such component.
    pub size: u64,
    /// How many components have that size.
    pub count: u64,
}

/// Components in `summary.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComponentSummary {
    /// Number of connected components of the whole game graph.
    pub count: u64,
    /// Their sizes, largest first.
    pub sizes: Vec<SizeCount>,
    /// How they were found: `"search"` (BFS over every component) or `"theorem"` (the goal's
    /// by BFS, the other stated by the parity theorem, above 12 cells; see
    /// [`crate::components`]).
    #[serde(default = "search")]
    pub found_by: String,
}

fn search() -> String {
    "search".to_string()
}

/// A hardest board in `summary.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HardBoard {
    /// R-analysis label.
    pub board: String,
    /// Dense rank.
    pub rank: u64,
    /// Rows of the grid, blank as `.`.
    pub grid: Vec<String>,
}

/// The hardest boards (antipodes of the goal) in `summary.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HardestSummary {
    /// Their depth (the maximum).
    pub depth: u32,
    /// How many boards are at that depth.
    pub count: u64,
    /// The boards, by rank (empty if too many to list).
    pub boards: Vec<HardBoard>,
}

/// `summary.json`: everything but per-board data, enough to redraw the chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Shape name, `RxC`.
    pub board: String,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// The goal's label.
    pub goal: String,
    /// The move metric of every figure: `stm` (single-tile) or `mtm` (multi-tile); `stm` in
    /// summaries written before it was recorded.
    #[serde(default = "single_tile")]
    pub metric: String,
    /// All boards (`n!`), vertices of the game graph.
    pub boards: u64,
    /// Undirected edges of the game graph.
    pub edges: u64,
    /// Connected components.
    pub components: ComponentSummary,
    /// Boards reachable from the goal (the goal's component); absent from a partial run's
    /// summary, which has [`Summary::boards_found`] instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reachable: Option<u64>,
    /// Only for a depth-limited search that stopped at its limit: the boards found, those
    /// within `max_depth` moves of the goal (a part of the reachable boards).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boards_found: Option<u64>,
    /// Maximum depth from the goal in [`Summary::metric`]: God's number for this board from the
    /// standard goal, the goal's eccentricity from another goal, the limit for a partial run.
    pub max_depth: u32,
    /// The boards at the maximum depth.
    pub hardest: HardestSummary,
    /// `depth_counts[d]` = boards at depth `d` from the goal.
    pub depth_counts: Vec<u64>,
    /// The mean depth of the boards counted in [`Summary::depth_counts`] (of the boards found,
    /// for a partial run), in moves; absent from summaries written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_depth: Option<f64>,
    /// Their median depth: the smallest depth with at least half of them at or below it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_depth: Option<u32>,
    /// Only for a depth-limited search (`analyze --max-depth`): true when it ran out of
    /// boards before the limit (the figures are then the whole component's), false when it
    /// stopped at the limit (`max_depth` is then the limit, `reachable` the boards found).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complete: Option<bool>,
    /// Only for a depth-limited search: the depth limit asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth_searched: Option<u32>,
    /// Only for a depth-limited search: its layers checked, the sum against the component and
    /// the counts against the published distribution
    /// ([`crate::analysis::limited::Verification`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<VerificationSummary>,
    /// Only for a depth-limited search across processes (`analyze --max-depth --processes`):
    /// the processes, the boards they expanded and the bytes they sent each other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic: Option<TrafficSummary>,
    /// Which npuzzle wrote the summary, and the command that asked for it (the last field, so
    /// that the figures above read the same whichever command wrote them); absent from
    /// summaries written before it was recorded, and from [`Summary::of`] until the caller
    /// gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub npuzzle: Option<Provenance>,
}

/// A depth-limited search's check of its layers, in `summary.json`: `"verification":
/// {"verified": true, "boards_found": ..., "component": ..., "published_depths": ...,
/// "differs_at": null, "published_source": "OEIS A090164"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerificationSummary {
    /// Nothing disagrees (the sum is the component's when complete, at most it otherwise, and
    /// no depth differs from the published distribution).
    pub verified: bool,
    /// Boards found, all depths together.
    pub boards_found: u64,
    /// Boards of the goal's component.
    pub component: u64,
    /// Depths compared with the published distribution (0: none published for this board
    /// and goal).
    pub published_depths: u32,
    /// The first depth that differs from the published distribution, if any.
    pub differs_at: Option<u32>,
    /// Where the published distribution compared with comes from (e.g. `OEIS A090164` for
    /// 4x4 from a central blank); absent when none was compared, and from summaries written
    /// before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_source: Option<String>,
}

/// The traffic of a depth-limited search across processes, in `summary.json`: `"traffic":
/// {"processes": 2, "boards_expanded": ..., "bytes_sent": ..., "bytes_per_board": 0.91}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrafficSummary {
    /// Processes the search ran on.
    pub processes: usize,
    /// Boards expanded, by every process together.
    pub boards_expanded: u64,
    /// Bytes of the runs' pieces the processes sent each other (with their headers).
    pub bytes_sent: u64,
    /// `bytes_sent / boards_expanded`.
    pub bytes_per_board: f64,
    /// The same per layer built, by depth.
    pub by_depth: Vec<LayerTraffic>,
}

/// One layer's line of [`TrafficSummary::by_depth`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerTraffic {
    /// The depth of the layer built.
    pub depth: u32,
    /// Boards of the layer before it, expanded by the processes.
    pub boards_expanded: u64,
    /// Bytes the processes sent each other to build it.
    pub bytes_sent: u64,
    /// `bytes_sent / boards_expanded` (0 for no board).
    pub bytes_per_board: f64,
}

/// The git commit this build of npuzzle was made from: its short hash, with `-dirty` when a
/// tracked file differed from it; `None` when it was not built from a git checkout (a crate
/// from a registry, no `git` on the build machine). Set by the build script (`build.rs`).
pub const BUILD_COMMIT: Option<&str> = option_env!("NPUZZLE_COMMIT");

/// Where a `summary.json` comes from: `"npuzzle": {"version": "0.1.0", "commit": "b717cc4",
/// "command": "npuzzle analyze --size 3"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// npuzzle's version (its `Cargo.toml`'s), e.g. `0.1.0`.
    pub version: String,
    /// The git commit it was built from ([`BUILD_COMMIT`]); `null` when not built from git.
    #[serde(default)]
    pub commit: Option<String>,
    /// How the run was asked for: the command line that wrote the summary, as a shell reads
    /// it (the program named `npuzzle`, each argument after it quoted where the shell needs
    /// it: `npuzzle solve --board '8 6 7 2 5 4 3 0 1'`, [`Provenance::of_this_build`]), or
    /// the call of another front end as written in its language (the Python package's
    /// `npuzzle.analyze(2, 3, output='out')`, [`Provenance::of_call`]).
    pub command: String,
}

impl Provenance {
    /// The provenance of a summary written by this build of npuzzle for the command whose
    /// arguments after the program's name are `args`.
    ///
    /// ```
    /// let p = npuzzle::export::Provenance::of_this_build(["analyze", "--goal", "1 2 3 / 4 0 5"]);
    /// assert_eq!(p.command, "npuzzle analyze --goal '1 2 3 / 4 0 5'");
    /// assert_eq!(p.version, env!("CARGO_PKG_VERSION"));
    /// ```
    pub fn of_this_build<I, S>(args: I) -> Provenance
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Provenance {
            version: env!("CARGO_PKG_VERSION").to_string(),
            commit: BUILD_COMMIT.map(str::to_string),
            command: command_line(args),
        }
    }
}

impl Provenance {
    /// The provenance of a summary written by this build for a call of a front end other
    /// than the command line, `call` as its user wrote it (the Python package:
    /// `npuzzle.analyze(2, 3, metric='mtm', output='out')`), kept as it is.
    pub fn of_call(call: impl Into<String>) -> Provenance {
        Provenance {
            version: env!("CARGO_PKG_VERSION").to_string(),
            commit: BUILD_COMMIT.map(str::to_string),
            command: call.into(),
        }
    }
}

/// `npuzzle` and `args` as one line a POSIX shell splits back into the same words: each
/// argument quoted where it needs it (shlex: single quotes, or double quotes around a single
/// quote), the words separated by one space.
pub fn command_line<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut line = String::from("npuzzle");
    for arg in args {
        let arg = arg.as_ref();
        line.push(' ');
        // Quoting fails on a NUL byte only, which no argument of a process can hold.
        match shlex::try_quote(arg) {
            Ok(quoted) => line.push_str(&quoted),
            Err(_) => line.push_str(arg),
        }
    }
    line
}

/// The mean of a depth distribution (`counts[d]` boards at depth `d`), or `None` when it is
/// empty. Summed in `u128`, so exact before the one division.
pub fn mean_depth(counts: &[u64]) -> Option<f64> {
    let boards: u128 = counts.iter().map(|&c| u128::from(c)).sum();
    let moves: u128 = counts
        .iter()
        .enumerate()
        .map(|(d, &c)| d as u128 * u128::from(c))
        .sum();
    (boards > 0).then(|| moves as f64 / boards as f64)
}

/// The median of a depth distribution: the smallest depth `m` with at least half of the
/// boards at depth `m` or less (the lower median), or `None` when it is empty.
pub fn median_depth(counts: &[u64]) -> Option<u32> {
    let boards: u128 = counts.iter().map(|&c| u128::from(c)).sum();
    let mut below = 0u128;
    counts.iter().enumerate().find_map(|(d, &c)| {
        below += u128::from(c);
        (boards > 0 && 2 * below >= boards).then_some(d as u32)
    })
}

/// The metric of a summary that does not say: `stm`.
fn single_tile() -> String {
    Metric::Stm.name().to_string()
}

impl Summary {
    /// The metric of the figures (`stm` for a name this version does not know).
    pub fn metric(&self) -> Metric {
        Metric::parse(&self.metric).unwrap_or_default()
    }

    /// The summary of `analysis`.
    pub fn of(analysis: &Analysis) -> Summary {
        let shape = analysis.shape;
        let d = &analysis.distances;
        Summary {
            board: shape.to_string(),
            rows: shape.rows(),
            cols: shape.cols(),
            goal: analysis.goal.label(),
            metric: analysis.metric.name().to_string(),
            boards: analysis.boards,
            edges: analysis.edges,
            components: ComponentSummary {
                count: analysis.components.count,
                sizes: analysis
                    .components
                    .sizes
                    .iter()
                    .rev()
                    .map(|(&size, &count)| SizeCount { size, count })
                    .collect(),
                found_by: match analysis.components.method {
                    Method::Search => search(),
                    Method::Theorem => "theorem".to_string(),
                },
            },
            reachable: Some(d.reachable()),
            boards_found: None,
            max_depth: d.max_depth(),
            hardest: HardestSummary {
                depth: d.max_depth(),
                count: d.layer_sizes.last().copied().unwrap_or(0),
                boards: d
                    .antipodes
                    .iter()
                    .map(|b| HardBoard {
                        board: b.label(),
                        rank: b.rank(),
                        grid: b.grid().lines().map(str::to_string).collect(),
                    })
                    .collect(),
            },
            depth_counts: d.layer_sizes.clone(),
            mean_depth: mean_depth(&d.layer_sizes),
            median_depth: median_depth(&d.layer_sizes),
            complete: None,
            max_depth_searched: None,
            verification: None,
            traffic: None,
            npuzzle: None,
        }
    }

    /// True for a depth-limited search that stopped at its limit.
    pub fn is_partial(&self) -> bool {
        self.complete == Some(false)
    }

    /// Marks the summary of a depth-limited search to `max_depth_searched`: `complete` when it
    /// ran out of boards first (the figures are then the whole component's), else partial,
    /// its boards counted as [`Summary::boards_found`], not [`Summary::reachable`].
    pub fn limit(&mut self, complete: bool, max_depth_searched: u32) {
        self.complete = Some(complete);
        self.max_depth_searched = Some(max_depth_searched);
        if !complete {
            self.boards_found = self.reachable.take().or(self.boards_found);
        }
    }

    /// The boards counted in `depth_counts`: the reachable boards, or the boards found by a
    /// partial run.
    pub fn counted(&self) -> u64 {
        self.reachable.or(self.boards_found).unwrap_or(0)
    }

    /// True when the distances are from the standard goal (tiles in order, blank last), whose
    /// radius is God's number.
    pub fn from_standard_goal(&self) -> bool {
        Shape::new(self.rows, self.cols)
            .is_ok_and(|shape| crate::Board::goal(shape).label() == self.goal)
    }

    /// Reads `summary.json`.
    ///
    /// # Errors
    /// [`ExportError`] when the file is missing or not a summary.
    pub fn read(path: &Path) -> Result<Summary, ExportError> {
        use std::io::Read;
        let mut text = String::new();
        crate::durable::open_regular(path)
            .and_then(|f| f.take(MAX_SUMMARY_BYTES + 1).read_to_string(&mut text))
            .map_err(fail_read(path))?;
        if text.len() as u64 > MAX_SUMMARY_BYTES {
            return Err(fail_read(path)(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("larger than {MAX_SUMMARY_BYTES} bytes: not a summary analyze wrote"),
            )));
        }
        let summary: Summary =
            serde_json::from_str(&text).map_err(|e| fail_read(path)(io::Error::other(e)))?;
        summary
            .check()
            .map_err(|why| fail_read(path)(io::Error::new(io::ErrorKind::InvalidData, why)))?;
        Ok(summary)
    }

    /// Checks what the charts rely on, so that an edited or foreign `summary.json` gives a
    /// one-line error rather than a nonsense chart or a panic: a valid shape named as in
    /// `board`; a metric this version knows; its board and edge counts (`n!`, and the
    /// edges of [`crate::analysis::edge_count`] in that metric, where they fit in 64 bits); components that add up to at most the boards; reachable
    /// boards (or boards found) at most the boards and equal to the sum of the counts per
    /// depth, the goal alone at depth 0; at most [`MAX_SAVED_DEPTHS`] depths; and each
    /// hardest board's label and grid of that shape's size.
    ///
    /// # Errors
    /// What is wrong, in a few words.
    pub fn check(&self) -> Result<(), String> {
        let shape = Shape::new(self.rows, self.cols).map_err(|e| e.to_string())?;
        if self.board != shape.to_string() {
            return Err(format!("board {:?} is not {shape}", self.board));
        }
        if self.depth_counts.len() > MAX_SAVED_DEPTHS {
            return Err(format!(
                "{} depths (at most {MAX_SAVED_DEPTHS})",
                self.depth_counts.len()
            ));
        }
        if let Some(boards) = shape.board_count()
            && boards != self.boards
        {
            return Err(format!("{} boards, but {shape} has {boards}", self.boards));
        }
        let Some(metric) = Metric::parse(&self.metric) else {
            return Err(format!("metric {:?} is neither stm nor mtm", self.metric));
        };
        if let Some(edges) = crate::analysis::edge_count(shape, metric)
            && edges != self.edges
        {
            return Err(format!(
                "{} edges, but {shape} has {edges} in the {} metric",
                self.edges,
                metric.long_name()
            ));
        }
        let in_components = self.components.sizes.iter().try_fold(0u64, |total, s| {
            s.size
                .checked_mul(s.count)
                .and_then(|b| total.checked_add(b))
        });
        let components = self.components.sizes.iter().map(|s| s.count).sum::<u64>();
        if in_components.is_none_or(|b| b > self.boards) || components != self.components.count {
            return Err("components that do not add up".into());
        }
        let counted = self.reachable.or(self.boards_found).unwrap_or(0);
        let sum = self
            .depth_counts
            .iter()
            .try_fold(0u64, |total, &c| total.checked_add(c));
        if counted > self.boards || sum != Some(counted) || self.depth_counts.first() != Some(&1) {
            return Err(format!(
                "counts per depth that do not add up to the {counted} boards reached (of {})",
                self.boards
            ));
        }
        // A label is at most 3 characters per cell; a grid row at most 4 per cell.
        let n = shape.cells();
        for hard in &self.hardest.boards {
            if hard.board.len() > 3 * n
                || hard.grid.len() != shape.rows()
                || hard.grid.iter().any(|row| row.len() > 4 * shape.cols())
            {
                return Err(format!("a hardest board that is not a {shape} board"));
            }
        }
        Ok(())
    }
}

/// Writes `summary.json` (pretty-printed).
///
/// # Errors
/// [`ExportError`] when the file cannot be written.
pub fn write_summary(path: &Path, summary: &Summary) -> Result<(), ExportError> {
    write_atomically(path, |out| {
        serde_json::to_writer_pretty(&mut *out, summary)?;
        out.write_all(b"\n")
    })
}

/// Writes `depths.csv`: `depth,count,fraction`, fraction = count / the boards counted
/// ([`Summary::counted`]: the reachable boards, or a partial run's boards found).
///
/// # Errors
/// [`ExportError`] when the file cannot be written.
pub fn write_depths(path: &Path, summary: &Summary) -> Result<(), ExportError> {
    write_atomically(path, |out| {
        let mut csv = csv::Writer::from_writer(out);
        csv.write_record(["depth", "count", "fraction"])?;
        for (depth, &count) in summary.depth_counts.iter().enumerate() {
            let fraction = count as f64 / summary.counted() as f64;
            csv.write_record([depth.to_string(), count.to_string(), fraction.to_string()])?;
        }
        csv.flush()
    })
}

/// Writes `hardest.txt`: each hardest board as a grid (blank `.`) with its depth.
///
/// # Errors
/// [`ExportError`] when the file cannot be written.
pub fn write_hardest(path: &Path, summary: &Summary) -> Result<(), ExportError> {
    write_atomically(path, |out| {
        let h = &summary.hardest;
        if summary.is_partial() {
            writeln!(
                out,
                "# {} board: the search stopped at depth {} (--max-depth, {} metric); {} board(s) \
                 at that depth",
                summary.board,
                h.depth,
                summary.metric().long_name(),
                h.count
            )?;
            if (h.boards.len() as u64) < h.count {
                writeln!(
                    out,
                    "# ({} of them listed: the first in the search's index order, which is not \
                     rank order)",
                    h.boards.len()
                )?;
            }
        } else {
            writeln!(
                out,
                "# {} board: {} hardest board(s), {} moves from the goal ({} metric)",
                summary.board,
                h.count,
                h.depth,
                summary.metric().long_name()
            )?;
        }
        if h.boards.is_empty() && h.count > 0 {
            writeln!(out, "# (too many to list)")?;
        }
        for b in &h.boards {
            writeln!(out, "\n{} (rank {}, depth {})", b.board, b.rank, h.depth)?;
            for row in &b.grid {
                writeln!(out, "{row}")?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Options, analyze_unchecked};
    use crate::progress::NoProgress;
    use std::fs;

    /// The 8-puzzle's mean optimal solution length is 21.97 moves (Reinefeld 1993, from the
    /// distribution OEIS A089473), its median 22; an empty distribution has neither.
    #[test]
    fn mean_and_median_depth() {
        let mean = mean_depth(&crate::published::A089473).unwrap();
        assert_eq!(format!("{mean:.2}"), "21.97");
        assert_eq!(median_depth(&crate::published::A089473), Some(22));
        assert_eq!((mean_depth(&[1]), median_depth(&[1])), (Some(0.0), Some(0)));
        // 1 board at 0, 3 at 2: mean 1.5, and half of the 4 are at depth 2 or less only from 2.
        assert_eq!(
            (mean_depth(&[1, 0, 3]), median_depth(&[1, 0, 3])),
            (Some(1.5), Some(2))
        );
        assert_eq!((mean_depth(&[]), median_depth(&[0, 0])), (None, None));
    }

    #[test]
    fn edges_csv_lists_each_edge_once_in_r_labels() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("edges.csv");
        let shape = Shape::new(2, 2).unwrap();
        write_edges(&path, shape, Metric::Stm, BoardFormat::Labels, &NoProgress).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "from,to");
        assert_eq!(lines.len(), 1 + 24);
        // The goal 1234 (blank last) has no right or down move; 1243 (blank in cell 2)
        // moves right to 1234.
        assert!(lines.contains(&"1243,1234"));
        assert!(!lines.iter().any(|l| l.starts_with("1234,")));
    }

    #[test]
    fn nodes_csv_rows_follow_the_analysis() {
        let dir = tempfile::tempdir().unwrap();
        let shape = Shape::new(2, 3).unwrap();
        let analysis = analyze_unchecked(
            &crate::Board::goal(shape),
            Options {
                per_board: true,
                ..Options::default()
            },
            &NoProgress,
        )
        .unwrap();
        let path = dir.path().join("nodes.csv");
        write_nodes(&path, &analysis, BoardFormat::Labels, &NoProgress).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("board,rank,component,depth"));
        assert_eq!(lines.next(), Some("123456,0,0,0"));
        assert_eq!(lines.count(), 719);
        // 123465 is one move from the goal; 123546 (two tiles swapped) is unreachable: an
        // empty depth and component 1.
        assert!(text.contains("\n123465,1,0,1\n"));
        assert!(text.contains("\n123546,2,1,\n"));
    }

    #[test]
    fn failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "old").unwrap();
        let err = write_atomically(&path, |out| {
            out.write_all(b"half")?;
            Err(io::Error::other("interrupted"))
        });
        assert!(err.is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary left behind"
        );
    }
}
