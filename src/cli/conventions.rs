//! What users expect of a command line beyond its own commands: shell completions
//! (`npuzzle completions SHELL`), manual pages (`npuzzle man`), and a suggestion when a
//! subcommand, flag or value is mistyped. All three come from the one clap definition of the
//! command line, which lives in `main.rs` and is passed in as a [`clap::Command`].

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use clap::error::{ContextKind, ContextValue};
use clap_complete::Shell;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};
use npuzzle::export;

use super::CliError;

/// The program's name in completion scripts and manual pages.
const BIN_NAME: &str = "npuzzle";

/// Arguments of `npuzzle completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for: bash, zsh, fish, powershell (or elvish).
    #[arg(value_name = "SHELL")]
    shell: Shell,
}

/// Arguments of `npuzzle man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (e.g. `analyze`) [default: the page of `npuzzle`
    /// itself, which lists the subcommands].
    #[arg(value_name = "COMMAND", conflicts_with = "output")]
    command: Option<String>,
    /// Write every page to DIR instead of printing one: `npuzzle.1` and one
    /// `npuzzle-<command>.1` per subcommand (read one with `man -l DIR/npuzzle.1`).
    #[arg(long, value_name = "DIR")]
    output: Option<PathBuf>,
}

/// Runs `npuzzle completions SHELL`: writes the completion script for `cli` to stdout.
///
/// Install it where the shell looks, e.g. `npuzzle completions bash >
/// ~/.local/share/bash-completion/completions/npuzzle`.
///
/// # Errors
/// A runtime error when stdout cannot be written (a closed pipe is not an error).
pub fn completions(args: &CompletionsArgs, mut cli: clap::Command) -> Result<(), CliError> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cli, BIN_NAME, &mut script);
    to_stdout(&script)
}

/// Runs `npuzzle man`: the roff manual page of `cli` (or of one of its subcommands) on stdout,
/// or, with `--output DIR`, every page written to `DIR` (each atomically).
///
/// # Errors
/// A usage error for an unknown subcommand; a runtime error when a page cannot be written.
pub fn man(args: &ManArgs, cli: clap::Command) -> Result<(), CliError> {
    let mut cli = cli.bin_name(BIN_NAME).disable_help_subcommand(true);
    cli.build();
    // Every page's footer names the program and its version, subcommands' pages included.
    let source = format!("{BIN_NAME} {}", cli.get_version().unwrap_or_default());
    if let Some(dir) = &args.output {
        let written = write_pages(cli, &source, dir)?;
        println!(
            "wrote {} manual pages to {} (read one with: man -l {})",
            written.len(),
            super::shown(dir),
            super::shown(&dir.join(format!("{BIN_NAME}.1")))
        );
        return Ok(());
    }
    let page = match &args.command {
        None => cli,
        Some(name) => cli
            .find_subcommand(name)
            .cloned()
            .ok_or_else(|| unknown_command(&cli, name))?,
    };
    let root = args.command.is_none();
    let mut roff = Vec::new();
    render_page(&Man::new(page).source(source), root, &mut roff)
        .map_err(|e| CliError::runtime(format!("cannot render the manual page: {e}")))?;
    to_stdout(&roff)
}

/// Renders `page`: clap_mangen's sections, then, before VERSION, the sections clap knows
/// nothing of: on the page of `npuzzle` itself (`root`) EXAMPLES, FILES, EXIT STATUS,
/// ENVIRONMENT and SEE ALSO; on a subcommand's page a SEE ALSO that points there.
fn render_page(page: &Man, root: bool, out: &mut dyn Write) -> io::Result<()> {
    let mut generated = Vec::new();
    page.render(&mut generated)?;
    let generated = String::from_utf8_lossy(&generated);
    let mut sections = Roff::new();
    if root {
        root_sections(&mut sections);
    } else {
        see_also(
            &mut sections,
            &[(
                "npuzzle(1)",
                "Examples, the files npuzzle writes, exit status and environment.",
            )],
        );
    }
    // roff's preamble (the apostrophe string) is at the top of the page already.
    let sections = sections.render();
    let sections = sections
        .find("\n.SH ")
        .map_or(sections.as_str(), |at| &sections[at + 1..]);
    let at = generated
        .find("\n.SH VERSION\n")
        .map_or(generated.len(), |at| at + 1);
    out.write_all(generated[..at].as_bytes())?;
    out.write_all(sections.as_bytes())?;
    out.write_all(generated[at..].as_bytes())
}

/// One `.TP` entry per pair: the term in bold, then its text.
fn entries(roff: &mut Roff, items: &[(&str, &str)]) {
    for (term, text) in items {
        roff.control("TP", []);
        roff.text([bold(*term)]);
        roff.text([roman(*text)]);
    }
}

/// A SEE ALSO section naming `pages`, each with what it holds.
fn see_also(roff: &mut Roff, pages: &[(&str, &str)]) {
    roff.control("SH", ["SEE ALSO"]);
    entries(roff, pages);
}

/// The root page's EXAMPLES, FILES, EXIT STATUS, ENVIRONMENT and SEE ALSO. The exit codes are
/// those `main.rs` returns; the environment, the variables npuzzle reads for its users (not
/// the hooks that debug builds read for the tests).
fn root_sections(roff: &mut Roff) {
    roff.control("SH", ["EXAMPLES"]);
    entries(
        roff,
        &[
            (
                "npuzzle analyze --size 3",
                "Map the 8-puzzle: 362,880 boards in two components, God's number 31; prints \
                 a report and writes output/3x3/.",
            ),
            (
                "npuzzle analyze --rows 3 --cols 4 --table",
                "Map 3x4 and keep every board's depth in output/3x4/table.npt.",
            ),
            (
                "npuzzle analyze --size 4 --max-depth 20",
                "The first 21 layers of 4x4, with the frontier search (a partial run).",
            ),
            (
                "npuzzle solve --board \"8 6 7 2 5 4 3 0 1\"",
                "A shortest solution of one board (0 or . is the blank): 31 moves.",
            ),
            (
                "npuzzle random --size 4 --count 100 --seed 1 | npuzzle solve --batch -",
                "100 random solvable 4x4 boards, solved; CSV on stdout.",
            ),
            (
                "npuzzle sample --table output/3x4 --depth 53 --count 5",
                "Boards at exactly 53 moves, drawn from the table of analyze --table.",
            ),
            (
                "npuzzle plot --compare output/compare.png output/2x3 output/3x3",
                "Several boards' depth distributions on one chart, from saved results.",
            ),
            (
                "npuzzle draw --size 3 --radius 2",
                "The 3x3 boards within 2 moves of the goal, as DOT (and PNG with Graphviz).",
            ),
        ],
    );
    roff.control("SH", ["FILES"]);
    entries(
        roff,
        &[
            (
                "output/<R>x<C>/",
                "What analyze writes (--output DIR instead of output/): depths.csv, \
                 hardest.txt, summary.json (the figures, and the npuzzle version, commit and \
                 command that wrote them), depth_histogram.png; edges.csv and nodes.csv (by \
                 default up to 10 cells; --edges, --nodes); table.npt with --table; \
                 graph.graphml or graph.dot from export; game_graph.* and \
                 goal_neighbourhood_r<K>.* from draw. The folder is <R>x<C>-mtm in the \
                 multi-tile metric and <R>x<C>-goal-<label> for another goal. Outputs of an \
                 earlier run that this one does not rewrite are moved into its stale/ folder.",
            ),
            (
                "the cache folder",
                "Pattern databases (pdb-<R>x<C>-<tiles>.bin, mtm-pdb-<R>x<C>.bin), checked on \
                 every load, built on first use by solve and pdb, and the distance \
                 tables (<R>x<C>[-mtm]/table.npt) solve --heuristic exact reads: --cache DIR, \
                 else $NPUZZLE_CACHE, else $XDG_CACHE_HOME/npuzzle, else ~/.cache/npuzzle. \
                 Deleting it is always safe.",
            ),
            (
                "the --checkpoint DIR",
                "The saved state of a resumable run: frontier.0.ckpt and frontier.1.ckpt with \
                 the layer files of a depth-limited search (--max-depth), \
                 process-<P>.0.ckpt and process-<P>.1.ckpt per process of a distributed one \
                 (--processes); --resume continues from it, --fresh discards it.",
            ),
            (
                "the --scratch DIR",
                "The layers and incoming lists of a depth-limited search kept on disk instead of memory.",
            ),
            (
                ".NAME.PID@HOST.RANDOM.tmp.EXT",
                "A file being written: every output goes to such a temporary name in its \
                 folder, is synced, then renamed over NAME, so an interrupted run leaves the \
                 old file or the new one whole. A signal removes them; those a SIGKILL leaves \
                 are removed by the next run on the host that writes to the folder.",
            ),
        ],
    );
    roff.control("SH", ["EXIT STATUS"]);
    entries(
        roff,
        &[
            (
                "0",
                "Success; also an unsolvable board (No solution possible) and a closed \
                 stdout (npuzzle ... | head).",
            ),
            (
                "1",
                "The work could not be done: an unwritable output, a search stopped by its \
                 memory cap, --time-limit or --max-expansions, an allocation that failed.",
            ),
            (
                "2",
                "Bad usage or bad input: an unknown flag, --size 0, a malformed board, a board \
                 too large for memory, a bad line of a --batch file (the other lines are \
                 still solved).",
            ),
            (
                "129, 130, 143",
                "Interrupted by SIGHUP, SIGINT (Ctrl-C) or SIGTERM (128 + the signal), after \
                 removing the temporary files of the outputs being written.",
            ),
        ],
    );
    roff.control("SH", ["ENVIRONMENT"]);
    entries(
        roff,
        &[
            (
                "NPUZZLE_CACHE",
                "The cache folder of pattern databases (see FILES); --cache DIR overrides it.",
            ),
            (
                "XDG_CACHE_HOME, HOME",
                "The cache folder without NPUZZLE_CACHE: $XDG_CACHE_HOME/npuzzle (an absolute \
                 path only), else $HOME/.cache/npuzzle; with none of them, databases are \
                 built in memory for the run.",
            ),
            (
                "NPUZZLE_PROGRESS",
                "lines: progress as plain lines on stderr with the seconds since the start, \
                 also when stderr is not a terminal (for logs); by default progress bars \
                 are drawn only on a terminal, and never with --quiet.",
            ),
            (
                "RAYON_NUM_THREADS",
                "Threads on this machine when --threads is not given (default: one per core; \
                 at most 4 per core).",
            ),
            (
                "NPUZZLE_CLUSTER_KEY",
                "A secret shared by the processes of a distributed run: each connection \
                 proves it by an HMAC-SHA256 challenge, and a peer without it is refused.",
            ),
        ],
    );
    see_also(
        roff,
        &[
            (
                "npuzzle-<command>(1)",
                "Each command's options: npuzzle man analyze, or npuzzle man --output DIR for \
             every page.",
            ),
            (
                "README.md and docs/",
                "The guide and the longer explanations, in the source repository.",
            ),
        ],
    );
}

/// The usage error for `npuzzle man NAME` when NAME is no subcommand, listing those that are.
fn unknown_command(cli: &clap::Command, name: &str) -> CliError {
    let names: Vec<&str> = cli
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(clap::Command::get_name)
        .collect();
    CliError::usage(format!(
        "no manual page for '{name}': the commands are {}",
        names.join(", ")
    ))
}

/// Writes the page of `cmd` and of each of its visible subcommands, recursively, into `dir`,
/// each with the footer `source`; returns the files written.
fn write_pages(cmd: clap::Command, source: &str, dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    export::prepare_dir(dir).map_err(CliError::runtime)?;
    let mut written = Vec::new();
    let mut pending = vec![cmd];
    while let Some(cmd) = pending.pop() {
        pending.extend(cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
        let root = cmd.get_name() == BIN_NAME;
        let page = Man::new(cmd).source(source);
        let path = dir.join(page.get_filename());
        export::write_atomically(&path, |out| render_page(&page, root, out))
            .map_err(CliError::runtime)?;
        written.push(path);
    }
    Ok(written)
}

/// Writes `bytes` to stdout; a closed pipe (`npuzzle man | head`) is success.
fn to_stdout(bytes: &[u8]) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(CliError::runtime(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

/// What clap would suggest for a usage error, as one clause: `did you mean 'analyze'?` for a
/// mistyped subcommand, `did you mean '--max-depth'?` for a mistyped flag, `did you mean
/// 'graphml'?` for a mistyped value; `None` when clap has no suggestion. (clap prints its
/// suggestion as a `tip:` paragraph after the error, which a one-line error would drop.)
pub fn did_you_mean(error: &clap::Error) -> Option<String> {
    let kinds = [
        ContextKind::SuggestedSubcommand,
        ContextKind::SuggestedArg,
        ContextKind::SuggestedValue,
    ];
    let names: Vec<String> = kinds
        .into_iter()
        .filter_map(|kind| error.get(kind))
        .flat_map(|value| match value {
            ContextValue::String(name) => vec![format!("'{name}'")],
            ContextValue::Strings(names) => names.iter().map(|n| format!("'{n}'")).collect(),
            _ => Vec::new(),
        })
        .collect();
    (!names.is_empty()).then(|| format!("did you mean {}?", names.join(" or ")))
}
