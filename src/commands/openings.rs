//! `gomoku-cli openings`: an opening file rewritten in canonical form without duplicates under
//! the 8 symmetries (`canonical`), a run's games audited per opening (`audit`), and balanced
//! openings generated with an engine (`generate`, the match runner's single-dash options).

pub mod generate;

use std::path::PathBuf;

use crate::analysis::openings_audit::{canonical_openings, to_text, AuditGame, Auditor};
use crate::core::board::BoardSize;
use crate::core::rules::Rule;
use crate::formats::journal::JournalEntry;
use crate::formats::openings::{OpeningBook, OpeningFormat};

use crate::commands::{block_on, failed, one_engine, say, CommandError, CommandResult, Outcome};

/// The `openings` subcommands.
#[derive(Debug)]
pub struct OpeningsArgs {
    pub command: OpeningsTool,
}

#[derive(Debug)]
pub enum OpeningsTool {
    /// Rewrite an opening file with every opening in canonical form under the 8 symmetries,
    /// duplicates removed (first occurrence's order kept); a summary on standard error.
    Canonical {
        /// The opening file, then `type=offset|pos` as -openings reads it (default offset).
        file: Vec<String>,
        /// Where to write (replaced atomically; may be FILE). Default: standard output.
        out: Option<PathBuf>,
        /// Board size the openings are for.
        boardsize: u32,
        /// Rule the openings are checked under (0, 1, 4, 8, 9).
        rule: i64,
        /// Also write each unique opening's count: `COUNT<TAB>LINE<TAB>OPENING`, one a line.
        counts: Option<PathBuf>,
    },
    /// Per opening (canonical under the 8 symmetries): games, black's score, colour-reversed
    /// pairs, length and endings, openings decided by colour flagged.
    Audit {
        /// Journal files (`-journal`) or run directories (a cluster run's shards).
        journals: Vec<PathBuf>,
        /// One JSON object instead of the text table.
        json: bool,
        /// Read a journal whose header no longer gives its fingerprint (its settings were edited),
        /// with a warning naming it, instead of refusing it.
        force: bool,
    },
    /// Random openings near the centre, each searched by an engine at a fixed depth or node
    /// count, kept when the evaluation is within ±E (all options: `gomoku-cli openings generate -h`).
    Generate {
        /// -engine OPTIONS -count N -o FILE and the other options, as `check` takes them.
        args: Vec<String>,
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
        OpeningsTool::Audit {
            journals,
            json,
            force,
        } => audit(&journals, json, force),
        OpeningsTool::Generate { args } => generate(&args),
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
    // FILE is read whole before `-o` replaces it, so `-o FILE` rewrites it in place; the counts
    // go to a file of their own.
    crate::commands::check_roles(
        &[],
        &[("-o", out.as_deref()), ("--counts", counts.as_deref())],
    )?;
    if let Some(c) = &counts {
        crate::commands::check_roles(&[PathBuf::from(&file[0])], &[("--counts", Some(c))])?;
    }
    let book = OpeningBook::load(&file[0], format, size, rule).map_err(failed)?;
    let unique = canonical_openings(&book.openings, size);
    let mut text = String::new();
    let mut tally = String::new();
    for u in &unique {
        let line = u.opening.to_line(format, size).map_err(failed)?;
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
    crate::outputs::prepare_parent(path).map_err(failed)?;
    crate::formats::atomic_file::write_atomic(path, |w| w.write_all(text.as_bytes()))
        .map_err(|e| CommandError::Failed(format!("cannot write {}: {e}", path.display())))
}

/// The file and line of game `game`'s line among `files` (sought only to name a bad line).
fn line_of(files: &[PathBuf], game: u64) -> Option<(&PathBuf, usize)> {
    files.iter().find_map(|f| {
        let text = std::fs::read_to_string(f).ok()?;
        let at = text.lines().position(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .is_ok_and(|v| v.get("game").and_then(|g| g.as_u64()) == Some(game))
        })?;
        Some((f, at + 1))
    })
}

/// `openings audit`: the journals read through `JournalSet` (directories stand for their
/// journals), every game counted once.
fn audit(journals: &[PathBuf], json: bool, force: bool) -> CommandResult {
    let check = crate::formats::journal::HeaderCheck::forced(force);
    let mut set = crate::commands::JournalSet::<JournalEntry>::open_checked(journals, check)
        .map_err(failed)?;
    // A game line that reads but cannot be used names the game; the files say where it is.
    let files = crate::commands::journal_files(journals).map_err(failed)?;
    let named = |e: String| {
        let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        CommandError::Failed(format!("{}: {e}", files.join(", ")))
    };
    let mut auditor = Auditor::default();
    for e in set.by_ref() {
        let game = AuditGame::from_entry(&e).map_err(|err| match line_of(&files, e.game) {
            Some((file, line)) => failed(format!("{}:{line}: {err}", file.display())),
            None => named(err.to_string()),
        })?;
        auditor.add(&game).map_err(|e| named(e.to_string()))?;
    }
    crate::commands::warn_all(&set.warnings);
    if let Some(e) = set.error {
        return Err(failed(e));
    }
    let audit = auditor.finish();
    if audit.games == 0 {
        return Err(failed("the journals hold no games"));
    }
    if json {
        let j = serde_json::to_string(&audit).map_err(|e| failed(e.to_string()))?;
        say(&format!("{j}\n"));
    } else {
        say(&to_text(&audit));
    }
    Ok(Outcome::Done)
}

/// A whole number option within `range`.
fn number<T: std::str::FromStr + PartialOrd + std::fmt::Display>(
    option: &str,
    text: Option<&str>,
    default: T,
    range: std::ops::RangeInclusive<T>,
) -> Result<T, CommandError> {
    let Some(text) = text else {
        return Ok(default);
    };
    crate::core::numbers::whole_number(text, range)
        .map_err(|e| CommandError::Usage(format!("{option} {text:?}: expected {e}")))
}

/// `openings generate`: the options checked (the engine's by `config::OneEngine`, as `check`
/// does), then the generation on a tokio runtime.
fn generate(args: &[String]) -> CommandResult {
    use crate::commands::openings::generate::run::{generate, summary, GenerateOptions};
    use crate::commands::openings::generate::{shard_target, CandidateSettings, StoneRange};

    let command = crate::cli::table::Command::OpeningsGenerate;
    let p = crate::commands::usage::parsed(command, args)?;
    let usage = |why: String| crate::commands::usage::usage_error(command, why);
    // The engine and the match options it shares (-rule, -boardsize, -concurrency, -shard,
    // -startuptimeout) are read as the match runner reads them.
    let raw = crate::cli::raw_of(&p);
    let one = one_engine(&raw, "generate", usage)?;
    let spec = one.spec.clone();
    if spec.depth.is_none()
        && spec.nodes.is_none()
        && spec.tc == crate::engine::TimeControl::UNLIMITED
    {
        return Err(usage(
            "-engine: give depth=, nodes= or tc=: an evaluation needs a bounded search".into(),
        ));
    }
    let count = p
        .value("-count")
        .ok_or_else(|| usage("-count N is required".into()))?;
    let count = number("-count", Some(count), 0u64, 1..=10_000_000)?;
    let output = p
        .value("-o")
        .map(PathBuf::from)
        .ok_or_else(|| usage("-o FILE is required".into()))?;
    let stones =
        StoneRange::parse(p.value("-stones").unwrap_or("3-5")).map_err(|e| usage(e.to_string()))?;
    let size = one.size;
    let area = number("-area", p.value("-area"), 3u8, 0..=size.get() / 2)?;
    let settings = CandidateSettings {
        size,
        rule: one.rule,
        stones,
        area,
        seed: number("-srand", p.value("-srand"), 1u64, 0..=u64::MAX)?,
    };
    settings.check().map_err(|e| usage(e.to_string()))?;
    let format = match p.value("-format").unwrap_or("offset") {
        "offset" => OpeningFormat::Offset,
        "pos" if size.get() <= 26 => OpeningFormat::Pos,
        "pos" => return Err(usage(format!("-format pos: only up to 26x26, not {size}"))),
        other => return Err(usage(format!("-format {other:?}: expected pos or offset"))),
    };
    let shard = one.shard;
    let output = match shard {
        Some(s) => s.output_name(&output),
        None => output,
    };
    let opts = GenerateOptions {
        settings,
        spec,
        startup: one.startup_timeout,
        count: shard_target(count, shard),
        balance: number("-balance", p.value("-balance"), 100u32, 0..=1_000_000)?,
        format,
        concurrency: one.concurrency,
        shard,
        output,
    };
    let report = block_on(async {
        let stops = crate::runner::Stops::default();
        crate::commands::signals::watch(
            &stops,
            "ending the engines, writing the openings kept so far (Ctrl-C again to kill them now)",
        );
        // Wine's server and services, which outlive a package's engine by seconds, end with it.
        let wine = crate::engine::leftovers::WineAdopter::for_engines([&opts.spec]);
        let report = generate(opts.clone(), &stops).await;
        wine.end().await;
        report
    })?
    .map_err(failed)?;
    eprintln!("{}", summary(&report, opts.count, &opts.output));
    if report.interrupted {
        return Ok(Outcome::Interrupted);
    }
    if report.exhausted {
        eprintln!(
            "warning: {} candidates in a row were refused: the settings give no more openings",
            crate::commands::openings::generate::REFUSED_RUN_MAX
        );
    }
    // What was made is kept, but a short set is not what was asked for: the exit says so.
    if (report.written as u64) < opts.count {
        return Err(failed(format!(
            "{}: only {} of the {} openings asked for (-count)",
            opts.output.display(),
            report.written,
            opts.count
        )));
    }
    Ok(Outcome::Done)
}
