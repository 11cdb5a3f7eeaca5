//! `npuzzle analyze --all-pairs`: the whole game graph's geometry ([`npuzzle::geometry`]), one
//! BFS per orbit of blank cells on any engine, written to `<R>x<C>[-mtm]/geometry/`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use npuzzle::analysis::{self, Options};
use npuzzle::bfs::cluster::{Cluster, ClusterError};
use npuzzle::export::geometry::{self as files, GeometrySummary};
use npuzzle::export::{self, Provenance};
use npuzzle::geometry::{self, Geometry};
use npuzzle::metric::Metric;
use npuzzle::{Shape, plot};

use super::CliError;
use super::progress::Bars;
use npuzzle::progress::Progress;

/// The files `--all-pairs` writes into its folder.
pub const OUTPUTS: [&str; 4] = [
    "eccentricity.csv",
    "distance_table.csv",
    "summary.json",
    "distances_by_cell.png",
];

/// What `analyze --all-pairs` was asked, its flags checked by `analyze`.
pub struct Request {
    /// The board shape.
    pub shape: Shape,
    /// What one move is.
    pub metric: Metric,
    /// The results folder of the shape (`output/3x3`); the files go to its `geometry/`.
    pub dir: PathBuf,
    /// No report and no progress bars.
    pub quiet: bool,
    /// `--max-depth`, with where the frontier search keeps its layers and its budget.
    pub limited: Option<(u32, npuzzle::bfs::frontier::Storage)>,
    /// The distributed engine's configuration, when asked.
    pub cluster: Option<Cluster>,
    /// `--log-scale` / `--linear-scale` for the chart, `None` for the default.
    pub scale: Option<plot::Scale>,
    /// When the command started.
    pub started: Instant,
}

/// Runs `analyze --all-pairs`.
pub fn run(request: Request) -> Result<(), CliError> {
    let Request {
        shape,
        metric,
        dir,
        quiet,
        limited,
        cluster,
        scale,
        started,
    } = request;
    let options = Options {
        metric,
        ..Options::default()
    };
    // Refused before any work, naming the largest boards that fit.
    match (&cluster, &limited) {
        (None, None) => {
            analysis::plan(shape, options, analysis::available_memory())
                .map_err(CliError::usage)?;
        }
        (Some(c), None) => analysis::check_cluster(shape, options, c).map_err(CliError::usage)?,
        (_, Some(_)) => analysis::plan_limited(shape).map_err(CliError::usage)?,
    }
    let dir = dir.join("geometry");
    let writes = cluster.as_ref().is_none_or(|c| c.process == 0);
    if writes {
        export::prepare_dir(&dir).map_err(CliError::runtime)?;
    }
    let bars = Bars::new(!quiet && writes);
    let orbits = geometry::cell_orbits(shape, metric).len();
    let mut limited_notes = Vec::new();
    let mut seconds = Vec::new();
    let result = Geometry::new(shape, metric, |i, cells, start| {
        bars.note(&geometry::orbit_note(i, orbits, cells, start));
        let began = Instant::now();
        let bfs = match (&cluster, &limited) {
            (None, None) => {
                let a = analysis::analyze_unchecked(start, options, &bars)
                    .map_err(CliError::runtime)?;
                Ok((a.distances.layer_sizes, true))
            }
            (None, Some((depth, storage))) => {
                let (a, l) = analysis::analyze_limited(start, metric, *depth, storage, &bars)
                    .map_err(CliError::limited)?;
                if let Some(why) = l.stopped {
                    limited_notes.push(format!("BFS {} of {orbits}: {why}", i + 1));
                }
                Ok((a.distances.layer_sizes, l.complete))
            }
            // One frontier search across the processes per orbit, each on the same addresses.
            (Some(c), Some((depth, storage))) => {
                match analysis::analyze_limited_cluster(start, metric, *depth, storage, c, &bars)
                    .map_err(CliError::limited)?
                {
                    Some((a, l)) => {
                        if let Some(why) = l.stopped {
                            limited_notes.push(format!("BFS {} of {orbits}: {why}", i + 1));
                        }
                        Ok((a.distances.layer_sizes, l.complete))
                    }
                    // As below: process 0 writes.
                    None => Ok((vec![1], true)),
                }
            }
            (Some(c), None) => match analysis::analyze_cluster(start, options, c, &bars, None) {
                Ok(Some(a)) => Ok((a.distances.layer_sizes, true)),
                // The other processes take part in every BFS; process 0 writes.
                Ok(None) => Ok((vec![1], true)),
                Err(e @ ClusterError::Config(_)) => Err(CliError::usage(e)),
                Err(e) => Err(CliError::runtime(e)),
            },
        };
        seconds.push(began.elapsed().as_secs_f64());
        bfs
    })?;
    if !writes {
        if !quiet {
            let c = cluster.as_ref().expect("a cluster");
            println!(
                "process {} of {}: done (process 0 writes the results)",
                c.process, c.processes
            );
        }
        return Ok(());
    }
    let mut summary = GeometrySummary::of(&result);
    summary.npuzzle = Some(Provenance::of_this_build(super::arguments()));
    let path = |name: &str| dir.join(name);
    files::write_eccentricity(&path("eccentricity.csv"), &result).map_err(CliError::runtime)?;
    files::write_distance_table(&path("distance_table.csv"), &result).map_err(CliError::runtime)?;
    files::write_summary(&path("summary.json"), &summary).map_err(CliError::runtime)?;
    draw(&path("distances_by_cell.png"), &result, scale)?;
    if !quiet {
        print!(
            "{}",
            report(
                &result,
                &dir,
                &limited_notes,
                &seconds,
                started.elapsed().as_secs_f64()
            )
        );
    }
    Ok(())
}

/// The label of an orbit's series: `blank on cells 0, 2, 6, 8`.
fn cells_label(cells: &[usize]) -> String {
    format!("blank on {}", geometry::cells_text(cells))
}

/// Draws the per-orbit distance distributions on one chart, one line per orbit.
pub fn draw(
    file: &std::path::Path,
    geometry: &Geometry,
    scale: Option<plot::Scale>,
) -> Result<(), CliError> {
    let labels: Vec<String> = geometry
        .orbits
        .iter()
        .map(|o| cells_label(&o.cells))
        .collect();
    let series: Vec<plot::DepthSeries> = geometry
        .orbits
        .iter()
        .zip(&labels)
        .map(|(o, label)| plot::DepthSeries {
            board: label,
            counts: &o.counts,
            goal: None,
            partial: !o.complete,
        })
        .collect();
    let scale = scale.unwrap_or_else(|| {
        plot::Scale::auto(geometry.orbits.iter().map(|o| (&o.counts[..], !o.complete)))
    });
    let title = format!(
        "{}{}: distances from a board, by its blank cell",
        geometry.shape,
        match geometry.metric {
            Metric::Stm => String::new(),
            m => format!(" ({} metric)", m.long_name()),
        }
    );
    let words = plot::Words {
        title: &title,
        counted: "boards of its component",
        x_title: "distance (moves)",
        deepest: "eccentricity",
    };
    plot::write_comparison(&series, scale, &words, file).map_err(|e| match e {
        plot::PlotError::NoData(_) => CliError::usage(e),
        _ => CliError::runtime(e),
    })
}

/// The report: the figures in a few lines, and where the files are.
/// `times`: each BFS's seconds; `seconds`: the whole command's.
fn report(
    geometry: &Geometry,
    dir: &std::path::Path,
    notes: &[String],
    times: &[f64],
    seconds: f64,
) -> String {
    let mut s = String::new();
    let metric = match geometry.metric {
        Metric::Stm => String::new(),
        m => format!(", {} metric", m.long_name()),
    };
    let _ = writeln!(
        s,
        "{}{metric}: {} boards, one BFS per orbit of blank cells ({}) in {seconds:.1} s",
        geometry.shape,
        grouped(geometry.boards()),
        geometry.orbits.len()
    );
    for (i, o) in geometry.orbits.iter().enumerate() {
        let _ = writeln!(
            s,
            "  orbit {i}, {}: eccentricity {}, mean distance {} ({:.1} s)",
            cells_label(&o.cells),
            o.eccentricity()
                .map_or(format!("above {}", o.counts.len() - 1), |e| e.to_string()),
            o.mean_distance()
                .map_or("unknown".to_string(), |m| format!("{m:.4}")),
            times.get(i).copied().unwrap_or(0.0)
        );
    }
    match (
        geometry.diameter(),
        geometry.radius(),
        geometry.mean_distance(),
        geometry.pairs_at_diameter(),
        geometry.centre(),
        geometry.periphery(),
    ) {
        (Some(d), Some(r), Some(mean), Some(pairs), Some(centre), Some(periphery)) => {
            let _ = writeln!(
                s,
                "diameter {d}, radius {r}; mean distance {mean:.4} over {} connected pairs; \
                 {} pairs at the diameter",
                grouped(geometry.connected_pairs().unwrap_or(0)),
                grouped(pairs)
            );
            let _ = writeln!(
                s,
                "centre: {} boards (blank on {:?}); periphery: {} boards (blank on {:?})",
                grouped(centre.1),
                centre.0,
                grouped(periphery.1),
                periphery.0
            );
        }
        _ => {
            let _ = writeln!(
                s,
                "partial: distances searched to {}; no diameter, radius or mean is claimed \
                 (the pair counts up to that distance are exact)",
                geometry.distance_table().len().saturating_sub(1)
            );
        }
    }
    for note in notes {
        let _ = writeln!(s, "note: {note}");
    }
    let _ = writeln!(s, "wrote {} to {}", OUTPUTS.join(", "), super::shown(dir));
    s
}

/// `n` with its digits grouped by threes, `1,234,567` (u128: pair counts pass `u64`).
fn grouped(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
