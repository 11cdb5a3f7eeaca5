//! `npuzzle`: the command line. Parses arguments, runs a command, maps errors to exit codes
//! (0 success, 1 runtime failure such as an unwritable folder, 2 bad usage or bad input).

mod cli;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};

/// Maps the whole state space of sliding-tile puzzles and solves single boards optimally.
#[derive(Parser)]
#[command(name = "npuzzle", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
}

/// Threads per core beyond which `RAYON_NUM_THREADS` is capped: more only adds switching.
const THREADS_PER_CORE: usize = 4;

/// A closed stdout (`npuzzle analyze ... | head`) ends the program quietly with exit 0,
/// wherever the write happens: `println!` panics with "failed printing to stdout: Broken
/// pipe", which this hook turns into an exit; every other panic goes to the default hook.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}

/// SIGINT (Ctrl-C), SIGTERM and SIGHUP end the program with exit `128 + signal` (130, 143,
/// 129) after removing the temporary files of the outputs being written
/// ([`npuzzle::export::abandon`]): the outputs committed so far, and the previous versions of
/// the others, are left as they are.
fn clean_exit_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return; // Then the default action ends the program, as before.
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            npuzzle::export::abandon();
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

/// Caps rayon's pool at [`THREADS_PER_CORE`] threads per core when `RAYON_NUM_THREADS` asks
/// for more (or is not a number), with a warning; otherwise rayon reads it as usual.
fn cap_threads() {
    let Some(asked) = std::env::var_os("RAYON_NUM_THREADS") else {
        return;
    };
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let cap = THREADS_PER_CORE * cores;
    let threads = match asked.to_str().and_then(|s| s.trim().parse::<usize>().ok()) {
        Some(n) if n <= cap => return,
        Some(n) => {
            eprintln!(
                "warning: RAYON_NUM_THREADS={n} is more than {THREADS_PER_CORE} threads per core \
                 on {cores} cores; using {cap}"
            );
            cap
        }
        None => {
            eprintln!(
                "warning: RAYON_NUM_THREADS={} is not a number of threads; using {cores}",
                asked.to_string_lossy()
            );
            cores
        }
    };
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global();
}

fn main() -> ExitCode {
    quiet_on_broken_pipe();
    clean_exit_on_signals();
    cap_threads();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // No subcommand: the whole help, as a usage error.
            let _ = e.print();
            return ExitCode::from(2);
        }
        Err(e) => {
            // Usage errors: clap's first paragraph, on one line.
            let text = e.render().to_string();
            let lines: Vec<&str> = text
                .lines()
                .map(str::trim)
                .take_while(|l| !l.is_empty())
                .collect();
            eprintln!("{} (see --help)", lines.join(" "));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Analyze(args) => cli::analyze::run(args),
        Command::Plot(args) => cli::analyze::plot(args),
        Command::Solve(args) => cli::solve::run(&args),
        Command::Export(args) => cli::export::run(args),
        Command::Draw(args) => cli::draw::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
