//! Inputs that broke a parser during the fuzz campaign (`bench/fuzz.sh`, targets in `fuzz/`),
//! kept under `fuzz/regressions/TARGET/` as the target found them (without the option bytes a
//! target reads first: the test states those options itself). Each test checks the clear error
//! the fixed code gives: named line, byte or argument, and the value.

use crate::common;

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::process::Command;

use gomoku_cli::cli::{args_from_os, parse_legacy, CliError};
use gomoku_cli::commands::judge::verdicts::{run_judge, JudgeOptions};
use gomoku_cli::config::env::Env;
use gomoku_cli::config::Config;
use gomoku_cli::core::board::BoardSize;
use gomoku_cli::core::rules::Rule;
use gomoku_cli::formats::journal::{self, Item, JournalEntry, JournalError, Stream};
use gomoku_cli::formats::openings::{LineProblem, OpeningBook, OpeningFormat};

fn input(target: &str, name: &str) -> Vec<u8> {
    let path = common::repo_root()
        .join("fuzz/regressions")
        .join(target)
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// NUL-separated arguments, as the `cli` target takes them.
fn os_args(bytes: &[u8]) -> Vec<OsString> {
    bytes
        .split(|&b| b == 0)
        .map(|a| OsString::from_vec(a.to_vec()))
        .collect()
}

#[test]
fn cli_a_duration_too_large_for_a_duration_is_a_bad_value() {
    // `-syncinterval 0333…3.5` (89 digits): `Duration::from_secs_f64` panicked.
    let args = args_from_os(os_args(&input("cli", "syncinterval_too_large"))).unwrap();
    let raw = parse_legacy(&args).unwrap();
    let e = Config::from_raw(&raw, &Env::of_process())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("-syncinterval: \"0333"), "{e}");
    assert!(
        e.ends_with("is not valid: at most 1000000000 seconds"),
        "{e}"
    );
    // The same bound for the other durations of the command line.
    for extra in [
        ["-startuptimeout", "1e300"],
        ["-each", "tolerance=1e10"],
        ["-each", "tc=1.8e19"],
    ] {
        let args = common::Match::new()
            .engine_cmd("/bin/sh", &[])
            .engine_cmd("/bin/sh", &[])
            .args(&extra)
            .to_args();
        let e = Config::from_raw(&parse_legacy(&args).unwrap(), &Env::of_process()).unwrap_err();
        assert!(e.to_string().contains("1000000000 seconds"), "{e}");
    }
}

#[test]
fn cli_an_argument_that_is_not_utf8_is_a_usage_error_naming_it() {
    // `std::env::args` panicked on it (exit status 101) before any option was read.
    let args = os_args(&input("cli", "arg_not_utf8"));
    let e = args_from_os(args.clone()).unwrap_err();
    assert_eq!(
        e,
        CliError::NotUtf8 {
            index: 6,
            lossy: "games\u{fffd}.pgn".into()
        }
    );
    assert_eq!(
        e.to_string(),
        "argument 6 is not UTF-8 text: \"games\u{fffd}.pgn\""
    );
    let out = Command::new(common::runner())
        .args(
            args.iter()
                .map(|a| std::ffi::OsStr::from_bytes(a.as_bytes())),
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("error: argument 6 is not UTF-8 text"),
        "{stderr}"
    );
}

#[test]
fn journal_a_line_that_is_not_utf8_is_an_error_naming_its_line_and_byte() {
    // A header line with one byte 0xdb inside it: the error named line 0 and no byte.
    let bytes = input("journal", "header_not_utf8.jsonl");
    let first = Stream::<_, JournalEntry>::new(&bytes[..], "j.jsonl")
        .next()
        .unwrap();
    let Err(e @ JournalError::BadLine { line: 1, .. }) = first else {
        panic!("{first:?}");
    };
    let e = e.to_string();
    assert!(
        e.starts_with(
            "j.jsonl:1: not a journal entry (not UTF-8 text: byte 0xdb at column 717 (offset \
             716 of the file))"
        ),
        "{e}"
    );
    assert!(journal::parse(&bytes, "j.jsonl").is_err());
    // Torn inside a character instead, as a kill can leave a last line: skipped with a warning.
    let cut = bytes.iter().position(|&b| b == 0xdb).unwrap() + 1;
    let mut torn = bytes[bytes.iter().position(|&b| b == b'\n').unwrap() + 1..].to_vec();
    torn.extend_from_slice(&bytes[..cut]);
    let read = journal::parse(&torn, "j.jsonl").unwrap();
    assert_eq!(read.entries.len(), 2);
    assert!(read.header.is_none());
    assert!(
        read.warnings[0].starts_with("j.jsonl:3: skipping a torn last line"),
        "{:?}",
        read.warnings
    );
    let items: Vec<_> = Stream::<_, JournalEntry>::new(&torn[..], "j.jsonl").collect();
    assert!(matches!(items.last(), Some(Ok(Item::Torn(_)))));
}

#[test]
fn opening_an_offset_at_the_i64_limit_is_off_the_board() {
    // Found reading the offset parser while writing the `opening` target, then confirmed with
    // it: centre + 9223372036854775807 overflowed (a panic with overflow checks, a wrapped
    // value without).
    let path = common::repo_root().join("fuzz/regressions/opening/offset_overflow.txt");
    let e = OpeningBook::load(
        &path,
        OpeningFormat::Offset,
        BoardSize::STANDARD,
        Rule::Freestyle,
    )
    .unwrap_err();
    assert_eq!(
        e.problem(),
        Some(&LineProblem::OffBoard {
            stone: 2,
            text: "9223372036854775807,0".into(),
            size: 15
        })
    );
    assert_eq!(
        e.to_string(),
        format!(
            "{}:1: stone 2 (9223372036854775807,0) is off the 15x15 board: \
             \"0,0, 9223372036854775807,0\"",
            path.display()
        )
    );
}

#[test]
fn judge_a_line_that_is_not_utf8_is_an_error_object_and_the_rest_is_judged() {
    // Line 3 ends in byte 0xe1: the whole input stopped with "stream did not contain valid
    // UTF-8", no line named, lines 4 to 7 never judged. Options: renju, 15x15.
    let bytes = input("judge", "line_not_utf8.txt");
    let options = JudgeOptions::new(Rule::Renju, BoardSize::STANDARD);
    let mut out = Vec::new();
    let summary = run_judge(&bytes[..], &options, &mut out).unwrap();
    let objects: Vec<serde_json::Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!((summary.lines, summary.errors), (6, 3));
    assert_eq!(objects.len(), 6);
    assert_eq!(objects[2]["line"], 3);
    assert_eq!(
        objects[2]["error"],
        "byte 0xe1 at column 17 is not UTF-8 text"
    );
    assert_eq!(objects[2]["input"], "h9a1h10a3i8a5j8a\u{fffd}");
    assert_eq!(objects[3]["winner"], "black");
    assert_eq!(objects[5]["line"], 7);
}
