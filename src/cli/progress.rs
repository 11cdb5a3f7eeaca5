//! indicatif progress bars on stderr for the library's [`npuzzle::Progress`] callback.

use std::sync::Mutex;
use std::time::Duration;

use indicatif::{
    HumanCount, HumanDuration, MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState,
    ProgressStyle,
};
use npuzzle::Progress;

/// Draws one bar per task on stderr, only when stderr is a terminal and not `--quiet`. With
/// `NPUZZLE_PROGRESS=lines` (and not `--quiet`) every update is a plain line on stderr
/// instead, with the seconds since the start, for logs and benchmarks (refreshes between
/// updates, [`Progress::refresh`], are drawn on bars only). Tasks that run at the
/// same time each report to their own [`Bars::sibling`], and their bars share the screen.
pub struct Bars {
    enabled: bool,
    bar: Mutex<Option<ProgressBar>>,
    lines: Option<(std::time::Instant, Mutex<String>)>,
    screen: MultiProgress,
}

impl Bars {
    /// Bars that draw when `enabled` and stderr is a terminal (never in pipes or CI).
    pub fn new(enabled: bool) -> Bars {
        let lines = (enabled && std::env::var("NPUZZLE_PROGRESS").is_ok_and(|v| v == "lines"))
            .then(|| (std::time::Instant::now(), Mutex::new(String::new())));
        let enabled = enabled && lines.is_none() && !ProgressDrawTarget::stderr().is_hidden();
        Bars {
            enabled,
            bar: Mutex::new(None),
            lines,
            screen: MultiProgress::new(),
        }
    }

    /// Bars for a task that runs beside this one's: drawn on the same screen, one line each.
    pub fn sibling(&self) -> Bars {
        Bars {
            enabled: self.enabled,
            bar: Mutex::new(None),
            lines: self
                .lines
                .as_ref()
                .map(|(start, _)| (*start, Mutex::new(String::new()))),
            screen: self.screen.clone(),
        }
    }
}

/// Least time a task has run before its bar shows an ETA: indicatif's estimate starts from a
/// handful of updates (15 minutes at the start of a 1.4 s run).
const ETA_AFTER: Duration = Duration::from_secs(1);
/// Least share of a task done before its bar shows an ETA (with [`ETA_AFTER`]).
const ETA_AFTER_FRACTION: f32 = 0.01;

/// A rate as a whole number of units per second with thousands separators (`4,158`), where
/// indicatif's own `{per_sec}` prints four decimals (`4,158.4025`).
fn rate_text(per_sec: f64) -> String {
    let rate = if per_sec.is_finite() && per_sec > 0.0 {
        per_sec.round() as u64
    } else {
        0
    };
    HumanCount(rate).to_string()
}

/// The ETA part of a bar (`", ETA 12s"`), or nothing until the estimate means something: the
/// task has run [`ETA_AFTER`] and done [`ETA_AFTER_FRACTION`] of its total.
fn eta_text(elapsed: Duration, fraction: f32, eta: Duration) -> String {
    if elapsed < ETA_AFTER || fraction < ETA_AFTER_FRACTION {
        String::new()
    } else {
        format!(", ETA {:#}", HumanDuration(eta))
    }
}

/// The style of a bar with a known total in `unit`s: position, total, rate and (once it means
/// something) ETA, e.g. `  distances [=====>    ] 90,720/181,440 boards (4,158/s, ETA 2s)`.
fn bar_style(unit: &str) -> ProgressStyle {
    ProgressStyle::with_template(&format!(
        "{{prefix:>12}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} \
         ({{rate}}/s{{known_eta}}) {{msg}}"
    ))
    .map(|style| {
        style
            .with_key(
                "rate",
                |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&rate_text(state.per_sec()));
                },
            )
            .with_key(
                "known_eta",
                |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&eta_text(state.elapsed(), state.fraction(), state.eta()));
                },
            )
    })
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ")
}

/// The style of a task without a known total: its name, a spinner and the note.
fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template("{prefix:>12} {spinner} {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
}

impl Progress for Bars {
    fn begin(&self, task: &str, total: u64, unit: &str) {
        if let Some((_, name)) = &self.lines
            && let Ok(mut name) = name.lock()
        {
            *name = task.to_string();
        }
        if !self.enabled {
            return;
        }
        let bar = if total > 0 {
            ProgressBar::new(total).with_style(bar_style(unit))
        } else {
            ProgressBar::new_spinner().with_style(spinner_style())
        };
        let bar = self.screen.add(bar);
        bar.set_prefix(task.to_string());
        bar.enable_steady_tick(Duration::from_millis(200));
        if let Ok(mut slot) = self.bar.lock() {
            *slot = Some(bar);
        }
    }

    fn update(&self, done: u64, note: &str) {
        if let Some((start, name)) = &self.lines {
            let name = name.lock().map(|n| n.clone()).unwrap_or_default();
            eprintln!(
                "{:9.2} s  {name}  {done}  {note}",
                start.elapsed().as_secs_f64()
            );
        }
        if let Ok(slot) = self.bar.lock()
            && let Some(bar) = slot.as_ref()
        {
            bar.set_position(done);
            bar.set_message(note.to_string());
        }
    }

    fn refresh(&self, done: u64, note: &str) {
        // Drawn on the bar only: a log of lines (NPUZZLE_PROGRESS=lines) keeps the steps.
        if let Ok(slot) = self.bar.lock()
            && let Some(bar) = slot.as_ref()
        {
            bar.set_position(done);
            bar.set_message(note.to_string());
        }
    }

    fn end(&self) {
        if let Ok(mut slot) = self.bar.lock()
            && let Some(bar) = slot.take()
        {
            bar.finish_and_clear();
        }
    }

    fn note(&self, line: &str) {
        if self.lines.is_some() {
            eprintln!("{line}");
        } else if self.enabled {
            let _ = self.screen.println(line);
        }
    }

    fn warn(&self, message: &str) {
        // Printed above the bars (or plainly when they are off), never through them.
        let line = format!("warning: {message}");
        if self.enabled {
            let _ = self.screen.println(&line);
        } else {
            eprintln!("{line}");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use indicatif::TermLike;

    use super::*;

    /// A terminal that keeps what is written to it.
    #[derive(Debug, Default, Clone)]
    struct Screen(Arc<Mutex<Vec<String>>>);

    impl Screen {
        fn last(&self) -> String {
            let lines = self.0.lock().expect("lock");
            lines
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .cloned()
                .unwrap_or_default()
        }
    }

    impl TermLike for Screen {
        fn width(&self) -> u16 {
            200
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().expect("lock").push(s.to_string());
            Ok(())
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.write_line(s)
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A bar of `total` boards in the CLI's style drawing on a [`Screen`].
    fn bar_on_screen(total: u64) -> (ProgressBar, Screen) {
        let screen = Screen::default();
        let target = ProgressDrawTarget::term_like(Box::new(screen.clone()));
        let bar =
            ProgressBar::with_draw_target(Some(total), target).with_style(bar_style("boards"));
        bar.set_prefix("distances");
        (bar, screen)
    }

    /// The number printed before "/s" in `line`.
    fn rate_in(line: &str) -> &str {
        let end = line
            .find("/s")
            .unwrap_or_else(|| panic!("no rate in {line:?}"));
        let start = line[..end].rfind('(').expect("(") + 1;
        &line[start..end]
    }

    #[test]
    fn rates_are_whole_numbers() {
        assert_eq!(rate_text(4158.4025), "4,158");
        assert_eq!(rate_text(4158.5), "4,159");
        assert_eq!(rate_text(0.3), "0");
        assert_eq!(rate_text(f64::NAN), "0");
        assert_eq!(rate_text(f64::INFINITY), "0");
        assert_eq!(rate_text(12_345_678.9), "12,345,679");
    }

    #[test]
    fn the_eta_waits_for_a_second_and_a_percent() {
        let eta = Duration::from_secs(900);
        assert_eq!(eta_text(Duration::from_millis(100), 0.5, eta), "");
        assert_eq!(eta_text(Duration::from_secs(5), 0.005, eta), "");
        assert_eq!(eta_text(Duration::from_secs(1), 0.01, eta), ", ETA 15m");
        assert_eq!(
            eta_text(Duration::from_secs(2), 0.5, Duration::from_secs(3)),
            ", ETA 3s"
        );
    }

    /// At the start of a run the bar shows the rate as a whole number and no ETA; after a
    /// second, with more than 1% done, the ETA appears.
    #[test]
    fn the_bar_shows_a_whole_rate_and_a_late_eta() {
        let (bar, screen) = bar_on_screen(181_440);
        bar.set_position(1_000);
        bar.set_position(90_720);
        bar.force_draw();
        let line = screen.last();
        assert!(line.contains("90,720/181,440 boards"), "{line:?}");
        assert!(!line.contains("ETA"), "ETA shown at the start: {line:?}");
        let rate = rate_in(&line);
        assert!(
            !rate.is_empty() && rate.chars().all(|c| c.is_ascii_digit() || c == ','),
            "rate {rate:?} in {line:?}"
        );

        std::thread::sleep(ETA_AFTER + Duration::from_millis(100));
        bar.set_position(120_000);
        bar.force_draw();
        let line = screen.last();
        assert!(line.contains(", ETA "), "no ETA after a second: {line:?}");
        let rate = rate_in(&line);
        assert!(
            rate.chars().all(|c| c.is_ascii_digit() || c == ','),
            "rate {rate:?} in {line:?}"
        );
    }
}
