//! Adjudication end to end (`-draw`, `-resign`): games of the bundled engines ended by their own
//! evaluations, as the journal, the PGN and `export` show them; engines that report nothing are
//! never adjudicated.

use crate::common;

use std::path::Path;

use common::*;
use serde_json::Value;

/// The PGN file `name` in `dir`.
fn pgn(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// `export` of the run's journal rebuilds its PGN byte for byte.
fn assert_export_rebuilds_pgn(dir: &Path) {
    Match::command(&["export", "j.jsonl", "--pgn", "e.pgn"])
        .run_in(dir)
        .assert_success();
    assert_eq!(pgn(dir, "e.pgn"), pgn(dir, "g.pgn"));
}

/// The evaluation text of move `i` of a journal game (the mover's view), if it reported one.
fn eval_of(game: &Value, i: usize) -> Option<&str> {
    game["search"].get(i)?["ev"].as_str()
}

#[test]
fn evaluations_within_the_bound_end_the_game_as_an_adjudicated_draw() {
    let dir = tempfile::tempdir().unwrap();
    // Both report EVAL 25 before every move: from move 6 on, two moves of each within ±25.
    let run = Match::new()
        .engines("pbrain-faulty --search-good", &["a", "b"])
        .each(&["tc=0/5"])
        .games(2)
        .repeat()
        .args(&["-draw", "movenumber=6", "movecount=2", "score=25"])
        .journal("j.jsonl")
        .pgn("g.pgn")
        .run_in(dir.path());
    run.assert_success();
    run.assert_stdout_has("adjudicated draw: both evals within 25 of zero for 2 moves each");
    let games = run.journal("j.jsonl");
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g["termination"], "adjudicated_draw", "{g}");
        assert_eq!(g["result"], "1/2-1/2");
        assert_eq!(g["times_ms"].as_array().unwrap().len(), 6, "ends at move 6");
        let end = &g["end"];
        assert_eq!(
            (&end["moves"], &end["score"], &end["black"], &end["white"]),
            (&2.into(), &25.into(), &"+25".into(), &"+25".into())
        );
    }
    let text = pgn(dir.path(), "g.pgn");
    assert_eq!(text.matches("[Termination \"adjudication\"]").count(), 2);
    assert_eq!(text.matches("[Result \"1/2-1/2\"]").count(), 2);
    assert_export_rebuilds_pgn(dir.path());
}

#[test]
fn a_sinking_evaluation_ends_the_game_as_the_losers_adjudicated_resignation() {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engine("pbrain-scout --depth 3", &["name=deep"])
        .engine("pbrain-scout --depth 2", &["name=shallow"])
        .each(&["tc=0/5"])
        .games(2)
        .repeat()
        .args(&["-resign", "movecount=2", "score=300", "mate=4"])
        .journal("j.jsonl")
        .pgn("g.pgn")
        .run_in(dir.path());
    run.assert_success();
    let games = run.journal("j.jsonl");
    let resigned: Vec<&Value> = games
        .iter()
        .filter(|g| g["termination"] == "adjudicated_resign")
        .collect();
    assert!(!resigned.is_empty(), "{games:?}");
    for g in resigned {
        let end = &g["end"];
        let moves = g["times_ms"].as_array().unwrap().len();
        let black_moves_first = g["opening"].as_str().unwrap().is_empty();
        // The loser's own last two moves (before the winner's answer, if it moved last) at or
        // below −300, or proven losses.
        let by_black = end["by"] == "black";
        assert_eq!(g["result"], if by_black { "0-1" } else { "1-0" }, "{g}");
        let last_by_black = (moves % 2 == 1) == black_moves_first;
        let last_by_loser = last_by_black == by_black;
        let last = if last_by_loser { moves - 1 } else { moves - 2 };
        for i in [last, last - 2] {
            let ev = eval_of(g, i).unwrap();
            let sunk = ev.starts_with("-M") || ev.parse::<i32>().is_ok_and(|v| v <= -300);
            assert!(sunk, "move {i} of {g}: {ev}");
        }
        assert_eq!(end["eval"].as_str(), eval_of(g, last));
        assert_eq!((&end["moves"], &end["score"]), (&2.into(), &300.into()));
        let reason = g["reason"].as_str().unwrap();
        assert!(
            reason.contains("resigns by adjudication: eval at or below -300"),
            "{reason}"
        );
    }
    assert!(pgn(dir.path(), "g.pgn").contains("[Termination \"adjudication\"]"));
    assert_export_rebuilds_pgn(dir.path());
}

#[test]
fn engines_that_report_nothing_are_never_adjudicated_and_their_records_do_not_change() {
    let play = |dir: &Path, adjudicate: &[&str]| {
        Match::new()
            .engines("pbrain-random --seed 5", &["r1", "r2"])
            .each(&["tc=0/5"])
            .games(4)
            .repeat()
            .args(adjudicate)
            .journal("j.jsonl")
            .pgn("g.pgn")
            .run_in(dir)
            .assert_success()
            .journal("j.jsonl")
    };
    let (plain, judged) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let before = play(plain.path(), &[]);
    // Rules any report would trip at once: a draw on any score, a loss at or below 0, a mate.
    let rules = [
        "-draw",
        "1",
        "1000000",
        "-resign",
        "movecount=1",
        "score=0",
        "mate=1",
    ];
    let after = play(judged.path(), &rules);
    assert_eq!(after.len(), 4);
    for g in &after {
        let t = g["termination"].as_str().unwrap();
        assert!(!t.starts_with("adjudicated"), "{g}");
    }
    let strip = |gs: &[Value]| -> Vec<(Value, Value, Value)> {
        let f = |g: &Value| (g["moves"].clone(), g["result"].clone(), g["end"].clone());
        gs.iter().map(f).collect()
    };
    assert_eq!(strip(&before), strip(&after));
    assert_eq!(pgn(plain.path(), "g.pgn"), pgn(judged.path(), "g.pgn"));
}

#[test]
fn the_journal_keeps_the_rules_and_resume_refuses_other_ones() {
    let dir = tempfile::tempdir().unwrap();
    // A finished run resumes to nothing more; with other rules it is refused.
    let play = |resign: &[&str], resume: bool| {
        let m = Match::new()
            .engine("pbrain-scout --depth 2", &["name=a"])
            .engine("pbrain-scout --depth 1", &["name=b"])
            .each(&["tc=0/5"])
            .games(2)
            .journal("j.jsonl")
            .args(resign);
        match resume {
            true => m.resume(),
            false => m,
        }
        .run_in(dir.path())
    };
    play(&["-resign", "3", "400"], false).assert_success();
    let header = std::fs::read_to_string(dir.path().join("j.jsonl")).unwrap();
    assert!(
        header.contains(r#""adjudication":"-resign movecount=3 score=400""#),
        "{header}"
    );
    play(&["-resign", "movecount=3", "score=500"], true)
        .assert_exit(1)
        .assert_stderr_has("\"-resign movecount=3 score=400\" in the journal");
    play(&["-resign", "movecount=3", "score=400"], true).assert_success();
    assert_eq!(journal_games(&dir.path().join("j.jsonl")).len(), 2);
}
