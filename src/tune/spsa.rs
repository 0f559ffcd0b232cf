//! The SPSA step as fishtest and OpenBench compute it: per iteration k a random ±1 flip per
//! parameter, θ± = θ ± c_k·flip sent to two engines, then θ moves by R_k·c_k·(wins − losses)·flip.
//! Iteration k's randomness comes from (seed, k) alone, so any iteration can be recomputed on
//! resume or on another shard.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::tune::params::{Param, ParamKind, Params};

/// The run-wide SPSA constants.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SpsaSettings {
    /// Decay exponent of the learning rate (0.602).
    pub alpha: f64,
    /// Decay exponent of the perturbation (0.101).
    pub gamma: f64,
    /// The stability constant A; `None` is 0.1·N.
    pub a_big: Option<f64>,
    /// N, the planned number of iterations (the caller sets it).
    pub iterations: u64,
}

impl Default for SpsaSettings {
    fn default() -> Self {
        SpsaSettings {
            alpha: 0.602,
            gamma: 0.101,
            a_big: None,
            iterations: 0,
        }
    }
}

/// One iteration's perturbation: what the two engines are sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The iteration, 1-based.
    pub k: u64,
    /// −1 or +1 per parameter.
    pub flips: Vec<i8>,
    /// The perturbation size per parameter (at least 0.5 for integers).
    pub c_k: Vec<f64>,
    /// θ + c_k·flip as sent: clipped to [min, max], integers rounded probabilistically.
    pub plus: Vec<f64>,
    /// θ − c_k·flip as sent, likewise.
    pub minus: Vec<f64>,
}

/// Per-parameter constants of one run.
#[derive(Debug, Clone, PartialEq)]
struct Derived {
    kind: ParamKind,
    min: f64,
    max: f64,
    /// c = c_end·N^γ.
    c: f64,
    /// a = r_end·c_end²·(A + N)^α.
    a: f64,
}

/// The SPSA rule of one run: settings and each parameter's derived constants.
#[derive(Debug, Clone, PartialEq)]
pub struct Spsa {
    settings: SpsaSettings,
    /// A as used (0.1·N when the settings leave it out).
    a_big: f64,
    params: Vec<Derived>,
}

/// A value of an integer parameter rounded as OpenBench does: floor(x + u), u uniform in [0, 1),
/// so the expected value sent is x; kept inside the integers of [min, max].
fn round_int(x: f64, u: f64, min: f64, max: f64) -> f64 {
    (x + u).floor().clamp(min.ceil(), max.floor())
}

impl Spsa {
    /// Derives each parameter's c and a. An N of 0 counts as 1 (there is always an iteration).
    pub fn new(params: &Params, settings: SpsaSettings) -> Spsa {
        let n = settings.iterations.max(1) as f64;
        let a_big = settings.a_big.unwrap_or(0.1 * n);
        let derive = |p: &Param| Derived {
            kind: p.kind,
            min: p.min,
            max: p.max,
            c: p.c_end * n.powf(settings.gamma),
            a: p.r_end * p.c_end * p.c_end * (a_big + n).powf(settings.alpha),
        };
        Spsa {
            settings,
            a_big,
            params: params.list.iter().map(derive).collect(),
        }
    }

    /// The settings the run was built with.
    pub fn settings(&self) -> SpsaSettings {
        self.settings
    }

    /// A as used.
    pub fn a_big(&self) -> f64 {
        self.a_big
    }

    /// c per parameter (the perturbation size at iteration 1).
    pub fn c(&self) -> Vec<f64> {
        self.params.iter().map(|d| d.c).collect()
    }

    /// a per parameter.
    pub fn a(&self) -> Vec<f64> {
        self.params.iter().map(|d| d.a).collect()
    }

    /// c_k = c / k^γ per parameter, floored at 0.5 for integers (k 0 counts as 1): the band a
    /// report draws around θ.
    pub fn c_k(&self, k: u64) -> Vec<f64> {
        let kg = (k.max(1) as f64).powf(self.settings.gamma);
        self.params
            .iter()
            .map(|d| match d.kind {
                ParamKind::Int => (d.c / kg).max(0.5),
                ParamKind::Float => d.c / kg,
            })
            .collect()
    }

    /// R_k = a / (A + k)^α / c_k² per parameter, for the step's c_k.
    pub fn r_k(&self, k: u64, c_k: &[f64]) -> Vec<f64> {
        let denom = (self.a_big + k.max(1) as f64).powf(self.settings.alpha);
        self.params
            .iter()
            .zip(c_k)
            .map(|(d, ck)| d.a / denom / (ck * ck))
            .collect()
    }

    /// Iteration k (1-based) at θ: flips and u's come from a ChaCha RNG seeded from (seed, k)
    /// only, so iteration k is recomputable anywhere (resume, shards).
    pub fn step(&self, k: u64, theta: &[f64], seed: u64) -> Step {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        key[8..16].copy_from_slice(&k.to_le_bytes());
        let mut rng = ChaCha8Rng::from_seed(key);
        // Always the same draws per parameter (flip, u+, u−), whatever its kind.
        let draws: Vec<(i8, f64, f64)> = self
            .params
            .iter()
            .map(|_| {
                let flip = if rng.gen::<bool>() { 1 } else { -1 };
                (flip, rng.gen::<f64>(), rng.gen::<f64>())
            })
            .collect();
        let c_k = self.c_k(k);
        let send = |d: &Derived, x: f64, u: f64| {
            let x = x.clamp(d.min, d.max);
            match d.kind {
                ParamKind::Int => round_int(x, u, d.min, d.max),
                ParamKind::Float => x,
            }
        };
        let mut step = Step {
            k,
            flips: Vec::with_capacity(self.params.len()),
            c_k: c_k.clone(),
            plus: Vec::with_capacity(self.params.len()),
            minus: Vec::with_capacity(self.params.len()),
        };
        for (((d, &(flip, up, um)), &t), ck) in self.params.iter().zip(&draws).zip(theta).zip(c_k) {
            let delta = ck * f64::from(flip);
            step.flips.push(flip);
            step.plus.push(send(d, t + delta, up));
            step.minus.push(send(d, t - delta, um));
        }
        step
    }

    /// θ ← clip(θ + R_k·c_k·score·flip), R_k = a/(A+k)^α/c_k²; score = wins − losses of θ+ over
    /// the iteration's games (draws 0).
    pub fn update(&self, theta: &[f64], step: &Step, score: i64) -> Vec<f64> {
        let r_k = self.r_k(step.k, &step.c_k);
        self.params
            .iter()
            .zip(theta)
            .zip(step.flips.iter().zip(&step.c_k).zip(r_k))
            .map(|((d, &t), ((&flip, &ck), r))| {
                (t + r * ck * score as f64 * f64::from(flip)).clamp(d.min, d.max)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::params::ParamsFormat;
    use proptest::prelude::*;

    fn param(kind: ParamKind, start: f64, min: f64, max: f64, c_end: f64, r_end: f64) -> Param {
        Param {
            name: format!("p{start}"),
            kind,
            start,
            min,
            max,
            c_end,
            r_end,
        }
    }

    fn params(list: Vec<Param>) -> Params {
        Params {
            format: ParamsFormat::OpenBench,
            list,
        }
    }

    /// SPSA over `p` with the default settings but `iterations`.
    fn with_iterations(p: &Params, iterations: u64) -> Spsa {
        let settings = SpsaSettings {
            iterations,
            ..SpsaSettings::default()
        };
        Spsa::new(p, settings)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    /// Numbers chosen so that every power is exact: N 16, γ ½, α ½, A 0.
    #[test]
    fn constants_by_hand() {
        let p = params(vec![param(ParamKind::Float, 50.0, 0.0, 100.0, 3.0, 0.01)]);
        let s = Spsa::new(
            &p,
            SpsaSettings {
                alpha: 0.5,
                gamma: 0.5,
                a_big: Some(0.0),
                iterations: 16,
            },
        );
        // c = 3·16^½ = 12; a = 0.01·3²·(0 + 16)^½ = 0.36.
        assert!(close(s.c()[0], 12.0) && close(s.a()[0], 0.36));
        // k = 4: c_k = 12 / 4^½ = 6; R_k = 0.36 / 4^½ / 6² = 0.005.
        assert!(close(s.c_k(4)[0], 6.0));
        assert!(close(s.r_k(4, &[6.0])[0], 0.005));
        let step = s.step(4, &[50.0], 9);
        let flip = f64::from(step.flips[0]);
        assert_eq!(step.plus, vec![50.0 + 6.0 * flip]);
        assert_eq!(step.minus, vec![50.0 - 6.0 * flip]);
        // θ += R_k·c_k·score·flip = 0.005·6·3·flip = 0.09·flip.
        let theta = s.update(&[50.0], &step, 3);
        assert!(close(theta[0], 50.0 + 0.09 * flip), "{theta:?}");
    }

    /// The default exponents, checked against values computed separately (Python, float64):
    /// N 100, A 10 by default, c_end 2, r_end 0.002.
    #[test]
    fn default_settings_values() {
        let p = params(vec![param(ParamKind::Float, 0.0, -50.0, 50.0, 2.0, 0.002)]);
        let s = with_iterations(&p, 100);
        assert!(close(s.a_big(), 10.0));
        assert!(close(s.c()[0], 3.1844174541023405));
        assert!(close(s.a()[0], 0.1355215572669805));
        let c7 = s.c_k(7);
        assert!(close(c7[0], 2.6162250136553045));
        assert!(close(s.r_k(7, &c7)[0], 0.003596896535478075));
        let step = s.step(7, &[0.0], 1);
        let got = s.update(&[0.0], &step, -2);
        let want = 0.009410290687647845 * -2.0 * f64::from(step.flips[0]);
        assert!(close(got[0], want), "{got:?} {want}");
    }

    #[test]
    fn integer_c_k_is_floored_at_a_half() {
        let p = params(vec![
            param(ParamKind::Int, 5.0, 0.0, 10.0, 0.5, 0.002),
            param(ParamKind::Float, 5.0, 0.0, 10.0, 0.5, 0.002),
        ]);
        let settings = SpsaSettings {
            alpha: 0.5,
            gamma: 0.5,
            a_big: None,
            iterations: 16,
        };
        // c = 0.5·4 = 2; at k 64, c / 8 = 0.25.
        assert_eq!(Spsa::new(&p, settings).c_k(64), vec![0.5, 0.25]);
    }

    #[test]
    fn steps_depend_on_seed_and_k_only() {
        let list = (0..64).map(|i| param(ParamKind::Int, 50.0, 0.0, 100.0, 4.0 + i as f64, 0.002));
        let s = with_iterations(&params(list.collect()), 1000);
        let theta = vec![50.3; 64];
        assert_eq!(s.step(17, &theta, 5), s.step(17, &theta, 5));
        assert_eq!(s.clone().step(17, &theta, 5), s.step(17, &theta, 5));
        assert_ne!(s.step(17, &theta, 5).flips, s.step(17, &theta, 6).flips);
        assert_ne!(s.step(17, &theta, 5).flips, s.step(18, &theta, 5).flips);
        assert!(s
            .step(3, &theta, 1)
            .flips
            .iter()
            .all(|f| *f == 1 || *f == -1));
    }

    #[test]
    fn sent_values_are_clipped() {
        let p = params(vec![
            param(ParamKind::Float, 1.0, 0.0, 1.5, 5.0, 0.002),
            param(ParamKind::Int, 0.0, 0.0, 3.0, 5.0, 0.002),
        ]);
        let s = with_iterations(&p, 10);
        let step = s.step(1, &[1.0, 0.0], 3);
        for (v, (lo, hi)) in step
            .plus
            .iter()
            .chain(&step.minus)
            .zip([(0.0, 1.5), (0.0, 3.0)].iter().cycle())
        {
            assert!(*lo <= *v && *v <= *hi, "{step:?}");
        }
        // c_k is over 5, so each value hits a bound.
        let float_sent = [step.plus[0], step.minus[0]];
        assert!(
            float_sent.contains(&0.0) && float_sent.contains(&1.5),
            "{step:?}"
        );
        // A huge score moves θ onto the bound its flip points to.
        let big = s.update(&[1.0, 0.0], &step, 1_000_000);
        let bound = |i: usize, lo: f64, hi: f64| if step.flips[i] > 0 { hi } else { lo };
        assert_eq!(big, vec![bound(0, 0.0, 1.5), bound(1, 0.0, 3.0)]);
    }

    /// floor(x + u) has expectation x: the mean of what is sent over many seeds is θ.
    #[test]
    fn integer_rounding_is_unbiased_and_integral() {
        let p = params(vec![param(ParamKind::Int, 50.0, 0.0, 100.0, 1.37, 0.002)]);
        let s = with_iterations(&p, 100);
        let theta = [47.3];
        let runs = 4000;
        let mut sum = 0.0;
        for seed in 0..runs {
            let st = s.step(5, &theta, seed);
            assert!(
                st.plus[0].fract() == 0.0 && st.minus[0].fract() == 0.0,
                "{st:?}"
            );
            sum += st.plus[0] + st.minus[0];
        }
        let mean = sum / (2 * runs) as f64;
        // Each draw has a standard deviation under 0.5; the mean of 8000 is within 0.05 by far.
        assert!((mean - 47.3).abs() < 0.05, "{mean}");
    }

    #[test]
    fn rounding_stays_on_integers_inside_fractional_bounds() {
        for u in [0.0, 0.3, 0.999] {
            let r = round_int(10.5, u, 0.5, 10.5);
            assert!(r.fract() == 0.0 && (1.0..=10.0).contains(&r), "{r}");
        }
    }

    fn arb_param() -> impl Strategy<Value = (Param, f64)> {
        (
            any::<bool>(),
            -1000.0..1000.0f64,
            0.0..500.0f64,
            0.0..1.0f64,
            0.01..100.0f64,
            0.0001..0.1f64,
            0.0..1.0f64,
        )
            .prop_map(|(int, min, width, at, c_end, r_end, theta_at)| {
                let (min, max) = if int {
                    (min.floor(), min.floor() + width.floor())
                } else {
                    (min, min + width)
                };
                let kind = if int {
                    ParamKind::Int
                } else {
                    ParamKind::Float
                };
                let start = min + at * (max - min);
                let theta = min + theta_at * (max - min);
                (param(kind, start, min, max, c_end, r_end), theta)
            })
    }

    proptest! {
        #[test]
        fn sent_and_updated_values_stay_in_bounds(
            ps in prop::collection::vec(arb_param(), 1..6),
            n in 1u64..5000,
            k in 1u64..6000,
            seed in any::<u64>(),
            score in -20i64..20,
        ) {
            let theta: Vec<f64> = ps.iter().map(|(_, t)| *t).collect();
            let p = params(ps.into_iter().map(|(p, _)| p).collect());
            let s = with_iterations(&p, n);
            let step = s.step(k, &theta, seed);
            let next = s.update(&theta, &step, score);
            for (i, q) in p.list.iter().enumerate() {
                for v in [step.plus[i], step.minus[i], next[i]] {
                    prop_assert!(q.min <= v && v <= q.max, "{v} outside {q:?}");
                }
                if q.kind == ParamKind::Int {
                    prop_assert!(step.plus[i].fract() == 0.0 && step.minus[i].fract() == 0.0);
                }
            }
        }
    }
}
