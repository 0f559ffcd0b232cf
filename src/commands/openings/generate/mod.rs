//! `openings generate`, the pure part: the deterministic stream of candidate openings (random
//! stones near the centre, candidate number i drawn from its own ChaCha stream of the seed, so
//! any candidate is recomputable and shards and a resumed run agree), the refusal of illegal ones
//! and of duplicates under the 8 symmetries, the verdict on an engine's evaluation, the order in
//! which candidates are handed out and when that stops, and the progress file's lines.
//!
//! The shell (`run.rs`) drives the engines and writes the files; everything that decides which
//! openings a run gives is here, so a kill -9 and the same command again give the same set.

pub mod run;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;

use rand::Rng;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::core::board::{BoardSize, Pos};
use crate::core::rules::{MoveOutcome, Referee, Rule};
use crate::core::search::Eval;
use crate::formats::openings::position_key;
use crate::schedule::shard::Shard;

/// After this many candidates of a shard in a row refused (illegal or duplicate), the space of
/// the settings is taken as exhausted and the run ends with what it has.
pub const REFUSED_RUN_MAX: u64 = 20_000;

/// After this many evaluations in a row without an evaluation the engine is taken as unable to
/// give one (it does not report its search, or it keeps failing) and the run stops.
pub const ERROR_RUN_MAX: u64 = 20;

/// Settings that cannot make a candidate.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SettingsError {
    /// `-stones` is not `N` or `MIN-MAX` with 1 <= MIN <= MAX.
    #[error("-stones {0:?}: expected N or MIN-MAX with 1 <= MIN <= MAX")]
    Stones(String),
    /// The area holds fewer points than the largest stone count; `fits` is the least area that
    /// holds them (the board has room for them).
    #[error("-area {area}: the {side}x{side} square around the centre of the {size}x{size} board has {points} points, too few for a candidate of {max} stones: -area {fits} or more holds them")]
    AreaTooSmall {
        area: u8,
        side: u8,
        size: u8,
        points: usize,
        max: u8,
        fits: u8,
    },
    /// Even the whole board holds fewer points than the largest stone count.
    #[error("-stones {stones}: a {size}x{size} board has {points} points, fewer than {} stones", stones.max)]
    BoardTooSmall {
        stones: StoneRange,
        size: u8,
        points: usize,
    },
}

/// The inclusive range of stone counts of a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoneRange {
    pub min: u8,
    pub max: u8,
}

impl StoneRange {
    /// `N` or `MIN-MAX`, 1 <= MIN <= MAX <= 200.
    pub fn parse(text: &str) -> Result<StoneRange, SettingsError> {
        let bad = || SettingsError::Stones(text.to_string());
        let num = |t: &str| {
            t.trim()
                .parse::<u8>()
                .ok()
                .filter(|&n| (1..=200).contains(&n))
        };
        let (min, max) = match text.split_once('-') {
            Some((a, b)) => (num(a).ok_or_else(bad)?, num(b).ok_or_else(bad)?),
            None => {
                let n = num(text).ok_or_else(bad)?;
                (n, n)
            }
        };
        if min > max {
            return Err(bad());
        }
        Ok(StoneRange { min, max })
    }
}

impl fmt::Display for StoneRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.min, self.max)
    }
}

/// What decides the candidates: the same settings give the same stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CandidateSettings {
    #[serde(with = "size_code")]
    pub size: BoardSize,
    #[serde(with = "rule_code")]
    pub rule: Rule,
    pub stones: StoneRange,
    /// Chebyshev distance from the centre a stone may lie at.
    pub area: u8,
    pub seed: u64,
}

/// The board size as its number in the progress file's header.
mod size_code {
    use crate::core::board::BoardSize;
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(s: &BoardSize, ser: S) -> Result<S::Ok, S::Error> {
        ser.serialize_u8(s.get())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<BoardSize, D::Error> {
        BoardSize::new(u32::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// The rule as its Gomocup code in the progress file's header.
mod rule_code {
    use crate::core::rules::Rule;
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(r: &Rule, ser: S) -> Result<S::Ok, S::Error> {
        ser.serialize_u8(r.code())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Rule, D::Error> {
        Rule::from_code(i64::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// Why a candidate is not evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// A stone completes a five (the position is decided).
    Five,
    /// A black stone is on a point forbidden to it when played (renju).
    Foul,
    /// The side to move has a winning move.
    ImmediateWin,
    /// The same position as an earlier candidate, under one of the 8 symmetries.
    Duplicate,
}

impl CandidateSettings {
    /// Checks that the area can hold the largest stone count.
    pub fn check(&self) -> Result<(), SettingsError> {
        let points = self.area_points().len();
        if points >= self.stones.max as usize {
            return Ok(());
        }
        let size = self.size.get();
        let holds = |area: u8| {
            CandidateSettings { area, ..*self }.area_points().len() >= self.stones.max as usize
        };
        // Only -stones is at fault when no area holds them (-area may well not be given).
        let Some(fits) = (self.area..=size / 2).find(|&a| holds(a)) else {
            return Err(SettingsError::BoardTooSmall {
                stones: self.stones,
                size,
                points: size as usize * size as usize,
            });
        };
        Err(SettingsError::AreaTooSmall {
            area: self.area,
            side: (2 * self.area as usize + 1).min(size as usize) as u8,
            size,
            points,
            max: self.stones.max,
            fits,
        })
    }

    /// The board points within `area` of the centre, row by row.
    fn area_points(&self) -> Vec<Pos> {
        let c = self.size.center();
        let r = self.area as i64;
        self.size
            .all()
            .filter(|p| {
                (p.x as i64 - c.x as i64).abs() <= r && (p.y as i64 - c.y as i64).abs() <= r
            })
            .collect()
    }

    /// Candidate number `i`, drawn from its own stream: its stones in the order written (the
    /// position's symmetry-free form, black and white stones each sorted and alternating), or
    /// why it is refused (never [`Refusal::Duplicate`]: that needs the earlier candidates).
    pub fn candidate(&self, i: u64) -> Result<Vec<Pos>, Refusal> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(i);
        let mut points = self.area_points();
        let n = rng.gen_range(self.stones.min..=self.stones.max) as usize;
        // A partial Fisher-Yates shuffle: the first n points are a uniform draw without repeats.
        for k in 0..n {
            let j = rng.gen_range(k..points.len());
            points.swap(k, j);
        }
        points.truncate(n);
        // Colours alternate in the order drawn (black first); the key sorts each colour's stones
        // and picks the smallest of the 8 images, so equal positions get equal stones.
        let key = position_key(&points, self.size);
        let (black, white) = key.split_at(n.div_ceil(2));
        let mut stones = Vec::with_capacity(n);
        for k in 0..n {
            stones.push(if k % 2 == 0 {
                black[k / 2]
            } else {
                white[k / 2]
            });
        }
        judge(&stones, self.size, self.rule)?;
        Ok(stones)
    }
}

/// Replays `stones` as an opening file is checked (a five or a renju foul refuses it), then looks
/// for a winning move of the side to move.
fn judge(stones: &[Pos], size: BoardSize, rule: Rule) -> Result<(), Refusal> {
    let mut referee = Referee::new(rule, size);
    for &p in stones {
        match referee.play(p) {
            MoveOutcome::Continue => {}
            MoveOutcome::Forbidden(_) => return Err(Refusal::Foul),
            // Win, and a board filled or a point taken (impossible with distinct points in a
            // board's area): nothing left to play, as a five.
            _ => return Err(Refusal::Five),
        }
    }
    let wins = size.all().any(|p| {
        referee.board().is_empty_at(p) && matches!(referee.clone().play(p), MoveOutcome::Win { .. })
    });
    if wins {
        return Err(Refusal::ImmediateWin);
    }
    Ok(())
}

/// The candidate numbers shard K of N draws are K-1, K-1+N, K-1+2N, ... (all without a shard):
/// the first and the step.
fn shard_start_step(shard: Option<Shard>) -> (u64, u64) {
    match shard {
        Some(s) => (s.index - 1, s.count),
        None => (0, 1),
    }
}

/// What an evaluation says about a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Within the window: the opening is kept.
    Kept,
    /// Outside the window, or a proven win or loss.
    Out,
    /// No evaluation: the engine failed or reported none.
    Error,
}

impl Verdict {
    /// The verdict of `eval` (side to move's view) against the window ±`balance`.
    pub fn of(eval: Option<Eval>, balance: u32) -> Verdict {
        match eval {
            Some(Eval::Score(v)) if v.unsigned_abs() <= balance => Verdict::Kept,
            Some(_) => Verdict::Out,
            None => Verdict::Error,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Verdict::Kept => "kept",
            Verdict::Out => "out",
            Verdict::Error => "error",
        }
    }

    fn from_word(w: &str) -> Option<Verdict> {
        [Verdict::Kept, Verdict::Out, Verdict::Error]
            .into_iter()
            .find(|v| v.word() == w)
    }
}

/// One evaluated candidate, one line of the progress file: `NUMBER<TAB>EVAL<TAB>VERDICT`
/// (`-` for no evaluation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluated {
    pub number: u64,
    pub eval: Option<Eval>,
    pub verdict: Verdict,
}

impl Evaluated {
    pub fn line(&self) -> String {
        let eval = self.eval.map_or("-".to_string(), |e| e.to_string());
        format!("{}\t{eval}\t{}\n", self.number, self.verdict.word())
    }

    /// A line as [`line`](Self::line) writes it (without its newline).
    pub fn parse(text: &str) -> Option<Evaluated> {
        let mut f = text.split('\t');
        let number = f.next()?.parse().ok()?;
        let eval = match f.next()? {
            "-" => None,
            e => Some(e.parse().ok()?),
        };
        let verdict = Verdict::from_word(f.next()?)?;
        f.next().is_none().then_some(Evaluated {
            number,
            eval,
            verdict,
        })
    }
}

/// The progress file: its header (the settings that made it) and its evaluated candidates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub header: String,
    pub done: Vec<Evaluated>,
    /// Bytes of whole lines: a torn last line (a kill in the middle of a write) is cut there.
    pub whole_len: usize,
}

/// A progress file that cannot be resumed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProgressError {
    /// Made by other settings: one line per setting that differs.
    #[error("made by other settings:\n  {}\nremove it, use another -o, or give the settings it was made with", differences.join("\n  "))]
    OtherSettings { differences: Vec<String> },
    /// Its first line is no generation's header at all.
    #[error("not a progress file of openings generate: its first line is {found:?}; remove it or use another -o")]
    NotProgress { found: String },
    /// A whole line that does not read.
    #[error("line {line}: {text:?} is not NUMBER<TAB>EVAL<TAB>kept|out|error")]
    BadLine { line: usize, text: String },
}

/// The options that differ between a progress file's header and this run's (`-area: 3 in the
/// progress file, 2 now`), or that its first line is no header.
fn other_settings(found: &str, wanted: &str) -> ProgressError {
    let json = |t: &str| serde_json::from_str::<serde_json::Value>(t).ok();
    let (Some(was), Some(now)) = (
        json(found).filter(|v| v.get("opengen").is_some()),
        json(wanted),
    ) else {
        let found: String = found.chars().take(80).collect();
        return ProgressError::NotProgress { found };
    };
    let label = |path: &str| {
        const OPTIONS: [(&str, &str); 7] = [
            ("candidates.size", "-boardsize"),
            ("candidates.rule", "-rule"),
            ("candidates.stones", "-stones"),
            ("candidates.area", "-area"),
            ("candidates.seed", "-srand"),
            ("balance", "-balance"),
            ("shard", "-shard"),
        ];
        match OPTIONS.iter().find(|(p, _)| path.starts_with(p)) {
            Some((p, option)) => format!("{option}{}", &path[p.len()..]),
            None => match path.strip_prefix("engine.") {
                Some(key) => format!("-engine {key}"),
                None => path.to_string(),
            },
        }
    };
    let differences =
        crate::formats::settings_diff::differences(&was, &now, "progress file", &label);
    ProgressError::OtherSettings { differences }
}

impl Progress {
    /// Reads `text` of a progress file made with `header`; a torn last line is left out.
    pub fn parse(text: &str, header: &str) -> Result<Progress, ProgressError> {
        let whole_len = text.rfind('\n').map_or(0, |i| i + 1);
        let mut lines = text[..whole_len].lines();
        let found = lines.next().unwrap_or_default();
        if found != header {
            return Err(other_settings(found, header));
        }
        let mut done = Vec::new();
        for (k, l) in lines.enumerate() {
            let e = Evaluated::parse(l).ok_or_else(|| ProgressError::BadLine {
                line: k + 2,
                text: l.to_string(),
            })?;
            done.push(e);
        }
        Ok(Progress {
            header: header.to_string(),
            done,
            whole_len,
        })
    }
}

/// Counts for the summary line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Candidate numbers drawn.
    pub tried: u64,
    /// Refused: a five, a foul or a winning move for the side to move.
    pub illegal: u64,
    pub duplicates: u64,
    /// Evaluated, by this run and (`resumed` of them) by the run it continues.
    pub evaluated: u64,
    pub resumed: u64,
    pub kept: u64,
    pub out: u64,
    pub errors: u64,
}

/// The run's state, fed by events: the stream of candidates, what is evaluated, when to stop.
///
/// Candidates go out in number order. Number j is not handed out once `target` candidates below
/// it are kept: then every candidate below the `target`-th kept one is evaluated (the earlier
/// ones were handed out before), so the set is the same whatever the concurrency, the order the
/// answers came in, or the kills and resumes in between.
#[derive(Debug)]
pub struct Generation {
    settings: CandidateSettings,
    /// This shard's candidate numbers: `first + k * step` for k = 0, 1, ...
    first: u64,
    step: u64,
    next_k: u64,
    target: u64,
    seen: HashSet<Vec<Pos>>,
    /// Everything evaluated, this run's and the progress file's.
    evaluated: BTreeMap<u64, Verdict>,
    /// The kept ones among them.
    kept: BTreeSet<u64>,
    in_flight: u64,
    refused_run: u64,
    /// Answers in a row without an evaluation.
    error_run: u64,
    stopped: bool,
    /// The settings' candidates ran out (too many refused in a row).
    pub exhausted: bool,
    pub tally: Tally,
}

impl Generation {
    /// A run keeping `target` openings from the candidates of `shard`, continuing `done`.
    pub fn new(
        settings: CandidateSettings,
        shard: Option<Shard>,
        target: u64,
        done: &[Evaluated],
    ) -> Generation {
        let (first, step) = shard_start_step(shard);
        let mut g = Generation {
            settings,
            first,
            step,
            next_k: 0,
            target,
            seen: HashSet::new(),
            evaluated: BTreeMap::new(),
            kept: BTreeSet::new(),
            in_flight: 0,
            refused_run: 0,
            error_run: 0,
            stopped: target == 0,
            exhausted: false,
            tally: Tally::default(),
        };
        for e in done {
            if g.add(e) {
                g.tally.resumed += 1;
            }
        }
        g
    }

    /// Adds an evaluation (the first one of a number counts); whether it was new.
    fn add(&mut self, e: &Evaluated) -> bool {
        if self.evaluated.insert(e.number, e.verdict).is_some() {
            return false;
        }
        if e.verdict == Verdict::Kept {
            self.kept.insert(e.number);
        }
        self.tally.evaluated += 1;
        match e.verdict {
            Verdict::Kept => self.tally.kept += 1,
            Verdict::Out => self.tally.out += 1,
            Verdict::Error => self.tally.errors += 1,
        }
        true
    }

    /// Whether `target` candidates below `j` are kept.
    fn enough_below(&self, j: u64) -> bool {
        self.kept
            .iter()
            .nth(self.target as usize - 1)
            .is_some_and(|&n| n < j)
    }

    /// The next candidate to evaluate, or `None` when no more will be handed out.
    pub fn next_job(&mut self) -> Option<(u64, Vec<Pos>)> {
        while !self.stopped {
            let j = self.first + self.next_k * self.step;
            self.next_k += 1;
            if self.enough_below(j) {
                self.stopped = true;
                break;
            }
            self.tally.tried += 1;
            let drawn = self.settings.candidate(j).and_then(|stones| {
                let fresh = self.seen.insert(stones.clone());
                if fresh {
                    Ok(stones)
                } else {
                    Err(Refusal::Duplicate)
                }
            });
            match drawn {
                Ok(stones) => {
                    self.refused_run = 0;
                    if self.evaluated.contains_key(&j) {
                        continue;
                    }
                    self.in_flight += 1;
                    return Some((j, stones));
                }
                Err(r) => {
                    match r {
                        Refusal::Duplicate => self.tally.duplicates += 1,
                        _ => self.tally.illegal += 1,
                    }
                    self.refused_run += 1;
                    if self.refused_run >= REFUSED_RUN_MAX {
                        self.exhausted = true;
                        self.stopped = true;
                    }
                }
            }
        }
        None
    }

    /// The answer for candidate `number`.
    pub fn record(&mut self, e: &Evaluated) {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.add(e);
        self.error_run = match e.verdict {
            Verdict::Error => self.error_run + 1,
            _ => 0,
        };
        if self.failing() {
            self.stopped = true;
        }
    }

    /// [`ERROR_RUN_MAX`] answers in a row without an evaluation: the run stops, in error.
    pub fn failing(&self) -> bool {
        self.error_run >= ERROR_RUN_MAX
    }

    /// Candidates handed out and not answered yet.
    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    /// Kept candidates below the stop, `target` at most: the set, in number order.
    pub fn chosen(&self) -> Vec<u64> {
        self.kept
            .iter()
            .copied()
            .take(self.target as usize)
            .collect()
    }

    pub fn target(&self) -> u64 {
        self.target
    }

    pub fn settings(&self) -> &CandidateSettings {
        &self.settings
    }
}

/// The share of `count` openings shard `shard` keeps (the shares add up to `count`).
pub fn shard_target(count: u64, shard: Option<Shard>) -> u64 {
    match shard {
        Some(s) => count / s.count + u64::from(s.index - 1 < count % s.count),
        None => count,
    }
}

#[cfg(test)]
mod tests;
