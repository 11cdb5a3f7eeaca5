//! Connected components of the game graph.
//!
//! Two ways to know them, and [`Components::method`] says which one gave the figures:
//!
//! - **by search**: BFS from every board not yet reached, in index order, over the same
//!   two-bit marks as the distances ([`find_rest`]). Used for one-row boards (`(n-1)!` paths
//!   of `n` boards) of up to 10 cells, or up to 12 when per-board results label every board,
//!   over all `n!` boards; and, when asked (`analyze --search-components`,
//!   [`crate::analysis::Options::search_components`]), over each parity class in turn on the
//!   other boards of up to 12 cells.
//! - **by theorem**: on a board with at least 2 rows and 2 columns the game graph has exactly
//!   two components of `n!/2` boards (Johnson & Story 1879; Wilson 1974), and the second is the
//!   image of the goal's under swapping two tile labels, an automorphism of the game graph, so
//!   it has the same size and the same depth distribution: the goal's BFS, which explores its
//!   whole class, shows it. Only the goal's component is searched then (the default). A
//!   one-row board of 11 or 12 cells is `(n-1)!` paths of `n` boards (tiles never pass each
//!   other): one search per path took 80 s on 1x12 for a stated figure. The tests check both
//!   theorems against the search on every board of up to 12 and 10 cells.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::bfs::{self, OnVisit, StateIndex, StateMarks, StateSpace};
use crate::progress::Progress;

/// How the components were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// Every component was explored by BFS.
    #[default]
    Search,
    /// The goal's component was explored by BFS; the other is stated by the parity theorem.
    Theorem,
}

/// Component count and sizes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Components {
    /// Number of components.
    pub count: u64,
    /// `size -> number of components of that size`.
    pub sizes: BTreeMap<u64, u64>,
    /// How they were found.
    pub method: Method,
}

impl Components {
    /// Records one more component of `size` boards.
    pub fn add(&mut self, size: u64) {
        self.count += 1;
        *self.sizes.entry(size).or_default() += 1;
    }

    /// The components of a one-row board of `shape`, stated: tiles never pass each other, so
    /// the game graph is `(n-1)!` paths of `n` boards, one per order of the tiles.
    pub fn of_line(shape: crate::shape::Shape) -> Components {
        let n = shape.cells();
        let lines = crate::rank::factorial(n.saturating_sub(1)).unwrap_or(0);
        Components {
            count: lines,
            sizes: BTreeMap::from([(n as u64, lines)]),
            method: Method::Theorem,
        }
    }

    /// Total boards over all components.
    pub fn boards(&self) -> u64 {
        self.sizes.iter().map(|(size, count)| size * count).sum()
    }
}

/// Per-board component ids (`u32` per index), numbered in discovery order.
pub struct ComponentArray(Vec<AtomicU32>);

impl ComponentArray {
    /// `len` boards, all in component 0 until labelled.
    ///
    /// # Panics
    /// When the allocation fails (see [`ComponentArray::try_new`]).
    pub fn new(len: u64) -> ComponentArray {
        ComponentArray::try_new(len).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`ComponentArray::new`], or [`bfs::OutOfMemory`] when the allocation fails.
    ///
    /// # Errors
    /// [`bfs::OutOfMemory`] with the bytes asked for.
    pub fn try_new(len: u64) -> Result<ComponentArray, bfs::OutOfMemory> {
        // Zeroed by the allocator (bytemuck: all-zero bits are a valid `AtomicU32`).
        let ids: Vec<AtomicU32> = bfs::try_zeroed(len, "the component ids (4 bytes per board)")?;
        Ok(ComponentArray(ids))
    }

    /// The number of boards it holds.
    pub fn len(&self) -> u64 {
        self.0.len() as u64
    }

    /// Whether it holds no board.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Component id of board `index`.
    pub fn get(&self, index: StateIndex) -> u32 {
        self.0[index.0 as usize].load(Relaxed)
    }
}

struct Label<'a> {
    labels: Option<&'a ComponentArray>,
    id: u32,
}

impl OnVisit for Label<'_> {
    #[inline(always)]
    fn visit(&self, index: StateIndex, _depth: u32) {
        if let Some(labels) = self.labels {
            labels.0[index.0 as usize].store(self.id, Relaxed);
        }
    }
}

/// Explores every component of the boards of `space` still unseen in `marks`, numbering them
/// from `first_id` in `labels` when given. `already` boards are already reached (for progress).
pub fn find_rest<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    first_id: u32,
    labels: Option<&ComponentArray>,
    already: u64,
    progress: &dyn Progress,
) -> Components {
    progress.begin("components", marks.len(), "boards");
    let mut found = Components::default();
    let mut reached = already;
    let mut last_report = reached;
    let mut from = 0u64;
    let mut id = first_id;
    while let Some(seed) = marks.next_unseen(from) {
        let layers = bfs::run(space, marks, seed, &Label { labels, id }, |_, _, _| {});
        let size = layers.reached();
        found.add(size);
        reached += size;
        if reached - last_report >= 1 << 20 || reached == marks.len() {
            progress.update(
                reached,
                &format!("{} components", found.count + u64::from(first_id)),
            );
            last_report = reached;
        }
        from = seed.0 + 1;
        id = id.saturating_add(1);
    }
    progress.end();
    found
}
