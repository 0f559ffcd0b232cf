//! Every fault of pbrain-faulty, driven over stdin/stdout: each one does what its flag promises,
//! and without flags it is a well-behaved random player.

use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

use gomoku_cli::core::board::{BoardSize, Pos};
use gomoku_cli::core::rules::Rule;
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
        turn_on_first_free(e, &mut stones);
    }
    stones
}

/// `TURN` on the first free point in reading order, added to `stones`.
fn turn_on_first_free(e: &mut EngineProcess, stones: &mut Vec<Pos>) {
    let t = BoardSize::STANDARD
        .all()
        .find(|p| !stones.contains(p))
        .unwrap();
    stones.push(t);
    e.send(&format!("TURN {},{}", t.x, t.y)).unwrap();
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

/// Moves asked with their search lines: for each, the lines printed since the previous move
/// and the move.
type Transcript = Vec<(Vec<String>, Pos)>;

/// The lines up to the next line that `is_end` accepts, and that line.
fn lines_until(e: &mut EngineProcess, is_end: impl Fn(&str) -> bool) -> (Vec<String>, String) {
    let mut lines = Vec::new();
    loop {
        let line = e.recv_raw(T).expect("a line");
        if is_end(&line) {
            return (lines, line);
        }
        lines.push(line);
    }
}

/// START, BEGIN, then TURNs on the first free points until `moves` moves were asked; the
/// transcript and the lines printed after the last move (read up to the answer to ABOUT).
fn search_transcript(args: &[&str], moves: usize) -> (Transcript, Vec<String>) {
    let mut e = spawn(args);
    start(&mut e);
    e.send("BEGIN").unwrap();
    let mut stones: Vec<Pos> = Vec::new();
    let mut out = Vec::new();
    for i in 0..moves {
        let (lines, mv) = lines_until(&mut e, |l| parse_xy(l).is_some());
        out.push((lines, pos(&mv)));
        stones.push(pos(&mv));
        if i + 1 < moves {
            turn_on_first_free(&mut e, &mut stones);
        }
    }
    e.send("ABOUT").unwrap();
    let (tail, _) = lines_until(&mut e, |l| l.starts_with("name="));
    assert!(e.finish());
    (out, tail)
}

fn moves_of(t: &Transcript) -> Vec<Pos> {
    t.iter().map(|m| m.1).collect()
}

/// The well-formed one-PV depth-1 block faulty prints for `mv` with `eval`.
fn good_block(mv: Pos, eval: i32, time_ms: u64) -> Vec<String> {
    // One node: a million a second when the time rounds to 0 ms.
    let speed = 1000u64.checked_div(time_ms).unwrap_or(1_000_000);
    let winrate = 1.0 / (1.0 + (-f64::from(eval) / 200.0).exp());
    [
        "INFO PV 0".to_string(),
        "INFO NUMPV 1".into(),
        "INFO DEPTH 1".into(),
        "INFO SELDEPTH 1".into(),
        "INFO NODES 1".into(),
        "INFO TOTALNODES 1".into(),
        format!("INFO TOTALTIME {time_ms}"),
        format!("INFO SPEED {speed}"),
        format!("INFO EVAL {eval}"),
        format!("INFO WINRATE {winrate:.4}"),
        format!("INFO BESTLINE {},{}", mv.x, mv.y),
        "INFO PV DONE".into(),
    ]
    .to_vec()
}

#[test]
fn search_faults_keep_the_moves_and_print_nothing_by_default() {
    let (plain, tail) = search_transcript(&[], 3);
    assert!(plain.iter().all(|m| m.0.is_empty()) && tail.is_empty());
    let (all, _) = search_transcript(
        &[
            "--search-good",
            "--search-garbage-at",
            "2",
            "--search-flood",
            "30",
            "--search-cut-at",
            "3",
            "--search-after-move-at",
            "1",
        ],
        3,
    );
    assert_eq!(moves_of(&all), moves_of(&plain));
}

#[test]
fn search_good_prints_a_complete_block_for_the_move_played() {
    let (t, tail) = search_transcript(&["--search-good"], 3);
    for (before, mv) in t {
        assert_eq!(before, good_block(mv, 25, 1));
    }
    assert!(tail.is_empty());
}

#[test]
fn search_garbage_from_move_n_prints_malformed_lines() {
    let (t, _) = search_transcript(&["--search-garbage-at", "2"], 3);
    assert!(t[0].0.is_empty());
    for (before, _) in &t[1..] {
        for bad in [
            "INFO EVAL banana",
            "INFO DEPTH -3",
            "MESSAGE depth x-y ev ?? pv ZZ99",
            "INFO EVAL 99999999999",
        ] {
            assert!(before.iter().any(|l| l == bad), "{bad} missing");
        }
        let huge = before
            .iter()
            .find_map(|l| l.strip_prefix("INFO BESTLINE "))
            .expect("a BESTLINE");
        assert_eq!(huge.split(' ').count(), 10_000);
    }
}

#[test]
fn search_flood_prints_n_lines_before_every_move() {
    let (t, _) = search_transcript(&["--search-flood", "100000"], 2);
    for (before, mv) in t {
        assert_eq!(before.len(), 100_000);
        let block = good_block(mv, 0, 0);
        assert!(before.iter().zip(block.iter().cycle()).all(|(a, b)| a == b));
    }
}

#[test]
fn search_cut_at_prints_a_block_without_its_end() {
    let (t, _) = search_transcript(&["--search-good", "--search-cut-at", "2"], 3);
    let (before, mv) = &t[1];
    let good = good_block(*mv, 25, 1);
    assert_eq!(before[..12], good[..]);
    // The cut block: PV 0 … EVAL 50, no PV DONE.
    assert_eq!(before[12..], good_block(*mv, 50, 1)[..9]);
    assert_eq!(before.last().unwrap(), "INFO EVAL 50");
    assert_eq!(t[0].0, good_block(t[0].1, 25, 1));
    assert_eq!(t[2].0, good_block(t[2].1, 25, 1));
}

#[test]
fn search_after_move_at_prints_a_block_after_the_move_line() {
    let (t, tail) = search_transcript(&["--search-after-move-at", "1"], 2);
    // The block of move 1 comes after its move line, before the next move's.
    assert!(t[0].0.is_empty());
    assert_eq!(t[1].0, good_block(t[0].1, 75, 60_000));
    assert!(tail.is_empty());
    // With the turn time announced, TOTALTIME is that time.
    let mut e = spawn(&["--search-after-move-at", "1"]);
    start(&mut e);
    e.send("INFO timeout_turn 5000").unwrap();
    e.send("BEGIN").unwrap();
    let (before, mv) = lines_until(&mut e, |l| parse_xy(l).is_some());
    assert!(before.is_empty());
    e.send("ABOUT").unwrap();
    let (after, _) = lines_until(&mut e, |l| l.starts_with("name="));
    assert_eq!(after, good_block(pos(&mv), 75, 5000));
    assert!(e.finish());
}

#[test]
fn yxnbest_is_unknown_and_yxboard_sets_the_position() {
    let mut e = spawn(&[]);
    start(&mut e);
    for l in ["YXBOARD", "7,7,1", "8,8,2", "DONE", "YXNBEST 2", "TURN 7,8"] {
        e.send(l).unwrap();
    }
    assert_eq!(answer(&mut e), "UNKNOWN command \"YXNBEST 2\"");
    // The position held (the TURN stone added to it): the move is on none of its stones.
    let mv = pos(&answer(&mut e));
    assert!(![Pos::new(7, 7), Pos::new(8, 8), Pos::new(7, 8)].contains(&mv));
    assert!(e.finish());
}
