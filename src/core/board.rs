//! Board geometry: positions, board sizes, stones, the 8 symmetries and every notation we read or write.
//!
//! Everything here is pure and allocation-light; the referee (`rules`) builds on it.

use std::fmt;

use thiserror::Error;

/// Smallest board the tool accepts.
pub const MIN_SIZE: u8 = 5;
/// Largest board the tool accepts (the bin sample format stops at 31, pos notation at 26).
pub const MAX_SIZE: u8 = 32;

/// Errors from board geometry and notation parsing.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BoardError {
    /// A requested board size is smaller or larger than the sizes the program supports.
    #[error("board size {0} is out of range (must be {MIN_SIZE}..={MAX_SIZE})")]
    SizeOutOfRange(u32),
    /// A coordinate pair falls outside the board (negative or not less than the board size).
    #[error("position {x},{y} is off a {size}x{size} board")]
    OffBoard { x: i64, y: i64, size: u8 },
    /// A letter-based notation was asked for on a board wider than its 26 letters can name.
    #[error("{notation} notation cannot express a {size}x{size} board (at most {max})")]
    NotationTooSmall {
        notation: &'static str,
        size: u8,
        max: u8,
    },
    /// A row-by-row board picture has a different number of rows than the board size.
    #[error("{found} rows for a {size}x{size} board")]
    RowCount { found: usize, size: u8 },
    /// One row of a board picture is shorter or longer than the board is wide.
    #[error("row {row} has {found} cells, expected {size}")]
    RowLength { row: usize, found: usize, size: u8 },
    /// A board picture contains a character other than a black stone, a white stone or an empty point.
    #[error("row {row}, column {col}: {ch:?} is not X, O or .")]
    BadCell { row: usize, col: usize, ch: char },
    /// Text given as a point or move list in one of the notations (Gomocup, SGF, renju, pos) does not read as one.
    #[error("cannot parse {text:?} as {notation} notation: {why}")]
    BadNotation {
        notation: &'static str,
        text: String,
        why: String,
    },
}

/// A square board size, checked to be within `MIN_SIZE..=MAX_SIZE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BoardSize(u8);

impl BoardSize {
    /// The standard 15×15 board.
    pub const STANDARD: BoardSize = BoardSize(15);

    pub fn new(n: u32) -> Result<Self, BoardError> {
        if (MIN_SIZE as u32..=MAX_SIZE as u32).contains(&n) {
            Ok(BoardSize(n as u8))
        } else {
            Err(BoardError::SizeOutOfRange(n))
        }
    }

    pub fn get(self) -> u8 {
        self.0
    }

    /// Number of cells.
    pub fn cells(self) -> usize {
        self.0 as usize * self.0 as usize
    }

    /// The centre used by the offset opening notation: `(floor(n/2), floor(n/2))`.
    pub fn center(self) -> Pos {
        Pos::new(self.0 / 2, self.0 / 2)
    }

    /// Whether signed coordinates fall on this board.
    pub fn contains(self, x: i64, y: i64) -> bool {
        x >= 0 && y >= 0 && x < self.0 as i64 && y < self.0 as i64
    }

    /// Checked construction of a position from signed coordinates.
    pub fn pos(self, x: i64, y: i64) -> Result<Pos, BoardError> {
        if self.contains(x, y) {
            Ok(Pos::new(x as u8, y as u8))
        } else {
            Err(BoardError::OffBoard { x, y, size: self.0 })
        }
    }

    /// Every position, row by row from the top.
    pub fn all(self) -> impl Iterator<Item = Pos> {
        let n = self.0;
        (0..n).flat_map(move |y| (0..n).map(move |x| Pos::new(x, y)))
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A point on the board in Gomocup coordinates: `x` column from the left, `y` row from the top, 0-based.
///
/// Ordered by `y` then `x` (reading order), the order in which forbidden points are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Pos {
    pub x: u8,
    pub y: u8,
}

impl PartialOrd for Pos {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pos {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.y, self.x).cmp(&(other.y, other.x))
    }
}

impl fmt::Display for Pos {
    /// Gomocup protocol form `x,y`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x, self.y)
    }
}

impl Pos {
    pub const fn new(x: u8, y: u8) -> Self {
        Pos { x, y }
    }

    /// Index into a row-major cell array of a board of `size`.
    pub fn index(self, size: BoardSize) -> usize {
        self.y as usize * size.get() as usize + self.x as usize
    }

    /// Pos notation (`h8`: letter = x from `a`, number = y+1 counted from the top). Sizes up to 26.
    pub fn to_pos_notation(self, size: BoardSize) -> Result<String, BoardError> {
        check_letters("pos", size)?;
        Ok(format!("{}{}", (b'a' + self.x) as char, self.y as u32 + 1))
    }

    /// Renju notation (`h8`: letter = x from `a`, number = row counted from the bottom, 1-based).
    pub fn to_renju_notation(self, size: BoardSize) -> Result<String, BoardError> {
        check_letters("renju", size)?;
        Ok(format!(
            "{}{}",
            (b'a' + self.x) as char,
            size.get() as u32 - self.y as u32
        ))
    }

    /// SGF point: two letters, column then row from the top, `a`..`z` then `A`..`Z`.
    pub fn to_sgf(self) -> String {
        let mut s = String::with_capacity(2);
        s.push(sgf_letter(self.x));
        s.push(sgf_letter(self.y));
        s
    }

    /// Parse a Gomocup `x,y` pair (spaces around the numbers tolerated).
    pub fn parse_gomocup(text: &str, size: BoardSize) -> Result<Pos, BoardError> {
        let bad = |why: &str| BoardError::BadNotation {
            notation: "gomocup",
            text: text.to_string(),
            why: why.to_string(),
        };
        let (a, b) = text.split_once(',').ok_or_else(|| bad("expected x,y"))?;
        let x: i64 = a.trim().parse().map_err(|_| bad("x is not an integer"))?;
        let y: i64 = b.trim().parse().map_err(|_| bad("y is not an integer"))?;
        size.pos(x, y)
    }

    /// Parse one SGF point.
    pub fn parse_sgf(text: &str, size: BoardSize) -> Result<Pos, BoardError> {
        let bad = |why: &str| BoardError::BadNotation {
            notation: "sgf",
            text: text.to_string(),
            why: why.to_string(),
        };
        let b = text.as_bytes();
        if b.len() != 2 {
            return Err(bad("expected two letters"));
        }
        let x = sgf_value(b[0]).ok_or_else(|| bad("not a letter"))?;
        let y = sgf_value(b[1]).ok_or_else(|| bad("not a letter"))?;
        size.pos(x as i64, y as i64)
    }

    /// Parse a single renju-notation point (`h8`, row counted from the bottom).
    pub fn parse_renju(text: &str, size: BoardSize) -> Result<Pos, BoardError> {
        let moves = parse_letter_number_seq(text, size, "renju")?;
        match moves.as_slice() {
            [(x, n)] => size.pos(*x, size.get() as i64 - *n),
            _ => Err(BoardError::BadNotation {
                notation: "renju",
                text: text.to_string(),
                why: "expected exactly one point".into(),
            }),
        }
    }
}

fn check_letters(notation: &'static str, size: BoardSize) -> Result<(), BoardError> {
    if size.get() > 26 {
        Err(BoardError::NotationTooSmall {
            notation,
            size: size.get(),
            max: 26,
        })
    } else {
        Ok(())
    }
}

fn sgf_letter(v: u8) -> char {
    if v < 26 {
        (b'a' + v) as char
    } else {
        (b'A' + v - 26) as char
    }
}

fn sgf_value(c: u8) -> Option<u8> {
    match c {
        b'a'..=b'z' => Some(c - b'a'),
        b'A'..=b'Z' => Some(c - b'A' + 26),
        _ => None,
    }
}

/// Split `h8i9j10` into `(x, number)` pairs; letters are case-insensitive.
fn parse_letter_number_seq(
    text: &str,
    size: BoardSize,
    notation: &'static str,
) -> Result<Vec<(i64, i64)>, BoardError> {
    check_letters(notation, size)?;
    let bad = |why: String| BoardError::BadNotation {
        notation,
        text: text.to_string(),
        why,
    };
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if !c.is_ascii_alphabetic() {
            return Err(bad(format!(
                "unexpected character {:?} at offset {i}",
                text[i..].chars().next().unwrap_or('?')
            )));
        }
        let x = (c.to_ascii_lowercase() - b'a') as i64;
        i += 1;
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if start == i {
            return Err(bad(format!("letter {:?} has no row number", c as char)));
        }
        let n: i64 = text[start..i]
            .parse()
            .map_err(|_| bad(format!("bad row number {:?}", &text[start..i])))?;
        out.push((x, n));
    }
    Ok(out)
}

/// Parse a move sequence in pos notation (`h8i9j10`, y counted from the top, 1-based).
pub fn parse_pos_sequence(text: &str, size: BoardSize) -> Result<Vec<Pos>, BoardError> {
    parse_letter_number_seq(text, size, "pos")?
        .into_iter()
        .map(|(x, n)| size.pos(x, n - 1))
        .collect()
}

/// Render a move sequence in pos notation, no separators.
pub fn to_pos_sequence(moves: &[Pos], size: BoardSize) -> Result<String, BoardError> {
    let mut s = String::with_capacity(moves.len() * 3);
    for m in moves {
        s.push_str(&m.to_pos_notation(size)?);
    }
    Ok(s)
}

/// A stone colour. Black moves first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    Black,
    White,
}

impl Color {
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The colour that plays the `ply`-th stone (0-based) of a game.
    pub fn of_ply(ply: usize) -> Color {
        if ply % 2 == 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The 8 board symmetries in the predecessor's `-transform` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symmetry {
    /// (x, y)
    Identity,
    /// (y, s−x)
    Rot90,
    /// (s−x, s−y)
    Rot180,
    /// (s−y, x)
    Rot270,
    /// (x, s−y)
    FlipX,
    /// (s−x, y)
    FlipY,
    /// (y, x)
    FlipXY,
    /// (s−y, s−x)
    FlipYX,
}

impl Symmetry {
    /// All symmetries in `-transform` cycle order.
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::Rot90,
        Symmetry::Rot180,
        Symmetry::Rot270,
        Symmetry::FlipX,
        Symmetry::FlipY,
        Symmetry::FlipXY,
        Symmetry::FlipYX,
    ];

    /// Position in the `-transform` cycle (0..8).
    pub fn index(self) -> usize {
        Symmetry::ALL.iter().position(|&s| s == self).unwrap_or(0)
    }

    pub fn from_index(i: usize) -> Symmetry {
        Symmetry::ALL[i % 8]
    }

    /// The symmetry of a [`name`](Self::name), as the journal writes it.
    pub fn from_name(name: &str) -> Option<Symmetry> {
        Symmetry::ALL.into_iter().find(|s| s.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Symmetry::Identity => "identity",
            Symmetry::Rot90 => "rotate90",
            Symmetry::Rot180 => "rotate180",
            Symmetry::Rot270 => "rotate270",
            Symmetry::FlipX => "flipX",
            Symmetry::FlipY => "flipY",
            Symmetry::FlipXY => "flipXY",
            Symmetry::FlipYX => "flipYX",
        }
    }

    /// Apply to one position on a board of `size`.
    pub fn apply(self, p: Pos, size: BoardSize) -> Pos {
        let s = size.get() - 1;
        let (x, y) = (p.x, p.y);
        let (nx, ny) = match self {
            Symmetry::Identity => (x, y),
            Symmetry::Rot90 => (y, s - x),
            Symmetry::Rot180 => (s - x, s - y),
            Symmetry::Rot270 => (s - y, x),
            Symmetry::FlipX => (x, s - y),
            Symmetry::FlipY => (s - x, y),
            Symmetry::FlipXY => (y, x),
            Symmetry::FlipYX => (s - y, s - x),
        };
        Pos::new(nx, ny)
    }

    /// Apply to every move of a sequence, keeping the order.
    pub fn apply_all(self, moves: &[Pos], size: BoardSize) -> Vec<Pos> {
        moves.iter().map(|&p| self.apply(p, size)).collect()
    }

    /// `self.then(other)` applies `self` first, then `other`.
    pub fn then(self, other: Symmetry) -> Symmetry {
        // Compose by probing a board large enough that the 8 images of a generic point are distinct.
        let size = BoardSize(7);
        let probe = Pos::new(1, 2);
        let target = other.apply(self.apply(probe, size), size);
        Symmetry::ALL
            .into_iter()
            .find(|s| s.apply(probe, size) == target)
            .unwrap_or(Symmetry::Identity)
    }

    /// The symmetry that undoes this one.
    pub fn inverse(self) -> Symmetry {
        Symmetry::ALL
            .into_iter()
            .find(|s| self.then(*s) == Symmetry::Identity)
            .unwrap_or(Symmetry::Identity)
    }

    /// The orientation of a move sequence shared by all its 8 images: the lexicographically smallest
    /// image (comparing moves in play order by `(y, x)`). Returns the symmetry that maps `moves`
    /// onto it and the image itself. Ties are broken by cycle order, so the result is deterministic.
    pub fn canonical(moves: &[Pos], size: BoardSize) -> (Symmetry, Vec<Pos>) {
        let mut best = (Symmetry::Identity, moves.to_vec());
        for s in Symmetry::ALL.into_iter().skip(1) {
            let img = s.apply_all(moves, size);
            if img < best.1 {
                best = (s, img);
            }
        }
        best
    }
}

impl fmt::Display for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A board: cell contents plus the order in which the stones were played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    size: BoardSize,
    cells: Vec<Option<Color>>,
    history: Vec<Pos>,
}

impl Board {
    pub fn new(size: BoardSize) -> Self {
        Board {
            size,
            cells: vec![None; size.cells()],
            history: Vec::new(),
        }
    }

    pub fn size(&self) -> BoardSize {
        self.size
    }

    pub fn get(&self, p: Pos) -> Option<Color> {
        self.cells[p.index(self.size)]
    }

    /// Signed lookup: `None` off the board as well as on an empty cell. Use `contains` to tell apart.
    pub fn at(&self, x: i64, y: i64) -> Option<Color> {
        if self.size.contains(x, y) {
            self.cells[y as usize * self.size.get() as usize + x as usize]
        } else {
            None
        }
    }

    pub fn is_empty_at(&self, p: Pos) -> bool {
        self.get(p).is_none()
    }

    /// Stones in play order (for boards built with `put`, the order they were put).
    pub fn history(&self) -> &[Pos] {
        &self.history
    }

    pub fn stone_count(&self) -> usize {
        self.history.len()
    }

    pub fn is_full(&self) -> bool {
        self.history.len() == self.size.cells()
    }

    /// Colour to move when colours alternate from black.
    pub fn side_to_move(&self) -> Color {
        Color::of_ply(self.history.len())
    }

    /// Put a stone of any colour on an empty cell (no turn or rule check; the referee does those).
    /// Returns false, changing nothing, when the cell is taken.
    pub fn put(&mut self, p: Pos, c: Color) -> bool {
        let i = p.index(self.size);
        if self.cells[i].is_some() {
            return false;
        }
        self.cells[i] = Some(c);
        self.history.push(p);
        true
    }

    /// Remove a stone; returns the colour that was there.
    pub fn remove(&mut self, p: Pos) -> Option<Color> {
        let i = p.index(self.size);
        let old = self.cells[i].take();
        if old.is_some() {
            self.history.retain(|&q| q != p);
        }
        old
    }

    /// Play a sequence of alternating moves from black. Errors on an occupied or repeated point.
    pub fn from_moves(size: BoardSize, moves: &[Pos]) -> Result<Board, Pos> {
        let mut b = Board::new(size);
        for (i, &m) in moves.iter().enumerate() {
            if !b.put(m, Color::of_ply(i)) {
                return Err(m);
            }
        }
        Ok(b)
    }

    /// The same board under a symmetry (history transformed in order).
    pub fn transformed(&self, s: Symmetry) -> Board {
        let mut b = Board::new(self.size);
        for &p in &self.history {
            let c = self.get(p).unwrap_or(Color::Black);
            b.put(s.apply(p, self.size), c);
        }
        b
    }

    /// The inverse of [`to_rows`](Self::to_rows): rows from the top, `X` black, `O` white, `.`
    /// empty. Stones are put row by row (the history is not a game order). Rows and columns in
    /// errors are 1-based.
    pub fn from_rows<S: AsRef<str>>(size: BoardSize, rows: &[S]) -> Result<Board, BoardError> {
        let n = size.get() as usize;
        if rows.len() != n {
            return Err(BoardError::RowCount {
                found: rows.len(),
                size: size.get(),
            });
        }
        let mut board = Board::new(size);
        for (y, row) in rows.iter().enumerate() {
            let row = row.as_ref();
            let found = row.chars().count();
            if found != n {
                return Err(BoardError::RowLength {
                    row: y + 1,
                    found,
                    size: size.get(),
                });
            }
            for (x, ch) in row.chars().enumerate() {
                let c = match ch {
                    '.' => continue,
                    'X' => Color::Black,
                    'O' => Color::White,
                    other => {
                        return Err(BoardError::BadCell {
                            row: y + 1,
                            col: x + 1,
                            ch: other,
                        })
                    }
                };
                board.put(Pos::new(x as u8, y as u8), c);
            }
        }
        Ok(board)
    }

    /// Rows from the top, `X` black, `O` white, `.` empty.
    pub fn to_rows(&self) -> Vec<String> {
        let n = self.size.get();
        (0..n)
            .map(|y| {
                (0..n)
                    .map(|x| match self.get(Pos::new(x, y)) {
                        Some(Color::Black) => 'X',
                        Some(Color::White) => 'O',
                        None => '.',
                    })
                    .collect()
            })
            .collect()
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in self.to_rows() {
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sz(n: u32) -> BoardSize {
        BoardSize::new(n).unwrap()
    }

    #[test]
    fn size_bounds() {
        assert!(BoardSize::new(4).is_err());
        assert!(BoardSize::new(33).is_err());
        assert_eq!(BoardSize::new(5).unwrap().get(), 5);
        assert_eq!(BoardSize::new(32).unwrap().get(), 32);
    }

    #[test]
    fn pos_notation_matches_the_predecessor() {
        let s = sz(15);
        let moves = parse_pos_sequence("h8i9j10", s).unwrap();
        assert_eq!(moves, vec![Pos::new(7, 7), Pos::new(8, 8), Pos::new(9, 9)]);
        assert_eq!(to_pos_sequence(&moves, s).unwrap(), "h8i9j10");
        assert!(parse_pos_sequence("h0", s).is_err());
        assert!(parse_pos_sequence("p1", s).is_err());
        assert!(parse_pos_sequence("h", s).is_err());
        assert!(parse_pos_sequence("h8,", s).is_err());
        assert!(Pos::new(0, 0).to_pos_notation(sz(27)).is_err());
    }

    #[test]
    fn renju_notation_counts_rows_from_the_bottom() {
        let s = sz(15);
        assert_eq!(Pos::new(7, 7).to_renju_notation(s).unwrap(), "h8");
        assert_eq!(Pos::new(0, 0).to_renju_notation(s).unwrap(), "a15");
        assert_eq!(Pos::parse_renju("a1", s).unwrap(), Pos::new(0, 14));
        assert_eq!(Pos::parse_renju("o15", s).unwrap(), Pos::new(14, 0));
    }

    #[test]
    fn notations_round_trip_on_every_point() {
        for n in [5u32, 15, 20, 26, 32] {
            let s = sz(n);
            for p in s.all() {
                assert_eq!(Pos::parse_sgf(&p.to_sgf(), s).unwrap(), p);
                assert_eq!(Pos::parse_gomocup(&p.to_string(), s).unwrap(), p);
                if n <= 26 {
                    let pn = p.to_pos_notation(s).unwrap();
                    assert_eq!(parse_pos_sequence(&pn, s).unwrap(), vec![p]);
                    let rn = p.to_renju_notation(s).unwrap();
                    assert_eq!(Pos::parse_renju(&rn, s).unwrap(), p);
                }
            }
        }
    }

    #[test]
    fn symmetries_match_the_documented_formulas() {
        let s = sz(15);
        let p = Pos::new(3, 5);
        let m = 14;
        let expect = [
            (3, 5),
            (5, m - 3),
            (m - 3, m - 5),
            (m - 5, 3),
            (3, m - 5),
            (m - 3, 5),
            (5, 3),
            (m - 5, m - 3),
        ];
        for (sym, (x, y)) in Symmetry::ALL.iter().zip(expect) {
            assert_eq!(sym.apply(p, s), Pos::new(x, y), "{sym}");
        }
    }

    #[test]
    fn symmetry_group_laws() {
        let s = sz(15);
        for a in Symmetry::ALL {
            assert_eq!(a.then(a.inverse()), Symmetry::Identity);
            assert_eq!(a.inverse().then(a), Symmetry::Identity);
            for b in Symmetry::ALL {
                for p in s.all() {
                    assert_eq!(a.then(b).apply(p, s), b.apply(a.apply(p, s), s));
                }
            }
        }
        // Four rotations of 90 degrees are the identity.
        let r = Symmetry::Rot90;
        assert_eq!(r.then(r).then(r).then(r), Symmetry::Identity);
        assert_eq!(r.then(r), Symmetry::Rot180);
        assert_eq!(r.then(r).then(r), Symmetry::Rot270);
    }

    #[test]
    fn canonical_is_shared_by_all_images() {
        let s = sz(15);
        let moves = parse_pos_sequence("h8i9j9k7", s).unwrap();
        let (sym, canon) = Symmetry::canonical(&moves, s);
        assert_eq!(sym.apply_all(&moves, s), canon);
        for t in Symmetry::ALL {
            let img = t.apply_all(&moves, s);
            assert_eq!(Symmetry::canonical(&img, s).1, canon);
        }
    }

    #[test]
    fn board_put_remove_and_rows() {
        let s = sz(5);
        let mut b = Board::from_moves(s, &[Pos::new(2, 2), Pos::new(0, 0)]).unwrap();
        assert_eq!(b.get(Pos::new(2, 2)), Some(Color::Black));
        assert_eq!(b.get(Pos::new(0, 0)), Some(Color::White));
        assert!(!b.put(Pos::new(2, 2), Color::White));
        assert_eq!(b.side_to_move(), Color::Black);
        assert_eq!(b.to_rows()[0], "O....");
        let back = Board::from_rows(s, &b.to_rows()).unwrap();
        assert_eq!(back.to_rows(), b.to_rows());
        assert_eq!(
            Board::from_rows(s, &["....."; 4]),
            Err(BoardError::RowCount { found: 4, size: 5 })
        );
        assert_eq!(
            Board::from_rows(s, &[".....", "....", ".....", ".....", "....."]),
            Err(BoardError::RowLength {
                row: 2,
                found: 4,
                size: 5
            })
        );
        assert_eq!(
            Board::from_rows(s, &[".....", ".....", "..Z..", ".....", "....."]),
            Err(BoardError::BadCell {
                row: 3,
                col: 3,
                ch: 'Z'
            })
        );
        assert_eq!(b.remove(Pos::new(0, 0)), Some(Color::White));
        assert_eq!(b.history(), &[Pos::new(2, 2)]);
        assert_eq!(
            Board::from_moves(s, &[Pos::new(1, 1), Pos::new(1, 1)]),
            Err(Pos::new(1, 1))
        );
    }
}
