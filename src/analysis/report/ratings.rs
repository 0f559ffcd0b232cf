//! The report's rating list: the run's games fitted as BayesElo fits them (the `ratings`
//! command's model and defaults), as rows in rank order and the likelihood of superiority
//! between every two engines, in the same order, for the page's heat map.

use serde::Serialize;

use crate::analysis::tracker::Tracker;

/// The likelihood-of-superiority matrix is a square of cells: past this many engines it is
/// left out of the page (the list stays).
pub const MAX_LOS_ENGINES: usize = 40;

/// One engine's line of the rating list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatingRow {
    pub rank: usize,
    pub name: String,
    pub elo: f64,
    pub minus: f64,
    pub plus: f64,
    pub games: u32,
    /// Points per game.
    pub score: f64,
    /// Drawn games per game.
    pub draws: f64,
    /// Rating of the average opponent.
    pub opponent: f64,
}

/// The rating list of a run of three engines or more.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatingSection {
    /// First mover's advantage and draw Elo, as fitted.
    pub advantage: f64,
    pub drawelo: f64,
    pub rows: Vec<RatingRow>,
    /// `los[i][j]`: probability that the engine of row `i` is stronger than that of row `j`
    /// (rows in rank order); empty past [`MAX_LOS_ENGINES`].
    pub los: Vec<Vec<f64>>,
}

/// The section of a tracker's games; `None` for fewer than three engines or no games.
pub fn rating_section(tracker: &Tracker) -> Option<RatingSection> {
    let names = tracker.names();
    let list = tracker.rating_list(names.len() <= MAX_LOS_ENGINES)?;
    let order = list.ranking();
    let rows = order
        .iter()
        .enumerate()
        .map(|(rank, &i)| {
            let p = &list.players[i];
            let games = f64::from(p.games.max(1));
            RatingRow {
                rank: rank + 1,
                name: names[i].clone(),
                elo: p.elo,
                minus: p.minus,
                plus: p.plus,
                games: p.games,
                score: p.score / games,
                draws: f64::from(p.draws) / games,
                opponent: p.opponent,
            }
        })
        .collect();
    let los = list
        .los
        .as_ref()
        .map(|m| {
            order
                .iter()
                .map(|&i| order.iter().map(|&j| m[i][j]).collect())
                .collect()
        })
        .unwrap_or_default();
    Some(RatingSection {
        advantage: list.advantage,
        drawelo: list.drawelo,
        rows,
        los,
    })
}
