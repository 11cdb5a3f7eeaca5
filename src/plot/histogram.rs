//! The depth histogram of one board shape ([`super::write_depth_histogram`]): the bars, the box of
//! hardest boards and the note on the last bar.

use std::path::Path;

use indicatif::HumanCount;
use plotters::prelude::*;

use super::DepthChart;
use super::layout::{
    Area, Axes, BOX_HEADER_PX, Column, DrawResult, FRAME, GRID_PX, INSET_PX, MONO, MUTED, NOTE_PX,
    PAD_PX, PlotRect, SANS, TEXT, TickedAxis, chart_builder, depth_ticks, draw_box_frame,
    draw_mesh, place_box, share, share_axis, text_size, text_style, titled_root,
};

/// The bars' colour.
const BAR: RGBColor = RGBColor(76, 120, 168);
/// Most hardest boards printed on a histogram; the rest are counted as "+ N more".
const MAX_BOARDS_SHOWN: usize = 6;
/// Half the width of a bar, in depth units (bars are 0.8 wide, gaps 0.2).
const BAR_HALF_WIDTH: f64 = 0.4;

/// A grid string with its numbers right-aligned in columns of equal width, one string per row.
pub(super) fn aligned_grid(grid: &str) -> Vec<String> {
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

/// Draws the depth histogram of `chart` (`total` solvable boards) to `file`.
pub(super) fn render_histogram(chart: &DepthChart, total: u64, file: &Path) -> DrawResult {
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
