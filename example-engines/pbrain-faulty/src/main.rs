//! pbrain-faulty: an engine that misbehaves on request, to test how a manager copes with crashes,
//! hangs, late or illegal moves, garbage output, stray processes and protocol quirks.
//!
//! Every fault is a command-line flag and they combine freely; "N" counts the moves this engine is
//! asked for in the current game, from 1. Without faults it plays random legal moves.

use std::io::{self, Write};
use std::process::{Command as Process, Stdio};
use std::time::Duration;

use gomoku_cli::board::Pos;
use pbrain_kit::{
    about_line, arg_value, random_legal_move, seed_from_args, Action, Command, GameState, Input,
    Output,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const USAGE: &str = "usage: pbrain-faulty [--seed N] [--crash-at N] [--abort-at N] [--hang-at N]
  [--late-at N --late-ms M] [--illegal-at N] [--offboard-at N] [--garbage-at N]
  [--error-at-start] [--exit-between-moves-at N] [--ignore-end] [--banner] [--huge-line-at N]
  [--message-every-move] [--spawn-child] [--trailing-space] [--suggest] [--slow-info-ms M]
  [--alloc-at N --alloc-mb M] [--burn] [--move-ms M]
  [--report-cpus]
  [--swap-unknown] [--swap-garbage] [--swap-occupied] [--swap-offboard] [--swap-wrong-count]
  [--swap-always] [--swap-two]";

/// Exit status of `--crash-at`.
const CRASH_STATUS: i32 = 3;

#[derive(Debug, Default)]
struct Faults {
    crash_at: Option<u32>,
    abort_at: Option<u32>,
    hang_at: Option<u32>,
    late_at: Option<u32>,
    late_ms: u64,
    illegal_at: Option<u32>,
    offboard_at: Option<u32>,
    garbage_at: Option<u32>,
    error_at_start: bool,
    exit_between_moves_at: Option<u32>,
    ignore_end: bool,
    banner: bool,
    huge_line_at: Option<u32>,
    message_every_move: bool,
    spawn_child: bool,
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
    /// Before every move, `MESSAGE cpus LIST`: the CPUs the process may run on.
    report_cpus: bool,
    /// How to answer `SWAP2BOARD` (default: the kit's policy).
    swap: SwapFault,
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

fn parse_args(args: &[String]) -> Result<Faults, String> {
    const VALUED: [&str; 15] = [
        "--seed",
        "--move-ms",
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
    const FLAGS: [&str; 16] = [
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
        "--trailing-space",
        "--suggest",
    ];
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
    let flag = |name: &str| args.iter().any(|a| a == name);
    let late_ms = match arg_value(args, "--late-ms") {
        None => 2000,
        Some(v) => v
            .parse()
            .map_err(|_| format!("--late-ms expects milliseconds, got {v:?}"))?,
    };
    Ok(Faults {
        crash_at: num("--crash-at")?,
        abort_at: num("--abort-at")?,
        hang_at: num("--hang-at")?,
        late_at: num("--late-at")?,
        late_ms,
        illegal_at: num("--illegal-at")?,
        offboard_at: num("--offboard-at")?,
        garbage_at: num("--garbage-at")?,
        error_at_start: flag("--error-at-start"),
        exit_between_moves_at: num("--exit-between-moves-at")?,
        ignore_end: flag("--ignore-end"),
        banner: flag("--banner"),
        huge_line_at: num("--huge-line-at")?,
        message_every_move: flag("--message-every-move"),
        spawn_child: flag("--spawn-child"),
        trailing_space: flag("--trailing-space"),
        suggest: flag("--suggest"),
        alloc_at: num("--alloc-at")?,
        burn: flag("--burn"),
        report_cpus: flag("--report-cpus"),
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
        move_ms: match arg_value(args, "--move-ms") {
            None => 0,
            Some(v) => v
                .parse()
                .map_err(|_| format!("--move-ms expects milliseconds, got {v:?}"))?,
        },
        alloc_mb: match arg_value(args, "--alloc-mb") {
            None => 512,
            Some(v) => v
                .parse()
                .map_err(|_| format!("--alloc-mb expects MiB, got {v:?}"))?,
        },
        slow_info_ms: match arg_value(args, "--slow-info-ms") {
            None => 0,
            Some(v) => v
                .parse()
                .map_err(|_| format!("--slow-info-ms expects milliseconds, got {v:?}"))?,
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

/// Sleep for ever (the manager has to kill us).
fn stall() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
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
    if f.ignore_end {
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
    if f.burn {
        std::thread::spawn(|| {
            let mut x = 0u64;
            loop {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        });
    }
    let mut state = GameState::new();
    let mut hanging = false;
    // Memory taken by --alloc-at, held until the process ends.
    let mut hoard: Vec<Vec<u8>> = Vec::new();
    loop {
        let Some(cmd) = input.next_command()? else {
            if f.ignore_end {
                stall();
            }
            return Ok(());
        };
        if hanging {
            // Keep reading so the manager never blocks on a full pipe, but never answer again.
            if cmd == Command::End && !f.ignore_end {
                return Ok(());
            }
            continue;
        }
        if f.slow_info_ms > 0 && matches!(&cmd, Command::Info { key, .. } if key == "max_memory") {
            std::thread::sleep(Duration::from_millis(f.slow_info_ms));
        }
        let is_start = matches!(cmd, Command::Start(_) | Command::RectStart(..));
        match state.handle(cmd) {
            Action::Reply(line) if is_start && f.error_at_start => {
                let _ = line;
                out.line("ERROR cannot start")?;
            }
            Action::Reply(line) => out.line(&line)?,
            Action::About => {
                if f.banner {
                    out.line("MESSAGE pbrain-faulty banner line 1")?;
                    out.line("MESSAGE pbrain-faulty banner line 2")?;
                }
                out.line(&about_line(
                    "pbrain-faulty",
                    env!("CARGO_PKG_VERSION"),
                    "gomoku-cli",
                    "-",
                ))?;
            }
            Action::Swap2 => {
                for line in swap_answer(f.swap, &state, &mut rng) {
                    out.line(&line)?;
                }
            }
            Action::Quit if f.ignore_end => {}
            Action::Quit => return Ok(()),
            Action::Silent => {}
            Action::Think => {
                let n = state.moves_asked();
                let at = |o: Option<u32>| o == Some(n);
                if at(f.crash_at) {
                    std::process::exit(CRASH_STATUS);
                }
                if at(f.abort_at) {
                    std::process::abort();
                }
                if at(f.hang_at) {
                    hanging = true;
                    continue;
                }
                if at(f.late_at) {
                    std::thread::sleep(Duration::from_millis(f.late_ms));
                }
                if f.report_cpus {
                    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
                    let list = status
                        .lines()
                        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                        .unwrap_or("?")
                        .trim()
                        .to_string();
                    out.line(&format!("MESSAGE cpus {list}"))?;
                }
                if f.move_ms > 0 {
                    std::thread::sleep(Duration::from_millis(f.move_ms));
                }
                if at(f.alloc_at) {
                    hoard.push(vec![1u8; (f.alloc_mb as usize) << 20]);
                    std::thread::sleep(Duration::from_secs(2));
                }
                if at(f.huge_line_at) {
                    let mut line = String::with_capacity(1 << 20);
                    line.push_str("MESSAGE ");
                    line.extend(std::iter::repeat_n('x', (1 << 20) - line.len()));
                    out.line(&line)?;
                }
                if f.message_every_move {
                    out.line(&format!("MESSAGE pbrain-faulty move {n}"))?;
                }
                let size = state.board().map_or(15, |b| b.size().get());
                let answer = if at(f.garbage_at) {
                    "hello world".to_string()
                } else if at(f.offboard_at) {
                    format!("{size},{size}")
                } else if at(f.illegal_at) {
                    // An occupied point; off the board when there is no stone yet.
                    match state.board().and_then(|b| b.history().last().copied()) {
                        Some(p) => p.to_string(),
                        None => format!("{size},{size}"),
                    }
                } else {
                    let mv: Option<Pos> = random_legal_move(&state, &mut rng);
                    match mv {
                        Some(p) if f.suggest => format!("SUGGEST {p}"),
                        Some(p) => {
                            state.play_own(p);
                            p.to_string()
                        }
                        None => "ERROR no legal move left".to_string(),
                    }
                };
                out.line(&answer)?;
                if at(f.exit_between_moves_at) {
                    io::stdout().flush()?;
                    std::process::exit(0);
                }
            }
        }
    }
}
