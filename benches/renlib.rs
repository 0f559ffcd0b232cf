//! RenLib libraries: reading and writing the largest sample (`Allrenjuopenings.lib`, 97 KB,
//! 39 884 nodes) and merging generated games (`benches/renlib_games.rs`) into a new library,
//! without and with the `--stats` lines. The million-game merge of the README is
//! `bench/renlib_merge.sh`.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use gomoku_cli::formats::renlib::stats::refresh_stats;
use gomoku_cli::formats::renlib::{read, to_bytes, CodePage, LibGame, Library};

#[path = "renlib_games.rs"]
#[allow(dead_code)]
mod generated;

const GAMES: u64 = 10_000;

fn sample_bench(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/testdata/renlib/Allrenjuopenings.lib");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!(
            "skipping the sample benchmarks: {} not found",
            path.display()
        );
        return;
    };
    let lib = read(&bytes).unwrap();
    let mut g = c.benchmark_group("renlib_sample");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("read", |b| {
        b.iter(|| black_box(read(black_box(&bytes)).unwrap()))
    });
    g.bench_function("write", |b| b.iter(|| black_box(to_bytes(black_box(&lib)))));
    g.finish();
}

fn merge_bench(c: &mut Criterion) {
    let games: Vec<LibGame> = (0..GAMES)
        .map(|i| {
            LibGame::from_pos_line(&generated::line(i))
                .unwrap()
                .unwrap()
        })
        .collect();
    let merge_all = || {
        let mut lib = Library::new();
        for g in &games {
            lib.merge_game(g, CodePage::default());
        }
        lib
    };
    let mut g = c.benchmark_group("renlib_merge");
    g.throughput(Throughput::Elements(GAMES));
    g.bench_function("games", |b| b.iter(|| black_box(merge_all())));
    g.bench_function("games_with_stats", |b| {
        b.iter(|| {
            let mut lib = merge_all();
            refresh_stats(&mut lib);
            black_box(lib)
        })
    });
    let full = merge_all();
    // Every game again: the orientation search and the key lookup, nothing added.
    g.bench_function("games_already_in", |b| {
        b.iter_batched(
            || full.clone(),
            |mut lib| {
                for game in &games {
                    lib.merge_game(game, CodePage::default());
                }
                lib
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = sample_bench, merge_bench
}
criterion_main!(benches);
