//! The frontier search across processes: the hooks its layer loop calls ([`Exchange`]), one
//! machine's (which owns every segment and sends nothing: [`Alone`]), and the messages the
//! processes send each other (a run's pieces in another process's segments, cut out of the
//! chunk's run as they are: gap-coded, not re-encoded).
//!
//! A message is a list of pieces, each a header of 28 bytes (segment `u32`, base `u64`,
//! count `u64`, bytes `u64`, little-endian) then its bytes. Every field of a message that
//! arrives is checked before it is used ([`parse`]).

use super::FrontierError;
use super::runs::Piece;

/// Called with each message that arrives from another process (its pieces in this process's
/// segments), which the search adds as a run of its own; a message is acknowledged (its
/// sender may send as much again) once this returns.
pub type Arrived<'a> = dyn FnMut(&[u8]) -> Result<(), FrontierError> + 'a;

/// What the frontier search's layer loop needs from the processes it runs on: who owns a
/// segment, sending a run's pieces to their owner and taking what others sent, ending a
/// layer, and the collective steps (every process calls them in the same order: a sum, an
/// all-gather, a gather to process 0). Object-safe: the search takes `&mut dyn Exchange`, so
/// its generic code is compiled once whatever runs it.
///
/// Segment `k` of every layer belongs to process `k mod P` ([`Exchange::owner`]): a process's
/// layers hold its segments only (the others empty), so each expands, merges, checkpoints and
/// budgets its share as one machine does the whole.
pub trait Exchange {
    /// Processes of the search (1 on one machine).
    fn processes(&self) -> usize;
    /// This process, `0..processes`.
    fn process(&self) -> usize;
    /// Bytes of other processes' messages this process may hold at once, received and not
    /// yet added as runs: part of the memory a budget plans for. 0 on one machine.
    fn held(&self) -> u64 {
        0
    }
    /// The process that owns segment `segment` ([`owner`]).
    fn owner(&self, segment: usize) -> usize {
        owner(segment, self.processes())
    }
    /// Sends `message` (pieces of segments `target` owns) to process `target`. When the bytes
    /// sent to `target` and not yet acknowledged would pass the credit, waits for
    /// acknowledgements, passing each message that arrives meanwhile to `arrived` (so that two
    /// processes waiting for each other's credit both go on).
    ///
    /// # Errors
    /// [`FrontierError::Peer`] when another process failed or cannot be heard from, or what
    /// `arrived` returned.
    fn send(
        &mut self,
        target: usize,
        message: Vec<u8>,
        arrived: &mut Arrived<'_>,
    ) -> Result<(), FrontierError>;
    /// Passes each message that has arrived (and was not passed yet) to `arrived`.
    ///
    /// # Errors
    /// As [`Exchange::send`].
    fn take(&mut self, arrived: &mut Arrived<'_>) -> Result<(), FrontierError>;
    /// Ends this process's messages of the layer (an end marker to every other process), and
    /// waits until every other process has ended the layer, passing what arrives to `arrived`:
    /// once it returns, every message of the layer has been passed.
    ///
    /// # Errors
    /// As [`Exchange::send`].
    fn end_layer(&mut self, arrived: &mut Arrived<'_>) -> Result<(), FrontierError>;
    /// Every process's `bytes`, in process order (one round: every process calls it).
    ///
    /// # Errors
    /// As [`Exchange::send`].
    fn all_gather(&mut self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, FrontierError>;
    /// Every process's `bytes` on process 0, in process order; an empty list on the others.
    ///
    /// # Errors
    /// As [`Exchange::send`].
    fn gather(&mut self, bytes: Vec<u8>) -> Result<Vec<Vec<u8>>, FrontierError>;

    /// The sum of `value` over the processes.
    ///
    /// # Errors
    /// [`FrontierError::Peer`] when a process sent something else than a count, or as
    /// [`Exchange::all_gather`].
    fn sum(&mut self, value: u64) -> Result<u64, FrontierError> {
        Ok(self.sum_each(&[value])?[0])
    }

    /// The sums of `values` over the processes, each on its own (one round).
    ///
    /// # Errors
    /// As [`Exchange::sum`].
    fn sum_each(&mut self, values: &[u64]) -> Result<Vec<u64>, FrontierError> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let all = self.all_gather(&bytes)?;
        let mut sums = vec![0u64; values.len()];
        for (p, b) in all.iter().enumerate() {
            if b.len() != 8 * values.len() {
                return Err(corrupt(p, "a count"));
            }
            for (sum, c) in sums.iter_mut().zip(b.chunks_exact(8)) {
                let v = u64::from_le_bytes(c.try_into().expect("eight bytes"));
                *sum = sum.checked_add(v).ok_or_else(|| corrupt(p, "a count"))?;
            }
        }
        Ok(sums)
    }

    /// The depths every process can resume from, newest first: those of `mine` (the depths
    /// this process's checkpoint slots can resume, newest first) that every process has.
    ///
    /// # Errors
    /// As [`Exchange::all_gather`].
    fn common_depths(&mut self, mine: &[u32]) -> Result<Vec<u32>, FrontierError> {
        let bytes: Vec<u8> = mine.iter().flat_map(|d| d.to_le_bytes()).collect();
        let all = self.all_gather(&bytes)?;
        let depths = |b: &[u8]| -> Vec<u32> {
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let mut common: Vec<u32> = mine
            .iter()
            .copied()
            .filter(|d| all.iter().all(|b| depths(b).contains(d)))
            .collect();
        common.sort_unstable_by(|a, b| b.cmp(a));
        common.dedup();
        Ok(common)
    }

    /// Why the search stops before the next layer, when any process must (its memory budget
    /// or its disk): the first process's reason that has one, named `process P: ...` when
    /// there are several processes; every process then stops.
    ///
    /// # Errors
    /// As [`Exchange::all_gather`].
    fn agree_stop(&mut self, mine: Option<String>) -> Result<Option<String>, FrontierError> {
        if self.processes() == 1 {
            return Ok(mine);
        }
        let all = self.all_gather(mine.as_deref().unwrap_or("").as_bytes())?;
        Ok(all
            .iter()
            .enumerate()
            .find(|(_, b)| !b.is_empty())
            .map(|(p, b)| format!("process {p}: {}", String::from_utf8_lossy(b))))
    }
}

/// The process of `processes` that owns segment `segment` of every layer: `segment mod
/// processes` (the layers of a deep search spread over the index, so every process gets a
/// share of each; a lane move, between consecutive indices, stays in its segment).
pub fn owner(segment: usize, processes: usize) -> usize {
    segment % processes.max(1)
}

/// One machine: it owns every segment, and has nothing to send or wait for.
#[derive(Debug, Default, Clone, Copy)]
pub struct Alone;

impl Exchange for Alone {
    fn processes(&self) -> usize {
        1
    }
    fn process(&self) -> usize {
        0
    }
    fn send(&mut self, _: usize, _: Vec<u8>, _: &mut Arrived<'_>) -> Result<(), FrontierError> {
        Ok(())
    }
    fn take(&mut self, _: &mut Arrived<'_>) -> Result<(), FrontierError> {
        Ok(())
    }
    fn end_layer(&mut self, _: &mut Arrived<'_>) -> Result<(), FrontierError> {
        Ok(())
    }
    fn all_gather(&mut self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, FrontierError> {
        Ok(vec![bytes.to_vec()])
    }
    fn gather(&mut self, bytes: Vec<u8>) -> Result<Vec<Vec<u8>>, FrontierError> {
        Ok(vec![bytes])
    }
}

/// The error for a message of process `p` that cannot be right.
fn corrupt(p: usize, what: &str) -> FrontierError {
    FrontierError::Peer(format!(
        "process {p} sent a corrupt message ({what}); the search stops"
    ))
}

/// A run's buckets: the bytes and pieces of each ([`super::expand::Expansion::run`]).
type RunBuckets = Vec<(Vec<u8>, Vec<Piece>)>;

/// Bytes of a piece's header in a message.
const HEADER: usize = 28;

/// A chunk's run (the bytes and pieces of each bucket, [`super::expand::Expansion::run`]) cut by
/// owner: the buckets with this process's pieces only (the run kept here; the same buckets,
/// untouched, when every piece is this process's), and a message for each other process
/// with pieces of its segments (`(target, message)`, in process order).
pub(super) fn split(
    buckets: RunBuckets,
    exchange: &dyn Exchange,
) -> (RunBuckets, Vec<(usize, Vec<u8>)>) {
    let (me, processes) = (exchange.process(), exchange.processes());
    if processes == 1 {
        return (buckets, Vec::new());
    }
    let mut messages: Vec<Vec<u8>> = vec![Vec::new(); processes];
    let mut mine = Vec::with_capacity(buckets.len());
    for (bytes, pieces) in buckets {
        if pieces
            .iter()
            .all(|p| exchange.owner(p.segment as usize) == me)
        {
            mine.push((bytes, pieces));
            continue;
        }
        let mut kept = Vec::new();
        let mut kept_pieces = Vec::new();
        for p in pieces {
            let from = p.start as usize;
            let body = &bytes[from..from + p.len as usize];
            let owner = exchange.owner(p.segment as usize);
            if owner == me {
                kept_pieces.push(Piece {
                    start: kept.len() as u64,
                    ..p
                });
                kept.extend_from_slice(body);
            } else {
                let m = &mut messages[owner];
                m.extend_from_slice(&p.segment.to_le_bytes());
                m.extend_from_slice(&p.base.to_le_bytes());
                m.extend_from_slice(&p.count.to_le_bytes());
                m.extend_from_slice(&p.len.to_le_bytes());
                m.extend_from_slice(body);
            }
        }
        if !kept_pieces.is_empty() {
            mine.push((kept, kept_pieces));
        }
    }
    let out = messages
        .into_iter()
        .enumerate()
        .filter(|(_, m)| !m.is_empty())
        .collect();
    (mine, out)
}

/// A message from another process as a run's one bucket (its bytes and pieces), each piece
/// checked: a segment this process owns, in range and in order, its base within its segment
/// (and past the previous piece's of the segment), at least one board and no more boards
/// than bytes or than the segment spans, its bytes whole.
///
/// # Errors
/// [`FrontierError::Peer`] naming the field that cannot be right.
pub(super) fn parse(
    message: &[u8],
    (segments, span, size): (usize, u64, u64),
    (me, processes): (usize, usize),
) -> Result<(Vec<u8>, Vec<Piece>), FrontierError> {
    let bad = |what: &str| {
        FrontierError::Peer(format!(
            "a corrupt message arrived ({what}); the search stops"
        ))
    };
    let u64_at =
        |at: usize| u64::from_le_bytes(message[at..at + 8].try_into().expect("eight bytes"));
    let mut bytes = Vec::with_capacity(message.len());
    let mut pieces = Vec::new();
    let mut at = 0;
    let mut last: Option<(u32, u64)> = None;
    while at < message.len() {
        if message.len() - at < HEADER {
            return Err(bad("a piece's header cut short"));
        }
        let segment = u32::from_le_bytes(message[at..at + 4].try_into().expect("four bytes"));
        let (base, count, len) = (u64_at(at + 4), u64_at(at + 12), u64_at(at + 20));
        at += HEADER;
        let s = segment as usize;
        if s >= segments || owner(s, processes) != me {
            return Err(bad(&format!("segment {segment}, not this process's")));
        }
        let start = s as u64 * span;
        let end = start.saturating_add(span).min(size);
        if base < start || base >= end || last.is_some_and(|l| l >= (segment, base)) {
            return Err(bad(&format!("base {base} in segment {segment}")));
        }
        let spanned = end - start;
        if count == 0 || count > len || count > spanned {
            return Err(bad(&format!("{count} boards in {len} bytes")));
        }
        let Some(body) = usize::try_from(len)
            .ok()
            .and_then(|n| message.get(at..at.checked_add(n)?))
        else {
            return Err(bad("a piece's bytes cut short"));
        };
        pieces.push(Piece {
            segment,
            base,
            start: bytes.len() as u64,
            len,
            count,
        });
        bytes.extend_from_slice(body);
        at += body.len();
        last = Some((segment, base));
    }
    Ok((bytes, pieces))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two processes of three segments: process 1 owns segment 1 only.
    struct Two(usize);

    impl Exchange for Two {
        fn processes(&self) -> usize {
            2
        }
        fn process(&self) -> usize {
            self.0
        }
        fn send(&mut self, _: usize, _: Vec<u8>, _: &mut Arrived<'_>) -> Result<(), FrontierError> {
            Ok(())
        }
        fn take(&mut self, _: &mut Arrived<'_>) -> Result<(), FrontierError> {
            Ok(())
        }
        fn end_layer(&mut self, _: &mut Arrived<'_>) -> Result<(), FrontierError> {
            Ok(())
        }
        fn all_gather(&mut self, b: &[u8]) -> Result<Vec<Vec<u8>>, FrontierError> {
            Ok(vec![b.to_vec(), b.to_vec()])
        }
        fn gather(&mut self, b: Vec<u8>) -> Result<Vec<Vec<u8>>, FrontierError> {
            Ok(vec![b])
        }
    }

    /// A run cut by owner: process 0 keeps segments 0 and 2, the message to process 1 holds
    /// segment 1's piece, and process 1 reads it back as it was; a message that cannot be
    /// right (another's segment, a base outside its segment or going back, bytes cut short,
    /// more boards than bytes) is refused.
    #[test]
    fn a_run_is_cut_by_owner_and_its_messages_checked() {
        let piece = |segment: u32, base: u64, start: u64, len: u64, count: u64| Piece {
            segment,
            base,
            start,
            len,
            count,
        };
        // Segments of 10 indices over 30: one bucket with a piece in each.
        let bytes = vec![1u8, 2, 3, 4, 5, 6];
        let pieces = vec![
            piece(0, 0, 0, 2, 2),
            piece(1, 10, 2, 3, 2),
            piece(2, 20, 5, 1, 1),
        ];
        let (mine, out) = split(vec![(bytes, pieces)], &Two(0));
        assert_eq!(mine.len(), 1);
        assert_eq!(mine[0].0, [1, 2, 6]);
        assert_eq!(mine[0].1, [piece(0, 0, 0, 2, 2), piece(2, 20, 2, 1, 1)]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, 1);
        let layout = (3, 10, 30);
        let (b, p) = parse(&out[0].1, layout, (1, 2)).unwrap();
        assert_eq!(b, [3, 4, 5]);
        assert_eq!(p, [piece(1, 10, 0, 3, 2)]);
        assert!(parse(&out[0].1, layout, (0, 2)).is_err(), "not its segment");
        let message = &out[0].1;
        let with = |at: usize, value: u64| {
            let mut m = message.clone();
            m[at..at + 8].copy_from_slice(&value.to_le_bytes());
            m
        };
        for bad in [
            with(4, 9),
            with(4, 20),
            with(12, 0),
            with(12, 4),
            message[..message.len() - 1].to_vec(),
            message[..10].to_vec(),
            [message.clone(), message.clone()].concat(),
        ] {
            assert!(parse(&bad, layout, (1, 2)).is_err(), "{bad:?}");
        }
        // One process keeps the run untouched.
        let (mine, out) = split(vec![(vec![7], vec![piece(1, 10, 0, 1, 1)])], &Alone);
        assert_eq!((mine.len(), out.len()), (1, 0));
    }
}
