//! What a process holds between layers: its range of a space (marks, depths) and the
//! search's position, both saved by the checkpoints.

use serde::{Deserialize, Serialize};
use strength_reduce::StrengthReducedU64;

use super::Traffic;
use crate::bfs::{DepthArray, StateMarks};

/// This process's share of a space ([`Deal`]): its boards' marks by local index, and their
/// depths.
pub(super) struct Share {
    pub deal: Deal,
    pub marks: StateMarks,
    /// The first space's depths of this share (per-board results, by local index): recorded
    /// by the goal's BFS, carried (and checkpointed) through the other components and spaces,
    /// which have the same size and so the same shares.
    pub depths: Option<DepthArray>,
}

/// Boards per work item of a dense scan (2,048 words of marks). A deal's blocks are powers of
/// two: a multiple of it, or a smaller block (set by the run) that is then the item, so no
/// item straddles two blocks.
pub(super) const ITEM: u64 = 1 << 16;

/// How a space's index `0..size` is dealt among the processes: in blocks of `block` boards (a
/// power of two, at least [`ITEM`] unless the run sets a smaller one), block `b` to process
/// `b % peers`, about 16 blocks per process.
///
/// Contiguous ranges would give the process holding the boards whose first tiles are small
/// most of the early layers and the others most of the late ones, and every layer waits for
/// the busiest; dealt blocks spread the layers. Smaller blocks would spread them further but
/// send more neighbours away (a vertical move changes the index by up to a few times
/// `(cells - 2)!`). Blocks of a power of two make a board's block and offset a shift and a
/// mask; blocks sized for an equal share each (a division per lookup) measured slower. The
/// measurements: `output/bench/3x4-cluster/report.txt`.
///
/// Process `me` numbers its boards locally: its `k`-th block holds local indices
/// `k * block..(k + 1) * block`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Deal {
    pub size: u64,
    pub peers: u64,
    pub me: u64,
    pub block: u64,
    /// Boards per work item of a dense scan: [`ITEM`], or the block when smaller (no item
    /// straddles two blocks).
    pub item: u64,
    /// `log2(block)`: a board's block and its offset in it are a shift and a mask.
    shift: u32,
    /// `peers`, for a division by a multiply and a shift instead of a 64-bit `div`:
    /// [`Deal::locate`] runs for every neighbour, twice (its prefetch, then its route); what
    /// it saved: `output/bench/3x4-cluster/report.txt`.
    by_peers: StrengthReducedU64,
}

impl PartialEq for Deal {
    fn eq(&self, other: &Deal) -> bool {
        // (`shift` and `by_peers` follow from these.)
        (self.size, self.peers, self.me, self.block)
            == (other.size, other.peers, other.me, other.block)
    }
}

impl Eq for Deal {}

impl Deal {
    /// The deal of a space of `size` boards among `peers` processes, seen from `me`.
    #[cfg(test)]
    pub fn new(size: u64, peers: usize, me: usize) -> Deal {
        Deal::with_block(size, peers, me, None)
    }

    /// [`Deal::new`] with blocks of `block` boards when given (a power of two of at least 32,
    /// as [`super::BufferSizes::check`] requires), else of the deal's own choice.
    ///
    /// # Panics
    /// When `block` is not a power of two.
    pub fn with_block(size: u64, peers: usize, me: usize, block: Option<u64>) -> Deal {
        let peers = peers.max(1) as u64;
        // About 16 blocks per process: the power of two at or below a sixteenth of a
        // process's share, and at least one item (so never more than a contiguous share
        // rounded up to whole items).
        let sixteenth = (size / (16 * peers)).max(ITEM);
        let block = block.unwrap_or(1u64 << sixteenth.ilog2());
        assert!(
            block.is_power_of_two(),
            "a deal's block is a power of two, not {block}"
        );
        Deal {
            size,
            peers,
            me: me as u64,
            block,
            item: block.min(ITEM),
            shift: block.trailing_zeros(),
            by_peers: StrengthReducedU64::new(peers),
        }
    }

    /// Whether local index `l` is the first or the last board of its block: the only boards
    /// of a process that another process can reach by a lane move (a scan routes a lane
    /// neighbour only when it is in the next or the previous word, and blocks are whole
    /// items of words).
    #[inline(always)]
    pub fn at_edge(&self, l: u64) -> bool {
        let off = self.split(l).1;
        off == 0 || off == self.block - 1
    }

    /// `(i / block, i % block)`, by a shift and a mask: for a global index its block and
    /// its offset there, for a local one the process's block number `k` and the offset.
    #[inline(always)]
    fn split(&self, i: u64) -> (u64, u64) {
        (i >> self.shift, i & (self.block - 1))
    }

    /// The process holding board `i`, and `i`'s local index there.
    #[inline(always)]
    pub fn locate(&self, i: u64) -> (usize, u64) {
        // One process holds every board, its local indices the global ones.
        if self.peers == 1 {
            return (0, i);
        }
        let (b, off) = self.split(i);
        let (round, owner) = StrengthReducedU64::div_rem(b, self.by_peers);
        (owner as usize, round * self.block + off)
    }

    /// The process holding board `i`.
    #[cfg(test)]
    pub fn owner(&self, i: u64) -> usize {
        self.locate(i).0
    }

    /// Board `i`'s local index at its owner.
    #[inline(always)]
    pub fn local(&self, i: u64) -> u64 {
        self.locate(i).1
    }

    /// The board of this process's local index `l`.
    #[inline(always)]
    pub fn global(&self, l: u64) -> u64 {
        if self.peers == 1 {
            return l;
        }
        let (round, off) = self.split(l);
        (round * self.peers + self.me) * self.block + off
    }

    /// Boards this process holds (its marks' length).
    pub fn held(&self) -> u64 {
        let blocks = self.size.div_ceil(self.block);
        let mine = blocks / self.peers + u64::from(self.me < blocks % self.peers);
        if mine == 0 {
            return 0;
        }
        let last = (mine - 1) * self.peers + self.me;
        (mine - 1) * self.block + (self.size - last * self.block).min(self.block)
    }

    /// The same deal seen from process `g`.
    pub fn of(&self, g: usize) -> Deal {
        Deal {
            me: g as u64,
            ..*self
        }
    }
}

/// The search's position, saved in every checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Phase {
    /// The space searched now (an index into [`Job::spaces`]).
    pub space: u8,
    /// The goal BFS's layer sizes, once it has ended.
    pub goal_layers: Vec<u64>,
    /// The goal BFS's last layer (indices), gathered on process 0.
    pub antipodes: Vec<u64>,
    /// Sizes of the components already explored, in order.
    pub done: Vec<u64>,
    /// Layer sizes of the BFS in progress, through its last completed layer (empty: none).
    pub current: Vec<u64>,
    /// Layers completed over the whole run (the checkpoint's step number).
    pub step: u64,
    /// Work and traffic so far (this process's).
    pub traffic: Traffic,
    /// Under [`crate::bfs::Marking::Depths`]: the goal's layers of at most
    /// [`super::Job::listed`] boards, with this process's boards of each (global indices,
    /// ascending). Saved in the checkpoint's body, not its header.
    #[serde(skip)]
    pub listed: Vec<(u32, Vec<u64>)>,
    /// The distance table has been streamed to process 0's sink.
    #[serde(default)]
    pub table_written: bool,
    /// The layer from which the BFS in progress takes pull steps (one process only).
    #[serde(default)]
    pub pulled_from: Option<u32>,
    /// The seed of the BFS in progress (global index): its side starts the alternation of the
    /// frontier's side (`crate::bfs::step::LayerCodes::flagged`).
    #[serde(default)]
    pub seed: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every board has exactly one owner, and local and global indices are inverse
    /// bijections between a process's boards and `0..held()`, for sizes around block
    /// boundaries and peer counts that are and are not powers of two.
    #[test]
    fn the_deal_is_a_partition_with_inverse_numberings() {
        let sizes = [1, 31, ITEM - 1, ITEM, ITEM + 1, 5 * ITEM + 7, 8 * ITEM];
        let blocks = [None, Some(32), Some(64), Some(1 << 12)];
        for (size, block) in sizes.into_iter().flat_map(|s| blocks.map(|b| (s, b))) {
            for peers in 1..=5usize {
                let deals: Vec<Deal> = (0..peers)
                    .map(|g| Deal::with_block(size, peers, g, block))
                    .collect();
                let held: u64 = deals.iter().map(Deal::held).sum();
                assert_eq!(held, size, "size {size}, {peers} peers, {block:?}");
                let mut seen = vec![0u8; size as usize];
                for d in &deals {
                    for l in 0..d.held() {
                        let i = d.global(l);
                        assert!(i < size);
                        assert_eq!(d.owner(i), d.me as usize);
                        assert_eq!(d.local(i), l);
                        seen[i as usize] += 1;
                    }
                }
                assert!(
                    seen.iter().all(|&c| c == 1),
                    "size {size}, {peers} peers {block:?}"
                );
            }
        }
    }

    /// The deal's own block is a power of two of at least one item and at most a contiguous
    /// share rounded up to whole items; on large spaces, 16 to 32 blocks per process.
    #[test]
    fn the_deals_own_block_is_a_power_of_two_within_a_share() {
        for size in [
            0,
            1,
            ITEM - 1,
            ITEM,
            17 * ITEM + 3,
            1 << 30,
            239_500_800,
            43_589_145_600,
        ] {
            for peers in 1..=9usize {
                let d = Deal::new(size, peers, 0);
                let share = size.div_ceil(peers as u64).div_ceil(ITEM).max(1) * ITEM;
                assert!(d.block.is_power_of_two(), "size {size}, {peers} peers");
                assert!(
                    d.block >= ITEM && d.block <= share,
                    "size {size}, {peers} peers"
                );
                if size >= 32 * ITEM * peers as u64 {
                    let blocks = size.div_ceil(d.block) / peers as u64;
                    assert!((16..=32).contains(&blocks), "size {size}, {peers} peers");
                }
            }
        }
    }

    /// A block that is not a power of two is refused where the deal is made.
    #[test]
    #[should_panic(expected = "power of two")]
    fn a_block_not_a_power_of_two_is_refused() {
        let _ = Deal::with_block(1 << 20, 2, 0, Some(96));
    }
}
