//! `npuzzle`: the command line. Parses arguments, runs a command, maps errors to exit codes
//! (0 success, 1 runtime failure such as an unwritable folder, 2 bad usage or bad input).

mod cli;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};
use npuzzle::board::printable;

/// `npuzzle --version`'s long form: the version and the git commit of the build
/// ([`npuzzle::export::BUILD_COMMIT`]), as `summary.json` records them.
fn long_version() -> &'static str {
    static TEXT: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        let version = env!("CARGO_PKG_VERSION");
        match npuzzle::export::BUILD_COMMIT {
            Some(commit) => format!("{version} (commit {commit})"),
            None => format!("{version} (not built from a git checkout)"),
        }
    });
    &TEXT
}

/// Maps the whole state space of sliding-tile puzzles and solves single boards optimally.
#[derive(Parser)]
#[command(name = "npuzzle", version, long_version = long_version(), about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Threads for the work on this machine (BFS, exports, pattern databases, batches)
    /// [default: RAYON_NUM_THREADS, else one per core]. The distributed engine's workers per
    /// process are analyze's --workers.
    #[arg(long, global = true, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=npuzzle::threads::MAX_ASKED as i64))]
    threads: Option<u32>,
}

#[derive(Subcommand)]
enum Command {
    /// Map the whole state space of a board: game graph, components, BFS depths, outputs.
    Analyze(cli::analyze::AnalyzeArgs),
    /// Redraw the depth chart from saved results (no recomputation), or compare boards.
    Plot(cli::analyze::PlotArgs),
    /// Solve boards optimally: one board (file, stdin or --board), a batch, or a comparison
    /// of the algorithms.
    Solve(cli::solve::SolveArgs),
    /// Write the whole game graph as GraphML or DOT, with each board's component and depth.
    Export(cli::export::ExportArgs),
    /// Draw a small game graph, each board as a small grid: DOT, and PNG with Graphviz.
    Draw(cli::draw::DrawArgs),
    /// Build a shape's pattern databases into the cache, once (4x4: the 7-8 ones, which solve
    /// boards several times faster than the 6-6-3 ones `solve` uses until they exist).
    Pdb(cli::solve::PdbArgs),
    /// Random boards at an exact depth ("a 3x3 puzzle that needs exactly 25 moves"), drawn
    /// uniformly from a distance table written by `analyze --table`; CSV `board,depth`.
    Sample(cli::sample::SampleArgs),
    /// Random boards without a table: uniform over the boards that can reach the goal, or
    /// the goal scrambled by K random moves; one a line, as `solve --batch` reads them.
    Random(cli::random::RandomArgs),
    /// Serve a page on a local address to play any board with its exact distance, watch
    /// optimal solutions, and explore the depth distribution and the game graph.
    #[cfg(feature = "serve")]
    Serve(cli::serve::ServeArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell) to stdout.
    Completions(cli::conventions::CompletionsArgs),
    /// Print the manual page (roff) to stdout, or write every page to a folder.
    Man(cli::conventions::ManArgs),
}

/// An abort (SIGABRT) ends the program with exit 1 after removing the temporary files of the
/// outputs being written ([`npuzzle::durable::abandon`]), instead of exit 134 with them left
/// behind. The allocator is Rust's own: the big arrays (marks, depths, component ids, pattern
/// databases, gathered results) are allocated fallibly and report
/// [`npuzzle::bfs::OutOfMemory`] with what they were for, and a dependency's `try_reserve`
/// gets its error. What the memory plan cannot foresee, such as an address-space limit
/// (`ulimit -v`) met by a small allocation, ends in Rust's one line (`memory allocation of
/// N bytes failed`) and its abort, which this turns into exit 1 with no output left half
/// written.
///
/// Installed before `main` on Linux ([`INSTALL_BEFORE_MAIN`]), so that it also covers the
/// allocations of Rust's own start-up, and with `sigaction` directly: nothing is allocated.
fn clean_exit_on_abort() {
    extern "C" fn exit_after_abort(_: libc::c_int) {
        npuzzle::durable::abandon();
        // SAFETY: ends the process at once; async-signal-safe.
        unsafe { libc::_exit(1) }
    }
    // SAFETY: a zeroed `sigaction` is a valid empty action; the handler is an `extern "C"`
    // function of the signature `sa_handler` expects, which removes files by their stored
    // paths (no allocation for paths of usual length) and ends the process with `_exit`. An
    // abort is raised by the thread that aborts, after its failed allocation has returned.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = exit_after_abort as extern "C" fn(libc::c_int) as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGABRT, &action, std::ptr::null_mut());
    }
}

/// Runs [`clean_exit_on_abort`] from the executable's initialisers, before Rust's runtime
/// starts (its first allocations can fail under a tight `ulimit -v`).
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static INSTALL_BEFORE_MAIN: extern "C" fn() = {
    extern "C" fn install() {
        clean_exit_on_abort();
    }
    install
};

/// A clap usage error on one line: its first paragraph (up to the first blank line that is
/// not inside a quoted value), its lines joined, the values' control characters escaped
/// ([`printable`]): `error: invalid value '3\n\n4' for '--size <N>': ...`.
fn first_paragraph(rendered: &str) -> String {
    let mut line = String::new();
    let mut in_value = false;
    let mut chars = rendered.trim_end().chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => in_value = !in_value,
            '\n' if !in_value => {
                if chars.peek() == Some(&'\n') {
                    break;
                }
                while chars.next_if(|c| *c == ' ').is_some() {}
                line.push(' ');
                continue;
            }
            _ => {}
        }
        line.push(c);
    }
    printable(&line)
}

/// The one path every failed write to stdout or stderr takes, wherever it happens (`print!`
/// and `eprint!` panic with "failed printing to stdout: ..."; this hook turns the panic into
/// an exit, every other panic goes to the default hook):
/// - a closed stdout (`npuzzle analyze ... | head`) ends the program quietly with exit 0;
/// - any other failure (`> /dev/full`: no space left) ends it with one line on stderr, when
///   stderr still works, and exit 1; a failing stderr ends it with exit 1 silently.
///
/// The temporary files being written are removed first ([`npuzzle::durable::abandon`]).
fn exit_on_failed_print() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(why) = message.strip_prefix("failed printing to stdout: ") {
            npuzzle::durable::abandon();
            if why.contains("Broken pipe") {
                std::process::exit(0);
            }
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "error: cannot write to stdout: {why}");
            std::process::exit(1);
        }
        if message.starts_with("failed printing to stderr") {
            npuzzle::durable::abandon();
            std::process::exit(1);
        }
        default(info);
    }));
}

/// SIGINT (Ctrl-C), SIGTERM and SIGHUP end the program with exit `128 + signal` (130, 143,
/// 129) after removing the temporary files of the outputs being written
/// ([`npuzzle::durable::abandon`]): the outputs committed so far, and the previous versions of
/// the others, are left as they are.
fn clean_exit_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return; // Then the default action ends the program, as before.
    };
    let watcher = std::thread::Builder::new().name("signals".into());
    // Without the thread (none can be started), the default action applies, as before.
    let _ = watcher.spawn(move || {
        if let Some(signal) = signals.forever().next() {
            npuzzle::durable::abandon();
            // Over a progress bar's line, when there is one.
            let clear = if std::io::stderr().is_terminal() {
                "\r\x1b[2K"
            } else {
                ""
            };
            eprintln!(
                "{clear}npuzzle: interrupted (signal {signal}); no output was left half written"
            );
            std::process::exit(128 + signal);
        }
    });
}

/// Starts rayon's pool: as many threads as `--threads` asks, else `RAYON_NUM_THREADS` (or its
/// older name `RAYON_RS_NUM_CPUS`), else one per core, capped at
/// [`npuzzle::threads::PER_CORE`] per core with a warning when either asks for more (the
/// library's rule, [`npuzzle::threads::capped`], which the Python package's `threads=` follows
/// too), or when the variable is not a number.
///
/// # Errors
/// When the threads cannot be started (e.g. under a tight `ulimit -v` or `ulimit -u`).
fn start_threads(flag: Option<u32>) -> Result<(), String> {
    let cores = npuzzle::threads::cores();
    // Rayon also reads its older name for the variable, RAYON_RS_NUM_CPUS: both go through
    // the same cap, and the pool's size is always given to rayon, which then reads neither.
    let (name, asked) = match flag {
        Some(n) => ("--threads".to_string(), Some(n.to_string().into())),
        None => ["RAYON_NUM_THREADS", "RAYON_RS_NUM_CPUS"]
            .into_iter()
            .find_map(|v| std::env::var_os(v).map(|value| (format!("{v}="), Some(value))))
            .unwrap_or_default(),
    };
    let threads = match asked
        .as_ref()
        .map(|a| (a, a.to_str().map(|s| s.trim().parse::<usize>())))
    {
        None | Some((_, Some(Ok(0)))) => None,
        Some((_, Some(Ok(n)))) => {
            let space = if flag.is_some() { " " } else { "" };
            let (threads, warning) =
                npuzzle::threads::capped(n, cores, &format!("{name}{space}{n}"));
            if let Some(warning) = warning {
                eprintln!("warning: {warning}");
            }
            Some(threads)
        }
        Some((asked, _)) => {
            eprintln!(
                "warning: {name}{} is not a number of threads; using {cores}",
                asked.to_string_lossy()
            );
            Some(cores)
        }
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(cores))
        .build_global()
        .map_err(|e| format!("cannot start the worker threads: {e}"))
}

fn main() -> ExitCode {
    #[cfg(not(target_os = "linux"))]
    clean_exit_on_abort();
    exit_on_failed_print();
    clean_exit_on_signals();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version: a stdout that fails (`> /dev/full`) is an error, as for
            // every other output; a closed pipe (`| head -1`) is not.
            use std::io::Write;
            return match e.print().and_then(|()| std::io::stdout().flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(why) if why.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(why) => {
                    eprintln!("error: cannot write to stdout: {why}");
                    ExitCode::from(1)
                }
            };
        }
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // No subcommand: the whole help, as a usage error.
            let _ = e.print();
            return ExitCode::from(2);
        }
        Err(e) => {
            // clap's suggestion ("tip: a similar subcommand exists") is a later paragraph.
            let tip = cli::conventions::did_you_mean(&e).map_or(String::new(), |t| t + "; ");
            let line = first_paragraph(&e.render().to_string());
            eprintln!("{line} ({}see --help)", printable(&tip));
            return ExitCode::from(2);
        }
    };
    if let Err(e) = start_threads(cli.threads) {
        eprintln!("error: {}", printable(&e));
        return ExitCode::from(1);
    }
    let result = match cli.command {
        Command::Analyze(args) => cli::analyze::run(args),
        Command::Plot(args) => cli::analyze::plot(args),
        Command::Solve(args) => cli::solve::run(&args),
        Command::Export(args) => cli::export::run(args),
        Command::Draw(args) => cli::draw::run(args),
        Command::Pdb(args) => cli::solve::build_databases(&args),
        Command::Sample(args) => cli::sample::run(&args),
        Command::Random(args) => cli::random::run(&args),
        #[cfg(feature = "serve")]
        Command::Serve(args) => cli::serve::run(&args),
        Command::Completions(args) => cli::conventions::completions(&args, Cli::command()),
        Command::Man(args) => cli::conventions::man(&args, Cli::command()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // The process ends when main returns, whatever other threads still hold: a
            // temporary file one of them has not dropped yet (the distributed engine's, when it
            // gave up on a peer) is removed here, as on a signal.
            npuzzle::durable::abandon();
            eprintln!("error: {}", printable(&e.to_string()));
            ExitCode::from(e.exit_code())
        }
    }
}
