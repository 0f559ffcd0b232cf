//! SGF rendering of one game (GM[4], standard RE forms, moves in played order, think times).

use std::fmt::Write;

use crate::game::record::{report_text, Evals, GameRecord};
use crate::game::termination::Termination;

/// Escape an SGF text value (`]` and `\` must be escaped).
pub fn escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        if c == ']' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

/// One game as a complete SGF record `(;...)` followed by a newline; with `evals` on, a move an
/// engine reported on has the report on a second line of its comment.
pub fn render(r: &GameRecord, event: &str, evals: Evals) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "(;FF[4]GM[4]CA[UTF-8]AP[gomoku-cli:{}]SZ[{}]RU[{}]PB[{}]PW[{}]RE[{}]DT[{}]EV[{}]RO[{}]GN[{}]",
        env!("CARGO_PKG_VERSION"),
        r.size,
        r.rule.code(),
        escape(&r.black_name),
        escape(&r.white_name),
        r.outcome.termination.sgf_result(),
        r.started.format("%Y-%m-%d"),
        escape(event),
        r.round,
        r.game,
    );
    let _ = write!(
        s,
        "C[{}: {}",
        r.outcome.termination.code(),
        escape(&r.outcome.termination.reason(r.size))
    );
    // `-swap2`/`-swap1`: who proposed and who chose what, on a line of the game's comment.
    if let Some(text) = r.swap_text() {
        let _ = write!(s, "\n{}", escape(&text));
    }
    s.push(']');
    let mut ply = 0usize;
    let colour = |ply: usize| if ply % 2 == 0 { "B" } else { "W" };
    for p in &r.opening {
        let _ = write!(s, "\n;{}[{}]C[opening]", colour(ply), p.to_sgf());
        ply += 1;
    }
    let reports = r.quoted_reports(evals);
    for (i, m) in r.outcome.moves.iter().enumerate() {
        let _ = write!(
            s,
            "\n;{}[{}]C[{}ms",
            colour(ply),
            m.pos.to_sgf(),
            m.time.as_millis()
        );
        if let Some(report) = reports.as_ref().and_then(|v| v[i]) {
            let _ = write!(s, "\n{}", escape(&report_text(report, r.size)));
        }
        s.push(']');
        ply += 1;
    }
    if let Termination::Forbidden { kind, at } = &r.outcome.termination {
        let _ = write!(s, "\n;B[{}]C[forbidden: {}]", at.to_sgf(), kind);
    }
    s.push_str(")\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::record::fixtures::sample_record;

    #[test]
    fn renders_header_and_moves_in_order() {
        let r = sample_record();
        let s = render(&r, "test ] event", Evals::On);
        assert!(s.starts_with("(;FF[4]GM[4]"));
        assert!(s.contains("SZ[15]") && s.contains("PB[scout]") && s.contains("PW[random]"));
        assert!(s.contains("RE[B+]"));
        assert!(s.contains("EV[test \\] event]"));
        assert!(s.contains(";B[hh]C[opening]\n;W[ii]C[opening]\n;B[hi]C[3ms]"));
        assert!(s.trim_end().ends_with(')'));
    }

    #[test]
    fn reported_moves_carry_the_report_in_their_comment() {
        use crate::game::record::fixtures::with_reports;
        let r = with_reports(sample_record());
        let s = render(&r, "ev", Evals::On);
        assert!(
            s.contains(";B[hi]C[3ms]\n;W[ij]C[13ms\neval +35 depth 5]"),
            "{s}"
        );
        assert!(s.contains(
            "C[23ms\neval +35 depth 6-9 nodes 96420 time 510ms pv h9 i10 h10 multipv h9 +35 a1]"
        ));
        assert!(s.contains("C[63ms\neval -M3 depth 10-9"), "{s}");
        assert_eq!(
            render(&r, "ev", Evals::Off),
            render(&sample_record(), "ev", Evals::On)
        );
    }
}
