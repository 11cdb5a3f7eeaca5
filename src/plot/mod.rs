//! Charts of depth distributions, drawn to PNG or SVG files with [`plotters`].
//!
//! - [`write_depth_histogram`]: one board shape, the share of its solvable boards at each BFS
//!   depth as bars, with the hardest boards printed as small grids in a box on the chart.
//! - [`write_depth_comparison`]: several shapes on one chart, one coloured line each.
//!
//! Both draw a 1000x600 chart, a PNG or an SVG as the file's name says ([`ChartFormat`]), and
//! write it atomically (a temporary file in the target's folder, renamed over the target once
//! complete), and both are deterministic: the same input gives the same bytes. The PNG and the
//! SVG are drawn by the same code (generic over plotters' drawing backend), so they have the
//! same layout.
//!
//! Text is measured and laid out with the DejaVu fonts embedded in the binary
//! (`src/plot/DejaVuSans*.ttf`, licence in `src/plot/LICENSE-DejaVu.txt`), so no system font or
//! fontconfig is needed. On a PNG it is laid out by `text.rs` (fractional advances and kerning)
//! and rasterized with `ab_glyph`, not by plotters, whose glyph placement spaced letters
//! unevenly; on an SVG each text is a `<text>` element naming the font (`DejaVu Sans`, then the
//! viewer's sans-serif), at the place the same layout gives. plotters draws the shapes.
//!
//! Files:
//! - `mod.rs`: the public API (types, errors, the two `write_*` functions) and the input checks.
//! - `layout.rs`: what both charts share: sizes, colours, fonts, axes, box layout, atomic writes.
//! - `text.rs`: chart text measured, laid out, and rasterized (with `ab_glyph`) or written as
//!   SVG text.
//! - `histogram.rs`: the depth histogram, with its box of hardest boards.
//! - `comparison.rs`: the comparison chart, one coloured line per board shape.

mod comparison;
pub use comparison::Words;
mod histogram;
mod layout;
mod text;

use std::path::{Path, PathBuf};

use comparison::render_comparison;
use histogram::render_histogram;
use layout::{ensure_fonts, write_png_atomically, write_svg_atomically};

/// The file format of a chart, chosen by the file's extension ([`ChartFormat::of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartFormat {
    /// A 1000x600 RGB PNG.
    Png,
    /// A 1000x600 SVG (width and height in pixels, `viewBox="0 0 1000 600"`): the shapes as
    /// SVG elements and every text as a `<text>` element (selectable, scalable) in the font
    /// family `DejaVu Sans, sans-serif` (the grids of boards in `DejaVu Sans Mono,
    /// monospace`), laid out as on the PNG.
    Svg,
}

impl ChartFormat {
    /// The format of a chart file named `path`: [`ChartFormat::Png`] for a `.png` extension,
    /// [`ChartFormat::Svg`] for `.svg` (in any case), `None` for any other or none.
    pub fn of(path: &Path) -> Option<ChartFormat> {
        let extension = path.extension()?.to_str()?;
        if extension.eq_ignore_ascii_case("png") {
            Some(ChartFormat::Png)
        } else if extension.eq_ignore_ascii_case("svg") {
            Some(ChartFormat::Svg)
        } else {
            None
        }
    }
}

/// The y axis of a depth chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scale {
    /// Linear from 0: the histogram shows each depth's share (%) of the boards counted. A bar
    /// too small to see is drawn [`MIN_BAR_PX`] pixels tall, and the chart says so.
    #[default]
    Linear,
    /// Logarithmic, ticked at powers of ten: the histogram shows the number of boards at each
    /// depth, which suits layers that grow geometrically (a single board and millions on one
    /// chart); the comparison shows shares (%).
    Log,
}

impl Scale {
    /// The y axis a careful reader needs for these depth distributions (`series`, each
    /// `counts[d]` boards at depth `d`): [`Scale::Log`] when any is partial (its layers are
    /// still growing, geometrically) or when the counts of any series span more than three
    /// orders of magnitude (a linear axis would flatten its smallest depths into equal
    /// slivers: 3x3 holds 1 board at depth 0 and 24,047 at depth 24), else
    /// [`Scale::Linear`].
    pub fn auto<'a>(series: impl IntoIterator<Item = (&'a [u64], bool)>) -> Scale {
        let wide = |counts: &[u64]| {
            let positive = counts.iter().copied().filter(|&c| c > 0);
            let (least, most) = positive.fold((u64::MAX, 0), |(l, m), c| (l.min(c), m.max(c)));
            most > 0 && most / least > SPAN_FOR_LOG
        };
        if series
            .into_iter()
            .any(|(counts, partial)| partial || wide(counts))
        {
            Scale::Log
        } else {
            Scale::Linear
        }
    }
}

/// Counts spanning more than this ratio (largest over smallest positive) are drawn on a log
/// axis by default ([`Scale::auto`]).
pub const SPAN_FOR_LOG: u64 = 1000;

/// Least height of the bar of a depth with boards on a linear axis, in pixels: the last depths
/// hold a handful of boards out of millions, far less than a pixel, and would not show at all.
pub const MIN_BAR_PX: i32 = 3;

/// Data for the depth histogram of one board shape.
#[derive(Debug, Clone, Copy)]
pub struct DepthChart<'a> {
    /// Board name for the title, e.g. `"3x3"`.
    pub board: &'a str,
    /// The goal's label when it is not the standard goal (tiles in order, blank last), e.g.
    /// `Some("123495678")`: the title then gives the farthest boards from this goal instead of
    /// God's number (the radius from the standard goal), and the x axis names the goal.
    pub goal: Option<&'a str>,
    /// `counts[d]` = number of boards at BFS depth `d` from the goal, for `d = 0..=max depth`;
    /// the sum is the number of reachable (solvable) boards. Must not be empty or all zero.
    pub counts: &'a [u64],
    /// The hardest boards (antipodes), each as a grid string: rows separated by `'\n'`, numbers
    /// separated by spaces, the blank shown as `.`, e.g. `"8 6 7\n2 5 4\n3 . 1"`. Any number,
    /// including none; the chart prints the first six and writes "+ N more" for the rest.
    pub hardest: &'a [String],
    /// A depth-limited search that stopped at its limit (`analyze --max-depth`): the title
    /// says "partial, depths 0..D" instead of God's number, and `hardest` are the boards at
    /// the limit, not antipodes; the y axis counts the boards found, not the solvable ones.
    pub partial: bool,
    /// The y axis.
    pub scale: Scale,
}

/// One series for the comparison chart ([`write_depth_comparison`]).
#[derive(Debug, Clone, Copy)]
pub struct DepthSeries<'a> {
    /// Board name for the legend, e.g. `"2x3"`.
    pub board: &'a str,
    /// `counts[d]` = number of boards at BFS depth `d` from the goal, as in
    /// [`DepthChart::counts`]. Must not be empty or all zero.
    pub counts: &'a [u64],
    /// The goal's label when it is not the standard goal, as in [`DepthChart::goal`].
    pub goal: Option<&'a str>,
    /// A depth-limited search that stopped at its limit: drawn dashed, its legend saying
    /// "partial" and counting the boards found.
    pub partial: bool,
}

/// Errors from drawing a chart.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The input has nothing to draw: no series, an empty `counts`, or counts that are all zero.
    #[error("nothing to plot: {0}")]
    NoData(String),
    /// The embedded fonts could not be read or registered with plotters (should not happen).
    #[error("the embedded DejaVu font could not be loaded")]
    Font,
    /// Plotters failed to draw, or the PNG could not be encoded (the message is their error).
    #[error("could not draw {}: {message}", path.display())]
    Draw {
        /// The chart that was being drawn.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The chart could not be written: the folder does not exist or is not writable, or the
    /// final rename failed.
    #[error("could not write {}: {source}", path.display())]
    Io {
        /// The chart that was being written.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Draws a bar chart of the depth distribution to `path`, a 1000x600 SVG when `path` ends in
/// `.svg` ([`ChartFormat::of`]), else a 1000x600 RGB PNG.
///
/// The title gives the board, the number of solvable boards and God's number (the largest
/// depth, `counts.len() - 1`); with another goal ([`DepthChart::goal`]), the farthest boards
/// from it; for a partial run, the depths searched and the boards found. x is the depth (moves
/// from the goal, named when it is not the standard one); y is the share of the solvable boards
/// (of the boards found, for a partial run) in percent on a linear axis, or the number of
/// boards on a log axis ([`Scale`]). The hardest boards are printed as small grids in a box in
/// an upper corner of the plot (upper left unless the bars leave more room on the right),
/// labelled "hardest boards (N moves)", with "+ N more" counting the rest of the last depth;
/// the box is left out when `hardest` is empty. On a linear axis every depth with boards has a
/// bar at least [`MIN_BAR_PX`] pixels tall, however small its share, and a note under the plot
/// says so when a bar was raised; the x axis labels the last depth; the count of the last
/// depth, when its bar is too small to read, is written centred above it with a leader line
/// down to it.
///
/// The chart is drawn in memory, written to a temporary file in the folder of `path` and then
/// renamed over `path`, so `path` is either left as it was or holds the complete new chart.
/// Same input, same bytes. The SVG has the PNG's layout, its texts as `<text>` elements.
///
/// # Errors
/// [`PlotError::NoData`] if `counts` is empty or all zero; [`PlotError::Io`] if the folder of
/// `path` does not exist or is not writable; [`PlotError::Draw`] if plotters fails.
pub fn write_depth_histogram(chart: &DepthChart, path: &Path) -> Result<(), PlotError> {
    let total = checked_total(chart.board, chart.counts)?;
    ensure_fonts()?;
    match ChartFormat::of(path) {
        Some(ChartFormat::Svg) => {
            write_svg_atomically(path, |root| render_histogram(chart, total, root).map(drop))
        }
        _ => write_png_atomically(path, |root| render_histogram(chart, total, root).map(drop)),
    }
}

/// Draws the depth distributions of several boards on one chart to `path`, a 1000x600 SVG when
/// `path` ends in `.svg` ([`ChartFormat::of`]), else a 1000x600 RGB PNG.
///
/// Each series is normalized to shares (%) of its solvable boards, or, when any series is
/// partial, drawn as counts (a partial run's shares of the few boards it found would tower
/// over the others), as a line with markers, one colour per board (in the order given), dashed
/// for a partial run, with a legend giving each board's goal when it is not the standard one,
/// its number of boards and largest depth, and "partial" where it is. x = depth, y = share (%)
/// or boards on a linear or log axis ([`Scale`]) that ends near the data (at most 100 % for
/// shares); title "Depth distributions compared". Written atomically and deterministically
/// like [`write_depth_histogram`].
///
/// # Errors
/// [`PlotError::NoData`] if `series` is empty or any series has empty or all-zero counts;
/// [`PlotError::Io`] if the folder of `path` does not exist or is not writable;
/// [`PlotError::Draw`] if plotters fails.
pub fn write_depth_comparison(
    series: &[DepthSeries],
    scale: Scale,
    path: &Path,
) -> Result<(), PlotError> {
    write_comparison(series, scale, &Words::DEPTHS, path)
}

/// [`write_depth_comparison`] with other words: `words` gives the title, what each series
/// counts (the legend's and the y axis's "solvable boards") and the x axis title. Used for the
/// distance distributions by blank cell of `analyze --all-pairs` ([`crate::geometry`]).
///
/// # Errors
/// As [`write_depth_comparison`].
pub fn write_comparison(
    series: &[DepthSeries],
    scale: Scale,
    words: &Words,
    path: &Path,
) -> Result<(), PlotError> {
    if series.is_empty() {
        return Err(PlotError::NoData("no series to compare".to_string()));
    }
    let totals = series
        .iter()
        .map(|s| checked_total(s.board, s.counts))
        .collect::<Result<Vec<_>, _>>()?;
    ensure_fonts()?;
    match ChartFormat::of(path) {
        Some(ChartFormat::Svg) => write_svg_atomically(path, |root| {
            render_comparison(series, &totals, scale, words, root).map(drop)
        }),
        _ => write_png_atomically(path, |root| {
            render_comparison(series, &totals, scale, words, root).map(drop)
        }),
    }
}

// ----------------------------------------------------------------------------------------------
// Input checks.

/// The sum of `counts`, or [`PlotError::NoData`] if there is nothing to draw.
fn checked_total(board: &str, counts: &[u64]) -> Result<u64, PlotError> {
    if counts.is_empty() {
        return Err(PlotError::NoData(format!("{board}: no depth counts")));
    }
    let total = counts.iter().fold(0u64, |sum, &c| sum.saturating_add(c));
    if total == 0 {
        return Err(PlotError::NoData(format!(
            "{board}: all depth counts are zero"
        )));
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::histogram::{BAR, HistogramLayout, aligned_grid};
    use super::layout::{depth_ticks, linear_axis, pixel, render_rgb, render_svg};
    use super::*;
    use plotters::style::RGBColor;

    /// The published 3x3, 2x3, 2x4 and 2x5 depth counts (OEIS A089473, A090034, A090035,
    /// A090036; also output/examples/2x4, output/examples/2x5).
    use crate::published::{
        A089473 as COUNTS_3X3, A090034 as COUNTS_2X3, A090035 as COUNTS_2X4, A090036 as COUNTS_2X5,
    };

    /// The chart of `counts` as most tests draw it: a whole search (not depth-limited) toward
    /// the standard goal, on a linear scale.
    fn depth_chart<'a>(board: &'a str, counts: &'a [u64], hardest: &'a [String]) -> DepthChart<'a> {
        DepthChart {
            board,
            goal: None,
            counts,
            hardest,
            partial: false,
            scale: Scale::Linear,
        }
    }

    /// The series of `counts` as most tests compare it: a whole search toward the standard goal.
    fn depth_series<'a>(board: &'a str, counts: &'a [u64]) -> DepthSeries<'a> {
        DepthSeries {
            board,
            counts,
            goal: None,
            partial: false,
        }
    }

    /// The histogram of `counts` (with the 3x3 hardest boards) rendered in memory: its RGB
    /// pixels and layout.
    fn rendered(board: &str, counts: &[u64]) -> (Vec<u8>, HistogramLayout) {
        let hardest = hardest_3x3();
        let chart = depth_chart(board, counts, &hardest);
        let total = checked_total(board, counts).expect("counts");
        ensure_fonts().expect("fonts");
        render_rgb(|root| histogram::render_histogram(&chart, total, root)).expect("render")
    }

    fn is_dark(c: RGBColor) -> bool {
        u16::from(c.0) + u16::from(c.1) + u16::from(c.2) < 3 * 160
    }

    const SHAPES: [(&str, &[u64]); 4] = [
        ("2x3", &COUNTS_2X3),
        ("3x3", &COUNTS_3X3),
        ("2x4", &COUNTS_2X4),
        ("2x5", &COUNTS_2X5),
    ];

    /// Every depth with boards has a bar at least `MIN_BAR_PX` pixels tall in the picture,
    /// however small its share (3x3's depth 31: 2 boards of 181,440, a tenth of a pixel).
    #[test]
    fn every_depth_with_boards_has_a_visible_bar() {
        for (board, counts) in SHAPES {
            let (rgb, layout) = rendered(board, counts);
            assert_eq!(layout.bars.len(), counts.len());
            for (depth, bar) in layout.bars.iter().enumerate() {
                let [left, top, right, bottom] = bar.unwrap_or_else(|| panic!("{board} {depth}"));
                assert!(
                    bottom - top + 1 >= MIN_BAR_PX,
                    "{board} depth {depth}: {bar:?}"
                );
                let x = (left + right) / 2;
                let painted = (bottom - 40..=bottom)
                    .filter(|&y| pixel(&rgb, (x, y)) == BAR)
                    .count();
                assert!(
                    painted >= MIN_BAR_PX as usize,
                    "{board} depth {depth}: {painted} bar pixels"
                );
            }
        }
        // A depth without boards has no bar.
        let (_, layout) = rendered("zeros-inside", &[1, 0, 0, 5]);
        assert!(layout.bars[1].is_none() && layout.bars[3].is_some());
    }

    /// The last depth is labelled on the x axis: the tick is there and its number is drawn
    /// under the bar.
    #[test]
    fn the_last_depth_is_labelled() {
        for (board, counts) in SHAPES {
            let (rgb, layout) = rendered(board, counts);
            let last = counts.len() - 1;
            assert_eq!(layout.x_ticks.last(), Some(&(last as f64)), "{board}");
            let [left, _, right, bottom] = layout.bars[last].expect("last bar");
            let ink = (left..=right)
                .flat_map(|x| (bottom + 6..bottom + 22).map(move |y| (x, y)))
                .filter(|&p| is_dark(pixel(&rgb, p)))
                .count();
            assert!(
                ink > 10,
                "{board}: no label under depth {last} ({ink} dark pixels)"
            );
        }
    }

    /// The note with the count of the last depth is centred on the last bar, above it, not on
    /// the bar before it (it used to be pushed left, over 3x3's depth 30).
    #[test]
    fn the_last_count_is_written_above_the_last_bar() {
        for (board, counts, text) in [
            ("3x3", &COUNTS_3X3[..], "2 boards"),
            ("2x4", &COUNTS_2X4[..], "1 board"),
            ("2x5", &COUNTS_2X5[..], "2 boards"),
        ] {
            let (rgb, layout) = rendered(board, counts);
            let (note, [left, top, right, bottom]) = layout.note.clone().expect("a note");
            assert_eq!(note, text);
            let last = counts.len() - 1;
            let [bar_left, bar_top, bar_right, _] = layout.bars[last].expect("last bar");
            let [_, _, before_right, _] = layout.bars[last - 1].expect("bar before");
            let centre = (left + right) / 2;
            assert!(
                (bar_left..=bar_right).contains(&centre) && centre > before_right,
                "{board}: note {left}..{right} centred at {centre}, last bar {bar_left}..{bar_right}"
            );
            assert!(
                bottom < bar_top,
                "{board}: note {top}..{bottom}, bar top {bar_top}"
            );
            assert!(right < 1000, "{board}: note leaves the picture ({right})");
            let ink = (left..=right)
                .flat_map(|x| (top..=bottom).map(move |y| (x, y)))
                .filter(|&p| pixel(&rgb, p) != RGBColor(255, 255, 255))
                .count();
            assert!(ink > 50, "{board}: the note is not drawn ({ink} pixels)");
        }
        // No note when the last bar is tall enough to read.
        let (_, layout) = rendered("2x3", &COUNTS_2X3);
        assert!(layout.note.is_none());
    }

    /// 4x4 depth counts to depth 20 (OEIS A089484): a partial run's.
    use crate::published::A089484_TO_20 as COUNTS_4X4_D20;

    /// `chart` rendered in memory: its RGB pixels and layout.
    fn render_chart(chart: &DepthChart) -> (Vec<u8>, HistogramLayout) {
        let total = checked_total(chart.board, chart.counts).expect("counts");
        ensure_fonts().expect("fonts");
        render_rgb(|root| histogram::render_histogram(chart, total, root)).expect("render")
    }

    /// Issue 20: a partial run's chart names its figures for what they are (the boards found,
    /// not the solvable boards; no God's number), on either scale, and "+ N more" counts the
    /// rest of the last depth, not the rest of the boards listed in hardest.txt.
    #[test]
    fn partial_charts_name_the_boards_found() {
        let listed: Vec<String> = (0..1000)
            .map(|_| "1 2 3 4\n5 6 7 8\n9 10 . 11\n12 13 15 14".to_string())
            .collect();
        for (scale, y_title) in [
            (Scale::Linear, "share of the boards found (%)"),
            (Scale::Log, "boards at each depth, log scale"),
        ] {
            let chart = DepthChart {
                partial: true,
                scale,
                ..depth_chart("4x4", &COUNTS_4X4_D20, &listed)
            };
            let (_, layout) = render_chart(&chart);
            let texts = &layout.texts;
            // Some of depth 20's 1,637,381 boards are drawn (as many as fit without raising
            // the axis far past the data: 4 on a linear axis, 2 on a log one), the rest counted.
            let more = match scale {
                Scale::Linear => "+ 1,637,377 more",
                Scale::Log => "+ 1,637,379 more",
            };
            assert!(texts.iter().any(|t| t == more), "{scale:?}: {texts:?}");
            for expected in [
                "4x4 sliding puzzle, partial: depths 0..20, 3,418,020 boards found",
                "depth (moves from the goal)",
                y_title,
                "boards at depth 20 (the search stopped there)",
            ] {
                assert!(
                    texts.iter().any(|t| t == expected),
                    "{scale:?} {expected:?}: {texts:?}"
                );
            }
            assert!(
                !texts
                    .iter()
                    .any(|t| t.contains("solvable") || t.contains("God")),
                "{texts:?}"
            );
        }
    }

    /// Issue 20: from another goal the chart names the goal and gives the farthest boards, not
    /// God's number (the radius from the standard goal).
    #[test]
    fn another_goal_is_named_and_not_called_gods_number() {
        let hardest = hardest_3x3();
        let chart = DepthChart {
            goal: Some("123495678"),
            ..depth_chart("3x3", &COUNTS_3X3, &hardest)
        };
        let (_, layout) = render_chart(&chart);
        let texts = &layout.texts;
        assert_eq!(
            texts[..2],
            [
                "3x3 sliding puzzle: 181,440 solvable boards, farthest boards 31 moves from this goal",
                "depth (moves from the goal 123495678)"
            ]
        );
        assert!(!texts.iter().any(|t| t.contains("God")), "{texts:?}");
        let (_, standard) = render_chart(&DepthChart {
            goal: None,
            ..chart
        });
        assert_eq!(
            standard.texts[0],
            "3x3 sliding puzzle: 181,440 solvable boards, God's number 31"
        );
    }

    /// Issue 20: on a log axis a bar's height follows its count (depth 0's single board is
    /// lower than depth 9's 946 boards, unlike the minimum height of a linear axis), and no
    /// bar is raised; on a linear axis the chart says when bars were raised to the minimum.
    #[test]
    fn log_bars_follow_their_counts_and_raised_bars_are_said() {
        for counts in [&COUNTS_4X4_D20[..], &COUNTS_3X3, &COUNTS_2X5] {
            let chart = DepthChart {
                partial: true,
                scale: Scale::Log,
                ..depth_chart("4x4", counts, &[])
            };
            let (_, layout) = render_chart(&chart);
            assert!(!layout.raised);
            let heights: Vec<i32> = layout
                .bars
                .iter()
                .map(|b| b.map_or(0, |[_, top, _, bottom]| bottom - top + 1))
                .collect();
            for (a, &ca) in counts.iter().enumerate() {
                for (b, &cb) in counts.iter().enumerate() {
                    if 2 * ca <= cb {
                        assert!(heights[a] < heights[b], "depths {a} < {b}: {heights:?}");
                    } else if ca <= cb {
                        assert!(heights[a] <= heights[b] + 1, "depths {a}, {b}: {heights:?}");
                    }
                }
            }
            assert!(heights[0] >= 10 && heights[0] < heights[9], "{heights:?}");
            let note = "bars shorter than 3 px are drawn 3 px tall";
            assert!(!layout.texts.iter().any(|t| t == note));
            let (_, linear) = render_chart(&DepthChart {
                scale: Scale::Linear,
                ..chart
            });
            assert!(linear.raised);
            assert!(linear.texts.iter().any(|t| t == note), "{:?}", linear.texts);
        }
        // 2x3's smallest share is 10 px tall: nothing raised, nothing said.
        let (_, layout) = rendered("2x3", &COUNTS_2X3);
        assert!(!layout.raised && !layout.texts.iter().any(|t| t.contains("px")));
    }

    /// Issue 20: `plot --compare` marks a partial run (dashed, "partial" and its boards found
    /// in the legend, a title that says what dashes mean, a y axis of each run's boards).
    #[test]
    fn comparison_marks_partial_runs() {
        let series = [
            depth_series("3x3", &COUNTS_3X3),
            DepthSeries {
                partial: true,
                ..depth_series("4x4", &COUNTS_4X4_D20)
            },
            DepthSeries {
                goal: Some("123495678"),
                ..depth_series("3x3", &COUNTS_3X3)
            },
        ];
        let totals: Vec<u64> = series.iter().map(|s| s.counts.iter().sum()).collect();
        ensure_fonts().expect("fonts");
        let (_, texts) = render_rgb(|root| {
            comparison::render_comparison(&series, &totals, Scale::Log, &Words::DEPTHS, root)
        })
        .expect("render");
        assert_eq!(
            texts.title,
            "Depth distributions compared (dashed: partial runs)"
        );
        // Issue 50: with a partial run, counts rather than each run's own shares.
        assert_eq!(texts.y_title, "boards at each depth, log scale");
        assert_eq!(
            texts.legend,
            [
                "3x3: 181,440 solvable boards, max depth 31",
                "4x4, partial: 3,418,020 boards found, depths 0..20",
                "3x3 from goal 123495678: 181,440 solvable boards, max depth 31",
            ]
        );
        let (_, texts) = render_rgb(|root| {
            comparison::render_comparison(
                &series[..1],
                &totals[..1],
                Scale::Linear,
                &Words::DEPTHS,
                root,
            )
        })
        .expect("render");
        assert_eq!(texts.title, "Depth distributions compared");
        assert_eq!(texts.y_title, "share of solvable boards (%)");
    }

    /// Issue 50: one style per axis: written out, or all as powers of ten (it mixed
    /// `1,000` with `10⁴` and `0.01` with `10⁻³`).
    #[test]
    fn power_of_ten_labels() {
        let label = super::layout::power_label;
        let plain: Vec<String> = (0..=6).map(|k| label(k, true)).collect();
        assert_eq!(
            plain,
            ["1", "10", "100", "1,000", "10,000", "100,000", "1,000,000"]
        );
        let powers: Vec<String> = (-3..=10).step_by(3).map(|k| label(k, false)).collect();
        assert_eq!(powers, ["10⁻³", "10⁰", "10³", "10⁶", "10⁹"]);
        // The axes: 3x3's counts (1 to 24,047) written out; 3x4's (to 2.2 x 10^7) and
        // shares down to 10^-3 % as powers.
        let axis = |values: &[f64]| {
            let map = super::layout::YMap::new(Scale::Log, values.iter().copied());
            let top = values.iter().map(|&v| map.pos(v)).fold(0.0, f64::max);
            map.axis(top, 0.0, "boards").labels
        };
        assert_eq!(
            axis(&[1.0, 24_047.0]),
            ["1", "10", "100", "1,000", "10,000"]
        );
        let wide = axis(&[1.0, 2.2e7]);
        assert!(
            wide.iter().all(|l| l.starts_with("10") && !l.contains(',')),
            "{wide:?}"
        );
        let shares = axis(&[0.001, 9.0]);
        assert_eq!(
            shares.first().map(String::as_str),
            Some("10⁻³"),
            "{shares:?}"
        );
    }

    /// Issue 50: a log axis ends within one and a half decades of the highest bar (the box
    /// of hardest boards shows fewer boards rather than stretch it: 3x4's went to 10^13 for
    /// counts up to 2.2 x 10^7), and still shows at least the count of the hardest boards.
    #[test]
    fn log_axes_end_near_the_data() {
        // Six boards: two rows in the box, as 3x4's 18 antipodes fill it.
        let hardest: Vec<String> = hardest_3x3().into_iter().cycle().take(6).collect();
        for (board, counts) in SHAPES {
            let chart = DepthChart {
                scale: Scale::Log,
                ..depth_chart(board, counts, &hardest)
            };
            let (_, layout) = render_chart(&chart);
            assert!(
                layout.headroom <= 1.5 + 1e-9,
                "{board}: {} decades above the data",
                layout.headroom
            );
            assert!(
                layout.texts.iter().any(|t| t.starts_with("hardest board")),
                "{board}: {:?}",
                layout.texts
            );
        }
    }

    /// Issue 50: the default scale is log where a linear axis would flatten the small depths
    /// (counts over more than three orders of magnitude) and for partial runs.
    #[test]
    fn the_default_scale_follows_the_data() {
        assert_eq!(Scale::auto([(&COUNTS_3X3[..], false)]), Scale::Log);
        assert_eq!(Scale::auto([(&COUNTS_2X3[..], false)]), Scale::Linear);
        assert_eq!(Scale::auto([(&COUNTS_2X3[..], true)]), Scale::Log);
        assert_eq!(
            Scale::auto([(&COUNTS_2X3[..], false), (&COUNTS_2X5[..], false)]),
            Scale::Log
        );
        assert_eq!(Scale::auto([(&[0, 5, 5000][..], false)]), Scale::Linear);
    }

    fn hardest_3x3() -> Vec<String> {
        vec![
            "8 6 7\n2 5 4\n3 . 1".to_string(),
            "6 4 7\n8 5 .\n3 2 1".to_string(),
        ]
    }

    fn is_png(path: &Path) -> bool {
        std::fs::read(path).is_ok_and(|b| b.starts_with(b"\x89PNG\r\n\x1a\n"))
    }

    #[test]
    fn ticks() {
        assert_eq!(depth_ticks(0, 1.0), vec![0.0]);
        assert_eq!(depth_ticks(16, 1.0).len(), 17);
        assert_eq!(depth_ticks(100, 1.0).len(), 11);
        assert_eq!(
            depth_ticks(80, 1.0),
            (0..=80).step_by(5).map(f64::from).collect::<Vec<_>>()
        );
        // The last depth is always a tick: added when its label fits after the last multiple
        // of the step, in its place otherwise.
        let ticks = depth_ticks(31, 1.0);
        assert_eq!((ticks.len(), ticks[15], ticks[16]), (17, 30.0, 31.0));
        let ticks = depth_ticks(31, 1.5);
        assert_eq!((ticks.len(), ticks[14], ticks[15]), (16, 28.0, 31.0));
        assert_eq!(
            depth_ticks(36, 1.5),
            [0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 36.0]
        );
        assert_eq!(depth_ticks(38, 1.5).last(), Some(&38.0));
        assert_eq!(depth_ticks(38, 1.5).len(), 9);
        let (top, ticks, decimals) = linear_axis(14.3);
        assert_eq!((top, ticks.len(), decimals), (16.0, 9, 0));
        let (top, _, decimals) = linear_axis(0.7);
        assert!((top - 0.7).abs() < 1e-9 && decimals == 1);
    }

    #[test]
    fn grids_are_aligned() {
        assert_eq!(
            aligned_grid("8 6 7\n2 5 4\n3 . 1"),
            ["8 6 7", "2 5 4", "3 . 1"]
        );
        assert_eq!(aligned_grid("10 1\n. 2"), ["10  1", " .  2"]);
    }

    #[test]
    fn histogram_is_a_deterministic_png() {
        let dir = tempfile::tempdir().expect("tempdir");
        let hardest = hardest_3x3();
        let chart = depth_chart("3x3", &COUNTS_3X3, &hardest);
        let (a, b) = (dir.path().join("a.png"), dir.path().join("b.png"));
        write_depth_histogram(&chart, &a).expect("first render");
        write_depth_histogram(&chart, &b).expect("second render");
        assert!(is_png(&a));
        let (a, b) = (
            std::fs::read(&a).expect("read a"),
            std::fs::read(&b).expect("read b"),
        );
        assert_eq!(a, b, "two renders of the same data differ");
        // Only the two charts are left in the folder: the temporary files were renamed.
        assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 2);
    }

    /// An SVG's `<text>` elements: (text, with no-break spaces as spaces; attributes).
    fn svg_texts(svg: &str) -> Vec<(String, std::collections::HashMap<String, String>)> {
        let doc = roxmltree::Document::parse(svg).expect("well-formed XML");
        doc.descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| {
                // plotters writes each text on a line of its own.
                let text = n
                    .text()
                    .unwrap_or("")
                    .trim_matches('\n')
                    .replace('\u{a0}', " ");
                let attributes = n
                    .attributes()
                    .map(|a| (a.name().to_string(), a.value().to_string()))
                    .collect();
                (text, attributes)
            })
            .collect()
    }

    /// The `<text>` element reading `text`, the only one.
    fn svg_text<'a>(
        texts: &'a [(String, std::collections::HashMap<String, String>)],
        text: &str,
    ) -> &'a std::collections::HashMap<String, String> {
        svg_text_anchored(texts, text, None)
    }

    /// The `<text>` element reading `text`, the only one with `anchor` as its `text-anchor`
    /// (any, for `None`).
    fn svg_text_anchored<'a>(
        texts: &'a [(String, std::collections::HashMap<String, String>)],
        text: &str,
        anchor: Option<&str>,
    ) -> &'a std::collections::HashMap<String, String> {
        let found: Vec<_> = texts
            .iter()
            .filter(|(t, a)| {
                t == text
                    && anchor.is_none_or(|h| a.get("text-anchor").map(String::as_str) == Some(h))
            })
            .collect();
        assert_eq!(found.len(), 1, "{text:?} {anchor:?} in {texts:?}");
        &found[0].1
    }

    /// The SVG of a histogram has the PNG's layout (the same bars, pixel for pixel; the
    /// labels at the same places) and its words as `<text>` elements, not as drawn pixels.
    #[test]
    fn svg_histogram_has_the_png_layout_with_text_as_text() {
        let hardest = ["10 1 2\n. 3 4".to_string()];
        let chart = depth_chart("2x3", &COUNTS_2X3, &hardest);
        let (_, png) = render_chart(&chart);
        ensure_fonts().expect("fonts");
        let (svg, layout) =
            render_svg(|root| histogram::render_histogram(&chart, 360, root)).expect("render");
        let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
        let root = doc.root_element();
        assert_eq!(
            (
                root.tag_name().name(),
                root.attribute("width"),
                root.attribute("height")
            ),
            ("svg", Some("1000"), Some("600"))
        );
        // The bars: 22 rectangles in the bars' colour, where the PNG has its bars.
        let bars: Vec<[i32; 4]> = doc
            .descendants()
            .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some("#4C78A8"))
            .map(|n| {
                let a = |k| {
                    n.attribute(k)
                        .expect("attribute")
                        .parse::<i32>()
                        .expect("i32")
                };
                let (x, y) = (a("x"), a("y"));
                [x, y, x + a("width") - 1, y + a("height") - 1]
            })
            .collect();
        let expected: Vec<[i32; 4]> = png.bars.iter().map(|b| b.expect("a bar")).collect();
        assert_eq!(bars, expected);
        assert_eq!(layout.bars, png.bars);
        // No text drawn as pixels (plotters' SVG backend writes a pixel as a 1x1 rectangle).
        assert!(!svg.contains(r#"width="1" height="1""#));

        let texts = svg_texts(&svg);
        assert!(texts.iter().all(|(t, _)| !t.is_empty()), "{texts:?}");
        let title = svg_text(
            &texts,
            "2x3 sliding puzzle: 360 solvable boards, God's number 21",
        );
        assert_eq!(title["font-family"], "DejaVu Sans, sans-serif");
        // 24 px from descender to ascender: DejaVu's em is 2048 of its 2384 units.
        assert_eq!(title["font-size"], "20.62");
        assert_eq!(
            (title["x"].as_str(), title["text-anchor"].as_str()),
            ("500", "middle")
        );
        svg_text(&texts, "depth (moves from the goal)");
        let y_title = svg_text(&texts, "share of solvable boards (%)");
        assert!(
            y_title["transform"].starts_with("rotate(270, "),
            "{y_title:?}"
        );
        // Depths 0, 2, ..., 20 and the last, 21, each centred under its bar.
        let depths: Vec<String> = (0..=20)
            .step_by(2)
            .chain([21])
            .map(|d| d.to_string())
            .collect();
        for depth in &depths {
            let label = svg_text_anchored(&texts, depth, Some("middle"));
            let [left, _, right, bottom] = png.bars[depth.parse::<usize>().unwrap()].unwrap();
            let x: i32 = label["x"].parse().unwrap();
            let y: i32 = label["y"].parse().unwrap();
            assert!(
                (x - (left + right + 1) / 2).abs() <= 1,
                "{depth}: {x} {left}..{right}"
            );
            // The label's box 6 px under the plot (8 under the bars' last row), its baseline
            // 12 px lower as on the PNG (round(ascent) at 15 px): plotters puts it 0.76 em
            // (9.8 px) under the anchor, so the anchor is 2 px under the box's top.
            assert_eq!(y, bottom + 10, "{depth}");
        }
        // Shares up to 12.2 %: the y axis ticks every 2 %, right-aligned left of the plot.
        for share in ["0", "2", "4", "6", "8", "10", "12", "14"] {
            svg_text_anchored(&texts, share, Some("end"));
        }
        // The box of the hardest board: its header, its grid in the monospaced font with its
        // columns kept (no-break spaces where a viewer would merge spaces).
        svg_text(&texts, "hardest board (21 moves)");
        let row = svg_text(&texts, " .  3  4");
        assert_eq!(row["font-family"], "DejaVu Sans Mono, monospace");
        assert!(svg.contains(">\n\u{a0}. \u{a0}3 \u{a0}4\n</text>"), "{svg}");
        svg_text(&texts, "10  1  2");
    }

    #[test]
    fn svg_keeps_the_spaces_of_aligned_columns() {
        use super::text::kept_spaces;
        assert_eq!(kept_spaces("8 6 7"), "8 6 7");
        assert_eq!(kept_spaces("10  1"), "10 \u{a0}1");
        assert_eq!(kept_spaces(" .  2"), "\u{a0}. \u{a0}2");
        assert_eq!(kept_spaces("a "), "a\u{a0}");
        assert_eq!(kept_spaces(""), "");
    }

    #[test]
    fn chart_formats_follow_the_extension() {
        for (name, format) in [
            ("a.png", Some(ChartFormat::Png)),
            ("dir/a.PNG", Some(ChartFormat::Png)),
            ("a.svg", Some(ChartFormat::Svg)),
            ("a.Svg", Some(ChartFormat::Svg)),
            ("a.pdf", None),
            ("a", None),
            ("svg", None),
            ("a.svg.tmp", None),
        ] {
            assert_eq!(ChartFormat::of(Path::new(name)), format, "{name}");
        }
    }

    /// `.svg` files are SVG documents, written atomically, the same bytes every time; the
    /// comparison chart's legend is text too.
    #[test]
    fn svg_files_are_deterministic() {
        let dir = tempfile::tempdir().expect("tempdir");
        let hardest = hardest_3x3();
        let chart = DepthChart {
            scale: Scale::Log,
            ..depth_chart("3x3", &COUNTS_3X3, &hardest)
        };
        let (a, b) = (dir.path().join("a.svg"), dir.path().join("b.SVG"));
        write_depth_histogram(&chart, &a).expect("first render");
        write_depth_histogram(&chart, &b).expect("second render");
        let (a, b) = (
            std::fs::read_to_string(&a).expect("read a"),
            std::fs::read_to_string(&b).expect("read b"),
        );
        assert!(a.starts_with("<svg "), "{}", &a[..40]);
        assert_eq!(a, b, "two renders of the same data differ");
        let texts = svg_texts(&a);
        svg_text(&texts, "boards at each depth, log scale");
        for count in ["1", "10", "100", "1,000", "10,000"] {
            svg_text_anchored(&texts, count, Some("end"));
        }
        let series = [
            depth_series("2x3", &COUNTS_2X3),
            depth_series("3x3", &COUNTS_3X3),
        ];
        let c = dir.path().join("c.svg");
        write_depth_comparison(&series, Scale::Log, &c).expect("comparison");
        let svg = std::fs::read_to_string(&c).expect("read c");
        let texts = svg_texts(&svg);
        svg_text(&texts, "Depth distributions compared");
        svg_text(&texts, "2x3: 360 solvable boards, max depth 21");
        svg_text(&texts, "3x3: 181,440 solvable boards, max depth 31");
        // Only the three charts are left in the folder: the temporary files were renamed.
        assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 3);
        // A comparison of the same series in a PNG is still a PNG.
        let png = dir.path().join("c.png");
        write_depth_comparison(&series, Scale::Log, &png).expect("png");
        assert!(is_png(&png));
    }

    #[test]
    fn histogram_overwrites_an_existing_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("chart.png");
        std::fs::write(&path, b"old").expect("write");
        let chart = depth_chart("3x3", &COUNTS_3X3, &[]);
        write_depth_histogram(&chart, &path).expect("render");
        assert!(is_png(&path));
    }

    #[test]
    fn histogram_edge_cases() {
        let dir = tempfile::tempdir().expect("tempdir");
        let many_counts: Vec<u64> = (0..81u64).map(|d| 1 + d * (80 - d)).collect();
        let many_boards: Vec<String> = (0..18)
            .map(|i| format!("{} 1 2 3\n4 5 6 7\n8 9 10 .", i + 11))
            .collect();
        let cases: [(&str, &[u64], &[String]); 5] = [
            ("single", &[1], &[]),
            ("two", &[1, 1], &many_boards[..1]),
            ("many-depths", &many_counts, &many_boards[..2]),
            ("many-boards", &COUNTS_3X3, &many_boards),
            ("zeros-inside", &[1, 0, 0, 5], &many_boards[..3]),
        ];
        for (name, counts, hardest) in cases {
            let path = dir.path().join(format!("{name}.png"));
            let chart = depth_chart(name, counts, hardest);
            write_depth_histogram(&chart, &path).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(is_png(&path), "{name}");
        }
    }

    #[test]
    fn histogram_errors() {
        let dir = tempfile::tempdir().expect("tempdir");
        let empty = depth_chart("3x3", &[], &[]);
        let err = write_depth_histogram(&empty, &dir.path().join("e.png"));
        assert!(matches!(err, Err(PlotError::NoData(_))), "{err:?}");
        let zeros = DepthChart {
            counts: &[0, 0],
            ..empty
        };
        assert!(matches!(
            write_depth_histogram(&zeros, &dir.path().join("z.png")),
            Err(PlotError::NoData(_))
        ));

        let chart = DepthChart {
            counts: &COUNTS_3X3,
            ..empty
        };
        let missing = dir.path().join("no-such-folder").join("chart.png");
        match write_depth_histogram(&chart, &missing) {
            Err(e @ PlotError::Io { .. }) => {
                assert!(e.to_string().contains("no-such-folder"), "{e}");
            }
            other => panic!("expected an I/O error, got {other:?}"),
        }
        // A directory in the way of the target: the rename fails, no temporary file is left.
        let in_the_way = dir.path().join("taken.png");
        std::fs::create_dir(&in_the_way).expect("mkdir");
        assert!(write_depth_histogram(&chart, &in_the_way).is_err());
        assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 1);
    }

    #[test]
    fn comparison_is_a_deterministic_png() {
        let dir = tempfile::tempdir().expect("tempdir");
        let series = [
            depth_series("2x3", &COUNTS_2X3),
            depth_series("3x3", &COUNTS_3X3),
        ];
        let (a, b) = (dir.path().join("a.png"), dir.path().join("b.png"));
        write_depth_comparison(&series, Scale::Linear, &a).expect("first render");
        write_depth_comparison(&series, Scale::Linear, &b).expect("second render");
        assert!(is_png(&a));
        assert_eq!(std::fs::read(&a).expect("a"), std::fs::read(&b).expect("b"));
        let one = [depth_series("1x2", &[1])];
        write_depth_comparison(&one, Scale::Linear, &a).expect("single point");
    }

    #[test]
    fn comparison_errors() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("c.png");
        assert!(matches!(
            write_depth_comparison(&[], Scale::Linear, &path),
            Err(PlotError::NoData(_))
        ));
        let series = [depth_series("2x3", &COUNTS_2X3), depth_series("bad", &[])];
        assert!(matches!(
            write_depth_comparison(&series, Scale::Linear, &path),
            Err(PlotError::NoData(_))
        ));
        let missing = dir.path().join("nope").join("c.png");
        assert!(matches!(
            write_depth_comparison(&series[..1], Scale::Linear, &missing),
            Err(PlotError::Io { .. })
        ));
    }

    /// Writes the sample charts to `$NPUZZLE_PLOT_DIR` (default: the temp folder) and reports
    /// how long the 3x3 histogram takes. Run with `cargo test --release -- --ignored
    /// --nocapture sample_charts`.
    #[test]
    #[ignore = "writes sample charts outside a temporary folder; for looking at them"]
    fn sample_charts() {
        let dir =
            std::env::var_os("NPUZZLE_PLOT_DIR").map_or_else(std::env::temp_dir, PathBuf::from);
        let hardest = hardest_3x3();
        let chart = depth_chart("3x3", &COUNTS_3X3, &hardest);
        let path = dir.join("plot-3x3.png");
        let start = std::time::Instant::now();
        write_depth_histogram(&chart, &path).expect("first render");
        eprintln!(
            "write_depth_histogram (3x3), first call: {:.2} ms",
            start.elapsed().as_secs_f64() * 1000.0
        );
        let runs = 20;
        let start = std::time::Instant::now();
        for _ in 0..runs {
            write_depth_histogram(&chart, &path).expect("render");
        }
        eprintln!(
            "write_depth_histogram (3x3), later calls: {:.2} ms per chart",
            start.elapsed().as_secs_f64() * 1000.0 / f64::from(runs)
        );
        let series = [
            depth_series("2x3", &COUNTS_2X3),
            depth_series("3x3", &COUNTS_3X3),
        ];
        write_depth_comparison(&series, Scale::Linear, &dir.join("plot-compare.png"))
            .expect("comparison");

        // Shapes of other charts: many depths and many hardest boards, a single depth.
        let many_counts: Vec<u64> = (0..81u64).map(|d| 1 + d * d * (80 - d)).collect();
        let many_boards: Vec<String> = (0..18)
            .map(|i| format!("{} 1 2 3\n4 5 6 7\n8 9 10 .", i + 11))
            .collect();
        let edge = depth_chart("2x6 (made up)", &many_counts, &many_boards);
        write_depth_histogram(&edge, &dir.join("plot-edge-many.png")).expect("many");
        let single = depth_chart("1x1", &[1], &many_boards[..1]);
        write_depth_histogram(&single, &dir.join("plot-edge-single.png")).expect("single");
    }
}
