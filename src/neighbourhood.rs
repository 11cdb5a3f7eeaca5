//! Boards explored breadth-first one move at a time, as values (no dense index, so any board
//! size): the boards within `k` moves of a board (its ball in the game graph), and the
//! components of a tiny board. One definition for the goal's neighbourhood that `npuzzle draw`
//! pictures ([`crate::drawing`]) and the boards around any board that the page's `/api/graph`
//! answers ([`crate::serve::answers`]).
//!
//! The order is deterministic: the roots in the order explored, each root's boards in
//! breadth-first order (a board's neighbours in the order of [`Metric::targets`]).

use std::collections::HashMap;

use crate::board::Board;
use crate::metric::Metric;

/// One board explored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vertex {
    /// The board.
    pub board: Board,
    /// Its component, numbered in order of discovery (0 is the first root's).
    pub component: usize,
    /// Moves from the root of its component (the goal for the goal's neighbourhood).
    pub level: u32,
}

/// The exploration reached more boards than its bound ([`Explorer::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooMany;

/// Boards explored so far, in breadth-first order from each root, with an index by board.
pub struct Explorer {
    metric: Metric,
    max_boards: usize,
    vertices: Vec<Vertex>,
    index: HashMap<Board, usize>,
    components: usize,
}

impl Explorer {
    /// An exploration of moves in `metric` that holds at most `max_boards` boards.
    pub fn new(metric: Metric, max_boards: usize) -> Explorer {
        Explorer {
            metric,
            max_boards,
            vertices: Vec::new(),
            index: HashMap::new(),
            components: 0,
        }
    }

    /// Whether `board` has been explored.
    pub fn contains(&self, board: &Board) -> bool {
        self.index.contains_key(board)
    }

    /// Explores a new component from `root` (not explored yet): every board within
    /// `max_level` moves of it, or its whole component for `None`.
    ///
    /// # Errors
    /// [`TooMany`] when that would hold more than the bound's boards (those explored until
    /// then are kept).
    pub fn explore(&mut self, root: Board, max_level: Option<u32>) -> Result<(), TooMany> {
        let component = self.components;
        self.components += 1;
        self.add(root, component, 0)?;
        let mut next = self.vertices.len() - 1;
        while next < self.vertices.len() {
            let (board, level) = (self.vertices[next].board.clone(), self.vertices[next].level);
            next += 1;
            if max_level == Some(level) {
                continue;
            }
            for to in self.metric.targets(board.shape(), board.blank()) {
                if let Some(nb) = board.slid(to)
                    && !self.index.contains_key(&nb)
                {
                    self.add(nb, component, level + 1)?;
                }
            }
        }
        Ok(())
    }

    fn add(&mut self, board: Board, component: usize, level: u32) -> Result<(), TooMany> {
        if self.vertices.len() == self.max_boards {
            return Err(TooMany);
        }
        self.index.insert(board.clone(), self.vertices.len());
        self.vertices.push(Vertex {
            board,
            component,
            level,
        });
        Ok(())
    }

    /// The boards explored, in order.
    pub fn vertices(&self) -> &[Vertex] {
        &self.vertices
    }

    /// The components explored (one per [`Explorer::explore`]).
    pub fn components(&self) -> usize {
        self.components
    }

    /// Every edge among the boards explored, once: `(i, j, to)` with `i < j`, board `j` being
    /// board `i` with its blank slid to cell `to`; by `i`, then in the order of
    /// [`Metric::targets`]. Two boards at the rim (`max_level` moves from the root) that are
    /// one move apart are joined too (in the multi-tile metric, whose graph has triangles).
    pub fn edges(&self) -> Vec<(usize, usize, usize)> {
        let mut edges = Vec::new();
        for (i, v) in self.vertices.iter().enumerate() {
            for to in self.metric.targets(v.board.shape(), v.board.blank()) {
                if let Some(nb) = v.board.slid(to)
                    && let Some(&j) = self.index.get(&nb)
                    && j > i
                {
                    edges.push((i, j, to));
                }
            }
        }
        edges
    }

    /// The boards explored, in order.
    pub fn into_vertices(self) -> Vec<Vertex> {
        self.vertices
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::Shape;

    /// The 3x3 goal's ball of radius 2 holds the goal, its 2 neighbours and their 4 others
    /// (OEIS A089473: 1, 2, 4, ...), with 6 edges (a tree: the single-tile graph is bipartite
    /// and there is no 4-cycle within 2 moves); in the multi-tile metric the goal has 4
    /// neighbours, two pairs of which are one move apart (the triangles of a row and a column).
    #[test]
    fn balls_around_the_goal() {
        let goal = Board::goal(Shape::new(3, 3).unwrap());
        let mut e = Explorer::new(Metric::Stm, 100);
        e.explore(goal.clone(), Some(2)).unwrap();
        let levels: Vec<u32> = e.vertices().iter().map(|v| v.level).collect();
        assert_eq!(levels, [0, 1, 1, 2, 2, 2, 2]);
        assert_eq!(e.edges().len(), 6);
        let mut m = Explorer::new(Metric::Mtm, 100);
        m.explore(goal.clone(), Some(1)).unwrap();
        assert_eq!(m.vertices().len(), 5);
        assert_eq!(m.edges().len(), 4 + 2);
        let mut small = Explorer::new(Metric::Stm, 5);
        assert_eq!(small.explore(goal, Some(2)), Err(TooMany));
        assert_eq!(small.vertices().len(), 5);
    }
}
