//! What a session asks an engine and what it is answered, as plain values: the move requests,
//! their replies, `TAKEBACK`'s answer and the INFO block sent before each game.

use std::time::Duration;

use crate::core::board::{Color, Pos};
use crate::core::rules::Rule;
use crate::core::search::SearchReport;
use crate::engine::protocol::{Command, Field};
use crate::engine::spec::{Detail, EngineSpec};

/// What the engine is asked to move on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveRequest {
    /// Empty board, the engine moves first.
    Begin,
    /// The opponent's last move.
    Turn(Pos),
    /// The whole position, stones in play order with their field (the engine's own, the
    /// opponent's; a continuous game's winning line only in `check`).
    Board(Vec<(Pos, Field)>),
}

impl MoveRequest {
    /// `BOARD` with `stones` in play order (colours alternate from black), those of `own` the
    /// engine's: the position a game sends when it asks by board.
    pub fn position(stones: &[Pos], own: Color) -> MoveRequest {
        MoveRequest::Board(
            stones
                .iter()
                .enumerate()
                .map(|(i, &p)| (p, Field::of(Color::of_ply(i) == own)))
                .collect(),
        )
    }

    pub(super) fn command(&self) -> Command {
        match self {
            MoveRequest::Begin => Command::Begin,
            MoveRequest::Turn(p) => Command::Turn(*p),
            MoveRequest::Board(stones) => Command::Board(stones.clone()),
        }
    }

    pub(super) fn describe(&self) -> String {
        match self {
            MoveRequest::Begin => "BEGIN".into(),
            MoveRequest::Turn(p) => format!("TURN {},{}", p.x, p.y),
            MoveRequest::Board(stones) => format!("BOARD ({} stones)", stones.len()),
        }
    }
}

/// The engine's answer to a move request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveReply {
    /// The answer line, trimmed (for `SUGGEST`, the engine's answer to our `PLAY`).
    pub raw: String,
    /// The coordinates, or `None` when the answer is not a move (an illegal, unparsable move).
    pub coords: Option<(i64, i64)>,
    /// From writing the command to reading the answer, on the monotonic clock.
    pub elapsed: Duration,
    /// The engine's last complete search report before the answer.
    pub search: Option<Box<SearchReport>>,
}

/// The engine's answer to `TAKEBACK`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Takeback {
    /// `OK`: the stone is off its board.
    Done,
    /// `UNKNOWN` or `ERROR` (the line): it does not take moves back.
    Refused(String),
}

pub(super) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The INFO lines sent after every START/RESTART, in the predecessor's spirit.
pub fn game_infos(spec: &EngineSpec, rule: Rule) -> Vec<Command> {
    let tc = &spec.tc;
    let mut infos = Vec::new();
    if let Some(turn) = tc.turn_time {
        infos.push(Command::info("timeout_turn", millis(turn)));
    }
    infos.push(Command::info(
        "timeout_match",
        tc.match_time.map_or(0, millis),
    ));
    if !tc.increment.is_zero() {
        infos.push(Command::info("time_increment", millis(tc.increment)));
    }
    infos.push(Command::info("max_memory", spec.max_memory));
    infos.push(Command::info("game_type", 1));
    infos.push(Command::info("rule", rule.code()));
    if let Some(depth) = spec.depth {
        infos.push(Command::info("max_depth", depth));
    }
    if let Some(nodes) = spec.nodes {
        infos.push(Command::info("max_node", nodes));
    }
    if let Some(threads) = spec.threads {
        infos.push(Command::info("thread_num", threads));
    }
    let own_detail = spec
        .options
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("show_detail"));
    if let (Detail::Level(level), false) = (spec.detail, own_detail) {
        infos.push(Command::info("show_detail", level));
    }
    let own_pondering = spec
        .options
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("pondering"));
    if spec.ponder && !own_pondering {
        infos.push(Command::info("pondering", 1));
    }
    for (key, value) in &spec.options {
        infos.push(Command::info(key.clone(), value));
    }
    infos
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_gives_the_side_to_move_its_own_stones() {
        let stones = [Pos::new(7, 7), Pos::new(8, 7), Pos::new(9, 9)];
        let fields = |own| match MoveRequest::position(&stones, own) {
            MoveRequest::Board(b) => b.into_iter().map(|(_, f)| f).collect::<Vec<_>>(),
            other => panic!("{other:?}"),
        };
        use Field::{Opponent, Own};
        assert_eq!(fields(Color::White), [Opponent, Own, Opponent]);
        assert_eq!(fields(Color::Black), [Own, Opponent, Own]);
        let board = MoveRequest::position(&stones, Color::White);
        assert_eq!(
            board.command().encode(),
            "BOARD\r\n7,7,2\r\n8,7,1\r\n9,9,2\r\nDONE\r\n"
        );
    }
}
