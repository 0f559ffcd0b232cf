//! A knockout (single elimination): a seeded bracket the size of the next power of two, byes to
//! the top seeds, each match `-games` games, a tie broken by up to [`TIEBREAK_PAIRS`] extra game
//! pairs and then by the higher seed; the winner goes on, and the final ends the run. Pure.
//!
//! Seeds: the first `-seeds N` engines of the command line are seeds 1 to N in that order; the
//! others take the seeds after them in an order shuffled by the run's seed (`-srand`), so the same
//! command line with the same seed gives the same bracket. Seed `k` meets seed `size + 1 − k` in
//! the first round, and the bracket keeps seeds 1 and 2 apart until the final (the usual
//! bracket order); a seed past the number of engines is a bye for its opponent.

use crate::core::shuffle::shuffled;
pub use crate::schedule::staged::{bracket_size, TIEBREAK_PAIRS};
use crate::schedule::staged::{Board, Format, Results, Round, RoundsSettings, Table};
use crate::schedule::EngineId;

/// The shuffle pass of the unseeded places, apart from the openings' passes (0, 1, …) of the
/// same seed.
const PLACEMENT_PASS: u64 = u64::from_le_bytes(*b"knockout");

/// Seed numbers (1-based) in bracket order: adjacent places meet in the first round, and seeds
/// 1 and 2 are in opposite halves (4 places: 1, 4, 2, 3).
pub fn slot_order(size: usize) -> Vec<usize> {
    let mut order = vec![1];
    while order.len() < size {
        let m = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, m + 1 - s]).collect();
    }
    order
}

/// The engines by seed (index 0 is seed 1): the first `seeds` in command-line order, the others
/// shuffled by `seed`.
pub fn seeding(engines: usize, seeds: usize, seed: u64) -> Vec<EngineId> {
    let seeded = seeds.min(engines);
    let rest = shuffled(engines - seeded, seed, PLACEMENT_PASS);
    (0..seeded)
        .map(EngineId)
        .chain(rest.into_iter().map(|i| EngineId(seeded + i as usize)))
        .collect()
}

/// Each engine's seed number (1-based), by engine index.
pub fn seed_of(seeding: &[EngineId]) -> Vec<usize> {
    let mut rank = vec![0; seeding.len()];
    for (i, e) in seeding.iter().enumerate() {
        rank[e.0] = i + 1;
    }
    rank
}

/// A match of `a` and `b`, the higher seed (lower number) leading: black in its first game, and
/// the one who goes through when the tie-breaks end level.
fn board(a: EngineId, b: EngineId, rank: &[usize]) -> Board {
    match rank[a.0] < rank[b.0] {
        true => Board { lead: a, other: b },
        false => Board { lead: b, other: a },
    }
}

/// Round 1: place `k` of the bracket order against place `k + 1`; a place without an engine
/// gives its opponent a bye.
pub fn first_round(seeding: &[EngineId]) -> Round {
    let rank = seed_of(seeding);
    let order = slot_order(bracket_size(seeding.len()));
    let at = |seed: usize| seeding.get(seed - 1).copied();
    let tables = order
        .chunks(2)
        .map(|two| match (at(two[0]), at(two[1])) {
            (Some(a), Some(b)) => Table::Match(board(a, b, &rank)),
            (Some(e), None) | (None, Some(e)) => Table::Bye(e),
            (None, None) => unreachable!("a first-round match has the seed above half the bracket"),
        })
        .collect();
    Round { number: 1, tables }
}

/// Where a match stands: the games due so far (every regular game, then each tie-break pair
/// once the games before it are in and level), both engines' half points, and the winner once
/// decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchState {
    pub due: Vec<u64>,
    /// Half points of the lead and of the other engine, over the games whose results are in.
    pub points: (u64, u64),
    pub winner: Option<EngineId>,
    /// Tie-break games played (or due).
    pub tiebreaks: u64,
    /// Level after every tie-break: the higher seed went through.
    pub by_seed: bool,
}

/// The state of match `b` of round `r`.
pub fn match_state(
    s: &RoundsSettings,
    r: u64,
    b: u64,
    board: Board,
    results: &Results,
) -> MatchState {
    let regular = (0..s.games).collect::<Vec<_>>();
    let tiebreak_start = s.games + s.games % 2;
    let pairs =
        (0..TIEBREAK_PAIRS).map(|t| vec![tiebreak_start + 2 * t, tiebreak_start + 2 * t + 1]);
    let mut state = MatchState {
        due: vec![],
        points: (0, 0),
        winner: None,
        tiebreaks: 0,
        by_seed: false,
    };
    for (step, games) in std::iter::once(regular).chain(pairs).enumerate() {
        if step > 0 {
            state.tiebreaks += games.len() as u64;
        }
        state.due.extend(&games);
        let mut complete = true;
        for g in games {
            match results.half_points(s.number(r, b, g), board, board.lead) {
                Some(p) => {
                    state.points.0 += p;
                    state.points.1 += 2 - p;
                }
                None => complete = false,
            }
        }
        if !complete {
            return state;
        }
        if state.points.0 != state.points.1 {
            state.winner = Some(match state.points.0 > state.points.1 {
                true => board.lead,
                false => board.other,
            });
            return state;
        }
    }
    state.winner = Some(board.lead);
    state.by_seed = true;
    state
}

/// The games of match `b` of round `r` due now (results in or not).
pub fn due_games(s: &RoundsSettings, r: u64, b: u64, board: Board, results: &Results) -> Vec<u64> {
    match_state(s, r, b, board, results).due
}

/// Who goes on from each place of a round that is over.
fn winners(s: &RoundsSettings, round: &Round, results: &Results) -> Vec<EngineId> {
    (round.tables.iter().enumerate())
        .map(|(b, t)| match *t {
            Table::Bye(e) => e,
            Table::Match(board) => match_state(s, round.number, b as u64, board, results)
                .winner
                .expect("a round is over when each of its matches has a winner"),
        })
        .collect()
}

/// The round after `round` (which is over): the winners of places `2k` and `2k + 1` meet.
pub fn next_round(s: &RoundsSettings, round: &Round, results: &Results) -> Round {
    let Format::Knockout { seeds, seed } = s.format else {
        unreachable!("a knockout's settings")
    };
    let rank = seed_of(&seeding(s.engines, seeds, seed));
    let tables = winners(s, round, results)
        .chunks(2)
        .map(|two| Table::Match(board(two[0], two[1], &rank)))
        .collect();
    Round {
        number: round.number + 1,
        tables,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::{PairSides, Repeat};
    use crate::stats::Score;

    #[test]
    fn the_bracket_order_keeps_the_top_seeds_apart() {
        assert_eq!(slot_order(2), [1, 2]);
        assert_eq!(slot_order(4), [1, 4, 2, 3]);
        assert_eq!(slot_order(8), [1, 8, 4, 5, 2, 7, 3, 6]);
        for size in [2, 4, 8, 16, 32] {
            let o = slot_order(size);
            // Seed k meets seed size + 1 − k first; 1 and 2 are in opposite halves.
            for two in o.chunks(2) {
                assert_eq!(two[0] + two[1], size + 1);
            }
            let half = &o[..size / 2];
            assert!(half.contains(&1) && (size == 2 || !half.contains(&2)));
        }
    }

    #[test]
    fn seeds_keep_their_order_and_the_others_follow_the_seed() {
        let a = seeding(6, 2, 7);
        assert_eq!(&a[..2], &[EngineId(0), EngineId(1)]);
        assert_eq!(a, seeding(6, 2, 7), "the same seed, the same bracket");
        let mut rest: Vec<usize> = a[2..].iter().map(|e| e.0).collect();
        rest.sort();
        assert_eq!(rest, [2, 3, 4, 5]);
        // Some seed places them otherwise.
        assert!((1..50).any(|s| seeding(6, 2, s) != a));
        // Every engine seeded: the command line's order, whatever the seed.
        assert_eq!(seeding(3, 5, 9), [EngineId(0), EngineId(1), EngineId(2)]);
    }

    #[test]
    fn byes_go_to_the_top_seeds() {
        let seeding: Vec<EngineId> = (0..5).map(EngineId).collect();
        let r = first_round(&seeding);
        // 8 places, 5 engines: seeds 1, 2, 3 have byes; 4 meets 5.
        let byes: Vec<usize> = (r.tables.iter())
            .filter_map(|t| match t {
                Table::Bye(e) => Some(e.0),
                Table::Match(_) => None,
            })
            .collect();
        assert_eq!(byes, [0, 1, 2]);
        assert!(r.tables.contains(&Table::Match(Board {
            lead: EngineId(3),
            other: EngineId(4)
        })));
    }

    fn settings(games: u64) -> RoundsSettings {
        RoundsSettings {
            engines: 2,
            format: Format::Knockout { seeds: 2, seed: 1 },
            games,
            repeat: Repeat::Twice,
            sides: PairSides::default(),
        }
    }

    #[test]
    fn a_tie_plays_tie_break_pairs_then_the_higher_seed_goes_through() {
        let s = settings(2);
        let board = Board {
            lead: EngineId(0),
            other: EngineId(1),
        };
        let mut results = Results::default();
        let state = |res: &Results| match_state(&s, 1, 0, board, res);
        assert_eq!(state(&results).due, [0, 1]);
        let play = |res: &mut Results, g: u64, first: Score| {
            crate::schedule::rounds::tests::put(res, s.number(1, 0, g), first);
        };
        play(&mut results, 0, Score::Win);
        play(&mut results, 1, Score::Loss);
        // Level: the first tie-break pair is due.
        assert_eq!(state(&results).due, [0, 1, 2, 3]);
        play(&mut results, 2, Score::Draw);
        play(&mut results, 3, Score::Draw);
        assert_eq!(state(&results).due, [0, 1, 2, 3, 4, 5]);
        play(&mut results, 4, Score::Draw);
        assert_eq!(state(&results).winner, None);
        play(&mut results, 5, Score::Draw);
        let end = state(&results);
        assert_eq!(
            (end.winner, end.by_seed, end.tiebreaks),
            (Some(EngineId(0)), true, 4)
        );
        // A decisive tie-break pair ends the match there.
        let mut r2 = Results::default();
        for (g, sc) in [
            (0, Score::Draw),
            (1, Score::Draw),
            (2, Score::Loss),
            (3, Score::Draw),
        ] {
            play(&mut r2, g, sc);
        }
        let st = state(&r2);
        assert_eq!(
            (st.winner, st.by_seed, st.points),
            (Some(EngineId(1)), false, (3, 5))
        );
    }

    #[test]
    fn an_odd_match_starts_its_tie_breaks_on_a_pair_boundary() {
        let s = settings(3);
        assert_eq!(s.match_len(), 4 + 2 * TIEBREAK_PAIRS);
        let board = Board {
            lead: EngineId(0),
            other: EngineId(1),
        };
        let mut res = Results::default();
        for (g, sc) in [(0, Score::Win), (1, Score::Loss), (2, Score::Draw)] {
            crate::schedule::rounds::tests::put(&mut res, s.number(1, 0, g), sc);
        }
        assert_eq!(match_state(&s, 1, 0, board, &res).due, [0, 1, 2, 4, 5]);
    }
}
