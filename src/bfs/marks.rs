//! [`StateMarks`]: two bits per board of a dense index, the classic encoding of whole-space
//! BFS (Korf 2008, "Linear-time disk-based implicit graph search"; Rokicki's twsearch).
//!
//! A field is [`UNSEEN`], one of two alternating frontier codes (layer `d` holds code
//! `1 + d % 2`; on a bipartite space with lanes, codes 1 and 2 instead say how a board of
//! either of the two live layers was reached, see `step::LayerCodes::flagged`), or [`DONE`]
//! for an expanded board. The array is allocated zeroed by the OS
//! (pages appear on first touch) and, on Linux, asks for transparent huge pages, which
//! matter for the random accesses of the BFS on multi-gigabyte arrays.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::StateIndex;

/// Field value of a board never reached.
pub const UNSEEN: u64 = 0;
/// Field value of an expanded board.
pub const DONE: u64 = 3;
/// The low bit of every field of a word.
pub(crate) const LOW_BITS: u64 = 0x5555_5555_5555_5555;
/// Fields per 64-bit word.
pub(crate) const FIELDS_PER_WORD: u64 = 32;
/// Words per parallel work item of a pass over the marks ([`StateMarks::par_chunks`]):
/// 65,536 boards.
pub(super) const CHUNK_WORDS: usize = 2048;
/// Lists of boards shorter than this are expanded or examined on the calling thread; longer
/// ones in parallel items of this many.
pub(super) const PARALLEL_LIST: usize = 4096;

/// An array of the search could not be allocated: the memory plan let it through, but the
/// memory was not there when asked for (another program took it, an address-space limit).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "out of memory: {what} need {} and the allocation failed (the memory npuzzle may use: \
     RAM, its cgroup's limit, ulimit -v)",
    indicatif::DecimalBytes(*bytes)
)]
pub struct OutOfMemory {
    /// Bytes asked for.
    pub bytes: u64,
    /// What they were for (`the marks`, `the depths`, ...).
    pub what: &'static str,
}

/// A zeroed vector of `len` values of `T` (all-zero bits valid), allocated by the allocator's
/// zeroed path (lazily zeroed pages for large ones); [`OutOfMemory`] instead of an abort.
pub(crate) fn try_zeroed<T: bytemuck::Zeroable>(
    len: u64,
    what: &'static str,
) -> Result<Vec<T>, OutOfMemory> {
    let bytes = len.saturating_mul(size_of::<T>() as u64);
    usize::try_from(len)
        .ok()
        .and_then(|n| bytemuck::allocation::try_zeroed_vec(n).ok())
        .ok_or(OutOfMemory { bytes, what })
}

/// A claim under the across flag ([`StateMarks::claim_flagged`]) of the field at bit `shift`
/// of word `x`: the word it writes, and whether the field was `UNSEEN`; `None` when it leaves
/// the word as it is.
#[inline(always)]
fn flagged_claim(x: u64, shift: u64, code: u64) -> Option<(u64, bool)> {
    match (x >> shift) & 3 {
        UNSEEN => Some((x | code << shift, true)),
        1 if code == 2 => Some((x ^ (3 << shift), false)),
        _ => None,
    }
}

/// Two bits per board over `0..len`, shared between threads. Memory: `len / 4` bytes.
pub struct StateMarks {
    words: Vec<AtomicU64>,
    len: u64,
}

impl StateMarks {
    /// All `len` boards `UNSEEN`; allocates `len / 4` bytes (rounded up to 8).
    ///
    /// # Panics
    /// When the allocation fails (see [`StateMarks::try_new`]).
    pub fn new(len: u64) -> StateMarks {
        StateMarks::try_new(len).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`StateMarks::new`], or [`OutOfMemory`] when the allocation fails.
    ///
    /// # Errors
    /// [`OutOfMemory`] with the bytes asked for.
    pub fn try_new(len: u64) -> Result<StateMarks, OutOfMemory> {
        let n_words = len.div_ceil(FIELDS_PER_WORD);
        // Zeroed by the allocator (calloc, hence lazily zeroed pages for large arrays) rather
        // than written word by word, with the atomic type's own layout (bytemuck: all-zero
        // bits are a valid `AtomicU64`).
        let words: Vec<AtomicU64> = try_zeroed(n_words, "the marks (2 bits per board)")?;
        advise_huge_pages(words.as_ptr(), words.len());
        Ok(StateMarks { words, len })
    }

    /// Number of boards.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no boards.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The 2-bit field of board `i`.
    #[inline(always)]
    pub fn get(&self, i: StateIndex) -> u64 {
        (self.words[(i.0 >> 5) as usize].load(Relaxed) >> ((i.0 & 31) * 2)) & 3
    }

    /// The words, 32 fields each (board `i` is field `i % 32` of word `i / 32`).
    #[inline(always)]
    pub(crate) fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// The words in parallel chunks of [`CHUNK_WORDS`], each with its first board's index
    /// (a multiple of `CHUNK_WORDS * 32`): the frame of every pass over the marks.
    pub(super) fn par_chunks(
        &self,
    ) -> impl IndexedParallelIterator<Item = (u64, &[AtomicU64])> + '_ {
        self.words
            .par_chunks(CHUNK_WORDS)
            .enumerate()
            .map(|(chunk, words)| ((chunk * CHUNK_WORDS) as u64 * FIELDS_PER_WORD, words))
    }

    /// Sets an `UNSEEN` board to frontier `code` (1 or 2); true for exactly one caller per
    /// board. Concurrent callers of one board must pass the same code.
    #[inline(always)]
    pub(crate) fn claim(&self, i: StateIndex, code: u64) -> bool {
        let word = &self.words[(i.0 >> 5) as usize];
        let shift = (i.0 & 31) * 2;
        if (word.load(Relaxed) >> shift) & 3 != UNSEEN {
            return false;
        }
        // Concurrent claimers of a board all set the same single bit (the field was UNSEEN,
        // so it is in no frontier), so the winner is the one that found the bit clear; a
        // single-bit test-and-set compiles to `lock bts` rather than a compare-exchange loop.
        let bit = 1u64 << (shift + (code - 1));
        word.fetch_or(bit, Relaxed) & bit == 0
    }

    /// The claim of board `i` under the across flag ([`super::Marking::Frontier`] on a
    /// bipartite space with lanes, see `step::LayerCodes::flagged`): `code` 1 (a lane move)
    /// sets an `UNSEEN` field to 1; `code` 2 (a move across) sets an `UNSEEN` field, or one a
    /// lane move set to 1 in this step, to 2. True exactly when the field was `UNSEEN`: once
    /// per board, whatever the order of its claims. A compare-exchange loop, since a lane
    /// claim must not OR its bit into a field a move across has set (that would read `DONE`).
    #[inline(always)]
    pub(crate) fn claim_flagged(&self, i: StateIndex, code: u64) -> bool {
        let word = &self.words[(i.0 >> 5) as usize];
        let shift = (i.0 & 31) * 2;
        let mut cur = word.load(Relaxed);
        loop {
            let Some((new, won)) = flagged_claim(cur, shift, code) else {
                return false;
            };
            match word.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
                Ok(_) => return won,
                Err(now) => cur = now,
            }
        }
    }

    /// [`StateMarks::claim_flagged`] by the marks' only writer (see
    /// [`StateMarks::claim_alone`]): a load and a store.
    #[inline(always)]
    pub(crate) fn claim_flagged_alone(&self, i: StateIndex, code: u64) -> bool {
        let word = &self.words[(i.0 >> 5) as usize];
        let (new, won) = match flagged_claim(word.load(Relaxed), (i.0 & 31) * 2, code) {
            Some(change) => change,
            None => return false,
        };
        word.store(new, Relaxed);
        won
    }

    /// [`StateMarks::claim`] by the marks' only writer: a load and a store rather than a
    /// locked read-modify-write (which also waits for every earlier store, so that the
    /// claims of a batch cannot overlap their cache misses). Correct only while no other
    /// thread writes the marks (a process whose marks one thread steps, see
    /// [`super::step::Owner::alone`]); another writer's change to the word could be lost.
    #[inline(always)]
    pub(crate) fn claim_alone(&self, i: StateIndex, code: u64) -> bool {
        let word = &self.words[(i.0 >> 5) as usize];
        let shift = (i.0 & 31) * 2;
        let x = word.load(Relaxed);
        if (x >> shift) & 3 != UNSEEN {
            return false;
        }
        word.store(x | 1u64 << (shift + (code - 1)), Relaxed);
        true
    }

    /// Claims board `i` as an owner of the layer step does ([`Claim`]): under the across flag
    /// `flag` says how the board was reached (1: a lane move, 2: a move across), otherwise the
    /// claim writes the claim's code; by the marks' only writer, with a load and a store. True
    /// for exactly one claim per board.
    #[inline(always)]
    pub(crate) fn claim_as(&self, i: StateIndex, claim: Claim, flag: u64) -> bool {
        match (claim.flagged, claim.alone) {
            (true, true) => self.claim_flagged_alone(i, flag),
            (true, false) => self.claim_flagged(i, flag),
            (false, true) => self.claim_alone(i, claim.code),
            (false, false) => self.claim(i, claim.code),
        }
    }

    /// Asks the CPU to bring the word of board `i` into cache (a hint; never faults).
    #[inline(always)]
    pub(crate) fn prefetch(&self, i: StateIndex) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let p = self.words.as_ptr().wrapping_add((i.0 >> 5) as usize);
            // SAFETY: SSE is part of the x86_64 baseline, and a prefetch never faults,
            // whatever the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    /// Writes the words (32 fields each, 8 bytes little-endian per word) to `out`, in large
    /// slices.
    ///
    /// # Safety
    /// No thread may change the marks during the call (call it between layers): the words
    /// are read as plain bytes, which races with an atomic write.
    ///
    /// # Errors
    /// The writer's.
    pub(crate) unsafe fn write_words(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        #[cfg(target_endian = "little")]
        {
            // SAFETY: `AtomicU64` has the size and bit validity of `u64`, whose bytes on a
            // little-endian machine are the file's; no thread writes the words meanwhile (the
            // caller's contract), so reading them as plain bytes races with nothing.
            let bytes = unsafe {
                std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.words.len() * 8)
            };
            out.write_all(bytes)
        }
        #[cfg(not(target_endian = "little"))]
        {
            for w in &self.words {
                out.write_all(&w.load(Relaxed).to_le_bytes())?;
            }
            Ok(())
        }
    }

    /// Reads the words written by [`StateMarks::write_words`] (`len / 32` words, rounded up).
    ///
    /// # Errors
    /// The reader's (`UnexpectedEof` when it ends early).
    pub(crate) fn read_words(&mut self, input: &mut impl std::io::Read) -> std::io::Result<()> {
        #[cfg(target_endian = "little")]
        {
            // SAFETY: as in `write_words`; `&mut self` makes the access exclusive, and every
            // byte pattern is a valid `u64`.
            let bytes = unsafe {
                std::slice::from_raw_parts_mut(
                    self.words.as_mut_ptr().cast::<u8>(),
                    self.words.len() * 8,
                )
            };
            input.read_exact(bytes)
        }
        #[cfg(not(target_endian = "little"))]
        {
            let mut b = [0u8; 8];
            for w in &self.words {
                input.read_exact(&mut b)?;
                w.store(u64::from_le_bytes(b), Relaxed);
            }
            Ok(())
        }
    }

    /// Calls `f` with the marks as bytes, four fields a byte (board `i` in bits `2 (i mod 4)`
    /// of byte `i / 4`, `len / 4` bytes rounded up to whole words), the bytes of
    /// [`StateMarks::write_words`].
    ///
    /// # Safety
    /// As [`StateMarks::write_words`]: no thread may change the marks until `f` returns.
    pub(crate) unsafe fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        #[cfg(target_endian = "little")]
        {
            // SAFETY: as in `write_words`.
            let bytes = unsafe {
                std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.words.len() * 8)
            };
            f(bytes)
        }
        #[cfg(not(target_endian = "little"))]
        {
            let mut bytes = Vec::with_capacity(self.words.len() * 8);
            // SAFETY: this function's own contract.
            unsafe { self.write_words(&mut bytes) }.expect("writing to memory");
            f(&bytes)
        }
    }

    /// Bytes of [`StateMarks::write_words`].
    pub(crate) fn word_bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }

    /// Marks board `i` as expanded (the drivers retire through their layer codes).
    #[cfg(test)]
    fn retire(&self, i: StateIndex) {
        self.words[(i.0 >> 5) as usize].fetch_or(DONE << ((i.0 & 31) * 2), Relaxed);
    }

    /// The first `UNSEEN` board at or after `from`, if any.
    pub fn next_unseen(&self, from: u64) -> Option<StateIndex> {
        let mut w = (from / FIELDS_PER_WORD) as usize;
        let mut skip = (from % FIELDS_PER_WORD) * 2;
        while w < self.words.len() {
            let x = self.words[w].load(Relaxed);
            let m = !(x | (x >> 1)) & LOW_BITS & (!0u64 << skip);
            if let Some(r) = fields(w as u64 * FIELDS_PER_WORD, m).next() {
                return (r.0 < self.len).then_some(r);
            }
            w += 1;
            skip = 0;
        }
        None
    }
}

/// How an owner claims the boards of a layer step ([`StateMarks::claim_as`]): the one
/// dispatch of the one-machine owner and the distributed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Claim {
    /// The code a claim writes ([`super::step::LayerCodes::claim`]), without the across flag.
    pub code: u64,
    /// Claims under the across flag ([`super::step::LayerCodes::flagged`]).
    pub flagged: bool,
    /// The claimer is the marks' only writer ([`super::step::Owner::alone`]).
    pub alone: bool,
}

/// The boards of a word's fields whose low bit is set in `fields` (a mask within
/// [`LOW_BITS`]): board `base + f` for field `f`, ascending. The one loop that turns a word's
/// bits into boards (scans, claims, pull steps, the frontier's list).
#[inline(always)]
pub(crate) fn fields(base: u64, fields: u64) -> Fields {
    Fields { base, mask: fields }
}

/// The iterator of [`fields`].
#[derive(Debug, Clone)]
pub(crate) struct Fields {
    base: u64,
    mask: u64,
}

impl Iterator for Fields {
    type Item = StateIndex;

    #[inline(always)]
    fn next(&mut self) -> Option<StateIndex> {
        if self.mask == 0 {
            return None;
        }
        let board = StateIndex(self.base + u64::from(self.mask.trailing_zeros() / 2));
        self.mask &= self.mask - 1;
        Some(board)
    }
}

/// Asks Linux to back the `len` elements at `ptr` with transparent huge pages (where the
/// system's policy is `madvise`); a hint, ignored elsewhere, for small ranges or on failure.
/// Given before the pages are first touched, it also makes faulting them in cheaper.
pub(crate) fn advise_huge_pages<T>(ptr: *const T, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        if len * size_of::<T>() < 4 * HUGE {
            return;
        }
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + len * size_of::<T>()) / HUGE * HUGE;
        if end > start {
            // SAFETY: the range lies inside one live allocation of ours; MADV_HUGEPAGE only
            // changes how the kernel backs it, never its contents.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, len);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 23: the big arrays are allocated fallibly: an impossible size is an
    /// [`OutOfMemory`] naming the array and the bytes, not an abort.
    #[test]
    fn impossible_arrays_are_errors() {
        // Through `black_box`: an optimiser may drop an allocation whose memory is never
        // used, and its failure with it.
        use std::hint::black_box;
        let e = black_box(StateMarks::try_new(u64::MAX)).err().unwrap();
        assert_eq!(e.what, "the marks (2 bits per board)");
        assert!(e.to_string().starts_with("out of memory: the marks"), "{e}");
        let e = black_box(crate::bfs::DepthArray::try_new(1 << 62))
            .err()
            .unwrap();
        assert_eq!(e.bytes, 1 << 62);
        assert!(black_box(crate::components::ComponentArray::try_new(1 << 62)).is_err());
        assert_eq!(StateMarks::try_new(1000).unwrap().len(), 1000);
    }

    #[test]
    fn next_unseen_skips_visited_and_stops_at_len() {
        let marks = StateMarks::new(70);
        assert_eq!(marks.next_unseen(0), Some(StateIndex(0)));
        for r in 0..40 {
            marks.retire(StateIndex(r));
        }
        assert_eq!(marks.next_unseen(0), Some(StateIndex(40)));
        assert_eq!(marks.next_unseen(65), Some(StateIndex(65)));
        for r in 40..70 {
            marks.retire(StateIndex(r));
        }
        assert_eq!(marks.next_unseen(0), None);
    }

    #[test]
    fn claims_are_exclusive() {
        let marks = StateMarks::new(100);
        assert!(marks.claim(StateIndex(37), 1));
        assert!(!marks.claim(StateIndex(37), 2));
        assert_eq!(marks.get(StateIndex(37)), 1);
        marks.retire(StateIndex(37));
        assert_eq!(marks.get(StateIndex(37)), DONE);
    }

    /// Claims under the across flag: on every field value, both claims (1, a lane move; 2, a
    /// move across) win exactly on `UNSEEN`, a move across upgrades 1 to 2 without winning,
    /// and nothing else changes, by the locked claim and the only writer's alike. From four
    /// threads racing over the same boards with both codes, each board is won once, and
    /// ends 2 exactly when some thread claimed it across.
    #[test]
    fn flagged_claims_win_once_and_keep_the_move_across() {
        for field in 0..4u64 {
            for code in [1, 2] {
                let want_won = field == UNSEEN;
                let want = match (field, code) {
                    (UNSEEN, c) => c,
                    (1, 2) => 2,
                    (f, _) => f,
                };
                let (locked, alone) = (StateMarks::new(64), StateMarks::new(64));
                for m in [&locked, &alone] {
                    m.words()[1].store((field << 10) | 0xdead_0000_0000_0003, Relaxed);
                }
                let i = StateIndex(32 + 5);
                assert_eq!(locked.claim_flagged(i, code), want_won, "{field} {code}");
                assert_eq!(
                    alone.claim_flagged_alone(i, code),
                    want_won,
                    "{field} {code}"
                );
                for m in [&locked, &alone] {
                    let other = m.words()[1].load(Relaxed) & !(3 << 10);
                    assert_eq!(m.get(i), want, "field {field} code {code}");
                    assert_eq!(other, 0xdead_0000_0000_0003, "field {field} code {code}");
                }
            }
        }
        let marks = StateMarks::new(4096);
        let wins: Vec<Vec<u64>> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..4u64)
                .map(|t| {
                    let marks = &marks;
                    s.spawn(move || {
                        (0..4096u64)
                            .filter(|&b| {
                                // Board b is claimed across by thread b % 5 (none for 4).
                                let code = if b % 5 == t { 2 } else { 1 };
                                marks.claim_flagged(StateIndex(b), code)
                            })
                            .collect()
                    })
                })
                .collect();
            threads.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut all: Vec<u64> = wins.concat();
        all.sort_unstable();
        assert_eq!(all, (0..4096).collect::<Vec<_>>());
        for b in 0..4096u64 {
            let want = if b % 5 < 4 { 2 } else { 1 };
            assert_eq!(marks.get(StateIndex(b)), want, "board {b}");
        }
    }

    /// The only writer's claim gives the same answers and the same words as the locked
    /// one, for every code a field can hold and both claim codes.
    #[test]
    fn a_claim_alone_is_a_claim() {
        let (locked, alone) = (StateMarks::new(96), StateMarks::new(96));
        for i in 0..96u64 {
            let code = i % 4;
            for m in [&locked, &alone] {
                m.words()[(i / 32) as usize].fetch_or(code << (2 * (i % 32)), Relaxed);
            }
        }
        for i in (0..96).map(StateIndex) {
            let code = 1 + i.0 / 4 % 2;
            let claimed = locked.claim(i, code);
            assert_eq!(alone.claim_alone(i, code), claimed, "board {}", i.0);
            assert_eq!(claimed, i.0 % 4 == 0, "board {}", i.0);
            assert!(!alone.claim_alone(i, code), "board {} claimed twice", i.0);
        }
        for (a, b) in locked.words().iter().zip(alone.words()) {
            assert_eq!(a.load(Relaxed), b.load(Relaxed));
        }
    }

    #[test]
    fn words_round_trip_as_little_endian_bytes() {
        let marks = StateMarks::new(70);
        marks.claim(StateIndex(0), 1);
        marks.claim(StateIndex(33), 2);
        marks.retire(StateIndex(69));
        let mut bytes = Vec::new();
        // SAFETY: no other thread has the marks.
        unsafe { marks.write_words(&mut bytes) }.unwrap();
        assert_eq!(bytes.len() as u64, marks.word_bytes());
        assert_eq!(bytes[..8], 1u64.to_le_bytes());
        assert_eq!(bytes[8..16], (2u64 << 2).to_le_bytes());
        assert_eq!(bytes[16..], (3u64 << 10).to_le_bytes());
        let mut back = StateMarks::new(70);
        back.read_words(&mut &bytes[..]).unwrap();
        for i in 0..70 {
            assert_eq!(back.get(StateIndex(i)), marks.get(StateIndex(i)), "{i}");
        }
    }
}
