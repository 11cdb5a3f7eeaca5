//! The cluster's front door: this process opens its connections to the other processes
//! itself, checks that each is a peer of the same run, then hands the sockets to timely
//! ([`timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets`]).
//!
//! **Topology** (timely's own): process `p` dials every process below it and accepts a
//! connection from every process above it, on the address of its hostfile line.
//!
//! **The exchange**, per connection, every message a frame (`u32` little-endian length, at
//! most [`MAX_FRAME`] bytes, then the bytes), the first of each side preceded by [`MAGIC`]:
//! 1. the dialer sends its [`Hello`] (JSON): format version, its process number, a fresh
//!    32-byte nonce, whether it holds a shared key, and the run's [`Fingerprint`];
//! 2. the acceptor answers with its own [`Hello`];
//! 3. the dialer sends its proof: with a shared key, HMAC-SHA256 (RFC 2104) of both hellos
//!    under the key, with the role; else nothing;
//! 4. the acceptor answers with its [`Verdict`]: accepted with its own proof, or refused
//!    with the reason.
//!
//! Both sides then hold both fingerprints and compare them themselves, so a peer of another
//! run is refused on both sides with the same field named.
//!
//! **Policy.** A connection that does not say hello correctly within [`HELLO_TIMEOUT`] (a
//! port scanner, `nc`, an HTTP probe), fails the key's challenge, or claims an impossible
//! process number is dropped with a warning, and the acceptor goes on waiting for its real
//! peer. At most [`MAX_PENDING`] connections say hello at once; when one more comes, the
//! oldest that has not yet sent its side of the exchange is dropped to make room (a real
//! peer sends it at once, so a flood of silent connections does not keep it out), and the
//! warnings are rate-limited ([`WARNING_BURST`] lines, then one a second with a count). A
//! dialer refused by its peer, or answered by a peer of another run, stops with an error
//! naming the field. So does the acceptor: at once when the peer proved the shared key (it
//! is one of this run's processes, started with other flags); without a key, where a stray
//! process of another run cannot be told from a misconfigured peer, it warns and waits
//! [`HELLO_TIMEOUT`] more for a peer that is accepted. Connection errors (a peer not up yet)
//! are retried until the connect timeout.
//!
//! The key (from [`KEY_VARIABLE`], so that it stays out of process lists) authenticates the
//! processes to each other; it does not encrypt or authenticate the traffic that follows.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use super::ClusterError;

/// The first bytes each side sends.
pub const MAGIC: [u8; 8] = *b"NPZLCLU\x01";
/// The version of this exchange and of the messages that follow it (2: lists of indices
/// packed at a fixed width, `net::pack`, instead of sorted gaps; 3: either, per receiver,
/// named by each list's kind, `net::Wire`).
pub const VERSION: u32 = 3;
/// Largest frame accepted, in bytes.
pub const MAX_FRAME: u32 = 64 << 10;
/// How long a connection has to complete its side of the exchange.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(5);
/// The environment variable holding the optional shared key.
pub const KEY_VARIABLE: &str = "NPUZZLE_CLUSTER_KEY";
/// Most connections saying hello at once while waiting for the peers (one more makes room
/// by dropping the oldest that has not answered).
pub const MAX_PENDING: usize = 64;

/// What must be equal on every process of a run: named fields, in a fixed order (the first
/// that differs is the one named).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint(pub Vec<(String, String)>);

impl Fingerprint {
    /// The first field that differs between `self` (here) and `theirs`, as one phrase:
    /// `goal is 1 2 3 ... here and 2 1 3 ... there`; `None` when they are equal.
    pub fn difference(&self, theirs: &Fingerprint) -> Option<String> {
        for (name, here) in &self.0 {
            match theirs.0.iter().find(|(n, _)| n == name) {
                Some((_, there)) if there == here => {}
                Some((_, there)) => {
                    return Some(format!("{name} is {here} here and {there} there"));
                }
                None => return Some(format!("{name} is {here} here and missing there")),
            }
        }
        theirs
            .0
            .iter()
            .find(|(n, _)| !self.0.iter().any(|(m, _)| m == n))
            .map(|(name, there)| format!("{name} is missing here and {there} there"))
    }
}

/// The first message of each side.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hello {
    /// [`VERSION`] of the sender.
    pub version: u32,
    /// The sender's process number.
    pub process: u32,
    /// 32 random bytes, hex: makes every exchange's proofs fresh.
    pub nonce: String,
    /// The sender holds a shared key.
    pub keyed: bool,
    /// The sender's run.
    pub fingerprint: Fingerprint,
}

/// The acceptor's last message.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Verdict {
    /// Why the dialer is refused; `None` when accepted.
    pub refused: Option<String>,
    /// The acceptor's proof (hex) when keyed and accepted.
    pub proof: String,
}

/// One process's side of the exchange with all the others.
#[derive(Debug, Clone)]
pub struct Peering {
    /// This process.
    pub me: usize,
    /// Every process's `host:port`; port 0 on this process's line: listen on any free port.
    pub addresses: Vec<String>,
    /// The run.
    pub fingerprint: Fingerprint,
    /// The shared key, if any.
    pub key: Option<Vec<u8>>,
    /// When to give up on a missing peer.
    pub deadline: Instant,
    /// The wait that `deadline` ends (for messages).
    pub connect_timeout: Duration,
}

/// Why one connection's exchange failed.
enum HandshakeFailure {
    /// Not a peer (no hello, bad bytes, failed challenge): drop it and wait on.
    Stray(String),
    /// A peer of another run, or one that refused this one: the run cannot go on as given.
    Refused(String),
    /// A peer that proved the shared key, refused because its run differs (a fingerprint or
    /// version): one of this run's processes started with other flags, so the acceptor stops
    /// at once too.
    Proven(String),
    /// The connection broke (a peer restarting): retry.
    Io(io::Error),
}

impl From<io::Error> for HandshakeFailure {
    fn from(e: io::Error) -> HandshakeFailure {
        HandshakeFailure::Io(e)
    }
}

/// Reads the shared key from [`KEY_VARIABLE`].
///
/// # Errors
/// A one-line message when the variable is set but empty or not Unicode.
pub fn key_from_env() -> Result<Option<Vec<u8>>, String> {
    match std::env::var(KEY_VARIABLE) {
        Ok(key) if key.is_empty() => Err(format!("{KEY_VARIABLE} is set but empty")),
        Ok(key) => Ok(Some(key.into_bytes())),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!("{KEY_VARIABLE} is not Unicode")),
    }
}

/// Connects this process to every other one and runs the exchange with each; returns one
/// stream per process in order (`None` at `me`), blocking, ready for timely. `warn` gets
/// the lines about connections dropped or refused (rate-limited: see [`WARNING_BURST`]),
/// and the listening address when the hostfile's port was 0.
///
/// # Errors
/// [`ClusterError::Config`] when an address cannot be resolved; [`ClusterError::Connect`]
/// when this process cannot listen on its address, or a peer is of another run (naming the
/// field that differs: at once, or for a peer without a key [`HELLO_TIMEOUT`] after it
/// unless every process connects by then), refuses this process, or is still missing at the
/// deadline.
pub fn connect(
    peering: &Peering,
    warn: &(dyn Fn(String) + Sync),
) -> Result<Vec<Option<TcpStream>>, ClusterError> {
    let n = peering.addresses.len();
    let me = peering.me;
    // Resolve every address dialed up front: a typo is an error now, not a timeout later.
    let mut dial = Vec::with_capacity(me);
    for (p, address) in peering.addresses[..me].iter().enumerate() {
        dial.push(resolve(address).map_err(|e| {
            ClusterError::Config(format!("cannot resolve {address} (process {p}): {e}"))
        })?);
    }
    let listener = if me + 1 < n {
        let address = &peering.addresses[me];
        let listener = TcpListener::bind(address.as_str()).map_err(|e| {
            ClusterError::Connect(format!(
                "process {me} cannot listen on {address}: {e} (is another program using it?)"
            ))
        })?;
        if address.ends_with(":0")
            && let Ok(local) = listener.local_addr()
        {
            warn(format!(
                "process {me} listens on {local} (port 0 in the hostfile): give this address \
                 to processes {}..{}",
                me + 1,
                n - 1
            ));
        }
        Some(listener)
    } else {
        None
    };
    let mut streams: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
    // Set when dialing has failed: the waiting for the processes above then stops too.
    let gave_up = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let dialer = scope.spawn(|| {
            let mut got = Vec::with_capacity(me);
            for (p, addrs) in dial.iter().enumerate() {
                match dial_peer(peering, p, addrs) {
                    Ok(stream) => got.push(stream),
                    Err(e) => {
                        gave_up.store(true, std::sync::atomic::Ordering::Relaxed);
                        return Err(e);
                    }
                }
            }
            Ok::<_, ClusterError>(got)
        });
        let accepted = match &listener {
            Some(l) => accept_peers(&std::sync::Arc::new(peering.clone()), l, warn, &gave_up),
            None => Ok(Vec::new()),
        };
        let dialed = dialer
            .join()
            .unwrap_or_else(|_| Err(ClusterError::Connect("the dialing thread failed".into())));
        for (p, s) in dialed?.into_iter().enumerate() {
            streams[p] = Some(s);
        }
        for (p, s) in accepted? {
            streams[p] = Some(s);
        }
        Ok::<_, ClusterError>(())
    })?;
    for s in streams.iter().flatten() {
        s.set_read_timeout(None)
            .and_then(|()| s.set_write_timeout(None))
            .and_then(|()| s.set_nonblocking(false))
            .map_err(|e| ClusterError::Connect(format!("cannot set up a connection: {e}")))?;
    }
    Ok(streams)
}

fn resolve(address: &str) -> io::Result<Vec<SocketAddr>> {
    let addrs: Vec<SocketAddr> = address.to_socket_addrs()?.collect();
    if addrs.is_empty() {
        return Err(io::Error::other("no address found"));
    }
    Ok(addrs)
}

/// Dials process `p` until the exchange succeeds, a peer refuses, or the deadline passes.
fn dial_peer(peering: &Peering, p: usize, addrs: &[SocketAddr]) -> Result<TcpStream, ClusterError> {
    let address = &peering.addresses[p];
    let mut last = String::from("no answer");
    let mut pause = Backoff::default();
    loop {
        let now = Instant::now();
        if now >= peering.deadline {
            return Err(ClusterError::Connect(format!(
                "process {} could not reach process {p} at {address} within {} s ({last}); \
                 start all of them with the same --processes and --hostfile",
                peering.me,
                peering.connect_timeout.as_secs()
            )));
        }
        let wait = (peering.deadline - now).min(HELLO_TIMEOUT);
        let attempt = addrs
            .iter()
            .find_map(|a| TcpStream::connect_timeout(a, wait).ok());
        let Some(mut stream) = attempt else {
            last = "connection refused or timed out".into();
            pause.sleep();
            continue;
        };
        match dialer_side(peering, p, &mut stream) {
            Ok(()) => return Ok(stream),
            Err(HandshakeFailure::Io(e)) => {
                last = format!("the exchange broke: {e}");
                pause.sleep();
            }
            Err(
                HandshakeFailure::Stray(why)
                | HandshakeFailure::Refused(why)
                | HandshakeFailure::Proven(why),
            ) => {
                return Err(ClusterError::Connect(format!(
                    "process {} at {address}: {why}",
                    p
                )));
            }
        }
    }
}

/// Accepts the processes above this one; exchanges run on their own threads (ended early
/// only by [`make_room`]), so a silent connection does not hold up the real peer.
///
/// At most [`MAX_PENDING`] connections say hello at once; a new one beyond that makes room
/// by dropping the oldest that has not yet sent its side of the exchange (a real peer sends
/// it at once, so a flood of silent connections only ever drops its own). Warnings about
/// dropped and refused connections go through [`Warnings`]. A refused peer that proved the
/// shared key ends the wait at once with the reason; without a key, a refused peer may be a
/// stray of another run, so the wait then ends [`HELLO_TIMEOUT`] later unless every process
/// has connected by then.
fn accept_peers(
    peering: &std::sync::Arc<Peering>,
    listener: &TcpListener,
    warn: &(dyn Fn(String) + Sync),
    gave_up: &std::sync::atomic::AtomicBool,
) -> Result<Vec<(usize, TcpStream)>, ClusterError> {
    let n = peering.addresses.len();
    let me = peering.me;
    listener
        .set_nonblocking(true)
        .map_err(|e| ClusterError::Connect(format!("cannot listen: {e}")))?;
    let (done, results) = mpsc::channel::<Said>();
    let mut got: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
    let mut pending: Vec<Pending> = Vec::new();
    let mut next_id = 0u64;
    let mut warnings = Warnings::new(warn);
    // The last refusal, and when the wait ends because of it (no key: see above).
    let mut refused: Option<(String, Instant)> = None;
    let mut pause = Backoff::default();
    let outcome = loop {
        let missing: Vec<usize> = (me + 1..n).filter(|&p| got[p].is_none()).collect();
        if missing.is_empty() {
            break Ok(());
        }
        if gave_up.load(std::sync::atomic::Ordering::Relaxed) {
            // The dialer's error is the one reported.
            break Ok(());
        }
        let now = Instant::now();
        if let Some((why, by)) = &refused
            && now >= *by
            && now < peering.deadline
        {
            break Err(ClusterError::Connect(format!(
                "refused {why} (no other process took its place within {} s); start all of \
                 them with the same flags",
                HELLO_TIMEOUT.as_secs()
            )));
        }
        if now >= peering.deadline {
            let mut message = format!(
                "not every process connected within {} s (this is process {me} of {n} at {}; \
                 missing: {}); start all of them with the same --processes and --hostfile",
                peering.connect_timeout.as_secs(),
                peering.addresses[me],
                missing
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if let Some((last, _)) = &refused {
                message.push_str(&format!("; refused: {last}"));
            }
            break Err(ClusterError::Connect(message));
        }
        // Every connection waiting, up to a bound (the rest wait for the next look).
        let mut accepted = 0;
        while accepted < 2 * MAX_PENDING {
            match listener.accept() {
                Ok((stream, from)) => {
                    accepted += 1;
                    pause = Backoff::default();
                    if !make_room(&mut pending, &mut warnings) {
                        warnings.line(format!(
                            "dropped a connection from {from}: {MAX_PENDING} connections are \
                             already saying hello"
                        ));
                        continue;
                    }
                    match start_hello(peering, stream, from, next_id, &done) {
                        Ok(p) => pending.push(p),
                        Err(e) => warnings.line(format!("dropped a connection from {from}: {e}")),
                    }
                    next_id += 1;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => {
                    warnings.line(format!("a connection failed before its hello: {e}"));
                    break;
                }
            }
        }
        let mut stop = None;
        while let Ok((id, result)) = results.try_recv() {
            let Some(at) = pending.iter().position(|c| c.id == id) else {
                continue;
            };
            let connection = pending.remove(at);
            let from = connection.from;
            match result {
                Ok((p, stream)) if got[p].is_none() => got[p] = Some(stream),
                Ok((p, _)) => warnings.line(format!(
                    "dropped a connection from {from}: process {p} is already connected"
                )),
                // Dropped to make room: warned then.
                Err(_) if connection.evicted => {}
                Err(HandshakeFailure::Io(e)) => {
                    warnings.line(format!("dropped a connection from {from}: {e}"));
                }
                Err(HandshakeFailure::Stray(why)) => {
                    warnings.line(format!("dropped a connection from {from}: {why}"));
                }
                Err(HandshakeFailure::Refused(why)) => {
                    warnings.line(format!("refused a connection from {from}: {why}"));
                    let by = refused
                        .as_ref()
                        .map_or(Instant::now() + HELLO_TIMEOUT, |(_, by)| *by);
                    refused = Some((format!("{why} (from {from})"), by));
                }
                Err(HandshakeFailure::Proven(why)) => {
                    stop = Some(format!(
                        "refused {why} (from {from}); start all of them with the same flags"
                    ));
                }
            }
        }
        if let Some(why) = stop {
            break Err(ClusterError::Connect(why));
        }
        warnings.tick();
        if !pending.is_empty() {
            // An exchange under way: look for its end promptly.
            pause = Backoff::default();
        }
        pause.sleep();
    };
    // The connections still saying hello are not needed any more (their threads end).
    for c in pending.iter().filter(|c| !c.evicted) {
        let _ = c.stream.shutdown(std::net::Shutdown::Both);
        if outcome.is_ok() && !gave_up.load(std::sync::atomic::Ordering::Relaxed) {
            warnings.held(format!(
                "dropped a connection from {}: every process had connected",
                c.from
            ));
        }
    }
    warnings.flush();
    outcome?;
    Ok(got
        .into_iter()
        .enumerate()
        .filter_map(|(p, s)| s.map(|s| (p, s)))
        .collect())
}

/// How the exchange of connection `id` ended: the peer's process number and its stream.
type Said = (u64, Result<(usize, TcpStream), HandshakeFailure>);

/// A connection saying hello on its own thread ([`start_hello`]).
struct Pending {
    /// Its number, in the order accepted (the oldest has the smallest).
    id: u64,
    /// Where from.
    from: SocketAddr,
    /// The same socket, to shut it down from the accepting thread.
    stream: TcpStream,
    /// Set once it has sent its whole side of the exchange (the hello and the proof).
    answered: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Shut down by [`make_room`] (its thread is ending; warned already).
    evicted: bool,
}

/// Starts the exchange of a new connection on its own thread; its result goes to `done`
/// with `id`.
fn start_hello(
    peering: &std::sync::Arc<Peering>,
    stream: TcpStream,
    from: SocketAddr,
    id: u64,
    done: &mpsc::Sender<Said>,
) -> io::Result<Pending> {
    let handle = stream.try_clone()?;
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let done = done.clone();
    let peering = std::sync::Arc::clone(peering);
    let flag = std::sync::Arc::clone(&answered);
    std::thread::Builder::new()
        .name("npuzzle-hello".into())
        .spawn(move || {
            let mut stream = stream;
            let result = acceptor_side(&peering, &mut stream, &flag).map(|p| (p, stream));
            let _ = done.send((id, result));
        })?;
    Ok(Pending {
        id,
        from,
        stream: handle,
        answered,
        evicted: false,
    })
}

/// Makes room for one more connection among `pending`: when [`MAX_PENDING`] are saying
/// hello, shuts down the oldest that has not yet sent its side of the exchange (with a
/// warning). `false` when there is no room (every one has answered and is being checked, or
/// the threads of those shut down have not ended yet).
fn make_room(pending: &mut [Pending], warnings: &mut Warnings<'_>) -> bool {
    let live = pending.iter().filter(|c| !c.evicted).count();
    if live < MAX_PENDING {
        return pending.len() < 2 * MAX_PENDING;
    }
    if pending.len() >= 2 * MAX_PENDING {
        return false;
    }
    let oldest = pending
        .iter_mut()
        .find(|c| !c.evicted && !c.answered.load(std::sync::atomic::Ordering::Acquire));
    let Some(oldest) = oldest else {
        return false;
    };
    let _ = oldest.stream.shutdown(std::net::Shutdown::Both);
    oldest.evicted = true;
    warnings.line(format!(
        "dropped a connection from {}: it had not said hello when {MAX_PENDING} others were \
         waiting and a new one came",
        oldest.from
    ));
    true
}

/// The acceptor's warnings about the connections it drops or refuses, rate-limited so that
/// a flood of connections writes a few lines, not thousands: the first [`WARNING_BURST`]
/// lines as they come, then at most one a second; the lines held back in between are
/// counted, and the next line written says how many there were and the last of them.
struct Warnings<'a> {
    warn: &'a (dyn Fn(String) + Sync),
    /// Lines that may be written now.
    tokens: u32,
    /// When the last token was added.
    refilled: Instant,
    /// Lines held back since the last one written, and the last of them.
    held: usize,
    last: String,
}

/// Lines [`Warnings`] writes at once before it limits them to one a second.
pub const WARNING_BURST: u32 = 8;

impl<'a> Warnings<'a> {
    fn new(warn: &'a (dyn Fn(String) + Sync)) -> Warnings<'a> {
        Warnings {
            warn,
            tokens: WARNING_BURST,
            refilled: Instant::now(),
            held: 0,
            last: String::new(),
        }
    }

    /// Adds the tokens of the whole seconds since the last one added.
    fn refill(&mut self) {
        let secs = self.refilled.elapsed().as_secs();
        if secs > 0 {
            self.tokens = (self.tokens as u64 + secs).min(WARNING_BURST as u64) as u32;
            self.refilled += Duration::from_secs(secs);
        }
    }

    /// Writes `line` (with the count of those held back before it), or holds it back.
    fn line(&mut self, line: String) {
        self.refill();
        if self.tokens == 0 {
            self.held(line);
            return;
        }
        self.tokens -= 1;
        if self.held > 0 {
            (self.warn)(format!(
                "{line} (and {} more connections dropped or refused before it, since the last \
                 warning)",
                self.held
            ));
            self.held = 0;
        } else {
            (self.warn)(line);
        }
    }

    /// Counts `line` without writing it.
    fn held(&mut self, line: String) {
        self.held += 1;
        self.last = line;
    }

    /// Writes the count of the lines held back, when there are some and a line may be
    /// written.
    fn tick(&mut self) {
        self.refill();
        if self.held > 0 && self.tokens > 0 {
            self.tokens -= 1;
            self.summary();
        }
    }

    /// Writes the count of the lines held back, if any, whatever the rate.
    fn flush(&mut self) {
        if self.held > 0 {
            self.summary();
        }
    }

    fn summary(&mut self) {
        (self.warn)(format!(
            "{} more connections dropped or refused since the last warning; the last: {}",
            self.held, self.last
        ));
        self.held = 0;
    }
}

/// The pause between two looks for a peer (dialing again, or checking for a connection):
/// 1 ms at first, doubled after each look that found nothing, up to 200 ms, so that
/// processes started together connect within milliseconds and a long wait costs little.
struct Backoff(Duration);

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff(Duration::from_millis(1))
    }
}

impl Backoff {
    fn sleep(&mut self) {
        std::thread::sleep(self.0);
        self.0 = (self.0 * 2).min(Duration::from_millis(200));
    }
}

fn hello(peering: &Peering) -> Hello {
    let mut nonce = [0u8; 32];
    // getrandom reads the OS's generator; on the rare failure, a weaker nonce from the clock
    // still differs between exchanges (and a run without a key does not need one).
    if getrandom::fill(&mut nonce).is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        nonce[..16].copy_from_slice(&t.to_le_bytes());
    }
    Hello {
        version: VERSION,
        process: peering.me as u32,
        nonce: hex(&nonce),
        keyed: peering.key.is_some(),
        fingerprint: peering.fingerprint.clone(),
    }
}

/// The dialer's side of one exchange with process `p`.
fn dialer_side(
    peering: &Peering,
    p: usize,
    stream: &mut TcpStream,
) -> Result<(), HandshakeFailure> {
    stream.set_nodelay(true)?;
    stream.set_write_timeout(Some(HELLO_TIMEOUT * 2))?;
    // The acceptor may be busy with other connections: twice its own limit.
    let deadline = Instant::now() + HELLO_TIMEOUT * 2;
    let mine = serde_json::to_vec(&hello(peering)).map_err(io::Error::other)?;
    stream.write_all(&MAGIC)?;
    write_frame(stream, &mine)?;
    let theirs_bytes = read_greeting(stream, deadline)?;
    let theirs = parse_hello(&theirs_bytes)?;
    if theirs.process as usize != p {
        return Err(HandshakeFailure::Refused(format!(
            "it answers as process {}; check the hostfile's order",
            theirs.process
        )));
    }
    let proof = match &peering.key {
        Some(key) if theirs.keyed => prove(key, b"dialer", &mine, &theirs_bytes),
        _ => String::new(),
    };
    write_frame(stream, proof.as_bytes())?;
    let verdict: Verdict = serde_json::from_slice(&read_frame(stream, deadline)?)
        .map_err(|e| HandshakeFailure::Stray(format!("not an npuzzle process ({e})")))?;
    // Our own view of the difference first: it names the field from this side.
    if let Some(why) = key_mismatch(peering.key.is_some(), theirs.keyed) {
        return Err(HandshakeFailure::Refused(why));
    }
    if let Some(key) = &peering.key
        && !verify(key, b"acceptor", &mine, &theirs_bytes, &verdict.proof)
    {
        return Err(HandshakeFailure::Refused(format!(
            "it failed the shared key's challenge: {KEY_VARIABLE} differs"
        )));
    }
    if let Some(why) = mismatch(peering, &theirs) {
        return Err(HandshakeFailure::Refused(why));
    }
    if let Some(why) = verdict.refused {
        return Err(HandshakeFailure::Refused(format!(
            "it refused this process: {why}"
        )));
    }
    Ok(())
}

/// The acceptor's side of one exchange; returns the peer's process number. Sets `answered`
/// once the peer has sent its whole side (its hello and its proof).
fn acceptor_side(
    peering: &Peering,
    stream: &mut TcpStream,
    answered: &std::sync::atomic::AtomicBool,
) -> Result<usize, HandshakeFailure> {
    stream.set_nonblocking(false)?;
    stream.set_nodelay(true)?;
    stream.set_write_timeout(Some(HELLO_TIMEOUT))?;
    let deadline = Instant::now() + HELLO_TIMEOUT;
    let stray = |e: HandshakeFailure| match e {
        HandshakeFailure::Io(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            HandshakeFailure::Stray(format!(
                "it did not say hello within {} s",
                HELLO_TIMEOUT.as_secs()
            ))
        }
        HandshakeFailure::Io(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            HandshakeFailure::Stray("it closed without saying hello".into())
        }
        other => other,
    };
    let theirs_bytes = read_greeting(stream, deadline).map_err(stray)?;
    let theirs = parse_hello(&theirs_bytes)?;
    let n = peering.addresses.len();
    let p = theirs.process as usize;
    if p <= peering.me || p >= n {
        return Err(HandshakeFailure::Stray(format!(
            "it says it is process {p}, which does not dial process {} of {n}",
            peering.me
        )));
    }
    let mine = serde_json::to_vec(&hello(peering)).map_err(io::Error::other)?;
    stream.write_all(&MAGIC)?;
    write_frame(stream, &mine)?;
    let proof = read_frame(stream, deadline).map_err(stray)?;
    answered.store(true, std::sync::atomic::Ordering::Release);
    let mut refused = key_mismatch(peering.key.is_some(), theirs.keyed);
    let mut stray_reason = None;
    if refused.is_none()
        && let Some(key) = &peering.key
        && !verify(
            key,
            b"dialer",
            &theirs_bytes,
            &mine,
            std::str::from_utf8(&proof).unwrap_or(""),
        )
    {
        let why = format!("it failed the shared key's challenge: {KEY_VARIABLE} differs");
        refused = Some(why.clone());
        stray_reason = Some(why);
    }
    // The peer holds the key (or neither side does): what it is refused for now is its run.
    let proven = refused.is_none() && peering.key.is_some();
    let mismatched = mismatch(peering, &theirs);
    if refused.is_none() {
        refused.clone_from(&mismatched);
    }
    // A peer that proved the key gets this side's proof even when refused for its run, so
    // that it names the field that differs, not the key.
    let proof = match &peering.key {
        Some(key) if proven => prove(key, b"acceptor", &theirs_bytes, &mine),
        _ => String::new(),
    };
    let verdict = Verdict {
        refused: refused.clone(),
        proof,
    };
    write_frame(
        stream,
        &serde_json::to_vec(&verdict).map_err(io::Error::other)?,
    )?;
    if let Some(why) = stray_reason {
        return Err(HandshakeFailure::Stray(why));
    }
    if let Some(why) = refused {
        let why = format!("process {p}: {why}");
        return Err(if proven {
            HandshakeFailure::Proven(why)
        } else {
            HandshakeFailure::Refused(why)
        });
    }
    Ok(p)
}

/// Why two processes of which one holds a key and the other not cannot run together.
fn key_mismatch(here: bool, there: bool) -> Option<String> {
    (here != there).then(|| {
        format!(
            "{KEY_VARIABLE} is {} here and {} there",
            if here { "set" } else { "unset" },
            if there { "set" } else { "unset" }
        )
    })
}

/// Why a peer's hello is not of this run.
fn mismatch(peering: &Peering, theirs: &Hello) -> Option<String> {
    if theirs.version != VERSION {
        return Some(format!(
            "the exchange's version is {VERSION} here and {} there (another npuzzle release)",
            theirs.version
        ));
    }
    peering
        .fingerprint
        .difference(&theirs.fingerprint)
        .map(|d| format!("another run: {d}"))
}

/// Fills `buf` from `stream` by `deadline` (a connection trickling bytes runs out of time
/// as one that sends nothing).
fn read_by(stream: &mut TcpStream, mut buf: &mut [u8], deadline: Instant) -> io::Result<()> {
    while !buf.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        stream.set_read_timeout(Some(left))?;
        match stream.read(buf) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => buf = &mut buf[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Reads [`MAGIC`] and the frame after it.
fn read_greeting(stream: &mut TcpStream, deadline: Instant) -> Result<Vec<u8>, HandshakeFailure> {
    let mut magic = [0u8; 8];
    read_by(stream, &mut magic, deadline)?;
    if magic != MAGIC {
        return Err(HandshakeFailure::Stray(format!(
            "it is not an npuzzle process of this release (it sent {:?})",
            String::from_utf8_lossy(&magic)
        )));
    }
    read_frame(stream, deadline)
}

fn parse_hello(bytes: &[u8]) -> Result<Hello, HandshakeFailure> {
    serde_json::from_slice(bytes)
        .map_err(|e| HandshakeFailure::Stray(format!("its hello is not one npuzzle sends ({e})")))
}

fn write_frame(stream: &mut TcpStream, bytes: &[u8]) -> io::Result<()> {
    let len = u32::try_from(bytes.len())
        .ok()
        .filter(|&l| l <= MAX_FRAME)
        .ok_or_else(|| io::Error::other("a handshake message is too long"))?;
    stream.write_all(&len.to_le_bytes())?;
    stream.write_all(bytes)?;
    stream.flush()
}

fn read_frame(stream: &mut TcpStream, deadline: Instant) -> Result<Vec<u8>, HandshakeFailure> {
    let mut len = [0u8; 4];
    read_by(stream, &mut len, deadline)?;
    let len = u32::from_le_bytes(len);
    if len > MAX_FRAME {
        return Err(HandshakeFailure::Stray(format!(
            "it announced a {len}-byte message (at most {MAX_FRAME})"
        )));
    }
    let mut bytes = vec![0u8; len as usize];
    read_by(stream, &mut bytes, deadline)?;
    Ok(bytes)
}

/// HMAC-SHA256 under `key` of the role and both hellos (dialer's first), hex.
fn prove(key: &[u8], role: &[u8], dialer: &[u8], acceptor: &[u8]) -> String {
    hex(&mac(key, role, dialer, acceptor).finalize().into_bytes())
}

/// Whether `proof` (hex) is [`prove`]'s for these inputs, compared in constant time.
fn verify(key: &[u8], role: &[u8], dialer: &[u8], acceptor: &[u8], proof: &str) -> bool {
    let Some(bytes) = unhex(proof) else {
        return false;
    };
    mac(key, role, dialer, acceptor)
        .verify_slice(&bytes)
        .is_ok()
}

fn mac(key: &[u8], role: &[u8], dialer: &[u8], acceptor: &[u8]) -> Hmac<Sha256> {
    let mut mac =
        <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes keys of any length");
    for part in [&b"npuzzle-cluster/1"[..], role, dialer, acceptor] {
        mac.update(&(part.len() as u64).to_le_bytes());
        mac.update(part);
    }
    mac
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 || text.len() > 256 {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(any(test, feature = "test-hooks"))]
#[doc(hidden)]
/// A client holding `count` silent connections open to `address` (each one it finds
/// closed opened again) until `stop` is set or 20 s pass; returns how many it opened. For the
/// tests of the acceptor's flood (issue 73): the library's and the suite's, on the binary.
pub fn flood(
    address: &str,
    count: usize,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<usize> {
    let address: SocketAddr = address.parse().unwrap();
    std::thread::spawn(move || {
        let mut held: Vec<TcpStream> = Vec::new();
        let mut opened = 0;
        let until = Instant::now() + Duration::from_secs(20);
        while Instant::now() < until && !stop.load(std::sync::atomic::Ordering::Relaxed) {
            held.retain_mut(|s| match s.read(&mut [0u8; 1]) {
                Ok(0) => false,
                Ok(_) => true,
                Err(e) => e.kind() == io::ErrorKind::WouldBlock,
            });
            while held.len() < count {
                match TcpStream::connect_timeout(&address, Duration::from_millis(100)) {
                    Ok(s) => {
                        s.set_nonblocking(true).unwrap();
                        held.push(s);
                        opened += 1;
                    }
                    Err(_) => break,
                }
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        opened
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprint(goal: &str) -> Fingerprint {
        Fingerprint(vec![
            ("board".into(), "3x3".into()),
            ("goal".into(), goal.into()),
        ])
    }

    fn peering(me: usize, addresses: &[String], goal: &str, key: Option<&str>) -> Peering {
        Peering {
            me,
            addresses: addresses.to_vec(),
            fingerprint: fingerprint(goal),
            key: key.map(|k| k.as_bytes().to_vec()),
            deadline: Instant::now() + Duration::from_secs(20),
            connect_timeout: Duration::from_secs(20),
        }
    }

    /// A free loopback address held by nobody after the call (the unit tests bind it at
    /// once; the race with other tests is theirs to lose, not a wrong result).
    fn pair() -> Vec<String> {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let a = l.local_addr().unwrap().to_string();
        drop(l);
        vec![a, "127.0.0.1:1".into()]
    }

    type Connected = Result<Vec<Option<TcpStream>>, ClusterError>;

    /// Connects `a` (process 0) and `b` (process 1); both results and every warning.
    fn both(a: Peering, b: Peering) -> (Connected, Connected, Vec<String>) {
        let warnings = std::sync::Mutex::new(Vec::new());
        let warn = |w: String| warnings.lock().unwrap().push(w);
        let (x, y) = std::thread::scope(|s| {
            let x = s.spawn(|| connect(&a, &warn));
            std::thread::sleep(Duration::from_millis(100));
            let y = s.spawn(|| connect(&b, &warn));
            (x.join().unwrap(), y.join().unwrap())
        });
        (x, y, warnings.into_inner().unwrap())
    }

    #[test]
    fn fingerprints_name_the_first_field_that_differs() {
        assert_eq!(fingerprint("a").difference(&fingerprint("a")), None);
        assert_eq!(
            fingerprint("a").difference(&fingerprint("b")).unwrap(),
            "goal is a here and b there"
        );
        let mut more = fingerprint("a");
        more.0.push(("metric".into(), "stm".into()));
        assert_eq!(
            fingerprint("a").difference(&more).unwrap(),
            "metric is missing here and stm there"
        );
    }

    #[test]
    fn peers_of_one_run_connect_with_and_without_a_key() {
        for key in [None, Some("s3cret")] {
            let addresses = pair();
            let (x, y, warnings) = both(
                peering(0, &addresses, "g", key),
                peering(1, &addresses, "g", key),
            );
            let (x, y) = (x.unwrap(), y.unwrap());
            assert!(x[0].is_none() && x[1].is_some(), "{key:?}");
            assert!(y[0].is_some() && y[1].is_none(), "{key:?}");
            assert!(warnings.is_empty(), "{warnings:?}");
        }
    }

    #[test]
    fn a_peer_of_another_run_or_key_is_refused_naming_the_field() {
        for (goal, keys, needle) in [
            ("h", (None, None), "goal is h here and g there"),
            ("g", (Some("a"), Some("b")), "NPUZZLE_CLUSTER_KEY differs"),
            (
                "g",
                (Some("a"), None),
                "NPUZZLE_CLUSTER_KEY is unset here and set there",
            ),
        ] {
            let addresses = pair();
            let mut a = peering(0, &addresses, "g", keys.0);
            a.deadline = Instant::now() + Duration::from_secs(2);
            let b = peering(1, &addresses, goal, keys.1);
            let (x, y, warnings) = both(a, b);
            let y = y.unwrap_err().to_string();
            assert!(y.contains(needle), "{y}");
            let x = x.unwrap_err().to_string();
            assert!(x.contains("not every process connected"), "{x}");
            assert!(!warnings.is_empty());
        }
    }

    /// Issue 73: 70 silent connections held open (each one closed opened again) while the
    /// real peer arrives 2.5 s later: with a key on both, the oldest silent one makes room for
    /// each new one, the peers connect, and the flood's warnings are a burst, then at most one
    /// a second, with a count.
    #[test]
    fn a_flood_of_silent_connections_gives_way_to_the_real_peer() {
        let addresses = pair();
        let a = peering(0, &addresses, "g", Some("k"));
        let b = peering(1, &addresses, "g", Some("k"));
        let warnings = std::sync::Mutex::new(Vec::new());
        let warn = |w: String| warnings.lock().unwrap().push(w);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let started = Instant::now();
        let (x, y, opened) = std::thread::scope(|s| {
            let x = s.spawn(|| connect(&a, &warn));
            std::thread::sleep(Duration::from_millis(100));
            let flooding = flood(&addresses[0], 70, std::sync::Arc::clone(&stop));
            std::thread::sleep(Duration::from_millis(2500));
            let y = s.spawn(|| connect(&b, &warn)).join().unwrap();
            let x = x.join().unwrap();
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            (x, y, flooding.join().unwrap())
        });
        let elapsed = started.elapsed();
        let warnings = warnings.into_inner().unwrap();
        assert!(x.is_ok() && y.is_ok(), "{x:?} {y:?} {warnings:?}");
        assert!(elapsed < Duration::from_secs(8), "{elapsed:?}");
        assert!(
            opened > 100,
            "the flood was not dropped: {opened} connections"
        );
        let most = elapsed.as_secs() + u64::from(WARNING_BURST) + 2;
        assert!(
            warnings.len() as u64 <= most,
            "{} warnings: {warnings:?}",
            warnings.len()
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("more connections dropped or refused")),
            "{warnings:?}"
        );
    }

    /// Issue 73: a peer with the same key started with other flags (the goal here) is
    /// refused by both sides at once, each naming the field, not the key; without a key the
    /// acceptor waits [`HELLO_TIMEOUT`] more for another peer, then names it too.
    #[test]
    fn a_peer_of_another_run_is_refused_on_both_sides_naming_its_run() {
        for key in [Some("k"), None] {
            let addresses = pair();
            let a = peering(0, &addresses, "g", key);
            let b = peering(1, &addresses, "h", key);
            let started = Instant::now();
            let (x, y, _) = both(a, b);
            let elapsed = started.elapsed();
            let (x, y) = (x.unwrap_err().to_string(), y.unwrap_err().to_string());
            assert!(y.contains("another run: goal is h here and g there"), "{y}");
            assert!(x.contains("another run: goal is g here and h there"), "{x}");
            assert!(!x.contains("not every process connected"), "{x}");
            let most = match key {
                Some(_) => Duration::from_secs(2),
                None => HELLO_TIMEOUT + Duration::from_secs(2),
            };
            assert!(elapsed < most, "{key:?}: {elapsed:?}");
        }
    }

    #[test]
    fn frames_and_proofs_are_checked() {
        assert_eq!(
            unhex(&hex(&[0, 1, 254, 255])).unwrap(),
            vec![0, 1, 254, 255]
        );
        assert_eq!(unhex("0g"), None);
        assert_eq!(unhex("abc"), None);
        let p = prove(b"k", b"dialer", b"x", b"y");
        assert!(verify(b"k", b"dialer", b"x", b"y", &p));
        assert!(!verify(b"k", b"acceptor", b"x", b"y", &p));
        assert!(!verify(b"j", b"dialer", b"x", b"y", &p));
        assert!(!verify(b"k", b"dialer", b"xy", b"", &p));
    }
}
