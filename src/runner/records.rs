//! The record files of finished games (PGN, SGF, messages, training samples): opened for
//! appending, written game by game with the pure renderers of `record/`, and measured, so the
//! journal can say how large each file was before a game and `-resume` can complete a game that
//! a kill cut off between the journal line and these files. The `export` command writes through
//! the same code, so it writes the same bytes the run wrote.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::record::journal::{JournalEntry, OutputSizes};
use crate::record::samples::{self, SampleConfig, SampleWriter};
use crate::record::{msg, pgn, sgf, GameRecord};

use super::outputs::{open_append, prepare_parent};
use super::RunError;

/// The PGN/SGF event name.
const EVENT: &str = "gomoku-cli";

/// Where the records of a run (or an export) go.
#[derive(Debug, Clone, Default)]
pub struct RecordTargets {
    pub pgn: Option<PathBuf>,
    pub sgf: Option<PathBuf>,
    pub msg: Option<PathBuf>,
    pub sample: Option<SampleConfig>,
    /// The run's seed: which positions become samples.
    pub seed: u64,
    /// `-renlib FILE`: the RenLib library the games are merged into.
    pub renlib: Option<PathBuf>,
    /// The run's fingerprint: with the game number, the key of a game in the library (so a
    /// resumed run never merges a game twice).
    pub fingerprint: String,
}

/// A file opened for appending, with its size.
pub struct Sink {
    file: std::fs::File,
    path: PathBuf,
    len: u64,
}

impl Sink {
    /// Open `path` for appending (parent directories created).
    pub fn open(path: &Path) -> Result<Sink, RunError> {
        Ok(Sink::from_file(open_append(path)?, path.to_path_buf()))
    }

    /// A sink over an already opened file.
    pub fn from_file(file: std::fs::File, path: PathBuf) -> Sink {
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        Sink { file, path, len }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append and flush; a failure is reported with the file's path and the run goes on.
    pub fn append(&mut self, bytes: &[u8]) {
        match self.file.write_all(bytes).and_then(|_| self.file.flush()) {
            Ok(()) => self.len += bytes.len() as u64,
            Err(e) => {
                eprintln!("warning: cannot write to {}: {e}", self.path.display());
                self.len = self.file.metadata().map(|m| m.len()).unwrap_or(self.len);
            }
        }
    }

    /// Make the file end with `bytes` starting at `start`, where a kill may have left none or
    /// only part of them. Returns what was done, or `None` when nothing was needed.
    fn complete(&mut self, start: u64, bytes: &[u8]) -> Option<String> {
        let name = self.path.display().to_string();
        let have = match std::fs::read(&self.path) {
            Ok(all) => all,
            Err(e) => return Some(format!("{name}: cannot check: {e}")),
        };
        let Some(tail) = have.get(start as usize..) else {
            return Some(format!(
                "{name}: shorter ({} bytes) than the journal says it was before the last game ({start}); left as it is",
                have.len()
            ));
        };
        if tail.len() >= bytes.len() && tail[..bytes.len()] == *bytes {
            return None;
        }
        if !bytes.starts_with(tail) {
            return Some(format!(
                "{name}: does not hold the journal's last game where expected; left as it is"
            ));
        }
        let missing = &bytes[tail.len()..];
        self.append(missing);
        Some(format!(
            "{name}: completed the last game's record ({} bytes were missing)",
            missing.len()
        ))
    }
}

struct Samples {
    writer: SampleWriter,
    config: SampleConfig,
    /// The file's size when opened.
    base: u64,
}

/// `-renlib FILE`: the library every finished game is merged into, rewritten atomically after
/// each game (a temporary file, then a rename), so a kill never leaves a broken library.
struct Archive {
    path: PathBuf,
    lib: crate::renlib::Library,
    /// Its comments carry game statistics (`lib merge --stats`): they are kept up to date.
    stats: bool,
    /// Games that cannot go in (not 15×15): counted and reported at the end.
    left_out: u64,
    fingerprint: String,
}

impl Archive {
    fn add(&mut self, r: &GameRecord) {
        use crate::renlib::{file, stats, CodePage, GameMerge, LibGame};
        let game = match LibGame::from_record(r, &self.fingerprint) {
            Ok(g) => g,
            Err(_) => {
                self.left_out += 1;
                return;
            }
        };
        if let GameMerge::AlreadyPresent = self.lib.merge_game(&game, CodePage::default()) {
            return;
        }
        if self.stats {
            stats::refresh_stats(&mut self.lib);
        }
        if let Err(e) = file::save_atomic(&self.path, &self.lib) {
            eprintln!("warning: -renlib: {e}");
        }
    }
}

/// The open record files.
pub struct RecordFiles {
    renlib: Option<Archive>,
    pgn: Option<Sink>,
    sgf: Option<Sink>,
    msg: Option<Sink>,
    samples: Option<Samples>,
    seed: u64,
}

impl RecordFiles {
    pub fn open(t: &RecordTargets) -> Result<RecordFiles, RunError> {
        let open = |p: &Option<PathBuf>| p.as_deref().map(Sink::open).transpose();
        let samples = match &t.sample {
            Some(sc) => {
                prepare_parent(&sc.file)?;
                let base = std::fs::metadata(&sc.file).map(|m| m.len()).unwrap_or(0);
                Some(Samples {
                    writer: SampleWriter::open(sc)?,
                    config: sc.clone(),
                    base,
                })
            }
            None => None,
        };
        let renlib = match &t.renlib {
            Some(path) => {
                prepare_parent(path)?;
                let lib = crate::renlib::file::load_or_new(path)
                    .map_err(|e| RunError::Renlib(e.to_string()))?;
                Some(Archive {
                    path: path.clone(),
                    stats: crate::renlib::stats::has_stats_lines(&lib),
                    lib,
                    left_out: 0,
                    fingerprint: t.fingerprint.clone(),
                })
            }
            None => None,
        };
        Ok(RecordFiles {
            renlib,
            pgn: open(&t.pgn)?,
            sgf: open(&t.sgf)?,
            msg: open(&t.msg)?,
            samples,
            seed: t.seed,
        })
    }

    /// The size of every file now (before the next game).
    pub fn sizes(&self) -> OutputSizes {
        OutputSizes {
            pgn: self.pgn.as_ref().map(|s| s.len),
            sgf: self.sgf.as_ref().map(|s| s.len),
            msg: self.msg.as_ref().map(|s| s.len),
            samples: self
                .samples
                .as_ref()
                .map(|s| s.base + s.writer.bytes_written()),
        }
    }

    fn sample_batch(&self, r: &GameRecord, freq: f64) -> Vec<samples::Sample> {
        let mut rng = samples::game_rng(self.seed, r.game.0);
        samples::samples_of(r, freq, &mut rng)
    }

    /// Append one game to every file.
    pub fn write(&mut self, r: &GameRecord) {
        if let Some(s) = &mut self.pgn {
            s.append(pgn::render(r, EVENT).as_bytes());
        }
        if let Some(s) = &mut self.sgf {
            s.append(sgf::render(r, EVENT).as_bytes());
        }
        if let Some(s) = &mut self.msg {
            s.append(msg::render(r).as_bytes());
        }
        if let Some(a) = &mut self.renlib {
            a.add(r);
        }
        if let Some(freq) = self.samples.as_ref().map(|s| s.config.freq) {
            let batch = self.sample_batch(r, freq);
            if let Some(s) = &mut self.samples {
                if let Err(e) = s.writer.write_game(&batch) {
                    eprintln!("warning: game {}: {e}", r.game);
                }
            }
        }
    }

    /// The samples writer's final flush, and what could not be archived.
    pub fn finish(&mut self) {
        if let Some(a) = &self.renlib {
            if a.left_out > 0 {
                eprintln!(
                    "warning: -renlib: {} games not on a 15x15 board were not archived in {} (RenLib's limit)",
                    a.left_out,
                    a.path.display()
                );
            }
        }
        if let Some(s) = self.samples.take() {
            if let Err(e) = s.writer.finish() {
                eprintln!("warning: {e}");
            }
        }
    }
}

/// After a kill, before the record files are opened: make sure the journal's last game (`last`,
/// with the sizes the files had before it) is in every file of `t` exactly once. Returns what was
/// done.
pub fn complete_last(t: &RecordTargets, last: &JournalEntry) -> Result<Vec<String>, RunError> {
    if last.journal_only {
        return Ok(vec![]);
    }
    // The library: merging a game is idempotent per key, so the last game simply goes in again.
    if t.renlib.is_some() {
        if let Ok(r) = last.to_record() {
            let only_renlib = RecordTargets {
                renlib: t.renlib.clone(),
                fingerprint: t.fingerprint.clone(),
                ..RecordTargets::default()
            };
            let mut files = RecordFiles::open(&only_renlib)?;
            files.write(&r);
        }
    }
    let Some(before) = last.outputs else {
        return Ok(vec![]);
    };
    let r = last.to_record().map_err(RunError::Rebuild)?;
    let mut wanted: Vec<(&Path, u64, Vec<u8>)> = Vec::new();
    let texts = [
        (&t.pgn, before.pgn, pgn::render(&r, EVENT)),
        (&t.sgf, before.sgf, sgf::render(&r, EVENT)),
        (&t.msg, before.msg, msg::render(&r)),
    ];
    for (path, start, text) in texts {
        if let (Some(path), Some(start)) = (path, start) {
            wanted.push((path, start, text.into_bytes()));
        }
    }
    if let (Some(sc), Some(start)) = (&t.sample, before.samples) {
        let mut rng = samples::game_rng(t.seed, r.game.0);
        let batch = samples::samples_of(&r, sc.freq, &mut rng);
        let mut one = SampleWriter::new(sc.format, Vec::new(), sc.file.display().to_string());
        one.write_game(&batch)?;
        wanted.push((&sc.file, start, one.finish()?));
    }
    let mut notes = Vec::new();
    for (path, start, bytes) in wanted {
        notes.extend(Sink::open(path)?.complete(start, &bytes));
    }
    Ok(notes)
}
