//! The draw order of an opening book: which opening, under which symmetry, game pair `k` plays —
//! in file order or a reproducible shuffle per pass — and which openings leave white to move.

use std::sync::{Arc, Mutex};

use crate::core::board::Symmetry;
use crate::core::shuffle::shuffled;
use crate::formats::openings::OpeningBook;

/// The order in which openings are taken from the book.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpeningOrder {
    /// Line order, wrapping around after the last opening.
    Sequential,
    /// A fresh shuffle of the whole book on every pass, reproducible from `seed` alone.
    Random { seed: u64 },
}

/// An unpredictable seed for `order=random` with `srand=0` (the predecessor's "pick one for me").
/// Callers print it so the run can be reproduced with `srand=<seed>`. Never returns 0, which the
/// command line reserves for "choose a seed".
pub fn fresh_seed() -> u64 {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    // RandomState is keyed from OS entropy; mixing in time and pid covers platforms where it is not.
    let mut h = RandomState::new().build_hasher();
    h.write_u128(nanos);
    h.write_u32(std::process::id());
    match h.finish() {
        0 => 0x9e37_79b9_7f4a_7c15,
        s => s,
    }
}

/// Deterministic random access to "which opening, under which symmetry, for draw number `k`".
///
/// Draw `k` belongs to pass `k / n` over the book (n = book length) at slot `k % n`. Sequential
/// order takes opening `k % n`; random order takes `perm(pass)[k % n]`, where `perm(pass)` is a
/// Fisher–Yates shuffle of `0..n` driven by ChaCha8 keyed with `(seed, pass)`, so the same seed gives
/// the same games on every machine, and any `k` can be drawn directly (resume, shards).
/// With `transform`, pass `p` plays every opening under `Symmetry::ALL[p % 8]` (identity on the first
/// pass, then the next symmetry after each full pass, as the predecessor did); without it, identity.
///
/// Repeating an opening with colours reversed (`-repeat`) is the scheduler's business: it calls
/// `draw(pair_index)` once per pair of games and plays the result twice.
#[derive(Debug)]
pub struct OpeningSequence {
    n: usize,
    order: OpeningOrder,
    transform: bool,
    /// `start=N`: draws begin N−1 places into the order (after shuffling, as cutechess-cli's
    /// `start=`), so workers with one seed and their own starts play their own parts of it.
    start: u64,
    /// The permutation of the last pass asked for; draws usually walk `k` upwards, so one pass is
    /// reused `n` times before the next shuffle.
    cache: Mutex<Option<(u64, Arc<[u32]>)>>,
}

/// Which openings leave white to move (an odd number of stones): under c-gomoku-cli's colour
/// rule the first engine of a pair then plays white, since it makes the first move after the
/// opening.
#[derive(Debug)]
pub struct OpeningParity {
    sequence: OpeningSequence,
    /// Per opening of the book: an odd number of stones.
    odd: Vec<bool>,
}

impl OpeningParity {
    /// The parity of every opening of `book`, drawn in the run's order.
    pub fn new(
        book: &OpeningBook,
        order: OpeningOrder,
        transform: bool,
        start: u64,
    ) -> OpeningParity {
        OpeningParity {
            sequence: book.sequence(order, transform).starting_at(start),
            odd: book
                .openings
                .iter()
                .map(|o| o.stones.len() % 2 == 1)
                .collect(),
        }
    }

    /// Draw `k` is an opening after which white moves first.
    pub fn white_to_move(&self, k: u64) -> bool {
        let (index, _) = self.sequence.draw(k);
        self.odd.get(index).copied().unwrap_or(false)
    }
}

impl OpeningSequence {
    /// `book_len` must be at least 1 (an `OpeningBook` is never empty; use `OpeningBook::sequence`).
    ///
    /// # Panics
    /// If `book_len` is 0 or does not fit in `u32` — both programming errors, not input errors.
    pub fn new(book_len: usize, order: OpeningOrder, transform: bool) -> Self {
        assert!(
            book_len > 0,
            "an opening sequence needs at least one opening"
        );
        assert!(u32::try_from(book_len).is_ok(), "too many openings");
        OpeningSequence {
            n: book_len,
            order,
            transform,
            start: 0,
            cache: Mutex::new(None),
        }
    }

    /// The same sequence, its first draw `start` places (0-based) into the order; past the end
    /// it wraps round, as every pass does.
    pub fn starting_at(mut self, start: u64) -> Self {
        self.start = start;
        self
    }

    pub fn book_len(&self) -> usize {
        self.n
    }

    pub fn order(&self) -> OpeningOrder {
        self.order
    }

    pub fn transform(&self) -> bool {
        self.transform
    }

    /// The opening index and symmetry of draw number `k` (0-based).
    pub fn draw(&self, k: u64) -> (usize, Symmetry) {
        let n = self.n as u64;
        let k = k.saturating_add(self.start);
        let pass = k / n;
        let slot = (k % n) as usize;
        let index = match self.order {
            OpeningOrder::Sequential => slot,
            OpeningOrder::Random { seed } => self.permutation_cached(seed, pass)[slot] as usize,
        };
        let sym = if self.transform {
            Symmetry::ALL[(pass % 8) as usize]
        } else {
            Symmetry::Identity
        };
        (index, sym)
    }

    /// The full order of opening indices in pass `pass`.
    pub fn pass_order(&self, pass: u64) -> Vec<usize> {
        match self.order {
            OpeningOrder::Sequential => (0..self.n).collect(),
            OpeningOrder::Random { seed } => self
                .permutation_cached(seed, pass)
                .iter()
                .map(|&i| i as usize)
                .collect(),
        }
    }

    fn permutation_cached(&self, seed: u64, pass: u64) -> Arc<[u32]> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((p, perm)) = cache.as_ref() {
            if *p == pass {
                return Arc::clone(perm);
            }
        }
        let perm: Arc<[u32]> = shuffled(self.n, seed, pass).into();
        *cache = Some((pass, Arc::clone(&perm)));
        perm
    }
}

impl OpeningBook {
    /// A drawing order over this book (never empty, so always valid).
    pub fn sequence(&self, order: OpeningOrder, transform: bool) -> OpeningSequence {
        OpeningSequence::new(self.len(), order, transform)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_order_walks_the_file_and_cycles_symmetries() {
        let seq = OpeningSequence::new(3, OpeningOrder::Sequential, true);
        let got: Vec<(usize, Symmetry)> = (0..7).map(|k| seq.draw(k)).collect();
        assert_eq!(
            got,
            vec![
                (0, Symmetry::Identity),
                (1, Symmetry::Identity),
                (2, Symmetry::Identity),
                (0, Symmetry::Rot90),
                (1, Symmetry::Rot90),
                (2, Symmetry::Rot90),
                (0, Symmetry::Rot180),
            ]
        );
        // Pass 8 comes back to identity; pass 7 is the last symmetry.
        assert_eq!(seq.draw(3 * 7), (0, Symmetry::FlipYX));
        assert_eq!(seq.draw(3 * 8 + 2), (2, Symmetry::Identity));
        let plain = OpeningSequence::new(3, OpeningOrder::Sequential, false);
        assert_eq!(plain.draw(3 * 5 + 1), (1, Symmetry::Identity));
    }

    #[test]
    fn start_begins_that_far_into_the_order_after_shuffling() {
        let index = |seq: &OpeningSequence, k: u64| seq.draw(k).0;
        let seq = OpeningSequence::new(5, OpeningOrder::Sequential, false).starting_at(3);
        let got: Vec<usize> = (0..7).map(|k| index(&seq, k)).collect();
        assert_eq!(got, [3, 4, 0, 1, 2, 3, 4]);
        // A random order: the same shuffle, entered 3 places in; two workers with one seed and
        // starts 1 and 4 play disjoint parts of one pass.
        let random = OpeningOrder::Random { seed: 7 };
        let whole = OpeningSequence::new(6, random, false);
        let late = OpeningSequence::new(6, random, false).starting_at(3);
        let first: Vec<usize> = (0..3).map(|k| index(&whole, k)).collect();
        let second: Vec<usize> = (0..3).map(|k| index(&late, k)).collect();
        assert_eq!(second, (3..6).map(|k| index(&whole, k)).collect::<Vec<_>>());
        assert!(first.iter().all(|i| !second.contains(i)));
    }

    #[test]
    fn random_order_is_a_fresh_permutation_per_pass_and_reproducible() {
        let n = 50;
        let seq = OpeningSequence::new(n, OpeningOrder::Random { seed: 7 }, true);
        let mut passes = Vec::new();
        for pass in 0..4u64 {
            let mut idx: Vec<usize> = (0..n as u64)
                .map(|i| seq.draw(pass * n as u64 + i).0)
                .collect();
            passes.push(idx.clone());
            assert_eq!(seq.draw(pass * n as u64).1, Symmetry::ALL[pass as usize]);
            idx.sort();
            assert_eq!(
                idx,
                (0..n).collect::<Vec<_>>(),
                "pass {pass} is a permutation"
            );
        }
        assert_ne!(passes[0], passes[1]);
        assert_ne!(passes[0], (0..n).collect::<Vec<_>>());
        // Random access in any order agrees with walking forwards, and another instance agrees.
        let other = OpeningSequence::new(n, OpeningOrder::Random { seed: 7 }, true);
        for k in [170u64, 3, 120, 49, 50, 0, 199] {
            let pass = (k / n as u64) as usize;
            assert_eq!(other.draw(k).0, passes[pass][(k % n as u64) as usize]);
        }
        assert_eq!(other.pass_order(2), passes[2]);
        // A different seed gives a different order.
        let third = OpeningSequence::new(n, OpeningOrder::Random { seed: 8 }, true);
        assert_ne!(third.pass_order(0), passes[0]);
    }

    #[test]
    fn random_order_is_pinned_across_versions() {
        // Recorded once; if this changes, runs with a given srand no longer replay the same games.
        let seq = OpeningSequence::new(10, OpeningOrder::Random { seed: 12345 }, false);
        assert_eq!(seq.pass_order(0), PINNED_PASS0);
        assert_eq!(seq.pass_order(1), PINNED_PASS1);
    }

    const PINNED_PASS0: [usize; 10] = [3, 5, 7, 8, 0, 1, 2, 4, 6, 9];

    const PINNED_PASS1: [usize; 10] = [3, 7, 8, 4, 5, 9, 0, 1, 2, 6];

    #[test]
    fn single_opening_books_work() {
        let seq = OpeningSequence::new(1, OpeningOrder::Random { seed: 1 }, true);
        assert_eq!(seq.draw(0), (0, Symmetry::Identity));
        assert_eq!(seq.draw(9), (0, Symmetry::Rot90));
    }

    #[test]
    fn fresh_seeds_are_nonzero_and_vary() {
        let a = fresh_seed();
        let b = fresh_seed();
        assert_ne!(a, 0);
        assert_ne!(b, 0);
        // RandomState keys differ per instance, so two calls differ (2^-64 chance of a false alarm).
        assert_ne!(a, b);
    }
}
