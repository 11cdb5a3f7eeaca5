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
        out: BufWriter<File>,
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
    /// truncated; a checkpoint's, kept until retired).
    pub fn file(span: u64, segments: usize, dir: &Path, name: Option<&str>) -> io::Result<Sink> {
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
        let mut offsets = Vec::with_capacity(segments + 1);
        offsets.push(0);
        Ok(Sink {
            span,
            counts: Vec::with_capacity(segments),
            len: 0,
            out: SinkStore::Disk {
                out: BufWriter::with_capacity(1 << 22, file),
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
                let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
                if path.is_some() {
                    file.sync_all()?;
                }
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
