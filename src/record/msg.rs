//! The `-msg` block of one game: the engines' `MESSAGE` lines under a header naming the game, its
//! players, result and reason. Pure, like the SGF and PGN renderers.

use super::GameRecord;

/// Render one game's message block, blank line included.
pub fn render(r: &GameRecord) -> String {
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
    block.push('\n');
    block
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;
    use crate::record::fixtures::sample_record;

    #[test]
    fn block_names_the_game_and_each_sender() {
        let mut r = sample_record();
        r.outcome.messages.push((Color::White, "pondering".into()));
        assert_eq!(
            render(&r),
            "Game 7 (scout vs random): 1-0 {black makes five}\n\
             scout: depth 4 eval 120\n\
             random: pondering\n\n"
        );
    }
}
