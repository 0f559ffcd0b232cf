//! The rating list of many engines: Bradley–Terry ratings with a first-mover advantage and a draw
//! parameter, fitted as Rémi Coulom's BayesElo fits them, so that our list equals the one Gomocup
//! publishes (within 1 Elo, checked against BayesElo's own output in `tests/it/ratings_bayeselo.rs`).
//!
//! The model, for a game between the first mover `f` and the second `s`, ratings in Elo,
//! `P(x) = 1 / (1 + 10^(x/400))`, `Δ = elo_f - elo_s`:
//! `P(first wins) = P(-Δ - advantage + drawelo)`, `P(second wins) = P(Δ + advantage + drawelo)`,
//! `P(draw)` the rest.
//!
//! What [`fit`] does, step by step as BayesElo's script `mm`, `exactdist`, `ratings`, `los` does it:
//! - the games are condensed into per-pair counts, and the prior added as virtual draws: each
//!   player `i` with `N_i` games spreads `prior / 4 / N_i` draws per game over its pairs, with each
//!   colour, on both sides (so `prior` = 2 gives each player about 2 virtual draws in all);
//! - the maximum of the likelihood (with those draws) by minorization–maximization on
//!   `gamma = 10^(elo/400)`: one Gauss–Seidel sweep over the players from the last to the first,
//!   then the advantage, then the draw parameter when they are estimated, until no value moves by
//!   1e-5 (relative for gammas), at most 10,000 sweeps; ratings are then shifted to mean 0;
//! - the error bars as BayesElo's `exactdist`: each player's likelihood on a grid of 1001 points over
//!   [-1500, 1500] with the others' ratings fixed (shifted to keep the mean), normalized, and the
//!   bounds of the central `confidence` mass found by the trapezoid rule. The grid is walked out
//!   from the rating only until the log-likelihood is 40 below its maximum: what lies further out
//!   is below double precision of the integral, so the bounds are the same;
//! - the printed Elo is scaled as BayesElo scales it after `mm`: `x = 10^(-drawelo/400)`,
//!   `scale = 4x / (1 + x)^2` (the slope of the expected score at Δ = 0 with draws, against the
//!   logistic curve without), on ratings, error bars and average opponents; then `offset` is added;
//! - the likelihood of superiority, when asked (O(n³)): from the inverse of the Hessian of the
//!   log-likelihood with one player's rating held, `P(i > j) = erfc(-(elo_i - elo_j) / sqrt(2 σ²)) / 2`.
//!
//! Players with no game are not rated: they take no part in the fit or its mean (the others' ratings
//! are those of a file without them), are listed at the mean (`offset`) with no error bar and 0
//! games, sort last, and are left out of the tables (BayesElo never sees them). Games between
//! players in two groups that never met through any chain of games cannot be compared: [`fit`]
//! refuses them, as it refuses a prior of 0 when some group of players scored everything (their
//! ratings would run to infinity).

mod condense;
mod exactdist;
mod los;
mod mm;
mod render;
#[cfg(test)]
mod tests;
mod types;

pub use render::{render_los, render_parameters, render_table};
pub use types::{
    FitSettings, Outcome, Parameter, PlayerRating, RatedGame, RatingError, RatingList,
};

fn check_settings(settings: &FitSettings) -> Result<(), RatingError> {
    let setting = |name, expected, value: f64, ok: bool| {
        if ok {
            Ok(())
        } else {
            Err(RatingError::Setting {
                name,
                expected,
                value,
            })
        }
    };
    let p = settings.prior;
    setting("prior", "0 or above", p, p.is_finite() && p >= 0.0)?;
    let c = settings.confidence;
    setting(
        "confidence",
        "strictly between 0 and 1",
        c,
        c > 0.0 && c < 1.0,
    )?;
    let o = settings.offset;
    setting("offset", "finite", o, o.is_finite())?;
    if let Parameter::Fixed(a) = settings.advantage {
        setting("advantage", "finite", a, a.is_finite())?;
    }
    if let Parameter::Fixed(d) = settings.drawelo {
        setting("drawelo", "finite", d, d.is_finite())?;
    }
    Ok(())
}

/// Fits the rating list of `players` players (ids `0..players`) from `games`.
pub fn fit(
    players: usize,
    games: &[RatedGame],
    settings: &FitSettings,
) -> Result<RatingList, RatingError> {
    check_settings(settings)?;
    let data = condense::Condensed::new(players, games, settings.prior)?;
    if settings.prior == 0.0 {
        data.check_bounded(settings)?;
    }
    let model = mm::maximize(&data, settings)?;
    let bars = exactdist::error_bars(
        &data,
        &model,
        settings.confidence,
        exactdist::CUTOFF,
        settings.bayeselo_grid,
    );
    let scale = {
        let x = 10f64.powf(-model.drawelo / 400.0);
        x * 4.0 / ((1.0 + x) * (1.0 + x))
    };
    let offset = settings.offset;
    let mut list: Vec<PlayerRating> = (0..players)
        .map(|_| PlayerRating {
            elo: offset,
            minus: 0.0,
            plus: 0.0,
            games: 0,
            score: 0.0,
            draws: 0,
            opponent: offset,
        })
        .collect();
    for (k, &id) in data.ids.iter().enumerate() {
        let real = &data.real[k];
        list[id] = PlayerRating {
            elo: scale * model.elo[k] + offset,
            minus: scale * bars[k].0,
            plus: scale * bars[k].1,
            games: real.games,
            score: real.points2 as f64 / 2.0,
            draws: real.draws,
            opponent: scale * data.average_opponent(k, &model.elo) + offset,
        };
    }
    let los = settings
        .los
        .then(|| los::superiority(&data, &model))
        .transpose()?
        .map(|rated| {
            let mut full = vec![vec![0.5; players]; players];
            for (i, row) in full.iter_mut().enumerate() {
                row[i] = 0.0;
            }
            for (a, &i) in data.ids.iter().enumerate() {
                for (b, &j) in data.ids.iter().enumerate() {
                    full[i][j] = rated[a][b];
                }
            }
            full
        });
    Ok(RatingList {
        advantage: model.advantage,
        drawelo: model.drawelo,
        scale,
        offset,
        players: list,
        los,
        iterations: model.iterations,
    })
}
