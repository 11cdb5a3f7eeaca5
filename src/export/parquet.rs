//! Parquet exports (cargo feature `parquet`): `edges.parquet` and `nodes.parquet`, the same
//! rows as `edges.csv` and `nodes.csv` (ranks), in the columnar format DuckDB, Polars,
//! pandas/pyarrow, Spark and Neo4j's importer read natively (Apache Parquet format 2.x,
//! written by the `parquet` crate of arrow-rs, without arrow).
//!
//! - `edges.parquet`: `from`, `to`, both `UINT32` (dense lexicographic ranks; the edge
//!   exports go up to 12 cells, whose `n!` ranks fit), one row per undirected edge in the
//!   order of `edges.csv`.
//! - `nodes.parquet`: `rank` (`UINT32`), `board` (its label, `STRING`), `component`
//!   (`UINT32`), `depth` (`UINT8`, null when the goal cannot reach the board).
//!
//! Ranks are stored without dictionaries (every value is distinct or nearly), `from` and
//! `rank` as deltas (`DELTA_BINARY_PACKED`: they ascend), every column compressed with zstd.
//! Row groups hold 4 Mi boards' rows, so readers can stream and skip them. Files are
//! streamed: one row group is gathered in parallel while the previous one is encoded and
//! written, so memory stays bounded; written to a temporary name and renamed, as every
//! export.

use std::io::{self, Write};

use std::path::Path;
use std::sync::Arc;

use ::parquet::basic::{Compression, Encoding, ZstdLevel};
use ::parquet::data_type::{ByteArray, ByteArrayType, DataType, Int32Type};
use ::parquet::errors::ParquetError;
use ::parquet::file::properties::{WriterProperties, WriterVersion};
use ::parquet::file::writer::{SerializedFileWriter, SerializedRowGroupWriter};
use ::parquet::schema::parser::parse_message_type;
use ::parquet::schema::types::ColumnPath;
use rayon::prelude::*;

use super::{BoardFormat, CHUNK, ExportError, fail, per_board_of, put_board, write_atomically};
use crate::analysis::Analysis;
use crate::graph;
use crate::progress::Progress;
use crate::rank::SequentialUnranker;
use crate::shape::Shape;

/// Boards per row group.
const GROUP: u32 = 1 << 22;

/// The schema of `edges.parquet`.
pub const EDGES_SCHEMA: &str = "message edges {
    REQUIRED INT32 from (INTEGER(32, false));
    REQUIRED INT32 to (INTEGER(32, false));
}";

/// The schema of `nodes.parquet`.
pub const NODES_SCHEMA: &str = "message nodes {
    REQUIRED INT32 rank (INTEGER(32, false));
    REQUIRED BYTE_ARRAY board (STRING);
    REQUIRED INT32 component (INTEGER(32, false));
    OPTIONAL INT32 depth (INTEGER(8, false));
}";

/// Writer properties: zstd, Parquet 2 pages, no dictionary for the rank columns, deltas for
/// the ascending ones.
fn properties(ranks: &[&str]) -> Arc<WriterProperties> {
    let mut builder = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_2_0)
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_created_by(format!("npuzzle {}", env!("CARGO_PKG_VERSION")));
    for column in ranks {
        let column = ColumnPath::from(*column);
        builder = builder
            .set_column_dictionary_enabled(column.clone(), false)
            .set_column_encoding(column, Encoding::DELTA_BINARY_PACKED);
    }
    Arc::new(builder.build())
}

fn io_error(e: ParquetError) -> io::Error {
    match e {
        ParquetError::External(inner) => io::Error::other(inner),
        other => io::Error::other(other),
    }
}

/// Writes the next column of `group`: `values`, with the definition levels `defined` (1 for
/// a value, 0 for a null) when the column is optional.
fn write_column<T: DataType, W: Write + Send>(
    group: &mut SerializedRowGroupWriter<'_, W>,
    values: &[T::T],
    defined: Option<&[i16]>,
) -> io::Result<()> {
    let mut column = group
        .next_column()
        .map_err(io_error)?
        .ok_or_else(|| io::Error::other("a column missing from the schema"))?;
    column
        .typed::<T>()
        .write_batch(values, defined, None)
        .map_err(io_error)?;
    column.close().map_err(io_error)
}

/// The rows of boards `lo..hi`, gathered in parallel chunks and concatenated in rank order.
fn gather<T: Send + Default>(
    lo: u32,
    hi: u32,
    chunk: impl Fn(u32, u32, &mut T) + Sync,
    append: impl Fn(&mut T, T),
) -> T {
    let parts: Vec<T> = (lo..hi)
        .step_by(CHUNK as usize)
        .collect::<Vec<u32>>()
        .into_par_iter()
        .map(|start| {
            let mut part = T::default();
            chunk(start, start.saturating_add(CHUNK).min(hi), &mut part);
            part
        })
        .collect();
    let mut all = T::default();
    for part in parts {
        append(&mut all, part);
    }
    all
}

/// Writes row groups of boards `0..boards`: `gather(lo, hi)` makes a group's rows (in
/// parallel), `write(rows)` encodes them; the next group is gathered while one is written.
fn pipeline<T: Send>(
    boards: u32,
    progress: &dyn Progress,
    gather: impl Fn(u32, u32) -> T + Sync,
    mut write: impl FnMut(T) -> io::Result<()> + Send,
) -> io::Result<()> {
    let end = |lo: u32| lo.saturating_add(GROUP).min(boards);
    let mut lo = 0u32;
    let mut ready = (boards > 0).then(|| gather(0, end(0)));
    while let Some(rows) = ready.take() {
        let next = end(lo);
        let (written, gathered) = rayon::join(
            || write(rows),
            || (next < boards).then(|| gather(next, end(next))),
        );
        written?;
        progress.update(u64::from(next), "");
        ready = gathered;
        lo = next;
    }
    Ok(())
}

/// The sink every Parquet file is written to (see [`write_atomically`]).
type FileSink<'a, 'b> = &'a mut io::BufWriter<crate::durable::WriteBehind<'b>>;

/// Writes the Parquet file `path` of the rows of `boards` boards with `schema` (`ranks`: its
/// rank columns): row groups are gathered by `gather(lo, hi)`, in parallel, and written
/// column by column by `columns`, pipelined (see [`pipeline`]), atomically.
fn write_file<T: Send>(
    path: &Path,
    (schema, ranks): (&str, &[&str]),
    boards: u32,
    progress: &dyn Progress,
    gather: impl Fn(u32, u32) -> T + Sync,
    columns: impl Fn(&mut SerializedRowGroupWriter<'_, FileSink<'_, '_>>, T) -> io::Result<()> + Sync,
) -> Result<(), ExportError> {
    let name = path
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    progress.begin(&name, u64::from(boards), "boards");
    let schema = Arc::new(parse_message_type(schema).map_err(|e| fail(path)(io_error(e)))?);
    let result = write_atomically(path, |out| {
        let mut writer =
            SerializedFileWriter::new(out, schema, properties(ranks)).map_err(io_error)?;
        pipeline(boards, progress, gather, |rows| {
            let mut group = writer.next_row_group().map_err(io_error)?;
            columns(&mut group, rows)?;
            group.close().map_err(io_error)?;
            Ok(())
        })?;
        writer.close().map_err(io_error)?;
        Ok(())
    });
    progress.end();
    result
}

/// Writes `edges.parquet` for the whole game graph of `shape` (at most 12 cells) in `metric`:
/// columns
/// `from`, `to` (see the module documentation), rows as in `edges.csv`.
///
/// # Errors
/// [`ExportError`] when the file cannot be written; `path` is then untouched.
pub fn write_edges(
    path: &Path,
    shape: Shape,
    metric: crate::metric::Metric,
    progress: &dyn Progress,
) -> Result<(), ExportError> {
    let boards = shape.board_count().unwrap_or(0) as u32;
    crate::with_cells!(shape.cells(), N => write_file(
        path,
        (EDGES_SCHEMA, &["from", "to"]),
        boards,
        progress,
        |lo, hi| {
            gather(
                lo,
                hi,
                |a, b, (from, to): &mut (Vec<i32>, Vec<i32>)| {
                    graph::for_each_forward_edge_in::<N>(metric, shape.cols(), a, b, |r, _, nb, _| {
                        from.push(r as i32);
                        to.push(nb as i32);
                    });
                },
                |all, (from, to)| {
                    all.0.extend(from);
                    all.1.extend(to);
                },
            )
        },
        |group, (from, to)| {
            write_column::<Int32Type, _>(group, &from, None)?;
            write_column::<Int32Type, _>(group, &to, None)
        },
    ))
}

/// One row group of `nodes.parquet`: the columns, the depth's definition levels.
#[derive(Default)]
struct NodeRows {
    rank: Vec<i32>,
    board: Vec<ByteArray>,
    component: Vec<i32>,
    depth: Vec<i32>,
    defined: Vec<i16>,
}

/// Writes `nodes.parquet`: columns `rank`, `board`, `component`, `depth` (see the module
/// documentation), one row per board in rank order. Needs the analysis' per-board results.
///
/// # Errors
/// [`ExportError`] when the file cannot be written (or per-board results are missing).
pub fn write_nodes(
    path: &Path,
    analysis: &Analysis,
    progress: &dyn Progress,
) -> Result<(), ExportError> {
    let per_board = per_board_of(analysis, path)?;
    let shape = analysis.shape;
    crate::with_cells!(shape.cells(), N => write_file(
        path,
        (NODES_SCHEMA, &["rank"]),
        analysis.boards as u32,
        progress,
        |lo, hi| {
            gather(
                lo,
                hi,
                |a, b, rows: &mut NodeRows| {
                    let mut unranker = SequentialUnranker::<N>::default();
                    let mut label = Vec::with_capacity(3 * N);
                    for r in a..b {
                        let perm = unranker.unrank(u64::from(r)).perm;
                        label.clear();
                        put_board(&mut label, &perm, r, BoardFormat::Labels);
                        let (component, depth) = per_board.get(&perm, u64::from(r));
                        rows.rank.push(r as i32);
                        rows.board.push(ByteArray::from(label.clone()));
                        rows.component.push(component as i32);
                        rows.defined.push(i16::from(depth.is_some()));
                        if let Some(d) = depth {
                            rows.depth.push(i32::from(d));
                        }
                    }
                },
                |all, part| {
                    all.rank.extend(part.rank);
                    all.board.extend(part.board);
                    all.component.extend(part.component);
                    all.depth.extend(part.depth);
                    all.defined.extend(part.defined);
                },
            )
        },
        |group, rows: NodeRows| {
            write_column::<Int32Type, _>(group, &rows.rank, None)?;
            write_column::<ByteArrayType, _>(group, &rows.board, None)?;
            write_column::<Int32Type, _>(group, &rows.component, None)?;
            write_column::<Int32Type, _>(group, &rows.depth, Some(&rows.defined))
        },
    ))
}
