//! The real binary's `export` (GraphML, DOT) and `draw` commands: counts and attributes read
//! back from the files, agreement with `analyze`'s nodes.csv and edges.csv, bad input.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::Path;

use crate::support::npuzzle;
use predicates::prelude::*;

/// One hermetic command: the built binary, an empty environment.
fn run(out: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    npuzzle().args(args).arg("--output").arg(out).assert()
}

/// A single `error: ...` line.
fn one_line() -> impl Predicate<str> {
    predicate::str::starts_with("error: ").and(predicate::function(|s: &str| {
        s.trim_end().lines().count() == 1
    }))
}

/// `nodes.csv` as board -> (rank, component, depth), and `edges.csv` as unordered pairs.
type Nodes = HashMap<String, (String, String, String)>;
type Edges = BTreeSet<(String, String)>;

fn read_analysis(dir: &Path) -> (Nodes, Edges) {
    let mut nodes = HashMap::new();
    for row in csv::Reader::from_path(dir.join("nodes.csv"))
        .unwrap()
        .records()
    {
        let row = row.unwrap();
        nodes.insert(
            row[0].to_string(),
            (row[1].to_string(), row[2].to_string(), row[3].to_string()),
        );
    }
    let mut edges = BTreeSet::new();
    for row in csv::Reader::from_path(dir.join("edges.csv"))
        .unwrap()
        .records()
    {
        let row = row.unwrap();
        edges.insert(pair(&row[0], &row[1]));
    }
    (nodes, edges)
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.min(b).to_string(), a.max(b).to_string())
}

/// The 2x3 GraphML holds the 720 boards and 840 edges of the whole graph (../shared/reference
/// "Whole graph" table) with exactly the attributes of nodes.csv and the edges of edges.csv.
#[test]
fn graphml_export_agrees_with_nodes_and_edges_csv() {
    let tmp = tempfile::tempdir().unwrap();
    run(
        tmp.path(),
        &["analyze", "--rows", "2", "--cols", "3", "--quiet"],
    )
    .success();
    run(tmp.path(), &["export", "--rows", "2", "--cols", "3"])
        .success()
        .stdout(predicate::str::contains("720 vertices").and(predicate::str::contains("840 edges")))
        .stderr(predicate::str::is_empty());
    let dir = tmp.path().join("2x3");
    let (nodes, edges) = read_analysis(&dir);

    let text = fs::read_to_string(dir.join("graph.graphml")).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let keys: HashMap<&str, (&str, &str)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("key"))
        .map(|k| {
            let id = k.attribute("id").unwrap();
            (
                id,
                (
                    k.attribute("for").unwrap(),
                    k.attribute("attr.type").unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(keys["board"], ("node", "string"));
    assert_eq!(keys["rank"], ("node", "long"));
    assert_eq!(keys["component"], ("node", "int"));
    assert_eq!(keys["depth"], ("node", "int"));

    let graph = doc.descendants().find(|n| n.has_tag_name("graph")).unwrap();
    assert_eq!(graph.attribute("edgedefault"), Some("undirected"));
    let mut seen = 0;
    for node in graph.children().filter(|n| n.has_tag_name("node")) {
        let id = node.attribute("id").unwrap();
        let data: HashMap<&str, &str> = node
            .children()
            .filter(|d| d.has_tag_name("data"))
            .map(|d| (d.attribute("key").unwrap(), d.text().unwrap_or("")))
            .collect();
        let (rank, component, depth) = &nodes[id];
        assert_eq!(data["board"], id);
        assert_eq!(data["rank"], rank);
        assert_eq!(data["component"], component);
        assert_eq!(data.get("depth").copied().unwrap_or(""), depth, "{id}");
        if id == "123456" {
            assert_eq!(data["depth"], "0", "the goal");
        }
        seen += 1;
    }
    assert_eq!(seen, 720);
    let exported: Edges = graph
        .children()
        .filter(|n| n.has_tag_name("edge"))
        .map(|e| {
            pair(
                e.attribute("source").unwrap(),
                e.attribute("target").unwrap(),
            )
        })
        .collect();
    assert_eq!(text.matches("<edge ").count(), 840, "each edge once");
    assert_eq!(exported, edges);
}

/// DOT: one node statement per board with its attributes, one `--` per edge; deterministic.
#[test]
fn dot_export_has_every_board_and_edge_and_is_deterministic() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    for out in [a.path(), b.path()] {
        run(
            out,
            &["export", "--size", "2", "--format", "dot", "--quiet"],
        )
        .success()
        .stdout(predicate::str::is_empty());
    }
    let text = fs::read_to_string(a.path().join("2x2/graph.dot")).unwrap();
    assert_eq!(
        text,
        fs::read_to_string(b.path().join("2x2/graph.dot")).unwrap()
    );
    assert!(text.contains("graph \"2x2\" {"));
    let nodes: Vec<&str> = text.lines().filter(|l| l.contains(" [board=")).collect();
    let edges: Vec<&str> = text.lines().filter(|l| l.contains(" -- ")).collect();
    assert_eq!((nodes.len(), edges.len()), (24, 24));
    assert!(nodes.contains(&"\"1234\" [board=\"1234\", rank=0, component=0, depth=0];"));
    // Half the boards (the other component) have no depth.
    assert_eq!(nodes.iter().filter(|l| l.contains("depth=")).count(), 12);
    assert!(edges.contains(&"\"1243\" -- \"1234\";"));
}

#[test]
fn export_refuses_big_boards_and_bad_folders() {
    let tmp = tempfile::tempdir().unwrap();
    run(tmp.path(), &["export", "--rows", "3", "--cols", "4"])
        .code(2)
        .stderr(
            one_line()
                .and(predicate::str::contains("3x4 has 479,001,600 boards"))
                .and(predicate::str::contains("stop at 10 cells")),
        );
    run(tmp.path(), &["export", "--size", "4"])
        .code(2)
        .stderr(one_line());
    run(tmp.path(), &["export", "--size", "3", "--format", "svg"]).code(2);
    assert_eq!(
        fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "nothing written"
    );
    let blocker = tmp.path().join("file");
    fs::write(&blocker, "not a folder").unwrap();
    run(&blocker, &["export", "--size", "2"])
        .code(1)
        .stderr(one_line().and(predicate::str::contains("cannot write")));
}

/// Without Graphviz on PATH, `draw` writes the DOT, says in one line that no PNG was written
/// (and no line reads as if one was), and succeeds; a PNG already there is called older.
#[test]
fn draw_2x2_without_graphviz_writes_the_dot_and_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let empty_path = tempfile::tempdir().unwrap();
    let assert = npuzzle()
        .env("PATH", empty_path.path())
        .args(["draw", "--size", "2", "--output"])
        .arg(tmp.path())
        .assert()
        .success()
        .stdout(
            predicate::str::contains("game_graph.dot: 24 boards, 24 edges").and(
                predicate::str::contains(
                    "note: no PNG written: Graphviz's dot is not installed; install it",
                ),
            ),
        );
    let out = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(
        !out.lines()
            .any(|l| l.starts_with("wrote") && l.contains(".png")),
        "{out}"
    );
    let dir = tmp.path().join("2x2");
    let dot = fs::read_to_string(dir.join("game_graph.dot")).unwrap();
    assert_eq!(
        dot.matches("<table").count(),
        24,
        "each board drawn as a table"
    );
    assert_eq!(dot.matches(" -- ").count(), 24);
    assert_eq!(
        dot.matches("subgraph cluster_").count(),
        2,
        "both components"
    );
    assert_eq!(
        dot.matches("color=\"#2ca02c\"").count(),
        1,
        "the goal framed"
    );
    assert!(!dir.join("game_graph.png").exists());
    fs::write(dir.join("game_graph.png"), "an older drawing").unwrap();
    npuzzle()
        .env("PATH", empty_path.path())
        .args(["draw", "--size", "2", "--output"])
        .arg(tmp.path())
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "game_graph.png is an older drawing, left as it was",
        ));
    assert_eq!(
        fs::read_to_string(dir.join("game_graph.png")).unwrap(),
        "an older drawing"
    );
}

/// With Graphviz installed (skipped otherwise), `draw` renders the PNG of the 3x3 goal's
/// neighbourhood: 1 + 2 + 4 boards within 2 moves (OEIS A089473).
#[test]
fn draw_3x3_neighbourhood_renders_a_png_with_graphviz() {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let has_dot = std::env::split_paths(&path).any(|p| p.join("dot").is_file());
    let tmp = tempfile::tempdir().unwrap();
    npuzzle()
        .env("PATH", &path)
        .args(["draw", "--size", "3", "--output"])
        .arg(tmp.path())
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "goal_neighbourhood_r2.dot: 7 boards, 6 edges",
        ));
    let dir = tmp.path().join("3x3");
    let dot = fs::read_to_string(dir.join("goal_neighbourhood_r2.dot")).unwrap();
    assert_eq!(dot.matches("<table").count(), 7);
    if !has_dot {
        eprintln!(
            "skipped: Graphviz's dot is not installed, so the PNG is not checked (draw_3x3_neighbourhood_renders_a_png_with_graphviz)"
        );
        return;
    }
    let png = fs::read(dir.join("goal_neighbourhood_r2.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}

#[test]
fn draw_refuses_too_many_boards() {
    let tmp = tempfile::tempdir().unwrap();
    run(tmp.path(), &["draw", "--size", "3", "--whole"])
        .code(2)
        .stderr(one_line().and(predicate::str::contains("362,880 boards")));
    run(tmp.path(), &["draw", "--size", "3", "--radius", "12"])
        .code(2)
        .stderr(one_line().and(predicate::str::contains("smaller --radius")));
    run(
        tmp.path(),
        &["draw", "--size", "3", "--radius", "2", "--whole"],
    )
    .code(2);
    assert_eq!(
        fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "nothing written"
    );
}
