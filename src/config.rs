//! The checked run configuration: built once from the raw command line, so every later stage works
//! with valid values only. All user-facing validation of options lives here.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

use crate::board::BoardSize;
use crate::cli::{KeyValues, RawCli};
use crate::engine::spec::{EngineSpec, TimeControl, MAX_SECONDS};
use crate::opening::{OpeningFormat, OpeningOrder};
use crate::record::samples::{SampleConfig, SampleConfigError, SampleEncodeError};
use crate::rules::Rule;
use crate::schedule::{checked_total, pair_count, Repeat, TournamentKind};
use crate::shard::{job_seed, Shard, ShardError};
use crate::stats::{Sprt, SprtModel};
use crate::swap::SwapRule;

/// A value on the command line that cannot be used.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// A value that does not parse or is out of range.
    #[error("-{option}: {value:?} is not valid: {why}")]
    BadValue {
        option: String,
        value: String,
        why: String,
    },
    /// A `key=value` list with a key the option does not have.
    #[error("-{option}: unknown key {key:?} (known: {known})")]
    UnknownKey {
        option: String,
        key: String,
        known: &'static str,
    },
    /// Fewer than two `-engine` options.
    #[error("at least two engines are needed (got {0}); add -engine cmd=... for each")]
    TooFewEngines(usize),
    /// An `-engine` without `cmd=` (and none from `-each`).
    #[error("engine {index} has no cmd=")]
    MissingCmd { index: usize },
    /// An engine setting (time control, command) that cannot be used.
    #[error("engine {index}: {source}")]
    Engine {
        index: usize,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The engine program does not exist or cannot be executed.
    #[error("engine {index}: program {program:?} not found or not executable")]
    MissingProgram { index: usize, program: PathBuf },
    /// A `-sample` list that cannot be used.
    #[error("{0}")]
    Sample(#[from] SampleConfigError),
    /// A sample format that cannot store this board size or rule.
    #[error("-sample: {0}")]
    SampleFormat(#[from] SampleEncodeError),
    /// `-openings` without `file=`.
    #[error("-openings: needs file=")]
    OpeningsWithoutFile,
    /// A `-shard` value or scheduler variable that cannot be used.
    #[error("{0}")]
    Shard(#[from] ShardError),
    /// Shards of a run with a random openings order must share one seed.
    #[error("shards must share one seed: add srand=N to -openings (a SLURM job array derives it from SLURM_ARRAY_JOB_ID)")]
    ShardSeed,
    /// `-games` × `-rounds` × engine pairs is more games than a 64-bit game number counts.
    #[error(
        "-games {games} x -rounds {rounds} x {pairs} engine pair(s) is more than {max} games \
         (the largest game number): lower -games or -rounds",
        max = u64::MAX
    )]
    TooManyGames { games: u64, rounds: u64, pairs: u64 },
    /// `-sprt` with more than two engines.
    #[error("-sprt works with exactly two engines (got {0})")]
    SprtNeedsTwoEngines(usize),
    /// `-swap2` and `-swap1` together.
    #[error("-swap2 and -swap1 cannot be used together: choose one")]
    TwoSwapRules,
    /// `-renlib` on a board other than 15×15: RenLib holds 15×15 games only.
    #[error("-renlib: a RenLib library holds 15x15 games only, and this run plays on {size}x{size}: leave -renlib out or use -boardsize 15")]
    RenlibBoard { size: BoardSize },
    /// A board too small for the rule.
    #[error("rule {rule} cannot be played on a {size}x{size} board: {why}")]
    RuleSize {
        rule: Rule,
        size: BoardSize,
        why: &'static str,
    },
}

/// Where the opening positions come from and how they are drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct OpeningsConfig {
    pub file: PathBuf,
    pub format: OpeningFormat,
    pub order: OpeningOrder,
    /// The seed in use (printed so a random order can be reproduced with `srand=`).
    pub seed: u64,
    pub transform: bool,
}

/// Who plays which colour in a game of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColourRule {
    /// c-gomoku-cli's: the pair's first engine makes the first move after the opening (white
    /// after an opening with an odd number of stones); the second game of a `-repeat` pair
    /// reverses. The same command line plays the same colours under both programs.
    FirstToMove,
    /// The first engine plays black (journals written before `FirstToMove`, resumed as they were
    /// played; swap openings, where the first engine proposes).
    FirstBlack,
}

/// Logging of engine I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    Off,
    /// `-log`: per-slot protocol logs.
    Protocol,
    /// `-debug`: protocol logs plus the board after each move.
    Debug,
}

/// Where the journal goes. A new run never appends to another run's journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JournalTarget {
    /// `-journal FILE`: refused if it already holds games.
    Named(PathBuf),
    /// The default timestamped name; when a run started in the same second took it, a `-2`,
    /// `-3`, ... suffix makes it unique.
    Timestamped(PathBuf),
}

impl JournalTarget {
    /// The path asked for (the timestamped name before any suffix).
    pub fn path(&self) -> &std::path::Path {
        match self {
            JournalTarget::Named(p) | JournalTarget::Timestamped(p) => p,
        }
    }
}

/// Where the run's seed came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedSource {
    /// `srand=N` on the command line.
    Given,
    /// Drawn at start-up.
    Fresh,
}

/// A new run or the continuation of one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// A new journal; never appends to another run's.
    Fresh,
    /// `-resume`: read the journal, check it is this run, play the games it lacks.
    Resume,
}

/// What to do when an engine misbehaves (crash, timeout, failed start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnEngineFailure {
    /// Score the game, restart the engine, go on.
    Continue,
    /// `-fatalerror`: stop the run.
    Stop,
}

/// Everything a run needs, checked.
#[derive(Debug, Clone)]
pub struct Config {
    pub engines: Vec<EngineSpec>,
    pub concurrency: usize,
    pub games: u64,
    pub rounds: u64,
    pub kind: TournamentKind,
    pub repeat: Repeat,
    pub lose_only: bool,
    pub rule: Rule,
    pub size: BoardSize,
    pub draw_after: usize,
    pub send_by_board: bool,
    pub openings: Option<OpeningsConfig>,
    pub log: LogLevel,
    pub log_dir: PathBuf,
    pub on_failure: OnEngineFailure,
    pub startup_timeout: Duration,
    pub pgn: Option<PathBuf>,
    pub sgf: Option<PathBuf>,
    pub msg: Option<PathBuf>,
    /// `-psq DIR`: one Piskvork `.psq` record per finished game in this directory.
    pub psq: Option<PathBuf>,
    /// `-renlib FILE`: every finished game is merged into this RenLib library.
    pub renlib: Option<PathBuf>,
    /// `-report FILE`: the run's HTML report, rebuilt from the journal as the run goes.
    pub report: Option<PathBuf>,
    pub journal: Option<JournalTarget>,
    pub progress: bool,
    pub quiet: bool,
    /// `-suspend`: an engine not on move is stopped (SIGSTOP of its process group).
    pub suspend: bool,
    /// `-swap2`/`-swap1`: the engines choose each game's opening through `SWAP2BOARD`.
    pub swap: Option<SwapRule>,
    /// Who plays which colour in a pair.
    pub colours: ColourRule,
    /// `-sprt`: stop when the test decides (two engines only).
    pub sprt: Option<Sprt>,
    /// Print the results block every this many finished games (two engines).
    pub rating_interval: u64,
    /// `-sample`: training samples.
    pub sample: Option<SampleConfig>,
    /// The run's seed: the openings' `srand` when given, else fresh. Decides which positions
    /// become samples, so a replay with the same seed writes the same samples.
    pub seed: u64,
    /// Whether the seed was given (`srand=`) or drawn fresh: a resumed run adopts its journal's
    /// seed unless one was given.
    pub seed_source: SeedSource,
    /// `-resume`: continue the run recorded in the journal instead of starting a new one.
    pub start: Start,
    /// The identity of the run this one continues (its journal header's fingerprint, set by
    /// `-resume`): kept as it was written, whichever build computed it.
    pub run_identity: Option<String>,
    /// `-shard K/N` (or a scheduler's array variables): this process plays shard K of N.
    pub shard: Option<Shard>,
    /// Where shards keep their journals (`-rundir`; the stop marker of a cluster-wide SPRT too).
    pub rundir: PathBuf,
    /// How often a shard reads the other shards' journals (`-syncinterval` seconds).
    pub sync_interval: Duration,
    /// Options accepted for compatibility that have no effect, with the reason (printed once).
    pub warnings: Vec<String>,
    /// `-cpus LIST`: the CPUs each game slot's engines are pinned to (one set per slot).
    pub slot_cpus: Vec<Vec<usize>>,
}

/// `-cpus LIST` (`0-3,8,10-11`) split among `slots` game slots: consecutive equal shares, each
/// slot's engines pinned to its share (CPUs left over after the equal split are not used).
pub fn parse_cpus(text: &str, slots: usize) -> Result<Vec<Vec<usize>>, String> {
    let mut cpus: Vec<usize> = Vec::new();
    for part in text.split(',').map(str::trim) {
        let num = |t: &str| {
            t.trim()
                .parse::<usize>()
                .map_err(|_| format!("{t:?} is not a CPU number"))
        };
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(part)?, num(part)?),
        };
        if b < a || b >= 1024 {
            return Err(format!("{part:?} is not a CPU range (0 to 1023, low-high)"));
        }
        for c in a..=b {
            if cpus.contains(&c) {
                return Err(format!("CPU {c} is listed twice"));
            }
            cpus.push(c);
        }
    }
    if cpus.len() < slots {
        return Err(format!(
            "{} CPUs for {slots} game slots (-concurrency): each slot needs one at least",
            cpus.len()
        ));
    }
    let share = cpus.len() / slots;
    Ok(cpus
        .chunks(share)
        .take(slots)
        .map(<[usize]>::to_vec)
        .collect())
}

/// `-boardsize` and `-rule`, checked together.
fn board_of(raw: &RawCli) -> Result<(BoardSize, Rule), ConfigError> {
    let size_n = match raw.value("boardsize") {
        Some(v) => parse_u64("boardsize", v, 0)?,
        None => 15,
    };
    let size = BoardSize::new(size_n as u32).map_err(|e| {
        bad(
            "boardsize",
            raw.value("boardsize").unwrap_or(""),
            e.to_string(),
        )
    })?;
    let rule = rule_of(raw)?;
    if raw.value("renlib").is_some() && size.get() != 15 {
        return Err(ConfigError::RenlibBoard { size });
    }
    if size.get() < 5 {
        return Err(ConfigError::RuleSize {
            rule,
            size,
            why: "a five needs at least 5 columns",
        });
    }
    Ok((size, rule))
}

/// `-sprt`, for two engines only.
fn sprt_of(raw: &RawCli, engines: usize) -> Result<Option<Sprt>, ConfigError> {
    if raw.sprt.is_some() && engines != 2 {
        return Err(ConfigError::SprtNeedsTwoEngines(engines));
    }
    raw.sprt.as_ref().map(parse_sprt).transpose()
}

fn bad(option: &str, value: &str, why: impl Into<String>) -> ConfigError {
    ConfigError::BadValue {
        option: option.to_string(),
        value: value.to_string(),
        why: why.into(),
    }
}

fn parse_u64(option: &str, value: &str, min: u64) -> Result<u64, ConfigError> {
    let n: u64 = value
        .trim()
        .parse()
        .map_err(|_| bad(option, value, "expected a whole number"))?;
    if n < min {
        return Err(bad(option, value, format!("must be at least {min}")));
    }
    Ok(n)
}

fn parse_secs(option: &str, value: &str) -> Result<Duration, ConfigError> {
    let v: f64 = value
        .trim()
        .parse()
        .map_err(|_| bad(option, value, "expected a number of seconds"))?;
    if !v.is_finite() || v < 0.0 {
        return Err(bad(
            option,
            value,
            "must be a non-negative number of seconds",
        ));
    }
    if v > MAX_SECONDS {
        return Err(bad(option, value, format!("at most {MAX_SECONDS} seconds")));
    }
    Ok(Duration::from_secs_f64(v))
}

const ENGINE_KEYS: &str = "cmd, name, tc, depth, nodes, maxmemory, thread, tolerance, option.K";

/// Apply engine `key=value` settings onto a spec. Later keys win within one list.
fn apply_engine_keys(
    spec: &mut EngineSpec,
    kvs: &KeyValues,
    option: &str,
    index: usize,
) -> Result<(), ConfigError> {
    for (k, v) in kvs {
        apply_engine_key(spec, k, v, option, index).map_err(|e| match e {
            // Name the key: `-each: "maxmemory=-1" is not valid`, not just `"-1"`.
            ConfigError::BadValue { option, why, .. } => ConfigError::BadValue {
                option,
                value: format!("{k}={v}"),
                why,
            },
            other => other,
        })?;
    }
    Ok(())
}

/// Apply one engine `key=value` setting.
fn apply_engine_key(
    spec: &mut EngineSpec,
    k: &str,
    v: &str,
    option: &str,
    index: usize,
) -> Result<(), ConfigError> {
    match k {
        "cmd" => spec.cmd = v.to_string(),
        "name" => spec.name = Some(v.to_string()),
        "tc" => {
            spec.tc = TimeControl::parse(v).map_err(|e| ConfigError::Engine {
                index,
                source: Box::new(e),
            })?
        }
        "depth" => spec.depth = Some(parse_u64(option, v, 1)?),
        "nodes" => spec.nodes = Some(parse_u64(option, v, 1)?),
        "maxmemory" => spec.max_memory = parse_u64(option, v, 0)?,
        "thread" => spec.threads = Some(parse_u64(option, v, 1)? as u32),
        "tolerance" => spec.tolerance = parse_secs(option, v)?,
        key if key.starts_with("option.") && key.len() > 7 => {
            let name = key["option.".len()..].to_string();
            spec.options.retain(|(n, _)| *n != name);
            spec.options.push((name, v.to_string()));
        }
        _ => {
            return Err(ConfigError::UnknownKey {
                option: option.into(),
                key: k.to_string(),
                known: ENGINE_KEYS,
            })
        }
    }
    Ok(())
}

/// Find a program the way the OS will: a path with `/` relative to its working directory, else PATH.
fn program_exists(program: &std::path::Path, cwd: Option<&std::path::Path>) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let is_exec = |p: &std::path::Path| {
        std::fs::metadata(p)
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    };
    if program.components().count() > 1 || program.is_absolute() {
        let full = match cwd {
            Some(d) if !program.is_absolute() => d.join(program),
            _ => program.to_path_buf(),
        };
        return is_exec(&full);
    }
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|d| is_exec(&d.join(program))))
        .unwrap_or(false)
}

/// `-sprt [elo0=E0] elo1=E1 [alpha=A] [beta=B] [model=normalized|logistic|gsprt]`.
fn parse_sprt(kvs: &KeyValues) -> Result<Sprt, ConfigError> {
    let (mut elo0, mut elo1, mut alpha, mut beta) = (0.0, None, 0.05, 0.05);
    let mut model = SprtModel::Normalized;
    let num = |v: &str| -> Result<f64, ConfigError> {
        v.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| bad("sprt", v, "expected a number"))
    };
    for (k, v) in kvs {
        match k.as_str() {
            "elo0" => elo0 = num(v)?,
            "elo1" => elo1 = Some(num(v)?),
            "alpha" => alpha = num(v)?,
            "beta" => beta = num(v)?,
            "model" => {
                model = v
                    .parse()
                    .map_err(|e: crate::stats::StatsError| bad("sprt", v, e.to_string()))?
            }
            _ => {
                return Err(ConfigError::UnknownKey {
                    option: "sprt".into(),
                    key: k.clone(),
                    known: "elo0, elo1, alpha, beta, model",
                })
            }
        }
    }
    let given = || {
        kvs.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let elo1 = elo1.ok_or_else(|| bad("sprt", &given(), "elo1= is required"))?;
    Sprt::new(elo0, elo1, alpha, beta, model).map_err(|e| {
        bad(
            "sprt",
            &format!("elo0={elo0} elo1={elo1} alpha={alpha} beta={beta}"),
            e.to_string(),
        )
    })
}

/// The journal is on by default: `-journal FILE` names it, `-journal off` turns it off, otherwise
/// it goes next to the first other output (or into the current directory) with a timestamped name,
/// so separate runs never mix in one file.
fn journal_path(raw: &RawCli) -> Option<JournalTarget> {
    match raw.value("journal") {
        Some("off") | Some("none") => None,
        Some(p) => Some(JournalTarget::Named(PathBuf::from(p))),
        None => {
            let dir = ["pgn", "sgf", "msg"]
                .iter()
                .filter_map(|o| raw.value(o))
                .map(|p| {
                    std::path::Path::new(p)
                        .parent()
                        .map(|d| d.to_path_buf())
                        .unwrap_or_default()
                })
                .next()
                .unwrap_or_default();
            let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S");
            Some(JournalTarget::Timestamped(
                dir.join(format!("gomoku-cli-{stamp}.journal.jsonl")),
            ))
        }
    }
}

/// Every `-engine` with `-each` applied under it (a per-engine value wins), checked.
fn engines_of(raw: &RawCli) -> Result<Vec<EngineSpec>, ConfigError> {
    let mut engines = Vec::new();
    for (i, kvs) in raw.engines.iter().enumerate() {
        let index = i + 1;
        let mut spec = EngineSpec::new("");
        // -each first, then the engine's own keys: a per-engine value wins.
        apply_engine_keys(&mut spec, &raw.each, "each", index)?;
        apply_engine_keys(&mut spec, kvs, "engine", index)?;
        if spec.cmd.trim().is_empty() {
            return Err(ConfigError::MissingCmd { index });
        }
        let (program, _args, cwd) = spec.program_and_args().map_err(|e| ConfigError::Engine {
            index,
            source: Box::new(e),
        })?;
        if !program_exists(&program, cwd.as_deref()) {
            return Err(ConfigError::MissingProgram { index, program });
        }
        engines.push(spec);
    }
    Ok(engines)
}

/// `-rule`: a Gomocup rule code (default 0, freestyle).
fn rule_of(raw: &RawCli) -> Result<Rule, ConfigError> {
    Ok(match raw.value("rule") {
        None => Rule::Freestyle,
        Some(v) => {
            let code: i64 = v
                .trim()
                .parse()
                .map_err(|_| bad("rule", v, "expected a Gomocup rule code"))?;
            Rule::from_code(code).map_err(|e| bad("rule", v, e.to_string()))?
        }
    })
}

/// `-openings file=F [type=...] [order=...] [srand=N]`.
fn openings_of(raw: &RawCli) -> Result<Option<OpeningsConfig>, ConfigError> {
    Ok(match &raw.openings {
        None => None,
        Some(kvs) => {
            let mut file = None;
            let mut format = OpeningFormat::Offset;
            let mut order_random = false;
            let mut seed = 0u64;
            let mut moves = None;
            for (k, v) in kvs {
                match k.as_str() {
                    "file" => file = Some(PathBuf::from(v)),
                    "type" => {
                        format = match v.as_str() {
                            "offset" => OpeningFormat::Offset,
                            "pos" => OpeningFormat::Pos,
                            "psq" => OpeningFormat::Psq { moves: None },
                            _ => return Err(bad("openings", v, "type is offset, pos or psq")),
                        }
                    }
                    "order" => {
                        order_random = match v.as_str() {
                            "random" => true,
                            "sequential" => false,
                            _ => return Err(bad("openings", v, "order is sequential or random")),
                        }
                    }
                    "moves" => moves = Some(parse_u64("openings", v, 1)? as usize),
                    "srand" => {
                        seed = v
                            .trim()
                            .parse()
                            .map_err(|_| bad("openings", v, "srand is a whole number"))?
                    }
                    _ => {
                        return Err(ConfigError::UnknownKey {
                            option: "openings".into(),
                            key: k.clone(),
                            known: "file, type, order, srand, moves",
                        })
                    }
                }
            }
            let file = file.ok_or(ConfigError::OpeningsWithoutFile)?;
            match (&mut format, moves) {
                (OpeningFormat::Psq { moves: m }, _) => *m = moves,
                (_, Some(n)) => {
                    return Err(bad(
                        "openings",
                        &format!("moves={n}"),
                        "moves= takes the first stones of a .psq record: it goes with type=psq",
                    ))
                }
                (_, None) => {}
            }
            if seed == 0 {
                seed = crate::opening::fresh_seed();
            }
            let order = if order_random {
                OpeningOrder::Random { seed }
            } else {
                OpeningOrder::Sequential
            };
            Some(OpeningsConfig {
                file,
                format,
                order,
                seed,
                transform: raw.flag("transform"),
            })
        }
    })
}

/// Shards: the shard from `-shard` or the scheduler; its journal in the run directory, its other
/// outputs and logs tagged with it, and one seed for all shards.
fn apply_shard(mut c: Config, raw: &RawCli) -> Result<Config, ConfigError> {
    let shard = match raw.value("shard") {
        Some(v) => Some(Shard::parse(v)?),
        None => Shard::from_env(|k| std::env::var(k).ok())?,
    };
    let Some(shard) = shard else {
        return Ok(c);
    };
    c.shard = Some(shard);
    if c.seed_source == SeedSource::Fresh {
        match std::env::var("SLURM_ARRAY_JOB_ID") {
            Ok(id) if !id.trim().is_empty() => {
                c.seed = job_seed(id.trim());
                if let Some(o) = &mut c.openings {
                    o.seed = c.seed;
                    if let OpeningOrder::Random { seed } = &mut o.order {
                        *seed = c.seed;
                    }
                }
            }
            _ if c
                .openings
                .as_ref()
                .is_some_and(|o| matches!(o.order, OpeningOrder::Random { .. })) =>
            {
                return Err(ConfigError::ShardSeed)
            }
            _ => {}
        }
    }
    if raw.value("rundir").is_none() {
        if let Some(JournalTarget::Named(p)) = &c.journal {
            c.rundir = p.parent().map(PathBuf::from).unwrap_or_default();
        }
    }
    if let Some(given) = &c.journal {
        let path = shard.journal_in(&c.rundir);
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
        c.journal = Some(JournalTarget::Named(path));
    }
    for p in [
        &mut c.pgn,
        &mut c.sgf,
        &mut c.msg,
        &mut c.renlib,
        &mut c.report,
    ]
    .into_iter()
    .flatten()
    {
        *p = shard.output_name(p);
    }
    if let Some(s) = &mut c.sample {
        s.file = shard.output_name(&s.file);
    }
    Ok(c)
}

/// `-gauntlet` (else round robin) and `-loseonly` (which only a gauntlet uses).
fn kind_of(raw: &RawCli, warnings: &mut Vec<String>) -> (TournamentKind, bool) {
    let kind = if raw.flag("gauntlet") {
        TournamentKind::Gauntlet
    } else {
        TournamentKind::RoundRobin
    };
    let lose_only = raw.flag("loseonly");
    if lose_only && kind != TournamentKind::Gauntlet {
        warnings.push("-loseonly only has an effect with -gauntlet".into());
    }
    (kind, lose_only)
}

/// A number of seconds, or `default`.
fn secs_or(raw: &RawCli, option: &str, default: f64) -> Result<Duration, ConfigError> {
    match raw.value(option) {
        Some(v) => parse_secs(option, v),
        None => Ok(Duration::from_secs_f64(default)),
    }
}

/// `-sample`, checked against the board and rule.
fn sample_of(
    raw: &RawCli,
    size: BoardSize,
    rule: Rule,
) -> Result<Option<SampleConfig>, ConfigError> {
    let Some(kvs) = &raw.sample else {
        return Ok(None);
    };
    let sc = SampleConfig::parse(kvs)?;
    sc.format.check(size, rule)?;
    Ok(Some(sc))
}

/// `-drawafter N`: 0 is off (the predecessor's "must be greater than 0 to be effective"); a
/// negative count is refused rather than silently read as off.
fn draw_after_of(raw: &RawCli) -> Result<usize, ConfigError> {
    Ok(match raw.value("drawafter") {
        None => 0,
        Some(v) => {
            let n: i64 = v
                .trim()
                .parse()
                .map_err(|_| bad("drawafter", v, "expected a whole number"))?;
            usize::try_from(n).map_err(|_| {
                bad(
                    "drawafter",
                    v,
                    "must be 0 (off) or a number of stones on the board",
                )
            })?
        }
    })
}

/// `-startuptimeout S` (default 10): 0 would make every engine fail to start, so every game
/// would be lost: refused.
fn startup_timeout_of(raw: &RawCli) -> Result<Duration, ConfigError> {
    let t = secs_or(raw, "startuptimeout", 10.0)?;
    if t.is_zero() {
        let v = raw.value("startuptimeout").unwrap_or_default();
        return Err(bad(
            "startuptimeout",
            v,
            "must be more than 0 seconds (engines need time to answer START)",
        ));
    }
    Ok(t)
}

/// `-swap2` or `-swap1`, not both.
fn swap_of(raw: &RawCli) -> Result<Option<SwapRule>, ConfigError> {
    match (raw.flag("swap2"), raw.flag("swap1")) {
        (true, true) => Err(ConfigError::TwoSwapRules),
        (true, false) => Ok(Some(SwapRule::Swap2)),
        (false, true) => Ok(Some(SwapRule::Swap1)),
        (false, false) => Ok(None),
    }
}

/// `-log` / `-debug`.
fn log_level_of(raw: &RawCli) -> LogLevel {
    if raw.flag("debug") {
        LogLevel::Debug
    } else if raw.flag("log") {
        LogLevel::Protocol
    } else {
        LogLevel::Off
    }
}

/// The run's seed: the openings' (their `srand=` when given, else drawn), or a fresh one without
/// openings; and whether it was given, so that a resumed run knows whether to adopt its journal's.
fn seed_of(raw: &RawCli, openings: Option<&OpeningsConfig>) -> (u64, SeedSource) {
    let given = raw
        .openings
        .iter()
        .flatten()
        .any(|(k, v)| k == "srand" && v.trim() != "0");
    let seed = openings
        .map(|o| o.seed)
        .unwrap_or_else(crate::opening::fresh_seed);
    let source = if given {
        SeedSource::Given
    } else {
        SeedSource::Fresh
    };
    (seed, source)
}

impl Config {
    /// Check every value of the raw command line.
    pub fn from_raw(raw: &RawCli) -> Result<Config, ConfigError> {
        let mut warnings = Vec::new();
        let engines = engines_of(raw)?;
        if engines.len() < 2 {
            return Err(ConfigError::TooFewEngines(engines.len()));
        }

        let value_u64 = |name: &str, default: u64, min: u64| -> Result<u64, ConfigError> {
            raw.value(name)
                .map(|v| parse_u64(name, v, min))
                .unwrap_or(Ok(default))
        };
        let concurrency = value_u64("concurrency", 1, 1)? as usize;
        let slot_cpus = match raw.value("cpus") {
            Some(v) => parse_cpus(v, concurrency).map_err(|why| bad("cpus", v, why))?,
            None => Vec::new(),
        };
        let games = value_u64("games", 1, 1)?;
        let rounds = value_u64("rounds", 1, 1)?;
        let (size, rule) = board_of(raw)?;
        let draw_after = draw_after_of(raw)?;
        let log = log_level_of(raw);
        let startup_timeout = startup_timeout_of(raw)?;
        let rating_interval = value_u64("ratinginterval", 10, 0)?;

        let openings = openings_of(raw)?;
        if raw.openings.is_none() && raw.flag("transform") {
            warnings.push("-transform has no effect without -openings".into());
        }

        let sprt = sprt_of(raw, engines.len())?;
        for (name, _, _) in &raw.score_adjudication {
            warnings.push(format!(
                "-{name} is accepted for compatibility but has no effect: pbrain engines report no score"
            ));
        }
        let sample = sample_of(raw, size, rule)?;
        let (seed, seed_source) = seed_of(raw, openings.as_ref());
        let (kind, lose_only) = kind_of(raw, &mut warnings);
        if checked_total(engines.len(), kind, games, rounds).is_none() {
            return Err(ConfigError::TooManyGames {
                games,
                rounds,
                pairs: pair_count(engines.len(), kind).unwrap_or(u64::MAX),
            });
        }
        let path = |n: &str| raw.value(n).map(PathBuf::from);
        let sync_interval = secs_or(raw, "syncinterval", 2.0)?;
        let swap = swap_of(raw)?;
        let config = Config {
            engines,
            concurrency,
            games,
            rounds,
            kind,
            repeat: if raw.flag("repeat") {
                Repeat::Twice
            } else {
                Repeat::Once
            },
            lose_only,
            rule,
            size,
            draw_after,
            send_by_board: raw.flag("sendbyboard"),
            openings,
            log,
            log_dir: path("logdir").unwrap_or_else(|| PathBuf::from(".")),
            on_failure: if raw.flag("fatalerror") {
                OnEngineFailure::Stop
            } else {
                OnEngineFailure::Continue
            },
            startup_timeout,
            pgn: path("pgn"),
            sgf: path("sgf"),
            msg: path("msg"),
            psq: path("psq"),
            renlib: path("renlib"),
            report: path("report"),
            journal: journal_path(raw),
            progress: !raw.flag("noprogress"),
            sprt,
            rating_interval,
            sample,
            seed,
            seed_source,
            start: if raw.flag("resume") {
                Start::Resume
            } else {
                Start::Fresh
            },
            run_identity: None,
            quiet: raw.flag("quiet"),
            suspend: raw.flag("suspend"),
            swap,
            // With a swap opening the engines choose the colours; the first engine proposes.
            colours: match swap {
                Some(_) => ColourRule::FirstBlack,
                None => ColourRule::FirstToMove,
            },
            slot_cpus,
            warnings,
            shard: None,
            rundir: raw.value("rundir").map(PathBuf::from).unwrap_or_default(),
            sync_interval,
        };
        apply_shard(config, raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::parse_legacy;

    fn config(args: &str) -> Result<Config, ConfigError> {
        let args: Vec<String> = args.split_whitespace().map(String::from).collect();
        Config::from_raw(&parse_legacy(&args).unwrap())
    }

    #[test]
    fn cpus_are_split_among_the_slots() {
        assert_eq!(parse_cpus("0-3", 2), Ok(vec![vec![0, 1], vec![2, 3]]));
        assert_eq!(
            parse_cpus("0,2, 4-5,7", 2),
            Ok(vec![vec![0, 2], vec![4, 5]])
        );
        assert_eq!(parse_cpus("3", 1), Ok(vec![vec![3]]));
        assert!(parse_cpus("0-1", 3)
            .unwrap_err()
            .contains("2 CPUs for 3 game slots"));
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
        assert_eq!(c.engines[0].max_memory, 2);
        assert_eq!(c.engines[0].tolerance, Duration::from_millis(500));
        assert_eq!(c.engines[1].max_memory, 1);
        assert_eq!(c.engines[1].tolerance, Duration::from_secs(7));
        // -each given after the engines still applies to both.
        assert_eq!(c.engines[0].depth, Some(3));
        assert_eq!(c.engines[1].tc.turn_time, Some(Duration::from_secs(10)));
    }

    #[test]
    fn game_counts_past_a_64_bit_game_number_are_refused() {
        let two = "-engine cmd=/bin/sh -engine cmd=/bin/sh";
        let c = config(&format!("{two} -games 4294967296")).unwrap();
        assert_eq!(c.games, 1 << 32);
        let c = config(&format!("{two} -games 18446744073709551615")).unwrap();
        assert_eq!(c.games, u64::MAX);
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
        let e = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -games x").unwrap_err();
        assert!(
            e.to_string().contains("-games") && e.to_string().contains("\"x\""),
            "{e}"
        );
        let e = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -sprt elo0=5").unwrap_err();
        assert!(e.to_string().contains("elo1"), "{e}");
        let e = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -sprt elo0=5 elo1=1").unwrap_err();
        assert!(e.to_string().contains("elo0"), "{e}");
        let e = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -engine cmd=/bin/sh -sprt elo1=5")
            .unwrap_err();
        assert!(matches!(e, ConfigError::SprtNeedsTwoEngines(3)));
        let e = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -rule 8 -sample format=bin")
            .unwrap_err();
        assert!(e.to_string().contains("-sample"), "{e}");
        let e = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -engine foo=1").unwrap_err();
        assert!(matches!(e, ConfigError::UnknownKey { .. }));
        let e = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -openings type=pos").unwrap_err();
        assert!(matches!(e, ConfigError::OpeningsWithoutFile));
    }

    #[test]
    fn values_that_would_spoil_every_game_are_refused_naming_what_is_wrong() {
        let base = "-engine cmd=/bin/sh -engine cmd=/bin/sh";
        let e = |extra: &str| config(&format!("{base} {extra}")).unwrap_err().to_string();
        assert_eq!(
            e("-each maxmemory=-1"),
            "-each: \"maxmemory=-1\" is not valid: expected a whole number"
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
        assert_eq!(
            config(&format!("{base} -drawafter 0")).unwrap().draw_after,
            0
        );
        assert!(config(&format!("{base} -startuptimeout 0.001")).is_ok());
        assert!(config(&format!("{base} -renlib a.lib")).is_ok());
    }

    #[test]
    fn psq_openings_take_moves() {
        let c =
            config("-engine cmd=/bin/sh -engine cmd=/bin/sh -openings moves=4 file=g.psq type=psq")
                .unwrap();
        let o = c.openings.unwrap();
        assert_eq!(o.format, OpeningFormat::Psq { moves: Some(4) });
        let c = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -openings file=g.psq type=psq")
            .unwrap();
        assert_eq!(
            c.openings.unwrap().format,
            OpeningFormat::Psq { moves: None }
        );
        let e = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -openings file=o.txt moves=4")
            .unwrap_err();
        assert!(e.to_string().contains("type=psq"), "{e}");
        let e = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -openings file=g type=psq moves=0")
            .unwrap_err();
        assert!(e.to_string().contains("at least 1"), "{e}");
        let c = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -psq games").unwrap();
        assert_eq!(c.psq, Some(PathBuf::from("games")));
    }

    #[test]
    fn swap_flags() {
        let c = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -swap2").unwrap();
        assert_eq!(c.swap, Some(SwapRule::Swap2));
        let c = config("-engine cmd=/bin/sh -engine cmd=/bin/sh --swap1").unwrap();
        assert_eq!(c.swap, Some(SwapRule::Swap1));
        assert_eq!(
            config("-engine cmd=/bin/sh -engine cmd=/bin/sh")
                .unwrap()
                .swap,
            None
        );
        let e = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -swap1 -swap2").unwrap_err();
        assert!(matches!(e, ConfigError::TwoSwapRules), "{e}");
    }

    #[test]
    fn journal_is_on_by_default_next_to_other_outputs() {
        let c = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -pgn out/games.pgn").unwrap();
        let j = c.journal.unwrap();
        assert!(matches!(j, JournalTarget::Timestamped(_)));
        let j = j.path();
        assert_eq!(j.parent().unwrap(), std::path::Path::new("out"));
        assert!(j.to_string_lossy().ends_with(".journal.jsonl"));
        let c = config("-engine cmd=/bin/sh -engine cmd=/bin/sh -journal off").unwrap();
        assert!(c.journal.is_none());
    }
}
