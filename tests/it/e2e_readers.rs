//! End-to-end tests of what every command that reads journals checks (issue 33): a header whose
//! settings were edited no longer gives its fingerprint and is refused (read with a warning under
//! `--force`); a repeated game line is counted once; two lines for one game are refused, naming
//! the file and line of both.

use crate::common;

use std::path::Path;

use common::*;

/// A freestyle match of `games` games of pbrain-random against itself with openings, journal
/// `j.jsonl`.
fn freestyle(games: &str) -> Match {
    Match::new()
        .engines("pbrain-random", &["A", "B"])
        .rule(0)
        .boardsize("15")
        .games(games)
        .repeat()
        .openings_file(repo_root().join("openings/freestyle15.txt"), &["type=pos"])
        .journal("j.jsonl")
}

/// Four games played in `dir`: the journal's text.
fn play(dir: &Path) -> String {
    freestyle("4").run_in(dir).assert_success();
    std::fs::read_to_string(dir.join("j.jsonl")).unwrap()
}

/// Every command that reads a journal, on `file`, each with `extra` arguments.
fn readers(file: &str, extra: &[&str]) -> Vec<Vec<String>> {
    let each: [&[&str]; 6] = [
        &["merge", file],
        &["sprt", file],
        &["export", file, "--pgn", "x.pgn"],
        &["report", file, "-o", "x.html"],
        &["openings", "audit", file],
        &["lib", "merge", "-o", "x.lib", file],
    ];
    each.iter()
        .map(|a| a.iter().chain(extra).map(|s| s.to_string()).collect())
        .collect()
}

/// Run `args` in `dir` with every output of an earlier command gone.
fn read_with(dir: &Path, args: &[String]) -> Run {
    for f in ["x.pgn", "x.html", "x.lib"] {
        let _ = std::fs::remove_file(dir.join(f));
    }
    run_in(dir, &strs(args))
}

#[test]
fn a_repeated_game_line_is_counted_once_by_every_reader() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let text = play(dir);
    let lines: Vec<&str> = text.lines().collect();
    let games = lines.len() - 1;
    assert_eq!(games, 4);
    std::fs::write(dir.join("dup.jsonl"), format!("{text}{}\n", lines[2])).unwrap();
    let note = format!("dup.jsonl:{}: game ", lines.len() + 1);
    for args in readers("dup.jsonl", &[]) {
        let run = read_with(dir, &args);
        run.assert_success().assert_stderr_has(&note);
        assert!(
            run.stderr.contains("repeats dup.jsonl:3: counted once"),
            "{}",
            run.stderr
        );
    }
    run_in(dir, &["merge", "dup.jsonl"]).assert_stdout_has(&format!("Merged {games} games"));
    run_in(dir, &["lib", "merge", "-o", "d.lib", "dup.jsonl"])
        .assert_stdout_has(&format!("journal, {games} games: {games} added"));
}

#[test]
fn a_conflicting_game_line_is_refused_naming_both_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let text = play(dir);
    let lines: Vec<&str> = text.lines().collect();
    let flipped = lines[2]
        .replace("\"result\":\"1-0\"", "\"result\":\"R\"")
        .replace("\"result\":\"0-1\"", "\"result\":\"1-0\"")
        .replace("\"result\":\"1/2-1/2\"", "\"result\":\"1-0\"")
        .replace("\"result\":\"R\"", "\"result\":\"0-1\"");
    assert_ne!(flipped, lines[2]);
    std::fs::write(dir.join("c.jsonl"), format!("{text}{flipped}\n")).unwrap();
    let both = format!(
        "c.jsonl:{}: game {} is also at c.jsonl:3 with other content",
        lines.len() + 1,
        serde_json::from_str::<serde_json::Value>(lines[2]).unwrap()["game"]
    );
    for args in readers("c.jsonl", &[]) {
        let run = read_with(dir, &args);
        assert_ne!(run.code(), Some(0), "{args:?}: {}", run.stderr);
        run.assert_stderr_has(&both);
    }
}

#[test]
fn a_header_edited_by_hand_is_refused_or_read_with_force() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let text = play(dir);
    let (header, games) = text.split_once('\n').unwrap();
    assert!(header.contains("\"rule\":0,"), "{header}");
    let edited = header.replacen("\"rule\":0,", "\"rule\":4,", 1);
    std::fs::write(dir.join("e.jsonl"), format!("{edited}\n{games}")).unwrap();
    for args in readers("e.jsonl", &[]) {
        let run = read_with(dir, &args);
        assert_ne!(run.code(), Some(0), "{args:?}: {}", run.stderr);
        run.assert_stderr_has("e.jsonl: the header's settings give the fingerprint")
            .assert_stderr_has("--force");
    }
    for args in readers("e.jsonl", &["--force"]) {
        read_with(dir, &args)
            .assert_success()
            .assert_stderr_has("e.jsonl: the header's settings give the fingerprint")
            .assert_stderr_has("read anyway (--force)");
    }
}

#[test]
fn resume_counts_a_repeated_line_once_and_refuses_an_edited_header() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let run = || freestyle("6");
    run().run_in(dir).assert_success();
    let text = std::fs::read_to_string(dir.join("j.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The header, 4 games and the second again: 4 played, 2 to play.
    let cut = format!("{}\n{}\n", lines[..5].join("\n"), lines[2]);
    std::fs::write(dir.join("j.jsonl"), &cut).unwrap();
    let resumed = run().arg("-resume").run_in(dir);
    resumed.assert_success();
    let all = format!("{}{}", resumed.stdout, resumed.stderr);
    assert!(
        all.contains("Resuming j.jsonl: 4 games in the journal, 2 to play")
            && all.contains("j.jsonl:6: game 2 repeats j.jsonl:3: counted once"),
        "{all}"
    );
    let edited = cut.replacen("\"rule\":0,", "\"rule\":4,", 1);
    std::fs::write(dir.join("j.jsonl"), edited).unwrap();
    let refused = run().arg("-resume").run_in(dir);
    assert_ne!(refused.code(), Some(0), "{}", refused.stderr);
    refused.assert_stderr_has("j.jsonl: the header's settings give the fingerprint");
}
