//! The `judge` command's logic: read positions line by line and report, as one JSON object per line,
//! who is to move, whether a five already stands and which points are forbidden for black.
//!
//! A line is either a move sequence in pos notation (`h8i9j10`, black first) or a board
//! `SIZE:ROW/ROW/...` (rows from the top, `X` black, `O` white, `.` empty). Pure apart from the
//! reader and writer handed in, so the binary only parses flags and wires stdin/stdout.

use std::io::{BufRead, Write};

use serde::Serialize;
use thiserror::Error;

use crate::board::{parse_pos_sequence, Board, BoardError, BoardSize, Color};
use crate::rules::{forbidden_points, standing_winner, MoveOutcome, Referee, Rule};

/// What the judge says about one position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JudgeReport {
    pub size: u8,
    /// `"black"` or `"white"`.
    pub to_move: &'static str,
    /// `"black"` or `"white"` when a winning five already stands, else `null`.
    pub winner: Option<&'static str>,
    /// Forbidden points for black, sorted by y then x; empty for rules other than renju.
    pub forbidden: Vec<ForbiddenPoint>,
}

/// One forbidden point in a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ForbiddenPoint {
    pub x: u8,
    pub y: u8,
    /// `"33"`, `"44"` or `"6"`.
    pub kind: &'static str,
}

/// Why a line could not be judged.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JudgeError {
    #[error("board size {0:?} is not a number")]
    BadSizeText(String),
    #[error(transparent)]
    Board(#[from] BoardError),
    #[error("impossible stone counts: {black} black and {white} white (black moves first, colours alternate)")]
    StoneCounts { black: usize, white: usize },
    #[error("move {index} ({mv}) is on an occupied point")]
    Occupied { index: usize, mv: String },
    #[error("move {index} ({mv}) is forbidden for black ({kind})")]
    Forbidden {
        index: usize,
        mv: String,
        kind: &'static str,
    },
    #[error("move {index} ({mv}) is played after {winner} already won")]
    AfterWin {
        index: usize,
        mv: String,
        winner: &'static str,
    },
}

/// Counts from one `run_judge` pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JudgeSummary {
    /// Non-blank lines read (each produced one output line).
    pub lines: usize,
    /// Lines that produced an error object.
    pub errors: usize,
}

#[derive(Serialize)]
struct ErrorLine<'a> {
    error: String,
    line: usize,
    input: &'a str,
}

/// Judge one non-blank input line. `default_size` is the board size for move sequences.
pub fn judge_line(
    line: &str,
    rule: Rule,
    default_size: BoardSize,
) -> Result<JudgeReport, JudgeError> {
    let text = line.trim();
    let board = match text.split_once(':') {
        Some((size, rows)) => parse_board(size.trim(), rows.trim())?,
        None => play_sequence(text, rule, default_size)?,
    };
    Ok(report(&board, rule))
}

/// Judge every line of `input`, writing one JSON object per non-blank line to `out`.
/// Bad lines produce `{"error":..,"line":N,"input":..}` and processing continues; only I/O errors
/// stop it.
pub fn run_judge<R: BufRead, W: Write>(
    input: R,
    rule: Rule,
    default_size: BoardSize,
    out: &mut W,
) -> std::io::Result<JudgeSummary> {
    let mut summary = JudgeSummary::default();
    for (i, line) in input.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        summary.lines += 1;
        let json = match judge_line(&line, rule, default_size) {
            Ok(report) => serde_json::to_string(&report),
            Err(e) => {
                summary.errors += 1;
                serde_json::to_string(&ErrorLine {
                    error: e.to_string(),
                    line: i + 1,
                    input: line.trim(),
                })
            }
        }
        .map_err(std::io::Error::other)?;
        writeln!(out, "{json}")?;
    }
    out.flush()?;
    Ok(summary)
}

fn report(board: &Board, rule: Rule) -> JudgeReport {
    let (black, white) = counts(board);
    JudgeReport {
        size: board.size().get(),
        to_move: if black == white { "black" } else { "white" },
        winner: standing_winner(board, rule).map(|(c, _)| c.name()),
        forbidden: forbidden_points(board, rule)
            .into_iter()
            .map(|(p, k)| ForbiddenPoint {
                x: p.x,
                y: p.y,
                kind: k.code(),
            })
            .collect(),
    }
}

fn counts(board: &Board) -> (usize, usize) {
    let black = board
        .history()
        .iter()
        .filter(|&&p| board.get(p) == Some(Color::Black))
        .count();
    (black, board.stone_count() - black)
}

fn parse_board(size_text: &str, rows_text: &str) -> Result<Board, JudgeError> {
    let n: u32 = size_text
        .parse()
        .map_err(|_| JudgeError::BadSizeText(size_text.to_string()))?;
    let size = BoardSize::new(n)?;
    let rows: Vec<&str> = rows_text.split('/').collect();
    let board = Board::from_rows(size, &rows)?;
    let (black, white) = counts(&board);
    if black != white && black != white + 1 {
        return Err(JudgeError::StoneCounts { black, white });
    }
    Ok(board)
}

fn play_sequence(text: &str, rule: Rule, size: BoardSize) -> Result<Board, JudgeError> {
    // Spaces between moves are tolerated: `h8 i9 j10` reads like `h8i9j10`.
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let moves = parse_pos_sequence(&compact, size)?;
    let mut referee = Referee::new(rule, size);
    let mut winner: Option<Color> = None;
    for (i, &m) in moves.iter().enumerate() {
        let index = i + 1;
        let mv = || m.to_pos_notation(size).unwrap_or_else(|_| m.to_string());
        if let Some(w) = winner {
            return Err(JudgeError::AfterWin {
                index,
                mv: mv(),
                winner: w.name(),
            });
        }
        match referee.play(m) {
            MoveOutcome::Continue | MoveOutcome::Draw => {}
            MoveOutcome::Win { color, .. } => winner = Some(color),
            MoveOutcome::Illegal(_) => return Err(JudgeError::Occupied { index, mv: mv() }),
            MoveOutcome::Forbidden(kind) => {
                return Err(JudgeError::Forbidden {
                    index,
                    mv: mv(),
                    kind: kind.describe(),
                })
            }
        }
    }
    Ok(referee.board().clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    const S15: BoardSize = BoardSize::STANDARD;

    fn run(input: &str, rule: Rule) -> (Vec<serde_json::Value>, JudgeSummary) {
        let mut out = Vec::new();
        let summary = run_judge(input.as_bytes(), rule, S15, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let values = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (values, summary)
    }

    #[test]
    fn move_sequence_report() {
        let r = judge_line("h8i9j10", Rule::Renju, S15).unwrap();
        assert_eq!(r.size, 15);
        assert_eq!(r.to_move, "white");
        assert_eq!(r.winner, None);
        assert!(r.forbidden.is_empty());
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(
            json,
            r#"{"size":15,"to_move":"white","winner":null,"forbidden":[]}"#
        );
        // Spaces between moves are fine.
        assert_eq!(judge_line(" h8 i9 j10 ", Rule::Renju, S15).unwrap(), r);
    }

    #[test]
    fn board_form_and_sorting() {
        // Two crossings of open twos, completed at the starred points into double-threes; 8 black
        // and 8 white stones (white far away), so black is to move.
        let rows = [
            "OO........",
            "......X...",
            "......X...",
            "......*XX.",
            "..........",
            "..X.......",
            "..X.......",
            "..*XX.....",
            "..........",
            "OO....OOOO",
        ];
        let line = format!("10:{}", rows.join("/").replace('*', "."));
        let r = judge_line(&line, Rule::Renju, S15).unwrap();
        assert_eq!(r.to_move, "black");
        assert_eq!(r.winner, None);
        let pts: Vec<(u8, u8, &str)> = r.forbidden.iter().map(|f| (f.x, f.y, f.kind)).collect();
        // Reading order (y, then x), not column order.
        assert_eq!(pts, vec![(6, 3, "33"), (2, 7, "33")]);
        // Other rules never list forbidden points.
        assert!(judge_line(&line, Rule::Freestyle, S15)
            .unwrap()
            .forbidden
            .is_empty());
    }

    #[test]
    fn winner_and_to_move_from_counts() {
        let r = judge_line("5:XXXXX/OOOO./...../...../.....", Rule::Freestyle, S15).unwrap();
        assert_eq!(r.winner, Some("black"));
        assert_eq!(r.to_move, "white");
        let r = judge_line("5:XXXX./OOOOO/X..../...../.....", Rule::Freestyle, S15).unwrap();
        assert_eq!(r.winner, Some("white"));
        assert_eq!(r.to_move, "black");
        // A sequence ending on a five reports the winner.
        let r = judge_line("a1a2b1b2c1c2d1d2e1", Rule::Freestyle, S15).unwrap();
        assert_eq!(r.winner, Some("black"));
    }

    #[test]
    fn errors_name_the_problem() {
        let err = |l: &str| judge_line(l, Rule::Renju, S15).unwrap_err();
        assert_eq!(
            err("h8h8"),
            JudgeError::Occupied {
                index: 2,
                mv: "h8".into()
            }
        );
        assert!(matches!(err("h8z9"), JudgeError::Board(_)));
        assert!(matches!(err("x:....."), JudgeError::BadSizeText(_)));
        assert!(matches!(err("4:..../..../..../...."), JudgeError::Board(_)));
        assert_eq!(
            err("5:...../...../....."),
            JudgeError::Board(BoardError::RowCount { found: 3, size: 5 })
        );
        assert_eq!(
            err("5:...../..../...../...../....."),
            JudgeError::Board(BoardError::RowLength {
                row: 2,
                found: 4,
                size: 5
            })
        );
        assert_eq!(
            err("5:...../..x../...../...../....."),
            JudgeError::Board(BoardError::BadCell {
                row: 2,
                col: 3,
                ch: 'x'
            })
        );
        assert_eq!(
            err("5:XX.../...../...../...../....."),
            JudgeError::StoneCounts { black: 2, white: 0 }
        );
        assert_eq!(
            err("5:O..../...../...../...../....."),
            JudgeError::StoneCounts { black: 0, white: 1 }
        );
        // Play after a five.
        let e = judge_line("a1a2b1b2c1c2d1d2e1e2", Rule::Freestyle, S15).unwrap_err();
        assert_eq!(
            e,
            JudgeError::AfterWin {
                index: 10,
                mv: "e2".into(),
                winner: "black"
            }
        );
        // Forbidden move mid-sequence: black h8, h7, h9 (white far away) then... build a
        // double-three at j8: black h8 i8 / j10 j9 with white elsewhere.
        let e = err("h8a1i8a3j10a5j9a7j8");
        assert!(
            matches!(
                e,
                JudgeError::Forbidden {
                    index: 9,
                    kind: "double-three",
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("j8"), "{e}");
    }

    #[test]
    fn run_judge_keeps_going_after_errors() {
        let input = "h8\n\n  \nh8h8\n5:...../...../...../...../.....\nbogus!\n";
        let (values, summary) = run(input, Rule::Renju);
        assert_eq!(
            summary,
            JudgeSummary {
                lines: 4,
                errors: 2
            }
        );
        assert_eq!(values.len(), 4);
        assert_eq!(values[0]["to_move"], "white");
        assert_eq!(values[1]["line"], 4);
        assert_eq!(values[1]["input"], "h8h8");
        assert!(values[1]["error"].as_str().unwrap().contains("occupied"));
        assert_eq!(values[2]["size"], 5);
        assert_eq!(values[2]["to_move"], "black");
        assert_eq!(values[3]["line"], 6);
        assert_eq!(values[3]["input"], "bogus!");
    }
}
