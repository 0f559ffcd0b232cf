//! Error bars as BayesElo's `exactdist` computes them: each player's likelihood over a grid of
//! ratings, the others' ratings held (shifted together so that the mean stays 0), normalized, and
//! the bounds where `(1 - confidence) / 2` of the mass lies beyond, by the trapezoid rule with
//! linear interpolation between grid points.
//!
//! BayesElo evaluates all 1001 grid points; the log-likelihood is concave, so we evaluate only from
//! the rating outwards until it is [`CUTOFF`] below its maximum: the points left out weigh less
//! than `1001 e^-40 ≈ 4e-15` of the total and cannot move a bound.

use std::thread;

use super::condense::Condensed;
use super::mm::Model;

/// BayesElo's grid: `Resolution` points over [`eloMin`, `eloMax`].
const GRID_POINTS: usize = 1001;
const GRID_MIN: f64 = -1500.0;
const GRID_MAX: f64 = 1500.0;
/// Grid points past each end of BayesElo's grid that the walk may go when the grid is not
/// BayesElo's (about 100,000 Elo: a bound, never reached, for the walk stops at [`CUTOFF`]).
const BEYOND: isize = 33_000;
/// How far below its maximum (in nats) the log-likelihood is followed.
pub(super) const CUTOFF: f64 = 40.0;

/// The grid's value at index `i` (BayesElo's `ValueFromIndex`: the middle of the i-th cell).
fn grid_value(i: isize) -> f64 {
    GRID_MIN + ((i as f64 + 0.5) * (GRID_MAX - GRID_MIN)) / GRID_POINTS as f64
}

/// `(minus, plus)` for every rated player, unscaled: rating minus lower bound, upper bound minus
/// rating; the walk out from each rating stopped `cutoff` nats below the maximum ([`CUTOFF`];
/// infinity walks the whole grid, as BayesElo does); past BayesElo's grid only when not
/// `bayeselo_grid`.
pub(super) fn error_bars(
    data: &Condensed,
    model: &Model,
    confidence: f64,
    cutoff: f64,
    bayeselo_grid: bool,
) -> Vec<(f64, f64)> {
    let n = data.players();
    let threads = thread::available_parallelism()
        .map_or(1, |t| t.get())
        .min(n.div_ceil(16))
        .max(1);
    let chunk = n.div_ceil(threads);
    let mut bars = vec![(0.0, 0.0); n];
    thread::scope(|scope| {
        for (c, out) in bars.chunks_mut(chunk).enumerate() {
            scope.spawn(move || {
                let mut dist = PlayerDist::new(model, cutoff, bayeselo_grid);
                for (i, bar) in out.iter_mut().enumerate() {
                    *bar = dist.bars(data, c * chunk + i, confidence);
                }
            });
        }
    });
    bars
}

/// Scratch space for one thread: the opponents' factors and the window of the grid evaluated.
struct PlayerDist<'m> {
    model: &'m Model,
    cutoff: f64,
    /// The grid's first and last index the walk may reach.
    range: (isize, isize),
    /// `td / tw` and `td * tw`: the model's two constants in the win and loss probabilities.
    a: f64,
    b: f64,
    ratio: Vec<f64>,
    window: Vec<f64>,
}

impl<'m> PlayerDist<'m> {
    fn new(model: &'m Model, cutoff: f64, bayeselo_grid: bool) -> Self {
        let tw = 10f64.powf(model.advantage / 400.0);
        let td = 10f64.powf(model.drawelo / 400.0);
        let last = GRID_POINTS as isize - 1;
        PlayerDist {
            model,
            cutoff,
            range: if bayeselo_grid {
                (0, last)
            } else {
                (-BEYOND, last + BEYOND)
            },
            a: td / tw,
            b: td * tw,
            ratio: Vec::new(),
            window: Vec::new(),
        }
    }

    /// Player `k`'s log-likelihood (with the prior's draws) with its rating at grid point `i`.
    fn log_likelihood(&self, data: &Condensed, k: usize, i: isize) -> f64 {
        let n = data.players() as f64;
        let own = self.model.elo[k];
        let x = grid_value(i);
        // The others move by -(x - own)/(n - 1) to keep the mean: a difference moves by x - own
        // plus that.
        let u = 10f64.powf((x - own + (x - own) / (n - 1.0)) / 400.0);
        let (a, b) = (self.a, self.b);
        let mut total = 0.0;
        for (e, &r) in data.entries(k).iter().zip(&self.ratio) {
            // t = 10^(Δ/400) for Δ = this player's rating minus the opponent's.
            let t = r * u;
            let c = &e.c;
            if c[0] + c[1] + c[2] > 0.0 {
                let win = 1.0 / (1.0 + a / t);
                let loss = 1.0 / (1.0 + b * t);
                total += term(c[0], win) + term(c[1], 1.0 - win - loss) + term(c[2], loss);
            }
            if c[3] + c[4] + c[5] > 0.0 {
                let win = 1.0 / (1.0 + a * t);
                let loss = 1.0 / (1.0 + b / t);
                total += term(c[3], win) + term(c[4], 1.0 - win - loss) + term(c[5], loss);
            }
        }
        total
    }

    fn bars(&mut self, data: &Condensed, k: usize, confidence: f64) -> (f64, f64) {
        let elo = &self.model.elo;
        let own = elo[k];
        self.ratio.clear();
        self.ratio.extend(
            data.entries(k)
                .iter()
                .map(|e| 10f64.powf((own - elo[e.opp as usize]) / 400.0)),
        );
        let (first, last) = self.range;
        let step = (GRID_MAX - GRID_MIN) / GRID_POINTS as f64;
        let start = (((own - GRID_MIN) / step - 0.5).round() as isize).clamp(first, last);

        // Walk down from the rating, then up, while the log-likelihood is within the cutoff of the
        // highest seen (a NaN or -inf ends the walk: that far out the mass is nil).
        let mut below = Vec::new();
        let mut max = f64::NEG_INFINITY;
        let mut low = start;
        loop {
            let ll = self.log_likelihood(data, k, low);
            max = max.max(ll);
            below.push(ll);
            if low == first || ll.is_nan() || ll < max - self.cutoff {
                break;
            }
            low -= 1;
        }
        self.window.clear();
        self.window.extend(below.iter().rev());
        let mut high = start;
        while high < last {
            let ll = self.log_likelihood(data, k, high + 1);
            max = max.max(ll);
            self.window.push(ll);
            high += 1;
            if ll.is_nan() || ll < max - self.cutoff {
                break;
            }
        }
        let mut total = 0.0;
        for v in &mut self.window {
            *v = if v.is_nan() { 0.0 } else { (*v - max).exp() };
            total += *v;
        }
        for v in &mut self.window {
            *v /= total;
        }
        let threshold = (1.0 - confidence) / 2.0;
        let lower = bound(&self.window, low, 1, threshold);
        let upper = bound(&self.window, low, -1, threshold);
        (own - lower, upper - own)
    }
}

/// `count * ln(p)`, nothing for a count of 0 (so that an impossible result never played is not
/// `0 * -inf`).
fn term(count: f64, p: f64) -> f64 {
    if count > 0.0 {
        count * p.ln()
    } else {
        0.0
    }
}

/// BayesElo's `GetBoundValue`: from one end of the window (whose first point is grid index `low`;
/// the lower end for `dir` 1, the upper for -1), add trapezoids until `threshold` of the mass is
/// passed, and interpolate within the last one.
fn bound(window: &[f64], low: isize, dir: isize, threshold: f64) -> f64 {
    let (mut p, mut previous) = (0.0, 0.0);
    let mut g = low;
    for step in 0..window.len() {
        let index = if dir > 0 {
            step
        } else {
            window.len() - 1 - step
        };
        g = low + index as isize;
        let value = window[index];
        let new_p = p + (previous + value) / 2.0;
        if new_p >= threshold {
            let (x0, x1) = (grid_value(g - dir), grid_value(g));
            return x0 + (x1 - x0) * (threshold - p) / (new_p - p);
        }
        p = new_p;
        previous = value;
    }
    grid_value(g)
}
