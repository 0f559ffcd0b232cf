//! `gomoku-cli merge DIR|JOURNAL... [--json]`: the combined results of a run's journals (the
//! shards of one run, or one journal), exactly as one unsharded run prints them: the results
//! block with the SPRT's first crossing, or standings and crosstable.

use std::path::PathBuf;

use serde::Serialize;

use crate::commands::{failed, say, CommandError, CommandResult, Outcome};
use crate::stats::{crosstable, sprt_calculator, standings_table, SprtCalculation, StandingRow};

/// The `merge` arguments.
#[derive(Debug)]
pub struct MergeArgs {
    /// Run directories (every `*.journal.jsonl` in them) or journal files of one run.
    pub journals: Vec<PathBuf>,
    /// Print one JSON object: the fields of `gomoku-cli sprt --json` (two engines with -sprt),
    /// plus games, scheduled, shards and standings.
    pub json: bool,
    /// The merged records, in game order (as `gomoku-cli export`): -pgn F, -sgf F, -msg F,
    /// -psq DIR, -sample freq=F format=F file=F.
    pub export: crate::commands::export::RecordArgs,
    /// Read a journal whose header no longer gives its fingerprint (its settings were edited),
    /// with a warning naming it, instead of refusing it.
    pub force: bool,
}

/// What `--json` adds to the SPRT calculator's fields.
#[derive(Serialize)]
struct Merged {
    /// Games in the journals (each counted once). With `-repeat` this also counts a pair still
    /// missing its second game, which the calculator's `pairs` leaves out.
    games: u64,
    /// Games in the run's whole schedule.
    scheduled: Option<u64>,
    /// The shards whose journals were read, `K/N`.
    shards: Vec<String>,
    standings: Vec<StandingRow>,
}

/// The `--json` object: the calculator's fields, then the merge's, one key each. A key in both
/// (`games`) is the merge's: strict JSON readers refuse an object that repeats a key, which
/// flattening the two structs with serde would write.
fn merged_json(sprt: Option<SprtCalculation>, merged: Merged) -> serde_json::Result<String> {
    let mut object = match sprt {
        Some(c) => match serde_json::to_value(c)? {
            serde_json::Value::Object(m) => m,
            _ => serde_json::Map::new(),
        },
        None => serde_json::Map::new(),
    };
    if let serde_json::Value::Object(m) = serde_json::to_value(merged)? {
        object.extend(m);
    }
    serde_json::to_string(&object)
}

/// Run the merge.
pub fn run(mut a: MergeArgs) -> CommandResult {
    let check = crate::formats::journal::HeaderCheck::forced(a.force);
    let sprt = crate::commands::run_sprt(&a.journals, check)?;
    let (replay, headers) =
        crate::commands::replay(&a.journals, sprt, check).map_err(CommandError::Failed)?;
    let header = headers.first();
    let t = &replay.tracker;
    if a.export.any() {
        let to = std::mem::take(&mut a.export);
        let (written, journal_only) = crate::commands::export::write(&a.journals, to, check)?;
        // On stderr: standard output is the results (or the JSON object).
        eprint!(
            "{}",
            crate::commands::export::summary(written, journal_only)
        );
    }
    let mut shards: Vec<String> = headers
        .iter()
        .filter_map(|h| h.settings.shard.map(|s| s.to_string()))
        .collect();
    shards.sort();
    let scheduled = header.map(|h| h.settings.total_games);
    let two = t.pairs().len() == 1;
    if a.json {
        let calc = match (two, sprt) {
            (true, Some(s)) => Some(sprt_calculator(t.counts(0), &s).with_crossing(t.crossing())),
            _ => None,
        };
        let merged = Merged {
            games: t.games(),
            scheduled,
            shards,
            standings: t.tally().standings(),
        };
        let text = merged_json(calc, merged).map_err(failed)?;
        say(&format!("{text}\n"));
        return Ok(Outcome::Done);
    }
    let mut out = format!(
        "Merged {} games{}{}\n\n",
        t.games(),
        scheduled
            .map(|n| format!(" of {n} scheduled"))
            .unwrap_or_default(),
        if shards.is_empty() {
            String::new()
        } else {
            format!(" from shards {}", shards.join(", "))
        }
    );
    if two {
        out.push_str(
            &t.results_block(0, &header.map(|h| h.settings.context()).unwrap_or_default()),
        );
    } else {
        out.push_str(&format!(
            "{}\n{}{}",
            standings_table(t.tally()),
            crosstable(t.tally()),
            t.rating_block().unwrap_or_default()
        ));
    }
    say(&out);
    Ok(Outcome::Done)
}
