//! Engines that must not share (`slots=N`, `-ponder`) and `restart=`, end to end: pbrain-random
//! `--exclusive` holds a lock while it thinks and writes down every time it finds the lock taken
//! by the same engine thinking in another game, so a cap that does not hold shows as clashes.

use crate::common;

use std::path::Path;

use common::*;

/// How many times `lock`'s engine thought while the same engine thought in another game.
fn clashes(lock: &Path) -> usize {
    let mut path = lock.as_os_str().to_owned();
    path.push(".clashes");
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

/// The `-log` files of a run in `dir`, one after another.
fn protocol_logs(dir: &Path) -> String {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect()
}

/// `gpu` (an exclusive witness, one lock) against three other engines, four slots: every game
/// is `gpu`'s in a gauntlet, so without a cap four of its games run at once.
fn gauntlet(dir: &Path, lock: &Path, gpu_keys: &[&str], extra: &[&str]) -> Run {
    let exclusive = format!("pbrain-random --exclusive {} --think-ms 15", lock.display());
    let mut keys = vec!["name=gpu"];
    keys.extend_from_slice(gpu_keys);
    Match::new()
        .engine(&exclusive, &keys)
        .engines("pbrain-random", &["B", "C", "D"])
        .boardsize(9)
        .games(4)
        .concurrency(4)
        .args(&["-gauntlet", "-journal", "j.jsonl"])
        .args(extra)
        .run_in(dir)
}

#[test]
fn slots_1_keeps_an_engine_in_one_game_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    // The witness sees the overlap a cap must prevent: without one, its games clash.
    let free_lock = dir.path().join("free.lock");
    let free = gauntlet(dir.path(), &free_lock, &[], &[]);
    free.assert_success();
    assert!(
        clashes(&free_lock) > 0,
        "four games at once of one engine never overlapped: the witness sees nothing"
    );

    let capped = tempfile::tempdir().unwrap();
    let lock = capped.path().join("gpu.lock");
    let run = gauntlet(capped.path(), &lock, &["slots=1"], &[]);
    run.assert_success();
    assert_eq!(clashes(&lock), 0, "{}", run.stdout);
    assert_eq!(run.journal("j.jsonl").len(), 12, "every game");
    assert!(
        run.stderr.contains("let at most 1 game run at once"),
        "the cap's effect on -concurrency is said: {}",
        run.stderr
    );
}

#[test]
fn ponder_keeps_every_engine_in_one_game_and_asks_it_to_ponder() {
    let dir = tempfile::tempdir().unwrap();
    let locks: Vec<_> = ["a", "b", "c", "d"]
        .iter()
        .map(|n| dir.path().join(format!("{n}.lock")))
        .collect();
    let mut m = Match::new();
    for (lock, name) in locks.iter().zip(["A", "B", "C", "D"]) {
        let spec = format!("pbrain-random --exclusive {} --think-ms 10", lock.display());
        m = m.engine(&spec, &[&format!("name={name}")]);
    }
    let run = m
        .boardsize(9)
        .games(2)
        .concurrency(4)
        .args(&["-ponder", "-journal", "j.jsonl", "-log"])
        .run_in(dir.path());
    run.assert_success();
    for lock in &locks {
        assert_eq!(clashes(lock), 0, "{}: {}", lock.display(), run.stdout);
    }
    // Six pairs, two games each (the journal's lines: the games, after the header).
    assert_eq!(run.journal("j.jsonl").len(), 12);
    let logs = protocol_logs(dir.path());
    assert!(logs.contains("INFO pondering 1"), "{logs}");
}

#[test]
fn ponder_and_suspend_are_refused_together() {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engines("pbrain-random", &["A", "B"])
        .args(&["-ponder", "-suspend"])
        .run_in(dir.path());
    run.assert_exit(1)
        .assert_stderr_has("-ponder and -suspend cannot be used together");
}

#[test]
fn restart_on_starts_a_fresh_process_for_every_game() {
    // With restart=off one process plays the slot's games (RESTART between them); with
    // restart=on each game is a new process: the logs show one START per game and no RESTART.
    let count = |keys: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        let mut a = vec!["name=A"];
        a.extend_from_slice(keys);
        let run = Match::new()
            .engine("pbrain-random", &a)
            .engine("pbrain-random", &["name=B"])
            .boardsize(9)
            .games(3)
            .args(&["-log"])
            .run_in(dir.path());
        run.assert_success();
        let logs = protocol_logs(dir.path());
        let sent = |what: &str| logs.lines().filter(|l| l.contains(what)).count();
        (sent("] A < START "), sent("] A < RESTART"))
    };
    assert_eq!(count(&[]), (1, 2), "restart=off");
    assert_eq!(count(&["restart=on"]), (3, 0), "restart=on");
}
