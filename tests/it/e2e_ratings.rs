//! End-to-end tests of `gomoku-cli ratings`: a round robin played by the runner rated from its
//! journal and from its PGN (one list), shards read as one run, Gomocup's exclusion, the JSON
//! object, every kind of bad input, and the printed table against BayesElo's own on the kept
//! cases of tests/data/bayeselo/.

use crate::common;

use std::path::{Path, PathBuf};

use common::*;

fn openings() -> PathBuf {
    repo_root().join("openings/freestyle15.txt")
}

/// `gomoku-cli ratings ARGS` run in `dir`.
fn ratings(dir: &Path, args: &[&str]) -> Run {
    let mut words = vec!["ratings"];
    words.extend_from_slice(args);
    run_in(dir, &words)
}

fn json(run: &Run) -> serde_json::Value {
    run.assert_success();
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

/// A round robin of three scouts, the random mover and an engine that crashes at its first move
/// of every game, with colour-swapped pairs on random openings.
fn round_robin() -> Match {
    Match::new()
        .engine("pbrain-scout --depth 1", &["name=scout-d1"])
        .engine("pbrain-scout --depth 2", &["name=scout-d2"])
        .engine("pbrain-scout --depth 3", &["name=scout-d3"])
        .engine("pbrain-random", &["name=random"])
        .engine("pbrain-faulty --fault move1:crash", &["name=crasher"])
        .each(&["tc=0/5"])
        .games(4)
        .repeat()
        .concurrency(2)
        .openings_file(openings(), &["type=pos", "order=random", "srand=35"])
        .quiet()
}

#[test]
fn a_round_robin_rated_from_its_journal_and_from_its_pgn_gives_one_list() {
    let dir = tempfile::tempdir().unwrap();
    let played = round_robin()
        .journal("run/rr.journal.jsonl")
        .pgn("run/rr.pgn")
        .run_in(dir.path());
    played.assert_success();
    // The list the run printed at its end is the command's, table and parameters.
    let text = ratings(dir.path(), &["run"]);
    text.assert_success();
    let at_end = played
        .stdout
        .split_once("95% intervals):\n")
        .map(|(_, list)| list)
        .expect("the rating list at the end of the run");
    let list = text.stdout.trim_end();
    assert!(
        at_end.starts_with(list),
        "run's end:\n{at_end}\ncommand:\n{list}"
    );
    let from_run = json(&ratings(dir.path(), &["run", "--json"]));
    let from_pgn = json(&ratings(dir.path(), &["run/rr.pgn", "--json"]));
    assert_eq!(from_run, from_pgn);
    // 5 engines, 10 pairs of 4 games.
    assert_eq!(from_run["games"], 40);
    assert_eq!(from_run["unfinished"], 0);
    let players = from_run["players"].as_array().unwrap();
    assert_eq!(players.len(), 5);
    for (k, p) in players.iter().enumerate() {
        assert_eq!(p["rank"], k + 1);
        assert_eq!(p["games"], 16, "{p}");
        for key in ["elo", "minus", "plus", "score", "opponent"] {
            assert!(p[key].is_f64(), "{key}: {p}");
        }
        assert!(p["draws"].is_u64(), "{p}");
    }
    let elo = |name: &str| {
        let p = players.iter().find(|p| p["name"] == name).unwrap();
        p["elo"].as_f64().unwrap()
    };
    assert!(elo("scout-d3") > elo("random"), "{from_run}");
    assert!(from_run["advantage"].is_f64() && from_run["drawelo"].is_f64());
    assert_eq!(from_run["left_out"], serde_json::json!([]));
    assert!(from_run.get("los").is_none());
    // The crasher loses every game by its crash: Gomocup's exclusion leaves it out, with all
    // its games, from either source.
    let args = ["--max-faults", "10%", "--json", "--los"];
    let kept = json(&ratings(
        dir.path(),
        &[&["run/rr.journal.jsonl"][..], &args].concat(),
    ));
    let kept_pgn = json(&ratings(dir.path(), &[&["run/rr.pgn"][..], &args].concat()));
    assert_eq!(kept, kept_pgn);
    assert_eq!(
        kept["left_out"],
        serde_json::json!([{"name": "crasher", "games": 16, "faults": 16, "share": 1.0}])
    );
    assert_eq!(kept["games"], 24);
    let names: Vec<&str> = (kept["players"].as_array().unwrap().iter())
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 4);
    assert!(!names.contains(&"crasher"));
    let los = kept["los"].as_array().unwrap();
    assert_eq!(los.len(), 4);
    let (a, b) = (los[0][1].as_f64().unwrap(), los[1][0].as_f64().unwrap());
    assert!(a >= 0.5 && (a + b - 1.0).abs() < 1e-6, "{los:?}");
    // The text: BayesElo's table, then the model and those left out.
    let text = ratings(dir.path(), &["run", "--gomocup", "--los"]);
    let out = &text.assert_success().stdout;
    assert!(out.starts_with("Rank Name"), "{out}");
    assert!(out.contains("left out (timeouts and crashes in over 10.0% of their games):\n  crasher  16 of 16 games (100.0%)"), "{out}");
    assert!(
        out.contains("first-move advantage 0.0 Elo (fixed), draw Elo 0.0 (fixed)"),
        "{out}"
    );
    // The same games twice: the run's PGN beside its journal is named in a warning.
    let twice = ratings(
        dir.path(),
        &["run/rr.pgn", "run/rr.journal.jsonl", "--json"],
    );
    twice.assert_stderr_has("is in the folder of the journal");
    assert_eq!(json(&twice)["games"], 80);
}

#[test]
fn the_shards_of_a_run_are_rated_together() {
    let dir = tempfile::tempdir().unwrap();
    let base = Match::new()
        .engine("pbrain-scout --depth 1", &["name=d1"])
        .engine("pbrain-scout --depth 2", &["name=d2"])
        .engine("pbrain-random", &["name=random"])
        .each(&["tc=0/5"])
        .games(4)
        .repeat()
        .openings_file(openings(), &["type=pos", "order=random", "srand=7"])
        .quiet();
    for k in ["1/2", "2/2"] {
        (base.clone().opt("-shard", k).opt("-rundir", "run"))
            .run_in(dir.path())
            .assert_success();
    }
    let whole = json(&ratings(dir.path(), &["run", "--json"]));
    assert_eq!(whole["games"], 12);
    let files = json(&ratings(
        dir.path(),
        &[
            "run/shard-2-of-2.journal.jsonl",
            "run/shard-1-of-2.journal.jsonl",
            "--json",
        ],
    ));
    assert_eq!(whole, files);
    let one = json(&ratings(
        dir.path(),
        &["run/shard-1-of-2.journal.jsonl", "--json"],
    ));
    assert!(one["games"].as_u64().unwrap() < 12);
    // A shard named again beside its run directory would count twice: refused.
    ratings(dir.path(), &["run", "run/shard-1-of-2.journal.jsonl"])
        .assert_exit(1)
        .assert_stderr_has("are one file");
}

const LINE: &str = r#"{"game":1,"black":"a","white":"b","result":"1-0","termination":"five","ended":"2026-01-01T00:00:00Z","fingerprint":"f"}"#;

/// A journal's game line with what a rating reads of it (the reader skips the other fields).
fn journal_line(game: u64, black: &str, white: &str, result: &str) -> String {
    let mut line: serde_json::Value = serde_json::from_str(LINE).unwrap();
    line["game"] = game.into();
    line["black"] = black.into();
    line["white"] = white.into();
    line["result"] = result.into();
    format!("{line}\n")
}

fn pgn_game(white: &str, black: &str, result: &str) -> String {
    format!("[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n{result}\n\n")
}

#[test]
fn bad_inputs_are_named_by_file_line_and_value_with_exit_code_1() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = |name: &str, text: &str| std::fs::write(d.join(name), text).unwrap();
    let fails = |args: &[&str], needle: &str| {
        let run = ratings(d, args);
        run.assert_exit(1).assert_stderr_has(needle);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    };
    write(
        "bad.pgn",
        &(pgn_game("a", "b", "1-0") + &pgn_game("b", "a", "1-O")),
    );
    fails(&["bad.pgn"], "bad.pgn:9: unknown result \"1-O\"");
    write("tag.pgn", "[White \"a\"]\n[Black b]\n");
    fails(&["tag.pgn"], "tag.pgn:2: not a PGN tag pair");
    // A journal torn in its last line (a killed run) is read without it, as every reader does;
    // a bad line before the last is an error.
    let good = journal_line(1, "a", "b", "1-0") + &journal_line(2, "b", "a", "1/2-1/2");
    write("torn.jsonl", &(good.clone() + &LINE[..40]));
    let run = ratings(d, &["torn.jsonl", "--json"]);
    run.assert_stderr_has("torn.jsonl:3: skipping a torn last line");
    assert_eq!(json(&run)["games"], 2);
    // So is a PGN whose last game was cut short in a tag.
    write(
        "cut.pgn",
        &(pgn_game("a", "b", "1-0") + "[White \"b\"]\n[Black \"a"),
    );
    let run = ratings(d, &["cut.pgn", "--json"]);
    run.assert_stderr_has("cut.pgn:8: skipping a game cut short in its last line");
    assert_eq!(json(&run)["games"], 1);
    write("mid.jsonl", &(LINE[..40].to_string() + "\n" + &good));
    fails(&["mid.jsonl"], "mid.jsonl:1: not a journal entry");
    write(
        "result.jsonl",
        &journal_line(1, "a", "b", "1-0").replace("1-0", "2-0"),
    );
    fails(&["result.jsonl"], "result.jsonl:1: not a journal entry");
    write("notes.txt", "hello\n");
    fails(&["notes.txt"], "notes.txt: neither a journal");
    write("empty.pgn", "");
    fails(&["empty.pgn"], "empty.pgn: an empty file");
    fails(&["missing.pgn"], "missing.pgn: No such file");
    std::fs::create_dir(d.join("nothing")).unwrap();
    fails(
        &["nothing"],
        "no *.journal.jsonl files: not a run directory",
    );
    write("open.pgn", &(pgn_game("a", "b", "*").repeat(2)));
    fails(
        &["open.pgn"],
        "no games to rate in open.pgn (2 unfinished games, result *)",
    );
    write("ok.pgn", &pgn_game("a", "b", "1-0"));
    fails(&["ok.pgn", "./ok.pgn"], "ok.pgn and ./ok.pgn are one file");
    write(
        "self.pgn",
        &(pgn_game("a", "b", "1-0") + &pgn_game("b", "b", "1-0")),
    );
    fails(&["self.pgn"], "self.pgn:7: \"b\" plays itself");
    // One engine spelled two ways, in two files.
    write("names.jsonl", &journal_line(1, "x", "Wine 2", "0-1"));
    write(
        "names.pgn",
        &(pgn_game("a", "b", "1-0") + &pgn_game("wine2", "b", "1-0")),
    );
    fails(
        &["names.jsonl", "names.pgn"],
        "\"Wine 2\" (names.jsonl:1) and \"wine2\" (names.pgn:7) differ only in case or blanks",
    );
    // A usage error is exit code 2.
    ratings(d, &["ok.pgn", "--max-faults", "3"])
        .assert_exit(2)
        .assert_stderr_has("--max-faults \"3\"");
    ratings(d, &[]).assert_exit(2);
}

/// One table row of BayesElo's `ratings`: the name, then Elo, +, -, games, score %, average
/// opponent, draws %.
fn table(text: &str) -> Vec<(String, [f64; 7])> {
    text.lines()
        .skip_while(|l| !l.starts_with("Rank Name"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let n = words.len();
            assert!(n >= 9, "{l}");
            let numbers: Vec<f64> = (words[n - 7..].iter())
                .map(|w| w.trim_end_matches('%').parse().unwrap())
                .collect();
            (words[1..n - 7].join(" "), numbers.try_into().unwrap())
        })
        .collect()
}

/// The options that give BayesElo's script's settings: `advantage X`, `drawelo X`, `prior X`,
/// `offset X`, `confidence X` set values; `mm A D` fits with them, estimating the advantage when
/// A is 1 and the draw Elo when D is 1 (BayesElo's defaults: 0 and 0.01, fixed).
fn options_of(script: &str) -> Vec<String> {
    let (mut advantage, mut drawelo) = ("0".to_string(), "0.01".to_string());
    let mut out = Vec::new();
    for line in script.lines() {
        let command = line.split('>').next().unwrap();
        let words: Vec<&str> = command.split_whitespace().collect();
        match words.as_slice() {
            ["advantage", x] => advantage = x.to_string(),
            ["drawelo", x] => drawelo = x.to_string(),
            ["prior" | "offset" | "confidence", x] => {
                out.extend([format!("--{}", words[0]), x.to_string()]);
            }
            ["mm", flags @ ..] => {
                let on = |i: usize| flags.get(i) == Some(&"1");
                let adv = if on(0) {
                    "estimate".into()
                } else {
                    advantage.clone()
                };
                let draw = if on(1) {
                    "estimate".into()
                } else {
                    drawelo.clone()
                };
                out.extend(["--advantage".into(), adv, "--drawelo".into(), draw]);
            }
            ["ratings", n] => out.extend(["--min-games".into(), n.to_string()]),
            // BayesElo's numbers, its grid's cut bars included.
            ["exactdist"] => out.push("--bayeselo-grid".into()),
            _ => {}
        }
    }
    out
}

#[test]
fn the_kept_cases_print_bayeselo_s_table_within_one_elo() {
    let root = repo_root().join("tests/data/bayeselo");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("script.txt").exists() && p.join("ratings.txt").exists())
        .collect();
    cases.sort();
    assert!(
        cases.iter().any(|c| c.ends_with("runner6")),
        "the runner's case is kept: {cases:?}"
    );
    for case in cases {
        let script = std::fs::read_to_string(case.join("script.txt")).unwrap();
        let mut options = options_of(&script);
        let los = std::fs::read_to_string(case.join("los.txt")).ok();
        if los.is_some() {
            options.push("--los".into());
        }
        let mut args = vec!["games.pgn"];
        args.extend(options.iter().map(String::as_str));
        let run = ratings(&case, &args);
        let ours = table(&run.assert_success().stdout);
        let theirs = table(&std::fs::read_to_string(case.join("ratings.txt")).unwrap());
        assert_eq!(
            ours.len(),
            theirs.len(),
            "{}: {}",
            case.display(),
            run.stdout
        );
        for ((name, a), (their_name, b)) in ours.iter().zip(&theirs) {
            assert_eq!(name, their_name, "{}", case.display());
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert!(
                    (x - y).abs() <= 1.0,
                    "{}: {name} column {i}: ours {x}, BayesElo's {y}\n{}",
                    case.display(),
                    run.stdout
                );
            }
        }
        // BayesElo's `los 0 200 4`, byte for byte (every case has under 200 players).
        if let Some(los) = los {
            assert!(
                run.stdout.contains(&los),
                "{}: {}\nBayesElo's:\n{los}",
                case.display(),
                run.stdout
            );
        }
    }
}

#[test]
fn a_script_s_settings_become_options() {
    let script = "readpgn games.pgn\nelo\noffset 1600\nmm\nexactdist\nratings >ratings.txt\n";
    assert_eq!(
        options_of(script).join(" "),
        "--offset 1600 --advantage 0 --drawelo 0.01 --bayeselo-grid"
    );
    let script = "advantage 40\ndrawelo 100\nmm 1 0\nadvantage >p.txt\nratings 3\n";
    assert_eq!(
        options_of(script).join(" "),
        "--advantage estimate --drawelo 100 --min-games 3"
    );
}
