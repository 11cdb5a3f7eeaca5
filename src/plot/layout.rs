//! What both charts share: sizes, colours and fonts, the axes and their ticks, the layout of
//! boxes on the plot, the common chart frame, and the atomic PNG and SVG writes.

use std::error::Error as StdError;
use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

pub(super) use super::text::{Align, Canvas, Font, draw_text, text_size};
use super::text::{Family, draw_text_upwards};
use super::{PlotError, Scale};

/// Width of every chart, in pixels.
const WIDTH: u32 = 1000;
/// Height of every chart, in pixels.
const HEIGHT: u32 = 600;

pub(super) use super::text::Family::{Mono as MONO, Sans as SANS};

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

/// Reads the embedded fonts (once per process) and registers DejaVu Sans with plotters as
/// `sans-serif`, the family of the (empty) tick labels plotters lays out; every visible text is
/// drawn by [`super::text`].
pub(super) fn ensure_fonts() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        super::text::fonts_ok()
            && plotters::style::register_font(
                PLOTTERS_FAMILY,
                FontStyle::Normal,
                super::text::DEJAVU_SANS,
            )
            .is_ok()
    });
    if ok { Ok(()) } else { Err(PlotError::Font) }
}

/// The family plotters' own (empty) labels are laid out with.
const PLOTTERS_FAMILY: &str = "sans-serif";

/// What drawing returns: plotters' errors are boxed.
pub(super) type DrawResult = Result<(), Box<dyn StdError>>;

/// A drawing area in pixels, on the backend `C` (a bitmap or an SVG).
pub(super) type Area<C> = DrawingArea<C, Shift>;

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

/// Draws a chart by `draw` in memory ([`render_rgb`]), encodes it as a PNG into a fresh
/// temporary file next to `path` (through the file's own handle: a signal that removes the
/// temporary file meanwhile leaves nothing behind, since nothing opens the name again), then
/// renames it over `path`.
pub(super) fn write_png_atomically(
    path: &Path,
    draw: impl FnOnce(&Area<BitMapBackend<'_>>) -> Result<(), Box<dyn StdError>>,
) -> Result<(), PlotError> {
    let (rgb, ()) = render_rgb(draw).map_err(|e| draw_error(path, &*e))?;
    write_atomically(path, |out| {
        // The settings of image 0.24's `PngEncoder::new`, which wrote the charts before:
        // fast compression, adaptive filters (the same bytes).
        let mut encoder = png::Encoder::new(out, WIDTH, HEIGHT);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        encoder.set_filter(png::FilterType::Sub);
        encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
        encoder
            .write_header()
            .and_then(|mut writer| {
                writer.write_image_data(&rgb)?;
                // The IEND chunk, its error reported (dropping the writer would ignore it).
                writer.finish()
            })
            .map_err(|e| match e {
                png::EncodingError::IoError(source) => io_error(path, source),
                other => draw_error(path, &other),
            })
    })
}

/// Draws a chart by `draw` as an SVG document in memory ([`render_svg`]), writes it into a
/// fresh temporary file next to `path` (through the file's own handle, as
/// [`write_png_atomically`]), then renames it over `path`.
pub(super) fn write_svg_atomically(
    path: &Path,
    draw: impl FnOnce(&Area<SVGBackend<'_>>) -> Result<(), Box<dyn StdError>>,
) -> Result<(), PlotError> {
    let (svg, ()) = render_svg(draw).map_err(|e| draw_error(path, &*e))?;
    write_atomically(path, |out| {
        std::io::Write::write_all(out, svg.as_bytes()).map_err(|e| io_error(path, e))
    })
}

/// Writes `path` by `write` into a fresh temporary file next to it (buffered, through the
/// file's own handle), then renames it over `path`.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<&mut crate::durable::TempFile>) -> Result<(), PlotError>,
) -> Result<(), PlotError> {
    let mut tmp = crate::durable::temp_beside(path).map_err(|e| io_error(path, e))?;
    {
        let mut out = std::io::BufWriter::new(&mut tmp);
        write(&mut out)?;
        std::io::Write::flush(&mut out).map_err(|e| io_error(path, e))?;
    }
    crate::durable::commit(tmp, path).map_err(|e| io_error(path, e))?;
    Ok(())
}

/// The chart at `path` could not be written.
fn io_error(path: &Path, source: std::io::Error) -> PlotError {
    PlotError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The chart at `path` could not be drawn or encoded.
fn draw_error(path: &Path, e: &dyn StdError) -> PlotError {
    PlotError::Draw {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

// ----------------------------------------------------------------------------------------------
// Numbers and ticks.

/// `count` boards as a share of `total`, in percent.
pub(super) fn share(count: u64, total: u64) -> f64 {
    count as f64 * 100.0 / total as f64
}

/// Depth ticks: every 1, 2, 5, 10, 20, ... depths (at most 17 of them), and the last depth
/// `max_depth` always, so that the deepest bar can be read. When the last depth is not on the
/// step it is added if it is at least `min_gap` depths (the room its label needs) past the
/// last tick on the step, and replaces that tick otherwise (0, 5, ..., 30, 36 for 36).
pub(super) fn depth_ticks(max_depth: usize, min_gap: f64) -> Vec<f64> {
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
    let mut ticks: Vec<usize> = (0..=max_depth).step_by(step).collect();
    let last = *ticks.last().unwrap_or(&0);
    if last != max_depth {
        if ((max_depth - last) as f64) < min_gap && ticks.len() > 1 {
            ticks.pop();
        }
        ticks.push(max_depth);
    }
    ticks.into_iter().map(|d| d as f64).collect()
}

/// The plotting area that a depth chart on `body` with x range `x_range` leaves (measured on a
/// probe chart: building one draws nothing), and its depth ticks ([`depth_ticks`]), spaced
/// so that their labels fit.
pub(super) fn depth_layout<C: Canvas>(
    body: &Area<C>,
    x_range: (f64, f64),
    max_depth: usize,
) -> Result<(PlotRect, Vec<f64>), Box<dyn StdError>> {
    let plot = PlotRect::from_ranges(
        chart_builder(body)
            .build_cartesian_2d(x_range.0..x_range.1, 0.0..1.0)?
            .plotting_area()
            .get_pixel_range(),
    );
    let px_per_depth = f64::from(plot.width()) / (x_range.1 - x_range.0);
    let ticks = depth_ticks(max_depth, depth_label_gap(max_depth, px_per_depth));
    Ok((plot, ticks))
}

/// The least distance, in depths, between the labels of two depth ticks: the width of the
/// widest label (`max_depth`) plus a gap, at `px_per_depth` pixels per depth.
pub(super) fn depth_label_gap(max_depth: usize, px_per_depth: f64) -> f64 {
    let (w, _) = text_size(&max_depth.to_string(), &font(SANS, TICK_LABEL_PX, &TEXT));
    f64::from(w + 8) / px_per_depth.max(1e-9)
}

/// The y axis of a chart: where its ticks are, in axis units (`0..top`, the bottom of the
/// plot at 0), their labels, and its title.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct YAxis {
    /// The top of the axis, in axis units.
    pub(super) top: f64,
    /// The ticks, in axis units.
    pub(super) ticks: Vec<f64>,
    /// The label of each tick.
    pub(super) labels: Vec<String>,
    /// The axis title, drawn upwards left of the tick labels.
    pub(super) title: String,
}

/// How values map to the y axis: as they are (linear, from 0), or by their logarithm
/// ([`Scale::Log`], from half a decade below the smallest positive value, so that its bar or
/// point stands clear of the axis). Positions are in axis units, 0 at the bottom of the plot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum YMap {
    /// Position = value.
    Linear,
    /// Position = log10(value) - `bottom`.
    Log {
        /// log10 of the value at the bottom of the plot.
        bottom: f64,
    },
}

impl YMap {
    /// The map of `scale` for `values` (the smallest positive one sets a log axis's bottom).
    pub(super) fn new(scale: Scale, values: impl IntoIterator<Item = f64>) -> YMap {
        match scale {
            Scale::Linear => YMap::Linear,
            Scale::Log => {
                let least = values
                    .into_iter()
                    .filter(|v| *v > 0.0 && v.is_finite())
                    .fold(f64::INFINITY, f64::min);
                let least = if least.is_finite() { least } else { 1.0 };
                YMap::Log {
                    bottom: least.log10() - 0.5,
                }
            }
        }
    }

    /// The position of `value` on the axis; 0 for a value of 0 (no bar, a point on the axis).
    pub(super) fn pos(self, value: f64) -> f64 {
        match self {
            YMap::Linear => value,
            YMap::Log { .. } if value <= 0.0 => 0.0,
            YMap::Log { bottom } => value.log10() - bottom,
        }
    }

    /// The axis for data up to position `highest` (its top leaves some room above it) that
    /// must reach at least position `needed`, titled `title` (with ", log scale" added on a log
    /// axis): a linear axis ticks every {1, 2, 5} x 10^k; a log axis ticks every power of ten
    /// ([`power_label`]).
    pub(super) fn axis(self, highest: f64, needed: f64, title: &str) -> YAxis {
        match self {
            YMap::Linear => {
                let (top, ticks, decimals) = linear_axis(needed.max(highest * 1.08));
                let labels = ticks.iter().map(|t| format!("{t:.decimals$}")).collect();
                YAxis {
                    top,
                    ticks,
                    labels,
                    title: title.to_string(),
                }
            }
            YMap::Log { bottom } => {
                let first = bottom.ceil() as i32;
                let top = needed
                    .max(highest + 0.15)
                    .max(f64::from(first) - bottom + 0.05);
                let exps: Vec<i32> = (first..)
                    .take_while(|&k| f64::from(k) - bottom <= top)
                    .collect();
                // One style for every tick: written out when all are whole numbers up to a
                // million, else all as powers of ten.
                let plain = exps.iter().all(|k| (0..=6).contains(k));
                YAxis {
                    top,
                    ticks: exps.iter().map(|&k| f64::from(k) - bottom).collect(),
                    labels: exps.iter().map(|&k| power_label(k, plain)).collect(),
                    title: format!("{title}, log scale"),
                }
            }
        }
    }
}

/// `10^k` as a tick label: written out (`1`, `1,000`, for `0 <= k`) when `plain`, else with a
/// superscript exponent (`10⁴`, `10⁻³`, `10⁰`). An axis gives all its labels one style.
pub(super) fn power_label(k: i32, plain: bool) -> String {
    if plain && (0..=18).contains(&k) {
        return indicatif::HumanCount(10u64.pow(k.unsigned_abs())).to_string();
    }
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut label = String::from("10");
    if k < 0 {
        label.push('⁻');
    }
    for d in k.unsigned_abs().to_string().bytes() {
        label.push(DIGITS[usize::from(d - b'0')]);
    }
    label
}

/// A linear y axis for data up to `needed` (> 0): its top, its ticks and their decimals.
pub(super) fn linear_axis(needed: f64) -> (f64, Vec<f64>, usize) {
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

/// The font `family` at `px` pixels in `color`.
pub(super) fn font(family: Family, px: f64, color: &RGBColor) -> Font {
    Font {
        family,
        px,
        color: *color,
    }
}

/// Draws the white, framed background of a box.
pub(super) fn draw_box_frame<C: Canvas>(
    root: &Area<C>,
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

/// Left margin of the charts, in pixels: the y axis title is drawn right of it.
const MARGIN_LEFT_PX: i32 = 10;
/// Height of the band under the plot with the x tick labels and axis title, in pixels.
const X_LABEL_AREA_PX: i32 = 58;

/// Margins and label areas shared by both charts.
pub(super) fn chart_builder<'a, 'b, C: Canvas>(area: &'a Area<C>) -> ChartBuilder<'a, 'b, C> {
    let mut builder = ChartBuilder::on(area);
    builder
        .margin_left(MARGIN_LEFT_PX)
        .margin_right(30)
        .margin_top(8)
        .margin_bottom(10)
        .x_label_area_size(X_LABEL_AREA_PX)
        .y_label_area_size(70);
    builder
}

/// Height of the band above the plot that holds the title, in pixels.
const TITLE_BAND_PX: u32 = 43;
/// Top of the title's box, in pixels.
const TITLE_TOP_PX: i32 = 12;
/// Gap between the plot's edge and the tick labels, in pixels.
const TICK_LABEL_GAP_PX: i32 = 6;

/// Draws a chart on a fresh white bitmap in memory by `draw`: returns the RGB pixels (row by
/// row, 3 bytes each, [`WIDTH`] x [`HEIGHT`]) and what `draw` returns.
pub(super) fn render_rgb<T>(
    draw: impl FnOnce(&Area<BitMapBackend<'_>>) -> Result<T, Box<dyn StdError>>,
) -> Result<(Vec<u8>, T), Box<dyn StdError>> {
    let mut buffer = vec![0u8; (WIDTH * HEIGHT * 3) as usize];
    let out = {
        let root = BitMapBackend::with_buffer(&mut buffer, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE)?;
        let out = draw(&root)?;
        root.present()?;
        out
    };
    Ok((buffer, out))
}

/// Draws a chart on a fresh white SVG document in memory by `draw`, [`WIDTH`] x [`HEIGHT`]
/// pixels: returns the document and what `draw` returns.
pub(super) fn render_svg<T>(
    draw: impl FnOnce(&Area<SVGBackend<'_>>) -> Result<T, Box<dyn StdError>>,
) -> Result<(String, T), Box<dyn StdError>> {
    let mut svg = String::new();
    let out = {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE)?;
        let out = draw(&root)?;
        root.present()?;
        out
    };
    Ok((svg, out))
}

/// The colour of pixel `(x, y)` of an RGB bitmap from [`render_rgb`].
#[cfg(test)]
pub(super) fn pixel(rgb: &[u8], (x, y): (i32, i32)) -> RGBColor {
    let at = (y as usize * WIDTH as usize + x as usize) * 3;
    RGBColor(rgb[at], rgb[at + 1], rgb[at + 2])
}

/// Draws the title centred at the top of `root`; returns the area below it.
pub(super) fn titled<C: Canvas>(root: &Area<C>, title: &str) -> Result<Area<C>, Box<dyn StdError>> {
    draw_text(
        root,
        title,
        &font(SANS, TITLE_PX, &TEXT),
        (WIDTH as i32 / 2, TITLE_TOP_PX),
        (Align::Center, Align::Start),
    )?;
    Ok(root.margin(TITLE_BAND_PX, 0, 0, 0))
}

/// Writes `note` in small muted text right-aligned under the plot `plot`, on the line of the x
/// axis title (e.g. that tiny bars are drawn taller than their value).
pub(super) fn draw_axis_note<C: Canvas>(root: &Area<C>, plot: PlotRect, note: &str) -> DrawResult {
    draw_text(
        root,
        note,
        &font(SANS, NOTE_PX, &MUTED),
        (plot.right, plot.bottom + X_LABEL_AREA_PX - 1),
        (Align::End, Align::End),
    )
}

/// Draws the axes with their tick marks, the light horizontal grid, the tick labels (`x_ticks`
/// as whole depths, `y`'s labels) and the axis titles (`x_title` under the depths).
pub(super) fn draw_axes<C: Canvas>(
    root: &Area<C>,
    chart: &mut ChartContext<C, Axes>,
    (x_ticks, x_title): (&[f64], &str),
    y: &YAxis,
) -> DrawResult {
    // plotters draws the lines and tick marks; its labels are left empty (its text drawing
    // spaces letters unevenly) and drawn here instead. They are transparent too, so that an
    // SVG holds no empty `<text>` elements.
    let no_label = |_: &f64| String::new();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .bold_line_style(GRID.stroke_width(1))
        .axis_style(AXIS.stroke_width(1))
        .label_style(TextStyle::from((PLOTTERS_FAMILY, TICK_LABEL_PX)).color(&TRANSPARENT))
        .x_label_formatter(&no_label)
        .y_label_formatter(&no_label)
        .draw()?;
    let plot = PlotRect::from_ranges(chart.plotting_area().get_pixel_range());
    let label = font(SANS, TICK_LABEL_PX, &TEXT);
    for &x in x_ticks {
        let (px, _) = chart.backend_coord(&(x, 0.0));
        draw_text(
            root,
            &format!("{x:.0}"),
            &label,
            (px, plot.bottom + TICK_LABEL_GAP_PX),
            (Align::Center, Align::Start),
        )?;
    }
    let x_range = chart.x_range();
    for (&tick, text) in y.ticks.iter().zip(&y.labels) {
        let (_, py) = chart.backend_coord(&(x_range.start, tick));
        draw_text(
            root,
            text,
            &label,
            (plot.left - TICK_LABEL_GAP_PX - 4, py),
            (Align::End, Align::Center),
        )?;
    }
    let desc = font(SANS, AXIS_DESC_PX, &TEXT);
    draw_text(
        root,
        x_title,
        &desc,
        (
            (plot.left + plot.right) / 2,
            plot.bottom + X_LABEL_AREA_PX - 1,
        ),
        (Align::Center, Align::End),
    )?;
    let (_, desc_h) = text_size("", &desc);
    draw_text_upwards(
        root,
        &y.title,
        &desc,
        (MARGIN_LEFT_PX + desc_h / 2, (plot.top + plot.bottom) / 2),
    )?;
    Ok(())
}
