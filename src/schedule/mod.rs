//! The tournament schedule: which engines meet, in which colours, with which opening draw, in a
//! deterministic order so that the same command always numbers the same games the same way.
//!
//! Numbering: for round `r`, pair `p` and game `g` of that pair in that round, the game number is
//! `1 + (r·P + p)·G + g`. Within a pair, `k = r·G + g` counts its games across rounds; colours
//! alternate with `k` and, with `-repeat`, games `k = 2m` and `2m+1` share opening draw `m` with
//! colours reversed — whatever the parity of `-games`. Every pair gets the same opening draws, so
//! no pair is favoured by easier openings. [`PairSides`] changes only who is black: `-noswap` keeps
//! the colours of every game of a pair (the first engine black), `-reverse` gives each game's
//! colours the other way round.

use std::fmt;

pub mod groups;
pub mod knockout;
pub mod queue;
pub mod rounds;
pub mod shard;
pub mod staged;
pub mod swiss;

/// Index of an engine in the order given on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct EngineId(pub usize);

/// A 1-based game number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct GameId(pub u64);

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Round robin (every pair) or gauntlet (the first engine against each other one), or a format
/// whose pairings follow from the results (knockout, Swiss: [`rounds::RoundPlan`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TournamentKind {
    RoundRobin,
    Gauntlet,
    Knockout,
    Swiss,
}

impl TournamentKind {
    /// The name `-tournament` takes and the journal header records (`round_robin` there, as
    /// before the option).
    pub fn name(self) -> &'static str {
        match self {
            TournamentKind::RoundRobin => "roundrobin",
            TournamentKind::Gauntlet => "gauntlet",
            TournamentKind::Knockout => "knockout",
            TournamentKind::Swiss => "swiss",
        }
    }

    /// Whether the pairings follow from the results (a [`rounds::RoundPlan`] hands out the games).
    pub fn staged(self) -> bool {
        matches!(self, TournamentKind::Knockout | TournamentKind::Swiss)
    }
}

/// Whether each opening is played twice with colours reversed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeat {
    Once,
    Twice,
}

/// Who takes which colour, beyond the alternation of the module docs (cutechess-cli's options).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PairSides {
    /// `-noswap`: no alternation: every game of a pair has the same colours.
    pub noswap: bool,
    /// `-reverse`: the second engine of each pair takes the first's colour, in every game.
    pub reverse: bool,
}

/// One scheduled game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pairing {
    pub game: GameId,
    /// 1-based round.
    pub round: u64,
    /// Index of the engine pair (0-based, in `Schedule::pairs` order).
    pub pair: usize,
    /// The pair's engines in pair order: `first` is the reference side for statistics.
    pub first: EngineId,
    pub second: EngineId,
    pub black: EngineId,
    pub white: EngineId,
    /// Which opening draw this game uses (see `opening::OpeningSequence::draw`).
    pub opening_draw: u64,
    /// Index of this game within its pair, across rounds (0-based): `k` in the module docs.
    pub pair_game: u64,
}

impl Pairing {
    /// The same game with the colours the other way round.
    pub fn colours_swapped(self) -> Pairing {
        Pairing {
            black: self.white,
            white: self.black,
            ..self
        }
    }

    /// With `-repeat`, the other game of the same opening pair is `pair_game ^ 1`.
    pub fn first_is_black(&self) -> bool {
        self.black == self.first
    }
}

/// The whole schedule; pairings are computed on demand from a game number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    kind: TournamentKind,
    pairs: Vec<(EngineId, EngineId)>,
    games_per_pair_round: u64,
    rounds: u64,
    repeat: Repeat,
    sides: PairSides,
    /// Consecutive games a shard takes together, when more than the colour pair (`tune`: an
    /// iteration's games, which must be played by one process).
    shard_unit: Option<u64>,
    /// Knockout, Swiss: the plan's settings; the game numbers are the plan's, and
    /// [`pairing`](Self::pairing) has none (the pairings follow from the results).
    staged: Option<rounds::RoundsSettings>,
}

/// How many engine pairs meet: each other engine with the first (gauntlet) or every pair.
pub fn pair_count(engines: usize, kind: TournamentKind) -> Option<u64> {
    let n = u64::try_from(engines).ok()?;
    match kind {
        TournamentKind::Gauntlet => n.checked_sub(1),
        // A knockout's and a Swiss's games are numbered by their round plan; their pairs are a
        // round robin's, so statistics read them alike.
        _ => Some(n.checked_mul(n.checked_sub(1)?)? / 2),
    }
}

/// `rounds · pairs · games` for `engines` engines, or `None` when the product does not fit a
/// `u64` (`config` refuses such a command line, so every game number fits).
pub fn checked_total(engines: usize, kind: TournamentKind, games: u64, rounds: u64) -> Option<u64> {
    rounds
        .checked_mul(pair_count(engines, kind)?)?
        .checked_mul(games)
}

impl Schedule {
    /// `engines` ≥ 2, `games` ≥ 1, `rounds` ≥ 1 and their product within `u64` (checked by
    /// `config`, see [`checked_total`]).
    pub fn new(
        engines: usize,
        kind: TournamentKind,
        games: u64,
        rounds: u64,
        repeat: Repeat,
    ) -> Self {
        let pairs = match kind {
            TournamentKind::Gauntlet => (1..engines).map(|j| (EngineId(0), EngineId(j))).collect(),
            _ => (0..engines)
                .flat_map(|i| ((i + 1)..engines).map(move |j| (EngineId(i), EngineId(j))))
                .collect(),
        };
        Schedule {
            kind,
            pairs,
            games_per_pair_round: games,
            rounds,
            repeat,
            sides: PairSides::default(),
            shard_unit: None,
            staged: None,
        }
    }

    /// A knockout's or a Swiss's schedule: the round-robin pairs (every pair may meet), the game
    /// numbers of `plan` (see [`rounds`]).
    pub fn staged(plan: rounds::RoundsSettings, kind: TournamentKind) -> Self {
        let mut s = Schedule::new(plan.engines, kind, plan.games, plan.rounds(), plan.repeat);
        s.sides = plan.sides;
        s.staged = Some(plan);
        s
    }

    /// The round plan's settings of a knockout or a Swiss.
    pub fn rounds_settings(&self) -> Option<&rounds::RoundsSettings> {
        self.staged.as_ref()
    }

    /// The same schedule with `-noswap`/`-reverse`.
    pub fn with_sides(mut self, sides: PairSides) -> Self {
        self.sides = sides;
        self
    }

    /// The same schedule, split among shards `games` consecutive games at a time.
    pub fn with_shard_unit(mut self, games: u64) -> Self {
        self.shard_unit = Some(games.max(1));
        self
    }

    /// Games per unit of the shard split: one, or with `-repeat` the colour-swapped pair, or
    /// what [`with_shard_unit`](Self::with_shard_unit) set.
    pub fn shard_unit(&self) -> u64 {
        self.shard_unit.unwrap_or(match self.repeat {
            Repeat::Twice => 2,
            Repeat::Once => 1,
        })
    }

    pub fn pairs(&self) -> &[(EngineId, EngineId)] {
        &self.pairs
    }

    /// Games in the schedule; a knockout's or a Swiss's highest game number (its plan's span:
    /// byes and tie-breaks not needed leave numbers unplayed).
    pub fn total_games(&self) -> u64 {
        match &self.staged {
            Some(plan) => plan.span().unwrap_or(u64::MAX),
            None => self.rounds * self.pairs.len() as u64 * self.games_per_pair_round,
        }
    }

    pub fn kind(&self) -> TournamentKind {
        self.kind
    }

    pub fn repeat(&self) -> Repeat {
        self.repeat
    }

    /// The pairing of game `id` (1-based), or `None` past the end.
    pub fn pairing(&self, id: GameId) -> Option<Pairing> {
        if self.staged.is_some() || id.0 == 0 || id.0 > self.total_games() {
            return None;
        }
        let i = id.0 - 1;
        let g_count = self.games_per_pair_round;
        let per_round = self.pairs.len() as u64 * g_count;
        let round = i / per_round;
        let in_round = i % per_round;
        let pair = (in_round / g_count) as usize;
        let g = in_round % g_count;
        let k = round * g_count + g;
        let (first, second) = self.pairs[pair];
        let alternated = k % 2 == 1 && !self.sides.noswap;
        let (black, white) = if alternated != self.sides.reverse {
            (second, first)
        } else {
            (first, second)
        };
        let opening_draw = match self.repeat {
            Repeat::Twice => k / 2,
            Repeat::Once => k,
        };
        Some(Pairing {
            game: id,
            round: round + 1,
            pair,
            first,
            second,
            black,
            white,
            opening_draw,
            pair_game: k,
        })
    }

    /// All pairings in game-number order.
    pub fn iter(&self) -> impl Iterator<Item = Pairing> + '_ {
        (1..=self.total_games()).filter_map(move |g| self.pairing(GameId(g)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn noswap_keeps_and_reverse_turns_the_colours_of_every_game() {
        let blacks = |sides: PairSides| -> Vec<usize> {
            let s = Schedule::new(3, TournamentKind::RoundRobin, 4, 1, Repeat::Twice);
            s.with_sides(sides).iter().map(|p| p.black.0).collect()
        };
        let (noswap, reverse) = (true, true);
        // Pairs (0,1), (0,2), (1,2), four games each.
        let plain = [0, 1, 0, 1, 0, 2, 0, 2, 1, 2, 1, 2];
        assert_eq!(blacks(PairSides::default()), plain);
        assert_eq!(
            blacks(PairSides {
                noswap,
                reverse: false
            }),
            [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]
        );
        assert_eq!(
            blacks(PairSides {
                noswap: false,
                reverse
            }),
            [1, 0, 1, 0, 2, 0, 2, 0, 2, 1, 2, 1]
        );
        assert_eq!(
            blacks(PairSides { noswap, reverse }),
            [1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2]
        );
        // The openings are drawn as before: the repeat pairs still share one.
        let s = Schedule::new(2, TournamentKind::RoundRobin, 4, 1, Repeat::Twice);
        let draws = |s: Schedule| s.iter().map(|p| p.opening_draw).collect::<Vec<_>>();
        assert_eq!(
            draws(s.clone().with_sides(PairSides { noswap, reverse })),
            draws(s)
        );
    }

    #[test]
    fn round_robin_has_all_pairs() {
        let s = Schedule::new(4, TournamentKind::RoundRobin, 2, 3, Repeat::Once);
        assert_eq!(s.pairs().len(), 6);
        assert_eq!(s.total_games(), 36);
        let mut per_pair: HashMap<usize, u64> = HashMap::new();
        for p in s.iter() {
            *per_pair.entry(p.pair).or_default() += 1;
            assert_ne!(p.black, p.white);
        }
        assert!(per_pair.values().all(|&n| n == 6));
    }

    #[test]
    fn gauntlet_pairs_the_first_engine_with_each_other() {
        let s = Schedule::new(4, TournamentKind::Gauntlet, 4, 1, Repeat::Twice);
        assert_eq!(
            s.pairs(),
            &[
                (EngineId(0), EngineId(1)),
                (EngineId(0), EngineId(2)),
                (EngineId(0), EngineId(3))
            ]
        );
        assert_eq!(s.total_games(), 12);
        // With two engines gauntlet and round robin are the same.
        let a = Schedule::new(2, TournamentKind::Gauntlet, 5, 2, Repeat::Once);
        let b = Schedule::new(2, TournamentKind::RoundRobin, 5, 2, Repeat::Once);
        assert_eq!(a.pairs(), b.pairs());
        assert!(a.iter().eq(b.iter()));
    }

    #[test]
    fn repeat_pairs_share_an_opening_with_colours_reversed_even_with_odd_games() {
        for games in [1u64, 3, 4, 7] {
            let s = Schedule::new(3, TournamentKind::RoundRobin, games, 4, Repeat::Twice);
            let mut by_draw: HashMap<(usize, u64), Vec<Pairing>> = HashMap::new();
            for p in s.iter() {
                by_draw.entry((p.pair, p.opening_draw)).or_default().push(p);
            }
            for games_of_draw in by_draw.values() {
                assert!(games_of_draw.len() <= 2);
                if let [a, b] = games_of_draw.as_slice() {
                    assert_eq!(a.black, b.white);
                    assert_eq!(a.white, b.black);
                    assert_eq!(a.pair_game / 2, b.pair_game / 2);
                }
            }
            // Each pair plays 4*games games: all draws are complete pairs except possibly the last.
            let complete = by_draw.values().filter(|v| v.len() == 2).count() as u64;
            assert_eq!(complete, 3 * (4 * games / 2));
        }
    }

    #[test]
    fn numbering_is_deterministic_and_dense() {
        let s = Schedule::new(3, TournamentKind::RoundRobin, 2, 2, Repeat::Twice);
        let ids: Vec<u64> = s.iter().map(|p| p.game.0).collect();
        assert_eq!(ids, (1..=12).collect::<Vec<_>>());
        assert!(s.pairing(GameId(0)).is_none());
        assert!(s.pairing(GameId(13)).is_none());
        let p = s.pairing(GameId(7)).unwrap();
        assert_eq!((p.round, p.pair), (2, 0));
        assert_eq!(p.pair_game, 2);
        assert_eq!(p.opening_draw, 1);
        assert!(p.first_is_black());
    }

    #[test]
    fn totals_that_overflow_a_game_number_are_found() {
        use TournamentKind::*;
        assert_eq!(pair_count(5, RoundRobin), Some(10));
        assert_eq!(pair_count(5, Gauntlet), Some(4));
        assert_eq!(checked_total(2, RoundRobin, 1 << 32, 1), Some(1 << 32));
        assert_eq!(checked_total(2, RoundRobin, u64::MAX, 1), Some(u64::MAX));
        assert_eq!(checked_total(3, RoundRobin, u64::MAX, 1), None);
        assert_eq!(checked_total(2, Gauntlet, 1 << 32, 1 << 32), None);
        assert_eq!(checked_total(4, Gauntlet, 1 << 31, 1 << 31), Some(3 << 62));
    }

    #[test]
    fn colours_alternate_within_a_pair() {
        let s = Schedule::new(2, TournamentKind::RoundRobin, 10, 1, Repeat::Once);
        let blacks: Vec<usize> = s.iter().map(|p| p.black.0).collect();
        assert_eq!(blacks, vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
        let draws: Vec<u64> = s.iter().map(|p| p.opening_draw).collect();
        assert_eq!(draws, (0..10).collect::<Vec<_>>());
    }
}
