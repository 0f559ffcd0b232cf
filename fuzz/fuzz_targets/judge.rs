//! `gomoku-cli judge` input: `run_judge` over any bytes, as the command reads a file or standard
//! input (move sequences in pos notation and `SIZE:ROW/ROW/...` boards, one per line).
//!
//! Input: byte 0 picks the rule, byte 1 the board size of move sequences (5 to 32), byte 2 the
//! side to move given (none, black, white) and `--strict`; the rest is the input. Checks: no
//! panic; reading memory never fails (a bad line is an error object, not the end of the run);
//! one JSON object per non-blank line, a report or an error naming its line; forbidden points
//! only under renju.
#![no_main]

use gomoku_cli::core::board::{BoardSize, Color};
use gomoku_cli::commands::judge::verdicts::{run_judge, JudgeOptions};
use gomoku_cli::core::rules::Rule;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [rule, size, side, input @ ..] = data else {
        return;
    };
    let rule = Rule::ALL[usize::from(*rule) % Rule::ALL.len()];
    let size = BoardSize::new(5 + u32::from(*size) % 28).expect("5..=32 is a board size");
    let options = JudgeOptions {
        rule,
        size,
        to_move: [None, Some(Color::Black), Some(Color::White)][usize::from(*side & 3) % 3],
        strict: side & 4 != 0,
    };
    let mut out = Vec::new();
    let summary = run_judge(input, &options, &mut out)
        .unwrap_or_else(|e| panic!("judging memory failed: {e}"));
    let text = String::from_utf8(out).expect("the judge writes UTF-8");
    let objects: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("every output line is JSON"))
        .collect();
    assert_eq!(objects.len(), summary.lines);
    let errors = objects.iter().filter(|o| o.get("error").is_some()).count();
    assert_eq!(errors, summary.errors);
    for o in &objects {
        if let Some(line) = o.get("line") {
            assert!(line.as_u64().is_some_and(|n| n >= 1), "{o}");
        } else if rule != Rule::Renju {
            assert_eq!(o["forbidden"], serde_json::json!([]), "{o}");
        }
    }
});
