//! The referee: Gomocup rule codes, win detection, renju forbidden moves and the move-by-move judge.
//!
//! Pure code, no I/O. `Referee::play` is what the game loop calls for every stone.

mod renju;

use std::fmt;

use thiserror::Error;

use crate::core::board::{Board, BoardSize, Color, Pos};

pub use renju::{could_be_forbidden, forbidden_kind};

/// The four line directions: horizontal, vertical, diagonal, anti-diagonal.
pub const DIRECTIONS: [(i64, i64); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// A game rule, by its Gomocup code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// 0: five or more in a row wins.
    Freestyle,
    /// 1: exactly five wins; an overline wins for nobody and the game goes on.
    ExactFive,
    /// 4: renju; black's overline, double-four and double-three are forbidden.
    Renju,
    /// 8: caro as the Gomocup judge plays it: overline wins; an exact five wins unless both ends
    /// are blocked by opponent stones (the edge is not a block).
    Caro,
    /// 9: standard caro: only an exact five not blocked at both ends wins.
    StandardCaro,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RuleError {
    /// A numeric rule code does not match any of the supported game rules.
    #[error("unknown rule code {0} (expected 0 freestyle, 1 exact five, 4 renju, 8 caro, 9 standard caro)")]
    UnknownCode(i64),
}

impl Rule {
    pub const ALL: [Rule; 5] = [
        Rule::Freestyle,
        Rule::ExactFive,
        Rule::Renju,
        Rule::Caro,
        Rule::StandardCaro,
    ];

    pub fn from_code(code: i64) -> Result<Rule, RuleError> {
        match code {
            0 => Ok(Rule::Freestyle),
            1 => Ok(Rule::ExactFive),
            4 => Ok(Rule::Renju),
            8 => Ok(Rule::Caro),
            9 => Ok(Rule::StandardCaro),
            other => Err(RuleError::UnknownCode(other)),
        }
    }

    /// The Gomocup code, also the value of `INFO rule` and of the rule field in samples.
    pub fn code(self) -> u8 {
        match self {
            Rule::Freestyle => 0,
            Rule::ExactFive => 1,
            Rule::Renju => 4,
            Rule::Caro => 8,
            Rule::StandardCaro => 9,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::ExactFive => "exact five",
            Rule::Renju => "renju",
            Rule::Caro => "caro",
            Rule::StandardCaro => "standard caro",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a black move is forbidden in renju.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum ForbiddenKind {
    DoubleThree,
    DoubleFour,
    Overline,
}

impl ForbiddenKind {
    /// The short code used by `judge` and the test data: `"33"`, `"44"`, `"6"`.
    pub fn code(self) -> &'static str {
        match self {
            ForbiddenKind::DoubleThree => "33",
            ForbiddenKind::DoubleFour => "44",
            ForbiddenKind::Overline => "6",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            ForbiddenKind::DoubleThree => "double-three",
            ForbiddenKind::DoubleFour => "double-four",
            ForbiddenKind::Overline => "overline",
        }
    }
}

impl fmt::Display for ForbiddenKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// Why a move cannot be played at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IllegalKind {
    Occupied,
    OffBoard,
}

impl fmt::Display for IllegalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IllegalKind::Occupied => "occupied point",
            IllegalKind::OffBoard => "off the board",
        })
    }
}

/// What happened when a move was played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveOutcome {
    /// Placed; the game goes on.
    Continue,
    /// Placed and wins: the stones of the winning line, from one end to the other.
    Win { color: Color, line: Vec<Pos> },
    /// Placed and the board is now full without a winner.
    Draw,
    /// Not placed: the point cannot be played.
    Illegal(IllegalKind),
    /// Not placed: a renju forbidden point for black (black loses).
    Forbidden(ForbiddenKind),
}

/// Length of the run of `c` through `p` along `(dx, dy)`, with its two end points (inclusive).
/// `p` itself counts as `c` whatever is on it.
pub fn run_through(board: &Board, p: Pos, (dx, dy): (i64, i64), c: Color) -> (usize, Pos, Pos) {
    let (x0, y0) = (p.x as i64, p.y as i64);
    let mut lo = 0;
    while board.at(x0 - (lo + 1) * dx, y0 - (lo + 1) * dy) == Some(c) {
        lo += 1;
    }
    let mut hi = 0;
    while board.at(x0 + (hi + 1) * dx, y0 + (hi + 1) * dy) == Some(c) {
        hi += 1;
    }
    let a = Pos::new((x0 - lo * dx) as u8, (y0 - lo * dy) as u8);
    let b = Pos::new((x0 + hi * dx) as u8, (y0 + hi * dy) as u8);
    ((lo + hi + 1) as usize, a, b)
}

fn line_between(a: Pos, b: Pos, (dx, dy): (i64, i64), len: usize) -> Vec<Pos> {
    let _ = b;
    (0..len as i64)
        .map(|i| Pos::new((a.x as i64 + i * dx) as u8, (a.y as i64 + i * dy) as u8))
        .collect()
}

/// Whether the cell just beyond an end is an opponent stone (the edge does not block).
fn blocked_by(board: &Board, end: Pos, (dx, dy): (i64, i64), opp: Color) -> bool {
    board.at(end.x as i64 + dx, end.y as i64 + dy) == Some(opp)
}

/// Does a stone of `c` at `p` (already on the board or hypothetical) complete a winning line under
/// `rule`? Returns the line. For renju black only an exact five wins (overline is handled as a
/// forbidden move by the caller).
pub fn winning_line(board: &Board, p: Pos, c: Color, rule: Rule) -> Option<Vec<Pos>> {
    let opp = c.opponent();
    for d in DIRECTIONS {
        let (len, a, b) = run_through(board, p, d, c);
        if len < 5 {
            continue;
        }
        let wins = match rule {
            Rule::Freestyle => true,
            Rule::ExactFive => len == 5,
            Rule::Renju => len == 5 || c == Color::White,
            Rule::Caro => {
                len > 5
                    || !(blocked_by(board, a, (-d.0, -d.1), opp) && blocked_by(board, b, d, opp))
            }
            Rule::StandardCaro => {
                len == 5
                    && !(blocked_by(board, a, (-d.0, -d.1), opp) && blocked_by(board, b, d, opp))
            }
        };
        if wins {
            return Some(line_between(a, b, d, len));
        }
    }
    None
}

/// The referee of one game: the board, the rule and the colour to move.
#[derive(Debug, Clone)]
pub struct Referee {
    rule: Rule,
    board: Board,
}

impl Referee {
    pub fn new(rule: Rule, size: BoardSize) -> Self {
        Referee {
            rule,
            board: Board::new(size),
        }
    }

    pub fn rule(&self) -> Rule {
        self.rule
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn side_to_move(&self) -> Color {
        self.board.side_to_move()
    }

    /// Play a move for the side to move, given as signed coordinates so off-board input is judged.
    pub fn play_xy(&mut self, x: i64, y: i64) -> MoveOutcome {
        match self.board.size().pos(x, y) {
            Ok(p) => self.play(p),
            Err(_) => MoveOutcome::Illegal(IllegalKind::OffBoard),
        }
    }

    /// Play a move for the side to move. Illegal and forbidden moves leave the board unchanged.
    pub fn play(&mut self, p: Pos) -> MoveOutcome {
        let size = self.board.size();
        if !size.contains(p.x as i64, p.y as i64) {
            return MoveOutcome::Illegal(IllegalKind::OffBoard);
        }
        if !self.board.is_empty_at(p) {
            return MoveOutcome::Illegal(IllegalKind::Occupied);
        }
        let c = self.side_to_move();
        if self.rule == Rule::Renju && c == Color::Black {
            if let Some(kind) = forbidden_kind(&self.board, p) {
                return MoveOutcome::Forbidden(kind);
            }
        }
        self.board.put(p, c);
        if let Some(line) = winning_line(&self.board, p, c, self.rule) {
            return MoveOutcome::Win { color: c, line };
        }
        if self.board.is_full() {
            return MoveOutcome::Draw;
        }
        MoveOutcome::Continue
    }

    /// Renju forbidden status of an empty point for black in the current position
    /// (whoever is to move). `None` for other rules and occupied points.
    pub fn forbidden_at(&self, p: Pos) -> Option<ForbiddenKind> {
        if self.rule != Rule::Renju || !self.board.is_empty_at(p) {
            return None;
        }
        forbidden_kind(&self.board, p)
    }

    /// Every forbidden point for black, sorted by y then x. Empty for rules other than renju.
    pub fn forbidden_points(&self) -> Vec<(Pos, ForbiddenKind)> {
        forbidden_points(&self.board, self.rule)
    }
}

/// Every forbidden point for black on `board` under `rule`, sorted by y then x.
pub fn forbidden_points(board: &Board, rule: Rule) -> Vec<(Pos, ForbiddenKind)> {
    if rule != Rule::Renju {
        return Vec::new();
    }
    let size = board.size();
    let candidates = renju::could_be_forbidden(board);
    size.all()
        .filter(|&p| candidates[p.index(size)] && board.is_empty_at(p))
        .filter_map(|p| forbidden_kind(board, p).map(|k| (p, k)))
        .collect()
}

/// A five already standing on the board under `rule`, if any: the colour and its line.
/// Used to judge arbitrary positions (the `judge` command, opening validation).
pub fn standing_winner(board: &Board, rule: Rule) -> Option<(Color, Vec<Pos>)> {
    for p in board.size().all() {
        if let Some(c) = board.get(p) {
            if let Some(line) = winning_line(board, p, c, rule) {
                return Some((c, line));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::board::parse_pos_sequence;

    /// A board of `size` whose first rows are given (the rest empty).
    fn board(size: u32, rows: &[&str]) -> Board {
        let n = size as usize;
        let mut full: Vec<String> = rows.iter().map(|r| format!("{r:.<n$}")).collect();
        full.resize(n, ".".repeat(n));
        Board::from_rows(BoardSize::new(size).unwrap(), &full).unwrap()
    }

    #[test]
    fn rule_codes_round_trip() {
        for r in Rule::ALL {
            assert_eq!(Rule::from_code(r.code() as i64), Ok(r));
        }
        assert!(Rule::from_code(2).is_err());
    }

    #[test]
    fn freestyle_five_and_overline_win() {
        let s = BoardSize::new(15).unwrap();
        let mut r = Referee::new(Rule::Freestyle, s);
        let moves = parse_pos_sequence("a1a2b1b2c1c2d1d2", s).unwrap();
        for m in moves {
            assert_eq!(r.play(m), MoveOutcome::Continue);
        }
        match r.play(Pos::new(4, 0)) {
            MoveOutcome::Win { color, line } => {
                assert_eq!(color, Color::Black);
                assert_eq!(line.len(), 5);
                assert_eq!(line[0], Pos::new(0, 0));
            }
            o => panic!("{o:?}"),
        }
        let b = board(9, &["XXX.XX..."]);
        assert!(winning_line(&b, Pos::new(3, 0), Color::Black, Rule::Freestyle).is_some());
        assert!(winning_line(&b, Pos::new(3, 0), Color::Black, Rule::ExactFive).is_none());
    }

    #[test]
    fn caro_blocking() {
        let b = board(9, &["OXXXX.O..", ".........", "XXXX....."]);
        // Exact five blocked at both ends by white: no win in caro, win in freestyle.
        assert!(winning_line(&b, Pos::new(5, 0), Color::Black, Rule::Caro).is_none());
        assert!(winning_line(&b, Pos::new(5, 0), Color::Black, Rule::Freestyle).is_some());
        // Edge is not a block.
        assert!(winning_line(&b, Pos::new(4, 2), Color::Black, Rule::Caro).is_some());
        assert!(winning_line(&b, Pos::new(4, 2), Color::Black, Rule::StandardCaro).is_some());
        let ov = board(9, &["OXXX.XXO."]);
        assert!(winning_line(&ov, Pos::new(4, 0), Color::Black, Rule::Caro).is_some());
        assert!(winning_line(&ov, Pos::new(4, 0), Color::Black, Rule::StandardCaro).is_none());
    }

    #[test]
    fn illegal_moves_leave_the_board_alone() {
        let s = BoardSize::new(15).unwrap();
        let mut r = Referee::new(Rule::Freestyle, s);
        assert_eq!(r.play(Pos::new(7, 7)), MoveOutcome::Continue);
        assert_eq!(
            r.play(Pos::new(7, 7)),
            MoveOutcome::Illegal(IllegalKind::Occupied)
        );
        assert_eq!(
            r.play_xy(15, 0),
            MoveOutcome::Illegal(IllegalKind::OffBoard)
        );
        assert_eq!(
            r.play_xy(-1, 3),
            MoveOutcome::Illegal(IllegalKind::OffBoard)
        );
        assert_eq!(r.board().stone_count(), 1);
        assert_eq!(r.side_to_move(), Color::White);
    }

    #[test]
    fn full_board_is_a_draw() {
        // On 5x5 with exact five... fill column-pairs so no five forms: pattern by 2x2 blocks.
        let s = BoardSize::new(5).unwrap();
        let mut r = Referee::new(Rule::Freestyle, s);
        // Colours by (x/2 + y) parity pattern avoid any 5 in a row horizontally, vertically, diagonally.
        let mut blacks = vec![];
        let mut whites = vec![];
        for p in s.all() {
            if ((p.x / 2) + p.y) % 2 == 0 {
                blacks.push(p)
            } else {
                whites.push(p)
            }
        }
        // 25 cells: 13 black, 12 white needed.
        assert_eq!(blacks.len(), 13, "pattern must give black one more stone");
        let mut last = MoveOutcome::Continue;
        for i in 0..25 {
            let p = if i % 2 == 0 {
                blacks[i / 2]
            } else {
                whites[i / 2]
            };
            last = r.play(p);
            if i < 24 {
                assert_eq!(last, MoveOutcome::Continue, "move {i}");
            }
        }
        assert_eq!(last, MoveOutcome::Draw);
    }
}
