//! `npuzzle serve`'s API on the real binary over loopback, without a browser (issue 53): every
//! endpoint against the CLI's own answers, bad input, concurrent requests.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// A server on a free port of 127.0.0.1, stopped when dropped.
struct Server {
    child: Child,
    base: String,
    agent: ureq::Agent,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("npuzzle"))
            .args(["serve", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let base = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .trim_end_matches('/')
            .to_string();
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        Server { child, base, agent }
    }

    /// `GET path?query`: the status and the JSON body.
    fn get(&self, path: &str, query: &[(&str, &str)]) -> (u16, Value) {
        let mut request = self.agent.get(format!("{}{path}", self.base));
        for (k, v) in query {
            request = request.query(*k, *v);
        }
        let mut response = request.call().unwrap();
        let status = response.status().as_u16();
        let body = response.body_mut().read_json().unwrap_or(Value::Null);
        (status, body)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn npuzzle(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(assert_cmd::cargo::cargo_bin("npuzzle"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The length `npuzzle solve` prints for `board` (3x3).
fn solve_length(board: &str, metric: &str) -> u64 {
    let (ok, out, err) = npuzzle(&["solve", "--board", board, "--metric", metric, "--quiet"]);
    assert!(ok, "{err}");
    out.trim().parse().unwrap_or_else(|_| panic!("{out}"))
}

fn text(tiles: &Value, cols: usize) -> String {
    let tiles: Vec<String> = tiles
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.to_string())
        .collect();
    tiles
        .chunks(cols)
        .map(|r| r.join(" "))
        .collect::<Vec<_>>()
        .join(" / ")
}

/// The page, and the 8-puzzle's figures through every endpoint: the depth counts of its
/// table (OEIS A089473: 181,440 boards, God's number 31), distances against `npuzzle solve`,
/// a solution that replays to the goal, samples at their depth, the graph around a board.
#[test]
fn every_endpoint_answers_the_8_puzzle() {
    let s = Server::start(&[]);
    let page = s
        .agent
        .get(format!("{}/", s.base))
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    assert!(page.contains("<title>npuzzle") && page.contains("id=\"board\""));

    let (status, shape) = s.get("/api/shape", &[("rows", "3"), ("cols", "3")]);
    assert_eq!(status, 200, "{shape}");
    let counts: Vec<u64> = serde_json::from_value(shape["depth_counts"].clone()).unwrap();
    assert_eq!(counts.iter().sum::<u64>(), 181_440);
    assert_eq!((counts.len(), counts[31]), (32, 2));
    assert_eq!(shape["source"], "table");

    for (board, metric) in [
        ("8 6 7 / 2 5 4 / 3 0 1", "stm"),
        ("1 2 3 / 4 5 6 / 0 7 8", "stm"),
        ("5 1 3 / 4 0 2 / 7 8 6", "mtm"),
    ] {
        let q = [("board", board), ("metric", metric)];
        let (status, b) = s.get("/api/board", &q);
        assert_eq!(status, 200, "{b}");
        let d = b["distance"].as_u64().unwrap();
        assert_eq!(d, solve_length(board, metric), "{board} {metric}");
        // Each move changes the distance by at most one; one brings the board closer.
        let moves = b["moves"].as_array().unwrap();
        assert!(
            moves
                .iter()
                .all(|m| m["distance"].as_u64().unwrap().abs_diff(d) <= 1)
        );
        assert!(d == 0 || moves.iter().any(|m| m["distance"].as_u64() == Some(d - 1)));
        let (status, sol) = s.get("/api/solve", &q);
        assert_eq!(status, 200, "{sol}");
        assert_eq!(sol["length"].as_u64(), Some(d));
        assert_eq!(sol["path"].as_array().unwrap().len() as u64, d);
        // The last move puts the blank in the goal's corner.
        assert!(d == 0 || sol["path"].as_array().unwrap().last() == Some(&Value::from(8)));
    }

    let (status, sample) = s.get(
        "/api/sample",
        &[("depth", "25"), ("count", "5"), ("seed", "3")],
    );
    assert_eq!(status, 200, "{sample}");
    for tiles in sample["boards"].as_array().unwrap() {
        let board = text(tiles, 3);
        assert_eq!(solve_length(&board, "stm"), 25, "{board}");
    }

    let (status, g) = s.get(
        "/api/graph",
        &[("board", "1 2 3 / 4 0 5 / 6 7 8"), ("radius", "2")],
    );
    assert_eq!(status, 200, "{g}");
    let nodes = g["nodes"].as_array().unwrap();
    // From the centre: 4 boards one move away, 4 x 2 new ones two moves away (none shared).
    let at = |k: u64| nodes.iter().filter(|n| n["steps"] == k).count();
    assert_eq!((at(0), at(1), at(2)), (1, 4, 8));
    assert_eq!(g["edges"].as_array().unwrap().len(), 12);

    let (status, r) = s.get("/api/random", &[("seed", "7")]);
    assert_eq!(status, 200);
    let (_, out, _) = npuzzle(&["random", "--size", "3", "--seed", "7"]);
    assert_eq!(text(&r["tiles"], 3), out.trim());

    let (status, c) = s.get("/api/compare", &[("board", "1 2 3 / 4 0 5 / 7 8 6")]);
    assert_eq!(status, 200, "{c}");
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r["length"].as_u64() == Some(2)), "{c}");
}

/// Bad boards and parameters: status 400 and the CLI's one-line message; unknown paths 404;
/// an oversized query refused.
#[test]
fn bad_input_is_a_400_with_one_line() {
    let s = Server::start(&[]);
    for (path, query, words) in [
        ("/api/board", vec![("board", "1 2 3 / 4 5 6 / 7 8 8")], "8"),
        ("/api/board", vec![("board", "1 2 x")], "x"),
        ("/api/board", vec![], "board"),
        ("/api/shape", vec![("rows", "0")], "row"),
        ("/api/shape", vec![("rows", "9"), ("cols", "9")], "cells"),
        ("/api/shape", vec![("metric", "nope")], "metric"),
        ("/api/sample", vec![("depth", "99")], "99"),
        (
            "/api/sample",
            vec![("depth", "3"), ("count", "100000")],
            "count",
        ),
        (
            "/api/graph",
            vec![("board", "123456780"), ("radius", "5")],
            "radius",
        ),
        (
            "/api/solve",
            vec![("board", "2 1 3 / 4 5 6 / 7 8 0")],
            "No solution",
        ),
    ] {
        let (status, body) = s.get(path, &query);
        let message = body["error"].as_str().unwrap_or_default();
        assert_eq!(status, 400, "{path} {query:?}: {body}");
        assert!(
            message.contains(words) && !message.contains('\n'),
            "{path} {query:?}: {message}"
        );
    }
    let (status, _) = s.get("/api/nothing", &[]);
    assert_eq!(status, 404);
    let (status, _) = s.get("/api/board", &[("board", &"1 ".repeat(2000))]);
    assert_eq!(status, 414);
}

/// 50 clients at once, 20 requests each: every answer right.
#[test]
fn concurrent_requests_all_answer() {
    let s = Server::start(&[]);
    let expected = s.get("/api/board", &[("board", "8 6 7 / 2 5 4 / 3 0 1")]).1["distance"].clone();
    std::thread::scope(|scope| {
        for _ in 0..50 {
            scope.spawn(|| {
                for _ in 0..20 {
                    let (status, b) = s.get("/api/board", &[("board", "8 6 7 / 2 5 4 / 3 0 1")]);
                    assert_eq!(status, 200);
                    assert_eq!(b["distance"], expected);
                }
            });
        }
    });
    assert_eq!(expected, 31);
}

/// `serve` with a bad argument exits 2 with one line, before listening.
#[test]
fn bad_flags_are_usage_errors() {
    let (ok, _, err) = npuzzle(&["serve", "--time-limit", "-1"]);
    assert!(
        !ok && err.starts_with("error: ") && err.lines().count() == 1,
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("3x3")).unwrap();
    std::fs::write(dir.path().join("3x3/table.npt"), b"not a table").unwrap();
    let (ok, _, err) = npuzzle(&["serve", dir.path().to_str().unwrap()]);
    assert!(
        !ok && err.contains("table.npt") && err.lines().count() == 1,
        "{err}"
    );
}
