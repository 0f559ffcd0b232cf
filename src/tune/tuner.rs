//! The state of one tuning run, fed by finished games: θ, the iterations in flight with the
//! values their games were given, and the trajectory. Pure: the dispatcher owns one and asks it
//! for each game's values when it hands the game out, and tells it each result (its own slots',
//! another shard's, or the journal's on `-resume`), in the order they finished.
//!
//! An iteration is `2·pairs` consecutive game numbers (colour-swapped pairs, each on its own
//! opening), engine 0 playing θ+ and engine 1 θ−. Its values are drawn when its first game is
//! handed out, from θ at that moment; its step, once its last game is in, depends only on k, the
//! seed and the games' results (SPSA's update does not use θ±), so replaying the results in the
//! order they finished gives θ exactly, on resume and on every shard.

use std::collections::BTreeMap;

use crate::stats::Score;
use crate::tune::entry::{TuneEntry, TuneSettings, TuneStep};

use crate::tune::params::Params;
use crate::tune::spsa::{Spsa, SpsaSettings, Step};

/// A tuning run's fixed part: the parameters, the SPSA constants, its length and seed.
#[derive(Debug, Clone)]
pub struct TuneSetup {
    pub params: Params,
    pub settings: SpsaSettings,
    /// Game pairs per iteration.
    pub pairs: u64,
    /// Show θ every this many completed iterations (0: at the end only).
    pub every: u64,
}

impl TuneSetup {
    /// Games per iteration.
    pub fn games_per_iteration(&self) -> u64 {
        2 * self.pairs
    }

    /// The iteration (k, 1-based) game number `game` belongs to.
    pub fn iteration_of(&self, game: u64) -> u64 {
        (game.max(1) - 1) / self.games_per_iteration() + 1
    }

    /// The journal header's `tune` object, for the run's seed (the run's, not the setup's: a
    /// resumed run adopts its journal's).
    pub fn settings(&self, seed: u64) -> TuneSettings {
        TuneSettings {
            params: self.params.list.clone(),
            alpha: self.settings.alpha,
            gamma: self.settings.gamma,
            // A as the SPSA rule resolves it (the one given, or 0.1·N).
            a_big: Spsa::new(&self.params, self.settings).a_big(),
            iterations: self.settings.iterations,
            pairs: self.pairs,
            seed,
        }
    }

    /// One side of a tuning game: the engine's command with each `{name}` placeholder replaced
    /// by that parameter's value, and the other parameters as `INFO name value` pairs.
    pub fn engine_values(&self, cmd: &str, values: &[f64]) -> (String, Vec<(String, String)>) {
        let mut cmd = cmd.to_string();
        let mut infos = Vec::new();
        for (name, value) in self.named_values(values) {
            let placeholder = format!("{{{name}}}");
            if cmd.contains(&placeholder) {
                cmd = cmd.replace(&placeholder, &value);
            } else {
                infos.push((name, value));
            }
        }
        (cmd, infos)
    }

    /// The `(name, value text)` pairs of one engine's values, in the file's order.
    pub fn named_values(&self, values: &[f64]) -> Vec<(String, String)> {
        self.params
            .list
            .iter()
            .zip(values)
            .enumerate()
            .map(|(i, (p, &x))| (p.name.clone(), self.params.value_text(i, x)))
            .collect()
    }
}

/// An iteration some of whose games are in.
#[derive(Debug, Clone, Default)]
struct Open {
    /// The values handed out (`None` for an iteration known only from its results: another
    /// shard's, or one cut by a stop that resumes elsewhere).
    values: Option<(Vec<f64>, Vec<f64>)>,
    games: u64,
    score: i64,
}

/// θ after one completed iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub iteration: u64,
    /// Iterations completed so far (the order they completed in, which with concurrency > 1 is
    /// not the order of k).
    pub completed: u64,
    pub theta: Vec<f64>,
    /// The iteration's perturbation per parameter.
    pub c_k: Vec<f64>,
}

/// One tuning run's state.
#[derive(Debug)]
pub struct Tuner {
    setup: TuneSetup,
    /// The flips and the rounding of integer values are drawn from it.
    seed: u64,
    spsa: Spsa,
    theta: Vec<f64>,
    open: BTreeMap<u64, Open>,
    trajectory: Vec<Point>,
}

impl Tuner {
    pub fn new(setup: TuneSetup, seed: u64) -> Tuner {
        let spsa = Spsa::new(&setup.params, setup.settings);
        Tuner {
            seed,
            theta: setup.params.start(),
            spsa,
            setup,
            open: BTreeMap::new(),
            trajectory: Vec::new(),
        }
    }

    pub fn setup(&self) -> &TuneSetup {
        &self.setup
    }

    pub fn theta(&self) -> &[f64] {
        &self.theta
    }

    /// θ after each completed iteration, in the order they completed.
    pub fn trajectory(&self) -> &[Point] {
        &self.trajectory
    }

    fn step(&self, k: u64) -> Step {
        self.spsa.step(k, &self.theta, self.seed)
    }

    /// The values of `game`: its iteration's, drawn at the current θ when the iteration's first
    /// game is handed out (or was, before a resume: the journal's values are kept).
    pub fn assign(&mut self, game: u64) -> TuneEntry {
        let k = self.setup.iteration_of(game);
        let (spsa, theta, seed) = (&self.spsa, &self.theta, self.seed);
        let open = self.open.entry(k).or_default();
        let (plus, minus) = open
            .values
            .get_or_insert_with(|| {
                let fresh = spsa.step(k, theta, seed);
                (fresh.plus, fresh.minus)
            })
            .clone();
        TuneEntry {
            iteration: k,
            plus,
            minus,
            done: None,
        }
    }

    /// A game's values as a journal recorded them (`-resume`): the iteration's remaining games
    /// get the same.
    pub fn known(&mut self, entry: &TuneEntry) {
        // Only an iteration the journal's results left unfinished is still to be played.
        let Some(open) = self.open.get_mut(&entry.iteration) else {
            return;
        };
        open.values
            .get_or_insert((entry.plus.clone(), entry.minus.clone()));
    }

    /// A finished game, scored from θ+'s (engine 0's) view. When it completes its iteration, θ
    /// takes the step and the step is returned, for the game's journal line.
    pub fn scored(&mut self, game: u64, plus_score: Score) -> Option<TuneStep> {
        let k = self.setup.iteration_of(game);
        let per = self.setup.games_per_iteration();
        let open = self.open.entry(k).or_default();
        open.games += 1;
        open.score += match plus_score {
            Score::Win => 1,
            Score::Loss => -1,
            Score::Draw => 0,
        };
        if open.games < per {
            return None;
        }
        let score = open.score;
        self.open.remove(&k);
        let step = self.step(k);
        self.theta = self.spsa.update(&self.theta, &step, score);
        self.trajectory.push(Point {
            iteration: k,
            completed: self.trajectory.len() as u64 + 1,
            theta: self.theta.clone(),
            c_k: step.c_k,
        });
        Some(TuneStep {
            flips: step.flips,
            score,
            theta: self.theta.clone(),
        })
    }

    /// Iterations completed.
    pub fn completed(&self) -> u64 {
        self.trajectory.len() as u64
    }

    /// Whether θ is shown now: some iterations completed, a multiple of `every`.
    pub fn snapshot_due(&self) -> bool {
        let (done, every) = (self.completed(), self.setup.every);
        done > 0 && every > 0 && done % every == 0
    }

    /// The trajectory as CSV: one row per completed iteration, θ after it, with each
    /// parameter's perturbation c_k of that iteration.
    pub fn csv(&self) -> String {
        let names: Vec<&str> = self
            .setup
            .params
            .list
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut head = vec!["completed".to_string(), "iteration".to_string()];
        head.extend(names.iter().map(|n| n.to_string()));
        head.extend(names.iter().map(|n| format!("c_k:{n}")));
        let _ = w.write_record(&head);
        for p in &self.trajectory {
            let mut row = vec![p.completed.to_string(), p.iteration.to_string()];
            row.extend(p.theta.iter().map(|x| x.to_string()));
            row.extend(p.c_k.iter().map(|x| x.to_string()));
            let _ = w.write_record(&row);
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// One line: `name=value` per parameter, each value as the engine would be sent it.
    pub fn theta_line(&self) -> String {
        self.setup
            .named_values(&self.theta)
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn setup(pairs: u64) -> TuneSetup {
        let text = "a, int, 50, 0, 100, 5, 0.002\nb, float, 1.5, 0.0, 3.0, 0.2, 0.002\n";
        TuneSetup {
            params: Params::parse(text, Path::new("p.txt")).unwrap(),
            settings: SpsaSettings {
                iterations: 20,
                ..SpsaSettings::default()
            },
            pairs,
            every: 5,
        }
    }

    fn score(game: u64) -> Score {
        [Score::Win, Score::Draw, Score::Loss, Score::Win, Score::Win][(game % 5) as usize]
    }

    #[test]
    fn an_iteration_steps_once_all_its_games_are_in() {
        let mut t = Tuner::new(setup(2), 9);
        for g in 1..=3 {
            t.assign(g);
            assert_eq!(t.scored(g, score(g)), None, "game {g} of 4");
        }
        let step = t
            .scored(4, score(4))
            .expect("the fourth game completes iteration 1");
        assert_eq!(step.score, 1, "draw, loss, win, win");
        assert_eq!(step.theta, t.theta());
        assert_ne!(t.theta(), setup(2).params.start().as_slice());
        assert_eq!(t.completed(), 1);
        assert_eq!(t.setup().iteration_of(5), 2);
    }

    #[test]
    fn replaying_the_results_in_the_same_order_gives_the_same_theta() {
        let mut live = Tuner::new(setup(1), 3);
        let mut steps = Vec::new();
        // Concurrency 2: iteration k+1 is handed out before k's games are in.
        for g in (1..=40).step_by(2) {
            live.assign(g);
            live.assign(g + 1);
            steps.extend(live.scored(g + 1, score(g + 1)));
            steps.extend(live.scored(g, score(g)));
        }
        let mut replay = Tuner::new(setup(1), 3);
        for g in (1..=40).step_by(2) {
            replay.scored(g + 1, score(g + 1));
            replay.scored(g, score(g));
        }
        assert_eq!(replay.theta(), live.theta());
        assert_eq!(replay.trajectory(), live.trajectory());
        assert_eq!(steps.len(), 20);
        // Another seed, another trajectory.
        let mut other = Tuner::new(setup(1), 4);
        for g in 1..=40 {
            other.scored(g, score(g));
        }
        assert_ne!(other.theta(), live.theta());
    }

    #[test]
    fn an_iteration_cut_by_a_stop_keeps_the_values_its_games_were_sent() {
        let mut t = Tuner::new(setup(1), 5);
        let first = t.assign(1);
        // Resumed elsewhere with another θ: the journal's values win over a fresh draw.
        let mut resumed = Tuner::new(setup(1), 5);
        resumed.scored(1, Score::Win);
        let moved = TuneEntry {
            plus: vec![61.0, 2.0],
            ..first.clone()
        };
        resumed.known(&moved);
        assert_eq!(resumed.assign(2).plus, vec![61.0, 2.0]);
        // Values are integers where the parameter is, within the bounds.
        assert_eq!(first.plus[0], first.plus[0].round());
        assert!((0.0..=3.0).contains(&first.minus[1]));
    }

    #[test]
    fn values_go_into_the_command_where_it_has_their_placeholder() {
        let s = setup(1);
        let (cmd, infos) = s.engine_values("engine --a {a} --x", &[42.4, 0.25]);
        assert_eq!(cmd, "engine --a 42 --x");
        assert_eq!(infos, vec![("b".to_string(), "0.25".to_string())]);
        let t = Tuner::new(s, 1);
        assert_eq!(t.theta_line(), "a=50 b=1.5");
        assert_eq!(
            t.csv().lines().next(),
            Some("completed,iteration,a,b,c_k:a,c_k:b")
        );
    }
}
