//! Sorted index lists as bytes: the gaps between ascending `u64` indices as LEB128 varints,
//! the usual posting-list encoding (Witten, Moffat & Bell, "Managing Gigabytes", 1999). Used
//! by the distributed driver for a last layer's boards and a distance table's listed layers
//! (decoded with checks, by the `integer-encoding` crate) and by the frontier search for its
//! layers (read back through a fixed buffer and checked, count, bounds and CRC, by
//! `Reader`); a batch of `k` indices spread over a slice of `s` boards costs
//! about `log128(s / k) + 1` bytes per index. The distributed driver sends its neighbours
//! this way, [`radix_sort`]ed, to a process on another host, and as found to one on its own
//! (see `cluster::net::Wire`).

use std::fs::File;

use integer_encoding::VarInt;

/// A byte string that is not a valid encoding (truncated, or a gap past `u64::MAX`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("corrupt index list: {0}")]
pub struct CodecError(&'static str);

/// Appends `indices` (strictly ascending, all `>= base`) to `out` as varint gaps, the first
/// from `base`.
pub fn encode_sorted(indices: &[u64], base: u64, out: &mut Vec<u8>) {
    let mut previous = base;
    for &x in indices {
        debug_assert!(x >= previous, "indices must ascend from the base");
        push_gap(out, x - previous);
        previous = x;
    }
}

/// One stretch of a gap-encoded list, as its writer recorded it: `count` indices in `len`
/// bytes, the first gap counted from `base`, every index below `end` (the end of its segment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Part {
    /// The base the first gap is counted from.
    pub base: u64,
    /// Every index is below it.
    pub end: u64,
    /// Indices in the stretch.
    pub count: u64,
    /// Bytes of the stretch.
    pub len: u64,
}

/// Where a [`Reader`] takes its bytes from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Source<'a> {
    /// Bytes in memory, read in place (nothing to check them against).
    Memory(&'a [u8]),
    /// Bytes `from..to` of a file, read through the reader's buffer, and their CRC-32.
    File {
        /// The file.
        file: &'a File,
        /// The first byte.
        from: u64,
        /// The byte after the last.
        to: u64,
        /// CRC-32 of the bytes `from..to`.
        crc: u32,
    },
}

/// Why a [`Reader`] stopped before the end of its parts.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    /// The file could not be read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The bytes are not the list their writer recorded (see [`Reader`]).
    #[error("{0}")]
    Corrupt(&'static str),
}

/// Reads consecutive [`Part`]s of a list written by [`encode_sorted`] (or [`push_gap`]), one
/// index at a time, from memory in place or from a file through a buffer of a fixed size
/// (whatever the length of the list), and checks them: every part must hold exactly its count
/// of strictly ascending indices in exactly its bytes, each below its end, with no varint
/// truncated or longer than 10 bytes, and the file's bytes must match their CRC-32. The first
/// fault ends the iteration; [`Reader::finish`] says what it was (and checks the CRC at the
/// end), so a caller that read to the end never takes a damaged list for a shorter one.
pub(crate) struct Reader<'a, P> {
    source: Source<'a>,
    parts: P,
    /// The file's bytes in hand (unused in memory).
    window: Vec<u8>,
    /// Next byte to decode: in `window`, or in the memory source.
    pos: usize,
    /// End of the bytes in hand.
    filled: usize,
    /// File position of the next read.
    next_read: u64,
    crc: crc32fast::Hasher,
    /// Bytes decoded so far, from the first part's first.
    consumed: u64,
    /// Where the current part's bytes end (in `consumed`).
    part_end: u64,
    /// Indices still due in the current part.
    left: u64,
    previous: u64,
    end: u64,
    /// The smallest next gap: 0 for a part's first index, then 1.
    least: u64,
    error: Option<ReadError>,
    done: bool,
}

impl<'a, P: Iterator<Item = Part>> Reader<'a, P> {
    /// A reader of `parts` (consecutive, in byte order) from `source`, reading a file `buffer`
    /// bytes at a time (at least 16).
    pub(crate) fn new(source: Source<'a>, parts: P, buffer: usize) -> Reader<'a, P> {
        let (window, filled, next_read) = match source {
            Source::Memory(bytes) => (Vec::new(), bytes.len(), 0),
            Source::File { from, to, .. } => {
                let len = usize::try_from(to.saturating_sub(from)).unwrap_or(usize::MAX);
                (vec![0u8; buffer.max(16).min(len.max(16))], 0, from)
            }
        };
        Reader {
            source,
            parts,
            window,
            pos: 0,
            filled,
            next_read,
            crc: crc32fast::Hasher::new(),
            consumed: 0,
            part_end: 0,
            left: 0,
            previous: 0,
            end: 0,
            least: 0,
            error: None,
            done: false,
        }
    }

    fn fail(&mut self, e: ReadError) -> Option<u64> {
        if self.error.is_none() {
            self.error = Some(e);
        }
        self.done = true;
        None
    }

    /// Reads more of the file into the window, keeping the bytes not decoded yet; false at
    /// the end of the file's bytes (or in memory).
    fn refill(&mut self) -> Result<bool, std::io::Error> {
        let Source::File { file, to, .. } = self.source else {
            return Ok(false);
        };
        if self.next_read >= to {
            return Ok(false);
        }
        self.window.copy_within(self.pos..self.filled, 0);
        self.filled -= self.pos;
        self.pos = 0;
        let room = (self.window.len() - self.filled) as u64;
        let take = room.min(to - self.next_read) as usize;
        let fresh = &mut self.window[self.filled..self.filled + take];
        read_exact_at(file, fresh, self.next_read)?;
        self.crc.update(fresh);
        self.filled += take;
        self.next_read += take as u64;
        Ok(true)
    }

    /// The next part, or the end; checks that the one before used exactly its bytes.
    #[cold]
    fn next_part(&mut self) -> Option<u64> {
        loop {
            if self.consumed != self.part_end {
                return self.fail(ReadError::Corrupt("bytes past its count of boards"));
            }
            match self.parts.next() {
                None => {
                    self.done = true;
                    return None;
                }
                Some(p) => {
                    self.part_end = self.consumed.saturating_add(p.len);
                    self.left = p.count;
                    self.previous = p.base;
                    self.end = p.end;
                    self.least = 0;
                    if self.left > 0 {
                        return self.next();
                    }
                }
            }
        }
    }

    /// Reads a gap that the bytes in hand may cut short.
    #[cold]
    fn slow_gap(&mut self) -> Result<(u64, usize), ReadError> {
        loop {
            match leb128(self.in_hand()) {
                Some(Ok(g)) => return Ok(g),
                Some(Err(())) => return Err(ReadError::Corrupt("a gap longer than 10 bytes")),
                None => {
                    if !self.refill()? {
                        return Err(ReadError::Corrupt("a truncated gap"));
                    }
                }
            }
        }
    }

    /// Calls `f` on each index not read yet, in order, with the checks of [`Reader::next`]:
    /// the whole gaps in hand are decoded in a tight loop (no call, no state written back
    /// between them), the rest (a part's first index, a gap the bytes in hand cut short, a
    /// fault, the next part) by [`Reader::next`]. The same indices as `for x in reader` at
    /// about half the cost a board; a fault ends it as it ends the iteration.
    #[inline]
    pub(crate) fn each(&mut self, mut f: impl FnMut(u64)) {
        loop {
            if self.left > 0 && self.least == 1 {
                // The part's bytes in hand.
                let part = usize::try_from(self.part_end - self.consumed).unwrap_or(usize::MAX);
                let stop = self.filled.min(self.pos.saturating_add(part));
                let bytes: &[u8] = match self.source {
                    Source::Memory(bytes) => &bytes[..stop],
                    Source::File { .. } => &self.window[..stop],
                };
                let (mut pos, mut previous, mut left, end) =
                    (self.pos, self.previous, self.left, self.end);
                // Ten bytes ahead hold a whole gap (or a fault, left to `next`).
                while left > 0 && pos + 10 <= stop {
                    let first = bytes[pos];
                    let (gap, n) = if first < 0x80 {
                        (u64::from(first), 1)
                    } else {
                        match leb128(&bytes[pos..stop]) {
                            Some(Ok(g)) => g,
                            _ => break,
                        }
                    };
                    if gap == 0 || gap >= end.saturating_sub(previous) {
                        break;
                    }
                    pos += n;
                    previous += gap;
                    left -= 1;
                    f(previous);
                }
                self.consumed += (pos - self.pos) as u64;
                self.pos = pos;
                self.previous = previous;
                self.left = left;
            }
            match self.next() {
                Some(x) => f(x),
                None => return,
            }
        }
    }

    #[inline(always)]
    fn in_hand(&self) -> &[u8] {
        match self.source {
            Source::Memory(bytes) => &bytes[self.pos..self.filled],
            Source::File { .. } => &self.window[self.pos..self.filled],
        }
    }

    /// Checks that every part was read whole and, from a file, that every byte was read and
    /// matches its CRC-32. Reads any indices not read yet first.
    ///
    /// # Errors
    /// The first fault found.
    pub(crate) fn finish(mut self) -> Result<(), ReadError> {
        while self.next().is_some() {}
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if let Source::File { to, crc, .. } = self.source {
            if self.pos != self.filled || self.next_read != to {
                return Err(ReadError::Corrupt("bytes past its count of boards"));
            }
            if self.crc.clone().finalize() != crc {
                return Err(ReadError::Corrupt("its CRC-32 does not match"));
            }
        } else if self.pos != self.filled {
            return Err(ReadError::Corrupt("bytes past its count of boards"));
        }
        Ok(())
    }
}

impl<P: Iterator<Item = Part>> Iterator for Reader<'_, P> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        if self.left == 0 {
            if self.done {
                return None;
            }
            return self.next_part();
        }
        let (gap, n) = match leb128(self.in_hand()) {
            Some(Ok(g)) => g,
            _ => match self.slow_gap() {
                Ok(g) => g,
                Err(e) => return self.fail(e),
            },
        };
        self.pos += n;
        self.consumed += n as u64;
        if self.consumed > self.part_end {
            return self.fail(ReadError::Corrupt("fewer boards than its count"));
        }
        if gap < self.least || gap >= self.end.saturating_sub(self.previous) {
            return self.fail(ReadError::Corrupt(if gap < self.least {
                "a repeated board"
            } else {
                "a board past its segment"
            }));
        }
        self.least = 1;
        self.left -= 1;
        self.previous += gap;
        Some(self.previous)
    }
}

/// The LEB128 gap at the start of `bytes` and its length: `None` when `bytes` ends inside it,
/// `Some(Err)` when it runs past 10 bytes or 64 bits.
#[inline(always)]
fn leb128(bytes: &[u8]) -> Option<Result<(u64, usize), ()>> {
    let first = *bytes.first()?;
    if first < 0x80 {
        return Some(Ok((u64::from(first), 1)));
    }
    let mut gap = u64::from(first & 0x7f);
    let mut shift = 7;
    for (i, &b) in bytes.iter().enumerate().skip(1) {
        if shift == 63 && b > 1 {
            return Some(Err(()));
        }
        gap |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(Ok((gap, i + 1)));
        }
        shift += 7;
        if shift > 63 {
            return Some(Err(()));
        }
    }
    None
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, at)
}

#[cfg(not(unix))]
fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file.try_clone()?;
    f.seek(SeekFrom::Start(at))?;
    f.read_exact(buf)
}

/// A [`Reader`] of one part of bytes in memory.
#[cfg(test)]
pub(crate) fn read_memory(bytes: &[u8], part: Part) -> Reader<'_, std::iter::Once<Part>> {
    Reader::new(Source::Memory(bytes), std::iter::once(part), 0)
}

/// Appends `gap` to `out` as LEB128 (7 bits a byte, low first, the high bit set on every byte
/// but the last: what `integer-encoding` writes for a `u64`), the writer of [`encode_sorted`].
#[inline]
pub(crate) fn push_gap(out: &mut Vec<u8>, mut gap: u64) {
    while gap >= 0x80 {
        out.push(gap as u8 | 0x80);
        gap >>= 7;
    }
    out.push(gap as u8);
}

/// Calls `f` on each index of a list written by [`encode_sorted`] with the same `base`.
///
/// # Errors
/// [`CodecError`] when `bytes` is truncated or overflows `u64`.
pub fn decode_sorted(
    mut bytes: &[u8],
    base: u64,
    mut f: impl FnMut(u64),
) -> Result<(), CodecError> {
    let mut previous = base;
    while !bytes.is_empty() {
        let (gap, n) = u64::decode_var(bytes).ok_or(CodecError("truncated varint"))?;
        previous = previous
            .checked_add(gap)
            .ok_or(CodecError("index past u64::MAX"))?;
        f(previous);
        bytes = &bytes[n..];
    }
    Ok(())
}

/// A key [`radix_sort`] sorts: an index as `u64`, or an offset in a segment as `u32` (half
/// the bytes through each pass).
pub trait RadixKey: Copy + Default {
    /// The key's value.
    fn value(self) -> u64;
}

impl RadixKey for u64 {
    #[inline(always)]
    fn value(self) -> u64 {
        self
    }
}

impl RadixKey for u32 {
    #[inline(always)]
    fn value(self) -> u64 {
        u64::from(self)
    }
}

/// Sorts `parts`' keys, each below `2^bits`, ascending into `out` (cleared first; its
/// allocation and `scratch`'s are reused): a least-significant-digit radix sort (Knuth, TAOCP
/// vol. 3, 5.2.5) in `max(1, ceil(bits / 11))` passes of equal digits, the counts of every
/// digit taken in one read of the parts first, then each pass a stable scatter, the first
/// reading the parts in place. For the index lists of a window this is a few times faster
/// than a comparison sort: the passes stream through memory and the counts (at most 2^11 a
/// digit) stay in the L1 cache.
pub fn radix_sort<K: RadixKey, P: AsRef<[K]>>(
    parts: &[P],
    bits: u32,
    out: &mut Vec<K>,
    scratch: &mut Vec<K>,
) {
    let len: usize = parts.iter().map(|p| p.as_ref().len()).sum();
    let passes = bits.div_ceil(11).max(1) as usize;
    let digit = bits.div_ceil(passes as u32).max(1);
    let mask = (1u64 << digit) - 1;
    let width = 1usize << digit;
    // Each pass scatters its keys by digit into the other buffer; the first reads the parts.
    fn scatter<K: RadixKey>(
        keys: impl Iterator<Item = K>,
        (shift, mask): (u32, u64),
        counts: &mut [usize],
        to: &mut [K],
    ) {
        for k in keys {
            let d = ((k.value() >> shift) & mask) as usize;
            to[counts[d]] = k;
            counts[d] += 1;
        }
    }
    // Every pass's counts in one read, then each turned into its digits' first places.
    let mut counts = vec![0usize; passes * width];
    for k in parts.iter().flat_map(AsRef::as_ref) {
        let k = k.value();
        for (pass, counts) in counts.chunks_exact_mut(width).enumerate() {
            counts[((k >> (pass as u32 * digit)) & mask) as usize] += 1;
        }
    }
    for counts in counts.chunks_exact_mut(width) {
        let mut sum = 0;
        for c in counts.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
    }
    let mut counts = counts.chunks_exact_mut(width);
    out.clear();
    out.resize(len, K::default());
    scratch.clear();
    scratch.resize(len, K::default());
    // Pass 0 into `out`, then alternately; `in_out` says where the last pass wrote.
    let first = counts.next().expect("one pass at least");
    scatter(
        parts.iter().flat_map(AsRef::as_ref).copied(),
        (0, mask),
        first,
        out,
    );
    let mut in_out = true;
    for (pass, counts) in (1..passes).zip(counts) {
        let shift = pass as u32 * digit;
        let (from, to) = match in_out {
            true => (&*out, &mut *scratch),
            false => (&*scratch, &mut *out),
        };
        scatter(from.iter().copied(), (shift, mask), counts, to);
        in_out = !in_out;
    }
    if !in_out {
        std::mem::swap(out, scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The radix sort agrees with the standard sort, for any split into parts and any
        /// width from 0 (a share of one board) to 64 bits (one to six passes).
        #[test]
        fn radix_sort_sorts(xs in proptest::collection::vec(any::<u64>(), 0..300), bits in 0u32..=64, cut in 0usize..300) {
            let xs: Vec<u64> = xs.into_iter().map(|x| if bits == 64 { x } else { x & ((1 << bits) - 1) }).collect();
            let cut = cut.min(xs.len());
            let parts = vec![xs[..cut].to_vec(), Vec::new(), xs[cut..].to_vec()];
            let (mut out, mut scratch) = (vec![7; 5], Vec::new());
            radix_sort(&parts, bits, &mut out, &mut scratch);
            let mut want = xs;
            want.sort_unstable();
            prop_assert_eq!(&out, &want);
            // The same keys as u32 where they fit.
            if bits <= 32 {
                let parts: Vec<Vec<u32>> = parts.iter().map(|p| p.iter().map(|&k| k as u32).collect()).collect();
                let (mut out, mut scratch) = (vec![7u32; 5], Vec::new());
                radix_sort(&parts, bits, &mut out, &mut scratch);
                let want: Vec<u32> = want.iter().map(|&k| k as u32).collect();
                prop_assert_eq!(out, want);
            }
        }
    }

    proptest! {
        /// Any ascending list survives the round trip, from any base at or below its first.
        #[test]
        fn round_trip(mut xs in proptest::collection::vec(any::<u64>(), 0..200), cut in any::<u64>()) {
            xs.sort_unstable();
            xs.dedup();
            let base = xs.first().map_or(cut, |&first| cut.min(first));
            let mut bytes = Vec::new();
            encode_sorted(&xs, base, &mut bytes);
            let mut back = Vec::new();
            decode_sorted(&bytes, base, |x| back.push(x)).unwrap();
            prop_assert_eq!(back, xs);
        }
    }

    #[test]
    fn dense_lists_take_one_byte_per_index_and_truncation_is_an_error() {
        let xs: Vec<u64> = (1000..2000).step_by(3).collect();
        let mut bytes = Vec::new();
        encode_sorted(&xs, 1000, &mut bytes);
        assert_eq!(bytes.len(), xs.len());
        let mut big = Vec::new();
        encode_sorted(&[1 << 40], 0, &mut big);
        assert_eq!(big.len(), 6);
        assert!(decode_sorted(&big[..5], 0, |_| {}).is_err());
    }

    /// The reader of `bytes` as one part from `base`, below `end`, of `count` indices: what it
    /// yields and how it finishes.
    fn read(bytes: &[u8], base: u64, end: u64, count: u64) -> (Vec<u64>, Result<(), String>) {
        let part = Part {
            base,
            end,
            count,
            len: bytes.len() as u64,
        };
        let mut reader = read_memory(bytes, part);
        let xs: Vec<u64> = reader.by_ref().collect();
        let read = (xs, reader.finish().map_err(|e| e.to_string()));
        assert_eq!(read, each(bytes, part), "each and next disagree");
        read
    }

    /// [`read`] through [`Reader::each`].
    fn each(bytes: &[u8], part: Part) -> (Vec<u64>, Result<(), String>) {
        let mut reader = read_memory(bytes, part);
        let mut xs = Vec::new();
        reader.each(|x| xs.push(x));
        (xs, reader.finish().map_err(|e| e.to_string()))
    }

    proptest! {
        /// Any bytes, as any part: [`Reader::each`] yields what the iteration yields and
        /// finishes with the same verdict (its fast loop leaves every fault to `next`).
        #[test]
        fn each_reads_what_next_reads(bytes in proptest::collection::vec(prop_oneof![0u8..0x80, any::<u8>(), Just(0u8)], 0..200), base in 0u64..1000, span in 1u64..1 << 30, count in 0u64..250) {
            let (xs, verdict) = read(&bytes, base, base + span, count);
            prop_assert!(verdict.is_err() || xs.len() as u64 == count);
        }
    }

    /// Every way a part can disagree with what its writer recorded is an error, never a
    /// shorter list taken for the whole: a truncated varint, fewer or more indices than its
    /// count, an index at or past its segment's end, a repeated index, a varint past 10
    /// bytes; a gap of 0 first (an index at the base) is fine.
    #[test]
    fn the_reader_refuses_what_its_writer_did_not_write() {
        let mut bytes = Vec::new();
        encode_sorted(&[100, 101, 300, 1 << 20], 100, &mut bytes);
        assert_eq!(
            read(&bytes, 100, 1 << 21, 4),
            (vec![100, 101, 300, 1 << 20], Ok(()))
        );
        let fault =
            |bytes: &[u8], end: u64, count: u64| read(bytes, 100, end, count).1.unwrap_err();
        let n = bytes.len();
        assert_eq!(fault(&bytes[..n - 1], 1 << 21, 4), "a truncated gap");
        assert_eq!(fault(&bytes, 1 << 21, 5), "a truncated gap");
        assert_eq!(fault(&bytes, 1 << 21, 3), "bytes past its count of boards");
        assert_eq!(fault(&bytes, 1 << 20, 4), "a board past its segment");
        assert_eq!(fault(&[0, 0], 200, 2), "a repeated board");
        assert_eq!(
            fault(&[0xff; 11], u64::MAX, 1),
            "a gap longer than 10 bytes"
        );
        assert_eq!(
            fault(
                &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02],
                u64::MAX,
                1
            ),
            "a gap longer than 10 bytes"
        );
        assert_eq!(read(&[], 100, 200, 0), (vec![], Ok(())));
        assert_eq!(fault(&[1], 200, 0), "bytes past its count of boards");
    }

    proptest! {
        /// From a file, any list of parts reads back whole through any buffer from 16 bytes
        /// up, with its CRC; a flipped bit anywhere in its bytes is an error.
        #[test]
        fn files_read_through_any_buffer(mut xs in proptest::collection::vec(0u64..1 << 40, 0..300), cuts in proptest::collection::vec(0u64..1 << 40, 0..4), buffer in 16usize..200, flip in any::<prop::sample::Index>()) {
            xs.sort_unstable();
            xs.dedup();
            let mut ends: Vec<u64> = cuts;
            ends.push(1 << 40);
            ends.sort_unstable();
            ends.dedup();
            let mut bytes = vec![0xAAu8; 7];
            let mut parts = Vec::new();
            let mut base = 0;
            for &end in &ends {
                let inside: Vec<u64> = xs.iter().copied().filter(|&x| x >= base && x < end).collect();
                let from = bytes.len();
                encode_sorted(&inside, base, &mut bytes);
                parts.push(Part { base, end, count: inside.len() as u64, len: (bytes.len() - from) as u64 });
                base = end;
            }
            let body = bytes[7..].to_vec();
            let mut file = tempfile::tempfile().unwrap();
            std::io::Write::write_all(&mut file, &bytes).unwrap();
            let source = |crc| Source::File { file: &file, from: 7, to: bytes.len() as u64, crc };
            let mut reader = Reader::new(source(crc32fast::hash(&body)), parts.iter().copied(), buffer);
            let back: Vec<u64> = reader.by_ref().collect();
            prop_assert_eq!(&back, &xs);
            prop_assert!(reader.finish().is_ok());
            let mut reader = Reader::new(source(crc32fast::hash(&body)), parts.iter().copied(), buffer);
            let mut back = Vec::new();
            reader.each(|x| back.push(x));
            prop_assert_eq!(&back, &xs);
            prop_assert!(reader.finish().is_ok());
            if !body.is_empty() {
                let k = 7 + flip.index(body.len());
                let mut damaged = bytes.clone();
                damaged[k] ^= 0x10;
                let mut file = tempfile::tempfile().unwrap();
                std::io::Write::write_all(&mut file, &damaged).unwrap();
                let source = Source::File { file: &file, from: 7, to: bytes.len() as u64, crc: crc32fast::hash(&body) };
                let mut reader = Reader::new(source, parts.iter().copied(), buffer);
                while reader.next().is_some() {}
                prop_assert!(reader.finish().is_err());
                let source = Source::File { file: &file, from: 7, to: bytes.len() as u64, crc: crc32fast::hash(&body) };
                let mut reader = Reader::new(source, parts.iter().copied(), buffer);
                reader.each(|_| {});
                prop_assert!(reader.finish().is_err());
            }
        }
    }
}
