//! The frontier search across processes: the hooks its layer loop calls ([`Exchange`]), one
//! machine's (which owns every segment and sends nothing: [`Alone`]), and which process owns
//! which segment ([`Deal`]).
//!
//! A message (built by the scatter, `maps.rs`) is a list of parts, each a segment `u32` and a
//! count `u32` (little-endian) then that many `u32` offsets in the segment: the neighbours the
//! sender's scatter found in the receiver's segments. Every field of a message that arrives is
//! checked before it is used (`maps::parse`).

use super::FrontierError;

/// Called with each message that arrives from another process (its pieces in this process's
/// segments), which the search adds as a run of its own; a message is acknowledged (its
/// sender may send as much again) once this returns.
pub type Arrived<'a> = dyn FnMut(&[u8]) -> Result<(), FrontierError> + 'a;

/// What the frontier search's layer loop needs from the processes it runs on: who owns a
/// segment, sending the neighbours found in another process's segments to it and taking what others sent, ending a
/// layer, and the collective steps (every process calls them in the same order: a sum, an
/// all-gather, a gather to process 0). Object-safe: the search takes `&mut dyn Exchange`, so
/// its generic code is compiled once whatever runs it.
///
/// Every layer's segments are dealt to the processes by [`Deal`]: a process's
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

/// How [`Deal`] deals segments, as a checkpoint records it (a search across processes
/// resumes only from a checkpoint dealt the same way): 0, segment `k` to process `k mod P`
/// (before issue 74's balance); 1, [`Deal::new`]'s.
pub const DEAL: u32 = 1;

/// Fibonacci hashing's multiplier, `2^64 / phi` rounded to odd: `k * FIBONACCI mod 2^64` is
/// `frac(k / phi) * 2^64`, the golden-ratio sequence of low discrepancy.
const FIBONACCI: u64 = 0x9E37_79B9_7F4A_7C15;

/// Which process owns which segment of every layer (the same on every process: a function of
/// the segments and the processes alone).
///
/// The segments are taken in the order of the golden-ratio sequence (`frac(k / phi)`, by
/// Fibonacci hashing) and dealt in rounds of `P`, every other round in reverse (`0, 1, ..,
/// P - 1, P - 1, .., 0, 0, ..`). Every process gets the same number of segments (within
/// one), and its share of a layer is a sample of segments spread evenly over the whole index
/// whatever `P`: neither the runs of consecutive segments that `k mod P` deals alike when `P`
/// shares a factor with the Lehmer digits' radices (with 14 processes, `k mod 14` on 4x4 is
/// the third tile alone: +84 % on the fullest) nor a random deal's spread. Measured on every
/// layer's segments of 3x4 and 2x6 whole and 4x4 to depth 33 (`scripts/balance.py`;
/// docs/frontier-search.md "Balance across processes"). A lane move, between consecutive
/// indices, stays in its segment whatever the deal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deal {
    /// The owner of each segment.
    owners: Vec<u32>,
    processes: usize,
}

impl Deal {
    /// The deal of `segments` segments to `processes` processes (0 is read as 1).
    pub fn new(segments: usize, processes: usize) -> Deal {
        let p = processes.max(1);
        let mut order: Vec<usize> = (0..segments).collect();
        order.sort_unstable_by_key(|&k| ((k as u64).wrapping_mul(FIBONACCI), k));
        let mut owners = vec![0u32; segments];
        for (at, &k) in order.iter().enumerate() {
            let (round, seat) = (at / p, at % p);
            owners[k] = if round % 2 == 0 { seat } else { p - 1 - seat } as u32;
        }
        Deal {
            owners,
            processes: p,
        }
    }

    /// The process that owns segment `segment`.
    ///
    /// # Panics
    /// When `segment` is not one of the deal's segments.
    pub fn owner(&self, segment: usize) -> usize {
        self.owners[segment] as usize
    }

    /// The processes dealt to.
    pub fn processes(&self) -> usize {
        self.processes
    }

    /// Segments of the deal.
    pub fn segments(&self) -> usize {
        self.owners.len()
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The deal gives every process the same number of segments (within one), one of each
    /// round of `P` in the golden-ratio order, whatever `P` (the counts of 4x4's cuts too);
    /// one process owns everything; and it is a function of its arguments alone.
    #[test]
    fn the_deal_is_even_and_the_same_on_every_process() {
        for (segments, processes) in [(10, 3), (110, 4), (2730, 14), (2730, 16), (43_680, 7)] {
            let deal = Deal::new(segments, processes);
            let mut held = vec![0usize; processes];
            for k in 0..segments {
                held[deal.owner(k)] += 1;
            }
            let (least, most) = (held.iter().min().unwrap(), held.iter().max().unwrap());
            assert!(most - least <= 1, "{segments} to {processes}: {held:?}");
            assert_eq!(deal, Deal::new(segments, processes));
            assert_eq!((deal.segments(), deal.processes()), (segments, processes));
        }
        let alone = Deal::new(50, 1);
        assert!((0..50).all(|k| alone.owner(k) == 0));
        assert_eq!(Deal::new(5, 0).processes(), 1);
        // Not k mod P, which with 14 processes on 4x4's 2,730 segments deals by the third
        // tile alone.
        let deal = Deal::new(2730, 14);
        assert!((0..2730).filter(|&k| deal.owner(k) != k % 14).count() > 2000);
    }
}
