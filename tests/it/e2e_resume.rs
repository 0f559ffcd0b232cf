//! End-to-end tests of `-resume` and `export`: a run stopped at any moment (Ctrl-C, `kill -9`,
//! a kill between the journal line and the other records) and resumed ends with every game of the
//! schedule exactly once in every output, and `export` rebuilds those outputs byte for byte.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::*;

/// A run of pbrain-random against itself with every output on, `games` games, 3 slots.
fn args(games: &str) -> Match {
    args_pgn(games, "g.pgn")
}

/// [`args`] with its PGN written to `pgn`.
fn args_pgn(games: &str, pgn: &str) -> Match {
    Match::new()
        .engines("pbrain-random", &["A", "B"])
        .games(games)
        .repeat()
        .concurrency(3)
        .quiet()
        .noprogress()
        .journal("j.jsonl")
        .pgn(pgn)
        .sgf("g.sgf")
        .msg("g.msg")
        .psq("psq")
        .samples(&["format=bin_lz4", "file=s.bin.lz4"])
        .openings_file(
            repo_root().join("openings/freestyle15.txt"),
            &["type=pos", "order=random"],
        )
}

/// Every output equals what `export` rebuilds from the journal, and the journal holds each game
/// of the schedule exactly once.
fn assert_complete_and_exact(dir: &Path, total: u64) {
    let games = journal_games(&dir.join("j.jsonl"));
    let mut numbers: Vec<u64> = games.iter().map(|g| g["game"].as_u64().unwrap()).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=total).collect::<Vec<_>>());
    for f in ["e.pgn", "e.sgf", "e.msg", "e.bin.lz4"] {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let _ = std::fs::remove_dir_all(dir.join("e-psq"));
    Match::command(&["export", "j.jsonl"])
        .pgn("e.pgn")
        .sgf("e.sgf")
        .msg("e.msg")
        .samples(&["format=bin_lz4", "file=e.bin.lz4"])
        .psq("e-psq")
        .run_in(dir)
        .assert_success();
    for (run, export) in [
        ("g.pgn", "e.pgn"),
        ("g.sgf", "e.sgf"),
        ("g.msg", "e.msg"),
        ("s.bin.lz4", "e.bin.lz4"),
    ] {
        let a = std::fs::read(dir.join(run)).unwrap();
        let b = std::fs::read(dir.join(export)).unwrap();
        assert!(
            a == b,
            "{run} differs from its export ({} vs {} bytes)",
            a.len(),
            b.len()
        );
    }
    let sgf = std::fs::read_to_string(dir.join("g.sgf")).unwrap();
    assert_eq!(sgf.matches("(;FF[4]").count() as u64, total);
    // One .psq record per game (a kill in the middle of one leaves only a hidden temporary file).
    let records = |d: &str| -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join(d))
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name, std::fs::read(e.path()).unwrap())
            })
            .collect();
        v.sort();
        v
    };
    let ran = records("psq");
    assert_eq!(ran.len() as u64, total);
    assert!(ran == records("e-psq"), "psq/ differs from its export");
}

#[test]
fn resume_after_kill_9_at_random_moments_keeps_every_output_exact() {
    let dir = tempfile::tempdir().unwrap();
    let a = args("300");
    // Kill moments spread over the run (deterministic, not racing any assertion).
    for (i, ms) in [150u64, 420, 90, 600].into_iter().enumerate() {
        let run = if i > 0 { a.clone().resume() } else { a.clone() }.spawn_in(dir.path());
        std::thread::sleep(Duration::from_millis(ms));
        run.signal(libc::SIGKILL);
        let _ = run.finish();
    }
    a.resume()
        .run_in(dir.path())
        .assert_success()
        .assert_stdout_has("Finished 300 of 300 games");
    assert_complete_and_exact(dir.path(), 300);
}

#[test]
fn a_kill_between_the_journal_and_the_records_is_completed_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let a = args("10");
    a.run_in(dir.path()).assert_success();
    // Make the last game look cut off: the PGN as it was before it, the SGF halfway through it,
    // the samples without it, and a torn journal line after it.
    let games = journal_games(&dir.path().join("j.jsonl"));
    let before = &games.last().unwrap()["outputs"];
    let cut = |name: &str, len: u64| {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.path().join(name))
            .unwrap();
        f.set_len(len).unwrap();
    };
    cut("g.pgn", before["pgn"].as_u64().unwrap());
    let sgf_len = std::fs::metadata(dir.path().join("g.sgf")).unwrap().len();
    let sgf_start = before["sgf"].as_u64().unwrap();
    cut("g.sgf", (sgf_start + sgf_len) / 2);
    cut("s.bin.lz4", before["samples"].as_u64().unwrap());
    let game = games.last().unwrap()["game"].as_u64().unwrap();
    std::fs::remove_file(dir.path().join(format!("psq/game-{game:06}.psq"))).unwrap();
    let mut j = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.path().join("j.jsonl"))
        .unwrap();
    std::io::Write::write_all(&mut j, b"{\"game\":11,\"rou").unwrap();
    a.resume()
        .run_in(dir.path())
        .assert_success()
        .assert_stderr_has("cut the torn last line off")
        .assert_stderr_has("g.pgn: completed")
        .assert_stderr_has("g.sgf: completed")
        .assert_stderr_has("wrote the last game's record")
        .assert_stderr_has("0 to play");
    assert_complete_and_exact(dir.path(), 10);
}

#[test]
fn a_journal_line_torn_inside_a_character_is_cut_on_resume() {
    // Fuzz finding (journal): the journal was read as UTF-8 text as a whole, so a write torn
    // inside a character that is not ASCII (a name, a message) made -resume fail.
    let dir = tempfile::tempdir().unwrap();
    let a = args("4");
    a.run_in(dir.path()).assert_success();
    let mut j = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.path().join("j.jsonl"))
        .unwrap();
    std::io::Write::write_all(&mut j, b"{\"game\":5,\"black\":\"\xc3").unwrap();
    a.resume()
        .run_in(dir.path())
        .assert_success()
        .assert_stderr_has("cut the torn last line off (20 bytes)");
    assert_complete_and_exact(dir.path(), 4);
}

#[test]
fn resume_after_ctrl_c_and_of_a_finished_run() {
    let dir = tempfile::tempdir().unwrap();
    let a = args("200");
    let run = a.spawn_in(dir.path());
    wait_until(Duration::from_secs(60), || {
        journal_games(&dir.path().join("j.jsonl")).len() >= 20
    });
    run.signal(libc::SIGINT);
    run.finish_run().assert_exit(130);
    let again = a.resume();
    again.run_in(dir.path()).assert_success();
    assert_complete_and_exact(dir.path(), 200);
    // Resuming a finished run plays nothing and reports the same results.
    let run = again.run_in(dir.path());
    run.assert_success()
        .assert_stderr_has("200 games in the journal, 0 to play");
    assert!(run.lines_starting("Started game").is_empty());
    assert!(run.stdout.contains("Games: 200,"), "{}", run.stdout);
    assert_complete_and_exact(dir.path(), 200);
}

#[test]
fn resume_refuses_other_settings_and_names_each() {
    let dir = tempfile::tempdir().unwrap();
    args("4").run_in(dir.path()).assert_success();
    let run = args("6").each(&["tc=0/5"]).resume().run_in(dir.path());
    run.assert_exit(1);
    for needle in [
        "records a different run",
        "games: 4 in the journal, 6 now",
        "engines[0].tc",
    ] {
        run.assert_stderr_has(needle);
    }
    assert_eq!(
        journal_games(&dir.path().join("j.jsonl")).len(),
        4,
        "untouched"
    );
    // Output options may change.
    args_pgn("4", "h.pgn")
        .resume()
        .run_in(dir.path())
        .assert_success();
}

#[test]
fn noswap_keeps_the_colours_and_a_resume_without_it_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // Half of a -noswap run, then its resume: every game the first engine black.
    args("2").arg("-noswap").run_in(dir.path()).assert_success();
    let run = args("2").resume().run_in(dir.path());
    run.assert_exit(1)
        .assert_stderr_has("noswap: true in the journal");
    let blacks = |dir: &std::path::Path| -> Vec<String> {
        let games = journal_games(&dir.join("j.jsonl"));
        games.iter().map(|g| g["black"].to_string()).collect()
    };
    let played = blacks(dir.path());
    assert_eq!(played.len(), 2);
    assert_eq!(played[0], played[1], "-noswap kept the colours");
}

#[test]
fn a_timestamped_journal_is_found_again() {
    let dir = tempfile::tempdir().unwrap();
    let base = Match::new()
        .engines("pbrain-random", &["A", "B"])
        .boardsize(9);
    let first = base.clone().games(6).quiet();
    first.run_in(dir.path()).assert_success();
    first
        .resume()
        .run_in(dir.path())
        .assert_success()
        .assert_stderr_has("6 games in the journal, 0 to play");
    // Another configuration has no journal to resume.
    base.games(7)
        .quiet()
        .resume()
        .run_in(dir.path())
        .assert_exit(1)
        .assert_stderr_has("no journal of this run");
}

#[test]
fn resume_refuses_an_openings_file_whose_content_changed() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.txt");
    std::fs::copy(repo_root().join("openings/freestyle15.txt"), &book).unwrap();
    let a = Match::new()
        .engines("pbrain-random", &["A", "B"])
        .games(4)
        .quiet()
        .journal("j.jsonl")
        .openings(&["file=book.txt", "type=pos"]);
    a.run_in(dir.path()).assert_success();
    let mut text = std::fs::read_to_string(&book).unwrap();
    text = text.lines().rev().collect::<Vec<_>>().join("\n");
    std::fs::write(&book, text).unwrap();
    a.resume()
        .run_in(dir.path())
        .assert_exit(1)
        .assert_stderr_has("openings.sha256");
}

#[test]
fn renlib_archives_each_game_once_as_lib_merge_of_the_journal_would() {
    let dir = tempfile::tempdir().unwrap();
    let a = args("12").renlib("games.lib");
    let run = a.spawn_in(dir.path());
    std::thread::sleep(Duration::from_millis(150));
    run.signal(libc::SIGKILL);
    let _ = run.finish();
    a.resume().run_in(dir.path()).assert_success();
    // The library the run kept, game by game, equals a merge of its journal.
    Match::command(&["lib", "merge", "-o", "direct.lib", "j.jsonl"])
        .run_in(dir.path())
        .assert_success();
    let live = std::fs::read(dir.path().join("games.lib")).unwrap();
    assert!(!live.is_empty());
    assert!(live == std::fs::read(dir.path().join("direct.lib")).unwrap());
    // A board other than 15×15 cannot be archived: refused before the first game (before, the
    // whole run played and then said nothing went in).
    Match::new()
        .engine("pbrain-random", &[])
        .engine("pbrain-random", &[])
        .games(2)
        .boardsize(9)
        .journal("s.jsonl")
        .renlib("small.lib")
        .run_in(dir.path())
        .assert_exit(1)
        .assert_stderr_has(
            "-renlib: a RenLib library holds 15x15 games only, and this run plays on 9x9",
        );
    assert!(!dir.path().join("small.lib").exists());
    assert!(!dir.path().join("s.jsonl").exists());
}

#[test]
fn a_run_killed_before_its_first_line_resumes_from_the_beginning() {
    let dir = tempfile::tempdir().unwrap();
    let a = args("6");
    // What a kill during start-up leaves: an empty journal, or half a header line.
    for leftover in ["", "{\"type\":\"header\",\"form"] {
        std::fs::write(dir.path().join("j.jsonl"), leftover).unwrap();
        a.clone()
            .resume()
            .run_in(dir.path())
            .assert_success()
            .assert_stderr_has("starts from its beginning");
        let first = std::fs::read_to_string(dir.path().join("j.jsonl")).unwrap();
        assert!(first.starts_with("{\"type\":\"header\""), "{first}");
        assert_eq!(journal_games(&dir.path().join("j.jsonl")).len(), 6);
        for f in ["j.jsonl", "g.pgn", "g.sgf", "g.msg", "s.bin.lz4"] {
            let _ = std::fs::remove_file(dir.path().join(f));
        }
    }
}

#[test]
fn a_journal_of_another_build_resumes_under_the_identity_it_was_started_with() {
    // Builds before the SHA-256 identity wrote another fingerprint for the same settings: the
    // resumed run must go on under the journal's, or its lines would look like two runs.
    let dir = tempfile::tempdir().unwrap();
    let first = Match::new()
        .engines("pbrain-random", &["A", "B"])
        .boardsize(9)
        .games(6)
        .quiet()
        .journal("j.jsonl");
    first.run_in(dir.path()).assert_success();
    let path = dir.path().join("j.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let ours = header["fingerprint"].as_str().unwrap().to_string();
    assert_eq!(ours.len(), 32, "{ours}");
    let older: Vec<String> = text
        .lines()
        .take(4)
        .map(|l| l.replace(&ours, "0123456789abcdef"))
        .collect();
    std::fs::write(&path, older.join("\n") + "\n").unwrap();
    first
        .resume()
        .run_in(dir.path())
        .assert_success()
        .assert_stderr_has("3 games in the journal, 3 to play");
    let games = journal_games(&path);
    assert_eq!(games.len(), 6);
    assert!(
        games.iter().all(|g| g["fingerprint"] == "0123456789abcdef"),
        "{:?}",
        games.iter().map(|g| &g["fingerprint"]).collect::<Vec<_>>()
    );
    Match::command(&["merge", "j.jsonl"])
        .run_in(dir.path())
        .assert_success();
}
