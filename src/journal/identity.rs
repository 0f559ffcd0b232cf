//! A run's journal header and its identity: what decides its games, so a journal tells whether
//! two runs may be mixed (shards, `-resume`, `merge`) and readers never guess.

use std::path::Path;

use serde::Serialize;
use sha2::Digest;

use crate::config::{Config, DrawOrder};
use crate::schedule::TournamentKind;

use super::{EngineSettings, JournalHeader, OpeningSettings, RunSettings, SprtSettings};

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
    let engines = config
        .tournament
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
    let openings = config
        .tournament
        .openings
        .as_ref()
        .map(|o| OpeningSettings {
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
        kind: super::HEADER_KIND.into(),
        format: super::FORMAT,
        program: format!("gomoku-cli {}", env!("CARGO_PKG_VERSION")),
        fingerprint: fingerprint(config),
        started: chrono::Utc::now().to_rfc3339(),
        command_line: std::env::args().skip(1).collect(),
        settings: RunSettings {
            engines,
            rule: config.game.rule.code(),
            size: config.game.size.get(),
            tournament: match config.tournament.kind {
                TournamentKind::RoundRobin => "round_robin".into(),
                TournamentKind::Gauntlet => "gauntlet".into(),
            },
            games: config.tournament.games,
            rounds: config.tournament.rounds,
            repeat: config.tournament.repeat == crate::schedule::Repeat::Twice,
            total_games,
            draw_after: config.game.draw_after,
            send_by_board: config.game.send_by_board,
            openings,
            seed: config.seed.get(),
            shard: config.cluster.shard,
            swap: config.tournament.swap.map(|s| s.name().to_string()),
            colours: match config.tournament.colours {
                crate::config::ColourRule::FirstToMove => Some("first_to_move".into()),
                crate::config::ColourRule::FirstBlack => None,
            },
            adjudication: adjudication_text(config),
            tune: config
                .tune
                .as_ref()
                .map(|t| t.setup.settings(config.seed.get())),
            sprt: config.tournament.sprt.map(|s| SprtSettings {
                elo0: s.elo0,
                elo1: s.elo1,
                alpha: s.alpha,
                beta: s.beta,
                model: s.model.to_string(),
            }),
        },
    }
}

/// The run's `-draw`/`-resign` rules as the header and the identity keep them, none when off.
fn adjudication_text(config: &Config) -> Option<String> {
    let a = config.game.adjudication;
    a.is_on().then(|| a.to_string())
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
    /// `-draw`/`-resign` in their command-line form; left out when off, so the identity of a run
    /// without them is the one earlier builds computed.
    #[serde(skip_serializing_if = "Option::is_none")]
    adjudication: Option<String>,
    /// `tune`: its parameters, SPSA settings and seed; left out for a match.
    #[serde(skip_serializing_if = "Option::is_none")]
    tune: Option<super::TuneSettings>,
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
    let id = Identity {
        engines: config
            .tournament
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
        rule: config.game.rule.code(),
        size: config.game.size.get(),
        tournament: match config.tournament.kind {
            TournamentKind::RoundRobin => "round_robin",
            TournamentKind::Gauntlet => "gauntlet",
        },
        games: config.tournament.games,
        rounds: config.tournament.rounds,
        repeat: config.tournament.repeat == crate::schedule::Repeat::Twice,
        draw_after: config.game.draw_after,
        swap: config.tournament.swap.map(|s| s.name()),
        openings: config
            .tournament
            .openings
            .as_ref()
            .map(|o| OpeningIdentity {
                file: o.file.display().to_string(),
                seed: (o.order == DrawOrder::Random).then_some(config.seed.get()),
                transform: o.transform,
                order: match o.order {
                    DrawOrder::Sequential => "sequential",
                    DrawOrder::Random => "random",
                },
                psq: matches!(o.format, OpeningFormat::Psq { .. }).then(|| o.format.to_string()),
            }),
        adjudication: adjudication_text(config),
        tune: config
            .tune
            .as_ref()
            .map(|t| t.setup.settings(config.seed.get())),
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
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for e in &config.tournament.engines {
        e.cmd.hash(&mut h);
        format!("{:?}", e.tc).hash(&mut h);
        e.depth.hash(&mut h);
        e.nodes.hash(&mut h);
        e.options.hash(&mut h);
    }
    config.game.rule.code().hash(&mut h);
    config.game.size.get().hash(&mut h);
    config.tournament.games.hash(&mut h);
    config.tournament.rounds.hash(&mut h);
    format!("{:?}{:?}", config.tournament.kind, config.tournament.repeat).hash(&mut h);
    config.game.draw_after.hash(&mut h);
    if let Some(swap) = config.tournament.swap {
        swap.name().hash(&mut h);
    }
    if let Some(o) = &config.tournament.openings {
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
        assert_eq!(
            crate::outputs::record_targets(&c).fingerprint,
            "0123456789abcdef"
        );
        assert_eq!(header(&c, &[], 8).fingerprint, "0123456789abcdef");
    }
}
