//! A run's journal header read from its configuration: [`RunSettings`] is what "the same run"
//! means, built from the `Config` in one place; its identity (`formats::journal::identity`) then
//! tells whether two runs may be mixed (shards, `-resume`, `merge`).

use std::path::Path;

use crate::config::{Config, DrawOrder};
use crate::schedule::TournamentKind;

use crate::formats::journal::{
    EngineSettings, JournalHeader, OpeningSettings, RunSettings, SprtSettings,
};

/// The SHA-256 of a file's bytes in hex (empty when it cannot be read: loading it reports that).
fn file_sha256(path: &Path) -> String {
    crate::engine::package::cache::sha256_of(path).unwrap_or_default()
}

/// The journal header of a run: its settings and its identity, so readers never guess.
pub fn header(config: &Config, names: &[String], total_games: u64) -> JournalHeader {
    let settings = settings(config, names, total_games);
    JournalHeader {
        kind: crate::formats::journal::HEADER_KIND.into(),
        format: crate::formats::journal::FORMAT,
        program: format!("gomoku-cli {}", env!("CARGO_PKG_VERSION")),
        fingerprint: config
            .run_identity
            .clone()
            .unwrap_or_else(|| settings.identity()),
        started: chrono::Utc::now().to_rfc3339(),
        command_line: std::env::args().skip(1).collect(),
        settings,
    }
}

/// The run a configuration describes, the one reading of [`Config`] for "which run"; engines past
/// the end of `names` get an empty one (names come from the engines and are compared on their own).
pub fn settings(config: &Config, names: &[String], total_games: u64) -> RunSettings {
    let mut s = undigested(config, names, total_games);
    if let (Some(o), Some(file)) = (&mut s.openings, &config.tournament.openings) {
        o.sha256 = file_sha256(&file.file);
    }
    s
}

/// The identity a configuration has (see [`RunSettings::identity`]), without reading the openings
/// file: its bytes are not part of the identity (a run's start and `-resume`'s search through
/// candidate journals would hash it again for each).
pub fn identity_of(config: &Config) -> String {
    undigested(config, &[], 0).identity()
}

/// [`settings`] with the openings file's SHA-256 left empty.
fn undigested(config: &Config, names: &[String], total_games: u64) -> RunSettings {
    let (t, g, seed) = (&config.tournament, &config.game, config.seed.get());
    RunSettings {
        engines: (t.engines.iter().enumerate())
            .map(|(i, e)| EngineSettings {
                name: names.get(i).cloned().unwrap_or_default(),
                cmd: match &e.package {
                    Some(p) => format!("pkg={}", p.zip.display()),
                    None => e.cmd.clone(),
                },
                tc: e.tc.to_string(),
                depth: e.depth,
                nodes: e.nodes,
                max_memory: e.max_memory,
                threads: e.threads,
                options: e.options.clone(),
                package: e.package.as_ref().map(|p| p.sha256.clone()),
            })
            .collect(),
        rule: g.rule.code(),
        size: g.size.get(),
        tournament: match t.kind {
            TournamentKind::RoundRobin => "round_robin".into(),
            other => other.name().into(),
        },
        seeds: (t.kind == TournamentKind::Knockout).then_some(t.seeds),
        games: t.games,
        rounds: t.rounds,
        repeat: t.repeat == crate::schedule::Repeat::Twice,
        noswap: t.sides.noswap,
        reverse: t.sides.reverse,
        ponder: t.ponder,
        total_games,
        draw_after: g.draw_after,
        send_by_board: g.send_by_board,
        openings: t.openings.as_ref().map(|o| OpeningSettings {
            file: o.file.display().to_string(),
            format: o.format.to_string(),
            order: match o.order {
                DrawOrder::Sequential => "sequential".into(),
                DrawOrder::Random => "random".into(),
            },
            transform: o.transform,
            start: (o.start > 0).then_some(o.start + 1),
            sha256: String::new(),
        }),
        seed,
        shard: config.cluster.shard,
        swap: t.swap.map(|s| s.name().to_string()),
        colours: match t.colours {
            crate::config::ColourRule::FirstToMove => Some("first_to_move".into()),
            crate::config::ColourRule::FirstBlack => None,
        },
        adjudication: g.adjudication.is_on().then(|| g.adjudication.to_string()),
        tune: config.tune.as_ref().map(|tune| tune.setup.settings(seed)),
        groups: t
            .groups
            .as_ref()
            .map(|g| crate::formats::journal::GroupSettings {
                gap: g.gap,
                ratings: g.ratings.clone(),
                promote: g.promote,
                ratings_from: (g.ratings_from.as_ref())
                    .map_or(String::new(), |p| p.display().to_string()),
            }),
        sprt: t.sprt.map(|s| SprtSettings {
            elo0: s.elo0,
            elo1: s.elo1,
            alpha: s.alpha,
            beta: s.beta,
            model: s.model.to_string(),
        }),
    }
}

/// The identity of a run: what decides its games (not where its outputs go), so a journal can
/// tell whether two runs may be mixed. A resumed run keeps the identity its journal was started
/// with (`Config::run_identity`), whichever build computed it.
pub fn fingerprint(config: &Config) -> String {
    config
        .run_identity
        .clone()
        .unwrap_or_else(|| identity_of(config))
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
        if let crate::formats::openings::OpeningFormat::Psq { moves } = o.format {
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
        let id = settings(&config(RUN), &[], 0).identity();
        assert_eq!(id, "b58f62b8bd058058157426421ca3892c");
        assert_eq!(fingerprint(&config(RUN)), id);
    }

    #[test]
    fn the_identity_follows_what_decides_the_games_only() {
        let base = fingerprint(&config(RUN));
        for other in [
            RUN.replace("-games 8", "-games 9"),
            RUN.replace("-rule 4", "-rule 0"),
            RUN.replace("option.K=3", "option.K=4"),
            RUN.replace("tc=10/0.5", "tc=10/0.6"),
            RUN.replace(" -repeat", ""),
            format!("{RUN} -noswap"),
            format!("{RUN} -reverse"),
        ] {
            assert_ne!(fingerprint(&config(&other)), base, "{other}");
        }
        for same in [
            format!("{RUN} -concurrency 4 -pgn x.pgn -quiet"),
            format!("{RUN} -journal j.jsonl -shard 2/4"),
        ] {
            assert_eq!(fingerprint(&config(&same)), base, "{same}");
        }
        // An opening start= is part of the run; start=1 is the default.
        let book = fingerprint(&config(&format!("{RUN} -openings file=o.txt")));
        let at = |n: u32| fingerprint(&config(&format!("{RUN} -openings file=o.txt start={n}")));
        assert_eq!(at(1), book);
        assert_ne!(at(2), book);
    }

    #[test]
    fn a_package_is_known_by_its_hash_not_where_its_zip_lies() {
        use crate::engine::package::Package;
        let with = |zip: &str, sha256: &str| {
            let mut c = config(RUN);
            c.tournament.engines[0].package = Some(Package {
                zip: zip.into(),
                sha256: sha256.into(),
                launcher: None,
            });
            // The unpacked program's path: a cache's, which differs between users.
            c.tournament.engines[0].cmd = format!("/home/{zip}/pbrain-e.exe");
            c
        };
        let base = fingerprint(&with("a.zip", "aa"));
        assert_eq!(fingerprint(&with("b/a.zip", "aa")), base);
        assert_ne!(fingerprint(&with("a.zip", "bb")), base);
        assert_ne!(fingerprint(&config(RUN)), base);
        let e = &settings(&with("x/a.zip", "aa"), &[], 0).engines[0];
        assert_eq!(
            (e.cmd.as_str(), e.package.as_deref()),
            ("pkg=x/a.zip", Some("aa"))
        );
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

    #[test]
    fn the_identity_of_a_header_read_back_is_the_fingerprint_it_carries() {
        let mut c = config(
            "-engine cmd=cat depth=3 -engine cmd=sh nodes=9 -each tc=5+0.1 -games 2 \
             -openings file=g.psq type=psq moves=3 order=random srand=7 -draw 8 20 -resign 3 400 -swap2 -noswap -reverse",
        );
        let params = "a, int, 50, 0, 100, 5, 0.002\nb, float, 0.35, 0, 1, 0.05, 0.0025\n";
        let params = crate::tune::params::Params::parse(params, Path::new("p")).unwrap();
        let setup = crate::tune::TuneSetup {
            params,
            settings: Default::default(),
            pairs: 3,
            every: 0,
        };
        c.tune = Some(crate::config::TuneConfig {
            setup,
            params_file: "p".into(),
            csv: None,
            params_out: None,
            info_out: None,
        });
        let h = header(&c, &["x".into(), "y".into()], 6);
        let read: JournalHeader =
            serde_json::from_str(&crate::formats::journal::render_header(&h)).unwrap();
        assert_eq!(read.settings.identity(), h.fingerprint);
        assert_eq!(h.fingerprint, fingerprint(&c));
        // The seed orders the openings; the tuning is part of the run.
        let mut reseeded = read.settings;
        reseeded.seed = 8;
        assert_ne!(reseeded.identity(), h.fingerprint);
        c.tune = None;
        assert_ne!(fingerprint(&c), h.fingerprint);
    }

    #[test]
    fn a_header_edited_by_hand_no_longer_matches_its_fingerprint() {
        let h = header(&config(RUN), &["x".into(), "y".into()], 16);
        assert_eq!(h.check("j.jsonl"), Ok(()));
        let mut edited = h.clone();
        edited.settings.rule = 0;
        let e = edited.check("j.jsonl").unwrap_err();
        assert_eq!(e.claimed, h.fingerprint);
        assert!(
            e.to_string()
                .starts_with("j.jsonl: the header's settings give"),
            "{e}"
        );
        // What is not part of the identity may change (a name, the threads).
        let mut renamed = h.clone();
        renamed.settings.engines[0].name = "z".into();
        assert_eq!(renamed.check("j.jsonl"), Ok(()));
        // An older build's fingerprint cannot be recomputed: taken as it is.
        edited.fingerprint = "0123456789abcdef".into();
        assert_eq!(edited.check("j.jsonl"), Ok(()));
    }
}
