//! A checkpoint folder as one run holds it: how the run starts there ([`Start`]: a new run
//! never discards a checkpoint it was not told to), and a lock that keeps a second run off the
//! same files ([`hold`]), naming the run that holds it.
//!
//! The lock is an advisory whole-file lock (`flock`; over NFS, the server's lock) on a file of
//! the folder that the run names (one per process of a distributed run, so that processes of
//! one run may share a folder). It is released when the process ends, however it ends.

use std::fs::{self, File};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

/// How a run that names a checkpoint folder starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Start {
    /// A new run: refused when the folder holds a checkpoint already (of this run or another),
    /// which it would otherwise overwrite.
    #[default]
    New,
    /// Continue from the checkpoint in the folder (`--resume`).
    Resume,
    /// A new run that first discards the checkpoint in the folder (`--fresh`).
    Fresh,
}

impl Start {
    /// `--resume` and `--fresh` as flags (the command line makes them exclusive; `resume`
    /// wins if both are set).
    pub fn from_flags(resume: bool, fresh: bool) -> Start {
        match (resume, fresh) {
            (true, _) => Start::Resume,
            (false, true) => Start::Fresh,
            (false, false) => Start::New,
        }
    }

    /// Whether the run continues from a checkpoint.
    pub fn resumes(self) -> bool {
        self == Start::Resume
    }
}

/// Applies `start` to a checkpoint's files in `dir` (`files`: every file a run of this kind
/// saves there; those that do not exist are ignored): a new run is refused when any exists,
/// a fresh one removes them, a resumed one leaves them.
///
/// # Errors
/// [`io::ErrorKind::AlreadyExists`] for a new run over a checkpoint, with a message that
/// names the folder, the files and the two ways on; or the error of a removal that failed.
pub fn apply_start(start: Start, dir: &Path, files: &[PathBuf]) -> io::Result<()> {
    let present: Vec<&PathBuf> = files.iter().filter(|f| f.exists()).collect();
    match start {
        Start::Resume => Ok(()),
        Start::New if present.is_empty() => Ok(()),
        Start::New => {
            let names: Vec<String> = present
                .iter()
                .filter_map(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .take(4)
                .collect();
            let more = if present.len() > names.len() {
                format!(" and {} more", present.len() - names.len())
            } else {
                String::new()
            };
            Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} holds a checkpoint ({}{more}): add --resume to continue it, or \
                     --fresh to discard it and start again",
                    dir.display(),
                    names.join(", ")
                ),
            ))
        }
        Start::Fresh => {
            for path in present {
                match fs::remove_file(path) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
            }
            Ok(())
        }
    }
}

/// The lock on a checkpoint folder that [`hold`] took; released when dropped (or when the
/// process ends).
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
    path: PathBuf,
}

impl FolderLock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Locks `dir/name` (created if missing) for this process, and writes into it who holds it
/// (process id, host, start time), for the message another run gets.
///
/// # Errors
/// [`io::ErrorKind::WouldBlock`] when another process holds it, with a message naming the
/// folder and, as far as the lock file says, the holder; or the error of creating the file.
pub fn hold(dir: &Path, name: &str) -> io::Result<FolderLock> {
    let path = dir.join(name);
    let mut file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)?;
    match try_lock(&file) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            let holder = if holder.is_empty() {
                String::new()
            } else {
                format!(" ({holder})")
            };
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                format!(
                    "{} is in use by another npuzzle run{holder}: wait for it to end, or give \
                     another folder",
                    dir.display()
                ),
            ));
        }
        Err(e) => return Err(e),
    }
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let who = format!(
        "process {} on {}, since {since} s after the Unix epoch\n",
        std::process::id(),
        host_name()
    );
    // The holder's note is a courtesy: a lock file that cannot be rewritten still locks.
    let _ = file
        .set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(who.as_bytes()));
    Ok(FolderLock { _file: file, path })
}

/// Makes the folder `dir` (with its missing parents) and checks that a folder and a file can
/// be made in it, as a run's output, scratch and checkpoint folders need: a probe folder
/// `.npuzzle-probe-<process id>-<call>` with a file in it, made and removed. A folder that exists
/// but cannot hold what a run makes there (`/proc`, a read-only mount) is found here, before
/// any work, rather than by the search's first file.
///
/// # Errors
/// The failing call's error, its kind kept; when a folder that exists is at fault, its
/// message (one line, for the caller to put after the folder's name) names that folder and
/// keeps the system's words: `/proc is not a folder npuzzle can write in (No such file or
/// directory (os error 2))`, for `/proc` and for `/proc/x` alike. (Under a file, the
/// system's `Not a directory (os error 20)` is left as it is.)
pub fn make(dir: &Path) -> io::Result<()> {
    if let Err(e) = fs::create_dir_all(dir) {
        return Err(not_made(dir, e));
    }
    // One name a call (a process may make folders on several threads at once).
    static PROBES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = PROBES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let probe = dir.join(format!(".npuzzle-probe-{}-{n}", std::process::id()));
    let probed = match fs::create_dir(&probe) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists || !probe.is_dir() => Err(e),
        _ => {
            let file = probe.join("probe");
            let made = File::create(&file).map(drop);
            let _ = fs::remove_file(&file);
            made
        }
    };
    let _ = fs::remove_dir(&probe);
    probed.map_err(|e| cannot_write(dir, e))
}

/// The error of [`make`] when `create_dir_all(dir)` failed with `e`: when the nearest of
/// `dir`'s parents that exists is a folder (which the system's words, `No such file or
/// directory` for `/proc/x`, do not say), that this folder does not take new folders; `e`
/// itself otherwise (`Not a directory` under a file, `File exists` for a file named `dir`).
fn not_made(dir: &Path, e: io::Error) -> io::Error {
    let nearest = dir.ancestors().skip(1).find_map(|at| {
        let at = if at.as_os_str().is_empty() {
            Path::new(".")
        } else {
            at
        };
        fs::metadata(at).ok().map(|m| (at, m.is_dir()))
    });
    match nearest {
        Some((at, true)) if !dir.exists() => cannot_write(at, e),
        _ => e,
    }
}

/// `dir is not a folder npuzzle can write in (why)`, of `e`'s kind.
fn cannot_write(dir: &Path, e: io::Error) -> io::Error {
    io::Error::new(
        e.kind(),
        format!(
            "{} is not a folder npuzzle can write in ({e})",
            dir.display()
        ),
    )
}

/// Takes `flock(LOCK_EX | LOCK_NB)` on `file` (std's `File::try_lock` is newer than the
/// crate's minimum Rust); [`io::ErrorKind::WouldBlock`] when another open file description
/// holds it. Elsewhere than Unix, no lock is taken.
fn try_lock(file: &File) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a file descriptor that `file` keeps open for the call.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}

/// This machine's host name, as the operating system gives it (`localhost` when it gives
/// none), with every character outside `[A-Za-z0-9-]` replaced by `-` so that it fits in a
/// file name.
pub fn host_name() -> String {
    let name = sysinfo::System::host_name().unwrap_or_default();
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if name.is_empty() {
        "localhost".into()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 73: `make` makes the folder and its parents and leaves no probe behind; a folder
    /// that exists but takes no new folder (`/proc`) is named with the system's words, for
    /// itself and for a folder under it; under a file, the system's words alone.
    #[test]
    fn make_says_which_folder_cannot_hold_the_made_one() {
        let dir = tempfile::tempdir().unwrap();
        let made = dir.path().join("a").join("b");
        make(&made).unwrap();
        make(&made).unwrap();
        assert!(made.is_dir());
        assert_eq!(fs::read_dir(&made).unwrap().count(), 0, "no probe left");
        fs::write(dir.path().join("f"), b"").unwrap();
        let under_a_file = make(&dir.path().join("f").join("x")).unwrap_err();
        assert!(
            !under_a_file.to_string().contains("npuzzle"),
            "{under_a_file}"
        );
        #[cfg(target_os = "linux")]
        for path in ["/proc", "/proc/npuzzle-test", "/proc/npuzzle-test/deeper"] {
            let e = make(Path::new(path)).unwrap_err();
            let message = e.to_string();
            assert!(
                message.starts_with("/proc is not a folder npuzzle can write in (")
                    && !message.contains('\n'),
                "{path}: {message}"
            );
        }
    }

    #[test]
    fn a_new_run_refuses_a_checkpoint_and_a_fresh_one_removes_it() {
        let dir = tempfile::tempdir().unwrap();
        let files = [dir.path().join("a.ckpt"), dir.path().join("b.ckpt")];
        apply_start(Start::New, dir.path(), &files).expect("nothing there yet");
        fs::write(&files[1], b"days of work").unwrap();
        let refused = apply_start(Start::New, dir.path(), &files).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::AlreadyExists);
        let message = refused.to_string();
        assert!(
            message.contains("b.ckpt") && message.contains("--fresh"),
            "{message}"
        );
        assert!(files[1].exists(), "a refusal removes nothing");
        apply_start(Start::Resume, dir.path(), &files).unwrap();
        assert!(files[1].exists());
        apply_start(Start::Fresh, dir.path(), &files).unwrap();
        assert!(!files[1].exists());
    }

    #[test]
    fn a_held_folder_names_its_holder() {
        let dir = tempfile::tempdir().unwrap();
        let held = hold(dir.path(), "run.lock").unwrap();
        // A second open file description, as another process has: refused.
        let refused = hold(dir.path(), "run.lock").unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::WouldBlock);
        let message = refused.to_string();
        assert!(
            message.contains(&format!("process {}", std::process::id())),
            "{message}"
        );
        drop(held);
        hold(dir.path(), "run.lock").expect("released when dropped");
    }

    #[test]
    fn host_names_fit_in_file_names() {
        let host = host_name();
        assert!(!host.is_empty());
        assert!(host.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    }
}
