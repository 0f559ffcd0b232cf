//! Piskvork `.psq` game records, the format of Gomocup's game archives: rendering a finished game
//! and reading a record back (board size, stones, think times, players). Pure text in, text out.
//!
//! Shape (see `../shared/reference/formats.md`): a header `Piskvorky WxH, 7:7, 0`, one line
//! `x,y,ms` per stone (1-based column and row from the top-left, think time in milliseconds, black
//! first), then the players' names and a final number. Readers of the moves only need the header's
//! size and the move lines, so the reader is lenient about what follows the moves (Gomocup's
//! archives add a `-1` and a `1,Freestyle` line, for instance).

use std::fmt::Write;

use thiserror::Error;

use crate::core::board::{BoardSize, Pos};

use crate::game::record::GameRecord;

/// What follows the board size in the header: Piskvork writes these, readers of the moves ignore
/// them, and we write them as the sample record has them.
const HEADER_TAIL: &str = "7:7, 0";

/// One stone of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PsqMove {
    /// Gomocup coordinates (0-based; the file holds them 1-based).
    pub pos: Pos,
    /// Think time in milliseconds (0 for opening stones).
    pub time_ms: u64,
    /// 1-based line of the record the stone is on.
    pub line: usize,
}

/// A `.psq` record: the board, the stones in play order (black first), and the players.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PsqGame {
    pub width: u8,
    pub height: u8,
    pub moves: Vec<PsqMove>,
    /// Black's and white's program names, when the record names both.
    pub players: Option<(String, String)>,
}

/// What is wrong with a line of a record.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PsqProblem {
    /// The first line is not `Piskvorky WxH, ...` with a board size of 1 to 255 each way.
    #[error("not a Piskvork header (expected \"Piskvorky WxH, ...\"): {why}")]
    BadHeader { why: String },
    /// A line among the moves starts like a move (`x,`) but is not `x,y` or `x,y,ms`.
    #[error("bad move line (expected x,y,ms): {why}")]
    BadMove { why: String },
    /// A move's point is outside the board the header gives.
    #[error("point {x},{y} is off the {width}x{height} board")]
    OffBoard {
        x: i64,
        y: i64,
        width: u8,
        height: u8,
    },
    /// A move is on a point an earlier move took.
    #[error("the point is already taken by the move on line {first_line}")]
    Occupied { first_line: usize },
    /// A move line after the moves had ended (with a line that is not a move): a damaged move
    /// line in the middle of the moves, most likely.
    #[error("a move after the moves ended on line {end_line}")]
    MoveAfterEnd { end_line: usize },
}

/// A record that cannot be read: the line, its text and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {problem}: {text:?}")]
pub struct PsqError {
    /// 1-based line number.
    pub line: usize,
    /// The line as found (trimmed).
    pub text: String,
    pub problem: PsqProblem,
}

impl PsqGame {
    /// A record on a square board of `stones` (with their think times) in play order, each on
    /// the line it is written on.
    pub fn new(
        size: BoardSize,
        stones: impl IntoIterator<Item = (Pos, u64)>,
        players: Option<(String, String)>,
    ) -> PsqGame {
        let moves = stones
            .into_iter()
            .enumerate()
            .map(|(i, (pos, time_ms))| PsqMove {
                pos,
                time_ms,
                line: i + 2,
            })
            .collect();
        PsqGame {
            width: size.get(),
            height: size.get(),
            moves,
            players,
        }
    }

    /// The record of a finished game: the opening stones first (think time 0), then the moves
    /// played. A renju foul that ended the game is not a stone on the board and is left out.
    pub fn from_record(r: &GameRecord) -> PsqGame {
        let times = r
            .opening
            .iter()
            .map(|_| 0)
            .chain(r.outcome.moves.iter().map(|m| m.time.as_millis() as u64));
        let players = (r.black_name.clone(), r.white_name.clone());
        PsqGame::new(r.size, r.all_stones().into_iter().zip(times), Some(players))
    }

    /// The stones in play order.
    pub fn stones(&self) -> Vec<Pos> {
        self.moves.iter().map(|m| m.pos).collect()
    }

    /// The record as text: header, move lines, the two names (when known), `0`.
    pub fn render(&self) -> String {
        let mut s = format!("Piskvorky {}x{}, {HEADER_TAIL}\n", self.width, self.height);
        for m in &self.moves {
            let _ = writeln!(s, "{},{},{}", m.pos.x + 1, m.pos.y + 1, m.time_ms);
        }
        if let Some((black, white)) = &self.players {
            let _ = writeln!(s, "{}\n{}", one_line(black), one_line(white));
        }
        s.push_str("0\n");
        s
    }
}

/// A finished game as a `.psq` record.
pub fn render(r: &GameRecord) -> String {
    PsqGame::from_record(r).render()
}

/// A name on a line of its own: line ends and other control characters become spaces.
fn one_line(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Read a `.psq` record. CR LF endings, a byte-order mark, blank lines and a missing final newline
/// are accepted; every other problem is an error naming the line.
pub fn parse(text: &str) -> Result<PsqGame, PsqError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split('\n').enumerate().map(|(i, l)| (i + 1, l.trim()));
    let (line, header) = lines.next().unwrap_or((1, ""));
    let (width, height) = parse_header(header).map_err(|why| PsqError {
        line,
        text: header.to_string(),
        problem: PsqProblem::BadHeader { why },
    })?;
    let mut game = PsqGame {
        width,
        height,
        moves: Vec::new(),
        players: None,
    };
    let mut taken: Vec<Option<usize>> = vec![None; usize::from(width) * usize::from(height)];
    // The first line after the moves that is not a move, and the lines after it.
    let mut trailer: Vec<(usize, &str)> = Vec::new();
    for (line, text) in lines.filter(|(_, l)| !l.is_empty()) {
        let err = |problem| PsqError {
            line,
            text: text.to_string(),
            problem,
        };
        let Some(fields) = move_fields(text) else {
            trailer.push((line, text));
            continue;
        };
        if let Some(&(end_line, _)) = trailer.first() {
            // Only a whole, well-formed move is taken for a misplaced one: trailers such as
            // Gomocup's `1,Freestyle` are not moves.
            if parse_move(&fields).is_ok() {
                return Err(err(PsqProblem::MoveAfterEnd { end_line }));
            }
            trailer.push((line, text));
            continue;
        }
        let (x, y, time_ms) =
            parse_move(&fields).map_err(|why| err(PsqProblem::BadMove { why }))?;
        if !(1..=i64::from(width)).contains(&x) || !(1..=i64::from(height)).contains(&y) {
            return Err(err(PsqProblem::OffBoard {
                x,
                y,
                width,
                height,
            }));
        }
        let pos = Pos::new((x - 1) as u8, (y - 1) as u8);
        let cell = &mut taken[usize::from(pos.y) * usize::from(width) + usize::from(pos.x)];
        if let Some(first_line) = *cell {
            return Err(err(PsqProblem::Occupied { first_line }));
        }
        *cell = Some(line);
        game.moves.push(PsqMove { pos, time_ms, line });
    }
    game.players = players(&trailer);
    Ok(game)
}

/// `Piskvorky WxH, ...` → (W, H).
fn parse_header(header: &str) -> Result<(u8, u8), String> {
    let rest = header
        .strip_prefix("Piskvorky")
        .ok_or_else(|| "it does not start with \"Piskvorky\"".to_string())?;
    let size = rest.split(',').next().unwrap_or("").trim();
    let (w, h) = size
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("no board size WxH in {size:?}"))?;
    let dim = |d: &str| match d.trim().parse::<u32>() {
        Ok(n @ 1..=255) => Ok(n as u8),
        _ => Err(format!("board size {size:?}: each side is 1 to 255")),
    };
    Ok((dim(w)?, dim(h)?))
}

/// The comma-separated fields of a line that starts like a move (a number, then a comma); `None`
/// for any other line (names, the final number).
fn move_fields(line: &str) -> Option<Vec<&str>> {
    let (first, _) = line.split_once(',')?;
    let first = first.trim();
    let digits = first.strip_prefix(['-', '+']).unwrap_or(first);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(line.split(',').map(str::trim).collect())
}

/// `x,y` or `x,y,ms` as whole numbers (ms not negative).
fn parse_move(fields: &[&str]) -> Result<(i64, i64, u64), String> {
    if !(2..=3).contains(&fields.len()) {
        return Err(format!("{} fields", fields.len()));
    }
    let int = |f: &str| {
        crate::core::numbers::whole_number(f, i64::MIN..=i64::MAX)
            .map_err(|e| format!("{f:?} is not {e}"))
    };
    let time_ms = match fields.get(2) {
        Some(t) => t
            .parse::<u64>()
            .map_err(|_| format!("time {t:?} is not a number of milliseconds"))?,
        None => 0,
    };
    Ok((int(fields[0])?, int(fields[1])?, time_ms))
}

/// The players: the first two lines after the moves, when both are there and neither is the final
/// number.
fn players(trailer: &[(usize, &str)]) -> Option<(String, String)> {
    let is_number = |t: &str| t.parse::<i64>().is_ok();
    match trailer {
        [(_, black), (_, white), ..] if !is_number(black) && !is_number(white) => {
            Some((black.to_string(), white.to_string()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::record::fixtures::sample_record;

    #[test]
    fn a_record_renders_opening_then_moves_then_names() {
        let text = render(&sample_record());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Piskvorky 15x15, 7:7, 0");
        // h8 is Gomocup 7,7: 8,8 in the file; opening stones take no time.
        assert_eq!(&lines[1..4], ["8,8,0", "9,9,0", "8,9,3"]);
        assert_eq!(lines.len(), 1 + 9 + 3);
        assert_eq!(&lines[10..], ["scout", "random", "0"]);
        assert!(text.ends_with("0\n"));
    }

    #[test]
    fn rendered_records_read_back() {
        let r = sample_record();
        let game = parse(&render(&r)).unwrap();
        assert_eq!(game, PsqGame::from_record(&r));
        assert_eq!(game.stones(), r.all_stones());
        let times: Vec<u64> = game.moves.iter().map(|m| m.time_ms).collect();
        assert_eq!(times, [0, 0, 3, 13, 23, 33, 43, 53, 63]);
        assert_eq!(game.players, Some(("scout".into(), "random".into())));
    }

    #[test]
    fn names_stay_on_their_lines() {
        let mut r = sample_record();
        r.black_name = "two\nlines".into();
        let game = parse(&render(&r)).unwrap();
        assert_eq!(game.players.unwrap().0, "two lines");
    }

    #[test]
    fn lenient_about_line_ends_and_trailers() {
        let text = "\u{feff}Piskvorky 20x20, 11:11, 0\r\n10,10,0\r\n\r\n11,11\r\nA 1\r\nB 2\r\n-1\r\n1,Freestyle";
        let game = parse(text).unwrap();
        assert_eq!((game.width, game.height), (20, 20));
        assert_eq!(game.stones(), [Pos::new(9, 9), Pos::new(10, 10)]);
        assert_eq!(game.moves[1].line, 4);
        assert_eq!(game.players, Some(("A 1".into(), "B 2".into())));
        // Only a final number after the moves: no names.
        let game = parse("Piskvorky 15x15, 7:7, 0\n8,8,5\n0\n").unwrap();
        assert_eq!(game.players, None);
        // A rectangular board.
        let game = parse("Piskvorky 20x10, 7:7, 0\n20,10,1\n").unwrap();
        assert_eq!(game.stones(), [Pos::new(19, 9)]);
    }

    fn problem(text: &str) -> (usize, String, PsqProblem) {
        let e = parse(text).unwrap_err();
        (e.line, e.text, e.problem)
    }

    #[test]
    fn errors_name_the_line_and_its_text() {
        let (line, text, p) = problem("Gomoku 15x15\n8,8,0\n");
        assert_eq!((line, text.as_str()), (1, "Gomoku 15x15"));
        assert!(matches!(p, PsqProblem::BadHeader { .. }));
        for bad in [
            "",
            "Piskvorky",
            "Piskvorky 0x15, 1",
            "Piskvorky 300x300",
            "Piskvorky axb",
        ] {
            assert!(
                matches!(problem(bad).2, PsqProblem::BadHeader { .. }),
                "{bad:?}"
            );
        }
        let (line, text, p) = problem("Piskvorky 15x15, 7:7, 0\n8,8,0\n9,x,10\n");
        assert_eq!((line, text.as_str()), (3, "9,x,10"));
        assert!(matches!(p, PsqProblem::BadMove { .. }), "{p}");
        let (_, _, p) = problem("Piskvorky 15x15, 7:7, 0\n8,8,0,4\n");
        assert!(matches!(p, PsqProblem::BadMove { .. }), "{p}");
        let (_, _, p) = problem("Piskvorky 15x15, 7:7, 0\n8,8,-3\n");
        assert!(matches!(p, PsqProblem::BadMove { .. }), "{p}");
        let (line, _, p) = problem("Piskvorky 15x15, 7:7, 0\n8,8,0\n16,1,0\n");
        assert_eq!(line, 3);
        assert_eq!(p.to_string(), "point 16,1 is off the 15x15 board");
        let (_, _, p) = problem("Piskvorky 15x15, 7:7, 0\n0,1,0\n");
        assert!(matches!(p, PsqProblem::OffBoard { .. }));
        let (line, _, p) = problem("Piskvorky 15x15, 7:7, 0\n8,8,0\n9,9,0\n8,8,0\n");
        assert_eq!((line, p), (4, PsqProblem::Occupied { first_line: 2 }));
        let e = parse("Piskvorky 15x15, 7:7, 0\n8,8,0\n9;9;0\n10,10,0\n").unwrap_err();
        assert_eq!(e.line, 4);
        assert_eq!(e.problem, PsqProblem::MoveAfterEnd { end_line: 3 });
        assert_eq!(
            e.to_string(),
            "line 4: a move after the moves ended on line 3: \"10,10,0\""
        );
    }

    #[test]
    fn huge_numbers_are_errors_not_panics() {
        let (_, _, p) = problem("Piskvorky 15x15, 7:7, 0\n99999999999999999999,1,0\n");
        assert!(matches!(p, PsqProblem::BadMove { .. }), "{p}");
        let (_, _, p) = problem("Piskvorky 15x15, 7:7, 0\n-9223372036854775808,1,0\n");
        assert!(matches!(p, PsqProblem::OffBoard { .. }), "{p}");
    }
}
