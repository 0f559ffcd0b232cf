//! The record files of finished games (PGN, SGF, messages, training samples): opened for
//! appending, written game by game with the pure renderers of `record/`, and measured, so the
//! journal can say how large each file was before a game and `-resume` can complete a game that
//! a kill cut off between the journal line and these files. `.psq` records are one file per game,
//! replaced atomically, so they need no measuring: writing a game's file again is harmless. The
//! `export` command writes through the same code, so it writes the same bytes the run wrote.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::formats::atomic_file::write_atomic;
use crate::formats::journal::{JournalEntry, OutputSizes};
use crate::formats::psq;
use crate::formats::samples::{self, SampleConfig, SampleWriter};
use crate::formats::text_records::TextFormat;
use crate::game::record::{Evals, GameRecord};
use crate::schedule::shard::Shard;
use crate::schedule::GameId;

use crate::outputs::paths::{open_append, prepare_dir, prepare_parent};
use crate::outputs::OutputError;

/// The PGN/SGF event name.
const EVENT: &str = "gomoku-cli";

/// Where the records of a run (or an export) go.
#[derive(Debug, Clone, Default)]
pub struct RecordTargets {
    /// `-pgn`, `-sgf`, `-msg`: the text records asked for, each with its file.
    pub texts: Vec<(TextFormat, PathBuf)>,
    /// `-records evals=`: whether the text records quote the engines' search reports.
    pub evals: Evals,
    /// `-psq DIR`: one `.psq` record per game.
    pub psq: Option<PsqTarget>,
    pub sample: Option<SampleConfig>,
    /// The run's seed: which positions become samples.
    pub seed: u64,
    /// `-renlib FILE`: the RenLib library the games are merged into.
    pub renlib: Option<PathBuf>,
    /// The run's fingerprint: with the game number, the key of a game in the library (so a
    /// resumed run never merges a game twice).
    pub fingerprint: String,
}

/// The name of [`PsqTarget::prepare`]'s probe, between its dot and its process id (a resumed
/// run's leftovers sweep knows it too).
pub const PROBE: &str = "gomoku-cli-check";

/// `-psq DIR`: the directory of the per-game `.psq` records.
#[derive(Debug, Clone)]
pub struct PsqTarget {
    pub dir: PathBuf,
    /// A shard tags its files as it tags its other outputs (`game-000012.shard-2-of-4.psq`).
    pub shard: Option<Shard>,
}

impl PsqTarget {
    /// The record of game `game`: `game-000012.psq`.
    pub fn path_of(&self, game: GameId) -> PathBuf {
        let path = self.dir.join(format!("game-{:06}.psq", game.0));
        match self.shard {
            Some(s) => s.output_name(&path),
            None => path,
        }
    }

    /// Before the first game: the directory exists (created if missing) and takes files, so an
    /// unusable one stops the run at once rather than failing every game.
    pub fn prepare(&self) -> Result<(), OutputError> {
        prepare_dir(&self.dir, &self.dir)?;
        let probe = self
            .dir
            .join(format!(".{}.{}.tmp", PROBE, std::process::id()));
        std::fs::File::create(&probe).map_err(|source| OutputError::Open {
            path: self.dir.clone(),
            source,
        })?;
        let _ = std::fs::remove_file(&probe);
        Ok(())
    }

    /// Write one game's record, replacing the file atomically (a failure leaves no part of it).
    fn write(&self, r: &GameRecord) -> Result<(), OutputError> {
        let path = self.path_of(r.game);
        write_atomic(&path, |w| w.write_all(psq::render(r).as_bytes()))
            .map_err(|source| OutputError::Write { path, source })
    }

    /// After a kill: write the game's record unless the file already holds it. Returns what
    /// was done.
    fn complete(&self, r: &GameRecord) -> Option<String> {
        let path = self.path_of(r.game);
        if std::fs::read(&path).is_ok_and(|have| have == psq::render(r).as_bytes()) {
            return None;
        }
        Some(match self.write(r) {
            Ok(()) => format!("{}: wrote the last game's record", path.display()),
            Err(e) => e.to_string(),
        })
    }
}

/// A file opened for appending, with its size.
pub struct Sink {
    file: std::fs::File,
    path: PathBuf,
    len: u64,
}

impl Sink {
    /// Open `path` for appending (parent directories created).
    pub fn open(path: &Path) -> Result<Sink, OutputError> {
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

    /// Append and flush. On a failure (a full disk, a file size limit) the part of `bytes` that
    /// did get written is cut off again, so the file still ends with its last whole record, and
    /// the error names the file: the caller stops the run, and `-resume` carries on from there.
    pub fn append(&mut self, bytes: &[u8]) -> Result<(), OutputError> {
        match self.file.write_all(bytes).and_then(|_| self.file.flush()) {
            Ok(()) => {
                self.len += bytes.len() as u64;
                Ok(())
            }
            Err(source) => {
                let _ = self.file.set_len(self.len);
                Err(OutputError::Write {
                    path: self.path.clone(),
                    source,
                })
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
        Some(match self.append(missing) {
            Ok(()) => format!(
                "{name}: completed the last game's record ({} bytes were missing)",
                missing.len()
            ),
            Err(e) => e.to_string(),
        })
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
    lib: crate::formats::renlib::Library,
    /// Its comments carry game statistics (`lib merge --stats`): they are kept up to date.
    stats: bool,
    /// Games that cannot go in, counted and reported at the end: played on another board than
    /// 15×15, and games without a stone (an engine failed to start).
    other_board: u64,
    no_stones: u64,
    fingerprint: String,
}

impl Archive {
    /// What the run says at its end about the games left out of the library.
    fn warnings(&self) -> Vec<String> {
        let path = self.path.display();
        let games = |n: u64| match n {
            1 => "1 game".to_string(),
            n => format!("{n} games"),
        };
        let mut out = Vec::new();
        if self.other_board > 0 {
            out.push(format!(
                "{} left out of {path}: not on a 15x15 board (RenLib's limit)",
                games(self.other_board)
            ));
        }
        if self.no_stones > 0 {
            out.push(format!(
                "{} left out of {path}: no stone was played (an engine failed to start), and a library holds games as paths of stones",
                games(self.no_stones)
            ));
        }
        out
    }

    fn add(&mut self, r: &GameRecord) -> Result<(), OutputError> {
        use crate::formats::renlib::{file, stats, CodePage, GameMerge, LibGame};
        let game = match LibGame::from_record(r, &self.fingerprint) {
            Ok(g) => g,
            Err(e) => {
                if e.is_board_size() {
                    self.other_board += 1;
                } else {
                    self.no_stones += 1;
                }
                return Ok(());
            }
        };
        if let GameMerge::AlreadyPresent = self.lib.merge_game(&game, CodePage::default()) {
            return Ok(());
        }
        if self.stats {
            stats::refresh_stats(&mut self.lib);
        }
        file::save_atomic(&self.path, &self.lib).map_err(|e| OutputError::Renlib(e.to_string()))
    }
}

/// The open record files.
pub struct RecordFiles {
    renlib: Option<Archive>,
    psq: Option<PsqTarget>,
    texts: Vec<(TextFormat, Sink)>,
    evals: Evals,
    samples: Option<Samples>,
    seed: u64,
}

impl RecordFiles {
    pub fn open(t: &RecordTargets) -> Result<RecordFiles, OutputError> {
        let samples = match &t.sample {
            Some(sc) => {
                prepare_parent(&sc.file)?;
                // Measured after opening: a new LZ4 file already holds its empty first frame.
                let writer = SampleWriter::open(sc)?;
                let base = std::fs::metadata(&sc.file).map(|m| m.len()).unwrap_or(0);
                Some(Samples {
                    writer,
                    config: sc.clone(),
                    base,
                })
            }
            None => None,
        };
        let renlib = match &t.renlib {
            Some(path) => {
                prepare_parent(path)?;
                let lib = crate::formats::renlib::file::load_or_new(path)
                    .map_err(|e| OutputError::Renlib(e.to_string()))?;
                Some(Archive {
                    path: path.clone(),
                    stats: crate::formats::renlib::stats::has_stats_lines(&lib),
                    lib,
                    other_board: 0,
                    no_stones: 0,
                    fingerprint: t.fingerprint.clone(),
                })
            }
            None => None,
        };
        if let Some(p) = &t.psq {
            p.prepare()?;
        }
        Ok(RecordFiles {
            renlib,
            psq: t.psq.clone(),
            texts: (t.texts.iter())
                .map(|(f, p)| Ok((*f, Sink::open(p)?)))
                .collect::<Result<_, OutputError>>()?,
            evals: t.evals,
            samples,
            seed: t.seed,
        })
    }

    /// The size of every file now (before the next game).
    pub fn sizes(&self) -> OutputSizes {
        let mut sizes = OutputSizes {
            samples: (self.samples.as_ref()).map(|s| s.base + s.writer.bytes_written()),
            ..OutputSizes::default()
        };
        for (f, s) in &self.texts {
            sizes.set_text(*f, s.len);
        }
        sizes
    }

    fn sample_batch(&self, r: &GameRecord, freq: f64) -> Vec<samples::Sample> {
        let mut rng = samples::game_rng(self.seed, r.game.0);
        samples::samples_of(r, freq, &mut rng)
    }

    /// Append one game to every file; the first failure stops there and is returned (the run
    /// then stops: `-resume` completes this game's records from the journal).
    pub fn write(&mut self, r: &GameRecord) -> Result<(), OutputError> {
        for (f, s) in &mut self.texts {
            s.append(f.render(r, EVENT, self.evals).as_bytes())?;
        }
        if let Some(p) = &self.psq {
            p.write(r)?;
        }
        if let Some(a) = &mut self.renlib {
            a.add(r)?;
        }
        if let Some(freq) = self.samples.as_ref().map(|s| s.config.freq) {
            let batch = self.sample_batch(r, freq);
            if let Some(s) = &mut self.samples {
                s.writer.write_game(&batch)?;
            }
        }
        Ok(())
    }

    /// The samples writer's final flush; returns warnings: what could not be archived or
    /// flushed.
    pub fn finish(&mut self) -> Vec<String> {
        let archive = self.renlib.as_ref().map(Archive::warnings);
        let mut warnings: Vec<String> = (archive.unwrap_or_default().into_iter())
            .map(|w| format!("-renlib: {w}"))
            .collect();
        if let Some(s) = self.samples.take() {
            warnings.extend(s.writer.finish().err().map(|e| e.to_string()));
        }
        warnings
    }
}

/// After a kill, before the record files are opened: make sure the journal's last game (`last`,
/// with the sizes the files had before it) is in every file of `t` exactly once. Returns what was
/// done.
pub fn complete_last(t: &RecordTargets, last: &JournalEntry) -> Result<Vec<String>, OutputError> {
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
            files.write(&r)?;
        }
    }
    let mut notes = Vec::new();
    // A .psq record is a file of its own, replaced whole: it needs no sizes, only the game.
    if let Some(p) = &t.psq {
        if let Ok(r) = last.to_record() {
            p.prepare()?;
            notes.extend(p.complete(&r));
        }
    }
    let Some(before) = last.outputs else {
        return Ok(notes);
    };
    let r = last.to_record().map_err(OutputError::Rebuild)?;
    let mut wanted: Vec<(&Path, u64, Vec<u8>)> = Vec::new();
    for (f, path) in &t.texts {
        if let Some(start) = before.text(*f) {
            wanted.push((path, start, f.render(&r, EVENT, t.evals).into_bytes()));
        }
    }
    if let (Some(sc), Some(start)) = (&t.sample, before.samples) {
        let mut rng = samples::game_rng(t.seed, r.game.0);
        let batch = samples::samples_of(&r, sc.freq, &mut rng);
        let mut one = SampleWriter::new(sc.format, Vec::new(), sc.file.display().to_string())
            .with_eval_column(sc.eval_column);
        one.write_game(&batch)?;
        wanted.push((&sc.file, start, one.finish()?));
    }
    for (path, start, bytes) in wanted {
        notes.extend(Sink::open(path)?.complete(start, &bytes));
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::record::fixtures::sample_record;

    #[test]
    fn psq_records_are_named_by_game_and_shard() {
        let mut t = PsqTarget {
            dir: PathBuf::from("out"),
            shard: None,
        };
        assert_eq!(t.path_of(GameId(12)), Path::new("out/game-000012.psq"));
        t.shard = Some(Shard::parse("2/4").unwrap());
        assert_eq!(
            t.path_of(GameId(1234567)),
            Path::new("out/game-1234567.shard-2-of-4.psq")
        );
    }

    #[test]
    fn games_left_out_of_the_library_are_reported_for_what_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let targets = RecordTargets {
            renlib: Some(dir.path().join("g.lib")),
            fingerprint: "f".into(),
            ..RecordTargets::default()
        };
        let mut files = RecordFiles::open(&targets).unwrap();
        let mut failed = sample_record();
        failed.opening.clear();
        failed.outcome.moves.clear();
        failed.outcome.termination = crate::game::termination::Termination::FailedStart {
            by: crate::core::board::Color::White,
            text: "engine crashed (exit status 3)".into(),
        };
        files.write(&failed).unwrap();
        let mut small = sample_record();
        small.size = crate::core::board::BoardSize::new(9).unwrap();
        small.game = GameId(8);
        files.write(&small).unwrap();
        files.write(&small).unwrap();
        let warnings = files.renlib.as_ref().unwrap().warnings();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].starts_with("2 games left out of "));
        assert!(warnings[0].ends_with("not on a 15x15 board (RenLib's limit)"));
        assert!(warnings[1].starts_with("1 game left out of "));
        assert!(warnings[1].contains("no stone was played (an engine failed to start)"));
    }

    #[test]
    fn psq_records_are_written_and_completed_once() {
        let dir = tempfile::tempdir().unwrap();
        let t = PsqTarget {
            dir: dir.path().join("new/psq"),
            shard: None,
        };
        let targets = RecordTargets {
            psq: Some(t.clone()),
            ..RecordTargets::default()
        };
        let r = sample_record();
        let mut files = RecordFiles::open(&targets).unwrap();
        files.write(&r).unwrap();
        let path = t.path_of(r.game);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), psq::render(&r));
        let last = JournalEntry::from_record(&r, "f");
        assert!(complete_last(&targets, &last).unwrap().is_empty());
        std::fs::remove_file(&path).unwrap();
        let notes = complete_last(&targets, &last).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), psq::render(&r));
        // -loseonly: a journal-only game has no record to complete.
        std::fs::remove_file(&path).unwrap();
        let only = JournalEntry {
            journal_only: true,
            ..last
        };
        assert!(complete_last(&targets, &only).unwrap().is_empty());
        assert!(!path.exists());
        // Only the records are left in the directory: the check before the first game cleans up.
        assert!(std::fs::read_dir(&t.dir).unwrap().next().is_none());
    }
}
