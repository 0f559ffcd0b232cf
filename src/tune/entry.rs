//! What a `tune` run's journal keeps: in the header, the tuning's settings (so a resumed run or
//! another shard continues the same tuning, and the report can draw it); in each game line, the
//! iteration the game belongs to and the values each engine was sent, and in the line of the game
//! that completed its iteration, the flips, θ+'s score and the new θ.

use serde::{Deserialize, Serialize};

/// The header's `tune` object: everything that decides a tuning's trajectory besides the games.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuneSettings {
    /// The parameter file's lines, checked.
    pub params: Vec<crate::tune::params::Param>,
    /// SPSA's α, γ and A (A resolved: 0.1·N unless set).
    pub alpha: f64,
    pub gamma: f64,
    #[serde(rename = "A")]
    pub a_big: f64,
    /// N: iterations of the run.
    pub iterations: u64,
    /// Game pairs per iteration.
    pub pairs: u64,
    /// The seed the flips and the rounding of integer values are drawn from.
    pub seed: u64,
}

/// A game line's `tune` field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuneEntry {
    /// The iteration (k, 1-based) the game belongs to.
    #[serde(rename = "it")]
    pub iteration: u64,
    /// The values sent to the θ+ engine (engine 0) and to the θ− engine (engine 1), in the
    /// parameter file's order.
    pub plus: Vec<f64>,
    pub minus: Vec<f64>,
    /// Present on the game that completed the iteration: the step taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done: Option<TuneStep>,
}

/// The step an iteration took once all its games were in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuneStep {
    /// The random direction, one ±1 per parameter.
    pub flips: Vec<i8>,
    /// θ+'s wins minus losses over the iteration's games.
    pub score: i64,
    /// θ after the step.
    pub theta: Vec<f64>,
}
