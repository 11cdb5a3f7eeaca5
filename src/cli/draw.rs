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
        .join(format!("{shape}{}", super::metric_suffix(metric)));
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
/// is not installed. A `dot` that has not finished within `timeout` is killed: an error.
fn render_png(dot_path: &Path, png_path: &Path, timeout: Duration) -> Result<bool, CliError> {
    let mut child = match Command::new("dot")
        .arg("-Tpng")
        .arg(as_operand(dot_path))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(CliError::runtime(format!("cannot run Graphviz's dot: {e}"))),
    };
    // Both pipes drained while dot runs (a full pipe would stall it).
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let waited = child.wait_timeout(timeout);
    let status = match waited {
        Ok(Some(status)) => status,
        Ok(None) | Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(CliError::runtime(format!(
                "Graphviz's dot did not finish rendering {} within {} s (stopped; \
                 --dot-timeout gives it longer)",
                dot_path.display(),
                timeout.as_secs()
            )));
        }
    };
    let output = std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
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
