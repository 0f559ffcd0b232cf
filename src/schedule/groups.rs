//! Gomocup's league (`-tournament groups`): a round robin of only the pairs whose ratings are
//! within the gap, as GomocupJudge's `server.py` builds its matches (`rating_diff`): a pair whose
//! ratings differ by the gap or more plays no game; an engine without a rating meets everyone.
//! The pair list is a pure function of the ratings and the gap, so resume and shards recompute
//! the same numbering: the games of the pairs kept are numbered densely as a round robin's are.

use crate::schedule::{EngineId, Schedule};

/// Whether two engines meet: both rated and `gap` or more apart is the only no (GomocupJudge's
/// `abs(rating_1 - rating_2) >= rating_diff`).
pub fn meet(a: Option<i64>, b: Option<i64>, gap: u64) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.abs_diff(b) < gap,
        _ => true,
    }
}

/// The round robin's pairs `(i, j)`, `i < j`, in its order, less those out of the gap.
pub fn pairs_within(ratings: &[Option<i64>], gap: u64) -> Vec<(EngineId, EngineId)> {
    let n = ratings.len();
    (0..n)
        .flat_map(|i| ((i + 1)..n).map(move |j| (i, j)))
        .filter(|&(i, j)| meet(ratings[i], ratings[j], gap))
        .map(|(i, j)| (EngineId(i), EngineId(j)))
        .collect()
}

/// The engines that meet no other one (each rated and out of every other's gap): they would
/// play no game, so the league refuses them (see `config::groups`).
pub fn alone(ratings: &[Option<i64>], gap: u64) -> Vec<usize> {
    (0..ratings.len())
        .filter(|&i| !(0..ratings.len()).any(|j| j != i && meet(ratings[i], ratings[j], gap)))
        .collect()
}

impl Schedule {
    /// The same schedule playing only `pairs` (in their order): a league's pairs within the gap.
    /// Game numbers stay dense (`1 + (r·P + p)·G + g` with `P` the pairs kept), so shards, the
    /// game queue and a resumed run's check of game numbers work as for any schedule.
    pub fn with_pairs(mut self, pairs: Vec<(EngineId, EngineId)>) -> Self {
        self.pairs = pairs;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::shard::Shard;
    use crate::schedule::{GameId, Repeat, TournamentKind};

    /// Five engines: 2000, 1800, 1650, unrated, 1200.
    const RATED: [Option<i64>; 5] = [Some(2000), Some(1800), Some(1650), None, Some(1200)];

    fn ids(pairs: &[(EngineId, EngineId)]) -> Vec<(usize, usize)> {
        pairs.iter().map(|(a, b)| (a.0, b.0)).collect()
    }

    #[test]
    fn pairs_out_of_the_gap_are_left_out_and_the_unrated_meet_everyone() {
        // 2000-1800 (200) and 1800-1650 (150) within 400; 2000-1650 is 350; 1200 is 450 from
        // 1650 and further from the others: it meets only the unrated engine.
        assert_eq!(
            ids(&pairs_within(&RATED, 400)),
            [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (3, 4)]
        );
        // Exactly the gap apart: no game (GomocupJudge's >=); one Elo less: a game.
        assert!(!meet(Some(1600), Some(2000), 400));
        assert!(meet(Some(1601), Some(2000), 400));
        assert!(
            meet(Some(-150), Some(200), 400),
            "negative ratings are ratings"
        );
        assert!(meet(None, Some(i64::MAX), 1));
        // A gap wider than every difference is the whole round robin.
        let all = Schedule::new(5, TournamentKind::RoundRobin, 1, 1, Repeat::Once);
        assert_eq!(pairs_within(&RATED, 10_000), all.pairs());
        assert!(alone(&RATED, 400).is_empty());
        let rated = [Some(2000), Some(1800), Some(1200)];
        assert_eq!(alone(&rated, 400), [2]);
        assert_eq!(alone(&rated, 100), [0, 1, 2]);
    }

    #[test]
    fn a_league_numbers_its_games_densely_and_shards_split_it_exactly() {
        let pairs = pairs_within(&RATED, 400);
        let s = Schedule::new(5, TournamentKind::RoundRobin, 2, 3, Repeat::Twice).with_pairs(pairs);
        assert_eq!(s.total_games(), 3 * 7 * 2);
        let played: Vec<(usize, usize)> = s.iter().map(|p| (p.first.0, p.second.0)).collect();
        assert!(!played.contains(&(4, 0)) && !played.iter().any(|&(a, b)| (a, b) == (2, 4)));
        // Every game of the schedule once, numbered 1..=total; each pair both colours of each
        // opening (Gomocup's every opening with both colours: -games 2 -repeat, one per round).
        let ids: Vec<u64> = s.iter().map(|p| p.game.0).collect();
        assert_eq!(ids, (1..=42).collect::<Vec<_>>());
        for p in s.iter().filter(|p| p.pair_game % 2 == 0) {
            let other = s.pairing(GameId(p.game.0 + 1)).unwrap();
            assert_eq!((other.black, other.opening_draw), (p.white, p.opening_draw));
            assert_eq!(p.opening_draw, p.round - 1);
        }
        for n in 1..=4 {
            let mut seen = vec![0; 42];
            for k in 1..=n {
                let shard = Shard { index: k, count: n };
                let q = crate::schedule::queue::GameQueue::new(&s, Some(shard), [].into());
                assert_eq!(q.len(), shard.owned_games(&s));
                for g in q {
                    seen[(g.0 - 1) as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "{n} shards: {seen:?}");
        }
    }
}
