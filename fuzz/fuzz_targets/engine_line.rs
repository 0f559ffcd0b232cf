//! What an engine prints, as the runner reads it: the line reader (`LineReader`: CR, LF and
//! CR LF line ends, the length cap, invalid UTF-8) and every parser of one line
//! (`parse_engine_line`, `parse_swap_answer`, `parse_about`).
//!
//! Input: byte 0 sets the line cap (1 to 256 bytes, so the cap is met often), the rest is the
//! engine's output. Checks: no panic; every line is non-empty and holds no line end; an answer
//! written back with its `Display` parses to the same answer; ABOUT keys are lower-case words.
#![no_main]

use gomoku_cli::engine::process::LineReader;
use gomoku_cli::engine::protocol::{parse_about, parse_engine_line, parse_swap_answer};
use libfuzzer_sys::fuzz_target;

thread_local! {
    // One runtime for every input: building one per input would dominate the run.
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime");
}

fuzz_target!(|data: &[u8]| {
    let Some((&cap, output)) = data.split_first() else {
        return;
    };
    let max = usize::from(cap) + 1;
    let lines = RUNTIME.with(|rt| {
        rt.block_on(async {
            let mut reader = LineReader::with_limit(output, max);
            let mut lines = Vec::new();
            while let Some(line) = reader
                .next_line()
                .await
                .expect("reading memory cannot fail")
            {
                lines.push(line);
            }
            lines
        })
    });
    for line in &lines {
        assert!(!line.is_empty(), "an empty line was returned");
        assert!(!line.contains(['\r', '\n']), "a line end inside {line:?}");
        // A replaced invalid byte takes 3 bytes of UTF-8; nothing else grows past the cap.
        assert!(
            line.len() <= 3 * max,
            "{} bytes over a cap of {max}",
            line.len()
        );
        if let Some(answer) = parse_engine_line(line) {
            let again = parse_engine_line(&answer.to_string());
            assert_eq!(
                again.as_ref(),
                Some(&answer),
                "{line:?} written as {answer}"
            );
        }
        let _ = parse_swap_answer(line);
        let about = parse_about(line);
        for (key, _) in &about.fields {
            assert!(
                !key.is_empty() && *key == key.to_ascii_lowercase(),
                "key {key:?}"
            );
        }
        let _ = (
            about.name(),
            about.version(),
            about.author(),
            about.country(),
        );
    }
});
