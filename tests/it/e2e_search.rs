//! What engines say about their search, end to end: the runner asks for it, keeps the last
//! complete report per move in the journal, and no malformed, cut, late or flooding search
//! output costs a game or lands in a record.

use crate::common;

use common::*;
use serde_json::Value;

/// The games of a 1-game run of `pbrain-faulty FLAGS` (black: it moves first on an empty board)
/// against pbrain-random, and the faulty engine's moves' search entries.
fn faulty_game(flags: &str, extra: &[&str]) -> (Value, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    Match::new()
        .engine(&format!("pbrain-faulty --seed 3 {flags}"), &["name=faulty"])
        .engine("pbrain-random --seed 5", &["name=random"])
        .each(&["tc=0/5"])
        .args(extra)
        .games(1)
        .journal("j.jsonl")
        .msg("m.txt")
        .run_in(dir.path())
        .assert_success();
    let games = journal_games(&dir.path().join("j.jsonl"));
    assert_eq!(games.len(), 1);
    let game = games[0].clone();
    assert_eq!(game["black"], "faulty");
    let termination = game["termination"].as_str().unwrap();
    assert!(
        ["five", "full_board", "draw_after"].contains(&termination),
        "search output cost the game: {termination}: {}",
        game["reason"]
    );
    let search = game["search"].as_array().cloned().unwrap_or_default();
    let faulty: Vec<Value> = search.iter().step_by(2).cloned().collect();
    if !search.is_empty() {
        let moves = game["times_ms"].as_array().unwrap().len();
        assert_eq!(search.len(), moves, "one entry per move");
        assert!(
            search.iter().skip(1).step_by(2).all(Value::is_null),
            "pbrain-random says nothing"
        );
    }
    (game, faulty)
}

/// The move played at index `i` of the game, in pos notation (2 or 3 characters).
fn move_at(game: &Value, i: usize) -> String {
    let moves = game["moves"].as_str().unwrap();
    let mut starts = moves
        .char_indices()
        .filter(|(_, c)| c.is_ascii_alphabetic())
        .map(|(k, _)| k);
    let start = starts.nth(i).unwrap();
    let end = moves[start + 1..]
        .find(|c: char| c.is_ascii_alphabetic())
        .map_or(moves.len(), |k| start + 1 + k);
    moves[start..end].to_string()
}

#[test]
fn a_well_formed_report_is_kept_with_its_move() {
    let (game, faulty) = faulty_game("--search-good", &[]);
    assert!(!faulty.is_empty());
    for (k, entry) in faulty.iter().enumerate() {
        assert_eq!(entry["ev"], "+25", "move {k}: {entry}");
        assert_eq!(entry["d"], 1);
        // The PV starts with the move played.
        assert_eq!(entry["pv"].as_str().unwrap(), move_at(&game, 2 * k));
    }
}

#[test]
fn without_detail_nothing_is_asked_and_nothing_kept() {
    let _cpu = cpu_share_lock();
    // pbrain-scout prints reports only when asked with INFO show_detail.
    let dir = tempfile::tempdir().unwrap();
    Match::new()
        .engines("pbrain-scout", &["a", "b"])
        .each(&["depth=2", "tc=0/5", "detail=off"])
        .games(1)
        .journal("j.jsonl")
        .run_in(dir.path())
        .assert_success();
    let game = &journal_games(&dir.path().join("j.jsonl"))[0];
    assert!(game.get("search").is_none(), "{game}");
}

#[test]
fn garbage_values_are_dropped_and_a_pv_is_capped() {
    let (_, faulty) = faulty_game("--search-garbage-at 1 --search-good", &[]);
    for entry in faulty.iter().filter(|e| !e.is_null()) {
        if let Some(ev) = entry.get("ev") {
            assert_eq!(ev, "+25", "only the good block's eval is read: {entry}");
        }
        let pv = entry["pv"].as_str().unwrap_or("");
        let points = pv.chars().filter(char::is_ascii_alphabetic).count();
        assert!(points <= 24, "a PV of {points} moves kept");
    }
}

#[test]
fn a_cut_block_is_no_report_and_a_late_one_belongs_to_no_move() {
    let (_, faulty) = faulty_game("--search-cut-at 2", &[]);
    assert!(faulty.iter().all(Value::is_null) || faulty.is_empty());

    // A block printed after move 2 (with the engine's whole think time) is read as move 3 is
    // asked: it is not move 3's report, which is the good block printed before move 3.
    let (_, faulty) = faulty_game("--search-good --search-after-move-at 2", &[]);
    assert!(faulty.len() >= 3);
    for entry in &faulty {
        assert_eq!(entry["ev"], "+25", "{entry}");
    }
}

#[test]
fn a_flood_of_search_output_costs_nothing_but_time() {
    let _cpu = cpu_share_lock();
    let (game, faulty) = faulty_game("--search-flood 20000", &[]);
    assert!(!faulty.is_empty());
    // Reports are not messages: the journal line stays small.
    assert!(game.get("messages").is_none(), "{}", game["messages"]);
    assert!(
        game.to_string().len() < 20_000,
        "{} bytes",
        game.to_string().len()
    );
}

#[test]
fn scout_reports_every_move_in_both_forms() {
    let _cpu = cpu_share_lock();
    for form in ["", " --messages"] {
        let dir = tempfile::tempdir().unwrap();
        Match::new()
            .engine(&format!("pbrain-scout{form}"), &["name=a"])
            .engine(&format!("pbrain-scout{form}"), &["name=b"])
            .each(&["depth=2", "tc=0/5"])
            .openings_file(repo_root().join("openings/freestyle15.txt"), &["type=pos"])
            .games(2)
            .journal("j.jsonl")
            .run_in(dir.path())
            .assert_success();
        for game in journal_games(&dir.path().join("j.jsonl")) {
            let search = game["search"].as_array().expect("a search field");
            let moves = game["times_ms"].as_array().unwrap().len();
            assert_eq!(search.len(), moves);
            for (i, entry) in search.iter().enumerate() {
                assert!(entry["ev"].is_string(), "form{form:?} move {i}: {entry}");
                // Depth 2, or 1 where a five or a block leaves one move.
                let depth = entry["d"].as_u64().unwrap();
                assert!((1..=2).contains(&depth), "form{form:?} move {i}: {entry}");
                let pv = entry["pv"].as_str().unwrap();
                assert!(
                    pv.starts_with(&move_at(&game, i)),
                    "{pv} for {}",
                    move_at(&game, i)
                );
            }
        }
    }
}
