//! `gomoku-cli export JOURNAL... [-pgn F] [-sgf F] [-msg F] [-psq DIR]
//! [-sample freq=F format=F file=F] [-records evals=off]`: rebuild a run's other records from its journals, through the
//! runner's own record writer, so the files hold the same bytes the run wrote.

use std::path::{Path, PathBuf};

use crate::formats::journal::{
    HeaderCheck, JournalEntry, JournalHeader, JournalSet, Order, ReadAll,
};
use crate::formats::samples::SampleConfig;
use crate::formats::text_records::TextFormat;
use crate::game::record::Evals;
use crate::outputs::records::{PsqTarget, RecordFiles, RecordTargets};
use crate::schedule::GameId;

use crate::commands::{failed, say, CommandError, CommandResult, Outcome};

/// The `export` arguments (read from the table of options: `-pgn` and `--pgn` alike).
#[derive(Debug)]
pub struct ExportArgs {
    /// Journal files or run directories of one run (the shards of one run are merged in game
    /// order).
    pub journals: Vec<PathBuf>,
    pub to: RecordArgs,
    /// Read a journal whose header no longer gives its fingerprint (its settings were edited),
    /// with a warning naming it, instead of refusing it.
    pub force: bool,
}

/// The record files to write (shared by `export` and `merge`).
#[derive(Debug, Default)]
pub struct RecordArgs {
    /// PGN file to write.
    pub pgn: Option<PathBuf>,
    /// SGF file to write.
    pub sgf: Option<PathBuf>,
    /// Messages file to write.
    pub msg: Option<PathBuf>,
    /// Directory of Piskvork .psq records to write, one file per game (game-000012.psq).
    pub psq: Option<PathBuf>,
    /// Training samples, as the runner's -sample: freq=F format=F file=F (give what the run
    /// used to get the same bytes; the seed comes from the journal).
    pub sample: Option<Vec<String>>,
    /// As the runner's -records: evals=off leaves the engines' search reports out of the PGN,
    /// SGF and messages (give what the run used to get the same bytes).
    pub records: Option<Vec<String>>,
}

/// `key=value` tokens of `option`.
fn key_values(option: &str, tokens: &[String]) -> Result<Vec<(String, String)>, CommandError> {
    let pairs = (tokens.iter())
        .map(|t| match t.split_once('=') {
            Some((k, v)) => Ok((k.to_string(), v.to_string())),
            None => Err(CommandError::Usage(format!(
                "{option}: expected key=value, got {t:?}"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let refs = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    crate::cli::refuse_repeated_keys(option, refs)
        .map_err(|e| CommandError::Usage(e.to_string()))?;
    Ok(pairs)
}

/// A file that already holds something is not written over or appended to.
fn check_new(path: &Path) -> Result<(), CommandError> {
    match std::fs::metadata(path) {
        Ok(m) if m.len() > 0 => Err(CommandError::Failed(format!(
            "{} already exists and is not empty: export writes new files only",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// No `.psq` record the export would write exists already (the directory may hold other files).
fn check_new_records(p: &PsqTarget, entries: &[JournalEntry]) -> Result<(), CommandError> {
    let taken = entries
        .iter()
        .filter(|e| !e.journal_only)
        .map(|e| p.path_of(GameId(e.game)))
        .find(|path| path.exists());
    match taken {
        Some(path) => Err(CommandError::Failed(format!(
            "{} already exists: export writes new files only",
            path.display()
        ))),
        None => Ok(()),
    }
}

/// Journal entries of every file: one file in its own order (the order games finished), several
/// in game order; the reader counts a repeated line once and refuses two lines for one game.
fn read_journals(
    files: &[PathBuf],
    check: HeaderCheck,
) -> Result<(Option<JournalHeader>, Vec<JournalEntry>), CommandError> {
    let ReadAll {
        headers,
        games: entries,
        warnings,
    } = JournalSet::<JournalEntry>::read_all_checked(files, Order::GameNumber, check)
        .map_err(failed)?;
    crate::commands::warn_all(&warnings);
    let fingerprints: std::collections::BTreeSet<&str> = (headers.iter().map(|h| &h.fingerprint))
        .chain(entries.iter().map(|e| &e.fingerprint))
        .map(String::as_str)
        .collect();
    if fingerprints.len() > 1 {
        return Err(CommandError::Failed(format!(
            "the journals mix {} different runs (fingerprints); export one run at a time",
            fingerprints.len()
        )));
    }
    Ok((headers.into_iter().next(), entries))
}

impl RecordArgs {
    /// Whether any record file is asked for.
    pub fn any(&self) -> bool {
        self.pgn.is_some()
            || self.sgf.is_some()
            || self.msg.is_some()
            || self.psq.is_some()
            || self.sample.is_some()
    }
}

/// Run the export.
pub fn run(a: ExportArgs) -> CommandResult {
    let (written, journal_only) = write(&a.journals, a.to, HeaderCheck::forced(a.force))?;
    say(&summary(written, journal_only));
    Ok(Outcome::Done)
}

/// What an export did, one line.
pub fn summary(written: u64, journal_only: u64) -> String {
    format!(
        "Exported {written} games{}\n",
        if journal_only > 0 {
            format!(" ({journal_only} journal-only games of -loseonly left out, as the run did)")
        } else {
            String::new()
        }
    )
}

/// Write the records of the journals (files or run directories) to `a`: the games written and
/// the journal-only games left out.
pub fn write(
    journals: &[PathBuf],
    a: RecordArgs,
    check: HeaderCheck,
) -> Result<(u64, u64), CommandError> {
    let journals = crate::commands::journal_files(journals).map_err(CommandError::Failed)?;
    let usage = |e: &dyn std::fmt::Display| CommandError::Usage(e.to_string());
    let sample = match &a.sample {
        None => None,
        Some(tokens) => {
            Some(SampleConfig::parse(&key_values("-sample", tokens)?).map_err(|e| usage(&e))?)
        }
    };
    let evals = match &a.records {
        None => Evals::default(),
        Some(tokens) => Evals::from_settings(&key_values("-records", tokens)?)
            .map_err(|e| usage(&format_args!("-records: {e}")))?,
    };
    let outputs = [
        &a.pgn,
        &a.sgf,
        &a.msg,
        &sample.as_ref().map(|s| s.file.clone()),
    ];
    if outputs.iter().all(|o| o.is_none()) && a.psq.is_none() {
        return Err(CommandError::Usage(
            "nothing to export: give -pgn, -sgf, -msg, -psq or -sample".into(),
        ));
    }
    let sample_file = sample.as_ref().map(|s| s.file.as_path());
    crate::commands::check_roles(
        &journals,
        &[
            ("-pgn", a.pgn.as_deref()),
            ("-sgf", a.sgf.as_deref()),
            ("-msg", a.msg.as_deref()),
            ("-psq", a.psq.as_deref()),
            ("-sample file=", sample_file),
        ],
    )?;
    for p in outputs.into_iter().flatten() {
        check_new(p)?;
    }
    let (header, entries) = read_journals(&journals, check)?;
    let psq = a.psq.map(|dir| PsqTarget { dir, shard: None });
    if let Some(p) = &psq {
        check_new_records(p, &entries)?;
    }
    let seed = match (&header, &sample) {
        (Some(h), _) => h.settings.seed,
        (None, None) => 0,
        (None, Some(_)) => {
            return Err(CommandError::Failed(
                "the journal has no header (an older version wrote it): its seed, which picks the samples, is unknown".into(),
            ))
        }
    };
    let targets = RecordTargets {
        texts: [
            (TextFormat::Pgn, a.pgn),
            (TextFormat::Sgf, a.sgf),
            (TextFormat::Msg, a.msg),
        ]
        .into_iter()
        .filter_map(|(f, p)| Some((f, p?)))
        .collect(),
        evals,
        psq,
        sample,
        seed,
        renlib: None,
        fingerprint: String::new(),
    };
    let mut files = RecordFiles::open(&targets).map_err(failed)?;
    let (mut written, mut journal_only) = (0, 0);
    for e in &entries {
        if e.journal_only {
            journal_only += 1;
            continue;
        }
        let r = e
            .to_record()
            .map_err(|x| CommandError::Failed(x.to_string()))?;
        files
            .write(&r)
            .map_err(|x| CommandError::Failed(x.to_string()))?;
        written += 1;
    }
    for w in files.finish() {
        eprintln!("warning: {w}");
    }
    Ok((written, journal_only))
}
