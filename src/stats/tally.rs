//! Result tallies: win/loss/draw counts and pentanomial game-pair counts, from the first engine's view.

use serde::{Deserialize, Serialize};

/// The result of one game for the first (tested) engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Score {
    Loss,
    Draw,
    Win,
}

impl Score {
    /// Points in half-point units (loss 0, draw 1, win 2), so pair sums stay integers.
    pub fn half_points(self) -> usize {
        match self {
            Score::Loss => 0,
            Score::Draw => 1,
            Score::Win => 2,
        }
    }

    /// The same game seen from the other engine.
    pub fn flipped(self) -> Score {
        match self {
            Score::Loss => Score::Win,
            Score::Draw => Score::Draw,
            Score::Win => Score::Loss,
        }
    }
}

/// Wins, losses and draws of the first engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Wld {
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
}

impl Wld {
    pub fn new(wins: u64, losses: u64, draws: u64) -> Self {
        Wld {
            wins,
            losses,
            draws,
        }
    }

    /// Builds a tally from fishtest's trinomial order `[L, D, W]`.
    pub fn from_trinomial([losses, draws, wins]: [u64; 3]) -> Self {
        Wld {
            wins,
            losses,
            draws,
        }
    }

    /// fishtest's trinomial order `[L, D, W]`, lowest score first.
    pub fn trinomial(&self) -> [u64; 3] {
        [self.losses, self.draws, self.wins]
    }

    pub fn games(&self) -> u64 {
        self.wins + self.losses + self.draws
    }

    /// Points of the first engine (win 1, draw 1/2).
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Mean score per game; NaN when no game was played.
    pub fn score(&self) -> f64 {
        self.points() / self.games() as f64
    }

    pub fn add(&mut self, outcome: Score) {
        match outcome {
            Score::Win => self.wins += 1,
            Score::Loss => self.losses += 1,
            Score::Draw => self.draws += 1,
        }
    }

    /// The same games seen from the second engine.
    pub fn swapped(&self) -> Wld {
        Wld {
            wins: self.losses,
            losses: self.wins,
            draws: self.draws,
        }
    }
}

impl std::ops::AddAssign for Wld {
    fn add_assign(&mut self, o: Wld) {
        self.wins += o.wins;
        self.losses += o.losses;
        self.draws += o.draws;
    }
}

/// Game-pair counts `[LL, LD, WL+DD, WD, WW]`: index = half points the first engine scored over a
/// pair of games played from the same opening with colours swapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Number of game pairs.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Records one pair; the order of the two games does not matter.
    pub fn add_pair(&mut self, a: Score, b: Score) {
        self.0[a.half_points() + b.half_points()] += 1;
    }

    /// The same pairs seen from the second engine.
    pub fn reversed(&self) -> Pentanomial {
        let mut c = self.0;
        c.reverse();
        Pentanomial(c)
    }

    /// Points of the first engine over all pairs (each pair is worth 2).
    pub fn points(&self) -> f64 {
        self.0
            .iter()
            .enumerate()
            .map(|(i, &c)| 0.5 * i as f64 * c as f64)
            .sum()
    }
}

impl std::ops::AddAssign for Pentanomial {
    fn add_assign(&mut self, o: Pentanomial) {
        for (a, b) in self.0.iter_mut().zip(o.0) {
            *a += b;
        }
    }
}

/// Pair counts that keep WL and DD apart, which the pentanomial merges. fastchess prints their
/// ratio ("WL/DD Ratio"), so a runner that wants that line should accumulate this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct PairTally {
    pub ll: u64,
    pub ld: u64,
    pub wl: u64,
    pub dd: u64,
    pub wd: u64,
    pub ww: u64,
}

impl PairTally {
    pub fn add_pair(&mut self, a: Score, b: Score) {
        use Score::*;
        let cell = match (a, b) {
            (Loss, Loss) => &mut self.ll,
            (Loss, Draw) | (Draw, Loss) => &mut self.ld,
            (Win, Loss) | (Loss, Win) => &mut self.wl,
            (Draw, Draw) => &mut self.dd,
            (Win, Draw) | (Draw, Win) => &mut self.wd,
            (Win, Win) => &mut self.ww,
        };
        *cell += 1;
    }

    pub fn pentanomial(&self) -> Pentanomial {
        Pentanomial([self.ll, self.ld, self.wl + self.dd, self.wd, self.ww])
    }

    pub fn pairs(&self) -> u64 {
        self.pentanomial().pairs()
    }

    /// fastchess's "PairsRatio": pairs won over pairs lost, `(WW + WD) / (LL + LD)`. Infinite or NaN
    /// when no pair was lost (fastchess prints `inf` / `nan` then).
    pub fn pairs_ratio(&self) -> f64 {
        (self.ww + self.wd) as f64 / (self.ll + self.ld) as f64
    }

    /// fastchess's "WL/DD Ratio": split pairs over double-draw pairs.
    pub fn wl_dd_ratio(&self) -> f64 {
        self.wl as f64 / self.dd as f64
    }

    pub fn swapped(&self) -> PairTally {
        PairTally {
            ll: self.ww,
            ld: self.wd,
            wl: self.wl,
            dd: self.dd,
            wd: self.ld,
            ww: self.ll,
        }
    }
}

impl std::ops::AddAssign for PairTally {
    fn add_assign(&mut self, o: PairTally) {
        self.ll += o.ll;
        self.ld += o.ld;
        self.wl += o.wl;
        self.dd += o.dd;
        self.wd += o.wd;
        self.ww += o.ww;
    }
}

/// fastchess's "PairsRatio" from a pentanomial: `(WW + WD) / (LL + LD)`.
pub fn pairs_ratio(p: &Pentanomial) -> f64 {
    let [ll, ld, _, wd, ww] = p.0;
    (ww + wd) as f64 / (ll + ld) as f64
}

#[cfg(test)]
mod tests {
    use super::Score::*;
    use super::*;

    #[test]
    fn wld_counts_and_points() {
        let mut t = Wld::default();
        for o in [Win, Win, Draw, Loss] {
            t.add(o);
        }
        assert_eq!(t, Wld::new(2, 1, 1));
        assert_eq!(t.games(), 4);
        assert_eq!(t.points(), 2.5);
        assert_eq!(t.trinomial(), [1, 1, 2]);
        assert_eq!(Wld::from_trinomial([1, 1, 2]), t);
        assert_eq!(t.swapped(), Wld::new(1, 2, 1));
    }

    #[test]
    fn pentanomial_cells_by_half_points() {
        let mut p = Pentanomial::default();
        p.add_pair(Loss, Loss);
        p.add_pair(Draw, Loss);
        p.add_pair(Win, Loss);
        p.add_pair(Draw, Draw);
        p.add_pair(Draw, Win);
        p.add_pair(Win, Win);
        assert_eq!(p.0, [1, 1, 2, 1, 1]);
        assert_eq!(p.points(), 6.0);
        let mut q = PairTally::default();
        for (a, b) in [
            (Loss, Loss),
            (Draw, Loss),
            (Win, Loss),
            (Draw, Draw),
            (Draw, Win),
            (Win, Win),
        ] {
            q.add_pair(a, b);
        }
        assert_eq!(q.pentanomial(), p);
        assert_eq!((q.wl, q.dd), (1, 1));
        assert_eq!(q.swapped().pentanomial(), p.reversed());
    }

    #[test]
    fn pairs_ratio_is_won_over_lost_pairs() {
        let p = Pentanomial([1, 3, 7, 5, 3]);
        assert_eq!(pairs_ratio(&p), 2.0);
        assert!(pairs_ratio(&Pentanomial([0, 0, 1, 1, 0])).is_infinite());
    }
}
