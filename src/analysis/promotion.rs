//! Who a league (`-tournament groups`) promotes: the top K of its ranking. A league's engines play
//! different numbers of games (the pairs out of the gap play none), so points are not compared:
//! engines are ranked as GomocupJudge ranks its results table, by the BayesElo rating of the
//! group's own games; ties (whole Elo equal) by the share of points, then by the points scored
//! in the games among the tied engines, then by `-engine` order. Engines without a game rank last.
//! Pure: the tracker holds the games.

use crate::analysis::tracker::Tracker;
use crate::stats::ratings::{fit, FitSettings};

/// One engine's place in the league's ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// Engine index (`-engine` order).
    pub engine: usize,
    /// Its rating from the group's games (whole Elo, as the table prints it); `None` without games.
    pub elo: Option<i64>,
    /// Points over games played (0 without games).
    pub score: f64,
    pub games: u64,
}

/// Every engine, best first (see the module docs).
pub fn ranking(t: &Tracker) -> Vec<Ranked> {
    let n = t.names().len();
    let list = fit(n, &t.rated_games(), &FitSettings::default()).ok();
    let tally = t.tally();
    let mut rows: Vec<Ranked> = (0..n)
        .map(|i| {
            let wld = tally.total(i);
            let games = wld.games();
            let elo = (list.as_ref())
                .and_then(|l| l.players.get(i))
                .filter(|p| p.games > 0)
                .map(|p| p.elo.round() as i64);
            let score = if games == 0 {
                0.0
            } else {
                wld.points() / games as f64
            };
            Ranked {
                engine: i,
                elo,
                score,
                games,
            }
        })
        .collect();
    // Points in the games among the engines tied on rating and score (a total order, unlike
    // a pairwise head-to-head, which three engines can make circular).
    let tied = |a: &Ranked, b: &Ranked| a.elo == b.elo && a.score == b.score;
    let among: Vec<f64> = (rows.iter())
        .map(|a| {
            (rows.iter())
                .filter(|b| b.engine != a.engine && tied(a, b))
                .map(|b| tally.head_to_head(a.engine, b.engine).points())
                .sum()
        })
        .collect();
    order(&mut rows, &among);
    rows
}

/// The ranking's order: rated before unrated, rating, score, `among` (an engine's points in the
/// games among those tied with it, by engine index), engine order.
fn order(rows: &mut [Ranked], among: &[f64]) {
    let key = |r: &Ranked| (r.elo.is_some(), r.elo.unwrap_or(i64::MIN));
    rows.sort_by(|a, b| {
        (key(b).cmp(&key(a)))
            .then(b.score.total_cmp(&a.score))
            .then(among[b.engine].total_cmp(&among[a.engine]))
            .then(a.engine.cmp(&b.engine))
    });
}

/// The `promote` engines promoted, best first.
pub fn promoted(t: &Tracker, promote: usize) -> Vec<usize> {
    ranking(t)
        .into_iter()
        .take(promote)
        .map(|r| r.engine)
        .collect()
}

/// The lines printed after the standings: the ranking's rule and who is promoted; `complete`
/// says whether every game of the run was played (else the promotion is the games' so far).
pub fn promotion_text(t: &Tracker, promote: usize, complete: bool) -> String {
    let names = t.names();
    let rows = ranking(t);
    let listed: Vec<String> = (rows.iter().take(promote).enumerate())
        .map(|(k, r)| {
            let elo = r.elo.map_or("no games".to_string(), |e| format!("{e} Elo"));
            format!(
                "{}. {} ({elo}, {:.1}%)",
                k + 1,
                names[r.engine],
                r.score * 100.0
            )
        })
        .collect();
    let head = match complete {
        true => format!("Promoted (the top {promote}"),
        false => format!("Leading, with games still to play (the top {promote}"),
    };
    format!(
        "{head} by the rating of this group's games; ties by score, then the games among the tied): {}\n",
        listed.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tracker::ScoredGame;
    use crate::stats::Score;

    /// A tracker of `n` engines where `results` are (first, second, first's score) games.
    fn tracker(n: usize, results: &[(usize, usize, Score)]) -> Tracker {
        let names: Vec<String> = (0..n).map(|i| format!("e{i}")).collect();
        let pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| ((i + 1)..n).map(move |j| (i, j)))
            .collect();
        let mut t = Tracker::new(names, pairs.clone(), false, None);
        for (g, &(a, b, s)) in results.iter().enumerate() {
            let pair = pairs.iter().position(|&p| p == (a, b)).unwrap();
            t.record(ScoredGame {
                game: g as u64 + 1,
                pair,
                pair_game: g as u64,
                first: s,
                first_moved: g % 2 == 0,
            });
        }
        t
    }

    #[test]
    fn the_rating_ranks_where_points_would_favour_the_engine_with_more_games() {
        use Score::*;
        // e0 wins its only two games against e1; e2 plays e1 six times and scores 4 of 6: more
        // points than e0, a lower share and rating. e3 plays nobody.
        let mut games = vec![(0, 1, Win), (0, 1, Win)];
        games.extend([
            (1, 2, Loss),
            (1, 2, Loss),
            (1, 2, Loss),
            (1, 2, Loss),
            (1, 2, Win),
            (1, 2, Win),
        ]);
        let t = tracker(4, &games);
        let r = ranking(&t);
        assert_eq!(r.iter().map(|r| r.engine).collect::<Vec<_>>(), [0, 2, 1, 3]);
        assert_eq!((r[3].elo, r[3].games), (None, 0));
        assert_eq!(promoted(&t, 2), [0, 2]);
        let text = promotion_text(&t, 2, true);
        assert!(
            text.starts_with("Promoted (the top 2 by the rating"),
            "{text}"
        );
        assert!(text.contains(": 1. e0 ("), "{text}");
        assert!(
            text.contains("2. e2 (") && text.contains(", 66.7%)"),
            "{text}"
        );
        assert!(promotion_text(&t, 1, false).starts_with("Leading, with games still to play"));
    }

    #[test]
    fn ties_fall_to_the_games_among_the_tied_then_to_the_engine_order() {
        use Score::*;
        // Everyone 50%: e1 beat e2 (their only decisive games), e0 drew everyone. The fitted
        // ratings of e1 and e2 tie with e0's only when the games are symmetric: a draw-only
        // league is all ties, settled by the engine order.
        let t = tracker(3, &[(0, 1, Draw), (0, 2, Draw), (1, 2, Draw)]);
        assert_eq!(promoted(&t, 3), [0, 1, 2]);
        // Tied on rating and score, the one with more points in the games among the tied goes
        // first, though listed later; then the engine order.
        let row = |engine, elo, score| Ranked {
            engine,
            elo,
            score,
            games: 4,
        };
        let mut rows = vec![
            row(0, Some(10), 0.5),
            row(1, Some(10), 0.5),
            row(2, Some(10), 0.5),
            row(3, None, 0.0),
            row(4, Some(12), 0.25),
        ];
        order(&mut rows, &[0.5, 1.5, 0.5, 0.0, 0.0]);
        assert_eq!(
            rows.iter().map(|x| x.engine).collect::<Vec<_>>(),
            [4, 1, 0, 2, 3]
        );
    }
}
