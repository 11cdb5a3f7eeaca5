//! Writing a table: from a finished analysis ([`write()`]), or streamed from a distributed
//! run's marks ([`Spool`]).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::analysis::{Analysis, Engine, TableMarks, rare_limit};
use crate::bfs::{Parity, ParitySpace, StateIndex, StateSpace};
use crate::board::Board;
use crate::durable::TempFile;
use crate::metric::Metric;

use super::{
    BLOCK_SHIFT, BLOCK_SHIFTS, Codes, FORMAT_VERSION, MAGIC, TableError, UNREACHED, checksum,
};

/// Writes the table of `analysis` to `path` atomically (a temporary file renamed over it).
///
/// # Errors
/// [`TableError::Unsupported`] when the analysis kept no per-board depths (it must be run with
/// [`crate::analysis::Options::per_board`]); [`TableError::Io`] when the file cannot be
/// written (`path` is then untouched).
pub fn write(path: &Path, analysis: &Analysis) -> Result<(), TableError> {
    if let Some(marked) = &analysis.marked {
        return write_marks(path, analysis, marked);
    }
    let boards = analysis.per_board.as_ref().map_or(0, |p| p.layout().1);
    write_with(path, analysis, rare_limit(boards))
}

/// Writes the table whose codes are the finished marks of `analysis` ([`Codes::Marks`]): the
/// header, the listed layers and the marks' bytes as they lie in memory, with no other copy.
pub(super) fn write_marks(
    path: &Path,
    analysis: &Analysis,
    marked: &TableMarks,
) -> Result<(), TableError> {
    let boards = marked.space.size();
    let listed = marked
        .listed
        .iter()
        .flat_map(|(_, boards)| boards.iter().map(|i| i.0));
    let head = header(
        Meta::of(analysis),
        (Engine::Parity, Codes::Marks, boards),
        (marked.limit, BLOCK_SHIFT),
        listed,
    );
    // SAFETY: the analysis is finished: no thread changes its marks any more.
    unsafe {
        marked.marks.with_bytes(|bytes| {
            finish(
                path,
                &head,
                &bytes[..boards.div_ceil(4) as usize],
                BLOCK_SHIFT,
            )
        })
    }
}

/// What a table's header says of its analysis: the goal (and so the shape), the metric, and
/// the layer sizes from depth 0.
#[derive(Clone, Copy)]
struct Meta<'a> {
    goal: &'a Board,
    metric: Metric,
    layers: &'a [u64],
}

impl<'a> Meta<'a> {
    fn of(analysis: &'a Analysis) -> Meta<'a> {
        Meta {
            goal: &analysis.goal,
            metric: analysis.metric,
            layers: &analysis.distances.layer_sizes,
        }
    }
}

/// The header of a table (see the module documentation), up to the codes.
fn header(
    meta: Meta<'_>,
    (layout, codes, boards): (Engine, Codes, u64),
    (limit, shift): (u64, u32),
    listed: impl Iterator<Item = u64>,
) -> Vec<u8> {
    let layers = meta.layers;
    let mut head = Vec::new();
    head.extend_from_slice(&MAGIC);
    head.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    let shape = meta.goal.shape();
    head.extend_from_slice(&(shape.rows() as u32).to_le_bytes());
    head.extend_from_slice(&(shape.cols() as u32).to_le_bytes());
    head.extend_from_slice(&meta.metric.code().to_le_bytes());
    head.extend_from_slice(&(layout as u32).to_le_bytes());
    head.extend_from_slice(&(codes as u32).to_le_bytes());
    head.extend_from_slice(&shift.to_le_bytes());
    head.extend_from_slice(meta.goal.permutation());
    head.extend_from_slice(&(layers.len().saturating_sub(1) as u32).to_le_bytes());
    for &size in layers {
        head.extend_from_slice(&size.to_le_bytes());
    }
    head.extend_from_slice(&boards.to_le_bytes());
    head.extend_from_slice(&limit.to_le_bytes());
    // The boards of the rare layers, by depth then index.
    for i in listed {
        head.extend_from_slice(&i.to_le_bytes());
    }
    head
}

/// The CRC-32 of each block of `2^shift` bytes of `codes`, little-endian, in order,
/// computed in parallel.
fn block_crcs(codes: &[u8], shift: u32) -> Vec<u8> {
    codes
        .par_chunks(1 << shift)
        .map(crc32fast::hash)
        .collect::<Vec<u32>>()
        .into_iter()
        .flat_map(u32::to_le_bytes)
        .collect()
}

/// Writes `head`, `codes`, the CRC of each block of `2^shift` bytes of codes and the CRC of
/// the header and those to `path` atomically.
fn finish(path: &Path, head: &[u8], codes: &[u8], shift: u32) -> Result<(), TableError> {
    let blocks = block_crcs(codes, shift);
    let crc = checksum(&[head, &blocks]);
    crate::export::write_atomically(path, |out| {
        out.write_all(head)?;
        out.write_all(codes)?;
        out.write_all(&blocks)?;
        out.write_all(&crc.to_le_bytes())
    })
    .map_err(|e| TableError::Io {
        path: path.display().to_string(),
        source: io::Error::other(e.to_string()),
    })
}

/// [`write()`] with `limit` as [`rare_limit`] (tests use small ones, to reach the rejection
/// draws).
///
/// # Errors
/// As [`write()`].
pub fn write_with(path: &Path, analysis: &Analysis, limit: u64) -> Result<(), TableError> {
    write_blocks(path, analysis, limit, BLOCK_SHIFT)
}

/// [`write_with`] with checksum blocks of `2^shift` bytes of codes rather than
/// [`BLOCK_SHIFT`]'s (tests use small ones, to have many blocks on a small board). Only for
/// tables of per-board depths ([`Codes::Mod3`]).
///
/// # Errors
/// As [`write()`]; [`TableError::Unsupported`] for a `shift` outside 6..=40.
#[doc(hidden)]
pub fn write_blocks(
    path: &Path,
    analysis: &Analysis,
    limit: u64,
    shift: u32,
) -> Result<(), TableError> {
    if !BLOCK_SHIFTS.contains(&shift) {
        return Err(TableError::Unsupported(format!(
            "checksum blocks of 2^{shift} bytes"
        )));
    }
    let per_board = analysis.per_board.as_ref().ok_or_else(|| {
        TableError::Unsupported(
            "the analysis kept no per-board depths to save as a table".to_string(),
        )
    })?;
    let (layout, boards) = per_board.layout();
    let layers = &analysis.distances.layer_sizes;
    let rare: Vec<bool> = layers.iter().map(|&size| size <= limit).collect();
    // One pass: the codes, and the boards of the rare layers by chunk.
    let mut codes = vec![0u8; boards.div_ceil(4) as usize];
    const CHUNK: usize = 1 << 16;
    let mut listed: Vec<(u8, u64)> = codes
        .par_chunks_mut(CHUNK)
        .enumerate()
        .flat_map_iter(|(chunk, bytes)| {
            let mut found = Vec::new();
            for (k, out) in bytes.iter_mut().enumerate() {
                let first = ((chunk * CHUNK + k) * 4) as u64;
                let mut packed = 0u8;
                for j in 0..4 {
                    let i = first + j;
                    let code = match (i < boards).then(|| per_board.depth_at(i)).flatten() {
                        Some(d) => {
                            if rare.get(d as usize).copied().unwrap_or(false) {
                                found.push((d, i));
                            }
                            d % 3
                        }
                        None => UNREACHED,
                    };
                    packed |= code << (2 * j);
                }
                *out = packed;
            }
            found
        })
        .collect();
    listed.par_sort_unstable();
    let head = header(
        Meta::of(analysis),
        (layout, Codes::Mod3, boards),
        (limit, shift),
        listed.into_iter().map(|(_, i)| i),
    );
    finish(path, &head, &codes, shift)
}

/// A [`Codes::Marks`] table written as a distributed run streams its marks to process 0
/// ([`crate::analysis::analyze_cluster`]): the same bytes as the one-machine table of the
/// same analysis. The file is written to a temporary name beside `path` and renamed over it
/// once every byte and the checksum are written and synced; dropped before, it is removed.
pub struct Spool {
    path: PathBuf,
    goal: Board,
    metric: Metric,
    /// The parity index's size, `n!/2`.
    boards: u64,
    out: Option<io::BufWriter<TempFile>>,
    /// The CRC of the header, then of the blocks' CRCs.
    crc: crc32fast::Hasher,
    /// The CRCs of the finished blocks of codes, and the CRC of the open one.
    blocks: Vec<u32>,
    block: crc32fast::Hasher,
    /// Bytes of codes written.
    written: u64,
}

impl Spool {
    /// A spool for the single-tile table of `goal`'s BFS in `metric`, to be written at
    /// `path` (its temporary file is created now).
    ///
    /// # Errors
    /// [`TableError::Unsupported`] when such a table is not made from the marks
    /// ([`crate::analysis::table_from_marks`]); [`TableError::Io`] when the temporary file
    /// cannot be created.
    pub fn create(path: &Path, goal: &Board, metric: Metric) -> Result<Spool, TableError> {
        let shape = goal.shape();
        let space = ParitySpace::with_metric(shape, Parity::of(goal), metric)
            .filter(|_| crate::analysis::table_from_marks(shape, metric))
            .ok_or_else(|| {
                TableError::Unsupported(format!(
                    "a distributed run writes the single-tile tables of boards of 2 rows and \
                     2 columns or more; {shape} in {} is not one",
                    metric.long_name()
                ))
            })?;
        let tmp = crate::durable::temp_beside(path).map_err(|source| TableError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Ok(Spool {
            path: path.to_path_buf(),
            goal: goal.clone(),
            metric,
            boards: space.size(),
            out: Some(io::BufWriter::with_capacity(1 << 20, tmp)),
            crc: crc32fast::Hasher::new(),
            blocks: Vec::new(),
            block: crc32fast::Hasher::new(),
            written: 0,
        })
    }

    fn writer(&mut self) -> io::Result<&mut io::BufWriter<TempFile>> {
        self.out
            .as_mut()
            .ok_or_else(|| io::Error::other("the table was already committed"))
    }

    /// Writes `bytes` of the header and adds them to its checksum.
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.crc.update(bytes);
        self.writer()?.write_all(bytes)
    }

    /// Writes `bytes` of codes, the `self.written`-th byte first, and adds them to the
    /// CRCs of their blocks (whole blocks computed in parallel).
    fn put_codes(&mut self, bytes: &[u8]) -> io::Result<()> {
        let size = 1usize << BLOCK_SHIFT;
        let filled = (self.written % size as u64) as usize;
        let mut rest = bytes;
        if filled > 0 {
            let take = rest.len().min(size - filled);
            self.block.update(&rest[..take]);
            rest = &rest[take..];
            if filled + take == size {
                let done = std::mem::replace(&mut self.block, crc32fast::Hasher::new());
                self.blocks.push(done.finalize());
            }
        }
        let whole = rest.len() / size * size;
        let crcs: Vec<u32> = rest[..whole]
            .par_chunks(size)
            .map(crc32fast::hash)
            .collect();
        self.blocks.extend(crcs);
        self.block.update(&rest[whole..]);
        self.written += bytes.len() as u64;
        self.writer()?.write_all(bytes)
    }

    fn failed(&self, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("{}: {e}", self.path.display()))
    }
}

impl crate::bfs::cluster::MarksSink for Spool {
    fn begin(
        &mut self,
        layers: &[u64],
        limit: u64,
        listed: &[(u32, Vec<StateIndex>)],
    ) -> io::Result<()> {
        let meta = Meta {
            goal: &self.goal,
            metric: self.metric,
            layers,
        };
        let head = header(
            meta,
            (Engine::Parity, Codes::Marks, self.boards),
            (limit, BLOCK_SHIFT),
            listed
                .iter()
                .flat_map(|(_, boards)| boards.iter().map(|i| i.0)),
        );
        self.put(&head).map_err(|e| self.failed(e))
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.written + bytes.len() as u64 > self.boards.div_ceil(4) {
            return Err(self.failed(io::Error::other("more codes than the table has boards")));
        }
        self.put_codes(bytes).map_err(|e| self.failed(e))
    }

    fn end(&mut self) -> io::Result<()> {
        if self.written != self.boards.div_ceil(4) {
            return Err(self.failed(io::Error::other(format!(
                "{} bytes of codes where the table has {}",
                self.written,
                self.boards.div_ceil(4)
            ))));
        }
        if self.written % (1u64 << BLOCK_SHIFT) != 0 {
            let last = std::mem::replace(&mut self.block, crc32fast::Hasher::new());
            self.blocks.push(last.finalize());
        }
        let blocks: Vec<u8> = self.blocks.iter().flat_map(|c| c.to_le_bytes()).collect();
        let mut crc = self.crc.clone();
        crc.update(&blocks);
        let crc = crc.finalize();
        let result = (|| {
            let mut out = self
                .out
                .take()
                .ok_or_else(|| io::Error::other("committed twice"))?;
            out.write_all(&blocks)?;
            out.write_all(&crc.to_le_bytes())?;
            let tmp = out.into_inner().map_err(io::IntoInnerError::into_error)?;
            crate::durable::commit(tmp, &self.path)
        })();
        result.map_err(|e| self.failed(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Options, analyze_unchecked};
    use crate::progress::NoProgress;
    use crate::shape::Shape;

    /// Issue 25, the cluster's tables: every grid up to 10 cells, from the standard goal and
    /// one of the other class with the blank inside, on one process of 1 and 3 worker threads:
    /// the table process 0 streams ([`Spool`]) is byte for byte the one-machine table (codes,
    /// listed layers, checksum). (Several processes: tests/suite/cluster.rs.)
    #[test]
    fn a_distributed_run_streams_the_one_machine_table() {
        use crate::bfs::cluster::Cluster;
        let dir = tempfile::tempdir().unwrap();
        let options = Options {
            per_board: false,
            metric: Metric::Stm,
            table: true,
            search_components: false,
        };
        for shape in Shape::all_up_to(10).filter(|s| s.is_grid()) {
            let goals = Board::test_goals(shape);
            for goal in &goals {
                let one = dir.path().join("one.npt");
                let a = analyze_unchecked(goal, options, &NoProgress).unwrap();
                write(&one, &a).unwrap();
                let want = std::fs::read(&one).unwrap();
                for workers in [1, 3] {
                    let cluster = Cluster::local(workers);
                    let path = dir.path().join("cluster.npt");
                    let spool = Spool::create(&path, goal, Metric::Stm).unwrap();
                    let c = crate::analysis::analyze_cluster(
                        goal,
                        options,
                        &cluster,
                        &NoProgress,
                        Some(Box::new(spool)),
                    )
                    .unwrap()
                    .unwrap();
                    assert!(c.table_written);
                    let got = std::fs::read(&path).unwrap();
                    assert!(got == want, "{shape} {} {workers} workers", goal.label());
                }
            }
        }
    }
}
