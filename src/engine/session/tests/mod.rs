//! The session tested in-process: a fake engine on a duplex transport, on a paused clock.

mod ends;
mod moves;
mod quirks;
mod start;

use super::*;
use crate::core::board::Pos;
use crate::core::rules::Rule;
use crate::core::swap::{Answer, Swap2Form};
use crate::engine::protocol::{Field, ABOUT_NAME_CHARS, QUOTED_ANSWER_CHARS};
use crate::engine::spec::{Detail, TimeControl};
use crate::engine::LogEvent;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::time::Instant;

/// The engine's side of a duplex transport: reads manager lines, writes raw answers.
struct FakeEngine {
    input: BufReader<tokio::io::ReadHalf<DuplexStream>>,
    out: tokio::io::WriteHalf<DuplexStream>,
}

impl FakeEngine {
    /// Next manager line; panics if it does not end with CR LF.
    async fn recv(&mut self) -> String {
        let mut line = String::new();
        let n = self.input.read_line(&mut line).await.unwrap();
        assert!(n > 0, "manager closed");
        line.strip_suffix("\r\n")
            .unwrap_or_else(|| panic!("manager line without CR LF: {line:?}"))
            .to_string()
    }

    /// The next manager lines, each asserted in turn.
    async fn expect(&mut self, lines: &[&str]) {
        for line in lines {
            assert_eq!(self.recv().await, *line);
        }
    }

    /// Reads the next `n` manager lines without looking at them.
    async fn skip(&mut self, n: usize) {
        for _ in 0..n {
            self.recv().await;
        }
    }

    async fn send(&mut self, raw: &str) {
        self.out.write_all(raw.as_bytes()).await.unwrap();
    }

    /// A first game's `START 15` (answered), its INFO block, then the second's `RESTART`.
    async fn first_game_then_restart(&mut self) {
        assert_eq!(self.recv().await, "START 15");
        self.send("OK\n").await;
        self.info_block().await;
        assert_eq!(self.recv().await, "RESTART");
    }

    /// The INFO lines of a game's start, up to the ABOUT that closes them (answered).
    async fn info_block(&mut self) -> Vec<String> {
        let mut infos = Vec::new();
        loop {
            let line = self.recv().await;
            if line == "ABOUT" {
                self.send("name=\"fake\"\n").await;
                return infos;
            }
            infos.push(line);
        }
    }
}

/// A session, the engine's end of its transport, and its log.
type Harness = (
    EngineSession,
    FakeEngine,
    tokio::sync::mpsc::UnboundedReceiver<LogEvent>,
);

fn session_with(spec: EngineSpec) -> Harness {
    let (manager, engine) = tokio::io::duplex(1 << 16);
    let (m_read, m_write) = tokio::io::split(manager);
    let (e_read, e_write) = tokio::io::split(engine);
    let (log, rx) = LogSink::channel();
    let session = EngineSession::from_transport(spec, m_read, m_write, 3, log);
    let fake = FakeEngine {
        input: BufReader::new(e_read),
        out: e_write,
    };
    (session, fake, rx)
}

/// `harness` with its engine's side run by `script`, in a task of its own.
fn with_engine<T: Send + 'static, F: std::future::Future<Output = T> + Send + 'static>(
    (session, engine, log): Harness,
    script: impl FnOnce(FakeEngine) -> F,
) -> (
    EngineSession,
    tokio::task::JoinHandle<T>,
    tokio::sync::mpsc::UnboundedReceiver<LogEvent>,
) {
    (session, tokio::spawn(script(engine)), log)
}

fn session() -> Harness {
    session_with(EngineSpec::new("fake"))
}

const SEC: Duration = Duration::from_secs(1);

/// What a request that timed out waited for, and how long; panics on any other result.
fn timeout_of<T: std::fmt::Debug>(result: Result<T, EngineError>) -> (String, Duration) {
    match result {
        Err(EngineError::Timeout { what, elapsed, .. }) => (what, elapsed),
        other => panic!("{other:?}"),
    }
}

/// The texts of the notes (not the engine lines) logged so far.
fn notes(rx: &mut tokio::sync::mpsc::UnboundedReceiver<LogEvent>) -> Vec<String> {
    std::iter::from_fn(|| rx.try_recv().ok())
        .filter(|ev| ev.direction == Direction::Note)
        .map(|ev| ev.text)
        .collect()
}

fn size(n: u32) -> BoardSize {
    BoardSize::new(n).unwrap()
}

fn turn(x: u8, y: u8) -> MoveRequest {
    MoveRequest::Turn(Pos::new(x, y))
}

/// Starts a game on a 15x15 freestyle board with a second to start.
async fn new_game15(s: &mut EngineSession) -> Result<(), EngineError> {
    s.new_game(size(15), Rule::Freestyle, SEC).await
}

/// A session whose engine started a game (so its ABOUT answer, `name="fake"`, is known).
async fn started() -> Harness {
    let (mut s, engine, rx) = with_engine(session(), |mut e| async move {
        assert_eq!(e.recv().await, "START 15");
        e.send("OK\r\n").await;
        e.info_block().await;
        e
    });
    new_game15(&mut s).await.unwrap();
    (s, engine.await.unwrap(), rx)
}

/// The manager's lines up to and including `last`.
async fn recv_until(e: &mut FakeEngine, last: &str) -> Vec<String> {
    let mut lines = Vec::new();
    loop {
        let line = e.recv().await;
        let done = line == last;
        lines.push(line);
        if done {
            return lines;
        }
    }
}
