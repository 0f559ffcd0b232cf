//! The dispatcher: the single owner of a run's state. It hands out games, scores finished ones,
//! decides what each output receives and when the run stops. Pure and synchronous: it turns
//! events into actions, so every decision (SPRT stop, `-fatalerror`, `-loseonly`,
//! `-ratinginterval`) and what the console is told is unit-tested with synthetic events, without
//! engines or threads. The async shell in `runner/mod.rs` carries the actions out.

use crate::analysis::tracker::{ScoredGame, Tracker};
use crate::core::board::Color;
use crate::game::record::GameRecord;
use crate::outputs::Records;
use crate::schedule::queue::GameQueue;
use crate::schedule::{EngineId, GameId, Pairing, Schedule, TournamentKind};
use crate::stats::{crosstable, standings_table, Score, Sprt, SprtCrossing, Verdict};
use crate::tune::entry::{TuneEntry, TuneStep};
use crate::tune::{TuneSetup, Tuner};

use crate::schedule::shard::StopMarker;
use crate::tournament::events::ConsoleEvent;
use crate::tournament::events::StopReason;

/// What happened, as the dispatcher hears it.
#[derive(Debug)]
pub enum Event {
    /// A slot is free and asks for its next game: answered by exactly one `Play` or `NoMoreGames`.
    Ready,
    /// A game ended and is scored.
    Finished(Box<GameRecord>),
    /// A game handed out will not finish: the run is being stopped (not scored, not written).
    Abandoned(GameId),
    /// Ctrl-C or SIGTERM.
    Interrupt,
    /// Games other shards of the run finished (a cluster-wide SPRT counts them).
    Remote(Vec<ScoredGame>),
    /// The run's stop marker (another shard's decision, or this shard's own once written): its
    /// crossing is the run's verdict, whatever this shard counted; start no new game.
    ShardsStopped(StopMarker),
    /// A write to the journal or a record file failed: start no new game, abandon the others.
    OutputFailed,
}

/// What the shell must do.
#[derive(Debug)]
pub enum Action {
    /// The slot that asked plays this game.
    Play(Assignment),
    /// The slot that asked ends.
    NoMoreGames,
    /// Tell the user (the console decides what `-quiet` hides).
    Console(ConsoleEvent),
    /// Append the game to the outputs.
    Save(Box<GameRecord>, Records),
    /// Abandon every game in flight now (`-fatalerror`).
    AbandonGames,
    /// Tell the other shards the SPRT decided (write the stop marker).
    StopShards(SprtCrossing),
    /// Rebuild the `-report` page (the final one is written after the last game anyway).
    RebuildReport,
    /// `tune`: rewrite the trajectory CSV, the tuned parameter file and its `INFO` lines with
    /// these texts.
    TuneSnapshot([String; 3]),
}

/// A game handed to a slot: the pairing, and in a `tune` run the values its engines are sent.
#[derive(Debug, Clone)]
pub struct Assignment {
    pub pairing: Pairing,
    pub tune: Option<TuneEntry>,
}

/// The settings the dispatcher decides by.
#[derive(Debug, Clone)]
pub struct DispatchSettings {
    pub names: Vec<String>,
    pub sprt: Option<Sprt>,
    /// Results block every this many games (0 = at the end only).
    pub rating_interval: u64,
    /// `-loseonly`: records only of games the first engine loses (gauntlet only).
    pub lose_only: bool,
    /// `-fatalerror`: stop at the first engine failure.
    pub stop_on_engine_failure: bool,
    /// The parenthesised header of the results block (time control, rule, board, openings).
    pub context: String,
    /// One shard of several: a decision is written for the others (`Action::StopShards`).
    pub sharded: bool,
    /// `-report`: the HTML report is rebuilt every `rating_interval` games.
    pub report: bool,
    /// c-gomoku-cli's colour rule with openings: which draws leave white to move, so the first
    /// engine of the pair plays white there (`None`: the first engine plays black).
    pub white_first: Option<std::sync::Arc<crate::formats::openings::OpeningParity>>,
    /// `tune`: the tuning (engine 0 plays θ+, engine 1 θ−) and the run's seed.
    pub tune: Option<(TuneSetup, u64)>,
    /// The run writes a journal, so a stopped run can be completed with `-resume`.
    pub resumable: bool,
}

/// How a run that the SPRT decided ends.
fn stop_of(v: Verdict) -> StopReason {
    match v {
        Verdict::H0 => StopReason::SprtH0,
        Verdict::H1 => StopReason::SprtH1,
    }
}

/// The run's state: which games are handed out, what finished, and whether to stop.
#[derive(Debug)]
pub struct Dispatcher {
    settings: DispatchSettings,
    schedule: Schedule,
    /// Games still to hand out, in order (computed as they are taken: no list of them).
    queue: GameQueue,
    in_flight: u64,
    finished: u64,
    stop: Option<StopReason>,
    /// Finished-game count at the last results block, so the final one is not printed twice.
    last_block_at: Option<u64>,
    tracker: Tracker,
    /// CPU, thinking time and peak memory of each engine over this process's games.
    usage: Vec<EngineTotals>,
    /// This process's games adjudicated on the engines' evaluations: (resignations, draws).
    adjudicated: (u64, u64),
    /// Engines already reported as not supporting `SWAP2BOARD` (said once per engine).
    swap_unsupported: std::collections::HashSet<EngineId>,
    /// The run's stop marker was taken in (a sharded run hears it again at every poll).
    marker_seen: bool,
    /// `tune`: θ and the iterations in flight.
    tuner: Option<Tuner>,
}

/// One engine's resource totals over the games of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EngineTotals {
    pub games: u64,
    /// CPU from `START`'s answer on (thinking, and pondering if it does).
    pub cpu_ms: u64,
    /// CPU of the start-ups (`START`/`RESTART`), apart.
    pub startup_cpu_ms: u64,
    /// Sum of its moves' think times (wall clock, from request to answer).
    pub think_ms: u64,
    pub peak_memory: u64,
}

/// The per-engine CPU block printed at the end: CPU over thinking time tells an engine that uses
/// more threads than `thread=` allows (ratio above 1) or ponders on the opponent's time.
pub fn usage_block(names: &[String], totals: &[EngineTotals]) -> Option<String> {
    if totals.iter().all(|t| t.games == 0) {
        return None;
    }
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let mut out = String::from(
        "Engine use (CPU: user + system of its processes after START; thinking: its moves' time; \
         CPU/thinking: - under 0.1 s of thinking, too little to measure):\n",
    );
    for (name, t) in names.iter().zip(totals).filter(|(_, t)| t.games > 0) {
        out.push_str(&format!(
            "  {}  CPU {:.2} s, thinking {:.2} s, CPU/thinking {}, start-up CPU {:.2} s, peak memory {} MiB\n",
            crate::stats::text::pad(name, width, true),
            t.cpu_ms as f64 / 1000.0,
            t.think_ms as f64 / 1000.0,
            crate::stats::text::cpu_ratio(t.cpu_ms, t.think_ms),
            t.startup_cpu_ms as f64 / 1000.0,
            t.peak_memory >> 20,
        ));
    }
    Some(out)
}

impl Dispatcher {
    /// A dispatcher for `games` (in the order they are handed out) of `schedule`, after the
    /// games already played (`prior`, in the order they finished: a resumed run). When those
    /// already decided the SPRT, no game is handed out.
    pub fn new(
        settings: DispatchSettings,
        schedule: Schedule,
        games: GameQueue,
        prior: &[ScoredGame],
    ) -> Self {
        let mut tracker = Tracker::new(
            settings.names.clone(),
            schedule.pairs().iter().map(|(a, b)| (a.0, b.0)).collect(),
            schedule.repeat() == crate::schedule::Repeat::Twice,
            settings.sprt,
        );
        let mut tuner = settings
            .tune
            .clone()
            .map(|(setup, seed)| Tuner::new(setup, seed));
        for g in prior {
            tracker.record(*g);
            if let Some(t) = &mut tuner {
                t.scored(g.game, g.first);
            }
        }
        let stop = tracker.crossing().map(|c| stop_of(c.verdict));
        Dispatcher {
            settings,
            schedule,
            queue: games,
            in_flight: 0,
            finished: prior.len() as u64,
            stop,
            last_block_at: None,
            usage: vec![EngineTotals::default(); tracker.names().len()],
            adjudicated: (0, 0),
            swap_unsupported: Default::default(),
            marker_seen: false,
            tracker,
            tuner,
        }
    }

    /// `-resume` of a `tune` run: the values the journal's games of an unfinished iteration were
    /// sent, so its other games get the same.
    pub fn resume_tune<'a>(&mut self, entries: impl IntoIterator<Item = &'a TuneEntry>) {
        if let Some(t) = &mut self.tuner {
            for e in entries {
                t.known(e);
            }
        }
    }

    pub fn tuner(&self) -> Option<&Tuner> {
        self.tuner.as_ref()
    }

    /// `tune`: game `game` scored from θ+'s view; when it completed its iteration, the step (for
    /// the game's journal line), and every `every` iterations θ on the console and in the files.
    fn tune_scored(&mut self, game: u64, plus: Score, out: &mut Vec<Action>) -> Option<TuneStep> {
        let t = self.tuner.as_mut()?;
        let step = t.scored(game, plus)?;
        if t.snapshot_due() {
            out.extend(self.tune_snapshot());
        }
        Some(step)
    }

    /// θ now: a console line and the files' texts.
    fn tune_snapshot(&self) -> Vec<Action> {
        let Some(t) = &self.tuner else {
            return vec![];
        };
        vec![
            Action::Console(ConsoleEvent::TuneProgress {
                completed: t.completed(),
                total: t.setup().settings.iterations,
                theta: t.theta_line(),
            }),
            Action::TuneSnapshot([
                t.csv(),
                t.setup().params.render(t.theta()),
                t.setup().params.info_lines(t.theta()),
            ]),
        ]
    }

    /// Add a game's resource use to its engines' totals.
    fn count_usage(&mut self, rec: &GameRecord) {
        let Some(u) = rec.usage else { return };
        let times = || rec.outcome.moves.iter().map(|m| m.time.as_millis() as u64);
        for (engine, eu, colour) in [
            (rec.black, u.black, Color::Black),
            (rec.white, u.white, Color::White),
        ] {
            let think = crate::game::record::think_ms(times(), rec.opening.len(), colour);
            if let Some(t) = self.usage.get_mut(engine.0) {
                t.games += 1;
                t.cpu_ms += eu.cpu_ms;
                t.startup_cpu_ms += eu.startup_cpu_ms;
                t.think_ms += think;
                t.peak_memory = t.peak_memory.max(eu.peak_memory);
            }
        }
    }

    /// Handle one event.
    pub fn on_event(&mut self, event: Event) -> Vec<Action> {
        match event {
            Event::Ready => self.next_game(),
            Event::Finished(record) => self.finished(record),
            Event::Abandoned(_) => {
                self.in_flight = self.in_flight.saturating_sub(1);
                vec![]
            }
            Event::Interrupt => {
                // A verdict or an engine failure already decided how the run ends.
                self.stop.get_or_insert(StopReason::Interrupted);
                vec![]
            }
            Event::Remote(games) => self.remote(games),
            Event::OutputFailed => {
                // Whatever else was deciding the end: the record is incomplete, so the run
                // stops as failed, and the games in flight cannot be written either.
                self.stop = Some(StopReason::OutputFailed);
                vec![
                    Action::Console(ConsoleEvent::OutputFailedStop {
                        resumable: self.settings.resumable,
                    }),
                    Action::AbandonGames,
                ]
            }
            Event::ShardsStopped(m) => self.shards_stopped(m),
        }
    }

    /// How the run ends so far (`Completed` until something stops it).
    pub fn stop_reason(&self) -> StopReason {
        self.stop.unwrap_or(StopReason::Completed)
    }

    pub fn finished_games(&self) -> u64 {
        self.finished
    }

    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    pub fn into_tracker(self) -> Tracker {
        self.tracker
    }

    fn two_engines(&self) -> bool {
        self.schedule.pairs().len() == 1
    }

    /// The next game and its `Started` line, or the end: once the run is stopping, no game
    /// starts, however many slots ask.
    fn next_game(&mut self) -> Vec<Action> {
        if self.stop.is_some() {
            return vec![Action::NoMoreGames];
        }
        let Some(mut p) = self.queue.next().and_then(|g| self.schedule.pairing(g)) else {
            return vec![Action::NoMoreGames];
        };
        // The pair's first engine moves first after the opening: white after an odd one.
        if let Some(parity) = &self.settings.white_first {
            if parity.white_to_move(p.opening_draw) {
                p = p.colours_swapped();
            }
        }
        self.in_flight += 1;
        let names = &self.settings.names;
        let started = ConsoleEvent::GameStarted {
            game: p.game,
            total: self.schedule.total_games(),
            black: names[p.black.0].clone(),
            white: names[p.white.0].clone(),
        };
        let tune = self.tuner.as_mut().map(|t| t.assign(p.game.0));
        vec![
            Action::Console(started),
            Action::Play(Assignment { pairing: p, tune }),
        ]
    }

    /// The first game in which an engine answered `SWAP2BOARD` with `UNKNOWN`/`ERROR`: say so
    /// once, since its games are then played without a swap.
    fn swap_unsupported(&mut self, rec: &GameRecord) -> Option<Action> {
        let swap = rec.swap.as_ref()?;
        let (role, answer) = swap.unsupported.as_ref()?;
        let engine = match swap.colour_of(*role) {
            Color::Black => rec.black,
            Color::White => rec.white,
        };
        if !self.swap_unsupported.insert(engine) {
            return None;
        }
        Some(Action::Console(ConsoleEvent::SwapUnsupported {
            engine: self.settings.names[engine.0].clone(),
            answer: answer.clone(),
            opening_stones: rec.opening.len(),
        }))
    }

    fn finished(&mut self, mut rec: Box<GameRecord>) -> Vec<Action> {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.finished += 1;
        self.count_usage(&rec);
        match rec.outcome.termination {
            crate::game::Termination::AdjudicatedResign { .. } => self.adjudicated.0 += 1,
            crate::game::Termination::AdjudicatedDraw { .. } => self.adjudicated.1 += 1,
            _ => {}
        }
        let mut out: Vec<Action> = self.swap_unsupported(&rec).into_iter().collect();
        let result = rec.outcome.result();
        let reason = rec.outcome.termination.reason(rec.size);
        out.push(Action::Console(ConsoleEvent::GameFinished {
            game: rec.game,
            black: rec.black_name.clone(),
            white: rec.white_name.clone(),
            result,
            reason: reason.clone(),
        }));
        let (first, second) = self.schedule.pairs()[rec.pair];
        let first_color = if rec.black == first {
            Color::Black
        } else {
            Color::White
        };
        let first_score = match result.half_points_for(first_color) {
            2 => Score::Win,
            0 => Score::Loss,
            _ => Score::Draw,
        };
        let crossing = self.tracker.record(ScoredGame {
            game: rec.game.0,
            pair: rec.pair,
            pair_game: rec.pair_game,
            first: first_score,
        });
        // A tuning's first engine plays θ+.
        let step = self.tune_scored(rec.game.0, first_score, &mut out);
        if let (Some(step), Some(entry)) = (step, rec.tune.as_mut()) {
            entry.done = Some(step);
        }
        let names = &self.settings.names;
        out.push(Action::Console(ConsoleEvent::Score {
            first: names[first.0].clone(),
            second: names[second.0].clone(),
            wld: self.tracker.wld(rec.pair),
        }));
        let fault = rec.outcome.termination.faulty().is_some();
        let game = rec.game;
        let records = self.records_for(&rec);
        out.push(Action::Save(rec, records));
        out.extend(crossing.into_iter().flat_map(|c| self.decided(c)));
        if fault && self.settings.stop_on_engine_failure && self.stop.is_none() {
            out.push(Action::Console(ConsoleEvent::EngineFailureStop {
                game,
                reason,
            }));
            self.stop = Some(StopReason::EngineFailure);
            out.push(Action::AbandonGames);
        }
        out.extend(self.interval_block());
        out.extend(self.report_refresh());
        out
    }

    /// A `-report` rebuild every `-ratinginterval` games (any number of engines), except after
    /// the last game, where the final report follows anyway.
    fn report_refresh(&self) -> Option<Action> {
        let n = self.settings.rating_interval;
        (self.settings.report && n > 0 && self.finished % n == 0 && !self.all_done())
            .then_some(Action::RebuildReport)
    }

    /// The SPRT crossed a bound (with this shard's game or another shard's): say so, stop, and
    /// tell the other shards. A shard says nothing yet: the run's verdict is the stop marker's,
    /// which may be another shard's that decided first; the shell writes or reads the marker and
    /// hands it back (`Event::ShardsStopped`), which prints it.
    fn decided(&mut self, c: SprtCrossing) -> Vec<Action> {
        let Some(sprt) = self.settings.sprt.filter(|_| self.stop.is_none()) else {
            // Already stopping (another shard's verdict, -fatalerror, Ctrl-C): nothing to add.
            return vec![];
        };
        if self.settings.sharded {
            self.stop = Some(stop_of(c.verdict));
            return vec![Action::StopShards(c)];
        }
        self.stop.get_or_insert(stop_of(c.verdict));
        vec![Action::Console(ConsoleEvent::SprtDecided {
            sprt,
            crossing: c,
        })]
    }

    /// The run's stop marker: its crossing replaces this shard's own (which saw the other shards
    /// late, so may have crossed elsewhere or not yet), and is what the shard prints, now and in
    /// its final results block. Once; not after Ctrl-C or `-fatalerror` ended the run.
    fn shards_stopped(&mut self, m: StopMarker) -> Vec<Action> {
        let sprt_or_running = matches!(
            self.stop,
            None | Some(StopReason::SprtH0) | Some(StopReason::SprtH1)
        );
        if self.marker_seen || !sprt_or_running {
            return vec![];
        }
        self.marker_seen = true;
        let c = m.crossing();
        self.tracker.set_crossing(c);
        // A results block printed before shows no verdict: the final one is due even when no
        // game finished since.
        self.last_block_at = None;
        self.stop = Some(stop_of(c.verdict));
        vec![Action::Console(ConsoleEvent::ShardVerdict {
            sprt: self.settings.sprt,
            crossing: c,
            shard: m.shard,
        })]
    }

    /// Games other shards finished (read from their journals): they count for the SPRT.
    fn remote(&mut self, games: Vec<ScoredGame>) -> Vec<Action> {
        let mut out = Vec::new();
        for g in games {
            if let Some(c) = self.tracker.record(g) {
                out.extend(self.decided(c));
            }
            self.tune_scored(g.game, g.first, &mut out);
        }
        out
    }

    /// `-loseonly` (gauntlet): every record only for games the first engine loses.
    fn records_for(&self, rec: &GameRecord) -> Records {
        let gauntlet = self.schedule.kind() == TournamentKind::Gauntlet;
        if !self.settings.lose_only || !gauntlet {
            return Records::All;
        }
        let first_color = if rec.black == EngineId(0) {
            Color::Black
        } else {
            Color::White
        };
        if rec.outcome.termination.loser() == Some(first_color) {
            Records::All
        } else {
            Records::JournalOnly
        }
    }

    /// Whether every game handed out has come back and no other will be.
    fn all_done(&self) -> bool {
        self.in_flight == 0 && (self.stop.is_some() || self.queue.is_empty())
    }

    /// The results block every `-ratinginterval` games, except after the last game, where the
    /// final report follows anyway.
    fn interval_block(&mut self) -> Option<Action> {
        let n = self.settings.rating_interval;
        if !self.two_engines() || n == 0 || self.finished % n != 0 || self.all_done() {
            return None;
        }
        // A shard that just decided waits for the stop marker's verdict before printing one.
        let decided = matches!(self.stop, Some(StopReason::SprtH0 | StopReason::SprtH1));
        if self.settings.sharded && decided && !self.marker_seen {
            return None;
        }
        let block = self.tracker.results_block(0, &self.settings.context);
        let follows_block = self.last_block_at.is_some();
        self.last_block_at = Some(self.finished);
        Some(Action::Console(ConsoleEvent::Results {
            block,
            follows_block,
        }))
    }

    /// The report at the end: the results block (two engines) or standings and crosstable,
    /// unless the same block was just printed.
    pub fn final_report(&mut self) -> Vec<Action> {
        let mut out: Vec<Action> = self.final_results().into_iter().collect();
        // A tuning's θ at the end, unless it was just shown.
        if !self.tuner.as_ref().is_some_and(Tuner::snapshot_due) {
            out.extend(self.tune_snapshot());
        }
        out
    }

    fn final_results(&mut self) -> Option<Action> {
        if self.finished == 0 || self.last_block_at == Some(self.finished) {
            return None;
        }
        self.last_block_at = Some(self.finished);
        let mut text = if self.two_engines() {
            self.tracker.results_block(0, &self.settings.context)
        } else {
            let t = self.tracker.tally();
            format!("{}\n{}", standings_table(t), crosstable(t))
        };
        if let Some(u) = usage_block(self.tracker.names(), &self.usage) {
            text.push_str(&u);
        }
        if let (resigned, drawn @ 1..) | (resigned @ 1.., drawn) = self.adjudicated {
            text.push_str(&format!(
                "Adjudicated on the engines' evaluations: {resigned} by resignation, {drawn} drawn \
                 (of the {} games this process played)\n",
                self.finished
            ));
        }
        Some(Action::Console(ConsoleEvent::FinalReport(text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::record::fixtures::sample_record;
    use crate::game::Termination;
    use crate::schedule::Repeat;
    use crate::stats::SprtModel;

    fn settings() -> DispatchSettings {
        DispatchSettings {
            names: vec!["first".into(), "second".into(), "third".into()],
            sprt: None,
            rating_interval: 0,
            lose_only: false,
            stop_on_engine_failure: false,
            context: String::new(),
            sharded: false,
            report: false,
            white_first: None,
            tune: None,
            resumable: true,
        }
    }

    fn dispatcher(s: DispatchSettings, engines: usize, games: u64) -> Dispatcher {
        let schedule = Schedule::new(engines, TournamentKind::RoundRobin, games, 1, Repeat::Once);
        let queue = GameQueue::new(&schedule, None, Default::default());
        Dispatcher::new(s, schedule, queue, &[])
    }

    /// [`dispatcher`] with [`settings`] changed by `change`.
    fn dispatcher_with(
        change: impl FnOnce(&mut DispatchSettings),
        engines: usize,
        games: u64,
    ) -> Dispatcher {
        let mut s = settings();
        change(&mut s);
        dispatcher(s, engines, games)
    }

    /// Take the next game, as a slot would; `None` when told to end.
    fn take(d: &mut Dispatcher) -> Option<Pairing> {
        take_with_told(d).0
    }

    /// The next game and what the console is told with it.
    fn take_with_told(d: &mut Dispatcher) -> (Option<Pairing>, Vec<ConsoleEvent>) {
        let actions = d.on_event(Event::Ready);
        let answers = actions
            .iter()
            .filter(|a| matches!(a, Action::Play(_) | Action::NoMoreGames))
            .count();
        assert_eq!(answers, 1, "{actions:?}");
        let events = told(&actions).into_iter().cloned().collect();
        let game = actions.into_iter().find_map(|a| match a {
            Action::Play(a) => Some(a.pairing),
            _ => None,
        });
        (game, events)
    }

    /// A finished record of pairing `p` in which `winner` (an engine index) won, or a draw.
    fn record(p: &Pairing, winner: Option<usize>, termination: Option<Termination>) -> Event {
        Event::Finished(game_record(p, winner, termination))
    }

    /// The record [`record`] sends.
    fn game_record(
        p: &Pairing,
        winner: Option<usize>,
        termination: Option<Termination>,
    ) -> Box<GameRecord> {
        let mut r = sample_record();
        r.game = p.game;
        r.pair = p.pair;
        r.pair_game = p.pair_game;
        r.black = p.black;
        r.white = p.white;
        r.outcome.termination = termination.unwrap_or(match winner {
            None => Termination::FullBoard,
            Some(w) => Termination::Five {
                winner: if p.black.0 == w {
                    Color::Black
                } else {
                    Color::White
                },
                line: vec![],
            },
        });
        Box::new(r)
    }

    fn told(actions: &[Action]) -> Vec<&ConsoleEvent> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Console(e) => Some(e),
                _ => None,
            })
            .collect()
    }

    /// The text of the final report (`None` when there is none).
    fn final_text(d: &mut Dispatcher) -> Option<String> {
        match d.final_report().as_slice() {
            [] => None,
            [Action::Console(ConsoleEvent::FinalReport(text))] => Some(text.clone()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_engine_without_swap2board_is_reported_once() {
        use crate::core::swap::{Role, SwapRecord, SwapRule};
        let mut d = dispatcher(settings(), 2, 3);
        let mut warnings = Vec::new();
        for _ in 0..3 {
            let p = take(&mut d).unwrap();
            let mut r = game_record(&p, Some(0), None);
            r.opening.clear();
            // The engine "second" answers UNKNOWN, whichever colour it was scheduled.
            let role = if p.white.0 == 1 {
                Role::Chooser
            } else {
                Role::Proposer
            };
            r.swap = Some(SwapRecord {
                unsupported: Some((role, "UNKNOWN no".into())),
                ..SwapRecord::unplayed(SwapRule::Swap2)
            });
            let actions = d.on_event(Event::Finished(r));
            let said = told(&actions).into_iter().cloned();
            warnings.extend(said.filter(|e| matches!(e, ConsoleEvent::SwapUnsupported { .. })));
        }
        assert_eq!(
            warnings,
            vec![ConsoleEvent::SwapUnsupported {
                engine: "second".into(),
                answer: "UNKNOWN no".into(),
                opening_stones: 0,
            }]
        );
    }

    #[test]
    fn games_are_handed_out_in_order_then_slots_end() {
        let mut d = dispatcher(settings(), 2, 3);
        let got: Vec<u64> = std::iter::from_fn(|| take(&mut d))
            .map(|p| p.game.0)
            .collect();
        assert_eq!(got, vec![1, 2, 3]);
        assert!(take(&mut d).is_none());
    }

    #[test]
    fn a_cap_of_2_pow_32_games_is_handed_out_without_a_list_of_them() {
        // An open-ended SPRT with a huge cap: the old queue listed every game number up front
        // (8 bytes each, 32 GiB here) before handing out the first.
        let mut d = dispatcher(settings(), 2, 1 << 32);
        let (first, events) = take_with_told(&mut d);
        assert_eq!(first.map(|p| p.game), Some(GameId(1)));
        assert_eq!(
            events,
            vec![ConsoleEvent::GameStarted {
                game: GameId(1),
                total: 1 << 32,
                black: "first".into(),
                white: "second".into(),
            }]
        );
        let next: Vec<u64> = std::iter::from_fn(|| take(&mut d))
            .take(3)
            .map(|p| p.game.0)
            .collect();
        assert_eq!(next, vec![2, 3, 4]);
    }

    #[test]
    fn sprt_stop_with_games_in_flight_keeps_the_crossing() {
        let sprt = Sprt::new(0.0, 20.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        let mut d = dispatcher_with(|s| s.sprt = Some(sprt), 2, 10_000);
        // Two slots: one game always in flight beside the one that finishes.
        let mut in_flight = take(&mut d).unwrap();
        let mut crossed_at = None;
        while crossed_at.is_none() {
            let p = take(&mut d).unwrap();
            // Mostly wins, a draw in four: the LLR climbs to the upper bound.
            let winner = (d.finished_games() % 4 != 3).then_some(0);
            let actions = d.on_event(record(&in_flight, winner, None));
            in_flight = p;
            if told(&actions)
                .iter()
                .any(|e| matches!(e, ConsoleEvent::SprtDecided { .. }))
            {
                crossed_at = Some(d.finished_games());
            }
        }
        let crossed_at = crossed_at.unwrap();
        assert_eq!(d.stop_reason(), StopReason::SprtH1);
        // No game starts after the decision, however many slots ask.
        for _ in 0..4 {
            assert!(take(&mut d).is_none());
        }
        let crossing = d.tracker().crossing().unwrap();
        assert_eq!(crossing.games, crossed_at);
        // The game in flight finishes as a loss and counts, but the verdict stays.
        let actions = d.on_event(record(&in_flight, Some(1), None));
        assert!(told(&actions)
            .iter()
            .all(|e| !matches!(e, ConsoleEvent::SprtDecided { .. })));
        assert_eq!(d.stop_reason(), StopReason::SprtH1);
        assert_eq!(d.finished_games(), crossed_at + 1);
        let text = final_text(&mut d).unwrap();
        assert!(
            text.contains(&format!("LLR: {:.2} (", crossing.llr)),
            "{text}"
        );
        assert!(text.contains("H1 accepted after"), "{text}");
        assert!(text.contains("with the 1 game counted after it"), "{text}");
    }

    #[test]
    fn fatalerror_with_several_slots_stops_starting_games() {
        let mut d = dispatcher_with(|s| s.stop_on_engine_failure = true, 2, 8);
        let slots: Vec<Pairing> = (0..3).map(|_| take(&mut d).unwrap()).collect();
        let crash = Termination::Crash {
            by: Color::White,
            status: "exit 3".into(),
        };
        let actions = d.on_event(record(&slots[1], None, Some(crash)));
        assert!(actions.iter().any(|a| matches!(a, Action::AbandonGames)));
        assert!(told(&actions).iter().any(|e| matches!(
            e,
            ConsoleEvent::EngineFailureStop { game: GameId(2), reason } if reason.contains("crash")
        )));
        assert_eq!(d.stop_reason(), StopReason::EngineFailure);
        assert!(take(&mut d).is_none());
        d.on_event(Event::Abandoned(slots[0].game));
        d.on_event(Event::Abandoned(slots[2].game));
        assert!(take(&mut d).is_none());
        assert_eq!(d.finished_games(), 1);
        // An interruption afterwards does not change why the run stopped.
        d.on_event(Event::Interrupt);
        assert_eq!(d.stop_reason(), StopReason::EngineFailure);
    }

    #[test]
    fn a_failed_write_stops_the_run_whatever_else_decided() {
        let mut d = dispatcher(settings(), 2, 8);
        let slots: Vec<Pairing> = (0..2).map(|_| take(&mut d).unwrap()).collect();
        d.on_event(record(&slots[0], None, None));
        let actions = d.on_event(Event::OutputFailed);
        assert!(actions.iter().any(|a| matches!(a, Action::AbandonGames)));
        let stop = ConsoleEvent::OutputFailedStop { resumable: true };
        assert!(told(&actions).contains(&&stop));

        assert_eq!(d.stop_reason(), StopReason::OutputFailed);
        assert!(take(&mut d).is_none(), "no new game starts");
        d.on_event(Event::Abandoned(slots[1].game));
        d.on_event(Event::Interrupt);
        assert_eq!(d.stop_reason(), StopReason::OutputFailed);
        assert_eq!(d.finished_games(), 1);
        // Without a journal (-journal off) there is nothing to resume: the advice says so.
        let mut journalless = dispatcher(
            DispatchSettings {
                resumable: false,
                ..settings()
            },
            2,
            8,
        );
        let _ = take(&mut journalless);
        let actions = journalless.on_event(Event::OutputFailed);
        let stop = ConsoleEvent::OutputFailedStop { resumable: false };
        assert!(told(&actions).contains(&&stop));
    }

    #[test]
    fn the_first_engine_moves_first_after_the_opening_as_in_c_gomoku_cli() {
        use crate::formats::openings::{OpeningBook, OpeningFormat, OpeningOrder, OpeningParity};
        // One stone (white to move), then two (black to move).
        let book = OpeningBook::parse_str(
            "h8\nh8 i9\n",
            "o.txt",
            OpeningFormat::Pos,
            crate::core::board::BoardSize::STANDARD,
            crate::core::rules::Rule::Freestyle,
        )
        .unwrap();
        let parity = OpeningParity::new(&book, OpeningOrder::Sequential, false);
        let schedule = Schedule::new(2, TournamentKind::RoundRobin, 4, 1, Repeat::Twice);
        let queue = GameQueue::new(&schedule, None, Default::default());
        let mut d = Dispatcher::new(
            DispatchSettings {
                white_first: Some(std::sync::Arc::new(parity)),
                ..settings()
            },
            schedule,
            queue,
            &[],
        );
        let games: Vec<Pairing> = (0..4).map(|_| take(&mut d).unwrap()).collect();
        let first_plays: Vec<Color> = games
            .iter()
            .map(|p| {
                assert_eq!(p.first, EngineId(0));
                if p.black == p.first {
                    Color::Black
                } else {
                    Color::White
                }
            })
            .collect();
        // Pair 1 (one stone): first engine white, then black; pair 2 (two stones): black, white.
        assert_eq!(
            first_plays,
            [Color::White, Color::Black, Color::Black, Color::White]
        );
        // Without the rule the first engine is black in the first game of every pair.
        let mut plain = dispatcher(settings(), 2, 4);
        assert_eq!(take(&mut plain).unwrap().black, EngineId(0));
    }

    #[test]
    fn results_blocks_say_whether_they_follow_another() {
        let two_names = |s: &mut DispatchSettings| {
            s.names = vec!["first".into(), "second".into()];
            s.rating_interval = 1;
        };
        let mut d = dispatcher_with(two_names, 2, 3);
        let mut blocks = Vec::new();
        while let Some(p) = take(&mut d) {
            let actions = d.on_event(record(&p, Some(0), None));
            blocks.extend(told(&actions).into_iter().filter_map(|e| match e {
                ConsoleEvent::Results {
                    block,
                    follows_block,
                } => Some((block.starts_with("Results of"), *follows_block)),
                _ => None,
            }));
        }
        assert_eq!(blocks, [(true, false), (true, true)]);
    }

    #[test]
    fn failures_without_fatalerror_go_on() {
        let mut d = dispatcher(settings(), 2, 2);
        let p = take(&mut d).unwrap();
        let crash = Termination::TimeForfeit {
            by: Color::Black,
            elapsed: std::time::Duration::from_secs(9),
            limit: std::time::Duration::from_secs(1),
            said: None,
        };
        let actions = d.on_event(record(&p, None, Some(crash)));
        assert!(!actions.iter().any(|a| matches!(a, Action::AbandonGames)));
        assert!(take(&mut d).is_some());
    }

    #[test]
    fn loseonly_keeps_other_records_for_the_first_engines_losses() {
        let schedule = Schedule::new(3, TournamentKind::Gauntlet, 2, 1, Repeat::Once);
        let total = schedule.total_games();
        let mut d = Dispatcher::new(
            DispatchSettings {
                lose_only: true,
                ..settings()
            },
            schedule.clone(),
            GameQueue::new(&schedule, None, Default::default()),
            &[],
        );
        let mut seen = Vec::new();
        while let Some(p) = take(&mut d) {
            let other = if p.black.0 == 0 { p.white.0 } else { p.black.0 };
            // Game by game: first engine wins, loses, draws.
            let winner = match p.game.0 % 3 {
                0 => Some(0),
                1 => Some(other),
                _ => None,
            };
            for a in d.on_event(record(&p, winner, None)) {
                if let Action::Save(r, records) = a {
                    seen.push((r.game.0, winner, records));
                }
            }
        }
        assert_eq!(seen.len() as u64, total, "every game reaches the journal");
        for (game, winner, records) in seen {
            let lost = winner.is_some_and(|w| w != 0);
            let want = if lost {
                Records::All
            } else {
                Records::JournalOnly
            };
            assert_eq!(records, want, "game {game}");
        }
    }

    #[test]
    fn loseonly_is_ignored_outside_a_gauntlet() {
        let mut d = dispatcher_with(|s| s.lose_only = true, 2, 1);
        let p = take(&mut d).unwrap();
        let saved = d.on_event(record(&p, Some(0), None));
        assert!(saved
            .iter()
            .any(|a| matches!(a, Action::Save(_, Records::All))));
    }

    fn play_all(d: &mut Dispatcher) -> Vec<ConsoleEvent> {
        let mut events = Vec::new();
        while let (Some(p), started) = take_with_told(d) {
            events.extend(started);
            let actions = d.on_event(record(&p, Some(0), None));
            events.extend(told(&actions).into_iter().cloned());
        }
        events.extend(told(&d.final_report()).into_iter().cloned());
        events
    }

    /// The text of a results block or the final report.
    fn report_text(e: &ConsoleEvent) -> Option<&str> {
        match e {
            ConsoleEvent::Results { block, .. } => Some(block),
            ConsoleEvent::FinalReport(text) => Some(text),
            _ => None,
        }
    }

    #[test]
    fn rating_interval_never_prints_the_final_block_twice() {
        for (games, interval, blocks) in [(10, 5, 2), (10, 10, 1), (7, 5, 2), (4, 0, 1), (3, 1, 3)]
        {
            let mut d = dispatcher_with(|s| s.rating_interval = interval, 2, games);
            let events = play_all(&mut d);
            let texts: Vec<&str> = events.iter().filter_map(report_text).collect();
            assert_eq!(texts.len(), blocks, "{games} games, interval {interval}");
            assert!(texts.iter().all(|t| t.starts_with("Results of")));
            assert!(matches!(events.last(), Some(ConsoleEvent::FinalReport(_))));
        }
    }

    #[test]
    fn report_rebuilds_come_every_interval_with_any_number_of_engines_but_not_after_the_last_game()
    {
        for (engines, games, interval, report, rebuilds) in [
            (3, 2, 2, true, vec![2, 4]),
            (2, 7, 3, true, vec![3, 6]),
            (2, 6, 3, true, vec![3]),
            (2, 6, 0, true, vec![]),
            (2, 6, 1, false, vec![]),
        ] {
            let with = |s: &mut DispatchSettings| {
                s.rating_interval = interval;
                s.report = report;
            };
            let mut d = dispatcher_with(with, engines, games);
            let mut seen = Vec::new();
            let mut finished = 0;
            while let Some(p) = take(&mut d) {
                finished += 1;
                let actions = d.on_event(record(&p, Some(0), None));
                if actions.iter().any(|a| matches!(a, Action::RebuildReport)) {
                    seen.push(finished);
                }
            }
            assert_eq!(
                seen, rebuilds,
                "{engines} engines, {games} games, interval {interval}"
            );
        }
    }

    #[test]
    fn the_final_report_counts_the_games_adjudicated() {
        let mut d = dispatcher(settings(), 2, 2);
        let mut silent = dispatcher(settings(), 2, 2);
        let mut n = 0;
        while let Some(p) = take(&mut d) {
            let mut rec = game_record(&p, Some(0), None);
            n += 1;
            if n == 1 {
                rec.outcome.termination = Termination::AdjudicatedResign {
                    by: Color::White,
                    moves: 3,
                    eval: crate::core::search::Eval::Score(-700),
                    score: Some(600),
                    opponent: None,
                };
            }
            d.on_event(Event::Finished(rec));
        }
        let report = final_text(&mut d).unwrap();
        assert!(
            report.contains("Adjudicated on the engines' evaluations: 1 by resignation, 0 drawn (of the 2 games this process played)"),
            "{report}"
        );
        while let Some(p) = take(&mut silent) {
            silent.on_event(record(&p, Some(0), None));
        }
        assert!(!final_text(&mut silent).unwrap().contains("Adjudicated"));
    }

    #[test]
    fn the_final_report_has_each_engines_cpu_over_thinking_time() {
        let mut d = dispatcher(settings(), 2, 2);
        while let Some(p) = take(&mut d) {
            let mut rec = game_record(&p, Some(0), None);
            // sample_record's moves: 3, 13, 23, .. 63 ms after a two-stone opening, black first:
            // black thinks 3+23+43+63 = 132 ms and white 13+33+53 = 99 ms.
            rec.usage = Some(crate::game::record::GameUse {
                black: crate::game::record::EngineUse {
                    cpu_ms: 198,
                    startup_cpu_ms: 1500,
                    peak_memory: 40 << 20,
                    ..Default::default()
                },
                white: crate::game::record::EngineUse {
                    cpu_ms: 66,
                    startup_cpu_ms: 10,
                    peak_memory: 8 << 20,
                    ..Default::default()
                },
            });
            d.on_event(Event::Finished(rec));
        }
        let report = final_text(&mut d).unwrap();
        // Each engine played black once and white once: 264 ms of CPU over 231 ms of thinking.
        // Start-up (a hash filled at START: 1.5 s a game) is shown apart, not in the ratio.
        assert!(
            report.contains(
                "CPU 0.26 s, thinking 0.23 s, CPU/thinking 1.14, start-up CPU 1.51 s, peak memory 40 MiB"
            ),
            "{report}"
        );
        // Under 0.1 s of thinking the ratio says nothing: `-`, for every engine alike.
        assert_eq!(crate::stats::text::cpu_ratio(0, 99), "-");
        assert_eq!(crate::stats::text::cpu_ratio(5, 0), "-");
        assert_eq!(crate::stats::text::cpu_ratio(0, 100), "0.00");
        let none = usage_block(&["a".into()], &[EngineTotals::default()]);
        assert_eq!(none, None);
    }

    #[test]
    fn a_name_longer_than_any_format_width_does_not_panic() {
        // An engine's ABOUT answer is cut to 64 characters, but `name=` comes from the command
        // line: `format!("{name:<width$}")` panicked above a width of 65535.
        let long = "n".repeat(70_000);
        let used = EngineTotals {
            games: 1,
            ..EngineTotals::default()
        };
        let block = usage_block(&[long.clone(), "b".into()], &[used, used]).unwrap();
        assert!(
            block.contains(&format!("  {long}  CPU")),
            "the long name stays whole"
        );
        assert!(block.contains(&format!("  b{}  CPU", " ".repeat(69_999))));
    }

    #[test]
    fn interrupted_run_does_not_repeat_the_last_interval_block() {
        let mut d = dispatcher_with(|s| s.rating_interval = 2, 2, 10);
        let a = take(&mut d).unwrap();
        let b = take(&mut d).unwrap();
        let c = take(&mut d).unwrap();
        d.on_event(record(&a, Some(0), None));
        let actions = d.on_event(record(&b, Some(0), None));
        assert_eq!(told(&actions).len(), 3, "Finished, Score, block");
        d.on_event(Event::Interrupt);
        d.on_event(Event::Abandoned(c.game));
        assert_eq!(final_text(&mut d), None);
        assert_eq!(d.stop_reason(), StopReason::Interrupted);
    }

    #[test]
    fn each_game_is_told_finished_and_scored_for_its_pair() {
        let mut d = dispatcher_with(|s| s.rating_interval = 2, 2, 4);
        let p = take(&mut d).unwrap();
        let actions = d.on_event(record(&p, Some(0), None));
        let (black, white) = (sample_record().black_name, sample_record().white_name);
        let reason = Termination::Five {
            winner: Color::Black,
            line: vec![],
        }
        .reason(sample_record().size);
        assert_eq!(
            told(&actions),
            [
                &ConsoleEvent::GameFinished {
                    game: GameId(1),
                    black,
                    white,
                    result: crate::game::GameResult::BlackWins,
                    reason,
                },
                &ConsoleEvent::Score {
                    first: "first".into(),
                    second: "second".into(),
                    wld: crate::stats::Wld::new(1, 0, 0),
                }
            ]
        );
        let p = take(&mut d).unwrap();
        let actions = d.on_event(record(&p, Some(0), None));
        let texts: Vec<&str> = told(&actions).into_iter().filter_map(report_text).collect();
        assert!(
            matches!(texts.as_slice(), [t] if t.starts_with("Results of")),
            "the interval block after game 2: {texts:?}"
        );
    }

    #[test]
    fn tournaments_end_with_standings_and_crosstable() {
        let mut d = dispatcher_with(|s| s.rating_interval = 1, 3, 1);
        let events = play_all(&mut d);
        let texts: Vec<&str> = events.iter().filter_map(report_text).collect();
        let [last] = texts.as_slice() else {
            panic!("{texts:?}")
        };
        assert!(!last.starts_with("Results of"), "{last}");
        assert!(last.contains("first") && last.contains("third"), "{last}");
    }

    fn shard_sprt() -> Sprt {
        Sprt::new(0.0, 20.0, 0.05, 0.05, SprtModel::Normalized).unwrap()
    }

    /// One shard of a 1000-game run with an SPRT, a results block every `interval` games.
    fn shard_dispatcher(interval: u64) -> Dispatcher {
        let settings = DispatchSettings {
            sprt: Some(shard_sprt()),
            sharded: true,
            rating_interval: interval,
            ..settings()
        };
        dispatcher(settings, 2, 1000)
    }

    /// Games another shard finished (even game numbers, say), mostly wins of the first engine:
    /// enough for the SPRT to accept H1.
    fn remote_wins() -> Vec<ScoredGame> {
        (1..=400)
            .map(|i| ScoredGame {
                game: 2 * i,
                pair: 0,
                pair_game: 2 * i - 1,
                first: if i % 4 == 0 { Score::Draw } else { Score::Win },
            })
            .collect()
    }

    #[test]
    fn other_shards_games_count_for_the_sprt_and_their_stop_is_obeyed() {
        let mut d = shard_dispatcher(0);
        let mine = take(&mut d).unwrap();
        let actions = d.on_event(Event::Remote(remote_wins()));
        assert!(
            actions
                .iter()
                .any(|a| matches!(a, Action::StopShards(c) if c.verdict == Verdict::H1)),
            "{actions:?}"
        );
        assert_eq!(d.stop_reason(), StopReason::SprtH1);
        assert!(
            take(&mut d).is_none(),
            "no game starts after the combined decision"
        );
        // The game in flight still finishes and counts as this shard's.
        d.on_event(record(&mine, Some(1), None));
        assert_eq!(d.finished_games(), 1);

        // A shard that hears of another shard's decision stops too, without writing a marker.
        let mut other = shard_dispatcher(0);
        let actions = other.on_event(Event::ShardsStopped(marker(Verdict::H0, 40, 52, "2/3")));
        assert!(actions.iter().all(|a| !matches!(a, Action::StopShards(_))));
        assert_eq!(other.stop_reason(), StopReason::SprtH0);
        assert!(take(&mut other).is_none());
    }

    fn marker(verdict: Verdict, games: u64, game: u64, shard: &str) -> StopMarker {
        StopMarker {
            verdict,
            llr: if verdict == Verdict::H1 { 2.97 } else { -2.97 },
            games,
            game,
            shard: shard.into(),
            written: "2026-11-24T10:00:00+00:00".into(),
        }
    }

    #[test]
    fn a_shard_reports_the_stop_markers_crossing_not_its_own() {
        let mut d = shard_dispatcher(1);
        let mine = take(&mut d).unwrap();
        let second = take(&mut d).unwrap();
        // This shard's view crosses: it asks for the marker and prints nothing of its own.
        let actions = d.on_event(Event::Remote(remote_wins()));
        let own = d.tracker().crossing().unwrap();
        assert!(matches!(actions.as_slice(), [Action::StopShards(c)] if *c == own));
        // Nor a results block with its own crossing while it waits for the marker.
        let finished = d.on_event(record(&mine, Some(1), None));
        assert!(told(&finished).iter().all(|e| report_text(e).is_none()));
        // Another shard's marker was there first, at another point: that is the verdict.
        let m = marker(Verdict::H1, own.games - 5, own.game + 9, "2/2");
        let actions = d.on_event(Event::ShardsStopped(m.clone()));
        let verdict = ConsoleEvent::ShardVerdict {
            sprt: Some(shard_sprt()),
            crossing: m.crossing(),
            shard: "2/2".into(),
        };
        assert_eq!(told(&actions), [&verdict]);
        // Heard again at the next poll: said once.
        assert!(d.on_event(Event::ShardsStopped(m.clone())).is_empty());
        d.on_event(record(&second, Some(1), None));
        let want = m.crossing().describe();
        let text = final_text(&mut d).unwrap();
        assert!(text.contains(&format!("SPRT: {want}")), "{text}");
        assert!(!text.contains(&own.describe()), "{text}");
        assert_eq!(d.stop_reason(), StopReason::SprtH1);
    }
    /// The assignment a slot gets next.
    fn assignment(d: &mut Dispatcher) -> Assignment {
        d.on_event(Event::Ready)
            .into_iter()
            .find_map(|a| match a {
                Action::Play(a) => Some(a),
                _ => None,
            })
            .expect("a game")
    }

    /// A tuned game's record: engine `winner` wins, the values as assigned.
    fn tuned_record(a: &Assignment, winner: usize) -> Event {
        let mut r = game_record(&a.pairing, Some(winner), None);
        r.tune = a.tune.clone();
        Event::Finished(r)
    }

    fn saved_tune(actions: &[Action]) -> Option<&TuneEntry> {
        actions.iter().find_map(|a| match a {
            Action::Save(r, _) => r.tune.as_ref(),
            _ => None,
        })
    }

    #[test]
    fn a_tuning_hands_out_values_and_steps_with_its_own_and_other_shards_iterations() {
        let params = crate::tune::params::Params::parse(
            "a, int, 50, 0, 100, 5, 0.002\n",
            std::path::Path::new("p.txt"),
        )
        .unwrap();
        let setup = TuneSetup {
            params,
            settings: crate::tune::spsa::SpsaSettings {
                iterations: 4,
                ..Default::default()
            },
            pairs: 1,
            every: 2,
        };
        let s = DispatchSettings {
            tune: Some((setup, 3)),
            ..settings()
        };
        // Shard 1 of 2: iterations 1 and 3 are its own, 2 and 4 the other shard's.
        let schedule =
            Schedule::new(2, TournamentKind::RoundRobin, 8, 1, Repeat::Twice).with_shard_unit(2);
        let shard = crate::schedule::shard::Shard { index: 1, count: 2 };
        let queue = GameQueue::new(&schedule, Some(shard), Default::default());
        let mut d = Dispatcher::new(s, schedule, queue, &[]);
        let (g1, g2) = (assignment(&mut d), assignment(&mut d));
        let (t1, t2) = (g1.tune.clone().unwrap(), g2.tune.clone().unwrap());
        assert_eq!((t1.iteration, t2.iteration), (1, 1));
        assert_eq!(t1, t2, "a pair's games are sent the same values");
        assert_ne!(t1.plus, t1.minus);
        // θ+ (engine 0) wins both: the second game completes the iteration and carries the step.
        let first = d.on_event(tuned_record(&g1, 0));
        assert_eq!(saved_tune(&first).unwrap().done, None);
        let second = d.on_event(tuned_record(&g2, 0));
        let step = saved_tune(&second).unwrap().done.clone().expect("the step");
        assert_eq!(step.score, 2);
        assert_eq!(step.theta, d.tuner().unwrap().theta());
        // Another shard's iteration 2 (games 3 and 4) steps θ here too, and every 2 iterations
        // θ is shown and written.
        let remote = |game, first| ScoredGame {
            game,
            pair: 0,
            pair_game: game - 1,
            first,
        };
        let actions = d.on_event(Event::Remote(vec![
            remote(3, Score::Win),
            remote(4, Score::Draw),
        ]));
        assert_eq!(d.tuner().unwrap().completed(), 2);
        assert!(
            told(&actions).iter().any(|e| matches!(
                e,
                ConsoleEvent::TuneProgress {
                    completed: 2,
                    total: 4,
                    ..
                }
            )),
            "{actions:?}"
        );
        assert!(actions.iter().any(|a| matches!(a, Action::TuneSnapshot(_))));
        // The next game handed out is game 5, iteration 3's, drawn from θ after both steps.
        let next = assignment(&mut d);
        let t = d.tuner().unwrap();
        let spsa = crate::tune::spsa::Spsa::new(&t.setup().params, t.setup().settings);
        let drawn = spsa.step(3, t.theta(), 3);
        let values = next.tune.unwrap();
        assert_eq!((next.pairing.game.0, values.iteration), (5, 3));
        assert_eq!((values.plus, values.minus), (drawn.plus, drawn.minus));
    }
}
