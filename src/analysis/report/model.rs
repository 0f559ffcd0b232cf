//! The report's data model: everything the page shows, computed from a run's journal header(s)
//! and its game entries in the order they finished. Pure: entries in, rows and series out; the
//! charts and the page are drawn from a [`Report`] only.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use thiserror::Error;

use crate::analysis::report::figures::{
    engine_times, quantiles_by_move, thin_indices, Distribution, EloSeries, EngineTerminations,
    EngineTimes, LlrSeries, Point, MAX_MOVE_NUMBER,
};
use crate::analysis::report::ratings::{rating_section, RatingSection};
use crate::analysis::report::tune::{TuneBuilder, TuneReport};
use crate::analysis::tracker::{scored, Tracker};
use crate::core::board::{Board, BoardSize, Color, Pos};
use crate::core::rules::{forbidden_points, Rule};
use crate::formats::journal::{
    Conflict, GameSummary, JournalEntry, JournalGame, JournalHeader, RebuildError, Repeats,
    SearchEntry, Seen,
};
use crate::game::termination::GameResult;
use crate::stats::{
    Counts, EloEstimate, MatchSummary, Sprt, SprtCrossing, StandingRow, Verdict, Wld,
};

/// Why a report cannot be built.
#[derive(Debug, Error, PartialEq)]
pub enum ReportError {
    /// The journals have no header line (a version before headers wrote them): engines, rule and
    /// pairing would have to be guessed.
    #[error("the journal has no header line (written by an older version): the report needs the run's settings from it")]
    NoHeader,
    /// The journals belong to different runs.
    #[error("the journals belong to {0} different runs (their fingerprints differ): report one run at a time")]
    MixedRuns(usize),
    /// The header describes a board or rule this version cannot use.
    #[error("the journal header's {field} {value} cannot be used: {why}")]
    BadHeader {
        field: &'static str,
        value: String,
        why: String,
    },
    /// A game line whose field cannot be read.
    #[error("game {game}: {field} {value:?}: {why}")]
    BadGame {
        game: u64,
        field: &'static str,
        value: String,
        why: String,
    },
    /// The same game appears twice with different results.
    #[error(transparent)]
    Conflict(#[from] Conflict),
    /// The page template failed (a bug: the template ships with the program).
    #[error("cannot render the report page: {0}")]
    Render(String),
}

impl From<RebuildError> for ReportError {
    fn from(e: RebuildError) -> Self {
        match e {
            RebuildError::Field {
                game,
                field,
                value,
                why,
            } => ReportError::BadGame {
                game,
                field,
                value,
                why,
            },
            RebuildError::NoEnd { game } => ReportError::BadGame {
                game,
                field: "end",
                value: String::new(),
                why: e.to_string(),
            },
        }
    }
}

/// Whether the run is still going (a report rewritten by `-report` during the run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// Games are still being played: the figures are provisional.
    Running,
    /// The run is over (complete, stopped, or read afterwards from its journals).
    Ended,
}

/// One engine as the run used it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineInfo {
    pub name: String,
    pub cmd: String,
    pub tc: String,
    /// Depth, nodes, memory, threads and `option.*` settings, as `key=value` words.
    pub limits: Vec<String>,
}

/// The run as its header and games describe it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunInfo {
    pub program: String,
    pub command_line: String,
    pub engines: Vec<EngineInfo>,
    pub rule: String,
    pub size: u8,
    pub tournament: String,
    /// `file (format, order[, symmetries])`, when the run used an openings file.
    pub openings: Option<String>,
    pub seed: u64,
    pub repeat: bool,
    /// Games in the run's whole schedule.
    pub scheduled: u64,
    /// Games in the journals (each counted once).
    pub played: u64,
    /// The shards whose journals were read, `K/N`.
    pub shards: Vec<String>,
    pub started: String,
    /// When the last game ended.
    pub ended: Option<String>,
    /// The results block's header: time controls, rule, board, openings.
    pub context: String,
    /// The SPRT design, `elo0=.. elo1=.. alpha=.. beta=.. model`.
    pub sprt: Option<String>,
}

/// One finished game, as the list and the viewer show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameRow {
    pub game: u64,
    pub black: usize,
    pub white: usize,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// A code of [`crate::game::termination::TerminationKind::row`] or
    /// [`crate::game::termination::OTHER_TERMINATION`].
    pub termination: &'static str,
    pub reason: String,
    pub opening: Vec<Pos>,
    pub moves: Vec<Pos>,
    pub times_ms: Vec<u64>,
    /// The forbidden point black played to lose (never on the board).
    pub forbidden_move: Option<Pos>,
    /// Renju: the forbidden points of each position with black to move and any forbidden
    /// point, keyed by the stones on the board.
    pub forbidden: Vec<(usize, Vec<Pos>)>,
    pub messages: Vec<(Color, String)>,
    /// What the engines said about their search, one entry per played move; empty when no
    /// move has a report.
    pub search: Vec<Option<SearchEntry>>,
}

/// Everything the page shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub run: RunInfo,
    pub state: RunState,
    /// One line: complete, running, stopped by the SPRT, stopped early.
    pub status: String,
    pub engines: Vec<String>,
    /// The console's results block (two engines).
    pub results_block: Option<String>,
    pub verdict: Option<SprtCrossing>,
    pub standings: Vec<StandingRow>,
    /// Rows and columns in standings order: `(points, games)` of the row engine against the
    /// column engine; `None` on the diagonal and for pairings without games.
    pub crosstable: Vec<Vec<Option<(f64, u64)>>>,
    /// The rating list (three engines or more).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratings: Option<RatingSection>,
    /// `-tournament groups`: the league and its promotion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub league: Option<crate::analysis::report::league::LeagueReport>,
    pub llr: Option<LlrSeries>,
    pub elo: Vec<EloSeries>,
    pub distribution: Option<Distribution>,
    pub times: Vec<EngineTimes>,
    pub terminations: Vec<EngineTerminations>,
    pub games: Vec<GameRow>,
    pub size: u8,
    pub rule: u8,
    /// Per opening (`openings audit`'s figures; the page's table, not the model's JSON).
    #[serde(skip)]
    pub openings: crate::analysis::openings_audit::Audit,
    /// A `tune` run's trajectory (absent for a match, whose model stays as it was).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tune: Option<TuneReport>,
    /// A knockout's bracket or a Swiss's rounds and standings (absent for the other formats).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<crate::analysis::staged::FormatView>,
}

/// Builds a [`Report`] from journal entries fed in the order the games finished.
pub struct ReportBuilder {
    header: JournalHeader,
    shards: BTreeSet<String>,
    size: BoardSize,
    rule: Rule,
    tracker: Tracker,
    pairs: Vec<(usize, usize)>,
    sprt: Option<Sprt>,
    /// Game number → result, to drop repeats and catch conflicts.
    seen: Repeats,
    games: Vec<GameRow>,
    /// The SPRT's counts after each game: the LLR is computed at the end, for the games drawn
    /// only (an LLR is a root search, the counts are a copy).
    llr_counts: Vec<Counts>,
    elo: Vec<EloSeries>,
    /// Engine → its move number − 1 → think times.
    times: Vec<Vec<Vec<u64>>>,
    /// Engine → its move number − 1 → the engine's own times of its reports.
    own_times: Vec<Vec<Vec<u64>>>,
    /// Engine → moves with a search report.
    reported: Vec<u64>,
    /// Engine → (CPU ms, thinking ms of the same games, peak memory) from the games' `usage`.
    usage: Vec<(u64, u64, u64)>,
    /// Engine → its think time over every game (`times_ms`), kept to refuse a total past u64.
    think_total: Vec<u64>,
    /// Engine → its stray lines from the games' `usage`.
    lines: Vec<crate::engine::LineCounts>,
    terminations: Vec<EngineTerminations>,
    started: Option<String>,
    ended: Option<String>,
    openings: crate::analysis::openings_audit::Auditor,
    /// A `tune` run's θ, replayed from its steps.
    tune: Option<TuneBuilder>,
    /// A knockout's or a Swiss's rounds, paired again from the results as the run paired them.
    plan: Option<crate::schedule::rounds::RoundPlan>,
}

/// The engines' think time, `usage` figures and stray lines over the games read.
type Totals = (
    Vec<u64>,
    Vec<(u64, u64, u64)>,
    Vec<crate::engine::LineCounts>,
);

/// The field of a game line, the engine and its figure there that take a total past u64.
type TotalPassed = (&'static str, usize, String);

impl ReportBuilder {
    /// Start from the journals' headers (one per shard journal); they must describe one run.
    pub fn new(headers: &[JournalHeader]) -> Result<Self, ReportError> {
        let header = headers.first().ok_or(ReportError::NoHeader)?.clone();
        let runs: BTreeSet<&str> = headers.iter().map(|h| h.fingerprint.as_str()).collect();
        if runs.len() > 1 {
            return Err(ReportError::MixedRuns(runs.len()));
        }
        let s = &header.settings;
        let bad = |field, value: String, why: String| ReportError::BadHeader { field, value, why };
        let size = BoardSize::new(u32::from(s.size))
            .map_err(|e| bad("size", s.size.to_string(), e.to_string()))?;
        let rule = Rule::from_code(i64::from(s.rule))
            .map_err(|e| bad("rule", s.rule.to_string(), e.to_string()))?;
        let sprt = match &s.sprt {
            Some(x) => Some(x.sprt().map_err(|e| bad("sprt", x.model.clone(), e))?),
            None => None,
        };
        // The tracker `sprt` and `merge` replay with: same pairs, same crossing.
        let tracker = Tracker::for_header(&header, sprt);
        let pairs = tracker.pairs().to_vec();
        let n = tracker.names().len();
        Ok(ReportBuilder {
            shards: headers
                .iter()
                .filter_map(|h| h.settings.shard.map(|s| s.to_string()))
                .collect(),
            size,
            rule,
            sprt: sprt.filter(|_| pairs.len() == 1),
            elo: pairs
                .iter()
                .map(|&(first, second)| EloSeries {
                    first,
                    second,
                    points: Vec::new(),
                })
                .collect(),
            pairs,
            tracker,
            seen: Repeats::default(),
            games: Vec::new(),
            llr_counts: Vec::new(),
            times: vec![Vec::new(); n],
            own_times: vec![Vec::new(); n],
            reported: vec![0; n],
            usage: vec![(0, 0, 0); n],
            think_total: vec![0; n],
            lines: vec![Default::default(); n],
            terminations: (0..n)
                .map(|engine| EngineTerminations {
                    engine,
                    ..Default::default()
                })
                .collect(),
            started: None,
            ended: None,
            openings: Default::default(),
            tune: (header.settings.tune.as_ref()).map(TuneBuilder::new),
            plan: crate::analysis::staged::settings_of(&header.settings)
                .map(|s| crate::schedule::rounds::RoundPlan::new(s, None)),
            header,
        })
    }

    /// Add one game line. A repeat of a game already added is skipped; the same game with
    /// another result is an error.
    pub fn add(&mut self, e: &JournalEntry) -> Result<(), ReportError> {
        let bad = |field: &'static str, value: &str, why: String| ReportError::BadGame {
            game: e.game,
            field,
            value: value.to_string(),
            why,
        };
        if self.seen.admit(e.game, e.result)? == Seen::Repeat {
            return Ok(());
        }
        let n = self.times.len();
        for (field, engine) in [
            ("black_engine", e.black_engine),
            ("white_engine", e.white_engine),
        ] {
            if engine >= n {
                return Err(bad(
                    field,
                    &engine.to_string(),
                    format!("the run has {n} engines"),
                ));
            }
        }
        let g = JournalGame::try_from(e)?;
        // Figures read from a file are added up checked, before any of the game is counted: a
        // total that passed u64 would wrap and print as a small one.
        let (think_total, usage, lines) =
            self.totals_with(e, g.opening.len())
                .map_err(|(field, engine, value)| {
                    let name = self
                        .tracker
                        .names()
                        .get(engine)
                        .cloned()
                        .unwrap_or_default();
                    let why = format!("{name}'s total over the games read passes {}", u64::MAX);
                    bad(field, &value, why)
                })?;
        self.openings
            .add(&crate::analysis::openings_audit::AuditGame::of(&g))?;
        let JournalGame {
            opening,
            moves,
            forbidden: forbidden_move,
            termination,
            ..
        } = g;
        if e.pair >= self.pairs.len() {
            let why = format!("the run has {} engine pairs", self.pairs.len());
            return Err(bad("pair", &e.pair.to_string(), why));
        }
        let scored_game = scored(&GameSummary::from(e), &self.pairs);
        let result = e.result;
        self.tracker.record(scored_game);
        if let Some(plan) = &mut self.plan {
            plan.record(crate::schedule::GameId(e.game), scored_game.first);
        }
        self.series_after(e.pair);
        if let Some(t) = &mut self.tune {
            let iteration = e.tune.as_ref().map_or(0, |t| t.iteration);
            t.add(e.tune.as_ref())
                .map_err(|why| bad("tune", &iteration.to_string(), why))?;
        }
        self.count_times(e, opening.len());
        (self.think_total, self.usage, self.lines) = (think_total, usage, lines);
        self.count_termination(e.black_engine, e.white_engine, result, termination);
        let forbidden = if self.rule == Rule::Renju {
            forbidden_by_position(self.size, &opening, &moves)
        } else {
            Vec::new()
        };
        if self.started.as_ref().is_none_or(|s| e.started < *s) {
            self.started = Some(e.started.clone());
        }
        if self.ended.as_ref().is_none_or(|s| e.ended > *s) {
            self.ended = Some(e.ended.clone());
        }
        self.games.push(GameRow {
            game: e.game,
            black: e.black_engine,
            white: e.white_engine,
            result: result.as_str(),
            termination,
            reason: e.reason.clone(),
            opening,
            moves,
            times_ms: e.times_ms.clone(),
            forbidden_move,
            forbidden,
            messages: e.messages.clone(),
            search: e.search.clone(),
        });
        Ok(())
    }

    /// The run's verdict as recorded elsewhere (a sharded run's stop marker).
    pub fn set_crossing(&mut self, c: SprtCrossing) {
        self.tracker.set_crossing(c);
    }

    /// Points of the LLR and Elo series after a game of `pair`.
    fn series_after(&mut self, pair: usize) {
        if self.sprt.is_some() {
            self.llr_counts.push(self.tracker.counts(0));
        }
        let estimate = self.estimate(pair);
        if let Some(s) = self.elo.get_mut(pair) {
            s.points
                .push((self.tracker.wld(pair).games(), estimate.elo));
        }
    }

    /// The Elo figures of a pair as the results block prints them.
    fn estimate(&self, pair: usize) -> EloEstimate {
        let (a, b) = self.pairs[pair];
        MatchSummary {
            first: &self.tracker.names()[a],
            second: &self.tracker.names()[b],
            context: "",
            wld: self.tracker.wld(pair),
            pairs: self.tracker.pair_tally(pair).filter(|p| p.pairs() > 0),
            sprt: None,
            crossing: None,
        }
        .elo()
    }

    /// Each move's think time, and the engine's own time where it reported one, under the
    /// mover's move number.
    fn count_times(&mut self, e: &JournalEntry, opening: usize) {
        fn push(by_move: &mut Vec<Vec<u64>>, k: usize, ms: u64) {
            if by_move.len() <= k {
                by_move.resize_with(k + 1, Vec::new);
            }
            by_move[k].push(ms);
        }
        for (i, &ms) in e.times_ms.iter().enumerate() {
            let engine = match Color::of_ply(opening + i) {
                Color::Black => e.black_engine,
                Color::White => e.white_engine,
            };
            let k = (i / 2).min(MAX_MOVE_NUMBER - 1);
            push(&mut self.times[engine], k, ms);
            if let Some(Some(s)) = e.search.get(i) {
                self.reported[engine] += 1;
                if let Some(own) = s.ms {
                    push(&mut self.own_times[engine], k, own);
                }
            }
        }
    }

    /// The engines' think time, `usage` and stray lines with game `e` added (`opening` stones
    /// before its moves), or the field, engine and this game's figure that take a total past
    /// u64.
    fn totals_with(&self, e: &JournalEntry, opening: usize) -> Result<Totals, TotalPassed> {
        let (mut think_total, mut usage, mut lines) = (
            self.think_total.clone(),
            self.usage.clone(),
            self.lines.clone(),
        );
        for (engine, colour, eu) in [
            (e.black_engine, Color::Black, e.usage.map(|u| u.black)),
            (e.white_engine, Color::White, e.usage.map(|u| u.white)),
        ] {
            let own = (e.times_ms.iter().enumerate())
                .filter(|(i, _)| Color::of_ply(opening + i) == colour)
                .map(|(_, &ms)| ms);
            let passed = |field, value: String| (field, engine, value);
            let think = crate::core::numbers::total(own.clone()).ok_or_else(|| {
                let most = own.max().unwrap_or_default();
                passed("times_ms", format!("{most} ms"))
            })?;
            think_total[engine] = think_total[engine]
                .checked_add(think)
                .ok_or_else(|| passed("times_ms", format!("{think} ms")))?;
            let Some(eu) = eu else { continue };
            let acc = &mut usage[engine];
            let used = (acc.0.checked_add(eu.cpu_ms)).zip(acc.1.checked_add(think));
            (acc.0, acc.1) =
                used.ok_or_else(|| passed("usage", format!("cpu_ms {}", eu.cpu_ms)))?;
            acc.2 = acc.2.max(eu.peak_memory);
            lines[engine] = (lines[engine].checked_add(&eu.lines))
                .ok_or_else(|| passed("usage", format!("lines {:?}", eu.lines)))?;
        }
        Ok((think_total, usage, lines))
    }

    fn count_termination(
        &mut self,
        black: usize,
        white: usize,
        result: GameResult,
        code: &'static str,
    ) {
        let bump = |m: &mut BTreeMap<&'static str, u64>| *m.entry(code).or_default() += 1;
        let (winner, loser) = match result {
            GameResult::BlackWins => (black, white),
            GameResult::WhiteWins => (white, black),
            _ => {
                bump(&mut self.terminations[black].drawn);
                if white != black {
                    bump(&mut self.terminations[white].drawn);
                }
                return;
            }
        };
        bump(&mut self.terminations[winner].won);
        bump(&mut self.terminations[loser].lost);
    }

    /// The report, with the run's state (a live run's report says it is still running).
    pub fn finish(self, state: RunState) -> Report {
        let s = &self.header.settings;
        let played = self.games.len() as u64;
        let two = self.pairs.len() == 1;
        let crossing = self.tracker.crossing();
        let status = match &self.plan {
            Some(plan) => staged_status(state, played, plan),
            None => status_line(state, played, s.total_games, crossing),
        };
        let names = self.tracker.names().to_vec();
        let format = (self.plan.as_ref()).map(|p| crate::analysis::staged::view(p, &names));
        let standings = self.tracker.tally().standings();
        let crosstable = crosstable(&self.tracker, &standings);
        let ratings = rating_section(&self.tracker);
        let league = (s.groups.as_ref()).map(|g| {
            crate::analysis::report::league::league(g, &self.tracker, played >= s.total_games)
        });
        let distribution = two.then(|| distribution(&self.tracker));
        let results_block =
            (two && played > 0).then(|| self.tracker.results_block(0, &s.context()));
        let llr = self.sprt.map(|sprt| {
            let (lower, upper) = sprt.bounds();
            let points = thin_indices(self.llr_counts.len())
                .map(|i| Point {
                    games: i as u64 + 1,
                    value: match &self.llr_counts[i] {
                        Counts::Ptnml(p) => sprt.llr_pentanomial(p),
                        Counts::Wld(w) => sprt.llr_trinomial(w),
                    },
                })
                .collect();
            LlrSeries {
                games: self.llr_counts.len() as u64,
                points,
                lower,
                upper,
                crossing,
            }
        });
        let (usage, lines) = (self.usage, self.lines);
        let (reported, mut own) = (self.reported, self.own_times);
        let times = self
            .times
            .into_iter()
            .enumerate()
            .map(|(engine, by_move)| {
                let (cpu_ms, cpu_think_ms, peak_memory) = usage[engine];
                EngineTimes {
                    cpu_ms,
                    cpu_think_ms,
                    peak_memory,
                    reported: reported[engine],
                    own_by_move: quantiles_by_move(std::mem::take(&mut own[engine])),
                    lines: lines[engine],
                    ..engine_times(engine, by_move)
                }
            })
            .collect();
        Report {
            run: run_info(&self.header, &self.shards, played, self.started, self.ended),
            state,
            status,
            engines: self.tracker.names().to_vec(),
            results_block,
            verdict: crossing,
            standings,
            crosstable,
            ratings,
            league,
            llr,
            elo: self.elo,
            distribution,
            times,
            terminations: self.terminations,
            games: self.games,
            size: s.size,
            rule: s.rule,
            openings: self.openings.finish(),
            tune: self.tune.map(TuneBuilder::finish),
            format,
        }
    }
}

/// A knockout's or a Swiss's status: its end is its last round's, not a count of games.
fn staged_status(
    state: RunState,
    played: u64,
    plan: &crate::schedule::rounds::RoundPlan,
) -> String {
    let round = plan.rounds().len();
    match (state, plan.is_over() && plan.unpairable().is_none()) {
        (_, true) => format!("complete: {played} games"),
        (RunState::Running, false) => format!("running: round {round}, {played} games"),
        (RunState::Ended, false) => format!("stopped early: {played} games, in round {round}"),
    }
}

fn status_line(state: RunState, played: u64, total: u64, crossing: Option<SprtCrossing>) -> String {
    let of = format!("{played} of {total} games");
    match (state, crossing) {
        (_, Some(c)) => {
            let what = match c.verdict {
                Verdict::H1 => "H1 accepted",
                Verdict::H0 => "H0 accepted",
            };
            let tail = if state == RunState::Running {
                ", games in flight finishing"
            } else {
                ""
            };
            format!(
                "SPRT decided: {what} after {} games (at game {}, LLR {:.2}); {of}{tail}",
                c.games, c.game, c.llr
            )
        }
        (RunState::Running, None) => format!("running: {of}"),
        (RunState::Ended, None) if played >= total => format!("complete: {of}"),
        (RunState::Ended, None) => format!("stopped early: {of}"),
    }
}

fn run_info(
    h: &JournalHeader,
    shards: &BTreeSet<String>,
    played: u64,
    first_start: Option<String>,
    ended: Option<String>,
) -> RunInfo {
    let s = &h.settings;
    let engines = s
        .engines
        .iter()
        .map(|e| {
            let mut limits = Vec::new();
            if let Some(d) = e.depth {
                limits.push(format!("depth={d}"));
            }
            if let Some(n) = e.nodes {
                limits.push(format!("nodes={n}"));
            }
            limits.push(format!("maxmemory={}", e.max_memory));
            if let Some(t) = e.threads {
                limits.push(format!("threads={t}"));
            }
            limits.extend(e.options.iter().map(|(k, v)| format!("option.{k}={v}")));
            EngineInfo {
                name: e.name.clone(),
                cmd: e.cmd.clone(),
                tc: e.tc.clone(),
                limits,
            }
        })
        .collect();
    let rule = Rule::from_code(i64::from(s.rule)).map_or_else(
        |_| format!("rule {}", s.rule),
        |r| format!("{} (rule {})", r.name(), s.rule),
    );
    let openings = s.openings.as_ref().map(|o| {
        let mut how = vec![o.format.clone(), o.order.clone()];
        if o.transform {
            how.push("symmetries".into());
        }
        format!("{} ({})", o.file, how.join(", "))
    });
    RunInfo {
        program: h.program.clone(),
        command_line: h.command_line.join(" "),
        engines,
        rule,
        size: s.size,
        tournament: s.tournament.replace('_', " "),
        openings,
        seed: s.seed,
        repeat: s.repeat,
        scheduled: s.total_games,
        played,
        shards: shards.iter().cloned().collect(),
        started: first_start.map_or_else(|| h.started.clone(), |g| g.min(h.started.clone())),
        ended,
        context: s.context(),
        sprt: s.sprt.as_ref().map(|x| {
            format!(
                "elo0={} elo1={} alpha={} beta={} {}",
                x.elo0, x.elo1, x.alpha, x.beta, x.model
            )
        }),
    }
}

fn crosstable(t: &Tracker, standings: &[StandingRow]) -> Vec<Vec<Option<(f64, u64)>>> {
    let order: Vec<usize> = standings.iter().map(|r| r.engine).collect();
    order
        .iter()
        .map(|&i| {
            order
                .iter()
                .map(|&j| {
                    let w: Wld = t.tally().head_to_head(i, j);
                    (i != j && w.games() > 0).then(|| (w.points(), w.games()))
                })
                .collect()
        })
        .collect()
}

fn distribution(t: &Tracker) -> Distribution {
    let (a, b) = t.pairs()[0];
    let who = format!("{} vs {}", t.names()[a], t.names()[b]);
    match t.pair_tally(0) {
        Some(p) => Distribution {
            title: format!("Game pairs, {who} (pentanomial)"),
            labels: vec!["0", "0.5", "1", "1.5", "2"],
            counts: p.pentanomial().0.to_vec(),
        },
        None => {
            let w = t.wld(0);
            Distribution {
                title: format!("Games, {who}"),
                labels: vec!["loss", "draw", "win"],
                counts: vec![w.losses, w.draws, w.wins],
            }
        }
    }
}

/// Renju: the forbidden points of every position of a game with black to move, by stones on
/// the board (only positions that have some).
pub fn forbidden_by_position(
    size: BoardSize,
    opening: &[Pos],
    moves: &[Pos],
) -> Vec<(usize, Vec<Pos>)> {
    let mut board = Board::new(size);
    let mut out = Vec::new();
    let stones: Vec<Pos> = opening.iter().chain(moves).copied().collect();
    for k in 0..=stones.len() {
        if k > 0 {
            let p = stones[k - 1];
            if !board.put(p, Color::of_ply(k - 1)) {
                break;
            }
        }
        // Black to move, with at least the stones a forbidden shape needs.
        if k % 2 == 0 && k >= 6 {
            let points: Vec<Pos> = forbidden_points(&board, Rule::Renju)
                .into_iter()
                .map(|(p, _)| p)
                .collect();
            if !points.is_empty() {
                out.push((k, points));
            }
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests;
