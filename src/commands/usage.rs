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

/// Read `args` (after the command's words) as `command`'s command line, with the options of
/// its `-config FILE` (`config::run_file`) where it takes one. `-config save` is the match
/// runner's and `tune`'s (`commands::run`, `commands::tune`).
pub fn parsed(command: Command, args: &[String]) -> Result<Parsed, CommandError> {
    let loaded = with_config_file(command, args)?;
    if loaded.save.is_some() {
        let why = "-config save: only the match runner and tune save a run's options (gomoku-cli -engine ... -config save FILE)";
        return Err(usage_error(command, why));
    }
    parse(command, &loaded.args).map_err(|e| usage_error(command, e))
}

/// `args` with `-config` taken out and its file's options merged in: a usage error for the
/// command line's `-config`, an input error for the file's.
pub fn with_config_file(
    command: Command,
    args: &[String],
) -> Result<crate::config::run_file::ConfigArgs, CommandError> {
    crate::config::run_file::load(command, args).map_err(|e| match e.is_usage() {
        true => usage_error(command, e),
        false => CommandError::Failed(e.to_string()),
    })
}

/// `key=value` settings back in their written form (`RecordArgs` and tune's options hold them so).
pub fn written(p: &Parsed, name: &str) -> Option<Vec<String>> {
    p.settings(name)
        .map(|kvs| kvs.into_iter().map(|(k, v)| format!("{k}={v}")).collect())
}
