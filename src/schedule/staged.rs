//! The values of the formats whose pairings follow from the results (knockout, Swiss): their
//! settings and game numbering, a round's boards and byes, the colours of a board's games, the
//! results heard. `rounds.rs` (the plan), `knockout.rs` and `swiss.rs` build on them.
//!
//! Numbering: each round reserves `boards × match_len` game numbers and each board (one match)
//! `match_len` of them; game `g` (0-based) of board `b` (0-based) in round `r` (1-based) is
//! `1 + ((r−1)·boards + b)·match_len + g`. The numbers of a bye, of a knockout's boards that later
//! rounds no longer have and of tie-breaks not needed are never played, so a resumed run and
//! every shard give the same number to the same game. `match_len` is even where games go in
//! colour-reversed pairs, so a `-repeat` pair never straddles two boards (nor two shards' units).
//!
//! Colours: a board's `lead` is black in its game 0; the games alternate, as a pair's games of
//! a round robin do, and `-noswap`/`-reverse` apply the same way. Openings: every board of a round
//! draws the same openings, and each round takes new ones (`opening_draw` counts on across rounds).

use std::collections::HashMap;

use crate::schedule::{EngineId, GameId, PairSides, Pairing, Repeat};
use crate::stats::Score;

/// Extra colour-reversed game pairs a tied knockout match plays, one pair at a time until one
/// engine is ahead; after them the higher seed goes through. Two pairs: a decisive pair is
/// common between engines of different strength, and a bound keeps a match between two engines
/// that draw every game from playing on forever.
pub const TIEBREAK_PAIRS: u64 = 2;

/// Places in a knockout's bracket: the next power of two (2 at least).
pub fn bracket_size(engines: usize) -> usize {
    engines.next_power_of_two().max(2)
}

/// Which results-dependent format, with its own settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A single-elimination bracket: `seeds` engines placed by their command-line order, the
    /// others by `seed` (the run's `-srand`).
    Knockout { seeds: usize, seed: u64 },
    /// `rounds` rounds paired by score.
    Swiss { rounds: u64 },
}

/// Everything the plan depends on besides the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundsSettings {
    pub engines: usize,
    pub format: Format,
    /// Games of one match (`-games`), tie-breaks not counted.
    pub games: u64,
    pub repeat: Repeat,
    pub sides: PairSides,
}

/// One match of a round: `lead` is black in its first game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Board {
    pub lead: EngineId,
    pub other: EngineId,
}

/// A place in a round: a match, or an engine that sits it out (Swiss) or goes through without
/// playing (a knockout's first round).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Table {
    Match(Board),
    Bye(EngineId),
}

/// A round as paired: its tables by board index (a knockout's bracket slots; a Swiss's boards,
/// then its bye).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Round {
    pub number: u64,
    pub tables: Vec<Table>,
}

/// A round that cannot be paired (a Swiss whose remaining opponents are all met).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Swiss round {round} cannot be paired without a rematch: {why}")]
pub struct Unpairable {
    pub round: u64,
    pub why: String,
}

/// Round-robin pair index of engines `a` ≠ `b` among `n`: the index of `(min, max)` in
/// `Schedule::new(n, RoundRobin, …).pairs()`, so the tracker, crosstable and statistics read
/// these games as they read a round robin's.
pub fn pair_index(n: usize, a: EngineId, b: EngineId) -> usize {
    let (i, j) = (a.0.min(b.0), a.0.max(b.0));
    i * (2 * n - i - 1) / 2 + (j - i - 1)
}

/// Colour-reversed pairs of games: both a knockout's tie-breaks and `-repeat` go by twos.
fn even_up(n: u64) -> u64 {
    n + n % 2
}

impl RoundsSettings {
    /// Game numbers one board reserves in a round: the match, and a knockout's tie-breaks.
    pub fn match_len(&self) -> u64 {
        match self.format {
            Format::Knockout { .. } => even_up(self.games) + 2 * TIEBREAK_PAIRS,
            Format::Swiss { .. } if self.repeat == Repeat::Twice => even_up(self.games),
            Format::Swiss { .. } => self.games,
        }
    }

    /// Boards a round reserves numbers for.
    pub fn boards(&self) -> u64 {
        match self.format {
            Format::Knockout { .. } => bracket_size(self.engines) as u64 / 2,
            Format::Swiss { .. } => self.engines as u64 / 2,
        }
    }

    /// Rounds at most: a knockout's until the final, a Swiss's `-rounds`.
    pub fn rounds(&self) -> u64 {
        match self.format {
            Format::Knockout { .. } => bracket_size(self.engines).trailing_zeros() as u64,
            Format::Swiss { rounds } => rounds,
        }
    }

    /// The highest game number the plan may use, or `None` past `u64::MAX` (refused by `config`).
    pub fn span(&self) -> Option<u64> {
        self.rounds()
            .checked_mul(self.boards())?
            .checked_mul(self.match_len())
    }

    /// Games the tournament plays without tie-breaks: a knockout's `engines − 1` matches, a
    /// Swiss's full boards of every round (what the progress counts).
    pub fn planned_games(&self) -> u64 {
        let matches = match self.format {
            Format::Knockout { .. } => self.engines as u64 - 1,
            Format::Swiss { rounds } => rounds * self.boards(),
        };
        matches * self.games
    }

    /// The number of game `g` of board `b` in round `r`.
    pub fn number(&self, r: u64, b: u64, g: u64) -> GameId {
        GameId(1 + ((r - 1) * self.boards() + b) * self.match_len() + g)
    }

    /// Round, board and game of a game number (the inverse of [`number`](Self::number)).
    pub fn locate(&self, game: GameId) -> (u64, u64, u64) {
        let i = game.0 - 1;
        let len = self.match_len();
        let (block, g) = (i / len, i % len);
        (block / self.boards() + 1, block % self.boards(), g)
    }

    /// Openings one round uses: one per game, or per game pair with `-repeat`.
    fn draws_per_round(&self) -> u64 {
        match self.repeat {
            Repeat::Twice => self.match_len().div_ceil(2),
            Repeat::Once => self.match_len(),
        }
    }

    /// Game `g` of `board` in round `r` (`b` its index).
    pub fn pairing(&self, r: u64, b: u64, board: Board, g: u64) -> Pairing {
        let (black, white) = colours(board, g, self.sides);
        let (first, second) = match board.lead < board.other {
            true => (board.lead, board.other),
            false => (board.other, board.lead),
        };
        let in_round = match self.repeat {
            Repeat::Twice => g / 2,
            Repeat::Once => g,
        };
        Pairing {
            game: self.number(r, b, g),
            round: r,
            pair: pair_index(self.engines, first, second),
            first,
            second,
            black,
            white,
            opening_draw: (r - 1) * self.draws_per_round() + in_round,
            pair_game: g,
        }
    }

    /// Games go to shards one at a time, or two with `-repeat` (the pair shares its opening).
    pub fn shard_unit(&self) -> u64 {
        match self.repeat {
            Repeat::Twice => 2,
            Repeat::Once => 1,
        }
    }
}

/// Black and white of game `g` of a board: the lead black in even games (always with
/// `-noswap`), the other way round with `-reverse`.
pub fn colours(board: Board, g: u64, sides: PairSides) -> (EngineId, EngineId) {
    let alternated = g % 2 == 1 && !sides.noswap;
    match alternated != sides.reverse {
        true => (board.other, board.lead),
        false => (board.lead, board.other),
    }
}

/// The results a plan has heard: each game's score from its pair's first (lower-numbered)
/// engine's view.
#[derive(Debug, Clone, Default)]
pub struct Results {
    by_game: HashMap<u64, Score>,
}

impl Results {
    /// A game's result, from its pair's first engine's view.
    pub fn insert(&mut self, game: GameId, first: Score) {
        self.by_game.insert(game.0, first);
    }

    pub fn get(&self, game: GameId) -> Option<Score> {
        self.by_game.get(&game.0).copied()
    }

    /// Half points `engine` made in game `game` of `board` (`None` before its result is in).
    pub fn half_points(&self, game: GameId, board: Board, engine: EngineId) -> Option<u64> {
        let first_score = self.get(game)?;
        let first = board.lead.min(board.other);
        let s = if engine == first {
            first_score
        } else {
            first_score.flipped()
        };
        Some(s.half_points() as u64)
    }
}
