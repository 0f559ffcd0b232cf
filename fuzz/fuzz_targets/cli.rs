//! The match runner's command line: `cli::parse_legacy` into a `RawCli`, then
//! `Config::from_raw`, every check a run makes before it starts a process.
//!
//! Input: the arguments, separated by NUL bytes (as in `/proc/PID/cmdline`); inputs with an
//! argument that is not UTF-8 are skipped. Checks: no panic; errors have a message.
#![no_main]

use gomoku_cli::cli::parse_legacy;
use gomoku_cli::config::Config;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let args: Option<Vec<String>> = data
        .split(|&b| b == 0)
        .map(|a| String::from_utf8(a.to_vec()).ok())
        .collect();
    let Some(args) = args else { return };
    let raw = match parse_legacy(&args) {
        Ok(raw) => raw,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    match Config::from_raw(&raw) {
        Ok(config) => {
            let _ = config.journal.as_ref().map(|j| j.path());
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
