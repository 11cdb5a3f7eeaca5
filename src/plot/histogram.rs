//! The depth histogram of one board shape ([`super::write_depth_histogram`]): the bars, the box of
//! hardest boards and the note on the last bar.

use std::error::Error as StdError;

use indicatif::HumanCount;
use plotters::prelude::*;

use super::layout::{
    Align, Area, Axes, BOX_HEADER_PX, Canvas, Column, DrawResult, FRAME, GRID_PX, INSET_PX, MONO,
    MUTED, NOTE_PX, PAD_PX, PlotRect, SANS, TEXT, TickedAxis, YMap, chart_builder, depth_layout,
    draw_axes, draw_axis_note, draw_box_frame, draw_text, font, place_box, share, text_size,
    titled,
};
use super::{DepthChart, MIN_BAR_PX, Scale};

/// The bars' colour.
pub(super) const BAR: RGBColor = RGBColor(76, 120, 168);
/// Most hardest boards printed on a histogram; the rest are counted as "+ N more".
const MAX_BOARDS_SHOWN: usize = 6;
/// Half the width of a bar, in depth units (bars are 0.8 wide, gaps 0.2).
const BAR_HALF_WIDTH: f64 = 0.4;
/// The count of the last depth is written above its bar when the bar's true height is below
/// this many pixels (too small to read on the y axis).
const NOTE_BELOW_PX: i32 = 8;
/// Gap between the note on the last bar and the bars under it, in pixels.
const NOTE_GAP_PX: i32 = 4;
/// Least distance from the note's box down to the last bar (the leader line), in pixels.
const NOTE_LEADER_PX: i32 = 10;

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
    /// The box of `hardest`, some of the `at_depth` boards at `depth` (at most `shown` of
    /// them; the rest are counted as "+ N more", or all of them when none is shown), at most
    /// `max_width` pixels wide; `None` when there are none to show.
    fn new(
        (depth, at_depth): (usize, u64),
        hardest: &[String],
        partial: bool,
        max_width: i32,
        shown: usize,
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
            .take(shown.min(MAX_BOARDS_SHOWN))
            .map(|g| aligned_grid(g))
            .collect();
        let shown = boards.len() as u64;
        let more = if shown == 0 {
            Some(format!(
                "{} {}, in hardest.txt",
                HumanCount(at_depth),
                if at_depth == 1 { "board" } else { "boards" }
            ))
        } else {
            (at_depth > shown).then(|| format!("+ {} more", HumanCount(at_depth - shown)))
        };

        let mono = font(MONO, GRID_PX, &TEXT);
        let line_px = (GRID_PX * 1.25).round() as i32;
        let text_w = boards
            .iter()
            .flatten()
            .map(|line| text_size(line, &mono).0)
            .max()
            .unwrap_or(0);
        let lines = boards.iter().map(Vec::len).max().unwrap_or(0) as i32;
        let board_size = (
            text_w + 2 * BOARD_PAD_PX,
            lines * line_px + 2 * BOARD_PAD_PX,
        );

        let header_style = font(SANS, BOX_HEADER_PX, &TEXT);
        let header_w = text_size(&header, &header_style).0;
        let more_w = more
            .as_ref()
            .map_or(0, |m| text_size(m, &font(SANS, NOTE_PX, &MUTED)).0);
        let fit = ((max_width - 2 * PAD_PX + BOARD_GAP_PX) / (board_size.0 + BOARD_GAP_PX)).max(1);
        let per_row = (fit as usize).min(boards.len()).max(1);
        let rows = boards.len().div_ceil(per_row) as i32;
        let grid_w = if boards.is_empty() {
            0
        } else {
            per_row as i32 * (board_size.0 + BOARD_GAP_PX) - BOARD_GAP_PX
        };
        let header_px = (BOX_HEADER_PX * 1.5).round() as i32;
        let mut height = PAD_PX
            + header_px
            + rows * board_size.1
            + (rows - 1).max(0) * (BOARD_GAP_PX / 2)
            + PAD_PX;
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

    fn draw<C: Canvas>(&self, root: &Area<C>, (x, y): (i32, i32)) -> DrawResult {
        draw_box_frame(root, (x, y), self.size)?;
        draw_text(
            root,
            &self.header,
            &font(SANS, BOX_HEADER_PX, &TEXT),
            (x + PAD_PX, y + PAD_PX),
            (Align::Start, Align::Start),
        )?;
        let mono = font(MONO, GRID_PX, &TEXT);
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
                draw_text(
                    root,
                    line,
                    &mono,
                    (bx + BOARD_PAD_PX, ly),
                    (Align::Start, Align::Start),
                )?;
            }
        }
        if let Some(more) = &self.more {
            let rows = self.boards.len().div_ceil(self.per_row) as i32;
            let my = top + rows * bh + (rows - 1).max(0) * (BOARD_GAP_PX / 2) + 6;
            draw_text(
                root,
                more,
                &font(SANS, NOTE_PX, &MUTED),
                (x + PAD_PX, my),
                (Align::Start, Align::Start),
            )?;
        }
        Ok(())
    }
}

/// A box of pixels, `[left, top, right, bottom]`, all inclusive.
pub(super) type PixelBox = [i32; 4];
/// What drawing returns, with a value.
type Drawn<T> = Result<T, Box<dyn StdError>>;

/// Where the bars and the note of a histogram were drawn, in pixels (for the tests).
#[derive(Debug, Clone, Default)]
#[cfg_attr(
    not(test),
    expect(dead_code, reason = "read by the tests; the charts only draw")
)]
pub(super) struct HistogramLayout {
    /// The bar of each depth as drawn, `[left, top, right, bottom]` (inclusive pixels), `None`
    /// for a depth without boards.
    pub(super) bars: Vec<Option<PixelBox>>,
    /// The depths labelled on the x axis.
    pub(super) x_ticks: Vec<f64>,
    /// The note on the last bar and its box `[left, top, right, bottom]`, if one was written.
    pub(super) note: Option<(String, PixelBox)>,
    /// How far the y axis rises above the highest bar, in axis units (decades on a log axis).
    pub(super) headroom: f64,
    /// Whether a bar was drawn taller than its value (and the chart says so).
    pub(super) raised: bool,
    /// The chart's words: the title, the axis titles, the hardest boards' header and "+ N
    /// more", the notes.
    pub(super) texts: Vec<String>,
}

/// The bars as drawn: each one's pixels, the true height of the last one in pixels (before
/// the minimum), and whether any bar was drawn taller than its value.
struct DrawnBars {
    boxes: Vec<Option<PixelBox>>,
    last_height: i32,
    raised: bool,
}

/// Draws the bars: each depth with boards at least [`MIN_BAR_PX`] tall.
fn draw_bars<C: Canvas>(
    root: &Area<C>,
    cc: &ChartContext<C, Axes>,
    counts: &[u64],
    columns: &[Column],
) -> Drawn<DrawnBars> {
    let mut bars = DrawnBars {
        boxes: Vec::with_capacity(columns.len()),
        last_height: 0,
        raised: false,
    };
    for (c, &count) in columns.iter().zip(counts) {
        let (left, axis_y) = cc.backend_coord(&(c.x0, 0.0));
        let (right, true_top) = cc.backend_coord(&(c.x1, c.top));
        bars.last_height = axis_y - true_top;
        if count == 0 {
            bars.boxes.push(None);
            continue;
        }
        // A filled rectangle covers the pixels [left, right) x [top, axis_y).
        let top = true_top.min(axis_y - MIN_BAR_PX);
        bars.raised |= top < true_top;
        root.draw(&Rectangle::new(
            [(left, top), (right, axis_y)],
            BAR.filled(),
        ))?;
        bars.boxes.push(Some([left, top, right - 1, axis_y - 1]));
    }
    Ok(bars)
}

/// The last bar is usually a handful of boards, too few to read on the y axis: writes its count
/// ("2 boards") centred above it, clear of the bars under the text, with a thin leader line down
/// to the bar. The text may reach into the margin right of the plot, so that it stays centred on
/// the last bar. Nothing is written when the bar is tall enough to read. Returns the note and
/// its box.
fn draw_last_bar_note<C: Canvas>(
    root: &Area<C>,
    plot: PlotRect,
    bars: &[Option<PixelBox>],
    true_height: i32,
    count: u64,
) -> Drawn<Option<(String, PixelBox)>> {
    let Some(Some([bar_left, bar_top, bar_right, _])) = bars.last().copied() else {
        return Ok(None);
    };
    if true_height >= NOTE_BELOW_PX {
        return Ok(None);
    }
    let note = counted(count, "board");
    let style = font(SANS, NOTE_PX, &MUTED);
    let (w, h) = text_size(&note, &style);
    let cx = (bar_left + bar_right) / 2;
    let image_right = root.dim_in_pixel().0 as i32 - 3;
    let left = (cx - w / 2).min(image_right - w).max(plot.left + 2);
    // The highest bar under the text (and its margins).
    let under = bars
        .iter()
        .flatten()
        .filter(|b| b[2] >= left - NOTE_GAP_PX && b[0] <= left + w + NOTE_GAP_PX)
        .map(|b| b[1])
        .fold(bar_top, i32::min);
    let bottom = (under - NOTE_GAP_PX).min(bar_top - NOTE_LEADER_PX);
    let top = bottom - h;
    if top <= plot.top {
        return Ok(None);
    }
    draw_text(
        root,
        &note,
        &style,
        (left, top),
        (Align::Start, Align::Start),
    )?;
    root.draw(&PathElement::new(
        vec![(cx, bottom + 1), (cx, bar_top - 2)],
        MUTED.stroke_width(1),
    ))?;
    Ok(Some((note, [left, top, left + w - 1, bottom - 1])))
}

/// `n` and `noun`, pluralized: `1 board`, `2 boards`.
fn counted(n: u64, noun: &str) -> String {
    format!("{} {noun}{}", HumanCount(n), if n == 1 { "" } else { "s" })
}

/// The title of the histogram of `chart`, whose counts add up to `total`.
fn histogram_title(chart: &DepthChart, total: u64) -> String {
    let max_depth = chart.counts.len() - 1;
    if chart.partial {
        format!(
            "{} sliding puzzle, partial: depths 0..{max_depth}, {} found",
            chart.board,
            counted(total, "board")
        )
    } else if chart.goal.is_some() {
        format!(
            "{} sliding puzzle: {}, farthest boards {} from this goal",
            chart.board,
            counted(total, "solvable board"),
            counted(max_depth as u64, "move")
        )
    } else {
        format!(
            "{} sliding puzzle: {}, God's number {max_depth}",
            chart.board,
            counted(total, "solvable board"),
        )
    }
}

/// The x axis title: the depth, from the goal named when it is not the standard one.
pub(super) fn depth_title(goal: Option<&str>) -> String {
    match goal {
        Some(label) => format!("depth (moves from the goal {label})"),
        None => "depth (moves from the goal)".to_string(),
    }
}

/// Draws the depth histogram of `chart` (`total` boards counted) on `root`, a white bitmap or
/// SVG.
pub(super) fn render_histogram<C: Canvas>(
    chart: &DepthChart,
    total: u64,
    root: &Area<C>,
) -> Drawn<HistogramLayout> {
    let max_depth = chart.counts.len() - 1;
    let title = histogram_title(chart, total);
    let body = titled(root, &title)?;
    // A linear axis shows shares, a log axis counts.
    let values: Vec<f64> = match chart.scale {
        Scale::Linear => chart.counts.iter().map(|&c| share(c, total)).collect(),
        Scale::Log => chart.counts.iter().map(|&c| c as f64).collect(),
    };
    let y_map = YMap::new(chart.scale, values.iter().copied());
    let tops: Vec<f64> = values.iter().map(|&v| y_map.pos(v)).collect();
    let highest = tops.iter().copied().fold(0.0, f64::max);
    let x_range = (-0.5, max_depth as f64 + 0.5);

    // The hardest-boards box is placed in the plotting area the axes leave.
    let (plot, x_ticks) = depth_layout(&body, x_range, max_depth)?;
    let columns: Vec<Column> = tops
        .iter()
        .enumerate()
        .map(|(d, &top)| Column {
            x0: d as f64 - BAR_HALF_WIDTH,
            x1: d as f64 + BAR_HALF_WIDTH,
            top,
        })
        .collect();
    // The box of the hardest boards goes in an upper corner, above the bars. The axis may
    // rise a little for it, never far past the data (a third more on a linear axis, one and a
    // half decades on a log one): a box that needs more shows fewer boards, then none (their
    // count and where they are listed), then is left out.
    let limit = match y_map {
        YMap::Linear => highest * 1.35,
        YMap::Log { .. } => highest + 1.5,
    };
    let mut hardest = None;
    let mut needed = 0.0;
    let mut box_left = plot.left + INSET_PX;
    for shown in (0..=MAX_BOARDS_SHOWN).rev() {
        let Some(b) = HardestBox::new(
            (max_depth, chart.counts[max_depth]),
            chart.hardest,
            chart.partial,
            plot.width() * 11 / 20,
            shown,
        ) else {
            break;
        };
        if shown > 0 && b.boards.len() < shown {
            continue; // Fewer boards than that: the same box as a smaller `shown`.
        }
        let (left, top) = place_box(plot, x_range, &columns, b.size, 8);
        if top.is_finite() && top <= limit {
            box_left = left;
            needed = top;
            hardest = Some(b);
            break;
        }
    }
    let y_title = match (chart.scale, chart.partial) {
        (Scale::Log, _) => "boards at each depth",
        (Scale::Linear, false) => "share of solvable boards (%)",
        (Scale::Linear, true) => "share of the boards found (%)",
    };
    let y_axis = y_map.axis(highest, needed, y_title);
    let y_top = y_axis.top;

    let mut cc = chart_builder(&body).build_cartesian_2d(
        TickedAxis::new(x_range.0..x_range.1, x_ticks.clone()),
        TickedAxis::new(0.0..y_axis.top, y_axis.ticks.clone()),
    )?;
    let x_title = depth_title(chart.goal);
    draw_axes(root, &mut cc, (&x_ticks, &x_title), &y_axis)?;
    let mut texts = vec![title, x_title, y_axis.title];
    let bars = draw_bars(root, &cc, chart.counts, &columns)?;
    if bars.raised {
        let raised = format!("bars shorter than {MIN_BAR_PX} px are drawn {MIN_BAR_PX} px tall");
        draw_axis_note(root, plot, &raised)?;
        texts.push(raised);
    }
    let note = draw_last_bar_note(
        root,
        plot,
        &bars.boxes,
        bars.last_height,
        chart.counts[max_depth],
    )?;

    if let Some(b) = &hardest {
        b.draw(root, (box_left, plot.top + INSET_PX))?;
        texts.push(b.header.clone());
        texts.extend(b.more.clone());
    }
    texts.extend(note.as_ref().map(|(text, _)| text.clone()));
    Ok(HistogramLayout {
        headroom: y_top - highest,
        bars: bars.boxes,
        x_ticks,
        note,
        raised: bars.raised,
        texts,
    })
}
