//! The cost of a shard's periodic read of the other shards' journals (`runner::sync`): with 256
//! shards' journals in the run directory, one poll when nothing is new (the steady state), and
//! when each other shard appended one game.

use std::hint::black_box;
use std::io::Write;

use criterion::{criterion_group, criterion_main, Criterion};
use gomoku_cli::runner::sync::ShardSync;
use gomoku_cli::schedule::shard::Shard;

const SHARDS: u64 = 256;
const LINES: u64 = 1000;

/// One game line as the runner writes it (a real 30-move game's size).
fn line(game: u64) -> String {
    format!(
        concat!(
            r#"{{"game":{},"round":1,"pair":0,"pair_game":{},"black":"A","white":"B","black_engine":0,"#,
            r#""white_engine":1,"black_cmd":"./a","white_cmd":"./b","size":15,"rule":0,"opening":"h8i9","#,
            r#""opening_line":1,"transform":"identity","moves":"h9i10h10i11h11i12h12j8k9l10m11n12o13a1a2a3a4a5b1b2b3b4b5c1c2c3c4c5","#,
            r#""times_ms":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30],"#,
            r#""forbidden_move":null,"result":"1-0","termination":"five","reason":"black makes five","#,
            r#""started":"2026-11-23T00:00:00+00:00","ended":"2026-11-23T00:00:01+00:00","fingerprint":"f"}}"#,
            "\n"
        ),
        game,
        game - 1
    )
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for k in 1..=SHARDS {
        let shard = Shard {
            index: k,
            count: SHARDS,
        };
        let mut f = std::fs::File::create(shard.journal_in(dir.path())).unwrap();
        for i in 0..LINES {
            f.write_all(line(i * SHARDS + k).as_bytes()).unwrap();
        }
        files.push(f);
    }
    let me = Shard {
        index: 1,
        count: SHARDS,
    };
    let mut sync = ShardSync::new(dir.path(), me, vec![(0, 1)]);
    let first = sync.poll().len();
    assert_eq!(first as u64, (SHARDS - 1) * LINES);
    let mut g = c.benchmark_group("shard sync, 256 journals");
    g.bench_function("poll, nothing new", |b| {
        b.iter(|| black_box(sync.poll().len()))
    });
    let mut next = LINES * SHARDS + 1;
    g.bench_function("poll, one new game per shard", |b| {
        b.iter_batched(
            || {
                for f in files.iter_mut().skip(1) {
                    f.write_all(line(next).as_bytes()).unwrap();
                    next += 1;
                }
            },
            |()| black_box(sync.poll().len()),
            criterion::BatchSize::PerIteration,
        )
    });
    g.bench_function("stop marker check", |b| {
        b.iter(|| black_box(sync.stopped()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
