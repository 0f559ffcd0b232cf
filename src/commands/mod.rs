//! The subcommands and the match runner, each a thin layer over the library: parse its arguments,
//! call the library, print. None of them picks an exit code: each returns a typed result that
//! `main` maps to one.

pub mod check;
pub mod export;
pub mod judge;
pub mod lib;
pub mod merge;
pub mod report;
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
    /// A write to the journal or a record file failed and the run stopped.
    OutputFailed,
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

/// The journals of one run read together, streaming: their headers, then their games in the
/// order they finished (one file in its own order; several merged by each game's `ended` time,
/// then number), so `sprt`, `merge` and `export` replay alike, in memory independent of the
/// number of games.
pub struct JournalSet<E = Summary> {
    pub headers: Vec<gomoku_cli::record::journal::JournalHeader>,
    streams: Vec<JournalFile<E>>,
    heads: std::collections::BinaryHeap<std::cmp::Reverse<(i64, u64, usize)>>,
    /// The head entry of each file (one per file at a time).
    pending: Vec<Option<E>>,
    /// The first read error: the iteration stops there and the caller reports it.
    pub error: Option<String>,
}

/// What statistics read of a game line (the default entry type of a [`JournalSet`]).
type Summary = gomoku_cli::record::journal::GameSummary;
type JournalFile<E> = gomoku_cli::record::journal::Stream<std::io::BufReader<std::fs::File>, E>;

impl<E> JournalSet<E>
where
    E: serde::de::DeserializeOwned + gomoku_cli::record::journal::FinishedGame,
{
    /// Open journal files or run directories (see [`journal_files`]).
    pub fn open(args: &[std::path::PathBuf]) -> Result<JournalSet<E>, String> {
        let mut set = JournalSet {
            headers: Vec::new(),
            streams: Vec::new(),
            heads: Default::default(),
            pending: Vec::new(),
            error: None,
        };
        let mut firsts = Vec::new();
        for f in journal_files(args)? {
            let file = std::fs::File::open(&f).map_err(|e| format!("{}: {e}", f.display()))?;
            let reader = std::io::BufReader::new(file);
            set.streams
                .push(JournalFile::new(reader, f.display().to_string()));
            firsts.push(set.pull(set.streams.len() - 1)?);
        }
        for (i, first) in firsts.into_iter().enumerate() {
            set.push_head(i, first);
        }
        Ok(set)
    }

    /// The next entry of file `i` (its header lines kept aside, torn lines reported).
    fn pull(&mut self, i: usize) -> Result<Option<E>, String> {
        use gomoku_cli::record::journal::Item;
        for item in self.streams[i].by_ref() {
            match item.map_err(|e| e.to_string())? {
                Item::Header(h) => self.headers.push(*h),
                Item::Entry(e) => return Ok(Some(*e)),
                Item::Torn(w) => eprintln!("warning: {w}"),
            }
        }
        Ok(None)
    }

    fn push_head(&mut self, i: usize, e: Option<E>) {
        let Some(e) = e else { return };
        let ended = chrono::DateTime::parse_from_rfc3339(e.ended_at())
            .ok()
            .and_then(|t| t.timestamp_nanos_opt())
            .unwrap_or(0);
        // One file: its own order (the key only breaks ties between files).
        let key = if self.streams.len() == 1 { 0 } else { ended };
        self.heads
            .push(std::cmp::Reverse((key, e.game_number(), i)));
        self.pending_store(i, e);
    }

    fn pending_store(&mut self, i: usize, e: E) {
        if self.pending.len() <= i {
            self.pending.resize_with(i + 1, || None);
        }
        self.pending[i] = Some(e);
    }
}

impl<E> Iterator for JournalSet<E>
where
    E: serde::de::DeserializeOwned + gomoku_cli::record::journal::FinishedGame,
{
    type Item = E;

    fn next(&mut self) -> Option<E> {
        let std::cmp::Reverse((_, _, i)) = self.heads.pop()?;
        let e = self.pending.get_mut(i).and_then(Option::take)?;
        match self.pull(i) {
            Ok(next) => self.push_head(i, next),
            Err(x) => {
                self.error.get_or_insert(x);
                self.heads.clear();
            }
        }
        Some(e)
    }
}

/// Replay a run's journals (journal files or run directories): streaming when they have a header;
/// journals of versions before the header are read whole and their pairing guessed (with a
/// warning). Returns the replay and the headers.
pub fn replay(
    args: &[std::path::PathBuf],
    sprt: Option<gomoku_cli::stats::Sprt>,
) -> Result<
    (
        gomoku_cli::tracker::Replay,
        Vec<gomoku_cli::record::journal::JournalHeader>,
    ),
    String,
> {
    use gomoku_cli::tracker;
    let mut set = JournalSet::<Summary>::open(args)?;
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
) -> Result<Option<gomoku_cli::stats::Sprt>, CommandError> {
    JournalSet::<Summary>::open(args)
        .map_err(CommandError::Failed)?
        .headers
        .first()
        .and_then(|h| h.settings.sprt.as_ref())
        .map(|s| s.sprt().map_err(CommandError::Failed))
        .transpose()
}

/// A sharded run's stop marker, in a run directory named or beside a journal named: the run's
/// verdict is the deciding shard's.
pub fn stop_marker(args: &[std::path::PathBuf]) -> Option<gomoku_cli::runner::sync::StopMarker> {
    use gomoku_cli::runner::sync::STOP_MARKER;
    args.iter()
        .map(|a| match a.is_dir() {
            true => a.join(STOP_MARKER),
            false => a.with_file_name(STOP_MARKER),
        })
        .find_map(|p| serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok())
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
