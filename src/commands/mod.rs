//! The subcommands and the match runner, each a thin layer over the library: parse its arguments,
//! call the library, print. None of them picks an exit code: each returns a typed result that
//! `main` maps to one.

pub mod export;
pub mod judge;
pub mod merge;
pub mod run;
pub mod samples;
pub mod sprt;

use std::io::Write;

use thiserror::Error;

/// How a command that did its job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Done: every game played (or the SPRT accepted H1), every line judged, the report printed.
    Done,
    /// The run's SPRT accepted H0.
    SprtH0,
    /// `-fatalerror` stopped the run after an engine failure.
    EngineFailure,
    /// Ctrl-C or SIGTERM stopped the run.
    Interrupted,
}

/// Why a command failed; `main` prints it after `error: `.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CommandError {
    /// The command line cannot be used: an unknown or malformed option, a bad flag value,
    /// conflicting flags.
    #[error("{0}")]
    Usage(String),
    /// The command ran and failed: bad input (option values, files, lines), an unreadable file,
    /// an output error.
    #[error("{0}")]
    Failed(String),
}

/// What every command returns.
pub type CommandResult = Result<Outcome, CommandError>;

/// Write to standard output, ignoring a closed pipe (`gomoku-cli ... | head` must not panic).
pub fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Journal files named on the command line: a directory stands for every `*.journal.jsonl` in it
/// (a run directory of shards), in name order.
pub fn journal_files(args: &[std::path::PathBuf]) -> Result<Vec<std::path::PathBuf>, String> {
    let mut files = Vec::new();
    for a in args {
        if a.is_dir() {
            let mut found: Vec<_> = std::fs::read_dir(a)
                .map_err(|e| format!("{}: {e}", a.display()))?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().ends_with(".journal.jsonl"))
                .collect();
            if found.is_empty() {
                return Err(format!("{}: no *.journal.jsonl files", a.display()));
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(a.clone());
        }
    }
    Ok(files)
}

/// The headers and games of journal files, games in the order they finished (see
/// `tracker::finish_order`); a torn last line is skipped with a warning.
pub fn read_journals(
    args: &[std::path::PathBuf],
) -> Result<
    (
        Vec<gomoku_cli::record::journal::JournalHeader>,
        Vec<gomoku_cli::record::journal::JournalEntry>,
    ),
    String,
> {
    use gomoku_cli::record::journal;
    let mut headers = Vec::new();
    let mut per_file = Vec::new();
    for f in journal_files(args)? {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        let read = journal::parse(&text, &f.display().to_string()).map_err(|e| e.to_string())?;
        for w in read.warnings {
            eprintln!("warning: {w}");
        }
        headers.extend(read.header);
        per_file.push(read.entries);
    }
    Ok((headers, gomoku_cli::tracker::finish_order(per_file)))
}

/// Warn when a journal without a header made a reader guess how games pair.
pub fn warn_if_guessed(pairing: gomoku_cli::tracker::Pairing) {
    if let gomoku_cli::tracker::Pairing::Guessed { paired } = pairing {
        eprintln!(
            "warning: the journal has no header (an older version wrote it): its games were read as {}, guessed from the openings",
            if paired { "colour-swapped pairs" } else { "single games" }
        );
    }
}
