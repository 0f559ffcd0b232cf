//! The report model's tests, and the journal header and game lines other modules' tests build
//! reports from.

use super::*;
use crate::formats::journal::{EngineSettings, RunSettings, SprtSettings};
use crate::game::record::fixtures::sample_record;
use crate::game::termination::OTHER_TERMINATION;

pub fn header(engines: &[&str], repeat: bool, sprt: bool, rule: u8) -> JournalHeader {
    JournalHeader {
        kind: "header".into(),
        format: 1,
        program: "gomoku-cli 0.0.0".into(),
        fingerprint: "f".into(),
        started: "2026-11-21T11:59:00+00:00".into(),
        command_line: vec!["-engine".into(), "cmd=./a".into()],
        settings: RunSettings {
            engines: engines
                .iter()
                .map(|n| EngineSettings {
                    name: n.to_string(),
                    cmd: format!("./{n}"),
                    tc: "10/1".into(),
                    depth: None,
                    nodes: None,
                    max_memory: 1 << 20,
                    threads: None,
                    options: vec![],
                    package: None,
                })
                .collect(),
            rule,
            size: 15,
            tournament: "round_robin".into(),
            seeds: None,
            games: 2,
            rounds: 1,
            repeat,
            noswap: false,
            reverse: false,
            ponder: false,
            total_games: 8,
            draw_after: 0,
            send_by_board: false,
            openings: None,
            seed: 1,
            shard: None,
            swap: None,
            colours: None,
            adjudication: None,
            tune: None,
            groups: None,
            sprt: sprt.then(|| SprtSettings {
                elo0: 0.0,
                elo1: 50.0,
                alpha: 0.05,
                beta: 0.05,
                model: "normalized".into(),
            }),
        },
    }
}

/// Game `n` of pair 0 (engines 0 and 1): black = engine `black`, won by `winner` with
/// `termination`.
pub fn entry(n: u64, black: usize, result: &str, termination: &str) -> JournalEntry {
    let mut r = sample_record();
    r.game = crate::schedule::GameId(n);
    r.pair_game = n - 1;
    r.black = crate::schedule::EngineId(black);
    r.white = crate::schedule::EngineId(1 - black);
    let mut e = JournalEntry::from_record(&r, "f");
    e.result = result.parse().unwrap();
    e.termination = termination.into();
    e
}

fn build(h: &JournalHeader, entries: &[JournalEntry]) -> Report {
    let mut b = ReportBuilder::new(std::slice::from_ref(h)).unwrap();
    for e in entries {
        b.add(e).unwrap();
    }
    b.finish(RunState::Ended)
}

#[test]
fn series_have_a_point_per_game_and_repeats_are_dropped() {
    let h = header(&["a", "b"], true, true, 0);
    let mut games: Vec<JournalEntry> = (1..=6)
        .map(|n| {
            entry(
                n,
                (n as usize + 1) % 2,
                if n % 3 == 0 { "0-1" } else { "1-0" },
                "five",
            )
        })
        .collect();
    games.push(games[2].clone());
    let r = build(&h, &games);
    assert_eq!(r.games.len(), 6);
    let llr = r.llr.as_ref().unwrap();
    assert_eq!(llr.points.len(), 6);
    assert_eq!(
        llr.points.iter().map(|p| p.games).collect::<Vec<_>>(),
        (1..=6).collect::<Vec<_>>()
    );
    assert!(llr.lower < 0.0 && llr.upper > 0.0);
    assert_eq!(r.elo.len(), 1);
    assert_eq!(r.elo[0].points.len(), 6);
    // The LLR after the last game is the one the results block prints.
    let block = r.results_block.as_ref().unwrap();
    assert!(
        block.contains(&format!("LLR: {:.2}", llr.points[5].value)),
        "{block}"
    );
    let d = r.distribution.as_ref().unwrap();
    assert_eq!(d.counts.iter().sum::<u64>(), 3, "three complete pairs");
    assert_eq!(r.status, "stopped early: 6 of 8 games");
}

#[test]
fn the_same_game_with_two_results_is_refused() {
    let h = header(&["a", "b"], false, false, 0);
    let mut b = ReportBuilder::new(std::slice::from_ref(&h)).unwrap();
    b.add(&entry(1, 0, "1-0", "five")).unwrap();
    let err = b.add(&entry(1, 0, "0-1", "five")).unwrap_err();
    assert_eq!(
        err,
        ReportError::Conflict(Conflict {
            game: 1,
            first: GameResult::BlackWins,
            second: GameResult::WhiteWins,
        })
    );
    let mut bad = entry(2, 0, "1-0", "five");
    bad.moves = "h9zz".into();
    let err = b.add(&bad).unwrap_err().to_string();
    assert!(err.starts_with("game 2: moves \"h9zz\""), "{err}");
    let mut bad = entry(3, 0, "1-0", "five");
    bad.white_engine = 7;
    let err = b.add(&bad).unwrap_err().to_string();
    assert!(
        err.contains("white_engine \"7\": the run has 2 engines"),
        "{err}"
    );
    assert_eq!(ReportBuilder::new(&[]).err(), Some(ReportError::NoHeader));
}

#[test]
fn totals_that_would_pass_u64_are_refused_naming_the_game_not_wrapped() {
    let h = header(&["a", "b"], false, false, 0);
    let mut b = ReportBuilder::new(std::slice::from_ref(&h)).unwrap();
    // Engine 0 (black) thinks 3, 23, 43 and 63 ms a game: 129 ms.
    let mut first = entry(1, 0, "1-0", "five");
    first.times_ms[0] = u64::MAX - 200;
    b.add(&first).unwrap();
    // Its total is u64::MAX - 71: another 132 ms pass u64.
    let err = b.add(&entry(2, 0, "1-0", "five")).unwrap_err().to_string();
    assert!(err.starts_with("game 2: times_ms"), "{err}");
    assert!(err.contains("passes 18446744073709551615"), "{err}");
    let use_of = |cpu_ms: u64| {
        let mut u = crate::game::record::GameUse::default();
        u.white.cpu_ms = cpu_ms;
        Some(u)
    };
    let mut cpu = entry(3, 0, "1-0", "five");
    cpu.times_ms = vec![0; cpu.times_ms.len()];
    cpu.usage = use_of(u64::MAX);
    b.add(&cpu).unwrap();
    let mut more = cpu.clone();
    more.game = 4;
    more.usage = use_of(1);
    let err = b.add(&more).unwrap_err().to_string();
    assert!(err.starts_with("game 4: usage"), "{err}");
    // The refused games were not counted, in part or whole.
    let r = b.finish(RunState::Ended);
    assert_eq!(r.games.len(), 2);
    assert_eq!(r.times[1].cpu_ms, u64::MAX);
    assert_eq!(r.times[0].total_ms, u64::MAX - 71);
}

#[test]
fn times_are_counted_by_the_engines_own_move_number() {
    let h = header(&["a", "b"], false, false, 0);
    // sample_record: opening of 2 stones, black = engine 0 here, 7 moves of 3, 13, .. 63 ms:
    // black (engine 0) plays moves 0, 2, 4, 6; white (engine 1) plays 1, 3, 5.
    let r = build(
        &h,
        &[entry(1, 0, "1-0", "five"), entry(2, 1, "1-0", "five")],
    );
    let a = &r.times[0];
    assert_eq!(a.moves, 7);
    assert_eq!(a.by_move[0].samples, 2);
    // Engine 0's first moves: 3 ms (as black) and 13 ms (as white).
    assert_eq!((a.by_move[0].p10, a.by_move[0].p90), (3, 13));
    assert_eq!(a.by_move.len(), 4);
    assert_eq!(a.max_ms, 63);
    assert_eq!(r.times[1].moves, 7);
}

#[test]
fn terminations_are_counted_for_the_winner_the_loser_and_both_drawers() {
    let h = header(&["a", "b"], false, false, 0);
    let r = build(
        &h,
        &[
            entry(1, 0, "0-1", "time_forfeit"),
            entry(2, 0, "1/2-1/2", "full_board"),
            entry(3, 1, "1-0", "something_new"),
        ],
    );
    let t = &r.terminations;
    assert_eq!(t[0].lost.get("time_forfeit"), Some(&1));
    assert_eq!(t[1].won.get("time_forfeit"), Some(&1));
    assert_eq!(t[0].drawn.get("full_board"), Some(&1));
    assert_eq!(t[1].drawn.get("full_board"), Some(&1));
    assert_eq!(t[1].won.get(OTHER_TERMINATION), Some(&1));
    assert_eq!(t[0].lost.get(OTHER_TERMINATION), Some(&1));
}

#[test]
fn forbidden_points_are_listed_for_positions_with_black_to_move() {
    let size = BoardSize::new(15).unwrap();
    let p = |s| crate::core::board::parse_pos_sequence(s, size).unwrap();
    // Black g8 h8 (a two across) and i9 i10 (a two down), white far away: i8 makes two open
    // threes, a double three, once black is to move with 8 stones on the board.
    let opening = p("g8a1h8a3");
    let moves = p("i9a5i10a7o15");
    let f = forbidden_by_position(size, &opening, &moves);
    assert!(
        f.iter().all(|(k, _)| k % 2 == 0),
        "black to move only: {f:?}"
    );
    let at8 = &f.iter().find(|(k, _)| *k == 8).expect("position 8").1;
    assert!(at8.contains(&p("i8")[0]), "{at8:?}");
    let mut b = Board::new(size);
    for (i, s) in opening.iter().chain(&moves).take(8).enumerate() {
        b.put(*s, Color::of_ply(i));
    }
    let expected: Vec<Pos> = forbidden_points(&b, Rule::Renju)
        .into_iter()
        .map(|(q, _)| q)
        .collect();
    assert_eq!(at8, &expected);
}

#[test]
fn a_report_of_three_engines_has_standings_and_a_crosstable_but_no_llr() {
    let h = header(&["a", "b", "c"], false, true, 0);
    let mut e = entry(1, 0, "1-0", "five");
    e.pair = 1;
    e.white_engine = 2;
    let r = build(&h, &[e]);
    assert!(r.llr.is_none() && r.results_block.is_none() && r.distribution.is_none());
    assert_eq!(r.standings.len(), 3);
    assert_eq!(r.crosstable.len(), 3);
    assert_eq!(r.crosstable[0][1], Some((1.0, 1)));
    let ratings = r.ratings.expect("three engines have a rating list");
    assert_eq!(ratings.rows.len(), 3);
    assert_eq!(ratings.rows[0].name, "a", "a won its one game");
    assert_eq!(ratings.los.len(), 3);
}

/// A run in shards is rated as one: every shard's games in one list.
#[test]
fn the_rating_list_of_shards_rates_every_shards_games_together() {
    let shard = |index| {
        let mut h = header(&["a", "b", "c"], false, false, 0);
        h.settings.shard = Some(crate::schedule::shard::Shard { index, count: 2 });
        h
    };
    let game = |n: u64, pair: usize, black: usize, white: usize, result: &str| {
        let mut e = entry(n, 0, result, "five");
        (e.pair, e.black_engine, e.white_engine) = (pair, black, white);
        e
    };
    let mut b = ReportBuilder::new(&[shard(1), shard(2)]).unwrap();
    // Shard 1: a beats b and c; shard 2: b beats c, c draws a.
    for e in [
        game(1, 0, 0, 1, "1-0"),
        game(3, 1, 0, 2, "1-0"),
        game(2, 2, 1, 2, "1-0"),
        game(4, 1, 2, 0, "1/2-1/2"),
    ] {
        b.add(&e).unwrap();
    }
    let ratings = b.finish(RunState::Ended).ratings.unwrap();
    let games: Vec<(&str, u32)> = ratings
        .rows
        .iter()
        .map(|r| (r.name.as_str(), r.games))
        .collect();
    assert_eq!(games, vec![("a", 3), ("b", 2), ("c", 3)]);
}

#[test]
fn snapshot_of_a_small_report() {
    let h = header(&["scout", "random"], true, true, 4);
    let mut games = vec![
        entry(1, 0, "1-0", "five"),
        entry(2, 1, "1-0", "five"),
        entry(3, 0, "0-1", "forbidden"),
    ];
    games[2].forbidden_move = Some("j10".into());
    games[2].reason = "black played a forbidden double three at j10".into();
    let r = build(&h, &games);
    insta::assert_json_snapshot!("report_model_small", r);
}

#[test]
fn reports_are_counted_per_engine_with_their_own_times() {
    use crate::game::record::fixtures::{sample_record, with_reports};
    let h = header(&["scout", "random"], false, false, 0);
    let mut r = with_reports(sample_record());
    r.black = crate::schedule::EngineId(0);
    r.white = crate::schedule::EngineId(1);
    let reported = JournalEntry::from_record(&r, "f");
    let report = build(&h, &[reported, entry(2, 0, "1-0", "five")]);
    // Game 1: scout (black) played moves 0, 2, 4, 6 and reported on 2, 4, 6 (own time
    // 510 ms each); random reported on 1, 3, 5 without a time. Game 2 has no reports.
    let scout = &report.times[0];
    let random = &report.times[1];
    assert_eq!((scout.moves, scout.reported), (8, 3));
    assert_eq!((random.moves, random.reported), (6, 3));
    let own: Vec<(usize, u64)> = (scout.own_by_move.iter())
        .map(|m| (m.move_number, m.median))
        .collect();
    assert_eq!(own, [(2, 510), (3, 510), (4, 510)]);
    assert!(random.own_by_move.is_empty());
    assert_eq!(report.games[0].search.len(), 7);
    assert!(report.games[0].search[0].is_none());
    assert!(report.games[1].search.is_empty());
}
