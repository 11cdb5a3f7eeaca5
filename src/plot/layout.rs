//! What both charts share: sizes, colours and fonts, the axes and their ticks, the layout of
//! boxes on the plot, the common chart frame, and the atomic PNG write.

use std::error::Error as StdError;
use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::PlotError;

/// Width of every chart, in pixels.
const WIDTH: u32 = 1000;
/// Height of every chart, in pixels.
const HEIGHT: u32 = 600;

pub(super) const SANS: &str = "sans-serif";
pub(super) const MONO: &str = "monospace";
static DEJAVU_SANS: &[u8] = include_bytes!("DejaVuSans.ttf");
static DEJAVU_SANS_MONO: &[u8] = include_bytes!("DejaVuSansMono.ttf");

const TITLE_PX: f64 = 24.0;
const AXIS_DESC_PX: f64 = 19.0;
const TICK_LABEL_PX: f64 = 15.0;
pub(super) const BOX_HEADER_PX: f64 = 16.0;
pub(super) const GRID_PX: f64 = 15.0;
pub(super) const NOTE_PX: f64 = 14.0;

pub(super) const TEXT: RGBColor = RGBColor(40, 40, 40);
pub(super) const MUTED: RGBColor = RGBColor(100, 100, 100);
const AXIS: RGBColor = RGBColor(90, 90, 90);
const GRID: RGBColor = RGBColor(225, 225, 225);
pub(super) const FRAME: RGBColor = RGBColor(190, 190, 190);
/// Distance of the boxes (hardest boards, legend) from the plot's edges, in pixels.
pub(super) const INSET_PX: i32 = 12;
/// Padding inside the boxes, in pixels.
pub(super) const PAD_PX: i32 = 10;

// ----------------------------------------------------------------------------------------------
// Fonts, files.

/// Registers the embedded fonts with plotters, once per process.
pub(super) fn ensure_fonts() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(SANS, FontStyle::Normal, DEJAVU_SANS).is_ok()
            && plotters::style::register_font(MONO, FontStyle::Normal, DEJAVU_SANS_MONO).is_ok()
    });
    if ok { Ok(()) } else { Err(PlotError::Font) }
}

/// What drawing returns: plotters' errors are boxed.
pub(super) type DrawResult = Result<(), Box<dyn StdError>>;

/// A drawing area in pixels.
pub(super) type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// The coordinates of both charts: depth and share, each with explicit ticks.
pub(super) type Axes = Cartesian2d<TickedAxis, TickedAxis>;

/// A linear axis with ticks (and grid lines) exactly where we say.
///
/// plotters' own `WithKeyPoints` does the same but cannot be given a label formatter.
#[derive(Clone)]
pub(super) struct TickedAxis {
    linear: RangedCoordf64,
    ticks: Vec<f64>,
}

impl TickedAxis {
    pub(super) fn new(range: std::ops::Range<f64>, ticks: Vec<f64>) -> TickedAxis {
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
pub(super) fn write_png_atomically(
    path: &Path,
    render: impl FnOnce(&Path) -> DrawResult,
) -> Result<(), PlotError> {
    let io_error = |source| PlotError::Io {
        path: path.to_path_buf(),
        source,
    };
    let tmp = crate::export::temp_beside(path).map_err(io_error)?;
    render(tmp.path()).map_err(|e| PlotError::Draw {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    crate::export::commit(tmp, path).map_err(io_error)?;
    Ok(())
}

// ----------------------------------------------------------------------------------------------
// Numbers and ticks.

/// `count` boards as a share of `total`, in percent.
pub(super) fn share(count: u64, total: u64) -> f64 {
    count as f64 * 100.0 / total as f64
}

/// Depth ticks: every 1, 2, 5, 10, 20, ... depths, at most 17 labels.
pub(super) fn depth_ticks(max_depth: usize) -> Vec<f64> {
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
pub(super) fn share_axis(needed: f64) -> (f64, Vec<f64>, usize) {
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
pub(super) struct PlotRect {
    pub(super) left: i32,
    pub(super) top: i32,
    pub(super) right: i32,
    pub(super) bottom: i32,
}

impl PlotRect {
    pub(super) fn from_ranges((x, y): (std::ops::Range<i32>, std::ops::Range<i32>)) -> PlotRect {
        PlotRect {
            left: x.start,
            top: y.start,
            right: x.end,
            bottom: y.end,
        }
    }
    pub(super) fn width(&self) -> i32 {
        self.right - self.left
    }
    fn height(&self) -> i32 {
        self.bottom - self.top
    }
}

/// Something drawn in data space: the column `x0..=x1` is occupied from the axis up to `top`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Column {
    pub(super) x0: f64,
    pub(super) x1: f64,
    pub(super) top: f64,
}

/// Where to put a box of `width` x `height` pixels in an upper corner of `plot`, and how high the
/// y axis must then reach so that nothing in `columns` comes within `clearance` pixels of the
/// box. Returns (left edge of the box, least y-axis top); the upper left wins unless the upper
/// right needs a lower axis. The y top is infinite when the box is too tall to fit above data.
pub(super) fn place_box(
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

/// A text style of `family` at `px` pixels in `color`.
pub(super) fn text_style(
    family: &'static str,
    px: f64,
    color: &'static RGBColor,
) -> TextStyle<'static> {
    TextStyle::from((family, px).into_font()).color(color)
}

/// Text size in pixels as plotters will lay it out.
pub(super) fn text_size(area: &Area<'_>, text: &str, style: &TextStyle) -> (i32, i32) {
    let (w, h) = area.estimate_text_size(text, style).unwrap_or((0, 0));
    (w as i32, h as i32)
}

/// Draws the white, framed background of a box.
pub(super) fn draw_box_frame(
    root: &Area<'_>,
    (x, y): (i32, i32),
    (w, h): (i32, i32),
) -> DrawResult {
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
// Parts of both charts.

/// Margins and label areas shared by both charts.
pub(super) fn chart_builder<'a, 'b>(area: &'a Area<'b>) -> ChartBuilder<'a, 'b, BitMapBackend<'b>> {
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
pub(super) fn titled_root<'a>(
    file: &'a Path,
    title: &str,
) -> Result<(Area<'a>, Area<'a>), Box<dyn StdError>> {
    let root = BitMapBackend::new(file, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let body = root
        .margin(14, 0, 0, 0)
        .titled(title, text_style(SANS, TITLE_PX, &TEXT))?;
    Ok((root, body))
}

/// Draws the axes, the light horizontal grid and the axis titles.
pub(super) fn draw_mesh(
    chart: &mut ChartContext<BitMapBackend, Axes>,
    y_decimals: usize,
) -> DrawResult {
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
