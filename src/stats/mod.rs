//! Match statistics, pure and without I/O: result tallies, Elo estimates, the SPRT, and the text
//! reports (results block, standings, crosstable) built from them.
//!
//! All counts are from the first (tested) engine's view: W means the first engine won, and a
//! positive Elo or LLR favours it. The formulas follow fishtest's statistics code; see
//! `shared/reference/sprt.md` and the reference vectors checked by `tests/it/sprt_reference.rs`.

pub mod calculator;
pub mod elo;
pub mod ratings;
pub mod sprt;
pub mod tally;
pub mod text;

use thiserror::Error;

pub use calculator::{parse_ptnml, parse_wld, sprt_calculator, Counts, SprtCalculation};
pub use elo::{
    cutechess_wdl, elo_to_score, fastchess_pentanomial, fastchess_wdl, fishtest_pentanomial,
    fishtest_trinomial, score_to_elo, EloEstimate, Interval,
};
pub use sprt::{gsprt_llr, Sprt, SprtCrossing, SprtModel, Verdict};
pub use tally::{pairs_ratio, PairTally, Pentanomial, Score, Wld};
pub use text::{
    crosstable, elo_estimate, elo_text, results_block, standings_table, MatchSummary, StandingRow,
    TournamentTally,
};

/// Invalid statistics input: an SPRT design or a count list typed by a user.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum StatsError {
    /// The SPRT model name given is not one of the supported models.
    #[error("unknown SPRT model {0:?} (expected normalized, logistic or gsprt)")]
    UnknownModel(String),
    /// An SPRT error rate (alpha or beta) is not a usable probability: 0 or less, 1 or more, or NaN.
    #[error("{name} must be strictly between 0 and 1, got {value}")]
    InvalidProbability { name: &'static str, value: f64 },
    /// Alpha and beta together reach 1 or more, so the SPRT could never stop with a sound verdict.
    #[error("alpha + beta must be below 1 so that the bounds straddle 0, got alpha={alpha}, beta={beta}")]
    ErrorRatesTooLarge { alpha: f64, beta: f64 },
    /// The SPRT Elo hypotheses are unusable: a bound is infinite or NaN, or the lower one is not below the upper one.
    #[error("elo0 must be finite and below elo1, got elo0={elo0}, elo1={elo1}")]
    InvalidElo { elo0: f64, elo1: f64 },
    /// A typed list of game counts has too few or too many comma-separated fields.
    #[error("{what} needs {expected} comma-separated counts, got {found} in {input:?}")]
    CountArity {
        what: &'static str,
        input: String,
        expected: usize,
        found: usize,
    },
    /// A field of a typed count list is not a whole number zero or above (that fits a u64).
    #[error("{what}: {field:?} in {input:?} is not {expected}")]
    BadCount {
        what: &'static str,
        input: String,
        field: String,
        expected: crate::core::numbers::NotWhole,
    },
    /// A typed count list whose games add up to more than a u64 holds: the totals printed
    /// would wrap.
    #[error("{what}: {input:?} adds up to more than {} games", u64::MAX)]
    TooManyGames { what: &'static str, input: String },
    /// Neither or both of the win/loss/draw and pentanomial count lists were given.
    #[error("give exactly one of --wld W,L,D or --ptnml LL,LD,WL+DD,WD,WW")]
    CountsChoice,
    /// A result refers to an engine number that the tournament does not have.
    #[error("engine index {index} out of range: the tournament has {engines} engines")]
    EngineIndex { index: usize, engines: usize },
    /// A result pairs an engine against itself, which the tally cannot record.
    #[error("engine {index} cannot play itself")]
    SelfPairing { index: usize },
}
