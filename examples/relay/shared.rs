//! What `pingpong` (blocking pipes) and `relay_tokio` (tokio's pipes) share: the bytes the runner
//! sends, how an answer is read, and freestyle's five. Each example includes this file
//! (`#[path = "relay/shared.rs"] mod shared;`); the folder holds no example of its own.

use anyhow::{bail, Context, Result};

/// `INFO time_left` for "no match limit" (2^31 - 1 ms), as the runner sends it.
const TIME_LEFT: &str = "INFO time_left 2147483647\r\n";

/// The INFO block the runner sends after each START or RESTART is answered.
pub const GAME_INFO: &str =
    "INFO timeout_match 0\r\nINFO max_memory 367001600\r\nINFO game_type 1\r\nINFO rule 0\r\n";

/// START for an engine's first game, RESTART after.
pub fn start_command(started: bool, size: usize) -> String {
    if started {
        "RESTART\r\n".to_string()
    } else {
        format!("START {size}\r\n")
    }
}

/// An answer to START or RESTART: `Some(Ok)` for OK, `Some(Err)` for a refusal, `None` for a
/// line to skip.
pub fn start_answer(line: &str) -> Option<Result<()>> {
    if line == "OK" {
        return Some(Ok(()));
    }
    if line.starts_with("ERROR") || line.starts_with("UNKNOWN") {
        return Some(Err(anyhow::anyhow!("engine refused the game: {line}")));
    }
    None
}

/// The move request after `stones` stones, `last` the latest: `INFO time_left`, then BEGIN,
/// the one-stone board for white's first move (as the runner sends it), or TURN.
pub fn move_request(out: &mut String, last: Option<(usize, usize)>, stones: usize) {
    out.clear();
    out.push_str(TIME_LEFT);
    match last {
        None => out.push_str("BEGIN\r\n"),
        Some((x, y)) if stones == 1 => out.push_str(&format!("BOARD\r\n{x},{y},2\r\nDONE\r\n")),
        Some((x, y)) => out.push_str(&format!("TURN {x},{y}\r\n")),
    }
}

/// A move answer's coordinates, or `None` for a MESSAGE or DEBUG line to skip.
pub fn move_answer(line: &str) -> Option<Result<(usize, usize)>> {
    if line.starts_with("MESSAGE") || line.starts_with("DEBUG") {
        return None;
    }
    let parsed = line
        .split_once(',')
        .and_then(|(x, y)| Some((x.trim().parse().ok()?, y.trim().parse().ok()?)));
    Some(parsed.with_context(|| format!("not a move: {line:?}")))
}

/// Puts `side`'s stone on (x, y); whether the game is over: five or more in a row (freestyle),
/// a full board, or `draw_after` stones (0: never). A move off the board or on a stone is an
/// error.
pub fn place(
    cells: &mut [u8],
    size: usize,
    (x, y): (usize, usize),
    side: usize,
    stones: usize,
    draw_after: usize,
) -> Result<bool> {
    if x >= size || y >= size || cells[y * size + x] != 0 {
        bail!("illegal move {x},{y}");
    }
    cells[y * size + x] = side as u8 + 1;
    Ok(makes_five(cells, size, x, y)
        || stones == size * size
        || (draw_after > 0 && stones >= draw_after))
}

/// Whether the stone just put at (x, y) makes five or more in a row.
fn makes_five(cells: &[u8], size: usize, x: usize, y: usize) -> bool {
    let colour = cells[y * size + x];
    let stone = |x: i64, y: i64| {
        x >= 0
            && y >= 0
            && (x as usize) < size
            && (y as usize) < size
            && cells[y as usize * size + x as usize] == colour
    };
    [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dx, dy)| {
        let mut run = 1;
        for sign in [1, -1] {
            let (mut cx, mut cy) = (x as i64 + sign * dx, y as i64 + sign * dy);
            while stone(cx, cy) {
                run += 1;
                cx += sign * dx;
                cy += sign * dy;
            }
        }
        run >= 5
    })
}
