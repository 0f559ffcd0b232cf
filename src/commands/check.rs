//! `gomoku-cli check -engine cmd=COMMAND [...]`: the legacy-style command line → an engine spec,
//! board sizes and rules → `crate::commands::check::script::run_check` → the table, a line per item as it is
//! decided (or `--json` at the end); exit code 1 when any item fails, 130 when a signal stopped
//! it (what was checked by then printed).

pub mod boards;
pub mod launch;
pub mod report;
pub mod script;
pub mod verdicts;

use std::io::IsTerminal;

use crate::cli;
use crate::cli::table::Command;
use crate::commands::check::report::CheckReport;
use crate::commands::check::script::{run_check, CheckOptions};
use crate::core::board::BoardSize;
use crate::core::rules::Rule;
use crate::runner::Stops;

use crate::commands::{block_on, one_engine, say, CommandError, CommandResult, Outcome};

/// Run the check from the arguments after `check` (its options: `crate::cli::table`).
pub fn run(args: &[String]) -> CommandResult {
    let p = crate::commands::usage::parsed(Command::Check, args)?;
    let usage = |why: String| crate::commands::usage::usage_error(Command::Check, why);
    let json = p.flag("--json");
    let sizes = p.value("-boardsize").map(String::from);
    let rules = p.value("-rule").map(String::from);
    let startup = p.value("-startuptimeout").map(String::from);
    let raw = cli::raw_of(&p);
    let spec = one_engine(&raw, "check", usage)?.spec;

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
    let heading = CheckReport::heading(&opts.spec.label());
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
        crate::commands::signals::watch(&stops, "stopping the check, killing the engine");
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
