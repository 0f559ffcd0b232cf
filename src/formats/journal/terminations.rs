//! The termination codes a journal's game lines carry (`termination`), read: the one table of
//! codes and the words the report shows for them, tied to [`Termination::code`] by a test.

#[cfg(test)]
use crate::game::Termination;

/// The termination codes the journal writes ([`Termination::code`]), with the words the report
/// shows for them, in the report's order: the one table, tied to the variants by a test.
pub const TERMINATIONS: [(&str, &str); 13] = [
    ("five", "five"),
    ("forbidden", "forbidden move"),
    ("illegal_move", "illegal move"),
    ("swap_illegal", "illegal swap answer"),
    ("time_forfeit", "time"),
    ("crash", "crash"),
    ("failed_start", "failed start"),
    ("memory_limit", "memory"),
    ("engine_error", "engine error"),
    ("full_board", "full board"),
    ("draw_after", "draw after"),
    ("adjudicated_resign", "adjudicated resign"),
    ("adjudicated_draw", "adjudicated draw"),
];

/// The code the report files a termination under that this version does not know (a journal of
/// a later version, a hand-edited line).
pub const OTHER_TERMINATION: &str = "other";

/// The known code of a journal's termination text, or [`OTHER_TERMINATION`].
pub fn termination_code(text: &str) -> &'static str {
    TERMINATIONS
        .iter()
        .map(|(c, _)| *c)
        .find(|c| *c == text)
        .unwrap_or(OTHER_TERMINATION)
}

/// The words the report shows for a termination code.
pub fn termination_label(code: &str) -> &'static str {
    TERMINATIONS
        .iter()
        .find(|(c, _)| *c == code)
        .map_or("other", |(_, l)| *l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_termination_has_its_code_once_in_the_table() {
        let mut codes: Vec<&str> = crate::game::tests::one_of_each()
            .iter()
            .map(Termination::code)
            .collect();
        let mut table: Vec<&str> = TERMINATIONS.iter().map(|(c, _)| *c).collect();
        codes.sort_unstable();
        table.sort_unstable();
        assert_eq!(codes, table);
        table.dedup();
        assert_eq!(table.len(), TERMINATIONS.len(), "no code twice");
    }

    #[test]
    fn every_termination_reads_back_as_its_own_code_and_label() {
        for t in crate::game::tests::one_of_each() {
            let code = termination_code(t.code());
            assert_eq!(code, t.code());
            assert_ne!(termination_label(code), "other", "{code}");
        }
        assert_eq!(termination_code("resigned"), OTHER_TERMINATION);
        assert_eq!(termination_label("resigned"), "other");
    }
}
