//! A layer read back to be expanded: its boards in index order, in chunks of at most a given
//! number, each segment through a reader's buffer of a fixed size.

use rayon::prelude::*;

use super::store::Layer;
use super::{FrontierError, read_error};
use crate::bfs::StateIndex;
use crate::bfs::codec::{Part, ReadError, Reader};

/// The boards of a layer in index order, in chunks of at most `chunk`: the segments that fit
/// whole decoded in parallel into their places, a segment larger than what is left of the
/// chunk decoded as far as it fits and continued in the next chunk, each through a reader's
/// buffer of `buffer` bytes (so that a segment of any size takes a fixed buffer beside the
/// chunk's boards).
pub(super) struct Chunks<'a> {
    layer: &'a Layer,
    /// The layer's depth (for an error).
    depth: u32,
    chunk: usize,
    buffer: usize,
    /// The next segment not opened yet.
    segment: usize,
    /// A segment read in part, and its number.
    partial: Option<(usize, Reader<'a, std::iter::Once<Part>>)>,
    boards: Vec<StateIndex>,
}

impl<'a> Chunks<'a> {
    pub(super) fn new(layer: &'a Layer, depth: u32, chunk: usize, buffer: usize) -> Chunks<'a> {
        Chunks {
            layer,
            depth,
            chunk: chunk.max(1),
            buffer,
            segment: 0,
            partial: None,
            boards: Vec::new(),
        }
    }

    fn fault(&self, segment: usize, e: ReadError) -> FrontierError {
        let what = format!("layer {}", self.depth);
        read_error(&what, &self.layer.place(), segment, e)
    }

    /// Continues the segment read in part, up to a chunk of boards in all.
    fn continue_partial(&mut self) -> Result<(), FrontierError> {
        if let Some((s, mut reader)) = self.partial.take() {
            while self.boards.len() < self.chunk {
                match reader.next() {
                    Some(x) => self.boards.push(StateIndex(x)),
                    None => {
                        return reader.finish().map_err(|e| self.fault(s, e));
                    }
                }
            }
            self.partial = Some((s, reader));
        }
        Ok(())
    }

    /// The next chunk, or `None` after the last.
    pub(super) fn next_chunk(&mut self) -> Result<Option<&[StateIndex]>, FrontierError> {
        self.boards.clear();
        self.continue_partial()?;
        // The segments that fit whole.
        let first = self.segment;
        let mut found = self.boards.len() as u64;
        while self.segment < self.layer.segments()
            && found + self.layer.counts[self.segment] <= self.chunk as u64
        {
            found += self.layer.counts[self.segment];
            self.segment += 1;
        }
        let layer = self.layer;
        let old = self.boards.len();
        self.boards.resize(found as usize, StateIndex(0));
        let mut rest = &mut self.boards[old..];
        let mut places = Vec::with_capacity(self.segment - first);
        for s in first..self.segment {
            let (place, after) = std::mem::take(&mut rest).split_at_mut(layer.counts[s] as usize);
            places.push((s, place));
            rest = after;
        }
        let buffer = self.buffer;
        let decode = |(s, place): (usize, &mut [StateIndex])| -> Result<(), (usize, ReadError)> {
            let mut reader = layer.reader(s, buffer);
            for slot in place.iter_mut() {
                match reader.next() {
                    Some(x) => *slot = StateIndex(x),
                    None => break,
                }
            }
            reader.finish().map_err(|e| (s, e))
        };
        let decoded = if found - old as u64 > 1 << 16 {
            places.into_par_iter().try_for_each(decode)
        } else {
            places.into_iter().try_for_each(decode)
        };
        decoded.map_err(|(s, e)| self.fault(s, e))?;
        // A segment larger than what is left of the chunk: as much of it as fits.
        if self.boards.len() < self.chunk && self.segment < layer.segments() {
            let s = self.segment;
            self.segment += 1;
            self.partial = Some((s, layer.reader(s, self.buffer)));
            self.continue_partial()?;
        }
        if self.boards.is_empty() {
            return Ok(None);
        }
        Ok(Some(&self.boards))
    }
}
