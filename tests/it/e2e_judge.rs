//! The `judge` command end to end: both input forms, files and standard input, errors per line.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{runner, Match};

fn judge(args: &[&str], input: &str) -> (Option<i32>, Vec<serde_json::Value>, String) {
    let mut child = Command::new(runner())
        .arg("judge")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each output line is JSON"))
        .collect();
    (
        out.status.code(),
        lines,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn rows_with(stones: &[(usize, usize, char)]) -> String {
    let mut rows = vec![vec!['.'; 15]; 15];
    for &(x, y, c) in stones {
        rows[y][x] = c;
    }
    let rows: Vec<String> = rows.into_iter().map(|r| r.into_iter().collect()).collect();
    format!("15:{}", rows.join("/"))
}

#[test]
fn renju_double_three_point_is_listed_and_freestyle_lists_nothing() {
    // Black g8 h8 (row 7) and i7 i6 (column 8), white in the corners: i8 = (8,7) makes an open
    // three in both lines, a double-three. Equal counts: black to move.
    let board = rows_with(&[
        (6, 7, 'X'),
        (7, 7, 'X'),
        (8, 6, 'X'),
        (8, 5, 'X'),
        (0, 0, 'O'),
        (14, 14, 'O'),
        (0, 14, 'O'),
        (14, 0, 'O'),
    ]);
    let input = format!("{board}\nh8\n\n{board}\n");
    let (code, out, _) = judge(&["--rule", "4"], &input);
    assert_eq!(code, Some(0));
    assert_eq!(out.len(), 3, "blank lines are skipped");
    assert_eq!(out[0]["size"], 15);
    assert_eq!(out[0]["to_move"], "black");
    assert!(out[0]["winner"].is_null());
    let forbidden = out[0]["forbidden"].as_array().unwrap();
    assert!(
        forbidden
            .iter()
            .any(|f| f["x"] == 8 && f["y"] == 7 && f["kind"] == "33"),
        "{forbidden:?}"
    );
    assert_eq!(out[1]["to_move"], "white");
    assert_eq!(out[1]["forbidden"].as_array().unwrap().len(), 0);
    assert_eq!(out[2], out[0]);
    let (_, free, _) = judge(&["--rule", "0"], &format!("{board}\n"));
    assert_eq!(free[0]["forbidden"].as_array().unwrap().len(), 0);
}

#[test]
fn forbidden_points_are_sorted_and_kinds_named() {
    // A black stone pattern with a double-three at h8 once black is to move.
    let seq = "h9a1h10a3i8a5j8a7";
    let (code, out, _) = judge(&["--rule", "4"], &format!("{seq}\n"));
    assert_eq!(code, Some(0));
    let forbidden = out[0]["forbidden"].as_array().unwrap().clone();
    assert!(
        forbidden
            .iter()
            .any(|f| f["x"] == 7 && f["y"] == 7 && f["kind"] == "33"),
        "{forbidden:?}"
    );
    let keys: Vec<(u64, u64)> = forbidden
        .iter()
        .map(|f| (f["y"].as_u64().unwrap(), f["x"].as_u64().unwrap()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    for f in &forbidden {
        assert!(["33", "44", "6"].contains(&f["kind"].as_str().unwrap()));
    }
}

#[test]
fn winner_is_reported_and_bad_lines_give_error_objects() {
    let input = "h8a1i8a2j8a3k8a4l8\nzz9\nh8h8\n";
    let (code, out, err) = judge(&["--rule", "0"], input);
    assert_eq!(code, Some(1), "a failed line makes the exit code 1");
    assert!(err.contains("2 of 3 lines could not be judged"), "{err}");
    assert_eq!(out.len(), 3, "the command goes on after an error");
    assert_eq!(out[0]["winner"], "black");
    assert_eq!(out[1]["line"], 2);
    assert!(out[1]["error"].is_string());
    assert_eq!(out[2]["line"], 3);
    assert!(
        out[2]["error"].as_str().unwrap().contains("h8"),
        "{}",
        out[2]
    );
}

#[test]
fn reads_files_and_rejects_bad_options() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("positions.txt");
    std::fs::write(&f, "h8i9\r\nh8\r\n").unwrap();
    let out = Match::command(&["judge", "--rule", "4"])
        .arg(&f.to_string_lossy())
        .run_here();
    out.assert_success();
    assert_eq!(out.stdout.lines().count(), 2);
    Match::command(&["judge", "--rule", "3"])
        .run_here()
        .assert_exit(2)
        .assert_stderr_has("rule");
    Match::command(&["judge", "/no/such/file"])
        .run_here()
        .assert_exit(1)
        .assert_stderr_has("/no/such/file");
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(runner()).args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn help_subcommand_prints_that_subcommand_help() {
    let (main_code, main_help, _) = run(&["help"]);
    assert_eq!(main_code, Some(0));
    assert!(main_help.contains("ENGINE OPTIONS"), "{main_help}");
    assert!(main_help.contains("gomoku-cli help COMMAND"), "{main_help}");

    let (code, judge_help, _) = run(&["help", "judge"]);
    assert_eq!(code, Some(0));
    assert!(!judge_help.contains("ENGINE OPTIONS"), "{judge_help}");
    for flag in ["--rule", "--boardsize", "--to-move", "--strict"] {
        assert!(judge_help.contains(flag), "{flag} missing: {judge_help}");
    }
    // The default rule differs from the runner's, and the help says so.
    assert!(
        judge_help.contains("runner's -rule defaults to 0"),
        "{judge_help}"
    );
    assert!(judge_help.contains("default, 4 (renju)"), "{judge_help}");
    // `judge --help` prints the same text.
    let (code, dash_help, _) = run(&["judge", "--help"]);
    assert_eq!(code, Some(0));
    assert_eq!(dash_help, judge_help);

    let (code, sprt_help, _) = run(&["help", "sprt"]);
    assert_eq!(code, Some(0));
    assert!(sprt_help.contains("--ptnml"), "{sprt_help}");
    assert!(!sprt_help.contains("ENGINE OPTIONS"), "{sprt_help}");
    let (code, samples_help, _) = run(&["help", "samples"]);
    assert_eq!(code, Some(0));
    assert!(samples_help.contains("stats"), "{samples_help}");
    assert!(!samples_help.contains("ENGINE OPTIONS"), "{samples_help}");

    let (code, out, err) = run(&["help", "bogus"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(err.contains("bogus"), "{err}");
}

#[test]
fn boards_with_any_stone_counts_are_judged_unless_strict() {
    // A problem diagram: black g8 h8 i7 i6 and no white stone (4 against 0). i8 = (8,7) is a
    // double-three for black whoever is to move.
    let board = rows_with(&[(6, 7, 'X'), (7, 7, 'X'), (8, 6, 'X'), (8, 5, 'X')]);
    let input = format!("{board}\n");
    let (code, out, err) = judge(&[], &input);
    assert_eq!(code, Some(0), "{err}");
    assert!(out[0].get("error").is_none(), "{}", out[0]);
    assert!(out[0]["to_move"].is_null(), "{}", out[0]);
    assert!(out[0]["winner"].is_null());
    assert_eq!(out[0]["rule"], "renju", "the default rule is named");
    assert!(
        out[0]["forbidden"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["x"] == 8 && f["y"] == 7 && f["kind"] == "33"),
        "{}",
        out[0]
    );

    // The side to move can be given; the forbidden points stay black's.
    let (code, given, _) = judge(&["--to-move", "white"], &input);
    assert_eq!(code, Some(0));
    assert_eq!(given[0]["to_move"], "white");
    assert_eq!(given[0]["forbidden"], out[0]["forbidden"]);

    // --strict keeps the old check: an error object and exit code 1.
    let (code, strict, _) = judge(&["--strict"], &input);
    assert_eq!(code, Some(1));
    assert!(
        strict[0]["error"]
            .as_str()
            .unwrap()
            .contains("impossible stone counts"),
        "{}",
        strict[0]
    );
    // --strict with a side to move the counts contradict is an error too; without --strict the
    // given side wins.
    let two = rows_with(&[(7, 7, 'X'), (0, 0, 'O')]);
    let (code, strict, _) = judge(&["--strict", "--to-move", "white"], &format!("{two}\n"));
    assert_eq!(code, Some(1));
    assert!(strict[0]["error"].is_string(), "{}", strict[0]);
    let (code, loose, _) = judge(&["--to-move", "white"], &format!("{two}\n"));
    assert_eq!(code, Some(0));
    assert_eq!(loose[0]["to_move"], "white");

    let (code, _, err) = run(&["judge", "--to-move", "red"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("red"), "{err}");
}

#[test]
fn output_names_the_rule_it_judged_under() {
    for (code, name) in [
        ("0", "freestyle"),
        ("1", "exact five"),
        ("4", "renju"),
        ("8", "caro"),
        ("9", "standard caro"),
    ] {
        let (exit, out, _) = judge(&["--rule", code], "h8\n");
        assert_eq!(exit, Some(0));
        assert_eq!(out[0]["rule"], name, "--rule {code}");
    }
}
