//! Reading a table: [`DistanceTable`] opened and checked (header, length, the CRCs of its
//! blocks of codes, [`Check`]) or built in memory from an analysis, its header's fields, and
//! the depth class of a board's code.

use std::io;
use std::path::Path;

use rayon::prelude::*;

use crate::analysis::{Analysis, Engine};
use crate::bfs::{Parity, ParitySpace, Sides, StateSpace};
use crate::board::Board;
use crate::metric::Metric;
use crate::shape::Shape;

use super::{
    BLOCK_SHIFTS, CORRUPT, Codes, FORMAT_VERSION, IN_MEMORY, MAGIC, TableError, UNREACHED, checksum,
};

/// States of a checksum block of an opened table.
const UNCHECKED: u8 = 0;
const GOOD: u8 = 1;
const BAD: u8 = 2;

/// An opened table (see the module documentation).
pub struct DistanceTable {
    /// The file, as messages name it (`(in memory)` for a table built in memory).
    pub(super) path: String,
    /// The table's bytes: the file's memory map, or an anonymous one
    /// ([`DistanceTable::from_analysis`]).
    pub(super) map: memmap2::Mmap,
    pub(super) shape: Shape,
    pub(super) metric: Metric,
    layout: Engine,
    kind: Codes,
    pub(super) goal: Board,
    pub(super) layers: Vec<u64>,
    /// Where the codes start in the file.
    pub(super) codes: usize,
    /// [`rare_limit`](crate::analysis::rare_limit) of the file.
    limit: u64,
    /// Where each listed layer's indices start in the file (`None` for the other layers).
    pub(super) listed: Vec<Option<usize>>,
    pub(super) boards: u64,
    /// The index of the goal's class (parity layout).
    pub(super) space: Option<ParitySpace>,
    /// The sides of the boards and the goal's ([`Codes::Marks`]).
    pub(super) sides: Option<(Sides, u64)>,
    /// The checksum blocks: `2^shift` bytes of codes each, their CRCs from byte `crcs` of the
    /// file, and the state of each ([`UNCHECKED`], [`GOOD`], [`BAD`]). A table checked whole
    /// at open (format 1) or opened without checks has one block, [`GOOD`].
    shift: u32,
    crcs: usize,
    blocks: Box<[std::sync::atomic::AtomicU8]>,
    /// Every block is [`GOOD`]: the reads skip the per-block check (set at open for one
    /// [`GOOD`] block, and by [`DistanceTable::check_all`] when it finds no damage).
    whole: std::sync::atomic::AtomicBool,
}

/// How [`DistanceTable::open_checking`] checks the codes of a table against their CRCs (its
/// header, its length and the CRC of its header and block CRCs are checked in every case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Every block now, in parallel, before the table is returned: one pass over the file.
    Whole,
    /// Each block the first time a code in it is read: no pass over the file, and a walk
    /// that needs a code of a damaged block is an error naming the block.
    OnRead,
    /// None: the codes are taken as they are (each walk still checks itself, which catches
    /// most damage but not all).
    Skip,
}

impl DistanceTable {
    /// Opens `path` (a `table.npt`, or a folder holding one) by memory map and checks its
    /// header, its length and the CRC of its header and block CRCs, and when `verify` every
    /// block of codes against its CRC before returning ([`Check::Whole`]; [`Check::Skip`]
    /// otherwise). [`DistanceTable::open_checking`] can check each block on its first read
    /// instead.
    ///
    /// # Errors
    /// As [`DistanceTable::open_checking`].
    pub fn open(path: &Path, verify: bool) -> Result<DistanceTable, TableError> {
        let check = if verify { Check::Whole } else { Check::Skip };
        DistanceTable::open_checking(path, check)
    }

    /// Opens `path` (a `table.npt`, or a folder holding one) by memory map and checks its
    /// header, its length and the CRC of its header and block CRCs, then its codes as `check`
    /// says (the module documentation). A file of format 1 (one CRC over the whole file) is
    /// checked whole now unless `check` is [`Check::Skip`].
    ///
    /// # Errors
    /// [`TableError::Io`] when it cannot be read, [`TableError::Invalid`] naming the fault
    /// (a damaged header or list of CRCs, a wrong length; a damaged block with
    /// [`Check::Whole`]; a format-1 file whose checksum does not match).
    pub fn open_checking(path: &Path, check: Check) -> Result<DistanceTable, TableError> {
        let path = if path.is_dir() {
            path.join("table.npt")
        } else {
            path.to_path_buf()
        };
        let name = path.display().to_string();
        let io_err = |source| TableError::Io {
            path: name.clone(),
            source,
        };
        // Not a FIFO or a device: a table is a regular file, opened without blocking.
        let file = crate::durable::open_regular(&path).map_err(|e| {
            // A folder whose table a later analysis without --table set aside into stale/.
            let stale = path.with_file_name("stale").join("table.npt");
            if e.kind() == io::ErrorKind::NotFound && stale.is_file() {
                TableError::Invalid {
                    path: name.clone(),
                    why: format!(
                        "no table here, but an older one is in {}: a later `analyze` without \
                         {table} set it aside; run the analysis again with {table} (or give \
                         that file, if its run is the one you want)",
                        stale.display(),
                        table = crate::frontend::arg(crate::frontend::Input::Table, ""),
                    ),
                }
            } else {
                io_err(e)
            }
        })?;
        // SAFETY: the file is only read; a table is replaced by rename, never rewritten in
        // place, so the mapped bytes do not change under us. (A file truncated under the map
        // by someone else faults on access, SIGBUS: the binary reports it, see `mapped`.)
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io_err)?;
        DistanceTable::read(name, map, check)
    }

    /// The table of a finished analysis, built in memory: the table
    /// [`crate::table::write()`] writes and [`DistanceTable::open`] reads, the same bytes,
    /// read by the same code, with no file. Its shape, metric, goal, layers and codes are
    /// those of the file, and so are its answers; its messages name it `(in memory)` where a
    /// file's would give its path.
    ///
    /// What it needs of `analysis` is what [`crate::table::write()`] needs: the marks kept as
    /// the table ([`crate::analysis::Options::table`]; the single-tile tables of grids, up to
    /// the parity index's 20 cells as memory allows) or every board's depth
    /// ([`crate::analysis::Options::per_board`]; every other table, up to
    /// [`crate::analysis::SEARCH_CELLS`] cells). A partial analysis (a depth limit) has
    /// neither.
    ///
    /// Memory: the table's bytes, the file's length (two bits a board, and the header's
    /// listed layers), in an anonymous memory map held for the table's life
    /// ([`DistanceTable::mapped`]), beside the analysis until the caller drops it: the codes
    /// are copied from the marks, or made from every board's depth straight into the map,
    /// with no second copy. The header and the CRCs are checked as [`DistanceTable::open`]
    /// checks them; the codes, made here from the analysis, are not checked again
    /// ([`Check::Skip`]).
    ///
    /// # Errors
    /// [`TableError::Unsupported`] when the analysis kept neither (as
    /// [`crate::table::write()`]); [`TableError::Io`] when the memory cannot be had (out of
    /// memory).
    pub fn from_analysis(analysis: &Analysis) -> Result<DistanceTable, TableError> {
        let map = super::write::in_memory(analysis)?;
        DistanceTable::read(IN_MEMORY.to_string(), map, Check::Skip)
    }

    /// The table whose bytes are `map` (a file's or [`DistanceTable::from_analysis`]'s),
    /// named `name` in its messages: its header, its length and the CRC of its header and
    /// block CRCs checked, then its codes as `check` says ([`DistanceTable::open_checking`]).
    fn read(name: String, map: memmap2::Mmap, check: Check) -> Result<DistanceTable, TableError> {
        let invalid = |why: String| TableError::Invalid {
            path: name.clone(),
            why,
        };
        let mut at = 0usize;
        let mut take = |len: usize| -> Result<&[u8], TableError> {
            let bytes = map
                .get(at..at + len)
                .ok_or_else(|| invalid(format!("truncated ({} bytes)", map.len())))?;
            at += len;
            Ok(bytes)
        };
        let word = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap_or_default());
        if take(8)? != MAGIC {
            return Err(invalid("not a distance table (wrong magic bytes)".into()));
        }
        let version = word(take(4)?);
        if version != 1 && version != FORMAT_VERSION {
            return Err(invalid(format!(
                "format version {version}, this npuzzle reads 1 and {FORMAT_VERSION}: write \
                 the table again with this npuzzle ({})",
                crate::frontend::current().table_command("")
            )));
        }
        let (rows, cols) = (word(take(4)?) as usize, word(take(4)?) as usize);
        let shape = Shape::new(rows, cols).map_err(|e| invalid(format!("corrupt header: {e}")))?;
        let m = word(take(4)?);
        let metric =
            Metric::from_code(m).ok_or_else(|| invalid(format!("corrupt header: metric {m}")))?;
        let layout = match word(take(4)?) {
            1 => Engine::Parity,
            2 => Engine::Lex,
            l => return Err(invalid(format!("corrupt header: index layout {l}"))),
        };
        let kind = match word(take(4)?) {
            1 => Codes::Mod3,
            2 if layout == Engine::Parity && metric.is_bipartite() => Codes::Marks,
            c => return Err(invalid(format!("corrupt header: codes {c}"))),
        };
        let shift = match version {
            1 => None,
            _ => match word(take(4)?) {
                s if BLOCK_SHIFTS.contains(&s) => Some(s),
                s => return Err(invalid(format!("corrupt header: blocks of 2^{s} bytes"))),
            },
        };
        let goal = Board::from_permutation(shape, take(shape.cells())?.to_vec())
            .map_err(|e| invalid(format!("corrupt header: the goal: {e}")))?;
        let radius = word(take(4)?) as usize;
        if radius > 10_000 {
            return Err(invalid(format!("corrupt header: radius {radius}")));
        }
        let mut layers = Vec::with_capacity(radius + 1);
        for _ in 0..=radius {
            layers.push(u64::from_le_bytes(take(8)?.try_into().unwrap_or_default()));
        }
        let boards = u64::from_le_bytes(take(8)?.try_into().unwrap_or_default());
        let expected = match layout {
            Engine::Parity => shape.board_count().map(|n| n / 2),
            Engine::Lex => shape.board_count(),
        };
        if Some(boards) != expected {
            return Err(invalid(format!(
                "corrupt header: {boards} boards for a {shape} table"
            )));
        }
        let limit = u64::from_le_bytes(take(8)?.try_into().unwrap_or_default());
        let mut listed = Vec::with_capacity(layers.len());
        for &size in &layers {
            if size <= limit {
                let bytes = usize::try_from(size.saturating_mul(8))
                    .map_err(|_| invalid(format!("corrupt header: a layer of {size}")))?;
                let list = take(bytes)?;
                listed.push(Some(list.as_ptr() as usize - map.as_ptr() as usize));
            } else {
                listed.push(None);
            }
        }
        let codes = at;
        let codes_len = boards.div_ceil(4);
        let count = shift.map_or(0, |s| codes_len.div_ceil(1 << s));
        let whole = codes as u64 + codes_len + 4 * count + 4;
        if map.len() as u64 != whole {
            return Err(invalid(format!(
                "{} bytes, a {shape} table has {whole} (truncated or extended)",
                map.len()
            )));
        }
        let crcs = codes + codes_len as usize;
        let (body, stored) = map.split_at(map.len() - 4);
        let all_good = || Box::new([std::sync::atomic::AtomicU8::new(GOOD)]) as Box<[_]>;
        let (shift, blocks): (u32, Box<[std::sync::atomic::AtomicU8]>) = match shift {
            Some(s) => {
                // The header and the blocks' CRCs, always: a few kilobytes and the listed
                // layers.
                let mut crc = crc32fast::Hasher::new();
                crc.update(&map[..codes]);
                crc.update(&body[crcs..]);
                if crc.finalize().to_le_bytes() != stored {
                    return Err(invalid(
                        "corrupt: checksum mismatch in the header or the blocks' CRCs".into(),
                    ));
                }
                match check {
                    Check::Whole | Check::OnRead => {
                        (s, (0..count).map(|_| UNCHECKED.into()).collect())
                    }
                    Check::Skip => (u64::BITS - 1, all_good()),
                }
            }
            None => {
                // Format 1: one CRC over the whole file, checked whole on every open.
                if check != Check::Skip && checksum(&[body]).to_le_bytes() != stored {
                    return Err(invalid("corrupt: checksum mismatch".into()));
                }
                (u64::BITS - 1, all_good())
            }
        };
        let space = match layout {
            Engine::Parity => Some(
                ParitySpace::with_metric(shape, Parity::of(&goal), metric)
                    .ok_or_else(|| invalid("corrupt header: no parity index".into()))?,
            ),
            Engine::Lex => None,
        };
        let sides = match (kind, &space) {
            (Codes::Marks, Some(space)) => {
                let sides = space
                    .sides()
                    .ok_or_else(|| invalid("corrupt header: no sides".into()))?;
                let goal_side = sides.of(space.locate(goal.permutation()).unwrap_or_default());
                Some((sides, goal_side))
            }
            _ => None,
        };
        let table = DistanceTable {
            path: name,
            map,
            shape,
            metric,
            layout,
            kind,
            goal,
            layers,
            codes,
            limit,
            listed,
            boards,
            space,
            sides,
            whole: (blocks.len() == 1
                && blocks[0].load(std::sync::atomic::Ordering::Relaxed) == GOOD)
                .into(),
            shift,
            crcs,
            blocks,
        };
        if check == Check::Whole {
            table.check_all()?;
        }
        Ok(table)
    }

    /// Whether the block of codes holding byte `at` of the codes is whole: checked against
    /// its CRC on the first call for the block, remembered after. Out of line: the walks'
    /// innermost loop, which calls it only while [`DistanceTable::must_check`], keeps its
    /// shape (inlined, it cost the walks about 15 %).
    #[inline(never)]
    fn block_whole(&self, at: u64) -> bool {
        let block = (at >> self.shift) as usize;
        match self.blocks.get(block) {
            Some(state) if state.load(std::sync::atomic::Ordering::Relaxed) == GOOD => true,
            _ => self.check_block(block),
        }
    }

    /// Checks block `block` of the codes against its CRC (once: the verdict is kept).
    #[cold]
    #[inline(never)]
    fn check_block(&self, block: usize) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let Some(state) = self.blocks.get(block) else {
            return false;
        };
        match state.load(Relaxed) {
            GOOD => return true,
            BAD => return false,
            _ => {}
        }
        let (start, end) = self.block_range(block);
        let at = self.crcs + 4 * block;
        let stored = self.map.get(at..at + 4).unwrap_or_default();
        let whole = crc32fast::hash(&self.map[start..end]).to_le_bytes() == stored;
        // Two threads may check the same block at once: both find the same.
        state.store(if whole { GOOD } else { BAD }, Relaxed);
        whole
    }

    /// The bytes of the file that block `block` of the codes spans.
    fn block_range(&self, block: usize) -> (usize, usize) {
        let start = self.codes + (block << self.shift);
        let end = (start + (1 << self.shift)).min(self.crcs);
        (start, end)
    }

    /// The error of the first block of codes found damaged, if any.
    pub(super) fn damage(&self) -> Option<TableError> {
        let block = self
            .blocks
            .iter()
            .position(|s| s.load(std::sync::atomic::Ordering::Relaxed) == BAD)?;
        let (start, end) = self.block_range(block);
        Some(TableError::Invalid {
            path: self.path.clone(),
            why: format!(
                "corrupt: block {block} of the codes (bytes {start} to {}) fails its checksum \
                 (CRC-32); write the table again ({})",
                end - 1,
                crate::frontend::current().table_command("")
            ),
        })
    }

    /// Checks every block of codes not checked yet (in parallel), as walks would on their
    /// first reads: a full check of the table, one pass over its codes.
    ///
    /// # Errors
    /// [`TableError::Invalid`] naming the first damaged block.
    pub fn check_all(&self) -> Result<(), TableError> {
        (0..self.blocks.len()).into_par_iter().for_each(|b| {
            self.check_block(b);
        });
        let damage = self.damage();
        if damage.is_none() {
            self.whole.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        damage.map_or(Ok(()), Err)
    }

    /// Whether the reads must check their blocks: not once every block is known [`GOOD`].
    /// A group of more boards than blocks reads most blocks anyway, so it checks them all
    /// first (in parallel; a damaged block is then refused at its reads, as before), and its
    /// walks skip the per-read check (a check in the walk's innermost loop cost about 15 %).
    pub(super) fn must_check(&self, boards: usize) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        if !self.whole.load(Relaxed) && boards >= self.blocks.len() {
            let _ = self.check_all();
        }
        !self.whole.load(Relaxed)
    }

    /// Where the file lies in memory: the address of its first byte and its length. Reading
    /// a table whose file is truncated under the run faults (SIGBUS) at an address in this
    /// range; a program that handles that signal can tell the table's faults by it. A table
    /// built in memory ([`DistanceTable::from_analysis`]) gives its own bytes, which nothing
    /// truncates.
    pub fn mapped(&self) -> (usize, usize) {
        (self.map.as_ptr() as usize, self.map.len())
    }

    /// The board shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The metric of its distances.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// How its boards are indexed.
    pub fn layout(&self) -> Engine {
        self.layout
    }

    /// The goal it measures from.
    pub fn goal(&self) -> &Board {
        &self.goal
    }

    /// The layer sizes of the analysis, from depth 0; the radius is their count minus one.
    pub fn layers(&self) -> &[u64] {
        &self.layers
    }

    /// How its codes hold the depths.
    pub fn codes(&self) -> Codes {
        self.kind
    }

    /// The modulus of the depth class a code gives ([`DistanceTable::class_at`]).
    pub(super) fn modulus(&self) -> u8 {
        match self.kind {
            Codes::Mod3 => 3,
            Codes::Marks => 4,
        }
    }

    /// The depth class of the board of index `index`: its depth mod 3 ([`Codes::Mod3`]) or mod
    /// 4 ([`Codes::Marks`]), `None` when the goal cannot reach it, [`CORRUPT`] for a code no
    /// table holds.
    #[inline(always)]
    pub(super) fn class_at(&self, index: u64) -> Option<u8> {
        let rho = self
            .sides
            .as_ref()
            .map_or(0, |(sides, _)| index % sides.period);
        self.class_with(index, rho, true)
    }

    /// [`DistanceTable::class_at`] of a board whose index is `rho` modulo the period of the
    /// sides ([`Codes::Marks`]; in the parity layout, its blank's cell); its block checked
    /// first when `check` ([`DistanceTable::must_check`]).
    #[inline(always)]
    pub(super) fn class_with(&self, index: u64, rho: u64, check: bool) -> Option<u8> {
        if check && !self.block_whole(index / 4) {
            return Some(CORRUPT);
        }
        let byte = self.map[self.codes + (index / 4) as usize];
        let code = byte >> (2 * (index % 4)) & 3;
        match (self.kind, &self.sides) {
            (Codes::Mod3, _) => (code != UNREACHED).then_some(code),
            (Codes::Marks, Some((sides, goal_side))) => match code {
                0 => None,
                1 => Some(CORRUPT),
                _ => {
                    let side = (sides.odd >> rho & 1) ^ goal_side;
                    Some(2 * (code & 1) + side as u8)
                }
            },
            (Codes::Marks, None) => Some(CORRUPT),
        }
    }

    /// The largest layer the file lists board by board
    /// ([`rare_limit`](crate::analysis::rare_limit)).
    pub fn rare_limit(&self) -> u64 {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::rare_limit;
    use crate::analysis::{Options, analyze_unchecked};
    use crate::bfs::{StateIndex, StateSpace};
    use crate::progress::NoProgress;
    use crate::table::tests::analysis;
    use crate::table::{write, write_blocks};

    /// Issue 64: the table built in memory is the table written and opened. For 2x3, 3x3 and
    /// 2x4 in both metrics, from an analysis that kept the table's marks (where they are the
    /// table) and every board's depth, and from one that kept only every board's depth (the
    /// codes then depth mod 3 in both metrics): the same bytes as the file, the same header
    /// (shape, metric, layout, codes, goal, layers, listed layers), the same depth and walk
    /// of every board of the shape (both classes); from an analysis that kept neither, the
    /// same refusal as the writer's.
    #[test]
    fn a_table_built_in_memory_is_the_file() {
        let dir = tempfile::tempdir().unwrap();
        for (r, c) in [(2, 3), (3, 3), (2, 4)] {
            let shape = Shape::new(r, c).unwrap();
            for metric in Metric::ALL {
                let only_depths = Options {
                    per_board: true,
                    metric,
                    table: false,
                    search_components: false,
                };
                let analyses = [
                    analysis(r, c, metric),
                    analyze_unchecked(&Board::goal(shape), only_depths, &NoProgress).unwrap(),
                ];
                for (k, a) in analyses.iter().enumerate() {
                    let case = format!("{shape} {metric} analysis {k}");
                    let path = dir.path().join(format!("{r}x{c}-{metric}-{k}.npt"));
                    write(&path, a).unwrap();
                    let file = DistanceTable::open(&path, true).unwrap();
                    let memory = DistanceTable::from_analysis(a).unwrap();
                    assert!(
                        memory.map[..] == std::fs::read(&path).unwrap()[..],
                        "{case}: the bytes"
                    );
                    assert_eq!(memory.path, IN_MEMORY);
                    assert_eq!(memory.mapped().1, file.mapped().1, "{case}");
                    assert_eq!(
                        (
                            memory.shape(),
                            memory.metric(),
                            memory.layout(),
                            memory.codes()
                        ),
                        (file.shape(), file.metric(), file.layout(), file.codes()),
                        "{case}"
                    );
                    assert_eq!(memory.goal(), file.goal(), "{case}");
                    assert_eq!(memory.layers(), file.layers(), "{case}");
                    assert_eq!(memory.rare_limit(), file.rare_limit(), "{case}");
                    assert_eq!(memory.listed, file.listed, "{case}");
                    let want = match (k, metric.is_bipartite()) {
                        (0, true) => Codes::Marks,
                        _ => Codes::Mod3,
                    };
                    assert_eq!(memory.codes(), want, "{case}");
                    let boards: Vec<Board> =
                        (0..a.boards).map(|i| Board::from_rank(shape, i)).collect();
                    let cells: Vec<&[u8]> = boards.iter().map(Board::permutation).collect();
                    let depths = memory.depths_of(&cells);
                    assert!(depths.iter().all(Result::is_ok), "{case}");
                    assert_eq!(
                        depths
                            .iter()
                            .map(|d| *d.as_ref().unwrap())
                            .collect::<Vec<_>>(),
                        file.depths_of(&cells)
                            .into_iter()
                            .map(Result::unwrap)
                            .collect::<Vec<_>>(),
                        "{case}: the depths"
                    );
                    let per_board = a.per_board.as_ref().unwrap();
                    for (rank, depth) in (0..).zip(&depths) {
                        let (_, want) = per_board.get(cells[rank as usize], rank);
                        assert_eq!(*depth.as_ref().unwrap(), want.map(u32::from), "{case}");
                    }
                    let walks = memory.solve_many(&boards);
                    assert!(walks.iter().all(Result::is_ok), "{case}");
                    assert!(
                        walks
                            .into_iter()
                            .map(Result::unwrap)
                            .eq(file.solve_many(&boards).into_iter().map(Result::unwrap)),
                        "{case}: the walks"
                    );
                }
            }
        }
        let neither = Options {
            per_board: false,
            metric: Metric::Mtm,
            table: false,
            search_components: false,
        };
        let a = analyze_unchecked(
            &Board::goal(Shape::new(2, 3).unwrap()),
            neither,
            &NoProgress,
        )
        .unwrap();
        let path = dir.path().join("neither.npt");
        let wrote = write(&path, &a).unwrap_err().to_string();
        let built = DistanceTable::from_analysis(&a).err().unwrap().to_string();
        assert_eq!(built, wrote);
        assert!(!path.exists());
    }

    /// Header, length and checksum faults are refused with one line each; a board of another
    /// shape is refused; without verification a flipped code is caught by the walk or not at
    /// all, never looping.
    #[test]
    fn damaged_tables_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("table.npt");
        let a = analysis(2, 3, Metric::Stm);
        write(&path, &a).unwrap();
        let good = std::fs::read(&path).unwrap();
        let open = |bytes: &[u8], verify: bool| {
            std::fs::write(&path, bytes).unwrap();
            DistanceTable::open(&path, verify)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        assert_eq!(open(&good, true), Ok(()));
        let fail = |bytes: &[u8], verify: bool, want: &str| {
            let err = open(bytes, verify).unwrap_err();
            assert!(err.contains(want), "{err}");
            assert_eq!(err.lines().count(), 1, "{err}");
        };
        let mut flipped = good.clone();
        let last = flipped.len() - 10;
        flipped[last] ^= 0x40;
        fail(&flipped, true, "block 0 of the codes");
        fail(&flipped, true, "fails its checksum");
        fail(&good[..good.len() - 1], true, "truncated or extended");
        fail(&good[..20], true, "truncated");
        let mut longer = good.clone();
        longer.push(0);
        fail(&longer, false, "truncated or extended");
        let mut magic = good.clone();
        magic[0] = b'X';
        fail(&magic, true, "not a distance table");
        let mut version = good.clone();
        version[8] = 9;
        fail(&version, true, "format version 9");
        let mut rows = good.clone();
        rows[12] = 3; // 3x3 in the header: the length no longer fits.
        fail(&rows, false, "corrupt header");
        std::fs::write(&path, &good).unwrap();
        let table = DistanceTable::open(&path, true).unwrap();
        let other = Board::goal(Shape::square(3).unwrap());
        assert!(matches!(
            table.solve(&other),
            Err(TableError::WrongBoard(_))
        ));
        // The other class of 2x3 is not in the table: no solution.
        let odd = Board::parse_tiles(a.shape, "2 1 3 4 5 0").unwrap();
        assert_eq!(table.solve(&odd).unwrap(), None);
        // A damaged code, unverified: every board still ends, solved or refused.
        let mut damaged = good.clone();
        for byte in &mut damaged[good.len() - 60..good.len() - 8] {
            *byte = !*byte;
        }
        std::fs::write(&path, &damaged).unwrap();
        let table = DistanceTable::open(&path, false).unwrap();
        for rank in 0..720 {
            let _ = table.solve(&Board::from_rank(a.shape, rank));
        }
    }

    /// Issue 61: a byte flipped in one block of codes is found on the first read of that
    /// block, and only there: 3x3 written with blocks of 64 bytes (709 of them), a byte of
    /// block 200 flipped; the table opens (its header and CRCs are whole) with no block
    /// checked, every board whose walk reads no code of block 200 gets its true depth (a third
    /// of them tried), every other one an error naming the block, and only block 200 is bad.
    #[test]
    fn a_flipped_byte_is_found_on_the_first_read_of_its_block() {
        use std::sync::atomic::Ordering::Relaxed;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("table.npt");
        let a = analysis(3, 3, Metric::Stm);
        write_blocks(&path, &a, rare_limit(181_440), 6).unwrap();
        let good = DistanceTable::open(&path, true).unwrap();
        assert_eq!(good.blocks.len(), 709);
        let mut bytes = std::fs::read(&path).unwrap();
        let at = good.codes + 200 * 64 + 17;
        bytes[at] ^= 0x04;
        std::fs::write(&path, &bytes).unwrap();
        let table = DistanceTable::open_checking(&path, Check::OnRead).unwrap();
        assert!(table.blocks.iter().all(|b| b.load(Relaxed) == UNCHECKED));
        let e = DistanceTable::open(&path, true).err().unwrap().to_string();
        assert!(
            e.contains("block 200 of the codes") && e.contains("fails its checksum"),
            "{e}"
        );
        let space = table.space.as_ref().unwrap();
        let (mut answered, mut refused) = (0, 0);
        for i in (0..space.size()).step_by(3) {
            let board = space.unrank(StateIndex(i));
            match table.depth_of(board.permutation()) {
                Ok(d) => {
                    assert_eq!(d, good.depth_of(board.permutation()).unwrap(), "{i}");
                    answered += 1;
                }
                Err(e) => {
                    let e = e.to_string();
                    assert!(e.contains("block 200 of the codes"), "{e}");
                    refused += 1;
                }
            }
            // The board's own code: its block is checked now.
            let block = (i / 4 / 64) as usize;
            assert_ne!(table.blocks[block].load(Relaxed), UNCHECKED, "{i}");
            if block == 200 {
                assert_eq!(table.blocks[200].load(Relaxed), BAD);
            }
        }
        assert!(refused >= 80 && answered > 30_000, "{answered} {refused}");
        assert_eq!(
            table
                .blocks
                .iter()
                .filter(|b| b.load(Relaxed) == BAD)
                .count(),
            1
        );
    }
}
