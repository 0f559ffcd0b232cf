//! The likelihood of superiority between every two players, as BayesElo's `los` computes it: the
//! covariance of the ratings from the inverse of the Hessian of the log-likelihood (the last
//! player's rating held at 0 so that it is invertible), and `P(i > j)` from the normal law of
//! `elo_i - elo_j`.
//!
//! BayesElo LU-decomposes the truncated Hessian and forms `A H⁻¹ Aᵀ` with `A` the map to mean-0
//! ratings; the variance of a difference is the same from `H⁻¹` alone (`A` adds the same shift to
//! both), and `-H` is positive definite on a connected set of games, so we take its Cholesky
//! factor and invert that: about n³/2 multiply-adds, the inversion spread over threads.

use std::thread;

use statrs::function::erf::erfc;

use super::condense::Condensed;
use super::mm::Model;
use super::types::RatingError;

/// `P(i stronger than j)` over the rated players (compact indices), 0 on the diagonal.
pub(super) fn superiority(data: &Condensed, model: &Model) -> Result<Vec<Vec<f64>>, RatingError> {
    let n = data.players();
    let m = n - 1;
    let mut h = information(data, model);
    cholesky(&mut h, m)?;
    let inverse = inverse_from_cholesky(&h, m);
    let diag = |i: usize| if i < m { inverse[i * m + i] } else { 0.0 };
    let cov = |i: usize, j: usize| {
        if i < m && j < m {
            inverse[i.max(j) * m + i.min(j)]
        } else {
            0.0
        }
    };
    let elo = &model.elo;
    let mut los = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..i {
            let variance = diag(i) + diag(j) - 2.0 * cov(i, j);
            let x = (elo[j] - elo[i]) / (2.0 * variance).sqrt();
            los[i][j] = erfc(x) / 2.0;
            los[j][i] = erfc(-x) / 2.0;
        }
    }
    Ok(los)
}

/// The observed information (minus the Hessian of the log-likelihood, in Elo) over the first
/// `n - 1` players, row-major.
fn information(data: &Condensed, model: &Model) -> Vec<f64> {
    let n = data.players();
    let m = n - 1;
    let tw = 10f64.powf(model.advantage / 400.0);
    let td = 10f64.powf(model.drawelo / 400.0);
    let gamma: Vec<f64> = model.elo.iter().map(|e| 10f64.powf(e / 400.0)).collect();
    let x2 = (std::f64::consts::LN_10 / 400.0).powi(2);
    let mut h = vec![0.0; m * m];
    for k in 0..m {
        let gk = gamma[k];
        let mut diag = 0.0;
        for e in data.entries(k) {
            let o = e.opp as usize;
            let go = gamma[o];
            let c = &e.c;
            let sq = |d: f64| d * d;
            let curvature = ((c[0] + c[1]) / sq(tw * gk + td * go)
                + (c[2] + c[1]) / sq(td * tw * gk + go)
                + (c[3] + c[4]) / sq(tw * go + td * gk)
                + (c[5] + c[4]) / sq(td * tw * go + gk))
                * gk
                * go
                * td
                * tw
                * x2;
            diag += curvature;
            if o < m {
                h[k * m + o] = -curvature;
            }
        }
        h[k * m + k] = diag;
    }
    h
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// In place: the lower triangle of `h` becomes `L` with `L Lᵀ = h`.
fn cholesky(h: &mut [f64], m: usize) -> Result<(), RatingError> {
    for i in 0..m {
        for j in 0..=i {
            let (above, row) = h.split_at_mut(i * m);
            let s = if j < i {
                row[j] - dot(&row[..j], &above[j * m..j * m + j])
            } else {
                row[j] - dot(&row[..j], &row[..j])
            };
            if j == i {
                if s.is_nan() || s <= 0.0 {
                    return Err(RatingError::Singular);
                }
                row[i] = s.sqrt();
            } else {
                row[j] = s / above[j * m + j];
            }
        }
    }
    Ok(())
}

/// `h⁻¹` from its Cholesky factor, lower triangle row-major (`[i * m + j]` for `j <= i`).
fn inverse_from_cholesky(l: &[f64], m: usize) -> Vec<f64> {
    let threads = thread::available_parallelism().map_or(1, |t| t.get());
    // Row j of `y` holds column j of L⁻¹ (zero before j), so every sum below is a dot product of
    // two contiguous rows. Columns are independent: threads take them in turn.
    let mut y = vec![0.0; m * m];
    let rows: Vec<&mut [f64]> = y.chunks_mut(m.max(1)).collect();
    spread(rows, threads, |j, col| {
        col[j] = 1.0 / l[j * m + j];
        for i in j + 1..m {
            let s = dot(&l[i * m + j..i * m + i], &col[j..i]);
            col[i] = -s / l[i * m + i];
        }
    });
    // h⁻¹ = L⁻ᵀ L⁻¹: entry (a, b) for b <= a is the dot of rows a and b of `y` from a on.
    let mut inverse = vec![0.0; m * m];
    let rows: Vec<&mut [f64]> = inverse.chunks_mut(m.max(1)).collect();
    spread(rows, threads, |a, row| {
        for b in 0..=a {
            row[b] = dot(&y[a * m + a..a * m + m], &y[b * m + a..b * m + m]);
        }
    });
    inverse
}

/// Runs `work(index, row)` on every row, rows dealt round-robin to `threads` threads (the rows'
/// costs grow or shrink with the index, so dealing them evens the load).
fn spread(rows: Vec<&mut [f64]>, threads: usize, work: impl Fn(usize, &mut [f64]) + Sync) {
    let mut hands: Vec<Vec<(usize, &mut [f64])>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, row) in rows.into_iter().enumerate() {
        hands[i % threads].push((i, row));
    }
    let work = &work;
    thread::scope(|scope| {
        for hand in hands {
            scope.spawn(move || {
                for (i, row) in hand {
                    work(i, row);
                }
            });
        }
    });
}
