//! `-resume`: find the run's journal, check that it records this very run, repair what a kill
//! left behind (a torn last journal line, the last game missing from or cut in the other records)
//! and tell the dispatcher which games are done. The run is its header's `RunSettings`: the journal
//! is found by its fingerprint (`RunSettings::identity`, what decides the games, shared by every
//! shard), and continuing it needs the whole `RunSettings` equal (names compared once resolved).

use std::path::PathBuf;

use crate::config::outputs::JournalTarget;
use crate::config::Config;
use crate::formats::journal::{self, JournalEntry, JournalHeader, RunSettings};

use crate::config::identity::{fingerprint, identity_of, legacy_identity, settings};
use crate::outputs::records::complete_last;
use crate::outputs::{record_targets, OutputError};
use crate::runner::RunError;

/// A journal ready to be continued.
#[derive(Debug)]
pub struct Resumed {
    pub journal: PathBuf,
    /// Its games in journal order.
    pub entries: Vec<JournalEntry>,
    /// What was repaired or noticed, for the user.
    pub notes: Vec<String>,
    /// The run was stopped before its header was written: the journal is empty and the header
    /// is still to be written.
    pub needs_header: bool,
    /// The engines' names in the journal's header (none when it is still to be written).
    pub names: Vec<String>,
}

impl Resumed {
    /// The engines must carry the names they had: a renamed engine (`name=`, or another `ABOUT`)
    /// would make its games of the two sessions look like two players' in every record.
    pub fn check_names(&self, now: &[String]) -> Result<(), RunError> {
        if self.names.is_empty() {
            return Ok(());
        }
        let differences: Vec<String> = self
            .names
            .iter()
            .zip(now)
            .enumerate()
            .filter(|(_, (was, is))| was != is)
            .map(|(i, (was, is))| format!("engines[{i}].name: {was:?} in the journal, {is:?} now"))
            .collect();
        if differences.is_empty() {
            return Ok(());
        }
        Err(RunError::ResumeMismatch {
            path: self.journal.clone(),
            differences: differences.join("\n  "),
        })
    }
}

/// The journal to resume: `-journal FILE`, or the newest timestamped journal next to where a
/// new one would go whose header has this configuration's fingerprint.
fn find_journal(config: &Config, target: &JournalTarget) -> Result<PathBuf, RunError> {
    match target {
        JournalTarget::Named(p) => Ok(p.clone()),
        JournalTarget::Timestamped(p) => {
            let dir = match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => PathBuf::from("."),
            };
            let want = fingerprint(config);
            let mut found: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(&dir)
                .map_err(|source| OutputError::Open {
                    path: dir.clone(),
                    source,
                })?
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
                    name.is_some_and(|n| {
                        n.starts_with("gomoku-cli-") && n.ends_with(".journal.jsonl")
                    })
                })
                .filter(|p| journal::header_of(p).is_some_and(|h| same_run(&h, config, &want)))
                .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
                .collect();
            found.sort();
            found
                .pop()
                .map(|(_, p)| p)
                .ok_or(RunError::NoJournalToResume { dir })
        }
    }
}

/// Whether a header may be this configuration's: its fingerprint, computed with the journal's
/// seed where the run adopts it, as this build computes it or as builds before the SHA-256
/// identity did.
fn same_run(h: &JournalHeader, config: &Config, want: &str) -> bool {
    if h.fingerprint == want {
        return true;
    }
    let mut adopted = config.clone();
    adopted.seed.adopt(h.settings.seed);
    [
        identity_of(&adopted),
        legacy_identity(config),
        legacy_identity(&adopted),
    ]
    .contains(&h.fingerprint)
}

/// Every setting that differs, as `name: journal value → command line value` (engine names
/// left out: they come from the engines, and are compared once resolved, `Resumed::check_names`).
pub fn differences(journal: &RunSettings, now: &RunSettings) -> Vec<String> {
    let strip = |s: &RunSettings| {
        let mut v = serde_json::to_value(s).unwrap_or_default();
        if let Some(engines) = v.get_mut("engines").and_then(|e| e.as_array_mut()) {
            for e in engines {
                if let Some(o) = e.as_object_mut() {
                    o.remove("name");
                }
            }
        }
        v
    };
    crate::formats::settings_diff::differences(&strip(journal), &strip(now), "journal", &|p| {
        p.to_string()
    })
}

/// Read, check and repair the journal to resume (`target`, the configured one); `config` adopts
/// the journal's seed.
pub fn prepare(
    config: &mut Config,
    target: &JournalTarget,
    total: u64,
) -> Result<Resumed, RunError> {
    let path = find_journal(config, target)?;
    let io = |source| OutputError::Open {
        path: path.clone(),
        source,
    };
    let text = std::fs::read(&path).map_err(io)?;
    let cut = |len| {
        std::fs::File::options()
            .write(true)
            .open(&path)?
            .set_len(len)
    };
    let read = journal::parse(&text, &path.display().to_string()).map_err(|e| {
        RunError::BadJournal(match e {
            // Its games were not played under the settings it says: not a run to continue.
            journal::JournalError::Header(m) => format!("{m}; it cannot be resumed"),
            e => e.to_string(),
        })
    })?;
    if read.header.is_none() && read.entries.is_empty() {
        // Killed before its first line was complete: nothing was played; start over in it.
        cut(0).map_err(io)?;
        return Ok(Resumed {
            notes: vec![format!(
                "{}: no complete line (stopped before its first game): the run starts from its beginning",
                path.display()
            )],
            journal: path,
            entries: vec![],
            needs_header: true,
            names: vec![],
        });
    }
    let header = read.header.ok_or_else(|| {
        RunError::BadJournal(format!(
            "{}: no header line (written by an older version): it cannot be resumed",
            path.display()
        ))
    })?;
    // A run without `srand=` continues with the seed it started with.
    config.seed.adopt(header.settings.seed);
    // The run goes on under the identity it started with: new lines, shards and library keys
    // must match the old ones even when an older build computed it another way.
    config.run_identity = Some(header.fingerprint.clone());
    // A journal from before the colour rule was recorded: its games gave the first engine black,
    // and so do the rest of them.
    if header.settings.colours.is_none() {
        config.tournament.colours = crate::config::matches::ColourRule::FirstBlack;
    }
    let diffs = differences(&header.settings, &settings(config, &[], total));
    if !diffs.is_empty() {
        return Err(RunError::ResumeMismatch {
            path,
            differences: diffs.join("\n  "),
        });
    }
    let mut notes = read.warnings;
    // A torn last line (a kill mid-write) is cut off, so new lines start on a line of their own.
    if !text.is_empty() && !text.ends_with(b"\n") {
        let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) as u64;
        cut(keep).map_err(io)?;
        notes.push(format!(
            "{}: cut the torn last line off ({} bytes)",
            path.display(),
            text.len() as u64 - keep
        ));
    }
    if let Some(last) = read.entries.last() {
        notes.extend(complete_last(&record_targets(config), last)?);
    }
    notes.extend(remove_leftovers(config, &path));
    Ok(Resumed {
        journal: path,
        entries: read.entries,
        notes,
        needs_header: false,
        names: header
            .settings
            .engines
            .iter()
            .map(|e| e.name.clone())
            .collect(),
    })
}

/// The temporary files a killed run left beside its outputs (`outputs::leftovers`), removed;
/// the note says which.
fn remove_leftovers(config: &Config, journal: &std::path::Path) -> Option<String> {
    let mut l = crate::outputs::leftovers::Leftovers::new(config.cluster.shard);
    let o = &config.outputs;
    for p in [&o.renlib, &o.report].into_iter().flatten() {
        l.file(p);
    }
    for p in crate::runner::tune_files(config, Some(journal))
        .iter()
        .flatten()
    {
        l.file(p);
    }
    if let Some(p) = &record_targets(config).psq {
        l.psq(p);
    }
    let removed = l.remove();
    let names: Vec<String> = removed.iter().map(|p| p.display().to_string()).collect();
    (!names.is_empty()).then(|| {
        format!(
            "removed {} temporary file{} a killed run left: {}",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            names.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(args: &str) -> Config {
        crate::config::config_in(args, &[("PATH", "/usr/bin:/bin")]).unwrap()
    }

    #[test]
    fn journals_of_this_build_and_of_builds_before_the_sha256_identity_are_this_run() {
        let c = config("-engine cmd=cat -engine cmd=sh -games 4 -boardsize 9");
        let want = identity_of(&c);
        let mut h = crate::config::identity::header(&c, &[], 4);
        assert!(same_run(&h, &c, &want));
        h.fingerprint = legacy_identity(&c);
        assert_ne!(h.fingerprint, want);
        assert!(same_run(&h, &c, &want), "an older build's journal is found");
        h.fingerprint = "0123456789abcdef".into();
        assert!(!same_run(&h, &c, &want), "another run's is not");
    }
}
