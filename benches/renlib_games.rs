//! Generated 15×15 games for the RenLib merge benchmarks: one game a line in pos notation.
//!
//! ```text
//! cargo bench --bench renlib_games -- generate 1000000 > games.txt
//! ```
//!
//! (A bench target so that `bench/renlib_merge.sh` builds it in release mode with the rest; run
//! without `generate N` it measures nothing and says so.)
//!
//! Game `i` comes from ChaCha8 seeded with `i`: 40 to 80 stones (uniformly), the first on h8,
//! each later one on an empty point at Chebyshev distance ≤ 2 from a stone already placed (the
//! way games spread from the centre), so openings repeat often near the root and games part
//! after a few moves, as a real archive does. The benchmark `benches/renlib.rs` uses the same
//! generator.

use std::io::{self, BufWriter, Write};

use gomoku_cli::core::board::Pos;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The stones of generated game `i`, black first.
pub fn game(i: u64) -> Vec<Pos> {
    let mut rng = ChaCha8Rng::seed_from_u64(i);
    let len = rng.gen_range(40..=80);
    let mut taken = [[false; 15]; 15];
    let mut stones = vec![Pos::new(7, 7)];
    taken[7][7] = true;
    while stones.len() < len {
        let from = stones[rng.gen_range(0..stones.len())];
        let x = i32::from(from.x) + rng.gen_range(-2..=2);
        let y = i32::from(from.y) + rng.gen_range(-2..=2);
        if (0..15).contains(&x) && (0..15).contains(&y) && !taken[y as usize][x as usize] {
            taken[y as usize][x as usize] = true;
            stones.push(Pos::new(x as u8, y as u8));
        }
    }
    stones
}

/// Game `i` in pos notation (`h8i9j10`).
pub fn line(i: u64) -> String {
    game(i)
        .iter()
        .map(|p| format!("{}{}", (b'a' + p.x) as char, p.y + 1))
        .collect()
}

#[allow(dead_code)]
fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let count = args
        .iter()
        .position(|a| a == "generate")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse::<u64>().ok());
    let Some(count) = count else {
        eprintln!("renlib_games: nothing to measure; `-- generate N` writes N games (bench/renlib_merge.sh)");
        return Ok(());
    };
    let mut out = BufWriter::new(io::stdout().lock());
    for i in 0..count {
        writeln!(out, "{}", line(i))?;
    }
    out.flush()
}
