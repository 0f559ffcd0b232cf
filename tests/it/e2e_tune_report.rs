//! The HTML report of a `gomoku-cli tune` run end to end: the live `-report` page has one chart
//! per parameter and the tuned values the run printed, the offline `report` of its journal draws
//! the same section, and the run directory of a sharded tuning gives one trajectory of all the
//! shards' iterations.

use crate::common;

use std::path::Path;

use common::{Match, Run};

/// Two of pbrain-scout's weights, OpenBench's form.
const PARAMS: &str = "\
eval_four, int, 150, 0, 400, 20, 0.002
eval_open_three, float, 80.0, 0.0, 400.0, 20.0, 0.002
";

/// A short tuning of scout at a fixed depth (no clock decides a move) on the bundled openings.
fn tuning(dir: &Path, iterations: u64) -> Match {
    let params = dir.join("params.txt");
    std::fs::write(&params, PARAMS).unwrap();
    Match::command(&["tune"])
        .engine("pbrain-scout", &["depth=2", "tc=0/60"])
        .opt("-params", params.display())
        .opt("-iterations", iterations)
        .openings_file(
            common::repo_root().join("openings/freestyle15.txt"),
            // One seed for the openings and the tuning: shards must share it.
            &["type=pos", "order=random", "srand=7"],
        )
        .rule(0)
        .boardsize(15)
        .noprogress()
}

/// The page's tune section (from its opening tag to its end).
fn tune_section(html: &str) -> &str {
    let start = html.find("<section id=\"tune\">").expect("a tune section");
    let len = html[start..].find("</section>").unwrap();
    &html[start..start + len]
}

/// The run's last two lines, `name, value`, as the table's final values: `(four, three)`.
fn printed_values(run: &Run) -> (String, String) {
    let tail: Vec<&str> = run.stdout.lines().rev().take(2).collect();
    let value = |line: &str, name: &str| {
        line.strip_prefix(&format!("{name}, "))
            .unwrap_or_else(|| panic!("{name} in {line:?}: {}", run.stdout))
            .to_string()
    };
    (
        value(tail[1], "eval_four"),
        value(tail[0], "eval_open_three"),
    )
}

#[test]
fn a_tuning_report_draws_a_chart_per_parameter_live_and_offline() {
    let dir = tempfile::tempdir().unwrap();
    let run = tuning(dir.path(), 4)
        .concurrency(2)
        .journal("t.journal.jsonl")
        .opt("-report", "t.html")
        .run_in(dir.path());
    run.assert_success();
    let live = std::fs::read_to_string(dir.path().join("t.html")).unwrap();
    let section = tune_section(&live);
    assert_eq!(
        section.matches("class=\"tune-chart\"").count(),
        2,
        "{section}"
    );
    assert_eq!(section.matches("<svg").count(), 2);
    assert!(
        section.contains("4 of 4 iterations completed, 8 games"),
        "{section}"
    );
    let (four, three) = printed_values(&run);
    assert!(
        section.contains(&format!(
            "<tr><td class=\"mono\">eval_four</td><td class=\"num\">150</td><td class=\"num\">{four}</td>"
        )),
        "final eval_four {four}: {section}"
    );
    assert!(
        section.contains(&format!(
            "eval_open_three (float): start 80, final {three}, range [0, 400]"
        )),
        "final eval_open_three {three}: {section}"
    );
    // Each chart has a point per completed iteration.
    assert_eq!(section.matches("data-points=\"4\"").count(), 2);

    Match::command(&["report"])
        .args(&["t.journal.jsonl", "-o", "offline.html"])
        .run_in(dir.path())
        .assert_success();
    let offline = std::fs::read_to_string(dir.path().join("offline.html")).unwrap();
    assert_eq!(
        tune_section(&offline),
        section,
        "the journal gives the same section"
    );
}

#[test]
fn a_sharded_tunings_report_has_every_shards_iterations_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut last = None;
    for k in ["1/2", "2/2"] {
        let run = tuning(dir.path(), 4)
            .args(&["-shard", k, "-rundir", "run"])
            .journal("run/j.jsonl")
            .run_in(dir.path());
        run.assert_success();
        last = Some(run);
    }
    Match::command(&["report"])
        .args(&["run", "-o", "run.html"])
        .run_in(dir.path())
        .assert_success();
    let html = std::fs::read_to_string(dir.path().join("run.html")).unwrap();
    let section = tune_section(&html);
    assert!(html.contains("shards 1/2, 2/2"), "shards named");
    assert!(
        section.contains("4 of 4 iterations completed, 8 games"),
        "{section}"
    );
    assert_eq!(section.matches("data-points=\"4\"").count(), 2);
    // The second shard, started after the first ended, applied the first's steps first, as the
    // report does: its tuned values are the page's.
    let (four, three) = printed_values(last.as_ref().unwrap());
    assert!(
        section.contains(&format!("eval_four (int): start 150, final {four},")),
        "{section}"
    );
    assert!(
        section.contains(&format!("start 80, final {three},")),
        "{section}"
    );
}

#[test]
fn a_match_report_has_no_tune_section() {
    let dir = tempfile::tempdir().unwrap();
    Match::new()
        .engine("pbrain-scout", &["depth=1", "tc=0/60"])
        .engine("pbrain-random", &["tc=0/60"])
        .rule(0)
        .boardsize(15)
        .games(2)
        .noprogress()
        .opt("-report", "m.html")
        .run_in(dir.path())
        .assert_success();
    let html = std::fs::read_to_string(dir.path().join("m.html")).unwrap();
    assert!(!html.contains("id=\"tune\""));
    assert!(
        html.contains("\n\n<section id=\"charts\">"),
        "the page as before"
    );
}
