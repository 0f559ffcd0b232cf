//! End-to-end tests of shards: N shards play exactly the unsharded schedule, `merge` combines
//! them, the cluster-wide SPRT stops every shard, and SLURM's array variables choose the shard.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::*;

fn random() -> String {
    format!("cmd={}", engine("pbrain-random"))
}

fn openings() -> String {
    format!(
        "file={}",
        repo_root().join("openings/freestyle15.txt").display()
    )
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
    let (r, op) = (random(), openings());
    let three = [
        "-engine", &r, "name=A", "-engine", &r, "name=B", "-engine", &r, "name=C",
    ];
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
        let mut full = three.to_vec();
        full.extend_from_slice(layout);
        full.extend(["-quiet", "-journal", "full.jsonl"]);
        assert_eq!(run_in(dir.path(), &full).code(), Some(0));
        for k in ["1/3", "2/3", "3/3"] {
            let mut shard = three.to_vec();
            shard.extend_from_slice(layout);
            shard.extend(["-quiet", "-shard", k, "-rundir", "run"]);
            let run = run_in(dir.path(), &shard);
            assert_eq!(run.code(), Some(0), "{layout:?} {k}: {}", run.stderr);
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
        let out = Command::new(runner())
            .current_dir(dir.path())
            .args(["merge", "run"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
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
    let (r, op) = (random(), openings());
    let base = [
        "-engine",
        &r,
        "name=A",
        "-engine",
        &r,
        "name=B",
        "-games",
        "30",
        "-repeat",
        "-quiet",
        "-openings",
        &op,
        "type=pos",
        "-sprt",
        "elo0=0",
        "elo1=20",
        "-rundir",
        "run",
    ];
    for k in ["1/2", "2/2"] {
        let mut a = base.to_vec();
        a.extend(["-shard", k]);
        assert_eq!(run_in(dir.path(), &a).code(), Some(0));
    }
    let json = |args: &[&str]| -> serde_json::Value {
        let out = Command::new(runner())
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let merged = json(&["merge", "run", "--json", "-sgf", "all.sgf"]);
    // One key each: strict JSON readers refuse a repeated key (`games` was written twice).
    let raw = Command::new(runner())
        .current_dir(dir.path())
        .args(["merge", "run", "--json"])
        .output()
        .unwrap();
    let raw = String::from_utf8(raw.stdout).unwrap();
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
    let other = [
        "-engine",
        &r,
        "name=A",
        "-engine",
        &r,
        "name=B",
        "-games",
        "2",
        "-quiet",
        "-journal",
        "other.jsonl",
    ];
    assert_eq!(run_in(dir.path(), &other).code(), Some(0));
    let out = Command::new(runner())
        .current_dir(dir.path())
        .args(["merge", "run", "other.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("different configurations"));
}

#[test]
fn the_cluster_wide_sprt_stops_every_shard_and_late_shards_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (r, op) = (random(), openings());
    let base = [
        "-engine",
        &r,
        "name=A",
        "-engine",
        &r,
        "name=B",
        "-games",
        "20000",
        "-repeat",
        "-quiet",
        "-noprogress",
        "-openings",
        &op,
        "type=pos",
        "order=random",
        "srand=5",
        "-sprt",
        "elo0=0",
        "elo1=30",
        "alpha=0.001",
        "-rundir",
        "run",
        "-syncinterval",
        "0.05",
    ];
    let shards: Vec<Tagged> = ["1/4", "2/4", "3/4"]
        .iter()
        .map(|k| {
            let mut a = base.to_vec();
            a.extend(["-shard", k]);
            spawn_tagged(dir.path(), &a)
        })
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
    let mut a = base.to_vec();
    a.extend(["-shard", "4/4"]);
    let run = run_in(dir.path(), &a);
    assert_eq!(run.code(), Some(want), "{}", run.stderr);
    let verdict = format!("{}, decided by shard", marker_crossing(&marker));
    assert!(run.stdout.contains(&verdict), "{}", run.stdout);
    assert!(journal_games(&dir.path().join("run/shard-4-of-4.journal.jsonl")).is_empty());
}

#[test]
fn slurm_array_variables_choose_the_shard_and_its_seed() {
    let dir = tempfile::tempdir().unwrap();
    let (r, op) = (random(), openings());
    let args = [
        "-engine",
        &r,
        "name=A",
        "-engine",
        &r,
        "name=B",
        "-games",
        "6",
        "-quiet",
        "-openings",
        &op,
        "type=pos",
        "order=random",
        "-rundir",
        "run",
    ];
    let out = Command::new(runner())
        .current_dir(dir.path())
        .args(args)
        .env("SLURM_ARRAY_JOB_ID", "4242")
        .env("SLURM_ARRAY_TASK_ID", "5")
        .env("SLURM_ARRAY_TASK_MIN", "4")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let games = journal_games(&dir.path().join("run/shard-2-of-3.journal.jsonl"));
    assert_eq!(
        games
            .iter()
            .map(|g| g["game"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![2, 5]
    );
    // By hand, a random order needs a seed all shards share.
    let mut by_hand = args.to_vec();
    by_hand.extend(["-shard", "1/2"]);
    let run = run_in(dir.path(), &by_hand);
    assert_eq!(run.code(), Some(1));
    assert!(
        run.stderr.contains("shards must share one seed"),
        "{}",
        run.stderr
    );
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
    let mut args = scout_vs_random(
        "freestyle15.txt",
        &[
            "-games", "400", "-sprt", "elo0=0", "elo1=20", "-rundir", "run", "-shard", "1/2",
        ],
    );
    // Shard 1 alone: its own games decide, and it writes the marker with its crossing.
    let first = run_in(dir.path(), &strs(&args));
    assert_eq!(first.code(), Some(0), "{}\n{}", first.stdout, first.stderr);
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
    args.push("-resume".into());
    let again = run_in(dir.path(), &strs(&args));
    assert_eq!(again.code(), Some(0), "{}\n{}", again.stdout, again.stderr);
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
    let merged = Command::new(runner())
        .current_dir(dir.path())
        .args(["merge", "run"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&merged.stdout).contains(&format!("SPRT: {want}")));
}
