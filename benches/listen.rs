//! The cost of hearing an engine: lines of search output per second through the listener, in
//! the shapes engines use (Rapfi's detail blocks, its one-line "ucilike" messages, its "normal"
//! `|` lines, Embryo's spaced colour-prefixed lines), with a 20-move PV. The aim is
//! under 1 µs a line.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use gomoku_cli::core::board::BoardSize;
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
                    l.info(black_box(line), || 600);
                }
            }
            black_box(l.finish())
        })
    });
    let pv: String = "H8I9J10K11L12M13N14G7F6E5D4C3B2A1H9H10H11H12H13H14".into();
    let spaced = "H8 I9 J10 K11 L12 M13 N14 G7 F6 E5 D4 C3 B2 A1 H9 H10 H11 H12 H13 H14";
    let shapes: [(&str, Vec<String>); 3] = [
        (
            "message_lines",
            (1..=20)
                .map(|d| {
                    format!(
                        "depth {d}-{} ev -135 n 2345K n/ms 4599 tm 510 pv {pv}",
                        d + 8
                    )
                })
                .collect(),
        ),
        (
            "normal_lines",
            (1..=20)
                .map(|d| format!("Depth {d}-{} | Eval -135 | Time 510ms | {spaced}", d + 8))
                .collect(),
        ),
        (
            "embryo_lines",
            (1..=20)
                .map(|d| {
                    let colours: Vec<String> = spaced
                        .split(' ')
                        .enumerate()
                        .map(|(i, m)| format!("{}{}", ["X", "O"][i % 2], m.to_lowercase()))
                        .collect();
                    format!(
                        "depth {d}-{} ev -135 n 2345k n/ms 4599 tm 510 pv {}",
                        d + 8,
                        colours.join(" ")
                    )
                })
                .collect(),
        ),
    ];
    for (name, lines) in &shapes {
        group.throughput(Throughput::Elements(lines.len() as u64));
        group.bench_function(*name, |b| {
            let mut l = Listener::new(size);
            b.iter(|| {
                l.begin();
                for m in lines {
                    l.message(black_box(m), || 600);
                }
                black_box(l.finish())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, listen);
criterion_main!(benches);
