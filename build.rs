//! Build script: records the git commit the program is built from, for `npuzzle --version` and
//! the provenance in `summary.json` ([`npuzzle::export::Provenance`]).
//!
//! Sets `NPUZZLE_COMMIT` to the short hash of `HEAD`, with `-dirty` when a tracked file differs
//! from it (`git status --porcelain --untracked-files=no`: files the build does not know of,
//! such as a run's outputs or a hostfile, do not count). Outside a git checkout (a crate
//! tarball, no `git` on `PATH`) it sets nothing and the program says no commit. The script
//! runs again when `HEAD`, the branch it names, the index, or a source of the build changes.

use std::path::Path;
use std::process::Command;

/// The trimmed standard output of `git ARGS`, or `None` when git is missing or fails.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    for source in ["build.rs", "Cargo.toml", "Cargo.lock", "src"] {
        println!("cargo:rerun-if-changed={source}");
    }
    let Some(commit) = git(&["rev-parse", "--short", "HEAD"]).filter(|c| !c.is_empty()) else {
        return;
    };
    // `git rev-parse --git-path` finds these in a linked worktree too, where `.git` is a file.
    let mut watched = vec![
        "HEAD".to_string(),
        "index".to_string(),
        "packed-refs".into(),
    ];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name])
            && Path::new(&path).exists()
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    // Without optional locks, git status never rewrites the index it is watched for.
    let dirty = git(&[
        "--no-optional-locks",
        "status",
        "--porcelain",
        "--untracked-files=no",
    ])
    .is_some_and(|changes| !changes.is_empty());
    let suffix = if dirty { "-dirty" } else { "" };
    println!("cargo:rustc-env=NPUZZLE_COMMIT={commit}{suffix}");
}
