//! pbrain-scout's search reports over stdin/stdout: nothing until `INFO show_detail 2`, then
//! complete detail blocks in the Yixin-Board order (or one-line messages with `--messages`) for
//! every completed depth, the last one naming the move played, and `YXNBEST n` with n distinct
//! principal variations sorted by score.

use std::time::Duration;

use pbrain_kit::harness::EngineProcess;
use pbrain_kit::parse_xy;

const BIN: &str = env!("CARGO_BIN_EXE_pbrain-scout");
/// Generous upper bound: moves take milliseconds at the depths used here.
const T: Duration = Duration::from_secs(20);

/// The detail block's keys, in order.
const KEYS: [&str; 12] = [
    "PV",
    "NUMPV",
    "DEPTH",
    "SELDEPTH",
    "NODES",
    "TOTALNODES",
    "TOTALTIME",
    "SPEED",
    "EVAL",
    "WINRATE",
    "BESTLINE",
    "PV",
];

/// The stones of a middle game (white has an open three to answer), as BOARD lines.
const STONES: [&str; 5] = ["7,7,2", "8,8,1", "8,7,2", "6,6,1", "9,7,2"];

/// START 15, the INFO lines, then the position through `cmd` (`BOARD` or `YXBOARD`).
fn position(e: &mut EngineProcess, infos: &[&str], cmd: &str) {
    e.send("START 15").unwrap();
    assert_eq!(e.recv_answer(T).as_deref(), Some("OK"));
    for i in infos {
        e.send(i).unwrap();
    }
    e.send(cmd).unwrap();
    for l in STONES {
        e.send(l).unwrap();
    }
    e.send("DONE").unwrap();
}

/// The lines printed before the move, and the move.
fn until_move(e: &mut EngineProcess) -> (Vec<String>, (i64, i64)) {
    let mut lines = Vec::new();
    loop {
        let line = e.recv_raw(T).expect("a line before the timeout");
        if let Some(mv) = parse_xy(&line) {
            return (lines, mv);
        }
        lines.push(line);
    }
}

/// A value: an integer, or a mate as ±(30000 − plies) as trainers store it.
fn value(text: &str) -> i64 {
    match (text.strip_prefix("+M"), text.strip_prefix("-M")) {
        (Some(n), _) => 30_000 - n.parse::<i64>().unwrap(),
        (_, Some(n)) => -(30_000 - n.parse::<i64>().unwrap()),
        _ => {
            let v: i64 = text.parse().unwrap();
            assert!((-6000..=6000).contains(&v), "{text}");
            v
        }
    }
}

/// One parsed detail block.
#[derive(Debug)]
struct Block {
    pv: usize,
    numpv: usize,
    depth: u32,
    eval: i64,
    line: Vec<(i64, i64)>,
}

/// Split `lines` into complete detail blocks, checking each line's key, order and number.
fn blocks(lines: &[String]) -> Vec<Block> {
    assert_eq!(lines.len() % KEYS.len(), 0, "{lines:#?}");
    lines
        .chunks(KEYS.len())
        .map(|chunk| {
            let mut vals = Vec::new();
            for (line, key) in chunk.iter().zip(KEYS) {
                let rest = line
                    .strip_prefix("INFO ")
                    .and_then(|r| r.strip_prefix(key))
                    .and_then(|r| r.strip_prefix(' '))
                    .unwrap_or_else(|| panic!("{line:?} is not INFO {key}"));
                vals.push(rest.to_string());
            }
            assert_eq!(vals[11], "DONE");
            for i in [1, 2, 3, 4, 5, 6, 7] {
                vals[i].parse::<u64>().unwrap();
            }
            let w: f64 = vals[9].parse().unwrap();
            assert!((0.0..=1.0).contains(&w));
            Block {
                pv: vals[0].parse().unwrap(),
                numpv: vals[1].parse().unwrap(),
                depth: vals[2].parse().unwrap(),
                eval: value(&vals[8]),
                line: vals[10].split(' ').map(|m| parse_xy(m).unwrap()).collect(),
            }
        })
        .collect()
}

#[test]
fn says_nothing_unless_asked() {
    let mut e = EngineProcess::spawn(BIN, &["--depth", "3"]).unwrap();
    position(&mut e, &[], "BOARD");
    assert_eq!(until_move(&mut e).0, Vec::<String>::new());
    position(&mut e, &["INFO show_detail 1"], "BOARD");
    assert_eq!(until_move(&mut e).0, Vec::<String>::new());
    assert!(e.finish());
}

#[test]
fn detail_blocks_for_every_depth_the_last_for_the_move_played() {
    let mut e = EngineProcess::spawn(BIN, &[]).unwrap();
    position(&mut e, &["INFO SHOW_DETAIL 2", "INFO max_depth 4"], "BOARD");
    let (lines, mv) = until_move(&mut e);
    let bs = blocks(&lines);
    let depths: Vec<u32> = bs.iter().map(|b| b.depth).collect();
    assert_eq!(depths, [1, 2, 3, 4]);
    assert!(bs.iter().all(|b| b.pv == 0 && b.numpv == 1));
    assert_eq!(bs.last().unwrap().line[0], mv);
    // The same after a TURN, and with show_detail 3.
    e.send("INFO show_detail 3").unwrap();
    e.send("TURN 0,0").unwrap();
    let (lines, mv) = until_move(&mut e);
    assert_eq!(blocks(&lines).last().unwrap().line[0], mv);
    assert!(e.finish());
}

#[test]
fn stops_on_time_with_the_last_report_for_the_move_played() {
    let mut e = EngineProcess::spawn(BIN, &[]).unwrap();
    let infos = [
        "INFO show_detail 2",
        "INFO max_depth 30",
        "INFO timeout_turn 300",
    ];
    position(&mut e, &infos, "BOARD");
    let (lines, mv) = until_move(&mut e);
    let bs = blocks(&lines);
    assert!(bs.last().unwrap().depth < 30);
    assert_eq!(bs.last().unwrap().line[0], mv);
    assert!(e.finish());
}

#[test]
fn messages_follow_the_one_line_grammar() {
    let mut e = EngineProcess::spawn(BIN, &["--messages"]).unwrap();
    position(&mut e, &["INFO show_detail 2", "INFO max_depth 4"], "BOARD");
    let (lines, mv) = until_move(&mut e);
    assert_eq!(lines.len(), 4, "{lines:#?}");
    for (d, line) in lines.iter().enumerate() {
        let w: Vec<&str> = line.split(' ').collect();
        assert_eq!(w.len(), 13, "{line}");
        let names = [w[0], w[1], w[3], w[5], w[7], w[9], w[11]];
        assert_eq!(names, ["MESSAGE", "depth", "ev", "n", "n/ms", "tm", "pv"]);
        let (depth, sel) = w[2].split_once('-').unwrap();
        assert_eq!(depth.parse::<usize>().unwrap(), d + 1);
        sel.parse::<u32>().unwrap();
        value(w[4]);
        w[6].trim_end_matches(['K', 'M']).parse::<u64>().unwrap();
        w[8].parse::<u64>().unwrap();
        w[10].parse::<u64>().unwrap();
        // Moves: a capital letter then a row from 1, concatenated.
        let pv = w[12];
        assert!(pv.starts_with(|c: char| c.is_ascii_uppercase()), "{pv}");
        assert!(pv[1..].contains(|c: char| c.is_ascii_digit()), "{pv}");
    }
    // The last line's first move is the move played: letter, then row number.
    let pv = lines[3].rsplit(' ').next().unwrap();
    let col = i64::from(pv.as_bytes()[0] - b'A');
    let row: String = pv[1..].chars().take_while(char::is_ascii_digit).collect();
    assert_eq!((col, row.parse::<i64>().unwrap() - 1), mv);
    assert!(e.finish());
}

#[test]
fn yxnbest_gives_distinct_pvs_sorted_by_score() {
    let mut e = EngineProcess::spawn(BIN, &[]).unwrap();
    position(
        &mut e,
        &["INFO show_detail 2", "INFO max_depth 4"],
        "YXBOARD",
    );
    // YXBOARD sets the position without an answer.
    e.send("YXNBEST 3").unwrap();
    let (lines, mv) = until_move(&mut e);
    let bs = blocks(&lines);
    assert_eq!(bs.len(), 4 * 3);
    for (d, group) in bs.chunks(3).enumerate() {
        let pvs: Vec<usize> = group.iter().map(|b| b.pv).collect();
        assert_eq!(pvs, [0, 1, 2]);
        assert!(group
            .iter()
            .all(|b| b.numpv == 3 && b.depth == d as u32 + 1));
        let firsts: Vec<(i64, i64)> = group.iter().map(|b| b.line[0]).collect();
        assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
        assert!(
            group.windows(2).all(|w| w[0].eval >= w[1].eval),
            "{group:?}"
        );
    }
    assert_eq!(bs[9].line[0], mv);
    // The position stays: TURN after it is a move of the same game, one PV again.
    e.send("TURN 0,0").unwrap();
    let (lines, mv) = until_move(&mut e);
    let bs = blocks(&lines);
    assert!(bs.iter().all(|b| b.numpv == 1));
    assert_eq!(bs.last().unwrap().line[0], mv);
    assert!(e.finish());
}
