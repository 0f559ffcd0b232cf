//! A knockout's or a Swiss's wiring: the round plan, built with the run's seed (a resumed run's
//! is its journal's), and the games the progress counts on.

use crate::config::Config;
use crate::schedule::rounds::RoundPlan;
use crate::schedule::Schedule;

/// The round plan of a knockout or a Swiss (after `-resume` adopted the journal's seed), and
/// the games this process counts on: a round robin's or a gauntlet's `left` and `played`; the
/// plan's without tie-breaks (a shard's share of them), at least the `played` ones.
pub(super) fn plan_and_total(config: &Config, left: u64, played: u64) -> (Option<RoundPlan>, u64) {
    let Some(settings) = config.tournament.rounds_settings(config.seed) else {
        return (None, left + played);
    };
    let all = settings.planned_games();
    let share = match config.cluster.shard {
        Some(s) => all.div_ceil(s.count),
        None => all,
    };
    let plan = RoundPlan::new(settings, config.cluster.shard);
    (Some(plan), share.max(played))
}

/// The games the journal header, the resume check and the console count: the schedule's, or a
/// knockout's or a Swiss's without tie-breaks (its numbers reach further: byes and tie-breaks
/// leave some unplayed).
pub(super) fn total(schedule: &Schedule) -> u64 {
    match schedule.rounds_settings() {
        Some(plan) => plan.planned_games(),
        None => schedule.total_games(),
    }
}
