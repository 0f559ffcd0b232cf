//! A conversation with one engine: ABOUT, START/RESTART and the INFO block, move requests with
//! deadlines measured on a monotonic clock, END with a grace period. Works over any byte
//! transport, so the protocol logic is tested in-process with `tokio::io::duplex` and a paused
//! clock; [`EngineSession::spawn`] wires it to a real process.
//!
//! One idea a file: this one holds the session's state and what it tells; `start` a game's start,
//! `moves` the requests for a move, `io` the process side (pipes, deaths, deadlines, the end),
//! `quirks` what it learns of an engine's ways, `requests` and `usage` plain values.

mod io;
mod moves;
mod quirks;
mod requests;
mod start;
mod usage;

use std::process::ExitStatus;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};

use crate::core::board::BoardSize;
use crate::engine::chatter::{Chatter, LineCounts, Room};
use crate::engine::listen::Listener;
use crate::engine::process::{EngineProcess, LineReader};
use crate::engine::protocol::{About, EngineLine};
use crate::engine::session::quirks::Quirks;
use crate::engine::session::usage::Meter;
use crate::engine::spec::EngineSpec;
use crate::engine::{Direction, EngineError, LogSink};

pub use crate::engine::session::requests::{game_infos, MoveReply, MoveRequest, Takeback};
pub use crate::engine::session::usage::GameUsage;

/// How long an engine may take to exit after END before its process group is killed. The
/// protocol page suggests one second.
pub const DEFAULT_END_GRACE: Duration = Duration::from_secs(1);

type Reader = LineReader<Box<dyn AsyncRead + Send + Unpin>>;
type Writer = Box<dyn AsyncWrite + Send + Unpin>;

/// A conversation with one engine, normally one process reused across the games of a pairing.
pub struct EngineSession {
    spec: EngineSpec,
    slot: usize,
    log: LogSink,
    /// The name used in log events.
    name: String,
    reader: Reader,
    writer: Writer,
    /// `None` for in-process transports; those cannot be respawned.
    process: Option<EngineProcess>,
    /// The leader's exit, once seen while reading.
    exited: Option<ExitStatus>,
    /// The board size of the last successful START in this process (RESTART keeps it).
    started: Option<BoardSize>,
    /// Why the conversation is over, once it is.
    dead: Option<String>,
    /// Its `MESSAGE` lines for the records (up to a cap per move) and the counts of its other
    /// lines that were no answer.
    chatter: Chatter,
    /// `INFO` pairs sent after the spec's own before each game (a tuning run's parameter
    /// values), replaced by [`set_game_options`](Self::set_game_options).
    game_options: Vec<(String, String)>,
    about: Option<About>,
    grace: Duration,
    /// `-suspend`: the process group is stopped (SIGSTOP) until the engine is next spoken to.
    suspended: bool,
    /// Hears the engine's search output while it thinks about a move (from the first game on:
    /// it needs the board size).
    listener: Option<Listener>,
    /// Lines of search output the listener could not read, over the session (`check` reports
    /// them).
    search_ignored: u64,
    /// What it learned of the engine's ways, and an exchange a refusal left unsettled.
    quirks: Quirks,
    /// Its processes' CPU time and memory, measured.
    meter: Meter,
    /// The bytes of the last move request (`INFO time_left` and the request), kept for the next
    /// one: a move then costs no allocation for what is sent.
    request_bytes: String,
}

impl std::fmt::Debug for EngineSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineSession")
            .field("name", &self.name)
            .field("slot", &self.slot)
            .field("process", &self.process)
            .field("started", &self.started)
            .field("dead", &self.dead)
            .finish_non_exhaustive()
    }
}

impl EngineSession {
    /// Starts the engine process of `spec`. Must be called inside a tokio runtime.
    pub async fn spawn(spec: &EngineSpec, slot: usize, log: LogSink) -> Result<Self, EngineError> {
        let name = spec.display_name();
        let spawned = EngineProcess::spawn(spec, slot, &name, &log).await?;
        let mut session =
            Self::from_transport(spec.clone(), spawned.stdout, spawned.stdin, slot, log);
        session.process = Some(spawned.process);
        Ok(session)
    }

    /// A session over any transport: `reader` is what the engine prints, `writer` its input.
    /// Such a session has no process, so it cannot be respawned.
    pub fn from_transport<R, W>(
        spec: EngineSpec,
        reader: R,
        writer: W,
        slot: usize,
        log: LogSink,
    ) -> Self
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        EngineSession {
            name: spec.display_name(),
            spec,
            slot,
            log,
            reader: LineReader::new(Box::new(reader)),
            writer: Box::new(writer),
            process: None,
            exited: None,
            started: None,
            dead: None,
            chatter: Chatter::default(),
            game_options: Vec::new(),
            about: None,
            grace: DEFAULT_END_GRACE,
            suspended: false,
            listener: None,
            search_ignored: 0,
            quirks: Quirks::default(),
            meter: Meter::default(),
            request_bytes: String::new(),
        }
    }

    pub fn spec(&self) -> &EngineSpec {
        &self.spec
    }

    /// `INFO key value` lines to send before each following game, after the spec's own
    /// (`tune`: the values of this side of the next game).
    pub fn set_game_options(&mut self, options: Vec<(String, String)>) {
        self.game_options = options;
    }

    /// The name used in logs: the user's name, else the ABOUT name, else the program name.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn set_name(&mut self, name: impl Into<String>) {
        self.name = name.into();
    }

    /// The parsed ABOUT answer, once [`about`](Self::about) succeeded.
    pub fn about_info(&self) -> Option<&About> {
        self.about.as_ref()
    }

    /// The grace period between END and SIGKILL.
    pub fn set_end_grace(&mut self, grace: Duration) {
        self.grace = grace;
    }

    /// The engine process (none for in-process transports).
    pub fn process(&self) -> Option<&EngineProcess> {
        self.process.as_ref()
    }

    /// False once the engine crashed, timed out or was killed; [`new_game`](Self::new_game)
    /// then starts a fresh process.
    pub fn is_alive(&self) -> bool {
        self.dead.is_none()
    }

    /// The MESSAGE texts received since the last call (at most
    /// [`LINES_PER_MOVE`](crate::engine::chatter::LINES_PER_MOVE) lines and
    /// [`BYTES_PER_MOVE`](crate::engine::chatter::BYTES_PER_MOVE) bytes a move; the rest are counted in
    /// [`line_counts`](Self::line_counts) as dropped).
    pub fn take_messages(&mut self) -> Vec<String> {
        self.chatter.take_messages()
    }

    /// The lines the engine printed that were no answer (`ERROR`, `UNKNOWN`, `DEBUG`, ...) and
    /// those dropped over the cap, since the last [`take_line_counts`](Self::take_line_counts).
    pub fn line_counts(&self) -> LineCounts {
        self.chatter.counts()
    }

    /// As [`line_counts`](Self::line_counts), and counts afresh from here (a game's, when called
    /// at its end).
    pub fn take_line_counts(&mut self) -> LineCounts {
        self.chatter.take_counts()
    }

    /// Keeps a `MESSAGE` text if the move's budget has room (else counts it dropped).
    pub(super) fn keep_message(&mut self, text: String) {
        let room = self.chatter.message(text);
        self.note_dropping(room);
    }

    /// The one note of a move about lines dropped over the cap.
    fn note_dropping(&self, room: Room) {
        if room == (Room::Dropped { first: true }) {
            self.note(format!(
                "over {} lines or {} KiB of messages and stray lines in this move: the rest are \
                 counted, not kept",
                crate::engine::chatter::LINES_PER_MOVE,
                crate::engine::chatter::BYTES_PER_MOVE / 1024
            ));
        }
    }

    /// A line that is no answer: counted, and logged as a note (with `why`) within the cap.
    pub(super) fn noise(&mut self, line: Option<&EngineLine>, raw: &str, why: &str) {
        let room = self.chatter.noise(line, raw);
        match room {
            Room::Kept => self.note(format!("{why}: {}", raw.trim())),
            dropped => self.note_dropping(dropped),
        }
    }

    /// A runner's remark about the engine: to the protocol log, and to `-verbose` diagnostics.
    pub(super) fn note(&self, text: String) {
        // Notes quote engine lines: their control characters are escaped for the console.
        let text = crate::engine::protocol::printable(text);
        tracing::debug!(slot = self.slot + 1, engine = %self.name, "{text}");
        self.log.emit(self.slot, &self.name, Direction::Note, text);
    }

    /// Lines of search output that could not be read (malformed, cut or out of range), over
    /// the session.
    pub fn search_ignored(&self) -> u64 {
        self.search_ignored
    }

    /// `YXNBEST n` is to be asked for (the engine is asked for `n` best moves and has not
    /// refused it): the game then sends it the whole board before each move.
    pub fn nbest(&self) -> Option<u32> {
        self.spec.nbest.filter(|_| !self.quirks.nbest_refused)
    }

    /// The largest memory (summed PSS) of the engine's processes seen while it thought, since
    /// the last call (a game's peak when called at its end).
    pub fn take_peak_memory(&mut self) -> u64 {
        self.meter.take_peak()
    }

    /// What the engine's processes used since the last call (or since the process started):
    /// CPU time, and memory now (summed PSS). Called at the end of each game, so the CPU time of a
    /// game is counted from the end of the previous one (an engine's idle time between games is
    /// nothing, and a game costs one read of `/proc` per engine). Zero without a process.
    pub fn game_usage(&mut self) -> GameUsage {
        self.meter.game_usage(self.pid())
    }

    /// CPU time and memory of the engine's whole process tree now, by a scan of `/proc` (zero
    /// without a process). Not on a match's per-move path: `check` reads it after each answer.
    pub fn usage(&self) -> crate::engine::resources::Usage {
        self.pid()
            .map(crate::engine::resources::tree_usage)
            .unwrap_or_default()
    }

    /// Note the CPU time the engine has used once it answered the game's start (`START` or
    /// `RESTART` and the INFO block): one more read of its open `/proc` files a game, so that
    /// [`game_usage`](Self::game_usage) tells start-up (a hash table filled, a network loaded)
    /// from thinking.
    pub fn mark_started(&mut self) {
        self.meter.mark_started(self.pid());
    }

    /// The engine process's id, while it has one.
    pub(super) fn pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(|p| p.pid())
    }
}

#[cfg(test)]
mod tests;
