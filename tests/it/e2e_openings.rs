//! `gomoku-cli openings`: `canonical` over files with rotated duplicates (deduplicated, counted,
//! ready for `-openings`), `audit` over a real run of the bundled engines (its counts add up to
//! the journal's games, also from a run directory, and the HTML report has its table), and what
//! bad input gives.

use crate::common;

use std::path::Path;

use common::{scout_vs_random_match, Match, Run};

fn openings(dir: &Path, args: &[&str]) -> Run {
    Match::command(&["openings"]).args(args).run_in(dir)
}

#[test]
fn canonical_removes_rotated_duplicates_and_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    // h8i9 and its quarter turn (on 15x15: (x,y) -> (y, 14-x)): h8 = (7,7) -> (7,7), i9 = (8,8)
    // -> (8,6) = i7; h8h9 and its mirror image h8h7; then a new one.
    std::fs::write(
        dir.path().join("in.txt"),
        "h8i9\nh8i7\n\nh8h9\nh8h7\ng7h8i9\n",
    )
    .unwrap();
    let run = openings(
        dir.path(),
        &[
            "canonical",
            "in.txt",
            "type=pos",
            "-o",
            "out.txt",
            "--counts",
            "counts.tsv",
        ],
    );
    run.assert_success()
        .assert_stderr_has("read 5, unique 3, duplicates removed 2");
    let out = std::fs::read_to_string(dir.path().join("out.txt")).unwrap();
    assert_eq!(out.lines().count(), 3, "{out}");
    let counts = std::fs::read_to_string(dir.path().join("counts.tsv")).unwrap();
    let firsts: Vec<(&str, &str)> = counts
        .lines()
        .map(|l| {
            let mut f = l.split('\t');
            (f.next().unwrap(), f.next().unwrap())
        })
        .collect();
    assert_eq!(firsts, [("2", "1"), ("2", "4"), ("1", "6")], "{counts}");
    // The output is canonical already: rewriting it changes nothing.
    let again = openings(dir.path(), &["canonical", "out.txt", "type=pos"]);
    again
        .assert_success()
        .assert_stderr_has("read 3, unique 3, duplicates removed 0");
    assert_eq!(again.stdout, out);
}

#[test]
fn canonical_keeps_the_offset_format() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("in.txt"),
        "0,0, 1,1\n0,0, -1,-1\n0,0, 1,-1\n",
    )
    .unwrap();
    let run = openings(dir.path(), &["canonical", "in.txt"]);
    run.assert_success()
        .assert_stderr_has("read 3, unique 1, duplicates removed 2");
    assert_eq!(run.stdout.lines().count(), 1);
    assert!(run.stdout.starts_with("0,0, "), "{}", run.stdout);
}

#[test]
fn canonical_names_the_bad_line_and_refuses_bad_options() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.txt"), "h8i9\nh8\nh8zz\n").unwrap();
    openings(dir.path(), &["canonical", "in.txt", "type=pos"])
        .assert_exit(1)
        .assert_stderr_has("in.txt:3")
        .assert_stderr_has("h8zz");
    openings(dir.path(), &["canonical", "in.txt", "type=psq"]).assert_exit(2);
    openings(dir.path(), &["canonical", "in.txt", "kind=pos"]).assert_exit(2);
    openings(dir.path(), &["canonical", "missing.txt", "type=pos"])
        .assert_exit(1)
        .assert_stderr_has("missing.txt");
}

#[test]
fn audit_counts_add_up_to_the_journals_games() {
    let dir = tempfile::tempdir().unwrap();
    let run = scout_vs_random_match("freestyle15.txt")
        .rule(0)
        .games(12)
        .journal("run/a.journal.jsonl")
        .run_in(dir.path());
    run.assert_success();
    let games = run.journal("run/a.journal.jsonl");
    assert_eq!(games.len(), 12);
    for target in ["run/a.journal.jsonl", "run"] {
        let audit = openings(dir.path(), &["audit", target, "--json"]);
        audit.assert_success();
        let v: serde_json::Value = serde_json::from_str(&audit.stdout).unwrap();
        let list = v["openings"].as_array().unwrap();
        let sum = |f: &dyn Fn(&serde_json::Value) -> u64| list.iter().map(f).sum::<u64>();
        assert_eq!(v["games"].as_u64(), Some(12), "{v}");
        assert_eq!(sum(&|o| o["games"].as_u64().unwrap()), 12);
        // -repeat: every pair shares its opening with colours reversed.
        assert_eq!(v["pairs"].as_u64(), Some(6), "{v}");
        for o in list {
            let games = o["games"].as_u64().unwrap();
            let results = ["black_wins", "white_wins", "draws"].map(|k| o[k].as_u64().unwrap());
            assert_eq!(results.iter().sum::<u64>(), games, "{o}");
            let ends: u64 = o["terminations"]
                .as_object()
                .unwrap()
                .values()
                .map(|n| n.as_u64().unwrap())
                .sum();
            assert_eq!(ends, games, "{o}");
            let ptnml: u64 = o["pentanomial"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_u64().unwrap())
                .sum();
            assert_eq!(ptnml, o["pairs"].as_u64().unwrap(), "{o}");
            let (low, high) = (
                o["black_score_low"].as_f64(),
                o["black_score_high"].as_f64(),
            );
            let score = o["black_score"].as_f64().unwrap();
            assert!(low.unwrap() <= score && score <= high.unwrap(), "{o}");
        }
    }
    let text = openings(dir.path(), &["audit", "run"]);
    text.assert_success().assert_stdout_has("12 games");
    // The HTML report's table: a row per opening the audit lists.
    let listed = text.stdout.lines().count() - 3;
    Match::command(&["report", "run", "-o", "r.html"])
        .run_in(dir.path())
        .assert_success();
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    let start = html
        .find("<section id=\"openings\">")
        .expect("an openings section");
    let section = &html[start..start + html[start..].find("</section>").unwrap()];
    assert_eq!(section.matches("<tr><td").count(), listed, "{section}");
}

#[test]
fn audit_refuses_what_is_not_a_journal() {
    let dir = tempfile::tempdir().unwrap();
    openings(dir.path(), &["audit", "none.jsonl"])
        .assert_exit(1)
        .assert_stderr_has("none.jsonl");
    // A line that reads as a game but whose opening is no list of points: the file and game named.
    let run = scout_vs_random_match("freestyle15.txt")
        .rule(0)
        .games(2)
        .journal("j.jsonl")
        .run_in(dir.path());
    run.assert_success();
    let text = std::fs::read_to_string(dir.path().join("j.jsonl")).unwrap();
    let (head, games) = text.split_once('\n').unwrap();
    let mut game: serde_json::Value = serde_json::from_str(games.lines().next().unwrap()).unwrap();
    game["opening"] = "h8zz".into();
    std::fs::write(dir.path().join("odd.jsonl"), format!("{head}\n{game}\n")).unwrap();
    openings(dir.path(), &["audit", "odd.jsonl"])
        .assert_exit(1)
        .assert_stderr_has("odd.jsonl:2: game ")
        .assert_stderr_has("h8zz");
    // A stone placed twice is no opening: refused, the file and line named.
    game["opening"] = "h8h8".into();
    std::fs::write(dir.path().join("twice.jsonl"), format!("{head}\n{game}\n")).unwrap();
    openings(dir.path(), &["audit", "twice.jsonl"])
        .assert_exit(1)
        .assert_stderr_has("twice.jsonl:2: game ")
        .assert_stderr_has("opening \"h8h8\" cannot be read: stone 2 repeats stone 1");
    std::fs::write(dir.path().join("bad.jsonl"), "{\"game\": 1}\nnot json\n").unwrap();
    openings(dir.path(), &["audit", "bad.jsonl"])
        .assert_exit(1)
        .assert_stderr_has("bad.jsonl:1");
}
