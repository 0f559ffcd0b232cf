//! The fault matrix: `pbrain-faulty --fault PHASE:KIND` misbehaving in every way at every phase
//! of the protocol (ABOUT, START, RESTART, the first move, a move in the game, END), and sending
//! a MESSAGE of 1 MiB there (which must change nothing), listed first and listed second (so it plays both colours at every phase, RESTART included), each
//! cell a 2-game run of the built binary with every output on. Each cell checks: the run
//! completes (exit 0); each game ends as the table of faults in docs/reference/terminations.md
//! says (the faulty engine loses
//! with the right termination and reason, after exactly the moves it made before the fault, or
//! the game is not touched at all); the journal holds both games once; PGN, SGF, messages,
//! `.psq` records and samples are what `export` rebuilds from the journal, byte for byte, with
//! two games each, the RenLib library holds both, the report says the run is complete; no
//! process the run started (engines, the `sleep` each faulty engine spawns) is left; and the
//! runner closed every file descriptor it opened.
//!
//! File descriptors are counted by the runner itself (`GOMOKU_CLI_DEBUG_FDS`: its open
//! descriptors just before and just after `runner::run`, see `src/commands/run.rs`) rather than
//! here: counting this test process's own descriptors around an in-process run would need the
//! cells run one after another (in this process, so tokio's process-wide descriptors created on
//! first use would need a warm-up run) and would skip the binary's own start-up; sampling
//! `/proc/PID/fd` of the running binary races with engines being started. The runner's count
//! is taken at two quiescent points of one run, so it is exact and each cell checks its own.
//!
//! The cells are deterministic: the engines are seeded, a fault at `move3` strikes before either
//! side can have five stones (so every game reaches it), and the time limits are far from both
//! an instant engine's answer and the faulty engine's (see `STARTUP_SHORT`).

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;
use serde_json::Value;

/// Every way to misbehave at any phase (`huge-message`, a MESSAGE line of 1 MiB before the
/// answer, is no fault: it must change nothing).
const KINDS: [&str; 10] = [
    "crash",
    "abort",
    "silent-exit",
    "hang",
    "late",
    "garbage",
    "error",
    "huge-line",
    "huge-message",
    "exit-after",
];

/// Ways to misbehave that only a move can have.
const MOVE_KINDS: [&str; 2] = ["illegal", "offboard"];

/// Time limits: short where a cell's fault must wait one out (2 s for START/RESTART and the
/// INFO block's ABOUT; a move lost on time after 0.5 s + a tolerance of 1 s), far longer
/// everywhere else, so an answer slowed by a loaded machine (a 1 MiB MESSAGE takes some 20 ms
/// to read) never decides a cell. `late` answers after 5 s, `hang` never.
const STARTUP_SHORT: &str = "2";
const STARTUP_LONG: &str = "30";
const TC: &str = "tc=0/0.5";
const TOLERANCE_SHORT: &str = "tolerance=1";
const TOLERANCE_LONG: &str = "tolerance=30";

/// Games per cell: the second one is the RESTART of the first one's processes (one slot).
const GAMES: u64 = 2;

/// Game slots running cells at once (each cell is one runner process, mostly waiting).
const THREADS: usize = 6;

/// One run of the matrix.
#[derive(Debug, Clone, Copy)]
struct Cell {
    phase: &'static str,
    kind: &'static str,
    /// The faulty engine is the first `-engine` (black in game 1, white in game 2), or the second.
    faulty_first: bool,
    seed: u64,
}

impl Cell {
    fn name(&self) -> String {
        let order = if self.faulty_first { "first" } else { "second" };
        format!("{}:{} ({order})", self.phase, self.kind)
    }

    /// The faulty engine's `-engine` index.
    fn faulty_index(&self) -> u64 {
        if self.faulty_first {
            0
        } else {
            1
        }
    }

    /// Whether the fault makes the runner wait out a start-up deadline (`None`: no deadline)
    /// or the faulty engine's move deadline.
    fn waits_out(&self) -> Option<&'static str> {
        match (self.phase, self.kind) {
            ("about", "hang" | "late") => Some("startup"),
            ("start" | "restart", "hang" | "late" | "garbage" | "huge-line") => Some("startup"),
            // An ERROR line in place of a move is no answer: the wait goes on to the deadline.
            (phase, "hang" | "late" | "error") if phase.starts_with("move") => Some("move"),
            _ => None,
        }
    }

    /// The move number of a `moveN` phase.
    fn move_number(&self) -> Option<usize> {
        self.phase.strip_prefix("move").and_then(|n| n.parse().ok())
    }
}

/// How a game of a cell must end.
#[derive(Debug, PartialEq)]
enum Expect {
    /// The fault does not touch the game: it ends on the board.
    Untouched,
    /// The faulty engine loses with `termination`, a reason containing `reason`, after making
    /// `stones` moves.
    Loses {
        termination: &'static str,
        reason: String,
        stones: usize,
    },
}

fn loses(termination: &'static str, reason: &str, stones: usize) -> Expect {
    Expect::Loses {
        termination,
        reason: reason.to_string(),
        stones,
    }
}

/// The table of faults (docs/reference/terminations.md), cell by cell: how game `game` ends, the
/// faulty engine playing `colour`.
fn expected(cell: &Cell, game: u64, colour: &str) -> Expect {
    let exited = |k: &str| match k {
        "crash" => "(exit status 3)",
        "abort" => "(SIGABRT)",
        _ => "(exit status 0)",
    };
    let kind = cell.kind;
    if kind == "huge-message" {
        return Expect::Untouched;
    }
    match cell.phase {
        "about" => match kind {
            "crash" | "abort" | "silent-exit" => loses("failed_start", exited(kind), 0),
            "hang" | "late" => loses("failed_start", "did not answer INFO and ABOUT", 0),
            // Any line answers ABOUT (old engines answer free text).
            "garbage" | "error" | "huge-line" => Expect::Untouched,
            // It answered, then died: its first move request finds it gone.
            "exit-after" => loses("crash", "(exit status 0)", 0),
            _ => unreachable!(),
        },
        // RESTART comes in the second game, on the first game's processes.
        "restart" if game == 1 => Expect::Untouched,
        "start" | "restart" => {
            let command = if cell.phase == "start" {
                "START 15"
            } else {
                "RESTART"
            };
            match kind {
                "crash" | "abort" | "silent-exit" => loses("failed_start", exited(kind), 0),
                // No OK comes: the start-up deadline passes.
                "hang" | "late" | "garbage" | "huge-line" => {
                    loses("failed_start", &format!("did not answer {command}"), 0)
                }
                "error" if cell.phase == "start" => {
                    loses("failed_start", "failed to start: ERROR cannot start", 0)
                }
                // The protocol's way: an engine refusing RESTART is started again, with START.
                "error" => Expect::Untouched,
                // OK, then gone before the INFO block's ABOUT is answered.
                "exit-after" => loses("failed_start", "crashed (exit status 0)", 0),
                _ => unreachable!(),
            }
        }
        "end" => Expect::Untouched,
        _ => {
            let n = cell.move_number().expect("a move phase");
            match kind {
                "crash" | "abort" | "silent-exit" => loses("crash", exited(kind), n - 1),
                "hang" | "late" => loses("time_forfeit", "loses on time", n - 1),
                // An ERROR line in place of a move is no answer: the engine loses on time, the
                // line quoted in the reason.
                "error" => loses(
                    "time_forfeit",
                    &format!("having answered only \"ERROR pbrain-faulty: a fault at Move({n})\")"),
                    n - 1,
                ),
                "garbage" => loses("illegal_move", "unparsable move \"hello world\"", n - 1),
                // The 1 MiB answer is quoted cut to 200 characters.
                "huge-line" => loses(
                    "illegal_move",
                    &format!("unparsable move \"{}…\"", "x".repeat(200)),
                    n - 1,
                ),
                // The move was played; the next request finds the engine gone.
                "exit-after" => loses("crash", "(exit status 0)", n),
                // On the empty board (black's first move) there is no occupied point to play.
                "illegal" if n == 1 && colour == "black" => {
                    loses("illegal_move", "15,15 (off the board)", 0)
                }
                "illegal" => loses("illegal_move", "(occupied point)", n - 1),
                "offboard" => loses("illegal_move", "15,15 (off the board)", n - 1),
                _ => unreachable!(),
            }
        }
    }
}

/// The cells of `phase`: each kind that applies, with the faulty engine first and second.
fn cells(phase: &'static str) -> Vec<Cell> {
    let moves = phase.starts_with("move");
    let kinds = KINDS
        .iter()
        .chain(MOVE_KINDS.iter().filter(|_| moves))
        .copied();
    let mut out = Vec::new();
    for (i, kind) in kinds.enumerate() {
        for faulty_first in [true, false] {
            out.push(Cell {
                phase,
                kind,
                faulty_first,
                seed: 1000 + 2 * i as u64 + u64::from(faulty_first),
            });
        }
    }
    out
}

/// What a cell's run left: its exit code, standard error and the processes still alive.
struct Ran {
    code: Option<i32>,
    stderr: String,
    survivors: Vec<(u32, String)>,
}

/// Run the cell's match in `dir` with every output on; the faulty engine is not named, so its
/// ABOUT answer names it.
fn run_cell(cell: &Cell, dir: &Path) -> Ran {
    let faulty = format!(
        "pbrain-faulty --fault {}:{} --late-ms 5000 --spawn-child --seed {}",
        cell.phase, cell.kind, cell.seed
    );
    let random = format!("pbrain-random --seed {}", cell.seed);
    let (startup, faulty_tolerance) = match cell.waits_out() {
        Some("startup") => (STARTUP_SHORT, TOLERANCE_LONG),
        Some(_) => (STARTUP_LONG, TOLERANCE_SHORT),
        None => (STARTUP_LONG, TOLERANCE_LONG),
    };
    let faulty = (faulty.as_str(), faulty_tolerance);
    let random = (random.as_str(), "name=random");
    let (first, second) = if cell.faulty_first {
        (faulty, random)
    } else {
        (random, faulty)
    };
    let args = Match::new()
        .engine(first.0, &[first.1])
        .engine(second.0, &[second.1])
        .each(&[TC, TOLERANCE_LONG])
        .games(GAMES)
        .opt("-startuptimeout", startup)
        .journal("j.jsonl")
        .pgn("g.pgn")
        .sgf("g.sgf")
        .msg("g.msg")
        .psq("psq")
        .samples(&["format=bin_lz4", "file=s.bin.lz4"])
        .args(&["-log", "-logdir", "log"])
        .renlib("g.lib")
        .report("r.html")
        .quiet()
        .noprogress()
        .to_args();
    let tag = unique_tag();
    let out = Command::new(runner())
        .args(&args)
        .current_dir(dir)
        .env(TAG_VAR, &tag)
        .env("GOMOKU_CLI_DEBUG_FDS", "1")
        .stdin(Stdio::null())
        .output()
        .expect("runner starts");
    let survivors = survivors_after(&tag, Duration::from_secs(3));
    kill_tagged(&tag);
    Ran {
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        survivors,
    }
}

/// `(before, after)` from the runner's `debug: open file descriptors: X before the run, Y after it`.
fn fd_counts(stderr: &str) -> Option<(u64, u64)> {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("debug: open file descriptors: "))?;
    let (before, rest) = line.split_once(" before the run, ")?;
    let after = rest.strip_suffix(" after it")?;
    Some((before.parse().ok()?, after.parse().ok()?))
}

/// The problems with one game of a cell's journal (none when it ended as expected).
fn check_game(cell: &Cell, g: &Value, problems: &mut Vec<String>) {
    let n = g["game"].as_u64().unwrap_or(0);
    let mut bad = |what: String| problems.push(format!("game {n}: {what}: {g}"));
    let colour = if g["black_engine"].as_u64() == Some(cell.faulty_index()) {
        "black"
    } else {
        "white"
    };
    let faulty_name = g[colour].as_str().unwrap_or("");
    // An ABOUT answer of any length names the engine in at most 64 characters.
    if faulty_name.chars().count() > 65 {
        bad(format!("a name of {} characters", faulty_name.len()));
    }
    let termination = g["termination"].as_str().unwrap_or("");
    let reason = g["reason"].as_str().unwrap_or("");
    let moves = g["moves"].as_str().unwrap_or("");
    let size = gomoku_cli::core::board::BoardSize::new(15).unwrap();
    let Ok(stones) = gomoku_cli::core::board::parse_pos_sequence(moves, size) else {
        return bad("moves do not parse".into());
    };
    let own = usize::from(colour == "white");
    let faulty_stones = stones.iter().skip(own).step_by(2).count();
    match expected(cell, n, colour) {
        Expect::Untouched => {
            if !["five", "full_board"].contains(&termination) {
                bad(format!("expected an ordinary end, got {termination}"));
            }
        }
        Expect::Loses {
            termination: want,
            reason: text,
            stones: made,
        } => {
            let lost = if colour == "black" { "0-1" } else { "1-0" };
            if g["result"] != lost {
                bad(format!("the faulty engine ({colour}) should lose"));
            }
            if termination != want {
                bad(format!("termination {termination}, expected {want}"));
            }
            if !reason.starts_with(colour) || !reason.contains(&text) {
                bad(format!("reason {reason:?}, expected {colour} ... {text:?}"));
            }
            if faulty_stones != made {
                bad(format!(
                    "the faulty engine made {faulty_stones} moves, expected {made} before the fault"
                ));
            }
        }
    }
}

/// Every record file equals what `export` rebuilds from the journal, with `GAMES` games in each;
/// the RenLib library holds the `with_stones` games that have a stone (a game an engine failed to
/// start has none, and a library holds games as paths of stones).
fn check_records(dir: &Path, with_stones: u64, problems: &mut Vec<String>) {
    let out = Command::new(runner())
        .current_dir(dir)
        .args([
            "export", "j.jsonl", "-pgn", "e.pgn", "-sgf", "e.sgf", "-msg", "e.msg", "-psq", "e-psq",
        ])
        .args(["-sample", "format=bin_lz4", "file=e.bin.lz4"])
        .output()
        .expect("export runs");
    if !out.status.success() {
        problems.push(format!(
            "export failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
        return;
    }
    for (ran, exported) in [
        ("g.pgn", "e.pgn"),
        ("g.sgf", "e.sgf"),
        ("g.msg", "e.msg"),
        ("s.bin.lz4", "e.bin.lz4"),
    ] {
        let a = std::fs::read(dir.join(ran)).unwrap_or_default();
        let b = std::fs::read(dir.join(exported)).unwrap_or_default();
        if a != b {
            problems.push(format!("{ran} differs from its export"));
        }
    }
    let text = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
    let counts = [
        ("PGN games", text("g.pgn").matches("[GameId ").count()),
        ("SGF games", text("g.sgf").matches("(;FF[4]").count()),
        (
            "message blocks",
            text("g.msg")
                .lines()
                .filter(|l| l.starts_with("Game "))
                .count(),
        ),
    ];
    for (what, n) in counts {
        if n as u64 != GAMES {
            problems.push(format!("{n} {what}, expected {GAMES}"));
        }
    }
    let files = |d: &str| -> BTreeSet<(String, Vec<u8>)> {
        std::fs::read_dir(dir.join(d))
            .map(|rd| {
                rd.flatten()
                    .map(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        (name, std::fs::read(e.path()).unwrap_or_default())
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let psq = files("psq");
    if psq.len() as u64 != GAMES || psq != files("e-psq") {
        problems.push(format!(
            "psq/ holds {} records, not the export's",
            psq.len()
        ));
    }
    let lib = Command::new(runner())
        .current_dir(dir)
        .args(["lib", "stats", "g.lib", "--json"])
        .output()
        .expect("lib stats runs");
    let stats: Value = serde_json::from_slice(&lib.stdout).unwrap_or_default();
    // No library is written before a game goes in.
    let archived = stats["games"].as_u64().unwrap_or(0);
    if archived != with_stones || (with_stones > 0 && !lib.status.success()) {
        problems.push(format!(
            "g.lib holds {archived} games, expected {with_stones}: {stats}"
        ));
    }
    if !text("r.html").contains(&format!("complete: {GAMES} of {GAMES} games")) {
        problems.push("r.html does not say the run is complete".into());
    }
    if text("log/gomoku-cli.1.log").is_empty() {
        problems.push("no protocol log".into());
    }
}

/// Run a cell and list everything wrong with it.
fn check_cell(cell: &Cell) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let ran = run_cell(cell, dir.path());
    let mut problems = Vec::new();
    if ran.code != Some(0) {
        problems.push(format!("exit code {:?}: {}", ran.code, ran.stderr));
    }
    if !ran.survivors.is_empty() {
        problems.push(format!("processes outlived the run: {:?}", ran.survivors));
    }
    match fd_counts(&ran.stderr) {
        Some((before, after)) if before == after => {}
        Some((before, after)) => problems.push(format!(
            "open file descriptors: {before} before the run, {after} after it"
        )),
        None => problems.push(format!("no descriptor count: {}", ran.stderr)),
    }
    let text = std::fs::read_to_string(dir.path().join("j.jsonl")).unwrap_or_default();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_default())
        .collect();
    if lines.first().map(|h| &h["type"]) != Some(&Value::from("header")) {
        problems.push("the journal does not start with its header".into());
    }
    let games: Vec<&Value> = lines.iter().skip(1).collect();
    let numbers: BTreeSet<u64> = games.iter().filter_map(|g| g["game"].as_u64()).collect();
    if games.len() as u64 != GAMES || numbers != (1..=GAMES).collect() {
        problems.push(format!(
            "journal games {numbers:?} of {} lines",
            games.len()
        ));
    }
    let with_stones = games
        .iter()
        .filter(|g| g["moves"].as_str().is_some_and(|m| !m.is_empty()))
        .count() as u64;
    for g in games {
        check_game(cell, g, &mut problems);
    }
    check_records(dir.path(), with_stones, &mut problems);
    problems
        .into_iter()
        .map(|p| format!("{}: {p}", cell.name()))
        .collect()
}

/// Run every cell of `phase` (`THREADS` at a time) and fail with every problem found.
fn matrix(phase: &'static str) {
    let cells = cells(phase);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let problems = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(cell) = cells.get(i) else { break };
                let found = check_cell(cell);
                problems.lock().unwrap().extend(found);
            });
        }
    });
    let problems = problems.into_inner().unwrap();
    assert!(
        problems.is_empty(),
        "{} of the {} cells of {phase} went wrong:\n{}",
        problems.len(),
        cells.len(),
        problems.join("\n")
    );
}

#[test]
fn faults_at_about() {
    matrix("about");
}

#[test]
fn faults_at_start() {
    matrix("start");
}

#[test]
fn faults_at_restart() {
    matrix("restart");
}

#[test]
fn faults_at_the_first_move() {
    matrix("move1");
}

#[test]
fn faults_in_the_game() {
    matrix("move3");
}

#[test]
fn faults_at_end() {
    matrix("end");
}
