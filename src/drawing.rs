//! Pictures of small game graphs as Graphviz DOT text, in the style of the course notes that
//! introduced the game graph: each vertex drawn as its board (an HTML-like table, the blank
//! grey), the goal framed in green, an edge between boards one move apart labelled with the
//! tile that slides (in the multi-tile metric, the tiles that slide: `5 6`, nearest the blank
//! first).
//!
//! Two pictures ([`Scope`]):
//! - the **whole game graph** of a tiny board (the 2x2 puzzle: 24 boards in two components,
//!   each a 12-cycle), one framed cluster per component, each laid out in rows by moves from
//!   its first board (the goal for the goal's component);
//! - the **neighbourhood of the goal**: every board within `k` moves of it, in rows by depth,
//!   with a depth scale on the left. Any board size works (boards are explored one move at a
//!   time, no dense index).
//!
//! Drawings hold at most [`MAX_BOARDS`] boards. This module returns text and does no I/O; the
//! `draw` command writes the DOT file and runs Graphviz's `dot` on it for the PNG. The same
//! scope gives the same text.

use std::fmt::Write as _;

use crate::board::Board;
use crate::metric::Metric;
use crate::neighbourhood::{Explorer, TooMany};
use crate::shape::Shape;
use indicatif::HumanCount;

/// Most boards in one drawing (beyond, Graphviz is slow and the picture unreadable).
pub const MAX_BOARDS: usize = 1000;

/// Colour of the goal's frame.
const GOAL_GREEN: &str = "#2ca02c";
/// Background of the blank cell.
const BLANK_GREY: &str = "#c8c8c8";
/// Side of one cell of a drawn board, in points.
const CELL_PT: usize = 22;

/// Which boards a drawing shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Every board of the shape, every component.
    WholeGraph,
    /// The boards within this many moves of the goal.
    Radius(u32),
}

/// Why a drawing was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DrawError {
    /// The scope holds more than [`MAX_BOARDS`] boards.
    #[error("{what}; a drawing holds at most {max} boards ({hint})", max = HumanCount(MAX_BOARDS as u64))]
    TooManyBoards {
        /// What was asked and how big it is, e.g. `the 3x3 game graph has 362,880 boards`.
        what: String,
        /// What to try instead.
        hint: &'static str,
    },
}

/// One board of a drawing: its component and level (row) from the exploration.
pub use crate::neighbourhood::Vertex;

/// One edge of a drawing: two boards one move apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// Index in [`Drawing::vertices`] of the board nearer its component's first board.
    pub from: usize,
    /// Index of the other board (one level further, or the same level).
    pub to: usize,
    /// The tiles that slide, as printed (1-based), nearest the blank of `from` first: one in
    /// the single-tile metric, 1 to `k` in the multi-tile metric.
    pub tiles: Vec<u64>,
}

/// A picture of part of a game graph: its boards, in breadth-first order from the goal (then
/// from the first board, by rank, of each other component), and the edges among them.
#[derive(Debug, Clone)]
pub struct Drawing {
    shape: Shape,
    metric: Metric,
    scope: Scope,
    vertices: Vec<Vertex>,
    edges: Vec<Edge>,
    components: usize,
}

impl Drawing {
    /// The drawing of `scope` on `shape`, moves counted in `metric`.
    ///
    /// # Errors
    /// [`DrawError::TooManyBoards`] when the scope holds more than [`MAX_BOARDS`] boards.
    pub fn new(shape: Shape, metric: Metric, scope: Scope) -> Result<Drawing, DrawError> {
        match scope {
            Scope::WholeGraph => Drawing::whole_graph(shape, metric),
            Scope::Radius(k) => Drawing::neighbourhood(shape, metric, k),
        }
    }

    /// Every board of `shape` (both components of a rectangular board), with the edges of
    /// `metric`.
    ///
    /// # Errors
    /// [`DrawError::TooManyBoards`] when `shape` has more than [`MAX_BOARDS`] boards (more than
    /// 6 cells).
    pub fn whole_graph(shape: Shape, metric: Metric) -> Result<Drawing, DrawError> {
        let too_many = || DrawError::TooManyBoards {
            what: format!(
                "the {shape} game graph has {} boards",
                shape.board_count().map_or_else(
                    || format!("{}!", shape.cells()),
                    |b| HumanCount(b).to_string()
                )
            ),
            hint: "draw the goal's neighbourhood with --radius K",
        };
        let boards = shape
            .board_count()
            .filter(|&b| b <= MAX_BOARDS as u64)
            .ok_or_else(too_many)?;
        let mut explorer = Explorer::new(metric, MAX_BOARDS);
        for rank in 0..boards {
            let board = Board::from_rank(shape, rank);
            if !explorer.contains(&board) {
                explorer
                    .explore(board, None)
                    .map_err(|TooMany| too_many())?;
            }
        }
        Ok(Drawing::explored(
            explorer,
            metric,
            shape,
            Scope::WholeGraph,
        ))
    }

    /// The boards within `radius` moves (of `metric`) of the goal of `shape`.
    ///
    /// # Errors
    /// [`DrawError::TooManyBoards`] when there are more than [`MAX_BOARDS`] of them.
    pub fn neighbourhood(shape: Shape, metric: Metric, radius: u32) -> Result<Drawing, DrawError> {
        let mut explorer = Explorer::new(metric, MAX_BOARDS);
        explorer
            .explore(Board::goal(shape), Some(radius))
            .map_err(|_| DrawError::TooManyBoards {
                what: format!(
                    "more than {} {shape} boards lie within {radius} moves of the goal",
                    HumanCount(MAX_BOARDS as u64)
                ),
                hint: "try a smaller --radius",
            })?;
        Ok(Drawing::explored(
            explorer,
            metric,
            shape,
            Scope::Radius(radius),
        ))
    }

    /// The drawing of what `explorer` explored: its boards and every edge among them, once.
    fn explored(explorer: Explorer, metric: Metric, shape: Shape, scope: Scope) -> Drawing {
        let edges = explorer
            .edges()
            .into_iter()
            .map(|(i, j, to)| {
                let board = &explorer.vertices()[i].board;
                let blank = board.blank();
                let tiles: Vec<u64> = board.tiles().collect();
                // The tiles from the blank's side to `to`, which slide one cell each.
                let step = if blank.abs_diff(to) < shape.cols() {
                    1
                } else {
                    shape.cols()
                };
                let cells: Vec<usize> = if to > blank {
                    (blank + step..=to).step_by(step).collect()
                } else {
                    (to..blank).step_by(step).rev().collect()
                };
                Edge {
                    from: i,
                    to: j,
                    tiles: cells.into_iter().map(|c| tiles[c]).collect(),
                }
            })
            .collect();
        Drawing {
            shape,
            metric,
            scope,
            components: explorer.components(),
            vertices: explorer.into_vertices(),
            edges,
        }
    }

    /// The shape drawn.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The metric of its moves.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// What is drawn.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// The boards, in breadth-first order; the goal first.
    pub fn vertices(&self) -> &[Vertex] {
        &self.vertices
    }

    /// The edges among the boards, each once.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// Connected components drawn (1 for a neighbourhood).
    pub fn components(&self) -> usize {
        self.components
    }

    /// The file name without extension: `game_graph`, or `goal_neighbourhood_r2` for radius 2.
    pub fn file_stem(&self) -> String {
        match self.scope {
            Scope::WholeGraph => "game_graph".to_string(),
            Scope::Radius(k) => format!("goal_neighbourhood_r{k}"),
        }
    }

    /// The title printed on the picture (naming the multi-tile metric when it is the one).
    pub fn title(&self) -> String {
        let boards = plural(self.vertices.len() as u64, "board");
        let edges = plural(self.edges.len() as u64, "move");
        let title = match self.scope {
            Scope::WholeGraph => format!(
                "The game graph of the {} puzzle: {boards}, {edges}, {}",
                self.shape,
                plural(self.components as u64, "component")
            ),
            Scope::Radius(k) => format!(
                "The {} boards within {} of the goal: {boards}, {edges} between them",
                self.shape,
                plural(u64::from(k), "move")
            ),
        };
        match self.metric {
            Metric::Stm => title,
            Metric::Mtm => format!("{title} (multi-tile metric)"),
        }
    }

    /// The drawing as a Graphviz DOT `graph`, for `dot -Tpng`.
    ///
    /// Rows follow [`Vertex::level`] (every edge is written from the nearer board to the
    /// farther one, which `dot` ranks downwards). The whole graph puts each component in its
    /// own framed cluster; a neighbourhood gets a depth scale on its left.
    pub fn to_dot(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// npuzzle draw: {}\n// Render: dot -Tpng {}.dot -o {}.png",
            self.title(),
            self.file_stem(),
            self.file_stem()
        );
        let _ = writeln!(s, "graph \"{}\" {{", self.shape);
        let _ = writeln!(
            s,
            "  graph [label=\"{}\", labelloc=t, fontname=\"DejaVu Sans\", fontsize=18, \
             nodesep=0.3, ranksep=0.45, pad=0.3, bgcolor=white];",
            self.title()
        );
        s.push_str("  node [shape=plain, fontname=\"DejaVu Sans Mono\", fontsize=13];\n");
        s.push_str(
            "  edge [color=\"#8c8c8c\", penwidth=1.2, fontname=\"DejaVu Sans\", fontsize=10, \
             fontcolor=\"#606060\"];\n",
        );
        match self.scope {
            Scope::WholeGraph => self.clusters(&mut s),
            Scope::Radius(_) => self.depth_scale(&mut s),
        }
        for e in &self.edges {
            let tiles: Vec<String> = e.tiles.iter().map(u64::to_string).collect();
            let _ = writeln!(
                s,
                "  \"{}\" -- \"{}\" [label=\"{}\"];",
                self.vertices[e.from].board.label(),
                self.vertices[e.to].board.label(),
                tiles.join(" ")
            );
        }
        s.push_str("}\n");
        s
    }

    /// One framed cluster of boards per component.
    fn clusters(&self, s: &mut String) {
        for c in 0..self.components {
            let members: Vec<&Vertex> = self.vertices.iter().filter(|v| v.component == c).collect();
            let kind = if c == 0 { "solvable" } else { "unsolvable" };
            let label = format!("{kind}: {}", plural(members.len() as u64, "board"));
            let _ = writeln!(
                s,
                "  subgraph cluster_{c} {{\n    label=\"{label}\"; fontsize=13; style=rounded; \
                 color=\"#b0b0b0\";"
            );
            for v in members {
                let _ = writeln!(s, "  {}", self.node(v));
            }
            s.push_str("  }\n");
        }
    }

    /// The boards in rows by depth, with a scale (`0 moves`, `1 move`, ...) on the left.
    fn depth_scale(&self, s: &mut String) {
        let deepest = self.vertices.iter().map(|v| v.level).max().unwrap_or(0);
        s.push_str("  node [fontname=\"DejaVu Sans\", fontsize=12, fontcolor=\"#606060\"];\n");
        for d in 0..=deepest {
            let _ = writeln!(
                s,
                "  \"depth {d}\" [label=\"{}\"];",
                plural(d.into(), "move")
            );
        }
        for d in 1..=deepest {
            let _ = writeln!(s, "  \"depth {}\" -- \"depth {d}\" [style=invis];", d - 1);
        }
        s.push_str("  node [fontname=\"DejaVu Sans Mono\", fontsize=13, fontcolor=black];\n");
        for d in 0..=deepest {
            let _ = write!(s, "  {{ rank=same; \"depth {d}\";");
            for v in self.vertices.iter().filter(|v| v.level == d) {
                let _ = write!(s, " \"{}\";", v.board.label());
            }
            s.push_str(" }\n");
        }
        for v in &self.vertices {
            let _ = writeln!(s, "  {}", self.node(v));
        }
    }

    /// The node statement of `v`: its board as an HTML-like table.
    fn node(&self, v: &Vertex) -> String {
        let is_goal = v.component == 0 && v.level == 0;
        let frame = if is_goal {
            format!("border=\"3\" color=\"{GOAL_GREEN}\"")
        } else {
            "border=\"0\"".to_string()
        };
        let mut s = format!(
            "\"{}\" [label=<<table {frame} cellborder=\"1\" cellspacing=\"0\" cellpadding=\"0\" \
             bgcolor=\"white\">",
            v.board.label()
        );
        let cols = self.shape.cols();
        for (i, tile) in v.board.tiles().enumerate() {
            if i % cols == 0 {
                s.push_str("<tr>");
            }
            let size = format!("width=\"{CELL_PT}\" height=\"{CELL_PT}\" fixedsize=\"true\"");
            if tile == 0 {
                let _ = write!(s, "<td {size} bgcolor=\"{BLANK_GREY}\"> </td>");
            } else {
                let _ = write!(s, "<td {size}>{tile}</td>");
            }
            if i % cols == cols - 1 {
                s.push_str("</tr>");
            }
        }
        s.push_str("</table>>];");
        s
    }
}

/// `1 move`, `2 moves`.
fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", HumanCount(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(r: usize, c: usize) -> Shape {
        Shape::new(r, c).unwrap()
    }

    /// The whole 2x2 graph: 24 boards, 24 edges, 2 components of 12 boards (../shared/reference
    /// "Whole graph" table), each a 12-cycle: 6 levels deep, one board at the bottom
    /// (OEIS A090033: radius 6, one antipode).
    #[test]
    fn whole_2x2_graph_is_two_twelve_cycles() {
        let d = Drawing::whole_graph(shape(2, 2), Metric::Stm).unwrap();
        assert_eq!(
            (d.vertices().len(), d.edges().len(), d.components()),
            (24, 24, 2)
        );
        for c in 0..2 {
            let levels: Vec<u32> = d
                .vertices()
                .iter()
                .filter(|v| v.component == c)
                .map(|v| v.level)
                .collect();
            assert_eq!(
                levels,
                [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6],
                "component {c}"
            );
        }
        assert_eq!(d.vertices()[0].board, Board::goal(shape(2, 2)));
        for e in d.edges() {
            let (a, b) = (&d.vertices()[e.from], &d.vertices()[e.to]);
            assert_eq!(a.component, b.component);
            assert_eq!(a.level + 1, b.level);
        }
        let dot = d.to_dot();
        assert_eq!(dot.matches("<table").count(), 24);
        assert_eq!(dot.matches(" -- ").count(), 24);
        assert_eq!(
            dot.matches(GOAL_GREEN).count(),
            1,
            "only the goal is framed"
        );
        assert_eq!(dot.matches("subgraph cluster_").count(), 2);
    }

    /// Within 2 moves of the 3x3 goal: 1 + 2 + 4 boards (OEIS A089473), a tree of 6 edges.
    #[test]
    fn goal_neighbourhood_of_3x3_follows_the_depth_distribution() {
        let d = Drawing::neighbourhood(shape(3, 3), Metric::Stm, 2).unwrap();
        assert_eq!((d.vertices().len(), d.edges().len()), (7, 6));
        assert_eq!(d.file_stem(), "goal_neighbourhood_r2");
        let d5 = Drawing::neighbourhood(shape(3, 3), Metric::Stm, 5).unwrap();
        assert_eq!(d5.vertices().len(), 1 + 2 + 4 + 8 + 16 + 20);
        // The first move: tile 6 slides down or tile 8 slides right.
        let first: Vec<u64> = d.edges().iter().take(2).map(|e| e.tiles[0]).collect();
        assert_eq!(first, [6, 8]);
        // Any board size: the 15-puzzle's goal has 2 neighbours.
        assert_eq!(
            Drawing::neighbourhood(shape(4, 4), Metric::Stm, 1)
                .unwrap()
                .vertices()
                .len(),
            3
        );
    }

    /// Within 1 MTM move of the 3x3 goal: the blank jumps 1 or 2 cells up or left (4
    /// boards, OEIS-free: the MTM layer sizes 1, 4 of lightln2/SlidingTilesSolver's 3x3
    /// table); the jumps of 1 and 2 are also one move apart, so 4 + 2 edges, and an edge of
    /// two tiles is labelled with both, nearest the blank first.
    #[test]
    fn mtm_edges_are_labelled_with_every_tile_that_slides() {
        let d = Drawing::neighbourhood(shape(3, 3), Metric::Mtm, 1).unwrap();
        assert_eq!((d.vertices().len(), d.edges().len()), (5, 6));
        let labels: Vec<String> = d
            .edges()
            .iter()
            .map(|e| {
                e.tiles
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(labels[..4], ["6", "6 3", "8", "8 7"]);
        assert!(d.title().ends_with("(multi-tile metric)"), "{}", d.title());
        assert!(d.to_dot().contains("[label=\"6 3\"]"));
        // 2x2: one move along a line of two cells is a single slide, the same graph.
        let whole = Drawing::whole_graph(shape(2, 2), Metric::Mtm).unwrap();
        assert_eq!((whole.vertices().len(), whole.edges().len()), (24, 24));
    }

    #[test]
    fn too_many_boards_are_refused_with_a_hint() {
        let err = Drawing::whole_graph(shape(3, 3), Metric::Stm)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("the 3x3 game graph has 362,880 boards"),
            "{err}"
        );
        assert!(err.contains("--radius"), "{err}");
        let err = Drawing::neighbourhood(shape(3, 3), Metric::Stm, 12)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("more than 1,000 3x3 boards lie within 12 moves"),
            "{err}"
        );
        assert!(
            Drawing::whole_graph(shape(2, 3), Metric::Stm).is_ok(),
            "720 boards fit"
        );
    }
}
