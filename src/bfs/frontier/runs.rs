//! The runs of the layer being built: each chunk's sorted, distinct neighbours as gap-encoded
//! pieces (one per bucket of its sort and segment), kept in memory or in one scratch file
//! with their CRC-32s, and read back segment by segment for the merge.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::disk::read_at;
use super::sort::MAX_BUCKETS;
use super::store::{SPILL_COPY, Segment};
use crate::bfs::codec::{Part, Reader, Source, push_gap};

/// A gap-encoded stretch of a run: the indices of one bucket of a chunk's sort in one segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Piece {
    /// The segment it lies in.
    pub(super) segment: u32,
    /// The base its first gap is counted from (the start of the segment or of the bucket).
    pub(super) base: u64,
    /// Its first byte: in the run's bytes in memory, or in the layer's run file.
    pub(super) start: u64,
    /// Its bytes.
    pub(super) len: u64,
    /// Its indices.
    pub(super) count: u64,
}

/// The [`Part`]s of consecutive pieces of segments of `span` indices, for a [`Reader`].
#[derive(Clone)]
pub(super) struct PieceParts<'a> {
    pieces: std::slice::Iter<'a, Piece>,
    span: u64,
}

impl Iterator for PieceParts<'_> {
    type Item = Part;

    fn next(&mut self) -> Option<Part> {
        let p = self.pieces.next()?;
        Some(Part {
            base: p.base,
            end: (u64::from(p.segment) + 1).saturating_mul(self.span),
            count: p.count,
            len: p.len,
        })
    }
}

/// Writes ascending, distinct indices of one bucket (`lo..`) as pieces, one per segment of
/// `span` indices it touches.
pub(super) struct PieceWriter {
    span: u64,
    lo: u64,
    pub(super) bytes: Vec<u8>,
    pieces: Vec<Piece>,
    /// First index past the open piece's segment (0: no piece open).
    end: u64,
    previous: u64,
}

impl PieceWriter {
    pub(super) fn new(span: u64, lo: u64) -> PieceWriter {
        PieceWriter {
            span,
            lo,
            bytes: Vec::new(),
            pieces: Vec::new(),
            end: 0,
            previous: 0,
        }
    }

    #[inline]
    pub(super) fn push(&mut self, x: u64) {
        if x >= self.end {
            self.close();
            let segment = x / self.span;
            let base = (segment * self.span).max(self.lo);
            self.pieces.push(Piece {
                segment: segment as u32,
                base,
                start: self.bytes.len() as u64,
                len: 0,
                count: 0,
            });
            self.end = (segment + 1) * self.span;
            self.previous = base;
        }
        push_gap(&mut self.bytes, x - self.previous);
        self.previous = x;
        if let Some(p) = self.pieces.last_mut() {
            p.count += 1;
        }
    }

    fn close(&mut self) {
        if let Some(p) = self.pieces.last_mut() {
            p.len = self.bytes.len() as u64 - p.start;
        }
    }

    pub(super) fn finish(mut self) -> (Vec<u8>, Vec<Piece>) {
        self.close();
        (self.bytes, self.pieces)
    }
}

/// One run: the sorted, distinct indices of one chunk's neighbours (level 0), or the union of
/// runs merged into it (level `l + 1` from runs of level `l` and below), as pieces in index
/// order, with a CRC-32 of its bytes in each segment it has pieces in (on disk).
struct Run {
    /// 0 for a chunk's run; one more than the highest of the runs merged into it.
    level: u32,
    /// The file its bytes are in (an index into [`Runs::files`]; on disk).
    file: usize,
    /// Its bytes (empty on disk).
    memory: Vec<u8>,
    /// Its pieces in index order.
    pieces: Vec<Piece>,
    /// The CRC-32 of its bytes in each segment it has pieces in, in index order (empty in
    /// memory).
    crcs: Vec<u32>,
}

impl Run {
    /// Bytes it holds in memory: its bytes there, its pieces and CRCs.
    fn bytes_in_memory(&self) -> u64 {
        (self.memory.capacity()
            + self.pieces.capacity() * std::mem::size_of::<Piece>()
            + self.crcs.capacity() * 4) as u64
    }
}

/// An unnamed scratch file the runs of one level are appended to, removed (closed) once no
/// run in it is left: so the runs merged into a run of the next level give their disk back.
struct RunFile {
    writer: BufWriter<File>,
    /// Bytes written.
    len: u64,
    /// Runs with bytes in it (and a run being written there).
    runs: usize,
}

/// A run being written by a merge ([`Runs::begin`], [`Runs::append`], [`Runs::finish`]).
pub(super) struct NewRun {
    run: Run,
}

/// The runs of the layer being built: their pieces, and their bytes in memory or in unnamed
/// files under the scratch folder (one open per level, each removed once its runs are merged
/// into the next level), with a CRC-32 of each run's bytes in each segment.
pub(super) struct Runs {
    /// The scratch folder, when on disk.
    dir: Option<PathBuf>,
    /// The runs' files (on disk); `None` once removed.
    files: Vec<Option<RunFile>>,
    /// Per level, the file its next run is appended to.
    open: Vec<Option<usize>>,
    /// The live runs.
    runs: Vec<Run>,
    /// Bytes of the chunks' runs (level 0), all of them.
    pub(super) bytes: u64,
    /// Runs written by merging runs (before the last merge).
    pub(super) merges: u64,
    /// The highest level of a run written.
    pub(super) levels: u32,
    /// Most bytes of runs, pieces and CRCs held in memory at once.
    peak_in_memory: u64,
}

/// The runs of one segment: `(run, first piece..end piece, CRC-32 of their bytes)`.
pub(super) type Entry = (usize, Range<usize>, u32);

impl Runs {
    pub(super) fn new(scratch: Option<&Path>) -> std::io::Result<Runs> {
        if let Some(dir) = scratch {
            std::fs::create_dir_all(dir)?;
        }
        Ok(Runs {
            dir: scratch.map(Path::to_path_buf),
            files: Vec::new(),
            open: Vec::new(),
            runs: Vec::new(),
            bytes: 0,
            merges: 0,
            levels: 0,
            peak_in_memory: 0,
        })
    }

    /// The live runs.
    pub(super) fn len(&self) -> usize {
        self.runs.len()
    }

    /// The live runs of level `level`, in order.
    pub(super) fn of_level(&self, level: u32) -> Vec<usize> {
        (0..self.runs.len())
            .filter(|&r| self.runs[r].level == level)
            .collect()
    }

    /// The level of run `run`.
    pub(super) fn level(&self, run: usize) -> u32 {
        self.runs[run].level
    }

    /// Bytes of run `run` (in memory or on disk).
    pub(super) fn run_bytes(&self, run: usize) -> u64 {
        self.runs[run].pieces.iter().map(|p| p.len).sum()
    }

    /// Bytes of runs, pieces and CRCs held in memory now.
    pub(super) fn bytes_in_memory(&self) -> u64 {
        self.runs.iter().map(Run::bytes_in_memory).sum()
    }

    /// The most bytes of runs, pieces and CRCs held in memory at once (merges included).
    pub(super) fn peak_in_memory(&self) -> u64 {
        self.peak_in_memory.max(self.bytes_in_memory())
    }

    /// Bytes of the runs' files on disk now.
    pub(super) fn bytes_on_disk(&self) -> u64 {
        self.files.iter().flatten().map(|f| f.len).sum()
    }

    /// The folder of the runs' files, when on disk (where a merge spills a large segment).
    pub(super) fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// A file of the runs, the lowest level's (for the tests of the checks on reading back).
    pub(super) fn a_file(&self) -> Option<&File> {
        self.open
            .iter()
            .flatten()
            .copied()
            .chain(0..self.files.len())
            .find_map(|f| self.files[f].as_ref())
            .map(|f| f.writer.get_ref())
    }

    /// Where the runs are, for an error.
    pub(super) fn place(&self) -> String {
        match &self.dir {
            Some(dir) => format!("an unnamed scratch file in {}", dir.display()),
            None => "in memory".into(),
        }
    }

    /// The file the next run of `level` goes to (on disk), made if there is none open; its
    /// count of runs taken by one.
    fn file_for(&mut self, level: u32) -> std::io::Result<usize> {
        let Some(dir) = &self.dir else { return Ok(0) };
        let l = level as usize;
        if self.open.len() <= l {
            self.open.resize(l + 1, None);
        }
        let f = match self.open[l] {
            Some(f) => f,
            None => {
                let file = tempfile::tempfile_in(dir)?;
                self.files.push(Some(RunFile {
                    writer: BufWriter::with_capacity(1 << 20, file),
                    len: 0,
                    runs: 0,
                }));
                self.open[l] = Some(self.files.len() - 1);
                self.files.len() - 1
            }
        };
        if let Some(file) = &mut self.files[f] {
            file.runs += 1;
        }
        Ok(f)
    }

    fn note_peak(&mut self, extra: u64) {
        self.peak_in_memory = self.peak_in_memory.max(self.bytes_in_memory() + extra);
    }

    /// Adds one run of a chunk (level 0), given as the bytes and pieces of each bucket in
    /// index order (pieces counted from the bucket's first byte).
    pub(super) fn add(&mut self, buckets: Vec<(Vec<u8>, Vec<Piece>)>) -> std::io::Result<()> {
        let total: usize = buckets.iter().map(|(b, _)| b.len()).sum();
        let mut pieces = Vec::with_capacity(buckets.iter().map(|(_, p)| p.len()).sum());
        let mut memory = Vec::new();
        let mut crcs = Vec::new();
        let file = self.file_for(0)?;
        let mut out = self.files.get_mut(file).and_then(Option::as_mut);
        if out.is_none() {
            memory.reserve_exact(total);
        }
        // The open segment's CRC (on disk).
        let mut open: Option<(u32, crc32fast::Hasher)> = None;
        for (bytes, ps) in buckets {
            let origin = match &mut out {
                Some(w) => {
                    for p in &ps {
                        if open.as_ref().is_none_or(|(s, _)| *s != p.segment) {
                            if let Some((_, h)) = open.take() {
                                crcs.push(h.finalize());
                            }
                            open = Some((p.segment, crc32fast::Hasher::new()));
                        }
                        let from = p.start as usize;
                        if let Some((_, h)) = &mut open {
                            h.update(&bytes[from..from + p.len as usize]);
                        }
                    }
                    let at = w.len;
                    w.writer.write_all(&bytes)?;
                    w.len += bytes.len() as u64;
                    at
                }
                None => {
                    let at = memory.len() as u64;
                    memory.extend_from_slice(&bytes);
                    at
                }
            };
            self.bytes += bytes.len() as u64;
            pieces.extend(ps.into_iter().map(|p| Piece {
                start: p.start + origin,
                ..p
            }));
        }
        if let Some((_, h)) = open {
            crcs.push(h.finalize());
        }
        self.runs.push(Run {
            level: 0,
            file,
            memory,
            pieces,
            crcs,
        });
        self.note_peak(0);
        Ok(())
    }

    /// Starts a run of `level`, written by a merge segment by segment ([`Runs::append`]).
    pub(super) fn begin(&mut self, level: u32) -> std::io::Result<NewRun> {
        let file = self.file_for(level)?;
        self.levels = self.levels.max(level);
        Ok(NewRun {
            run: Run {
                level,
                file,
                memory: Vec::new(),
                pieces: Vec::new(),
                crcs: Vec::new(),
            },
        })
    }

    /// Appends segment `segment` of a run being written, gap-encoded from `base` as a merge
    /// wrote it (its spilled bytes copied in first); nothing for an empty one.
    pub(super) fn append(
        &mut self,
        new: &mut NewRun,
        segment: usize,
        base: u64,
        written: Segment,
    ) -> std::io::Result<()> {
        if written.count == 0 {
            return Ok(());
        }
        let run = &mut new.run;
        let mut piece = Piece {
            segment: segment as u32,
            base,
            start: 0,
            len: 0,
            count: written.count,
        };
        match self.files.get_mut(run.file).and_then(Option::as_mut) {
            Some(out) => {
                piece.start = out.len;
                let mut crc = crc32fast::Hasher::new();
                if let Some((file, len)) = &written.spill {
                    let mut buffer = vec![0u8; SPILL_COPY.min(*len as usize)];
                    let mut at = 0u64;
                    while at < *len {
                        let n = buffer.len().min((*len - at) as usize);
                        read_at(file, &mut buffer[..n], at)?;
                        out.writer.write_all(&buffer[..n])?;
                        crc.update(&buffer[..n]);
                        at += n as u64;
                    }
                    piece.len = *len;
                }
                out.writer.write_all(&written.bytes)?;
                crc.update(&written.bytes);
                piece.len += written.bytes.len() as u64;
                out.len += piece.len;
                run.crcs.push(crc.finalize());
            }
            None => {
                piece.start = run.memory.len() as u64;
                if let Some((file, len)) = &written.spill {
                    let from = run.memory.len();
                    run.memory.resize(from + *len as usize, 0);
                    read_at(file, &mut run.memory[from..], 0)?;
                }
                run.memory.extend_from_slice(&written.bytes);
                piece.len = run.memory.len() as u64 - piece.start;
            }
        }
        run.pieces.push(piece);
        let extra = new.run.bytes_in_memory();
        self.note_peak(extra);
        Ok(())
    }

    /// Adds a run written by a merge.
    pub(super) fn finish(&mut self, new: NewRun) {
        let mut run = new.run;
        run.memory.shrink_to_fit();
        run.pieces.shrink_to_fit();
        self.runs.push(run);
        self.merges += 1;
    }

    /// Removes the runs `gone` (merged into another), and the files left without runs.
    pub(super) fn remove(&mut self, gone: &[usize]) {
        let mut k = 0;
        let mut kept = Vec::with_capacity(self.runs.len());
        for (r, run) in std::mem::take(&mut self.runs).into_iter().enumerate() {
            if gone.contains(&r) {
                k += 1;
                if let Some(file) = self.files.get_mut(run.file).and_then(Option::as_mut) {
                    file.runs -= 1;
                    if file.runs == 0 {
                        self.files[run.file] = None;
                        for open in &mut self.open {
                            if *open == Some(run.file) {
                                *open = None;
                            }
                        }
                    }
                }
            } else {
                kept.push(run);
            }
        }
        debug_assert_eq!(k, gone.len());
        self.runs = kept;
    }

    /// Writes out what is buffered, before a merge reads the files.
    pub(super) fn flush(&mut self) -> std::io::Result<()> {
        for file in self.files.iter_mut().flatten() {
            file.writer.flush()?;
        }
        Ok(())
    }

    /// For each of `segments` segments, the runs with pieces in it: `(starts, entries)`, where
    /// `entries[starts[s]..starts[s + 1]]` are segment `s`'s.
    pub(super) fn index(&self, segments: usize) -> (Vec<usize>, Vec<Entry>) {
        self.index_of(&(0..self.runs.len()).collect::<Vec<_>>(), segments)
    }

    /// [`Runs::index`] of the runs `which` only.
    pub(super) fn index_of(&self, which: &[usize], segments: usize) -> (Vec<usize>, Vec<Entry>) {
        let mut starts = vec![0usize; segments + 1];
        for &run in which {
            for g in self.runs[run]
                .pieces
                .chunk_by(|a, b| a.segment == b.segment)
            {
                starts[g[0].segment as usize + 1] += 1;
            }
        }
        for s in 0..segments {
            starts[s + 1] += starts[s];
        }
        let mut at = starts.clone();
        let mut entries = vec![(0, 0..0, 0); starts[segments]];
        for &run in which {
            let mut first = 0;
            let r = &self.runs[run];
            for (k, g) in r.pieces.chunk_by(|a, b| a.segment == b.segment).enumerate() {
                let s = g[0].segment as usize;
                let crc = r.crcs.get(k).copied().unwrap_or(0);
                entries[at[s]] = (run, first..first + g.len(), crc);
                at[s] += 1;
                first += g.len();
            }
        }
        (starts, entries)
    }

    /// A reader of the indices of pieces `range` of `run` (contiguous, in one segment of
    /// `span` indices), checked against `crc` on disk, read `buffer` bytes at a time.
    pub(super) fn reader(
        &self,
        (run, range, crc): &Entry,
        span: u64,
        buffer: usize,
    ) -> Reader<'_, PieceParts<'_>> {
        let r = &self.runs[*run];
        let pieces = &r.pieces[range.clone()];
        let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
        let (start, end) = (first.start, last.start + last.len);
        let source = match self.files.get(r.file).and_then(Option::as_ref) {
            None => Source::Memory(&r.memory[start as usize..end as usize]),
            Some(w) => Source::File {
                file: w.writer.get_ref(),
                from: start,
                to: end,
                crc: *crc,
            },
        };
        let parts = PieceParts {
            pieces: pieces.iter(),
            span,
        };
        Reader::new(source, parts, buffer)
    }
}

/// The most runs live at once when a layer gives `runs` runs of chunks merged with a fan-in
/// of `fan_in`: all of them when they are at most `fan_in`; else fewer than `fan_in` at each
/// level below the top, the `fan_in` being merged and the run they make.
pub(super) fn live_runs(runs: usize, fan_in: usize) -> usize {
    let fan_in = fan_in.max(2);
    if runs <= fan_in {
        return runs;
    }
    let mut levels = 0;
    let mut reach = 1usize;
    while reach < runs {
        reach = reach.saturating_mul(fan_in);
        levels += 1;
    }
    runs.min(levels * (fan_in - 1) + 2)
}

/// Bytes of the piece lists of `runs` runs over `segments` segments, at most (a piece per
/// segment and per bucket of a chunk's sort, in each run).
pub(super) fn pieces_bytes(runs: usize, segments: usize) -> u64 {
    (runs * (segments + MAX_BUCKETS) * (std::mem::size_of::<Piece>() + 4)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::codec::{decode_sorted, read_memory};

    use crate::bfs::codec::encoded as encode;

    /// The cursor reads what the codec writes, gaps of 1 to 10 bytes included, one piece or
    /// several in a row with their own bases; `push_gap` writes what the codec writes.
    #[test]
    fn the_cursor_reads_the_codec() {
        let xs = [
            7u64,
            8,
            200,
            1 << 14,
            (1 << 21) + 3,
            1 << 35,
            1 << 56,
            (1 << 63) + 1,
            u64::MAX - 1,
        ];
        for base in [0u64, 5, 7] {
            let bytes = encode(&xs, base);
            let mut decoded = Vec::new();
            decode_sorted(&bytes, base, |x| decoded.push(x)).unwrap();
            assert_eq!(decoded, xs);
            let part = Part {
                base,
                end: u64::MAX,
                count: xs.len() as u64,
                len: bytes.len() as u64,
            };
            assert_eq!(read_memory(&bytes, part).collect::<Vec<_>>(), xs);
        }
        let empty = Part {
            base: 9,
            end: 10,
            count: 0,
            len: 0,
        };
        assert_eq!(read_memory(&[], empty).next(), None);
        // The writer of runs and layers writes the codec's bytes.
        let mut written = Vec::new();
        let mut previous = 0;
        for &x in &xs {
            push_gap(&mut written, x - previous);
            previous = x;
        }
        assert_eq!(written, encode(&xs, 0));
        // Two pieces, the second from its own base, in bytes that start at byte 1000.
        let (a, b) = (encode(&[10, 12], 0), encode(&[101, 150], 100));
        let bytes = [a.clone(), b.clone()].concat();
        let pieces = [
            Piece {
                segment: 0,
                base: 0,
                start: 1000,
                len: a.len() as u64,
                count: 2,
            },
            Piece {
                segment: 1,
                base: 100,
                start: 1000 + a.len() as u64,
                len: b.len() as u64,
                count: 2,
            },
        ];
        let parts = PieceParts {
            pieces: pieces.iter(),
            span: 100,
        };
        let mut reader = Reader::new(Source::Memory(&bytes), parts.clone(), 0);
        assert_eq!(reader.by_ref().collect::<Vec<_>>(), [10, 12, 101, 150]);
        reader.finish().unwrap();
        // The same from a file, 16 bytes at a time, with its CRC.
        let mut file = tempfile::tempfile().unwrap();
        let padded = [vec![7u8; 1000], bytes.clone(), vec![9u8; 5]].concat();
        file.write_all(&padded).unwrap();
        let source = Source::File {
            file: &file,
            from: 1000,
            to: 1000 + bytes.len() as u64,
            crc: crc32fast::hash(&bytes),
        };
        let mut reader = Reader::new(source, parts, 16);
        assert_eq!(reader.by_ref().collect::<Vec<_>>(), [10, 12, 101, 150]);
        reader.finish().unwrap();
    }
}
