//! The distributed driver: the same BFS over a [`ParitySpace`] on several processes (and
//! several worker threads in each) with timely-dataflow (McSherry et al., "Naiad", SOSP 2013)
//! as the communication layer, with per-layer checkpoints.
//!
//! **Ownership.** The index `0..size` is cut into one contiguous slice per worker (whole
//! 64-bit words of marks); a worker holds only its slice's [`StateMarks`] (and, for
//! per-board results, its slice's depths). Worker `g` of `P x W` is thread `g % W` of process
//! `g / W`, as timely numbers them, so a process owns one contiguous range.
//!
//! **A layer** is one bulk-synchronous step: each worker scans its slice for the frontier
//! code, sends the boards to the shared kernel ([`StateSpace::expand`]), claims the
//! neighbours it owns, and sends the others to their owners in batches (sorted, deduplicated,
//! gap-encoded: [`super::codec`]). A receiving worker claims them as they arrive. The layer
//! ends when timely's progress tracking says every message of the round has been applied
//! (one global barrier); then the workers exchange their counts, so each knows the layer's
//! size.
//!
//! **Checkpoints** (`--checkpoint DIR`): after each layer every worker writes its slice, the
//! layer sizes and the search's state to `DIR/process-P/worker-G.{0,1}.ckpt` (alternating,
//! so the previous one survives a crash during the write; temp file, fsync, rename, CRC-32).
//! A resumed run loads, on every worker, the latest step that every worker has saved.
//!
//! **Failures** are fail-stop: timely's network threads panic when a peer's connection
//! breaks ("timely communication error"); the panic is caught, every worker of the process
//! stops within a fraction of a second, and [`run`] returns [`ClusterError::Peer`]. A peer
//! that never connects gives [`ClusterError::Connect`] after the connect timeout.

use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::operators::{Exchange, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

use super::codec::{decode_sorted, encode_sorted};
use super::marks::{FIELDS_PER_WORD, LOW_BITS};
use super::step::code;
use super::{DepthArray, Parity, ParitySpace, StateIndex, StateMarks, StateSpace, list_limit};
use crate::board::Board;
use crate::progress::Progress;

/// Boards handed to the kernel at once.
const BATCH: usize = 512;
/// Bytes of outgoing indices a worker buffers over all its peers before sending.
pub(crate) const SEND_BUDGET: usize = 32 << 20;
/// Largest message of depths sent to worker 0 at the end.
const GATHER_CHUNK: usize = 16 << 20;
/// How long a waiting worker parks before it looks for a failure again.
const PARK: Duration = Duration::from_millis(20);

/// The processes and workers of a distributed run, in timely's own terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// Number of processes (`-n` in timely).
    pub processes: usize,
    /// This process, `0..processes` (`-p`); process 0 gathers the results.
    pub process: usize,
    /// Worker threads per process (`-w`).
    pub workers: usize,
    /// `host:port` of every process, in order (the hostfile's lines); unused for one process.
    pub addresses: Vec<String>,
    /// Folder for per-layer checkpoints.
    pub checkpoint: Option<PathBuf>,
    /// Start from the latest checkpoint that every worker completed.
    pub resume: bool,
    /// How long to wait for every peer to connect.
    pub connect_timeout: Duration,
}

impl Cluster {
    /// Total workers over all processes.
    pub fn peers(&self) -> usize {
        self.processes * self.workers
    }

    /// Reads a hostfile: one `host:port` per line (blank lines and `#` comments skipped), the
    /// first `processes` used.
    ///
    /// # Errors
    /// A one-line message when the file cannot be read or has fewer lines.
    pub fn read_hostfile(path: &Path, processes: usize) -> Result<Vec<String>, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read hostfile {}: {e}", path.display()))?;
        let hosts: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .take(processes)
            .collect();
        if hosts.len() < processes {
            return Err(format!(
                "hostfile {} has {} addresses, {processes} processes need one each",
                path.display(),
                hosts.len()
            ));
        }
        Ok(hosts)
    }

    /// timely's default addresses: `localhost:2101`, `localhost:2102`, ...
    pub fn default_addresses(processes: usize) -> Vec<String> {
        (0..processes)
            .map(|i| format!("localhost:{}", 2101 + i))
            .collect()
    }

    fn timely_config(&self) -> timely::Config {
        let communication = if self.processes > 1 {
            timely::CommunicationConfig::Cluster {
                threads: self.workers,
                process: self.process,
                addresses: self.addresses.clone(),
                report: false,
                zerocopy: false,
            }
        } else if self.workers > 1 {
            timely::CommunicationConfig::Process(self.workers)
        } else {
            timely::CommunicationConfig::Thread
        };
        timely::Config {
            communication,
            worker: timely::WorkerConfig::default(),
        }
    }
}

/// What a distributed run searches.
#[derive(Debug, Clone)]
pub struct Job {
    /// The BFS starts here; its class is searched first.
    pub goal: Board,
    /// Gather every board's depth on process 0.
    pub per_board: bool,
    /// Also explore every other component by BFS (both parity classes), as the one-machine
    /// analysis does up to 12 cells.
    pub search_rest: bool,
}

/// What process 0 gets back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Boards per depth from the goal.
    pub layer_sizes: Vec<u64>,
    /// The last layer's boards (ascending lexicographic rank) when it has at most
    /// [`list_limit`] boards, else empty.
    pub antipodes: Vec<Board>,
    /// Sizes of the components searched, the goal's first.
    pub components: Vec<u64>,
    /// Per board of the goal's class (its [`ParitySpace`] index): depth + 1, 0 when not
    /// reached; when [`Job::per_board`].
    pub depths: Option<Vec<u8>>,
    /// Boards expanded and bytes of indices sent between workers, over all workers.
    pub traffic: Traffic,
}

/// Work and network volume of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Traffic {
    /// Boards expanded by the kernel.
    pub expanded: u64,
    /// Neighbour indices sent to another worker.
    pub sent_indices: u64,
    /// Bytes of those indices once encoded.
    pub sent_bytes: u64,
    /// The checkpoint step (layers completed) this run resumed from, if it did.
    #[serde(default)]
    pub resumed_from: Option<u64>,
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
}

/// Progress events from worker 0 to the calling thread.
enum Event {
    Connected,
    Begin(String, u64),
    Layer {
        depth: u32,
        size: u64,
        reached: u64,
    },
    End,
    Done(Result<Option<Outcome>, ClusterError>),
    /// Every thread of the run, network threads included, has ended cleanly.
    Finished,
}

/// State shared by the workers of this process and the calling thread.
struct Shared {
    failed: AtomicBool,
    message: Mutex<Option<String>>,
}

impl Shared {
    fn fail(&self, message: String) {
        if let Ok(mut slot) = self.message.lock()
            && slot.is_none()
        {
            *slot = Some(message);
        }
        self.failed.store(true, Relaxed);
    }

    fn message(&self) -> String {
        self.message
            .lock()
            .ok()
            .and_then(|m| m.clone())
            .unwrap_or_else(|| "a worker failed".to_string())
    }
}

/// Runs `job` as this process of `cluster`; returns the outcome on process 0 and `None` on
/// the others. Blocks until every worker of this process is done.
///
/// # Errors
/// [`ClusterError`]: bad configuration, a peer that does not connect within
/// `connect_timeout`, a peer or worker failure during the run, a checkpoint failure.
pub fn run(
    cluster: &Cluster,
    job: Job,
    progress: &dyn Progress,
) -> Result<Option<Outcome>, ClusterError> {
    if cluster.processes == 0 || cluster.workers == 0 {
        return Err(ClusterError::Config(
            "--processes and --workers must be at least 1".into(),
        ));
    }
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
    if ParitySpace::new(job.goal.shape(), Parity::Even).is_none() {
        return Err(ClusterError::Config(format!(
            "the distributed engine runs boards of at least 2 rows and 2 columns, up to {} cells",
            ParitySpace::MAX_CELLS
        )));
    }
    let shared = Arc::new(Shared {
        failed: AtomicBool::new(false),
        message: Mutex::new(None),
    });
    install_panic_hook(Arc::clone(&shared));
    let (events, inbox) = mpsc::channel::<Event>();
    let config = cluster.timely_config();
    // timely prints its connection attempts on stdout ("awaiting connections", "retrying"),
    // where the report goes: silence it until every peer is connected.
    let mut quiet = (cluster.processes > 1).then(QuietStdout::new).flatten();
    let setup = Setup {
        job,
        checkpoint: cluster.checkpoint.clone(),
        resume: cluster.resume,
        process: cluster.process,
    };
    {
        let shared = Arc::clone(&shared);
        let on_error = Arc::clone(&shared);
        let finished = events.clone();
        let events = Mutex::new(events);
        std::thread::Builder::new()
            .name("npuzzle-cluster".into())
            .spawn(move || {
                let result = timely::execute(config, move |worker| {
                    let Ok(sender) = events.lock().map(|e| e.clone()) else {
                        return;
                    };
                    let _ = sender.send(Event::Connected);
                    let outcome = worker_main(worker, &setup, &shared, &sender);
                    if let Err(e) = &outcome {
                        shared.fail(e.to_string());
                    }
                    let _ = sender.send(Event::Done(outcome));
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
    let deadline = Instant::now() + cluster.connect_timeout;
    let mut connected = false;
    let mut done = 0;
    let mut result: Option<Outcome> = None;
    let mut begun = false;
    loop {
        let event = inbox.recv_timeout(Duration::from_millis(100));
        match event {
            Ok(Event::Connected) => {
                connected = true;
                drop(quiet.take());
            }
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
                if done == cluster.workers && begun {
                    progress.end();
                    begun = false;
                }
            }
            Ok(Event::Finished) => {
                if shared.failed.load(Relaxed) || done < cluster.workers {
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
        if shared.failed.load(Relaxed) {
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

/// Points stdout at /dev/null while alive (Unix), restoring it on drop.
struct QuietStdout {
    #[cfg(unix)]
    saved: libc::c_int,
}

impl QuietStdout {
    fn new() -> Option<QuietStdout> {
        #[cfg(unix)]
        {
            let _ = std::io::stdout().flush();
            let null = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/null")
                .ok()?;
            use std::os::fd::AsRawFd;
            // SAFETY: dup and dup2 on valid descriptors; `null` outlives the calls, and the
            // saved descriptor is restored and closed exactly once, in drop.
            unsafe {
                let saved = libc::dup(1);
                if saved < 0 {
                    return None;
                }
                if libc::dup2(null.as_raw_fd(), 1) < 0 {
                    libc::close(saved);
                    return None;
                }
                Some(QuietStdout { saved })
            }
        }
        #[cfg(not(unix))]
        None
    }
}

impl Drop for QuietStdout {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: restores the descriptor saved in `new` and closes the copy.
        unsafe {
            let _ = std::io::stdout().flush();
            libc::dup2(self.saved, 1);
            libc::close(self.saved);
        }
    }
}

/// The run whose threads' panics [`install_panic_hook`] routes.
static CURRENT: Mutex<Option<Arc<Shared>>> = Mutex::new(None);

/// Routes panics of timely's threads to the current run's [`Shared`] (one line, no
/// backtrace): timely's network threads panic when a peer's connection breaks. Panics of
/// other threads go to the previous hook. Installed once per process.
fn install_panic_hook(shared: Arc<Shared>) {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    if let Ok(mut current) = CURRENT.lock() {
        *current = Some(shared);
    }
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let ours = std::thread::current()
                .name()
                .is_some_and(|n| n.starts_with("timely:") || n == "npuzzle-cluster");
            let shared = CURRENT.lock().ok().and_then(|c| c.clone());
            let (true, Some(shared)) = (ours, shared) else {
                previous(info);
                return;
            };
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".to_string());
            shared.fail(if message.contains("timely communication error") {
                format!("a peer process stopped or its connection broke ({message})")
            } else if message.contains("MergeQueue poisoned") {
                "a peer process stopped or its connection broke".to_string()
            } else {
                format!("a worker failed: {message}")
            });
        }));
    });
}

/// What every worker needs to know.
struct Setup {
    job: Job,
    checkpoint: Option<PathBuf>,
    resume: bool,
    process: usize,
}

/// One worker's slice of a space: boards `lo..hi` (whole words).
struct Slice {
    lo: u64,
    marks: StateMarks,
    /// The goal class's depths of this slice (per-board results): recorded while the goal's
    /// class is searched, carried (and checkpointed) through the other class's search. Both
    /// classes have `n!/2` boards, so the slices have the same bounds.
    depths: Option<DepthArray>,
    /// Whether claims record their depth in `depths` (the goal's class).
    record: bool,
}

/// Where incoming messages go (the dataflow's operators run inside `worker.step()`, on this
/// thread, so plain cells suffice; no borrow is held across a step).
#[derive(Default)]
struct Sink {
    slice: RefCell<Option<Rc<Slice>>>,
    code: Cell<u64>,
    depth: Cell<u32>,
    found: Cell<u64>,
    corrupt: Cell<bool>,
    /// The round whose claims are applied now; claims of later rounds (sent by a worker that
    /// is already a layer ahead) wait in `pending` until this worker gets there.
    round: Cell<u64>,
    pending: RefCell<Vec<(u64, Vec<u8>)>>,
    /// Control messages: (round, sender, payload).
    mailbox: RefCell<Vec<(u64, u32, Vec<u8>)>>,
}

impl Sink {
    /// Claims one board of this worker's slice (global index) for the next layer.
    #[inline]
    fn claim(&self, slice: &Slice, index: u64) {
        let local = StateIndex(index - slice.lo);
        if slice.marks.claim(local, self.code.get()) {
            self.found.set(self.found.get() + 1);
            if slice.record
                && let Some(d) = &slice.depths
            {
                crate::bfs::OnVisit::visit(d, local, self.depth.get());
            }
        }
    }

    /// Claims the indices of a message of round `round`, now or when this worker reaches it.
    fn receive(&self, round: u64, bytes: &[u8]) {
        if round == self.round.get() {
            self.apply(bytes);
        } else {
            self.pending.borrow_mut().push((round, bytes.to_vec()));
        }
    }

    /// Starts applying the claims of `round` with frontier `code`, at `depth`.
    fn start(&self, round: u64, code: u64, depth: u32) {
        self.round.set(round);
        self.code.set(code);
        self.depth.set(depth);
        self.found.set(0);
        let now: Vec<(u64, Vec<u8>)> = {
            let mut pending = self.pending.borrow_mut();
            let (now, later) = pending.drain(..).partition(|(r, _)| *r == round);
            *pending = later;
            now
        };
        for (_, bytes) in now {
            self.apply(&bytes);
        }
    }

    fn apply(&self, bytes: &[u8]) {
        let slice = self.slice.borrow().clone();
        let Some(slice) = slice else {
            self.corrupt.set(true);
            return;
        };
        let end = slice.lo + slice.marks.len();
        let ok = decode_sorted(bytes, slice.lo, |i| {
            if i < end {
                self.claim(&slice, i);
            } else {
                self.corrupt.set(true);
            }
        });
        if ok.is_err() {
            self.corrupt.set(true);
        }
    }
}

/// A message: (target worker, sending worker, payload).
type Record = (u32, u32, Vec<u8>);
type Inbox = InputHandle<u64, CapacityContainerBuilder<Vec<Record>>>;

/// One worker's connection to the others: two inputs (claims, control), one probe, rounds.
struct Net<'w> {
    worker: &'w mut Worker,
    claims: Inbox,
    control: Inbox,
    probe: ProbeHandle<u64>,
    round: u64,
    sink: Rc<Sink>,
    shared: &'w Shared,
    me: usize,
    peers: usize,
    traffic: Traffic,
}

impl Net<'_> {
    /// Ends the current round: waits until every worker's messages of it have been applied.
    fn sync(&mut self) -> Result<(), ClusterError> {
        self.round += 1;
        self.claims.advance_to(self.round);
        self.control.advance_to(self.round);
        while self.probe.less_than(&self.round) {
            if self.shared.failed.load(Relaxed) {
                return Err(ClusterError::Peer(self.shared.message()));
            }
            self.worker.step_or_park(Some(PARK));
        }
        if self.sink.corrupt.get() {
            return Err(ClusterError::Peer(
                "a corrupt message of board indices arrived".into(),
            ));
        }
        Ok(())
    }

    /// Sends `payload` to every worker; returns what every worker sent, by sender.
    fn all_gather(&mut self, payload: &[u8]) -> Result<Vec<Vec<u8>>, ClusterError> {
        for g in 0..self.peers {
            self.control
                .send((g as u32, self.me as u32, payload.to_vec()));
        }
        self.collect_round().map(|mut got| {
            got.sort_by_key(|(sender, _)| *sender);
            got.into_iter().map(|(_, p)| p).collect()
        })
    }

    /// Sends `payloads` to worker 0; worker 0 gets every worker's, in sender order.
    fn gather(&mut self, payloads: Vec<Vec<u8>>) -> Result<Vec<(u32, Vec<u8>)>, ClusterError> {
        for p in payloads {
            self.control.send((0, self.me as u32, p));
            self.worker.step();
        }
        let mut got = self.collect_round()?;
        got.sort_by_key(|(sender, _)| *sender);
        Ok(got)
    }

    fn collect_round(&mut self) -> Result<Vec<(u32, Vec<u8>)>, ClusterError> {
        let round = self.round;
        self.sync()?;
        let mut mailbox = self.sink.mailbox.borrow_mut();
        let (mine, rest): (Vec<_>, Vec<_>) = mailbox.drain(..).partition(|(r, _, _)| *r == round);
        *mailbox = rest;
        Ok(mine.into_iter().map(|(_, s, p)| (s, p)).collect())
    }

    /// The sum of `value` over all workers.
    fn sum(&mut self, value: u64) -> Result<u64, ClusterError> {
        let all = self.all_gather(&value.to_le_bytes())?;
        Ok(all.iter().map(|b| read_u64(b)).sum())
    }

    /// Sends the encoded indices `sorted` (ascending, distinct) to worker `target`.
    fn send_indices(&mut self, target: usize, base: u64, sorted: &[u64]) {
        let mut bytes = Vec::with_capacity(sorted.len() * 3);
        encode_sorted(sorted, base, &mut bytes);
        self.traffic.sent_indices += sorted.len() as u64;
        self.traffic.sent_bytes += bytes.len() as u64;
        self.claims.send((target as u32, self.me as u32, bytes));
        // Let the message go out and apply what has come in.
        self.worker.step();
    }
}

fn read_u64(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = bytes.len().min(8);
    b[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(b)
}

/// The search's position, saved in every checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Phase {
    /// 0: the goal's class; 1: the other class.
    class: u8,
    /// The goal BFS's layer sizes, once it has ended.
    goal_layers: Vec<u64>,
    /// The goal BFS's last layer (indices), gathered on worker 0.
    antipodes: Vec<u64>,
    /// Sizes of the components already explored, in order.
    done: Vec<u64>,
    /// Layer sizes of the BFS in progress, through its last completed layer (empty: none).
    current: Vec<u64>,
    /// Layers completed over the whole run (the checkpoint's step number).
    step: u64,
    /// Work and traffic so far (this worker's).
    traffic: Traffic,
}

/// The slice of worker `g` of `peers` over a space of `size` boards: `(lo, hi)`.
fn slice_bounds(size: u64, peers: usize, g: usize) -> (u64, u64) {
    let per = words_per_worker(size, peers);
    let lo = (g as u64 * per * FIELDS_PER_WORD).min(size);
    let hi = ((g as u64 + 1) * per * FIELDS_PER_WORD).min(size);
    (lo, hi)
}

fn words_per_worker(size: u64, peers: usize) -> u64 {
    size.div_ceil(FIELDS_PER_WORD).div_ceil(peers as u64).max(1)
}

fn worker_main(
    worker: &mut Worker,
    setup: &Setup,
    shared: &Shared,
    events: &mpsc::Sender<Event>,
) -> Result<Option<Outcome>, ClusterError> {
    let me = worker.index();
    let peers = worker.peers();
    let sink = Rc::new(Sink::default());
    let mut claims = InputHandle::new();
    let mut control = InputHandle::new();
    let probe = ProbeHandle::new();
    {
        let (s1, s2) = (Rc::clone(&sink), Rc::clone(&sink));
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut claims)
                .container::<Vec<Record>>()
                .exchange(|r: &Record| u64::from(r.0))
                .inspect_time(move |t: &u64, r: &Record| s1.receive(*t, &r.2))
                .probe_with(&probe);
            scope
                .input_from(&mut control)
                .container::<Vec<Record>>()
                .exchange(|r: &Record| u64::from(r.0))
                .inspect_time(move |t: &u64, r: &Record| {
                    s2.mailbox.borrow_mut().push((*t, r.1, r.2.clone()));
                })
                .probe_with(&probe);
        });
    }
    let mut net = Net {
        worker,
        claims,
        control,
        probe,
        round: 0,
        sink,
        shared,
        me,
        peers,
        traffic: Traffic::default(),
    };
    let job = &setup.job;
    let shape = job.goal.shape();
    let goal_class = Parity::of(&job.goal);
    let checkpoints = setup
        .checkpoint
        .as_ref()
        .map(|dir| Checkpoints::new(dir, setup.process, me, peers, job));
    // Resume: the latest step every worker has.
    let mut phase = Phase::default();
    let mut loaded: Option<(Slice, Phase)> = None;
    if let Some(ck) = &checkpoints {
        ck.prepare(setup.resume)?;
        if setup.resume {
            let mine = ck.available()?;
            let encoded = serde_json::to_vec(&mine).unwrap_or_default();
            let all = net.all_gather(&encoded)?;
            let mut common: Option<Vec<u64>> = None;
            for bytes in &all {
                let theirs: Vec<u64> = serde_json::from_slice(bytes).unwrap_or_default();
                common = Some(match common {
                    None => theirs,
                    Some(c) => c.into_iter().filter(|s| theirs.contains(s)).collect(),
                });
            }
            if let Some(step) = common.and_then(|c| c.into_iter().max()) {
                let (slice, p) = ck.load(step, |class| space_of(shape, goal_class, class))?;
                phase = p.clone();
                net.traffic = p.traffic;
                net.traffic.resumed_from = Some(step);
                loaded = Some((slice, p));
            }
        }
    }
    let last_class = if job.search_rest { 1 } else { 0 };
    // The goal class's depths, carried from one class to the next.
    let mut depths: Option<DepthArray> = None;
    while phase.class <= last_class {
        let space = space_of(shape, goal_class, phase.class);
        let (lo, hi) = slice_bounds(space.size(), peers, me);
        let slice = Rc::new(match loaded.take() {
            Some((slice, _)) => slice,
            None => Slice {
                lo,
                marks: StateMarks::new(hi - lo),
                depths: if phase.class == 0 {
                    job.per_board.then(|| DepthArray::new(hi - lo))
                } else {
                    depths.take()
                },
                record: phase.class == 0,
            },
        });
        *net.sink.slice.borrow_mut() = Some(Rc::clone(&slice));
        if me == 0 {
            let task = if phase.class == 0 && phase.goal_layers.is_empty() {
                "distances"
            } else {
                "components"
            };
            let _ = events.send(Event::Begin(task.into(), space.size()));
        }
        loop {
            if phase.current.is_empty() {
                // A new BFS: from the goal first, then from the first unseen board.
                let seed = if phase.class == 0 && phase.goal_layers.is_empty() {
                    Some(space.rank(&job.goal).expect("the goal is in its class").0)
                } else {
                    let local = slice.marks.next_unseen(0).map_or(u64::MAX, |i| i.0 + lo);
                    let all = net.all_gather(&local.to_le_bytes())?;
                    all.iter()
                        .map(|b| read_u64(b))
                        .min()
                        .filter(|&m| m != u64::MAX)
                };
                let Some(seed) = seed else { break };
                if (lo..hi).contains(&seed) {
                    net.sink.start(net.round, code(0), 0);
                    net.sink.claim(&slice, seed);
                }
                phase.current = vec![1];
            }
            let last = bfs_layers(&mut net, &space, &slice, &mut phase, &checkpoints, events)?;
            let size: u64 = phase.current.iter().sum();
            if phase.class == 0 && phase.goal_layers.is_empty() {
                phase.goal_layers = std::mem::take(&mut phase.current);
                phase.antipodes = last;
            }
            phase.current.clear();
            phase.done.push(size);
        }
        if me == 0 {
            let _ = events.send(Event::End);
        }
        *net.sink.slice.borrow_mut() = None;
        // Keep the depths, free the marks.
        depths = match Rc::try_unwrap(slice) {
            Ok(slice) => slice.depths,
            Err(shared) => shared
                .depths
                .as_ref()
                .map(|d| DepthArray::from_raw_bytes(d.raw_bytes())),
        };
        phase.class += 1;
    }
    // Per-board depths to worker 0, in chunks.
    let depths = match depths {
        Some(d) if job.per_board => {
            let raw = d.raw_bytes();
            drop(d);
            let lo = slice_bounds(space_of(shape, goal_class, 0).size(), peers, me).0;
            let chunks: Vec<Vec<u8>> = raw
                .chunks(GATHER_CHUNK)
                .enumerate()
                .map(|(k, c)| {
                    let mut p = (lo + (k * GATHER_CHUNK) as u64).to_le_bytes().to_vec();
                    p.extend_from_slice(c);
                    p
                })
                .collect();
            let got = net.gather(chunks)?;
            (me == 0).then(|| {
                let size = space_of(shape, goal_class, 0).size();
                let mut all = vec![0u8; size as usize];
                for (_, p) in got {
                    let at = read_u64(&p) as usize;
                    all[at..at + p.len() - 8].copy_from_slice(&p[8..]);
                }
                all
            })
        }
        _ => None,
    };
    // Traffic totals, and a last barrier so that no process leaves while others still talk.
    let traffic = net.all_gather(&serde_json::to_vec(&net.traffic).unwrap_or_default())?;
    let traffic = traffic
        .iter()
        .filter_map(|b| serde_json::from_slice::<Traffic>(b).ok())
        .fold(Traffic::default(), |a, t| Traffic {
            expanded: a.expanded + t.expanded,
            sent_indices: a.sent_indices + t.sent_indices,
            sent_bytes: a.sent_bytes + t.sent_bytes,
            resumed_from: a.resumed_from.or(t.resumed_from),
        });
    net.sync()?;
    if me != 0 {
        return Ok(None);
    }
    let space = space_of(shape, goal_class, 0);
    let mut antipodes: Vec<Board> = phase
        .antipodes
        .iter()
        .map(|&i| space.unrank(StateIndex(i)))
        .collect();
    antipodes.sort_by_cached_key(Board::rank);
    Ok(Some(Outcome {
        layer_sizes: phase.goal_layers,
        antipodes,
        components: phase.done,
        depths,
        traffic,
    }))
}

fn space_of(shape: crate::shape::Shape, goal_class: Parity, class: u8) -> ParitySpace {
    let class = if class == 0 {
        goal_class
    } else {
        goal_class.flipped()
    };
    ParitySpace::new(shape, class).expect("checked in run")
}

/// Runs the BFS of `phase.current` to its end; returns its last layer's indices (on worker
/// 0, when that layer has at most [`list_limit`] boards).
fn bfs_layers(
    net: &mut Net<'_>,
    space: &ParitySpace,
    slice: &Rc<Slice>,
    phase: &mut Phase,
    checkpoints: &Option<Checkpoints>,
    events: &mpsc::Sender<Event>,
) -> Result<Vec<u64>, ClusterError> {
    let limit = list_limit(space.size()) as u64;
    // Boards of this class already reached (the goal's class is explored whole before the
    // other class starts, so its components sum to `space.size()`).
    let reached_before: u64 =
        phase.done.iter().sum::<u64>() - if phase.class == 1 { space.size() } else { 0 };
    loop {
        let depth = (phase.current.len() - 1) as u32;
        let size = *phase.current.last().expect("a BFS has a first layer");
        let mut expander = Expander::new(space.size(), net.peers, size <= limit);
        net.sink.start(net.round, code(depth + 1), depth + 1);
        let frontier = code(depth) * LOW_BITS;
        let words = slice.marks.words();
        for (k, word) in words.iter().enumerate() {
            let x = word.load(Relaxed);
            let xf = x ^ frontier;
            let matches = !(xf | (xf >> 1)) & LOW_BITS;
            if matches == 0 {
                continue;
            }
            word.fetch_or(matches * 3, Relaxed);
            let mut m = matches;
            while m != 0 {
                let local = k as u64 * FIELDS_PER_WORD + u64::from(m.trailing_zeros() / 2);
                m &= m - 1;
                if local >= slice.marks.len() {
                    break;
                }
                expander.batch.push(StateIndex(slice.lo + local));
            }
            if expander.batch.len() >= BATCH {
                expander.expand(net, space, slice);
            }
        }
        expander.expand(net, space, slice);
        for target in 0..net.peers {
            expander.send(net, target);
        }
        net.sync()?;
        let next = net.sum(net.sink.found.get())?;
        if next == 0 {
            // The last layer: its boards to worker 0 when few.
            let Some(kept) = expander.kept else {
                return Ok(Vec::new());
            };
            let mut bytes = Vec::new();
            encode_sorted(&kept, 0, &mut bytes);
            let got = net.gather(vec![bytes])?;
            let mut last = Vec::new();
            for (_, p) in got {
                decode_sorted(&p, 0, |i| last.push(i))
                    .map_err(|e| ClusterError::Peer(e.to_string()))?;
            }
            last.sort_unstable();
            return Ok(last);
        }
        phase.current.push(next);
        phase.step += 1;
        if net.me == 0 {
            let reached = reached_before + phase.current.iter().sum::<u64>();
            let _ = events.send(Event::Layer {
                depth: depth + 1,
                size: next,
                reached,
            });
        }
        if let Some(ck) = checkpoints {
            phase.traffic = net.traffic;
            ck.save(slice, phase)?;
            // Every worker has saved this step before any goes on (so the latest common step
            // is never more than one behind).
            net.sync()?;
            fault_injection(phase.step);
        }
    }
}

/// One worker's expansion of a layer: frontier boards batched for the kernel, and the
/// neighbours owned by other workers buffered per owner and sent sorted.
struct Expander {
    batch: Vec<StateIndex>,
    neighbours: Vec<StateIndex>,
    /// The layer's boards, when it is small enough to be the last layer listed.
    kept: Option<Vec<u64>>,
    /// Per worker: neighbours it owns, not yet sent.
    outbox: Vec<Vec<u64>>,
    /// Per worker: the first index of its slice.
    bases: Vec<u64>,
    words_per_worker: u64,
    send_batch: usize,
}

impl Expander {
    fn new(size: u64, peers: usize, keep: bool) -> Expander {
        Expander {
            batch: Vec::with_capacity(BATCH),
            neighbours: Vec::with_capacity(4 * BATCH),
            kept: keep.then(Vec::new),
            outbox: vec![Vec::new(); peers],
            bases: (0..peers).map(|g| slice_bounds(size, peers, g).0).collect(),
            words_per_worker: words_per_worker(size, peers),
            send_batch: (SEND_BUDGET / 8 / peers).clamp(1 << 10, 1 << 16),
        }
    }

    /// Expands the batch, claims the owned neighbours, buffers the others per owner.
    fn expand(&mut self, net: &mut Net<'_>, space: &ParitySpace, slice: &Slice) {
        if self.batch.is_empty() {
            return;
        }
        if let Some(kept) = &mut self.kept {
            kept.extend(self.batch.iter().map(|i| i.0));
        }
        net.traffic.expanded += self.batch.len() as u64;
        self.neighbours.clear();
        space.expand(&self.batch, &mut self.neighbours);
        self.batch.clear();
        for k in 0..self.neighbours.len() {
            let nb = self.neighbours[k];
            if nb == StateIndex::NONE {
                continue;
            }
            let owner = (nb.0 / FIELDS_PER_WORD / self.words_per_worker) as usize;
            if owner == net.me {
                net.sink.claim(slice, nb.0);
            } else {
                self.outbox[owner].push(nb.0);
                if self.outbox[owner].len() >= self.send_batch {
                    self.send(net, owner);
                }
            }
        }
    }

    /// Sends what is buffered for worker `target`, sorted and deduplicated.
    fn send(&mut self, net: &mut Net<'_>, target: usize) {
        let list = &mut self.outbox[target];
        if list.is_empty() {
            return;
        }
        list.sort_unstable();
        list.dedup();
        net.send_indices(target, self.bases[target], list);
        list.clear();
    }
}

/// For the tests of `--resume`: `NPUZZLE_KILL_AFTER_STEP=N` makes the process kill itself
/// (SIGKILL, no cleanup) right after checkpoint step `N`, as a crashed machine would.
fn fault_injection(step: u64) {
    if let Some(n) = std::env::var("NPUZZLE_KILL_AFTER_STEP")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        && n == step
    {
        #[cfg(unix)]
        // SAFETY: raising a signal on this process has no memory-safety preconditions.
        unsafe {
            libc::raise(libc::SIGKILL);
        }
        std::process::abort();
    }
}

/// The header of a checkpoint file. The file: the header's length (8 bytes, little-endian),
/// the header (JSON), the slice's mark words (8 bytes each, little-endian), its depths (one
/// byte per board, when kept), and the CRC-32 of the words and depths (4 bytes).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Header {
    format: u32,
    board: String,
    goal: String,
    per_board: bool,
    search_rest: bool,
    peers: usize,
    worker: usize,
    lo: u64,
    len: u64,
    has_depths: bool,
    phase: Phase,
}

const FORMAT: u32 = 2;

/// One worker's checkpoint files.
struct Checkpoints {
    dir: PathBuf,
    worker: usize,
    peers: usize,
    board: String,
    goal: String,
    per_board: bool,
    search_rest: bool,
}

impl Checkpoints {
    fn new(root: &Path, process: usize, worker: usize, peers: usize, job: &Job) -> Checkpoints {
        Checkpoints {
            dir: root.join(format!("process-{process}")),
            worker,
            peers,
            board: job.goal.shape().to_string(),
            goal: job.goal.label(),
            per_board: job.per_board,
            search_rest: job.search_rest,
        }
    }

    fn path(&self, slot: u64) -> PathBuf {
        self.dir
            .join(format!("worker-{}.{}.ckpt", self.worker, slot % 2))
    }

    fn error(&self, what: &str, e: impl std::fmt::Display) -> ClusterError {
        ClusterError::Checkpoint(format!("{what} checkpoint in {}: {e}", self.dir.display()))
    }

    /// Creates the folder; a fresh run (not resuming) removes this worker's old files, so
    /// that a later `--resume` never finds another run's.
    fn prepare(&self, resume: bool) -> Result<(), ClusterError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| self.error("cannot create the", e))?;
        // (A killed run's temporary files are swept by the next save, as every output's.)
        let stale = if resume {
            vec![]
        } else {
            vec![self.path(0), self.path(1)]
        };
        for path in stale {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(self.error("cannot remove an old", e));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Writes the checkpoint of `phase.step` (streamed, CRC-32 at the end), fsyncs it, renames
    /// it over the older of the two slots and fsyncs the folder.
    fn save(&self, slice: &Slice, phase: &Phase) -> Result<(), ClusterError> {
        let fail = |e: std::io::Error| self.error("cannot write a", e);
        let header = Header {
            format: FORMAT,
            board: self.board.clone(),
            goal: self.goal.clone(),
            per_board: self.per_board,
            search_rest: self.search_rest,
            peers: self.peers,
            worker: self.worker,
            lo: slice.lo,
            len: slice.marks.len(),
            has_depths: slice.depths.is_some(),
            phase: phase.clone(),
        };
        let json = serde_json::to_vec(&header).map_err(|e| fail(std::io::Error::other(e)))?;
        let path = self.path(phase.step);
        // npuzzle's one writer: removed on SIGINT/SIGTERM, synced before the rename.
        let file = crate::durable::temp_beside(&path).map_err(fail)?;
        let mut w = std::io::BufWriter::with_capacity(
            1 << 20,
            crate::durable::WriteBehind::new(file.as_file()),
        );
        let mut crc = crc32fast::Hasher::new();
        w.write_all(&(json.len() as u64).to_le_bytes())
            .map_err(fail)?;
        w.write_all(&json).map_err(fail)?;
        for word in slice.marks.words() {
            let bytes = word.load(Relaxed).to_le_bytes();
            crc.update(&bytes);
            w.write_all(&bytes).map_err(fail)?;
        }
        if let Some(d) = &slice.depths {
            let raw = d.raw_bytes();
            crc.update(&raw);
            w.write_all(&raw).map_err(fail)?;
        }
        w.write_all(&crc.finalize().to_le_bytes()).map_err(fail)?;
        w.flush().map_err(fail)?;
        drop(w);
        crate::durable::commit(file, &path).map_err(fail)?;
        #[cfg(unix)]
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(fail)?;
        Ok(())
    }

    /// The header of slot `slot`, `None` when there is no file or it is not a whole
    /// checkpoint; an error when it belongs to another run.
    fn header(&self, slot: u64) -> Result<Option<(Header, u64)>, ClusterError> {
        let path = self.path(slot);
        let mut file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.error("cannot read a", e)),
        };
        let mut len = [0u8; 8];
        if file.read_exact(&mut len).is_err() {
            return Ok(None);
        }
        let n = u64::from_le_bytes(len);
        if n > 1 << 30 {
            return Ok(None);
        }
        let mut json = vec![0u8; n as usize];
        if file.read_exact(&mut json).is_err() {
            return Ok(None);
        }
        let Ok(header) = serde_json::from_slice::<Header>(&json) else {
            return Ok(None);
        };
        if header.format != FORMAT
            || header.board != self.board
            || header.goal != self.goal
            || header.per_board != self.per_board
            || header.search_rest != self.search_rest
            || header.peers != self.peers
            || header.worker != self.worker
        {
            return Err(ClusterError::Checkpoint(format!(
                "{} belongs to another run ({} goal {} on {} workers); resume with the same \
                 board, goal, options, --processes and --workers, or use another --checkpoint folder",
                path.display(),
                header.board,
                header.goal,
                header.peers
            )));
        }
        let words = header.len.div_ceil(FIELDS_PER_WORD);
        let depths = if header.has_depths { header.len } else { 0 };
        let whole = 8 + n + words * 8 + depths + 4;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        Ok((size == whole).then_some((header, 8 + n)))
    }

    /// The steps this worker can resume from.
    fn available(&self) -> Result<Vec<u64>, ClusterError> {
        let mut steps = Vec::new();
        for slot in 0..2 {
            if let Some((h, _)) = self.header(slot)? {
                steps.push(h.phase.step);
            }
        }
        Ok(steps)
    }

    /// Loads step `step` (streamed into fresh marks, the CRC checked).
    fn load(
        &self,
        step: u64,
        space: impl Fn(u8) -> ParitySpace,
    ) -> Result<(Slice, Phase), ClusterError> {
        let (header, offset) = self
            .header(step)?
            .filter(|(h, _)| h.phase.step == step)
            .ok_or_else(|| self.error("lost the", format!("step {step} vanished")))?;
        let size = space(header.phase.class).size();
        let (lo, hi) = slice_bounds(size, self.peers, self.worker);
        if header.lo != lo || header.len != hi - lo {
            return Err(self.error(
                "a mismatched",
                format!("step {step} does not match this run's slices"),
            ));
        }
        let fail = |e: std::io::Error| self.error("cannot read a", e);
        let mut file = File::open(self.path(step)).map_err(fail)?;
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(offset)).map_err(fail)?;
        let mut r = std::io::BufReader::with_capacity(1 << 20, file);
        let mut crc = crc32fast::Hasher::new();
        let marks = StateMarks::new(hi - lo);
        let mut word = [0u8; 8];
        for w in marks.words() {
            r.read_exact(&mut word).map_err(fail)?;
            crc.update(&word);
            w.store(u64::from_le_bytes(word), Relaxed);
        }
        let depths = if header.has_depths {
            let mut raw = vec![0u8; (hi - lo) as usize];
            r.read_exact(&mut raw).map_err(fail)?;
            crc.update(&raw);
            Some(DepthArray::from_raw_bytes(raw))
        } else {
            None
        };
        let mut stored = [0u8; 4];
        r.read_exact(&mut stored).map_err(fail)?;
        if crc.finalize() != u32::from_le_bytes(stored) {
            return Err(self.error("a corrupt", format!("step {step} fails its CRC-32")));
        }
        let record = header.phase.class == 0;
        Ok((
            Slice {
                lo,
                marks,
                depths,
                record,
            },
            header.phase,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;
    use crate::shape::Shape;

    fn local(workers: usize) -> Cluster {
        Cluster {
            processes: 1,
            process: 0,
            workers,
            addresses: Vec::new(),
            checkpoint: None,
            resume: false,
            connect_timeout: Duration::from_secs(30),
        }
    }

    /// One process, 1 and 3 workers: the 3x3 layer sizes (OEIS A089473), the two antipodes,
    /// both components searched, and every board's depth equal to the one-machine driver's.
    #[test]
    fn workers_in_one_process_agree_with_the_published_3x3_figures() {
        let shape = Shape::new(3, 3).unwrap();
        let goal = Board::goal(shape);
        let a089473 = [
            1u64, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638,
            9529, 10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
        ];
        let space = ParitySpace::new(shape, Parity::Even).unwrap();
        let reference = DepthArray::new(space.size());
        let marks = StateMarks::new(space.size());
        crate::distances::from_goal(&space, &marks, &goal, &reference, &NoProgress);
        for workers in [1, 3] {
            let job = Job {
                goal: goal.clone(),
                per_board: true,
                search_rest: true,
            };
            let o = run(&local(workers), job, &NoProgress).unwrap().unwrap();
            assert_eq!(o.layer_sizes, a089473, "{workers} workers");
            let labels: Vec<String> = o.antipodes.iter().map(Board::label).collect();
            assert_eq!(labels, ["647859321", "867254391"]);
            assert_eq!(o.components, [181_440, 181_440]);
            assert_eq!(o.depths.unwrap(), reference.raw_bytes());
            assert_eq!(o.traffic.expanded, 362_880);
        }
    }

    #[test]
    fn bad_configurations_are_refused() {
        let job = Job {
            goal: Board::goal(Shape::new(3, 3).unwrap()),
            per_board: false,
            search_rest: false,
        };
        let mut c = local(1);
        c.process = 1;
        assert!(matches!(
            run(&c, job.clone(), &NoProgress),
            Err(ClusterError::Config(_))
        ));
        let mut c = local(1);
        c.processes = 2;
        assert!(matches!(
            run(&c, job, &NoProgress),
            Err(ClusterError::Config(_))
        ));
    }
}
