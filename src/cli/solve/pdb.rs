//! `npuzzle pdb`: builds a shape's pattern databases into the cache folder, once, so that
//! `solve` loads them from then on.

use std::collections::HashMap;
use std::path::PathBuf;

use clap::builder::PossibleValuesParser;
use indicatif::DecimalBytes;
use npuzzle::Metric;
use npuzzle::solve::cache;
use npuzzle::solve::pdb::Partition;

use super::Heuristics;
use crate::cli::board::BoardArgs;
use crate::cli::progress::Bars;
use crate::cli::{CliError, MetricArg};

/// Arguments of `npuzzle pdb`.
#[derive(Debug, clap::Args)]
pub struct PdbArgs {
    /// The board shape whose databases to build: --size N, or --rows R --cols C.
    #[command(flatten)]
    shape: BoardArgs,
    /// Which databases [default: the shape's best: 4x4 7-8, else runs of at most 6 tiles];
    /// for 4x4 also 6-6-3.
    #[arg(long = "pdb", value_name = "PARTITION",
          value_parser = PossibleValuesParser::new(Partition::NAMES))]
    partition: Option<String>,
    /// stm (the additive pattern databases) or mtm (the multi-tile pattern database of
    /// `solve --metric mtm`: 4x4 about 40 s, 252 MB).
    #[arg(
        long,
        value_enum,
        value_name = "METRIC",
        default_value = "stm",
        conflicts_with = "partition"
    )]
    metric: MetricArg,
    /// Folder for the pattern databases [default: $NPUZZLE_CACHE, else
    /// $XDG_CACHE_HOME/npuzzle, else $HOME/.cache/npuzzle].
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// No progress bars and no notes.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `npuzzle pdb`: builds the pattern databases of a shape into the cache folder (or
/// checks and loads them when they are there), so that `solve` loads them from then on.
///
/// # Errors
/// A usage error for a bad shape or partition, or databases that cannot fit in memory; a
/// runtime error when there is no cache folder or a build fails.
pub fn build_databases(args: &PdbArgs) -> Result<(), CliError> {
    let shape = args.shape.shape()?;
    let Some(cache_dir) = args.cache.clone().or_else(cache::default_dir) else {
        return Err(CliError::runtime(
            "no cache folder for the pattern databases: give --cache DIR, or set NPUZZLE_CACHE \
             or HOME",
        ));
    };
    let name = args.partition.clone().unwrap_or_else(|| "default".into());
    let partition = Partition::named(shape, &name).map_err(CliError::usage)?;
    let bars = Bars::new(!args.quiet);
    let metric = Metric::from(args.metric);
    let mut heuristics = Heuristics {
        table: None,
        metric,
        cache_dir: Some(cache_dir.clone()),
        partition: name,
        quiet: args.quiet,
        bars: &bars,
        prepared: HashMap::new(),
        // As for the largest batch: the shape's best, not the quick choice for a few boards.
        work: HashMap::from([(shape, u64::MAX)]),
        chosen: HashMap::new(),
    };
    // (additive databases count single-tile moves: elsewhere the multi-tile ones)
    if !metric.moves_one_tile() {
        heuristics.mtm_databases(shape)?;
        if !args.quiet {
            println!(
                "the multi-tile pattern database of {shape} is in {}; solve --metric mtm loads \
                 it from now on",
                cache_dir.display()
            );
        }
        return Ok(());
    }
    heuristics.pattern_databases(shape)?;
    if !args.quiet {
        println!(
            "the {} pattern databases of {shape} are in {} ({}); solve loads them from now on",
            partition.name(),
            cache_dir.display(),
            DecimalBytes(partition.table_bytes())
        );
    }
    Ok(())
}
