//! The file system under a search: positioned reads and writes of its files, the bytes free
//! in a folder, and, in debug builds, the damage the tests of the checks on reading back ask
//! for.

use std::fs::File;
use std::path::Path;

#[cfg(unix)]
pub(super) fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, at)
}

#[cfg(not(unix))]
pub(super) fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file.try_clone()?;
    f.seek(SeekFrom::Start(at))?;
    f.read_exact(buf)
}

#[cfg(unix)]
pub(super) fn write_at(file: &File, bytes: &[u8], at: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.write_all_at(bytes, at)
}

#[cfg(not(unix))]
pub(super) fn write_at(file: &File, bytes: &[u8], at: u64) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    let mut f = file.try_clone()?;
    f.seek(SeekFrom::Start(at))?;
    f.write_all(bytes)
}

/// Bytes per block of direct I/O: its offsets, lengths and buffers are multiples of it.
pub(super) const BLOCK: usize = 4096;

/// One block of an [`Aligned`] buffer.
#[derive(Clone, Copy)]
#[repr(C, align(4096))]
struct Block([u8; BLOCK]);

/// A zeroed buffer of whole [`BLOCK`]s, aligned as direct I/O needs.
pub(super) struct Aligned(Vec<Block>);

impl Aligned {
    /// At least `len` bytes (rounded up to whole blocks).
    pub(super) fn new(len: usize) -> Aligned {
        Aligned(vec![Block([0; BLOCK]); len.div_ceil(BLOCK)])
    }

    /// Its bytes (a multiple of [`BLOCK`]).
    pub(super) fn bytes(&self) -> &[u8] {
        // SAFETY: `Block` is `repr(C)` around a byte array with no padding (its size is its
        // alignment), so the vector's blocks are one initialised, contiguous run of bytes.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr().cast::<u8>(), self.0.len() * BLOCK) }
    }

    /// Its bytes, to fill.
    pub(super) fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`.
        unsafe {
            std::slice::from_raw_parts_mut(self.0.as_mut_ptr().cast::<u8>(), self.0.len() * BLOCK)
        }
    }
}

/// Turns direct I/O (`O_DIRECT`: past the page cache, aligned to [`BLOCK`]) on or off for
/// `file`'s later reads and writes (`fcntl(F_SETFL)`).
///
/// # Errors
/// When the file system refuses it (tmpfs), and on systems other than Linux.
pub(super) fn set_direct(file: &File, on: bool) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let fd = file.as_raw_fd();
        // SAFETY: fcntl on an open descriptor, reading and setting its status flags only.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if flags < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let flags = match on {
            true => flags | libc::O_DIRECT,
            false => flags & !libc::O_DIRECT,
        };
        // SAFETY: as above.
        if unsafe { libc::fcntl(fd, libc::F_SETFL, flags) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, on);
        Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
    }
}

/// Asks the kernel to read bytes `from..to` of `file` into its cache ahead of their reader
/// (`posix_fadvise(POSIX_FADV_WILLNEED)`, which starts the reads and returns): a layer's
/// next segments while the current ones are built, so that a thread does not wait on the
/// disk for a file written past the cache (`O_DIRECT`). A hint: nothing happens where the
/// kernel declines it or on other systems.
#[cfg(target_os = "linux")]
pub(super) fn will_need(file: &File, from: u64, to: u64) {
    use std::os::fd::AsRawFd;
    let (Ok(at), Ok(len)) = (
        libc::off_t::try_from(from),
        libc::off_t::try_from(to - from),
    ) else {
        return;
    };
    if len > 0 {
        // SAFETY: `file` is an open descriptor for the call's length; the call only advises
        // the kernel and touches none of this process's memory.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), at, len, libc::POSIX_FADV_WILLNEED) };
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn will_need(_file: &File, _from: u64, _to: u64) {}

/// Gives bytes `at..at + len` of `file` back to the file system, keeping the file's length
/// (`fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)`): a block of the incoming lists
/// once read, so that the lists take less disk as the segments are built. Whole blocks of
/// the file system in the range are freed, bytes of partial ones zeroed; bytes outside it are
/// untouched. `false` where the file system or the system does not do it (nothing changed).
#[cfg(target_os = "linux")]
pub(super) fn punch(file: &File, at: u64, len: u64) -> bool {
    use std::os::fd::AsRawFd;
    let (Ok(at), Ok(len)) = (libc::off_t::try_from(at), libc::off_t::try_from(len)) else {
        return false;
    };
    // SAFETY: `file` is an open descriptor; the call changes the file's blocks, none of this
    // process's memory.
    let r = unsafe {
        libc::fallocate(
            file.as_raw_fd(),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            at,
            len,
        )
    };
    r == 0
}

#[cfg(not(target_os = "linux"))]
pub(super) fn punch(_file: &File, _at: u64, _len: u64) -> bool {
    false
}

/// Whether the file system of `dir` gives back a punched block ([`punch`]): tried on a
/// temporary file of two [`BLOCK`]s there. `false` when the file cannot be made.
pub(super) fn punches(dir: &Path) -> bool {
    let Ok(file) = tempfile::tempfile_in(dir) else {
        return false;
    };
    write_at(&file, &[1u8; 2 * BLOCK], 0).is_ok() && punch(&file, 0, BLOCK as u64)
}

/// Builds with debug assertions or the `test-hooks` feature only (the binary `cargo test`
/// runs), for the tests of the checks on reading back:
/// `NPUZZLE_DAMAGE_SCRATCH=incoming:D` (or `layer:D`) flips a bit in the middle of the
/// incoming lists' file of depth `D` once the scatter wrote it (or of layer `D`'s file), as a
/// disk error would. Does nothing in a release build.
#[cfg_attr(
    not(any(debug_assertions, feature = "test-hooks")),
    allow(unused_variables)
)]
pub(super) fn damage_hook(what: &str, depth: u32, file: &File, path: Option<&Path>) {
    #[cfg(all(any(debug_assertions, feature = "test-hooks"), unix))]
    if std::env::var("NPUZZLE_DAMAGE_SCRATCH").ok() == Some(format!("{what}:{depth}")) {
        use std::os::unix::fs::FileExt;
        let reopened = path.map(|p| std::fs::OpenOptions::new().read(true).write(true).open(p));
        let file = match &reopened {
            Some(Ok(f)) => f,
            _ => file,
        };
        // The spill file is written with direct I/O: one byte is read and written through
        // the page cache.
        let _ = set_direct(file, false);
        let len = file.metadata().map_or(0, |m| m.len());
        let mut byte = [0u8];
        if len > 0 && read_at(file, &mut byte, len / 2).is_ok() {
            byte[0] ^= 0x10;
            let _ = file.write_all_at(&byte, len / 2);
        }
    }
}

/// Bytes free for an unprivileged user in the file system of `dir`, or `None` when unknown.
/// In builds with debug assertions or the `test-hooks` feature only (the binary the tests run),
/// `NPUZZLE_FAKE_DISK_FREE=BYTES` overrides it, for the tests of a full disk; a release build
/// never reads it, so its disk-full guard cannot be switched off.
pub fn disk_free(dir: &Path) -> Option<u64> {
    #[cfg(any(debug_assertions, feature = "test-hooks"))]
    if let Some(v) = std::env::var("NPUZZLE_FAKE_DISK_FREE")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return Some(v);
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: statvfs writes one struct through a valid pointer; the path is a valid
        // C string.
        let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
            return None;
        }
        #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
        Some(stat.f_bavail as u64 * stat.f_frsize as u64)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}
