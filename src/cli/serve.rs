//! `npuzzle serve`: the page and its API ([`npuzzle::serve`]) on a local address.

use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use npuzzle::serve::{self, AnswerLimits, Answers, ServerLimits};

use super::CliError;

/// Arguments of `npuzzle serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// A folder of results (`analyze --table --output DIR`): its distance tables
    /// (`<R>x<C>[-mtm]/table.npt`, standard goal) answer their shapes.
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
    /// The port (0: any free one, printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on. Another than 127.0.0.1 opens the page to the network (a
    /// warning says so).
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1")]
    bind: IpAddr,
    /// The time budget of one request, in seconds, from its arrival: its wait for a free job
    /// and its searches (shapes without a table; a comparison's four share it).
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    time_limit: f64,
    /// Build a distance table in memory for shapes of at most this many cells when first
    /// asked (9: up to 3x3, at once; 12: 3x4 too, about 3 s and 61 MB). Refused at start
    /// when the largest shape's build, at its peak, does not fit in --map-memory or the
    /// memory available.
    #[arg(long, value_name = "CELLS", default_value_t = 9)]
    build: usize,
    /// Build a distance table in memory when the page asks for it (its "map" button, POST
    /// /api/map) for shapes of at most this many cells, one at a time (12: 3x4 in about 4 s;
    /// 0: never).
    #[arg(long, value_name = "CELLS", default_value_t = 12)]
    map: usize,
    /// The memory the tables built on request may hold together, in MB (a build's peak
    /// counted); a build past it is refused. Also the most one --build table's build may
    /// take.
    #[arg(long, value_name = "MB", default_value_t = 1000)]
    map_memory: u64,
    /// Searches and table builds run at once (default: one per core, at least 2); four per
    /// job may wait, more get status 503 with Retry-After. Answers from a table never wait.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Close a connection whose request head takes longer than this to arrive, or that stays
    /// idle this long between requests, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    idle_timeout: f64,
    /// The most connections open at once (default: the open-file limit less 64, at most
    /// 10,000); a new one past it is closed at once.
    #[arg(long, value_name = "N")]
    max_connections: Option<usize>,
    /// Also answer requests whose Host header is NAME (with the port), besides the bound
    /// address, localhost, 127.0.0.1 and [::1]; repeatable. Others get status 403 (DNS
    /// rebinding).
    #[arg(long, value_name = "NAME")]
    allow_host: Vec<String>,
    /// Log one line per request to stderr.
    #[arg(long)]
    verbose: bool,
}

/// Runs `npuzzle serve` until it is interrupted.
///
/// # Errors
/// Exit 2 for a bad time limit, idle timeout, job or connection count, a `--build` whose
/// largest build does not fit in memory, or a damaged table in `DIR`; 1 when the address
/// cannot be bound.
pub fn run(args: &ServeArgs) -> Result<(), CliError> {
    if !(args.time_limit > 0.0 && args.time_limit <= 3600.0) {
        return Err(CliError::usage(format!(
            "--time-limit {}: more than 0 and at most 3600 seconds is expected",
            args.time_limit
        )));
    }
    if !(args.idle_timeout > 0.0 && args.idle_timeout <= 3600.0) {
        return Err(CliError::usage(format!(
            "--idle-timeout {}: more than 0 and at most 3600 seconds is expected",
            args.idle_timeout
        )));
    }
    let mut options = ServerLimits::for_this_machine();
    if let Some(jobs) = args.jobs {
        if !(1..=1024).contains(&jobs) {
            return Err(CliError::usage(format!(
                "--jobs {jobs}: 1 to 1024 is expected"
            )));
        }
        options.jobs = jobs;
        options.queue = 4 * jobs;
    }
    if let Some(max) = args.max_connections {
        if max == 0 {
            return Err(CliError::usage(
                "--max-connections 0: at least 1 is expected",
            ));
        }
        options.max_connections = max;
    }
    options.idle_timeout = Duration::from_secs_f64(args.idle_timeout);
    options.allowed_hosts = args.allow_host.clone();
    options.threads = rayon::current_num_threads().max(2);
    if args.map > 12 {
        return Err(CliError::usage(format!(
            "--map {}: at most 12 cells are mapped on request (npuzzle analyze --table makes \
             larger tables the server reads)",
            args.map
        )));
    }
    let limits = AnswerLimits {
        build_cells: args.build,
        map_cells: args.map,
        map_memory: args.map_memory.saturating_mul(1_000_000),
        time_limit: Duration::from_secs_f64(args.time_limit),
        ..AnswerLimits::default()
    };
    let answers = Answers::new(args.dir.as_deref(), limits).map_err(CliError::usage)?;
    let address = SocketAddr::new(args.bind, args.port);
    let listener = TcpListener::bind(address)
        .map_err(|e| CliError::runtime(format!("cannot listen on {address}: {e}")))?;
    let bound = listener.local_addr().map_err(CliError::runtime)?;
    if !args.bind.is_loopback() {
        eprintln!("warning: listening on {bound}: the page and its API are open to the network");
    }
    println!("npuzzle serve: http://{bound}/ (Ctrl-C stops it)");
    let log: Option<serve::Log> = args
        .verbose
        .then(|| Arc::new(|line: &str| eprintln!("{line}")) as serve::Log);
    serve::run(Arc::new(answers), listener, &options, log).map_err(CliError::runtime)
}
