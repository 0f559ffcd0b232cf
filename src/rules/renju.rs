//! Renju forbidden moves for black: overline, double-four and double-three, with recursive three checks.

use crate::board::{Board, Pos};

use super::ForbiddenKind;

/// Forbidden status of the empty point `p` for a black stone on `board`
/// (`None` = legal, including when the move makes an exact five).
pub fn forbidden_kind(board: &Board, p: Pos) -> Option<ForbiddenKind> {
    // TODO(rules helper): full implementation.
    let _ = (board, p);
    None
}
