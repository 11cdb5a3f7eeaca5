//! Writing the whole graph's geometry ([`crate::geometry`], `analyze --all-pairs`):
//! `eccentricity.csv`, `distance_table.csv` and its `summary.json`.
//!
//! Pair counts are exact integers of up to 128 bits (2x7 has about `1.9 * 10^21` pairs): in
//! the CSV as digits, in the JSON as numbers (Python's `json` reads them exactly; R's
//! `jsonlite` and most CSV readers read them as doubles, exact only below `2^53`).

use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use super::{ExportError, Provenance, write_atomically};
use crate::geometry::Geometry;

/// Writes `eccentricity.csv`: one row per blank cell, ascending:
/// `cell,row,col,orbit,boards,eccentricity,mean_distance`: the cell (row-major, from 0), its
/// row and column (from 0), its orbit (index into [`Geometry::orbits`], which the BFS of that
/// index measured), the boards with the blank there (`(n-1)!`, all components), their
/// eccentricity (moves; empty when the search was depth-limited and did not run out of
/// boards), and their mean distance to the other boards of their component (moves; empty
/// likewise).
///
/// # Errors
/// [`ExportError`] when the file cannot be written.
pub fn write_eccentricity(path: &Path, geometry: &Geometry) -> Result<(), ExportError> {
    write_atomically(path, |out| {
        let mut csv = csv::Writer::from_writer(out);
        csv.write_record([
            "cell",
            "row",
            "col",
            "orbit",
            "boards",
            "eccentricity",
            "mean_distance",
        ])?;
        for cell in 0..geometry.shape.cells() {
            let orbit = geometry
                .orbit_of(cell)
                .expect("every cell lies in an orbit");
            let o = &geometry.orbits[orbit];
            let (row, col) = geometry.shape.coords(cell);
            csv.write_record([
                cell.to_string(),
                row.to_string(),
                col.to_string(),
                orbit.to_string(),
                geometry.boards_per_cell().to_string(),
                o.eccentricity().map_or(String::new(), |e| e.to_string()),
                o.mean_distance().map_or(String::new(), |m| m.to_string()),
            ])?;
        }
        csv.flush()
    })
}

/// Writes `distance_table.csv`: `distance,pairs`, one row per distance `d >= 1` up to the
/// diameter (the depth searched, when depth-limited) with the unordered pairs of boards at
/// distance `d`, as igraph's `distance_table()` counts them; then, when the search was
/// complete, the row `Inf,<unconnected>`: the pairs in different components (igraph's
/// `unconnected`; R, pandas and Python read `Inf` as infinity).
///
/// # Errors
/// [`ExportError`] when the file cannot be written.
pub fn write_distance_table(path: &Path, geometry: &Geometry) -> Result<(), ExportError> {
    write_atomically(path, |out| {
        let mut csv = csv::Writer::from_writer(out);
        csv.write_record(["distance", "pairs"])?;
        for (d, pairs) in geometry.distance_table().iter().enumerate().skip(1) {
            csv.write_record([d.to_string(), pairs.to_string()])?;
        }
        if let Some(unconnected) = geometry.unconnected_pairs() {
            csv.write_record(["Inf".to_string(), unconnected.to_string()])?;
        }
        csv.flush()
    })
}

/// The geometry's `summary.json`: the figures of [`Geometry`] as data. Figures that a
/// depth-limited search cannot know (eccentricities, diameter, radius, centre, periphery,
/// mean distance, unconnected pairs) are `null` when it did not run out of boards.
#[derive(Debug, Clone, Serialize)]
pub struct GeometrySummary {
    /// The shape, e.g. `3x3`.
    pub board: String,
    /// `stm` or `mtm`.
    pub metric: String,
    /// All boards, `n!`.
    pub boards: u128,
    /// Boards in one component (all are the same size); `null` when depth-limited.
    pub component_size: Option<u64>,
    /// Components: `n! / component_size`.
    pub components: Option<u128>,
    /// Every BFS ran out of boards.
    pub complete: bool,
    /// The deepest distance searched (the diameter when complete).
    pub max_depth_searched: u32,
    /// The largest eccentricity (moves).
    pub diameter: Option<u32>,
    /// The least eccentricity (moves).
    pub radius: Option<u32>,
    /// The boards of least eccentricity, and their blank cells.
    pub centre: Option<CellSet>,
    /// The boards of largest eccentricity, and their blank cells.
    pub periphery: Option<CellSet>,
    /// igraph's `mean_distance`: the mean over the pairs in one component (moves).
    pub mean_distance: Option<f64>,
    /// The sum of the distances over the pairs in one component (the mean's numerator).
    pub distance_sum: Option<u128>,
    /// The unordered pairs in one component (the mean's denominator).
    pub connected_pairs: Option<u128>,
    /// The unordered pairs in different components (igraph's `unconnected`).
    pub unconnected_pairs: Option<u128>,
    /// The unordered pairs at the diameter.
    pub pairs_at_diameter: Option<u128>,
    /// `pairs[d]`: unordered pairs at distance `d`, `d = 0..=max_depth_searched`
    /// (`pairs[0] = 0`), as `distance_table.csv`.
    pub pairs: Vec<u128>,
    /// One BFS per orbit of blank cells: which cells each answered for.
    pub orbits: Vec<OrbitSummary>,
    /// Which build and command wrote this (last).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub npuzzle: Option<Provenance>,
}

/// A set of boards given by their blank cells.
#[derive(Debug, Clone, Serialize)]
pub struct CellSet {
    /// The blank cells (row-major, from 0).
    pub cells: Vec<usize>,
    /// The boards: `(n-1)!` per cell.
    pub boards: u128,
}

/// One orbit's BFS in [`GeometrySummary`].
#[derive(Debug, Clone, Serialize)]
pub struct OrbitSummary {
    /// The orbit's cells (row-major, from 0).
    pub cells: Vec<usize>,
    /// The board the BFS started from (its label).
    pub start: String,
    /// The eccentricity of the boards with the blank on these cells (moves).
    pub eccentricity: Option<u32>,
    /// Their mean distance to the other boards of their component (moves).
    pub mean_distance: Option<f64>,
    /// `depth_counts[d]`: boards of the component at distance `d` from the start.
    pub depth_counts: Vec<u64>,
    /// The BFS ran out of boards.
    pub complete: bool,
}

impl GeometrySummary {
    /// The summary of `geometry`.
    pub fn of(geometry: &Geometry) -> GeometrySummary {
        let boards = geometry.boards();
        let cells =
            |c: Option<(Vec<usize>, u128)>| c.map(|(cells, boards)| CellSet { cells, boards });
        let pairs = geometry.distance_table();
        GeometrySummary {
            board: geometry.shape.to_string(),
            metric: geometry.metric.name().to_string(),
            boards,
            component_size: geometry.component_size(),
            components: geometry
                .component_size()
                .map(|s| boards / u128::from(s.max(1))),
            complete: geometry.complete(),
            max_depth_searched: pairs.len().saturating_sub(1) as u32,
            diameter: geometry.diameter(),
            radius: geometry.radius(),
            centre: cells(geometry.centre()),
            periphery: cells(geometry.periphery()),
            mean_distance: geometry.mean_distance(),
            distance_sum: geometry.distance_sum().map(|(s, _)| s),
            connected_pairs: geometry.connected_pairs(),
            unconnected_pairs: geometry.unconnected_pairs(),
            pairs_at_diameter: geometry.pairs_at_diameter(),
            pairs,
            orbits: geometry
                .orbits
                .iter()
                .map(|o| OrbitSummary {
                    cells: o.cells.clone(),
                    start: o.start.label(),
                    eccentricity: o.eccentricity(),
                    mean_distance: o.mean_distance(),
                    depth_counts: o.counts.clone(),
                    complete: o.complete,
                })
                .collect(),
            npuzzle: None,
        }
    }
}

/// Writes the geometry's `summary.json` ([`GeometrySummary`]), pretty-printed.
///
/// # Errors
/// [`ExportError`] when the file cannot be written.
pub fn write_summary(path: &Path, summary: &GeometrySummary) -> Result<(), ExportError> {
    write_atomically(path, |out| {
        serde_json::to_writer_pretty(&mut *out, summary).map_err(io::Error::other)?;
        out.write_all(b"\n")
    })
}
