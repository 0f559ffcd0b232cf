//! Why a command line is refused ([`ConfigError`]), and the readers of one value that word it:
//! a number, seconds, an option's `key=value` settings, each naming the option and the value.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

use crate::cli::{KeyValues, Opt, RawCli};
use crate::core::board::BoardSize;
use crate::core::rules::Rule;
use crate::engine::spec::MAX_SECONDS;
use crate::formats::samples::{SampleConfigError, SampleEncodeError};
use crate::schedule::shard::ShardError;

/// A value on the command line that cannot be used.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// A value that does not parse or is out of range.
    #[error("{option}: {value:?} is not valid: {why}")]
    BadValue {
        option: Opt,
        value: String,
        why: String,
    },
    /// A `key=value` list with a key the option does not have.
    #[error("{option}: unknown key {key:?} (known: {known})")]
    UnknownKey {
        option: Opt,
        key: String,
        /// The option's keys, from the table (`cli::table`).
        known: String,
    },
    /// `-tournament groups`' settings that cannot be used (a ratings file, a promotion).
    #[error("-groups: {0}")]
    Groups(String),
    /// Fewer than two `-engine` options.
    #[error("at least two engines are needed (got {0}); add -engine cmd=... for each")]
    TooFewEngines(usize),
    /// An `-engine` without `cmd=` (and none from `-each`).
    #[error("engine {index} has no cmd= (nor pkg=)")]
    MissingCmd { index: usize },
    /// An engine setting (time control, command) that cannot be used.
    #[error("engine {index}: {source}")]
    Engine {
        index: usize,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A Gomocup package (`pkg=`) that cannot be unpacked or holds nothing for the run.
    #[error("engine {index}: pkg={}: {source}", zip.display())]
    Package {
        index: usize,
        zip: PathBuf,
        #[source]
        source: crate::engine::package::PackageError,
    },
    /// A package's Windows program on a host without Wine.
    #[error("engine {index}: pkg={}: {program} is a Windows program and there is no Wine to run it: install it (wine on PATH: apt-get install wine) or set WINE=/path/to/wine", zip.display())]
    NoWine {
        index: usize,
        zip: PathBuf,
        program: String,
    },
    /// The engine program does not exist or cannot be executed.
    #[error("engine {index}: program {program:?} not found or not executable")]
    MissingProgram { index: usize, program: PathBuf },
    /// A `-sample` list that cannot be used.
    #[error("{0}")]
    Sample(#[from] SampleConfigError),
    /// A sample format that cannot store this board size or rule.
    #[error("-sample: {0}")]
    SampleFormat(#[from] SampleEncodeError),
    /// `-openings` without `file=`.
    #[error("-openings: needs file=")]
    OpeningsWithoutFile,
    /// A `-shard` value or scheduler variable that cannot be used.
    #[error("{0}")]
    Shard(#[from] ShardError),
    /// Shards of a run with a random openings order, or of a knockout with unseeded engines,
    /// must share one seed.
    #[error("shards must share one seed: give -srand N or add srand=N to -openings (a SLURM job array derives it from SLURM_ARRAY_JOB_ID)")]
    ShardSeed,
    /// `-games` × `-rounds` × engine pairs is more games than a 64-bit game number counts.
    #[error(
        "-games {games} x -rounds {rounds} x {pairs} engine pair(s) is more than {max} games \
         (the largest game number): lower -games or -rounds",
        max = u64::MAX
    )]
    TooManyGames { games: u64, rounds: u64, pairs: u64 },
    /// `-sprt` with more than two engines.
    #[error("-sprt works with exactly two engines (got {0})")]
    SprtNeedsTwoEngines(usize),
    /// `-ponder` and `-suspend` together.
    #[error("-ponder and -suspend cannot be used together: -suspend stops the engine not on move, so it cannot think on the opponent's time")]
    PonderSuspended,
    /// `-swap2` and `-swap1` together.
    #[error("-swap2 and -swap1 cannot be used together: choose one")]
    TwoSwapRules,
    /// `-renlib` on a board other than 15×15: RenLib holds 15×15 games only.
    #[error("-renlib: a RenLib library holds 15x15 games only, and this run plays on {size}x{size}: leave -renlib out or use -boardsize 15")]
    RenlibBoard { size: BoardSize },
    /// A board too small for the rule.
    #[error("rule {rule} cannot be played on a {size}x{size} board: {why}")]
    RuleSize {
        rule: Rule,
        size: BoardSize,
        why: &'static str,
    },
    /// `-report` and `-journal off`.
    #[error("-report is built from the journal: it cannot be used with -journal off")]
    ReportWithoutJournal,
    /// An engines file or a `conf=` that cannot be used.
    #[error(transparent)]
    Named(#[from] crate::config::named::NamedError),
    /// `-resume` and `-journal off`.
    #[error("-resume needs the journal: it cannot be used with -journal off")]
    ResumeWithoutJournal,
}

pub(super) fn bad(option: Opt, value: &str, why: impl Into<String>) -> ConfigError {
    ConfigError::BadValue {
        option,
        value: value.to_string(),
        why: why.into(),
    }
}

/// `value` of `option`, a whole number within `range` (the message states it).
pub(super) fn parse_number<T>(
    option: Opt,
    value: &str,
    range: std::ops::RangeInclusive<T>,
) -> Result<T, ConfigError>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    crate::core::numbers::whole_number(value, range)
        .map_err(|expected| bad(option, value, format!("expected {expected}")))
}

pub(super) fn parse_u64(option: Opt, value: &str, min: u64) -> Result<u64, ConfigError> {
    parse_number(option, value, min..=u64::MAX)
}

pub(super) fn parse_secs(option: Opt, value: &str) -> Result<Duration, ConfigError> {
    let v: f64 = value
        .trim()
        .parse()
        .map_err(|_| bad(option, value, "expected a number of seconds"))?;
    if !v.is_finite() || v < 0.0 {
        return Err(bad(
            option,
            value,
            "must be a non-negative number of seconds",
        ));
    }
    if v > MAX_SECONDS {
        return Err(bad(option, value, format!("at most {MAX_SECONDS} seconds")));
    }
    Ok(Duration::from_secs_f64(v))
}

/// A number of seconds, or `default`.
pub(super) fn secs_or(raw: &RawCli, option: Opt, default: f64) -> Result<Duration, ConfigError> {
    match raw.value(option) {
        Some(v) => parse_secs(option, v),
        None => Ok(Duration::from_secs_f64(default)),
    }
}

/// The keys of the match runner's option `parent` (`-engine`), from the table: the help and
/// this message list the same keys.
pub(super) fn keys_of(parent: &str) -> String {
    crate::cli::table::keys_of(crate::cli::table::Command::Run, parent)
}

/// The `key=value`s of `option` as a map, every key one of its keys in the table (later values win).
pub(super) fn settings(option: Opt, kvs: &KeyValues) -> Result<BTreeMap<&str, &str>, ConfigError> {
    let known = keys_of(&option.to_string());
    let mut out = BTreeMap::new();
    for (k, v) in kvs {
        if !known.split(", ").any(|n| n == k) {
            let key = k.clone();
            return Err(ConfigError::UnknownKey { option, key, known });
        }
        out.insert(k.as_str(), v.as_str());
    }
    Ok(out)
}
