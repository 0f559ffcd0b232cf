//! The `judge` command end to end: both input forms, files and standard input, errors per line.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::runner;

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
    let (code, out, _) = judge(&["--rule", "0"], input);
    assert_eq!(code, Some(1), "a failed line makes the exit code 1");
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
    let out = Command::new(runner())
        .args(["judge", "--rule", "4"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    let bad = Command::new(runner())
        .args(["judge", "--rule", "3"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("rule"));
    let missing = Command::new(runner())
        .args(["judge", "/no/such/file"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/no/such/file"));
}
