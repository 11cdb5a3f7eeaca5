//! The report `analyze` prints at the end of a run: the counts, the depths, the hardest
//! boards, the files written, and the notes on how the search went.

use std::fmt::Write as _;
use std::path::Path;

use indicatif::{DecimalBytes, HumanCount};
use npuzzle::bfs::cluster::Cluster;
use npuzzle::export::Summary;
use npuzzle::metric::Metric;

use super::Found;

/// The report's notes on how the search went: a distributed run's traffic and checkpoints,
/// a depth-limited search's depth, memory and checkpoints.
pub(super) fn run_notes(found: &Found, cluster: Option<&Cluster>) -> Vec<String> {
    let mut notes = Vec::new();
    if let (Some(t), Some(c)) = (found.result.traffic, cluster) {
        notes.push(format!(
            "distributed over {} process(es) x {} worker(s): {} boards expanded, {} indices \
             sent to other workers in {} ({:.2} bytes per board expanded)",
            c.processes,
            c.workers,
            HumanCount(t.expanded),
            HumanCount(t.sent_indices),
            DecimalBytes(t.sent_bytes),
            t.sent_bytes as f64 / t.expanded.max(1) as f64
        ));
        if c.processes > 1 {
            notes.push(format!(
                "received lists held unclaimed: at most {} by a process, {} in flight to one \
                 (bound {}, in the memory plan)",
                DecimalBytes(t.peak_unclaimed),
                DecimalBytes(t.peak_in_flight),
                DecimalBytes(t.received_bound)
            ));
        }
        if t.saves > 0 {
            notes.push(format!(
                "{} checkpoint(s) saved: {} in {:.1} s ({}/s, syncs included)",
                t.saves,
                DecimalBytes(t.saved_bytes),
                t.save_micros as f64 / 1e6,
                DecimalBytes((t.saved_bytes as f64 / (t.save_micros.max(1) as f64 / 1e6)) as u64)
            ));
        }
        if let Some(step) = t.resumed_from {
            notes.push(format!(
                "resumed from the checkpoint after layer step {step} (the counts include the work before it)"
            ));
        }
    }
    if let Some(l) = &found.limited {
        notes.push(format!(
            "depth-limited search to depth {}: {}; at most {} of layers, incoming lists, maps \
             and buffers in memory; {} segments a layer, {} built in a map and {} by a sort",
            l.max_depth_searched,
            if l.complete {
                "complete (it ran out of boards first)"
            } else {
                "partial"
            },
            DecimalBytes(l.peak_bytes),
            HumanCount(l.segments as u64),
            HumanCount(l.maps),
            HumanCount(l.sorted)
        ));
        notes.push(l.verification.line(l.complete));
        if l.processes > 1 {
            notes.push(format!(
                "across {} processes: {} boards expanded, {} of neighbours sent to other \
                 processes ({:.2} bytes per board expanded)",
                l.processes,
                HumanCount(l.expanded),
                DecimalBytes(l.sent_bytes),
                l.sent_bytes as f64 / l.expanded.max(1) as f64
            ));
            // The layer that sent the most per board (summary.json has every layer's).
            let per_board = |&(_, e, s): &(u32, u64, u64)| s as f64 / e.max(1) as f64;
            if let Some(most) = l
                .traffic_by_depth
                .iter()
                .max_by(|a, b| per_board(a).total_cmp(&per_board(b)))
            {
                notes.push(format!(
                    "bytes sent per board expanded, by layer: at most {:.2} (depth {}), {:.2} \
                     for the last; every layer's in summary.json",
                    per_board(most),
                    most.0,
                    l.traffic_by_depth.last().map_or(0.0, per_board)
                ));
            }
        }
        if let Some(why) = &l.stopped {
            notes.push(why.clone());
        }
        if l.saved_bytes > 0 {
            let seconds = l.save_time.as_secs_f64();
            notes.push(format!(
                "checkpoint: {} written in {seconds:.1} s ({}/s, checksums and syncs included)",
                DecimalBytes(l.saved_bytes),
                DecimalBytes((l.saved_bytes as f64 / seconds.max(1e-6)) as u64)
            ));
        }
        if let Some(depth) = l.resumed_from {
            notes.push(format!(
                "resumed from the checkpoint after depth {depth} (the layers before it were \
                 found by the runs it resumes, in {:.1} s of their time; the boards expanded \
                 and the traffic count them)",
                l.seconds_before.as_secs_f64()
            ));
        }
    }
    notes
}

pub(super) fn report(
    summary: &Summary,
    dir: &Path,
    written: &[&str],
    notes: &[String],
    seconds: f64,
) -> String {
    let mut s = String::new();
    let sizes: Vec<String> = summary
        .components
        .sizes
        .iter()
        .map(|c| format!("{} x {}", HumanCount(c.count), HumanCount(c.size)))
        .collect();
    let _ = writeln!(
        s,
        "board        {} ({} rows x {} columns), goal {}",
        summary.board, summary.rows, summary.cols, summary.goal
    );
    let metric = summary.metric();
    let _ = writeln!(
        s,
        "metric       {} ({}: {})",
        metric.long_name(),
        metric.name(),
        match metric {
            Metric::Stm => "one tile slides one cell per move",
            Metric::Mtm => "1 to k tiles of the blank's row or column slide per move",
        }
    );
    let _ = writeln!(s, "boards       {}", HumanCount(summary.boards));
    let _ = writeln!(s, "edges        {}", HumanCount(summary.edges));
    let how = if summary.components.found_by == "theorem" {
        "; the goal's by BFS, the other its image under swapping two tiles (parity theorem)"
    } else {
        ""
    };
    let _ = writeln!(
        s,
        "components   {} (sizes: {}{how})",
        HumanCount(summary.components.count),
        sizes.join(", ")
    );
    if summary.is_partial() {
        let _ = writeln!(
            s,
            "searched     depths 0..{} (--max-depth): partial, {} boards found within {} moves",
            summary.max_depth,
            HumanCount(summary.counted()),
            summary.max_depth
        );
        let listed = summary.hardest.boards.len() as u64;
        let _ = writeln!(
            s,
            "last layer   {} board(s) at depth {}; {} in hardest.txt",
            HumanCount(summary.hardest.count),
            summary.hardest.depth,
            if listed < summary.hardest.count {
                format!("{} of them", HumanCount(listed))
            } else {
                "all of them".to_string()
            }
        );
    } else {
        let _ = writeln!(
            s,
            "reachable    {} from the goal",
            HumanCount(summary.counted())
        );
        if summary.from_standard_goal() {
            let _ = writeln!(
                s,
                "max depth    {} moves (God's number for {})",
                summary.max_depth, summary.board
            );
        } else {
            let _ = writeln!(
                s,
                "max depth    farthest boards from this goal: {} moves",
                summary.max_depth
            );
        }
        if let (Some(mean), Some(median)) = (summary.mean_depth, summary.median_depth) {
            let _ = writeln!(s, "mean depth   {mean:.2} moves (median {median})");
        }
        let _ = writeln!(
            s,
            "hardest      {} board(s) at depth {}",
            HumanCount(summary.hardest.count),
            summary.hardest.depth
        );
    }
    for b in summary.hardest.boards.iter().take(8) {
        let _ = writeln!(s);
        for row in &b.grid {
            let _ = writeln!(s, "    {row}");
        }
    }
    if summary.hardest.boards.len() > 8 {
        let _ = writeln!(
            s,
            "\n    ... {} more in hardest.txt",
            summary.hardest.boards.len() - 8
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "wrote        {}/{{{}}}",
        crate::cli::shown(dir),
        written.join(", ")
    );
    for note in notes {
        let _ = writeln!(s, "note         {note}");
    }
    let _ = writeln!(s, "time         {seconds:.2} s");
    s
}
