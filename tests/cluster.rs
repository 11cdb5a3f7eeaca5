//! The distributed engine on the real binary, over loopback (127.0.0.1): several processes give
//! the same files as one; a process killed mid-run (SIGKILL) stops its peer with a one-line
//! error, and `--resume` from the checkpoints gives the same files again; a peer that never
//! comes up is an error within the connect timeout.

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::{Damage, damaged_copy};

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_npuzzle"))
}

/// A hostfile of `n` free loopback ports.
fn hostfile(dir: &Path, n: usize) -> PathBuf {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let lines: Vec<String> = listeners
        .iter()
        .map(|l| format!("127.0.0.1:{}\n", l.local_addr().unwrap().port()))
        .collect();
    drop(listeners);
    let path = dir.join("hosts");
    fs::write(&path, lines.concat()).unwrap();
    path
}

fn command(board: &[&str], out: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(binary());
    cmd.env_clear()
        .arg("analyze")
        .args(board)
        .arg("--output")
        .arg(out)
        .arg("--quiet")
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Starts processes `1..n` in the background and runs process 0; returns every output,
/// process 0's first.
fn run_cluster(
    board: &[&str],
    dir: &Path,
    hosts: &Path,
    processes: usize,
    workers: usize,
    extra: &[&str],
    env_of: impl Fn(usize) -> Vec<(&'static str, String)>,
) -> Vec<Output> {
    let args = |i: usize| {
        let mut a = vec![
            "--processes".to_string(),
            processes.to_string(),
            "--process".to_string(),
            i.to_string(),
            "--hostfile".to_string(),
            hosts.display().to_string(),
            "--workers".to_string(),
            workers.to_string(),
            "--connect-timeout".to_string(),
            "30".to_string(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let out = |i: usize| dir.join(format!("p{i}"));
    let children: Vec<Child> = (1..processes)
        .map(|i| {
            let mut cmd = command(board, &out(i), &[]);
            cmd.args(args(i)).envs(env_of(i));
            cmd.spawn().unwrap()
        })
        .collect();
    let mut first = command(board, &out(0), &[]);
    first.args(args(0)).envs(env_of(0));
    let mut outputs = vec![first.output().unwrap()];
    outputs.extend(children.into_iter().map(|c| c.wait_with_output().unwrap()));
    outputs
}

fn same_files(a: &Path, b: &Path) {
    for name in ["depths.csv", "hardest.txt", "summary.json"] {
        let x = fs::read(a.join(name)).unwrap();
        let y = fs::read(b.join(name)).unwrap();
        assert!(x == y, "{name} differs between {a:?} and {b:?}");
    }
}

fn one_process(board: &[&str], dir: &Path, folder: &str) -> PathBuf {
    let out = dir.join("one");
    let status = command(board, &out, &["--edges", "none", "--nodes", "none"])
        .status()
        .unwrap();
    assert!(status.success());
    out.join(folder)
}

/// 2 processes x 1 worker and 2 x 2 workers, on 3x3 and 2x5: depths.csv, hardest.txt and
/// summary.json byte-identical to the one-machine engine's; only process 0 writes.
#[test]
fn two_processes_write_what_one_writes() {
    for (board, folder) in [
        (vec!["--size", "3"], "3x3"),
        (vec!["--rows", "2", "--cols", "5"], "2x5"),
    ] {
        for workers in [1, 2] {
            let dir = tempfile::tempdir().unwrap();
            let hosts = hostfile(dir.path(), 2);
            let reference = one_process(&board, dir.path(), folder);
            let outputs = run_cluster(
                &board,
                dir.path(),
                &hosts,
                2,
                workers,
                &["--edges", "none", "--nodes", "none"],
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

/// Runs `board` on one process and on `processes` x `workers` (without edges.csv and
/// nodes.csv), each successful; returns the folder (process `i` wrote to `p{i}`) and the
/// one-process output folder.
fn beside_one_process(
    board: &[&str],
    folder: &str,
    processes: usize,
    workers: usize,
) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let hosts = hostfile(dir.path(), processes);
    let reference = one_process(board, dir.path(), folder);
    let outputs = run_cluster(
        board,
        dir.path(),
        &hosts,
        processes,
        workers,
        &["--edges", "none", "--nodes", "none"],
        |_| Vec::new(),
    );
    for o in &outputs {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    (dir, reference)
}

/// More processes than words of marks: 2x2 (12 boards per class, one word) on 3 processes x 2
/// threads, two of them owning nothing; the one-machine files.
#[test]
fn more_processes_than_mark_words() {
    let (dir, reference) = beside_one_process(&["--rows", "2", "--cols", "2"], "2x2", 3, 2);
    same_files(&dir.path().join("p0").join("2x2"), &reference);
}

/// A one-row board (the lexicographic space) on 2 processes x 2 threads: depths.csv and
/// hardest.txt byte-identical to the one-machine engine's; summary.json the same but for how
/// the components were found (the theorem: (n-1)! paths of n boards, not a search of each).
#[test]
fn one_row_boards_run_distributed() {
    let (dir, reference) = beside_one_process(&["--rows", "1", "--cols", "6"], "1x6", 2, 2);
    let p0 = dir.path().join("p0").join("1x6");
    for file in ["depths.csv", "hardest.txt"] {
        assert!(
            fs::read(p0.join(file)).unwrap() == fs::read(reference.join(file)).unwrap(),
            "{file} differs"
        );
    }
    let summary = |d: &Path| fs::read_to_string(d.join("summary.json")).unwrap();
    assert_eq!(
        summary(&p0),
        summary(&reference).replace("\"found_by\": \"search\"", "\"found_by\": \"theorem\"")
    );
}

/// Process 1 kills itself (SIGKILL) after checkpoint step 20 of 2x5: process 0 stops with a
/// one-line error; both restarted with --resume finish with the one-machine files, per-board
/// depths (nodes.csv) included.
#[test]
fn a_killed_process_resumes_from_the_checkpoints() {
    let board = ["--rows", "2", "--cols", "5"];
    let dir = tempfile::tempdir().unwrap();
    let hosts = hostfile(dir.path(), 2);
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
    ];
    let reference = dir.path().join("one");
    let status = command(&board, &reference, &["--nodes", "ranks", "--edges", "none"])
        .status()
        .unwrap();
    assert!(status.success());
    let crashed = run_cluster(&board, dir.path(), &hosts, 2, 2, &extra, |i| {
        if i == 1 {
            vec![("NPUZZLE_KILL_AFTER_STEP", "20".to_string())]
        } else {
            Vec::new()
        }
    });
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
    let resumed = run_cluster(&board, dir.path(), &hosts, 2, 2, &resume, |_| Vec::new());
    for o in &resumed {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let p0 = dir.path().join("p0").join("2x5");
    same_files(&p0, &reference.join("2x5"));
    let nodes = fs::read(p0.join("nodes.csv")).unwrap();
    assert!(nodes == fs::read(reference.join("2x5").join("nodes.csv")).unwrap());
}

/// A peer that never comes up: process 0 gives up after --connect-timeout with one line.
#[test]
fn a_missing_peer_is_an_error_in_bounded_time() {
    let dir = tempfile::tempdir().unwrap();
    let hosts = hostfile(dir.path(), 2);
    let started = Instant::now();
    let hosts = hosts.display().to_string();
    let out = command(
        &["--size", "3"],
        &dir.path().join("p0"),
        &[
            "--processes",
            "2",
            "--hostfile",
            &hosts,
            "--connect-timeout",
            "2",
        ],
    )
    .output()
    .unwrap();
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("not every process connected within 2 s"),
        "{err}"
    );
    assert!(
        out.stdout.is_empty(),
        "timely's connection chatter is silenced"
    );
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

/// One process with 2 workers, killed (SIGKILL) after checkpoint step 70 of 2x5 (in the search
/// of the other parity class: the goal's takes 55 layers), then resumed: the one-machine files,
/// the per-board depths (nodes.csv) included.
#[test]
fn one_process_resumes_too() {
    let board = ["--rows", "2", "--cols", "5"];
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("ck").display().to_string();
    let reference = dir.path().join("one");
    let status = command(&board, &reference, &["--nodes", "ranks", "--edges", "none"])
        .status()
        .unwrap();
    assert!(status.success());
    let out = dir.path().join("out");
    let flags = [
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
    let killed = command(&board, &out, &flags)
        .env("NPUZZLE_KILL_AFTER_STEP", "70")
        .output()
        .unwrap();
    assert!(!killed.status.success());
    assert!(!out.join("2x5").join("summary.json").exists());
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
        report.contains("resumed from the checkpoint after layer step 70"),
        "{report}"
    );
    same_files(&out.join("2x5"), &reference.join("2x5"));
    let nodes = |d: &Path| fs::read(d.join("2x5").join("nodes.csv")).unwrap();
    assert!(nodes(&out) == nodes(&reference), "nodes.csv differs");
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
/// class with the blank inside: depths.csv, hardest.txt, summary.json and nodes.csv (the
/// per-board depths, gathered from the dealt blocks) byte-identical to the one-machine engine's.
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
                board.extend(["--goal", g]);
            }
            let dir = tempfile::tempdir().unwrap();
            let hosts = hostfile(dir.path(), 2);
            let one = dir.path().join("one");
            let status = command(&board, &one, &["--edges", "none"])
                .status()
                .unwrap();
            assert!(status.success());
            let outputs = run_cluster(
                &board,
                dir.path(),
                &hosts,
                2,
                2,
                &["--edges", "none"],
                |_| Vec::new(),
            );
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
    let killed = command(&board, &dir.path().join("killed"), &[])
        .args(flags(&ck))
        .env("NPUZZLE_KILL_AFTER_STEP", "10")
        .output()
        .unwrap();
    assert!(!killed.status.success());
    // Step 10 is in slot 0, step 9 in slot 1.
    let newest = |ck: &Path| ck.join("process-0.0.ckpt");
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
            let path = ck.join("process-0.0.ckpt");
            let mut bytes = fs::read(&path).unwrap();
            let k = at(bytes.len());
            bytes[k] ^= 0x20;
            fs::write(&path, bytes).unwrap();
        }
    };
    let truncate = |ck: &Path| {
        let path = ck.join("process-0.0.ckpt");
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
                warnings[0].contains("process-0.0.ckpt passed over"),
                "{err}"
            );
        }
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(
            report.contains("resumed from the checkpoint after layer step 9 "),
            "{name}: {report}"
        );
        same_files(&dir.path().join(name).join("3x3"), &reference.join("3x3"));
    }
    // Both slots damaged: nothing to resume from.
    let out = resume("both", &|ck: &Path| {
        flip(|len| len - 1000)(ck);
        fs::remove_file(ck.join("process-0.1.ckpt")).unwrap();
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
    // Another board's checkpoints.
    let out = command(
        &["--rows", "2", "--cols", "4"],
        &dir.path().join("foreign"),
        &["--resume"],
    )
    .args(flags(&ck))
    .output()
    .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("belongs to another run"), "{err}");
}
