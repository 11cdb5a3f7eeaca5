//! Where the frontier search keeps a layer: its gap-encoded segments in memory, or one file
//! per layer (segment after segment, their offsets and a CRC-32 over the file kept beside it
//! in memory and in the search's state file), read back one segment at a time.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::super::codec::Cursor;
use super::read_at;

/// A sorted set of indices of a space of `size` boards, in gap-encoded segments of `span`
/// indices each (segment `s` holds `s * span..(s + 1) * span`, encoded from `s * span`).
pub(super) struct Layer {
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
    /// `segments + 1` offsets.
    pub offsets: Vec<u64>,
    /// CRC-32 of the whole file.
    pub crc: u32,
    /// Time spent writing it: the writes, the checksum and, for a named file, the sync.
    pub write_time: std::time::Duration,
}

impl Layer {
    /// An empty layer in memory of `segments` segments over `size` boards.
    pub fn new(size: u64, segments: usize) -> Layer {
        Layer {
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

    /// The bytes of `segment`: borrowed in memory, read from the file on disk.
    pub fn segment(&self, segment: usize) -> io::Result<Cow<'_, [u8]>> {
        match &self.store {
            Store::Memory(s) => Ok(Cow::from(&s[segment][..])),
            Store::Disk(f) => {
                let (from, to) = (f.offsets[segment], f.offsets[segment + 1]);
                let mut bytes = vec![0u8; (to - from) as usize];
                read_at(&f.file, &mut bytes, from)?;
                Ok(Cow::from(bytes))
            }
        }
    }

    /// Frees `segment`'s memory (a layer being merged away; nothing on disk).
    pub fn free(&mut self, segment: usize) {
        if let Store::Memory(s) = &mut self.store {
            s[segment] = Vec::new();
        }
    }

    /// The indices of `bytes`, segment `segment`'s, ascending.
    pub fn cursor<'b>(&self, segment: usize, bytes: &'b [u8]) -> Cursor<'b> {
        Cursor::new(bytes, self.base(segment))
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
        offsets: Vec<u64>,
        crc: crc32fast::Hasher,
        write_time: std::time::Duration,
    },
}

impl Sink {
    /// A layer of `segments` segments of `span` indices, in memory.
    pub fn memory(span: u64, segments: usize) -> Sink {
        Sink {
            span,
            counts: Vec::with_capacity(segments),
            len: 0,
            out: SinkStore::Memory(Vec::with_capacity(segments)),
        }
    }

    /// The same in a file: an unnamed one in `dir`, or, with `name`, `dir/name` (created or
    /// truncated; a checkpoint's, kept until retired, written with direct I/O where the file
    /// system allows it: see [`Direct`]).
    pub fn file(span: u64, segments: usize, dir: &Path, name: Option<&str>) -> io::Result<Sink> {
        let (out, path) = match name {
            None => (
                Out::Buffered(BufWriter::with_capacity(
                    1 << 22,
                    tempfile::tempfile_in(dir)?,
                )),
                None,
            ),
            Some(name) => {
                let path = dir.join(name);
                let open = |direct: bool| {
                    let mut options = std::fs::OpenOptions::new();
                    options.read(true).write(true).create(true).truncate(true);
                    #[cfg(target_os = "linux")]
                    if direct {
                        use std::os::unix::fs::OpenOptionsExt;
                        options.custom_flags(libc::O_DIRECT);
                    }
                    #[cfg(not(target_os = "linux"))]
                    let _ = direct;
                    options.open(&path)
                };
                // tmpfs and some other file systems refuse O_DIRECT: buffered writes there.
                let out = match open(cfg!(target_os = "linux")) {
                    Ok(file) if cfg!(target_os = "linux") => Out::Direct(Direct::new(file)),
                    Ok(file) => Out::Buffered(BufWriter::with_capacity(1 << 22, file)),
                    Err(_) => Out::Buffered(BufWriter::with_capacity(1 << 22, open(false)?)),
                };
                (out, Some(path))
            }
        };
        let mut offsets = Vec::with_capacity(segments + 1);
        offsets.push(0);
        Ok(Sink {
            span,
            counts: Vec::with_capacity(segments),
            len: 0,
            out: SinkStore::Disk {
                out,
                path,
                offsets,
                crc: crc32fast::Hasher::new(),
                write_time: std::time::Duration::ZERO,
            },
        })
    }

    /// Appends the next segment: its bytes and its number of boards.
    pub fn push(&mut self, bytes: Vec<u8>, count: u64) -> io::Result<()> {
        self.counts.push(count);
        self.len += count;
        match &mut self.out {
            SinkStore::Memory(s) => s.push(bytes),
            SinkStore::Disk {
                out,
                offsets,
                crc,
                write_time,
                ..
            } => {
                let started = std::time::Instant::now();
                out.write_all(&bytes)?;
                crc.update(&bytes);
                *write_time += started.elapsed();
                let end = offsets.last().copied().unwrap_or(0) + bytes.len() as u64;
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
                offsets,
                crc,
                mut write_time,
            } => {
                let started = std::time::Instant::now();
                let file = match out {
                    Out::Buffered(out) => {
                        let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
                        if path.is_some() {
                            file.sync_all()?;
                        }
                        file
                    }
                    Out::Direct(out) => {
                        out.finish()?;
                        // Read back through the page cache (direct reads need aligned buffers).
                        File::open(
                            path.as_ref()
                                .ok_or_else(|| io::Error::other("a direct write names its file"))?,
                        )?
                    }
                };
                write_time += started.elapsed();
                Store::Disk(LayerFile {
                    file,
                    path,
                    offsets,
                    crc: crc.finalize(),
                    write_time,
                })
            }
        };
        Ok(Layer {
            span: self.span,
            counts: self.counts,
            len: self.len,
            store,
        })
    }
}

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

/// Bytes per block of direct I/O (offsets, lengths and buffers aligned to it).
const BLOCK: usize = 4096;

/// One aligned block of [`Direct`]'s buffer.
#[derive(Clone, Copy)]
#[repr(C, align(4096))]
struct Block([u8; BLOCK]);

/// A file opened with `O_DIRECT`, written in aligned 4 MiB pieces from an aligned buffer,
/// bypassing the page cache: the checkpoint's layer files are written once, synced, and read
/// back a layer later, and the page cache's writeback was the bottleneck (on this machine `dd`
/// with fsync wrote 384 MB/s buffered, 2.1 GB/s with `oflag=direct`). The tail is padded to a
/// block, then the file is truncated to its length and synced.
struct Direct {
    file: File,
    buffer: Vec<Block>,
    /// Bytes of `buffer` in use.
    fill: usize,
    /// Bytes written to the file so far (a multiple of [`BLOCK`]).
    written: u64,
}

impl Direct {
    /// Blocks in the buffer (4 MiB).
    const BLOCKS: usize = 1024;

    fn new(file: File) -> Direct {
        Direct {
            file,
            buffer: vec![Block([0; BLOCK]); Self::BLOCKS],
            fill: 0,
            written: 0,
        }
    }

    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: `Block` is `repr(C)` around a byte array with no padding (its size is its
        // alignment), so the vector's blocks are one initialised, contiguous run of bytes.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.buffer.as_mut_ptr().cast::<u8>(),
                self.buffer.len() * BLOCK,
            )
        }
    }

    /// Writes the first `len` bytes of the buffer (a multiple of [`BLOCK`]).
    fn drain(&mut self, len: usize) -> io::Result<()> {
        let Direct { file, buffer, .. } = self;
        // SAFETY: as in `bytes`.
        let bytes = unsafe { std::slice::from_raw_parts(buffer.as_ptr().cast::<u8>(), len) };
        file.write_all(bytes)?;
        self.written += len as u64;
        self.fill = 0;
        Ok(())
    }

    fn write(&mut self, mut data: &[u8]) -> io::Result<usize> {
        let n = data.len();
        while !data.is_empty() {
            let at = self.fill;
            let room = self.buffer.len() * BLOCK - at;
            let take = room.min(data.len());
            self.bytes()[at..at + take].copy_from_slice(&data[..take]);
            self.fill += take;
            data = &data[take..];
            if self.fill == self.buffer.len() * BLOCK {
                self.drain(self.fill)?;
            }
        }
        Ok(n)
    }

    /// Writes the tail (padded to a block), truncates the file to the bytes written, syncs.
    fn finish(mut self) -> io::Result<()> {
        let len = self.written + self.fill as u64;
        let padded = self.fill.div_ceil(BLOCK) * BLOCK;
        let fill = self.fill;
        self.bytes()[fill..padded].fill(0);
        if padded > 0 {
            self.drain(padded)?;
        }
        self.file.set_len(len)?;
        self.file.sync_all()
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
        for sizes in [
            vec![0usize],
            vec![1, 0, 4095],
            vec![4096, 4097, 3],
            vec![5 << 20, 1, (4 << 20) - 1, 777_777],
        ] {
            let mut sink = Sink::file(1000, sizes.len(), dir.path(), Some("layer-1.npl")).unwrap();
            let mut all = Vec::new();
            for (k, &n) in sizes.iter().enumerate() {
                let bytes: Vec<u8> = (0..n).map(|i| (i * 31 + k * 7) as u8).collect();
                all.extend_from_slice(&bytes);
                sink.push(bytes, n as u64).unwrap();
            }
            let layer = sink.finish().unwrap();
            let on_disk = std::fs::read(dir.path().join("layer-1.npl")).unwrap();
            assert_eq!(on_disk.len(), all.len(), "{sizes:?}");
            assert!(on_disk == all, "{sizes:?}");
            assert_eq!(layer.bytes_on_disk(), all.len() as u64);
            let Store::Disk(f) = &layer.store else {
                panic!("a file")
            };
            assert_eq!(f.crc, crc32fast::hash(&all));
            for s in 0..sizes.len() {
                let from: usize = sizes[..s].iter().sum();
                assert_eq!(&layer.segment(s).unwrap()[..], &all[from..from + sizes[s]]);
            }
            layer.retire().unwrap();
        }
    }
}
