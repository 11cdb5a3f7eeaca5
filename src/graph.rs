//! The game graph: vertices are the `n!` boards (by rank), edges join boards one slide apart.
//!
//! [`GameGraph`] is implicit: neighbours are computed from a rank (see [`crate::moves`]),
//! nothing is stored. It implements petgraph's visit traits (`NodeCompactIndexable`,
//! `IntoNeighbors`, `IntoEdgeReferences`, `IntoEdges`, `Visitable`, ...), so petgraph's
//! algorithms (`connected_components`, `Bfs`, `dijkstra`) run on it directly, and
//! [`GameGraph::to_petgraph`] materializes it as a petgraph `UnGraph` for small boards.
//!
//! Each undirected edge is listed once, from the board whose blank moves right or down (the
//! convention of the original R analysis); [`GameGraph::neighbors`] lists all of them.

use fixedbitset::FixedBitSet;
use petgraph::Undirected;
use petgraph::graph::UnGraph;
use petgraph::visit::{
    Data, EdgeRef, GraphBase, GraphProp, IntoEdgeReferences, IntoEdges, IntoNeighbors,
    IntoNodeIdentifiers, NodeCompactIndexable, NodeCount, NodeIndexable, Visitable,
};
use rayon::prelude::*;

use crate::bfs::LexSpace;
use crate::moves::{self, MoveTable};
use crate::rank;
use crate::shape::Shape;

/// The implicit game graph of a shape of at most 12 cells.
#[derive(Debug, Clone)]
pub struct GameGraph {
    shape: Shape,
    boards: u32,
    moves: MoveTable,
}

/// One undirected edge, `from < to` not implied: `from` is the board whose blank moves right
/// or down to give `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameEdge {
    /// Rank of the board before the move.
    pub from: u32,
    /// Rank of the board after the move.
    pub to: u32,
}

impl GameGraph {
    /// The game graph of `shape`.
    ///
    /// # Panics
    /// When `shape` has more than 12 cells (ranks must fit in `u32`).
    pub fn new(shape: Shape) -> GameGraph {
        assert!(
            shape.cells() <= LexSpace::MAX_CELLS,
            "the game graph supports at most 12 cells"
        );
        GameGraph {
            shape,
            boards: shape.board_count().unwrap_or(0) as u32,
            moves: MoveTable::new(shape),
        }
    }

    /// The shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Number of boards, `n!`.
    pub fn boards(&self) -> u32 {
        self.boards
    }

    /// Ranks of the boards one move from board `rank` (2 to 4 of them, `U D L R` order),
    /// by the same move generation as the BFS ([`moves::for_each_neighbor`]).
    pub fn neighbors(&self, rank: u32) -> Vec<u32> {
        let mut out = Vec::with_capacity(4);
        crate::with_cells!(self.shape.cells(), N => {
            moves::for_each_neighbor::<N>(rank, &self.moves, |nb, _| out.push(nb))
        });
        out
    }

    /// The edges from board `rank`: one per right or down move of its blank
    /// ([`for_each_forward_edge`]).
    pub fn forward_edges(&self, rank: u32) -> std::vec::IntoIter<GameEdge> {
        let mut out = Vec::with_capacity(2);
        crate::with_cells!(self.shape.cells(), N => {
            for_each_forward_edge::<N>(self.shape.cols(), rank, rank + 1, |from, _, to, _| {
                out.push(GameEdge { from, to })
            })
        });
        out.into_iter()
    }

    /// Every edge once, in rank order of `from`, computed in parallel (rayon).
    pub fn edges(&self) -> Vec<GameEdge> {
        (0..self.boards)
            .into_par_iter()
            .flat_map_iter(|r| self.forward_edges(r))
            .collect()
    }

    /// The graph materialized as a petgraph `UnGraph` (node index = rank), built from
    /// [`GameGraph::edges`]. Memory grows with the edge count: meant for small boards.
    pub fn to_petgraph(&self) -> UnGraph<(), ()> {
        let mut g = UnGraph::with_capacity(self.boards as usize, 0);
        for _ in 0..self.boards {
            g.add_node(());
        }
        g.extend_with_edges(self.edges().iter().map(|e| (e.from, e.to)));
        g
    }
}

/// Calls `f(from, from_board, to, to_board)` for every edge from the boards of ranks `lo..hi`
/// (`N` cells, `cols` columns): for each board in rank order, its blank's right then down
/// move, so that over all ranks every undirected edge comes once (the convention of
/// [`GameGraph::forward_edges`]). The exports stream through this.
#[inline(always)]
pub fn for_each_forward_edge<const N: usize>(
    cols: usize,
    lo: u32,
    hi: u32,
    mut f: impl FnMut(u32, &[u8; N], u32, &[u8; N]),
) {
    let weights = const { rank::weights::<N>() };
    let mut unranker = rank::SequentialUnranker::<N>::default();
    for r in lo..hi {
        let rank::Unranked { perm, digits, .. } = unranker.unrank(u64::from(r));
        let b = perm.iter().position(|&v| v as usize == N - 1).unwrap_or(0);
        let right = (b % cols + 1 < cols).then_some(b + 1);
        let down = (b + cols < N).then_some(b + cols);
        for to in [right, down].into_iter().flatten() {
            let nb = moves::swapped_rank(&perm, &digits, &weights, u64::from(r), b, to) as u32;
            let mut next = perm;
            next.swap(b, to);
            f(r, &perm, nb, &next);
        }
    }
}

/// [`for_each_forward_edge`] in `metric`: in the multi-tile metric, for each board the
/// blank's jumps right (1 to the end of its row) then down (1 to the last row), each board
/// made by sliding the tiles between and ranked from scratch, so that every undirected MTM
/// edge comes once (from the board whose blank moves right or down).
#[inline(always)]
pub fn for_each_forward_edge_in<const N: usize>(
    metric: crate::metric::Metric,
    cols: usize,
    lo: u32,
    hi: u32,
    mut f: impl FnMut(u32, &[u8; N], u32, &[u8; N]),
) {
    if metric == crate::metric::Metric::Stm {
        return for_each_forward_edge::<N>(cols, lo, hi, f);
    }
    let mut unranker = rank::SequentialUnranker::<N>::default();
    for r in lo..hi {
        let rank::Unranked { perm, .. } = unranker.unrank(u64::from(r));
        let b = perm.iter().position(|&v| v as usize == N - 1).unwrap_or(0);
        let rights = (1..cols - b % cols).map(|k| b + k);
        let downs = (b + cols..N).step_by(cols);
        for to in rights.chain(downs) {
            let mut next = perm;
            crate::metric::slide(&mut next, b, to, cols);
            f(r, &perm, rank::rank_array::<N>(&next) as u32, &next);
        }
    }
}

impl EdgeRef for GameEdge {
    type NodeId = u32;
    type EdgeId = GameEdge;
    type Weight = ();
    fn source(&self) -> u32 {
        self.from
    }
    fn target(&self) -> u32 {
        self.to
    }
    fn weight(&self) -> &() {
        &()
    }
    fn id(&self) -> GameEdge {
        *self
    }
}

impl GraphBase for GameGraph {
    type NodeId = u32;
    type EdgeId = GameEdge;
}

impl Data for GameGraph {
    type NodeWeight = ();
    type EdgeWeight = ();
}

impl GraphProp for GameGraph {
    type EdgeType = Undirected;
}

impl NodeCount for GameGraph {
    fn node_count(&self) -> usize {
        self.boards as usize
    }
}

impl NodeIndexable for GameGraph {
    fn node_bound(&self) -> usize {
        self.boards as usize
    }
    fn to_index(&self, a: u32) -> usize {
        a as usize
    }
    fn from_index(&self, i: usize) -> u32 {
        i as u32
    }
}

impl NodeCompactIndexable for GameGraph {}

impl IntoNeighbors for &GameGraph {
    type Neighbors = std::vec::IntoIter<u32>;
    fn neighbors(self, a: u32) -> Self::Neighbors {
        GameGraph::neighbors(self, a).into_iter()
    }
}

impl IntoNodeIdentifiers for &GameGraph {
    type NodeIdentifiers = std::ops::Range<u32>;
    fn node_identifiers(self) -> Self::NodeIdentifiers {
        0..self.boards
    }
}

impl<'a> IntoEdgeReferences for &'a GameGraph {
    type EdgeRef = GameEdge;
    type EdgeReferences = Box<dyn Iterator<Item = GameEdge> + 'a>;
    fn edge_references(self) -> Self::EdgeReferences {
        Box::new((0..self.boards).flat_map(move |r| self.forward_edges(r)))
    }
}

impl IntoEdges for &GameGraph {
    type Edges = std::vec::IntoIter<GameEdge>;
    fn edges(self, a: u32) -> Self::Edges {
        GameGraph::neighbors(self, a)
            .into_iter()
            .map(|to| GameEdge { from: a, to })
            .collect::<Vec<_>>()
            .into_iter()
    }
}

impl Visitable for GameGraph {
    type Map = FixedBitSet;
    fn visit_map(&self) -> FixedBitSet {
        FixedBitSet::with_capacity(self.boards as usize)
    }
    fn reset_map(&self, map: &mut FixedBitSet) {
        map.clear();
        map.grow(self.boards as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use petgraph::algo::connected_components;

    /// Edge counts of the whole graph (../shared/reference "Whole graph" table) and petgraph's
    /// component count on the implicit graph; 1x4 has (4-1)! = 6 components.
    #[test]
    fn edges_and_components_match_the_reference() {
        for (r, c, edges, comps) in [
            (1, 4, 18, 6),
            (2, 2, 24, 2),
            (2, 3, 840, 2),
            (3, 3, 483_840, 2),
        ] {
            let g = GameGraph::new(Shape::new(r, c).unwrap());
            let list = g.edges();
            assert_eq!(list.len(), edges, "{r}x{c}");
            assert_eq!(g.shape().edge_count(), Some(edges as u64));
            assert_eq!(connected_components(&g), comps, "{r}x{c}");
            let mut pairs: Vec<(u32, u32)> = list
                .iter()
                .map(|e| (e.from.min(e.to), e.from.max(e.to)))
                .collect();
            pairs.sort_unstable();
            pairs.dedup();
            assert_eq!(pairs.len(), edges, "each edge once");
        }
    }

    #[test]
    fn neighbourhood_is_symmetric() {
        let g = GameGraph::new(Shape::new(3, 3).unwrap());
        for r in 0..g.boards() {
            for nb in g.neighbors(r) {
                assert!(g.neighbors(nb).contains(&r));
            }
        }
    }
}
