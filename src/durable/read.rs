//! Opening the files a run reads back (tables, checkpoints and their layers, the hostfile, the
//! pattern-database cache, saved results): never blocking on a FIFO or a device that was given
//! where a file belongs.

use std::fs::File;
use std::io;
use std::path::Path;

/// Opens `path` for reading when it is a regular file (after symbolic links). Anything else (a
/// FIFO, which would block the open until a writer comes; a device; a folder) is refused at
/// once: the open does not wait (`O_NONBLOCK`, cleared again on the file it returns).
///
/// # Errors
/// The open's error (e.g. [`io::ErrorKind::NotFound`]); [`io::ErrorKind::InvalidInput`] for
/// something other than a regular file, with a message naming the path and what it is.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        let what = if kind.is_dir() {
            "a folder"
        } else if is_fifo(&kind) {
            "a FIFO (named pipe)"
        } else {
            "a device or another special file"
        };
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file but {what}"),
        ));
    }
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let fd = file.as_raw_fd();
        // SAFETY: fcntl on a descriptor `file` keeps open; F_GETFL/F_SETFL change only the
        // descriptor's status flags.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }
    Ok(file)
}

#[cfg(unix)]
fn is_fifo(kind: &std::fs::FileType) -> bool {
    std::os::unix::fs::FileTypeExt::is_fifo(kind)
}

#[cfg(not(unix))]
fn is_fifo(_: &std::fs::FileType) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_open_and_others_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("table.npt");
        std::fs::write(&file, b"bytes").unwrap();
        let mut opened = open_regular(&file).unwrap();
        let mut read = String::new();
        io::Read::read_to_string(&mut opened, &mut read).unwrap();
        assert_eq!(read, "bytes");
        let e = open_regular(dir.path()).unwrap_err();
        assert!(e.to_string().contains("but a folder"), "{e}");
        assert_eq!(
            open_regular(&dir.path().join("none")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            // SAFETY: mkfifo with a valid C string.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            let e = open_regular(&fifo).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
            assert!(e.to_string().contains("FIFO"), "{e}");
        }
    }
}
