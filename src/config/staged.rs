//! `-tournament`, `-gauntlet`, `-seeds` and `-srand`: which format a run plays, checked against
//! the engines, `-games` and `-rounds` before anything starts.

use crate::cli::{Opt, RawCli};
use crate::config::error::{bad, parse_number, ConfigError};
use crate::config::matches::{Seed, TournamentConfig};
use crate::schedule::rounds::{Format, RoundsSettings};
use crate::schedule::{swiss, PairSides, Repeat, TournamentKind};

/// The format's part of the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FormatChoice {
    pub kind: TournamentKind,
    /// `-seeds N` (knockout; 0 without).
    pub seeds: usize,
    pub lose_only: bool,
}

/// The format `-tournament` names (or `-gauntlet` asks for), with `-seeds` and `-loseonly`.
/// `rounds` is `-rounds`' value (1 when not given).
fn format_of(
    raw: &RawCli,
    engines: usize,
    rounds: u64,
    warnings: &mut Vec<String>,
) -> Result<FormatChoice, ConfigError> {
    let named = match raw.value(Opt::Tournament) {
        None => None,
        Some(v) => Some(match v {
            // A league is a round robin of the pairs its ratings allow (`config::groups`).
            "roundrobin" | "round_robin" | "groups" => TournamentKind::RoundRobin,
            "gauntlet" => TournamentKind::Gauntlet,
            "knockout" => TournamentKind::Knockout,
            "swiss" => TournamentKind::Swiss,
            other => {
                let why = "expected roundrobin, gauntlet, knockout, swiss or groups";
                return Err(bad(Opt::Tournament, other, why));
            }
        }),
    };
    let kind = match (named, raw.flag(Opt::Gauntlet)) {
        (Some(k), true) if k != TournamentKind::Gauntlet => {
            let why = "-gauntlet asks for a gauntlet: give one of the two";
            return Err(bad(Opt::Tournament, k.name(), why));
        }
        (Some(k), _) => k,
        (None, true) => TournamentKind::Gauntlet,
        (None, false) => TournamentKind::RoundRobin,
    };
    let seeds = match raw.value(Opt::Seeds) {
        None => 0,
        Some(v) => {
            let n: usize = parse_number(Opt::Seeds, v, 0..=usize::MAX)?;
            if n > engines {
                let why = format!("more seeds than the {engines} engines");
                return Err(bad(Opt::Seeds, v, why));
            }
            if kind != TournamentKind::Knockout {
                warnings.push("-seeds only has an effect with -tournament knockout".into());
            }
            n
        }
    };
    check_rounds(raw, kind, engines, rounds)?;
    if kind.staged() && raw.sprt.is_some() {
        let why = "the SPRT tests one pair of engines: use -tournament roundrobin or gauntlet";
        return Err(bad(Opt::Tournament, kind.name(), why));
    }
    let lose_only = raw.flag(Opt::LoseOnly);
    if lose_only && kind != TournamentKind::Gauntlet {
        warnings.push("-loseonly only has an effect with -gauntlet".into());
    }
    Ok(FormatChoice {
        kind,
        seeds,
        lose_only,
    })
}

/// The run's seed (`-srand`) and format, and a knockout's or a Swiss's game numbers checked
/// to fit a `u64` (as [`crate::schedule::checked_total`] checks the other formats').
pub(super) fn format_and_seed(
    raw: &RawCli,
    (engines, games, rounds): (usize, u64, u64),
    seed: Seed,
    warnings: &mut Vec<String>,
) -> Result<(Seed, FormatChoice), ConfigError> {
    let seed = srand_of(raw, seed)?;
    let choice = format_of(raw, engines, rounds, warnings)?;
    let plan = rounds_settings(choice.kind, engines, games, rounds, choice.seeds, {
        (Repeat::Once, PairSides::default(), 0)
    });
    if plan.is_some_and(|p| p.span().is_none()) {
        return Err(ConfigError::TooManyGames {
            games,
            rounds,
            pairs: crate::schedule::pair_count(engines, choice.kind).unwrap_or(u64::MAX),
        });
    }
    Ok((seed, choice))
}

/// A knockout plays until its final (no `-rounds`); a Swiss has at most as many rounds as
/// pairings without rematches allow.
fn check_rounds(
    raw: &RawCli,
    kind: TournamentKind,
    engines: usize,
    rounds: u64,
) -> Result<(), ConfigError> {
    let given = raw.value(Opt::Rounds).unwrap_or("1");
    match kind {
        TournamentKind::Knockout if rounds != 1 => Err(bad(
            Opt::Rounds,
            given,
            "a knockout plays its rounds until the final: leave -rounds out",
        )),
        TournamentKind::Swiss if rounds > swiss::max_rounds(engines) => {
            let max = swiss::max_rounds(engines);
            let why = format!(
                "a Swiss of {engines} engines has at most {max} rounds without a rematch \
                 (each engine meets each other once{})",
                if engines % 2 == 1 {
                    ", and sits out once"
                } else {
                    ""
                }
            );
            Err(bad(Opt::Rounds, given, why))
        }
        _ => Ok(()),
    }
}

/// `-srand S`: the run's seed (a knockout's unseeded places, the openings' random order); the
/// openings' `srand=` says the same, and the two must agree.
fn srand_of(raw: &RawCli, seed: Seed) -> Result<Seed, ConfigError> {
    let Some(v) = raw.value(Opt::Srand) else {
        return Ok(seed);
    };
    let s: u64 = parse_number(Opt::Srand, v, 0..=u64::MAX)?;
    match (s, seed) {
        (0, seed) => Ok(seed),
        (s, Seed::Given(o)) if o != s => Err(bad(
            Opt::Srand,
            v,
            format!("-openings srand={o} gives another seed: give one of the two"),
        )),
        (s, _) => Ok(Seed::Given(s)),
    }
}

/// The round plan of a knockout or a Swiss (`None` for the fixed formats).
pub fn rounds_settings(
    kind: TournamentKind,
    engines: usize,
    games: u64,
    rounds: u64,
    seeds: usize,
    (repeat, sides, seed): (Repeat, PairSides, u64),
) -> Option<RoundsSettings> {
    let format = match kind {
        TournamentKind::Knockout => Format::Knockout { seeds, seed },
        TournamentKind::Swiss => Format::Swiss { rounds },
        TournamentKind::RoundRobin | TournamentKind::Gauntlet => return None,
    };
    Some(RoundsSettings {
        engines,
        format,
        games,
        repeat,
        sides,
    })
}

impl TournamentConfig {
    /// A knockout's or a Swiss's round plan with the run's `seed` (`None` for a round robin or
    /// a gauntlet).
    pub fn rounds_settings(&self, seed: Seed) -> Option<RoundsSettings> {
        rounds_settings(
            self.kind,
            self.engines.len(),
            self.games,
            self.rounds,
            self.seeds,
            (self.repeat, self.sides, seed.get()),
        )
    }

    /// Whether the run's seed places engines (a knockout with more than one unseeded engine):
    /// shards must share it, and a drawn one is shown so the bracket can be repeated.
    pub fn placed_by_seed(&self) -> bool {
        self.kind == TournamentKind::Knockout && self.engines.len().saturating_sub(self.seeds) > 1
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{config_in, Config, ConfigError};
    use crate::schedule::TournamentKind;

    const THREE: &str = "-engine cmd=cat -engine cmd=cat -engine cmd=cat";

    fn config(args: &str) -> Result<Config, ConfigError> {
        config_in(args, &[("PATH", "/usr/bin:/bin")])
    }

    fn refused(args: &str) -> String {
        config(args).map(|_| ()).unwrap_err().to_string()
    }

    #[test]
    fn each_format_is_named_and_gauntlet_keeps_its_flag() {
        for (arg, kind) in [
            ("", TournamentKind::RoundRobin),
            ("-tournament roundrobin", TournamentKind::RoundRobin),
            ("-tournament gauntlet", TournamentKind::Gauntlet),
            ("-gauntlet", TournamentKind::Gauntlet),
            ("-gauntlet -tournament gauntlet", TournamentKind::Gauntlet),
            ("-tournament knockout", TournamentKind::Knockout),
            ("-tournament swiss -rounds 3", TournamentKind::Swiss),
        ] {
            let c = config(&format!("{THREE} {arg}")).unwrap();
            assert_eq!(c.tournament.kind, kind, "{arg}");
        }
    }

    #[test]
    fn bad_formats_are_refused_naming_the_value() {
        assert_eq!(
            refused(&format!("{THREE} -tournament ladder")),
            "-tournament: \"ladder\" is not valid: expected roundrobin, gauntlet, knockout, swiss or groups"
        );
        assert!(refused(&format!("{THREE} -gauntlet -tournament swiss"))
            .contains("-gauntlet asks for a gauntlet"));
        assert_eq!(
            refused(&format!("{THREE} -tournament knockout -seeds 4")),
            "-seeds: \"4\" is not valid: more seeds than the 3 engines"
        );
        assert!(refused(&format!("{THREE} -tournament knockout -rounds 2"))
            .contains("a knockout plays its rounds until the final"));
        // Three engines: three rounds (each sits out once); four: three.
        assert!(config(&format!("{THREE} -tournament swiss -rounds 3")).is_ok());
        assert_eq!(
            refused(&format!("{THREE} -tournament swiss -rounds 4")),
            "-rounds: \"4\" is not valid: a Swiss of 3 engines has at most 3 rounds without a \
             rematch (each engine meets each other once, and sits out once)"
        );
        let four = format!("{THREE} -engine cmd=cat -tournament swiss -rounds 4");
        assert!(refused(&four).contains("a Swiss of 4 engines has at most 3 rounds"));
        assert!(
            refused(&format!("{THREE} -srand 5 -openings file=x srand=6"))
                .contains("-openings srand=6 gives another seed")
        );
    }

    #[test]
    fn a_knockouts_seeds_and_placement_are_part_of_its_identity() {
        let id = |args: &str| crate::config::identity::identity_of(&config(args).unwrap());
        let ko = format!("{THREE} -tournament knockout -srand 5");
        assert_ne!(id(&ko), id(&format!("{ko} -seeds 1")));
        assert_ne!(id(&ko), id(&ko.replace("-srand 5", "-srand 6")));
        assert_ne!(id(&ko), id(&format!("{THREE} -tournament swiss -srand 5")));
        // Every engine but one seeded: the seed places nobody.
        let seeded = format!("{THREE} -tournament knockout -seeds 2");
        assert_eq!(
            id(&format!("{seeded} -srand 5")),
            id(&format!("{seeded} -srand 6"))
        );
        // A round robin's identity is the one it had before the option.
        assert_eq!(id(&format!("{THREE} -tournament roundrobin")), id(THREE));
        // Shards of a knockout placed by the seed must share one.
        let sharded = format!("{THREE} -tournament knockout -shard 1/2");
        assert!(refused(&sharded).contains("shards must share one seed"));
        assert!(config(&format!("{sharded} -srand 3")).is_ok());
    }
}
