//! End-to-end tests of shards: N shards play exactly the unsharded schedule, `merge` combines
//! them, the cluster-wide SPRT stops every shard, and SLURM's array variables choose the shard.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::*;

/// The repository's freestyle openings file.
fn openings() -> std::path::PathBuf {
    repo_root().join("openings/freestyle15.txt")
}

/// pbrain-random as A and B (and more `names`), then `games` games.
fn randoms(names: &[&str], games: u32) -> Match {
    Match::new().engines("pbrain-random", names).games(games)
}

/// Game number → (black engine, white engine, opening, transform), from journal files.
fn games_by_number(files: &[std::path::PathBuf]) -> BTreeMap<u64, (u64, u64, String, String)> {
    let mut out = BTreeMap::new();
    for f in files {
        for g in journal_games(f) {
            let key = g["game"].as_u64().unwrap();
            let value = (
                g["black_engine"].as_u64().unwrap(),
                g["white_engine"].as_u64().unwrap(),
                g["opening"].as_str().unwrap().to_string(),
                g["transform"].as_str().unwrap().to_string(),
            );
            assert!(out.insert(key, value).is_none(), "game {key} twice");
        }
    }
    out
}

fn shard_journals(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".journal.jsonl"))
        .collect();
    v.sort();
    v
}

#[test]
fn shards_together_play_exactly_the_unsharded_schedule() {
    let op = format!("file={}", openings().display());
    let three = Match::new().engines("pbrain-random", &["A", "B", "C"]);
    let layouts: [&[&str]; 3] = [
        &["-games", "4", "-rounds", "2"],
        &["-gauntlet", "-games", "5", "-repeat"],
        &[
            "-games",
            "6",
            "-repeat",
            "-transform",
            "-openings",
            &op,
            "type=pos",
            "order=random",
            "srand=11",
        ],
    ];
    for layout in layouts {
        let dir = tempfile::tempdir().unwrap();
        let this = three.clone().args(layout).quiet();
        this.clone()
            .journal("full.jsonl")
            .run_in(dir.path())
            .assert_success();
        for k in ["1/3", "2/3", "3/3"] {
            this.clone()
                .opt("-shard", k)
                .opt("-rundir", "run")
                .run_in(dir.path())
                .assert_success();
        }
        let whole = games_by_number(&[dir.path().join("full.jsonl")]);
        let parts = games_by_number(&shard_journals(&dir.path().join("run")));
        assert_eq!(whole, parts, "{layout:?}");
        // Pairs never split: with -repeat, games 2m-1 and 2m are in one shard's journal.
        if layout.contains(&"-repeat") {
            for f in shard_journals(&dir.path().join("run")) {
                let mine: Vec<u64> = journal_games(&f)
                    .iter()
                    .map(|g| g["game"].as_u64().unwrap())
                    .collect();
                for g in &mine {
                    let partner = if g % 2 == 1 { g + 1 } else { g - 1 };
                    assert!(
                        mine.contains(&partner),
                        "{layout:?}: game {g} without {partner}"
                    );
                }
            }
        }
        let merged = Match::command(&["merge", "run"]).run_in(dir.path());
        let text = &merged.assert_success().stdout;
        let n = whole.len();
        assert!(
            text.contains(&format!(
                "Merged {n} games of {n} scheduled from shards 1/3, 2/3, 3/3"
            )),
            "{text}"
        );
        assert!(text.contains("Rank"), "three engines get standings: {text}");
    }
}

/// Parses JSON as a strict reader does: an object that repeats a key is an error (serde_json's
/// `Value` would silently keep the last one).
fn strict_json(text: &str) -> Result<(), String> {
    use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
    struct Checked;
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Checked;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Checked, E> {
            Ok(Checked)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Checked, E> {
            Ok(Checked)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Checked, E> {
            Ok(Checked)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Checked, E> {
            Ok(Checked)
        }
        fn visit_str<E>(self, _: &str) -> Result<Checked, E> {
            Ok(Checked)
        }
        fn visit_unit<E>(self) -> Result<Checked, E> {
            Ok(Checked)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Checked, A::Error> {
            while s.next_element::<Checked>()?.is_some() {}
            Ok(Checked)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Checked, A::Error> {
            let mut seen = std::collections::HashSet::new();
            while let Some(k) = m.next_key::<String>()? {
                if !seen.insert(k.clone()) {
                    return Err(A::Error::custom(format!("duplicate key {k:?}")));
                }
                m.next_value::<Checked>()?;
            }
            Ok(Checked)
        }
    }
    impl<'de> Deserialize<'de> for Checked {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Checked, D::Error> {
            d.deserialize_any(V)
        }
    }
    serde_json::from_str::<Checked>(text)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn merge_equals_sprt_and_refuses_journals_of_other_runs() {
    let dir = tempfile::tempdir().unwrap();
    let base = randoms(&["A", "B"], 30)
        .repeat()
        .quiet()
        .openings_file(openings(), &["type=pos"])
        .args(&["-sprt", "elo0=0", "elo1=20"])
        .opt("-rundir", "run");
    for k in ["1/2", "2/2"] {
        base.clone()
            .opt("-shard", k)
            .run_in(dir.path())
            .assert_success();
    }
    let json = |args: &[&str]| -> serde_json::Value {
        let run = Match::command(args).run_in(dir.path());
        serde_json::from_str(&run.assert_success().stdout).unwrap()
    };
    let merged = json(&["merge", "run", "--json", "-sgf", "all.sgf"]);
    // One key each: strict JSON readers refuse a repeated key (`games` was written twice).
    let raw = Match::command(&["merge", "run", "--json"])
        .run_in(dir.path())
        .output
        .stdout;
    let raw = String::from_utf8(raw).unwrap();
    assert_eq!(strict_json(&raw), Ok(()), "{raw}");
    assert!(
        strict_json(r#"{"a":1,"a":2}"#).is_err(),
        "the check sees repeats"
    );
    // The merged records: every game once, in game order.
    let sgf = std::fs::read_to_string(dir.path().join("all.sgf")).unwrap();
    let numbers: Vec<u64> = sgf
        .split("GN[")
        .skip(1)
        .map(|s| s.split(']').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(numbers, (1..=30).collect::<Vec<_>>());
    let sprt = json(&["sprt", "--elo0", "0", "--elo1", "20", "--json", "run"]);
    assert_eq!(merged["games"], 30);
    assert_eq!(merged["llr"], sprt["llr"]);
    assert_eq!(merged["verdict"], sprt["verdict"]);
    assert_eq!(merged["counts"], sprt["counts"]);
    // A journal of another run is refused.
    randoms(&["A", "B"], 2)
        .quiet()
        .journal("other.jsonl")
        .run_in(dir.path())
        .assert_success();
    Match::command(&["merge", "run", "other.jsonl"])
        .run_in(dir.path())
        .assert_exit(1)
        .assert_stderr_has("different configurations");
}

#[test]
fn the_cluster_wide_sprt_stops_every_shard_and_late_shards_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let base = randoms(&["A", "B"], 20000)
        .repeat()
        .quiet()
        .noprogress()
        .openings_file(openings(), &["type=pos", "order=random", "srand=5"])
        .args(&["-sprt", "elo0=0", "elo1=30", "alpha=0.001"])
        .opt("-rundir", "run")
        .opt("-syncinterval", 0.05);
    let shards: Vec<Tagged> = ["1/4", "2/4", "3/4"]
        .iter()
        .map(|k| base.clone().opt("-shard", k).spawn_in(dir.path()))
        .collect();
    let outputs: Vec<std::process::Output> = shards.into_iter().map(|s| s.finish()).collect();
    let codes: Vec<Option<i32>> = outputs.iter().map(|o| o.status.code()).collect();
    let marker: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("run/sprt-stop.json")).unwrap(),
    )
    .unwrap();
    let want = if marker["verdict"] == "H0" { 3 } else { 0 };
    assert!(
        codes.iter().all(|c| *c == Some(want)),
        "{codes:?} vs {marker}"
    );
    // Every shard that played reports the marker's crossing, the deciding shard's view.
    for o in &outputs {
        let out = String::from_utf8_lossy(&o.stdout);
        if out.contains("Results of") {
            assert!(
                out.contains(&format!("SPRT: {}", marker_crossing(&marker))),
                "{out}\nmarker: {marker}"
            );
        }
    }
    // After the marker was written, each shard started at most its one game in flight.
    let written =
        chrono::DateTime::parse_from_rfc3339(marker["written"].as_str().unwrap()).unwrap();
    for f in shard_journals(&dir.path().join("run")) {
        let late = journal_games(&f)
            .iter()
            .filter(|g| {
                chrono::DateTime::parse_from_rfc3339(g["started"].as_str().unwrap()).unwrap()
                    > written
            })
            .count();
        assert!(
            late <= 1,
            "{}: {late} games started after the stop",
            f.display()
        );
    }
    // A shard started after the stop ends at once with the verdict.
    let run = base.opt("-shard", "4/4").run_in(dir.path());
    run.assert_exit(want);
    let verdict = format!("{}, decided by shard", marker_crossing(&marker));
    assert!(run.stdout.contains(&verdict), "{}", run.stdout);
    assert!(journal_games(&dir.path().join("run/shard-4-of-4.journal.jsonl")).is_empty());
}

#[test]
fn slurm_array_variables_choose_the_shard_and_its_seed() {
    let dir = tempfile::tempdir().unwrap();
    let args = randoms(&["A", "B"], 6)
        .quiet()
        .openings_file(openings(), &["type=pos", "order=random"])
        .opt("-rundir", "run");
    let out = Command::new(runner())
        .current_dir(dir.path())
        .args(args.to_args())
        .env("SLURM_ARRAY_JOB_ID", "4242")
        .env("SLURM_ARRAY_TASK_ID", "5")
        .env("SLURM_ARRAY_TASK_MIN", "4")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .output()
        .unwrap();
    assert_ok(&out, "gomoku-cli");
    let games = journal_games(&dir.path().join("run/shard-2-of-3.journal.jsonl"));
    assert_eq!(
        games
            .iter()
            .map(|g| g["game"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![2, 5]
    );
    // By hand, a random order needs a seed all shards share.
    args.opt("-shard", "1/2")
        .run_in(dir.path())
        .assert_exit(1)
        .assert_stderr_has("shards must share one seed");
}

/// `SPRT: <verdict> accepted after <games> games (at game <game>, LLR <llr>)` of a stop marker.
fn marker_crossing(marker: &serde_json::Value) -> String {
    format!(
        "{} accepted after {} games (at game {}, LLR {:.2})",
        marker["verdict"].as_str().unwrap(),
        marker["games"],
        marker["game"],
        marker["llr"].as_f64().unwrap()
    )
}

#[test]
fn every_shard_reports_the_stop_markers_verdict_not_its_own_crossing() {
    let dir = tempfile::tempdir().unwrap();
    let args = scout_vs_random_match("freestyle15.txt")
        .games(400)
        .args(&["-sprt", "elo0=0", "elo1=20"])
        .opt("-rundir", "run")
        .opt("-shard", "1/2");
    // Shard 1 alone: its own games decide, and it writes the marker with its crossing.
    let first = args.run_in(dir.path());
    first.assert_success();
    let path = dir.path().join("run/sprt-stop.json");
    let own: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(own["shard"], "1/2");
    assert!(
        first.stdout.contains(&marker_crossing(&own)),
        "{}",
        first.stdout
    );
    // As if shard 2 had decided first, at another point: the run's verdict is the marker's.
    let mut other = own.clone();
    other["games"] = (own["games"].as_u64().unwrap() + 3).into();
    other["game"] = (own["game"].as_u64().unwrap() + 7).into();
    other["llr"] = 2.97.into();
    other["shard"] = "2/2".into();
    std::fs::write(&path, other.to_string()).unwrap();
    // Shard 1 resumed: its journal holds its own crossing, but it reports the marker's.
    let again = args.resume().run_in(dir.path());
    again.assert_success();
    let want = marker_crossing(&other);
    assert!(
        again.stdout.contains(&format!("SPRT: {want}")),
        "{}",
        again.stdout
    );
    assert!(
        !again.stdout.contains(&marker_crossing(&own)),
        "{}",
        again.stdout
    );
    // merge says the same.
    let merged = Match::command(&["merge", "run"]).run_in(dir.path());
    assert!(merged.stdout.contains(&format!("SPRT: {want}")));
}
