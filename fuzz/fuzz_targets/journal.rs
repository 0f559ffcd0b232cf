//! Results journals as every reader takes them: the streaming reader (`journal::Stream`) with
//! whole entries (export, resume, `lib merge`) and with the summaries statistics read (`sprt`,
//! `merge`, `report`), the tracker's replay, and each entry rebuilt into a game record
//! (`JournalEntry::to_record`) and rendered as export renders it (PGN, SGF, messages, `.psq`,
//! samples) or merged into a RenLib library.
//!
//! Checks: no panic; an error names a line of the file; a final line without its line end (a
//! torn write) is skipped, never an error; every entry and header written back
//! (`render_entry`, `render_header`) reads back equal.
#![no_main]

use gomoku_cli::formats::journal::{
    render_entry, render_header, GameSummary, Item, JournalEntry, JournalError, JournalHeader,
    Stream,
};
use gomoku_cli::formats::samples::{game_rng, samples_of};
use gomoku_cli::formats::{msg, pgn, psq, sgf};
use gomoku_cli::game::record::Evals;
use gomoku_cli::formats::renlib::{CodePage, LibGame, Library};
use gomoku_cli::analysis::tracker;
use libfuzzer_sys::fuzz_target;

/// Every item of `bytes` read as a journal of `E`, up to and including the first error.
fn items<E: serde::de::DeserializeOwned>(bytes: &[u8]) -> Vec<Result<Item<E>, JournalError>> {
    let mut out = Vec::new();
    for item in Stream::<_, E>::new(bytes, "fuzz.jsonl") {
        let stop = item.is_err();
        out.push(item);
        if stop {
            break;
        }
    }
    out
}

fn check_error(e: &JournalError, bytes: &[u8]) {
    let lines = bytes.split(|&b| b == b'\n').count();
    // The stream's only error (the header check and the duplicate rule are the readers' above it).
    let JournalError::BadLine { line, .. } = e else {
        panic!("a stream error that is not a bad line: {e}");
    };
    assert!((1..=lines).contains(line), "line {line} of {lines}: {e}");
    assert!(!e.to_string().is_empty());
}

fuzz_target!(|data: &[u8]| {
    // A torn last line alone: whatever it holds, it is skipped or read, never an error.
    let tail = &data[data.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)..];
    for item in items::<JournalEntry>(tail) {
        if let Err(e) = item {
            panic!("a last line without its line end is an error: {e}");
        }
    }

    let mut header = None;
    let mut entries = Vec::new();
    for item in items::<JournalEntry>(data) {
        match item {
            Ok(Item::Header(h)) => {
                let again: JournalHeader = serde_json::from_str(&render_header(&h))
                    .unwrap_or_else(|e| panic!("a header written back does not read: {e}"));
                assert_eq!(again, *h, "a header written back reads differently");
                header.get_or_insert(*h);
            }
            Ok(Item::Entry(e)) => {
                let again: JournalEntry = serde_json::from_str(&render_entry(&e))
                    .unwrap_or_else(|err| panic!("an entry written back does not read: {err}"));
                assert_eq!(again, *e, "an entry written back reads differently");
                entries.push(*e);
            }
            Ok(Item::Torn(w)) => assert!(!w.is_empty()),
            Err(e) => check_error(&e, data),
        }
    }
    let mut summaries = Vec::new();
    for item in items::<GameSummary>(data) {
        match item {
            Ok(Item::Entry(e)) => summaries.push(*e),
            Ok(_) => {}
            Err(e) => check_error(&e, data),
        }
    }
    let _ = match &header {
        Some(h) => tracker::replay_stream(h, summaries, None).map(|r| r.tracker.pairs().len()),
        None => tracker::from_journal(&summaries, None).map(|r| r.tracker.pairs().len()),
    };

    let mut lib = Library::new();
    for e in &entries {
        if let Ok(game) = LibGame::from_journal(e) {
            lib.merge_game(&game, CodePage::default());
        }
        let Ok(record) = e.to_record() else { continue };
        let _ = pgn::render(&record, "fuzz", Evals::On);
        let _ = sgf::render(&record, "fuzz", Evals::On);
        let _ = msg::render(&record, Evals::On);
        let _ = psq::render(&record);
        let _ = samples_of(&record, 1.0, &mut game_rng(1, e.game));
    }
});
