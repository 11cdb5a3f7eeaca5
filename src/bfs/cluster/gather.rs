//! What process 0 gathers from every process at the end of a run: the per-board depths, the
//! distance table streamed in windows to its sink (with the listed layers), and the traffic
//! totals.

use super::net::{Net, corrupt_from, read_u64};
use super::state::{Deal, ITEM, Share};
use super::{ClusterError, MarksSink, Traffic, out_of_memory};
use crate::bfs::codec::{decode_sorted, encode_sorted};
use crate::bfs::{DepthArray, StateIndex};

/// Largest message of depths (or of a distance table's marks) sent to process 0 at the end.
pub(super) const GATHER_CHUNK: usize = 16 << 20;
const _: () = assert!(GATHER_CHUNK as u64 % ITEM == 0);

/// Process 0's per-board depths of the goal's space (`size` boards, one byte each, indexed
/// globally) from every process's `depths`, sent in chunks of at most [`GATHER_CHUNK`] bytes
/// (each: its first local index, then whole blocks of depths); `None` on the other processes.
/// `block`: the deal's block ([`super::BufferSizes::block`]).
///
/// # Errors
/// [`ClusterError::Config`] when a board lies deeper than [`DepthArray::MAX_DEPTH`];
/// [`ClusterError::Peer`] for a chunk that does not fit its sender's share; a refusal to
/// allocate; or as [`Net::gather`].
pub(super) fn gather_depths(
    net: &mut Net<'_>,
    depths: DepthArray,
    size: u64,
    block: Option<u64>,
) -> Result<Option<Vec<u8>>, ClusterError> {
    let (peers, me) = (net.peers, net.me);
    if depths.overflowed() {
        return Err(ClusterError::Config(format!(
            "a board lies deeper than {} moves, beyond what per-board depths hold",
            DepthArray::MAX_DEPTH
        )));
    }
    let raw = depths.raw_bytes();
    drop(depths);
    // Each chunk: its first local index, then whole blocks of depths.
    let chunks: Vec<Vec<u8>> = raw
        .chunks(GATHER_CHUNK)
        .enumerate()
        .map(|(k, c)| {
            let mut p = ((k * GATHER_CHUNK) as u64).to_le_bytes().to_vec();
            p.extend_from_slice(c);
            p
        })
        .collect();
    let got = net.gather(chunks)?;
    let deal = Deal::with_block(size, peers, me, block);
    if me != 0 {
        return Ok(None);
    }
    let mut all: Vec<u8> =
        crate::bfs::try_zeroed(size, "the gathered depths").map_err(out_of_memory)?;
    for (sender, p) in got {
        place_depths(&mut all, &deal, sender as usize, &p)?;
    }
    Ok(Some(all))
}

/// Every process's [`Traffic`] added up (peaks and the slowest save: their largest), on
/// every process.
///
/// # Errors
/// As [`Net::all_gather`].
pub(super) fn total_traffic(net: &mut Net<'_>) -> Result<Traffic, ClusterError> {
    let traffic = net.all_gather(&serde_json::to_vec(&net.traffic).unwrap_or_default())?;
    Ok(traffic
        .iter()
        .filter_map(|b| serde_json::from_slice::<Traffic>(b).ok())
        .fold(Traffic::default(), |a, t| Traffic {
            expanded: a.expanded.saturating_add(t.expanded),
            sent_indices: a.sent_indices.saturating_add(t.sent_indices),
            sent_bytes: a.sent_bytes.saturating_add(t.sent_bytes),
            resumed_from: a.resumed_from.or(t.resumed_from),
            saves: a.saves.max(t.saves),
            saved_bytes: a.saved_bytes.saturating_add(t.saved_bytes),
            save_micros: a.save_micros.max(t.save_micros),
            peak_unclaimed: a.peak_unclaimed.max(t.peak_unclaimed),
            peak_in_flight: a.peak_in_flight.max(t.peak_in_flight),
            received_bound: a.received_bound.max(t.received_bound),
        }))
}

/// Copies one chunk of per-board depths from process `sender` (its first local index, then
/// whole blocks of depths) into `all`, indexed globally; every offset and length is checked
/// against the sender's share first.
///
/// # Errors
/// [`ClusterError::Peer`] naming the sender when the chunk does not fit its share.
pub(super) fn place_depths(
    all: &mut [u8],
    deal: &Deal,
    sender: usize,
    chunk: &[u8],
) -> Result<(), ClusterError> {
    let bad = || corrupt_from(Some(sender), "per-board depths");
    if sender as u64 >= deal.peers || chunk.len() < 8 {
        return Err(bad());
    }
    let theirs = deal.of(sender);
    let at = read_u64(chunk);
    let len = (chunk.len() - 8) as u64;
    // Whole items, each within one block.
    let item = theirs.item;
    if at % item != 0 || at.checked_add(len).is_none_or(|end| end > theirs.held()) {
        return Err(bad());
    }
    for (b, block) in chunk[8..].chunks(item as usize).enumerate() {
        let from = theirs.global(at + b as u64 * item) as usize;
        let to = from + block.len();
        if to > all.len() {
            return Err(bad());
        }
        all[from..to].copy_from_slice(block);
    }
    Ok(())
}

/// Streams the finished marks of the goal's BFS (a [`Marking::Depths`] run) to process 0's
/// `sink`: first every process's boards of the listed layers (`limit`, and this process's
/// `listed`), merged and checked against `layers`, then the marks themselves in windows of
/// `window` bytes of the whole table ([`super::BufferSizes::table_window`]), in index order, each process sending the parts
/// of its blocks that fall in the window ([`pieces`]). Process 0 checks that every piece it
/// expects came once, from its owner, with its length.
///
/// # Errors
/// [`ClusterError::Peer`] for a corrupt or missing piece, [`ClusterError::Table`] when the
/// sink fails, or as [`Net::gather`].
pub(super) fn stream_table(
    net: &mut Net<'_>,
    held: &Share,
    layers: &[u64],
    (limit, listed): (u64, Vec<(u32, Vec<u64>)>),
    sink: Option<Box<dyn MarksSink>>,
    window: u64,
) -> Result<(), ClusterError> {
    let deal = held.deal;
    let table_error = |e: std::io::Error| ClusterError::Table(e.to_string());
    let mut payload = Vec::new();
    for (depth, boards) in &listed {
        let mut bytes = Vec::new();
        encode_sorted(boards, 0, &mut bytes);
        payload.extend_from_slice(&depth.to_le_bytes());
        payload.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        payload.extend_from_slice(&bytes);
    }
    drop(listed);
    let got = net.gather(vec![payload])?;
    let mut sink = match sink {
        Some(mut sink) if net.me == 0 => {
            let listed = merge_listed(layers, limit, deal.size, got)?;
            sink.begin(layers, limit, &listed).map_err(table_error)?;
            Some(sink)
        }
        _ if net.me == 0 => {
            return Err(ClusterError::Config(
                "process 0 has no table to write".into(),
            ));
        }
        _ => None,
    };
    let total = deal.size.div_ceil(4);
    // SAFETY: the search is over (the table is gathered after the last layer): no thread
    // changes the marks any more.
    let gathered = unsafe {
        held.marks.with_bytes(|local| -> Result<(), ClusterError> {
            let mut start = 0;
            while start < total {
                let end = (start + window).min(total);
                let payloads = pieces(&deal, start, end)
                    .into_iter()
                    .map(|(at, from, len)| {
                        let mut p = at.to_le_bytes().to_vec();
                        p.extend_from_slice(&local[from as usize..(from + len) as usize]);
                        p
                    })
                    .collect();
                let got = net.gather(payloads)?;
                if let Some(sink) = sink.as_mut() {
                    let mut expected: std::collections::HashMap<u64, (usize, u64)> = (0
                        ..deal.peers as usize)
                        .flat_map(|p| {
                            pieces(&deal.of(p), start, end)
                                .into_iter()
                                .map(move |(at, _, len)| (at, (p, len)))
                        })
                        .collect();
                    let mut window = vec![0u8; (end - start) as usize];
                    for (sender, p) in got {
                        let at = (p.len() >= 8).then(|| read_u64(&p));
                        match at.and_then(|at| Some((at, expected.remove(&at)?))) {
                            Some((at, (owner, len)))
                                if owner == sender as usize && len == p.len() as u64 - 8 =>
                            {
                                window[(at - start) as usize..][..len as usize]
                                    .copy_from_slice(&p[8..]);
                            }
                            _ => {
                                return Err(corrupt_from(
                                    Some(sender as usize),
                                    "the distance table's marks",
                                ));
                            }
                        }
                    }
                    if let Some((_, (owner, _))) = expected.into_iter().next() {
                        return Err(corrupt_from(
                            Some(owner),
                            "the distance table's marks (a part is missing)",
                        ));
                    }
                    sink.write(&window).map_err(table_error)?;
                }
                start = end;
            }
            Ok(())
        })
    };
    gathered?;
    if let Some(sink) = sink.as_mut() {
        sink.end().map_err(table_error)?;
    }
    Ok(())
}

/// The parts of the bytes `start..end` of a whole table's marks (four boards a byte) that the
/// process of `deal` holds: `(byte in the table, byte in its own marks, length)`, ascending,
/// each at most [`GATHER_CHUNK`] bytes.
fn pieces(deal: &Deal, start: u64, end: u64) -> Vec<(u64, u64, u64)> {
    // A block is a multiple of 32 boards, so of 4.
    let bytes = deal.block / 4;
    let mut out = Vec::new();
    let mut block = start / bytes;
    while block * bytes < end {
        if block % deal.peers == deal.me {
            let from = (block * bytes).max(start);
            let to = ((block + 1) * bytes).min(end);
            let local = (block / deal.peers) * bytes + (from - block * bytes);
            let mut at = from;
            while at < to {
                let len = (to - at).min(GATHER_CHUNK as u64);
                out.push((at, local + (at - from), len));
                at += len;
            }
        }
        block += 1;
    }
    out
}

/// Process 0's listed layers from every process's part (`got`: per sender, per layer its
/// depth (4 bytes), the length of its gap-encoded boards (8 bytes), and those): the layers of
/// `layers` of at most `limit` boards, each holding exactly its size in distinct boards below
/// `size`.
///
/// # Errors
/// [`ClusterError::Peer`] naming the sender of a malformed part, or the layer whose boards do
/// not add up.
fn merge_listed(
    layers: &[u64],
    limit: u64,
    size: u64,
    got: Vec<(u32, Vec<u8>)>,
) -> Result<Vec<(u32, Vec<StateIndex>)>, ClusterError> {
    let want: Vec<u32> = (0..layers.len() as u32)
        .filter(|&d| layers[d as usize] <= limit)
        .collect();
    let mut merged: Vec<Vec<u64>> = vec![Vec::new(); want.len()];
    for (sender, p) in got {
        let bad = || corrupt_from(Some(sender as usize), "the listed layers' boards");
        let mut rest = &p[..];
        while !rest.is_empty() {
            if rest.len() < 12 {
                return Err(bad());
            }
            let depth = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes"));
            let len = usize::try_from(read_u64(&rest[4..12]))
                .ok()
                .filter(|&len| len <= rest.len() - 12)
                .ok_or_else(bad)?;
            let k = want.binary_search(&depth).map_err(|_| bad())?;
            let mut inside = true;
            decode_sorted(&rest[12..12 + len], 0, |i| {
                inside &= i < size;
                merged[k].push(i);
            })
            .ok()
            .filter(|()| inside)
            .ok_or_else(bad)?;
            rest = &rest[12 + len..];
        }
    }
    let mut out = Vec::with_capacity(want.len());
    for (boards, depth) in merged.into_iter().zip(want) {
        let mut boards = boards;
        boards.sort_unstable();
        boards.dedup();
        let layer = layers[depth as usize];
        if boards.len() as u64 != layer {
            return Err(ClusterError::Peer(format!(
                "the processes listed {} boards at depth {depth}, whose layer holds {layer}",
                boards.len()
            )));
        }
        out.push((depth, boards.into_iter().map(StateIndex).collect()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces of every process tile each window of a table exactly once, and each piece's
    /// local bytes hold the boards the deal gives that process there: sizes around block
    /// boundaries, 1 to 5 processes, windows smaller and larger than a block.
    #[test]
    fn table_pieces_tile_every_window() {
        for size in [1, 31, ITEM - 1, ITEM + 1, 5 * ITEM + 7, 40 * ITEM + 3] {
            for peers in 1..=5usize {
                let total = size.div_ceil(4);
                for window in [5_000, 40_000, 1 << 20] {
                    let mut start = 0;
                    while start < total {
                        let end = (start + window).min(total);
                        let mut covered = vec![0u8; (end - start) as usize];
                        for p in 0..peers {
                            let deal = Deal::new(size, peers, p);
                            for (at, local, len) in pieces(&deal, start, end) {
                                assert!(len > 0 && len <= GATHER_CHUNK as u64);
                                // The local bytes hold at most the share's marks (whole words).
                                assert!(local + len <= deal.held().div_ceil(32) * 8);
                                for k in 0..len {
                                    covered[(at + k - start) as usize] += 1;
                                    // Byte `local + k` holds local boards from `4 (local + k)`.
                                    let board = deal.global(4 * (local + k));
                                    assert_eq!(board, 4 * (at + k), "{size} {peers} {p}");
                                }
                            }
                        }
                        assert!(covered.iter().all(|&c| c == 1), "{size} {peers} {window}");
                        start = end;
                    }
                }
            }
        }
    }

    /// Chunks of per-board depths land where their sender's deal says; a chunk whose offset,
    /// length or sender does not fit is an error naming the sender, never a panic.
    #[test]
    fn gathered_depths_are_checked_before_use() {
        let size = 10 * ITEM + 5;
        let deal = Deal::new(size, 2, 0);
        let mut all = vec![0u8; size as usize];
        let chunk = |at: u64, len: usize| {
            let mut c = at.to_le_bytes().to_vec();
            c.extend(std::iter::repeat_n(7u8, len));
            c
        };
        for sender in 0..2 {
            let held = deal.of(sender).held() as usize;
            place_depths(&mut all, &deal, sender, &chunk(0, held)).unwrap();
        }
        assert!(all.iter().all(|&d| d == 7), "every board placed once");
        let held = deal.of(1).held();
        for (sender, c) in [
            (2, chunk(0, 1)),
            (1, vec![1, 2, 3]),
            (1, chunk(held, 1)),
            (1, chunk(1, 1)),
            (1, chunk(0, held as usize + 1)),
            (1, chunk(u64::MAX - 7, 8)),
        ] {
            let e = place_depths(&mut all, &deal, sender, &c).unwrap_err();
            assert!(
                e.to_string()
                    .contains(&format!("process {sender} sent a corrupt")),
                "{e}"
            );
        }
    }
}
