//! The one rule for a game met more than once (a journal named twice, a shard's game read twice):
//! a repeat with the same result is dropped, the same game with another result is an error (the
//! journals are not of one run).

use std::collections::HashMap;

use crate::game::GameResult;

/// One game number with two different results.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {game} is recorded twice with different results ({} and {})", first.as_str(), second.as_str())]
pub struct Conflict {
    pub game: u64,
    pub first: GameResult,
    pub second: GameResult,
}

/// Whether a game is new to a reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// The first time: count it.
    First,
    /// Read before with the same result: drop it.
    Repeat,
}

/// The games read so far: game number → result (a few bytes per game, whatever their length).
#[derive(Debug, Default, Clone)]
pub struct Repeats {
    seen: HashMap<u64, GameResult>,
}

impl Repeats {
    /// Note game `game` with `result`, saying whether it is new.
    pub fn admit(&mut self, game: u64, result: GameResult) -> Result<Seen, Conflict> {
        match self.seen.get(&game) {
            None => {
                self.seen.insert(game, result);
                Ok(Seen::First)
            }
            Some(&first) if first == result => Ok(Seen::Repeat),
            Some(&first) => Err(Conflict {
                game,
                first,
                second: result,
            }),
        }
    }

    /// How many different games were read.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeat_is_dropped_and_a_conflict_named() {
        let mut r = Repeats::default();
        assert_eq!(r.admit(3, GameResult::Draw), Ok(Seen::First));
        assert_eq!(r.admit(4, GameResult::Draw), Ok(Seen::First));
        assert_eq!(r.admit(3, GameResult::Draw), Ok(Seen::Repeat));
        let c = r.admit(3, GameResult::BlackWins).unwrap_err();
        assert_eq!(
            c.to_string(),
            "game 3 is recorded twice with different results (1/2-1/2 and 1-0)"
        );
        assert_eq!(r.len(), 2);
    }
}
