//! Results of a run as its single owner (the dispatcher) keeps them: per-pair W/L/D, colour-swapped
//! game pairs (pentanomial), the tournament tally, and the SPRT verdict. Pure; fed one finished
//! game at a time, from a live run or from journal entries (the `sprt` command), so both print the
//! same numbers.

use std::collections::{BTreeMap, HashMap};

use thiserror::Error;

use crate::formats::journal::{Conflict, GameSummary, JournalHeader, Repeats, Seen};
use crate::game::termination::GameResult;
use crate::stats::ratings::{
    fit, render_parameters, render_table, FitSettings, Outcome, RatedGame, RatingList,
};
use crate::stats::{
    results_block, sprt_calculator, Counts, MatchSummary, PairTally, Score, Sprt, SprtCalculation,
    SprtCrossing, TournamentTally, Wld,
};

/// One finished game as statistics see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoredGame {
    /// Schedule number of the game (reported with an SPRT crossing).
    pub game: u64,
    /// Engine pair index.
    pub pair: usize,
    /// Index of the game within its pair across rounds; games `2m` and `2m+1` form a colour pair.
    pub pair_game: u64,
    /// Outcome from the pair's first engine's view.
    pub first: Score,
    /// Whether the pair's first engine moved first (played black): the rating list's model has
    /// a first mover's advantage.
    pub first_moved: bool,
}

#[derive(Debug, Clone, Default)]
struct PairState {
    /// Completed colour pairs (the W/L/D counts live in the tournament tally only).
    pairs: PairTally,
    /// First game of a colour pair waiting for its partner (games finish out of order).
    pending: HashMap<u64, (u64, Score)>,
}

/// Run results, owned by one task: counts per pair and for the tournament, and for a two-engine
/// run with an SPRT, where the test first decided.
#[derive(Debug, Clone)]
pub struct Tracker {
    names: Vec<String>,
    pairs: Vec<(usize, usize)>,
    paired: bool,
    state: Vec<PairState>,
    tally: TournamentTally,
    sprt: Option<Sprt>,
    crossing: Option<SprtCrossing>,
    games: u64,
    /// (first mover, second mover) → [first mover's wins, draws, losses]: the games as the
    /// rating fit reads them.
    by_mover: BTreeMap<(usize, usize), [u32; 3]>,
}

impl Tracker {
    /// `pairs` are engine indices (first, second) per pair index; `paired` when games are played in
    /// colour-swapped pairs (`-repeat`); `sprt` is watched when there is exactly one pair.
    pub fn new(
        names: Vec<String>,
        pairs: Vec<(usize, usize)>,
        paired: bool,
        sprt: Option<Sprt>,
    ) -> Self {
        let n = pairs.len();
        Tracker {
            tally: TournamentTally::new(names.clone()),
            names,
            sprt: sprt.filter(|_| n == 1),
            pairs,
            paired,
            state: vec![PairState::default(); n],
            crossing: None,
            games: 0,
            by_mover: BTreeMap::new(),
        }
    }

    /// An empty tracker of the run a journal header describes: its engines, the pairs its
    /// schedule makes, and whether games pair (`-repeat`).
    pub fn for_header(header: &JournalHeader, sprt: Option<Sprt>) -> Tracker {
        let s = &header.settings;
        let kind = if s.tournament == "gauntlet" {
            crate::schedule::TournamentKind::Gauntlet
        } else {
            crate::schedule::TournamentKind::RoundRobin
        };
        let n = s.engines.len().max(2);
        let pairs: Vec<(usize, usize)> = match &s.groups {
            Some(g) => g.pairs(),
            None => crate::schedule::Schedule::new(n, kind, 1, 1, crate::schedule::Repeat::Once)
                .pairs()
                .iter()
                .map(|(a, b)| (a.0, b.0))
                .collect(),
        };
        let mut names: Vec<String> = s.engines.iter().map(|e| e.name.clone()).collect();
        names.resize(n, String::new());
        Tracker::new(names, pairs, s.repeat, sprt)
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    /// Games recorded.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Where the SPRT first decided, if it has.
    pub fn crossing(&self) -> Option<SprtCrossing> {
        self.crossing
    }

    /// The run's decision as recorded elsewhere (a sharded run's stop marker: the deciding
    /// shard's view), which is the verdict whatever a replay of the journals finds.
    pub fn set_crossing(&mut self, c: SprtCrossing) {
        self.crossing = Some(c);
    }

    /// Record one finished game. Returns the SPRT crossing when this game made the test decide
    /// (once: later games never change the verdict).
    pub fn record(&mut self, g: ScoredGame) -> Option<SprtCrossing> {
        let st = self.state.get_mut(g.pair)?;
        let (a, b) = self.pairs[g.pair];
        if self.tally.record_game(a, b, g.first).is_err() {
            return None;
        }
        self.games += 1;
        let (mover, other, mover_score) = if g.first_moved {
            (a, b, g.first)
        } else {
            (b, a, g.first.flipped())
        };
        let counts = self.by_mover.entry((mover, other)).or_default();
        counts[match mover_score {
            Score::Win => 0,
            Score::Draw => 1,
            Score::Loss => 2,
        }] += 1;
        if self.paired {
            let key = g.pair_game / 2;
            match st.pending.remove(&key) {
                Some((other_index, other)) => {
                    let (x, y) = if other_index < g.pair_game {
                        (other, g.first)
                    } else {
                        (g.first, other)
                    };
                    st.pairs.add_pair(x, y);
                    let _ = self.tally.add_pair(a, b, x, y);
                }
                None => {
                    st.pending.insert(key, (g.pair_game, g.first));
                }
            }
        }
        let sprt = self.sprt?;
        if self.crossing.is_some() {
            return None;
        }
        let llr = self.llr(0, &sprt);
        let verdict = sprt.decide(llr)?;
        self.crossing = Some(SprtCrossing {
            verdict,
            llr,
            games: self.games,
            game: g.game,
        });
        self.crossing
    }

    /// Games of a pair, first engine's view.
    pub fn wld(&self, pair: usize) -> Wld {
        match self.pairs.get(pair) {
            Some(&(a, b)) => self.tally.head_to_head(a, b),
            None => Wld::default(),
        }
    }

    /// Completed colour pairs of a pair, when paired.
    pub fn pair_tally(&self, pair: usize) -> Option<PairTally> {
        if self.paired {
            self.state.get(pair).map(|s| s.pairs)
        } else {
            None
        }
    }

    /// The LLR of `sprt` for a pair over every game recorded: pentanomial when paired, trinomial
    /// otherwise.
    pub fn llr(&self, pair: usize, sprt: &Sprt) -> f64 {
        match self.pair_tally(pair) {
            Some(p) => sprt.llr_pentanomial(&p.pentanomial()),
            None => sprt.llr_trinomial(&self.wld(pair)),
        }
    }

    /// The counts the SPRT of a pair uses.
    pub fn counts(&self, pair: usize) -> Counts {
        match self.pair_tally(pair) {
            Some(p) => Counts::Ptnml(p.pentanomial()),
            None => Counts::Wld(self.wld(pair)),
        }
    }

    /// The fastchess-layout results block of a pair, with the SPRT's crossing once decided.
    pub fn results_block(&self, pair: usize, context: &str) -> String {
        let (a, b) = self.pairs.get(pair).copied().unwrap_or((0, 1));
        let summary = MatchSummary {
            first: &self.names[a],
            second: &self.names[b],
            context,
            wld: self.wld(pair),
            pairs: self.pair_tally(pair).filter(|p| p.pairs() > 0),
            sprt: self.sprt,
            crossing: self.crossing,
        };
        results_block(&summary)
    }

    pub fn tally(&self) -> &TournamentTally {
        &self.tally
    }

    /// Every game recorded as the rating fit reads it: the first mover first, in a fixed order
    /// (by engine pair) so the same games always give the same list.
    pub fn rated_games(&self) -> Vec<RatedGame> {
        let mut games = Vec::with_capacity(self.games as usize);
        for (&(mover, other), counts) in &self.by_mover {
            for (outcome, &n) in [Outcome::FirstWins, Outcome::Draw, Outcome::SecondWins]
                .into_iter()
                .zip(counts)
            {
                games.extend((0..n).map(|_| RatedGame {
                    first: mover as u32,
                    second: other as u32,
                    outcome,
                }));
            }
        }
        games
    }

    /// The rating list of a run of three engines or more (BayesElo's model, its defaults but the
    /// first mover's advantage and the draw Elo estimated from the games), with the likelihood
    /// of superiority when `los`; `None` for two engines (the results block says it all) or
    /// before any game.
    pub fn rating_list(&self, los: bool) -> Option<RatingList> {
        if self.names.len() < 3 || self.games == 0 {
            return None;
        }
        let settings = FitSettings {
            los,
            ..FitSettings::default()
        };
        fit(self.names.len(), &self.rated_games(), &settings).ok()
    }

    /// The rating list as the console prints it at the end of a run: BayesElo's table, then the
    /// model's two parameters.
    pub fn rating_block(&self) -> Option<String> {
        let list = self.rating_list(false)?;
        let fitted = list.players.iter().filter(|p| p.games > 0).count();
        Some(format!(
            "\nRatings (Bradley-Terry as BayesElo fits it; mean 0, 95% intervals):\n{}\n{}\n",
            render_table(&self.names, &list, 1),
            render_parameters(&list, &FitSettings::default(), self.games as usize, fitted),
        ))
    }
}

/// Journal entries that cannot be scored together.
#[derive(Debug, Error, PartialEq)]
pub enum TrackerError {
    /// Nothing to score.
    #[error("the journals hold no games")]
    Empty,
    /// One game number with two different results (journals of different runs?).
    #[error(transparent)]
    Conflict(#[from] Conflict),
    /// Entries (or headers) of several configurations.
    #[error(
        "the journals mix {0} different configurations (fingerprints); score one run at a time"
    )]
    MixedRuns(usize),
    /// The SPRT compares two engines.
    #[error("the journals hold {0} engine pairs; the SPRT compares two engines")]
    NotTwoEngines(usize),
    /// A journal without a header names an engine or a pair past what a schedule makes: the
    /// reader sizes its tables by the largest index, so it is refused rather than allocated.
    #[error("game {game}: {what} index {index} is past the largest a journal without a header may use ({max})")]
    IndexTooLarge {
        game: u64,
        what: &'static str,
        index: usize,
        max: usize,
    },
}

/// The largest engine index of a journal without a header: its crosstable is engines × engines
/// (64 MiB at 1,024).
pub const MAX_ENGINE_INDEX: usize = 1023;
/// The largest pair index of a journal without a header: a round robin of 1,024 engines has
/// 523,776 pairs.
pub const MAX_PAIR_INDEX: usize = (1 << 19) - 1;

/// Refuse an engine or pair index that would size a table past its bound.
fn check_indices(games: &[&GameSummary]) -> Result<(), TrackerError> {
    for e in games {
        for (what, index, max) in [
            ("black engine", e.black_engine, MAX_ENGINE_INDEX),
            ("white engine", e.white_engine, MAX_ENGINE_INDEX),
            ("pair", e.pair, MAX_PAIR_INDEX),
        ] {
            if index > max {
                return Err(TrackerError::IndexTooLarge {
                    game: e.game,
                    what,
                    index,
                    max,
                });
            }
        }
    }
    Ok(())
}

/// How a journal says its games pair, or how it was guessed for journals without a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairingOrigin {
    /// From the header's `repeat` setting.
    Header { paired: bool },
    /// No header (an older journal): paired when every complete colour pair shares its opening
    /// with colours reversed.
    Guessed { paired: bool },
}

impl PairingOrigin {
    pub fn paired(self) -> bool {
        match self {
            PairingOrigin::Header { paired } | PairingOrigin::Guessed { paired } => paired,
        }
    }
}

/// What [`from_journal`] and [`replay_stream`] rebuild: the tracker (with the SPRT's first crossing when `sprt` was
/// given) and how the pairing was known.
#[derive(Debug, Clone)]
pub struct Replay {
    pub tracker: Tracker,
    pub pairing: PairingOrigin,
}

/// Build a tracker from the entries of journals written before the header existed (journals with
/// a header go through [`replay_stream`]): engines and pairs from the entries, the pairing
/// guessed. Games in journal order (the order they finished) so an SPRT crossing is found at the
/// same game as in the run; repeats of the same game are dropped.
pub fn from_journal(entries: &[GameSummary], sprt: Option<Sprt>) -> Result<Replay, TrackerError> {
    if entries.is_empty() {
        return Err(TrackerError::Empty);
    }
    let fingerprints: std::collections::HashSet<&str> =
        entries.iter().map(|e| e.fingerprint.as_str()).collect();
    if fingerprints.len() > 1 {
        return Err(TrackerError::MixedRuns(fingerprints.len()));
    }
    let mut seen = Repeats::default();
    let mut games: Vec<&GameSummary> = Vec::with_capacity(entries.len());
    for e in entries {
        if seen.admit(e.game, e.result)? == Seen::First {
            games.push(e);
        }
    }
    check_indices(&games)?;
    let (names, pairs) = engines_and_pairs(&games);
    let pairing = PairingOrigin::Guessed {
        paired: guess_paired(&games),
    };
    let mut t = Tracker::new(names, pairs.clone(), pairing.paired(), sprt);
    for e in games {
        t.record(scored(e, &pairs));
    }
    Ok(Replay {
        tracker: t,
        pairing,
    })
}

/// Replay journals that have a header, streaming: the engines and pairs come from the header,
/// and only the game numbers and results seen are kept (memory independent of the games'
/// length, a few bytes per game). Games in the order given; repeats of a game are dropped.
pub fn replay_stream(
    header: &JournalHeader,
    entries: impl IntoIterator<Item = GameSummary>,
    sprt: Option<Sprt>,
) -> Result<Replay, TrackerError> {
    let s = &header.settings;
    let mut t = Tracker::for_header(header, sprt);
    let pairs = t.pairs().to_vec();
    let mut seen = Repeats::default();
    for e in entries {
        if e.fingerprint != header.fingerprint {
            return Err(TrackerError::MixedRuns(2));
        }
        if seen.admit(e.game, e.result)? == Seen::First {
            t.record(scored(&e, &pairs));
        }
    }
    if seen.is_empty() {
        return Err(TrackerError::Empty);
    }
    Ok(Replay {
        tracker: t,
        pairing: PairingOrigin::Header { paired: s.repeat },
    })
}

/// A journal entry as statistics see it; `pairs` are the engine pairs (first, second).
pub fn scored(e: &GameSummary, pairs: &[(usize, usize)]) -> ScoredGame {
    let first = pairs.get(e.pair).map_or(0, |p| p.0);
    let first_is_black = e.black_engine == first;
    let outcome = match (e.result, first_is_black) {
        (GameResult::Draw, _) => Score::Draw,
        (GameResult::BlackWins, true) | (GameResult::WhiteWins, false) => Score::Win,
        _ => Score::Loss,
    };
    ScoredGame {
        game: e.game,
        pair: e.pair,
        pair_game: e.pair_game,
        first: outcome,
        first_moved: first_is_black,
    }
}

/// The `sprt` command over a replayed run: the counts of its one engine pair, with the verdict of
/// the first crossing.
pub fn sprt_calculation(t: &Tracker, sprt: &Sprt) -> Result<SprtCalculation, TrackerError> {
    if t.pairs().len() != 1 {
        return Err(TrackerError::NotTwoEngines(t.pairs().len()));
    }
    Ok(sprt_calculator(t.counts(0), sprt).with_crossing(t.crossing()))
}

/// Engine names and pairs as the schedule made them (first = the lower engine index).
fn engines_and_pairs(games: &[&GameSummary]) -> (Vec<String>, Vec<(usize, usize)>) {
    let mut names: Vec<String> = Vec::new();
    let mut set_name = |i: usize, n: &str| {
        if names.len() <= i {
            names.resize(i + 1, String::new());
        }
        if names[i].is_empty() {
            names[i] = n.to_string();
        }
    };
    let mut pair_engines: std::collections::BTreeMap<usize, (usize, usize)> = Default::default();
    for e in games {
        set_name(e.black_engine, &e.black);
        set_name(e.white_engine, &e.white);
        let first = e.black_engine.min(e.white_engine);
        let second = e.black_engine.max(e.white_engine);
        pair_engines.insert(e.pair, (first, second));
    }
    for (i, n) in names.iter_mut().enumerate() {
        if n.is_empty() {
            *n = format!("engine {i}");
        }
    }
    let max_pair = pair_engines.keys().max().copied().unwrap_or(0);
    let pairs = (0..=max_pair)
        .map(|p| pair_engines.get(&p).copied().unwrap_or((0, 1)))
        .collect();
    (names, pairs)
}

/// For journals without a header: paired when every complete colour pair shares its opening
/// with colours reversed (what `-repeat` produces).
fn guess_paired(games: &[&GameSummary]) -> bool {
    let mut groups: HashMap<(usize, u64), Vec<&GameSummary>> = HashMap::new();
    for e in games {
        groups.entry((e.pair, e.pair_game / 2)).or_default().push(e);
    }
    let complete: Vec<&Vec<&GameSummary>> = groups.values().filter(|g| g.len() == 2).collect();
    !complete.is_empty()
        && complete.iter().all(|g| {
            g[0].opening == g[1].opening
                && g[0].black_engine == g[1].white_engine
                && g[0].white_engine == g[1].black_engine
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Pentanomial, SprtModel};

    /// A tracker of engines `a` and `b` in one pair.
    fn two(paired: bool, sprt: Option<Sprt>) -> Tracker {
        Tracker::new(vec!["a".into(), "b".into()], vec![(0, 1)], paired, sprt)
    }

    /// Game `game` of the first pair, `pair_game` within it, `first` from the first engine's view.
    fn scored(game: u64, pair_game: u64, first: Score) -> ScoredGame {
        ScoredGame {
            game,
            pair: 0,
            pair_game,
            first,
            first_moved: pair_game % 2 == 0,
        }
    }

    #[test]
    fn pairs_complete_out_of_order() {
        let mut t = two(true, None);
        t.record(scored(0, 1, Score::Win));
        assert_eq!(t.pair_tally(0).unwrap().pairs(), 0);
        t.record(scored(0, 3, Score::Draw));
        t.record(scored(0, 0, Score::Win));
        let p = t.pair_tally(0).unwrap();
        assert_eq!(p.pentanomial(), Pentanomial([0, 0, 0, 0, 1]));
        assert_eq!(t.wld(0), Wld::new(2, 0, 1));
        t.record(scored(0, 2, Score::Loss));
        // Loss + draw = half a point over the pair: LD.
        assert_eq!(
            t.pair_tally(0).unwrap().pentanomial(),
            Pentanomial([0, 1, 0, 0, 1])
        );
    }

    #[test]
    fn llr_uses_pentanomial_when_paired() {
        let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        let mut paired = two(true, Some(sprt));
        let mut single = two(false, Some(sprt));
        for i in 0..40 {
            let g = scored(0, i, if i % 4 == 3 { Score::Loss } else { Score::Win });
            paired.record(g);
            single.record(g);
        }
        let p = paired.pair_tally(0).unwrap().pentanomial();
        assert_eq!(paired.llr(0, &sprt), sprt.llr_pentanomial(&p));
        assert_eq!(single.llr(0, &sprt), sprt.llr_trinomial(&single.wld(0)));
        assert_ne!(paired.llr(0, &sprt), single.llr(0, &sprt));
        assert!(paired.results_block(0, "").contains("Ptnml(0-2)"));
        assert!(!single.results_block(0, "").contains("Ptnml(0-2)"));
    }

    #[test]
    fn the_first_crossing_is_kept_whatever_comes_after() {
        let sprt = Sprt::new(0.0, 20.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        let mut t = two(false, Some(sprt));
        let mut crossed = None;
        let mut n = 0;
        while crossed.is_none() {
            n += 1;
            let first = if n % 5 == 0 { Score::Loss } else { Score::Win };
            crossed = t.record(scored(100 + n, n, first));
            assert!(n < 1000, "no crossing");
        }
        let c = crossed.unwrap();
        assert_eq!(c.verdict, crate::stats::Verdict::H1);
        assert_eq!((c.games, c.game), (n, 100 + n));
        assert!(c.llr > sprt.bounds().1);
        // Losses in flight pull the LLR back inside the bounds: the verdict stays the crossing.
        for k in 1..=20 {
            let again = t.record(scored(5000 + k, n + k, Score::Loss));
            assert_eq!(again, None);
        }
        assert!(t.llr(0, &sprt) < sprt.bounds().1);
        assert_eq!(t.crossing(), Some(c));
        let block = t.results_block(0, "");
        assert!(block.contains(&format!("LLR: {:.2} (", c.llr)), "{block}");
        assert!(
            block.contains("with the 20 games counted after it"),
            "{block}"
        );
    }

    fn entry(game: u64, pair_game: u64, black_engine: usize, result: &str) -> GameSummary {
        let e = crate::formats::journal::JournalEntry::from_record(
            &crate::game::record::fixtures::sample_record(),
            "f",
        );
        let mut e = GameSummary::from(&e);
        e.game = game;
        e.pair = 0;
        e.pair_game = pair_game;
        e.black_engine = black_engine;
        e.white_engine = 1 - black_engine;
        e.result = result.parse().unwrap();
        e.opening = String::new();
        e
    }

    #[test]
    fn indices_past_a_schedule_are_refused_not_allocated() {
        // An old journal's engine or pair index sizes the reader's tables: near 2^63 it was a
        // "capacity overflow" panic, at 2^40 an allocation of terabytes.
        let mut e = entry(1, 0, 0, "1-0");
        e.black_engine = usize::MAX / 2;
        let err = from_journal(&[e], None).unwrap_err();
        assert!(matches!(
            err,
            TrackerError::IndexTooLarge {
                game: 1,
                what: "black engine",
                ..
            }
        ));
        assert!(
            err.to_string().starts_with("game 1: black engine index"),
            "{err}"
        );
        let mut e = entry(2, 0, 1, "0-1");
        e.pair = MAX_PAIR_INDEX + 1;
        let err = from_journal(&[e], None).unwrap_err().to_string();
        assert!(
            err.contains("pair index 524288") && err.contains("(524287)"),
            "{err}"
        );
        // At the bounds they are read.
        let mut e = entry(3, 0, 0, "1-0");
        e.white_engine = MAX_ENGINE_INDEX;
        assert!(from_journal(&[e], None).is_ok());
    }

    #[test]
    fn replay_follows_journal_order_and_the_header_says_how_games_pair() {
        let sprt = Sprt::new(0.0, 20.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        // A run without openings and without -repeat: consecutive games share the (empty)
        // opening with colours reversed, so a guess would read them as pairs.
        let entries: Vec<GameSummary> = (0..60)
            .map(|i| {
                entry(
                    i + 1,
                    i,
                    (i % 2) as usize,
                    if i % 2 == 0 { "1-0" } else { "0-1" },
                )
            })
            .collect();
        let guessed = from_journal(&entries, Some(sprt)).unwrap();
        assert_eq!(guessed.pairing, PairingOrigin::Guessed { paired: true });
        let mut header: JournalHeader = serde_json::from_str(HEADER_FIXTURE).unwrap();
        header.fingerprint = "f".into();
        let read = replay_stream(&header, entries.iter().cloned(), Some(sprt)).unwrap();
        assert_eq!(read.pairing, PairingOrigin::Header { paired: false });
        assert!(read.tracker.pair_tally(0).is_none());
        // The crossing is found at the same game whatever the numbers: journal order decides.
        let mut live = two(false, Some(sprt));
        let mut live_crossing = None;
        for e in entries.iter().rev() {
            let first = if e.result == GameResult::BlackWins {
                Score::Win
            } else {
                Score::Loss
            };
            let first = if e.black_engine == 0 {
                first
            } else {
                first.flipped()
            };
            let c = live.record(scored(e.game, e.pair_game, first));
            live_crossing = live_crossing.or(c);
        }
        let reversed: Vec<GameSummary> = entries.iter().rev().cloned().collect();
        let replay = replay_stream(&header, reversed, Some(sprt)).unwrap();
        assert!(live_crossing.is_some());
        assert_eq!(replay.tracker.crossing(), live_crossing);
    }

    /// The rating fit reads every game with its first mover first, whichever engine of the pair
    /// that was; two engines have no rating list (the results block says it all).
    #[test]
    fn rated_games_put_the_first_mover_first() {
        let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let mut t = Tracker::new(names, vec![(0, 1), (0, 2), (1, 2)], false, None);
        let game = |n: u64, pair: usize, first: Score, first_moved: bool| ScoredGame {
            game: n,
            pair,
            pair_game: n,
            first,
            first_moved,
        };
        // a beats b moving first and second; c draws a moving second; b loses to c moving first.
        t.record(game(1, 0, Score::Win, true));
        t.record(game(2, 0, Score::Win, false));
        t.record(game(3, 1, Score::Draw, true));
        t.record(game(4, 2, Score::Loss, true));
        let mut got: Vec<(u32, u32, Outcome)> = t
            .rated_games()
            .iter()
            .map(|g| (g.first, g.second, g.outcome))
            .collect();
        got.sort_by_key(|g| (g.0, g.1));
        assert_eq!(
            got,
            vec![
                (0, 1, Outcome::FirstWins),
                (0, 2, Outcome::Draw),
                (1, 0, Outcome::SecondWins),
                (1, 2, Outcome::SecondWins),
            ]
        );
        let list = t.rating_list(true).expect("three engines have a list");
        assert_eq!(list.ranking()[0], 0, "a won both its games");
        assert!(list.los.is_some());
        assert!(t.rating_block().unwrap().contains("Rank Name"));
        let mut two = Tracker::new(vec!["a".into(), "b".into()], vec![(0, 1)], false, None);
        two.record(game(1, 0, Score::Win, true));
        assert!(two.rating_list(false).is_none());
    }

    const HEADER_FIXTURE: &str = r#"{"type":"header","format":1,"program":"gomoku-cli test",
        "fingerprint":"f","started":"2026-11-21T12:00:00+00:00","command_line":[],
        "settings":{"engines":[],"rule":0,"size":15,"tournament":"round_robin","games":60,
        "rounds":1,"repeat":false,"total_games":60,"draw_after":0,"send_by_board":false,
        "openings":null,"seed":1}}"#;
}
