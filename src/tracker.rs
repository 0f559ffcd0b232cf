//! Results of a run as its single owner (the dispatcher) keeps them: per-pair W/L/D, colour-swapped
//! game pairs (pentanomial), the tournament tally, and the SPRT verdict. Pure; fed one finished
//! game at a time, from a live run or from journal entries (the `sprt` command), so both print the
//! same numbers.

use std::collections::HashMap;

use thiserror::Error;

use crate::record::journal::JournalEntry;
use crate::stats::{
    results_block, GameOutcome, MatchSummary, PairTally, Sprt, TournamentTally, Verdict, Wld,
};

/// One finished game as statistics see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoredGame {
    /// Engine pair index.
    pub pair: usize,
    /// Index of the game within its pair across rounds; games `2m` and `2m+1` form a colour pair.
    pub pair_game: u64,
    /// Outcome from the pair's first engine's view.
    pub first: GameOutcome,
}

#[derive(Debug, Clone, Default)]
struct PairState {
    wld: Wld,
    pairs: PairTally,
    /// First game of a colour pair waiting for its partner (games finish out of order).
    pending: HashMap<u64, (u64, GameOutcome)>,
}

/// Run results, owned by one task.
#[derive(Debug, Clone)]
pub struct Tracker {
    names: Vec<String>,
    pairs: Vec<(usize, usize)>,
    paired: bool,
    state: Vec<PairState>,
    tally: TournamentTally,
}

impl Tracker {
    /// `pairs` are engine indices (first, second) per pair index; `paired` when games are played in
    /// colour-swapped pairs (`-repeat`).
    pub fn new(names: Vec<String>, pairs: Vec<(usize, usize)>, paired: bool) -> Self {
        let n = pairs.len();
        Tracker {
            tally: TournamentTally::new(names.clone()),
            names,
            pairs,
            paired,
            state: vec![PairState::default(); n],
        }
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    /// Record one finished game.
    pub fn record(&mut self, g: ScoredGame) {
        let Some(st) = self.state.get_mut(g.pair) else {
            return;
        };
        let (a, b) = self.pairs[g.pair];
        st.wld.add(g.first);
        let _ = self.tally.record_game(a, b, g.first);
        if !self.paired {
            return;
        }
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

    /// Games of a pair, first engine's view.
    pub fn wld(&self, pair: usize) -> Wld {
        self.state.get(pair).map(|s| s.wld).unwrap_or_default()
    }

    /// Completed colour pairs of a pair, when paired.
    pub fn pair_tally(&self, pair: usize) -> Option<PairTally> {
        if self.paired {
            self.state.get(pair).map(|s| s.pairs)
        } else {
            None
        }
    }

    /// The LLR of `sprt` for a pair: pentanomial when paired, trinomial otherwise.
    pub fn llr(&self, pair: usize, sprt: &Sprt) -> f64 {
        match self.pair_tally(pair) {
            Some(p) => sprt.llr_pentanomial(&p.pentanomial()),
            None => sprt.llr_trinomial(&self.wld(pair)),
        }
    }

    /// The verdict of `sprt` for a pair, if decided.
    pub fn verdict(&self, pair: usize, sprt: &Sprt) -> Option<Verdict> {
        sprt.decide(self.llr(pair, sprt))
    }

    /// The fastchess-layout results block of a pair.
    pub fn results_block(&self, pair: usize, context: &str, sprt: Option<Sprt>) -> String {
        let (a, b) = self.pairs.get(pair).copied().unwrap_or((0, 1));
        let summary = MatchSummary {
            first: &self.names[a],
            second: &self.names[b],
            context,
            wld: self.wld(pair),
            pairs: self.pair_tally(pair).filter(|p| p.pairs() > 0),
            sprt,
        };
        results_block(&summary)
    }

    pub fn tally(&self) -> &TournamentTally {
        &self.tally
    }
}

/// Journal entries that cannot be scored together.
#[derive(Debug, Error, PartialEq)]
pub enum TrackerError {
    #[error("the journals hold no games")]
    Empty,
    #[error("game {game} is recorded twice with different results ({a} and {b})")]
    Conflict { game: u64, a: String, b: String },
    #[error("game {game}: unknown result {result:?}")]
    BadResult { game: u64, result: String },
    #[error(
        "the journals mix {0} different configurations (fingerprints); score one run at a time"
    )]
    MixedRuns(usize),
}

/// Build a tracker from journal entries (one run, possibly split over shard files): duplicates of
/// the same game are dropped; games pair up by `pair_game` when both games of every complete pair
/// share the opening with colours reversed (what `-repeat` produces).
pub fn from_journal(entries: &[JournalEntry]) -> Result<Tracker, TrackerError> {
    if entries.is_empty() {
        return Err(TrackerError::Empty);
    }
    let fingerprints: std::collections::HashSet<&str> =
        entries.iter().map(|e| e.fingerprint.as_str()).collect();
    if fingerprints.len() > 1 {
        return Err(TrackerError::MixedRuns(fingerprints.len()));
    }
    let mut by_game: std::collections::BTreeMap<u64, &JournalEntry> = Default::default();
    for e in entries {
        if let Some(prev) = by_game.insert(e.game, e) {
            if prev.result != e.result {
                return Err(TrackerError::Conflict {
                    game: e.game,
                    a: prev.result.clone(),
                    b: e.result.clone(),
                });
            }
        }
    }
    // Engines and pairs as the schedule made them: first = the lower engine index.
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
    for e in by_game.values() {
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
    let pairs: Vec<(usize, usize)> = (0..=max_pair)
        .map(|p| pair_engines.get(&p).copied().unwrap_or((0, 1)))
        .collect();
    // Paired when every complete colour pair shares its opening with colours reversed.
    let mut groups: HashMap<(usize, u64), Vec<&JournalEntry>> = HashMap::new();
    for e in by_game.values() {
        groups.entry((e.pair, e.pair_game / 2)).or_default().push(e);
    }
    let complete: Vec<&Vec<&JournalEntry>> = groups.values().filter(|g| g.len() == 2).collect();
    let paired = !complete.is_empty()
        && complete.iter().all(|g| {
            g[0].opening == g[1].opening
                && g[0].black_engine == g[1].white_engine
                && g[0].white_engine == g[1].black_engine
        });
    let mut t = Tracker::new(names, pairs.clone(), paired);
    for e in by_game.values() {
        let (first, _) = pairs[e.pair];
        let first_is_black = e.black_engine == first;
        let outcome = match (e.result.as_str(), first_is_black) {
            ("1-0", true) | ("0-1", false) => GameOutcome::Win,
            ("0-1", true) | ("1-0", false) => GameOutcome::Loss,
            ("1/2-1/2", _) => GameOutcome::Draw,
            _ => {
                return Err(TrackerError::BadResult {
                    game: e.game,
                    result: e.result.clone(),
                })
            }
        };
        t.record(ScoredGame {
            pair: e.pair,
            pair_game: e.pair_game,
            first: outcome,
        });
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Pentanomial, SprtModel};

    #[test]
    fn pairs_complete_out_of_order() {
        let mut t = Tracker::new(vec!["a".into(), "b".into()], vec![(0, 1)], true);
        t.record(ScoredGame {
            pair: 0,
            pair_game: 1,
            first: GameOutcome::Win,
        });
        assert_eq!(t.pair_tally(0).unwrap().pairs(), 0);
        t.record(ScoredGame {
            pair: 0,
            pair_game: 3,
            first: GameOutcome::Draw,
        });
        t.record(ScoredGame {
            pair: 0,
            pair_game: 0,
            first: GameOutcome::Win,
        });
        let p = t.pair_tally(0).unwrap();
        assert_eq!(p.pentanomial(), Pentanomial([0, 0, 0, 0, 1]));
        assert_eq!(t.wld(0), Wld::new(2, 0, 1));
        t.record(ScoredGame {
            pair: 0,
            pair_game: 2,
            first: GameOutcome::Loss,
        });
        // Loss + draw = half a point over the pair: LD.
        assert_eq!(
            t.pair_tally(0).unwrap().pentanomial(),
            Pentanomial([0, 1, 0, 0, 1])
        );
    }

    #[test]
    fn llr_uses_pentanomial_when_paired() {
        let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        let mut paired = Tracker::new(vec!["a".into(), "b".into()], vec![(0, 1)], true);
        let mut single = Tracker::new(vec!["a".into(), "b".into()], vec![(0, 1)], false);
        for i in 0..40 {
            let g = ScoredGame {
                pair: 0,
                pair_game: i,
                first: if i % 4 == 3 {
                    GameOutcome::Loss
                } else {
                    GameOutcome::Win
                },
            };
            paired.record(g);
            single.record(g);
        }
        let p = paired.pair_tally(0).unwrap().pentanomial();
        assert_eq!(paired.llr(0, &sprt), sprt.llr_pentanomial(&p));
        assert_eq!(single.llr(0, &sprt), sprt.llr_trinomial(&single.wld(0)));
        assert_ne!(paired.llr(0, &sprt), single.llr(0, &sprt));
        assert!(paired
            .results_block(0, "", Some(sprt))
            .contains("Ptnml(0-2)"));
        assert!(!single
            .results_block(0, "", Some(sprt))
            .contains("Ptnml(0-2)"));
    }
}
