//! The checked run configuration: built once from the raw command line, so every later stage works
//! with valid values only. All user-facing validation of options lives here.

use std::path::PathBuf;
use std::time::Duration;

pub mod engines;
pub mod env;
pub mod error;
pub mod groups;
pub mod identity;
pub mod matches;
pub mod named;
pub mod outputs;
pub mod run_file;
pub mod staged;

use crate::cli::{Opt, RawCli};
use crate::config::engines::engines_of;
use crate::config::env::Env;
use crate::config::error::{bad, parse_u64, secs_or, ConfigError};
use crate::config::matches::{
    adjudication_of, board_of, draw_after_of, openings_of, parse_cpus, shard_of, sprt_option,
    startup_timeout_of, swap_of, ColourRule, DrawOrder, GameConfig, OnEngineFailure, Seed,
    SlotCpus, TournamentConfig,
};
use crate::config::outputs::{
    diagnostics_of, outputs_of, sample_of, ConsoleConfig, JournalTarget, OutputsConfig,
};
use crate::schedule::shard::{job_seed, Shard};
use crate::schedule::{checked_total, pair_count, PairSides, Repeat};

/// A new run or the continuation of one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// A new journal; never appends to another run's.
    Fresh,
    /// `-resume`: read the journal, check it is this run, play the games it lacks.
    Resume,
}

/// A run split among processes (`-shard`, a scheduler's job array).
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    /// `-shard K/N` (or a scheduler's array variables): this process plays shard K of N.
    pub shard: Option<Shard>,
    /// Where shards keep their journals (`-rundir`; the stop marker of a cluster-wide SPRT too).
    pub rundir: PathBuf,
    /// How often a shard reads the other shards' journals (`-syncinterval` seconds).
    pub sync_interval: Duration,
}

/// Everything a run needs, checked, in sections.
#[derive(Debug, Clone)]
pub struct Config {
    pub tournament: TournamentConfig,
    pub game: GameConfig,
    pub outputs: OutputsConfig,
    pub console: ConsoleConfig,
    pub cluster: ClusterConfig,
    pub seed: Seed,
    /// `-resume`: continue the run recorded in the journal instead of starting a new one.
    pub start: Start,
    /// The identity of the run this one continues (its journal header's fingerprint, set by
    /// `-resume`): kept as it was written, whichever build computed it.
    pub run_identity: Option<String>,
    /// Options accepted for compatibility that have no effect, with the reason (printed once).
    pub warnings: Vec<String>,
    /// `gomoku-cli tune`: the tuning this run is (set by the `tune` command, never by a match's
    /// command line).
    pub tune: Option<TuneConfig>,
}

/// A `tune` run: the tuning, and where its θ goes besides the console.
#[derive(Debug, Clone)]
pub struct TuneConfig {
    pub setup: crate::tune::TuneSetup,
    /// `-params FILE`: the parameter file read (no output may overwrite it).
    pub params_file: PathBuf,
    /// The trajectory as CSV, rewritten every `every` iterations and at the end.
    pub csv: Option<PathBuf>,
    /// θ in the parameter file's own format, rewritten with the CSV.
    pub params_out: Option<PathBuf>,
    /// θ as `INFO name value` lines, rewritten with the CSV.
    pub info_out: Option<PathBuf>,
}

/// Shards: the shard from `-shard` or the scheduler; its journal in the run directory, its other
/// outputs and logs tagged with it, and one seed for all shards.
fn apply_shard(mut c: Config, raw: &RawCli, env: &Env) -> Result<Config, ConfigError> {
    let Some(shard) = shard_of(raw, env)? else {
        return Ok(c);
    };
    c.cluster.shard = Some(shard);
    if let Seed::Fresh(_) = c.seed {
        match env.var("SLURM_ARRAY_JOB_ID").map(str::trim) {
            Some(id) if !id.is_empty() => c.seed.adopt(job_seed(id)),
            _ if c
                .tournament
                .openings
                .as_ref()
                .is_some_and(|o| o.order == DrawOrder::Random)
                || c.tournament.placed_by_seed() =>
            {
                return Err(ConfigError::ShardSeed)
            }
            _ => {}
        }
    }
    let out = &mut c.outputs;
    if raw.value(Opt::RunDir).is_none() {
        if let Some(JournalTarget::Named(p)) = &out.journal {
            c.cluster.rundir = p.parent().map(PathBuf::from).unwrap_or_default();
        }
    }
    if let Some(given) = &out.journal {
        let path = shard.journal_in(&c.cluster.rundir);
        // A shard's journal is named by the shard in the run directory, so that the shards of a
        // run find each other: say so when that replaces the name given.
        if let JournalTarget::Named(p) = given {
            if *p != path {
                c.warnings.push(format!(
                    "-journal {}: shard {shard} writes its journal as {} (named by the shard, in the run directory, so the shards of the run find each other's games)",
                    p.display(),
                    path.display()
                ));
            }
        }
        out.journal = Some(JournalTarget::Named(path));
    }
    for p in [
        &mut out.pgn,
        &mut out.sgf,
        &mut out.msg,
        &mut out.renlib,
        &mut out.report,
    ]
    .into_iter()
    .flatten()
    {
        *p = shard.output_name(p);
    }
    if let Some(s) = &mut out.sample {
        s.file = shard.output_name(&s.file);
    }
    Ok(c)
}

/// The league of a command line (see [`groups_of`]), its engines' settings read for the
/// promoted file only when it is one.
fn groups_of_command_line(
    raw: &RawCli,
    env: &Env,
    engines: &[crate::engine::spec::EngineSpec],
    warnings: &mut Vec<String>,
) -> Result<Option<groups::GroupsConfig>, ConfigError> {
    use crate::config::engines::{engine_lists, engines_file};
    let (lists, file) = match raw.value(Opt::Tournament) {
        Some("groups") => (
            engine_lists(raw, env)?,
            engines_file(raw, env)?.map(|f| f.path),
        ),
        _ => (Vec::new(), None),
    };
    groups::groups_of(raw, engines, lists, file, warnings)
}

/// A shard sees its own games only: it cannot say who is promoted.
fn check_groups_shard(config: &Config) -> Result<(), ConfigError> {
    let promoted = (config.tournament.groups.as_ref()).and_then(|g| g.promoted.as_ref());
    match (config.cluster.shard, promoted) {
        (Some(shard), Some(p)) => Err(ConfigError::Groups(format!(
            "promoted={}: shard {shard} sees its own games only; leave promoted= out of the shards and read the promotion of the whole run in its report (gomoku-cli report RUNDIR)",
            p.display()
        ))),
        _ => Ok(()),
    }
}

/// `-resume` and `-report` read the journal: refused with `-journal off`.
fn check_journal_needed(c: &Config) -> Result<(), ConfigError> {
    match (&c.outputs.journal, c.start, &c.outputs.report) {
        (Some(_), _, _) => Ok(()),
        (None, Start::Resume, _) => Err(ConfigError::ResumeWithoutJournal),
        (None, _, Some(_)) => Err(ConfigError::ReportWithoutJournal),
        (None, Start::Fresh, None) => Ok(()),
    }
}

/// `-ponder`, given to every engine (refused with `-suspend`, which stops the engine not on move).
fn ponder_of(raw: &RawCli, engines: &mut [crate::engine::EngineSpec]) -> Result<bool, ConfigError> {
    let ponder = raw.flag(Opt::Ponder);
    if ponder && raw.flag(Opt::Suspend) {
        return Err(ConfigError::PonderSuspended);
    }
    engines.iter_mut().for_each(|e| e.ponder = ponder);
    Ok(ponder)
}

/// The warning when the engines' caps let fewer games run at once than there are slots.
fn idle_slots(t: &TournamentConfig) -> Option<String> {
    let most = t.most_at_once().filter(|&m| m < t.concurrency as u64)?;
    Some(format!(
        "-concurrency {}: the engines' slots= caps{ponder} let at most {most} game{s} run at once; \
         the other slots wait",
        t.concurrency,
        ponder = if t.ponder { " (one each with -ponder)" } else { "" },
        s = if most == 1 { "" } else { "s" },
    ))
}

impl Config {
    /// Check every value of the raw command line; `env` is the process environment.
    pub fn from_raw(raw: &RawCli, env: &Env) -> Result<Config, ConfigError> {
        let mut warnings = Vec::new();
        let mut engines = engines_of(raw, env)?;
        if engines.len() < 2 {
            return Err(ConfigError::TooFewEngines(engines.len()));
        }

        let value_u64 = |opt: Opt, default: u64, min: u64| -> Result<u64, ConfigError> {
            raw.value(opt)
                .map(|v| parse_u64(opt, v, min))
                .unwrap_or(Ok(default))
        };
        let concurrency = value_u64(Opt::Concurrency, 1, 1)? as usize;
        let slot_cpus = match raw.value(Opt::Cpus) {
            Some(v) => parse_cpus(v, concurrency).map_err(|why| bad(Opt::Cpus, v, why))?,
            None => SlotCpus::Anywhere,
        };
        let games = value_u64(Opt::Games, 1, 1)?;
        let rounds = value_u64(Opt::Rounds, 1, 1)?;
        let (size, rule) = board_of(raw)?;
        let draw_after = draw_after_of(raw)?;
        let startup_timeout = startup_timeout_of(raw)?;
        let rating_interval = value_u64(Opt::RatingInterval, 10, 0)?;
        let (openings, seed) = openings_of(raw)?;
        if raw.openings.is_none() && raw.flag(Opt::Transform) {
            warnings.push("-transform has no effect without -openings".into());
        }
        let sprt = sprt_option(raw, engines.len())?;
        let sample = sample_of(raw, size, rule)?;
        // -sample multipv=N asks every engine for its N best moves (YXNBEST).
        let nbest = sample.as_ref().and_then(|s| s.multipv);
        engines.iter_mut().for_each(|e| e.nbest = nbest);
        let ponder = ponder_of(raw, &mut engines)?;
        let counts = (engines.len(), games, rounds);
        let (seed, format) = staged::format_and_seed(raw, counts, seed, &mut warnings)?;
        let (kind, seeds, lose_only) = (format.kind, format.seeds, format.lose_only);
        let groups = groups_of_command_line(raw, env, &engines, &mut warnings)?;
        if checked_total(engines.len(), kind, games, rounds).is_none() {
            return Err(ConfigError::TooManyGames {
                games,
                rounds,
                pairs: pair_count(engines.len(), kind).unwrap_or(u64::MAX),
            });
        }
        let sync_interval = secs_or(raw, Opt::SyncInterval, 2.0)?;
        let swap = swap_of(raw)?;
        let tournament = TournamentConfig {
            engines,
            kind,
            seeds,
            games,
            rounds,
            repeat: match raw.flag(Opt::Repeat) {
                true => Repeat::Twice,
                false => Repeat::Once,
            },
            sides: PairSides {
                noswap: raw.flag(Opt::NoSwap),
                reverse: raw.flag(Opt::Reverse),
            },
            lose_only,
            concurrency,
            slot_cpus,
            openings,
            swap,
            // With a swap opening the engines choose the colours; the first engine proposes.
            colours: match swap {
                Some(_) => ColourRule::FirstBlack,
                None => ColourRule::FirstToMove,
            },
            sprt,
            on_failure: match raw.flag(Opt::FatalError) {
                true => OnEngineFailure::Stop,
                false => OnEngineFailure::Continue,
            },
            startup_timeout,
            suspend: raw.flag(Opt::Suspend),
            wait: Duration::from_millis(value_u64(Opt::Wait, 0, 0)?),
            groups,
            ponder,
        };
        warnings.extend(idle_slots(&tournament));
        let config = Config {
            tournament,
            game: GameConfig {
                rule,
                size,
                draw_after,
                adjudication: adjudication_of(raw)?,
                send_by_board: raw.flag(Opt::SendByBoard),
            },
            outputs: outputs_of(raw, sample)?,
            console: ConsoleConfig {
                progress: !raw.flag(Opt::NoProgress),
                quiet: raw.flag(Opt::Quiet),
                rating_interval,
                diagnostics: diagnostics_of(raw, env),
            },
            cluster: ClusterConfig {
                shard: None,
                rundir: raw
                    .value(Opt::RunDir)
                    .map(PathBuf::from)
                    .unwrap_or_default(),
                sync_interval,
            },
            seed,
            start: match raw.flag(Opt::Resume) {
                true => Start::Resume,
                false => Start::Fresh,
            },
            run_identity: None,
            warnings,
            tune: None,
        };
        check_journal_needed(&config)?;
        let config = apply_shard(config, raw, env)?;
        check_groups_shard(&config)?;
        Ok(config)
    }
}

/// The configuration of a command line written as one string, in an environment of `vars` only
/// (for tests).
#[cfg(test)]
pub(crate) fn config_in(args: &str, vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let args: Vec<String> = args.split_whitespace().map(String::from).collect();
    let env = vars.iter().map(|(k, v)| (k.to_string(), v.into()));
    Config::from_raw(
        &crate::cli::parse_legacy(&args).unwrap(),
        &Env(env.collect()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::num::NonZeroU32;

    use crate::config::engines::OneEngine;
    use crate::config::matches::share_cpus;
    use crate::core::rules::Rule;
    use crate::core::swap::SwapRule;
    use crate::engine::spec::TimeControl;
    use crate::formats::openings::order::OpeningOrder;
    use crate::formats::openings::OpeningFormat;
    use crate::game::adjudicate::{Adjudication, DrawRule, ResignRule, Sides};

    fn config(args: &str) -> Result<Config, ConfigError> {
        config_in(args, &[])
    }

    /// The configuration of two `/bin/sh` engines and the options `extra`.
    fn two_engines(extra: &str) -> Result<Config, ConfigError> {
        config(&format!("-engine cmd=/bin/sh -engine cmd=/bin/sh {extra}"))
    }

    #[test]
    fn cpus_are_split_among_the_slots() {
        let listed = |shares: Vec<Vec<usize>>| Ok(SlotCpus::Listed(shares));
        assert_eq!(parse_cpus("0-3", 2), listed(vec![vec![0, 1], vec![2, 3]]));
        assert_eq!(
            parse_cpus("0,2, 4-5,7", 2),
            listed(vec![vec![0, 2], vec![4, 5]])
        );
        assert_eq!(parse_cpus("3", 1), listed(vec![vec![3]]));
        // `auto` is resolved when the run starts, against the CPUs it may use then.
        assert_eq!(parse_cpus("auto", 64), Ok(SlotCpus::Auto));
        assert_eq!(parse_cpus(" AUTO", 1), Ok(SlotCpus::Auto));
        assert_eq!(
            share_cpus(&[4, 5, 6], 3),
            Ok(vec![vec![4], vec![5], vec![6]])
        );
        // Fewer CPUs than slots: the slots take them in turn.
        assert_eq!(
            share_cpus(&[4, 5, 6], 5),
            Ok(vec![vec![4], vec![5], vec![6], vec![4], vec![5]])
        );
        assert_eq!(
            parse_cpus("0-1", 3),
            listed(vec![vec![0], vec![1], vec![0]])
        );
        assert!(share_cpus(&[], 1).is_err());
        assert!(parse_cpus("0,0", 1).unwrap_err().contains("listed twice"));
        assert!(parse_cpus("3-1", 1).is_err());
        assert!(parse_cpus("x", 1)
            .unwrap_err()
            .contains("\"x\" is not a CPU number"));
    }

    #[test]
    fn per_engine_values_win_over_each_in_any_order() {
        let c = config(
            "-each maxmemory=1 tolerance=7 tc=10 -engine cmd=/bin/sh maxmemory=2 tolerance=0.5 \
             -engine cmd=/bin/sh -each depth=3",
        )
        .unwrap();
        assert_eq!(c.tournament.engines[0].max_memory, 2);
        assert_eq!(
            c.tournament.engines[0].tolerance,
            Duration::from_millis(500)
        );
        assert_eq!(c.tournament.engines[1].max_memory, 1);
        assert_eq!(c.tournament.engines[1].tolerance, Duration::from_secs(7));
        // -each given after the engines still applies to both.
        assert_eq!(c.tournament.engines[0].depth, Some(3));
        assert_eq!(
            c.tournament.engines[1].tc.turn_time,
            Some(Duration::from_secs(10))
        );
    }

    #[test]
    fn game_counts_past_a_64_bit_game_number_are_refused() {
        let two = "-engine cmd=/bin/sh -engine cmd=/bin/sh";
        let c = config(&format!("{two} -games 4294967296")).unwrap();
        assert_eq!(c.tournament.games, 1 << 32);
        let c = config(&format!("{two} -games 18446744073709551615")).unwrap();
        assert_eq!(c.tournament.games, u64::MAX);
        let e = config(&format!("{two} -games 4294967296 -rounds 4294967296")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "-games 4294967296 x -rounds 4294967296 x 1 engine pair(s) is more than \
             18446744073709551615 games (the largest game number): lower -games or -rounds"
        );
        // Three engines meet in three pairs.
        let e = config(&format!(
            "{two} -engine cmd=/bin/sh -games 9223372036854775807"
        ))
        .unwrap_err();
        assert!(e.to_string().contains("x 3 engine pair(s)"), "{e}");
    }

    #[test]
    fn bad_values_are_named() {
        let e = two_engines("-games x").unwrap_err();
        assert!(
            e.to_string().contains("-games") && e.to_string().contains("\"x\""),
            "{e}"
        );
        let e = two_engines("-sprt elo0=5").unwrap_err();
        assert!(e.to_string().contains("elo1"), "{e}");
        let e = two_engines("-sprt elo0=5 elo1=1").unwrap_err();
        assert!(e.to_string().contains("elo0"), "{e}");
        let e = two_engines("-engine cmd=/bin/sh -sprt elo1=5").unwrap_err();
        assert!(matches!(e, ConfigError::SprtNeedsTwoEngines(3)));
        let e = two_engines("-rule 8 -sample format=bin").unwrap_err();
        assert!(e.to_string().contains("-sample"), "{e}");
        let e = two_engines("-engine foo=1").unwrap_err();
        assert!(matches!(e, ConfigError::UnknownKey { .. }));
        let e = two_engines("-openings type=pos").unwrap_err();
        assert!(matches!(e, ConfigError::OpeningsWithoutFile));
    }

    #[test]
    fn draw_and_resign_read_both_syntaxes_into_rules() {
        let rules = |extra: &str| two_engines(extra).unwrap().game.adjudication;
        let n = |k| NonZeroU32::new(k).unwrap();
        assert!(!rules("").is_on());
        let old = rules("-draw 8 20 -resign 3 400");
        let new = rules("-draw movecount=8 score=20 -resign score=400 movecount=3");
        assert_eq!(old, new);
        let draw = DrawRule {
            from_move: 0,
            moves: n(8),
            score: 20,
        };
        let resign = ResignRule {
            moves: n(3),
            score: 400,
            sides: Sides::One,
        };
        assert_eq!(
            new,
            Adjudication {
                draw: Some(draw),
                resign: Some(resign),
                mate: None
            }
        );
        let a = rules("-draw movenumber=40 movecount=4 score=5 -resign movecount=2 score=9 twosided=true mate=3");
        assert_eq!(a.draw.unwrap().from_move, 40);
        assert_eq!(a.resign.unwrap().sides, Sides::Both);
        assert_eq!(a.mate, Some(n(3)));
        let mate_only = rules("-resign mate=2");
        assert_eq!((mate_only.resign, mate_only.mate), (None, Some(n(2))));
    }

    #[test]
    fn bad_draw_and_resign_values_are_refused_naming_option_and_value() {
        let e = |extra: &str| two_engines(extra).unwrap_err().to_string();
        assert_eq!(
            e("-draw 0 20"),
            "-draw: \"0\" is not valid: movecount= must be a whole number from 1 to 4294967295"
        );
        assert_eq!(
            e("-resign 3 -400"),
            "-resign: \"-400\" is not valid: score= must be a whole number from 0 to 4294967295"
        );
        assert_eq!(
            e("-resign movecount=3"),
            "-resign: \"movecount=3\" is not valid: needs movecount= and score="
        );
        assert_eq!(
            e("-resign movecount=3 score=1 twosided=yes"),
            "-resign: \"yes\" is not valid: twosided= must be true or false"
        );
        assert!(e("-draw count=3").starts_with("-draw: unknown key \"count\""));
        assert!(e("-resign mate=0").contains("mate= must be a whole number from 1 to 4294967295"));
        assert_eq!(
            e("-resign movecount=99999999999999999999 score=3"),
            "-resign: \"99999999999999999999\" is not valid: movecount= must be a whole number \
             from 1 to 4294967295"
        );
        assert!(e("-draw movenumber=x movecount=1 score=1").contains("\"x\""));
    }

    #[test]
    fn numbers_past_their_type_are_refused_with_the_range_not_truncated() {
        let e = |extra: &str| two_engines(extra).unwrap_err().to_string();
        // 2^32 + 1 threads once became 1, a board of 2^32 + 15 a 15x15 one.
        assert_eq!(
            e("-each thread=4294967297"),
            "-each: \"thread=4294967297\" is not valid: expected a whole number from 1 to 4294967295"
        );
        assert_eq!(
            e("-boardsize 4294967311"),
            "-boardsize: \"4294967311\" is not valid: expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            e("-games 18446744073709551616"),
            "-games: \"18446744073709551616\" is not valid: expected a whole number from 1 to \
             18446744073709551615"
        );
        assert!(e("-openings file=o.txt srand=-1")
            .ends_with("srand= must be a whole number from 0 to 18446744073709551615"));
    }

    #[test]
    fn values_that_would_spoil_every_game_are_refused_naming_what_is_wrong() {
        let e = |extra: &str| two_engines(extra).unwrap_err().to_string();
        assert_eq!(
            e("-each maxmemory=-1"),
            "-each: \"maxmemory=-1\" is not valid: expected a whole number from 0 to \
             18446744073709551615"
        );
        assert_eq!(
            e("-sprt elo0=1"),
            "-sprt: \"elo0=1\" is not valid: elo1= is required"
        );
        assert!(e("-startuptimeout 0")
            .starts_with("-startuptimeout: \"0\" is not valid: must be more than 0"));
        assert!(e("-drawafter -1").starts_with("-drawafter: \"-1\" is not valid: must be 0 (off)"));
        assert!(e("-boardsize 20 -renlib a.lib").starts_with(
            "-renlib: a RenLib library holds 15x15 games only, and this run plays on 20x20"
        ));
        // What stays accepted: 0 is the predecessor's "off", a tiny start-up time, 15x15 archives.
        assert_eq!(two_engines("-drawafter 0").unwrap().game.draw_after, 0);
        assert!(two_engines("-startuptimeout 0.001").is_ok());
        assert!(two_engines("-renlib a.lib").is_ok());
    }

    #[test]
    fn psq_openings_take_moves() {
        let c = two_engines("-openings moves=4 file=g.psq type=psq").unwrap();
        let o = c.tournament.openings.unwrap();
        assert_eq!(o.format, OpeningFormat::Psq { moves: Some(4) });
        let c = two_engines("-openings file=g.psq type=psq").unwrap();
        assert_eq!(
            c.tournament.openings.unwrap().format,
            OpeningFormat::Psq { moves: None }
        );
        let e = two_engines("-openings file=o.txt moves=4").unwrap_err();
        assert!(e.to_string().contains("type=psq"), "{e}");
        let e = two_engines("-openings file=g type=psq moves=0").unwrap_err();
        assert!(e.to_string().contains("from 1 to"), "{e}");
        let c = two_engines("-psq games").unwrap();
        assert_eq!(c.outputs.psq, Some(PathBuf::from("games")));
    }

    #[test]
    fn swap_flags() {
        let c = two_engines("-swap2").unwrap();
        assert_eq!(c.tournament.swap, Some(SwapRule::Swap2));
        let c = two_engines("--swap1").unwrap();
        assert_eq!(c.tournament.swap, Some(SwapRule::Swap1));
        assert_eq!(two_engines("").unwrap().tournament.swap, None);
        let e = two_engines("-swap1 -swap2").unwrap_err();
        assert!(matches!(e, ConfigError::TwoSwapRules), "{e}");
    }

    #[test]
    fn journal_is_on_by_default_next_to_other_outputs() {
        let c = two_engines("-pgn out/games.pgn").unwrap();
        let j = c.outputs.journal.unwrap();
        assert!(matches!(j, JournalTarget::Timestamped(_)));
        let j = j.path();
        assert_eq!(j.parent().unwrap(), std::path::Path::new("out"));
        assert!(j.to_string_lossy().ends_with(".journal.jsonl"));
        let c = two_engines("-journal off").unwrap();
        assert!(c.outputs.journal.is_none());
        // Never beside a device: `-pgn /dev/null` would have put it in /dev.
        let c = two_engines("-pgn /dev/null -sgf out/g.sgf").unwrap();
        let j = c.outputs.journal.unwrap();
        assert_eq!(j.path().parent().unwrap(), std::path::Path::new("out"));
        let c = two_engines("-pgn /dev/null").unwrap();
        let j = c.outputs.journal.unwrap();
        assert_eq!(j.path().parent().unwrap(), std::path::Path::new(""));
    }

    #[test]
    fn one_engine_is_read_once_with_each_under_it_and_checked() {
        let raw = |line: &str| {
            let args: Vec<String> = line.split_whitespace().map(String::from).collect();
            crate::cli::parse_legacy(&args).unwrap()
        };
        let env = Env(BTreeMap::new());
        let line = "-each tc=5/1 name=a -engine cmd=/bin/sh name=b -rule 4 -boardsize 20 -concurrency 3 -shard 2/4";
        let one = OneEngine::from_raw(&raw(line), &env).unwrap();
        assert_eq!(one.spec.name.as_deref(), Some("b"));
        assert_eq!(one.spec.tc, TimeControl::parse("5/1").unwrap());
        assert_eq!(
            (one.size.get(), one.rule, one.concurrency),
            (20, Rule::Renju, 3)
        );
        assert_eq!(one.shard, Some(Shard::parse("2/4").unwrap()));
        // Checked as a match checks its engines, and named as its first.
        let e = |line: &str| {
            OneEngine::from_raw(&raw(line), &env)
                .unwrap_err()
                .to_string()
        };
        assert!(e("-engine cmd=/nonexistent/x").starts_with("engine 1: program"));
        assert!(e("-engine cmd=/bin/sh depth=0").contains("depth=0"));
        assert!(e("-engine name=x").contains("engine 1 has no cmd="));
        assert!(e("-engine cmd=/bin/sh -startuptimeout 0").contains("-startuptimeout"));
    }

    #[test]
    fn the_environment_read_is_the_one_passed_in() {
        let base = "-engine cmd=/bin/sh -engine cmd=/bin/sh";
        let slurm = [
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_JOB_ID", "77"),
        ];
        let c = config_in(base, &slurm).unwrap();
        assert_eq!(c.cluster.shard, Some(Shard { index: 2, count: 4 }));
        assert_eq!(c.seed, Seed::Fresh(job_seed("77")));
        let c = config_in(&format!("{base} -openings file=o srand=5"), &slurm).unwrap();
        assert_eq!(c.seed, Seed::Given(5));
        assert_eq!(config(base).unwrap().cluster.shard, None);

        let filter = |args: &str, var| config_in(args, &[var]).unwrap().console.diagnostics;
        let verbose = format!("{base} -verbose");
        assert_eq!(filter(base, ("RUST_LOG", "")), None);
        assert_eq!(
            filter(&verbose, ("RUST_LOG", " ")).unwrap(),
            "gomoku_cli=debug"
        );
        assert_eq!(filter(base, ("RUST_LOG", "warn")).unwrap(), "warn");

        // A program without a slash is looked for in the PATH given.
        let bare = "-engine cmd=sh -engine cmd=sh";
        let e = config_in(bare, &[("PATH", "/nonexistent")]).unwrap_err();
        assert!(
            matches!(e, ConfigError::MissingProgram { index: 1, .. }),
            "{e}"
        );
        assert!(config_in(bare, &[("PATH", "/nonexistent:/bin")]).is_ok());
    }

    #[test]
    fn options_that_need_the_journal_are_refused_without_it() {
        let e = |extra: &str| two_engines(&format!("-journal off {extra}")).unwrap_err();
        let report = "-report is built from the journal: it cannot be used with -journal off";
        assert_eq!(e("-report r.html").to_string(), report);
        let resume = "-resume needs the journal: it cannot be used with -journal off";
        assert_eq!(e("-resume -report r.html").to_string(), resume);
        assert!(two_engines("-resume -report r.html").is_ok());
    }

    #[test]
    fn the_seed_is_held_once_and_a_given_one_is_kept() {
        let base = "-engine cmd=/bin/sh -engine cmd=/bin/sh -openings file=o order=random";
        for (extra, seed) in [(" srand=9", 9), ("", 4)] {
            let mut c = config(&format!("{base}{extra}")).unwrap();
            c.seed.adopt(4);
            let o = c.tournament.openings.as_ref().unwrap();
            assert_eq!(o.order(c.seed), OpeningOrder::Random { seed });
        }
    }
}
