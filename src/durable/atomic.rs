//! The one way every output file of npuzzle is written (exports, charts, the pattern-database
//! cache): a temporary file beside the final one, filled, synced, then renamed over it.
//!
//! - Readers, and a crash, see the old file or the new one, never a part: the data reaches the
//!   disk before the rename ([`commit`]).
//! - The temporary files of this process that are not committed yet are registered, so that a
//!   signal handler can remove them before the process exits ([`abandon`]).
//! - Temporary files that a killed run (SIGKILL, a crash, a power cut) left are removed the
//!   next time a file is written in their folder ([`temp_beside`]): they are recognised by
//!   their name, which holds the host and the id of the process that made them, and removed
//!   only when they are this host's and that process no longer runs here. A folder shared
//!   between hosts (NFS) thus keeps every other host's saves in flight. Names of the form
//!   before the host was added (`.NAME.PID.RANDOM.tmp.EXT`) say no host: such a file is
//!   removed only when its process does not run here and it has not been written for
//!   [`OLD_FORM_AGE`] (a save in flight writes all along; one untouched for a day is dead,
//!   whichever host made it).

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The temporary files of this process that are neither committed nor dropped.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A temporary output file from [`temp_beside`]: removed when dropped, unless passed to
/// [`commit`]. Writes go straight to the file (wrap it in a `BufWriter` for small writes).
#[derive(Debug)]
pub struct TempFile {
    /// The open file; `None` once renamed by [`commit`].
    file: Option<File>,
    path: PathBuf,
}

impl TempFile {
    /// The temporary file's path (`.NAME.PID@HOST.RANDOM.tmp.EXT` beside the final file).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The open file.
    ///
    /// # Panics
    /// Never: the file is present until the value is consumed by [`commit`].
    pub fn as_file(&self) -> &File {
        self.file.as_ref().expect("present until committed")
    }
}

impl Write for TempFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.as_file().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.as_file().flush()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        // Removed (if not renamed) before it leaves the registry, so that an interrupt in
        // between still finds it.
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.path);
        }
        let mut pending = pending();
        if let Some(i) = pending.iter().position(|p| *p == self.path) {
            pending.swap_remove(i);
        }
    }
}

/// Creates the temporary file for `path`: in the same folder (so that the rename is atomic),
/// named `.NAME.PID@HOST.RANDOM.tmp.EXT` (hidden; keeping the extension, which some writers
/// read; PID is this process's id, HOST this machine's name as
/// [`crate::durable::folder::host_name`] gives it, `[A-Za-z0-9-]` only), created `0644`
/// (narrowed by the umask, never wider), and registered until it is committed or dropped.
/// Stale temporary files in the folder are removed first: this host's whose process no longer
/// runs, and old-form ones as the module says; never another host's.
///
/// # Errors
/// When the folder does not exist or is not writable.
pub fn temp_beside(path: &Path) -> io::Result<TempFile> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    sweep(dir);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map_or(String::new(), |e| format!(".{e}"));
    let prefix = format!(".{name}.{}@{}.", std::process::id(), this_host());
    let suffix = format!(".tmp{extension}");
    // Created and registered under the lock: once `abandon` holds it, every temporary file
    // that exists is in the list. Between the file's creation and its registration nothing
    // allocates: an allocation that failed there would call `abandon` on this thread, which
    // holds the lock (through the abort it ends in, see the binary's abort handler), and the
    // file would be left behind. So the name is made, and the two
    // copies of its path allocated, before; the list's slot is reserved before the file is
    // created; and the file is opened by std, which converts a path of usual length on the
    // stack. (The tempfile crate allocates after creating its file, when it boxes the path.)
    loop {
        let random: String = (0..RANDOM).map(|_| fastrand::alphanumeric()).collect();
        let tmp_path = dir.join(format!("{prefix}{random}{suffix}"));
        let registered = tmp_path.clone();
        let mut pending = pending();
        pending.reserve(1);
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            // Ordinary output files, readable by all (narrowed by the umask).
            options.mode(0o644);
        }
        match options.open(&tmp_path) {
            Ok(file) => {
                pending.push(registered);
                drop(pending);
                #[cfg(any(debug_assertions, feature = "test-hooks"))]
                abort_if_asked();
                return Ok(TempFile {
                    file: Some(file),
                    path: tmp_path,
                });
            }
            // Another file took the name: draw another.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Characters of the random part of a temporary file's name.
const RANDOM: usize = 6;

/// Completes a file from [`temp_beside`]: its data is synced to the disk, then it is renamed
/// over `path`, so that readers (and a crash at any point) see the old file or the complete
/// new one, never a part or an empty file.
///
/// # Errors
/// When the sync or the rename fails; `path` is then untouched and the temporary file removed.
pub fn commit(mut tmp: TempFile, path: &Path) -> io::Result<()> {
    tmp.as_file().sync_data()?;
    fs::rename(&tmp.path, path)?;
    // Renamed: nothing for the drop to remove (it leaves the registry then).
    tmp.file = None;
    Ok(())
}

/// A writer to a file that asks the OS to start writing each mebibyte to the disk as soon as it
/// is written (Linux's `sync_file_range`, without waiting), so that the sync of [`commit`]
/// waits only for the last part: the disk works while the next rows are formatted.
/// Elsewhere it is a plain writer.
pub struct WriteBehind<'a> {
    file: &'a File,
    written: u64,
    started: u64,
}

/// Bytes written between two starts of write-back.
const WRITE_BEHIND: u64 = 1 << 20;

impl<'a> WriteBehind<'a> {
    /// Writes to `file` from its current position, taken to be 0.
    pub fn new(file: &'a File) -> Self {
        Self {
            file,
            written: 0,
            started: 0,
        }
    }
}

impl Write for WriteBehind<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.started >= WRITE_BEHIND {
            #[cfg(target_os = "linux")]
            {
                use std::os::fd::AsRawFd;
                // SAFETY: a valid open descriptor and a range of it; the call only starts
                // write-back (a failure here is found again by the sync).
                unsafe {
                    libc::sync_file_range(
                        self.file.as_raw_fd(),
                        self.started as libc::off64_t,
                        (self.written - self.started) as libc::off64_t,
                        libc::SYNC_FILE_RANGE_WRITE,
                    );
                }
            }
            self.started = self.written;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Removes every temporary file of this process that is not committed, and stops new ones
/// from being made: for a signal handler, or a failed allocation, that is about to end the
/// process. Returns how many files it removed. Allocates nothing (for paths of usual length).
///
/// Whatever else runs, no output is left half written: a commit that races with this call
/// either renamed its complete file first, or finds its temporary file gone. When the list is
/// held for more than a second (this very thread failed to allocate in [`temp_beside`] before
/// creating its file, so there is none to remove), it gives up and returns 0 rather than wait
/// forever.
pub fn abandon() -> usize {
    let mut tries = 0;
    let pending = loop {
        match PENDING.try_lock() {
            Ok(guard) => break guard,
            Err(std::sync::TryLockError::Poisoned(e)) => break e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) if tries < 1000 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Err(std::sync::TryLockError::WouldBlock) => return 0,
        }
    };
    let removed = pending
        .iter()
        .filter(|p| fs::remove_file(p).is_ok())
        .count();
    // Held until the process exits: `temp_beside` blocks instead of creating a file that
    // nobody would remove.
    std::mem::forget(pending);
    removed
}

/// For the tests of the abort handler: `NPUZZLE_ABORT_AFTER_TEMP=N` makes the process abort
/// (SIGABRT, as a failed allocation does) right after creating its `N`-th temporary file.
/// Only in builds with debug assertions or the `test-hooks` feature (the binary `cargo test`
/// runs, `--release` too); a release build has no such hook.
#[cfg(any(debug_assertions, feature = "test-hooks"))]
fn abort_if_asked() {
    static CREATED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let created = CREATED.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    if std::env::var("NPUZZLE_ABORT_AFTER_TEMP")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        == Some(created)
    {
        std::process::abort();
    }
}

/// This host's name in temporary file names ([`crate::durable::folder::host_name`], asked
/// once per process).
fn this_host() -> &'static str {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(super::folder::host_name)
}

/// How long a temporary file of the old form (no host in its name) must have gone unwritten
/// before a sweep removes it (when its process id does not run here): a day.
pub const OLD_FORM_AGE: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// Removes from `dir` the stale temporary files of npuzzle's naming (left by a run that was
/// killed): this host's whose process no longer runs, and those of the old form (no host)
/// whose process does not run here and that have gone unwritten for [`OLD_FORM_AGE`].
/// Another host's are never touched. Errors are ignored: the sweep is tidying, and a file it
/// cannot remove is left as it was.
fn sweep(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let now = std::time::SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(owner) = name.to_str().and_then(temp_owner) else {
            continue;
        };
        let idle = || {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .unwrap_or_default()
        };
        if stale(&owner, this_host(), std::process::id(), running, idle) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Who made a temporary file, from its name ([`temp_owner`]).
#[derive(Debug, Clone, PartialEq, Eq)]
struct TempOwner {
    /// The process id.
    pid: u32,
    /// The host (`[A-Za-z0-9-]`); `None` for a name of the old form, which has none.
    host: Option<String>,
}

/// Whether a sweep on host `host`, in process `me`, removes the temporary file of `owner`:
/// this host's when its process is not `me` and does not run (`running`); one of the old form
/// when its process is not `me`, does not run here, and the file has gone unwritten
/// (`idle`) for [`OLD_FORM_AGE`]; never another host's.
fn stale(
    owner: &TempOwner,
    host: &str,
    me: u32,
    running: impl Fn(u32) -> bool,
    idle: impl Fn() -> std::time::Duration,
) -> bool {
    if owner.pid == me || owner.host.as_deref().is_some_and(|h| h != host) {
        return false;
    }
    !running(owner.pid) && (owner.host.is_some() || idle() >= OLD_FORM_AGE)
}

/// The owner named by a temporary file name of [`temp_beside`]'s making
/// (`.NAME.PID@HOST.RANDOM.tmp` + NAME's extension, if any), or of the old form without the
/// host (`.NAME.PID.RANDOM.tmp...`), or `None` for any other name.
fn temp_owner(file_name: &str) -> Option<TempOwner> {
    let rest = file_name.strip_prefix('.')?;
    let (stem, extension) = rest.rsplit_once(".tmp")?;
    let mut parts = stem.rsplitn(3, '.');
    let random = parts.next()?;
    let owner = parts.next()?;
    let name = parts.next()?;
    let extension_matches = extension.is_empty()
        || (extension.len() > 1
            && extension.starts_with('.')
            && name.ends_with(extension)
            && name.len() > extension.len());
    let is_random = random.len() == RANDOM && random.bytes().all(|b| b.is_ascii_alphanumeric());
    let (pid, host) = match owner.split_once('@') {
        Some((pid, host)) => (pid, Some(host)),
        None => (owner, None),
    };
    let is_pid = !pid.is_empty() && pid.len() <= 10 && pid.bytes().all(|b| b.is_ascii_digit());
    let is_host = host
        .is_none_or(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
    if !(extension_matches && is_random && is_pid && is_host && !name.is_empty()) {
        return None;
    }
    Some(TempOwner {
        pid: pid.parse().ok()?,
        host: host.map(str::to_string),
    })
}

/// Whether a process with id `pid` runs (or may run: when this cannot be told, yes).
#[cfg(unix)]
fn running(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    if pid <= 0 {
        return true;
    }
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    if unsafe { libc::kill(pid, 0) } == 0 {
        return true;
    }
    io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(not(unix))]
fn running(_pid: u32) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(pid: u32, host: Option<&str>) -> Option<TempOwner> {
        Some(TempOwner {
            pid,
            host: host.map(str::to_string),
        })
    }

    /// Names of both forms are read exactly (the host after `@`, in `[A-Za-z0-9-]`); any
    /// other name is no temporary file of npuzzle's.
    #[test]
    fn temporary_names_are_recognised_exactly() {
        let cases = [
            (
                ".edges.csv.1234@node-7.aB3xYz.tmp.csv",
                owner(1234, Some("node-7")),
            ),
            (".summary.json.7@h.000000.tmp.json", owner(7, Some("h"))),
            (".npuzzle-probe.99@A1.abcdef.tmp", owner(99, Some("A1"))),
            (
                ".process-0.0.ckpt.5@n2.qwerty.tmp.ckpt",
                owner(5, Some("n2")),
            ),
            // The old form, without the host.
            (".edges.csv.1234.aB3xYz.tmp.csv", owner(1234, None)),
            (".npuzzle-probe.99.abcdef.tmp", owner(99, None)),
            (".pdb-4x4-1.bin.5.qwerty.tmp.bin", owner(5, None)),
        ];
        for (name, want) in cases {
            assert_eq!(temp_owner(name), want, "{name}");
        }
        for other in [
            "edges.csv",
            ".edges.csv",
            ".edges.csv.1234.aB3xYz.tmp.png", // extension not the name's
            ".edges.csv.12a4.aB3xYz.tmp.csv", // not a process id
            ".edges.csv.1234.aB3x.tmp.csv",   // random part too short
            ".edges.csv.1234.aB-xYz.tmp.csv", // not a random part of ours
            "..1234.aB3xYz.tmp",              // no name
            ".1234.aB3xYz.tmp",
            ".notes.txt.1234.aB3xYz.tmp.txt.bak",
            ".edges.csv.1234@.aB3xYz.tmp.csv", // an empty host
            ".edges.csv.1234@node_7.aB3xYz.tmp.csv", // not a host of ours
            ".edges.csv.@node.aB3xYz.tmp.csv", // no process id
            ".1234@node.aB3xYz.tmp",
        ] {
            assert_eq!(temp_owner(other), None, "{other}");
        }
    }

    /// The sweep's rule: this host's files whose process is gone; never another host's
    /// (running or not, as far as this host can tell), nor this process's own; old-form files
    /// only when their process does not run here and they have gone unwritten for a day.
    #[test]
    fn the_sweep_removes_only_this_hosts_dead_files() {
        let alive = |pid: u32| pid == 1 || pid == 2;
        let fresh = || std::time::Duration::from_secs(5);
        let old = || OLD_FORM_AGE;
        let here = |pid| TempOwner {
            pid,
            host: Some("here".into()),
        };
        let there = |pid| TempOwner {
            pid,
            host: Some("there".into()),
        };
        let old_form = |pid| TempOwner { pid, host: None };
        assert!(stale(&here(9), "here", 2, alive, fresh));
        assert!(!stale(&here(1), "here", 2, alive, old), "its process runs");
        assert!(
            !stale(&here(2), "here", 2, |_| false, old),
            "this process's"
        );
        assert!(!stale(&there(9), "here", 2, alive, old), "another host's");
        assert!(!stale(&there(1), "here", 2, alive, old));
        assert!(stale(&old_form(9), "here", 2, alive, old));
        assert!(
            !stale(&old_form(9), "here", 2, alive, fresh),
            "perhaps in flight"
        );
        assert!(
            !stale(&old_form(1), "here", 2, alive, old),
            "its process runs here"
        );
    }

    #[test]
    fn stale_files_of_dead_processes_are_swept_and_others_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mine = temp_beside(&dir.path().join("edges.csv")).unwrap();
        let own_name = mine
            .path()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        assert_eq!(
            temp_owner(&own_name),
            owner(std::process::id(), Some(this_host()))
        );
        // A process id above Linux's pid_max (2^22) never runs.
        let host = this_host();
        let dead = dir
            .path()
            .join(format!(".nodes.csv.4194305@{host}.abcdef.tmp.csv"));
        let alive = dir
            .path()
            .join(format!(".nodes.csv.1@{host}.abcdef.tmp.csv"));
        // Another host's save in flight on a shared folder: its process id means nothing here.
        let other = dir
            .path()
            .join(format!(".nodes.csv.4194305@x{host}.abcdef.tmp.csv"));
        // The old form, one written a minute ago (perhaps another host's in flight) and one
        // untouched for two days.
        let recent = dir.path().join(".depths.csv.4194305.abcdef.tmp.csv");
        let forgotten = dir.path().join(".depths.csv.4194305.ghijkl.tmp.csv");
        let user = dir.path().join(".nodes.csv.backup");
        for f in [&dead, &alive, &other, &recent, &forgotten, &user] {
            fs::write(f, "x").unwrap();
        }
        let ago = |s: u64| std::time::SystemTime::now() - std::time::Duration::from_secs(s);
        let set = |f: &Path, t| {
            fs::File::options()
                .write(true)
                .open(f)
                .unwrap()
                .set_modified(t)
        };
        set(&recent, ago(60)).unwrap();
        set(&forgotten, ago(2 * 24 * 3600)).unwrap();
        let next = temp_beside(&dir.path().join("depths.csv")).unwrap();
        assert!(!dead.exists(), "a dead process's temporary file is removed");
        assert!(alive.exists(), "process 1 runs: its file is kept");
        assert!(other.exists(), "another host's file is kept");
        assert!(recent.exists(), "an old-form file written lately is kept");
        assert!(
            !forgotten.exists(),
            "an old-form file untouched for a day is removed"
        );
        assert!(user.exists(), "other names are never touched");
        assert!(mine.path().exists(), "this process's own file is kept");
        drop(next);
        drop(mine);
        assert!(!dir.path().join(&own_name).exists(), "dropped: removed");
    }

    #[test]
    fn committed_and_dropped_files_leave_the_registry() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.txt");
        let mut tmp = temp_beside(&target).unwrap();
        let tmp_path = tmp.path().to_path_buf();
        assert!(pending().contains(&tmp_path));
        tmp.write_all(b"done").unwrap();
        commit(tmp, &target).unwrap();
        assert!(!pending().contains(&tmp_path));
        assert_eq!(fs::read_to_string(&target).unwrap(), "done");
        let dropped = temp_beside(&target).unwrap();
        let dropped_path = dropped.path().to_path_buf();
        drop(dropped);
        assert!(!pending().contains(&dropped_path) && !dropped_path.exists());
        assert_eq!(fs::read_to_string(&target).unwrap(), "done");
    }
}
