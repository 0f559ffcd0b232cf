//! What a knockout or a Swiss looks like so far: the bracket or the rounds with their scores,
//! the Swiss standings, the winner; rebuilt from a journal header's settings and the games'
//! results (the same [`RoundPlan`] the run paired with), shown at the end of a run and in the
//! report. Pure.

use serde::Serialize;

use crate::formats::journal::RunSettings;
use crate::schedule::rounds::{Board, Format, RoundPlan, RoundsSettings, Table};
use crate::schedule::{knockout, swiss, PairSides, Repeat};

/// A knockout's or a Swiss's state, as the console and the report show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FormatView {
    /// `knockout` or `swiss`.
    pub kind: &'static str,
    /// One line on how it is played (match length, tie-breaks, byes).
    pub about: String,
    pub rounds: Vec<RoundView>,
    /// A Swiss's standings (empty for a knockout).
    pub standings: Vec<StandingView>,
    /// The knockout's winner, or the Swiss's leader once its last round is over.
    pub winner: Option<String>,
    /// Why the tournament ended before its last round.
    pub stopped: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundView {
    pub title: String,
    pub tables: Vec<TableView>,
}

/// One match (or bye) of a round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableView {
    /// The lead (black in the first game), a knockout's with its seed: `[1] Name`.
    pub a: String,
    /// The opponent; `None` for a bye.
    pub b: Option<String>,
    /// `1.5-0.5` (points of `a`, then `b`) over the games in, or `bye`.
    pub score: String,
    pub winner: Option<String>,
    /// `2 tie-break games`, `level: the higher seed goes through`, `playing`.
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StandingView {
    pub rank: usize,
    pub name: String,
    pub points: String,
    pub buchholz: String,
    pub games: u64,
    pub byes: u64,
}

/// Half points as points: `3`, `2.5`.
fn points(half: u64) -> String {
    match half % 2 {
        0 => (half / 2).to_string(),
        _ => format!("{}.5", half / 2),
    }
}

/// The round plan of a journal's run (`None` for a round robin or a gauntlet).
pub fn settings_of(s: &RunSettings) -> Option<RoundsSettings> {
    let format = match s.tournament.as_str() {
        "knockout" => Format::Knockout {
            seeds: s.seeds.unwrap_or(0),
            seed: s.seed,
        },
        "swiss" => Format::Swiss { rounds: s.rounds },
        _ => return None,
    };
    Some(RoundsSettings {
        engines: s.engines.len().max(2),
        format,
        games: s.games.max(1),
        repeat: match s.repeat {
            true => Repeat::Twice,
            false => Repeat::Once,
        },
        sides: PairSides {
            noswap: s.noswap,
            reverse: s.reverse,
        },
    })
}

/// A knockout round's name: the final, the semi-finals, the quarter-finals, else its number.
fn round_title(plan: &RoundPlan, number: u64) -> String {
    if let Format::Swiss { .. } = plan.settings().format {
        return format!("Round {number}");
    }
    match plan.settings().rounds() - number {
        0 => "Final".into(),
        1 => "Semi-finals".into(),
        2 => "Quarter-finals".into(),
        _ => format!("Round {number}"),
    }
}

/// The view of a plan, engines named by `names`.
pub fn view(plan: &RoundPlan, names: &[String]) -> FormatView {
    let s = plan.settings();
    let name = |e: crate::schedule::EngineId| names.get(e.0).cloned().unwrap_or_default();
    let seed_of = match s.format {
        Format::Knockout { seeds, seed } => {
            knockout::seed_of(&knockout::seeding(s.engines, seeds, seed))
        }
        Format::Swiss { .. } => vec![],
    };
    let label = |e: crate::schedule::EngineId| match seed_of.get(e.0) {
        Some(k) => format!("[{k}] {}", name(e)),
        None => name(e),
    };
    let rounds: Vec<RoundView> = (plan.rounds().iter())
        .map(|r| RoundView {
            title: round_title(plan, r.number),
            tables: (r.tables.iter().enumerate())
                .map(|(b, t)| match *t {
                    Table::Bye(e) => TableView {
                        a: label(e),
                        b: None,
                        score: "bye".into(),
                        winner: None,
                        note: String::new(),
                    },
                    Table::Match(board) => table_view(plan, r.number, b as u64, board, &label),
                })
                .collect(),
        })
        .collect();
    let (standings, winner, about) = match s.format {
        Format::Knockout { .. } => {
            let winner = (plan.is_over().then(|| plan.rounds().last()))
                .flatten()
                .and_then(|r| r.tables.first())
                .and_then(|t| match *t {
                    Table::Match(board) => {
                        let last = plan.rounds().len() as u64;
                        knockout::match_state(s, last, 0, board, plan.results()).winner
                    }
                    Table::Bye(e) => Some(e),
                })
                .map(name);
            let about = format!(
                "{} engines in a bracket of {}; a match is {} game(s), a tie broken by up to {} \
                 game pairs, then the higher seed goes through",
                s.engines,
                knockout::bracket_size(s.engines),
                s.games,
                knockout::TIEBREAK_PAIRS
            );
            (vec![], winner, about)
        }
        Format::Swiss { rounds } => swiss_standings(plan, rounds, &name),
    };
    FormatView {
        kind: match s.format {
            Format::Knockout { .. } => "knockout",
            Format::Swiss { .. } => "swiss",
        },
        about,
        rounds,
        standings,
        winner,
        stopped: plan.unpairable().map(|e| e.to_string()),
    }
}

/// A Swiss's standings, its leader once over, and its line.
fn swiss_standings(
    plan: &RoundPlan,
    rounds: u64,
    name: &dyn Fn(crate::schedule::EngineId) -> String,
) -> (Vec<StandingView>, Option<String>, String) {
    let s = plan.settings();
    let table = swiss::standings(s, plan.rounds(), plan.results());
    let winner = (plan.is_over() && plan.unpairable().is_none())
        .then(|| table.first().map(|t| name(t.engine)))
        .flatten();
    let standings = (table.iter().enumerate())
        .map(|(i, t)| StandingView {
            rank: i + 1,
            name: name(t.engine),
            points: points(t.points),
            buchholz: points(t.buchholz),
            games: t.games,
            byes: t.byes,
        })
        .collect();
    let about = format!(
        "{rounds} round(s) of {} game(s) a match, paired by points without rematches; a game \
         won is 1 point, drawn 1/2; a bye counts as a match won ({} points); ties ranked by \
         Buchholz (the opponents' points)",
        s.games, s.games
    );
    (standings, winner, about)
}

/// One match of round `r` (board `b`).
fn table_view(
    plan: &RoundPlan,
    r: u64,
    b: u64,
    board: Board,
    label: &dyn Fn(crate::schedule::EngineId) -> String,
) -> TableView {
    let s = plan.settings();
    let res = plan.results();
    let (lead, other, winner, note) = match s.format {
        Format::Knockout { .. } => {
            let m = knockout::match_state(s, r, b, board, res);
            let note = match (m.winner, m.by_seed, m.tiebreaks) {
                (Some(_), true, _) => {
                    "level after the tie-breaks: the higher seed goes through".into()
                }
                (_, _, 0) => String::new(),
                (_, _, n) => format!("{n} tie-break games"),
            };
            (m.points.0, m.points.1, m.winner, note)
        }
        Format::Swiss { .. } => {
            let (mut lead, mut other) = (0, 0);
            for g in 0..s.games {
                if let Some(p) = res.half_points(s.number(r, b, g), board, board.lead) {
                    lead += p;
                    other += 2 - p;
                }
            }
            (lead, other, None, String::new())
        }
    };
    let played = (0..s.match_len()).any(|g| res.get(s.number(r, b, g)).is_some());
    let over = winner.is_some() || (s.games * 2 == lead + other);
    TableView {
        a: label(board.lead),
        b: Some(label(board.other)),
        score: match played {
            true => format!("{}-{}", points(lead), points(other)),
            false => String::new(),
        },
        winner: winner.map(label),
        note: match (over, note.is_empty()) {
            (false, _) if played || plan.rounds().last().is_some_and(|l| l.number == r) => {
                "playing".into()
            }
            _ => note,
        },
    }
}

/// The view as text, for the end of a run.
pub fn text(v: &FormatView) -> String {
    let width = (v.rounds.iter())
        .flat_map(|r| r.tables.iter().map(|t| t.a.chars().count()))
        .max()
        .unwrap_or(0);
    let title = match v.kind {
        "knockout" => "Knockout",
        _ => "Swiss",
    };
    let mut out = format!("{title}: {}\n", v.about);
    for r in &v.rounds {
        out.push_str(&format!("{}\n", r.title));
        for t in &r.tables {
            let a = crate::stats::text::pad(&t.a, width, true);
            let line = match &t.b {
                None => format!("  {a}  bye"),
                Some(b) => {
                    let score = if t.score.is_empty() { "-" } else { &t.score };
                    format!("  {a}  {score:^9}  {b}")
                }
            };
            let note = match (&t.note, &t.winner) {
                (n, Some(w)) if !n.is_empty() => format!("  ({n}; {w} goes through)"),
                (n, _) if !n.is_empty() => format!("  ({n})"),
                _ => String::new(),
            };
            out.push_str(&format!("{}{note}\n", line.trim_end()));
        }
    }
    if !v.standings.is_empty() {
        let w = (v.standings.iter().map(|s| s.name.chars().count()))
            .max()
            .unwrap_or(0)
            .max(6);
        let pad = |t: &str| crate::stats::text::pad(t, w, true);
        out.push_str(&format!(
            "Swiss standings:\n  Rank  {}  Points  Buchholz  Games  Byes\n",
            pad("Engine")
        ));
        for s in &v.standings {
            out.push_str(&format!(
                "  {:>4}  {}  {:>6}  {:>8}  {:>5}  {:>4}\n",
                s.rank,
                pad(&s.name),
                s.points,
                s.buchholz,
                s.games,
                s.byes
            ));
        }
    }
    if let Some(why) = &v.stopped {
        out.push_str(&format!("Stopped early: {why}\n"));
    }
    if let Some(w) = &v.winner {
        out.push_str(&format!("Winner: {w}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::rounds::Next;
    use crate::stats::Score;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("E{i}")).collect()
    }

    /// Play every game, the lower-numbered engine winning.
    fn played(s: RoundsSettings) -> RoundPlan {
        let mut plan = RoundPlan::new(s, None);
        while let Next::Play(p) = plan.next_game() {
            plan.record(p.game, Score::Win);
        }
        plan
    }

    #[test]
    fn a_knockout_shows_its_bracket_round_by_round_and_its_winner() {
        let s = RoundsSettings {
            engines: 5,
            format: Format::Knockout { seeds: 5, seed: 1 },
            games: 2,
            repeat: Repeat::Twice,
            sides: PairSides::default(),
        };
        let v = view(&played(s), &names(5));
        let titles: Vec<&str> = v.rounds.iter().map(|r| r.title.as_str()).collect();
        assert_eq!(titles, ["Quarter-finals", "Semi-finals", "Final"]);
        assert_eq!(v.winner.as_deref(), Some("E0"));
        let t = text(&v);
        assert!(t.contains("[1] E0  bye"), "{t}");
        assert!(t.contains("[4] E3     2-0     [5] E4"), "{t}");
        assert!(
            t.contains("Final\n  [1] E0     2-0     [2] E1\nWinner: E0"),
            "{t}"
        );
    }

    #[test]
    fn a_swiss_shows_its_rounds_and_standings_with_buchholz() {
        let s = RoundsSettings {
            engines: 3,
            format: Format::Swiss { rounds: 3 },
            games: 1,
            repeat: Repeat::Once,
            sides: PairSides::default(),
        };
        let plan = played(s);
        let v = view(&plan, &names(3));
        assert_eq!(v.rounds.len(), 3);
        // E0 beat both, E1 beat E2; each had a bye worth a point.
        let table: Vec<(&str, &str, &str)> = (v.standings.iter())
            .map(|r| (r.name.as_str(), r.points.as_str(), r.buchholz.as_str()))
            .collect();
        assert_eq!(
            table,
            [("E0", "3", "3"), ("E1", "2", "4"), ("E2", "1", "5")]
        );
        assert_eq!(v.winner.as_deref(), Some("E0"));
        assert!(text(&v).contains("Swiss standings:"));
    }
}
