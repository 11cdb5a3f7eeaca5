//! `analyze --max-depth D --plan`: the projection of a frontier search
//! ([`npuzzle::bfs::frontier::plan`]) formatted as a table, one row per number of machines.

use indicatif::{DecimalBytes, HumanCount};
use npuzzle::analysis;
use npuzzle::bfs::frontier::plan::{self, Machines, Projection, Rates};
use npuzzle::metric::Metric;
use npuzzle::{Board, Shape};

use super::AnalyzeArgs;
use crate::cli::CliError;

/// The machine counts of the table when `--processes` is not given.
const MACHINES: [usize; 4] = [1, 4, 8, 16];

/// Prints the projection of `args`' search of `shape` from `goal` and returns. The flags are
/// checked by the search's own rules first (the board in the index, the distributed flags'
/// limits, the memory budget with the messages each machine holds): the same one-line usage
/// errors as the search. Also a usage error for another goal than the standard one, or a
/// board without a projection (a line; a grid without a published distribution, short of the
/// end). A machine count of the default table whose budget the search would refuse is a row
/// saying so.
pub(super) fn print(args: &AnalyzeArgs, shape: Shape, goal: &Board) -> Result<(), CliError> {
    let depth = args.max_depth.unwrap_or(plan::TO_THE_END);
    let metric = Metric::from(args.metric);
    if *goal != Board::goal(shape) || args.all_pairs {
        return Err(CliError::usage(
            "--plan projects the search from the standard goal (its published layer sizes): \
             run it without --goal and --all-pairs",
        ));
    }
    analysis::plan_limited(shape).map_err(CliError::usage)?;
    let cluster = args.cluster.cluster(true)?;
    let cores = cluster.as_ref().map_or_else(
        || std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
        |c| c.workers,
    );
    let memory = args.memory.unwrap_or_else(analysis::available_memory);
    let asked = args.cluster.asked();
    // Each count the search refuses: an error for the count asked for (or one machine), a
    // row of the default table.
    let mut refused = Vec::new();
    let mut machines = Vec::new();
    for processes in asked.map_or(MACHINES.to_vec(), |p| vec![p]) {
        match analysis::check_limited_memory(shape, metric, Some(memory), processes) {
            Ok(()) => machines.push(processes as u32),
            Err(e) if machines.is_empty() => return Err(CliError::usage(e)),
            Err(e) => refused.push((processes, e.to_string())),
        }
    }
    let checkpoint = args.cluster.checkpoint.is_some();
    let rates = Rates::measured();
    let rows: Vec<(u32, Projection)> = machines
        .iter()
        .map(|&processes| {
            let on = Machines {
                processes,
                cores: cores as u32,
                memory,
                checkpoint,
            };
            plan::project(shape, metric, depth, on, &rates).map(|p| (processes, p))
        })
        .collect::<Option<_>>()
        .ok_or_else(|| CliError::usage(no_projection(shape, metric, depth)))?;
    print!(
        "{}",
        table(
            shape,
            metric,
            cores as u32,
            memory,
            checkpoint,
            &rates,
            &rows
        )
    );
    for (processes, why) in refused {
        println!("{processes:>8}  refused by the search: {why}");
    }
    Ok(())
}

/// Why there is no projection of `shape` in `metric` to `depth` (a board in the index): what
/// limits it, and a deeper `--max-depth` only when that gives one.
fn no_projection(shape: Shape, metric: Metric, depth: u32) -> String {
    match plan::layers(shape, metric) {
        Some(plan::LayerSizes::Estimated { component }) if depth < plan::TO_THE_END => format!(
            "no projection for {shape} to depth {depth}: its layer sizes are published for \
             boards of 2 rows and 2 columns up to 16 cells; a larger grid is projected only to \
             the end, from its {} boards (--max-depth {} or more)",
            HumanCount(component),
            plan::TO_THE_END
        ),
        _ if !shape.is_grid() => format!(
            "no projection for {shape}: it rests on the layer sizes of boards of 2 rows and 2 \
             columns (published up to 16 cells, estimated from the component up to {}); a \
             one-row board has none at any --max-depth",
            npuzzle::bfs::ParitySpace::MAX_CELLS
        ),
        _ => format!("no projection for {shape} to depth {depth}"),
    }
}

/// The projection as text: what it is of, what it rests on, and a row per machine count.
fn table(
    shape: Shape,
    metric: Metric,
    cores: u32,
    memory: u64,
    checkpoint: bool,
    rates: &Rates,
    rows: &[(u32, Projection)],
) -> String {
    let Some((_, first)) = rows.first() else {
        return String::new();
    };
    let mut out = String::new();
    let reach = match first.complete {
        Some(true) => format!("to the end (depth {}, the radius)", first.depth),
        Some(false) => format!("to depth {}", first.depth),
        None => "to the end".to_string(),
    };
    out.push_str(&format!(
        "plan         {shape} in the {} metric from the standard goal, {reach}: a projection, \
         not a measurement\n",
        metric.long_name()
    ));
    if first.estimated {
        out.push_str(&format!(
            "layers       estimated (no published distribution): its {} boards each expanded \
             once, the widest layer assumed to hold {:.1} % of them\n",
            HumanCount(first.boards_expanded),
            plan::ESTIMATED_WIDEST_SHARE * 100.0
        ));
    } else {
        out.push_str(&format!(
            "layers       published ({}): {} boards expanded; the widest layer built, depth \
             {}, {} boards\n",
            plan::DISTRIBUTIONS_SOURCE,
            HumanCount(first.boards_expanded),
            first.widest_depth,
            HumanCount(first.widest_boards)
        ));
    }
    out.push_str(&format!(
        "each machine {cores} cores, a memory budget of {} ({} of maps), the layers on its \
         own disk{}\n",
        DecimalBytes(memory),
        DecimalBytes(first.maps),
        if checkpoint {
            " in a checkpoint folder"
        } else {
            ""
        }
    ));
    out.push_str(&format!(
        "rates        {} boards expanded/s a core (measured); a layer at most {} B a board \
         (measured); incoming lists {} B a board expanded (measured); {} B sent a board expanded x \
         (P-1)/P ({}); the network {}/s a machine (assumed): output/bench/plan/rates.csv\n\n",
        HumanCount(rates.expand_per_core as u64),
        rates.layer_bytes_max,
        rates.incoming_bytes_per_board,
        rates.traffic_bytes_per_board,
        if rates.traffic_derived {
            "derived"
        } else {
            "measured"
        },
        DecimalBytes(rates.network_bytes_per_s as u64)
    ));
    out.push_str(&format!(
        "{:>8}  {:>10}  {:>10}  {:>20}  {:>11}  {:>20}  {:>12}\n",
        "machines",
        "wall",
        "of network",
        "peak disk/machine",
        "memory",
        "sent/machine, widest",
        "sent/machine"
    ));
    for (machines, p) in rows {
        out.push_str(&format!(
            "{:>8}  {:>10}  {:>10}  {:>20}  {:>11}  {:>20}  {:>12}\n",
            machines,
            duration(p.seconds),
            duration(p.network_seconds),
            if p.estimated {
                format!("{}", DecimalBytes(p.peak_disk))
            } else {
                format!("{} (d {})", DecimalBytes(p.peak_disk), p.peak_disk_depth)
            },
            DecimalBytes(p.peak_memory).to_string(),
            DecimalBytes(p.widest_traffic).to_string(),
            DecimalBytes(p.traffic).to_string()
        ));
    }
    out
}

/// Seconds as minutes, hours or days, three figures.
fn duration(seconds: f64) -> String {
    if seconds < 60.0 {
        format!("{seconds:.1} s")
    } else if seconds < 3600.0 {
        format!("{:.1} min", seconds / 60.0)
    } else if seconds < 4.0 * 86_400.0 {
        format!("{:.1} h", seconds / 3600.0)
    } else {
        format!("{:.1} days", seconds / 86_400.0)
    }
}
