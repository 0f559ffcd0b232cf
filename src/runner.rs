//! The tournament runner: game slots that drive engine sessions through the schedule, and the one
//! dispatcher task that owns results, prints progress, writes records and decides when to stop.
//!
//! Slots never share mutable state with the dispatcher: they take the next game number from an
//! atomic counter (game numbering is fixed by the schedule, so the order of taking does not change
//! what a game is) and send events over a channel.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use thiserror::Error;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::board::{Color, Symmetry};
use crate::config::{Config, LogLevel, OnEngineFailure};
use crate::engine::{Direction, EngineError, EngineSession, LogEvent, LogSink, MoveRequest};
use crate::game::{self, Failure, GameOutcome, GameSetup, Player, Reply, Request};
use crate::opening::{OpeningBook, OpeningError, OpeningSequence};
use crate::record::samples::{self, SampleWriteError, SampleWriter};
use crate::record::{journal, pgn, sgf, GameRecord};
use crate::schedule::{EngineId, GameId, Pairing, Schedule};
use crate::stats::{GameOutcome as StatOutcome, Verdict};
use crate::tracker::{ScoredGame, Tracker};

/// Effectively "no deadline" for engines without a time limit.
const NO_DEADLINE: Duration = Duration::from_secs(365 * 24 * 3600);

/// Failures that stop a run before or outside the games themselves.
#[derive(Debug, Error)]
pub enum RunError {
    #[error("{0}")]
    Openings(#[from] OpeningError),
    #[error("{0}")]
    Samples(#[from] SampleWriteError),
    #[error("cannot open output file {path}: {source}")]
    Output {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// Every scheduled game was played.
    Completed,
    /// Ctrl-C or SIGTERM: games in progress were abandoned.
    Interrupted,
    /// `-fatalerror` and an engine failed.
    EngineFailure,
    /// The SPRT accepted H0 (the first engine is not stronger by elo1).
    SprtH0,
    /// The SPRT accepted H1.
    SprtH1,
}

/// Whether the dispatcher already stopped starting games (so an abort needs no new handling).
fn stops_seen(stop_new: &CancellationToken, reason: StopReason) -> bool {
    stop_new.is_cancelled() && reason != StopReason::SprtH0 && reason != StopReason::SprtH1
}

/// The parenthesised part of the results block header: time controls, rule, board, openings.
fn match_context(config: &Config) -> String {
    let mut parts = Vec::new();
    let tcs: Vec<String> = config.engines.iter().map(|e| e.tc.to_string()).collect();
    if tcs.windows(2).all(|w| w[0] == w[1]) {
        parts.push(tcs[0].clone());
    } else {
        parts.push(tcs.join(" vs "));
    }
    parts.push(format!("rule {}", config.rule.code()));
    parts.push(format!("{}x{}", config.size, config.size));
    if let Some(o) = &config.openings {
        parts.push(
            o.file
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
    }
    parts.join(", ")
}

/// What the run leaves behind for `main`.
#[derive(Debug, Clone)]
pub struct RunSummary {
    pub reason: StopReason,
    pub finished: u64,
    pub total: u64,
    /// Every finished game's result, per engine pair.
    pub results: Tracker,
}

/// Signals from outside the run (Ctrl-C handling in `main`).
#[derive(Debug, Clone, Default)]
pub struct Stops {
    /// Abandon games in progress and end.
    pub abort: CancellationToken,
    /// Kill engines at once instead of ending them politely.
    pub hard: CancellationToken,
}

enum Event {
    Started {
        game: GameId,
        black: String,
        white: String,
    },
    Finished(Box<GameRecord>),
}

/// Adapts an engine session to the referee loop's `Player`.
struct SessionPlayer<'a> {
    session: &'a mut EngineSession,
    startup: Duration,
    /// `-debug`: the board goes to the protocol log after each of this player's moves.
    board_log: Option<(&'a LogSink, usize)>,
}

fn failure_of(e: EngineError) -> Failure {
    match e {
        EngineError::Timeout { elapsed, .. } => Failure::Timeout { elapsed },
        EngineError::Crashed { status } => Failure::Crashed { status },
        EngineError::StartFailed { text } => Failure::StartFailed { text },
        other => Failure::Crashed {
            status: other.to_string(),
        },
    }
}

impl Player for SessionPlayer<'_> {
    async fn new_game(
        &mut self,
        size: crate::board::BoardSize,
        rule: crate::rules::Rule,
    ) -> Result<(), Failure> {
        self.session
            .new_game(size, rule, self.startup)
            .await
            .map_err(|e| match e {
                EngineError::StartFailed { text } => Failure::StartFailed { text },
                other => Failure::StartFailed {
                    text: other.to_string(),
                },
            })
    }

    async fn request_move(
        &mut self,
        request: Request,
        time_left: Option<Duration>,
        deadline: Option<Duration>,
    ) -> Result<Reply, Failure> {
        let req = match request {
            Request::Begin => MoveRequest::Begin,
            Request::Turn(p) => MoveRequest::Turn(p),
            Request::Board { stones, own } => MoveRequest::Board(
                stones
                    .iter()
                    .enumerate()
                    .map(|(i, &p)| (p, Color::of_ply(i) == own))
                    .collect(),
            ),
        };
        let reply = self
            .session
            .request_move(req, time_left, deadline.unwrap_or(NO_DEADLINE))
            .await
            .map_err(failure_of)?;
        Ok(Reply {
            raw: reply.raw,
            coords: reply.coords,
            elapsed: reply.elapsed,
        })
    }

    fn take_messages(&mut self) -> Vec<String> {
        self.session.take_messages()
    }

    fn after_move(&mut self, board: &crate::board::Board) {
        if let Some((log, slot)) = self.board_log {
            for row in board.to_rows() {
                log.emit(slot, self.session.name(), Direction::Note, row);
            }
        }
    }
}

/// Read-only state shared by the slots.
struct Shared {
    config: Config,
    schedule: Schedule,
    book: Option<OpeningBook>,
    sequence: Option<OpeningSequence>,
    names: Vec<String>,
    next: AtomicU64,
    /// No new game starts once this fires (SPRT decided, -fatalerror, interruption).
    stop_new: CancellationToken,
    stops: Stops,
    log: LogSink,
}

impl Shared {
    fn clock_of(&self, e: EngineId) -> game::Clock {
        let spec = &self.config.engines[e.0];
        game::Clock {
            match_time: spec.tc.match_time,
            turn_time: spec.tc.turn_time,
            increment: spec.tc.increment,
            tolerance: spec.tolerance,
        }
    }

    fn opening_for(&self, p: &Pairing) -> (Vec<crate::board::Pos>, Option<usize>, Symmetry) {
        match (&self.book, &self.sequence) {
            (Some(book), Some(seq)) => {
                let (index, sym) = seq.draw(p.opening_draw);
                let stones = book.stones(index, sym).unwrap_or_default();
                (stones, book.get(index).map(|o| o.line), sym)
            }
            _ => (Vec::new(), None, Symmetry::Identity),
        }
    }
}

/// One game slot: plays games one after another, keeping engine processes between games.
async fn slot_task(slot: usize, shared: Arc<Shared>, events: mpsc::UnboundedSender<Event>) {
    let mut sessions: HashMap<EngineId, EngineSession> = HashMap::new();
    let total = shared.schedule.total_games();
    loop {
        if shared.stop_new.is_cancelled() {
            break;
        }
        let id = shared.next.fetch_add(1, Ordering::SeqCst) + 1;
        if id > total {
            break;
        }
        let Some(pairing) = shared.schedule.pairing(GameId(id)) else {
            break;
        };
        // Keep only the engines of this game; end the others politely.
        let unneeded: Vec<EngineId> = sessions
            .keys()
            .copied()
            .filter(|e| *e != pairing.black && *e != pairing.white)
            .collect();
        for e in unneeded {
            if let Some(s) = sessions.remove(&e) {
                s.shutdown().await;
            }
        }
        let mut spawn_failure: Option<(Color, String)> = None;
        for (color, e) in [(Color::Black, pairing.black), (Color::White, pairing.white)] {
            if sessions.contains_key(&e) {
                continue;
            }
            match EngineSession::spawn(&shared.config.engines[e.0], slot, shared.log.clone()) {
                Ok(mut s) => {
                    s.set_name(shared.names[e.0].clone());
                    sessions.insert(e, s);
                }
                Err(err) => {
                    if spawn_failure.is_none() {
                        spawn_failure = Some((color, err.to_string()));
                    }
                }
            }
        }
        let black_name = shared.names[pairing.black.0].clone();
        let white_name = shared.names[pairing.white.0].clone();
        let _ = events.send(Event::Started {
            game: pairing.game,
            black: black_name.clone(),
            white: white_name.clone(),
        });
        let (opening, opening_line, transform) = shared.opening_for(&pairing);
        let setup = GameSetup {
            size: shared.config.size,
            rule: shared.config.rule,
            opening: opening.clone(),
            draw_after: shared.config.draw_after,
            send_by_board: shared.config.send_by_board,
            black_clock: shared.clock_of(pairing.black),
            white_clock: shared.clock_of(pairing.white),
        };
        let started = Utc::now();
        let outcome = if let Some((color, text)) = spawn_failure {
            Ok(GameOutcome {
                result: game::GameResult::win_for(color.opponent()),
                reason: format!("{color} failed to start: {text}"),
                termination: game::Termination::FailedStart { text },
                moves: vec![],
                forbidden_move: None,
                messages: vec![],
                faulty: Some(color),
            })
        } else {
            let mut black_s = sessions.remove(&pairing.black);
            let mut white_s = sessions.remove(&pairing.white);
            let result = match (&mut black_s, &mut white_s) {
                (Some(b), Some(w)) => {
                    let board_log =
                        (shared.config.log == LogLevel::Debug).then_some((&shared.log, slot));
                    let mut bp = SessionPlayer {
                        session: b,
                        startup: shared.config.startup_timeout,
                        board_log,
                    };
                    let mut wp = SessionPlayer {
                        session: w,
                        startup: shared.config.startup_timeout,
                        board_log,
                    };
                    game::play_game(&setup, &mut bp, &mut wp, &shared.stops.abort).await
                }
                _ => Err(game::Abandoned),
            };
            if let Ok(o) = &result {
                // A misbehaving engine is killed now; its next game starts a fresh process.
                let culprit = match o.faulty {
                    Some(Color::Black) => black_s.as_mut(),
                    Some(Color::White) => white_s.as_mut(),
                    None => None,
                };
                if let Some(s) = culprit {
                    s.kill(&o.reason);
                }
            }
            if let Some(s) = black_s {
                sessions.insert(pairing.black, s);
            }
            if let Some(s) = white_s {
                sessions.insert(pairing.white, s);
            }
            result
        };
        let Ok(outcome) = outcome else {
            break; // abandoned: not counted, not written
        };
        let record = GameRecord {
            game: pairing.game,
            round: pairing.round,
            pair: pairing.pair,
            pair_game: pairing.pair_game,
            black: pairing.black,
            white: pairing.white,
            black_name,
            white_name,
            black_cmd: shared.config.engines[pairing.black.0].cmd.clone(),
            white_cmd: shared.config.engines[pairing.white.0].cmd.clone(),
            size: shared.config.size,
            rule: shared.config.rule,
            opening,
            opening_line,
            transform,
            outcome,
            started,
            ended: Utc::now(),
        };
        if events.send(Event::Finished(Box::new(record))).is_err() {
            break;
        }
    }
    // End every engine; a second Ctrl-C drops the remaining shutdowns, and dropping a session
    // kills its whole process group.
    let ends = futures_join(sessions.into_values().map(|s| s.shutdown()));
    tokio::select! {
        _ = ends => {}
        _ = shared.stops.hard.cancelled() => {}
    }
}

/// Await all futures concurrently (on the slot's own runtime).
async fn futures_join<F>(futs: impl IntoIterator<Item = F>)
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let mut set = tokio::task::JoinSet::new();
    for f in futs {
        set.spawn(f);
    }
    while set.join_next().await.is_some() {}
}

/// Resolve each engine's display name: `name=` if given, else its ABOUT answer, else the program
/// name. Duplicate names get a `#2`, `#3` suffix so tables stay readable.
async fn resolve_names(config: &Config) -> Vec<String> {
    let mut names = Vec::with_capacity(config.engines.len());
    for spec in &config.engines {
        let name = match &spec.name {
            Some(n) => n.clone(),
            None => match EngineSession::spawn(spec, 0, LogSink::none()) {
                Ok(mut s) => {
                    let got = s.about(config.startup_timeout).await.ok();
                    s.kill("name resolved");
                    drop(s);
                    got.filter(|n| !n.trim().is_empty())
                        .unwrap_or_else(|| spec.display_name())
                }
                Err(_) => spec.display_name(),
            },
        };
        names.push(name);
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for n in names.iter_mut() {
        let count = seen.entry(n.clone()).or_insert(0);
        *count += 1;
        if *count > 1 {
            *n = format!("{n}#{count}");
        }
    }
    names
}

/// Files the dispatcher appends to, flushed after every game.
struct Outputs {
    journal: Option<std::fs::File>,
    pgn: Option<std::fs::File>,
    sgf: Option<std::fs::File>,
    msg: Option<std::fs::File>,
    samples: Option<(SampleWriter, f64)>,
    seed: u64,
    fingerprint: String,
}

fn open_append(path: &Path) -> Result<std::fs::File, RunError> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(|source| RunError::Output {
                path: path.to_path_buf(),
                source,
            })?;
        }
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|source| RunError::Output {
            path: path.to_path_buf(),
            source,
        })
}

impl Outputs {
    fn open(config: &Config) -> Result<Outputs, RunError> {
        let open = |p: &Option<PathBuf>| p.as_deref().map(open_append).transpose();
        Ok(Outputs {
            journal: open(&config.journal)?,
            pgn: open(&config.pgn)?,
            sgf: open(&config.sgf)?,
            msg: open(&config.msg)?,
            samples: match &config.sample {
                Some(sc) => Some((SampleWriter::open(sc)?, sc.freq)),
                None => None,
            },
            seed: config.seed,
            fingerprint: fingerprint(config),
        })
    }

    fn write(&mut self, r: &GameRecord, save_game: bool) {
        let event = "gomoku-cli";
        let write = |f: &mut Option<std::fs::File>, text: String| {
            if let Some(f) = f {
                if let Err(e) = f.write_all(text.as_bytes()).and_then(|_| f.flush()) {
                    eprintln!("warning: cannot write a record: {e}");
                }
            }
        };
        // The journal is the source of truth: every finished game, whatever -loseonly says.
        write(
            &mut self.journal,
            journal::render_line(r, &self.fingerprint),
        );
        if !save_game {
            return;
        }
        write(&mut self.pgn, pgn::render(r, event));
        write(&mut self.sgf, sgf::render(r, event));
        if self.msg.is_some() {
            let mut block = format!(
                "Game {} ({} vs {}): {} {{{}}}\n",
                r.game, r.black_name, r.white_name, r.outcome.result, r.outcome.reason
            );
            for (c, m) in &r.outcome.messages {
                block.push_str(&format!("{}: {}\n", r.name_of(*c), m));
            }
            block.push('\n');
            write(&mut self.msg, block);
        }
        if let Some((w, freq)) = &mut self.samples {
            let mut rng = samples::game_rng(self.seed, r.game.0);
            let batch = samples::samples_of(r, *freq, &mut rng);
            if let Err(e) = w.write_game(&batch) {
                eprintln!("warning: game {}: {e}", r.game);
            }
        }
    }

    /// Close what needs closing (the samples writer's last frame).
    fn finish(&mut self) {
        if let Some((w, _)) = self.samples.take() {
            if let Err(e) = w.finish() {
                eprintln!("warning: {e}");
            }
        }
    }
}

/// A short identity of the settings that decide what a game is (not where its outputs go), so a
/// journal can tell whether two runs may be mixed.
pub fn fingerprint(config: &Config) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for e in &config.engines {
        e.cmd.hash(&mut h);
        format!("{:?}", e.tc).hash(&mut h);
        e.depth.hash(&mut h);
        e.nodes.hash(&mut h);
        e.options.hash(&mut h);
    }
    config.rule.code().hash(&mut h);
    config.size.get().hash(&mut h);
    config.games.hash(&mut h);
    config.rounds.hash(&mut h);
    format!("{:?}{:?}", config.kind, config.repeat).hash(&mut h);
    config.draw_after.hash(&mut h);
    if let Some(o) = &config.openings {
        o.file.hash(&mut h);
        o.seed.hash(&mut h);
        o.transform.hash(&mut h);
        format!("{:?}", o.order).hash(&mut h);
    }
    format!("{:016x}", h.finish())
}

/// Writes `-log` protocol logs: one file per slot, monotonic timestamps from the run's start.
async fn log_writer(
    mut rx: mpsc::UnboundedReceiver<LogEvent>,
    dir: PathBuf,
    start: Instant,
) -> std::io::Result<()> {
    let mut files: HashMap<usize, std::io::BufWriter<std::fs::File>> = HashMap::new();
    while let Some(ev) = rx.recv().await {
        let w = match files.get_mut(&ev.slot) {
            Some(w) => w,
            None => {
                let path = dir.join(format!("gomoku-cli.{}.log", ev.slot + 1));
                let f = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)?;
                files.entry(ev.slot).or_insert(std::io::BufWriter::new(f))
            }
        };
        let arrow = match ev.direction {
            Direction::ToEngine => "<",
            Direction::FromEngine => ">",
            Direction::Stderr => "!",
            Direction::Note => "#",
        };
        let t = ev.at.saturating_duration_since(start);
        writeln!(
            w,
            "[{:>10.3}] {} {} {}",
            t.as_secs_f64(),
            ev.engine,
            arrow,
            ev.text
        )?;
        // Flush when the channel is momentarily empty: cheap batching off the hot path.
        if rx.is_empty() {
            for w in files.values_mut() {
                w.flush()?;
            }
        }
    }
    for w in files.values_mut() {
        w.flush()?;
    }
    Ok(())
}

/// Line output: flushed per line even when redirected, routed around the progress bar.
struct Console {
    bar: Option<indicatif::ProgressBar>,
    quiet: bool,
}

impl Console {
    /// Several lines at once (a block ending with a newline).
    fn block(&self, text: &str) {
        for l in text.lines() {
            self.always(l);
        }
    }

    /// A per-game line: suppressed by `-quiet`.
    fn line(&self, text: &str) {
        if !self.quiet {
            self.always(text);
        }
    }

    /// A line that `-quiet` keeps (reports, stop decisions).
    fn always(&self, text: &str) {
        let print = || {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{text}");
            let _ = out.flush();
        };
        match &self.bar {
            Some(b) => b.suspend(print),
            None => print(),
        }
    }
}

/// Run the whole tournament described by `config`.
pub async fn run(config: Config, stops: Stops) -> Result<RunSummary, RunError> {
    let run_start = Instant::now();
    let book = match &config.openings {
        Some(o) => Some(OpeningBook::load(
            &o.file,
            o.format,
            config.size,
            config.rule,
        )?),
        None => None,
    };
    let sequence = match (&config.openings, &book) {
        (Some(o), Some(b)) => Some(b.sequence(o.order, o.transform)),
        _ => None,
    };
    let mut outputs = Outputs::open(&config)?;
    let schedule = Schedule::new(
        config.engines.len(),
        config.kind,
        config.games,
        config.rounds,
        config.repeat,
    );
    let total = schedule.total_games();

    let (log, log_task) = if config.log == LogLevel::Off {
        (LogSink::none(), None)
    } else {
        let (sink, rx) = LogSink::channel();
        let dir = config.log_dir.clone();
        (sink, Some(tokio::spawn(log_writer(rx, dir, run_start))))
    };

    for w in &config.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(o) = &config.openings {
        if matches!(o.order, crate::opening::OpeningOrder::Random { .. }) {
            eprintln!(
                "Openings: {} in random order, srand={} (repeat with this seed to replay)",
                o.file.display(),
                o.seed
            );
        }
    }

    if let (Some(j), false) = (&config.journal, config.quiet) {
        eprintln!("Journal: {}", j.display());
    }
    let names = resolve_names(&config).await;
    let bar = if config.progress && !config.quiet && std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(total);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} games  {rate}  ETA {eta}  {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .with_key(
                "rate",
                |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.1} games/min", state.per_sec() * 60.0);
                },
            ),
        );
        Some(b)
    } else {
        None
    };
    let console = Console {
        bar,
        quiet: config.quiet,
    };

    let stop_new = CancellationToken::new();
    let shared = Arc::new(Shared {
        schedule: schedule.clone(),
        book,
        sequence,
        names: names.clone(),
        next: AtomicU64::new(0),
        stop_new: stop_new.clone(),
        stops: stops.clone(),
        log,
        config,
    });
    let (tx, mut rx) = mpsc::unbounded_channel();
    // Each slot runs on its own OS thread with a single-threaded runtime: a game is a chain of
    // pipe round trips, and keeping each chain on one thread with its own I/O driver avoids
    // queueing the slots' wake-ups behind one shared event loop.
    let mut slots = Vec::new();
    for slot in 0..shared.config.concurrency {
        let (shared, tx) = (shared.clone(), tx.clone());
        let spawned = std::thread::Builder::new()
            .name(format!("slot-{}", slot + 1))
            .spawn(move || {
                match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt.block_on(slot_task(slot, shared, tx)),
                    Err(e) => eprintln!("error: game slot {}: no runtime: {e}", slot + 1),
                }
            });
        match spawned {
            Ok(handle) => slots.push(handle),
            Err(e) => eprintln!("error: cannot start game slot {}: {e}", slot + 1),
        }
    }
    drop(tx);

    // The dispatcher: the single owner of results.
    let mut tracker = Tracker::new(
        names.clone(),
        schedule.pairs().iter().map(|(a, b)| (a.0, b.0)).collect(),
        schedule.repeat() == crate::schedule::Repeat::Twice,
    );
    let context = match_context(&shared.config);
    let sprt = shared.config.sprt;
    let two_engines = schedule.pairs().len() == 1;
    let mut finished = 0u64;
    let mut reason = StopReason::Completed;
    loop {
        let ev = tokio::select! {
            // The interruption first: when slots abandon their games and end, the closed channel
            // must not be mistaken for a completed run.
            biased;
            _ = stops.abort.cancelled(), if !stops_seen(&stop_new, reason) => {
                stop_new.cancel();
                reason = StopReason::Interrupted;
                continue;
            }
            ev = rx.recv() => ev,
        };
        let Some(ev) = ev else { break };
        match ev {
            Event::Started { game, black, white } => {
                console.line(&format!(
                    "Started game {game} of {total} ({black} vs {white})"
                ));
            }
            Event::Finished(rec) => {
                finished += 1;
                let o = &rec.outcome;
                console.line(&format!(
                    "Finished game {} ({} vs {}): {} {{{}}}",
                    rec.game, rec.black_name, rec.white_name, o.result, o.reason
                ));
                let (first, second) = schedule.pairs()[rec.pair];
                let first_color = if rec.black == first {
                    Color::Black
                } else {
                    Color::White
                };
                let first_outcome = match o.result.half_points_for(first_color) {
                    2 => StatOutcome::Win,
                    0 => StatOutcome::Loss,
                    _ => StatOutcome::Draw,
                };
                tracker.record(ScoredGame {
                    pair: rec.pair,
                    pair_game: rec.pair_game,
                    first: first_outcome,
                });
                let score = tracker.wld(rec.pair);
                console.line(&format!(
                    "Score of {} vs {}: {} - {} - {}  [{:.3}] {}",
                    names[first.0],
                    names[second.0],
                    score.wins,
                    score.losses,
                    score.draws,
                    score.score(),
                    score.games()
                ));
                // -loseonly (gauntlet): records only for games the first engine loses.
                let save = !shared.config.lose_only
                    || shared.config.kind != crate::schedule::TournamentKind::Gauntlet
                    || o.result.winner().is_some_and(|w| {
                        let first_engine_color = if rec.black == EngineId(0) {
                            Color::Black
                        } else {
                            Color::White
                        };
                        w != first_engine_color
                    });
                outputs.write(&rec, save);
                if let Some(b) = &console.bar {
                    b.inc(1);
                }
                if two_engines
                    && shared.config.rating_interval > 0
                    && finished % shared.config.rating_interval == 0
                {
                    console.block(&tracker.results_block(0, &context, sprt));
                }
                if let (Some(sprt), StopReason::Completed, true) = (sprt, reason, two_engines) {
                    if let Some(verdict) = tracker.verdict(0, &sprt) {
                        let llr = tracker.llr(0, &sprt);
                        console.always(&format!(
                            "SPRT ({}, elo0={}, elo1={}, alpha={}, beta={}): {} accepted, LLR {:.2} after {} games; no new games start",
                            sprt.model, sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta, verdict, llr, finished
                        ));
                        reason = match verdict {
                            Verdict::H0 => StopReason::SprtH0,
                            Verdict::H1 => StopReason::SprtH1,
                        };
                        // Games in flight finish and are counted.
                        stop_new.cancel();
                    }
                }
                if o.faulty.is_some()
                    && shared.config.on_failure == OnEngineFailure::Stop
                    && reason == StopReason::Completed
                {
                    console.always(&format!(
                        "Stopping: engine failure in game {} ({}) and -fatalerror is set",
                        rec.game, o.reason
                    ));
                    reason = StopReason::EngineFailure;
                    stop_new.cancel();
                    stops.abort.cancel();
                }
            }
        }
    }
    for s in slots {
        let _ = tokio::task::spawn_blocking(move || s.join()).await;
    }
    if stops.abort.is_cancelled() && reason == StopReason::Completed {
        reason = StopReason::Interrupted;
    }
    outputs.finish();
    if let Some(b) = &console.bar {
        b.finish_and_clear();
    }
    // The slots held the last log senders; the writer ends when they are gone.
    drop(shared);
    if let Some(t) = log_task {
        if let Ok(Err(e)) = t.await {
            eprintln!("warning: protocol log: {e}");
        }
    }
    if finished > 0 {
        console.always("");
        if two_engines {
            console.block(&tracker.results_block(0, &context, sprt));
        } else {
            console.block(&crate::stats::standings_table(tracker.tally()));
            console.always("");
            console.block(&crate::stats::crosstable(tracker.tally()));
        }
    }
    Ok(RunSummary {
        reason,
        finished,
        total,
        results: tracker,
    })
}
