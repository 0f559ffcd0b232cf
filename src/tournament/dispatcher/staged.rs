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
