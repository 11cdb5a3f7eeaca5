//! `npuzzle draw`: pictures of small game graphs ([`npuzzle::drawing`]), as DOT and, when
//! Graphviz is installed, PNG.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

use clap::Args;
use indicatif::HumanCount;
use npuzzle::drawing::{Drawing, Scope};
use npuzzle::export;

use super::board::BoardArgs;
use super::{CliError, MetricArg};

/// Boards with at most this many boards are drawn whole when no `--radius` is given.
const WHOLE_BY_DEFAULT: u64 = 24;
/// The radius drawn when neither `--radius` nor `--whole` is given on a larger board.
const DEFAULT_RADIUS: u32 = 2;

/// Arguments of `npuzzle draw`.
#[derive(Debug, Args)]
pub struct DrawArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Draw the boards within K moves of the goal [default: the whole graph for boards of at
    /// most 24 boards (2x2, 1x4), else 2].
    #[arg(long, value_name = "K", conflicts_with = "whole")]
    radius: Option<u32>,
    /// Draw the whole game graph, every component (at most 1,000 boards: up to 6 cells).
    #[arg(long)]
    whole: bool,
    /// Folder for the pictures; they go to DIR/<R>x<C>/ (DIR/<R>x<C>-mtm/ in the multi-tile
    /// metric).
    #[arg(long, value_name = "DIR", default_value = "output")]
    output: PathBuf,
    /// What one move is: stm (single-tile) or mtm (multi-tile: edges labelled with every tile
    /// that slides, "5 6"). Long names: single-tile, multi-tile.
    #[arg(long, value_enum, value_name = "METRIC", default_value = "stm")]
    metric: MetricArg,
    /// Seconds Graphviz's dot may take to render the PNG before it is stopped (the DOT file
    /// is kept).
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    dot_timeout: u64,
}

/// Runs `npuzzle draw`: writes `game_graph.dot` or `goal_neighbourhood_r<K>.dot`, then renders
/// the PNG beside it with Graphviz's `dot` when it is installed (otherwise a one-line note says
/// that no PNG was written, and that a PNG already there is an older one).
pub fn run(args: DrawArgs) -> Result<(), CliError> {
    let shape = args.board.shape()?;
    let small = shape.board_count().is_some_and(|b| b <= WHOLE_BY_DEFAULT);
    let scope = match args.radius {
        Some(k) => Scope::Radius(k),
        None if args.whole || small => Scope::WholeGraph,
        None => Scope::Radius(DEFAULT_RADIUS),
    };
    let metric = npuzzle::Metric::from(args.metric);
    let drawing = Drawing::new(shape, metric, scope).map_err(CliError::usage)?;
    let dir = args
        .output
        .join(format!("{shape}{}", metric.folder_suffix()));
    export::prepare_dir(&dir).map_err(CliError::runtime)?;
    let dot_path = dir.join(format!("{}.dot", drawing.file_stem()));
    let png_path = dir.join(format!("{}.png", drawing.file_stem()));
    export::write_atomically(&dot_path, |out| out.write_all(drawing.to_dot().as_bytes()))
        .map_err(CliError::runtime)?;
    println!(
        "wrote {}: {}, {}",
        super::shown(&dot_path),
        count(drawing.vertices().len(), "board"),
        count(drawing.edges().len(), "edge")
    );
    let timeout = std::time::Duration::from_secs(args.dot_timeout);
    if render_png(&dot_path, &png_path, timeout)? {
        println!("wrote {}", super::shown(&png_path));
    } else {
        let older = if png_path.exists() {
            format!(
                " ({} is an older drawing, left as it was)",
                super::shown(&png_path)
            )
        } else {
            String::new()
        };
        println!(
            "note: no PNG written: Graphviz's dot is not installed{older}; install it (Debian: \
             apt-get install graphviz), then draw it with: dot -Tpng {} -o {}",
            super::shown(&dot_path),
            super::shown(&png_path)
        );
    }
    Ok(())
}

/// `1 edge`, `24 edges`.
fn count(n: usize, noun: &str) -> String {
    format!(
        "{} {noun}{}",
        HumanCount(n as u64),
        if n == 1 { "" } else { "s" }
    )
}

/// `path` as a command-line operand that no program can read as an option: a relative path
/// starting with `-` gets a `./` prefix (`-Tsvg/x.dot` becomes `./-Tsvg/x.dot`).
fn as_operand(path: &Path) -> std::path::PathBuf {
    if path.as_os_str().as_encoded_bytes().starts_with(b"-") {
        Path::new(".").join(path)
    } else {
        path.to_path_buf()
    }
}

/// Renders `dot_path` to `png_path` (atomically) with Graphviz's `dot`; `Ok(false)` when `dot`
/// is not installed. `dot` runs in a process group of its own and has `timeout` for all of
/// it: running, and closing its output (a child it leaves behind may hold the pipes open).
/// Past that the whole group is killed: an error.
fn render_png(dot_path: &Path, png_path: &Path, timeout: Duration) -> Result<bool, CliError> {
    let deadline = std::time::Instant::now() + timeout;
    let mut command = Command::new("dot");
    command
        .arg("-Tpng")
        .arg(as_operand(dot_path))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(CliError::runtime(format!("cannot run Graphviz's dot: {e}"))),
    };
    // Both pipes drained while dot runs (a full pipe would stall it), each on a thread that
    // sends what it read when the pipe closes.
    let (sent, received) = std::sync::mpsc::channel::<(bool, Vec<u8>)>();
    let drain = |pipe: Option<Box<dyn Read + Send>>, is_stdout: bool| {
        let sent = sent.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            let _ = sent.send((is_stdout, bytes));
        });
    };
    drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        true,
    );
    drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        false,
    );
    let late = |child: &mut std::process::Child| {
        // The whole group: dot and whatever it started.
        #[cfg(unix)]
        if let Ok(group) = libc::pid_t::try_from(child.id()) {
            // SAFETY: sends a signal to the process group dot leads; no memory is touched.
            unsafe { libc::kill(-group, libc::SIGKILL) };
        }
        let _ = child.kill();
        let _ = child.wait();
        CliError::runtime(format!(
            "Graphviz's dot did not finish rendering {} within {} s (stopped; \
             --dot-timeout gives it longer)",
            dot_path.display(),
            timeout.as_secs()
        ))
    };
    let status = match child.wait_timeout(timeout) {
        Ok(Some(status)) => status,
        Ok(None) | Err(_) => return Err(late(&mut child)),
    };
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    for _ in 0..2 {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match received.recv_timeout(left) {
            Ok((true, bytes)) => stdout = bytes,
            Ok((false, bytes)) => stderr = bytes,
            Err(_) => return Err(late(&mut child)),
        }
    }
    let output = std::process::Output {
        status,
        stdout,
        stderr,
    };
    if !output.status.success() || output.stdout.is_empty() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let reason = stderr.lines().next().unwrap_or("no output");
        return Err(CliError::runtime(format!(
            "Graphviz's dot failed on {} ({}): {reason}",
            dot_path.display(),
            output.status
        )));
    }
    export::write_atomically(png_path, |out| out.write_all(&output.stdout))
        .map_err(CliError::runtime)?;
    Ok(true)
}
