//! End-to-end statistics: SPRT runs that stop on their own, the results block, standings, and the
//! `sprt` calculator reading a run's journal.

use crate::common;

use std::process::Command;

use common::*;

/// The bundled scout searching `depth` plies, as an engine spec.
fn scout(depth: u32) -> String {
    format!("pbrain-scout --depth {depth}")
}

fn openings() -> std::path::PathBuf {
    repo_root().join("openings/freestyle15.txt")
}

fn finished_count(stdout: &str) -> usize {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("Finished "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The SPRT decision line: `(games counted, game number, LLR)` of the crossing.
fn decision(stdout: &str) -> (usize, u64, f64) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("SPRT (") && l.contains(" accepted after "))
        .expect("a decision line");
    let rest = line.split(" accepted after ").nth(1).unwrap();
    let games = rest.split_whitespace().next().unwrap().parse().unwrap();
    let game = rest.split("(at game ").nth(1).unwrap();
    let game = game.split(',').next().unwrap().parse().unwrap();
    let llr = rest.split("LLR ").nth(1).unwrap();
    let llr = llr.split(')').next().unwrap().parse().unwrap();
    (games, game, llr)
}

fn decision_llr(stdout: &str) -> f64 {
    decision(stdout).2
}

/// The LLR of the last results block printed.
fn last_llr(stdout: &str) -> f64 {
    let line = stdout
        .lines()
        .rfind(|l| l.starts_with("LLR: "))
        .expect("an LLR line");
    line["LLR: ".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn sprt_between_two_depths_accepts_h1_and_the_calculator_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engine(&scout(4), &["name=deep"])
        .engine(&scout(2), &["name=shallow"])
        .each(&["tc=0/5"])
        .games(3000)
        .repeat()
        .concurrency(2)
        .openings_file(openings(), &["type=pos"])
        .args(&["-sprt", "elo0=0", "elo1=20"])
        .journal("h1.jsonl")
        .quiet()
        .run_in(dir.path());
    run.assert_success();
    assert!(run.stdout.contains("H1 accepted"), "{}", run.stdout);
    let n = finished_count(&run.stdout);
    eprintln!("SPRT depth 4 vs depth 2 accepted H1 after {n} games");
    assert!((10..3000).contains(&n));
    // Games in flight when the test decided are finished and counted.
    assert_eq!(journal_games(&dir.path().join("h1.jsonl")).len(), n);
    assert!(run.stdout.contains("Ptnml(0-2): ["));
    let (crossed_after, crossed_at, crossing_llr) = decision(&run.stdout);
    assert!(crossing_llr >= 2.94);
    // The final block reports the verdict of the crossing, not the LLR after games in flight.
    let llr = last_llr(&run.stdout);
    assert_eq!(
        format!("{llr:.2}"),
        format!("{crossing_llr:.2}"),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .contains(&format!("SPRT: H1 accepted after {crossed_after} games")));
    // The calculator reads the journal and prints the same numbers.
    let out = Command::new(runner())
        .args(["sprt", "--elo0", "0", "--elo1", "20", "--json"])
        .arg(dir.path().join("h1.jsonl"))
        .output()
        .unwrap();
    assert_ok(&out, "gomoku-cli sprt");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "H1");
    assert_eq!(v["stats"], "pentanomial");
    // Replayed in journal order, the calculator finds the same crossing as the run.
    let c = &v["crossing"];
    assert_eq!(c["games"].as_u64().unwrap() as usize, crossed_after, "{v}");
    assert_eq!(c["game"].as_u64().unwrap(), crossed_at, "{v}");
    assert!(
        (c["llr"].as_f64().unwrap() - crossing_llr).abs() < 0.006,
        "{v}"
    );
    assert_eq!(v["games"].as_u64().unwrap() as usize / 2 * 2, n / 2 * 2);
}

#[test]
fn sprt_of_an_engine_against_itself_accepts_h0_with_exit_code_3() {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engines("pbrain-random", &["one", "two"])
        .games(20000)
        .repeat()
        .concurrency(2)
        .openings_file(openings(), &["type=pos"])
        .args(&[
            "-sprt",
            "elo0=0",
            "elo1=20",
            // Under H0 the test accepts H1 with probability alpha: keep it tiny so the test is
            // not flaky (H0 is decided by the lower bound, which alpha barely moves).
            "alpha=0.001",
        ])
        .quiet()
        .opt("-ratinginterval", 0)
        .run_in(dir.path());
    run.assert_exit(3);
    assert!(run.stdout.contains("H0 accepted"), "{}", run.stdout);
    let n = finished_count(&run.stdout);
    eprintln!("SPRT of pbrain-random against itself accepted H0 after {n} games");
    assert!(n < 20000);
    // alpha=0.001, beta=0.05: lower bound ln(0.05/0.999) = -2.9947.
    assert!(decision_llr(&run.stdout) <= -2.99);
}

#[test]
fn results_block_in_fastchess_layout_every_interval() {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engines("pbrain-random", &["A", "B"])
        .games(6)
        .opt("-ratinginterval", 2)
        .boardsize(9)
        .run_in(dir.path());
    run.assert_success();
    // Interval blocks after games 2 and 4, then the final one (not a copy after game 6 too).
    assert_eq!(
        run.lines_starting("Results of A vs B (").len(),
        3,
        "{}",
        run.stdout
    );
    assert_eq!(run.lines_starting("Elo: ").len(), 3);
    assert_eq!(run.lines_starting("LOS: ").len(), 3);
    let games: Vec<&str> = run.lines_starting("Games: ");
    assert!(
        games.last().unwrap().starts_with("Games: 6, Wins: "),
        "{games:?}"
    );
    // No -repeat: no pentanomial line; no -sprt: no LLR line.
    assert!(run.lines_starting("Ptnml").is_empty());
    assert!(run.lines_starting("LLR").is_empty());
}

#[test]
fn round_robin_prints_standings_and_crosstable() {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engine(&scout(2), &["name=scout"])
        .engines("pbrain-random", &["rand1", "rand2"])
        .games(4)
        .repeat()
        .concurrency(2)
        .each(&["tc=0/5"])
        .run_in(dir.path());
    run.assert_success();
    let table_start = run
        .stdout
        .lines()
        .position(|l| l.starts_with("Rank"))
        .expect("standings header");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[table_start].contains("Ptnml"),
        "paired: pentanomial column"
    );
    assert!(
        lines[table_start + 1].contains("scout"),
        "scout ranks first: {}",
        run.stdout
    );
    assert!(
        run.stdout.lines().any(|l| l.contains("Total")),
        "crosstable"
    );
}

#[test]
fn sprt_calculator_inputs_and_errors() {
    let ok =
        Match::command(&["sprt", "--ptnml", "10,20,30,25,15", "--elo1", "5", "--json"]).run_here();
    ok.assert_success();
    let v: serde_json::Value = serde_json::from_str(&ok.stdout).unwrap();
    for key in [
        "llr",
        "lower",
        "upper",
        "elo",
        "elo_error",
        "nelo",
        "nelo_error",
        "los",
        "verdict",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert!(v["verdict"].is_null());
    Match::command(&["sprt", "--wld", "1,2"])
        .run_here()
        .assert_exit(2)
        .assert_stderr_has("3 comma-separated counts");
    Match::command(&["sprt", "/no/such/journal.jsonl"])
        .run_here()
        .assert_exit(1)
        .assert_stderr_has("/no/such/journal.jsonl");
}

/// `gomoku-cli sprt ARGS --json` run in `dir`, which must succeed: its object and its stderr.
fn sprt_json(dir: &std::path::Path, args: &[&str]) -> (serde_json::Value, String) {
    let out = Match::command(&["sprt"])
        .args(args)
        .arg("--json")
        .run_in(dir);
    out.assert_success();
    (serde_json::from_str(&out.stdout).unwrap(), out.stderr)
}

#[test]
fn gsprt_decides_a_one_sided_score() {
    let (v, _) = sprt_json(
        &std::env::temp_dir(),
        &["--wld", "500,0,0", "--model", "gsprt"],
    );
    assert_eq!(v["verdict"], "H1", "{v}");
    assert!(
        v["llr"].as_f64().unwrap() > v["upper"].as_f64().unwrap(),
        "{v}"
    );
}

#[test]
fn sprt_of_a_journal_takes_the_runs_design_and_flags_override_it() {
    let dir = tempfile::tempdir().unwrap();
    // The shallow scout against random wins every game: a one-sided score, which gsprt must
    // decide (c-gomoku-cli's approximation alone never stops on it).
    let run = scout_vs_random_match("freestyle15.txt")
        .games(200)
        .args(&["-sprt", "elo0=0", "elo1=20", "model=gsprt"])
        .journal("run.jsonl")
        .run_in(dir.path());
    run.assert_success();
    let (after, at, llr) = decision(&run.stdout);
    assert!(after < 200, "{}", run.stdout);
    let sprt = |extra: &[&str]| {
        let mut a = extra.to_vec();
        a.push("run.jsonl");
        sprt_json(dir.path(), &a)
    };
    // No flags: the run's own design, and the run's verdict.
    let (v, note) = sprt(&[]);
    assert_eq!(
        (v["elo0"].as_f64(), v["elo1"].as_f64()),
        (Some(0.0), Some(20.0))
    );
    assert_eq!(v["model"], "gsprt");
    assert_eq!(v["verdict"], "H1");
    assert_eq!(v["crossing"]["games"].as_u64(), Some(after as u64), "{v}");
    assert_eq!(v["crossing"]["game"].as_u64(), Some(at), "{v}");
    assert!((v["crossing"]["llr"].as_f64().unwrap() - llr).abs() < 0.006);
    assert!(!note.contains("overrides"), "{note}");
    // A flag overrides the journal's value, and says so.
    let (v, note) = sprt(&["--elo1", "5", "--model", "logistic"]);
    assert_eq!(v["elo1"].as_f64(), Some(5.0));
    assert_eq!(v["model"], "logistic");
    assert!(
        note.contains("--elo1 5 overrides the run's elo1=20"),
        "{note}"
    );
    assert!(
        note.contains("--model logistic overrides the run's model=gsprt"),
        "{note}"
    );
}
