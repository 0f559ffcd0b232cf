//! SIGINT and SIGTERM for the long commands (a match, `tune`, `check`, `openings generate`): one
//! way to install the handlers and to act on them, so each stops alike: the first signal stops
//! the work and ends the engines, what was done is printed, the exit code is 130; a second one
//! kills the engines at once.
//!
//! The handlers are installed whatever the signals' disposition was: a shell starts a background
//! job (`cmd &` in a script) with SIGINT ignored, and a command that left the disposition alone
//! (`openings generate`, `check`) went on through `kill -INT`.

use tokio::signal::unix::{signal, Signal, SignalKind};

use crate::runner::Stops;

/// SIGINT and SIGTERM, once their handlers are installed (`None` when that failed).
pub struct Signals(Option<(Signal, Signal)>);

impl Signals {
    /// Install the handlers; must be called inside a tokio runtime. A signal that comes after
    /// this is not lost, even before anyone waits for it.
    pub fn register() -> Signals {
        match (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) {
            (Ok(int), Ok(term)) => Signals(Some((int, term))),
            _ => Signals(None),
        }
    }

    /// The next SIGINT or SIGTERM; never, when the handlers could not be installed.
    async fn next(&mut self) {
        match &mut self.0 {
            Some((int, term)) => {
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
            }
            None => std::future::pending().await,
        }
    }
}

/// Install the handlers and act on them for the rest of the runtime: at the first signal, say
/// `what` it does on standard error and cancel `stops.abort`; at the second, cancel
/// `stops.hard`. Must be called inside a tokio runtime, before the work starts, so that a signal
/// at any moment of it is handled.
pub fn watch(stops: &Stops, what: &'static str) {
    let mut signals = Signals::register();
    let stops = stops.clone();
    tokio::spawn(async move {
        signals.next().await;
        eprintln!("\nInterrupted: {what}");
        stops.abort.cancel();
        signals.next().await;
        stops.hard.cancel();
    });
}
