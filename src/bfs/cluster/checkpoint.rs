//! The checkpoint files of a distributed run: after a layer (every layer, or as often as
//! [`CheckpointEvery`] says), every process saves its range (marks and depths) and the search's
//! position into one [`crate::durable::container`], in two alternating slots
//! `process-P.{0,1}.ckpt`, so that the previous save survives a crash during a write.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::state::{Deal, Phase, Share};
use super::{AUTO_MIN, AUTO_RATIO, BufferSizes, CheckpointEvery, ClusterError, Job};
use crate::bfs::{DepthArray, Marking, StateMarks};
use crate::durable::Start;
use crate::durable::container;

/// The header of a checkpoint: whose run it belongs to, and what its body holds: the mark words
/// of the process's share ([`Deal`], 8 bytes each, little-endian, by local index), then its
/// depths (one byte per board) when kept, then the boards of its listed layers.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct CheckpointHeader {
    format: u32,
    board: String,
    goal: String,
    /// The metric's short name (`stm` in checkpoints written before it was recorded).
    #[serde(default = "single_tile")]
    metric: String,
    spaces: Vec<u64>,
    per_board: bool,
    search_rest: bool,
    processes: usize,
    process: usize,
    /// Boards of the share ([`Deal::held`]).
    len: u64,
    has_depths: bool,
    /// The goal's BFS keeps each board's depth in the marks ([`Marking::Depths`]).
    #[serde(default)]
    table: bool,
    /// The listed layers ([`Phase::listed`]): depth and board count of each; their indices
    /// follow the depths in the body (8 bytes each, little-endian).
    #[serde(default)]
    listed: Vec<(u32, u64)>,
    /// Boards per dealt block when the run set them ([`super::BufferSizes::block`]).
    #[serde(default)]
    block: Option<u64>,
    phase: Phase,
}

fn single_tile() -> String {
    crate::metric::Metric::Stm.name().into()
}

/// Version of [`CheckpointHeader`] and its body (4: shares dealt in blocks, not contiguous ranges; 5:
/// the frontier's codes under the across flag, `crate::bfs::step::LayerCodes::flagged`, which
/// a run of format 4 would read as other layers).
const FORMAT: u32 = 5;

/// Where [`Checkpoints`] reads the time.
pub(super) type Clock = Box<dyn Fn() -> Instant + Send>;

/// One process's checkpoint files.
pub(super) struct Checkpoints {
    dir: PathBuf,
    process: usize,
    processes: usize,
    board: String,
    goal: String,
    metric: String,
    spaces: Vec<u64>,
    per_board: bool,
    search_rest: bool,
    table: bool,
    /// [`super::BufferSizes::block`].
    block: Option<u64>,
    every: CheckpointEvery,
    /// The time now: [`Instant::now`] in a run, a clock the tests move by hand.
    clock: Clock,
    /// When the last save ended (or the run started).
    last: Instant,
    /// How long the last save took.
    took: Duration,
}

impl Checkpoints {
    /// The files of process `process` of `processes` in `dir`, saved as `every` says.
    pub fn new<S: crate::bfs::StateSpace>(
        dir: &Path,
        every: CheckpointEvery,
        (process, processes): (usize, usize),
        job: &Job<S>,
        tuning: BufferSizes,
    ) -> Checkpoints {
        let clock: Clock = Box::new(Instant::now);
        let mut ck = Checkpoints::with_clock(dir, every, process, processes, job, clock);
        ck.block = tuning.block;
        ck
    }

    /// [`Checkpoints::new`] reading the time from `clock` (the run starts at its first
    /// reading).
    pub fn with_clock<S: crate::bfs::StateSpace>(
        dir: &Path,
        every: CheckpointEvery,
        process: usize,
        processes: usize,
        job: &Job<S>,
        clock: Clock,
    ) -> Checkpoints {
        Checkpoints {
            every,
            last: clock(),
            clock,
            took: Duration::ZERO,
            dir: dir.to_path_buf(),
            process,
            processes,
            board: job.goal.shape().to_string(),
            goal: job.goal.label(),
            metric: job.metric.name().into(),
            spaces: job.spaces.iter().map(|s| s.size()).collect(),
            per_board: job.per_board,
            search_rest: job.search_rest,
            table: job.marking == Marking::Depths,
            block: None,
        }
    }

    fn path(&self, slot: u64) -> PathBuf {
        self.dir
            .join(format!("process-{}.{}.ckpt", self.process, slot % 2))
    }

    fn error(&self, what: &str, e: impl std::fmt::Display) -> ClusterError {
        ClusterError::Checkpoint(format!("{what} checkpoint in {}: {e}", self.dir.display()))
    }

    /// Creates the folder and locks this process's files in it
    /// ([`crate::durable::folder::hold`], `process-P.lock`: a second run's process `P` on the
    /// folder is refused, naming the holder). A new run is refused when the folder holds this
    /// process's checkpoint; a fresh one removes it first ([`Start`]), so that a later
    /// `--resume` never finds another run's.
    pub fn prepare(
        &self,
        start: Start,
    ) -> Result<crate::durable::folder::FolderLock, ClusterError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| self.error("cannot create the", e))?;
        let refused = |e: io::Error| ClusterError::Checkpoint(e.to_string());
        let held =
            crate::durable::folder::hold(&self.dir, &format!("process-{}.lock", self.process))
                .map_err(|e| match e.kind() {
                    io::ErrorKind::WouldBlock => refused(e),
                    _ => self.error("cannot lock the", e),
                })?;
        // (A killed run's temporary files are swept by the next save, as every output's.)
        crate::durable::folder::apply_start(start, &self.dir, &[self.path(0), self.path(1)])
            .map_err(|e| match e.kind() {
                io::ErrorKind::AlreadyExists => refused(e),
                _ => self.error("cannot remove an old", e),
            })?;
        Ok(held)
    }

    /// Whether this process would save now, by its schedule (the processes then agree: one
    /// saves when any would).
    pub fn due(&self) -> bool {
        let since = (self.clock)().saturating_duration_since(self.last);
        match self.every {
            CheckpointEvery::Layer => true,
            CheckpointEvery::Interval(every) => since >= every,
            CheckpointEvery::Auto => since >= AUTO_MIN.max(self.took * AUTO_RATIO),
        }
    }

    /// Writes the checkpoint of `phase.step` over the older of the two slots and syncs the
    /// folder; returns the bytes written and the time taken (the syncs included).
    pub fn save(&mut self, held: &Share, phase: &Phase) -> Result<(u64, Duration), ClusterError> {
        let start = (self.clock)();
        let fail = |e: io::Error| self.error("cannot write a", e);
        let header = CheckpointHeader {
            format: FORMAT,
            board: self.board.clone(),
            goal: self.goal.clone(),
            metric: self.metric.clone(),
            spaces: self.spaces.clone(),
            per_board: self.per_board,
            search_rest: self.search_rest,
            processes: self.processes,
            process: self.process,
            len: held.marks.len(),
            has_depths: held.depths.is_some(),
            table: self.table,
            listed: phase
                .listed
                .iter()
                .map(|(d, boards)| (*d, boards.len() as u64))
                .collect(),
            block: self.block,
            phase: phase.clone(),
        };
        let depth_bytes = if header.has_depths { header.len } else { 0 };
        let listed_bytes: u64 = header.listed.iter().map(|(_, n)| 8 * n).sum();
        let body = held.marks.word_bytes() + depth_bytes + listed_bytes;
        container::write(&self.path(phase.step), &header, body, |w| {
            // SAFETY: a save runs between layers, when every worker of this process waits
            // at the barrier: no thread changes the marks.
            unsafe { held.marks.write_words(w) }?;
            if let Some(d) = &held.depths {
                w.write_all(&d.raw_bytes())?;
            }
            for (_, boards) in &phase.listed {
                let bytes: Vec<u8> = boards.iter().flat_map(|i| i.to_le_bytes()).collect();
                w.write_all(&bytes)?;
            }
            Ok(())
        })
        .map_err(fail)?;
        #[cfg(unix)]
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(fail)?;
        self.saved(start);
        Ok((body, self.took))
    }

    /// Records a save that began at `start` and ends now.
    fn saved(&mut self, start: Instant) {
        self.last = (self.clock)();
        self.took = self.last.saturating_duration_since(start);
    }

    /// Refuses `header`, read from `path`, when it belongs to another run, naming the first
    /// field that differs with both values (the fields of the processes' hello, in its words).
    fn check_owner(&self, path: &Path, h: &CheckpointHeader) -> Result<(), ClusterError> {
        match self.difference(h) {
            None => Ok(()),
            Some((what, theirs, ours)) => Err(ClusterError::Checkpoint(format!(
                "{} belongs to another run: its {what} is {theirs}, this run's {ours}; resume \
                 with the same board, goal, metric, options and --processes, or use another \
                 --checkpoint folder",
                path.display(),
            ))),
        }
    }

    /// The first field in which header `h` differs from this run: its name, the header's
    /// value and this run's.
    fn difference(&self, h: &CheckpointHeader) -> Option<(&'static str, String, String)> {
        let yes = |b: bool| if b { "yes" } else { "no" }.to_string();
        let sizes = |s: &[u64]| s.iter().map(u64::to_string).collect::<Vec<_>>().join(" + ");
        [
            ("format", h.format.to_string(), FORMAT.to_string()),
            ("board", h.board.clone(), self.board.clone()),
            ("goal", h.goal.clone(), self.goal.clone()),
            ("metric", h.metric.clone(), self.metric.clone()),
            ("spaces' sizes", sizes(&h.spaces), sizes(&self.spaces)),
            ("per-board results", yes(h.per_board), yes(self.per_board)),
            (
                "search of every component (--search-components)",
                yes(h.search_rest),
                yes(self.search_rest),
            ),
            ("distance table (--table)", yes(h.table), yes(self.table)),
            (
                "block size",
                format!("{:?}", h.block),
                format!("{:?}", self.block),
            ),
            (
                "--processes",
                h.processes.to_string(),
                self.processes.to_string(),
            ),
            (
                "process number",
                h.process.to_string(),
                self.process.to_string(),
            ),
        ]
        .into_iter()
        .find(|(_, theirs, ours)| theirs != ours)
    }

    /// The header of slot `slot`; `None` when there is no file or it is not a whole
    /// checkpoint; an error when it belongs to another run.
    fn header(
        &self,
        slot: u64,
    ) -> Result<Option<container::Opened<CheckpointHeader>>, ClusterError> {
        let path = self.path(slot);
        let opened = match container::open::<CheckpointHeader>(&path) {
            Ok(o) => o,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::InvalidData => return Ok(None),
            Err(e) => return Err(self.error("cannot read a", e)),
        };
        self.check_owner(&path, &opened.header)?;
        Ok(Some(opened))
    }

    /// The steps this process can resume from, each slot checked whole (CRC) first, and a
    /// warning for each slot passed over as corrupt or truncated (the other slot, one step
    /// older, is then used).
    pub fn available(&self) -> Result<(Vec<u64>, Vec<String>), ClusterError> {
        let (mut steps, mut warnings) = (Vec::new(), Vec::new());
        for slot in 0..2 {
            let path = self.path(slot);
            match container::verify::<CheckpointHeader>(&path) {
                Ok(h) => {
                    self.check_owner(&path, &h)?;
                    steps.push(h.phase.step);
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                    warnings.push(format!("{} passed over: {e}", path.display()));
                }
                Err(e) => return Err(self.error("cannot read a", e)),
            }
        }
        Ok((steps, warnings))
    }

    /// Loads step `step` (its CRC checked before anything is used); `size(space)` is the
    /// size of the job's space of that index.
    pub fn load(
        &self,
        step: u64,
        size: impl Fn(u8) -> Option<u64>,
    ) -> Result<(Share, Phase), ClusterError> {
        let opened = self
            .header(step)?
            .filter(|o| o.header.phase.step == step)
            .ok_or_else(|| self.error("lost the", format!("step {step} vanished")))?;
        let h = &opened.header;
        let space_size = size(h.phase.space).ok_or_else(|| {
            self.error(
                "a mismatched",
                format!("step {step} names no space of this run"),
            )
        })?;
        let deal = Deal::with_block(space_size, self.processes, self.process, self.block);
        let mut marks = StateMarks::try_new(deal.held()).map_err(super::out_of_memory)?;
        let depth_bytes = if h.has_depths { h.len } else { 0 };
        let listed_bytes = h
            .listed
            .iter()
            .try_fold(0u64, |all, (_, n)| all.checked_add(n.checked_mul(8)?));
        if h.len != deal.held()
            || listed_bytes.and_then(|l| (marks.word_bytes() + depth_bytes).checked_add(l))
                != Some(opened.body_len)
        {
            return Err(self.error(
                "a mismatched",
                format!("step {step} does not match this run's ranges"),
            ));
        }
        let has_depths = h.has_depths;
        let counts = h.listed.clone();
        let (header, (depths, listed)) = opened
            .read_body(|r| {
                marks.read_words(r)?;
                let depths = if has_depths {
                    let mut raw = vec![0u8; deal.held() as usize];
                    r.read_exact(&mut raw)?;
                    Some(DepthArray::from_raw_bytes(raw))
                } else {
                    None
                };
                let mut listed = Vec::with_capacity(counts.len());
                for &(depth, n) in &counts {
                    let mut raw = vec![0u8; 8 * n as usize];
                    r.read_exact(&mut raw)?;
                    let boards = raw
                        .chunks_exact(8)
                        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
                        .collect();
                    listed.push((depth, boards));
                }
                Ok((depths, listed))
            })
            .map_err(|e| self.error("a corrupt", format!("step {step}: {e}")))?;
        let mut phase = header.phase;
        phase.listed = listed;
        Ok((
            Share {
                deal,
                marks,
                depths,
            },
            phase,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{Parity, ParitySpace, StateSpace};
    use crate::board::Board;
    use crate::shape::Shape;
    use std::sync::{Arc, Mutex};

    /// A clock moved by hand: `(clock, advance)`.
    fn hand_clock() -> (Clock, impl Fn(u64)) {
        let now = Arc::new(Mutex::new(Instant::now()));
        let read = Arc::clone(&now);
        let clock: Clock = Box::new(move || *read.lock().unwrap());
        (clock, move |s: u64| {
            *now.lock().unwrap() += Duration::from_secs(s)
        })
    }

    fn job() -> Job<ParitySpace> {
        let goal = Board::goal(Shape::new(2, 3).unwrap());
        Job {
            spaces: vec![ParitySpace::new(goal.shape(), Parity::of(&goal)).unwrap()],
            goal,
            metric: crate::metric::Metric::Stm,
            per_board: false,
            search_rest: false,
            marking: Marking::Frontier,
            listed: 0,
        }
    }

    fn at(every: CheckpointEvery, clock: Clock) -> Checkpoints {
        Checkpoints::with_clock(Path::new("unused"), every, 0, 1, &job(), clock)
    }

    /// `layer` saves after every layer; an interval after the first layer that ends at least
    /// that long after the run started or the last save ended.
    #[test]
    fn the_layer_and_interval_schedules() {
        let (clock, advance) = hand_clock();
        let layer = at(CheckpointEvery::Layer, clock);
        assert!(layer.due());
        advance(1);
        assert!(layer.due());
        let (clock, advance) = hand_clock();
        let mut every = at(CheckpointEvery::Interval(Duration::from_secs(600)), clock);
        assert!(!every.due());
        advance(599);
        assert!(!every.due());
        advance(1);
        assert!(every.due());
        // A save from t = 700 s to 705 s: the next is due 600 s after it ended.
        advance(100);
        let start = (every.clock)();
        advance(5);
        every.saved(start);
        assert_eq!(every.took, Duration::from_secs(5));
        advance(599);
        assert!(!every.due());
        advance(1);
        assert!(every.due());
    }

    /// `auto`: the first save once [`AUTO_MIN`] has passed; after a save of `t`, the next
    /// once `max(AUTO_MIN, AUTO_RATIO t)` has passed since it ended (a 10 s save: 90 s; a 2 s
    /// save: 60 s).
    #[test]
    fn the_auto_schedule_waits_nine_saves_and_at_least_a_minute() {
        assert_eq!((AUTO_MIN, AUTO_RATIO), (Duration::from_secs(60), 9));
        let (clock, advance) = hand_clock();
        let mut auto = at(CheckpointEvery::Auto, clock);
        advance(59);
        assert!(!auto.due());
        advance(1);
        assert!(auto.due());
        let save = |auto: &mut Checkpoints, seconds: u64| {
            let start = (auto.clock)();
            advance(seconds);
            auto.saved(start);
        };
        save(&mut auto, 10);
        advance(89);
        assert!(!auto.due());
        advance(1);
        assert!(auto.due());
        save(&mut auto, 2);
        advance(59);
        assert!(!auto.due(), "at least a minute, not 18 s");
        advance(1);
        assert!(auto.due());
    }

    /// A real save reads the same clock: its duration is the clock's advance during it.
    #[test]
    fn a_save_is_timed_by_the_clock() {
        let dir = tempfile::tempdir().unwrap();
        let ticks = Arc::new(Mutex::new((Instant::now(), 0u32)));
        let t = Arc::clone(&ticks);
        // Every reading is 7 s after the one before.
        let clock: Clock = Box::new(move || {
            let mut t = t.lock().unwrap();
            t.1 += 1;
            t.0 + Duration::from_secs(7 * u64::from(t.1))
        });
        let job = job();
        let mut ck = Checkpoints::with_clock(dir.path(), CheckpointEvery::Auto, 0, 1, &job, clock);
        let _lock = ck.prepare(Start::New).unwrap();
        let size = job.spaces[0].size();
        let held = Share {
            deal: Deal::new(size, 1, 0),
            marks: StateMarks::new(size),
            depths: None,
        };
        let (bytes, took) = ck.save(&held, &Phase::default()).unwrap();
        assert_eq!(bytes, held.marks.word_bytes());
        assert_eq!(took, Duration::from_secs(7));
        // Due when 63 s (9 x 7) have passed since the save ended: readings go by 7 s.
        let since_save = |ck: &Checkpoints| (0..20).take_while(|_| !ck.due()).count();
        assert_eq!(
            since_save(&ck),
            8,
            "due at the 9th reading, 63 s after the save"
        );
    }
}
