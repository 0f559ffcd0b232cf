//! The "dummy" PGN that BayesElo and Ordo read: tags only, the first mover (gomoku Black) in the
//! White tag, because Elo tools model the first-move advantage for White.

use std::fmt::Write;

use crate::core::search::SearchReport;
use crate::game::record::{seconds_text, Evals, GameRecord, PlayedMove};

/// PGN's export format keeps movetext lines within this width.
const LINE_WIDTH: usize = 79;

fn tag_escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The comment of one played move in the form cutechess and fastchess write: the evaluation from
/// the mover's view and the depth, then the move's time as the runner measured it (`+35/12
/// 0.51s`, `-M4/9 1.2s`); the time alone where the engine gave no evaluation.
pub fn move_comment(m: &PlayedMove, report: Option<&SearchReport>) -> String {
    let time = seconds_text(m.time);
    match report.and_then(|s| Some((s.eval?, s.depth))) {
        Some((eval, Some(depth))) => format!("{eval}/{depth} {time}"),
        Some((eval, None)) => format!("{eval} {time}"),
        None => time,
    }
}

/// The movetext: with reports quoted, one comment per played move (the opening's stones have
/// none: the dummy PGN holds no moves), then the reason and the result, wrapped to
/// [`LINE_WIDTH`] columns.
fn movetext(r: &GameRecord, evals: Evals) -> String {
    let reason = r.outcome.termination.reason(r.size).replace(['{', '}'], "");
    let result = r.outcome.result().as_str();
    let Some(reports) = r.quoted_reports(evals) else {
        return format!("{{{reason}}} {result}\n");
    };
    let tokens = (r.outcome.moves.iter().zip(reports))
        .map(|(m, s)| format!("{{{}}}", move_comment(m, s)))
        .chain([format!("{{{reason}}}"), result.to_string()]);
    let mut text = String::new();
    let mut line = 0;
    for t in tokens {
        if line > 0 && line + 1 + t.len() > LINE_WIDTH {
            text.push('\n');
            line = 0;
        } else if line > 0 {
            text.push(' ');
            line += 1;
        }
        line += t.len();
        text.push_str(&t);
    }
    text.push('\n');
    text
}

/// One game as PGN tags plus a comment with the reason and the result token; with `evals` on,
/// each played move's comment before them where an engine reported.
pub fn render(r: &GameRecord, event: &str, evals: Evals) -> String {
    let mut s = String::new();
    let tags = [
        ("Event", event.to_string()),
        ("Site", "gomoku-cli".to_string()),
        ("Date", r.started.format("%Y.%m.%d").to_string()),
        ("Round", r.round.to_string()),
        ("White", r.black_name.clone()),
        ("Black", r.white_name.clone()),
        ("Result", r.outcome.result().as_str().to_string()),
        (
            "Termination",
            r.outcome.termination.pgn_termination().to_string(),
        ),
        (
            "PlyCount",
            (r.opening.len() + r.outcome.moves.len()).to_string(),
        ),
        ("GameId", r.game.to_string()),
    ];
    // `-swap2`/`-swap1`: who proposed and who chose what, after the seven standard tags.
    let swap = r.swap_text().map(|t| ("Swap", t));
    for (k, v) in tags.into_iter().chain(swap) {
        let _ = writeln!(s, "[{k} \"{}\"]", tag_escape(&v));
    }
    let _ = writeln!(s, "\n{}", movetext(r, evals));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::record::fixtures::sample_record;

    #[test]
    fn first_mover_is_the_white_tag() {
        let s = render(&sample_record(), "ev", Evals::On);
        assert!(s.contains("[White \"scout\"]"));
        assert!(s.contains("[Black \"random\"]"));
        assert!(s.contains("[Result \"1-0\"]"));
        assert!(s.contains("[Date \"2026.11.21\"]"));
        assert!(s.contains("[PlyCount \"9\"]"));
        assert!(s.trim_end().ends_with("1-0"));
    }

    #[test]
    fn move_comments_are_eval_depth_and_time() {
        use crate::game::record::fixtures::{report, with_reports};
        let r = with_reports(sample_record());
        let m = &r.outcome.moves;
        assert_eq!(move_comment(&m[0], None), "0.003s");
        let s = report("+35", Some(12));
        assert_eq!(move_comment(&m[1], Some(&s)), "+35/12 0.013s");
        assert_eq!(
            move_comment(&m[2], Some(&report("-M4", None))),
            "-M4 0.023s"
        );
        let no_eval = crate::core::search::SearchReport {
            depth: Some(3),
            ..Default::default()
        };
        assert_eq!(move_comment(&m[2], Some(&no_eval)), "0.023s");
        // Whole milliseconds, as the journal keeps them (1.6 ms is 0.001s, 9.9996 s is 10.0s).
        for (micros, text) in [
            (1_600, "0.001s"),
            (0, "0s"),
            (510_900, "0.51s"),
            (9_999_600, "10.0s"),
            (51_000_000, "51s"),
        ] {
            let m = PlayedMove {
                time: std::time::Duration::from_micros(micros),
                ..m[0].clone()
            };
            assert_eq!(move_comment(&m, None), text);
        }
        let text = render(&r, "ev", Evals::On);
        let body = text.split("\n\n").nth(1).unwrap();
        assert!(
            body.starts_with("{0.003s} {+35/5 0.013s} {+35/6 0.023s}"),
            "{body}"
        );
        assert!(body.lines().all(|l| l.len() <= LINE_WIDTH), "{body}");
        assert_eq!(body.matches('{').count(), m.len() + 1);
        // Off, or without reports: today's bytes.
        assert_eq!(
            render(&r, "ev", Evals::Off),
            render(&sample_record(), "ev", Evals::On)
        );
    }
}
