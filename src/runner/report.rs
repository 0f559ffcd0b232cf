//! `-report FILE`: the run's HTML report, rebuilt from the run's own journal (the source of
//! truth, flushed after every game) on a thread of its own, so a large report never holds up the
//! games, and replaced atomically so a browser reloading it never sees half a file. Requests
//! that pile up while a page is being built are merged into one.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;

use crate::record::journal::{Item, JournalEntry, JournalHeader, Stream};
use crate::report::{self, PageOptions, RunState};

use super::RunError;

/// The report writer of a run.
pub struct LiveReport {
    tx: Option<mpsc::Sender<RunState>>,
    thread: Option<JoinHandle<()>>,
}

/// Build the report of `journal` and write it to `out`.
pub fn write(journal: &Path, out: &Path, state: RunState) -> Result<(), String> {
    let file = std::fs::File::open(journal).map_err(|e| format!("{}: {e}", journal.display()))?;
    let mut headers: Vec<JournalHeader> = Vec::new();
    let mut entries: Vec<JournalEntry> = Vec::new();
    let stream = Stream::<_, JournalEntry>::new(
        std::io::BufReader::new(file),
        journal.display().to_string(),
    );
    for item in stream {
        match item.map_err(|e| e.to_string())? {
            Item::Header(h) => headers.push(*h),
            Item::Entry(e) => entries.push(*e),
            // The line being written as we read: the next rebuild has it.
            Item::Torn(_) => {}
        }
    }
    let opts = PageOptions {
        built: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    };
    let (_, page) = report::build(&headers, entries, None, state, &opts)
        .map_err(|e| format!("{}: {e}", journal.display()))?;
    crate::atomic_file::write_atomic(out, |w| w.write_all(page.as_bytes()))
        .map_err(|e| format!("cannot write {}: {e}", out.display()))
}

impl LiveReport {
    /// Write the first report (no games yet) now, so a path that cannot be used stops the run
    /// before its first game, then start the writer thread.
    pub fn start(journal: PathBuf, out: PathBuf) -> Result<LiveReport, RunError> {
        super::outputs::prepare_parent(&out)?;
        write(&journal, &out, RunState::Running).map_err(RunError::Report)?;
        let (tx, rx) = mpsc::channel::<RunState>();
        let thread = std::thread::Builder::new()
            .name("report".into())
            .spawn(move || {
                let mut last_error = None;
                while let Ok(mut state) = rx.recv() {
                    // Everything asked meanwhile is one rebuild; the run's end wins.
                    for s in rx.try_iter() {
                        if s == RunState::Ended {
                            state = s;
                        }
                    }
                    if let Err(e) = write(&journal, &out, state) {
                        if last_error.as_ref() != Some(&e) {
                            eprintln!("warning: -report: {e}");
                        }
                        last_error = Some(e);
                    }
                }
            })
            .map_err(|e| RunError::Report(format!("cannot start the report writer: {e}")))?;
        Ok(LiveReport {
            tx: Some(tx),
            thread: Some(thread),
        })
    }

    /// Ask for a rebuild (returns at once).
    pub fn refresh(&self) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(RunState::Running);
        }
    }

    /// The final report: built and written before this returns.
    pub fn finish(mut self) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(RunState::Ended);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
