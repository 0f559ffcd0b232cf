//! Evaluations and multi-PV groups in training samples, end to end: engines that report their
//! search (pbrain-scout, pbrain-faulty `--search-good`) give binpack and binpack_lz4 files in
//! which every reported move carries its evaluation, checked by `tests/python/binpack_evals.py`
//! (the trainer's layout read with python-lz4) against the journal's `search` field; csv's
//! evaluation column; `samples stats`; `export` writes the same samples from the journal.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use gomoku_cli::formats::samples::{read_samples, SampleFormat, StoredSample};

/// Whether python3 with python-lz4 is usable; absent, the test is skipped except on CI.
fn have_python_lz4() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import lz4.frame"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "python3 with lz4 is required on CI"
        );
        eprintln!("skipping: python3 with lz4 is not available");
    }
    ok
}

/// The counts `binpack_evals.py` prints after checking `samples` against `journal`:
/// games, moves, moves with an evaluation, multi-PV groups, other PV moves.
fn python_check(samples: &Path, journal: &Path) -> [u64; 5] {
    let script = common::repo_root().join("tests/python/binpack_evals.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(samples)
        .arg(journal)
        .output()
        .unwrap();
    common::assert_ok(&out, "binpack_evals.py");
    let text = String::from_utf8_lossy(&out.stdout);
    let numbers: Vec<u64> = text
        .split_whitespace()
        .skip(1)
        .step_by(2)
        .map(|n| n.parse().unwrap())
        .collect();
    numbers.try_into().unwrap_or_else(|_| panic!("{text}"))
}

/// How many moves of the journal's games carry a report with an evaluation.
fn journal_evals(journal: &Path) -> usize {
    common::journal_games(journal)
        .iter()
        .flat_map(|g| g["search"].as_array().cloned().unwrap_or_default())
        .filter(|s| s.get("ev").is_some())
        .count()
}

fn openings() -> String {
    let file = common::repo_root().join("openings/freestyle15.txt");
    format!("file={}", file.display())
}

/// `games` games of pbrain-scout against itself at depth 2, at concurrency 2, writing the
/// journal `j.jsonl` and `sample.binpack.lz4` with the `-sample` keys `keys`: the file, the
/// journal and the samples as our reader reads them.
fn scout_self_play(dir: &Path, games: u64, keys: &[&str]) -> (PathBuf, PathBuf, Vec<StoredSample>) {
    common::Match::new()
        .engines("pbrain-scout", &["a", "b"])
        .each(&["tc=0/5", "depth=2"])
        .games(games)
        .concurrency(2)
        .openings(&[&openings(), "type=pos"])
        .journal("j.jsonl")
        .samples(&[&["format=binpack_lz4"], keys].concat())
        .noprogress()
        .run_in(dir)
        .assert_success();
    let (file, journal) = (dir.join("sample.binpack.lz4"), dir.join("j.jsonl"));
    let stored = read_samples(&file, SampleFormat::BinpackLz4).unwrap();
    assert!(!stored.is_empty());
    (file, journal, stored)
}

/// What `samples stats FILE` prints, after checking it succeeds.
fn stats_text(file: &Path) -> String {
    let stats = Command::new(common::runner())
        .args(["samples", "stats"])
        .arg(file)
        .output()
        .unwrap();
    common::assert_ok(&stats, "samples stats");
    String::from_utf8_lossy(&stats.stdout).into_owned()
}

#[test]
fn scout_self_play_gives_every_move_of_the_binpack_an_evaluation() {
    let dir = tempfile::tempdir().unwrap();
    let (file, journal, stored) = scout_self_play(dir.path(), 4, &[]);
    assert!(stored.iter().all(|s| s.eval.is_some()), "{stored:?}");
    // Our reader agrees with the journal on the number of evaluations.
    assert_eq!(stored.len(), journal_evals(&journal));
    if have_python_lz4() {
        let [games, moves, evals, groups, _] = python_check(&file, &journal);
        assert_eq!((games, evals, groups), (4, moves, 0));
        assert_eq!(moves, stored.len() as u64);
    }
    let text = stats_text(&file);
    assert!(
        text.contains(&format!("with an evaluation: {} (100.0%)\n", stored.len())),
        "{text}"
    );
    // export rebuilds the same samples from the journal's search field.
    common::Match::command(&["export", "j.jsonl"])
        .samples(&["format=binpack_lz4", "file=again.binpack.lz4"])
        .run_in(dir.path())
        .assert_success();
    let again = read_samples(
        &dir.path().join("again.binpack.lz4"),
        SampleFormat::BinpackLz4,
    );
    assert_eq!(again.unwrap(), stored);
}

#[test]
fn moves_without_a_report_keep_no_evaluation_in_binpack_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let run = |format: &str, extra: &[&str]| {
        common::Match::new()
            .engine("pbrain-faulty --search-good", &["name=heard"])
            .engine("pbrain-random", &["name=silent"])
            .games(2)
            .repeat()
            .openings(&[&openings(), "type=pos"])
            .journal(format!("{format}.jsonl"))
            .samples(&[&[format!("format={format}").as_str()], extra].concat())
            .noprogress()
            .run_in(dir.path())
            .assert_success();
        dir.path().join(format!("{format}.jsonl"))
    };
    let journal = run("binpack", &[]);
    let file = dir.path().join("sample.binpack");
    let stored = read_samples(&file, SampleFormat::Binpack).unwrap();
    let heard = journal_evals(&journal);
    assert!(
        heard > 0 && heard < stored.len(),
        "{heard} of {}",
        stored.len()
    );
    // pbrain-faulty's reports say 25 (side to move's view) for every move it plays.
    let evals: Vec<i16> = stored.iter().filter_map(|s| s.eval).collect();
    assert_eq!(evals, vec![25; heard]);
    if have_python_lz4() {
        let [_, moves, evals, groups, _] = python_check(&file, &journal);
        assert_eq!(
            (moves, evals, groups),
            (stored.len() as u64, heard as u64, 0)
        );
    }

    // csv with eval=on: a fourth field, 25 on the reporting engine's moves, empty elsewhere.
    let journal = run("csv", &["eval=on"]);
    let text = std::fs::read_to_string(dir.path().join("sample.csv")).unwrap();
    let last: Vec<&str> = text
        .lines()
        .map(|l| l.rsplit(',').next().unwrap())
        .collect();
    assert!(text.lines().all(|l| l.split(',').count() == 4), "{text}");
    assert_eq!(
        last.iter().filter(|v| **v == "25").count(),
        journal_evals(&journal)
    );
    assert!(last.iter().all(|v| *v == "25" || v.is_empty()), "{text}");
}

#[test]
fn multipv_writes_each_moves_group_with_the_played_move_first() {
    let dir = tempfile::tempdir().unwrap();
    let (file, journal, stored) = scout_self_play(dir.path(), 2, &["multipv=3"]);
    // Asked for 3 best moves, scout gives 2 others where the board has them (a forced move
    // may leave fewer, a position already lost too).
    let groups = stored.iter().filter(|s| !s.alternatives.is_empty()).count();
    assert!(groups > stored.len() / 2, "{groups} of {}", stored.len());
    assert!(stored.iter().all(|s| s.alternatives.len() <= 2));
    for s in &stored {
        assert!(s
            .alternatives
            .iter()
            .all(|a| a.mv != s.mv && a.eval.is_some()));
    }
    if have_python_lz4() {
        let [games, moves, evals, python_groups, others] = python_check(&file, &journal);
        assert_eq!((games, moves, evals), (2, stored.len() as u64, moves));
        assert_eq!(python_groups, groups as u64);
        let ours: usize = stored.iter().map(|s| s.alternatives.len()).sum();
        assert_eq!(others, ours as u64);
    }
    let text = stats_text(&file);
    assert!(
        text.contains(&format!("multi-PV groups: {groups} (")),
        "{text}"
    );
}
