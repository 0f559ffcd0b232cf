//! The files a run's games are saved to, flushed after every game: the journal (opened so that
//! no other run's games are mixed in, header first), then the records.

use std::path::{Path, PathBuf};

use crate::config::identity::fingerprint;
use crate::config::outputs::JournalTarget;
use crate::config::Config;
use crate::formats::journal::{self, JournalEntry, JournalHeader, OutputSizes};
use crate::formats::text_records::TextFormat;
use crate::game::record::GameRecord;

use crate::outputs::paths::{open_append, prepare_dir, prepare_parent};
use crate::outputs::records::{PsqTarget, RecordFiles, RecordTargets, Sink};
use crate::outputs::{OutputError, Records};

/// Open the journal so that no other run's games are mixed in: a named journal that already
/// holds anything is refused, a timestamped one taken by another run gets a numbered suffix.
/// The flag says whether this call created the file.
fn open_journal(target: &JournalTarget) -> Result<(std::fs::File, PathBuf, bool), OutputError> {
    let path = target.path();
    prepare_parent(path)?;
    let create = |p: &Path| {
        std::fs::OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(p)
    };
    let io = |p: &Path, source| OutputError::Open {
        path: p.to_path_buf(),
        source,
    };
    match target {
        JournalTarget::Named(p) => match std::fs::metadata(p) {
            Ok(m) if m.len() > 0 => Err(OutputError::JournalExists { path: p.clone() }),
            Ok(_) => open_append(p).map(|f| (f, p.clone(), false)),
            Err(_) => create(p)
                .map(|f| (f, p.clone(), true))
                .map_err(|e| io(p, e)),
        },
        JournalTarget::Timestamped(p) => {
            let stem = p
                .to_string_lossy()
                .trim_end_matches(".journal.jsonl")
                .to_string();
            for n in 1..10_000u32 {
                let candidate = match n {
                    1 => p.clone(),
                    _ => PathBuf::from(format!("{stem}-{n}.journal.jsonl")),
                };
                match create(&candidate) {
                    Ok(f) => return Ok((f, candidate, true)),
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(io(&candidate, e)),
                }
            }
            Err(OutputError::JournalExists { path: p.clone() })
        }
    }
}

/// Files the dispatcher's saves go to, flushed after every game: the journal, then the records.
pub struct Outputs {
    journal: Option<Sink>,
    /// The journal this run created, until its first game starts: a run refused before then
    /// (a bad `-report` path, say) removes it again instead of leaving an empty journal behind.
    fresh_journal: Option<PathBuf>,
    records: RecordFiles,
    fingerprint: String,
}

impl Drop for Outputs {
    /// A run that ends before its first game (refused or interrupted) leaves no journal it made.
    fn drop(&mut self) {
        if let Some(p) = self.fresh_journal.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// The text records a configuration asks for, in [`TextFormat::ALL`]'s order.
fn text_targets(config: &Config) -> Vec<(TextFormat, PathBuf)> {
    let path = |f| match f {
        TextFormat::Pgn => &config.outputs.pgn,
        TextFormat::Sgf => &config.outputs.sgf,
        TextFormat::Msg => &config.outputs.msg,
    };
    (TextFormat::ALL.into_iter())
        .filter_map(|f| Some((f, path(f).clone()?)))
        .collect()
}

/// The record files a configuration asks for.
pub fn record_targets(config: &Config) -> RecordTargets {
    RecordTargets {
        texts: text_targets(config),
        evals: config.outputs.evals,
        psq: config.outputs.psq.clone().map(|dir| PsqTarget {
            dir,
            shard: config.cluster.shard,
        }),
        sample: config.outputs.sample.clone(),
        seed: config.seed.get(),
        renlib: config.outputs.renlib.clone(),
        fingerprint: fingerprint(config),
    }
}

impl Outputs {
    /// Open every output (and the log directory) before the first game. `journal` is the
    /// journal already chosen (a resumed one), or `None` to open the configured one.
    pub fn open(config: &Config, resumed: Option<PathBuf>) -> Result<Outputs, OutputError> {
        if config.outputs.log != crate::config::outputs::LogLevel::Off {
            prepare_dir(&config.outputs.log_dir, &config.outputs.log_dir)?;
        }
        // The record paths first: the default journal goes next to `-pgn`/`-sgf`/`-msg`, so a
        // parent that is a file must be reported under the path the user gave, not under the
        // journal's name derived from it.
        for (_, p) in text_targets(config) {
            prepare_parent(&p)?;
        }
        let mut fresh_journal = None;
        let journal = match resumed {
            Some(p) => Some(Sink::open(&p)?),
            None => match &config.outputs.journal {
                Some(t) => {
                    let (file, path, created) = open_journal(t)?;
                    fresh_journal = created.then(|| path.clone());
                    Some(Sink::from_file(file, path))
                }
                None => None,
            },
        };
        let records = RecordFiles::open(&record_targets(config)).inspect_err(|_| {
            if let Some(p) = &fresh_journal {
                let _ = std::fs::remove_file(p);
            }
        })?;
        Ok(Outputs {
            journal,
            fresh_journal,
            records,
            fingerprint: fingerprint(config),
        })
    }

    /// The games begin: from now on the journal stays, whatever happens.
    pub fn games_begin(&mut self) {
        self.fresh_journal = None;
    }

    /// The journal's path, once opened (a timestamped name may have got a suffix).
    pub fn journal_path(&self) -> Option<&Path> {
        self.journal.as_ref().map(|s| s.path())
    }

    /// Write the journal's header line.
    pub fn write_header(&mut self, h: &JournalHeader) -> Result<(), OutputError> {
        match &mut self.journal {
            Some(j) => j.append(journal::render_header(h).as_bytes()),
            None => Ok(()),
        }
    }

    /// Append one finished game: the journal first (with the records' sizes before the game),
    /// then the other records when `records` says so. A failed write is returned: the run stops,
    /// and what is on disk is what `-resume` continues from (a journal line is whole or absent;
    /// a game in the journal whose records were cut is completed on resume).
    pub fn save(&mut self, r: &GameRecord, records: Records) -> Result<(), OutputError> {
        if let Some(j) = &mut self.journal {
            let mut entry = JournalEntry::from_record(r, &self.fingerprint);
            entry.journal_only = records == Records::JournalOnly;
            let sizes = self.records.sizes();
            if !entry.journal_only && sizes != OutputSizes::default() {
                entry.outputs = Some(sizes);
            }
            j.append(journal::render_entry(&entry).as_bytes())?;
        }
        if records == Records::All {
            self.records.write(r)?;
        }
        Ok(())
    }

    /// Close what needs closing (the samples writer's last frame); returns warnings.
    pub fn finish(&mut self) -> Vec<String> {
        self.records.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamped_journals_never_collide_and_named_ones_are_not_reused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("gomoku-cli-20261123-010203.journal.jsonl");
        let t = JournalTarget::Timestamped(p.clone());
        let (_, first, _) = open_journal(&t).unwrap();
        let (_, second, _) = open_journal(&t).unwrap();
        assert_eq!(first, p);
        assert_ne!(second, first);
        assert!(second
            .to_string_lossy()
            .ends_with("gomoku-cli-20261123-010203-2.journal.jsonl"));
        std::fs::write(&p, "{}\n").unwrap();
        let err = open_journal(&JournalTarget::Named(p.clone())).unwrap_err();
        assert!(matches!(err, OutputError::JournalExists { .. }), "{err}");
        // An empty file (touched beforehand) is fine.
        let empty = dir.path().join("empty.jsonl");
        std::fs::write(&empty, "").unwrap();
        assert!(open_journal(&JournalTarget::Named(empty)).is_ok());
    }
}
