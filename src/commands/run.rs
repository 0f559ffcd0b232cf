//! The match runner (c-gomoku-cli's command line): parse the legacy options, check them into a
//! `Config`, run the tournament on a tokio runtime with Ctrl-C/SIGTERM handling.

use crate::cli;
use crate::cli::table::Command;
use crate::config::env::Env;
use crate::config::Config;
use crate::engine::spawn;
use crate::runner::{self, Stops};
use crate::tournament::events::StopReason;

use crate::commands::{block_on_here, failed, CommandError, CommandResult, Outcome};

/// Run a tournament from the legacy command line (without the program name), with the options
/// of its `-config FILE`; `-config save FILE` writes the run's options instead of playing it.
pub fn run(args: &[String]) -> CommandResult {
    let loaded =
        crate::config::run_file::load(cli::table::Command::Run, args).map_err(|e| {
            match e.is_usage() {
                true => CommandError::Usage(e.to_string()),
                false => failed(e),
            }
        })?;
    let raw = cli::parse_legacy(&loaded.args).map_err(|e| CommandError::Usage(e.to_string()))?;
    let env = Env::of_process();
    let config = Config::from_raw(&raw, &env).map_err(failed)?;
    if let Some(out) = &loaded.save {
        use crate::config::matches::{DrawOrder, Seed};
        // A random opening order without srand= drew its seed: written, it is the same run.
        let openings = config.tournament.openings.as_ref();
        let drawn = matches!(config.seed, Seed::Fresh(_))
            && openings.is_some_and(|o| o.order == DrawOrder::Random);
        let lists = crate::config::engines::engine_lists(&raw, &env).map_err(failed)?;
        let seed = drawn.then(|| config.seed.get());
        let lines = crate::config::run_file::saved_lines(Command::Run, &loaded.args, &lists, seed);
        save(
            out,
            &lines,
            &raw,
            &config,
            &env,
            loaded.load.iter().map(|f| ("-config", f.as_path())),
        )?;
        return Ok(Outcome::Done);
    }
    let groups = config.tournament.groups.clone();
    let summary = execute(config)?;
    if let (Some(g), StopReason::Completed) = (&groups, summary.reason) {
        write_promoted(g, &summary.results)?;
    }
    Ok(outcome_of(summary.reason))
}

/// `-groups promoted=FILE`: the promoted engines, best first, as an engines file (each entry as
/// the engine was given: `-each`'s keys, then its own, under the name it played as), which the
/// next group's run reads with `-engines FILE -engine conf=NAME`.
fn write_promoted(
    g: &crate::config::groups::GroupsConfig,
    results: &crate::analysis::tracker::Tracker,
) -> Result<(), CommandError> {
    let Some(path) = &g.promoted else {
        return Ok(());
    };
    let names = results.names();
    let promoted = crate::analysis::promotion::promoted(results, g.promote);
    let entries = (promoted.iter())
        .map(|&i| {
            let words: Vec<String> = (g.engine_settings[i].iter())
                .filter(|(k, _)| k != "name" && k != "conf")
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            crate::commands::engines::entry_json(&names[i], &last_wins(&words))
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(|e| failed(format!("-groups promoted={}: {e}", path.display())))?;
    let text = crate::commands::engines::render_file(&entries);
    crate::formats::atomic_file::write_atomic(path, |w| w.write_all(text.as_bytes()))
        .map_err(|e| failed(format!("-groups promoted={}: {e}", path.display())))?;
    let listed: Vec<&str> = promoted.iter().map(|&i| names[i].as_str()).collect();
    eprintln!(
        "wrote {}: the promoted engine{} ({}), for the next group's run: -engines {} -engine conf=NAME",
        path.display(),
        if listed.len() == 1 { "" } else { "s" },
        listed.join(", "),
        path.display()
    );
    Ok(())
}

/// `key=value` words with each key once, its last value where it was first given (an engine's
/// own key wins over `-each`'s, as the run read them).
fn last_wins(words: &[String]) -> Vec<String> {
    let key = |w: &String| w.split_once('=').map_or(w.clone(), |(k, _)| k.to_string());
    let mut out: Vec<String> = Vec::new();
    for w in words {
        match out.iter().position(|o| key(o) == key(w)) {
            Some(i) => out[i] = w.clone(),
            None => out.push(w.clone()),
        }
    }
    out
}

/// `-config save FILE` (the match runner's and `tune`'s): `lines` written to `out` (atomically;
/// never over a file the run reads: `inputs`, the engines file, the openings), which `-config
/// FILE` reads back as the same run.
pub fn save<'a>(
    out: &std::path::Path,
    lines: &[Vec<String>],
    raw: &cli::RawCli,
    config: &Config,
    env: &Env,
    inputs: impl IntoIterator<Item = (&'a str, &'a std::path::Path)>,
) -> Result<(), CommandError> {
    let text = crate::config::run_file::render(lines);
    let mut roles = crate::outputs::same_file::Roles::of_command();
    for (label, f) in inputs {
        roles.input(label, f);
    }
    if let Some(f) = crate::config::engines::engines_file(raw, env).map_err(failed)? {
        roles.input("-engines", f.path);
    }
    if let Some(o) = &config.tournament.openings {
        roles.input("-openings", &o.file);
    }
    roles.output("-config save", out);
    roles.check().map_err(failed)?;
    crate::formats::atomic_file::write_atomic(out, |w| w.write_all(text.as_bytes()))
        .map_err(|e| failed(format!("-config save {}: {e}", out.display())))?;
    eprintln!(
        "wrote {}: this run's options (gomoku-cli -config {} runs it)",
        out.display(),
        out.display()
    );
    Ok(())
}

/// Run a checked configuration (a match, or `tune`'s) to its end; the summary once it has
/// printed its last line.
pub fn execute(config: Config) -> Result<runner::RunSummary, CommandError> {
    init_diagnostics(config.console.diagnostics.as_deref());
    // A write past a file size limit (`ulimit -f`) must fail with EFBIG, which stops the run
    // with everything written so far intact, rather than kill the runner (SIGXFSZ's default).
    // SAFETY: setting a signal's disposition to SIG_IGN has no preconditions.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    let stops = Stops::default();
    let result = block_on_here(async {
        // Registered before the run starts, so a Ctrl-C at any moment of it is handled (and the
        // process-wide descriptors tokio creates for signals exist before the count below).
        crate::commands::signals::watch(
            &stops,
            "abandoning games in progress, ending engines (Ctrl-C again to kill them now)",
        );
        // The engine launcher is the process's for good (one socket): started here, before
        // the count and while the descriptor table is smallest (it starts from a copy of it).
        // A failure to start it shows at the first engine start, with the engine's name.
        let _ = spawn::start_launcher();
        let fds = FdCheck::start();
        let result = runner::run(config, stops.clone()).await;
        fds.report();
        result
    })?;
    // The runner has printed the run's last line, its summary.
    result.map_err(failed)
}

/// How a command that ran games ended, by why the run stopped.
pub fn outcome_of(reason: StopReason) -> Outcome {
    match reason {
        StopReason::Completed | StopReason::SprtH1 => Outcome::Done,
        StopReason::SprtH0 => Outcome::SprtH0,
        StopReason::Interrupted => Outcome::Interrupted,
        StopReason::EngineFailure => Outcome::EngineFailure,
        StopReason::OutputFailed => Outcome::OutputFailed,
        StopReason::Unpairable => Outcome::Unpairable,
    }
}

/// The runner's own diagnostics (engine restarts, lines ignored while waiting for a move, engines
/// killed or ended) go to standard error through `tracing`: with `RUST_LOG` (any filter, e.g.
/// `RUST_LOG=gomoku_cli=debug`) or `-verbose` (debug level for gomoku-cli): `filter`, chosen by
/// `Config`. Off otherwise.
fn init_diagnostics(filter: Option<&str>) {
    use tracing_subscriber::EnvFilter;
    let Some(filter) = filter else {
        return;
    };
    match EnvFilter::try_new(filter) {
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

/// `GOMOKU_CLI_DEBUG_FDS` (any value): the runner counts its open file descriptors just before
/// the run and just after it, and prints both on standard error
/// (`debug: open file descriptors: 9 before the run, 9 after it`). Everything a run opens
/// (engine pipes, output and log files, the game slots' runtimes) is closed when `runner::run`
/// returns, so a larger second count is a leak. Counted inside the process at two quiescent
/// points rather than sampled from outside (`/proc/PID/fd` of a running process races with
/// engines being started); `bench/faults.sh` and `tests/it/e2e_fault_matrix.rs` check it.
struct FdCheck(Option<usize>);

/// The environment variable that turns the count on.
const DEBUG_FDS: &str = "GOMOKU_CLI_DEBUG_FDS";

impl FdCheck {
    fn start() -> FdCheck {
        FdCheck(std::env::var_os(DEBUG_FDS).and_then(|_| open_fds()))
    }

    fn report(self) {
        if let (Some(before), Some(after)) = (self.0, open_fds()) {
            eprintln!("debug: open file descriptors: {before} before the run, {after} after it");
        }
    }
}

/// The process's open file descriptors (Linux: the entries of `/proc/self/fd`, less the one
/// reading it).
fn open_fds() -> Option<usize> {
    let entries = std::fs::read_dir("/proc/self/fd").ok()?;
    Some(entries.count().saturating_sub(1))
}
