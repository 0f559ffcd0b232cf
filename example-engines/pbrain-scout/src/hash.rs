//! The scout's hash table: the best move found in a position, keyed by a Zobrist hash, tried
//! first when the search meets the position again. Sized from `INFO max_memory` and filled when
//! that line arrives, as real engines allocate their hash: the work a manager must let happen
//! before the first move's clock starts.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One slot: the position's full key and its best move (a padded cell index), 16 bytes.
#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    key: u64,
    best: u32,
    /// The table's generation when stored: entries of an older one are empty.
    generation: u32,
}

/// The table takes `max_memory / SHARE`: enough to be real work at start-up (filling it takes
/// tens of milliseconds at the default 350 MiB), small enough that the test suite's many engines
/// at once stay light.
const SHARE: u64 = 16;
/// Cells of the largest padded board (32 + 2 × 5 per side).
pub const MAX_CELLS: usize = 42 * 42;

pub struct HashTable {
    /// Zobrist keys, `[cell][colour]`.
    keys: Vec<[u64; 2]>,
    table: Vec<Entry>,
    /// Bumped by [`clear`](Self::clear): emptying the table without touching its memory.
    generation: u32,
}

impl HashTable {
    /// A table of about `max_memory / 16` bytes (at least one slot), every slot written so the
    /// memory is really taken now, not at the first probes.
    pub fn new(max_memory: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(0x5c0u64);
        let keys = (0..MAX_CELLS).map(|_| [rng.gen(), rng.gen()]).collect();
        let slots = (max_memory / SHARE / std::mem::size_of::<Entry>() as u64).max(1);
        let slots = usize::try_from(slots).unwrap_or(usize::MAX >> 8);
        let mut table = Vec::new();
        // A table that cannot be had is no reason to fail: fall back to a small one.
        if table.try_reserve_exact(slots).is_err() {
            table.reserve_exact(1 << 16);
        }
        let n = table.capacity();
        table.resize(
            n,
            Entry {
                key: u64::MAX,
                best: 0,
                generation: 0,
            },
        );
        HashTable {
            keys,
            table,
            generation: 0,
        }
    }

    /// The key change of a stone of colour index `c` on padded cell `q`.
    pub fn key(&self, q: usize, c: usize) -> u64 {
        self.keys.get(q).map_or(0, |k| k[c])
    }

    fn slot(&self, key: u64) -> usize {
        (key % self.table.len() as u64) as usize
    }

    /// The best move stored for `key`.
    pub fn probe(&self, key: u64) -> Option<usize> {
        let e = self.table[self.slot(key)];
        (e.key == key && e.generation == self.generation).then_some(e.best as usize)
    }

    /// Forget every entry (a new game).
    pub fn clear(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    pub fn store(&mut self, key: u64, best: usize) {
        let i = self.slot(key);
        self.table[i] = Entry {
            key,
            best: best as u32,
            generation: self.generation,
        };
    }

    /// Bytes the table holds.
    pub fn bytes(&self) -> usize {
        self.table.len() * std::mem::size_of::<Entry>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sized_from_max_memory_and_keeps_what_it_stores() {
        let mut t = HashTable::new(64 << 20);
        assert_eq!(t.bytes(), 4 << 20);
        let k = t.key(100, 0) ^ t.key(101, 1);
        assert_eq!(t.probe(k), None);
        t.store(k, 77);
        assert_eq!(t.probe(k), Some(77));
        assert_eq!(HashTable::new(0).bytes(), 16);
        // A new game: nothing of the last one is found, and the table works on.
        t.clear();
        assert_eq!(t.probe(k), None);
        t.store(k, 5);
        assert_eq!(t.probe(k), Some(5));
    }
}
