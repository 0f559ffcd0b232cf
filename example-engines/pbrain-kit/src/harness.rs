//! A tiny scripted manager for the engines' integration tests: spawn an engine, talk to it line by
//! line with timeouts, and referee whole games between two engines with `gomoku_cli::core::rules::Referee`.

use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use gomoku_cli::core::board::{BoardSize, Color, Pos};
use gomoku_cli::core::rules::{MoveOutcome, Referee, Rule};

use std::collections::VecDeque;

use crate::{parse_xy, Action, Brain, GameState, Input};

/// Something the referee loop can talk to: an engine process or an in-process brain.
pub trait Player {
    /// Send one command line.
    fn send(&mut self, line: &str) -> io::Result<()>;
    /// The next answer, trimmed, skipping `MESSAGE`/`DEBUG` lines; `None` on timeout or EOF.
    fn recv_answer(&mut self, timeout: Duration) -> Option<String>;
}

/// A brain run in the test process through the same protocol state machine as the binaries.
pub struct LocalEngine<B> {
    brain: B,
    state: GameState,
    answers: VecDeque<String>,
    pending: String,
}

impl<B: Brain> LocalEngine<B> {
    pub fn new(brain: B) -> Self {
        LocalEngine {
            brain,
            state: GameState::new(),
            answers: VecDeque::new(),
            pending: String::new(),
        }
    }
}

impl<B: Brain> Player for LocalEngine<B> {
    fn send(&mut self, line: &str) -> io::Result<()> {
        // BOARD spans several lines: buffer them until DONE, as `Input` does.
        self.pending.push_str(line);
        self.pending.push('\n');
        let in_board = self.pending.to_ascii_uppercase().starts_with("BOARD");
        if in_board && !line.eq_ignore_ascii_case("DONE") {
            return Ok(());
        }
        let text = std::mem::take(&mut self.pending);
        let mut input = Input::new(text.as_bytes());
        while let Some(cmd) = input.next_command()? {
            match self.state.handle(cmd) {
                Action::Reply(r) => self.answers.push_back(r),
                // Search reports are not answers: dropped.
                Action::Think => match self.brain.think(&self.state, &mut |_| {}) {
                    Some(p) => {
                        self.state.play_own(p);
                        self.answers.push_back(p.to_string());
                    }
                    None => self.answers.push_back("ERROR no legal move left".into()),
                },
                Action::About => self.answers.push_back(self.brain.about()),
                Action::Swap2 => self.answers.push_back(self.brain.swap2(&self.state)),
                Action::Quit | Action::Silent => {}
            }
        }
        Ok(())
    }

    fn recv_answer(&mut self, _timeout: Duration) -> Option<String> {
        self.answers.pop_front()
    }
}

/// A running engine with its stdout read on a background thread.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl EngineProcess {
    pub fn spawn(program: &str, args: &[&str]) -> io::Result<Self> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if buf.last() == Some(&b'\n') {
                            buf.pop();
                        }
                        if tx.send(String::from_utf8_lossy(&buf).into_owned()).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Ok(EngineProcess {
            child,
            stdin,
            lines: rx,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Send one command line, ended with CR LF as the official manager does.
    pub fn send(&mut self, line: &str) -> io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::new(io::ErrorKind::BrokenPipe, "stdin closed"))?;
        stdin.write_all(line.as_bytes())?;
        stdin.write_all(b"\r\n")?;
        stdin.flush()
    }

    /// Send bytes as they are (to test line-ending tolerance).
    pub fn send_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::new(io::ErrorKind::BrokenPipe, "stdin closed"))?;
        stdin.write_all(bytes)?;
        stdin.flush()
    }

    /// Close the engine's stdin (end of input).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next raw output line (without its `\n`, a `\r` kept), or `None` on timeout or EOF.
    pub fn recv_raw(&mut self, timeout: Duration) -> Option<String> {
        self.lines.recv_timeout(timeout).ok()
    }

    /// Whether the engine's stdout reached end of file within `timeout` (other lines are dropped).
    pub fn stdout_closed(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(_) => continue,
                Err(RecvTimeoutError::Disconnected) => return true,
                Err(RecvTimeoutError::Timeout) => return false,
            }
        }
    }

    /// The next answer, trimmed, skipping `MESSAGE`/`DEBUG` lines and blank lines.
    pub fn recv_answer(&mut self, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).ok()?;
            let t = line.trim();
            let upper = t.to_ascii_uppercase();
            if t.is_empty() || upper.starts_with("MESSAGE") || upper.starts_with("DEBUG") {
                continue;
            }
            return Some(t.to_string());
        }
    }

    /// Wait for the process to exit.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(st)) = self.child.try_wait() {
                return Some(st);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Send `END`, close stdin and wait briefly; kill if it is still running. Returns whether it
    /// exited by itself.
    pub fn finish(&mut self) -> bool {
        let _ = self.send("END");
        self.close_stdin();
        let exited = self.wait_exit(Duration::from_secs(5)).is_some();
        if !exited {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        exited
    }
}

impl Player for EngineProcess {
    fn send(&mut self, line: &str) -> io::Result<()> {
        EngineProcess::send(self, line)
    }

    fn recv_answer(&mut self, timeout: Duration) -> Option<String> {
        EngineProcess::recv_answer(self, timeout)
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// How a refereed game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameEnd {
    /// Five in a row (per rule).
    Win(Color),
    /// A side lost by an illegal, forbidden, unparsable or missing move.
    Loss {
        loser: Color,
        why: String,
    },
    Draw,
}

/// The record of one refereed game.
#[derive(Debug, Clone)]
pub struct GameRecord {
    pub end: GameEnd,
    pub moves: Vec<Pos>,
}

impl GameRecord {
    pub fn winner(&self) -> Option<Color> {
        match &self.end {
            GameEnd::Win(c) => Some(*c),
            GameEnd::Loss { loser, .. } => Some(loser.opponent()),
            GameEnd::Draw => None,
        }
    }
}

/// Start a game on an engine: `START n` (expect `OK`), then `INFO rule` and any extra `INFO` lines.
pub fn start_game(
    e: &mut dyn Player,
    size: BoardSize,
    rule: Rule,
    infos: &[(&str, &str)],
) -> io::Result<()> {
    e.send(&format!("START {size}"))?;
    match e.recv_answer(Duration::from_secs(10)) {
        Some(a) if a == "OK" => {}
        other => {
            return Err(io::Error::other(format!(
                "START {size}: expected OK, got {other:?}"
            )))
        }
    }
    e.send(&format!("INFO rule {}", rule.code()))?;
    for (k, v) in infos {
        e.send(&format!("INFO {k} {v}"))?;
    }
    Ok(())
}

/// Referee a game between two engines already started with `start_game`. The opening stones (if
/// any) are sent to each engine with `BOARD` on its first move; later moves with `TURN`.
pub fn play_game(
    black: &mut dyn Player,
    white: &mut dyn Player,
    rule: Rule,
    size: BoardSize,
    opening: &[Pos],
    move_timeout: Duration,
) -> io::Result<GameRecord> {
    let mut referee = Referee::new(rule, size);
    for &p in opening {
        if referee.play(p) != MoveOutcome::Continue {
            return Err(io::Error::other(format!("bad opening stone {p}")));
        }
    }
    let mut moves: Vec<Pos> = opening.to_vec();
    let mut first = [true, true];
    loop {
        let side = referee.side_to_move();
        let idx = (side == Color::White) as usize;
        let engine: &mut dyn Player = if idx == 0 { black } else { white };
        if first[idx] {
            first[idx] = false;
            if moves.is_empty() {
                engine.send("BEGIN")?;
            } else {
                engine.send("BOARD")?;
                for (i, p) in moves.iter().enumerate() {
                    let own = if Color::of_ply(i) == side { 1 } else { 2 };
                    engine.send(&format!("{},{},{own}", p.x, p.y))?;
                }
                engine.send("DONE")?;
            }
        } else {
            let last = *moves.last().expect("the opponent has moved");
            engine.send(&format!("TURN {},{}", last.x, last.y))?;
        }
        let loss = |why: String| GameRecord {
            end: GameEnd::Loss { loser: side, why },
            moves: moves.clone(),
        };
        let Some(answer) = engine.recv_answer(move_timeout) else {
            return Ok(loss("no move in time".into()));
        };
        let Some((x, y)) = parse_xy(&answer) else {
            return Ok(loss(format!("unparsable answer {answer:?}")));
        };
        match referee.play_xy(x, y) {
            MoveOutcome::Continue => moves.push(Pos::new(x as u8, y as u8)),
            MoveOutcome::Win { color, .. } => {
                moves.push(Pos::new(x as u8, y as u8));
                return Ok(GameRecord {
                    end: GameEnd::Win(color),
                    moves,
                });
            }
            MoveOutcome::Draw => {
                moves.push(Pos::new(x as u8, y as u8));
                return Ok(GameRecord {
                    end: GameEnd::Draw,
                    moves,
                });
            }
            MoveOutcome::Illegal(k) => return Ok(loss(format!("illegal move {x},{y}: {k}"))),
            MoveOutcome::Forbidden(k) => return Ok(loss(format!("forbidden move {x},{y}: {k}"))),
        }
    }
}
