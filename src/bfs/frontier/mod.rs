//! Depth-limited BFS without whole-space marks: frontier search over layers (Korf, Zhang,
//! Thayer & Hohwald, "Frontier search", JACM 2005), for boards whose state space does not fit
//! in memory (4x4, 3x5, 2x8), as deep as memory and time allow.
//!
//! In an undirected graph, layer `d + 1` is the set of neighbours of layer `d` minus layers `d`
//! and `d - 1`, so only three layers are live. A layer is a sorted set of indices cut into
//! segments by index range ([`segments_for`]: for a board, the boards that share the first
//! tiles of their tile sequence, 2,730 segments of 1.9 billion boards on 4x4), each
//! gap-encoded ([`super::codec`], about 1.4-3 bytes per board on the large layers). The next
//! layer is built without sorting, in segment maps (`maps.rs`; Korf's hash-based delayed
//! duplicate detection, JACM 2008, as Tarakanov's solvers run it):
//!
//! 1. **Scatter.** The boards of layer `d` that have a move leaving their segment (their
//!    blank's cell says so: a move that carries a tile of the prefix) are expanded, and
//!    their neighbours go, as offsets, to the incoming list of their segment.
//! 2. **Maps.** Each segment (in parallel, a map per task, reused): its incoming
//!    neighbours, the lane moves of its boards of layer `d` and every move of its other
//!    boards set bits of a map of the segment; its boards of layer `d - 1` (and `d` in the
//!    multi-tile metric, whose graph is not bipartite) are cleared; the bits left are the
//!    segment of layer `d + 1`, written gap-coded in index order. A sparse segment (few
//!    neighbours against its span) is sorted instead of mapped.
//!
//! Memory: a map per thread (a bit per index of a segment: 479 MB on 4x4, 35 MB on 2x7), the
//! incoming lists (4 bytes per neighbour that leaves its segment, about 0.3 per board on 2x7),
//! the window of segments written in order, and the layers unless they are on disk
//! ([`Storage`]). A memory budget that cannot hold the maps is refused; before each layer the
//! search checks that the next one fits (memory, disk), and stops cleanly before one that does
//! not.
//!
//! Integrity: every layer file carries a CRC-32 per segment, and every read checks it, with the count of boards and the bounds of each
//! segment (`codec::Reader`): a disk error is a one-line error naming the file and
//! the segment ([`FrontierError::Read`]), never a wrong count. With a checkpoint folder the
//! state after each layer is saved there, and a killed search resumes (`resume.rs`), its state
//! checked field by field first.
//!
//! **Across processes** ([`search_across`], `bfs::cluster::frontier` runs it on the cluster's
//! connections). Every process cuts the index into the same segments, dealt to the processes
//! in rounds of `P`, every other round reversed ([`Deal`]: a stratified share of every
//! layer, balanced as docs/frontier-search.md "Balance across processes" measures); a lane
//! move (consecutive indices) stays in its segment. A process's layers hold its segments only (the others empty), so the
//! scatter, the maps, the checkpoint and the budget above run unchanged on its share. The layer loop is one:
//! what differs is behind [`Exchange`] (`&mut dyn`, so the generic code is compiled once;
//! one machine is [`Alone`], which owns everything and does nothing):
//! - **The exchange.** In the scatter, a neighbour in another process's segment goes into a
//!   message to it (its segment, a count, the offsets: `maps::parse` checks every field of
//!   one that arrives); the messages that arrive (between windows of segments, and while
//!   waiting for credit) go into the incoming lists here; a message is acknowledged once
//!   added, and a sender waits (receiving meanwhile) once its unacknowledged bytes to a
//!   process pass the credit.
//! - **End markers.** At a layer's end each process sends an end marker to every other and
//!   waits for theirs, adding what arrives (a channel delivers in order, so every message of
//!   the layer is in); then the maps, as on one machine. The layer's size is summed
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

use std::path::PathBuf;

mod chunks;
mod config;
mod disk;
mod exchange;
mod maps;
pub mod plan;
mod resume;
mod search;
mod status;
mod store;

pub use config::{
    FrontierConfig, LEAST_PREFIX_SEGMENTS, MAX_SEGMENTS, PER_PROCESS, RESERVE, SEGMENTS, map_bytes,
    segments_for,
};
pub use disk::disk_free;
pub use exchange::{Alone, Arrived, DEAL, Deal, Exchange};
pub use maps::{SPILL_BYTES, spill_memory};
pub use resume::RunLabel;
pub use search::{search, search_across, search_stored, search_with};
pub use status::{SEGMENT_SIZES_VAR, SEGMENTS_VAR, STATUS_FILE};

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
    /// Most bytes the search held while building it: the live layers in memory, the incoming
    /// lists, the maps and buffers, the window of segments being written (at depth 0 and at a
    /// resumed layer: the live layers in memory).
    pub bytes_in_memory: u64,
    /// Most bytes on disk while it was built (with a scratch or checkpoint folder): the
    /// layers' files kept (the two it is built from, and the checkpoint's older one), and
    /// the incoming lists' file and its own file at their most together (the lists' blocks
    /// are given back to the file system as their segments are built, where it allows it).
    pub bytes_on_disk: u64,
    /// Bytes free in the folder of the layers, when on disk.
    pub disk_free: Option<u64>,
    /// This process's segments of it built in a map (0 at depth 0).
    pub maps: u64,
    /// This process's segments of it built by a sort (sparse ones; 0 at depth 0).
    pub sorted: u64,
    /// Neighbours that went through the incoming lists of this process's segments (moves
    /// that leave their segment, and every move of a board that may; sent by other
    /// processes included).
    pub crossing: u64,
    /// Bytes of the incoming lists at their fullest (in memory).
    pub incoming_bytes: u64,
    /// Bytes of the incoming lists written to their file in a scratch or checkpoint folder
    /// (gap-coded blocks, padded for direct I/O; 0 in memory).
    pub incoming_on_disk: u64,
    /// Boards of the layer before it this process expanded (its share of them across
    /// processes; all of them on one machine; 0 at depth 0 and at the layer resumed from).
    pub expanded: u64,
    /// Bytes of messages (neighbours in other processes' segments, with their headers)
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
    /// Largest number of bytes of layers (in memory), incoming lists, maps and the window of
    /// segments being written held at once. As layer `d + 1` is written, layer `d - 1` is
    /// freed segment by segment, and the larger of the two is counted.
    pub peak_bytes: u64,
    /// The depth of the checkpoint the search resumed from, if it did.
    pub resumed_from: Option<u32>,
    /// Why the search stopped before `max_depth` and before running out of boards, if it
    /// did: the next layer would not fit in the memory budget or on the disk. The layers
    /// found until then are exact.
    pub stopped: Option<String>,
    /// Segments per layer ([`segments_for`]).
    pub segments: usize,
    /// This process's segments of a layer, all layers together, built in a map and by a
    /// sort ([`LayerReport::maps`], [`LayerReport::sorted`]; not the empty layer that ends a
    /// complete search).
    pub maps: u64,
    /// See [`Frontier::maps`].
    pub sorted: u64,
    /// With a checkpoint: bytes of checkpoint written by this run (layer files and state
    /// files), and the time spent writing them, checksums and syncs included.
    pub saved_bytes: u64,
    /// See [`Frontier::saved_bytes`].
    pub save_time: std::time::Duration,
    /// The time the runs before this one spent building the layers it resumed from (their
    /// checkpoint's record; zero for a search not resumed, or resumed from a checkpoint written
    /// before it was kept).
    pub seconds_before: std::time::Duration,
    /// Boards expanded, by every process together ([`search_across`]), over every run of the
    /// search (a resumed search counts the runs before it, as its checkpoint records them).
    pub expanded: u64,
    /// Bytes of messages sent between processes, by every process together, over every run
    /// of the search: 0 on one machine.
    pub sent_bytes: u64,
    /// For each layer built, by this run or the runs it resumed (the empty layer that ended
    /// a complete search included): its depth, the boards expanded to build it and the bytes
    /// of messages sent meanwhile, by every process together. A checkpoint written before
    /// issue 74's second stop kept none: the layers before it are missing then.
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
    /// Folder for the layers without a checkpoint (unnamed files, gone when closed). `None`:
    /// memory (unless checkpointing).
    pub scratch: Option<PathBuf>,
    /// Keep the layers in this checkpoint folder, and its state after each layer.
    pub checkpoint: Option<CheckpointAt>,
    /// The memory budget in bytes: a budget that cannot hold the maps ([`map_bytes`]) is
    /// refused, and a search whose next layer would not fit stops cleanly before it. `None`:
    /// no budget.
    pub memory: Option<u64>,
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
