//! The games a run still has to play, handed out one at a time in game-number order: the
//! schedule's, or one shard's, less those a resumed run already played.

use std::collections::HashSet;

use crate::schedule::shard::Shard;
use crate::schedule::{GameId, Schedule};

/// The games still to hand out, in game-number order (a shard's own, less those a resumed run
/// already played), each computed when it is taken. Its memory is that of the games already
/// played, whatever the schedule's length: an open-ended SPRT may set a cap of 2^32 games or
/// more. The order is the one a list of all game numbers filtered the same way would give.
#[derive(Debug, Clone)]
pub struct GameQueue {
    schedule: Schedule,
    shard: Option<Shard>,
    /// The lowest game number not yet considered.
    next: u64,
    /// Games already played and not yet passed: skipped, and forgotten once passed.
    done: HashSet<u64>,
    /// Games still to hand out; the queue ends at 0 (so the last game may be `u64::MAX`).
    left: u64,
}

impl GameQueue {
    /// The games of `schedule` (only `shard`'s, when given) less those in `done`.
    pub fn new(schedule: &Schedule, shard: Option<Shard>, mut done: HashSet<u64>) -> GameQueue {
        let total = schedule.total_games();
        done.retain(|&g| g >= 1 && g <= total && shard.is_none_or(|s| s.owns(schedule, GameId(g))));
        let owned = shard.map_or(total, |s| s.owned_games(schedule));
        GameQueue {
            schedule: schedule.clone(),
            shard,
            next: 1,
            left: owned - done.len() as u64,
            done,
        }
    }

    /// How many games are still to hand out.
    pub fn len(&self) -> u64 {
        self.left
    }

    pub fn is_empty(&self) -> bool {
        self.left == 0
    }
}

impl Iterator for GameQueue {
    type Item = GameId;

    fn next(&mut self) -> Option<GameId> {
        while self.left > 0 {
            let g = match self.shard {
                None => GameId(self.next),
                // `left` > 0 guarantees a game of this shard is still ahead.
                Some(s) => s.next_owned(&self.schedule, GameId(self.next))?,
            };
            self.next = g.0.saturating_add(1);
            if !self.done.remove(&g.0) {
                self.left -= 1;
                return Some(g);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::{Repeat, TournamentKind};

    /// The queue as a materialised list filtered game by game (the order it must keep).
    fn listed(s: &Schedule, shard: Option<Shard>, done: &HashSet<u64>) -> Vec<u64> {
        (1..=s.total_games())
            .filter(|&g| shard.is_none_or(|sh| sh.owns(s, GameId(g))))
            .filter(|g| !done.contains(g))
            .collect()
    }

    #[test]
    fn the_queue_hands_out_what_a_filtered_list_would_in_the_same_order() {
        for (engines, games, rounds, repeat) in [
            (2, 7, 3, Repeat::Twice),
            (4, 3, 2, Repeat::Once),
            (3, 1, 5, Repeat::Twice),
        ] {
            let s = Schedule::new(engines, TournamentKind::RoundRobin, games, rounds, repeat);
            let total = s.total_games();
            // Played games of a resumed run: some, including the first and the last, and one
            // past the end (ignored).
            let some: HashSet<u64> = [1, 2, 5, total, total + 1].into();
            let shards = std::iter::once(None).chain(
                (1..=5).flat_map(|n| (1..=n).map(move |k| Some(Shard { index: k, count: n }))),
            );
            for shard in shards {
                for done in [HashSet::new(), some.clone()] {
                    let want = listed(&s, shard, &done);
                    let q = GameQueue::new(&s, shard, done.clone());
                    assert_eq!(q.len(), want.len() as u64, "{shard:?} {done:?}");
                    let got: Vec<u64> = q.map(|g| g.0).collect();
                    assert_eq!(got, want, "{shard:?} {done:?}");
                }
            }
        }
    }

    #[test]
    fn a_queue_of_2_pow_32_or_u64_max_games_is_built_without_listing_them() {
        // A list of 2^32 game numbers takes 32 GiB; of u64::MAX more than any machine has.
        let s = Schedule::new(2, TournamentKind::RoundRobin, 1 << 32, 1, Repeat::Once);
        let mut q = GameQueue::new(&s, None, [2].into());
        assert_eq!(q.len(), (1 << 32) - 1);
        let first: Vec<u64> = q.by_ref().take(3).map(|g| g.0).collect();
        assert_eq!(first, vec![1, 3, 4]);
        assert_eq!(q.len(), (1 << 32) - 4);
        assert!(q.done.is_empty(), "played games are forgotten once passed");

        let s = Schedule::new(2, TournamentKind::RoundRobin, u64::MAX, 1, Repeat::Twice);
        let shard = Shard { index: 2, count: 3 };
        let mut q = GameQueue::new(&s, Some(shard), HashSet::new());
        // Units of two games, every third one: 3, 4, 9, 10, ...
        let first: Vec<u64> = q.by_ref().take(4).map(|g| g.0).collect();
        assert_eq!(first, vec![3, 4, 9, 10]);
        // Units 0 ..= 2^63 - 1 (the last one the lone game u64::MAX, unit 2^63 - 1 ≡ 1 mod 3, so
        // this shard's): 2·⌊2^63/3⌋ + 1 = (2^64 - 1)/3 games, counted without a walk.
        assert_eq!(shard.owned_games(&s), u64::MAX / 3);
        assert_eq!(q.len(), u64::MAX / 3 - 4);
        assert_eq!(
            shard.next_owned(&s, GameId(u64::MAX - 1)),
            Some(GameId(u64::MAX))
        );
        assert_eq!(
            shard.next_owned(&s, GameId(u64::MAX)),
            Some(GameId(u64::MAX))
        );
        // Game u64::MAX - 1 is shard 1's; its next unit after that would start past u64::MAX.
        let one = Shard { index: 1, count: 3 };
        let last_but_one = GameId(u64::MAX - 1);
        assert_eq!(one.next_owned(&s, last_but_one), Some(last_but_one));
        assert_eq!(one.next_owned(&s, GameId(u64::MAX)), None);
        let p = s.pairing(GameId(u64::MAX)).unwrap();
        assert_eq!(p.pair_game, u64::MAX - 1);
    }
}
