#!/usr/bin/env Rscript
# igraph's own geometry functions on npuzzle's edges.csv, against `analyze --all-pairs`.
#
#   Rscript scripts/igraph_geometry.R DIR
#
# DIR is an npuzzle output folder holding edges.csv (`npuzzle analyze`) and geometry/
# (`npuzzle analyze --all-pairs`), e.g. output/2x3. The script reads the edge list with
# read.csv and graph_from_data_frame, then computes with igraph: eccentricity() of every
# board, radius(), diameter(), mean_distance(), distance_table() (pairs at each distance and
# `unconnected`), and the distances from one board per blank cell (their mean). It checks
# them against geometry/eccentricity.csv (every board's eccentricity by its blank cell, the
# mean distance per cell), geometry/distance_table.csv, and geometry/summary.json (when the
# jsonlite package is installed), and exits 1 on any disagreement.
#
# Needs R and igraph (Debian: apt-get install r-base-core r-cran-igraph r-cran-jsonlite).
# Exit status: 0 when everything agrees, 1 on a disagreement, 2 on bad usage.

args <- commandArgs(trailingOnly = TRUE)
if (any(args %in% c("-h", "--help"))) {
  file <- sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE)[1])
  header <- readLines(file)[-1]
  header <- header[seq_len(which(!startsWith(header, "#"))[1] - 1)]
  cat(sub("^# ?", "", header), sep = "\n")
  quit(status = 0)
}
if (length(args) != 1) {
  message("usage: Rscript scripts/igraph_geometry.R DIR")
  quit(status = 2)
}
suppressPackageStartupMessages(library(igraph))
dir <- args[1]
geo <- file.path(dir, "geometry")

edges <- read.csv(file.path(dir, "edges.csv"), colClasses = "character")
g <- graph_from_data_frame(edges, directed = FALSE)
labels <- V(g)$name
# Labels of boards up to 9 cells: one character per cell, the blank written as n.
n <- nchar(labels[1])
if (grepl("-", labels[1]) || n > 9) stop("labels of boards up to 9 cells expected")
blank_cell <- regexpr(as.character(n), labels, fixed = TRUE) - 1

failures <- 0
check <- function(what, ours, theirs) {
  if (length(ours) != length(theirs) || any(ours != theirs)) {
    message("MISMATCH ", what, ": npuzzle ", paste(head(ours, 10), collapse = " "),
            ", igraph ", paste(head(theirs, 10), collapse = " "))
    failures <<- failures + 1
  } else {
    cat(sprintf("  %-28s agrees: %s\n", what, paste(head(theirs, 6), collapse = " ")))
  }
}
near <- function(a, b) length(a) == length(b) && all(abs(a - b) <= 1e-9 * pmax(1, abs(b)))

cat(sprintf("igraph %s: %s, %d vertices, %d edges\n", packageVersion("igraph"), dir,
            vcount(g), ecount(g)))

cells <- read.csv(file.path(geo, "eccentricity.csv"))
ecc <- eccentricity(g)
check("eccentricity of every board", cells$eccentricity[blank_cell + 1], unname(ecc))
# Each of igraph's all-pairs functions once (a pass over every pair each: minutes on 2x4).
rad <- radius(g)
diam <- diameter(g, directed = FALSE, unconnected = TRUE)
check("radius", min(cells$eccentricity), rad)
check("diameter", max(cells$eccentricity), diam)

# The mean distance from one board per blank cell to the rest of its component.
means <- sapply(cells$cell, function(c) {
  d <- distances(g, v = which(blank_cell == c)[1])
  d <- d[is.finite(d)]
  sum(d) / (length(d) - 1)
})
if (near(cells$mean_distance, means)) {
  cat(sprintf("  %-28s agrees: %s\n", "mean distance per cell", paste(round(means, 4), collapse = " ")))
} else {
  message("MISMATCH mean distance per cell: npuzzle ", paste(cells$mean_distance, collapse = " "),
          ", igraph ", paste(means, collapse = " "))
  failures <- failures + 1
}

table <- read.csv(file.path(geo, "distance_table.csv"))
dt <- distance_table(g, directed = FALSE)
finite <- is.finite(table$distance)
check("distance_table()$res", table$pairs[finite], dt$res)
check("distance_table()$unconnected", table$pairs[!finite], dt$unconnected)

mean_igraph <- mean_distance(g, directed = FALSE, unconnected = TRUE)
mean_ours <- sum(table$distance[finite] * table$pairs[finite]) / sum(table$pairs[finite])
if (near(mean_ours, mean_igraph)) {
  cat(sprintf("  %-28s agrees: %.6f\n", "mean_distance()", mean_igraph))
} else {
  message("MISMATCH mean_distance: npuzzle ", mean_ours, ", igraph ", mean_igraph)
  failures <- failures + 1
}

if (requireNamespace("jsonlite", quietly = TRUE)) {
  s <- jsonlite::fromJSON(file.path(geo, "summary.json"))
  check("summary.json diameter", s$diameter, diam)
  check("summary.json radius", s$radius, rad)
  check("summary.json centre boards", s$centre$boards, sum(ecc == min(ecc)))
  check("summary.json periphery", s$periphery$boards, sum(ecc == max(ecc)))
  check("summary.json pairs at diam.", s$pairs_at_diameter, tail(dt$res, 1))
  check("summary.json unconnected", s$unconnected_pairs, dt$unconnected)
  if (!near(s$mean_distance, mean_igraph)) {
    message("MISMATCH summary.json mean_distance: ", s$mean_distance, ", igraph ", mean_igraph)
    failures <- failures + 1
  }
} else {
  cat("skipped: summary.json (the jsonlite package is not installed)\n")
}

if (failures > 0) {
  message(failures, " disagreement(s)")
  quit(status = 1)
}
cat("igraph agrees with npuzzle's geometry\n")
