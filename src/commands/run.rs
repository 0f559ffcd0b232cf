//! The match runner (c-gomoku-cli's command line): parse the legacy options, check them into a
//! `Config`, run the tournament on a tokio runtime with Ctrl-C/SIGTERM handling, print the summary.

use gomoku_cli::cli;
use gomoku_cli::config::Config;
use gomoku_cli::runner::{self, StopReason, Stops};

use super::{say, CommandError, CommandResult, Outcome};

/// Run a tournament from the legacy command line (without the program name).
pub fn run(args: &[String]) -> CommandResult {
    let raw = cli::parse_legacy(args).map_err(|e| CommandError::Usage(e.to_string()))?;
    let config = Config::from_raw(&raw).map_err(|e| CommandError::Failed(e.to_string()))?;
    init_diagnostics(raw.flag("verbose"));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CommandError::Failed(format!("cannot start the async runtime: {e}")))?;
    let stops = Stops::default();
    let result = rt.block_on(async {
        tokio::spawn(watch_signals(stops.clone()));
        runner::run(config, stops.clone()).await
    });
    // Engines still being ended in the background must not outlive us: the runtime's shutdown
    // drops every task, and dropping a session kills its process group.
    rt.shutdown_timeout(std::time::Duration::from_secs(5));
    let summary = result.map_err(|e| CommandError::Failed(e.to_string()))?;
    say(&format!(
        "Finished {} of {} games{}\n",
        summary.finished,
        summary.total,
        match summary.reason {
            StopReason::Completed => "",
            StopReason::Interrupted => " (interrupted)",
            StopReason::EngineFailure => " (stopped: engine failure)",
            StopReason::SprtH0 => " (SPRT: H0 accepted)",
            StopReason::SprtH1 => " (SPRT: H1 accepted)",
        }
    ));
    Ok(match summary.reason {
        StopReason::Completed | StopReason::SprtH1 => Outcome::Done,
        StopReason::SprtH0 => Outcome::SprtH0,
        StopReason::Interrupted => Outcome::Interrupted,
        StopReason::EngineFailure => Outcome::EngineFailure,
    })
}

/// The runner's own diagnostics (engine restarts, lines ignored while waiting for a move, engines
/// killed or ended) go to standard error through `tracing`: with `RUST_LOG` (any filter, e.g.
/// `RUST_LOG=gomoku_cli=debug`) or `-verbose` (debug level for gomoku-cli). Off otherwise.
fn init_diagnostics(verbose: bool) {
    use tracing_subscriber::EnvFilter;
    let filter = match std::env::var("RUST_LOG") {
        Ok(v) if !v.trim().is_empty() => EnvFilter::try_new(v),
        _ if verbose => EnvFilter::try_new("gomoku_cli=debug"),
        _ => return,
    };
    match filter {
        Ok(filter) => {
            let _ = tracing_subscriber::fmt()
                .with_env_filter(filter)
                .with_writer(std::io::stderr)
                .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
                .with_target(false)
                .try_init();
        }
        Err(e) => eprintln!("warning: RUST_LOG: {e}"),
    }
}

/// First Ctrl-C or SIGTERM: abandon games in progress and end engines politely. Second: kill now.
async fn watch_signals(stops: Stops) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return;
    };
    let mut seen = 0;
    loop {
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
        seen += 1;
        if seen == 1 {
            eprintln!("\nInterrupted: abandoning games in progress, ending engines (Ctrl-C again to kill them now)");
            stops.abort.cancel();
        } else {
            stops.hard.cancel();
        }
    }
}
