//! `gomoku-cli openings generate` end to end with the bundled engines: a set made with
//! pbrain-scout loads as `-openings` and a match runs on it; a kill -9 in the middle and the
//! same command again give the bytes of an uninterrupted run; shards split the count; bad
//! options are refused with a clear error.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{engine, spawn_tagged, strs, wait_until, Match, Run};

fn generate(dir: &Path, args: &[&str]) -> Run {
    Match::command(&["openings", "generate"])
        .args(args)
        .run_in(dir)
}

fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path.as_ref())
        .unwrap_or_else(|e| panic!("{}: {e}", path.as_ref().display()))
}

#[test]
fn a_generated_set_loads_as_openings_and_a_match_runs_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let scout = format!("cmd={}", engine("pbrain-scout"));
    let run = generate(
        dir.path(),
        &[
            "-engine",
            &scout,
            "depth=1",
            "-count",
            "6",
            "-stones",
            "2-4",
            "-balance",
            "150",
            "-format",
            "pos",
            "-concurrency",
            "2",
            "-srand",
            "5",
            "-o",
            "set.txt",
        ],
    );
    run.assert_success()
        .assert_stderr_has("6 of 6 openings written")
        .assert_stderr_has("candidates tried");
    let set = read(dir.path().join("set.txt"));
    assert_eq!(set.lines().count(), 6, "{set}");
    // Every evaluation is in the progress file, the kept ones within the window.
    let progress = read(dir.path().join("set.txt.progress"));
    let kept: Vec<i64> = progress
        .lines()
        .skip(1)
        .filter(|l| l.ends_with("\tkept"))
        .map(|l| l.split('\t').nth(1).unwrap().parse().unwrap())
        .collect();
    assert!(
        kept.len() >= 6 && kept.iter().all(|v| v.abs() <= 150),
        "{progress}"
    );
    // Nothing to remove: the set has no duplicates under the symmetries.
    Match::command(&["openings", "canonical", "set.txt", "type=pos"])
        .run_in(dir.path())
        .assert_success()
        .assert_stderr_has("read 6, unique 6");
    let games = Match::new()
        .engine("pbrain-scout", &["name=scout", "depth=1"])
        .engine("pbrain-random", &["name=random"])
        .each(&["tc=5/0.5"])
        .games(6)
        .repeat()
        .openings_file(dir.path().join("set.txt"), &["type=pos"])
        .journal("run.jsonl")
        .noprogress()
        .quiet()
        .run_in(dir.path());
    games.assert_success();
    let journal = games.journal("run.jsonl");
    assert_eq!(journal.len(), 6);
    let first = set.lines().next().unwrap();
    assert!(journal.iter().any(|g| g["opening"] == first), "{first}");
}

/// pbrain-faulty answers each move after 150 ms with an evaluation of +25: slow enough to be
/// killed in the middle, the same evaluation every time.
fn slow_args(faulty: &str) -> Vec<String> {
    [
        "openings",
        "generate",
        "-engine",
        faulty,
        "depth=1",
        "-count",
        "10",
        "-concurrency",
        "2",
        "-rule",
        "4",
        "-o",
        "set.txt",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn a_kill_9_then_the_same_command_gives_the_uninterrupted_set() {
    let faulty = format!(
        "cmd={} --search-good --move-ms 150",
        engine("pbrain-faulty")
    );
    let args = slow_args(&faulty);
    let whole = tempfile::tempdir().unwrap();
    common::run_in(whole.path(), &strs(&args)).assert_success();
    let expected = read(whole.path().join("set.txt"));
    assert_eq!(expected.lines().count(), 10);

    let cut = tempfile::tempdir().unwrap();
    let progress = cut.path().join("set.txt.progress");
    let child = spawn_tagged(cut.path(), &strs(&args));
    let evaluated =
        || std::fs::read_to_string(&progress).map_or(0, |t| t.lines().count().saturating_sub(1));
    wait_until(Duration::from_secs(20), || evaluated() >= 3);
    child.signal(libc::SIGKILL);
    let _ = child.finish();
    let done = evaluated();
    assert!(
        (3..10).contains(&done) && !cut.path().join("set.txt").exists(),
        "killed after {done} evaluations: the run was not in its middle"
    );
    // A write cut in the middle by the kill: the torn line is dropped and done again.
    let mut torn = std::fs::OpenOptions::new()
        .append(true)
        .open(&progress)
        .unwrap();
    std::io::Write::write_all(&mut torn, b"9999\t+2").unwrap();
    let again = common::run_in(cut.path(), &strs(&args));
    again
        .assert_success()
        .assert_stderr_has("from the progress file");
    assert_eq!(read(cut.path().join("set.txt")), expected);
    // Another setting refuses the progress file instead of mixing two generations.
    let mut other = args.clone();
    other.extend(["-balance".into(), "7".into()]);
    common::run_in(cut.path(), &strs(&other))
        .assert_exit(1)
        .assert_stderr_has("made by other settings");
}

#[test]
fn shards_split_the_count_and_write_their_own_files() {
    let dir = tempfile::tempdir().unwrap();
    let scout = format!("cmd={}", engine("pbrain-scout"));
    for shard in ["1/2", "2/2"] {
        generate(
            dir.path(),
            &[
                "-engine", &scout, "depth=1", "-count", "5", "-balance", "300", "-shard", shard,
                "-o", "set.txt",
            ],
        )
        .assert_success();
    }
    let one = read(dir.path().join("set.shard-1-of-2.txt"));
    let two = read(dir.path().join("set.shard-2-of-2.txt"));
    assert_eq!((one.lines().count(), two.lines().count()), (3, 2));
    assert!(one.lines().all(|l| !two.contains(l)), "{one}\n{two}");
}

#[test]
fn bad_options_are_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let scout = format!("cmd={}", engine("pbrain-scout"));
    let base = ["-engine", scout.as_str(), "depth=1"];
    let cases: [(&[&str], &str); 8] = [
        (&["-o", "x.txt"], "-count N is required"),
        (&["-count", "3"], "-o FILE is required"),
        (&["-count", "0", "-o", "x"], "-count \"0\""),
        (
            &["-count", "3", "-o", "x", "-stones", "5-3"],
            "-stones \"5-3\"",
        ),
        (
            &["-count", "3", "-o", "x", "-stones", "12", "-area", "1"],
            "-area 1: the 3x3 square around the centre of the 15x15 board has 9 points, too few \
             for a candidate of 12 stones: -area 2 or more holds them",
        ),
        (
            &["-count", "3", "-o", "x", "-format", "psq"],
            "-format \"psq\"",
        ),
        (
            &["-count", "3", "-o", "x", "-games", "4"],
            "an option of the match runner, not of gomoku-cli openings generate",
        ),
        (
            &["-count", "3", "-o", "x", "-balance", "-5"],
            "-balance \"-5\"",
        ),
    ];
    for (extra, message) in cases {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        generate(dir.path(), &args)
            .assert_exit(2)
            .assert_stderr_has(message);
    }
    // An engine search without a limit would never end.
    let unbounded = format!("cmd={}", engine("pbrain-scout"));
    generate(
        dir.path(),
        &["-engine", &unbounded, "-count", "3", "-o", "x"],
    )
    .assert_exit(2)
    .assert_stderr_has("give depth=, nodes= or tc=");
    assert!(!dir.path().join("x").exists());
}

#[test]
fn an_engine_without_evaluations_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    // pbrain-random plays without reporting a search.
    let random = format!("cmd={}", engine("pbrain-random"));
    generate(
        dir.path(),
        &[
            "-engine", &random, "depth=1", "-count", "3", "-o", "set.txt",
        ],
    )
    .assert_exit(1)
    .assert_stderr_has("no evaluation for 20 candidates in a row")
    .assert_stderr_has("candidate 0: the engine reported no evaluation");
    assert!(!dir.path().join("set.txt").exists());
}

#[test]
fn the_bundled_balanced_sets_load_and_hold_distinct_positions() {
    use gomoku_cli::core::board::BoardSize;
    use gomoku_cli::core::rules::Rule;
    use gomoku_cli::formats::openings::{position_key, OpeningBook, OpeningFormat};
    let size = BoardSize::new(15).unwrap();
    for (name, rule) in [
        ("freestyle15-balanced.txt", Rule::Freestyle),
        ("renju15-balanced.txt", Rule::Renju),
    ] {
        let path = common::repo_root().join("openings").join(name);
        let book = OpeningBook::load(&path, OpeningFormat::Pos, size, rule)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(book.len(), 1000, "{name}");
        let keys: std::collections::HashSet<_> = book
            .openings
            .iter()
            .map(|o| position_key(&o.stones, size))
            .collect();
        assert_eq!(keys.len(), book.len(), "{name}: a position twice");
    }
}

/// A long generation (1000 openings asked of an engine taking 150 ms an evaluation, which
/// starts a child in its group) stopped by Ctrl-C, by SIGINT to a script's background job
/// (started with SIGINT ignored) or by SIGTERM: it ends at once with its summary, saying it was
/// interrupted, writes the openings kept so far (those of the progress file), exits with 130,
/// and leaves no engine running.
#[test]
fn a_signal_stops_generate_with_its_summary_and_the_openings_kept() {
    let faulty = format!(
        "cmd={} --search-good --move-ms 150 --spawn-child",
        engine("pbrain-faulty")
    );
    let mut args = slow_args(&faulty);
    let count = args.iter().position(|a| a == "-count").unwrap() + 1;
    args[count] = "1000".into();
    for (how, sig, background) in [
        ("Ctrl-C", libc::SIGINT, false),
        ("kill -INT of a background job", libc::SIGINT, true),
        ("SIGTERM", libc::SIGTERM, true),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let progress = dir.path().join("set.txt.progress");
        let run = match background {
            true => common::spawn_tagged_in_background(dir.path(), &strs(&args)),
            false => spawn_tagged(dir.path(), &strs(&args)),
        };
        let evaluated = || {
            std::fs::read_to_string(&progress).map_or(0, |t| t.lines().count().saturating_sub(1))
        };
        wait_until(Duration::from_secs(60), || evaluated() >= 3);
        // 1000 evaluations take minutes: a stop within 60 s is the signal's.
        let out = run.stop_with(sig, Duration::from_secs(60));
        out.assert_exit(130)
            .assert_stderr_has("of 1000 openings written")
            .assert_stderr_has("(interrupted: every evaluation is in");
        let kept = read(&progress)
            .lines()
            .filter(|l| l.ends_with("\tkept"))
            .count();
        let written = read(dir.path().join("set.txt")).lines().count();
        assert_eq!(written, kept, "{how}");
        assert!(
            out.stderr
                .contains(&format!(": {written} of 1000 openings written")),
            "{how}: {}",
            out.stderr
        );
    }
}
