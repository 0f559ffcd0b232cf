//! `gomoku-cli check`: runs one engine through a scripted series of short sessions (start-up,
//! every protocol command the judge sends, legal play per rule, time, memory, exit) and reports
//! what the Gomocup judge would see, one item per line: pass, warn, fail or skip.
//!
//! Everything goes through [`EngineSession`], the runner's own conversation and fault handling:
//! there is no second protocol implementation here, and the engine runs under the same process
//! group guarantees (one engine at a time, its group killed when a session ends).

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

mod ask;
mod end;

use crate::commands::check::boards::{
    forbidden_setup, full_board, opening_stones, reply_move, valid_opening, winning_line,
};
use crate::commands::check::launch::{engine_file, is_wine_own, runs_under_wine};
use crate::commands::check::report::{CheckReport, Item, Status, INFORMATIONAL};
use crate::commands::check::verdicts::{stray_verdict, SearchSeen, Timing};
use crate::core::board::{Board, BoardSize, Color, Pos};
use crate::core::rules::{MoveOutcome, Referee, Rule};
use crate::core::swap::Answer;
use crate::engine::leftovers::{sweep, Leftover, Subreaper};
use crate::engine::protocol::{parse_engine_line, EngineLine};
use crate::engine::{
    Direction, EngineError, EngineSession, EngineSpec, Field, LineCounts, LogEvent, LogSink,
    MoveRequest, Takeback, TimeControl,
};

/// The judge's tolerance past a move's time limit.
const JUDGE_TOLERANCE: Duration = Duration::from_millis(1000);
/// The judge's limit on the saved-files folder.
const FOLDER_LIMIT: u64 = 70 * 1024 * 1024;
/// Moves the engine makes in each rule's game: enough to leave the opening, short enough that
/// a whole check takes about a minute.
const PLAY_MOVES: usize = 12;
/// Moves asked under the short time control.
const SHORT_MOVES: usize = 4;
/// More MESSAGE lines per move than this, on average, is spam in the judge's log.
const MESSAGES_PER_MOVE: usize = 3;
/// A MESSAGE longer than this is cut or clutters the judge's log.
const MESSAGE_CHARS: usize = 1000;
/// How long the check waits after an answer before its next request, as an opponent thinks
/// and a manager forwards: Rapfi marks itself idle only after printing its move, and drops a
/// command that comes in between (an instant `RESTART` went unanswered, an instant TURN's
/// `INFO time_left` was refused), which no judge's opponent is fast enough to meet.
const OPPONENT_PAUSE: Duration = Duration::from_millis(50);

/// What to check and how.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// The engine as given (`cmd=`, `maxmemory=`, `option.K=`...); its `tc` is replaced by the
    /// check's time controls.
    pub spec: EngineSpec,
    /// Board sizes to START (the first one the engine accepts is used for the rest).
    pub sizes: Vec<BoardSize>,
    /// Rules to play a game in.
    pub rules: Vec<Rule>,
    /// Time to answer START/RESTART and the INFO block.
    pub startup: Duration,
    /// The time control of the protocol and play items (the judge's fast control).
    pub fast: TimeControl,
    /// The short time control.
    pub short: TimeControl,
    /// Time between END and SIGKILL.
    pub end_grace: Duration,
    /// The folder given with `INFO folder` (created if missing).
    pub folder: PathBuf,
    /// Called with each item as soon as it is decided, in the report's order (the command
    /// prints it: a check takes a minute, a hung engine half of it).
    pub on_item: Option<fn(&Item)>,
}

impl CheckOptions {
    /// Defaults: sizes 15 and 20, freestyle, 5 s/120 s and 1 s/20 s, 10 s to start.
    pub fn new(spec: EngineSpec, folder: PathBuf) -> Self {
        let tc = |turn: u64, game: u64| TimeControl {
            match_time: Some(Duration::from_secs(game)),
            turn_time: Some(Duration::from_secs(turn)),
            increment: Duration::ZERO,
        };
        CheckOptions {
            spec,
            sizes: vec![
                BoardSize::new(15).expect("15"),
                BoardSize::new(20).expect("20"),
            ],
            rules: vec![Rule::Freestyle],
            startup: Duration::from_secs(10),
            fast: tc(5, 120),
            short: tc(1, 20),
            end_grace: Duration::from_secs(1),
            folder,
            on_item: None,
        }
    }
}

/// Why a check game stopped before its end.
enum Stop {
    /// The engine broke (crash, timeout, memory): the item fails, unless it was memory.
    Engine(EngineError),
    /// The engine's answer is not a legal move here.
    Illegal(String),
    /// A move the item warns about (on a winning-line point of `BOARD`).
    Warn(String),
}

/// The running check: the report so far and what later items need.
struct Checker {
    opts: CheckOptions,
    report: CheckReport,
    timing: Timing,
    short_timing: Timing,
    /// Time faults seen (a move killed for time), by time control label.
    time_faults: Vec<String>,
    memory_fault: Option<String>,
    /// The largest memory of the engine's processes, as the limit judges it (summed PSS; RSS
    /// where `smaps_rollup` cannot be read).
    peak: u64,
    /// The largest summed RSS and USS read after an answer.
    peak_rss: u64,
    peak_uss: u64,
    /// `smaps_rollup` could not be read: memory is resident memory.
    rss_only: bool,
    /// The search reports heard with the moves.
    search: SearchSeen,
    /// Lines of search output the sessions could not read.
    search_ignored: u64,
    /// The lines that were no answer (`ERROR`, `UNKNOWN`, `DEBUG`, others), summed over the
    /// sessions: a match logs and counts them and waits on for the move.
    lines: LineCounts,
    log: LogSink,
    events: tokio::sync::mpsc::UnboundedReceiver<LogEvent>,
    /// The log events read so far.
    seen: Vec<LogEvent>,
    /// Whether the unknown INFO key is still sent (not after the engine answered it).
    unknown_key: bool,
    /// Refusals of the judge's INFO block seen.
    info_faults: Vec<String>,
    /// A refusal of the INFO block that went away without the unknown key.
    unknown_fault: Option<String>,
    /// The engine's answer to ABOUT (the about item's), never noise wherever it comes.
    about_raw: Option<String>,
    end_faults: Vec<String>,
    end_notes: Vec<String>,
    /// Exits after END with a status other than 0 (a crash on the way out).
    end_odd: Vec<String>,
    leftovers: Vec<String>,
    /// Wine's own processes found running after an engine run through wine ended.
    wine_left: Option<String>,
}

/// Runs the whole check, or until `stop` is cancelled (the report then holds the items decided
/// by then, and the engine and all it started are killed). Must be called inside a tokio
/// runtime.
pub async fn run_check(opts: CheckOptions, stop: CancellationToken) -> CheckReport {
    // Orphans of the engine (double-forked daemons) come to the check, to be found and killed,
    // instead of to init. Without it (not Linux) only the engine's group is searched.
    let subreaper = Subreaper::set();
    let (log, events) = LogSink::channel();
    let mut c = Checker {
        report: CheckReport {
            engine: opts.spec.label(),
            items: Vec::new(),
            interrupted: false,
        },
        opts,
        timing: Timing::default(),
        short_timing: Timing::default(),
        time_faults: Vec::new(),
        memory_fault: None,
        peak: 0,
        peak_rss: 0,
        peak_uss: 0,
        rss_only: false,
        search: SearchSeen::default(),
        search_ignored: 0,
        lines: LineCounts::default(),
        log,
        events,
        seen: Vec::new(),
        unknown_key: true,
        info_faults: Vec::new(),
        unknown_fault: None,
        about_raw: None,
        end_faults: Vec::new(),
        end_notes: Vec::new(),
        end_odd: Vec::new(),
        leftovers: Vec::new(),
        wine_left: None,
    };
    // Stopped, the check's future is dropped with the session it holds: the engine's process
    // group is killed, and the sweep below finds what escaped it.
    c.report.interrupted = tokio::select! {
        _ = c.run() => false,
        _ = stop.cancelled() => true,
    };
    // Whatever is still left after an early stop: nothing outlives the check.
    sweep(None, &[]).await;
    drop(subreaper);
    c.report
}

impl Checker {
    fn push(&mut self, name: impl Into<String>, status: Status, detail: impl Into<String>) {
        let name = name.into();
        let judge = !INFORMATIONAL.contains(&name.as_str());
        self.push_item(name, status, detail.into(), judge);
    }

    /// [`push`](Self::push) of an item the judge does not act on.
    fn push_informational(&mut self, name: &str, status: Status, detail: impl Into<String>) {
        self.push_item(name.into(), status, detail.into(), false);
    }

    fn push_item(&mut self, name: String, status: Status, detail: String, judge: bool) {
        let item = Item {
            name,
            status,
            detail,
            judge,
        };
        if let Some(show) = self.opts.on_item {
            show(&item);
        }
        self.report.items.push(item);
    }

    /// The rule under test, the first of `-rule`: every game is started with it (`INFO rule`)
    /// unless it plays another rule, so an engine of one rule is never sent another.
    fn rule(&self) -> Rule {
        self.opts.rules.first().copied().unwrap_or(Rule::Freestyle)
    }

    /// An engine error in item `name`: a memory fault belongs to the memory item and a killed
    /// late move to the time item, so each fault is reported once, where it is meant.
    fn engine_error(&mut self, name: &str, e: &EngineError, time_label: &str) {
        match e {
            EngineError::MemoryLimit { .. } => {
                self.memory_fault
                    .get_or_insert_with(|| format!("{e} (in {name})"));
                self.push(
                    name,
                    Status::Warn,
                    "stopped by the memory limit (see memory)",
                );
            }
            EngineError::Timeout { what, .. }
                if what.starts_with("BEGIN")
                    || what.starts_with("TURN")
                    || what.starts_with("BOARD") =>
            {
                self.time_faults
                    .push(format!("{time_label}: {e} (in {name})"));
                self.push(name, Status::Warn, format!("stopped: {e} (see time)"));
            }
            _ => self.push(name, Status::Fail, e.to_string()),
        }
    }

    /// Starts a session of `spec` with the judge's END grace; `None` (and a failed `item`)
    /// when it cannot start.
    async fn spawn(&mut self, spec: &EngineSpec, item: &str) -> Option<EngineSession> {
        match EngineSession::spawn(spec, 0, self.log.clone()).await {
            Ok(mut session) => {
                session.set_end_grace(self.opts.end_grace);
                Some(session)
            }
            Err(e) => {
                self.push(item, Status::Fail, e.to_string());
                None
            }
        }
    }

    fn spec_with(&self, tc: TimeControl) -> EngineSpec {
        let mut spec = self.opts.spec.clone();
        spec.tc = tc;
        spec.tolerance = JUDGE_TOLERANCE;
        let folder = self.opts.folder.to_string_lossy().into_owned();
        spec.options.push(("folder".into(), folder));
        // An INFO key no judge sends: the protocol says an engine ignores keys it does not know.
        if self.unknown_key {
            spec.options
                .push(("gomoku_cli_check_unknown_key".into(), "1".into()));
        }
        spec
    }

    async fn run(&mut self) {
        let spec = self.spec_with(self.opts.fast);
        let program = engine_file(&spec.cmd);
        if program.starts_with("pbrain-") {
            self.push("prefix", Status::Pass, format!("file name {program}"));
        } else {
            self.push(
                "prefix",
                Status::Fail,
                format!("file name {program} lacks the pbrain- prefix the judge requires"),
            );
        }
        let _ = std::fs::create_dir_all(&self.opts.folder);
        let Some(mut session) = self.spawn(&spec, "spawn").await else {
            return;
        };
        self.check_about(&mut session).await;
        let Some(size) = self.check_starts(&mut session).await else {
            self.finish(session).await;
            return;
        };
        self.check_protocol(&mut session, size).await;
        for rule in self.opts.rules.clone() {
            self.check_play(&mut session, size, rule).await;
        }
        // After the games of many moves, so that a fault at the third move is theirs.
        self.check_takeback(&mut session, size).await;
        self.check_positions(&mut session, size).await;
        if self.opts.rules.contains(&Rule::Renju) && size.get() == 15 {
            self.check_forbidden(&mut session, size).await;
        }
        self.peak = self.peak.max(session.take_peak_memory());
        self.finish(session).await;
        self.check_short(size).await;
        let left = sweep(None, &[]).await;
        self.note_leftovers(&left, "after the last engine ended");
        self.report_time();
        self.report_memory();
        self.report_folder();
        self.report_output();
        self.report_end();
    }

    async fn finish(&mut self, session: EngineSession) {
        self.end(session).await;
    }

    async fn check_about(&mut self, session: &mut EngineSession) {
        match session.about(self.opts.startup).await {
            Ok(_) => {
                let about = session.about_info().cloned().unwrap_or_default();
                let fields = [
                    ("name", about.name()),
                    ("version", about.version()),
                    ("author", about.author()),
                    ("country", about.country()),
                ];
                let missing: Vec<&str> = fields
                    .iter()
                    .filter(|(_, v)| v.is_none_or(|v| v.trim().is_empty()))
                    .map(|(k, _)| *k)
                    .collect();
                let shown = if about.raw.is_empty() {
                    "(no answer)".to_string()
                } else {
                    about.raw.clone()
                };
                if !about.raw.is_empty() {
                    self.about_raw = Some(about.raw.clone());
                }
                if missing.is_empty() {
                    self.push("about", Status::Pass, shown);
                } else {
                    self.push(
                        "about",
                        Status::Warn,
                        format!("missing {}: {shown}", missing.join(", ")),
                    );
                }
            }
            Err(e) => self.engine_error("about", &e, "fast"),
        }
    }

    /// START at each size; returns the first size accepted. An engine that answers the INFO
    /// block puts the session out of step (its answer is taken for ABOUT's): it is started
    /// again, without the unknown key, and the `info` item fails.
    async fn check_starts(&mut self, session: &mut EngineSession) -> Option<BoardSize> {
        let mut first = None;
        for size in self.opts.sizes.clone() {
            let name = format!("start {}", size.get());
            for attempt in 0..2 {
                let started = std::time::Instant::now();
                match session.new_game(size, self.rule(), self.opts.startup).await {
                    Ok(()) => {
                        let refused = self.info_answer(session);
                        if let (Some(line), true) = (&refused, self.unknown_key) {
                            // Refused with the unknown key in the block: tried again without
                            // it, on a fresh process, to learn which line was refused.
                            self.unknown_fault = Some(format!(
                                "answered the INFO block with an unknown key (to be ignored) with {line:?}"
                            ));
                            self.unknown_key = false;
                            if !self.replace_session(session).await {
                                return None;
                            }
                            if attempt == 0 {
                                continue;
                            }
                        }
                        let ms = started.elapsed().as_millis();
                        if let Some(line) = refused {
                            // Refused without the unknown key too: a line the judge sends.
                            self.unknown_fault = None;
                            self.info_faults.push(format!(
                                "answered the judge's INFO block ({}) with {line:?}",
                                self.info_keys()
                            ));
                            self.push(
                                name.clone(),
                                Status::Pass,
                                format!(
                                    "OK in {ms} ms; a line of the INFO block refused (see info)"
                                ),
                            );
                        } else {
                            self.push(
                                name.clone(),
                                Status::Pass,
                                format!("OK and INFO block answered in {ms} ms"),
                            );
                        }
                        first.get_or_insert(size);
                    }
                    Err(EngineError::StartFailed { text }) => {
                        let detail = format!("size not supported ({text})");
                        self.push(name.clone(), Status::Pass, detail);
                    }
                    Err(e) => self.engine_error(&name, &e, "fast"),
                }
                break;
            }
        }
        if let Some(fault) = self.info_faults.first().cloned() {
            self.push("info", Status::Fail, fault);
        } else if let Some(fault) = self.unknown_fault.clone() {
            // Only the key no judge sends: the protocol says to ignore it, the judge never
            // meets it.
            self.push_informational(
                "info",
                Status::Fail,
                format!("{fault}; the judge's own keys were taken"),
            );
        } else if first.is_some() {
            self.push(
                "info",
                Status::Pass,
                "timeout_turn, timeout_match, max_memory, game_type, rule, folder, an unknown key and time_left taken",
            );
        }
        if first.is_none() {
            self.push("board size", Status::Fail, "no board size was accepted");
        }
        first
    }

    /// Moves the session's log events into `seen`.
    fn drain(&mut self) {
        while let Ok(ev) = self.events.try_recv() {
            self.seen.push(ev);
        }
    }

    /// The ERROR or UNKNOWN line the session took for the answer to ABOUT after the INFO
    /// block, when the engine does answer ABOUT (the about item): an answer to INFO.
    fn info_answer(&mut self, session: &EngineSession) -> Option<String> {
        self.drain();
        session.about_info()?;
        let last_sent = self
            .seen
            .iter()
            .rposition(|e| e.direction == Direction::ToEngine)?;
        // Any ERROR/UNKNOWN after the block's last line (its ABOUT): a session that already
        // knows the engine's ABOUT answer reads past such lines to that answer, so the refusal
        // is not necessarily the last line.
        self.seen[last_sent..]
            .iter()
            .filter(|e| e.direction == Direction::FromEngine)
            .find(|e| {
                matches!(
                    parse_engine_line(&e.text),
                    Some(EngineLine::Error(_)) | Some(EngineLine::Unknown(_))
                )
            })
            .map(|e| e.text.clone())
    }

    /// The keys of the judge's INFO block as the check sends it.
    fn info_keys(&self) -> String {
        let spec = self.spec_with(self.opts.fast);
        let keys: Vec<String> = crate::engine::session::game_infos(&spec, self.rule())
            .iter()
            .flat_map(|c| c.lines())
            .filter_map(|l| l.strip_prefix("INFO ").map(str::to_string))
            .collect();
        keys.join(", ")
    }

    /// Ends a session that is out of step and puts a fresh one in its place, which is asked
    /// ABOUT first as the first one was: a session that knows the engine's ABOUT answer tells
    /// a late answer or a refusal from the answer it waits for, and drains what follows a
    /// refusal before the next item. `false` (and a failed `spawn` item) when it cannot start.
    async fn replace_session(&mut self, session: &mut EngineSession) -> bool {
        session.kill("out of step after answering INFO");
        let spec = self.spec_with(self.opts.fast);
        let Some(mut fresh) = self.spawn(&spec, "spawn").await else {
            return false;
        };
        if let Err(e) = fresh.about(self.opts.startup).await {
            self.push(
                "spawn",
                Status::Fail,
                format!("ABOUT on a fresh process: {e}"),
            );
            return false;
        }
        let fresh_pid = fresh.process().and_then(|p| p.pid());
        let old = std::mem::replace(session, fresh);
        self.end_sparing(old, fresh_pid).await;
        true
    }

    /// BEGIN, TURN, BOARD, RESTART and SWAP2BOARD, each in a short game of its own.
    async fn check_protocol(&mut self, session: &mut EngineSession, size: BoardSize) {
        // BEGIN, in a game started at the size used from here on (START again when the last
        // size tried was another), so that the next game is a RESTART.
        if self.new_game(session, size, self.rule(), "begin").await {
            let mut referee = Referee::new(self.rule(), size);
            let outcome = self
                .ask(session, &mut referee, MoveRequest::Begin, None)
                .await;
            self.verdict("begin", outcome, "a legal first move");
        }

        let pid_before = session.process().and_then(|p| p.pid());
        let alive_before = session.is_alive();
        if self.new_game(session, size, self.rule(), "restart").await {
            let pid_after = session.process().and_then(|p| p.pid());
            if !alive_before {
                // A fault ended the last process: this game was a START on a fresh one.
                self.push(
                    "restart",
                    Status::Skip,
                    "not reached: the engine was started again after a fault",
                );
            } else if pid_before.is_some() && pid_before != pid_after {
                self.push(
                    "restart",
                    Status::Warn,
                    "RESTART refused: the process was ended and started again",
                );
            } else {
                self.push("restart", Status::Pass, "OK");
            }
            let mut referee = Referee::new(self.rule(), size);
            let center = size.center();
            referee.play(center);
            let outcome = self
                .ask(session, &mut referee, MoveRequest::Turn(center), None)
                .await;
            self.verdict("turn", outcome, "a legal answer to TURN");
        }

        if self.new_game(session, size, self.rule(), "board").await {
            let stones = opening_stones(size, 2);
            let outcome = self
                .ask_board(session, size, self.rule(), stones, &[])
                .await;
            self.verdict(
                "board",
                outcome,
                "a legal answer to BOARD (own and opponent stones)",
            );
        }
        self.check_winning_line(session, size).await;

        if self
            .new_game(session, size, self.rule(), "swap2board")
            .await
        {
            match session
                .swap2_request(&[], self.opts.fast.match_time, self.deadline(&self.opts.fast, self.opts.fast.match_time))
                .await
            {
                Ok(reply) => match reply.answer {
                    Answer::Unsupported => self.push(
                        "swap2board",
                        Status::Warn,
                        format!("not supported ({}); optional", reply.raw),
                    ),
                    Answer::Stones(stones) if valid_opening(&stones, size) => {
                        self.push("swap2board", Status::Pass, format!("proposed {}", reply.raw))
                    }
                    _ => self.push(
                        "swap2board",
                        Status::Fail,
                        format!(
                            "answer {:?} to SWAP2BOARD on an empty board is not 3 distinct points on the board",
                            reply.raw
                        ),
                    ),
                },
                Err(e) => self.engine_error("swap2board", &e, "fast"),
            }
        }
    }

    /// BOARD with a continuous game's winning line (field 3) besides own and opponent stones.
    async fn check_winning_line(&mut self, session: &mut EngineSession, size: BoardSize) {
        let name = "board winning line";
        let Some(line) = winning_line(size) else {
            self.push(
                name,
                Status::Skip,
                "the board is too small for the position",
            );
            return;
        };
        if !self.new_game(session, size, self.rule(), name).await {
            return;
        }
        let stones = opening_stones(size, 2);
        let outcome = self
            .ask_board(session, size, self.rule(), stones, &line)
            .await;
        match outcome {
            // Not a fault the judge can meet: field 3 exists only in Piskvork's continuous game.
            Err(Stop::Engine(EngineError::Timeout {
                said: Some(text), ..
            })) => self.push(
                name,
                Status::Warn,
                format!(
                    "refused ({text}); only Piskvork's continuous game sends field 3, the judge never"
                ),
            ),
            other => self.verdict(
                name,
                other,
                "a legal answer to BOARD with a winning line (field 3), off its points",
            ),
        }
    }

    /// TAKEBACK of the engine's last move and of the check's before it, then a TURN on the
    /// point the engine had taken: its answer must be legal on the board as taken back (an
    /// engine that kept the stone refuses the TURN, or answers for another board).
    ///
    /// A refusal (`UNKNOWN`/`ERROR`) is a warning, not a failure: the protocol page lists
    /// TAKEBACK among the commands "not required in Gomocup tournament", and the judge (see
    /// engines-speak §6) sends only START, INFO, BEGIN/TURN/BOARD and END; Piskvork sends it
    /// for an undo in manual play. An engine that accepts it must do it right, and one that
    /// crashes, hangs or answers something else on it fails: Piskvork users meet that.
    async fn check_takeback(&mut self, session: &mut EngineSession, size: BoardSize) {
        let name = "takeback";
        if !self.new_game(session, size, self.rule(), name).await {
            return;
        }
        // The engine's move, the check's, the engine's.
        let mut referee = Referee::new(self.rule(), size);
        if let Err(stop) = self
            .ask(session, &mut referee, MoveRequest::Begin, None)
            .await
        {
            return self.verdict(name, Err(stop), "");
        }
        let Some((theirs, MoveOutcome::Continue)) = reply_move(&mut referee) else {
            return self.push(name, Status::Skip, "no position to take back from");
        };
        let turn = MoveRequest::Turn(theirs);
        if let Err(stop) = self.ask(session, &mut referee, turn, None).await {
            return self.verdict(name, Err(stop), "");
        }
        let history = referee.board().history().to_vec();
        let Some(&mine) = history.last() else {
            return self.push(name, Status::Skip, "no position to take back from");
        };
        let deadline = self.deadline(&self.opts.fast, None);
        for p in [mine, theirs] {
            tokio::time::sleep(OPPONENT_PAUSE).await;
            match session.takeback(p, deadline).await {
                Ok(Takeback::Done) => {}
                Ok(Takeback::Refused(text)) => {
                    return self.push(
                        name,
                        Status::Warn,
                        format!(
                            "TAKEBACK {p} refused ({text}); optional: Piskvork sends it to undo in manual play, the judge never"
                        ),
                    )
                }
                Err(e) => return self.engine_error(name, &e, "fast"),
            }
        }
        let mut referee = Referee::new(self.rule(), size);
        for &p in &history[..history.len() - 2] {
            referee.play(p);
        }
        referee.play(mine);
        let outcome = self
            .ask(session, &mut referee, MoveRequest::Turn(mine), None)
            .await
            .map_err(|stop| match stop {
                Stop::Illegal(why) => Stop::Illegal(format!(
                    "{why} on the board after TAKEBACK {mine} and {theirs}"
                )),
                other => other,
            });
        if let Err(Stop::Engine(EngineError::Timeout {
            said: Some(text), ..
        })) = &outcome
        {
            let why = format!(
                "TURN {mine} after TAKEBACK {mine} and {theirs} answered {text}: the stone was kept"
            );
            return self.push(name, Status::Fail, why);
        }
        let what =
            format!("OK to TAKEBACK {mine} and {theirs}, then a legal answer to TURN {mine}");
        self.verdict(name, outcome, &what);
    }

    /// One game per rule: the engine black against the check's own plain mover.
    async fn check_play(&mut self, session: &mut EngineSession, size: BoardSize, rule: Rule) {
        let name = format!("play {}", rule.name());
        if !self.new_game(session, size, rule, &name).await {
            return;
        }
        let mut referee = Referee::new(rule, size);
        let mut request = MoveRequest::Begin;
        let mut moves = 0;
        let mut left = self.opts.fast.match_time;
        let result = loop {
            let reply = match self.ask(session, &mut referee, request, left).await {
                Ok((outcome, elapsed)) => {
                    moves += 1;
                    left = left.map(|l| l.saturating_sub(elapsed));
                    outcome
                }
                Err(stop) => break Err(stop),
            };
            if !matches!(reply, MoveOutcome::Continue) || moves >= PLAY_MOVES {
                break Ok(());
            }
            match reply_move(&mut referee) {
                Some((p, MoveOutcome::Continue)) => request = MoveRequest::Turn(p),
                _ => break Ok(()),
            }
        };
        let what = format!("{moves} legal moves as black");
        self.verdict(
            &name,
            result.map(|()| (MoveOutcome::Continue, Duration::ZERO)),
            &what,
        );
    }

    /// A board a few cells from full, and an opening of many stones, both sent with BOARD.
    async fn check_positions(&mut self, session: &mut EngineSession, size: BoardSize) {
        if self
            .new_game(session, size, self.rule(), "full board")
            .await
        {
            let stones = full_board(size);
            let empty = size.cells() - stones.len();
            let outcome = self
                .ask_board(session, size, self.rule(), stones, &[])
                .await;
            self.verdict(
                "full board",
                outcome,
                &format!("a legal move with {empty} empty points"),
            );
        }
        if self
            .new_game(session, size, self.rule(), "many stones")
            .await
        {
            let stones = opening_stones(size, 3);
            let n = stones.len();
            let outcome = self
                .ask_board(session, size, self.rule(), stones, &[])
                .await;
            self.verdict(
                "many stones",
                outcome,
                &format!("a legal move after an opening of {n} stones"),
            );
        }
    }

    /// Renju: black to move next to a double-three point it must not take, with the rest of
    /// the board free.
    async fn check_forbidden(&mut self, session: &mut EngineSession, size: BoardSize) {
        let name = "renju forbidden";
        if self.new_game(session, size, Rule::Renju, name).await {
            let outcome = self
                .ask_board(session, size, Rule::Renju, forbidden_setup(size), &[])
                .await;
            self.verdict(
                name,
                outcome,
                "black kept off the double-three point 7,7 (another move existed)",
            );
        }
    }

    /// A few moves under the short time control, in a session of its own (the time control is
    /// part of the spec).
    async fn check_short(&mut self, size: BoardSize) {
        let spec = self.spec_with(self.opts.short);
        let Some(mut session) = self.spawn(&spec, "short session").await else {
            return;
        };
        let label = short_label(&self.opts.short);
        if let Err(e) = session.new_game(size, self.rule(), self.opts.startup).await {
            self.engine_error("short session", &e, &label);
            self.end(session).await;
            return;
        }
        let mut referee = Referee::new(self.rule(), size);
        let mut request = MoveRequest::Begin;
        let mut left = self.opts.short.match_time;
        let mut timing = Timing::default();
        for _ in 0..SHORT_MOVES {
            let deadline = spec.move_deadline(left).unwrap_or(Duration::MAX);
            tokio::time::sleep(OPPONENT_PAUSE).await;
            match session.request_move(request.clone(), left, deadline).await {
                Ok(reply) => {
                    timing.add(reply.elapsed, limit_of(&self.opts.short, left));
                    left = left.map(|l| l.saturating_sub(reply.elapsed));
                    let Some((x, y)) = reply.coords else { break };
                    if !matches!(referee.play_xy(x, y), MoveOutcome::Continue) {
                        break;
                    }
                    match reply_move(&mut referee) {
                        Some((p, MoveOutcome::Continue)) => request = MoveRequest::Turn(p),
                        _ => break,
                    }
                }
                Err(e @ EngineError::Timeout { .. }) => {
                    self.time_faults.push(format!("{label}: {e}"));
                    break;
                }
                Err(e @ EngineError::MemoryLimit { .. }) => {
                    self.memory_fault.get_or_insert_with(|| e.to_string());
                    break;
                }
                Err(_) => break,
            }
        }
        self.short_timing = timing;
        self.peak = self.peak.max(session.take_peak_memory());
        self.end(session).await;
    }
}

/// `5s/120s` for a time control.
fn short_label(tc: &TimeControl) -> String {
    let secs = |d: Option<Duration>| d.map_or("-".into(), |d| format!("{}s", d.as_secs_f64()));
    format!("{}/{}", secs(tc.turn_time), secs(tc.match_time))
}

/// The time a move may take by the judge's rule: min(turn, time left).
fn limit_of(tc: &TimeControl, left: Option<Duration>) -> Duration {
    match (tc.turn_time, left) {
        (Some(t), Some(l)) => t.min(l),
        (Some(t), None) => t,
        (None, Some(l)) => l,
        (None, None) => Duration::MAX,
    }
}
