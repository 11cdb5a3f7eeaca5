//! The distributed driver: the same BFS over any [`StateSpace`] on several processes, with
//! timely-dataflow (McSherry et al., "Naiad", SOSP 2013) as the transport between them and
//! per-layer checkpoints.
//!
//! **Ownership.** The index `0..size` is cut into blocks (whole 64-bit words of marks) dealt
//! to the processes in turn, about 16 per process (`state::Deal`). A process holds its
//! share's [`StateMarks`](crate::bfs::StateMarks) (and, for per-board results, its share's
//! depths) once, shared by its worker threads (a rayon pool of
//! `--workers` threads): threads of one process claim each other's boards with atomic
//! operations, as on one machine, and only neighbours owned by another process are sent.
//! Each process is one timely worker.
//!
//! **A layer** is the one layer step of every marks driver (`bfs::step`): the frontier
//! (a dense scan of the range with lane claims, or a sorted list while layers are small) is
//! expanded by the kernel, each neighbour in the range is claimed at once, and the others are
//! buffered per owning process and sent after every window of the range: to a process on the
//! same host as they were found, each local index of the receiver in a fixed number of bytes
//! (`net::pack`: 4 for 3x4 over 2 processes, 5 for 2x7), to one on another host sorted and
//! gap-encoded, about a third of the bytes (`net::Wire`). They travel on a channel of timely's
//! communication layer (no progress tracking: the lists go out at once and are claimed, in
//! parallel, between the receiver's own windows, their words prefetched a batch at a time). A process whose step runs on one
//! thread is the only writer of its marks, and claims with a load and a store
//! (`bfs::step::Owner::alone`). A process ends its lists of a layer with an
//! end marker to every other; the layer ends when it holds every other's marker (a channel
//! delivers in order, so every list has arrived); then the processes exchange their counts
//! through a timely dataflow (one round), so each knows the layer's size. One process (its
//! threads sharing every board) takes the one-machine driver's pull steps once the frontier
//! outgrows the boards left, unless it checkpoints (a pull leaves earlier layers' frontier
//! codes, from which a resumed run could not find its layer).
//!
//! **Checkpoints** (`--checkpoint DIR`): after each layer every process writes its range's
//! marks and depths and the search's state to `DIR/process-P.{0,1}.ckpt` (alternating, so
//! the previous one survives a crash during the write), one [`crate::durable::container`]
//! each (CRC-32 over header and body). A resumed run loads, on every process, the latest step
//! that every process has saved.
//!
//! **Distance tables** ([`Job::marking`] = [`Marking::Depths`]): the goal's BFS keeps each
//! board's depth in the marks, as on one machine, and each process keeps its boards of the
//! layers small enough to list. When the BFS ends, process 0 gathers the listed boards (checked
//! against the layer sizes), then the marks in windows of 16 MiB of the whole table, each
//! process sending the parts of its blocks in the window, and streams them in index order to a
//! [`MarksSink`]: one file, the same bytes as the one-machine table, whatever the number of
//! processes (process 0 holds a window, not the table). The listed boards are saved in the
//! checkpoints.
//!
//! **Connections** are opened by this crate ([`handshake`]): each pair of processes exchanges
//! a hello (a fingerprint of the run; with a shared key, an HMAC challenge) before the
//! sockets go to timely, so a stray connection is dropped with a warning and a peer of
//! another run is refused, naming what differs.
//!
//! **Failures** are fail-stop: timely's network threads panic when a peer's connection
//! breaks ("timely communication error"); the panic is caught, the process's worker stops
//! within a fraction of a second, and [`run`] returns [`ClusterError::Peer`]. A peer that
//! never connects gives [`ClusterError::Connect`] after the connect timeout; one that stops
//! sending (stopped, frozen) gives [`ClusterError::Peer`] after the stall timeout. Every
//! offset, length and count a peer sends is checked before use.
//!
//! **The frontier search across processes** ([`frontier()`], `analyze --max-depth D
//! --processes P`): the same connections, hello, panic hook and relay (`execute` serves
//! both jobs), and [`crate::bfs::frontier::search_across`] on each process with `frontier`'s
//! [`crate::bfs::frontier::Exchange`] over this channel: every layer's segments are dealt to
//! the processes ([`crate::bfs::frontier::Deal`]), each keeping its share on its own disk or in
//! its memory; the neighbours a scatter finds in another process's segments go to it as one
//! chunk of the claims channel (offsets in their segments, acknowledged once added to the
//! incoming lists: at most [`FRONTIER_CREDIT`] unacknowledged
//! per receiver), a layer ends with the end markers above, its size is summed in one round,
//! and process 0 gathers the last layer's first boards. Each process checkpoints its share
//! in its own folder; on `--resume` the processes load the deepest layer all of them saved.
//! Every process's progress goes to its own caller (the layers as
//! [`crate::bfs::frontier::LayerReport`]s, with its bytes sent and received).
//!
//! Files: this one (configuration, the job, the calling thread's side of a run), `handshake`
//! (the connections and their hello), `net` (timely's dataflow, the rounds, the panic hook),
//! `state` (what a process holds between layers), `worker` (the search on one process),
//! `checkpoint` (the checkpoint files), `frontier` (the frontier search's job and exchange).

mod checkpoint;
mod exchange;
mod frontier;
mod gather;
pub mod handshake;
mod net;
mod push;
mod state;
mod worker;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{Marking, StateIndex, StateSpace};
use crate::board::Board;
use crate::progress::Progress;
pub use frontier::{FRONTIER_CREDIT, FrontierJob, frontier, frontier_held};
use net::{Wire, install_panic_hook};
use worker::{Setup, worker_main};

/// The shipped [`BufferSizes::table_window`]: bytes of a distance table's marks process 0 gathers
/// per round ([`MarksSink`]): it holds one window, and the messages of one. 16 MiB: 4 rounds
/// for the 60 MB table of 3x4 (so that the tests of the shipped sizes cross windows), 650 for
/// the 10.9 GB of 2x7, each a gather of a few messages per process: small beside writing
/// the bytes.
pub const TABLE_WINDOW: u64 = 16 << 20;
/// The shipped [`BufferSizes::send_budget`]: bytes of outgoing indices a process buffers per
/// worker thread before sending (at 8 bytes per neighbour, all of a window's neighbours
/// counted: a bound, seldom reached).
///
/// It sets the window: 64 work items of 65,536 boards on a dense layer. Windows cost a
/// send, a claim of what arrived and a wake of timely's network threads each, so longer
/// windows cost less, until the last window's lists, claimed at the layer's end after every
/// other process has finished its own, grow too long: on 3x4 over loopback 128 and 256 MB
/// measured best, 8 MB and 1 GB worse (`output/bench/3x4-cluster/report.txt`).
pub const SEND_BUDGET: usize = 128 << 20;

/// The sizes of a run's buffers and blocks. [`BufferSizes::default`] is what ships, in every build
/// (debug builds, and so the tests through the command line, run these very sizes); the
/// library's tests set small ones to cross many windows and blocks on small boards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferSizes {
    /// Bytes of outgoing indices a process buffers per worker thread before sending
    /// ([`SEND_BUDGET`]); it sets the window of work items after which lists are sent.
    pub send_budget: usize,
    /// Bytes of a distance table's marks process 0 gathers per round ([`TABLE_WINDOW`]).
    pub table_window: u64,
    /// Boards per block of the deal (block `b` to process `b mod P`): `None`, the deal's own
    /// choice (a power of two of at least 65,536 boards, about 16 blocks per process);
    /// `Some(b)`, `b` boards, a power of two of at least 32 (one word of marks; a dense scan's
    /// work item is then one block), so that many block edges fall on a small board.
    pub block: Option<u64>,
    /// The library's tests: process `.0` sleeps `.1` after each window (a slow host).
    #[cfg(test)]
    pub(crate) pause: Option<(usize, Duration)>,
}

impl Default for BufferSizes {
    fn default() -> BufferSizes {
        BufferSizes {
            send_budget: SEND_BUDGET,
            table_window: TABLE_WINDOW,
            block: None,
            #[cfg(test)]
            pause: None,
        }
    }
}

impl BufferSizes {
    /// Checks the sizes.
    ///
    /// # Errors
    /// A one-line message for a zero budget or window, or a block that is not a power of two
    /// of at least 32 boards.
    pub fn check(&self) -> Result<(), String> {
        if self.send_budget == 0 || self.table_window == 0 {
            return Err("the send budget and the table window must be at least 1 byte".into());
        }
        match self.block {
            Some(b) if !b.is_power_of_two() || b < 32 => Err(format!(
                "a block of {b} boards: blocks are a power of two of at least 32 boards"
            )),
            _ => Ok(()),
        }
    }
}

/// How long a waiting worker parks before it looks for a failure again.
const PARK: Duration = Duration::from_millis(20);

/// The processes and workers of a distributed run, in timely's own terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// Number of processes (`-n` in timely).
    pub processes: usize,
    /// This process, `0..processes` (`-p`); process 0 gathers the results.
    pub process: usize,
    /// Worker threads per process, sharing the process's marks (timely runs one worker per
    /// process).
    pub workers: usize,
    /// `host:port` of every process, in order (the hostfile's lines); unused for one process.
    pub addresses: Vec<String>,
    /// Folder for checkpoints.
    pub checkpoint: Option<PathBuf>,
    /// When to checkpoint.
    pub checkpoint_every: CheckpointEvery,
    /// A new run (refused over a checkpoint of this process), a fresh one (its checkpoint
    /// removed first), or one that starts from the latest checkpoint that every process
    /// completed.
    pub start: crate::durable::Start,
    /// How long to wait for every peer to connect.
    pub connect_timeout: Duration,
    /// How long a process waits for a message from its peers before it gives up on them (a
    /// peer stopped, frozen or cut off).
    pub stall_timeout: Duration,
    /// The shared key that peers prove they hold ([`handshake`]); `None`: any peer that
    /// says hello with the same run is accepted.
    pub key: Option<SharedKey>,
    /// Whether this process's worker threads are bound to cores ([`Cluster::cores`]).
    pub bind: Bind,
    /// Buffer and block sizes (every process of a run must use the same).
    pub tuning: BufferSizes,
    /// What the front end asks of the run beyond the job itself: each of its options that
    /// changes what the run searches or writes and that the job does not name (`--all-pairs`,
    /// the exports' formats, the chart's scale), as (name, value). Part of the peers'
    /// fingerprint on every path, so that processes given different ones are refused on
    /// every process. Empty by default.
    pub request: Vec<(String, String)>,
}

/// Whether a process binds its worker threads to cores, as MPI launchers bind their ranks
/// (Open MPI's `--bind-to core`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Bind {
    /// When several processes of the run share this host (the same host in the hostfile)
    /// and all their workers fit its cores: each worker thread on a core of its own. Two
    /// processes of one worker on a 2-core machine otherwise lose time whenever the
    /// scheduler puts both on one core (measured in `output/bench/3x4-cluster/report.txt`;
    /// see `docs/cluster.md`).
    #[default]
    Auto,
    /// Never: the operating system places the threads.
    None,
}

/// A secret shared by the processes of a run (from [`handshake::KEY_VARIABLE`]); its
/// `Debug` does not show it.
#[derive(Clone, PartialEq, Eq)]
pub struct SharedKey(pub Vec<u8>);

impl std::fmt::Debug for SharedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedKey(..)")
    }
}

/// The default of [`Cluster::stall_timeout`]: five minutes without a message from a peer
/// while waiting for it (lengthened by twice the last layer's wall time, so that a peer busy
/// with a long layer's share is not taken for a stopped one; waiting peers say they are
/// alive every 2 s).
pub const DEFAULT_STALL: Duration = Duration::from_secs(5 * 60);

/// When the processes of a run with `--checkpoint` save: the choice trades the work a crash
/// loses against the time the saves take (a save writes every process's whole share of the
/// marks, e.g. 10.9 GB over all processes on 2x7, whatever the layer's size).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CheckpointEvery {
    /// After every layer.
    Layer,
    /// After the first layer that ends at least this long after the last save ended (or after
    /// the run started).
    Interval(Duration),
    /// Like `Interval`, the interval being [`AUTO_RATIO`] times as long as the last save took,
    /// and at least [`AUTO_MIN`]: the saves then cost at most about a tenth of the run.
    #[default]
    Auto,
}

/// The least interval between saves of [`CheckpointEvery::Auto`].
pub const AUTO_MIN: Duration = Duration::from_secs(60);
/// How many times its own duration [`CheckpointEvery::Auto`] waits after a save.
pub const AUTO_RATIO: u32 = 9;

/// Largest hostfile read, in bytes.
pub const MAX_HOSTFILE: u64 = 1 << 20;

impl Cluster {
    /// One process of `workers` threads, without network or checkpoints (timeouts at their
    /// defaults: 30 s to connect, [`DEFAULT_STALL`]).
    pub fn local(workers: usize) -> Cluster {
        Cluster {
            processes: 1,
            process: 0,
            workers,
            addresses: Vec::new(),
            checkpoint: None,
            checkpoint_every: CheckpointEvery::default(),
            start: crate::durable::Start::New,
            connect_timeout: Duration::from_secs(30),
            stall_timeout: DEFAULT_STALL,
            key: None,
            bind: Bind::Auto,
            tuning: BufferSizes::default(),
            request: Vec::new(),
        }
    }

    /// The cores this process's worker threads are bound to, one per worker, under
    /// [`Bind::Auto`]: of `allowed` (the cores this process may run on, ascending), the
    /// `k`-th run of `workers` cores, where `k` counts the processes before this one on its
    /// host (hostfile lines with the same host before the `:port`). `None` (no binding) for
    /// [`Bind::None`], a process alone on its host, or when the host's processes have more
    /// workers than `allowed` has cores.
    pub fn cores(&self, allowed: &[usize]) -> Option<Vec<usize>> {
        if self.bind == Bind::None || self.processes < 2 {
            return None;
        }
        let on_host: Vec<usize> = (0..self.processes).filter(|&p| self.same_host(p)).collect();
        let before = on_host.iter().position(|&p| p == self.process)?;
        let needed = on_host.len().checked_mul(self.workers)?;
        if on_host.len() < 2 || needed > allowed.len() {
            return None;
        }
        Some(allowed[before * self.workers..(before + 1) * self.workers].to_vec())
    }

    /// Whether process `p` runs on this process's host: its hostfile line has the same host
    /// before the `:port` (the same spelling: `localhost` and `127.0.0.1` are two hosts).
    /// True for this process itself, and for every process of a run of one.
    pub fn same_host(&self, p: usize) -> bool {
        let host = |a: &String| a.rsplit_once(':').map_or(a.clone(), |(h, _)| h.to_string());
        p == self.process
            || matches!(
                (self.addresses.get(p), self.addresses.get(self.process)),
                (Some(a), Some(b)) if host(a) == host(b)
            )
    }

    /// Total workers over all processes.
    pub fn peers(&self) -> usize {
        self.processes * self.workers
    }

    /// Reads a hostfile for process `me`: one `host:port` per line (blank lines and `#`
    /// comments skipped), the first `processes` used; at most [`MAX_HOSTFILE`] bytes are read.
    /// Port 0 is allowed on the lines of `me` and of the processes after it (which `me`
    /// never dials): on its own line it means any free port, which the run announces.
    ///
    /// # Errors
    /// A one-line message when the file cannot be read, is larger than [`MAX_HOSTFILE`], has
    /// fewer lines, or a line used is not `host:port` (port 1 to 65535, or 0 as above,
    /// naming the line) or names the same address as another.
    pub fn read_hostfile(path: &Path, processes: usize, me: usize) -> Result<Vec<String>, String> {
        use std::io::Read;
        let mut text = String::new();
        crate::durable::open_regular(path)
            .and_then(|f| f.take(MAX_HOSTFILE + 1).read_to_string(&mut text))
            .map_err(|e| format!("cannot read hostfile {}: {e}", path.display()))?;
        if text.len() as u64 > MAX_HOSTFILE {
            return Err(format!(
                "hostfile {} is larger than {MAX_HOSTFILE} bytes; it holds one host:port per line",
                path.display()
            ));
        }
        let mut hosts: Vec<(usize, String)> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if hosts.len() == processes {
                break;
            }
            let dialed = hosts.len() < me;
            let port = line
                .rsplit_once(':')
                .filter(|(host, _)| !host.is_empty())
                .and_then(|(_, port)| port.parse::<u16>().ok());
            match port {
                Some(0) if dialed => {
                    return Err(format!(
                        "hostfile {} line {}: {line:?} has port 0, but process {me} dials \
                         process {} there: give the port it announced",
                        path.display(),
                        n + 1,
                        hosts.len()
                    ));
                }
                Some(_) => {}
                None => {
                    return Err(format!(
                        "hostfile {} line {}: {line:?} is not host:port (a port from 1 to 65535)",
                        path.display(),
                        n + 1
                    ));
                }
            }
            if let Some((first, _)) = (port != Some(0))
                .then(|| hosts.iter().find(|(_, h)| h == line))
                .flatten()
            {
                return Err(format!(
                    "hostfile {} lines {} and {} both name {line}: every process needs its own address",
                    path.display(),
                    first + 1,
                    n + 1
                ));
            }
            hosts.push((n, line.to_string()));
        }
        if hosts.len() < processes {
            return Err(format!(
                "hostfile {} has {} addresses, {processes} processes need one each",
                path.display(),
                hosts.len()
            ));
        }
        Ok(hosts.into_iter().map(|(_, h)| h).collect())
    }

    /// timely's default addresses: `localhost:2101`, `localhost:2102`, ...
    pub fn default_addresses(processes: usize) -> Vec<String> {
        (0..processes)
            .map(|i| format!("localhost:{}", 2101 + i))
            .collect()
    }
}

/// What a distributed run searches.
#[derive(Debug, Clone)]
pub struct Job<S> {
    /// The spaces searched, in order: the BFS from the goal runs in the first; with
    /// [`Job::search_rest`] every other component of every space is then explored. For a
    /// board of at least 2 rows and 2 columns, the goal's parity class and the other class
    /// ([`super::ParitySpace`]); for a one-row board, all its boards ([`super::LexSpace`]).
    /// With [`Job::per_board`] every space must have the first's size.
    pub spaces: Vec<S>,
    /// The BFS starts here (a board of the first space).
    pub goal: Board,
    /// The metric of the spaces' kernels (for the peers' fingerprint and the checkpoints).
    pub metric: crate::metric::Metric,
    /// Gather every board's depth (in the first space) on process 0.
    pub per_board: bool,
    /// Also explore every other component by BFS, as the one-machine analysis does up to 12
    /// cells.
    pub search_rest: bool,
    /// What the goal's BFS leaves in its marks. Under [`Marking::Depths`] (the first space
    /// must have [`StateSpace::sides`]) the finished marks are a distance table, and process 0
    /// streams them, gathered in index order, to the [`MarksSink`] given to [`run`].
    pub marking: Marking,
    /// Under [`Marking::Depths`]: the goal's layers of at most this many boards are gathered
    /// board by board for the sink (at most [`super::list_limit`] of the first space's size).
    pub listed: u64,
}

/// Where process 0 writes the finished marks of a [`Marking::Depths`] run: a distance table
/// ([`crate::bfs::Marking::Depths`] codes, four boards a byte, board `i` in bits
/// `2 (i mod 4)` of byte `i / 4`, exactly as [`super::StateMarks`] holds them on one machine).
/// Called from process 0's worker thread, in this order: `begin` once, `write` with the
/// bytes in index order until all `ceil(size / 4)` are given, `end` once.
pub trait MarksSink: Send {
    /// The goal's BFS has ended: its layer sizes (from depth 0), the listing limit
    /// ([`Job::listed`]) and every layer of at most that many boards (depth, its boards'
    /// indices ascending).
    ///
    /// # Errors
    /// What writing failed with (the run then stops with [`ClusterError::Table`]).
    fn begin(
        &mut self,
        layers: &[u64],
        limit: u64,
        listed: &[(u32, Vec<StateIndex>)],
    ) -> std::io::Result<()>;
    /// The next bytes of the marks.
    ///
    /// # Errors
    /// As `begin`.
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()>;
    /// Every byte has been written: make the table durable.
    ///
    /// # Errors
    /// As `begin`.
    fn end(&mut self) -> std::io::Result<()>;
}

/// What process 0 gets back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Boards per depth from the goal.
    pub layer_sizes: Vec<u64>,
    /// The last layer's boards (ascending lexicographic rank) when it has at most
    /// [`super::list_limit`] boards, else empty.
    pub antipodes: Vec<Board>,
    /// Sizes of the components searched, the goal's first.
    pub components: Vec<u64>,
    /// Per board of the first space (by its index): depth + 1, 0 when not reached; when
    /// [`Job::per_board`].
    pub depths: Option<Vec<u8>>,
    /// Boards expanded and bytes of indices sent between processes, over all processes.
    pub traffic: Traffic,
    /// Whether this run streamed the marks to the [`MarksSink`] ([`Marking::Depths`]); false
    /// when it resumed from a checkpoint saved after the run it resumes had done so.
    pub table_written: bool,
}

/// Work and network volume of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Traffic {
    /// Boards expanded by the kernel: the frontier's in push steps, the unseen boards
    /// examined in pull steps (one process without checkpoints).
    pub expanded: u64,
    /// Neighbour indices sent to another process (lists sorted for another host: after
    /// their deduplication).
    pub sent_indices: u64,
    /// Bytes of those indices once encoded.
    pub sent_bytes: u64,
    /// The checkpoint step (layers completed) this run resumed from, if it did.
    #[serde(default)]
    pub resumed_from: Option<u64>,
    /// Checkpoints saved (per process: every process saves at the same steps).
    #[serde(default)]
    pub saves: u64,
    /// Bytes of checkpoints saved, over all processes.
    #[serde(default)]
    pub saved_bytes: u64,
    /// Microseconds spent saving them, syncs included, by the slowest process (they save at
    /// once, each its own share).
    #[serde(default)]
    pub save_micros: u64,
    /// The most bytes of other processes' lists that any process held received and not yet
    /// claimed (those it had taken from timely; the rest of what was in flight to it is in
    /// `peak_in_flight`).
    #[serde(default)]
    pub peak_unclaimed: u64,
    /// The most bytes of lists any process had sent to one other and not yet had
    /// acknowledged (at most [`credit`], or one list when nothing was outstanding).
    #[serde(default)]
    pub peak_in_flight: u64,
    /// What any process may hold of the others' lists, received and not yet claimed:
    /// [`received_bound`] (bytes; 0 for one process).
    #[serde(default)]
    pub received_bound: u64,
}

/// Bytes of lists a process may have sent to one other and not yet had acknowledged (the
/// receiver acknowledges a list once it has claimed it), for `workers` threads on spaces of
/// at most `degree` neighbours a board: one window's lists at most, `max(send_budget, item x
/// degree x 8) x workers` plus a chunk's header, `item` being the boards of a work item
/// (65,536, or a smaller block); at the shipped sizes and `degree` up to 256, `SEND_BUDGET x
/// workers`: 128 MiB a worker. A list is sent when it fits in what is left, or when nothing is
/// outstanding, so no more than this is ever outstanding.
pub fn credit(tuning: &BufferSizes, workers: usize, degree: usize) -> u64 {
    let boards = tuning.block.map_or(state::ITEM, |b| b.min(state::ITEM));
    let item = boards as usize * degree * 8;
    let window = (tuning.send_budget * workers / item.max(1)).max(workers) * item;
    let budget = tuning.send_budget * workers;
    budget.max(window) as u64 + 64
}

/// Bytes of the other processes' lists one process of `cluster` may hold, received and not
/// yet claimed (in timely's buffers or its own), on spaces of at most `degree` neighbours a
/// board: `(processes - 1) x` [`credit`]. Part of the memory plan
/// (`crate::analysis::cluster_bytes`).
pub fn received_bound(cluster: &Cluster, degree: usize) -> u64 {
    (cluster.processes.max(1) as u64 - 1).saturating_mul(credit(
        &cluster.tuning,
        cluster.workers,
        degree,
    ))
}

/// Why a distributed run stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClusterError {
    /// Bad flags (process out of range, no addresses, ...).
    #[error("{0}")]
    Config(String),
    /// A peer did not connect in time.
    #[error("{0}")]
    Connect(String),
    /// A peer or a worker failed during the run.
    #[error("{0}")]
    Peer(String),
    /// A checkpoint could not be written or read.
    #[error("{0}")]
    Checkpoint(String),
    /// The distance table could not be written (process 0's [`MarksSink`]).
    #[error("{0}")]
    Table(String),
    /// The caller asked to stop ([`Progress::stop_requested`]; the frontier search, between
    /// two chunks).
    #[error("interrupted")]
    Interrupted,
}

/// A process's array that the memory check let through but could not be allocated.
fn out_of_memory(e: crate::bfs::OutOfMemory) -> ClusterError {
    ClusterError::Peer(e.to_string())
}

/// Progress events from the worker to the calling thread (its process's: worker 0 of the
/// marks BFS reports its layers; every process of the frontier search reports its own), and
/// its outcome (`T`: the marks BFS's [`Outcome`], the frontier search's [`Frontier`]).
///
/// [`Frontier`]: crate::bfs::frontier::Frontier
enum Event<T = Outcome> {
    Connected,
    Begin(String, u64),
    Layer {
        depth: u32,
        size: u64,
        reached: u64,
    },
    End,
    /// A line for [`Progress::warn`] (from any process, about its own state).
    Warning(String),
    /// A line for [`Progress::note`].
    Note(String),
    /// A layer of the frontier search, for the caller's `on_layer`.
    Report(crate::bfs::frontier::LayerReport),
    Done(Result<Option<T>, ClusterError>),
    /// Every thread of the run, network threads included, has ended cleanly.
    Finished,
}

/// State shared by the workers of this process and the calling thread.
struct Shared {
    failed: AtomicBool,
    /// The failure's message, and whether it only says that a connection broke (which a
    /// message naming the process that stopped, and why, replaces).
    message: Mutex<Option<(String, bool)>>,
    /// The caller asked to stop ([`Progress::stop_requested`], relayed by [`execute`]).
    stop: AtomicBool,
    /// A worker is telling the other processes why it stops ([`Net::farewell`]): its own
    /// error follows, whatever breaks meanwhile.
    leaving: AtomicBool,
}

impl Shared {
    /// Fails the run with `message`, unless it failed already (but for a broken connection,
    /// [`Shared::fail_weak`], which this replaces).
    fn fail(&self, message: String) {
        self.set(message, false);
    }

    /// Fails the run because a connection broke, unless it failed already: a later
    /// [`Shared::fail`] (a peer's own reason) replaces the message.
    fn fail_weak(&self, message: String) {
        self.set(message, true);
    }

    fn set(&self, message: String, weak: bool) {
        if let Ok(mut slot) = self.message.lock()
            && slot.as_ref().is_none_or(|(_, was_weak)| *was_weak && !weak)
        {
            *slot = Some((message, weak));
        }
        self.failed.store(true, Relaxed);
    }

    fn message(&self) -> String {
        self.message
            .lock()
            .ok()
            .and_then(|m| m.as_ref().map(|(m, _)| m.clone()))
            .unwrap_or_else(|| "a worker failed".to_string())
    }
}

/// Process 0's [`MarksSink`] ([`Setup::table`]), shared by [`run`] and the cluster's thread:
/// the worker that streams the table takes it out.
type TableSlot = Arc<Mutex<Option<Box<dyn MarksSink>>>>;

/// Drops the sink still in its slot when [`run`] returns, so that no error reaches the caller
/// while the cluster's thread, which may outlive it, holds the sink. The caller reports the
/// error and the process exits; a sink dropped by that thread afterwards (or never, when the
/// exit comes first) would leave its temporary file behind (table.npt's, after a refused
/// `--resume`). A worker that took the sink drops it before it reports its outcome.
struct DropSinkOnReturn(TableSlot);

impl Drop for DropSinkOnReturn {
    fn drop(&mut self) {
        let sink = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        drop(sink);
    }
}

/// Runs `job` as this process of `cluster`; returns the outcome on process 0 and `None` on
/// the others. Blocks until every worker of this process is done.
///
/// # Errors
/// [`ClusterError`]: bad configuration, a peer that does not connect within
/// `connect_timeout`, a peer or worker failure during the run, a checkpoint failure.
///
/// Under [`Marking::Depths`], process 0 needs `table` (the other processes ignore theirs).
pub fn run<S: StateSpace + Clone + Send + 'static>(
    cluster: &Cluster,
    job: Job<S>,
    progress: &dyn Progress,
    table: Option<Box<dyn MarksSink>>,
) -> Result<Option<Outcome>, ClusterError> {
    check_processes(cluster)?;
    let Some(first) = job.spaces.first() else {
        return Err(ClusterError::Config("a job needs a space to search".into()));
    };
    if first.rank(&job.goal).is_none() {
        return Err(ClusterError::Config(format!(
            "the goal {} is not in the space searched",
            job.goal.label()
        )));
    }
    if job.per_board && job.spaces.iter().any(|s| s.size() != first.size()) {
        return Err(ClusterError::Config(
            "per-board results need spaces of one size".into(),
        ));
    }
    if job.marking == Marking::Depths {
        if first.sides().is_none() {
            return Err(ClusterError::Config(
                "a distance table from the marks needs a space whose boards show their side \
                 (the single-tile metric on 2 rows and 2 columns or more)"
                    .into(),
            ));
        }
        if cluster.process == 0 && table.is_none() {
            return Err(ClusterError::Config(
                "process 0 of a run that keeps depths needs a table to write".into(),
            ));
        }
    }
    let fingerprint = fingerprint(cluster, &job);
    let table: TableSlot = Arc::new(Mutex::new(table.filter(|_| cluster.process == 0)));
    let _drop_sink = DropSinkOnReturn(Arc::clone(&table));
    let setup = Setup {
        job,
        checkpoint: cluster.checkpoint.clone(),
        checkpoint_every: cluster.checkpoint_every,
        start: cluster.start,
        threads: cluster.workers,
        cores: {
            let mut allowed: Vec<usize> = core_affinity::get_core_ids()
                .unwrap_or_default()
                .into_iter()
                .map(|c| c.id)
                .collect();
            allowed.sort_unstable();
            cluster.cores(&allowed)
        },
        stall_timeout: cluster.stall_timeout,
        tuning: cluster.tuning,
        wires: (0..cluster.processes)
            .map(|p| match cluster.same_host(p) {
                true => Wire::AsFound,
                false => Wire::Sorted,
            })
            .collect(),
        table,
    };
    execute(
        cluster,
        fingerprint,
        progress,
        &mut |_| {},
        move |worker, shared, events| worker_main(worker, &setup, shared, events),
    )
}

/// Checks the processes of `cluster`: at least one, and one worker; this process among them;
/// an address for each.
///
/// # Errors
/// [`ClusterError::Config`] saying what is wrong.
fn check_processes(cluster: &Cluster) -> Result<(), ClusterError> {
    if cluster.processes == 0 || cluster.workers == 0 {
        return Err(ClusterError::Config(
            "--processes and --workers must be at least 1".into(),
        ));
    }
    cluster.tuning.check().map_err(ClusterError::Config)?;
    if cluster.process >= cluster.processes {
        return Err(ClusterError::Config(format!(
            "--process {} is out of range for --processes {} (0..{})",
            cluster.process, cluster.processes, cluster.processes
        )));
    }
    if cluster.processes > 1 && cluster.addresses.len() != cluster.processes {
        return Err(ClusterError::Config(format!(
            "{} processes need {} addresses, got {}",
            cluster.processes,
            cluster.processes,
            cluster.addresses.len()
        )));
    }
    Ok(())
}

/// The worker's side of a run, given to [`execute`]: this process's timely worker, the state
/// shared with the calling thread, and the events to it; returns the outcome (on process 0,
/// or on every process, as the job says).
trait Body<T>:
    Fn(
        &mut timely::worker::Worker,
        &Shared,
        &mpsc::Sender<Event<T>>,
    ) -> Result<Option<T>, ClusterError>
    + Send
    + Sync
    + 'static
{
}

impl<T, F> Body<T> for F where
    F: Fn(
            &mut timely::worker::Worker,
            &Shared,
            &mpsc::Sender<Event<T>>,
        ) -> Result<Option<T>, ClusterError>
        + Send
        + Sync
        + 'static
{
}

/// Runs `body` as this process of `cluster`, whatever the job (the marks BFS of [`run`], the
/// frontier search of [`frontier`]): the connections to the other processes and their hello
/// (`fingerprint`, [`handshake`]), timely's network threads and worker, the panic hook that
/// turns a broken connection into an error, and the relay of the worker's events to
/// `progress` (and of the frontier's layers to `on_report`) on this thread, which also passes
/// on a request to stop ([`Progress::stop_requested`]). Blocks until every worker of this
/// process is done; returns the body's outcome.
///
/// # Errors
/// [`ClusterError::Connect`] when a peer does not connect within the connect timeout; the
/// body's error; [`ClusterError::Peer`] when a peer or a thread failed.
fn execute<T: Send + 'static>(
    cluster: &Cluster,
    fingerprint: handshake::Fingerprint,
    progress: &dyn Progress,
    on_report: &mut dyn FnMut(crate::bfs::frontier::LayerReport),
    body: impl Body<T>,
) -> Result<Option<T>, ClusterError> {
    let shared = Arc::new(Shared {
        failed: AtomicBool::new(false),
        message: Mutex::new(None),
        stop: AtomicBool::new(false),
        leaving: AtomicBool::new(false),
    });
    install_panic_hook(Arc::clone(&shared));
    let (events, inbox) = mpsc::channel::<Event<T>>();
    let peering = (cluster.processes > 1).then(|| handshake::Peering {
        me: cluster.process,
        addresses: cluster.addresses.clone(),
        fingerprint,
        key: cluster.key.as_ref().map(|k| k.0.clone()),
        deadline: Instant::now() + cluster.connect_timeout,
        connect_timeout: cluster.connect_timeout,
    });
    {
        let shared = Arc::clone(&shared);
        let on_error = Arc::clone(&shared);
        let finished = events.clone();
        let warnings = Mutex::new(events.clone());
        let events = Mutex::new(events);
        std::thread::Builder::new()
            .name("npuzzle-cluster".into())
            .spawn(move || {
                let builders = match peering {
                    None => timely::CommunicationConfig::Thread.try_build(),
                    Some(peering) => {
                        let warn = |line: String| {
                            if let Ok(w) = warnings.lock() {
                                let _ = w.send(Event::Warning(line));
                            }
                        };
                        match handshake::connect(&peering, &warn) {
                            Ok(sockets) => from_sockets(sockets, peering.me),
                            Err(e) => {
                                on_error.fail(e.to_string());
                                if let Ok(w) = warnings.lock() {
                                    let _ = w.send(Event::Done(Err(e)));
                                }
                                return;
                            }
                        }
                    }
                };
                let result = builders.and_then(|(builders, others)| {
                    timely::execute::execute_from(
                        builders,
                        others,
                        timely::WorkerConfig::default(),
                        move |worker| {
                            let Ok(sender) = events.lock().map(|e| e.clone()) else {
                                return;
                            };
                            let _ = sender.send(Event::Connected);
                            let outcome = body(worker, &shared, &sender);
                            if let Err(e) = &outcome {
                                shared.fail(e.to_string());
                            }
                            let _ = sender.send(Event::Done(outcome));
                        },
                    )
                });
                match result {
                    // Joining the workers, then dropping the guards, waits for the network
                    // threads' orderly shutdown with every peer.
                    Ok(guards) => {
                        drop(guards.join());
                        let _ = finished.send(Event::Finished);
                    }
                    Err(e) => on_error.fail(format!("cannot start the cluster: {e}")),
                }
            })
            .map_err(|e| ClusterError::Config(format!("cannot start a thread: {e}")))?;
    }
    // Wait for the connections, then relay the progress until every local worker is done.
    // (The exchange gives up at the connect timeout itself, naming what it waited for.)
    let deadline = Instant::now() + cluster.connect_timeout + Duration::from_secs(30);
    let mut connected = false;
    let mut done = 0;
    let mut result: Option<T> = None;
    let mut begun = false;
    loop {
        if progress.stop_requested() {
            shared.stop.store(true, Relaxed);
        }
        let event = inbox.recv_timeout(Duration::from_millis(100));
        match event {
            Ok(Event::Connected) => connected = true,
            Ok(Event::Begin(task, total)) => {
                if begun {
                    progress.end();
                }
                progress.begin(&task, total, "boards");
                begun = true;
            }
            Ok(Event::Layer {
                depth,
                size,
                reached,
            }) => progress.update(
                reached,
                &format!("depth {depth}: {} boards", indicatif::HumanCount(size)),
            ),
            Ok(Event::Warning(line)) => progress.warn(&line),
            Ok(Event::Note(line)) => progress.note(&line),
            Ok(Event::Report(r)) => on_report(r),
            Ok(Event::End) => {
                if begun {
                    progress.end();
                    begun = false;
                }
            }
            Ok(Event::Done(outcome)) => {
                done += 1;
                match outcome {
                    Ok(Some(o)) => result = Some(o),
                    Ok(None) => {}
                    Err(e) => {
                        if begun {
                            progress.end();
                        }
                        return Err(e);
                    }
                }
                if begun {
                    progress.end();
                    begun = false;
                }
            }
            Ok(Event::Finished) => {
                if shared.failed.load(Relaxed) || done < 1 {
                    return Err(ClusterError::Peer(shared.message()));
                }
                if cluster.process == 0 && result.is_none() {
                    return Err(ClusterError::Peer("worker 0 returned no result".into()));
                }
                return Ok(result);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(ClusterError::Peer(shared.message()));
            }
        }
        // (A worker telling the others why it stops reports its own error when done.)
        if shared.failed.load(Relaxed) && !shared.leaving.load(Relaxed) {
            // Give the workers a moment to report their own error, then stop.
            std::thread::sleep(PARK * 5);
            while let Ok(event) = inbox.try_recv() {
                if let Event::Done(Err(e)) = event {
                    return Err(e);
                }
            }
            return Err(ClusterError::Peer(shared.message()));
        }
        if !connected && Instant::now() > deadline {
            return Err(ClusterError::Connect(format!(
                "not every process connected within {} s (this is process {} of {}, addresses {}); \
                 start all of them with the same --processes and --hostfile",
                cluster.connect_timeout.as_secs(),
                cluster.process,
                cluster.processes,
                cluster.addresses.join(" ")
            )));
        }
    }
}

/// What every process of a run must agree on, for the hello of [`handshake`]: the board, the
/// goal, the metric, the spaces, the options that change results, the processes and their
/// workers, the checkpoints and when they are saved, and the front end's
/// [`Cluster::request`].
fn fingerprint<S: StateSpace>(cluster: &Cluster, job: &Job<S>) -> handshake::Fingerprint {
    let yes = |b: bool| if b { "yes" } else { "no" }.to_string();
    let sizes: Vec<String> = job.spaces.iter().map(|s| s.size().to_string()).collect();
    fingerprint_of(
        cluster,
        &job.goal,
        job.metric,
        [
            ("the engine".into(), "whole-space marks".into()),
            ("the spaces' sizes".into(), sizes.join(" + ")),
            ("per-board results".into(), yes(job.per_board)),
            (
                "a distance table".into(),
                yes(job.marking == Marking::Depths),
            ),
            ("the search of every component".into(), yes(job.search_rest)),
            ("--processes".into(), cluster.processes.to_string()),
            ("--workers".into(), cluster.workers.to_string()),
            ("--checkpoint".into(), yes(cluster.checkpoint.is_some())),
            (
                "--checkpoint-every".into(),
                format!("{:?}", cluster.checkpoint_every),
            ),
            ("--resume".into(), yes(cluster.start.resumes())),
        ],
    )
}

/// The peers' fingerprint of either search: the board, the goal and the metric, then the
/// front end's [`Cluster::request`] (what differs there names the run's purpose first), then
/// the engine's own fields, `engine`.
fn fingerprint_of(
    cluster: &Cluster,
    goal: &Board,
    metric: crate::metric::Metric,
    engine: impl IntoIterator<Item = (String, String)>,
) -> handshake::Fingerprint {
    handshake::Fingerprint(
        [
            ("the board".into(), goal.shape().to_string()),
            ("the goal".into(), rows(goal)),
            ("the metric".into(), metric.long_name().into()),
        ]
        .into_iter()
        .chain(cluster.request.iter().cloned())
        .chain(engine)
        .collect(),
    )
}

/// Tells every other process that this one stops with its own error `e` ([`Net::farewell`]),
/// so that their errors name it and why; a peer's error (which that peer has told) is not
/// told again.
fn farewell(net: &mut net::Net<'_>, e: &ClusterError) {
    if !matches!(e, ClusterError::Peer(_)) {
        net.farewell(&e.to_string());
    }
}

/// A board as `solve --batch` reads it: rows separated by `/`, the blank as 0.
fn rows(board: &Board) -> String {
    let cols = board.shape().cols();
    let tiles: Vec<String> = board.tiles().map(|t| t.to_string()).collect();
    tiles
        .chunks(cols)
        .map(|r| r.join(" "))
        .collect::<Vec<_>>()
        .join("/")
}

type Builders = (
    Vec<timely::communication::AllocatorBuilder>,
    Box<dyn std::any::Any + Send>,
);

/// timely's allocators over connected sockets: one worker in this process.
fn from_sockets(sockets: Vec<Option<std::net::TcpStream>>, me: usize) -> Result<Builders, String> {
    use timely::communication::allocator::ProcessBuilder;
    use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
    let hooks = timely::communication::Hooks::default();
    let process = ProcessBuilder::new_typed_vector(1, hooks.refill.clone(), hooks.spill.clone());
    let (builders, guard) = initialize_networking_from_sockets(process, sockets, me, 1, hooks)
        .map_err(|e| format!("cannot start the network threads: {e}"))?;
    Ok((
        builders
            .into_iter()
            .map(timely::communication::AllocatorBuilder::Tcp)
            .collect(),
        Box::new(guard),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::StateIndex;
    use crate::bfs::{LexSpace, Parity, ParitySpace, StateMarks};
    use crate::progress::NoProgress;
    use crate::shape::Shape;

    fn parity_job(goal: &Board, per_board: bool, search_rest: bool) -> Job<ParitySpace> {
        let class = Parity::of(goal);
        Job {
            spaces: vec![
                ParitySpace::new(goal.shape(), class).unwrap(),
                ParitySpace::new(goal.shape(), class.flipped()).unwrap(),
            ],
            goal: goal.clone(),
            metric: crate::metric::Metric::Stm,
            per_board,
            search_rest,
            marking: Marking::Frontier,
            listed: 0,
        }
    }

    /// Process 0's sink of a distance table: every byte, and whether it ended.
    #[derive(Clone, Default)]
    struct Collect(Arc<Mutex<(Vec<u8>, bool)>>);

    impl MarksSink for Collect {
        fn begin(
            &mut self,
            _: &[u64],
            _: u64,
            _: &[(u32, Vec<StateIndex>)],
        ) -> std::io::Result<()> {
            Ok(())
        }
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
            self.0.lock().unwrap().0.extend_from_slice(bytes);
            Ok(())
        }
        fn end(&mut self) -> std::io::Result<()> {
            self.0.lock().unwrap().1 = true;
            Ok(())
        }
    }

    /// Hands on the address a process announces ("listens on ..."): the tests here and the
    /// frontier job's.
    pub(super) struct Announce(pub(super) Mutex<mpsc::Sender<String>>);

    impl Progress for Announce {
        fn begin(&self, _: &str, _: u64, _: &str) {}
        fn update(&self, _: u64, _: &str) {}
        fn end(&self) {}
        fn warn(&self, line: &str) {
            if let Some(rest) = line.split(" listens on ").nth(1)
                && let Some(address) = rest.split_whitespace().next()
            {
                let _ = self.0.lock().unwrap().send(address.to_string());
            }
        }
    }

    /// Runs `job` on `processes` processes of `workers` threads over loopback, each process a
    /// thread of this test started once the ones before it listen, every one with `tuning`
    /// (and `more` applied to its [`Cluster`]); returns process 0's outcome and, under
    /// [`Marking::Depths`], the table it streamed.
    fn loopback<S: StateSpace + Clone + Send + 'static>(
        job: &Job<S>,
        processes: usize,
        workers: usize,
        tuning: BufferSizes,
        more: impl Fn(usize, &mut Cluster),
    ) -> (Outcome, Option<Vec<u8>>) {
        let sink = Collect::default();
        let mut known: Vec<String> = Vec::new();
        let mut threads = Vec::new();
        for p in 0..processes {
            let mut cluster = Cluster {
                processes,
                process: p,
                addresses: (0..processes)
                    .map(|i| known.get(i).cloned().unwrap_or("127.0.0.1:0".into()))
                    .collect(),
                tuning,
                ..Cluster::local(workers)
            };
            more(p, &mut cluster);
            let (tx, rx) = mpsc::channel();
            let job = job.clone();
            let table = (p == 0 && job.marking == Marking::Depths)
                .then(|| Box::new(sink.clone()) as Box<dyn MarksSink>);
            threads.push(std::thread::spawn(move || {
                run(&cluster, job, &Announce(Mutex::new(tx)), table)
            }));
            if p + 1 < processes {
                known.push(rx.recv_timeout(Duration::from_secs(30)).unwrap());
            }
        }
        let mut outcomes: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        for (p, o) in outcomes.iter().enumerate().skip(1) {
            assert!(matches!(o, Ok(None)), "process {p}: {o:?}");
        }
        let outcome = outcomes.swap_remove(0).unwrap().unwrap();
        let table = (job.marking == Marking::Depths).then(|| {
            let (bytes, ended) = std::mem::take(&mut *sink.0.lock().unwrap());
            assert!(ended);
            bytes
        });
        (outcome, table)
    }

    /// Small blocks (32 and 256 boards: 5,670 and 709 block edges in a class of 3x3, every
    /// one a place where a lane move crosses to another process), small windows (a send
    /// budget of 4 KiB: a few items) and a small table window (1,000 bytes, 46 rounds), on 2
    /// and 3 processes of 1 and 2 threads: the 3x3 layer sizes (A089473), antipodes,
    /// components, per-board depths and the distance table of one process with the shipped
    /// sizes.
    #[test]
    fn small_blocks_and_windows_give_the_shipped_results() {
        let goal = Board::goal(Shape::new(3, 3).unwrap());
        let mut job = parity_job(&goal, true, true);
        let mut table_job = parity_job(&goal, false, false);
        table_job.marking = Marking::Depths;
        table_job.listed = 1000;
        job.spaces.truncate(2);
        let (want, _) = loopback(&job, 1, 1, BufferSizes::default(), |_, _| {});
        let (_, want_table) = loopback(&table_job, 1, 1, BufferSizes::default(), |_, _| {});
        assert_eq!(want.layer_sizes, crate::published::A089473);
        for (processes, workers, block) in [(2, 1, 32), (3, 2, 256), (2, 2, 32)] {
            let tuning = BufferSizes {
                send_budget: 4096,
                table_window: 1000,
                block: Some(block),
                ..BufferSizes::default()
            };
            let (got, _) = loopback(&job, processes, workers, tuning, |_, _| {});
            let what = format!("{processes} x {workers}, blocks of {block}");
            assert_eq!(got.layer_sizes, want.layer_sizes, "{what}");
            assert_eq!(got.antipodes, want.antipodes, "{what}");
            assert_eq!(got.components, want.components, "{what}");
            assert!(got.depths == want.depths, "{what}: per-board depths differ");
            assert!(got.traffic.sent_indices > 0);
            let (_, table) = loopback(&table_job, processes, workers, tuning, |_, _| {});
            assert!(table == want_table, "{what}: the table differs");
        }
    }

    /// Back-pressure: process 1 of 3 pauses after each of its windows (a loaded host), so the
    /// others finish their windows first; each keeps at most one credit (a window's lists) of
    /// unacknowledged lists to it, so what process 1 holds received and unclaimed stays
    /// within the bound of the memory plan ([`received_bound`]), far below what the others
    /// send it in a layer; the results are the one-process run's.
    #[test]
    #[ignore = "slow: a throttled process over a whole run (13 s); CI runs it"]
    fn a_slow_process_holds_no_more_than_its_credit() {
        let goal = Board::goal(Shape::new(3, 3).unwrap());
        let job = parity_job(&goal, true, false);
        let (want, _) = loopback(&job, 1, 1, BufferSizes::default(), |_, _| {});
        let tuning = BufferSizes {
            send_budget: 1024,
            block: Some(32),
            pause: Some((1, Duration::from_micros(300))),
            ..BufferSizes::default()
        };
        let (got, _) = loopback(&job, 3, 1, tuning, |_, _| {});
        assert_eq!(got.layer_sizes, want.layer_sizes);
        assert!(got.depths == want.depths, "per-board depths differ");
        let t = got.traffic;
        // One window: 32 boards, 4 neighbours, 8 bytes each (or the budget of 1 KiB).
        assert_eq!(credit(&tuning, 1, 4), 1024 + 64);
        assert_eq!(t.received_bound, 2 * (1024 + 64));
        assert!(t.peak_in_flight <= 1024 + 64, "{t:?}");
        assert!(t.peak_unclaimed <= t.received_bound, "{t:?}");
        // The others sent far more than the bound: it held.
        assert!(t.sent_bytes > 20 * t.received_bound, "{t:?}");
        assert!(t.peak_unclaimed > 0 && t.peak_in_flight > 0, "{t:?}");
    }

    /// `--bind auto`: processes sharing a host take consecutive runs of the allowed cores,
    /// counted among that host's processes only; no binding when alone on a host, when the
    /// workers outnumber the cores, or under `--bind none`; [`Cluster::same_host`] by the
    /// same rule.
    #[test]
    fn processes_sharing_a_host_bind_to_cores_of_their_own() {
        let cluster = |addresses: &[&str], process: usize, workers: usize| Cluster {
            processes: addresses.len(),
            process,
            addresses: addresses.iter().map(|a| a.to_string()).collect(),
            ..Cluster::local(workers)
        };
        let loopback = ["127.0.0.1:2101", "127.0.0.1:2102"];
        assert_eq!(cluster(&loopback, 0, 1).cores(&[0, 1]), Some(vec![0]));
        assert_eq!(cluster(&loopback, 1, 1).cores(&[0, 1]), Some(vec![1]));
        // The allowed cores, not 0..n (a process started under taskset or a cgroup).
        assert_eq!(
            cluster(&loopback, 1, 2).cores(&[2, 3, 6, 7]),
            Some(vec![6, 7])
        );
        // More workers than cores: the system places them.
        assert_eq!(cluster(&loopback, 0, 2).cores(&[0, 1, 2]), None);
        assert_eq!(cluster(&loopback, 0, 1).cores(&[]), None);
        // Three processes on two hosts: b's two share, a's one is alone.
        let hosts = ["b:1", "a:1", "b:2"];
        assert_eq!(cluster(&hosts, 0, 2).cores(&[0, 1, 2, 3]), Some(vec![0, 1]));
        assert_eq!(cluster(&hosts, 2, 2).cores(&[0, 1, 2, 3]), Some(vec![2, 3]));
        assert_eq!(cluster(&hosts, 1, 2).cores(&[0, 1, 2, 3]), None);
        // Which processes share the host (their lists go as found, the others' sorted).
        let same = |me: usize| -> Vec<bool> {
            (0..3)
                .map(|p| cluster(&hosts, me, 1).same_host(p))
                .collect()
        };
        assert_eq!(same(0), vec![true, false, true]);
        assert_eq!(same(1), vec![false, true, false]);
        assert!(Cluster::local(1).same_host(0));
        // IPv6 addresses: the host is what precedes the last colon.
        let six = ["[::1]:2101", "[::1]:2102"];
        assert_eq!(cluster(&six, 1, 1).cores(&[0, 1]), Some(vec![1]));
        // One process, or --bind none.
        assert_eq!(Cluster::local(2).cores(&[0, 1]), None);
        let none = Cluster {
            bind: Bind::None,
            ..cluster(&loopback, 0, 1)
        };
        assert_eq!(none.cores(&[0, 1]), None);
    }

    /// Issue 24: the multi-tile metric through the same job, with no change of the engine:
    /// every grid up to 10 cells (and one-row boards on the lexicographic space), 1 and 3
    /// threads, equal to the one-machine driver's layers in MTM (3x3: radius 24).
    #[test]
    fn the_multi_tile_metric_runs_unchanged() {
        use crate::metric::Metric;
        for shape in Shape::all_up_to(10) {
            let goal = Board::goal(shape);
            if shape.is_grid() {
                let space = ParitySpace::with_metric(shape, Parity::Even, Metric::Mtm).unwrap();
                let marks = StateMarks::new(space.size());
                let expected = crate::bfs::run(
                    &space,
                    &marks,
                    space.rank(&goal).unwrap(),
                    &(),
                    |_, _, _| {},
                )
                .sizes;
                if shape == Shape::new(3, 3).unwrap() {
                    assert_eq!(expected.len() - 1, 24);
                }
                for workers in [1, 3] {
                    let job = Job {
                        spaces: vec![space.clone()],
                        goal: goal.clone(),
                        metric: Metric::Mtm,
                        per_board: false,
                        search_rest: false,
                        marking: Marking::Frontier,
                        listed: 0,
                    };
                    let o = run(&Cluster::local(workers), job, &NoProgress, None)
                        .unwrap()
                        .unwrap();
                    assert_eq!(o.layer_sizes, expected, "{shape} {workers} workers");
                }
            } else {
                let space = LexSpace::with_metric(shape, Metric::Mtm).unwrap();
                let job = Job {
                    spaces: vec![space],
                    goal: goal.clone(),
                    metric: Metric::Mtm,
                    per_board: false,
                    search_rest: false,
                    marking: Marking::Frontier,
                    listed: 0,
                };
                let o = run(&Cluster::local(2), job, &NoProgress, None)
                    .unwrap()
                    .unwrap();
                // The blank jumps anywhere in its row: every other blank cell is one move.
                let mut sizes = vec![1];
                if shape.cells() > 1 {
                    sizes.push(shape.cells() as u64 - 1);
                }
                assert_eq!(o.layer_sizes, sizes, "{shape}");
            }
        }
    }

    /// One process, 1 and 3 threads, with pull steps and (checkpointing) without: the 3x3
    /// layer sizes (OEIS A089473), the two antipodes, both components searched, and every
    /// board's depth equal to the one-machine driver's; without pull steps every board of both
    /// classes is expanded exactly once.
    #[test]
    fn threads_of_one_process_agree_with_the_published_3x3_figures() {
        let shape = Shape::new(3, 3).unwrap();
        let goal = Board::goal(shape);
        let a089473 = crate::published::A089473;
        let space = ParitySpace::new(shape, Parity::Even).unwrap();
        let reference = crate::bfs::DepthArray::new(space.size());
        let marks = StateMarks::new(space.size());
        let seed = space.rank(&goal).unwrap();
        crate::bfs::run(&space, &marks, seed, &reference, |_, _, _| {});
        let dir = tempfile::tempdir().unwrap();
        for (workers, checkpoint) in [(1, false), (3, false), (3, true)] {
            let job = parity_job(&goal, true, true);
            let mut cluster = Cluster::local(workers);
            cluster.checkpoint = checkpoint.then(|| dir.path().to_path_buf());
            let o = run(&cluster, job, &NoProgress, None).unwrap().unwrap();
            assert_eq!(o.layer_sizes, a089473, "{workers} workers");
            let labels: Vec<String> = o.antipodes.iter().map(Board::label).collect();
            assert_eq!(labels, ["647859321", "867254391"]);
            assert_eq!(o.components, [181_440, 181_440]);
            assert_eq!(o.depths.unwrap(), reference.raw_bytes());
            match checkpoint {
                true => assert_eq!(o.traffic.expanded, 362_880),
                // Pull steps examine the unseen boards instead of expanding the last
                // frontiers: fewer boards.
                false => assert!(o.traffic.expanded < 362_880, "{}", o.traffic.expanded),
            }
            assert_eq!(o.traffic.sent_indices, 0, "one process sends nothing");
        }
    }

    /// Every grid up to 10 cells, from the standard goal and from a goal in the other parity
    /// class (two tiles swapped) and with the blank inside: the layer sizes and last layer of
    /// the one-machine driver, with 1 and 3 threads (3 threads and more than the words of a
    /// 2x2 or 2x3 board's marks).
    #[test]
    fn every_small_grid_and_both_classes_agree_with_the_one_machine_driver() {
        for shape in Shape::all_up_to(10).filter(|s| s.is_grid()) {
            let goals = Board::test_goals(shape);
            for goal in &goals {
                let space = ParitySpace::new(shape, Parity::of(goal)).unwrap();
                let marks = StateMarks::new(space.size());
                let want =
                    crate::bfs::run(&space, &marks, space.rank(goal).unwrap(), &(), |_, _, _| {});
                let mut want_last: Vec<Board> =
                    want.last.iter().map(|&i| space.unrank(i)).collect();
                want_last.sort_by_cached_key(Board::rank);
                for workers in [1, 3] {
                    let o = run(
                        &Cluster::local(workers),
                        parity_job(goal, false, false),
                        &NoProgress,
                        None,
                    )
                    .unwrap()
                    .unwrap();
                    assert_eq!(
                        o.layer_sizes,
                        want.sizes,
                        "{shape} {} {workers}",
                        goal.label()
                    );
                    assert_eq!(o.antipodes, want_last, "{shape} {}", goal.label());
                }
            }
        }
    }

    /// The cluster on the lexicographic space of one-row boards: every component by BFS
    /// (1x5: 4! = 24 paths of 5 boards), and the goal's layers (one board per depth).
    #[test]
    fn one_row_boards_run_on_the_lexicographic_space() {
        for n in [4usize, 5] {
            let shape = Shape::new(1, n).unwrap();
            let job = Job {
                spaces: vec![LexSpace::new(shape).unwrap()],
                goal: Board::goal(shape),
                metric: crate::metric::Metric::Stm,
                per_board: true,
                search_rest: true,
                marking: Marking::Frontier,
                listed: 0,
            };
            let o = run(&Cluster::local(2), job, &NoProgress, None)
                .unwrap()
                .unwrap();
            assert_eq!(o.layer_sizes, vec![1; n]);
            let factorial: u64 = (1..n as u64).product();
            assert_eq!(o.components, vec![n as u64; factorial as usize]);
            let depths = o.depths.unwrap();
            assert_eq!(depths.iter().filter(|&&d| d > 0).count(), n);
        }
    }

    #[test]
    fn bad_configurations_are_refused() {
        let job = parity_job(&Board::goal(Shape::new(3, 3).unwrap()), false, false);
        let mut c = Cluster::local(1);
        c.process = 1;
        assert!(matches!(
            run(&c, job.clone(), &NoProgress, None),
            Err(ClusterError::Config(_))
        ));
        let mut c = Cluster::local(1);
        c.processes = 2;
        assert!(matches!(
            run(&c, job.clone(), &NoProgress, None),
            Err(ClusterError::Config(_))
        ));
        let mut wrong = job;
        wrong.spaces.reverse();
        assert!(matches!(
            run(&Cluster::local(1), wrong, &NoProgress, None),
            Err(ClusterError::Config(_))
        ));
    }
}
