//! A subcommand's command line read against the table of options, and the usage error that names
//! the command and its synopsis: shared by the dispatch of the small subcommands
//! (`commands::args`) and the commands that read their own options (`check`, `tune`,
//! `openings generate`).

use crate::cli::parse::{parse, Parsed};
use crate::cli::table::Command;

use crate::commands::CommandError;

/// A usage error: `why`, then the command's synopsis.
pub fn usage_error(command: Command, why: impl std::fmt::Display) -> CommandError {
    let why = why.to_string();
    let help = crate::cli::help::help_command(command);
    let more = match why.contains(&help) {
        true => String::new(),
        false => format!(" (more: {help})"),
    };
    CommandError::Usage(format!(
        "{why}\nusage: {} {}{more}",
        command.title(),
        command.synopsis()
    ))
}

/// Read `args` (after the command's words) as `command`'s command line.
pub fn parsed(command: Command, args: &[String]) -> Result<Parsed, CommandError> {
    parse(command, args).map_err(|e| usage_error(command, e))
}

/// `key=value` settings back in their written form (`RecordArgs` and tune's options hold them so).
pub fn written(p: &Parsed, name: &str) -> Option<Vec<String>> {
    p.settings(name)
        .map(|kvs| kvs.into_iter().map(|(k, v)| format!("{k}={v}")).collect())
}
