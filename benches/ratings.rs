//! The rating list at the size issue 35 asks for: 1,000 engines and 1,000,000 games (seeded, drawn
//! from the model with a first-mover advantage and draws), fitted end to end as `ratings` fits them
//! (condensing, MM, exactdist error bars), and the likelihood of superiority on top (O(n³)).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use gomoku_cli::stats::ratings::{fit, FitSettings, Outcome, RatedGame};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const PLAYERS: usize = 1000;
const GAMES: usize = 1_000_000;

/// Games between random pairs, random colours, results drawn from BayesElo's model (advantage 40,
/// draw Elo 100) for ratings spread over about ±600.
fn games() -> Vec<RatedGame> {
    let mut rng = ChaCha8Rng::seed_from_u64(35);
    let strength: Vec<f64> = (0..PLAYERS).map(|_| rng.gen_range(-600.0..600.0)).collect();
    (0..GAMES)
        .map(|_| {
            let first = rng.gen_range(0..PLAYERS as u32);
            let mut second = rng.gen_range(0..PLAYERS as u32 - 1);
            if second >= first {
                second += 1;
            }
            let delta = strength[first as usize] - strength[second as usize];
            RatedGame {
                first,
                second,
                outcome: Outcome::at_quantile(rng.gen(), delta, 40.0, 100.0),
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let games = games();
    let settings = FitSettings::default();
    c.bench_function("ratings fit 1000 engines 1M games", |b| {
        b.iter(|| fit(PLAYERS, black_box(&games), &settings).unwrap())
    });
    let with_los = FitSettings {
        los: true,
        ..settings
    };
    c.bench_function("ratings fit 1000 engines 1M games with LOS", |b| {
        b.iter(|| fit(PLAYERS, black_box(&games), &with_los).unwrap())
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(30));
    targets = bench
}
criterion_main!(benches);
