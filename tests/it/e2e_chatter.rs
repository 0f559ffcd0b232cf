//! What an engine prints besides its moves, end to end: `ERROR`/`UNKNOWN`/`DEBUG` lines before a
//! move are no answer (counted in the journal and the report; an engine that answers only
//! `ERROR` loses on time, the line quoted), a flood of `MESSAGE` lines is kept up to a cap per
//! move and counted past it, and control characters in engine texts are escaped in every record
//! and on the console.

use crate::common;

use std::path::Path;

use common::*;
use serde_json::Value;

/// The colour the engine named `name` played in a journal game.
fn colour_of(g: &Value, name: &str) -> &'static str {
    if g["black"] == name {
        "black"
    } else {
        "white"
    }
}

#[test]
fn error_lines_before_a_move_are_counted_noise_not_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engine("pbrain-faulty --error-noise", &["name=noisy"])
        .engine("pbrain-random", &["name=random"])
        .each(&["tc=0/5"])
        .boardsize(9)
        .games(2)
        .journal("j.jsonl")
        .report("report.html")
        .run_in(dir.path());
    run.assert_success();
    let games = run.journal("j.jsonl");
    assert_eq!(games.len(), 2);
    for g in &games {
        let term = g["termination"].as_str().unwrap();
        assert!(["five", "full_board"].contains(&term), "{g}");
        let moves = g["moves"].as_str().unwrap().len() / 2;
        let lines = &g["usage"][colour_of(g, "noisy")]["lines"];
        // Two ERROR lines, an UNKNOWN and a DEBUG before each of its moves.
        let own = lines["debug"].as_u64().unwrap();
        assert!(own >= 1 && own as usize <= moves, "{g}");
        assert_eq!(lines["error"].as_u64(), Some(2 * own), "{g}");
        assert_eq!(lines["unknown"].as_u64(), Some(own), "{g}");
        assert!(
            g["usage"][colour_of(g, "random")].get("lines").is_none(),
            "a quiet engine has no counts: {g}"
        );
    }
    let report = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(
        report.contains("ERROR lines"),
        "the report shows the counts"
    );
}

#[test]
fn an_engine_that_answers_only_error_loses_on_time_with_the_line_quoted() {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engine("pbrain-faulty --fault move2:error", &["name=refuser"])
        .engine("pbrain-random", &["name=random"])
        .each(&["tc=0/0.3", "tolerance=0.3"])
        .games(2)
        .journal("j.jsonl")
        .run_in(dir.path());
    run.assert_success();
    let games = run.journal("j.jsonl");
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g["termination"], "time_forfeit", "{g}");
        let reason = g["reason"].as_str().unwrap();
        assert!(
            reason.ends_with(", having answered only \"ERROR pbrain-faulty: a fault at Move(2)\")"),
            "{reason}"
        );
        assert_eq!(
            g["end"]["said"], "ERROR pbrain-faulty: a fault at Move(2)",
            "{g}"
        );
        let loser = if g["result"] == "1-0" {
            "white"
        } else {
            "black"
        };
        assert_eq!(g[loser], "refuser", "{g}");
    }
}

#[test]
fn a_message_flood_is_kept_up_to_the_cap_a_move_and_the_rest_counted() {
    // Far over the cap of 256 lines or 64 KiB a move.
    let flood = 20_000;
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engine(
            &format!("pbrain-faulty --message-flood {flood}"),
            &["name=flood"],
        )
        .engine("pbrain-random", &["name=random"])
        .each(&["tc=0/10"])
        .boardsize(9)
        .games(2)
        .journal("j.jsonl")
        .msg("messages.txt")
        .run_in(dir.path());
    run.assert_success();
    let games = run.journal("j.jsonl");
    let mut moves_of_flood = 0;
    for g in &games {
        let c = colour_of(g, "flood");
        let lines = &g["usage"][c]["lines"];
        let kept = g["messages"].as_array().map_or(0, Vec::len);
        let dropped = lines["dropped"].as_u64().unwrap();
        let own = (kept as u64 + dropped) / flood;
        assert_eq!(
            kept as u64 + dropped,
            own * flood,
            "every line counted: {g}"
        );
        assert_eq!(kept as u64, own * 256, "256 kept a move");
        assert!(lines["dropped_bytes"].as_u64().unwrap() > dropped * 20);
        moves_of_flood += own;
    }
    // Each kept line is some 40 bytes: the journal holds the kept ones, not the flood.
    let journal = std::fs::metadata(dir.path().join("j.jsonl")).unwrap().len();
    assert!(
        journal < moves_of_flood * 256 * 60 + 100_000,
        "{journal} bytes for {moves_of_flood} flooded moves"
    );
    let messages = std::fs::read_to_string(dir.path().join("messages.txt")).unwrap();
    assert!(
        messages.contains("more lines") && messages.contains("dropped over the cap"),
        "the messages file says lines were dropped"
    );
    assert!((messages.len() as u64) < moves_of_flood * 256 * 60 + 10_000);
}

/// The files of a finished run in `dir`, by name (the `.psq` directory's files included).
fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(outputs(&path));
        } else {
            files.push((path.display().to_string(), std::fs::read(&path).unwrap()));
        }
    }
    files
}

#[test]
fn control_characters_in_engine_texts_are_escaped_in_every_record_and_on_the_console() {
    let dir = tempfile::tempdir().unwrap();
    // No name given: the records take the engine's ABOUT name, NUL, BEL, ESC and TAB included.
    let run = Match::new()
        .engine("pbrain-faulty --control-chars", &[])
        .engine("pbrain-random", &["name=random"])
        .each(&["tc=0/5"])
        .boardsize(9)
        .games(2)
        .journal("j.jsonl")
        .pgn("games.pgn")
        .sgf("games.sgf")
        .msg("messages.txt")
        .psq("psq")
        .report("report.html")
        .run_in(dir.path());
    run.assert_success();
    let escaped = "faulty\\u{0}nul\\u{7}bel\\u{1b}[31mesc\\ttab end";
    let files = outputs(dir.path());
    assert!(
        files.len() >= 6,
        "{:?}",
        files.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for (name, bytes) in files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .chain([
            ("stdout", run.stdout.as_bytes()),
            ("stderr", run.stderr.as_bytes()),
        ])
    {
        for bad in [0u8, 7, 0x1b, b'\t'] {
            // The report's own markup and scripts may hold tabs; the engine's text may not.
            if bad == b'\t' && name.ends_with(".html") {
                continue;
            }
            assert!(
                !bytes.contains(&bad),
                "{name} holds the control character {bad:#x}"
            );
        }
    }
    let text = |name: &str| {
        let (_, b) = files.iter().find(|(n, _)| n.ends_with(name)).unwrap();
        String::from_utf8_lossy(b).into_owned()
    };
    for record in ["messages.txt", "report.html", ".psq"] {
        assert!(
            text(record).contains(escaped),
            "{record} names the engine with its control characters escaped"
        );
    }
    // PGN tags and SGF properties escape `\` themselves: the escapes' backslashes are doubled.
    for record in ["games.pgn", "games.sgf"] {
        assert!(
            text(record).contains(&escaped.replace('\\', "\\\\")),
            "{record} names the engine with its control characters escaped"
        );
    }
    assert!(run.stdout.contains(escaped), "{}", run.stdout);
    // The journal keeps the name as it reached the records (JSON escapes the backslashes).
    let games = run.journal("j.jsonl");
    let named = |g: &Value| g["black"] == escaped || g["white"] == escaped;
    assert!(games.iter().all(named), "{games:?}");
}
