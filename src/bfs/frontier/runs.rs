//! The runs of the layer being built: each chunk's sorted, distinct neighbours as gap-encoded
//! pieces (one per bucket of its sort and segment), kept in memory or in one scratch file
//! with their CRC-32s, and read back segment by segment for the merge.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::sort::MAX_BUCKETS;
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

/// The runs of the layer being built: their pieces, and their bytes in memory or in one file
/// (unnamed, deleted when closed) under the scratch folder, with a CRC-32 of each run's bytes
/// in each segment.
pub(super) struct Runs {
    pub(super) file: Option<BufWriter<File>>,
    /// The scratch folder, when on disk.
    dir: Option<PathBuf>,
    /// Per run, its bytes (empty when on disk).
    memory: Vec<Vec<u8>>,
    /// Per run, its pieces in index order.
    pub(super) pieces: Vec<Vec<Piece>>,
    /// Per run, the CRC-32 of its bytes in each segment it has pieces in, in index order
    /// (empty in memory).
    crcs: Vec<Vec<u32>>,
    /// Bytes of all runs.
    pub(super) bytes: u64,
    /// Bytes of runs, pieces and CRCs held in memory.
    in_memory: u64,
}

/// The runs of one segment: `(run, first piece..end piece, CRC-32 of their bytes)`.
pub(super) type Entry = (usize, Range<usize>, u32);

impl Runs {
    pub(super) fn new(scratch: Option<&Path>) -> std::io::Result<Runs> {
        let file = match scratch {
            None => None,
            Some(dir) => {
                std::fs::create_dir_all(dir)?;
                let file = tempfile::tempfile_in(dir)?;
                Some(BufWriter::with_capacity(1 << 20, file))
            }
        };
        Ok(Runs {
            file,
            dir: scratch.map(Path::to_path_buf),
            memory: Vec::new(),
            pieces: Vec::new(),
            crcs: Vec::new(),
            bytes: 0,
            in_memory: 0,
        })
    }

    pub(super) fn bytes_in_memory(&self) -> u64 {
        self.in_memory
    }

    pub(super) fn bytes_on_disk(&self) -> u64 {
        if self.file.is_some() { self.bytes } else { 0 }
    }

    /// Where the runs are, for an error.
    pub(super) fn place(&self) -> String {
        match &self.dir {
            Some(dir) => format!("an unnamed scratch file in {}", dir.display()),
            None => "in memory".into(),
        }
    }

    /// Adds one run, given as the bytes and pieces of each bucket in index order (pieces
    /// counted from the bucket's first byte).
    pub(super) fn add(&mut self, buckets: Vec<(Vec<u8>, Vec<Piece>)>) -> std::io::Result<()> {
        let total: usize = buckets.iter().map(|(b, _)| b.len()).sum();
        let mut pieces = Vec::with_capacity(buckets.iter().map(|(_, p)| p.len()).sum());
        let mut memory = Vec::new();
        let mut crcs = Vec::new();
        if self.file.is_none() {
            memory.reserve_exact(total);
        }
        // The open segment's CRC (on disk).
        let mut open: Option<(u32, crc32fast::Hasher)> = None;
        for (bytes, ps) in buckets {
            let origin = match &mut self.file {
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
                    let at = self.bytes;
                    w.write_all(&bytes)?;
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
        self.in_memory += (memory.capacity()
            + pieces.capacity() * std::mem::size_of::<Piece>()
            + crcs.capacity() * 4) as u64;
        self.memory.push(memory);
        self.pieces.push(pieces);
        self.crcs.push(crcs);
        Ok(())
    }

    /// Writes out what is buffered, before the merge reads the file.
    pub(super) fn flush(&mut self) -> std::io::Result<()> {
        if let Some(w) = &mut self.file {
            w.flush()?;
        }
        Ok(())
    }

    /// For each of `segments` segments, the runs with pieces in it: `(starts, entries)`, where
    /// `entries[starts[s]..starts[s + 1]]` are segment `s`'s.
    pub(super) fn index(&self, segments: usize) -> (Vec<usize>, Vec<Entry>) {
        let mut starts = vec![0usize; segments + 1];
        for pieces in &self.pieces {
            for g in pieces.chunk_by(|a, b| a.segment == b.segment) {
                starts[g[0].segment as usize + 1] += 1;
            }
        }
        for s in 0..segments {
            starts[s + 1] += starts[s];
        }
        let mut at = starts.clone();
        let mut entries = vec![(0, 0..0, 0); starts[segments]];
        for (run, pieces) in self.pieces.iter().enumerate() {
            let mut first = 0;
            for (k, g) in pieces.chunk_by(|a, b| a.segment == b.segment).enumerate() {
                let s = g[0].segment as usize;
                let crc = self.crcs[run].get(k).copied().unwrap_or(0);
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
        let pieces = &self.pieces[*run][range.clone()];
        let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
        let (start, end) = (first.start, last.start + last.len);
        let source = match &self.file {
            None => Source::Memory(&self.memory[*run][start as usize..end as usize]),
            Some(w) => Source::File {
                file: w.get_ref(),
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
