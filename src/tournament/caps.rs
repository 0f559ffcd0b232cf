//! Engines that must not share: `slots=N` on an engine (and `-ponder`, which gives every engine
//! one) caps the games it plays at once. The dispatcher takes games here instead of straight from
//! the queue: a game whose engine is at its cap waits, and a later game whose engines are free is
//! handed out first, so the other slots stay busy while a GPU engine plays its one game.

use std::collections::{HashMap, VecDeque};

use crate::schedule::queue::GameQueue;
use crate::schedule::{EngineId, GameId, Pairing, Schedule};

/// How far ahead of the first waiting game the dispatcher looks for one whose engines are free.
/// Every game of a pair waits while the first does, so the look-ahead need only reach the other
/// pairs: a round of games `-games` long for each of them, at the sizes runs use. Past it the slot
/// waits for a game to end: slower, never wrong.
pub const LOOK_AHEAD: usize = 4096;

/// What a slot asking for a game gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    Game(Pairing),
    /// No game can start now (its engines are at their caps); one may after a game ends.
    Wait,
    /// Every game is handed out.
    End,
}

/// The caps and the games in flight under them.
#[derive(Debug, Clone)]
pub struct EngineCaps {
    /// Each engine's cap (`None`: as many games as slots).
    caps: Vec<Option<u32>>,
    /// Games each engine is playing now.
    busy: Vec<u32>,
    /// The engines of each game in flight, so an abandoned game (known by number) frees them.
    playing: HashMap<GameId, [EngineId; 2]>,
    /// Games taken from the queue that had to wait, in game-number order.
    waiting: VecDeque<Pairing>,
}

impl EngineCaps {
    /// `caps[i]` is engine `i`'s cap; `None` when no engine has one (the plain queue's order).
    pub fn new(caps: Vec<Option<u32>>) -> Option<EngineCaps> {
        caps.iter().any(Option::is_some).then(|| EngineCaps {
            busy: vec![0; caps.len()],
            caps,
            playing: HashMap::new(),
            waiting: VecDeque::new(),
        })
    }

    fn free(&self, p: &Pairing) -> bool {
        [p.black, p.white].iter().all(|e| {
            let cap = self.caps.get(e.0).copied().flatten();
            cap.is_none_or(|c| self.busy.get(e.0).copied().unwrap_or(0) < c)
        })
    }

    /// The first game, in game-number order, whose engines are both under their caps: one that
    /// waited, else the next of the queue within [`LOOK_AHEAD`].
    pub fn take(&mut self, queue: &mut GameQueue, schedule: &Schedule) -> Take {
        if let Some(i) = self.waiting.iter().position(|p| self.free(p)) {
            let p = self.waiting.remove(i).expect("a found index");
            self.start(&p);
            return Take::Game(p);
        }
        while self.waiting.len() < LOOK_AHEAD {
            let Some(p) = queue.next().and_then(|g| schedule.pairing(g)) else {
                break;
            };
            if self.free(&p) {
                self.start(&p);
                return Take::Game(p);
            }
            self.waiting.push_back(p);
        }
        if self.waiting.is_empty() {
            Take::End
        } else {
            Take::Wait
        }
    }

    /// Start `p` if its engines are under their caps (a knockout's or a Swiss's game, which the
    /// round plan offers in place of the queue); whether it started.
    pub fn try_start(&mut self, p: &Pairing) -> bool {
        let free = self.free(p);
        if free {
            self.start(p);
        }
        free
    }

    fn start(&mut self, p: &Pairing) {
        for e in [p.black, p.white] {
            if let Some(b) = self.busy.get_mut(e.0) {
                *b += 1;
            }
        }
        self.playing.insert(p.game, [p.black, p.white]);
    }

    /// Game `game` ended (finished or abandoned): its engines are free for another.
    pub fn ended(&mut self, game: GameId) {
        for e in self.playing.remove(&game).into_iter().flatten() {
            if let Some(b) = self.busy.get_mut(e.0) {
                *b = b.saturating_sub(1);
            }
        }
    }

    /// Games taken from the queue that still wait for their engines.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::{Repeat, TournamentKind};

    fn setup(
        engines: usize,
        games: u64,
        caps: Vec<Option<u32>>,
    ) -> (EngineCaps, GameQueue, Schedule) {
        let s = Schedule::new(engines, TournamentKind::RoundRobin, games, 1, Repeat::Once);
        let q = GameQueue::new(&s, None, Default::default());
        (EngineCaps::new(caps).unwrap(), q, s)
    }

    fn game(t: Take) -> Pairing {
        match t {
            Take::Game(p) => p,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn no_cap_is_no_caps() {
        assert!(EngineCaps::new(vec![None, None]).is_none());
    }

    #[test]
    fn a_capped_engine_plays_one_game_and_the_others_go_on() {
        // Four engines, engine 0 capped at 1: pairs (0,1) (0,2) (0,3) (1,2) (1,3) (2,3).
        let (mut c, mut q, s) = setup(4, 2, vec![Some(1), None, None, None]);
        let first = game(c.take(&mut q, &s));
        assert_eq!((first.first, first.second), (EngineId(0), EngineId(1)));
        // The rest of engine 0's games wait; pair (1,2)'s come out first.
        let next = game(c.take(&mut q, &s));
        assert_eq!((next.first, next.second), (EngineId(1), EngineId(2)));
        assert_eq!(
            c.waiting(),
            5,
            "(0,1)'s second game and both of (0,2), (0,3)"
        );
        // Engine 0's game ends: its next game, the lowest number, goes first.
        c.ended(first.game);
        let after = game(c.take(&mut q, &s));
        assert_eq!(after.game.0, first.game.0 + 1);
    }

    #[test]
    fn every_game_is_handed_out_once_and_caps_always_hold() {
        let caps = vec![Some(1), Some(2), None, Some(1), None];
        let (mut c, mut q, s) = setup(5, 3, caps.clone());
        let mut handed = Vec::new();
        let mut live: Vec<Pairing> = Vec::new();
        let mut step = 0u64;
        loop {
            match c.take(&mut q, &s) {
                Take::Game(p) => {
                    handed.push(p.game.0);
                    live.push(p);
                }
                Take::Wait => {
                    assert!(!live.is_empty(), "waiting with nothing in flight");
                    // End a game in flight: which one varies.
                    let i = (step as usize * 7) % live.len();
                    c.ended(live.remove(i).game);
                }
                Take::End => break,
            }
            for (e, cap) in caps.iter().enumerate() {
                let n = live
                    .iter()
                    .filter(|p| p.black.0 == e || p.white.0 == e)
                    .count();
                assert!(cap.is_none_or(|c| n as u32 <= c), "engine {e}: {n} games");
            }
            step += 1;
            if live.len() > 3 {
                c.ended(live.remove(0).game);
            }
        }
        handed.sort();
        assert_eq!(handed, (1..=s.total_games()).collect::<Vec<_>>());
    }

    #[test]
    fn the_look_ahead_is_bounded() {
        // Two engines, both in every game: after the first, all wait, and only LOOK_AHEAD are
        // taken from a queue of a billion games.
        let (mut c, mut q, s) = setup(2, 1 << 30, vec![Some(1), None]);
        let first = game(c.take(&mut q, &s));
        assert_eq!(c.take(&mut q, &s), Take::Wait);
        assert_eq!(c.waiting(), LOOK_AHEAD);
        c.ended(first.game);
        assert_eq!(game(c.take(&mut q, &s)).game.0, 2);
    }
}
