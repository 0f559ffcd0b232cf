//! Game slots, run as tasks on a few worker threads (one per core at most), each with its own
//! single-threaded tokio runtime: a game is a chain of pipe round trips, and separate I/O drivers
//! keep the cores' slots from queueing behind one event loop, while a thread per slot would cost a
//! stack, a runtime and a glibc arena each. A slot takes its next game from the `GameDesk` (the
//! dispatcher, reached on the slot's own thread), keeps the engine processes it needs between
//! games (ending the others), plays the game through `game::play::play_game` and hands the record in
//! with its next request. It owns its engine sessions and nothing else; it decides nothing about
//! the run.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::config::outputs::LogLevel;
use crate::config::Config;
use crate::core::board::{BoardSize, Color, Pos, Symmetry};
use crate::core::rules::Rule;
use crate::core::swap::{SwapRecord, SwapReply};
use crate::engine::{Direction, EngineError, EngineSession, LogSink, MoveRequest};
use crate::formats::openings::order::OpeningSequence;
use crate::formats::openings::OpeningBook;
use crate::game::play::{play_game, Abandoned, Clock, Failure, GameSetup, Player, Reply, Request};
use crate::game::record::{EngineUse, GameOutcome, GameRecord, GameUse};
use crate::game::swap_game::play_swap_game;
use crate::game::termination::Termination;
use crate::schedule::{EngineId, GameId, Pairing};

use crate::runner::console::Console;
use crate::runner::cpus::pin_this_thread;
use crate::tournament::dispatcher::Assignment;
use crate::tournament::events::ConsoleEvent;
use crate::tune::entry::TuneEntry;

/// Effectively "no deadline" for engines without a time limit.
const NO_DEADLINE: Duration = Duration::from_secs(365 * 24 * 3600);

/// Where a slot hands in its games and takes the next: the dispatcher, reached on the slot's own
/// thread (`mod.rs`'s `Desk`). The calls are synchronous and short.
pub trait GameDesk: Send + Sync {
    /// Score the game just `finished` (if any), then the slot's next game.
    fn next_game(&self, finished: Option<Box<GameRecord>>) -> Next;
    /// The count a slot told [`Next::Wait`] watches.
    fn changes(&self) -> tokio::sync::watch::Receiver<u64>;
    /// The game was cut short by a stop: not counted.
    fn abandoned(&self, game: GameId);
}

/// What a slot asking for a game is told.
#[derive(Debug)]
pub enum Next {
    Play(Assignment),
    /// No game can start yet (`slots=` caps): ask again once the desk's count of changes has
    /// moved past this one (a game ended, the run is stopping).
    Wait(u64),
    /// The slot ends.
    End,
}

/// Held by each slot until it ends: when every one is dropped, the run knows its slots are done.
pub type Alive = mpsc::UnboundedSender<std::convert::Infallible>;

/// Read-only state shared by the slots.
pub struct Shared {
    pub config: Config,
    pub book: Option<OpeningBook>,
    pub sequence: Option<OpeningSequence>,
    pub names: Vec<String>,
    /// Abandons the games in progress (Ctrl-C, or `-fatalerror`).
    pub cancel_games: CancellationToken,
    /// The run is stopping (an SPRT verdict, Ctrl-C, `-fatalerror`): no new game starts, and a
    /// slot in its `-wait` pause ends at once.
    pub stopping: CancellationToken,
    /// A second Ctrl-C: kill engines at once instead of ending them politely.
    pub hard: CancellationToken,
    pub log: LogSink,
    /// Where a worker that cannot start says so.
    pub console: Console,
    /// `-cpus`: each slot's CPUs, for its engines and the worker thread that plays it (empty:
    /// none pinned).
    pub slot_cpus: Vec<Vec<usize>>,
}

impl Shared {
    fn clock_of(&self, e: EngineId) -> Clock {
        let spec = &self.config.tournament.engines[e.0];
        Clock {
            match_time: spec.tc.match_time,
            turn_time: spec.tc.turn_time,
            increment: spec.tc.increment,
            tolerance: spec.tolerance,
        }
    }

    fn opening_for(&self, p: &Pairing) -> (Vec<Pos>, Option<usize>, Symmetry) {
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

/// Start the game slots `0..concurrency` on their worker threads ([`worker_layout`]). Returns
/// the workers that started and the error of the first that did not.
pub fn spawn_workers(
    concurrency: usize,
    shared: Arc<Shared>,
    desk: Arc<dyn GameDesk>,
    alive: Alive,
) -> (Vec<std::thread::JoinHandle<()>>, Option<std::io::Error>) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let layout = worker_layout(concurrency, cores, &shared.slot_cpus);
    let mut handles = Vec::with_capacity(layout.len());
    let mut error = None;
    for (w, slots) in layout.into_iter().enumerate() {
        let (shared, desk, alive) = (shared.clone(), desk.clone(), alive.clone());
        let started = std::thread::Builder::new()
            .name(format!("slots-{}", w + 1))
            .spawn(move || run_worker(&slots, shared, desk, alive));
        match started {
            Ok(h) => handles.push(h),
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }
    (handles, error)
}

/// Which slots each worker thread plays. Unpinned, `min(concurrency, cores)` workers take the
/// slots in turn (slot `i` on worker `i % workers`); with `-cpus` (`slot_cpus`, one set per slot)
/// the slots of each set of CPUs have a worker of their own, kept on those CPUs with their engines.
fn worker_layout(concurrency: usize, cores: usize, slot_cpus: &[Vec<usize>]) -> Vec<Vec<usize>> {
    if slot_cpus.is_empty() {
        let workers = concurrency.min(cores).max(1);
        return (0..workers)
            .map(|w| (w..concurrency).step_by(workers).collect())
            .collect();
    }
    let mut by_cpus: Vec<(&[usize], Vec<usize>)> = Vec::new();
    for slot in 0..concurrency {
        // A slot without a set of its own (none is: `runner::cpus` gives every slot one) would
        // share an unpinned worker rather than be left out.
        let cpus = slot_cpus.get(slot).map_or(&[][..], Vec::as_slice);
        match by_cpus.iter_mut().find(|(c, _)| *c == cpus) {
            Some((_, slots)) => slots.push(slot),
            None => by_cpus.push((cpus, vec![slot])),
        }
    }
    by_cpus.into_iter().map(|(_, slots)| slots).collect()
}

/// One worker thread: on its slots' CPUs (`-cpus`), its slots as local tasks on a
/// single-threaded runtime, until all end.
fn run_worker(slots: &[usize], shared: Arc<Shared>, desk: Arc<dyn GameDesk>, alive: Alive) {
    // A worker's slots share one set of CPUs (`worker_layout`), none when unpinned: its first
    // slot's is the worker's, without the repeats a concatenation of all its slots' sets made.
    let cpus: &[usize] = slots
        .first()
        .and_then(|&s| shared.slot_cpus.get(s))
        .map_or(&[], Vec::as_slice);
    if let Err(e) = pin_this_thread(cpus) {
        // Its engines are still pinned: the games are played, each move costing a wake-up of
        // another CPU.
        let e = format!(
            "game slots {slots:?}: the runner's thread cannot be kept on CPUs {cpus:?}: {e}"
        );
        shared.console.show(ConsoleEvent::Warning(e));
    }
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let e = format!("game slots {slots:?}: no runtime: {e}");
            shared.console.show(ConsoleEvent::Error(e));
            return;
        }
    };
    let local = tokio::task::LocalSet::new();
    for &slot in slots {
        local.spawn_local(slot_task(slot, shared.clone(), desk.clone(), alive.clone()));
    }
    drop(alive);
    rt.block_on(local);
}

/// Adapts an engine session to the referee loop's `Player`.
struct SessionPlayer<'a> {
    session: &'a mut EngineSession,
    startup: Duration,
    /// `-debug`: the board goes to the protocol log after each of this player's moves.
    board_log: Option<(&'a LogSink, usize)>,
    /// `-suspend`: stopped after its START and after each of its moves, continued when spoken to.
    suspend: bool,
}

fn failure_of(e: EngineError) -> Failure {
    match e {
        EngineError::Timeout { elapsed, said, .. } => Failure::Timeout { elapsed, said },
        EngineError::Crashed { status } => Failure::Crashed { status },
        EngineError::StartFailed { text } => Failure::StartFailed { text },
        EngineError::MemoryLimit { peak, limit } => Failure::MemoryLimit { peak, limit },
        other => Failure::Crashed {
            status: other.to_string(),
        },
    }
}

impl Player for SessionPlayer<'_> {
    async fn new_game(&mut self, size: BoardSize, rule: Rule) -> Result<(), Failure> {
        self.session
            .new_game(size, rule, self.startup)
            .await
            .map_err(|e| match e {
                EngineError::StartFailed { text } => Failure::StartFailed { text },
                other => Failure::StartFailed {
                    text: other.to_string(),
                },
            })?;
        // CPU before this point is start-up, not thinking.
        self.session.mark_started();
        if self.suspend {
            self.session.suspend();
        }
        Ok(())
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
            Request::Board { stones, own } => MoveRequest::position(&stones, own),
        };
        self.session
            .request_move(req, time_left, deadline.unwrap_or(NO_DEADLINE))
            .await
            .map_err(failure_of)
    }

    async fn swap_request(
        &mut self,
        stones: Vec<Pos>,
        time_left: Option<Duration>,
        deadline: Option<Duration>,
    ) -> Result<SwapReply, Failure> {
        self.session
            .swap2_request(&stones, time_left, deadline.unwrap_or(NO_DEADLINE))
            .await
            .map_err(failure_of)
    }

    fn take_messages(&mut self) -> Vec<String> {
        self.session.take_messages()
    }

    fn wants_board(&self) -> bool {
        self.session.nbest().is_some()
    }

    fn after_move(&mut self, board: &crate::core::board::Board) {
        if self.suspend {
            self.session.suspend();
        }
        if let Some((log, slot)) = self.board_log {
            for row in board.to_rows() {
                log.emit(slot, self.session.name(), Direction::Note, row);
            }
        }
    }
}

/// What a session's processes used in the game just played: CPU time (start-up apart from
/// thinking), and their peak memory.
fn engine_use(s: &mut EngineSession) -> EngineUse {
    let now = s.game_usage();
    EngineUse {
        cpu_ms: now.cpu.as_millis() as u64,
        startup_cpu_ms: now.startup_cpu.as_millis() as u64,
        peak_memory: s.take_peak_memory().max(now.memory),
        lines: s.take_line_counts(),
    }
}

/// A game as a slot played it.
struct SlotGame {
    outcome: GameOutcome,
    usage: GameUse,
    /// `-swap2`/`-swap1`: how the engines chose the opening.
    swap: Option<SwapRecord>,
    /// The position the moves started from (the opening's stones, then the swap's).
    opening: Vec<Pos>,
}

impl SlotGame {
    /// The engines of black and white as chosen: a swap opening may give the proposer (the
    /// engine scheduled black) white.
    fn colours(&self, p: &Pairing) -> (EngineId, EngineId) {
        match &self.swap {
            Some(s) if s.proposer == Color::White => (p.white, p.black),
            _ => (p.black, p.white),
        }
    }
}

/// The engine processes a slot keeps between games.
struct Engines {
    slot: usize,
    sessions: HashMap<EngineId, EngineSession>,
}

impl Engines {
    /// Keep only the engines of `p` (ending the others politely, and those with `restart=on`)
    /// and start the missing ones;
    /// in a `tune` run, give each its side's values (an engine whose command carries them is
    /// started again when they change). Returns the first engine that could not be started.
    async fn prepare(
        &mut self,
        shared: &Shared,
        p: &Pairing,
        tune: Option<&TuneEntry>,
    ) -> Option<Termination> {
        let tuned = |e: EngineId| {
            let (t, entry) = (shared.config.tune.as_ref()?, tune?);
            let values = if e.0 == 0 { &entry.plus } else { &entry.minus };
            let cmd = &shared.config.tournament.engines[e.0].cmd;
            Some(t.setup.engine_values(cmd, values))
        };
        let unneeded: Vec<EngineId> = self
            .sessions
            .iter()
            .filter(|(e, s)| {
                let other_cmd = tuned(**e).is_some_and(|(cmd, _)| cmd != s.spec().cmd);
                // restart=on: a fresh process for every game.
                (**e != p.black && **e != p.white) || other_cmd || s.spec().restart
            })
            .map(|(e, _)| *e)
            .collect();
        for e in unneeded {
            if let Some(s) = self.sessions.remove(&e) {
                s.shutdown().await;
            }
        }
        let mut failed = None;
        for (color, e) in [(Color::Black, p.black), (Color::White, p.white)] {
            let (cmd, infos) = tuned(e).unzip();
            if let Some(s) = self.sessions.get_mut(&e) {
                s.set_game_options(infos.unwrap_or_default());
                continue;
            }
            let mut spec = shared.config.tournament.engines[e.0].clone();
            if let Some(cmd) = cmd {
                spec.cmd = cmd;
            }
            if let Some(cpus) = shared.slot_cpus.get(self.slot) {
                spec.cpus = cpus.clone();
            }
            match EngineSession::spawn(&spec, self.slot, shared.log.clone()).await {
                Ok(mut s) => {
                    s.set_name(shared.names[e.0].clone());
                    s.set_game_options(infos.unwrap_or_default());
                    self.sessions.insert(e, s);
                }
                Err(err) => {
                    let failure = Failure::StartFailed {
                        text: err.to_string(),
                    };
                    failed.get_or_insert(failure.termination(color, None, true));
                }
            }
        }
        failed
    }

    /// Play `p` between the prepared sessions; a misbehaving engine is killed afterwards so its
    /// next game starts a fresh process.
    async fn play(
        &mut self,
        shared: &Shared,
        p: &Pairing,
        setup: &GameSetup,
    ) -> Result<SlotGame, Abandoned> {
        let (Some(mut b), Some(mut w)) = (
            self.sessions.remove(&p.black),
            self.sessions.remove(&p.white),
        ) else {
            return Err(Abandoned);
        };
        let board_log =
            (shared.config.outputs.log == LogLevel::Debug).then_some((&shared.log, self.slot));
        let startup = shared.config.tournament.startup_timeout;
        b.take_peak_memory();
        w.take_peak_memory();
        let result = {
            let suspend = shared.config.tournament.suspend;
            let mut bp = SessionPlayer {
                session: &mut b,
                startup,
                board_log,
                suspend,
            };
            let mut wp = SessionPlayer {
                session: &mut w,
                startup,
                board_log,
                suspend,
            };
            // Each game waits on a token of its own, a child of the one the run cancels: a
            // token's every poll locks its node, and one node shared by all slots was the most
            // contended lock at 16 slots on 16 cores (docs/design/BENCHMARKS.md §13).
            let game_cancel = shared.cancel_games.child_token();
            let cancel = &game_cancel;
            match shared.config.tournament.swap {
                None => play_game(setup, &mut bp, &mut wp, cancel)
                    .await
                    .map(|o| (o, None, setup.opening.clone())),
                // The engine scheduled black proposes.
                Some(rule) => play_swap_game(setup, rule, &mut bp, &mut wp, cancel)
                    .await
                    .map(|g| (g.outcome, Some(g.swap), g.opening)),
            }
        };
        // The session scheduled black played white when the swap gave the proposer white.
        let swapped = matches!(&result, Ok((_, Some(s), _)) if s.proposer == Color::White);
        // Read before a faulty engine is killed below.
        let (bu, wu) = (engine_use(&mut b), engine_use(&mut w));
        let usage = match swapped {
            false => GameUse {
                black: bu,
                white: wu,
            },
            true => GameUse {
                black: wu,
                white: bu,
            },
        };
        if let Ok((o, ..)) = &result {
            if let Some(c) = o.termination.faulty() {
                let culprit = if (c == Color::Black) != swapped {
                    &mut b
                } else {
                    &mut w
                };
                let why = o.termination.reason(setup.size);
                tracing::info!(
                    slot = self.slot + 1,
                    engine = %culprit.name(),
                    "restarting the engine before its next game: {why}"
                );
                culprit.kill(&why);
            }
        }
        self.sessions.insert(p.black, b);
        self.sessions.insert(p.white, w);
        result.map(|(outcome, swap, opening)| SlotGame {
            outcome,
            usage,
            swap,
            opening,
        })
    }

    /// End every engine; a second Ctrl-C drops the remaining shutdowns, and dropping a session
    /// kills its whole process group.
    async fn end(self, hard: &CancellationToken) {
        let mut set = tokio::task::JoinSet::new();
        for s in self.sessions.into_values() {
            set.spawn(s.shutdown());
        }
        tokio::select! {
            _ = async { while set.join_next().await.is_some() {} } => {}
            _ = hard.cancelled() => {}
        }
    }
}

/// Play one game: the record, or `Abandoned` when the run is being stopped.
async fn play_one(
    shared: &Shared,
    engines: &mut Engines,
    a: &Assignment,
) -> Result<GameRecord, Abandoned> {
    let p = &a.pairing;
    let (opening, opening_line, transform) = shared.opening_for(p);
    let setup = GameSetup {
        size: shared.config.game.size,
        rule: shared.config.game.rule,
        opening,
        draw_after: shared.config.game.draw_after,
        adjudication: shared.config.game.adjudication,
        send_by_board: shared.config.game.send_by_board,
        black_clock: shared.clock_of(p.black),
        white_clock: shared.clock_of(p.white),
    };
    let started = Utc::now();
    let (played, usage) = match engines.prepare(shared, p, a.tune.as_ref()).await {
        Some(termination) => {
            let played = SlotGame {
                outcome: GameOutcome {
                    termination,
                    moves: vec![],
                    messages: vec![],
                },
                usage: GameUse::default(),
                swap: None,
                opening: setup.opening.clone(),
            };
            (played, None)
        }
        None => {
            let played = engines.play(shared, p, &setup).await?;
            let usage = played.usage;
            (played, Some(usage))
        }
    };
    let (black, white) = played.colours(p);
    let engine = |e: EngineId| {
        (
            shared.names[e.0].clone(),
            shared.config.tournament.engines[e.0].cmd.clone(),
        )
    };
    let ((black_name, black_cmd), (white_name, white_cmd)) = (engine(black), engine(white));
    Ok(GameRecord {
        game: p.game,
        round: p.round,
        pair: p.pair,
        pair_game: p.pair_game,
        black,
        white,
        black_name,
        white_name,
        black_cmd,
        white_cmd,
        size: shared.config.game.size,
        rule: shared.config.game.rule,
        opening: played.opening,
        opening_line,
        transform,
        outcome: played.outcome,
        started,
        ended: Utc::now(),
        usage,
        swap: played.swap,
        tune: a.tune.clone(),
    })
}

/// One game slot: plays the games the dispatcher hands it, one after another.
async fn slot_task(slot: usize, shared: Arc<Shared>, desk: Arc<dyn GameDesk>, alive: Alive) {
    let mut engines = Engines {
        slot,
        sessions: HashMap::new(),
    };
    let mut finished = None;
    let mut first = true;
    let mut changes = desk.changes();
    loop {
        let a = match desk.next_game(finished.take()) {
            Next::Play(a) => a,
            Next::End => break,
            Next::Wait(seen) => {
                // The sender lives in the desk, which outlives every slot.
                if changes.wait_for(|&n| n != seen).await.is_err() {
                    break;
                }
                continue;
            }
        };
        // The game is taken before the pause, so that the last one ends the slot without one.
        if !std::mem::take(&mut first) && !pause(&shared).await {
            desk.abandoned(a.pairing.game);
            break;
        }
        match play_one(&shared, &mut engines, &a).await {
            Ok(record) => finished = Some(Box::new(record)),
            Err(Abandoned) => {
                desk.abandoned(a.pairing.game);
                break;
            }
        }
    }
    engines.end(&shared.hard).await;
    drop(alive);
}

/// `-wait`: the pause before a slot's next game; `false` when the run stops during it.
async fn pause(shared: &Shared) -> bool {
    let wait = shared.config.tournament.wait;
    if wait.is_zero() {
        return true;
    }
    tokio::select! {
        _ = tokio::time::sleep(wait) => true,
        _ = shared.cancel_games.cancelled() => false,
        _ = shared.stopping.cancelled() => false,
    }
}

/// Resolve each engine's display name: `name=` if given, else its ABOUT answer, else the program
/// name. Duplicate names get a `#2`, `#3` suffix so tables stay readable. Once `abort` fires
/// (Ctrl-C), no engine is asked any more and one being asked is killed: an engine that never
/// answers would otherwise hold the stop for the whole `-startuptimeout`.
pub async fn resolve_names(config: &Config, abort: &CancellationToken) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(config.tournament.engines.len());
    for spec in &config.tournament.engines {
        let mut spec = spec.clone();
        if let Some(t) = &config.tune {
            // One engine in two roles: asked once, with the values it starts from.
            if let Some(first) = names.first() {
                names.push(first.clone());
                continue;
            }
            spec.cmd = t.setup.engine_values(&spec.cmd, &t.setup.params.start()).0;
        }
        let name = match &spec.name {
            Some(n) => n.clone(),
            None if abort.is_cancelled() => spec.display_name(),
            None => match EngineSession::spawn(&spec, 0, LogSink::none()).await {
                Ok(mut s) => {
                    let got = tokio::select! {
                        about = s.about(config.tournament.startup_timeout) => about.ok(),
                        _ = abort.cancelled() => None,
                    };
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
    if config.tune.is_some() {
        // θ+ (engine 0) and θ− (engine 1).
        names[0].push('+');
        names[1].push('-');
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

#[cfg(test)]
mod tests {
    use super::worker_layout;

    #[test]
    fn unpinned_slots_take_the_workers_in_turn_pinned_ones_share_a_worker_per_set_of_cpus() {
        assert_eq!(worker_layout(5, 2, &[]), vec![vec![0, 2, 4], vec![1, 3]]);
        assert_eq!(worker_layout(1, 16, &[]), vec![vec![0]]);
        // A slot per CPU set: a worker each.
        assert_eq!(
            worker_layout(2, 2, &[vec![0, 1], vec![2, 3]]),
            vec![vec![0], vec![1]]
        );
        // More slots than CPUs (`-cpus 0-1 -concurrency 4`): one worker per CPU, whatever the
        // number of cores the runner counts.
        let turns = [vec![0], vec![1], vec![0], vec![1]];
        assert_eq!(worker_layout(4, 1, &turns), vec![vec![0, 2], vec![1, 3]]);
        // Every slot is played.
        assert_eq!(worker_layout(3, 4, &[vec![0]]), vec![vec![0], vec![1, 2]]);
    }
}
