//! The `-log` files: every line to and from each slot's engines, with its time.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use tokio::sync::mpsc;

use crate::engine::{Direction, LogEvent};

use crate::outputs::paths::open_append;
use crate::outputs::OutputError;

/// The `-log` files, one per slot, opened before the first game so a path that cannot be used
/// stops the run at once.
pub struct LogFiles {
    files: HashMap<usize, (std::io::BufWriter<std::fs::File>, PathBuf)>,
}

impl LogFiles {
    pub fn open(
        dir: &Path,
        slots: usize,
        shard: Option<crate::schedule::shard::Shard>,
    ) -> Result<LogFiles, OutputError> {
        let mut files = HashMap::new();
        for slot in 0..slots {
            let mut path = dir.join(format!("gomoku-cli.{}.log", slot + 1));
            if let Some(s) = shard {
                path = s.output_name(&path);
            }
            let f = open_append(&path)?;
            files.insert(slot, (std::io::BufWriter::new(f), path));
        }
        Ok(LogFiles { files })
    }

    /// Write the log events until every sender is gone; timestamps are seconds since `start`.
    /// A failed write is given to `warn` (the run's console): the run goes on.
    pub async fn run(
        mut self,
        mut rx: mpsc::UnboundedReceiver<LogEvent>,
        start: Instant,
        warn: impl Fn(String),
    ) {
        while let Some(ev) = rx.recv().await {
            let Some((w, path)) = self.files.get_mut(&ev.slot) else {
                continue;
            };
            let arrow = match ev.direction {
                Direction::ToEngine => "<",
                Direction::FromEngine => ">",
                Direction::Stderr => "!",
                Direction::Note => "#",
            };
            let t = ev.at.saturating_duration_since(start);
            let line = format!(
                "[{:>10.3}] {} {} {}",
                t.as_secs_f64(),
                ev.engine,
                arrow,
                // A line as the engine wrote it may hold control characters: escaped, so the
                // log stays one line per event and a terminal showing it is left alone.
                crate::engine::protocol::printable(ev.text)
            );
            if let Err(e) = writeln!(w, "{line}") {
                warn(format!("protocol log {}: {e}", path.display()));
            }
            // Flush when the channel is momentarily empty: cheap batching off the hot path.
            if rx.is_empty() {
                self.flush(&warn);
            }
        }
        self.flush(&warn);
    }

    fn flush(&mut self, warn: &impl Fn(String)) {
        for (w, path) in self.files.values_mut() {
            if let Err(e) = w.flush() {
                warn(format!("protocol log {}: {e}", path.display()));
            }
        }
    }
}
