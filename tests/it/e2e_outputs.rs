//! One output policy for every command, end to end: an output naming a file the command reads,
//! or another output, is refused before any work with both roles named; a device or FIFO is
//! written in place (nothing renamed over it, no side file beside it); a command that cannot
//! produce what it promised exits non-zero.

use crate::common;

use std::path::{Path, PathBuf};

use common::{engine, Match, Run};

/// A run of two games of pbrain-random, its journal `j.jsonl`.
fn two_games() -> Match {
    Match::new()
        .engines("pbrain-random", &["A", "B"])
        .games(2)
        .quiet()
        .noprogress()
        .journal("j.jsonl")
}

/// A finished run of two games: `j.jsonl` in `dir`.
fn small_run(dir: &Path) -> Vec<u8> {
    two_games().run_in(dir).assert_success();
    std::fs::read(dir.join("j.jsonl")).unwrap()
}

fn command(dir: &Path, words: &[&str]) -> Run {
    Match::command(words).run_in(dir)
}

/// A FIFO in `dir` (never under /dev: a wrong decision there would rename over a device).
fn fifo(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let made = std::process::Command::new("mkfifo").arg(&path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
    path
}

#[test]
fn report_and_lib_merge_refuse_to_overwrite_the_journal_they_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let journal = small_run(d);
    command(d, &["report", "j.jsonl", "-o", "./j.jsonl"])
        .assert_exit(1)
        .assert_stderr_has("-o names ./j.jsonl, which is also the input file this command reads");
    // A run directory stands for its journals.
    std::fs::create_dir(d.join("run")).unwrap();
    std::fs::write(d.join("run/a.journal.jsonl"), &journal).unwrap();
    command(d, &["report", "run", "-o", "run/a.journal.jsonl"])
        .assert_exit(1)
        .assert_stderr_has("-o names run/a.journal.jsonl, which is also the input file");
    assert_eq!(
        std::fs::read(d.join("run/a.journal.jsonl")).unwrap(),
        journal
    );
    command(d, &["lib", "merge", "-o", "j.jsonl", "j.jsonl"])
        .assert_exit(1)
        .assert_stderr_has("-o names j.jsonl, which is also the input file");
    assert_eq!(std::fs::read(d.join("j.jsonl")).unwrap(), journal);
    // --into is read whole before the library is replaced: it may be the output.
    command(d, &["lib", "merge", "-o", "a.lib", "j.jsonl"]).assert_success();
    command(
        d,
        &["lib", "merge", "-o", "a.lib", "--into", "a.lib", "j.jsonl"],
    )
    .assert_success();
}

#[test]
fn canonical_refuses_counts_over_its_input_or_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let openings = "h8 h9 i9\nh8 h7 g7\nh8 i8 i9\n";
    std::fs::write(d.join("o.txt"), openings).unwrap();
    let canonical = |out: &str, counts: &str| {
        let words = ["openings", "canonical", "o.txt", "type=pos", "-o", out];
        command(d, &[&words[..], &["--counts", counts]].concat())
    };
    canonical("c.txt", "o.txt")
        .assert_exit(1)
        .assert_stderr_has("--counts names o.txt, which is also the input file this command reads");
    canonical("x.txt", "x.txt")
        .assert_exit(1)
        .assert_stderr_has("-o and --counts name the same file (x.txt)");
    assert_eq!(std::fs::read_to_string(d.join("o.txt")).unwrap(), openings);
    assert!(!d.join("x.txt").exists() && !d.join("c.txt").exists());
}

#[test]
fn export_and_merge_refuse_two_records_in_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    small_run(d);
    command(d, &["export", "j.jsonl", "-pgn", "g.txt", "-sgf", "g.txt"])
        .assert_exit(1)
        .assert_stderr_has("-pgn and -sgf name the same file (g.txt)");
    assert!(!d.join("g.txt").exists());
    command(d, &["merge", "j.jsonl", "-msg", "j.jsonl"])
        .assert_exit(1)
        .assert_stderr_has("-msg names j.jsonl, which is also the input file");
}

/// A tuning of pbrain-random (it ignores the values: only the outputs matter here).
fn tuning(d: &Path) -> Match {
    std::fs::write(d.join("p.txt"), "a, int, 50, 0, 100, 5, 0.002\n").unwrap();
    Match::command(&["tune"])
        .engine("pbrain-random", &[])
        .opt("-params", "p.txt")
        .opt("-iterations", 2)
        .openings_file(
            common::repo_root().join("openings/freestyle15.txt"),
            &["type=pos"],
        )
        .journal("c.jsonl")
        .quiet()
        .noprogress()
}

#[test]
fn tune_outputs_over_its_journal_params_or_each_other_are_refused_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (tuneout, says) in [
        (
            vec!["csv=c.jsonl"],
            "-journal and -tuneout csv= name the same file (c.jsonl)",
        ),
        (
            vec!["params=p.txt"],
            "-tuneout params= names p.txt, which is also the -params file this run reads",
        ),
        (
            vec!["csv=t.csv", "info=./t.csv"],
            "-tuneout csv= and -tuneout info= name the same file (./t.csv)",
        ),
    ] {
        let mut args = vec!["-tuneout"];
        args.extend(tuneout);
        tuning(d)
            .args(&args)
            .run_in(d)
            .assert_exit(1)
            .assert_stderr_has(says);
        assert!(!d.join("c.jsonl").exists(), "no game was played");
    }
    assert_eq!(
        std::fs::read_to_string(d.join("p.txt")).unwrap(),
        "a, int, 50, 0, 100, 5, 0.002\n"
    );
}

#[test]
fn tune_outputs_that_cannot_be_written_stop_it_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("folder")).unwrap();
    for (tuneout, says) in [
        ("csv=", "-tuneout csv=: an empty path"),
        ("csv=folder", "a directory, not a file"),
        ("info=p.txt/x", "p.txt is a file"),
    ] {
        tuning(d)
            .args(&["-tuneout", tuneout])
            .run_in(d)
            .assert_exit(1)
            .assert_stderr_has(says);
        assert!(!d.join("c.jsonl").exists(), "no game was played");
    }
}

#[test]
fn a_tune_output_that_fails_during_the_run_stops_it_with_exit_5() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        eprintln!("skipped: no /dev/full");
        return;
    }
    // The decision first: were it wrong, the run would rename over /dev/full.
    assert!(gomoku_cli::formats::atomic_file::writes_in_place(full));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = tuning(d)
        .args(&["-tuneout", "every=1", "csv=/dev/full"])
        .run_in(d);
    run.assert_exit(5).assert_stderr_has("/dev/full");
    let kind = std::fs::metadata(full).unwrap().file_type();
    assert!(std::os::unix::fs::FileTypeExt::is_char_device(&kind));
}

/// `openings generate` with pbrain-scout at depth 1.
fn generate(d: &Path, count: &str, more: &[&str]) -> Run {
    let scout = format!("cmd={}", engine("pbrain-scout"));
    Match::command(&["openings", "generate"])
        .args(&[
            "-engine", &scout, "depth=1", "-count", count, "-balance", "300",
        ])
        .args(more)
        .run_in(d)
}

#[test]
fn generate_into_a_fifo_writes_through_it_and_makes_no_progress_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pipe = fifo(d, "pipe");
    let reader = {
        let pipe = pipe.clone();
        // Blocks until the command opens the FIFO; left behind if it never does.
        std::thread::spawn(move || std::fs::read_to_string(pipe))
    };
    generate(d, "3", &["-o", "pipe"])
        .assert_success()
        .assert_stderr_has("3 of 3 openings written");
    let kind = std::fs::symlink_metadata(&pipe).unwrap().file_type();
    assert!(
        std::os::unix::fs::FileTypeExt::is_fifo(&kind),
        "the FIFO was replaced by a {kind:?}"
    );
    let names: Vec<_> = std::fs::read_dir(d).unwrap().flatten().collect();
    assert_eq!(names.len(), 1, "nothing beside the FIFO: {names:?}");
    assert_eq!(reader.join().unwrap().unwrap().lines().count(), 3);
}

#[test]
fn generate_short_of_its_count_keeps_what_it_made_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // One stone within distance 0 of the centre: a single candidate.
    let run = generate(d, "5", &["-stones", "1-1", "-area", "0", "-o", "set.txt"]);
    run.assert_exit(1)
        .assert_stderr_has("1 of 5 openings written")
        .assert_stderr_has("set.txt: only 1 of the 5 openings asked for");
    assert_eq!(
        std::fs::read_to_string(d.join("set.txt"))
            .unwrap()
            .lines()
            .count(),
        1
    );
}

/// A process id no process has: the kernel hands out ids below `pid_max` only.
fn dead_pid() -> u32 {
    let max = std::fs::read_to_string("/proc/sys/kernel/pid_max").unwrap_or_default();
    max.trim().parse().unwrap_or(4_194_304)
}

#[test]
fn resume_removes_the_temporary_files_a_killed_run_left_and_no_others() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = || two_games().psq("psq").renlib("r.lib");
    run().run_in(d).assert_success();
    let dead = dead_pid();
    // This test's own process is alive: its files stand for a runner still writing.
    let live = std::process::id();
    let stale = [
        format!("psq/.game-000002.psq.{dead}.tmp"),
        format!(".r.lib.{dead}.tmp"),
    ];
    let keep = [
        format!("psq/.game-000001.psq.{live}.tmp"),
        format!("psq/.notes.txt.{dead}.tmp"),
        format!(".j.jsonl.{dead}.tmp"),
    ];
    for f in stale.iter().chain(&keep) {
        std::fs::write(d.join(f), "half a file").unwrap();
    }
    run()
        .resume()
        .run_in(d)
        .assert_success()
        .assert_stderr_has("removed 2 temporary files a killed run left");
    for f in &stale {
        assert!(!d.join(f).exists(), "{f} was left");
    }
    for f in &keep {
        assert!(d.join(f).exists(), "{f} was removed");
    }
}
