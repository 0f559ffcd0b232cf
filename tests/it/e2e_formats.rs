//! End-to-end tests of `-tournament knockout` and `-tournament swiss`: each plays from the command
//! line to its end with the bundled engines (and with Rapfi and figrid when present), a run killed
//! with SIGKILL and resumed, or split into shards, plays the games an uninterrupted run plays, and
//! bad settings are refused as the other configuration errors are.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::*;

/// Five deterministic engines (depth-limited scouts and first-empty random movers): a game's
/// moves follow from its opening and colours alone, so two runs of one command line play the
/// same games, and the results differ enough between engines for the rounds to matter.
fn field() -> Match {
    Match::new()
        .engine("pbrain-scout --depth 1", &["name=s1"])
        .engine("pbrain-scout --depth 2", &["name=s2"])
        .engine("pbrain-random --first-empty", &["name=f1"])
        .engine("pbrain-scout --depth 3", &["name=s3"])
        .engine("pbrain-random --first-empty", &["name=f2"])
        .each(&["tc=0/5"])
        .openings_file(repo_root().join("openings/freestyle15.txt"), &["type=pos"])
        .games(2)
        .repeat()
        .quiet()
        .noprogress()
}

fn knockout() -> Match {
    field().args(&["-tournament", "knockout", "-seeds", "2", "-srand", "3"])
}

fn swiss() -> Match {
    field().args(&["-tournament", "swiss"]).rounds(3)
}

/// Game number → (round, black engine, white engine, result, moves), from journal files.
type Played = BTreeMap<u64, (u64, u64, u64, String, String)>;

fn played(files: &[PathBuf]) -> Played {
    let mut out = BTreeMap::new();
    for f in files {
        for g in journal_games(f) {
            let n = g["game"].as_u64().unwrap();
            let row = (
                g["round"].as_u64().unwrap(),
                g["black_engine"].as_u64().unwrap(),
                g["white_engine"].as_u64().unwrap(),
                g["result"].as_str().unwrap().to_string(),
                g["moves"].as_str().unwrap().to_string(),
            );
            assert!(out.insert(n, row).is_none(), "game {n} twice");
        }
    }
    out
}

/// Each engine on one board a round, and each pair of engines on one board in the whole run.
fn assert_rounds_consistent(games: &Played) {
    let mut seat: BTreeMap<(u64, u64), BTreeSet<u64>> = BTreeMap::new();
    let mut met: BTreeMap<(u64, u64), BTreeSet<u64>> = BTreeMap::new();
    for (round, black, white, _, _) in games.values() {
        let pair = ((*black).min(*white), (*black).max(*white));
        met.entry(pair).or_default().insert(*round);
        for e in [black, white] {
            seat.entry((*round, *e))
                .or_default()
                .insert(pair.0 * 100 + pair.1);
        }
    }
    assert!(met.values().all(|r| r.len() == 1), "a rematch: {met:?}");
    assert!(
        seat.values().all(|p| p.len() == 1),
        "twice in a round: {seat:?}"
    );
}

#[test]
fn a_knockout_plays_its_bracket_to_the_final() {
    let dir = tempfile::tempdir().unwrap();
    let run = knockout()
        .concurrency(3)
        .journal("j.jsonl")
        .report("r.html")
        .run_in(dir.path());
    run.assert_success()
        .assert_stdout_has("Knockout: 5 engines in a bracket of 8")
        .assert_stdout_has("Quarter-finals\n  [1] s1")
        .assert_stdout_has("Final\n")
        .assert_stdout_has("Winner: ");
    let games = played(&[dir.path().join("j.jsonl")]);
    assert_rounds_consistent(&games);
    // 5 engines: 4 matches (one in the first round, three byes), then 2, then the final.
    let rounds: BTreeSet<u64> = games.values().map(|g| g.0).collect();
    assert_eq!(rounds, [1, 2, 3].into());
    let matches: BTreeSet<(u64, u64)> = games
        .values()
        .map(|g| (g.1.min(g.2), g.1.max(g.2)))
        .collect();
    assert_eq!(matches.len(), 4, "{matches:?}");
    let page = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(page.contains("<section id=\"bracket\">"));
    assert!(page.contains("complete: "));
}

#[test]
fn a_swiss_plays_its_rounds_without_rematches() {
    let dir = tempfile::tempdir().unwrap();
    let run = swiss().concurrency(3).journal("j.jsonl").run_in(dir.path());
    run.assert_success()
        .assert_stdout_has("Round 3\n")
        .assert_stdout_has("Swiss standings:")
        .assert_stdout_has("Winner: ");
    let games = played(&[dir.path().join("j.jsonl")]);
    assert_rounds_consistent(&games);
    // Three rounds of two boards (one engine sits out), two games each.
    assert_eq!(games.len(), 3 * 2 * 2);
    // Each engine sits out once at most.
    let stdout = &run.stdout;
    assert_eq!(stdout.matches("  bye").count(), 3, "{stdout}");
}

/// Kill the run `cmd` with SIGKILL after each of `moments`, resume it, and return its games
/// and how many the first kill left in the journal. Each slot pauses 100 ms between games
/// (`-wait`, not part of the run: a resume may change it), so a run of three rounds or more
/// lasts 300 ms at least and the first kill lands in it.
fn killed_and_resumed(cmd: &Match, dir: &Path, moments: &[u64]) -> (Played, usize) {
    let cmd = cmd.clone().concurrency(3).journal("j.jsonl");
    let mut first_cut = 0;
    for (i, ms) in moments.iter().enumerate() {
        let run = match i {
            0 => cmd.clone().opt("-wait", 100),
            _ => cmd.clone().opt("-wait", 100).resume(),
        }
        .spawn_in(dir);
        std::thread::sleep(Duration::from_millis(*ms));
        run.signal(libc::SIGKILL);
        let _ = run.finish();
        if i == 0 {
            first_cut = journal_games(&dir.join("j.jsonl")).len();
        }
    }
    cmd.resume().run_in(dir).assert_success();
    (played(&[dir.join("j.jsonl")]), first_cut)
}

#[test]
fn kill_9_and_resume_play_the_games_of_an_uninterrupted_run() {
    for cmd in [knockout(), swiss()] {
        let whole = tempfile::tempdir().unwrap();
        cmd.clone()
            .concurrency(3)
            .journal("j.jsonl")
            .run_in(whole.path())
            .assert_success();
        let want = played(&[whole.path().join("j.jsonl")]);
        let cut = tempfile::tempdir().unwrap();
        let (got, first_cut) = killed_and_resumed(&cmd, cut.path(), &[250, 150, 200]);
        assert!(first_cut < want.len(), "the first kill came after the end");
        assert_eq!(got, want, "{:?}", cmd.to_args());
    }
}

#[test]
fn shards_of_a_knockout_and_a_swiss_play_the_unsharded_games() {
    for cmd in [knockout(), swiss()] {
        let dir = tempfile::tempdir().unwrap();
        cmd.clone()
            .journal("full.jsonl")
            .run_in(dir.path())
            .assert_success();
        let want = played(&[dir.path().join("full.jsonl")]);
        // Both shards at once: each waits for the other's games of a round before the next.
        let shards: Vec<_> = ["1/2", "2/2"]
            .into_iter()
            .map(|k| {
                cmd.clone()
                    .opt("-shard", k)
                    .opt("-rundir", "run")
                    .opt("-syncinterval", "0.05")
                    .journal("run/j.jsonl")
                    .spawn_in(dir.path())
            })
            .collect();
        for s in shards {
            let out = s.finish();
            assert_ok(&out, "a shard");
        }
        let files: Vec<PathBuf> = ["shard-1-of-2", "shard-2-of-2"]
            .iter()
            .map(|t| dir.path().join(format!("run/{t}.journal.jsonl")))
            .collect();
        assert_eq!(played(&files), want, "{:?}", cmd.to_args());
    }
}

#[test]
fn bad_formats_are_refused_as_other_configuration_errors() {
    let dir = tempfile::tempdir().unwrap();
    let other = field().games(0).run_in(dir.path());
    let code = other.code();
    assert_ne!(code, Some(0));
    for (args, says) in [
        (
            &["-tournament", "ladder"][..],
            "expected roundrobin, gauntlet, knockout, swiss or groups",
        ),
        (
            &["-tournament", "knockout", "-seeds", "6"],
            "more seeds than the 5 engines",
        ),
        (
            &["-tournament", "swiss", "-rounds", "6"],
            "a Swiss of 5 engines has at most 5 rounds",
        ),
        (
            &["-tournament", "knockout", "-rounds", "2"],
            "leave -rounds out",
        ),
        (
            &["-gauntlet", "-tournament", "swiss"],
            "-gauntlet asks for a gauntlet",
        ),
    ] {
        let run = field().args(args).run_in(dir.path());
        assert_eq!(run.code(), code, "{args:?}: {}", run.stderr);
        run.assert_stderr_has(says);
    }
}

/// Rapfi's path: `PBRAIN_RAPFI`, else the lead's build; `None` after saying why the test skips.
fn rapfi() -> Option<PathBuf> {
    let p = std::env::var_os("PBRAIN_RAPFI")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/scratch/rapfi-build/pbrain-rapfi"));
    if p.is_file() {
        return Some(p);
    }
    println!("skipping: no Rapfi at {} (set PBRAIN_RAPFI)", p.display());
    None
}

#[test]
fn rapfi_and_figrid_play_a_knockout_and_a_swiss() {
    let (Some(rapfi), Some(figrid)) = (rapfi(), figrid()) else {
        return;
    };
    let real = || {
        Match::new()
            .engine_cmd(&rapfi.to_string_lossy(), &["name=rapfi"])
            .engine_cmd(&figrid.to_string_lossy(), &["name=figrid"])
            .engine("pbrain-scout", &["name=scout"])
            .engine("pbrain-random", &["name=random"])
            .each(&["tc=0/0.3"])
            .openings_file(repo_root().join("openings/freestyle15.txt"), &["type=pos"])
            .repeat()
            .games(2)
            .concurrency(2)
            .quiet()
            .noprogress()
    };
    for (args, says) in [
        (&["-tournament", "knockout", "-seeds", "2"][..], "Winner: "),
        (
            &["-tournament", "swiss", "-rounds", "3"],
            "Swiss standings:",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let run = real().args(args).journal("j.jsonl").run_in(dir.path());
        run.assert_success().assert_stdout_has(says);
        println!("{}", run.stdout);
        assert_rounds_consistent(&played(&[dir.path().join("j.jsonl")]));
    }
}
