//! Writing a table: from a finished analysis ([`write()`], to a file or to memory), or
//! streamed from a distributed run's marks ([`Spool`]).

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
    write_to(Target::File(path), analysis)
}

/// The table of `analysis` in memory, the bytes [`write()`] writes to its file, in an
/// anonymous memory map ([`super::DistanceTable::from_analysis`]).
///
/// # Errors
/// As [`write()`]; [`TableError::Io`] when the memory cannot be mapped (out of memory).
pub(super) fn in_memory(analysis: &Analysis) -> Result<memmap2::Mmap, TableError> {
    let mut map = None;
    write_to(Target::Memory(&mut map), analysis)?;
    map.ok_or_else(|| TableError::Unsupported("no table was made (a bug)".into()))
}

/// Where a table's bytes go ([`finish`]).
pub(super) enum Target<'a> {
    /// A file, written to a temporary name and renamed over it.
    File(&'a Path),
    /// Memory: an anonymous map of the table's length, made read-only once written.
    Memory(&'a mut Option<memmap2::Mmap>),
}

/// [`write()`] to `target`.
fn write_to(target: Target<'_>, analysis: &Analysis) -> Result<(), TableError> {
    if let Some(marked) = &analysis.marked {
        return write_marks(target, analysis, marked);
    }
    let boards = analysis.per_board.as_ref().map_or(0, |p| p.layout().1);
    write_blocks_to(target, analysis, rare_limit(boards), BLOCK_SHIFT)
}

/// Writes the table whose codes are the finished marks of `analysis` ([`Codes::Marks`]): the
/// header, the listed layers and the marks' bytes as they lie in memory, with no other copy
/// (a [`Target::Memory`] holds one, the table's own).
pub(super) fn write_marks(
    target: Target<'_>,
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
                target,
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

/// The end of a table after its header `head` and its codes `codes`: the CRC of each block
/// of `2^shift` bytes of codes, then the CRC of the header and those.
fn tail(head: &[u8], codes: &[u8], shift: u32) -> Vec<u8> {
    let mut tail = block_crcs(codes, shift);
    let crc = checksum(&[head, &tail]);
    tail.extend_from_slice(&crc.to_le_bytes());
    tail
}

/// The length of [`tail`] after `codes` bytes of codes.
fn tail_len(codes: usize, shift: u32) -> usize {
    4 * codes.div_ceil(1 << shift) + 4
}

/// Writes `head`, `codes` and their [`tail`] to `target`: a file atomically, or memory.
fn finish(target: Target<'_>, head: &[u8], codes: &[u8], shift: u32) -> Result<(), TableError> {
    match target {
        Target::File(path) => {
            let tail = tail(head, codes, shift);
            crate::export::write_atomically(path, |out| {
                out.write_all(head)?;
                out.write_all(codes)?;
                out.write_all(&tail)
            })
            .map_err(|e| TableError::Io {
                path: path.display().to_string(),
                source: io::Error::other(e.to_string()),
            })
        }
        Target::Memory(slot) => {
            let mut map = table_map(head.len(), codes.len(), shift)?;
            map[..head.len()].copy_from_slice(head);
            map[head.len()..][..codes.len()].copy_from_slice(codes);
            *slot = Some(seal(map, head.len(), codes.len(), shift)?);
            Ok(())
        }
    }
}

/// An anonymous memory map of the length of a table of `head` bytes of header and `codes`
/// bytes of codes in blocks of `2^shift` bytes, zeroed.
///
/// # Errors
/// [`TableError::Io`] when the memory cannot be mapped (out of memory).
fn table_map(head: usize, codes: usize, shift: u32) -> Result<memmap2::MmapMut, TableError> {
    let len = head + codes + tail_len(codes, shift);
    memmap2::MmapMut::map_anon(len).map_err(memory_error(len))
}

/// The table of `map` ([`table_map`]), its header (`head` bytes) and codes (`codes` bytes) in
/// place: its [`tail`] put after them, and the map made read-only.
fn seal(
    mut map: memmap2::MmapMut,
    head: usize,
    codes: usize,
    shift: u32,
) -> Result<memmap2::Mmap, TableError> {
    let (body, end) = map.split_at_mut(head + codes);
    end.copy_from_slice(&tail(&body[..head], &body[head..], shift));
    let len = map.len();
    map.make_read_only().map_err(memory_error(len))
}

/// The error of an anonymous map of `len` bytes that cannot be had.
fn memory_error(len: usize) -> impl Fn(io::Error) -> TableError {
    move |e| TableError::Io {
        path: super::IN_MEMORY.to_string(),
        source: io::Error::new(e.kind(), format!("the table's {len} bytes: {e}")),
    }
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
    write_blocks_to(Target::File(path), analysis, limit, shift)
}

/// [`write_blocks`] to `target`.
fn write_blocks_to(
    target: Target<'_>,
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
    let kind = (layout, Codes::Mod3, boards);
    let codes_len = boards.div_ceil(4) as usize;
    let listed = |codes: &mut [u8]| mod3_codes(per_board, &rare, boards, codes);
    match target {
        Target::File(path) => {
            let mut codes = vec![0u8; codes_len];
            let listed = listed(&mut codes);
            let head = header(Meta::of(analysis), kind, (limit, shift), listed);
            finish(Target::File(path), &head, &codes, shift)
        }
        Target::Memory(slot) => {
            // The codes made in place, after the header's room (its length known from the
            // layers): the table's bytes are in memory once.
            let rare_boards: u64 = layers.iter().filter(|&&size| size <= limit).sum();
            let head_len = header(Meta::of(analysis), kind, (limit, shift), std::iter::empty())
                .len()
                + 8 * rare_boards as usize;
            let mut map = table_map(head_len, codes_len, shift)?;
            let listed = listed(&mut map[head_len..][..codes_len]);
            let head = header(Meta::of(analysis), kind, (limit, shift), listed);
            if head.len() != head_len {
                return Err(TableError::Unsupported(format!(
                    "the analysis's layers and its per-board depths disagree ({} bytes of \
                     header where its layers make {head_len}; a bug)",
                    head.len()
                )));
            }
            map[..head_len].copy_from_slice(&head);
            *slot = Some(seal(map, head_len, codes_len, shift)?);
            Ok(())
        }
    }
}

/// Packs the depth of each board of `per_board` mod 3 ([`Codes::Mod3`], [`UNREACHED`] for a
/// board the goal does not reach) into `codes`, four boards a byte, in one parallel pass;
/// returns the indices of the boards of the layers `rare` marks, by depth then index.
fn mod3_codes(
    per_board: &crate::analysis::PerBoard,
    rare: &[bool],
    boards: u64,
    codes: &mut [u8],
) -> impl Iterator<Item = u64> + use<> {
    // One pass: the codes, and the boards of the rare layers by chunk.
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
    listed.into_iter().map(|(_, i)| i)
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
