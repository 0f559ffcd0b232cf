//! A reproducible shuffle: the same seed gives the same order on every machine and build (the
//! openings' random order, a knockout's unseeded places).

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Fisher–Yates shuffle of `0..n` for `(seed, pass)`. The key is `seed` then `pass`, little-endian,
/// zero-padded to 32 bytes; bounded draws use our own rejection sampling on `next_u64` so the
/// result depends only on the ChaCha8 stream, not on a library's sampling algorithm.
pub fn shuffled(n: usize, seed: u64, pass: u64) -> Vec<u32> {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&pass.to_le_bytes());
    let mut rng = ChaCha8Rng::from_seed(key);
    let mut v: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        let j = uniform_below(&mut rng, i as u64 + 1) as usize;
        v.swap(i, j);
    }
    v
}

/// A uniform integer in `0..bound` (`bound` > 0) by rejection, unbiased.
fn uniform_below(rng: &mut ChaCha8Rng, bound: u64) -> u64 {
    // Largest multiple of `bound` that fits; values at or above it would bias small results.
    let zone = u64::MAX - (u64::MAX % bound);
    loop {
        let r = rng.next_u64();
        if r < zone {
            return r % bound;
        }
    }
}
