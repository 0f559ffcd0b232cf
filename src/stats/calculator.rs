//! The pure part of `gomoku-cli sprt`: from typed-in counts and an SPRT design, the LLR, bounds,
//! verdict and Elo figures, as a JSON-serializable struct and as text.

use std::fmt::Write as _;

use serde::Serialize;

use crate::stats::elo::{fastchess_pentanomial, fastchess_wdl};
use crate::stats::sprt::{Sprt, SprtCrossing, SprtModel, Verdict};
use crate::stats::tally::{Pentanomial, Wld};
use crate::stats::text::llr_progress_percent;
use crate::stats::StatsError;

/// Counts typed on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counts {
    /// `--wld W,L,D`: independent games.
    Wld(Wld),
    /// `--ptnml LL,LD,WL+DD,WD,WW`: colour-swapped game pairs.
    Ptnml(Pentanomial),
}

impl Counts {
    /// Parses whichever of `--wld` / `--ptnml` was given; exactly one must be.
    pub fn from_args(wld: Option<&str>, ptnml: Option<&str>) -> Result<Counts, StatsError> {
        match (wld, ptnml) {
            (Some(w), None) => parse_wld(w).map(Counts::Wld),
            (None, Some(p)) => parse_ptnml(p).map(Counts::Ptnml),
            _ => Err(StatsError::CountsChoice),
        }
    }
}

fn parse_counts<const K: usize>(what: &'static str, input: &str) -> Result<[u64; K], StatsError> {
    let fields: Vec<&str> = input.split(',').map(str::trim).collect();
    if fields.len() != K {
        return Err(StatsError::CountArity {
            what,
            input: input.to_string(),
            expected: K,
            found: fields.len(),
        });
    }
    let mut out = [0u64; K];
    for (slot, field) in out.iter_mut().zip(&fields) {
        *slot = crate::core::numbers::whole_number(field, 0..=u64::MAX).map_err(|expected| {
            StatsError::BadCount {
                what,
                input: input.to_string(),
                field: field.to_string(),
                expected,
            }
        })?;
    }
    Ok(out)
}

/// The games that `counts` (`per` games each) stand for, refused where they pass `u64::MAX`:
/// the totals printed are the true ones.
fn checked_games(
    what: &'static str,
    input: &str,
    counts: &[u64],
    per: u64,
) -> Result<(), StatsError> {
    crate::core::numbers::total(counts.iter().copied())
        .and_then(|n| n.checked_mul(per))
        .map(|_| ())
        .ok_or_else(|| StatsError::TooManyGames {
            what,
            input: input.to_string(),
        })
}

/// Parses `W,L,D` (wins, losses, draws of the first engine; spaces allowed around commas).
pub fn parse_wld(input: &str) -> Result<Wld, StatsError> {
    let what = "--wld W,L,D";
    let [w, l, d] = parse_counts(what, input)?;
    checked_games(what, input, &[w, l, d], 1)?;
    Ok(Wld::new(w, l, d))
}

/// Parses `LL,LD,WL+DD,WD,WW` (pair counts by half points of the first engine, 0 to 4).
pub fn parse_ptnml(input: &str) -> Result<Pentanomial, StatsError> {
    let what = "--ptnml LL,LD,WL+DD,WD,WW";
    let pairs: [u64; 5] = parse_counts(what, input)?;
    checked_games(what, input, &pairs, 2)?;
    Ok(Pentanomial(pairs))
}

/// Result of the SPRT calculator. Non-finite figures (degenerate counts) serialize as `null`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SprtCalculation {
    /// `"trinomial"` or `"pentanomial"`.
    pub stats: &'static str,
    /// The counts as given: `[W, L, D]` or `[LL, LD, WL+DD, WD, WW]`.
    pub counts: Vec<u64>,
    pub games: u64,
    /// Number of game pairs, for pentanomial counts.
    pub pairs: Option<u64>,
    pub model: SprtModel,
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// `"H0"`, `"H1"` or `null` (continue): the crossing's verdict when there is one.
    pub verdict: Option<Verdict>,
    /// Where a sequential test over a journal first crossed a bound (journal order); later games
    /// do not change the verdict. Absent for typed-in counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crossing: Option<SprtCrossing>,
    /// Mean score per game of the first engine.
    pub score: f64,
    /// fastchess's (unregularized) logistic Elo and the half-width of its 95% interval.
    pub elo: f64,
    pub elo_error: f64,
    pub nelo: f64,
    pub nelo_error: f64,
    /// Likelihood of superiority, in [0, 1].
    pub los: f64,
    /// Drawn games (trinomial) or WL+DD pairs (pentanomial), as a fraction.
    pub draw_ratio: f64,
}

/// Runs the calculator: LLR for the design's model on the given counts, bounds, verdict and Elo.
pub fn sprt_calculator(counts: Counts, sprt: &Sprt) -> SprtCalculation {
    let (stats, list, games, pairs, llr, est) = match counts {
        Counts::Wld(w) => (
            "trinomial",
            vec![w.wins, w.losses, w.draws],
            w.games(),
            None,
            sprt.llr_trinomial(&w),
            fastchess_wdl(&w),
        ),
        Counts::Ptnml(p) => (
            "pentanomial",
            p.0.to_vec(),
            2 * p.pairs(),
            Some(p.pairs()),
            sprt.llr_pentanomial(&p),
            fastchess_pentanomial(&p),
        ),
    };
    let (lower, upper) = sprt.bounds();
    let nelo = est.nelo.expect("fastchess estimates carry nElo");
    SprtCalculation {
        stats,
        counts: list,
        games,
        pairs,
        model: sprt.model,
        elo0: sprt.elo0,
        elo1: sprt.elo1,
        alpha: sprt.alpha,
        beta: sprt.beta,
        llr,
        lower,
        upper,
        verdict: sprt.decide(llr),
        crossing: None,
        score: est.score,
        elo: est.elo.value,
        elo_error: est.elo.error,
        nelo: nelo.value,
        nelo_error: nelo.error,
        los: est.los,
        draw_ratio: est.draw_ratio,
    }
}

impl SprtCalculation {
    /// The same figures, with the verdict of the test's first crossing (a sequential test stops
    /// there; the LLR over all counted games is kept beside it).
    pub fn with_crossing(mut self, crossing: Option<SprtCrossing>) -> Self {
        if let Some(c) = crossing {
            self.verdict = Some(c.verdict);
            self.crossing = Some(c);
        }
        self
    }

    /// Human-readable summary, several lines ending with a newline.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let counts = self
            .counts
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        match self.pairs {
            Some(pairs) => {
                let _ = writeln!(
                    s,
                    "Ptnml(0-2): [{counts}] ({pairs} pairs, {} games)",
                    self.games
                );
            }
            None => {
                let _ = writeln!(s, "W/L/D: {counts} ({} games)", self.games);
            }
        }
        let _ = writeln!(
            s,
            "SPRT: {} model, elo0 {:.2}, elo1 {:.2}, alpha {}, beta {}",
            self.model, self.elo0, self.elo1, self.alpha, self.beta
        );
        // Non-finite values read as in the run's results block (`nan`, `inf`), not Rust's `NaN`.
        use crate::stats::text::fixed;
        let _ = writeln!(
            s,
            "LLR: {} ({}%) ({}, {})",
            fixed(self.llr, 2),
            fixed(llr_progress_percent(self.llr, self.lower, self.upper), 1),
            fixed(self.lower, 2),
            fixed(self.upper, 2)
        );
        let _ = writeln!(
            s,
            "Elo: {} +/- {}, nElo: {} +/- {}",
            fixed(self.elo, 2),
            fixed(self.elo_error, 2),
            fixed(self.nelo, 2),
            fixed(self.nelo_error, 2)
        );
        let _ = writeln!(
            s,
            "LOS: {} %, DrawRatio: {} %, Score: {} %",
            fixed(self.los * 100.0, 2),
            fixed(self.draw_ratio * 100.0, 2),
            fixed(self.score * 100.0, 2)
        );
        if let Some(c) = self.crossing {
            let _ = writeln!(s, "Verdict: {}", c.describe());
            if self.games > c.games {
                let _ = writeln!(
                    s,
                    "  {} more games finished after the crossing (in flight when the run stopped)",
                    self.games - c.games
                );
            }
            return s;
        }
        let verdict = match self.verdict {
            Some(Verdict::H0) => "H0 accepted (LLR below the lower bound)",
            Some(Verdict::H1) => "H1 accepted (LLR above the upper bound)",
            None => "continue (LLR between the bounds)",
        };
        let _ = writeln!(s, "Verdict: {verdict}");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_counts_with_spaces() {
        assert_eq!(parse_wld(" 10, 5 ,3").unwrap(), Wld::new(10, 5, 3));
        assert_eq!(parse_ptnml("1,2,3,4,5").unwrap().0, [1, 2, 3, 4, 5]);
    }

    #[test]
    fn parse_errors_name_the_input() {
        let e = parse_wld("1,2").unwrap_err();
        assert_eq!(
            e.to_string(),
            "--wld W,L,D needs 3 comma-separated counts, got 2 in \"1,2\""
        );
        let e = parse_ptnml("1,2,-3,4,5").unwrap_err();
        assert_eq!(
            e.to_string(),
            "--ptnml LL,LD,WL+DD,WD,WW: \"-3\" in \"1,2,-3,4,5\" is not a whole number from 0 to \
             18446744073709551615"
        );
        assert!(parse_wld("1,,2").is_err());
        assert_eq!(Counts::from_args(None, None), Err(StatsError::CountsChoice));
        assert!(Counts::from_args(Some("1,2,3"), Some("1,2,3,4,5")).is_err());
    }

    #[test]
    fn counts_whose_games_pass_u64_are_refused_not_wrapped() {
        // Games of 2^63 + 2^63 + 1 pairs (twice that) and of 2^64 - 1 + 1 games do not fit.
        let e = parse_ptnml("9223372036854775808,9223372036854775808,0,0,1").unwrap_err();
        assert_eq!(
            e.to_string(),
            "--ptnml LL,LD,WL+DD,WD,WW: \"9223372036854775808,9223372036854775808,0,0,1\" adds \
             up to more than 18446744073709551615 games"
        );
        assert!(parse_wld("18446744073709551615,1,0").is_err());
        // Pairs that fit but whose games (two a pair) do not.
        assert!(parse_ptnml("9223372036854775808,0,0,0,0").is_err());
        // The largest that fit are taken, and their totals printed true.
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        let w = parse_wld("18446744073709551614,1,0").unwrap();
        let c = sprt_calculator(Counts::Wld(w), &sprt);
        assert_eq!(c.games, u64::MAX);
        assert!(c.to_text().contains("(18446744073709551615 games)"));
        let p = parse_ptnml("9223372036854775806,0,0,0,1").unwrap();
        let c = sprt_calculator(Counts::Ptnml(p), &sprt);
        assert_eq!((c.pairs, c.games), (Some((1 << 63) - 1), u64::MAX - 1));
    }

    #[test]
    fn calculator_json_has_the_documented_fields() {
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        let c = sprt_calculator(Counts::Ptnml(Pentanomial([0, 0, 0, 0, 0])), &sprt);
        let v = serde_json::to_value(&c).unwrap();
        for key in [
            "llr",
            "lower",
            "upper",
            "elo",
            "elo_error",
            "nelo",
            "nelo_error",
            "los",
            "verdict",
        ] {
            assert!(v.get(key).is_some(), "missing {key}");
        }
        assert!(v["elo"].is_null(), "NaN serializes as null");
        // The text reads non-finite values as the run's results block does.
        let text = c.to_text();
        assert!(text.contains("Elo: nan +/- nan"), "{text}");
        assert!(!text.contains("NaN"), "{text}");
        assert!(v["verdict"].is_null());
        let c = sprt_calculator(
            Counts::Wld(Wld::new(3000, 2000, 5000)),
            &Sprt::new(0.0, 5.0, 0.05, 0.05, SprtModel::Logistic).unwrap(),
        );
        assert_eq!(c.verdict, Some(Verdict::H1));
        assert_eq!(serde_json::to_value(&c).unwrap()["verdict"], "H1");
    }
}
