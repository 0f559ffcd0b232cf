//! `gomoku-cli check -engine cmd=COMMAND [...]`: the legacy-style command line → an engine spec,
//! board sizes and rules → `gomoku_cli::check::run_check` → the table, a line per item as it is
//! decided (or `--json` at the end); exit code 1 when any item fails, 130 when a signal stopped
//! it (what was checked by then printed).

use std::io::IsTerminal;

use gomoku_cli::board::BoardSize;
use gomoku_cli::check::{run_check, CheckOptions, CheckReport};
use gomoku_cli::cli;
use gomoku_cli::rules::Rule;
use gomoku_cli::runner::Stops;

use super::{block_on, one_engine_config, say, CommandError, CommandResult, Outcome};

pub const USAGE: &str = "\
usage: gomoku-cli check -engine cmd=COMMAND [ENGINE OPTIONS] [-rule R,...] [-boardsize N,...]
                        [-startuptimeout S] [--json]
Runs the engine through short scripted sessions and prints one line per item (pass, warn, fail,
skip); exit code 1 when any item fails, the closing line naming those the Gomocup judge acts on.
Every game is played under the first -rule. Engine options as for a match (maxmemory=, option.K=...;
tc= is replaced by the check's 5s/120s and 1s/20s). -boardsize defaults to 15,20, -rule to 0.";

/// Run the check from the arguments after `check`.
pub fn run(args: &[String]) -> CommandResult {
    let usage = |why: String| CommandError::Usage(format!("{why}\n{USAGE}"));
    let mut rest = Vec::new();
    let mut json = false;
    let mut sizes = None;
    let mut rules = None;
    let mut startup = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| usage(format!("{name} needs a value")))
        };
        match a.as_str() {
            "--json" | "-json" => json = true,
            "-boardsize" | "--boardsize" => sizes = Some(value("-boardsize")?),
            "-rule" | "--rule" => rules = Some(value("-rule")?),
            "-startuptimeout" | "--startuptimeout" => startup = Some(value("-startuptimeout")?),
            "-h" | "--help" | "-help" => {
                say(&format!("{USAGE}\n"));
                return Ok(Outcome::Done);
            }
            _ => rest.push(a.clone()),
        }
    }
    let raw = cli::parse_legacy(&rest).map_err(|e| usage(e.to_string()))?;
    let config = one_engine_config(&raw, "check", usage)?;
    let spec = config.tournament.engines[0].clone();

    let folder = std::env::temp_dir().join(format!("gomoku-cli-check-{}", std::process::id()));
    let mut opts = CheckOptions::new(spec, folder.clone());
    if let Some(v) = sizes {
        opts.sizes = list(&v, "-boardsize", |t| {
            let n: u32 = t.parse().map_err(|_| "expected a number".to_string())?;
            BoardSize::new(n).map_err(|e| e.to_string())
        })?;
    }
    if let Some(v) = rules {
        opts.rules = list(&v, "-rule", |t| {
            let n: i64 = t.parse().map_err(|_| "expected a rule code".to_string())?;
            Rule::from_code(n).map_err(|e| e.to_string())
        })?;
    }
    if let Some(v) = startup {
        let secs: f64 = v
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s < 1e6)
            .ok_or_else(|| {
                CommandError::Failed(format!(
                    "-startuptimeout {v:?}: expected seconds, more than 0"
                ))
            })?;
        opts.startup = std::time::Duration::from_secs_f64(secs);
    }

    // Each item is printed as it is decided: the table's lines on standard output, or with
    // --json (one document, at the end) on standard error when a terminal reads it.
    let heading = CheckReport::heading(&opts.spec.cmd);
    opts.on_item = match (json, std::io::stderr().is_terminal()) {
        (false, _) => {
            say(&heading);
            Some(|item| say(&item.line()))
        }
        (true, true) => {
            eprint!("{heading}");
            Some(|item| eprint!("{}", item.line()))
        }
        (true, false) => None,
    };
    let report = block_on(async {
        let stops = Stops::default();
        super::signals::watch(&stops, "stopping the check, killing the engine");
        run_check(opts, stops.abort.clone()).await
    })?;
    let _ = std::fs::remove_dir_all(&folder);
    if json {
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| CommandError::Failed(format!("cannot write the report: {e}")))?;
        say(&format!("{text}\n"));
    } else {
        say(&report.counts());
    }
    if report.interrupted {
        return Ok(Outcome::Interrupted);
    }
    // Any failure fails the command; the message names those the judge acts on.
    match report.verdict() {
        None => Ok(Outcome::Done),
        Some(verdict) => Err(CommandError::Failed(verdict)),
    }
}

/// A comma-separated list of values, each checked by `parse`.
fn list<T>(
    text: &str,
    option: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<T>, CommandError> {
    let items: Result<Vec<T>, CommandError> = text
        .split(',')
        .map(|t| {
            parse(t.trim()).map_err(|why| CommandError::Failed(format!("{option} {t:?}: {why}")))
        })
        .collect();
    let items = items?;
    if items.is_empty() {
        return Err(CommandError::Failed(format!("{option}: empty list")));
    }
    Ok(items)
}
