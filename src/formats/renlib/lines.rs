//! The comment lines a merge writes: one `[game KEY] RESULT BLACK - WHITE, TERMINATION` line per
//! game at the node where it ends, and with `--stats` one `[stats] ...` line per node. They are
//! ASCII at their start, so they are found by their bytes in any code page.

use crate::game::termination::GameResult;

use crate::formats::renlib::text::CodePage;
use crate::formats::renlib::LibGame;

/// How a game line starts.
pub const GAME_PREFIX: &[u8] = b"[game ";
/// How a statistics line starts.
pub const STATS_PREFIX: &[u8] = b"[stats] ";

/// The end-of-game line of `game`, in the library's code page.
pub fn game_line(game: &LibGame, page: CodePage) -> Vec<u8> {
    let mut text = format!(
        "[game {}] {}",
        game.key.as_str(),
        game.result.map_or("*", GameResult::as_str)
    );
    if !game.black.is_empty() || !game.white.is_empty() {
        text.push_str(&format!(" {} - {}", game.black, game.white));
    }
    if !game.termination.is_empty() {
        text.push_str(&format!(", {}", game.termination));
    }
    page.encode(&text)
}

/// What a game line says that merging needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameLine<'a> {
    /// The key's bytes as written.
    pub key: &'a [u8],
    pub result: Option<GameResult>,
}

/// Read a game line; `None` for any other line.
pub fn parse_game_line(line: &[u8]) -> Option<GameLine<'_>> {
    let rest = line.strip_prefix(GAME_PREFIX)?;
    let end = rest.iter().position(|&b| b == b']')?;
    let key = &rest[..end];
    let after = rest[end + 1..].strip_prefix(b" ").unwrap_or(&[]);
    let token = after.split(|&b| b == b' ').next().unwrap_or(&[]);
    // The result as `GameResult::as_str` wrote it, read by its one reading.
    let result = std::str::from_utf8(token).ok().and_then(|t| t.parse().ok());
    Some(GameLine { key, result })
}

pub fn is_stats_line(line: &[u8]) -> bool {
    line.starts_with(STATS_PREFIX)
}

/// Games through a node and their results from black's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tally {
    pub black_wins: u32,
    pub white_wins: u32,
    pub draws: u32,
    pub unknown: u32,
}

impl Tally {
    pub fn add_result(&mut self, r: Option<GameResult>) {
        let n = match r {
            Some(GameResult::BlackWins) => &mut self.black_wins,
            Some(GameResult::WhiteWins) => &mut self.white_wins,
            Some(GameResult::Draw) => &mut self.draws,
            None => &mut self.unknown,
        };
        *n = n.saturating_add(1);
    }

    pub fn add(&mut self, o: Tally) {
        self.black_wins = self.black_wins.saturating_add(o.black_wins);
        self.white_wins = self.white_wins.saturating_add(o.white_wins);
        self.draws = self.draws.saturating_add(o.draws);
        self.unknown = self.unknown.saturating_add(o.unknown);
    }

    pub fn games(&self) -> u64 {
        [self.black_wins, self.white_wins, self.draws, self.unknown]
            .iter()
            .map(|&n| u64::from(n))
            .sum()
    }
}

/// `[stats] 12 games, black +5 =3 -4 (54%)`, and `, 2 without result` when some are unknown.
pub fn stats_line(t: &Tally) -> Vec<u8> {
    let mut v = Vec::with_capacity(64);
    push_stats_line(t, &mut v);
    v
}

/// [`stats_line`] appended to `out`: a statistics pass writes millions, one allocation each.
pub fn push_stats_line(t: &Tally, out: &mut Vec<u8>) {
    use std::io::Write;
    let known = u64::from(t.black_wins) + u64::from(t.white_wins) + u64::from(t.draws);
    // Writing to a Vec cannot fail.
    let _ = write!(
        out,
        "[stats] {} game{}, black +{} ={} -{}",
        t.games(),
        if t.games() == 1 { "" } else { "s" },
        t.black_wins,
        t.draws,
        t.white_wins
    );
    if known > 0 {
        let score = (2 * u64::from(t.black_wins) + u64::from(t.draws)) * 100;
        let _ = write!(out, " ({}%)", (score + known) / (2 * known));
    }
    if t.unknown > 0 {
        let _ = write!(out, ", {} without result", t.unknown);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::renlib::{Cell, GameKey};

    #[test]
    fn game_lines_read_back() {
        let g = LibGame::new(
            GameKey::new("f00d:12"),
            vec![Cell::CENTER],
            Some(GameResult::Draw),
            ("a b", "c"),
            "draw_after",
        )
        .unwrap();
        let line = game_line(&g, CodePage::default());
        assert_eq!(line, b"[game f00d:12] 1/2-1/2 a b - c, draw_after");
        let parsed = parse_game_line(&line).unwrap();
        assert_eq!(parsed.key, b"f00d:12");
        assert_eq!(parsed.result, Some(GameResult::Draw));
        assert_eq!(parse_game_line(b"[game x] *").unwrap().result, None);
        assert_eq!(parse_game_line(b"[game x"), None);
        assert_eq!(parse_game_line(b"game x] 1-0"), None);
    }

    #[test]
    fn stats_lines_count_from_blacks_side() {
        let mut t = Tally::default();
        for r in [
            Some(GameResult::BlackWins),
            Some(GameResult::BlackWins),
            Some(GameResult::Draw),
            Some(GameResult::WhiteWins),
            None,
        ] {
            t.add_result(r);
        }
        assert_eq!(
            String::from_utf8(stats_line(&t)).unwrap(),
            "[stats] 5 games, black +2 =1 -1 (63%), 1 without result"
        );
        assert!(is_stats_line(&stats_line(&t)));
    }
}
