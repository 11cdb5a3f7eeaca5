//! The transport of the distributed driver: a channel of timely's communication layer for the
//! lists of board indices to claim (sent as each window of a layer ends, each process's last
//! list of a round followed by an end marker, each list acknowledged by its receiver once
//! claimed: a sender keeps at most [`Net::credit`] bytes unacknowledged per receiver), one
//! timely dataflow per process with an input
//! of control messages exchanged by target process and a probe that tells when a round's
//! control messages have all been delivered, and the panic hook that turns timely's network
//! panics into an error.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use timely::bytes::arc::Bytes;
use timely::communication::{Bytesable, Pull, Push};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::operators::{Exchange, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

use super::{ClusterError, PARK, Shared, Traffic};
use crate::bfs::codec::{decode_sorted, encode_sorted, radix_sort};

/// The run whose threads' panics [`install_panic_hook`] routes.
static CURRENT: Mutex<Option<Arc<Shared>>> = Mutex::new(None);

/// Routes panics of timely's threads to the current run's [`Shared`] (one line, no
/// backtrace): timely's network threads panic when a peer's connection breaks. Panics of
/// other threads go to the previous hook. Installed once per process.
pub(super) fn install_panic_hook(shared: Arc<Shared>) {
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
            if message.contains("timely communication error") {
                shared.fail_weak(format!(
                    "a peer process stopped or its connection broke ({message})"
                ));
            } else if message.contains("MergeQueue poisoned") || message.contains("thread panic") {
                // (timely's network threads, or a worker that finds one of them gone.)
                shared.fail_weak("a peer process stopped or its connection broke".to_string());
            } else {
                shared.fail(format!("a worker failed: {message}"));
            }
        }));
    });
}

/// Where incoming messages wait (the dataflow's operators run inside `worker.step()`, on this
/// thread, so a plain cell suffices; no borrow is held across a step).
#[derive(Default)]
pub(super) struct Mailbox {
    /// Control messages: (round, sender, payload).
    mailbox: RefCell<Vec<(u64, u32, Vec<u8>)>>,
    /// Messages delivered so far (a peer that sends is alive).
    arrivals: Cell<u64>,
    /// Per process: when a message of its last arrived (or the run's dataflow was built).
    heard: RefCell<Vec<Instant>>,
}

impl Mailbox {
    /// Counts a message from `sender` as an arrival, and notes when it came.
    fn arrived(&self, sender: usize) {
        self.arrivals.set(self.arrivals.get() + 1);
        if let Some(at) = self.heard.borrow_mut().get_mut(sender) {
            *at = Instant::now();
        }
    }
}

/// One message of the claims channel: the round (`u64`, little-endian), the sending process
/// (`u32`), the kind ([`LIST`], [`SORTED`], [`END`] or [`ACK`]), then for a list its payload
/// (local indices of the receiver, written as its kind says: see [`Wire`]), for an
/// acknowledgement the bytes of lists claimed (`u64`).
pub(super) enum Chunk {
    /// Built here, to be sent.
    Owned(Vec<u8>),
    /// Received (a view of timely's buffer, not a copy).
    Received(Bytes),
}

/// Bytes before a [`Chunk`]'s payload.
const CHUNK_HEADER: usize = 13;
/// A [`Chunk`] holding a list of indices as found ([`Wire::AsFound`]).
const LIST: u8 = 0;
/// A [`Chunk`] saying that its sender has sent every list of its round.
const END: u8 = 1;
/// A [`Chunk`] holding a list of indices sorted and gap-encoded ([`Wire::Sorted`]).
const SORTED: u8 = 2;
/// A [`Chunk`] returning credit: its receiver may send that many more bytes of lists to its
/// sender, which has claimed them.
const ACK: u8 = 3;
/// A [`Chunk`] holding pieces of a frontier search's run, in segments its receiver owns
/// (`crate::bfs::frontier`'s message: gap-coded as the run holds them).
const PIECES: u8 = 4;
/// A [`Chunk`] saying that its sender is alive and waiting (sent every [`BEAT`] while a
/// process waits for its peers, so that a peer that is silent past the stall timeout is one
/// that stopped, froze, was cut off or is busy for longer than a layer, never one that waits).
const ALIVE: u8 = 5;
/// A [`Chunk`] saying that its sender stops, and why (its payload, UTF-8): the last message of
/// a process that fails on its own, so that every other process's error names it.
const STOP: u8 = 6;
/// How often a waiting process says it is alive ([`ALIVE`]).
const BEAT: Duration = Duration::from_secs(2);
/// How long a process that stops on its own error keeps stepping after its [`STOP`], so that
/// the message leaves before its connections close.
const FAREWELL: Duration = Duration::from_secs(1);

/// How a process writes its lists of indices to another: chosen by the sender for each
/// receiver, and named by each chunk's kind, so the receiver needs no agreement to read them.
///
/// Lists as found take about three times the bytes of sorted ones. Sorting costs the sender
/// a radix sort of each window's lists and the receiver a varint decode serial with its
/// claims, which a network link slower than memory repays, and a copy in memory does not
/// (both measured on 3x4 over loopback: `output/bench/3x4-cluster/report.txt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wire {
    /// Each index in the fewest whole bytes that hold the receiver's share ([`pack`]), in the
    /// order found: to a process on the same host (the same host before the `:port` in the
    /// hostfile), where bytes cost a copy in memory.
    AsFound,
    /// Sorted, deduplicated, the first index in 8 bytes and the gaps after it as varints
    /// ([`encode_sorted`]): to a process on another host, about a third of the bytes.
    Sorted,
}

impl Chunk {
    /// The header of a chunk of `kind` of round `round` from `sender`, with room for
    /// `payload_len` more bytes.
    fn header_bytes(round: u64, sender: usize, kind: u8, payload_len: usize) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(CHUNK_HEADER + payload_len);
        bytes.extend_from_slice(&round.to_le_bytes());
        bytes.extend_from_slice(&(sender as u32).to_le_bytes());
        bytes.push(kind);
        bytes
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Chunk::Owned(v) => v,
            Chunk::Received(b) => b,
        }
    }

    /// (round, sender, kind), or `None` when the chunk is too short.
    fn header(&self) -> Option<(u64, usize, u8)> {
        let b = self.bytes();
        (b.len() >= CHUNK_HEADER).then(|| {
            let sender = u32::from_le_bytes([b[8], b[9], b[10], b[11]]);
            (read_u64(b), sender as usize, b[12])
        })
    }

    /// What follows the header: a list's indices, or a frontier search's pieces.
    pub fn payload(&self) -> &[u8] {
        self.bytes().get(CHUNK_HEADER..).unwrap_or_default()
    }

    /// Calls `f` with each index of this list, in the order sent: [`unpack`]ed at `width`
    /// bytes (the receiver's [`index_width`]) for a [`LIST`], decoded from its first index for
    /// a [`SORTED`].
    ///
    /// # Errors
    /// [`ClusterError::Peer`] (a corrupt list) when the chunk is not a list, its payload is
    /// not whole, or a gap takes an index past `u64::MAX`; `f` may have been called for the
    /// indices before the fault.
    pub fn indices(&self, width: usize, mut f: impl FnMut(u64)) -> Result<(), ClusterError> {
        let payload = self.payload();
        match self.header() {
            Some((_, _, LIST)) => unpack(payload, width, f),
            Some((_, _, SORTED)) if payload.len() >= 8 => {
                let first = read_u64(payload);
                f(first);
                decode_sorted(&payload[8..], first, f)
                    .map_err(|_| corrupt_from(None, "a list of boards"))
            }
            _ => Err(corrupt_from(None, "a list of boards")),
        }
    }
}

impl Bytesable for Chunk {
    fn from_bytes(bytes: Bytes) -> Self {
        Chunk::Received(bytes)
    }

    fn length_in_bytes(&self) -> usize {
        self.bytes().len()
    }

    fn into_bytes<W: std::io::Write>(&self, writer: &mut W) {
        // (timely's writer is its own buffer, reserved at this length: it does not fail.)
        let _ = writer.write_all(self.bytes());
    }
}

/// A message: (target process, sending process, payload).
type Record = (u32, u32, Vec<u8>);
type Inbox = InputHandle<u64, CapacityContainerBuilder<Vec<Record>>>;

/// One process's connection to the others: the claims channel, the control input and its
/// probe, rounds.
pub(super) struct Net<'w> {
    worker: &'w mut Worker,
    /// The claims channel: a pusher per process (this one's unused), and the puller.
    to: Vec<Box<dyn Push<Chunk>>>,
    from: Box<dyn Pull<Chunk>>,
    /// Lists of indices received, not yet taken: (round, chunk).
    lists: Vec<(u64, Chunk)>,
    /// Per process: the last round whose end marker arrived (`None`: none yet).
    ended: Vec<Option<u64>>,
    /// A chunk arrived that cannot be right (the run stops).
    corrupt: bool,
    control: Inbox,
    probe: ProbeHandle<u64>,
    /// The current round (rounds end at [`Net::sync`]).
    pub round: u64,
    sink: Rc<Mailbox>,
    shared: &'w Shared,
    /// This process.
    pub me: usize,
    /// Processes.
    pub peers: usize,
    /// What this process expanded and sent.
    pub traffic: Traffic,
    /// How long [`Net::sync`] waits without a message before it gives up (the cluster's stall
    /// timeout, lengthened by [`Net::pace`]).
    stall: Duration,
    /// The cluster's stall timeout, as given.
    base_stall: Duration,
    /// When this process last said it is alive ([`ALIVE`]).
    beat: Instant,
    /// Bytes of lists (whole chunks) this process may have sent to one process and not yet
    /// had acknowledged: what any process holds of another's lists, received and not yet
    /// claimed, in timely's buffers or here ([`super::received_bound`]). A list is sent
    /// when it fits, or when nothing is outstanding.
    pub credit: u64,
    /// Per process: bytes of lists sent to it and not yet acknowledged.
    outstanding: Vec<u64>,
    /// Bytes of lists received here (in [`Net::lists`] or taken) and not yet released.
    unclaimed: u64,
}

impl<'w> Net<'w> {
    /// Builds the dataflow on `worker` (this process's one timely worker).
    pub fn new(worker: &'w mut Worker, shared: &'w Shared, stall: Duration) -> Net<'w> {
        let me = worker.index();
        let peers = worker.peers();
        let sink = Rc::new(Mailbox {
            heard: RefCell::new(vec![Instant::now(); peers]),
            ..Mailbox::default()
        });
        let mut control = InputHandle::new();
        let probe = ProbeHandle::new();
        let s2 = Rc::clone(&sink);
        let (to, from) = worker.dataflow::<u64, _, _>(|scope| {
            // The claims channel, at the dataflow's own address (an arrival only wakes the
            // worker: no operator reads it).
            let w = scope.worker();
            let channel = w.allocate::<Chunk>(w.new_identifier(), scope.addr());
            scope
                .input_from(&mut control)
                .container::<Vec<Record>>()
                .exchange(|r: &Record| u64::from(r.0))
                .inspect_time(move |t: &u64, r: &Record| {
                    s2.mailbox.borrow_mut().push((*t, r.1, r.2.clone()));
                    s2.arrived(r.1 as usize);
                })
                .probe_with(&probe);
            channel
        });
        Net {
            worker,
            to,
            from,
            lists: Vec::new(),
            ended: vec![None; peers],
            corrupt: false,
            control,
            probe,
            round: 0,
            sink,
            shared,
            me,
            peers,
            traffic: Traffic::default(),
            stall,
            base_stall: stall,
            beat: Instant::now(),
            credit: u64::MAX,
            outstanding: vec![0; peers],
            unclaimed: 0,
        }
    }

    /// Fails when a peer or another thread has failed.
    pub fn check(&self) -> Result<(), ClusterError> {
        if self.shared.failed.load(Relaxed) {
            return Err(ClusterError::Peer(self.shared.message()));
        }
        if self.corrupt {
            return Err(corrupt_from(None, "a list of boards"));
        }
        Ok(())
    }

    /// Lets timely move messages: sends what was queued and delivers what has arrived.
    pub fn step(&mut self) {
        self.worker.step();
        self.pull_chunks();
    }

    /// Files the chunks of the claims channel that have arrived.
    fn pull_chunks(&mut self) {
        while let Some(chunk) = self.from.pull().take() {
            match chunk.header() {
                Some((_, sender, _)) => self.sink.arrived(sender),
                None => self.sink.arrivals.set(self.sink.arrivals.get() + 1),
            }
            match chunk.header() {
                Some((round, _, LIST | SORTED | PIECES)) => {
                    self.unclaimed += chunk.length_in_bytes() as u64;
                    self.traffic.peak_unclaimed = self.traffic.peak_unclaimed.max(self.unclaimed);
                    self.lists.push((round, chunk));
                }
                Some((round, sender, END)) if sender < self.peers => {
                    self.ended[sender] = Some(round);
                }
                Some((_, sender, ACK)) if sender < self.peers && chunk.payload().len() == 8 => {
                    // Credit for more than was sent cannot be right.
                    match self.outstanding[sender].checked_sub(read_u64(chunk.payload())) {
                        Some(left) => self.outstanding[sender] = left,
                        None => self.corrupt = true,
                    }
                }
                Some((_, sender, ALIVE)) if sender < self.peers => {}
                Some((_, sender, STOP)) if sender < self.peers => {
                    let why = String::from_utf8_lossy(chunk.payload());
                    self.shared.fail(format!("process {sender} stopped: {why}"));
                }
                _ => self.corrupt = true,
            }
        }
    }

    /// Tells every other process that this one stops, and why (`why`: this process's own
    /// error, one line), then keeps stepping for [`FAREWELL`] so that it leaves before the
    /// connections close: their errors then name this process and the reason, not a broken
    /// connection.
    pub fn farewell(&mut self, why: &str) {
        self.shared.leaving.store(true, Relaxed);
        let me = self.me;
        for p in (0..self.peers).filter(|&p| p != me) {
            let mut bytes = Chunk::header_bytes(self.round, me, STOP, why.len());
            bytes.extend_from_slice(why.as_bytes());
            self.push_chunk(p, bytes);
        }
        // This process's own error stays its message, whatever breaks meanwhile: the others
        // close their connections once they have it, and a step may then panic (timely's
        // network threads gone), which ends the farewell, not the worker.
        self.shared.fail(why.to_string());
        let until = Instant::now() + FAREWELL;
        let worker = &mut *self.worker;
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            while Instant::now() < until {
                worker.step_or_park(Some(PARK));
            }
        }));
    }

    /// Lengthens the stall timeout to the cluster's plus twice `layer` (the wall time of the
    /// layer just finished): between two layers a process may wait for a peer still busy
    /// with its share (a merge, a save) for about as long as a layer takes, and a stall
    /// timeout shorter than that would stop a healthy run.
    pub fn pace(&mut self, layer: Duration) {
        self.stall = self.base_stall.saturating_add(layer.saturating_mul(2));
    }

    /// Whether a list of `len` bytes to process `target` must wait for credit: something is
    /// outstanding there, and the list does not fit in what is left of [`Net::credit`].
    pub fn needs_credit(&self, target: usize, len: usize) -> bool {
        let out = self.outstanding[target];
        out > 0 && out.saturating_add(len as u64) > self.credit
    }

    /// Releases lists taken by [`Net::take_claims`] once claimed: acknowledges their bytes to
    /// each sender (which may then send as much again), and drops them.
    pub fn release(&mut self, claimed: Vec<Chunk>) {
        let mut by_sender = vec![0u64; self.peers];
        for chunk in &claimed {
            if let Some((_, sender, _)) = chunk.header()
                && sender < self.peers
            {
                by_sender[sender] += chunk.length_in_bytes() as u64;
            }
        }
        drop(claimed);
        let (me, round) = (self.me, self.round);
        for (p, bytes) in by_sender.into_iter().enumerate() {
            if bytes > 0 {
                self.unclaimed = self.unclaimed.saturating_sub(bytes);
                let mut ack = Chunk::header_bytes(round, me, ACK, 8);
                ack.extend_from_slice(&bytes.to_le_bytes());
                self.push_chunk(p, ack);
            }
        }
    }

    /// Whether every other process has ended its lists of round `round` ([`Net::end`]).
    pub fn all_ended(&self, round: u64) -> bool {
        (0..self.peers).all(|p| p == self.me || self.ended[p].is_some_and(|r| r >= round))
    }

    /// Ends this process's lists of round `round`: an end marker to every other process
    /// (every list of the round has arrived at a process once it holds every other's marker,
    /// a channel delivering in order).
    pub fn end(&mut self, round: u64) {
        let me = self.me;
        for p in (0..self.peers).filter(|&p| p != me) {
            self.push_chunk(p, Chunk::header_bytes(round, me, END, 0));
        }
        self.step();
    }

    /// One wait for messages (parked up to [`PARK`] until one arrives), filing what came;
    /// `seen` holds the arrivals counted and when they last changed, from [`Net::waiting`].
    ///
    /// # Errors
    /// As [`Net::sync`]: a failure elsewhere, a corrupt chunk, or no message for the stall
    /// timeout.
    pub fn wait_step(&mut self, seen: &mut (u64, Instant)) -> Result<(), ClusterError> {
        self.check()?;
        self.worker.step_or_park(Some(PARK));
        self.pull_chunks();
        // (Only in a wait that has lasted: one at the end of a run, as peers close, sends
        // nothing.)
        if self.beat.elapsed() >= BEAT && seen.1.elapsed() >= BEAT {
            self.beat = Instant::now();
            let me = self.me;
            for p in (0..self.peers).filter(|&p| p != me) {
                self.push_chunk(p, Chunk::header_bytes(self.round, me, ALIVE, 0));
            }
        }
        // A peer is silent when nothing of it arrived since this wait began (its messages
        // from before do not count against it) for the stall timeout: waiting peers say they
        // are alive, so those are the ones that stopped, froze, were cut off or are busy for
        // longer than [`Net::pace`] allows.
        seen.0 = self.sink.arrivals.get();
        let since = |at: Instant| at.max(seen.1).elapsed();
        let silent: Vec<(usize, Duration)> = {
            let heard = self.sink.heard.borrow();
            (0..self.peers)
                .filter(|&p| p != self.me)
                .map(|p| (p, since(heard[p])))
                .filter(|&(_, quiet)| quiet > self.stall)
                .collect()
        };
        if !silent.is_empty() {
            let named: Vec<String> = silent
                .iter()
                .map(|(p, quiet)| format!("{p} ({} s)", quiet.as_secs()))
                .collect();
            let message = format!(
                "no message from process{} {} within the stall timeout of {} s \
                 (--stall-timeout, lengthened by twice the last layer's time) while process {} \
                 waited at round {}: it stopped, froze or was cut off",
                if silent.len() == 1 { "" } else { "es" },
                named.join(", "),
                self.stall.as_secs(),
                self.me,
                self.round
            );
            self.shared.fail(message.clone());
            return Err(ClusterError::Peer(message));
        }
        Ok(())
    }

    /// The start of a wait of [`Net::wait_step`]s.
    pub fn waiting(&self) -> (u64, Instant) {
        (self.sink.arrivals.get(), Instant::now())
    }

    /// Takes the lists of indices of round `round` delivered so far (later rounds' lists,
    /// from a process already a layer ahead, stay queued).
    pub fn take_claims(&mut self, round: u64) -> Vec<Chunk> {
        let (now, later): (Vec<_>, Vec<_>) = self.lists.drain(..).partition(|(r, _)| *r <= round);
        self.lists = later;
        now.into_iter().map(|(_, c)| c).collect()
    }

    /// Hands `bytes` (a whole chunk) to timely for process `target`; it goes out at the next
    /// step.
    fn push_chunk(&mut self, target: usize, bytes: Vec<u8>) {
        self.to[target].push(&mut Some(Chunk::Owned(bytes)));
        self.to[target].done();
    }

    /// Steps (parked between arrivals) while `waiting` holds.
    ///
    /// # Errors
    /// [`ClusterError::Peer`] when another thread or process failed, a corrupt chunk arrived,
    /// or no message arrived for the stall timeout (a peer stopped or frozen).
    fn wait_while(&mut self, waiting: impl Fn(&Net<'_>) -> bool) -> Result<(), ClusterError> {
        let mut seen = self.waiting();
        while waiting(self) {
            self.wait_step(&mut seen)?;
        }
        Ok(())
    }

    /// Ends the current round: waits until every process's messages of it have been
    /// delivered.
    ///
    /// # Errors
    /// [`ClusterError::Peer`] when another thread or process failed, or when no message
    /// arrived for the stall timeout while waiting (a peer stopped or frozen).
    pub fn sync(&mut self) -> Result<(), ClusterError> {
        self.round += 1;
        self.control.advance_to(self.round);
        self.wait_while(|net| net.probe.less_than(&net.round))
    }

    /// Sends `payload` to every process; returns what every process sent, by sender.
    pub fn all_gather(&mut self, payload: &[u8]) -> Result<Vec<Vec<u8>>, ClusterError> {
        for g in 0..self.peers {
            self.control
                .send((g as u32, self.me as u32, payload.to_vec()));
        }
        self.collect_round().map(|mut got| {
            got.sort_by_key(|(sender, _)| *sender);
            got.into_iter().map(|(_, p)| p).collect()
        })
    }

    /// Sends `payloads` to process 0; process 0 gets every process's, in sender order.
    pub fn gather(&mut self, payloads: Vec<Vec<u8>>) -> Result<Vec<(u32, Vec<u8>)>, ClusterError> {
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

    /// The sum of `value` over all processes.
    ///
    /// # Errors
    /// [`ClusterError::Peer`] when a process sent something else than 8 bytes or the sum
    /// overflows (a corrupt or foreign message), or as [`Net::sync`].
    pub fn sum(&mut self, value: u64) -> Result<u64, ClusterError> {
        let all = self.all_gather(&value.to_le_bytes())?;
        if all.len() != self.peers {
            return Err(corrupt_from(None, "a count"));
        }
        all.iter().enumerate().try_fold(0u64, |total, (sender, b)| {
            (b.len() == 8)
                .then(|| total.checked_add(read_u64(b)))
                .flatten()
                .ok_or_else(|| corrupt_from(Some(sender), "a count"))
        })
    }

    /// The chunk of the indices of `parts` (local indices of process `target`, in any order,
    /// each below `held`, the size of its share) for process `target`, written as `wire` says
    /// (`sorted` and `scratch`: the sort's buffers, reused), tagged with the current round;
    /// `None` when there is none. Counted as sent; [`Net::send_list`] sends it.
    pub fn list_of(
        &mut self,
        parts: &[Vec<u64>],
        (held, wire): (u64, Wire),
        (sorted, scratch): (&mut Vec<u64>, &mut Vec<u64>),
    ) -> Option<Vec<u8>> {
        let count: usize = parts.iter().map(Vec::len).sum();
        let (bytes, count) = match wire {
            Wire::AsFound => {
                let width = index_width(held);
                let mut bytes = Chunk::header_bytes(self.round, self.me, LIST, count * width + 8);
                pack(parts.iter().flatten().copied(), width, &mut bytes);
                (bytes, count)
            }
            Wire::Sorted => {
                radix_sort(parts, index_bits(held), sorted, scratch);
                sorted.dedup();
                let &first = sorted.first()?;
                let mut bytes = Chunk::header_bytes(self.round, self.me, SORTED, count + 8);
                bytes.extend_from_slice(&first.to_le_bytes());
                encode_sorted(&sorted[1..], first, &mut bytes);
                (bytes, sorted.len())
            }
        };
        self.traffic.sent_indices += count as u64;
        self.traffic.sent_bytes += bytes.len() as u64;
        Some(bytes)
    }

    /// The chunk of a frontier search's message `pieces` for another process, tagged with
    /// the current round; [`Net::send_list`] sends it.
    pub fn pieces_chunk(&self, pieces: &[u8]) -> Vec<u8> {
        let mut bytes = Chunk::header_bytes(self.round, self.me, PIECES, pieces.len());
        bytes.extend_from_slice(pieces);
        bytes
    }

    /// Whether `chunk` holds a frontier search's pieces ([`Net::pieces_chunk`]).
    pub fn is_pieces(chunk: &Chunk) -> bool {
        matches!(chunk.header(), Some((_, _, PIECES)))
    }

    /// Sends a list from [`Net::list_of`] to process `target` (after [`Net::needs_credit`]
    /// said it may go): it goes out at the next [`Net::step`].
    pub fn send_list(&mut self, target: usize, bytes: Vec<u8>) {
        self.outstanding[target] += bytes.len() as u64;
        self.traffic.peak_in_flight = self.traffic.peak_in_flight.max(self.outstanding[target]);
        self.push_chunk(target, bytes);
    }
}

/// The error for a message that cannot be right: `what` from process `sender`.
pub(super) fn corrupt_from(sender: Option<usize>, what: &str) -> ClusterError {
    ClusterError::Peer(match sender {
        Some(p) => format!("process {p} sent a corrupt message ({what}); the run stops"),
        None => format!("a corrupt message arrived ({what}); the run stops"),
    })
}

/// Bytes per index of a list sent to a process holding `held` boards: the fewest that hold
/// `held - 1` (4 for 3x4 over 2 processes, 5 for 2x7; at least 1).
pub(super) fn index_width(held: u64) -> usize {
    (index_bits(held).div_ceil(8) as usize).max(1)
}

/// Bits that hold every local index of a share of `held` boards (`held - 1`; 0 for a share of
/// at most one board).
fn index_bits(held: u64) -> u32 {
    64 - held.saturating_sub(1).leading_zeros()
}

/// Appends `indices` to `out`, each as its `width` low bytes, little-endian (`width` from 1
/// to 8, each index below `2^(8 width)`), in the order given.
///
/// [`Wire::AsFound`], to a process on the same host: neither sorted nor gap-encoded
/// ([`super::super::codec`]): about three times the bytes, copied in memory, and less time
/// than the sort costs the sender (a radix sort of every list) and the receiver (a varint
/// decode, serial with its claims); see [`Wire`].
pub(super) fn pack(indices: impl Iterator<Item = u64>, width: usize, out: &mut Vec<u8>) {
    for i in indices {
        debug_assert!(
            width == 8 || i >> (8 * width) == 0,
            "index {i} wider than {width} bytes"
        );
        // Eight bytes written, the first `width` kept (the rest are zeros).
        let at = out.len();
        out.extend_from_slice(&i.to_le_bytes());
        out.truncate(at + width);
    }
}

/// Calls `f` with each index of `bytes` packed by [`pack`] at `width` bytes, in order.
///
/// # Errors
/// [`ClusterError::Peer`] (a corrupt list) when `bytes` is not a whole number of indices or
/// `width` is not 1 to 8; `f` is then not called.
pub(super) fn unpack(
    bytes: &[u8],
    width: usize,
    mut f: impl FnMut(u64),
) -> Result<(), ClusterError> {
    if width == 0 || width > 8 || bytes.len() % width != 0 {
        return Err(corrupt_from(None, "a list of boards"));
    }
    let mask = u64::MAX >> (64 - 8 * width);
    let mut at = 0;
    // Eight bytes at a time while they are there, then the last few zero-padded.
    while at + 8 <= bytes.len() {
        let word: [u8; 8] = bytes[at..at + 8].try_into().expect("eight bytes");
        f(u64::from_le_bytes(word) & mask);
        at += width;
    }
    while at < bytes.len() {
        f(read_u64(&bytes[at..at + width]));
        at += width;
    }
    Ok(())
}

/// The little-endian `u64` at the start of `bytes` (zero-padded).
pub(super) fn read_u64(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = bytes.len().min(8);
    b[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any list of indices below `2^(8 width)` comes back in order, for every width,
        /// across the eight-byte reads and the zero-padded tail.
        #[test]
        fn packed_lists_round_trip(xs in proptest::collection::vec(any::<u64>(), 0..40), width in 1usize..=8) {
            let xs: Vec<u64> = xs.into_iter().map(|x| x & (u64::MAX >> (64 - 8 * width))).collect();
            let mut bytes = vec![0xAB];
            pack(xs.iter().copied(), width, &mut bytes);
            prop_assert_eq!(bytes.len(), 1 + xs.len() * width);
            let mut back = Vec::new();
            prop_assert!(unpack(&bytes[1..], width, |i| back.push(i)).is_ok());
            prop_assert_eq!(back, xs);
        }
    }

    /// A list cut inside an index, or read at no width or more than eight, is corrupt, and
    /// nothing of it is claimed; the widths are the fewest bytes that hold every local index.
    #[test]
    fn packed_lists_are_checked_and_as_narrow_as_the_share() {
        let mut bytes = Vec::new();
        pack([1, 2, 3].into_iter(), 5, &mut bytes);
        let mut seen = 0;
        assert!(unpack(&bytes[..14], 5, |_| seen += 1).is_err());
        assert!(unpack(&bytes, 0, |_| seen += 1).is_err());
        assert!(unpack(&bytes, 9, |_| seen += 1).is_err());
        assert_eq!(seen, 0);
        let widths = [
            1,
            256,
            257,
            1 << 32,
            (1 << 32) + 1,
            119_750_400,
            21_794_572_800,
        ];
        assert_eq!(widths.map(index_width), [1, 1, 2, 4, 5, 4, 5]);
        assert_eq!(index_width(0), 1);
    }

    /// A chunk's kind says how to read it: a list as found at the receiver's width, a sorted
    /// list from its first index whatever the width; a sorted list without its first index,
    /// cut inside a gap, or a chunk that is no list, is corrupt.
    #[test]
    fn chunks_are_read_as_their_kind_says() {
        let read = |bytes: Vec<u8>, width: usize| {
            let mut got = Vec::new();
            Chunk::Owned(bytes)
                .indices(width, |i| got.push(i))
                .map(|()| got)
        };
        let xs = [3u64, 900, 901, 70_000, 1 << 33];
        let mut found = Chunk::header_bytes(7, 1, LIST, 0);
        pack(xs.iter().rev().copied(), 5, &mut found);
        let back: Vec<u64> = xs.iter().rev().copied().collect();
        assert_eq!(read(found.clone(), 5).unwrap(), back);
        assert!(
            read(found, 4).is_err(),
            "25 bytes are not whole indices of 4"
        );
        let mut sorted = Chunk::header_bytes(7, 1, SORTED, 0);
        sorted.extend_from_slice(&xs[0].to_le_bytes());
        encode_sorted(&xs[1..], xs[0], &mut sorted);
        assert_eq!(sorted.len(), CHUNK_HEADER + 8 + 2 + 1 + 3 + 5);
        for width in [1, 8] {
            assert_eq!(read(sorted.clone(), width).unwrap(), xs);
        }
        assert!(read(sorted[..sorted.len() - 1].to_vec(), 8).is_err());
        assert!(read(sorted[..CHUNK_HEADER + 7].to_vec(), 8).is_err());
        assert!(read(Chunk::header_bytes(7, 1, END, 0), 8).is_err());
        assert!(read(Chunk::header_bytes(7, 1, 3, 0), 8).is_err());
    }
}
