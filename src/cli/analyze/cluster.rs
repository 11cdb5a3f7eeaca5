//! `analyze`'s flags for the distributed engine (timely-dataflow), checked into the
//! [`Cluster`] that runs the search, and the checkpoint folder of a depth-limited search.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use npuzzle::bfs::cluster::{CheckpointEvery, Cluster};

use crate::cli::CliError;

/// The distributed engine's flags, in timely-dataflow's terms. Any of them runs the BFS on
/// timely (across processes, or in one); without them the one-machine engine runs.
#[derive(Debug, Args)]
#[command(next_help_heading = "Distributed runs (timely-dataflow)")]
pub(super) struct ClusterArgs {
    /// Run on N processes, started alike (same flags) with --process 0..N-1; process 0
    /// writes the results.
    #[arg(long, value_name = "N")]
    processes: Option<usize>,
    /// This process's number, 0..N-1.
    #[arg(long, value_name = "I", default_value_t = 0)]
    process: usize,
    /// One host:port per line, one line per process, in process order
    /// [default: localhost:2101, localhost:2102, ...].
    #[arg(long, value_name = "FILE")]
    hostfile: Option<PathBuf>,
    /// Worker threads per process of the distributed engine [default: the number of cores].
    /// For threads on one machine, without switching engines, use --threads.
    #[arg(long, value_name = "W")]
    workers: Option<usize>,
    /// Save every process's state into DIR after a BFS layer, as often as --checkpoint-every
    /// says (resumable with --resume). With --max-depth: keep the search's two live layers in
    /// DIR and its state after every layer.
    #[arg(long, value_name = "DIR")]
    pub(super) checkpoint: Option<PathBuf>,
    /// When to save: `layer` (after every layer), a number of seconds (after the first layer
    /// that ends that long after the last save), or `auto`: nine times as long as the last
    /// save took and at least a minute, so that saving costs at most about a tenth of the run.
    /// (A depth-limited search saves after every layer: its layers are on disk already.)
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = parse_every, requires = "checkpoint")]
    checkpoint_every: CheckpointEvery,
    /// Restart from the last layer that every process saved in --checkpoint DIR (with
    /// --max-depth: the last layer the search finished; a larger --max-depth goes deeper).
    #[arg(long, requires = "checkpoint", conflicts_with = "fresh")]
    resume: bool,
    /// Discard the checkpoint in --checkpoint DIR and start again (without it, a run that
    /// would overwrite a checkpoint is refused: add --resume to continue it).
    #[arg(long, requires = "checkpoint")]
    fresh: bool,
    /// Seconds to wait for every process to connect.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    connect_timeout: u64,
    /// Seconds a process waits without any message from a peer before it stops with an error
    /// naming it (a peer stopped, froze or was cut off), lengthened by twice the last layer's
    /// wall time (a peer may be busy that long with its share); waiting peers say they are
    /// alive every 2 s.
    #[arg(long, value_name = "SECONDS", default_value_t = npuzzle::bfs::cluster::DEFAULT_STALL.as_secs())]
    stall_timeout: u64,
    /// Bind each worker thread to a core of its own: `auto` when several processes of the run
    /// share a host (the same host in the hostfile) and their workers fit its cores, as MPI
    /// launchers bind ranks; `none` leaves the threads to the operating system.
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    bind: BindArg,
}

/// `--bind`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BindArg {
    /// Bind when several processes share a host and their workers fit its cores.
    Auto,
    /// Never bind.
    None,
}

/// Most processes of a distributed run (their default ports, from 2101, stay below 65535).
const MAX_PROCESSES: usize = 4096;

/// Most worker threads per process.
const MAX_WORKERS: usize = 1024;

/// Longest `--connect-timeout`, in seconds (a week).
const MAX_WAIT_SECONDS: u64 = 7 * 86_400;

impl ClusterArgs {
    /// `--processes` as given (for `--plan`, whose table without it is of 1, 4, 8 and 16
    /// machines).
    pub(super) fn asked(&self) -> Option<usize> {
        self.processes
    }

    /// The checkpoint folder of a depth-limited search, and whether to resume from it.
    pub(super) fn frontier_checkpoint(&self) -> Option<npuzzle::bfs::frontier::CheckpointAt> {
        self.checkpoint
            .as_ref()
            .map(|dir| npuzzle::bfs::frontier::CheckpointAt {
                dir: dir.clone(),
                start: npuzzle::durable::Start::from_flags(self.resume, self.fresh),
                run: Default::default(),
            })
    }

    /// The cluster, when any distributed flag is given (`--checkpoint` too, unless the search
    /// is depth-limited).
    pub(super) fn cluster(&self, depth_limited: bool) -> Result<Option<Cluster>, CliError> {
        if self.processes.is_none()
            && self.workers.is_none()
            && (self.checkpoint.is_none() || depth_limited)
        {
            if self.process != 0 || self.hostfile.is_some() {
                return Err(CliError::usage("--process and --hostfile need --processes"));
            }
            return Ok(None);
        }
        let processes = self.processes.unwrap_or(1);
        let workers = self.workers.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
        });
        if processes == 0 || workers == 0 {
            return Err(CliError::usage(
                "--processes and --workers must be at least 1",
            ));
        }
        if processes > MAX_PROCESSES {
            return Err(CliError::usage(format!(
                "--processes {processes}: at most {MAX_PROCESSES}"
            )));
        }
        if workers > MAX_WORKERS {
            return Err(CliError::usage(format!(
                "--workers {workers}: at most {MAX_WORKERS} per process"
            )));
        }
        for (flag, seconds) in [
            ("--connect-timeout", self.connect_timeout),
            ("--stall-timeout", self.stall_timeout),
        ] {
            if !(1..=MAX_WAIT_SECONDS).contains(&seconds) {
                return Err(CliError::usage(format!(
                    "{flag} {seconds}: give 1 to {MAX_WAIT_SECONDS} seconds (a week)"
                )));
            }
        }
        let key = npuzzle::bfs::cluster::handshake::key_from_env()
            .map_err(CliError::usage)?
            .map(npuzzle::bfs::cluster::SharedKey);
        if self.process >= processes {
            return Err(CliError::usage(format!(
                "--process {} is out of range for --processes {processes} (0..{})",
                self.process,
                processes - 1
            )));
        }
        let addresses = match &self.hostfile {
            Some(path) if processes > 1 => {
                Cluster::read_hostfile(path, processes, self.process).map_err(CliError::usage)?
            }
            _ => Cluster::default_addresses(processes),
        };
        Ok(Some(Cluster {
            processes,
            process: self.process,
            workers,
            addresses,
            checkpoint: self.checkpoint.clone(),
            checkpoint_every: self.checkpoint_every,
            start: npuzzle::durable::Start::from_flags(self.resume, self.fresh),
            connect_timeout: std::time::Duration::from_secs(self.connect_timeout),
            stall_timeout: std::time::Duration::from_secs(self.stall_timeout),
            key,
            bind: match self.bind {
                BindArg::Auto => npuzzle::bfs::cluster::Bind::Auto,
                BindArg::None => npuzzle::bfs::cluster::Bind::None,
            },
            tuning: Default::default(),
            request: Vec::new(),
        }))
    }
}

/// Parses `--checkpoint-every`: `auto`, `layer`, or whole seconds (at most a year).
fn parse_every(value: &str) -> Result<CheckpointEvery, String> {
    match value {
        "auto" => Ok(CheckpointEvery::Auto),
        "layer" => Ok(CheckpointEvery::Layer),
        _ => match value.parse::<u64>() {
            Ok(s) if s <= 366 * 86_400 => {
                Ok(CheckpointEvery::Interval(std::time::Duration::from_secs(s)))
            }
            _ => Err("expected auto, layer, or whole seconds up to a year".into()),
        },
    }
}
