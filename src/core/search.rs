//! What an engine said about its search for one move: evaluation, depth, nodes, its own time and
//! principal variations, as checked types. Pure: the engine layer parses the lines
//! (`engine::listen`), the journal, records, samples, adjudication and report read these types.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::core::board::Pos;

/// A principal variation is kept up to this many moves: the records quote it, the journal keeps
/// it, and an engine printing thousands of moves must not cost memory per move.
pub const PV_CAP: usize = 24;

/// At most this many principal variations are kept per move (`YXNBEST n` asks for n).
pub const MULTIPV_CAP: usize = 64;

/// The largest mate distance read; longer ones are not a real search's and are refused.
pub const MATE_PLIES_MAX: u32 = 500;

/// The largest ordinary score read, either sign. Engines clamp ordinary evaluations far below
/// this (Rapfi at ±6000); a larger value is a malformed line, not a score.
pub const SCORE_MAX: i32 = 1_000_000;

/// The value scale of training samples and adjudication: a win in n plies is `MATE_VALUE − n`,
/// as Rapfi's self-play writes it.
pub const MATE_VALUE: i32 = 30_000;

/// Which way a proven result goes, from the side to move's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outlook {
    Win,
    Loss,
}

/// An engine's evaluation from the side to move's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Eval {
    /// An ordinary score on the engine's own scale (`35`, `-120`).
    Score(i32),
    /// A proven win or loss in `plies` (`+M5`, `-M4`), or of unknown length (`+M*`, `VAL_INF`).
    Mate {
        outlook: Outlook,
        plies: Option<u32>,
    },
}

/// Why a value text is not an evaluation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not an evaluation: {0:?}")]
pub struct BadEval(pub String);

impl Eval {
    /// The value on the samples' scale: scores as given (within what a mate is not), a win in n
    /// plies `30000 − n`, a loss `−(30000 − n)`; unknown lengths count as the longest mate.
    pub fn value(self) -> i32 {
        match self {
            Eval::Score(v) => v.clamp(-(MATE_VALUE - 501), MATE_VALUE - 501),
            Eval::Mate { outlook, plies } => {
                let v = MATE_VALUE - plies.unwrap_or(MATE_PLIES_MAX) as i32;
                match outlook {
                    Outlook::Win => v,
                    Outlook::Loss => -v,
                }
            }
        }
    }

    /// The same evaluation seen from the other side.
    pub fn flipped(self) -> Eval {
        match self {
            Eval::Score(v) => Eval::Score(-v),
            Eval::Mate { outlook, plies } => Eval::Mate {
                outlook: match outlook {
                    Outlook::Win => Outlook::Loss,
                    Outlook::Loss => Outlook::Win,
                },
                plies,
            },
        }
    }

    /// A proven loss for the side to move.
    pub fn is_proven_loss(self) -> bool {
        matches!(
            self,
            Eval::Mate {
                outlook: Outlook::Loss,
                ..
            }
        )
    }
}

impl fmt::Display for Eval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Eval::Score(v) => write!(f, "{v:+}"),
            Eval::Mate { outlook, plies } => {
                f.write_str(match outlook {
                    Outlook::Win => "+M",
                    Outlook::Loss => "-M",
                })?;
                match plies {
                    Some(n) => write!(f, "{n}"),
                    None => f.write_str("*"),
                }
            }
        }
    }
}

impl FromStr for Eval {
    type Err = BadEval;

    /// Reads `35`, `+35`, `-120`, `+M5`, `-M4`, `+M*`, `-M*`, `VAL_INF`, `-VAL_INF`
    /// (`VAL_NONE` is no evaluation: the caller treats it as absent).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || BadEval(text.to_string());
        let (outlook, rest) = match text.as_bytes().first() {
            Some(b'-') => (Outlook::Loss, &text[1..]),
            Some(b'+') => (Outlook::Win, &text[1..]),
            _ => (Outlook::Win, text),
        };
        if rest == "VAL_INF" {
            return Ok(Eval::Mate {
                outlook,
                plies: None,
            });
        }
        if let Some(n) = rest.strip_prefix('M') {
            let plies = match n {
                "*" => None,
                _ => match n.parse::<u32>() {
                    Ok(p) if p <= MATE_PLIES_MAX && n.bytes().all(|b| b.is_ascii_digit()) => {
                        Some(p)
                    }
                    _ => return Err(bad()),
                },
            };
            return Ok(Eval::Mate { outlook, plies });
        }
        if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let v: i32 = rest.parse().map_err(|_| bad())?;
        if v > SCORE_MAX {
            return Err(bad());
        }
        Ok(Eval::Score(match outlook {
            Outlook::Win => v,
            Outlook::Loss => -v,
        }))
    }
}

impl Serialize for Eval {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Eval {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// One principal variation of a multi-PV search: its first move and its evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PvMove {
    pub pos: Pos,
    pub eval: Option<Eval>,
}

/// The last complete report an engine gave before a move. Every field is what the engine said;
/// absent where it said nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchReport {
    /// Side to move's view (the engine's, before its move).
    pub eval: Option<Eval>,
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    /// Nodes searched in all (the engine's total, not one root move's).
    pub nodes: Option<u64>,
    /// The engine's own time since its search started, milliseconds.
    pub time_ms: Option<u64>,
    /// The principal variation, at most [`PV_CAP`] moves.
    pub pv: Vec<Pos>,
    /// With several PVs (`YXNBEST`), each one's first move and evaluation, PV 0 first; empty
    /// with one PV.
    pub multipv: Vec<PvMove>,
}

impl SearchReport {
    /// Nodes per second by the engine's own count and time, when it gave both.
    pub fn speed(&self) -> Option<u64> {
        match (self.nodes, self.time_ms) {
            (Some(n), Some(ms)) if ms > 0 => Some(n.saturating_mul(1000) / ms),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn values_read_as_engines_print_them() {
        let win = |p| Eval::Mate {
            outlook: Outlook::Win,
            plies: p,
        };
        let loss = |p| Eval::Mate {
            outlook: Outlook::Loss,
            plies: p,
        };
        for (text, eval) in [
            ("35", Eval::Score(35)),
            ("+35", Eval::Score(35)),
            ("-120", Eval::Score(-120)),
            ("0", Eval::Score(0)),
            ("+M5", win(Some(5))),
            ("-M4", loss(Some(4))),
            ("+M*", win(None)),
            ("-M*", loss(None)),
            ("VAL_INF", win(None)),
            ("-VAL_INF", loss(None)),
        ] {
            assert_eq!(text.parse::<Eval>(), Ok(eval), "{text}");
        }
        for bad in [
            "",
            "+",
            "-",
            "VAL_NONE",
            "banana",
            "3.5",
            "1e3",
            "+M",
            "+M-3",
            "M5x",
            "99999999999",
            "+M501",
            "--5",
            "+-5",
        ] {
            assert!(bad.parse::<Eval>().is_err(), "{bad:?} was read");
        }
    }

    #[test]
    fn sample_values_are_rapfis_scale() {
        assert_eq!(Eval::Score(35).value(), 35);
        assert_eq!("+M5".parse::<Eval>().unwrap().value(), 29_995);
        assert_eq!("-M4".parse::<Eval>().unwrap().value(), -29_996);
        assert_eq!("+M*".parse::<Eval>().unwrap().value(), 29_500);
        // An ordinary score never reads as a mate.
        assert_eq!(Eval::Score(1_000_000).value(), 29_499);
        assert!("-M3".parse::<Eval>().unwrap().is_proven_loss());
        assert!(!Eval::Score(-29_000).is_proven_loss());
    }

    proptest! {
        #[test]
        fn display_reads_back(v in -SCORE_MAX..=SCORE_MAX, p in proptest::option::of(0..=MATE_PLIES_MAX), win: bool) {
            let score = Eval::Score(v);
            prop_assert_eq!(score.to_string().parse::<Eval>(), Ok(score));
            let outlook = if win { Outlook::Win } else { Outlook::Loss };
            let mate = Eval::Mate { outlook, plies: p };
            prop_assert_eq!(mate.to_string().parse::<Eval>(), Ok(mate));
            prop_assert_eq!(mate.flipped().flipped(), mate);
            prop_assert_eq!(score.flipped().value(), -score.value());
        }
    }
}
