//! The files a run writes (journal, records, report, samples, logs) and what it shows on the
//! terminal, read from the command line.

use std::path::PathBuf;

use crate::cli::{Opt, RawCli};
use crate::config::env::Env;
use crate::config::error::{bad, ConfigError};
use crate::core::board::BoardSize;
use crate::core::rules::Rule;
use crate::formats::samples::SampleConfig;
use crate::game::record::Evals;

/// Logging of engine I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    Off,
    /// `-log`: per-slot protocol logs.
    Protocol,
    /// `-debug`: protocol logs plus the board after each move.
    Debug,
}

/// Where the journal goes. A new run never appends to another run's journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JournalTarget {
    /// `-journal FILE`: refused if it already holds games.
    Named(PathBuf),
    /// The default timestamped name; when a run started in the same second took it, a `-2`,
    /// `-3`, ... suffix makes it unique.
    Timestamped(PathBuf),
}

impl JournalTarget {
    /// The path asked for (the timestamped name before any suffix).
    pub fn path(&self) -> &std::path::Path {
        match self {
            JournalTarget::Named(p) | JournalTarget::Timestamped(p) => p,
        }
    }
}

/// The files a run writes.
#[derive(Debug, Clone)]
pub struct OutputsConfig {
    pub journal: Option<JournalTarget>,
    pub pgn: Option<PathBuf>,
    pub sgf: Option<PathBuf>,
    pub msg: Option<PathBuf>,
    /// `-records evals=`: whether PGN, SGF and messages quote the engines' search reports.
    pub evals: Evals,
    /// `-psq DIR`: one Piskvork `.psq` record per finished game in this directory.
    pub psq: Option<PathBuf>,
    /// `-renlib FILE`: every finished game is merged into this RenLib library.
    pub renlib: Option<PathBuf>,
    /// `-report FILE`: the run's HTML report, rebuilt from the journal as the run goes.
    pub report: Option<PathBuf>,
    /// `-sample`: training samples.
    pub sample: Option<SampleConfig>,
    pub log: LogLevel,
    pub log_dir: PathBuf,
}

/// What the run shows on the terminal.
#[derive(Debug, Clone)]
pub struct ConsoleConfig {
    pub progress: bool,
    pub quiet: bool,
    /// Print the results block every this many finished games (two engines).
    pub rating_interval: u64,
    /// The filter of the runner's own diagnostics on stderr: `RUST_LOG` when set, else
    /// `gomoku_cli=debug` with `-verbose`; none otherwise.
    pub diagnostics: Option<String>,
}

/// The journal is on by default: `-journal FILE` names it, `-journal off` turns it off, otherwise
/// it goes next to the first other output that is a file (or into the current directory) with a
/// timestamped name, so separate runs never mix in one file.
pub(super) fn journal_path(raw: &RawCli) -> Option<JournalTarget> {
    match raw.value(Opt::Journal) {
        Some("off") | Some("none") => None,
        Some(p) => Some(JournalTarget::Named(PathBuf::from(p))),
        None => {
            // Not beside a device or FIFO (`-pgn /dev/null`): no side file is made there.
            let first = [Opt::Pgn, Opt::Sgf, Opt::Msg]
                .into_iter()
                .filter_map(|o| raw.value(o))
                .find(|p| !crate::formats::atomic_file::writes_in_place(std::path::Path::new(p)));
            let dir = first.and_then(|p| std::path::Path::new(p).parent());
            let dir = dir.map(PathBuf::from).unwrap_or_default();
            let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S");
            Some(JournalTarget::Timestamped(
                dir.join(format!("gomoku-cli-{stamp}.journal.jsonl")),
            ))
        }
    }
}

/// `-sample`, checked against the board and rule.
pub(super) fn sample_of(
    raw: &RawCli,
    size: BoardSize,
    rule: Rule,
) -> Result<Option<SampleConfig>, ConfigError> {
    let Some(kvs) = &raw.sample else {
        return Ok(None);
    };
    let sc = SampleConfig::parse(kvs)?;
    sc.format.check(size, rule)?;
    Ok(Some(sc))
}

/// `-log` / `-debug`.
pub(super) fn log_level_of(raw: &RawCli) -> LogLevel {
    if raw.flag(Opt::Debug) {
        LogLevel::Debug
    } else if raw.flag(Opt::Log) {
        LogLevel::Protocol
    } else {
        LogLevel::Off
    }
}

/// The filter of the runner's diagnostics: `RUST_LOG` when set, else `-verbose`'s.
pub(super) fn diagnostics_of(raw: &RawCli, env: &Env) -> Option<String> {
    match env.var("RUST_LOG") {
        Some(v) if !v.trim().is_empty() => Some(v.to_string()),
        _ => raw
            .flag(Opt::Verbose)
            .then(|| "gomoku_cli=debug".to_string()),
    }
}

/// The files a run writes, and the `-log` files.
pub(super) fn outputs_of(
    raw: &RawCli,
    sample: Option<SampleConfig>,
) -> Result<OutputsConfig, ConfigError> {
    let path = |o: Opt| raw.value(o).map(PathBuf::from);
    let evals = Evals::from_settings(raw.records.as_deref().unwrap_or_default()).map_err(|e| {
        let given = raw
            .records
            .iter()
            .flatten()
            .map(|(k, v)| format!("{k}={v}"));
        bad(
            Opt::Records,
            &given.collect::<Vec<_>>().join(" "),
            e.to_string(),
        )
    })?;
    Ok(OutputsConfig {
        journal: journal_path(raw),
        pgn: path(Opt::Pgn),
        sgf: path(Opt::Sgf),
        msg: path(Opt::Msg),
        evals,
        psq: path(Opt::Psq),
        renlib: path(Opt::Renlib),
        report: path(Opt::Report),
        sample,
        log: log_level_of(raw),
        log_dir: path(Opt::LogDir).unwrap_or_else(|| PathBuf::from(".")),
    })
}
