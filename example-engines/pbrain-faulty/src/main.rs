//! pbrain-faulty: an engine that misbehaves on request, to test how a manager copes with crashes,
//! hangs, late or illegal moves, garbage output, stray processes and protocol quirks.
//!
//! Every fault is a command-line flag and they combine freely. The general form is
//! `--fault PHASE:KIND`: at one of the protocol's exchanges (`about`, `start`, `restart`, the
//! N-th move asked in a game `moveN`, `takeback`, `end`) the engine misbehaves in one way (crash, hang,
//! garbage, ...), every time that exchange comes. The older flags (`--crash-at N`,
//! `--error-at-start`, `--ignore-end`, ...) are shorthands for some of these. Without faults it
//! plays random legal moves.
//!
//! Search reports (the `INFO PV` … `INFO PV DONE` detail blocks and `MESSAGE depth …` lines of
//! engines like Rapfi) have faults of their own, printed whatever `INFO show_detail` says:
//! `--search-garbage-at N` (from move N: malformed lines, out-of-range values, a `BESTLINE` of
//! 10,000 moves), `--search-flood N` (N lines of detail blocks before every move),
//! `--search-cut-at N` (at move N a block cut before `INFO PV DONE`), `--search-after-move-at N`
//! (at move N a complete block after the move line) and `--search-good` (a well-formed block,
//! `INFO EVAL 25` at depth 1 naming the move played, before every move). Before a move they come
//! in that order: garbage, flood, good, cut. None changes the moves played.
//!
//! Chatter that is no answer: `--message-flood N` (N `MESSAGE` lines before every move),
//! `--error-noise` (before every move the lines Rapfi prints when a line reaches it while it
//! finishes its last move, `ERROR Unknown command: TIME_LEFT` and the like, then the move) and
//! `--control-chars` (a NUL, a bell, an escape sequence and a tab in its `ABOUT` name and in a
//! `MESSAGE` before every move).

use std::io::{self, Write};
use std::process::{Command as Process, Stdio};
use std::time::Duration;

use gomoku_cli::core::board::Pos;
use pbrain_kit::report::{PvReport, Value};
use pbrain_kit::{
    about_line, arg_value, random_legal_move, seed_from_args, Action, Command, GameState, Input,
    Output,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const USAGE: &str = "usage: pbrain-faulty [--seed N] [--fault PHASE:KIND]... [--late-ms M]
  [--crash-at N] [--abort-at N] [--hang-at N] [--late-at N] [--illegal-at N] [--offboard-at N]
  [--garbage-at N] [--error-at-start] [--exit-between-moves-at N] [--ignore-end] [--banner]
  [--huge-line-at N] [--message-every-move] [--spawn-child] [--spawn-daemon]
  [--trailing-space] [--suggest]
  [--slow-info-ms M] [--alloc-at N --alloc-mb M] [--burn] [--move-ms M] [--report-cpus]
  [--start-cpu-ms M] [--forks N [--fork-mb M]] [--refuse-info KEY[=VALUE],...]
  [--busy-after-move-ms M]
  [--swap-unknown] [--swap-garbage] [--swap-occupied] [--swap-offboard] [--swap-wrong-count]
  [--swap-always] [--swap-two]
  [--search-garbage-at N] [--search-flood N] [--search-cut-at N] [--search-after-move-at N]
  [--search-good]
  [--message-flood N] [--error-noise] [--control-chars]

--fault PHASE:KIND (repeatable) misbehaves at every PHASE exchange:
  PHASE  about | start | restart | moveN (the N-th move asked in a game, from 1) | takeback
         | end
  KIND   crash         exit with status 3 instead of answering
         abort         abort() (SIGABRT) instead of answering
         silent-exit   exit with status 0 instead of answering
         hang          never answer again (at end: ignore END, end of input and SIGTERM)
         late          answer after --late-ms (default 2000)
         garbage       answer `hello world`
         error         answer `ERROR ...`
         huge-line     answer a line of 1 MiB
         huge-message  a MESSAGE line of 1 MiB, then the answer
         exit-after    answer, then exit with status 0
         illegal       (moveN only) an occupied point (off the board on an empty board)
         offboard      (moveN only) the point SIZE,SIZE
         ignore        (takeback only) answer OK but keep the stone
  At end the answer is the exit: `garbage`, `error` and `huge-line` print it before exiting.
Shorthands: --crash-at N = --fault moveN:crash (abort, hang, late, illegal, offboard, garbage
alike), --exit-between-moves-at N = moveN:exit-after, --huge-line-at N = moveN:huge-message,
--error-at-start = start:error, --ignore-end = end:hang.
--spawn-child starts `sleep 1000` in the engine's process group at start-up, --spawn-daemon one
that escapes it (setsid and a double fork through sh); neither is ever waited for or killed.
--forks N writes --fork-mb M MiB (default 64) at start-up, then forks N helpers that share those
pages with it (copy-on-write, never written again) and sleep until it exits: resident memory
summed over the processes counts the pages N+1 times, the memory they take once.
--refuse-info KEY[=VALUE],... answers `ERROR` to those INFO lines (any value of a bare KEY), as
an engine of one rule refuses the others, and plays on.
--busy-after-move-ms M: for M ms after each move it is still thinking, as Rapfi is between
printing its move and marking itself idle: a command read then is dropped and the words after
it refused one by one (`INFO time_left 5000` gives `ERROR Unknown command: TIME_LEFT` and
`ERROR Unknown command: 5000`, `RESTART` nothing); END is taken even then.
Search reports (printed whatever INFO show_detail says; the moves stay the same):
  --search-garbage-at N    from move N, malformed lines before each move (INFO EVAL banana,
                           INFO DEPTH -3, MESSAGE depth x-y ev ?? pv ZZ99, INFO EVAL 99999999999,
                           an INFO BESTLINE of 10,000 moves, ...)
  --search-flood N         before every move, N lines of detail blocks (EVAL 0, the move played)
  --search-cut-at N        at move N, a block cut after INFO EVAL 50 (no INFO PV DONE)
  --search-after-move-at N at move N, a complete block (EVAL 75, TOTALTIME the turn time)
                           after the move line
  --search-good            before every move, a complete block: DEPTH 1, EVAL 25, BESTLINE the
                           move played
  Before a move: garbage, flood, good, cut, then the move.
Chatter (before every move, before the search reports):
  --message-flood N        N lines `MESSAGE flood line I of N` (written in large batches)
  --error-noise            `ERROR Unknown command: TIME_LEFT`, `ERROR Unknown command: 1000`,
                           `UNKNOWN noise`, `DEBUG noise`, then the move
  --control-chars          its ABOUT name is `faulty` + NUL, BEL, ESC `[31m`, TAB and `end`,
                           and a MESSAGE holding the same before every move";

/// The control characters `--control-chars` puts in its name and messages.
const CONTROL_TEXT: &str = "faulty\0nul\x07bel\x1b[31mesc\ttab end";

/// Exit status of a `crash` fault.
const CRASH_STATUS: i32 = 3;

/// The length of a `huge-line` or `huge-message` line.
const HUGE: usize = 1 << 20;

/// An exchange of the protocol at which a fault strikes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// `ABOUT` (asked to learn the name, and after each game's INFO block).
    About,
    /// `START` (or `RECTSTART`): a new process's first game, or a new board size.
    Start,
    /// `RESTART`: the next game on the same process.
    Restart,
    /// The N-th move asked in a game (`BEGIN`, `TURN` or `BOARD`), from 1.
    Move(u32),
    /// `TAKEBACK`.
    Takeback,
    /// `END`.
    End,
}

impl std::str::FromStr for Phase {
    type Err = String;

    fn from_str(s: &str) -> Result<Phase, String> {
        Ok(match s {
            "about" => Phase::About,
            "start" => Phase::Start,
            "restart" => Phase::Restart,
            "takeback" => Phase::Takeback,
            "end" => Phase::End,
            _ => match s.strip_prefix("move").map(str::parse::<u32>) {
                Some(Ok(n)) if n >= 1 => Phase::Move(n),
                _ => {
                    return Err(format!(
                    "unknown phase {s:?}: about, start, restart, moveN (N from 1), takeback or end"
                ))
                }
            },
        })
    }
}

/// A way to misbehave at a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Crash,
    Abort,
    SilentExit,
    Hang,
    Late,
    Garbage,
    Error,
    HugeLine,
    HugeMessage,
    ExitAfter,
    Illegal,
    OffBoard,
    Ignore,
}

impl Kind {
    const ALL: [(&'static str, Kind); 13] = [
        ("crash", Kind::Crash),
        ("abort", Kind::Abort),
        ("silent-exit", Kind::SilentExit),
        ("hang", Kind::Hang),
        ("late", Kind::Late),
        ("garbage", Kind::Garbage),
        ("error", Kind::Error),
        ("huge-line", Kind::HugeLine),
        ("huge-message", Kind::HugeMessage),
        ("exit-after", Kind::ExitAfter),
        ("illegal", Kind::Illegal),
        ("offboard", Kind::OffBoard),
        ("ignore", Kind::Ignore),
    ];
}

/// `PHASE:KIND`, e.g. `start:crash`, `move3:hang`.
fn parse_fault(text: &str) -> Result<(Phase, Kind), String> {
    let (phase, kind) = text
        .split_once(':')
        .ok_or_else(|| format!("--fault expects PHASE:KIND, got {text:?}"))?;
    let phase: Phase = phase.parse()?;
    let kind = Kind::ALL
        .iter()
        .find(|(name, _)| *name == kind)
        .map(|&(_, k)| k)
        .ok_or_else(|| {
            let names: Vec<&str> = Kind::ALL.iter().map(|(n, _)| *n).collect();
            format!("unknown fault kind {kind:?}: {}", names.join(", "))
        })?;
    if matches!(kind, Kind::Illegal | Kind::OffBoard) && !matches!(phase, Phase::Move(_)) {
        return Err(format!(
            "--fault {text}: an illegal move needs a move phase (moveN)"
        ));
    }
    if kind == Kind::Ignore && phase != Phase::Takeback {
        return Err(format!("--fault {text}: ignore is a takeback fault"));
    }
    Ok((phase, kind))
}

/// The faults that strike at one exchange, in the order they act.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Strike {
    /// Exit (or abort) at once, without answering.
    quit: Option<Kind>,
    hang: bool,
    late: bool,
    huge_message: bool,
    /// The line sent instead of the answer.
    replace: Option<Kind>,
    exit_after: bool,
    /// `OK` without doing it (a TAKEBACK that keeps the stone).
    ignore: bool,
}

#[derive(Debug, Default)]
struct Faults {
    /// `--fault PHASE:KIND` and the shorthands, in the order given.
    table: Vec<(Phase, Kind)>,
    late_ms: u64,
    banner: bool,
    message_every_move: bool,
    spawn_child: bool,
    spawn_daemon: bool,
    trailing_space: bool,
    suggest: bool,
    /// Milliseconds of work on `INFO max_memory` (a hash table being allocated), before reading on.
    slow_info_ms: u64,
    /// At move N, take `alloc_mb` MiB (every page written) and think 2 s before answering.
    alloc_at: Option<u32>,
    alloc_mb: u64,
    /// A background thread that spins for ever (pondering that never yields the CPU).
    burn: bool,
    /// Sleep this long before every move (a slow opponent that takes no CPU).
    move_ms: u64,
    /// Spin the CPU this long before answering `START`/`RESTART` (a hash table being filled).
    start_cpu_ms: u64,
    /// Before every move, `MESSAGE cpus LIST`: the CPUs the process may run on, and
    /// `MESSAGE runner cpus slots-1=LIST ...`: those of the runner's game-slot threads.
    report_cpus: bool,
    /// Helpers forked at start-up, sharing `fork_mb` MiB written before the fork.
    forks: u32,
    fork_mb: u64,
    /// INFO lines answered `ERROR`: (key, value), any value when `None`.
    refuse_info: Vec<(String, Option<String>)>,
    /// How long after a move commands are dropped.
    busy_after_move: Duration,
    /// How to answer `SWAP2BOARD` (default: the kit's policy).
    swap: SwapFault,
    /// Faults of the search reports.
    search: SearchFaults,
    /// `MESSAGE` lines before every move.
    message_flood: u64,
    /// Refusals about a line it half read, then the move, every move.
    error_noise: bool,
    /// Control characters in its name and messages.
    control_chars: bool,
}

/// What pbrain-faulty prints of a "search" around its moves.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct SearchFaults {
    /// From this move on, malformed and out-of-range report lines before each move.
    garbage_from: Option<u32>,
    /// Lines of well-formed detail blocks before every move.
    flood: u32,
    /// At this move, a detail block cut before its end.
    cut_at: Option<u32>,
    /// At this move, a complete detail block after the move line.
    after_move_at: Option<u32>,
    /// A well-formed detail block before every move.
    good: bool,
}

/// A one-PV depth-1 detail block for `mv` with `eval`, taking `elapsed`.
fn block(mv: Option<Pos>, eval: i32, elapsed: Duration) -> Vec<String> {
    PvReport {
        index: 0,
        count: 1,
        depth: 1,
        seldepth: 1,
        nodes: 1,
        total_nodes: 1,
        elapsed,
        eval: Value::Score(eval),
        line: mv.into_iter().collect(),
    }
    .detail_lines()
}

/// Lines no manager should keep: bad numbers, bad moves, values out of range, a huge line.
fn search_garbage(size: u8) -> Vec<String> {
    let huge: Vec<String> = (0..10_000u32)
        .map(|i| {
            format!(
                "{},{}",
                i % u32::from(size),
                i / u32::from(size) % u32::from(size)
            )
        })
        .collect();
    let mut lines: Vec<String> = [
        "INFO PV 0",
        "INFO NUMPV 1",
        "INFO DEPTH -3",
        "INFO EVAL banana",
        "INFO PV DONE",
        "MESSAGE depth x-y ev ?? pv ZZ99",
        "MESSAGE depth 3-3 ev 99999999999 n 1 n/ms 1 tm 0 pv H8",
        "INFO PV 7",
        "INFO NUMPV 2",
        "INFO EVAL +Mbanana",
        "INFO PV DONE",
        "INFO PV 0",
        "INFO NUMPV 1",
        "INFO DEPTH 2",
        "INFO SELDEPTH 2",
        "INFO NODES 10",
        "INFO TOTALNODES 10",
        "INFO TOTALTIME 1",
        "INFO SPEED 10000",
        "INFO EVAL 99999999999",
        "INFO WINRATE 7.5",
    ]
    .map(String::from)
    .to_vec();
    lines.push(format!("INFO BESTLINE {}", huge.join(" ")));
    lines.push("INFO PV DONE".into());
    lines
}

impl SearchFaults {
    /// The report lines before move `n` (`mv` the move about to be played, if any).
    fn before_move(&self, n: u32, mv: Option<Pos>, size: u8) -> Vec<String> {
        let mut lines = Vec::new();
        if self.garbage_from.is_some_and(|from| n >= from) {
            lines.extend(search_garbage(size));
        }
        let flood = block(mv, 0, Duration::ZERO);
        lines.extend(flood.iter().cycle().take(self.flood as usize).cloned());
        if self.good {
            lines.extend(block(mv, 25, Duration::from_millis(1)));
        }
        if self.cut_at == Some(n) {
            let cut = block(mv, 50, Duration::from_millis(1));
            let eval = cut
                .iter()
                .position(|l| l == "INFO EVAL 50")
                .expect("an EVAL line");
            lines.extend(cut.into_iter().take(eval + 1));
        }
        lines
    }

    /// The report lines after move `n`: a whole turn's search (`turn`), reported late.
    fn after_move(&self, n: u32, mv: Option<Pos>, turn: Duration) -> Vec<String> {
        if self.after_move_at != Some(n) {
            return Vec::new();
        }
        block(mv, 75, turn)
    }
}

impl Faults {
    /// What strikes at `phase` (every fault given for it; of several that end the exchange, the
    /// first given wins).
    fn at(&self, phase: Phase) -> Strike {
        let mut s = Strike::default();
        for &(p, kind) in &self.table {
            if p != phase {
                continue;
            }
            match kind {
                Kind::Crash | Kind::Abort | Kind::SilentExit => {
                    s.quit.get_or_insert(kind);
                }
                Kind::Hang => s.hang = true,
                Kind::Late => s.late = true,
                Kind::HugeMessage => s.huge_message = true,
                Kind::ExitAfter => s.exit_after = true,
                Kind::Ignore => s.ignore = true,
                Kind::Garbage | Kind::Error | Kind::HugeLine | Kind::Illegal | Kind::OffBoard => {
                    s.replace.get_or_insert(kind);
                }
            }
        }
        s
    }

    /// Whether END (and the end of input, and SIGTERM) is ignored.
    fn ignores_end(&self) -> bool {
        self.at(Phase::End).hang
    }
}

/// A way to answer `SWAP2BOARD`, to drive every branch of a swap opening and every refusal.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum SwapFault {
    /// The kit's policy (`pbrain_kit::swap2_answer`).
    #[default]
    Policy,
    /// `UNKNOWN` to the command and to each of its lines, as engines without it answer.
    Unknown,
    /// A line that is no answer.
    Garbage,
    /// A stone on an occupied point.
    Occupied,
    /// A stone off the board.
    OffBoard,
    /// Two stones on the empty board, three after three, two after five.
    WrongCount,
    /// `SWAP` whenever it is a choice (three or five stones).
    Always,
    /// Two stones (4th and 5th, in two corners) after three.
    Two,
}

/// The answer to `SWAP2BOARD` with `fault` (for `Unknown`, one line per line of the command).
fn swap_answer(fault: SwapFault, state: &GameState, rng: &mut ChaCha8Rng) -> Vec<String> {
    let Some(board) = state.board() else {
        return vec!["ERROR no board yet".into()];
    };
    let n = board.size().get();
    let stones = board.stone_count();
    let free: Vec<String> = board
        .size()
        .all()
        .filter(|&p| board.is_empty_at(p))
        .take(3)
        .map(|p| p.to_string())
        .collect();
    let last = board.history().last().map(|p| p.to_string());
    let answer = match (fault, stones) {
        (SwapFault::Unknown, k) => {
            return vec!["UNKNOWN SWAP2BOARD is not supported".into(); k + 2]
        }
        (SwapFault::Garbage, _) => "hello swap".to_string(),
        (SwapFault::OffBoard, 0) => format!("0,0 1,0 {n},{n}"),
        (SwapFault::OffBoard, _) => format!("{n},{n}"),
        (SwapFault::Occupied, 0) => "0,0 1,0 0,0".to_string(),
        (SwapFault::Occupied, _) => last.unwrap_or_default(),
        (SwapFault::WrongCount, 0) => free[..2].join(" "),
        (SwapFault::WrongCount, 3) => free.join(" "),
        (SwapFault::WrongCount, _) => free[..2].join(" "),
        (SwapFault::Always, 3 | 5) => "SWAP".to_string(),
        (SwapFault::Two, 3) => format!("0,{} {},{}", n - 1, n - 1, n - 1),
        _ => pbrain_kit::swap2_answer(state, |s| random_legal_move(s, rng)),
    };
    vec![answer]
}

/// Every value of `--fault` (as `--fault X` or `--fault=X`).
fn fault_args(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--fault" {
            out.extend(it.next().map(String::as_str));
        } else if let Some(v) = a.strip_prefix("--fault=") {
            out.push(v);
        }
    }
    out
}

/// The options that take a value (`--name V` or `--name=V`).
const VALUED: [&str; 26] = [
    "--message-flood",
    "--refuse-info",
    "--busy-after-move-ms",
    "--forks",
    "--fork-mb",
    "--search-garbage-at",
    "--search-flood",
    "--search-cut-at",
    "--search-after-move-at",
    "--seed",
    "--fault",
    "--move-ms",
    "--start-cpu-ms",
    "--slow-info-ms",
    "--alloc-at",
    "--alloc-mb",
    "--huge-line-at",
    "--crash-at",
    "--abort-at",
    "--hang-at",
    "--late-at",
    "--late-ms",
    "--illegal-at",
    "--offboard-at",
    "--garbage-at",
    "--exit-between-moves-at",
];
/// The options that stand alone.
const FLAGS: [&str; 20] = [
    "--error-noise",
    "--control-chars",
    "--search-good",
    "--swap-unknown",
    "--swap-garbage",
    "--swap-occupied",
    "--swap-offboard",
    "--swap-wrong-count",
    "--swap-always",
    "--swap-two",
    "--burn",
    "--report-cpus",
    "--error-at-start",
    "--ignore-end",
    "--banner",
    "--message-every-move",
    "--spawn-child",
    "--spawn-daemon",
    "--trailing-space",
    "--suggest",
];

fn parse_args(args: &[String]) -> Result<Faults, String> {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let name = a.split('=').next().unwrap_or(a);
        if VALUED.contains(&name) {
            if !a.contains('=') {
                i += 1;
            }
        } else if !FLAGS.contains(&a) {
            return Err(format!("unknown argument {a:?}\n{USAGE}"));
        }
        i += 1;
    }
    let num = |name: &str| -> Result<Option<u32>, String> {
        match arg_value(args, name) {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| format!("{name} expects a move number, got {v:?}")),
        }
    };
    let millis = |name: &str, default: u64| -> Result<u64, String> {
        match arg_value(args, name) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("{name} expects milliseconds, got {v:?}")),
        }
    };
    let flag = |name: &str| args.iter().any(|a| a == name);
    let mut table = Vec::new();
    // The shorthands first, in a fixed order (the old flags' own precedence: an exit before a
    // hang, before a late answer, before a replaced one).
    let at_move = [
        ("--crash-at", Kind::Crash),
        ("--abort-at", Kind::Abort),
        ("--hang-at", Kind::Hang),
        ("--late-at", Kind::Late),
        ("--huge-line-at", Kind::HugeMessage),
        ("--garbage-at", Kind::Garbage),
        ("--offboard-at", Kind::OffBoard),
        ("--illegal-at", Kind::Illegal),
        ("--exit-between-moves-at", Kind::ExitAfter),
    ];
    for (name, kind) in at_move {
        if let Some(n) = num(name)? {
            table.push((Phase::Move(n), kind));
        }
    }
    if flag("--error-at-start") {
        table.push((Phase::Start, Kind::Error));
    }
    if flag("--ignore-end") {
        table.push((Phase::End, Kind::Hang));
    }
    for text in fault_args(args) {
        table.push(parse_fault(text)?);
    }
    Ok(Faults {
        table,
        late_ms: millis("--late-ms", 2000)?,
        banner: flag("--banner"),
        message_every_move: flag("--message-every-move"),
        spawn_child: flag("--spawn-child"),
        spawn_daemon: flag("--spawn-daemon"),
        trailing_space: flag("--trailing-space"),
        suggest: flag("--suggest"),
        alloc_at: num("--alloc-at")?,
        burn: flag("--burn"),
        report_cpus: flag("--report-cpus"),
        forks: num("--forks")?.unwrap_or(0),
        refuse_info: arg_value(args, "--refuse-info")
            .map(|v| {
                v.split(',')
                    .map(|kv| match kv.split_once('=') {
                        Some((k, v)) => (k.to_ascii_lowercase(), Some(v.to_string())),
                        None => (kv.to_ascii_lowercase(), None),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        busy_after_move: Duration::from_millis(millis("--busy-after-move-ms", 0)?),
        fork_mb: match arg_value(args, "--fork-mb") {
            None => 64,
            Some(v) => v
                .parse()
                .map_err(|_| format!("--fork-mb expects MiB, got {v:?}"))?,
        },
        swap: [
            ("--swap-unknown", SwapFault::Unknown),
            ("--swap-garbage", SwapFault::Garbage),
            ("--swap-offboard", SwapFault::OffBoard),
            ("--swap-occupied", SwapFault::Occupied),
            ("--swap-wrong-count", SwapFault::WrongCount),
            ("--swap-always", SwapFault::Always),
            ("--swap-two", SwapFault::Two),
        ]
        .into_iter()
        .find(|(name, _)| flag(name))
        .map_or(SwapFault::Policy, |(_, fault)| fault),
        move_ms: millis("--move-ms", 0)?,
        start_cpu_ms: millis("--start-cpu-ms", 0)?,
        alloc_mb: match arg_value(args, "--alloc-mb") {
            None => 512,
            Some(v) => v
                .parse()
                .map_err(|_| format!("--alloc-mb expects MiB, got {v:?}"))?,
        },
        slow_info_ms: millis("--slow-info-ms", 0)?,
        message_flood: match arg_value(args, "--message-flood") {
            None => 0,
            Some(v) => v
                .parse()
                .map_err(|_| format!("--message-flood expects a number of lines, got {v:?}"))?,
        },
        error_noise: flag("--error-noise"),
        control_chars: flag("--control-chars"),
        search: SearchFaults {
            garbage_from: num("--search-garbage-at")?,
            flood: match arg_value(args, "--search-flood") {
                None => 0,
                Some(v) => v
                    .parse()
                    .map_err(|_| format!("--search-flood expects a number of lines, got {v:?}"))?,
            },
            cut_at: num("--search-cut-at")?,
            after_move_at: num("--search-after-move-at")?,
            good: flag("--search-good"),
        },
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return;
    }
    let (faults, seed) = match parse_args(&args).and_then(|f| Ok((f, seed_from_args(&args)?))) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("pbrain-faulty: {e}");
            std::process::exit(2);
        }
    };
    match serve(&faults, seed) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("pbrain-faulty: {e}");
            std::process::exit(1);
        }
    }
}

/// `sleep 1000` as a daemon: `sh` in a session of its own (out of the engine's process group)
/// starts it in the background and exits, so it is orphaned at once. Returns once it runs `sleep`
/// (until the background child's exec, it is a copy of `sh` with `sh`'s command line).
fn spawn_daemon() -> io::Result<()> {
    use std::os::unix::process::CommandExt;
    let mut sh = Process::new("sh");
    sh.args(["-c", "sleep 1000 </dev/null >/dev/null 2>&1 & echo $!"])
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: the closure runs in the forked child before exec and only calls setsid(2), which
    // is async-signal-safe.
    unsafe {
        sh.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = sh.output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "sh for the daemon: {}",
            out.status
        )));
    }
    let pid = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let cmdline = format!("/proc/{pid}/cmdline");
    for _ in 0..1000 {
        match std::fs::read(&cmdline) {
            Ok(c) if c.starts_with(b"sleep\0") => return Ok(()),
            Ok(_) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(io::Error::other(format!("the daemon {pid}: {e}"))),
        }
    }
    Err(io::Error::other(format!(
        "the daemon {pid} did not start sleep"
    )))
}

/// `--forks`: `mb` MiB written, then `n` children that share them and sleep until this process
/// ends. Called before any thread is started (a fork copies only the calling thread).
fn fork_helpers(n: u32, mb: u64) -> io::Result<()> {
    let shared = vec![1u8; (mb as usize) << 20];
    // SAFETY: getpid has no requirements.
    let parent = unsafe { libc::getpid() };
    for _ in 0..n {
        // SAFETY: the process is single-threaded here, and the child calls only
        // async-signal-safe functions (prctl, getppid, pause, _exit) before it dies.
        match unsafe { libc::fork() } {
            -1 => return Err(io::Error::last_os_error()),
            0 => unsafe {
                // Killed with its parent (and a parent already gone is seen at once), so no
                // helper outlives the engine even where its group is not killed.
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::getppid() != parent {
                    libc::_exit(0);
                }
                loop {
                    libc::pause();
                }
            },
            _ => {}
        }
    }
    // Held until the process ends, as the helpers hold their copies.
    std::mem::forget(shared);
    Ok(())
}

/// The words after a command that Rapfi, dropping the command itself while it thinks, reads as
/// commands of their own and refuses (`--busy-after-move-ms`).
fn dropped(cmd: &Command) -> Vec<String> {
    match cmd {
        Command::Info { key, value } => vec![key.to_ascii_uppercase(), value.clone()],
        Command::Turn(x, y) => vec![format!("{x},{y}")],
        Command::Takeback(x, y) => vec![format!("{x},{y}")],
        _ => Vec::new(),
    }
}

/// Sleep for ever (the manager has to kill us).
fn stall() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// A line of `HUGE` bytes starting with `prefix`.
fn huge_line(prefix: &str) -> String {
    let mut line = String::with_capacity(HUGE);
    line.push_str(prefix);
    line.extend(std::iter::repeat_n('x', HUGE - line.len()));
    line
}

/// The line a fault sends instead of the answer, if any. `state` gives the board for the
/// illegal moves.
fn replacement(kind: Option<Kind>, phase: Phase, state: &GameState) -> Option<String> {
    let size = state.board().map_or(15, |b| b.size().get());
    Some(match kind? {
        Kind::Garbage => "hello world".to_string(),
        // The text the older --error-at-start flag sent.
        Kind::Error if phase == Phase::Start => "ERROR cannot start".to_string(),
        Kind::Error => format!("ERROR pbrain-faulty: a fault at {phase:?}"),
        Kind::HugeLine => huge_line(""),
        Kind::OffBoard => format!("{size},{size}"),
        // An occupied point; off the board when there is no stone yet.
        Kind::Illegal => match state.board().and_then(|b| b.history().last().copied()) {
            Some(p) => p.to_string(),
            None => format!("{size},{size}"),
        },
        _ => return None,
    })
}

/// What the engine does before reading its first command: SIGTERM ignored, the banner, the
/// processes and the thread it leaves running.
fn start_up<W: Write>(f: &Faults, out: &mut Output<W>) -> io::Result<()> {
    if f.ignores_end() {
        // SAFETY: setting a signal disposition to SIG_IGN has no memory-safety requirements.
        unsafe {
            libc::signal(libc::SIGTERM, libc::SIG_IGN);
        }
    }
    if f.banner {
        out.line("MESSAGE pbrain-faulty: an engine that misbehaves on purpose")?;
    }
    if f.spawn_child {
        let child = Process::new("sleep")
            .arg("1000")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        // Deliberately neither waited for nor killed: it outlives us unless the group is killed.
        out.line(&format!("MESSAGE spawned child pid {}", child.id()))?;
    }
    if f.spawn_daemon {
        spawn_daemon()?;
        out.line("MESSAGE spawned a daemon outside the process group")?;
    }
    if f.forks > 0 {
        fork_helpers(f.forks, f.fork_mb)?;
        out.line(&format!(
            "MESSAGE forked {} helpers sharing {} MiB",
            f.forks, f.fork_mb
        ))?;
    }
    if f.burn {
        std::thread::spawn(|| {
            let mut x = 0u64;
            loop {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        });
    }
    Ok(())
}

fn serve(f: &Faults, seed: u64) -> io::Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let stdin = io::stdin();
    let mut input = Input::new(stdin.lock());
    let stdout = io::stdout();
    let mut out = if f.trailing_space {
        Output::with_endings(stdout.lock(), "  ", "\r\n")
    } else {
        Output::new(stdout.lock())
    };
    start_up(f, &mut out)?;
    let mut state = GameState::new();
    let mut hanging = false;
    // When the last move was answered (for --busy-after-move-ms).
    let mut busy: Option<std::time::Instant> = None;
    // Memory taken by --alloc-at, held until the process ends.
    let mut hoard: Vec<Vec<u8>> = Vec::new();
    loop {
        let Some(cmd) = input.next_command()? else {
            if f.ignores_end() {
                stall();
            }
            return Ok(());
        };
        if hanging {
            // Keep reading so the manager never blocks on a full pipe, but never answer again.
            if cmd == Command::End && !f.ignores_end() {
                return Ok(());
            }
            continue;
        }
        // END is taken even then, as Rapfi takes it.
        let busy_now = cmd != Command::End && busy.is_some_and(|t| t.elapsed() < f.busy_after_move);
        if let Some(words) = busy_now.then(|| dropped(&cmd)) {
            for w in words {
                out.line(&format!("ERROR Unknown command: {w}"))?;
            }
            continue;
        }
        if let Command::Info { key, value } = &cmd {
            let refused = f
                .refuse_info
                .iter()
                .any(|(k, v)| k.eq_ignore_ascii_case(key) && v.as_ref().is_none_or(|v| v == value));
            if refused {
                out.line(&format!("ERROR INFO {key} {value} is not supported"))?;
                continue;
            }
        }
        if f.slow_info_ms > 0 && matches!(&cmd, Command::Info { key, .. } if key == "max_memory") {
            std::thread::sleep(Duration::from_millis(f.slow_info_ms));
        }
        let phase = match &cmd {
            Command::About => Some(Phase::About),
            Command::Start(_) | Command::RectStart(..) => Some(Phase::Start),
            Command::Restart => Some(Phase::Restart),
            Command::Takeback(..) => Some(Phase::Takeback),
            Command::End => Some(Phase::End),
            _ => None,
        };
        if f.start_cpu_ms > 0 && matches!(phase, Some(Phase::Start | Phase::Restart)) {
            spin(Duration::from_millis(f.start_cpu_ms));
        }
        let keeps_stone = phase == Some(Phase::Takeback) && f.at(Phase::Takeback).ignore;
        let action = if keeps_stone {
            Action::Reply("OK".into())
        } else {
            state.handle(cmd)
        };
        let phase = phase.or((action == Action::Think).then(|| Phase::Move(state.moves_asked())));
        let strike = phase.map(|p| f.at(p)).unwrap_or_default();
        match strike.quit {
            Some(Kind::Crash) => std::process::exit(CRASH_STATUS),
            Some(Kind::Abort) => std::process::abort(),
            Some(_) => std::process::exit(0),
            None => {}
        }
        if strike.hang {
            if phase == Some(Phase::End) {
                stall();
            }
            hanging = true;
            continue;
        }
        if strike.late {
            std::thread::sleep(Duration::from_millis(f.late_ms));
        }
        if strike.huge_message {
            out.line(&huge_line("MESSAGE "))?;
        }
        let replaced = phase.and_then(|p| replacement(strike.replace, p, &state));
        match action {
            Action::Reply(line) => out.line(replaced.as_deref().unwrap_or(&line))?,
            Action::About => {
                if f.banner {
                    out.line("MESSAGE pbrain-faulty banner line 1")?;
                    out.line("MESSAGE pbrain-faulty banner line 2")?;
                }
                let about = about_line(
                    if f.control_chars {
                        CONTROL_TEXT
                    } else {
                        "pbrain-faulty"
                    },
                    env!("CARGO_PKG_VERSION"),
                    "gomoku-cli",
                    "-",
                );
                out.line(replaced.as_deref().unwrap_or(&about))?;
            }
            Action::Swap2 => {
                for line in swap_answer(f.swap, &state, &mut rng) {
                    out.line(&line)?;
                }
            }
            Action::Quit => {
                if let Some(line) = replaced {
                    out.line(&line)?;
                }
                return Ok(());
            }
            Action::Silent => {}
            Action::Think => {
                answer_move(f, &mut state, &mut rng, &mut out, &mut hoard, replaced)?;
                busy = Some(std::time::Instant::now());
            }
        }
        if strike.exit_after {
            io::stdout().flush()?;
            std::process::exit(0);
        }
    }
}

/// The `Cpus_allowed_list` of the process or thread whose `/proc` directory is `dir`, or `None`
/// when it cannot be read (a thread that ended meanwhile).
fn cpus_allowed(dir: &str) -> Option<String> {
    let status = std::fs::read_to_string(format!("{dir}/status")).ok()?;
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?;
    Some(list.trim().to_string())
}

/// `slots-1=0 slots-2=1`: the CPUs each of the runner's game-slot threads may run on (the
/// runner is the parent process; its threads that play the slots are named `slots-N`).
fn runner_slot_cpus() -> String {
    let task = format!("/proc/{}/task", std::os::unix::process::parent_id());
    let mut seen: Vec<(u32, String)> = std::fs::read_dir(&task)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|t| {
            let dir = t.path().to_string_lossy().into_owned();
            let comm = std::fs::read_to_string(format!("{dir}/comm")).ok()?;
            let n = comm.trim().strip_prefix("slots-")?.parse().ok()?;
            // A worker whose slots are done may end between its name and its status: it no
            // longer plays, so it is not reported.
            Some((n, cpus_allowed(&dir)?))
        })
        .collect();
    seen.sort();
    let seen: Vec<String> = seen.iter().map(|(n, c)| format!("slots-{n}={c}")).collect();
    seen.join(" ")
}

/// Answer a move request: the per-move faults (CPU list, delays, memory, messages), the search
/// reports around the move, and the move (or the line that replaces it).
fn answer_move<W: Write>(
    f: &Faults,
    state: &mut GameState,
    rng: &mut ChaCha8Rng,
    out: &mut Output<W>,
    hoard: &mut Vec<Vec<u8>>,
    replaced: Option<String>,
) -> io::Result<()> {
    let n = state.moves_asked();
    if f.report_cpus {
        out.line(&format!(
            "MESSAGE cpus {}",
            cpus_allowed("/proc/self").as_deref().unwrap_or("?")
        ))?;
        out.line(&format!("MESSAGE runner cpus {}", runner_slot_cpus()))?;
    }
    if f.move_ms > 0 {
        std::thread::sleep(Duration::from_millis(f.move_ms));
    }
    if f.alloc_at == Some(n) {
        hoard.push(vec![1u8; (f.alloc_mb as usize) << 20]);
        std::thread::sleep(Duration::from_secs(2));
    }
    if f.message_every_move {
        out.line(&format!("MESSAGE pbrain-faulty move {n}"))?;
    }
    if f.control_chars {
        out.line(&format!("MESSAGE {CONTROL_TEXT}"))?;
    }
    if f.error_noise {
        for line in [
            "ERROR Unknown command: TIME_LEFT",
            "ERROR Unknown command: 1000",
            "UNKNOWN noise",
            "DEBUG noise",
        ] {
            out.line(line)?;
        }
    }
    message_flood(f.message_flood, out)?;
    // The move is chosen first (as before, only when not replaced), so the search
    // reports can name it.
    let mv = match replaced {
        Some(_) => None,
        None => random_legal_move(state, rng),
    };
    let size = state.board().map_or(15, |b| b.size().get());
    for line in f.search.before_move(n, mv, size) {
        out.line(&line)?;
    }
    let answer = match (replaced, mv) {
        (Some(line), _) => line,
        (None, Some(p)) if f.suggest => format!("SUGGEST {p}"),
        (None, Some(p)) => {
            state.play_own(p);
            p.to_string()
        }
        (None, None) => "ERROR no legal move left".to_string(),
    };
    out.line(&answer)?;
    let turn = Duration::from_millis(state.limits.timeout_turn.unwrap_or(60_000));
    for line in f.search.after_move(n, mv, turn) {
        out.line(&line)?;
    }
    Ok(())
}

/// `lines` MESSAGE lines, written in batches of a few thousand (one write each, not one a line:
/// a flood of a million lines takes a second, not a million system calls).
fn message_flood<W: Write>(lines: u64, out: &mut Output<W>) -> io::Result<()> {
    const BATCH: u64 = 4096;
    let mut i = 0;
    while i < lines {
        let end = (i + BATCH).min(lines);
        let batch: Vec<String> = (i..end)
            .map(|k| format!("MESSAGE flood line {} of {lines}", k + 1))
            .collect();
        out.line(&batch.join("\n"))?;
        i = end;
    }
    Ok(())
}

/// Use `d` of CPU time on this thread (measured on the thread's CPU clock, so a loaded machine
/// stretches the wall time, not the CPU spent).
fn spin(d: Duration) {
    let cpu = || {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes into the local timespec it is given.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
        Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    };
    let start = cpu();
    let mut x = 0u64;
    while cpu().saturating_sub(start) < d {
        for _ in 0..10_000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn faults_parse_with_their_phase_and_kind() {
        assert_eq!(parse_fault("start:crash"), Ok((Phase::Start, Kind::Crash)));
        assert_eq!(
            parse_fault("move12:hang"),
            Ok((Phase::Move(12), Kind::Hang))
        );
        assert_eq!(
            parse_fault("end:huge-line"),
            Ok((Phase::End, Kind::HugeLine))
        );
        assert_eq!(
            parse_fault("move1:illegal"),
            Ok((Phase::Move(1), Kind::Illegal))
        );
        assert_eq!(
            parse_fault("takeback:ignore"),
            Ok((Phase::Takeback, Kind::Ignore))
        );
        for bad in [
            "start",
            "move0:crash",
            "movex:crash",
            "later:crash",
            "start:explode",
            "about:illegal",
            "end:offboard",
            "move1:ignore",
        ] {
            assert!(parse_fault(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn shorthands_are_faults_and_combine_with_fault_flags() {
        let f = parse_args(&args(
            "--crash-at 3 --error-at-start --ignore-end --fault restart:garbage --fault=move3:late",
        ))
        .unwrap();
        assert_eq!(
            f.table,
            vec![
                (Phase::Move(3), Kind::Crash),
                (Phase::Start, Kind::Error),
                (Phase::End, Kind::Hang),
                (Phase::Restart, Kind::Garbage),
                (Phase::Move(3), Kind::Late),
            ]
        );
        let m3 = f.at(Phase::Move(3));
        assert_eq!((m3.quit, m3.late), (Some(Kind::Crash), true));
        assert_eq!(f.at(Phase::Restart).replace, Some(Kind::Garbage));
        assert_eq!(f.at(Phase::Move(2)), Strike::default());
        assert!(f.ignores_end());
        assert!(parse_args(&args("--fault start:nope")).is_err());
    }
}
