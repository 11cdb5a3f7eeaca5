//! The checkpoint container: one file holding a JSON header and a binary body, checked whole.
//!
//! Layout (integers little-endian):
//!
//! | bytes | what |
//! |---|---|
//! | 8 | [`MAGIC`], `NPZCKPT` and the container version |
//! | 8 | `h`, the header's length |
//! | `h` | the header, JSON (what the body is, whose run it belongs to) |
//! | 8 | `b`, the body's length |
//! | `b` | the body |
//! | 4 | CRC-32 (IEEE, `crc32fast`) of every byte before it: magic, lengths, header and body |
//!
//! A file is accepted only when its length is exactly `8 + 8 + h + 8 + b + 4` and its CRC
//! matches, so a torn write, a truncated copy, a flipped bit in the header or the body, or a
//! writer that wrote less than it announced is refused rather than loaded. Files are written
//! through [`super::atomic`] (temporary name, synced, renamed), so a reader sees the previous
//! file or the complete new one.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::atomic::{WriteBehind, commit, temp_beside};

/// The first 8 bytes of every container: `NPZCKPT` and the container version (1).
pub const MAGIC: [u8; 8] = *b"NPZCKPT\x01";

/// Largest header accepted, in bytes (headers are a few hundred bytes of JSON).
const MAX_HEADER: u64 = 1 << 24;

/// Buffer of the writer and the reader, in bytes.
const BUFFER: usize = 1 << 22;

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// The body being written: counts and checksums what passes through. Large slices
/// (mebibytes) write at the disk's speed; the CRC runs at several GB/s.
pub struct BodyWriter<'a> {
    out: BufWriter<WriteBehind<'a>>,
    crc: crc32fast::Hasher,
    written: u64,
}

impl Write for BodyWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.crc.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Writes a container at `path`: `header` as JSON, then the `body_len` bytes that `body`
/// writes, then the CRC; through a temporary file, synced and renamed over `path`.
///
/// # Errors
/// The I/O error; `InvalidData` when `body` wrote other than `body_len` bytes (nothing is
/// renamed over `path` then).
pub fn write<H: Serialize>(
    path: &Path,
    header: &H,
    body_len: u64,
    body: impl FnOnce(&mut BodyWriter<'_>) -> io::Result<()>,
) -> io::Result<()> {
    let json = serde_json::to_vec(header).map_err(io::Error::other)?;
    let tmp = temp_beside(path)?;
    {
        let mut w = BodyWriter {
            out: BufWriter::with_capacity(BUFFER, WriteBehind::new(tmp.as_file())),
            crc: crc32fast::Hasher::new(),
            written: 0,
        };
        w.write_all(&MAGIC)?;
        w.write_all(&(json.len() as u64).to_le_bytes())?;
        w.write_all(&json)?;
        w.write_all(&body_len.to_le_bytes())?;
        let before = w.written;
        body(&mut w)?;
        let wrote = w.written - before;
        if wrote != body_len {
            return Err(invalid(format!(
                "a checkpoint body announced {body_len} bytes and wrote {wrote}"
            )));
        }
        let crc = w.crc.clone().finalize();
        w.out.write_all(&crc.to_le_bytes())?;
        w.out.flush()?;
    }
    commit(tmp, path)
}

/// An open container whose header has been read; the body is checked as it is read.
pub struct Opened<H> {
    /// The header.
    pub header: H,
    /// The body's length in bytes.
    pub body_len: u64,
    reader: BufReader<File>,
    crc: crc32fast::Hasher,
}

/// The body being read: checksums what passes through and never reads past the body.
pub struct BodyReader<'a> {
    reader: &'a mut BufReader<File>,
    crc: &'a mut crc32fast::Hasher,
    left: u64,
}

impl Read for BodyReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let room = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.reader.read(&mut buf[..room])?;
        self.crc.update(&buf[..n]);
        self.left -= n as u64;
        Ok(n)
    }
}

/// Opens the container at `path` and reads its header.
///
/// # Errors
/// `NotFound` when there is no file; `InvalidData` when it is not a whole container (another
/// magic, a length that does not match the file's, a header that is not this JSON); other I/O
/// errors as they come.
pub fn open<H: DeserializeOwned>(path: &Path) -> io::Result<Opened<H>> {
    let file = super::open_regular(path)?;
    let total = file.metadata()?.len();
    let mut reader = BufReader::with_capacity(BUFFER, file);
    let mut crc = crc32fast::Hasher::new();
    let mut read = |n: usize| -> io::Result<Vec<u8>> {
        let mut bytes = vec![0u8; n];
        reader.read_exact(&mut bytes).map_err(|e| {
            if e.kind() == io::ErrorKind::UnexpectedEof {
                invalid("a truncated checkpoint".into())
            } else {
                e
            }
        })?;
        crc.update(&bytes);
        Ok(bytes)
    };
    let u64_of = |b: Vec<u8>| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    if read(8)? != MAGIC {
        return Err(invalid("not an npuzzle checkpoint (another magic)".into()));
    }
    let h = u64_of(read(8)?);
    if h > MAX_HEADER || 8 + 8 + h + 8 + 4 > total {
        return Err(invalid("a truncated checkpoint".into()));
    }
    let json = read(h as usize)?;
    let body_len = u64_of(read(8)?);
    if Some(total) != (8 + 8 + h + 8 + 4).checked_add(body_len) {
        return Err(invalid(format!(
            "a checkpoint of {total} bytes announces a body of {body_len}: truncated or torn"
        )));
    }
    let header = serde_json::from_slice(&json)
        .map_err(|e| invalid(format!("an unreadable checkpoint header: {e}")))?;
    Ok(Opened {
        header,
        body_len,
        reader,
        crc,
    })
}

impl<H> Opened<H> {
    /// Reads the body through `body`, which must read all of it, then checks the CRC; only
    /// then may the caller trust the header and what `body` read, which it returns.
    ///
    /// # Errors
    /// The I/O error; `InvalidData` when the CRC does not match or `body` left bytes unread.
    pub fn read_body<T>(
        mut self,
        body: impl FnOnce(&mut BodyReader<'_>) -> io::Result<T>,
    ) -> io::Result<(H, T)> {
        let mut r = BodyReader {
            reader: &mut self.reader,
            crc: &mut self.crc,
            left: self.body_len,
        };
        let value = body(&mut r)?;
        if r.left != 0 {
            return Err(invalid(format!(
                "{} bytes of the checkpoint body were not read",
                r.left
            )));
        }
        let mut stored = [0u8; 4];
        self.reader.read_exact(&mut stored)?;
        if self.crc.finalize() != u32::from_le_bytes(stored) {
            return Err(invalid(
                "a corrupt checkpoint: its CRC-32 does not match".into(),
            ));
        }
        Ok((self.header, value))
    }
}

/// Opens the container at `path` and checks it whole (its length, then its CRC over every
/// byte); returns its header. Reads the whole file.
///
/// # Errors
/// As [`open`] and [`Opened::read_body`].
pub fn verify<H: DeserializeOwned>(path: &Path) -> io::Result<H> {
    let opened = open::<H>(path)?;
    let (header, ()) = opened.read_body(|r| io::copy(r, &mut io::sink()).map(|_| ()))?;
    Ok(header)
}

/// Rewrites the header of the container at `path` through `edit` (as JSON) and writes it
/// back with its CRC recomputed: a forged container that passes [`verify`], for tests of what
/// is checked beyond the CRC. Only for containers without a body.
#[cfg(test)]
pub(crate) fn forge(path: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut header: serde_json::Value = verify(path).unwrap();
    edit(&mut header);
    write(path, &header, 0, |_| Ok(())).unwrap();
    verify::<serde_json::Value>(path).unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Stamp {
        step: u64,
    }

    fn write_one(path: &Path, body: &[u8]) {
        write(path, &Stamp { step: 7 }, body.len() as u64, |w| {
            w.write_all(body)
        })
        .unwrap();
    }

    fn read_all(path: &Path) -> io::Result<(Stamp, Vec<u8>)> {
        let opened = open::<Stamp>(path)?;
        let len = opened.body_len as usize;
        opened.read_body(|r| {
            let mut b = vec![0u8; len];
            r.read_exact(&mut b)?;
            Ok(b)
        })
    }

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ckpt");
        let body: Vec<u8> = (0..100_000u32).map(|i| (i * 7) as u8).collect();
        write_one(&path, &body);
        let (h, b) = read_all(&path).unwrap();
        assert_eq!(h, Stamp { step: 7 });
        assert_eq!(b, body);
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            8 + 8 + 10 + 8 + 100_000 + 4
        );
    }

    /// Every single flipped bit, anywhere in the file (magic, lengths, header, body, CRC), and
    /// every truncation, is refused.
    #[test]
    fn any_flipped_bit_or_truncation_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ckpt");
        write_one(&path, b"the marks of a slice");
        let good = std::fs::read(&path).unwrap();
        for k in 0..good.len() * 8 {
            let mut bad = good.clone();
            bad[k / 8] ^= 1 << (k % 8);
            std::fs::write(&path, &bad).unwrap();
            let e = read_all(&path).expect_err("a flipped bit was accepted");
            assert_eq!(e.kind(), io::ErrorKind::InvalidData, "bit {k}: {e}");
        }
        for n in 0..good.len() {
            std::fs::write(&path, &good[..n]).unwrap();
            assert!(read_all(&path).is_err(), "truncated to {n} bytes");
        }
    }

    #[test]
    fn a_body_shorter_than_announced_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ckpt");
        write_one(&path, b"old");
        let e = write(&path, &Stamp { step: 8 }, 10, |w| w.write_all(b"short")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert_eq!(read_all(&path).unwrap().1, b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
