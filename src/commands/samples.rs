//! `gomoku-cli samples`: check what a training sample file (`-sample`) holds.

use std::path::PathBuf;

use gomoku_cli::record::samples::{samples_stats_command, SampleFormat};

use super::{say, CommandError, CommandResult, Outcome};

/// The `samples` subcommands.
#[derive(clap::Args, Debug)]
pub struct SamplesArgs {
    #[command(subcommand)]
    pub command: SamplesTool,
}

#[derive(clap::Subcommand, Debug)]
pub enum SamplesTool {
    /// Counts, result distribution, board sizes, rules and a histogram of stones per sample.
    Stats {
        /// The sample file.
        file: PathBuf,
        /// csv, bin or bin_lz4 (default: from the extension .csv / .bin / .lz4).
        #[arg(long)]
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
            let text = samples_stats_command(&file, format)
                .map_err(|e| CommandError::Failed(e.to_string()))?;
            say(&text);
            Ok(Outcome::Done)
        }
    }
}
