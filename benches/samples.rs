//! Sample writer throughput: samples per second for every format (csv, bin, bin_lz4, binpack,
//! binpack_lz4), and uncompressed bytes per second through the LZ4 frame encoder, writing whole
//! games to `io::sink()`.

use std::hint::black_box;
use std::io;
use std::time::Duration;

use chrono::{TimeZone, Utc};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gomoku_cli::core::board::{BoardSize, Color, Pos, Symmetry};
use gomoku_cli::core::rules::Rule;
use gomoku_cli::formats::samples::{
    encode_batch, game_rng, samples_of, EvalColumn, Sample, SampleFormat, SampleWriter,
};
use gomoku_cli::game::record::{GameOutcome, GameRecord, PlayedMove};
use gomoku_cli::game::termination::Termination;
use gomoku_cli::schedule::{EngineId, GameId};
use rand::seq::SliceRandom;

/// A 15×15 game of `moves` moves after a 3-stone opening, on distinct random points (the
/// positions only need to be realistic in length and spread, not in play).
fn game(moves: usize, seed: u64) -> GameRecord {
    let size = BoardSize::new(15).unwrap();
    let mut points: Vec<Pos> = size.all().collect();
    points.shuffle(&mut game_rng(seed, 0));
    GameRecord {
        game: GameId(seed),
        round: 0,
        pair: 0,
        pair_game: 0,
        black: EngineId(0),
        white: EngineId(1),
        black_name: "a".into(),
        black_cmd: String::new(),
        white_cmd: String::new(),
        white_name: "b".into(),
        size,
        rule: Rule::Renju,
        opening: points[..3].to_vec(),
        opening_line: None,
        transform: Symmetry::Identity,
        outcome: GameOutcome {
            termination: Termination::Five {
                winner: Color::White,
                line: vec![],
            },
            moves: points[3..3 + moves]
                .iter()
                .map(|&pos| PlayedMove {
                    pos,
                    time: Duration::ZERO,
                    search: None,
                })
                .collect(),
            messages: vec![],
        },
        started: Utc.timestamp_opt(0, 0).unwrap(),
        ended: Utc.timestamp_opt(0, 0).unwrap(),
        usage: None,
        swap: None,
        tune: None,
    }
}

/// Ten games of 20 to 110 moves: 650 entries averaging about 40 stones each.
fn batches() -> Vec<Vec<Sample>> {
    (0..10)
        .map(|i| {
            let g = game(20 + 10 * i as usize, i);
            samples_of(&g, 1.0, &mut game_rng(7, i))
        })
        .collect()
}

fn write_all(format: SampleFormat, batches: &[Vec<Sample>]) {
    let mut w = SampleWriter::new(format, io::sink(), "sink");
    for b in batches {
        w.write_game(b).unwrap();
    }
    black_box(w.finish().unwrap());
}

fn bench(c: &mut Criterion) {
    let batches = batches();
    let entries: usize = batches.iter().map(Vec::len).sum();
    let mut bin = Vec::new();
    for b in &batches {
        encode_batch(SampleFormat::Bin, EvalColumn::Without, b, &mut bin).unwrap();
    }

    let mut g = c.benchmark_group("sample_entries");
    g.throughput(Throughput::Elements(entries as u64));
    for format in SampleFormat::ALL {
        g.bench_function(format.name(), |b| b.iter(|| write_all(format, &batches)));
    }
    g.finish();

    // The same work measured in bytes of bin stream fed to the compressor.
    let mut g = c.benchmark_group("sample_bin_bytes");
    g.throughput(Throughput::Bytes(bin.len() as u64));
    for format in [SampleFormat::Bin, SampleFormat::BinLz4] {
        g.bench_function(format.name(), |b| b.iter(|| write_all(format, &batches)));
    }
    g.finish();

    // Selection alone (one rng draw and one position copy per move).
    let games: Vec<GameRecord> = (0..10).map(|i| game(20 + 10 * i as usize, i)).collect();
    let mut g = c.benchmark_group("sample_select");
    g.throughput(Throughput::Elements(entries as u64));
    g.bench_function("samples_of", |b| {
        b.iter(|| {
            for (i, r) in games.iter().enumerate() {
                black_box(samples_of(r, 1.0, &mut game_rng(7, i as u64)));
            }
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
