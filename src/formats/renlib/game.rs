//! A finished game as a library takes it: its stones from the empty board, its identity, and what
//! its end-of-game comment line says. Built from a [`GameRecord`] (the runner), a journal entry,
//! an SGF game, a Piskvork `.psq` record or a pos-notation line.

use thiserror::Error;

use crate::core::board::{parse_pos_sequence, BoardSize, Color, Pos};
use crate::formats::journal::{JournalEntry, JournalGame};
use crate::formats::psq::PsqGame;
use crate::game::record::GameRecord;
use crate::game::termination::GameResult;

use crate::formats::renlib::sgf::SgfGame;
use crate::formats::renlib::Cell;

/// What identifies a game across merges: merging a game whose key the library already holds
/// changes nothing. Journal games (and the runner's) are `FINGERPRINT:GAME:MOVES` (a run's
/// configuration, the game's number in its schedule, the same after a resume or in any shard,
/// and a hash of its stones: runs with the same settings share the first two, their games
/// differ in the third); SGF games are `sgf:HASH` of their text, pos-notation and `.psq` games
/// `pos:HASH` / `psq:HASH` of their moves.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameKey(String);

impl GameKey {
    /// A key from any text; characters that would end the comment line or the key (`]`, control
    /// characters) become `_`.
    pub fn new(text: &str) -> GameKey {
        GameKey(
            text.chars()
                .map(|c| if c == ']' || c.is_control() { '_' } else { c })
                .collect(),
        )
    }

    /// The key of game `game`, played as `moves`, of a run whose configuration has
    /// `fingerprint`.
    pub fn of_run(fingerprint: &str, game: u64, moves: &[Cell]) -> GameKey {
        let hash = fnv1a(moves.iter().map(|c| c.byte()));
        GameKey::new(&format!("{fingerprint}:{game}:{hash:016x}"))
    }

    /// The key earlier builds gave a run's game, `FINGERPRINT:GAME`: two runs with the same
    /// settings shared it. Libraries they wrote hold it; a game with that key there is the same
    /// game only where the key's line sits at the end of the game's moves.
    pub fn legacy_of_run(fingerprint: &str, game: u64) -> GameKey {
        GameKey::new(&format!("{fingerprint}:{game}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why a game cannot go into a RenLib library.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NotMergeable {
    /// The game was played on another board than 15×15, the only size RenLib holds.
    #[error("a {size}x{size} game: RenLib libraries hold 15x15 games only")]
    NotStandardBoard { size: u32 },
    /// A point lies outside the 15×15 board.
    #[error("point {point} is off the 15x15 board: RenLib libraries hold 15x15 games only")]
    OffTheBoard { point: String },
    /// The game has no stone at all.
    #[error("the game has no stones")]
    NoMoves,
    /// Two stones on the same point: not a game.
    #[error("move {ply} is on {point}, which is already taken")]
    Occupied { ply: usize, point: String },
    /// The moves do not read as moves.
    #[error("unreadable moves: {why}")]
    BadMoves { why: String },
}

impl NotMergeable {
    /// Whether the game was rejected for its board (the report counts these apart).
    pub fn is_board_size(&self) -> bool {
        matches!(
            self,
            NotMergeable::NotStandardBoard { .. } | NotMergeable::OffTheBoard { .. }
        )
    }
}

/// A game ready to merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibGame {
    pub key: GameKey,
    /// The key older builds gave the same game ([`GameKey::legacy_of_run`]), for a run's games.
    pub legacy_key: Option<GameKey>,
    /// Every stone from the empty board, the opening included, black first; a pass is
    /// [`Cell::PASS`].
    pub moves: Vec<Cell>,
    /// `None` when the source does not say.
    pub result: Option<GameResult>,
    pub black: String,
    pub white: String,
    /// How the game ended (`five`, `time_forfeit`, ...), empty when unknown.
    pub termination: String,
}

impl LibGame {
    /// A game as built from its parts; checks the moves (no point taken twice, at least one).
    pub fn new(
        key: GameKey,
        moves: Vec<Cell>,
        result: Option<GameResult>,
        players: (&str, &str),
        termination: &str,
    ) -> Result<LibGame, NotMergeable> {
        check_moves(&moves)?;
        Ok(LibGame {
            key,
            legacy_key: None,
            moves,
            result,
            black: one_line(players.0),
            white: one_line(players.1),
            termination: one_line(termination),
        })
    }

    /// A game the runner just finished; `fingerprint` is the run's (the journal's).
    pub fn from_record(r: &GameRecord, fingerprint: &str) -> Result<LibGame, NotMergeable> {
        standard_board(r.size.get().into())?;
        LibGame::of_run(
            fingerprint,
            r.game.0,
            cells(&r.all_stones())?,
            Some(r.outcome.result()),
            (&r.black_name, &r.white_name),
            r.outcome.termination.code(),
        )
    }

    /// Game `game` of the run with `fingerprint`: keyed by the run, the number and the moves.
    fn of_run(
        fingerprint: &str,
        game: u64,
        moves: Vec<Cell>,
        result: Option<GameResult>,
        players: (&str, &str),
        termination: &str,
    ) -> Result<LibGame, NotMergeable> {
        let key = GameKey::of_run(fingerprint, game, &moves);
        let mut g = LibGame::new(key, moves, result, players, termination)?;
        g.legacy_key = Some(GameKey::legacy_of_run(fingerprint, game));
        Ok(g)
    }

    /// A run's game with no result or players (unit tests).
    #[cfg(test)]
    pub(crate) fn of_run_for_tests(fingerprint: &str, game: u64, moves: Vec<Cell>) -> LibGame {
        LibGame::of_run(fingerprint, game, moves, None, ("a", "b"), "").unwrap()
    }

    /// A game line of a journal.
    pub fn from_journal(e: &JournalEntry) -> Result<LibGame, NotMergeable> {
        standard_board(e.size.into())?;
        let g = JournalGame::try_from(e).map_err(|err| NotMergeable::BadMoves {
            why: err.to_string(),
        })?;
        LibGame::of_run(
            &e.fingerprint,
            e.game,
            cells(&[g.opening, g.moves].concat())?,
            Some(e.result),
            (&e.black, &e.white),
            &e.termination,
        )
    }

    /// One line of a pos-notation game list (`h8i9j10`, spaces and commas between moves allowed);
    /// `None` for a blank line or a `#` comment.
    pub fn from_pos_line(line: &str) -> Option<Result<LibGame, NotMergeable>> {
        let compact: String = line
            .chars()
            .filter(|c| !c.is_whitespace() && *c != ',')
            .collect();
        if compact.is_empty() || compact.starts_with('#') {
            return None;
        }
        // Read on the widest lettered board, so a point off 15×15 is reported as such.
        let wide = BoardSize::new(26).unwrap_or(BoardSize::STANDARD);
        let game = parse_pos_sequence(&compact, wide)
            .map_err(|e| NotMergeable::BadMoves { why: e.to_string() })
            .and_then(|moves| {
                let moves = cells(&moves)?;
                let key = GameKey::new(&format!(
                    "pos:{:016x}",
                    fnv1a(moves.iter().map(|c| c.byte()))
                ));
                LibGame::new(key, moves, None, ("", ""), "")
            });
        Some(game)
    }

    /// A Piskvork `.psq` record: its stones and players. The format records no result, and a
    /// renju foul is not among its stones.
    pub fn from_psq(g: &PsqGame) -> Result<LibGame, NotMergeable> {
        if g.width != g.height {
            let size = if g.width == 15 { g.height } else { g.width };
            return Err(NotMergeable::NotStandardBoard { size: size.into() });
        }
        standard_board(g.width.into())?;
        let moves = cells(&g.stones())?;
        let key = GameKey::new(&format!(
            "psq:{:016x}",
            fnv1a(moves.iter().map(|c| c.byte()))
        ));
        let (black, white) = g
            .players
            .as_ref()
            .map_or(("", ""), |(b, w)| (b.as_str(), w.as_str()));
        LibGame::new(key, moves, None, (black, white), "")
    }

    /// One SGF game: its main line's moves; a last move whose comment starts with `forbidden` is
    /// left out (our SGF records a renju foul that way, and the foul is not on the board).
    pub fn from_sgf(g: &SgfGame) -> Result<LibGame, NotMergeable> {
        if let Some(sz) = g.root("SZ") {
            let size = sz.split(':').next().unwrap_or(sz).trim();
            match size.parse::<u32>() {
                Ok(n) => standard_board(n)?,
                Err(_) => {
                    return Err(NotMergeable::BadMoves {
                        why: format!("SZ[{sz}]"),
                    })
                }
            }
        }
        let mut stones: Vec<&crate::formats::renlib::sgf::SgfNode> =
            g.nodes.iter().filter(|n| n.stone().is_some()).collect();
        if stones
            .last()
            .and_then(|n| n.get("C"))
            .is_some_and(|c| c.trim_start().starts_with("forbidden"))
        {
            stones.pop();
        }
        let mut moves = Vec::with_capacity(stones.len());
        for n in stones {
            let (_, point) = n.stone().unwrap_or((Color::Black, ""));
            moves.push(sgf_cell(point)?);
        }
        let key = GameKey::new(&format!("sgf:{:016x}", fnv1a(g.text.bytes())));
        LibGame::new(
            key,
            moves,
            g.root("RE").and_then(parse_sgf_result),
            (g.root("PB").unwrap_or(""), g.root("PW").unwrap_or("")),
            &sgf_termination(g),
        )
    }
}

fn standard_board(size: u32) -> Result<(), NotMergeable> {
    if size == 15 {
        Ok(())
    } else {
        Err(NotMergeable::NotStandardBoard { size })
    }
}

fn cells(moves: &[Pos]) -> Result<Vec<Cell>, NotMergeable> {
    moves
        .iter()
        .map(|&p| {
            Cell::from_pos(p).ok_or_else(|| NotMergeable::OffTheBoard {
                point: point_name(p),
            })
        })
        .collect()
}

fn point_name(p: Pos) -> String {
    if p.x < 26 {
        format!("{}{}", (b'a' + p.x) as char, p.y + 1)
    } else {
        p.to_string()
    }
}

fn check_moves(moves: &[Cell]) -> Result<(), NotMergeable> {
    if moves.is_empty() {
        return Err(NotMergeable::NoMoves);
    }
    let mut taken = [false; 256];
    for (i, &c) in moves.iter().enumerate() {
        if c == Cell::PASS {
            continue;
        }
        if std::mem::replace(&mut taken[c.byte() as usize], true) {
            return Err(NotMergeable::Occupied {
                ply: i + 1,
                point: c
                    .notation(crate::formats::renlib::Notation::Pos)
                    .to_string(),
            });
        }
    }
    Ok(())
}

/// An SGF point on 15×15; an empty value is a pass.
fn sgf_cell(point: &str) -> Result<Cell, NotMergeable> {
    if point.is_empty() {
        return Ok(Cell::PASS);
    }
    let wide = BoardSize::new(32).unwrap_or(BoardSize::STANDARD);
    let p =
        Pos::parse_sgf(point, wide).map_err(|e| NotMergeable::BadMoves { why: e.to_string() })?;
    Cell::from_pos(p).ok_or_else(|| NotMergeable::OffTheBoard {
        point: format!("[{point}]"),
    })
}

/// SGF's `RE`: `B+...`, `W+...`, `0` or `Draw` for a draw.
fn parse_sgf_result(re: &str) -> Option<GameResult> {
    let re = re.trim();
    if re.starts_with("B+") {
        Some(GameResult::BlackWins)
    } else if re.starts_with("W+") {
        Some(GameResult::WhiteWins)
    } else if re == "0" || re.eq_ignore_ascii_case("draw") || re == "D" {
        Some(GameResult::Draw)
    } else {
        None
    }
}

/// How an SGF game ended: its `TE`, else the termination code our SGF writes first in the root
/// comment (`five: black makes five`), else what `RE`'s suffix says.
fn sgf_termination(g: &SgfGame) -> String {
    if let Some(te) = g.root("TE") {
        return te.to_string();
    }
    let code = g
        .root("C")
        .and_then(|c| c.split_once(':'))
        .map(|(code, _)| code.trim());
    if let Some(code) =
        code.filter(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
    {
        return code.to_string();
    }
    let suffix = g
        .root("RE")
        .and_then(|re| re.split_once('+'))
        .map(|(_, s)| s.trim());
    match suffix {
        Some("T") | Some("Time") => "time".into(),
        Some("R") | Some("Resign") => "resign".into(),
        Some("F") | Some("Forfeit") => "forfeit".into(),
        _ => String::new(),
    }
}

/// Text on one line: control characters (line ends, RenLib's title separator) become spaces.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_string()
}

/// FNV-1a, 64 bits: a hash that stays the same across Rust versions and machines, so keys written
/// into a library today match the same games tomorrow.
pub fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::renlib::sgf;
    use crate::game::record::fixtures::sample_record;

    #[test]
    fn a_runner_record_keeps_opening_and_moves() {
        let r = sample_record();
        let g = LibGame::from_record(&r, "abc").unwrap();
        let hash = fnv1a(g.moves.iter().map(|c| c.byte()));
        assert_eq!(g.key.as_str(), format!("abc:7:{hash:016x}"));
        assert_eq!(g.legacy_key, Some(GameKey::new("abc:7")));
        assert_eq!(g.moves.len(), 9);
        assert_eq!(g.moves[0], Cell::CENTER);
        assert_eq!(g.result, Some(GameResult::BlackWins));
        assert_eq!((g.black.as_str(), g.white.as_str()), ("scout", "random"));
        assert_eq!(g.termination, "five");
        let e = JournalEntry::from_record(&r, "abc");
        assert_eq!(LibGame::from_journal(&e).unwrap(), g);
    }

    #[test]
    fn other_boards_are_refused() {
        let mut r = sample_record();
        r.size = BoardSize::new(19).unwrap();
        let e = LibGame::from_record(&r, "f").unwrap_err();
        assert_eq!(e, NotMergeable::NotStandardBoard { size: 19 });
        assert!(e.is_board_size());
        let e = LibGame::from_pos_line("h8 p16").unwrap().unwrap_err();
        assert!(e.is_board_size(), "{e}");
        assert!(LibGame::from_pos_line("  ").is_none());
        assert!(LibGame::from_pos_line("# a comment").is_none());
        assert!(matches!(
            LibGame::from_pos_line("h8h8").unwrap(),
            Err(NotMergeable::Occupied { ply: 2, .. })
        ));
    }

    #[test]
    fn pos_lines_are_keyed_by_their_moves() {
        let a = LibGame::from_pos_line("h8i9j10").unwrap().unwrap();
        let b = LibGame::from_pos_line("h8, i9, j10\r").unwrap().unwrap();
        let c = LibGame::from_pos_line("h8i9j11").unwrap().unwrap();
        assert_eq!(a.key, b.key);
        assert_ne!(a.key, c.key);
        assert_eq!(a.moves.len(), 3);
        assert_eq!(a.result, None);
    }

    #[test]
    fn sgf_games_drop_the_recorded_foul() {
        let text = "(;GM[4]SZ[15]PB[x]PW[y]RE[W+F]C[forbidden: black double-three];B[hh];W[hi];B[ii]C[forbidden: double-three])";
        let games = sgf::parse(text).unwrap();
        let g = LibGame::from_sgf(&games[0]).unwrap();
        assert_eq!(g.moves.len(), 2);
        assert_eq!(g.result, Some(GameResult::WhiteWins));
        assert_eq!(g.termination, "forbidden");
        assert!(g.key.as_str().starts_with("sgf:"));
        let games = sgf::parse("(;SZ[19];B[hh])").unwrap();
        assert_eq!(
            LibGame::from_sgf(&games[0]).unwrap_err(),
            NotMergeable::NotStandardBoard { size: 19 }
        );
    }

    #[test]
    fn psq_records_keep_stones_and_players() {
        use crate::formats::psq;
        let r = sample_record();
        let g = LibGame::from_psq(&psq::parse(&psq::render(&r)).unwrap()).unwrap();
        let from_run = LibGame::from_record(&r, "abc").unwrap();
        assert_eq!(g.moves, from_run.moves);
        assert_eq!((g.black.as_str(), g.white.as_str()), ("scout", "random"));
        assert_eq!(g.result, None);
        assert!(g.key.as_str().starts_with("psq:"), "{}", g.key.as_str());
        let big = psq::parse("Piskvorky 20x20, 7:7, 0\n10,10,0\n").unwrap();
        assert_eq!(
            LibGame::from_psq(&big).unwrap_err(),
            NotMergeable::NotStandardBoard { size: 20 }
        );
        let wide = psq::parse("Piskvorky 15x10, 7:7, 0\n10,10,0\n").unwrap();
        assert!(LibGame::from_psq(&wide).unwrap_err().is_board_size());
        let empty = psq::parse("Piskvorky 15x15, 7:7, 0\n0\n").unwrap();
        assert_eq!(
            LibGame::from_psq(&empty).unwrap_err(),
            NotMergeable::NoMoves
        );
    }

    #[test]
    fn keys_cannot_break_their_line() {
        assert_eq!(GameKey::new("a]b\r\nc").as_str(), "a_b__c");
        assert_eq!(fnv1a(*b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
