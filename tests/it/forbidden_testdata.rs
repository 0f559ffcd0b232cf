//! Checks the renju referee against every position in `shared/testdata/forbidden/*.jsonl`.
//!
//! Each record is a board with expected verdicts for listed points; `complete: true` also says every
//! other empty point is legal for black, and `then` steps edit the board and add more cases.
//! All disagreements are collected and printed before the test fails, so one run shows them all.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use gomoku_cli::core::board::{Board, BoardSize, Color, Pos};
use gomoku_cli::core::rules::{forbidden_kind, ForbiddenKind};
use serde_json::Value;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata/forbidden")
}

#[derive(Default)]
struct Tally {
    files: usize,
    records: usize,
    listed_cases: usize,
    implied_legal: usize,
    disagreements: Vec<String>,
}

fn color_of(s: &str) -> Result<Color> {
    match s {
        "X" => Ok(Color::Black),
        "O" => Ok(Color::White),
        other => bail!("bad stone colour {other:?}"),
    }
}

fn step_point(v: &Value) -> Result<(Pos, Color)> {
    let a = v.as_array().context("put/remove is not an array")?;
    let x = a.first().and_then(Value::as_u64).context("bad x")?;
    let y = a.get(1).and_then(Value::as_u64).context("bad y")?;
    let c = color_of(a.get(2).and_then(Value::as_str).context("bad colour")?)?;
    Ok((Pos::new(x as u8, y as u8), c))
}

fn kind_code(k: Option<ForbiddenKind>) -> &'static str {
    k.map(ForbiddenKind::code).unwrap_or("legal")
}

/// Check a list of cases on `board`; returns the points they named (black cases only).
fn check_cases(board: &Board, cases: &Value, at: &str, tally: &mut Tally) -> Result<Vec<Pos>> {
    let mut named = Vec::new();
    for case in cases.as_array().context("cases is not an array")? {
        let x = case["x"].as_u64().context("case without x")?;
        let y = case["y"].as_u64().context("case without y")?;
        let p = Pos::new(x as u8, y as u8);
        let pos = case["pos"].as_str().unwrap_or("?");
        let expect = case["expect"].as_str().context("case without expect")?;
        let white = case["color"].as_str() == Some("white");
        tally.listed_cases += 1;
        let where_ = format!("{at} point ({x},{y}) {pos}");
        if !board.is_empty_at(p) {
            tally
                .disagreements
                .push(format!("{where_}: test point is occupied"));
            continue;
        }
        // White is never restricted.
        let got = if white {
            None
        } else {
            named.push(p);
            forbidden_kind(board, p)
        };
        let want_forbidden = match expect {
            "forbidden" => true,
            "legal" => false,
            other => bail!("{where_}: unknown expectation {other:?}"),
        };
        if got.is_some() != want_forbidden {
            tally.disagreements.push(format!(
                "{where_}{}: expected {expect}, referee says {}",
                if white { " (white)" } else { "" },
                kind_code(got)
            ));
        } else if let (Some(k), Some(want)) = (got, case["kind"].as_str()) {
            if k.code() != want {
                // Only the point matters when several reasons apply; say so without failing.
                println!(
                    "note: {where_}: forbidden as {} where the source names {want}",
                    k.code()
                );
            }
        }
    }
    Ok(named)
}

fn check_record(file: &str, line_no: usize, text: &str, tally: &mut Tally) -> Result<()> {
    let rec: Value = serde_json::from_str(text).context("invalid JSON")?;
    let id = rec["id"].to_string();
    let name = rec["name"].as_str().unwrap_or("");
    let at = format!("{file}:{line_no} id={id} {name}");
    let size = rec["size"].as_u64().context("no size")?;
    let size = BoardSize::new(size as u32)?;
    let rows = rec["board"].as_array().context("no board")?;
    let rows = rows
        .iter()
        .map(|r| r.as_str().context("row is not a string"))
        .collect::<Result<Vec<&str>>>()?;
    let mut board = Board::from_rows(size, &rows).with_context(|| format!("{at}: bad board"))?;
    tally.records += 1;

    let named = check_cases(&board, &rec["cases"], &at, tally)?;
    if rec["complete"].as_bool() == Some(true) {
        for p in size.all() {
            if board.is_empty_at(p) && !named.contains(&p) {
                tally.implied_legal += 1;
                if let Some(k) = forbidden_kind(&board, p) {
                    tally.disagreements.push(format!(
                        "{at} point ({},{}): complete record implies legal, referee says {}",
                        p.x,
                        p.y,
                        k.code()
                    ));
                }
            }
        }
    }
    if let Some(steps) = rec.get("then").and_then(Value::as_array) {
        for (i, step) in steps.iter().enumerate() {
            let step_at = format!("{at} then[{i}]");
            if let Some(v) = step.get("put") {
                let (p, c) = step_point(v)?;
                if !board.put(p, c) {
                    bail!("{step_at}: put on an occupied point");
                }
            } else if let Some(v) = step.get("remove") {
                let (p, c) = step_point(v)?;
                if board.remove(p) != Some(c) {
                    bail!("{step_at}: remove of a stone that is not there");
                }
            } else if let Some(cases) = step.get("cases") {
                check_cases(&board, cases, &step_at, tally)?;
            } else {
                bail!("{step_at}: unknown step {step}");
            }
        }
    }
    Ok(())
}

#[test]
fn referee_agrees_with_every_forbidden_test_position() -> Result<()> {
    let dir = data_dir();
    let mut files: Vec<PathBuf> = match fs::read_dir(&dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect(),
        Err(e) => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("forbidden test data missing at {}: {e}", dir.display());
            }
            println!(
                "skipping: forbidden test data not found at {} ({e})",
                dir.display()
            );
            return Ok(());
        }
    };
    files.sort();
    if files.is_empty() && std::env::var("CI").as_deref() == Ok("true") {
        panic!("no .jsonl files in {}", dir.display());
    }

    let mut tally = Tally::default();
    for path in &files {
        let file = path.file_name().unwrap_or_default().to_string_lossy();
        let text =
            fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        tally.files += 1;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            check_record(&file, i + 1, line, &mut tally)
                .with_context(|| format!("{file}:{} is malformed", i + 1))?;
        }
    }
    println!(
        "checked {} files, {} records, {} listed cases, {} implied-legal points",
        tally.files, tally.records, tally.listed_cases, tally.implied_legal
    );
    for d in &tally.disagreements {
        println!("DISAGREEMENT {d}");
    }
    assert!(
        tally.disagreements.is_empty(),
        "{} disagreement(s) with the forbidden test data (listed above)",
        tally.disagreements.len()
    );
    assert!(
        tally.records > 0 || files.is_empty(),
        "no records were read"
    );
    Ok(())
}
