//! Opening files: `OpeningBook::parse_bytes` (what `OpeningBook::load` reads a file with) in
//! offset and pos notation and as one Piskvork `.psq` record, on any board size and rule.
//!
//! Input: byte 0 picks the format (offset, pos, psq, psq with `moves=N`), byte 1 the board size
//! (5 to 32), byte 2 the rule; the rest is the file. Checks: no panic; a line error names a line
//! of the file; an accepted book written back in its format (`Opening::to_line`) reads back to
//! the same stones; drawing openings and the duplicate scan work on it.
#![no_main]

use gomoku_cli::core::board::{BoardSize, Symmetry};
use gomoku_cli::formats::openings::{OpeningBook, OpeningError, OpeningFormat};
use gomoku_cli::formats::openings::order::OpeningOrder;
use gomoku_cli::core::rules::Rule;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [format, size, rule, file @ ..] = data else {
        return;
    };
    let format = match format % 4 {
        0 => OpeningFormat::Offset,
        1 => OpeningFormat::Pos,
        2 => OpeningFormat::Psq { moves: None },
        _ => OpeningFormat::Psq {
            moves: Some(1 + usize::from(format >> 2)),
        },
    };
    let size = BoardSize::new(5 + u32::from(*size) % 28).expect("5..=32 is a board size");
    let rule = Rule::ALL[usize::from(*rule) % Rule::ALL.len()];
    let book = match OpeningBook::parse_bytes(file, "fuzz.txt", format, size, rule) {
        Ok(book) => book,
        Err(e) => {
            let lines = file.split(|&b| b == b'\n').count();
            if let OpeningError::Line { line, .. } = &e {
                assert!((1..=lines).contains(line), "line {line} of {lines}: {e}");
            }
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let written: Vec<String> = book
        .openings
        .iter()
        .map(|o| {
            o.to_line(format, size)
                .unwrap_or_else(|e| panic!("an opening read in {format} cannot be written: {e}"))
        })
        .collect();
    let again = match format {
        OpeningFormat::Psq { .. } => {
            assert_eq!(written.len(), 1, "a .psq record is one opening");
            OpeningBook::parse_str(
                &written[0],
                "again",
                OpeningFormat::Psq { moves: None },
                size,
                rule,
            )
        }
        _ => OpeningBook::parse_str(&written.join("\n"), "again", format, size, rule),
    }
    .unwrap_or_else(|e| panic!("the book written back does not read: {e}\n{written:?}"));
    let stones = |b: &OpeningBook| {
        b.openings
            .iter()
            .map(|o| o.stones.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(stones(&again), stones(&book));
    let sequence = book.sequence(OpeningOrder::Random { seed: 7 }, true);
    for k in [0, 1, book.len() as u64 * 9 + 3] {
        let (index, sym) = sequence.draw(k);
        assert!(book.stones(index, sym).is_some());
    }
    let _ = book.stones(0, Symmetry::ALL[5]);
    let _ = book.duplicates();
});
