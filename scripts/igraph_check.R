#!/usr/bin/env Rscript
# The original R/igraph analysis of the game graph, run on npuzzle's edges.csv.
#
#   Rscript scripts/igraph_check.R [--graphml] DIR
#
# DIR is an npuzzle output folder (e.g. output/3x3). The script does what the original R
# analysis did: read.csv the edge list, graph_from_data_frame, components, distances from the
# goal; then prints the figures: vertices, edges, components and their sizes, boards reachable
# from the goal, max depth, the hardest boards, the depth distribution.
#
# Then it checks them against npuzzle's own numbers and exits 1 on any disagreement:
# DIR/depths.csv (always) and DIR/summary.json (when the jsonlite package is installed).
# With --graphml it also reads DIR/graph.graphml (`npuzzle export --format graphml`) with
# igraph's read_graph and checks its vertices, edges and attributes against the analysis.
#
# Needs R and igraph (Debian: apt-get install r-base-core r-cran-igraph r-cran-jsonlite;
# elsewhere: install.packages(c("igraph", "jsonlite"))). Exit status: 0 when everything
# agrees, 1 on a disagreement, 2 on bad usage.

args <- commandArgs(trailingOnly = TRUE)
if (any(args %in% c("-h", "--help"))) {
  # The comment block at the top of this file.
  file <- sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE)[1])
  header <- readLines(file)[-1]
  header <- header[seq_len(which(!startsWith(header, "#"))[1] - 1)]
  cat(sub("^# ?", "", header), sep = "\n")
  quit(status = 0)
}

suppressPackageStartupMessages(library(igraph))

with_graphml <- "--graphml" %in% args
args <- setdiff(args, "--graphml")
if (length(args) != 1) {
  message("usage: Rscript scripts/igraph_check.R [--graphml] DIR")
  quit(status = 2)
}
dir <- args[1]

# --- The original analysis -----------------------------------------------------------------
# colClasses = "character" keeps labels as strings: 123456789 would otherwise become a number
# (harmless for 9 cells, wrong for labels such as 012...).
edges <- read.csv(file.path(dir, "edges.csv"), colClasses = "character")
g <- graph_from_data_frame(edges, directed = FALSE)

# The goal: tiles in order, blank (written n) last; `1-2-...-10` from 10 cells on.
first <- edges$from[1]
n <- if (grepl("-", first)) length(strsplit(first, "-")[[1]]) else nchar(first)
goal <- paste(seq_len(n), collapse = if (n >= 10) "-" else "")

comp <- components(g)
d <- distances(g, v = goal)[1, ]
reach <- d[is.finite(d)]
max_depth <- max(reach)
hardest <- sort(names(reach)[reach == max_depth])
depth_counts <- as.vector(table(factor(reach, levels = 0:max_depth)))
sizes <- sort(comp$csize, decreasing = TRUE)

cat(sprintf("igraph %s on %s\n", as.character(packageVersion("igraph")),
            file.path(dir, "edges.csv")))
cat(sprintf("vertices     %d\n", vcount(g)))
cat(sprintf("edges        %d\n", ecount(g)))
size_table <- table(factor(sizes, levels = unique(sizes)))
cat(sprintf("components   %d (sizes: %s)\n", comp$no,
            paste(sprintf("%d x %s", as.vector(size_table), names(size_table)),
                  collapse = ", ")))
cat(sprintf("reachable    %d from the goal %s\n", length(reach), goal))
cat(sprintf("max depth    %d\n", max_depth))
cat(sprintf("hardest      %d board(s): %s\n", length(hardest), paste(hardest, collapse = " ")))
cat("depth distribution (depth: boards)\n")
cat(strwrap(paste(sprintf("%d: %d", 0:max_depth, depth_counts), collapse = ", "),
            width = 90, indent = 2, exdent = 2), sep = "\n")

# --- Checks against npuzzle's numbers ------------------------------------------------------
# expect(what, npuzzle's value, igraph's value) records a failure unless they are identical.
failures <- character()
expect <- function(what, ours, theirs) {
  if (!identical(ours, theirs)) {
    failures <<- c(failures, sprintf("%s: npuzzle says %s, igraph says %s", what,
                                     paste(head(ours, 40), collapse = " "),
                                     paste(head(theirs, 40), collapse = " ")))
  }
}

depths_csv <- read.csv(file.path(dir, "depths.csv"))
expect("depths.csv depths", as.numeric(depths_csv$depth), as.numeric(0:max_depth))
expect("depths.csv counts", as.numeric(depths_csv$count), as.numeric(depth_counts))
checked <- "depths.csv"

summary_path <- file.path(dir, "summary.json")
if (requireNamespace("jsonlite", quietly = TRUE) && file.exists(summary_path)) {
  s <- jsonlite::fromJSON(summary_path)
  expect("goal", s$goal, goal)
  expect("boards", as.numeric(s$boards), as.numeric(vcount(g)))
  expect("edges", as.numeric(s$edges), as.numeric(ecount(g)))
  expect("components", as.numeric(s$components$count), as.numeric(comp$no))
  expect("component sizes", as.numeric(rep(s$components$sizes$size, s$components$sizes$count)),
         as.numeric(sizes))
  expect("reachable", as.numeric(s$reachable), as.numeric(length(reach)))
  expect("max depth", as.numeric(s$max_depth), as.numeric(max_depth))
  expect("boards per depth", as.numeric(s$depth_counts), as.numeric(depth_counts))
  expect("hardest boards", sort(s$hardest$boards$board), hardest)
  checked <- c(checked, "summary.json")
} else {
  cat("note: summary.json not checked (needs the jsonlite package)\n")
}

if (with_graphml) {
  h <- read_graph(file.path(dir, "graph.graphml"), format = "graphml")
  expect("graph.graphml directed", FALSE, is_directed(h))
  expect("graph.graphml vertices", vcount(h), vcount(g))
  expect("graph.graphml edges", ecount(h), ecount(g))
  expect("graph.graphml ids are the boards", V(h)$id, V(h)$board)
  # Same edges: each as "a b" with the ends sorted.
  key <- function(el) sort(paste(pmin(el[, 1], el[, 2]), pmax(el[, 1], el[, 2])))
  expect("graph.graphml edge list",
         key(matrix(V(h)$board[as_edgelist(h, names = FALSE)], ncol = 2)),
         key(as_edgelist(g)))
  # depth: the BFS depth, missing (NA) exactly off the goal's component; component 0 is the
  # goal's and the partition is igraph's.
  hd <- V(h)$depth
  gd <- d[V(h)$board]
  expect("graph.graphml depths", ifelse(is.na(hd), Inf, hd), unname(gd))
  member <- comp$membership[V(h)$board]
  same <- function(a, b) all(tapply(a, b, function(x) length(unique(x)) == 1))
  expect("graph.graphml component partition", c(TRUE, TRUE),
         c(same(member, V(h)$component), same(V(h)$component, member)))
  expect("graph.graphml component of the goal", 0, V(h)$component[V(h)$board == goal])
  expect("graph.graphml ranks", sort(V(h)$rank), as.numeric(0:(vcount(h) - 1)))
  checked <- c(checked, "graph.graphml")
}

if (length(failures) > 0) {
  cat(paste("MISMATCH:", failures), sep = "\n", file = stderr())
  quit(status = 1)
}
cat(sprintf("igraph agrees with npuzzle's %s\n", paste(checked, collapse = ", ")))
