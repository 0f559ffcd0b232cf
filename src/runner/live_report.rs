//! `-report FILE`: the run's HTML report, rebuilt from the run's own journal (the source of
//! truth, flushed after every game) on a thread of its own, so a large report never holds up the
//! games, and replaced atomically so a browser reloading it never sees half a file. Requests
//! that pile up while a page is being built are merged into one.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;

use crate::analysis::report::{self, PageOptions, RunState};
use crate::formats::journal::{JournalEntry, JournalSet};

use crate::runner::console::Console;
use crate::runner::RunError;
use crate::tournament::events::ConsoleEvent;

/// The report writer of a run.
pub struct LiveReport {
    tx: Option<mpsc::Sender<RunState>>,
    thread: Option<JoinHandle<()>>,
}

/// Build the report of `journal` and write it to `out`.
pub fn write(journal: &Path, out: &Path, state: RunState) -> Result<(), String> {
    // The whole journal at each rebuild, not a tail kept in memory: between rebuilds the runner
    // holds no game lines (see `release_memory`); a line being written is the next rebuild's.
    let mut set = JournalSet::<JournalEntry>::open(&[journal.to_path_buf()])?;
    let opts = PageOptions {
        built: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    };
    let name = journal.display().to_string();
    let (_, page) = report::build_from(&mut set, &name, None, state, &opts)?;
    crate::formats::atomic_file::write_atomic(out, |w| w.write_all(page.as_bytes()))
        .map_err(|e| format!("cannot write {}: {e}", out.display()))
}

/// A rebuild may take this share of the writer's time at most: after one that took `d`, the next
/// waits `d × (1/share − 1)`, so a report of a very long run never takes a core from the engines.
/// The final report is never held back.
const MAX_SHARE: u32 = 10;

/// The writer thread: rebuilds on request, merging requests that come while it builds or waits;
/// a failed rebuild is a warning on `console` (once until it changes).
fn writer(rx: &mpsc::Receiver<RunState>, journal: &Path, out: &Path, console: &Console) {
    use std::sync::mpsc::RecvTimeoutError;
    use std::time::Instant;
    let mut last_error = None;
    let mut pending: Option<RunState> = None;
    let mut not_before = Instant::now();
    let mut open = true;
    while open || pending.is_some() {
        let wait = not_before.saturating_duration_since(Instant::now());
        let got = match pending {
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(_) => rx.recv_timeout(wait),
        };
        match got {
            Ok(s) => {
                // The run's end wins over any rebuild asked before it.
                if pending != Some(RunState::Ended) {
                    pending = Some(s);
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => open = false,
        }
        let Some(state) = pending else { continue };
        let due = state == RunState::Ended || !open || Instant::now() >= not_before;
        if !due {
            continue;
        }
        pending = None;
        let start = Instant::now();
        if let Err(e) = write(journal, out, state) {
            if last_error.as_ref() != Some(&e) {
                console.show(ConsoleEvent::Warning(format!("-report: {e}")));
            }
            last_error = Some(e);
        }
        release_memory();
        let took = start.elapsed();
        not_before = Instant::now() + took * (MAX_SHARE - 1);
        if state == RunState::Ended {
            return;
        }
    }
}

/// A page holds every game, so a rebuild takes memory in proportion to the run (about 4 KiB a
/// game) and frees it again; glibc keeps freed memory for reuse, and its mmap threshold rises
/// with each large buffer freed, so the game list and the page ended up in the heap for good: the
/// runner's resident memory climbed with every rebuild (`bench/soak.sh`, 10,000 games: a median
/// of 12 MiB in the second quarter, 28 MiB in the last). A fixed threshold keeps large buffers
/// in their own mappings, returned when freed, and a trim after each rebuild returns the rest:
/// 9 MiB throughout.
fn map_large_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: sets an allocator parameter; called before the writer thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
    }
}

/// Give what a rebuild freed back to the system (see [`map_large_buffers`]).
fn release_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of the allocator's arenas to the kernel.
    unsafe {
        libc::malloc_trim(0);
    }
}

impl LiveReport {
    /// Write the first report (no games yet) now, so a path that cannot be used stops the run
    /// before its first game, then start the writer thread.
    pub fn start(journal: PathBuf, out: PathBuf, console: Console) -> Result<LiveReport, RunError> {
        map_large_buffers();
        crate::outputs::prepare_parent(&out)?;
        write(&journal, &out, RunState::Running).map_err(RunError::Report)?;
        let (tx, rx) = mpsc::channel::<RunState>();
        let thread = std::thread::Builder::new()
            .name("report".into())
            .spawn(move || writer(&rx, &journal, &out, &console))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::report::model::tests::{entry, header};
    use crate::formats::journal::{render_entry, render_header};

    #[test]
    fn the_first_page_comes_before_any_game_and_finish_waits_for_the_last() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("j.jsonl");
        let h = header(&["a", "b"], false, false, 0);
        std::fs::write(&journal, render_header(&h)).unwrap();
        let out = dir.path().join("sub/r.html");
        let console = Console::new(crate::runner::console::Verbosity::Quiet, false, 8);
        let live = LiveReport::start(journal.clone(), out.clone(), console).unwrap();
        let first = std::fs::read_to_string(&out).unwrap();
        assert!(first.contains("data-state=\"running\"") && first.contains("running: 0 of 8"));
        let mut text = render_header(&h);
        for n in 1..=3 {
            text.push_str(&render_entry(&entry(n, 0, "1-0", "five")));
            std::fs::write(&journal, &text).unwrap();
            live.refresh();
        }
        live.finish();
        let last = std::fs::read_to_string(&out).unwrap();
        assert!(last.contains("data-state=\"ended\""));
        assert!(last.contains("stopped early: 3 of 8 games"));
    }

    #[test]
    fn a_journal_that_cannot_be_read_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let err = write(
            &dir.path().join("none.jsonl"),
            &dir.path().join("r.html"),
            RunState::Ended,
        )
        .unwrap_err();
        assert!(err.contains("none.jsonl"), "{err}");
    }
}
