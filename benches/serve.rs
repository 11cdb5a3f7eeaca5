//! Issue 53's load test: `npuzzle serve` answering 3x4 boards from its distance table, 50
//! clients at once over loopback, each asking for random boards' distances and optimal
//! solutions (`/api/solve`, which gives both) and their moves (`/api/board`). Bounded: each
//! client sends a fixed number of requests, then the test prints the latency percentiles
//! (hdrhistogram) and stops the server.
//!
//!     cargo bench --bench serve [-- CLIENTS REQUESTS]
//!
//! The server is the release binary (`target/release/npuzzle`, built first), started with
//! `--build 12` so that the 3x4 table is built in memory before the clients start.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Instant;

use hdrhistogram::Histogram;
use npuzzle::random::Scrambler;
use npuzzle::{Board, Shape};

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let clients = args.first().copied().unwrap_or(50);
    let requests = args.get(1).copied().unwrap_or(200);
    let bin = std::env::var("NPUZZLE_BIN").unwrap_or_else(|_| "target/release/npuzzle".into());
    let mut server = Command::new(&bin)
        .args(["serve", "--port", "0", "--build", "12"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the release binary (cargo build --release)");
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("an address")
        .trim_end_matches('/')
        .to_string();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let started = Instant::now();
    let shape_url = format!("{base}/api/shape?rows=3&cols=4");
    let warm = agent.get(&shape_url).call().unwrap().status();
    println!(
        "3x4 table built by the server in {:.2} s ({warm})",
        started.elapsed().as_secs_f64()
    );
    let shape = Shape::new(3, 4).unwrap();
    let (solve, board, errors) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                let base = base.clone();
                scope.spawn(move || {
                    let agent: ureq::Agent = ureq::Agent::config_builder()
                        .http_status_as_error(false)
                        .build()
                        .into();
                    let mut scrambler = Scrambler::new(c as u64 + 1);
                    let mut solve = Histogram::<u64>::new(3).unwrap();
                    let mut board = Histogram::<u64>::new(3).unwrap();
                    let mut errors = 0u64;
                    for k in 0..requests {
                        let b = scrambler.uniform(&Board::goal(shape)).rows_line();
                        let (path, histogram) = match k % 2 {
                            0 => ("solve", &mut solve),
                            _ => ("board", &mut board),
                        };
                        let t = Instant::now();
                        let response = agent
                            .get(format!("{base}/api/{path}"))
                            .query("rows", "3")
                            .query("cols", "4")
                            .query("board", &b)
                            .call();
                        let ok = response.is_ok_and(|mut r| {
                            r.status() == 200 && r.body_mut().read_to_string().is_ok()
                        });
                        histogram.record(t.elapsed().as_micros() as u64).unwrap();
                        errors += u64::from(!ok);
                    }
                    (solve, board, errors)
                })
            })
            .collect();
        let mut solve = Histogram::<u64>::new(3).unwrap();
        let mut board = Histogram::<u64>::new(3).unwrap();
        let mut errors = 0;
        for h in handles {
            let (s, b, e) = h.join().unwrap();
            solve.add(s).unwrap();
            board.add(b).unwrap();
            errors += e;
        }
        (solve, board, errors)
    });
    let wall = started.elapsed().as_secs_f64();
    let _ = server.kill();
    let _ = server.wait();
    for (name, h) in [
        ("/api/solve (distance + solution)", &solve),
        ("/api/board (distance + moves)", &board),
    ] {
        println!(
            "{name}: {} requests, p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            h.len(),
            h.value_at_quantile(0.5) as f64 / 1e3,
            h.value_at_quantile(0.9) as f64 / 1e3,
            h.value_at_quantile(0.99) as f64 / 1e3,
            h.max() as f64 / 1e3
        );
    }
    println!(
        "{clients} clients x {requests} requests in {wall:.2} s (table build included), {errors} errors"
    );
    assert_eq!(errors, 0, "requests failed");
}
