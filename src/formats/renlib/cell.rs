//! The point byte of a RenLib node: a 15×15 board point, or `00` for the root and for a pass.

use std::fmt;
use std::sync::OnceLock;

use crate::core::board::{BoardSize, Pos, Symmetry};

/// RenLib libraries only hold 15×15 games.
pub const SIZE: BoardSize = BoardSize::STANDARD;

/// One node's point byte, checked: `00` (root or pass) or low nibble = column 1..15 from the left,
/// high nibble = row 0..14 from the top.
///
/// Ordered by byte, which is reading order (row from the top, then column), the same order as
/// [`Pos`]; a pass sorts first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell(u8);

/// How points are written: renju notation counts rows from the bottom, pos notation from the top.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notation {
    /// `h8`: column letter, row 1..15 from the bottom (what RenLib shows).
    Renju,
    /// `h8`: column letter, row 1..15 from the top (our opening files and journals).
    Pos,
}

impl Cell {
    /// The root node's byte, also a pass inside the tree.
    pub const PASS: Cell = Cell(0);
    /// h8, the centre, where RenLib's 3.0 libraries begin.
    pub const CENTER: Cell = Cell(0x78);

    /// The cell of a point byte, if the byte is one.
    pub fn from_byte(b: u8) -> Option<Cell> {
        let (col, row) = (b & 0x0F, b >> 4);
        (b == 0 || (col >= 1 && row <= 14)).then_some(Cell(b))
    }

    /// The cell of a point of the 15×15 board.
    pub fn from_pos(p: Pos) -> Option<Cell> {
        (p.x < 15 && p.y < 15).then(|| Cell((p.y << 4) | (p.x + 1)))
    }

    pub fn byte(self) -> u8 {
        self.0
    }

    /// The board point, or `None` for the root/pass byte.
    pub fn pos(self) -> Option<Pos> {
        (self.0 != 0).then(|| Pos::new((self.0 & 0x0F) - 1, self.0 >> 4))
    }

    /// The image of this point under a board symmetry (a pass stays a pass).
    pub fn transformed(self, s: Symmetry) -> Cell {
        Cell(symmetry_table()[s.index()][self.0 as usize])
    }

    /// The point in a notation; `00` is written `pass/root` (RenLib uses the byte for both).
    pub fn notation(self, notation: Notation) -> NotatedCell {
        NotatedCell(self, notation)
    }
}

/// A cell written in a notation (see [`Cell::notation`]).
pub struct NotatedCell(Cell, Notation);

impl fmt::Display for NotatedCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0.pos(), self.1) {
            (None, _) => f.write_str("pass/root"),
            (Some(p), Notation::Renju) => write!(f, "{}{}", (b'a' + p.x) as char, 15 - p.y),
            (Some(p), Notation::Pos) => write!(f, "{}{}", (b'a' + p.x) as char, p.y + 1),
        }
    }
}

/// For each symmetry (in `Symmetry::ALL` order), the image of every valid point byte; computed
/// once, since orientation search transforms every move of every game eight times.
fn symmetry_table() -> &'static [[u8; 256]; 8] {
    static TABLE: OnceLock<[[u8; 256]; 8]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [[0u8; 256]; 8];
        for (i, s) in Symmetry::ALL.into_iter().enumerate() {
            for b in 0..=255u8 {
                let image = Cell::from_byte(b)
                    .and_then(Cell::pos)
                    .and_then(|p| Cell::from_pos(s.apply(p, SIZE)));
                t[i][b as usize] = image.map_or(0, Cell::byte);
            }
        }
        t
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_map_to_gomocup_points() {
        let h8 = Cell::from_byte(0x78).unwrap();
        assert_eq!(h8.pos(), Some(Pos::new(7, 7)));
        assert_eq!(h8, Cell::CENTER);
        // 0x59: column 9 (i), row 5 from the top: renju i10, pos i6.
        let c = Cell::from_byte(0x59).unwrap();
        assert_eq!(c.notation(Notation::Renju).to_string(), "i10");
        assert_eq!(c.notation(Notation::Pos).to_string(), "i6");
        assert_eq!(Cell::from_pos(Pos::new(8, 5)), Some(c));
        assert_eq!(
            Cell::PASS.notation(Notation::Renju).to_string(),
            "pass/root"
        );
    }

    #[test]
    fn invalid_bytes_are_rejected() {
        for b in [0x10, 0x20, 0xF1, 0xFF, 0x0F0] {
            assert_eq!(Cell::from_byte(b as u8), None, "{b:#x}");
        }
        assert!(Cell::from_byte(0x01).is_some());
        assert!(Cell::from_byte(0xEF).is_some());
        assert_eq!(Cell::from_pos(Pos::new(15, 0)), None);
    }

    #[test]
    fn transforms_agree_with_the_board_symmetries() {
        for s in Symmetry::ALL {
            assert_eq!(Cell::PASS.transformed(s), Cell::PASS);
            for p in SIZE.all() {
                let c = Cell::from_pos(p).unwrap();
                assert_eq!(c.transformed(s).pos(), Some(s.apply(p, SIZE)));
            }
        }
    }
}
