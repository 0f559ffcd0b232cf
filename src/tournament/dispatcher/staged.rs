//! The dispatcher's part of a knockout or a Swiss: games come from the round plan, which hears
//! every result (this process's, a resumed journal's, the other shards'), so a slot may be told
//! to wait for a round to end; the bracket or the Swiss standings close the final report.

use crate::analysis::tracker::ScoredGame;
use crate::schedule::rounds::{Next, RoundPlan};
use crate::schedule::GameId;
use crate::tournament::dispatcher::{Action, Dispatcher};
use crate::tournament::events::{ConsoleEvent, StopReason};

impl Dispatcher {
    /// A knockout's or a Swiss's dispatcher: its games come from `plan`, which hears the games
    /// already played (`prior`: a resumed run's) first.
    pub fn with_plan(mut self, mut plan: RoundPlan, prior: &[ScoredGame]) -> Self {
        for g in prior {
            plan.record(GameId(g.game), g.first);
        }
        self.plan = Some(plan);
        self
    }

    /// The games the progress counts: the schedule's, or a knockout's or a Swiss's without
    /// tie-breaks.
    pub(super) fn planned_games(&self) -> u64 {
        match &self.plan {
            Some(plan) => plan.settings().planned_games(),
            None => self.schedule.total_games(),
        }
    }

    /// The plan's next game for the slot that asked, or why there is none now.
    pub(super) fn next_staged(&mut self) -> Vec<Action> {
        let Some(plan) = &mut self.plan else {
            return vec![Action::NoMoreGames];
        };
        // Under `slots=` caps a game whose engine is busy waits, and a later one may go first.
        let caps = &mut self.caps;
        let next = plan.next_with(|p| caps.as_mut().is_none_or(|c| c.try_start(p)));
        match next {
            Next::Play(p) => self.hand_out(p),
            Next::Wait => vec![Action::Wait],
            Next::Done => vec![Action::NoMoreGames],
            Next::Unpairable(e) => {
                // Said once: the slots asking after it only end.
                let first = self.stop.is_none();
                self.stop.get_or_insert(StopReason::Unpairable);
                let mut out = vec![];
                if first {
                    out.push(Action::Console(ConsoleEvent::Error(format!(
                        "{e}: the tournament ends after round {}",
                        e.round - 1
                    ))));
                }
                out.push(Action::NoMoreGames);
                out
            }
        }
    }

    /// The bracket or the Swiss's rounds and standings, for the final report.
    pub(super) fn format_text(&self) -> Option<String> {
        let plan = self.plan.as_ref()?;
        let view = crate::analysis::staged::view(plan, self.tracker.names());
        Some(format!("\n{}", crate::analysis::staged::text(&view)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::rounds::{Format, RoundsSettings};
    use crate::schedule::{PairSides, Pairing, Repeat, Schedule, TournamentKind};
    use crate::tournament::dispatcher::tests::{game_record, settings};
    use crate::tournament::dispatcher::Event;

    fn swiss(engines: usize, rounds: u64) -> Dispatcher {
        let plan = RoundsSettings {
            engines,
            format: Format::Swiss { rounds },
            games: 1,
            repeat: Repeat::Once,
            sides: PairSides::default(),
        };
        let schedule = Schedule::staged(plan, TournamentKind::Swiss);
        let queue = crate::schedule::queue::GameQueue::new(&schedule, None, Default::default());
        let mut s = settings();
        s.names = (0..engines).map(|i| format!("e{i}")).collect();
        Dispatcher::new(s, schedule, queue, &[]).with_plan(RoundPlan::new(plan, None), &[])
    }

    /// What a slot asking for a game is answered: a game, to wait, or to end.
    fn ask(d: &mut Dispatcher) -> (Option<Pairing>, bool, Vec<Action>) {
        let actions = d.on_event(Event::Ready);
        let game = actions.iter().find_map(|a| match a {
            Action::Play(a) => Some(a.pairing),
            _ => None,
        });
        let wait = actions.iter().any(|a| matches!(a, Action::Wait));
        (game, wait, actions)
    }

    /// The winner of game `p` for result pattern `seed`: one engine or the other, by a hash.
    fn winner(p: &Pairing, seed: u64) -> usize {
        let mut h = p
            .game
            .0
            .wrapping_add(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        match (h ^ (h >> 31)) % 2 {
            0 => p.first.0,
            _ => p.second.0,
        }
    }

    #[test]
    fn slots_wait_for_a_round_to_end_and_the_swiss_closes_the_report() {
        let mut d = swiss(4, 3);
        let (a, _, _) = ask(&mut d);
        let (b, _, _) = ask(&mut d);
        let (a, b) = (a.unwrap(), b.unwrap());
        // Round 1 has two games: a third slot waits.
        assert!(ask(&mut d).1);
        d.on_event(Event::Finished(game_record(&a, Some(a.first.0), None)));
        assert!(ask(&mut d).1, "round 1 is not over");
        d.on_event(Event::Finished(game_record(&b, Some(b.first.0), None)));
        let mut played = 2;
        while let (Some(p), _, _) = ask(&mut d) {
            assert!(p.round >= 2);
            d.on_event(Event::Finished(game_record(&p, Some(p.first.0), None)));
            played += 1;
        }
        assert_eq!(played, 6);
        assert_eq!(d.stop_reason(), StopReason::Completed);
        let text = match d.final_report().as_slice() {
            [Action::Console(ConsoleEvent::FinalReport(t)), ..] => t.clone(),
            other => panic!("{other:?}"),
        };
        assert!(text.contains("Swiss standings:"), "{text}");
        assert!(text.contains("Winner: e0"), "{text}");
    }

    #[test]
    fn a_round_that_cannot_be_paired_ends_the_run_saying_so() {
        // Eight engines, seven rounds: after five, the matches not yet played form cycles, and
        // an odd one leaves the sixth round without a pairing; the search over result patterns
        // finds results that do that.
        let stuck = (0..2000u64).find_map(|seed| {
            let mut d = swiss(8, 7);
            loop {
                match ask(&mut d) {
                    (Some(p), _, _) => {
                        let w = winner(&p, seed);
                        d.on_event(Event::Finished(game_record(&p, Some(w), None)));
                    }
                    (None, _, actions) => {
                        return (d.stop_reason() == StopReason::Unpairable).then_some(actions)
                    }
                }
            }
        });
        let actions = stuck.expect("some results leave a round without a pairing");
        let said = actions.iter().find_map(|a| match a {
            Action::Console(ConsoleEvent::Error(e)) => Some(e.clone()),
            _ => None,
        });
        let said = said.expect("the error is said");
        assert!(
            said.contains("cannot be paired without a rematch"),
            "{said}"
        );
        assert!(said.contains("the tournament ends after round"), "{said}");
        assert!(actions.iter().any(|a| matches!(a, Action::NoMoreGames)));
    }
}
