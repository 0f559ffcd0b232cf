//! `gomoku-cli ratings INPUT...`: the rating list of every game in journals, run directories and
//! PGN files, fitted as BayesElo fits it (`stats::ratings`), printed as BayesElo's `ratings`
//! table, as JSON, with the likelihood of superiority on demand. Standard output only: nothing
//! is written, so nothing can be lost.
//!
//! Inputs: a directory is a run directory (its `*.journal.jsonl`, the shards' too, found as
//! `report` and `merge` find them); a file is a journal when its first character that is not a
//! blank is `{`, a PGN when it is `[` (extensions do not matter). A file named twice (also
//! through a directory, a link or `..`) is refused; a PGN in the directory of a journal read is
//! warned about (a run's own `-pgn` holds the journal's games again).

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::commands::{failed, say, CommandError, CommandResult, Outcome};
use crate::formats::journal::HeaderCheck;
pub use crate::formats::rated_games::{leave_out, LeftOut};
use crate::formats::rated_games::{Place, RatedGames, RatedGamesError, RatedLine, PGN_TAGS};
use crate::stats::ratings::{self, render_parameters, FitSettings, RatingList};

/// The `ratings` arguments.
#[derive(Debug, Clone)]
pub struct RatingsArgs {
    /// Journals, run directories and PGN files.
    pub inputs: Vec<PathBuf>,
    /// The fit's settings: advantage and draw Elo (estimated or fixed), prior, offset,
    /// confidence, LOS.
    pub fit: FitSettings,
    /// Players with fewer games are fitted but not listed (BayesElo's `ratings N`).
    pub min_games: u32,
    /// Players whose timeouts and crashes exceed this share of their games are left out of the
    /// fit (Gomocup's 10 %).
    pub max_faults: Option<f64>,
    pub json: bool,
    /// Read a journal whose header no longer gives its fingerprint, with a warning.
    pub force: bool,
}

/// Gomocup's settings (`--gomocup`): no first-move advantage, almost no draws, ratings around
/// 1600, engines with over 10 % timeouts and crashes left out.
pub const GOMOCUP: (f64, f64, f64, f64) = (0.0, 0.01, 1600.0, 0.10);

/// How an input is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Journal,
    Pgn,
}

/// The files the inputs name, each with its kind: a directory stands for its journals.
fn input_files(inputs: &[PathBuf]) -> Result<Vec<(PathBuf, Kind)>, CommandError> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let found = crate::formats::journal::journal_files(std::slice::from_ref(input))
                .map_err(|e| CommandError::Failed(format!("{e}: not a run directory")))?;
            files.extend(found.into_iter().map(|f| (f, Kind::Journal)));
        } else {
            let kind = kind_of(input)?;
            files.push((input.clone(), kind));
        }
    }
    refuse_twice(&files)?;
    warn_beside_journals(&files);
    Ok(files)
}

/// A file's kind from its first byte that is not a blank.
fn kind_of(path: &Path) -> Result<Kind, CommandError> {
    let mut file = std::fs::File::open(path)
        .map_err(|e| CommandError::Failed(format!("{}: {e}", path.display())))?;
    let mut head = [0u8; 4096];
    let n = file
        .read(&mut head)
        .map_err(|e| CommandError::Failed(format!("{}: {e}", path.display())))?;
    let head = head[..n]
        .strip_prefix(crate::formats::pgn_tags::UTF8_BOM)
        .unwrap_or(&head[..n]);
    match head.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => Ok(Kind::Journal),
        Some(b'[') => Ok(Kind::Pgn),
        Some(_) => Err(CommandError::Failed(format!(
            "{}: neither a journal (JSON lines) nor a PGN file (tag pairs): its first character is neither '{{' nor '['",
            path.display()
        ))),
        None if n == 0 => Err(CommandError::Failed(format!(
            "{}: an empty file, neither a journal nor a PGN file",
            path.display()
        ))),
        None => Err(CommandError::Failed(format!(
            "{}: blank, neither a journal nor a PGN file",
            path.display()
        ))),
    }
}

/// Refuse a file named twice: its games would count twice.
fn refuse_twice(files: &[(PathBuf, Kind)]) -> Result<(), CommandError> {
    use std::os::unix::fs::MetadataExt;
    let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    for (i, (b, _)) in files.iter().enumerate() {
        let (real_b, id_b) = (crate::outputs::same_file::resolve(b), id(b));
        for (a, _) in &files[..i] {
            if crate::outputs::same_file::resolve(a) == real_b || (id_b.is_some() && id(a) == id_b)
            {
                return Err(CommandError::Failed(format!(
                    "{} and {} are one file: its games would count twice",
                    a.display(),
                    b.display()
                )));
            }
        }
    }
    Ok(())
}

/// Warn about a PGN in the directory of a journal read: most likely the run's own record of the
/// same games.
fn warn_beside_journals(files: &[(PathBuf, Kind)]) {
    let folder = |p: &Path| {
        crate::outputs::same_file::resolve(p)
            .parent()
            .map(Path::to_path_buf)
    };
    for (pgn, _) in files.iter().filter(|(_, k)| *k == Kind::Pgn) {
        let beside = files
            .iter()
            .filter(|(_, k)| *k == Kind::Journal)
            .find(|(j, _)| folder(j) == folder(pgn));
        if let Some((journal, _)) = beside {
            eprintln!(
                "warning: {} is in the folder of the journal {}: if it is that run's -pgn, each of its games counts twice",
                pgn.display(),
                journal.display()
            );
        }
    }
}

/// Every game of the inputs.
fn read_inputs(files: &[(PathBuf, Kind)], check: HeaderCheck) -> Result<RatedGames, CommandError> {
    let mut games = RatedGames::default();
    let journals: Vec<PathBuf> = (files.iter())
        .filter(|(_, k)| *k == Kind::Journal)
        .map(|(f, _)| f.clone())
        .collect();
    let named = |e: RatedGamesError| CommandError::Failed(name_places(e, &journals));
    if !journals.is_empty() {
        let mut set = crate::commands::JournalSet::<RatedLine>::open_checked(&journals, check)
            .map_err(CommandError::Failed)?;
        let mut added = Ok(());
        for line in set.by_ref() {
            added = games.add_journal_line(&line);
            if added.is_err() {
                break;
            }
        }
        crate::commands::warn_all(&set.warnings);
        if let Some(e) = set.error {
            return Err(CommandError::Failed(e));
        }
        added.map_err(named)?;
    }
    for (file, _) in files.iter().filter(|(_, k)| *k == Kind::Pgn) {
        let name = file.display().to_string();
        let input = std::fs::File::open(file).map_err(|e| failed(format!("{name}: {e}")))?;
        let reader = std::io::BufReader::with_capacity(1 << 16, input);
        let torn = crate::formats::pgn_tags::read_games(reader, &name, &PGN_TAGS, |g| {
            games.add_pgn_game(g, &name)
        })
        .map_err(named)?;
        crate::commands::warn_all(torn.as_slice());
    }
    Ok(games)
}

/// An error's text with every journal game it names given as its file and line.
fn name_places(e: RatedGamesError, journals: &[PathBuf]) -> String {
    let locate = |place: Place| match place {
        Place::Game { run, game } => journals
            .iter()
            .find_map(|f| {
                let text = std::fs::read_to_string(f).ok()?;
                let line = crate::formats::rated_games::line_of_game(&text, &run, game)?;
                Some(Place::Line {
                    file: f.display().to_string(),
                    line,
                })
            })
            .unwrap_or(Place::Game { run, game }),
        line => line,
    };
    match e {
        RatedGamesError::TwoSpellings(mut s) => {
            s.first_at = locate(s.first_at);
            s.second_at = locate(s.second_at);
            RatedGamesError::TwoSpellings(s)
        }
        RatedGamesError::EmptyName { at } => RatedGamesError::EmptyName { at: locate(at) },
        RatedGamesError::SelfPlay { name, at } => RatedGamesError::SelfPlay {
            name,
            at: locate(at),
        },
        other => other,
    }
    .to_string()
}

/// One listed player, as `--json` writes it.
#[derive(Debug, Serialize)]
struct JsonPlayer<'a> {
    rank: usize,
    name: &'a str,
    elo: f64,
    minus: f64,
    plus: f64,
    games: u32,
    score: f64,
    draws: u32,
    opponent: f64,
}

/// The `--json` object.
#[derive(Debug, Serialize)]
struct JsonList<'a> {
    advantage: f64,
    drawelo: f64,
    /// Games fitted, and games with result `*` skipped.
    games: usize,
    unfinished: u64,
    players: Vec<JsonPlayer<'a>>,
    left_out: &'a [LeftOut],
    /// `--los`: `los[i][j]`, the likelihood that `players[i]` is stronger than `players[j]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    los: Option<Vec<Vec<f64>>>,
}

/// The players listed, best first: those with at least `min_games`.
fn listed(list: &RatingList, min_games: u32) -> Vec<usize> {
    (list.ranking().into_iter())
        .filter(|&p| list.players[p].games >= min_games)
        .collect()
}

fn json_text(
    names: &[String],
    list: &RatingList,
    a: &RatingsArgs,
    games: usize,
    unfinished: u64,
    left_out: &[LeftOut],
) -> Result<String, CommandError> {
    let order = listed(list, a.min_games);
    let players = (order.iter().enumerate())
        .map(|(k, &p)| {
            let r = &list.players[p];
            JsonPlayer {
                rank: k + 1,
                name: &names[p],
                elo: r.elo,
                minus: r.minus,
                plus: r.plus,
                games: r.games,
                score: r.score,
                draws: r.draws,
                opponent: r.opponent,
            }
        })
        .collect();
    let los = list.los.as_ref().map(|m| {
        (order.iter())
            .map(|&i| order.iter().map(|&j| m[i][j]).collect())
            .collect()
    });
    let object = JsonList {
        advantage: list.advantage,
        drawelo: list.drawelo,
        games,
        unfinished,
        players,
        left_out,
        los,
    };
    serde_json::to_string(&object).map_err(failed)
}

/// The text after the table: the model's two parameters, the games, those left out.
fn summary(
    list: &RatingList,
    a: &RatingsArgs,
    games: usize,
    players: usize,
    unfinished: u64,
    left_out: &[LeftOut],
) -> String {
    let mut out = format!("\n{}", render_parameters(list, &a.fit, games, players));
    if unfinished > 0 {
        out.push_str(&format!("; {unfinished} unfinished games (*) skipped"));
    }
    out.push('\n');
    if let (Some(max), false) = (a.max_faults, left_out.is_empty()) {
        out.push_str(&format!(
            "left out (timeouts and crashes in over {} of their games):\n",
            percent(max)
        ));
        let width = left_out
            .iter()
            .map(|l| l.name.chars().count())
            .max()
            .unwrap_or(0);
        for l in left_out {
            out.push_str(&format!(
                "  {:width$}  {} of {} games ({})\n",
                l.name,
                l.faults,
                l.games,
                percent(l.share)
            ));
        }
    }
    out
}

fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// Read the inputs, fit, print.
pub fn run(a: RatingsArgs) -> CommandResult {
    let files = input_files(&a.inputs)?;
    let all = read_inputs(&files, HeaderCheck::forced(a.force))?;
    let (names, games, left_out) = leave_out(&all, a.max_faults);
    if games.is_empty() {
        let inputs: Vec<String> = a.inputs.iter().map(|p| p.display().to_string()).collect();
        let why = match (all.games.len(), all.unfinished) {
            (0, 0) => String::new(),
            (0, n) => format!(" ({n} unfinished games, result *)"),
            (n, _) => format!(" ({n} games, every one with a player left out)"),
        };
        return Err(CommandError::Failed(format!(
            "no games to rate in {}{why}",
            inputs.join(", ")
        )));
    }
    let list = ratings::fit(names.len(), &games, &a.fit).map_err(failed)?;
    if a.json {
        let text = json_text(&names, &list, &a, games.len(), all.unfinished, &left_out)?;
        say(&format!("{text}\n"));
        return Ok(Outcome::Done);
    }
    let mut out = ratings::render_table(&names, &list, a.min_games);
    out.push_str(&summary(
        &list,
        &a,
        games.len(),
        names.len(),
        all.unfinished,
        &left_out,
    ));
    if list.los.is_some() {
        out.push('\n');
        // Per mille, as Gomocup publishes it (`los 0 200 4`).
        out.push_str(&ratings::render_los(&names, &list, 4));
    }
    say(&out);
    Ok(Outcome::Done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::rated_games::Place;
    use crate::game::termination::GameResult;

    fn games(rows: &[(&str, &str, GameResult, bool)]) -> RatedGames {
        let mut g = RatedGames::default();
        for (i, &(a, b, r, fault)) in rows.iter().enumerate() {
            let at = || Place::Line {
                file: "t".into(),
                line: i + 1,
            };
            g.add(a, b, r, fault, at).unwrap();
        }
        g
    }

    #[test]
    fn players_over_the_fault_share_are_left_out_with_all_their_games() {
        use GameResult::*;
        let all = games(&[
            ("a", "b", BlackWins, false),
            ("b", "c", BlackWins, true), // c at fault
            ("c", "a", WhiteWins, false),
            ("c", "d", Draw, false),
            ("a", "b", WhiteWins, false),
        ]);
        let (names, rated, out) = leave_out(&all, None);
        assert_eq!(names, ["a", "b", "c", "d"]);
        assert_eq!(rated.len(), 5);
        assert!(out.is_empty());
        // c: 1 fault in 3 games. Over 30 %: left out, and d, who met only c, has no games.
        let (names, rated, out) = leave_out(&all, Some(0.30));
        assert_eq!(names, ["a", "b"]);
        assert_eq!(rated.len(), 2);
        assert_eq!(rated[1].outcome, ratings::Outcome::SecondWins);
        assert_eq!(
            out,
            [LeftOut {
                name: "c".into(),
                games: 3,
                faults: 1,
                share: 1.0 / 3.0
            }]
        );
        // Exactly at the share: kept.
        assert!(leave_out(&all, Some(1.0 / 3.0)).2.is_empty());
    }
}
