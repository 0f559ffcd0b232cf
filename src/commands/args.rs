//! The subcommands' typed arguments filled from their command line as the table of options
//! (`crate::cli::table`) reads it: one parser for every command, so every option is spelled,
//! takes its value and is listed in the help the same way. Values are checked here into the types
//! each command's `*Args` holds; a bad one is a usage error naming the option.

use std::path::PathBuf;
use std::str::FromStr;

use crate::cli::parse::Parsed;
use crate::cli::table::Command;

use crate::commands::export::{ExportArgs, RecordArgs};
use crate::commands::judge::{JudgeArgs, Side};
use crate::commands::lib::{LibArgs, LibTool, NotationArg};
use crate::commands::merge::MergeArgs;
use crate::commands::openings::{OpeningsArgs, OpeningsTool};
use crate::commands::ratings::RatingsArgs;
use crate::commands::report::ReportArgs;
use crate::commands::samples::{SamplesArgs, SamplesTool};
use crate::commands::sprt::SprtArgs;
use crate::commands::usage::{parsed, usage_error, written};
use crate::commands::CommandResult;

/// Run the subcommand `command` (not the match runner, `check` or `tune`, which read their own
/// options from the same table) with the arguments after its words.
pub fn run(command: Command, args: &[String]) -> CommandResult {
    let p = parsed(command, args)?;
    let bad = |e: String| usage_error(command, e);
    match command {
        Command::Judge => crate::commands::judge::run(judge(&p).map_err(bad)?),
        Command::Sprt => crate::commands::sprt::run(sprt(&p).map_err(bad)?),
        Command::SamplesStats => crate::commands::samples::run(SamplesArgs {
            command: SamplesTool::Stats {
                file: one_path(&p, "FILE"),
                format: p.value("--format").map(String::from),
            },
        }),
        Command::Export => crate::commands::export::run(ExportArgs {
            journals: paths(&p, "JOURNAL"),
            to: records(&p),
            force: p.flag("--force"),
        }),
        Command::Merge => crate::commands::merge::run(MergeArgs {
            journals: paths(&p, "RUNDIR|JOURNAL"),
            json: p.flag("--json"),
            export: records(&p),
            force: p.flag("--force"),
        }),
        Command::Ratings => crate::commands::ratings::run(ratings(&p).map_err(bad)?),
        Command::LibStats => crate::commands::lib::run(LibArgs {
            command: LibTool::Stats {
                file: one_path(&p, "FILE"),
                json: p.flag("--json"),
            },
        }),
        Command::LibDump => crate::commands::lib::run(LibArgs {
            command: LibTool::Dump {
                file: one_path(&p, "FILE"),
                paths: p.flag("--paths"),
                notation: notation(&p).map_err(bad)?,
                encoding: encoding(&p),
            },
        }),
        Command::LibMerge => crate::commands::lib::run(LibArgs {
            command: LibTool::Merge {
                out: p
                    .value("-o")
                    .map(PathBuf::from)
                    .ok_or_else(|| bad("-o OUT.lib is required".into()))?,
                into: p.value("--into").map(PathBuf::from),
                stats: p.flag("--stats"),
                encoding: encoding(&p),
                inputs: paths(&p, "INPUTS"),
                force: p.flag("--force"),
            },
        }),
        Command::Report => crate::commands::report::run(ReportArgs {
            journals: paths(&p, "RUNDIR|JOURNAL"),
            output: PathBuf::from(p.value("-o").unwrap_or("report.html")),
            force: p.flag("--force"),
        }),
        Command::OpeningsCanonical => crate::commands::openings::run(OpeningsArgs {
            command: OpeningsTool::Canonical {
                file: p.positionals("FILE [type=T]"),
                out: p.value("-o").map(PathBuf::from),
                boardsize: number(&p, "--boardsize", 15).map_err(bad)?,
                rule: number(&p, "--rule", 0).map_err(bad)?,
                counts: p.value("--counts").map(PathBuf::from),
            },
        }),
        Command::OpeningsAudit => crate::commands::openings::run(OpeningsArgs {
            command: OpeningsTool::Audit {
                journals: paths(&p, "RUNDIR|JOURNAL"),
                json: p.flag("--json"),
                force: p.flag("--force"),
            },
        }),
        Command::OpeningsGenerate => crate::commands::openings::run(OpeningsArgs {
            command: OpeningsTool::Generate {
                args: args.to_vec(),
            },
        }),
        Command::EnginesList | Command::EnginesAdd | Command::EnginesCheck => {
            crate::commands::engines::run(command, &p)
        }
        Command::Run | Command::Check | Command::Tune => {
            unreachable!("{command:?} reads its own options")
        }
    }
}

/// The value of option `name` as a `T`, or `default`.
fn number<T: FromStr>(p: &Parsed, name: &str, default: T) -> Result<T, String> {
    match p.value(name) {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("{name} {v:?}: expected a number")),
    }
}

/// The value of option `name` as a number, if given.
fn maybe_number<T: FromStr>(p: &Parsed, name: &str) -> Result<Option<T>, String> {
    p.value(name)
        .map(|v| {
            v.trim()
                .parse()
                .map_err(|_| format!("{name} {v:?}: expected a number"))
        })
        .transpose()
}

fn paths(p: &Parsed, name: &str) -> Vec<PathBuf> {
    p.positionals(name).into_iter().map(PathBuf::from).collect()
}

/// The one positional `name` (the parser has checked there is exactly one).
fn one_path(p: &Parsed, name: &str) -> PathBuf {
    paths(p, name).into_iter().next().unwrap_or_default()
}

fn encoding(p: &Parsed) -> String {
    p.value("--encoding").unwrap_or("windows-1252").to_string()
}

fn records(p: &Parsed) -> RecordArgs {
    RecordArgs {
        pgn: p.value("-pgn").map(PathBuf::from),
        sgf: p.value("-sgf").map(PathBuf::from),
        msg: p.value("-msg").map(PathBuf::from),
        psq: p.value("-psq").map(PathBuf::from),
        sample: written(p, "-sample"),
        records: written(p, "-records"),
    }
}

fn judge(p: &Parsed) -> Result<JudgeArgs, String> {
    let to_move = match p.value("--to-move") {
        None => None,
        Some("black") => Some(Side::Black),
        Some("white") => Some(Side::White),
        Some(v) => return Err(format!("--to-move {v:?}: expected black or white")),
    };
    Ok(JudgeArgs {
        rule: number(p, "--rule", 4)?,
        boardsize: number(p, "--boardsize", 15)?,
        to_move,
        strict: p.flag("--strict"),
        files: paths(p, "FILE"),
    })
}

fn sprt(p: &Parsed) -> Result<SprtArgs, String> {
    if p.value("--ptnml").is_some() && p.value("--wld").is_some() {
        return Err("--ptnml and --wld: give one of them".into());
    }
    Ok(SprtArgs {
        ptnml: p.value("--ptnml").map(String::from),
        wld: p.value("--wld").map(String::from),
        elo0: maybe_number(p, "--elo0")?,
        elo1: maybe_number(p, "--elo1")?,
        alpha: maybe_number(p, "--alpha")?,
        beta: maybe_number(p, "--beta")?,
        model: p.value("--model").map(String::from),
        json: p.flag("--json"),
        journals: paths(p, "JOURNAL"),
        force: p.flag("--force"),
    })
}

/// A fixed parameter, or `estimate`; `None` when not given.
fn parameter(p: &Parsed, name: &str) -> Result<Option<crate::stats::ratings::Parameter>, String> {
    use crate::stats::ratings::Parameter;
    match p.value(name).map(str::trim) {
        None => Ok(None),
        Some("estimate") => Ok(Some(Parameter::Estimate)),
        Some(v) => match v.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Some(Parameter::Fixed(x))),
            _ => Err(format!(
                "{name} {v:?}: expected a number of Elo or estimate"
            )),
        },
    }
}

/// A share: `10%` or `0.1`, from 0 to 1.
fn share(p: &Parsed, name: &str) -> Result<Option<f64>, String> {
    let Some(v) = p.value(name) else {
        return Ok(None);
    };
    let t = v.trim();
    let x = match t.strip_suffix('%') {
        Some(pc) => pc.trim().parse::<f64>().map(|x| x / 100.0),
        None => t.parse::<f64>(),
    };
    match x {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(Some(x)),
        _ => Err(format!(
            "{name} {v:?}: expected a share from 0 to 1, or a percentage (10%)"
        )),
    }
}

fn ratings(p: &Parsed) -> Result<RatingsArgs, String> {
    use crate::commands::ratings::GOMOCUP;
    use crate::stats::ratings::{FitSettings, Parameter};
    let gomocup = p.flag("--gomocup");
    let preset = |fixed: f64, default: Parameter| match gomocup {
        true => Parameter::Fixed(fixed),
        false => default,
    };
    let mut fit = FitSettings::default();
    let (advantage, drawelo, offset, max_faults) = GOMOCUP;
    fit.advantage = parameter(p, "--advantage")?.unwrap_or(preset(advantage, fit.advantage));
    fit.drawelo = parameter(p, "--drawelo")?.unwrap_or(preset(drawelo, fit.drawelo));
    let default_offset = if gomocup { offset } else { fit.offset };
    fit.offset = number(p, "--offset", default_offset)?;
    fit.prior = number(p, "--prior", fit.prior)?;
    if !(fit.prior.is_finite() && fit.prior >= 0.0 && fit.offset.is_finite()) {
        return Err("--prior and --offset: expected finite numbers, the prior 0 or more".into());
    }
    if let Some(c) = share(p, "--confidence")? {
        if !(c > 0.0 && c < 1.0) {
            return Err(format!(
                "--confidence {c}: expected a level between 0 and 1"
            ));
        }
        fit.confidence = c;
    }
    fit.los = p.flag("--los");
    fit.bayeselo_grid = gomocup || p.flag("--bayeselo-grid");
    Ok(RatingsArgs {
        inputs: paths(p, "INPUT"),
        fit,
        min_games: number(p, "--min-games", 1)?,
        max_faults: share(p, "--max-faults")?.or(gomocup.then_some(max_faults)),
        json: p.flag("--json"),
        force: p.flag("--force"),
    })
}

fn notation(p: &Parsed) -> Result<NotationArg, String> {
    match p.value("--notation") {
        None | Some("renju") => Ok(NotationArg::Renju),
        Some("pos") => Ok(NotationArg::Pos),
        Some(v) => Err(format!("--notation {v:?}: expected renju or pos")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_runners_spellings_and_clap_style_values_are_one_option() {
        let p = parsed(Command::Export, &words("run.jsonl -pgn a.pgn --sgf=b.sgf")).unwrap();
        let r = records(&p);
        assert_eq!(r.pgn, Some(PathBuf::from("a.pgn")));
        assert_eq!(r.sgf, Some(PathBuf::from("b.sgf")));
        // A settings list ends at a word that is no setting: the journals that follow.
        let line = "--sample freq=1 format=bin run.jsonl -records evals=off r2.jsonl";
        let p = parsed(Command::Merge, &words(line)).unwrap();
        assert_eq!(records(&p).sample, Some(words("freq=1 format=bin")));
        assert_eq!(paths(&p, "RUNDIR|JOURNAL").len(), 2);
    }

    #[test]
    fn values_are_checked_naming_the_option() {
        let p = parsed(Command::Judge, &words("--to-move up")).unwrap();
        assert!(judge(&p).unwrap_err().contains("--to-move"));
        let p = parsed(Command::Judge, &words("--rule x")).unwrap();
        assert!(judge(&p).unwrap_err().contains("--rule \"x\""));
        let p = parsed(Command::Sprt, &words("--elo0 -5 --wld 1,2,3")).unwrap();
        assert_eq!(sprt(&p).unwrap().elo0, Some(-5.0));
        let p = parsed(Command::Sprt, &words("--ptnml 1,2,3,4,5 --wld 1,2,3")).unwrap();
        assert!(sprt(&p).is_err());
        let e = parsed(Command::LibMerge, &words("-o x.lib")).unwrap_err();
        assert!(
            e.to_string().contains("INPUTS: expected at least 1, got 0"),
            "{e}"
        );
        // ratings: Gomocup's preset, an option given beside it winning; shares and levels.
        use crate::stats::ratings::Parameter;
        let p = parsed(
            Command::Ratings,
            &words("a.pgn --gomocup --advantage estimate"),
        )
        .unwrap();
        let r = ratings(&p).unwrap();
        assert_eq!(r.fit.advantage, Parameter::Estimate);
        assert_eq!(r.fit.drawelo, Parameter::Fixed(0.01));
        assert_eq!((r.fit.offset, r.max_faults), (1600.0, Some(0.10)));
        let p = parsed(
            Command::Ratings,
            &words("a.pgn --max-faults 0.25 --confidence 90%"),
        )
        .unwrap();
        let r = ratings(&p).unwrap();
        assert_eq!((r.max_faults, r.fit.confidence), (Some(0.25), 0.9));
        assert_eq!(r.fit.advantage, Parameter::Estimate);
        for bad in [
            "--max-faults 120%",
            "--confidence 1",
            "--drawelo x",
            "--prior -1",
        ] {
            let p = parsed(Command::Ratings, &words(&format!("a.pgn {bad}"))).unwrap();
            let e = ratings(&p).unwrap_err();
            assert!(e.contains(bad.split(' ').next().unwrap()), "{bad}: {e}");
        }
        let e = parsed(Command::Report, &words("run.jsonl --bogus")).unwrap_err();
        assert!(e.to_string().contains("gomoku-cli help report"), "{e}");
    }
}
