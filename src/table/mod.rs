//! Distance tables (`table.npt`): a finished analysis saved so that any board is answered
//! later (its depth and a shortest way home) without searching.
//!
//! Two bits per board are enough. From a board at depth `d > 0` some neighbour is at
//! `d - 1`; the other neighbours are at `d` or `d + 1` (`d` only in the multi-tile metric). So
//! a code that tells `d - 1` from `d` and `d + 1` lets a walk step to a neighbour one move
//! closer until the goal, on a shortest path, and counting the steps gives the depth. The
//! codes come in two kinds ([`Codes`]):
//!
//! - **depth mod 3** (Cooperman & Finkelstein's two-bit breadth-first search), `3` marking a
//!   board the goal cannot reach: written from every board's depth (the multi-tile metric,
//!   one-row boards; up to 12 cells);
//! - **the BFS's marks** ([`crate::bfs::Marking::Depths`]) in the single-tile metric on the
//!   parity index: `0` unreached, `2 + (d / 2) mod 2` for depth `d`. The game graph is
//!   bipartite and the side of a board is the colour of its blank's cell, so `d mod 2` is the
//!   colour's difference from the goal's, and with the code's low bit gives `d mod 4`. The
//!   marks themselves are the table: a 2x7 analysis needs no second 10.9 GB array.
//!
//! **File.** All integers little-endian:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `NPUZZTBL` |
//! | 4 | format version ([`FORMAT_VERSION`]) |
//! | 4 + 4 | rows, columns |
//! | 4 | metric: 0 single-tile, 1 multi-tile |
//! | 4 | index layout: 1 the parity index of the goal's class (`n!/2` boards, [`crate::bfs::ParitySpace`]), 2 the lexicographic rank (`n!` boards, one-row and one-column boards) |
//! | 4 | codes: 1 depth mod 3, 2 the single-tile BFS's marks ([`Codes`]) |
//! | 4 | `s`, the checksum blocks' size: `2^s` bytes of codes ([`BLOCK_SHIFT`], 20: 1 MiB) |
//! | `n` | the goal, its internal permutation (piece on each cell, blank `n - 1`) |
//! | 4 | radius |
//! | `8 (radius + 1)` | the layer sizes, from depth 0 |
//! | 8 | boards indexed (`n!/2` or `n!`) |
//! | 8 | `L`, the largest layer listed board by board ([`rare_limit`]) |
//! | `8 k` | the index of every board of each layer of at most `L` boards, by depth then index (`k` their total) |
//! | `c = ceil(boards / 4)` | the codes, four per byte, board `i` in bits `2 (i mod 4)` of byte `i / 4` (the marks' own layout) |
//! | `4 ceil(c / 2^s)` | the CRC-32 (IEEE) of each block of `2^s` bytes of codes, in order (the last block may be shorter) |
//! | 4 | CRC-32 (IEEE) of the header (everything before the codes) followed by the blocks' CRCs |
//!
//! 3x4 takes 60 MB, 2x7 10.9 GB. A table is opened by memory map ([`DistanceTable::open`]):
//! its length and the last CRC are checked at once (the header and the blocks' CRCs, a few
//! kilobytes and the listed layers), and each block of codes is checked against its CRC the
//! first time a walk reads a code in it (an atomic flag per block keeps the verdict for the
//! life of the opened table). No file beside the table enters this: what proves the codes
//! whole is in the file itself. A walk that needs a code of a block that fails its CRC is
//! an error naming the block, never an answer; the other blocks still answer. Format version
//! 1 (one CRC-32 over the whole file, no blocks) is still read, with that whole-file check
//! on every open.
//!
//! **In memory** ([`DistanceTable::from_analysis`]): the table of a finished analysis
//! without a file, for `npuzzle serve` and the Python package. The writer puts the file's
//! bytes in an anonymous memory map rather than a file, and the reader reads that map as it
//! reads a file's: one definition of the table, the same bytes and answers.
//!
//! **The walk** ([`DistanceTable::depths_of`], [`DistanceTable::solve_many`]) keeps 16
//! boards going down together, so that the random reads of their codes overlap. In the
//! parity layout each walk holds its board's tile sequence with its Lehmer digits
//! (`bfs::Held`): a move along the row is `index ± k` and its code lies in the cache
//! line already read, so a walk takes such moves first; a vertical move's index is the BFS
//! kernel's closed form on one row of tiles, and only those codes are prefetched and read.
//!
//! **Random boards at one depth** ([`DistanceTable::sample`]): a board of a layer listed in
//! the file is drawn from its list; a board of a larger layer by rejection: a uniform index,
//! kept when its code says `d mod 3` (or `d mod 4`) and its walk is `d` steps long. Both are uniform over the
//! layer, and since listed layers are the rare ones, a rare depth is no slower than a common
//! one (at most `boards / L` tries a draw).
//!
//! **Parts.** Here the format: its constants, [`Codes`] and [`TableError`]; `write` writes a
//! table ([`write()`], [`Spool`]) or its bytes in memory, `read` opens and checks one
//! ([`DistanceTable`], [`Check`]; [`DistanceTable::from_analysis`]) and reads its codes, `descent` walks boards down it ([`DistanceTable::solve_many`]), and
//! `sample` draws boards at a depth ([`DistanceTable::sample`]).

mod descent;
mod read;
mod sample;
mod write;

use std::io;

use rayon::prelude::*;

pub use crate::analysis::rare_limit;
pub use read::{Check, DistanceTable};
pub use sample::MAX_TRIES;
pub use write::{Spool, write, write_blocks, write_with};

/// The magic bytes that open a table file.
pub const MAGIC: [u8; 8] = *b"NPUZZTBL";

/// The file format version: 2 since the codes carry a CRC-32 per block (1 had one CRC over
/// the whole file, and is still read with a full check on every open).
pub const FORMAT_VERSION: u32 = 2;

/// The size of a checksum block written by [`write()`]: `2^BLOCK_SHIFT` bytes of codes
/// (1 MiB, 4,194,304 boards). Checking one takes about a tenth of a millisecond; 2x7's
/// 10.9 GB of codes has 10,387 of them.
pub const BLOCK_SHIFT: u32 = 20;

/// The smallest and largest block size a file may give (`2^s` bytes of codes).
const BLOCK_SHIFTS: std::ops::RangeInclusive<u32> = 6..=40;

/// The code of a board the goal cannot reach ([`Codes::Mod3`]).
pub const UNREACHED: u8 = 3;

/// How the two bits of a board hold its depth `d` (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Codes {
    /// `d mod 3`; [`UNREACHED`] for a board the goal cannot reach.
    Mod3 = 1,
    /// The single-tile BFS's marks ([`crate::bfs::Marking::Depths`]): `0` unreached,
    /// `2 + (d / 2) mod 2`; parity index, single-tile metric only.
    Marks = 2,
}

/// What names a table built in memory ([`DistanceTable::from_analysis`]) in its messages,
/// where a file's path would.
const IN_MEMORY: &str = "(in memory)";

/// A code that no finished table holds (a [`Codes::Marks`] field of `1`).
const CORRUPT: u8 = u8::MAX;

/// Why a table could not be written, read or used. Each message is one line.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The analysis kept no per-board depths to save.
    #[error("{0}")]
    Unsupported(String),
    /// The file could not be written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What failed.
        source: io::Error,
    },
    /// Not a table, or a damaged one.
    #[error("{path}: {why}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
    /// A board the table was not made for.
    #[error("{0}")]
    WrongBoard(String),
}

/// The CRC-32 of `parts` in turn, computed in parallel (chunks of 16 MiB combined).
fn checksum(parts: &[&[u8]]) -> u32 {
    hasher(parts).finalize()
}

/// The CRC-32 state after `parts` in turn, computed in parallel (chunks of 16 MiB combined).
fn hasher(parts: &[&[u8]]) -> crc32fast::Hasher {
    parts
        .iter()
        .flat_map(|part| part.chunks(1 << 24))
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|chunk| {
            let mut h = crc32fast::Hasher::new();
            h.update(chunk);
            h
        })
        .collect::<Vec<_>>()
        .into_iter()
        .fold(crc32fast::Hasher::new(), |mut all, h| {
            all.combine(&h);
            all
        })
}

#[cfg(test)]
mod tests {
    //! What the tests of every part share.
    use crate::analysis::{Analysis, Options, analyze_unchecked};
    use crate::board::Board;
    use crate::metric::Metric;
    use crate::progress::NoProgress;
    use crate::shape::Shape;

    /// The analysis of the standard goal of `rows` x `cols` in `metric`, every board's depth
    /// kept, and the table's marks where they are the table.
    pub(super) fn analysis(rows: usize, cols: usize, metric: Metric) -> Analysis {
        let shape = Shape::new(rows, cols).unwrap();
        let options = Options {
            per_board: true,
            metric,
            table: true,
            search_components: false,
        };
        analyze_unchecked(&Board::goal(shape), options, &NoProgress).unwrap()
    }
}
