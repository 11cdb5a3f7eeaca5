//! What a frontier search costs before it runs: wall time, peak disk and memory per machine,
//! and the traffic between machines, projected from the board's layer sizes and per-board
//! rates measured by the project's own runs (issue 63, "the plan, measured").
//!
//! - **Layer sizes** ([`published`]): the complete depth distributions of the boards up to 16
//!   cells in both metrics, copied with their source into `output/bench/plan/distributions.csv`
//!   from lightln2/SlidingTilesSolver's complete BFS results (4x4: OEIS A089484, multi-tile
//!   A389728; 3x5: A346737; 2x8: A355560). A board and its transpose have the same
//!   distribution. For a larger board the search to the end is projected from its component
//!   (`n!/2` boards, each expanded once) and an assumed widest layer ([`LayerSizes::Estimated`]),
//!   labelled as an estimate; a depth limit on such a board has no projection.
//! - **Rates** ([`Rates`]): `output/bench/plan/rates.csv`, each figure with the run it comes
//!   from and whether it is measured, derived or assumed.
//!
//! The model, per layer `d + 1` built from layer `d` on `P` machines of `C` cores (each owns
//! `1/P` of the segments; the fullest holds and does [`Rates::fullest_share`] times the mean
//! share of every layer, and sets the pace):
//! - time: `F |L_d| / (P C expand)` (`F` the fullest share) (scaled by the board's neighbours per board against the
//!   measured board's, [`neighbours_per_board`]) plus the bytes each machine sends over the network's rate;
//! - disk: layers `d - 1` and `d` (and `d - 2` with a checkpoint, the older slot) at
//!   [`Rates::layer_bytes`] a board, and the larger of layer `d + 1` and the incoming lists of
//!   layer `d + 1` (the moves that leave their segment, at
//!   [`Rates::incoming_bytes_per_board`] a board of layer `d`), over `P`: the lists are whole
//!   when the scatter ends, and their blocks are given back to the file system as the new
//!   layer's segments are written (`Incoming::take`), so the two together stay near the
//!   larger;
//! - memory: the maps of the segments (a bit per index of a segment per core,
//!   [`super::map_bytes`]), [`RESERVE`], the incoming lists' share in memory
//!   ([`super::spill_memory`]), and on `P` machines the `(P - 1) x 64 MiB` of the others'
//!   messages each holds ([`crate::bfs::cluster::frontier_held`]);
//! - traffic: [`Rates::traffic_bytes_per_board`] per board expanded, times `(P - 1) / P` (the
//!   neighbours that fall in other machines' segments).
//!
//! Pure functions: nothing here prints or reads a file at run time.

use super::config::{RESERVE, map_bytes, segments_for};
use crate::bfs::{Parity, ParitySpace, StateSpace};
use crate::metric::Metric;
use crate::shape::Shape;

/// The committed distributions file (`output/bench/plan/distributions.csv`): one line per
/// board and metric, `RxC,metric,sizes` (rows at most columns), `#` lines name the source.
pub const DISTRIBUTIONS: &str = include_str!("../../../output/bench/plan/distributions.csv");

/// The committed rates file (`output/bench/plan/rates.csv`): `name,value,unit,kind,source`.
pub const RATES: &str = include_str!("../../../output/bench/plan/rates.csv");

/// Where the distributions come from, as the projection cites it.
pub const DISTRIBUTIONS_SOURCE: &str = "lightln2/SlidingTilesSolver's complete BFS results \
     (output/bench/plan/distributions.csv)";

/// A depth limit at or past which a board without a published distribution is projected to
/// the end (the docs' `--max-depth 1000`, past every radius of the boards indexed).
pub const TO_THE_END: u32 = 1000;

/// The share of its component the widest layer of a board without a published distribution
/// is assumed to hold: 4x4's, 784,195,801,886 of 10,461,394,944,000 (7.5 %), the largest of
/// the 16-cell boards' (3x5: 7.0 %, 2x8: 3.5 %).
pub const ESTIMATED_WIDEST_SHARE: f64 = 0.075;

/// Neighbours per board (moves, averaged over the blank's cells) of the board the rates were
/// measured on: 4x4 in the single-tile metric, 48 moves over 16 cells.
pub const MEASURED_NEIGHBOURS: f64 = 3.0;

/// Neighbours per board of `shape` in `metric`, averaged over the blank's cells: single-tile
/// `2 (c - 1) / c + 2 (r - 1) / r`, multi-tile `(c - 1) + (r - 1)`. The time, the incoming
/// lists and the traffic per board expanded are scaled by its ratio to [`MEASURED_NEIGHBOURS`]
/// (each neighbour is made, set in a map or sorted, and perhaps sent): derived, not measured
/// on each board.
pub fn neighbours_per_board(shape: Shape, metric: Metric) -> f64 {
    let (r, c) = (shape.rows() as f64, shape.cols() as f64);
    match metric {
        Metric::Stm => 2.0 * (c - 1.0) / c + 2.0 * (r - 1.0) / r,
        Metric::Mtm => (c - 1.0) + (r - 1.0),
    }
}

/// The per-board rates a projection rests on (`output/bench/plan/rates.csv`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rates {
    /// Boards of a layer expanded per second per core (measured).
    pub expand_per_core: f64,
    /// Most bytes per board of a layer on disk (measured on sparse 4x4 layers); a denser
    /// layer takes less, down to 1 ([`Rates::layer_bytes`]).
    pub layer_bytes_max: f64,
    /// Bytes of the incoming lists on disk per board of the layer expanded (the neighbours
    /// that go through them, in gap-coded blocks; measured). Their tails in memory (4 bytes
    /// a neighbour) are counted at the same rate, capped by [`super::spill_memory`].
    pub incoming_bytes_per_board: f64,
    /// Bytes sent to other machines per board expanded, before the `(P - 1) / P` factor
    /// (measured by the distributed frontier search; `rates.csv` says on which run).
    pub traffic_bytes_per_board: f64,
    /// Bytes per second a machine sends (assumed: the network).
    pub network_bytes_per_s: f64,
    /// Whether the traffic figure is derived rather than measured (its kind in the file).
    pub traffic_derived: bool,
    /// The fullest process's share of the peak disk and of the work over the mean, by
    /// processes: `(P, share)` for 2, 4, 8 and 16 processes (measured on the segments' sizes
    /// of every layer of whole and depth-limited runs under [`super::Deal`], the
    /// largest of them; [`Rates::fullest_share`]).
    pub fullest: [(u32, f64); 4],
}

impl Rates {
    /// The committed rates ([`RATES`]).
    ///
    /// # Panics
    /// Never for the committed file (a test parses it); a broken file is a build's bug.
    pub fn measured() -> Rates {
        Rates::parse(RATES).expect("output/bench/plan/rates.csv parses")
    }

    /// Rates from a file in [`RATES`]'s format.
    ///
    /// # Errors
    /// A line that is not `name,value,unit,kind,source`, a value that is not a positive
    /// number, or a rate missing: one line naming it.
    pub fn parse(text: &str) -> Result<Rates, String> {
        let mut found = std::collections::HashMap::new();
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.splitn(5, ',').collect();
            if fields.len() < 4 {
                return Err(format!(
                    "rates: {line:?} is not name,value,unit,kind,source"
                ));
            }
            let value: f64 = fields[1]
                .trim()
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite() && *v > 0.0)
                .ok_or_else(|| {
                    format!(
                        "rates: {}: {:?} is not a positive number",
                        fields[0], fields[1]
                    )
                })?;
            found.insert(
                fields[0].trim().to_string(),
                (value, fields[3].trim().to_string()),
            );
        }
        let get = |name: &str| {
            found
                .get(name)
                .cloned()
                .ok_or_else(|| format!("rates: {name} is missing"))
        };
        Ok(Rates {
            expand_per_core: get("expand_boards_per_s_per_core")?.0,
            layer_bytes_max: get("layer_bytes_per_board_max")?.0,
            incoming_bytes_per_board: get("incoming_bytes_per_board")?.0,
            traffic_bytes_per_board: get("traffic_bytes_per_board")?.0,
            network_bytes_per_s: get("network_bytes_per_s")?.0,
            traffic_derived: get("traffic_bytes_per_board")?.1 == "derived",
            fullest: [
                (2, get("fullest_share_2")?.0),
                (4, get("fullest_share_4")?.0),
                (8, get("fullest_share_8")?.0),
                (16, get("fullest_share_16")?.0),
            ],
        })
    }

    /// How much more than the mean the fullest of `processes` processes holds and does (a
    /// factor at least 1): 1 on one machine; the measured figure of the fewest processes
    /// listed at least `processes`; past 16, the 16's excess grown by as much per doubling
    /// as from 8 to 16 (an extrapolation: nothing past 16 processes was measured).
    pub fn fullest_share(&self, processes: u32) -> f64 {
        if processes <= 1 {
            return 1.0;
        }
        if let Some(&(_, share)) = self.fullest.iter().find(|&&(p, _)| p >= processes) {
            return share.max(1.0);
        }
        let [.., (_, eight), (_, sixteen)] = self.fullest;
        let doublings = (f64::from(processes) / 16.0).log2();
        (sixteen + doublings * (sixteen - eight).max(0.0)).max(1.0)
    }

    /// Bytes of a layer of `boards` boards out of an index of `index` boards: gaps as LEB128
    /// varints, `1 + exp(-128 s) + exp(-16384 s) + ...` bytes a board for a share `s` of the
    /// index spread evenly, capped at the measured [`Rates::layer_bytes_max`] (layers cluster
    /// in the index, so sparse layers take less than an even spread would).
    pub fn layer_bytes(&self, boards: u64, index: u64) -> f64 {
        if boards == 0 || index == 0 {
            return 0.0;
        }
        let share = boards as f64 / index as f64;
        let even: f64 = 1.0
            + (1..=9)
                .map(|k| (-(128f64.powi(k)) * share).exp())
                .sum::<f64>();
        boards as f64 * even.min(self.layer_bytes_max).max(1.0)
    }
}

/// The machines a projection is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Machines {
    /// Machines (processes), each with its own disk: at least 1.
    pub processes: u32,
    /// Cores (threads) per machine: at least 1.
    pub cores: u32,
    /// The memory budget per machine, in bytes (`--memory`).
    pub memory: u64,
    /// Whether the layers are kept in a checkpoint folder (one more layer on disk: the older
    /// slot's).
    pub checkpoint: bool,
}

/// A board's layer sizes, as the projection knows them.
#[derive(Debug, Clone, PartialEq)]
pub enum LayerSizes {
    /// The complete distribution, published ([`published`]): `sizes[d]` boards at depth `d`.
    Published(Vec<u64>),
    /// No distribution: the component's boards and an assumed widest layer
    /// ([`ESTIMATED_WIDEST_SHARE`]); only the search to the end is projected.
    Estimated {
        /// Boards of the component (`n!/2`).
        component: u64,
    },
}

/// The complete depth distribution of `shape` (or its transpose) from the standard goal in
/// `metric`, from [`DISTRIBUTIONS`]; `None` for a board without one (more than 16 cells, or
/// a line).
pub fn published(shape: Shape, metric: Metric) -> Option<Vec<u64>> {
    if !shape.is_grid() {
        return None;
    }
    let (r, c) = (
        shape.rows().min(shape.cols()),
        shape.rows().max(shape.cols()),
    );
    let key = format!("{r}x{c}");
    DISTRIBUTIONS
        .lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|line| {
            let mut f = line.splitn(3, ',');
            let (board, m, sizes) = (f.next()?, f.next()?, f.next()?);
            (board == key && m == metric.name()).then(|| {
                sizes
                    .split_whitespace()
                    .filter_map(|s| s.parse().ok())
                    .collect()
            })
        })
}

/// The layer sizes a projection of `shape` in `metric` uses: published, or estimated from
/// the component for a grid the frontier search indexes; `None` for a line or a board beyond
/// the index.
pub fn layers(shape: Shape, metric: Metric) -> Option<LayerSizes> {
    if let Some(sizes) = published(shape, metric) {
        return Some(LayerSizes::Published(sizes));
    }
    let space = ParitySpace::with_metric(shape, Parity::Even, metric)?;
    Some(LayerSizes::Estimated {
        component: space.size(),
    })
}

/// What a frontier search costs on [`Machines`], projected ([`project`]). Bytes and seconds
/// are per machine unless said otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    /// The last depth the search builds (the depth limit, or the radius when it is below).
    pub depth: u32,
    /// Whether the search reaches the end (runs out of boards: the limit is past the
    /// radius). Unknown for an estimate (`None`).
    pub complete: Option<bool>,
    /// Whether the layer sizes are an estimate ([`LayerSizes::Estimated`]).
    pub estimated: bool,
    /// Boards expanded, all machines together (every layer before the last, and the last
    /// too when the search reaches the end).
    pub boards_expanded: u64,
    /// Projected wall time, in seconds.
    pub seconds: f64,
    /// Of which the time the network takes, in seconds (not overlapped with the work).
    pub network_seconds: f64,
    /// Peak bytes on each machine's disk (the layers and the incoming lists).
    pub peak_disk: u64,
    /// The depth of the layer being built at the peak of disk.
    pub peak_disk_depth: u32,
    /// Peak bytes of memory per machine: the maps, the fixed buffers, the incoming lists'
    /// share in memory and the other machines' messages it holds.
    pub peak_memory: u64,
    /// Bytes of the maps per machine (of [`Machines::cores`] threads).
    pub maps: u64,
    /// The depth of the widest layer built.
    pub widest_depth: u32,
    /// Its boards (all machines).
    pub widest_boards: u64,
    /// Bytes each machine sends while building the widest layer (0 on one machine).
    pub widest_traffic: u64,
    /// Bytes each machine sends in all.
    pub traffic: u64,
}

/// Projects a frontier search of `shape` in `metric` from the standard goal to `max_depth`
/// on `machines`, at `rates`. `None` when there is nothing to project from: a line, a board
/// beyond the index, a board without a published distribution below [`TO_THE_END`], or a
/// machine count or core count of 0.
pub fn project(
    shape: Shape,
    metric: Metric,
    max_depth: u32,
    machines: Machines,
    rates: &Rates,
) -> Option<Projection> {
    if machines.processes == 0 || machines.cores == 0 {
        return None;
    }
    let space = ParitySpace::with_metric(shape, Parity::Even, metric)?;
    let index = space.size();
    let held = crate::bfs::cluster::frontier_held(machines.processes as usize);
    // The maps of the machine's cores (the search's map_bytes on this machine's threads).
    let segments = segments_for(&space, 0, machines.processes as usize);
    let threads = rayon::current_num_threads().clamp(1, segments) as u64;
    let maps = map_bytes(&space, segments) / threads * u64::from(machines.cores);
    let p = f64::from(machines.processes);
    let fixed = maps + RESERVE + held;
    let scale = neighbours_per_board(shape, metric) / MEASURED_NEIGHBOURS;
    // The fullest process sets the pace and the disk each machine needs.
    let fullest = rates.fullest_share(machines.processes);
    let speed = p * f64::from(machines.cores) * rates.expand_per_core / scale / fullest;
    let send = rates.traffic_bytes_per_board * scale * (p - 1.0) / p;
    let rates = &Rates {
        incoming_bytes_per_board: rates.incoming_bytes_per_board * scale,
        ..*rates
    };
    // Beside them, while layer d + 1 is built from `expanded` boards into `next`: the
    // incoming lists' share in memory (at most `spill_memory`) and the segments written at once
    // (at most WINDOW_BYTES), this machine's share.
    let lists_and_window = |expanded: u64, next: u64| {
        let lists = (expanded as f64 / p * fullest * rates.incoming_bytes_per_board) as u64;
        let share = (next as f64 / p * fullest) as u64;
        let written = rates.layer_bytes(share, index) as u64;
        lists.min(super::spill_memory(segments)) + written.min(super::config::WINDOW_BYTES)
    };
    match layers(shape, metric)? {
        LayerSizes::Published(sizes) => {
            let radius = sizes.len() as u32 - 1;
            let depth = max_depth.min(radius);
            let size = |d: i64| -> u64 {
                usize::try_from(d)
                    .ok()
                    .and_then(|d| sizes.get(d))
                    .copied()
                    .filter(|_| d <= i64::from(depth))
                    .unwrap_or(0)
            };
            let mut out = Projection {
                depth,
                complete: Some(max_depth > radius),
                estimated: false,
                boards_expanded: 0,
                seconds: 0.0,
                network_seconds: 0.0,
                peak_disk: 0,
                peak_disk_depth: 0,
                peak_memory: fixed,
                maps,
                widest_depth: 0,
                widest_boards: 1,
                widest_traffic: 0,
                traffic: 0,
            };
            // A search past the radius expands the last layer too, and finds it empty.
            let last = if max_depth > radius { depth + 1 } else { depth };
            for d in 0..i64::from(last) {
                let expanded = size(d);
                let built = d as u32 + 1;
                out.boards_expanded += expanded;
                let sent = expanded as f64 / p * send;
                out.traffic += sent as u64;
                let network = sent / rates.network_bytes_per_s;
                out.network_seconds += network;
                out.seconds += expanded as f64 / speed + network;
                if size(d + 1) > out.widest_boards {
                    out.widest_depth = built;
                    out.widest_boards = size(d + 1);
                    out.widest_traffic = sent as u64;
                }
                out.peak_memory = out
                    .peak_memory
                    .max(fixed + lists_and_window(expanded, size(d + 1)));
                let disk = disk_while_building(
                    rates,
                    machines,
                    index,
                    [size(d - 2), size(d - 1), size(d), size(d + 1)],
                );
                if disk > out.peak_disk {
                    out.peak_disk = disk;
                    out.peak_disk_depth = built;
                }
            }
            Some(out)
        }
        LayerSizes::Estimated { component } => {
            if max_depth < TO_THE_END {
                return None;
            }
            let widest = (component as f64 * ESTIMATED_WIDEST_SHARE) as u64;
            let sent = component as f64 / p * send;
            let network = sent / rates.network_bytes_per_s;
            Some(Projection {
                depth: max_depth,
                complete: None,
                estimated: true,
                boards_expanded: component,
                seconds: component as f64 / speed + network,
                network_seconds: network,
                // The widest layer three times over (its neighbours are smaller).
                peak_disk: disk_while_building(
                    rates,
                    machines,
                    index,
                    [widest, widest, widest, widest],
                ),
                peak_disk_depth: 0,
                peak_memory: fixed + lists_and_window(widest, widest),
                maps,
                widest_depth: 0,
                widest_boards: widest,
                widest_traffic: (widest as f64 / p * send) as u64,
                traffic: sent as u64,
            })
        }
    }
}

/// Bytes on the fullest machine's disk while layer `d + 1` is built, from the sizes (all
/// machines) of layers `d - 2`, `d - 1`, `d` and `d + 1`: the layers kept, and the larger of
/// the new layer and the incoming lists (see the module documentation).
fn disk_while_building(
    rates: &Rates,
    machines: Machines,
    index: u64,
    [older, before, current, next]: [u64; 4],
) -> u64 {
    let p = u64::from(machines.processes.max(1));
    let fullest = rates.fullest_share(machines.processes);
    let layer = |boards: u64| rates.layer_bytes(boards / p, index / p) * fullest;
    let mut bytes = layer(before) + layer(current);
    if machines.checkpoint {
        bytes += layer(older);
    }
    let lists = current as f64 / p as f64 * fullest * rates.incoming_bytes_per_board;
    (bytes + lists.max(layer(next))) as u64
}

/// The disk a search of `shape` in `metric` from the standard goal to `max_depth` needs on
/// each of `processes` machines, projected at the committed rates ([`Rates::measured`]) with
/// the memory budget `memory` (bytes): `None` when there is no projection ([`project`]).
pub fn disk_needed(
    shape: Shape,
    metric: Metric,
    max_depth: u32,
    processes: u32,
    memory: u64,
    checkpoint: bool,
) -> Option<Projection> {
    project(
        shape,
        metric,
        max_depth,
        Machines {
            processes,
            cores: 1,
            memory,
            checkpoint,
        },
        &Rates::measured(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(r: usize, c: usize) -> Shape {
        Shape::new(r, c).unwrap()
    }

    /// The committed distributions against the figures they copy: every board's sum is its
    /// component (`n!/2`), the radii and antipodes of 4x4 (80, 17; OEIS A089484), 3x5 (84;
    /// A346737) and 2x8 (140; A355560), and in the multi-tile metric 4x4's 43 with 16
    /// antipodes (A389728); the in-repo OEIS entries agree term by term.
    #[test]
    fn the_distributions_are_the_published_ones() {
        let half_factorial = |n: u64| (1..=n).product::<u64>() / 2;
        let mut lines = 0;
        for line in DISTRIBUTIONS.lines().filter(|l| !l.starts_with('#')) {
            let mut f = line.split(',');
            let (board, metric) = (f.next().unwrap(), f.next().unwrap());
            let (r, c) = board.split_once('x').unwrap();
            let s = shape(r.parse().unwrap(), c.parse().unwrap());
            let m = if metric == "stm" {
                Metric::Stm
            } else {
                Metric::Mtm
            };
            let sizes = published(s, m).unwrap();
            assert_eq!(
                sizes.iter().sum::<u64>(),
                half_factorial(s.cells() as u64),
                "{board} {metric}"
            );
            assert_eq!(published(shape(s.cols(), s.rows()), m), Some(sizes));
            lines += 1;
        }
        assert_eq!(lines, 22);
        let four = published(shape(4, 4), Metric::Stm).unwrap();
        assert_eq!(four.iter().sum::<u64>(), 10_461_394_944_000);
        assert_eq!((four.len() - 1, *four.last().unwrap()), (80, 17));
        let three_five = published(shape(3, 5), Metric::Stm).unwrap();
        assert_eq!(three_five.iter().sum::<u64>(), 653_837_184_000);
        assert_eq!(three_five.len() - 1, 84);
        let two_eight = published(shape(2, 8), Metric::Stm).unwrap();
        assert_eq!(two_eight.iter().sum::<u64>(), 10_461_394_944_000);
        assert_eq!(two_eight.len() - 1, 140);
        let four_mtm = published(shape(4, 4), Metric::Mtm).unwrap();
        assert_eq!((four_mtm.len() - 1, *four_mtm.last().unwrap()), (43, 16));
        use crate::published::*;
        assert_eq!(four[..21], A089484_TO_20);
        assert_eq!(published(shape(3, 3), Metric::Stm).unwrap(), A089473);
        assert_eq!(published(shape(2, 3), Metric::Stm).unwrap(), A090034);
        assert_eq!(published(shape(2, 4), Metric::Stm).unwrap(), A090035);
        assert_eq!(published(shape(2, 5), Metric::Stm).unwrap(), A090036);
        // The project's own runs: 3x5 to depth 35 and 2x8 to depth 44 (output/bench).
        assert_eq!(three_five[35], 1_253_605_100);
        assert_eq!(two_eight[44], 692_814_488);
        assert_eq!(published(shape(4, 5), Metric::Stm), None);
    }

    /// The committed rates parse; a bad file is an error naming the figure.
    #[test]
    fn the_rates_parse() {
        let r = Rates::measured();
        assert_eq!(r.expand_per_core, 9_180_000.0);
        assert_eq!(r.incoming_bytes_per_board, 1.07);
        // Measured across 3 processes (issue 74, output/bench/frontier-cluster-resume/).
        assert!(!r.traffic_derived);
        assert_eq!(r.traffic_bytes_per_board, 2.0);
        assert!(
            Rates::parse("expand_boards_per_s_per_core,x,u,measured,s")
                .unwrap_err()
                .contains("expand_boards_per_s_per_core")
        );
        assert!(Rates::parse("").unwrap_err().contains("missing"));
    }

    /// The fullest process's share: 1 alone, the measured figure of the fewest processes
    /// listed at least as many, and past 16 an extrapolation that only grows.
    #[test]
    fn the_fullest_share_grows_with_the_processes() {
        let r = Rates {
            fullest: [(2, 1.02), (4, 1.05), (8, 1.08), (16, 1.12)],
            ..Rates::measured()
        };
        assert_eq!(r.fullest_share(1), 1.0);
        assert_eq!(r.fullest_share(2), 1.02);
        assert_eq!(r.fullest_share(3), 1.05);
        assert_eq!(r.fullest_share(16), 1.12);
        assert!((r.fullest_share(32) - 1.16).abs() < 1e-9);
        assert!(r.fullest_share(64) > r.fullest_share(32));
        let m = Rates::measured();
        assert!(
            (1.0..1.5).contains(&m.fullest_share(4)),
            "{}",
            m.fullest_share(4)
        );
    }

    /// 4x4 to depth 33 on one machine of 2 cores, projected, against the committed run of
    /// the segment maps (output/bench/4x4-d33-maps: 340.6 s) and the sixth stop's count of
    /// its disk while layer 33 was built (7.42 GB): the time within a factor of 1.5, the disk
    /// within 1.25; 4x4 to depth 36, whose run the rates come from
    /// (output/bench/frontier-sixth-stop: 1,044.99 s, 28.74 GB peak disk, 2.25 GB peak RSS
    /// under a 24.81 GB budget): the time, the peak disk and the memory within 1.25. (The rate is 4x4's mostly sparse layers'; a
    /// dense board such as 3x4 or 2x7 goes about twice as fast a board, which the plan does
    /// not model.)
    #[test]
    fn the_projection_of_measured_runs_is_within_a_factor() {
        let rates = Rates::measured();
        let one = |memory, checkpoint| Machines {
            processes: 1,
            cores: 2,
            memory,
            checkpoint,
        };
        let p = project(
            shape(4, 4),
            Metric::Stm,
            33,
            one(24_810_000_000, false),
            &rates,
        )
        .unwrap();
        assert_eq!(p.depth, 33);
        assert_eq!(p.complete, Some(false));
        assert_eq!(p.boards_expanded, 7_094_297_367 - 2_873_077_198);
        let ratio = p.seconds / 340.6;
        assert!((1.0 / 1.5..=1.5).contains(&ratio), "{} s", p.seconds);
        // (output/bench/frontier-sixth-stop: 7.42 GB on disk at most while layer 33 was
        // built, the search's own count, the layers and the incoming lists' file.)
        let disk = p.peak_disk as f64 / 7.42e9;
        assert!((1.0 / 1.25..=1.25).contains(&disk), "{} bytes", p.peak_disk);
        assert_eq!(p.traffic, 0);
        // And the run the rate comes from (output/bench/frontier-sixth-stop: 1,044.99 s,
        // 28.74 GB peak disk, df's used bytes sampled every 5 s; 2.25 GB peak RSS).
        let p = project(
            shape(4, 4),
            Metric::Stm,
            36,
            one(24_810_000_000, false),
            &rates,
        );
        let p = p.unwrap();
        assert_eq!(p.boards_expanded, 19_194_628_654);
        let ratio = p.seconds / 1044.99;
        assert!((1.0 / 1.25..=1.25).contains(&ratio), "{} s", p.seconds);
        let disk = p.peak_disk as f64 / 28.74e9;
        assert!((1.0 / 1.25..=1.25).contains(&disk), "{} bytes", p.peak_disk);
        let memory = p.peak_memory as f64 / 2.25e9;
        assert!(
            (1.0 / 1.25..=1.25).contains(&memory),
            "{} bytes",
            p.peak_memory
        );
    }

    /// More machines: the time and the disk per machine fall about as `1/P` (times the
    /// fullest share), the traffic per
    /// machine rises from 0; a board without a distribution is projected to the end only,
    /// labelled an estimate; a line has no projection.
    #[test]
    fn machines_share_the_work() {
        let rates = Rates::measured();
        let on = |processes| Machines {
            processes,
            cores: 16,
            memory: 64_000_000_000,
            checkpoint: true,
        };
        let one = project(shape(4, 4), Metric::Stm, TO_THE_END, on(1), &rates).unwrap();
        let four = project(shape(4, 4), Metric::Stm, TO_THE_END, on(4), &rates).unwrap();
        assert_eq!(one.complete, Some(true));
        assert_eq!(one.depth, 80);
        assert_eq!(one.widest_depth, 53);
        assert_eq!(one.widest_boards, 784_195_801_886);
        assert_eq!(one.traffic, 0);
        assert!(four.traffic > 0 && four.widest_traffic > 0);
        assert!(four.seconds < one.seconds / 3.0 && four.seconds > one.seconds / 5.0);
        assert!(four.peak_disk < one.peak_disk / 3 && four.peak_disk > one.peak_disk / 5);
        // Across 4 machines the index is cut by 4 tiles, not 3 (at least PER_PROCESS
        // segments a process): maps 12 times smaller (16 x 12!/2 against 16 x 11!/2 bits a
        // core); each machine holds 64 MiB of each other's messages beside them.
        assert_eq!(one.maps, 12 * four.maps);
        assert!(four.peak_memory >= four.maps + RESERVE + 3 * (64 << 20));
        assert!(four.peak_memory < one.peak_memory);
        // The multi-tile metric: twice the moves a board (6 against 3), twice the time.
        let mtm = project(shape(4, 4), Metric::Mtm, TO_THE_END, on(1), &rates).unwrap();
        assert_eq!((mtm.depth, mtm.widest_depth), (43, 33));
        let ratio = mtm.seconds / one.seconds;
        assert!((ratio - 2.0).abs() < 1e-9, "{ratio}");
        let twenty = project(shape(4, 5), Metric::Stm, TO_THE_END, on(16), &rates).unwrap();
        assert!(twenty.estimated);
        assert_eq!(twenty.boards_expanded, 1_216_451_004_088_320_000);
        assert!(project(shape(4, 5), Metric::Stm, 40, on(16), &rates).is_none());
        assert!(project(shape(1, 8), Metric::Stm, 40, on(1), &rates).is_none());
        assert!(project(shape(4, 4), Metric::Stm, 40, on(0), &rates).is_none());
    }
}
