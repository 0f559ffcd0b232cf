//! The figures the report's charts draw: per-game series (LLR, Elo) thinned to what a chart can
//! show, think-time quantiles, termination counts and the outcome distribution. Pure.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::stats::{Interval, SprtCrossing};

/// Series longer than this are thinned evenly to this many points (the last one always kept):
/// a chart is under a thousand pixels wide, and a 100,000-game run must stay a small file.
pub const MAX_POINTS: usize = 2000;

/// The indices of a series of `n` values that are drawn: all of them up to [`MAX_POINTS`], else
/// every `k`-th and the last.
pub fn thin_indices(n: usize) -> impl Iterator<Item = usize> {
    let step = n.div_ceil(MAX_POINTS).max(1);
    let last = (n > 0 && (n - 1) % step != 0).then(|| n - 1);
    (0..n).step_by(step).chain(last)
}

/// Every `k`-th item so that at most [`MAX_POINTS`] + 1 remain, the last one always kept.
pub fn thin<T: Copy>(v: &[T]) -> Vec<T> {
    thin_indices(v.len()).map(|i| v[i]).collect()
}

/// Move numbers beyond this are pooled into the last one in the think-time statistics.
pub const MAX_MOVE_NUMBER: usize = 150;

/// A point of a per-game series: the games counted, and the value after them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Point {
    pub games: u64,
    pub value: f64,
}

/// The LLR after every game (thinned to at most [`MAX_POINTS`] points evenly spread, the last
/// game always among them), with the test's bounds and where it decided.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlrSeries {
    /// Games counted: the series has a value after each of them.
    pub games: u64,
    pub points: Vec<Point>,
    pub lower: f64,
    pub upper: f64,
    pub crossing: Option<SprtCrossing>,
}

/// The Elo estimate of one engine pair after each of its games, with the 95 % interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EloSeries {
    /// Engine indices: the estimate is `first`'s against `second`.
    pub first: usize,
    pub second: usize,
    /// Games of the pair counted, the estimate, its interval.
    pub points: Vec<(u64, Interval)>,
}

/// Think-time quantiles of one engine at one of its move numbers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MoveTimes {
    /// The engine's own move number in its games, 1-based.
    pub move_number: usize,
    pub samples: usize,
    pub p10: u64,
    pub p25: u64,
    pub median: u64,
    pub p75: u64,
    pub p90: u64,
}

/// How one engine spent its time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineTimes {
    pub engine: usize,
    pub moves: u64,
    pub total_ms: u64,
    /// CPU time of the engine's processes over the games that recorded it (`usage`), ms.
    pub cpu_ms: u64,
    /// Thinking time over those same games, ms (the denominator of CPU/thinking).
    pub cpu_think_ms: u64,
    /// Largest peak memory of its processes in any game, bytes.
    pub peak_memory: u64,
    pub median_ms: u64,
    pub max_ms: u64,
    pub by_move: Vec<MoveTimes>,
    /// Moves the engine gave a search report for.
    pub reported: u64,
    /// The engine's own time (its reports' `time_ms`) by move number, where it gave one.
    pub own_by_move: Vec<MoveTimes>,
    /// Its lines that were no answer (`ERROR`, `UNKNOWN`, `DEBUG`, ...) and those dropped over
    /// the cap a move, over the games that recorded them (`usage`).
    #[serde(skip_serializing_if = "crate::engine::LineCounts::is_empty")]
    pub lines: crate::engine::LineCounts,
}

/// How one engine's games ended, by termination code.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EngineTerminations {
    pub engine: usize,
    pub won: BTreeMap<&'static str, u64>,
    pub lost: BTreeMap<&'static str, u64>,
    pub drawn: BTreeMap<&'static str, u64>,
}

/// The outcome distribution of a two-engine run: game pairs (pentanomial) or games (W/D/L),
/// first engine's view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Distribution {
    pub title: String,
    pub labels: Vec<&'static str>,
    pub counts: Vec<u64>,
}

/// The `q`-quantile (nearest rank) of sorted values.
pub fn quantile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// Quantiles of the times of each move number that has some.
pub fn quantiles_by_move(by_move: Vec<Vec<u64>>) -> Vec<MoveTimes> {
    by_move
        .into_iter()
        .enumerate()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, mut v)| {
            v.sort_unstable();
            MoveTimes {
                move_number: k + 1,
                samples: v.len(),
                p10: quantile(&v, 0.10),
                p25: quantile(&v, 0.25),
                median: quantile(&v, 0.5),
                p75: quantile(&v, 0.75),
                p90: quantile(&v, 0.90),
            }
        })
        .collect()
}

/// One engine's think-time figures from its times by move number (the usage and report
/// counts are added by the builder).
pub fn engine_times(engine: usize, by_move: Vec<Vec<u64>>) -> EngineTimes {
    let mut all: Vec<u64> = by_move.iter().flatten().copied().collect();
    all.sort_unstable();
    let by_move = quantiles_by_move(by_move);
    EngineTimes {
        engine,
        moves: all.len() as u64,
        total_ms: all.iter().sum(),
        cpu_ms: 0,
        cpu_think_ms: 0,
        peak_memory: 0,
        median_ms: quantile(&all, 0.5),
        max_ms: all.last().copied().unwrap_or(0),
        by_move,
        reported: 0,
        own_by_move: Vec::new(),
        lines: Default::default(),
    }
}
