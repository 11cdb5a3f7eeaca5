//! The pattern-database cache: databases are built once, stored in a cache folder and
//! reused. This is the only part of `solve` that touches files.
//!
//! **Folder.** The one the caller gives (the command line's `--cache DIR`), else
//! [`default_dir`]: `$NPUZZLE_CACHE` if set, else `$XDG_CACHE_HOME/npuzzle`, else
//! `$HOME/.cache/npuzzle`.
//!
//! **Files.** One per pattern, named after the shape and the tiles
//! (`pdb-4x4-1-5-6-9-10-13.bin`). All integers little-endian:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `NPUZZPDB` |
//! | 4 | format version ([`FORMAT_VERSION`]) |
//! | 4 + 4 | rows, columns |
//! | 4 | `k`, the number of tiles in the pattern |
//! | `k` | the tiles, as printed |
//! | 4 | checks: 1 when the full breadth-first check ([`PatternDb::verify`]) passed after the build, 0 when not |
//! | 8 | entry count: `16^k` up to 6 tiles, `n! / (n - k)!` from 7 ([`Layout`]) |
//! | entries | the table, one byte per entry, indexed as in [`crate::solve::pdb`] |
//! | 4 | CRC-32 (IEEE) of everything before it |
//!
//! **Multi-tile databases** ([`crate::solve::domain`]) are one file per shape,
//! `mtm-pdb-4x4.bin`: magic `NPUZZMTM`, format version, rows, columns, the metric (1 for
//! MTM), the class of each piece (`cells` bytes), the entry count (8 bytes), the table, and a
//! CRC-32 of everything before it. On load the header, length and checksum must match, and
//! [`DomainDb::from_table`] checks the goal's entry and the breadth-first property at 65,536
//! boards spread over the table.
//!
//! **Trust.** A file is used only if every field matches what is asked for, the length is
//! exact, the checksum matches and the values can be the pattern's ([`PatternDb::check`]:
//! the goal's entry is 0, every value at least the tiles' Manhattan distance and of its
//! parity) and pass the breadth-first spot check ([`PatternDb::spot_check`]). Then, on every
//! load (nothing beside the file is consulted): the databases of 4x4's default partition
//! (6-6-3) must hash to the SHA-256 compiled into this version ([`known_digest`]); any other
//! database of at most [`FULL_CHECK_ON_LOAD`] placements, and one whose file does not record
//! the full check, is checked in full before use: only the largest (4x4's 7- and 8-tile
//! patterns) trust the file's record of it. A missing, truncated,
//! corrupt or
//! stale (other version, shape or pattern) file is rebuilt and rewritten atomically: written to
//! a temporary file in the same folder, then renamed over the old one, so that a crash or a
//! concurrent run never leaves a half-written file under the real name.

use std::ffi::OsString;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::metric::Metric;
use crate::progress::Progress;
use crate::shape::Shape;
use crate::solve::domain::{DomainDb, DomainError, MtmDatabases};
use crate::solve::pdb::{
    Layout, MAX_PATTERN_TILES, Partition, PatternDatabases, PatternDb, PdbError, placements,
};
use crate::solve::walking::WalkingDistance;

/// The magic bytes that open every database file.
pub const MAGIC: [u8; 8] = *b"NPUZZPDB";

/// The file format version; a file of another version is stale and rebuilt.
pub const FORMAT_VERSION: u32 = 2;

/// The default cache folder: `$NPUZZLE_CACHE` if set, else `$XDG_CACHE_HOME/npuzzle`, else
/// `$HOME/.cache/npuzzle`; `None` when none of them is set.
pub fn default_dir() -> Option<PathBuf> {
    dir_from(
        std::env::var_os("NPUZZLE_CACHE"),
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
    )
}

/// [`default_dir`] from the values of `NPUZZLE_CACHE`, `XDG_CACHE_HOME` and `HOME`. Empty
/// values count as unset; a relative `XDG_CACHE_HOME` is ignored, as the XDG Base Directory
/// specification asks.
pub fn dir_from(
    npuzzle_cache: Option<OsString>,
    xdg_cache_home: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    let set = |v: Option<OsString>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = set(npuzzle_cache) {
        return Some(dir);
    }
    if let Some(xdg) = set(xdg_cache_home).filter(|p| p.is_absolute()) {
        return Some(xdg.join("npuzzle"));
    }
    set(home).map(|h| h.join(".cache").join("npuzzle"))
}

/// The file name of the database of `tiles` on `shape`.
pub fn file_name(shape: Shape, tiles: &[u8]) -> String {
    let tiles: Vec<String> = tiles.iter().map(u8::to_string).collect();
    format!("pdb-{shape}-{}.bin", tiles.join("-"))
}

/// Whether every database of `partition` has a file in `dir` (present, not yet checked):
/// a cheap test to warn before a long first build.
pub fn is_cached(dir: Option<&Path>, partition: &Partition) -> bool {
    dir.is_some_and(|d| {
        partition
            .groups()
            .iter()
            .all(|tiles| d.join(file_name(partition.shape(), tiles)).is_file())
    })
}

/// What happened to one pattern's database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheEvent {
    /// Read from a valid file.
    Loaded {
        /// The file.
        path: PathBuf,
    },
    /// Built, because the file was missing or not valid, then saved (or not).
    Built {
        /// The file it was (to be) written to; `None` without a cache folder.
        path: Option<PathBuf>,
        /// Why it was built.
        reason: Rebuild,
        /// Time spent building.
        elapsed: Duration,
        /// `Err` with the reason when it could not be saved.
        saved: Result<(), String>,
    },
}

/// Why a database was built rather than read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rebuild {
    /// No file (or no cache folder).
    #[error("not cached yet")]
    Missing,
    /// A file that cannot be trusted: truncated, corrupt, or stale.
    #[error("{0}")]
    Invalid(String),
}

/// The databases of `partition`: each read from `dir` when a valid file is there, otherwise
/// built (reporting to `progress`) and saved there. Without a folder they are only built.
/// Saving failures do not fail the call; they are reported in the events.
///
/// # Errors
/// [`PdbError`] when a database cannot be built.
pub fn load_or_build(
    dir: Option<&Path>,
    partition: &Partition,
    progress: &dyn Progress,
) -> Result<(PatternDatabases, Vec<CacheEvent>), PdbError> {
    let shape = partition.shape();
    let mut databases = Vec::new();
    let mut events = Vec::new();
    for tiles in partition.groups() {
        let path = dir.map(|d| d.join(file_name(shape, tiles)));
        let reason = match &path {
            Some(p) => match load(p, shape, tiles) {
                Ok(db) => {
                    databases.push(db);
                    events.push(CacheEvent::Loaded { path: p.clone() });
                    continue;
                }
                Err(reason) => reason,
            },
            None => Rebuild::Missing,
        };
        let started = Instant::now();
        let db = PatternDb::build(shape, tiles, progress)?;
        let elapsed = started.elapsed();
        let saved = match dir {
            Some(d) => save(d, &db).map(|_| ()).map_err(|e| e.to_string()),
            None => Err("no cache folder".to_string()),
        };
        databases.push(db);
        events.push(CacheEvent::Built {
            path,
            reason,
            elapsed,
            saved,
        });
    }
    Ok((PatternDatabases::new(databases)?, events))
}

/// Reads and checks the database of `tiles` on `shape` from `path`.
///
/// # Errors
/// [`Rebuild::Missing`] when there is no file, [`Rebuild::Invalid`] with the reason when it
/// cannot be trusted.
pub fn load(path: &Path, shape: Shape, tiles: &[u8]) -> Result<PatternDb, Rebuild> {
    let file = match crate::durable::open_regular(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(Rebuild::Missing),
        Err(e) => return Err(Rebuild::Invalid(format!("unreadable: {e}"))),
    };
    let len = file
        .metadata()
        .map_err(|e| Rebuild::Invalid(format!("unreadable: {e}")))?
        .len();
    // Everything that decides whether the file is trusted is in the file itself and checked
    // on every load (no file beside it can switch a check off).
    read_db(io::BufReader::new(&file), len, shape, tiles).map_err(Rebuild::Invalid)
}

/// Writes `db` to its file in `dir` (created if needed), atomically; returns the path.
///
/// # Errors
/// Any I/O error.
pub fn save(dir: &Path, db: &PatternDb) -> io::Result<PathBuf> {
    let path = dir.join(file_name(db.shape(), &db.tiles()));
    // Synced to the disk before it takes the real name.
    save_bytes(dir, &path, &encode(db))?;
    Ok(path)
}

/// The bytes of `db`'s file (see the module documentation).
pub fn encode(db: &PatternDb) -> Vec<u8> {
    let tiles = db.tiles();
    let table = db.table();
    let mut out = Vec::with_capacity(40 + tiles.len() + table.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(db.shape().rows() as u32).to_le_bytes());
    out.extend_from_slice(&(db.shape().cols() as u32).to_le_bytes());
    out.extend_from_slice(&(tiles.len() as u32).to_le_bytes());
    out.extend_from_slice(&tiles);
    out.extend_from_slice(&u32::from(db.is_verified()).to_le_bytes());
    out.extend_from_slice(&(table.len() as u64).to_le_bytes());
    out.extend_from_slice(table);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Checks and reads a file's bytes as the database of `tiles` on `shape`; `Err` says why it
/// cannot be trusted: a wrong header, length or checksum, or values that cannot be a
/// database of that pattern ([`PatternDb::check`]).
pub fn decode(bytes: &[u8], shape: Shape, tiles: &[u8]) -> Result<PatternDb, String> {
    read_db(bytes, bytes.len() as u64, shape, tiles)
}

/// [`decode`] from a reader of `len` bytes, streamed: the table is read once, straight into
/// its own buffer (backed by huge pages where Linux allows it, which also speeds up the
/// searches' random lookups), and checksummed on the way.
fn read_db(
    mut input: impl io::Read,
    len: u64,
    shape: Shape,
    tiles: &[u8],
) -> Result<PatternDb, String> {
    let truncated = || format!("truncated ({len} bytes)");
    let mut crc = crc32fast::Hasher::new();
    let mut field = |size: usize| -> Result<Vec<u8>, String> {
        let mut bytes = vec![0u8; size];
        input.read_exact(&mut bytes).map_err(|_| truncated())?;
        crc.update(&bytes);
        Ok(bytes)
    };
    let u32_field = |bytes: Vec<u8>| u32::from_le_bytes(bytes.try_into().unwrap_or_default());
    if field(8)? != MAGIC {
        return Err("not a pattern database (wrong magic bytes)".into());
    }
    let version = u32_field(field(4)?);
    if version != FORMAT_VERSION {
        return Err(format!(
            "stale: format version {version}, expected {FORMAT_VERSION}"
        ));
    }
    let rows = u32_field(field(4)?) as usize;
    let cols = u32_field(field(4)?) as usize;
    let k = u32_field(field(4)?) as usize;
    if k == 0 || k > MAX_PATTERN_TILES.min(shape.cells()) {
        return Err(format!("corrupt: a pattern of {k} tiles"));
    }
    let stored_tiles = field(k)?;
    if (rows, cols) != (shape.rows(), shape.cols()) || stored_tiles != tiles {
        return Err(format!(
            "stale: holds {rows}x{cols} tiles {stored_tiles:?}, expected {shape} tiles {tiles:?}"
        ));
    }
    let checks = u32_field(field(4)?);
    if checks > 1 {
        return Err(format!("corrupt: checks field {checks}"));
    }
    let count = u64::from_le_bytes(field(8)?.try_into().unwrap_or_default());
    let expected = Layout::of(k).len(shape.cells(), k);
    if count != expected {
        return Err(format!("corrupt: {count} entries, expected {expected}"));
    }
    let header = (8 + 4 * 5 + k + 8) as u64;
    let whole = header + count + 4;
    if len < whole {
        return Err(truncated());
    }
    if len > whole {
        return Err(format!("corrupt: {} bytes after the checksum", len - whole));
    }
    let mut table = Vec::with_capacity(count as usize);
    crate::bfs::advise_huge_pages(table.as_ptr(), count as usize);
    (&mut input)
        .take(count)
        .read_to_end(&mut table)
        .map_err(|e| format!("unreadable: {e}"))?;
    if table.len() as u64 != count {
        return Err(truncated());
    }
    crc.update(&table);
    let mut stored = [0u8; 4];
    input.read_exact(&mut stored).map_err(|_| truncated())?;
    if crc.finalize() != u32::from_le_bytes(stored) {
        return Err("corrupt: checksum mismatch".into());
    }
    let mut db = PatternDb::from_table(shape, tiles, table).map_err(|e| format!("corrupt: {e}"))?;
    db.check().map_err(|e| format!("corrupt: {e}"))?;
    db.spot_check(SPOT_CHECKS, u64::from(db.shape().cells() as u32))
        .map_err(|e| format!("corrupt: {e}"))?;
    // A database this version builds by default is known by its digest, compiled in: equal
    // proves it whole in milliseconds; different, it is no database this version writes.
    // Others: the full check where it costs at most about a second, else the file's record
    // of it (a forged file can keep the flag set; its CRC is checked all the same).
    if let Some(known) = known_digest(shape, tiles) {
        if entries_digest(db.table()) != known {
            return Err(format!(
                "corrupt: its entries are not those of the {shape} database of tiles {tiles:?} \
                 (SHA-256)"
            ));
        }
        db.mark_verified();
    } else if checks == 1 && placements(shape.cells(), k) > FULL_CHECK_ON_LOAD {
        db.mark_verified();
    } else {
        db.verify().map_err(|e| format!("corrupt: {e}"))?;
    }
    Ok(db)
}

/// The SHA-256 digests of the entries (the table, without header or CRC) of the databases
/// that [`PatternDb::build`] makes for 4x4's default partition, 6-6-3 (deterministic: the
/// same bytes on every machine). A cached file of one of them is used only if its entries
/// hash to this value, whatever its header records and whatever lies beside it: about 11 ms
/// per 6-tile database (SHA-NI), against about a second of CPU for [`PatternDb::verify`].
/// `tests/suite/solve_cli.rs` checks them against a fresh build.
const KNOWN_DIGESTS: [(usize, usize, &[u8], &str); 3] = [
    (
        4,
        4,
        &[1, 5, 6, 9, 10, 13],
        "0be375499a522aa50b92e7af0507d310099e77bb9a91f01917f6a10568c7b391",
    ),
    (
        4,
        4,
        &[7, 8, 11, 12, 14, 15],
        "9b65e7509d8788ba2fa3b01baa2543166ac0c54d61b7cce817e6e1dce8a700e5",
    ),
    (
        4,
        4,
        &[2, 3, 4],
        "91bebcb7b767080d6e95b81c70e8c3d79f09490f1ae52954e25422eeac2f6bf7",
    ),
];

/// The compiled-in SHA-256 (lower-case hex) of the entries of the database of `tiles` on
/// `shape`, for the three databases of 4x4's default 6-6-3 partition; `None` for any other.
pub fn known_digest(shape: Shape, tiles: &[u8]) -> Option<&'static str> {
    KNOWN_DIGESTS
        .iter()
        .find(|(rows, cols, t, _)| (*rows, *cols) == (shape.rows(), shape.cols()) && *t == tiles)
        .map(|known| known.3)
}

/// The SHA-256 of a database's entries, in lower-case hex (see [`known_digest`]).
pub fn entries_digest(entries: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(entries)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The magic bytes of a multi-tile database file.
pub const MTM_MAGIC: [u8; 8] = *b"NPUZZMTM";

/// The file name of the multi-tile databases of `shape`.
pub fn mtm_file_name(shape: Shape) -> String {
    format!("mtm-pdb-{shape}.bin")
}

/// The multi-tile metric's databases of `shape` ([`MtmDatabases`]): the domain abstraction
/// read from `dir` when a valid file is there, otherwise built (reporting to `progress`) and
/// saved there; walking distance is made on the spot. Saving failures are reported in the
/// event, not as errors.
///
/// # Errors
/// [`DomainError`] when the databases cannot be made for `shape`.
pub fn load_or_build_mtm(
    dir: Option<&Path>,
    shape: Shape,
    progress: &dyn Progress,
) -> Result<(MtmDatabases, CacheEvent), DomainError> {
    let walking = WalkingDistance::new(shape, Metric::Mtm)?;
    let classes = DomainDb::default_classes(shape);
    let path = dir.map(|d| d.join(mtm_file_name(shape)));
    let reason = match &path {
        Some(p) => match load_mtm(p, shape, &classes) {
            Ok(db) => {
                let event = CacheEvent::Loaded { path: p.clone() };
                return Ok((MtmDatabases::new(walking, db), event));
            }
            Err(reason) => reason,
        },
        None => Rebuild::Missing,
    };
    let started = Instant::now();
    let db = DomainDb::build(shape, Metric::Mtm, &classes, progress)?;
    let elapsed = started.elapsed();
    let saved = match (dir, &path) {
        (Some(d), Some(p)) => save_bytes(d, p, &encode_mtm(&db)).map_err(|e| e.to_string()),
        _ => Err("no cache folder".to_string()),
    };
    let event = CacheEvent::Built {
        path,
        reason,
        elapsed,
        saved,
    };
    Ok((MtmDatabases::new(walking, db), event))
}

/// Writes `bytes` to `path` in `dir` (created if needed), atomically.
fn save_bytes(dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    let mut file = crate::durable::temp_beside(path)?;
    file.write_all(bytes)?;
    crate::durable::commit(file, path)
}

/// The bytes of a multi-tile database file (see the module documentation).
pub fn encode_mtm(db: &DomainDb) -> Vec<u8> {
    let mut out = Vec::with_capacity(48 + db.table().len());
    out.extend_from_slice(&MTM_MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(db.shape().rows() as u32).to_le_bytes());
    out.extend_from_slice(&(db.shape().cols() as u32).to_le_bytes());
    out.extend_from_slice(&db.metric().code().to_le_bytes());
    out.extend_from_slice(db.classes());
    out.extend_from_slice(&(db.table().len() as u64).to_le_bytes());
    out.extend_from_slice(db.table());
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Checks and reads a multi-tile database file's bytes for `shape` and `classes`.
///
/// # Errors
/// Why the bytes cannot be trusted: a wrong header, length or checksum, or a table that is
/// not a breadth-first table ([`DomainDb::from_table`]).
pub fn decode_mtm(bytes: &[u8], shape: Shape, classes: &[u8]) -> Result<DomainDb, String> {
    let n = shape.cells();
    let header = 8 + 4 * 4 + n + 8;
    if bytes.len() < header + 4 {
        return Err(format!("truncated ({} bytes)", bytes.len()));
    }
    let (body, stored) = bytes.split_at(bytes.len() - 4);
    if crc32fast::hash(body).to_le_bytes() != stored {
        return Err("corrupt: checksum mismatch".into());
    }
    if body[..8] != MTM_MAGIC {
        return Err("not a multi-tile database (wrong magic bytes)".into());
    }
    let word = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().unwrap_or_default());
    if word(8) != FORMAT_VERSION {
        return Err(format!("stale: format version {}", word(8)));
    }
    if (
        word(12) as usize,
        word(16) as usize,
        Metric::from_code(word(20)),
    ) != (shape.rows(), shape.cols(), Some(Metric::Mtm))
        || &body[24..24 + n] != classes
    {
        return Err(format!("stale: not the {shape} multi-tile database"));
    }
    let count = u64::from_le_bytes(body[24 + n..header].try_into().unwrap_or_default());
    if count != (body.len() - header) as u64 {
        return Err(format!(
            "corrupt: {count} entries in {} bytes",
            body.len() - header
        ));
    }
    DomainDb::from_table(shape, Metric::Mtm, classes, body[header..].to_vec(), 65_536)
        .map_err(|e| format!("corrupt: {e}"))
}

fn load_mtm(path: &Path, shape: Shape, classes: &[u8]) -> Result<DomainDb, Rebuild> {
    match fs::read(path) {
        Ok(bytes) => decode_mtm(&bytes, shape, classes).map_err(Rebuild::Invalid),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(Rebuild::Missing),
        Err(e) => Err(Rebuild::Invalid(format!("unreadable: {e}"))),
    }
}

/// The most placements of a pattern whose database is checked in full
/// ([`PatternDb::verify`]) on every load, whatever its file records: 6-tile patterns of 4x4
/// (5,765,760 placements, about 0.3 s on two cores in a release build) and everything smaller.
/// Only 4x4's 7- and 8-tile databases (57,657,600 and 518,918,400 placements, 6 s and 62 s)
/// rely on the file's record of the check run after their build.
pub const FULL_CHECK_ON_LOAD: u64 = 6_000_000;

/// Random placements [`PatternDb::spot_check`] tries on every load (besides the goal's
/// neighbourhood): a few milliseconds.
const SPOT_CHECKS: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;

    fn shape33() -> Shape {
        Shape::square(3).unwrap()
    }

    #[test]
    fn default_dir_follows_the_documented_order() {
        let s = |v: &str| Some(OsString::from(v));
        assert_eq!(
            dir_from(s("/c"), s("/x"), s("/h")),
            Some(PathBuf::from("/c"))
        );
        assert_eq!(
            dir_from(None, s("/x"), s("/h")),
            Some(PathBuf::from("/x/npuzzle"))
        );
        assert_eq!(
            dir_from(s(""), s(""), s("/h")),
            Some(PathBuf::from("/h/.cache/npuzzle"))
        );
        assert_eq!(
            dir_from(None, s("rel"), s("/h")),
            Some(PathBuf::from("/h/.cache/npuzzle"))
        );
        assert_eq!(dir_from(None, None, None), None);
    }

    #[test]
    fn files_round_trip_and_bad_files_are_refused() {
        let s = shape33();
        let db = PatternDb::build(s, &[1, 2, 3, 4], &NoProgress).unwrap();
        let bytes = encode(&db);
        assert_eq!(bytes.len(), 8 + 4 * 4 + 4 + 4 + 8 + 65_536 + 4);
        assert_eq!(decode(&bytes, s, &[1, 2, 3, 4]), Ok(db.clone()));
        assert!(db.is_verified());
        // Every truncation is caught.
        for len in [0, 5, 20, 40, bytes.len() - 1] {
            assert!(
                decode(&bytes[..len], s, &[1, 2, 3, 4])
                    .unwrap_err()
                    .contains("truncated")
            );
        }
        // A flipped bit anywhere is caught.
        for at in [0, 9, 13, 30, 100, bytes.len() - 2] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(decode(&bad, s, &[1, 2, 3, 4]).is_err(), "bit flip at {at}");
        }
        // Stale: another pattern or shape or version.
        assert!(
            decode(&bytes, s, &[5, 6, 7, 8])
                .unwrap_err()
                .starts_with("stale")
        );
        assert!(
            decode(&bytes, Shape::new(1, 9).unwrap(), &[1, 2, 3, 4])
                .unwrap_err()
                .starts_with("stale")
        );
        let mut old = bytes.clone();
        old[8] = 0;
        assert!(
            decode(&old, s, &[1, 2, 3, 4])
                .unwrap_err()
                .starts_with("stale")
        );
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer, s, &[1, 2, 3, 4]).is_err());
    }

    /// A file whose checksum is valid but whose values cannot be the pattern's (one entry
    /// off by one, or 0 far from the goal) is refused, in both layouts (3x3: 4 tiles sparse,
    /// 7 tiles dense).
    #[test]
    fn nonsense_values_with_a_valid_checksum_are_refused() {
        let s = shape33();
        for tiles in [vec![1u8, 2, 3, 4], vec![1, 2, 3, 4, 5, 6, 7]] {
            let db = PatternDb::build(s, &tiles, &NoProgress).unwrap();
            assert_eq!(decode(&encode(&db), s, &tiles), Ok(db.clone()));
            let far = db.table().iter().position(|&v| v > 4 && v != 0xFF).unwrap();
            let mut edits: Vec<(usize, u8)> = vec![(far, db.table()[far] + 1), (far, 0)];
            if db.layout() == crate::solve::pdb::Layout::Sparse {
                // A value where no placement is (tiles 1 and 2 both on cell 0).
                edits.push((0, 3));
            }
            for (at, value) in edits {
                let mut table = db.table().to_vec();
                table[at] = value;
                let bad = PatternDb::from_table(s, &tiles, table).unwrap();
                let why = decode(&encode(&bad), s, &tiles).unwrap_err();
                assert!(why.starts_with("corrupt:"), "{tiles:?} {at}={value}: {why}");
            }
        }
    }

    /// Issue 23: a build checks its table in full and the file records it; a file that does
    /// not record it is checked in full on load, which finds one entry raised by 2 (of the
    /// right parity, above the Manhattan distance: [`PatternDb::check`] passes it, and the
    /// spot check's samples need not reach it).
    #[test]
    fn the_full_check_is_recorded_and_run_where_it_is_not() {
        let s = shape33();
        let tiles = [1u8, 2, 3, 4, 5, 6, 7];
        let built = PatternDb::build(s, &tiles, &NoProgress).unwrap();
        let bytes = encode(&built);
        let checks_at = 8 + 4 * 4 + tiles.len();
        assert_eq!(bytes[checks_at..checks_at + 4], [1, 0, 0, 0]);
        let plain = PatternDb::from_table(s, &tiles, built.table().to_vec()).unwrap();
        assert!(!plain.is_verified());
        let unchecked = encode(&plain);
        assert_eq!(unchecked[checks_at..checks_at + 4], [0, 0, 0, 0]);
        let loaded = decode(&unchecked, s, &tiles).unwrap();
        assert!(loaded.is_verified());
        // The deepest entry raised by 2.
        let deepest = (0..built.table().len())
            .filter(|&i| built.table()[i] != crate::solve::pdb::UNREACHABLE)
            .max_by_key(|&i| built.table()[i])
            .unwrap();
        let mut table = built.table().to_vec();
        table[deepest] += 2;
        let mut raised = PatternDb::from_table(s, &tiles, table).unwrap();
        assert_eq!(raised.check(), Ok(()));
        let why = decode(&encode(&raised), s, &tiles).unwrap_err();
        assert!(why.starts_with("corrupt: the placement on cells"), "{why}");
        assert!(raised.verify().is_err());
        assert!(!raised.is_verified());
    }

    /// Issue 49: a forged file that keeps the flag of the full check set is checked in full
    /// all the same when its pattern has at most [`FULL_CHECK_ON_LOAD`] placements: one entry
    /// raised by 10, the CRC recomputed, is found.
    #[test]
    fn a_recorded_full_check_is_rerun_on_small_databases() {
        let s = shape33();
        let tiles = [1u8, 2, 3, 4, 5, 6, 7];
        assert!(crate::solve::pdb::placements(9, 7) <= FULL_CHECK_ON_LOAD);
        let built = PatternDb::build(s, &tiles, &NoProgress).unwrap();
        let deepest = (0..built.table().len())
            .filter(|&i| built.table()[i] != crate::solve::pdb::UNREACHABLE)
            .max_by_key(|&i| built.table()[i])
            .unwrap();
        let mut table = built.table().to_vec();
        table[deepest] += 10;
        let mut raised = PatternDb::from_table(s, &tiles, table).unwrap();
        raised.mark_verified();
        let bytes = encode(&raised);
        let checks_at = 8 + 4 * 4 + tiles.len();
        assert_eq!(bytes[checks_at..checks_at + 4], [1, 0, 0, 0]);
        let why = decode(&bytes, s, &tiles).unwrap_err();
        assert!(why.starts_with("corrupt: the placement on cells"), "{why}");
    }

    /// The first call builds and saves, the second loads; a corrupted file is detected,
    /// rebuilt and rewritten; a truncated one too.
    #[test]
    fn corrupt_files_are_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let partition = Partition::default_for(shape33()).unwrap();
        let (first, events) = load_or_build(Some(dir.path()), &partition, &NoProgress).unwrap();
        assert!(events.iter().all(|e| matches!(
            e,
            CacheEvent::Built {
                reason: Rebuild::Missing,
                saved: Ok(()),
                ..
            }
        )));
        let (_, events) = load_or_build(Some(dir.path()), &partition, &NoProgress).unwrap();
        assert!(
            events
                .iter()
                .all(|e| matches!(e, CacheEvent::Loaded { .. }))
        );

        let path = dir.path().join(file_name(shape33(), &[1, 2, 3, 4]));
        let good = fs::read(&path).unwrap();
        let mut bad = good.clone();
        bad[100] ^= 1;
        fs::write(&path, &bad).unwrap();
        let (again, events) = load_or_build(Some(dir.path()), &partition, &NoProgress).unwrap();
        assert!(matches!(
            &events[0],
            CacheEvent::Built { reason: Rebuild::Invalid(why), saved: Ok(()), .. } if why.contains("checksum")
        ));
        assert!(matches!(&events[1], CacheEvent::Loaded { .. }));
        assert_eq!(fs::read(&path).unwrap(), good, "the file is rewritten");
        assert_eq!(again.databases(), first.databases());

        fs::write(&path, &good[..good.len() / 2]).unwrap();
        let (_, events) = load_or_build(Some(dir.path()), &partition, &NoProgress).unwrap();
        assert!(
            matches!(&events[0], CacheEvent::Built { reason: Rebuild::Invalid(why), .. } if why.contains("truncated"))
        );
        assert_eq!(fs::read(&path).unwrap(), good);
        // No temporary files are left behind, nor any file but the two databases.
        let mut names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names.iter().all(|n| n.ends_with(".bin")), "{names:?}");
    }

    #[test]
    fn an_unwritable_folder_is_reported_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-folder");
        fs::write(&file, b"x").unwrap();
        let partition = Partition::default_for(Shape::new(2, 3).unwrap()).unwrap();
        let (_, events) = load_or_build(Some(&file), &partition, &NoProgress).unwrap();
        assert!(matches!(
            &events[0],
            CacheEvent::Built { saved: Err(_), .. }
        ));
        let (_, events) = load_or_build(None, &partition, &NoProgress).unwrap();
        assert!(matches!(
            &events[0],
            CacheEvent::Built {
                path: None,
                saved: Err(_),
                ..
            }
        ));
    }
}
