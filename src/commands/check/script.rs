//! `gomoku-cli check`: runs one engine through a scripted series of short sessions (start-up,
//! every protocol command the judge sends, legal play per rule, time, memory, exit) and reports
//! what the Gomocup judge would see, one item per line: pass, warn, fail or skip.
//!
//! Everything goes through [`EngineSession`], the runner's own conversation and fault handling:
//! there is no second protocol implementation here, and the engine runs under the same process
//! group guarantees (one engine at a time, its group killed when a session ends).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use tokio_util::sync::CancellationToken;

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

/// What a check item found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Warn,
    Fail,
    /// Not checked (the feature is not built, or an earlier failure left nothing to check).
    Skip,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::Skip => "skip",
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// Short stable name (`start 15`, `begin`, `play renju`, `time 1s`...).
    pub name: String,
    pub status: Status,
    /// What was seen.
    pub detail: String,
    /// Whether the Gomocup judge acts on this item (rejects, disqualifies or forfeits the
    /// engine when it fails); `false` for what only Piskvork or other managers send (the
    /// winning-line field of BOARD, TAKEBACK, an INFO key no judge sends).
    pub judge: bool,
}

/// Items whose failure the Gomocup judge never meets: it never sends field 3 in BOARD (only
/// Piskvork's continuous game does), TAKEBACK (Piskvork's undo) or an unknown INFO key.
const INFORMATIONAL: [&str; 2] = ["board winning line", "takeback"];

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

/// The items, in the order they were checked.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckReport {
    pub engine: String,
    pub items: Vec<Item>,
    /// Stopped by a signal before its end: `items` are those decided by then (in JSON only
    /// when true).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// The width of the item names in the table: the longest of the fixed names
/// (`board winning line`), so that lines printed as the items come line up.
const NAME_WIDTH: usize = 18;

impl Item {
    /// The item's line of the table: `STATUS  ITEM  DETAIL`.
    pub fn line(&self) -> String {
        format!(
            "{:<4}  {:<NAME_WIDTH$}  {}\n",
            self.status.label(),
            self.name,
            self.detail
        )
    }
}

impl CheckReport {
    pub fn failures(&self) -> usize {
        self.items
            .iter()
            .filter(|i| i.status == Status::Fail)
            .count()
    }

    /// The failed items the Gomocup judge acts on, by name.
    pub fn judge_failures(&self) -> Vec<&str> {
        self.items
            .iter()
            .filter(|i| i.status == Status::Fail && i.judge)
            .map(|i| i.name.as_str())
            .collect()
    }

    /// The closing line of a check with failures: which of them the judge acts on.
    pub fn verdict(&self) -> Option<String> {
        let failed = self.failures();
        if failed == 0 {
            return None;
        }
        let judge = self.judge_failures();
        let others: Vec<&str> = self
            .items
            .iter()
            .filter(|i| i.status == Status::Fail && !i.judge)
            .map(|i| i.name.as_str())
            .collect();
        let rest = if others.is_empty() {
            String::new()
        } else {
            format!(
                "; {} only informational (the judge never sends what it tests)",
                others.join(", ")
            )
        };
        Some(if judge.is_empty() {
            format!(
                "{failed} check item(s) failed, none that the Gomocup judge acts on: {} (the judge never sends what they test)",
                others.join(", ")
            )
        } else {
            format!(
                "{failed} check item(s) failed: the judge would reject or disqualify this engine on {}{rest}",
                judge.join(", ")
            )
        })
    }

    /// The table's first line, for a check of `engine`.
    pub fn heading(engine: &str) -> String {
        format!("check of {engine}\n")
    }

    /// The table: the heading, `STATUS  ITEM  DETAIL` per item, then the count line.
    pub fn table(&self) -> String {
        let mut out = Self::heading(&self.engine);
        for i in &self.items {
            out.push_str(&i.line());
        }
        out.push_str(&self.counts());
        out
    }

    /// The table's last line: the items by status (and, after a signal, that the check
    /// stopped).
    pub fn counts(&self) -> String {
        let count = |s: Status| self.items.iter().filter(|i| i.status == s).count();
        format!(
            "{} pass, {} warn, {} fail ({} the judge acts on), {} skip{}\n",
            count(Status::Pass),
            count(Status::Warn),
            count(Status::Fail),
            self.judge_failures().len(),
            count(Status::Skip),
            match self.interrupted {
                true => " (interrupted: the items above are those checked before it)",
                false => "",
            }
        )
    }
}

/// Times and outcome of the moves of one check game.
#[derive(Debug, Default)]
struct Timing {
    moves: usize,
    slowest: Duration,
    /// The smallest `min(turn, time left) - elapsed`, in signed milliseconds.
    margin_ms: Option<i64>,
}

impl Timing {
    fn add(&mut self, elapsed: Duration, limit: Duration) {
        self.moves += 1;
        self.slowest = self.slowest.max(elapsed);
        let margin = limit.as_millis() as i64 - elapsed.as_millis() as i64;
        self.margin_ms = Some(self.margin_ms.map_or(margin, |m| m.min(margin)));
    }

    fn merge(&mut self, other: &Timing) {
        self.moves += other.moves;
        self.slowest = self.slowest.max(other.slowest);
        if let Some(m) = other.margin_ms {
            self.margin_ms = Some(self.margin_ms.map_or(m, |n| n.min(m)));
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
            engine: opts.spec.cmd.clone(),
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

    /// Ends a session: END, the exit status within the grace, and what it left running.
    async fn end(&mut self, session: EngineSession) {
        self.end_sparing(session, None).await;
    }

    /// [`end`](Self::end) while the engine `spare` (a live one) runs.
    async fn end_sparing(&mut self, mut session: EngineSession, spare: Option<u32>) {
        self.search_ignored += session.search_ignored();
        self.lines.add(&session.line_counts());
        let leader = session.process().and_then(|p| p.pid());
        let pgid = session.process().map(|p| p.pgid());
        let started = std::time::Instant::now();
        let alive = session.is_alive();
        let status = session.end_leader().await;
        let ms = started.elapsed().as_millis();
        // After the engine's exit and before its group is killed: what it left in the group,
        // and what escaped the group (reparented to the check, the subreaper).
        let spared: Vec<u32> = leader.into_iter().chain(spare).collect();
        let left = sweep(pgid, &spared).await;
        session.kill("ended");
        self.note_leftovers(
            &left,
            if alive {
                "after END"
            } else {
                "after it was killed"
            },
        );
        if !alive {
            return;
        }
        match status {
            Some(s) if s.contains("SIGKILL") => self.end_faults.push(format!(
                "did not exit within {} ms of END ({s})",
                self.opts.end_grace.as_millis()
            )),
            Some(s) if s != "exit status 0" => self
                .end_odd
                .push(format!("{s} {ms} ms after END (not status 0)")),
            Some(s) => self.end_notes.push(format!("{s} {ms} ms after END")),
            None => self.end_notes.push(format!("ended {ms} ms after END")),
        }
    }

    /// Records processes found running `when` an engine ended (killed since).
    fn note_leftovers(&mut self, left: &[Leftover], when: &str) {
        // Under wine, wineserver and wine's services outlive every program it ran, by design:
        // they are no engine's (a judge on Windows never sees them). Killed all the same.
        let wine = runs_under_wine(&self.opts.spec.cmd);
        let (wine_own, left): (Vec<&Leftover>, Vec<&Leftover>) =
            left.iter().partition(|l| wine && is_wine_own(&l.cmd));
        if !wine_own.is_empty() && self.wine_left.is_none() {
            let list: Vec<String> = wine_own.iter().map(|l| l.cmd.clone()).collect();
            self.wine_left = Some(list.join(", "));
        }
        if left.is_empty() {
            return;
        }
        let list: Vec<String> = left.iter().map(|l| l.to_string()).collect();
        self.leftovers.push(format!(
            "{} process(es) left running {when}: {}; the check killed them, the judge may not",
            left.len(),
            list.join(", ")
        ));
    }

    fn report_time(&mut self) {
        let mut all = Timing::default();
        all.merge(&self.timing);
        let rows = [
            (
                format!("time {}", short_label(&self.opts.fast)),
                "fast",
                &self.timing,
            ),
            (
                format!("time {}", short_label(&self.opts.short)),
                "short",
                &self.short_timing,
            ),
        ];
        let mut items = Vec::new();
        for (name, _, timing) in rows {
            let label = name.trim_start_matches("time ").to_string();
            let faults: Vec<&String> = self
                .time_faults
                .iter()
                .filter(|f| f.starts_with(&format!("{label}:")))
                .collect();
            let seen = format!(
                "{} moves, slowest {} ms, smallest margin {} ms",
                timing.moves,
                timing.slowest.as_millis(),
                timing.margin_ms.map_or("-".into(), |m| m.to_string())
            );
            let item = if !faults.is_empty() {
                (name, Status::Fail, format!("{}; {seen}", faults[0]))
            } else if timing.moves == 0 {
                (name, Status::Skip, "no move was played".to_string())
            } else if timing.margin_ms.is_some_and(|m| m < 0) {
                (
                    name,
                    Status::Warn,
                    format!("over the limit, within the judge's tolerance: {seen}"),
                )
            } else {
                (name, Status::Pass, seen)
            };
            items.push(item);
        }
        for (n, s, d) in items {
            self.push(n, s, d);
        }
    }

    /// One reading of the engine's processes after an answer.
    fn note_usage(&mut self, usage: crate::engine::resources::Usage) {
        self.peak_rss = self.peak_rss.max(usage.rss);
        match usage.footprint {
            Some(f) => {
                self.peak = self.peak.max(f.pss);
                self.peak_uss = self.peak_uss.max(f.uss);
            }
            None if usage.rss > 0 => {
                self.rss_only = true;
                self.peak = self.peak.max(usage.rss);
            }
            None => {}
        }
    }

    /// The peak memory against `max_memory` and the runner's limit (its tolerance on top), as
    /// summed PSS, with the summed USS and RSS beside it.
    fn report_memory(&mut self) {
        let max = self.opts.spec.max_memory;
        let limit = self.opts.spec.memory_limit();
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        let figures = if self.rss_only {
            format!(
                "RSS {:.1} MiB (smaps_rollup cannot be read: PSS and USS unknown, the limit is judged on RSS)",
                mib(self.peak_rss)
            )
        } else {
            format!(
                "PSS {:.1} MiB, USS {:.1} MiB, RSS {:.1} MiB (the limit is judged on PSS)",
                mib(self.peak),
                mib(self.peak_uss),
                mib(self.peak_rss)
            )
        };
        if let Some(fault) = self.memory_fault.clone() {
            self.push("memory", Status::Fail, fault);
        } else if let Some(limit) = limit.filter(|&l| self.peak > l) {
            self.push(
                "memory",
                Status::Fail,
                format!(
                    "peak over the limit {:.1} MiB (max_memory {:.1} MiB and its tolerance): {figures}",
                    mib(limit),
                    mib(max)
                ),
            );
        } else if max > 0 && self.peak > max {
            self.push(
                "memory",
                Status::Warn,
                format!(
                    "peak over max_memory {:.1} MiB, within the tolerance: {figures}",
                    mib(max)
                ),
            );
        } else {
            self.push(
                "memory",
                Status::Pass,
                format!(
                    "peak of the process tree {figures}; max_memory {:.1} MiB",
                    mib(max)
                ),
            );
        }
    }

    fn report_folder(&mut self) {
        let size = dir_size(&self.opts.folder);
        let mib = size as f64 / (1024.0 * 1024.0);
        if size > FOLDER_LIMIT {
            self.push(
                "folder",
                Status::Fail,
                format!("{mib:.1} MiB saved, over the judge's 70 MiB"),
            );
        } else {
            self.push("folder", Status::Pass, format!("{mib:.1} MiB saved"));
        }
    }

    /// MESSAGE spam, stderr and lines that are not protocol, from the session's log events.
    fn report_output(&mut self) {
        let (mut messages, mut long, mut stderr, mut noise) = (0usize, 0usize, 0usize, 0usize);
        let mut first_noise = None;
        // The answers to ABOUT and SWAP2BOARD are free text to the line parser: the first line
        // after either that is not MESSAGE/DEBUG is that answer, not noise.
        let mut about_asked = false;
        let mut swap_asked = false;
        self.drain();
        for ev in &self.seen {
            match ev.direction {
                Direction::Stderr => stderr += 1,
                Direction::ToEngine => {
                    about_asked = ev.text == "ABOUT" || ev.text == "DONE" && swap_asked;
                    swap_asked = ev.text == "SWAP2BOARD" || swap_asked && ev.text != "DONE";
                }
                Direction::FromEngine if about_asked => {
                    // Banners before the answer are part of it; the answer ends the wait.
                    // `OK` is the answer to the START/RESTART written in the same batch
                    // before it, `ERROR`/`UNKNOWN` an engine's word on an INFO line of it (Rapfi
                    // on an unknown key): the ABOUT answer is still to come (the next command
                    // ends the wait in any case).
                    about_asked = matches!(
                        parse_engine_line(&ev.text),
                        None | Some(EngineLine::Message(_))
                            | Some(EngineLine::Debug(_) | EngineLine::Info(_))
                            | Some(EngineLine::Ok)
                            | Some(EngineLine::Error(_))
                            | Some(EngineLine::Unknown(_))
                    );
                }
                Direction::FromEngine => match parse_engine_line(&ev.text) {
                    Some(EngineLine::Message(text)) => {
                        messages += 1;
                        if text.chars().count() > MESSAGE_CHARS {
                            long += 1;
                        }
                    }
                    // An ABOUT answer is never noise, however late (after a refusal of an INFO
                    // line, an engine's ABOUT answer may come after the next command).
                    Some(EngineLine::Unrecognised(text)) if !self.is_about_answer(&text) => {
                        noise += 1;
                        first_noise.get_or_insert_with(|| cut(&text, 60));
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        let moves = (self.timing.moves + self.short_timing.moves).max(1);
        if long > 0 || messages > MESSAGES_PER_MOVE * moves {
            self.push(
                "messages",
                Status::Warn,
                format!("{messages} MESSAGE lines in {moves} moves, {long} over {MESSAGE_CHARS} characters"),
            );
        } else {
            self.push(
                "messages",
                Status::Pass,
                format!("{messages} MESSAGE lines in {moves} moves"),
            );
        }
        if stderr > 0 {
            self.push("stderr", Status::Warn, format!("{stderr} lines on stderr"));
        } else {
            self.push("stderr", Status::Pass, "nothing on stderr");
        }
        match first_noise {
            Some(first) => self.push(
                "noise",
                Status::Warn,
                format!("{noise} lines that are not protocol, first: {first:?}"),
            ),
            None => self.push("noise", Status::Pass, "every line is protocol"),
        }
        let (status, detail) = stray_verdict(&self.lines);
        self.push_informational("stray lines", status, detail);
        let (status, detail) = self.search.verdict(self.search_ignored, moves);
        self.push_informational("search output", status, detail);
    }

    /// Whether `line` is the engine's ABOUT answer: the one it gave, or any with a `name` field.
    fn is_about_answer(&self, line: &str) -> bool {
        let line = line.trim();
        self.about_raw.as_deref() == Some(line)
            || crate::engine::parse_about(line).get("name").is_some()
    }

    fn report_end(&mut self) {
        if let Some(f) = self.end_faults.first().cloned() {
            self.push("end", Status::Fail, f);
        } else if let Some(n) = self.end_odd.first().cloned() {
            self.push("end", Status::Warn, n);
        } else if let Some(n) = self.end_notes.first().cloned() {
            self.push("end", Status::Pass, n);
        } else {
            self.push("end", Status::Skip, "no session reached END alive");
        }
        let wine = match &self.wine_left {
            Some(list) => format!(" (wine's own processes were, as wine leaves them: {list})"),
            None => String::new(),
        };
        match self.leftovers.first().cloned() {
            Some(l) => self.push("leftover", Status::Fail, l),
            None => self.push(
                "leftover",
                Status::Pass,
                format!("nothing of the engine's left running after END{wine}"),
            ),
        }
    }

    /// A new game for item `name`; on failure the item is reported and `false` returned.
    async fn new_game(
        &mut self,
        session: &mut EngineSession,
        size: BoardSize,
        rule: Rule,
        name: &str,
    ) -> bool {
        tokio::time::sleep(OPPONENT_PAUSE).await;
        match session.new_game(size, rule, self.opts.startup).await {
            Ok(()) => true,
            Err(e) => {
                self.engine_error(name, &e, "fast");
                false
            }
        }
    }

    /// The kill deadline of a move under `tc` with `left` on the clock: the judge's limit plus
    /// its tolerance, as the runner computes it.
    fn deadline(&self, tc: &TimeControl, left: Option<Duration>) -> Duration {
        self.spec_with(*tc)
            .move_deadline(left)
            .unwrap_or(Duration::MAX)
    }

    /// Asks one move under the fast control with `left` on the match clock, and plays it.
    async fn ask(
        &mut self,
        session: &mut EngineSession,
        referee: &mut Referee,
        request: MoveRequest,
        left: Option<Duration>,
    ) -> Result<(MoveOutcome, Duration), Stop> {
        let left = left.or(self.opts.fast.match_time);
        let deadline = self.deadline(&self.opts.fast, left);
        tokio::time::sleep(OPPONENT_PAUSE).await;
        let reply = session
            .request_move(request, left, deadline)
            .await
            .map_err(Stop::Engine)?;
        // The session samples memory only while a move takes over a tenth of a second; a
        // reading after each answer catches the fast movers' memory too, as PSS, USS and RSS.
        self.note_usage(session.usage());
        self.timing
            .add(reply.elapsed, limit_of(&self.opts.fast, left));
        self.search.add(reply.search.as_deref(), reply.coords);
        let Some((x, y)) = reply.coords else {
            return Err(Stop::Illegal(format!(
                "answer {:?} is not a move",
                reply.raw
            )));
        };
        match referee.play_xy(x, y) {
            MoveOutcome::Illegal(kind) => Err(Stop::Illegal(format!("{x},{y}: {kind:?}"))),
            MoveOutcome::Forbidden(kind) => Err(Stop::Illegal(format!(
                "{x},{y}: forbidden point ({kind:?})"
            ))),
            outcome => Ok((outcome, reply.elapsed)),
        }
    }

    /// BOARD with `stones` in play order (black to move: the engine's stones are the black
    /// ones), and first the `winning` line's points with field 3 (made before play went on, in
    /// a continuous game). A move on one of those is a warning.
    async fn ask_board(
        &mut self,
        session: &mut EngineSession,
        size: BoardSize,
        rule: Rule,
        stones: Vec<Pos>,
        winning: &[Pos],
    ) -> Result<(MoveOutcome, Duration), Stop> {
        let mut referee = Referee::new(rule, size);
        let mut board = Board::new(size);
        for &p in &stones {
            board.put(p, board.side_to_move());
            referee.play(p);
        }
        let own = |p: Pos| Field::of(board.get(p) == Some(Color::Black));
        let request = MoveRequest::Board(
            winning
                .iter()
                .map(|&p| (p, Field::WinningLine))
                .chain(stones.iter().map(|&p| (p, own(p))))
                .collect(),
        );
        let outcome = self.ask(session, &mut referee, request, None).await?;
        match referee.board().history().last() {
            Some(p) if winning.contains(p) => Err(Stop::Warn(format!(
                "{p} is on the winning line (field 3): the engine takes those points for empty, \
                 as Rapfi does; only Piskvork's continuous game sends them, the judge never"
            ))),
            _ => Ok(outcome),
        }
    }

    fn verdict(&mut self, name: &str, outcome: Result<(MoveOutcome, Duration), Stop>, what: &str) {
        match outcome {
            Ok(_) => self.push(name, Status::Pass, what),
            Err(Stop::Illegal(why)) => self.push(name, Status::Fail, format!("illegal move {why}")),
            Err(Stop::Warn(why)) => self.push(name, Status::Warn, why),
            Err(Stop::Engine(e)) => self.engine_error(name, &e, &short_label(&self.opts.fast)),
        }
    }
}

/// Programs that run the engine's own file, named after them in `cmd=` (`wine X.exe`,
/// `python3 -u engine.py`, `env VAR=1 ./pbrain-x`): the judge's prefix rule is about that file.
const LAUNCHERS: [&str; 14] = [
    "wine",
    "wine64",
    "wine-stable",
    "wine-staging",
    "python",
    "python2",
    "python3",
    "pypy",
    "pypy3",
    "sh",
    "bash",
    "dash",
    "env",
    "mono",
];

/// Whether `cmd` runs the engine through wine (`wine X.exe`, `env A=1 wine64 X.exe`).
fn runs_under_wine(cmd: &str) -> bool {
    launch(cmd).1.iter().any(|l| l.starts_with("wine"))
}

/// Wine's own Windows programs, which it starts for any program it runs and leaves running.
const WINE_SERVICES: [&str; 9] = [
    "services.exe",
    "winedevice.exe",
    "plugplay.exe",
    "svchost.exe",
    "rpcss.exe",
    "explorer.exe",
    "wineboot.exe",
    "conhost.exe",
    "winemenubuilder.exe",
];

/// Whether a leftover's command line is one of wine's own processes: `wineserver`, anything
/// of wine's Windows (`C:\windows\system32\...`), or one of [`WINE_SERVICES`] however it
/// names itself (`services.exe` alone early in its start).
fn is_wine_own(cmd: &str) -> bool {
    let c = cmd.to_ascii_lowercase();
    let program = c.split_whitespace().next().unwrap_or("");
    let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
    base == "wineserver"
        || base == "wineserver64"
        || WINE_SERVICES.contains(&base)
        || c.starts_with("c:\\windows\\system32\\")
        || c.starts_with("c:\\windows\\syswow64\\")
}

/// The file name of the engine's program in `cmd`: its first word's, or past a launcher (see
/// [`LAUNCHERS`]) the first argument that is not an option (nor, after `env`, a `VAR=value`).
fn engine_file(cmd: &str) -> String {
    launch(cmd).0
}

/// The file name of the engine's program in `cmd` (see [`engine_file`]) and the launchers
/// before it, by file name.
fn launch(cmd: &str) -> (String, Vec<String>) {
    let words = crate::engine::spec::split_command_line(cmd).unwrap_or_default();
    let name = |w: &str| {
        Path::new(w)
            .file_name()
            .map_or_else(|| w.to_string(), |f| f.to_string_lossy().into_owned())
    };
    let mut launchers = Vec::new();
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let program = name(word);
        if !LAUNCHERS.contains(&program.as_str()) {
            return (program, launchers);
        }
        let env = program == "env";
        let next = words[i + 1..]
            .iter()
            .position(|w| !(w.starts_with('-') || env && w.contains('=')));
        match next {
            Some(j) => i += 1 + j,
            None => return (program, launchers),
        }
        launchers.push(program);
    }
    (name(cmd), launchers)
}

/// The search reports heard with the check's moves (`INFO` detail blocks and `MESSAGE depth`
/// lines, read by the session's listener).
#[derive(Debug, Default)]
struct SearchSeen {
    /// Moves answered with a report before them.
    reported: usize,
    /// Of those, reports whose principal variation starts with the move played.
    agreeing: usize,
    /// The deepest depth reported.
    depth: Option<u32>,
    /// A report whose principal variation starts elsewhere: (its first move, the move).
    disagreeing: Option<(Pos, (i64, i64))>,
}

impl SearchSeen {
    fn add(
        &mut self,
        report: Option<&crate::core::search::SearchReport>,
        played: Option<(i64, i64)>,
    ) {
        let Some(r) = report else { return };
        self.reported += 1;
        self.depth = self.depth.max(r.depth);
        match (r.pv.first(), played) {
            (Some(p), Some((x, y))) if (p.x as i64, p.y as i64) == (x, y) => self.agreeing += 1,
            (Some(&p), Some(xy)) => {
                self.disagreeing.get_or_insert((p, xy));
            }
            _ => {}
        }
    }

    /// The item: reports heard pass; lines the listener could not read warn, and so do reports
    /// none of whose principal variations starts with the move played (coordinates swapped or
    /// off by one). A real engine's last complete report may name another move now and then
    /// (its last iteration, cut by the clock, changed its mind): one that does is counted, not
    /// warned about. None heard is skipped (the judge reads none, and an engine need print
    /// none).
    fn verdict(&self, ignored: u64, moves: usize) -> (Status, String) {
        let depth = self.depth.map_or("-".to_string(), |d| d.to_string());
        let seen = format!(
            "reports with {} of {moves} moves, deepest depth {depth}, {} PV(s) starting with the move played",
            self.reported, self.agreeing
        );
        if ignored > 0 {
            return (
                Status::Warn,
                format!("{ignored} line(s) of search output could not be read (malformed, cut or out of range); {seen}"),
            );
        }
        match self.disagreeing {
            Some((p, (x, y))) if self.agreeing == 0 => (
                Status::Warn,
                format!("no reported PV starts with the move played (one starts with {p}, the move was {x},{y}); {seen}"),
            ),
            _ if self.reported == 0 => (
                Status::Skip,
                "no search output heard (INFO show_detail asked; the judge reads none)".to_string(),
            ),
            _ => (Status::Pass, seen),
        }
    }
}

/// The first SWAP2BOARD answer: three distinct points on the board.
fn valid_opening(stones: &[(i64, i64)], size: BoardSize) -> bool {
    let mut seen = stones.to_vec();
    seen.sort_unstable();
    seen.dedup();
    stones.len() == 3 && seen.len() == 3 && stones.iter().all(|&(x, y)| size.contains(x, y))
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

/// The check's own move: the first point in a fixed spiral order from the center that is legal
/// for the side to move, played on `referee`.
fn reply_move(referee: &mut Referee) -> Option<(Pos, MoveOutcome)> {
    let size = referee.board().size();
    let mut cells: Vec<Pos> = size.all().collect();
    let c = size.center();
    let dist = |p: &Pos| {
        let dx = (p.x as i64 - c.x as i64).abs();
        let dy = (p.y as i64 - c.y as i64).abs();
        (dx.max(dy), dx + dy, p.y, p.x)
    };
    cells.sort_by_key(dist);
    for p in cells {
        match referee.play(p) {
            MoveOutcome::Illegal(_) | MoveOutcome::Forbidden(_) => continue,
            outcome => return Some((p, outcome)),
        }
    }
    None
}

/// The colour of a cell in a filling with no five in any direction: runs of two along rows,
/// alternation along columns, and at most two alike along either diagonal.
fn filler_black(p: Pos) -> bool {
    (p.x as usize / 2 + p.y as usize) % 2 == 0
}

/// Stones of the filling within `radius` of the center, in an alternating order (black first,
/// as many of each colour).
fn opening_stones(size: BoardSize, radius: i64) -> Vec<Pos> {
    let c = size.center();
    interleave(size.all().filter(|p| {
        (p.x as i64 - c.x as i64).abs() <= radius && (p.y as i64 - c.y as i64).abs() <= radius
    }))
}

/// Five points in a row just above the filling of [`opening_stones`] with radius 2; `None` on
/// a board too small for both.
fn winning_line(size: BoardSize) -> Option<Vec<Pos>> {
    let c = size.center();
    if size.get() < 7 {
        return None;
    }
    (c.x - 2..=c.x + 2)
        .map(|x| size.pos(x as i64, c.y as i64 - 3).ok())
        .collect()
}

/// The whole filling but for a few points, alternating black first.
fn full_board(size: BoardSize) -> Vec<Pos> {
    let mut stones = interleave(size.all());
    // Leave a few points so that the engine has a choice (and the board is not full).
    stones.truncate(stones.len().saturating_sub(4));
    stones
}

/// Black and white cells of the filling, alternating, as many of each.
fn interleave(cells: impl Iterator<Item = Pos>) -> Vec<Pos> {
    let (black, white): (Vec<Pos>, Vec<Pos>) = cells.partition(|&p| filler_black(p));
    black
        .into_iter()
        .zip(white)
        .flat_map(|(b, w)| [b, w])
        .collect()
}

/// Black 7,5 7,6 5,7 6,7 (7,7 would make two open threes: forbidden) and white far off in a
/// corner, black to move, in play order. Meant for 15x15.
fn forbidden_setup(size: BoardSize) -> Vec<Pos> {
    let at = |x, y| size.pos(x, y).expect("on a 15x15 board");
    vec![
        at(7, 5),
        at(0, 0),
        at(7, 6),
        at(0, 2),
        at(5, 7),
        at(2, 0),
        at(6, 7),
        at(2, 2),
    ]
}

/// Bytes in the files under `dir` (0 when it is missing).
fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_size(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

fn cut(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

/// The `stray lines` item: the lines an engine printed that were no answer to what it was asked
/// (counted by the sessions). A match logs them and waits on for the move (an `ERROR` in place
/// of a move is no move), so they warn, never fail. Lines over the per-move cap are said but do
/// not warn here: the `messages` item warns on the long or many messages they are.
fn stray_verdict(lines: &LineCounts) -> (Status, String) {
    let stray = lines.error + lines.unknown + lines.debug + lines.other;
    let dropped = (lines.dropped > 0).then(|| {
        format!(
            "{} lines ({} bytes) over the cap a move, dropped",
            lines.dropped, lines.dropped_bytes
        )
    });
    if stray == 0 {
        let detail = "every line answered what was asked".to_string();
        return (
            Status::Pass,
            dropped.map_or(detail.clone(), |d| format!("{detail}; {d}")),
        );
    }
    let mut detail = format!(
        "{} ERROR, {} UNKNOWN, {} DEBUG, {} other lines that were no answer (logged; a match waits on past them)",
        lines.error, lines.unknown, lines.debug, lines.other
    );
    if let Some(d) = dropped {
        detail.push_str(&format!("; {d}"));
    }
    (Status::Warn, detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stray_lines_warn_with_their_counts_and_pass_without() {
        let (status, detail) = stray_verdict(&LineCounts::default());
        assert_eq!(status, Status::Pass, "{detail}");
        let flood = LineCounts {
            dropped: 9,
            dropped_bytes: 900,
            ..LineCounts::default()
        };
        let (status, detail) = stray_verdict(&flood);
        assert_eq!(
            status,
            Status::Pass,
            "the messages item warns on those: {detail}"
        );
        assert!(detail.contains("9 lines (900 bytes)"), "{detail}");
        let lines = LineCounts {
            error: 2,
            debug: 1,
            dropped: 5,
            dropped_bytes: 70,
            ..LineCounts::default()
        };
        let (status, detail) = stray_verdict(&lines);
        assert_eq!(status, Status::Warn);
        assert!(
            detail.starts_with("2 ERROR, 0 UNKNOWN, 1 DEBUG, 0 other"),
            "{detail}"
        );
        assert!(detail.contains("5 lines (70 bytes)"), "{detail}");
    }
    use crate::core::rules::standing_winner;

    #[test]
    fn the_filling_has_no_five_and_balanced_colours() {
        for n in [15, 20] {
            let size = BoardSize::new(n).unwrap();
            for stones in [full_board(size), opening_stones(size, 3)] {
                let board = Board::from_moves(size, &stones).expect("legal stones");
                assert_eq!(standing_winner(&board, Rule::Freestyle), None, "size {n}");
                assert_eq!(board.side_to_move(), Color::Black);
            }
            assert!(size.cells() - full_board(size).len() >= 4);
        }
    }

    #[test]
    fn the_renju_setup_has_its_forbidden_point() {
        let size = BoardSize::new(15).unwrap();
        let mut referee = Referee::new(Rule::Renju, size);
        for p in forbidden_setup(size) {
            assert_eq!(referee.play(p), MoveOutcome::Continue);
        }
        assert_eq!(referee.side_to_move(), Color::Black);
        assert!(matches!(
            referee.play(size.pos(7, 7).unwrap()),
            MoveOutcome::Forbidden(_)
        ));
    }

    #[test]
    fn the_engine_file_is_named_past_launchers() {
        for (cmd, file) in [
            ("./pbrain-x -v", "pbrain-x"),
            ("wine /e/pbrain-embryo21_f.exe", "pbrain-embryo21_f.exe"),
            (
                "wine64 --debug 'dir with space/pbrain-y.exe'",
                "pbrain-y.exe",
            ),
            ("env A=1 B=2 wine X.exe", "X.exe"),
            ("python3 -u engines/pbrain-py.py --deep", "pbrain-py.py"),
            ("sh", "sh"),
            ("/usr/bin/env -i", "env"),
        ] {
            assert_eq!(engine_file(cmd), file, "{cmd}");
        }
    }

    #[test]
    fn search_reports_warn_only_when_none_names_the_move_played() {
        let size = BoardSize::new(15).unwrap();
        let report = |x, y| crate::core::search::SearchReport {
            depth: Some(4),
            pv: vec![size.pos(x, y).unwrap()],
            ..Default::default()
        };
        let mut seen = SearchSeen::default();
        assert_eq!(seen.verdict(0, 3).0, Status::Skip);
        seen.add(Some(&report(7, 7)), Some((7, 7)));
        seen.add(Some(&report(2, 8)), Some((1, 7)));
        seen.add(None, Some((3, 3)));
        let (status, detail) = seen.verdict(0, 3);
        assert_eq!(status, Status::Pass, "{detail}");
        assert!(
            detail.contains("reports with 2 of 3 moves, deepest depth 4, 1 PV(s)"),
            "{detail}"
        );
        assert_eq!(seen.verdict(5, 3).0, Status::Warn);
        let mut swapped = SearchSeen::default();
        swapped.add(Some(&report(8, 7)), Some((7, 8)));
        assert_eq!(swapped.verdict(0, 1).0, Status::Warn);
    }

    #[test]
    fn the_closing_line_names_the_failures_the_judge_acts_on() {
        let item = |name: &str, status, judge| Item {
            name: name.into(),
            status,
            detail: String::new(),
            judge,
        };
        let mut report = CheckReport {
            engine: "x".into(),
            items: vec![item("begin", Status::Pass, true)],
            interrupted: false,
        };
        assert_eq!(report.verdict(), None);
        report
            .items
            .push(item("board winning line", Status::Fail, false));
        let only = report.verdict().unwrap();
        assert!(
            only.contains("none that the Gomocup judge acts on: board winning line"),
            "{only}"
        );
        report.items.push(item("memory", Status::Fail, true));
        let both = report.verdict().unwrap();
        assert!(
            both.starts_with("2 check item(s) failed: the judge would reject or disqualify this engine on memory; board winning line only informational"),
            "{both}"
        );
    }

    #[test]
    fn lines_printed_as_items_come_line_up_and_an_interrupted_table_says_so() {
        let item = |name: &str| Item {
            name: name.into(),
            status: Status::Pass,
            detail: "d".into(),
            judge: true,
        };
        let mut report = CheckReport {
            engine: "x".into(),
            items: vec![item("prefix"), item("board winning line")],
            interrupted: false,
        };
        assert_eq!(
            report.table(),
            "check of x\npass  prefix              d\npass  board winning line  d\n\
             2 pass, 0 warn, 0 fail (0 the judge acts on), 0 skip\n"
        );
        report.interrupted = true;
        assert!(report
            .counts()
            .ends_with("0 skip (interrupted: the items above are those checked before it)\n"));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["interrupted"], true);
        report.interrupted = false;
        let json = serde_json::to_value(&report).unwrap();
        assert!(json.get("interrupted").is_none(), "{json}");
    }

    #[test]
    fn wine_s_own_processes_are_told_from_the_engine_s() {
        assert!(runs_under_wine("wine X.exe"));
        assert!(runs_under_wine("env WINEDEBUG=-all /usr/bin/wine64 X.exe"));
        assert!(!runs_under_wine("./pbrain-wine"));
        assert!(!runs_under_wine("python3 wine.py"));
        for own in [
            "/usr/lib/wine/wineserver64 -p0",
            "C:\\windows\\system32\\services.exe",
            "C:\\windows\\system32\\svchost.exe -k LocalServiceNetworkRestricted",
            "services.exe",
        ] {
            assert!(is_wine_own(own), "{own}");
        }
        for engine in [
            "sleep 1000",
            "C:\\engines\\pbrain-x.exe",
            "/tmp/wineserver-like",
        ] {
            assert!(!is_wine_own(engine), "{engine}");
        }
    }

    #[test]
    fn margins_keep_the_smallest() {
        let mut t = Timing::default();
        t.add(Duration::from_millis(300), Duration::from_millis(1000));
        t.add(Duration::from_millis(1200), Duration::from_millis(1000));
        assert_eq!(t.margin_ms, Some(-200));
        assert_eq!(t.slowest, Duration::from_millis(1200));
    }
}
