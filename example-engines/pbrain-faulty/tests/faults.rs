//! Every fault of pbrain-faulty, driven over stdin/stdout: each one does what its flag promises,
//! and without flags it is a well-behaved random player.

use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

use gomoku_cli::board::{BoardSize, Pos};
use gomoku_cli::rules::Rule;
use pbrain_kit::harness::{play_game, start_game, EngineProcess, GameEnd};
use pbrain_kit::parse_xy;

const BIN: &str = env!("CARGO_BIN_EXE_pbrain-faulty");
/// Generous upper bound for answers that should come at once.
const T: Duration = Duration::from_secs(10);

fn spawn(args: &[&str]) -> EngineProcess {
    let mut all = vec!["--seed", "1"];
    all.extend_from_slice(args);
    EngineProcess::spawn(BIN, &all).unwrap()
}

fn answer(e: &mut EngineProcess) -> String {
    e.recv_answer(T).expect("an answer")
}

fn start(e: &mut EngineProcess) {
    e.send("START 15").unwrap();
    assert_eq!(answer(e), "OK");
}

fn pos(text: &str) -> Pos {
    let (x, y) = parse_xy(text).unwrap_or_else(|| panic!("not a move: {text:?}"));
    Pos::new(x as u8, y as u8)
}

/// START, BEGIN, then `TURN`s on free points until the engine has been asked for `n` moves;
/// returns the answers to the first `n - 1` moves and the stones on the board.
fn play_until(e: &mut EngineProcess, n: u32) -> Vec<Pos> {
    start(e);
    e.send("BEGIN").unwrap();
    let mut stones = Vec::new();
    for _ in 1..n {
        stones.push(pos(&answer(e)));
        let t = BoardSize::STANDARD
            .all()
            .find(|p| !stones.contains(p))
            .unwrap();
        stones.push(t);
        e.send(&format!("TURN {},{}", t.x, t.y)).unwrap();
    }
    stones
}

#[test]
fn plays_legal_games_without_faults() {
    let mut a = spawn(&[]);
    let mut b = EngineProcess::spawn(BIN, &["--seed", "2"]).unwrap();
    for rule in Rule::ALL {
        let size = BoardSize::STANDARD;
        start_game(&mut a, size, rule, &[]).unwrap();
        start_game(&mut b, size, rule, &[]).unwrap();
        let rec = play_game(&mut a, &mut b, rule, size, &[], T).unwrap();
        assert!(!matches!(rec.end, GameEnd::Loss { .. }), "{rule}: {rec:?}");
    }
    a.send("ABOUT").unwrap();
    assert!(answer(&mut a).starts_with("name=\"pbrain-faulty\""));
    assert!(a.finish());
}

#[test]
fn crash_at_exits_with_status_3_when_asked_for_that_move() {
    let mut e = spawn(&["--crash-at", "2"]);
    play_until(&mut e, 2);
    let st = e.wait_exit(T).expect("crashes");
    assert_eq!(st.code(), Some(3));
    // It answered the first move and nothing for the second.
    assert!(e.stdout_closed(T));
}

#[test]
fn abort_at_dies_by_signal() {
    let mut e = spawn(&["--abort-at", "1"]);
    play_until(&mut e, 1);
    let st = e.wait_exit(T).expect("aborts");
    assert_eq!(st.signal(), Some(libc::SIGABRT));
}

#[test]
fn hang_at_never_answers_but_still_ends() {
    let mut e = spawn(&["--hang-at", "1"]);
    play_until(&mut e, 1);
    assert_eq!(e.recv_answer(Duration::from_millis(500)), None);
    // Still reading: further commands are swallowed, END is obeyed.
    e.send("TURN 1,1").unwrap();
    e.send("END").unwrap();
    let st = e.wait_exit(T).expect("exits on END");
    assert!(st.success());
}

#[test]
fn late_at_answers_after_the_delay() {
    let mut e = spawn(&["--late-at", "2", "--late-ms", "300"]);
    play_until(&mut e, 2);
    let t = Instant::now();
    pos(&answer(&mut e));
    // A lower bound only: the engine sleeps at least this long before answering.
    assert!(t.elapsed() >= Duration::from_millis(300));
}

#[test]
fn illegal_at_plays_an_occupied_point() {
    let mut e = spawn(&["--illegal-at", "3"]);
    let stones = play_until(&mut e, 3);
    let m = pos(&answer(&mut e));
    assert!(stones.contains(&m), "{m} not in {stones:?}");
}

#[test]
fn offboard_at_plays_size_size() {
    let mut e = spawn(&["--offboard-at", "1"]);
    play_until(&mut e, 1);
    assert_eq!(answer(&mut e), "15,15");
}

#[test]
fn garbage_at_prints_hello_world() {
    let mut e = spawn(&["--garbage-at", "2"]);
    play_until(&mut e, 2);
    assert_eq!(answer(&mut e), "hello world");
}

#[test]
fn error_at_start() {
    let mut e = spawn(&["--error-at-start"]);
    e.send("START 15").unwrap();
    assert_eq!(answer(&mut e), "ERROR cannot start");
}

#[test]
fn exit_between_moves_after_sending_the_move() {
    let mut e = spawn(&["--exit-between-moves-at", "2"]);
    play_until(&mut e, 2);
    pos(&answer(&mut e));
    let st = e.wait_exit(T).expect("exits");
    assert!(st.success());
}

#[test]
fn ignore_end_survives_end_and_sigterm() {
    let mut e = spawn(&["--ignore-end"]);
    start(&mut e);
    e.send("END").unwrap();
    e.close_stdin();
    assert!(e.wait_exit(Duration::from_millis(300)).is_none());
    // SAFETY: sending a signal to our own child process by its pid.
    unsafe {
        libc::kill(e.pid() as i32, libc::SIGTERM);
    }
    assert!(e.wait_exit(Duration::from_millis(300)).is_none());
    // Dropping the handle kills it with SIGKILL.
}

#[test]
fn banner_messages_at_startup_and_before_about() {
    let mut e = spawn(&["--banner"]);
    let first = e.recv_raw(T).unwrap();
    assert!(first.starts_with("MESSAGE "), "{first}");
    e.send("ABOUT").unwrap();
    let l1 = e.recv_raw(T).unwrap();
    let l2 = e.recv_raw(T).unwrap();
    let l3 = e.recv_raw(T).unwrap();
    assert!(l1.starts_with("MESSAGE ") && l2.starts_with("MESSAGE "));
    assert!(l3.starts_with("name=\"pbrain-faulty\""), "{l3}");
}

#[test]
fn huge_line_before_the_move() {
    let mut e = spawn(&["--huge-line-at", "1"]);
    play_until(&mut e, 1);
    let big = e.recv_raw(T).unwrap();
    assert!(big.starts_with("MESSAGE "));
    assert!(big.len() >= 1 << 20, "{}", big.len());
    pos(&e.recv_raw(T).unwrap());
}

#[test]
fn message_before_every_move() {
    let mut e = spawn(&["--message-every-move"]);
    start(&mut e);
    e.send("BEGIN").unwrap();
    assert!(e.recv_raw(T).unwrap().starts_with("MESSAGE "));
    let m = pos(&e.recv_raw(T).unwrap());
    let t = if m == Pos::new(0, 0) { "1,1" } else { "0,0" };
    e.send(&format!("TURN {t}")).unwrap();
    assert!(e.recv_raw(T).unwrap().starts_with("MESSAGE "));
    pos(&e.recv_raw(T).unwrap());
}

#[test]
fn spawn_child_leaves_a_sleep_process() {
    let mut e = spawn(&["--spawn-child"]);
    let line = e.recv_raw(T).unwrap();
    let pid: i32 = line
        .strip_prefix("MESSAGE spawned child pid ")
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    // Right after the fork the child may not have exec'd `sleep` yet: give it a moment.
    let is_sleep = || {
        std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|c| String::from_utf8_lossy(&c).starts_with("sleep"))
            .unwrap_or(false)
    };
    let start = std::time::Instant::now();
    while !is_sleep() && start.elapsed() < std::time::Duration::from_secs(5) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(is_sleep(), "pid {pid} is a sleep process");
    assert!(e.finish());
    // The engine is gone, the child is not: that is the point of the fault.
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
    // SAFETY: killing the grandchild this test created, by its pid.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
}

#[test]
fn trailing_space_and_crlf() {
    let mut e = spawn(&["--trailing-space"]);
    e.send("START 15").unwrap();
    assert_eq!(e.recv_raw(T).unwrap(), "OK  \r");
    e.send("BEGIN").unwrap();
    let raw = e.recv_raw(T).unwrap();
    assert!(raw.ends_with("  \r"), "{raw:?}");
    pos(raw.trim());
}

#[test]
fn suggest_then_play() {
    let mut e = spawn(&["--suggest"]);
    start(&mut e);
    e.send("BEGIN").unwrap();
    let s = answer(&mut e);
    assert!(s.starts_with("SUGGEST "), "{s}");
    // The manager may impose another point; the engine must take it.
    e.send("PLAY 3,4").unwrap();
    assert_eq!(answer(&mut e), "3,4");
    e.send("TURN 3,5").unwrap();
    let s2 = answer(&mut e);
    let p = pos(s2.strip_prefix("SUGGEST ").unwrap());
    assert!(p != Pos::new(3, 4) && p != Pos::new(3, 5));
}

#[test]
fn fault_at_start_restart_and_about_strikes_there_only() {
    // start: the first START of the process.
    let mut e = spawn(&["--fault", "start:crash"]);
    e.send("ABOUT").unwrap();
    assert!(answer(&mut e).starts_with("name="));
    e.send("START 15").unwrap();
    assert_eq!(e.wait_exit(T).expect("crashes").code(), Some(3));

    // restart: START is answered, RESTART is not.
    let mut e = spawn(&["--fault", "restart:garbage"]);
    start(&mut e);
    e.send("RESTART").unwrap();
    assert_eq!(answer(&mut e), "hello world");

    // about: every ABOUT, and nothing else.
    let mut e = spawn(&["--fault=about:error"]);
    start(&mut e);
    e.send("ABOUT").unwrap();
    assert!(answer(&mut e).starts_with("ERROR "));
    e.send("RESTART").unwrap();
    assert_eq!(answer(&mut e), "OK");
    e.send("ABOUT").unwrap();
    assert!(answer(&mut e).starts_with("ERROR "));
}

#[test]
fn fault_kinds_that_end_or_replace_the_answer() {
    let mut e = spawn(&["--fault", "start:silent-exit"]);
    e.send("START 15").unwrap();
    assert!(e.wait_exit(T).expect("exits").success());
    assert!(e.stdout_closed(T));

    let mut e = spawn(&["--fault", "about:abort"]);
    e.send("ABOUT").unwrap();
    assert_eq!(
        e.wait_exit(T).expect("aborts").signal(),
        Some(libc::SIGABRT)
    );

    // exit-after: the answer comes, then the process is gone.
    let mut e = spawn(&["--fault", "restart:exit-after"]);
    start(&mut e);
    e.send("RESTART").unwrap();
    assert_eq!(answer(&mut e), "OK");
    assert!(e.wait_exit(T).expect("exits").success());

    // huge-line: the answer is one line of 1 MiB.
    let mut e = spawn(&["--fault", "move2:huge-line"]);
    play_until(&mut e, 2);
    let big = answer(&mut e);
    assert!(
        big.len() == 1 << 20 && big.bytes().all(|b| b == b'x'),
        "{}",
        big.len()
    );

    // hang at a start: no answer, still ends on END.
    let mut e = spawn(&["--fault", "start:hang"]);
    e.send("START 15").unwrap();
    assert_eq!(e.recv_answer(Duration::from_millis(300)), None);
    e.send("END").unwrap();
    assert!(e.wait_exit(T).expect("exits on END").success());
}

#[test]
fn fault_at_end_is_the_exit() {
    let mut e = spawn(&["--fault", "end:crash"]);
    start(&mut e);
    e.send("END").unwrap();
    assert_eq!(e.wait_exit(T).expect("exits").code(), Some(3));

    let mut e = spawn(&["--fault", "end:garbage"]);
    start(&mut e);
    e.send("END").unwrap();
    assert_eq!(e.recv_raw(T).as_deref(), Some("hello world"));
    assert!(e.wait_exit(T).expect("exits").success());

    // end:hang is --ignore-end: END and the end of input are ignored.
    let mut e = spawn(&["--fault", "end:hang"]);
    start(&mut e);
    e.send("END").unwrap();
    e.close_stdin();
    assert!(e.wait_exit(Duration::from_millis(300)).is_none());
}

#[test]
fn bad_fault_flags_are_refused_with_usage_status() {
    for bad in [
        "start",
        "move0:crash",
        "start:illegal",
        "midgame:crash",
        "end:explode",
    ] {
        let out = std::process::Command::new(BIN)
            .args(["--fault", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("pbrain-faulty:"));
    }
}
