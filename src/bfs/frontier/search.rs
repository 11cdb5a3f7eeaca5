//! The search itself: layer after layer from the seed (or from a checkpoint) to the depth
//! limit, each checked against the memory budget and the disk, built from the one before in
//! segment maps (`maps.rs`), and saved to the checkpoint once built.

use std::path::Path;

use rayon::prelude::*;

use super::chunks::Chunks;
use super::config::{Buffers, RESERVE};
use super::disk::{damage_hook, disk_free};
use super::exchange::{Alone, Deal, Exchange};
use super::maps::{Built, Incoming, Maps, Work, spill_memory};
use super::resume::{Checkpoint, History, Resumed, layer_name};
use super::status::{Place, Status};
use super::store::{self, Layer, Sink};
use super::{
    CheckpointAt, Frontier, FrontierConfig, FrontierError, LAST_LISTED, LayerReport, Storage,
};
use crate::bfs::codec::encode_sorted;
use crate::bfs::{StateIndex, StateSpace};
use crate::durable::folder::FolderLock;
use crate::progress::{NoProgress, Progress};

/// [`search_with`] with [`FrontierConfig::default`].
///
/// # Errors
/// [`FrontierError::Scratch`] when the scratch folder fails.
pub fn search<S: StateSpace>(
    space: &S,
    seed: StateIndex,
    max_depth: u32,
    scratch: Option<&Path>,
    on_layer: impl FnMut(LayerReport),
) -> Result<Frontier, FrontierError> {
    search_with(
        space,
        seed,
        max_depth,
        scratch,
        FrontierConfig::default(),
        on_layer,
    )
}

/// BFS from `seed` over `space` to depth `max_depth` (or until the component is exhausted),
/// keeping only three layers (frontier search: Korf, Zhang, Thayer & Hohwald, JACM 2005).
/// `scratch`: a folder for the layers and the incoming lists, unnamed files there (else they
/// stay in memory). `config` (clamped, [`FrontierConfig::clamped`]) sets the segments; the
/// result does not depend on it. `on_layer` is called after each layer is built, depth 0
/// included. [`search_stored`] also checkpoints and resumes.
///
/// Time per layer: linear in the neighbours of layer `d` (each segment of layers `d - 1` and
/// `d` decoded at most twice, each map zeroed and read once), but for a sparse segment's
/// radix sort. Memory: see the module documentation.
///
/// # Errors
/// [`FrontierError::Scratch`] when the scratch folder fails; [`FrontierError::Read`] when a
/// scratch file does not check out when read back.
pub fn search_with<S: StateSpace>(
    space: &S,
    seed: StateIndex,
    max_depth: u32,
    scratch: Option<&Path>,
    config: FrontierConfig,
    on_layer: impl FnMut(LayerReport),
) -> Result<Frontier, FrontierError> {
    let storage = Storage {
        scratch: scratch.map(Path::to_path_buf),
        checkpoint: None,
        memory: None,
    };
    search_stored(
        space,
        seed,
        max_depth,
        &storage,
        config,
        on_layer,
        &NoProgress,
    )
}

/// [`search_with`], with the layers where `storage` says, saving the search's state after
/// each layer into a checkpoint folder, and resuming from it. Warnings (a damaged checkpoint
/// slot passed over) go to `progress` ([`Progress::warn`]), which is asked before each chunk of
/// a layer is expanded whether to stop ([`Progress::stop_requested`]). A resumed search gives the same result as an unbroken one, and may
/// go deeper than the search it resumes.
///
/// # Errors
/// [`FrontierError::Scratch`] when a folder fails; [`FrontierError::Checkpoint`] for a
/// checkpoint of another search; [`FrontierError::NothingToResume`] (also for a checkpoint
/// deeper than `max_depth`); [`FrontierError::Read`] for a layer or a run that does not check
/// out when read back; [`FrontierError::Budget`]; [`FrontierError::Interrupted`] when `progress`
/// asked to stop.
pub fn search_stored<S: StateSpace>(
    space: &S,
    seed: StateIndex,
    max_depth: u32,
    storage: &Storage,
    config: FrontierConfig,
    on_layer: impl FnMut(LayerReport),
    progress: &dyn Progress,
) -> Result<Frontier, FrontierError> {
    search_across(
        space, seed, max_depth, storage, config, on_layer, progress, &mut Alone,
    )
}

/// [`search_stored`] as one of the processes of `exchange` ([`Exchange`]), each holding the
/// segments it owns of every layer ([`Deal`]): its own layers,
/// incoming lists, checkpoint and memory budget in `storage`, the same `seed`, `max_depth`
/// and `config` (segments) on every process. The neighbours its scatter finds in other
/// processes' segments are sent to them, and theirs added to its incoming lists; after each
/// layer the processes sum its size. Every process gets the global layer sizes,
/// `complete` and `stopped`; [`Frontier::last`] is gathered to process 0 (the first
/// [`LAST_LISTED`] boards of the last layer, as one machine's) and empty on the others; the
/// other figures are this process's. `on_layer` is told the global size of each layer and
/// this process's bytes sent and received. With [`super::Alone`], exactly
/// [`search_stored`].
///
/// With a checkpoint, `--resume` continues from the deepest layer every process can resume
/// whose slot checks out whole on every process (the depths of [`Exchange::common_depths`]
/// tried newest first, every process falling back together when one's load fails), nothing
/// removed before every process has loaded it; a process's refusal (a folder of another
/// search or process, nothing to resume) is every process's error.
///
/// # Errors
/// As [`search_stored`], and [`FrontierError::Peer`] when another process failed, refused or
/// sent what cannot be right.
#[allow(clippy::too_many_arguments)]
pub fn search_across<S: StateSpace>(
    space: &S,
    seed: StateIndex,
    max_depth: u32,
    storage: &Storage,
    config: FrontierConfig,
    on_layer: impl FnMut(LayerReport),
    progress: &dyn Progress,
    exchange: &mut dyn Exchange,
) -> Result<Frontier, FrontierError> {
    search_buffered(
        space,
        seed,
        max_depth,
        (storage, config, &Buffers::shipped()),
        on_layer,
        progress,
        exchange,
    )
}

/// Every process's outcome of a step that may fail on any of them (preparing or resuming a
/// checkpoint): this process's error, else the first other process's (named), else `mine`.
/// One machine: `mine`, with no round.
fn agree<T>(
    exchange: &mut dyn Exchange,
    mine: Result<T, FrontierError>,
) -> Result<T, FrontierError> {
    if exchange.processes() == 1 {
        return mine;
    }
    let status = mine
        .as_ref()
        .err()
        .map_or_else(Vec::new, |e| e.to_string().into_bytes());
    let all = exchange.all_gather(&status)?;
    let theirs = all.iter().enumerate().find(|(_, s)| !s.is_empty());
    if theirs.is_some() {
        before_stopping(exchange);
    }
    let value = mine?;
    match theirs {
        Some((p, why)) => Err(FrontierError::Peer(format!(
            "process {p}: {}",
            String::from_utf8_lossy(why)
        ))),
        None => Ok(value),
    }
}

/// Whether every process's verdict on resuming depth `depth` ([`Places::resume_across`]: its
/// shares of layers `depth - 1` and `depth`, then the layer sizes its state records, as
/// little-endian `u64`s; empty when its load failed) lets every process resume it: each
/// loaded it, all record the same sizes, and the shares add up to the sizes of the two live
/// layers. The error names the first process that differs, and how.
fn all_check_out(all: &[Vec<u8>], depth: u32) -> Result<(), String> {
    let values = |b: &[u8]| -> Vec<u64> {
        b.chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("eight bytes")))
            .collect()
    };
    let d = depth as usize;
    let verdicts: Vec<Vec<u64>> = all.iter().map(|b| values(b)).collect();
    if let Some(p) = (0..all.len()).find(|&p| all[p].len() % 8 != 0 || verdicts[p].len() != d + 3) {
        return Err(format!(
            "process {p}'s slot of depth {depth} does not check out whole (see its warnings)"
        ));
    }
    let sizes = &verdicts[0][2..];
    if let Some(p) = (1..all.len()).find(|&p| verdicts[p][2..] != *sizes) {
        let at = (0..=d)
            .find(|&k| verdicts[p][2 + k] != sizes[k])
            .unwrap_or_default();
        return Err(format!(
            "processes 0 and {p} record {} and {} boards at depth {at}: a state was altered",
            sizes[at],
            verdicts[p][2 + at]
        ));
    }
    for (share, k) in [(0, d - 1), (1, d)] {
        let sum = verdicts
            .iter()
            .try_fold(0u64, |t, v| t.checked_add(v[share]));
        if sum != Some(sizes[k]) {
            return Err(format!(
                "the processes' shares of depth {k} add up to {} boards, where their states \
                 record {}: a state was altered",
                sum.map_or("more than 2^64".to_string(), |s| s.to_string()),
                sizes[k]
            ));
        }
    }
    Ok(())
}

/// Before every process stops with an error they agreed on: one more round, so that none
/// exits (breaking its connections) before every other has the round that decided it, and
/// reports that error rather than a broken connection. Its own failure (a process already
/// gone) changes nothing.
fn before_stopping(exchange: &mut dyn Exchange) {
    let _ = exchange.all_gather(&[]);
}

/// [`search_across`] with the given buffers.
fn search_buffered<S: StateSpace>(
    space: &S,
    seed: StateIndex,
    max_depth: u32,
    (storage, config, buffers): (&Storage, FrontierConfig, &Buffers),
    mut on_layer: impl FnMut(LayerReport),
    progress: &dyn Progress,
    exchange: &mut dyn Exchange,
) -> Result<Frontier, FrontierError> {
    let held = (exchange.processes(), exchange.held());
    let config = config.within_holding(space, storage.memory, held)?;
    let deal = Deal::new(config.segments, exchange.processes());
    let size = space.size();
    let places = Places::new(storage, size, config.segments, space.degree());
    // The folder's lock, held until the search returns.
    let _held = agree(exchange, places.prepare())?;
    let resumed = places.resume(max_depth, progress, exchange)?;
    let resumed_from = resumed.as_ref().map(|r| (r.sizes.len() - 1) as u32);
    let (mut previous, mut current, mut sizes, mut peak, history) = match resumed {
        Some(r) => (r.previous, r.current, r.sizes, r.peak_bytes, r.history),
        None => {
            let (previous, current) = places.first_layers(seed, &deal, exchange.process())?;
            let peak = current.bytes_in_memory();
            (previous, current, vec![1u64], peak, History::default())
        }
    };
    let step = StepInputs {
        maps: Maps::new(space, current.span, deal, buffers),
        buffers,
        memory: storage.memory,
        held: exchange.held(),
        places,
        progress,
        works: std::sync::Mutex::new(Vec::new()),
    };
    let checkpoint_fail = |source| step.places.checkpoint_fail(source);
    let mut depth = (sizes.len() - 1) as u32;
    let free_dir = step.places.free_dir();
    on_layer(LayerReport {
        depth,
        size: sizes[depth as usize],
        bytes_in_memory: previous.bytes_in_memory() + current.bytes_in_memory(),
        bytes_on_disk: previous.bytes_on_disk() + current.bytes_on_disk(),
        disk_free: free_dir.and_then(disk_free),
        maps: 0,
        sorted: 0,
        crossing: 0,
        incoming_bytes: 0,
        incoming_on_disk: 0,
        expanded: 0,
        sent_bytes: 0,
        received_bytes: 0,
    });
    let mut stopped = None;
    let (mut maps, mut sorted) = (0u64, 0u64);
    let status_dir = step
        .places
        .checkpoint
        .as_ref()
        .map(|(c, _)| c.dir.as_path());
    let mut status = Status::new(status_dir, exchange.process(), exchange.processes());
    // Neighbours through the incoming lists per board expanded, in the last layer built (the
    // most a board of a grid has off its lanes, before the first).
    let mut crossing_ratio = 2.0f64;
    // Per layer built: its depth, the boards expanded and the bytes sent, by every process
    // (the runs before a resume included).
    let mut traffic_by_depth: Vec<(u32, u64, u64)> = history.traffic;
    let run_started = std::time::Instant::now();
    let mut complete = false;
    let (mut saved_bytes, mut save_time) = (0u64, std::time::Duration::ZERO);
    // With a checkpoint: layer d - 1's file, kept for the older state slot.
    let mut retained: Option<Layer> = None;
    while depth < max_depth {
        let why = step.fits(&previous, &current, depth, crossing_ratio).err();
        // Every process stops before the layer when one must.
        if let Some(why) = exchange.agree_stop(why)? {
            stopped = Some(why);
            break;
        }
        let expanded = current.len;
        let (next, built) = step.build(
            &mut previous,
            &current,
            depth,
            &mut peak,
            exchange,
            &mut status,
        )?;
        if expanded > 0 {
            crossing_ratio = built.crossing as f64 / expanded as f64;
        }
        let traffic = (built.sent, built.received);
        // The layer's size over every process (this process's on one machine).
        let (global, all_expanded, all_sent) = match exchange.processes() {
            1 => (next.len, expanded, traffic.0),
            _ => {
                let sums = exchange.sum_each(&[next.len, expanded, traffic.0])?;
                (sums[0], sums[1], sums[2])
            }
        };
        traffic_by_depth.push((depth + 1, all_expanded, all_sent));
        if global == 0 {
            complete = true;
            // (An empty layer's file is not kept.)
            next.retire().map_err(checkpoint_fail)?;
            break;
        }
        depth += 1;
        sizes.push(global);
        maps += built.dense;
        sorted += built.sparse;
        // The most on disk while it was built: the layers kept, and the incoming lists and
        // the new layer at their most together (at least the whole new layer).
        let on_disk = current.bytes_on_disk()
            + previous.bytes_on_disk()
            + retained.as_ref().map_or(0, Layer::bytes_on_disk)
            + built.disk_peak.max(next.bytes_on_disk());
        let older = std::mem::replace(&mut previous, current);
        if let Some((_, ck)) = &step.places.checkpoint {
            let started = std::time::Instant::now();
            let state_bytes = ck
                .save(
                    &sizes,
                    peak,
                    (&previous, &next),
                    &History {
                        traffic: traffic_by_depth.clone(),
                        seconds: history.seconds + run_started.elapsed().as_secs_f64(),
                    },
                )
                .map_err(checkpoint_fail)?;
            saved_bytes += next.bytes_on_disk() + state_bytes;
            save_time += next.write_time() + started.elapsed();
            // The older slot names layers d - 1 and d: layer d - 1 stays until the next save,
            // so that a damaged newest slot can fall back to it; layer d - 2 goes.
            if let Some(l) = retained.replace(older) {
                l.retire().map_err(checkpoint_fail)?;
            }
        } else {
            older.retire().map_err(checkpoint_fail)?;
        }
        current = next;
        super::status::record_segments(depth, &current)
            .map_err(|(path, source)| FrontierError::Scratch { path, source })?;
        on_layer(LayerReport {
            depth,
            size: global,
            bytes_in_memory: built.held,
            bytes_on_disk: on_disk,
            disk_free: free_dir.and_then(disk_free),
            maps: built.dense,
            sorted: built.sparse,
            crossing: built.crossing,
            incoming_bytes: built.incoming_bytes,
            incoming_on_disk: built.incoming_on_disk,
            expanded,
            sent_bytes: traffic.0,
            received_bytes: traffic.1,
        });
        if step.places.checkpoint.is_some() {
            crate::durable::fault_injection(u64::from(depth));
        }
    }
    let mut last = Chunks::new(&current, depth, LAST_LISTED, buffers.decode)
        .next_chunk()?
        .map(<[StateIndex]>::to_vec)
        .unwrap_or_default();
    if exchange.processes() > 1 {
        // Every process's first boards to process 0, which keeps the first of them all.
        let bytes: Vec<u8> = last.iter().flat_map(|i| i.0.to_le_bytes()).collect();
        let all = exchange.gather(bytes)?;
        last = all
            .iter()
            .flat_map(|b| b.chunks_exact(8))
            .map(|c| StateIndex(u64::from_le_bytes(c.try_into().expect("eight bytes"))))
            .filter(|i| i.0 < size)
            .collect();
        last.sort_unstable();
        last.dedup();
        last.truncate(LAST_LISTED);
    }
    Ok(Frontier {
        layer_sizes: sizes,
        complete,
        last,
        peak_bytes: peak,
        resumed_from,
        stopped,
        segments: config.segments,
        maps,
        sorted,
        saved_bytes,
        save_time,
        seconds_before: std::time::Duration::from_secs_f64(history.seconds),
        expanded: traffic_by_depth.iter().map(|t| t.1).sum(),
        sent_bytes: traffic_by_depth.iter().map(|t| t.2).sum(),
        traffic_by_depth,
    })
}

/// Where a search keeps its layers, its incoming lists and its state: the folders (or memory), the
/// checkpoint, and the errors that name them.
struct Places<'a> {
    /// The layers' folder: the checkpoint folder, else the scratch folder; `None`: memory.
    layers: Option<&'a Path>,
    /// The incoming lists' folder: the scratch folder, else the layers'; `None`: memory.
    lists: Option<&'a Path>,
    /// The checkpoint folder and the state saved there.
    checkpoint: Option<(&'a CheckpointAt, Checkpoint)>,
    /// Boards in the space.
    size: u64,
    /// Segments per layer.
    segments: usize,
}

impl<'a> Places<'a> {
    fn new(storage: &'a Storage, size: u64, segments: usize, degree: usize) -> Places<'a> {
        let layers: Option<&Path> = match (&storage.checkpoint, &storage.scratch) {
            (Some(c), _) => Some(&c.dir),
            (None, Some(s)) => Some(s),
            (None, None) => None,
        };
        Places {
            layers,
            lists: storage.scratch.as_deref().or(layers),
            checkpoint: storage.checkpoint.as_ref().map(|c| {
                (
                    c,
                    Checkpoint::new(&c.dir, c.run.clone(), size, segments, degree),
                )
            }),
            size,
            segments,
        }
    }

    /// A scratch file or folder failed: the error names the scratch folder (the incoming
    /// lists').
    fn scratch_fail(&self, source: std::io::Error) -> FrontierError {
        FrontierError::Scratch {
            path: self.lists.map(Path::to_path_buf).unwrap_or_default(),
            source,
        }
    }

    /// A layer's file failed: the error names its folder (the checkpoint's, else the
    /// scratch folder).
    fn layers_fail(&self, source: std::io::Error) -> FrontierError {
        match self.checkpoint {
            Some(_) => self.checkpoint_fail(source),
            None => self.scratch_fail(source),
        }
    }

    /// A file of the checkpoint failed: the error names its folder.
    fn checkpoint_fail(&self, source: std::io::Error) -> FrontierError {
        FrontierError::Scratch {
            path: self
                .checkpoint
                .as_ref()
                .map(|(c, _)| c.dir.clone())
                .unwrap_or_default(),
            source,
        }
    }

    /// A resume's failure: a state of another search (or slots that disagree) as a refusal
    /// of the checkpoint, any other error of the folder naming it.
    fn resume_fail(&self, e: std::io::Error) -> FrontierError {
        match e.kind() {
            std::io::ErrorKind::Other => FrontierError::Checkpoint(e.to_string()),
            _ => self.checkpoint_fail(e),
        }
    }

    /// The folder whose free bytes bound the next layer: the layers', else the incoming
    /// lists'.
    fn free_dir(&self) -> Option<&'a Path> {
        self.layers.or(self.lists)
    }

    /// Makes the incoming lists' folder, and the checkpoint folder ready and locked for this search
    /// ([`Checkpoint::prepare`]): the lock, held while it is kept.
    ///
    /// # Errors
    /// [`FrontierError::Checkpoint`] when the folder holds a checkpoint a new search may not
    /// replace, or another search holds it; [`FrontierError::Scratch`] when a folder fails.
    fn prepare(&self) -> Result<Option<FolderLock>, FrontierError> {
        if let Some(dir) = self.lists {
            std::fs::create_dir_all(dir).map_err(|e| self.scratch_fail(e))?;
        }
        self.checkpoint
            .as_ref()
            .map(|(at, ck)| ck.prepare(at.start))
            .transpose()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::WouldBlock => {
                    FrontierError::Checkpoint(e.to_string())
                }
                _ => self.checkpoint_fail(e),
            })
    }

    /// The state to resume from, when the search resumes from its checkpoint folder; warnings
    /// (a damaged slot passed over) go to `progress`.
    ///
    /// # Errors
    /// [`FrontierError::NothingToResume`] when no state there checks out, or the newest is
    /// after a depth past `max_depth`; [`FrontierError::Checkpoint`] for the state of another
    /// search; [`FrontierError::Scratch`] when the folder cannot be read.
    fn resume(
        &self,
        max_depth: u32,
        progress: &dyn Progress,
        exchange: &mut dyn Exchange,
    ) -> Result<Option<Resumed>, FrontierError> {
        let Some((at, ck)) = &self.checkpoint else {
            return Ok(None);
        };
        if !at.start.resumes() {
            return Ok(None);
        }
        let fail = |e| self.resume_fail(e);
        let resumed = match exchange.processes() {
            1 => {
                let (loaded, warnings) = ck.load(None).map_err(fail)?;
                for w in &warnings {
                    progress.warn(w);
                }
                loaded.ok_or_else(|| {
                    FrontierError::NothingToResume(format!(
                        "--resume: {} holds no checkpoint of this search that checks out \
                         (start again with --fresh)",
                        at.dir.display(),
                    ))
                })?
            }
            _ => self.resume_across(at, ck, progress, exchange)?,
        };
        // A checkpoint deeper than the limit: its figures go past the depth asked for, and the
        // boards at that depth are gone; a shallower result cannot be given from it.
        let from = (resumed.sizes.len() - 1) as u32;
        if from > max_depth {
            return Err(FrontierError::NothingToResume(format!(
                "--resume: the checkpoint in {} is after depth {from}, deeper than --max-depth \
                 {max_depth}; give --max-depth {from} or more to resume it",
                at.dir.display(),
            )));
        }
        // Only now is anything removed: the older slot's oldest layer (across processes, once
        // every process has loaded the depth agreed on: a round of its own).
        let settled = ck.settle(&resumed).map_err(fail);
        match exchange.processes() {
            1 => settled?,
            _ => agree(exchange, settled)?,
        }
        Ok(Some(resumed))
    }

    /// Across processes, the deepest depth whose slot checks out whole (state and layer
    /// files) on every process, with the same layer sizes everywhere and shares that add up
    /// to them: the depths every process's state slots can resume are tried newest first,
    /// each loaded on every process; when any process's load fails (a damaged or missing
    /// layer file, a forged size), every process falls back to the next depth together, with
    /// a warning naming the process. Nothing is removed before every process has loaded the
    /// depth agreed on (the caller then settles it, [`Checkpoint::settle`]).
    ///
    /// # Errors
    /// [`FrontierError::NothingToResume`] on every process when no depth checks out on all;
    /// a process's refusal (another search's folder) as every process's error.
    fn resume_across(
        &self,
        at: &CheckpointAt,
        ck: &Checkpoint,
        progress: &dyn Progress,
        exchange: &mut dyn Exchange,
    ) -> Result<Resumed, FrontierError> {
        let fail = |e| self.resume_fail(e);
        let mine = agree(exchange, ck.available().map_err(fail))?;
        for depth in exchange.common_depths(&mine)? {
            let (loaded, warnings) = agree(exchange, ck.load(Some(depth)).map_err(fail))?;
            for w in &warnings {
                progress.warn(w);
            }
            // Every process's verdict: the layer sizes and its shares of the two live layers.
            let verdict: Vec<u8> = loaded.as_ref().map_or_else(Vec::new, |r| {
                [r.previous.len, r.current.len]
                    .iter()
                    .chain(&r.sizes)
                    .flat_map(|v| v.to_le_bytes())
                    .collect()
            });
            let all = exchange.all_gather(&verdict)?;
            match loaded {
                Some(resumed) if all_check_out(&all, depth).is_ok() => return Ok(resumed),
                _ => {
                    let why = all_check_out(&all, depth).err().unwrap_or_default();
                    progress.warn(&format!(
                        "--resume: depth {depth} is not resumed ({why}); every process falls \
                         back to an older one"
                    ));
                }
            }
        }
        before_stopping(exchange);
        Err(FrontierError::NothingToResume(format!(
            "--resume: no depth that every process saved checks out on all of them (this \
             process's {} holds {}); nothing was removed: mend the folder that failed, or \
             start again with --fresh on every process",
            at.dir.display(),
            match mine.is_empty() {
                true => "none".to_string(),
                false => format!("depths {mine:?}"),
            }
        )))
    }

    /// The sink of layer `depth` (segments of `span` indices): a file named for it in the
    /// checkpoint folder, an unnamed file in the scratch folder, or memory.
    fn sink(&self, depth: u32, span: u64) -> Result<Sink, FrontierError> {
        match (&self.checkpoint, self.layers) {
            (Some((c, _)), _) => Sink::file(
                self.size,
                span,
                self.segments,
                &c.dir,
                Some(&layer_name(depth)),
            )
            .map_err(|e| self.checkpoint_fail(e)),
            (None, Some(dir)) => Sink::file(self.size, span, self.segments, dir, None)
                .map_err(|e| self.scratch_fail(e)),
            (None, None) => Ok(Sink::memory(self.size, span, self.segments)),
        }
    }

    /// Layers -1 (empty) and 0 (`seed` alone, on the process that owns its segment) of a new
    /// search, layer 0 written to its sink.
    fn first_layers(
        &self,
        seed: StateIndex,
        deal: &Deal,
        me: usize,
    ) -> Result<(Layer, Layer), FrontierError> {
        let previous = Layer::new(self.size, self.segments);
        let span = previous.span;
        let mut first = self.sink(0, span)?;
        let s = (seed.0 / span) as usize;
        let here = deal.owner(s) == me;
        for k in 0..self.segments {
            let mut bytes = Vec::new();
            let seeded = k == s && here;
            if seeded {
                encode_sorted(&[seed.0], k as u64 * span, &mut bytes);
            }
            first
                .push(bytes, u64::from(seeded))
                .map_err(|e| self.scratch_fail(e))?;
        }
        let current = first.finish().map_err(|e| self.scratch_fail(e))?;
        Ok((previous, current))
    }
}

/// What each step of a search, from layer `d` to layer `d + 1`, takes: the builder of its
/// segments, the buffers, the memory budget, and where the layers go.
struct StepInputs<'a, S> {
    maps: Maps<'a, S>,
    buffers: &'a Buffers,
    /// The memory budget, if any.
    memory: Option<u64>,
    /// Bytes of other processes' messages held at once, at most ([`Exchange::held`]).
    held: u64,
    places: Places<'a>,
    /// Asked between windows of segments whether to stop.
    progress: &'a dyn Progress,
    /// The tasks' maps and buffers, kept from layer to layer (a map's pages are faulted in
    /// once, not once a layer).
    works: std::sync::Mutex<Vec<Work>>,
}

impl<S: StateSpace> StepInputs<'_, S> {
    /// Whether layer `depth + 1` (built from `current`, after `previous`) fits in the memory
    /// budget and on the disk; else why the search stops before it. `crossing` is the
    /// neighbours per board expanded that went through the incoming lists in the last layer.
    fn fits(
        &self,
        previous: &Layer,
        current: &Layer,
        depth: u32,
        crossing: f64,
    ) -> Result<(), String> {
        // Its size is guessed from the growth of the last one (at least 1.5 times), as bytes
        // of the same density.
        let growth = if previous.len > 0 {
            (current.len as f64 / previous.len as f64).max(1.5)
        } else {
            4.0
        };
        let layer_bytes = current.bytes_in_memory() + current.bytes_on_disk();
        let next_bytes = (layer_bytes as f64 * growth) as u64;
        // The incoming lists: in memory, or in a file past their share (`spill_memory`).
        let lists = (crossing * current.len as f64 * 4.0) as u64;
        let (lists_in_memory, lists_on_disk) = match self.places.lists {
            Some(_) => (lists.min(spill_memory(current.segments())), lists),
            None => (lists, 0),
        };
        if let Some(memory) = self.memory {
            let mut need = RESERVE
                + self.held
                + self.maps.map_bytes()
                + lists_in_memory
                + next_bytes.min(super::config::WINDOW_BYTES.max(
                    rayon::current_num_threads() as u64
                        * next_bytes.div_ceil(current.segments() as u64),
                ));
            if self.places.layers.is_none() {
                need += previous.bytes_in_memory() + current.bytes_in_memory() + next_bytes;
            }
            if need > memory {
                return Err(format!(
                    "stopped before depth {}: it would need about {} of memory, over the \
                     budget of {}{}",
                    depth + 1,
                    indicatif::DecimalBytes(need),
                    indicatif::DecimalBytes(memory),
                    if self.places.layers.is_none() {
                        format!(
                            " (keep the layers on disk with {})",
                            crate::frontend::arg(crate::frontend::Input::Scratch, "DIR")
                        )
                    } else {
                        String::new()
                    }
                ));
            }
        }
        if let Some(dir) = self.places.free_dir()
            && let Some(free) = disk_free(dir)
        {
            let layer = if self.places.layers.is_some() {
                next_bytes
            } else {
                0
            };
            // The lists' blocks are given back as the new layer's segments are written
            // (where the file system does it): the two at their most together, about the
            // larger of them; else both whole.
            let building = match self.places.lists.is_some_and(super::disk::punches) {
                true => layer.max(lists_on_disk),
                false => layer + lists_on_disk,
            };
            let need = building.saturating_mul(11) / 10;
            if need > free {
                return Err(format!(
                    "stopped before depth {}: it would need about {} of disk in {}, {} free",
                    depth + 1,
                    indicatif::DecimalBytes(need),
                    dir.display(),
                    indicatif::DecimalBytes(free)
                ));
            }
        }
        Ok(())
    }

    /// Layer `depth + 1` from layer `depth` (`current`, after `previous`): scattered, then
    /// built segment by segment ([`Maps`]) and written in order where the layers go. With
    /// the layers on disk, every thread builds the next segment it may claim (at most
    /// [`Buffers::window`] segments ahead of the last written: the bytes the budget counts) while a
    /// thread of its own writes them in order ([`Pipeline`]: no barrier between windows);
    /// with the layers in memory, in windows of [`Buffers::window`] segments, `previous`
    /// freed segment by segment as the new layer is written. `peak` rises to the bytes held
    /// meanwhile. `progress` is asked after each segment (on disk) or window whether to stop.
    ///
    /// # Errors
    /// [`FrontierError::Interrupted`] when asked to stop; [`FrontierError::Read`] for a
    /// segment that does not check out; [`FrontierError::Scratch`] when a file fails;
    /// [`FrontierError::Peer`] from the exchange.
    fn build(
        &self,
        previous: &mut Layer,
        current: &Layer,
        depth: u32,
        peak: &mut u64,
        exchange: &mut dyn Exchange,
        status: &mut Status,
    ) -> Result<(Layer, Built), FrontierError> {
        let segments = current.segments();
        let incoming = match self.places.lists {
            Some(dir) => Incoming::spilled(segments, dir, self.maps.words())
                .map_err(|e| self.places.scratch_fail(e))?,
            None => Incoming::new(segments),
        };
        let stop = || match self.progress.stop_requested() {
            true => Err(FrontierError::Interrupted),
            false => Ok(()),
        };
        let me = exchange.process();
        let deal = self.maps.deal();
        let owned: Vec<bool> = (0..segments).map(|t| deal.owner(t) == me).collect();
        let mine = owned.iter().filter(|&&o| o).count();
        status.start(depth + 1);
        let free_dir = self.places.free_dir();
        let on_disk = previous.bytes_on_disk() + current.bytes_on_disk();
        let mut last_told: Option<std::time::Instant> = None;
        // The line for the bar (at most every second) and the status file (every EVERY).
        // `building`: the bytes of the incoming lists held and of the new layer written.
        let mut tell = |status: &mut Status, place: Place, building: u64, force: bool| {
            if !force && last_told.is_some_and(|t| t.elapsed().as_secs_f64() < 1.0) {
                return;
            }
            last_told = Some(std::time::Instant::now());
            let disk = free_dir.and_then(|d| Some((on_disk + building, disk_free(d)?)));
            let line = status.line(place, disk);
            self.progress.refresh(u64::from(depth), &line);
            status.write(&line, force);
        };
        let mut built = self.maps.scatter(
            current,
            depth,
            &incoming,
            exchange,
            |done, boards, exchanged| {
                if exchanged {
                    status.exchanged();
                }
                let place = Place {
                    maps: false,
                    done,
                    segments: mine,
                    boards_done: boards,
                    boards: current.len,
                };
                tell(status, place, incoming.bytes_on_disk(), false);
                stop()
            },
        )?;
        built.crossing = incoming.len() / self.maps.words();
        built.incoming_on_disk = incoming.bytes_on_disk();
        built.disk_peak = built.incoming_on_disk;
        if let Some(file) = incoming.file() {
            damage_hook("incoming", depth + 1, file, None);
        }
        let layers = previous.bytes_in_memory() + current.bytes_in_memory();
        built.held = layers + built.incoming_bytes;
        let mut sink = self.places.sink(depth + 1, current.span)?;
        let (mut done, mut boards_done) = (0, 0u64);
        let place = |done, boards_done| Place {
            maps: true,
            done,
            segments: mine,
            boards_done,
            boards: current.len,
        };
        let pool = &self.works;
        let incoming_bytes = built.incoming_bytes;
        // The next layer's segments, guessed at twice the current one's bytes.
        let per_segment =
            2 * (current.bytes_in_memory() + current.bytes_on_disk()) / segments.max(1) as u64;
        let window = self.buffers.window_for(per_segment);
        let mut written = 0u64;
        previous.prefetch(0..window.min(segments));
        current.prefetch(0..window.min(segments));
        // Layers on disk (nothing of `previous` to free as the new layer is written): the
        // segments built by every thread without a barrier, written in order as they come.
        if self.places.layers.is_some() && previous.bytes_in_memory() == 0 {
            // As many segments ahead as a window holds: the bytes the budget counts.
            let pipeline = Pipeline::new(segments, window);
            let build_one = |t: usize, work: &mut Work| -> SegmentOut {
                if !owned[t] {
                    return Ok((Vec::new(), 0, false));
                }
                incoming
                    .take(t, depth + 1)
                    .and_then(|list| self.maps.build(t, depth, (&*previous, current), list, work))
            };
            // The writer is a thread of its own (this one may be one of the pool's, which all
            // build).
            let held = std::thread::scope(|scope| {
                let writer = scope.spawn(|| {
                    // Whatever ends the writer (its result, an error, a panic) stops the
                    // claims, so that no thread waits for it.
                    let _stops = pipeline.stopper();
                    pipeline.drain(|t, r| {
                        // Asked once a window, as the windows do (a layer whose last
                        // window is being written completes).
                        if t % window == 0 {
                            stop()?;
                        }
                        let (bytes, count, dense) = r?;
                        sink.push(bytes, count)
                            .map_err(|e| self.places.layers_fail(e))?;
                        // The lists' blocks of the segments built are given back as the
                        // new layer's are written.
                        let on_disk = building(&incoming, &sink);
                        built.disk_peak = built.disk_peak.max(on_disk);
                        if owned[t] {
                            match dense {
                                true => built.dense += 1,
                                false => built.sparse += 1,
                            }
                            done += 1;
                            boards_done += current.counts[t];
                            let at = place(done, boards_done);
                            tell(status, at, on_disk, false);
                        }
                        Ok(())
                    })
                });
                rayon::broadcast(|_| {
                    let taken = pool.lock().expect("no task panics holding it").pop();
                    let mut work = taken.unwrap_or_default();
                    while let Some(claim) = pipeline.claim() {
                        let t = claim.t;
                        if t % window == 0 {
                            let ahead = t + window..(t + 2 * window).min(segments);
                            previous.prefetch(ahead.clone());
                            current.prefetch(ahead);
                        }
                        let r = build_one(t, &mut work);
                        claim.deliver(r, work.bytes());
                    }
                    pool.lock().expect("no task panics holding it").push(work);
                });
                writer.join().expect("the writer does not panic")
            })?;
            let on_disk = building(&incoming, &sink);
            tell(status, place(done, boards_done), on_disk, true);
            built.held = built
                .held
                .max(layers + incoming_bytes + held.maps + held.pending);
        } else {
            for first in (0..segments).step_by(window) {
                stop()?;
                let range = first..(first + window).min(segments);
                let ahead = range.end..(range.end + window).min(segments);
                previous.prefetch(ahead.clone());
                current.prefetch(ahead);
                let (older, newer) = (&*previous, current);
                let out: Vec<SegmentOut> = range
                    .clone()
                    .into_par_iter()
                    .map(|t| {
                        if !owned[t] {
                            return Ok((Vec::new(), 0, false));
                        }
                        let taken = pool.lock().expect("no task panics holding it").pop();
                        let mut work = taken.unwrap_or_default();
                        let result = incoming.take(t, depth + 1).and_then(|list| {
                            self.maps.build(t, depth, (older, newer), list, &mut work)
                        });
                        pool.lock().expect("no task panics holding it").push(work);
                        result
                    })
                    .collect();
                let window_bytes: u64 = out
                    .iter()
                    .map(|r| r.as_ref().map_or(0, |(b, _, _)| b.capacity() as u64))
                    .sum();
                let maps: u64 = pool
                    .lock()
                    .expect("no task panics holding it")
                    .iter()
                    .map(Work::bytes)
                    .sum();
                built.held = built.held.max(
                    layers.max(previous.bytes_in_memory() + current.bytes_in_memory() + written)
                        + incoming_bytes
                        + maps
                        + window_bytes,
                );
                for (t, r) in range.zip(out) {
                    let (bytes, count, dense) = r?;
                    if owned[t] {
                        match dense {
                            true => built.dense += 1,
                            false => built.sparse += 1,
                        }
                    }
                    if self.places.layers.is_none() {
                        written += bytes.capacity() as u64;
                    }
                    sink.push(bytes, count)
                        .map_err(|e| self.places.layers_fail(e))?;
                    built.disk_peak = built.disk_peak.max(building(&incoming, &sink));
                    previous.free(t);
                    if owned[t] {
                        done += 1;
                        boards_done += current.counts[t];
                    }
                }
                let on_disk = building(&incoming, &sink);
                tell(status, place(done, boards_done), on_disk, done == mine);
            }
        }
        *peak = (*peak).max(built.held);
        let next = sink.finish().map_err(|e| self.places.layers_fail(e))?;
        if let store::Store::Disk(f) = &next.store {
            damage_hook("layer", depth + 1, &f.file, f.path.as_deref());
        }
        Ok((next, built))
    }
}

/// Bytes on disk of a layer being built: the incoming lists' blocks still held (those of the
/// segments built are given back) and the new layer's segments written.
fn building(incoming: &Incoming, sink: &store::Sink) -> u64 {
    incoming.bytes_held_on_disk() + sink.bytes_on_disk()
}

/// A segment of the next layer as a task built it: its bytes, its boards, and whether in a
/// map.
type SegmentOut = Result<(Vec<u8>, u64, bool), FrontierError>;

/// The segments of a layer built by every thread at once and written in index order by a
/// thread of their own (the writer): a thread claims the next segment while it is fewer
/// than `lookahead` ahead of the last written, builds it, and hands it over; the writer
/// takes them in order as they come. No barrier: a slow segment holds the others back only once they are
/// `lookahead` ahead (which bounds the bytes held).
struct Pipeline {
    state: std::sync::Mutex<Flow>,
    changed: std::sync::Condvar,
    segments: usize,
    lookahead: usize,
}

#[derive(Default)]
struct Flow {
    /// The next segment to claim.
    next: usize,
    /// Segments written (all below it).
    written: usize,
    /// Built, not written yet: the result and its bytes.
    ready: std::collections::BTreeMap<usize, (SegmentOut, u64)>,
    /// Bytes in `ready`, and their most.
    pending: u64,
    most_pending: u64,
    /// Each thread's buffers' bytes at its last segment.
    maps: std::collections::HashMap<std::thread::ThreadId, u64>,
    /// The writer stopped (an error or the end): claim nothing more.
    stopped: bool,
}

/// Stops a [`Pipeline`]'s claims when dropped (the writer's end, whatever it is).
struct Stopper<'a>(&'a Pipeline);

impl Drop for Stopper<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// What a [`Pipeline`] held at its fullest: the threads' buffers, the segments built ahead.
struct PipelineHeld {
    maps: u64,
    pending: u64,
}

/// A claimed segment: delivered, or, if its thread unwinds, an error in its place (so the
/// writer never waits for it).
struct Claim<'a> {
    pipeline: &'a Pipeline,
    t: usize,
    delivered: bool,
}

impl Claim<'_> {
    fn deliver(mut self, result: SegmentOut, maps: u64) {
        self.delivered = true;
        self.pipeline.put(self.t, result, Some(maps));
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        if !self.delivered {
            let lost = FrontierError::Read(format!(
                "segment {} of the next layer: its thread stopped (a defect)",
                self.t
            ));
            self.pipeline.put(self.t, Err(lost), None);
        }
    }
}

impl Pipeline {
    fn new(segments: usize, lookahead: usize) -> Pipeline {
        Pipeline {
            state: std::sync::Mutex::new(Flow::default()),
            changed: std::sync::Condvar::new(),
            segments,
            lookahead: lookahead.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Flow> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next segment to build, once it is fewer than `lookahead` past the last written;
    /// `None` when there is none left or the writer stopped.
    fn claim(&self) -> Option<Claim<'_>> {
        let mut flow = self.lock();
        loop {
            if flow.stopped || flow.next >= self.segments {
                return None;
            }
            if flow.next < flow.written + self.lookahead {
                flow.next += 1;
                return Some(Claim {
                    pipeline: self,
                    t: flow.next - 1,
                    delivered: false,
                });
            }
            flow = self.changed.wait(flow).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// A guard that stops the claims when dropped.
    fn stopper(&self) -> Stopper<'_> {
        Stopper(self)
    }

    fn put(&self, t: usize, result: SegmentOut, maps: Option<u64>) {
        let bytes = result.as_ref().map_or(0, |(b, _, _)| b.capacity() as u64);
        let mut flow = self.lock();
        flow.pending += bytes;
        // Beside the segments built, those still being built (counted at this one's size).
        let building = (flow.next - flow.written).saturating_sub(flow.ready.len() + 1) as u64;
        flow.most_pending = flow.most_pending.max(flow.pending + building * bytes);
        if let Some(m) = maps {
            flow.maps.insert(std::thread::current().id(), m);
        }
        flow.ready.insert(t, (result, bytes));
        drop(flow);
        self.changed.notify_all();
    }

    /// Hands every segment to `write` in index order as they are built, until the last or
    /// the first error (`write`'s, or a segment's); what was held at the fullest.
    fn drain(
        &self,
        mut write: impl FnMut(usize, SegmentOut) -> Result<(), FrontierError>,
    ) -> Result<PipelineHeld, FrontierError> {
        let mut flow = self.lock();
        while flow.written < self.segments {
            let t = flow.written;
            let Some((result, bytes)) = flow.ready.remove(&t) else {
                flow = self.changed.wait(flow).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            drop(flow);
            let outcome = write(t, result);
            flow = self.lock();
            flow.pending -= bytes;
            flow.written += 1;
            self.changed.notify_all();
            outcome?;
        }
        Ok(PipelineHeld {
            maps: flow.maps.values().sum(),
            pending: flow.most_pending,
        })
    }

    /// Tells the threads to claim nothing more.
    fn stop(&self) {
        self.lock().stopped = true;
        self.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::frontier::{MAX_SEGMENTS, RunLabel};
    use crate::bfs::{LexSpace, Parity, ParitySpace, StateMarks};
    use crate::board::Board;
    use crate::metric::Metric;
    use crate::shape::Shape;

    use crate::published::{A089473, A089484_TO_20 as A089484, A090034, A090036};

    /// A cut of `segments` segments (0: the space's own).
    fn config(segments: usize) -> FrontierConfig {
        FrontierConfig { segments }
    }

    fn run(r: usize, c: usize, d: u32, scratch: Option<&Path>) -> Frontier {
        let shape = Shape::new(r, c).unwrap();
        let space = ParitySpace::new(shape, Parity::Even).unwrap();
        let seed = space.rank(&Board::goal(shape)).unwrap();
        search(&space, seed, d, scratch, |_| {}).unwrap()
    }

    /// The search with the given buffers, layers in memory.
    fn buffered<S: StateSpace>(
        space: &S,
        seed: StateIndex,
        depth: u32,
        c: FrontierConfig,
        buffers: &Buffers,
    ) -> Frontier {
        search_buffered(
            space,
            seed,
            depth,
            (&Storage::default(), c, buffers),
            |_| {},
            &NoProgress,
            &mut Alone,
        )
        .unwrap()
    }

    /// The one-machine driver's layers from `goal`, and its last layer.
    fn driver<S: StateSpace>(space: &S, goal: &Board) -> (Vec<u64>, Vec<StateIndex>) {
        let marks = StateMarks::new(space.size());
        let layers = crate::bfs::run(space, &marks, space.rank(goal).unwrap(), &(), |_, _, _| {});
        (layers.sizes, layers.last)
    }

    /// Every cut of the grid tests (the space's own, 1, 3 and 1,024 segments), each segment
    /// built in a map, by a sort, or as its density says, in windows of 1 or the shipped
    /// window, gives the driver's layers, complete, and its last layer.
    fn check_against_driver<S: StateSpace>(space: &S, goal: &Board, what: &str) {
        let (sizes, last) = driver(space, goal);
        let seed = space.rank(goal).unwrap();
        for segments in [0, 1, 3, 1024] {
            for sparse in [0, super::super::config::SPARSE, u64::MAX] {
                let buffers = Buffers {
                    window: if sparse == 0 { 1 } else { 8 },
                    decode: 1 << 20,
                    sparse,
                };
                let f = buffered(space, seed, 1000, config(segments), &buffers);
                let at = format!("{what}, segments {segments}, sparse {sparse}");
                assert_eq!(f.layer_sizes, sizes, "{at}");
                assert!(f.complete, "{at}");
                if last.len() <= LAST_LISTED {
                    assert_eq!(f.last, last, "{at}");
                }
            }
        }
    }

    /// Every grid up to 10 cells in both metrics, from the standard goal and from a goal
    /// with the blank inside (the other parity class on some shapes), in every cut and way
    /// of building a segment of [`check_against_driver`]: the one-machine driver's layers and
    /// antipodes. Slow (minutes): left to CI (`scripts/check.sh` passes `--include-ignored`),
    /// as the README says.
    #[test]
    #[ignore = "slow: every grid up to 10 cells in 12 ways, both metrics (minutes); CI runs it"]
    fn every_small_grid_matches_the_one_machine_driver() {
        let mut shapes = 0;
        for shape in Shape::all_up_to(10).filter(|s| s.is_grid()) {
            let mut goals = vec![Board::goal(shape)];
            let mut inside = Board::goal(shape).permutation().to_vec();
            inside.swap(shape.cells() - 1, shape.cols() + 1);
            goals.push(Board::from_permutation(shape, inside).unwrap());
            for goal in &goals {
                for metric in [Metric::Stm, Metric::Mtm] {
                    let space = ParitySpace::with_metric(shape, Parity::of(goal), metric).unwrap();
                    let what = format!("{shape} {metric:?} from {}", goal.label());
                    check_against_driver(&space, goal, &what);
                }
            }
            shapes += 1;
        }
        // 2x2, 2x3, 3x2, 2x4, 4x2, 3x3, 2x5, 5x2.
        assert_eq!(shapes, 8);
    }

    /// The quick part of [`every_small_grid_matches_the_one_machine_driver`]: 2x4 and 3x3
    /// in both metrics from the standard goal.
    #[test]
    fn small_grids_match_the_one_machine_driver() {
        for (r, c) in [(2, 4), (3, 3)] {
            let shape = Shape::new(r, c).unwrap();
            for metric in [Metric::Stm, Metric::Mtm] {
                let space = ParitySpace::with_metric(shape, Parity::Even, metric).unwrap();
                check_against_driver(&space, &Board::goal(shape), &format!("{shape} {metric:?}"));
            }
        }
    }

    /// The space's cut is what the kernel does: on 2x4, 3x3, 2x5 and 4x3 in both metrics,
    /// for every prefix cut, every board whose blank's cell is marked within has every
    /// neighbour off the lanes in its own segment, and every other cell has a board with a
    /// neighbour outside (the mark is exact, not merely safe): every board of the small
    /// ones, every 97th of 4x3.
    #[test]
    fn within_marks_exactly_the_boards_whose_moves_stay_in_their_segment() {
        for (r, c) in [(2, 4), (3, 3), (2, 5), (4, 3)] {
            let shape = Shape::new(r, c).unwrap();
            for metric in [Metric::Stm, Metric::Mtm] {
                let space = ParitySpace::with_metric(shape, Parity::Even, metric).unwrap();
                let cells = shape.cells() as u64;
                for span in space.prefix_spans() {
                    assert_eq!(space.size() % span, 0);
                    let within = space.within_segments(span);
                    let mut leaves = vec![false; shape.cells()];
                    let mut out = Vec::new();
                    let step = if space.size() > 2_000_000 { 97 } else { 1 };
                    for i in (0..space.size()).step_by(step) {
                        out.clear();
                        space.expand_across(&[StateIndex(i)], &mut out);
                        let cell = (i % cells) as usize;
                        let outside = out.iter().any(|n| n.0 / span != i / span);
                        if within >> cell & 1 == 1 {
                            assert!(!outside, "{shape} {metric:?} span {span} board {i}");
                        }
                        leaves[cell] |= outside;
                    }
                    for (cell, &left) in leaves.iter().enumerate() {
                        assert_eq!(
                            within >> cell & 1 == 0,
                            left,
                            "{shape} {metric:?} span {span} cell {cell}"
                        );
                    }
                }
            }
        }
    }

    /// The lexicographic space has no lanes and no prefix cut: every move goes through the
    /// incoming lists. One-row boards (a path of `n` boards from the goal) and 3x3 over all
    /// `9!` boards (OEIS A089473 from the goal's component) match the driver.
    #[test]
    fn lexicographic_space_without_lanes() {
        for n in 2..=8 {
            let shape = Shape::new(1, n).unwrap();
            let space = LexSpace::new(shape).unwrap();
            assert!(space.lanes().is_none());
            let goal = Board::goal(shape);
            check_against_driver(&space, &goal, &format!("{shape}"));
            let f = search(&space, space.rank(&goal).unwrap(), 100, None, |_| {}).unwrap();
            assert_eq!(f.layer_sizes, vec![1; n], "{shape}");
        }
        let shape = Shape::new(3, 3).unwrap();
        let space = LexSpace::new(shape).unwrap();
        let goal = space.rank(&Board::goal(shape)).unwrap();
        for c in [config(3), config(1000), FrontierConfig::default()] {
            let f = search_with(&space, goal, 100, None, c, |_| {}).unwrap();
            assert_eq!(f.layer_sizes, A089473, "{c:?}");
        }
    }

    /// 4x4 to depth 20: OEIS A089484, d = 0..20; not complete.
    #[test]
    fn four_by_four_to_depth_20_is_a089484() {
        let f = run(4, 4, 20, None);
        assert_eq!(f.layer_sizes, A089484);
        assert!(!f.complete);
        assert_eq!(f.last.len(), LAST_LISTED);
        assert!(f.last.is_sorted());
        assert_eq!(f.segments, 2730);
    }

    /// Cuts and places: 4x4 to depth 20 (OEIS A089484) in its own cut and in 97 segments,
    /// 2x5 to the end (OEIS A090036) in its own and in 1,024, layers in memory and on disk;
    /// the reports count the segments built and the neighbours that crossed, and the last
    /// layer is the same in every cut.
    #[test]
    fn cuts_in_memory_and_on_disk() {
        let four = ParitySpace::new(Shape::new(4, 4).unwrap(), Parity::Even).unwrap();
        let two = ParitySpace::new(Shape::new(2, 5).unwrap(), Parity::Even).unwrap();
        let cases: [(&ParitySpace, u32, usize, &[u64], bool); 4] = [
            (&four, 20, 0, &A089484, false),
            (&four, 20, 97, &A089484, false),
            (&two, 100, 0, &A090036, true),
            (&two, 100, 1024, &A090036, true),
        ];
        for (space, depth, segments, expected, complete) in cases {
            let seed = space.rank(&Board::goal(space.shape())).unwrap();
            let one = search(space, seed, depth, None, |_| {}).unwrap();
            for disk in [false, true] {
                let dir = tempfile::tempdir().unwrap();
                let scratch = disk.then(|| dir.path().join("layers"));
                let mut reports = Vec::new();
                let c = config(segments);
                let f = search_with(space, seed, depth, scratch.as_deref(), c, |r| {
                    reports.push(r)
                })
                .unwrap();
                let at = format!("{} {c:?} on disk {disk}", space.shape());
                assert_eq!(f.layer_sizes, expected, "{at}");
                assert_eq!(f.complete, complete, "{at}");
                assert_eq!(f.last, one.last, "{at}");
                assert_eq!(reports.len(), expected.len(), "{at}");
                assert_eq!(f.maps, reports.iter().map(|r| r.maps).sum::<u64>(), "{at}");
                assert_eq!(f.sorted, reports.iter().map(|r| r.sorted).sum::<u64>());
                for (d, r) in reports.iter().enumerate() {
                    assert_eq!((r.depth as usize, r.size), (d, expected[d]), "{at}");
                    if d == 0 {
                        assert_eq!((r.maps, r.sorted, r.crossing), (0, 0, 0), "{at}");
                        continue;
                    }
                    // Every segment built once; at most 4 neighbours a board crossed.
                    assert_eq!(r.maps + r.sorted, f.segments as u64, "{at} depth {d}");
                    assert!(r.crossing <= 4 * expected[d - 1], "{at} depth {d}");
                    // What the search held: the incoming lists at least.
                    assert!(r.bytes_in_memory >= r.incoming_bytes, "{at} depth {d}");
                    if disk {
                        // The layers' files, a byte per board at least; in memory, the lists
                        // and buffers, not the layers (a layer is 1-3 bytes a board).
                        assert!(r.bytes_on_disk >= r.size, "{at} depth {d}");
                        assert!(r.bytes_in_memory < (64 << 20) + r.size, "{at} depth {d}");
                        assert!(r.disk_free.is_some(), "{at}");
                    } else {
                        assert!(r.incoming_bytes >= 4 * r.crossing, "{at} depth {d}");
                        assert_eq!(r.bytes_on_disk, 0, "{at} depth {d}");
                        assert!(r.bytes_in_memory >= r.size, "{at} depth {d}");
                    }
                }
                // The space's own cut keeps most moves in their segment: 4x4's first 3 tiles
                // send 0.5625 neighbours a board through the lists (6 of 16 cells' vertical
                // moves); an unaligned cut sends every move off the lanes (2 a board on 4x4).
                let crossed: u64 = reports.iter().map(|r| r.crossing).sum();
                let expanded: u64 = expected[..expected.len() - 1].iter().sum();
                let ratio = crossed as f64 / expanded as f64;
                if (space.shape().rows(), segments) == (4, 0) {
                    assert!((0.3..0.7).contains(&ratio), "{at}: {ratio}");
                } else if space.shape().rows() == 4 {
                    assert!(ratio > 1.5, "{at}: {ratio}");
                }
                if disk {
                    // The layer files are unnamed: nothing is left in the folder.
                    let left = std::fs::read_dir(scratch.unwrap()).unwrap().count();
                    assert_eq!(left, 0, "{at}");
                }
            }
        }
    }

    /// The multi-tile metric (not bipartite: layer `d` is subtracted too), its own cut and an
    /// unaligned one, maps and sorts: 4x4 to depth 12 and 2x5 to the end give the one
    /// machine's driver's layers.
    #[test]
    fn the_multi_tile_metric_in_every_cut() {
        for (r, c, depth) in [(4, 4, 12), (2, 5, 100)] {
            let shape = Shape::new(r, c).unwrap();
            let space = ParitySpace::with_metric(shape, Parity::Even, Metric::Mtm).unwrap();
            let seed = space.rank(&Board::goal(shape)).unwrap();
            let one = search(&space, seed, depth, None, |_| {}).unwrap();
            if r == 2 {
                let (sizes, last) = driver(&space, &Board::goal(shape));
                assert_eq!(one.layer_sizes, sizes);
                assert_eq!(one.last, last[..last.len().min(LAST_LISTED)]);
            }
            for segments in [0, 61] {
                // (4x4's own segments are 3.8 billion boards: a map of each for a layer of
                // thousands would zero 479 MB a segment; 2x5's are small.)
                let sparse_ways = match r {
                    4 => [0, super::super::config::SPARSE],
                    _ => [0, u64::MAX],
                };
                for sparse in sparse_ways {
                    let buffers = Buffers {
                        window: 3,
                        decode: 1 << 10,
                        sparse,
                    };
                    let f = buffered(&space, seed, depth, config(segments), &buffers);
                    assert_eq!(
                        f.layer_sizes, one.layer_sizes,
                        "{shape} {segments} {sparse}"
                    );
                    assert_eq!(f.last, one.last, "{shape} {segments} {sparse}");
                }
            }
        }
    }

    /// The smallest buffers (a decode buffer of 16 bytes, one segment at a time, every
    /// segment sorted or as its density says) give the same layers as the shipped ones, in
    /// memory, on disk and in a checkpoint: 4x4 to depth 20 (OEIS A089484).
    #[test]
    fn fixed_buffers_give_the_same_layers() {
        let space = ParitySpace::new(Shape::new(4, 4).unwrap(), Parity::Even).unwrap();
        let seed = space.rank(&Board::goal(space.shape())).unwrap();
        let one = search(&space, seed, 20, None, |_| {}).unwrap();
        // (Every segment mapped is for small spans: a map of each of 4x4's segments for a
        // layer of thousands of boards would zero the whole index each layer. The driver
        // tests map every segment of the small grids.)
        for (c, place, sparse) in [
            (config(1 << 12), "memory", 0),
            (config(1 << 12), "scratch", super::super::config::SPARSE),
            (config(0), "checkpoint", 0),
        ] {
            let tiny = Buffers {
                window: 1,
                decode: 16,
                sparse,
            };
            let dir = tempfile::tempdir().unwrap();
            let storage = Storage {
                scratch: (place == "scratch").then(|| dir.path().join("s")),
                checkpoint: (place == "checkpoint").then(|| CheckpointAt {
                    dir: dir.path().join("c"),
                    start: crate::durable::Start::New,
                    run: RunLabel::default(),
                }),
                memory: None,
            };
            let f = search_buffered(
                &space,
                seed,
                20,
                (&storage, c, &tiny),
                |_| {},
                &NoProgress,
                &mut Alone,
            )
            .unwrap();
            assert_eq!(f.layer_sizes, A089484, "{place}");
            assert_eq!(f.last, one.last, "{place}");
        }
    }

    /// A line `key: N kB` of /proc/self/status, in bytes.
    #[cfg(target_os = "linux")]
    fn status_bytes(key: &str) -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with(key)).unwrap();
        let kb: u64 = line[key.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .unwrap();
        kb << 10
    }

    /// With the layers on disk, what the search holds is what it counts in `peak_bytes` (the
    /// maps, the incoming lists, the window of segments written): 4x4 to depth 24 in 65,536
    /// segments of 160 million boards (maps of 20 MB) with a decode buffer of 64 KiB, run in a
    /// child process (this test binary, this test alone), whose peak RSS (`VmHWM`) grows by
    /// at most `peak_bytes` plus 32 MiB (the files' write buffers, the allocator's and the
    /// threads' slack).
    #[test]
    #[cfg(target_os = "linux")]
    fn memory_is_what_the_search_counts() {
        const CHILD: &str = "NPUZZLE_TEST_BOUNDED_CHILD";
        let name = "bfs::frontier::search::tests::memory_is_what_the_search_counts";
        let space = ParitySpace::new(Shape::new(4, 4).unwrap(), Parity::Even).unwrap();
        let c = config(1 << 16);
        if std::env::var_os(CHILD).is_some() {
            let seed = space.rank(&Board::goal(space.shape())).unwrap();
            let dir = tempfile::tempdir().unwrap();
            let storage = Storage {
                scratch: Some(dir.path().to_path_buf()),
                checkpoint: None,
                memory: None,
            };
            let buffers = Buffers {
                window: 4,
                decode: 64 << 10,
                sparse: super::super::config::SPARSE,
            };
            let before = status_bytes("VmRSS:");
            let f = search_buffered(
                &space,
                seed,
                24,
                (&storage, c, &buffers),
                |_| {},
                &NoProgress,
                &mut Alone,
            )
            .unwrap();
            let peak = status_bytes("VmHWM:");
            println!(
                "bounded: {before} {peak} {} {:?}",
                f.peak_bytes, f.layer_sizes
            );
            return;
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}");
        let line = stdout
            .lines()
            .find_map(|l| l.split_once("bounded: ").map(|(_, rest)| rest))
            .unwrap_or_else(|| panic!("{stdout}"));
        let mut words = line.splitn(4, ' ');
        let mut next = || words.next().unwrap().parse::<u64>().unwrap();
        let (before, peak, peak_bytes) = (next(), next(), next());
        let mut sizes = A089484.to_vec();
        sizes.extend([3_098_270, 5_802_411, 10_783_780, 19_826_318]);
        assert!(line.ends_with(&format!("{sizes:?}")), "{line}");
        let grew = peak.saturating_sub(before);
        assert!(
            grew <= peak_bytes + (32 << 20),
            "peak RSS grew by {grew} bytes, over the search's {peak_bytes} and 32 MiB"
        );
    }

    /// A budget that holds the maps but not the incoming lists of a large layer stops the
    /// search cleanly before that layer, the layers found until then exact (OEIS A089484);
    /// a budget below the maps is refused before anything runs.
    #[test]
    fn a_budget_stops_the_search_before_a_layer_that_would_not_fit() {
        let space = ParitySpace::new(Shape::new(4, 4).unwrap(), Parity::Even).unwrap();
        let seed = space.rank(&Board::goal(space.shape())).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let c = config(1 << 16);
        let maps = crate::bfs::frontier::map_bytes(&space, 1 << 16);
        let storage = |memory| Storage {
            scratch: Some(dir.path().to_path_buf()),
            checkpoint: None,
            memory: Some(memory),
        };
        let f = search_stored(
            &space,
            seed,
            20,
            &storage(RESERVE + maps + (1 << 20)),
            c,
            |_| {},
            &NoProgress,
        )
        .unwrap();
        let stopped = f.stopped.as_deref().unwrap_or_default();
        assert!(stopped.contains("of memory, over the budget"), "{stopped}");
        let reached = f.layer_sizes.len();
        assert!((10..=20).contains(&reached), "{reached}");
        assert_eq!(f.layer_sizes, A089484[..reached]);
        let refused = search_stored(
            &space,
            seed,
            20,
            &storage(RESERVE + maps - 1),
            c,
            |_| {},
            &NoProgress,
        );
        assert!(
            matches!(refused, Err(FrontierError::Budget(_))),
            "{refused:?}"
        );
    }

    /// 3x3 beyond its radius, with the layers on disk: OEIS A089473 and both antipodes.
    #[test]
    fn three_by_three_to_the_end_is_complete() {
        let dir = tempfile::tempdir().unwrap();
        let f = run(3, 3, 40, Some(dir.path()));
        assert!(f.complete);
        assert_eq!(f.layer_sizes, A089473);
        assert_eq!(f.layer_sizes.iter().sum::<u64>(), 181_440);
        assert_eq!(f.last.len(), 2);
        let space = ParitySpace::new(Shape::new(3, 3).unwrap(), Parity::Even).unwrap();
        let mut labels: Vec<String> = f.last.iter().map(|&i| space.unrank(i).label()).collect();
        labels.sort();
        assert_eq!(labels, ["647859321", "867254391"]);
    }

    /// A scratch path that is a file fails with the folder named.
    #[test]
    fn a_scratch_folder_that_cannot_be_made_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        let shape = Shape::new(2, 3).unwrap();
        let space = ParitySpace::new(shape, Parity::Even).unwrap();
        let seed = space.rank(&Board::goal(shape)).unwrap();
        let err = search(&space, seed, 5, Some(&file), |_| {}).unwrap_err();
        let FrontierError::Scratch { path, .. } = &err else {
            panic!("{err}")
        };
        assert_eq!(path, &file);
        assert!(err.to_string().starts_with("folder "), "{err}");
    }

    /// Out-of-range configurations are brought into range, and search with them: more
    /// segments than boards are as many as the boards.
    #[test]
    fn the_configuration_is_clamped() {
        assert_eq!(FrontierConfig::default(), config(0), "the space's own cut");
        assert_eq!(FrontierConfig::default().clamped(), config(0));
        assert_eq!(config(usize::MAX).clamped(), config(MAX_SEGMENTS));
        assert_eq!(config(5).clamped(), config(5));
        let shape = Shape::new(2, 3).unwrap();
        let space = ParitySpace::new(shape, Parity::Even).unwrap();
        let seed = space.rank(&Board::goal(shape)).unwrap();
        for segments in [0, 1, 360, 1 << 20] {
            let f = search_with(&space, seed, 100, None, config(segments), |_| {}).unwrap();
            assert_eq!(f.layer_sizes, A090034, "OEIS A090034, {segments} segments");
            assert!(f.segments <= 360);
        }
    }
}
