//! Elo estimates from match tallies: logistic Elo, normalized Elo (nElo), LOS and draw ratio, in the
//! flavours of fastchess (what we print), fishtest (regularized) and cutechess.
//!
//! In all three the Elo "error" is not a delta-method derivative: the 95% confidence interval of the
//! mean score, `score ± z·se`, is mapped through `elo()` and halved. The interval we report is
//! `elo ± error`, which is therefore slightly off-centre from the mapped ends.

use std::f64::consts::{LN_10, SQRT_2};

use serde::Serialize;
use statrs::function::erf::{erf, erfc};

use crate::stats::tally::{Pentanomial, Wld};

/// `Phi^-1(0.975)`, the two-sided 95% normal quantile.
pub const Z95: f64 = 1.959963984540054;

/// nElo per unit of the t-statistic `(score - 1/2) / sigma_per_game`: `800 / ln 10`.
pub const NELO_SCALE: f64 = 800.0 / LN_10;

/// fishtest's value for empty cells, so a one-sided result still gives finite figures.
pub const REGULARIZE_EPSILON: f64 = 1e-3;

/// Logistic Elo difference for a mean score: `-400 log10(1/s - 1)`. ±∞ at 0 and 1, NaN outside.
pub fn score_to_elo(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// Expected score for a logistic Elo difference: `1 / (1 + 10^(-elo/400))`.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Standard normal cumulative distribution.
pub fn phi(x: f64) -> f64 {
    0.5 * erfc(-x / SQRT_2)
}

/// An estimate with its 95% interval. `lower`/`upper` are what the implementation reports; for
/// Elo they are `value ∓ error`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub value: f64,
    /// Half-width of the interval.
    pub error: f64,
    pub lower: f64,
    pub upper: f64,
}

impl Interval {
    fn symmetric(value: f64, error: f64) -> Self {
        Interval {
            value,
            error,
            lower: value - error,
            upper: value + error,
        }
    }
}

/// Elo figures for one pairing, from the first engine's view.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EloEstimate {
    /// Mean score per game.
    pub score: f64,
    /// Logistic Elo.
    pub elo: Interval,
    /// Normalized Elo; `None` for cutechess, which has none.
    pub nelo: Option<Interval>,
    /// Likelihood of superiority, a probability in [0, 1].
    pub los: f64,
    /// Trinomial: share of drawn games. Pentanomial: share of WL+DD pairs (fastchess's and
    /// fishtest's meaning; the game draw rate cannot be recovered from pair counts).
    pub draw_ratio: f64,
}

/// The score interval `score ± z·se` mapped through `f`, halved; used for Elo and for fastchess's
/// nElo alike.
fn mapped_half_width(score: f64, se: f64, f: impl Fn(f64) -> f64) -> f64 {
    (f(score + Z95 * se) - f(score - Z95 * se)) / 2.0
}

/// fastchess `EloWDL`: unregularized, so a perfect score gives infinite Elo and a zero variance NaN
/// errors. This is what the results block prints for unpaired games.
pub fn fastchess_wdl(t: &Wld) -> EloEstimate {
    let games = t.games() as f64;
    let (w, l, d) = (t.wins as f64, t.losses as f64, t.draws as f64);
    let score = w / games + d / (2.0 * games);
    let variance = (w / games) * (1.0 - score).powi(2)
        + (d / games) * (0.5 - score).powi(2)
        + (l / games) * score.powi(2);
    fastchess_estimate(
        score,
        (variance / games).sqrt(),
        variance.sqrt(),
        (2.0 * variance / games).sqrt(),
        d / games,
    )
}

/// fastchess's figures from a mean score: `se` the standard error of the score, `sigma` the
/// per-game standard deviation (nElo's unit), `los_sd` the deviation in its LOS formula.
fn fastchess_estimate(
    score: f64,
    se: f64,
    sigma: f64,
    los_sd: f64,
    draw_ratio: f64,
) -> EloEstimate {
    let nelo = |x: f64| (x - 0.5) / sigma * NELO_SCALE;
    EloEstimate {
        score,
        elo: Interval::symmetric(
            score_to_elo(score),
            mapped_half_width(score, se, score_to_elo),
        ),
        nelo: Some(Interval::symmetric(
            nelo(score),
            mapped_half_width(score, se, nelo),
        )),
        los: (1.0 - erf(-(score - 0.5) / los_sd)) / 2.0,
        draw_ratio,
    }
}

/// fastchess `EloPentanomial`: score and variance of the pair-average score over pairs; nElo uses
/// the per-game sigma `sqrt(2·variance)`. Unregularized like [`fastchess_wdl`].
pub fn fastchess_pentanomial(p: &Pentanomial) -> EloEstimate {
    let c = p.0.map(|x| x as f64);
    let pairs = p.pairs() as f64;
    let score = (c[4] + 0.75 * c[3] + 0.5 * c[2] + 0.25 * c[1]) / pairs;
    let variance: f64 = c
        .iter()
        .enumerate()
        .map(|(i, &n)| (n / pairs) * (i as f64 / 4.0 - score).powi(2))
        .sum();
    fastchess_estimate(
        score,
        (variance / pairs).sqrt(),
        (2.0 * variance).sqrt(),
        (2.0 * variance / pairs).sqrt(),
        c[2] / pairs,
    )
}

/// fishtest's regularization: every zero cell becomes 1e-3.
pub(crate) fn regularize<const K: usize>(counts: [u64; K]) -> [f64; K] {
    counts.map(|c| if c == 0 { REGULARIZE_EPSILON } else { c as f64 })
}

/// fishtest's `elo()`: the score is clamped to [1e-3, 1 - 1e-3] first, so the result is finite.
fn fishtest_score_to_elo(x: f64) -> f64 {
    score_to_elo(x.clamp(REGULARIZE_EPSILON, 1.0 - REGULARIZE_EPSILON))
}

/// fishtest `stat_util.get_elo` on regularized counts (k+1 cells): (mu, elo interval, LOS).
fn fishtest_get_elo(r: &[f64]) -> (f64, Interval, f64) {
    let k = (r.len() - 1) as f64;
    let n: f64 = r.iter().sum();
    let games = n * k / 2.0;
    let mu = r
        .iter()
        .enumerate()
        .map(|(i, &c)| c * (i as f64 / 2.0))
        .sum::<f64>()
        / games;
    let mu_pair = k / 2.0 * mu;
    let var = r
        .iter()
        .enumerate()
        .map(|(i, &c)| c * (i as f64 / 2.0 - mu_pair).powi(2))
        .sum::<f64>()
        / games;
    let se = var.sqrt() / games.sqrt();
    let elo = fishtest_score_to_elo(mu);
    let err = mapped_half_width(mu, se, fishtest_score_to_elo);
    (mu, Interval::symmetric(elo, err), phi((mu - 0.5) / se))
}

/// Mean, variance, skewness and excess kurtosis of a distribution on `values`.
fn moments(values: &[f64], probs: &[f64]) -> (f64, f64, f64, f64) {
    let mean: f64 = values.iter().zip(probs).map(|(a, p)| p * a).sum();
    let central = |k: i32| -> f64 {
        values
            .iter()
            .zip(probs)
            .map(|(a, p)| p * (a - mean).powi(k))
            .sum()
    };
    let var = central(2);
    let skew = central(3) / var.powf(1.5);
    let exkurt = central(4) / (var * var) - 3.0;
    (mean, var, skew, exkurt)
}

/// The t-statistic `(mean - 1/2)/sigma` of a regularized pdf and its delta-method standard error
/// over `n` observations (fishtest's nElo error bars).
fn t_value_with_se(values: &[f64], probs: &[f64], n: f64) -> (f64, f64) {
    let (mean, var, skew, exkurt) = moments(values, probs);
    let t = (mean - 0.5) / var.sqrt();
    let var_t = (1.0 - t * skew + t * t * (exkurt + 2.0) / 4.0).max(0.0);
    (t, (var_t / n).sqrt())
}

/// fishtest on trinomial counts: `get_elo` plus the nElo of its results page, all on counts where
/// zero cells are 1e-3 (so degenerate inputs stay finite).
pub fn fishtest_trinomial(t: &Wld) -> EloEstimate {
    let r = regularize(t.trinomial());
    let n: f64 = r.iter().sum();
    let (mu, elo, los) = fishtest_get_elo(&r);
    let probs = r.map(|c| c / n);
    let (tv, se_t) = t_value_with_se(&[0.0, 0.5, 1.0], &probs, n);
    let lower = NELO_SCALE * (tv - Z95 * se_t);
    let upper = NELO_SCALE * (tv + Z95 * se_t);
    EloEstimate {
        score: mu,
        elo,
        nelo: Some(Interval {
            value: NELO_SCALE * tv,
            error: (upper - lower) / 2.0,
            lower,
            upper,
        }),
        los,
        draw_ratio: r[1] / n,
    }
}

/// fishtest on pentanomial counts: nElo is `(800/ln10)/√2 · t` of the pair-average distribution,
/// with a symmetric delta-method error.
pub fn fishtest_pentanomial(p: &Pentanomial) -> EloEstimate {
    let r = regularize(p.0);
    let n: f64 = r.iter().sum();
    let (mu, elo, los) = fishtest_get_elo(&r);
    let probs = r.map(|c| c / n);
    let (tv, se_t) = t_value_with_se(&[0.0, 0.25, 0.5, 0.75, 1.0], &probs, n);
    let scale = NELO_SCALE / SQRT_2;
    EloEstimate {
        score: mu,
        elo,
        nelo: Some(Interval::symmetric(scale * tv, scale * Z95 * se_t)),
        los,
        draw_ratio: r[2] / n,
    }
}

/// cutechess's inverse error function: Winitzki's approximation with its truncated pi, kept so
/// that our figures match cutechess's output digit for digit.
// The truncated pi is deliberate: it is cutechess's literal.
#[allow(clippy::approx_constant)]
fn cutechess_erf_inv(x: f64) -> f64 {
    let pi = 3.1415926535897_f64;
    let a = 8.0 * (pi - 3.0) / (3.0 * pi * (4.0 - pi));
    let y = (1.0 - x * x).ln();
    let z = 2.0 / (pi * a) + y / 2.0;
    let r = ((z * z - y / a).sqrt() - z).sqrt();
    if x < 0.0 {
        -r
    } else {
        r
    }
}

fn cutechess_phi_inv(p: f64) -> f64 {
    SQRT_2 * cutechess_erf_inv(2.0 * p - 1.0)
}

/// cutechess `Elo` (trinomial only, no nElo). Its z is 1.95716 rather than 1.95996 and its LOS
/// ignores draws: `0.5 + 0.5 erf((W-L)/sqrt(2(W+L)))`, NaN when W+L = 0.
pub fn cutechess_wdl(t: &Wld) -> EloEstimate {
    let n = t.games() as f64;
    let (w, l, d) = (t.wins as f64 / n, t.losses as f64 / n, t.draws as f64 / n);
    let mu = w + d / 2.0;
    let stdev = (w * (1.0 - mu).powi(2) + l * (0.0 - mu).powi(2) + d * (0.5 - mu).powi(2)).sqrt()
        / n.sqrt();
    let mu_min = mu + cutechess_phi_inv(0.025) * stdev;
    let mu_max = mu + cutechess_phi_inv(0.975) * stdev;
    let elo = score_to_elo(mu);
    let error = (score_to_elo(mu_max) - score_to_elo(mu_min)) / 2.0;
    let (wins, losses) = (t.wins as f64, t.losses as f64);
    EloEstimate {
        score: mu,
        elo: Interval::symmetric(elo, error),
        nelo: None,
        los: 0.5 + 0.5 * erf((wins - losses) / (2.0 * (wins + losses)).sqrt()),
        draw_ratio: d,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_and_score_are_inverse() {
        for e in [-800.0, -35.5, 0.0, 12.0, 400.0] {
            assert!((score_to_elo(elo_to_score(e)) - e).abs() < 1e-9);
        }
        assert_eq!(score_to_elo(1.0), f64::INFINITY);
        assert_eq!(score_to_elo(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn fastchess_nelo_error_depends_only_on_games() {
        let a = fastchess_wdl(&Wld::new(120, 100, 200)).nelo.unwrap().error;
        let b = fastchess_wdl(&Wld::new(300, 20, 100)).nelo.unwrap().error;
        let expected = Z95 * NELO_SCALE / 420f64.sqrt();
        assert!((a - expected).abs() < 1e-9 && (b - expected).abs() < 1e-9);
    }

    #[test]
    fn cutechess_z_is_the_approximate_one() {
        assert!((cutechess_phi_inv(0.975) - 1.9571619316560245).abs() < 1e-13);
    }

    #[test]
    fn fishtest_stays_finite_on_degenerate_input() {
        let e = fishtest_pentanomial(&Pentanomial([0, 0, 0, 0, 5550]));
        assert!(e.elo.value.is_finite() && e.nelo.unwrap().value.is_finite());
        // The README's example: Elo 1199.8, nElo 211337 ± 4.1e6.
        assert!((e.elo.value - 1199.8).abs() < 0.05, "{e:?}");
        let n = e.nelo.unwrap();
        assert!((n.value / 211337.0 - 1.0).abs() < 1e-5, "{n:?}");
        assert!((n.error / 4.1e6 - 1.0).abs() < 0.02, "{n:?}");
        let f = fastchess_pentanomial(&Pentanomial([0, 0, 0, 0, 5550]));
        assert_eq!(f.elo.value, f64::INFINITY);
    }
}
