//! Sorted index lists as bytes: the gaps between ascending `u64` indices as LEB128 varints
//! (the `integer-encoding` crate), the usual posting-list encoding (Witten, Moffat & Bell,
//! "Managing Gigabytes", 1999). Used by the distributed driver for the indices it sends to
//! other workers; a batch of `k` indices spread over a slice of `s` boards costs about
//! `log128(s / k) + 1` bytes per index.

use integer_encoding::VarInt;

/// A byte string that is not a valid encoding (truncated, or a gap past `u64::MAX`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("corrupt index list: {0}")]
pub struct CodecError(&'static str);

/// Appends `indices` (strictly ascending, all `>= base`) to `out` as varint gaps, the first
/// from `base`.
pub fn encode_sorted(indices: &[u64], base: u64, out: &mut Vec<u8>) {
    let mut previous = base;
    let mut buffer = [0u8; 10];
    for &x in indices {
        debug_assert!(x >= previous, "indices must ascend from the base");
        let n = (x - previous).encode_var(&mut buffer);
        out.extend_from_slice(&buffer[..n]);
        previous = x;
    }
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
