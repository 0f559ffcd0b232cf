//! Game records: the finished-game value the dispatcher fans out, and pure renderers of it
//! (journal line, SGF, PGN, message block, Piskvork `.psq`). Writers that touch files live in
//! `record::writer`.

pub mod journal;
pub mod msg;
pub mod pgn;
pub mod psq;
pub mod samples;
pub mod sgf;

use chrono::{DateTime, Utc};

use crate::board::{BoardSize, Color, Pos, Symmetry};
use crate::game::GameOutcome;
use crate::rules::Rule;
use crate::schedule::{EngineId, GameId};

/// A finished game with everything the outputs need.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRecord {
    pub game: GameId,
    pub round: u64,
    pub pair: usize,
    /// Index of the game within its pair across rounds (games `2m`, `2m+1` share an opening with -repeat).
    pub pair_game: u64,
    pub black: EngineId,
    pub white: EngineId,
    pub black_name: String,
    pub white_name: String,
    /// The engines' `cmd=` as given: the identity of what played.
    pub black_cmd: String,
    pub white_cmd: String,
    pub size: BoardSize,
    pub rule: Rule,
    /// Opening stones as played (after the transform), black first.
    pub opening: Vec<Pos>,
    /// 1-based line in the openings file, when one was used.
    pub opening_line: Option<usize>,
    pub transform: Symmetry,
    pub outcome: GameOutcome,
    pub started: DateTime<Utc>,
    pub ended: DateTime<Utc>,
    /// What each engine's processes used in the game (absent for games rebuilt from journals
    /// of earlier versions).
    pub usage: Option<GameUse>,
}

/// What one engine's processes used during one game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EngineUse {
    /// CPU time, user + system, of the engine and the processes it started, milliseconds.
    pub cpu_ms: u64,
    /// Largest resident memory of those processes seen in the game (sampled while it thought
    /// and at the end), bytes.
    pub peak_memory: u64,
}

/// Both engines' use of one game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameUse {
    pub black: EngineUse,
    pub white: EngineUse,
}

impl GameRecord {
    /// Engine name of a colour.
    pub fn name_of(&self, c: Color) -> &str {
        match c {
            Color::Black => &self.black_name,
            Color::White => &self.white_name,
        }
    }

    /// Every stone on the board in play order: opening then played moves.
    pub fn all_stones(&self) -> Vec<Pos> {
        self.opening
            .iter()
            .copied()
            .chain(self.outcome.moves.iter().map(|m| m.pos))
            .collect()
    }
}

/// Render `moves` in pos notation, or in Gomocup `x,y` pairs separated by spaces where the board is
/// too large for letters (pos notation stops at 26 columns).
pub fn moves_text(moves: &[Pos], size: BoardSize) -> String {
    crate::board::to_pos_sequence(moves, size).unwrap_or_else(|_| {
        moves
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    })
}

#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;
    use crate::board::parse_pos_sequence;
    use crate::game::{PlayedMove, Termination};
    use chrono::TimeZone;
    use std::time::Duration;

    /// A small finished game used by the renderer tests.
    pub fn sample_record() -> GameRecord {
        let size = BoardSize::new(15).unwrap();
        let opening = parse_pos_sequence("h8i9", size).unwrap();
        let moves = parse_pos_sequence("h9i10h10i11h11i12h12", size).unwrap();
        GameRecord {
            game: GameId(7),
            round: 2,
            pair: 0,
            pair_game: 3,
            black: EngineId(1),
            white: EngineId(0),
            black_name: "scout".into(),
            white_name: "random".into(),
            black_cmd: "./pbrain-scout --depth 4".into(),
            white_cmd: "./pbrain-random".into(),
            size,
            rule: Rule::Freestyle,
            opening,
            opening_line: Some(12),
            transform: Symmetry::Rot90,
            outcome: GameOutcome {
                termination: Termination::Five {
                    winner: Color::Black,
                    line: parse_pos_sequence("h8h9h10h11h12", size).unwrap(),
                },
                moves: moves
                    .into_iter()
                    .enumerate()
                    .map(|(i, pos)| PlayedMove {
                        pos,
                        time: Duration::from_millis(10 * i as u64 + 3),
                    })
                    .collect(),
                messages: vec![(Color::Black, "depth 4 eval 120".into())],
            },
            started: Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap(),
            ended: Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 5).unwrap(),
            usage: None,
        }
    }
}

#[cfg(test)]
mod snapshots {
    //! Snapshots of every renderer on fixed games (the fixtures' times and dates are fixed, so
    //! nothing needs redacting but the version number in SGF's AP property).
    use super::fixtures::sample_record;
    use super::*;
    use crate::game::Termination;
    use crate::rules::ForbiddenKind;

    fn forbidden_record() -> GameRecord {
        let mut r = sample_record();
        r.rule = Rule::Renju;
        r.outcome.moves.truncate(4);
        r.outcome.termination = Termination::Forbidden {
            kind: ForbiddenKind::DoubleThree,
            at: Pos::new(9, 9),
        };
        r
    }

    fn redact_version(s: String) -> String {
        s.replace(env!("CARGO_PKG_VERSION"), "[version]")
    }

    #[test]
    fn sgf_snapshots() {
        insta::assert_snapshot!(
            "sgf_five",
            redact_version(sgf::render(&sample_record(), "test"))
        );
        insta::assert_snapshot!(
            "sgf_forbidden",
            redact_version(sgf::render(&forbidden_record(), "test"))
        );
    }

    #[test]
    fn pgn_snapshots() {
        insta::assert_snapshot!("pgn_five", pgn::render(&sample_record(), "test"));
        insta::assert_snapshot!("pgn_forbidden", pgn::render(&forbidden_record(), "test"));
    }

    #[test]
    fn psq_snapshots() {
        insta::assert_snapshot!("psq_five", psq::render(&sample_record()));
        // The foul that ended the game is not a stone: the record stops before it.
        insta::assert_snapshot!("psq_forbidden", psq::render(&forbidden_record()));
    }

    #[test]
    fn journal_snapshots() {
        insta::assert_snapshot!(
            "journal_five",
            journal::render_line(&sample_record(), "0123456789abcdef")
        );
        insta::assert_snapshot!(
            "journal_forbidden",
            journal::render_line(&forbidden_record(), "0123456789abcdef")
        );
    }
}
