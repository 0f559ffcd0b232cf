//! The engine layer: how the runner starts one pbrain engine process and converses with it under
//! deadlines (spec → process → protocol → session), plus the log events it emits.

pub mod chatter;
pub mod leftovers;
pub mod listen;
pub mod package;
pub mod process;
pub mod protocol;
pub mod resources;
pub mod session;
pub mod spawn;
pub mod spec;

use std::time::{Duration, Instant};

use thiserror::Error;
use tokio::sync::mpsc;

pub use chatter::LineCounts;
pub use process::{describe_status, EngineProcess};
pub use protocol::{parse_about, parse_engine_line, About, Command, EngineLine, Field};
pub use session::{EngineSession, MoveReply, MoveRequest, Takeback, DEFAULT_END_GRACE};
pub use spec::{Detail, EngineSpec, SpecError, TimeControl};

/// Everything that can go wrong talking to an engine.
#[derive(Debug, Error)]
pub enum EngineError {
    /// The engine's command line cannot be turned into a program and arguments to run.
    #[error("engine command '{cmd}' is invalid: {source}")]
    BadCommand {
        cmd: String,
        #[source]
        source: SpecError,
    },
    /// The operating system could not start the engine process (not found, not executable...).
    #[error("cannot start engine '{cmd}': {source}")]
    SpawnFailed {
        cmd: String,
        #[source]
        source: std::io::Error,
    },
    /// The engine answered a START or RESTART with ERROR or UNKNOWN instead of OK.
    #[error("engine refused to start: {text}")]
    StartFailed { text: String },
    /// The engine gave no answer before its time for that command ran out, and was killed.
    /// `said`: the first `ERROR`/`UNKNOWN` line it printed instead, if any.
    #[error("engine did not answer {what} within {:.3} s{}", elapsed.as_secs_f64(), said_instead(said))]
    Timeout {
        what: String,
        elapsed: Duration,
        said: Option<String>,
    },
    /// The engine process exited or closed its output, or was already dead when asked to act.
    #[error("engine crashed ({status})")]
    Crashed { status: String },
    /// The session cannot carry on as the protocol needs, e.g. RESTART was refused and there is no process to start again.
    #[error("engine protocol error: {text}")]
    Protocol { text: String },
    /// The engine's processes held more memory than its limit while it thought, and were killed.
    #[error("engine used {peak} bytes of memory, over its limit of {limit}")]
    MemoryLimit { peak: u64, limit: u64 },
    /// Reading from or writing to the engine's pipes failed for a reason other than the engine exiting.
    #[error("engine I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// Which way a logged line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Written by the runner to the engine's stdin.
    ToEngine,
    /// Read from the engine's stdout.
    FromEngine,
    /// Read from the engine's stderr (never part of the protocol).
    Stderr,
    /// Something the runner did to the engine (spawned, killed, exit status).
    Note,
}

/// One line of engine traffic, for the log writer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEvent {
    /// The game slot (concurrency index) the engine belongs to.
    pub slot: usize,
    /// The engine's display name.
    pub engine: String,
    pub direction: Direction,
    /// The line without its line end.
    pub text: String,
    pub at: Instant,
}

/// Where log events go: a cheap cloneable handle that never blocks. With no receiver attached
/// (or the receiver dropped) events are discarded.
#[derive(Debug, Clone, Default)]
pub struct LogSink(Option<mpsc::UnboundedSender<LogEvent>>);

/// What a timeout's message adds about the line an engine printed instead of its answer.
fn said_instead(said: &Option<String>) -> String {
    said.as_ref()
        .map_or(String::new(), |s| format!(" (it printed {s:?} instead)"))
}

impl LogSink {
    /// A sink that discards everything.
    pub fn none() -> Self {
        LogSink(None)
    }

    /// A sink and the receiver the log writer reads from.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<LogEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (LogSink(Some(tx)), rx)
    }

    /// Whether anyone listens; lets callers skip building expensive text.
    pub fn is_enabled(&self) -> bool {
        self.0.as_ref().is_some_and(|tx| !tx.is_closed())
    }

    pub fn emit(&self, slot: usize, engine: &str, direction: Direction, text: impl Into<String>) {
        if let Some(tx) = &self.0 {
            // A closed receiver means nobody logs any more; that is not an engine error.
            let _ = tx.send(LogEvent {
                slot,
                engine: engine.to_string(),
                direction,
                text: text.into(),
                at: Instant::now(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sink_delivers_events_and_none_discards() {
        let (sink, mut rx) = LogSink::channel();
        assert!(sink.is_enabled());
        sink.clone().emit(2, "eng", Direction::ToEngine, "START 15");
        let ev = rx.try_recv().unwrap();
        assert_eq!(
            (ev.slot, ev.engine.as_str(), ev.direction, ev.text.as_str()),
            (2, "eng", Direction::ToEngine, "START 15")
        );
        drop(rx);
        assert!(!sink.is_enabled());
        sink.emit(0, "eng", Direction::Note, "after close"); // must not panic
        let none = LogSink::none();
        assert!(!none.is_enabled());
        none.emit(0, "x", Direction::Stderr, "ignored");
    }

    #[test]
    fn error_messages_name_what_happened() {
        let e = EngineError::Timeout {
            what: "TURN".into(),
            elapsed: Duration::from_millis(1500),
            said: None,
        };
        assert_eq!(e.to_string(), "engine did not answer TURN within 1.500 s");
        let e = EngineError::Timeout {
            what: "BEGIN".into(),
            elapsed: Duration::from_millis(1500),
            said: Some("ERROR Board is not empty.".into()),
        };
        assert_eq!(
            e.to_string(),
            "engine did not answer BEGIN within 1.500 s (it printed \"ERROR Board is not empty.\" instead)"
        );
        let e = EngineError::Crashed {
            status: "exit status 3".into(),
        };
        assert_eq!(e.to_string(), "engine crashed (exit status 3)");
    }
}
