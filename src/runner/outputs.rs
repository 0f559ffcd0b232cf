//! The files a run writes: the journal (the source of truth, header first), PGN, SGF, messages,
//! `.psq` records, training samples and the per-slot protocol logs. One policy for every path:
//! parent directories are created, and a path that cannot be used stops the run before its first
//! game with a message naming it.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use sha2::Digest;
use tokio::sync::mpsc;

use crate::config::{Config, DrawOrder, JournalTarget};
use crate::engine::{Direction, LogEvent};
use crate::record::journal::{
    self, EngineSettings, JournalEntry, JournalHeader, OpeningSettings, OutputSizes, RunSettings,
    SprtSettings,
};
use crate::record::GameRecord;
use crate::schedule::TournamentKind;

use super::dispatcher::Records;
use super::records::{PsqTarget, RecordFiles, RecordTargets, Sink};
use super::RunError;

/// Make sure `path` can be created: its parent directories exist (created if missing). The error
/// names the path and, when a parent is a file, which one.
pub fn prepare_parent(path: &Path) -> Result<(), RunError> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => prepare_dir(dir, path),
        _ => Ok(()),
    }
}

/// Create `dir` (for `for_path`'s sake) or explain why it cannot be.
pub(super) fn prepare_dir(dir: &Path, for_path: &Path) -> Result<(), RunError> {
    if let Some(file) = dir.ancestors().find(|a| a.is_file()) {
        return Err(RunError::NotADirectory {
            path: for_path.to_path_buf(),
            file: file.to_path_buf(),
        });
    }
    std::fs::create_dir_all(dir).map_err(|source| RunError::Output {
        path: dir.to_path_buf(),
        source,
    })
}

/// Open `path` for appending (created, with its parent directories, if missing).
pub(super) fn open_append(path: &Path) -> Result<std::fs::File, RunError> {
    prepare_parent(path)?;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|source| RunError::Output {
            path: path.to_path_buf(),
            source,
        })
}

/// Open the journal so that no other run's games are mixed in: a named journal that already
/// holds anything is refused, a timestamped one taken by another run gets a numbered suffix.
/// The flag says whether this call created the file.
fn open_journal(target: &JournalTarget) -> Result<(std::fs::File, PathBuf, bool), RunError> {
    let path = target.path();
    prepare_parent(path)?;
    let create = |p: &Path| {
        std::fs::OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(p)
    };
    let io = |p: &Path, source| RunError::Output {
        path: p.to_path_buf(),
        source,
    };
    match target {
        JournalTarget::Named(p) => match std::fs::metadata(p) {
            Ok(m) if m.len() > 0 => Err(RunError::JournalExists { path: p.clone() }),
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
            Err(RunError::JournalExists { path: p.clone() })
        }
    }
}

/// The SHA-256 of a file's bytes in hex (empty when it cannot be read: loading it reports that).
fn file_sha256(path: &Path) -> String {
    use sha2::Digest;
    std::fs::read(path)
        .map(|bytes| {
            sha2::Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()
        })
        .unwrap_or_default()
}

/// The journal header of a run: what decides its games, so readers never guess.
pub fn header(config: &Config, names: &[String], total_games: u64) -> JournalHeader {
    let (t, g) = (&config.tournament, &config.game);
    let engines = t
        .engines
        .iter()
        .zip(names)
        .map(|(e, name)| EngineSettings {
            name: name.clone(),
            cmd: e.cmd.clone(),
            tc: e.tc.to_string(),
            depth: e.depth,
            nodes: e.nodes,
            max_memory: e.max_memory,
            threads: e.threads,
            options: e.options.clone(),
        })
        .collect();
    let openings = t.openings.as_ref().map(|o| OpeningSettings {
        file: o.file.display().to_string(),
        format: o.format.to_string(),
        order: match o.order {
            DrawOrder::Sequential => "sequential".into(),
            DrawOrder::Random => "random".into(),
        },
        transform: o.transform,
        sha256: file_sha256(&o.file),
    });
    JournalHeader {
        kind: journal::HEADER_KIND.into(),
        format: journal::FORMAT,
        program: format!("gomoku-cli {}", env!("CARGO_PKG_VERSION")),
        fingerprint: fingerprint(config),
        started: chrono::Utc::now().to_rfc3339(),
        command_line: std::env::args().skip(1).collect(),
        settings: RunSettings {
            engines,
            rule: g.rule.code(),
            size: g.size.get(),
            tournament: match t.kind {
                TournamentKind::RoundRobin => "round_robin".into(),
                TournamentKind::Gauntlet => "gauntlet".into(),
            },
            games: t.games,
            rounds: t.rounds,
            repeat: t.repeat == crate::schedule::Repeat::Twice,
            total_games,
            draw_after: g.draw_after,
            send_by_board: g.send_by_board,
            openings,
            seed: config.seed.get(),
            shard: config.cluster.shard,
            swap: t.swap.map(|s| s.name().to_string()),
            colours: match t.colours {
                crate::config::ColourRule::FirstToMove => Some("first_to_move".into()),
                crate::config::ColourRule::FirstBlack => None,
            },
            sprt: t.sprt.map(|s| SprtSettings {
                elo0: s.elo0,
                elo1: s.elo1,
                alpha: s.alpha,
                beta: s.beta,
                model: s.model.to_string(),
            }),
        },
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

/// The record files a configuration asks for.
pub fn record_targets(config: &Config) -> RecordTargets {
    let o = &config.outputs;
    RecordTargets {
        pgn: o.pgn.clone(),
        sgf: o.sgf.clone(),
        msg: o.msg.clone(),
        psq: o.psq.clone().map(|dir| PsqTarget {
            dir,
            shard: config.cluster.shard,
        }),
        sample: o.sample.clone(),
        seed: config.seed.get(),
        renlib: o.renlib.clone(),
        fingerprint: fingerprint(config),
    }
}

impl Outputs {
    /// Open every output (and the log directory) before the first game. `journal` is the
    /// journal already chosen (a resumed one), or `None` to open the configured one.
    pub fn open(config: &Config, resumed: Option<PathBuf>) -> Result<Outputs, RunError> {
        let o = &config.outputs;
        if o.log != crate::config::LogLevel::Off {
            prepare_dir(&o.log_dir, &o.log_dir)?;
        }
        // The record paths first: the default journal goes next to `-pgn`/`-sgf`/`-msg`, so a
        // parent that is a file must be reported under the path the user gave, not under the
        // journal's name derived from it.
        for p in [&o.pgn, &o.sgf, &o.msg].into_iter().flatten() {
            prepare_parent(p)?;
        }
        let mut fresh_journal = None;
        let journal = match resumed {
            Some(p) => Some(Sink::open(&p)?),
            None => match &o.journal {
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
    pub fn write_header(&mut self, h: &JournalHeader) -> Result<(), RunError> {
        match &mut self.journal {
            Some(j) => j.append(journal::render_header(h).as_bytes()),
            None => Ok(()),
        }
    }

    /// Append one finished game: the journal first (with the records' sizes before the game),
    /// then the other records when `records` says so. A failed write is returned: the run stops,
    /// and what is on disk is what `-resume` continues from (a journal line is whole or absent;
    /// a game in the journal whose records were cut is completed on resume).
    pub fn save(&mut self, r: &GameRecord, records: Records) -> Result<(), RunError> {
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

    /// Close what needs closing (the samples writer's last frame).
    pub fn finish(&mut self) {
        self.records.finish();
    }
}

/// The identity of a run: what decides its games (not where its outputs go), so a journal can
/// tell whether two runs may be mixed. A resumed run keeps the identity its journal was started
/// with (`Config::run_identity`), whichever build computed it.
pub fn fingerprint(config: &Config) -> String {
    config
        .run_identity
        .clone()
        .unwrap_or_else(|| identity(config))
}

/// The settings that make a run's identity, one canonical JSON object (fields in declaration
/// order, the time control in its `tc=` form), hashed with SHA-256: the same value from every
/// build on every machine, so shards of a cluster running different builds, or a run resumed
/// after an upgrade, still find each other. Left out: engine names (resolved from the engines),
/// the shard, and the seed where it decides nothing (a sequential opening order), so shards of
/// one run, each with its own seed, share it.
#[derive(Serialize)]
struct Identity<'a> {
    engines: Vec<EngineIdentity<'a>>,
    rule: u8,
    size: u8,
    tournament: &'static str,
    games: u64,
    rounds: u64,
    repeat: bool,
    draw_after: usize,
    swap: Option<&'static str>,
    openings: Option<OpeningIdentity>,
}

#[derive(Serialize)]
struct EngineIdentity<'a> {
    cmd: &'a str,
    tc: String,
    depth: Option<u64>,
    nodes: Option<u64>,
    options: &'a [(String, String)],
}

#[derive(Serialize)]
struct OpeningIdentity {
    file: String,
    /// Only for a random order.
    seed: Option<u64>,
    transform: bool,
    order: &'static str,
    /// `psq` or `psq moves=N` (how many stones of each record make the opening); other
    /// formats, which do not change the games, none.
    psq: Option<String>,
}

/// The identity computed from the settings (see [`Identity`]): 32 hex digits.
pub fn identity(config: &Config) -> String {
    use crate::opening::OpeningFormat;
    let (t, g) = (&config.tournament, &config.game);
    let id = Identity {
        engines: t
            .engines
            .iter()
            .map(|e| EngineIdentity {
                cmd: &e.cmd,
                tc: e.tc.to_string(),
                depth: e.depth,
                nodes: e.nodes,
                options: &e.options,
            })
            .collect(),
        rule: g.rule.code(),
        size: g.size.get(),
        tournament: match t.kind {
            TournamentKind::RoundRobin => "round_robin",
            TournamentKind::Gauntlet => "gauntlet",
        },
        games: t.games,
        rounds: t.rounds,
        repeat: t.repeat == crate::schedule::Repeat::Twice,
        draw_after: g.draw_after,
        swap: t.swap.map(|s| s.name()),
        openings: t.openings.as_ref().map(|o| OpeningIdentity {
            file: o.file.display().to_string(),
            seed: (o.order == DrawOrder::Random).then_some(config.seed.get()),
            transform: o.transform,
            order: match o.order {
                DrawOrder::Sequential => "sequential",
                DrawOrder::Random => "random",
            },
            psq: matches!(o.format, OpeningFormat::Psq { .. }).then(|| o.format.to_string()),
        }),
    };
    let text = serde_json::to_string(&id).unwrap_or_default();
    sha2::Sha256::digest(text.as_bytes())[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The identity as builds before the SHA-256 one computed it (std's `DefaultHasher` over
/// `Debug` text, which Rust does not promise to keep): only to find and accept journals they
/// wrote; it matches when this build's std hashes as theirs did.
pub fn legacy_identity(config: &Config) -> String {
    use std::hash::{Hash, Hasher};
    let (t, g) = (&config.tournament, &config.game);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for e in &t.engines {
        e.cmd.hash(&mut h);
        format!("{:?}", e.tc).hash(&mut h);
        e.depth.hash(&mut h);
        e.nodes.hash(&mut h);
        e.options.hash(&mut h);
    }
    g.rule.code().hash(&mut h);
    g.size.get().hash(&mut h);
    t.games.hash(&mut h);
    t.rounds.hash(&mut h);
    format!("{:?}{:?}", t.kind, t.repeat).hash(&mut h);
    g.draw_after.hash(&mut h);
    if let Some(swap) = t.swap {
        swap.name().hash(&mut h);
    }
    if let Some(o) = &t.openings {
        o.file.hash(&mut h);
        if o.order == DrawOrder::Random {
            config.seed.get().hash(&mut h);
        }
        o.transform.hash(&mut h);
        format!("{:?}", o.order(config.seed)).hash(&mut h);
        if let crate::opening::OpeningFormat::Psq { moves } = o.format {
            moves.hash(&mut h);
        }
    }
    format!("{:016x}", h.finish())
}

/// The `-log` files, one per slot, opened before the first game so a path that cannot be used
/// stops the run at once.
pub struct LogFiles {
    files: HashMap<usize, (std::io::BufWriter<std::fs::File>, PathBuf)>,
}

impl LogFiles {
    pub fn open(
        dir: &Path,
        slots: usize,
        shard: Option<crate::shard::Shard>,
    ) -> Result<LogFiles, RunError> {
        let mut files = HashMap::new();
        for slot in 0..slots {
            let mut path = dir.join(format!("gomoku-cli.{}.log", slot + 1));
            if let Some(s) = shard {
                path = s.output_name(&path);
            }
            let f = open_append(&path)?;
            files.insert(slot, (std::io::BufWriter::new(f), path));
        }
        Ok(LogFiles { files })
    }

    /// Write the log events until every sender is gone; timestamps are seconds since `start`.
    pub async fn run(mut self, mut rx: mpsc::UnboundedReceiver<LogEvent>, start: Instant) {
        while let Some(ev) = rx.recv().await {
            let Some((w, path)) = self.files.get_mut(&ev.slot) else {
                continue;
            };
            let arrow = match ev.direction {
                Direction::ToEngine => "<",
                Direction::FromEngine => ">",
                Direction::Stderr => "!",
                Direction::Note => "#",
            };
            let t = ev.at.saturating_duration_since(start);
            let line = format!(
                "[{:>10.3}] {} {} {}",
                t.as_secs_f64(),
                ev.engine,
                arrow,
                ev.text
            );
            if let Err(e) = writeln!(w, "{line}") {
                eprintln!("warning: protocol log {}: {e}", path.display());
            }
            // Flush when the channel is momentarily empty: cheap batching off the hot path.
            if rx.is_empty() {
                self.flush();
            }
        }
        self.flush();
    }

    fn flush(&mut self) {
        for (w, path) in self.files.values_mut() {
            if let Err(e) = w.flush() {
                eprintln!("warning: protocol log {}: {e}", path.display());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(args: &str) -> Config {
        crate::config::config_in(args, &[("PATH", "/usr/bin:/bin")]).unwrap()
    }

    const RUN: &str = "-engine cmd=cat tc=10/0.5 -engine cmd=sh option.K=3 \
        -each tc=5+0.1 -games 8 -rounds 2 -repeat -rule 4 -boardsize 15 -drawafter 200";

    #[test]
    fn the_identity_is_pinned_across_builds() {
        // The value every build must compute for this run: a change here is a change of what
        // "the same run" means, and journals of older builds would no longer be found. Checked
        // outside Rust: SHA-256 (first 16 bytes) of the compact JSON
        // {"engines":[{"cmd":"cat","tc":"10/0.5","depth":null,"nodes":null,"options":[]},
        // {"cmd":"sh","tc":"5+0.1","depth":null,"nodes":null,"options":[["K","3"]]}],"rule":4,
        // "size":15,"tournament":"round_robin","games":8,"rounds":2,"repeat":true,
        // "draw_after":200,"swap":null,"openings":null} with Python's hashlib.
        let id = identity(&config(RUN));
        assert_eq!(id, "b58f62b8bd058058157426421ca3892c");
        assert_eq!(fingerprint(&config(RUN)), id);
    }

    #[test]
    fn the_identity_follows_what_decides_the_games_only() {
        let base = identity(&config(RUN));
        for other in [
            RUN.replace("-games 8", "-games 9"),
            RUN.replace("-rule 4", "-rule 0"),
            RUN.replace("option.K=3", "option.K=4"),
            RUN.replace("tc=10/0.5", "tc=10/0.6"),
            RUN.replace(" -repeat", ""),
        ] {
            assert_ne!(identity(&config(&other)), base, "{other}");
        }
        for same in [
            format!("{RUN} -concurrency 4 -pgn x.pgn -quiet"),
            format!("{RUN} -journal j.jsonl -shard 2/4"),
        ] {
            assert_eq!(identity(&config(&same)), base, "{same}");
        }
    }

    #[test]
    fn a_resumed_run_keeps_the_identity_it_started_with() {
        let mut c = config(RUN);
        c.run_identity = Some("0123456789abcdef".into());
        assert_eq!(fingerprint(&c), "0123456789abcdef");
        assert_eq!(record_targets(&c).fingerprint, "0123456789abcdef");
        assert_eq!(header(&c, &[], 8).fingerprint, "0123456789abcdef");
    }

    #[test]
    fn a_file_in_the_way_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("A");
        std::fs::write(&a, "x").unwrap();
        let err = prepare_parent(&a.join("B.pgn")).unwrap_err().to_string();
        assert!(
            err.contains("A/B.pgn") && err.contains("is a file"),
            "{err}"
        );
        assert!(!err.contains("File exists"), "{err}");
        // Missing directories are created.
        let deep = dir.path().join("x/y/z.sgf");
        prepare_parent(&deep).unwrap();
        assert!(dir.path().join("x/y").is_dir());
    }

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
        assert!(matches!(err, RunError::JournalExists { .. }), "{err}");
        // An empty file (touched beforehand) is fine.
        let empty = dir.path().join("empty.jsonl");
        std::fs::write(&empty, "").unwrap();
        assert!(open_journal(&JournalTarget::Named(empty)).is_ok());
    }
}
