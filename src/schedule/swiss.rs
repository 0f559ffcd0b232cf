//! A Swiss: `-rounds N` rounds, each engine paired with another of about its score it has not
//! met, colours balanced over the games. Pure.
//!
//! Pairing: the engines ranked by points (half points over every game played, a bye worth a
//! whole match won), then command-line order; from the top, each takes the highest-ranked
//! engine it has not met, backtracking where the rest could not be paired, so a pairing without
//! rematches is found whenever one exists (within a search bound). With an odd number of
//! engines, the lowest-ranked engine without a bye sits out. Colours: of the two, the engine with
//! fewer blacks than whites so far (then the one that led fewer matches, then the higher-ranked)
//! is black in the match's first game; the games alternate, so an even `-games` gives each
//! engine half the blacks, and with an odd one the engine behind on blacks catches up where the
//! pairing by score lets it (two engines behind alike meet, and one falls further behind).

use std::collections::HashSet;

use crate::schedule::staged::{colours, Board, Results, Round, RoundsSettings, Table, Unpairable};
use crate::schedule::EngineId;

/// Steps the pairing search may take before it gives up (a few thousand at most in practice;
/// the bound keeps a hopeless last round of a large Swiss from searching for hours).
const SEARCH_STEPS: u64 = 1_000_000;

/// Rounds a Swiss of `engines` engines can have without a rematch: each engine meets every
/// other at most once, and with an odd count each sits out once.
pub fn max_rounds(engines: usize) -> u64 {
    match engines % 2 {
        0 => engines as u64 - 1,
        _ => engines as u64,
    }
}

/// One engine's place after the rounds so far.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Standing {
    pub engine: EngineId,
    /// Half points: its games' results and its byes.
    pub points: u64,
    /// Buchholz: the sum of its opponents' points (half points), the tie-break of the table.
    pub buchholz: u64,
    pub byes: u64,
    pub games: u64,
}

/// What the pairing needs of each engine.
#[derive(Debug, Clone, Default)]
struct History {
    points: u64,
    met: HashSet<usize>,
    byes: u64,
    games: u64,
    /// Blacks minus whites over its scheduled games.
    balance: i64,
    /// Matches in which it was black in the first game.
    leads: u64,
}

fn histories(s: &RoundsSettings, rounds: &[Round], results: &Results) -> Vec<History> {
    let mut h = vec![History::default(); s.engines];
    for round in rounds {
        for (b, t) in round.tables.iter().enumerate() {
            let board = match *t {
                Table::Bye(e) => {
                    h[e.0].byes += 1;
                    h[e.0].points += 2 * s.games;
                    continue;
                }
                Table::Match(board) => board,
            };
            h[board.lead.0].leads += 1;
            h[board.lead.0].met.insert(board.other.0);
            h[board.other.0].met.insert(board.lead.0);
            for g in 0..s.games {
                let (black, white) = colours(board, g, s.sides);
                h[black.0].balance += 1;
                h[white.0].balance -= 1;
                let game = s.number(round.number, b as u64, g);
                for e in [board.lead, board.other] {
                    if let Some(p) = results.half_points(game, board, e) {
                        h[e.0].points += p;
                        h[e.0].games += 1;
                    }
                }
            }
        }
    }
    h
}

/// The standings: points, then Buchholz, then command-line order.
pub fn standings(s: &RoundsSettings, rounds: &[Round], results: &Results) -> Vec<Standing> {
    let h = histories(s, rounds, results);
    let mut table: Vec<Standing> = (h.iter().enumerate())
        .map(|(i, e)| Standing {
            engine: EngineId(i),
            points: e.points,
            buchholz: e.met.iter().map(|&o| h[o].points).sum(),
            byes: e.byes,
            games: e.games,
        })
        .collect();
    table.sort_by(|a, b| {
        (b.points, b.buchholz, a.engine.0).cmp(&(a.points, a.buchholz, b.engine.0))
    });
    table
}

/// Pair `order` (ranked) without rematches, the top engine first with the highest-ranked it has
/// not met; `None` when no such pairing exists or the search ran out of `steps`.
fn pair_all(order: &[usize], h: &[History], steps: &mut u64) -> Option<Vec<(usize, usize)>> {
    let Some((&top, rest)) = order.split_first() else {
        return Some(vec![]);
    };
    for (i, &other) in rest.iter().enumerate() {
        if h[top].met.contains(&other) {
            continue;
        }
        if *steps == 0 {
            return None;
        }
        *steps -= 1;
        let mut left = rest.to_vec();
        left.remove(i);
        if let Some(mut pairs) = pair_all(&left, h, steps) {
            pairs.insert(0, (top, other));
            return Some(pairs);
        }
    }
    None
}

/// The round after `rounds` (all over), or why it cannot be paired without a rematch.
pub fn pair_round(
    s: &RoundsSettings,
    rounds: &[Round],
    results: &Results,
) -> Result<Round, Unpairable> {
    let number = rounds.len() as u64 + 1;
    let h = histories(s, rounds, results);
    let mut order: Vec<usize> = (0..s.engines).collect();
    order.sort_by_key(|&e| (std::cmp::Reverse(h[e].points), e));
    // The bye: the lowest-ranked engine that has not had one (none with an even count).
    let byes: Vec<Option<usize>> = match s.engines % 2 {
        0 => vec![None],
        _ => order
            .iter()
            .rev()
            .filter(|&&e| h[e].byes == 0)
            .map(|&e| Some(e))
            .collect(),
    };
    if byes.is_empty() {
        let why = "every engine has had its bye".to_string();
        return Err(Unpairable { round: number, why });
    }
    let mut steps = SEARCH_STEPS;
    for bye in byes {
        let rest: Vec<usize> = order.iter().copied().filter(|&e| Some(e) != bye).collect();
        if let Some(pairs) = pair_all(&rest, &h, &mut steps) {
            let lead_key = |e: usize| (h[e].balance, h[e].leads);
            let mut tables: Vec<Table> = pairs
                .into_iter()
                .map(|(a, b)| {
                    let (lead, other) = match lead_key(b) < lead_key(a) {
                        true => (b, a),
                        false => (a, b),
                    };
                    Table::Match(Board {
                        lead: EngineId(lead),
                        other: EngineId(other),
                    })
                })
                .collect();
            tables.extend(bye.map(|e| Table::Bye(EngineId(e))));
            return Ok(Round { number, tables });
        }
        if steps == 0 {
            break;
        }
    }
    let why = match steps {
        0 => format!("no pairing found in {SEARCH_STEPS} steps of the search"),
        _ => "each way of pairing the engines repeats a match of an earlier round".to_string(),
    };
    Err(Unpairable { round: number, why })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::rounds::{tests::put, Format};
    use crate::schedule::{PairSides, Repeat};
    use crate::stats::Score;

    fn settings(engines: usize, games: u64, rounds: u64) -> RoundsSettings {
        RoundsSettings {
            engines,
            format: Format::Swiss { rounds },
            games,
            repeat: Repeat::Once,
            sides: PairSides::default(),
        }
    }

    fn boards(r: &Round) -> Vec<(usize, usize)> {
        (r.tables.iter())
            .filter_map(|t| match t {
                Table::Match(b) => Some((b.lead.0, b.other.0)),
                Table::Bye(_) => None,
            })
            .collect()
    }

    #[test]
    fn the_first_round_pairs_in_order_and_the_second_by_score() {
        let s = settings(4, 1, 3);
        let r1 = pair_round(&s, &[], &Results::default()).unwrap();
        assert_eq!(boards(&r1), [(0, 1), (2, 3)]);
        let mut res = Results::default();
        // 1 beats 0 (game 1: pair (0,1), first is 0), 3 beats 2.
        put(&mut res, s.number(1, 0, 0), Score::Loss);
        put(&mut res, s.number(1, 1, 0), Score::Loss);
        let r2 = pair_round(&s, std::slice::from_ref(&r1), &res).unwrap();
        // Ranked 1, 3, 0, 2: the winners meet, then the losers (both white, and both black, in
        // round 1: the higher-ranked leads).
        assert_eq!(boards(&r2), [(1, 3), (0, 2)]);
        let table = standings(&s, &[r1, r2], &res);
        assert_eq!(table[0].points, 2);
        assert_eq!(table[3].points, 0);
    }

    #[test]
    fn an_odd_field_gives_the_bye_to_the_lowest_without_one() {
        let s = settings(3, 2, 3);
        let mut rounds = vec![];
        let mut res = Results::default();
        for _ in 0..3 {
            let r = pair_round(&s, &rounds, &res).unwrap();
            for (b, t) in r.tables.iter().enumerate() {
                if let Table::Match(_) = t {
                    for g in 0..2 {
                        put(&mut res, s.number(r.number, b as u64, g), Score::Draw);
                    }
                }
            }
            rounds.push(r);
        }
        // Three rounds: every engine sat out once and met both others.
        let table = standings(&s, &rounds, &res);
        assert!(table.iter().all(|t| t.byes == 1 && t.games == 4));
        // A bye counts as the match won: 4 half points, and two drawn matches 2 each.
        assert!(table.iter().all(|t| t.points == 8));
        assert_eq!(
            pair_round(&s, &rounds, &res).unwrap_err().why,
            "every engine has had its bye"
        );
    }

    #[test]
    fn a_round_without_a_pairing_is_an_error_that_says_why() {
        // Four engines, three rounds: everyone has met everyone.
        let s = settings(4, 1, 3);
        let mut rounds = vec![];
        let res = Results::default();
        let draws = |rounds: &Vec<Round>, res: &mut Results| {
            let r: &Round = rounds.last().unwrap();
            for b in 0..2 {
                put(res, s.number(r.number, b, 0), Score::Draw);
            }
        };
        let mut res2 = res.clone();
        for _ in 0..3 {
            rounds.push(pair_round(&s, &rounds, &res2).unwrap());
            draws(&rounds, &mut res2);
        }
        let e = pair_round(&s, &rounds, &res2).unwrap_err();
        assert_eq!(e.round, 4);
        assert!(e.to_string().contains("without a rematch"), "{e}");
        assert_eq!(max_rounds(4), 3);
        assert_eq!(max_rounds(5), 5);
    }
}
