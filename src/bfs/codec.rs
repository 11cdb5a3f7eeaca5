//! Sorted index lists as bytes: the gaps between ascending `u64` indices as LEB128 varints,
//! the usual posting-list encoding (Witten, Moffat & Bell, "Managing Gigabytes", 1999). Used
//! by the distributed driver for a last layer's boards and a distance table's listed layers
//! (decoded with checks, by the `integer-encoding` crate) and by the frontier search for its layers and runs (read back
//! unchecked by `Cursor`); a batch of `k` indices spread over a slice of `s` boards costs
//! about `log128(s / k) + 1` bytes per index. (The neighbours the distributed driver sends
//! are not sorted: see `cluster::net::pack`.)

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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
