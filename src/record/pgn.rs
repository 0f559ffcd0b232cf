//! The "dummy" PGN that BayesElo and Ordo read: tags only, the first mover (gomoku Black) in the
//! White tag, because Elo tools model the first-move advantage for White.

use std::fmt::Write;

use crate::game::Termination;

use super::GameRecord;

fn tag_escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// PGN's standard Termination tag value for a game end.
pub fn termination_value(t: &Termination) -> &'static str {
    match t {
        Termination::Five { .. } | Termination::FullBoard | Termination::DrawAfter { .. } => {
            "normal"
        }
        Termination::TimeForfeit { .. } => "time forfeit",
        Termination::Forbidden { .. }
        | Termination::IllegalMove { .. }
        | Termination::MemoryLimit { .. }
        | Termination::EngineError { .. }
        | Termination::SwapIllegal { .. } => "rules infraction",
        Termination::Crash { .. } | Termination::FailedStart { .. } => "abandoned",
        Termination::AdjudicatedDraw { .. } | Termination::AdjudicatedResign { .. } => {
            "adjudication"
        }
    }
}

/// One game as PGN tags plus a comment with the reason and the result token.
pub fn render(r: &GameRecord, event: &str) -> String {
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
            termination_value(&r.outcome.termination).to_string(),
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
    let reason = r.outcome.termination.reason(r.size).replace(['{', '}'], "");
    let _ = writeln!(s, "\n{{{reason}}} {}\n", r.outcome.result().as_str());
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::fixtures::sample_record;

    #[test]
    fn first_mover_is_the_white_tag() {
        let s = render(&sample_record(), "ev");
        assert!(s.contains("[White \"scout\"]"));
        assert!(s.contains("[Black \"random\"]"));
        assert!(s.contains("[Result \"1-0\"]"));
        assert!(s.contains("[Date \"2026.11.21\"]"));
        assert!(s.contains("[PlyCount \"9\"]"));
        assert!(s.trim_end().ends_with("1-0"));
    }
}
