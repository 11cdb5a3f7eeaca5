//! The comparison chart of several board shapes ([`super::write_depth_comparison`]): one coloured
//! line per shape, with a legend.

use indicatif::HumanCount;
use plotters::prelude::*;

use super::DepthSeries;
use super::layout::{
    Align, Area, BOX_HEADER_PX, Column, DrawResult, INSET_PX, PAD_PX, SANS, TEXT, TickedAxis,
    chart_builder, depth_layout, draw_axes, draw_box_frame, draw_text, font, place_box, share,
    share_axis, text_size, titled,
};

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

/// Draws the comparison chart of `series` (whose totals are `totals`) on `root`, a white bitmap.
pub(super) fn render_comparison(
    series: &[DepthSeries],
    totals: &[u64],
    root: &Area<'_>,
) -> DrawResult {
    let body = titled(root, "Depth distributions compared")?;
    let max_depth = series.iter().map(|s| s.counts.len() - 1).max().unwrap_or(0);
    let x_range = (-0.5, max_depth as f64 + 0.5);
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

    let (plot, x_ticks) = depth_layout(&body, x_range, max_depth)?;

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

    let mut cc = chart_builder(&body).build_cartesian_2d(
        TickedAxis::new(x_range.0..x_range.1, x_ticks.clone()),
        TickedAxis::new(0.0..y_top, y_ticks.clone()),
    )?;
    draw_axes(root, &mut cc, (&x_ticks, &y_ticks), y_decimals)?;
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
    draw_box_frame(root, (lx, ly), legend_size)?;
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
        draw_text(
            root,
            label,
            &label_style,
            (x0 + sample_w + 10, row_y - 2),
            (Align::Start, Align::Start),
        )?;
    }
    Ok(())
}
