//! The `gomoku-cli` binary: parse the command line, dispatch to a command (`commands`), and map
//! its outcome to an exit code.
//!
//! Exit codes are decided here and only here (documented in docs/reference/exit-codes.md):
//! 0 run completed (or SPRT accepted H1); 1 error in the input or an output file; 2 command-line
//! usage error; 3 SPRT accepted H0; 4 stopped by `-fatalerror` after an engine failure; 5 stopped because an output could not be
//! written (full disk); 130 interrupted (Ctrl-C / SIGTERM).

use std::process::ExitCode;

use gomoku_cli::cli::table::Command;
use gomoku_cli::commands::{say, CommandError, CommandResult, Outcome};

/// Exit codes, in one place.
mod exit {
    pub const OK: u8 = 0;
    pub const ERROR: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const SPRT_H0: u8 = 3;
    pub const ENGINE_FAILURE: u8 = 4;
    pub const WRITE_FAILED: u8 = 5;
    pub const INTERRUPTED: u8 = 130;
}

/// The words that start a group of subcommands (`lib stats`, `lib dump`, ...).
const GROUPS: [&str; 4] = ["samples", "lib", "openings", "engines"];

fn main() -> ExitCode {
    let args = match gomoku_cli::cli::args_from_os(std::env::args_os().skip(1)) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    // `COMMAND --help` anywhere on a command's line: its help, from the table of options.
    if let Some((command, words)) = Command::of_words(&args) {
        let help = |a: &String| matches!(a.as_str(), "-h" | "-help" | "--help");
        if args[words..].iter().any(help) {
            say(&gomoku_cli::cli::help::command_help(command));
            return ExitCode::from(exit::OK);
        }
    }
    let result = match args.first().map(String::as_str) {
        None => return help_exit(exit::USAGE),
        Some("-h" | "--help" | "-help") => return help_exit(exit::OK),
        Some("help") => return help_on(&args[1..]),
        Some("-V" | "--version" | "-version") => {
            say(&format!("gomoku-cli {}\n", env!("CARGO_PKG_VERSION")));
            return ExitCode::from(exit::OK);
        }
        Some(first) => match Command::of_words(&args) {
            Some((Command::Check, n)) => gomoku_cli::commands::check::run(&args[n..]),
            Some((Command::Tune, n)) => gomoku_cli::commands::tune::run(&args[n..]),
            Some((command, n)) => gomoku_cli::commands::args::run(command, &args[n..]),
            None if GROUPS.contains(&first) => {
                let commands: Vec<String> = Command::ALL
                    .into_iter()
                    .filter(|c| c.words().first() == Some(&first))
                    .map(|c| c.words()[1].to_string())
                    .collect();
                Err(CommandError::Usage(format!(
                    "{first}: give one of {} (gomoku-cli help {first})",
                    commands.join(", ")
                )))
            }
            None => gomoku_cli::commands::run::run(&args),
        },
    };
    if let Err(e) = &result {
        eprintln!("error: {e}");
    }
    ExitCode::from(exit_code(&result))
}

/// The exit code of a command's result.
fn exit_code(result: &CommandResult) -> u8 {
    match result {
        Ok(Outcome::Done) => exit::OK,
        Ok(Outcome::SprtH0) => exit::SPRT_H0,
        Ok(Outcome::EngineFailure) => exit::ENGINE_FAILURE,
        Ok(Outcome::Interrupted) => exit::INTERRUPTED,
        Ok(Outcome::OutputFailed) => exit::WRITE_FAILED,
        Ok(Outcome::Unpairable) => exit::ERROR,
        Err(CommandError::Usage(_)) => exit::USAGE,
        Err(CommandError::Failed(_)) => exit::ERROR,
    }
}

/// Print the main help (from the table of options) and exit with `code`.
fn help_exit(code: u8) -> ExitCode {
    say(&gomoku_cli::cli::help::main_help());
    ExitCode::from(code)
}

/// `gomoku-cli help [COMMAND...]`: the main help, a command's own (`help lib merge`; `help lib`:
/// those of every `lib` command), or the man page (`help --man`), all from the table of options.
fn help_on(topic: &[String]) -> ExitCode {
    use gomoku_cli::cli::help;
    if topic.is_empty() {
        return help_exit(exit::OK);
    }
    if topic.len() == 1 && topic[0].trim_start_matches('-') == "man" {
        say(&help::man_page());
        return ExitCode::from(exit::OK);
    }
    let matching: Vec<Command> = Command::ALL
        .into_iter()
        .filter(|c| !c.words().is_empty())
        .filter(|c| {
            topic.len() <= c.words().len() && topic.iter().zip(c.words()).all(|(t, w)| t == w)
        })
        .collect();
    if matching.is_empty() {
        eprintln!(
            "error: no help on {:?}: the commands are check, tune, judge, sprt, samples, export, merge, lib, report and openings \
             (`gomoku-cli --help` for the match runner, `gomoku-cli help --man` for everything)",
            topic.join(" ")
        );
        return ExitCode::from(exit::USAGE);
    }
    let texts: Vec<String> = matching.into_iter().map(help::command_help).collect();
    say(&texts.join("\n"));
    ExitCode::from(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_are_the_documented_ones() {
        let code = |r: CommandResult| exit_code(&r);
        assert_eq!(code(Ok(Outcome::Done)), 0);
        assert_eq!(code(Err(CommandError::Failed("x".into()))), 1);
        assert_eq!(code(Err(CommandError::Usage("x".into()))), 2);
        assert_eq!(code(Ok(Outcome::SprtH0)), 3);
        assert_eq!(code(Ok(Outcome::EngineFailure)), 4);
        assert_eq!(code(Ok(Outcome::Interrupted)), 130);
        assert_eq!(code(Ok(Outcome::OutputFailed)), 5);
    }
}
