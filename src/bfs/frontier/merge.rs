//! The merge: layer `d + 1`, segment by segment, from the runs of layer `d`'s chunks, minus
//! the same segments of layers `d - 1` and `d`, written into the next layer's sink.

use std::io::Write;
use std::path::Path;

use rayon::prelude::*;

use super::config::Buffers;
use super::runs::Runs;
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
    let buffer = buffers.read_buffer(runs.pieces.len());
    let (runs_at, older_at, newer_at) = (runs.place(), older.place(), newer.place());
    let runs_of = format!("the runs of depth {depth}");
    let older_is = format!("layer {}", depth.saturating_sub(2));
    let newer_is = format!("layer {}", depth - 1);
    for first in (0..segments).step_by(buffers.window.max(1)) {
        let window = first..(first + buffers.window.max(1)).min(segments);
        let older_layer = &*older;
        let merged: Vec<Segment> = window
            .clone()
            .into_par_iter()
            .map(|s| {
                let entries = &entries[starts[s]..starts[s + 1]];
                let mut sources: Vec<_> = entries
                    .iter()
                    .map(|e| runs.reader(e, newer.span, buffer))
                    .collect();
                let mut old = older_layer.reader(s, buffer);
                let mut new = newer.reader(s, buffer);
                let mut out = Output::new(buffers.out_limit, spill);
                merge_segment(
                    sources.iter_mut().collect(),
                    &mut old,
                    &mut new,
                    newer.base(s),
                    &mut out,
                );
                for (e, source) in entries.iter().zip(sources) {
                    source.finish().map_err(|err| {
                        let what = format!("{runs_of}, run {}", e.0);
                        read_error(&what, &runs_at, s, err)
                    })?;
                }
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
}
