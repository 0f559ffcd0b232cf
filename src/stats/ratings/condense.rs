//! The games condensed into per-pair counts by colour and result, with the prior's virtual draws
//! added as BayesElo adds them, and the checks that a maximum of the likelihood exists.

use super::types::{FitSettings, Outcome, Parameter, RatedGame, RatingError};

/// Counts in one player's list for one opponent, from that player's side. `c[0..3]`: games where
/// the player moved first, won / drawn / lost by the player; `c[3..6]`: games where the opponent
/// moved first, won / drawn / lost by the opponent. Draws include the prior's.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    /// The opponent's compact index.
    pub opp: u32,
    /// Real games between the two.
    pub games: u32,
    pub c: [f64; 6],
}

/// One player's real games (no prior), for the printed columns.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Real {
    pub games: u32,
    /// Twice the points: a win 2, a draw 1 (exact in integers).
    pub points2: u64,
    pub draws: u32,
}

/// The rated players (those with games), in id order, and their opponents' lists.
pub(super) struct Condensed {
    /// Compact index -> player id.
    pub ids: Vec<usize>,
    /// Player `k`'s entries are `entries[start[k]..start[k + 1]]`, by opponent index.
    pub start: Vec<usize>,
    pub entries: Vec<Entry>,
    pub real: Vec<Real>,
}

impl Condensed {
    pub fn new(players: usize, games: &[RatedGame], prior: f64) -> Result<Self, RatingError> {
        let (compact, ids) = compact_ids(players, games)?;
        let n = ids.len();

        // One key per game: the pair (low index, high index) and which of the six counts of the
        // low player's entry it adds to. Sorting groups a pair's games together.
        let mut keys: Vec<(u32, u32, u8)> = games
            .iter()
            .map(|g| {
                let (f, s) = (compact[g.first as usize], compact[g.second as usize]);
                let result = match g.outcome {
                    Outcome::FirstWins => 0,
                    Outcome::Draw => 1,
                    Outcome::SecondWins => 2,
                };
                let (lo, hi, slot) = if f < s {
                    (f, s, result)
                } else {
                    (s, f, 3 + result)
                };
                (lo, hi, slot)
            })
            .collect();
        keys.sort_unstable();

        let mut real = vec![Real::default(); n];
        for g in games {
            let (f, s) = (
                compact[g.first as usize] as usize,
                compact[g.second as usize] as usize,
            );
            real[f].games += 1;
            real[s].games += 1;
            match g.outcome {
                Outcome::FirstWins => real[f].points2 += 2,
                Outcome::SecondWins => real[s].points2 += 2,
                Outcome::Draw => {
                    real[f].points2 += 1;
                    real[s].points2 += 1;
                    real[f].draws += 1;
                    real[s].draws += 1;
                }
            }
        }

        // The pairs, each once, from the low player's side.
        let mut pairs: Vec<(u32, u32, u32, [f64; 6])> = Vec::new();
        for &(lo, hi, slot) in &keys {
            let slot = slot as usize;
            match pairs.last_mut() {
                Some(p) if p.0 == lo && p.1 == hi => {
                    p.2 += 1;
                    p.3[slot] += 1.0;
                }
                _ => {
                    let mut c = [0.0; 6];
                    c[slot] = 1.0;
                    pairs.push((lo, hi, 1, c));
                }
            }
        }
        drop(keys);

        let mut degree = vec![0usize; n + 1];
        for p in &pairs {
            degree[p.0 as usize + 1] += 1;
            degree[p.1 as usize + 1] += 1;
        }
        let mut start = degree;
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let blank = Entry {
            opp: 0,
            games: 0,
            c: [0.0; 6],
        };
        let mut entries = vec![blank; start[n]];
        // Each player spreads `prior / 4 / N` virtual draws per real game over both colours, and
        // each is counted on both sides of the pair: BayesElo's AddPrior.
        let per_game: Vec<f64> = real.iter().map(|r| prior * 0.25 / r.games as f64).collect();
        for &(lo, hi, count, c) in &pairs {
            let virtual_draws = (per_game[lo as usize] + per_game[hi as usize]) * count as f64;
            let mut low = c;
            low[1] += virtual_draws;
            low[4] += virtual_draws;
            let high = [low[3], low[4], low[5], low[0], low[1], low[2]];
            for (me, opp, c) in [(lo, hi, low), (hi, lo, high)] {
                entries[fill[me as usize]] = Entry {
                    opp,
                    games: count,
                    c,
                };
                fill[me as usize] += 1;
            }
        }
        let data = Condensed {
            ids,
            start,
            entries,
            real,
        };
        data.check_connected()?;
        Ok(data)
    }

    pub fn players(&self) -> usize {
        self.ids.len()
    }

    pub fn entries(&self, k: usize) -> &[Entry] {
        &self.entries[self.start[k]..self.start[k + 1]]
    }

    /// The games-weighted mean of `elo` over player `k`'s opponents (real games only).
    pub fn average_opponent(&self, k: usize, elo: &[f64]) -> f64 {
        let (mut total, mut games) = (0.0, 0.0);
        for e in self.entries(k) {
            total += e.games as f64 * elo[e.opp as usize];
            games += e.games as f64;
        }
        total / games
    }

    /// The players reached from player 0 by following `step(entry)` links.
    fn reach(&self, step: impl Fn(&Entry) -> bool) -> Vec<bool> {
        let mut seen = vec![false; self.players()];
        let mut stack = vec![0usize];
        seen[0] = true;
        while let Some(k) = stack.pop() {
            for e in self.entries(k) {
                let o = e.opp as usize;
                if !seen[o] && step(e) {
                    seen[o] = true;
                    stack.push(o);
                }
            }
        }
        seen
    }

    fn check_connected(&self) -> Result<(), RatingError> {
        let seen = self.reach(|_| true);
        match seen.iter().position(|s| !s) {
            Some(k) => Err(RatingError::Disconnected {
                first: self.ids[0],
                second: self.ids[k],
            }),
            None => Ok(()),
        }
    }

    /// With no prior, the likelihood has a finite maximum only if every player can be reached
    /// from every other through "took a point from" links both ways (else some group scored
    /// everything against the rest), and an estimated parameter has games on both sides of it.
    pub fn check_bounded(&self, settings: &FitSettings) -> Result<(), RatingError> {
        // Points the player took (won or drew, with either colour), and points it gave.
        let took = |e: &Entry| e.c[0] + e.c[1] + e.c[4] + e.c[5] > 0.0;
        let gave = |e: &Entry| e.c[2] + e.c[1] + e.c[4] + e.c[3] > 0.0;
        for seen in [self.reach(took), self.reach(gave)] {
            if let Some(k) = seen.iter().position(|s| !s) {
                return Err(RatingError::Unbounded {
                    player: self.ids[k],
                });
            }
        }
        let total = |slots: &[usize]| -> f64 {
            self.entries
                .iter()
                .map(|e| slots.iter().map(|&s| e.c[s]).sum::<f64>())
                .sum()
        };
        if settings.advantage == Parameter::Estimate
            && (total(&[0, 1]) == 0.0 || total(&[1, 2]) == 0.0)
        {
            return Err(RatingError::UnboundedParameter {
                parameter: "advantage",
            });
        }
        if settings.drawelo == Parameter::Estimate && total(&[0, 2]) == 0.0 {
            return Err(RatingError::UnboundedParameter {
                parameter: "draw Elo",
            });
        }
        Ok(())
    }
}

/// The players who played, numbered from 0 in id order: `compact[id]` (`u32::MAX` for a player
/// without games) and `ids[compact]`; bad ids and self-play refused.
fn compact_ids(players: usize, games: &[RatedGame]) -> Result<(Vec<u32>, Vec<usize>), RatingError> {
    let mut compact = vec![u32::MAX; players];
    for (game, g) in games.iter().enumerate() {
        for id in [g.first, g.second] {
            if id as usize >= players {
                return Err(RatingError::PlayerId { game, id, players });
            }
        }
        if g.first == g.second {
            return Err(RatingError::SelfGame { game, id: g.first });
        }
        compact[g.first as usize] = 0;
        compact[g.second as usize] = 0;
    }
    let mut ids = Vec::new();
    for (id, slot) in compact.iter_mut().enumerate() {
        if *slot == 0 {
            *slot = ids.len() as u32;
            ids.push(id);
        }
    }
    if ids.is_empty() {
        return Err(RatingError::NoGames);
    }
    Ok((compact, ids))
}
