//! Where the frontier search keeps a layer: its gap-encoded segments in memory, or one file
//! per layer (segment after segment; their offsets, a CRC-32 per segment and one over the file
//! kept beside it in memory and in the search's state file), read back through a fixed buffer
//! and checked ([`Reader`]).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::super::codec::{Part, Reader, Source};
use super::disk::{Aligned, BLOCK, read_at};

/// A sorted set of indices of a space of `size` boards, in gap-encoded segments of `span`
/// indices each (segment `s` holds `s * span..(s + 1) * span`, encoded from `s * span`).
pub(super) struct Layer {
    pub size: u64,
    pub span: u64,
    pub counts: Vec<u64>,
    pub len: u64,
    pub store: Store,
}

/// Where a layer's segments are.
pub(super) enum Store {
    /// One buffer per segment.
    Memory(Vec<Vec<u8>>),
    /// One file: segment `s` is bytes `offsets[s]..offsets[s + 1]`.
    Disk(LayerFile),
}

/// A layer's file.
pub(super) struct LayerFile {
    pub file: File,
    /// Its name when it is a checkpoint's (kept until [`Layer::retire`]); `None` for an
    /// unnamed scratch file, gone when closed.
    pub path: Option<PathBuf>,
    /// Its folder (for an unnamed file's errors).
    pub dir: PathBuf,
    /// `segments + 1` offsets.
    pub offsets: Vec<u64>,
    /// CRC-32 of each segment's bytes.
    pub crcs: Vec<u32>,
    /// CRC-32 of the whole file.
    pub crc: u32,
    /// Time spent writing it: the writes, the checksum and, for a named file, the sync.
    pub write_time: std::time::Duration,
    /// Written through the page cache (a file system without direct I/O), whose pages
    /// mostly hold it still; else its bytes are on the disk only (written with direct I/O,
    /// or a checkpoint's read on resuming), and read ahead ([`Layer::prefetch`]).
    pub cached: bool,
}

impl Layer {
    /// An empty layer in memory of `segments` segments over `size` boards.
    pub fn new(size: u64, segments: usize) -> Layer {
        Layer {
            size,
            span: size.div_ceil(segments as u64).max(1),
            counts: vec![0; segments],
            len: 0,
            store: Store::Memory(vec![Vec::new(); segments]),
        }
    }

    pub fn segments(&self) -> usize {
        self.counts.len()
    }

    pub fn base(&self, segment: usize) -> u64 {
        segment as u64 * self.span
    }

    /// Bytes of each segment's gap-encoded boards.
    pub fn segment_bytes(&self) -> Vec<u64> {
        match &self.store {
            Store::Memory(s) => s.iter().map(|b| b.len() as u64).collect(),
            Store::Disk(f) => f.offsets.windows(2).map(|w| w[1] - w[0]).collect(),
        }
    }

    /// Bytes held in memory.
    pub fn bytes_in_memory(&self) -> u64 {
        match &self.store {
            Store::Memory(s) => s.iter().map(|s| s.capacity() as u64).sum(),
            Store::Disk(_) => 0,
        }
    }

    /// Time spent writing its file (zero in memory).
    pub fn write_time(&self) -> std::time::Duration {
        match &self.store {
            Store::Memory(_) => std::time::Duration::ZERO,
            Store::Disk(f) => f.write_time,
        }
    }

    /// Bytes of its file (0 in memory).
    pub fn bytes_on_disk(&self) -> u64 {
        match &self.store {
            Store::Memory(_) => 0,
            Store::Disk(f) => f.offsets.last().copied().unwrap_or(0),
        }
    }

    /// Where it is, for an error: its file's name, or its folder for an unnamed file.
    pub fn place(&self) -> String {
        match &self.store {
            Store::Memory(_) => "in memory".into(),
            Store::Disk(LayerFile {
                path: Some(path), ..
            }) => format!("file {}", path.display()),
            Store::Disk(f) => format!("an unnamed scratch file in {}", f.dir.display()),
        }
    }

    /// A reader of `segment`'s indices, ascending, checked against its count, its span and
    /// (on disk) its CRC-32; a file is read `buffer` bytes at a time.
    pub fn reader(&self, segment: usize, buffer: usize) -> Reader<'_, std::iter::Once<Part>> {
        let base = self.base(segment);
        let end = base.saturating_add(self.span).min(self.size);
        let count = self.counts[segment];
        let (source, len) = match &self.store {
            Store::Memory(s) => (Source::Memory(&s[segment]), s[segment].len() as u64),
            Store::Disk(f) => {
                let (from, to) = (f.offsets[segment], f.offsets[segment + 1]);
                let source = Source::File {
                    file: &f.file,
                    from,
                    to,
                    crc: f.crcs[segment],
                };
                (source, to - from)
            }
        };
        let part = Part {
            base,
            end,
            count,
            len,
        };
        Reader::new(source, std::iter::once(part), buffer)
    }

    /// Asks for `segments`' bytes on disk to be read ahead ([`will_need`](super::disk::will_need))
    /// when they are on the disk only (written with direct I/O, or a checkpoint's); nothing
    /// for a file written through the page cache (whose pages are mostly still there: walking
    /// them cost more system time than it saved) or a layer in memory.
    pub fn prefetch(&self, segments: std::ops::Range<usize>) {
        if let Store::Disk(f) = &self.store
            && !f.cached
        {
            let end = segments.end.min(self.counts.len());
            if segments.start < end {
                super::disk::will_need(&f.file, f.offsets[segments.start], f.offsets[end]);
            }
        }
    }

    /// Frees `segment`'s memory (a layer being merged away; nothing on disk).
    pub fn free(&mut self, segment: usize) {
        if let Store::Memory(s) = &mut self.store {
            s[segment] = Vec::new();
        }
    }

    /// Drops the layer, deleting its file when it is a checkpoint's.
    pub fn retire(self) -> io::Result<()> {
        if let Store::Disk(LayerFile {
            path: Some(path),
            file,
            ..
        }) = self.store
        {
            drop(file);
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        Ok(())
    }
}

/// A layer being written, segment after segment in index order.
pub(super) struct Sink {
    size: u64,
    span: u64,
    counts: Vec<u64>,
    len: u64,
    out: SinkStore,
}

enum SinkStore {
    Memory(Vec<Vec<u8>>),
    Disk {
        out: Out,
        path: Option<PathBuf>,
        dir: PathBuf,
        offsets: Vec<u64>,
        crcs: Vec<u32>,
        crc: crc32fast::Hasher,
        write_time: std::time::Duration,
    },
}

/// A segment of the next layer, as the merge writes it: its last bytes in memory, and those
/// before them in a scratch file of its own once they passed a limit (so that a segment of
/// any size takes a fixed buffer).
#[derive(Debug, Default)]
pub(super) struct Segment {
    /// Its boards.
    pub count: u64,
    /// Its bytes after those in `spill`.
    pub bytes: Vec<u8>,
    /// Its first bytes, if they passed the limit, and how many.
    pub spill: Option<(File, u64)>,
}

impl Sink {
    /// A layer of `segments` segments of `span` indices of a space of `size` boards, in
    /// memory.
    pub fn memory(size: u64, span: u64, segments: usize) -> Sink {
        Sink {
            size,
            span,
            counts: Vec::with_capacity(segments),
            len: 0,
            out: SinkStore::Memory(Vec::with_capacity(segments)),
        }
    }

    /// The same in a file: an unnamed one in `dir`, or, with `name`, `dir/name` (created or
    /// truncated; a checkpoint's, kept until retired and synced), written with direct I/O
    /// where the file system allows it (see [`Direct`]), else through the page cache.
    pub fn file(
        size: u64,
        span: u64,
        segments: usize,
        dir: &Path,
        name: Option<&str>,
    ) -> io::Result<Sink> {
        let (file, path) = match name {
            None => (tempfile::tempfile_in(dir)?, None),
            Some(name) => {
                let path = dir.join(name);
                let file = std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(&path)?;
                (file, Some(path))
            }
        };
        // tmpfs and some other file systems refuse O_DIRECT: buffered writes there.
        let out = match super::disk::set_direct(&file, true) {
            Ok(()) => Out::Direct(Direct::new(file)),
            Err(_) => Out::Buffered(BufWriter::with_capacity(1 << 22, file)),
        };
        let mut offsets = Vec::with_capacity(segments + 1);
        offsets.push(0);
        Ok(Sink {
            size,
            span,
            counts: Vec::with_capacity(segments),
            len: 0,
            out: SinkStore::Disk {
                out,
                path,
                dir: dir.to_path_buf(),
                offsets,
                crcs: Vec::with_capacity(segments),
                crc: crc32fast::Hasher::new(),
                write_time: std::time::Duration::ZERO,
            },
        })
    }

    /// Bytes of the segments appended so far that go to disk (0 in memory).
    pub fn bytes_on_disk(&self) -> u64 {
        match &self.out {
            SinkStore::Memory(_) => 0,
            SinkStore::Disk { offsets, .. } => offsets.last().copied().unwrap_or(0),
        }
    }

    /// Appends the next segment: its bytes and its number of boards.
    pub fn push(&mut self, bytes: Vec<u8>, count: u64) -> io::Result<()> {
        self.push_segment(Segment {
            count,
            bytes,
            spill: None,
        })
    }

    /// Appends the next segment as the merge wrote it (its spilled bytes copied in through a
    /// buffer of [`SPILL_COPY`] bytes, then its bytes in memory), with its CRC-32.
    pub fn push_segment(&mut self, segment: Segment) -> io::Result<()> {
        let Segment {
            count,
            mut bytes,
            spill,
        } = segment;
        self.counts.push(count);
        self.len += count;
        match &mut self.out {
            SinkStore::Memory(s) => {
                if let Some((file, len)) = spill {
                    // (A layer in memory has no folder to spill to; read back all the same.)
                    let mut all = vec![0u8; len as usize];
                    read_at(&file, &mut all, 0)?;
                    all.extend_from_slice(&bytes);
                    bytes = all;
                }
                s.push(bytes);
            }
            SinkStore::Disk {
                out,
                offsets,
                crcs,
                crc,
                write_time,
                ..
            } => {
                let started = std::time::Instant::now();
                let mut segment_crc = crc32fast::Hasher::new();
                let mut written = 0u64;
                if let Some((file, len)) = spill {
                    let mut buffer = vec![0u8; SPILL_COPY.min(len as usize)];
                    while written < len {
                        let n = buffer.len().min((len - written) as usize);
                        read_at(&file, &mut buffer[..n], written)?;
                        out.write_all(&buffer[..n])?;
                        segment_crc.update(&buffer[..n]);
                        written += n as u64;
                    }
                }
                out.write_all(&bytes)?;
                segment_crc.update(&bytes);
                written += bytes.len() as u64;
                crc.combine(&segment_crc);
                crcs.push(segment_crc.finalize());
                *write_time += started.elapsed();
                let end = offsets.last().copied().unwrap_or(0) + written;
                offsets.push(end);
            }
        }
        Ok(())
    }

    /// The finished layer; a file is flushed and, when named, synced.
    pub fn finish(self) -> io::Result<Layer> {
        let store = match self.out {
            SinkStore::Memory(s) => Store::Memory(s),
            SinkStore::Disk {
                out,
                path,
                dir,
                offsets,
                crcs,
                crc,
                mut write_time,
            } => {
                let started = std::time::Instant::now();
                let cached = matches!(out, Out::Buffered(_));
                let file = match out {
                    Out::Buffered(out) => {
                        let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
                        if path.is_some() {
                            file.sync_all()?;
                        }
                        file
                    }
                    Out::Direct(out) => {
                        let file = out.finish(path.is_some())?;
                        // Read back through the page cache (direct reads need aligned buffers).
                        super::disk::set_direct(&file, false)?;
                        file
                    }
                };
                write_time += started.elapsed();
                Store::Disk(LayerFile {
                    file,
                    path,
                    dir,
                    offsets,
                    crcs,
                    crc: crc.finalize(),
                    write_time,
                    cached,
                })
            }
        };
        Ok(Layer {
            size: self.size,
            span: self.span,
            counts: self.counts,
            len: self.len,
            store,
        })
    }
}

/// Bytes of the buffer a spilled segment is copied into its layer through.
pub(super) const SPILL_COPY: usize = 1 << 20;

/// Where a layer file's bytes go.
enum Out {
    Buffered(BufWriter<File>),
    Direct(Direct),
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Out::Buffered(w) => w.write(buf),
            Out::Direct(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Out::Buffered(w) => w.flush(),
            Out::Direct(_) => Ok(()),
        }
    }
}

/// A file written with direct I/O (`O_DIRECT`), in aligned 4 MiB pieces from an aligned
/// buffer, bypassing the page cache: a layer's file is written once and read back a layer
/// later, and the page cache's writeback was the bottleneck (`dd` beside the runs of
/// `output/bench/2x7-frontier-ckpt/`, in its `disk.txt`; on this project's machines, buffered
/// writes past a few GB cost about 10 ns of system time a byte, direct ones 0.25). The tail
/// is padded to a block, then the file is truncated to its length (and synced, for a
/// checkpoint's).
struct Direct {
    file: File,
    buffer: Aligned,
    /// Bytes of `buffer` in use.
    fill: usize,
    /// Bytes written to the file so far (a multiple of [`BLOCK`]).
    written: u64,
}

impl Direct {
    /// Bytes of the buffer (4 MiB).
    const BYTES: usize = 1 << 22;

    fn new(file: File) -> Direct {
        Direct {
            file,
            buffer: Aligned::new(Self::BYTES),
            fill: 0,
            written: 0,
        }
    }

    /// Writes the first `len` bytes of the buffer (a multiple of [`BLOCK`]).
    fn drain(&mut self, len: usize) -> io::Result<()> {
        self.file.write_all(&self.buffer.bytes()[..len])?;
        self.written += len as u64;
        self.fill = 0;
        Ok(())
    }

    fn write(&mut self, mut data: &[u8]) -> io::Result<usize> {
        let n = data.len();
        while !data.is_empty() {
            let at = self.fill;
            let room = Self::BYTES - at;
            let take = room.min(data.len());
            self.buffer.bytes_mut()[at..at + take].copy_from_slice(&data[..take]);
            self.fill += take;
            data = &data[take..];
            if self.fill == Self::BYTES {
                self.drain(self.fill)?;
            }
        }
        Ok(n)
    }

    /// Writes the tail (padded to a block), truncates the file to the bytes written, syncs
    /// it when `sync`; the file.
    fn finish(mut self, sync: bool) -> io::Result<File> {
        let len = self.written + self.fill as u64;
        let padded = self.fill.div_ceil(BLOCK) * BLOCK;
        let fill = self.fill;
        self.buffer.bytes_mut()[fill..padded].fill(0);
        if padded > 0 {
            self.drain(padded)?;
        }
        self.file.set_len(len)?;
        if sync {
            self.file.sync_all()?;
        }
        Ok(self.file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A checkpoint layer written through `Sink::file` (direct I/O on this file system, when
    /// it allows it) reads back byte for byte, whatever the segments' sizes: empty, smaller
    /// than a block, across the 4 MiB buffer; the file is exactly as long as its bytes.
    #[test]
    fn direct_writes_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        for name in [Some("layer-1.npl"), None] {
            for sizes in [
                vec![0usize],
                vec![1, 0, 4095],
                vec![4096, 4097, 3],
                vec![5 << 20, 1, (4 << 20) - 1, 777_777],
            ] {
                let mut sink = Sink::file(
                    1000 * sizes.len() as u64,
                    1000,
                    sizes.len(),
                    dir.path(),
                    name,
                )
                .unwrap();
                let mut all = Vec::new();
                for (k, &n) in sizes.iter().enumerate() {
                    let bytes: Vec<u8> = (0..n).map(|i| (i * 31 + k * 7) as u8).collect();
                    all.extend_from_slice(&bytes);
                    sink.push(bytes, n as u64).unwrap();
                }
                let layer = sink.finish().unwrap();
                assert_eq!(layer.bytes_on_disk(), all.len() as u64);
                let Store::Disk(f) = &layer.store else {
                    panic!("a file")
                };
                assert_eq!(f.file.metadata().unwrap().len(), all.len() as u64);
                if let Some(name) = name {
                    let on_disk = std::fs::read(dir.path().join(name)).unwrap();
                    assert!(on_disk == all, "{sizes:?}");
                }
                // Read back through the same descriptor, unaligned (direct I/O is off again).
                let mut back = vec![0u8; all.len()];
                if !back.is_empty() {
                    read_at(&f.file, &mut back[1..], 1).unwrap();
                    read_at(&f.file, &mut back[..1], 0).unwrap();
                }
                assert!(back == all, "{name:?} {sizes:?}");
                assert_eq!(f.crc, crc32fast::hash(&all));
                for s in 0..sizes.len() {
                    let from: usize = sizes[..s].iter().sum();
                    assert_eq!(f.crcs[s], crc32fast::hash(&all[from..from + sizes[s]]));
                    assert_eq!(f.offsets[s + 1] - f.offsets[s], sizes[s] as u64);
                }
                layer.retire().unwrap();
            }
        }
    }
}
