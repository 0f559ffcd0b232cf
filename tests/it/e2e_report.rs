//! The HTML report from the command line: `-report FILE` on a real match (written before the first
//! game, rewritten during the run and at its end, also when interrupted), `gomoku-cli report` over
//! a journal or a sharded run's directory, and what bad input gives.

use crate::common;

use std::path::Path;

use common::{journal_games, scout_vs_random_match, wait_until, Match, Run};

/// A short freestyle match of the two fast bundled engines, with a journal and `extra` options.
fn match_args(games: &str, extra: &[&str]) -> Match {
    match_to("j.jsonl", games, extra)
}

/// [`match_args`] with the journal at `journal`.
fn match_to(journal: &str, games: &str, extra: &[&str]) -> Match {
    scout_vs_random_match("freestyle15.txt")
        .rule(0)
        .games(games)
        .journal(journal)
        .args(extra)
}

/// Rows of the game list: the game numbers, in page order.
fn listed_games(html: &str) -> Vec<u64> {
    html.split("data-game=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next()?.parse().ok())
        .collect()
}

fn report_cmd(dir: &Path, args: &[&str]) -> Run {
    Match::command(&["report"]).args(args).run_in(dir)
}

#[test]
fn a_match_with_report_writes_the_finished_report() {
    let dir = tempfile::tempdir().unwrap();
    match_args("6", &["-report", "out/report.html", "-ratinginterval", "2"])
        .run_in(dir.path())
        .assert_success();
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
    report_cmd(dir.path(), &["j.jsonl", "-o", "again.html"]).assert_success();
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
    let run = match_args("200", &["-report", "r.html"]).spawn_in(dir.path());
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
    run.finish_run().assert_exit(130);
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
    match_args("2", &["-report", "afile/r.html"])
        .run_in(dir.path())
        .assert_exit(1)
        .assert_stderr_has("cannot create afile/r.html: afile is a file, not a directory");
    assert!(journal_games(&dir.path().join("j.jsonl")).is_empty());
    match_to("off", "2", &["-report", "r.html"])
        .run_in(dir.path())
        .assert_exit(1)
        .assert_stderr_has("-report is built from the journal");
}

#[test]
fn report_of_bad_journals_names_the_problem_and_keeps_the_old_report() {
    let dir = tempfile::tempdir().unwrap();
    match_args("1", &[]).run_in(dir.path()).assert_success();
    std::fs::write(dir.path().join("old.html"), "old report").unwrap();
    let text = std::fs::read_to_string(dir.path().join("j.jsonl")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(2, "{\"game\": 3, garbage");
    std::fs::write(dir.path().join("bad.jsonl"), lines.join("\n") + "\n").unwrap();
    report_cmd(dir.path(), &["bad.jsonl", "-o", "old.html"])
        .assert_exit(1)
        .assert_stderr_has("bad.jsonl:3");
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
    report_cmd(dir.path(), &["headless.jsonl"])
        .assert_exit(1)
        .assert_stderr_has("no header line");
    report_cmd(dir.path(), &["missing.jsonl"])
        .assert_exit(1)
        .assert_stderr_has("missing.jsonl");
    report_cmd(dir.path(), &[]).assert_exit(2);
}

#[test]
fn report_of_a_sharded_run_directory_holds_every_shard() {
    let dir = tempfile::tempdir().unwrap();
    for k in ["1/2", "2/2"] {
        scout_vs_random_match("freestyle15.txt")
            .rule(0)
            .games(6)
            .args(&["-shard", k, "-rundir", "run"])
            .journal("run/j.jsonl")
            .run_in(dir.path())
            .assert_success();
    }
    report_cmd(dir.path(), &["run", "-o", "run.html"]).assert_success();
    let html = std::fs::read_to_string(dir.path().join("run.html")).unwrap();
    let mut listed = listed_games(&html);
    listed.sort_unstable();
    assert_eq!(listed, (1..=6).collect::<Vec<u64>>());
    assert!(html.contains("shards 1/2, 2/2"), "shards named");
    assert!(html.contains("complete: 6 of 6 games"));
}
