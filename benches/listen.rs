//! The cost of hearing an engine: lines of search output per second through the listener, in
//! both forms engines use (Rapfi's detail blocks and its one-line messages), with a 20-move PV.
//! The aim is under 1 µs a line.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use gomoku_cli::board::BoardSize;
use gomoku_cli::engine::listen::Listener;

/// One iteration's detail block as Rapfi prints it, PV of 20 moves.
fn detail_block(depth: u32) -> Vec<String> {
    let pv: Vec<String> = (0..20)
        .map(|i| format!("{},{}", i % 15, (i * 7) % 15))
        .collect();
    vec![
        "PV 0".into(),
        "NUMPV 1".into(),
        format!("DEPTH {depth}"),
        format!("SELDEPTH {}", depth + 8),
        "NODES 123456".into(),
        "TOTALNODES 2345678".into(),
        "TOTALTIME 510".into(),
        "SPEED 4599350".into(),
        "EVAL -135".into(),
        "WINRATE 0.3386".into(),
        format!("BESTLINE {}", pv.join(" ")),
        "PV DONE".into(),
    ]
}

fn listen(c: &mut Criterion) {
    let size = BoardSize::new(15).unwrap();
    let blocks: Vec<Vec<String>> = (1..=20).map(detail_block).collect();
    let lines = blocks.iter().map(Vec::len).sum::<usize>() as u64;
    let mut group = c.benchmark_group("listen");
    group.throughput(Throughput::Elements(lines));
    group.bench_function("detail_lines", |b| {
        let mut l = Listener::new(size);
        b.iter(|| {
            l.begin();
            for block in &blocks {
                for line in block {
                    l.info(black_box(line), 600);
                }
            }
            black_box(l.finish())
        })
    });
    let messages: Vec<String> = (1..=20)
        .map(|d| {
            format!("depth {d}-{} ev -135 n 2345K n/ms 4599 tm 510 pv H8I9J10K11L12M13N14G7F6E5D4C3B2A1H9H10H11H12H13H14", d + 8)
        })
        .collect();
    group.throughput(Throughput::Elements(messages.len() as u64));
    group.bench_function("message_lines", |b| {
        let mut l = Listener::new(size);
        b.iter(|| {
            l.begin();
            for m in &messages {
                l.message(black_box(m), 600);
            }
            black_box(l.finish())
        })
    });
    group.finish();
}

criterion_group!(benches, listen);
criterion_main!(benches);
