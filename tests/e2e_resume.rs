//! End-to-end tests of `-resume` and `export`: a run stopped at any moment (Ctrl-C, `kill -9`,
//! a kill between the journal line and the other records) and resumed ends with every game of the
//! schedule exactly once in every output, and `export` rebuilds those outputs byte for byte.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::*;

/// A run of pbrain-random against itself with every output on, `games` games, 3 slots.
fn args(games: &str) -> Vec<String> {
    let r = format!("cmd={}", engine("pbrain-random"));
    let op = repo_root().join("openings/freestyle15.txt");
    let mut a: Vec<String> = [
        "-engine",
        &r,
        "name=A",
        "-engine",
        &r,
        "name=B",
        "-games",
        games,
        "-repeat",
        "-concurrency",
        "3",
        "-quiet",
        "-noprogress",
        "-journal",
        "j.jsonl",
        "-pgn",
        "g.pgn",
        "-sgf",
        "g.sgf",
        "-msg",
        "g.msg",
        "-psq",
        "psq",
        "-sample",
        "format=bin_lz4",
        "file=s.bin.lz4",
        "-openings",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.push(format!("file={}", op.display()));
    a.extend(["type=pos".to_string(), "order=random".to_string()]);
    a
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
    let out = Command::new(runner())
        .current_dir(dir)
        .args([
            "export", "j.jsonl", "-pgn", "e.pgn", "-sgf", "e.sgf", "-msg", "e.msg",
        ])
        .args([
            "-sample",
            "format=bin_lz4",
            "file=e.bin.lz4",
            "-psq",
            "e-psq",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
        let mut run_args = strs(&a);
        if i > 0 {
            run_args.push("-resume");
        }
        let run = spawn_tagged(dir.path(), &run_args);
        std::thread::sleep(Duration::from_millis(ms));
        run.signal(libc::SIGKILL);
        let _ = run.finish();
    }
    let mut last = strs(&a);
    last.push("-resume");
    let run = run_in(dir.path(), &last);
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    assert!(
        run.stdout.contains("Finished 300 of 300 games"),
        "{}",
        run.stdout
    );
    assert_complete_and_exact(dir.path(), 300);
}

#[test]
fn a_kill_between_the_journal_and_the_records_is_completed_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let a = args("10");
    let run = run_in(dir.path(), &strs(&a));
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
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
    let mut again = strs(&a);
    again.push("-resume");
    let run = run_in(dir.path(), &again);
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("cut the torn last line off"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("g.pgn: completed"), "{}", run.stderr);
    assert!(run.stderr.contains("g.sgf: completed"), "{}", run.stderr);
    assert!(
        run.stderr.contains("wrote the last game's record"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("0 to play"), "{}", run.stderr);
    assert_complete_and_exact(dir.path(), 10);
}

#[test]
fn a_journal_line_torn_inside_a_character_is_cut_on_resume() {
    // Fuzz finding (journal): the journal was read as UTF-8 text as a whole, so a write torn
    // inside a character that is not ASCII (a name, a message) made -resume fail.
    let dir = tempfile::tempdir().unwrap();
    let a = args("4");
    let run = run_in(dir.path(), &strs(&a));
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    let mut j = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.path().join("j.jsonl"))
        .unwrap();
    std::io::Write::write_all(&mut j, b"{\"game\":5,\"black\":\"\xc3").unwrap();
    let mut again = strs(&a);
    again.push("-resume");
    let run = run_in(dir.path(), &again);
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("cut the torn last line off (20 bytes)"),
        "{}",
        run.stderr
    );
    assert_complete_and_exact(dir.path(), 4);
}

#[test]
fn resume_after_ctrl_c_and_of_a_finished_run() {
    let dir = tempfile::tempdir().unwrap();
    let a = args("200");
    let run = spawn_tagged(dir.path(), &strs(&a));
    wait_until(Duration::from_secs(60), || {
        journal_games(&dir.path().join("j.jsonl")).len() >= 20
    });
    run.signal(libc::SIGINT);
    let out = run.finish();
    assert_eq!(out.status.code(), Some(130));
    let mut again = strs(&a);
    again.push("-resume");
    let run = run_in(dir.path(), &again);
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    assert_complete_and_exact(dir.path(), 200);
    // Resuming a finished run plays nothing and reports the same results.
    let run = run_in(dir.path(), &again);
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("200 games in the journal, 0 to play"),
        "{}",
        run.stderr
    );
    assert!(run.lines_starting("Started game").is_empty());
    assert!(run.stdout.contains("Games: 200,"), "{}", run.stdout);
    assert_complete_and_exact(dir.path(), 200);
}

#[test]
fn resume_refuses_other_settings_and_names_each() {
    let dir = tempfile::tempdir().unwrap();
    let a = args("4");
    assert_eq!(run_in(dir.path(), &strs(&a)).code(), Some(0));
    let mut other: Vec<String> = a
        .iter()
        .map(|s| if s == "4" { "6".to_string() } else { s.clone() })
        .collect();
    other.extend(["-each".into(), "tc=0/5".into(), "-resume".into()]);
    let run = run_in(dir.path(), &strs(&other));
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    for needle in [
        "records a different run",
        "games: 4 in the journal, 6 now",
        "engines[0].tc",
    ] {
        assert!(run.stderr.contains(needle), "{needle}: {}", run.stderr);
    }
    assert_eq!(
        journal_games(&dir.path().join("j.jsonl")).len(),
        4,
        "untouched"
    );
    // Output options may change.
    let mut moved: Vec<String> = a
        .iter()
        .map(|s| {
            if s == "g.pgn" {
                "h.pgn".to_string()
            } else {
                s.clone()
            }
        })
        .collect();
    moved.push("-resume".into());
    let run = run_in(dir.path(), &strs(&moved));
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
}

#[test]
fn a_timestamped_journal_is_found_again() {
    let dir = tempfile::tempdir().unwrap();
    let r = format!("cmd={}", engine("pbrain-random"));
    let base = [
        "-engine",
        &r,
        "name=A",
        "-engine",
        &r,
        "name=B",
        "-boardsize",
        "9",
    ];
    let mut first = base.to_vec();
    first.extend(["-games", "6", "-quiet"]);
    let run = run_in(dir.path(), &first);
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    let mut again = first.clone();
    again.push("-resume");
    let run = run_in(dir.path(), &again);
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("6 games in the journal, 0 to play"),
        "{}",
        run.stderr
    );
    // Another configuration has no journal to resume.
    let mut other = base.to_vec();
    other.extend(["-games", "7", "-quiet", "-resume"]);
    let run = run_in(dir.path(), &other);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("no journal of this run"),
        "{}",
        run.stderr
    );
}

#[test]
fn resume_refuses_an_openings_file_whose_content_changed() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.txt");
    std::fs::copy(repo_root().join("openings/freestyle15.txt"), &book).unwrap();
    let r = format!("cmd={}", engine("pbrain-random"));
    let a = [
        "-engine",
        &r,
        "name=A",
        "-engine",
        &r,
        "name=B",
        "-games",
        "4",
        "-quiet",
        "-journal",
        "j.jsonl",
        "-openings",
        "file=book.txt",
        "type=pos",
    ];
    assert_eq!(run_in(dir.path(), &a).code(), Some(0));
    let mut text = std::fs::read_to_string(&book).unwrap();
    text = text.lines().rev().collect::<Vec<_>>().join("\n");
    std::fs::write(&book, text).unwrap();
    let mut again = a.to_vec();
    again.push("-resume");
    let run = run_in(dir.path(), &again);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("openings.sha256"), "{}", run.stderr);
}

#[test]
fn renlib_archives_each_game_once_as_lib_merge_of_the_journal_would() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = args("12");
    a.extend(["-renlib".to_string(), "games.lib".to_string()]);
    let run = spawn_tagged(dir.path(), &strs(&a));
    std::thread::sleep(Duration::from_millis(150));
    run.signal(libc::SIGKILL);
    let _ = run.finish();
    let mut again = strs(&a);
    again.push("-resume");
    let run = run_in(dir.path(), &again);
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    // The library the run kept, game by game, equals a merge of its journal.
    let out = Command::new(runner())
        .current_dir(dir.path())
        .args(["lib", "merge", "-o", "direct.lib", "j.jsonl"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let live = std::fs::read(dir.path().join("games.lib")).unwrap();
    assert!(!live.is_empty());
    assert!(live == std::fs::read(dir.path().join("direct.lib")).unwrap());
    // A board other than 15×15 cannot be archived: refused before the first game (before, the
    // whole run played and then said nothing went in).
    let r = format!("cmd={}", engine("pbrain-random"));
    let small = [
        "-engine",
        &r,
        "-engine",
        &r,
        "-games",
        "2",
        "-boardsize",
        "9",
        "-journal",
        "s.jsonl",
        "-renlib",
        "small.lib",
    ];
    let run = run_in(dir.path(), &small);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "-renlib: a RenLib library holds 15x15 games only, and this run plays on 9x9"
        ),
        "{}",
        run.stderr
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
        let mut again = strs(&a);
        again.push("-resume");
        let run = run_in(dir.path(), &again);
        assert_eq!(run.code(), Some(0), "{}", run.stderr);
        assert!(
            run.stderr.contains("starts from its beginning"),
            "{}",
            run.stderr
        );
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
    let r = format!("cmd={}", engine("pbrain-random"));
    let mut first = vec![
        "-engine",
        &r,
        "name=A",
        "-engine",
        &r,
        "name=B",
        "-boardsize",
        "9",
        "-games",
        "6",
        "-quiet",
        "-journal",
        "j.jsonl",
    ];
    let run = run_in(dir.path(), &first);
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
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
    first.push("-resume");
    let run = run_in(dir.path(), &first);
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("3 games in the journal, 3 to play"),
        "{}",
        run.stderr
    );
    let games = journal_games(&path);
    assert_eq!(games.len(), 6);
    assert!(
        games.iter().all(|g| g["fingerprint"] == "0123456789abcdef"),
        "{:?}",
        games.iter().map(|g| &g["fingerprint"]).collect::<Vec<_>>()
    );
    let merged = run_in(dir.path(), &["merge", "j.jsonl"]);
    assert_eq!(merged.code(), Some(0), "{}", merged.stderr);
}
