//! A knockout's or a Swiss's wiring: the round plan, built with the run's seed (a resumed run's
//! is its journal's), and the games the progress counts on.

use crate::config::Config;
use crate::schedule::rounds::RoundPlan;

/// The round plan of a knockout or a Swiss (after `-resume` adopted the journal's seed).
pub(super) fn plan_of(config: &Config) -> Option<RoundPlan> {
    let settings = config.tournament.rounds_settings(config.seed)?;
    Some(RoundPlan::new(settings, config.cluster.shard))
}

/// The games this process counts on: the tournament's without tie-breaks, a shard's share of
/// them, at least the `played` ones.
pub(super) fn own_total(config: &Config, plan: &RoundPlan, played: u64) -> u64 {
    let all = plan.settings().planned_games();
    let share = match config.cluster.shard {
        Some(s) => all.div_ceil(s.count),
        None => all,
    };
    share.max(played)
}
