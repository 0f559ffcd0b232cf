//! Referee speed: renju forbidden-point checks per second and the time to list every forbidden
//! point of a position, on deterministic random mid-game 15x15 positions.
//!
//! Two position sets: "uniform" (30-60 random legal renju moves anywhere) and "clustered" (each move
//! within two cells of an existing stone, closer to real games and richer in threes and fours).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gomoku_cli::core::board::{Board, BoardSize, Pos};
use gomoku_cli::core::rules::{forbidden_kind, forbidden_points, winning_line, Rule};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const POSITIONS: u64 = 64;

/// A random legal renju game of 30-60 stones that nobody has won yet.
fn position(seed: u64, clustered: bool) -> Board {
    let size = BoardSize::STANDARD;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let target = rng.gen_range(30..=60);
    let mut b = Board::new(size);
    b.put(size.center(), gomoku_cli::core::board::Color::Black);
    let mut tries = 0;
    while b.stone_count() < target && tries < 100_000 {
        tries += 1;
        let p = Pos::new(rng.gen_range(0..15), rng.gen_range(0..15));
        if !b.is_empty_at(p) {
            continue;
        }
        if clustered {
            let near = b.history().iter().any(|q| {
                (q.x as i32 - p.x as i32).abs() <= 2 && (q.y as i32 - p.y as i32).abs() <= 2
            });
            if !near {
                continue;
            }
        }
        let c = b.side_to_move();
        if c == gomoku_cli::core::board::Color::Black && forbidden_kind(&b, p).is_some() {
            continue;
        }
        // Keep the game going: skip winning moves.
        if winning_line(&b, p, c, Rule::Renju).is_some() {
            continue;
        }
        b.put(p, c);
    }
    b
}

fn positions(clustered: bool) -> Vec<Board> {
    (0..POSITIONS).map(|s| position(s, clustered)).collect()
}

fn bench(c: &mut Criterion) {
    for (name, clustered) in [("uniform", false), ("clustered", true)] {
        let boards = positions(clustered);
        let points: Vec<(usize, Pos)> = boards
            .iter()
            .enumerate()
            .flat_map(|(i, b)| {
                b.size()
                    .all()
                    .filter(|&p| b.is_empty_at(p))
                    .map(move |p| (i, p))
            })
            .collect();
        let forbidden: usize = boards
            .iter()
            .map(|b| forbidden_points(b, Rule::Renju).len())
            .sum();
        eprintln!(
            "{name}: {} positions, {} empty points, {} forbidden",
            boards.len(),
            points.len(),
            forbidden
        );

        let mut g = c.benchmark_group("forbidden_kind");
        g.throughput(Throughput::Elements(points.len() as u64));
        g.bench_function(BenchmarkId::new("point_checks", name), |bn| {
            bn.iter(|| {
                let mut n = 0usize;
                for &(i, p) in &points {
                    n += forbidden_kind(black_box(&boards[i]), black_box(p)).is_some() as usize;
                }
                n
            })
        });
        g.finish();

        let mut g = c.benchmark_group("forbidden_points");
        g.throughput(Throughput::Elements(boards.len() as u64));
        g.bench_function(BenchmarkId::new("whole_position", name), |bn| {
            bn.iter(|| {
                boards
                    .iter()
                    .map(|b| forbidden_points(black_box(b), Rule::Renju).len())
                    .sum::<usize>()
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
