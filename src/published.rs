//! Published depth distributions, kept once for every test that checks against them (the
//! unit tests as `crate::published`, the integration tests as `npuzzle::published`) and for
//! library users who want the reference figures.
//!
//! Each is the number of boards at each distance from the standard goal (tiles in order, blank
//! last), single-tile metric, over the goal's component; the sequences are from the OEIS and
//! agree with Reinefeld (1993) for 3x3 and Korf & Schultze (2005) for the first 4x4 layers.

/// OEIS A089473: 3x3 (the 8-puzzle), 181,440 boards, radius 31, 2 antipodes.
pub const A089473: [u64; 32] = [
    1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638, 9529, 10878,
    16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
];

/// OEIS A090034: 2x3, 360 boards, radius 21.
pub const A090034: [u64; 22] = [
    1, 2, 3, 5, 6, 7, 10, 12, 12, 16, 23, 25, 28, 39, 44, 40, 29, 21, 18, 12, 6, 1,
];

/// OEIS A090035: 2x4, 20,160 boards, radius 36.
pub const A090035: [u64; 37] = [
    1, 2, 3, 6, 10, 14, 19, 28, 42, 61, 85, 119, 161, 215, 293, 396, 506, 632, 788, 985, 1194,
    1414, 1664, 1884, 1999, 1958, 1770, 1463, 1076, 667, 361, 190, 88, 39, 19, 7, 1,
];

/// OEIS A090036: 2x5, 1,814,400 boards, radius 55.
pub const A090036: [u64; 56] = [
    1, 2, 3, 6, 11, 19, 30, 44, 68, 112, 176, 271, 411, 602, 851, 1232, 1783, 2530, 3567, 4996,
    6838, 9279, 12463, 16597, 21848, 28227, 35682, 44464, 54597, 65966, 78433, 91725, 104896,
    116966, 126335, 131998, 133107, 128720, 119332, 106335, 91545, 75742, 60119, 45840, 33422,
    23223, 15140, 9094, 5073, 2605, 1224, 528, 225, 75, 20, 2,
];

/// OEIS A089484: 4x4 (the 15-puzzle), depths 0 to 20 (of 80).
pub const A089484_TO_20: [u64; 21] = [
    1, 2, 4, 10, 24, 54, 107, 212, 446, 946, 1948, 3938, 7808, 15544, 30821, 60842, 119000, 231844,
    447342, 859744, 1637383,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The sums are the component sizes (n!/2) and the last entries the antipodes.
    #[test]
    fn the_sequences_add_up_to_half_the_boards() {
        assert_eq!(A089473.iter().sum::<u64>(), 181_440);
        assert_eq!(A090034.iter().sum::<u64>(), 360);
        assert_eq!(A090035.iter().sum::<u64>(), 20_160);
        assert_eq!(A090036.iter().sum::<u64>(), 1_814_400);
    }
}
