//! The finished game's end: every way a game can end ([`Termination`]), the result it gives
//! ([`GameResult`]) and the one table of what each kind of end is called and how it counts
//! ([`TerminationKind::row`]): the journal's code, the report's words, PGN's `Termination` tag,
//! SGF's `RE` suffix, whether the engine was at fault and whether the game gives samples.
//!
//! A new termination is a variant here, its arms in this file (the compiler names each one:
//! no match on a termination anywhere has a catch-all arm), a row in
//! `docs/reference/terminations.md` (a test checks it), and the code that ends a game with it.

use std::fmt;
use std::time::Duration;

use crate::core::board::{BoardSize, Color, Pos};
use crate::core::rules::ForbiddenKind;
use crate::core::search::Eval;

/// The result from black's side, as PGN-like text is derived from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    BlackWins,
    WhiteWins,
    Draw,
}

/// A result text that is none of `1-0`, `0-1`, `1/2-1/2`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown result {0:?} (expected 1-0, 0-1 or 1/2-1/2)")]
pub struct UnknownResult(pub String);

impl std::str::FromStr for GameResult {
    type Err = UnknownResult;

    /// The text [`GameResult::as_str`] writes, surrounding blanks allowed.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        [
            GameResult::BlackWins,
            GameResult::WhiteWins,
            GameResult::Draw,
        ]
        .into_iter()
        .find(|r| r.as_str() == text.trim())
        .ok_or_else(|| UnknownResult(text.to_string()))
    }
}

impl GameResult {
    pub fn win_for(c: Color) -> GameResult {
        match c {
            Color::Black => GameResult::BlackWins,
            Color::White => GameResult::WhiteWins,
        }
    }

    /// `1-0` black won, `0-1` white won, `1/2-1/2` draw.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::BlackWins => "1-0",
            GameResult::WhiteWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::BlackWins => Some(Color::Black),
            GameResult::WhiteWins => Some(Color::White),
            GameResult::Draw => None,
        }
    }

    /// Points scored by `c` (1, ½ or 0) as half-points.
    pub fn half_points_for(self, c: Color) -> u32 {
        match self.winner() {
            None => 1,
            Some(w) if w == c => 2,
            Some(_) => 0,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What was wrong with an illegal move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IllegalMoveKind {
    Occupied,
    OffBoard,
    Unparsable,
}

/// Every way a game can end, with who lost and why: the result, the reason text and whether an
/// engine misbehaved are all derived from it, so they can never disagree.
///
/// Serialized (in the journal's `end`) with a `how` tag in snake case.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "how", rename_all = "snake_case")]
pub enum Termination {
    /// A winning line under the rule (five, or overline where it wins).
    Five { winner: Color, line: Vec<Pos> },
    /// Black played a renju forbidden point and loses.
    Forbidden { kind: ForbiddenKind, at: Pos },
    /// A move that cannot be played; the offender loses. `at` is the point when it is on the board.
    IllegalMove {
        by: Color,
        kind: IllegalMoveKind,
        text: String,
        at: Option<Pos>,
    },
    /// Over the turn or match time (beyond the tolerance); the offender loses. `said`: the
    /// first `ERROR`/`UNKNOWN` line it printed instead of an answer it never gave.
    TimeForfeit {
        by: Color,
        elapsed: Duration,
        limit: Duration,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        said: Option<String>,
    },
    /// The engine process died or its pipes broke; it loses.
    Crash { by: Color, status: String },
    /// The engine failed to start the game; it loses whatever its colour.
    FailedStart { by: Color, text: String },
    /// The engine's processes held more memory than `max_memory` plus the tolerance while it
    /// thought; it was killed and loses. Bytes.
    MemoryLimit { by: Color, peak: u64, limit: u64 },
    /// The engine answered a move request with an `ERROR` line (`text`, whole) instead of a
    /// move; it lost at once, and was restarted before its next game. Written by earlier
    /// versions only: an `ERROR` line no longer ends the wait for a move (an engine that never
    /// moves loses on time, the line quoted in [`TimeForfeit`](Termination::TimeForfeit)).
    EngineError { by: Color, text: String },
    /// The board filled up without a winner: a draw.
    FullBoard,
    /// `-drawafter`: the stones on the board (opening included) reached the limit: a draw.
    DrawAfter { stones: usize },
    /// An answer to `SWAP2BOARD` the referee refuses (occupied or off-board stones, a five or a
    /// renju foul among them, the wrong number of stones, not an answer at all); the engine that
    /// gave it loses. `by` is its scheduled colour (the colours were not chosen yet).
    SwapIllegal {
        by: Color,
        answer: String,
        why: String,
    },
    /// `-draw`: both engines' evaluations stayed within ±`score` for `moves` moves of each;
    /// `black`'s and `white`'s are their last (each engine's own view).
    AdjudicatedDraw {
        moves: u32,
        score: u32,
        black: Eval,
        white: Eval,
    },
    /// `-resign`: `by`'s evaluation stayed at or below −`score` for `moves` of its own moves, the
    /// last `eval`; `opponent` is the winner's last with `twosided=true`. Without `score` the mate
    /// rule decided: `by` reported a proven loss on `moves` own moves in a row.
    AdjudicatedResign {
        by: Color,
        moves: u32,
        eval: Eval,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        score: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        opponent: Option<Eval>,
    },
}

/// A point in pos notation (`h8`), or `x,y` where the board is too large for letters.
fn point(p: Pos, size: BoardSize) -> String {
    p.to_pos_notation(size).unwrap_or_else(|_| p.to_string())
}

/// What kind of end a [`Termination`] is, without its details: the key of the one table
/// ([`TerminationKind::row`]). Declared in the report's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TerminationKind {
    Five,
    Forbidden,
    IllegalMove,
    SwapIllegal,
    TimeForfeit,
    Crash,
    FailedStart,
    MemoryLimit,
    EngineError,
    FullBoard,
    DrawAfter,
    AdjudicatedResign,
    AdjudicatedDraw,
}

/// PGN's standard `Termination` tag values (the PGN specification's 9.8.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PgnTermination {
    Normal,
    TimeForfeit,
    RulesInfraction,
    Abandoned,
    /// Decided by an adjudicator: here the engines' own evaluations (`-draw`, `-resign`).
    Adjudication,
}

impl PgnTermination {
    pub fn as_str(self) -> &'static str {
        match self {
            PgnTermination::Normal => "normal",
            PgnTermination::TimeForfeit => "time forfeit",
            PgnTermination::RulesInfraction => "rules infraction",
            PgnTermination::Abandoned => "abandoned",
            PgnTermination::Adjudication => "adjudication",
        }
    }
}

/// One row of the table: what a kind of end is called and how it counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerminationRow {
    /// The journal's `termination` (the variant in snake case, as `end`'s `how` tag).
    pub code: &'static str,
    /// The words the report files the game under.
    pub label: &'static str,
    /// PGN's `Termination` tag.
    pub pgn: PgnTermination,
    /// What SGF's `RE` has after `B+`/`W+` (a draw's `RE` is `0`, whatever the row says).
    pub sgf: &'static str,
    /// The loser's engine misbehaved: it is killed and started afresh before its next game,
    /// and `-fatalerror` stops the run.
    pub fault: bool,
    /// The game gives training samples (the predecessor's rule, extended to crashes).
    pub samples: bool,
}

/// A row of the table, on one line each.
const fn row(
    code: &'static str,
    label: &'static str,
    pgn: PgnTermination,
    sgf: &'static str,
    fault: bool,
    samples: bool,
) -> TerminationRow {
    TerminationRow {
        code,
        label,
        pgn,
        sgf,
        fault,
        samples,
    }
}

impl TerminationKind {
    /// Every kind, in the report's order.
    pub const ALL: [TerminationKind; 13] = [
        TerminationKind::Five,
        TerminationKind::Forbidden,
        TerminationKind::IllegalMove,
        TerminationKind::SwapIllegal,
        TerminationKind::TimeForfeit,
        TerminationKind::Crash,
        TerminationKind::FailedStart,
        TerminationKind::MemoryLimit,
        TerminationKind::EngineError,
        TerminationKind::FullBoard,
        TerminationKind::DrawAfter,
        TerminationKind::AdjudicatedResign,
        TerminationKind::AdjudicatedDraw,
    ];

    /// The one table: every name and count of a kind of end comes from here
    /// (`docs/reference/terminations.md` shows it, checked by a test).
    #[rustfmt::skip]
    pub const fn row(self) -> TerminationRow {
        use PgnTermination::{Abandoned, Adjudication, Normal};
        use PgnTermination::{RulesInfraction as Rules, TimeForfeit as Time};
        use TerminationKind as K;
        match self {
            //                           code (journal)         report label            PGN tag       SGF  fault  samples
            K::Five =>               row("five",                "five",                 Normal,       "",  false, true),
            K::Forbidden =>          row("forbidden",           "forbidden move",       Rules,        "F", false, true),
            K::IllegalMove =>        row("illegal_move",        "illegal move",         Rules,        "F", false, false),
            K::SwapIllegal =>        row("swap_illegal",        "illegal swap answer",  Rules,        "F", false, false),
            K::TimeForfeit =>        row("time_forfeit",        "time",                 Time,         "T", true,  false),
            K::Crash =>              row("crash",               "crash",                Abandoned,    "F", true,  false),
            K::FailedStart =>        row("failed_start",        "failed start",         Abandoned,    "F", true,  false),
            K::MemoryLimit =>        row("memory_limit",        "memory",               Rules,        "F", true,  false),
            K::EngineError =>        row("engine_error",        "engine error",         Rules,        "F", true,  false),
            K::FullBoard =>          row("full_board",          "full board",           Normal,       "",  false, true),
            K::DrawAfter =>          row("draw_after",          "draw after",           Normal,       "",  false, true),
            K::AdjudicatedResign =>  row("adjudicated_resign",  "adjudicated resign",   Adjudication, "R", false, true),
            K::AdjudicatedDraw =>    row("adjudicated_draw",    "adjudicated draw",     Adjudication, "",  false, true),
        }
    }

    /// The kind a journal's termination code names; `None` for a code this version does not
    /// know (a journal of a later version, a hand-edited line).
    pub fn from_code(code: &str) -> Option<TerminationKind> {
        TerminationKind::ALL
            .into_iter()
            .find(|k| k.row().code == code)
    }
}

/// The code the report files a termination under that this version does not know.
pub const OTHER_TERMINATION: &str = "other";

/// The known code of a journal's termination text, or [`OTHER_TERMINATION`].
pub fn termination_code(text: &str) -> &'static str {
    TerminationKind::from_code(text).map_or(OTHER_TERMINATION, |k| k.row().code)
}

/// The words the report shows for a termination code (`other` for an unknown one).
pub fn termination_label(code: &str) -> &'static str {
    TerminationKind::from_code(code).map_or(OTHER_TERMINATION, |k| k.row().label)
}

impl Termination {
    /// Its kind: the one match from a termination to its row of the table.
    pub fn kind(&self) -> TerminationKind {
        match self {
            Termination::Five { .. } => TerminationKind::Five,
            Termination::Forbidden { .. } => TerminationKind::Forbidden,
            Termination::IllegalMove { .. } => TerminationKind::IllegalMove,
            Termination::TimeForfeit { .. } => TerminationKind::TimeForfeit,
            Termination::Crash { .. } => TerminationKind::Crash,
            Termination::FailedStart { .. } => TerminationKind::FailedStart,
            Termination::MemoryLimit { .. } => TerminationKind::MemoryLimit,
            Termination::EngineError { .. } => TerminationKind::EngineError,
            Termination::FullBoard => TerminationKind::FullBoard,
            Termination::DrawAfter { .. } => TerminationKind::DrawAfter,
            Termination::SwapIllegal { .. } => TerminationKind::SwapIllegal,
            Termination::AdjudicatedDraw { .. } => TerminationKind::AdjudicatedDraw,
            Termination::AdjudicatedResign { .. } => TerminationKind::AdjudicatedResign,
        }
    }

    /// Its row of the table.
    pub fn row(&self) -> TerminationRow {
        self.kind().row()
    }

    /// The variant in snake case, as written in the journal.
    pub fn code(&self) -> &'static str {
        self.row().code
    }

    /// The colour that lost, `None` for a draw.
    pub fn loser(&self) -> Option<Color> {
        match self {
            Termination::Five { winner, .. } => Some(winner.opponent()),
            Termination::Forbidden { .. } => Some(Color::Black),
            Termination::IllegalMove { by, .. }
            | Termination::TimeForfeit { by, .. }
            | Termination::Crash { by, .. }
            | Termination::FailedStart { by, .. }
            | Termination::MemoryLimit { by, .. }
            | Termination::EngineError { by, .. }
            | Termination::SwapIllegal { by, .. }
            | Termination::AdjudicatedResign { by, .. } => Some(*by),
            Termination::FullBoard
            | Termination::DrawAfter { .. }
            | Termination::AdjudicatedDraw { .. } => None,
        }
    }

    /// The result from black's side.
    pub fn result(&self) -> GameResult {
        match self.loser() {
            Some(l) => GameResult::win_for(l.opponent()),
            None => GameResult::Draw,
        }
    }

    /// The colour whose engine misbehaved (timeout, crash, failed start, over its memory, an
    /// `ERROR` instead of a move): the loser of a game whose row says `fault`.
    pub fn faulty(&self) -> Option<Color> {
        if self.row().fault {
            self.loser()
        } else {
            None
        }
    }

    /// Whether the loser's engine misbehaved.
    pub fn engine_fault(&self) -> bool {
        self.faulty().is_some()
    }

    /// Whether the game was decided by adjudication (`-draw`, `-resign`).
    pub fn adjudicated(&self) -> bool {
        self.row().pgn == PgnTermination::Adjudication
    }

    /// A forbidden move that ended the game (it is not on the board; SGF and the journal show it).
    pub fn forbidden_move(&self) -> Option<Pos> {
        match self {
            Termination::Forbidden { at, .. } => Some(*at),
            Termination::Five { .. }
            | Termination::IllegalMove { .. }
            | Termination::TimeForfeit { .. }
            | Termination::Crash { .. }
            | Termination::FailedStart { .. }
            | Termination::MemoryLimit { .. }
            | Termination::EngineError { .. }
            | Termination::FullBoard
            | Termination::DrawAfter { .. }
            | Termination::SwapIllegal { .. }
            | Termination::AdjudicatedDraw { .. }
            | Termination::AdjudicatedResign { .. } => None,
        }
    }

    /// Whether the game counts for training samples.
    pub fn yields_samples(&self) -> bool {
        self.row().samples
    }

    /// PGN's standard `Termination` tag value.
    pub fn pgn_termination(&self) -> &'static str {
        self.row().pgn.as_str()
    }

    /// SGF's `RE` value: `B+`/`W+` (five), `B+T`/`W+T` (time), `B+R`/`W+R` (adjudicated
    /// resignation), `B+F`/`W+F` (forfeit), `0` (draw).
    pub fn sgf_result(&self) -> String {
        match self.result().winner() {
            None => "0".into(),
            Some(Color::Black) => format!("B+{}", self.row().sgf),
            Some(Color::White) => format!("W+{}", self.row().sgf),
        }
    }

    /// Human text, points in pos notation like the records: "black makes five", "white loses on
    /// time (5.123 s > 5.000 s)", "black played a forbidden move (double-three) at j6".
    pub fn reason(&self, size: BoardSize) -> String {
        match self {
            Termination::Five { winner, .. } => format!("{winner} makes five"),
            Termination::Forbidden { kind, at } => {
                format!(
                    "black played a forbidden move ({kind}) at {}",
                    point(*at, size)
                )
            }
            Termination::IllegalMove { by, kind, text, at } => match (kind, at) {
                (IllegalMoveKind::Unparsable, _) => {
                    format!("{by} sent an unparsable move {text:?}")
                }
                (IllegalMoveKind::Occupied, Some(p)) => format!(
                    "{by} played an illegal move {} (occupied point)",
                    point(*p, size)
                ),
                (IllegalMoveKind::Occupied, None) => {
                    format!("{by} played an illegal move {text} (occupied point)")
                }
                (IllegalMoveKind::OffBoard, _) => {
                    format!("{by} played an illegal move {text} (off the board)")
                }
            },
            Termination::TimeForfeit {
                by,
                elapsed,
                limit,
                said,
            } => {
                let instead = said
                    .as_ref()
                    .map_or(String::new(), |s| format!(", having answered only {s:?}"));
                format!(
                    "{by} loses on time ({} > {}{instead})",
                    seconds(*elapsed),
                    seconds(*limit)
                )
            }
            Termination::Crash { by, status } => format!("{by} engine crashed ({status})"),
            Termination::FailedStart { by, text } => format!("{by} failed to start: {text}"),
            Termination::MemoryLimit { by, peak, limit } => format!(
                "{by} exceeded its memory limit ({} MiB > {} MiB)",
                peak >> 20,
                limit >> 20
            ),
            Termination::EngineError { by, text } => {
                format!("{by} answered {text:?} instead of a move")
            }
            Termination::FullBoard => "board full".into(),
            Termination::DrawAfter { stones } => format!("draw after {stones} stones"),
            Termination::SwapIllegal { by, answer, why } => {
                format!("{by} gave an illegal SWAP2BOARD answer {answer:?}: {why}")
            }
            Termination::AdjudicatedDraw {
                moves,
                score,
                black,
                white,
            } => format!(
                "adjudicated draw: both evals within {score} of zero for {moves} moves each \
                 (black {black}, white {white})"
            ),
            Termination::AdjudicatedResign {
                by,
                moves,
                eval,
                score,
                opponent,
            } => resign_reason(*by, *moves, *eval, *score, *opponent),
        }
    }
}

/// The reason text of an adjudicated resignation (see [`Termination::AdjudicatedResign`]).
fn resign_reason(
    by: Color,
    moves: u32,
    eval: Eval,
    score: Option<u32>,
    opponent: Option<Eval>,
) -> String {
    let why = match score {
        None => format!("reported a proven loss on {moves} moves in a row (last {eval})"),
        Some(s) => format!("eval at or below -{s} for {moves} moves (last {eval})"),
    };
    let agreed = opponent.map_or(String::new(), |o| {
        format!(", {} agreed ({o})", by.opponent())
    });
    format!("{by} resigns by adjudication: {why}{agreed}")
}

/// A time in seconds to the millisecond (`5.123 s`), as reasons show it.
pub fn seconds(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// One termination of each kind: a new kind makes the test below fail until it is added
    /// here (and to [`TerminationKind::ALL`]).
    pub(crate) fn one_of_each() -> Vec<Termination> {
        let (by, at) = (Color::Black, Pos::new(7, 7));
        vec![
            Termination::Five {
                winner: by,
                line: vec![],
            },
            Termination::Forbidden {
                kind: ForbiddenKind::Overline,
                at,
            },
            Termination::IllegalMove {
                by,
                kind: IllegalMoveKind::Occupied,
                text: "7,7".into(),
                at: Some(at),
            },
            Termination::TimeForfeit {
                by,
                elapsed: Duration::from_secs(2),
                limit: Duration::from_secs(1),
                said: None,
            },
            Termination::Crash {
                by,
                status: "exit status 1".into(),
            },
            Termination::FailedStart {
                by,
                text: "x".into(),
            },
            Termination::MemoryLimit {
                by,
                peak: 2,
                limit: 1,
            },
            Termination::EngineError {
                by,
                text: "ERROR".into(),
            },
            Termination::FullBoard,
            Termination::DrawAfter { stones: 100 },
            Termination::SwapIllegal {
                by,
                answer: "x".into(),
                why: "y".into(),
            },
            Termination::AdjudicatedDraw {
                moves: 4,
                score: 10,
                black: Eval::Score(3),
                white: Eval::Score(-5),
            },
            Termination::AdjudicatedResign {
                by,
                moves: 3,
                eval: Eval::Score(-500),
                score: Some(400),
                opponent: Some(Eval::Score(450)),
            },
        ]
    }

    #[test]
    fn results_read_back_what_they_write_and_nothing_else() {
        for r in [
            GameResult::BlackWins,
            GameResult::WhiteWins,
            GameResult::Draw,
        ] {
            assert_eq!(r.as_str().parse::<GameResult>(), Ok(r));
            assert_eq!(format!(" {} ", r.as_str()).parse::<GameResult>(), Ok(r));
        }
        for bad in ["", "1-1", "½-½", "1/2", "B+", "1-0x"] {
            assert_eq!(
                bad.parse::<GameResult>(),
                Err(UnknownResult(bad.to_string())),
                "{bad}"
            );
        }
    }

    #[test]
    fn termination_derives_result_loser_and_fault() {
        let by = Color::White;
        let cases = [
            (
                Termination::Five {
                    winner: Color::Black,
                    line: vec![],
                },
                GameResult::BlackWins,
                None,
            ),
            (
                Termination::Crash {
                    by,
                    status: "x".into(),
                },
                GameResult::BlackWins,
                Some(by),
            ),
            (
                Termination::FailedStart {
                    by: Color::Black,
                    text: "x".into(),
                },
                GameResult::WhiteWins,
                Some(Color::Black),
            ),
            (
                Termination::TimeForfeit {
                    by,
                    elapsed: Duration::ZERO,
                    limit: Duration::ZERO,
                    said: None,
                },
                GameResult::BlackWins,
                Some(by),
            ),
            (
                Termination::IllegalMove {
                    by,
                    kind: IllegalMoveKind::OffBoard,
                    text: "x".into(),
                    at: None,
                },
                GameResult::BlackWins,
                None,
            ),
            (
                Termination::Forbidden {
                    kind: crate::core::rules::ForbiddenKind::Overline,
                    at: Pos::new(0, 0),
                },
                GameResult::WhiteWins,
                None,
            ),
            (Termination::FullBoard, GameResult::Draw, None),
            (Termination::DrawAfter { stones: 9 }, GameResult::Draw, None),
        ];
        for (t, result, faulty) in cases {
            assert_eq!(t.result(), result, "{t:?}");
            assert_eq!(t.faulty(), faulty, "{t:?}");
            assert_eq!(t.engine_fault(), faulty.is_some(), "{t:?}");
            assert_eq!(t.loser(), result.winner().map(Color::opponent), "{t:?}");
        }
    }

    #[test]
    fn every_kind_is_in_the_table_once_and_every_termination_has_its_kind() {
        let mut seen = std::collections::HashSet::new();
        for k in TerminationKind::ALL {
            assert!(seen.insert(k), "{k:?} twice in ALL");
        }
        let kinds: std::collections::HashSet<TerminationKind> =
            one_of_each().iter().map(Termination::kind).collect();
        assert_eq!(kinds, seen);
        let mut codes: Vec<&str> = TerminationKind::ALL.iter().map(|k| k.row().code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), TerminationKind::ALL.len(), "no code twice");
    }

    #[test]
    fn the_code_is_the_journal_s_how_tag() {
        for t in one_of_each() {
            let json = serde_json::to_value(&t).unwrap();
            assert_eq!(json["how"], t.code(), "{t:?}");
        }
    }

    #[test]
    fn every_termination_reads_back_as_its_own_code_and_label() {
        for t in one_of_each() {
            let code = termination_code(t.code());
            assert_eq!(code, t.code());
            assert_eq!(termination_label(code), t.row().label);
            assert_ne!(termination_label(code), OTHER_TERMINATION, "{code}");
        }
        assert_eq!(termination_code("resigned"), OTHER_TERMINATION);
        assert_eq!(termination_label("resigned"), "other");
    }

    #[test]
    fn the_table_agrees_with_who_loses() {
        for t in one_of_each() {
            let row = t.row();
            // A fault is the loser's; a draw's RE is `0`, so only a decisive end has a suffix.
            assert!(!row.fault || t.loser().is_some(), "{t:?}");
            assert!(row.sgf.is_empty() || t.loser().is_some(), "{t:?}");
            assert_eq!(t.adjudicated(), row.pgn == PgnTermination::Adjudication);
        }
    }

    #[test]
    fn pgn_and_sgf_forms() {
        let by = Color::White;
        let time = Termination::TimeForfeit {
            by,
            elapsed: Duration::ZERO,
            limit: Duration::ZERO,
            said: None,
        };
        assert_eq!(time.pgn_termination(), "time forfeit");
        assert_eq!(time.sgf_result(), "B+T");
        let crash = Termination::Crash {
            by,
            status: "x".into(),
        };
        assert_eq!(crash.pgn_termination(), "abandoned");
        assert_eq!(crash.sgf_result(), "B+F");
        let five = Termination::Five {
            winner: by,
            line: vec![],
        };
        assert_eq!(
            (five.pgn_termination(), five.sgf_result().as_str()),
            ("normal", "W+")
        );
        assert_eq!(Termination::FullBoard.sgf_result(), "0");
    }
}
