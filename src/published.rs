//! Published depth distributions, kept once for every test that checks against them (the
//! unit tests as `crate::published`, the integration tests as `npuzzle::published`) and for
//! library users who want the reference figures.
//!
//! Each is the number of boards at each distance from a goal, single-tile metric, over the
//! goal's component: from the standard goal (tiles in order, blank last) unless its doc names
//! the blank's cell. Relabelling the tiles and the rectangle's symmetries map the game graph
//! onto itself, so the distribution from a board depends only on the orbit of its blank's cell
//! (a corner is the standard goal's). The sequences are from the OEIS and agree with Reinefeld
//! (1993) for 3x3 and Korf & Schultze (2005) for the first 4x4 layers.

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

/// OEIS A090164: 4x4 from a board with the blank on one of the 4 central cells (cells 5, 6,
/// 9, 10 row-major), depths 0 to 26 (all that is published; a(16)-a(26) by M. S. Branicky,
/// 2020).
pub const A090164_TO_26: [u64; 27] = [
    1, 4, 10, 20, 38, 80, 174, 372, 762, 1540, 3072, 6196, 12356, 24516, 48179, 94356, 183432,
    355330, 682250, 1301874, 2460591, 4617322, 8580175, 15815664, 28854386, 52154316, 93214030,
];

/// OEIS A090165: 4x4 from a board with the blank on one of the 8 edge cells that are not
/// corners (cells 1, 2, 4, 7, 8, 11, 13, 14 row-major), depths 0 to 27 (all that is published;
/// a(17)-a(27) by M. S. Branicky, 2020).
pub const A090165_TO_27: [u64; 28] = [
    1, 3, 6, 14, 32, 66, 134, 280, 585, 1214, 2462, 4946, 9861, 19600, 38688, 76086, 148435,
    288098, 554970, 1062628, 2016814, 3800682, 7093209, 13127364, 24053454, 43657576, 78382622,
    139237375,
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
