//! The dispatcher: the single owner of a run's state. It hands out games, scores finished ones,
//! decides what each output receives and when the run stops. Pure and synchronous: it turns
//! events into actions, so every decision (SPRT stop, `-fatalerror`, `-loseonly`,
//! `-ratinginterval`) and what the console is told is unit-tested with synthetic events, without
//! engines or threads. The async shell in `runner/mod.rs` carries the actions out.

use crate::analysis::promotion::promotion_text;
use crate::analysis::tracker::{ScoredGame, Tracker};
use crate::core::board::Color;
use crate::game::record::GameRecord;
use crate::outputs::Records;
use crate::schedule::queue::GameQueue;
use crate::schedule::{EngineId, GameId, Pairing, Schedule, TournamentKind};
use crate::stats::{crosstable, standings_table, Score, Sprt, SprtCrossing, Verdict};
use crate::tournament::caps::{EngineCaps, Take};
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
    /// No game can start now (its engines are at their `slots=` caps): the slot that asked asks
    /// again after the next event that may free one (a game ends, a stop).
    Wait,
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
    pub white_first: Option<std::sync::Arc<crate::formats::openings::order::OpeningParity>>,
    /// `tune`: the tuning (engine 0 plays θ+, engine 1 θ−) and the run's seed.
    pub tune: Option<(TuneSetup, u64)>,
    /// The run writes a journal, so a stopped run can be completed with `-resume`.
    pub resumable: bool,
    /// `-tournament groups`: how many are promoted (said after the standings).
    pub promote: Option<usize>,
    /// Each engine's cap on the games it plays at once (`slots=`, `-ponder`); empty or all
    /// `None`: none.
    pub slots: Vec<Option<u32>>,
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
    /// `slots=` caps: games that wait for their engines (`None`: no engine has a cap).
    caps: Option<EngineCaps>,
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
    /// A knockout or a Swiss: the rounds, paired from the results (`staged.rs`); `queue` is
    /// unused then.
    plan: Option<crate::schedule::rounds::RoundPlan>,
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
        let caps = EngineCaps::new(settings.slots.clone());
        Dispatcher {
            settings,
            schedule,
            queue: games,
            caps,
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
            plan: None,
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
            Event::Abandoned(game) => {
                self.in_flight = self.in_flight.saturating_sub(1);
                if let Some(c) = &mut self.caps {
                    c.ended(game);
                }
                if let Some(plan) = &mut self.plan {
                    plan.abandoned(game);
                }
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
        if self.plan.is_some() {
            return self.next_staged();
        }
        let p = match self.take_game() {
            Take::Game(p) => p,
            Take::Wait => return vec![Action::Wait],
            Take::End => return vec![Action::NoMoreGames],
        };
        self.hand_out(p)
    }

    /// Hand game `p` to the slot that asked, with its `Started` line.
    fn hand_out(&mut self, mut p: Pairing) -> Vec<Action> {
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
            total: self.planned_games(),
            black: names[p.black.0].clone(),
            white: names[p.white.0].clone(),
        };
        let tune = self.tuner.as_mut().map(|t| t.assign(p.game.0));
        vec![
            Action::Console(started),
            Action::Play(Assignment { pairing: p, tune }),
        ]
    }

    /// The next game in order whose engines may play it now.
    fn take_game(&mut self) -> Take {
        if let Some(c) = &mut self.caps {
            return c.take(&mut self.queue, &self.schedule);
        }
        match self.queue.next().and_then(|g| self.schedule.pairing(g)) {
            Some(p) => Take::Game(p),
            None => Take::End,
        }
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
        if let Some(c) = &mut self.caps {
            c.ended(rec.game);
        }
        self.finished += 1;
        self.count_usage(&rec);
        // An adjudication (the table's column) with a loser is a resignation, without one a draw.
        if rec.outcome.termination.adjudicated() {
            match rec.outcome.result().winner() {
                Some(_) => self.adjudicated.0 += 1,
                None => self.adjudicated.1 += 1,
            }
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
            first_moved: first_color == Color::Black,
        });
        if let Some(plan) = &mut self.plan {
            plan.record(rec.game, first_score);
        }
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
            if let Some(plan) = &mut self.plan {
                plan.record(GameId(g.game), g.first);
            }
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
        let over = match &self.plan {
            Some(plan) => plan.is_over(),
            None => {
                let waiting = self.caps.as_ref().map_or(0, EngineCaps::waiting);
                self.queue.is_empty() && waiting == 0
            }
        };
        self.in_flight == 0 && (self.stop.is_some() || over)
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
            let ratings = self.tracker.rating_block().unwrap_or_default();
            let promotion = self.settings.promote.map_or(String::new(), |k| {
                // A shard has its own games only: the run's promotion is its report's.
                let complete =
                    !self.settings.sharded && self.queue.is_empty() && self.in_flight == 0;
                format!("\n{}", promotion_text(&self.tracker, k, complete))
            });
            format!(
                "{}\n{}{ratings}{promotion}",
                standings_table(t),
                crosstable(t)
            )
        };
        text.extend(self.format_text());
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

mod staged;
#[cfg(test)]
mod tests;
