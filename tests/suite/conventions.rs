//! Issue 20 (conventions users expect of a CLI), on the real binary: shell completions
//! (`npuzzle completions SHELL`), manual pages (`npuzzle man`), and a suggestion, on the one
//! line of a usage error, for a mistyped subcommand, flag or value.

use std::fs;

use crate::support::npuzzle;

/// One hermetic command: the built binary, an empty environment.
/// Runs `args`, expects success and an empty stderr; returns stdout.
fn stdout_of(args: &[&str]) -> String {
    let out = npuzzle().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {:?}: {stderr}", out.status);
    assert!(stderr.is_empty(), "{args:?}: stderr: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `args`, expects exit 2, nothing on stdout and exactly one line on stderr; returns it.
fn usage_error(args: &[&str]) -> String {
    let out = npuzzle().args(args).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?}: stdout not empty");
    assert!(
        stderr.starts_with("error: ") && stderr.ends_with('\n') && stderr.lines().count() == 1,
        "{args:?}: not one error line: {stderr:?}"
    );
    stderr.trim_end().to_string()
}

/// The subcommands `npuzzle --help` lists (without `help`), so that the checks below follow
/// the command line as it grows.
fn subcommands() -> Vec<String> {
    let help = stdout_of(&["--help"]);
    let names: Vec<String> = help
        .lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect();
    assert!(names.iter().any(|n| n == "analyze"), "{help}");
    names
}

#[test]
fn bash_completion_offers_every_subcommand_and_their_flags() {
    let script = stdout_of(&["completions", "bash"]);
    assert!(script.contains("complete -F _npuzzle"), "{script}");
    for name in subcommands() {
        assert!(script.contains(&name), "no {name} in the bash completion");
    }
    for flag in ["--max-depth", "--size", "--batch", "--radius", "--output"] {
        assert!(script.contains(flag), "no {flag} in the bash completion");
    }
}

#[test]
fn every_shell_gets_a_script_naming_the_subcommands() {
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let script = stdout_of(&["completions", shell]);
        assert!(
            script.contains("npuzzle")
                && script.contains("analyze")
                && script.contains("max-depth"),
            "{shell}: {script}"
        );
    }
}

#[test]
fn an_unknown_shell_is_one_usage_line() {
    let line = usage_error(&["completions", "tcsh"]);
    assert!(line.contains("invalid value 'tcsh'"), "{line}");
    assert!(
        line.contains("bash") && line.contains("powershell"),
        "{line}"
    );
    let line = usage_error(&["completions"]);
    assert!(line.contains("<SHELL>"), "{line}");
}

#[test]
fn the_man_page_is_roff_and_lists_the_subcommands() {
    let page = stdout_of(&["man"]);
    // clap_mangen opens with two lines that define a quote string, then the title.
    let title = page
        .lines()
        .find(|l| l.starts_with('.') && !l.starts_with(".ie") && !l.starts_with(".el"));
    assert!(
        title.is_some_and(|t| t.starts_with(".TH npuzzle 1 ") && t.contains("npuzzle 0.")),
        "{page}"
    );
    assert!(
        page.contains(".SH NAME") && page.contains(".SH SUBCOMMANDS"),
        "{page}"
    );
    for name in subcommands() {
        assert!(
            page.contains(&format!("npuzzle\\-{name}(1)")),
            "no {name}: {page}"
        );
    }
}

/// Issue 50: `npuzzle man` is more than `--help`. After the options and subcommands come
/// EXAMPLES (the README's main command first), FILES (the output folder, the cache, the
/// checkpoints), EXIT STATUS (the codes the binary returns, two of them checked here on the
/// spot) and ENVIRONMENT (the variables meant for users, not the debug builds' test hooks),
/// then SEE ALSO, before VERSION; a subcommand's page points to it.
#[test]
fn the_man_page_has_examples_files_exit_status_and_environment() {
    let page = stdout_of(&["man"]);
    let order = [
        "SUBCOMMANDS",
        "EXAMPLES",
        "FILES",
        "EXIT STATUS",
        "ENVIRONMENT",
        "SEE ALSO",
        "VERSION",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|s| {
            // roff quotes a heading of two words: `.SH "EXIT STATUS"`.
            let heading = if s.contains(' ') {
                format!("\"{s}\"")
            } else {
                s.to_string()
            };
            page.find(&format!("\n.SH {heading}\n"))
                .unwrap_or_else(|| panic!("no section {s}: {page}"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{order:?}: {at:?}");
    let section = |i: usize| &page[at[i]..at[i + 1]];
    let examples = section(1);
    assert!(
        examples.contains(".TP\n\\fBnpuzzle analyze \\-\\-size 3\\fR\n"),
        "{examples}"
    );
    assert!(examples.contains("npuzzle solve"), "{examples}");
    let files = section(2);
    for file in [
        "output/<R>x<C>/",
        "summary.json",
        "table.npt",
        "stale/",
        "$NPUZZLE_CACHE",
        "frontier.0.ckpt",
        "process\\-<P>.0.ckpt",
    ] {
        assert!(files.contains(file), "no {file} in FILES: {files}");
    }
    let status = section(3);
    let codes: Vec<&str> = status
        .lines()
        .filter_map(|l| l.strip_prefix("\\fB")?.strip_suffix("\\fR"))
        .collect();
    assert_eq!(codes, ["0", "1", "2", "129, 130, 143"], "{status}");
    let environment = section(4);
    for name in [
        "NPUZZLE_CACHE",
        "XDG_CACHE_HOME",
        "NPUZZLE_PROGRESS",
        "RAYON_NUM_THREADS",
        "NPUZZLE_CLUSTER_KEY",
    ] {
        assert!(environment.contains(name), "no {name}: {environment}");
    }
    for hook in [
        "NPUZZLE_CLAIMS",
        "NPUZZLE_KILL_AFTER_STEP",
        "NPUZZLE_FAKE_DISK_FREE",
    ] {
        assert!(!page.contains(hook), "the test hook {hook} is on the page");
    }
    // Two of the codes, as the binary returns them.
    let tmp = tempfile::tempdir().unwrap();
    let code = |args: &[&str]| {
        npuzzle()
            .current_dir(tmp.path())
            .args(args)
            .output()
            .unwrap()
    };
    assert_eq!(code(&["analyze", "--size", "0"]).status.code(), Some(2));
    let unwritable = code(&["analyze", "--size", "2", "--output", "/dev/null"]);
    assert_eq!(unwritable.status.code(), Some(1));
    let sub = stdout_of(&["man", "analyze"]);
    assert!(
        sub.contains(".SH \"SEE ALSO\"\n.TP\n\\fBnpuzzle(1)\\fR\n"),
        "{sub}"
    );
}

#[test]
fn a_subcommand_has_its_own_page() {
    let page = stdout_of(&["man", "analyze"]);
    assert!(page.contains(".TH npuzzle-analyze 1 "), "{page}");
    assert!(page.contains("\\-\\-max\\-depth"), "{page}");
    let line = usage_error(&["man", "analyse"]);
    assert!(line.contains("no manual page for 'analyse'"), "{line}");
    assert!(line.contains("analyze"), "{line}");
}

#[test]
fn man_output_writes_one_page_per_subcommand() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("man");
    let dir_arg = dir.to_str().unwrap();
    let report = stdout_of(&["man", "--output", dir_arg]);
    let mut expected = vec!["npuzzle.1".to_string()];
    expected.extend(subcommands().iter().map(|n| format!("npuzzle-{n}.1")));
    expected.sort();
    let mut found: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    found.sort();
    assert_eq!(found, expected, "only the pages, no temporary file left");
    assert!(
        report.contains(&format!("wrote {} manual pages", expected.len())),
        "{report}"
    );
    let top = fs::read_to_string(dir.join("npuzzle.1")).unwrap();
    assert_eq!(
        top,
        stdout_of(&["man"]),
        "the file is what `npuzzle man` prints"
    );
    usage_error(&["man", "analyze", "--output", dir_arg]);
}

#[test]
fn a_mistyped_subcommand_gets_a_suggestion() {
    let line = usage_error(&["analyse", "--size", "3"]);
    assert_eq!(
        line,
        "error: unrecognized subcommand 'analyse' (did you mean 'analyze'?; see --help)"
    );
    let line = usage_error(&["solv", "--board", "1 2 3 4 5 6 7 8 0"]);
    assert!(line.contains("did you mean 'solve'?"), "{line}");
}

#[test]
fn a_mistyped_flag_gets_a_suggestion() {
    let line = usage_error(&["analyze", "--size", "3", "--max-dept", "5"]);
    assert_eq!(
        line,
        "error: unexpected argument '--max-dept' found (did you mean '--max-depth'?; see --help)"
    );
    let line = usage_error(&["draw", "--size", "2", "--radis", "1"]);
    assert!(line.contains("did you mean '--radius'?"), "{line}");
}

#[test]
fn a_mistyped_value_gets_a_suggestion() {
    let line = usage_error(&["export", "--size", "2", "--format", "grapml"]);
    assert!(line.contains("invalid value 'grapml'"), "{line}");
    assert!(
        line.ends_with("(did you mean 'graphml'?; see --help)"),
        "{line}"
    );
}

#[test]
fn no_suggestion_when_nothing_is_close() {
    let line = usage_error(&["frobnicate"]);
    assert_eq!(
        line,
        "error: unrecognized subcommand 'frobnicate' (see --help)"
    );
    let line = usage_error(&["analyze", "--size", "3", "--frobnicate"]);
    assert!(line.ends_with("found (see --help)"), "{line}");
}
