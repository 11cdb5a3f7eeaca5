//! The whole game graph in formats that graph tools read natively: GraphML (Gephi, Cytoscape,
//! igraph, networkx, yEd) and DOT (Graphviz), for boards of at most [`MAX_CELLS`] cells.
//!
//! Both formats hold the same graph as `edges.csv` and `nodes.csv` together:
//!
//! - one vertex per board (all `n!`, every component), in rank order, identified by its
//!   R-analysis label (`123456789`, `1-2-...-10`: the ids of `edges.csv`), with the attributes
//!   `board` (the label again, for tools that hide ids), `rank` (the dense index), `component`
//!   (0 is the goal's) and `depth` (moves from the goal; **absent** for boards the goal cannot
//!   reach, as `nodes.csv` leaves it empty);
//! - one undirected edge per pair of boards one move apart in the analysis's metric, listed
//!   once in the order of `edges.csv` (from each board, its blank's right then down moves;
//!   in the multi-tile metric, every jump right then every jump down, nearest first).
//!
//! Files are streamed: formatted in parallel in fixed rank chunks and written in rank order
//! through [`export::write_chunked`], so memory stays bounded and the same analysis gives the
//! same bytes. They are written atomically ([`export::write_atomically`]). Labels, shape names
//! and numbers are made of digits, `x` and `-`, so nothing needs XML or DOT escaping.

use std::io::{self, Write};
use std::path::Path;

use indicatif::HumanCount;

use crate::analysis::{Analysis, PerBoard};
use crate::board::Board;
use crate::export::{self, BoardFormat, ExportError};
use crate::metric::Metric;
use crate::progress::Progress;
use crate::rank::SequentialUnranker;
use crate::shape::Shape;

/// Largest board, in cells, that [`write_graph`] exports (3,628,800 boards: 2x5, 5x2, 1x10).
///
/// A 10-cell GraphML file is about 1 GB; an 11-cell one would be 11 times that, which no
/// interactive tool loads.
pub const MAX_CELLS: usize = 10;

/// A graph file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GraphFormat {
    /// GraphML: XML with declared, typed attribute keys (Gephi, Cytoscape, igraph, networkx).
    GraphMl,
    /// Graphviz DOT: an undirected `graph` with the attributes on each node statement.
    Dot,
}

impl GraphFormat {
    /// The file name the `export` command writes: `graph.graphml` or `graph.dot`.
    pub fn file_name(self) -> &'static str {
        match self {
            GraphFormat::GraphMl => "graph.graphml",
            GraphFormat::Dot => "graph.dot",
        }
    }
}

/// Why a graph could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum InteropError {
    /// The board has more than [`MAX_CELLS`] cells.
    #[error(
        "{shape} has {boards} boards; GraphML and DOT exports stop at {MAX_CELLS} cells \
         (3,628,800 boards: 2x5, 5x2, 1x10); for 11 or 12 cells, \
         `npuzzle analyze --edges ranks --nodes ranks` writes the graph as CSV"
    )]
    TooLarge {
        /// The shape asked for.
        shape: Shape,
        /// Its number of boards, grouped (`479,001,600`).
        boards: String,
    },
    /// The analysis was run without [`crate::analysis::Options::per_board`].
    #[error("the analysis kept no per-board results (run it with per_board: true)")]
    NoPerBoard,
    /// The file could not be written.
    #[error(transparent)]
    Write(#[from] ExportError),
}

/// Checks that `shape` is small enough to export ([`MAX_CELLS`]).
///
/// # Errors
/// [`InteropError::TooLarge`], with the number of boards, above [`MAX_CELLS`] cells.
pub fn check_shape(shape: Shape) -> Result<(), InteropError> {
    if shape.cells() <= MAX_CELLS {
        return Ok(());
    }
    let boards = match shape.board_count() {
        Some(b) => HumanCount(b).to_string(),
        None => format!("{}!", shape.cells()),
    };
    Err(InteropError::TooLarge { shape, boards })
}

/// Writes the whole game graph of `analysis` to `path` in `format`
/// ([`write_graphml`] or [`write_dot`]).
///
/// # Errors
/// As [`write_graphml`] and [`write_dot`].
pub fn write_graph(
    path: &Path,
    analysis: &Analysis,
    format: GraphFormat,
    progress: &dyn Progress,
) -> Result<(), InteropError> {
    match format {
        GraphFormat::GraphMl => write_graphml(path, analysis, progress),
        GraphFormat::Dot => write_dot(path, analysis, progress),
    }
}

/// The markup around each vertex and edge of one format.
struct Syntax {
    /// Everything before the first vertex.
    head: fn(&Analysis) -> String,
    /// Appends the vertex of `perm` (rank `rank`, component, depth if reachable).
    node: fn(&mut Vec<u8>, &[u8], u32, u32, Option<u8>),
    /// Appends the edge between two boards.
    edge: fn(&mut Vec<u8>, &[u8], &[u8]),
    /// Everything after the last edge.
    tail: &'static str,
}

/// Writes the whole game graph of `analysis` as GraphML 1.0 (undirected), to `path`.
///
/// The four vertex attributes are declared as `<key>`s with their types (`board`: string;
/// `rank`: long; `component`, `depth`: int), so networkx's `read_graphml`, igraph's
/// `read_graph(format = "graphml")`, Gephi and Cytoscape type them without help. A vertex:
///
/// ```text
/// <node id="123456798"><data key="board">123456798</data><data key="rank">1</data><data key="component">0</data><data key="depth">1</data></node>
/// ```
///
/// and an edge `<edge source="123456798" target="123456789"/>`.
///
/// # Errors
/// [`InteropError::TooLarge`] above [`MAX_CELLS`] cells, [`InteropError::NoPerBoard`]
/// without per-board results, [`InteropError::Write`] when the file cannot be written
/// (`path` is then untouched).
pub fn write_graphml(
    path: &Path,
    analysis: &Analysis,
    progress: &dyn Progress,
) -> Result<(), InteropError> {
    const SYNTAX: Syntax = Syntax {
        head: graphml_head,
        node: |buf, perm, rank, component, depth| {
            buf.extend_from_slice(b"<node id=\"");
            put_label(buf, perm);
            buf.extend_from_slice(b"\"><data key=\"board\">");
            put_label(buf, perm);
            buf.extend_from_slice(b"</data><data key=\"rank\">");
            put_number(buf, rank);
            buf.extend_from_slice(b"</data><data key=\"component\">");
            put_number(buf, component);
            if let Some(d) = depth {
                buf.extend_from_slice(b"</data><data key=\"depth\">");
                put_number(buf, u32::from(d));
            }
            buf.extend_from_slice(b"</data></node>\n");
        },
        edge: |buf, from, to| {
            buf.extend_from_slice(b"<edge source=\"");
            put_label(buf, from);
            buf.extend_from_slice(b"\" target=\"");
            put_label(buf, to);
            buf.extend_from_slice(b"\"/>\n");
        },
        tail: "</graph>\n</graphml>\n",
    };
    write_with(path, analysis, &SYNTAX, progress)
}

fn graphml_head(analysis: &Analysis) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">
<!-- {} -->
<key id="board" for="node" attr.name="board" attr.type="string"/>
<key id="rank" for="node" attr.name="rank" attr.type="long"/>
<key id="component" for="node" attr.name="component" attr.type="int"/>
<key id="depth" for="node" attr.name="depth" attr.type="int"/>
<graph id="{}" edgedefault="undirected">
"#,
        description(analysis),
        analysis.shape
    )
}

/// Writes the whole game graph of `analysis` as a Graphviz DOT `graph` (undirected), to `path`.
///
/// Each board is a node statement carrying the same attributes as [`write_graphml`]:
///
/// ```text
/// "123456798" [board="123456798", rank=1, component=0, depth=1];
/// ```
///
/// and each edge `"123456798" -- "123456789";`. Graphviz's tools (`dot`, `sfdp`, `gc`, `gvpr`)
/// and pydot read it; drawing a whole graph of thousands of boards is slow and unreadable,
/// see the `draw` command for pictures.
///
/// # Errors
/// As [`write_graphml`].
pub fn write_dot(
    path: &Path,
    analysis: &Analysis,
    progress: &dyn Progress,
) -> Result<(), InteropError> {
    const SYNTAX: Syntax = Syntax {
        head: |analysis| {
            format!(
                "// {}\ngraph \"{}\" {{\n",
                description(analysis),
                analysis.shape
            )
        },
        node: |buf, perm, rank, component, depth| {
            buf.push(b'"');
            put_label(buf, perm);
            buf.extend_from_slice(b"\" [board=\"");
            put_label(buf, perm);
            buf.extend_from_slice(b"\", rank=");
            put_number(buf, rank);
            buf.extend_from_slice(b", component=");
            put_number(buf, component);
            if let Some(d) = depth {
                buf.extend_from_slice(b", depth=");
                put_number(buf, u32::from(d));
            }
            buf.extend_from_slice(b"];\n");
        },
        edge: |buf, from, to| {
            buf.push(b'"');
            put_label(buf, from);
            buf.extend_from_slice(b"\" -- \"");
            put_label(buf, to);
            buf.extend_from_slice(b"\";\n");
        },
        tail: "}\n",
    };
    write_with(path, analysis, &SYNTAX, progress)
}

/// The comment at the top of both formats.
fn description(analysis: &Analysis) -> String {
    format!(
        "npuzzle: the game graph of the {} puzzle in the {} metric, {} boards, {} edges, goal \
         {}; vertex attributes board, rank, component, depth (absent when unreachable)",
        analysis.shape,
        analysis.metric.long_name(),
        analysis.boards,
        analysis.edges,
        Board::goal(analysis.shape).label()
    )
}

/// Streams head, vertices, edges and tail of `syntax` to `path`.
fn write_with(
    path: &Path,
    analysis: &Analysis,
    syntax: &Syntax,
    progress: &dyn Progress,
) -> Result<(), InteropError> {
    let shape = analysis.shape;
    check_shape(shape)?;
    let per_board = analysis
        .per_board
        .as_ref()
        .ok_or(InteropError::NoPerBoard)?;
    let boards = analysis.boards as u32;
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let result = export::write_atomically(path, |out| {
        out.write_all((syntax.head)(analysis).as_bytes())?;
        task(progress, &format!("{name} vertices"), boards, || {
            crate::with_cells!(shape.cells(), N => export::write_chunked(out, boards, progress, |lo, hi, buf| {
                nodes_chunk::<N>(per_board, lo, hi, syntax, buf)
            }))
        })?;
        task(progress, &format!("{name} edges"), boards, || {
            crate::with_cells!(shape.cells(), N => export::write_chunked(out, boards, progress, |lo, hi, buf| {
                edges_chunk::<N>(shape, analysis.metric, lo, hi, syntax, buf)
            }))
        })?;
        out.write_all(syntax.tail.as_bytes())
    });
    Ok(result?)
}

/// Runs `work` as the progress task `name` over `boards` boards, closing it even on failure.
fn task(
    progress: &dyn Progress,
    name: &str,
    boards: u32,
    work: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    progress.begin(name, u64::from(boards), "boards");
    let result = work();
    progress.end();
    result
}

fn nodes_chunk<const N: usize>(
    per_board: &PerBoard,
    lo: u32,
    hi: u32,
    syntax: &Syntax,
    buf: &mut Vec<u8>,
) {
    let mut unranker = SequentialUnranker::<N>::default();
    for r in lo..hi {
        let perm = unranker.unrank(u64::from(r)).perm;
        let (component, depth) = per_board.get(&perm, u64::from(r));
        (syntax.node)(buf, &perm, r, component, depth);
    }
}

/// The edges from boards `lo..hi` in `metric`: for each, its blank's right then down moves
/// (as `edges.csv`), so every undirected edge appears once.
fn edges_chunk<const N: usize>(
    shape: Shape,
    metric: Metric,
    lo: u32,
    hi: u32,
    syntax: &Syntax,
    buf: &mut Vec<u8>,
) {
    crate::graph::for_each_forward_edge_in::<N>(
        metric,
        shape.cols(),
        lo,
        hi,
        |_, perm, _, next| (syntax.edge)(buf, perm, next),
    );
}

#[inline(always)]
fn put_label(buf: &mut Vec<u8>, perm: &[u8]) {
    // The rank is only used by BoardFormat::Ranks.
    export::put_board(buf, perm, 0, BoardFormat::Labels);
}

#[inline(always)]
fn put_number(buf: &mut Vec<u8>, n: u32) {
    buf.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Options, analyze_unchecked};
    use crate::progress::NoProgress;

    fn analysis(rows: usize, cols: usize) -> Analysis {
        let shape = Shape::new(rows, cols).unwrap();
        analyze_unchecked(
            &crate::Board::goal(shape),
            Options {
                per_board: true,
                ..Options::default()
            },
            &NoProgress,
        )
        .unwrap()
    }

    /// The 2x2 GraphML parses as XML, declares its keys, and holds the 24 boards and 24 edges
    /// of the whole 2x2 graph (../shared/reference "Whole graph" table) with their attributes.
    #[test]
    fn graphml_of_2x2_parses_with_keys_vertices_and_edges() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("graph.graphml");
        write_graphml(&path, &analysis(2, 2), &NoProgress).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        let keys: Vec<(&str, &str)> = doc
            .descendants()
            .filter(|n| n.has_tag_name("key"))
            .map(|n| {
                (
                    n.attribute("attr.name").unwrap(),
                    n.attribute("attr.type").unwrap(),
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                ("board", "string"),
                ("rank", "long"),
                ("component", "int"),
                ("depth", "int")
            ]
        );
        let graph = doc.descendants().find(|n| n.has_tag_name("graph")).unwrap();
        assert_eq!(graph.attribute("edgedefault"), Some("undirected"));
        let nodes: Vec<_> = graph
            .children()
            .filter(|n| n.has_tag_name("node"))
            .collect();
        let edges: Vec<_> = graph
            .children()
            .filter(|n| n.has_tag_name("edge"))
            .collect();
        assert_eq!((nodes.len(), edges.len()), (24, 24));
        let data = |n: &roxmltree::Node, key: &str| {
            n.children()
                .find(|d| d.attribute("key") == Some(key))
                .and_then(|d| d.text())
                .map(str::to_string)
        };
        assert_eq!(nodes[0].attribute("id"), Some("1234"));
        assert_eq!(data(&nodes[0], "board").as_deref(), Some("1234"));
        assert_eq!(data(&nodes[0], "rank").as_deref(), Some("0"));
        assert_eq!(data(&nodes[0], "depth").as_deref(), Some("0"));
        // Half the boards are unreachable: component 1, no depth.
        let unreachable = nodes.iter().filter(|n| data(n, "depth").is_none()).count();
        assert_eq!(unreachable, 12);
        assert!(
            nodes
                .iter()
                .all(|n| (data(n, "depth").is_none()) == (data(n, "component").unwrap() == "1"))
        );
        // Each edge once: the 2x2 game graph is two 12-cycles, so every board has degree 2.
        let mut degree = std::collections::HashMap::new();
        for e in &edges {
            for end in ["source", "target"] {
                *degree.entry(e.attribute(end).unwrap()).or_insert(0) += 1;
            }
        }
        assert_eq!(degree.len(), 24);
        assert!(degree.values().all(|&d| d == 2));
    }

    #[test]
    fn dot_lists_each_board_and_edge_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("graph.dot");
        write_dot(&path, &analysis(2, 3), &NoProgress).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\ngraph \"2x3\" {\n"));
        assert!(text.ends_with("}\n"));
        assert_eq!(text.lines().filter(|l| l.contains(" -- ")).count(), 840);
        assert_eq!(text.lines().filter(|l| l.contains(" [board=")).count(), 720);
        assert!(text.contains("\n\"123456\" [board=\"123456\", rank=0, component=0, depth=0];\n"));
        // One move from the goal; and two tiles swapped (unreachable: no depth).
        assert!(text.contains("\n\"123465\" [board=\"123465\", rank=1, component=0, depth=1];\n"));
        assert!(text.contains("\n\"123546\" [board=\"123546\", rank=2, component=1];\n"));
        assert!(text.contains("\n\"123465\" -- \"123456\";\n"));
    }

    #[test]
    fn ten_cells_use_dashed_labels_and_eleven_are_refused() {
        assert!(check_shape(Shape::new(2, 5).unwrap()).is_ok());
        let err = check_shape(Shape::new(1, 11).unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("1x11 has 39,916,800 boards"), "{err}");
        assert!(err.contains("stop at 10 cells"), "{err}");
        let mut buf = Vec::new();
        let goal: Vec<u8> = (0..10).collect();
        put_label(&mut buf, &goal);
        assert_eq!(buf, b"1-2-3-4-5-6-7-8-9-10");
    }

    #[test]
    fn without_per_board_results_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("graph.graphml");
        let shape = Shape::new(2, 2).unwrap();
        let a =
            analyze_unchecked(&crate::Board::goal(shape), Options::default(), &NoProgress).unwrap();
        assert!(matches!(
            write_graphml(&path, &a, &NoProgress),
            Err(InteropError::NoPerBoard)
        ));
        assert!(!path.exists());
    }
}
