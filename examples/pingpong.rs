//! Baseline for `bench/overhead.sh`: the smallest honest driver that makes two pbrain engines play
//! each other over pipes, so the runner's overhead per move can be measured against it.
//!
//! It sends exactly the bytes the runner sends (`START`/`RESTART` and the INFO block before each
//! game, `INFO time_left` before each move, `BEGIN`, `BOARD` for white's first move, then `TURN`)
//! and ends a game the way the runner's referee would under freestyle: five or more in a row, a
//! full board, or `--drawafter` stones. Nothing else: blocking std pipes, no async runtime, no
//! referee, no time control, no records. With `--concurrency C`, C drivers (each with its own two
//! engine processes) take games from a shared counter, as the runner's game slots do.
//!
//! ```text
//! pingpong [--engine CMD] [--black CMD] [--white CMD] [--games N] [--concurrency C]
//!          [--boardsize N] [--drawafter N]
//! pingpong --count-moves JOURNAL     # moves recorded in a gomoku-cli journal
//! pingpong -each cmd=CMD -engine name=a -engine name=b -rule 0 -boardsize N -games N -repeat \
//!          -concurrency C                # the runner's own words, as a side-by-side harness
//!                                        # (bench/manycore.sh) passes them to every runner
//! ```
//!
//! Prints one line: `games=G moves=M wall_s=S us_per_move=U`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{bail, Context, Result};

#[path = "relay/shared.rs"]
mod shared;

struct Options {
    first: String,
    second: String,
    games: u64,
    concurrency: usize,
    size: usize,
    draw_after: usize,
}

/// One engine process with buffered output.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
    started: bool,
}

impl Engine {
    fn spawn(cmd: &str) -> Result<Engine> {
        let mut words = cmd.split_whitespace();
        let program = words.next().context("empty engine command")?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start {cmd}"))?;
        let stdin = child.stdin.take().context("no stdin pipe")?;
        let stdout = BufReader::new(child.stdout.take().context("no stdout pipe")?);
        Ok(Engine {
            child,
            stdin,
            stdout,
            line: String::new(),
            started: false,
        })
    }

    fn send(&mut self, text: &str) -> Result<()> {
        self.stdin.write_all(text.as_bytes())?;
        Ok(())
    }

    /// The next non-empty line, trimmed.
    fn read_line(&mut self) -> Result<&str> {
        loop {
            self.line.clear();
            if self.stdout.read_line(&mut self.line)? == 0 {
                bail!("engine closed its output");
            }
            if !self.line.trim().is_empty() {
                return Ok(self.line.trim());
            }
        }
    }

    /// START (first game) or RESTART, wait for OK, then the INFO block the runner sends.
    fn new_game(&mut self, size: usize) -> Result<()> {
        self.send(&shared::start_command(self.started, size))?;
        loop {
            if let Some(answer) = shared::start_answer(self.read_line()?) {
                answer?;
                break;
            }
        }
        self.started = true;
        self.send(shared::GAME_INFO)
    }

    /// Sends one move request and returns the answer's coordinates.
    fn ask(&mut self, request: &str) -> Result<(usize, usize)> {
        self.send(request)?;
        loop {
            if let Some(answer) = shared::move_answer(self.read_line()?) {
                return answer;
            }
        }
    }

    fn end(mut self) {
        let _ = self.send("END\r\n");
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

/// Plays one game; `engines[0]` is black. Returns the number of moves played.
fn play_game(engines: &mut [Engine; 2], opts: &Options) -> Result<u64> {
    let size = opts.size;
    for e in engines.iter_mut() {
        e.new_game(size)?;
    }
    let mut cells = vec![0u8; size * size];
    let mut last: Option<(usize, usize)> = None;
    let mut stones = 0usize;
    let mut request = String::new();
    loop {
        let side = stones % 2;
        shared::move_request(&mut request, last, stones);
        let (x, y) = engines[side].ask(&request)?;
        stones += 1;
        last = Some((x, y));
        if shared::place(&mut cells, size, (x, y), side, stones, opts.draw_after)? {
            return Ok(stones as u64);
        }
    }
}

/// One driver (the runner's game slot): two engines, games from the shared counter; colours
/// alternate with the game number as in the runner's schedule.
fn driver(opts: &Options, next: &AtomicU64) -> Result<(u64, u64)> {
    let mut pair = [Engine::spawn(&opts.first)?, Engine::spawn(&opts.second)?];
    let (mut games, mut moves) = (0, 0);
    loop {
        let k = next.fetch_add(1, Ordering::SeqCst);
        if k >= opts.games {
            break;
        }
        // pair[0] plays black: the first engine in even games, the second in odd ones.
        if k % 2 == 1 {
            pair.swap(0, 1);
        }
        moves += play_game(&mut pair, opts)?;
        games += 1;
        if k % 2 == 1 {
            pair.swap(0, 1);
        }
    }
    for e in pair {
        e.end();
    }
    Ok((games, moves))
}

/// The number of moves in a journal (one JSON object a line): the length of each game's
/// `times_ms` array, which has one entry per move played.
fn count_moves(path: &str) -> Result<u64> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
    let read = gomoku_cli::formats::journal::parse(&text, path)?;
    Ok(read.entries.iter().map(|e| e.times_ms.len() as u64).sum())
}

fn parse_args() -> Result<Option<Options>> {
    let mut args = std::env::args().skip(1);
    let mut opts = Options {
        first: "target/release/pbrain-random".into(),
        second: "target/release/pbrain-random".into(),
        games: 100,
        concurrency: 1,
        size: 15,
        draw_after: 0,
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--count-moves" => {
                println!("{}", count_moves(&value()?)?);
                return Ok(None);
            }
            "--engine" => {
                opts.first = value()?;
                opts.second = opts.first.clone();
            }
            "--black" => opts.first = value()?,
            "--white" => opts.second = value()?,
            "--games" => opts.games = value()?.parse()?,
            "--concurrency" => opts.concurrency = value()?.parse()?,
            "--boardsize" => opts.size = value()?.parse()?,
            "--drawafter" => opts.draw_after = value()?.parse()?,
            // The runner's words for the same match, so that a harness can start this in a
            // runner's place. Only what the relay does is taken: freestyle (`-rule 0`), one
            // engine for both sides; the names and `-repeat` (both sides are the same engine)
            // change nothing here.
            "-each" => {
                let v = value()?;
                let cmd = v
                    .strip_prefix("cmd=")
                    .with_context(|| format!("-each {v}: only cmd=CMD"))?;
                opts.first = cmd.to_string();
                opts.second = opts.first.clone();
            }
            "-games" => opts.games = value()?.parse()?,
            "-concurrency" => opts.concurrency = value()?.parse()?,
            "-boardsize" => opts.size = value()?.parse()?,
            "-rule" => {
                let v = value()?;
                if v != "0" {
                    bail!("-rule {v}: the relay judges freestyle only (-rule 0)");
                }
            }
            "-engine" => {
                value()?;
            }
            "-repeat" => {}
            other => bail!("unknown option {other}"),
        }
    }
    if opts.concurrency == 0 || !(5..=32).contains(&opts.size) {
        bail!("--concurrency must be at least 1 and --boardsize within 5..=32");
    }
    Ok(Some(opts))
}

fn main() -> Result<()> {
    let Some(opts) = parse_args()? else {
        return Ok(());
    };
    let start = Instant::now();
    let next = AtomicU64::new(0);
    let results: Vec<Result<(u64, u64)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..opts.concurrency)
            .map(|_| s.spawn(|| driver(&opts, &next)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| bail!("driver panicked")))
            .collect()
    });
    let wall = start.elapsed();
    let (mut games, mut moves) = (0, 0);
    for r in results {
        let (g, m) = r?;
        games += g;
        moves += m;
    }
    println!(
        "games={games} moves={moves} wall_s={:.3} us_per_move={:.1}",
        wall.as_secs_f64(),
        wall.as_secs_f64() * 1e6 / moves.max(1) as f64
    );
    Ok(())
}
