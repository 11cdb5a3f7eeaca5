//! The heuristics a run prepares, one per shape and kind, on first use: pattern databases
//! loaded from the cache folder or built there (with their notes), walking distance, and
//! exact distances (from a table in the cache folder, or built).

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;

use indicatif::{DecimalBytes, HumanCount};
use npuzzle::solve::cache::{self, CacheEvent};
use npuzzle::solve::heuristic::Oracle;
use npuzzle::solve::pdb::{Partition, PatternDb};
use npuzzle::solve::walking::WalkingDistance;
use npuzzle::solve::{self, Heuristic, HeuristicKind, exact};
use npuzzle::table::DistanceTable;
use npuzzle::{Board, Metric, Shape, analysis};

use super::guard_table;
use crate::cli::CliError;
use crate::cli::progress::Bars;

/// Prepared heuristics, one per shape and kind, built or loaded on first use; or the
/// distance table that answers instead (`--table`).
pub(super) struct Heuristics<'a> {
    pub(super) table: Option<Arc<DistanceTable>>,
    /// The metric of walking distance and the exact table.
    pub(super) metric: Metric,
    pub(super) cache_dir: Option<PathBuf>,
    /// The `--pdb` name.
    pub(super) partition: String,
    pub(super) quiet: bool,
    pub(super) bars: &'a Bars,
    pub(super) prepared: HashMap<(Shape, HeuristicKind), Heuristic>,
    /// The boards of each shape the run will solve (a batch's, counted before it starts); 1
    /// for a shape not listed. `--pdb default` builds large databases only for many boards.
    pub(super) work: HashMap<Shape, u64>,
    /// The partition whose pattern databases were prepared, per shape.
    pub(super) chosen: HashMap<Shape, Partition>,
}

impl Heuristics<'_> {
    pub(super) fn get(&mut self, shape: Shape, kind: HeuristicKind) -> Result<Heuristic, CliError> {
        if let Some(h) = self.prepared.get(&(shape, kind)) {
            return Ok(h.clone());
        }
        let heuristic = match Heuristic::without_tables(kind, shape) {
            Some(h) => h,
            None if kind == HeuristicKind::Pdb && !self.metric.moves_one_tile() => {
                self.mtm_databases(shape)?
            }
            None if kind == HeuristicKind::Pdb => self.pattern_databases(shape)?,
            None if kind == HeuristicKind::WalkingDistance => {
                let table = WalkingDistance::new(shape, self.metric).map_err(CliError::usage)?;
                Heuristic::walking_distance(Arc::new(table))
            }
            None => match self.cached_table(shape) {
                Some(heuristic) => heuristic,
                None => {
                    let table = exact::exact_table(shape, self.metric, self.bars)
                        .map_err(CliError::usage)?;
                    Heuristic::exact(Arc::new(table))
                }
            },
        };
        self.prepared.insert((shape, kind), heuristic.clone());
        Ok(heuristic)
    }

    /// `--heuristic exact` from a distance table in the cache folder, where `analyze --table
    /// --output CACHE` puts it: `CACHE/<R>x<C>[-mtm]/table.npt`, for the standard goal in
    /// this metric (every block checked against its CRC-32 on opening). Each bound is the table's walk to the goal,
    /// so IDA* goes straight down an optimal path. `None` (with a note unless `--quiet`) when
    /// there is none or it does not fit.
    fn cached_table(&self, shape: Shape) -> Option<Heuristic> {
        let folder = format!("{shape}{}", self.metric.folder_suffix());
        let path = self.cache_dir.as_deref()?.join(folder).join("table.npt");
        if !path.is_file() {
            return None;
        }
        let why = match DistanceTable::open(&path, true) {
            Ok(t) if t.shape() != shape || t.metric() != self.metric => {
                format!("a table of {} boards in {}", t.shape(), t.metric())
            }
            Ok(t) if *t.goal() != Board::goal(shape) => {
                format!("a table for the goal {}", t.goal().label())
            }
            Ok(table) => {
                if !self.quiet {
                    note!("note: exact distances from {}", path.display());
                }
                guard_table(&table, &path);
                let table = Arc::new(table);
                let metric = self.metric;
                let distance = move |cells: &[u8]| table.depth_of(cells).ok().flatten();
                let oracle = Oracle::new(shape, metric, Box::new(distance));
                return Some(Heuristic::oracle(Arc::new(oracle)));
            }
            Err(e) => e.to_string(),
        };
        if !self.quiet {
            note!(
                "note: {} not used ({why}); the exact table is built instead",
                path.display()
            );
        }
        None
    }

    /// The partition asked for; for `default`, [`Partition::for_work`]'s choice for the
    /// boards of `shape` in the run, with a note when it is not the shape's best.
    fn partition(&self, shape: Shape) -> Result<Partition, CliError> {
        if self.partition != "default" {
            return Partition::named(shape, &self.partition).map_err(CliError::usage);
        }
        let best = Partition::default_for(shape).map_err(CliError::usage)?;
        let cached = cache::is_cached(self.cache_dir.as_deref(), &best);
        let boards = self.work.get(&shape).copied().unwrap_or(1);
        let chosen = Partition::for_work(shape, boards, cached).map_err(CliError::usage)?;
        if chosen != best && !self.quiet {
            note!(
                "note: {shape} boards are solved with the {} pattern databases ({}, built in \
                 seconds); the {} ones solve them several times faster but take about {} \
                 minutes and {} of memory to build, once ({} cached): build them with \
                 `npuzzle pdb {}`, or ask with --pdb {} (a batch of at least {} {shape} boards \
                 builds them by itself)",
                chosen.name(),
                DecimalBytes(chosen.table_bytes()),
                best.name(),
                best.build_estimate(rayon::current_num_threads())
                    .as_secs()
                    .div_ceil(60),
                DecimalBytes(best.build_bytes()),
                DecimalBytes(best.table_bytes()),
                shape_flags(shape),
                best.name(),
                HumanCount(solve::pdb::LARGE_PAYS_FROM),
            );
        }
        Ok(chosen)
    }

    /// The multi-tile metric's databases of `shape`, from the cache folder or built there
    /// (about a minute for 4x4, once).
    pub(super) fn mtm_databases(&mut self, shape: Shape) -> Result<Heuristic, CliError> {
        let dir = self.cache_dir.as_deref();
        let cached = dir.is_some_and(|d| d.join(cache::mtm_file_name(shape)).is_file());
        if !self.quiet && !cached && shape.cells() > 12 {
            note!(
                "note: building the multi-tile pattern database of {shape} once (about a minute \
                 on 2 cores, 252 MB for 4x4); later runs load it from the cache folder"
            );
        }
        let (databases, event) =
            cache::load_or_build_mtm(dir, shape, self.bars).map_err(CliError::usage)?;
        if !self.quiet
            && let CacheEvent::Built {
                path,
                reason,
                elapsed,
                saved,
            } = &event
        {
            let what = format!(
                "multi-tile pattern database {shape} ({reason}): {} abstract boards built in \
                 {:.1} s",
                HumanCount(databases.states()),
                elapsed.as_secs_f64()
            );
            match (path, saved) {
                (Some(p), Ok(())) => note!("note: {what}, saved to {}", p.display()),
                (Some(p), Err(e)) => {
                    note!("warning: {what}, but not saved to {}: {e}", p.display())
                }
                (None, _) => note!("warning: {what}, not saved: no cache folder"),
            }
        }
        Ok(Heuristic::mtm_pdb(Arc::new(databases)))
    }

    pub(super) fn pattern_databases(&mut self, shape: Shape) -> Result<Heuristic, CliError> {
        let partition = self.partition(shape)?;
        self.chosen.insert(shape, partition.clone());
        let dir = self.cache_dir.as_deref();
        let cached = cache::is_cached(dir, &partition);
        check_memory(&partition, cached, analysis::available_memory())?;
        let estimate = partition.build_estimate(rayon::current_num_threads());
        if !self.quiet && !cached && estimate.as_secs() >= 60 {
            let place = dir.map_or("nowhere: no cache folder".into(), |d| {
                format!("in {}", d.display())
            });
            note!(
                "note: building the {} pattern databases for {shape} once: about {} minutes on \
                 {} threads, up to {} of memory, {} saved {place}; later runs load them in a \
                 fraction of a second",
                partition.name(),
                estimate.as_secs().div_ceil(60),
                rayon::current_num_threads(),
                DecimalBytes(partition.build_bytes()),
                DecimalBytes(partition.table_bytes()),
            );
        }
        let (databases, events) =
            cache::load_or_build(self.cache_dir.as_deref(), &partition, self.bars)
                .map_err(CliError::runtime)?;
        if !self.quiet {
            for (event, db) in events.iter().zip(databases.databases()) {
                report_cache_event(event, db);
            }
        }
        Ok(Heuristic::pdb(Arc::new(databases)))
    }
}

/// Refuses, before any work, pattern databases that do not fit in `available` bytes: their
/// tables when they are `cached`, else the largest build (which holds its table).
fn check_memory(partition: &Partition, cached: bool, available: u64) -> Result<(), CliError> {
    let needed = if cached {
        partition.table_bytes()
    } else {
        partition.build_bytes().max(partition.table_bytes())
    };
    if needed <= available {
        return Ok(());
    }
    let what = if cached { "to load" } else { "to build" };
    let shape = partition.shape();
    let smaller = Partition::NAMES
        .iter()
        .filter_map(|name| Partition::named(shape, name).ok())
        .filter(|p| p.groups() != partition.groups())
        .map(|p| (p.name(), p.build_bytes().max(p.table_bytes())))
        .filter(|&(_, bytes)| bytes <= available)
        .min_by_key(|&(_, bytes)| bytes)
        .map_or(String::new(), |(name, bytes)| {
            format!("; --pdb {name} needs {}", DecimalBytes(bytes))
        });
    Err(CliError::usage(format!(
        "the {} pattern databases of {shape} need {} of memory {what}, {} available{smaller}",
        partition.name(),
        DecimalBytes(needed),
        DecimalBytes(available),
    )))
}

/// One note on stderr per database built (none for those loaded).
fn report_cache_event(event: &CacheEvent, db: &PatternDb) {
    let CacheEvent::Built {
        path,
        reason,
        elapsed,
        saved,
    } = event
    else {
        return;
    };
    let tiles: Vec<String> = db.tiles().iter().map(u8::to_string).collect();
    let what = format!(
        "pattern database {} [{}] ({reason}): built in {:.1} s",
        db.shape(),
        tiles.join(" "),
        elapsed.as_secs_f64()
    );
    match (path, saved) {
        (Some(p), Ok(())) => note!("note: {what}, saved to {}", p.display()),
        (Some(p), Err(e)) => note!("warning: {what}, but not saved to {}: {e}", p.display()),
        (None, _) => note!(
            "warning: {what}, not saved: no cache folder (set --cache DIR, NPUZZLE_CACHE or HOME)"
        ),
    }
}

/// The flags that name `shape`: `--size 4`, `--rows 3 --cols 4`.
fn shape_flags(shape: Shape) -> String {
    if shape.rows() == shape.cols() {
        format!("--size {}", shape.rows())
    } else {
        format!("--rows {} --cols {}", shape.rows(), shape.cols())
    }
}
