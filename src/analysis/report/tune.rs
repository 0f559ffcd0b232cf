//! The report's tuning figures: for a `gomoku-cli tune` run, θ of each parameter after every
//! completed iteration with the band θ ± c_k of the iteration that made the point, and its start,
//! final value and bounds. Pure: the journal's `tune` fields in, a [`TuneReport`] out (drawn by
//! `tune_section`).
//!
//! θ is replayed from the steps (flips and score) the journals recorded, each iteration's once, in
//! the order the entries come (the games' finishing order): what every shard of the run does, so
//! the journals of several shards give one trajectory, and one journal gives its own θ exactly.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::analysis::report::figures::thin_indices;
use crate::tune::entry::{TuneEntry, TuneSettings};
use crate::tune::params::{Param, Params, ParamsFormat};
use crate::tune::spsa::{Spsa, SpsaSettings, Step};

/// θ of one parameter after one completed iteration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TunePoint {
    /// Iterations completed, this one included (the chart's x).
    pub completed: u64,
    /// The iteration k whose step made the point (with several games at once, not `completed`).
    pub iteration: u64,
    pub value: f64,
    /// That iteration's perturbation c_k for the parameter: the band is `value ± c_k`.
    pub c_k: f64,
}

/// One parameter's trajectory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuneParam {
    pub param: Param,
    /// θ after the last completed iteration (the start value before any).
    pub final_value: f64,
    /// Thinned to at most [`crate::analysis::report::figures::MAX_POINTS`] points, the last one always kept.
    pub points: Vec<TunePoint>,
}

/// What the page shows of a tuning run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuneReport {
    pub params: Vec<TuneParam>,
    /// N, the iterations the run was set to play.
    pub iterations: u64,
    /// Iterations whose step the journals hold.
    pub completed: u64,
    pub pairs: u64,
    /// Games of the run read (each once).
    pub games: u64,
}

/// Builds a [`TuneReport`] from the game lines' `tune` fields, fed in the order the games finished.
pub struct TuneBuilder {
    params: Vec<Param>,
    spsa: Spsa,
    iterations: u64,
    pairs: u64,
    theta: Vec<f64>,
    /// Iterations whose step was applied: a step read again (another shard's copy) is skipped.
    applied: BTreeSet<u64>,
    /// Per completed iteration: k, θ after it, c_k.
    steps: Vec<(u64, Vec<f64>, Vec<f64>)>,
    games: u64,
}

impl TuneBuilder {
    /// From the journal header's `tune` settings.
    pub fn new(s: &TuneSettings) -> TuneBuilder {
        let params = Params {
            format: ParamsFormat::OpenBench,
            list: s.params.clone(),
        };
        let spsa = Spsa::new(
            &params,
            SpsaSettings {
                alpha: s.alpha,
                gamma: s.gamma,
                a_big: Some(s.a_big),
                iterations: s.iterations,
            },
        );
        TuneBuilder {
            theta: params.start(),
            params: params.list,
            spsa,
            iterations: s.iterations,
            pairs: s.pairs,
            applied: BTreeSet::new(),
            steps: Vec::new(),
            games: 0,
        }
    }

    /// One game of the run (counted once by the caller) and its `tune` field; a step whose
    /// flips do not fit the parameters is refused with why.
    pub fn add(&mut self, tune: Option<&TuneEntry>) -> Result<(), String> {
        self.games += 1;
        let Some(done) = tune.and_then(|t| t.done.as_ref().map(|d| (t.iteration, d))) else {
            return Ok(());
        };
        let (k, step) = done;
        if step.flips.len() != self.params.len() {
            return Err(format!(
                "iteration {k}'s step has {} flips for {} parameters",
                step.flips.len(),
                self.params.len()
            ));
        }
        if let Some(f) = step.flips.iter().find(|f| f.abs() != 1) {
            return Err(format!("iteration {k}'s step has a flip {f} (not ±1)"));
        }
        if !self.applied.insert(k) {
            return Ok(());
        }
        let c_k = self.spsa.c_k(k);
        let s = Step {
            k,
            flips: step.flips.clone(),
            c_k: c_k.clone(),
            plus: Vec::new(),
            minus: Vec::new(),
        };
        self.theta = self.spsa.update(&self.theta, &s, step.score);
        self.steps.push((k, self.theta.clone(), c_k));
        Ok(())
    }

    /// The section's figures.
    pub fn finish(self) -> TuneReport {
        let shown: Vec<usize> = thin_indices(self.steps.len()).collect();
        let params = (self.params.into_iter().enumerate())
            .map(|(i, param)| TuneParam {
                final_value: self.theta[i],
                points: (shown.iter())
                    .map(|&j| {
                        let (k, theta, c_k) = &self.steps[j];
                        TunePoint {
                            completed: j as u64 + 1,
                            iteration: *k,
                            value: theta[i],
                            c_k: c_k[i],
                        }
                    })
                    .collect(),
                param,
            })
            .collect();
        TuneReport {
            params,
            iterations: self.iterations,
            completed: self.steps.len() as u64,
            pairs: self.pairs,
            games: self.games,
        }
    }
}

/// A tuning's settings and game lines for tests (here and in `tune_section`).
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;
    use crate::tune::entry::TuneStep;
    use crate::tune::params::ParamKind;

    pub fn settings() -> TuneSettings {
        let param = |name: &str, kind, start, c_end| Param {
            name: name.into(),
            kind,
            start,
            min: 0.0,
            max: 400.0,
            c_end,
            r_end: 0.002,
        };
        TuneSettings {
            params: vec![
                param("four", ParamKind::Int, 150.0, 20.0),
                param("three", ParamKind::Float, 80.0, 20.0),
            ],
            alpha: 0.602,
            gamma: 0.101,
            a_big: 4.0,
            iterations: 40,
            pairs: 1,
            seed: 7,
        }
    }

    /// A game line's `tune` field of iteration `k`, with the step when `score` is given.
    pub fn tune_entry(k: u64, step: Option<(i64, [i8; 2])>) -> TuneEntry {
        TuneEntry {
            iteration: k,
            plus: vec![160.0, 90.0],
            minus: vec![140.0, 70.0],
            done: step.map(|(score, flips)| TuneStep {
                flips: flips.to_vec(),
                score,
                // What a shard wrote is not read: θ is replayed.
                theta: vec![0.0, 0.0],
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{settings, tune_entry};
    use super::*;

    fn spsa(s: &TuneSettings) -> Spsa {
        TuneBuilder::new(s).spsa
    }

    #[test]
    fn points_come_in_completion_order_with_a_band_of_c_k() {
        let s = settings();
        let mut b = TuneBuilder::new(&s);
        // Iteration 2 completes before 1 (two games at once); a game without a step adds no point.
        for t in [
            tune_entry(2, None),
            tune_entry(2, Some((2, [1, -1]))),
            tune_entry(1, Some((-1, [1, 1]))),
            tune_entry(3, Some((1, [-1, 1]))),
        ] {
            b.add(Some(&t)).unwrap();
        }
        b.add(None).unwrap();
        let r = b.finish();
        assert_eq!((r.completed, r.games, r.iterations), (3, 5, 40));
        let sp = spsa(&s);
        for (i, p) in r.params.iter().enumerate() {
            let ks: Vec<(u64, u64)> = p
                .points
                .iter()
                .map(|q| (q.completed, q.iteration))
                .collect();
            assert_eq!(ks, [(1, 2), (2, 1), (3, 3)]);
            for q in &p.points {
                assert_eq!(q.c_k, sp.c_k(q.iteration)[i], "{}", p.param.name);
            }
            assert_eq!(p.final_value, p.points[2].value);
        }
        // The first point is the start moved by iteration 2's step: R_k·c_k·score·flip.
        let c2 = sp.c_k(2);
        let r2 = sp.r_k(2, &c2);
        let first = r.params[1].points[0].value;
        assert!(
            (first - (80.0 - r2[1] * c2[1] * 2.0)).abs() < 1e-9,
            "{first}"
        );
        // c_k shrinks with k (γ > 0) and an integer's never goes under 0.5.
        assert!(sp.c_k(3)[1] < sp.c_k(1)[1]);
        assert!(r.params[0].points.iter().all(|q| q.c_k >= 0.5));
    }

    #[test]
    fn a_step_read_twice_is_applied_once_and_a_bad_one_is_refused() {
        let s = settings();
        let (one, two) = (
            tune_entry(1, Some((2, [1, 1]))),
            tune_entry(2, Some((1, [-1, 1]))),
        );
        let mut once = TuneBuilder::new(&s);
        once.add(Some(&one)).unwrap();
        once.add(Some(&two)).unwrap();
        let mut twice = TuneBuilder::new(&s);
        for t in [&one, &two, &one, &two] {
            twice.add(Some(t)).unwrap();
        }
        let (once, twice) = (once.finish(), twice.finish());
        assert_eq!(twice.completed, 2);
        assert_eq!(twice.params, once.params);
        let mut b = TuneBuilder::new(&s);
        let mut bad = tune_entry(1, Some((0, [1, 1])));
        bad.done.as_mut().unwrap().flips = vec![1];
        let err = b.add(Some(&bad)).unwrap_err();
        assert_eq!(err, "iteration 1's step has 1 flips for 2 parameters");
        bad.done.as_mut().unwrap().flips = vec![1, 0];
        assert!(b.add(Some(&bad)).unwrap_err().contains("flip 0"));
    }

    #[test]
    fn two_shards_journals_give_one_trajectory_without_double_counting() {
        use crate::analysis::report::model::tests::{entry, header};
        use crate::analysis::report::{ReportBuilder, RunState};
        let headers: Vec<_> = [1, 2]
            .map(|index| {
                let mut h = header(&["t+", "t-"], true, false, 0);
                h.settings.tune = Some(settings());
                h.settings.shard = Some(crate::schedule::shard::Shard { index, count: 2 });
                h
            })
            .into();
        // Shard 1 played iteration 1 (games 1-2), shard 2 iteration 2 (games 3-4); shard 2's
        // journal also holds game 2 again, as it read it: one game, one step.
        let game = |n: u64, step| {
            let mut e = entry(n, (n as usize + 1) % 2, "1-0", "five");
            e.tune = Some(tune_entry(n.div_ceil(2), step));
            e
        };
        let (one, two) = (Some((2, [1, 1])), Some((-2, [-1, 1])));
        let entries = [
            game(1, None),
            game(2, one),
            game(3, None),
            game(2, one),
            game(4, two),
        ];
        let mut b = ReportBuilder::new(&headers).unwrap();
        for e in &entries {
            b.add(e).unwrap();
        }
        let merged = b.finish(RunState::Ended).tune.unwrap();
        assert_eq!((merged.completed, merged.games), (2, 4));
        let mut alone = TuneBuilder::new(&settings());
        for t in [tune_entry(1, one), tune_entry(2, two)] {
            alone.add(Some(&t)).unwrap();
        }
        assert_eq!(merged.params, alone.finish().params);
        // A match's model has no tune part.
        let h = header(&["a", "b"], true, false, 0);
        let b = ReportBuilder::new(std::slice::from_ref(&h)).unwrap();
        assert_eq!(b.finish(RunState::Ended).tune, None);
    }
}
