//! Text reports built from tallies: the head-to-head results block in fastchess's layout (so
//! existing wrapper scripts parse it), the standings table and the crosstable of a tournament.
//! Pure functions returning Strings; the runner decides where they go.

use std::fmt::Write as _;

use serde::Serialize;

use crate::stats::elo::{fastchess_pentanomial, fastchess_wdl, EloEstimate, Interval};
use crate::stats::sprt::{Sprt, SprtCrossing};
use crate::stats::tally::{PairTally, Pentanomial, Score, Wld};
use crate::stats::StatsError;

/// Formats like C++ `{fmt}` with `{:.Nf}`, which fastchess uses: `inf`, `-inf`, `nan` for
/// non-finite values (Rust would print `NaN`). The run's blocks and the calculator both use it.
pub(crate) fn fixed(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        "nan".to_string()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{x:.decimals$}")
    }
}

/// Everything the head-to-head results block shows.
#[derive(Debug, Clone, Copy)]
pub struct MatchSummary<'a> {
    pub first: &'a str,
    pub second: &'a str,
    /// Free text for the header's parentheses (fastchess puts "tc, threads, hash, book" there);
    /// the parentheses are left out when empty.
    pub context: &'a str,
    /// All games, first engine's view.
    pub wld: Wld,
    /// Game-pair counts when games are played in colour-swapped pairs. Then Elo, nElo and the LLR
    /// come from the pentanomial, and the PairsRatio and Ptnml lines are printed.
    pub pairs: Option<PairTally>,
    /// Prints the LLR line when set.
    pub sprt: Option<Sprt>,
    /// Where the test decided, once it has: the LLR line then shows the crossing's LLR (the
    /// verdict), and a line after it the LLR of all games counted, when more were.
    pub crossing: Option<SprtCrossing>,
}

/// The Elo figures of a score, as every report shows them (the results block, the standings,
/// `merge --json`, the HTML report): fastchess's pentanomial estimate when there are complete
/// colour-swapped pairs, its trinomial one otherwise. One function, so no two places of a report
/// can show different margins for the same games.
pub fn elo_estimate(wld: &Wld, pairs: Option<&Pentanomial>) -> EloEstimate {
    match pairs.filter(|p| p.pairs() > 0) {
        Some(p) => fastchess_pentanomial(p),
        None => fastchess_wdl(wld),
    }
}

/// An Elo figure (value or ± margin) as every report prints it: two decimals, and fastchess's
/// `inf`/`nan` for the values a one-sided score does not have.
pub fn elo_text(x: f64) -> String {
    fixed(x, 2)
}

impl MatchSummary<'_> {
    /// The Elo figures the block prints: fastchess's, pentanomial when paired.
    pub fn elo(&self) -> EloEstimate {
        elo_estimate(&self.wld, self.pairs.map(|p| p.pentanomial()).as_ref())
    }

    /// The LLR the block prints, pentanomial when paired.
    pub fn llr(&self) -> Option<f64> {
        let sprt = self.sprt?;
        Some(match &self.pairs {
            Some(p) => sprt.llr_pentanomial(&p.pentanomial()),
            None => sprt.llr_trinomial(&self.wld),
        })
    }
}

/// fastchess's share of the way to the bound the LLR is heading for, in percent: `llr/upper` when
/// `llr ≥ 0`, else `-llr/lower` (so negative LLRs show negative percentages).
pub fn llr_progress_percent(llr: f64, lower: f64, upper: f64) -> f64 {
    if llr >= 0.0 {
        llr / upper * 100.0
    } else {
        -llr / lower * 100.0
    }
}

/// The results block of one pairing, in fastchess's layout:
///
/// ```text
/// Results of A vs B (10+0.1, 1t, 16MB, openings.txt):
/// Elo: 12.34 +/- 5.67, nElo: 15.01 +/- 6.89
/// LOS: 99.99 %, DrawRatio: 35.00 %, PairsRatio: 1.23
/// Games: 1000, Wins: 400, Losses: 300, Draws: 300, Points: 550.0 (55.00 %)
/// Ptnml(0-2): [10, 100, 200, 150, 40], WL/DD Ratio: 1.50
/// LLR: 2.95 (100.2%) (-2.94, 2.94) [0.00, 5.00]
/// ```
///
/// PairsRatio and the Ptnml line only appear for paired games, the LLR line only with an SPRT.
/// As in fastchess, DrawRatio is the share of WL+DD pairs when paired. Ends with a newline.
pub fn results_block(m: &MatchSummary) -> String {
    let e = m.elo();
    let nelo = e.nelo.expect("fastchess estimates carry nElo");
    let mut out = String::new();
    let header = if m.context.is_empty() {
        format!("Results of {} vs {}:", m.first, m.second)
    } else {
        format!("Results of {} vs {} ({}):", m.first, m.second, m.context)
    };
    let _ = writeln!(out, "{header}");
    let _ = writeln!(
        out,
        "Elo: {} +/- {}, nElo: {} +/- {}",
        elo_text(e.elo.value),
        elo_text(e.elo.error),
        elo_text(nelo.value),
        elo_text(nelo.error)
    );
    let _ = write!(
        out,
        "LOS: {} %, DrawRatio: {} %",
        fixed(e.los * 100.0, 2),
        fixed(e.draw_ratio * 100.0, 2)
    );
    if let Some(p) = &m.pairs {
        let _ = write!(out, ", PairsRatio: {}", fixed(p.pairs_ratio(), 2));
    }
    out.push('\n');
    let games = m.wld.games();
    let points = m.wld.points();
    let _ = writeln!(
        out,
        "Games: {}, Wins: {}, Losses: {}, Draws: {}, Points: {} ({} %)",
        games,
        m.wld.wins,
        m.wld.losses,
        m.wld.draws,
        fixed(points, 1),
        fixed(points / games as f64 * 100.0, 2)
    );
    if let Some(p) = &m.pairs {
        let [a, b, c, d, f] = p.pentanomial().0;
        let _ = writeln!(
            out,
            "Ptnml(0-2): [{a}, {b}, {c}, {d}, {f}], WL/DD Ratio: {}",
            fixed(p.wl_dd_ratio(), 2)
        );
    }
    if let (Some(sprt), Some(all_llr)) = (m.sprt, m.llr()) {
        let (lower, upper) = sprt.bounds();
        let llr = m.crossing.map_or(all_llr, |c| c.llr);
        let _ = writeln!(
            out,
            "LLR: {} ({}%) ({}, {}) [{}, {}]",
            fixed(llr, 2),
            fixed(llr_progress_percent(llr, lower, upper), 1),
            fixed(lower, 2),
            fixed(upper, 2),
            fixed(sprt.elo0, 2),
            fixed(sprt.elo1, 2)
        );
        if let Some(c) = m.crossing {
            let _ = write!(out, "SPRT: {}", c.describe());
            if games > c.games {
                let _ = write!(
                    out,
                    "; with the {} counted after it: LLR {}",
                    match games - c.games {
                        1 => "1 game".to_string(),
                        n => format!("{n} games"),
                    },
                    fixed(all_llr, 2)
                );
            }
            out.push('\n');
        }
    }
    out
}

/// Results of a tournament, engine by engine: the games and (if paired) the game pairs of every
/// engine against every other, each from the row engine's view.
#[derive(Debug, Clone, PartialEq)]
pub struct TournamentTally {
    names: Vec<String>,
    games: Vec<Vec<Wld>>,
    pairs: Vec<Vec<Pentanomial>>,
    paired: bool,
}

/// One line of the standings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StandingRow {
    pub rank: usize,
    /// Index in [`TournamentTally::names`].
    pub engine: usize,
    pub name: String,
    /// Games against all opponents together.
    pub wld: Wld,
    /// Pairs against all opponents together, when the tournament was played in pairs.
    pub pairs: Option<Pentanomial>,
    /// Elo against the field, as the results block computes it ([`elo_estimate`]): of the
    /// aggregated pairs when paired, else of the aggregated W/L/D.
    pub elo: Interval,
    /// Mean score per game.
    pub score: f64,
    pub draw_ratio: f64,
}

impl TournamentTally {
    pub fn new(names: Vec<String>) -> Self {
        let n = names.len();
        TournamentTally {
            names,
            games: vec![vec![Wld::default(); n]; n],
            pairs: vec![vec![Pentanomial::default(); n]; n],
            paired: false,
        }
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    fn check(&self, a: usize, b: usize) -> Result<(), StatsError> {
        let engines = self.names.len();
        for index in [a, b] {
            if index >= engines {
                return Err(StatsError::EngineIndex { index, engines });
            }
        }
        if a == b {
            return Err(StatsError::SelfPairing { index: a });
        }
        Ok(())
    }

    /// Records one game between engines `a` and `b`, `outcome` from `a`'s view.
    pub fn record_game(&mut self, a: usize, b: usize, outcome: Score) -> Result<(), StatsError> {
        self.check(a, b)?;
        self.games[a][b].add(outcome);
        self.games[b][a].add(outcome.flipped());
        Ok(())
    }

    /// Records a colour-swapped pair: both games and the pair itself, outcomes from `a`'s view.
    pub fn record_pair(
        &mut self,
        a: usize,
        b: usize,
        first: Score,
        second: Score,
    ) -> Result<(), StatsError> {
        self.check(a, b)?;
        self.record_game(a, b, first)?;
        self.record_game(a, b, second)?;
        self.add_pair(a, b, first, second)
    }

    /// Records only the pair (its games were recorded one by one with [`record_game`](Self::record_game)
    /// as they finished), outcomes from `a`'s view.
    pub fn add_pair(
        &mut self,
        a: usize,
        b: usize,
        first: Score,
        second: Score,
    ) -> Result<(), StatsError> {
        self.check(a, b)?;
        self.pairs[a][b].add_pair(first, second);
        self.pairs[b][a].add_pair(first.flipped(), second.flipped());
        self.paired = true;
        Ok(())
    }

    /// Games of `a` against `b`, `a`'s view (zero for unknown indices).
    pub fn head_to_head(&self, a: usize, b: usize) -> Wld {
        self.games
            .get(a)
            .and_then(|r| r.get(b))
            .copied()
            .unwrap_or_default()
    }

    /// Games of `a` against everyone.
    pub fn total(&self, a: usize) -> Wld {
        let mut t = Wld::default();
        for w in self.games.get(a).into_iter().flatten() {
            t += *w;
        }
        t
    }

    /// Pairs of `a` against everyone.
    pub fn total_pairs(&self, a: usize) -> Pentanomial {
        let mut t = Pentanomial::default();
        for p in self.pairs.get(a).into_iter().flatten() {
            t += *p;
        }
        t
    }

    /// Engines ranked by mean score (equivalently Elo against the field); engines without games
    /// last; ties keep the input order.
    pub fn standings(&self) -> Vec<StandingRow> {
        let mut rows: Vec<StandingRow> = (0..self.names.len())
            .map(|i| {
                let wld = self.total(i);
                let pairs = self.paired.then(|| self.total_pairs(i));
                // Score and draws are of the games; the Elo is the results block's.
                let games = fastchess_wdl(&wld);
                StandingRow {
                    rank: 0,
                    engine: i,
                    name: self.names[i].clone(),
                    wld,
                    pairs,
                    elo: elo_estimate(&wld, pairs.as_ref()).elo,
                    score: games.score,
                    draw_ratio: games.draw_ratio,
                }
            })
            .collect();
        let key = |r: &StandingRow| if r.score.is_nan() { -1.0 } else { r.score };
        rows.sort_by(|a, b| key(b).total_cmp(&key(a)));
        for (i, r) in rows.iter_mut().enumerate() {
            r.rank = i + 1;
        }
        rows
    }
}

/// CPU over thinking time, or `-` where the thinking time is too short for the ratio to mean
/// anything (the kernel counts CPU in 10 ms ticks): one rule for the console and the report.
pub fn cpu_ratio(cpu_ms: u64, think_ms: u64) -> String {
    if think_ms < 100 {
        return "-".into();
    }
    format!("{:.2}", cpu_ms as f64 / think_ms as f64)
}

/// `cell` padded with spaces to `width` characters, on the right when `left` (left-aligned), else
/// on the left. Unlike `format!("{cell:<width$}")`, any width works: `std::fmt` panics on widths
/// above 65535, and a name comes from the engine's `ABOUT` or the command line.
pub fn pad(cell: &str, width: usize, left: bool) -> String {
    let fill = " ".repeat(width.saturating_sub(cell.chars().count()));
    if left {
        format!("{cell}{fill}")
    } else {
        format!("{fill}{cell}")
    }
}

/// Pads every column to its widest cell; column 1 (names) is left-aligned, the rest right-aligned.
fn render_table(rows: &[Vec<String>], left_aligned: &[usize]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            line.push_str(&pad(cell, widths[c], left_aligned.contains(&c)));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The standings table: rank, name, Elo ± against the field, games, score, draws and, when the
/// tournament was paired, the pentanomial.
pub fn standings_table(t: &TournamentTally) -> String {
    let rows = t.standings();
    let paired = rows.iter().any(|r| r.pairs.is_some());
    let mut table = vec![vec![
        "Rank".to_string(),
        "Name".to_string(),
        "Elo".to_string(),
        "+/-".to_string(),
        "Games".to_string(),
        "Score".to_string(),
        "Draws".to_string(),
    ]];
    if paired {
        table[0].push("Ptnml(0-2)".to_string());
    }
    for r in &rows {
        let mut line = vec![
            r.rank.to_string(),
            r.name.clone(),
            elo_text(r.elo.value),
            elo_text(r.elo.error),
            r.wld.games().to_string(),
            format!("{}%", fixed(r.score * 100.0, 2)),
            format!("{}%", fixed(r.draw_ratio * 100.0, 2)),
        ];
        if let Some(p) = &r.pairs {
            let [a, b, c, d, e] = p.0;
            line.push(format!("[{a}, {b}, {c}, {d}, {e}]"));
        }
        table.push(line);
    }
    render_table(&table, &[1, 7])
}

/// The crosstable: each row engine's points against each column engine as `points/games`
/// (`-` on the diagonal, `.` for pairings without games), then its total; rows and columns in
/// standings order.
pub fn crosstable(t: &TournamentTally) -> String {
    let order: Vec<usize> = t.standings().iter().map(|r| r.engine).collect();
    let cell = |w: Wld| format!("{}/{}", fixed(w.points(), 1), w.games());
    let mut header = vec![String::new()];
    header.extend(order.iter().map(|&j| t.names[j].clone()));
    header.push("Total".to_string());
    let mut table = vec![header];
    for &i in &order {
        let mut line = vec![t.names[i].clone()];
        for &j in &order {
            let w = t.head_to_head(i, j);
            line.push(if i == j {
                "-".to_string()
            } else if w.games() == 0 {
                ".".to_string()
            } else {
                cell(w)
            });
        }
        line.push(cell(t.total(i)));
        table.push(line);
    }
    render_table(&table, &[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_take_names_of_any_length() {
        assert_eq!(pad("ab", 4, true), "ab  ");
        assert_eq!(pad("ab", 4, false), "  ab");
        assert_eq!(pad("abcdef", 4, true), "abcdef");
        // Wider than std::fmt allows a width to be (65535): no panic.
        let mut t = TournamentTally::new(vec!["x".repeat(70_000), "y".into()]);
        t.record_game(0, 1, Score::Win).unwrap();
        assert!(standings_table(&t).contains(&"x".repeat(70_000)));
        assert!(crosstable(&t).lines().count() == 3);
    }

    #[test]
    fn progress_percent_has_the_sign_of_the_llr() {
        assert!((llr_progress_percent(1.4722, -2.9444, 2.9444) - 50.0).abs() < 1e-9);
        assert!((llr_progress_percent(-1.4722, -2.9444, 2.9444) + 50.0).abs() < 1e-9);
    }

    #[test]
    fn non_finite_values_print_like_fmt() {
        assert_eq!(fixed(f64::NAN, 2), "nan");
        assert_eq!(fixed(f64::NEG_INFINITY, 2), "-inf");
        assert_eq!(fixed(1.005, 1), "1.0");
    }

    #[test]
    fn tally_records_both_views_and_rejects_bad_indices() {
        let mut t = TournamentTally::new(vec!["a".into(), "b".into()]);
        t.record_pair(0, 1, Score::Win, Score::Draw).unwrap();
        assert_eq!(t.head_to_head(0, 1), Wld::new(1, 0, 1));
        assert_eq!(t.head_to_head(1, 0), Wld::new(0, 1, 1));
        assert_eq!(t.total_pairs(1).0, [0, 1, 0, 0, 0]);
        assert!(t.record_game(0, 2, Score::Win).is_err());
        assert!(t.record_game(1, 1, Score::Win).is_err());
        assert_eq!(t.total(0).games(), 2);
    }
}
