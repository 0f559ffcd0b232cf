//! The `judge` command's logic: read positions line by line and report, as one JSON object per line,
//! the rule judged under, who is to move (when known), whether a five already stands and which
//! points are forbidden for black.
//!
//! A line is either a move sequence in pos notation (`h8i9j10`, black first) or a board
//! `SIZE:ROW/ROW/...` (rows from the top, `X` black, `O` white, `.` empty). A board may hold any
//! stone counts (problem diagrams, test suites): its side to move is then unknown unless given,
//! while forbidden points, which are black's whoever moves, are listed all the same. Pure apart
//! from the reader and writer handed in, so the binary only parses flags and wires stdin/stdout.

use std::io::{BufRead, Write};

use serde::Serialize;
use thiserror::Error;

use crate::core::board::{parse_pos_sequence, Board, BoardError, BoardSize, Color};
use crate::core::rules::{forbidden_points, winning_line, MoveOutcome, Referee, Rule};

/// How to judge: the rule, the size of move-sequence boards, and what to do about the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JudgeOptions {
    pub rule: Rule,
    /// The board size for move sequences (board lines carry their own).
    pub size: BoardSize,
    /// The side to move on board lines, when known from elsewhere (a problem's caption). Move
    /// sequences decide it themselves.
    pub to_move: Option<Color>,
    /// Refuse board lines whose stone counts no alternating game with black first can reach (and
    /// a `to_move` the counts contradict).
    pub strict: bool,
}

impl JudgeOptions {
    /// Judge under `rule` with sequences on `size` boards: side to move from the stones, not strict.
    pub fn new(rule: Rule, size: BoardSize) -> Self {
        JudgeOptions {
            rule,
            size,
            to_move: None,
            strict: false,
        }
    }
}

/// What the judge says about one position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JudgeReport {
    pub size: u8,
    /// The rule judged under, by name (`"renju"`, `"freestyle"`, `"exact five"`, ...).
    pub rule: &'static str,
    /// `"black"` or `"white"`; `null` when unknown (a board whose counts do not tell, no
    /// `to_move` given). A move sequence, or a board with as many black stones as white (black to
    /// move) or one more (white to move), tells.
    pub to_move: Option<&'static str>,
    /// `"black"` or `"white"` when a winning five already stands, else `null`.
    pub winner: Option<&'static str>,
    /// Forbidden points for black (whoever is to move), sorted by y then x; empty for rules other
    /// than renju.
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
    /// The line holds bytes that are not UTF-8 text (`column` counts bytes from 1).
    #[error("byte {byte:#04x} at column {column} is not UTF-8 text")]
    NotUtf8 { byte: u8, column: usize },
    /// The board size in front of a board picture is not a whole number.
    #[error("board size {0:?} is not a number")]
    BadSizeText(String),
    /// The board picture or move list could not be turned into a position (bad size, rows or notation).
    #[error(transparent)]
    Board(#[from] BoardError),
    /// In strict mode, the stone counts cannot come from alternating play that black starts.
    #[error("impossible stone counts: {black} black and {white} white (black moves first, colours alternate)")]
    StoneCounts { black: usize, white: usize },
    /// In strict mode, the side given as to move is not the side the stone counts say moves next.
    #[error("{to_move} cannot be to move with {black} black and {white} white stones (black moves first, colours alternate)")]
    ToMoveAgainstCounts {
        to_move: &'static str,
        black: usize,
        white: usize,
    },
    /// Both colours have a winning line on the board, which no real game can reach.
    #[error("both black and white have a five: there is no single winner")]
    TwoWinners,
    /// A move in the sequence is played on a point that already holds a stone.
    #[error("move {index} ({mv}) is on an occupied point")]
    Occupied { index: usize, mv: String },
    /// Under renju, a black move in the sequence is a forbidden move.
    #[error("move {index} ({mv}) is forbidden for black ({kind})")]
    Forbidden {
        index: usize,
        mv: String,
        kind: &'static str,
    },
    /// The move sequence continues after one side has already completed a winning line.
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

/// Judge one non-blank input line.
pub fn judge_line(line: &str, options: &JudgeOptions) -> Result<JudgeReport, JudgeError> {
    let text = line.trim();
    let (board, to_move) = match text.split_once(':') {
        Some((size, rows)) => {
            let board = parse_board(size.trim(), rows.trim())?;
            let to_move = board_to_move(&board, options)?;
            (board, to_move)
        }
        None => {
            let board = play_sequence(text, options.rule, options.size)?;
            let to_move = Color::of_ply(board.stone_count());
            (board, Some(to_move))
        }
    };
    report(&board, options.rule, to_move)
}

/// Judge every line of `input`, writing one JSON object per non-blank line to `out`.
/// Bad lines produce `{"error":..,"line":N,"input":..}` and processing continues; only I/O errors
/// stop it. Lines are read as bytes, so a line that is not UTF-8 text is a bad line too.
pub fn run_judge<R: BufRead, W: Write>(
    mut input: R,
    options: &JudgeOptions,
    out: &mut W,
) -> std::io::Result<JudgeSummary> {
    let mut summary = JudgeSummary::default();
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        number += 1;
        let bytes = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let line = String::from_utf8_lossy(bytes);
        if line.trim().is_empty() {
            continue;
        }
        summary.lines += 1;
        let judged = match std::str::from_utf8(bytes) {
            Ok(text) => judge_line(text, options),
            Err(e) => Err(JudgeError::NotUtf8 {
                byte: bytes[e.valid_up_to()],
                column: e.valid_up_to() + 1,
            }),
        };
        let json = match judged {
            Ok(report) => serde_json::to_string(&report),
            Err(e) => {
                summary.errors += 1;
                serde_json::to_string(&ErrorLine {
                    error: e.to_string(),
                    line: number,
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

fn report(board: &Board, rule: Rule, to_move: Option<Color>) -> Result<JudgeReport, JudgeError> {
    let winner = match (
        has_five(board, Color::Black, rule),
        has_five(board, Color::White, rule),
    ) {
        (true, true) => return Err(JudgeError::TwoWinners),
        (true, false) => Some(Color::Black),
        (false, true) => Some(Color::White),
        (false, false) => None,
    };
    Ok(JudgeReport {
        size: board.size().get(),
        rule: rule.name(),
        to_move: to_move.map(Color::name),
        winner: winner.map(Color::name),
        forbidden: forbidden_points(board, rule)
            .into_iter()
            .map(|(p, k)| ForbiddenPoint {
                x: p.x,
                y: p.y,
                kind: k.code(),
            })
            .collect(),
    })
}

/// Whether a winning five for `color` stands on the board.
fn has_five(board: &Board, color: Color, rule: Rule) -> bool {
    board
        .size()
        .all()
        .any(|p| board.get(p) == Some(color) && winning_line(board, p, color, rule).is_some())
}

/// The side to move on a board line: given, or told by the counts (equal: black; one more black:
/// white), else unknown. Strict: the counts must be reachable and agree with a given side.
fn board_to_move(board: &Board, options: &JudgeOptions) -> Result<Option<Color>, JudgeError> {
    let (black, white) = counts(board);
    let from_counts = if black == white {
        Some(Color::Black)
    } else if black == white + 1 {
        Some(Color::White)
    } else {
        None
    };
    if !options.strict {
        return Ok(options.to_move.or(from_counts));
    }
    match (from_counts, options.to_move) {
        (None, _) => Err(JudgeError::StoneCounts { black, white }),
        (Some(c), Some(given)) if c != given => Err(JudgeError::ToMoveAgainstCounts {
            to_move: given.name(),
            black,
            white,
        }),
        (Some(c), _) => Ok(Some(c)),
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
    Ok(Board::from_rows(size, &rows)?)
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

    fn opts(rule: Rule) -> JudgeOptions {
        JudgeOptions::new(rule, S15)
    }

    fn run(input: &str, rule: Rule) -> (Vec<serde_json::Value>, JudgeSummary) {
        let mut out = Vec::new();
        let summary = run_judge(input.as_bytes(), &opts(rule), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let values = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (values, summary)
    }

    #[test]
    fn move_sequence_report() {
        let r = judge_line("h8i9j10", &opts(Rule::Renju)).unwrap();
        assert_eq!(r.size, 15);
        assert_eq!(r.to_move, Some("white"));
        assert_eq!(r.winner, None);
        assert!(r.forbidden.is_empty());
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(
            json,
            r#"{"size":15,"rule":"renju","to_move":"white","winner":null,"forbidden":[]}"#
        );
        // Spaces between moves are fine.
        assert_eq!(judge_line(" h8 i9 j10 ", &opts(Rule::Renju)).unwrap(), r);
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
        let r = judge_line(&line, &opts(Rule::Renju)).unwrap();
        assert_eq!(r.to_move, Some("black"));
        assert_eq!(r.winner, None);
        let pts: Vec<(u8, u8, &str)> = r.forbidden.iter().map(|f| (f.x, f.y, f.kind)).collect();
        // Reading order (y, then x), not column order.
        assert_eq!(pts, vec![(6, 3, "33"), (2, 7, "33")]);
        // Other rules never list forbidden points.
        assert!(judge_line(&line, &opts(Rule::Freestyle))
            .unwrap()
            .forbidden
            .is_empty());
    }

    #[test]
    fn winner_and_to_move_from_counts() {
        let r = judge_line("5:XXXXX/OOOO./...../...../.....", &opts(Rule::Freestyle)).unwrap();
        assert_eq!(r.winner, Some("black"));
        assert_eq!(r.to_move, Some("white"));
        let r = judge_line("5:XXXX./OOOOO/X..../...../.....", &opts(Rule::Freestyle)).unwrap();
        assert_eq!(r.winner, Some("white"));
        assert_eq!(r.to_move, Some("black"));
        // A sequence ending on a five reports the winner.
        let r = judge_line("a1a2b1b2c1c2d1d2e1", &opts(Rule::Freestyle)).unwrap();
        assert_eq!(r.winner, Some("black"));
    }

    #[test]
    fn errors_name_the_problem() {
        let err = |l: &str| judge_line(l, &opts(Rule::Renju)).unwrap_err();
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
        // Play after a five.
        let e = judge_line("a1a2b1b2c1c2d1d2e1e2", &opts(Rule::Freestyle)).unwrap_err();
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
    fn any_stone_counts_are_judged_with_the_side_to_move_unknown() {
        // A diagram with black g8 h8 (row) and i9 i10 (column) and no white stone, 4 against 0:
        // i8 makes two open threes, a double-three.
        let mut rows = vec![".".repeat(15); 15];
        for (x, y) in [(6usize, 7usize), (7, 7), (8, 8), (8, 9)] {
            rows[y].replace_range(x..x + 1, "X");
        }
        let line = format!("15:{}", rows.join("/"));
        let r = judge_line(&line, &opts(Rule::Renju)).unwrap();
        assert_eq!(r.to_move, None);
        assert_eq!(r.winner, None);
        assert_eq!(r.rule, "renju");
        let pts: Vec<(u8, u8, &str)> = r.forbidden.iter().map(|f| (f.x, f.y, f.kind)).collect();
        assert!(pts.contains(&(8, 7, "33")), "{pts:?}");
        let json = serde_json::to_value(&r).unwrap();
        assert!(json["to_move"].is_null(), "{json}");
        // A given side is reported; the forbidden points do not depend on it.
        for c in [Color::Black, Color::White] {
            let given = JudgeOptions {
                to_move: Some(c),
                ..opts(Rule::Renju)
            };
            let g = judge_line(&line, &given).unwrap();
            assert_eq!(g.to_move, Some(c.name()));
            assert_eq!(g.forbidden, r.forbidden);
        }
        // White stones only, and the given side beats the counts when not strict.
        let white_only = "5:O..../...../...../...../.....";
        assert_eq!(
            judge_line(white_only, &opts(Rule::Renju)).unwrap().to_move,
            None
        );
        let given = JudgeOptions {
            to_move: Some(Color::White),
            ..opts(Rule::Renju)
        };
        let equal = "5:X..../O..../...../...../.....";
        assert_eq!(judge_line(equal, &given).unwrap().to_move, Some("white"));
        // Move sequences tell the side to move themselves.
        assert_eq!(judge_line("h8", &given).unwrap().to_move, Some("white"));
        assert_eq!(judge_line("h8i9", &given).unwrap().to_move, Some("black"));
    }

    #[test]
    fn strict_refuses_unreachable_counts_and_a_contradicting_side() {
        let strict = JudgeOptions {
            strict: true,
            ..opts(Rule::Renju)
        };
        let err = |l: &str, o: &JudgeOptions| judge_line(l, o).unwrap_err();
        assert_eq!(
            err("5:XX.../...../...../...../.....", &strict),
            JudgeError::StoneCounts { black: 2, white: 0 }
        );
        assert_eq!(
            err("5:O..../...../...../...../.....", &strict),
            JudgeError::StoneCounts { black: 0, white: 1 }
        );
        let ok = judge_line("5:X..../...../...../...../.....", &strict).unwrap();
        assert_eq!(ok.to_move, Some("white"));
        let black = JudgeOptions {
            to_move: Some(Color::Black),
            ..strict
        };
        let e = err("5:X..../...../...../...../.....", &black);
        assert_eq!(
            e,
            JudgeError::ToMoveAgainstCounts {
                to_move: "black",
                black: 1,
                white: 0
            }
        );
        assert!(e.to_string().contains("black cannot be to move"), "{e}");
        let ok = judge_line("5:X..../O..../...../...../.....", &black).unwrap();
        assert_eq!(ok.to_move, Some("black"));
    }

    #[test]
    fn a_five_for_each_colour_names_no_winner() {
        // Reachable counts (6 and 5), yet both have a five: no game gets there.
        let both = "5:XXXXX/OOOOO/X..../...../.....";
        assert_eq!(
            judge_line(both, &opts(Rule::Freestyle)).unwrap_err(),
            JudgeError::TwoWinners
        );
        // Under renju black's six is no five, so white alone has won.
        let six = "6:XXXXXX/OOOOO./....../....../....../......";
        let r = judge_line(six, &opts(Rule::Renju)).unwrap();
        assert_eq!(r.winner, Some("white"));
        assert_eq!(
            r.to_move,
            Some("white"),
            "6 black and 5 white: white to move"
        );
    }

    #[test]
    fn reports_name_the_rule() {
        for rule in Rule::ALL {
            assert_eq!(judge_line("h8", &opts(rule)).unwrap().rule, rule.name());
        }
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
