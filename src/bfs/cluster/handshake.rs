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
//! process number is dropped with one warning, and the acceptor goes on waiting for its real
//! peer. A dialer refused by its peer, or answered by a peer of another run, stops with an
//! error naming the field; the acceptor warns and keeps waiting, and names the refusals in
//! its error if the connect timeout passes. Connection errors (a peer not up yet) are
//! retried until the connect timeout.
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
/// Most connections handled at once while waiting for the peers (more are dropped).
const MAX_PENDING: usize = 64;

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
/// one line per connection dropped or refused, and the listening address when the
/// hostfile's port was 0.
///
/// # Errors
/// [`ClusterError::Config`] when an address cannot be resolved; [`ClusterError::Connect`]
/// when this process cannot listen on its address, or a peer is of another run (naming the field that differs),
/// refuses this process, or is still missing at the deadline.
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
            Err(HandshakeFailure::Stray(why) | HandshakeFailure::Refused(why)) => {
                return Err(ClusterError::Connect(format!(
                    "process {} at {address}: {why}",
                    p
                )));
            }
        }
    }
}

/// Accepts the processes above this one; exchanges run on their own threads (left to end
/// by their own deadline), so a silent connection does not hold up the real peer.
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
    let (done, results) =
        mpsc::channel::<(SocketAddr, Result<(usize, TcpStream), HandshakeFailure>)>();
    let mut got: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
    let mut pending = 0usize;
    let mut refusals: Vec<String> = Vec::new();
    let mut pause = Backoff::default();
    loop {
        let missing: Vec<usize> = (me + 1..n).filter(|&p| got[p].is_none()).collect();
        if missing.is_empty() {
            break;
        }
        if gave_up.load(std::sync::atomic::Ordering::Relaxed) {
            // The dialer's error is the one reported.
            return Ok(Vec::new());
        }
        if Instant::now() >= peering.deadline {
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
            if let Some(last) = refusals.last() {
                message.push_str(&format!("; refused: {last}"));
            }
            return Err(ClusterError::Connect(message));
        }
        match listener.accept() {
            Ok((stream, from)) if pending < MAX_PENDING => {
                pending += 1;
                pause = Backoff::default();
                let done = done.clone();
                let peering = std::sync::Arc::clone(peering);
                let spawned = std::thread::Builder::new()
                    .name("npuzzle-hello".into())
                    .spawn(move || {
                        let mut stream = stream;
                        let result = acceptor_side(&peering, &mut stream).map(|p| (p, stream));
                        let _ = done.send((from, result));
                    });
                if let Err(e) = spawned {
                    pending -= 1;
                    warn(format!("dropped a connection from {from}: {e}"));
                }
            }
            Ok((_, from)) => warn(format!(
                "dropped a connection from {from}: {MAX_PENDING} connections are already saying \
                 hello"
            )),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => warn(format!("a connection failed before its hello: {e}")),
        }
        while let Ok((from, result)) = results.try_recv() {
            pending -= 1;
            match result {
                Ok((p, stream)) => got[p] = Some(stream),
                Err(HandshakeFailure::Io(e)) => {
                    warn(format!("dropped a connection from {from}: {e}"));
                }
                Err(HandshakeFailure::Stray(why)) => {
                    warn(format!("dropped a connection from {from}: {why}"))
                }
                Err(HandshakeFailure::Refused(why)) => {
                    warn(format!("refused a connection from {from}: {why}"));
                    refusals.push(why);
                }
            }
        }
        if pending > 0 {
            // An exchange under way: look for its end promptly.
            pause = Backoff::default();
        }
        pause.sleep();
    }
    Ok(got
        .into_iter()
        .enumerate()
        .filter_map(|(p, s)| s.map(|s| (p, s)))
        .collect())
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

/// The acceptor's side of one exchange; returns the peer's process number.
fn acceptor_side(peering: &Peering, stream: &mut TcpStream) -> Result<usize, HandshakeFailure> {
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
    let mismatched = mismatch(peering, &theirs);
    if refused.is_none() {
        refused.clone_from(&mismatched);
    }
    let proof = match (&peering.key, &refused) {
        (Some(key), None) => prove(key, b"acceptor", &theirs_bytes, &mine),
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
        return Err(HandshakeFailure::Refused(format!("process {p}: {why}")));
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
