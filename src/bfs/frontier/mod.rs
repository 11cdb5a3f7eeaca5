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
//! **Fan-in.** A merge reads at most [`FrontierConfig::fan_in`] runs (default [`FAN_IN`],
//! 128). A layer of more chunks is merged in several passes, as a log-structured merge tree
//! does, while the runs accumulate: before a chunk's run is added, a level holding `fan_in`
//! runs is merged into one run of the next level (its union, in the runs' format: a piece
//! and a CRC-32 per segment, in memory or in an unnamed file of that level, which is removed
//! once its runs are merged), and after the last chunk the smallest runs are merged until at
//! most `fan_in` are left; then the merge above. A layer of at most `fan_in` runs is merged
//! once, as before. Merging as the runs come rather than all at the end keeps the live runs
//! at fewer than `fan_in` a level (`log_fan_in` of the chunks levels: 2 for 4x4 whole's 7,500
//! runs) instead of every chunk's. The merges before the last do not subtract layers `d - 1`
//! and `d`: the runs of chunks spread over the whole index, so each would decode both layers
//! whole again (the work issue 21 removed, once per merge) to save only the bytes of the
//! boards of those layers; the union already drops what chunks share. A board's neighbour is
//! decoded and encoded once more per level: `log_fan_in(chunks)` passes in all.
//!
//! Memory: one chunk's boards and their non-lane neighbours ([`chunk_bytes_per_board`]: about
//! 5.4 GB for a chunk of 2^27 4x4 boards); the three layers and the runs of the layer being
//! built (gap-encoded: about the size of layers `d - 1` and `d + 1` together, plus the
//! neighbours that two chunks share), unless they are on disk ([`Storage`]); and buffers of
//! fixed sizes, whatever the size of a layer or of a segment ([`RESERVE`]): every segment of a
//! layer or a run is read through a reader's buffer (a segment larger than a chunk is decoded
//! in part, and continued in the next chunk), and a merged segment past 8 MiB goes on to a
//! scratch file of its own and is copied into its layer's file. Only the live runs' piece
//! lists (about 44 bytes per segment and bucket of each run) grow with a layer, with the
//! logarithm of its runs (fewer than `fan_in` a level, `runs::live_runs`), and the merge's
//! read buffers are those of at most `fan_in` runs (64 MiB over `threads x (fan_in + 2)`:
//! 252 KiB each at the default on 2 threads): both are in the plan checked before each layer,
//! with twice the runs' bytes (in memory or on disk) for a layer merged in several passes
//! (a merge holds the run it writes beside the runs it reads). A memory budget sets the chunk, cuts it further for a layer
//! whose runs and buffers (or layers in memory) leave less room, and stops the search cleanly
//! before a layer that would not fit even with a chunk of [`MIN_CHUNK`] boards, or on the disk.
//!
//! Integrity: every layer file and run file carries a CRC-32 per segment (per run and segment
//! for the runs), and every read checks it, with the count of boards and the bounds of each
//! segment (`codec::Reader`): a disk error is a one-line error naming the file and
//! the segment ([`FrontierError::Read`]), never a wrong count. With a checkpoint folder the
//! state after each layer is saved there, and a killed search resumes (`resume.rs`), its state
//! checked field by field first.
//!
//! **Across processes** ([`search_across`], `bfs::cluster::frontier` runs it on the cluster's
//! connections). Every process cuts the index into the same segments; segment `k` belongs to
//! process `k mod P` ([`owner`]): the layers of a deep search spread over the whole index,
//! so each process gets a share of every layer, and a lane move (consecutive indices) stays
//! in its segment. A process's layers hold its segments only (the others empty), so the
//! expansion, the runs, the fan-in merges, the last merge minus its layers `d - 1` and `d`,
//! the checkpoint and the budget above run unchanged on its share. The layer loop is one:
//! what differs is behind [`Exchange`] (`&mut dyn`, so the generic code is compiled once;
//! one machine is [`Alone`], which owns everything and does nothing):
//! - **The exchange.** Each chunk's run is cut by owner (`exchange::split`): the pieces of
//!   this process's segments stay one run; those of another's go to it as one message (each
//!   piece's segment, base, count and length, then its bytes: gap-coded as they are, not
//!   re-encoded). The messages that arrive (taken between chunks, and while waiting for
//!   credit) are checked (`exchange::parse`: a segment owned here, in range and in order,
//!   lengths whole) and added as runs of their own, so the fan-in merges bound them too; a
//!   message is acknowledged once added, and a sender waits (receiving meanwhile) once its
//!   unacknowledged bytes to a process pass the credit.
//! - **End markers.** At a layer's end each process sends an end marker to every other and
//!   waits for theirs, adding what arrives (a channel delivers in order, so every message of
//!   the layer is in); then the last merge, as on one machine. The layer's size is summed
//!   over the processes in one round: each knows it, and the search is complete when it is 0.
//!   A process that must stop before a layer (its budget, its disk) stops every process
//!   there ([`Exchange::agree_stop`]). At the end each process's first [`LAST_LISTED`]
//!   boards go to process 0, which keeps the first of them all: one machine's.
//! - **Checkpoints.** Each process saves its share in its own folder, with the global sizes;
//!   the run label names the process and the number of processes. On resume each process
//!   says which depths its two slots can resume ([`Exchange::common_depths`]), and the
//!   depths they all have are tried newest first: every process loads the depth's slot
//!   (its state and both layer files, read whole) and says whether it checks out, with its
//!   shares and the sizes it records; the first depth that checks out on every process,
//!   with equal sizes and shares that add up, is resumed, and only then does any process
//!   remove a file of its other slot. A process killed mid-layer leaves its older layers,
//!   and the others, which may have saved one layer more, load their older slot; a damaged
//!   layer file in one folder sends every process back together. A process's refusal (a
//!   folder of another search or process) is every process's error.
//!
//! [`Lanes`]: super::Lanes
//! [`StateSpace::expand_across`]: super::StateSpace::expand_across

use std::path::PathBuf;

mod chunks;
mod config;
mod disk;
mod exchange;
mod maps;
pub mod plan;
mod resume;
mod search;
mod store;

pub use config::{
    CHUNK, FAN_IN, FrontierConfig, MAX_CHUNK, MAX_FAN_IN, MAX_SEGMENTS, MIN_CHUNK, MIN_FAN_IN,
    RESERVE, SEGMENTS, chunk_bytes_per_board,
};
pub use disk::disk_free;
pub use exchange::{Alone, Arrived, Exchange, owner};
pub use resume::RunLabel;
pub use search::{search, search_across, search_stored, search_with};

use super::StateIndex;
use super::codec::ReadError;

/// Boards of the last layer listed (the first ones in index order).
pub const LAST_LISTED: usize = 1000;

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
    ///
    /// [`Progress::stop_requested`]: crate::progress::Progress::stop_requested
    #[error("interrupted")]
    Interrupted,
    /// A layer or a run read back does not check out (its CRC-32, its count of boards, its
    /// bounds: a disk error, or a file changed under the search), or could not be read: names
    /// the layer or the run, where it is, and the segment.
    #[error("{0}")]
    Read(String),
    /// Another process of a search across processes ([`search_across`]) failed, refused to
    /// start (its message, named `process P: ...`), or sent a message that cannot be right.
    #[error("{0}")]
    Peer(String),
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
    /// Bytes of all its runs of chunks, in memory or on disk (before any merge).
    pub bytes_of_runs: u64,
    /// Runs written by merging runs before the last merge, when the chunks were more than the
    /// fan-in ([`FrontierConfig::fan_in`]); 0 when the last merge read the chunks' runs.
    pub merges: u64,
    /// The merges before the last one a board of the layer went through at most: 0 with no
    /// more runs than the fan-in, 1 with up to `fan_in^2`, and so on.
    pub levels: u32,
    /// Boards of the layer before it this process expanded (its share of them across
    /// processes; all of them on one machine; 0 at depth 0 and at the layer resumed from).
    pub expanded: u64,
    /// Bytes of messages (runs' pieces of other processes' segments, with their headers)
    /// this process sent while building it: 0 on one machine.
    pub sent_bytes: u64,
    /// Bytes of messages this process received while building it: 0 on one machine.
    pub received_bytes: u64,
}

/// The result of [`search`] and [`search_with`].
///
/// [`search`]: fn@search
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
    /// The fan-in the runs were merged with ([`FrontierConfig::fan_in`]).
    pub fan_in: usize,
    /// Runs written by merges before the last, all layers together ([`LayerReport::merges`]).
    pub merges: u64,
    /// With a checkpoint: bytes of checkpoint written by this run (layer files and state
    /// files), and the time spent writing them, checksums and syncs included.
    pub saved_bytes: u64,
    /// See [`Frontier::saved_bytes`].
    pub save_time: std::time::Duration,
    /// Boards expanded, by every process together ([`search_across`]).
    pub expanded: u64,
    /// Bytes of messages sent between processes, by every process together: 0 on one
    /// machine.
    pub sent_bytes: u64,
    /// For each layer this run built (the empty layer that ended a complete search
    /// included): its depth, the boards expanded to build it and the bytes of messages
    /// sent meanwhile, by every process together.
    pub traffic_by_depth: Vec<(u32, u64, u64)>,
}

/// A reader's fault as the search's error, naming what was read: `what` (the layer or the
/// run), where it is, and the segment.
fn read_error(what: &str, place: &str, segment: usize, e: ReadError) -> FrontierError {
    FrontierError::Read(format!("{what} ({place}), segment {segment}: {e}"))
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
    /// The merge's fan-in, in place of the configuration's ([`FrontierConfig::fan_in`]):
    /// `analyze --fan-in`. `None`: the configuration's.
    pub fan_in: Option<usize>,
    /// The most boards of a layer expanded at once, in place of the configuration's
    /// ([`FrontierConfig::chunk`]; clamped to [`MAX_CHUNK`]): `analyze --chunk`. The memory
    /// budget may cut it further. `None`: the configuration's.
    pub chunk: Option<usize>,
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
