//! The HTML report of a run: `model` turns journal entries into the figures and rows the page
//! shows, `charts` draws them as SVG, `page` renders the self-contained HTML file. Pure: the
//! `report` command and the runner's `-report` read the journals and write the file.
//!
//! ```text
//! journal entries ──> ReportBuilder::add ──> Report ──> page::render ──> HTML text
//! ```

pub mod charts;
pub mod escape;
pub mod figures;
pub mod format_section;
pub mod league;
pub mod model;
pub mod openings;
pub mod page;
pub mod ratings;
pub mod tune;
pub mod tune_section;

pub use model::{Report, ReportBuilder, ReportError, RunState};
pub use page::PageOptions;

use crate::formats::journal::{JournalEntry, JournalHeader, JournalSet};
use crate::stats::SprtCrossing;

/// The page of a run from its headers and its entries in the order they finished; `crossing` is
/// the run's recorded verdict when there is one (a sharded run's stop marker).
pub fn build(
    headers: &[JournalHeader],
    entries: impl IntoIterator<Item = JournalEntry>,
    crossing: Option<SprtCrossing>,
    state: RunState,
    opts: &PageOptions,
) -> Result<(Report, String), ReportError> {
    let mut b = ReportBuilder::new(headers)?;
    for e in entries {
        b.add(&e)?;
    }
    if let Some(c) = crossing {
        b.set_crossing(c);
    }
    let r = b.finish(state);
    let page = html(&r, opts)?;
    Ok((r, page))
}

/// The page of the journals `set` reads, streaming (one game line at a time beside the report's
/// own figures). A read error fails it as the reader words it; a game the report cannot use fails
/// it named after `files`, the journals read.
pub fn build_from(
    set: &mut JournalSet<JournalEntry>,
    files: &str,
    crossing: Option<SprtCrossing>,
    state: RunState,
    opts: &PageOptions,
) -> Result<(Report, String), String> {
    let headers = set.headers.clone();
    let built = build(&headers, set.by_ref(), crossing, state, opts);
    if let Some(e) = set.error.take() {
        return Err(e);
    }
    built.map_err(|e| format!("{files}: {e}"))
}

/// The page of a report.
pub fn html(report: &Report, opts: &PageOptions) -> Result<String, ReportError> {
    page::render(report, opts).map_err(|e| ReportError::Render(e.to_string()))
}
