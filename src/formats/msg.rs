//! The `-msg` block of one game: the engines' `MESSAGE` lines under a header naming the game, its
//! players, result and reason, then what each engine reported about its search, a line per
//! reported move. Pure, like the SGF and PGN renderers.

use crate::core::board::Color;
use crate::game::record::{moves_text, report_text, Evals, GameRecord};

/// Render one game's message block, blank line included.
pub fn render(r: &GameRecord, evals: Evals) -> String {
    let mut block = format!(
        "Game {} ({} vs {}): {} {{{}}}\n",
        r.game,
        r.black_name,
        r.white_name,
        r.outcome.result(),
        r.outcome.termination.reason(r.size)
    );
    for (c, m) in &r.outcome.messages {
        block.push_str(r.name_of(*c));
        block.push_str(": ");
        block.push_str(m);
        block.push('\n');
    }
    if let Some(u) = &r.usage {
        for (c, lines) in [(Color::Black, u.black.lines), (Color::White, u.white.lines)] {
            if lines.dropped > 0 {
                block.push_str(&format!(
                    "{}: ({} more lines, {} bytes, dropped over the cap of {} lines or {} KiB a move)\n",
                    r.name_of(c),
                    lines.dropped,
                    lines.dropped_bytes,
                    crate::engine::chatter::LINES_PER_MOVE,
                    crate::engine::chatter::BYTES_PER_MOVE / 1024
                ));
            }
        }
    }
    let opening = r.opening.len();
    let reports = r.quoted_reports(evals).unwrap_or_default();
    for (i, (m, s)) in r.outcome.moves.iter().zip(reports).enumerate() {
        let Some(s) = s else { continue };
        let ply = opening + i;
        block.push_str(&format!(
            "{}: ply {} {}: {}\n",
            r.name_of(Color::of_ply(ply)),
            ply + 1,
            moves_text(&[m.pos], r.size),
            report_text(s, r.size)
        ));
    }
    block.push('\n');
    block
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::board::Color;
    use crate::game::record::fixtures::sample_record;

    #[test]
    fn block_names_the_game_and_each_sender() {
        let mut r = sample_record();
        r.outcome.messages.push((Color::White, "pondering".into()));
        assert_eq!(
            render(&r, Evals::On),
            "Game 7 (scout vs random): 1-0 {black makes five}\n\
             scout: depth 4 eval 120\n\
             random: pondering\n\n"
        );
    }

    #[test]
    fn lines_dropped_over_the_cap_are_said_after_the_messages() {
        let mut r = sample_record();
        let mut usage = crate::game::record::GameUse::default();
        usage.white.lines.dropped = 3;
        usage.white.lines.dropped_bytes = 42;
        usage.black.lines.error = 2;
        r.usage = Some(usage);
        assert_eq!(
            render(&r, Evals::On),
            "Game 7 (scout vs random): 1-0 {black makes five}\n\
             scout: depth 4 eval 120\n\
             random: (3 more lines, 42 bytes, dropped over the cap of 256 lines or 64 KiB a move)\n\n"
        );
    }

    #[test]
    fn reported_moves_follow_the_messages_one_line_each() {
        use crate::game::record::fixtures::with_reports;
        let r = with_reports(sample_record());
        let block = render(&r, Evals::On);
        let lines: Vec<&str> = block.lines().collect();
        assert_eq!(lines.len(), 2 + 6 + 1, "{block}");
        assert_eq!(lines[1], "scout: depth 4 eval 120");
        assert_eq!(lines[2], "random: ply 4 i10: eval +35 depth 5");
        assert_eq!(
            lines[3],
            "scout: ply 5 h10: eval +35 depth 6-9 nodes 96420 time 510ms pv h9 i10 h10 \
             multipv h9 +35 a1"
        );
        assert_eq!(
            lines[7],
            "scout: ply 9 h12: eval -M3 depth 10-9 nodes 289260 time 510ms pv h9 i10 h10"
        );
        assert_eq!(render(&r, Evals::Off), render(&sample_record(), Evals::On));
    }
}
