//! `npuzzle serve`: the page and its API ([`npuzzle::serve`]) on a local address.

use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use npuzzle::serve::{self, Answers, Limits};

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
    /// The longest one request's search may run, in seconds (shapes without a table,
    /// comparisons).
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    time_limit: f64,
    /// Build a distance table in memory for shapes of at most this many cells when first
    /// asked (9: up to 3x3, at once; 12: 3x4 too, about 3 s and 61 MB).
    #[arg(long, value_name = "CELLS", default_value_t = 9)]
    build: usize,
    /// Log one line per request to stderr.
    #[arg(long)]
    verbose: bool,
}

/// Runs `npuzzle serve` until it is interrupted.
///
/// # Errors
/// Exit 2 for a bad time limit or a damaged table in `DIR`; 1 when the address cannot be
/// bound.
pub fn run(args: &ServeArgs) -> Result<(), CliError> {
    if !(args.time_limit > 0.0 && args.time_limit <= 3600.0) {
        return Err(CliError::usage(format!(
            "--time-limit {}: between 0 and 3600 seconds is expected",
            args.time_limit
        )));
    }
    let limits = Limits {
        build_cells: args.build,
        time_limit: Duration::from_secs_f64(args.time_limit),
        ..Limits::default()
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
    let threads = rayon::current_num_threads().max(2);
    serve::run(Arc::new(answers), listener, threads, log).map_err(CliError::runtime)
}
