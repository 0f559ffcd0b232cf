//! The report's per-opening table: the figures of `openings audit` (`crate::analysis::openings_audit`), one
//! row per canonical opening, as an HTML section. Pure.

use crate::analysis::openings_audit::Audit;
use crate::analysis::report::escape::escape_text;

/// The openings shown at most (the most played first); the command prints all.
const ROWS: usize = 200;

/// The section, empty without games.
pub fn section(a: &Audit) -> String {
    if a.openings.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<section id=\"openings\">\n<h2>Openings</h2>\n<p class=\"muted\">{} openings (the same under \
         the 8 symmetries), {} colour-reversed pairs, {} openings decided by colour (the same colour \
         won both games of every pair). Black's score with its Wilson 95% interval; pairs by the \
         first engine's half points LL/LD/WL+DD/WD/WW{}.</p>\n<table>\n<thead><tr><th>Opening</th>\
         <th class=\"num\">Games</th><th class=\"num\">Black score</th><th class=\"num\">Pairs</th>\
         <th>Pentanomial</th><th class=\"num\">Decisive</th><th class=\"num\">Moves</th>\
         <th>Decided by</th><th>Endings</th></tr></thead>\n<tbody>\n",
        a.openings.len(),
        a.pairs,
        a.decided,
        match a.openings.len() > ROWS {
            true => format!("; the {ROWS} most played shown (`gomoku-cli openings audit` lists all)"),
            false => String::new(),
        }
    );
    for o in a.openings.iter().take(ROWS) {
        out.push_str(&format!(
            "<tr><td class=\"mono\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.3} \
             [{:.3}, {:.3}]</td><td class=\"num\">{}</td><td class=\"mono\">{:?}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{:.1}</td><td>{}</td><td>{}</td></tr>\n",
            escape_text(&o.opening),
            o.games,
            o.black_score,
            o.black_score_low,
            o.black_score_high,
            o.pairs,
            o.pentanomial,
            o.decisive_pairs
                .map_or("-".to_string(), |d| format!("{:.0} %", 100.0 * d)),
            o.average_moves,
            o.decided_by.map_or("-", |c| c.name()),
            escape_text(&o.endings()),
        ));
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::openings_audit::{AuditGame, Auditor};
    use crate::core::board::{BoardSize, Pos};

    #[test]
    fn a_row_per_opening_and_nothing_without_games() {
        assert_eq!(section(&Audit::default()), "");
        let size = BoardSize::new(15).unwrap();
        let mut a = Auditor::default();
        for (game, opening) in [
            (1, Pos::new(7, 7)),
            (2, Pos::new(0, 0)),
            (3, Pos::new(14, 0)),
        ] {
            let g = AuditGame {
                run: "r".into(),
                game,
                pair: 0,
                pair_game: game - 1,
                black_engine: 0,
                white_engine: 1,
                size,
                opening: vec![opening],
                moves: 9,
                result: crate::game::termination::GameResult::Draw,
                termination: "draw".into(),
            };
            a.add(&g).unwrap();
        }
        let html = section(&a.finish());
        // h8 alone, and a corner stone (both corners are one opening).
        assert_eq!(html.matches("<tr><td").count(), 2, "{html}");
        assert!(
            html.contains("<td class=\"mono\">a1</td><td class=\"num\">2</td>"),
            "{html}"
        );
        assert!(html.contains("draw 2"), "{html}");
    }
}
