//! `-tournament groups` and its `-groups` settings: Gomocup's league. The ratings (a ratings file,
//! or a journal or run directory fitted as `gomoku-cli ratings` fits it) are read here once,
//! matched to the engines by name and rounded to whole Elo as the rating table prints them, so
//! the schedule (`schedule::groups`) and the run's identity are pure functions of the settings.

use std::path::{Path, PathBuf};

use crate::cli::{KeyValues, Opt, RawCli};
use crate::config::error::{settings, ConfigError};
use crate::engine::spec::EngineSpec;
use crate::formats::ratings_file::{self, FileRating};
use crate::schedule::groups::alone;

/// Gomocup's gap: engines rated 400 Elo apart or more do not meet.
pub const DEFAULT_GAP: u64 = 400;
/// Gomocup's promotion: the top 4 of a group play in the next one.
pub const DEFAULT_PROMOTE: usize = 4;

/// A league's settings, checked, with each engine's rating.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupsConfig {
    /// `ratings=`: where the ratings come from (`None`: every engine is unrated, every pair meets).
    pub ratings_from: Option<PathBuf>,
    /// `gap=`: engines rated this far apart or more do not meet.
    pub gap: u64,
    /// `promote=`: how many are promoted.
    pub promote: usize,
    /// `promoted=`: the engines file written with the promoted engines.
    pub promoted: Option<PathBuf>,
    /// Each engine's rating in whole Elo, in `-engine` order; `None` when the file lacks it.
    pub ratings: Vec<Option<i64>>,
    /// Each engine's settings as given (`-each`, then its own, `conf=` expanded): what the
    /// promoted file says of it.
    pub engine_settings: Vec<KeyValues>,
    /// The engines file the run reads (`-engines`, or the default one for `conf=`): never the
    /// promoted file.
    pub engines_file: Option<PathBuf>,
}

/// Why the league's settings cannot be used (each a [`ConfigError::Groups`]).
fn refuse(why: impl Into<String>) -> ConfigError {
    ConfigError::Groups(why.into())
}

/// `-tournament groups` with `-groups`' settings; `None` for another format (where `-groups` is
/// refused). `engines` are the run's, `lists` their settings as given.
pub fn groups_of(
    raw: &RawCli,
    engines: &[EngineSpec],
    lists: Vec<KeyValues>,
    engines_file: Option<PathBuf>,
    warnings: &mut Vec<String>,
) -> Result<Option<GroupsConfig>, ConfigError> {
    if raw.value(Opt::Tournament) != Some("groups") {
        return match raw.groups {
            Some(_) => Err(refuse("its settings are -tournament groups' (add it)")),
            None => Ok(None),
        };
    }
    let empty = KeyValues::new();
    let keys = settings(Opt::Groups, raw.groups.as_ref().unwrap_or(&empty))?;
    let number = |key: &str, default: u64| -> Result<u64, ConfigError> {
        match keys.get(key) {
            None => Ok(default),
            Some(v) => crate::core::numbers::whole_number(v, 1..=u64::MAX).map_err(|e| {
                ConfigError::BadValue {
                    option: Opt::Groups,
                    value: format!("{key}={v}"),
                    why: format!("{key}= must be {e}"),
                }
            }),
        }
    };
    let gap = number("gap", DEFAULT_GAP)?;
    // Gomocup's 4, or every engine of a smaller group (promote= over the count is refused).
    let promote = number("promote", DEFAULT_PROMOTE.min(engines.len()) as u64)?;
    if promote > engines.len() as u64 {
        return Err(refuse(format!(
            "promote={promote}: more than the {} engines of the group",
            engines.len()
        )));
    }
    let ratings_from = keys.get("ratings").map(PathBuf::from);
    let promoted = keys.get("promoted").map(PathBuf::from);
    let ratings = match &ratings_from {
        None => vec![None; engines.len()],
        Some(path) => {
            let list = load(path)?;
            let names = engine_names(engines)?;
            matched(&names, &list, path, warnings)
        }
    };
    if let Some(&lonely) = alone(&ratings, gap).first() {
        let name = engines[lonely].name.clone().unwrap_or_default();
        return Err(refuse(format!(
            "{name:?} (rated {}) meets no engine of the group: every other one is rated {gap} Elo or more away (raise gap= or move it to another group)",
            ratings[lonely].unwrap_or_default()
        )));
    }
    Ok(Some(GroupsConfig {
        ratings_from,
        gap,
        promote: promote as usize,
        promoted,
        ratings,
        engine_settings: (lists.into_iter())
            .map(|own| raw.each.iter().chain(&own).cloned().collect())
            .collect(),
        engines_file,
    }))
}

/// Each engine's `name=`: ratings are matched by name, so every engine needs one before its
/// first game.
fn engine_names(engines: &[EngineSpec]) -> Result<Vec<String>, ConfigError> {
    (engines.iter().enumerate())
        .map(|(i, e)| {
            e.name.clone().ok_or_else(|| {
                refuse(format!(
                    "engine {} has no name= (the ratings are matched to the engines by name: give each engine the name it has in the ratings, or conf=NAME)",
                    i + 1
                ))
            })
        })
        .collect()
}

/// Each engine's rating (rounded to whole Elo, as the table prints it), `None` where the file
/// has none: such an engine meets everyone, as GomocupJudge's unrated engines do (said once).
fn matched(
    names: &[String],
    list: &[FileRating],
    path: &Path,
    warnings: &mut Vec<String>,
) -> Vec<Option<i64>> {
    let ratings: Vec<Option<i64>> = (names.iter())
        .map(|n| {
            list.iter()
                .find(|r| r.name == *n)
                .map(|r| r.elo.round() as i64)
        })
        .collect();
    let unrated: Vec<&str> = (names.iter().zip(&ratings))
        .filter(|(_, r)| r.is_none())
        .map(|(n, _)| n.as_str())
        .collect();
    if !unrated.is_empty() {
        warnings.push(format!(
            "-groups ratings={}: no rating for {}: unrated, so they meet every engine (GomocupJudge's rule for a new engine)",
            path.display(),
            unrated.join(", ")
        ));
    }
    ratings
}

/// The ratings at `path`: a ratings file (table or JSON), or a journal or run directory whose
/// games are fitted.
fn load(path: &Path) -> Result<Vec<FileRating>, ConfigError> {
    let shown = path.display().to_string();
    let cannot = |e: std::io::Error| refuse(format!("ratings={shown}: {e}"));
    if path.is_dir() {
        return fitted(path);
    }
    let text = std::fs::read_to_string(path).map_err(cannot)?;
    if ratings_file::is_json(&text) && is_journal(&text) {
        return fitted(path);
    }
    ratings_file::parse(&text, &shown).map_err(|e| refuse(format!("ratings={shown}: {e}")))
}

/// Whether JSON text is a journal (its first line a header or a game) rather than `ratings
/// --json`'s object (which has `players`).
fn is_journal(text: &str) -> bool {
    let whole: Option<serde_json::Value> = serde_json::from_str(text).ok();
    if whole.is_some_and(|v| v.get("players").is_some()) {
        return false;
    }
    let first = text.lines().next().unwrap_or_default();
    let first: Option<serde_json::Value> = serde_json::from_str(first).ok();
    first.is_some_and(|v| v.get("type").is_some() || v.get("game").is_some())
}

/// The ratings of a journal's (or a run directory's) games, fitted as `gomoku-cli ratings` fits
/// them by default.
fn fitted(path: &Path) -> Result<Vec<FileRating>, ConfigError> {
    use crate::formats::journal::{HeaderCheck, JournalSet};
    use crate::formats::rated_games::{leave_out, RatedGames, RatedLine};
    let shown = path.display().to_string();
    let failed = |why: String| refuse(format!("ratings={shown}: {why}"));
    let mut set = JournalSet::<RatedLine>::open_checked(&[path.to_path_buf()], HeaderCheck::Refuse)
        .map_err(failed)?;
    let mut all = RatedGames::default();
    for line in set.by_ref() {
        all.add_journal_line(&line)
            .map_err(|e| failed(e.to_string()))?;
    }
    if let Some(e) = set.error {
        return Err(failed(e));
    }
    let (names, games, _) = leave_out(&all, None);
    if games.is_empty() {
        return Err(failed("no finished games to fit ratings to".into()));
    }
    let settings = crate::stats::ratings::FitSettings::default();
    let list = crate::stats::ratings::fit(names.len(), &games, &settings)
        .map_err(|e| failed(e.to_string()))?;
    Ok((names.into_iter().zip(&list.players))
        .map(|(name, p)| FileRating {
            name,
            elo: p.elo,
            line: 0,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use crate::config::{config_in, ConfigError};

    fn config(args: &str) -> Result<crate::config::Config, ConfigError> {
        config_in(args, &[("PATH", "/usr/bin:/bin")])
    }

    /// A ratings table in a temporary directory.
    fn table(dir: &std::path::Path, rows: &[(&str, i64)]) -> String {
        let mut text = "Rank Name Elo + - games score oppo. draws\n".to_string();
        for (i, (n, elo)) in rows.iter().enumerate() {
            text.push_str(&format!("{} {n} {elo} 10 10 100 50% 0 0%\n", i + 1));
        }
        let path = dir.join("ratings.txt");
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }

    const FIVE: &str = "-engine cmd=sh name=a -engine cmd=sh name=b -engine cmd=sh name=c \
        -engine cmd=sh name=d -engine cmd=sh name=e -tournament groups";

    #[test]
    fn the_league_reads_its_ratings_by_name_and_its_defaults_are_gomocups() {
        let dir = tempfile::tempdir().unwrap();
        let file = table(
            dir.path(),
            &[("a", 2000), ("b", 1800), ("c", 1650), ("e", 1200)],
        );
        let c = config(&format!("{FIVE} -groups ratings={file}")).unwrap();
        let g = c.tournament.groups.as_ref().unwrap();
        assert_eq!(
            g.ratings,
            [Some(2000), Some(1800), Some(1650), None, Some(1200)]
        );
        assert_eq!((g.gap, g.promote), (400, 4));
        let three =
            "-engine cmd=sh name=a -engine cmd=sh name=b -engine cmd=sh name=c -tournament groups";
        assert_eq!(config(three).unwrap().tournament.groups.unwrap().promote, 3);
        assert!(
            c.warnings
                .iter()
                .any(|w| w.contains("no rating for d: unrated")),
            "{:?}",
            c.warnings
        );
        // Without ratings= every engine is unrated; without -tournament groups there is no league.
        let c = config(&format!("{FIVE} -groups gap=300 promote=2")).unwrap();
        let g = c.tournament.groups.unwrap();
        assert_eq!((g.gap, g.promote, g.ratings), (300, 2, vec![None; 5]));
        assert!(config(&FIVE.replace(" -tournament groups", ""))
            .unwrap()
            .tournament
            .groups
            .is_none());
    }

    #[test]
    fn the_gap_and_the_ratings_are_part_of_the_run_and_the_promotion_is_not() {
        use crate::config::identity::fingerprint;
        let dir = tempfile::tempdir().unwrap();
        let file = table(
            dir.path(),
            &[("a", 2000), ("b", 1800), ("c", 1650), ("e", 1200)],
        );
        let id = |extra: &str| fingerprint(&config(&format!("{FIVE} {extra}")).unwrap());
        let league = id(&format!("-groups ratings={file}"));
        assert_ne!(league, id(&format!("-groups ratings={file} gap=300")));
        assert_ne!(league, id("-groups gap=400"), "other ratings (none)");
        let out = dir.path().join("next.json").display().to_string();
        assert_eq!(
            league,
            id(&format!("-groups ratings={file} promote=2 promoted={out}"))
        );
        // The same ratings from another file are the same run.
        let copy = dir.path().join("copy.txt");
        std::fs::copy(&file, &copy).unwrap();
        assert_eq!(
            league,
            id(&format!("-groups ratings={} gap=400", copy.display()))
        );
        table(
            dir.path(),
            &[("a", 2000), ("b", 1700), ("c", 1650), ("e", 1200)],
        );
        assert_ne!(league, id(&format!("-groups ratings={file}")));
        // A round robin keeps the identity it had before leagues.
        let plain = FIVE.replace(" -tournament groups", "");
        assert_eq!(
            fingerprint(&config(&plain).unwrap()),
            fingerprint(&config(&format!("{plain} -tournament roundrobin")).unwrap())
        );
    }

    #[test]
    fn bad_league_settings_are_refused_naming_the_value() {
        let dir = tempfile::tempdir().unwrap();
        let file = table(dir.path(), &[("a", 2000), ("b", 1800)]);
        let e = |extra: &str| config(&format!("{FIVE} {extra}")).unwrap_err().to_string();
        assert_eq!(e("-groups gap=-400"), "-groups: \"gap=-400\" is not valid: gap= must be a whole number from 1 to 18446744073709551615");
        assert!(e("-groups gap=wide").contains("\"gap=wide\" is not valid"));
        assert_eq!(
            e("-groups promote=6"),
            "-groups: promote=6: more than the 5 engines of the group"
        );
        assert!(e("-groups promote=0").contains("\"promote=0\" is not valid"));
        assert!(e("-groups top=4").contains("unknown key \"top\""));
        let e2 = config(&format!(
            "{} -groups ratings={file}",
            FIVE.replace(" -tournament groups", "")
        ));
        assert_eq!(
            e2.unwrap_err().to_string(),
            "-groups: its settings are -tournament groups' (add it)"
        );
        let missing = dir.path().join("none.txt");
        assert!(e(&format!("-groups ratings={}", missing.display()))
            .starts_with(&format!("-groups: ratings={}: ", missing.display())));
        let bad = dir.path().join("bad.txt");
        std::fs::write(
            &bad,
            "Rank Name Elo + - games score oppo. draws\n1 a 12x 1 1 1 1% 1 1%\n",
        )
        .unwrap();
        let shown = bad.display();
        assert!(e(&format!("-groups ratings={shown}")).starts_with(&format!(
            "-groups: ratings={shown}: {shown}:2: \"12x\" is not a number"
        )));
        let unnamed = "-engine cmd=sh name=a -engine cmd=sh -tournament groups";
        let e3 = config(&format!("{unnamed} -groups ratings={file}"))
            .unwrap_err()
            .to_string();
        assert!(e3.starts_with("-groups: engine 2 has no name="), "{e3}");
        assert_eq!(
            e("-tournament ladder"),
            "-tournament: \"ladder\" is not valid: expected roundrobin, gauntlet, knockout, swiss or groups"
        );
        assert!(e("-gauntlet").contains("-gauntlet asks for a gauntlet"));
        let gauntlet = FIVE.replace("-tournament groups", "-tournament gauntlet -gauntlet");
        let kind = config(&gauntlet).unwrap().tournament.kind;
        assert_eq!(kind, crate::schedule::TournamentKind::Gauntlet);
        let shard = e("-shard 1/2 -groups promoted=next.json");
        assert!(
            shard.starts_with("-groups: promoted=next.json: shard 1/2 sees its own games only"),
            "{shard}"
        );
        // An engine out of every other's gap would play no game.
        let far = table(
            dir.path(),
            &[
                ("a", 2000),
                ("b", 1800),
                ("c", 1650),
                ("d", 1500),
                ("e", 900),
            ],
        );
        assert_eq!(e(&format!("-groups ratings={far}")), "-groups: \"e\" (rated 900) meets no engine of the group: every other one is rated 400 Elo or more away (raise gap= or move it to another group)");
    }
}
