//! The transport of the distributed driver: one timely dataflow per process with two inputs
//! exchanged by target process (board indices to claim; control messages), a probe that tells
//! when a round's messages have all been delivered, and the panic hook that turns timely's
//! network panics into an error.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use timely::container::CapacityContainerBuilder;
use timely::dataflow::operators::{Exchange, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

use super::super::codec::encode_sorted;
use super::{ClusterError, PARK, Shared, Traffic};

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

/// Where incoming messages wait (the dataflow's operators run inside `worker.step()`, on this
/// thread, so a plain cell suffices; no borrow is held across a step).
#[derive(Default)]
pub(super) struct Sink {
    /// Lists of indices to claim: (round, bytes).
    claims: RefCell<Vec<(u64, Vec<u8>)>>,
    /// Control messages: (round, sender, payload).
    mailbox: RefCell<Vec<(u64, u32, Vec<u8>)>>,
    /// Messages delivered so far (a peer that sends is alive).
    arrivals: Cell<u64>,
}

/// A message: (target process, sending process, payload).
type Record = (u32, u32, Vec<u8>);
type Inbox = InputHandle<u64, CapacityContainerBuilder<Vec<Record>>>;

/// One process's connection to the others: two inputs (claims, control), one probe, rounds.
pub(super) struct Net<'w> {
    worker: &'w mut Worker,
    claims: Inbox,
    control: Inbox,
    probe: ProbeHandle<u64>,
    /// The current round (rounds end at [`Net::sync`]).
    pub round: u64,
    sink: Rc<Sink>,
    shared: &'w Shared,
    /// This process.
    pub me: usize,
    /// Processes.
    pub peers: usize,
    /// What this process expanded and sent.
    pub traffic: Traffic,
    /// How long [`Net::sync`] waits without a message before it gives up.
    stall: Duration,
}

impl<'w> Net<'w> {
    /// Builds the dataflow on `worker` (this process's one timely worker).
    pub fn new(worker: &'w mut Worker, shared: &'w Shared, stall: Duration) -> Net<'w> {
        let me = worker.index();
        let peers = worker.peers();
        let sink = Rc::new(Sink::default());
        let mut claims = InputHandle::new();
        let mut control = InputHandle::new();
        let probe = ProbeHandle::new();
        let (s1, s2) = (Rc::clone(&sink), Rc::clone(&sink));
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut claims)
                .container::<Vec<Record>>()
                .exchange(|r: &Record| u64::from(r.0))
                .inspect_time(move |t: &u64, r: &Record| {
                    s1.claims.borrow_mut().push((*t, r.2.clone()));
                    s1.arrivals.set(s1.arrivals.get() + 1);
                })
                .probe_with(&probe);
            scope
                .input_from(&mut control)
                .container::<Vec<Record>>()
                .exchange(|r: &Record| u64::from(r.0))
                .inspect_time(move |t: &u64, r: &Record| {
                    s2.mailbox.borrow_mut().push((*t, r.1, r.2.clone()));
                    s2.arrivals.set(s2.arrivals.get() + 1);
                })
                .probe_with(&probe);
        });
        Net {
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
            stall,
        }
    }

    /// Fails when a peer or another thread has failed.
    pub fn check(&self) -> Result<(), ClusterError> {
        if self.shared.failed.load(Relaxed) {
            return Err(ClusterError::Peer(self.shared.message()));
        }
        Ok(())
    }

    /// Lets timely move messages: sends what was queued and delivers what has arrived.
    pub fn step(&mut self) {
        self.worker.step();
    }

    /// Takes the lists of indices of round `round` delivered so far (later rounds' lists,
    /// from a process already a layer ahead, stay queued).
    pub fn take_claims(&mut self, round: u64) -> Vec<Vec<u8>> {
        let mut queue = self.sink.claims.borrow_mut();
        let (now, later): (Vec<_>, Vec<_>) = queue.drain(..).partition(|(r, _)| *r <= round);
        *queue = later;
        now.into_iter().map(|(_, b)| b).collect()
    }

    /// Ends the current round: waits until every process's messages of it have been
    /// delivered.
    ///
    /// # Errors
    /// [`ClusterError::Peer`] when another thread or process failed, or when no message
    /// arrived for the stall timeout while waiting (a peer stopped or frozen).
    pub fn sync(&mut self) -> Result<(), ClusterError> {
        self.round += 1;
        self.claims.advance_to(self.round);
        self.control.advance_to(self.round);
        let mut seen = (self.sink.arrivals.get(), Instant::now());
        while self.probe.less_than(&self.round) {
            self.check()?;
            self.worker.step_or_park(Some(PARK));
            let arrivals = self.sink.arrivals.get();
            if arrivals != seen.0 {
                seen = (arrivals, Instant::now());
            } else if seen.1.elapsed() > self.stall {
                let message = format!(
                    "no message from the other processes for {} s (--stall-timeout) while \
                     process {} waited at round {}: a peer stopped, froze or was cut off",
                    self.stall.as_secs(),
                    self.me,
                    self.round
                );
                self.shared.fail(message.clone());
                return Err(ClusterError::Peer(message));
            }
        }
        Ok(())
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

    /// Sends the indices `sorted` (ascending, distinct, at least `base`) to process `target`.
    pub fn send_indices(&mut self, target: usize, base: u64, sorted: &[u64]) {
        // The base first (8 bytes), then the gaps.
        let mut bytes = Vec::with_capacity(8 + sorted.len() * 3);
        bytes.extend_from_slice(&base.to_le_bytes());
        encode_sorted(sorted, base, &mut bytes);
        self.traffic.sent_indices += sorted.len() as u64;
        self.traffic.sent_bytes += bytes.len() as u64;
        self.claims.send((target as u32, self.me as u32, bytes));
    }
}

/// The error for a message that cannot be right: `what` from process `sender`.
pub(super) fn corrupt_from(sender: Option<usize>, what: &str) -> ClusterError {
    ClusterError::Peer(match sender {
        Some(p) => format!("process {p} sent a corrupt message ({what}); the run stops"),
        None => format!("a corrupt message arrived ({what}); the run stops"),
    })
}

/// The little-endian `u64` at the start of `bytes` (zero-padded).
pub(super) fn read_u64(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = bytes.len().min(8);
    b[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(b)
}
