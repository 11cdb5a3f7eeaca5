//! "This very file was checked in full": a stamp beside a large file that a slow check (a
//! checksum over a 10.9 GB distance table, the full check of a pattern database) found whole,
//! so that later opens of the same, unchanged file skip the check.
//!
//! The stamp records the file's identity: device, inode, length, and its modification and
//! change times in nanoseconds. Any write to the file (a byte flipped, a truncation, a file
//! renamed over it) changes the change time, which no unprivileged process can set back; the
//! stamp then no longer matches, and the check runs again. A stamp is a hidden file beside the
//! checked one, `.NAME.KIND` (`KIND` names the check); a folder that cannot be written gets no
//! stamp, and the check then runs on every open. Only Unix has the identity; elsewhere every
//! open checks.

use std::fs::File;
use std::path::{Path, PathBuf};

/// The identity of a file as it is now (`None` when it cannot be read, or off Unix).
fn identity(file: &File) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = file.metadata().ok()?;
        Some(format!(
            "npuzzle stamp 1: dev {} ino {} len {} mtime {}.{:09} ctime {}.{:09}\n",
            m.dev(),
            m.ino(),
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec()
        ))
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        None
    }
}

/// The stamp of check `kind` for `path`.
fn stamp_path(path: &Path, kind: &str) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    Some(path.with_file_name(format!(".{name}.{kind}")))
}

/// Whether `file` (opened from `path`) is, unchanged, the file that check `kind` passed.
pub fn is_checked(path: &Path, file: &File, kind: &str) -> bool {
    let (Some(now), Some(stamp)) = (identity(file), stamp_path(path, kind)) else {
        return false;
    };
    // A stamp is a short line: anything longer is not one.
    let mut recorded = String::new();
    let Ok(f) = crate::durable::open_regular(&stamp) else {
        return false;
    };
    use std::io::Read;
    f.take(512).read_to_string(&mut recorded).is_ok() && recorded == now
}

/// Records that check `kind` passed on `file` (opened from `path`), as it is now. Best
/// effort: a stamp that cannot be written only means the check runs again next time.
pub fn record_checked(path: &Path, file: &File, kind: &str) {
    let (Some(now), Some(stamp)) = (identity(file), stamp_path(path, kind)) else {
        return;
    };
    let _ = crate::durable::atomic::temp_beside(&stamp).and_then(|mut tmp| {
        use std::io::Write;
        tmp.write_all(now.as_bytes())?;
        crate::durable::commit(tmp, &stamp)
    });
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_holds_until_the_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("table.npt");
        std::fs::write(&path, b"codes").unwrap();
        let open = || File::open(&path).unwrap();
        assert!(!is_checked(&path, &open(), "verified"));
        record_checked(&path, &open(), "verified");
        assert!(is_checked(&path, &open(), "verified"));
        assert!(
            !is_checked(&path, &open(), "checked"),
            "another check's stamp"
        );
        assert!(dir.path().join(".table.npt.verified").is_file());
        // A byte rewritten in place, same length: the change time moves on.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&path, b"codeS").unwrap();
        assert!(!is_checked(&path, &open(), "verified"));
        // A forged stamp for another file does not match either.
        std::fs::write(
            dir.path().join(".table.npt.verified"),
            "npuzzle stamp 1: dev 0\n",
        )
        .unwrap();
        assert!(!is_checked(&path, &open(), "verified"));
    }
}
