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
//! and `POST /api/map` (`rows`, `cols`, `metric`): builds the shape's distance table now
//! ([`Answers::map`]), answering as `/api/shape`. A `POST`, so that another site's page
//! cannot start a build without its `Origin` (refused) as an image's `GET` could.
//!
//! A bad board or parameter is status 400 with `{"error": "<the CLI's one-line message>"}`;
//! an unknown path 404. Boards are in any notation the CLI reads; tiles in answers are row by
//! row, `0` for the blank.
//!
//! Bounded ([`ServerLimits`]): expensive work (a search, a table's build) runs at most
//! [`ServerLimits::jobs`] at a time with a short queue behind, each request within one time budget
//! ([`AnswerLimits::time_limit`] from its arrival, the wait included); a full queue, or a wait that
//! spends the budget, is a 503 with `Retry-After`. Answers from a table are cheap and never
//! queue. A connection is closed when a request's head takes longer than
//! [`ServerLimits::idle_timeout`] to arrive, or when it stays idle that long between requests; at
//! [`ServerLimits::max_connections`] open connections a new one is closed at once. A request whose
//! `Host` is not the bound address, a loopback name with the port, or one allowed
//! ([`ServerLimits::allowed_hosts`]) is a 403, as an API request with an `Origin` other than its
//! `Host`'s (DNS rebinding, other sites' pages); one with two `Host` or two `Origin` headers,
//! or a request target in absolute form naming another host than its `Host`, is a 400. A
//! request that waits for another request's build of a table (the same shape's, or the one
//! map at a time) waits within its budget too: past it, the same 503. Every response carries
//! `X-Content-Type-Options: nosniff`; none shows the served folder's path.

pub mod answers;

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderValue, Request, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub use answers::{AnswerLimits, Answers, Refusal, Unanswered};

use crate::metric::Metric;
use crate::shape::Shape;

/// The page, served at `/`.
pub const PAGE: &str = include_str!("page.html");

/// The longest query string a request may carry (a board of 20 cells takes under 100 bytes).
pub const MAX_QUERY: usize = 2048;

/// How the server reports each request (`--verbose`): one line, or nothing.
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// The server's bounds, beside the answers' ([`AnswerLimits`]).
#[derive(Debug, Clone)]
pub struct ServerLimits {
    /// Worker threads of the runtime (the HTTP side; answers run on blocking threads).
    pub threads: usize,
    /// The most expensive requests (a search, a table's build) answered at once.
    pub jobs: usize,
    /// The most expensive requests waiting for one of the [`ServerLimits::jobs`]; more are a 503.
    pub queue: usize,
    /// The most connections open at once; a new one past it is closed at once.
    pub max_connections: usize,
    /// The longest a request's head may take to arrive, and a connection may stay idle
    /// between requests, before the connection is closed.
    pub idle_timeout: Duration,
    /// Host names accepted in `Host` besides the bound address, `localhost`, `127.0.0.1` and
    /// `[::1]` (lower case, without a port: the bound port is required).
    pub allowed_hosts: Vec<String>,
}

impl ServerLimits {
    /// Bounds sized to this machine: one job per core (at least 2), a queue of four per job,
    /// connections up to the open-file limit less a margin (at most 10,000), 10 s idle.
    pub fn for_this_machine() -> ServerLimits {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        let jobs = cores.max(2);
        ServerLimits {
            threads: cores.max(2),
            jobs,
            queue: 4 * jobs,
            max_connections: open_file_limit().saturating_sub(64).clamp(16, 10_000),
            idle_timeout: Duration::from_secs(10),
            allowed_hosts: Vec::new(),
        }
    }
}

/// The soft limit of open files, raised to the hard one first where it is lower.
fn open_file_limit() -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the one `rlimit` given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 1024;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max.min(65_536),
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX)
}

#[derive(Clone)]
struct AppState {
    answers: Arc<Answers>,
    log: Option<Log>,
    gate: Arc<Gate>,
}

/// The expensive work's permits and its queue.
struct Gate {
    permits: Arc<Semaphore>,
    waiting: AtomicUsize,
    queue: usize,
}

impl Gate {
    /// A permit for expensive work, waiting in the queue at most until `deadline`; `None`
    /// when the queue is full or the wait reaches the deadline.
    async fn enter(&self, deadline: Instant) -> Option<OwnedSemaphorePermit> {
        if let Ok(permit) = self.permits.clone().try_acquire_owned() {
            return Some(permit);
        }
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= self.queue {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        let permit = tokio::time::timeout_at(
            tokio::time::Instant::from_std(deadline),
            self.permits.clone().acquire_owned(),
        )
        .await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        permit.ok().and_then(Result::ok)
    }
}

/// Serves the page and the API on `listener` within `options` until the process ends; each
/// request is logged to `log` when given.
///
/// # Errors
/// The runtime or the listener failing.
pub fn run(
    answers: Arc<Answers>,
    listener: TcpListener,
    options: &ServerLimits,
    log: Option<Log>,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let bound = listener.local_addr()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(options.threads.max(1))
        .enable_io()
        .enable_time()
        .build()?;
    let hosts = Arc::new(Hosts::new(bound, &options.allowed_hosts));
    let app = TowerToHyperService::new(router_within(answers, log, options));
    let connections = Arc::new(Semaphore::new(options.max_connections.max(1)));
    let idle = options.idle_timeout;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                // Out of descriptors or a connection reset before it was taken: the others
                // go on; a short pause lets descriptors be freed.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            };
            // At the cap, the connection is closed at once (dropped), not left waiting.
            let Ok(open) = connections.clone().try_acquire_owned() else {
                drop(stream);
                continue;
            };
            let _ = stream.set_nodelay(true);
            let app = app.clone();
            let hosts = hosts.clone();
            let service = hyper::service::service_fn(move |request: Request<_>| {
                let refused = hosts.refuse(&request);
                let answer = refused
                    .is_none()
                    .then(|| hyper::service::Service::call(&app, request));
                async move {
                    let mut response = match (refused, answer) {
                        (Some(r), _) => r,
                        (None, Some(answer)) => answer.await.unwrap_or_else(|e| match e {}),
                        (None, None) => error(StatusCode::INTERNAL_SERVER_ERROR, "no answer"),
                    };
                    response.headers_mut().insert(
                        header::X_CONTENT_TYPE_OPTIONS,
                        HeaderValue::from_static("nosniff"),
                    );
                    Ok::<_, Infallible>(response)
                }
            });
            tokio::spawn(async move {
                let mut http = hyper::server::conn::http1::Builder::new();
                // The head's timeout runs from the moment the connection waits for a request:
                // it closes slow heads and idle keep-alive connections alike.
                http.timer(TokioTimer::new())
                    .header_read_timeout(idle)
                    .keep_alive(true);
                let _ = http.serve_connection(TokioIo::new(stream), service).await;
                drop(open);
            });
        }
    })
}

/// The names a request's `Host` may carry, and the port it must.
struct Hosts {
    names: Vec<String>,
    port: u16,
}

impl Hosts {
    fn new(bound: SocketAddr, allowed: &[String]) -> Hosts {
        let mut names: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        names.push(match bound {
            SocketAddr::V4(a) => a.ip().to_string(),
            SocketAddr::V6(a) => format!("[{}]", a.ip()),
        });
        names.extend(allowed.iter().map(|h| h.to_ascii_lowercase()));
        Hosts {
            names,
            port: bound.port(),
        }
    }

    /// Whether `host` (a `Host` header's value) names this server.
    fn accepts(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let (name, port) = match host.rfind(':') {
            Some(at) if !host[at..].contains(']') => (&host[..at], Some(&host[at + 1..])),
            _ => (host.as_str(), None),
        };
        let port_ok = match port {
            Some(p) => p.parse::<u16>() == Ok(self.port),
            None => self.port == 80,
        };
        port_ok && self.names.iter().any(|n| n == name)
    }

    /// The 403 (or 400) for a request this server does not answer: a `Host` not its own, or
    /// an API request from another origin; a 400 for no `Host`, two `Host` or two `Origin`
    /// headers, or a request target in absolute form (`http://name/...`) naming another host
    /// than its `Host` (which one a proxy or a check reads would be ambiguous).
    fn refuse<B>(&self, request: &Request<B>) -> Option<Response> {
        for name in [header::HOST, header::ORIGIN] {
            if request.headers().get_all(&name).iter().count() > 1 {
                return Some(error(
                    StatusCode::BAD_REQUEST,
                    &format!("one {name} header is expected"),
                ));
            }
        }
        let header_text = |name| {
            request
                .headers()
                .get(name)
                .map(|v: &HeaderValue| v.to_str().unwrap_or("\u{fffd}").to_string())
        };
        let Some(host) = header_text(header::HOST) else {
            return Some(error(StatusCode::BAD_REQUEST, "a Host header is expected"));
        };
        if let Some(authority) = request.uri().authority() {
            if !authority.as_str().eq_ignore_ascii_case(host.trim()) {
                return Some(error(
                    StatusCode::BAD_REQUEST,
                    &format!(
                        "the request target names {:?}, its Host header {:?}",
                        crate::board::printable(authority.as_str()),
                        crate::board::printable(&host)
                    ),
                ));
            }
        }
        if !self.accepts(&host) {
            return Some(error(
                StatusCode::FORBIDDEN,
                &format!(
                    "Host {:?} is not this server's (npuzzle serve --allow-host NAME accepts \
                     another name)",
                    crate::board::printable(&host)
                ),
            ));
        }
        if request.uri().path().starts_with("/api/") {
            if let Some(origin) = header_text(header::ORIGIN) {
                if !origin.eq_ignore_ascii_case(&format!("http://{}", host.trim())) {
                    return Some(error(
                        StatusCode::FORBIDDEN,
                        &format!(
                            "Origin {:?}: the API answers this server's own page only",
                            crate::board::printable(&origin)
                        ),
                    ));
                }
            }
        }
        None
    }
}

/// The routes: the page and the API, within [`ServerLimits::for_this_machine`]'s bounds.
pub fn router(answers: Arc<Answers>, log: Option<Log>) -> Router {
    router_within(answers, log, &ServerLimits::for_this_machine())
}

/// The routes: the page and the API, expensive work within `options`' jobs and queue.
pub fn router_within(answers: Arc<Answers>, log: Option<Log>, options: &ServerLimits) -> Router {
    let gate = Arc::new(Gate {
        permits: Arc::new(Semaphore::new(options.jobs.max(1))),
        waiting: AtomicUsize::new(0),
        queue: options.queue,
    });
    let served = AppState { answers, log, gate };
    Router::new()
        .route("/", get(page))
        .route("/api/map", post(map))
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
    State(served): State<AppState>,
    axum::extract::Path(name): axum::extract::Path<String>,
    uri: Uri,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if name == "map" {
        return error(
            StatusCode::METHOD_NOT_ALLOWED,
            "POST /api/map builds a table",
        );
    }
    respond(served, name, uri, query).await
}

/// `POST /api/map`: the shape's table built now.
async fn map(
    State(served): State<AppState>,
    uri: Uri,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    respond(served, "map".to_string(), uri, query).await
}

/// The answer of API `name` to `query`, expensive work through the gate.
async fn respond(
    served: AppState,
    name: String,
    uri: Uri,
    query: HashMap<String, String>,
) -> Response {
    let started = Instant::now();
    let response = if uri.query().map_or(0, str::len) > MAX_QUERY {
        error(
            StatusCode::URI_TOO_LONG,
            &format!("a query of at most {MAX_QUERY} bytes is expected"),
        )
    } else {
        let answers = served.answers.clone();
        let deadline = started + answers.limits().time_limit;
        // Expensive work waits for a permit (within the request's budget); cheap work not.
        let permit = if expensive(&answers, &name, &query) {
            match served.gate.enter(deadline).await {
                Some(permit) => Some(permit),
                None => return logged(&served, &uri, started, busy(&answers)),
            }
        } else {
            None
        };
        let name2 = name.clone();
        // The answers are CPU work (a table's walks, a search up to the deadline).
        let result =
            tokio::task::spawn_blocking(move || answer(&answers, &name2, &query, deadline)).await;
        drop(permit);
        match result {
            Ok(Ok(value)) => axum::Json(value).into_response(),
            Ok(Err(Refused::NotFound)) => error(StatusCode::NOT_FOUND, &format!("no API {name}")),
            Ok(Err(Refused::Bad(r))) => {
                error(StatusCode::BAD_REQUEST, &served.answers.relative(&r.0))
            }
            // Its budget spent waiting for another request's build: as a wait for a job.
            Ok(Err(Refused::TimeUp)) => busy(&served.answers),
            Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "the answer failed"),
        }
    };
    logged(&served, &uri, started, response)
}

/// The 503 of a full queue, or of a request whose budget ran out waiting for a job or for
/// another request's build: try again once a search's time limit has passed.
fn busy(answers: &Answers) -> Response {
    let seconds = answers.limits().time_limit.as_secs_f64().ceil().max(1.0) as u64;
    let mut response = error(
        StatusCode::SERVICE_UNAVAILABLE,
        &format!("the server is busy with other searches and builds: try again in {seconds} s"),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    response
}

/// Whether API `name` on `query` may be expensive: a comparison, a search (a shape without a
/// table), or a table's first build (on first use, or mapped on request). Answers from a
/// table, and refusals, are cheap.
fn expensive(answers: &Answers, name: &str, query: &HashMap<String, String>) -> bool {
    if matches!(name, "shapes" | "random") {
        return false;
    }
    if name == "compare" {
        return true;
    }
    let rows = param(query, "rows", Some(3)).ok();
    let cols = param(query, "cols", Some(3)).ok();
    let metric = match query.get("metric").map(String::as_str) {
        None => Some(Metric::Stm),
        Some(m) => Metric::parse(m),
    };
    let (Some(rows), Some(cols), Some(metric)) = (rows, cols, metric) else {
        return false;
    };
    let Ok(shape) = answers.shape(rows, cols) else {
        return false;
    };
    if answers.has_table(shape, metric) {
        false
    } else if answers.builds(shape) || name == "map" {
        true
    } else {
        matches!(name, "board" | "solve")
    }
}

/// `response`, logged.
fn logged(served: &AppState, uri: &Uri, started: Instant, response: Response) -> Response {
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
    TimeUp,
}

impl From<Refusal> for Refused {
    fn from(r: Refusal) -> Refused {
        Refused::Bad(r)
    }
}

impl From<Unanswered> for Refused {
    fn from(u: Unanswered) -> Refused {
        match u {
            Unanswered::Refused(r) => Refused::Bad(r),
            Unanswered::TimeUp => Refused::TimeUp,
        }
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

/// The answer of API `name` to `query`, its searches ending by `deadline`.
fn answer(
    answers: &Answers,
    name: &str,
    query: &HashMap<String, String>,
    deadline: Instant,
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
        "shape" => to_json(serde_json::to_value(
            answers.shape_info(shape, metric, deadline)?,
        )),
        "map" => to_json(serde_json::to_value(answers.map(shape, metric, deadline)?)),
        "board" => to_json(serde_json::to_value(answers.board_answer(
            &board()?,
            metric,
            deadline,
        )?)),
        "solve" => to_json(serde_json::to_value(answers.solve(
            &board()?,
            metric,
            deadline,
        )?)),
        "graph" => to_json(serde_json::to_value(answers.graph(
            &board()?,
            metric,
            param(query, "radius", Some(1))?,
            deadline,
        )?)),
        "compare" => to_json(serde_json::to_value(answers.compare(
            &board()?,
            metric,
            deadline,
        )?)),
        "sample" => Ok(json!({ "boards": answers.sample(
            shape,
            metric,
            param(query, "depth", None)?,
            param(query, "count", Some(1))?,
            param(query, "seed", Some(0))?,
            deadline,
        )? })),
        "random" => Ok(json!({ "tiles": answers.random(shape, param(query, "seed", Some(0))?) })),
        _ => Err(Refused::NotFound),
    }
}
