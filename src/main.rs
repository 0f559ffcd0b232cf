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

const HELP: &str = "\
gomoku-cli — tournament runner for gomoku/renju engines speaking the Gomocup (pbrain) protocol

USAGE:
  gomoku-cli [-each OPTIONS] -engine OPTIONS -engine OPTIONS ... [options]
  gomoku-cli check -engine OPTIONS [-rule R,...] [-boardsize N,...] [--json]
                                what the Gomocup judge will see of an engine: pass/warn/fail items
  gomoku-cli tune -engine OPTIONS -params FILE -iterations N [-pairs P] [-spsa ...] [match options]
                                SPSA tuning of the engine's parameters (θ+ against θ−)
  gomoku-cli judge [--rule R] [--boardsize N] [--to-move black|white] [--strict] [FILE...]
  gomoku-cli sprt (--ptnml a,b,c,d,e | --wld W,L,D | JOURNAL...) [--elo0 E] [--elo1 E] [--json]
  gomoku-cli samples stats FILE [--format csv|bin|bin_lz4|binpack|binpack_lz4]
  gomoku-cli export JOURNAL... [-pgn F] [-sgf F] [-msg F] [-psq DIR] [-sample freq=F format=F file=F]
  gomoku-cli merge RUNDIR|JOURNAL... [--json] [-pgn F] [-sgf F] [-msg F] [-psq DIR] [-sample ...]
  gomoku-cli lib stats FILE [--json]
  gomoku-cli lib dump FILE [--paths] [--notation renju|pos] [--encoding E]
  gomoku-cli lib merge -o OUT.lib [--into EXISTING.lib] [--stats] [--encoding E] INPUTS...
                                RenLib archives; INPUTS: journals, SGF, .psq, pos game lists, .lib
  gomoku-cli report RUNDIR|JOURNAL... [-o report.html]
                                HTML report: charts, standings, game list and viewer
  gomoku-cli openings canonical FILE [type=offset|pos] [-o OUT] [--boardsize N] [--rule R] [--counts F]
                                openings in canonical form, duplicates under the 8 symmetries removed
  gomoku-cli openings audit RUNDIR|JOURNAL... [--json]
                                per opening: games, black's score, pairs, length, endings
  gomoku-cli openings generate -engine OPTIONS -count N -o FILE [-stones MIN-MAX] [-area R] [-balance E] ...
                                balanced openings: random candidates kept when the engine's eval is within ±E
  gomoku-cli help SUBCOMMAND    the options of judge, sprt, samples, export, merge, lib, report or openings

ENGINE OPTIONS (after -engine or -each; a per-engine value wins over -each):
  cmd=COMMAND        command to run; with a '/', it runs in that directory
  name=NAME          name (default: from ABOUT)
  tc=M[/T][+I]       match time / turn time / increment in seconds (tc=60: both 60; tc=0/5: turn only)
  depth=N nodes=N    INFO max_depth / max_node
  maxmemory=BYTES    INFO max_memory (default 367001600 = 350 MiB); enforced with a tolerance
                     of a tenth (at least 32 MiB): over it the engine loses (memory_limit)
  thread=N           INFO thread_num
  tolerance=S        seconds an engine may run over its limit (default 3)
  option.K=V         sent as INFO K V

RUN OPTIONS:
  -concurrency N     games at once (default 1)
  -games N           games per pair per round (default 1)
  -rounds N          rounds (default 1)
  -gauntlet          first engine against each other (default: round robin)
  -repeat            each opening twice, colours reversed
  -loseonly          with -gauntlet, save only games the first engine loses
  -openings file=F [type=offset|pos|psq] [moves=N] [order=sequential|random] [srand=N]
                     type=psq: one Piskvork .psq record, its first N stones (default all)
  -transform         after each pass through the openings, the next of the 8 symmetries
  -swap2, -swap1     the engines choose each opening with SWAP2BOARD (the engine scheduled
                     black proposes; with -openings, each opening is its 3 stones)
  -rule R            0 freestyle, 1 exact five, 4 renju, 8 caro, 9 standard caro (default 0)
  -boardsize N       5..32 (default 15)
  -drawafter N       draw when N stones stand on the board (opening included)
  -draw [movenumber=N] movecount=M score=S  (or -draw M S) draw when from move N on both
                     engines' evals stay within S of zero for M moves of each
  -resign movecount=M score=S [twosided=true] [mate=K]  (or -resign M S) an engine loses when
                     its eval stays at or below -S for M own moves (twosided: the other's at
                     or above +S too), or when it reports a proven loss on K own moves
  -sendbyboard       send the whole position with BOARD before every move
  -startuptimeout S  seconds an engine has to answer START (default 10)
  -fatalerror        stop the run when an engine crashes, hangs or fails to start
  -log               protocol logs gomoku-cli.<slot>.log (in -logdir DIR, default .)
  -debug             like -log
  -journal FILE      header + one JSON line per finished game (default: a timestamped file;
                     off = none); a FILE that already holds games is refused
  -resume            continue the run of the journal (-journal FILE, or the newest matching
                     timestamped one): same settings, finished games skipped
  -renlib FILE       merge every finished 15x15 game into a RenLib .lib library
  -report FILE       HTML report of the run, rewritten every -ratinginterval games and at the end
  -sprt [elo0=E0] elo1=E1 [alpha=A] [beta=B] [model=normalized|logistic|gsprt]
                     stop when the SPRT decides (two engines)
  -ratinginterval N  results block every N games (default 10; 0 = at the end only)
  -pgn FILE -sgf FILE -msg FILE   game records
  -psq DIR           one Piskvork .psq record per game: DIR/game-000012.psq
  -sample [freq=F] [format=csv|bin|bin_lz4|binpack|binpack_lz4] [file=F]   training samples
  -suspend           stop (SIGSTOP) the engine not on move; continue it before its next command
  -cpus LIST         pin each game slot's engines to its share of LIST (0-7, 0,2,4,6)
  -quiet             no per-game lines (reports and the progress bar stay)
  -noprogress        no progress bar
  -verbose           the runner's diagnostics on stderr (or RUST_LOG=gomoku_cli=debug)
  -draw C S, -resign C S  accepted for compatibility; no effect (pbrain engines report no score)

EXIT CODES: 0 done (or SPRT H1), 1 error, 2 usage error, 3 SPRT H0, 4 stopped by -fatalerror,
130 interrupted.
";

fn main() -> ExitCode {
    let args = match gomoku_cli::cli::args_from_os(std::env::args_os().skip(1)) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
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

/// Print the main help and exit with `code`.
fn help_exit(code: u8) -> ExitCode {
    say(HELP);
    ExitCode::from(code)
}

/// `gomoku-cli help [SUBCOMMAND...]`: the main help, or a subcommand's own.
fn help_on(topic: &[String]) -> ExitCode {
    match topic.first().map(String::as_str) {
        None => help_exit(exit::OK),
        Some("check") => {
            say(&format!("{}\n", commands::check::USAGE));
            ExitCode::from(exit::OK)
        }
        Some("tune") => {
            say(&format!("{}\n", commands::tune::USAGE));
            ExitCode::from(exit::OK)
        }
        // clap's `help` subcommand prints what `SUBCOMMAND --help` prints (and takes
        // `help samples stats` too); its "error" is the help text, exit code 0.
        Some(first) if SUBCOMMANDS.contains(&first) => {
            let mut args = vec!["help".to_string()];
            args.extend_from_slice(topic);
            match parse_tools(&args) {
                Ok(_) => ExitCode::from(exit::OK),
                Err(code) => code,
            }
        }
        Some(other) => {
            eprintln!(
                "error: no help on {other:?}: the subcommands are check, tune, judge, sprt, samples, export, merge, lib, report and openings \
                 (`gomoku-cli --help` for the match runner)"
            );
            ExitCode::from(exit::USAGE)
        }
    }
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
