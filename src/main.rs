//! The `gomoku-cli` binary: parse the command line, dispatch to a command (`commands`), and map
//! its outcome to an exit code.
//!
//! Exit codes are decided here and only here (documented in README.md):
//! 0 run completed (or SPRT accepted H1); 1 error in the input or an output file; 2 command-line
//! usage error; 3 SPRT accepted H0; 4 stopped by `-fatalerror` after an engine failure; 5 stopped because an output could not be
//! written (full disk); 130 interrupted (Ctrl-C / SIGTERM).

mod commands;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use commands::{say, CommandError, CommandResult, Outcome};

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

#[derive(Parser, Debug)]
#[command(
    name = "gomoku-cli",
    version,
    about = "Tools of gomoku-cli (the match runner takes c-gomoku-cli's options: run `gomoku-cli --help`)"
)]
struct Tools {
    #[command(subcommand)]
    command: Tool,
}

#[derive(Subcommand, Debug)]
enum Tool {
    /// Judge positions: one per input line (pos-notation moves or SIZE:ROW/ROW/...), one JSON object per line out.
    Judge(commands::judge::JudgeArgs),
    /// SPRT and Elo calculator: from pentanomial or W/L/D counts, or from journal files of a run.
    Sprt(commands::sprt::SprtArgs),
    /// Training sample files (-sample): check what a file holds.
    Samples(commands::samples::SamplesArgs),
    /// Rebuild a run's PGN, SGF, messages, .psq records or samples from its journals (the same bytes).
    Export(commands::export::ExportArgs),
    /// Combined results of a run's journals (the shards of one run): as one unsharded run prints them.
    Merge(commands::merge::MergeArgs),
    /// RenLib .lib archives: statistics, dump, and merging games and libraries into one.
    Lib(commands::lib::LibArgs),
    /// The HTML report of a run (charts, standings, game list and viewer) from its journals.
    Report(commands::report::ReportArgs),
    /// Opening files in canonical form without symmetric duplicates; a run's games per opening.
    Openings(commands::openings::OpeningsArgs),
}

/// The subcommands `Tools` parses; anything else is the match runner's command line.
const SUBCOMMANDS: [&str; 8] = [
    "judge", "sprt", "samples", "export", "merge", "lib", "report", "openings",
];

fn main() -> ExitCode {
    let args = match gomoku_cli::cli::args_from_os(std::env::args_os().skip(1)) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    // `COMMAND --help` anywhere on a command's line: its help, from the table of options.
    if let Some((command, words)) = gomoku_cli::cli::table::Command::of_words(&args) {
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
        // `check` takes the match runner's single-dash engine options, so it is parsed there.
        Some("check") => commands::check::run(&args[1..]),
        // `tune` takes a match's options, so it is parsed as the match runner's command line.
        Some("tune") => commands::tune::run(&args[1..]),
        Some(first) if SUBCOMMANDS.contains(&first) => match parse_tools(&args) {
            Ok(Tool::Judge(a)) => commands::judge::run(a),
            Ok(Tool::Sprt(a)) => commands::sprt::run(a),
            Ok(Tool::Samples(a)) => commands::samples::run(a),
            Ok(Tool::Export(a)) => commands::export::run(a),
            Ok(Tool::Merge(a)) => commands::merge::run(a),
            Ok(Tool::Lib(a)) => commands::lib::run(a),
            Ok(Tool::Report(a)) => commands::report::run(a),
            Ok(Tool::Openings(a)) => commands::openings::run(a),
            Err(code) => return code,
        },
        _ => commands::run::run(&args),
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
    use gomoku_cli::cli::{help, table::Command};
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

/// Parse a subcommand's command line (without the program name); clap prints its own errors and
/// help, and the exit code is returned for them.
fn parse_tools(args: &[String]) -> Result<Tool, ExitCode> {
    let args = commands::export::normalize(args);
    let argv = std::iter::once("gomoku-cli").chain(args.iter().map(String::as_str));
    match Tools::try_parse_from(argv) {
        Ok(t) => Ok(t.command),
        Err(e) => {
            let _ = e.print();
            Err(ExitCode::from(if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            }))
        }
    }
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

    #[test]
    fn every_subcommand_is_known_to_the_dispatcher() {
        use clap::CommandFactory;
        let mut names: Vec<String> = Tools::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        names.sort();
        let mut known: Vec<String> = SUBCOMMANDS.iter().map(|s| s.to_string()).collect();
        known.sort();
        assert_eq!(names, known);
    }
}
