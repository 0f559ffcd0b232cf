//! The match settings: what is played (engines' count, schedule, openings and their draw, swap
//! openings, SPRT, CPUs, shard) and how each game is played (board, rule, adjudication).

use std::collections::BTreeMap;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::{KeyValues, Opt, RawCli};
use crate::config::env::Env;
use crate::config::error::{bad, keys_of, parse_number, secs_or, settings, ConfigError};
use crate::core::board::BoardSize;
use crate::core::rules::Rule;
use crate::core::swap::SwapRule;
use crate::engine::spec::EngineSpec;
use crate::formats::openings::order::OpeningOrder;
use crate::formats::openings::OpeningFormat;
use crate::game::adjudicate::{Adjudication, DrawRule, ResignRule, Sides};
use crate::schedule::shard::Shard;
use crate::schedule::{PairSides, Repeat, TournamentKind};
use crate::stats::{Sprt, SprtModel};

/// Where the opening positions come from and how they are drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct OpeningsConfig {
    pub file: PathBuf,
    pub format: OpeningFormat,
    pub order: DrawOrder,
    pub transform: bool,
    /// `start=N`, 0-based: the draws begin at the N-th opening of the order.
    pub start: u64,
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
    /// `-seeds N`: a knockout's seeded engines, the first N (0 without).
    pub seeds: usize,
    pub games: u64,
    pub rounds: u64,
    pub repeat: Repeat,
    /// `-noswap`, `-reverse`: who is black in each game of a pair.
    pub sides: PairSides,
    /// `-loseonly`: records only of games the first engine loses (gauntlet only).
    pub lose_only: bool,
    pub concurrency: usize,
    /// `-cpus`: where each game slot runs.
    pub slot_cpus: SlotCpus,
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
    /// `-wait MS`: a slot's pause between the end of one game and the start of its next.
    pub wait: Duration,
    /// `-tournament groups`: the league's gap, ratings and promotion.
    pub groups: Option<crate::config::groups::GroupsConfig>,
    /// `-ponder`: engines think on the opponent's time, each in one game at a time.
    pub ponder: bool,
}

impl TournamentConfig {
    /// Each engine's cap on its games at once: `slots=`, and one for every engine with `-ponder`
    /// (an engine pondering in two games would think on two opponents' time at once).
    pub fn slot_caps(&self) -> Vec<Option<u32>> {
        let ponder = self.ponder.then_some(1);
        (self.engines.iter())
            .map(|e| match (e.slots, ponder) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            })
            .collect()
    }

    /// The most games the caps let run at once (`None`: no cap binds): each game takes a place
    /// of two engines, and in a gauntlet every game one of the first engine's.
    pub fn most_at_once(&self) -> Option<u64> {
        let caps = self.slot_caps();
        let gauntlet = (self.kind == TournamentKind::Gauntlet)
            .then(|| caps.first().copied().flatten())
            .flatten()
            .map(u64::from);
        let all = caps
            .iter()
            .map(|c| c.map(u64::from))
            .sum::<Option<u64>>()
            .map(|sum| sum / 2);
        match (gauntlet, all) {
            (Some(g), Some(a)) => Some(g.min(a)),
            (g, a) => g.or(a),
        }
    }
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

/// `-cpus`: where each game slot's engines, and the runner's thread that plays the slot, run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SlotCpus {
    /// No `-cpus`: wherever the kernel puts them.
    #[default]
    Anywhere,
    /// `-cpus LIST`: slot `i` on the `i`-th share.
    Listed(Vec<Vec<usize>>),
    /// `-cpus auto`: the CPUs this process may run on when the run starts, shared out the same
    /// way (known only then: a SLURM job or `taskset` decides them).
    Auto,
}

/// `-cpus auto`, or `-cpus LIST` (`0-3,8,10-11`) split among `slots` game slots.
pub fn parse_cpus(text: &str, slots: usize) -> Result<SlotCpus, String> {
    if text.trim().eq_ignore_ascii_case("auto") {
        return Ok(SlotCpus::Auto);
    }
    Ok(SlotCpus::Listed(share_cpus(&cpu_list(text)?, slots)?))
}

/// `0-3,8,10-11` as the CPUs it names, in its order.
fn cpu_list(text: &str) -> Result<Vec<usize>, String> {
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
    Ok(cpus)
}

/// `cpus` split among `slots` game slots: consecutive equal shares (CPUs left over after the
/// equal split are not used); with fewer CPUs than slots, the slots take them in turn (slot `i`
/// on CPU `i mod n`: each CPU's slots then share it, as they would share a core unpinned).
pub fn share_cpus(cpus: &[usize], slots: usize) -> Result<Vec<Vec<usize>>, String> {
    if cpus.is_empty() {
        return Err("no CPUs to share among the game slots".into());
    }
    if cpus.len() < slots {
        return Ok((0..slots).map(|i| vec![cpus[i % cpus.len()]]).collect());
    }
    let share = cpus.len() / slots;
    Ok(cpus
        .chunks(share)
        .take(slots)
        .map(<[usize]>::to_vec)
        .collect())
}

/// `-boardsize` and `-rule`, checked together.
pub(super) fn board_of(raw: &RawCli) -> Result<(BoardSize, Rule), ConfigError> {
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
pub(super) fn sprt_option(raw: &RawCli, engines: usize) -> Result<Option<Sprt>, ConfigError> {
    if raw.sprt.is_some() && engines != 2 {
        return Err(ConfigError::SprtNeedsTwoEngines(engines));
    }
    raw.sprt.as_ref().map(parse_sprt).transpose()
}

/// `-sprt [elo0=E0] elo1=E1 [alpha=A] [beta=B] [model=normalized|logistic|gsprt]`.
pub(super) fn parse_sprt(kvs: &KeyValues) -> Result<Sprt, ConfigError> {
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

/// `-rule`: a Gomocup rule code (default 0, freestyle).
pub(super) fn rule_of(raw: &RawCli) -> Result<Rule, ConfigError> {
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
pub(super) fn openings_of(raw: &RawCli) -> Result<(Option<OpeningsConfig>, Seed), ConfigError> {
    let mut seed = 0u64;
    let openings = match &raw.openings {
        None => None,
        Some(kvs) => {
            let mut file = None;
            let mut format = OpeningFormat::Offset;
            let mut order = DrawOrder::Sequential;
            let mut moves = None;
            let mut start = 0;
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
                    "start" => start = parse_number(Opt::Openings, v, 1..=u64::MAX)? - 1,
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
                start,
            })
        }
    };
    let seed = match seed {
        0 => Seed::Fresh(crate::formats::openings::order::fresh_seed()),
        given => Seed::Given(given),
    };
    Ok((openings, seed))
}

/// The shard from `-shard K/N`, else from the scheduler's environment.
pub(super) fn shard_of(raw: &RawCli, env: &Env) -> Result<Option<Shard>, ConfigError> {
    Ok(match raw.value(Opt::Shard) {
        Some(v) => Some(Shard::parse(v)?),
        None => Shard::from_env(|k| env.var(k).map(String::from))?,
    })
}

/// `-drawafter N`: 0 is off (the predecessor's "must be greater than 0 to be effective"); a
/// negative count is refused rather than silently read as off.
pub(super) fn draw_after_of(raw: &RawCli) -> Result<usize, ConfigError> {
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

/// The value `v` of `key=` of `option`: a whole number from `min` to `u32::MAX`.
pub(super) fn adjudication_number(
    option: Opt,
    key: &str,
    v: &str,
    min: u32,
) -> Result<u32, ConfigError> {
    crate::core::numbers::whole_number(v, min..=u32::MAX)
        .map_err(|e| bad(option, v, format!("{key}= must be {e}")))
}

/// `movecount=` and `score=` of `option`, both required: the run length and the bound.
pub(super) fn count_and_score(
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
pub(super) fn adjudication_of(raw: &RawCli) -> Result<Adjudication, ConfigError> {
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
pub(super) fn startup_timeout_of(raw: &RawCli) -> Result<Duration, ConfigError> {
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
pub(super) fn swap_of(raw: &RawCli) -> Result<Option<SwapRule>, ConfigError> {
    match (raw.flag(Opt::Swap2), raw.flag(Opt::Swap1)) {
        (true, true) => Err(ConfigError::TwoSwapRules),
        (true, false) => Ok(Some(SwapRule::Swap2)),
        (false, true) => Ok(Some(SwapRule::Swap1)),
        (false, false) => Ok(None),
    }
}
