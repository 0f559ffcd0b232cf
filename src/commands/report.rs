//! `gomoku-cli report`: the HTML report of a run from its journals (one file, or the shards'
//! journals of one run), written atomically.

use crate::analysis::report::{self, PageOptions, RunState};
use crate::commands::{failed, say, CommandError, CommandResult, Outcome};
use crate::formats::journal::JournalEntry;

/// The report's flags.
#[derive(Debug)]
pub struct ReportArgs {
    /// Journal files (`-journal`) or run directories of one run (its shards' journals).
    pub journals: Vec<std::path::PathBuf>,
    /// The HTML file to write (replaced atomically: a browser reloading it never sees half a file).
    pub output: std::path::PathBuf,
    /// Read a journal whose header no longer gives its fingerprint (its settings were edited),
    /// with a warning naming it, instead of refusing it.
    pub force: bool,
}

/// Build the report and write it.
pub fn run(a: ReportArgs) -> CommandResult {
    crate::commands::check_roles(&a.journals, &[("-o", Some(&a.output))])?;
    let check = crate::formats::journal::HeaderCheck::forced(a.force);
    let mut set = crate::commands::JournalSet::<JournalEntry>::open_checked(&a.journals, check)
        .map_err(failed)?;
    let files = crate::commands::journal_files(&a.journals).map_err(failed)?;
    let where_ = || {
        files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let crossing = crate::commands::stop_marker(&a.journals).map(|m| m.crossing());
    let opts = PageOptions {
        built: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    };
    let built = report::build_from(&mut set, &where_(), crossing, RunState::Ended, &opts);
    crate::commands::warn_all(&set.warnings);
    let (r, page) = built.map_err(failed)?;
    let games = r.games.len();
    crate::outputs::prepare_parent(&a.output).map_err(failed)?;
    crate::formats::atomic_file::write_atomic(&a.output, |w| w.write_all(page.as_bytes()))
        .map_err(|e| CommandError::Failed(format!("cannot write {}: {e}", a.output.display())))?;
    say(&format!(
        "{}: {games} games, {} KiB ({})\n",
        a.output.display(),
        page.len().div_ceil(1024),
        r.status
    ));
    Ok(Outcome::Done)
}
