//! End-to-end tests of `-tournament groups` (Gomocup's league) with the bundled engines: the
//! pairs out of the rating gap play no game, a run killed with `kill -9` resumes into the journal
//! an uninterrupted run writes, the promoted engines are printed, shown in the report and written
//! as an engines file the next group's run reads, and bad settings are refused before any game.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use common::*;

/// Last year's list, as `gomoku-cli ratings` prints it: `New` is not in it (unrated: it meets
/// everyone); S1-R2 are exactly 400 apart, so they do not meet (GomocupJudge's `>=`).
const RATINGS: &str = "Rank Name Elo + - games score oppo. draws\n\
   1 S3 2000 40 40 100 80% 1600 0%\n\
   2 S2 1800 40 40 100 70% 1600 0%\n\
   3 S1 1650 40 40 100 60% 1600 0%\n\
   4 R1 1300 40 40 100 30% 1600 0%\n\
   5 R2 1250 40 40 100 20% 1600 0%\n\
\n\
advantage 0, drawelo 0.01: 250 games, 5 players\n";

/// The pairs (by name, in engine order) that the gap keeps apart.
const OUT_OF_GAP: [(&str, &str); 5] = [
    ("S3", "R1"),
    ("S3", "R2"),
    ("S2", "R1"),
    ("S2", "R2"),
    ("S1", "R2"),
];

/// A league of six engines: pbrain-scout at depths 3, 2 and 1, pbrain-random twice and an
/// unrated pbrain-random, each opening with both colours, four rounds.
fn league(dir: &Path) -> Match {
    std::fs::write(dir.join("last.txt"), RATINGS).unwrap();
    Match::new()
        .engine("pbrain-scout", &["name=S3", "depth=3"])
        .engine("pbrain-scout", &["name=S2", "depth=2"])
        .engine("pbrain-scout", &["name=S1", "depth=1"])
        .engine("pbrain-random --seed 1", &["name=R1"])
        .engine("pbrain-random --seed 2", &["name=R2"])
        .engine("pbrain-random --seed 3", &["name=New"])
        .each(&["tc=0/5"])
        .args(&[
            "-tournament",
            "groups",
            "-groups",
            "ratings=last.txt",
            "promote=2",
        ])
        .games(2)
        .repeat()
        .rounds(4)
        .concurrency(3)
        .noprogress()
        .journal("j.jsonl")
        .openings_file(repo_root().join("openings/freestyle15.txt"), &["type=pos"])
}

/// The journal's games as (game number, black, white), sorted by number.
fn pairings(path: &Path) -> Vec<(u64, String, String)> {
    let mut games: Vec<(u64, String, String)> = journal_games(path)
        .iter()
        .map(|g| {
            let name = |k: &str| g[k].as_str().unwrap().to_string();
            (g["game"].as_u64().unwrap(), name("black"), name("white"))
        })
        .collect();
    games.sort();
    games
}

#[test]
fn a_league_plays_only_the_pairs_within_the_gap_resumes_exactly_and_promotes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("next.json");
    let run = league(dir.path()).args(&["-groups", "promoted=next.json", "-report", "r.html"]);
    // -groups given twice: the parser keeps the last one, so say it once.
    let run = Match::command(&dedup_groups(&run.to_args()));
    let done = run
        .clone()
        .run_in(dir.path())
        .assert_success()
        .stdout
        .clone();
    // 15 pairs less the 5 out of the gap, 4 rounds x 2 games each.
    let full = pairings(&dir.path().join("j.jsonl"));
    assert_eq!(full.len(), 10 * 4 * 2, "{done}");
    assert_eq!(
        full.iter().map(|g| g.0).collect::<Vec<_>>(),
        (1..=80).collect::<Vec<_>>()
    );
    let met: BTreeSet<(String, String)> = full
        .iter()
        .map(|(_, b, w)| (b.clone().min(w.clone()), b.clone().max(w.clone())))
        .collect();
    for (a, b) in OUT_OF_GAP {
        let key = (a.min(b).to_string(), a.max(b).to_string());
        assert!(!met.contains(&key), "{a} and {b} played: {met:?}");
    }
    assert!(
        met.contains(&("New".to_string(), "S3".to_string())),
        "the unrated engine meets everyone"
    );
    assert!(
        met.contains(&("R1".to_string(), "S1".to_string())),
        "350 apart: within the gap"
    );
    // The promotion after the standings, the file, the report.
    let line = done
        .lines()
        .find(|l| l.starts_with("Promoted (the top 2"))
        .unwrap_or_else(|| panic!("{done}"));
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let names: Vec<&str> = file
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2);
    assert!(
        line.contains(&format!("1. {} (", names[0]))
            && line.contains(&format!("2. {} (", names[1])),
        "{line} {names:?}"
    );
    assert!(
        file[0]["command"].as_str().unwrap().contains("pbrain-"),
        "{file}"
    );
    assert_eq!(
        file[0]["tc"], "0/5",
        "-each's keys are the engine's: {file}"
    );
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(
        html.contains("<table id=\"league\">") && html.contains("The top 2 are promoted"),
        "the report shows the league"
    );
    assert!(
        html.contains("S1 – R2"),
        "the report names the pairs out of the gap"
    );

    // Killed at moments spread over the run and resumed: the same games, each once.
    let again = tempfile::tempdir().unwrap();
    let killed = Match::command(&dedup_groups(&league(again.path()).to_args()));
    let journal = again.path().join("j.jsonl");
    for i in 0..3 {
        let r = if i > 0 {
            killed.clone().resume()
        } else {
            killed.clone()
        }
        .spawn_in(again.path());
        // Killed once a few more games are in the journal: in the middle of the run.
        let before = journal_games(&journal).len();
        wait_until(Duration::from_secs(30), || {
            journal_games(&journal).len() >= before + 4
        });
        r.signal(libc::SIGKILL);
        let _ = r.finish();
        let after = journal_games(&journal).len();
        assert!(
            after > before && after < full.len(),
            "killed after {after} games"
        );
    }
    killed
        .resume()
        .run_in(again.path())
        .assert_success()
        .assert_stdout_has("Promoted (the top 2");
    assert_eq!(pairings(&again.path().join("j.jsonl")), full);

    // The next group: the promoted engines from the file, with two of its own.
    let next = Match::new()
        .args(&["-engines", "next.json"])
        .args(&[
            "-engine",
            &format!("conf={}", names[0]),
            "-engine",
            &format!("conf={}", names[1]),
        ])
        .engine("pbrain-random --seed 4", &["name=Top"])
        .args(&[
            "-tournament",
            "groups",
            "-groups",
            "ratings=last.txt",
            "promote=1",
        ])
        .games(2)
        .repeat()
        .noprogress()
        .journal("next.jsonl");
    let text = next.run_in(dir.path()).assert_success().stdout.clone();
    assert!(text.contains("Promoted (the top 1"), "{text}");
    assert_eq!(
        journal_games(&dir.path().join("next.jsonl")).len(),
        3 * 2,
        "{text}"
    );
    // Ratings fitted from the first group's journal, or read from `ratings --json` of it: the
    // same whole-Elo ratings in the header.
    let json = Match::command(&["ratings", "j.jsonl", "--json"]).run_in(dir.path());
    std::fs::write(dir.path().join("r.json"), &json.assert_success().stdout).unwrap();
    let list: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let elo = |name: &str| {
        let players = list["players"].as_array().unwrap();
        let p = players.iter().find(|p| p["name"] == name).unwrap();
        p["elo"].as_f64().unwrap().round() as i64
    };
    for (from, journal) in [("j.jsonl", "fit.jsonl"), ("r.json", "json.jsonl")] {
        let run = Match::new()
            .engine("pbrain-scout", &["name=S3", "depth=3"])
            .engine("pbrain-random --seed 1", &["name=R1"])
            .engine("pbrain-random --seed 5", &["name=Other"])
            .args(&[
                "-tournament",
                "groups",
                "-groups",
                &format!("ratings={from}"),
                "gap=10000",
            ])
            .noprogress()
            .journal(journal)
            .run_in(dir.path());
        run.assert_success();
        let header: serde_json::Value = serde_json::from_str(
            std::fs::read_to_string(dir.path().join(journal))
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        let want = serde_json::json!([elo("S3"), elo("R1"), null]);
        assert_eq!(header["settings"]["groups"]["ratings"], want, "{from}");
    }
    // A resume with other ratings is another run: refused.
    std::fs::write(
        dir.path().join("last.txt"),
        RATINGS.replace("S2 1800", "S2 1700"),
    )
    .unwrap();
    let e = run.resume().run_in(dir.path());
    assert_eq!(e.code(), Some(1), "{}", e.stderr);
    assert!(
        e.stderr
            .contains("groups.ratings[1]: 1800 in the journal, 1700 now"),
        "{}",
        e.stderr
    );
}

/// The words with the `-groups` settings gathered into one `-groups` (the last of each key).
fn dedup_groups(args: &[String]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let mut keys: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if args[i] == "-groups" {
            i += 1;
            while i < args.len() && !args[i].starts_with('-') {
                let key = |w: &str| w.split('=').next().unwrap_or_default().to_string();
                keys.retain(|k| key(k) != key(&args[i]));
                keys.push(&args[i]);
                i += 1;
            }
            continue;
        }
        out.push(&args[i]);
        i += 1;
    }
    out.push("-groups");
    out.extend(keys);
    out
}

#[test]
fn bad_league_settings_stop_the_run_before_any_game_naming_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let base = league(dir.path());
    let refused = |extra: &[&str], needle: &str| {
        let m = Match::command(&dedup_groups(&base.clone().args(extra).to_args()));
        let r = m.run_in(dir.path());
        assert_eq!(r.code(), Some(1), "{extra:?}: {}", r.stderr);
        assert!(r.stderr.contains(needle), "{extra:?}: {}", r.stderr);
        assert!(!dir.path().join("j.jsonl").exists(), "no game was played");
    };
    refused(
        &["-groups", "gap=-400"],
        "-groups: \"gap=-400\" is not valid",
    );
    refused(
        &["-groups", "gap=four"],
        "-groups: \"gap=four\" is not valid",
    );
    refused(
        &["-groups", "promote=7"],
        "promote=7: more than the 6 engines",
    );
    std::fs::write(dir.path().join("bad.txt"), RATINGS.replace("1650", "16x0")).unwrap();
    refused(
        &["-groups", "ratings=bad.txt"],
        "ratings=bad.txt: bad.txt:4: \"16x0\" is not a number",
    );
    std::fs::write(
        dir.path().join("twice.txt"),
        RATINGS.replace("R2 1250", "S1 1250"),
    )
    .unwrap();
    refused(
        &["-groups", "ratings=twice.txt"],
        "twice.txt:6: \"S1\" is listed twice (also on line 4)",
    );
    // No output over an input: the promotion over the ratings, the journal, the openings.
    refused(&["-groups", "promoted=last.txt"], "last.txt");
    refused(&["-groups", "promoted=j.jsonl"], "j.jsonl");
    let book = repo_root()
        .join("openings/freestyle15.txt")
        .display()
        .to_string();
    refused(&["-groups", &format!("promoted={book}")], "freestyle15.txt");
}
