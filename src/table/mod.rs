//! Distance tables (`table.npt`): a finished analysis saved so that any board is answered
//! later (its depth and a shortest way home) without searching.
//!
//! Two bits per board are enough. From a board at depth `d > 0` some neighbour is at
//! `d - 1`; the other neighbours are at `d` or `d + 1` (`d` only in the multi-tile metric). So
//! a code that tells `d - 1` from `d` and `d + 1` lets a walk step to a neighbour one move
//! closer until the goal, on a shortest path, and counting the steps gives the depth. The
//! codes come in two kinds ([`Codes`]):
//!
//! - **depth mod 3** (Cooperman & Finkelstein's two-bit breadth-first search), `3` marking a
//!   board the goal cannot reach: written from every board's depth (the multi-tile metric,
//!   one-row boards; up to 12 cells);
//! - **the BFS's marks** ([`crate::bfs::Marking::Depths`]) in the single-tile metric on the
//!   parity index: `0` unreached, `2 + (d / 2) mod 2` for depth `d`. The game graph is
//!   bipartite and the side of a board is the colour of its blank's cell, so `d mod 2` is the
//!   colour's difference from the goal's, and with the code's low bit gives `d mod 4`. The
//!   marks themselves are the table: a 2x7 analysis needs no second 10.9 GB array.
//!
//! **File.** All integers little-endian:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `NPUZZTBL` |
//! | 4 | format version ([`FORMAT_VERSION`]) |
//! | 4 + 4 | rows, columns |
//! | 4 | metric: 0 single-tile, 1 multi-tile |
//! | 4 | index layout: 1 the parity index of the goal's class (`n!/2` boards, [`crate::bfs::ParitySpace`]), 2 the lexicographic rank (`n!` boards, one-row and one-column boards) |
//! | 4 | codes: 1 depth mod 3, 2 the single-tile BFS's marks ([`Codes`]) |
//! | 4 | `s`, the checksum blocks' size: `2^s` bytes of codes ([`BLOCK_SHIFT`], 20: 1 MiB) |
//! | `n` | the goal, its internal permutation (piece on each cell, blank `n - 1`) |
//! | 4 | radius |
//! | `8 (radius + 1)` | the layer sizes, from depth 0 |
//! | 8 | boards indexed (`n!/2` or `n!`) |
//! | 8 | `L`, the largest layer listed board by board ([`rare_limit`]) |
//! | `8 k` | the index of every board of each layer of at most `L` boards, by depth then index (`k` their total) |
//! | `c = ceil(boards / 4)` | the codes, four per byte, board `i` in bits `2 (i mod 4)` of byte `i / 4` (the marks' own layout) |
//! | `4 ceil(c / 2^s)` | the CRC-32 (IEEE) of each block of `2^s` bytes of codes, in order (the last block may be shorter) |
//! | 4 | CRC-32 (IEEE) of the header (everything before the codes) followed by the blocks' CRCs |
//!
//! 3x4 takes 60 MB, 2x7 10.9 GB. A table is opened by memory map ([`DistanceTable::open`]):
//! its length and the last CRC are checked at once (the header and the blocks' CRCs, a few
//! kilobytes and the listed layers), and each block of codes is checked against its CRC the
//! first time a walk reads a code in it (an atomic flag per block keeps the verdict for the
//! life of the opened table). No file beside the table enters this: what proves the codes
//! whole is in the file itself. A walk that needs a code of a block that fails its CRC is
//! an error naming the block, never an answer; the other blocks still answer. Format version
//! 1 (one CRC-32 over the whole file, no blocks) is still read, with that whole-file check
//! on every open.
//!
//! **The walk** ([`DistanceTable::depths_of`], [`DistanceTable::solve_many`]) keeps 16
//! boards going down together, so that the random reads of their codes overlap. In the
//! parity layout each walk holds its board's tile sequence with its Lehmer digits
//! (`bfs::Held`): a move along the row is `index ± k` and its code lies in the cache
//! line already read, so a walk takes such moves first; a vertical move's index is the BFS
//! kernel's closed form on one row of tiles, and only those codes are prefetched and read.
//!
//! **Random boards at one depth** ([`DistanceTable::sample`]): a board of a layer listed in
//! the file is drawn from its list; a board of a larger layer by rejection: a uniform index,
//! kept when its code says `d mod 3` (or `d mod 4`) and its walk is `d` steps long. Both are uniform over the
//! layer, and since listed layers are the rare ones, a rare depth is no slower than a common
//! one (at most `boards / L` tries a draw).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

pub use crate::analysis::rare_limit;
use crate::analysis::{Analysis, Engine, TableMarks};
use crate::bfs::{Held, Parity, ParitySpace, Sides, StateIndex, StateSpace, WithHeld};
use crate::board::{Board, Direction};
use crate::durable::TempFile;
use crate::metric::{self, Metric};
use crate::shape::Shape;

/// The magic bytes that open a table file.
pub const MAGIC: [u8; 8] = *b"NPUZZTBL";

/// The file format version: 2 since the codes carry a CRC-32 per block (1 had one CRC over
/// the whole file, and is still read with a full check on every open).
pub const FORMAT_VERSION: u32 = 2;

/// The size of a checksum block written by [`write()`]: `2^BLOCK_SHIFT` bytes of codes
/// (1 MiB, 4,194,304 boards). Checking one takes about a tenth of a millisecond; 2x7's
/// 10.9 GB of codes has 10,387 of them.
pub const BLOCK_SHIFT: u32 = 20;

/// The smallest and largest block size a file may give (`2^s` bytes of codes).
const BLOCK_SHIFTS: std::ops::RangeInclusive<u32> = 6..=40;

/// States of a checksum block of an opened table.
const UNCHECKED: u8 = 0;
const GOOD: u8 = 1;
const BAD: u8 = 2;

/// The code of a board the goal cannot reach ([`Codes::Mod3`]).
pub const UNREACHED: u8 = 3;

/// How the two bits of a board hold its depth `d` (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Codes {
    /// `d mod 3`; [`UNREACHED`] for a board the goal cannot reach.
    Mod3 = 1,
    /// The single-tile BFS's marks ([`crate::bfs::Marking::Depths`]): `0` unreached,
    /// `2 + (d / 2) mod 2`; parity index, single-tile metric only.
    Marks = 2,
}

/// A code that no finished table holds (a [`Codes::Marks`] field of `1`).
const CORRUPT: u8 = u8::MAX;

/// The code of a walk whose board's code is not read yet ([`DistanceTable::walk_held`]).
const UNREAD: u8 = u8::MAX - 1;

/// The most moves across a row a blank has in the parity layout (the multi-tile metric on a
/// board of at most 20 cells: at most 9 rows below or above it).
const MAX_ACROSS: usize = 9;

/// Walks that go down a table together ([`DistanceTable::solve_many`]): enough for the
/// memory reads of one round of steps (about two a walk, at random over the table) to
/// overlap.
const WALKS: usize = 16;

/// A board drawn by rejection ([`DistanceTable::sample_each`]) takes at most this many
/// times the mean number of tries: a sound table runs out with a probability below
/// `e^-64`.
pub const MAX_TRIES: u64 = 64;

/// The most cells of a board a walk holds (the parity index's largest board).
const MAX_WALK_CELLS: usize = ParitySpace::MAX_CELLS;

/// One board's walk down a table, between two rounds of steps.
struct Descent {
    /// Its place in the group.
    k: usize,
    /// The board (its first `cells` entries) and its blank's cell.
    cells: [u8; MAX_WALK_CELLS],
    blank: usize,
    /// The board's index and its depth class.
    index: u64,
    code: u8,
    /// Moves made.
    steps: u32,
    /// The neighbours located this round (the first `found`): index and the blank's cell.
    next: [(u64, u8); MAX_WALK_CELLS],
    found: usize,
}

/// The depth class one move closer than `code` (`code < modulus`), without a division.
#[inline(always)]
fn below(code: u8, modulus: u8) -> u8 {
    match code {
        0 => modulus - 1,
        _ => code - 1,
    }
}

/// The index of the board whose blank moves from `blank` to `to` along its row, from the
/// board of `index` (parity layout: the tile sequence is unchanged).
#[inline(always)]
fn flat(index: u64, blank: usize, to: usize) -> u64 {
    (index + to as u64).wrapping_sub(blank as u64)
}

/// One board's walk down a table in the parity layout ([`DistanceTable::walk_held`]).
struct HeldWalk<const M: usize, const C: usize> {
    /// Its place in the group.
    k: usize,
    /// The board.
    held: Held<M, C>,
    /// Its index and depth class.
    index: u64,
    code: u8,
    /// Moves made.
    steps: u32,
    /// The blank's cell before the last move (`usize::MAX` at the start).
    from: usize,
    /// Its moves across located this round (the first `found`): index and the blank's cell.
    next: [(u64, u8); MAX_ACROSS],
    found: usize,
}

/// [`DistanceTable::walk_held`] for the table's shape, as [`crate::bfs::with_held`] runs it.
struct HeldWalks<'a, F> {
    table: &'a DistanceTable,
    group: &'a [&'a [u8]],
    step: F,
    /// Whether the reads check their blocks ([`DistanceTable::must_check`]).
    check: bool,
}

impl<F: FnMut(usize, Direction, usize, usize)> WithHeld for HeldWalks<'_, F> {
    type Out = Vec<Result<Option<u32>, TableError>>;

    fn run<const M: usize, const C: usize>(self) -> Self::Out {
        #[cfg(target_arch = "x86_64")]
        if crate::bfs::x86_64_v3() {
            // SAFETY: the processor has the features `walk_held_v3` is compiled for.
            return unsafe {
                self.table
                    .walk_held_v3::<M, C>(self.group, self.step, self.check)
            };
        }
        self.table
            .walk_held::<M, C>(self.group, self.step, self.check)
    }
}

/// Why a table could not be written, read or used. Each message is one line.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The analysis kept no per-board depths to save.
    #[error("{0}")]
    Unsupported(String),
    /// The file could not be written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What failed.
        source: io::Error,
    },
    /// Not a table, or a damaged one.
    #[error("{path}: {why}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
    /// A board the table was not made for.
    #[error("{0}")]
    WrongBoard(String),
}

/// Writes the table of `analysis` to `path` atomically (a temporary file renamed over it).
///
/// # Errors
/// [`TableError::Unsupported`] when the analysis kept no per-board depths (it must be run with
/// [`crate::analysis::Options::per_board`]); [`TableError::Io`] when the file cannot be
/// written (`path` is then untouched).
pub fn write(path: &Path, analysis: &Analysis) -> Result<(), TableError> {
    if let Some(marked) = &analysis.marked {
        return write_marks(path, analysis, marked);
    }
    let boards = analysis.per_board.as_ref().map_or(0, |p| p.layout().1);
    write_with(path, analysis, rare_limit(boards))
}

/// Writes the table whose codes are the finished marks of `analysis` ([`Codes::Marks`]): the
/// header, the listed layers and the marks' bytes as they lie in memory, with no other copy.
fn write_marks(path: &Path, analysis: &Analysis, marked: &TableMarks) -> Result<(), TableError> {
    let boards = marked.space.size();
    let listed = marked
        .listed
        .iter()
        .flat_map(|(_, boards)| boards.iter().map(|i| i.0));
    let head = header(
        Meta::of(analysis),
        (Engine::Parity, Codes::Marks, boards),
        (marked.limit, BLOCK_SHIFT),
        listed,
    );
    // SAFETY: the analysis is finished: no thread changes its marks any more.
    unsafe {
        marked.marks.with_bytes(|bytes| {
            finish(
                path,
                &head,
                &bytes[..boards.div_ceil(4) as usize],
                BLOCK_SHIFT,
            )
        })
    }
}

/// What a table's header says of its analysis: the goal (and so the shape), the metric, and
/// the layer sizes from depth 0.
#[derive(Clone, Copy)]
struct Meta<'a> {
    goal: &'a Board,
    metric: Metric,
    layers: &'a [u64],
}

impl<'a> Meta<'a> {
    fn of(analysis: &'a Analysis) -> Meta<'a> {
        Meta {
            goal: &analysis.goal,
            metric: analysis.metric,
            layers: &analysis.distances.layer_sizes,
        }
    }
}

/// The header of a table (see the module documentation), up to the codes.
fn header(
    meta: Meta<'_>,
    (layout, codes, boards): (Engine, Codes, u64),
    (limit, shift): (u64, u32),
    listed: impl Iterator<Item = u64>,
) -> Vec<u8> {
    let layers = meta.layers;
    let mut head = Vec::new();
    head.extend_from_slice(&MAGIC);
    head.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    let shape = meta.goal.shape();
    head.extend_from_slice(&(shape.rows() as u32).to_le_bytes());
    head.extend_from_slice(&(shape.cols() as u32).to_le_bytes());
    head.extend_from_slice(&meta.metric.code().to_le_bytes());
    head.extend_from_slice(&(layout as u32).to_le_bytes());
    head.extend_from_slice(&(codes as u32).to_le_bytes());
    head.extend_from_slice(&shift.to_le_bytes());
    head.extend_from_slice(meta.goal.permutation());
    head.extend_from_slice(&(layers.len().saturating_sub(1) as u32).to_le_bytes());
    for &size in layers {
        head.extend_from_slice(&size.to_le_bytes());
    }
    head.extend_from_slice(&boards.to_le_bytes());
    head.extend_from_slice(&limit.to_le_bytes());
    // The boards of the rare layers, by depth then index.
    for i in listed {
        head.extend_from_slice(&i.to_le_bytes());
    }
    head
}

/// The CRC-32 of `parts` in turn, computed in parallel (chunks of 16 MiB combined).
fn checksum(parts: &[&[u8]]) -> u32 {
    hasher(parts).finalize()
}

/// The CRC-32 state after `parts` in turn, computed in parallel (chunks of 16 MiB combined).
fn hasher(parts: &[&[u8]]) -> crc32fast::Hasher {
    parts
        .iter()
        .flat_map(|part| part.chunks(1 << 24))
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|chunk| {
            let mut h = crc32fast::Hasher::new();
            h.update(chunk);
            h
        })
        .collect::<Vec<_>>()
        .into_iter()
        .fold(crc32fast::Hasher::new(), |mut all, h| {
            all.combine(&h);
            all
        })
}

/// The CRC-32 of each block of `2^shift` bytes of `codes`, little-endian, in order,
/// computed in parallel.
fn block_crcs(codes: &[u8], shift: u32) -> Vec<u8> {
    codes
        .par_chunks(1 << shift)
        .map(crc32fast::hash)
        .collect::<Vec<u32>>()
        .into_iter()
        .flat_map(u32::to_le_bytes)
        .collect()
}

/// Writes `head`, `codes`, the CRC of each block of `2^shift` bytes of codes and the CRC of
/// the header and those to `path` atomically.
fn finish(path: &Path, head: &[u8], codes: &[u8], shift: u32) -> Result<(), TableError> {
    let blocks = block_crcs(codes, shift);
    let crc = checksum(&[head, &blocks]);
    crate::export::write_atomically(path, |out| {
        out.write_all(head)?;
        out.write_all(codes)?;
        out.write_all(&blocks)?;
        out.write_all(&crc.to_le_bytes())
    })
    .map_err(|e| TableError::Io {
        path: path.display().to_string(),
        source: io::Error::other(e.to_string()),
    })
}

/// [`write()`] with `limit` as [`rare_limit`] (tests use small ones, to reach the rejection
/// draws).
///
/// # Errors
/// As [`write()`].
pub fn write_with(path: &Path, analysis: &Analysis, limit: u64) -> Result<(), TableError> {
    write_blocks(path, analysis, limit, BLOCK_SHIFT)
}

/// [`write_with`] with checksum blocks of `2^shift` bytes of codes rather than
/// [`BLOCK_SHIFT`]'s (tests use small ones, to have many blocks on a small board). Only for
/// tables of per-board depths ([`Codes::Mod3`]).
///
/// # Errors
/// As [`write()`]; [`TableError::Unsupported`] for a `shift` outside 6..=40.
#[doc(hidden)]
pub fn write_blocks(
    path: &Path,
    analysis: &Analysis,
    limit: u64,
    shift: u32,
) -> Result<(), TableError> {
    if !BLOCK_SHIFTS.contains(&shift) {
        return Err(TableError::Unsupported(format!(
            "checksum blocks of 2^{shift} bytes"
        )));
    }
    let per_board = analysis.per_board.as_ref().ok_or_else(|| {
        TableError::Unsupported(
            "the analysis kept no per-board depths to save as a table".to_string(),
        )
    })?;
    let (layout, boards) = per_board.layout();
    let layers = &analysis.distances.layer_sizes;
    let rare: Vec<bool> = layers.iter().map(|&size| size <= limit).collect();
    // One pass: the codes, and the boards of the rare layers by chunk.
    let mut codes = vec![0u8; boards.div_ceil(4) as usize];
    const CHUNK: usize = 1 << 16;
    let mut listed: Vec<(u8, u64)> = codes
        .par_chunks_mut(CHUNK)
        .enumerate()
        .flat_map_iter(|(chunk, bytes)| {
            let mut found = Vec::new();
            for (k, out) in bytes.iter_mut().enumerate() {
                let first = ((chunk * CHUNK + k) * 4) as u64;
                let mut packed = 0u8;
                for j in 0..4 {
                    let i = first + j;
                    let code = match (i < boards).then(|| per_board.depth_at(i)).flatten() {
                        Some(d) => {
                            if rare.get(d as usize).copied().unwrap_or(false) {
                                found.push((d, i));
                            }
                            d % 3
                        }
                        None => UNREACHED,
                    };
                    packed |= code << (2 * j);
                }
                *out = packed;
            }
            found
        })
        .collect();
    listed.par_sort_unstable();
    let head = header(
        Meta::of(analysis),
        (layout, Codes::Mod3, boards),
        (limit, shift),
        listed.into_iter().map(|(_, i)| i),
    );
    finish(path, &head, &codes, shift)
}

/// A [`Codes::Marks`] table written as a distributed run streams its marks to process 0
/// ([`crate::analysis::analyze_cluster`]): the same bytes as the one-machine table of the
/// same analysis. The file is written to a temporary name beside `path` and renamed over it
/// once every byte and the checksum are written and synced; dropped before, it is removed.
pub struct Spool {
    path: PathBuf,
    goal: Board,
    metric: Metric,
    /// The parity index's size, `n!/2`.
    boards: u64,
    out: Option<io::BufWriter<TempFile>>,
    /// The CRC of the header, then of the blocks' CRCs.
    crc: crc32fast::Hasher,
    /// The CRCs of the finished blocks of codes, and the CRC of the open one.
    blocks: Vec<u32>,
    block: crc32fast::Hasher,
    /// Bytes of codes written.
    written: u64,
}

impl Spool {
    /// A spool for the single-tile table of `goal`'s BFS in `metric`, to be written at
    /// `path` (its temporary file is created now).
    ///
    /// # Errors
    /// [`TableError::Unsupported`] when such a table is not made from the marks
    /// ([`crate::analysis::table_from_marks`]); [`TableError::Io`] when the temporary file
    /// cannot be created.
    pub fn create(path: &Path, goal: &Board, metric: Metric) -> Result<Spool, TableError> {
        let shape = goal.shape();
        let space = ParitySpace::with_metric(shape, Parity::of(goal), metric)
            .filter(|_| crate::analysis::table_from_marks(shape, metric))
            .ok_or_else(|| {
                TableError::Unsupported(format!(
                    "a distributed run writes the single-tile tables of boards of 2 rows and \
                     2 columns or more; {shape} in {} is not one",
                    metric.long_name()
                ))
            })?;
        let tmp = crate::durable::temp_beside(path).map_err(|source| TableError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Ok(Spool {
            path: path.to_path_buf(),
            goal: goal.clone(),
            metric,
            boards: space.size(),
            out: Some(io::BufWriter::with_capacity(1 << 20, tmp)),
            crc: crc32fast::Hasher::new(),
            blocks: Vec::new(),
            block: crc32fast::Hasher::new(),
            written: 0,
        })
    }

    fn writer(&mut self) -> io::Result<&mut io::BufWriter<TempFile>> {
        self.out
            .as_mut()
            .ok_or_else(|| io::Error::other("the table was already committed"))
    }

    /// Writes `bytes` of the header and adds them to its checksum.
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.crc.update(bytes);
        self.writer()?.write_all(bytes)
    }

    /// Writes `bytes` of codes, the `self.written`-th byte first, and adds them to the
    /// CRCs of their blocks (whole blocks computed in parallel).
    fn put_codes(&mut self, bytes: &[u8]) -> io::Result<()> {
        let size = 1usize << BLOCK_SHIFT;
        let filled = (self.written % size as u64) as usize;
        let mut rest = bytes;
        if filled > 0 {
            let take = rest.len().min(size - filled);
            self.block.update(&rest[..take]);
            rest = &rest[take..];
            if filled + take == size {
                let done = std::mem::replace(&mut self.block, crc32fast::Hasher::new());
                self.blocks.push(done.finalize());
            }
        }
        let whole = rest.len() / size * size;
        let crcs: Vec<u32> = rest[..whole]
            .par_chunks(size)
            .map(crc32fast::hash)
            .collect();
        self.blocks.extend(crcs);
        self.block.update(&rest[whole..]);
        self.written += bytes.len() as u64;
        self.writer()?.write_all(bytes)
    }

    fn failed(&self, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("{}: {e}", self.path.display()))
    }
}

impl crate::bfs::cluster::MarksSink for Spool {
    fn begin(
        &mut self,
        layers: &[u64],
        limit: u64,
        listed: &[(u32, Vec<StateIndex>)],
    ) -> io::Result<()> {
        let meta = Meta {
            goal: &self.goal,
            metric: self.metric,
            layers,
        };
        let head = header(
            meta,
            (Engine::Parity, Codes::Marks, self.boards),
            (limit, BLOCK_SHIFT),
            listed
                .iter()
                .flat_map(|(_, boards)| boards.iter().map(|i| i.0)),
        );
        self.put(&head).map_err(|e| self.failed(e))
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.written + bytes.len() as u64 > self.boards.div_ceil(4) {
            return Err(self.failed(io::Error::other("more codes than the table has boards")));
        }
        self.put_codes(bytes).map_err(|e| self.failed(e))
    }

    fn end(&mut self) -> io::Result<()> {
        if self.written != self.boards.div_ceil(4) {
            return Err(self.failed(io::Error::other(format!(
                "{} bytes of codes where the table has {}",
                self.written,
                self.boards.div_ceil(4)
            ))));
        }
        if self.written % (1u64 << BLOCK_SHIFT) != 0 {
            let last = std::mem::replace(&mut self.block, crc32fast::Hasher::new());
            self.blocks.push(last.finalize());
        }
        let blocks: Vec<u8> = self.blocks.iter().flat_map(|c| c.to_le_bytes()).collect();
        let mut crc = self.crc.clone();
        crc.update(&blocks);
        let crc = crc.finalize();
        let result = (|| {
            let mut out = self
                .out
                .take()
                .ok_or_else(|| io::Error::other("committed twice"))?;
            out.write_all(&blocks)?;
            out.write_all(&crc.to_le_bytes())?;
            let tmp = out.into_inner().map_err(io::IntoInnerError::into_error)?;
            crate::durable::commit(tmp, &self.path)
        })();
        result.map_err(|e| self.failed(e))
    }
}

/// An opened table (see the module documentation).
pub struct DistanceTable {
    path: String,
    map: memmap2::Mmap,
    shape: Shape,
    metric: Metric,
    layout: Engine,
    kind: Codes,
    goal: Board,
    layers: Vec<u64>,
    /// Where the codes start in the file.
    codes: usize,
    /// [`rare_limit`] of the file.
    limit: u64,
    /// Where each listed layer's indices start in the file (`None` for the other layers).
    listed: Vec<Option<usize>>,
    boards: u64,
    /// The index of the goal's class (parity layout).
    space: Option<ParitySpace>,
    /// The sides of the boards and the goal's ([`Codes::Marks`]).
    sides: Option<(Sides, u64)>,
    /// The checksum blocks: `2^shift` bytes of codes each, their CRCs from byte `crcs` of the
    /// file, and the state of each ([`UNCHECKED`], [`GOOD`], [`BAD`]). A table checked whole
    /// at open (format 1) or opened without checks has one block, [`GOOD`].
    shift: u32,
    crcs: usize,
    blocks: Box<[std::sync::atomic::AtomicU8]>,
    /// Every block is [`GOOD`]: the reads skip the per-block check (set at open for one
    /// [`GOOD`] block, and by [`DistanceTable::check_all`] when it finds no damage).
    whole: std::sync::atomic::AtomicBool,
}

/// How [`DistanceTable::open_checking`] checks the codes of a table against their CRCs (its
/// header, its length and the CRC of its header and block CRCs are checked in every case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Every block now, in parallel, before the table is returned: one pass over the file.
    Whole,
    /// Each block the first time a code in it is read: no pass over the file, and a walk
    /// that needs a code of a damaged block is an error naming the block.
    OnRead,
    /// None: the codes are taken as they are (each walk still checks itself, which catches
    /// most damage but not all).
    Skip,
}

impl DistanceTable {
    /// Opens `path` (a `table.npt`, or a folder holding one) by memory map and checks its
    /// header, its length and the CRC of its header and block CRCs, and when `verify` every
    /// block of codes against its CRC before returning ([`Check::Whole`]; [`Check::Skip`]
    /// otherwise). [`DistanceTable::open_checking`] can check each block on its first read
    /// instead.
    ///
    /// # Errors
    /// As [`DistanceTable::open_checking`].
    pub fn open(path: &Path, verify: bool) -> Result<DistanceTable, TableError> {
        let check = if verify { Check::Whole } else { Check::Skip };
        DistanceTable::open_checking(path, check)
    }

    /// Opens `path` (a `table.npt`, or a folder holding one) by memory map and checks its
    /// header, its length and the CRC of its header and block CRCs, then its codes as `check`
    /// says (the module documentation). A file of format 1 (one CRC over the whole file) is
    /// checked whole now unless `check` is [`Check::Skip`].
    ///
    /// # Errors
    /// [`TableError::Io`] when it cannot be read, [`TableError::Invalid`] naming the fault
    /// (a damaged header or list of CRCs, a wrong length; a damaged block with
    /// [`Check::Whole`]; a format-1 file whose checksum does not match).
    pub fn open_checking(path: &Path, check: Check) -> Result<DistanceTable, TableError> {
        let path = if path.is_dir() {
            path.join("table.npt")
        } else {
            path.to_path_buf()
        };
        let name = path.display().to_string();
        let io_err = |source| TableError::Io {
            path: name.clone(),
            source,
        };
        // Not a FIFO or a device: a table is a regular file, opened without blocking.
        let file = crate::durable::open_regular(&path).map_err(|e| {
            // A folder whose table a later analysis without --table set aside into stale/.
            let stale = path.with_file_name("stale").join("table.npt");
            if e.kind() == io::ErrorKind::NotFound && stale.is_file() {
                TableError::Invalid {
                    path: name.clone(),
                    why: format!(
                        "no table here, but an older one is in {}: a later `analyze` without \
                         {table} set it aside; run the analysis again with {table} (or give \
                         that file, if its run is the one you want)",
                        stale.display(),
                        table = crate::frontend::arg(crate::frontend::Input::Table, ""),
                    ),
                }
            } else {
                io_err(e)
            }
        })?;
        // SAFETY: the file is only read; a table is replaced by rename, never rewritten in
        // place, so the mapped bytes do not change under us. (A file truncated under the map
        // by someone else faults on access, SIGBUS: the binary reports it, see `mapped`.)
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io_err)?;
        let invalid = |why: String| TableError::Invalid {
            path: name.clone(),
            why,
        };
        let mut at = 0usize;
        let mut take = |len: usize| -> Result<&[u8], TableError> {
            let bytes = map
                .get(at..at + len)
                .ok_or_else(|| invalid(format!("truncated ({} bytes)", map.len())))?;
            at += len;
            Ok(bytes)
        };
        let word = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap_or_default());
        if take(8)? != MAGIC {
            return Err(invalid("not a distance table (wrong magic bytes)".into()));
        }
        let version = word(take(4)?);
        if version != 1 && version != FORMAT_VERSION {
            return Err(invalid(format!(
                "format version {version}, this npuzzle reads 1 and {FORMAT_VERSION}: write \
                 the table again with this npuzzle ({})",
                crate::frontend::current().table_command("")
            )));
        }
        let (rows, cols) = (word(take(4)?) as usize, word(take(4)?) as usize);
        let shape = Shape::new(rows, cols).map_err(|e| invalid(format!("corrupt header: {e}")))?;
        let m = word(take(4)?);
        let metric =
            Metric::from_code(m).ok_or_else(|| invalid(format!("corrupt header: metric {m}")))?;
        let layout = match word(take(4)?) {
            1 => Engine::Parity,
            2 => Engine::Lex,
            l => return Err(invalid(format!("corrupt header: index layout {l}"))),
        };
        let kind = match word(take(4)?) {
            1 => Codes::Mod3,
            2 if layout == Engine::Parity && metric.is_bipartite() => Codes::Marks,
            c => return Err(invalid(format!("corrupt header: codes {c}"))),
        };
        let shift = match version {
            1 => None,
            _ => match word(take(4)?) {
                s if BLOCK_SHIFTS.contains(&s) => Some(s),
                s => return Err(invalid(format!("corrupt header: blocks of 2^{s} bytes"))),
            },
        };
        let goal = Board::from_permutation(shape, take(shape.cells())?.to_vec())
            .map_err(|e| invalid(format!("corrupt header: the goal: {e}")))?;
        let radius = word(take(4)?) as usize;
        if radius > 10_000 {
            return Err(invalid(format!("corrupt header: radius {radius}")));
        }
        let mut layers = Vec::with_capacity(radius + 1);
        for _ in 0..=radius {
            layers.push(u64::from_le_bytes(take(8)?.try_into().unwrap_or_default()));
        }
        let boards = u64::from_le_bytes(take(8)?.try_into().unwrap_or_default());
        let expected = match layout {
            Engine::Parity => shape.board_count().map(|n| n / 2),
            Engine::Lex => shape.board_count(),
        };
        if Some(boards) != expected {
            return Err(invalid(format!(
                "corrupt header: {boards} boards for a {shape} table"
            )));
        }
        let limit = u64::from_le_bytes(take(8)?.try_into().unwrap_or_default());
        let mut listed = Vec::with_capacity(layers.len());
        for &size in &layers {
            if size <= limit {
                let bytes = usize::try_from(size.saturating_mul(8))
                    .map_err(|_| invalid(format!("corrupt header: a layer of {size}")))?;
                let list = take(bytes)?;
                listed.push(Some(list.as_ptr() as usize - map.as_ptr() as usize));
            } else {
                listed.push(None);
            }
        }
        let codes = at;
        let codes_len = boards.div_ceil(4);
        let count = shift.map_or(0, |s| codes_len.div_ceil(1 << s));
        let whole = codes as u64 + codes_len + 4 * count + 4;
        if map.len() as u64 != whole {
            return Err(invalid(format!(
                "{} bytes, a {shape} table has {whole} (truncated or extended)",
                map.len()
            )));
        }
        let crcs = codes + codes_len as usize;
        let (body, stored) = map.split_at(map.len() - 4);
        let all_good = || Box::new([std::sync::atomic::AtomicU8::new(GOOD)]) as Box<[_]>;
        let (shift, blocks): (u32, Box<[std::sync::atomic::AtomicU8]>) = match shift {
            Some(s) => {
                // The header and the blocks' CRCs, always: a few kilobytes and the listed
                // layers.
                let mut crc = crc32fast::Hasher::new();
                crc.update(&map[..codes]);
                crc.update(&body[crcs..]);
                if crc.finalize().to_le_bytes() != stored {
                    return Err(invalid(
                        "corrupt: checksum mismatch in the header or the blocks' CRCs".into(),
                    ));
                }
                match check {
                    Check::Whole | Check::OnRead => {
                        (s, (0..count).map(|_| UNCHECKED.into()).collect())
                    }
                    Check::Skip => (u64::BITS - 1, all_good()),
                }
            }
            None => {
                // Format 1: one CRC over the whole file, checked whole on every open.
                if check != Check::Skip && checksum(&[body]).to_le_bytes() != stored {
                    return Err(invalid("corrupt: checksum mismatch".into()));
                }
                (u64::BITS - 1, all_good())
            }
        };
        let space = match layout {
            Engine::Parity => Some(
                ParitySpace::with_metric(shape, Parity::of(&goal), metric)
                    .ok_or_else(|| invalid("corrupt header: no parity index".into()))?,
            ),
            Engine::Lex => None,
        };
        let sides = match (kind, &space) {
            (Codes::Marks, Some(space)) => {
                let sides = space
                    .sides()
                    .ok_or_else(|| invalid("corrupt header: no sides".into()))?;
                let goal_side = sides.of(space.locate(goal.permutation()).unwrap_or_default());
                Some((sides, goal_side))
            }
            _ => None,
        };
        let table = DistanceTable {
            path: name,
            map,
            shape,
            metric,
            layout,
            kind,
            goal,
            layers,
            codes,
            limit,
            listed,
            boards,
            space,
            sides,
            whole: (blocks.len() == 1
                && blocks[0].load(std::sync::atomic::Ordering::Relaxed) == GOOD)
                .into(),
            shift,
            crcs,
            blocks,
        };
        if check == Check::Whole {
            table.check_all()?;
        }
        Ok(table)
    }

    /// Whether the block of codes holding byte `at` of the codes is whole: checked against
    /// its CRC on the first call for the block, remembered after. Out of line: the walks'
    /// innermost loop, which calls it only while [`DistanceTable::must_check`], keeps its
    /// shape (inlined, it cost the walks about 15 %).
    #[inline(never)]
    fn block_whole(&self, at: u64) -> bool {
        let block = (at >> self.shift) as usize;
        match self.blocks.get(block) {
            Some(state) if state.load(std::sync::atomic::Ordering::Relaxed) == GOOD => true,
            _ => self.check_block(block),
        }
    }

    /// Checks block `block` of the codes against its CRC (once: the verdict is kept).
    #[cold]
    #[inline(never)]
    fn check_block(&self, block: usize) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let Some(state) = self.blocks.get(block) else {
            return false;
        };
        match state.load(Relaxed) {
            GOOD => return true,
            BAD => return false,
            _ => {}
        }
        let (start, end) = self.block_range(block);
        let at = self.crcs + 4 * block;
        let stored = self.map.get(at..at + 4).unwrap_or_default();
        let whole = crc32fast::hash(&self.map[start..end]).to_le_bytes() == stored;
        // Two threads may check the same block at once: both find the same.
        state.store(if whole { GOOD } else { BAD }, Relaxed);
        whole
    }

    /// The bytes of the file that block `block` of the codes spans.
    fn block_range(&self, block: usize) -> (usize, usize) {
        let start = self.codes + (block << self.shift);
        let end = (start + (1 << self.shift)).min(self.crcs);
        (start, end)
    }

    /// The error of the first block of codes found damaged, if any.
    fn damage(&self) -> Option<TableError> {
        let block = self
            .blocks
            .iter()
            .position(|s| s.load(std::sync::atomic::Ordering::Relaxed) == BAD)?;
        let (start, end) = self.block_range(block);
        Some(TableError::Invalid {
            path: self.path.clone(),
            why: format!(
                "corrupt: block {block} of the codes (bytes {start} to {}) fails its checksum \
                 (CRC-32); write the table again ({})",
                end - 1,
                crate::frontend::current().table_command("")
            ),
        })
    }

    /// Checks every block of codes not checked yet (in parallel), as walks would on their
    /// first reads: a full check of the table, one pass over its codes.
    ///
    /// # Errors
    /// [`TableError::Invalid`] naming the first damaged block.
    pub fn check_all(&self) -> Result<(), TableError> {
        (0..self.blocks.len()).into_par_iter().for_each(|b| {
            self.check_block(b);
        });
        let damage = self.damage();
        if damage.is_none() {
            self.whole.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        damage.map_or(Ok(()), Err)
    }

    /// Whether the reads must check their blocks: not once every block is known [`GOOD`].
    /// A group of more boards than blocks reads most blocks anyway, so it checks them all
    /// first (in parallel; a damaged block is then refused at its reads, as before), and its
    /// walks skip the per-read check (a check in the walk's innermost loop cost about 15 %).
    fn must_check(&self, boards: usize) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        if !self.whole.load(Relaxed) && boards >= self.blocks.len() {
            let _ = self.check_all();
        }
        !self.whole.load(Relaxed)
    }

    /// Where the file lies in memory: the address of its first byte and its length. Reading
    /// a table whose file is truncated under the run faults (SIGBUS) at an address in this
    /// range; a program that handles that signal can tell the table's faults by it.
    pub fn mapped(&self) -> (usize, usize) {
        (self.map.as_ptr() as usize, self.map.len())
    }

    /// The board shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The metric of its distances.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// How its boards are indexed.
    pub fn layout(&self) -> Engine {
        self.layout
    }

    /// The goal it measures from.
    pub fn goal(&self) -> &Board {
        &self.goal
    }

    /// The layer sizes of the analysis, from depth 0; the radius is their count minus one.
    pub fn layers(&self) -> &[u64] {
        &self.layers
    }

    /// How its codes hold the depths.
    pub fn codes(&self) -> Codes {
        self.kind
    }

    /// The modulus of the depth class a code gives ([`DistanceTable::class_at`]).
    fn modulus(&self) -> u8 {
        match self.kind {
            Codes::Mod3 => 3,
            Codes::Marks => 4,
        }
    }

    /// The depth class of the board of index `index`: its depth mod 3 ([`Codes::Mod3`]) or mod
    /// 4 ([`Codes::Marks`]), `None` when the goal cannot reach it, [`CORRUPT`] for a code no
    /// table holds.
    #[inline(always)]
    fn class_at(&self, index: u64) -> Option<u8> {
        let rho = self
            .sides
            .as_ref()
            .map_or(0, |(sides, _)| index % sides.period);
        self.class_with(index, rho, true)
    }

    /// [`DistanceTable::class_at`] of a board whose index is `rho` modulo the period of the
    /// sides ([`Codes::Marks`]; in the parity layout, its blank's cell); its block checked
    /// first when `check` ([`DistanceTable::must_check`]).
    #[inline(always)]
    fn class_with(&self, index: u64, rho: u64, check: bool) -> Option<u8> {
        if check && !self.block_whole(index / 4) {
            return Some(CORRUPT);
        }
        let byte = self.map[self.codes + (index / 4) as usize];
        let code = byte >> (2 * (index % 4)) & 3;
        match (self.kind, &self.sides) {
            (Codes::Mod3, _) => (code != UNREACHED).then_some(code),
            (Codes::Marks, Some((sides, goal_side))) => match code {
                0 => None,
                1 => Some(CORRUPT),
                _ => {
                    let side = (sides.odd >> rho & 1) ^ goal_side;
                    Some(2 * (code & 1) + side as u8)
                }
            },
            (Codes::Marks, None) => Some(CORRUPT),
        }
    }

    /// A shortest solution of `board` from the table: the blank's single-tile slides (in the
    /// multi-tile metric each run of one direction is one move), `None` when the goal cannot
    /// be reached.
    ///
    /// The walk checks itself: `None` only when the board's permutation says the goal cannot
    /// reach it (never from a code alone), and a walk must end at the goal on its code of
    /// depth 0, after as many steps as a layer of the header holds boards at. These checks are
    /// a few compares a walk; they catch most damage but not all (a damaged code can send a
    /// walk up one move and back down, a path two moves too long that is consistent
    /// throughout): only a table opened with its checksum verified answers surely.
    ///
    /// # Errors
    /// [`TableError::WrongBoard`] for a board of another shape; [`TableError::Invalid`] when
    /// the walk fails its checks: no neighbour one move closer, a solvable board marked
    /// unreachable, an end out of step (a damaged table).
    pub fn solve(&self, board: &Board) -> Result<Option<Vec<Direction>>, TableError> {
        let mut solutions = self.solve_many(std::slice::from_ref(board));
        solutions.pop().unwrap_or(Ok(None))
    }

    /// [`DistanceTable::solve`] of each of `boards`, in order. The walks go down the table
    /// together, 16 at a time, so that the memory reads of one walk's step overlap
    /// those of the others (a walk step's reads are random over the whole table).
    pub fn solve_many(&self, boards: &[Board]) -> Vec<Result<Option<Vec<Direction>>, TableError>> {
        let cols = self.shape.cols();
        let mut moves: Vec<Vec<Direction>> = vec![Vec::new(); boards.len()];
        // (A board of another shape is not walked: its cells say nothing here.)
        let cells: Vec<&[u8]> = boards
            .iter()
            .map(|board| match board.shape() == self.shape {
                true => board.permutation(),
                false => &[],
            })
            .collect();
        let lengths = self.walk(&cells, |k, dir, blank, to| {
            moves[k].extend(std::iter::repeat_n(dir, metric::passed(cols, blank, to)));
        });
        boards
            .iter()
            .zip(lengths)
            .zip(moves)
            .map(
                |((board, length), moves)| match board.shape() == self.shape {
                    true => length.map(|walked| walked.map(|_| moves)),
                    false => Err(TableError::WrongBoard(format!(
                        "the table is for {} boards, the board is {}",
                        self.shape,
                        board.shape()
                    ))),
                },
            )
            .collect()
    }

    /// The depth of the board whose internal permutation is `cells` ([`Board::permutation`],
    /// of the table's shape): the length of its walk, `None` when the goal cannot reach it.
    ///
    /// # Errors
    /// [`TableError::Invalid`] when the walk finds no neighbour one move closer.
    pub fn depth_of(&self, cells: &[u8]) -> Result<Option<u32>, TableError> {
        // One step of the walk is one move of the table's metric.
        self.walk(&[cells], |_, _, _, _| {})
            .pop()
            .unwrap_or(Ok(None))
    }

    /// [`DistanceTable::depth_of`] of each of `boards` (internal permutations of the table's
    /// shape), in order, walked together as in [`DistanceTable::solve_many`].
    pub fn depths_of(&self, boards: &[&[u8]]) -> Vec<Result<Option<u32>, TableError>> {
        self.walk(boards, |_, _, _, _| {})
    }

    /// The index of the board `cells` in the table, `None` outside it (the other class in
    /// the parity layout, or a board of another size).
    #[inline(always)]
    fn index_of(&self, cells: &[u8]) -> Option<u64> {
        if cells.len() != self.shape.cells() {
            return None;
        }
        let index = match &self.space {
            Some(space) => space.locate(cells)?.0,
            None => crate::rank::rank(cells),
        };
        (index < self.boards).then_some(index)
    }

    /// Asks the CPU to bring the code of board `index` into cache (a hint; never faults).
    #[inline(always)]
    fn prefetch(&self, index: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let p = self
                .map
                .as_ptr()
                .wrapping_add(self.codes + (index / 4) as usize);
            // SAFETY: SSE is part of the x86_64 baseline, and a prefetch never faults,
            // whatever the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = index;
    }

    /// Walks each board of `group` (internal permutations; an empty one is skipped and
    /// answered `Ok(None)`) to the goal, [`WALKS`] of them a step at a time in turn: first
    /// every walk's neighbours are located and their codes prefetched, then every walk takes
    /// a neighbour one move closer. In the parity layout ([`DistanceTable::walk_held`]) a walk
    /// moves along its row first; in the lexicographic one it takes the first such neighbour
    /// in [`Metric::targets`] order. Calls `step(k, direction, from, to)` for each move of the
    /// blank of board `k`; returns each board's number of moves, `None` when the goal cannot
    /// reach it.
    fn walk(
        &self,
        group: &[&[u8]],
        mut step: impl FnMut(usize, Direction, usize, usize),
    ) -> Vec<Result<Option<u32>, TableError>> {
        // One walk per grid for every caller (issue 62: three callers made the walks of the
        // parity layout's 27 grids 6 % of the crate's code); a call per move is nothing
        // beside the move's read of the table.
        let step: &mut dyn FnMut(usize, Direction, usize, usize) = &mut step;
        let check = self.must_check(group.len());
        if self.space.is_some() {
            return crate::bfs::with_held(
                self.shape,
                HeldWalks {
                    table: self,
                    group,
                    step,
                    check,
                },
            );
        }
        let mut results = Vec::with_capacity(group.len());
        for (g, walks) in group.chunks(WALKS).enumerate() {
            let step = |k, dir, from, to| step(g * WALKS + k, dir, from, to);
            #[cfg(target_arch = "x86_64")]
            if crate::bfs::x86_64_v3() {
                // SAFETY: the processor has the features `walk_v3` is compiled for.
                results.extend(unsafe { self.walk_v3(walks, step, check) });
                continue;
            }
            results.extend(self.walk_steps(walks, step, check));
        }
        results
    }

    /// [`DistanceTable::walk`] in the parity layout, for `M` tiles and `C` columns: each walk
    /// holds its board as a tile sequence with Lehmer digits ([`Held`]), so a neighbour's
    /// index is a closed form on `C` tiles (or `index ± k` along the row) rather than a
    /// ranking. [`WALKS`] walks are in flight, a new board taking the place of each that
    /// ends. In a round each walk first moves along its row while a move there goes down
    /// (those codes share the board's cache line, already read), then locates and prefetches
    /// its moves across; then each takes the first of those that goes down. The move back is
    /// never looked at (it goes up).
    #[inline(always)]
    fn walk_held<const M: usize, const C: usize>(
        &self,
        boards: &[&[u8]],
        mut step: impl FnMut(usize, Direction, usize, usize),
        check: bool,
    ) -> Vec<Result<Option<u32>, TableError>> {
        let modulus = self.modulus();
        let goal = Held::<M, C>::new(self.goal.permutation()).index();
        let radius = self.layers.len() as u32;
        // Each blank cell's moves along its row and across it, in [`Metric::targets`] order.
        let mut moves =
            [([0u8; MAX_WALK_CELLS], 0usize, [0u8; MAX_WALK_CELLS], 0usize); MAX_WALK_CELLS];
        let mut targets = [0usize; MAX_WALK_CELLS];
        for (blank, (along, a, across, c)) in moves.iter_mut().enumerate().take(M + 1) {
            let count = self.metric.targets_into(self.shape, blank, &mut targets);
            for &to in &targets[..count] {
                match to / C == blank / C {
                    true => (along[*a], *a) = (to as u8, *a + 1),
                    false => (across[*c], *c) = (to as u8, *c + 1),
                }
            }
        }
        let mut results: Vec<Result<Option<u32>, TableError>> =
            (0..boards.len()).map(|_| Ok(None)).collect();
        let mut walks: Vec<HeldWalk<M, C>> = Vec::with_capacity(WALKS);
        let mut unstarted = boards.iter().enumerate();
        loop {
            // New walks: located and prefetched, their codes read in the second half.
            while walks.len() < WALKS {
                let Some((k, cells)) = unstarted.next() else {
                    break;
                };
                if let Some(index) = self.index_of(cells) {
                    self.prefetch(index);
                    walks.push(HeldWalk {
                        k,
                        held: Held::new(cells),
                        index,
                        code: UNREAD,
                        steps: 0,
                        from: usize::MAX,
                        next: [(0, 0); MAX_ACROSS],
                        found: 0,
                    });
                }
            }
            if walks.is_empty() {
                break;
            }
            for walk in &mut walks {
                walk.found = 0;
                if walk.code >= modulus {
                    continue;
                }
                while walk.index != goal && walk.steps < radius {
                    let blank = walk.held.blank();
                    let want = below(walk.code, modulus);
                    let (along, count, ..) = &moves[blank];
                    let down = along[..*count]
                        .iter()
                        .map(|&to| usize::from(to))
                        .find(|&to| {
                            to != walk.from
                                && self.class_with(flat(walk.index, blank, to), to as u64, check)
                                    == Some(want)
                        });
                    let Some(to) = down else {
                        break;
                    };
                    walk.held.go(to);
                    step(walk.k, metric::direction(C, blank, to), blank, to);
                    walk.index = flat(walk.index, blank, to);
                    walk.from = blank;
                    walk.code = want;
                    walk.steps += 1;
                }
                if walk.index == goal {
                    continue;
                }
                let (.., across, count) = &moves[walk.held.blank()];
                for &to in &across[..*count] {
                    let to = usize::from(to);
                    if to != walk.from {
                        let index = walk.held.neighbour(to);
                        self.prefetch(index);
                        walk.next[walk.found] = (index, to as u8);
                        walk.found += 1;
                    }
                }
            }
            walks.retain_mut(|walk| {
                if walk.code == UNREAD {
                    // A new walk's first code.
                    return match self.class_at(walk.index) {
                        Some(code) => {
                            walk.code = code;
                            true
                        }
                        None => {
                            // Only the board's permutation says a board cannot be solved,
                            // never a code.
                            let cells = boards[walk.k];
                            if self.reachable(cells) {
                                results[walk.k] =
                                    Err(self.damaged(cells, "a solvable board marked unreachable"));
                            }
                            false
                        }
                    };
                }
                if walk.index == goal {
                    results[walk.k] = self.arrived(boards[walk.k], walk.steps, walk.code);
                    return false;
                }
                // (A code no table holds has no way down.)
                let want = (walk.code < modulus).then(|| below(walk.code, modulus));
                let down = want.and_then(|want| {
                    walk.next[..walk.found].iter().find(|&&(index, to)| {
                        self.class_with(index, u64::from(to), check) == Some(want)
                    })
                });
                walk.steps += 1;
                let Some(&(index, to)) = down.filter(|_| walk.steps <= radius) else {
                    let here = self
                        .space
                        .as_ref()
                        .map(|space| space.unrank(StateIndex(walk.index)).label())
                        .unwrap_or_default();
                    results[walk.k] = Err(
                        self.damaged(boards[walk.k], &format!("no way down from board {here}"))
                    );
                    return false;
                };
                let (blank, to) = (walk.held.blank(), usize::from(to));
                walk.held.go(to);
                step(walk.k, metric::direction(C, blank, to), blank, to);
                walk.from = blank;
                walk.index = index;
                walk.code = want.unwrap_or(CORRUPT);
                true
            });
        }
        results
    }

    /// [`DistanceTable::walk`] compiled for x86-64-v3 (`popcnt` for the ranks, among others).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt,fma,movbe")]
    unsafe fn walk_v3(
        &self,
        group: &[&[u8]],
        step: impl FnMut(usize, Direction, usize, usize),
        check: bool,
    ) -> Vec<Result<Option<u32>, TableError>> {
        self.walk_steps(group, step, check)
    }

    /// [`DistanceTable::walk`]'s body in the lexicographic layout (one-row and one-column
    /// boards; the parity layout's walk is [`DistanceTable::walk_held`]).
    #[inline(always)]
    fn walk_steps(
        &self,
        group: &[&[u8]],
        mut step: impl FnMut(usize, Direction, usize, usize),
        check: bool,
    ) -> Vec<Result<Option<u32>, TableError>> {
        let n = self.shape.cells();
        let cols = self.shape.cols();
        let modulus = self.modulus();
        let mut goal = [0u8; MAX_WALK_CELLS];
        goal[..n].copy_from_slice(self.goal.permutation());
        let radius = self.layers.len() as u32;
        let mut results: Vec<Result<Option<u32>, TableError>> =
            (0..group.len()).map(|_| Ok(None)).collect();
        let mut walks: Vec<Descent> = Vec::with_capacity(group.len());
        for (k, cells) in group.iter().enumerate() {
            let Some(index) = self.index_of(cells) else {
                continue;
            };
            let Some(code) = self.class_at(index) else {
                // Only the board's permutation says a board cannot be solved, never a code.
                if self.reachable(cells) {
                    results[k] = Err(self.damaged(cells, "a solvable board marked unreachable"));
                }
                continue;
            };
            let mut board = [0u8; MAX_WALK_CELLS];
            board[..n].copy_from_slice(cells);
            walks.push(Descent {
                k,
                cells: board,
                blank: cells.iter().position(|&p| p as usize == n - 1).unwrap_or(0),
                index,
                code,
                steps: 0,
                next: [(0, 0); MAX_WALK_CELLS],
                found: 0,
            });
        }
        let mut targets = [0usize; MAX_WALK_CELLS];
        while !walks.is_empty() {
            // Every walk's neighbours, located and prefetched.
            for walk in &mut walks {
                walk.found = 0;
                if walk.cells == goal || walk.code >= modulus {
                    continue;
                }
                let count = self
                    .metric
                    .targets_into(self.shape, walk.blank, &mut targets);
                for &to in &targets[..count] {
                    let mut next = walk.cells;
                    metric::slide(&mut next[..n], walk.blank, to, cols);
                    if let Some(index) = self.index_of(&next[..n]) {
                        self.prefetch(index);
                        walk.next[walk.found] = (index, to as u8);
                        walk.found += 1;
                    }
                }
            }
            // Every walk's step down, or its end.
            walks.retain_mut(|walk| {
                if walk.cells == goal {
                    results[walk.k] = self.arrived(&group[walk.k][..n], walk.steps, walk.code);
                    return false;
                }
                // (A code no table holds has no way down.)
                let want = (walk.code < modulus).then(|| (walk.code + modulus - 1) % modulus);
                let down = want.and_then(|want| {
                    walk.next[..walk.found].iter().find(|&&(index, to)| {
                        self.class_with(index, u64::from(to), check) == Some(want)
                    })
                });
                walk.steps += 1;
                let Some(&(index, to)) = down.filter(|_| walk.steps <= radius) else {
                    let why = format!(
                        "no way down from board {}",
                        Board::from_permutation(self.shape, walk.cells[..n].to_vec())
                            .map(|b| b.label())
                            .unwrap_or_default()
                    );
                    results[walk.k] = Err(self.damaged(&group[walk.k][..n], &why));
                    return false;
                };
                let to = usize::from(to);
                metric::slide(&mut walk.cells[..n], walk.blank, to, cols);
                step(
                    walk.k,
                    metric::direction(cols, walk.blank, to),
                    walk.blank,
                    to,
                );
                walk.blank = to;
                walk.index = index;
                walk.code = want.unwrap_or(CORRUPT);
                true
            });
        }
        results
    }

    /// [`DistanceTable::walk_held`] compiled for x86-64-v3 (`popcnt` for the first ranks).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt,fma,movbe")]
    unsafe fn walk_held_v3<const M: usize, const C: usize>(
        &self,
        group: &[&[u8]],
        step: impl FnMut(usize, Direction, usize, usize),
        check: bool,
    ) -> Vec<Result<Option<u32>, TableError>> {
        self.walk_held::<M, C>(group, step, check)
    }

    /// Whether the goal can reach the board `cells` (an internal permutation of the table's
    /// shape), from its permutation alone: in the parity layout every board indexed can
    /// (the goal's class is connected); in the lexicographic one, a one-line board whose
    /// tiles are in the goal's order, else a board of the goal's parity class.
    fn reachable(&self, cells: &[u8]) -> bool {
        if self.space.is_some() {
            return true;
        }
        let blank = (self.shape.cells() - 1) as u8;
        if self.shape.rows() == 1 || self.shape.cols() == 1 {
            let tiles =
                |c: &[u8]| -> Vec<u8> { c.iter().copied().filter(|&p| p != blank).collect() };
            return tiles(cells) == tiles(self.goal.permutation());
        }
        Board::from_permutation(self.shape, cells.to_vec())
            .is_ok_and(|board| Parity::of(&board) == Parity::of(&self.goal))
    }

    /// The answer of a walk from `cells` that reached the goal after `steps` moves on code
    /// `code`: the goal's code is depth 0, and the layer of the walk's length holds boards; a
    /// walk that does not end so went astray on a damaged code.
    fn arrived(&self, cells: &[u8], steps: u32, code: u8) -> Result<Option<u32>, TableError> {
        let layer = self.layers.get(steps as usize).copied().unwrap_or(0);
        match code == 0 && layer > 0 {
            true => Ok(Some(steps)),
            false => Err(self.damaged(
                cells,
                &format!("its walk of {steps} steps ends out of step"),
            )),
        }
    }

    /// The error of a walk from `cells` that fails its checks (`why`): the table is damaged.
    #[cold]
    fn damaged(&self, cells: &[u8], why: &str) -> TableError {
        if let Some(damage) = self.damage() {
            return damage;
        }
        let board = Board::from_permutation(self.shape, cells.to_vec())
            .map(|b| b.label())
            .unwrap_or_default();
        TableError::Invalid {
            path: self.path.clone(),
            why: format!("damaged: the walk from {board} fails its check ({why})"),
        }
    }

    /// `count` boards drawn uniformly and independently (with replacement) among those exactly
    /// `depth` moves from the goal, from the seed `seed` (the same seed, the same boards), in a
    /// vector: [`DistanceTable::sample_each`] collected.
    ///
    /// # Errors
    /// As [`DistanceTable::sample_each`].
    pub fn sample(&self, depth: u32, count: u64, seed: u64) -> Result<Vec<Board>, TableError> {
        let mut out = Vec::with_capacity(count.min(1 << 20) as usize);
        self.sample_each(depth, count, seed, |board| {
            out.push(board);
            std::ops::ControlFlow::Continue(())
        })?;
        Ok(out)
    }

    /// Draws `count` boards uniformly and independently (with replacement) among those
    /// exactly `depth` moves from the goal, from the seed `seed` (the same seed, the same
    /// boards in the same order), and gives each to `each` as it is drawn, until `each` says
    /// [`std::ops::ControlFlow::Break`]: memory stays bounded whatever `count`. See the module
    /// documentation for how. A board drawn by rejection takes at most [`MAX_TRIES`] times the
    /// mean number of tries (`boards / layer`, plus 65,536): a table whose codes do not hold
    /// the layer its header counts (damaged, unverified) is an error rather than an endless
    /// loop.
    ///
    /// # Errors
    /// [`TableError::WrongBoard`] when no board lies at `depth`; [`TableError::Invalid`] for a
    /// damaged table (a listed board out of range, a walk that fails its checks, a layer not
    /// found within the tries).
    pub fn sample_each(
        &self,
        depth: u32,
        count: u64,
        seed: u64,
        mut each: impl FnMut(Board) -> std::ops::ControlFlow<()>,
    ) -> Result<(), TableError> {
        let size = self.layers.get(depth as usize).copied().unwrap_or(0);
        if size == 0 {
            return Err(TableError::WrongBoard(format!(
                "no {} board lies {depth} moves from the goal (the farthest lie {} moves away)",
                self.shape,
                self.layers.len().saturating_sub(1)
            )));
        }
        let mut rng = crate::random::SplitMix64::new(seed);
        let board_at = |index: u64| -> Board {
            match &self.space {
                Some(space) => crate::bfs::StateSpace::unrank(space, crate::bfs::StateIndex(index)),
                None => Board::from_rank(self.shape, index),
            }
        };
        if let Some(Some(start)) = self.listed.get(depth as usize) {
            for _ in 0..count {
                let k = rng.below(size) as usize;
                let at = start + 8 * k;
                let index = u64::from_le_bytes(self.map[at..at + 8].try_into().unwrap_or_default());
                if index >= self.boards {
                    return Err(TableError::Invalid {
                        path: self.path.clone(),
                        why: format!("corrupt: a listed board of index {index}"),
                    });
                }
                if each(board_at(index)).is_break() {
                    break;
                }
            }
            return Ok(());
        }
        let want = (depth % u32::from(self.modulus())) as u8;
        let tries = MAX_TRIES.saturating_mul(self.boards / size + 1) + (1 << 16);
        for _ in 0..count {
            let mut left = tries;
            let board = loop {
                if left == 0 {
                    return Err(TableError::Invalid {
                        path: self.path.clone(),
                        why: format!(
                            "damaged: no board at depth {depth} in {tries} draws, where the \
                             header counts {size} of {} (checksum not verified?)",
                            self.boards
                        ),
                    });
                }
                left -= 1;
                let index = rng.below(self.boards);
                match self.class_at(index) {
                    Some(CORRUPT) => {
                        if let Some(damage) = self.damage() {
                            return Err(damage);
                        }
                        continue;
                    }
                    Some(class) if class == want => {}
                    _ => continue,
                }
                let board = board_at(index);
                if self.depth_of(board.permutation())? == Some(depth) {
                    break board;
                }
            };
            if each(board).is_break() {
                break;
            }
        }
        Ok(())
    }

    /// The largest layer the file lists board by board ([`rare_limit`]).
    pub fn rare_limit(&self) -> u64 {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Options, analyze_unchecked};
    use crate::progress::NoProgress;

    fn analysis(rows: usize, cols: usize, metric: Metric) -> Analysis {
        let shape = Shape::new(rows, cols).unwrap();
        let options = Options {
            per_board: true,
            metric,
            table: true,
            search_components: false,
        };
        analyze_unchecked(&Board::goal(shape), options, &NoProgress).unwrap()
    }

    /// Every board of every grid up to 9 cells (and 1x5) in both metrics: the walk's length is
    /// the analysis's depth, and the solution replays to the goal. The single-tile tables of
    /// the grids are the BFS's marks, the others depth mod 3.
    #[test]
    fn the_walk_gives_every_depth() {
        let dir = tempfile::tempdir().unwrap();
        for (r, c) in [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (1, 5)] {
            for metric in [Metric::Stm, Metric::Mtm] {
                let a = analysis(r, c, metric);
                let path = dir.path().join(format!("{r}x{c}-{metric}.npt"));
                write(&path, &a).unwrap();
                let table = DistanceTable::open(&path, true).unwrap();
                let kind = match metric.is_bipartite() && r > 1 {
                    true => Codes::Marks,
                    false => Codes::Mod3,
                };
                assert_eq!(table.codes(), kind, "{r}x{c} {metric}");
                let per_board = a.per_board.as_ref().unwrap();
                let mut boards = Vec::new();
                let mut walks = Vec::new();
                for rank in 0..a.boards {
                    let board = Board::from_rank(a.shape, rank);
                    let (_, depth) = per_board.get(board.permutation(), rank);
                    let walk = table.solve(&board).unwrap();
                    assert_eq!(
                        walk.as_ref().map(|m| metric.length(m) as u8),
                        depth,
                        "{r}x{c} {metric} {}",
                        board.label()
                    );
                    if let Some(moves) = &walk {
                        assert_eq!(crate::solve::replay(&board, moves), Some(a.goal.clone()));
                    }
                    boards.push(board);
                    walks.push(walk);
                }
                // Walked together (groups of WALKS, boards of every depth and of the other
                // class side by side, a board of another shape among them): the same walks.
                let at = boards.len() / 3;
                boards.insert(at, Board::goal(Shape::new(r + 1, c).unwrap()));
                let together = table.solve_many(&boards);
                let refused: Vec<usize> = (0..together.len())
                    .filter(|&k| together[k].is_err())
                    .collect();
                assert_eq!(
                    refused,
                    [at],
                    "{r}x{c} {metric}: the board of another shape"
                );
                let together: Vec<_> = together.into_iter().filter_map(Result::ok).collect();
                assert_eq!(together, walks, "{r}x{c} {metric}");
                boards.remove(at);
                let cells: Vec<&[u8]> = boards.iter().map(Board::permutation).collect();
                let depths: Vec<Option<u32>> = table
                    .depths_of(&cells)
                    .into_iter()
                    .map(Result::unwrap)
                    .collect();
                let lengths: Vec<Option<u32>> = walks
                    .iter()
                    .map(|w| w.as_ref().map(|m| metric.length(m) as u32))
                    .collect();
                assert_eq!(depths, lengths, "{r}x{c} {metric}");
            }
        }
    }

    /// Issue 25, the cluster's tables: every grid up to 10 cells, from the standard goal and
    /// one of the other class with the blank inside, on one process of 1 and 3 worker threads:
    /// the table process 0 streams ([`Spool`]) is byte for byte the one-machine table (codes,
    /// listed layers, checksum). (Several processes: tests/suite/cluster.rs.)
    #[test]
    fn a_distributed_run_streams_the_one_machine_table() {
        use crate::bfs::cluster::Cluster;
        let dir = tempfile::tempdir().unwrap();
        let options = Options {
            per_board: false,
            metric: Metric::Stm,
            table: true,
            search_components: false,
        };
        for shape in Shape::all_up_to(10).filter(|s| s.is_grid()) {
            let goals = Board::test_goals(shape);
            for goal in &goals {
                let one = dir.path().join("one.npt");
                let a = analyze_unchecked(goal, options, &NoProgress).unwrap();
                write(&one, &a).unwrap();
                let want = std::fs::read(&one).unwrap();
                for workers in [1, 3] {
                    let cluster = Cluster::local(workers);
                    let path = dir.path().join("cluster.npt");
                    let spool = Spool::create(&path, goal, Metric::Stm).unwrap();
                    let c = crate::analysis::analyze_cluster(
                        goal,
                        options,
                        &cluster,
                        &NoProgress,
                        Some(Box::new(spool)),
                    )
                    .unwrap()
                    .unwrap();
                    assert!(c.table_written);
                    let got = std::fs::read(&path).unwrap();
                    assert!(got == want, "{shape} {} {workers} workers", goal.label());
                }
            }
        }
    }

    /// Header, length and checksum faults are refused with one line each; a board of another
    /// shape is refused; without verification a flipped code is caught by the walk or not at
    /// all, never looping.
    #[test]
    fn damaged_tables_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("table.npt");
        let a = analysis(2, 3, Metric::Stm);
        write(&path, &a).unwrap();
        let good = std::fs::read(&path).unwrap();
        let open = |bytes: &[u8], verify: bool| {
            std::fs::write(&path, bytes).unwrap();
            DistanceTable::open(&path, verify)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        assert_eq!(open(&good, true), Ok(()));
        let fail = |bytes: &[u8], verify: bool, want: &str| {
            let err = open(bytes, verify).unwrap_err();
            assert!(err.contains(want), "{err}");
            assert_eq!(err.lines().count(), 1, "{err}");
        };
        let mut flipped = good.clone();
        let last = flipped.len() - 10;
        flipped[last] ^= 0x40;
        fail(&flipped, true, "block 0 of the codes");
        fail(&flipped, true, "fails its checksum");
        fail(&good[..good.len() - 1], true, "truncated or extended");
        fail(&good[..20], true, "truncated");
        let mut longer = good.clone();
        longer.push(0);
        fail(&longer, false, "truncated or extended");
        let mut magic = good.clone();
        magic[0] = b'X';
        fail(&magic, true, "not a distance table");
        let mut version = good.clone();
        version[8] = 9;
        fail(&version, true, "format version 9");
        let mut rows = good.clone();
        rows[12] = 3; // 3x3 in the header: the length no longer fits.
        fail(&rows, false, "corrupt header");
        std::fs::write(&path, &good).unwrap();
        let table = DistanceTable::open(&path, true).unwrap();
        let other = Board::goal(Shape::square(3).unwrap());
        assert!(matches!(
            table.solve(&other),
            Err(TableError::WrongBoard(_))
        ));
        // The other class of 2x3 is not in the table: no solution.
        let odd = Board::parse_tiles(a.shape, "2 1 3 4 5 0").unwrap();
        assert_eq!(table.solve(&odd).unwrap(), None);
        // A damaged code, unverified: every board still ends, solved or refused.
        let mut damaged = good.clone();
        for byte in &mut damaged[good.len() - 60..good.len() - 8] {
            *byte = !*byte;
        }
        std::fs::write(&path, &damaged).unwrap();
        let table = DistanceTable::open(&path, false).unwrap();
        for rank in 0..720 {
            let _ = table.solve(&Board::from_rank(a.shape, rank));
        }
    }

    /// Issue 61: a byte flipped in one block of codes is found on the first read of that
    /// block, and only there: 3x3 written with blocks of 64 bytes (709 of them), a byte of
    /// block 200 flipped; the table opens (its header and CRCs are whole) with no block
    /// checked, every board whose walk reads no code of block 200 gets its true depth (a third
    /// of them tried), every other one an error naming the block, and only block 200 is bad.
    #[test]
    fn a_flipped_byte_is_found_on_the_first_read_of_its_block() {
        use std::sync::atomic::Ordering::Relaxed;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("table.npt");
        let a = analysis(3, 3, Metric::Stm);
        write_blocks(&path, &a, rare_limit(181_440), 6).unwrap();
        let good = DistanceTable::open(&path, true).unwrap();
        assert_eq!(good.blocks.len(), 709);
        let mut bytes = std::fs::read(&path).unwrap();
        let at = good.codes + 200 * 64 + 17;
        bytes[at] ^= 0x04;
        std::fs::write(&path, &bytes).unwrap();
        let table = DistanceTable::open_checking(&path, Check::OnRead).unwrap();
        assert!(table.blocks.iter().all(|b| b.load(Relaxed) == UNCHECKED));
        let e = DistanceTable::open(&path, true).err().unwrap().to_string();
        assert!(
            e.contains("block 200 of the codes") && e.contains("fails its checksum"),
            "{e}"
        );
        let space = table.space.as_ref().unwrap();
        let (mut answered, mut refused) = (0, 0);
        for i in (0..space.size()).step_by(3) {
            let board = space.unrank(StateIndex(i));
            match table.depth_of(board.permutation()) {
                Ok(d) => {
                    assert_eq!(d, good.depth_of(board.permutation()).unwrap(), "{i}");
                    answered += 1;
                }
                Err(e) => {
                    let e = e.to_string();
                    assert!(e.contains("block 200 of the codes"), "{e}");
                    refused += 1;
                }
            }
            // The board's own code: its block is checked now.
            let block = (i / 4 / 64) as usize;
            assert_ne!(table.blocks[block].load(Relaxed), UNCHECKED, "{i}");
            if block == 200 {
                assert_eq!(table.blocks[200].load(Relaxed), BAD);
            }
        }
        assert!(refused >= 80 && answered > 30_000, "{answered} {refused}");
        assert_eq!(
            table
                .blocks
                .iter()
                .filter(|b| b.load(Relaxed) == BAD)
                .count(),
            1
        );
    }

    /// Pearson's chi-square statistic of `counts` against equal expected counts.
    fn chi_square(counts: &std::collections::HashMap<Board, u64>, cells: usize, draws: u64) -> f64 {
        let expected = draws as f64 / cells as f64;
        let seen: f64 = counts
            .values()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum();
        // Boards never drawn contribute their expected count each.
        seen + (cells - counts.len()) as f64 * expected
    }

    /// `sample` is uniform over a depth (issue 25): on 2x4, seeded, for a listed layer and,
    /// with nothing listed, for the rejection draws, in both kinds of codes (written from the
    /// per-board depths and from the marks); the chi-square statistic of the counts
    /// stays below the 0.999 quantile of its distribution (with `k - 1` degrees of freedom,
    /// approximated by Wilson-Hilferty). On 3x3, both antipodes (OEIS A089473: 2 boards at
    /// depth 31) come about half the time each over 10,000 draws.
    #[test]
    fn samples_are_uniform_over_a_depth() {
        let dir = tempfile::tempdir().unwrap();
        let a = analysis(2, 4, Metric::Stm);
        let depth = 12u32;
        let size = a.distances.layer_sizes[depth as usize];
        assert!(size > 50, "{size}");
        let per_board = a.per_board.as_ref().unwrap();
        let marked = a.marked.as_ref().unwrap();
        let mut layers = vec![Vec::new(); a.distances.layer_sizes.len()];
        for i in 0..marked.space.size() {
            let d = per_board.depth_at(i).unwrap();
            layers[d as usize].push(crate::bfs::StateIndex(i));
        }
        let all: Vec<_> = (0..).zip(layers).collect();
        for (limit, codes) in [
            (u64::MAX, Codes::Mod3),
            (0, Codes::Mod3),
            (u64::MAX, Codes::Marks),
            (0, Codes::Marks),
        ] {
            let path = dir.path().join(format!("t{limit}-{codes:?}.npt"));
            match codes {
                Codes::Mod3 => write_with(&path, &a, limit).unwrap(),
                Codes::Marks => {
                    let listed = TableMarks {
                        space: marked.space.clone(),
                        marks: crate::bfs::StateMarks::new(0),
                        listed: if limit == 0 { Vec::new() } else { all.clone() },
                        limit,
                    };
                    write_marks(
                        &path,
                        &a,
                        &TableMarks {
                            marks: copy(&marked.marks),
                            ..listed
                        },
                    )
                    .unwrap()
                }
            }
            let table = DistanceTable::open(&path, true).unwrap();
            assert_eq!(table.codes(), codes);
            let draws = 40 * size;
            let mut counts = std::collections::HashMap::new();
            for board in table.sample(depth, draws, 7).unwrap() {
                let walked = table.solve(&board).unwrap().unwrap();
                assert_eq!(walked.len(), depth as usize, "{}", board.label());
                *counts.entry(board).or_insert(0u64) += 1;
            }
            assert!(counts.len() as u64 <= size);
            let k = (size - 1) as f64;
            // Wilson-Hilferty: the 0.999 quantile of chi-square with k degrees of freedom.
            let z = 3.09;
            let critical = k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3);
            let stat = chi_square(&counts, size as usize, draws);
            assert!(stat < critical, "limit {limit}: {stat} >= {critical}");
            // The same seed, the same boards.
            assert_eq!(
                table.sample(depth, 5, 7).unwrap(),
                table.sample(depth, 5, 7).unwrap()
            );
        }
        assert!(table_of(&dir, 2, 4).sample(99, 1, 0).is_err());

        let a = analysis(3, 3, Metric::Stm);
        let path = dir.path().join("3x3.npt");
        write(&path, &a).unwrap();
        let table = DistanceTable::open(&path, true).unwrap();
        let mut counts = std::collections::HashMap::new();
        for board in table.sample(31, 10_000, 1).unwrap() {
            *counts.entry(board.label()).or_insert(0u64) += 1;
        }
        assert_eq!(counts.len(), 2);
        let stat = chi_square_labels(&counts, 10_000);
        // 1 degree of freedom, 0.999 quantile: 10.83.
        assert!(stat < 10.83, "{counts:?}");
    }

    /// A copy of `marks`.
    fn copy(marks: &crate::bfs::StateMarks) -> crate::bfs::StateMarks {
        let mut bytes = Vec::new();
        // SAFETY: the test's marks, changed by no other thread.
        unsafe { marks.write_words(&mut bytes) }.unwrap();
        let mut out = crate::bfs::StateMarks::new(marks.len());
        out.read_words(&mut &bytes[..]).unwrap();
        out
    }

    fn table_of(dir: &tempfile::TempDir, r: usize, c: usize) -> DistanceTable {
        let path = dir.path().join(format!("{r}x{c}.npt"));
        write(&path, &analysis(r, c, Metric::Stm)).unwrap();
        DistanceTable::open(&path, true).unwrap()
    }

    fn chi_square_labels(counts: &std::collections::HashMap<String, u64>, draws: u64) -> f64 {
        let expected = draws as f64 / counts.len() as f64;
        counts
            .values()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum()
    }
}
