//! The candidate stream, the verdicts, the stop rule and the progress lines.

use crate::commands::openings::generate::*;
use crate::core::board::{Board, Color, Symmetry};
use crate::core::rules::{forbidden_points, standing_winner};
use crate::core::search::Outlook;
use crate::formats::openings::OpeningBook;
use proptest::prelude::*;

fn settings(rule: Rule, stones: (u8, u8), area: u8, seed: u64) -> CandidateSettings {
    CandidateSettings {
        size: BoardSize::new(15).unwrap(),
        rule,
        stones: StoneRange {
            min: stones.0,
            max: stones.1,
        },
        area,
        seed,
    }
}

fn evaluated(number: u64, eval: Option<Eval>, verdict: Verdict) -> Evaluated {
    Evaluated {
        number,
        eval,
        verdict,
    }
}

fn kept(number: u64) -> Evaluated {
    evaluated(number, Some(Eval::Score(0)), Verdict::Kept)
}

fn out(number: u64) -> Evaluated {
    evaluated(number, Some(Eval::Score(900)), Verdict::Out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the seed and settings, a candidate handed out is a legal opening: within the
    /// area, its stone count in range, no five, no renju foul when replayed, no winning move for
    /// the side to move, and it loads as an opening line.
    #[test]
    fn candidates_are_legal(seed in any::<u64>(), renju in any::<bool>(), min in 1u8..8, extra in 0u8..6, area in 2u8..5) {
        let rule = if renju { Rule::Renju } else { Rule::Freestyle };
        let s = settings(rule, (min, min + extra), area, seed);
        prop_assume!(s.check().is_ok());
        let c = s.size.center();
        for i in 0..20 {
            let Ok(stones) = s.candidate(i) else { continue };
            prop_assert!((min as usize..=(min + extra) as usize).contains(&stones.len()));
            for p in &stones {
                prop_assert!((p.x as i64 - c.x as i64).abs() <= area as i64);
                prop_assert!((p.y as i64 - c.y as i64).abs() <= area as i64);
            }
            let board = Board::from_moves(s.size, &stones).expect("distinct points");
            prop_assert!(standing_winner(&board, rule).is_none());
            let mover = board.side_to_move();
            let forbidden: Vec<Pos> = forbidden_points(&board, rule).into_iter().map(|(p, _)| p).collect();
            for p in s.size.all().filter(|&p| board.is_empty_at(p)) {
                let mut b = board.clone();
                b.put(p, mover);
                let legal = !(mover == Color::Black && forbidden.contains(&p));
                prop_assert!(!(legal && crate::core::rules::winning_line(&b, p, mover, rule).is_some()),
                    "{mover} wins at {p} after {stones:?}");
            }
            let line = crate::formats::openings::to_offset_line(&stones, s.size);
            let book = OpeningBook::parse_str(&line, "cand", OpeningFormat::Offset, s.size, rule);
            prop_assert!(book.is_ok(), "{line}: {book:?}");
        }
    }

    /// The same number gives the same candidate (shards and a resumed run agree), and a
    /// position's symmetric images are written alike.
    #[test]
    fn candidates_are_recomputable_and_symmetry_free(seed in any::<u64>(), i in 0u64..1000) {
        let s = settings(Rule::Freestyle, (2, 6), 3, seed);
        prop_assert_eq!(s.candidate(i), s.candidate(i));
        if let Ok(stones) = s.candidate(i) {
            for sym in Symmetry::ALL {
                let img = sym.apply_all(&stones, s.size);
                prop_assert_eq!(position_key(&img, s.size), position_key(&stones, s.size));
            }
        }
    }
}

use crate::formats::openings::OpeningFormat;

#[test]
fn refusals_are_named() {
    let size = BoardSize::new(15).unwrap();
    let pos = |t: &str| crate::core::board::parse_pos_sequence(t, size).unwrap();
    // Black's open four: black (to move after 8 stones) wins at once.
    let four = pos("h8a1i8a3j8a5k8a7");
    assert_eq!(
        judge(&four, size, Rule::Freestyle),
        Err(Refusal::ImmediateWin)
    );
    // Black's five.
    let five = pos("h8a1i8a3j8a5k8a7l8");
    assert_eq!(judge(&five, size, Rule::Freestyle), Err(Refusal::Five));
    // A double three for black under renju: j8 completes h8-i8-j8 and j6-j7-j8... played as
    // black's last stone.
    let foul = pos("h8a1i8a3j6a5j7a7j8");
    assert_eq!(judge(&foul, size, Rule::Renju), Err(Refusal::Foul));
    assert_eq!(judge(&pos("h8i9"), size, Rule::Freestyle), Ok(()));
}

#[test]
fn settings_are_checked() {
    assert_eq!(StoneRange::parse("3-5"), Ok(StoneRange { min: 3, max: 5 }));
    assert_eq!(StoneRange::parse("4"), Ok(StoneRange { min: 4, max: 4 }));
    for bad in ["0", "5-3", "x", "3-", "-3", "1-300"] {
        assert!(StoneRange::parse(bad).is_err(), "{bad}");
    }
    // Radius 1: 9 points, too few for 10 stones.
    let err = settings(Rule::Freestyle, (2, 10), 1, 1)
        .check()
        .unwrap_err();
    assert!(err.to_string().contains("9 points"), "{err}");
}

#[test]
fn verdicts_keep_the_window_and_never_a_mate() {
    assert_eq!(Verdict::of(Some(Eval::Score(-100)), 100), Verdict::Kept);
    assert_eq!(Verdict::of(Some(Eval::Score(101)), 100), Verdict::Out);
    let mate = Eval::Mate {
        outlook: Outlook::Loss,
        plies: Some(3),
    };
    assert_eq!(Verdict::of(Some(mate), 1_000_000), Verdict::Out);
    assert_eq!(Verdict::of(None, 100), Verdict::Error);
}

#[test]
fn progress_lines_round_trip_and_a_torn_line_is_cut() {
    let lines = [kept(3), out(4), evaluated(9, None, Verdict::Error)];
    let mut text = String::from("HEADER\n");
    for l in &lines {
        text.push_str(&l.line());
    }
    let whole = text.len();
    text.push_str("12\t+3");
    let p = Progress::parse(&text, "HEADER").unwrap();
    assert_eq!(p.done, lines);
    assert_eq!(p.whole_len, whole);
    assert!(matches!(
        Progress::parse(&text, "OTHER"),
        Err(ProgressError::NotProgress { .. })
    ));
    let bad = "HEADER\n3\t+5\tmaybe\n";
    assert!(matches!(
        Progress::parse(bad, "HEADER"),
        Err(ProgressError::BadLine { line: 2, .. })
    ));
}

/// Hands out candidates, answering with `verdict_of`, `concurrency` at a time and in the order
/// given by `pick` (which in-flight job is answered next): the chosen set.
fn drive(
    resume: &[Evaluated],
    concurrency: usize,
    pick: impl Fn(usize) -> usize,
    verdict_of: impl Fn(u64) -> Verdict,
) -> (Vec<u64>, Vec<Evaluated>) {
    let s = settings(Rule::Freestyle, (2, 4), 2, 7);
    let mut g = Generation::new(s, None, 5, resume);
    let mut flying: Vec<u64> = Vec::new();
    let mut log = Vec::new();
    loop {
        while flying.len() < concurrency {
            match g.next_job() {
                Some((n, _)) => flying.push(n),
                None => break,
            }
        }
        if flying.is_empty() {
            break;
        }
        let n = flying.remove(pick(flying.len()) % flying.len());
        let e = evaluated(n, None, verdict_of(n));
        g.record(&e);
        log.push(e);
    }
    (g.chosen(), log)
}

#[test]
fn the_set_does_not_depend_on_concurrency_order_or_resume() {
    let verdict = |n: u64| {
        if n % 3 == 0 {
            Verdict::Kept
        } else {
            Verdict::Out
        }
    };
    let (alone, log) = drive(&[], 1, |_| 0, verdict);
    assert_eq!(alone.len(), 5);
    let (wide, _) = drive(&[], 4, |len| len - 1, verdict);
    assert_eq!(wide, alone);
    // A kill after some answers, with holes (answers of later numbers first): the rest again.
    let (_, wide_log) = drive(&[], 3, |len| len - 1, verdict);
    for cut in [0, 1, 4, wide_log.len() / 2] {
        let (resumed, _) = drive(&wide_log[..cut], 2, |_| 0, verdict);
        assert_eq!(resumed, alone, "resumed after {cut} answers");
    }
    assert!(log.iter().all(|e| e.verdict == verdict(e.number)));
}

#[test]
fn duplicates_and_shards() {
    // One stone within radius 1: 9 points, 3 positions under symmetry (centre, edge, corner).
    let s = settings(Rule::Freestyle, (1, 1), 1, 3);
    let mut g = Generation::new(s, None, 10, &[]);
    let mut handed = Vec::new();
    while let Some((n, stones)) = g.next_job() {
        handed.push(stones);
        g.record(&kept(n));
    }
    assert_eq!(handed.len(), 3, "{handed:?}");
    assert!(g.exhausted);
    assert_eq!(g.tally.duplicates, g.tally.tried - 3);
    // Shards draw disjoint numbers that together are all of them, and share the count.
    let of = |k, n| Some(Shard { index: k, count: n });
    let mut g1 = Generation::new(settings(Rule::Freestyle, (3, 3), 3, 1), of(2, 3), 1, &[]);
    let firsts: Vec<u64> = (0..3).filter_map(|_| g1.next_job().map(|j| j.0)).collect();
    assert!(firsts.iter().all(|n| n % 3 == 1), "{firsts:?}");
    assert_eq!((1..=3).map(|k| shard_target(10, of(k, 3))).sum::<u64>(), 10);
    let _ = out(0);
}

#[test]
fn a_progress_file_of_other_settings_names_the_options_that_differ() {
    let header = |area: u8, depth: u32| {
        serde_json::json!({
            "opengen": 1, "balance": 100, "shard": null,
            "candidates": {"size": 15, "rule": 0, "stones": {"min": 3, "max": 5}, "area": area, "seed": 1},
            "engine": {"cmd": "e", "depth": depth},
        })
        .to_string()
    };
    let text = format!("{}\n", header(3, 4));
    let e = Progress::parse(&text, &header(2, 6))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "made by other settings:\n  -area: 3 in the progress file, 2 now\n  -engine depth: 4 in \
         the progress file, 6 now\nremove it, use another -o, or give the settings it was made with"
    );
}

#[test]
fn an_area_too_small_names_the_area_and_the_least_that_fits() {
    // -area 0 with the default -stones 3-5: -area is at fault, and -area 1 holds 5 stones.
    let e = settings(Rule::Freestyle, (3, 5), 0, 1).check().unwrap_err();
    assert_eq!(
        e.to_string(),
        "-area 0: the 1x1 square around the centre of the 15x15 board has 1 points, too few for \
         a candidate of 5 stones: -area 1 or more holds them"
    );
    // No area holds 230 stones on 15x15 (225 points): then -stones is at fault.
    let e = settings(Rule::Freestyle, (3, 230), 7, 1)
        .check()
        .unwrap_err();
    assert!(e.to_string().starts_with("-stones 3-230: "), "{e}");
    assert!(settings(Rule::Freestyle, (3, 5), 1, 1).check().is_ok());
}
