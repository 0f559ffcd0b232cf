//! `gomoku-cli samples`: check what a training sample file (`-sample`) holds.

use std::path::PathBuf;

use crate::formats::samples::{samples_stats_command, SampleFormat};

use crate::commands::{failed, say, CommandError, CommandResult, Outcome};

/// The `samples` subcommands.
#[derive(Debug)]
pub struct SamplesArgs {
    pub command: SamplesTool,
}

#[derive(Debug)]
pub enum SamplesTool {
    /// Counts, evaluations and multi-PV groups, result distribution, board sizes, rules and a
    /// histogram of stones per sample.
    Stats {
        /// The sample file.
        file: PathBuf,
        /// csv, bin, bin_lz4, binpack or binpack_lz4 (default: from the extension .csv / .bin /
        /// .lz4 / .binpack / .binpack.lz4).
        format: Option<String>,
    },
}

/// Run a `samples` subcommand.
pub fn run(args: SamplesArgs) -> CommandResult {
    match args.command {
        SamplesTool::Stats { file, format } => {
            let format = format
                .as_deref()
                .map(str::parse::<SampleFormat>)
                .transpose()
                .map_err(|e| CommandError::Usage(format!("--format: {e}")))?;
            let report = samples_stats_command(&file, format).map_err(failed)?;
            // A damaged file: the statistics of its complete part and the damage on stdout, the
            // damage again as the error, exit 1.
            say(&report.text);
            match report.damage {
                None => Ok(Outcome::Done),
                Some(e) => Err(CommandError::Failed(format!(
                    "{}: damaged: {e}",
                    file.display()
                ))),
            }
        }
    }
}
