//! Depth-limited BFS without whole-space marks: frontier search over layers (Korf, Zhang,
//! Thayer & Hohwald, "Frontier search", JACM 2005), for boards whose state space does not fit
//! in memory (4x4, 3x5, 2x8), as deep as memory and time allow.
//!
//! In an undirected graph, layer `d + 1` is the set of neighbours of layer `d` minus layers `d`
//! and `d - 1`, so only three layers are live. A layer is a sorted set of indices cut into
//! [`SEGMENTS`] segments by index range, each gap-encoded ([`super::codec`], about 2-3 bytes
//! per board on the large layers). The next layer is built in two passes:
//!
//! 1. the current layer is expanded in chunks of at most [`CHUNK`] boards with the shared
//!    kernel ([`StateSpace::expand`], in parallel); each chunk's neighbours are sorted,
//!    deduplicated, stripped of the boards of layer `d - 1` (the parents, most of the
//!    neighbours that are not new), and kept as one sorted *run* per segment (in memory, or in
//!    a file under the scratch folder);
//! 2. each segment's runs are merged (deduplicated, stripped of layer `d`) into the new layer's
//!    segment, the segments in parallel.
//!
//! Memory: the three layers (about 1.4 bytes per board on 4x4's deep layers), one chunk's
//! neighbours (up to `4 * CHUNK` indices, 4 GiB, twice that while they are gathered) and the
//! runs of the layer being built (unless they spill to disk).

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::codec::{decode_sorted, encode_sorted};
use super::{StateIndex, StateSpace};

/// Segments per layer (by index range).
pub const SEGMENTS: usize = 1024;
/// Boards of the current layer expanded at once.
pub const CHUNK: usize = 1 << 27;
/// Boards of the last layer listed (the first ones in index order).
pub const LAST_LISTED: usize = 1000;

/// Why a depth-limited search stopped early.
#[derive(Debug, thiserror::Error)]
pub enum FrontierError {
    /// The scratch folder could not be written or read.
    #[error("scratch folder {}: {source}", path.display())]
    Scratch {
        /// The folder.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
}

/// What one layer cost, reported after it is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerReport {
    /// Its depth.
    pub depth: u32,
    /// Its boards.
    pub size: u64,
    /// Bytes of the three live layers in memory.
    pub bytes_in_memory: u64,
    /// Bytes of runs written to the scratch folder for it.
    pub bytes_on_disk: u64,
}

/// The result of [`search`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frontier {
    /// `layer_sizes[d]` = boards at depth `d`, for `d = 0..=` the last depth reached.
    pub layer_sizes: Vec<u64>,
    /// True when the search ran out of boards before the depth limit: the component's radius
    /// is below the limit, and the whole component is known. (A search that stops exactly at
    /// the radius does not know it, and says false.)
    pub complete: bool,
    /// The first [`LAST_LISTED`] boards of the last layer, ascending index.
    pub last: Vec<StateIndex>,
    /// Largest number of bytes of layers and runs held in memory at once (not counting one
    /// chunk's neighbours).
    pub peak_bytes: u64,
}

/// A sorted set of indices of a space of `size` boards, in [`SEGMENTS`] gap-encoded segments.
struct Layer {
    span: u64,
    segments: Vec<Vec<u8>>,
    len: u64,
}

impl Layer {
    fn new(size: u64) -> Layer {
        Layer {
            span: size.div_ceil(SEGMENTS as u64).max(1),
            segments: vec![Vec::new(); SEGMENTS],
            len: 0,
        }
    }

    fn base(&self, segment: usize) -> u64 {
        segment as u64 * self.span
    }

    fn bytes(&self) -> u64 {
        self.segments.iter().map(|s| s.capacity() as u64).sum()
    }

    /// The indices of `segment`, ascending.
    fn decode(&self, segment: usize) -> Vec<u64> {
        let mut out = Vec::new();
        decode_sorted(&self.segments[segment], self.base(segment), |i| out.push(i))
            .expect("layers are written by this module");
        out
    }

    /// Boards in index order, in runs of at most `chunk`.
    fn chunks(&self, chunk: usize) -> impl Iterator<Item = Vec<StateIndex>> + '_ {
        let mut segment = 0;
        let mut pending: Vec<StateIndex> = Vec::new();
        std::iter::from_fn(move || {
            while pending.len() < chunk && segment < SEGMENTS {
                pending.extend(self.decode(segment).into_iter().map(StateIndex));
                segment += 1;
            }
            if pending.is_empty() {
                return None;
            }
            let rest = pending.split_off(pending.len().min(chunk));
            Some(std::mem::replace(&mut pending, rest))
        })
    }
}

/// Where the runs of the layer being built are kept.
enum Runs {
    Memory(Vec<Vec<Vec<u8>>>),
    Disk {
        dir: PathBuf,
        files: Vec<(File, Vec<(u64, u64)>)>,
        written: u64,
    },
}

impl Runs {
    fn new(scratch: Option<&Path>) -> Result<Runs, FrontierError> {
        Ok(match scratch {
            None => Runs::Memory(vec![Vec::new(); SEGMENTS]),
            Some(dir) => {
                std::fs::create_dir_all(dir).map_err(|source| FrontierError::Scratch {
                    path: dir.to_path_buf(),
                    source,
                })?;
                Runs::Disk {
                    dir: dir.to_path_buf(),
                    files: Vec::new(),
                    written: 0,
                }
            }
        })
    }

    fn bytes_in_memory(&self) -> u64 {
        match self {
            Runs::Memory(runs) => runs.iter().flatten().map(|r| r.len() as u64).sum(),
            Runs::Disk { .. } => 0,
        }
    }

    fn bytes_on_disk(&self) -> u64 {
        match self {
            Runs::Memory(_) => 0,
            Runs::Disk { written, .. } => *written,
        }
    }

    /// Adds one run per segment (`encoded[s]` for segment `s`).
    fn add(&mut self, encoded: Vec<Vec<u8>>) -> Result<(), FrontierError> {
        match self {
            Runs::Memory(runs) => {
                for (s, bytes) in encoded.into_iter().enumerate() {
                    if !bytes.is_empty() {
                        runs[s].push(bytes);
                    }
                }
            }
            Runs::Disk {
                dir,
                files,
                written,
            } => {
                let fail = |source| FrontierError::Scratch {
                    path: dir.clone(),
                    source,
                };
                let file = tempfile::tempfile_in(&*dir).map_err(fail)?;
                let mut offsets = Vec::with_capacity(SEGMENTS);
                let mut at = 0u64;
                {
                    let mut w = BufWriter::new(&file);
                    for bytes in &encoded {
                        w.write_all(bytes).map_err(fail)?;
                        offsets.push((at, bytes.len() as u64));
                        at += bytes.len() as u64;
                    }
                    w.flush().map_err(fail)?;
                }
                *written += at;
                files.push((file, offsets));
            }
        }
        Ok(())
    }

    /// The runs of `segment` (borrowed when in memory, read when on disk).
    fn of(&self, segment: usize) -> Result<Vec<Cow<'_, [u8]>>, FrontierError> {
        match self {
            Runs::Memory(runs) => Ok(runs[segment].iter().map(|r| Cow::from(&r[..])).collect()),
            Runs::Disk { dir, files, .. } => files
                .iter()
                .map(|(file, offsets)| {
                    let (at, len) = offsets[segment];
                    let mut bytes = vec![0u8; len as usize];
                    read_at(file, &mut bytes, at).map_err(|source| FrontierError::Scratch {
                        path: dir.clone(),
                        source,
                    })?;
                    Ok(Cow::from(bytes))
                })
                .collect(),
        }
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, at)
}

#[cfg(not(unix))]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file.try_clone()?;
    f.seek(SeekFrom::Start(at))?;
    f.read_exact(buf)
}

/// `sorted` (ascending, distinct) minus the boards of `a` and `b` in the same index range.
fn subtract(sorted: Vec<u64>, a: &[u64], b: &[u64]) -> Vec<u64> {
    let (mut i, mut j) = (0, 0);
    sorted
        .into_iter()
        .filter(|&x| {
            while i < a.len() && a[i] < x {
                i += 1;
            }
            while j < b.len() && b[j] < x {
                j += 1;
            }
            !(a.get(i) == Some(&x) || b.get(j) == Some(&x))
        })
        .collect()
}

/// BFS from `seed` over `space` to depth `max_depth` (or until the component is exhausted),
/// keeping only three layers. `scratch`: a folder for the runs of the layer being built (else
/// they stay in memory). `on_layer` is called after each layer is built.
///
/// # Errors
/// [`FrontierError::Scratch`] when the scratch folder fails.
pub fn search<S: StateSpace>(
    space: &S,
    seed: StateIndex,
    max_depth: u32,
    scratch: Option<&Path>,
    mut on_layer: impl FnMut(LayerReport),
) -> Result<Frontier, FrontierError> {
    let size = space.size();
    let mut previous = Layer::new(size);
    let mut current = Layer::new(size);
    let s = (seed.0 / current.span) as usize;
    encode_sorted(&[seed.0], current.base(s), &mut current.segments[s]);
    current.len = 1;
    let mut sizes = vec![1u64];
    let mut peak = 0u64;
    on_layer(LayerReport {
        depth: 0,
        size: 1,
        bytes_in_memory: current.bytes(),
        bytes_on_disk: 0,
    });
    let mut depth = 0u32;
    let mut complete = false;
    while depth < max_depth {
        let mut runs = Runs::new(scratch)?;
        for chunk in current.chunks(CHUNK) {
            let mut neighbours: Vec<u64> = chunk
                .par_chunks(4096)
                .flat_map_iter(|boards| {
                    let mut out = Vec::with_capacity(space.degree() * boards.len());
                    space.expand(boards, &mut out);
                    out.into_iter()
                        .filter(|&i| i != StateIndex::NONE)
                        .map(|i| i.0)
                })
                .collect();
            neighbours.par_sort_unstable();
            neighbours.dedup();
            // Cut by segment, strip layers d and d - 1, encode.
            let mut cuts = Vec::with_capacity(SEGMENTS + 1);
            for seg in 0..=SEGMENTS {
                cuts.push(neighbours.partition_point(|&x| x < current.base(seg)));
            }
            let encoded: Vec<Vec<u8>> = (0..SEGMENTS)
                .into_par_iter()
                .map(|seg| {
                    let part = neighbours[cuts[seg]..cuts[seg + 1]].to_vec();
                    if part.is_empty() {
                        return Vec::new();
                    }
                    // Layer d - 1 here, for each chunk (most neighbours of layer d that are
                    // not new are its parents); layer d once per segment, at the merge.
                    let fresh = subtract(part, &previous.decode(seg), &[]);
                    let mut bytes = Vec::new();
                    encode_sorted(&fresh, current.base(seg), &mut bytes);
                    bytes
                })
                .collect();
            drop(neighbours);
            runs.add(encoded)?;
            peak = peak.max(previous.bytes() + current.bytes() + runs.bytes_in_memory());
        }
        // Layer d - 1 is no longer needed: free it before the merge.
        peak = peak.max(previous.bytes() + current.bytes() + runs.bytes_in_memory());
        drop(std::mem::replace(&mut previous, Layer::new(size)));
        // Merge each segment's runs into the next layer.
        let merged: Result<Vec<(Vec<u8>, u64)>, FrontierError> = (0..SEGMENTS)
            .into_par_iter()
            .map(|seg| {
                let base = current.base(seg);
                let mut all = Vec::new();
                for run in runs.of(seg)? {
                    decode_sorted(&run, base, |i| all.push(i))
                        .expect("runs are written by this module");
                }
                // The runs are sorted: the stable sort merges them (it finds the runs).
                all.sort();
                all.dedup();
                let all = subtract(all, &current.decode(seg), &[]);
                let mut bytes = Vec::new();
                encode_sorted(&all, base, &mut bytes);
                bytes.shrink_to_fit();
                Ok((bytes, all.len() as u64))
            })
            .collect();
        let mut next = Layer::new(size);
        for (seg, (bytes, n)) in merged?.into_iter().enumerate() {
            next.segments[seg] = bytes;
            next.len += n;
        }
        peak = peak.max(current.bytes() + next.bytes() + runs.bytes_in_memory());
        if next.len == 0 {
            complete = true;
            break;
        }
        depth += 1;
        sizes.push(next.len);
        on_layer(LayerReport {
            depth,
            size: next.len,
            bytes_in_memory: current.bytes() + next.bytes(),
            bytes_on_disk: runs.bytes_on_disk(),
        });
        drop(runs);
        previous = std::mem::replace(&mut current, next);
    }
    let last = current.chunks(LAST_LISTED).next().unwrap_or_default();
    Ok(Frontier {
        layer_sizes: sizes,
        complete,
        last,
        peak_bytes: peak,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{Parity, ParitySpace};
    use crate::board::Board;
    use crate::shape::Shape;

    fn run(r: usize, c: usize, d: u32, scratch: Option<&Path>) -> Frontier {
        let shape = Shape::new(r, c).unwrap();
        let space = ParitySpace::new(shape, Parity::Even).unwrap();
        let seed = space.rank(&Board::goal(shape)).unwrap();
        search(&space, seed, d, scratch, |_| {}).unwrap()
    }

    /// 4x4 to depth 20: OEIS A089484, d = 0..20; not complete.
    #[test]
    fn four_by_four_to_depth_20_is_a089484() {
        let a089484 = [
            1u64, 2, 4, 10, 24, 54, 107, 212, 446, 946, 1948, 3938, 7808, 15544, 30821, 60842,
            119000, 231844, 447342, 859744, 1637383,
        ];
        let f = run(4, 4, 20, None);
        assert_eq!(f.layer_sizes, a089484);
        assert!(!f.complete);
        assert_eq!(f.last.len(), LAST_LISTED);
    }

    /// 3x3 beyond its radius, with the runs on disk: OEIS A089473 and both antipodes.
    #[test]
    fn three_by_three_to_the_end_is_complete() {
        let dir = tempfile::tempdir().unwrap();
        let f = run(3, 3, 40, Some(dir.path()));
        assert!(f.complete);
        assert_eq!(f.layer_sizes.len(), 32);
        assert_eq!(f.layer_sizes.iter().sum::<u64>(), 181_440);
        assert_eq!(f.last.len(), 2);
        let space = ParitySpace::new(Shape::new(3, 3).unwrap(), Parity::Even).unwrap();
        let mut labels: Vec<String> = f.last.iter().map(|&i| space.unrank(i).label()).collect();
        labels.sort();
        assert_eq!(labels, ["647859321", "867254391"]);
    }

    #[test]
    fn subtract_removes_both_layers() {
        assert_eq!(subtract(vec![1, 2, 3, 5, 8], &[2, 8], &[3, 4]), [1, 5]);
    }
}
