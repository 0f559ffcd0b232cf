//! The HTML report from the command line: `-report FILE` on a real match (written before the first
//! game, rewritten during the run and at its end, also when interrupted), `gomoku-cli report` over
//! a journal or a sharded run's directory, and what bad input gives.

mod common;

use std::path::Path;
use std::process::Command;

use common::{journal_games, run_in, runner, scout_vs_random, spawn_tagged, strs, wait_until};

/// A short freestyle match of the two fast bundled engines, with a journal and `extra` options.
fn match_args(games: &str, extra: &[&str]) -> Vec<String> {
    let mut a = vec!["-rule", "0", "-games", games, "-journal", "j.jsonl"];
    a.extend(extra);
    scout_vs_random("freestyle15.txt", &a)
}

/// Rows of the game list: the game numbers, in page order.
fn listed_games(html: &str) -> Vec<u64> {
    html.split("data-game=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next()?.parse().ok())
        .collect()
}

fn report_cmd(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(runner())
        .arg("report")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("runs")
}

#[test]
fn a_match_with_report_writes_the_finished_report() {
    let dir = tempfile::tempdir().unwrap();
    let args = match_args("6", &["-report", "out/report.html", "-ratinginterval", "2"]);
    let run = run_in(dir.path(), &strs(&args));
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    let html = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    let journal = journal_games(&dir.path().join("j.jsonl"));
    assert_eq!(journal.len(), 6);
    let mut listed = listed_games(&html);
    listed.sort_unstable();
    assert_eq!(listed, (1..=6).collect::<Vec<u64>>());
    assert!(html.contains("complete: 6 of 6 games"), "status");
    assert!(html.contains("data-state=\"ended\""));
    assert!(html.contains("<td class=\"engine\">scout</td>"));
    // No temporary file is left next to it.
    let names: Vec<_> = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    // The command over the same journal lists the same games with the same results.
    let out = report_cmd(dir.path(), &["j.jsonl", "-o", "again.html"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again = std::fs::read_to_string(dir.path().join("again.html")).unwrap();
    let rows = |h: &str| -> Vec<String> {
        h.lines()
            .filter(|l| l.starts_with("<tr class=\"e"))
            .map(String::from)
            .collect()
    };
    assert_eq!(rows(&html), rows(&again));
}

#[test]
fn an_interrupted_match_leaves_a_report_of_the_games_it_finished() {
    let dir = tempfile::tempdir().unwrap();
    let args = match_args("200", &["-report", "r.html"]);
    let run = spawn_tagged(dir.path(), &strs(&args));
    let journal = dir.path().join("j.jsonl");
    // The first page exists before any game has finished.
    wait_until(std::time::Duration::from_secs(60), || {
        dir.path().join("r.html").exists()
    });
    let first = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(first.contains("data-state=\"running\""), "the first page");
    wait_until(std::time::Duration::from_secs(60), || {
        journal_games(&journal).len() >= 3
    });
    run.signal(libc::SIGINT);
    let out = run.finish();
    assert_eq!(out.status.code(), Some(130));
    let games = journal_games(&journal).len();
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert_eq!(listed_games(&html).len(), games);
    assert!(
        html.contains(&format!("stopped early: {games} of 200 games")),
        "status of an interrupted run"
    );
}

#[test]
fn report_paths_and_journals_that_cannot_be_used_are_refused_before_the_first_game() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("afile"), "x").unwrap();
    let args = match_args("2", &["-report", "afile/r.html"]);
    let run = run_in(dir.path(), &strs(&args));
    assert_eq!(run.code(), Some(1));
    assert!(
        run.stderr
            .contains("cannot create afile/r.html: afile is a file, not a directory"),
        "{}",
        run.stderr
    );
    assert!(journal_games(&dir.path().join("j.jsonl")).is_empty());
    let mut args = match_args("2", &["-report", "r.html"]);
    let i = args.iter().position(|a| a == "j.jsonl").unwrap();
    args[i] = "off".into();
    let run = run_in(dir.path(), &strs(&args));
    assert_eq!(run.code(), Some(1));
    assert!(
        run.stderr.contains("-report is built from the journal"),
        "{}",
        run.stderr
    );
}

#[test]
fn report_of_bad_journals_names_the_problem_and_keeps_the_old_report() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_in(dir.path(), &strs(&match_args("1", &[])));
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    std::fs::write(dir.path().join("old.html"), "old report").unwrap();
    let text = std::fs::read_to_string(dir.path().join("j.jsonl")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(2, "{\"game\": 3, garbage");
    std::fs::write(dir.path().join("bad.jsonl"), lines.join("\n") + "\n").unwrap();
    let out = report_cmd(dir.path(), &["bad.jsonl", "-o", "old.html"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.jsonl:3"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("old.html")).unwrap(),
        "old report"
    );
    // Without the header line the run's settings are unknown.
    std::fs::write(
        dir.path().join("headless.jsonl"),
        lines[1].to_string() + "\n",
    )
    .unwrap();
    let out = report_cmd(dir.path(), &["headless.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no header line"));
    let out = report_cmd(dir.path(), &["missing.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.jsonl"));
    let out = report_cmd(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2), "usage");
}

#[test]
fn report_of_a_sharded_run_directory_holds_every_shard() {
    let dir = tempfile::tempdir().unwrap();
    for k in ["1/2", "2/2"] {
        let mut args = match_args("6", &["-shard", k, "-rundir", "run"]);
        let i = args.iter().position(|a| a == "-journal").unwrap();
        args.drain(i..i + 2);
        args.extend(["-journal".to_string(), "run/j.jsonl".to_string()]);
        let run = run_in(dir.path(), &strs(&args));
        assert_eq!(run.code(), Some(0), "{}", run.stderr);
    }
    let out = report_cmd(dir.path(), &["run", "-o", "run.html"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(dir.path().join("run.html")).unwrap();
    let mut listed = listed_games(&html);
    listed.sort_unstable();
    assert_eq!(listed, (1..=6).collect::<Vec<u64>>());
    assert!(html.contains("shards 1/2, 2/2"), "shards named");
    assert!(html.contains("complete: 6 of 6 games"));
}
