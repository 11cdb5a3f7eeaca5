//! Charts of depth distributions, drawn to PNG files with [`plotters`].
//!
//! - [`write_depth_histogram`]: one board shape, the share of its solvable boards at each BFS
//!   depth as bars, with the hardest boards printed as small grids in a box on the chart.
//! - [`write_depth_comparison`]: several shapes on one chart, one coloured line each.
//!
//! Both draw a 1000x600 RGB PNG and write it atomically (a temporary file in the target's folder,
//! renamed over the target once complete), and both are deterministic: the same input gives the
//! same bytes.
//!
//! Text is drawn with the DejaVu fonts embedded in the binary (`src/plot/DejaVuSans*.ttf`,
//! licence in `src/plot/LICENSE-DejaVu.txt`), registered with plotters under the family names
//! `sans-serif` and `monospace` the first time a chart is drawn, so no system font or fontconfig
//! is needed.

use std::error::Error as StdError;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use indicatif::HumanCount;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// Width of every chart, in pixels.
const WIDTH: u32 = 1000;
/// Height of every chart, in pixels.
const HEIGHT: u32 = 600;

const SANS: &str = "sans-serif";
const MONO: &str = "monospace";
static DEJAVU_SANS: &[u8] = include_bytes!("DejaVuSans.ttf");
static DEJAVU_SANS_MONO: &[u8] = include_bytes!("DejaVuSansMono.ttf");

const TITLE_PX: f64 = 24.0;
const AXIS_DESC_PX: f64 = 19.0;
const TICK_LABEL_PX: f64 = 15.0;
const BOX_HEADER_PX: f64 = 16.0;
const GRID_PX: f64 = 15.0;
const NOTE_PX: f64 = 14.0;

const TEXT: RGBColor = RGBColor(40, 40, 40);
const MUTED: RGBColor = RGBColor(100, 100, 100);
const AXIS: RGBColor = RGBColor(90, 90, 90);
const GRID: RGBColor = RGBColor(225, 225, 225);
const FRAME: RGBColor = RGBColor(190, 190, 190);
const BAR: RGBColor = RGBColor(76, 120, 168);
/// Line colours of the comparison chart (Tableau 10), reused in order when there are more series.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Most hardest boards printed on a histogram; the rest are counted as "+ N more".
const MAX_BOARDS_SHOWN: usize = 6;
/// Half the width of a bar, in depth units (bars are 0.8 wide, gaps 0.2).
const BAR_HALF_WIDTH: f64 = 0.4;
/// Radius of the markers of the comparison chart, in pixels.
const MARKER_PX: i32 = 4;
/// Distance of the boxes (hardest boards, legend) from the plot's edges, in pixels.
const INSET_PX: i32 = 12;
/// Padding inside the boxes, in pixels.
const PAD_PX: i32 = 10;

/// Data for the depth histogram of one board shape.
#[derive(Debug, Clone, Copy)]
pub struct DepthChart<'a> {
    /// Board name for the title, e.g. `"3x3"`.
    pub board: &'a str,
    /// `counts[d]` = number of boards at BFS depth `d` from the goal, for `d = 0..=max depth`;
    /// the sum is the number of reachable (solvable) boards. Must not be empty or all zero.
    pub counts: &'a [u64],
    /// The hardest boards (antipodes), each as a grid string: rows separated by `'\n'`, numbers
    /// separated by spaces, the blank shown as `.`, e.g. `"8 6 7\n2 5 4\n3 . 1"`. Any number,
    /// including none; the chart prints the first six and writes "+ N more" for the rest.
    pub hardest: &'a [String],
    /// A depth-limited search that stopped at its limit (`analyze --max-depth`): the title
    /// says "partial, depths 0..D" instead of God's number, and `hardest` are the boards at
    /// the limit, not antipodes.
    pub partial: bool,
}

/// One series for the comparison chart ([`write_depth_comparison`]).
#[derive(Debug, Clone, Copy)]
pub struct DepthSeries<'a> {
    /// Board name for the legend, e.g. `"2x3"`.
    pub board: &'a str,
    /// `counts[d]` = number of boards at BFS depth `d` from the goal, as in
    /// [`DepthChart::counts`]. Must not be empty or all zero.
    pub counts: &'a [u64],
}

/// Errors from drawing a chart.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The input has nothing to draw: no series, an empty `counts`, or counts that are all zero.
    #[error("nothing to plot: {0}")]
    NoData(String),
    /// The embedded font could not be registered with plotters (should not happen).
    #[error("the embedded DejaVu font could not be loaded")]
    Font,
    /// Plotters failed to draw or to encode the PNG (the message is plotters' error).
    #[error("could not draw {}: {message}", path.display())]
    Draw {
        /// The chart that was being drawn.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The PNG could not be written: the folder does not exist or is not writable, or the final
    /// rename failed.
    #[error("could not write {}: {source}", path.display())]
    Io {
        /// The chart that was being written.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Draws a bar chart of the share (%) of solvable boards at each depth to `path`, a 1000x600
/// RGB PNG.
///
/// The title gives the board, the number of solvable boards and God's number (the largest
/// depth, `counts.len() - 1`); x is the depth (moves from the goal), y the share of solvable
/// boards in percent. The hardest boards are printed as small grids in a box in an upper corner
/// of the plot (upper left unless the bars leave more room on the right), labelled "hardest
/// boards (N moves)"; the box is left out when `hardest` is empty. The count of the last bar,
/// usually too small to see, is written above it.
///
/// The PNG is rendered to a temporary file in the folder of `path` and then renamed over `path`,
/// so `path` is either left as it was or holds the complete new chart. Same input, same bytes.
///
/// # Errors
/// [`PlotError::NoData`] if `counts` is empty or all zero; [`PlotError::Io`] if the folder of
/// `path` does not exist or is not writable; [`PlotError::Draw`] if plotters fails.
pub fn write_depth_histogram(chart: &DepthChart, path: &Path) -> Result<(), PlotError> {
    let total = checked_total(chart.board, chart.counts)?;
    ensure_fonts()?;
    write_png_atomically(path, |file| render_histogram(chart, total, file))
}

/// Draws the depth distributions of several boards on one chart to `path`, a 1000x600 RGB PNG.
///
/// Each series is normalized to shares (%) of its own solvable boards and drawn as a line with
/// markers, one colour per board (in the order given), with a legend giving each board's number
/// of solvable boards and largest depth. x = depth, y = share (%); title "Depth distributions
/// compared". Written atomically and deterministically like [`write_depth_histogram`].
///
/// # Errors
/// [`PlotError::NoData`] if `series` is empty or any series has empty or all-zero counts;
/// [`PlotError::Io`] if the folder of `path` does not exist or is not writable;
/// [`PlotError::Draw`] if plotters fails.
pub fn write_depth_comparison(series: &[DepthSeries], path: &Path) -> Result<(), PlotError> {
    if series.is_empty() {
        return Err(PlotError::NoData("no series to compare".to_string()));
    }
    let totals = series
        .iter()
        .map(|s| checked_total(s.board, s.counts))
        .collect::<Result<Vec<_>, _>>()?;
    ensure_fonts()?;
    write_png_atomically(path, |file| render_comparison(series, &totals, file))
}

// ----------------------------------------------------------------------------------------------
// Input checks, fonts, files.

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

/// Registers the embedded fonts with plotters, once per process.
fn ensure_fonts() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(SANS, FontStyle::Normal, DEJAVU_SANS).is_ok()
            && plotters::style::register_font(MONO, FontStyle::Normal, DEJAVU_SANS_MONO).is_ok()
    });
    if ok { Ok(()) } else { Err(PlotError::Font) }
}

type DrawResult = Result<(), Box<dyn StdError>>;

/// A drawing area in pixels.
type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// The coordinates of both charts: depth and share, each with explicit ticks.
type Axes = Cartesian2d<TickedAxis, TickedAxis>;

/// A linear axis with ticks (and grid lines) exactly where we say.
///
/// plotters' own `WithKeyPoints` does the same but cannot be given a label formatter.
#[derive(Clone)]
struct TickedAxis {
    linear: RangedCoordf64,
    ticks: Vec<f64>,
}

impl TickedAxis {
    fn new(range: std::ops::Range<f64>, ticks: Vec<f64>) -> TickedAxis {
        TickedAxis {
            linear: range.into(),
            ticks,
        }
    }
}

impl Ranged for TickedAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;
    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.linear.map(value, limit)
    }
    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }
    fn range(&self) -> std::ops::Range<f64> {
        self.linear.range()
    }
}

/// Runs `render` on a fresh temporary `.png` file next to `path`, then renames it over `path`.
fn write_png_atomically(
    path: &Path,
    render: impl FnOnce(&Path) -> DrawResult,
) -> Result<(), PlotError> {
    let io_error = |source| PlotError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".npuzzle-plot-").suffix(".png");
    // tempfile creates files readable by the owner only; give the chart the usual permissions.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let tmp = builder.tempfile_in(dir).map_err(io_error)?;
    render(tmp.path()).map_err(|e| PlotError::Draw {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    tmp.persist(path).map_err(|e| io_error(e.error))?;
    Ok(())
}

// ----------------------------------------------------------------------------------------------
// Numbers and ticks.

/// `count` boards as a share of `total`, in percent.
fn share(count: u64, total: u64) -> f64 {
    count as f64 * 100.0 / total as f64
}

/// Depth ticks: every 1, 2, 5, 10, 20, ... depths, at most 17 labels.
fn depth_ticks(max_depth: usize) -> Vec<f64> {
    let mut base = 1usize;
    let step = loop {
        if let Some(step) = [base, 2 * base, 5 * base]
            .into_iter()
            .find(|&step| max_depth / step <= 16)
        {
            break step;
        }
        base *= 10;
    };
    (0..=max_depth).step_by(step).map(|d| d as f64).collect()
}

/// The y axis for data up to `needed` (> 0): its top, its ticks and their decimals.
fn share_axis(needed: f64) -> (f64, Vec<f64>, usize) {
    let needed = if needed.is_finite() && needed > 0.0 {
        needed
    } else {
        1.0
    };
    // Smallest step of the form {1, 2, 5} x 10^k giving at most 8 intervals.
    let mut exp = (needed / 8.0).log10().floor() as i32;
    let step = loop {
        let p = 10f64.powi(exp);
        if let Some(s) = [p, 2.0 * p, 5.0 * p]
            .into_iter()
            .find(|s| needed / s <= 8.0)
        {
            break s;
        }
        exp += 1;
    };
    let intervals = (needed / step - 1e-9).ceil().max(1.0) as usize;
    let top = step * intervals as f64;
    let ticks = (0..=intervals).map(|i| step * i as f64).collect();
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    (top, ticks, decimals)
}

// ----------------------------------------------------------------------------------------------
// Layout.

/// The plotting area of a chart, in pixels.
#[derive(Debug, Clone, Copy)]
struct PlotRect {
    left: i32,
    top: i32,
    right: i32,
    bottom: i32,
}

impl PlotRect {
    fn from_ranges((x, y): (std::ops::Range<i32>, std::ops::Range<i32>)) -> PlotRect {
        PlotRect {
            left: x.start,
            top: y.start,
            right: x.end,
            bottom: y.end,
        }
    }
    fn width(&self) -> i32 {
        self.right - self.left
    }
    fn height(&self) -> i32 {
        self.bottom - self.top
    }
}

/// Something drawn in data space: the column `x0..=x1` is occupied from the axis up to `top`.
#[derive(Debug, Clone, Copy)]
struct Column {
    x0: f64,
    x1: f64,
    top: f64,
}

/// Where to put a box of `width` x `height` pixels in an upper corner of `plot`, and how high the
/// y axis must then reach so that nothing in `columns` comes within `clearance` pixels of the
/// box. Returns (left edge of the box, least y-axis top); the upper left wins unless the upper
/// right needs a lower axis. The y top is infinite when the box is too tall to fit above data.
fn place_box(
    plot: PlotRect,
    x_range: (f64, f64),
    columns: &[Column],
    (width, height): (i32, i32),
    clearance: i32,
) -> (i32, f64) {
    let to_data_x = |px: i32| {
        x_range.0 + f64::from(px - plot.left) / f64::from(plot.width()) * (x_range.1 - x_range.0)
    };
    let free_fraction = 1.0 - f64::from(INSET_PX + height + clearance) / f64::from(plot.height());
    let needed_top = |left: i32| {
        let (x0, x1) = (to_data_x(left), to_data_x(left + width));
        let highest = columns
            .iter()
            .filter(|c| c.x1 >= x0 && c.x0 <= x1)
            .map(|c| c.top)
            .fold(0.0, f64::max);
        if highest <= 0.0 {
            0.0
        } else if free_fraction < 0.25 {
            f64::INFINITY
        } else {
            highest / free_fraction
        }
    };
    let left = plot.left + INSET_PX;
    let right = plot.right - INSET_PX - width;
    let (need_left, need_right) = (needed_top(left), needed_top(right));
    if need_right < need_left {
        (right, need_right)
    } else {
        (left, need_left)
    }
}

/// A grid string with its numbers right-aligned in columns of equal width, one string per row.
fn aligned_grid(grid: &str) -> Vec<String> {
    let rows: Vec<Vec<&str>> = grid
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .filter(|row| !row.is_empty())
        .collect();
    let width = rows
        .iter()
        .flatten()
        .map(|cell| cell.chars().count())
        .max()
        .unwrap_or(1);
    rows.iter()
        .map(|row| {
            row.iter()
                .map(|cell| format!("{cell:>width$}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn text_style(family: &'static str, px: f64, color: &'static RGBColor) -> TextStyle<'static> {
    TextStyle::from((family, px).into_font()).color(color)
}

/// Text size in pixels as plotters will lay it out.
fn text_size(area: &Area<'_>, text: &str, style: &TextStyle) -> (i32, i32) {
    let (w, h) = area.estimate_text_size(text, style).unwrap_or((0, 0));
    (w as i32, h as i32)
}

/// Draws the white, framed background of a box.
fn draw_box_frame(root: &Area<'_>, (x, y): (i32, i32), (w, h): (i32, i32)) -> DrawResult {
    root.draw(&Rectangle::new(
        [(x, y), (x + w, y + h)],
        WHITE.mix(0.92).filled(),
    ))?;
    root.draw(&Rectangle::new(
        [(x, y), (x + w, y + h)],
        FRAME.stroke_width(1),
    ))?;
    Ok(())
}

// ----------------------------------------------------------------------------------------------
// Charts.

/// Margins and label areas shared by both charts.
fn chart_builder<'a, 'b>(area: &'a Area<'b>) -> ChartBuilder<'a, 'b, BitMapBackend<'b>> {
    let mut builder = ChartBuilder::on(area);
    builder
        .margin_left(10)
        .margin_right(30)
        .margin_top(8)
        .margin_bottom(10)
        .x_label_area_size(58)
        .y_label_area_size(70);
    builder
}

/// The root area with its white background and the title drawn; returns (root, body).
fn titled_root<'a>(file: &'a Path, title: &str) -> Result<(Area<'a>, Area<'a>), Box<dyn StdError>> {
    let root = BitMapBackend::new(file, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let body = root
        .margin(14, 0, 0, 0)
        .titled(title, text_style(SANS, TITLE_PX, &TEXT))?;
    Ok((root, body))
}

/// Draws the axes, the light horizontal grid and the axis titles.
fn draw_mesh(chart: &mut ChartContext<BitMapBackend, Axes>, y_decimals: usize) -> DrawResult {
    let x_format = |x: &f64| format!("{x:.0}");
    let y_format = move |y: &f64| format!("{y:.y_decimals$}");
    chart
        .configure_mesh()
        .disable_x_mesh()
        .bold_line_style(GRID.stroke_width(1))
        .axis_style(AXIS.stroke_width(1))
        .x_desc("depth (moves from the goal)")
        .y_desc("share of solvable boards (%)")
        .axis_desc_style(text_style(SANS, AXIS_DESC_PX, &TEXT))
        .label_style(text_style(SANS, TICK_LABEL_PX, &TEXT))
        .x_label_formatter(&x_format)
        .y_label_formatter(&y_format)
        .draw()?;
    Ok(())
}

/// The hardest boards as laid out in their box.
struct HardestBox {
    header: String,
    boards: Vec<Vec<String>>,
    more: Option<String>,
    per_row: usize,
    board_size: (i32, i32),
    line_px: i32,
    header_px: i32,
    size: (i32, i32),
}

const BOARD_GAP_PX: i32 = 16;
const BOARD_PAD_PX: i32 = 5;

impl HardestBox {
    fn new(
        area: &Area<'_>,
        depth: usize,
        hardest: &[String],
        partial: bool,
        max_width: i32,
    ) -> Option<HardestBox> {
        if hardest.is_empty() {
            return None;
        }
        let header = if partial {
            format!("boards at depth {depth} (the search stopped there)")
        } else {
            format!(
                "{} ({} {})",
                if hardest.len() == 1 {
                    "hardest board"
                } else {
                    "hardest boards"
                },
                HumanCount(depth as u64),
                if depth == 1 { "move" } else { "moves" }
            )
        };
        let boards: Vec<Vec<String>> = hardest
            .iter()
            .take(MAX_BOARDS_SHOWN)
            .map(|g| aligned_grid(g))
            .collect();
        let more = (hardest.len() > MAX_BOARDS_SHOWN).then(|| {
            format!(
                "+ {} more",
                HumanCount((hardest.len() - MAX_BOARDS_SHOWN) as u64)
            )
        });

        let mono = text_style(MONO, GRID_PX, &TEXT);
        let line_px = (GRID_PX * 1.25).round() as i32;
        let text_w = boards
            .iter()
            .flatten()
            .map(|line| text_size(area, line, &mono).0)
            .max()
            .unwrap_or(0);
        let lines = boards.iter().map(Vec::len).max().unwrap_or(0) as i32;
        let board_size = (
            text_w + 2 * BOARD_PAD_PX,
            lines * line_px + 2 * BOARD_PAD_PX,
        );

        let header_style = text_style(SANS, BOX_HEADER_PX, &TEXT);
        let header_w = text_size(area, &header, &header_style).0;
        let more_w = more.as_ref().map_or(0, |m| {
            text_size(area, m, &text_style(SANS, NOTE_PX, &MUTED)).0
        });
        let fit = ((max_width - 2 * PAD_PX + BOARD_GAP_PX) / (board_size.0 + BOARD_GAP_PX)).max(1);
        let per_row = (fit as usize).min(boards.len()).max(1);
        let rows = boards.len().div_ceil(per_row) as i32;
        let grid_w = per_row as i32 * (board_size.0 + BOARD_GAP_PX) - BOARD_GAP_PX;
        let header_px = (BOX_HEADER_PX * 1.5).round() as i32;
        let mut height =
            PAD_PX + header_px + rows * board_size.1 + (rows - 1) * (BOARD_GAP_PX / 2) + PAD_PX;
        if more.is_some() {
            height += (NOTE_PX * 1.6).round() as i32;
        }
        let width = 2 * PAD_PX + grid_w.max(header_w).max(more_w);
        Some(HardestBox {
            header,
            boards,
            more,
            per_row,
            board_size,
            line_px,
            header_px,
            size: (width, height),
        })
    }

    fn draw(&self, root: &Area<'_>, (x, y): (i32, i32)) -> DrawResult {
        draw_box_frame(root, (x, y), self.size)?;
        let header_style = text_style(SANS, BOX_HEADER_PX, &TEXT);
        root.draw(&Text::new(
            self.header.as_str(),
            (x + PAD_PX, y + PAD_PX + 2),
            header_style,
        ))?;
        let mono = text_style(MONO, GRID_PX, &TEXT);
        let top = y + PAD_PX + self.header_px;
        let (bw, bh) = self.board_size;
        for (i, board) in self.boards.iter().enumerate() {
            let bx = x + PAD_PX + (i % self.per_row) as i32 * (bw + BOARD_GAP_PX);
            let by = top + (i / self.per_row) as i32 * (bh + BOARD_GAP_PX / 2);
            root.draw(&Rectangle::new(
                [(bx, by), (bx + bw, by + bh)],
                RGBColor(246, 246, 246).filled(),
            ))?;
            root.draw(&Rectangle::new(
                [(bx, by), (bx + bw, by + bh)],
                FRAME.stroke_width(1),
            ))?;
            for (j, line) in board.iter().enumerate() {
                let ly = by + BOARD_PAD_PX + 2 + j as i32 * self.line_px;
                root.draw(&Text::new(
                    line.as_str(),
                    (bx + BOARD_PAD_PX, ly),
                    mono.clone(),
                ))?;
            }
        }
        if let Some(more) = &self.more {
            let rows = self.boards.len().div_ceil(self.per_row) as i32;
            let my = top + rows * bh + (rows - 1) * (BOARD_GAP_PX / 2) + 6;
            root.draw(&Text::new(
                more.as_str(),
                (x + PAD_PX, my),
                text_style(SANS, NOTE_PX, &MUTED),
            ))?;
        }
        Ok(())
    }
}

/// The last bar is usually a handful of boards, too few to see: writes its count above it (as
/// "2 boards"), clear of the neighbouring bars, with a thin leader line down to the bar when the
/// neighbours push the text up. Nothing is drawn when the bar is visible anyway.
fn draw_last_bar_note(
    root: &Area<'_>,
    cc: &ChartContext<BitMapBackend, Axes>,
    plot: PlotRect,
    columns: &[Column],
    count: u64,
) -> DrawResult {
    let Some(last) = columns.last() else {
        return Ok(());
    };
    let depth = (last.x0 + last.x1) / 2.0;
    let (cx, axis_y) = cc.backend_coord(&(depth, 0.0));
    let (_, bar_y) = cc.backend_coord(&(depth, last.top));
    if axis_y - bar_y > 3 {
        return Ok(());
    }
    let note = format!(
        "{} board{}",
        HumanCount(count),
        if count == 1 { "" } else { "s" }
    );
    let style = text_style(SANS, NOTE_PX, &MUTED);
    let (w, h) = text_size(root, &note, &style);
    let left = (cx - w / 2).min(plot.right - 2 - w);
    let to_data_x = |px: i32| {
        let (x0, x1) = (cc.x_range().start, cc.x_range().end);
        x0 + (x1 - x0) * f64::from(px - plot.left) / f64::from(plot.width())
    };
    let (lo, hi) = (to_data_x(left), to_data_x(left + w));
    let under = columns
        .iter()
        .filter(|c| c.x1 >= lo && c.x0 <= hi)
        .map(|c| c.top)
        .fold(0.0, f64::max);
    let (_, under_y) = cc.backend_coord(&(depth, under));
    let text_bottom = under_y.min(bar_y) - 6;
    let top = text_bottom - h;
    if top <= plot.top {
        return Ok(());
    }
    root.draw(&Text::new(note.as_str(), (left, top), style))?;
    if bar_y - text_bottom > 12 {
        root.draw(&PathElement::new(
            vec![(cx, text_bottom + 3), (cx, bar_y - 2)],
            MUTED.stroke_width(1),
        ))?;
    }
    Ok(())
}

fn render_histogram(chart: &DepthChart, total: u64, file: &Path) -> DrawResult {
    let max_depth = chart.counts.len() - 1;
    let title = if chart.partial {
        format!(
            "{} sliding puzzle, partial: depths 0..{}, {} board{} found",
            chart.board,
            max_depth,
            HumanCount(total),
            if total == 1 { "" } else { "s" }
        )
    } else {
        format!(
            "{} sliding puzzle: {} solvable board{}, God's number {}",
            chart.board,
            HumanCount(total),
            if total == 1 { "" } else { "s" },
            max_depth
        )
    };
    let (root, body) = titled_root(file, &title)?;
    let shares: Vec<f64> = chart.counts.iter().map(|&c| share(c, total)).collect();
    let highest = shares.iter().copied().fold(0.0, f64::max);
    let x_range = (-0.5, max_depth as f64 + 0.5);
    let x_ticks = depth_ticks(max_depth);
    let x_spec = || TickedAxis::new(x_range.0..x_range.1, x_ticks.clone());

    // Lay out the hardest-boards box on a probe of the plotting area (building draws nothing).
    let plot = PlotRect::from_ranges(
        chart_builder(&body)
            .build_cartesian_2d(x_spec(), 0.0..1.0)?
            .plotting_area()
            .get_pixel_range(),
    );
    let columns: Vec<Column> = shares
        .iter()
        .enumerate()
        .map(|(d, &s)| Column {
            x0: d as f64 - BAR_HALF_WIDTH,
            x1: d as f64 + BAR_HALF_WIDTH,
            top: s,
        })
        .collect();
    let hardest = HardestBox::new(
        &root,
        max_depth,
        chart.hardest,
        chart.partial,
        plot.width() * 11 / 20,
    );
    let mut needed = highest * 1.08;
    let mut box_left = plot.left + INSET_PX;
    if let Some(b) = &hardest {
        let (left, top) = place_box(plot, x_range, &columns, b.size, 8);
        box_left = left;
        if top.is_finite() {
            needed = needed.max(top);
        }
    }
    let (y_top, y_ticks, y_decimals) = share_axis(needed);

    let mut cc =
        chart_builder(&body).build_cartesian_2d(x_spec(), TickedAxis::new(0.0..y_top, y_ticks))?;
    draw_mesh(&mut cc, y_decimals)?;
    cc.draw_series(
        columns
            .iter()
            .map(|c| Rectangle::new([(c.x0, 0.0), (c.x1, c.top)], BAR.filled())),
    )?;

    draw_last_bar_note(&root, &cc, plot, &columns, chart.counts[max_depth])?;

    if let Some(b) = &hardest {
        b.draw(&root, (box_left, plot.top + INSET_PX))?;
    }
    root.present()?;
    Ok(())
}

fn render_comparison(series: &[DepthSeries], totals: &[u64], file: &Path) -> DrawResult {
    let (root, body) = titled_root(file, "Depth distributions compared")?;
    let max_depth = series.iter().map(|s| s.counts.len() - 1).max().unwrap_or(0);
    let x_range = (-0.5, max_depth as f64 + 0.5);
    let x_ticks = depth_ticks(max_depth);
    let x_spec = || TickedAxis::new(x_range.0..x_range.1, x_ticks.clone());
    let points: Vec<Vec<(f64, f64)>> = series
        .iter()
        .zip(totals)
        .map(|(s, &total)| {
            s.counts
                .iter()
                .enumerate()
                .map(|(d, &c)| (d as f64, share(c, total)))
                .collect()
        })
        .collect();
    let highest = points.iter().flatten().map(|p| p.1).fold(0.0, f64::max);

    let plot = PlotRect::from_ranges(
        chart_builder(&body)
            .build_cartesian_2d(x_spec(), 0.0..1.0)?
            .plotting_area()
            .get_pixel_range(),
    );

    // Legend: a line sample with a marker, then "3x3: 181,440 boards, max depth 31".
    let labels: Vec<String> = series
        .iter()
        .zip(totals)
        .map(|(s, &total)| {
            format!(
                "{}: {} solvable boards, max depth {}",
                s.board,
                HumanCount(total),
                s.counts.len() - 1
            )
        })
        .collect();
    let label_style = text_style(SANS, BOX_HEADER_PX, &TEXT);
    let sample_w = 30;
    let row_h = (BOX_HEADER_PX * 1.5).round() as i32;
    let text_w = labels
        .iter()
        .map(|l| text_size(&root, l, &label_style).0)
        .max()
        .unwrap_or(0);
    let legend_size = (
        2 * PAD_PX + sample_w + 10 + text_w,
        2 * PAD_PX + row_h * labels.len() as i32 - (row_h - BOX_HEADER_PX as i32),
    );
    // Each segment occupies its x span up to its higher end (a conservative bound).
    let radius_x = f64::from(MARKER_PX) * (x_range.1 - x_range.0) / f64::from(plot.width());
    let columns: Vec<Column> = points
        .iter()
        .flat_map(|pts| {
            pts.windows(2)
                .map(|w| Column {
                    x0: w[0].0 - radius_x,
                    x1: w[1].0 + radius_x,
                    top: w[0].1.max(w[1].1),
                })
                .chain(pts.iter().map(move |p| Column {
                    x0: p.0 - radius_x,
                    x1: p.0 + radius_x,
                    top: p.1,
                }))
        })
        .collect();
    let (legend_left, legend_top) = place_box(plot, x_range, &columns, legend_size, MARKER_PX + 6);
    let mut needed = highest * 1.08;
    if legend_top.is_finite() {
        needed = needed.max(legend_top);
    }
    let (y_top, y_ticks, y_decimals) = share_axis(needed);

    let mut cc =
        chart_builder(&body).build_cartesian_2d(x_spec(), TickedAxis::new(0.0..y_top, y_ticks))?;
    draw_mesh(&mut cc, y_decimals)?;
    for (i, pts) in points.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        cc.draw_series(std::iter::once(PathElement::new(
            pts.clone(),
            color.stroke_width(2),
        )))?;
        cc.draw_series(
            pts.iter()
                .map(|&p| Circle::new(p, MARKER_PX, color.filled())),
        )?;
    }

    let (lx, ly) = (legend_left, plot.top + INSET_PX);
    draw_box_frame(&root, (lx, ly), legend_size)?;
    for (i, label) in labels.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let row_y = ly + PAD_PX + i as i32 * row_h;
        let mid = row_y + (BOX_HEADER_PX * 0.45).round() as i32;
        let x0 = lx + PAD_PX;
        root.draw(&PathElement::new(
            vec![(x0, mid), (x0 + sample_w, mid)],
            color.stroke_width(2),
        ))?;
        root.draw(&Circle::new(
            (x0 + sample_w / 2, mid),
            MARKER_PX,
            color.filled(),
        ))?;
        root.draw(&Text::new(
            label.as_str(),
            (x0 + sample_w + 10, row_y + 2),
            label_style.clone(),
        ))?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 3x3 depth counts (OEIS A089473).
    const COUNTS_3X3: [u64; 32] = [
        1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638, 9529,
        10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
    ];
    const COUNTS_2X3: [u64; 22] = [
        1, 2, 3, 5, 6, 7, 10, 12, 12, 16, 23, 25, 28, 39, 44, 40, 29, 21, 18, 12, 6, 1,
    ];

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
        assert_eq!(depth_ticks(0), vec![0.0]);
        assert_eq!(depth_ticks(31).len(), 16);
        assert_eq!(depth_ticks(100).len(), 11);
        assert_eq!(
            depth_ticks(80),
            (0..=80).step_by(5).map(f64::from).collect::<Vec<_>>()
        );
        let (top, ticks, decimals) = share_axis(14.3);
        assert_eq!((top, ticks.len(), decimals), (16.0, 9, 0));
        let (top, _, decimals) = share_axis(0.7);
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
        let chart = DepthChart {
            board: "3x3",
            counts: &COUNTS_3X3,
            hardest: &hardest,
            partial: false,
        };
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

    #[test]
    fn histogram_overwrites_an_existing_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("chart.png");
        std::fs::write(&path, b"old").expect("write");
        let chart = DepthChart {
            board: "3x3",
            counts: &COUNTS_3X3,
            hardest: &[],
            partial: false,
        };
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
            let chart = DepthChart {
                board: name,
                counts,
                hardest,
                partial: false,
            };
            write_depth_histogram(&chart, &path).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(is_png(&path), "{name}");
        }
    }

    #[test]
    fn histogram_errors() {
        let dir = tempfile::tempdir().expect("tempdir");
        let empty = DepthChart {
            board: "3x3",
            counts: &[],
            hardest: &[],
            partial: false,
        };
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
            DepthSeries {
                board: "2x3",
                counts: &COUNTS_2X3,
            },
            DepthSeries {
                board: "3x3",
                counts: &COUNTS_3X3,
            },
        ];
        let (a, b) = (dir.path().join("a.png"), dir.path().join("b.png"));
        write_depth_comparison(&series, &a).expect("first render");
        write_depth_comparison(&series, &b).expect("second render");
        assert!(is_png(&a));
        assert_eq!(std::fs::read(&a).expect("a"), std::fs::read(&b).expect("b"));
        let one = [DepthSeries {
            board: "1x2",
            counts: &[1],
        }];
        write_depth_comparison(&one, &a).expect("single point");
    }

    #[test]
    fn comparison_errors() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("c.png");
        assert!(matches!(
            write_depth_comparison(&[], &path),
            Err(PlotError::NoData(_))
        ));
        let series = [
            DepthSeries {
                board: "2x3",
                counts: &COUNTS_2X3,
            },
            DepthSeries {
                board: "bad",
                counts: &[],
            },
        ];
        assert!(matches!(
            write_depth_comparison(&series, &path),
            Err(PlotError::NoData(_))
        ));
        let missing = dir.path().join("nope").join("c.png");
        assert!(matches!(
            write_depth_comparison(&series[..1], &missing),
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
        let chart = DepthChart {
            board: "3x3",
            counts: &COUNTS_3X3,
            hardest: &hardest,
            partial: false,
        };
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
            DepthSeries {
                board: "2x3",
                counts: &COUNTS_2X3,
            },
            DepthSeries {
                board: "3x3",
                counts: &COUNTS_3X3,
            },
        ];
        write_depth_comparison(&series, &dir.join("plot-compare.png")).expect("comparison");

        // Shapes of other charts: many depths and many hardest boards, a single depth.
        let many_counts: Vec<u64> = (0..81u64).map(|d| 1 + d * d * (80 - d)).collect();
        let many_boards: Vec<String> = (0..18)
            .map(|i| format!("{} 1 2 3\n4 5 6 7\n8 9 10 .", i + 11))
            .collect();
        let edge = DepthChart {
            board: "2x6 (made up)",
            counts: &many_counts,
            hardest: &many_boards,
            partial: false,
        };
        write_depth_histogram(&edge, &dir.join("plot-edge-many.png")).expect("many");
        let single = DepthChart {
            board: "1x1",
            counts: &[1],
            hardest: &many_boards[..1],
            partial: false,
        };
        write_depth_histogram(&single, &dir.join("plot-edge-single.png")).expect("single");
    }
}
