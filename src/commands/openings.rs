//! `gomoku-cli openings`: an opening file rewritten in canonical form without duplicates under
//! the 8 symmetries (`canonical`), and a run's games audited per opening (`audit`).

use std::path::PathBuf;

use gomoku_cli::board::BoardSize;
use gomoku_cli::journal::JournalEntry;
use gomoku_cli::opening::{OpeningBook, OpeningFormat};
use gomoku_cli::openings_audit::{canonical_openings, to_text, AuditGame, Auditor};
use gomoku_cli::rules::Rule;

use super::{say, CommandError, CommandResult, Outcome};

/// The `openings` subcommands.
#[derive(clap::Args, Debug)]
pub struct OpeningsArgs {
    #[command(subcommand)]
    pub command: OpeningsTool,
}

#[derive(clap::Subcommand, Debug)]
pub enum OpeningsTool {
    /// Rewrite an opening file with every opening in canonical form under the 8 symmetries,
    /// duplicates removed (first occurrence's order kept); a summary on standard error.
    Canonical {
        /// The opening file, then `type=offset|pos` as -openings reads it (default offset).
        #[arg(required = true, num_args = 1..=2, value_name = "FILE [type=T]")]
        file: Vec<String>,
        /// Where to write (replaced atomically; may be FILE). Default: standard output.
        #[arg(short = 'o', long = "output", value_name = "OUT")]
        out: Option<PathBuf>,
        /// Board size the openings are for.
        #[arg(long, default_value_t = 15)]
        boardsize: u32,
        /// Rule the openings are checked under (0, 1, 4, 8, 9).
        #[arg(long, default_value_t = 0)]
        rule: i64,
        /// Also write each unique opening's count: `COUNT<TAB>LINE<TAB>OPENING`, one a line.
        #[arg(long, value_name = "FILE")]
        counts: Option<PathBuf>,
    },
    /// Per opening (canonical under the 8 symmetries): games, black's score, colour-reversed
    /// pairs, length and endings, openings decided by colour flagged.
    Audit {
        /// Journal files (`-journal`) or run directories (a cluster run's shards).
        #[arg(required = true)]
        journals: Vec<PathBuf>,
        /// One JSON object instead of the text table.
        #[arg(long)]
        json: bool,
    },
}

/// Run an `openings` subcommand.
pub fn run(args: OpeningsArgs) -> CommandResult {
    match args.command {
        OpeningsTool::Canonical {
            file,
            out,
            boardsize,
            rule,
            counts,
        } => canonical(&file, out, boardsize, rule, counts),
        OpeningsTool::Audit { journals, json } => audit(&journals, json),
    }
}

/// The format of `type=T` (offset or pos: a `.psq` record is one opening, nothing to dedupe).
fn format_of(spec: Option<&String>) -> Result<OpeningFormat, CommandError> {
    let Some(spec) = spec else {
        return Ok(OpeningFormat::Offset);
    };
    let value = spec.strip_prefix("type=").ok_or_else(|| {
        CommandError::Usage(format!("{spec:?}: expected type=offset or type=pos"))
    })?;
    match value.parse::<OpeningFormat>() {
        Ok(f @ (OpeningFormat::Offset | OpeningFormat::Pos)) => Ok(f),
        Ok(_) => Err(CommandError::Usage(
            "type=psq: a .psq record is one opening; use offset or pos".into(),
        )),
        Err(e) => Err(CommandError::Usage(format!("{spec}: {e}"))),
    }
}

/// `openings canonical`.
fn canonical(
    file: &[String],
    out: Option<PathBuf>,
    boardsize: u32,
    rule: i64,
    counts: Option<PathBuf>,
) -> CommandResult {
    let usage = |e: String| CommandError::Usage(e);
    let format = format_of(file.get(1))?;
    let size = BoardSize::new(boardsize).map_err(|e| usage(format!("--boardsize: {e}")))?;
    let rule = Rule::from_code(rule).map_err(|e| usage(format!("--rule: {e}")))?;
    let book = OpeningBook::load(&file[0], format, size, rule)
        .map_err(|e| CommandError::Failed(e.to_string()))?;
    let unique = canonical_openings(&book.openings, size);
    let mut text = String::new();
    let mut tally = String::new();
    for u in &unique {
        let line = u
            .opening
            .to_line(format, size)
            .map_err(|e| CommandError::Failed(e.to_string()))?;
        tally.push_str(&format!("{}\t{}\t{line}\n", u.count, u.opening.line));
        text.push_str(&line);
        text.push('\n');
    }
    match &out {
        Some(path) => write_file(path, &text)?,
        None => say(&text),
    }
    if let Some(path) = &counts {
        write_file(path, &tally)?;
    }
    let read = book.openings.len();
    eprintln!(
        "{}: read {read}, unique {}, duplicates removed {}",
        file[0],
        unique.len(),
        read - unique.len()
    );
    Ok(Outcome::Done)
}

/// Write `text` to `path`, replacing it atomically.
fn write_file(path: &std::path::Path, text: &str) -> Result<(), CommandError> {
    gomoku_cli::outputs::prepare_parent(path).map_err(|e| CommandError::Failed(e.to_string()))?;
    gomoku_cli::atomic_file::write_atomic(path, |w| w.write_all(text.as_bytes()))
        .map_err(|e| CommandError::Failed(format!("cannot write {}: {e}", path.display())))
}

/// `openings audit`: the journals read through `JournalSet` (directories stand for their
/// journals), every game counted once.
fn audit(journals: &[PathBuf], json: bool) -> CommandResult {
    let failed = CommandError::Failed;
    let mut set = super::JournalSet::<JournalEntry>::open(journals).map_err(failed)?;
    // A game line that reads but cannot be used names the game; the files say where it is.
    let files = super::journal_files(journals).map_err(failed)?;
    let named = |e: String| {
        let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        CommandError::Failed(format!("{}: {e}", files.join(", ")))
    };
    let mut auditor = Auditor::default();
    for e in set.by_ref() {
        let game = AuditGame::from_entry(&e).map_err(|e| named(e.to_string()))?;
        auditor.add(&game).map_err(|e| named(e.to_string()))?;
    }
    super::warn_all(&set.warnings);
    if let Some(e) = set.error {
        return Err(failed(e));
    }
    let audit = auditor.finish();
    if audit.games == 0 {
        return Err(failed("the journals hold no games".into()));
    }
    if json {
        let j = serde_json::to_string(&audit).map_err(|e| failed(e.to_string()))?;
        say(&format!("{j}\n"));
    } else {
        say(&to_text(&audit));
    }
    Ok(Outcome::Done)
}
