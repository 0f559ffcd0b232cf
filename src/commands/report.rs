//! `gomoku-cli report`: the HTML report of a run from its journals (one file, or the shards'
//! journals of one run), written atomically.

use super::{failed, say, CommandError, CommandResult, Outcome};
use gomoku_cli::journal::JournalEntry;
use gomoku_cli::report::{self, PageOptions, RunState};

/// The report's flags.
#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// Journal files (`-journal`) or run directories of one run (its shards' journals).
    #[arg(required = true)]
    journals: Vec<std::path::PathBuf>,
    /// The HTML file to write (replaced atomically: a browser reloading it never sees half a file).
    #[arg(short = 'o', long = "output", default_value = "report.html")]
    output: std::path::PathBuf,
    /// Read a journal whose header no longer gives its fingerprint (its settings were edited),
    /// with a warning naming it, instead of refusing it.
    #[arg(long)]
    force: bool,
}

/// Build the report and write it.
pub fn run(a: ReportArgs) -> CommandResult {
    super::check_roles(&a.journals, &[("-o", Some(&a.output))])?;
    let check = gomoku_cli::journal::HeaderCheck::forced(a.force);
    let mut set =
        super::JournalSet::<JournalEntry>::open_checked(&a.journals, check).map_err(failed)?;
    let files = super::journal_files(&a.journals).map_err(failed)?;
    let where_ = || {
        files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let crossing = super::stop_marker(&a.journals).map(|m| m.crossing());
    let opts = PageOptions {
        built: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    };
    let built = report::build_from(&mut set, &where_(), crossing, RunState::Ended, &opts);
    super::warn_all(&set.warnings);
    let (r, page) = built.map_err(failed)?;
    let games = r.games.len();
    gomoku_cli::outputs::prepare_parent(&a.output).map_err(failed)?;
    gomoku_cli::atomic_file::write_atomic(&a.output, |w| w.write_all(page.as_bytes()))
        .map_err(|e| CommandError::Failed(format!("cannot write {}: {e}", a.output.display())))?;
    say(&format!(
        "{}: {games} games, {} KiB ({})\n",
        a.output.display(),
        page.len().div_ceil(1024),
        r.status
    ));
    Ok(Outcome::Done)
}
