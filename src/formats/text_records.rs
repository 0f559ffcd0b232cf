//! The records that are text appended game by game (PGN, SGF, messages), as one list.

use crate::formats::{msg, pgn, sgf};
use crate::game::record::{Evals, GameRecord};

/// The records that are text appended game by game. Adding one is a renderer and an arm here;
/// the run, `export` and `-resume`'s completion of a cut game take every format from this list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    /// `-pgn`
    Pgn,
    /// `-sgf`
    Sgf,
    /// `-msg`: the engines' MESSAGE lines.
    Msg,
}

impl TextFormat {
    pub const ALL: [TextFormat; 3] = [TextFormat::Pgn, TextFormat::Sgf, TextFormat::Msg];

    /// One game in this format; `event` names the event where the format has one, `evals`
    /// says whether the moves' search reports are quoted.
    pub fn render(self, r: &GameRecord, event: &str, evals: Evals) -> String {
        match self {
            TextFormat::Pgn => pgn::render(r, event, evals),
            TextFormat::Sgf => sgf::render(r, event, evals),
            TextFormat::Msg => msg::render(r, evals),
        }
    }
}
