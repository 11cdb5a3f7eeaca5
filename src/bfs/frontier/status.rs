//! How a long layer is watched: the search's place within it (the scatter, then the maps, in
//! segments and boards of layer `d`), a rate and an ETA, as one line for the progress bar and,
//! with a checkpoint folder, in the file `status.txt` there (rewritten whole, under a
//! temporary name then renamed, at most every [`EVERY`] and at every layer's end), which
//! `cat` or `ssh host cat` reads while the search runs. And the diagnostics an operator
//! sets in the environment: each layer's segment sizes written to a file
//! ([`SEGMENT_SIZES_VAR`]), a cut into as many segments as asked ([`SEGMENTS_VAR`]).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use indicatif::{DecimalBytes, HumanCount};

/// The least time between two writes of the status file (the issue asks for one a minute at
/// least).
pub const EVERY: Duration = Duration::from_secs(10);

/// Name of the status file in the checkpoint folder.
pub const STATUS_FILE: &str = "status.txt";

/// The environment variable naming a file to which the search appends, after each layer it
/// builds, the boards and bytes of each of this process's segments of it that holds boards:
/// CSV rows `depth,segment,boards,bytes` (no header). A diagnostic for how a layer spreads
/// over the segments (`scripts/balance.py` measures deals to processes from it); unset, nothing
/// is written.
pub const SEGMENT_SIZES_VAR: &str = "NPUZZLE_SEGMENT_SIZES";

/// The environment variable that, set to a count, cuts a search asked for the space's own
/// cut ([`super::FrontierConfig::segments`] 0) into that many segments instead (and so
/// `--plan`'s maps): a
/// diagnostic, to measure on one machine the cut a search across processes makes
/// ([`super::segments_for`]) with [`SEGMENT_SIZES_VAR`] and `scripts/balance.py`.
pub const SEGMENTS_VAR: &str = "NPUZZLE_SEGMENTS";

/// `segments`, or the count [`SEGMENTS_VAR`] holds when `segments` is 0 (the space's own
/// cut).
pub(super) fn segments_asked(segments: usize) -> usize {
    let asked = std::env::var(SEGMENTS_VAR).ok();
    match asked.and_then(|v| v.trim().parse().ok()) {
        Some(asked) if segments == 0 => asked,
        _ => segments,
    }
}

/// Appends layer `depth`'s segments to the file [`SEGMENT_SIZES_VAR`] names, if it names one.
///
/// # Errors
/// The file and what failed, when it cannot be opened or written.
pub(super) fn record_segments(
    depth: u32,
    layer: &super::store::Layer,
) -> Result<(), (PathBuf, std::io::Error)> {
    use std::io::Write as _;
    let Some(path) = std::env::var_os(SEGMENT_SIZES_VAR).map(PathBuf::from) else {
        return Ok(());
    };
    let bytes = layer.segment_bytes();
    let write = || -> std::io::Result<()> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?;
        let mut out = std::io::BufWriter::new(file);
        for (t, (&boards, &b)) in layer.counts.iter().zip(&bytes).enumerate() {
            if boards > 0 {
                writeln!(out, "{depth},{t},{boards},{b}")?;
            }
        }
        out.flush()
    };
    write().map_err(|e| (path.clone(), e))
}

/// Where a layer's build is: its phase and how far, in segments and boards of layer `d`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Place {
    /// `true` in the maps (the second pass), `false` in the scatter.
    pub maps: bool,
    /// Segments of this process done in the phase, of `segments`.
    pub done: usize,
    pub segments: usize,
    /// Boards of layer `d` whose segments are done in the phase, of `boards`.
    pub boards_done: u64,
    pub boards: u64,
}

/// The status of one process's search.
pub(super) struct Status {
    /// The file, with a checkpoint folder.
    path: Option<PathBuf>,
    /// `process P of N: ` across processes, else empty.
    who: String,
    /// When the layer being built started.
    started: Instant,
    /// The depth being built.
    depth: u32,
    last_write: Option<Instant>,
    /// When a message last went to or came from another process.
    last_exchange: Option<SystemTime>,
}

impl Status {
    /// The status of process `process` of `processes`, written into `dir` when given.
    pub(super) fn new(dir: Option<&Path>, process: usize, processes: usize) -> Status {
        Status {
            path: dir.map(|d| d.join(STATUS_FILE)),
            who: match processes {
                1 => String::new(),
                _ => format!("process {process} of {processes}: "),
            },
            started: Instant::now(),
            depth: 0,
            last_write: None,
            last_exchange: None,
        }
    }

    /// Layer `depth` starts being built.
    pub(super) fn start(&mut self, depth: u32) {
        self.depth = depth;
        self.started = Instant::now();
    }

    /// A message went to or came from another process.
    pub(super) fn exchanged(&mut self) {
        self.last_exchange = Some(SystemTime::now());
    }

    /// The line for `place`: the phase, the segments and boards done, the rate (boards of
    /// layer `d` a second, both phases counted as half the work each), and the time left in
    /// the layer once a hundredth of it is done and two seconds passed (before that, none: an
    /// ETA from the first segments is off by orders).
    pub(super) fn line(&self, place: Place, disk: Option<(u64, u64)>) -> String {
        let elapsed = self.started.elapsed().as_secs_f64();
        let half = place.boards.max(1) as f64;
        let fraction = (if place.maps { 0.5 } else { 0.0 }) + place.boards_done as f64 / half / 2.0;
        let rate = fraction * 2.0 * half / elapsed.max(1e-3) / 2.0;
        let left = if fraction >= 0.01 && elapsed >= 2.0 {
            let secs = elapsed * (1.0 - fraction) / fraction;
            format!(
                "about {} left in the layer",
                indicatif::HumanDuration(Duration::from_secs_f64(secs.min(1e9)))
            )
        } else {
            "estimating the time left".into()
        };
        let disk = disk.map_or(String::new(), |(used, free)| {
            format!(
                ", disk {} used, {} free",
                DecimalBytes(used),
                DecimalBytes(free)
            )
        });
        let exchange = self.last_exchange.map_or(String::new(), |t| {
            format!(", last exchange {}", humantime::format_rfc3339_seconds(t))
        });
        format!(
            "{}building depth {}: {} {} of {} segments ({} of {} boards of depth {}), {} \
             boards/s, {left}{disk}{exchange}",
            self.who,
            self.depth,
            if place.maps { "maps" } else { "scatter" },
            HumanCount(place.done as u64),
            HumanCount(place.segments as u64),
            HumanCount(place.boards_done),
            HumanCount(place.boards),
            self.depth.saturating_sub(1),
            HumanCount(rate as u64),
        )
    }

    /// Writes `line` to the status file (with one), stamped with the time, when `force` or
    /// [`EVERY`] passed since the last write. A failure to write is not the search's: the
    /// file is only for watching it.
    pub(super) fn write(&mut self, line: &str, force: bool) {
        let Some(path) = &self.path else { return };
        if !force && self.last_write.is_some_and(|t| t.elapsed() < EVERY) {
            return;
        }
        self.last_write = Some(Instant::now());
        let text = format!(
            "{} {line}\n",
            humantime::format_rfc3339_seconds(SystemTime::now())
        );
        let written = crate::durable::temp_beside(path).and_then(|mut tmp| {
            use std::io::Write;
            tmp.write_all(text.as_bytes())?;
            tmp.flush()?;
            crate::durable::commit(tmp, path)
        });
        let _ = written;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line says the phase, the segments and boards done and the process; no ETA before
    /// a hundredth of the layer is done; the file holds one line, the last written.
    #[test]
    fn the_status_line_and_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Status::new(Some(dir.path()), 1, 3);
        s.start(31);
        let place = Place {
            maps: false,
            done: 5,
            segments: 2730,
            boards_done: 1,
            boards: 1_000_000,
        };
        let line = s.line(place, Some((10, 20)));
        assert!(line.starts_with("process 1 of 3: building depth 31: scatter 5 of 2,730"));
        assert!(
            line.contains("(1 of 1,000,000 boards of depth 30)"),
            "{line}"
        );
        assert!(line.contains("estimating the time left"), "{line}");
        assert!(line.contains("disk 10 B used, 20 B free"), "{line}");
        s.write(&line, true);
        s.write("not written: too soon", false);
        let text = std::fs::read_to_string(dir.path().join(STATUS_FILE)).unwrap();
        assert_eq!(text.lines().count(), 1);
        assert!(text.ends_with(&format!("{line}\n")), "{text}");
        s.exchanged();
        assert!(s.line(place, None).contains(", last exchange 20"));
    }
}
