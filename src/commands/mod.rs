//! The subcommands and the match runner, each a thin layer over the library: parse its arguments,
//! call the library, print. None of them picks an exit code: each returns a typed result that
//! `main` maps to one.

pub mod args;
pub mod check;
pub mod engines;
pub mod export;
pub mod judge;
pub mod lib;
pub mod merge;
pub mod openings;
pub mod ratings;
pub mod report;
pub mod run;
pub mod samples;
pub mod signals;
pub mod sprt;
pub mod tune;
pub mod usage;

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
    /// A write to the journal or a record file failed and the run stopped.
    OutputFailed,
    /// A Swiss round could not be paired without a rematch: the run ended before it.
    Unpairable,
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

/// A failure told by its error's text (for `map_err`).
pub fn failed(e: impl std::fmt::Display) -> CommandError {
    CommandError::Failed(e.to_string())
}

/// What every command returns.
pub type CommandResult = Result<Outcome, CommandError>;

/// Run `future` on a multi-threaded tokio runtime. Engines still being ended in the background
/// must not outlive it: the runtime's shutdown drops every task, and dropping a session kills its
/// process group.
pub fn block_on<F: std::future::Future>(future: F) -> Result<F::Output, CommandError> {
    block_on_with(tokio::runtime::Builder::new_multi_thread(), future)
}

/// Run `future` on a runtime of the calling thread alone: the match runner's games run on worker
/// threads of their own (`runner::slot`), so a worker per core here only sat idle beside them
/// (issue 37: 35 threads on 16 cores, against c-gomoku-cli's 17).
pub fn block_on_here<F: std::future::Future>(future: F) -> Result<F::Output, CommandError> {
    block_on_with(tokio::runtime::Builder::new_current_thread(), future)
}

fn block_on_with<F: std::future::Future>(
    mut builder: tokio::runtime::Builder,
    future: F,
) -> Result<F::Output, CommandError> {
    let rt = builder
        .enable_all()
        .build()
        .map_err(|e| CommandError::Failed(format!("cannot start the async runtime: {e}")))?;
    let output = rt.block_on(future);
    rt.shutdown_timeout(std::time::Duration::from_secs(5));
    Ok(output)
}

/// The engine and shared match options of a command that takes exactly one engine (`what`
/// names the command in the error), read once and checked as a run checks each engine (no file
/// is opened: only a run writes its outputs).
pub fn one_engine(
    raw: &crate::cli::RawCli,
    what: &str,
    usage: impl Fn(String) -> CommandError,
) -> Result<crate::config::engines::OneEngine, CommandError> {
    if raw.engines.len() != 1 {
        let n = raw.engines.len();
        return Err(usage(format!("{what} takes exactly one -engine (got {n})")));
    }
    let env = crate::config::env::Env::of_process();
    crate::config::engines::OneEngine::from_raw(raw, &env).map_err(failed)
}

/// One file, one role, before any work (`outputs::same_file`): no output may name one of the
/// files `inputs` (files, or run directories standing for their journals) or another output.
/// Each output is `(the option naming it, its path)`.
pub fn check_roles(
    inputs: &[std::path::PathBuf],
    outputs: &[(&str, Option<&std::path::Path>)],
) -> Result<(), CommandError> {
    let mut roles = crate::outputs::same_file::Roles::of_command();
    for f in journal_files(inputs).map_err(failed)? {
        roles.input("input", f);
    }
    for (label, path) in outputs {
        if let Some(p) = path {
            roles.output(*label, *p);
        }
    }
    roles.check().map_err(failed)
}

/// Write to standard output, ignoring a closed pipe (`gomoku-cli ... | head` must not panic).
pub fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

pub use crate::formats::journal::{journal_files, JournalSet};

/// What statistics read of a game line.
type Summary = crate::formats::journal::GameSummary;

/// Replay a run's journals (journal files or run directories): streaming when they have a header;
/// journals of versions before the header are read whole and their pairing guessed (with a
/// warning). Returns the replay and the headers.
pub fn replay(
    args: &[std::path::PathBuf],
    sprt: Option<crate::stats::Sprt>,
    check: crate::formats::journal::HeaderCheck,
) -> Result<
    (
        crate::analysis::tracker::Replay,
        Vec<crate::formats::journal::JournalHeader>,
    ),
    String,
> {
    use crate::analysis::tracker;
    let mut set = JournalSet::<Summary>::open_checked(args, check)?;
    let headers = set.headers.clone();
    let runs: std::collections::BTreeSet<&str> =
        headers.iter().map(|h| h.fingerprint.as_str()).collect();
    if runs.len() > 1 {
        return Err(tracker::TrackerError::MixedRuns(runs.len()).to_string());
    }
    let replay = match headers.first() {
        Some(h) => tracker::replay_stream(h, set.by_ref(), sprt),
        None => {
            let entries: Vec<_> = set.by_ref().collect();
            tracker::from_journal(&entries, sprt)
        }
    };
    warn_all(&set.warnings);
    if let Some(e) = set.error {
        return Err(e);
    }
    let mut replay = replay.map_err(|e| e.to_string())?;
    warn_if_guessed(replay.pairing);
    if let Some(m) = stop_marker(args) {
        replay.tracker.set_crossing(m.crossing());
    }
    Ok((replay, headers))
}

/// The SPRT design a run recorded in its journal header (`-sprt`), read with the first lines of
/// its journals; `None` for a run without one or a journal without a header.
pub fn run_sprt(
    args: &[std::path::PathBuf],
    check: crate::formats::journal::HeaderCheck,
) -> Result<Option<crate::stats::Sprt>, CommandError> {
    JournalSet::<Summary>::open_checked(args, check)
        .map_err(CommandError::Failed)?
        .headers
        .first()
        .and_then(|h| h.settings.sprt.as_ref())
        .map(|s| s.sprt().map_err(CommandError::Failed))
        .transpose()
}

/// A sharded run's stop marker, in a run directory named or beside a journal named: the run's
/// verdict is the deciding shard's.
pub fn stop_marker(args: &[std::path::PathBuf]) -> Option<crate::schedule::shard::StopMarker> {
    use crate::schedule::shard::STOP_MARKER;
    args.iter()
        .map(|a| match a.is_dir() {
            true => a.join(STOP_MARKER),
            false => a.with_file_name(STOP_MARKER),
        })
        .find_map(|p| serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok())
}

/// Print the warnings of reading journals (torn last lines).
pub fn warn_all(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

/// Warn when a journal without a header made a reader guess how games pair.
pub fn warn_if_guessed(pairing: crate::analysis::tracker::PairingOrigin) {
    if let crate::analysis::tracker::PairingOrigin::Guessed { paired } = pairing {
        eprintln!(
            "warning: the journal has no header (an older version wrote it): its games were read as {}, guessed from the openings",
            if paired { "colour-swapped pairs" } else { "single games" }
        );
    }
}
