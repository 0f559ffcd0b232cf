//! The games a rating list is fitted to, read from journals and PGN files into one table: each
//! player once (an id per distinct name, in the order names first occur, as BayesElo numbers
//! them), each game as first mover, second mover, result and whether the loser was at fault.
//!
//! A name met with two spellings (they differ only in case or blanks: `Wine 2` and `wine2`) is
//! refused naming both and where each first occurs: two spellings are most often one engine
//! renamed by hand, and rating them as two players would split its games.

use std::collections::HashMap;

use serde::Deserialize;
use thiserror::Error;

use crate::formats::journal::FinishedGame;
use crate::formats::pgn_tags::{PgnError, TagSection};
use crate::game::termination::{GameResult, PgnTermination, TerminationKind};

/// Where a name first occurs: a line of a PGN file, or a game of a run's journals (the line of
/// which the command finds when it must name it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    Line { file: String, line: usize },
    Game { run: String, game: u64 },
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Line { file, line } => write!(f, "{file}:{line}"),
            Place::Game { run, game } => write!(f, "game {game} of the journal of run {run}"),
        }
    }
}

/// Games that cannot be rated as given.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum RatedGamesError {
    #[error(transparent)]
    Pgn(#[from] PgnError),
    /// A PGN game without one of the tags a rating needs.
    #[error("{file}:{line}: the game has no {tag} tag")]
    MissingTag {
        file: String,
        line: usize,
        tag: &'static str,
    },
    /// A `Result` tag that is none of `1-0`, `0-1`, `1/2-1/2`, `*`.
    #[error("{file}:{line}: unknown result {value:?} (expected 1-0, 0-1, 1/2-1/2 or *)")]
    BadResult {
        file: String,
        line: usize,
        value: String,
    },
    /// A player without a name.
    #[error("{at}: an empty player name")]
    EmptyName { at: Place },
    /// A game of a player against itself (BayesElo would rate it; it says nothing).
    #[error("{at}: {name:?} plays itself")]
    SelfPlay { name: String, at: Place },
    /// One player written two ways.
    #[error("{:?} ({}) and {:?} ({}) differ only in case or blanks: write one player's name one way", .0.first, .0.first_at, .0.second, .0.second_at)]
    TwoSpellings(Box<Spellings>),
}

/// Two spellings of one name and where each first occurs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spellings {
    pub first: String,
    pub first_at: Place,
    pub second: String,
    pub second_at: Place,
}

/// One rated game: player ids, the result from the first mover's side (`BlackWins`: the first
/// mover won), and whether the loser lost by its own fault (a timeout or a crash).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatedResult {
    pub first: u32,
    pub second: u32,
    pub result: GameResult,
    pub fault: bool,
}

impl RatedResult {
    /// The id of the player at fault, if any.
    pub fn at_fault(&self) -> Option<u32> {
        match (self.fault, self.result) {
            (true, GameResult::BlackWins) => Some(self.second),
            (true, GameResult::WhiteWins) => Some(self.first),
            _ => None,
        }
    }
}

/// Every player and game read so far.
#[derive(Debug, Default)]
pub struct RatedGames {
    /// Names by id.
    pub names: Vec<String>,
    /// Where each name first occurs, by id.
    pub places: Vec<Place>,
    pub games: Vec<RatedResult>,
    /// Games whose result is `*` (unfinished), skipped.
    pub unfinished: u64,
    ids: HashMap<String, u32>,
    /// Folded spelling → id.
    folded: HashMap<String, u32>,
}

/// A name as the spelling check compares it: lower case, without blanks.
fn fold(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

impl RatedGames {
    /// The id of `name`, numbered now when it is new; `at` says where it occurs.
    pub fn player(&mut self, name: &str, at: impl Fn() -> Place) -> Result<u32, RatedGamesError> {
        if let Some(&id) = self.ids.get(name) {
            return Ok(id);
        }
        if name.trim().is_empty() {
            return Err(RatedGamesError::EmptyName { at: at() });
        }
        let key = fold(name);
        if let Some(&other) = self.folded.get(&key) {
            return Err(RatedGamesError::TwoSpellings(Box::new(Spellings {
                first: self.names[other as usize].clone(),
                first_at: self.places[other as usize].clone(),
                second: name.to_string(),
                second_at: at(),
            })));
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.places.push(at());
        self.ids.insert(name.to_string(), id);
        self.folded.insert(key, id);
        Ok(id)
    }

    /// Add the game `g` of two players numbered; `at` is where the game is.
    fn push(&mut self, g: RatedResult, at: impl Fn() -> Place) -> Result<(), RatedGamesError> {
        if g.first == g.second {
            return Err(RatedGamesError::SelfPlay {
                name: self.names[g.first as usize].clone(),
                at: at(),
            });
        }
        self.games.push(g);
        Ok(())
    }

    /// Add a game between two named players.
    pub fn add(
        &mut self,
        first: &str,
        second: &str,
        result: GameResult,
        fault: bool,
        at: impl Fn() -> Place,
    ) -> Result<(), RatedGamesError> {
        let first = self.player(first, &at)?;
        let second = self.player(second, &at)?;
        let game = RatedResult {
            first,
            second,
            result,
            fault,
        };
        self.push(game, at)
    }

    /// Add a journal's game line.
    pub fn add_journal_line(&mut self, g: &RatedLine) -> Result<(), RatedGamesError> {
        let at = || Place::Game {
            run: g.fingerprint.clone(),
            game: g.game,
        };
        let fault =
            TerminationKind::from_code(&g.termination).is_some_and(|k| is_fault(k.row().pgn));
        self.add(&g.black, &g.white, g.result, fault, at)
    }

    /// Add a PGN game read with [`PGN_TAGS`].
    pub fn add_pgn_game(&mut self, g: &TagSection, file: &str) -> Result<(), RatedGamesError> {
        let tag = |i: usize| {
            g.tags[i].as_ref().ok_or(RatedGamesError::MissingTag {
                file: file.to_string(),
                line: g.line,
                tag: PGN_TAGS[i],
            })
        };
        let (white, black, result) = (tag(0)?, tag(1)?, tag(2)?);
        let termination = g.tags[3].as_ref().map_or("", |t| t.value.as_str());
        if result.value.trim() == "*" {
            self.unfinished += 1;
            return Ok(());
        }
        let by_tag: GameResult = result
            .value
            .parse()
            .map_err(|_| RatedGamesError::BadResult {
                file: file.to_string(),
                line: result.line,
                value: result.value.clone(),
            })?;
        let at = |t: &crate::formats::pgn_tags::TagValue| {
            let line = t.line;
            move || Place::Line {
                file: file.to_string(),
                line,
            }
        };
        // `1-0`: the White tag's player won. c-gomoku-cli writes the first mover (gomoku's
        // black) in the Black tag; every other writer, ours included, in the White tag.
        let (first, second, result) = match c_gomoku_cli_termination(termination) {
            false => (white, black, by_tag),
            true => (black, white, swap_sides(by_tag)),
        };
        let game = RatedResult {
            first: self.player(&first.value, at(first))?,
            second: self.player(&second.value, at(second))?,
            result,
            fault: pgn_fault(termination),
        };
        self.push(game, || Place::Line {
            file: file.to_string(),
            line: g.line,
        })
    }
}

/// The tags a rating reads of a PGN game, in [`TagSection::tags`]'s order.
pub const PGN_TAGS: [&str; 4] = ["White", "Black", "Result", "Termination"];

fn swap_sides(r: GameResult) -> GameResult {
    match r {
        GameResult::BlackWins => GameResult::WhiteWins,
        GameResult::WhiteWins => GameResult::BlackWins,
        GameResult::Draw => GameResult::Draw,
    }
}

/// Whether a termination of the PGN's kind is a fault of the loser: Gomocup's timeouts and
/// crashes (`time forfeit`, `abandoned`: `time_forfeit`, `crash`, `failed_start`).
fn is_fault(t: PgnTermination) -> bool {
    matches!(t, PgnTermination::TimeForfeit | PgnTermination::Abandoned)
}

/// Whether a PGN `Termination` tag says the loser timed out or crashed: the PGN standard's
/// `time forfeit` and `abandoned` (which we write), or c-gomoku-cli's `... by time forfeit` and
/// `... by opponent crash`.
pub fn pgn_fault(termination: &str) -> bool {
    let t = termination.trim().to_ascii_lowercase();
    [PgnTermination::TimeForfeit, PgnTermination::Abandoned]
        .iter()
        .any(|k| t == k.as_str())
        || t.ends_with(" by time forfeit")
        || t.ends_with(" by opponent crash")
}

/// Whether a `Termination` tag is one c-gomoku-cli writes (`Black win by five connection`, `Draw
/// by fullfilled board`, ...): its PGN names the first mover in the Black tag.
fn c_gomoku_cli_termination(termination: &str) -> bool {
    [
        "Black win by ",
        "White win by ",
        "Draw by ",
        "Black play forbidden move",
    ]
    .iter()
    .any(|p| termination.starts_with(p))
}

/// What a rating reads of a journal's game line (the rest is skipped unparsed): the names by
/// colour (black moved first), the result and the termination's code.
#[derive(Debug, Clone, Deserialize)]
pub struct RatedLine {
    pub game: u64,
    pub black: String,
    pub white: String,
    #[serde(deserialize_with = "crate::formats::journal::result_text::deserialize")]
    pub result: GameResult,
    #[serde(default)]
    pub termination: String,
    pub ended: String,
    pub fingerprint: String,
}

impl FinishedGame for RatedLine {
    fn game_number(&self) -> u64 {
        self.game
    }
    fn ended_at(&self) -> &str {
        &self.ended
    }
    fn run(&self) -> &str {
        &self.fingerprint
    }
}

/// The 1-based line of a journal's text that holds game `game` of run `run`, for an error that
/// must name it.
pub fn line_of_game(text: &str, run: &str, game: u64) -> Option<usize> {
    let number = format!("\"game\":{game},");
    let run = format!("\"fingerprint\":\"{run}\"");
    text.lines()
        .position(|l| l.contains(&number) && l.contains(&run))
        .map(|i| i + 1)
}

/// A player left out of the fit for its faults.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LeftOut {
    pub name: String,
    pub games: u32,
    /// Games it lost by a timeout or a crash.
    pub faults: u32,
    /// `faults / games`.
    pub share: f64,
}

/// The games a fit sees: the players over `max_faults` (a share) left out with all their games,
/// the others renumbered in their order. Returns the fitted players' names, their games and
/// those left out (in the order they were first met).
pub fn leave_out(
    all: &RatedGames,
    max_faults: Option<f64>,
) -> (
    Vec<String>,
    Vec<crate::stats::ratings::RatedGame>,
    Vec<LeftOut>,
) {
    let n = all.names.len();
    let (mut games, mut faults) = (vec![0u32; n], vec![0u32; n]);
    for g in &all.games {
        games[g.first as usize] += 1;
        games[g.second as usize] += 1;
        if let Some(p) = g.at_fault() {
            faults[p as usize] += 1;
        }
    }
    let share = |p: usize| match games[p] {
        0 => 0.0,
        g => f64::from(faults[p]) / f64::from(g),
    };
    let out: Vec<bool> = (0..n)
        .map(|p| max_faults.is_some_and(|m| share(p) > m))
        .collect();
    // Players whose every game was against those left out have none left: not listed.
    let mut left = vec![0u32; n];
    for g in &all.games {
        if !out[g.first as usize] && !out[g.second as usize] {
            left[g.first as usize] += 1;
            left[g.second as usize] += 1;
        }
    }
    let mut id = vec![u32::MAX; n];
    let mut names = Vec::new();
    for p in (0..n).filter(|&p| !out[p] && left[p] > 0) {
        id[p] = names.len() as u32;
        names.push(all.names[p].clone());
    }
    let rated = (all.games.iter())
        .filter(|g| id[g.first as usize] != u32::MAX && id[g.second as usize] != u32::MAX)
        .map(|g| crate::stats::ratings::RatedGame {
            first: id[g.first as usize],
            second: id[g.second as usize],
            outcome: match g.result {
                GameResult::BlackWins => crate::stats::ratings::Outcome::FirstWins,
                GameResult::Draw => crate::stats::ratings::Outcome::Draw,
                GameResult::WhiteWins => crate::stats::ratings::Outcome::SecondWins,
            },
        })
        .collect();
    let left_out = (0..n)
        .filter(|&p| out[p])
        .map(|p| LeftOut {
            name: all.names[p].clone(),
            games: games[p],
            faults: faults[p],
            share: share(p),
        })
        .collect();
    (names, rated, left_out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::pgn_tags::read_games;

    fn read(text: &str) -> Result<RatedGames, RatedGamesError> {
        let mut games = RatedGames::default();
        let torn = read_games(text.as_bytes(), "t.pgn", &PGN_TAGS, |g| {
            games.add_pgn_game(g, "t.pgn")
        })?;
        assert_eq!(torn, None);
        Ok(games)
    }

    fn game(white: &str, black: &str, result: &str, termination: &str) -> String {
        format!("[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n[Termination \"{termination}\"]\n\n{result}\n\n")
    }

    #[test]
    fn pgn_games_are_rated_from_the_first_mover_s_side() {
        let text = [
            game("a", "b", "1-0", "normal"),
            game("b", "c", "0-1", "time forfeit"),
            game("c", "a", "1/2-1/2", "normal"),
            game("a", "c", "*", ""),
            // c-gomoku-cli: the first mover in the Black tag, 0-1 when it won.
            game("c", "b", "0-1", "Black win by five connection"),
            game("a", "b", "1-0", "White win by opponent crash"),
        ]
        .concat();
        let g = read(&text).unwrap();
        assert_eq!(g.names, ["a", "b", "c"]);
        assert_eq!(g.unfinished, 1);
        let rows: Vec<_> = g
            .games
            .iter()
            .map(|r| (r.first, r.second, r.result, r.at_fault()))
            .collect();
        use GameResult::*;
        assert_eq!(
            rows,
            [
                (0, 1, BlackWins, None),
                (1, 2, WhiteWins, Some(1)),
                (2, 0, Draw, None),
                (1, 2, BlackWins, None),
                (1, 0, WhiteWins, Some(1)),
            ]
        );
        assert_eq!(
            g.places[2],
            Place::Line {
                file: "t.pgn".into(),
                line: 9
            }
        );
    }

    #[test]
    fn bad_games_are_named_by_file_line_and_value() {
        let err = read(&(game("a", "b", "1-0", "") + &game("a", "b", "2-0", ""))).unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.pgn:10: unknown result \"2-0\" (expected 1-0, 0-1, 1/2-1/2 or *)"
        );
        let err = read("[White \"a\"]\n[Result \"1-0\"]\n\n1-0\n").unwrap_err();
        assert_eq!(err.to_string(), "t.pgn:1: the game has no Black tag");
        let err = read(&(game("a", "b", "1-0", "") + &game("b", "b", "0-1", ""))).unwrap_err();
        assert_eq!(err.to_string(), "t.pgn:8: \"b\" plays itself");
        let err = read(&game("a", " ", "1-0", "")).unwrap_err();
        assert_eq!(err.to_string(), "t.pgn:2: an empty player name");
    }

    #[test]
    fn two_spellings_of_a_name_are_refused_naming_both_places() {
        let text = game("Wine 2", "b", "1-0", "") + &game("b", "wine2", "1-0", "");
        let err = read(&text).unwrap_err();
        assert_eq!(
            err.to_string(),
            "\"Wine 2\" (t.pgn:1) and \"wine2\" (t.pgn:9) differ only in case or blanks: write one player's name one way"
        );
        // The same spelling again is the same player.
        let g = read(&(game("A", "b", "1-0", "") + &game("b", "A", "0-1", ""))).unwrap();
        assert_eq!(g.names, ["A", "b"]);
        assert_eq!(g.games.len(), 2);
    }

    #[test]
    fn journal_faults_are_timeouts_and_crashes() {
        let mut g = RatedGames::default();
        let line = |termination: &str, result| RatedLine {
            game: 1,
            black: "a".into(),
            white: "b".into(),
            result,
            termination: termination.into(),
            ended: String::new(),
            fingerprint: "f".into(),
        };
        for (t, r) in [
            ("time_forfeit", GameResult::WhiteWins),
            ("crash", GameResult::BlackWins),
            ("failed_start", GameResult::BlackWins),
            ("five", GameResult::BlackWins),
            ("illegal_move", GameResult::BlackWins),
            ("renamed_later", GameResult::BlackWins),
        ] {
            g.add_journal_line(&line(t, r)).unwrap();
        }
        let faults: Vec<_> = g.games.iter().map(RatedResult::at_fault).collect();
        assert_eq!(faults, [Some(0), Some(1), Some(1), None, None, None]);
        // The journal and the PGN of one game agree.
        for kind in TerminationKind::ALL {
            let row = kind.row();
            assert_eq!(
                is_fault(row.pgn),
                pgn_fault(row.pgn.as_str()),
                "{}",
                row.code
            );
        }
    }

    #[test]
    fn a_journal_game_is_found_by_run_and_number() {
        let text = "{\"type\":\"header\"}\n{\"game\":12,\"fingerprint\":\"x\"}\n{\"game\":1,\"fingerprint\":\"f\"}\n";
        assert_eq!(line_of_game(text, "f", 1), Some(3));
        assert_eq!(line_of_game(text, "f", 12), None);
    }
}
