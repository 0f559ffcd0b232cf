//! What the user sees while a run goes on: lines on standard output (flushed per line even when
//! redirected, and never torn by the progress bar) and the progress bar on standard error. What
//! to print is the dispatcher's decision; this only prints it.

use std::io::{IsTerminal, Write};

/// Line output routed around an optional progress bar.
pub struct Console {
    bar: Option<indicatif::ProgressBar>,
}

impl Console {
    /// A console with a progress bar of `total` games when `progress` is asked for and standard
    /// error is a terminal.
    pub fn new(progress: bool, total: u64) -> Console {
        let bar = (progress && std::io::stderr().is_terminal()).then(|| {
            let b = indicatif::ProgressBar::new(total);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} games  {rate}  ETA {eta}  {msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .with_key(
                    "rate",
                    |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{:.1} games/min", state.per_sec() * 60.0);
                    },
                ),
            );
            b
        });
        Console { bar }
    }

    /// Whether a bar is shown (the dispatcher then sends progress steps).
    pub fn has_bar(&self) -> bool {
        self.bar.is_some()
    }

    /// Print text (one or more lines; a trailing newline is not doubled). A closed standard
    /// output is ignored: `gomoku-cli ... | head` must not stop the run.
    pub fn print(&self, text: &str) {
        let print = || {
            let mut out = std::io::stdout().lock();
            if text.is_empty() {
                let _ = writeln!(out);
            }
            for l in text.lines() {
                let _ = writeln!(out, "{l}");
            }
            let _ = out.flush();
        };
        match &self.bar {
            Some(b) => b.suspend(print),
            None => print(),
        }
    }

    /// One more game done.
    pub fn step(&self) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
