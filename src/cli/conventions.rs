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
    let mut roff = Vec::new();
    Man::new(page)
        .source(source)
        .render(&mut roff)
        .map_err(|e| CliError::runtime(format!("cannot render the manual page: {e}")))?;
    to_stdout(&roff)
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
        let page = Man::new(cmd).source(source);
        let path = dir.join(page.get_filename());
        export::write_atomically(&path, |out| page.render(out)).map_err(CliError::runtime)?;
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
