//! The frontier search's checkpoint: after each layer, a state file naming the two live
//! layers' files (kept in the checkpoint folder under fixed names) with their lengths, segment
//! offsets and CRC-32s, in one [`crate::durable::container`] (header and body under one CRC),
//! in two alternating slots `frontier.{0,1}.ckpt`. The layer before the live ones is kept
//! until the next save, so that both slots can be resumed from. On `--resume` the newest slot
//! whose container and layer files all check out is used; a damaged one is passed over with a
//! warning. Nothing is removed until the slot resumed is chosen ([`Checkpoint::settle`]):
//! across processes, until every process has loaded it.
//!
//! What a state's layer sizes are checked against (a state whose CRC was recomputed after an
//! edit passes the container's check): each size against the most boards its depth can hold
//! (one at depth 0, at most `degree` at depth 1, at most `degree - 1` times the depth before
//! after that: every board past depth 0 has a neighbour one move nearer the goal); the live
//! layers' sizes against their files' counts; and the sizes of the two slots against each
//! other (both record every depth up to theirs, and two slots that disagree are refused). Across
//! processes, every process's sizes against the others' and the shares of the live layers
//! against their sums ([`crate::bfs::frontier::search_across`]). A size changed within those
//! bounds in both slots of one machine's folder is not detected: the folder is the operator's.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::store::{Layer, LayerFile, Store};
use crate::durable::Start;
use crate::durable::container;
use crate::durable::folder::FolderLock;

/// Version of [`State`].
const FORMAT: u32 = 1;

/// What a checkpoint belongs to: a search with other values here cannot resume from it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RunLabel {
    /// The board's shape, e.g. `4x4`.
    pub board: String,
    /// The goal, as [`crate::Board::label`] writes it.
    pub goal: String,
    /// The move metric (`stm`).
    pub metric: String,
    /// The process whose share of the layers the folder holds, across processes
    /// ([`super::search_across`]); 0 on one machine.
    #[serde(default)]
    pub process: usize,
    /// The processes the layers are shared by: 1 on one machine (0, in a state written
    /// before it was kept, is read as 1).
    #[serde(default)]
    pub processes: usize,
}

impl RunLabel {
    /// Processes, 0 read as 1.
    fn processes(&self) -> usize {
        self.processes.max(1)
    }
}

/// A layer's file as the state records it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Saved {
    /// File name in the checkpoint folder.
    file: String,
    /// Boards per segment.
    counts: Vec<u64>,
    /// `segments + 1` byte offsets.
    offsets: Vec<u64>,
    /// CRC-32 of the whole file.
    crc: u32,
    /// CRC-32 of each segment (empty in a state written before they were kept).
    #[serde(default)]
    crcs: Vec<u32>,
}

/// The search's state after a layer.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct State {
    format: u32,
    run: RunLabel,
    /// Boards of the space and segments of a layer (the index layout).
    size: u64,
    segments: usize,
    span: u64,
    /// Boards per depth, up to the current layer's.
    sizes: Vec<u64>,
    peak_bytes: u64,
    /// Layers `depth - 1` and `depth`.
    previous: Saved,
    current: Saved,
    /// How the segments are dealt to the processes ([`super::exchange::DEAL`]; 0 in a state
    /// written before it was kept, whose deal was `k mod P`).
    #[serde(default)]
    deal: u32,
    /// Per layer built so far, by every run of the search: its depth, the boards expanded
    /// and the bytes sent by every process ([`super::Frontier::traffic_by_depth`]; empty in a
    /// state written before it was kept).
    #[serde(default)]
    traffic: Vec<(u32, u64, u64)>,
    /// Seconds the runs of the search spent building its layers so far (0 in a state written
    /// before it was kept).
    #[serde(default)]
    seconds: f64,
}

/// What a search did before the state was saved, kept so that a resumed search reports the
/// whole run: the traffic of every layer built and the seconds spent.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct History {
    /// Per layer built: depth, boards expanded, bytes sent (every process).
    pub traffic: Vec<(u32, u64, u64)>,
    /// Seconds spent building the layers.
    pub seconds: f64,
}

/// A state loaded for a resumed search.
pub(super) struct Resumed {
    pub sizes: Vec<u64>,
    pub peak_bytes: u64,
    /// What the runs before did (of the layers up to the one resumed from).
    pub history: History,
    pub previous: Layer,
    pub current: Layer,
    /// The two layers' file names (what [`Checkpoint::settle`] keeps).
    files: [String; 2],
}

/// The checkpoint folder of one search.
pub(super) struct Checkpoint {
    pub dir: PathBuf,
    run: RunLabel,
    size: u64,
    segments: usize,
    /// The most neighbours a board has (what bounds a layer's size by the one before).
    degree: u64,
}

/// The name of layer `depth`'s file.
pub(super) fn layer_name(depth: u32) -> String {
    format!("layer-{depth}.npl")
}

/// Whether `name` is a name [`layer_name`] gives (`layer-D.npl`, D a depth written as it
/// writes it), so that no other file of the folder is ever taken for a layer.
fn is_layer_name(name: &str) -> bool {
    name.strip_prefix("layer-")
        .and_then(|rest| rest.strip_suffix(".npl"))
        .and_then(|depth| depth.parse::<u32>().ok())
        .is_some_and(|depth| layer_name(depth) == name)
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

impl Checkpoint {
    /// The checkpoint in `dir` of the search `run` over a space of `size` boards in `segments`
    /// segments, whose boards have at most `degree` neighbours.
    pub fn new(dir: &Path, run: RunLabel, size: u64, segments: usize, degree: usize) -> Checkpoint {
        Checkpoint {
            dir: dir.to_path_buf(),
            run,
            size,
            segments,
            degree: degree as u64,
        }
    }

    fn slot(&self, depth: u32) -> PathBuf {
        self.dir.join(format!("frontier.{}.ckpt", depth % 2))
    }

    /// Creates the folder and locks it for this search ([`crate::durable::folder::hold`],
    /// `frontier.lock`: a second search on the folder is refused, naming this one). A new
    /// search is refused when the folder holds a checkpoint (its state slots or its layer
    /// files); a fresh one removes them first ([`Start`]).
    ///
    /// # Errors
    /// [`io::ErrorKind::WouldBlock`] when another search holds the folder,
    /// [`io::ErrorKind::AlreadyExists`] for a new search over a checkpoint, else the folder's
    /// error.
    pub fn prepare(&self, start: Start) -> io::Result<FolderLock> {
        std::fs::create_dir_all(&self.dir)?;
        let held = crate::durable::folder::hold(&self.dir, "frontier.lock")?;
        let mut files = vec![self.slot(0), self.slot(1)];
        for entry in std::fs::read_dir(&self.dir)? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if is_layer_name(&name) {
                files.push(self.dir.join(name));
            }
        }
        crate::durable::folder::apply_start(start, &self.dir, &files)?;
        Ok(held)
    }

    /// Removes the state slots (unless `keep` is non-empty) and every layer file but `keep`.
    fn sweep(&self, keep: &[&str]) -> io::Result<()> {
        for entry in std::fs::read_dir(&self.dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let ours = is_layer_name(&name)
                || (keep.is_empty() && (name == "frontier.0.ckpt" || name == "frontier.1.ckpt"));
            if ours && !keep.contains(&name.as_str()) {
                match std::fs::remove_file(entry.path()) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// Saves the state after layer `sizes.len() - 1` (`current`; `previous` one layer
    /// before), both in named files of this folder, over the older slot, and syncs the folder.
    pub fn save(
        &self,
        sizes: &[u64],
        peak_bytes: u64,
        (previous, current): (&Layer, &Layer),
        history: &History,
    ) -> io::Result<u64> {
        let saved = |layer: &Layer| -> io::Result<Saved> {
            match &layer.store {
                Store::Disk(LayerFile {
                    path: Some(path),
                    offsets,
                    crcs,
                    crc,
                    ..
                }) => Ok(Saved {
                    file: path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    counts: layer.counts.clone(),
                    offsets: offsets.clone(),
                    crc: *crc,
                    crcs: crcs.clone(),
                }),
                _ => Err(io::Error::other(
                    "a checkpointed layer must be a named file",
                )),
            }
        };
        let state = State {
            format: FORMAT,
            run: self.run.clone(),
            size: self.size,
            segments: self.segments,
            span: current.span,
            sizes: sizes.to_vec(),
            peak_bytes,
            previous: saved(previous)?,
            current: saved(current)?,
            deal: super::exchange::DEAL,
            traffic: history.traffic.clone(),
            seconds: history.seconds,
        };
        let depth = (sizes.len() - 1) as u32;
        let path = self.slot(depth);
        container::write(&path, &state, 0, |_| Ok(()))?;
        #[cfg(unix)]
        File::open(&self.dir)?.sync_all()?;
        Ok(std::fs::metadata(&path)?.len())
    }

    /// The depths the state slots can resume, newest first: each slot whose container checks
    /// out and whose fields agree with this search (its layer files are read when loaded).
    /// An error when a state belongs to another run.
    pub fn available(&self) -> io::Result<Vec<u32>> {
        let mut depths = Vec::new();
        for slot in 0..2 {
            let path = self.slot(slot);
            match container::verify::<State>(&path) {
                Ok(state) => {
                    self.check_owner(&path, &state)?;
                    if self.check_fields(&state).is_ok() {
                        depths.push((state.sizes.len() - 1) as u32);
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::NotFound | io::ErrorKind::InvalidData
                    ) => {}
                Err(e) => return Err(e),
            }
        }
        depths.sort_unstable_by(|a, b| b.cmp(a));
        Ok(depths)
    }

    /// The newest state (of depth `depth` only, when given) whose container and layer files
    /// check out (each file read whole for its CRC), or `None`; and a line for each slot
    /// passed over. Nothing is removed: [`Checkpoint::settle`] does, once the state is the
    /// one resumed.
    ///
    /// # Errors
    /// When a state belongs to another run, or the two slots' layer sizes disagree (one was
    /// altered: neither is trusted); the folder's errors.
    pub fn load(&self, depth: Option<u32>) -> io::Result<(Option<Resumed>, Vec<String>)> {
        let mut states = Vec::new();
        let mut warnings = Vec::new();
        for slot in 0..2 {
            let path = self.slot(slot);
            match container::verify::<State>(&path) {
                Ok(state) => states.push((path, state)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                    warnings.push(format!("{} passed over: {e}", path.display()));
                }
                Err(e) => return Err(e),
            }
        }
        states.sort_by_key(|(_, s)| std::cmp::Reverse(s.sizes.len()));
        let mut checked = Vec::new();
        for (path, state) in states {
            self.check_owner(&path, &state)?;
            match self.check_fields(&state) {
                Ok(()) => checked.push((path, state)),
                Err(field) => warnings.push(format!(
                    "{} passed over: its fields disagree ({field})",
                    path.display()
                )),
            }
        }
        self.check_slots_agree(&checked)?;
        if let Some(d) = depth {
            checked.retain(|(_, s)| s.sizes.len() == d as usize + 1);
        }
        for (path, state) in checked {
            match (
                self.open(&state.previous, state.span),
                self.open(&state.current, state.span),
            ) {
                (Ok(previous), Ok(current)) => {
                    let depth = state.sizes.len().saturating_sub(1) as u32;
                    let resumed = Resumed {
                        history: History {
                            traffic: state.traffic.into_iter().filter(|t| t.0 <= depth).collect(),
                            seconds: if state.seconds.is_finite() {
                                state.seconds.max(0.0)
                            } else {
                                0.0
                            },
                        },
                        sizes: state.sizes,
                        peak_bytes: state.peak_bytes,
                        previous,
                        current,
                        files: [state.previous.file, state.current.file],
                    };
                    return Ok((Some(resumed), warnings));
                }
                (Err(e), _) | (_, Err(e)) => {
                    warnings.push(format!("{} passed over: {e}", path.display()));
                }
            }
        }
        Ok((None, warnings))
    }

    /// Removes every layer file of the folder but `resumed`'s two: the older slot's oldest
    /// layer, and any layer of an abandoned deeper one. Called once the state is the one
    /// resumed (across processes, once every process has loaded the depth agreed on), so that
    /// a failed load elsewhere can still fall back to the older slot here.
    ///
    /// # Errors
    /// A file that cannot be removed.
    pub fn settle(&self, resumed: &Resumed) -> io::Result<()> {
        let [previous, current] = &resumed.files;
        self.sweep(&[previous, current])
    }

    /// Refuses two slots whose layer sizes disagree on a depth both record (a slot's state was
    /// altered and its CRC recomputed; which one cannot be told, so neither is resumed).
    fn check_slots_agree(&self, checked: &[(PathBuf, State)]) -> io::Result<()> {
        let [(a, newer), (b, older)] = checked else {
            return Ok(());
        };
        let Some(d) = (0..older.sizes.len().min(newer.sizes.len()))
            .find(|&d| newer.sizes[d] != older.sizes[d])
        else {
            return Ok(());
        };
        Err(io::Error::other(format!(
            "{} and {} disagree on the boards at depth {d} ({} and {}): a state was altered, \
             and neither is resumed; start again with --fresh",
            a.display(),
            b.display(),
            newer.sizes[d],
            older.sizes[d]
        )))
    }

    fn check_owner(&self, path: &Path, state: &State) -> io::Result<()> {
        let field = if state.format != FORMAT {
            Some(format!("format {} (this is {FORMAT})", state.format))
        } else if state.run.board != self.run.board {
            Some(format!("board {}", state.run.board))
        } else if state.run.goal != self.run.goal {
            Some(format!("goal {}", state.run.goal))
        } else if state.run.metric != self.run.metric {
            Some(format!("metric {}", state.run.metric))
        } else if state.run.process != self.run.process
            || state.run.processes() != self.run.processes()
        {
            Some(format!(
                "process {} of {}, where this is process {} of {}",
                state.run.process,
                state.run.processes(),
                self.run.process,
                self.run.processes()
            ))
        } else if state.run.processes() > 1 && state.deal != super::exchange::DEAL {
            Some(format!(
                "segments dealt to the processes by rule {}, an older build's (this build's \
                 rule is {})",
                state.deal,
                super::exchange::DEAL
            ))
        } else if state.size != self.size || state.segments != self.segments {
            Some(format!(
                "index layout ({} boards in {} segments)",
                state.size, state.segments
            ))
        } else {
            None
        };
        match field {
            Some(field) => Err(io::Error::other(format!(
                "{} belongs to another search ({field}); resume with the same board, goal, \
                 metric and processes, or use another --checkpoint folder",
                path.display()
            ))),
            None => Ok(()),
        }
    }

    /// Checks a state's fields against each other and against this search before any of them
    /// sizes a buffer or indexes anything (a state whose CRC checks out may still be forged):
    /// the span is this search's, the depths are at least 1 and their boards add up within
    /// the space, the two layers are the files of the last two depths, each with a count per
    /// segment (none above the boards the segment spans) adding up to its depth's boards,
    /// offsets from 0 that never go back, between 1 and 10 bytes per board in every segment,
    /// and a CRC per segment (or none, from before they were kept). The error names the field.
    fn check_fields(&self, state: &State) -> Result<(), String> {
        let span = self.size.div_ceil(self.segments as u64).max(1);
        if state.span != span {
            return Err(format!(
                "span {} where this search's segments span {span}",
                state.span
            ));
        }
        let sizes = &state.sizes;
        let depth = sizes.len().saturating_sub(1);
        if depth == 0 || u32::try_from(depth).is_err() {
            return Err(format!("{} depths", sizes.len()));
        }
        let total = sizes
            .iter()
            .try_fold(0u64, |t, &n| t.checked_add(n))
            .filter(|&t| t <= self.size);
        if total.is_none() || sizes.contains(&0) {
            return Err(format!(
                "layer sizes that are empty or add up past the {} boards of the space",
                self.size
            ));
        }
        if let Some(d) = (0..sizes.len()).find(|&d| sizes[d] > self.most_at(d, sizes)) {
            return Err(format!(
                "{} boards at depth {d}, more than the {} its depth can hold",
                sizes[d],
                self.most_at(d, sizes)
            ));
        }
        for (saved, d) in [(&state.previous, depth - 1), (&state.current, depth)] {
            let name = layer_name(d as u32);
            let at = |what: String| format!("layer {name}: {what}");
            if saved.file != name {
                return Err(at(format!("named {:?}", saved.file)));
            }
            if saved.counts.len() != self.segments
                || saved.offsets.len() != self.segments + 1
                || !(saved.crcs.is_empty() || saved.crcs.len() == self.segments)
            {
                return Err(at(format!(
                    "{} counts, {} offsets and {} CRCs for {} segments",
                    saved.counts.len(),
                    saved.offsets.len(),
                    saved.crcs.len(),
                    self.segments
                )));
            }
            if saved.offsets[0] != 0 {
                return Err(at("offsets that do not start at 0".into()));
            }
            let mut boards = 0u64;
            for (s, &count) in saved.counts.iter().enumerate() {
                let base = s as u64 * span;
                let spanned = span.min(self.size.saturating_sub(base));
                let (from, to) = (saved.offsets[s], saved.offsets[s + 1]);
                let bytes = to.checked_sub(from);
                let fits = bytes.is_some_and(|b| b >= count && b <= count.saturating_mul(10));
                if count > spanned || !fits {
                    return Err(at(format!(
                        "segment {s}: {count} boards in bytes {from}..{to} of a span of \
                         {spanned}"
                    )));
                }
                boards += count;
            }
            // Across processes a folder holds its share of each layer (the sizes are the
            // whole layers').
            let share = self.run.processes() > 1;
            if (share && boards > sizes[d]) || (!share && boards != sizes[d]) {
                return Err(at(format!(
                    "{boards} boards in its segments, {} at depth {d}",
                    sizes[d]
                )));
            }
        }
        Ok(())
    }

    /// The most boards depth `d` can hold after `sizes[d - 1]` at the depth before: 1 at depth
    /// 0, the degree at depth 1, and after that `degree - 1` times the depth before (a board
    /// past depth 0 has a neighbour one move nearer the goal, so at most `degree - 1` further).
    fn most_at(&self, d: usize, sizes: &[u64]) -> u64 {
        match d {
            0 => 1,
            1 => self.degree,
            _ => sizes[d - 1].saturating_mul(self.degree.saturating_sub(1)),
        }
    }

    /// Opens a saved layer's file, checking its length, its CRC and its segments' CRCs (when
    /// the state has them; else they are taken from the file as it checks out whole).
    fn open(&self, saved: &Saved, span: u64) -> io::Result<Layer> {
        // A plain name of this folder (a state, CRC and all, may still be forged: never a path
        // elsewhere), offsets from 0 that never go back, counts that add up.
        let plain = Path::new(&saved.file).file_name() == Some(std::ffi::OsStr::new(&saved.file));
        let ordered =
            saved.offsets.first() == Some(&0) && saved.offsets.windows(2).all(|w| w[0] <= w[1]);
        let counted = saved
            .counts
            .iter()
            .try_fold(0u64, |total, &c| total.checked_add(c));
        if !plain || !ordered || counted.is_none() {
            return Err(invalid(format!(
                "{}: a state naming layer file {:?} with offsets or counts that cannot be",
                self.dir.display(),
                saved.file
            )));
        }
        let path = self.dir.join(&saved.file);
        let mut file = crate::durable::open_regular(&path)?;
        let len = file.metadata()?.len();
        let expected = saved.offsets.last().copied().unwrap_or(0);
        if saved.counts.len() != self.segments
            || saved.offsets.len() != self.segments + 1
            || len != expected
        {
            return Err(invalid(format!(
                "{}: {len} bytes where its state says {expected}",
                path.display()
            )));
        }
        let mut crc = crc32fast::Hasher::new();
        let mut crcs = Vec::with_capacity(self.segments);
        let mut buffer = vec![0u8; 1 << 22];
        for w in saved.offsets.windows(2) {
            let mut segment = crc32fast::Hasher::new();
            let mut left = w[1] - w[0];
            while left > 0 {
                let n = buffer
                    .len()
                    .min(usize::try_from(left).unwrap_or(usize::MAX));
                file.read_exact(&mut buffer[..n])?;
                segment.update(&buffer[..n]);
                left -= n as u64;
            }
            crc.combine(&segment);
            crcs.push(segment.finalize());
        }
        if crc.finalize() != saved.crc {
            return Err(invalid(format!(
                "{}: its CRC-32 does not match its state's",
                path.display()
            )));
        }
        if let Some(s) = (0..saved.crcs.len()).find(|&s| saved.crcs[s] != crcs[s]) {
            return Err(invalid(format!(
                "{}: segment {s}: its CRC-32 does not match its state's",
                path.display()
            )));
        }
        Ok(Layer {
            size: self.size,
            span,
            len: counted.unwrap_or(0),
            counts: saved.counts.clone(),
            store: Store::Disk(LayerFile {
                file,
                path: Some(path),
                dir: self.dir.clone(),
                offsets: saved.offsets.clone(),
                crcs,
                crc: saved.crc,
                write_time: std::time::Duration::ZERO,
                cached: false,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::frontier::exchange::DEAL as DEAL_NOW;

    /// Issue 23: a state names its layers' files and offsets, and even one whose CRC checks
    /// out is not trusted with them: a name that leaves the folder, offsets that go back or
    /// do not start at 0, or counts that overflow are refused before any file is opened or
    /// any buffer sized from them.
    #[test]
    fn a_state_cannot_point_outside_its_folder_or_go_back() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("layer-1.npl"), [0u8; 10]).unwrap();
        let outside = dir.path().parent().unwrap().join("elsewhere.npl");
        let ck = Checkpoint::new(dir.path(), RunLabel::default(), 100, 2, 4);
        let saved = |file: &str, offsets: Vec<u64>, counts: Vec<u64>| Saved {
            file: file.to_string(),
            counts,
            offsets,
            crc: crc32fast::hash(&[0u8; 10]),
            crcs: Vec::new(),
        };
        let good = saved("layer-1.npl", vec![0, 4, 10], vec![1, 2]);
        assert_eq!(ck.open(&good, 50).unwrap().len, 3);
        for bad in [
            saved(&outside.display().to_string(), vec![0, 4, 10], vec![1, 2]),
            saved("../layer-1.npl", vec![0, 4, 10], vec![1, 2]),
            saved("layer-1.npl", vec![0, 11, 10], vec![1, 2]),
            saved("layer-1.npl", vec![4, 6, 10], vec![1, 2]),
            saved("layer-1.npl", vec![0, 4, 10], vec![u64::MAX, 2]),
        ] {
            let e = ck.open(&bad, 50).err().unwrap();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
        }
    }

    /// Issue 74: segments are dealt to processes by a new rule, so a checkpoint of a search
    /// across processes written under the old one (`k mod P`, rule 0: a state without the
    /// field) is refused, naming the rule; one machine's (which owns every segment) resumes
    /// whatever the rule.
    #[test]
    fn a_state_across_processes_dealt_by_another_rule_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let run = |processes| RunLabel {
            board: "3x3".into(),
            goal: "g".into(),
            metric: "stm".into(),
            process: 0,
            processes,
        };
        let saved = || Saved {
            file: "layer-1.npl".into(),
            counts: vec![0, 0],
            offsets: vec![0, 0, 0],
            crc: 0,
            crcs: Vec::new(),
        };
        let state = |processes, deal| State {
            format: FORMAT,
            run: run(processes),
            size: 100,
            segments: 2,
            span: 50,
            sizes: vec![1],
            peak_bytes: 0,
            previous: saved(),
            current: saved(),
            deal,
            traffic: Vec::new(),
            seconds: 0.0,
        };
        let path = dir.path().join("frontier.0.ckpt");
        for processes in [1, 2] {
            let ck = Checkpoint::new(dir.path(), run(processes), 100, 2, 4);
            assert!(ck.check_owner(&path, &state(processes, DEAL_NOW)).is_ok());
            let old = ck.check_owner(&path, &state(processes, 0));
            match processes {
                1 => assert!(old.is_ok(), "{old:?}"),
                _ => {
                    let e = old.unwrap_err().to_string();
                    assert!(e.contains("dealt to the processes by rule 0"), "{e}");
                }
            }
        }
        // A state written before the field was kept reads as rule 0.
        let json = serde_json::to_value(state(2, DEAL_NOW)).unwrap();
        let mut object = json.as_object().unwrap().clone();
        object.remove("deal");
        let read: State = serde_json::from_value(serde_json::Value::Object(object)).unwrap();
        assert_eq!(read.deal, 0);
    }
}
