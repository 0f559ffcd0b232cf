//! The report's league section (`-tournament groups`): the gap and where the ratings came from,
//! the pairs left out, each engine's rating before the group and in it, and who is promoted
//! (`analysis::promotion`'s ranking). Pure: model and HTML out.

use serde::Serialize;

use crate::analysis::promotion::ranking;
use crate::analysis::report::escape::escape_text;
use crate::analysis::tracker::Tracker;
use crate::formats::journal::GroupSettings;

/// One engine of the league, in ranking order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeagueRow {
    pub rank: usize,
    pub name: String,
    /// Its rating from the ratings file (`None`: unrated, it meets everyone).
    pub before: Option<i64>,
    /// Its rating from this group's games (`None`: no games yet).
    pub elo: Option<i64>,
    pub games: u64,
    /// Points per game.
    pub score: f64,
    pub promoted: bool,
}

/// The league as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeagueReport {
    pub gap: u64,
    pub ratings_from: String,
    pub promote: usize,
    /// The engine pairs left out by the gap (no game).
    pub pairs_out: Vec<(String, String)>,
    /// Every game of the schedule was played: the promotion is final.
    pub complete: bool,
    pub rows: Vec<LeagueRow>,
}

/// The section's model of a league's games so far.
pub fn league(g: &GroupSettings, t: &Tracker, complete: bool) -> LeagueReport {
    let names = t.names();
    let kept = g.pairs();
    let n = g.ratings.len();
    let pairs_out = (0..n)
        .flat_map(|i| ((i + 1)..n).map(move |j| (i, j)))
        .filter(|p| !kept.contains(p))
        .map(|(i, j)| (names[i].clone(), names[j].clone()))
        .collect();
    let rows = (ranking(t).into_iter().enumerate())
        .map(|(k, r)| LeagueRow {
            rank: k + 1,
            name: names[r.engine].clone(),
            before: g.ratings.get(r.engine).copied().flatten(),
            elo: r.elo,
            games: r.games,
            score: r.score,
            promoted: k < g.promote,
        })
        .collect();
    LeagueReport {
        gap: g.gap,
        ratings_from: g.ratings_from.clone(),
        promote: g.promote,
        pairs_out,
        complete,
        rows,
    }
}

/// The section's HTML (empty for a run that is not a league).
pub fn section(l: Option<&LeagueReport>) -> String {
    let Some(l) = l else {
        return String::new();
    };
    let from = match l.ratings_from.is_empty() {
        true => "no ratings file: every engine is unrated".to_string(),
        false => format!("ratings from <code>{}</code>", escape_text(&l.ratings_from)),
    };
    let out = match l.pairs_out.len() {
        0 => "every pair meets".to_string(),
        _ => {
            let list: Vec<String> = (l.pairs_out.iter())
                .map(|(a, b)| format!("{} – {}", escape_text(a), escape_text(b)))
                .collect();
            format!("pairs out of the gap, no games: {}", list.join(", "))
        }
    };
    let status = match l.complete {
        true => format!("The top {} are promoted", l.promote),
        false => format!("Games are still to play: the top {} so far lead", l.promote),
    };
    let mut html = format!(
        "<h3>League</h3>\n<p class=\"muted\">Gomocup's groups: engines rated {} Elo apart or more do not meet ({from}; an engine without a rating meets every engine); {out}. {status}, ranked by the rating of this group's games (as GomocupJudge ranks its table; engines play different numbers of games), ties by score, then by the games among the tied.</p>\n<table id=\"league\">\n<thead><tr><th class=\"num\">Rank</th><th>Engine</th><th class=\"num\">Rating before</th><th class=\"num\">Elo in the group</th><th class=\"num\">Games</th><th class=\"num\">Score</th><th></th></tr></thead>\n<tbody>\n",
        l.gap
    );
    for r in &l.rows {
        let elo = |e: Option<i64>, none: &str| e.map_or(none.to_string(), |e| e.to_string());
        let mark = match (r.promoted, l.complete) {
            (true, true) => "promoted",
            (true, false) => "leading",
            _ => "",
        };
        html.push_str(&format!(
            "<tr class=\"{mark}\"><td class=\"num\">{}</td><td class=\"engine\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1} %</td><td>{mark}</td></tr>\n",
            r.rank,
            escape_text(&r.name),
            elo(r.before, "unrated"),
            elo(r.elo, "–"),
            r.games,
            r.score * 100.0,
        ));
    }
    html.push_str("</tbody>\n</table>\n");
    html
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tracker::ScoredGame;
    use crate::stats::Score;

    #[test]
    fn the_section_names_the_pairs_left_out_and_the_promoted() {
        let g = GroupSettings {
            gap: 400,
            ratings: vec![Some(2000), Some(1500), None],
            promote: 1,
            ratings_from: "last<year>.txt".into(),
        };
        let names = vec!["A".to_string(), "B".to_string(), "C&D".to_string()];
        let mut t = Tracker::new(names, g.pairs(), false, None);
        // A beats C&D twice; B and C&D draw.
        for (game, pair, first) in [(1, 0, Score::Win), (2, 0, Score::Win), (3, 1, Score::Draw)] {
            t.record(ScoredGame {
                game,
                pair,
                pair_game: game,
                first,
                first_moved: true,
            });
        }
        let l = league(&g, &t, true);
        assert_eq!(l.pairs_out, [("A".to_string(), "B".to_string())]);
        assert_eq!(l.rows[0].name, "A");
        assert!(l.rows[0].promoted && !l.rows[1].promoted);
        assert_eq!(
            l.rows.iter().find(|r| r.name == "C&D").unwrap().before,
            None
        );
        let html = section(Some(&l));
        assert!(html.contains("<code>last&lt;year&gt;.txt</code>"), "{html}");
        assert!(
            html.contains("pairs out of the gap, no games: A – B"),
            "{html}"
        );
        assert!(
            html.contains("<td class=\"engine\">C&amp;D</td><td class=\"num\">unrated</td>"),
            "{html}"
        );
        assert!(html.contains("The top 1 are promoted"));
        assert!(section(Some(&league(&g, &t, false))).contains("still to play"));
        assert_eq!(section(None), "");
    }
}
