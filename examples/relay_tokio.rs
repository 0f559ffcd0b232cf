//! The ping-pong floor (`examples/pingpong.rs`) on the runner's own machinery: the same bytes
//! relayed between the same engines, but through tokio's pipes on one `current_thread` runtime
//! per worker thread, `min(concurrency, cores)` workers with the slots dealt out in turn, as the
//! runner plays its game slots without `-cpus` (`runner::slot`). Nothing else: no referee, clock,
//! timers, cancellation or records. Against `pingpong` it prices the event loop; against the
//! runner, the runner's own work a move (docs/design/BENCHMARKS.md §13). `-timer MS` waits for
//! each answer under a tokio timeout of MS milliseconds, as the runner arms one timer a move (for
//! its deadline and memory samples): the price of that timer alone.
//!
//! ```text
//! relay_tokio -each cmd=CMD -games N -concurrency C [-boardsize N] [-timer MS]   # the runners' words
//! ```
//!
//! Prints one line: `games=G moves=M wall_s=S us_per_move=U`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

#[path = "relay/shared.rs"]
mod shared;

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
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
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

    /// The next non-empty line, trimmed.
    async fn read_line(&mut self) -> Result<&str> {
        loop {
            self.line.clear();
            if self.stdout.read_line(&mut self.line).await? == 0 {
                bail!("engine closed its output");
            }
            if !self.line.trim().is_empty() {
                return Ok(self.line.trim());
            }
        }
    }

    /// START or RESTART, wait for OK, then the INFO block the runner sends (as `pingpong`).
    async fn new_game(&mut self, size: usize) -> Result<()> {
        let start = shared::start_command(self.started, size);
        self.stdin.write_all(start.as_bytes()).await?;
        loop {
            if let Some(answer) = shared::start_answer(self.read_line().await?) {
                answer?;
                break;
            }
        }
        self.started = true;
        Ok(self.stdin.write_all(shared::GAME_INFO.as_bytes()).await?)
    }

    /// Sends one move request and returns the answer's coordinates.
    async fn ask(&mut self, request: &str) -> Result<(usize, usize)> {
        self.stdin.write_all(request.as_bytes()).await?;
        loop {
            if let Some(answer) = shared::move_answer(self.read_line().await?) {
                return answer;
            }
        }
    }
}

/// One game; `engines[0]` is black, each answer awaited within `timer` when given. Returns the
/// number of moves played.
async fn play_game(engines: &mut [Engine; 2], size: usize, timer: Option<Duration>) -> Result<u64> {
    for e in engines.iter_mut() {
        e.new_game(size).await?;
    }
    let mut cells = vec![0u8; size * size];
    let mut last: Option<(usize, usize)> = None;
    let mut stones = 0usize;
    let mut request = String::new();
    loop {
        let side = stones % 2;
        shared::move_request(&mut request, last, stones);
        let (x, y) = match timer {
            Some(t) => tokio::time::timeout(t, engines[side].ask(&request))
                .await
                .context("no answer within -timer")??,
            None => engines[side].ask(&request).await?,
        };
        stones += 1;
        last = Some((x, y));
        if shared::place(&mut cells, size, (x, y), side, stones, 0)? {
            return Ok(stones as u64);
        }
    }
}

/// One game slot: two engines, games from the shared counter, colours alternating.
async fn slot(
    cmd: String,
    size: usize,
    timer: Option<Duration>,
    games: u64,
    next: Arc<AtomicU64>,
) -> Result<(u64, u64)> {
    let mut pair = [Engine::spawn(&cmd)?, Engine::spawn(&cmd)?];
    let (mut played, mut moves) = (0, 0);
    loop {
        let k = next.fetch_add(1, Ordering::SeqCst);
        if k >= games {
            break;
        }
        if k % 2 == 1 {
            pair.swap(0, 1);
        }
        moves += play_game(&mut pair, size, timer).await?;
        played += 1;
        if k % 2 == 1 {
            pair.swap(0, 1);
        }
    }
    for mut e in pair {
        let _ = e.stdin.write_all(b"END\r\n").await;
        drop(e.stdin);
        let _ = e.child.wait().await;
    }
    Ok((played, moves))
}

fn main() -> Result<()> {
    let (mut cmd, mut games, mut concurrency, mut size) = (String::new(), 100u64, 1usize, 15usize);
    let mut timer = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "-each" => {
                let v = value()?;
                cmd = v
                    .strip_prefix("cmd=")
                    .context("-each: only cmd=CMD")?
                    .to_string();
            }
            "-games" => games = value()?.parse()?,
            "-concurrency" => concurrency = value()?.parse()?,
            "-boardsize" => size = value()?.parse()?,
            "-timer" => timer = Some(Duration::from_millis(value()?.parse()?)),
            "-engine" | "-rule" => {
                value()?;
            }
            "-repeat" => {}
            other => bail!("unknown option {other}"),
        }
    }
    if cmd.is_empty() || concurrency == 0 || !(5..=32).contains(&size) {
        bail!("usage: relay_tokio -each cmd=CMD -games N -concurrency C [-boardsize 5..32] [-timer MS]");
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = concurrency.min(cores);
    let next = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let threads: Vec<_> = (0..workers)
        .map(|w| {
            let (cmd, next) = (cmd.clone(), next.clone());
            std::thread::spawn(move || -> Result<Vec<Result<(u64, u64)>>> {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?;
                let local = tokio::task::LocalSet::new();
                let slots: Vec<_> = (w..concurrency)
                    .step_by(workers)
                    .map(|_| local.spawn_local(slot(cmd.clone(), size, timer, games, next.clone())))
                    .collect();
                Ok(local.block_on(&rt, async {
                    let mut done = Vec::new();
                    for s in slots {
                        done.push(s.await.unwrap_or_else(|_| bail!("a slot panicked")));
                    }
                    done
                }))
            })
        })
        .collect();
    let (mut played, mut moves) = (0, 0);
    for t in threads {
        let results = t.join().unwrap_or_else(|_| bail!("a worker panicked"))?;
        for r in results {
            let (g, m) = r?;
            played += g;
            moves += m;
        }
    }
    let wall = start.elapsed();
    println!(
        "games={played} moves={moves} wall_s={:.3} us_per_move={:.1}",
        wall.as_secs_f64(),
        wall.as_secs_f64() * 1e6 / moves.max(1) as f64
    );
    Ok(())
}
