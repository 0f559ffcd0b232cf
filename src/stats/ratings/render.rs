//! The rating list and the likelihood-of-superiority matrix as text, in BayesElo's layouts (its
//! `ratings` and `los` commands), so that a Gomocup-style page reads ours as it reads BayesElo's.
//!
//! Widths count characters where BayesElo's `setw` counts bytes: the same for ASCII names, and
//! columns that stay aligned for others.

use std::fmt::Write;

use super::types::{FitSettings, Parameter, RatingList};

/// BayesElo's rounding: half away from zero, then truncation to an integer.
fn round_half_away(x: f64) -> i64 {
    if x > 0.0 {
        (x + 0.5) as i64
    } else {
        (x - 0.5) as i64
    }
}

/// A game count as C++ prints a `float` by default (six significant digits: `1e+06` from a
/// million on).
fn cpp_float(count: u32) -> String {
    if count < 1_000_000 {
        return count.to_string();
    }
    let x = count as f32 as f64;
    let exponent = x.log10().floor() as i32;
    let mantissa = format!("{:.5}", x / 10f64.powi(exponent));
    let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
    format!("{mantissa}e+{exponent:02}")
}

fn rated(list: &RatingList) -> Vec<usize> {
    list.ranking()
        .into_iter()
        .filter(|&id| list.players[id].games > 0)
        .collect()
}

fn name_width(names: &[String], ids: &[usize]) -> usize {
    ids.iter()
        .map(|&id| names.get(id).map_or(0, |n| n.chars().count()))
        .max()
        .unwrap_or(0)
}

fn name(names: &[String], id: usize) -> &str {
    names.get(id).map_or("", String::as_str)
}

/// BayesElo's `ratings [min_games]` table: rank, name, Elo, +, -, games, score %, average
/// opponent, draws %, best first, players with fewer than `min_games` games (at least 1) left out
/// (and not counted in the ranks).
pub fn render_table(names: &[String], list: &RatingList, min_games: u32) -> String {
    let ids = rated(list);
    let width = name_width(names, &ids).max(4);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Rank {:<width$} {:>5} {:>4} {:>4} {:>5} {:>5} {:>5} {:>5} ",
        "Name", "Elo", "  +", "  -", "games", "score", "oppo.", "draws"
    );
    let min_games = min_games.max(1);
    let mut rank = 0;
    for id in ids {
        let p = &list.players[id];
        if p.games < min_games {
            continue;
        }
        rank += 1;
        let games = p.games as f64;
        let _ = writeln!(
            out,
            "{rank:>4} {:<width$} {:>5} {:>4} {:>4} {:>5} {:>4}% {:>5} {:>4}% ",
            name(names, id),
            round_half_away(p.elo),
            round_half_away(p.plus),
            round_half_away(p.minus),
            cpp_float(p.games),
            round_half_away(100.0 * p.score / games),
            round_half_away(p.opponent),
            round_half_away(100.0 * p.draws as f64 / games),
        );
    }
    out
}

/// BayesElo's `los 0 N width` matrix: players best first, each column headed by the first
/// `width - 1` characters of a name, entries `P(row stronger than column)` in units of
/// `10^-(width-1)` (at most 8 digits), truncated as BayesElo truncates. Empty when the list was
/// fitted without the likelihood of superiority.
pub fn render_los(names: &[String], list: &RatingList, width: usize) -> String {
    let Some(los) = &list.los else {
        return String::new();
    };
    let ids = rated(list);
    let name_width = name_width(names, &ids);
    let width = width.max(2);
    let mult = 10f64.powi(width.min(8) as i32 - 1);
    let mut out = String::new();
    let _ = write!(out, "{:>name_width$} ", ' ');
    for &id in &ids {
        let short: String = name(names, id).chars().take(width - 1).collect();
        let _ = write!(out, "{short:>width$}");
    }
    out.push('\n');
    for &i in &ids {
        let _ = write!(out, "{:<name_width$} ", name(names, i));
        for &j in &ids {
            if i == j {
                let _ = write!(out, "{:>width$}", ' ');
            } else {
                let _ = write!(out, "{:>width$}", (los[i][j] * mult) as i64);
            }
        }
        out.push('\n');
    }
    out
}

/// The line after the table: the model's two parameters, each `estimated` or `fixed`, and what
/// was fitted (the `ratings` command and the end of a run print the same).
pub fn render_parameters(
    list: &RatingList,
    settings: &FitSettings,
    games: usize,
    players: usize,
) -> String {
    let how = |p: Parameter| match p {
        Parameter::Estimate => "estimated",
        Parameter::Fixed(_) => "fixed",
    };
    format!(
        "first-move advantage {:.1} Elo ({}), draw Elo {:.1} ({}); {games} games, {players} players",
        list.advantage,
        how(settings.advantage),
        list.drawelo,
        how(settings.drawelo),
    )
}
