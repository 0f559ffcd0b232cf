//! `gomoku-cli tune` end to end with pbrain-scout: the values reach the engine (by `INFO` and by
//! its command line), the journal holds every iteration's values and step, the last lines are
//! the tuned values, and a run killed with SIGKILL and resumed follows the uninterrupted run's
//! trajectory value for value.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{wait_until, Match};
use serde_json::Value;

/// Two of pbrain-scout's weights, OpenBench's form, started away from the engine's defaults.
const PARAMS: &str = "\
# scout's weights
eval_four, int, 150, 0, 400, 20, 0.002
eval_open_three, float, 80.0, 0.0, 400.0, 20.0, 0.002
";

fn params_file(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("params.txt");
    std::fs::write(&p, PARAMS).unwrap();
    p
}

/// A tuning of scout at a fixed depth (deterministic: no clock decides a move) on the bundled
/// openings.
fn tuning(dir: &Path, iterations: u64, concurrency: u64) -> Match {
    let params = params_file(dir);
    let openings = common::repo_root().join("openings/freestyle15.txt");
    Match::command(&["tune"])
        .engine("pbrain-scout", &["depth=2", "tc=0/60"])
        .opt("-params", params.display())
        .opt("-iterations", iterations)
        .openings_file(&openings, &["type=pos", "order=random"])
        .opt("-srand", 7)
        .rule(0)
        .boardsize(15)
        .concurrency(concurrency)
        .journal("tune.journal.jsonl")
        .args(&["-tuneout", "every=2"])
        .noprogress()
}

/// θ after each completed iteration, in the order they completed: `(iteration, θ)`.
fn trajectory(games: &[Value]) -> Vec<(u64, Vec<f64>)> {
    games
        .iter()
        .filter_map(|g| {
            let t = &g["tune"];
            let theta = t["done"]["theta"].as_array()?;
            Some((
                t["it"].as_u64().unwrap(),
                theta.iter().map(|x| x.as_f64().unwrap()).collect(),
            ))
        })
        .collect()
}

#[test]
fn a_tuning_runs_end_to_end_and_prints_the_tuned_values_last() {
    let dir = tempfile::tempdir().unwrap();
    let run = tuning(dir.path(), 6, 2).args(&["-log"]).run_in(dir.path());
    run.assert_success();
    let games = run.journal("tune.journal.jsonl");
    assert_eq!(games.len(), 12, "6 iterations of one game pair");
    for g in &games {
        let t = &g["tune"];
        let k = t["it"].as_u64().unwrap();
        assert_eq!(k, (g["game"].as_u64().unwrap() - 1) / 2 + 1);
        let plus = t["plus"].as_array().unwrap();
        let four = plus[0].as_f64().unwrap();
        assert_eq!(four, four.round(), "an int parameter is sent as an integer");
        assert!((0.0..=400.0).contains(&four));
        // Engine 0 plays θ+ and carries the name's mark.
        let plus_name = if g["black_engine"] == 0 {
            &g["black"]
        } else {
            &g["white"]
        };
        assert!(plus_name.as_str().unwrap().ends_with('+'), "{g}");
    }
    let steps = trajectory(&games);
    assert_eq!(steps.len(), 6, "one step per iteration");
    let last = &steps.last().unwrap().1;
    // The last lines: `name, value`, θ at the end.
    let tail: Vec<&str> = run.stdout.lines().rev().take(2).collect();
    assert_eq!(
        tail,
        vec![
            format!("eval_open_three, {}", last[1]),
            format!("eval_four, {}", last[0].round() as i64),
        ],
        "{}",
        run.stdout
    );
    run.assert_stdout_has("Tune: 2 of 6 iterations: eval_four=");
    run.assert_stdout_has("INFO eval_four ");
    // The trajectory CSV and θ in the file's format, beside the journal.
    let csv = std::fs::read_to_string(dir.path().join("tune.tune.csv")).unwrap();
    assert_eq!(csv.lines().count(), 7, "{csv}");
    let tuned = std::fs::read_to_string(dir.path().join("tune.tuned.txt")).unwrap();
    assert!(tuned.contains("eval_four, int, "), "{tuned}");
    let info = std::fs::read_to_string(dir.path().join("tune.tuned.info")).unwrap();
    assert_eq!(
        info.lines().next(),
        Some(format!("INFO eval_four {}", last[0].round() as i64).as_str())
    );
    // The values went to the engines by INFO before their games.
    let log = std::fs::read_to_string(dir.path().join("gomoku-cli.1.log")).unwrap();
    assert!(
        log.contains("INFO eval_four "),
        "no INFO line with a value in the log"
    );
}

#[test]
fn a_tuning_killed_and_resumed_follows_the_same_trajectory() {
    let whole = tempfile::tempdir().unwrap();
    let run = tuning(whole.path(), 8, 1).run_in(whole.path());
    run.assert_success();
    let games = run.journal("tune.journal.jsonl");
    let expected = trajectory(&games);
    assert_eq!(expected.len(), 8);

    let cut = tempfile::tempdir().unwrap();
    let journal = cut.path().join("tune.journal.jsonl");
    let started = tuning(cut.path(), 8, 1).spawn_in(cut.path());
    let lines = || {
        std::fs::read_to_string(&journal)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    // The header and five games: iteration 3 is half played.
    wait_until(Duration::from_secs(120), || lines() >= 6);
    started.signal(libc::SIGKILL);
    let _ = started.finish();
    assert!(lines() < 17, "the run finished before it was killed");
    let resumed = tuning(cut.path(), 8, 1).resume().run_in(cut.path());
    resumed.assert_success();
    let games_after = resumed.journal("tune.journal.jsonl");
    assert_eq!(trajectory(&games_after), expected);
    // The values each game was sent are the uninterrupted run's too.
    let sent = |gs: &[Value]| {
        let mut v: Vec<(u64, Value)> = gs
            .iter()
            .map(|g| (g["game"].as_u64().unwrap(), g["tune"]["plus"].clone()))
            .collect();
        v.sort_by_key(|(g, _)| *g);
        v.dedup_by_key(|(g, _)| *g);
        v
    };
    assert_eq!(sent(&games_after), sent(&games));
    assert_eq!(resumed.stdout.lines().last(), run.stdout.lines().last());
}

#[test]
fn values_in_the_engines_command_line_start_it_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let params = params_file(dir.path());
    let scout = common::engine("pbrain-scout");
    let run = Match::command(&["tune"])
        .engine_cmd(
            &format!("{scout} --param eval_four={{eval_four}} --tune-table"),
            &["depth=1", "tc=0/60"],
        )
        .opt("-params", params.display())
        .opt("-iterations", 3)
        .journal("t.journal.jsonl")
        .args(&["-log"])
        .noprogress()
        .run_in(dir.path());
    run.assert_success();
    // scout prints its table when it starts: each side was started with the value it was sent
    // (and eval_open_three, not in the command, went by INFO).
    let log = std::fs::read_to_string(dir.path().join("gomoku-cli.1.log")).unwrap();
    for g in run.journal("t.journal.jsonl") {
        for (side, mark) in [("plus", '+'), ("minus", '-')] {
            let value = g["tune"][side][0].as_f64().unwrap() as i64;
            let line = format!("pbrain-scout{mark} > MESSAGE eval_four,{value},0,400,");
            assert!(log.contains(&line), "{line:?} not in the log");
            let sent = g["tune"][side][1].as_f64().unwrap();
            let info = format!("INFO eval_open_three {sent}");
            assert!(log.contains(&info), "{info:?} not in the log");
        }
    }
    assert!(
        !log.contains("INFO eval_four"),
        "a value in the command is not sent by INFO"
    );
}

#[test]
fn bad_tunings_are_refused_with_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(
        &bad,
        "eval_four, int, 150, 0, 400, 20, 0.002\neval_three, int, x, 1, 2, 1, 0.002\n",
    )
    .unwrap();
    let run = Match::command(&["tune"])
        .engine("pbrain-scout", &["depth=1"])
        .opt("-params", bad.display())
        .opt("-iterations", 2)
        .run_in(dir.path());
    assert_ne!(run.code(), Some(0));
    run.assert_stderr_has("bad.txt:2");
    let two = Match::command(&["tune"])
        .engine("pbrain-scout", &[])
        .engine("pbrain-scout", &[])
        .opt("-params", bad.display())
        .opt("-iterations", 2)
        .run_in(dir.path());
    two.assert_exit(2).assert_stderr_has("exactly one -engine");
    let games = Match::command(&["tune"])
        .engine("pbrain-scout", &[])
        .opt("-params", params_file(dir.path()).display())
        .opt("-iterations", 2)
        .games(10)
        .run_in(dir.path());
    games.assert_exit(2).assert_stderr_has("-games");
    let none = Match::command(&["tune"])
        .engine("pbrain-scout", &[])
        .opt("-params", params_file(dir.path()).display())
        .run_in(dir.path());
    none.assert_exit(2)
        .assert_stderr_has("-iterations N is required");
    let huge = Match::command(&["tune"])
        .engine("pbrain-scout", &[])
        .opt("-params", params_file(dir.path()).display())
        .opt("-iterations", 3)
        .opt("-pairs", u64::MAX)
        .run_in(dir.path());
    huge.assert_exit(2).assert_stderr_has("too many games");
}

#[test]
fn shards_play_whole_iterations_and_apply_each_others_steps() {
    let dir = tempfile::tempdir().unwrap();
    let params = params_file(dir.path());
    let shard = |k: u64| {
        Match::command(&["tune"])
            .engine("pbrain-scout", &["depth=1", "tc=0/60"])
            .opt("-params", params.display())
            .opt("-iterations", 8)
            .opt("-srand", 11)
            .opt("-shard", format!("{k}/2"))
            .opt("-rundir", dir.path().join("run").display())
            .args(&["-tuneout", "every=100"])
            .noprogress()
            .run_in(dir.path())
    };
    // One after the other: the second reads the first's finished iterations when it starts.
    let first = shard(1);
    first.assert_success();
    let second = shard(2);
    second.assert_success();
    first.assert_stdout_has("Tune: 4 of 8 iterations");
    second.assert_stdout_has("Tune: 8 of 8 iterations");
    let journal =
        |k| common::journal_games(&dir.path().join(format!("run/shard-{k}-of-2.journal.jsonl")));
    let mut games: Vec<u64> = Vec::new();
    for k in 1..=2 {
        let own = journal(k);
        assert_eq!(own.len(), 8, "shard {k}: 4 whole iterations of 2 games");
        for g in &own {
            let it = g["tune"]["it"].as_u64().unwrap();
            assert_eq!((it - 1) % 2, k - 1, "shard {k} played iteration {it}");
        }
        games.extend(own.iter().map(|g| g["game"].as_u64().unwrap()));
    }
    games.sort_unstable();
    assert_eq!(games, (1..=16).collect::<Vec<_>>());
    // The second shard stepped θ with the first's iterations too (read from its journal).
    let csv = std::fs::read_to_string(dir.path().join("run/shard-2-of-2.tune.csv")).unwrap();
    let mut iterations: Vec<u64> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
        .collect();
    iterations.sort_unstable();
    assert_eq!(iterations, (1..=8).collect::<Vec<_>>(), "{csv}");
    // Without a common seed the shards would draw different flips: refused.
    let unseeded = Match::command(&["tune"])
        .engine("pbrain-scout", &["depth=1"])
        .opt("-params", params.display())
        .opt("-iterations", 8)
        .opt("-shard", "1/2")
        .run_in(dir.path());
    unseeded.assert_exit(2).assert_stderr_has("share one seed");
}

/// A tuning stopped by SIGINT as a script's background job (started with SIGINT ignored) or by
/// SIGTERM: the run's summary says it was interrupted, θ so far is printed, exit code 130, and
/// no engine is left.
#[test]
fn a_signal_stops_a_tuning_with_its_summary_and_the_values_so_far() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("tune.journal.jsonl");
        let run = tuning(dir.path(), 1000, 1).spawn_in_background(dir.path());
        wait_until(Duration::from_secs(120), || {
            common::journal_games(&journal).len() >= 2
        });
        let out = run.stop_with(sig, Duration::from_secs(60));
        out.assert_exit(130)
            .assert_stdout_has("of 2000 games (interrupted)")
            .assert_stdout_has("Tuned parameters (the run stopped early");
    }
}

/// A tuning without `-srand` prints the seed it drew, and `-srand` with that seed repeats its
/// trajectory.
#[test]
fn a_drawn_seed_is_printed_and_repeats_the_tuning() {
    let dir = tempfile::tempdir().unwrap();
    let without = tuning(dir.path(), 3, 1).to_args();
    let at = without.iter().position(|a| a == "-srand").unwrap();
    let mut drawn = without.clone();
    drawn.drain(at..at + 2);
    let first = common::run_in(dir.path(), &common::strs(&drawn));
    first.assert_success();
    let line = first
        .stderr
        .lines()
        .find(|l| l.starts_with("Tune: seed "))
        .unwrap_or_else(|| panic!("no seed on standard error: {}", first.stderr));
    let seed: u64 = line["Tune: seed ".len()..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert_eq!(
        line,
        format!("Tune: seed {seed} drawn (repeat the run with -srand {seed})")
    );
    let expected = trajectory(&first.journal("tune.journal.jsonl"));
    assert_eq!(expected.len(), 3);
    let mut repeat = without;
    repeat[at + 1] = seed.to_string();
    let other = tempfile::tempdir().unwrap();
    let second = common::run_in(other.path(), &common::strs(&repeat));
    second.assert_success();
    assert!(!second.stderr.contains("Tune: seed"), "{}", second.stderr);
    assert_eq!(trajectory(&second.journal("tune.journal.jsonl")), expected);
}
