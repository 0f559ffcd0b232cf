//! End-to-end tests of a huge `-games` cap, as an open-ended SPRT sets it: a run, a shard of it
//! and a resumed run of 2^32 games start at once and stay in bounded memory (each runner is
//! started with its address space limited to 2 GiB: a list of 2^32 game numbers alone needs
//! 32 GiB, so a runner that built one is refused its memory and aborts instead of playing).

use crate::common;

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;

const CAP: &str = "4294967296";

/// The address space each runner gets: far above what a run needs (thread stacks and malloc
/// arenas reserve a few hundred MiB), far below a list of 2^32 game numbers.
const ADDRESS_SPACE: u64 = 2 << 30;

/// Bounds this wide decide within a few games of two random movers.
const SPRT: &[&str] = &["-sprt", "elo0=0", "elo1=400", "alpha=0.2", "beta=0.2"];

/// pbrain-random against itself, `-games 4294967296`, one slot, then `extra`.
fn args(extra: &[&str]) -> Vec<String> {
    Match::new()
        .engines("pbrain-random", &["A", "B"])
        .boardsize(9)
        .games(CAP)
        .concurrency(1)
        .noprogress()
        .args(extra)
        .to_args()
}

/// The runner in `dir` with its address space limited, tagged like `spawn_tagged`'s.
fn spawn_limited(dir: &Path, args: &[String]) -> Tagged {
    let tag = unique_tag();
    let mut cmd = Command::new(runner());
    cmd.args(args)
        .current_dir(dir)
        .env(TAG_VAR, &tag)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit(2) only, between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: ADDRESS_SPACE,
                rlim_max: ADDRESS_SPACE,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Tagged {
        child: cmd.spawn().expect("runner starts"),
        tag,
        args: args.to_vec(),
        dir: dir.to_path_buf(),
    }
}

/// The journal's header line.
fn header(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

/// The game numbers of a journal, in journal order.
fn numbers(path: &Path) -> Vec<u64> {
    journal_games(path)
        .iter()
        .map(|g| g["game"].as_u64().unwrap())
        .collect()
}

fn text(out: &std::process::Output) -> String {
    format!(
        "exit {:?}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_cap_of_2_pow_32_games_plays_until_the_sprt_decides() {
    let dir = tempfile::tempdir().unwrap();
    let a = args(&[SPRT, &["-journal", "j.jsonl"]].concat());
    let out = spawn_limited(dir.path(), &a).finish();
    let all = text(&out);
    assert!(matches!(out.status.code(), Some(0 | 3)), "{all}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Started game 1 of 4294967296 (A vs B)"),
        "{all}"
    );
    let played = numbers(&dir.path().join("j.jsonl"));
    assert!(!played.is_empty() && played.len() < 1000, "{all}");
    assert_eq!(played, (1..=played.len() as u64).collect::<Vec<_>>());
    assert!(
        stdout.contains(&format!(
            "Finished {} of 4294967296 games (SPRT: H",
            played.len()
        )),
        "{all}"
    );
    let h = header(&dir.path().join("j.jsonl"));
    assert_eq!(h["settings"]["total_games"], 4294967296u64, "{h}");
}

#[test]
fn a_shard_of_a_2_pow_32_game_run_takes_its_own_units_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let a = args(&[&["-repeat", "-shard", "2/3", "-rundir", "run"], SPRT].concat());
    let out = spawn_limited(dir.path(), &a).finish();
    let all = text(&out);
    assert!(matches!(out.status.code(), Some(0 | 3)), "{all}");
    let played = numbers(&dir.path().join("run/shard-2-of-3.journal.jsonl"));
    assert!(played.len() >= 2, "{all}");
    // Shard 2 of 3 owns every third colour-swapped pair: games 3, 4, 9, 10, 15, 16, ...
    let want: Vec<u64> = (0..played.len() as u64)
        .map(|i| 6 * (i / 2) + 3 + i % 2)
        .collect();
    assert_eq!(played, want, "{all}");
}

#[test]
fn a_2_pow_32_game_run_stopped_with_ctrl_c_resumes_where_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let a = args(&["-quiet", "-journal", "j.jsonl"]);
    let journal = dir.path().join("j.jsonl");
    let mut resumed = a.clone();
    resumed.push("-resume".into());
    let mut before = 0;
    for (round, run_args) in [&a, &resumed, &resumed].into_iter().enumerate() {
        let run = spawn_limited(dir.path(), run_args);
        wait_until(Duration::from_secs(60), || {
            numbers(&journal).len() >= before + 3
        });
        run.signal(libc::SIGINT);
        let out = run.finish();
        assert_eq!(out.status.code(), Some(130), "run {round}: {}", text(&out));
        if round > 0 {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let want = format!(
                "{before} games in the journal, {} to play",
                (1u64 << 32) - before as u64
            );
            assert!(stderr.contains(&want), "run {round}: {stderr}");
        }
        // One slot: the game abandoned at the interruption is the next one played.
        let played = numbers(&journal);
        assert!(played.len() >= before + 3, "run {round}");
        assert_eq!(played, (1..=played.len() as u64).collect::<Vec<_>>());
        before = played.len();
    }
}
