//! The merge: layer `d + 1`, segment by segment, from the runs of layer `d`'s chunks, minus
//! the same segments of layers `d - 1` and `d`, written into the next layer's sink.

use std::io::Write;
use std::path::Path;

use rayon::prelude::*;

use super::config::Buffers;
use super::runs::{Entry, Runs};
use super::store::{Layer, Segment, Sink};
use super::tournament::{EXHAUSTED, Tournament};
use super::{FrontierError, read_error};
use crate::bfs::codec::push_gap;

/// A segment of the next layer being written by the merge: its bytes in memory up to `limit`,
/// then (with a folder to spill to) moved to a scratch file of its own, so that a segment of
/// any size takes at most `limit` bytes of memory.
struct Output<'d> {
    segment: Segment,
    limit: usize,
    dir: Option<&'d Path>,
    error: Option<std::io::Error>,
}

impl<'d> Output<'d> {
    fn new(limit: usize, dir: Option<&'d Path>) -> Output<'d> {
        Output {
            segment: Segment::default(),
            limit: if dir.is_some() {
                limit.max(1)
            } else {
                usize::MAX
            },
            dir,
            error: None,
        }
    }

    #[inline]
    fn push(&mut self, gap: u64) {
        push_gap(&mut self.segment.bytes, gap);
        self.segment.count += 1;
        if self.segment.bytes.len() >= self.limit {
            self.spill();
        }
    }

    /// Moves the bytes in memory to the spill file.
    #[cold]
    fn spill(&mut self) {
        let Some(dir) = self.dir else { return };
        if self.error.is_some() {
            self.segment.bytes.clear();
            return;
        }
        let result = (|| -> std::io::Result<()> {
            if self.segment.spill.is_none() {
                self.segment.spill = Some((tempfile::tempfile_in(dir)?, 0));
            }
            let (file, len) = self.segment.spill.as_mut().expect("just made");
            file.write_all(&self.segment.bytes)?;
            *len += self.segment.bytes.len() as u64;
            Ok(())
        })();
        self.segment.bytes.clear();
        if let Err(e) = result {
            self.error = Some(e);
        }
    }

    fn finish(mut self) -> std::io::Result<Segment> {
        match self.error.take() {
            Some(e) => Err(e),
            None => {
                self.segment.bytes.shrink_to_fit();
                Ok(self.segment)
            }
        }
    }
}

/// The layer `d + 1` segment from `base` into `out`: the union of `sources` (ascending,
/// duplicates allowed) minus `older` and `newer` (the same segment of layers `d - 1` and
/// `d`, read as far as the sources go), encoded from `base`.
fn merge_segment<I: Iterator<Item = u64>>(
    mut sources: Vec<I>,
    older: &mut impl Iterator<Item = u64>,
    newer: &mut impl Iterator<Item = u64>,
    base: u64,
    out: &mut Output<'_>,
) {
    let mut old = older.next().unwrap_or(EXHAUSTED);
    let mut new = newer.next().unwrap_or(EXHAUSTED);
    let mut previous = base;
    let mut last = EXHAUSTED;
    let mut keep = |x: u64| {
        if x == last {
            return;
        }
        last = x;
        while old < x {
            old = older.next().unwrap_or(EXHAUSTED);
        }
        while new < x {
            new = newer.next().unwrap_or(EXHAUSTED);
        }
        if old != x && new != x {
            out.push(x - previous);
            previous = x;
        }
    };
    if sources.len() == 1 {
        sources.pop().into_iter().flatten().for_each(&mut keep);
    } else {
        Tournament::new(sources).for_each(&mut keep);
    }
}

/// Layer `d + 1` (`depth`) from the runs of layer `d`'s chunks, minus `older` (layer `d - 1`,
/// its memory freed segment by segment) and `newer` (layer `d`), written into `sink` a window
/// of segments at a time (the segments of a window in parallel), each source read through a
/// buffer of a fixed size and checked ([`Reader`]), each segment spilled to a file of its own
/// under `spill` when it passes [`Buffers::out_limit`].
///
/// # Errors
/// [`FrontierError::Read`] for a run or a layer that does not check out, naming it and the
/// segment; [`FrontierError::Scratch`] when a file fails.
///
/// [`Reader`]: crate::bfs::codec::Reader
pub(super) fn merge(
    runs: &Runs,
    (older, newer): (&mut Layer, &Layer),
    mut sink: Sink,
    buffers: &Buffers,
    spill: Option<&Path>,
    depth: u32,
) -> Result<Layer, FrontierError> {
    let scratch = |source| FrontierError::Scratch {
        path: spill.map(Path::to_path_buf).unwrap_or_default(),
        source,
    };
    let segments = newer.segments();
    let (starts, entries) = runs.index(segments);
    let buffer = buffers.read_buffer(runs.len());
    let (runs_at, older_at, newer_at) = (runs.place(), older.place(), newer.place());
    let runs_of = format!("the runs of depth {depth}");
    let older_is = format!("layer {}", depth.saturating_sub(2));
    let newer_is = format!("layer {}", depth - 1);
    for window in buffers.windows(segments) {
        let older_layer = &*older;
        let merged: Vec<Segment> = window
            .clone()
            .into_par_iter()
            .map(|s| {
                let entries = &entries[starts[s]..starts[s + 1]];
                let mut old = older_layer.reader(s, buffer);
                let mut new = newer.reader(s, buffer);
                let mut out = Output::new(buffers.out_limit, spill);
                let segment = (s, newer.span, entries);
                let read = (runs_of.as_str(), runs_at.as_str());
                merge_runs_segment(runs, segment, buffer, (&mut old, &mut new), &mut out, read)?;
                old.finish()
                    .map_err(|e| read_error(&older_is, &older_at, s, e))?;
                new.finish()
                    .map_err(|e| read_error(&newer_is, &newer_at, s, e))?;
                out.finish().map_err(scratch)
            })
            .collect::<Result<_, FrontierError>>()?;
        for s in window {
            older.free(s);
        }
        for segment in merged {
            sink.push_segment(segment).map_err(scratch)?;
        }
    }
    sink.finish().map_err(scratch)
}

/// Merges segment `s` of the runs `entries` (of `runs`, segments of `span` boards, each read
/// through a buffer of `buffer` bytes) into `out`, less the boards of `older` and `newer`
/// ([`merge_segment`]), then checks each run's reader: [`FrontierError::Read`] names the run
/// (of `runs_of`, kept `runs_at`) and the segment.
fn merge_runs_segment(
    runs: &Runs,
    (s, span, entries): (usize, u64, &[Entry]),
    buffer: usize,
    (older, newer): (
        &mut impl Iterator<Item = u64>,
        &mut impl Iterator<Item = u64>,
    ),
    out: &mut Output<'_>,
    (runs_of, runs_at): (&str, &str),
) -> Result<(), FrontierError> {
    let mut sources: Vec<_> = entries
        .iter()
        .map(|e| runs.reader(e, span, buffer))
        .collect();
    merge_segment(
        sources.iter_mut().collect(),
        older,
        newer,
        s as u64 * span,
        out,
    );
    for (e, source) in entries.iter().zip(sources) {
        source.finish().map_err(|err| {
            let what = format!("{runs_of}, run {}", e.0);
            read_error(&what, runs_at, s, err)
        })?;
    }
    Ok(())
}

/// Merges the runs `which` into one run of `level` (appended to that level's file, or in
/// memory), their union without subtracting anything, a window of segments at a time (the
/// segments of a window in parallel, each source read through a buffer and checked, each
/// segment spilled past [`Buffers::out_limit`]), then removes them.
///
/// Layers `d - 1` and `d` are not subtracted here: the runs of chunks are spread over the
/// whole index, so every merge before the last would decode both layers whole again (the
/// cost issue 21 removed, times the number of merges), to save bytes only on the boards of
/// the layers themselves; the union already drops the neighbours several chunks share.
///
/// # Errors
/// [`FrontierError::Read`] for a run that does not check out, naming it and the segment;
/// [`FrontierError::Scratch`] when a file fails.
pub(super) fn merge_runs(
    runs: &mut Runs,
    which: &[usize],
    level: u32,
    (segments, span): (usize, u64),
    buffers: &Buffers,
    depth: u32,
) -> Result<(), FrontierError> {
    let spill = runs.dir().map(Path::to_path_buf);
    let scratch = |source| FrontierError::Scratch {
        path: spill.clone().unwrap_or_default(),
        source,
    };
    runs.flush().map_err(scratch)?;
    let (starts, entries) = runs.index_of(which, segments);
    let buffer = buffers.read_buffer(which.len());
    let runs_at = runs.place();
    let runs_of = format!("the runs of depth {depth}");
    let mut new = runs.begin(level).map_err(scratch)?;
    for window in buffers.windows(segments) {
        let reading = &*runs;
        let merged: Vec<Segment> = window
            .clone()
            .into_par_iter()
            .map(|s| {
                let entries = &entries[starts[s]..starts[s + 1]];
                let mut out = Output::new(buffers.out_limit, spill.as_deref());
                let segment = (s, span, entries);
                let none = (&mut std::iter::empty(), &mut std::iter::empty());
                let read = (runs_of.as_str(), runs_at.as_str());
                merge_runs_segment(reading, segment, buffer, none, &mut out, read)?;
                out.finish().map_err(scratch)
            })
            .collect::<Result<_, FrontierError>>()?;
        for (s, segment) in window.zip(merged) {
            runs.append(&mut new, s, s as u64 * span, segment)
                .map_err(scratch)?;
        }
    }
    runs.finish(new);
    runs.remove(which);
    Ok(())
}

/// Keeps the runs within the fan-in as they accumulate, as a log-structured merge tree
/// does: while a level holds `fan_in` runs, they are merged into one run of the next level
/// ([`merge_runs`]). Called before each run of a chunk is added, so each level holds at
/// most `fan_in` runs (fewer above level 0), and a merge reads at most `fan_in` runs.
///
/// # Errors
/// As [`merge_runs`].
pub(super) fn settle(
    runs: &mut Runs,
    fan_in: usize,
    shape: (usize, u64),
    buffers: &Buffers,
    depth: u32,
) -> Result<(), FrontierError> {
    let mut level = 0;
    loop {
        let full = runs.of_level(level);
        if full.len() < fan_in.max(2) {
            return Ok(());
        }
        merge_runs(runs, &full, level + 1, shape, buffers, depth)?;
        level += 1;
    }
}

/// Brings the runs down to at most `fan_in` before the last merge: while there are more, the
/// smallest (lowest level first) are merged, as many as it takes and at most `fan_in`, into a
/// run one level above the highest of them.
///
/// # Errors
/// As [`merge_runs`].
pub(super) fn narrow(
    runs: &mut Runs,
    fan_in: usize,
    shape: (usize, u64),
    buffers: &Buffers,
    depth: u32,
) -> Result<(), FrontierError> {
    let fan_in = fan_in.max(2);
    while runs.len() > fan_in {
        let mut order: Vec<usize> = (0..runs.len()).collect();
        order.sort_by_key(|&r| (runs.level(r), runs.run_bytes(r)));
        order.truncate(fan_in.min(runs.len() - fan_in + 1));
        order.sort_unstable();
        let level = order.iter().map(|&r| runs.level(r)).max().unwrap_or(0) + 1;
        merge_runs(runs, &order, level, shape, buffers, depth)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::codec::{Part, read_memory};
    use crate::bfs::frontier::store;

    use crate::bfs::codec::encoded as encode;

    /// The merge of a segment is the union of the runs (with their duplicates) minus layers
    /// `d - 1` and `d`, encoded from the segment's base.
    #[test]
    fn the_merge_gives_the_union_minus_both_layers() {
        let runs = [
            vec![101u64, 104, 109, 130],
            vec![102, 104, 107, 109],
            vec![],
            vec![103, 105],
            vec![108, 130],
        ];
        let older = encode(&[102, 108, 140], 100);
        let newer = encode(&[103, 105, 106], 100);
        let part = |bytes: &[u8], count| Part {
            base: 100,
            end: 200,
            count,
            len: bytes.len() as u64,
        };
        // In memory, and spilled to a file every 2 bytes: the same segment.
        let dir = tempfile::tempdir().unwrap();
        for (limit, spill) in [(usize::MAX, None), (2, Some(dir.path()))] {
            let mut out = Output::new(limit, spill);
            let (mut old, mut new) = (
                read_memory(&older, part(&older, 3)),
                read_memory(&newer, part(&newer, 3)),
            );
            merge_segment(
                runs.iter().cloned().map(Vec::into_iter).collect(),
                &mut old,
                &mut new,
                100,
                &mut out,
            );
            old.finish().unwrap();
            new.finish().unwrap();
            let segment = out.finish().unwrap();
            assert_eq!(segment.count, 5);
            assert_eq!(segment.spill.is_some(), spill.is_some());
            let mut sink = Sink::memory(1000, 100, 10);
            sink.push_segment(segment).unwrap();
            let layer = sink.finish().unwrap();
            let store::Store::Memory(bytes) = &layer.store else {
                panic!("in memory")
            };
            assert_eq!(bytes[0], encode(&[101, 104, 107, 109, 130], 100));
        }
        // Nothing to merge: an empty segment.
        let none: Vec<std::vec::IntoIter<u64>> = Vec::new();
        let mut out = Output::new(usize::MAX, None);
        merge_segment(
            none,
            &mut read_memory(&older, part(&older, 3)),
            &mut read_memory(&[], part(&[], 0)),
            100,
            &mut out,
        );
        let segment = out.finish().unwrap();
        assert_eq!((segment.count, segment.bytes.len()), (0, 0));
    }

    /// The multi-level merge keeps every index of every run once and no other: random
    /// ascending runs of 3 buckets each (duplicates between runs, some empty), 1 to 40 of
    /// them, added one by one with [`settle`] before each and [`narrow`] after the last, with
    /// a fan-in of 2 to 5, in memory and on disk with the smallest buffers (segments spilled
    /// past 64 bytes): at most `fan_in` runs are left, never more live than [`live_runs`]
    /// plans for, each distinct, and their union is the union of the runs added (a
    /// `BTreeSet`). On disk, the files of the merged runs are gone.
    #[test]
    fn the_multi_level_merge_keeps_the_union() {
        use crate::bfs::frontier::runs::{PieceWriter, live_runs};
        use std::collections::BTreeSet;
        let (segments, span) = (10usize, 1000u64);
        let tiny = Buffers {
            merge_read: 1,
            out_limit: 64,
            window: 2,
            decode: 16,
        };
        let mut rng = fastrand::Rng::with_seed(63);
        for fan_in in 2..=5usize {
            for disk in [false, true] {
                for count in [1usize, 2, fan_in, fan_in + 1, 17, 40] {
                    let dir = tempfile::tempdir().unwrap();
                    let mut runs = Runs::new(disk.then(|| dir.path())).unwrap();
                    let mut all = BTreeSet::new();
                    let mut written = 0u64;
                    for k in 0..count {
                        // Dense in part of the index (many duplicates), sparse elsewhere.
                        let len = if k % 5 == 3 { 0 } else { rng.usize(0..400) };
                        let run: BTreeSet<u64> = (0..len)
                            .map(|_| match rng.u8(0..3) {
                                0 => rng.u64(2000..2300),
                                _ => rng.u64(0..segments as u64 * span),
                            })
                            .collect();
                        all.extend(run.iter().copied());
                        // Three buckets at 3,000 and 6,500 (within segments 3 and 6).
                        let buckets = [0u64, 3000, 6500, u64::MAX];
                        let pieces = buckets
                            .windows(2)
                            .map(|b| {
                                let mut w = PieceWriter::new(span, b[0]);
                                run.range(b[0]..b[1]).for_each(|&x| w.push(x));
                                w.finish()
                            })
                            .collect();
                        settle(&mut runs, fan_in, (segments, span), &tiny, 1).unwrap();
                        runs.add(pieces).unwrap();
                        written = runs.bytes;
                        let at = format!("fan-in {fan_in}, disk {disk}, run {k} of {count}");
                        assert!(runs.len() <= live_runs(k + 1, fan_in), "{at}");
                    }
                    narrow(&mut runs, fan_in, (segments, span), &tiny, 1).unwrap();
                    let at = format!("fan-in {fan_in}, disk {disk}, {count} runs");
                    assert!(runs.len() <= fan_in, "{at}");
                    assert_eq!(runs.merges > 0, count > fan_in, "{at}");
                    runs.flush().unwrap();
                    let (starts, entries) = runs.index(segments);
                    let mut got = Vec::new();
                    let mut each = vec![0u64; runs.len()];
                    for s in 0..segments {
                        for e in &entries[starts[s]..starts[s + 1]] {
                            let mut reader = runs.reader(e, span, 16);
                            for x in reader.by_ref() {
                                assert_eq!(x / span, s as u64, "{at}");
                                got.push(x);
                                each[e.0] += 1;
                            }
                            reader.finish().unwrap();
                        }
                    }
                    // Each run is distinct (the reader checks it ascends strictly), and the
                    // runs left share nothing when all were merged into one.
                    got.sort_unstable();
                    let union: Vec<u64> = got
                        .iter()
                        .copied()
                        .collect::<BTreeSet<_>>()
                        .into_iter()
                        .collect();
                    assert_eq!(union, all.iter().copied().collect::<Vec<_>>(), "{at}");
                    if runs.len() == 1 {
                        assert_eq!(got.len(), all.len(), "{at}");
                    }
                    if disk && runs.merges > 0 && runs.len() == 1 {
                        // The merged runs' files are gone: only the last run's bytes are
                        // left on disk.
                        assert_eq!(runs.bytes_on_disk(), runs.run_bytes(0), "{at}");
                        assert!(runs.bytes_on_disk() <= written, "{at}");
                    }
                }
            }
        }
    }
}
