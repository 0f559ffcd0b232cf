//! What a fit takes and gives: games, settings, the fitted list, and why a fit fails.

use serde::Serialize;
use thiserror::Error;

/// The result of one game, from the first mover's side (PGN's White).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Outcome {
    FirstWins,
    Draw,
    SecondWins,
}

impl Outcome {
    /// The outcome at quantile `u` of the model's distribution for a game whose first mover is
    /// rated `delta` above the second: first wins, second wins, draw in that order over [0, 1).
    /// A uniform `u` draws a game from the model (simulations, tests, benchmarks).
    pub fn at_quantile(u: f64, delta: f64, advantage: f64, drawelo: f64) -> Outcome {
        let p = |x: f64| 1.0 / (1.0 + 10f64.powf(x / 400.0));
        let win = p(-delta - advantage + drawelo);
        let loss = p(delta + advantage + drawelo);
        if u < win {
            Outcome::FirstWins
        } else if u < win + loss {
            Outcome::SecondWins
        } else {
            Outcome::Draw
        }
    }
}

/// One game between two players, by id (an index below the `players` given to [`fit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatedGame {
    /// The first mover (PGN's White; black in gomoku).
    pub first: u32,
    pub second: u32,
    pub outcome: Outcome,
}

/// A model parameter (the first mover's advantage, the draw Elo): estimated from the games, as
/// BayesElo's `mm 1 1`, or held at a value, as `advantage x` / `drawelo x` then `mm 0 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Parameter {
    Estimate,
    Fixed(f64),
}

/// How to fit: BayesElo's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitSettings {
    pub advantage: Parameter,
    pub drawelo: Parameter,
    /// Virtual draws per player (BayesElo's `prior`, default 2); 0 for none.
    pub prior: f64,
    /// Added to every printed rating (BayesElo's `offset`; Gomocup uses 1600).
    pub offset: f64,
    /// The probability mass inside the error bars (BayesElo's `confidence`, default 0.95).
    pub confidence: f64,
    /// Compute the likelihood of superiority between every pair (O(n³) in the players).
    pub los: bool,
    /// Error bars on BayesElo's own grid, [-1500, 1500] unscaled, as BayesElo prints them: a
    /// rating near or past its edge gets a bar cut short, even negative (Gomocup's freestyle list
    /// has such). By default the grid goes on, in the same steps, as far as a player's likelihood
    /// reaches: the same bars wherever BayesElo's grid holds the distribution, true ones past it.
    pub bayeselo_grid: bool,
}

impl Default for FitSettings {
    fn default() -> Self {
        FitSettings {
            advantage: Parameter::Estimate,
            drawelo: Parameter::Estimate,
            prior: 2.0,
            offset: 0.0,
            confidence: 0.95,
            los: false,
            bayeselo_grid: false,
        }
    }
}

/// One player's line of the list, as BayesElo prints it before rounding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayerRating {
    /// Rating, scaled and offset.
    pub elo: f64,
    /// Distance from the rating down to the lower bound of the error bar (scaled).
    pub minus: f64,
    /// Distance from the rating up to the upper bound (scaled).
    pub plus: f64,
    pub games: u32,
    /// Points: a win 1, a draw 0.5 (real games only, not the prior's).
    pub score: f64,
    pub draws: u32,
    /// The average rating of the opponents, weighted by games, scaled and offset.
    pub opponent: f64,
}

/// The fitted list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatingList {
    /// The first mover's advantage in Elo (unscaled, as BayesElo's `advantage` prints it).
    pub advantage: f64,
    /// The draw Elo (unscaled, as BayesElo's `drawelo` prints it).
    pub drawelo: f64,
    /// `4x / (1 + x)^2` with `x = 10^(-drawelo/400)`: what ratings and bars were multiplied by.
    pub scale: f64,
    /// The offset added to ratings and average opponents.
    pub offset: f64,
    /// Index = player id.
    pub players: Vec<PlayerRating>,
    /// `los[i][j]` = probability that player `i` is stronger than `j`; 0 on the diagonal (and 0.5
    /// with an unrated player).
    pub los: Option<Vec<Vec<f64>>>,
    /// Minorization–maximization sweeps done.
    pub iterations: u32,
}

/// Why a list could not be fitted.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RatingError {
    /// A game names a player id at or above the number of players.
    #[error("game {game}: player id {id} out of range (there are {players} players)")]
    PlayerId {
        game: usize,
        id: u32,
        players: usize,
    },
    /// A game pairs a player with itself.
    #[error("game {game}: player {id} cannot play itself")]
    SelfGame { game: usize, id: u32 },
    /// No game at all (nothing to rate).
    #[error("no games to rate")]
    NoGames,
    /// The players fall in groups that never met, so no rating relates one group to the other.
    #[error(
        "players {first} and {second} are in groups that never played each other (directly or \
         through common opponents): their ratings cannot be compared"
    )]
    Disconnected { first: usize, second: usize },
    /// With no prior, a group of players scored every point against the rest: the maximum of the
    /// likelihood is at infinity.
    #[error(
        "with prior 0, player {player} is in a group that scored every point against (or lost \
         every point to) the others: its rating would be infinite; use a prior above 0"
    )]
    Unbounded { player: usize },
    /// With no prior, an estimated parameter has no finite estimate (every game won by the same
    /// colour, or every game drawn).
    #[error("with prior 0, the {parameter} cannot be estimated from these games (it would be infinite); fix it or use a prior above 0")]
    UnboundedParameter { parameter: &'static str },
    /// The Hessian for the likelihood of superiority is not positive definite (ratings so far apart
    /// that the curvature underflows).
    #[error(
        "the likelihood of superiority cannot be computed: the ratings' covariance is singular"
    )]
    Singular,
    /// A setting is outside its range.
    #[error("{name} must be {expected}, got {value}")]
    Setting {
        name: &'static str,
        expected: &'static str,
        value: f64,
    },
}

impl RatingList {
    /// Player ids, best first, as BayesElo sorts them (by rating; ties by id, where BayesElo's
    /// unstable sort may order them either way); unrated players (no games) last.
    pub fn ranking(&self) -> Vec<usize> {
        let mut ids: Vec<usize> = (0..self.players.len()).collect();
        ids.sort_by(|&a, &b| {
            let (pa, pb) = (&self.players[a], &self.players[b]);
            (pb.games > 0)
                .cmp(&(pa.games > 0))
                .then(pb.elo.total_cmp(&pa.elo))
                .then(a.cmp(&b))
        });
        ids
    }
}
