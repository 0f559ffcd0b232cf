//! The rating fit against BayesElo itself: for each case under `tests/data/bayeselo/` (games,
//! the BayesElo script run on them, and what BayesElo printed; see the README there), every
//! rating, error bar, games, score, average opponent and draw share of `stats::ratings::fit`
//! equals BayesElo's `ratings` table within 1 Elo (the percentages exactly after rounding), and
//! within 0.02 Elo its table printed to hundredths (`scale 100`); each likelihood of superiority
//! its `los` matrix within 0.002; the estimated advantage and draw Elo its printed values; and
//! `render_table` and `render_los` give BayesElo's text byte for byte.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gomoku_cli::stats::ratings::{
    fit, render_los, render_table, FitSettings, Outcome, Parameter, RatedGame, RatingList,
};

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bayeselo");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("games.pgn").exists())
        .collect();
    cases.sort();
    assert!(cases.len() >= 4, "cases under {}", root.display());
    cases
}

/// Names in order of first appearance (White, then Black, as BayesElo numbers them) and games.
fn read_pgn(text: &str) -> (Vec<String>, Vec<RatedGame>) {
    let tag = |line: &str, name: &str| {
        line.strip_prefix(&format!("[{name} \""))
            .and_then(|rest| rest.strip_suffix("\"]"))
            .map(str::to_string)
    };
    let mut names: Vec<String> = Vec::new();
    let mut ids: HashMap<String, u32> = HashMap::new();
    let id = |name: String, names: &mut Vec<String>, ids: &mut HashMap<String, u32>| {
        *ids.entry(name.clone()).or_insert_with(|| {
            names.push(name);
            names.len() as u32 - 1
        })
    };
    let (mut white, mut black, mut games) = (None, None, Vec::new());
    for line in text.lines() {
        if let Some(w) = tag(line, "White") {
            white = Some(w);
        } else if let Some(b) = tag(line, "Black") {
            black = Some(b);
        } else if let Some(r) = tag(line, "Result") {
            let outcome = match r.as_str() {
                "1-0" => Outcome::FirstWins,
                "0-1" => Outcome::SecondWins,
                "1/2-1/2" => Outcome::Draw,
                other => panic!("result {other:?}"),
            };
            let first = id(white.take().unwrap(), &mut names, &mut ids);
            let second = id(black.take().unwrap(), &mut names, &mut ids);
            games.push(RatedGame {
                first,
                second,
                outcome,
            });
        }
    }
    (names, games)
}

/// The settings a BayesElo script sets: `offset X`, `advantage X`, `drawelo X`, `mm [a] [d]`
/// (BayesElo's own defaults: advantage 0, drawelo 0.01, both held).
fn settings(script: &str) -> FitSettings {
    let mut s = FitSettings {
        advantage: Parameter::Fixed(0.0),
        drawelo: Parameter::Fixed(0.01),
        los: true,
        // BayesElo's numbers, its grid's cut bars included (Gomocup's freestyle leaders).
        bayeselo_grid: true,
        ..FitSettings::default()
    };
    let (mut advantage, mut drawelo) = (0.0, 0.01);
    for line in script.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |i: usize| words.get(i).and_then(|w| w.parse::<f64>().ok());
        match words.first().copied() {
            Some("offset") => s.offset = number(1).unwrap(),
            Some("advantage") => advantage = number(1).unwrap_or(advantage),
            Some("drawelo") => drawelo = number(1).unwrap_or(drawelo),
            Some("mm") => {
                let flag = |i: usize, held: f64| match number(i) {
                    Some(f) if f != 0.0 => Parameter::Estimate,
                    _ => Parameter::Fixed(held),
                };
                s.advantage = flag(1, advantage);
                s.drawelo = flag(2, drawelo);
            }
            _ => {}
        }
    }
    s
}

struct Row {
    name: String,
    numbers: Vec<f64>,
}

/// BayesElo's table rows: rank, name, then Elo, +, -, games, score %, oppo., draws %.
fn read_table(text: &str) -> Vec<Row> {
    text.lines()
        .skip(1)
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let numbers = words[words.len() - 7..]
                .iter()
                .map(|w| w.trim_end_matches('%').parse().unwrap())
                .collect();
            Row {
                name: words[1..words.len() - 7].join(" "),
                numbers,
            }
        })
        .collect()
}

fn check_case(case: &Path) -> (f64, f64, f64) {
    let read = |name: &str| std::fs::read_to_string(case.join(name)).unwrap();
    let (names, games) = read_pgn(&read("games.pgn"));
    let settings = settings(&read("script.txt"));
    let list: RatingList = fit(names.len(), &games, &settings).unwrap();
    let label = case.file_name().unwrap().to_string_lossy().to_string();

    if let Ok(parameters) = std::fs::read_to_string(case.join("parameters.txt")) {
        let printed: Vec<f64> = parameters.lines().map(|l| l.parse().unwrap()).collect();
        // BayesElo prints 6 significant digits.
        for (ours, theirs, what) in [
            (list.advantage, printed[0], "advantage"),
            (list.drawelo, printed[1], "drawelo"),
        ] {
            assert!(
                (ours - theirs).abs() <= 1e-5 * theirs.abs().max(1.0),
                "{label}: {what} {ours} against BayesElo's {theirs}"
            );
        }
    }

    let rows = read_table(&read("ratings.txt"));
    let ranking = list.ranking();
    assert_eq!(rows.len(), names.len(), "{label}");
    let mut worst: f64 = 0.0;
    for (row, &id) in rows.iter().zip(&ranking) {
        let p = &list.players[id];
        assert_eq!(row.name, names[id], "{label}: ranking");
        let n = &row.numbers;
        for (ours, theirs, what) in [
            (p.elo, n[0], "Elo"),
            (p.plus, n[1], "+"),
            (p.minus, n[2], "-"),
            (p.opponent, n[5], "oppo."),
        ] {
            let off = (ours - theirs).abs();
            worst = worst.max(off);
            assert!(
                off <= 1.0,
                "{label}: {} {what} {ours} against BayesElo's {theirs}",
                row.name
            );
        }
        assert_eq!(p.games as f64, n[3], "{label}: {} games", row.name);
        let percent = |x: f64| (100.0 * x / p.games as f64).round();
        assert_eq!(percent(p.score), n[4], "{label}: {} score", row.name);
        assert_eq!(percent(p.draws as f64), n[6], "{label}: {} draws", row.name);
    }

    // The same table printed with the scale at 100: hundredths of an unscaled Elo.
    let mut worst_x100: f64 = 0.0;
    let unscaled = |x: f64| 100.0 * x / list.scale;
    for (row, &id) in read_table(&read("ratings-x100.txt")).iter().zip(&ranking) {
        let p = &list.players[id];
        let o = list.offset;
        let n = &row.numbers;
        for (ours, theirs, what) in [
            (unscaled(p.elo - o) + o, n[0], "Elo"),
            (unscaled(p.plus), n[1], "+"),
            (unscaled(p.minus), n[2], "-"),
            (unscaled(p.opponent - o) + o, n[5], "oppo."),
        ] {
            // In Elo: the printed value is rounded to 0.01.
            let off = (ours - theirs).abs() / 100.0;
            worst_x100 = worst_x100.max(off);
            assert!(
                off <= 0.02,
                "{label}: {} {what} ×100 {ours} against BayesElo's {theirs}",
                row.name
            );
        }
    }

    // LOS: BayesElo prints int(1000 p).
    let los = list.los.as_ref().unwrap();
    let mut worst_los: f64 = 0.0;
    let name_width = names.iter().map(String::len).max().unwrap();
    for (line, &i) in read("los.txt").lines().skip(1).zip(&ranking) {
        // Fixed width: the name column and a space, then 4 characters a cell.
        let cells = line.as_bytes()[name_width + 1..].chunks(4);
        for (cell, &j) in cells.zip(&ranking) {
            let cell = std::str::from_utf8(cell).unwrap().trim();
            if i == j {
                assert_eq!(cell, "", "{label}: diagonal");
                continue;
            }
            let theirs: f64 = cell.parse().unwrap();
            let ours = los[i][j] * 1000.0;
            let off = (ours - theirs - 0.5).abs() - 0.5;
            worst_los = worst_los.max(off.max(0.0) / 1000.0);
            assert!(
                off <= 2.0,
                "{label}: LOS {} over {} {ours} against BayesElo's {theirs}",
                names[i],
                names[j]
            );
        }
    }
    (worst, worst_x100, worst_los)
}

#[test]
fn fit_equals_bayeselo_on_every_kept_case() {
    for case in cases() {
        let (elo, fine, los) = check_case(&case);
        eprintln!(
            "{}: largest difference {elo:.3} Elo (printed to 1), {fine:.4} Elo unscaled (printed \
             to 0.01), LOS {los:.4}",
            case.display()
        );
    }
}

#[test]
fn tables_equal_bayeselo_text() {
    for case in cases() {
        let read = |name: &str| std::fs::read_to_string(case.join(name)).unwrap();
        let (names, games) = read_pgn(&read("games.pgn"));
        let list = fit(names.len(), &games, &settings(&read("script.txt"))).unwrap();
        assert_eq!(
            render_table(&names, &list, 1),
            read("ratings.txt"),
            "{}",
            case.display()
        );
        assert_eq!(
            render_los(&names, &list, 4),
            read("los.txt"),
            "{}",
            case.display()
        );
    }
}
