//! How a search cuts its work and what it holds besides its layers: the segments
//! ([`FrontierConfig`], [`segments_for`]), the maps ([`map_bytes`]) and the fixed sizes of its
//! buffers ([`RESERVE`]).

use super::FrontierError;
use crate::bfs::StateSpace;

/// A segment is built in a map when its neighbours (incoming, and about three per board of
/// layer `d` in it) are at least `1 / SPARSE` of its span; else sorted. A map costs a pass
/// over `span / 8` bytes (zeroed, then read); a sort about 25 ns a neighbour.
pub const SPARSE: u64 = 512;
/// Most indices in a segment: offsets are `u32`.
pub const MAX_SPAN: u64 = 1 << 32;

/// Segments per layer (by index range) for a space whose index has no prefix cut
/// ([`crate::bfs::StateSpace::prefix_spans`]), when [`FrontierConfig::segments`] is 0.
pub const SEGMENTS: usize = 1024;
/// The fewest segments of the prefix cut [`segments_for`] chooses, when the space has one
/// with segments of at most [`MAX_SPAN`] indices: enough to keep every thread busy.
pub const LEAST_PREFIX_SEGMENTS: u64 = 64;
/// The fewest segments per process of the prefix cut [`segments_for`] chooses across
/// processes: with fewer, a few segments holding most of a layer (4x4's first 33 layers)
/// leave one process fuller than the others (measured: docs/frontier-search.md "Balance
/// across processes").
pub const PER_PROCESS: u64 = 1024;
/// Most segments per layer [`FrontierConfig::clamped`] allows (2^20).
pub const MAX_SEGMENTS: usize = 1 << 20;

/// How a [`search_with`] cuts its work: how many index ranges (segments) a layer is cut
/// into. It does not change the result, only time and memory.
///
/// [`search_with`]: super::search_with
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FrontierConfig {
    /// Segments per layer, by index range (the unit of the maps, of the parallel work and of
    /// the exchange between processes): 0 (the default) for the space's own cut
    /// ([`segments_for`]), else at most [`MAX_SEGMENTS`]. Any cut gives the same layers; the
    /// space's prefix cut keeps most moves inside their segment.
    pub segments: usize,
}

/// The segments a layer of `space` is cut into for `segments` segments asked (0: the
/// space's own cut) on `processes` processes (1: one machine). Asked for 0: the coarsest
/// prefix cut ([`StateSpace::prefix_spans`]) of at least [`LEAST_PREFIX_SEGMENTS`] segments
/// (across processes, at least [`PER_PROCESS`] a process, so that the deal,
/// [`super::Deal`], has enough to balance) of at most [`MAX_SPAN`] indices each (a map of a
/// segment is then at most 512 MiB), else the finest prefix cut of at most [`MAX_SEGMENTS`],
/// else [`SEGMENTS`]. Always from 1 to [`MAX_SEGMENTS`], and at most the boards.
pub fn segments_for<S: StateSpace>(space: &S, segments: usize, processes: usize) -> usize {
    let size = space.size();
    let most = usize::try_from(size.max(1)).unwrap_or(usize::MAX);
    let least = match processes {
        0 | 1 => LEAST_PREFIX_SEGMENTS,
        p => LEAST_PREFIX_SEGMENTS.max(PER_PROCESS.saturating_mul(p as u64)),
    };
    let segments = super::status::segments_asked(segments);
    if segments > 0 {
        return segments.clamp(1, MAX_SEGMENTS).min(most);
    }
    let spans = space.prefix_spans();
    let count = |span: u64| size.div_ceil(span);
    let fits = |&&span: &&u64| count(span) <= MAX_SEGMENTS as u64;
    spans
        .iter()
        .find(|&&span| span <= MAX_SPAN && count(span) >= least)
        .filter(fits)
        .or_else(|| spans.iter().rev().find(fits))
        .map_or(SEGMENTS, |&span| count(span) as usize)
        .clamp(1, MAX_SEGMENTS)
        .min(most)
}

impl FrontierConfig {
    /// The configuration [`search_stored`] runs for `space` under the memory budget `memory`
    /// (bytes, if any): its segments chosen ([`segments_for`]), checked against the budget.
    /// One machine's: [`FrontierConfig::within_holding`] with nothing held of other
    /// processes' messages.
    ///
    /// # Errors
    /// [`FrontierError::Budget`] when the budget cannot hold the maps and [`RESERVE`].
    ///
    /// [`search_stored`]: super::search_stored
    pub fn within<S: StateSpace>(
        self,
        space: &S,
        memory: Option<u64>,
    ) -> Result<FrontierConfig, FrontierError> {
        self.within_holding(space, memory, (1, 0))
    }

    /// The configuration a process of a search across `processes` processes runs for `space`
    /// under the memory budget `memory` (bytes, if any) while it holds up to `held` bytes of
    /// the other processes' messages ([`Exchange::held`],
    /// [`crate::bfs::cluster::frontier_held`]; `(1, 0)` on one machine): its segments chosen
    /// ([`segments_for`]), and the maps of a segment per
    /// thread ([`map_bytes`]), [`RESERVE`] and `held` checked against the budget. The check a
    /// search makes before it starts, and the one `analyze --plan` and the command line make
    /// before any connection.
    ///
    /// # Errors
    /// [`FrontierError::Budget`] when the budget cannot hold them: one line with the least
    /// budget that does.
    ///
    /// [`Exchange::held`]: super::Exchange::held
    pub fn within_holding<S: StateSpace>(
        self,
        space: &S,
        memory: Option<u64>,
        (processes, held): (usize, u64),
    ) -> Result<FrontierConfig, FrontierError> {
        let config = FrontierConfig {
            segments: segments_for(space, self.segments, processes),
        };
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

    /// The same configuration in range: `segments` at most [`MAX_SEGMENTS`] (0 stays the
    /// space's own cut). [`search_with`] clamps what it is given.
    ///
    /// [`search_with`]: super::search_with
    pub fn clamped(self) -> Self {
        FrontierConfig {
            segments: self.segments.min(MAX_SEGMENTS),
        }
    }
}

/// Bytes the search holds besides its maps, the incoming lists and the layers in memory,
/// whatever the size of a layer: a decode buffer per thread and task (1 MiB each), the
/// files' write buffers (4 MiB), the window of segments written in order, the exchange's
/// outgoing buffers.
pub const RESERVE: u64 = 256 << 20;

/// Bytes of the segments built at once a window aims at ([`Buffers::window`]).
pub(super) const WINDOW_BYTES: u64 = 128 << 20;

/// Bytes of the maps of a search of `space` in `segments` segments: one per thread (at most
/// one per segment), a bit per index of a segment, and the buffers of a sparse segment's sort
/// (three `u64`s a move, up to a [`SPARSE`](SPARSE)th of a segment's span);
/// no map for segments of more than [`MAX_SPAN`] indices (every one built by a sort).
pub fn map_bytes<S: StateSpace>(space: &S, segments: usize) -> u64 {
    let span = space.size().div_ceil(segments.max(1) as u64);
    let maps = rayon::current_num_threads().clamp(1, segments.max(1)) as u64;
    let sort = 24 * span.min(MAX_SPAN) / SPARSE;
    match span > MAX_SPAN {
        true => maps * sort,
        false => maps * (span.div_ceil(64) * 8 + sort),
    }
}

/// The sizes of the search's buffers: fixed, whatever the size of a layer or of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Buffers {
    /// The most segments built at once (in parallel), then written out in order: fewer when
    /// their bytes would pass [`WINDOW_BYTES`], but at least one per thread.
    pub(super) window: usize,
    /// Bytes of the buffer a segment of a layer on disk is decoded through.
    pub(super) decode: usize,
    /// A segment is built in a map when its neighbours are at least `1 / sparse` of its
    /// span, else by a sort ([`SPARSE`]; 0: always a sort, `u64::MAX`: always a
    /// map).
    pub(super) sparse: u64,
}

impl Buffers {
    /// Segments built at once when the next layer's segments take about `per_segment`
    /// bytes each: as many as fit in [`WINDOW_BYTES`], at least one a thread, at most
    /// [`Buffers::window`].
    pub(super) fn window_for(&self, per_segment: u64) -> usize {
        let threads = rayon::current_num_threads().max(1);
        let fit = usize::try_from(WINDOW_BYTES / per_segment.max(1)).unwrap_or(usize::MAX);
        fit.max(threads).min(self.window).max(1)
    }

    /// What a search uses: up to 16 segments a thread built at once, 1 MiB to decode a
    /// segment.
    pub(super) fn shipped() -> Buffers {
        Buffers {
            window: 16 * rayon::current_num_threads().max(1),
            decode: 1 << 20,
            sparse: SPARSE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{Parity, ParitySpace};
    use crate::shape::Shape;

    use crate::bfs::LexSpace;

    /// Issue 73, then 74: the least budget [`FrontierConfig::within_holding`] accepts is the
    /// maps ([`map_bytes`]), [`RESERVE`] and the bytes held of other processes' messages (one
    /// machine's [`FrontierConfig::within`] holds none); no budget is no check.
    #[test]
    fn the_budget_counts_the_maps_and_the_messages_held() {
        let space = ParitySpace::new(Shape::new(4, 4).unwrap(), Parity::Even).unwrap();
        let config = FrontierConfig::default();
        let segments = segments_for(&space, 0, 1);
        let maps = map_bytes(&space, segments);
        // A map of 3,832,012,800 bits a thread, and 24 bytes for a 512th of them.
        assert_eq!(maps % (479_001_600 + 179_625_600), 0);
        let least = RESERVE + maps;
        let held = 64 << 20;
        assert_eq!(config.within(&space, Some(least)).unwrap().segments, 2730);
        let refused = config.within_holding(&space, Some(least + held - 1), (1, held));
        assert!(
            matches!(&refused, Err(FrontierError::Budget(m))
                if m.contains("658.63 MB each") && m.contains("67.11 MB of other processes'")),
            "{refused:?}"
        );
        let fitted = config.within_holding(&space, Some(least + held), (1, held));
        assert_eq!(fitted.unwrap().segments, 2730);
        assert_eq!(
            config
                .within_holding(&space, None, (1, held))
                .unwrap()
                .segments,
            2730
        );
    }

    /// The space's own cut: the coarsest prefix of the tile sequence with at least 64
    /// segments of at most 2^32 boards (4x4: the first 3 tiles, 15 x 14 x 13 segments of
    /// 12!/2 x 16 boards; 2x7 and 3x4: the first 2), the finest prefix for 20 cells (4x5: 4
    /// tiles, every segment past 2^32), 1,024 where the index has no prefix cut, never more
    /// segments than boards; a cut asked for is kept.
    #[test]
    fn the_segments_follow_the_prefix_of_the_tiles() {
        let grid = |r, c| ParitySpace::new(Shape::new(r, c).unwrap(), Parity::Even).unwrap();
        assert_eq!(segments_for(&grid(4, 4), 0, 1), 15 * 14 * 13);
        assert_eq!(grid(4, 4).size() / 2730, 16 * 479_001_600 / 2);
        assert_eq!(segments_for(&grid(2, 7), 0, 1), 13 * 12);
        assert_eq!(segments_for(&grid(3, 4), 0, 1), 11 * 10);
        assert_eq!(segments_for(&grid(3, 3), 0, 1), 8 * 7 * 6);
        assert_eq!(segments_for(&grid(4, 5), 0, 1), 19 * 18 * 17 * 16);
        assert_eq!(segments_for(&grid(2, 2), 0, 1), 3);
        let lex = LexSpace::new(Shape::new(3, 3).unwrap()).unwrap();
        assert_eq!(segments_for(&lex, 0, 1), SEGMENTS);
        let row = LexSpace::new(Shape::new(1, 5).unwrap()).unwrap();
        assert_eq!(segments_for(&row, 0, 1), 120);
        assert_eq!(segments_for(&grid(3, 3), 97, 1), 97);
        assert_eq!(segments_for(&grid(3, 3), usize::MAX, 1), 181_440);
        assert_eq!(segments_for(&grid(4, 4), usize::MAX, 1), MAX_SEGMENTS);
        // Across processes, at least PER_PROCESS a process: 4x4 by its first 3 tiles on 2
        // processes, by its first 4 (32,760 segments) on 3 to 31, by 5 on 32; 3x4 by 4
        // tiles on 2.
        assert_eq!(segments_for(&grid(4, 4), 0, 2), 15 * 14 * 13);
        assert_eq!(segments_for(&grid(4, 4), 0, 3), 15 * 14 * 13 * 12);
        assert_eq!(segments_for(&grid(4, 4), 0, 31), 15 * 14 * 13 * 12);
        assert_eq!(segments_for(&grid(4, 4), 0, 32), 15 * 14 * 13 * 12 * 11);
        assert_eq!(segments_for(&grid(3, 4), 0, 2), 11 * 10 * 9 * 8);
        assert_eq!(segments_for(&grid(3, 4), 0, 1), 11 * 10);
        assert_eq!(segments_for(&grid(3, 3), 97, 4), 97);
    }
}
