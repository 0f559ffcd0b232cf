//! The subcommands and the match runner, each a thin layer over the library: parse its arguments,
//! call the library, print. None of them picks an exit code: each returns a typed result that
//! `main` maps to one.

pub mod judge;
pub mod lib;
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
