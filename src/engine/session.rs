//! A conversation with one engine: ABOUT, START/RESTART and the INFO block, move requests with
//! deadlines measured on a monotonic clock, END with a grace period. Works over any byte
//! transport, so the protocol logic is tested in-process with `tokio::io::duplex` and a paused
//! clock; [`EngineSession::spawn`] wires it to a real process.

use std::process::ExitStatus;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::time::{timeout, timeout_at, Instant};

use crate::core::board::{BoardSize, Pos};
use crate::core::rules::Rule;
use crate::core::search::SearchReport;
use crate::core::swap::{Answer, Swap2Form, SwapReply};
use crate::engine::chatter::{about_time_left, Chatter, LineCounts, Room};
use crate::engine::listen::Listener;
use crate::engine::process::{describe_status, EngineProcess, LineReader};
use crate::engine::protocol::{
    cut_text, parse_about, parse_coords, parse_engine_line, parse_swap_answer, About, Command,
    EngineLine, Field, ABOUT_NAME_CHARS, EOL, QUOTED_ANSWER_CHARS, UNLIMITED_TIME_LEFT_MS,
};
use crate::engine::resources::ProcWatch;
use crate::engine::spec::{Detail, EngineSpec};
use crate::engine::{Direction, EngineError, LogSink};

/// How long an engine may take to exit after END before its process group is killed. The
/// protocol page suggests one second.
pub const DEFAULT_END_GRACE: Duration = Duration::from_secs(1);

/// After the engine's output ends, how long to wait for its exit status (for the report only).
const EXIT_STATUS_WAIT: Duration = Duration::from_secs(1);

/// After the engine process exits while its output pipe stays open (a child inherited it), how
/// long to keep reading what it wrote before its death.
const EXIT_DRAIN: Duration = Duration::from_millis(100);
/// How often an engine's memory is read while it thinks: a few `/proc` reads each time, so a
/// tenth of a second costs nothing and catches a runaway allocation long before it takes the
/// machine.
const MEMORY_SAMPLE: Duration = Duration::from_millis(100);

/// What the engine is asked to move on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveRequest {
    /// Empty board, the engine moves first.
    Begin,
    /// The opponent's last move.
    Turn(Pos),
    /// The whole position, stones in play order with their field (the engine's own, the
    /// opponent's; a continuous game's winning line only in `check`).
    Board(Vec<(Pos, Field)>),
}

impl MoveRequest {
    fn command(&self) -> Command {
        match self {
            MoveRequest::Begin => Command::Begin,
            MoveRequest::Turn(p) => Command::Turn(*p),
            MoveRequest::Board(stones) => Command::Board(stones.clone()),
        }
    }

    fn describe(&self) -> String {
        match self {
            MoveRequest::Begin => "BEGIN".into(),
            MoveRequest::Turn(p) => format!("TURN {},{}", p.x, p.y),
            MoveRequest::Board(stones) => format!("BOARD ({} stones)", stones.len()),
        }
    }
}

/// The engine's answer to `TAKEBACK`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Takeback {
    /// `OK`: the stone is off its board.
    Done,
    /// `UNKNOWN` or `ERROR` (the line): it does not take moves back.
    Refused(String),
}

/// Which answer a request waits for: the lines an engine may send before it differ.
///
/// A line that is not the answer never ends the wait: an engine may print `ERROR` or `UNKNOWN`
/// about something else and answer after (Rapfi, sent a line in the moment it has printed its
/// move but not yet marked itself idle, drops the line's first word and refuses the others:
/// `ERROR Unknown command: TIME_LEFT`, then answers the request). An engine that never
/// answers loses on time, its first `ERROR`/`UNKNOWN` quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answering {
    /// A move: `ERROR`, `UNKNOWN`, `DEBUG` and `OK` lines are noise (counted, logged), `SUGGEST`
    /// is answered with `PLAY`; only a move or an unparsable line is the answer.
    Move,
    /// A `SWAP2BOARD` answer: `UNKNOWN`/`ERROR` is the answer (the command is not supported),
    /// unless it is about the `INFO time_left` line sent with it
    /// ([`about_time_left`]).
    Swap,
    /// A move after `YXBOARD` + `YXNBEST`: as [`Move`](Answering::Move), but `UNKNOWN`/`ERROR`
    /// is the answer (the extensions are not supported), unless it is about the
    /// `INFO time_left` line.
    NBest,
}

impl Answering {
    /// The request's keyword: a refusal line that names it is about the request.
    fn keyword(self) -> &'static str {
        match self {
            Answering::Move => "",
            Answering::Swap => "SWAP2BOARD",
            Answering::NBest => "YXBOARD",
        }
    }
}

/// The engine's answer to a move request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveReply {
    /// The answer line, trimmed (for `SUGGEST`, the engine's answer to our `PLAY`).
    pub raw: String,
    /// The coordinates, or `None` when the answer is not a move (an illegal, unparsable move).
    pub coords: Option<(i64, i64)>,
    /// From writing the command to reading the answer, on the monotonic clock.
    pub elapsed: Duration,
    /// The engine's last complete search report before the answer.
    pub search: Option<Box<SearchReport>>,
}

/// Why a read or write could not go on; turned into an [`EngineError`] outside the deadline so
/// that collecting the exit status is not mistaken for slowness.
enum Broken {
    /// End of output or a broken pipe.
    Closed,
    /// The engine process exited (its output may still be held open by a child).
    Exited(ExitStatus),
    Error(EngineError),
}

impl From<EngineError> for Broken {
    fn from(e: EngineError) -> Self {
        Broken::Error(e)
    }
}

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
    /// Largest memory (summed PSS, see `resources`) seen while the engine thought, since the
    /// last `take_peak_memory`.
    peak_rss: u64,
    /// `-suspend`: the process group is stopped (SIGSTOP) until the engine is next spoken to.
    suspended: bool,
    /// The engine's answer to `ABOUT`, the last one that was not `ERROR`/`UNKNOWN`: the line
    /// that ends a [`drain`](Self::drain). Kept across new processes (the same program).
    about_line: Option<String>,
    /// The INFO block of a fresh start was answered with a refusal before any ABOUT answer was
    /// known: an ERROR about an INFO line, with the ABOUT answer still to come. Until the first
    /// answer to a move or `SWAP2BOARD`, a line with a `name="..."` field is that late ABOUT
    /// answer, not the answer asked for.
    about_may_follow: bool,
    /// An exchange that ended on an `ERROR`/`UNKNOWN` answer, after which the engine may still
    /// print lines of its own (Rapfi writes an `ERROR` per stone line it cannot read, then an
    /// answer): they are drained before the next game, never read as the next answer.
    unsettled: Option<String>,
    /// The form of `SWAP2BOARD` this engine takes, once it answered one with stones; kept
    /// across new processes.
    swap_form: Option<Swap2Form>,
    /// The engine's CPU time at the last [`game_usage`](Self::game_usage), with the pid it was
    /// read from: the next game's time is counted from there, so a game costs one read of
    /// `/proc` per engine, not two.
    cpu_mark: Option<(u32, Duration)>,
    /// The engine's CPU time when it had answered the game's `START`/`RESTART` (and the INFO
    /// block's `ABOUT`), with the pid: what it used before that is the game's start-up, apart
    /// from its thinking.
    start_mark: Option<(u32, Duration)>,
    /// The engine process's `/proc` files, open from its first move or game end to its end.
    proc_watch: Option<ProcWatch>,
    /// Hears the engine's search output while it thinks about a move (from the first game on:
    /// it needs the board size).
    listener: Option<Listener>,
    /// The engine answered `YXBOARD`/`YXNBEST` with a refusal: kept across new processes.
    nbest_refused: bool,
    /// Lines of search output the listener could not read, over the session (`check` reports
    /// them).
    search_ignored: u64,
}

/// What an engine's processes used in one game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GameUsage {
    /// CPU time of its start-up for the game (`START`/`RESTART` and the INFO block).
    pub startup_cpu: Duration,
    /// CPU time from then to the end of the game: thinking, and pondering if it ponders.
    pub cpu: Duration,
    /// Memory its processes take at the end, bytes: their summed PSS (see `resources`; summed
    /// resident memory where `smaps_rollup` cannot be read).
    pub memory: u64,
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
            peak_rss: 0,
            suspended: false,
            about_line: None,
            about_may_follow: false,
            unsettled: None,
            swap_form: None,
            listener: None,
            nbest_refused: false,
            search_ignored: 0,
            cpu_mark: None,
            start_mark: None,
            proc_watch: None,
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
    fn keep_message(&mut self, text: String) {
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
    fn noise(&mut self, line: Option<&EngineLine>, raw: &str, why: &str) {
        let room = self.chatter.noise(line, raw);
        match room {
            Room::Kept => self.note(format!("{why}: {}", raw.trim())),
            dropped => self.note_dropping(dropped),
        }
    }

    /// Asks ABOUT and returns the engine's name: the `name` field, the free-text answer of old
    /// engines, or (when the engine answers UNKNOWN/ERROR) the program name. MESSAGE and DEBUG
    /// banner lines before the answer are skipped. The session's log name becomes the user's
    /// name if set, else this one.
    pub async fn about(&mut self, deadline: Duration) -> Result<String, EngineError> {
        self.check_alive()?;
        let start = Instant::now();
        let outcome = timeout_at(deadline_at(start, deadline), async {
            self.send(&Command::About).await?;
            loop {
                let line = self.read_line().await?;
                match parse_engine_line(&line) {
                    None
                    | Some(EngineLine::Message(_))
                    | Some(EngineLine::Debug(_) | EngineLine::Info(_))
                    | Some(EngineLine::Ok) => continue,
                    Some(EngineLine::Unknown(_)) | Some(EngineLine::Error(_)) => {
                        return Ok::<_, Broken>(None)
                    }
                    Some(_) => return Ok(Some(parse_about(&line))),
                }
            }
        })
        .await;
        let about = self.settle(outcome.ok(), "ABOUT", start).await?;
        if let Some(a) = &about {
            self.about_line = Some(a.raw.clone());
        }
        let fallback = self.spec.program_name();
        let name = about
            .as_ref()
            .and_then(|a| a.name())
            .map(|n| cut_text(n.to_string(), ABOUT_NAME_CHARS))
            .unwrap_or_else(|| fallback.clone());
        self.name = self.spec.name.clone().unwrap_or_else(|| name.clone());
        self.about = about;
        Ok(name)
    }

    /// Prepares a new game: `START n` on a fresh process (or when the size changed), else
    /// `RESTART`; either must be answered `OK` within `startup_deadline`. An engine answering
    /// RESTART with UNKNOWN or ERROR is ended and started again, as the protocol says. A dead
    /// session (crash, timeout) is respawned first. Then the INFO block of the spec is sent.
    pub async fn new_game(
        &mut self,
        size: BoardSize,
        rule: Rule,
        startup_deadline: Duration,
    ) -> Result<(), EngineError> {
        // What an engine still had to say after a refused request is not the answer to RESTART;
        // when it cannot be drained the engine was killed, and starts afresh below.
        let _ = self.drain(startup_deadline, true).await;
        // The start's messages have a move's room of their own.
        self.chatter.new_move();
        if self.dead.is_some() {
            self.respawn().await?;
        }
        self.listener = Some(Listener::new(size));
        let mut infos = game_infos(&self.spec, rule);
        for (key, value) in &self.game_options {
            infos.push(Command::info(key.clone(), value));
        }
        infos.push(Command::About);
        // Whether the INFO block and ABOUT already went out with RESTART.
        let mut sent = false;
        if self.started == Some(size) {
            // RESTART, the INFO block and ABOUT in one write: the engine reads them in order, so
            // this is the same conversation in one round trip instead of two (per game, at every
            // concurrency). Should it refuse RESTART, the lines after it go to a process that is
            // ended; should it not answer, it is killed.
            match self
                .handshake(Command::Restart, &infos, startup_deadline)
                .await
            {
                Ok(()) => sent = true,
                Err(EngineError::StartFailed { text }) => {
                    self.note(format!("RESTART refused ({text}); restarting the process"));
                    if self.process.is_none() {
                        // The INFO block and ABOUT sent after RESTART would be answered next.
                        self.kill("refused RESTART");
                        return Err(EngineError::Protocol {
                            text: format!(
                                "engine refused RESTART ({text}) and cannot be respawned"
                            ),
                        });
                    }
                    self.respawn().await?;
                    self.handshake(Command::Start(size.get()), &[], startup_deadline)
                        .await?;
                }
                Err(e) => return Err(e),
            }
        } else {
            self.handshake(Command::Start(size.get()), &[], startup_deadline)
                .await?;
        }
        self.started = Some(size);
        let start = Instant::now();
        // The INFO block, then ABOUT: an engine reads commands in order, so its answer comes
        // once it has taken in every INFO line, and the work they cause (a hash table sized from
        // `max_memory`, a network loaded) is done within the start-up deadline, before the first
        // move's clock starts, as the predecessor's ABOUT round trip did.
        // An engine known to answer ABOUT with something else may print ERROR about an INFO
        // line before it (Rapfi does for a small `max_memory`): that line is not the answer, and
        // taking it so would leave the real answer to be read as the first move.
        let answers_about = self.about_line.is_some();
        let outcome = timeout_at(deadline_at(start, startup_deadline), async {
            if !sent {
                self.send_all(&infos).await?;
            }
            loop {
                let line = self.read_line().await?;
                match parse_engine_line(&line) {
                    Some(EngineLine::Message(text)) => self.keep_message(text),
                    None
                    | Some(EngineLine::Debug(_) | EngineLine::Info(_))
                    | Some(EngineLine::Ok) => {}
                    Some(EngineLine::Error(_) | EngineLine::Unknown(_)) if answers_about => {}
                    // The answer, whatever it says (UNKNOWN and ERROR included).
                    Some(_) => return Ok::<_, Broken>(line.trim().to_string()),
                }
            }
        })
        .await;
        let answer = self.settle(outcome.ok(), "INFO and ABOUT", start).await?;
        if !is_refusal(&answer) {
            self.about_line = Some(answer);
        } else {
            self.about_may_follow = !answers_about;
        }
        Ok(())
    }

    /// Reads what the engine still prints after an exchange that ended on a refusal (see
    /// `unsettled`), up to its answer to an `ABOUT` sent now: every line before it is late,
    /// logged and never taken as an answer. Without a known `ABOUT` answer to wait for the
    /// engine is killed when `or_kill` (a new process is the only clean slate), else left as it
    /// is; with no answer within `deadline` it is killed and the error returned.
    async fn drain(&mut self, deadline: Duration, or_kill: bool) -> Result<(), EngineError> {
        let Some(what) = self.unsettled.take() else {
            return Ok(());
        };
        if self.dead.is_some() {
            return Ok(());
        }
        let Some(marker) = self.about_line.clone() else {
            if or_kill {
                self.kill(&format!(
                    "what it prints after {what} cannot be told from its answers"
                ));
            } else {
                self.unsettled = Some(what);
            }
            return Ok(());
        };
        let start = Instant::now();
        let outcome = timeout_at(deadline_at(start, deadline), async {
            self.send(&Command::About).await?;
            loop {
                let line = self.read_line().await?;
                let line = line.trim();
                if line == marker {
                    return Ok::<_, Broken>(());
                }
                if !line.is_empty() {
                    let why = format!("late line after {what}, ignored");
                    self.noise(parse_engine_line(line).as_ref(), line, &why);
                }
            }
        })
        .await;
        self.settle(outcome.ok(), &format!("ABOUT (after {what})"), start)
            .await
    }

    /// Asks for a move: `INFO time_left` (unlimited = 2147483647), then the command, then reads
    /// until an answer. MESSAGE lines are kept for [`take_messages`](Self::take_messages);
    /// DEBUG, ERROR, UNKNOWN and OK are only logged; `SUGGEST x,y` is answered `PLAY x,y` and the
    /// engine's reply to that is the move. Any other line is the answer, unparsable ones
    /// included (`coords: None`), so the referee can call it an illegal move.
    ///
    /// Past `deadline` (counted from sending; `Duration::MAX` = none, see
    /// [`EngineSpec::move_deadline`]) the engine is killed and `Timeout` returned; if it dies
    /// instead, `Crashed` with its exit status.
    pub async fn request_move(
        &mut self,
        req: MoveRequest,
        time_left: Option<Duration>,
        deadline: Duration,
    ) -> Result<MoveReply, EngineError> {
        if let (MoveRequest::Board(stones), Some(n)) = (&req, self.nbest()) {
            let command = Command::NBest {
                stones: stones.clone(),
                n,
            };
            let what = || format!("YXBOARD + YXNBEST {n}");
            let (raw, elapsed) = self
                .request(command, Answering::NBest, time_left, deadline, what)
                .await?;
            if !is_refusal(&raw) {
                return Ok(self.move_reply(raw, elapsed));
            }
            // Not an engine of Yixin's extensions: asked the usual way from now on, once what
            // it says to the stone lines is drained.
            self.nbest_refused = true;
            self.note(format!("{} refused ({raw}): BOARD from now on", what()));
            self.unsettled = Some(what());
        }
        let (raw, elapsed) = self
            .request(req.command(), Answering::Move, time_left, deadline, || {
                req.describe()
            })
            .await?;
        Ok(self.move_reply(raw, elapsed))
    }

    /// Lines of search output that could not be read (malformed, cut or out of range), over
    /// the session.
    pub fn search_ignored(&self) -> u64 {
        self.search_ignored
    }

    /// `YXNBEST n` is to be asked for (the engine is asked for `n` best moves and has not
    /// refused it): the game then sends it the whole board before each move.
    pub fn nbest(&self) -> Option<u32> {
        self.spec.nbest.filter(|_| !self.nbest_refused)
    }

    /// The move answer `raw`, with the search report heard before it.
    fn move_reply(&mut self, raw: String, elapsed: Duration) -> MoveReply {
        let (search, ignored) = match self.listener.as_mut() {
            Some(l) => (l.finish(), l.take_ignored()),
            None => (None, 0),
        };
        self.search_ignored += ignored;
        if ignored > 0 {
            self.note(format!(
                "{ignored} line(s) of search output ignored (malformed, cut or out of window)"
            ));
        }
        MoveReply {
            coords: parse_coords(&raw),
            raw: cut_text(raw, QUOTED_ANSWER_CHARS),
            elapsed,
            search,
        }
    }

    /// `TAKEBACK x,y`: the engine removes the stone on `p` (the last move) and answers `OK`,
    /// within `deadline`. MESSAGE lines before the answer are kept, DEBUG lines logged; the
    /// first other line is the answer. `UNKNOWN` or `ERROR` is a refusal (the command is
    /// optional in the protocol), anything else a protocol error; after either, what the
    /// engine still prints is drained before the next request. Past `deadline` the engine is
    /// killed and `Timeout` returned; if it dies instead, `Crashed` with its exit status.
    pub async fn takeback(&mut self, p: Pos, deadline: Duration) -> Result<Takeback, EngineError> {
        self.check_alive()?;
        if self.unsettled.is_some() {
            self.drain(deadline, false).await?;
        }
        let start = Instant::now();
        let outcome = timeout_at(deadline_at(start, deadline), async {
            self.send(&Command::Takeback(p)).await?;
            loop {
                let line = self.read_line().await?;
                match parse_engine_line(&line) {
                    None | Some(EngineLine::Debug(_) | EngineLine::Info(_)) => {}
                    Some(EngineLine::Message(text)) => self.keep_message(text),
                    Some(_) => return Ok::<_, Broken>(line.trim().to_string()),
                }
            }
        })
        .await;
        let what = format!("TAKEBACK {},{}", p.x, p.y);
        let line = self.settle(outcome.ok(), &what, start).await?;
        if parse_engine_line(&line) == Some(EngineLine::Ok) {
            return Ok(Takeback::Done);
        }
        self.unsettled = Some(what.clone());
        let text = cut_text(line.clone(), QUOTED_ANSWER_CHARS);
        if is_refusal(&line) {
            return Ok(Takeback::Refused(text));
        }
        Err(EngineError::Protocol {
            text: format!("engine answered {what} with {text:?} instead of OK"),
        })
    }

    /// Asks `SWAP2BOARD` with `stones` (in play order) in a swap opening, as
    /// [`request_move`](Self::request_move) asks for a move: `INFO time_left` first, the same
    /// deadline, kill and crash handling, MESSAGE lines kept. The first line that is not
    /// MESSAGE, DEBUG or OK is the answer; `UNKNOWN` and `ERROR` included (the engine does not
    /// support the command, [`Answer::Unsupported`]).
    ///
    /// The stones go in the protocol page's `x,y` lines, unless the engine is known to take
    /// `BOARD`'s `x,y,c` ([`Swap2Form`]). An engine that answers the first with `ERROR` (as
    /// Rapfi does) is drained of what it still prints for it and asked again in the second, as
    /// the protocol lets a manager try again after `ERROR`; the form that got an answer is
    /// remembered for its later requests. All of it is timed as one answer, on its clock.
    pub async fn swap2_request(
        &mut self,
        stones: &[Pos],
        time_left: Option<Duration>,
        deadline: Duration,
    ) -> Result<SwapReply, EngineError> {
        // On the empty board both forms are the same two lines.
        let form = match self.swap_form {
            Some(form) if !stones.is_empty() => form,
            _ => Swap2Form::Points,
        };
        let start = Instant::now();
        let mut reply = self.swap2_once(stones, form, time_left, deadline).await?;
        let refused = matches!(parse_engine_line(&reply.raw), Some(EngineLine::Error(_)));
        if refused && form == Swap2Form::Points && !stones.is_empty() && self.swap_form.is_none() {
            self.note(format!(
                "SWAP2BOARD in x,y lines answered {:?}: asking again in BOARD's x,y,c lines",
                reply.raw
            ));
            self.drain(deadline.saturating_sub(start.elapsed()), false)
                .await?;
            // No end to its late lines could be found: asking again would read them.
            if self.unsettled.is_none() {
                let spent = start.elapsed();
                let left = time_left.map(|t| t.saturating_sub(spent));
                let deadline = deadline.saturating_sub(spent);
                reply = self
                    .swap2_once(stones, Swap2Form::Board, left, deadline)
                    .await?;
                reply.elapsed = start.elapsed();
            }
        }
        if reply.answer != Answer::Unsupported && !stones.is_empty() && self.swap_form.is_none() {
            self.swap_form = Some(reply.form);
            self.note(format!(
                "takes SWAP2BOARD in the {} form ({} lines)",
                reply.form.name(),
                match reply.form {
                    Swap2Form::Points => "x,y",
                    Swap2Form::Board => "x,y,c",
                }
            ));
        }
        Ok(reply)
    }

    /// One `SWAP2BOARD` exchange in `form`; a refusal leaves the session unsettled.
    async fn swap2_once(
        &mut self,
        stones: &[Pos],
        form: Swap2Form,
        time_left: Option<Duration>,
        deadline: Duration,
    ) -> Result<SwapReply, EngineError> {
        let command = Command::Swap2Board {
            stones: stones.to_vec(),
            form,
        };
        let (raw, elapsed) = self
            .request(command, Answering::Swap, time_left, deadline, || {
                format!("SWAP2BOARD ({} stones)", stones.len())
            })
            .await?;
        let answer = parse_swap_answer(&raw);
        if answer == Answer::Unsupported {
            self.unsettled = Some(format!("SWAP2BOARD ({} stones)", stones.len()));
        }
        Ok(SwapReply {
            answer,
            raw: cut_text(raw, QUOTED_ANSWER_CHARS),
            elapsed,
            form,
        })
    }

    /// Sends `INFO time_left` and `command`, and reads its answer line (trimmed) within
    /// `deadline`, sampling the engine's memory meanwhile. `what` describes the command for
    /// errors (built only then: the hot path builds no text).
    async fn request(
        &mut self,
        command: Command,
        answering: Answering,
        time_left: Option<Duration>,
        deadline: Duration,
        what: impl FnOnce() -> String,
    ) -> Result<(String, Duration), EngineError> {
        self.check_alive()?;
        if self.unsettled.is_some() {
            self.drain(deadline, false).await?;
        }
        self.chatter.new_move();
        let time_left_ms = time_left.map_or(UNLIMITED_TIME_LEFT_MS, |d| {
            u64::try_from(d.as_millis())
                .unwrap_or(u64::MAX)
                .min(UNLIMITED_TIME_LEFT_MS)
        });
        let start = Instant::now();
        let deadline = deadline_at(start, deadline);
        // The engine's memory is sampled while it thinks (its peak is kept for the record); over
        // its limit it is killed and loses, as the protocol's `max_memory` promises. One timer
        // serves both the deadline and the samples: it fires at the earlier of the two, and an
        // engine that answers within the first period costs no read and no second timer.
        let mut watch = self.take_watch();
        let watched = watch.as_ref().map(ProcWatch::pid);
        let limit = self.spec.memory_limit();
        let mut peak = 0u64;
        let sample_after = |now: Instant| match watched {
            Some(_) => deadline.min(now + MEMORY_SAMPLE),
            None => deadline,
        };
        let outcome = {
            let answer = self.read_answer(command, time_left_ms, answering);
            tokio::pin!(answer);
            let timer = tokio::time::sleep_until(sample_after(start));
            tokio::pin!(timer);
            loop {
                tokio::select! {
                    biased;
                    r = &mut answer => break Some(r),
                    () = &mut timer => {
                        let now = Instant::now();
                        if now >= deadline {
                            break None;
                        }
                        if let Some(w) = &mut watch {
                            // The tree's summed PSS (see `resources`), not its summed RSS.
                            let mut memory = w.sample().1;
                            if limit.is_some_and(|l| memory.estimated && memory.bytes > l) {
                                // An estimate over the limit: a reading decides.
                                memory = w.sample_exact().1;
                            }
                            let used = memory.bytes;
                            peak = peak.max(used);
                            if let Some(limit) = limit.filter(|&l| used > l) {
                                let over = EngineError::MemoryLimit { peak: used, limit };
                                break Some(Err(Broken::Error(over)));
                            }
                        }
                        timer.as_mut().reset(sample_after(now));
                    }
                }
            }
        };
        self.peak_rss = self.peak_rss.max(peak);
        self.proc_watch = watch;
        match outcome {
            // The hot path: no description of the request to build.
            Some(Ok(reply)) => Ok(reply),
            other => self.settle(other, &what(), start).await,
        }
    }

    /// The largest memory (summed PSS) of the engine's processes seen while it thought, since
    /// the last call (a game's peak when called at its end).
    pub fn take_peak_memory(&mut self) -> u64 {
        std::mem::take(&mut self.peak_rss)
    }

    /// What the engine's processes used since the last call (or since the process started):
    /// CPU time, and memory now (summed PSS). Called at the end of each game, so the CPU time of a
    /// game is counted from the end of the previous one (an engine's idle time between games is
    /// nothing, and a game costs one read of `/proc` per engine). Zero without a process.
    pub fn game_usage(&mut self) -> GameUsage {
        let Some(mut watch) = self.take_watch() else {
            return GameUsage::default();
        };
        let (pid, (now, memory)) = (watch.pid(), watch.sample());
        self.proc_watch = Some(watch);
        // A new process (respawned since the mark) used nothing before it started.
        let since = match self.cpu_mark {
            Some((marked, cpu)) if marked == pid => cpu,
            _ => Duration::ZERO,
        };
        // Without a start mark of this process (no START answered this game) it is all thinking.
        let started = match self.start_mark.take() {
            Some((marked, cpu)) if marked == pid => cpu.clamp(since, now.cpu.max(since)),
            _ => since,
        };
        self.cpu_mark = Some((pid, now.cpu));
        GameUsage {
            startup_cpu: started.saturating_sub(since),
            cpu: now.cpu.saturating_sub(started),
            memory: memory.bytes,
        }
    }

    /// CPU time and memory of the engine's whole process tree now, by a scan of `/proc` (zero
    /// without a process). Not on a match's per-move path: `check` reads it after each answer.
    pub fn usage(&self) -> crate::engine::resources::Usage {
        self.process
            .as_ref()
            .and_then(|p| p.pid())
            .map(crate::engine::resources::tree_usage)
            .unwrap_or_default()
    }

    /// Note the CPU time the engine has used once it answered the game's start (`START` or
    /// `RESTART` and the INFO block): one more read of its open `/proc` files a game, so that
    /// [`game_usage`](Self::game_usage) tells start-up (a hash table filled, a network loaded)
    /// from thinking.
    pub fn mark_started(&mut self) {
        let Some(watch) = self.take_watch() else {
            return;
        };
        self.start_mark = Some((watch.pid(), watch.usage().cpu));
        self.proc_watch = Some(watch);
    }

    /// The open `/proc` files of the current process, taken out of the session (put them back
    /// after use): opened on first use, and again for a new process after a respawn.
    fn take_watch(&mut self) -> Option<ProcWatch> {
        let pid = self.process.as_ref().and_then(|p| p.pid())?;
        match self.proc_watch.take() {
            Some(w) if w.pid() == pid => Some(w),
            _ => Some(ProcWatch::open(pid)),
        }
    }

    /// Send `INFO time_left` and the request, then read until the answer line (trimmed) and
    /// measure the time to it.
    async fn read_answer(
        &mut self,
        command: Command,
        time_left_ms: u64,
        answering: Answering,
    ) -> Result<(String, Duration), Broken> {
        // `INFO time_left` is written by hand: this runs on every move.
        let mut bytes = String::with_capacity(64);
        if time_left_ms == UNLIMITED_TIME_LEFT_MS {
            bytes.push_str("INFO time_left 2147483647\r\n");
        } else {
            bytes.push_str("INFO time_left ");
            crate::engine::protocol::push_int(
                &mut bytes,
                i64::try_from(time_left_ms).unwrap_or(i64::MAX),
            );
            bytes.push_str(EOL);
        }
        command.encode_into(&mut bytes);
        // Search output is heard for moves only, and only what comes after this request.
        let mut listener = match answering {
            Answering::Move | Answering::NBest => self.listener.take(),
            Answering::Swap => None,
        };
        if let Some(l) = listener.as_mut() {
            l.begin();
        }
        let sent = Instant::now();
        let answer = self
            .read_move_answer(&bytes, answering, time_left_ms, sent, &mut listener)
            .await;
        self.listener = listener.or(self.listener.take());
        answer
    }

    /// The loop of [`read_answer`](Self::read_answer): sends `bytes`, then reads until the
    /// answer (see [`Answering`]), giving search output to `listener`. `time_left_ms` is the
    /// value sent in `INFO time_left`: a refusal about that line is not the answer.
    async fn read_move_answer(
        &mut self,
        bytes: &str,
        answering: Answering,
        time_left_ms: u64,
        sent: Instant,
        listener: &mut Option<Listener>,
    ) -> Result<(String, Duration), Broken> {
        self.send_bytes(bytes).await?;
        loop {
            let line = self.read_line().await?;
            match parse_engine_line(&line) {
                Some(EngineLine::Info(rest)) => {
                    if let Some(l) = listener.as_mut() {
                        l.info(&rest, || millis(sent.elapsed()));
                    }
                    continue;
                }
                parsed @ (None | Some(EngineLine::Debug(_)) | Some(EngineLine::Ok)) => {
                    self.noise(parsed.as_ref(), &line, "no answer, ignored");
                    continue;
                }
                parsed @ Some(EngineLine::Error(_) | EngineLine::Unknown(_))
                    if answering == Answering::Move
                        || matches!(&parsed, Some(EngineLine::Error(t) | EngineLine::Unknown(t))
                            if about_time_left(t, time_left_ms, answering.keyword())) =>
                {
                    self.noise(parsed.as_ref(), &line, "no answer, ignored");
                    continue;
                }
                Some(EngineLine::Message(text)) => {
                    // A one-line search report is search output, not words for the record.
                    let heard = listener
                        .as_mut()
                        .is_some_and(|l| l.message(&text, || millis(sent.elapsed())));
                    if !heard {
                        self.keep_message(text);
                    }
                    continue;
                }
                Some(EngineLine::Suggest(x, y)) if answering != Answering::Swap => {
                    self.send(&Command::Play(x, y)).await?;
                    continue;
                }
                Some(_) if self.about_may_follow => {
                    self.about_may_follow = false;
                    let about = parse_about(&line);
                    if about.get("name").is_none() {
                        return Ok((line.trim().to_string(), sent.elapsed()));
                    }
                    self.note(format!(
                        "the ABOUT answer after an ERROR to an INFO line: {line}"
                    ));
                    self.about_line = Some(about.raw);
                }
                Some(_) => return Ok((line.trim().to_string(), sent.elapsed())),
            }
        }
    }

    /// Kills the engine's process group now (e.g. after a time loss) and ends the conversation.
    pub fn kill(&mut self, why: &str) {
        if let Some(p) = &mut self.process {
            p.kill_group();
        }
        if self.dead.is_none() {
            self.note(format!("killed: {why}"));
            self.dead = Some(format!("killed: {why}"));
        }
    }

    /// Ends the engine: END, up to the grace period to exit, then SIGKILL to its whole process
    /// group. Returns the exit status, if known ("exit status 0", "killed by signal 9 (SIGKILL)").
    pub async fn shutdown(mut self) -> Option<String> {
        self.end_process().await
    }

    /// `-suspend`: stop the engine's processes while it is not on move (its pondering or
    /// background threads take no CPU from the opponent). Every command to it continues them
    /// first; a stopped engine's clock does not run, since moves are timed from their request.
    pub fn suspend(&mut self) {
        if let (Some(p), None) = (&self.process, &self.dead) {
            p.signal_group(true);
            self.suspended = true;
        }
    }

    /// Continue a suspended engine (before anything is sent to it).
    fn wake(&mut self) {
        if std::mem::take(&mut self.suspended) {
            if let Some(p) = &self.process {
                p.signal_group(false);
            }
        }
    }

    /// Ends the current process and starts a new one from the spec.
    pub async fn respawn(&mut self) -> Result<(), EngineError> {
        if self.process.is_none() {
            return Err(EngineError::Protocol {
                text: format!("cannot restart '{}': the session has no process", self.name),
            });
        }
        self.end_process().await;
        self.proc_watch = None;
        let spawned = EngineProcess::spawn(&self.spec, self.slot, &self.name, &self.log).await?;
        self.reader = LineReader::new(Box::new(spawned.stdout));
        self.writer = Box::new(spawned.stdin);
        self.process = Some(spawned.process);
        self.exited = None;
        self.started = None;
        self.dead = None;
        Ok(())
    }

    /// END (unless the engine is already dead), then the grace period counted from sending it,
    /// then SIGKILL to the group; returns the described exit status.
    async fn end_process(&mut self) -> Option<String> {
        let status = self.end_leader().await;
        // Always, so that whatever the engine left running dies with it.
        if let Some(p) = &mut self.process {
            p.kill_group();
        }
        status
    }

    /// The first half of [`shutdown`](Self::shutdown): END (unless the engine is already dead)
    /// and up to the grace period for the engine to exit, its group SIGKILLed only if it does
    /// not. What an engine that did exit left running is still there, for `check` to find;
    /// [`kill`](Self::kill) or dropping the session kills the group afterwards. Returns the
    /// described exit status, as `shutdown` does.
    pub async fn end_leader(&mut self) -> Option<String> {
        self.wake();
        let grace_end = deadline_at(Instant::now(), self.grace);
        if self.dead.is_none() {
            // Best effort: the engine may be gone or not reading its input.
            let _ = timeout_at(grace_end, self.send(&Command::End)).await;
        }
        self.dead.get_or_insert_with(|| "ended".to_string());
        let Some(p) = &mut self.process else {
            let _ = self.writer.shutdown().await;
            return None;
        };
        let status = match self.exited {
            Some(s) => Some(s),
            None => {
                let left = grace_end.saturating_duration_since(Instant::now());
                p.exit_or_kill(left).await
            }
        };
        self.exited = self.exited.or(status);
        let status = status.map(describe_status);
        if let Some(s) = &status {
            self.note(format!("ended: {s}"));
        }
        status
    }

    /// Turns the outcome of a deadline-bounded exchange into the caller's result: a timeout kills
    /// the engine; a closed pipe or exit becomes `Crashed` with the exit status.
    async fn settle<T>(
        &mut self,
        outcome: Option<Result<T, Broken>>,
        what: &str,
        start: Instant,
    ) -> Result<T, EngineError> {
        match outcome {
            Some(Ok(value)) => Ok(value),
            Some(Err(broken)) => Err(self.broken(broken).await),
            None => {
                let elapsed = start.elapsed();
                self.kill(&format!(
                    "no answer to {what} within {:.3} s",
                    elapsed.as_secs_f64()
                ));
                Err(EngineError::Timeout {
                    what: what.to_string(),
                    elapsed,
                    said: self.chatter.take_refusal(),
                })
            }
        }
    }

    async fn broken(&mut self, broken: Broken) -> EngineError {
        let status = match broken {
            Broken::Error(e) => {
                if matches!(e, EngineError::Io(_) | EngineError::MemoryLimit { .. }) {
                    self.kill(&e.to_string());
                }
                return e;
            }
            Broken::Exited(status) => describe_status(status),
            Broken::Closed => match &mut self.process {
                Some(p) => match p.wait_exit(EXIT_STATUS_WAIT).await {
                    Some(status) => describe_status(status),
                    None => "closed its output but kept running".to_string(),
                },
                None => "connection closed".to_string(),
            },
        };
        // Whatever the engine left running goes with it.
        if let Some(p) = &mut self.process {
            p.kill_group();
        }
        self.note(format!("crashed: {status}"));
        self.dead = Some(status.clone());
        EngineError::Crashed { status }
    }

    fn check_alive(&self) -> Result<(), EngineError> {
        match &self.dead {
            None => Ok(()),
            Some(why) => Err(EngineError::Crashed {
                status: format!("engine is no longer running ({why})"),
            }),
        }
    }

    /// Sends a command and waits for `OK`; ERROR or UNKNOWN give `StartFailed` with the line.
    /// `then` goes out in the same write as `command`, to be answered after it.
    async fn handshake(
        &mut self,
        command: Command,
        then: &[Command],
        deadline: Duration,
    ) -> Result<(), EngineError> {
        let start = Instant::now();
        let outcome = timeout_at(deadline_at(start, deadline), async {
            let mut bytes = command.encode();
            for c in then {
                c.encode_into(&mut bytes);
            }
            self.send_bytes(&bytes).await?;
            loop {
                let line = self.read_line().await?;
                match parse_engine_line(&line) {
                    Some(EngineLine::Ok) => return Ok(()),
                    Some(EngineLine::Error(_)) | Some(EngineLine::Unknown(_)) => {
                        return Err(Broken::Error(EngineError::StartFailed {
                            text: cut_text(line.trim().to_string(), QUOTED_ANSWER_CHARS),
                        }))
                    }
                    Some(EngineLine::Message(text)) => self.keep_message(text),
                    // Banners and stray output before OK are tolerated (and logged).
                    _ => {}
                }
            }
        })
        .await;
        match outcome {
            Ok(Ok(())) => Ok(()),
            // Described only when it failed: this runs before every game.
            other => {
                let what = command.lines().join(" ");
                self.settle(other.ok(), &what, start).await
            }
        }
    }

    /// A runner's remark about the engine: to the protocol log, and to `-verbose` diagnostics.
    fn note(&self, text: String) {
        // Notes quote engine lines: their control characters are escaped for the console.
        let text = crate::engine::protocol::printable(text);
        tracing::debug!(slot = self.slot + 1, engine = %self.name, "{text}");
        self.log.emit(self.slot, &self.name, Direction::Note, text);
    }

    async fn send(&mut self, command: &Command) -> Result<(), Broken> {
        self.send_all(std::slice::from_ref(command)).await
    }

    /// Sends several commands with a single write, so the engine wakes up once for all of them
    /// (`INFO time_left` and the move request, the INFO block): a separate write per line can
    /// cost the engine a wake-up each, and per move the runner's cost is mostly such wake-ups.
    async fn send_all(&mut self, commands: &[Command]) -> Result<(), Broken> {
        let mut bytes = String::with_capacity(64);
        for command in commands {
            command.encode_into(&mut bytes);
        }
        self.send_bytes(&bytes).await
    }

    /// Writes encoded commands (lines ended by CR LF), logging each line when a protocol log
    /// is kept: the lines are split out again only then, so the hot path allocates nothing.
    async fn send_bytes(&mut self, bytes: &str) -> Result<(), Broken> {
        self.wake();
        if self.log.is_enabled() {
            for line in bytes.split_terminator(EOL) {
                self.log
                    .emit(self.slot, &self.name, Direction::ToEngine, line);
            }
        }
        let written = async {
            self.writer.write_all(bytes.as_bytes()).await?;
            self.writer.flush().await
        }
        .await;
        match written {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(match self.exited {
                Some(s) => Broken::Exited(s),
                None => Broken::Closed,
            }),
            Err(e) => Err(Broken::Error(EngineError::Io(e))),
        }
    }

    /// The next non-empty line from the engine, logged. Watches the process too: if it exits
    /// while a child keeps the pipe open, what it wrote is still read, then it counts as dead.
    async fn read_line(&mut self) -> Result<String, Broken> {
        loop {
            let read = if let Some(status) = self.exited {
                match timeout(EXIT_DRAIN, self.reader.next_line()).await {
                    Ok(read) => read,
                    Err(_) => return Err(Broken::Exited(status)),
                }
            } else {
                let process = &mut self.process;
                tokio::select! {
                    biased;
                    read = self.reader.next_line() => read,
                    status = wait_leader(process) => {
                        self.exited = Some(status);
                        continue;
                    }
                }
            };
            match read {
                Ok(Some(line)) => {
                    self.log
                        .emit(self.slot, &self.name, Direction::FromEngine, line.as_str());
                    return Ok(line);
                }
                Ok(None) => {
                    return Err(match self.exited {
                        Some(s) => Broken::Exited(s),
                        None => Broken::Closed,
                    })
                }
                Err(e) => return Err(Broken::Error(EngineError::Io(e))),
            }
        }
    }
}

/// Whether an answer is `ERROR` or `UNKNOWN`: a refusal, not the answer asked for.
fn is_refusal(line: &str) -> bool {
    matches!(
        parse_engine_line(line),
        Some(EngineLine::Error(_) | EngineLine::Unknown(_))
    )
}

/// Resolves when the engine process exits; never for in-process transports (or if waiting
/// fails, in which case the pipe's end of file still tells us).
async fn wait_leader(process: &mut Option<EngineProcess>) -> ExitStatus {
    if let Some(p) = process {
        if let Ok(status) = p.wait().await {
            return status;
        }
    }
    std::future::pending().await
}

/// `start + after`, saturating far in the future so `Duration::MAX` means "no deadline".
fn deadline_at(start: Instant, after: Duration) -> Instant {
    start
        .checked_add(after)
        .unwrap_or_else(|| start + Duration::from_secs(100 * 365 * 86_400))
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The INFO lines sent after every START/RESTART, in the predecessor's spirit.
pub fn game_infos(spec: &EngineSpec, rule: Rule) -> Vec<Command> {
    let tc = &spec.tc;
    let mut infos = Vec::new();
    if let Some(turn) = tc.turn_time {
        infos.push(Command::info("timeout_turn", millis(turn)));
    }
    infos.push(Command::info(
        "timeout_match",
        tc.match_time.map_or(0, millis),
    ));
    if !tc.increment.is_zero() {
        infos.push(Command::info("time_increment", millis(tc.increment)));
    }
    infos.push(Command::info("max_memory", spec.max_memory));
    infos.push(Command::info("game_type", 1));
    infos.push(Command::info("rule", rule.code()));
    if let Some(depth) = spec.depth {
        infos.push(Command::info("max_depth", depth));
    }
    if let Some(nodes) = spec.nodes {
        infos.push(Command::info("max_node", nodes));
    }
    if let Some(threads) = spec.threads {
        infos.push(Command::info("thread_num", threads));
    }
    let own_detail = spec
        .options
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("show_detail"));
    if let (Detail::Level(level), false) = (spec.detail, own_detail) {
        infos.push(Command::info("show_detail", level));
    }
    for (key, value) in &spec.options {
        infos.push(Command::info(key.clone(), value));
    }
    infos
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::spec::TimeControl;
    use crate::engine::LogEvent;
    use tokio::io::{AsyncBufReadExt, BufReader, DuplexStream};

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

    #[tokio::test(start_paused = true)]
    async fn about_skips_banner_and_parses_name() {
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            assert_eq!(e.recv().await, "ABOUT");
            e.send("MESSAGE Welcome to Foo\r\nDEBUG build 42\n\r\nname=\"Foo\", version=\"2\"\r\n")
                .await;
            e
        });
        assert_eq!(s.about(SEC).await.unwrap(), "Foo");
        assert_eq!(s.name(), "Foo");
        assert_eq!(s.about_info().unwrap().version(), Some("2"));
        assert!(s.take_messages().is_empty(), "banner is not a game message");
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn about_user_name_wins_for_logs_and_unknown_falls_back() {
        let mut spec = EngineSpec::new("./dir/pbrain-x");
        spec.name = Some("Mine".into());
        let (mut s, engine, _rx) = with_engine(session_with(spec), |mut e| async move {
            assert_eq!(e.recv().await, "ABOUT");
            e.send("UNKNOWN ABOUT\n").await;
            e
        });
        assert_eq!(s.about(SEC).await.unwrap(), "pbrain-x");
        assert_eq!(s.name(), "Mine");
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn start_sends_the_info_block_in_order() {
        let mut spec = EngineSpec::new("fake");
        spec.tc = TimeControl::parse("180/30+1.5").unwrap();
        spec.depth = Some(12);
        spec.nodes = Some(100000);
        spec.threads = Some(2);
        spec.max_memory = 1000;
        spec.options = vec![("caution_factor".into(), "2".into())];
        let (mut s, engine, _rx) = with_engine(session_with(spec), |mut e| async move {
            assert_eq!(e.recv().await, "START 20");
            e.send("OK\r\n").await;
            let got = e.info_block().await;
            (e, got)
        });
        s.new_game(size(20), Rule::Renju, SEC).await.unwrap();
        let (_e, got) = engine.await.unwrap();
        assert_eq!(
            got,
            vec![
                "INFO timeout_turn 30000",
                "INFO timeout_match 180000",
                "INFO time_increment 1500",
                "INFO max_memory 1000",
                "INFO game_type 1",
                "INFO rule 4",
                "INFO max_depth 12",
                "INFO max_node 100000",
                "INFO thread_num 2",
                "INFO show_detail 2",
                "INFO caution_factor 2",
            ]
        );
    }

    #[test]
    fn infos_for_unlimited_time() {
        let spec = EngineSpec::new("x");
        let lines: Vec<String> = game_infos(&spec, Rule::Freestyle)
            .iter()
            .flat_map(|c| c.lines())
            .collect();
        assert_eq!(
            lines,
            vec![
                "INFO timeout_match 0",
                "INFO max_memory 367001600",
                "INFO game_type 1",
                "INFO rule 0",
                "INFO show_detail 2",
            ]
        );
        // `detail=off` sends none; an engine option of the same key replaces ours.
        let mut spec = EngineSpec::new("x");
        spec.detail = Detail::Off;
        let mut lines = game_infos(&spec, Rule::Freestyle)
            .into_iter()
            .flat_map(|c| c.lines());
        assert!(lines.all(|l| !l.contains("show_detail")));
        spec.detail = Detail::Level(3);
        spec.options = vec![("SHOW_DETAIL".into(), "1".into())];
        let lines: Vec<String> = game_infos(&spec, Rule::Freestyle)
            .iter()
            .flat_map(|c| c.lines())
            .filter(|l| l.to_ascii_lowercase().contains("show_detail"))
            .collect();
        assert_eq!(lines, vec!["INFO SHOW_DETAIL 1"]);
        let mut spec = EngineSpec::new("x");
        spec.tc = TimeControl::parse("0/5").unwrap();
        let lines: Vec<String> = game_infos(&spec, Rule::StandardCaro)
            .iter()
            .flat_map(|c| c.lines())
            .collect();
        assert_eq!(lines[0], "INFO timeout_turn 5000");
        assert_eq!(lines[1], "INFO timeout_match 0");
        assert_eq!(lines.last().unwrap(), "INFO show_detail 2");
        assert_eq!(lines[lines.len() - 2], "INFO rule 9");
    }

    #[tokio::test(start_paused = true)]
    async fn error_at_start_is_start_failed_with_the_text() {
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            assert_eq!(e.recv().await, "START 15");
            e.send("MESSAGE hmm\r\nERROR unsupported size\r\n").await;
            e
        });
        match new_game15(&mut s).await {
            Err(EngineError::StartFailed { text }) => assert_eq!(text, "ERROR unsupported size"),
            other => panic!("{other:?}"),
        }
        assert_eq!(s.take_messages(), vec!["hmm"]);
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn second_game_restarts_and_size_change_starts() {
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            let mut seen = Vec::new();
            loop {
                let line = e.recv().await;
                if line.starts_with("START") || line == "RESTART" {
                    e.send("OK\n").await;
                }
                let started = line.starts_with("START") || line == "RESTART";
                let done = line == "START 20";
                seen.push(line);
                if started {
                    seen.extend(e.info_block().await);
                }
                if done {
                    return seen;
                }
            }
        });
        new_game15(&mut s).await.unwrap();
        new_game15(&mut s).await.unwrap();
        s.new_game(size(20), Rule::Freestyle, SEC).await.unwrap();
        let seen = engine.await.unwrap();
        let commands: Vec<&str> = seen
            .iter()
            .map(String::as_str)
            .filter(|l| !l.starts_with("INFO"))
            .collect();
        assert_eq!(commands, vec!["START 15", "RESTART", "START 20"]);
    }

    #[tokio::test(start_paused = true)]
    async fn restart_sends_the_info_block_and_about_before_its_ok() {
        // RESTART, the INFO block and ABOUT come in one write: the engine reads them all before
        // it answers OK (a runner that waited for OK first would leave it waiting here, and the
        // paused clock would run the timeout out).
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            e.first_game_then_restart().await;
            let mut ahead = Vec::new();
            while ahead.last().map(String::as_str) != Some("ABOUT") {
                let line = tokio::time::timeout(SEC, e.recv()).await;
                ahead.push(line.expect("the INFO block and ABOUT before OK"));
            }
            e.send("OK\nname=\"fake\"\n").await;
            ahead
        });
        s.new_game(size(15), Rule::Freestyle, 10 * SEC)
            .await
            .unwrap();
        s.new_game(size(15), Rule::Freestyle, 10 * SEC)
            .await
            .unwrap();
        let ahead = engine.await.unwrap();
        assert!(
            ahead[..ahead.len() - 1]
                .iter()
                .all(|l| l.starts_with("INFO ")),
            "{ahead:?}"
        );
        assert!(ahead.contains(&"INFO rule 0".to_string()), "{ahead:?}");
        assert!(s.is_alive());
    }

    #[tokio::test(start_paused = true)]
    async fn restart_refused_without_process_is_a_protocol_error() {
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            e.first_game_then_restart().await;
            e.send("UNKNOWN RESTART\n").await;
            e
        });
        new_game15(&mut s).await.unwrap();
        let err = new_game15(&mut s).await.unwrap_err();
        assert!(
            matches!(&err, EngineError::Protocol { text } if text.contains("UNKNOWN RESTART")),
            "{err}"
        );
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn the_game_starts_only_once_the_engine_has_taken_in_the_info_block() {
        // An engine that allocates its hash on `INFO max_memory` for 4 s: new_game returns after
        // that work (the first move's clock has not started), within a 5 s start-up deadline.
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            assert_eq!(e.recv().await, "START 15");
            e.send("OK\n").await;
            loop {
                let line = e.recv().await;
                if line.starts_with("INFO max_memory") {
                    tokio::time::sleep(Duration::from_secs(4)).await;
                }
                if line == "ABOUT" {
                    e.send("MESSAGE hash ready\nUNKNOWN ABOUT\n").await;
                    return e;
                }
            }
        });
        let t = tokio::time::Instant::now();
        s.new_game(size(15), Rule::Freestyle, Duration::from_secs(5))
            .await
            .unwrap();
        assert!(t.elapsed() >= Duration::from_secs(4), "{:?}", t.elapsed());
        assert_eq!(s.take_messages(), vec!["hash ready"]);
        let _e = engine.await.unwrap();
        // Past the deadline, it is a start-up timeout.
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            assert_eq!(e.recv().await, "START 15");
            e.send("OK\n").await;
            tokio::time::sleep(Duration::from_secs(60)).await;
            e
        });
        let started = s.new_game(size(15), Rule::Freestyle, Duration::from_secs(5));
        assert_eq!(timeout_of(started.await).0, "INFO and ABOUT");
        drop(engine);
    }

    #[tokio::test(start_paused = true)]
    async fn start_timeout_uses_the_startup_deadline() {
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            assert_eq!(e.recv().await, "START 15");
            // Slow hash allocation: 4 s, within a 5 s startup deadline.
            tokio::time::sleep(Duration::from_secs(4)).await;
            e.send("OK\n").await;
            e.info_block().await;
            e
        });
        s.new_game(size(15), Rule::Freestyle, Duration::from_secs(5))
            .await
            .unwrap();
        let _e = engine.await.unwrap();

        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            assert_eq!(e.recv().await, "START 15");
            tokio::time::sleep(Duration::from_secs(60)).await;
            e
        });
        let started = s.new_game(size(15), Rule::Freestyle, Duration::from_secs(5));
        assert_eq!(
            timeout_of(started.await),
            ("START 15".to_string(), Duration::from_secs(5))
        );
        assert!(!s.is_alive());
        engine.abort();
    }

    #[tokio::test(start_paused = true)]
    async fn move_request_sends_time_left_and_measures_elapsed() {
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            e.expect(&["INFO time_left 2147483647", "BEGIN"]).await;
            tokio::time::sleep(Duration::from_millis(1234)).await;
            e.send("DEBUG thinking\r\nMESSAGE I will win\r\nUNKNOWN x\nOK\n 7 , 7 \r\n")
                .await;
            e.expect(&["INFO time_left 9876", "TURN 8,9"]).await;
            e.send("7,8\r").await;
            e.expect(&["INFO time_left 0", "BOARD", "7,7,1", "8,9,2", "DONE"])
                .await;
            e.send("6,6\n").await;
            e
        });
        let r = s
            .request_move(MoveRequest::Begin, None, Duration::from_secs(10))
            .await
            .unwrap();
        assert_eq!(r.coords, Some((7, 7)));
        assert_eq!(r.raw, "7 , 7");
        assert_eq!(r.elapsed, Duration::from_millis(1234));
        assert_eq!(s.take_messages(), vec!["I will win"]);
        assert!(s.take_messages().is_empty());
        let r = s
            .request_move(turn(8, 9), Some(Duration::from_micros(9_876_999)), SEC)
            .await
            .unwrap();
        assert_eq!(r.coords, Some((7, 8)));
        assert_eq!(r.elapsed, Duration::ZERO);
        let r = s
            .request_move(
                MoveRequest::Board(vec![
                    (Pos::new(7, 7), Field::Own),
                    (Pos::new(8, 9), Field::Opponent),
                ]),
                Some(Duration::ZERO),
                SEC,
            )
            .await
            .unwrap();
        assert_eq!(r.coords, Some((6, 6)));
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn swap2_request_sends_time_left_and_the_stones_and_reads_every_answer_shape() {
        use crate::core::swap::Answer;
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            e.expect(&["INFO time_left 5000", "SWAP2BOARD", "DONE"])
                .await;
            tokio::time::sleep(Duration::from_millis(300)).await;
            e.send("DEBUG x\r\nMESSAGE three stones\r\nOK\r\n7,7 8,7 9,9\r\n")
                .await;
            assert_eq!(e.recv().await, "INFO time_left 2147483647");
            e.expect(&["SWAP2BOARD", "7,7", "8,7", "9,9", "DONE"]).await;
            e.send("SWAP\r\n").await;
            for answer in ["UNKNOWN SWAP2BOARD", "SUGGEST 1,2", "8,8 8,6"] {
                e.expect(&["INFO time_left 2147483647", "SWAP2BOARD", "DONE"])
                    .await;
                e.send(&format!("{answer}\r\n")).await;
            }
            e
        });
        let r = s
            .swap2_request(&[], Some(Duration::from_secs(5)), SEC)
            .await
            .unwrap();
        assert_eq!(r.answer, Answer::Stones(vec![(7, 7), (8, 7), (9, 9)]));
        assert_eq!(r.raw, "7,7 8,7 9,9");
        assert_eq!(r.elapsed, Duration::from_millis(300));
        assert_eq!(s.take_messages(), vec!["three stones"]);
        let three = [Pos::new(7, 7), Pos::new(8, 7), Pos::new(9, 9)];
        let r = s.swap2_request(&three, None, SEC).await.unwrap();
        assert_eq!(r.answer, Answer::Swap);
        let mut answers = Vec::new();
        for _ in 0..3 {
            answers.push(s.swap2_request(&[], None, SEC).await.unwrap());
        }
        assert_eq!(answers[0].answer, Answer::Unsupported);
        assert_eq!(answers[0].raw, "UNKNOWN SWAP2BOARD");
        assert_eq!(answers[1].answer, Answer::Unparsable);
        assert_eq!(answers[2].answer, Answer::Stones(vec![(8, 8), (8, 6)]));
        engine.await.unwrap();
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

    #[tokio::test(start_paused = true)]
    async fn search_output_before_a_move_is_its_report_and_never_its_answer() {
        let (mut s, engine, _rx) = with_engine(started().await, |mut e| async move {
            recv_until(&mut e, "TURN 8,9").await;
            e.send(
                "INFO PV 0\r\nINFO DEPTH 7\r\nINFO EVAL +M3\r\nINFO BESTLINE 7,8 9,9\r\nINFO PV DONE\r\n\
                 MESSAGE depth x-y ev ??\r\nMESSAGE thinking hard\r\n7,8\r\n",
            )
            .await;
            // A block cut by the move is no report; nor is one printed after it.
            recv_until(&mut e, "TURN 9,9").await;
            e.send("INFO PV 0\r\nINFO EVAL 5\r\n1,1\r\nINFO PV 0\r\nINFO TOTALTIME 900\r\nINFO PV DONE\r\n")
                .await;
            recv_until(&mut e, "TURN 2,2").await;
            e.send("3,3\r\n").await;
            e
        });
        let r = s.request_move(turn(8, 9), None, SEC).await.unwrap();
        let report = r.search.expect("a report");
        assert_eq!(report.depth, Some(7));
        assert_eq!(report.eval.map(|e| e.to_string()).as_deref(), Some("+M3"));
        assert_eq!(report.pv, vec![Pos::new(7, 8), Pos::new(9, 9)]);
        assert_eq!(
            s.take_messages(),
            vec!["thinking hard"],
            "a report is not a message"
        );
        let r = s.request_move(turn(9, 9), None, SEC).await.unwrap();
        assert_eq!((r.coords, r.search), (Some((1, 1)), None));
        let r = s.request_move(turn(2, 2), None, SEC).await.unwrap();
        assert_eq!(r.coords, Some((3, 3)));
        // Its engine time is longer than this request has run: an earlier search's.
        assert_eq!(
            r.search, None,
            "the block after the last move belongs to no move"
        );
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn nbest_asks_yxnbest_on_the_board_and_falls_back_to_board_when_refused() {
        let mut spec = EngineSpec::new("fake");
        spec.nbest = Some(3);
        let (mut s, engine, _rx) = with_engine(session_with(spec), |mut e| async move {
            assert_eq!(e.recv().await, "START 15");
            e.send("OK\r\n").await;
            e.info_block().await;
            let asked = recv_until(&mut e, "YXNBEST 3").await;
            assert_eq!(asked[1..], ["YXBOARD", "7,7,2", "DONE", "YXNBEST 3"]);
            let block = |k, ev, mv| {
                format!("INFO PV {k}\r\nINFO NUMPV 2\r\nINFO DEPTH 4\r\nINFO EVAL {ev}\r\nINFO BESTLINE {mv}\r\nINFO PV DONE\r\n")
            };
            e.send(&format!(
                "{}{}8,8\r\n",
                block(0, 30, "8,8"),
                block(1, -5, "6,6")
            ))
            .await;
            // Refused the next time: the stone lines' echoes are drained, then BOARD is asked.
            recv_until(&mut e, "YXNBEST 3").await;
            e.send("UNKNOWN YXBOARD\r\nUNKNOWN 7,7,2\r\n").await;
            let asked = recv_until(&mut e, "ABOUT").await;
            assert!(!asked.iter().any(|l| l.starts_with("YX")), "{asked:?}");
            e.send("name=\"fake\"\r\n").await;
            let asked = recv_until(&mut e, "DONE").await;
            assert_eq!(asked[1..], ["BOARD", "7,7,2", "8,8,1", "9,9,2", "DONE"]);
            e.send("4,4\r\n").await;
            e
        });
        new_game15(&mut s).await.unwrap();
        let board = |stones: &[(u8, u8)]| {
            MoveRequest::Board(
                stones
                    .iter()
                    .enumerate()
                    .map(|(i, &(x, y))| (Pos::new(x, y), Field::of(i % 2 == stones.len() % 2)))
                    .collect(),
            )
        };
        let r = s.request_move(board(&[(7, 7)]), None, SEC).await.unwrap();
        assert_eq!(r.coords, Some((8, 8)));
        let pvs: Vec<_> = r.search.unwrap().multipv.iter().map(|m| m.pos).collect();
        assert_eq!(pvs, vec![Pos::new(8, 8), Pos::new(6, 6)]);
        assert_eq!(s.nbest(), Some(3));
        let r = s
            .request_move(board(&[(7, 7), (8, 8), (9, 9)]), None, SEC)
            .await
            .unwrap();
        assert_eq!(r.coords, Some((4, 4)));
        assert_eq!(s.nbest(), None, "refused once, never asked again");
        engine.await.unwrap();
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

    #[tokio::test(start_paused = true)]
    async fn an_error_instead_of_a_move_is_no_answer_the_engine_loses_on_time_quoting_it() {
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            e.recv().await;
            assert_eq!(e.recv().await, "BEGIN");
            e.send("MESSAGE hm\r\nERROR Board is not empty.\r\nUNKNOWN what\r\n")
                .await;
            e
        });
        let t = Instant::now();
        let (what, elapsed, said) = match s
            .request_move(MoveRequest::Begin, None, Duration::from_secs(5))
            .await
        {
            Err(EngineError::Timeout {
                what,
                elapsed,
                said,
            }) => (what, elapsed, said),
            other => panic!("{other:?}"),
        };
        assert_eq!(what, "BEGIN");
        assert_eq!(said.as_deref(), Some("ERROR Board is not empty."));
        assert_eq!(elapsed, Duration::from_secs(5), "waited for the deadline");
        assert_eq!(t.elapsed(), Duration::from_secs(5));
        assert_eq!(s.take_messages(), vec!["hm"]);
        let counts = s.take_line_counts();
        assert_eq!((counts.error, counts.unknown), (1, 1));
        assert!(!s.is_alive(), "killed at the deadline");
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn error_lines_before_a_move_are_counted_noise_and_the_move_is_the_answer() {
        let (mut s, engine, mut rx) = with_engine(session(), |mut e| async move {
            e.recv().await;
            assert_eq!(e.recv().await, "TURN 1,2");
            // Rapfi sent a line while it finished its last move: it drops INFO and refuses the
            // rest, then answers the TURN.
            e.send("ERROR Unknown command: TIME_LEFT\r\nERROR Unknown command: 8502\r\n")
                .await;
            tokio::time::sleep(Duration::from_millis(300)).await;
            e.send("DEBUG thinking\r\nOK\r\n3,4\r\n").await;
            e
        });
        let r = s.request_move(turn(1, 2), None, SEC).await.unwrap();
        assert_eq!(r.coords, Some((3, 4)));
        assert_eq!(r.elapsed, Duration::from_millis(300));
        assert_eq!(
            s.line_counts(),
            LineCounts {
                error: 2,
                debug: 1,
                other: 1,
                ..LineCounts::default()
            }
        );
        engine.await.unwrap();
        let notes = notes(&mut rx);
        assert!(
            notes
                .iter()
                .any(|n| n == "no answer, ignored: ERROR Unknown command: TIME_LEFT"),
            "{notes:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn an_error_about_the_time_left_line_is_no_refusal_of_yxnbest_or_swap2board() {
        let mut spec = EngineSpec::new("fake");
        spec.nbest = Some(2);
        let (mut s, engine, _rx) = with_engine(session_with(spec), |mut e| async move {
            assert_eq!(e.recv().await, "START 15");
            e.send("OK\r\n").await;
            e.info_block().await;
            recv_until(&mut e, "YXNBEST 2").await;
            e.send(
                "ERROR Unknown command: TIME_LEFT\r\nERROR Unknown command: 2147483647\r\n8,8\r\n",
            )
            .await;
            recv_until(&mut e, "DONE").await;
            e.send("ERROR Unknown command: TIME_LEFT\r\nSWAP\r\n").await;
            e
        });
        new_game15(&mut s).await.unwrap();
        let board = MoveRequest::Board(vec![(Pos::new(7, 7), Field::Opponent)]);
        let r = s.request_move(board, None, SEC).await.unwrap();
        assert_eq!(r.coords, Some((8, 8)));
        assert_eq!(s.nbest(), Some(2), "not refused");
        let r = s.swap2_request(&[Pos::new(7, 7)], None, SEC).await.unwrap();
        assert_eq!(r.answer, Answer::Swap);
        assert_eq!(s.take_line_counts().error, 3);
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn a_message_flood_is_kept_up_to_the_cap_per_move_and_the_rest_counted() {
        use super::super::chatter::{BYTES_PER_MOVE, LINES_PER_MOVE};
        let flood = 10 * LINES_PER_MOVE;
        let (mut s, engine, mut rx) = with_engine(session(), move |mut e| async move {
            for _ in 0..2 {
                recv_until(&mut e, "BEGIN").await;
                let mut out = String::new();
                for i in 0..flood {
                    out.push_str(&format!("MESSAGE line {i}\r\nDEBUG d\r\n"));
                }
                out.push_str("7,7\r\n");
                e.send(&out).await;
            }
            e
        });
        for _ in 0..2 {
            let r = s.request_move(MoveRequest::Begin, None, SEC).await.unwrap();
            assert_eq!(r.coords, Some((7, 7)));
        }
        let kept = s.take_messages();
        // Half of each move's room went to the DEBUG lines' notes.
        assert_eq!(kept.len(), LINES_PER_MOVE, "{} kept", kept.len());
        assert!(kept.iter().map(String::len).sum::<usize>() <= 2 * BYTES_PER_MOVE);
        assert_eq!(kept[0], "line 0");
        let counts = s.take_line_counts();
        assert_eq!(counts.debug, 2 * flood as u64);
        assert_eq!(counts.dropped, 2 * (2 * flood - LINES_PER_MOVE) as u64);
        assert!(counts.dropped_bytes > counts.dropped * 5);
        engine.await.unwrap();
        let notes = notes(&mut rx);
        let over = notes.iter().filter(|n| n.starts_with("over ")).count();
        assert_eq!(over, 2, "one note a move");
    }

    #[tokio::test(start_paused = true)]
    async fn swap2board_refused_in_x_y_lines_is_asked_again_in_board_lines_and_remembered() {
        let (mut s, mut e, mut rx) = started().await;
        let three = [Pos::new(7, 7), Pos::new(8, 7), Pos::new(9, 9)];
        let engine = tokio::spawn(async move {
            // As Rapfi: an ERROR per stone line it cannot read, then a proposal for the board it
            // was left with (the empty one).
            assert_eq!(e.recv().await, "INFO time_left 10000");
            let asked = recv_until(&mut e, "DONE").await;
            assert_eq!(asked, ["SWAP2BOARD", "7,7", "8,7", "9,9", "DONE"]);
            let bad = "ERROR Color is not a valid value, must be one of [1, 2, 3].\r\n";
            e.send(&format!("{bad}{bad}{bad}")).await;
            tokio::time::sleep(Duration::from_millis(20)).await;
            e.send("0,0 2,1 2,4\r\n").await;
            // The drain: ABOUT, answered after the late lines.
            assert_eq!(e.recv().await, "ABOUT");
            e.send("name=\"fake\"\r\n").await;
            let again = recv_until(&mut e, "DONE").await;
            assert!(again[0].starts_with("INFO time_left "), "{again:?}");
            assert_eq!(
                again[1..],
                ["SWAP2BOARD", "7,7,2", "8,7,1", "9,9,2", "DONE"]
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
            e.send("SWAP\r\n").await;
            // Later requests go straight to the form that was answered.
            let next = recv_until(&mut e, "DONE").await;
            assert_eq!(next[1..], ["SWAP2BOARD", "7,7,2", "8,7,1", "9,9,2", "DONE"]);
            e.send("8,8\r\n").await;
            e
        });
        let r = s
            .swap2_request(&three, Some(Duration::from_secs(10)), SEC)
            .await
            .unwrap();
        assert_eq!(r.answer, Answer::Swap);
        assert_eq!(r.form, Swap2Form::Board);
        // Timed as one answer, from the first request.
        assert_eq!(r.elapsed, Duration::from_millis(120));
        let r = s.swap2_request(&three, None, SEC).await.unwrap();
        assert_eq!(r.answer, Answer::Stones(vec![(8, 8)]));
        assert_eq!(r.form, Swap2Form::Board);
        engine.await.unwrap();
        let notes = notes(&mut rx);
        assert!(
            notes
                .iter()
                .any(|n| n == "late line after SWAP2BOARD (3 stones), ignored: 0,0 2,1 2,4"),
            "{notes:?}"
        );
        assert!(
            notes
                .iter()
                .any(|n| n.contains("takes SWAP2BOARD in the board form")),
            "{notes:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn an_engine_that_reads_x_y_lines_keeps_them_and_unknown_is_not_asked_again() {
        let (mut s, mut e, _rx) = started().await;
        let three = [Pos::new(7, 7), Pos::new(8, 7), Pos::new(9, 9)];
        let engine = tokio::spawn(async move {
            let first = recv_until(&mut e, "DONE").await;
            assert_eq!(first[2], "7,7");
            e.send("UNKNOWN SWAP2BOARD\r\n").await;
            e
        });
        let r = s.swap2_request(&three, None, SEC).await.unwrap();
        assert_eq!(r.answer, Answer::Unsupported);
        assert_eq!(r.form, Swap2Form::Points);
        drop(engine.await.unwrap());
        let (mut s, engine, _rx) = with_engine(started().await, |mut e| async move {
            recv_until(&mut e, "DONE").await;
            e.send("SWAP\r\n").await;
            let again = recv_until(&mut e, "DONE").await;
            assert_eq!(again[2], "7,7", "{again:?}");
            e.send("ERROR not now\r\n").await;
            e
        });
        assert_eq!(
            s.swap2_request(&three, None, SEC).await.unwrap().answer,
            Answer::Swap
        );
        // An engine known to read x,y lines that refuses is not asked again in the other form.
        let r = s.swap2_request(&three, None, SEC).await.unwrap();
        assert_eq!(r.answer, Answer::Unsupported);
        assert_eq!(r.raw, "ERROR not now");
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn late_lines_after_a_refused_swap2board_are_drained_before_restart() {
        let (mut s, engine, mut rx) = with_engine(started().await, |mut e| async move {
            recv_until(&mut e, "DONE").await;
            // As old engines: UNKNOWN to the command and to each of its lines.
            e.send("UNKNOWN SWAP2BOARD\r\n").await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            e.send("UNKNOWN 7,7\r\nUNKNOWN DONE\r\n").await;
            assert_eq!(e.recv().await, "ABOUT");
            e.send("name=\"fake\"\r\n").await;
            assert_eq!(e.recv().await, "RESTART");
            e.send("OK\r\n").await;
            e.info_block().await;
            e
        });
        let r = s.swap2_request(&[Pos::new(7, 7)], None, SEC).await.unwrap();
        assert_eq!(r.answer, Answer::Unsupported);
        new_game15(&mut s).await.unwrap();
        engine.await.unwrap();
        let notes = notes(&mut rx);
        let late: Vec<&String> = notes
            .iter()
            .filter(|t| t.starts_with("late line"))
            .collect();
        assert_eq!(
            late,
            [
                "late line after SWAP2BOARD (1 stones), ignored: UNKNOWN 7,7",
                "late line after SWAP2BOARD (1 stones), ignored: UNKNOWN DONE"
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_known_about_answer_a_refusing_engine_is_started_afresh() {
        // An in-process transport cannot be respawned: the kill shows as a dead session.
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            recv_until(&mut e, "DONE").await;
            e.send("UNKNOWN SWAP2BOARD\r\n").await;
            e
        });
        let r = s.swap2_request(&[], None, SEC).await.unwrap();
        assert_eq!(r.answer, Answer::Unsupported);
        let _e = engine.await.unwrap();
        let err = new_game15(&mut s).await.unwrap_err();
        assert!(matches!(err, EngineError::Protocol { .. }), "{err}");
        assert!(!s.is_alive());
    }

    #[tokio::test(start_paused = true)]
    async fn an_error_about_an_info_line_is_not_taken_for_the_about_answer() {
        let (mut s, engine, _rx) = with_engine(started().await, |mut e| async move {
            assert_eq!(e.recv().await, "RESTART");
            e.send("OK\r\n").await;
            recv_until(&mut e, "INFO max_memory 367001600").await;
            // As Rapfi for a small max_memory: at once, before ABOUT's answer.
            e.send("ERROR Max memory too small, might exceeds memory limits\r\n")
                .await;
            recv_until(&mut e, "ABOUT").await;
            e.send("name=\"fake\"\r\n").await;
            e.expect(&["INFO time_left 2147483647", "BEGIN"]).await;
            e.send("7,7\r\n").await;
            e
        });
        new_game15(&mut s).await.unwrap();
        let r = s.request_move(MoveRequest::Begin, None, SEC).await.unwrap();
        assert_eq!(r.coords, Some((7, 7)));
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn on_a_fresh_start_an_error_to_an_info_line_leaves_the_about_answer_for_later() {
        // No ABOUT answer known yet (the first game of a named engine): the ERROR is taken for
        // the answer, and the real one, arriving when the first move is asked, is not the move.
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            assert_eq!(e.recv().await, "START 15");
            e.send("OK\r\n").await;
            recv_until(&mut e, "INFO max_memory 367001600").await;
            e.send("ERROR Max memory too small, might exceeds memory limits\r\n")
                .await;
            recv_until(&mut e, "ABOUT").await;
            e.expect(&["INFO time_left 2147483647", "BEGIN"]).await;
            e.send("name=\"fake\", version=\"1\"\r\n").await;
            e.send("7,7\r\n").await;
            e.expect(&["INFO time_left 2147483647", "TURN 8,8"]).await;
            e.send("name=\"not a move\"\r\n").await;
            e
        });
        new_game15(&mut s).await.unwrap();
        let r = s.request_move(MoveRequest::Begin, None, SEC).await.unwrap();
        assert_eq!(r.coords, Some((7, 7)));
        // Only the first move's answer may be preceded by it: later, such a line is the answer.
        let r = s.request_move(turn(8, 8), None, SEC).await.unwrap();
        assert_eq!((r.coords, r.raw.as_str()), (None, "name=\"not a move\""));
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_swap2_answer_times_out_and_kills() {
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            e.skip(3).await;
            tokio::time::sleep(Duration::from_secs(3600)).await;
            e
        });
        assert_eq!(
            timeout_of(s.swap2_request(&[], None, Duration::from_secs(2)).await),
            ("SWAP2BOARD (0 stones)".to_string(), Duration::from_secs(2))
        );
        assert!(!s.is_alive());
        engine.abort();
    }

    #[tokio::test(start_paused = true)]
    async fn unlimited_deadline_waits_as_long_as_it_takes() {
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            e.skip(2).await;
            tokio::time::sleep(Duration::from_secs(10 * 86_400)).await;
            e.send("1,2\n").await;
            e
        });
        let r = s
            .request_move(MoveRequest::Begin, None, Duration::MAX)
            .await
            .unwrap();
        assert_eq!(r.coords, Some((1, 2)));
        assert_eq!(r.elapsed, Duration::from_secs(10 * 86_400));
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn garbage_answer_is_an_unparsable_move() {
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            e.skip(2).await;
            e.send("hello world  \r\n").await;
            e
        });
        let r = s.request_move(MoveRequest::Begin, None, SEC).await.unwrap();
        assert_eq!(r.raw, "hello world");
        assert_eq!(r.coords, None);
        assert!(s.is_alive());
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn huge_answers_are_cut_where_the_records_quote_them() {
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            assert_eq!(e.recv().await, "ABOUT");
            e.send(&format!("{}\r\n", "n".repeat(100_000))).await;
            assert_eq!(e.recv().await, "START 15");
            e.send(&format!("ERROR {}\r\n", "e".repeat(100_000))).await;
            e.skip(2).await;
            e.send(&format!("{}\r\n", "g".repeat(100_000))).await;
            e
        });
        let name = s.about(SEC).await.unwrap();
        assert_eq!(name, format!("{}…", "n".repeat(ABOUT_NAME_CHARS)));
        assert_eq!(s.name(), name);
        match new_game15(&mut s).await {
            Err(EngineError::StartFailed { text }) => {
                assert_eq!(text.chars().count(), QUOTED_ANSWER_CHARS + 1);
                assert!(
                    text.starts_with("ERROR eee") && text.ends_with('…'),
                    "{text}"
                );
            }
            other => panic!("{other:?}"),
        }
        let r = s.request_move(MoveRequest::Begin, None, SEC).await.unwrap();
        assert_eq!(r.raw, format!("{}…", "g".repeat(QUOTED_ANSWER_CHARS)));
        assert_eq!(r.coords, None);
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn suggest_is_answered_with_play() {
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            e.recv().await;
            assert_eq!(e.recv().await, "TURN 1,2");
            e.send("SUGGEST 3,4\r\n").await;
            assert_eq!(e.recv().await, "PLAY 3,4");
            e.send("3,4\r\n").await;
            e
        });
        let r = s.request_move(turn(1, 2), None, SEC).await.unwrap();
        assert_eq!(r.coords, Some((3, 4)));
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn silent_engine_times_out_at_the_deadline() {
        let (mut s, engine, mut rx) = with_engine(session(), |mut e| async move {
            e.skip(2).await;
            e.send("MESSAGE still thinking\n").await;
            tokio::time::sleep(Duration::from_secs(3600)).await;
            e
        });
        let asked = s.request_move(MoveRequest::Begin, Some(SEC), Duration::from_millis(2500));
        assert_eq!(
            timeout_of(asked.await),
            ("BEGIN".to_string(), Duration::from_millis(2500))
        );
        assert!(!s.is_alive());
        assert!(matches!(
            s.request_move(MoveRequest::Begin, None, SEC).await,
            Err(EngineError::Crashed { .. })
        ));
        engine.abort();
        let mut notes = Vec::new();
        while let Ok(ev) = rx.try_recv() {
            assert_eq!(ev.slot, 3);
            if ev.direction == Direction::Note {
                notes.push(ev.text);
            }
        }
        assert!(
            notes.iter().any(|n| n.contains("no answer to BEGIN")),
            "{notes:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn closed_output_is_a_crash() {
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            e.skip(2).await;
            e.send("MESSAGE bye\n").await;
            drop(e);
        });
        let err = s
            .request_move(MoveRequest::Begin, None, SEC)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, EngineError::Crashed { status } if status == "connection closed"),
            "{err:?}"
        );
        engine.await.unwrap();
        assert!(!s.is_alive());
    }

    #[tokio::test(start_paused = true)]
    async fn writing_to_a_closed_engine_is_a_crash_not_a_panic() {
        let (mut s, e, _rx) = session();
        drop(e);
        let err = s
            .request_move(MoveRequest::Begin, None, SEC)
            .await
            .unwrap_err();
        assert!(matches!(err, EngineError::Crashed { .. }), "{err:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn log_records_both_directions_without_line_ends() {
        let (mut s, engine, mut rx) = with_engine(session(), |mut e| async move {
            e.skip(2).await;
            e.send("5,5\r\n").await;
            e
        });
        s.request_move(MoveRequest::Begin, None, SEC).await.unwrap();
        engine.await.unwrap();
        let mut events = Vec::new();
        while let Ok(ev) = rx.try_recv() {
            events.push((ev.direction, ev.text, ev.engine));
        }
        let fake = "fake".to_string();
        assert_eq!(
            events,
            vec![
                (
                    Direction::ToEngine,
                    "INFO time_left 2147483647".into(),
                    fake.clone()
                ),
                (Direction::ToEngine, "BEGIN".into(), fake.clone()),
                (Direction::FromEngine, "5,5".into(), fake),
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn takeback_reads_ok_a_refusal_or_reports_another_answer() {
        let (mut s, engine, _rx) = with_engine(started().await, |mut e| async move {
            assert_eq!(e.recv().await, "TAKEBACK 9,10");
            e.send("DEBUG undo\r\nMESSAGE gone\r\nOK\r\n").await;
            assert_eq!(e.recv().await, "TAKEBACK 1,2");
            e.send("UNKNOWN TAKEBACK\r\n").await;
            // The refusal is drained (ABOUT, up to its known answer) before the next request.
            assert_eq!(e.recv().await, "ABOUT");
            e.send("name=\"fake\"\r\n").await;
            assert_eq!(e.recv().await, "TAKEBACK 3,4");
            e.send("7,7\r\n").await;
            e
        });
        let at = |x, y| Pos::new(x, y);
        assert_eq!(s.takeback(at(9, 10), SEC).await.unwrap(), Takeback::Done);
        assert_eq!(s.take_messages(), vec!["gone"]);
        assert_eq!(
            s.takeback(at(1, 2), SEC).await.unwrap(),
            Takeback::Refused("UNKNOWN TAKEBACK".into())
        );
        match s.takeback(at(3, 4), SEC).await {
            Err(EngineError::Protocol { text }) => {
                assert_eq!(
                    text,
                    "engine answered TAKEBACK 3,4 with \"7,7\" instead of OK"
                )
            }
            other => panic!("{other:?}"),
        }
        assert!(s.is_alive());
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_or_closed_engine_at_takeback_times_out_or_crashes() {
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            assert_eq!(e.recv().await, "TAKEBACK 0,0");
            tokio::time::sleep(Duration::from_secs(3600)).await;
            e
        });
        let t = Instant::now();
        assert_eq!(
            timeout_of(s.takeback(Pos::new(0, 0), SEC).await).0,
            "TAKEBACK 0,0"
        );
        assert_eq!(t.elapsed(), SEC);
        assert!(!s.is_alive());
        engine.abort();
        let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
            e.recv().await;
            drop(e);
        });
        assert!(matches!(
            s.takeback(Pos::new(0, 0), SEC).await,
            Err(EngineError::Crashed { .. })
        ));
        engine.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn shutdown_sends_end() {
        let (s, mut e, _rx) = session();
        let engine = tokio::spawn(async move { e.recv().await });
        assert_eq!(s.shutdown().await, None);
        assert_eq!(engine.await.unwrap(), "END");
    }
}
