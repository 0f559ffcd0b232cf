//! The positions the check sends: openings, a filled board without a five, a winning line to
//! block, the renju position with a forbidden point, and the referee's reply move. Pure.

use crate::core::board::{BoardSize, Pos};
use crate::core::rules::{MoveOutcome, Referee};

/// The first SWAP2BOARD answer: three distinct points on the board.
pub(super) fn valid_opening(stones: &[(i64, i64)], size: BoardSize) -> bool {
    let mut seen = stones.to_vec();
    seen.sort_unstable();
    seen.dedup();
    stones.len() == 3 && seen.len() == 3 && stones.iter().all(|&(x, y)| size.contains(x, y))
}

/// The check's own move: the first point in a fixed spiral order from the center that is legal
/// for the side to move, played on `referee`.
pub(super) fn reply_move(referee: &mut Referee) -> Option<(Pos, MoveOutcome)> {
    let size = referee.board().size();
    let mut cells: Vec<Pos> = size.all().collect();
    let c = size.center();
    let dist = |p: &Pos| {
        let dx = (p.x as i64 - c.x as i64).abs();
        let dy = (p.y as i64 - c.y as i64).abs();
        (dx.max(dy), dx + dy, p.y, p.x)
    };
    cells.sort_by_key(dist);
    for p in cells {
        match referee.play(p) {
            MoveOutcome::Illegal(_) | MoveOutcome::Forbidden(_) => continue,
            outcome => return Some((p, outcome)),
        }
    }
    None
}

/// The colour of a cell in a filling with no five in any direction: runs of two along rows,
/// alternation along columns, and at most two alike along either diagonal.
pub(super) fn filler_black(p: Pos) -> bool {
    (p.x as usize / 2 + p.y as usize) % 2 == 0
}

/// Stones of the filling within `radius` of the center, in an alternating order (black first,
/// as many of each colour).
pub(super) fn opening_stones(size: BoardSize, radius: i64) -> Vec<Pos> {
    let c = size.center();
    interleave(size.all().filter(|p| {
        (p.x as i64 - c.x as i64).abs() <= radius && (p.y as i64 - c.y as i64).abs() <= radius
    }))
}

/// Five points in a row just above the filling of [`opening_stones`] with radius 2; `None` on
/// a board too small for both.
pub(super) fn winning_line(size: BoardSize) -> Option<Vec<Pos>> {
    let c = size.center();
    if size.get() < 7 {
        return None;
    }
    (c.x - 2..=c.x + 2)
        .map(|x| size.pos(x as i64, c.y as i64 - 3).ok())
        .collect()
}

/// The whole filling but for a few points, alternating black first.
pub(super) fn full_board(size: BoardSize) -> Vec<Pos> {
    let mut stones = interleave(size.all());
    // Leave a few points so that the engine has a choice (and the board is not full).
    stones.truncate(stones.len().saturating_sub(4));
    stones
}

/// Black and white cells of the filling, alternating, as many of each.
pub(super) fn interleave(cells: impl Iterator<Item = Pos>) -> Vec<Pos> {
    let (black, white): (Vec<Pos>, Vec<Pos>) = cells.partition(|&p| filler_black(p));
    black
        .into_iter()
        .zip(white)
        .flat_map(|(b, w)| [b, w])
        .collect()
}

/// Black 7,5 7,6 5,7 6,7 (7,7 would make two open threes: forbidden) and white far off in a
/// corner, black to move, in play order. Meant for 15x15.
pub(super) fn forbidden_setup(size: BoardSize) -> Vec<Pos> {
    let at = |x, y| size.pos(x, y).expect("on a 15x15 board");
    vec![
        at(7, 5),
        at(0, 0),
        at(7, 6),
        at(0, 2),
        at(5, 7),
        at(2, 0),
        at(6, 7),
        at(2, 2),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::board::{Board, Color};
    use crate::core::rules::{standing_winner, Rule};

    #[test]
    fn the_filling_has_no_five_and_balanced_colours() {
        for n in [15, 20] {
            let size = BoardSize::new(n).unwrap();
            for stones in [full_board(size), opening_stones(size, 3)] {
                let board = Board::from_moves(size, &stones).expect("legal stones");
                assert_eq!(standing_winner(&board, Rule::Freestyle), None, "size {n}");
                assert_eq!(board.side_to_move(), Color::Black);
            }
            assert!(size.cells() - full_board(size).len() >= 4);
        }
    }

    #[test]
    fn the_renju_setup_has_its_forbidden_point() {
        let size = BoardSize::new(15).unwrap();
        let mut referee = Referee::new(Rule::Renju, size);
        for p in forbidden_setup(size) {
            assert_eq!(referee.play(p), MoveOutcome::Continue);
        }
        assert_eq!(referee.side_to_move(), Color::Black);
        assert!(matches!(
            referee.play(size.pos(7, 7).unwrap()),
            MoveOutcome::Forbidden(_)
        ));
    }
}
