//! The distributed engine on the real binary, over loopback (127.0.0.1): several processes give
//! the same files as one; a process killed mid-run (SIGKILL) stops its peer with a one-line
//! error, and `--resume` from the checkpoints gives the same files again; a peer that never
//! comes up is an error within the connect timeout.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Damage, HOOKS, damaged_copy, newest_slot, run_killed};

/// The step of a cluster checkpoint's header.
fn step_of(header: &serde_json::Value) -> Option<u64> {
    header["phase"]["step"].as_u64()
}

/// The newest step and slot of process `p`'s checkpoint in `ck`.
fn newest_of(ck: &Path, p: usize) -> Option<(u64, usize)> {
    newest_slot(ck, &format!("process-{p}"), step_of)
}

/// In builds without the `NPUZZLE_KILL_AFTER_STEP` hook ([`HOOKS`]), a thread that kills
/// process `p` of a run checkpointing into `ck` (SIGKILL; its id from its lock file,
/// `process-P.lock`) once its checkpoint holds step `at` or later; with it, nothing (the hook
/// does it).
fn kill_peer_at(ck: &Path, p: usize, at: u64) -> Option<std::thread::JoinHandle<()>> {
    if HOOKS {
        return None;
    }
    let ck = ck.to_path_buf();
    Some(std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(120);
        while Instant::now() < deadline {
            let pid = fs::read_to_string(ck.join(format!("process-{p}.lock")))
                .ok()
                .and_then(|note| note.split_whitespace().nth(1)?.parse::<i32>().ok());
            if let Some(pid) = pid
                && newest_of(&ck, p).is_some_and(|(step, _)| step >= at)
            {
                // SAFETY: sending a signal has no memory-safety preconditions.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                return;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }))
}

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_npuzzle"))
}

/// Writes process `me`'s hostfile of `n` lines: the addresses `known` (of the processes
/// before it, as they announced them), then port 0 (its own: any free port, announced; the
/// later ones: never dialed by it).
fn hostfile(dir: &Path, me: usize, n: usize, known: &[String]) -> PathBuf {
    hostfile_on(dir, me, &vec!["127.0.0.1"; n], known)
}

/// [`hostfile`] with process `i` on loopback address `hosts[i]` (all of 127.0.0.0/8 is
/// loopback on Linux; a different address is another host to npuzzle).
fn hostfile_on(dir: &Path, me: usize, hosts: &[&str], known: &[String]) -> PathBuf {
    let mut lines: Vec<String> = known.iter().take(me).cloned().collect();
    lines.extend(hosts[me..].iter().map(|h| format!("{h}:0")));
    let path = dir.join(format!("hosts-{me}"));
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// A started process whose stderr is read on a thread, its listening address (when it
/// listens) taken out of it.
struct Started {
    child: Child,
    stdout: std::thread::JoinHandle<Vec<u8>>,
    stderr: std::thread::JoinHandle<Vec<u8>>,
}

/// Spawns `cmd` and, when `listens`, waits for the line announcing its address; returns
/// the process and the address.
fn start(mut cmd: Command, listens: bool) -> (Started, Option<String>) {
    use std::io::{BufRead, Read};
    let mut child = cmd.spawn().unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut address = None;
    let mut before = Vec::new();
    if listens {
        let mut line = String::new();
        while err.read_line(&mut line).unwrap() > 0 {
            if let Some(rest) = line.split(" listens on ").nth(1) {
                address = rest.split_whitespace().next().map(str::to_string);
                break;
            }
            before.extend_from_slice(line.as_bytes());
            line.clear();
        }
    }
    let stdout = std::thread::spawn(move || {
        let mut b = Vec::new();
        out.read_to_end(&mut b).unwrap();
        b
    });
    let stderr = std::thread::spawn(move || {
        err.read_to_end(&mut before).unwrap();
        before
    });
    (
        Started {
            child,
            stdout,
            stderr,
        },
        address,
    )
}

impl Started {
    fn wait(mut self) -> Output {
        let status = self.child.wait().unwrap();
        Output {
            status,
            stdout: self.stdout.join().unwrap(),
            stderr: self.stderr.join().unwrap(),
        }
    }
}

fn command(board: &[&str], out: &Path, extra: &[&str]) -> Command {
    let mut cmd = command_loud(board, out, extra);
    cmd.arg("--quiet");
    cmd
}

/// [`command`] without `--quiet`: the report on stdout.
fn command_loud(board: &[&str], out: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(binary());
    cmd.env_clear()
        .arg("analyze")
        .args(board)
        .arg("--output")
        .arg(out)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Starts processes `0..n` in order over loopback, each listening on a free port that it
/// announces (port 0 in its hostfile) before the next one starts; returns every output,
/// process 0's first, with the announcements taken out of stderr.
fn run_cluster(
    board: &[&str],
    dir: &Path,
    processes: usize,
    workers: usize,
    extra: &[&str],
    env_of: impl Fn(usize) -> Vec<(&'static str, String)>,
) -> Vec<Output> {
    let on = vec!["127.0.0.1"; processes];
    run_cluster_on(&on, false, board, dir, workers, extra, env_of)
}

/// [`run_cluster`] with process `i` on loopback address `hosts[i]` ([`hostfile_on`]), and
/// process 0 without `--quiet` when `loud` (its report on stdout).
fn run_cluster_on(
    hosts: &[&str],
    loud: bool,
    board: &[&str],
    dir: &Path,
    workers: usize,
    extra: &[&str],
    env_of: impl Fn(usize) -> Vec<(&'static str, String)>,
) -> Vec<Output> {
    start_all(
        hosts,
        loud,
        board,
        dir,
        workers,
        |_| extra.iter().map(|f| f.to_string()).collect(),
        env_of,
    )
}

/// Starts processes `0..hosts.len()` in order, process `i` on loopback address `hosts[i]`
/// with the flags `extra_of(i)` and the environment `env_of(i)` ([`run_cluster`],
/// [`run_cluster_on`], [`run_frontier`]); returns every output, process 0's first.
fn start_all(
    hosts: &[&str],
    loud: bool,
    board: &[&str],
    dir: &Path,
    workers: usize,
    extra_of: impl Fn(usize) -> Vec<String>,
    env_of: impl Fn(usize) -> Vec<(&'static str, String)>,
) -> Vec<Output> {
    let processes = hosts.len();
    let mut known: Vec<String> = Vec::new();
    let mut started = Vec::new();
    for i in 0..processes {
        let hosts = hostfile_on(dir, i, hosts, &known);
        let out = dir.join(format!("p{i}"));
        let mut cmd = match loud && i == 0 {
            true => command_loud(board, &out, &[]),
            false => command(board, &out, &[]),
        };
        let extra = extra_of(i);
        if !extra.iter().any(|f| f == "--connect-timeout") {
            cmd.args(["--connect-timeout", "30"]);
        }
        cmd.args([
            "--processes",
            &processes.to_string(),
            "--process",
            &i.to_string(),
            "--hostfile",
            &hosts.display().to_string(),
            "--workers",
            &workers.to_string(),
        ])
        .args(extra)
        .envs(env_of(i));
        let (s, address) = start(cmd, i + 1 < processes);
        if i + 1 < processes {
            known.push(address.expect("a listening process announces its address"));
        }
        started.push(s);
    }
    started.into_iter().map(Started::wait).collect()
}

/// depths.csv, hardest.txt, summary.json (but for the command line its provenance records),
/// and table.npt when `b` has one, are the same bytes in `a` and `b`.
fn same_files(a: &Path, b: &Path) {
    for name in ["depths.csv", "hardest.txt", "table.npt"] {
        if name == "table.npt" && !b.join(name).exists() {
            continue;
        }
        let x = fs::read(a.join(name)).unwrap();
        let y = fs::read(b.join(name)).unwrap();
        assert!(x == y, "{name} differs between {a:?} and {b:?}");
    }
    assert!(
        crate::support::summary_figures(&a.join("summary.json"))
            == crate::support::summary_figures(&b.join("summary.json")),
        "summary.json differs between {a:?} and {b:?}"
    );
}

/// The one-machine run of `board` (with `extra`), without edges.csv and nodes.csv.
fn one_process(board: &[&str], dir: &Path, folder: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join("one");
    let mut flags = vec!["--edges", "none", "--nodes", "none"];
    flags.extend(extra);
    let status = command(board, &out, &flags).status().unwrap();
    assert!(status.success());
    out.join(folder)
}

/// 2 processes x 1 worker and 2 x 2 workers, on 3x3 and 2x5: depths.csv, hardest.txt,
/// summary.json and the distance table (`--table`, issue 25: gathered by process 0 from both
/// processes' marks) byte-identical to the one-machine engine's; only process 0 writes.
#[test]
fn two_processes_write_what_one_writes() {
    for (board, folder) in [
        (vec!["--size", "3"], "3x3"),
        (vec!["--rows", "2", "--cols", "5"], "2x5"),
    ] {
        for workers in [1, 2] {
            let dir = tempfile::tempdir().unwrap();
            let reference = one_process(&board, dir.path(), folder, &["--table"]);
            let outputs = run_cluster(
                &board,
                dir.path(),
                2,
                workers,
                &["--edges", "none", "--nodes", "none", "--table"],
                |_| Vec::new(),
            );
            for (i, o) in outputs.iter().enumerate() {
                assert!(
                    o.status.success(),
                    "{folder} {workers} workers, process {i}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
                assert!(o.stdout.is_empty(), "--quiet prints nothing");
            }
            same_files(&dir.path().join("p0").join(folder), &reference);
            assert!(!dir.path().join("p1").exists(), "process 1 writes nothing");
        }
    }
}

/// Processes on two hosts (127.0.0.1 and 127.0.0.2, both loopback) send each other their
/// lists sorted and gap-encoded, processes on one host as found (`net::Wire`): on 3x3 and
/// 2x5, 1 and 2 workers, the one-machine files either way, and the sorted lists in fewer
/// bytes per board expanded (3x3's shares take 2 and 3 bytes an index as found; the gaps
/// between sorted indices mostly 1).
#[test]
#[cfg(target_os = "linux")]
fn lists_between_hosts_are_sorted_and_smaller() {
    for (board, folder) in [
        (vec!["--size", "3"], "3x3"),
        (vec!["--rows", "2", "--cols", "5"], "2x5"),
    ] {
        for workers in [1, 2] {
            let dir = tempfile::tempdir().unwrap();
            let reference = one_process(&board, dir.path(), folder, &[]);
            let mut per_board = Vec::new();
            for (k, hosts) in [["127.0.0.1"; 2], ["127.0.0.1", "127.0.0.2"]]
                .iter()
                .enumerate()
            {
                let at = dir.path().join(format!("run{k}"));
                fs::create_dir(&at).unwrap();
                let flags = ["--edges", "none", "--nodes", "none"];
                let outputs =
                    run_cluster_on(hosts, true, &board, &at, workers, &flags, |_| Vec::new());
                for o in &outputs {
                    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
                }
                same_files(&at.join("p0").join(folder), &reference);
                let report = String::from_utf8_lossy(&outputs[0].stdout).to_string();
                let bytes: f64 = report
                    .split(" bytes per board expanded")
                    .next()
                    .and_then(|b| b.rsplit('(').next())
                    .and_then(|b| b.parse().ok())
                    .unwrap_or_else(|| panic!("no bytes per board in {report}"));
                per_board.push(bytes);
            }
            assert!(
                per_board[1] < 0.6 * per_board[0],
                "{folder} {workers} workers: sorted {} against as found {} bytes per board",
                per_board[1],
                per_board[0]
            );
        }
    }
}

/// Runs `board` on one process and on `processes` x `workers` (without edges.csv and
/// nodes.csv), each successful; returns the folder (process `i` wrote to `p{i}`) and the
/// one-process output folder.
fn beside_one_process(
    board: &[&str],
    folder: &str,
    processes: usize,
    workers: usize,
    extra: &[&str],
) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let reference = one_process(board, dir.path(), folder, extra);
    let mut flags = vec!["--edges", "none", "--nodes", "none"];
    flags.extend(extra);
    let outputs = run_cluster(board, dir.path(), processes, workers, &flags, |_| {
        Vec::new()
    });
    for o in &outputs {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    (dir, reference)
}

/// More processes than words of marks: 2x2 (12 boards per class, one word) on 3 processes x 2
/// threads, two of them owning nothing; the one-machine files, its distance table included.
#[test]
fn more_processes_than_mark_words() {
    let board = ["--rows", "2", "--cols", "2"];
    let (dir, reference) = beside_one_process(&board, "2x2", 3, 2, &["--table"]);
    same_files(&dir.path().join("p0").join("2x2"), &reference);
}

/// A one-row board (the lexicographic space) on 2 processes x 2 threads: depths.csv and
/// hardest.txt byte-identical to the one-machine engine's; summary.json the same but for how
/// the components were found (the theorem: (n-1)! paths of n boards, not a search of each).
#[test]
fn one_row_boards_run_distributed() {
    let (dir, reference) = beside_one_process(&["--rows", "1", "--cols", "6"], "1x6", 2, 2, &[]);
    let p0 = dir.path().join("p0").join("1x6");
    for file in ["depths.csv", "hardest.txt"] {
        assert!(
            fs::read(p0.join(file)).unwrap() == fs::read(reference.join(file)).unwrap(),
            "{file} differs"
        );
    }
    let summary = |d: &Path| crate::support::summary_figures(&d.join("summary.json"));
    assert_eq!(
        summary(&p0),
        summary(&reference).replace("\"found_by\": \"search\"", "\"found_by\": \"theorem\"")
    );
}

/// Process 1 kills itself (SIGKILL) after checkpoint step 20 of 2x5: process 0 stops with a
/// one-line error; both restarted with --resume finish with the one-machine files, per-board
/// depths (nodes.csv) and the distance table (its listed layers saved in the checkpoints)
/// included.
#[test]
fn a_killed_process_resumes_from_the_checkpoints() {
    let board = ["--rows", "2", "--cols", "5"];
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("ck");
    let ck = checkpoint.display().to_string();
    let extra = [
        "--checkpoint",
        ck.as_str(),
        "--checkpoint-every",
        "layer",
        "--nodes",
        "ranks",
        "--edges",
        "none",
        "--table",
    ];
    let reference = dir.path().join("one");
    let status = command(
        &board,
        &reference,
        &["--nodes", "ranks", "--edges", "none", "--table"],
    )
    .status()
    .unwrap();
    assert!(status.success());
    // Killed by the test hook, or from outside in a build without it.
    let watcher = kill_peer_at(&checkpoint, 1, 20);
    let crashed = run_cluster(&board, dir.path(), 2, 2, &extra, |i| {
        if i == 1 && HOOKS {
            vec![("NPUZZLE_KILL_AFTER_STEP", "20".to_string())]
        } else {
            Vec::new()
        }
    });
    if let Some(w) = watcher {
        w.join().unwrap();
    }
    assert!(!crashed[0].status.success());
    let err = String::from_utf8_lossy(&crashed[0].stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: a peer process stopped"), "{err}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(crashed[1].status.signal(), Some(9));
    }
    let mut resume = extra.to_vec();
    resume.push("--resume");
    let resumed = run_cluster(&board, dir.path(), 2, 2, &resume, |_| Vec::new());
    for o in &resumed {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let p0 = dir.path().join("p0").join("2x5");
    same_files(&p0, &reference.join("2x5"));
    let nodes = fs::read(p0.join("nodes.csv")).unwrap();
    assert!(nodes == fs::read(reference.join("2x5").join("nodes.csv")).unwrap());
}

/// The lines of stderr but the announcement of a listening address.
fn errors(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| !l.contains(" listens on "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Process `i` of `n` on 3x3 (or the board `extra` names with `--rows`) with `extra` flags,
/// its hostfile naming `known` before it.
fn process(dir: &Path, i: usize, n: usize, known: &[String], extra: &[&str]) -> Command {
    let hosts = hostfile(dir, i, n, known);
    let board: &[&str] = if extra.contains(&"--rows") {
        &[]
    } else {
        &["--size", "3"]
    };
    let mut cmd = command(board, &dir.join(format!("p{i}")), &[]);
    cmd.args([
        "--processes",
        &n.to_string(),
        "--process",
        &i.to_string(),
        "--hostfile",
        &hosts.display().to_string(),
        "--edges",
        "none",
    ])
    .args(extra);
    cmd
}

/// A peer that never comes up: the waiting process (process 0) and the dialing one (process
/// 1, its peer's port closed) each give up after --connect-timeout with one line.
#[test]
fn a_missing_peer_is_an_error_in_bounded_time() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let (p0, address) = start(
        process(dir.path(), 0, 2, &[], &["--connect-timeout", "2"]),
        true,
    );
    let out = p0.wait();
    assert!(address.is_some());
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(1));
    let err = errors(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("not every process connected within 2 s") && err.contains("missing: 1"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    // Process 1 dials the address process 0 had, now closed.
    let out = process(
        dir.path(),
        1,
        2,
        &[address.unwrap()],
        &["--connect-timeout", "2"],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = errors(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("process 1 could not reach process 0 at 127.0.0.1:")
            && err.contains("within 2 s"),
        "{err}"
    );
}

/// Connections that are not a peer (a silent one like `nc`, an HTTP probe, one closed at
/// once, one that announces a 4 GB message, one of a 3-process run) are dropped with one
/// warning each, and the run goes on with its real peer to the one-machine files.
#[test]
fn stray_connections_are_dropped_and_the_run_goes_on() {
    use std::io::Write;
    use std::net::TcpStream;
    let dir = tempfile::tempdir().unwrap();
    let reference = one_process(&["--size", "3"], dir.path(), "3x3", &[]);
    let (p0, address) = start(process(dir.path(), 0, 2, &[], &["--nodes", "none"]), true);
    let address = address.unwrap();
    let silent = TcpStream::connect(&address).unwrap();
    let mut http = TcpStream::connect(&address).unwrap();
    http.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    drop(TcpStream::connect(&address).unwrap());
    let mut huge = TcpStream::connect(&address).unwrap();
    huge.write_all(b"NPZLCLU\x01\xff\xff\xff\xff").unwrap();
    // A process of another run (3 processes) is refused, naming the field, on its side.
    let other = process(
        dir.path(),
        1,
        3,
        std::slice::from_ref(&address),
        &["--nodes", "none", "--connect-timeout", "5"],
    )
    .output()
    .unwrap();
    assert_eq!(other.status.code(), Some(1));
    let err = errors(&other);
    assert!(err.contains("--processes is 3 here and 2 there"), "{err}");
    let p1 = process(dir.path(), 1, 2, &[address], &["--nodes", "none"])
        .output()
        .unwrap();
    let p0 = p0.wait();
    drop(silent);
    for o in [&p0, &p1] {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    same_files(&dir.path().join("p0").join("3x3"), &reference);
    let warnings = errors(&p0);
    for needle in [
        "it is not an npuzzle process",
        "it closed without saying hello",
        "announced a 4294967295-byte message",
        "refused a connection from 127.0.0.1",
        "--processes is 2 here and 3 there",
    ] {
        assert!(warnings.contains(needle), "{needle}: {warnings}");
    }
    assert!(
        warnings.lines().all(|l| l.starts_with("warning: ")),
        "{warnings}"
    );
}

/// Peers started with different flags (another goal, --checkpoint on one only, other
/// --workers) or keys are refused on both sides, with one line naming what differs; with
/// the same key they run.
#[test]
fn peers_of_another_run_or_key_are_refused_on_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("ck").display().to_string();
    /// Process 0's flags, process 1's, their keys, and what process 1's error says.
    type Case<'a> = (Vec<&'a str>, Vec<&'a str>, [Option<&'a str>; 2], &'a str);
    let cases: Vec<Case> = vec![
        (
            vec![],
            vec!["--goal", "2 1 3 4 5 6 7 8 0"],
            [None, None],
            "the goal is 2 1 3/4 5 6/7 8 0 here and 1 2 3/4 5 6/7 8 0 there",
        ),
        (
            vec![],
            vec!["--rows", "2", "--cols", "5"],
            [None, None],
            "the board is 2x5 here and 3x3 there",
        ),
        (
            vec![],
            vec!["--checkpoint", &ck],
            [None, None],
            "--checkpoint is yes here and no there",
        ),
        (
            vec!["--workers", "1"],
            vec!["--workers", "2"],
            [None, None],
            "--workers is 2 here and 1 there",
        ),
        (
            vec![],
            vec![],
            [Some("one key"), Some("another key")],
            "NPUZZLE_CLUSTER_KEY differs",
        ),
        (
            vec![],
            vec![],
            [Some("one key"), None],
            "NPUZZLE_CLUSTER_KEY is unset here and set there",
        ),
    ];
    for (flags0, flags1, keys, needle) in cases {
        let mut a0 = vec!["--connect-timeout", "3"];
        a0.extend(flags0);
        let mut cmd = process(dir.path(), 0, 2, &[], &a0);
        if let Some(k) = keys[0] {
            cmd.env("NPUZZLE_CLUSTER_KEY", k);
        }
        let (p0, address) = start(cmd, true);
        let mut a1 = vec!["--connect-timeout", "3"];
        a1.extend(flags1);
        let mut cmd = process(dir.path(), 1, 2, &[address.unwrap()], &a1);
        if let Some(k) = keys[1] {
            cmd.env("NPUZZLE_CLUSTER_KEY", k);
        }
        let p1 = cmd.output().unwrap();
        let p0 = p0.wait();
        assert_eq!(p1.status.code(), Some(1), "{needle}");
        let err = errors(&p1);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{needle}: {err}");
        assert_eq!(p0.status.code(), Some(1), "{needle}");
        let err = errors(&p0);
        assert!(
            err.lines()
                .last()
                .unwrap()
                .contains("not every process connected"),
            "{err}"
        );
        assert!(err.lines().count() <= 2, "{err}");
    }
    // The same key on both: the run goes on.
    let outputs = run_cluster(
        &["--size", "3"],
        dir.path(),
        2,
        1,
        &["--edges", "none"],
        |_| vec![("NPUZZLE_CLUSTER_KEY", "one key".to_string())],
    );
    for o in &outputs {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
}

/// Issue 73: a local client holding 70 silent connections open to process 0's port (each
/// one it finds closed opened again) from before its real peer starts until the run ends:
/// with NPUZZLE_CLUSTER_KEY on both, the cluster forms and writes one machine's files, and
/// process 0's warnings about the flood are a few lines (a burst, then one a second with a
/// count), not thousands.
#[test]
fn a_flood_of_silent_connections_does_not_keep_a_keyed_cluster_from_forming() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let board = ["--rows", "2", "--cols", "3"];
    let reference = one_process(&board, dir.path(), "2x3", &[]);
    let flags = [
        "--rows",
        "2",
        "--cols",
        "3",
        "--nodes",
        "none",
        "--connect-timeout",
        "10",
    ];
    let keyed = |mut cmd: Command| {
        cmd.env("NPUZZLE_CLUSTER_KEY", "flood key");
        cmd
    };
    let started = Instant::now();
    let (p0, address) = start(keyed(process(dir.path(), 0, 2, &[], &flags)), true);
    let address = address.unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flood = npuzzle::bfs::cluster::handshake::flood(&address, 70, Arc::clone(&stop));
    std::thread::sleep(Duration::from_secs(2));
    let p1 = keyed(process(dir.path(), 1, 2, &[address], &flags))
        .output()
        .unwrap();
    let p0 = p0.wait();
    stop.store(true, Ordering::Relaxed);
    let opened = flood.join().unwrap();
    let elapsed = started.elapsed();
    for (i, o) in [&p0, &p1].into_iter().enumerate() {
        assert!(o.status.success(), "process {i}: {}", errors(o));
    }
    same_files(&dir.path().join("p0").join("2x3"), &reference);
    assert!(opened > 70, "{opened} connections");
    let warnings = errors(&p0);
    assert!(
        warnings.lines().all(|l| l.starts_with("warning: ")),
        "{warnings}"
    );
    // A burst of 8, then one a second, and the last count.
    let most = elapsed.as_secs() as usize + 8 + 2;
    assert!(
        warnings.lines().count() <= most,
        "{} lines in {elapsed:?}: {warnings}",
        warnings.lines().count()
    );
    assert!(errors(&p1).is_empty(), "{}", errors(&p1));
}

/// Issue 73: `--resume` on process 1 only, with and without NPUZZLE_CLUSTER_KEY: both
/// processes stop within seconds, each naming `--resume` (not the key).
#[test]
fn resume_on_one_process_only_is_named_on_both_sides() {
    for key in [None, Some("one key")] {
        let dir = tempfile::tempdir().unwrap();
        let started = Instant::now();
        let outs = run_frontier(
            &["--size", "3"],
            dir.path(),
            2,
            |i| checkpointed(5, dir.path(), i, i == 1),
            |_| match key {
                Some(k) => vec![("NPUZZLE_CLUSTER_KEY", k.to_string())],
                None => Vec::new(),
            },
        );
        let elapsed = started.elapsed();
        assert!(elapsed < Duration::from_secs(12), "{key:?}: {elapsed:?}");
        for (i, (o, needle)) in outs
            .iter()
            .zip([
                "--resume is no here and yes there",
                "--resume is yes here and no there",
            ])
            .enumerate()
        {
            assert_eq!(o.status.code(), Some(1), "{key:?}: process {i}");
            let err = errors(o);
            let last = err.lines().last().unwrap_or_default();
            assert!(last.contains(needle), "{key:?}: process {i}: {err}");
            assert!(!err.contains("NPUZZLE_CLUSTER_KEY"), "{key:?}: {err}");
        }
    }
}

/// A peer that stops (SIGSTOP) mid-run: the other process gives up after --stall-timeout
/// with one line, instead of waiting forever.
#[cfg(unix)]
#[test]
fn a_stopped_peer_is_an_error_after_the_stall_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let board = ["--rows", "3", "--cols", "4"];
    let flags = |i: usize, known: &[String]| {
        let hosts = hostfile(dir.path(), i, 2, known);
        let mut cmd = command(&board, &dir.path().join(format!("p{i}")), &[]);
        cmd.args([
            "--processes",
            "2",
            "--process",
            &i.to_string(),
            "--hostfile",
            &hosts.display().to_string(),
            "--workers",
            "1",
            "--edges",
            "none",
            "--stall-timeout",
            "2",
        ]);
        cmd
    };
    let (p0, address) = start(flags(0, &[]), true);
    let (p1, _) = start(flags(1, &[address.unwrap()]), false);
    std::thread::sleep(Duration::from_millis(1500));
    let pid = p1.child.id() as i32;
    // SAFETY: signals a child of this test.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    let stopped = Instant::now();
    let out = p0.wait();
    let waited = stopped.elapsed();
    unsafe { libc::kill(pid, libc::SIGKILL) };
    drop(p1.wait());
    assert_eq!(out.status.code(), Some(1));
    let err = errors(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no message from process 1 (")
            && err.contains("within the stall timeout of 2 s (--stall-timeout"),
        "{err}"
    );
    assert!(waited < Duration::from_secs(30), "{waited:?}");
}

/// Flags that cannot work are usage errors (exit 2) before anything starts.
#[test]
fn bad_cluster_flags_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    for (args, needle) in [
        (
            vec!["--size", "3", "--processes", "2", "--process", "2"],
            "out of range",
        ),
        (vec!["--size", "3", "--process", "1"], "need --processes"),
        (
            vec!["--rows", "1", "--cols", "5", "--workers", "2"],
            "one-row boards are computed on one machine only",
        ),
        (vec!["--size", "3", "--resume"], "--checkpoint"),
    ] {
        let out = command(&args, &dir.path().join("o"), &[]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

/// One process with 2 workers, killed (SIGKILL) after checkpoint step 70 of 2x5 with
/// --search-components (in the search of the other parity class: the goal's takes 55 layers),
/// then resumed: the one-machine files, the per-board depths (nodes.csv) included.
#[test]
fn one_process_resumes_too() {
    let board = ["--rows", "2", "--cols", "5"];
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("ck").display().to_string();
    let reference = dir.path().join("one");
    let status = command(
        &board,
        &reference,
        &["--nodes", "ranks", "--edges", "none", "--search-components"],
    )
    .status()
    .unwrap();
    assert!(status.success());
    let out = dir.path().join("out");
    let flags = [
        "--search-components",
        "--workers",
        "2",
        "--checkpoint",
        ck.as_str(),
        "--checkpoint-every",
        "layer",
        "--edges",
        "none",
        "--nodes",
        "ranks",
    ];
    let killed = run_killed(
        command(&board, &out, &flags),
        70,
        || newest_of(Path::new(&ck), 0).map(|(step, _)| step),
        Some,
        || {
            let _ = fs::remove_dir_all(&ck);
            let _ = fs::remove_dir_all(&out);
        },
    );
    assert!(!killed.status.success());
    // Step 70 (or, killed from outside by a release build's test, a little later).
    let (step, _) = newest_of(Path::new(&ck), 0).unwrap();
    assert!(!out.join("2x5").join("summary.json").exists());
    // Issue 49: the same command again, without --resume, keeps the checkpoint.
    let saved = |name: &str| fs::read(Path::new(&ck).join(name)).unwrap();
    let before = [saved("process-0.0.ckpt"), saved("process-0.1.ckpt")];
    let again = command(&board, &out, &flags).output().unwrap();
    assert_eq!(again.status.code(), Some(1));
    let err = String::from_utf8_lossy(&again.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("holds a checkpoint (process-0.0.ckpt, process-0.1.ckpt)")
            && err.contains("--fresh"),
        "{err}"
    );
    assert_eq!(
        [saved("process-0.0.ckpt"), saved("process-0.1.ckpt")],
        before
    );
    let mut resume = flags.to_vec();
    resume.push("--resume");
    let resumed = Command::new(binary())
        .env_clear()
        .arg("analyze")
        .args(board)
        .arg("--output")
        .arg(&out)
        .args(&resume)
        .output()
        .unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let report = String::from_utf8_lossy(&resumed.stdout);
    assert!(
        report.contains(&format!(
            "resumed from the checkpoint after layer step {step} "
        )),
        "{report}"
    );
    same_files(&out.join("2x5"), &reference.join("2x5"));
    let nodes = |d: &Path| fs::read(d.join("2x5").join("nodes.csv")).unwrap();
    assert!(nodes(&out) == nodes(&reference), "nodes.csv differs");
    // --fresh starts again over it.
    let mut fresh = flags.to_vec();
    fresh.push("--fresh");
    let again = command(&board, &dir.path().join("fresh"), &fresh)
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", errors(&again));
    same_files(
        &dir.path().join("fresh").join("2x5"),
        &reference.join("2x5"),
    );
}

/// The only folder in `dir` (the board's output folder).
fn only_folder(dir: &Path) -> PathBuf {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(entries.len(), 1, "{dir:?}");
    entries.pop().unwrap()
}

/// Every grid up to 10 cells on 2 processes x 2 workers (blocks of the index dealt between
/// them, as many as the board has), from the standard goal and from a goal in the other parity
/// class with the blank inside (the second component searched too, `--search-components`):
/// depths.csv, hardest.txt, summary.json and nodes.csv (the per-board depths, gathered from the
/// dealt blocks) byte-identical to the one-machine engine's.
#[test]
fn every_small_grid_on_two_processes_of_two_workers() {
    for (rows, cols) in [
        (2, 2),
        (2, 3),
        (3, 2),
        (2, 4),
        (4, 2),
        (3, 3),
        (2, 5),
        (5, 2),
    ] {
        let n = rows * cols;
        // Tiles row by row, 0 for the blank: the goal with tiles 1 and 2 swapped and the blank
        // moved into the second row's second cell.
        let mut other: Vec<usize> = (1..n).chain([0]).collect();
        other.swap(0, 1);
        other.swap(n - 1, cols + 1);
        let other = other
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(" ");
        let (r, c) = (rows.to_string(), cols.to_string());
        for goal in [None, Some(other.as_str())] {
            let mut board = vec!["--rows", &r, "--cols", &c];
            if let Some(g) = goal {
                board.extend(["--goal", g, "--search-components"]);
            }
            let dir = tempfile::tempdir().unwrap();
            let one = dir.path().join("one");
            let status = command(&board, &one, &["--edges", "none"])
                .status()
                .unwrap();
            assert!(status.success());
            let outputs = run_cluster(&board, dir.path(), 2, 2, &["--edges", "none"], |_| {
                Vec::new()
            });
            for o in &outputs {
                assert!(
                    o.status.success(),
                    "{rows}x{cols} {goal:?}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
            }
            let (a, b) = (only_folder(&dir.path().join("p0")), only_folder(&one));
            same_files(&a, &b);
            assert!(
                fs::read(a.join("nodes.csv")).unwrap() == fs::read(b.join("nodes.csv")).unwrap(),
                "{rows}x{cols} {goal:?}: nodes.csv differs"
            );
        }
    }
}

/// The checkpoints of a run killed after layer step 10 of 3x3 (one process, one worker), then
/// damaged: a flipped byte in the newest slot's header or body, or the slot truncated, is
/// passed over with one warning and the run resumes from step 9, with the one-machine files; a
/// deleted newest slot resumes from step 9 silently; both slots damaged, or an empty folder,
/// make `--resume` a usage error (exit 2); another board's checkpoint is a one-line error.
#[test]
fn damaged_checkpoints_fall_back_to_the_older_slot_or_fail_in_one_line() {
    let board = ["--size", "3"];
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("one");
    assert!(
        command(&board, &reference, &["--edges", "none"])
            .status()
            .unwrap()
            .success()
    );
    let ck = dir.path().join("ck");
    let flags = |ck: &Path| -> Vec<String> {
        [
            "--workers",
            "1",
            "--edges",
            "none",
            "--checkpoint",
            &ck.display().to_string(),
            "--checkpoint-every",
            "layer",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let mut cmd = command(&board, &dir.path().join("killed"), &[]);
    cmd.args(flags(&ck));
    let killed = run_killed(
        cmd,
        10,
        || newest_of(&ck, 0).map(|(step, _)| step),
        Some,
        || drop(fs::remove_dir_all(&ck)),
    );
    assert!(!killed.status.success());
    // Step 10 in slot 0 and step 9 in slot 1 (or, killed from outside by a release build's
    // test, a later step and the one before it).
    let (step, slot) = newest_of(&ck, 0).unwrap();
    let (new_slot, old_slot) = (
        format!("process-0.{slot}.ckpt"),
        format!("process-0.{}.ckpt", 1 - slot),
    );
    let newest = |ck: &Path| ck.join(&new_slot);
    let resume = |name: &str, damage: &dyn Fn(&Path)| -> Output {
        let copy = damaged_copy(&ck, dir.path().join(format!("ck-{name}")), damage);
        // Without --quiet: the report says where it resumed.
        Command::new(binary())
            .env_clear()
            .arg("analyze")
            .args(board)
            .arg("--output")
            .arg(dir.path().join(name))
            .arg("--resume")
            .args(flags(&copy))
            .output()
            .unwrap()
    };
    let flip = |at: fn(usize) -> usize| {
        move |ck: &Path| {
            let path = newest(ck);
            let mut bytes = fs::read(&path).unwrap();
            let k = at(bytes.len());
            bytes[k] ^= 0x20;
            fs::write(&path, bytes).unwrap();
        }
    };
    let truncate = |ck: &Path| {
        let path = newest(ck);
        let bytes = fs::read(&path).unwrap();
        fs::write(&path, &bytes[..bytes.len() - 100]).unwrap();
    };
    let cases: [(&str, Damage, bool); 4] = [
        ("header", Box::new(flip(|_| 30)), true),
        ("body", Box::new(flip(|len| len - 1000)), true),
        ("truncated", Box::new(truncate), true),
        (
            "deleted",
            Box::new(|ck: &Path| fs::remove_file(newest(ck)).unwrap()),
            false,
        ),
    ];
    for (name, damage, warns) in cases {
        let out = resume(name, &*damage);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {err}");
        let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
        assert_eq!(warnings.len(), usize::from(warns), "{name}: {err}");
        if warns {
            assert!(
                warnings[0].contains(&format!("{new_slot} passed over")),
                "{err}"
            );
        }
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(
            report.contains(&format!(
                "resumed from the checkpoint after layer step {} ",
                step - 1
            )),
            "{name}: {report}"
        );
        same_files(&dir.path().join(name).join("3x3"), &reference.join("3x3"));
    }
    // Both slots damaged: nothing to resume from.
    let out = resume("both", &|ck: &Path| {
        flip(|len| len - 1000)(ck);
        fs::remove_file(ck.join(&old_slot)).unwrap();
    });
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = err.lines().filter(|l| !l.starts_with("warning:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(
        errors[0].contains("holds no checkpoint of this run"),
        "{err}"
    );
    // An empty folder.
    let out = resume("empty", &|ck: &Path| {
        for e in fs::read_dir(ck).unwrap() {
            fs::remove_file(e.unwrap().path()).unwrap();
        }
    });
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Another run's checkpoints (another board; the same board with another option): refused
    // in one line naming the first field that differs.
    let foreign: [(&[&str], &[&str], &str); 2] = [
        (
            &["--rows", "2", "--cols", "4"],
            &[],
            "belongs to another run: its board is 3x3, this run's 2x4",
        ),
        (
            &board,
            &["--search-components"],
            "its search of every component (--search-components) is no, this run's yes",
        ),
    ];
    for (k, (board, extra, want)) in foreign.into_iter().enumerate() {
        let out = command(
            board,
            &dir.path().join(format!("foreign-{k}")),
            &["--resume"],
        )
        .args(extra)
        .args(flags(&ck))
        .output()
        .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(want), "{err}");
    }
}

/// `--resume` from a folder that holds no checkpoint, with `--table` (process 0 has made
/// table.npt's temporary file by then): one line, exit 2, and, run after run, no temporary
/// file in the results folder and the previous run's outputs unchanged. The error used to
/// reach `main` while the cluster's thread still held the table's temporary file, and the
/// process often exited before that thread removed it.
#[test]
fn a_refused_resume_leaves_no_temporary_file_and_the_previous_outputs() {
    let board = ["--rows", "2", "--cols", "3"];
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    assert!(
        command(&board, &out, &["--table"])
            .status()
            .unwrap()
            .success()
    );
    let folder = out.join("2x3");
    let names = ["table.npt", "summary.json", "depths.csv", "edges.csv"];
    let read = || -> Vec<Vec<u8>> {
        names
            .iter()
            .map(|n| fs::read(folder.join(n)).unwrap())
            .collect()
    };
    let before = read();
    let ck = dir.path().join("ck");
    fs::create_dir(&ck).unwrap();
    let ck = ck.display().to_string();
    let flags = [
        "--table",
        "--processes",
        "1",
        "--workers",
        "1",
        "--checkpoint",
        ck.as_str(),
        "--resume",
    ];
    // Each run checked at once: a run's temp_beside sweeps what a dead one left.
    for run in 0..10 {
        let refused = command(&board, &out, &flags).output().unwrap();
        let err = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "run {run}: {err}");
        assert_eq!(err.lines().count(), 1, "run {run}: {err}");
        assert!(
            err.contains("holds no checkpoint of this run"),
            "run {run}: {err}"
        );
        let temporary: Vec<String> = fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp"))
            .collect();
        assert_eq!(temporary, Vec::<String>::new(), "run {run}");
        assert!(read() == before, "run {run}: an output changed");
    }
}

/// A process in the middle (process 1 of 3: it dials process 0 and waits for process 2)
/// refused by process 0 stops at once with the reason, instead of waiting for process 2
/// until its connect timeout.
#[test]
fn a_refused_process_stops_without_waiting_for_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let (mut p0, address) = start(
        process(dir.path(), 0, 3, &[], &["--connect-timeout", "60"]),
        true,
    );
    let started = Instant::now();
    let (p1, _) = start(
        process(
            dir.path(),
            1,
            3,
            &[address.unwrap()],
            &["--connect-timeout", "60", "--goal", "2 1 3 4 5 6 7 8 0"],
        ),
        true,
    );
    let out = p1.wait();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    p0.child.kill().unwrap();
    drop(p0.child.wait());
    assert_eq!(out.status.code(), Some(1));
    let err = errors(&out);
    assert!(err.contains("the goal is 2 1 3/4 5 6/7 8 0 here"), "{err}");
}

/// Issue 73: a --memory that holds one machine's search of 3x3 (300M: 268.44 MB is its
/// least, its maps and buffers) but not them beside the 64 MiB of its peer's messages a
/// process of two holds (335.54 MB) is refused on each process in one line, exit 2, before any connection (process
/// 0 never listens) and any folder, where the processes used to search nothing past depth 0
/// and exit 0.
#[test]
fn a_budget_without_room_for_the_peers_messages_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let extra = [
        "--max-depth",
        "10",
        "--memory",
        "300M",
        "--connect-timeout",
        "3",
    ];
    let (p0, address) = start(process(dir.path(), 0, 2, &[], &extra), true);
    let known = [address.clone().unwrap_or_else(|| "127.0.0.1:9".into())];
    let p1 = process(dir.path(), 1, 2, &known, &extra).output().unwrap();
    let p0 = p0.wait();
    assert_eq!(address, None, "process 0 listened");
    for (i, out) in [p0, p1].iter().enumerate() {
        assert_eq!(out.status.code(), Some(2), "process {i}");
        let err = errors(out);
        assert_eq!(err.lines().count(), 1, "process {i}: {err}");
        assert!(
            err.contains("--memory 300.00 MB is too small: the segments' maps (")
                && err.contains("take 335.54 MB with the search's buffers")
                && err.contains("67.11 MB of other processes' messages"),
            "process {i}: {err}"
        );
        assert!(!dir.path().join(format!("p{i}")).exists(), "process {i}");
    }
}

/// Issue 49: the shipped sizes, which every build runs (the library's tests set small ones),
/// on a board that crosses them: 3x4 on 2 processes x 1 worker, each holding 119,750,400
/// boards of the goal's class, sends its lists after every window of 64 work items (a send
/// budget of 128 MiB at 8 bytes per neighbour: about 29 windows on a dense layer), and process
/// 0 gathers the 60 MB distance table in 4 windows of 16 MiB: depths.csv, hardest.txt,
/// summary.json and table.npt byte-identical to one machine's.
#[test]
fn the_shipped_sizes_on_a_board_that_crosses_them() {
    use npuzzle::bfs::cluster::{BufferSizes, SEND_BUDGET, TABLE_WINDOW};
    let t = BufferSizes::default();
    assert_eq!((t.send_budget, t.table_window), (SEND_BUDGET, TABLE_WINDOW));
    // Boards of a share, and of a window of 64 items of 65,536 boards (4 neighbours each).
    const SHARE: u64 = 479_001_600 / 2 / 2;
    const WINDOW: u64 = (SEND_BUDGET as u64 / (65_536 * 4 * 8)) * 65_536;
    const { assert!(SHARE / WINDOW >= 20, "3x4 crosses the send windows") };
    const {
        assert!(
            479_001_600 / 2 / 4 > 3 * TABLE_WINDOW,
            "and the table windows"
        )
    };
    let board = ["--rows", "3", "--cols", "4"];
    let (dir, reference) = beside_one_process(&board, "3x4", 2, 1, &["--table"]);
    same_files(&dir.path().join("p0").join("3x4"), &reference);
}

/// Issue 51: `analyze --all-pairs` over 2 processes on loopback: one distributed BFS per orbit
/// of blank cells, each on the same addresses (process 0 listens on one fixed port, again for
/// every orbit), writes the geometry files of one machine.
#[test]
fn all_pairs_runs_distributed() {
    all_pairs_across(&[]);
}

/// Issue 63: `analyze --all-pairs --max-depth` over 2 processes: one frontier search across
/// the processes per orbit, each process's layers in its own scratch folder, writes the
/// geometry files of one machine's frontier searches.
#[test]
fn all_pairs_frontier_runs_distributed() {
    all_pairs_across(&["--max-depth", "100"]);
}

/// `analyze --all-pairs` with `extra` flags over 2 processes of 1 worker on loopback (each
/// with its own `--scratch` when `extra` asks for a frontier search) against one machine:
/// the same geometry files.
fn all_pairs_across(extra: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let board = ["--rows", "2", "--cols", "3"];
    let one = dir.path().join("one");
    assert!(
        command(&board, &one, &[&["--all-pairs"], extra].concat())
            .status()
            .unwrap()
            .success()
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let hosts = dir.path().join("hosts");
    fs::write(&hosts, format!("127.0.0.1:{port}\n127.0.0.1:0\n")).unwrap();
    let started: Vec<Child> = (0..2)
        .map(|i| {
            // (a frontier search's layers: each process its own folder)
            let scratch = dir.path().join(format!("scratch{i}"));
            fs::create_dir_all(&scratch).unwrap();
            let scratch = ["--scratch".to_string(), scratch.display().to_string()];
            let scratch: &[String] = if extra.is_empty() { &[] } else { &scratch };
            command(
                &board,
                &dir.path().join(format!("p{i}")),
                &[&["--all-pairs"], extra].concat(),
            )
            .args(scratch)
            .args([
                "--processes",
                "2",
                "--process",
                &i.to_string(),
                "--workers",
                "1",
            ])
            .arg("--hostfile")
            .arg(&hosts)
            .args(["--connect-timeout", "30"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
        })
        .collect();
    for (i, mut child) in started.into_iter().enumerate() {
        assert!(child.wait().unwrap().success(), "process {i}");
    }
    let (a, b) = (one.join("2x3/geometry"), dir.path().join("p0/2x3/geometry"));
    for name in ["eccentricity.csv", "distance_table.csv"] {
        assert_eq!(
            fs::read(a.join(name)).unwrap(),
            fs::read(b.join(name)).unwrap(),
            "{name}"
        );
    }
    assert_eq!(
        crate::support::summary_figures(&a.join("summary.json")),
        crate::support::summary_figures(&b.join("summary.json"))
    );
    assert!(
        !dir.path().join("p1/2x3/geometry").exists(),
        "process 1 writes nothing"
    );
}

/// A frontier search's flags to `depth` with its checkpoint in `dir/ck{folder}` (a process's
/// own folder), resumed or not.
fn checkpointed(depth: u32, dir: &Path, folder: usize, resume: bool) -> Vec<String> {
    let mut f = vec![
        "--max-depth".to_string(),
        depth.to_string(),
        "--checkpoint".into(),
        dir.join(format!("ck{folder}")).display().to_string(),
    ];
    if resume {
        f.push("--resume".into());
    }
    f
}

/// The frontier search across processes (`analyze --max-depth --processes`): processes `0..n`
/// over loopback as [`run_cluster`] starts them, process `i` with the flags `extra_of(i)` (its
/// own scratch or checkpoint folder) and the environment `env_of(i)`.
fn run_frontier(
    board: &[&str],
    dir: &Path,
    processes: usize,
    extra_of: impl Fn(usize) -> Vec<String>,
    env_of: impl Fn(usize) -> Vec<(&'static str, String)>,
) -> Vec<Output> {
    // A peer that stops makes the others give up within a minute, not the default five.
    let extra_of = |i| {
        let mut f = extra_of(i);
        f.extend(["--stall-timeout".to_string(), "60".to_string()]);
        f
    };
    let on = vec!["127.0.0.1"; processes];
    start_all(&on, false, board, dir, 1, extra_of, env_of)
}

/// depths.csv and hardest.txt byte for byte, and summary.json but for how it ran (the
/// command line, the traffic across processes), in `a` and `b`.
fn same_frontier_files(a: &Path, b: &Path) {
    for name in ["depths.csv", "hardest.txt"] {
        let x = fs::read(a.join(name)).unwrap();
        let y = fs::read(b.join(name)).unwrap();
        assert!(x == y, "{name} differs between {a:?} and {b:?}");
    }
    let figures = |p: &Path| {
        let mut v: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(p.join("summary.json")).unwrap()).unwrap();
        let o = v.as_object_mut().unwrap();
        o.remove("npuzzle");
        o.remove("traffic");
        v
    };
    assert_eq!(figures(a), figures(b), "summary.json of {a:?} and {b:?}");
}

/// 4x4 to depth 22 on 2 processes of one worker, in memory and each with its own scratch
/// folder: depths.csv and hardest.txt byte-identical to one machine's, summary.json the same
/// figures, with the traffic across processes; only process 0 writes.
#[test]
fn the_frontier_search_on_two_processes_writes_what_one_writes() {
    let board = ["--size", "4"];
    let dir = tempfile::tempdir().unwrap();
    let one = one_process(&board, dir.path(), "4x4", &["--max-depth", "22"]);
    for disk in [false, true] {
        let d = dir.path().join(format!("disk-{disk}"));
        fs::create_dir_all(&d).unwrap();
        let outs = run_frontier(
            &board,
            &d,
            2,
            |i| {
                let mut flags = vec!["--max-depth".to_string(), "22".to_string()];
                if disk {
                    flags.extend([
                        "--scratch".into(),
                        d.join(format!("s{i}")).display().to_string(),
                    ]);
                }
                flags
            },
            |_| Vec::new(),
        );
        for (i, o) in outs.iter().enumerate() {
            assert!(o.status.success(), "process {i}: {}", errors(o));
        }
        let p0 = d.join("p0").join("4x4");
        same_frontier_files(&p0, &one);
        assert!(
            !d.join("p1").join("4x4").exists(),
            "process 1 writes nothing"
        );
        let summary: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(p0.join("summary.json")).unwrap()).unwrap();
        assert_eq!(summary["traffic"]["processes"], 2);
        let per_board = summary["traffic"]["bytes_per_board"].as_f64().unwrap();
        assert!(per_board > 0.0 && per_board < 8.0, "{summary}");
        let by_depth = summary["traffic"]["by_depth"].as_array().unwrap();
        assert_eq!(by_depth.len(), 22, "{summary}");
        assert_eq!(by_depth[21]["depth"], 22);
    }
}

/// Process 1 of 2 killed (SIGKILL) after saving depth 15 of 4x4 to depth 22, each process
/// with its own checkpoint folder: process 0 stops with a one-line error; both restarted with
/// --resume continue from the last layer both saved and write one machine's files. A process
/// given the other's folder, or another board's, refuses with one line, and so does its peer.
#[test]
fn the_frontier_search_resumes_across_processes() {
    if !HOOKS {
        return; // (the kill hook: `cargo test --release` builds it)
    }
    let board = ["--size", "4"];
    let dir = tempfile::tempdir().unwrap();
    let one = one_process(&board, dir.path(), "4x4", &["--max-depth", "22"]);
    let flags = |folder: usize, resume: bool| checkpointed(22, dir.path(), folder, resume);
    let crashed = run_frontier(
        &board,
        dir.path(),
        2,
        |i| flags(i, false),
        |i| match i {
            1 => vec![("NPUZZLE_KILL_AFTER_STEP", "15".to_string())],
            _ => Vec::new(),
        },
    );
    assert!(!crashed[0].status.success());
    let err = errors(&crashed[0]);
    assert_eq!(err.lines().count(), 1, "{err}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(crashed[1].status.signal(), Some(9));
    }
    // The folders swapped: both refuse in one line.
    let swapped = run_frontier(
        &board,
        dir.path(),
        2,
        |i| flags(1 - i, true),
        |_| Vec::new(),
    );
    for (i, o) in swapped.iter().enumerate() {
        assert!(!o.status.success(), "process {i}");
        let err = errors(o);
        assert_eq!(err.lines().count(), 1, "process {i}: {err}");
        assert!(err.contains("another search"), "process {i}: {err}");
    }
    // Another board's folder (3x4 over process 0's): refused on both.
    let other = run_frontier(
        &["--rows", "3", "--cols", "4"],
        dir.path(),
        2,
        |i| flags(i, true),
        |_| Vec::new(),
    );
    for (i, o) in other.iter().enumerate() {
        assert!(!o.status.success(), "process {i}");
        assert_eq!(errors(o).lines().count(), 1, "process {i}: {}", errors(o));
    }
    let resumed = run_frontier(&board, dir.path(), 2, |i| flags(i, true), |_| Vec::new());
    for (i, o) in resumed.iter().enumerate() {
        assert!(o.status.success(), "process {i}: {}", errors(o));
    }
    same_frontier_files(&dir.path().join("p0").join("4x4"), &one);
}

/// Bad input across processes: a --max-depth that differs between them is refused by both,
/// naming it (the hello's fingerprint: the dialing process in one line, the waiting one in
/// its last line, after the warning of the connection it refused); a disk too small for the next layer on
/// one process (the fake free space of the test hooks) stops every process before that
/// layer, process 0 writing the layers all finished, and --resume from the checkpoints with
/// the disk back goes on to one machine's files.
#[test]
fn frontier_flags_that_differ_and_a_full_disk_on_one_process() {
    let board = ["--size", "4"];
    let dir = tempfile::tempdir().unwrap();
    let outs = run_frontier(
        &board,
        dir.path(),
        2,
        |i| {
            let depth = (20 + i).to_string();
            ["--max-depth", &depth, "--connect-timeout", "3"]
                .map(String::from)
                .to_vec()
        },
        |_| Vec::new(),
    );
    for (i, o) in outs.iter().enumerate() {
        assert!(!o.status.success(), "process {i}");
        let err = errors(o);
        assert!(err.lines().count() <= 2 - i, "process {i}: {err}");
        let last = err.lines().last().unwrap_or_default();
        assert!(last.contains("--max-depth is 2"), "process {i}: {err}");
    }
    if !HOOKS {
        return;
    }
    let one = one_process(&board, dir.path(), "4x4", &["--max-depth", "20"]);
    let flags = |i: usize, resume: bool| checkpointed(20, dir.path(), i, resume);
    let full = run_frontier(
        &board,
        dir.path(),
        2,
        |i| flags(i, false),
        |i| match i {
            1 => vec![("NPUZZLE_FAKE_DISK_FREE", "500000".to_string())],
            _ => Vec::new(),
        },
    );
    for (i, o) in full.iter().enumerate() {
        assert!(o.status.success(), "process {i}: {}", errors(o));
    }
    let p0 = dir.path().join("p0").join("4x4");
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(p0.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["complete"], false);
    let reached = summary["max_depth"].as_u64().unwrap();
    assert!(reached < 20, "{summary}");
    let resumed = run_frontier(&board, dir.path(), 2, |i| flags(i, true), |_| Vec::new());
    for (i, o) in resumed.iter().enumerate() {
        assert!(o.status.success(), "process {i}: {}", errors(o));
    }
    same_frontier_files(&p0, &one);
}

/// Issue 73: every flag that changes what a distributed run searches or writes is in the
/// peers' fingerprint, on every path: `--all-pairs` on one process only (with `--max-depth`,
/// where the other joined the first orbit's search and exited 0, and without), another
/// `--edges` format, `--nodes`, the chart's scale, the metric, `--table` or another
/// `--max-depth`, is refused on both processes, each exiting non-zero naming the flag.
#[test]
fn a_flag_given_to_one_process_only_is_refused_on_both() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &[&str], &str); 8] = [
        (
            &["--all-pairs", "--max-depth", "5"],
            &["--max-depth", "5"],
            "--all-pairs is",
        ),
        (&["--all-pairs"], &[], "--all-pairs is"),
        (&["--edges", "ranks"], &["--edges", "labels"], "--edges is"),
        (&["--nodes", "ranks"], &[], "--nodes is"),
        (&["--log-scale"], &[], "the chart's scale is"),
        (&["--metric", "mtm"], &[], "the metric is"),
        (&["--table"], &[], "a distance table is"),
        (
            &["--max-depth", "6"],
            &["--max-depth", "5"],
            "--max-depth is",
        ),
    ];
    for (k, (zero, one, needle)) in cases.into_iter().enumerate() {
        let case = dir.path().join(format!("case{k}"));
        fs::create_dir_all(&case).unwrap();
        let outs = run_frontier(
            &["--size", "3"],
            &case,
            2,
            |i| {
                let mut f: Vec<String> = ["--connect-timeout", "10"].map(String::from).to_vec();
                f.extend(
                    if i == 0 { zero } else { one }
                        .iter()
                        .map(|s| s.to_string()),
                );
                f
            },
            // (Keyed, a refused peer is one of this run's: both stop at once.)
            |_| vec![("NPUZZLE_CLUSTER_KEY", "one key".to_string())],
        );
        for (i, o) in outs.iter().enumerate() {
            let err = errors(o);
            assert!(!o.status.success(), "{needle}: process {i} exited 0: {err}");
            assert!(err.contains(needle), "{needle}: process {i}: {err}");
        }
    }
}

/// Issue 73: a process that stops on its own error tells the others why: a layer file damaged
/// mid-search on process 1 (a test hook, as a disk error would) is process 1's one-line
/// error, and process 0's names process 1 and the layer, not a broken connection.
#[test]
fn a_process_that_stops_is_named_with_its_reason_by_the_others() {
    if !HOOKS {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let outs = run_frontier(
        &["--size", "3"],
        dir.path(),
        2,
        |i| {
            let scratch = dir.path().join(format!("scratch{i}")).display().to_string();
            [
                "--max-depth",
                "20",
                "--scratch",
                &scratch,
                "--connect-timeout",
                "10",
            ]
            .map(String::from)
            .to_vec()
        },
        |i| match i {
            1 => vec![("NPUZZLE_DAMAGE_SCRATCH", "layer:10".to_string())],
            _ => Vec::new(),
        },
    );
    let one = errors(&outs[1]);
    assert!(
        !outs[1].status.success() && one.contains("layer 10"),
        "{one}"
    );
    let zero = errors(&outs[0]);
    assert!(!outs[0].status.success(), "{zero}");
    let last = zero.lines().last().unwrap_or_default();
    assert!(
        last.contains("process 1 stopped:") && last.contains("layer 10"),
        "{zero}"
    );
}

/// Issue 73 (its musts): each process of 2 and of 3 killed in turn (SIGKILL, the kill hook,
/// after saving depth 9 of 3x3 searched to depth 16 with a checkpoint folder each): the others
/// stop with one line each; every process restarted with --resume writes one machine's files.
#[test]
fn each_process_killed_in_turn_resumes_to_one_machines_files() {
    if !HOOKS {
        return; // (the kill hook: `cargo test --release` builds it)
    }
    let board = ["--size", "3"];
    for processes in [2, 3] {
        for killed in 0..processes {
            let dir = tempfile::tempdir().unwrap();
            let one = one_process(&board, dir.path(), "3x3", &["--max-depth", "16"]);
            let flags = |i: usize, resume: bool| checkpointed(16, dir.path(), i, resume);
            let at = format!("process {killed} of {processes} killed");
            let crashed = run_frontier(
                &board,
                dir.path(),
                processes,
                |i| flags(i, false),
                |i| match i == killed {
                    true => vec![("NPUZZLE_KILL_AFTER_STEP", "9".to_string())],
                    false => Vec::new(),
                },
            );
            for (i, o) in crashed.iter().enumerate() {
                let err = errors(o);
                assert!(!o.status.success(), "{at}: process {i} exited 0");
                assert!(!err.contains("panicked"), "{at}: process {i}: {err}");
                if i != killed {
                    assert_eq!(err.lines().count(), 1, "{at}: process {i}: {err}");
                }
            }
            let resumed = run_frontier(
                &board,
                dir.path(),
                processes,
                |i| flags(i, true),
                |_| Vec::new(),
            );
            for (i, o) in resumed.iter().enumerate() {
                assert!(o.status.success(), "{at}: process {i}: {}", errors(o));
            }
            same_frontier_files(&dir.path().join("p0").join("3x3"), &one);
        }
    }
}
