//! Helpers shared by the suite's files: the one builder of the CLI's commands
//! ([`npuzzle`]), and those of the checkpoint tests of the distributed engine (`cluster.rs`)
//! and of the depth-limited search (`limited.rs`).

use std::fs;
use std::path::{Path, PathBuf};

/// The `npuzzle` binary Cargo built for these tests, as a command with an empty environment
/// (so that no `NPUZZLE_*` variable or locale of the machine running the tests changes what
/// it does). Each file adds its subcommand and flags.
pub fn npuzzle() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("npuzzle").expect("the npuzzle binary");
    cmd.env_clear();
    cmd
}

/// The text of the `summary.json` at `path` without its last field, the provenance
/// (`"npuzzle": {"version", "commit", "command"}`), which must be there: the figures, which
/// two runs of different command lines (a distributed run and one machine's, a resumed run and
/// a whole one) must write byte for byte alike.
pub fn summary_figures(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let at = text
        .find(",\n  \"npuzzle\": {\n")
        .unwrap_or_else(|| panic!("{}: no provenance at the end: {text}", path.display()));
    assert!(text.ends_with("\n  }\n}\n"), "{}: {text}", path.display());
    format!("{}\n}}\n", &text[..at])
}

/// Something done to a copy of a checkpoint folder.
pub type Damage<'a> = Box<dyn Fn(&Path) + 'a>;

/// Copies the files of checkpoint folder `ck` into a new folder `to`, applies `damage` to the
/// copy, and returns the copy's path.
pub fn damaged_copy(ck: &Path, to: PathBuf, damage: &dyn Fn(&Path)) -> PathBuf {
    fs::create_dir_all(&to).unwrap();
    for e in fs::read_dir(ck).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
    damage(&to);
    to
}

/// The JSON header of the checkpoint container at `path` (`NPZCKPT`, the header's length,
/// the header), or `None` when it is not there or not whole yet.
pub fn container_header(path: &Path) -> Option<serde_json::Value> {
    use std::io::Read;
    let mut file = fs::File::open(path).ok()?;
    let mut start = [0u8; 16];
    file.read_exact(&mut start).ok()?;
    if &start[..7] != b"NPZCKPT" {
        return None;
    }
    let len = u64::from_le_bytes(start[8..16].try_into().ok()?);
    let mut header = vec![0u8; usize::try_from(len).ok().filter(|&l| l < 1 << 24)?];
    file.read_exact(&mut header).ok()?;
    serde_json::from_slice(&header).ok()
}

/// The newest step saved in the two slots `ck/NAME.{0,1}.ckpt` (`step` reads it from a
/// header), and its slot.
pub fn newest_slot(
    ck: &Path,
    name: &str,
    step: fn(&serde_json::Value) -> Option<u64>,
) -> Option<(u64, usize)> {
    (0..2)
        .filter_map(|slot| {
            let header = container_header(&ck.join(format!("{name}.{slot}.ckpt")))?;
            Some((step(&header)?, slot))
        })
        .max()
}

/// Whether the binary under test has the test hooks (`NPUZZLE_KILL_AFTER_STEP` and the
/// others): builds with debug assertions, and `cargo test --release`, whose build of the crate
/// has the `test-hooks` feature (Cargo.toml's dev-dependency on itself).
pub const HOOKS: bool = cfg!(any(debug_assertions, feature = "test-hooks"));

/// Runs `cmd`, a run that saves checkpoints, and kills it (SIGKILL, no cleanup, as a crashed
/// machine) once `saved()` (the newest step its checkpoint holds) reaches `at`; `pid()`, given
/// the child's id, says which process to kill (the child, or a peer it names). Builds with
/// [`HOOKS`] have a hook for it, `NPUZZLE_KILL_AFTER_STEP`, that kills the process right after
/// step `at`; a build without them (release, without the feature) has none, so the test
/// watches the checkpoint folder from outside and kills when the step is there (then
/// `at` or a few steps later: read the step from the folder afterwards). When the run ends
/// before it could be killed (a fast release build), it is started again, up to 20 times,
/// after `reset()`.
pub fn run_killed(
    mut cmd: std::process::Command,
    at: u64,
    saved: impl Fn() -> Option<u64>,
    pid: impl Fn(u32) -> Option<u32>,
    reset: impl Fn(),
) -> std::process::Output {
    if HOOKS {
        return cmd
            .env("NPUZZLE_KILL_AFTER_STEP", at.to_string())
            .output()
            .unwrap();
    }
    use std::process::Stdio;
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    for _ in 0..20 {
        reset();
        let mut child = cmd.spawn().unwrap();
        let mut killed = false;
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                let output = std::process::Output {
                    status,
                    stdout: Vec::new(),
                    stderr: Vec::new(),
                };
                if killed || !status.success() {
                    return child_output(child, output);
                }
                break;
            }
            if !killed
                && saved().is_some_and(|s| s >= at)
                && let Some(p) = pid(child.id())
            {
                // SAFETY: sending a signal has no memory-safety preconditions.
                unsafe { libc::kill(p as libc::pid_t, libc::SIGKILL) };
                killed = true;
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
    }
    panic!("every run ended before its checkpoint of step {at} could be killed");
}

/// `output` with what `child` (ended) wrote on its pipes.
fn child_output(
    mut child: std::process::Child,
    mut output: std::process::Output,
) -> std::process::Output {
    use std::io::Read;
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_end(&mut output.stdout);
    }
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_end(&mut output.stderr);
    }
    output
}
