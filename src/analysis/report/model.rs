//! The report's data model: everything the page shows, computed from a run's journal header(s)
//! and its game entries in the order they finished. Pure: entries in, rows and series out; the
//! charts and the page are drawn from a [`Report`] only.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use thiserror::Error;

use crate::analysis::tracker::{scored, Tracker};
use crate::core::board::{Board, BoardSize, Color, Pos};
use crate::core::rules::{forbidden_points, Rule};
use crate::formats::journal::{
    Conflict, GameSummary, JournalEntry, JournalGame, JournalHeader, RebuildError, Repeats,
    SearchEntry, Seen,
};
use crate::game::termination::GameResult;
use crate::stats::{
    Counts, EloEstimate, Interval, MatchSummary, Sprt, SprtCrossing, StandingRow, Verdict, Wld,
};

/// Series longer than this are thinned evenly to this many points (the last one always kept):
/// a chart is under a thousand pixels wide, and a 100,000-game run must stay a small file.
pub const MAX_POINTS: usize = 2000;

/// The indices of a series of `n` values that are drawn: all of them up to [`MAX_POINTS`], else
/// every `k`-th and the last.
pub fn thin_indices(n: usize) -> impl Iterator<Item = usize> {
    let step = n.div_ceil(MAX_POINTS).max(1);
    let last = (n > 0 && (n - 1) % step != 0).then(|| n - 1);
    (0..n).step_by(step).chain(last)
}

/// Every `k`-th item so that at most [`MAX_POINTS`] + 1 remain, the last one always kept.
pub fn thin<T: Copy>(v: &[T]) -> Vec<T> {
    thin_indices(v.len()).map(|i| v[i]).collect()
}

/// Move numbers beyond this are pooled into the last one in the think-time statistics.
pub const MAX_MOVE_NUMBER: usize = 150;

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

/// A point of a per-game series: the games counted, and the value after them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Point {
    pub games: u64,
    pub value: f64,
}

/// The LLR after every game (thinned to at most [`MAX_POINTS`] points evenly spread, the last
/// game always among them), with the test's bounds and where it decided.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlrSeries {
    /// Games counted: the series has a value after each of them.
    pub games: u64,
    pub points: Vec<Point>,
    pub lower: f64,
    pub upper: f64,
    pub crossing: Option<SprtCrossing>,
}

/// The Elo estimate of one engine pair after each of its games, with the 95 % interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EloSeries {
    /// Engine indices: the estimate is `first`'s against `second`.
    pub first: usize,
    pub second: usize,
    /// Games of the pair counted, the estimate, its interval.
    pub points: Vec<(u64, Interval)>,
}

/// Think-time quantiles of one engine at one of its move numbers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MoveTimes {
    /// The engine's own move number in its games, 1-based.
    pub move_number: usize,
    pub samples: usize,
    pub p10: u64,
    pub p25: u64,
    pub median: u64,
    pub p75: u64,
    pub p90: u64,
}

/// How one engine spent its time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineTimes {
    pub engine: usize,
    pub moves: u64,
    pub total_ms: u64,
    /// CPU time of the engine's processes over the games that recorded it (`usage`), ms.
    pub cpu_ms: u64,
    /// Thinking time over those same games, ms (the denominator of CPU/thinking).
    pub cpu_think_ms: u64,
    /// Largest peak memory of its processes in any game, bytes.
    pub peak_memory: u64,
    pub median_ms: u64,
    pub max_ms: u64,
    pub by_move: Vec<MoveTimes>,
    /// Moves the engine gave a search report for.
    pub reported: u64,
    /// The engine's own time (its reports' `time_ms`) by move number, where it gave one.
    pub own_by_move: Vec<MoveTimes>,
    /// Its lines that were no answer (`ERROR`, `UNKNOWN`, `DEBUG`, ...) and those dropped over
    /// the cap a move, over the games that recorded them (`usage`).
    #[serde(skip_serializing_if = "crate::engine::LineCounts::is_empty")]
    pub lines: crate::engine::LineCounts,
}

/// How one engine's games ended, by termination code.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EngineTerminations {
    pub engine: usize,
    pub won: BTreeMap<&'static str, u64>,
    pub lost: BTreeMap<&'static str, u64>,
    pub drawn: BTreeMap<&'static str, u64>,
}

/// The outcome distribution of a two-engine run: game pairs (pentanomial) or games (W/D/L),
/// first engine's view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Distribution {
    pub title: String,
    pub labels: Vec<&'static str>,
    pub counts: Vec<u64>,
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
    pub tune: Option<crate::analysis::report::tune::TuneReport>,
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
    tune: Option<crate::analysis::report::tune::TuneBuilder>,
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
            tune: (header.settings.tune.as_ref())
                .map(crate::analysis::report::tune::TuneBuilder::new),
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
        let status = status_line(state, played, s.total_games, crossing);
        let standings = self.tracker.tally().standings();
        let crosstable = crosstable(&self.tracker, &standings);
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
            llr,
            elo: self.elo,
            distribution,
            times,
            terminations: self.terminations,
            games: self.games,
            size: s.size,
            rule: s.rule,
            openings: self.openings.finish(),
            tune: self
                .tune
                .map(crate::analysis::report::tune::TuneBuilder::finish),
        }
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

/// The `q`-quantile (nearest rank) of sorted values.
fn quantile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// Quantiles of the times of each move number that has some.
fn quantiles_by_move(by_move: Vec<Vec<u64>>) -> Vec<MoveTimes> {
    by_move
        .into_iter()
        .enumerate()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, mut v)| {
            v.sort_unstable();
            MoveTimes {
                move_number: k + 1,
                samples: v.len(),
                p10: quantile(&v, 0.10),
                p25: quantile(&v, 0.25),
                median: quantile(&v, 0.5),
                p75: quantile(&v, 0.75),
                p90: quantile(&v, 0.90),
            }
        })
        .collect()
}

fn engine_times(engine: usize, by_move: Vec<Vec<u64>>) -> EngineTimes {
    let mut all: Vec<u64> = by_move.iter().flatten().copied().collect();
    all.sort_unstable();
    let by_move = quantiles_by_move(by_move);
    EngineTimes {
        engine,
        moves: all.len() as u64,
        total_ms: all.iter().sum(),
        cpu_ms: 0,
        cpu_think_ms: 0,
        peak_memory: 0,
        median_ms: quantile(&all, 0.5),
        max_ms: all.last().copied().unwrap_or(0),
        by_move,
        reported: 0,
        own_by_move: Vec::new(),
        lines: Default::default(),
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
pub(crate) mod tests {
    use super::*;
    use crate::formats::journal::{EngineSettings, RunSettings, SprtSettings};
    use crate::game::record::fixtures::sample_record;
    use crate::game::termination::OTHER_TERMINATION;

    pub fn header(engines: &[&str], repeat: bool, sprt: bool, rule: u8) -> JournalHeader {
        JournalHeader {
            kind: "header".into(),
            format: 1,
            program: "gomoku-cli 0.0.0".into(),
            fingerprint: "f".into(),
            started: "2026-11-21T11:59:00+00:00".into(),
            command_line: vec!["-engine".into(), "cmd=./a".into()],
            settings: RunSettings {
                engines: engines
                    .iter()
                    .map(|n| EngineSettings {
                        name: n.to_string(),
                        cmd: format!("./{n}"),
                        tc: "10/1".into(),
                        depth: None,
                        nodes: None,
                        max_memory: 1 << 20,
                        threads: None,
                        options: vec![],
                    })
                    .collect(),
                rule,
                size: 15,
                tournament: "round_robin".into(),
                games: 2,
                rounds: 1,
                repeat,
                total_games: 8,
                draw_after: 0,
                send_by_board: false,
                openings: None,
                seed: 1,
                shard: None,
                swap: None,
                colours: None,
                adjudication: None,
                tune: None,
                sprt: sprt.then(|| SprtSettings {
                    elo0: 0.0,
                    elo1: 50.0,
                    alpha: 0.05,
                    beta: 0.05,
                    model: "normalized".into(),
                }),
            },
        }
    }

    /// Game `n` of pair 0 (engines 0 and 1): black = engine `black`, won by `winner` with
    /// `termination`.
    pub fn entry(n: u64, black: usize, result: &str, termination: &str) -> JournalEntry {
        let mut r = sample_record();
        r.game = crate::schedule::GameId(n);
        r.pair_game = n - 1;
        r.black = crate::schedule::EngineId(black);
        r.white = crate::schedule::EngineId(1 - black);
        let mut e = JournalEntry::from_record(&r, "f");
        e.result = result.parse().unwrap();
        e.termination = termination.into();
        e
    }

    fn build(h: &JournalHeader, entries: &[JournalEntry]) -> Report {
        let mut b = ReportBuilder::new(std::slice::from_ref(h)).unwrap();
        for e in entries {
            b.add(e).unwrap();
        }
        b.finish(RunState::Ended)
    }

    #[test]
    fn series_have_a_point_per_game_and_repeats_are_dropped() {
        let h = header(&["a", "b"], true, true, 0);
        let mut games: Vec<JournalEntry> = (1..=6)
            .map(|n| {
                entry(
                    n,
                    (n as usize + 1) % 2,
                    if n % 3 == 0 { "0-1" } else { "1-0" },
                    "five",
                )
            })
            .collect();
        games.push(games[2].clone());
        let r = build(&h, &games);
        assert_eq!(r.games.len(), 6);
        let llr = r.llr.as_ref().unwrap();
        assert_eq!(llr.points.len(), 6);
        assert_eq!(
            llr.points.iter().map(|p| p.games).collect::<Vec<_>>(),
            (1..=6).collect::<Vec<_>>()
        );
        assert!(llr.lower < 0.0 && llr.upper > 0.0);
        assert_eq!(r.elo.len(), 1);
        assert_eq!(r.elo[0].points.len(), 6);
        // The LLR after the last game is the one the results block prints.
        let block = r.results_block.as_ref().unwrap();
        assert!(
            block.contains(&format!("LLR: {:.2}", llr.points[5].value)),
            "{block}"
        );
        let d = r.distribution.as_ref().unwrap();
        assert_eq!(d.counts.iter().sum::<u64>(), 3, "three complete pairs");
        assert_eq!(r.status, "stopped early: 6 of 8 games");
    }

    #[test]
    fn the_same_game_with_two_results_is_refused() {
        let h = header(&["a", "b"], false, false, 0);
        let mut b = ReportBuilder::new(std::slice::from_ref(&h)).unwrap();
        b.add(&entry(1, 0, "1-0", "five")).unwrap();
        let err = b.add(&entry(1, 0, "0-1", "five")).unwrap_err();
        assert_eq!(
            err,
            ReportError::Conflict(Conflict {
                game: 1,
                first: GameResult::BlackWins,
                second: GameResult::WhiteWins,
            })
        );
        let mut bad = entry(2, 0, "1-0", "five");
        bad.moves = "h9zz".into();
        let err = b.add(&bad).unwrap_err().to_string();
        assert!(err.starts_with("game 2: moves \"h9zz\""), "{err}");
        let mut bad = entry(3, 0, "1-0", "five");
        bad.white_engine = 7;
        let err = b.add(&bad).unwrap_err().to_string();
        assert!(
            err.contains("white_engine \"7\": the run has 2 engines"),
            "{err}"
        );
        assert_eq!(ReportBuilder::new(&[]).err(), Some(ReportError::NoHeader));
    }

    #[test]
    fn totals_that_would_pass_u64_are_refused_naming_the_game_not_wrapped() {
        let h = header(&["a", "b"], false, false, 0);
        let mut b = ReportBuilder::new(std::slice::from_ref(&h)).unwrap();
        // Engine 0 (black) thinks 3, 23, 43 and 63 ms a game: 129 ms.
        let mut first = entry(1, 0, "1-0", "five");
        first.times_ms[0] = u64::MAX - 200;
        b.add(&first).unwrap();
        // Its total is u64::MAX - 71: another 132 ms pass u64.
        let err = b.add(&entry(2, 0, "1-0", "five")).unwrap_err().to_string();
        assert!(err.starts_with("game 2: times_ms"), "{err}");
        assert!(err.contains("passes 18446744073709551615"), "{err}");
        let use_of = |cpu_ms: u64| {
            let mut u = crate::game::record::GameUse::default();
            u.white.cpu_ms = cpu_ms;
            Some(u)
        };
        let mut cpu = entry(3, 0, "1-0", "five");
        cpu.times_ms = vec![0; cpu.times_ms.len()];
        cpu.usage = use_of(u64::MAX);
        b.add(&cpu).unwrap();
        let mut more = cpu.clone();
        more.game = 4;
        more.usage = use_of(1);
        let err = b.add(&more).unwrap_err().to_string();
        assert!(err.starts_with("game 4: usage"), "{err}");
        // The refused games were not counted, in part or whole.
        let r = b.finish(RunState::Ended);
        assert_eq!(r.games.len(), 2);
        assert_eq!(r.times[1].cpu_ms, u64::MAX);
        assert_eq!(r.times[0].total_ms, u64::MAX - 71);
    }

    #[test]
    fn times_are_counted_by_the_engines_own_move_number() {
        let h = header(&["a", "b"], false, false, 0);
        // sample_record: opening of 2 stones, black = engine 0 here, 7 moves of 3, 13, .. 63 ms:
        // black (engine 0) plays moves 0, 2, 4, 6; white (engine 1) plays 1, 3, 5.
        let r = build(
            &h,
            &[entry(1, 0, "1-0", "five"), entry(2, 1, "1-0", "five")],
        );
        let a = &r.times[0];
        assert_eq!(a.moves, 7);
        assert_eq!(a.by_move[0].samples, 2);
        // Engine 0's first moves: 3 ms (as black) and 13 ms (as white).
        assert_eq!((a.by_move[0].p10, a.by_move[0].p90), (3, 13));
        assert_eq!(a.by_move.len(), 4);
        assert_eq!(a.max_ms, 63);
        assert_eq!(r.times[1].moves, 7);
    }

    #[test]
    fn terminations_are_counted_for_the_winner_the_loser_and_both_drawers() {
        let h = header(&["a", "b"], false, false, 0);
        let r = build(
            &h,
            &[
                entry(1, 0, "0-1", "time_forfeit"),
                entry(2, 0, "1/2-1/2", "full_board"),
                entry(3, 1, "1-0", "something_new"),
            ],
        );
        let t = &r.terminations;
        assert_eq!(t[0].lost.get("time_forfeit"), Some(&1));
        assert_eq!(t[1].won.get("time_forfeit"), Some(&1));
        assert_eq!(t[0].drawn.get("full_board"), Some(&1));
        assert_eq!(t[1].drawn.get("full_board"), Some(&1));
        assert_eq!(t[1].won.get(OTHER_TERMINATION), Some(&1));
        assert_eq!(t[0].lost.get(OTHER_TERMINATION), Some(&1));
    }

    #[test]
    fn forbidden_points_are_listed_for_positions_with_black_to_move() {
        let size = BoardSize::new(15).unwrap();
        let p = |s| crate::core::board::parse_pos_sequence(s, size).unwrap();
        // Black g8 h8 (a two across) and i9 i10 (a two down), white far away: i8 makes two open
        // threes, a double three, once black is to move with 8 stones on the board.
        let opening = p("g8a1h8a3");
        let moves = p("i9a5i10a7o15");
        let f = forbidden_by_position(size, &opening, &moves);
        assert!(
            f.iter().all(|(k, _)| k % 2 == 0),
            "black to move only: {f:?}"
        );
        let at8 = &f.iter().find(|(k, _)| *k == 8).expect("position 8").1;
        assert!(at8.contains(&p("i8")[0]), "{at8:?}");
        let mut b = Board::new(size);
        for (i, s) in opening.iter().chain(&moves).take(8).enumerate() {
            b.put(*s, Color::of_ply(i));
        }
        let expected: Vec<Pos> = forbidden_points(&b, Rule::Renju)
            .into_iter()
            .map(|(q, _)| q)
            .collect();
        assert_eq!(at8, &expected);
    }

    #[test]
    fn a_report_of_three_engines_has_standings_and_a_crosstable_but_no_llr() {
        let h = header(&["a", "b", "c"], false, true, 0);
        let mut e = entry(1, 0, "1-0", "five");
        e.pair = 1;
        e.white_engine = 2;
        let r = build(&h, &[e]);
        assert!(r.llr.is_none() && r.results_block.is_none() && r.distribution.is_none());
        assert_eq!(r.standings.len(), 3);
        assert_eq!(r.crosstable.len(), 3);
        assert_eq!(r.crosstable[0][1], Some((1.0, 1)));
    }

    #[test]
    fn snapshot_of_a_small_report() {
        let h = header(&["scout", "random"], true, true, 4);
        let mut games = vec![
            entry(1, 0, "1-0", "five"),
            entry(2, 1, "1-0", "five"),
            entry(3, 0, "0-1", "forbidden"),
        ];
        games[2].forbidden_move = Some("j10".into());
        games[2].reason = "black played a forbidden double three at j10".into();
        let r = build(&h, &games);
        insta::assert_json_snapshot!("report_model_small", r);
    }

    #[test]
    fn reports_are_counted_per_engine_with_their_own_times() {
        use crate::game::record::fixtures::{sample_record, with_reports};
        let h = header(&["scout", "random"], false, false, 0);
        let mut r = with_reports(sample_record());
        r.black = crate::schedule::EngineId(0);
        r.white = crate::schedule::EngineId(1);
        let reported = JournalEntry::from_record(&r, "f");
        let report = build(&h, &[reported, entry(2, 0, "1-0", "five")]);
        // Game 1: scout (black) played moves 0, 2, 4, 6 and reported on 2, 4, 6 (own time
        // 510 ms each); random reported on 1, 3, 5 without a time. Game 2 has no reports.
        let scout = &report.times[0];
        let random = &report.times[1];
        assert_eq!((scout.moves, scout.reported), (8, 3));
        assert_eq!((random.moves, random.reported), (6, 3));
        let own: Vec<(usize, u64)> = (scout.own_by_move.iter())
            .map(|m| (m.move_number, m.median))
            .collect();
        assert_eq!(own, [(2, 510), (3, 510), (4, 510)]);
        assert!(random.own_by_move.is_empty());
        assert_eq!(report.games[0].search.len(), 7);
        assert!(report.games[0].search[0].is_none());
        assert!(report.games[1].search.is_empty());
    }
}
