//! The sequential probability ratio test: log-likelihood ratios for trinomial and pentanomial
//! tallies, the stopping bounds and the decision.
//!
//! `Normalized` and `Logistic` compute the exact generalized LLR as fishtest does: the multinomial
//! maximum-likelihood distributions under H0 and under H1 (each constrained to the hypothesis'
//! expected score or t-value), on counts whose zero cells are replaced by 1e-3. `Gsprt` is the
//! predecessor's closed-form approximation, kept for comparison; where its variance is zero (a
//! one-sided score) it takes the regularised exact LLR instead, so it can stop there too.

use std::f64::consts::SQRT_2;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::stats::elo::{elo_to_score, regularize, NELO_SCALE};
use crate::stats::tally::{Pentanomial, Wld};
use crate::stats::StatsError;

/// How the hypotheses' Elo values are read and the LLR computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtModel {
    /// elo0/elo1 are normalized Elo; exact GLR (fishtest's default).
    Normalized,
    /// elo0/elo1 are logistic Elo; exact GLR.
    Logistic,
    /// elo0/elo1 are logistic Elo; c-gomoku-cli's trinomial approximation
    /// `(s1−s0)(2s−s0−s1) / (2·var/n)`, or, for a one-sided score (zero variance), the
    /// regularised exact LLR of `Logistic`.
    Gsprt,
}

impl SprtModel {
    pub fn name(self) -> &'static str {
        match self {
            SprtModel::Normalized => "normalized",
            SprtModel::Logistic => "logistic",
            SprtModel::Gsprt => "gsprt",
        }
    }
}

impl fmt::Display for SprtModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SprtModel {
    type Err = StatsError;
    fn from_str(s: &str) -> Result<Self, StatsError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "normalized" | "nelo" => Ok(SprtModel::Normalized),
            "logistic" | "elo" => Ok(SprtModel::Logistic),
            "gsprt" => Ok(SprtModel::Gsprt),
            _ => Err(StatsError::UnknownModel(s.to_string())),
        }
    }
}

/// Where a sequential test decided: the first time its LLR left the bounds. The verdict of a run
/// is this crossing, whatever games in flight add afterwards.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SprtCrossing {
    pub verdict: Verdict,
    /// The LLR that crossed a bound.
    pub llr: f64,
    /// Games counted at the crossing.
    pub games: u64,
    /// Schedule number of the game whose result made the LLR cross.
    pub game: u64,
}

impl SprtCrossing {
    /// One line for reports: `H1 accepted after 147 games (at game 151, LLR 2.98)`.
    pub fn describe(&self) -> String {
        format!(
            "{} accepted after {} games (at game {}, LLR {:.2})",
            self.verdict, self.games, self.game, self.llr
        )
    }
}

/// Which hypothesis the test accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Verdict {
    /// The LLR fell below the lower bound: the first engine is not `elo1` stronger.
    H0,
    /// The LLR rose above the upper bound.
    H1,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::H0 => "H0",
            Verdict::H1 => "H1",
        })
    }
}

/// An SPRT design. Fields are public for convenience; [`Sprt::new`] validates them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
    pub model: SprtModel,
}

impl Sprt {
    /// Checks that alpha and beta are probabilities with `alpha + beta < 1` (otherwise the bounds
    /// do not straddle 0) and that `elo0 < elo1`, both finite.
    pub fn new(
        elo0: f64,
        elo1: f64,
        alpha: f64,
        beta: f64,
        model: SprtModel,
    ) -> Result<Self, StatsError> {
        for (name, v) in [("alpha", alpha), ("beta", beta)] {
            if !(v > 0.0 && v < 1.0) {
                return Err(StatsError::InvalidProbability { name, value: v });
            }
        }
        if alpha + beta >= 1.0 {
            return Err(StatsError::ErrorRatesTooLarge { alpha, beta });
        }
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(StatsError::InvalidElo { elo0, elo1 });
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        })
    }

    /// `(ln(β/(1−α)), ln((1−β)/α))`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// H0 when `llr < lower`, H1 when `llr > upper` (strict, as fishtest and c-gomoku-cli);
    /// `None` to continue, also for a NaN LLR.
    pub fn decide(&self, llr: f64) -> Option<Verdict> {
        let (lower, upper) = self.bounds();
        if llr < lower {
            Some(Verdict::H0)
        } else if llr > upper {
            Some(Verdict::H1)
        } else {
            None
        }
    }

    /// LLR of independent games. NaN only if the constrained maximum-likelihood fit fails
    /// (not seen in practice; see [`mle_t_value`]).
    pub fn llr_trinomial(&self, t: &Wld) -> f64 {
        match self.model {
            SprtModel::Gsprt if one_sided(&t.trinomial()) => {
                llr_logistic(&regularize(t.trinomial()), self.elo0, self.elo1)
            }
            SprtModel::Gsprt => gsprt_llr(t, self.elo0, self.elo1),
            SprtModel::Logistic => llr_logistic(&regularize(t.trinomial()), self.elo0, self.elo1),
            SprtModel::Normalized => {
                let [t0, t1] = [self.elo0, self.elo1].map(|e| e / NELO_SCALE);
                llr_t_value(&regularize(t.trinomial()), t0, t1)
            }
        }
    }

    /// LLR of game pairs (`N` = number of pairs). For `Gsprt` this extends the predecessor's
    /// approximation to the pair-average distribution (fishtest's `LLR_alt2`); a one-sided
    /// tally is decided as in the trinomial version.
    pub fn llr_pentanomial(&self, p: &Pentanomial) -> f64 {
        match self.model {
            SprtModel::Gsprt if one_sided(&p.0) => {
                llr_logistic(&regularize(p.0), self.elo0, self.elo1)
            }
            SprtModel::Gsprt => gsprt_llr_pentanomial(p, self.elo0, self.elo1),
            SprtModel::Logistic => llr_logistic(&regularize(p.0), self.elo0, self.elo1),
            SprtModel::Normalized => {
                // The pair-average sigma is 1/√2 of the per-game sigma, so the same nElo is a
                // √2 larger t-value of the pair distribution.
                let [t0, t1] = [self.elo0, self.elo1].map(|e| SQRT_2 * e / NELO_SCALE);
                llr_t_value(&regularize(p.0), t0, t1)
            }
        }
    }
}

/// Outcome scores `a_i = i/k` of a `k+1`-cell tally.
fn outcome_scores(cells: usize) -> Vec<f64> {
    let k = (cells - 1) as f64;
    (0..cells).map(|i| i as f64 / k).collect()
}

/// Root of the decreasing "secular" function `f(x) = Σ q_i φ_i / (1 + x φ_i)` on the interval
/// where every `1 + x φ_i > 0`, i.e. `(-1/max φ, -1/min φ)`; `q_i > 0`. `None` unless φ takes both
/// signs (then no root exists).
///
/// Newton's method kept inside a shrinking bracket, falling back to bisection whenever a Newton
/// step would leave the bracket or does not at least halve the previous step; it stops when the
/// step is at the rounding level of max(|x|, 1) (what matters is `x·φ_i`, with |φ_i| of order 1),
/// far tighter than fishtest's 2e-12.
fn secular_root(q: &[f64], phi: &[f64]) -> Option<f64> {
    let max = phi.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let min = phi.iter().cloned().fold(f64::INFINITY, f64::min);
    if !(max > 0.0 && min < 0.0) {
        return None;
    }
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    let eval = |x: f64| -> (f64, f64) {
        let mut f = 0.0;
        let mut df = 0.0;
        for (&qi, &p) in q.iter().zip(phi) {
            let u = p / (1.0 + x * p);
            f += qi * u;
            df -= qi * u * u;
        }
        (f, df)
    };
    let mut x = 0.0; // always inside, since lo < 0 < hi
    let mut prev_step = hi - lo;
    for _ in 0..400 {
        let (f, df) = eval(x);
        if f == 0.0 {
            return Some(x);
        }
        if f > 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let newton = x - f / df;
        let next = if newton > lo && newton < hi && (newton - x).abs() <= 0.5 * prev_step {
            newton
        } else {
            0.5 * (lo + hi)
        };
        let step = (next - x).abs();
        if step <= 4.0 * f64::EPSILON * x.abs().max(1.0) || next == x {
            return Some(next);
        }
        prev_step = step;
        x = next;
    }
    Some(x)
}

/// Maximum-likelihood distribution under the constraint `Σ p_i a_i = s` (fishtest's
/// `MLE_expected`): `p_i = q_i / (1 + x (a_i − s))` with x the secular root.
fn mle_expected(q: &[f64], a: &[f64], s: f64) -> Option<Vec<f64>> {
    let phi: Vec<f64> = a.iter().map(|ai| ai - s).collect();
    let x = secular_root(q, &phi)?;
    Some(
        q.iter()
            .zip(&phi)
            .map(|(qi, p)| qi / (1.0 + x * p))
            .collect(),
    )
}

/// Maximum-likelihood distribution under the constraint `(μ − 1/2)/σ = t` (fishtest's
/// `MLE_t_value`): the same secular equation with the linearized constraint
/// `φ_i = a_i − 1/2 − t σ (1 + ((μ − a_i)/σ)²)/2` re-centred at the current estimate, iterated
/// from the uniform distribution to a fixed point. fishtest stops after at most 10 steps at
/// 1e-9; we iterate to convergence (the reference needed up to 33 steps for 1e-32).
///
/// From the uniform start the linearized constraint has no root once |t| is large (|nElo| above
/// roughly 340 trinomial or 240 pentanomial); then t is approached by continuation. `None` only if
/// that fails too.
fn mle_t_value(q: &[f64], a: &[f64], t: f64) -> Option<Vec<f64>> {
    let uniform = vec![1.0 / a.len() as f64; a.len()];
    if let Some(p) = t_value_fixed_point(q, a, t, uniform.clone()) {
        return Some(p);
    }
    // Large |t|: the linearization around the uniform start has no root. Walk t out from 0 in
    // small steps, each starting from the previous solution, which stays close enough.
    const STEPS: u32 = 64;
    let mut p = uniform;
    for k in 1..=STEPS {
        p = t_value_fixed_point(q, a, t * f64::from(k) / f64::from(STEPS), p)?;
    }
    Some(p)
}

/// One run of the `MLE_t_value` fixed-point iteration from `p`.
fn t_value_fixed_point(q: &[f64], a: &[f64], t: f64, mut p: Vec<f64>) -> Option<Vec<f64>> {
    let mut last_change = f64::INFINITY;
    for _ in 0..200 {
        let mu: f64 = p.iter().zip(a).map(|(pi, ai)| pi * ai).sum();
        let sigma = p
            .iter()
            .zip(a)
            .map(|(pi, ai)| pi * (ai - mu).powi(2))
            .sum::<f64>()
            .sqrt();
        let phi: Vec<f64> = a
            .iter()
            .map(|ai| ai - 0.5 - t * sigma * (1.0 + ((mu - ai) / sigma).powi(2)) / 2.0)
            .collect();
        let x = secular_root(q, &phi)?;
        let next: Vec<f64> = q
            .iter()
            .zip(&phi)
            .map(|(qi, f)| qi / (1.0 + x * f))
            .collect();
        let change = p
            .iter()
            .zip(&next)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        p = next;
        // Converged once the change is at rounding level, or stopped shrinking there.
        if change < 1e-15 || (change < 1e-12 && change >= last_change) {
            break;
        }
        last_change = change;
    }
    Some(p)
}

/// `N Σ q̂_i (ln p1_i − ln p0_i)` with `q̂ = r/N`.
fn glr(r: &[f64], p0: &[f64], p1: &[f64]) -> f64 {
    let n: f64 = r.iter().sum();
    n * r
        .iter()
        .zip(p0.iter().zip(p1))
        .map(|(ri, (a, b))| ri / n * (b.ln() - a.ln()))
        .sum::<f64>()
}

fn pdf(r: &[f64]) -> Vec<f64> {
    let n: f64 = r.iter().sum();
    r.iter().map(|c| c / n).collect()
}

/// Exact GLR for logistic Elo hypotheses on regularized counts `r` (trinomial or pentanomial).
fn llr_logistic(r: &[f64], elo0: f64, elo1: f64) -> f64 {
    let a = outcome_scores(r.len());
    let q = pdf(r);
    match (
        mle_expected(&q, &a, elo_to_score(elo0)),
        mle_expected(&q, &a, elo_to_score(elo1)),
    ) {
        (Some(p0), Some(p1)) => glr(r, &p0, &p1),
        _ => f64::NAN,
    }
}

/// Exact GLR for t-value hypotheses on regularized counts `r`.
fn llr_t_value(r: &[f64], t0: f64, t1: f64) -> f64 {
    let a = outcome_scores(r.len());
    let q = pdf(r);
    match (mle_t_value(&q, &a, t0), mle_t_value(&q, &a, t1)) {
        (Some(p0), Some(p1)) => glr(r, &p0, &p1),
        _ => f64::NAN,
    }
}

/// Games played, all with the same outcome (all wins, all draws, all split pairs...): the
/// approximation's variance is zero there, and c-gomoku-cli's formula returns 0 for ever, so a
/// test of an engine that wins every game never stopped. fastchess and fishtest give such
/// counts an LLR by regularising them: every empty cell counts 1e-3 (fastchess's `regularize` in
/// `app/src/matchmaking/sprt/sprt.cpp`, fishtest's `LLRcalc.regularize`), then the exact
/// generalized LLR. `Gsprt` does the same for these tallies only, so every other value stays
/// c-gomoku-cli's, number for number. (The approximation itself on regularised counts would not
/// do: its variance of about 1e-3/n makes a single win cross any bound.)
fn one_sided(cells: &[u64]) -> bool {
    cells.iter().filter(|&&c| c > 0).count() == 1
}

/// c-gomoku-cli's expected score for a logistic Elo, written as it does (exp of a natural log).
fn gsprt_score(elo: f64) -> f64 {
    1.0 / (1.0 + (-elo * std::f64::consts::LN_10 / 400.0).exp())
}

/// c-gomoku-cli / c-chess-cli `sprt_llr`: 0 unless at least two of W, L, D are non-zero;
/// otherwise `(s1−s0)(2s−s0−s1) / (2·var/n)` on the unregularized frequencies.
pub fn gsprt_llr(t: &Wld, elo0: f64, elo1: f64) -> f64 {
    let nonzero = [t.wins, t.losses, t.draws]
        .iter()
        .filter(|&&c| c > 0)
        .count();
    if nonzero < 2 {
        return 0.0;
    }
    let n = t.games() as f64;
    let w = t.wins as f64 / n;
    let l = t.losses as f64 / n;
    let d = 1.0 - w - l;
    let s = w + d / 2.0;
    let var = (w + d / 4.0) - s * s;
    let (s0, s1) = (gsprt_score(elo0), gsprt_score(elo1));
    (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var / n)
}

/// The same approximation on the pair-average distribution (n = pairs).
fn gsprt_llr_pentanomial(p: &Pentanomial, elo0: f64, elo1: f64) -> f64 {
    if p.0.iter().filter(|&&c| c > 0).count() < 2 {
        return 0.0;
    }
    let n = p.pairs() as f64;
    let a = outcome_scores(5);
    let s: f64 = p.0.iter().zip(&a).map(|(&c, ai)| c as f64 / n * ai).sum();
    let var: f64 =
        p.0.iter()
            .zip(&a)
            .map(|(&c, ai)| c as f64 / n * (ai - s).powi(2))
            .sum();
    let (s0, s1) = (gsprt_score(elo0), gsprt_score(elo1));
    (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sprt(model: SprtModel, elo0: f64, elo1: f64) -> Sprt {
        Sprt::new(elo0, elo1, 0.05, 0.05, model).unwrap()
    }

    #[test]
    fn secular_root_solves_the_equation() {
        let q = [0.2, 0.5, 0.3];
        let phi = [-0.6, -0.1, 0.4];
        let x = secular_root(&q, &phi).unwrap();
        let f: f64 = q.iter().zip(&phi).map(|(a, p)| a * p / (1.0 + x * p)).sum();
        assert!(f.abs() < 1e-14, "f = {f}");
        assert!(secular_root(&q, &[0.1, 0.2, 0.3]).is_none());
    }

    #[test]
    fn mle_meets_its_constraints() {
        let q = pdf(&[10.0, 20.0, 30.0, 25.0, 15.0]);
        let a = outcome_scores(5);
        let p = mle_expected(&q, &a, 0.45).unwrap();
        let mean: f64 = p.iter().zip(&a).map(|(x, y)| x * y).sum();
        assert!((mean - 0.45).abs() < 1e-14);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        let p = mle_t_value(&q, &a, 0.1).unwrap();
        let mu: f64 = p.iter().zip(&a).map(|(x, y)| x * y).sum();
        let var: f64 = p.iter().zip(&a).map(|(x, y)| x * (y - mu).powi(2)).sum();
        assert!(((mu - 0.5) / var.sqrt() - 0.1).abs() < 1e-12);
    }

    #[test]
    fn bounds_and_strict_decisions() {
        let s = sprt(SprtModel::Normalized, 0.0, 5.0);
        let (lo, hi) = s.bounds();
        assert!((lo + 2.9444389791664403).abs() < 1e-14 && (hi - 2.9444389791664403).abs() < 1e-14);
        assert_eq!(s.decide(lo), None);
        assert_eq!(s.decide(hi), None);
        assert_eq!(s.decide(hi + 1e-9), Some(Verdict::H1));
        assert_eq!(s.decide(lo - 1e-9), Some(Verdict::H0));
        assert_eq!(s.decide(f64::NAN), None);
    }

    #[test]
    fn invalid_designs_are_rejected() {
        assert!(Sprt::new(0.0, 5.0, 0.0, 0.05, SprtModel::Logistic).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.6, 0.5, SprtModel::Logistic).is_err());
        assert!(Sprt::new(5.0, 5.0, 0.05, 0.05, SprtModel::Logistic).is_err());
        assert!(Sprt::new(0.0, f64::NAN, 0.05, 0.05, SprtModel::Logistic).is_err());
    }

    #[test]
    fn gsprt_decides_one_sided_scores() {
        let s = sprt(SprtModel::Gsprt, 0.0, 5.0);
        let logistic = sprt(SprtModel::Logistic, 0.0, 5.0);
        // No games: no evidence either way.
        assert_eq!(s.llr_trinomial(&Wld::new(0, 0, 0)), 0.0);
        assert_eq!(s.llr_pentanomial(&Pentanomial([0; 5])), 0.0);
        // A one-sided score has no variance: the regularised exact LLR decides it.
        for w in [Wld::new(7, 0, 0), Wld::new(0, 9, 0), Wld::new(0, 0, 9)] {
            assert_eq!(s.llr_trinomial(&w), logistic.llr_trinomial(&w), "{w:?}");
        }
        assert_eq!(
            s.decide(s.llr_trinomial(&Wld::new(500, 0, 0))),
            Some(Verdict::H1)
        );
        assert_eq!(
            s.decide(s.llr_trinomial(&Wld::new(0, 500, 0))),
            Some(Verdict::H0)
        );
        let ww = Pentanomial([0, 0, 0, 0, 250]);
        assert_eq!(s.decide(s.llr_pentanomial(&ww)), Some(Verdict::H1));
        // All pairs split (a strong first-move advantage): an even score, H0 in the end.
        let split = Pentanomial([0, 0, 2000, 0, 0]);
        assert_eq!(s.decide(s.llr_pentanomial(&split)), Some(Verdict::H0));
        // Two outcomes or more: c-gomoku-cli's approximation, unchanged.
        let w = Wld::new(7, 0, 3);
        assert_eq!(s.llr_trinomial(&w), gsprt_llr(&w, 0.0, 5.0));
        assert!(s.llr_trinomial(&w) > 0.0);
    }

    #[test]
    fn extreme_hypotheses_still_fit_by_continuation() {
        let q = pdf(&[10.0, 10.0, 10.0]);
        let a = outcome_scores(3);
        for t in [3.0, -3.0, 10.0] {
            let p = mle_t_value(&q, &a, t).unwrap();
            let mu: f64 = p.iter().zip(&a).map(|(x, y)| x * y).sum();
            let var: f64 = p.iter().zip(&a).map(|(x, y)| x * (y - mu).powi(2)).sum();
            assert!(
                ((mu - 0.5) / var.sqrt() - t).abs() < 1e-9 * t.abs(),
                "t = {t}"
            );
        }
        let s = sprt(SprtModel::Normalized, 0.0, 1000.0);
        let llr = s.llr_trinomial(&Wld::new(10, 10, 10));
        assert!(llr.is_finite() && llr < s.bounds().0, "llr = {llr}");
    }
}
