//! How a search cuts its work and what it holds besides its layers: the chunk and the
//! segments ([`FrontierConfig`]), the fixed sizes of its buffers, and the bytes a memory
//! budget plans for (a chunk's boards at [`chunk_bytes_per_board`], and [`RESERVE`]).

use std::ops::Range;

use super::FrontierError;
use super::maps::MAX_SPAN;
use crate::bfs::StateSpace;

/// Segments per layer (by index range) for a space whose index has no prefix cut
/// ([`crate::bfs::StateSpace::prefix_spans`]), when [`FrontierConfig::segments`] is 0.
pub const SEGMENTS: usize = 1024;
/// The fewest segments of the prefix cut [`segments_for`] chooses, when the space has one
/// with segments of at most [`MAX_SPAN`] indices: enough to keep every thread busy.
pub const LEAST_PREFIX_SEGMENTS: u64 = 64;
/// Boards of the current layer expanded at once in [`FrontierConfig::default`].
pub const CHUNK: usize = 1 << 27;
/// Most segments per layer [`FrontierConfig::clamped`] allows (2^20).
pub const MAX_SEGMENTS: usize = 1 << 20;
/// Most boards per chunk [`FrontierConfig::clamped`] allows (2^31).
pub const MAX_CHUNK: usize = 1 << 31;
/// Runs merged at once in [`FrontierConfig::default`]: the merge's 64 MiB of read buffers
/// over `threads x (128 + 2)` sources give each source 252 KiB on 2 threads and at least
/// 64 KiB up to 7 threads (4 KiB was the floor before: past about 8,000 runs); 4x4 whole
/// (about 7,500 runs a layer at the default chunk) takes one pass more than a single merge
/// (128^2 = 16,384 runs before a third).
pub const FAN_IN: usize = 128;
/// Fewest runs merged at once [`FrontierConfig::clamped`] allows: a merge of one run would
/// only copy it.
pub const MIN_FAN_IN: usize = 2;
/// Most runs merged at once [`FrontierConfig::clamped`] allows (2^16).
pub const MAX_FAN_IN: usize = 1 << 16;

/// How a [`search_with`] cuts its work: how many boards it expands at once and how many index
/// ranges a layer is cut into. Neither changes the result, only time and memory.
///
/// [`search_with`]: super::search_with
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrontierConfig {
    /// Boards of the current layer expanded at once; each chunk gives one run. Default
    /// [`CHUNK`] (2^27): its boards and their neighbours take up to about 2.5 GiB on 4x4.
    pub chunk: usize,
    /// Segments per layer, by index range (the unit of the parallel merge). Default
    /// [`SEGMENTS`] (1,024).
    pub segments: usize,
    /// Most runs merged at once (the fan-in): when `fan_in` runs of one level exist they are
    /// merged into one run of the next level (runs of chunks are level 0), and before the
    /// last merge the lowest runs are merged until at most `fan_in` are left, so that the
    /// merge's read buffers and the runs' piece lists do not grow with the number of chunks
    /// (see the module documentation). Default [`FAN_IN`] (128).
    pub fan_in: usize,
}

impl Default for FrontierConfig {
    fn default() -> Self {
        FrontierConfig {
            chunk: CHUNK,
            segments: 0,
            fan_in: FAN_IN,
        }
    }
}

/// The segments a layer of `space` is cut into for `segments` segments asked (0: the
/// space's own cut). Asked for 0: the coarsest prefix cut ([`StateSpace::prefix_spans`]) of
/// at least [`LEAST_PREFIX_SEGMENTS`] segments of at most [`MAX_SPAN`] indices each (a map
/// of a segment is then at most 512 MiB), else the finest prefix cut of at most
/// [`MAX_SEGMENTS`], else [`SEGMENTS`]. Always at most [`MAX_SEGMENTS`] and at least 1.
pub fn segments_for<S: StateSpace>(space: &S, segments: usize) -> usize {
    let size = space.size();
    if segments > 0 {
        return segments.clamp(1, MAX_SEGMENTS);
    }
    let spans = space.prefix_spans();
    let count = |span: u64| size.div_ceil(span);
    let fits = |&&span: &&u64| count(span) <= MAX_SEGMENTS as u64;
    spans
        .iter()
        .find(|&&span| span <= MAX_SPAN && count(span) >= LEAST_PREFIX_SEGMENTS)
        .or_else(|| spans.iter().rev().find(fits))
        .map_or(SEGMENTS, |&span| count(span) as usize)
        .clamp(1, MAX_SEGMENTS)
}

impl FrontierConfig {
    /// The configuration [`search_stored`] runs for `space` under the memory budget `memory`
    /// (bytes, if any): clamped, its chunk cut to what fits beside [`RESERVE`] at
    /// [`chunk_bytes_per_board`]. One machine's: [`FrontierConfig::within_holding`] with
    /// nothing held of other processes' messages.
    ///
    /// # Errors
    /// [`FrontierError::Budget`] when the budget holds fewer than [`MIN_CHUNK`] boards.
    ///
    /// [`search_stored`]: super::search_stored
    pub fn within<S: StateSpace>(
        self,
        space: &S,
        memory: Option<u64>,
    ) -> Result<FrontierConfig, FrontierError> {
        self.within_holding(space, memory, 0)
    }

    /// The configuration a process of a search across processes runs for `space` under the
    /// memory budget `memory` (bytes, if any) while it holds up to `held` bytes of the other
    /// processes' messages ([`Exchange::held`], [`crate::bfs::cluster::frontier_held`]; 0 on
    /// one machine): clamped, its chunk cut to what fits beside [`RESERVE`] and `held` at
    /// [`chunk_bytes_per_board`]. The check a search makes before it starts, and the one
    /// `analyze --plan` and the command line make before any connection.
    ///
    /// # Errors
    /// [`FrontierError::Budget`] when the budget holds fewer than [`MIN_CHUNK`] boards beside
    /// them: one line with the least budget that does.
    ///
    /// [`Exchange::held`]: super::Exchange::held
    pub fn within_holding<S: StateSpace>(
        self,
        space: &S,
        memory: Option<u64>,
        held: u64,
    ) -> Result<FrontierConfig, FrontierError> {
        let mut config = self.clamped();
        config.segments = segments_for(space, config.segments);
        let Some(memory) = memory else {
            return Ok(config);
        };
        let maps = map_bytes(space, config.segments);
        let need = RESERVE.saturating_add(held).saturating_add(maps);
        if memory < need {
            let budget = match crate::frontend::current() {
                crate::frontend::FrontEnd::Cli => {
                    crate::frontend::arg(crate::frontend::Input::Memory, "")
                }
                crate::frontend::FrontEnd::Python => "the memory available,".to_string(),
            };
            let messages = if held > 0 {
                format!(
                    " and the {} of other processes' messages each process holds",
                    indicatif::DecimalBytes(held)
                )
            } else {
                String::new()
            };
            return Err(FrontierError::Budget(format!(
                "{budget} {} is too small: the segments' maps ({} threads, {} each) take {} \
                 with the search's buffers{messages}; give at least that",
                indicatif::DecimalBytes(memory),
                rayon::current_num_threads().max(1),
                indicatif::DecimalBytes(maps / rayon::current_num_threads().max(1) as u64),
                indicatif::DecimalBytes(need)
            )));
        }
        Ok(config)
    }

    /// The same configuration in range: `chunk` in `1..=`[`MAX_CHUNK`], `segments` in
    /// `1..=`[`MAX_SEGMENTS`], `fan_in` in [`MIN_FAN_IN`]`..=`[`MAX_FAN_IN`]. [`search_with`]
    /// clamps what it is given.
    ///
    /// [`search_with`]: super::search_with
    pub fn clamped(self) -> Self {
        FrontierConfig {
            chunk: self.chunk.clamp(1, MAX_CHUNK),
            segments: self.segments.min(MAX_SEGMENTS),
            fan_in: self.fan_in.clamp(MIN_FAN_IN, MAX_FAN_IN),
        }
    }
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

/// Bytes of the maps of a search of `space` in `segments` segments: one per thread (at most
/// one per segment), a bit per index of a segment; none for segments of more than
/// [`MAX_SPAN`] indices (built by a sort).
pub fn map_bytes<S: StateSpace>(space: &S, segments: usize) -> u64 {
    let span = space.size().div_ceil(segments.max(1) as u64);
    if span > MAX_SPAN {
        return 0;
    }
    let maps = rayon::current_num_threads().clamp(1, segments.max(1)) as u64;
    maps * span.div_ceil(64) * 8
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

/// The sizes of the search's buffers besides a chunk's boards and neighbours: fixed, whatever
/// the size of a layer or of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Buffers {
    /// Bytes of the merge's read buffers, all its tasks together: each task reads its
    /// segment's runs and the same segment of layers `d - 1` and `d` through a buffer each of
    /// this divided by the tasks and the sources, between [`MIN_READ`] and [`MAX_READ`].
    pub(super) merge_read: u64,
    /// Bytes of a segment of the next layer kept in memory as it is merged; past that they go
    /// to a scratch file of the segment's own (with a folder for the layers).
    pub(super) out_limit: usize,
    /// Segments merged at once (in parallel), then written out in order.
    pub(super) window: usize,
    /// Bytes of the buffer a segment of the layer being expanded is decoded through.
    pub(super) decode: usize,
}

/// Smallest read buffer of the merge.
const MIN_READ: usize = 4 << 10;
/// Largest read buffer of the merge.
const MAX_READ: usize = 1 << 20;

impl Buffers {
    /// What a search uses: 64 MiB of read buffers for the merge, 16 segments merged at once
    /// with up to 8 MiB each in memory, 1 MiB to decode a segment (per thread): about 200 MiB
    /// of [`RESERVE`] while the runs are at most 64 MiB / ([`MIN_READ`] x threads) - 2.
    pub(super) const SHIPPED: Buffers = Buffers {
        merge_read: 64 << 20,
        out_limit: 8 << 20,
        window: 16,
        decode: 1 << 20,
    };

    /// The windows of a merge of `segments` segments: [`Buffers::window`] segments at a time
    /// (at least one), in order.
    pub(super) fn windows(&self, segments: usize) -> impl Iterator<Item = Range<usize>> {
        let window = self.window.max(1);
        (0..segments)
            .step_by(window)
            .map(move |first| first..(first + window).min(segments))
    }

    /// Bytes of each read buffer of a merge of `runs` runs.
    pub(super) fn read_buffer(&self, runs: usize) -> usize {
        let readers = rayon::current_num_threads().max(1) as u64 * (runs as u64 + 2);
        usize::try_from(self.merge_read / readers)
            .unwrap_or(MAX_READ)
            .clamp(MIN_READ, MAX_READ)
    }

    /// Bytes the merge of `runs` runs holds at most besides the layers: every task's read
    /// buffers and the window's segments in memory.
    pub(super) fn merge_bytes(&self, runs: usize) -> u64 {
        let readers = rayon::current_num_threads().max(1) as u64 * (runs as u64 + 2);
        readers * self.read_buffer(runs) as u64 + self.window as u64 * self.out_limit as u64
    }

    /// What [`Buffers::merge_bytes`] takes past the part of [`RESERVE`] set aside for the
    /// merge (the shipped read buffers, 64 MiB, and window, 128 MiB): the read buffers at their
    /// least once the runs are many.
    pub(super) fn merge_bytes_past_reserve(&self, runs: usize) -> u64 {
        let shipped = Buffers::SHIPPED;
        let reserved = shipped.merge_read + shipped.window as u64 * shipped.out_limit as u64;
        self.merge_bytes(runs).saturating_sub(reserved)
    }

    /// Bytes the expansion of a layer holds besides the chunk: a decode buffer per thread.
    pub(super) fn decode_bytes(&self) -> u64 {
        rayon::current_num_threads().max(1) as u64 * self.decode as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{Parity, ParitySpace};
    use crate::shape::Shape;

    /// Issue 73: the least budget [`FrontierConfig::within_holding`] accepts is a chunk of
    /// [`MIN_CHUNK`] boards, [`RESERVE`] and the bytes held of other processes' messages (one
    /// machine's [`FrontierConfig::within`] holds none); no budget is no cut.
    #[test]
    fn the_budget_counts_the_messages_held() {
        let space = ParitySpace::new(Shape::new(3, 3).unwrap(), Parity::Even).unwrap();
        let least = RESERVE + MIN_CHUNK as u64 * chunk_bytes_per_board(&space);
        let held = 64 << 20;
        let config = FrontierConfig::default();
        assert_eq!(least, 271_056_896);
        assert_eq!(config.within(&space, Some(least)).unwrap().chunk, MIN_CHUNK);
        let refused = config.within_holding(&space, Some(least + held - 1), held);
        assert!(
            matches!(&refused, Err(FrontierError::Budget(m))
                if m.contains("takes 338.17 MB") && m.contains("67.11 MB of other processes'")),
            "{refused:?}"
        );
        let fitted = config.within_holding(&space, Some(least + held), held);
        assert_eq!(fitted.unwrap().chunk, MIN_CHUNK);
        assert_eq!(config.within_holding(&space, None, held).unwrap(), config);
    }
}
