//! `npuzzle serve`: one page to play any board with its exact distance, watch optimal
//! solutions, and explore the depth distribution and the game graph around a board; and the
//! small JSON API it reads. Everything is inside the binary: the page ([`PAGE`], plain HTML,
//! CSS and JavaScript) and the answers ([`answers`]).
//!
//! The API (`GET`, query parameters `rows`, `cols` (default 3x3), `metric` (`stm`, `mtm`)):
//!
//! | path | parameters | answer |
//! |---|---|---|
//! | `/api/shapes` | | the shapes the page offers, the default, the version |
//! | `/api/shape` | | [`answers::ShapeInfo`]: the goal, the source, the depth counts |
//! | `/api/board` | `board` | [`answers::BoardAnswer`]: the distance and each move's |
//! | `/api/solve` | `board` | [`answers::SolveAnswer`]: an optimal solution, the blank's cells |
//! | `/api/sample` | `depth`, `count`, `seed` | `{"boards": [[tiles]...]}`, as `npuzzle sample` |
//! | `/api/random` | `seed` | `{"tiles": [...]}`, as `npuzzle random` |
//! | `/api/graph` | `board`, `radius` (1, 2) | [`answers::GraphAnswer`] |
//! | `/api/compare` | `board` | [`answers::CompareAnswer`], as `solve --compare` |
//!
//! A bad board or parameter is status 400 with `{"error": "<the CLI's one-line message>"}`;
//! an unknown path 404. Boards are in any notation the CLI reads; tiles in answers are row by
//! row, `0` for the blank.

pub mod answers;

use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

pub use answers::{Answers, Limits, Refusal};

use crate::metric::Metric;
use crate::shape::Shape;

/// The page, served at `/`.
pub const PAGE: &str = include_str!("page.html");

/// The longest query string a request may carry (a board of 20 cells takes under 100 bytes).
pub const MAX_QUERY: usize = 2048;

/// How the server reports each request (`--verbose`): one line, or nothing.
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

#[derive(Clone)]
struct Served {
    answers: Arc<Answers>,
    log: Option<Log>,
}

/// Serves the page and the API on `listener` with `threads` worker threads until the process
/// ends; each request is logged to `log` when given.
///
/// # Errors
/// The runtime or the listener failing.
pub fn run(
    answers: Arc<Answers>,
    listener: TcpListener,
    threads: usize,
    log: Option<Log>,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .enable_io()
        .enable_time()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        axum::serve(listener, router(answers, log)).await
    })
}

/// The routes: the page and the API.
pub fn router(answers: Arc<Answers>, log: Option<Log>) -> Router {
    let served = Served { answers, log };
    Router::new()
        .route("/", get(page))
        .route("/api/{name}", get(api))
        .fallback(not_found)
        .with_state(served)
}

async fn page() -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], PAGE).into_response()
}

async fn not_found(uri: Uri) -> Response {
    error(StatusCode::NOT_FOUND, &format!("no page {}", uri.path()))
}

fn error(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(json!({ "error": message }))).into_response()
}

async fn api(
    State(served): State<Served>,
    axum::extract::Path(name): axum::extract::Path<String>,
    uri: Uri,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let started = Instant::now();
    let response = if uri.query().map_or(0, str::len) > MAX_QUERY {
        error(
            StatusCode::URI_TOO_LONG,
            &format!("a query of at most {MAX_QUERY} bytes is expected"),
        )
    } else {
        let answers = served.answers.clone();
        let name2 = name.clone();
        // The answers are CPU work (a table's walks, a search up to the time limit).
        match tokio::task::spawn_blocking(move || answer(&answers, &name2, &query)).await {
            Ok(Ok(value)) => axum::Json(value).into_response(),
            Ok(Err(Refused::NotFound)) => error(StatusCode::NOT_FOUND, &format!("no API {name}")),
            Ok(Err(Refused::Bad(r))) => error(StatusCode::BAD_REQUEST, &r.0),
            Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "the answer failed"),
        }
    };
    if let Some(log) = &served.log {
        log(&format!(
            "{} {} {:.1} ms",
            response.status().as_u16(),
            uri,
            started.elapsed().as_secs_f64() * 1e3
        ));
    }
    response
}

enum Refused {
    NotFound,
    Bad(Refusal),
}

impl From<Refusal> for Refused {
    fn from(r: Refusal) -> Refused {
        Refused::Bad(r)
    }
}

/// A parameter of `query`, parsed; `default` when absent.
fn param<T: std::str::FromStr>(
    query: &HashMap<String, String>,
    name: &str,
    default: Option<T>,
) -> Result<T, Refusal> {
    match query.get(name) {
        Some(text) => text
            .trim()
            .parse()
            .map_err(|_| Refusal(format!("{name} {text:?}: a number is expected"))),
        None => default.ok_or_else(|| Refusal(format!("the parameter {name} is missing"))),
    }
}

/// The answer of API `name` to `query`.
fn answer(
    answers: &Answers,
    name: &str,
    query: &HashMap<String, String>,
) -> Result<Value, Refused> {
    let limits = answers.limits();
    if name == "shapes" {
        let largest = (limits.max_cells / 2).max(2);
        return Ok(json!({
            "rows": (2..=largest).collect::<Vec<_>>(),
            "cols": (2..=largest).collect::<Vec<_>>(),
            "default": [3, 3],
            "version": env!("CARGO_PKG_VERSION"),
        }));
    }
    let shape: Shape = answers.shape(
        param(query, "rows", Some(3))?,
        param(query, "cols", Some(3))?,
    )?;
    let metric = match query.get("metric").map(String::as_str) {
        None => Metric::Stm,
        Some(m) => Metric::parse(m)
            .ok_or_else(|| Refusal(format!("metric {m:?}: \"stm\" or \"mtm\" is expected")))?,
    };
    let board = || -> Result<crate::Board, Refusal> {
        let text = query
            .get("board")
            .ok_or_else(|| Refusal("the parameter board is missing".into()))?;
        answers.board(shape, text)
    };
    let to_json =
        |v: Result<Value, serde_json::Error>| v.map_err(|e| Refused::Bad(Refusal(e.to_string())));
    match name {
        "shape" => to_json(serde_json::to_value(answers.shape_info(shape, metric)?)),
        "board" => to_json(serde_json::to_value(
            answers.board_answer(&board()?, metric)?,
        )),
        "solve" => to_json(serde_json::to_value(answers.solve(&board()?, metric)?)),
        "graph" => to_json(serde_json::to_value(answers.graph(
            &board()?,
            metric,
            param(query, "radius", Some(1))?,
        )?)),
        "compare" => to_json(serde_json::to_value(answers.compare(&board()?, metric)?)),
        "sample" => Ok(json!({ "boards": answers.sample(
            shape,
            metric,
            param(query, "depth", None)?,
            param(query, "count", Some(1))?,
            param(query, "seed", Some(0))?,
        )? })),
        "random" => Ok(json!({ "tiles": answers.random(shape, param(query, "seed", Some(0))?) })),
        _ => Err(Refused::NotFound),
    }
}
