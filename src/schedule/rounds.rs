//! Formats whose pairings follow from the results so far (knockout, Swiss): a round's games are
//! known only once the round before it is over. [`RoundPlan`] is fed every finished game (this
//! process's, a resumed journal's, the other shards') and answers which game to play next, to
//! wait for the round to end, or that the tournament is over. Pure and synchronous. The game
//! numbers, colours and openings of its games are `staged.rs`'s.

use std::collections::HashSet;

use crate::schedule::shard::Shard;
pub use crate::schedule::staged::{
    colours, pair_index, Board, Format, Results, Round, RoundsSettings, Table, Unpairable,
};
use crate::schedule::{knockout, swiss, GameId, Pairing};
use crate::stats::Score;

/// What a game slot is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    Play(Pairing),
    /// No game of this process can start before another game's result is in.
    Wait,
    /// The tournament is over (or this process has no more games in it).
    Done,
    /// The next round cannot be paired: the tournament ends here.
    Unpairable(Unpairable),
}

/// A results-dependent tournament's state: the rounds paired so far and the results heard.
#[derive(Debug, Clone)]
pub struct RoundPlan {
    settings: RoundsSettings,
    shard: Option<Shard>,
    results: Results,
    rounds: Vec<Round>,
    /// This process's games handed out and not handed back.
    handed: HashSet<u64>,
    /// Set once the last round is over, or a round could not be paired.
    end: Option<Result<(), Unpairable>>,
}

impl RoundPlan {
    /// The plan before any game: round 1 paired. `settings` are checked by `config` (two engines
    /// or more, a Swiss's rounds within [`swiss::max_rounds`], the span within `u64`).
    pub fn new(settings: RoundsSettings, shard: Option<Shard>) -> RoundPlan {
        let first = match settings.format {
            Format::Knockout { seeds, seed } => {
                knockout::first_round(&knockout::seeding(settings.engines, seeds, seed))
            }
            Format::Swiss { .. } => swiss::pair_round(&settings, &[], &Results::default())
                .expect("a first round always pairs"),
        };
        RoundPlan {
            settings,
            shard,
            results: Results::default(),
            rounds: vec![first],
            handed: HashSet::new(),
            end: None,
        }
    }

    pub fn settings(&self) -> &RoundsSettings {
        &self.settings
    }

    /// The rounds paired so far.
    pub fn rounds(&self) -> &[Round] {
        &self.rounds
    }

    pub fn results(&self) -> &Results {
        &self.results
    }

    /// Why the tournament ended early, if a round could not be paired.
    pub fn unpairable(&self) -> Option<&Unpairable> {
        self.end.as_ref().and_then(|e| e.as_ref().err())
    }

    /// Whether the last round is over.
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// A finished game, from its pair's first engine's view (any process's: this one's, the
    /// journal's on resume, another shard's). A number outside the plan is ignored.
    pub fn record(&mut self, game: GameId, first: Score) {
        if game.0 == 0 || self.settings.span().is_none_or(|s| game.0 > s) {
            return;
        }
        self.results.insert(game, first);
        self.handed.remove(&game.0);
        self.settle();
    }

    /// A game handed out that will not finish (the run is stopping): it may be handed out again.
    pub fn abandoned(&mut self, game: GameId) {
        self.handed.remove(&game.0);
    }

    /// Games of board `b` of the current round that are due and not yet played.
    fn due(&self, round: &Round, b: usize) -> Vec<u64> {
        let Table::Match(board) = round.tables[b] else {
            return vec![];
        };
        let s = &self.settings;
        let due = match s.format {
            Format::Knockout { .. } => {
                knockout::due_games(s, round.number, b as u64, board, &self.results)
            }
            Format::Swiss { .. } => (0..s.games).collect(),
        };
        due.into_iter()
            .filter(|&g| {
                self.results
                    .get(s.number(round.number, b as u64, g))
                    .is_none()
            })
            .collect()
    }

    /// Pair the next rounds while the current one is over.
    fn settle(&mut self) {
        while self.end.is_none() {
            let round = self.rounds.last().expect("round 1 is paired at the start");
            if (0..round.tables.len()).any(|b| !self.due(round, b).is_empty()) {
                return;
            }
            if round.number >= self.settings.rounds() {
                self.end = Some(Ok(()));
                return;
            }
            let next = match self.settings.format {
                Format::Knockout { .. } => {
                    Ok(knockout::next_round(&self.settings, round, &self.results))
                }
                Format::Swiss { .. } => {
                    swiss::pair_round(&self.settings, &self.rounds, &self.results)
                }
            };
            match next {
                Ok(r) => self.rounds.push(r),
                Err(e) => self.end = Some(Err(e)),
            }
        }
    }

    /// The next game for this process, or why there is none now.
    pub fn next_game(&mut self) -> Next {
        self.next_with(|_| true)
    }

    /// The next game for this process that `may_start` lets start now (its engines are free
    /// under their `slots=` caps); a due game it refuses makes this [`Next::Wait`].
    pub fn next_with(&mut self, mut may_start: impl FnMut(&Pairing) -> bool) -> Next {
        self.settle();
        match &self.end {
            Some(Ok(())) => return Next::Done,
            Some(Err(e)) => return Next::Unpairable(e.clone()),
            None => {}
        }
        let round = self.rounds.last().expect("round 1 is paired at the start");
        let s = self.settings;
        for b in 0..round.tables.len() {
            let Table::Match(board) = round.tables[b] else {
                continue;
            };
            for g in self.due(round, b) {
                let n = s.number(round.number, b as u64, g);
                let mine = self
                    .shard
                    .is_none_or(|sh| sh.owns_in_units(s.shard_unit(), n));
                if !mine || self.handed.contains(&n.0) {
                    continue;
                }
                let p = s.pairing(round.number, b as u64, board, g);
                if may_start(&p) {
                    self.handed.insert(n.0);
                    return Next::Play(p);
                }
            }
        }
        Next::Wait
    }
}

#[cfg(test)]
pub(crate) mod tests;
