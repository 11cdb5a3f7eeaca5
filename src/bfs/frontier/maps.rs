//! Layer `d + 1` from layers `d - 1` and `d` without sorting: segment maps, the hash-based
//! delayed duplicate detection of Korf ("Linear-time disk-based implicit graph search", JACM
//! 2008) as Tarakanov's solvers (lightln2/SlidingTilesSolver, lightln2/PuzzleSearch) run it.
//!
//! The index is cut into segments of `span` indices. Where the space aligns them on a prefix
//! of its boards ([`StateSpace::within_segments`]: in [`ParitySpace`]'s layout, the first `k`
//! tiles of the tile sequence), most moves stay in their segment: a lane move always, a move
//! off the lanes unless it moves a tile of the prefix. A board whose every move off the
//! lanes stays in its segment (its blank's cell says so) is *within*; the others *cross*.
//! A layer is built in two passes:
//!
//! 1. **Scatter.** Every segment of layer `d` is read, and the crossing boards are expanded
//!    ([`StateSpace::expand_across`]); each neighbour goes, as its offset in its segment
//!    (`u32`), to its segment's incoming list ([`Incoming`]), or, for a segment another
//!    process owns, into a message to it (see [`parse`]).
//! 2. **Maps.** Each segment `t` (in parallel, each task with a map of its own, reused):
//!    its incoming neighbours, the lane moves of its boards of layer `d` and the moves of its
//!    within boards go into a bit map of the segment; the boards of layer `d - 1` (and of
//!    layer `d`, where the graph is not bipartite: the multi-tile metric) in the segment are
//!    cleared from it; the bits left, read in order, are the segment of layer `d + 1`,
//!    gap-coded as it goes. A segment whose neighbours are few against its span
//!    ([`SPARSE`](super::SPARSE)) is built without a map: its moves off the lanes
//!    radix-sorted, merged with its lane moves minus the same layers in one pass.
//!
//! Each board of layer `d` is expanded once (its crossing moves in the scatter, its other
//! moves in the maps), each segment of every live layer decoded at most twice, and nothing
//! is sorted but a sparse segment's neighbours. A space whose segments are not aligned
//! (any cut of any space is correct) has no within boards: every move goes through the
//! incoming lists.
//!
//! [`ParitySpace`]: crate::bfs::ParitySpace

use std::sync::Mutex;

use rayon::prelude::*;
use strength_reduce::StrengthReducedU64;

use super::config::{Buffers, MAX_SPAN};
use super::disk::{Aligned, BLOCK};
use super::exchange::{Deal, Exchange};
use super::store::Layer;
use super::{FrontierError, read_error};
use crate::bfs::codec::{Part, RadixKey, ReadError, Reader, push_gap, radix_sort};
use crate::bfs::{Lanes, StateIndex, StateSpace, drop_none};

/// Boards handed to the kernel at once.
const BATCH: usize = 4096;
/// Neighbours a scatter task keeps for one segment before it hands them on.
const FLUSH: usize = 1 << 14;

/// The bytes of the header of a message's part: segment `u32`, count `u32` (little-endian),
/// then `count` offsets `u32`.
const HEADER: usize = 8;

/// The neighbours sent to each segment this process owns, as offsets in the segment, in the
/// order they came: in memory, or, with a folder ([`Incoming::spilled`]), in memory up to a
/// share of [`SPILL_BYTES`] per segment and then appended to one unnamed file there as
/// blocks, each with its CRC-32, read back and checked when the segment is built, and then
/// given back to the file system ([`super::disk::punch`]), so that the lists shrink as the
/// new layer grows.
pub(super) struct Incoming {
    parts: Vec<Mutex<Part32>>,
    spill: Option<Spill>,
    /// A list passing this many `u32`s goes to the file (with one).
    spill_at: usize,
}

/// One segment's incoming list: its tail in memory, and its blocks in the file.
#[derive(Default)]
struct Part32 {
    tail: Vec<u32>,
    /// Each block in the file.
    blocks: Vec<ListBlock>,
    /// `u32`s in all.
    len: u64,
}

/// A block of an incoming list in the spill file: at `at`, `bytes` bytes (before the padding
/// of direct I/O) holding `count` `u32`s, their CRC-32 `crc`.
#[derive(Debug, Clone, Copy)]
struct ListBlock {
    at: u64,
    bytes: u32,
    count: u32,
    crc: u32,
}

/// The file the incoming lists spill to.
struct Spill {
    file: std::fs::File,
    dir: std::path::PathBuf,
    /// Bytes written.
    end: std::sync::atomic::AtomicU64,
    /// Written and read with direct I/O, each block padded to [`BLOCK`] bytes: where the
    /// file system allows it and a block is at least [`DIRECT_LIST`] bytes.
    direct: bool,
    /// Each `u32` is an offset of its own (not half of a wide one): a block is written as
    /// its offsets sorted, without repeats, as LEB128 gaps ([`Spill::write`]).
    gaps: bool,
    /// Bytes given back to the file system once read ([`super::disk::punch`]).
    freed: std::sync::atomic::AtomicU64,
}

impl Spill {
    /// Appends `items` to the file as one block, recorded in `blocks` with its CRC-32:
    /// little-endian `u32`s, or with [`Spill::gaps`] the distinct offsets ascending
    /// ([`radix_sort`]) as LEB128 gaps from 0 ([`push_gap`]; the order of a segment's incoming
    /// neighbours, and their repeats, change nothing of the layer built from them). A block of
    /// 65,536 offsets spread over a segment of 4x4 (3.8 billion indices) takes about 2.8 bytes
    /// an offset instead of 4.
    fn write(&self, blocks: &mut Vec<ListBlock>, items: &[u32]) -> std::io::Result<()> {
        let (block, len, count) = match self.gaps {
            true => GAPS.with_borrow_mut(|(sorted, scratch, coded)| {
                let most = items.iter().copied().max().unwrap_or(0);
                radix_sort(&[items], 32 - most.leading_zeros(), sorted, scratch);
                sorted.dedup();
                coded.clear();
                let mut previous = 0;
                for &o in sorted.iter() {
                    push_gap(coded, u64::from(o - previous));
                    previous = o;
                }
                let mut block = Aligned::new(coded.len());
                block.bytes_mut()[..coded.len()].copy_from_slice(coded);
                (block, coded.len(), sorted.len())
            }),
            false => {
                let mut block = Aligned::new(4 * items.len());
                for (b, o) in block.bytes_mut().chunks_exact_mut(4).zip(items) {
                    b.copy_from_slice(&o.to_le_bytes());
                }
                (block, 4 * items.len(), items.len())
            }
        };
        let extent = self.extent(len);
        let at = self
            .end
            .fetch_add(extent as u64, std::sync::atomic::Ordering::Relaxed);
        super::disk::write_at(&self.file, &block.bytes()[..extent], at)?;
        blocks.push(ListBlock {
            at,
            bytes: len as u32,
            count: count as u32,
            crc: crc32fast::hash(&block.bytes()[..len]),
        });
        Ok(())
    }

    /// The bytes a block of `len` bytes takes in the file: whole [`BLOCK`]s with direct
    /// I/O (its padding never read as neighbours), else `len`.
    fn extent(&self, len: usize) -> usize {
        match self.direct {
            true => len.div_ceil(BLOCK) * BLOCK,
            false => len,
        }
    }
}

thread_local! {
    /// [`Spill::write`]'s buffers, reused by each thread: the sorted offsets, the sort's
    /// scratch, the gaps coded.
    static GAPS: std::cell::RefCell<(Vec<u32>, Vec<u32>, Vec<u8>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// Appends to `out` the offsets of a block [`Spill::write`] gap-coded: LEB128 gaps from 0.
///
/// # Errors
/// A gap cut short, or an offset past `u32::MAX` (a damaged block).
fn decode_gaps(bytes: &[u8], out: &mut Vec<u32>) -> Result<(), &'static str> {
    let (mut at, mut previous) = (0, 0u64);
    while at < bytes.len() {
        let (mut gap, mut shift) = (0u64, 0);
        loop {
            let Some(&b) = bytes.get(at) else {
                return Err("a gap cut short");
            };
            at += 1;
            gap |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                break;
            }
            shift += 7;
            if shift > 28 {
                return Err("a gap past 32 bits");
            }
        }
        previous += gap;
        if previous > u64::from(u32::MAX) {
            return Err("an offset past 32 bits");
        }
        out.push(previous as u32);
    }
    Ok(())
}

/// The least bytes of a block of the incoming lists written with direct I/O (its padding at
/// most 1/16 of it); smaller ones go through the page cache.
const DIRECT_LIST: usize = 16 * BLOCK;

/// Bytes of the incoming lists a search keeps in memory at least, all segments together, when
/// they spill to a file: each segment's tail goes to the file once it passes its share.
pub const SPILL_BYTES: u64 = 64 << 20;

/// The least share of a segment's tail: a block of 256 KiB. Blocks written with direct I/O
/// are written synchronously, and smaller ones through the page cache cost more system time
/// than they save (4x4 to depth 32, 2,730 segments: shares of 24 KiB through the cache
/// 327.5 s of CPU, 64 KiB blocks 324.8 s and 186 s of wall against 171 s, 256 KiB blocks
/// 320.0 s, system time 34.8 s -> 21.1 s, the same wall).
const LIST_BLOCK: u64 = 4 * DIRECT_LIST as u64;

/// The most bytes [`LIST_BLOCK`]s take, all segments together: past it (over 4,096
/// segments, as 4x4 cut by 4 tiles across processes) the shares are smaller.
const LIST_CAP: u64 = 1 << 30;

/// Bytes of the incoming lists of `segments` segments kept in memory at most when they spill
/// to a file: [`SPILL_BYTES`], or a [`LIST_BLOCK`] a segment (at most [`LIST_CAP`]) where
/// that is more.
pub fn spill_memory(segments: usize) -> u64 {
    SPILL_BYTES.max((segments.max(1) as u64 * LIST_BLOCK).min(LIST_CAP))
}

/// The incoming lists' share of [`spill_memory`] ([`SPILL_BYTES`] or a block a segment); in
/// builds with debug assertions or the `test-hooks` feature, `NPUZZLE_TEST_SPILL_BYTES` when
/// set (for the tests of the spill file: a small share makes the smallest boards spill).
fn spill_bytes(segments: usize) -> u64 {
    #[cfg(any(debug_assertions, feature = "test-hooks"))]
    if let Some(b) = std::env::var("NPUZZLE_TEST_SPILL_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return b;
    }
    spill_memory(segments)
}

impl Incoming {
    pub(super) fn new(segments: usize) -> Incoming {
        Incoming {
            parts: (0..segments)
                .map(|_| Mutex::new(Part32::default()))
                .collect(),
            spill: None,
            spill_at: usize::MAX,
        }
    }

    /// Lists that spill to an unnamed file in `dir` ([`SPILL_BYTES`] in memory); `words`:
    /// the `u32`s an offset takes ([`Maps::words`]: with 1, the blocks are gap-coded).
    ///
    /// # Errors
    /// When the file cannot be made.
    pub(super) fn spilled(
        segments: usize,
        dir: &std::path::Path,
        words: u64,
    ) -> std::io::Result<Incoming> {
        let file = tempfile::tempfile_in(dir)?;
        let share = (spill_bytes(segments) / 4 / segments.max(1) as u64).clamp(16, 1 << 20);
        let direct =
            4 * share as usize >= DIRECT_LIST && super::disk::set_direct(&file, true).is_ok();
        Ok(Incoming {
            spill: Some(Spill {
                file,
                dir: dir.to_path_buf(),
                end: std::sync::atomic::AtomicU64::new(0),
                direct,
                gaps: words == 1,
                freed: std::sync::atomic::AtomicU64::new(0),
            }),
            spill_at: share as usize,
            ..Incoming::new(segments)
        })
    }

    fn lock(&self, segment: usize) -> std::sync::MutexGuard<'_, Part32> {
        self.parts[segment]
            .lock()
            .expect("no task panics holding it")
    }

    /// Appends `offsets` to `segment`'s list. With a spill file, a tail never holds more
    /// than its share: one that `offsets` would pass goes to the file first, as a block, and
    /// `offsets` too when they alone fill a share.
    ///
    /// # Errors
    /// When the file cannot be written (named by [`Incoming::fail`]).
    fn add(&self, segment: usize, offsets: &[u32]) -> std::io::Result<()> {
        let mut part = self.lock(segment);
        part.len += offsets.len() as u64;
        let Some(spill) = &self.spill else {
            part.tail.extend_from_slice(offsets);
            return Ok(());
        };
        let part = &mut *part;
        if part.tail.len() + offsets.len() > self.spill_at && !part.tail.is_empty() {
            spill.write(&mut part.blocks, &part.tail)?;
            part.tail.clear();
        }
        if offsets.len() >= self.spill_at {
            return spill.write(&mut part.blocks, offsets);
        }
        // Grown by doubling up to the share, never past it.
        let need = part.tail.len() + offsets.len();
        if need > part.tail.capacity() {
            let room = need.max(2 * part.tail.capacity()).min(self.spill_at);
            part.tail.reserve_exact(room - part.tail.len());
        }
        part.tail.extend_from_slice(offsets);
        if part.tail.len() == self.spill_at {
            spill.write(&mut part.blocks, &part.tail)?;
            part.tail.clear();
        }
        Ok(())
    }

    /// An error of the spill file, naming its folder.
    pub(super) fn fail(&self, e: std::io::Error) -> FrontierError {
        FrontierError::Scratch {
            path: self
                .spill
                .as_ref()
                .map(|s| s.dir.clone())
                .unwrap_or_default(),
            source: e,
        }
    }

    /// `segment`'s whole list (its blocks read back, checked, then its tail), leaving it
    /// empty; each block read is given back to the file system where it allows it.
    ///
    /// # Errors
    /// [`FrontierError::Read`] when a block does not match its CRC-32 or cannot be read.
    pub(super) fn take(&self, segment: usize, depth: u32) -> Result<Vec<u32>, FrontierError> {
        let part = std::mem::take(&mut *self.lock(segment));
        let Some(spill) = &self.spill else {
            return Ok(part.tail);
        };
        let mut all = Vec::with_capacity(part.len as usize);
        // One buffer for every block, of the largest.
        let most = part.blocks.iter().map(|b| b.bytes).max().unwrap_or(0);
        let mut block = Aligned::new(most as usize);
        for &ListBlock {
            at,
            bytes: len,
            count,
            crc,
        } in &part.blocks
        {
            let len = len as usize;
            let fault = |what: String| {
                FrontierError::Read(format!(
                    "the incoming neighbours of depth {depth} (an unnamed scratch file in {}), \
                     segment {segment}: {what}",
                    spill.dir.display()
                ))
            };
            super::disk::read_at(&spill.file, &mut block.bytes_mut()[..spill.extent(len)], at)
                .map_err(|e| fault(e.to_string()))?;
            let bytes = &block.bytes()[..len];
            if crc32fast::hash(bytes) != crc {
                return Err(fault("its CRC-32 does not match".into()));
            }
            let had = all.len();
            match spill.gaps {
                true => decode_gaps(bytes, &mut all).map_err(|e| fault(e.into()))?,
                false => all.extend(
                    bytes
                        .chunks_exact(4)
                        .map(|c| u32::from_le_bytes(c.try_into().expect("four"))),
                ),
            }
            if all.len() - had != count as usize {
                return Err(fault(format!(
                    "{} offsets read where {count} were written",
                    all.len() - had
                )));
            }
            let extent = spill.extent(len) as u64;
            if super::disk::punch(&spill.file, at, extent) {
                spill
                    .freed
                    .fetch_add(extent, std::sync::atomic::Ordering::Relaxed);
            }
        }
        all.extend_from_slice(&part.tail);
        Ok(all)
    }

    /// Bytes held in memory.
    pub(super) fn bytes(&self) -> u64 {
        self.parts
            .iter()
            .map(|p| 4 * p.lock().expect("no task panics holding it").tail.capacity() as u64)
            .sum()
    }

    /// Bytes written to the spill file.
    pub(super) fn bytes_on_disk(&self) -> u64 {
        self.spill
            .as_ref()
            .map_or(0, |s| s.end.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Bytes of the spill file still held on disk: those written but for the blocks read and
    /// given back.
    pub(super) fn bytes_held_on_disk(&self) -> u64 {
        self.spill.as_ref().map_or(0, |s| {
            s.end.load(std::sync::atomic::Ordering::Relaxed)
                - s.freed.load(std::sync::atomic::Ordering::Relaxed)
        })
    }

    /// The spill file, for the tests' damage hook.
    pub(super) fn file(&self) -> Option<&std::fs::File> {
        self.spill.as_ref().map(|s| &s.file)
    }

    /// `u32`s held, in memory and in the file.
    pub(super) fn len(&self) -> u64 {
        self.parts
            .iter()
            .map(|p| p.lock().expect("no task panics holding it").len)
            .sum()
    }
}

/// Scatter tasks' lists of neighbours, one per segment, kept from task to task.
type Lists = Mutex<Vec<Vec<Vec<u32>>>>;

/// An offset left out of a sorted segment (no offset reaches it: a segment spans fewer
/// than 2^64 indices).
const GONE: u64 = u64::MAX;

/// A task's buffers, reused from segment to segment: the map (or, for a sparse segment of
/// more than [`MAX_SPAN`] indices, the sorted neighbours), the neighbours before sorting and
/// the sort's scratch (as `u64`s, or as `u32` offsets in a segment of at most [`MAX_SPAN`]),
/// the lane moves.
#[derive(Default)]
pub(super) struct Work {
    map: Vec<u64>,
    keys: Vec<u64>,
    scratch: Vec<u64>,
    right: Vec<u64>,
    left: Vec<u64>,
    offsets: Vec<u32>,
    sorted: Vec<u32>,
    spare: Vec<u32>,
    /// Every bit of `map` is clear (its last segment read out whole: each word cleared as
    /// it was read, so that the next segment needs no pass to clear it).
    clean: bool,
}

impl Work {
    /// Bytes held.
    pub(super) fn bytes(&self) -> u64 {
        let lists = [
            &self.map,
            &self.keys,
            &self.scratch,
            &self.right,
            &self.left,
        ];
        let narrow = [&self.offsets, &self.sorted, &self.spare];
        8 * lists.iter().map(|l| l.capacity() as u64).sum::<u64>()
            + 4 * narrow.iter().map(|l| l.capacity() as u64).sum::<u64>()
    }
}

/// What building one layer cost.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Built {
    /// Neighbours that went through the incoming lists (this process's and the messages').
    pub crossing: u64,
    /// Bytes of the incoming lists at their fullest.
    pub incoming_bytes: u64,
    /// Bytes of the incoming lists written to their file (0 in memory).
    pub incoming_on_disk: u64,
    /// Most bytes of the incoming lists' file and of the new layer on disk at once: the
    /// lists' blocks are given back as their segments are built, while the new layer's
    /// segments are written.
    pub disk_peak: u64,
    /// Segments built in a map.
    pub dense: u64,
    /// Segments built by a sort.
    pub sparse: u64,
    /// Most bytes held at once while it was built: the layers in memory, the incoming lists,
    /// the tasks' maps and buffers, the window of segments being written.
    pub held: u64,
    /// Bytes of messages sent and received.
    pub sent: u64,
    pub received: u64,
}

/// How the layers of a space are built: its cut into segments, and which boards are within.
pub(super) struct Maps<'a, S> {
    space: &'a S,
    size: u64,
    span: u64,
    segments: usize,
    /// The lanes, when no lane move leaves a segment; else `None` (every move from the
    /// kernel's [`StateSpace::expand`]).
    lanes: Option<Lanes>,
    /// Bit `i % period` set: board `i` is within its segment.
    within: u64,
    /// The lanes' period (1 without lanes), its division by multiplications (a board's
    /// residue is asked for every board read).
    period: StrengthReducedU64,
    /// Layer `d + 1` has no board of layer `d` (every move changes side).
    bipartite: bool,
    /// Bytes of the decode buffer of a segment on disk.
    decode: usize,
    /// The density below which a segment is sorted ([`SPARSE`](super::SPARSE)).
    sparse: u64,
    /// Segments span more than [`MAX_SPAN`] indices: an offset is two `u32`s (high, low),
    /// and every segment is built by a sort.
    wide: bool,
    /// Which process owns which segment.
    deal: Deal,
}

impl<'a, S: StateSpace> Maps<'a, S> {
    /// The builder of layers of `deal.segments()` segments of `span` indices of `space`,
    /// dealt to processes by `deal`.
    pub(super) fn new(space: &'a S, span: u64, deal: Deal, buffers: &Buffers) -> Self {
        let segments = deal.segments();
        let lanes = space.lanes().filter(|l| {
            // A lane move never passes a multiple of the period: none leaves a segment whose
            // span is a multiple of it.
            span % l.period == 0 && l.right >> (l.period - 1) & 1 == 0
        });
        let within = match lanes {
            Some(_) => space.within_segments(span),
            None => 0,
        };
        Maps {
            space,
            size: space.size(),
            span,
            segments,
            lanes,
            within,
            period: StrengthReducedU64::new(lanes.map_or(1, |l| l.period)),
            bipartite: space.sides().is_some(),
            decode: buffers.decode,
            sparse: buffers.sparse,
            wide: span > MAX_SPAN,
            deal,
        }
    }

    /// Which process owns which segment.
    pub(super) fn deal(&self) -> &Deal {
        &self.deal
    }

    /// Bytes of the maps the builder may hold at once: one per thread (at most one per
    /// segment), of a bit per index of a segment.
    pub(super) fn map_bytes(&self) -> u64 {
        super::config::map_bytes(self.space, self.segments)
    }

    /// `u32`s an offset takes in the incoming lists: 2 for segments of more than
    /// [`MAX_SPAN`] indices, else 1.
    pub(super) fn words(&self) -> u64 {
        if self.wide { 2 } else { 1 }
    }

    /// Indices in segment `t`.
    fn length(&self, t: usize) -> u64 {
        let base = t as u64 * self.span;
        self.span.min(self.size.saturating_sub(base))
    }

    /// Board `x`'s class modulo the lanes' period.
    #[inline]
    fn residue(&self, x: u64) -> u64 {
        x % self.period
    }

    #[inline]
    fn is_within(&self, x: u64) -> bool {
        self.within >> self.residue(x) & 1 == 1
    }

    /// The neighbours of `batch` the search does not take from the lanes.
    fn neighbours(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
        out.clear();
        match self.lanes {
            Some(_) => self.space.expand_across(batch, out),
            None => {
                self.space.expand(batch, out);
                drop_none(out, 0);
            }
        }
    }

    /// The scatter of layer `current` (of depth `depth`): the neighbours of its crossing
    /// boards into `incoming` (this process's segments) or sent to their owners, and what
    /// arrives from the others into `incoming` too. After each window of segments `tick` is
    /// told the segments and boards done and whether a message went or came (and may stop
    /// the search with its error).
    ///
    /// # Errors
    /// [`FrontierError::Read`] for a segment that does not check out,
    /// [`FrontierError::Interrupted`], [`FrontierError::Peer`] from the exchange.
    pub(super) fn scatter(
        &self,
        current: &Layer,
        depth: u32,
        incoming: &Incoming,
        exchange: &mut dyn Exchange,
        mut tick: impl FnMut(usize, u64, bool) -> Result<(), FrontierError>,
    ) -> Result<Built, FrontierError> {
        let (me, processes) = (exchange.process(), self.deal.processes());
        let sources: Vec<usize> = (0..self.segments)
            .filter(|&s| current.counts[s] > 0)
            .collect();
        let outgoing: Vec<Mutex<Vec<u8>>> =
            (0..processes).map(|_| Mutex::new(Vec::new())).collect();
        let mut built = Built::default();
        let lists: Lists = Mutex::new(Vec::new());
        // Windows between which the messages go and a stop is asked for.
        let window = match processes {
            1 => 64 * rayon::current_num_threads().max(1),
            _ => 4 * rayon::current_num_threads().max(1),
        };
        let layout = (self.segments, self.span, self.size);
        let mut received = 0u64;
        let (mut done, mut boards) = (0, 0u64);
        if let Some(first) = sources.chunks(window).next() {
            current.prefetch(first[0]..first[first.len() - 1] + 1);
        }
        let mut windows = sources.chunks(window).peekable();
        while let Some(sources) = windows.next() {
            if let Some(ahead) = windows.peek() {
                current.prefetch(ahead[0]..ahead[ahead.len() - 1] + 1);
            }
            let heard = received;
            let counts: Vec<u64> = sources
                .par_iter()
                .map(|&s| {
                    let who = (me, &self.deal);
                    let into = (incoming, &outgoing[..], &lists);
                    self.scatter_segment(current, depth, s, into, who)
                })
                .collect::<Result<_, _>>()?;
            built.crossing += counts.iter().sum::<u64>();
            done += sources.len();
            boards += sources.iter().map(|&s| current.counts[s]).sum::<u64>();
            let sent = built.sent;
            let mut arrived = |m: &[u8]| -> Result<(), FrontierError> {
                received += m.len() as u64;
                parse(m, layout, (me, &self.deal), incoming)
            };
            for (p, out) in outgoing.iter().enumerate() {
                let message = std::mem::take(&mut *out.lock().expect("no task panics holding it"));
                if !message.is_empty() {
                    built.sent += message.len() as u64;
                    exchange.send(p, message, &mut arrived)?;
                }
            }
            exchange.take(&mut arrived)?;
            tick(done, boards, received > heard || built.sent > sent)?;
        }
        if processes > 1 {
            exchange.end_layer(&mut |m: &[u8]| {
                received += m.len() as u64;
                parse(m, layout, (me, &self.deal), incoming)
            })?;
        }
        built.received = received;
        built.incoming_bytes = incoming.bytes();
        Ok(built)
    }

    /// [`Maps::scatter`] of segment `s`: the neighbours of its crossing boards handed on, as
    /// many as there were.
    fn scatter_segment(
        &self,
        current: &Layer,
        depth: u32,
        s: usize,
        (incoming, outgoing, lists): (&Incoming, &[Mutex<Vec<u8>>], &Lists),
        (me, deal): (usize, &Deal),
    ) -> Result<u64, FrontierError> {
        // A list per segment, kept from task to task (empty between them).
        let mut local = lists
            .lock()
            .expect("no task panics holding it")
            .pop()
            .unwrap_or_default();
        local.resize_with(self.segments, Vec::new);
        let mut touched: Vec<usize> = Vec::new();
        let mut batch: Vec<StateIndex> = Vec::with_capacity(BATCH);
        let mut out: Vec<StateIndex> = Vec::with_capacity(4 * BATCH);
        let mut count = 0u64;
        let mut failed: Option<std::io::Error> = None;
        let mut hand_on = |t: usize, offsets: &mut Vec<u32>| {
            let owner = deal.owner(t);
            if owner == me {
                if let Err(e) = incoming.add(t, offsets) {
                    failed.get_or_insert(e);
                }
            } else {
                let mut message = outgoing[owner].lock().expect("no task panics holding it");
                message.extend_from_slice(&(t as u32).to_le_bytes());
                message.extend_from_slice(&(offsets.len() as u32).to_le_bytes());
                for o in offsets.iter() {
                    message.extend_from_slice(&o.to_le_bytes());
                }
            }
            offsets.clear();
        };
        let mut route = |batch: &mut Vec<StateIndex>, local: &mut Vec<Vec<u32>>| {
            self.neighbours(batch, &mut out);
            batch.clear();
            count += out.len() as u64;
            for &StateIndex(n) in &out {
                let t = (n / self.span) as usize;
                let list = &mut local[t];
                if list.is_empty() && list.capacity() == 0 {
                    touched.push(t);
                }
                let o = n - t as u64 * self.span;
                if self.wide {
                    list.push((o >> 32) as u32);
                }
                list.push(o as u32);
                if list.len() >= FLUSH {
                    hand_on(t, list);
                }
            }
        };
        let mut reader = current.reader(s, self.decode);
        reader.each(|x| {
            if !self.is_within(x) {
                batch.push(StateIndex(x));
                if batch.len() == BATCH {
                    route(&mut batch, &mut local);
                }
            }
        });
        reader
            .finish()
            .map_err(|e| read_error(&format!("layer {depth}"), &current.place(), s, e))?;
        if !batch.is_empty() {
            route(&mut batch, &mut local);
        }
        for t in touched {
            if !local[t].is_empty() {
                hand_on(t, &mut local[t]);
            }
            local[t] = Vec::new();
        }
        lists.lock().expect("no task panics holding it").push(local);
        match failed {
            Some(e) => Err(incoming.fail(e)),
            None => Ok(count),
        }
    }

    /// Segment `t` of layer `depth + 1`: its bytes and boards, from its incoming neighbours
    /// and its boards of layer `d` (`current`), minus its boards of `previous` (and of
    /// `current` where the graph is not bipartite); `map` is the task's map, reused.
    pub(super) fn build(
        &self,
        t: usize,
        depth: u32,
        (previous, current): (&Layer, &Layer),
        incoming: Vec<u32>,
        work: &mut Work,
    ) -> Result<(Vec<u8>, u64, bool), FrontierError> {
        // Nothing comes into a segment without boards of layer d and without incoming
        // neighbours (most of a deep board's segments in its first layers).
        if incoming.is_empty() && current.counts[t] == 0 {
            return Ok((Vec::new(), 0, false));
        }
        let length = self.length(t);
        let expected = incoming.len() as u64 + 3 * current.counts[t];
        let dense = !self.wide && expected.saturating_mul(self.sparse) >= length;
        let mut bytes = Vec::new();
        let count;
        if dense {
            let map = &mut work.map;
            let words = length.div_ceil(64) as usize;
            reserve_huge(map, words, 0);
            if !std::mem::take(&mut work.clean) {
                map.clear();
            }
            // (Past its words, a clean map is clear too.)
            map.resize(words, 0);
            for &o in &incoming {
                map[(o >> 6) as usize] |= 1 << (o & 63);
            }
            drop(incoming);
            self.expand_here(t, depth, current, |o, _| {
                map[(o >> 6) as usize] |= 1 << (o & 63);
            })?;
            let mut clear = |o: u64| map[(o >> 6) as usize] &= !(1u64 << (o & 63));
            if depth > 0 {
                read_offsets(previous, depth - 1, t, self.decode, &mut clear)?;
            }
            if !self.bipartite {
                read_offsets(current, depth, t, self.decode, &mut clear)?;
            }
            // One pass over the map: read out, counted, and cleared where a bit was set (a
            // word already clear is not written). Two bytes reserved a neighbour (the new
            // boards are fewer), at most the map's bytes, and what is left given back.
            bytes.reserve(2 * expected.min(length / 16) as usize);
            let (mut last, mut set) = (0u64, 0u64);
            for (w, slot) in map.iter_mut().enumerate() {
                let mut word = *slot;
                if word == 0 {
                    continue;
                }
                *slot = 0;
                set += u64::from(word.count_ones());
                while word != 0 {
                    let o = (w as u64) << 6 | u64::from(word.trailing_zeros());
                    push_gap(&mut bytes, o - last);
                    last = o;
                    word &= word - 1;
                }
            }
            work.clean = true;
            bytes.shrink_to_fit();
            count = set;
        } else {
            let Work {
                map,
                keys,
                scratch,
                right,
                left,
                offsets,
                sorted,
                spare,
                clean,
            } = work;
            right.clear();
            left.clear();
            let bits = 64 - (length.max(2) - 1).leading_zeros();
            let base = t as u64 * self.span;
            let mut minus = [
                (depth > 0).then(|| Minus::new(previous, t, base, self.decode)),
                (!self.bipartite).then(|| Minus::new(current, t, base, self.decode)),
            ];
            // The moves off the lanes radix-sorted (as u32 offsets where they fit: half the
            // bytes a pass), merged with the lane moves minus the layers in `minus`.
            count = match self.wide {
                true => {
                    // (The sorted keys go to the map.)
                    *clean = false;
                    keys.clear();
                    keys.extend(
                        incoming
                            .chunks_exact(2)
                            .map(|p| u64::from(p[0]) << 32 | u64::from(p[1])),
                    );
                    drop(incoming);
                    self.expand_here(t, depth, current, |o, lane| match lane {
                        None => keys.push(o),
                        Some(true) => right.push(o),
                        Some(false) => left.push(o),
                    })?;
                    radix_sort(std::slice::from_ref(keys), bits, map, scratch);
                    merge(map, (right, left), &mut minus, &mut bytes)
                }
                false => {
                    offsets.clear();
                    self.expand_here(t, depth, current, |o, lane| match lane {
                        None => offsets.push(o as u32),
                        Some(true) => right.push(o),
                        Some(false) => left.push(o),
                    })?;
                    let parts = [incoming, std::mem::take(offsets)];
                    let len = parts[0].len() + parts[1].len();
                    reserve_huge(sorted, len, len / 4);
                    reserve_huge(spare, len, len / 4);
                    radix_sort(&parts, bits, sorted, spare);
                    let [_, taken] = parts;
                    *offsets = taken;
                    merge(sorted, (right, left), &mut minus, &mut bytes)
                }
            };
            for (m, d) in minus.into_iter().zip([depth.wrapping_sub(1), depth]) {
                if let Some(m) = m {
                    m.finish().map_err(|e| {
                        let layer = if d == depth { current } else { previous };
                        read_error(&format!("layer {d}"), &layer.place(), t, e)
                    })?;
                }
            }
        }
        Ok((bytes, count, dense))
    }

    /// The moves of segment `t`'s boards of layer `depth` (`current`) that stay in it, as
    /// offsets in the segment, to `f`: every move off the lanes of its within boards (with
    /// `None`), the lane moves of every board (with `Some(true)` for a move to the next index,
    /// `Some(false)` to the one before; these in order).
    fn expand_here(
        &self,
        t: usize,
        depth: u32,
        current: &Layer,
        mut f: impl FnMut(u64, Option<bool>),
    ) -> Result<(), FrontierError> {
        let base = t as u64 * self.span;
        let mut batch: Vec<StateIndex> = Vec::with_capacity(BATCH);
        let mut out: Vec<StateIndex> = Vec::with_capacity(4 * BATCH);
        let mut reader = current.reader(t, self.decode);
        let mut fault = None;
        reader.each(|x| {
            if fault.is_some() {
                return;
            }
            let r = self.residue(x);
            if let Some(lanes) = self.lanes {
                let (next, before) = lanes.lane_moves_of(r);
                if before && x > base {
                    f(x - 1 - base, Some(false));
                }
                if next && x + 1 < self.size {
                    f(x + 1 - base, Some(true));
                }
            }
            if self.within >> r & 1 == 1 {
                batch.push(StateIndex(x));
                if batch.len() == BATCH
                    && let Err(e) = self.within_moves(t, &mut batch, &mut out, &mut f)
                {
                    fault = Some(e);
                }
            }
        });
        if let Some(e) = fault {
            return Err(e);
        }
        reader
            .finish()
            .map_err(|e| read_error(&format!("layer {depth}"), &current.place(), t, e))?;
        self.within_moves(t, &mut batch, &mut out, &mut f)
    }

    /// The moves off the lanes of `batch` (within boards of segment `t`), as offsets in the
    /// segment, to `f` (with `None`); `batch` emptied.
    ///
    /// # Errors
    /// [`FrontierError::Read`] when a neighbour is outside the segment: the layout's
    /// [`StateSpace::within_segments`] is wrong.
    fn within_moves(
        &self,
        t: usize,
        batch: &mut Vec<StateIndex>,
        out: &mut Vec<StateIndex>,
        f: &mut impl FnMut(u64, Option<bool>),
    ) -> Result<(), FrontierError> {
        if batch.is_empty() {
            return Ok(());
        }
        let base = t as u64 * self.span;
        let end = base + self.length(t);
        self.neighbours(batch, out);
        batch.clear();
        for &StateIndex(n) in out.iter() {
            if n < base || n >= end {
                return Err(FrontierError::Read(format!(
                    "the layout's segments of {} boards are not what the kernel does: a \
                     neighbour {n} of a board of segment {t} is outside it",
                    self.span
                )));
            }
            f(n - base, None);
        }
        Ok(())
    }
}

/// Makes room for `len` items in `v`, in a new allocation (of `len + slack` items, its items
/// dropped) when it has less, whose pages the kernel is asked to back with huge pages
/// (`MADV_HUGEPAGE`, for systems that leave transparent huge pages to `madvise`). A map's
/// bits are set, and a radix sort's keys scattered, all over buffers of tens or hundreds of
/// MB: with 4 KiB pages nearly every such write misses the TLB.
fn reserve_huge<T>(v: &mut Vec<T>, len: usize, slack: usize) {
    if v.capacity() >= len {
        return;
    }
    *v = Vec::new();
    let mut fresh = Vec::with_capacity(len + slack);
    #[cfg(target_os = "linux")]
    {
        let page = BLOCK;
        let start = fresh.as_mut_ptr() as usize;
        let end = start + fresh.capacity() * std::mem::size_of::<T>();
        let first = start.next_multiple_of(page);
        if end > first + page {
            // SAFETY: advice on whole pages of this vector's own allocation, none of them
            // touched yet; it changes how they are backed, never their contents.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    (end - first) / page * page,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    *v = fresh;
}

/// Each board of `layer`'s segment `t` (of `depth`), as its offset in the segment, to `f`,
/// read through a buffer of `decode` bytes and checked.
///
/// # Errors
/// [`FrontierError::Read`] when the segment does not check out.
fn read_offsets(
    layer: &Layer,
    depth: u32,
    t: usize,
    decode: usize,
    mut f: impl FnMut(u64),
) -> Result<(), FrontierError> {
    let mut reader = layer.reader(t, decode);
    let base = t as u64 * layer.span;
    reader.each(|x| f(x - base));
    reader
        .finish()
        .map_err(|e| read_error(&format!("layer {depth}"), &layer.place(), t, e))
}

/// The union of `sorted` (ascending, repeats allowed) and the lane moves `right` and `left`
/// (each ascending, without repeats), minus the boards of the layers in `minus`, gap-coded
/// onto `bytes` in one pass; how many. `right` and `left` are left ended by [`GONE`].
fn merge<K: RadixKey>(
    sorted: &[K],
    (right, left): (&mut Vec<u64>, &mut Vec<u64>),
    minus: &mut [Option<Minus<'_>>; 2],
    bytes: &mut Vec<u8>,
) -> u64 {
    right.push(GONE);
    left.push(GONE);
    let at = |i: usize| sorted.get(i).map_or(GONE, |k| k.value());
    let (mut i, mut j, mut k) = (0, 0, 0);
    let (mut last, mut count) = (0u64, 0u64);
    bytes.reserve(2 * sorted.len());
    loop {
        let x = at(i).min(right[j]).min(left[k]);
        if x == GONE {
            break;
        }
        while at(i) == x {
            i += 1;
        }
        j += usize::from(right[j] == x);
        k += usize::from(left[k] == x);
        if minus.iter_mut().flatten().any(|m| m.holds(x)) {
            continue;
        }
        push_gap(bytes, x - last);
        last = x;
        count += 1;
    }
    count
}

/// A segment of a layer read in step with an ascending walk, to leave its boards out.
struct Minus<'a> {
    reader: Reader<'a, std::iter::Once<Part>>,
    base: u64,
    /// The next offset of the layer's segment, or [`GONE`] past the last.
    next: u64,
}

impl<'a> Minus<'a> {
    fn new(layer: &'a Layer, t: usize, base: u64, decode: usize) -> Minus<'a> {
        let mut reader = layer.reader(t, decode);
        let next = reader.next().map_or(GONE, |x| x - base);
        Minus { reader, base, next }
    }

    /// Whether the segment holds offset `x` (the calls' `x` ascending).
    #[inline]
    fn holds(&mut self, x: u64) -> bool {
        while self.next < x {
            self.next = self.reader.next().map_or(GONE, |y| y - self.base);
        }
        self.next == x
    }

    /// The reader's verdict on the whole segment.
    fn finish(self) -> Result<(), ReadError> {
        self.reader.finish()
    }
}

/// Adds a message from another process to `incoming`: parts, each a segment (`u32`) this
/// process owns, a count (`u32`, at least 1) and that many `u32`s: the offsets, each below the
/// segment's span (`layout`: segments, span, boards), one `u32` each, or two (high, low) for
/// segments of more than [`MAX_SPAN`] indices.
///
/// # Errors
/// [`FrontierError::Peer`] naming the field that cannot be right; nothing of the message is
/// added then.
pub(super) fn parse(
    message: &[u8],
    (segments, span, size): (usize, u64, u64),
    (me, deal): (usize, &Deal),
    incoming: &Incoming,
) -> Result<(), FrontierError> {
    let bad = |what: &str| {
        FrontierError::Peer(format!(
            "a corrupt message arrived ({what}); the search stops"
        ))
    };
    let u32_at = |at: usize| u32::from_le_bytes(message[at..at + 4].try_into().expect("four"));
    // Checked whole before anything is added.
    let mut parts = Vec::new();
    let mut at = 0;
    while at < message.len() {
        if message.len() - at < HEADER {
            return Err(bad("a part's header cut short"));
        }
        let (segment, count) = (u32_at(at) as usize, u32_at(at + 4) as usize);
        at += HEADER;
        if segment >= segments || deal.owner(segment) != me {
            return Err(bad(&format!("segment {segment}, not this process's")));
        }
        let length = span.min(size.saturating_sub(segment as u64 * span));
        let Some(body) = count
            .checked_mul(4)
            .and_then(|n| message.get(at..at.checked_add(n)?))
        else {
            return Err(bad("a part's offsets cut short"));
        };
        if count == 0 {
            return Err(bad("an empty part"));
        }
        let offsets: Vec<u32> = body
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("four")))
            .collect();
        let wide = span > MAX_SPAN;
        if wide && count % 2 == 1 {
            return Err(bad("an offset cut short"));
        }
        let too_far = match wide {
            true => offsets
                .chunks_exact(2)
                .map(|p| u64::from(p[0]) << 32 | u64::from(p[1]))
                .find(|&o| o >= length),
            false => offsets.iter().map(|&o| u64::from(o)).find(|&o| o >= length),
        };
        if let Some(o) = too_far {
            return Err(bad(&format!("offset {o} in segment {segment} of {length}")));
        }
        parts.push((segment, offsets));
        at += 4 * count;
    }
    for (segment, offsets) in parts {
        incoming
            .add(segment, &offsets)
            .map_err(|e| incoming.fail(e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gap-coded block decodes to its offsets; a cut or overlong one is an error.
    #[test]
    fn gap_coded_blocks_decode_checked() {
        let mut out = vec![9];
        decode_gaps(&[3, 0x80, 0x01, 0], &mut out).unwrap();
        assert_eq!(out, [9, 3, 131, 131]);
        assert_eq!(decode_gaps(&[5, 0x80], &mut out), Err("a gap cut short"));
        let big = [0xff, 0xff, 0xff, 0xff, 0x0f];
        decode_gaps(&big, &mut out).unwrap();
        assert_eq!(out.last(), Some(&u32::MAX));
        let past = [0xff, 0xff, 0xff, 0xff, 0x0f, 1];
        assert_eq!(decode_gaps(&past, &mut out), Err("an offset past 32 bits"));
        let long = [0x80, 0x80, 0x80, 0x80, 0x80, 1];
        assert_eq!(decode_gaps(&long, &mut out), Err("a gap past 32 bits"));
    }

    /// The incoming lists read back what was added, from memory and from their file (blocks
    /// past [`DIRECT_LIST`] bytes written with direct I/O where the file system allows it,
    /// padded to whole blocks): in order as `u32`s (wide offsets, two words each), or, for
    /// offsets of one word, each block's distinct offsets ascending in fewer bytes; the blocks
    /// read are given back to the file system; and a damaged block is an error, not other
    /// neighbours.
    #[test]
    fn the_incoming_lists_read_back_what_was_added() {
        for words in [1, 2] {
            let dir = tempfile::tempdir().unwrap();
            let segments = 3;
            let incoming = Incoming::spilled(segments, dir.path(), words).unwrap();
            let mut added: Vec<Vec<u32>> = vec![Vec::new(); segments];
            let mut x = 12345u32;
            for round in 0..40 {
                for (t, list) in added.iter_mut().enumerate() {
                    let n = 1000 + 37_000 * ((round + t) % 5);
                    let mut part: Vec<u32> = (0..n)
                        .map(|_| {
                            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                            x >> 3
                        })
                        .collect();
                    // Repeats, as two boards of a layer with one neighbour give.
                    part.copy_within(100..200, 0);
                    incoming.add(t, &part).unwrap();
                    list.extend_from_slice(&part);
                }
            }
            let written = incoming.bytes_on_disk();
            assert!(written > 0, "some blocks went to the file");
            let len: u64 = added.iter().map(|l| l.len() as u64).sum();
            assert_eq!(incoming.len(), len);
            let in_file = |t: usize| {
                4 * incoming
                    .lock(t)
                    .blocks
                    .iter()
                    .map(|b| b.count as u64)
                    .sum::<u64>()
            };
            let raw: u64 = (0..segments).map(in_file).sum();
            match words {
                // Offsets below 2^29, 65,536 or more a block: gaps of 2 bytes or fewer,
                // each block a few padded to a direct block.
                1 => assert!(written < raw * 3 / 5, "{written} bytes for {raw} raw"),
                _ => assert!(written >= raw, "{written} bytes for {raw}"),
            }
            #[cfg(unix)]
            let allocated = || {
                use std::os::unix::fs::MetadataExt;
                let file = &incoming.spill.as_ref().unwrap().file;
                512 * file.metadata().unwrap().blocks()
            };
            #[cfg(not(unix))]
            let allocated = || 0u64;
            let before = allocated();
            assert_eq!(incoming.bytes_held_on_disk(), written);
            for (t, list) in added.iter().enumerate().skip(1) {
                let mut got = incoming.take(t, 5).unwrap();
                if words == 1 {
                    let mut want = list.clone();
                    got.sort_unstable();
                    got.dedup();
                    want.sort_unstable();
                    want.dedup();
                    assert!(got == want, "segment {t}");
                } else {
                    assert!(got == *list, "segment {t}");
                }
            }
            // Segments 1 and 2 read: their blocks given back (where the file system does it),
            // segment 0's kept (read below).
            let held = incoming.bytes_held_on_disk();
            if held < written {
                let freed = written - held;
                assert!(freed > written / 2, "{freed} bytes freed");
                assert!(
                    allocated() + freed * 9 / 10 <= before,
                    "{} bytes allocated, {before} before, {freed} said freed",
                    allocated()
                );
            } else {
                eprintln!("skipped: the file system of the temporary folder does not punch holes");
            }
            // A bit flipped in segment 0's first block (its first bytes, never padding).
            let spill = incoming.spill.as_ref().unwrap();
            let at = incoming.lock(0).blocks[0].at;
            super::super::disk::set_direct(&spill.file, false).ok();
            let mut byte = [0u8];
            super::super::disk::read_at(&spill.file, &mut byte, at + 10).unwrap();
            byte[0] ^= 4;
            super::super::disk::write_at(&spill.file, &byte, at + 10).unwrap();
            let e = incoming.take(0, 5).unwrap_err().to_string();
            assert!(e.contains("CRC-32") && e.contains("segment 0"), "{e}");
        }
    }
}
