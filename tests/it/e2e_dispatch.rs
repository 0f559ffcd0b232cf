//! End-to-end tests of the run-loop decisions a new user tripped over: stops that still started
//! games, journals that were shared or misread, output paths that failed silently, duplicated
//! reports. Each runs the built binary with the bundled engines.

use crate::common;

use std::process::Command;

use common::*;

/// pbrain-random as A against itself as B on 9×9, then `extra`.
fn two(extra: &[&str]) -> Match {
    Match::new()
        .engines("pbrain-random", &["A", "B"])
        .boardsize(9)
        .args(extra)
}

/// pbrain-random as A against itself as B on 9×9, with `extra` options.
fn random_match(dir: &std::path::Path, extra: &[&str]) -> Run {
    two(extra).run_in(dir)
}

/// pbrain-faulty crashing at its second move as `faulty` against pbrain-random as `random`.
fn crashing() -> Match {
    Match::new()
        .engine("pbrain-faulty --crash-at 2", &["name=faulty"])
        .engine("pbrain-random", &["name=random"])
}

#[test]
fn fatalerror_starts_no_game_after_the_stop() {
    for concurrency in ["1", "3"] {
        let dir = tempfile::tempdir().unwrap();
        let run = crashing()
            .games(12)
            .concurrency(concurrency)
            .arg("-fatalerror")
            .journal("j.jsonl")
            .run_in(dir.path());
        run.assert_exit(4);
        let lines: Vec<&str> = run.stdout.lines().collect();
        let stop = lines
            .iter()
            .position(|l| l.starts_with("Stopping: engine failure"))
            .expect("a stop line");
        assert!(
            lines[stop..].iter().all(|l| !l.starts_with("Started game")),
            "a game started after the stop:\n{}",
            run.stdout
        );
        let finished = run.lines_starting("Finished game").len();
        assert_eq!(journal_games(&dir.path().join("j.jsonl")).len(), finished);
        assert!(
            run.stdout
                .contains(&format!("Finished {finished} of 12 games")),
            "{}",
            run.stdout
        );
        if concurrency == "1" {
            // One slot: the first game crashes, nothing else is played.
            assert_eq!(finished, 1, "{}", run.stdout);
            assert_eq!(run.lines_starting("Started game").len(), 1);
        }
    }
}

#[test]
fn sprt_reads_the_pairing_from_the_journal_header() {
    // No openings and no -repeat: consecutive games have the same (empty) opening with colours
    // reversed, which a reader guessing from the openings takes for pairs.
    let dir = tempfile::tempdir().unwrap();
    let run = random_match(
        dir.path(),
        &[
            "-games",
            "20",
            "-journal",
            "j.jsonl",
            "-ratinginterval",
            "0",
        ],
    );
    run.assert_success();
    let header: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(dir.path().join("j.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["type"], "header");
    assert_eq!(header["settings"]["repeat"], false);
    assert_eq!(header["settings"]["total_games"], 20);
    assert_eq!(header["settings"]["engines"][0]["name"], "A");
    let out = Match::command(&["sprt", "--json"])
        .arg(&dir.path().join("j.jsonl").to_string_lossy())
        .run_in(dir.path());
    out.assert_success();
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["stats"], "trinomial", "{v}");
    assert_eq!(v["games"], 20);
    // The run's own block printed the same draw ratio the calculator computes.
    let printed = run
        .lines_starting("LOS: ")
        .last()
        .copied()
        .unwrap()
        .to_string();
    let ratio = format!(
        "DrawRatio: {:.2} %",
        v["draw_ratio"].as_f64().unwrap() * 100.0
    );
    assert!(printed.contains(&ratio), "{printed} vs {ratio}");
}

#[test]
fn runs_started_together_never_share_a_default_journal() {
    let dir = tempfile::tempdir().unwrap();
    let args = two(&["-games", "6", "-quiet"]);
    let a = args.spawn_in(dir.path());
    let b = args.spawn_in(dir.path());
    let (a, b) = (a.finish(), b.finish());
    assert!(a.status.success() && b.status.success());
    let journals: Vec<std::path::PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".journal.jsonl"))
        .collect();
    assert_eq!(journals.len(), 2, "{journals:?}");
    for j in &journals {
        assert_eq!(journal_games(j).len(), 6, "{}", j.display());
        Match::command(&["sprt", &j.to_string_lossy()])
            .run_in(dir.path())
            .assert_success();
    }
    // A named journal that holds games is never appended to.
    let named = journals[0].to_string_lossy().into_owned();
    let run = args.journal(&named).run_in(dir.path());
    run.assert_exit(1);
    assert!(
        run.stderr.contains(&named) && run.stderr.contains("not empty"),
        "{}",
        run.stderr
    );
    assert_eq!(
        journal_games(&journals[0]).len(),
        6,
        "the journal is untouched"
    );
}

#[test]
fn output_paths_are_created_or_refused_before_the_first_game() {
    let dir = tempfile::tempdir().unwrap();
    let base = two(&["-games", "2", "-journal", "j.jsonl"]);
    // A missing log directory (and record directories) are created.
    base.clone()
        .args(&["-log", "-logdir", "logs/deep", "-pgn", "rec/games.pgn"])
        .run_in(dir.path())
        .assert_success();
    let log = std::fs::read_to_string(dir.path().join("logs/deep/gomoku-cli.1.log")).unwrap();
    assert!(log.contains("START"), "{log}");
    assert!(dir.path().join("rec/games.pgn").is_file());
    // A file where a directory must be: refused, named, nothing played.
    std::fs::write(dir.path().join("A"), "x").unwrap();
    for extra in [["-pgn", "A/B.pgn"], ["-logdir", "A"]] {
        let sub = tempfile::tempdir_in(dir.path()).unwrap();
        std::fs::write(sub.path().join("A"), "x").unwrap();
        let run = base.clone().arg("-log").args(&extra).run_in(sub.path());
        run.assert_exit(1)
            .assert_stderr_has("A is a file, not a directory");
        assert!(!run.stderr.contains("File exists"), "{}", run.stderr);
        assert!(run.lines_starting("Started game").is_empty());
    }
}

#[test]
fn the_final_results_block_is_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let run = random_match(
        dir.path(),
        &[
            "-games",
            "10",
            "-ratinginterval",
            "5",
            "-journal",
            "j.jsonl",
        ],
    );
    run.assert_success();
    // One block after game 5, then the final one after game 10 (not a second copy of it).
    let games = run.lines_starting("Games: ");
    assert_eq!(games.len(), 2, "{}", run.stdout);
    assert!(games[0].starts_with("Games: 5,") && games[1].starts_with("Games: 10,"));
}

#[test]
fn verbose_shows_the_runners_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let args = crashing().games(2).journal("j.jsonl");
    let quiet = args.run_in(dir.path());
    assert!(
        !quiet.stderr.contains("restarting the engine"),
        "{}",
        quiet.stderr
    );
    let dir = tempfile::tempdir().unwrap();
    args.arg("-verbose")
        .run_in(dir.path())
        .assert_success()
        .assert_stderr_has("restarting the engine before its next game")
        .assert_stderr_has("engine=faulty");
}

/// Run the runner on a pseudo-terminal (util-linux `script`), as in a user's shell, so standard
/// error is a terminal; returns everything it wrote there.
fn on_a_terminal(dir: &std::path::Path, args: &Match) -> String {
    let quoted: Vec<String> = std::iter::once(runner().to_string_lossy().into_owned())
        .chain(args.to_args())
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let out = Command::new("script")
        .args(["-qefc", &quoted.join(" "), "/dev/null"])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script (util-linux) runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn quiet_keeps_the_progress_bar_and_noprogress_hides_it() {
    let dir = tempfile::tempdir().unwrap();
    let quiet = on_a_terminal(
        dir.path(),
        &two(&["-games", "30", "-quiet", "-journal", "q.jsonl"]),
    );
    assert!(
        quiet.contains("games/min"),
        "no progress bar with -quiet:\n{quiet}"
    );
    assert!(!quiet.contains("Started game"), "{quiet}");
    let hidden = on_a_terminal(
        dir.path(),
        &two(&["-games", "30", "-noprogress", "-journal", "n.jsonl"]),
    );
    assert!(!hidden.contains("games/min"), "{hidden}");
    assert!(hidden.contains("Started game"), "{hidden}");
}

#[test]
fn wait_pauses_a_slot_between_its_games() {
    // Three games in one slot: two pauses of 300 ms, whatever the games take.
    let dir = tempfile::tempdir().unwrap();
    let since = std::time::Instant::now();
    let run = random_match(dir.path(), &["-games", "3", "-wait", "300"]);
    let took = since.elapsed();
    run.assert_success();
    assert_eq!(
        run.lines_starting("Finished game").len(),
        3,
        "{}",
        run.stdout
    );
    assert!(
        took >= std::time::Duration::from_millis(600),
        "3 games with -wait 300 took {took:?}"
    );
}

#[test]
fn ctrl_c_during_wait_stops_at_once() {
    // A slot pausing for ten minutes between games ends at Ctrl-C, the game it had taken unplayed.
    let dir = tempfile::tempdir().unwrap();
    let run = two(&["-games", "3", "-wait", "600000"])
        .journal("w.jsonl")
        .spawn_in(dir.path());
    let path = dir.path().join("w.jsonl");
    let one_game = || path.exists() && journal_games(&path).len() == 1;
    wait_until(std::time::Duration::from_secs(60), one_game);
    assert!(one_game(), "the first game was played");
    let run = run.stop_with(libc::SIGINT, std::time::Duration::from_secs(30));
    run.assert_exit(130);
    assert_eq!(journal_games(&path).len(), 1);
}
