//! Depth-limited BFS without whole-space marks: frontier search over layers (Korf, Zhang,
//! Thayer & Hohwald, "Frontier search", JACM 2005), for boards whose state space does not fit
//! in memory (4x4, 3x5, 2x8), as deep as memory and time allow.
//!
//! In an undirected graph, layer `d + 1` is the set of neighbours of layer `d` minus layers `d`
//! and `d - 1`, so only three layers are live. A layer is a sorted set of indices cut into
//! [`FrontierConfig::segments`] segments by index range, each gap-encoded ([`super::codec`],
//! about 1.4-3 bytes per board on the large layers). The next layer is built in two passes:
//!
//! 1. **Runs.** The current layer is expanded in chunks of at most [`FrontierConfig::chunk`]
//!    boards with the shared kernel, in parallel. Where the space has [`Lanes`] (the moves
//!    between consecutive indices), the kernel is asked only for the other moves
//!    ([`StateSpace::expand_across`]); those neighbours are sorted by a bucket sort (a counting
//!    pass into up to 1,024 buckets, ranges of the index balanced on a sample of the
//!    neighbours, then each bucket sorted on its own, in parallel) and deduplicated, and the
//!    lane neighbours, which come out of the ascending chunk already sorted, are merged in.
//!    Nothing is subtracted here: the chunk's sorted, distinct neighbours are written as one
//!    *run* (gap-encoded pieces, each within one bucket and one segment), in memory or
//!    appended to one file per layer under the scratch folder.
//! 2. **Merge.** For each segment (in parallel), a tournament merge of every run's pieces in
//!    that segment, minus the same segment of layers `d - 1` and `d`, is layer `d + 1`'s
//!    segment. Each run and each segment of layers `d - 1` and `d` is decoded exactly once per
//!    layer, so a layer costs time linear in its neighbours (times `log2` of the bucket for the
//!    sort and of the number of chunks for the merge), whatever the number of chunks.
//!
//! Memory: one chunk's boards and their non-lane neighbours ([`chunk_bytes_per_board`]: about
//! 5.4 GB for a chunk of 2^27 4x4 boards); the three layers and the runs of the layer being
//! built (gap-encoded: about the size of layers `d - 1` and `d + 1` together, plus the
//! neighbours that two chunks share), unless they are on disk ([`Storage`]); and buffers of
//! fixed sizes, whatever the size of a layer or of a segment ([`RESERVE`]): every segment of a
//! layer or a run is read through a reader's buffer (a segment larger than a chunk is decoded
//! in part, and continued in the next chunk), and a merged segment past 8 MiB goes on to a
//! scratch file of its own and is copied into its layer's file. Only the runs' piece lists
//! (about 40 bytes per segment and bucket of each run) and, past about 8,000 runs, the merge's
//! read buffers (4 KiB per run and thread at least) grow with a layer: both are in the plan
//! checked before each layer. A memory budget sets the chunk, cuts it further for a layer
//! whose runs and buffers (or layers in memory) leave less room, and stops the search cleanly
//! before a layer that would not fit even with a chunk of [`MIN_CHUNK`] boards, or on the disk.
//!
//! Integrity: every layer file and run file carries a CRC-32 per segment (per run and segment
//! for the runs), and every read checks it, with the count of boards and the bounds of each
//! segment (`codec::Reader`): a disk error is a one-line error naming the file and
//! the segment ([`FrontierError::Read`]), never a wrong count. With a checkpoint folder the
//! state after each layer is saved there, and a killed search resumes (`resume.rs`), its state
//! checked field by field first.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

mod resume;
mod store;

pub use resume::RunLabel;
use resume::{Checkpoint, layer_name};
use store::{Layer, Segment, Sink};

use super::codec::{Part, ReadError, Reader, Source, encode_sorted, push_gap};
use super::{Lanes, StateIndex, StateSpace};
use crate::progress::{NoProgress, Progress};

/// Segments per layer (by index range) of [`FrontierConfig::default`].
pub const SEGMENTS: usize = 1024;
/// Boards of the current layer expanded at once in [`FrontierConfig::default`].
pub const CHUNK: usize = 1 << 27;
/// Most segments per layer [`FrontierConfig::clamped`] allows (2^20).
pub const MAX_SEGMENTS: usize = 1 << 20;
/// Most boards per chunk [`FrontierConfig::clamped`] allows (2^31).
pub const MAX_CHUNK: usize = 1 << 31;
/// Boards of the last layer listed (the first ones in index order).
pub const LAST_LISTED: usize = 1000;

/// Most buckets of a chunk's sort.
const MAX_BUCKETS: usize = 1024;
/// Boards of a chunk per bucket of its sort, at least (so small chunks take few buckets).
const BOARDS_PER_BUCKET: usize = 2048;
/// Boards expanded by one parallel task (each keeps its neighbours in its own block).
const PART: usize = 1 << 16;
/// Boards handed to the kernel at once.
const BATCH: usize = 4096;
/// Exhausted source of a [`Tournament`] (above every index).
const EXHAUSTED: u64 = u64::MAX;

/// How a [`search_with`] cuts its work: how many boards it expands at once and how many index
/// ranges a layer is cut into. Neither changes the result, only time and memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrontierConfig {
    /// Boards of the current layer expanded at once; each chunk gives one run. Default
    /// [`CHUNK`] (2^27): its boards and their neighbours take up to about 2.5 GiB on 4x4.
    pub chunk: usize,
    /// Segments per layer, by index range (the unit of the parallel merge). Default
    /// [`SEGMENTS`] (1,024).
    pub segments: usize,
}

impl Default for FrontierConfig {
    fn default() -> Self {
        FrontierConfig {
            chunk: CHUNK,
            segments: SEGMENTS,
        }
    }
}

impl FrontierConfig {
    /// The configuration [`search_stored`] runs for `space` under the memory budget `memory`
    /// (bytes, if any): clamped, its chunk cut to what fits beside [`RESERVE`] at
    /// [`chunk_bytes_per_board`].
    ///
    /// # Errors
    /// [`FrontierError::Budget`] when the budget holds fewer than [`MIN_CHUNK`] boards.
    pub fn within<S: StateSpace>(
        self,
        space: &S,
        memory: Option<u64>,
    ) -> Result<FrontierConfig, FrontierError> {
        let mut config = self.clamped();
        let Some(memory) = memory else {
            return Ok(config);
        };
        let per_board = chunk_bytes_per_board(space);
        let fits = memory.saturating_sub(RESERVE) / per_board;
        if fits < MIN_CHUNK as u64 {
            return Err(FrontierError::Budget(format!(
                "--memory {} is too small: a chunk of {} boards takes {} with the search's \
                 buffers; give at least that",
                indicatif::DecimalBytes(memory),
                MIN_CHUNK,
                indicatif::DecimalBytes(RESERVE + MIN_CHUNK as u64 * per_board)
            )));
        }
        config.chunk = config
            .chunk
            .min(usize::try_from(fits).unwrap_or(usize::MAX));
        Ok(config)
    }

    /// The same configuration in range: `chunk` in `1..=`[`MAX_CHUNK`], `segments` in
    /// `1..=`[`MAX_SEGMENTS`]. [`search_with`] clamps what it is given.
    pub fn clamped(self) -> Self {
        FrontierConfig {
            chunk: self.chunk.clamp(1, MAX_CHUNK),
            segments: self.segments.clamp(1, MAX_SEGMENTS),
        }
    }
}

/// Why a depth-limited search stopped early.
#[derive(Debug, thiserror::Error)]
pub enum FrontierError {
    /// The scratch or checkpoint folder could not be written or read.
    #[error("folder {}: {source}", path.display())]
    Scratch {
        /// The folder.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// A checkpoint of another search.
    #[error("{0}")]
    Checkpoint(String),
    /// `resume` with no checkpoint it can continue from: none checks out, or the newest one
    /// is deeper than the depth limit (its boards at the limit are gone).
    #[error("{0}")]
    NothingToResume(String),
    /// The memory budget cannot hold one chunk's buffers.
    #[error("{0}")]
    Budget(String),
    /// The caller asked to stop ([`Progress::stop_requested`]), between two chunks: the
    /// layer being built is dropped (a checkpoint keeps the layers it saved).
    #[error("interrupted")]
    Interrupted,
    /// A layer or a run read back does not check out (its CRC-32, its count of boards, its
    /// bounds: a disk error, or a file changed under the search), or could not be read: names
    /// the layer or the run, where it is, and the segment.
    #[error("{0}")]
    Read(String),
}

/// What one layer cost, reported after it is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerReport {
    /// Its depth.
    pub depth: u32,
    /// Its boards.
    pub size: u64,
    /// Bytes of the live layers in memory once it is built (layers `depth - 1` and `depth`).
    pub bytes_in_memory: u64,
    /// Bytes on disk once it is built: the layers' files (with a scratch or checkpoint
    /// folder) and the runs written for it (with a scratch folder).
    pub bytes_on_disk: u64,
    /// Bytes free in the folder of the layers (or of the runs), when on disk.
    pub disk_free: Option<u64>,
    /// Chunks the layer before it was expanded in (runs merged into it; 0 at depth 0).
    pub chunks: u64,
    /// Bytes of all its runs, in memory or on disk.
    pub bytes_of_runs: u64,
}

/// The result of [`search`] and [`search_with`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frontier {
    /// `layer_sizes[d]` = boards at depth `d`, for `d = 0..=` the last depth reached.
    pub layer_sizes: Vec<u64>,
    /// True when the search ran out of boards before the depth limit: the component's radius
    /// is below the limit, and the whole component is known. (A search that stops exactly at
    /// the radius does not know it, and says false.)
    pub complete: bool,
    /// The first [`LAST_LISTED`] boards of the last layer, ascending index.
    pub last: Vec<StateIndex>,
    /// Largest number of bytes of layers, runs (their bytes in memory and their piece lists)
    /// and buffers (the decode buffers while a layer is expanded, the merge's read buffers and
    /// window) held in memory at once, not counting one chunk's boards and neighbours. During a
    /// merge, layer `d - 1` is freed segment by segment as layer `d + 1` is written, and the
    /// larger of the two is counted.
    pub peak_bytes: u64,
    /// The depth of the checkpoint the search resumed from, if it did.
    pub resumed_from: Option<u32>,
    /// Why the search stopped before `max_depth` and before running out of boards, if it
    /// did: the next layer would not fit in the memory budget or on the disk. The layers
    /// found until then are exact.
    pub stopped: Option<String>,
    /// Boards per chunk the search expanded at once (the configuration's, or fewer to fit
    /// the memory budget).
    pub chunk: usize,
    /// With a checkpoint: bytes of checkpoint written by this run (layer files and state
    /// files), and the time spent writing them, checksums and syncs included.
    pub saved_bytes: u64,
    /// See [`Frontier::saved_bytes`].
    pub save_time: std::time::Duration,
}

/// The boards of a layer in index order, in chunks of at most `chunk`: the segments that fit
/// whole decoded in parallel into their places, a segment larger than what is left of the
/// chunk decoded as far as it fits and continued in the next chunk, each through a reader's
/// buffer of `buffer` bytes (so that a segment of any size takes a fixed buffer beside the
/// chunk's boards).
struct Chunks<'a> {
    layer: &'a Layer,
    /// The layer's depth (for an error).
    depth: u32,
    chunk: usize,
    buffer: usize,
    /// The next segment not opened yet.
    segment: usize,
    /// A segment read in part, and its number.
    partial: Option<(usize, Reader<'a, std::iter::Once<Part>>)>,
    boards: Vec<StateIndex>,
}

/// A reader's fault as the search's error, naming what was read: `what` (the layer or the
/// run), where it is, and the segment.
fn read_error(what: &str, place: &str, segment: usize, e: ReadError) -> FrontierError {
    FrontierError::Read(format!("{what} ({place}), segment {segment}: {e}"))
}

impl<'a> Chunks<'a> {
    fn new(layer: &'a Layer, depth: u32, chunk: usize, buffer: usize) -> Chunks<'a> {
        Chunks {
            layer,
            depth,
            chunk: chunk.max(1),
            buffer,
            segment: 0,
            partial: None,
            boards: Vec::new(),
        }
    }

    fn fault(&self, segment: usize, e: ReadError) -> FrontierError {
        let what = format!("layer {}", self.depth);
        read_error(&what, &self.layer.place(), segment, e)
    }

    /// Continues the segment read in part, up to a chunk of boards in all.
    fn continue_partial(&mut self) -> Result<(), FrontierError> {
        if let Some((s, mut reader)) = self.partial.take() {
            while self.boards.len() < self.chunk {
                match reader.next() {
                    Some(x) => self.boards.push(StateIndex(x)),
                    None => {
                        return reader.finish().map_err(|e| self.fault(s, e));
                    }
                }
            }
            self.partial = Some((s, reader));
        }
        Ok(())
    }

    /// The next chunk, or `None` after the last.
    fn next_chunk(&mut self) -> Result<Option<&[StateIndex]>, FrontierError> {
        self.boards.clear();
        self.continue_partial()?;
        // The segments that fit whole.
        let first = self.segment;
        let mut found = self.boards.len() as u64;
        while self.segment < self.layer.segments()
            && found + self.layer.counts[self.segment] <= self.chunk as u64
        {
            found += self.layer.counts[self.segment];
            self.segment += 1;
        }
        let layer = self.layer;
        let old = self.boards.len();
        self.boards.resize(found as usize, StateIndex(0));
        let mut rest = &mut self.boards[old..];
        let mut places = Vec::with_capacity(self.segment - first);
        for s in first..self.segment {
            let (place, after) = std::mem::take(&mut rest).split_at_mut(layer.counts[s] as usize);
            places.push((s, place));
            rest = after;
        }
        let buffer = self.buffer;
        let decode = |(s, place): (usize, &mut [StateIndex])| -> Result<(), (usize, ReadError)> {
            let mut reader = layer.reader(s, buffer);
            for slot in place.iter_mut() {
                match reader.next() {
                    Some(x) => *slot = StateIndex(x),
                    None => break,
                }
            }
            reader.finish().map_err(|e| (s, e))
        };
        let decoded = if found - old as u64 > PART as u64 {
            places.into_par_iter().try_for_each(decode)
        } else {
            places.into_iter().try_for_each(decode)
        };
        decoded.map_err(|(s, e)| self.fault(s, e))?;
        // A segment larger than what is left of the chunk: as much of it as fits.
        if self.boards.len() < self.chunk && self.segment < layer.segments() {
            let s = self.segment;
            self.segment += 1;
            self.partial = Some((s, layer.reader(s, self.buffer)));
            self.continue_partial()?;
        }
        if self.boards.is_empty() {
            return Ok(None);
        }
        Ok(Some(&self.boards))
    }
}

/// A gap-encoded stretch of a run: the indices of one bucket of a chunk's sort in one segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    /// The segment it lies in.
    segment: u32,
    /// The base its first gap is counted from (the start of the segment or of the bucket).
    base: u64,
    /// Its first byte: in the run's bytes in memory, or in the layer's run file.
    start: u64,
    /// Its bytes.
    len: u64,
    /// Its indices.
    count: u64,
}

/// The [`Part`]s of consecutive pieces of segments of `span` indices, for a [`Reader`].
#[derive(Clone)]
struct PieceParts<'a> {
    pieces: std::slice::Iter<'a, Piece>,
    span: u64,
}

impl Iterator for PieceParts<'_> {
    type Item = Part;

    fn next(&mut self) -> Option<Part> {
        let p = self.pieces.next()?;
        Some(Part {
            base: p.base,
            end: (u64::from(p.segment) + 1).saturating_mul(self.span),
            count: p.count,
            len: p.len,
        })
    }
}

/// Writes ascending, distinct indices of one bucket (`lo..`) as pieces, one per segment of
/// `span` indices it touches.
struct PieceWriter {
    span: u64,
    lo: u64,
    bytes: Vec<u8>,
    pieces: Vec<Piece>,
    /// First index past the open piece's segment (0: no piece open).
    end: u64,
    previous: u64,
}

impl PieceWriter {
    fn new(span: u64, lo: u64) -> PieceWriter {
        PieceWriter {
            span,
            lo,
            bytes: Vec::new(),
            pieces: Vec::new(),
            end: 0,
            previous: 0,
        }
    }

    #[inline]
    fn push(&mut self, x: u64) {
        if x >= self.end {
            self.close();
            let segment = x / self.span;
            let base = (segment * self.span).max(self.lo);
            self.pieces.push(Piece {
                segment: segment as u32,
                base,
                start: self.bytes.len() as u64,
                len: 0,
                count: 0,
            });
            self.end = (segment + 1) * self.span;
            self.previous = base;
        }
        push_gap(&mut self.bytes, x - self.previous);
        self.previous = x;
        if let Some(p) = self.pieces.last_mut() {
            p.count += 1;
        }
    }

    fn close(&mut self) {
        if let Some(p) = self.pieces.last_mut() {
            p.len = self.bytes.len() as u64 - p.start;
        }
    }

    fn finish(mut self) -> (Vec<u8>, Vec<Piece>) {
        self.close();
        (self.bytes, self.pieces)
    }
}

/// A k-way merge of ascending sources by a tournament of losers (Knuth, "The Art of Computer
/// Programming", vol. 3, 5.4.1): every value of every source, duplicates included, ascending,
/// at `log2 k` comparisons each. Sources must not yield `u64::MAX`.
struct Tournament<I> {
    sources: Vec<I>,
    /// The head of each leaf (padded to a power of two), [`EXHAUSTED`] once it is empty.
    heads: Vec<u64>,
    /// `losers[n]`: the leaf that lost at internal node `n` (`1..leaves`); `losers[0]`: the
    /// winner.
    losers: Vec<usize>,
}

impl<I: Iterator<Item = u64>> Tournament<I> {
    fn new(mut sources: Vec<I>) -> Tournament<I> {
        let leaves = sources.len().max(1).next_power_of_two();
        let mut heads: Vec<u64> = sources
            .iter_mut()
            .map(|s| s.next().unwrap_or(EXHAUSTED))
            .collect();
        heads.resize(leaves, EXHAUSTED);
        let mut winners = vec![0usize; 2 * leaves];
        let mut losers = vec![0usize; leaves];
        for (leaf, w) in winners[leaves..].iter_mut().enumerate() {
            *w = leaf;
        }
        for n in (1..leaves).rev() {
            let (a, b) = (winners[2 * n], winners[2 * n + 1]);
            let (w, l) = if heads[b] < heads[a] { (b, a) } else { (a, b) };
            winners[n] = w;
            losers[n] = l;
        }
        losers[0] = if leaves > 1 { winners[1] } else { 0 };
        Tournament {
            sources,
            heads,
            losers,
        }
    }
}

impl<I: Iterator<Item = u64>> Iterator for Tournament<I> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        let mut winner = self.losers[0];
        let value = self.heads[winner];
        if value == EXHAUSTED {
            return None;
        }
        let head = self.sources[winner].next().unwrap_or(EXHAUSTED);
        debug_assert!(head >= value, "sources ascend");
        self.heads[winner] = head;
        let mut n = (winner + self.heads.len()) / 2;
        while n > 0 {
            let l = self.losers[n];
            if self.heads[l] < self.heads[winner] {
                self.losers[n] = winner;
                winner = l;
            }
            n /= 2;
        }
        self.losers[0] = winner;
        Some(value)
    }
}

/// A segment of the next layer being written by the merge: its bytes in memory up to `limit`,
/// then (with a folder to spill to) moved to a scratch file of its own, so that a segment of
/// any size takes at most `limit` bytes of memory.
struct Output<'d> {
    segment: Segment,
    limit: usize,
    dir: Option<&'d Path>,
    error: Option<std::io::Error>,
}

impl<'d> Output<'d> {
    fn new(limit: usize, dir: Option<&'d Path>) -> Output<'d> {
        Output {
            segment: Segment::default(),
            limit: if dir.is_some() {
                limit.max(1)
            } else {
                usize::MAX
            },
            dir,
            error: None,
        }
    }

    #[inline]
    fn push(&mut self, gap: u64) {
        push_gap(&mut self.segment.bytes, gap);
        self.segment.count += 1;
        if self.segment.bytes.len() >= self.limit {
            self.spill();
        }
    }

    /// Moves the bytes in memory to the spill file.
    #[cold]
    fn spill(&mut self) {
        let Some(dir) = self.dir else { return };
        if self.error.is_some() {
            self.segment.bytes.clear();
            return;
        }
        let result = (|| -> std::io::Result<()> {
            if self.segment.spill.is_none() {
                self.segment.spill = Some((tempfile::tempfile_in(dir)?, 0));
            }
            let (file, len) = self.segment.spill.as_mut().expect("just made");
            file.write_all(&self.segment.bytes)?;
            *len += self.segment.bytes.len() as u64;
            Ok(())
        })();
        self.segment.bytes.clear();
        if let Err(e) = result {
            self.error = Some(e);
        }
    }

    fn finish(mut self) -> std::io::Result<Segment> {
        match self.error.take() {
            Some(e) => Err(e),
            None => {
                self.segment.bytes.shrink_to_fit();
                Ok(self.segment)
            }
        }
    }
}

/// The layer `d + 1` segment from `base` into `out`: the union of `sources` (ascending,
/// duplicates allowed) minus `older` and `newer` (the same segment of layers `d - 1` and
/// `d`, read as far as the sources go), encoded from `base`.
fn merge_segment<I: Iterator<Item = u64>>(
    mut sources: Vec<I>,
    older: &mut impl Iterator<Item = u64>,
    newer: &mut impl Iterator<Item = u64>,
    base: u64,
    out: &mut Output<'_>,
) {
    let mut old = older.next().unwrap_or(EXHAUSTED);
    let mut new = newer.next().unwrap_or(EXHAUSTED);
    let mut previous = base;
    let mut last = EXHAUSTED;
    let mut keep = |x: u64| {
        if x == last {
            return;
        }
        last = x;
        while old < x {
            old = older.next().unwrap_or(EXHAUSTED);
        }
        while new < x {
            new = newer.next().unwrap_or(EXHAUSTED);
        }
        if old != x && new != x {
            out.push(x - previous);
            previous = x;
        }
    };
    if sources.len() == 1 {
        sources.pop().into_iter().flatten().for_each(&mut keep);
    } else {
        Tournament::new(sources).for_each(&mut keep);
    }
}

/// Ascending, distinct: the union of three ascending, distinct lists, each ending with
/// [`EXHAUSTED`], passed to `f`.
#[inline]
fn union3(a: &[u64], b: &[u64], c: &[u64], mut f: impl FnMut(u64)) {
    debug_assert!([a, b, c].iter().all(|l| l.last() == Some(&EXHAUSTED)));
    let (mut i, mut j, mut k) = (0, 0, 0);
    loop {
        let x = a[i].min(b[j]).min(c[k]);
        if x == EXHAUSTED {
            return;
        }
        i += usize::from(a[i] == x);
        j += usize::from(b[j] == x);
        k += usize::from(c[k] == x);
        f(x);
    }
}

/// What the expansion of every chunk of a layer shares.
struct Plan<'a, S> {
    space: &'a S,
    size: u64,
    /// Of the layers (and so of the pieces).
    span: u64,
    lanes: Option<Lanes>,
}

/// Bits of the largest index of a space of `size` boards.
fn index_bits(size: u64) -> u32 {
    64 - size.saturating_sub(1).leading_zeros()
}

/// Buckets for a chunk of `boards` boards: a power of two, at most [`MAX_BUCKETS`] and at
/// most what the bits of an index of a space of `size` boards can address.
fn bucket_count(boards: usize, size: u64) -> usize {
    let bits = index_bits(size);
    let log = (boards / BOARDS_PER_BUCKET)
        .max(1)
        .next_power_of_two()
        .min(MAX_BUCKETS)
        .trailing_zeros()
        .min(bits);
    1 << log
}

/// log2 of the fine bins per bucket [`Splits`] groups (at most 2^16 fine bins in all).
const FINE_PER_BUCKET_BITS: u32 = 6;
/// Sampled boards per bucket when [`Splits`] are drawn.
const SAMPLE_PER_BUCKET: usize = 16;

/// How a chunk's neighbours are cut into the buckets of its sort: the index is cut into fine
/// bins by its top bits (64 per bucket, at most `2^16`), and runs of consecutive fine bins are
/// grouped into buckets that each hold about the same share of a sample of the neighbours.
/// Buckets of equal index ranges (the top bits alone) were very unequal: near the goal a
/// layer's boards crowd into a few ranges of the index (their first tiles in place), and on
/// 4x4 one thread sorted most of each chunk while the other waited (about 6 s of each chunk of
/// 8 to 10 s at depth 32). Any split gives the same run; only the balance changes.
struct Splits {
    /// Fine bin of index `x`: `x >> shift`.
    shift: u32,
    /// Per fine bin, its bucket (non-decreasing).
    map: Vec<u16>,
    /// Per bucket, its first index (`starts[0] == 0`).
    starts: Vec<u64>,
}

impl Splits {
    /// Up to `buckets` buckets (at most `u16::MAX`) over the indices of a space of `size`
    /// boards, balanced for the values of `sample` (any order; sorted here).
    fn new(sample: &mut [u64], buckets: usize, size: u64) -> Splits {
        if buckets <= 1 {
            // (Indices are below 2^63: every one is in fine bin 0, bucket 0.)
            return Splits {
                shift: 63,
                map: vec![0],
                starts: vec![0],
            };
        }
        let bits = index_bits(size);
        let fine_bits = bits.min(buckets.ilog2() + FINE_PER_BUCKET_BITS).min(16);
        let shift = bits - fine_bits;
        sample.sort_unstable();
        // The fine bin where each bucket after the first starts, strictly increasing.
        let mut firsts = Vec::with_capacity(buckets);
        for b in 1..buckets.min(usize::from(u16::MAX)) {
            let Some(&x) = sample.get(b * sample.len() / buckets) else {
                break;
            };
            let fine = x >> shift;
            if fine > firsts.last().copied().unwrap_or(0) {
                firsts.push(fine);
            }
        }
        let mut map = vec![0u16; 1 << fine_bits];
        let mut bucket = 0u16;
        for (fine, slot) in map.iter_mut().enumerate() {
            if firsts.get(usize::from(bucket)) == Some(&(fine as u64)) {
                bucket += 1;
            }
            *slot = bucket;
        }
        let starts = std::iter::once(0)
            .chain(firsts.iter().map(|&f| f << shift))
            .collect();
        Splits { shift, map, starts }
    }

    /// The bucket of index `x` (below the space's size).
    #[inline(always)]
    fn of(&self, x: u64) -> usize {
        usize::from(self.map[(x >> self.shift) as usize])
    }

    /// Buckets.
    fn len(&self) -> usize {
        self.starts.len()
    }

    /// The indices bucket `b` holds: `lo..hi` (`hi` is `u64::MAX` for the last).
    fn range(&self, b: usize) -> (u64, u64) {
        (
            self.starts[b],
            self.starts.get(b + 1).copied().unwrap_or(u64::MAX),
        )
    }
}

/// `values` in bucket order (by one counting pass); and where each bucket starts
/// (`splits.len() + 1` offsets).
fn sort_into_buckets(values: Vec<u64>, splits: &Splits) -> (Vec<u64>, Vec<u32>) {
    let buckets = splits.len();
    let mut starts = vec![0u32; buckets + 1];
    if buckets == 1 {
        starts[1] = values.len() as u32;
        return (values, starts);
    }
    for &x in &values {
        starts[splits.of(x) + 1] += 1;
    }
    for b in 0..buckets {
        starts[b + 1] += starts[b];
    }
    let mut at = starts.clone();
    let mut sorted = vec![0u64; values.len()];
    for x in values {
        let b = splits.of(x);
        sorted[at[b] as usize] = x;
        at[b] += 1;
    }
    (sorted, starts)
}

impl<S: StateSpace> Plan<'_, S> {
    /// The neighbours of `boards` (ascending) but the lane moves, in the order found.
    fn neighbours(&self, boards: &[StateIndex]) -> Vec<u64> {
        let mut out: Vec<StateIndex> = Vec::with_capacity(2 * boards.len());
        if self.lanes.is_some() {
            for batch in boards.chunks(BATCH) {
                self.space.expand_across(batch, &mut out);
            }
        } else {
            let mut slots = Vec::with_capacity(self.space.degree() * BATCH.min(boards.len()));
            for batch in boards.chunks(BATCH) {
                slots.clear();
                self.space.expand(batch, &mut slots);
                out.extend(slots.iter().filter(|&&i| i != StateIndex::NONE));
            }
        }
        out.into_iter().map(|i| i.0).collect()
    }

    /// The buckets of the sort of `boards`' neighbours ([`Splits`]), drawn from the
    /// neighbours of a sample of the boards.
    fn splits(&self, boards: &[StateIndex]) -> Splits {
        let buckets = bucket_count(boards.len(), self.size);
        let mut sample = match buckets {
            1 => Vec::new(),
            _ => {
                let step = (boards.len() / (buckets * SAMPLE_PER_BUCKET)).max(1);
                let sampled: Vec<StateIndex> = boards.iter().step_by(step).copied().collect();
                self.neighbours(&sampled)
            }
        };
        Splits::new(&mut sample, buckets, self.size)
    }

    /// One chunk's run: the distinct neighbours of `boards` (ascending, distinct), as the
    /// bytes and pieces of each bucket in index order.
    fn run(&self, boards: &[StateIndex]) -> Vec<(Vec<u8>, Vec<Piece>)> {
        let splits = self.splits(boards);
        let buckets = splits.len();
        let sorted = |b: &[StateIndex]| sort_into_buckets(self.neighbours(b), &splits);
        let parallel = boards.len() > PART;
        let parts: Vec<(Vec<u64>, Vec<u32>)> = if parallel {
            boards.par_chunks(PART).map(sorted).collect()
        } else {
            vec![sorted(boards)]
        };
        let bucket = |b: usize| {
            let (lo, hi) = splits.range(b);
            let mut values =
                Vec::with_capacity(parts.iter().map(|(_, s)| (s[b + 1] - s[b]) as usize).sum());
            for (part, starts) in &parts {
                values.extend_from_slice(&part[starts[b] as usize..starts[b + 1] as usize]);
            }
            values.sort_unstable();
            values.dedup();
            let mut writer = PieceWriter::new(self.span, lo);
            writer.bytes.reserve(2 * values.len());
            values.push(EXHAUSTED);
            // The lane neighbours in lo..hi: x + 1 and x - 1 of the boards x in lo - 1..hi + 1,
            // each list ascending as the boards are.
            let (mut right, mut left) = (Vec::new(), Vec::new());
            if let Some(lanes) = self.lanes {
                let from = boards.partition_point(|i| i.0 + 1 < lo);
                let to = boards.partition_point(|i| i.0 < hi.saturating_add(1));
                right.reserve(to - from + 1);
                left.reserve(to - from + 1);
                let p = lanes.period;
                for &StateIndex(x) in &boards[from..to] {
                    let r = x % p;
                    if lanes.right >> r & 1 == 1 && x + 1 >= lo && x + 1 < hi && x + 1 < self.size {
                        right.push(x + 1);
                    }
                    let before = if r == 0 { p - 1 } else { r - 1 };
                    if x > lo && x <= hi && lanes.right >> before & 1 == 1 {
                        left.push(x - 1);
                    }
                }
            }
            right.push(EXHAUSTED);
            left.push(EXHAUSTED);
            union3(&values, &right, &left, |x| writer.push(x));
            writer.finish()
        };
        if parallel {
            (0..buckets).into_par_iter().map(bucket).collect()
        } else {
            (0..buckets).map(bucket).collect()
        }
    }
}

/// The runs of the layer being built: their pieces, and their bytes in memory or in one file
/// (unnamed, deleted when closed) under the scratch folder, with a CRC-32 of each run's bytes
/// in each segment.
struct Runs {
    file: Option<BufWriter<File>>,
    /// The scratch folder, when on disk.
    dir: Option<PathBuf>,
    /// Per run, its bytes (empty when on disk).
    memory: Vec<Vec<u8>>,
    /// Per run, its pieces in index order.
    pieces: Vec<Vec<Piece>>,
    /// Per run, the CRC-32 of its bytes in each segment it has pieces in, in index order
    /// (empty in memory).
    crcs: Vec<Vec<u32>>,
    /// Bytes of all runs.
    bytes: u64,
    /// Bytes of runs, pieces and CRCs held in memory.
    in_memory: u64,
}

/// The runs of one segment: `(run, first piece..end piece, CRC-32 of their bytes)`.
type Entry = (usize, Range<usize>, u32);

impl Runs {
    fn new(scratch: Option<&Path>) -> std::io::Result<Runs> {
        let file = match scratch {
            None => None,
            Some(dir) => {
                std::fs::create_dir_all(dir)?;
                let file = tempfile::tempfile_in(dir)?;
                Some(BufWriter::with_capacity(1 << 20, file))
            }
        };
        Ok(Runs {
            file,
            dir: scratch.map(Path::to_path_buf),
            memory: Vec::new(),
            pieces: Vec::new(),
            crcs: Vec::new(),
            bytes: 0,
            in_memory: 0,
        })
    }

    fn bytes_in_memory(&self) -> u64 {
        self.in_memory
    }

    fn bytes_on_disk(&self) -> u64 {
        if self.file.is_some() { self.bytes } else { 0 }
    }

    /// Where the runs are, for an error.
    fn place(&self) -> String {
        match &self.dir {
            Some(dir) => format!("an unnamed scratch file in {}", dir.display()),
            None => "in memory".into(),
        }
    }

    /// Adds one run, given as the bytes and pieces of each bucket in index order (pieces
    /// counted from the bucket's first byte).
    fn add(&mut self, buckets: Vec<(Vec<u8>, Vec<Piece>)>) -> std::io::Result<()> {
        let total: usize = buckets.iter().map(|(b, _)| b.len()).sum();
        let mut pieces = Vec::with_capacity(buckets.iter().map(|(_, p)| p.len()).sum());
        let mut memory = Vec::new();
        let mut crcs = Vec::new();
        if self.file.is_none() {
            memory.reserve_exact(total);
        }
        // The open segment's CRC (on disk).
        let mut open: Option<(u32, crc32fast::Hasher)> = None;
        for (bytes, ps) in buckets {
            let origin = match &mut self.file {
                Some(w) => {
                    for p in &ps {
                        if open.as_ref().is_none_or(|(s, _)| *s != p.segment) {
                            if let Some((_, h)) = open.take() {
                                crcs.push(h.finalize());
                            }
                            open = Some((p.segment, crc32fast::Hasher::new()));
                        }
                        let from = p.start as usize;
                        if let Some((_, h)) = &mut open {
                            h.update(&bytes[from..from + p.len as usize]);
                        }
                    }
                    let at = self.bytes;
                    w.write_all(&bytes)?;
                    at
                }
                None => {
                    let at = memory.len() as u64;
                    memory.extend_from_slice(&bytes);
                    at
                }
            };
            self.bytes += bytes.len() as u64;
            pieces.extend(ps.into_iter().map(|p| Piece {
                start: p.start + origin,
                ..p
            }));
        }
        if let Some((_, h)) = open {
            crcs.push(h.finalize());
        }
        self.in_memory += (memory.capacity()
            + pieces.capacity() * std::mem::size_of::<Piece>()
            + crcs.capacity() * 4) as u64;
        self.memory.push(memory);
        self.pieces.push(pieces);
        self.crcs.push(crcs);
        Ok(())
    }

    /// Writes out what is buffered, before the merge reads the file.
    fn flush(&mut self) -> std::io::Result<()> {
        if let Some(w) = &mut self.file {
            w.flush()?;
        }
        Ok(())
    }

    /// For each of `segments` segments, the runs with pieces in it: `(starts, entries)`, where
    /// `entries[starts[s]..starts[s + 1]]` are segment `s`'s.
    fn index(&self, segments: usize) -> (Vec<usize>, Vec<Entry>) {
        let mut starts = vec![0usize; segments + 1];
        for pieces in &self.pieces {
            for g in pieces.chunk_by(|a, b| a.segment == b.segment) {
                starts[g[0].segment as usize + 1] += 1;
            }
        }
        for s in 0..segments {
            starts[s + 1] += starts[s];
        }
        let mut at = starts.clone();
        let mut entries = vec![(0, 0..0, 0); starts[segments]];
        for (run, pieces) in self.pieces.iter().enumerate() {
            let mut first = 0;
            for (k, g) in pieces.chunk_by(|a, b| a.segment == b.segment).enumerate() {
                let s = g[0].segment as usize;
                let crc = self.crcs[run].get(k).copied().unwrap_or(0);
                entries[at[s]] = (run, first..first + g.len(), crc);
                at[s] += 1;
                first += g.len();
            }
        }
        (starts, entries)
    }

    /// A reader of the indices of pieces `range` of `run` (contiguous, in one segment of
    /// `span` indices), checked against `crc` on disk, read `buffer` bytes at a time.
    fn reader(
        &self,
        (run, range, crc): &Entry,
        span: u64,
        buffer: usize,
    ) -> Reader<'_, PieceParts<'_>> {
        let pieces = &self.pieces[*run][range.clone()];
        let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
        let (start, end) = (first.start, last.start + last.len);
        let source = match &self.file {
            None => Source::Memory(&self.memory[*run][start as usize..end as usize]),
            Some(w) => Source::File {
                file: w.get_ref(),
                from: start,
                to: end,
                crc: *crc,
            },
        };
        let parts = PieceParts {
            pieces: pieces.iter(),
            span,
        };
        Reader::new(source, parts, buffer)
    }
}

#[cfg(unix)]
pub(super) fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, at)
}

#[cfg(not(unix))]
pub(super) fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file.try_clone()?;
    f.seek(SeekFrom::Start(at))?;
    f.read_exact(buf)
}

/// The sizes of the search's buffers besides a chunk's boards and neighbours: fixed, whatever
/// the size of a layer or of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Buffers {
    /// Bytes of the merge's read buffers, all its tasks together: each task reads its
    /// segment's runs and the same segment of layers `d - 1` and `d` through a buffer each of
    /// this divided by the tasks and the sources, between [`MIN_READ`] and [`MAX_READ`].
    merge_read: u64,
    /// Bytes of a segment of the next layer kept in memory as it is merged; past that they go
    /// to a scratch file of the segment's own (with a folder for the layers).
    out_limit: usize,
    /// Segments merged at once (in parallel), then written out in order.
    window: usize,
    /// Bytes of the buffer a segment of the layer being expanded is decoded through.
    decode: usize,
}

/// Smallest read buffer of the merge.
const MIN_READ: usize = 4 << 10;
/// Largest read buffer of the merge.
const MAX_READ: usize = 1 << 20;

impl Buffers {
    /// What a search uses: 64 MiB of read buffers for the merge, 16 segments merged at once
    /// with up to 8 MiB each in memory, 1 MiB to decode a segment (per thread): about 200 MiB
    /// of [`RESERVE`] while the runs are at most 64 MiB / ([`MIN_READ`] x threads) - 2.
    const SHIPPED: Buffers = Buffers {
        merge_read: 64 << 20,
        out_limit: 8 << 20,
        window: 16,
        decode: 1 << 20,
    };

    /// Bytes of each read buffer of a merge of `runs` runs.
    fn read_buffer(&self, runs: usize) -> usize {
        let readers = rayon::current_num_threads().max(1) as u64 * (runs as u64 + 2);
        usize::try_from(self.merge_read / readers)
            .unwrap_or(MAX_READ)
            .clamp(MIN_READ, MAX_READ)
    }

    /// Bytes the merge of `runs` runs holds at most besides the layers: every task's read
    /// buffers and the window's segments in memory.
    fn merge_bytes(&self, runs: usize) -> u64 {
        let readers = rayon::current_num_threads().max(1) as u64 * (runs as u64 + 2);
        readers * self.read_buffer(runs) as u64 + self.window as u64 * self.out_limit as u64
    }

    /// What [`Buffers::merge_bytes`] takes past the part of [`RESERVE`] set aside for the
    /// merge (the shipped read buffers, 64 MiB, and window, 128 MiB): the read buffers at their
    /// least once the runs are many.
    fn merge_bytes_past_reserve(&self, runs: usize) -> u64 {
        let shipped = Buffers::SHIPPED;
        let reserved = shipped.merge_read + shipped.window as u64 * shipped.out_limit as u64;
        self.merge_bytes(runs).saturating_sub(reserved)
    }

    /// Bytes the expansion of a layer holds besides the chunk: a decode buffer per thread.
    fn decode_bytes(&self) -> u64 {
        rayon::current_num_threads().max(1) as u64 * self.decode as u64
    }
}

/// Layer `d + 1` (`depth`) from the runs of layer `d`'s chunks, minus `older` (layer `d - 1`,
/// its memory freed segment by segment) and `newer` (layer `d`), written into `sink` a window
/// of segments at a time (the segments of a window in parallel), each source read through a
/// buffer of a fixed size and checked ([`Reader`]), each segment spilled to a file of its own
/// under `spill` when it passes [`Buffers::out_limit`].
///
/// # Errors
/// [`FrontierError::Read`] for a run or a layer that does not check out, naming it and the
/// segment; [`FrontierError::Scratch`] when a file fails.
fn merge(
    runs: &Runs,
    (older, newer): (&mut Layer, &Layer),
    mut sink: Sink,
    buffers: &Buffers,
    spill: Option<&Path>,
    depth: u32,
) -> Result<Layer, FrontierError> {
    let scratch = |source| FrontierError::Scratch {
        path: spill.map(Path::to_path_buf).unwrap_or_default(),
        source,
    };
    let segments = newer.segments();
    let (starts, entries) = runs.index(segments);
    let buffer = buffers.read_buffer(runs.pieces.len());
    let (runs_at, older_at, newer_at) = (runs.place(), older.place(), newer.place());
    let runs_of = format!("the runs of depth {depth}");
    let older_is = format!("layer {}", depth.saturating_sub(2));
    let newer_is = format!("layer {}", depth - 1);
    for first in (0..segments).step_by(buffers.window.max(1)) {
        let window = first..(first + buffers.window.max(1)).min(segments);
        let older_layer = &*older;
        let merged: Vec<Segment> = window
            .clone()
            .into_par_iter()
            .map(|s| {
                let entries = &entries[starts[s]..starts[s + 1]];
                let mut sources: Vec<_> = entries
                    .iter()
                    .map(|e| runs.reader(e, newer.span, buffer))
                    .collect();
                let mut old = older_layer.reader(s, buffer);
                let mut new = newer.reader(s, buffer);
                let mut out = Output::new(buffers.out_limit, spill);
                merge_segment(
                    sources.iter_mut().collect(),
                    &mut old,
                    &mut new,
                    newer.base(s),
                    &mut out,
                );
                for (e, source) in entries.iter().zip(sources) {
                    source.finish().map_err(|err| {
                        let what = format!("{runs_of}, run {}", e.0);
                        read_error(&what, &runs_at, s, err)
                    })?;
                }
                old.finish()
                    .map_err(|e| read_error(&older_is, &older_at, s, e))?;
                new.finish()
                    .map_err(|e| read_error(&newer_is, &newer_at, s, e))?;
                out.finish().map_err(scratch)
            })
            .collect::<Result<_, FrontierError>>()?;
        for s in window {
            older.free(s);
        }
        for segment in merged {
            sink.push_segment(segment).map_err(scratch)?;
        }
    }
    sink.finish().map_err(scratch)
}

/// [`search_with`] with [`FrontierConfig::default`].
///
/// # Errors
/// [`FrontierError::Scratch`] when the scratch folder fails.
pub fn search<S: StateSpace>(
    space: &S,
    seed: StateIndex,
    max_depth: u32,
    scratch: Option<&Path>,
    on_layer: impl FnMut(LayerReport),
) -> Result<Frontier, FrontierError> {
    search_with(
        space,
        seed,
        max_depth,
        scratch,
        FrontierConfig::default(),
        on_layer,
    )
}

/// BFS from `seed` over `space` to depth `max_depth` (or until the component is exhausted),
/// keeping only three layers (frontier search: Korf, Zhang, Thayer & Hohwald, JACM 2005).
/// `scratch`: a folder for the runs of the layer being built and the layers, unnamed files
/// there (else they stay in memory). `config` (clamped, [`FrontierConfig::clamped`]) sets the
/// chunk and segment sizes; the result does not depend on it. `on_layer` is called after each
/// layer is built, depth 0 included. [`search_stored`] also checkpoints and resumes.
///
/// Time per layer: linear in the neighbours of layer `d` (each run and each segment of layers
/// `d - 1` and `d` decoded once), times `log2` of a bucket for the sort and of the number of
/// chunks for the merge. Memory: see the module documentation.
///
/// # Errors
/// [`FrontierError::Scratch`] when the scratch folder fails; [`FrontierError::Read`] when a
/// scratch file does not check out when read back.
pub fn search_with<S: StateSpace>(
    space: &S,
    seed: StateIndex,
    max_depth: u32,
    scratch: Option<&Path>,
    config: FrontierConfig,
    on_layer: impl FnMut(LayerReport),
) -> Result<Frontier, FrontierError> {
    let storage = Storage {
        scratch: scratch.map(Path::to_path_buf),
        checkpoint: None,
        memory: None,
    };
    search_stored(
        space,
        seed,
        max_depth,
        &storage,
        config,
        on_layer,
        &NoProgress,
    )
}

/// Where a search keeps its layers, and whether it saves its state to resume from.
#[derive(Debug, Clone, Default)]
pub struct Storage {
    /// Folder for the runs of the layer being built and, without a checkpoint, the layers
    /// themselves (unnamed files, gone when closed). `None`: memory (unless checkpointing).
    pub scratch: Option<PathBuf>,
    /// Keep the layers in this checkpoint folder, and its state after each layer.
    pub checkpoint: Option<CheckpointAt>,
    /// The memory budget in bytes: chunks are cut to fit it ([`chunk_bytes_per_board`]),
    /// and a search whose next layer would not fit stops cleanly before it. `None`: no
    /// budget.
    pub memory: Option<u64>,
}

/// Bytes the search holds besides the chunk's boards and neighbours and the layers and runs in
/// memory, whatever the size of a layer: the merge's read buffers (64 MiB), its window of 16
/// segments of up to 8 MiB each in memory (128 MiB), a decode buffer per thread (1 MiB), the
/// files' write buffers (4 MiB for a layer, 1 MiB for the runs, 1 MiB to copy a spilled
/// segment) and the runs' piece lists while they are few. Past that the plan before each layer
/// adds what grows with the number of runs.
pub const RESERVE: u64 = 256 << 20;
/// The fewest boards per chunk a memory budget may leave.
pub const MIN_CHUNK: usize = 1 << 16;

/// Bytes of the piece lists of `runs` runs over `segments` segments, at most (a piece per
/// segment and per bucket of a chunk's sort, in each run).
fn pieces_bytes(runs: usize, segments: usize) -> u64 {
    (runs * (segments + MAX_BUCKETS) * (std::mem::size_of::<Piece>() + 4)) as u64
}

/// Debug builds only, for the tests of the checks on reading back:
/// `NPUZZLE_DAMAGE_SCRATCH=runs:D` (or `layer:D`) flips a bit in the middle of the runs of
/// depth `D` once written (or of layer `D`'s file), as a disk error would. Does nothing in a
/// release build.
#[cfg_attr(not(debug_assertions), allow(unused_variables))]
fn damage_hook(what: &str, depth: u32, file: &File, path: Option<&Path>) {
    #[cfg(all(debug_assertions, unix))]
    if std::env::var("NPUZZLE_DAMAGE_SCRATCH").ok() == Some(format!("{what}:{depth}")) {
        use std::os::unix::fs::FileExt;
        let reopened = path.map(|p| std::fs::OpenOptions::new().read(true).write(true).open(p));
        let file = match &reopened {
            Some(Ok(f)) => f,
            _ => file,
        };
        let len = file.metadata().map_or(0, |m| m.len());
        let mut byte = [0u8];
        if len > 0 && read_at(file, &mut byte, len / 2).is_ok() {
            byte[0] ^= 0x10;
            let _ = file.write_all_at(&byte, len / 2);
        }
    }
}

/// Bytes per board of a chunk while it is expanded: the board (8), and for each neighbour
/// the kernel gives (all moves, or the moves off the lanes, at most 2 of them for a grid)
/// the neighbour and its copy in the bucket sort (16).
pub fn chunk_bytes_per_board<S: StateSpace>(space: &S) -> u64 {
    let kernel = if space.lanes().is_some() {
        space.degree().saturating_sub(2).max(1)
    } else {
        space.degree()
    };
    8 + 16 * kernel as u64
}

/// Bytes free for an unprivileged user in the file system of `dir`, or `None` when unknown.
/// In builds with debug assertions only (the binary the tests run),
/// `NPUZZLE_FAKE_DISK_FREE=BYTES` overrides it, for the tests of a full disk; a release build
/// never reads it, so its disk-full guard cannot be switched off.
pub fn disk_free(dir: &Path) -> Option<u64> {
    #[cfg(debug_assertions)]
    if let Some(v) = std::env::var("NPUZZLE_FAKE_DISK_FREE")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return Some(v);
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: statvfs writes one struct through a valid pointer; the path is a valid
        // C string.
        let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
            return None;
        }
        #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
        Some(stat.f_bavail as u64 * stat.f_frsize as u64)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

/// A checkpoint folder: the two live layers (`layer-D.npl`) and the state after the last
/// finished layer (`frontier.{0,1}.ckpt`), enough to resume from it, or to search deeper
/// later.
#[derive(Debug, Clone)]
pub struct CheckpointAt {
    /// The folder (may be the scratch folder).
    pub dir: PathBuf,
    /// A new search (refused over a checkpoint), a fresh one (the checkpoint there removed
    /// first), or one that continues from the newest state there (an error when there is
    /// none).
    pub start: crate::durable::Start,
    /// What the state is checked against.
    pub run: RunLabel,
}

/// [`search_with`], with the layers where `storage` says, saving the search's state after
/// each layer into a checkpoint folder, and resuming from it. Warnings (a damaged checkpoint
/// slot passed over) go to `progress` ([`Progress::warn`]), which is asked before each chunk of
/// a layer is expanded whether to stop ([`Progress::stop_requested`]). A resumed search gives the same result as an unbroken one, and may
/// go deeper than the search it resumes.
///
/// # Errors
/// [`FrontierError::Scratch`] when a folder fails; [`FrontierError::Checkpoint`] for a
/// checkpoint of another search; [`FrontierError::NothingToResume`] (also for a checkpoint
/// deeper than `max_depth`); [`FrontierError::Read`] for a layer or a run that does not check
/// out when read back; [`FrontierError::Budget`]; [`FrontierError::Interrupted`] when `progress`
/// asked to stop.
pub fn search_stored<S: StateSpace>(
    space: &S,
    seed: StateIndex,
    max_depth: u32,
    storage: &Storage,
    config: FrontierConfig,
    on_layer: impl FnMut(LayerReport),
    progress: &dyn Progress,
) -> Result<Frontier, FrontierError> {
    search_buffered(
        space,
        seed,
        max_depth,
        storage,
        config,
        &Buffers::SHIPPED,
        on_layer,
        progress,
    )
}

/// [`search_stored`] with the given buffers.
#[allow(clippy::too_many_arguments)]
fn search_buffered<S: StateSpace>(
    space: &S,
    seed: StateIndex,
    max_depth: u32,
    storage: &Storage,
    config: FrontierConfig,
    buffers: &Buffers,
    mut on_layer: impl FnMut(LayerReport),
    progress: &dyn Progress,
) -> Result<Frontier, FrontierError> {
    let config = config.within(space, storage.memory)?;
    let size = space.size();
    let per_board = chunk_bytes_per_board(space);
    // Where the layers and the runs go.
    let layers_dir: Option<&Path> = match (&storage.checkpoint, &storage.scratch) {
        (Some(c), _) => Some(&c.dir),
        (None, Some(s)) => Some(s),
        (None, None) => None,
    };
    let runs_dir = storage.scratch.as_deref().or(layers_dir);
    let scratch_fail = |source| FrontierError::Scratch {
        path: runs_dir.map(Path::to_path_buf).unwrap_or_default(),
        source,
    };
    let checkpoint = storage.checkpoint.as_ref().map(|c| {
        (
            c,
            Checkpoint::new(&c.dir, c.run.clone(), size, config.segments),
        )
    });
    let checkpoint_fail = |source| FrontierError::Scratch {
        path: storage
            .checkpoint
            .as_ref()
            .map(|c| c.dir.clone())
            .unwrap_or_default(),
        source,
    };
    if let Some(dir) = runs_dir {
        std::fs::create_dir_all(dir).map_err(scratch_fail)?;
    }
    let sink = |depth: u32, span: u64| -> Result<Sink, FrontierError> {
        match (&checkpoint, layers_dir) {
            (Some((c, _)), _) => Sink::file(
                size,
                span,
                config.segments,
                &c.dir,
                Some(&layer_name(depth)),
            )
            .map_err(checkpoint_fail),
            (None, Some(dir)) => {
                Sink::file(size, span, config.segments, dir, None).map_err(scratch_fail)
            }
            (None, None) => Ok(Sink::memory(size, span, config.segments)),
        }
    };
    let mut resumed = None;
    // The folder's lock, held until the search returns.
    let _held = checkpoint
        .as_ref()
        .map(|(at, ck)| ck.prepare(at.start))
        .transpose()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::WouldBlock => {
                FrontierError::Checkpoint(e.to_string())
            }
            _ => checkpoint_fail(e),
        })?;
    if let Some((at, ck)) = &checkpoint {
        if at.start.resumes() {
            let (loaded, warnings) = ck.load().map_err(|e| match e.kind() {
                std::io::ErrorKind::Other => FrontierError::Checkpoint(e.to_string()),
                _ => checkpoint_fail(e),
            })?;
            for w in &warnings {
                progress.warn(w);
            }
            match loaded {
                Some(r) => resumed = Some(r),
                None => {
                    return Err(FrontierError::NothingToResume(format!(
                        "--resume: {} holds no checkpoint of this search that checks out \
                         (run without --resume to start afresh)",
                        at.dir.display(),
                    )));
                }
            }
        }
    }
    let resumed_from = resumed.as_ref().map(|r| (r.sizes.len() - 1) as u32);
    // A checkpoint deeper than the limit: its figures go past the depth asked for, and the
    // boards at that depth are gone; a shallower result cannot be given from it.
    if let (Some(from), Some((at, _))) = (resumed_from, &checkpoint)
        && from > max_depth
    {
        return Err(FrontierError::NothingToResume(format!(
            "--resume: the checkpoint in {} is after depth {from}, deeper than --max-depth \
             {max_depth}; give --max-depth {from} or more to resume it",
            at.dir.display(),
        )));
    }
    let (mut previous, mut current, mut sizes, mut peak) = match resumed {
        Some(r) => (r.previous, r.current, r.sizes, r.peak_bytes),
        None => {
            let previous = Layer::new(size, config.segments);
            let span = previous.span;
            let mut first = sink(0, span)?;
            let s = (seed.0 / span) as usize;
            for k in 0..config.segments {
                let mut bytes = Vec::new();
                if k == s {
                    encode_sorted(&[seed.0], k as u64 * span, &mut bytes);
                }
                first.push(bytes, u64::from(k == s)).map_err(scratch_fail)?;
            }
            let current = first.finish().map_err(scratch_fail)?;
            let peak = current.bytes_in_memory();
            (previous, current, vec![1u64], peak)
        }
    };
    let plan = Plan {
        space,
        size,
        span: current.span,
        lanes: space.lanes(),
    };
    let mut depth = (sizes.len() - 1) as u32;
    let free_dir = layers_dir.or(runs_dir);
    on_layer(LayerReport {
        depth,
        size: current.len,
        bytes_in_memory: previous.bytes_in_memory() + current.bytes_in_memory(),
        bytes_on_disk: previous.bytes_on_disk() + current.bytes_on_disk(),
        disk_free: free_dir.and_then(disk_free),
        chunks: 0,
        bytes_of_runs: 0,
    });
    let mut stopped = None;
    let mut complete = false;
    let (mut saved_bytes, mut save_time) = (0u64, std::time::Duration::ZERO);
    // With a checkpoint: layer d - 1's file, kept for the older state slot.
    let mut retained: Option<Layer> = None;
    while depth < max_depth {
        // Will the next layer fit? Its size is guessed from the growth of the last one (at
        // least 1.5 times, and never below the current layer's), as bytes of the same density.
        let growth = if previous.len > 0 {
            (current.len as f64 / previous.len as f64).max(1.5)
        } else {
            4.0
        };
        let layer_bytes = current.bytes_in_memory() + current.bytes_on_disk();
        let next_bytes = (layer_bytes as f64 * growth) as u64;
        // The runs hold about the next layer and the layer before again.
        let previous_bytes = previous.bytes_in_memory() + previous.bytes_on_disk();
        let runs_bytes = next_bytes + previous_bytes;
        // The chunk of this layer: the configured one, cut (under a budget) to what is left
        // beside what grows with the layer, so that a budget stops a search only when even a
        // chunk of MIN_CHUNK boards would not fit.
        let mut chunk = config.chunk;
        let least = MIN_CHUNK.min(config.chunk);
        if let Some(memory) = storage.memory {
            // Memory besides the chunk when the layer is cut in chunks of `c`: RESERVE holds
            // the shipped buffers while the runs are few; past that the merge's read buffers
            // (at their least) and the runs' piece lists grow with the runs.
            let besides = |c: usize| {
                let runs = current.len.div_ceil(c as u64) as usize;
                let mut b = RESERVE
                    + buffers.merge_bytes_past_reserve(runs)
                    + pieces_bytes(runs, config.segments);
                if layers_dir.is_none() {
                    b += previous.bytes_in_memory() + current.bytes_in_memory() + next_bytes;
                }
                if runs_dir.is_none() {
                    b += runs_bytes;
                }
                b
            };
            // Smaller chunks make more runs, and more runs leave less for a chunk: a few
            // rounds settle it (each run costs kilobytes, a chunk gigabytes).
            for _ in 0..4 {
                let fits = memory.saturating_sub(besides(chunk)) / per_board;
                chunk = chunk.min(usize::try_from(fits).unwrap_or(usize::MAX));
                if chunk < least {
                    break;
                }
            }
            let need =
                besides(chunk.max(least)) + (chunk.max(least) as u64).min(current.len) * per_board;
            if chunk < least || need > memory {
                stopped = Some(format!(
                    "stopped before depth {}: it would need about {} of memory, over the \
                     budget of {}{}",
                    depth + 1,
                    indicatif::DecimalBytes(need),
                    indicatif::DecimalBytes(memory),
                    if layers_dir.is_none() {
                        " (keep the layers on disk with --scratch DIR)"
                    } else {
                        ""
                    }
                ));
                break;
            }
        }
        if let Some(dir) = free_dir
            && let Some(free) = disk_free(dir)
        {
            let need = (runs_bytes + if layers_dir.is_some() { next_bytes } else { 0 })
                .saturating_mul(11)
                / 10;
            if need > free {
                stopped = Some(format!(
                    "stopped before depth {}: it would need about {} of disk in {}, {} free",
                    depth + 1,
                    indicatif::DecimalBytes(need),
                    dir.display(),
                    indicatif::DecimalBytes(free)
                ));
                break;
            }
        }
        let mut runs = Runs::new(runs_dir).map_err(scratch_fail)?;
        let mut chunks = Chunks::new(&current, depth, chunk, buffers.decode);
        let mut count = 0u64;
        let layers =
            previous.bytes_in_memory() + current.bytes_in_memory() + buffers.decode_bytes();
        while let Some(boards) = chunks.next_chunk()? {
            if progress.stop_requested() {
                return Err(FrontierError::Interrupted);
            }
            runs.add(plan.run(boards)).map_err(scratch_fail)?;
            count += 1;
            peak = peak.max(layers + runs.bytes_in_memory());
        }
        drop(chunks);
        runs.flush().map_err(scratch_fail)?;
        if let Some(w) = &runs.file {
            damage_hook("runs", depth + 1, w.get_ref(), None);
        }
        let older_bytes = previous.bytes_in_memory();
        let next = merge(
            &runs,
            (&mut previous, &current),
            sink(depth + 1, current.span)?,
            buffers,
            layers_dir,
            depth + 1,
        )?;
        if let store::Store::Disk(f) = &next.store {
            damage_hook("layer", depth + 1, &f.file, f.path.as_deref());
        }
        peak = peak.max(
            current.bytes_in_memory()
                + runs.bytes_in_memory()
                + older_bytes.max(next.bytes_in_memory())
                + buffers.merge_bytes(runs.pieces.len()),
        );
        if next.len == 0 {
            complete = true;
            // (An empty layer's file is not kept.)
            next.retire().map_err(checkpoint_fail)?;
            break;
        }
        depth += 1;
        sizes.push(next.len);
        let on_disk = current.bytes_on_disk()
            + next.bytes_on_disk()
            + previous.bytes_on_disk()
            + retained.as_ref().map_or(0, Layer::bytes_on_disk);
        let older = std::mem::replace(&mut previous, current);
        if let Some((_, ck)) = &checkpoint {
            let started = std::time::Instant::now();
            let state_bytes = ck
                .save(&sizes, peak, &previous, &next)
                .map_err(checkpoint_fail)?;
            saved_bytes += next.bytes_on_disk() + state_bytes;
            save_time += next.write_time() + started.elapsed();
            // The older slot names layers d - 1 and d: layer d - 1 stays until the next save,
            // so that a damaged newest slot can fall back to it; layer d - 2 goes.
            if let Some(l) = retained.replace(older) {
                l.retire().map_err(checkpoint_fail)?;
            }
        } else {
            older.retire().map_err(checkpoint_fail)?;
        }
        current = next;
        on_layer(LayerReport {
            depth,
            size: current.len,
            bytes_in_memory: previous.bytes_in_memory() + current.bytes_in_memory(),
            bytes_on_disk: on_disk + runs.bytes_on_disk(),
            disk_free: free_dir.and_then(disk_free),
            chunks: count,
            bytes_of_runs: runs.bytes,
        });
        drop(runs);
        if checkpoint.is_some() {
            crate::durable::fault_injection(u64::from(depth));
        }
    }
    let last = Chunks::new(&current, depth, LAST_LISTED, buffers.decode)
        .next_chunk()?
        .map(<[StateIndex]>::to_vec)
        .unwrap_or_default();
    Ok(Frontier {
        layer_sizes: sizes,
        complete,
        last,
        peak_bytes: peak,
        resumed_from,
        stopped,
        chunk: config.chunk,
        saved_bytes,
        save_time,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::codec::{decode_sorted, read_memory};
    use crate::bfs::{LexSpace, Parity, ParitySpace, StateMarks};
    use crate::board::Board;
    use crate::shape::Shape;

    use crate::published::{A089473, A089484_TO_20 as A089484, A090036};

    fn config(chunk: usize, segments: usize) -> FrontierConfig {
        FrontierConfig { chunk, segments }
    }

    fn run(r: usize, c: usize, d: u32, scratch: Option<&Path>) -> Frontier {
        let shape = Shape::new(r, c).unwrap();
        let space = ParitySpace::new(shape, Parity::Even).unwrap();
        let seed = space.rank(&Board::goal(shape)).unwrap();
        search(&space, seed, d, scratch, |_| {}).unwrap()
    }

    /// The one-machine driver's layers from `goal`, and its last layer.
    fn driver<S: StateSpace>(space: &S, goal: &Board) -> (Vec<u64>, Vec<StateIndex>) {
        let marks = StateMarks::new(space.size());
        let layers = crate::bfs::run(space, &marks, space.rank(goal).unwrap(), &(), |_, _, _| {});
        (layers.sizes, layers.last)
    }

    /// Every configuration of the grid tests gives the driver's layers, complete, and its
    /// last layer.
    fn check_against_driver<S: StateSpace>(space: &S, goal: &Board, what: &str) {
        let (sizes, last) = driver(space, goal);
        let seed = space.rank(goal).unwrap();
        for chunk in [1, 7, 64] {
            for segments in [1, 3, 1024] {
                let f =
                    search_with(space, seed, 1000, None, config(chunk, segments), |_| {}).unwrap();
                let at = format!("{what}, chunk {chunk}, segments {segments}");
                assert_eq!(f.layer_sizes, sizes, "{at}");
                assert!(f.complete, "{at}");
                if last.len() <= LAST_LISTED {
                    assert_eq!(f.last, last, "{at}");
                }
            }
        }
    }

    /// Every grid up to 10 cells, from the standard goal and from a goal with the blank inside
    /// (the other parity class on some shapes), in chunks of 1, 7 and 64 boards and 1, 3 and
    /// 1,024 segments: the one-machine driver's layers and antipodes.
    #[test]
    fn every_small_grid_matches_the_one_machine_driver() {
        let mut shapes = 0;
        for shape in Shape::all_up_to(10).filter(|s| s.is_grid()) {
            let mut goals = vec![Board::goal(shape)];
            let mut inside = Board::goal(shape).permutation().to_vec();
            inside.swap(shape.cells() - 1, shape.cols() + 1);
            goals.push(Board::from_permutation(shape, inside).unwrap());
            for goal in &goals {
                let space = ParitySpace::new(shape, Parity::of(goal)).unwrap();
                check_against_driver(&space, goal, &format!("{shape} from {}", goal.label()));
            }
            shapes += 1;
        }
        // 2x2, 2x3, 3x2, 2x4, 4x2, 3x3, 2x5, 5x2.
        assert_eq!(shapes, 8);
    }

    /// The lexicographic space has no lanes: every move goes through the kernel. One-row
    /// boards (a path of `n` boards from the goal) and 3x3 over all `9!` boards (OEIS
    /// A089473 from the goal's component) match the driver.
    #[test]
    fn lexicographic_space_without_lanes() {
        for n in 2..=8 {
            let shape = Shape::new(1, n).unwrap();
            let space = LexSpace::new(shape).unwrap();
            assert!(space.lanes().is_none());
            let goal = Board::goal(shape);
            check_against_driver(&space, &goal, &format!("{shape}"));
            let f = search(&space, space.rank(&goal).unwrap(), 100, None, |_| {}).unwrap();
            assert_eq!(f.layer_sizes, vec![1; n], "{shape}");
        }
        let shape = Shape::new(3, 3).unwrap();
        let space = LexSpace::new(shape).unwrap();
        let goal = space.rank(&Board::goal(shape)).unwrap();
        for c in [config(1, 3), config(1000, 1024), FrontierConfig::default()] {
            let f = search_with(&space, goal, 100, None, c, |_| {}).unwrap();
            assert_eq!(f.layer_sizes, A089473, "{c:?}");
        }
    }

    /// 4x4 to depth 20: OEIS A089484, d = 0..20; not complete.
    #[test]
    fn four_by_four_to_depth_20_is_a089484() {
        let f = run(4, 4, 20, None);
        assert_eq!(f.layer_sizes, A089484);
        assert!(!f.complete);
        assert_eq!(f.last.len(), LAST_LISTED);
        assert!(f.last.is_sorted());
    }

    /// Many chunks and segments, runs in memory and on disk: 4x4 to depth 20 (OEIS A089484)
    /// in chunks of 10,007 boards and 97 segments, 2x5 to the end (OEIS A090036) in chunks of
    /// 3,001 and 1,024 segments; the reports count the chunks and the runs' bytes, and the
    /// last layer is the same as in one chunk.
    #[test]
    fn many_chunks_and_segments_in_memory_and_on_disk() {
        let four = ParitySpace::new(Shape::new(4, 4).unwrap(), Parity::Even).unwrap();
        let two = ParitySpace::new(Shape::new(2, 5).unwrap(), Parity::Even).unwrap();
        let cases: [(&ParitySpace, u32, FrontierConfig, &[u64], bool); 2] = [
            (&four, 20, config(10_007, 97), &A089484, false),
            (&two, 100, config(3_001, 1024), &A090036, true),
        ];
        for (space, depth, c, expected, complete) in cases {
            let seed = space.rank(&Board::goal(space.shape())).unwrap();
            let one = search(space, seed, depth, None, |_| {}).unwrap();
            for disk in [false, true] {
                let dir = tempfile::tempdir().unwrap();
                let scratch = disk.then(|| dir.path().join("runs"));
                let mut reports = Vec::new();
                let f = search_with(space, seed, depth, scratch.as_deref(), c, |r| {
                    reports.push(r)
                })
                .unwrap();
                let at = format!("{} {c:?} on disk {disk}", space.shape());
                assert_eq!(f.layer_sizes, expected, "{at}");
                assert_eq!(f.complete, complete, "{at}");
                assert_eq!(f.last, one.last, "{at}");
                assert_eq!(reports.len(), expected.len(), "{at}");
                for (d, r) in reports.iter().enumerate() {
                    assert_eq!((r.depth as usize, r.size), (d, expected[d]), "{at}");
                    let chunks = if d == 0 {
                        0
                    } else {
                        expected[d - 1].div_ceil(c.chunk as u64)
                    };
                    assert_eq!(r.chunks, chunks, "{at} depth {d}");
                    // At least a byte per board of the new layer, at most ten per neighbour
                    // (four per board of the layer expanded); none at depth 0.
                    if d == 0 {
                        assert_eq!(r.bytes_of_runs, 0, "{at}");
                    } else {
                        assert!(r.bytes_of_runs >= r.size, "{at} depth {d}");
                        assert!(r.bytes_of_runs <= 40 * expected[d - 1], "{at} depth {d}");
                    }
                    if disk {
                        // The runs and the layers' files, a byte per board of the new layer
                        // at least; nothing of the layers in memory.
                        assert!(
                            r.bytes_on_disk >= r.bytes_of_runs + r.size,
                            "{at} depth {d}"
                        );
                        assert_eq!(r.bytes_in_memory, 0, "{at} depth {d}");
                        assert!(r.disk_free.is_some(), "{at}");
                    } else {
                        assert_eq!(r.bytes_on_disk, 0, "{at} depth {d}");
                        assert!(r.bytes_in_memory >= r.size, "{at} depth {d}");
                    }
                }
                if !disk {
                    // At least a byte per board of the last layer.
                    assert!(f.peak_bytes >= expected[expected.len() - 1], "{at}");
                }
                if disk {
                    // The run and layer files are unnamed: nothing is left in the folder.
                    let left = std::fs::read_dir(scratch.unwrap()).unwrap().count();
                    assert_eq!(left, 0, "{at}");
                }
            }
        }
    }

    /// The smallest buffers (reads of 4 KiB, a decode buffer of 16 bytes, segments spilled
    /// past 64 bytes, two merged at once) give the same layers as the shipped ones, whatever
    /// the chunk and the segments, in memory, on disk and in a checkpoint: 4x4 to depth 20
    /// (OEIS A089484) in 3 segments of about 500,000 boards each at the widest.
    #[test]
    fn fixed_buffers_give_the_same_layers() {
        let space = ParitySpace::new(Shape::new(4, 4).unwrap(), Parity::Even).unwrap();
        let seed = space.rank(&Board::goal(space.shape())).unwrap();
        let tiny = Buffers {
            merge_read: 1,
            out_limit: 64,
            window: 2,
            decode: 16,
        };
        let one = search(&space, seed, 20, None, |_| {}).unwrap();
        for (c, place) in [
            (config(100_003, 3), "memory"),
            (config(100_003, 3), "scratch"),
            (config(1 << 20, 1), "checkpoint"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let storage = Storage {
                scratch: (place == "scratch").then(|| dir.path().join("s")),
                checkpoint: (place == "checkpoint").then(|| CheckpointAt {
                    dir: dir.path().join("c"),
                    start: crate::durable::Start::New,
                    run: RunLabel::default(),
                }),
                memory: None,
            };
            let f =
                search_buffered(&space, seed, 20, &storage, c, &tiny, |_| {}, &NoProgress).unwrap();
            assert_eq!(f.layer_sizes, A089484, "{place}");
            assert_eq!(f.last, one.last, "{place}");
        }
    }

    /// A line `key: N kB` of /proc/self/status, in bytes.
    #[cfg(target_os = "linux")]
    fn status_bytes(key: &str) -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with(key)).unwrap();
        let kb: u64 = line[key.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .unwrap();
        kb << 10
    }

    /// With the layers on disk, memory is bounded by the chunk and the buffers, not by the
    /// size of a layer or of a segment: 4x4 to depth 24 in 2 segments (a segment of layer 24
    /// holds about 10 million boards, 80 MB as indices and 13 MB encoded), in chunks of
    /// 65,536 boards, with reads of 12 KiB, two segments merged at once and 256 KiB of each in
    /// memory. Run in a child process (this test binary, this test alone), whose peak RSS
    /// (`VmHWM`) grows by at most the plan (the chunk at `chunk_bytes_per_board`, the search's
    /// `peak_bytes`: buffers, piece lists) plus 24 MiB (the files' write buffers, the
    /// allocator's and the threads' slack).
    #[test]
    #[cfg(target_os = "linux")]
    fn memory_is_bounded_by_the_chunk_and_buffers_not_by_a_layer() {
        const CHILD: &str = "NPUZZLE_TEST_BOUNDED_CHILD";
        let name =
            "bfs::frontier::tests::memory_is_bounded_by_the_chunk_and_buffers_not_by_a_layer";
        let space = ParitySpace::new(Shape::new(4, 4).unwrap(), Parity::Even).unwrap();
        let c = config(1 << 16, 2);
        if std::env::var_os(CHILD).is_some() {
            let seed = space.rank(&Board::goal(space.shape())).unwrap();
            let dir = tempfile::tempdir().unwrap();
            let storage = Storage {
                scratch: Some(dir.path().to_path_buf()),
                checkpoint: None,
                memory: None,
            };
            let buffers = Buffers {
                merge_read: 4 << 20,
                out_limit: 256 << 10,
                window: 2,
                decode: 64 << 10,
            };
            let before = status_bytes("VmRSS:");
            let f = search_buffered(&space, seed, 24, &storage, c, &buffers, |_| {}, &NoProgress)
                .unwrap();
            let peak = status_bytes("VmHWM:");
            println!(
                "bounded: {before} {peak} {} {:?}",
                f.peak_bytes, f.layer_sizes
            );
            return;
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}");
        let line = stdout
            .lines()
            .find_map(|l| l.split_once("bounded: ").map(|(_, rest)| rest))
            .unwrap_or_else(|| panic!("{stdout}"));
        let mut words = line.splitn(4, ' ');
        let mut next = || words.next().unwrap().parse::<u64>().unwrap();
        let (before, peak, peak_bytes) = (next(), next(), next());
        let mut sizes = A089484.to_vec();
        sizes.extend([3_098_270, 5_802_411, 10_783_780, 19_826_318]);
        assert!(line.ends_with(&format!("{sizes:?}")), "{line}");
        let plan = c.chunk as u64 * chunk_bytes_per_board(&space) + peak_bytes;
        let grew = peak.saturating_sub(before);
        assert!(
            grew <= plan + (24 << 20),
            "peak RSS grew by {grew} bytes, over the plan's {plan} and 24 MiB"
        );
    }

    /// A budget that fits the configured chunk exactly leaves nothing for what grows with a
    /// layer (piece lists, read buffers): the chunk shrinks to make room, and the search goes
    /// on instead of stopping once a layer outgrows one chunk. 4x4 to depth 20, OEIS A089484.
    #[test]
    fn a_budget_cuts_the_chunk_of_a_large_layer_rather_than_stopping() {
        let space = ParitySpace::new(Shape::new(4, 4).unwrap(), Parity::Even).unwrap();
        let seed = space.rank(&Board::goal(space.shape())).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let memory = RESERVE + 2 * MIN_CHUNK as u64 * chunk_bytes_per_board(&space);
        let storage = Storage {
            scratch: Some(dir.path().to_path_buf()),
            checkpoint: None,
            memory: Some(memory),
        };
        let mut chunks = Vec::new();
        let f = search_stored(
            &space,
            seed,
            20,
            &storage,
            FrontierConfig::default(),
            |r| chunks.push(r.chunks),
            &NoProgress,
        )
        .unwrap();
        assert_eq!(f.stopped, None);
        assert_eq!(f.layer_sizes, A089484);
        assert_eq!(f.chunk, 2 * MIN_CHUNK);
        // Layer 19 (859,744 boards) was cut in more chunks than 2 x MIN_CHUNK allows.
        let layer_19 = A089484[19];
        assert!(
            chunks[20] > layer_19.div_ceil(2 * MIN_CHUNK as u64),
            "{chunks:?}"
        );
    }

    /// 3x3 beyond its radius, with the runs on disk: OEIS A089473 and both antipodes.
    #[test]
    fn three_by_three_to_the_end_is_complete() {
        let dir = tempfile::tempdir().unwrap();
        let f = run(3, 3, 40, Some(dir.path()));
        assert!(f.complete);
        assert_eq!(f.layer_sizes, A089473);
        assert_eq!(f.layer_sizes.iter().sum::<u64>(), 181_440);
        assert_eq!(f.last.len(), 2);
        let space = ParitySpace::new(Shape::new(3, 3).unwrap(), Parity::Even).unwrap();
        let mut labels: Vec<String> = f.last.iter().map(|&i| space.unrank(i).label()).collect();
        labels.sort();
        assert_eq!(labels, ["647859321", "867254391"]);
    }

    /// A scratch path that is a file fails with the folder named.
    #[test]
    fn a_scratch_folder_that_cannot_be_made_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        let shape = Shape::new(2, 3).unwrap();
        let space = ParitySpace::new(shape, Parity::Even).unwrap();
        let seed = space.rank(&Board::goal(shape)).unwrap();
        let err = search(&space, seed, 5, Some(&file), |_| {}).unwrap_err();
        let FrontierError::Scratch { path, .. } = &err else {
            panic!("{err}")
        };
        assert_eq!(path, &file);
        assert!(err.to_string().starts_with("folder "), "{err}");
    }

    /// Out-of-range configurations are brought into range, and search with them.
    #[test]
    fn the_configuration_is_clamped() {
        assert_eq!(
            FrontierConfig::default(),
            config(1 << 27, 1024),
            "today's values"
        );
        assert_eq!(
            FrontierConfig::default().clamped(),
            FrontierConfig::default()
        );
        assert_eq!(config(0, 0).clamped(), config(1, 1));
        assert_eq!(
            config(usize::MAX, usize::MAX).clamped(),
            config(MAX_CHUNK, MAX_SEGMENTS)
        );
        assert_eq!(config(5, 1 << 20).clamped(), config(5, 1 << 20));
        assert_eq!(config(5, (1 << 20) + 1).clamped(), config(5, 1 << 20));
        let shape = Shape::new(2, 3).unwrap();
        let space = ParitySpace::new(shape, Parity::Even).unwrap();
        let seed = space.rank(&Board::goal(shape)).unwrap();
        let f = search_with(&space, seed, 100, None, config(0, 0), |_| {}).unwrap();
        let a090034 = [
            1u64, 2, 3, 5, 6, 7, 10, 12, 12, 16, 23, 25, 28, 39, 44, 40, 29, 21, 18, 12, 6, 1,
        ];
        assert_eq!(f.layer_sizes, a090034, "OEIS A090034");
    }

    fn encode(xs: &[u64], base: u64) -> Vec<u8> {
        let mut bytes = Vec::new();
        encode_sorted(xs, base, &mut bytes);
        bytes
    }

    /// The merge of a segment is the union of the runs (with their duplicates) minus layers
    /// `d - 1` and `d`, encoded from the segment's base.
    #[test]
    fn the_merge_gives_the_union_minus_both_layers() {
        let runs = [
            vec![101u64, 104, 109, 130],
            vec![102, 104, 107, 109],
            vec![],
            vec![103, 105],
            vec![108, 130],
        ];
        let older = encode(&[102, 108, 140], 100);
        let newer = encode(&[103, 105, 106], 100);
        let part = |bytes: &[u8], count| Part {
            base: 100,
            end: 200,
            count,
            len: bytes.len() as u64,
        };
        // In memory, and spilled to a file every 2 bytes: the same segment.
        let dir = tempfile::tempdir().unwrap();
        for (limit, spill) in [(usize::MAX, None), (2, Some(dir.path()))] {
            let mut out = Output::new(limit, spill);
            let (mut old, mut new) = (
                read_memory(&older, part(&older, 3)),
                read_memory(&newer, part(&newer, 3)),
            );
            merge_segment(
                runs.iter().cloned().map(Vec::into_iter).collect(),
                &mut old,
                &mut new,
                100,
                &mut out,
            );
            old.finish().unwrap();
            new.finish().unwrap();
            let segment = out.finish().unwrap();
            assert_eq!(segment.count, 5);
            assert_eq!(segment.spill.is_some(), spill.is_some());
            let mut sink = Sink::memory(1000, 100, 10);
            sink.push_segment(segment).unwrap();
            let layer = sink.finish().unwrap();
            let store::Store::Memory(bytes) = &layer.store else {
                panic!("in memory")
            };
            assert_eq!(bytes[0], encode(&[101, 104, 107, 109, 130], 100));
        }
        // Nothing to merge: an empty segment.
        let none: Vec<std::vec::IntoIter<u64>> = Vec::new();
        let mut out = Output::new(usize::MAX, None);
        merge_segment(
            none,
            &mut read_memory(&older, part(&older, 3)),
            &mut read_memory(&[], part(&[], 0)),
            100,
            &mut out,
        );
        let segment = out.finish().unwrap();
        assert_eq!((segment.count, segment.bytes.len()), (0, 0));
    }

    /// The tournament yields every value of every source, ascending, for 0 to 9 sources
    /// (empty ones, duplicates within and between sources, a source longer than the rest).
    #[test]
    fn the_tournament_merges_sorted_sources() {
        for k in 0..10u64 {
            let sources: Vec<Vec<u64>> = (0..k)
                .map(|s| {
                    let len = if s == 2 { 0 } else { 3 + 5 * (s % 3) };
                    let mut v: Vec<u64> = (0..len).map(|j| (j * (s + 3) + s * 7) % 41).collect();
                    v.sort_unstable();
                    v
                })
                .collect();
            let mut expected: Vec<u64> = sources.iter().flatten().copied().collect();
            expected.sort_unstable();
            let merged: Vec<u64> =
                Tournament::new(sources.into_iter().map(Vec::into_iter).collect()).collect();
            assert_eq!(merged, expected, "{k} sources");
        }
        let t = Tournament::new(vec![vec![5u64, 5, 9].into_iter(), vec![1, 5].into_iter()]);
        assert_eq!(t.collect::<Vec<_>>(), [1, 5, 5, 5, 9]);
    }

    /// The cursor reads what the codec writes, gaps of 1 to 10 bytes included, one piece or
    /// several in a row with their own bases; `push_gap` writes what the codec writes.
    #[test]
    fn the_cursor_reads_the_codec() {
        let xs = [
            7u64,
            8,
            200,
            1 << 14,
            (1 << 21) + 3,
            1 << 35,
            1 << 56,
            (1 << 63) + 1,
            u64::MAX - 1,
        ];
        for base in [0u64, 5, 7] {
            let bytes = encode(&xs, base);
            let mut decoded = Vec::new();
            decode_sorted(&bytes, base, |x| decoded.push(x)).unwrap();
            assert_eq!(decoded, xs);
            let part = Part {
                base,
                end: u64::MAX,
                count: xs.len() as u64,
                len: bytes.len() as u64,
            };
            assert_eq!(read_memory(&bytes, part).collect::<Vec<_>>(), xs);
        }
        let empty = Part {
            base: 9,
            end: 10,
            count: 0,
            len: 0,
        };
        assert_eq!(read_memory(&[], empty).next(), None);
        // The writer of runs and layers writes the codec's bytes.
        let mut written = Vec::new();
        let mut previous = 0;
        for &x in &xs {
            push_gap(&mut written, x - previous);
            previous = x;
        }
        assert_eq!(written, encode(&xs, 0));
        // Two pieces, the second from its own base, in bytes that start at byte 1000.
        let (a, b) = (encode(&[10, 12], 0), encode(&[101, 150], 100));
        let bytes = [a.clone(), b.clone()].concat();
        let pieces = [
            Piece {
                segment: 0,
                base: 0,
                start: 1000,
                len: a.len() as u64,
                count: 2,
            },
            Piece {
                segment: 1,
                base: 100,
                start: 1000 + a.len() as u64,
                len: b.len() as u64,
                count: 2,
            },
        ];
        let parts = PieceParts {
            pieces: pieces.iter(),
            span: 100,
        };
        let mut reader = Reader::new(Source::Memory(&bytes), parts.clone(), 0);
        assert_eq!(reader.by_ref().collect::<Vec<_>>(), [10, 12, 101, 150]);
        reader.finish().unwrap();
        // The same from a file, 16 bytes at a time, with its CRC.
        let mut file = tempfile::tempfile().unwrap();
        let padded = [vec![7u8; 1000], bytes.clone(), vec![9u8; 5]].concat();
        file.write_all(&padded).unwrap();
        let source = Source::File {
            file: &file,
            from: 1000,
            to: 1000 + bytes.len() as u64,
            crc: crc32fast::hash(&bytes),
        };
        let mut reader = Reader::new(source, parts, 16);
        assert_eq!(reader.by_ref().collect::<Vec<_>>(), [10, 12, 101, 150]);
        reader.finish().unwrap();
    }

    /// The counting pass puts every value in its bucket, the buckets cut the index into
    /// ascending ranges, and they share a skewed sample about equally (where buckets of equal
    /// index ranges would put nearly all of it in one); the bucket count fits the space.
    #[test]
    fn buckets_are_ranges_balanced_by_the_sample() {
        let size = 1u64 << 40;
        // 90 % of the values in the lowest 1/64 of the index (where 64 buckets of equal ranges
        // would put them all in the first), the rest spread out.
        let values: Vec<u64> = (0..100_000u64)
            .map(|i| match i % 10 {
                9 => i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % size,
                _ => i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % (size >> 6),
            })
            .collect();
        let mut sample: Vec<u64> = values.iter().step_by(7).copied().collect();
        let splits = Splits::new(&mut sample, 64, size);
        assert!(splits.len() > 32, "{} buckets", splits.len());
        assert!(splits.starts.is_sorted() && splits.starts[0] == 0);
        let (sorted, starts) = sort_into_buckets(values.clone(), &splits);
        assert_eq!(starts.len(), splits.len() + 1);
        assert_eq!(starts[splits.len()] as usize, values.len());
        for b in 0..splits.len() {
            let (lo, hi) = splits.range(b);
            let bucket = &sorted[starts[b] as usize..starts[b + 1] as usize];
            assert!(bucket.iter().all(|&x| lo <= x && x < hi), "bucket {b}");
            assert!(
                bucket.len() < 4 * values.len() / 64,
                "bucket {b}: {}",
                bucket.len()
            );
        }
        let (mut a, mut b) = (sorted, values);
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        // One bucket: unchanged; a tiny space: every index its own fine bin.
        let one = Splits::new(&mut [], 1, size);
        assert_eq!(sort_into_buckets(vec![3, 1, 2], &one).0, [3, 1, 2]);
        let tiny = Splits::new(&mut [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 4, 12);
        assert_eq!(tiny.starts, [0, 3, 6, 9]);
        assert_eq!((tiny.of(2), tiny.of(3), tiny.of(11)), (0, 1, 3));
        assert_eq!(tiny.range(3), (9, u64::MAX));
        // Buckets: 1 for small chunks, 1,024 at most, never past the index's bits.
        assert_eq!(bucket_count(100, 1 << 40), 1);
        assert_eq!(bucket_count(1 << 27, 1 << 40), 1024);
        assert_eq!(bucket_count(1 << 27, 12), 16);
        assert_eq!(bucket_count(1 << 27, 1), 1);
    }

    /// A chunk's run holds exactly its boards' distinct neighbours, lane moves included,
    /// sorted, each piece within its bucket and segment, whether the chunk is sorted in one
    /// bucket or many.
    #[test]
    fn a_run_is_the_sorted_distinct_neighbours() {
        let shape = Shape::new(3, 3).unwrap();
        let space = ParitySpace::new(shape, Parity::Even).unwrap();
        let boards: Vec<StateIndex> = (0..space.size()).step_by(3).map(StateIndex).collect();
        let mut expected = Vec::new();
        space.expand(&boards, &mut expected);
        let mut expected: Vec<u64> = expected
            .into_iter()
            .filter(|&i| i != StateIndex::NONE)
            .map(|i| i.0)
            .collect();
        expected.sort_unstable();
        expected.dedup();
        for segments in [1u64, 3, 1024] {
            let plan = Plan {
                space: &space,
                size: space.size(),
                span: space.size().div_ceil(segments),
                lanes: space.lanes(),
            };
            for cut in [boards.len(), 1000] {
                let mut all = Vec::new();
                let mut pieces = 0;
                for part in boards.chunks(cut) {
                    let buckets = plan.run(part);
                    for (bytes, ps) in &buckets {
                        for p in ps {
                            let from = p.start as usize;
                            let part = Part {
                                base: p.base,
                                end: (u64::from(p.segment) + 1) * plan.span,
                                count: p.count,
                                len: p.len,
                            };
                            let mut reader = read_memory(&bytes[from..from + p.len as usize], part);
                            let xs: Vec<u64> = reader.by_ref().collect();
                            reader.finish().unwrap();
                            assert!(!xs.is_empty());
                            assert!(xs.iter().all(|&x| x / plan.span == u64::from(p.segment)));
                            assert!(xs.is_sorted());
                            pieces += 1;
                            all.extend(xs);
                        }
                    }
                }
                if cut == boards.len() {
                    assert!(pieces > 1 || segments == 1);
                    assert_eq!(all, expected, "segments {segments}");
                } else {
                    all.sort_unstable();
                    all.dedup();
                    assert_eq!(all, expected, "segments {segments}, chunks of {cut}");
                }
            }
        }
    }
}
