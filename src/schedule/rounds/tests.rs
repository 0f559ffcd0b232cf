//! The plan as a run sees it: games handed out, results in, rounds paired from them; the same
//! with shards, and after a resume.

use proptest::prelude::*;

use std::collections::{HashMap, HashSet};

use super::*;
use crate::schedule::{PairSides, Repeat, Schedule, TournamentKind};

/// A result for the tests (a plan's results are written only by `RoundPlan::record`).
pub fn put(results: &mut Results, game: GameId, first: Score) {
    results.insert(game, first);
}

/// A game's result as a function of its number: every process of a test sees the same.
fn outcome(seed: u64, game: GameId) -> Score {
    let h = (game.0 ^ seed).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 61;
    match h % 3 {
        0 => Score::Win,
        1 => Score::Loss,
        _ => Score::Draw,
    }
}

/// Play a whole tournament over `shards` processes (1: unsharded) taking turns, each told every
/// result; `ready` games in flight at most per process. The games in the order they finished.
fn play(s: RoundsSettings, shards: u64, seed: u64, ready: usize) -> (Vec<Pairing>, RoundPlan) {
    let mut plans: Vec<RoundPlan> = (1..=shards)
        .map(|k| {
            let shard = (shards > 1).then_some(Shard {
                index: k,
                count: shards,
            });
            RoundPlan::new(s, shard)
        })
        .collect();
    let mut played = vec![];
    loop {
        let mut batch = vec![];
        let mut over = 0;
        for plan in &mut plans {
            for _ in 0..ready {
                match plan.next_game() {
                    Next::Play(p) => batch.push(p),
                    Next::Wait => break,
                    Next::Done | Next::Unpairable(_) => {
                        over += 1;
                        break;
                    }
                }
            }
        }
        if over == plans.len() {
            break;
        }
        assert!(!batch.is_empty(), "every process waits: a deadlock");
        for p in batch {
            for plan in &mut plans {
                plan.record(p.game, outcome(seed, p.game));
            }
            played.push(p);
        }
    }
    let plan = plans.swap_remove(0);
    (played, plan)
}

fn check_rounds(s: &RoundsSettings, played: &[Pairing]) {
    let pairs = Schedule::new(s.engines, TournamentKind::RoundRobin, 1, 1, Repeat::Once);
    let mut numbers = HashSet::new();
    let mut in_round: HashMap<(u64, usize), (usize, usize)> = HashMap::new();
    for p in played {
        assert!(numbers.insert(p.game), "game {} twice", p.game);
        assert!(p.game.0 <= s.span().unwrap());
        assert_eq!(s.locate(p.game).0, p.round);
        assert_eq!(pairs.pairs()[p.pair], (p.first, p.second));
        assert!(p.first < p.second);
        assert_eq!([p.black, p.white].iter().min(), Some(&p.first));
        // Each engine is on one board per round.
        let board = s.locate(p.game).1 as usize;
        for e in [p.first, p.second] {
            let seat = in_round.entry((p.round, e.0)).or_insert((board, p.pair));
            assert_eq!(
                *seat,
                (board, p.pair),
                "engine {} twice in round {}",
                e.0,
                p.round
            );
        }
    }
}

fn settings(engines: usize, games: u64, repeat: bool, format: Format) -> RoundsSettings {
    RoundsSettings {
        engines,
        format,
        games,
        repeat: if repeat { Repeat::Twice } else { Repeat::Once },
        sides: PairSides::default(),
    }
}

proptest! {
    #[test]
    fn a_swiss_never_repeats_a_match_and_balances_colours(
        engines in 2usize..11, games in 1u64..4, repeat: bool, seed: u64, ready in 1usize..4,
        rounds_less in 0u64..3,
    ) {
        let rounds = swiss::max_rounds(engines).saturating_sub(rounds_less).max(1);
        let s = settings(engines, games, repeat, Format::Swiss { rounds });
        let (played, plan) = play(s, 1, seed, ready);
        check_rounds(&s, &played);
        // No rematch: each pair on one board only.
        let mut boards: HashMap<usize, (u64, u64)> = HashMap::new();
        for p in &played {
            let at = (p.round, s.locate(p.game).1);
            prop_assert_eq!(*boards.entry(p.pair).or_insert(at), at);
        }
        let paired = plan.rounds().len() as u64;
        match plan.unpairable() {
            // The last round had no pairing without a rematch: said, not a panic.
            Some(e) => prop_assert_eq!(e.round, paired + 1),
            None => prop_assert_eq!(paired, rounds),
        }
        // Colours: each engine as often black as white with an even -games; with an odd one,
        // the engine of a match with fewer blacks than whites before it is black first.
        let mut balance = vec![0i64; engines];
        for round in 1..=paired {
            let this: Vec<&Pairing> = played.iter().filter(|p| p.round == round).collect();
            for p in this.iter().filter(|p| p.pair_game == 0) {
                prop_assert!(balance[p.black.0] <= balance[p.white.0], "{:?}", balance);
            }
            for p in this {
                balance[p.black.0] += 1;
                balance[p.white.0] -= 1;
            }
        }
        if games % 2 == 0 {
            prop_assert!(balance.iter().all(|&b| b == 0), "{:?}", balance);
        }
    }

    #[test]
    fn a_knockout_plays_each_round_down_to_the_final(
        engines in 2usize..12, games in 1u64..4, repeat: bool, seed: u64, seeds in 0usize..5,
    ) {
        let s = settings(engines, games, repeat, Format::Knockout { seeds, seed });
        let (played, plan) = play(s, 1, seed, 2);
        check_rounds(&s, &played);
        prop_assert!(plan.is_over());
        let rounds = plan.rounds();
        prop_assert_eq!(rounds.len() as u64, s.rounds());
        // engines − 1 matches, each with its games and perhaps tie-breaks.
        let matches: HashSet<usize> = played.iter().map(|p| p.pair).collect();
        prop_assert_eq!(matches.len(), engines - 1);
        prop_assert!(played.len() as u64 >= (engines as u64 - 1) * games);
        let last = rounds.last().unwrap();
        prop_assert_eq!(last.tables.len(), 1, "the final");
    }

    #[test]
    fn shards_play_the_unsharded_games(
        engines in 2usize..9, games in 1u64..4, repeat: bool, seed: u64, shards in 2u64..4,
        knockout: bool,
    ) {
        let format = match knockout {
            true => Format::Knockout { seeds: 1, seed },
            false => Format::Swiss { rounds: swiss::max_rounds(engines).min(3) },
        };
        let s = settings(engines, games, repeat, format);
        let mut one: Vec<_> = play(s, 1, seed, 1).0.iter().map(|p| (p.game, p.black)).collect();
        let mut many: Vec<_> =
            play(s, shards, seed, 1).0.iter().map(|p| (p.game, p.black)).collect();
        one.sort();
        many.sort();
        prop_assert_eq!(one, many);
    }
}

#[test]
fn a_resumed_plan_continues_with_the_games_not_played() {
    let s = settings(6, 2, true, Format::Swiss { rounds: 3 });
    let (played, _) = play(s, 1, 11, 3);
    for cut in [0, 1, 5, 6, 7, played.len()] {
        let mut plan = RoundPlan::new(s, None);
        for p in &played[..cut] {
            plan.record(p.game, outcome(11, p.game));
        }
        let mut rest = vec![];
        while let Next::Play(p) = plan.next_game() {
            plan.record(p.game, outcome(11, p.game));
            rest.push(p.game);
        }
        let mut want: Vec<GameId> = played[cut..].iter().map(|p| p.game).collect();
        want.sort();
        rest.sort();
        assert_eq!(rest, want, "resumed after {cut} games");
    }
}

#[test]
fn a_process_waits_for_the_round_to_end() {
    let s = settings(4, 1, false, Format::Swiss { rounds: 2 });
    let mut plan = RoundPlan::new(s, None);
    let Next::Play(a) = plan.next_game() else {
        panic!()
    };
    let Next::Play(b) = plan.next_game() else {
        panic!()
    };
    assert_eq!(plan.next_game(), Next::Wait);
    plan.record(a.game, Score::Win);
    assert_eq!(plan.next_game(), Next::Wait, "round 1 is not over");
    // A game abandoned is handed out again.
    plan.abandoned(b.game);
    assert_eq!(plan.next_game(), Next::Play(b));
    plan.record(b.game, Score::Draw);
    let Next::Play(c) = plan.next_game() else {
        panic!()
    };
    assert_eq!(c.round, 2);
    assert_eq!(c.game, s.number(2, 0, 0));
}

#[test]
fn a_game_whose_engines_are_busy_waits_and_a_later_one_goes_first() {
    let s = settings(4, 2, false, Format::Swiss { rounds: 1 });
    let mut plan = RoundPlan::new(s, None);
    let Next::Play(a) = plan.next_game() else {
        panic!()
    };
    // Board 0's second game has a's engines: refused, board 1's first game comes out.
    let busy = [a.first, a.second];
    let free = |p: &Pairing| !busy.contains(&p.first) && !busy.contains(&p.second);
    let Next::Play(b) = plan.next_with(free) else {
        panic!()
    };
    assert_eq!(s.locate(b.game).1, 1);
    let Next::Play(c) = plan.next_with(free) else {
        panic!()
    };
    assert_eq!(s.locate(c.game).1, 1);
    assert_eq!(plan.next_with(free), Next::Wait);
    let Next::Play(d) = plan.next_game() else {
        panic!()
    };
    assert_eq!((d.first, d.second), (a.first, a.second));
}
