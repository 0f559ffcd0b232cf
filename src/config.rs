//! The checked run configuration: built once from the raw command line, so every later stage works
//! with valid values only. All user-facing validation of options lives here.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

pub mod identity;

use crate::cli::{KeyValues, Opt, RawCli};
use crate::core::board::BoardSize;
use crate::core::rules::Rule;
use crate::core::swap::SwapRule;
use crate::engine::spec::{Detail, EngineSpec, TimeControl, MAX_SECONDS};
use crate::formats::openings::{OpeningFormat, OpeningOrder};
use crate::formats::samples::{SampleConfig, SampleConfigError, SampleEncodeError};
use crate::game::adjudicate::{Adjudication, DrawRule, ResignRule, Sides};
use crate::game::record::Evals;
use crate::schedule::shard::{job_seed, Shard, ShardError};
use crate::schedule::{checked_total, pair_count, Repeat, TournamentKind};
use crate::stats::{Sprt, SprtModel};

/// A value on the command line that cannot be used.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// A value that does not parse or is out of range.
    #[error("{option}: {value:?} is not valid: {why}")]
    BadValue {
        option: Opt,
        value: String,
        why: String,
    },
    /// A `key=value` list with a key the option does not have.
    #[error("{option}: unknown key {key:?} (known: {known})")]
    UnknownKey {
        option: Opt,
        key: String,
        /// The option's keys, from the table (`cli::table`).
        known: String,
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
    /// `-report` and `-journal off`.
    #[error("-report is built from the journal: it cannot be used with -journal off")]
    ReportWithoutJournal,
    /// `-resume` and `-journal off`.
    #[error("-resume needs the journal: it cannot be used with -journal off")]
    ResumeWithoutJournal,
}

/// Where the opening positions come from and how they are drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct OpeningsConfig {
    pub file: PathBuf,
    pub format: OpeningFormat,
    pub order: DrawOrder,
    pub transform: bool,
}

/// The order the openings are drawn in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawOrder {
    Sequential,
    /// Shuffled by the run's seed.
    Random,
}

impl OpeningsConfig {
    /// The draw order with the run's seed in it.
    pub fn order(&self, seed: Seed) -> OpeningOrder {
        match self.order {
            DrawOrder::Sequential => OpeningOrder::Sequential,
            DrawOrder::Random => OpeningOrder::Random { seed: seed.get() },
        }
    }
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

/// The run's seed and where it came from, held once: the openings' random order and the choice
/// of sample positions read it here, so a replay with the same seed plays and writes the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seed {
    /// `srand=N` on the command line.
    Given(u64),
    /// Drawn at start-up (or adopted, see `adopt`).
    Fresh(u64),
}

impl Seed {
    pub fn get(self) -> u64 {
        match self {
            Seed::Given(v) | Seed::Fresh(v) => v,
        }
    }

    /// Continue with another run's seed (the journal's, on `-resume`; a SLURM job array's):
    /// a seed given with `srand=` stays.
    pub fn adopt(&mut self, seed: u64) {
        if let Seed::Fresh(v) = self {
            *v = seed;
        }
    }
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

/// What is played: the engines, the schedule, the openings and when to stop.
#[derive(Debug, Clone)]
pub struct TournamentConfig {
    pub engines: Vec<EngineSpec>,
    pub kind: TournamentKind,
    pub games: u64,
    pub rounds: u64,
    pub repeat: Repeat,
    /// `-loseonly`: records only of games the first engine loses (gauntlet only).
    pub lose_only: bool,
    pub concurrency: usize,
    /// `-cpus LIST`: the CPUs each game slot's engines are pinned to (one set per slot).
    pub slot_cpus: Vec<Vec<usize>>,
    pub openings: Option<OpeningsConfig>,
    /// `-swap2`/`-swap1`: the engines choose each game's opening through `SWAP2BOARD`.
    pub swap: Option<SwapRule>,
    /// Who plays which colour in a pair.
    pub colours: ColourRule,
    /// `-sprt`: stop when the test decides (two engines only).
    pub sprt: Option<Sprt>,
    pub on_failure: OnEngineFailure,
    pub startup_timeout: Duration,
    /// `-suspend`: an engine not on move is stopped (SIGSTOP of its process group).
    pub suspend: bool,
}

/// How each game is played.
#[derive(Debug, Clone)]
pub struct GameConfig {
    pub rule: Rule,
    pub size: BoardSize,
    /// `-drawafter` (0 = off).
    pub draw_after: usize,
    /// `-draw`/`-resign`: ends decided by the engines' evaluations.
    pub adjudication: Adjudication,
    pub send_by_board: bool,
}

/// The files a run writes.
#[derive(Debug, Clone)]
pub struct OutputsConfig {
    pub journal: Option<JournalTarget>,
    pub pgn: Option<PathBuf>,
    pub sgf: Option<PathBuf>,
    pub msg: Option<PathBuf>,
    /// `-records evals=`: whether PGN, SGF and messages quote the engines' search reports.
    pub evals: Evals,
    /// `-psq DIR`: one Piskvork `.psq` record per finished game in this directory.
    pub psq: Option<PathBuf>,
    /// `-renlib FILE`: every finished game is merged into this RenLib library.
    pub renlib: Option<PathBuf>,
    /// `-report FILE`: the run's HTML report, rebuilt from the journal as the run goes.
    pub report: Option<PathBuf>,
    /// `-sample`: training samples.
    pub sample: Option<SampleConfig>,
    pub log: LogLevel,
    pub log_dir: PathBuf,
}

/// What the run shows on the terminal.
#[derive(Debug, Clone)]
pub struct ConsoleConfig {
    pub progress: bool,
    pub quiet: bool,
    /// Print the results block every this many finished games (two engines).
    pub rating_interval: u64,
    /// The filter of the runner's own diagnostics on stderr: `RUST_LOG` when set, else
    /// `gomoku_cli=debug` with `-verbose`; none otherwise.
    pub diagnostics: Option<String>,
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

/// The process environment as the configuration reads it (scheduler array variables, `PATH`,
/// `RUST_LOG`): passed in, so that it can be given in a test.
#[derive(Debug, Clone, Default)]
pub struct Env(BTreeMap<String, OsString>);

impl Env {
    /// This process's environment (variables with a name that is not UTF-8 are left out).
    pub fn of_process() -> Env {
        let vars = std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v)));
        Env(vars.collect())
    }

    /// A variable's value, if set and UTF-8 text.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.0.get(name)?.to_str()
    }

    fn var_os(&self, name: &str) -> Option<&OsStr> {
        self.0.get(name).map(OsString::as_os_str)
    }
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
    let size_n = match raw.value(Opt::BoardSize) {
        Some(v) => parse_number(Opt::BoardSize, v, 0..=u32::MAX)?,
        None => 15,
    };
    let size = BoardSize::new(size_n).map_err(|e| {
        bad(
            Opt::BoardSize,
            raw.value(Opt::BoardSize).unwrap_or(""),
            e.to_string(),
        )
    })?;
    let rule = rule_of(raw)?;
    if raw.value(Opt::Renlib).is_some() && size.get() != 15 {
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
fn sprt_option(raw: &RawCli, engines: usize) -> Result<Option<Sprt>, ConfigError> {
    if raw.sprt.is_some() && engines != 2 {
        return Err(ConfigError::SprtNeedsTwoEngines(engines));
    }
    raw.sprt.as_ref().map(parse_sprt).transpose()
}

fn bad(option: Opt, value: &str, why: impl Into<String>) -> ConfigError {
    ConfigError::BadValue {
        option,
        value: value.to_string(),
        why: why.into(),
    }
}

/// `value` of `option`, a whole number within `range` (the message states it).
fn parse_number<T>(
    option: Opt,
    value: &str,
    range: std::ops::RangeInclusive<T>,
) -> Result<T, ConfigError>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    crate::core::numbers::whole_number(value, range)
        .map_err(|expected| bad(option, value, format!("expected {expected}")))
}

fn parse_u64(option: Opt, value: &str, min: u64) -> Result<u64, ConfigError> {
    parse_number(option, value, min..=u64::MAX)
}

fn parse_secs(option: Opt, value: &str) -> Result<Duration, ConfigError> {
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

/// The keys of the match runner's option `parent` (`-engine`), from the table: the help and
/// this message list the same keys.
fn keys_of(parent: &str) -> String {
    crate::cli::table::keys_of(crate::cli::table::Command::Run, parent)
}

/// Apply engine `key=value` settings onto a spec. Later keys win within one list.
fn apply_engine_keys(
    spec: &mut EngineSpec,
    kvs: &KeyValues,
    option: Opt,
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
    option: Opt,
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
        "thread" => spec.threads = Some(parse_number(option, v, 1..=u32::MAX)?),
        "tolerance" => spec.tolerance = parse_secs(option, v)?,
        "detail" => {
            spec.detail = Detail::parse(v).ok_or_else(|| ConfigError::BadValue {
                option,
                value: v.to_string(),
                why: "expected off or a show_detail level 0-3".into(),
            })?
        }
        key if key.starts_with("option.") && key.len() > 7 => {
            let name = key["option.".len()..].to_string();
            spec.options.retain(|(n, _)| *n != name);
            spec.options.push((name, v.to_string()));
        }
        _ => {
            return Err(ConfigError::UnknownKey {
                option,
                key: k.to_string(),
                known: keys_of("-engine"),
            })
        }
    }
    Ok(())
}

/// Find a program the way the OS will: a path with `/` relative to its working directory, else PATH.
fn program_exists(program: &std::path::Path, cwd: Option<&std::path::Path>, env: &Env) -> bool {
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
    env.var_os("PATH")
        .map(|paths| std::env::split_paths(paths).any(|d| is_exec(&d.join(program))))
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
            .ok_or_else(|| bad(Opt::Sprt, v, "expected a number"))
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
                    .map_err(|e: crate::stats::StatsError| bad(Opt::Sprt, v, e.to_string()))?
            }
            _ => {
                return Err(ConfigError::UnknownKey {
                    option: Opt::Sprt,
                    key: k.clone(),
                    known: keys_of("-sprt"),
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
    let elo1 = elo1.ok_or_else(|| bad(Opt::Sprt, &given(), "elo1= is required"))?;
    Sprt::new(elo0, elo1, alpha, beta, model).map_err(|e| {
        bad(
            Opt::Sprt,
            &format!("elo0={elo0} elo1={elo1} alpha={alpha} beta={beta}"),
            e.to_string(),
        )
    })
}

/// The journal is on by default: `-journal FILE` names it, `-journal off` turns it off, otherwise
/// it goes next to the first other output that is a file (or into the current directory) with a
/// timestamped name, so separate runs never mix in one file.
fn journal_path(raw: &RawCli) -> Option<JournalTarget> {
    match raw.value(Opt::Journal) {
        Some("off") | Some("none") => None,
        Some(p) => Some(JournalTarget::Named(PathBuf::from(p))),
        None => {
            // Not beside a device or FIFO (`-pgn /dev/null`): no side file is made there.
            let first = [Opt::Pgn, Opt::Sgf, Opt::Msg]
                .into_iter()
                .filter_map(|o| raw.value(o))
                .find(|p| !crate::formats::atomic_file::writes_in_place(std::path::Path::new(p)));
            let dir = first.and_then(|p| std::path::Path::new(p).parent());
            let dir = dir.map(PathBuf::from).unwrap_or_default();
            let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S");
            Some(JournalTarget::Timestamped(
                dir.join(format!("gomoku-cli-{stamp}.journal.jsonl")),
            ))
        }
    }
}

/// Every `-engine` with `-each` applied under it (a per-engine value wins), checked.
fn engines_of(raw: &RawCli, env: &Env) -> Result<Vec<EngineSpec>, ConfigError> {
    (raw.engines.iter().enumerate())
        .map(|(i, kvs)| engine_of(&raw.each, kvs, i + 1, env))
        .collect()
}

/// The engine `index` (from 1): `-each` under its own `-engine` settings `kvs`, checked: a `cmd=`
/// whose program exists, every key known and its value valid. The one reader of engine keys, for
/// the match, `tune`, `check` and `openings generate`.
fn engine_of(
    each: &KeyValues,
    kvs: &KeyValues,
    index: usize,
    env: &Env,
) -> Result<EngineSpec, ConfigError> {
    let mut spec = EngineSpec::new("");
    // -each first, then the engine's own keys: a per-engine value wins.
    apply_engine_keys(&mut spec, each, Opt::Each, index)?;
    apply_engine_keys(&mut spec, kvs, Opt::Engine, index)?;
    if spec.cmd.trim().is_empty() {
        return Err(ConfigError::MissingCmd { index });
    }
    let (program, _args, cwd) = spec.program_and_args().map_err(|e| ConfigError::Engine {
        index,
        source: Box::new(e),
    })?;
    if !program_exists(&program, cwd.as_deref(), env) {
        return Err(ConfigError::MissingProgram { index, program });
    }
    Ok(spec)
}

/// A command that drives one engine (`check`, `openings generate`): the engine read once and
/// checked as a match checks each of its engines, and the match options such a command shares.
#[derive(Debug, Clone)]
pub struct OneEngine {
    pub spec: EngineSpec,
    /// `-boardsize` and `-rule`.
    pub size: BoardSize,
    pub rule: Rule,
    /// `-concurrency`.
    pub concurrency: usize,
    /// `-startuptimeout`.
    pub startup_timeout: Duration,
    /// `-shard K/N`, or from the scheduler's environment.
    pub shard: Option<Shard>,
}

impl OneEngine {
    /// The one `-engine` of `raw` (the caller has checked there is one), `-each` under it.
    pub fn from_raw(raw: &RawCli, env: &Env) -> Result<OneEngine, ConfigError> {
        let kvs = raw.engines.first().cloned().unwrap_or_default();
        let spec = engine_of(&raw.each, &kvs, 1, env)?;
        let (size, rule) = board_of(raw)?;
        let concurrency = match raw.value(Opt::Concurrency) {
            Some(v) => parse_u64(Opt::Concurrency, v, 1)? as usize,
            None => 1,
        };
        Ok(OneEngine {
            spec,
            size,
            rule,
            concurrency,
            startup_timeout: startup_timeout_of(raw)?,
            shard: shard_of(raw, env)?,
        })
    }
}

/// `-rule`: a Gomocup rule code (default 0, freestyle).
fn rule_of(raw: &RawCli) -> Result<Rule, ConfigError> {
    Ok(match raw.value(Opt::Rule) {
        None => Rule::Freestyle,
        Some(v) => {
            let code: i64 = v
                .trim()
                .parse()
                .map_err(|_| bad(Opt::Rule, v, "expected a Gomocup rule code"))?;
            Rule::from_code(code).map_err(|e| bad(Opt::Rule, v, e.to_string()))?
        }
    })
}

/// `-openings file=F [type=...] [order=...] [srand=N]`, and the run's seed: `srand=` when given
/// (and not 0), else drawn.
fn openings_of(raw: &RawCli) -> Result<(Option<OpeningsConfig>, Seed), ConfigError> {
    let mut seed = 0u64;
    let openings = match &raw.openings {
        None => None,
        Some(kvs) => {
            let mut file = None;
            let mut format = OpeningFormat::Offset;
            let mut order = DrawOrder::Sequential;
            let mut moves = None;
            for (k, v) in kvs {
                match k.as_str() {
                    "file" => file = Some(PathBuf::from(v)),
                    "type" => {
                        format = match v.as_str() {
                            "offset" => OpeningFormat::Offset,
                            "pos" => OpeningFormat::Pos,
                            "psq" => OpeningFormat::Psq { moves: None },
                            _ => return Err(bad(Opt::Openings, v, "type is offset, pos or psq")),
                        }
                    }
                    "order" => {
                        order = match v.as_str() {
                            "random" => DrawOrder::Random,
                            "sequential" => DrawOrder::Sequential,
                            _ => {
                                return Err(bad(Opt::Openings, v, "order is sequential or random"))
                            }
                        }
                    }
                    "moves" => moves = Some(parse_number(Opt::Openings, v, 1..=usize::MAX)?),
                    "srand" => {
                        seed = crate::core::numbers::whole_number(v, 0..=u64::MAX)
                            .map_err(|e| bad(Opt::Openings, v, format!("srand= must be {e}")))?
                    }
                    _ => {
                        return Err(ConfigError::UnknownKey {
                            option: Opt::Openings,
                            key: k.clone(),
                            known: keys_of("-openings"),
                        })
                    }
                }
            }
            let file = file.ok_or(ConfigError::OpeningsWithoutFile)?;
            match (&mut format, moves) {
                (OpeningFormat::Psq { moves: m }, _) => *m = moves,
                (_, Some(n)) => {
                    return Err(bad(
                        Opt::Openings,
                        &format!("moves={n}"),
                        "moves= takes the first stones of a .psq record: it goes with type=psq",
                    ))
                }
                (_, None) => {}
            }
            Some(OpeningsConfig {
                file,
                format,
                order,
                transform: raw.flag(Opt::Transform),
            })
        }
    };
    let seed = match seed {
        0 => Seed::Fresh(crate::formats::openings::fresh_seed()),
        given => Seed::Given(given),
    };
    Ok((openings, seed))
}

/// The shard from `-shard K/N`, else from the scheduler's environment.
fn shard_of(raw: &RawCli, env: &Env) -> Result<Option<Shard>, ConfigError> {
    Ok(match raw.value(Opt::Shard) {
        Some(v) => Some(Shard::parse(v)?),
        None => Shard::from_env(|k| env.var(k).map(String::from))?,
    })
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
                .is_some_and(|o| o.order == DrawOrder::Random) =>
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

/// `-gauntlet` (else round robin) and `-loseonly` (which only a gauntlet uses).
fn kind_of(raw: &RawCli, warnings: &mut Vec<String>) -> (TournamentKind, bool) {
    let kind = if raw.flag(Opt::Gauntlet) {
        TournamentKind::Gauntlet
    } else {
        TournamentKind::RoundRobin
    };
    let lose_only = raw.flag(Opt::LoseOnly);
    if lose_only && kind != TournamentKind::Gauntlet {
        warnings.push("-loseonly only has an effect with -gauntlet".into());
    }
    (kind, lose_only)
}

/// A number of seconds, or `default`.
fn secs_or(raw: &RawCli, option: Opt, default: f64) -> Result<Duration, ConfigError> {
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
    Ok(match raw.value(Opt::DrawAfter) {
        None => 0,
        Some(v) => crate::core::numbers::whole_number(v, 0..=usize::MAX).map_err(|e| {
            bad(
                Opt::DrawAfter,
                v,
                format!("must be 0 (off) or a number of stones on the board, {e}"),
            )
        })?,
    })
}

/// The `key=value`s of `option` as a map, every key one of its keys in the table (later values win).
fn settings(option: Opt, kvs: &KeyValues) -> Result<BTreeMap<&str, &str>, ConfigError> {
    let known = keys_of(&option.to_string());
    let mut out = BTreeMap::new();
    for (k, v) in kvs {
        if !known.split(", ").any(|n| n == k) {
            let key = k.clone();
            return Err(ConfigError::UnknownKey { option, key, known });
        }
        out.insert(k.as_str(), v.as_str());
    }
    Ok(out)
}

/// The value `v` of `key=` of `option`: a whole number from `min` to `u32::MAX`.
fn adjudication_number(option: Opt, key: &str, v: &str, min: u32) -> Result<u32, ConfigError> {
    crate::core::numbers::whole_number(v, min..=u32::MAX)
        .map_err(|e| bad(option, v, format!("{key}= must be {e}")))
}

/// `movecount=` and `score=` of `option`, both required: the run length and the bound.
fn count_and_score(
    option: Opt,
    s: &BTreeMap<&str, &str>,
) -> Result<(NonZeroU32, u32), ConfigError> {
    let (Some(count), Some(score)) = (s.get("movecount"), s.get("score")) else {
        let given: Vec<String> = s.iter().map(|(k, v)| format!("{k}={v}")).collect();
        return Err(bad(option, &given.join(" "), "needs movecount= and score="));
    };
    let count = adjudication_number(option, "movecount", count, 1)?;
    let score = adjudication_number(option, "score", score, 0)?;
    Ok((NonZeroU32::new(count).unwrap_or(NonZeroU32::MIN), score))
}

/// `-draw movenumber=N movecount=M score=S` and `-resign movecount=M score=S [twosided=true]
/// [mate=K]` (`-resign mate=K` alone is the mate rule only).
fn adjudication_of(raw: &RawCli) -> Result<Adjudication, ConfigError> {
    let mut a = Adjudication::default();
    if let Some(kvs) = &raw.draw {
        let s = settings(Opt::Draw, kvs)?;
        let (moves, score) = count_and_score(Opt::Draw, &s)?;
        let from_move = match s.get("movenumber") {
            Some(v) => adjudication_number(Opt::Draw, "movenumber", v, 0)?,
            None => 0,
        };
        a.draw = Some(DrawRule {
            from_move,
            moves,
            score,
        });
    }
    let Some(kvs) = &raw.resign else {
        return Ok(a);
    };
    let s = settings(Opt::Resign, kvs)?;
    if let Some(k) = s.get("mate") {
        let k = adjudication_number(Opt::Resign, "mate", k, 1)?;
        a.mate = NonZeroU32::new(k);
    }
    if a.mate.is_some() && !s.contains_key("movecount") && !s.contains_key("score") {
        return Ok(a);
    }
    let (moves, score) = count_and_score(Opt::Resign, &s)?;
    let sides = match s.get("twosided").copied() {
        None | Some("false") => Sides::One,
        Some("true") => Sides::Both,
        Some(v) => return Err(bad(Opt::Resign, v, "twosided= must be true or false")),
    };
    a.resign = Some(ResignRule {
        moves,
        score,
        sides,
    });
    Ok(a)
}

/// `-startuptimeout S` (default 10): 0 would make every engine fail to start, so every game
/// would be lost: refused.
fn startup_timeout_of(raw: &RawCli) -> Result<Duration, ConfigError> {
    let t = secs_or(raw, Opt::StartupTimeout, 10.0)?;
    if t.is_zero() {
        let v = raw.value(Opt::StartupTimeout).unwrap_or_default();
        return Err(bad(
            Opt::StartupTimeout,
            v,
            "must be more than 0 seconds (engines need time to answer START)",
        ));
    }
    Ok(t)
}

/// `-swap2` or `-swap1`, not both.
fn swap_of(raw: &RawCli) -> Result<Option<SwapRule>, ConfigError> {
    match (raw.flag(Opt::Swap2), raw.flag(Opt::Swap1)) {
        (true, true) => Err(ConfigError::TwoSwapRules),
        (true, false) => Ok(Some(SwapRule::Swap2)),
        (false, true) => Ok(Some(SwapRule::Swap1)),
        (false, false) => Ok(None),
    }
}

/// `-log` / `-debug`.
fn log_level_of(raw: &RawCli) -> LogLevel {
    if raw.flag(Opt::Debug) {
        LogLevel::Debug
    } else if raw.flag(Opt::Log) {
        LogLevel::Protocol
    } else {
        LogLevel::Off
    }
}

/// The filter of the runner's diagnostics: `RUST_LOG` when set, else `-verbose`'s.
fn diagnostics_of(raw: &RawCli, env: &Env) -> Option<String> {
    match env.var("RUST_LOG") {
        Some(v) if !v.trim().is_empty() => Some(v.to_string()),
        _ => raw
            .flag(Opt::Verbose)
            .then(|| "gomoku_cli=debug".to_string()),
    }
}

/// The files a run writes, and the `-log` files.
fn outputs_of(raw: &RawCli, sample: Option<SampleConfig>) -> Result<OutputsConfig, ConfigError> {
    let path = |o: Opt| raw.value(o).map(PathBuf::from);
    let evals = Evals::from_settings(raw.records.as_deref().unwrap_or_default()).map_err(|e| {
        let given = raw
            .records
            .iter()
            .flatten()
            .map(|(k, v)| format!("{k}={v}"));
        bad(
            Opt::Records,
            &given.collect::<Vec<_>>().join(" "),
            e.to_string(),
        )
    })?;
    Ok(OutputsConfig {
        journal: journal_path(raw),
        pgn: path(Opt::Pgn),
        sgf: path(Opt::Sgf),
        msg: path(Opt::Msg),
        evals,
        psq: path(Opt::Psq),
        renlib: path(Opt::Renlib),
        report: path(Opt::Report),
        sample,
        log: log_level_of(raw),
        log_dir: path(Opt::LogDir).unwrap_or_else(|| PathBuf::from(".")),
    })
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
            None => Vec::new(),
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
        let (kind, lose_only) = kind_of(raw, &mut warnings);
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
            games,
            rounds,
            repeat: match raw.flag(Opt::Repeat) {
                true => Repeat::Twice,
                false => Repeat::Once,
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
        };
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
        apply_shard(config, raw, env)
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

    fn config(args: &str) -> Result<Config, ConfigError> {
        config_in(args, &[])
    }

    /// The configuration of two `/bin/sh` engines and the options `extra`.
    fn two_engines(extra: &str) -> Result<Config, ConfigError> {
        config(&format!("-engine cmd=/bin/sh -engine cmd=/bin/sh {extra}"))
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
