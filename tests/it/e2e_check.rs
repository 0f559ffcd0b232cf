//! `gomoku-cli check`: the bundled engines pass every item they support, and each fault of
//! `pbrain-faulty` is caught by the item meant for it (the first failing item of the check, in
//! its order), with a non-zero exit; warnings do not fail the check. Every run goes through
//! `run_in`, which also asserts that no engine process outlives the check.

use crate::common;

use common::*;
use serde_json::Value;
use std::time::Duration;

/// Runs `check --json` on `cmd` with `extra` options; returns the exit code and the items as
/// (name, status, detail).
fn check(cmd: &str, extra: &[&str]) -> (Option<i32>, Vec<(String, String, String)>) {
    let dir = tempfile_dir();
    let run = Match::command(&["check"])
        .engine_cmd(cmd, extra)
        .opt("-startuptimeout", 2)
        .arg("--json")
        .run_in(dir.path());
    let json: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("check --json output is JSON ({e}): {}", run.stdout));
    let items = json["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| {
            let s = |k: &str| i[k].as_str().expect(k).to_string();
            (s("name"), s("status"), s("detail"))
        })
        .collect();
    (run.code(), items)
}

/// A directory of its own for one check, removed when dropped (the copies of engines these
/// tests make are ~90 MB each: left behind, they filled the disk).
fn tempfile_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("gc-check-")
        .tempdir()
        .expect("temp dir")
}

fn with_status<'a>(items: &'a [(String, String, String)], status: &str) -> Vec<&'a str> {
    items
        .iter()
        .filter(|i| i.1 == status)
        .map(|i| i.0.as_str())
        .collect()
}

#[test]
fn bundled_engines_pass_everything_they_support() {
    for (name, extra) in [
        (
            "pbrain-scout",
            &["-rule", "0,1,4", "-boardsize", "15,20"][..],
        ),
        ("pbrain-random", &["-rule", "0,4"][..]),
    ] {
        let (code, items) = check(&engine(name), extra);
        assert_eq!(
            with_status(&items, "fail"),
            Vec::<&str>::new(),
            "{name}: {items:?}"
        );
        assert_eq!(
            with_status(&items, "warn"),
            Vec::<&str>::new(),
            "{name}: {items:?}"
        );
        assert_eq!(code, Some(0), "{name}");
        for item in [
            "prefix",
            "about",
            "start 15",
            "start 20",
            "info",
            "begin",
            "restart",
            "turn",
            "board",
            "board winning line",
            "swap2board",
            "takeback",
            "play freestyle",
            "play renju",
            "full board",
            "many stones",
            "renju forbidden",
            "time 5s/120s",
            "time 1s/20s",
            "memory",
            "folder",
            "messages",
            "stderr",
            "noise",
            "end",
            "leftover",
        ] {
            assert!(
                items.iter().any(|i| i.0 == item && i.1 == "pass"),
                "{name}: {item} did not pass: {items:?}"
            );
        }
    }
}

/// Each fault, and the item that must be the first to fail on it.
const FAULTS: &[(&str, &str)] = &[
    ("--fault about:crash", "about"),
    ("--fault start:crash", "start 15"),
    ("--fault start:hang", "start 15"),
    ("--fault start:error", "board size"),
    ("--fault about:hang", "about"),
    ("--fault start:silent-exit", "start 15"),
    ("--fault move1:crash", "begin"),
    ("--fault move1:abort", "begin"),
    ("--fault move1:huge-line", "begin"),
    ("--fault move1:exit-after", "restart"),
    ("--fault restart:hang", "restart"),
    ("--fault move1:illegal", "begin"),
    ("--fault move1:garbage", "begin"),
    ("--fault move1:offboard", "begin"),
    ("--fault restart:crash", "restart"),
    ("--fault move3:crash", "play freestyle"),
    ("--fault move2:offboard", "play freestyle"),
    ("--fault move2:late --late-ms 2500", "time 1s/20s"),
    ("--alloc-at 2 --alloc-mb 150", "memory"),
    ("--fault end:hang", "end"),
    ("--fault takeback:crash", "takeback"),
    ("--fault takeback:hang", "takeback"),
    ("--fault takeback:garbage", "takeback"),
    ("--fault takeback:ignore", "takeback"),
    ("--spawn-child", "leftover"),
    ("--spawn-daemon", "leftover"),
];

#[test]
fn each_fault_is_caught_by_its_item() {
    let faulty = engine("pbrain-faulty");
    for (fault, item) in FAULTS {
        let cmd = format!("{faulty} --seed 1 {fault}");
        // 60 MB of max_memory: a limit the 150 MiB allocation passes, the engine otherwise not.
        let (code, items) = check(&cmd, &["maxmemory=60000000"][..]);
        let failed = with_status(&items, "fail");
        assert_eq!(failed.first(), Some(item), "{fault}: {items:?}");
        assert_eq!(code, Some(1), "{fault}: a failed item fails the check");
    }
}

#[test]
fn warnings_do_not_fail_the_check() {
    let faulty = engine("pbrain-faulty");
    for (fault, item) in [
        ("--fault restart:error", "restart"),
        ("--fault move1:huge-message", "messages"),
        ("--fault about:garbage", "about"),
        ("--fault end:crash", "end"),
        ("--fault takeback:error", "takeback"),
    ] {
        let cmd = format!("{faulty} --seed 1 {fault}");
        let (code, items) = check(&cmd, &[]);
        assert_eq!(with_status(&items, "fail"), Vec::<&str>::new(), "{fault}");
        assert_eq!(
            with_status(&items, "warn"),
            vec![item],
            "{fault}: {items:?}"
        );
        assert_eq!(code, Some(0), "{fault}");
    }
}

#[test]
fn a_program_without_the_prefix_fails_and_the_table_says_so() {
    // A copy of a bundled engine under a name the judge rejects.
    let dir = tempfile_dir();
    let copy = dir.path().join("random-engine");
    std::fs::copy(engine("pbrain-random"), &copy).expect("copy");
    let run = Match::command(&["check"])
        .engine_cmd(&copy.to_string_lossy(), &[])
        .run_in(dir.path());
    run.assert_exit(1);
    let prefix = run.lines_starting("fail  prefix");
    assert_eq!(prefix.len(), 1, "{}", run.stdout);
    assert!(prefix[0].contains("pbrain-"), "{}", prefix[0]);
    run.assert_stderr_has("1 check item(s) failed");
}

#[test]
fn bad_lists_are_refused_with_the_value() {
    let dir = tempfile_dir();
    let check = || Match::command(&["check"]).engine("pbrain-random", &[]);
    check()
        .rule("0,7")
        .run_in(dir.path())
        .assert_exit(1)
        .assert_stderr_has("-rule \"7\"");
    check()
        .engine("pbrain-random", &[])
        .run_in(dir.path())
        .assert_exit(2)
        .assert_stderr_has("exactly one -engine");
    let run = Match::command(&["help", "check"]).run_in(dir.path());
    run.assert_success();
    assert!(
        run.stdout.starts_with("usage: gomoku-cli check"),
        "{}",
        run.stdout
    );
}

/// A shell-script engine named `name`: OK to START/RESTART, an ABOUT line, `extra` case arms
/// first, INFO ignored, `answer` to every move request; with the directory that holds it.
fn script_engine(name: &str, extra: &str, answer: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile_dir();
    let script = dir.path().join(name);
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n\
             while read -r line; do\n\
               case \"$line\" in\n\
                 {extra}\n\
                 START*|RESTART*) echo OK;;\n\
                 INFO*) ;;\n\
                 ABOUT*) echo 'name=\"x\", version=\"1\", author=\"a\", country=\"c\"';;\n\
                 END*) exit 0;;\n\
                 BEGIN*|TURN*|DONE*) echo '{answer}';;\n\
               esac\n\
             done\n"
        ),
    )
    .expect("script");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    (dir, script)
}

/// An engine that always answers 7,7 takes the double-three point of the renju item as black:
/// that item fails and says so.
#[test]
fn black_on_a_forbidden_point_fails_the_renju_item() {
    let (_dir, script) = script_engine("pbrain-center", "", "7,7");
    let (code, items) = check(&script.to_string_lossy(), &["-rule", "4"]);
    assert_eq!(code, Some(1));
    let item = items
        .iter()
        .find(|i| i.0 == "renju forbidden")
        .expect("renju item");
    assert_eq!(item.1, "fail", "{items:?}");
    assert!(item.2.contains("7,7: forbidden point"), "{item:?}");
}

/// A script engine that answers the unknown INFO key with ERROR (as Rapfi does) and plays
/// nothing useful: the first failure is `info`, and the session is not left out of step (the
/// START items pass on the fresh process).
#[test]
fn an_answer_to_info_fails_info_and_the_start_items_stay_in_step() {
    let (_dir, script) = script_engine(
        "pbrain-answers-info",
        "\"INFO gomoku_cli_check_unknown_key\"*) echo 'ERROR unknown key';;",
        "not a move",
    );
    let (code, items) = check(&script.to_string_lossy(), &[]);
    assert_eq!(code, Some(1));
    let failed = with_status(&items, "fail");
    assert_eq!(failed.first(), Some(&"info"), "{items:?}");
    let info = items.iter().find(|i| i.0 == "info").expect("info item");
    assert!(
        info.2.contains("unknown key") && info.2.contains("ERROR unknown key"),
        "{info:?}"
    );
    for start in ["start 15", "start 20"] {
        assert!(
            items.iter().any(|i| i.0 == start && i.1 == "pass"),
            "{start}: {items:?}"
        );
    }
}

/// An engine that leaves a process in its group and another that escaped it (setsid, double
/// fork): exactly `leftover` fails, naming both with their command lines, and the check kills
/// them (`run_in` asserts that nothing of the run is alive after it).
#[test]
fn what_an_engine_leaves_running_after_end_fails_leftover_and_is_killed() {
    let faulty = engine("pbrain-faulty");
    let cmd = format!("{faulty} --seed 1 --spawn-child --spawn-daemon");
    let (code, items) = check(&cmd, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(with_status(&items, "fail"), vec!["leftover"], "{items:?}");
    let leftover = items.iter().find(|i| i.0 == "leftover").expect("leftover");
    for part in [
        "left running after END",
        "`sleep 1000` (in its process group)",
        "`sleep 1000` (escaped its process group)",
    ] {
        assert!(leftover.2.contains(part), "{part}: {leftover:?}");
    }
}

/// An engine whose BOARD reader dies on a winning-line line (field 3) fails that item first;
/// one that plays on the winning line's points is warned about it.
#[test]
fn board_with_a_winning_line_is_checked() {
    let (_dir, script) = script_engine("pbrain-no-field-3", "[0-9]*,[0-9]*,3*) exit 1;;", "0,0");
    let (code, items) = check(&script.to_string_lossy(), &[]);
    assert_eq!(code, Some(1));
    let failed = with_status(&items, "fail");
    assert_eq!(failed.first(), Some(&"board winning line"), "{items:?}");
    // 7,4 is on the winning line of a 15x15 board (five points above the centre's 5x5).
    let (_dir, script) = script_engine("pbrain-on-the-line", "DONE*) echo '7,4';;", "0,0");
    let (_, items) = check(&script.to_string_lossy(), &["-boardsize", "15"]);
    let item = items
        .iter()
        .find(|i| i.0 == "board winning line")
        .expect("winning line item");
    assert_eq!(item.1, "warn", "{items:?}");
    assert!(item.2.contains("7,4 is on the winning line"), "{item:?}");
}

/// An engine that answers OK to TAKEBACK but keeps the stone refuses the TURN on that point:
/// `takeback` fails and says why.
#[test]
fn a_takeback_that_keeps_the_stone_fails_and_says_so() {
    let cmd = format!(
        "{} --seed 1 --fault takeback:ignore",
        engine("pbrain-faulty")
    );
    let (code, items) = check(&cmd, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(with_status(&items, "fail"), vec!["takeback"], "{items:?}");
    let item = items.iter().find(|i| i.0 == "takeback").expect("takeback");
    assert!(item.2.contains("the stone was kept"), "{item:?}");
}

/// Runs `check` (table output) on `cmd` with `extra` options: the run, for its exit code,
/// table and closing line.
fn check_table(cmd: &str, extra: &[&str]) -> Run {
    let dir = tempfile_dir();
    Match::command(&["check"])
        .engine_cmd(cmd, extra)
        .opt("-startuptimeout", 2)
        .run_in(dir.path())
}

fn item<'a>(items: &'a [(String, String, String)], name: &str) -> &'a (String, String, String) {
    items
        .iter()
        .find(|i| i.0 == name)
        .unwrap_or_else(|| panic!("no {name} item: {items:?}"))
}

/// An engine of renju only, which refuses `INFO rule 0`, checked with `-rule 4`: every game is
/// started with `INFO rule 4`, so nothing fails. (Before, the start items sent rule 0 and the
/// refusal was blamed on the unknown INFO key.)
#[test]
fn every_game_is_started_with_the_rule_under_test() {
    let cmd = format!("{} --seed 1 --refuse-info rule=0", engine("pbrain-faulty"));
    let (code, items) = check(&cmd, &["-rule", "4", "-boardsize", "15"]);
    assert_eq!(with_status(&items, "fail"), Vec::<&str>::new(), "{items:?}");
    assert_eq!(item(&items, "info").1, "pass", "{items:?}");
    assert_eq!(code, Some(0));
}

/// An engine that refuses a key the judge sends (`max_memory`): the refusal stays when the
/// unknown key is left out, so `info` blames the judge's block, not the unknown key, and the
/// start items pass (the engine plays on). Its ABOUT answer, which comes after the refusal, is
/// not noise (before, the fresh process's was read late and counted).
#[test]
fn a_refusal_is_judged_on_the_line_that_caused_it() {
    let cmd = format!(
        "{} --seed 1 --refuse-info max_memory",
        engine("pbrain-faulty")
    );
    let (code, items) = check(&cmd, &["-boardsize", "15"]);
    assert_eq!(code, Some(1));
    assert_eq!(with_status(&items, "fail"), vec!["info"], "{items:?}");
    let info = &item(&items, "info").2;
    assert!(
        info.contains("the judge's INFO block") && info.contains("max_memory"),
        "{info}"
    );
    assert!(!info.contains("unknown key"), "{info}");
    assert_eq!(item(&items, "noise").1, "pass", "{items:?}");
}

/// An engine that refuses only the unknown INFO key (as Rapfi does): `info` fails but only as
/// information (the judge sends no unknown key), and the closing line says that the judge acts
/// on none of the failures.
#[test]
fn a_refused_unknown_key_is_informational() {
    let cmd = format!(
        "{} --seed 1 --refuse-info gomoku_cli_check_unknown_key",
        engine("pbrain-faulty")
    );
    let (_, items) = check(&cmd, &["-boardsize", "15"]);
    assert_eq!(with_status(&items, "fail"), vec!["info"], "{items:?}");
    let run = check_table(&cmd, &["-boardsize", "15"]);
    run.assert_exit(1);
    run.assert_stderr_has("1 check item(s) failed, none that the Gomocup judge acts on: info");
    assert!(
        run.stdout.contains("1 fail (0 the judge acts on)"),
        "{}",
        run.stdout
    );
}

/// `cmd=env ENGINE` and `cmd=sh SCRIPT`: the prefix is checked on the file the launcher runs
/// (`wine X.exe` alike), not on `env` or `sh`.
#[test]
fn the_prefix_is_checked_on_the_file_a_launcher_runs() {
    let (_, items) = check(&format!("env {}", engine("pbrain-random")), &[]);
    let prefix = item(&items, "prefix");
    assert_eq!(prefix.1, "pass", "{prefix:?}");
    assert!(prefix.2.contains("pbrain-random"), "{prefix:?}");
    let (_dir, script) = script_engine("random-script", "", "7,7");
    let (_, items) = check(&format!("sh {}", script.display()), &["-boardsize", "15"]);
    let prefix = item(&items, "prefix");
    assert_eq!(prefix.1, "fail", "{prefix:?}");
    assert!(prefix.2.contains("random-script"), "{prefix:?}");
}

/// An engine that, like Rapfi, is still busy for a moment after printing its move and drops a
/// command that comes then: the check waits as an opponent would, and nothing fails. (Before,
/// its instant requests were refused or went unanswered: begin, turn, board and play failed.)
#[test]
fn an_engine_busy_just_after_its_move_is_given_an_opponent_s_pause() {
    let cmd = format!(
        "{} --seed 1 --busy-after-move-ms 10",
        engine("pbrain-faulty")
    );
    let (code, items) = check(&cmd, &["-boardsize", "15"]);
    assert_eq!(with_status(&items, "fail"), Vec::<&str>::new(), "{items:?}");
    assert_eq!(code, Some(0));
}

/// The search-output item reads the reports the session hears: well-formed ones pass, with
/// the count; unreadable lines warn; an engine that prints none is skipped.
#[test]
fn the_search_output_item_checks_the_reports_it_hears() {
    let faulty = engine("pbrain-faulty");
    let (_, items) = check(
        &format!("{faulty} --seed 1 --search-good"),
        &["-boardsize", "15"],
    );
    let search = item(&items, "search output");
    assert_eq!(search.1, "pass", "{search:?}");
    assert!(search.2.contains("deepest depth 1"), "{search:?}");
    let (_, items) = check(
        &format!("{faulty} --seed 1 --search-garbage-at 2"),
        &["-boardsize", "15"],
    );
    let search = item(&items, "search output");
    assert_eq!(search.1, "warn", "{search:?}");
    assert!(search.2.contains("could not be read"), "{search:?}");
    let (_, items) = check(&format!("{faulty} --seed 1"), &["-boardsize", "15"]);
    assert_eq!(item(&items, "search output").1, "skip", "{items:?}");
}

/// Forked helpers sharing the engine's memory: `memory` judges the summed PSS, which counts
/// the shared pages once, and shows USS and RSS beside it. With maxmemory 100 MB (a limit of
/// about 127 MiB) 8 helpers sharing 40 MiB pass, where the summed RSS (over 320 MiB) failed.
#[test]
fn the_memory_item_judges_the_summed_pss_and_shows_rss_and_uss() {
    let cmd = format!(
        "{} --seed 1 --forks 8 --fork-mb 40",
        engine("pbrain-faulty")
    );
    let (_, items) = check(&cmd, &["maxmemory=100000000", "-boardsize", "15"]);
    let memory = item(&items, "memory");
    assert_eq!(memory.1, "pass", "{items:?}");
    for part in ["PSS", "USS", "RSS"] {
        assert!(memory.2.contains(part), "{memory:?}");
    }
}

/// An engine that prints `ERROR`, `UNKNOWN` and `DEBUG` lines before each move (Rapfi's
/// TIME_LEFT refusals): the moves still count, and the `stray lines` item warns with the counts
/// (the match's journal counts the same lines per game) without failing the check; the bundled
/// engines print none.
#[test]
fn lines_that_are_no_answer_are_counted_by_the_stray_lines_item() {
    let cmd = format!("{} --seed 1 --error-noise", engine("pbrain-faulty"));
    let (code, items) = check(&cmd, &["-rule", "0", "-boardsize", "15"]);
    let (_, status, detail) = item(&items, "stray lines");
    assert_eq!(status, "warn", "{items:?}");
    let errors: u64 = detail
        .split(" ERROR")
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a count of ERROR lines first: {detail}"));
    assert!(errors >= 2, "{detail}");
    assert!(
        !detail.contains(" 0 UNKNOWN") && !detail.contains(" 0 DEBUG"),
        "{detail}"
    );
    assert_eq!(with_status(&items, "fail"), Vec::<&str>::new(), "{items:?}");
    assert_eq!(code, Some(0));
    let (_, items) = check(&engine("pbrain-scout"), &["-rule", "0", "-boardsize", "15"]);
    assert_eq!(item(&items, "stray lines").1, "pass", "{items:?}");
}

/// How a signal reaches a long command: Ctrl-C, SIGINT to a script's background job (started
/// with SIGINT ignored), SIGTERM.
const STOPS: [(&str, i32, bool); 3] = [
    ("Ctrl-C", libc::SIGINT, false),
    ("kill -INT of a background job", libc::SIGINT, true),
    ("SIGTERM", libc::SIGTERM, false),
];

/// A check of an engine that never answers ABOUT, with 600 s to answer: its items print as they
/// are decided (the first before the engine is asked anything), and a signal stops it at once
/// with the items so far, the count line saying it was interrupted, exit code 130, and the
/// engine killed with the child in its group and the daemon that escaped it.
#[test]
fn check_prints_each_item_as_it_comes_and_a_signal_stops_it_with_them() {
    let hung = format!(
        "{} --fault about:hang --spawn-child --spawn-daemon",
        engine("pbrain-faulty")
    );
    for (how, sig, background) in STOPS {
        let dir = tempfile_dir();
        let m = Match::command(&["check"])
            .engine_cmd(&hung, &[])
            .opt("-startuptimeout", 600);
        let mut run = match background {
            true => m.spawn_in_background(dir.path()),
            false => m.spawn_in(dir.path()),
        };
        let out = run.follow_stdout();
        let streamed = out.wait_for("pass  prefix", Duration::from_secs(60));
        // The engine and its two sleepers are up before the signal, so it must kill them.
        wait_until(Duration::from_secs(60), || {
            tagged_processes(&run.tag).len() >= 4
        });
        // Far less than the 600 s the check would wait, far more than stopping takes.
        let finished = run.stop_with(sig, Duration::from_secs(60));
        let stdout = out.all();
        assert!(streamed, "{how}: no item before the end: {stdout:?}");
        finished.assert_exit(130);
        assert!(stdout.starts_with("check of "), "{how}: {stdout}");
        assert!(
            stdout.contains("1 pass, 0 warn, 0 fail (0 the judge acts on), 0 skip (interrupted"),
            "{how}: {stdout}"
        );
        finished.assert_stderr_has("Interrupted");
    }
}

/// `check --json` stopped by a signal still prints its one document, with the items decided
/// and `"interrupted": true`; exit code 130.
#[test]
fn check_json_stopped_by_a_signal_prints_the_items_so_far() {
    let dir = tempfile_dir();
    let mut run = Match::command(&["check"])
        .engine("pbrain-faulty --fault about:hang --spawn-child", &[])
        .opt("-startuptimeout", 600)
        .arg("--json")
        .spawn_in_background(dir.path());
    let out = run.follow_stdout();
    wait_until(Duration::from_secs(60), || {
        tagged_processes(&run.tag).len() >= 3
    });
    let finished = run.stop_with(libc::SIGINT, Duration::from_secs(60));
    finished.assert_exit(130);
    let stdout = out.all();
    let json: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("check --json output is JSON ({e}): {stdout}"));
    assert_eq!(json["interrupted"], true, "{json}");
    assert_eq!(json["items"][0]["name"], "prefix", "{json}");
}
