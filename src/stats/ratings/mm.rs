//! The maximum of the likelihood by minorization–maximization (Hunter's MM for Bradley–Terry with
//! home advantage and ties, as BayesElo runs it): gammas `10^(elo/400)`, then the advantage
//! `ThetaW = 10^(advantage/400)` and the draw parameter `ThetaD = 10^(drawelo/400)`.
//!
//! The sweep order is BayesElo's (players from the last to the first, each using the new gammas of
//! those already updated), and so is the stopping rule: the fit stops where BayesElo's does, not
//! at the exact maximum, which matters for matching its output when convergence is slow.

use super::condense::Condensed;
use super::types::{FitSettings, Parameter, RatingError};

/// BayesElo's default stopping threshold and sweep limit.
const EPSILON: f64 = 1e-5;
const MAX_SWEEPS: u32 = 10_000;

/// The fitted model, over the rated players (compact indices).
pub(super) struct Model {
    /// Ratings in Elo, mean 0, unscaled.
    pub elo: Vec<f64>,
    pub advantage: f64,
    pub drawelo: f64,
    pub iterations: u32,
}

fn theta(parameter: Parameter) -> (bool, f64) {
    match parameter {
        Parameter::Estimate => (true, 1.0),
        Parameter::Fixed(elo) => (false, 10f64.powf(elo / 400.0)),
    }
}

/// The sums over every entry (each pair seen from both sides) that the two parameter updates
/// divide by: BayesElo's UpdateThetaW and UpdateThetaD denominators.
fn theta_denominators(data: &Condensed, gamma: &[f64], tw: f64, td: f64) -> (f64, f64) {
    let (mut dw, mut dd) = (0.0, 0.0);
    for k in 0..data.players() {
        let gk = gamma[k];
        for e in data.entries(k) {
            let go = gamma[e.opp as usize];
            let first_scored = e.c[0] + e.c[1];
            let first_gave = e.c[1] + e.c[2];
            let win_side = tw * gk + td * go;
            let loss_side = td * tw * gk + go;
            dw += first_scored * gk / win_side + first_gave * td * gk / loss_side;
            dd += first_scored * go / win_side + first_gave * tw * gk / loss_side;
        }
    }
    (dw, dd)
}

pub(super) fn maximize(data: &Condensed, settings: &FitSettings) -> Result<Model, RatingError> {
    let n = data.players();
    let (estimate_w, mut tw) = theta(settings.advantage);
    let (estimate_d, mut td) = theta(settings.drawelo);
    // Numerators: what each player scored (wins and draws with either colour); the games the
    // first mover scored; the draws with the first mover on this side.
    let scored: Vec<f64> = (0..n)
        .map(|k| {
            data.entries(k)
                .iter()
                .map(|e| e.c[0] + e.c[1] + e.c[4] + e.c[5])
                .sum()
        })
        .collect();
    let first_scored: f64 = data.entries.iter().map(|e| e.c[0] + e.c[1]).sum();
    let draws: f64 = data.entries.iter().map(|e| e.c[1]).sum();

    let mut gamma = vec![1.0; n];
    let mut next = vec![0.0; n];
    let mut iterations = 0;
    while iterations < MAX_SWEEPS {
        iterations += 1;
        for k in (0..n).rev() {
            let gk = gamma[k];
            let mut b = 0.0;
            for e in data.entries(k) {
                let o = e.opp as usize;
                let go = if o > k { next[o] } else { gamma[o] };
                b += (e.c[0] + e.c[1]) * tw / (tw * gk + td * go)
                    + (e.c[1] + e.c[2]) * td * tw / (td * tw * gk + go)
                    + (e.c[3] + e.c[4]) * td / (tw * go + td * gk)
                    + (e.c[4] + e.c[5]) / (td * tw * go + gk);
            }
            next[k] = scored[k] / b;
        }
        std::mem::swap(&mut gamma, &mut next);
        let mut diff = gamma
            .iter()
            .zip(&next)
            .map(|(a, b)| (a - b).abs() / (a + b))
            .fold(0.0, f64::max);
        if estimate_w {
            let (dw, _) = theta_denominators(data, &gamma, tw, td);
            let new = first_scored / dw;
            diff = diff.max((tw - new).abs());
            tw = new;
        }
        if estimate_d {
            let (_, dd) = theta_denominators(data, &gamma, tw, td);
            let c = draws / dd;
            let new = c + (c * c + 1.0).sqrt();
            diff = diff.max((td - new).abs());
            td = new;
        }
        // A NaN difference (a diverging fit) must not pass for convergence: checked below.
        if diff < EPSILON || diff.is_nan() {
            break;
        }
    }

    let mut elo: Vec<f64> = gamma.iter().map(|g| g.log10() * 400.0).collect();
    let mean = elo.iter().sum::<f64>() / n as f64;
    for e in &mut elo {
        *e -= mean;
    }
    if let Some(k) = elo.iter().position(|e| !e.is_finite()) {
        return Err(RatingError::Unbounded {
            player: data.ids[k],
        });
    }
    let parameter = |estimated: bool, theta: f64, fixed: Parameter, name| match fixed {
        Parameter::Fixed(elo) => Ok(elo),
        Parameter::Estimate if estimated && theta.is_finite() && theta > 0.0 => {
            Ok(theta.log10() * 400.0)
        }
        Parameter::Estimate => Err(RatingError::UnboundedParameter { parameter: name }),
    };
    Ok(Model {
        elo,
        advantage: parameter(estimate_w, tw, settings.advantage, "advantage")?,
        drawelo: parameter(estimate_d, td, settings.drawelo, "draw Elo")?,
        iterations,
    })
}
