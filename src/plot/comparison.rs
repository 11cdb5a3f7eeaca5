//! The comparison chart of several board shapes ([`super::write_depth_comparison`]): one coloured
//! line per shape, with a legend.

use indicatif::HumanCount;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::layout::{
    Align, Area, BOX_HEADER_PX, Canvas, Column, DrawResult, INSET_PX, PAD_PX, SANS, TEXT,
    TickedAxis, YMap, chart_builder, depth_layout, draw_axes, draw_box_frame, draw_text, font,
    place_box, share, text_size, titled,
};
use super::{DepthSeries, Scale};

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
/// Radius of the markers of the comparison chart, in pixels.
const MARKER_PX: i32 = 4;
/// Dashes and gaps of a partial run's line, in pixels.
const DASH_PX: u32 = 8;

/// Draws the line through `points` (in pixels) in `color`: solid, or dashed for a partial run.
fn draw_line<C: Canvas>(
    root: &Area<C>,
    points: Vec<(i32, i32)>,
    color: RGBColor,
    dashed: bool,
) -> DrawResult {
    let style = color.stroke_width(2);
    if dashed {
        root.draw(&DashedPathElement::new(points, DASH_PX, DASH_PX, style))?;
    } else {
        root.draw(&PathElement::new(points, style))?;
    }
    Ok(())
}

/// The legend's line for `series` (whose counts add up to `total`): "3x3: 181,440 solvable
/// boards, max depth 31" (`words.counted` for "solvable boards"), its goal when it is not the
/// standard one, "partial" when it is.
fn legend_label(series: &DepthSeries, total: u64, words: &Words) -> String {
    let goal = series
        .goal
        .map_or(String::new(), |g| format!(" from goal {g}"));
    let max_depth = series.counts.len() - 1;
    if series.partial {
        format!(
            "{}{goal}, partial: {} boards found, depths 0..{max_depth}",
            series.board,
            HumanCount(total)
        )
    } else {
        format!(
            "{}{goal}: {} {}, {} {max_depth}",
            series.board,
            HumanCount(total),
            words.counted,
            words.deepest
        )
    }
}

/// The words of a comparison chart that depend on what it compares.
#[derive(Debug, Clone, Copy)]
pub struct Words<'a> {
    /// The title, e.g. "Depth distributions compared".
    pub title: &'a str,
    /// What each series counts, for the legend and the y axis, e.g. "solvable boards".
    pub counted: &'a str,
    /// The x axis title, e.g. "depth (moves from the goal)".
    pub x_title: &'a str,
    /// What the legend calls a series' last depth, e.g. "max depth".
    pub deepest: &'a str,
}

impl Words<'static> {
    /// The words of [`super::write_depth_comparison`].
    pub const DEPTHS: Words<'static> = Words {
        title: "Depth distributions compared",
        counted: "solvable boards",
        x_title: "depth (moves from the goal)",
        deepest: "max depth",
    };
}

/// The comparison chart's words (for the tests): the title, the y axis title, the legend.
#[derive(Debug, Clone)]
#[cfg_attr(
    not(test),
    expect(dead_code, reason = "read by the tests; the charts only draw")
)]
pub(super) struct ComparisonTexts {
    pub(super) title: String,
    pub(super) y_title: String,
    pub(super) legend: Vec<String>,
}

/// Draws the comparison chart of `series` (whose totals are `totals`) on `root`, a white bitmap
/// or SVG.
pub(super) fn render_comparison<C: Canvas>(
    series: &[DepthSeries],
    totals: &[u64],
    scale: Scale,
    words: &Words,
    root: &Area<C>,
) -> Result<ComparisonTexts, Box<dyn std::error::Error>> {
    let any_partial = series.iter().any(|s| s.partial);
    let title = if any_partial {
        format!("{} (dashed: partial runs)", words.title)
    } else {
        words.title.to_string()
    };
    let body = titled(root, &title)?;
    let max_depth = series.iter().map(|s| s.counts.len() - 1).max().unwrap_or(0);
    let x_range = (-0.5, max_depth as f64 + 0.5);
    // Complete runs are compared by shares of their boards; with a partial run among them,
    // by counts: a partial run's share of the few boards it found would tower over the
    // complete runs' shares at the same depths.
    let by_counts = any_partial;
    let shares: Vec<Vec<f64>> = series
        .iter()
        .zip(totals)
        .map(|(s, &total)| {
            s.counts
                .iter()
                .map(|&c| if by_counts { c as f64 } else { share(c, total) })
                .collect()
        })
        .collect();
    let y_map = YMap::new(scale, shares.iter().flatten().copied());
    let points: Vec<Vec<(f64, f64)>> = shares
        .iter()
        .map(|s| {
            s.iter()
                .enumerate()
                .map(|(d, &v)| (d as f64, y_map.pos(v)))
                .collect()
        })
        .collect();
    let highest = points.iter().flatten().map(|p| p.1).fold(0.0, f64::max);

    // Legend: a line sample with a marker, then "3x3: 181,440 solvable boards, max depth 31".
    let labels: Vec<String> = series
        .iter()
        .zip(totals)
        .map(|(s, &total)| legend_label(s, total, words))
        .collect();
    let label_style = font(SANS, BOX_HEADER_PX, &TEXT);
    let sample_w = 30;
    let row_h = (BOX_HEADER_PX * 1.5).round() as i32;
    let text_w = labels
        .iter()
        .map(|l| text_size(l, &label_style).0)
        .max()
        .unwrap_or(0);
    let legend_size = (
        2 * PAD_PX + sample_w + 10 + text_w,
        2 * PAD_PX + row_h * labels.len() as i32 - (row_h - BOX_HEADER_PX as i32),
    );
    // The legend goes in an upper corner of the plot when the axis need rise only a little for
    // it, never past the data's range (shares end at 100 %, counts one and a half decades, a
    // third on a linear axis, above the highest); otherwise in a band above the plot, so that
    // it hides no line.
    let (inside, _) = depth_layout(&body, x_range, max_depth)?;
    // Each segment occupies its x span up to its higher end (a conservative bound).
    let radius_x = f64::from(MARKER_PX) * (x_range.1 - x_range.0) / f64::from(inside.width());
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
    let (legend_left, legend_top) =
        place_box(inside, x_range, &columns, legend_size, MARKER_PX + 6);
    let cap = match (by_counts, y_map) {
        (false, _) => y_map.pos(100.0).max(highest),
        (true, YMap::Log { .. }) => highest + 1.5,
        (true, YMap::Linear) => highest * 1.35,
    };
    let in_plot = legend_top.is_finite() && legend_top <= cap;
    let (body, needed) = if in_plot {
        (body, legend_top)
    } else {
        let band = legend_size.1 + 2 * INSET_PX;
        (body.split_vertically(band).1, 0.0)
    };
    let (plot, x_ticks) = depth_layout(&body, x_range, max_depth)?;
    let y_title = if by_counts {
        "boards at each depth".to_string()
    } else {
        format!("share of {} (%)", words.counted)
    };
    let y_axis = y_map.axis(highest, needed, &y_title);

    let mut cc = chart_builder(&body).build_cartesian_2d(
        TickedAxis::new(x_range.0..x_range.1, x_ticks.clone()),
        TickedAxis::new(0.0..y_axis.top, y_axis.ticks.clone()),
    )?;
    draw_axes(root, &mut cc, (&x_ticks, words.x_title), &y_axis)?;
    for (i, (pts, s)) in points.iter().zip(series).enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let pixels = pts.iter().map(|p| cc.backend_coord(p)).collect();
        draw_line(root, pixels, color, s.partial)?;
        cc.draw_series(
            pts.iter()
                .map(|&p| Circle::new(p, MARKER_PX, color.filled())),
        )?;
    }

    let (lx, ly) = if in_plot {
        (legend_left, plot.top + INSET_PX)
    } else {
        (
            plot.left + INSET_PX,
            body.get_base_pixel().1 - legend_size.1 - INSET_PX,
        )
    };
    draw_box_frame(root, (lx, ly), legend_size)?;
    for (i, (label, s)) in labels.iter().zip(series).enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let row_y = ly + PAD_PX + i as i32 * row_h;
        let mid = row_y + (BOX_HEADER_PX * 0.45).round() as i32;
        let x0 = lx + PAD_PX;
        draw_line(
            root,
            vec![(x0, mid), (x0 + sample_w, mid)],
            color,
            s.partial,
        )?;
        root.draw(&Circle::new(
            (x0 + sample_w / 2, mid),
            MARKER_PX,
            color.filled(),
        ))?;
        draw_text(
            root,
            label,
            &label_style,
            (x0 + sample_w + 10, row_y - 2),
            (Align::Start, Align::Start),
        )?;
    }
    Ok(ComparisonTexts {
        title,
        y_title: y_axis.title,
        legend: labels,
    })
}
