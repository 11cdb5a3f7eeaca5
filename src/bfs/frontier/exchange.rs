//! The frontier search across processes: the hooks its layer loop calls ([`Exchange`]), one
//! machine's (which owns every segment and sends nothing: [`Alone`]), and the messages the
//! processes send each other (a run's pieces in another process's segments, cut out of the
//! chunk's run as they are: gap-coded, not re-encoded).
//!
//! A message is a list of pieces, each a header of 28 bytes (segment `u32`, base `u64`,
//! count `u64`, bytes `u64`, little-endian) then its bytes. Every field of a message that
//! arrives is checked before it is used ([`parse`]).

use super::FrontierError;

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
