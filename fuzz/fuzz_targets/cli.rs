//! The match runner's command line: the arguments as the program gets them from the OS
//! (`cli::args_from_os`), `cli::parse_legacy` into a `RawCli`, then `Config::from_raw`, every
//! check a run makes before it starts a process.
//!
//! Input: the arguments, separated by NUL bytes (as in `/proc/PID/cmdline`), any bytes. Checks:
//! no panic; errors have a message.
#![no_main]

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use gomoku_cli::cli::{args_from_os, parse_legacy};
use gomoku_cli::config::Config;
use gomoku_cli::config::env::Env;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let args = data
        .split(|&b| b == 0)
        .map(|a| OsString::from_vec(a.to_vec()));
    let raw = match args_from_os(args).and_then(|args| parse_legacy(&args)) {
        Ok(raw) => raw,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    // An empty environment: what a run reads of it (SLURM variables, PATH) is not the input here.
    match Config::from_raw(&raw, &Env::default()) {
        Ok(config) => {
            let _ = config.outputs.journal.as_ref().map(|j| j.path());
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
