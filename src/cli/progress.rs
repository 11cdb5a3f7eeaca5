//! indicatif progress bars on stderr for the library's [`npuzzle::Progress`] callback.

use std::sync::Mutex;
use std::time::Duration;

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use npuzzle::Progress;

/// Draws one bar per task on stderr, only when stderr is a terminal and not `--quiet`. With
/// `NPUZZLE_PROGRESS=lines` (and not `--quiet`) every update is a plain line on stderr
/// instead, with the seconds since the start, for logs and benchmarks.
pub struct Bars {
    enabled: bool,
    bar: Mutex<Option<ProgressBar>>,
    lines: Option<(std::time::Instant, Mutex<String>)>,
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
        }
    }
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
            ProgressBar::new(total).with_style(
                ProgressStyle::with_template(&format!(
                    "{{prefix:>12}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} \
                     ({{rate}}/s, ETA {{eta}}) {{msg}}"
                ))
                .map(|style| {
                    // Whole units per second with thousands separators (indicatif's own
                    // {per_sec} prints four decimals).
                    style.with_key(
                        "rate",
                        |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                            let _ = write!(w, "{}", HumanCount(state.per_sec() as u64));
                        },
                    )
                })
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            )
        } else {
            ProgressBar::new_spinner()
        };
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

    fn end(&self) {
        if let Ok(mut slot) = self.bar.lock()
            && let Some(bar) = slot.take()
        {
            bar.finish_and_clear();
        }
    }
}
