//! Snapshots of every record renderer on fixed games (the fixtures' times and dates are fixed, so
//! nothing needs redacting but the version number in SGF's AP property).
use crate::core::board::Pos;
use crate::core::rules::ForbiddenKind;
use crate::core::rules::Rule;
use crate::core::swap::{Role, SwapRecord};
use crate::formats::{journal, pgn, psq, sgf};
use crate::game::record::{
    fixtures::{sample_record, swap_record},
    Evals, GameRecord,
};
use crate::game::termination::Termination;

fn forbidden_record() -> GameRecord {
    let mut r = sample_record();
    r.rule = Rule::Renju;
    r.outcome.moves.truncate(4);
    r.outcome.termination = Termination::Forbidden {
        kind: ForbiddenKind::DoubleThree,
        at: Pos::new(9, 9),
    };
    r
}

fn redact_version(s: String) -> String {
    s.replace(env!("CARGO_PKG_VERSION"), "[version]")
}

#[test]
fn swap_text_names_who_chose_what() {
    let r = swap_record();
    assert_eq!(
        r.swap_text().unwrap(),
        "swap2: random h8i8j10, scout i9g7, random SWAP; random plays black"
    );
    let mut r = sample_record();
    assert_eq!(r.swap_text(), None);
    r.swap = Some(SwapRecord {
        rule: crate::core::swap::SwapRule::Swap1,
        proposer: crate::core::board::Color::Black,
        steps: vec![],
        unsupported: Some((Role::Chooser, "UNKNOWN what".into())),
    });
    assert_eq!(
        r.swap_text().unwrap(),
        "swap1: no answer; random answered \"UNKNOWN what\" (no SWAP2BOARD): played \
         without a swap"
    );
}

#[test]
fn sgf_snapshots() {
    insta::assert_snapshot!(
        "sgf_five",
        redact_version(sgf::render(&sample_record(), "test", Evals::On))
    );
    insta::assert_snapshot!(
        "sgf_forbidden",
        redact_version(sgf::render(&forbidden_record(), "test", Evals::On))
    );
    insta::assert_snapshot!(
        "sgf_swap",
        redact_version(sgf::render(&swap_record(), "test", Evals::On))
    );
}

#[test]
fn pgn_snapshots() {
    insta::assert_snapshot!("pgn_five", pgn::render(&sample_record(), "test", Evals::On));
    insta::assert_snapshot!(
        "pgn_forbidden",
        pgn::render(&forbidden_record(), "test", Evals::On)
    );
    insta::assert_snapshot!("pgn_swap", pgn::render(&swap_record(), "test", Evals::On));
}

#[test]
fn psq_snapshots() {
    insta::assert_snapshot!("psq_five", psq::render(&sample_record()));
    // The foul that ended the game is not a stone: the record stops before it.
    insta::assert_snapshot!("psq_forbidden", psq::render(&forbidden_record()));
}

#[test]
fn journal_snapshots() {
    insta::assert_snapshot!(
        "journal_five",
        journal::render_line(&sample_record(), "0123456789abcdef")
    );
    insta::assert_snapshot!(
        "journal_forbidden",
        journal::render_line(&forbidden_record(), "0123456789abcdef")
    );
    insta::assert_snapshot!(
        "journal_swap",
        journal::render_line(&swap_record(), "0123456789abcdef")
    );
}
