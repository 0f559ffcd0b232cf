//! The rules for a game met more than once (a journal named twice, a shard's game read twice).
//! Readers of journal files ([`SeenLines`], applied by `journal::read`): the same line again is
//! counted once, another line for the same game of the same run is an error naming both lines.
//! Games from elsewhere ([`Repeats`]: the shards' sync, replays): a repeat with the same result
//! is dropped, the same game with another result is an error (the journals are not of one run).

use std::collections::HashMap;

use crate::game::termination::GameResult;

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

/// What a reader of journals makes of a game line ([`SeenLines::admit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineSeen {
    /// The first line of this game of this run: read it.
    First,
    /// The same line again (a journal named twice, a line copied): counted once. `file` (an
    /// index into the reader's files) and `line` say where it was first.
    Repeat { file: usize, line: usize },
    /// The same game of the same run with other content: not one run's journals, or one edited.
    Conflict { file: usize, line: usize },
}

/// The game lines a reader of journals has met: (run, game number) → a hash of the line and
/// where it was, 32 bytes a game. Every reader of journals applies it, in `journal::read`.
#[derive(Debug, Default)]
pub struct SeenLines {
    runs: HashMap<String, u32>,
    seen: HashMap<(u32, u64), (u64, u32, u32)>,
}

impl SeenLines {
    /// Note the line of game `game` of run `fingerprint`, with `content` its text, read at
    /// `file`:`line`.
    pub fn admit(
        &mut self,
        fingerprint: &str,
        game: u64,
        content: &str,
        file: usize,
        line: usize,
    ) -> LineSeen {
        use std::hash::{Hash, Hasher};
        let next = self.runs.len() as u32;
        let run = *self.runs.entry(fingerprint.to_string()).or_insert(next);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        content.trim_end().hash(&mut h);
        let hash = h.finish();
        let here = (hash, to_u32(file), to_u32(line));
        match self.seen.entry((run, game)) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(here);
                LineSeen::First
            }
            std::collections::hash_map::Entry::Occupied(o) => {
                let &(first, file, line) = o.get();
                let (file, line) = (file as usize, line as usize);
                if first == hash {
                    LineSeen::Repeat { file, line }
                } else {
                    LineSeen::Conflict { file, line }
                }
            }
        }
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_seen_again_is_a_repeat_and_another_line_a_conflict() {
        let mut s = SeenLines::default();
        assert_eq!(s.admit("f", 3, "{a}", 0, 2), LineSeen::First);
        assert_eq!(s.admit("f", 4, "{b}", 0, 3), LineSeen::First);
        // Another run's game 3 is another game.
        assert_eq!(s.admit("g", 3, "{c}", 1, 2), LineSeen::First);
        assert_eq!(
            s.admit("f", 3, "{a}\r\n", 1, 9),
            LineSeen::Repeat { file: 0, line: 2 }
        );
        assert_eq!(
            s.admit("f", 3, "{x}", 1, 10),
            LineSeen::Conflict { file: 0, line: 2 }
        );
    }

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
