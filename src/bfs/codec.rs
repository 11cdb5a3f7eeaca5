//! Sorted index lists as bytes: the gaps between ascending `u64` indices as LEB128 varints,
//! the usual posting-list encoding (Witten, Moffat & Bell, "Managing Gigabytes", 1999). Used
//! by the distributed driver for a last layer's boards and a distance table's listed layers
//! (decoded with checks, by the `integer-encoding` crate) and by the frontier search for its layers and runs (read back
//! unchecked by `Cursor`); a batch of `k` indices spread over a slice of `s` boards costs
//! about `log128(s / k) + 1` bytes per index. The distributed driver sends its neighbours
//! this way, [`radix_sort`]ed, to a process on another host, and as found to one on its own
//! (see `cluster::net::Wire`).

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

/// Reads a list written by [`encode_sorted`] from `base`, one index at a time, for bytes this
/// process wrote itself (runs and layers of the frontier search): unlike [`decode_sorted`] it
/// does not check them, and panics on a truncated list.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    previous: u64,
}

impl<'a> Cursor<'a> {
    /// Reads `bytes`, the first gap counted from `base`.
    pub(crate) fn new(bytes: &'a [u8], base: u64) -> Cursor<'a> {
        Cursor {
            bytes,
            previous: base,
        }
    }
}

impl Iterator for Cursor<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        // LEB128, as `integer-encoding` writes a u64: 7 bits a byte, low first, the high bit
        // set on every byte but the last.
        let (&first, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        let mut gap = u64::from(first & 0x7f);
        if first >= 0x80 {
            let mut shift = 7;
            loop {
                let (&b, rest) = self
                    .bytes
                    .split_first()
                    .expect("runs and layers are written by this module");
                self.bytes = rest;
                gap |= u64::from(b & 0x7f) << shift;
                if b < 0x80 {
                    break;
                }
                shift += 7;
            }
        }
        self.previous += gap;
        Some(self.previous)
    }
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

/// Sorts `parts`' indices, each below `2^bits`, ascending into `out` (cleared first; its
/// allocation and `scratch`'s are reused): a least-significant-digit radix sort (Knuth, TAOCP
/// vol. 3, 5.2.5) in `max(1, ceil(bits / 11))` passes of equal digits, each a count and a stable
/// scatter, the first reading the parts in place. For the index lists of a window this is a
/// few times faster than a comparison sort: the passes stream through memory and the counts
/// (at most 2^11) stay in the L1 cache.
pub fn radix_sort(parts: &[Vec<u64>], bits: u32, out: &mut Vec<u64>, scratch: &mut Vec<u64>) {
    let len: usize = parts.iter().map(Vec::len).sum();
    let passes = bits.div_ceil(11).max(1);
    let digit = bits.div_ceil(passes).max(1);
    let mask = (1u64 << digit) - 1;
    let mut counts = vec![0usize; 1 << digit];
    // Each pass scatters its keys by digit into the other buffer; the first reads the parts.
    fn scatter(
        keys: impl Iterator<Item = u64>,
        (shift, mask): (u32, u64),
        counts: &mut [usize],
        to: &mut [u64],
    ) {
        for k in keys {
            let d = ((k >> shift) & mask) as usize;
            to[counts[d]] = k;
            counts[d] += 1;
        }
    }
    let offsets = |counts: &mut [usize]| {
        let mut sum = 0;
        for c in counts.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
    };
    out.clear();
    out.resize(len, 0);
    scratch.clear();
    scratch.resize(len, 0);
    // Pass 0 into `out`, then alternately; `in_out` says where the last pass wrote.
    for &k in parts.iter().flatten() {
        counts[(k & mask) as usize] += 1;
    }
    offsets(&mut counts);
    scatter(parts.iter().flatten().copied(), (0, mask), &mut counts, out);
    let mut in_out = true;
    for pass in 1..passes {
        let shift = pass * digit;
        let (from, to) = match in_out {
            true => (&*out, &mut *scratch),
            false => (&*scratch, &mut *out),
        };
        counts.fill(0);
        for &k in from.iter() {
            counts[((k >> shift) & mask) as usize] += 1;
        }
        offsets(&mut counts);
        scatter(from.iter().copied(), (shift, mask), &mut counts, to);
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
            prop_assert_eq!(out, want);
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
}
