//! The tournament runner, wiring only: it loads the openings, opens the outputs, starts the game
//! slots and carries out what the dispatcher decides.
//!
//! Data flow: slots (`slot.rs`, tasks on one worker thread per core) hand in finished records and
//! ask for games at the `Desk`: on their own thread, under its lock, it feeds them to the
//! `Dispatcher` (`dispatcher.rs`, pure: the one owner of results and stop decisions) and executes
//! its actions: the answer to the slot; saves to the `Outputs` (`outputs.rs`) and events for the
//! `Console` (`console.rs`, through which every line of the run goes) go to the `Writer` on the
//! run's own thread, which also watches for Ctrl-C, the other shards and the slots' end. Slots
//! share no state but the desk; the other cross-thread signals are cancellation tokens.

mod console;
pub mod cpus;
mod desk;
pub mod live_report;
mod resume;
pub mod same_file;
mod slot;
mod staged;
pub mod sync;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use thiserror::Error;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::analysis::tracker::{scored, ScoredGame, Tracker};
use crate::config::matches::OnEngineFailure;
use crate::config::outputs::LogLevel;
use crate::config::{Config, Start};
use crate::engine::leftovers::WineAdopter;
use crate::engine::LogSink;
use crate::formats::openings::order::OpeningSequence;
use crate::formats::openings::{OpeningBook, OpeningError};
use crate::schedule::queue::GameQueue;
use crate::schedule::shard::Shard;
use crate::schedule::Schedule;

use crate::game::record::GameRecord;
use crate::outputs::logs::LogFiles;
use crate::outputs::{OutputError, Outputs};
use crate::tournament::dispatcher::{Action, DispatchSettings, Dispatcher, Event};
use crate::tournament::events::{ConsoleEvent, StopReason};
use console::{Console, Verbosity};
use desk::{watch, Desk, DeskState};
use slot::Shared;
use sync::ShardSync;

/// Failures that stop a run before or outside the games themselves.
#[derive(Debug, Error)]
pub enum RunError {
    /// The openings file cannot be read or holds an invalid opening.
    #[error("{0}")]
    Openings(#[from] OpeningError),
    /// An output cannot be opened or written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// `-resume` found no journal of this run.
    #[error("-resume: no journal of this run (gomoku-cli-*.journal.jsonl with the same settings) in {dir}; name it with -journal FILE")]
    NoJournalToResume { dir: PathBuf },
    /// A journal that cannot be read (or resumed).
    #[error("{0}")]
    BadJournal(String),
    /// The journal records a run with other settings.
    #[error("-resume: {path} records a different run; these settings differ:\n  {differences}")]
    ResumeMismatch { path: PathBuf, differences: String },
    /// The open-file limit is below what `-concurrency` needs and cannot be raised.
    #[error("-concurrency {concurrency} needs about {needed} open files, but the limit is {limit} (ulimit -n): raise the hard limit or lower -concurrency")]
    FileLimit {
        concurrency: usize,
        needed: u64,
        limit: u64,
    },
    /// The `-report` page cannot be built or written before the first game.
    #[error("-report: {0}")]
    Report(String),
    /// `-swap2`/`-swap1` with an openings file whose opening is not three stones.
    #[error("{file}:{line}: an opening of {stones} stones: with -{rule} an opening stands for the proposer's first three stones, so every opening must have exactly 3 (or leave -openings out: the proposer places them)")]
    SwapOpening {
        file: PathBuf,
        line: usize,
        stones: usize,
        rule: crate::core::swap::SwapRule,
    },
    /// `-cpus` this process cannot honour.
    #[error(transparent)]
    Cpus(#[from] cpus::CpusError),
    /// A `tune` output (`-tuneout csv=`, `params=`, `info=`) cannot be written.
    #[error("-tuneout {key}={}: {why}", path.display())]
    TuneOut {
        key: &'static str,
        path: PathBuf,
        why: String,
    },
    /// Two outputs, or an output and an input, name one file.
    #[error("{0}")]
    SameFile(#[from] same_file::SameFile),
}

/// What the run leaves behind for `main`.
#[derive(Debug, Clone)]
pub struct RunSummary {
    pub reason: StopReason,
    pub finished: u64,
    /// Games of the schedule this process plays (its shard's share).
    pub total: u64,
    /// Every finished game's result, per engine pair, and the SPRT's crossing.
    pub results: Tracker,
    /// `tune`: θ at the end.
    pub theta: Option<Vec<f64>>,
}

/// Signals from outside the run (Ctrl-C handling in `main`).
#[derive(Debug, Clone, Default)]
pub struct Stops {
    /// Abandon games in progress and end.
    pub abort: CancellationToken,
    /// Kill engines at once instead of ending them politely.
    pub hard: CancellationToken,
}

fn dispatch_settings(
    config: &Config,
    names: Vec<String>,
    context: String,
    book: Option<&OpeningBook>,
) -> DispatchSettings {
    // c-gomoku-cli's colour rule only matters where an opening leaves white to move.
    let white_first = match (book, &config.tournament.openings, config.tournament.colours) {
        (Some(b), Some(o), crate::config::matches::ColourRule::FirstToMove) => Some(Arc::new(
            crate::formats::openings::order::OpeningParity::new(
                b,
                o.order(config.seed),
                o.transform,
                o.start,
            ),
        )),
        _ => None,
    };
    DispatchSettings {
        names,
        sprt: config.tournament.sprt,
        rating_interval: config.console.rating_interval,
        lose_only: config.tournament.lose_only,
        stop_on_engine_failure: config.tournament.on_failure == OnEngineFailure::Stop,
        context,
        sharded: config.cluster.shard.is_some(),
        report: config.outputs.report.is_some(),
        white_first,
        tune: config
            .tune
            .as_ref()
            .map(|t| (t.setup.clone(), config.seed.get())),
        resumable: config.outputs.journal.is_some(),
        promote: config.tournament.groups.as_ref().map(|g| g.promote),
        slots: config.tournament.slot_caps(),
    }
}

/// Notes shown before the first game.
fn announce(
    console: &Console,
    config: &Config,
    outputs: &Outputs,
    resumed: Option<&resume::Resumed>,
    left: u64,
    slot_cpus: &[Vec<usize>],
) {
    if let Some(r) = resumed {
        for n in &r.notes {
            console.show(ConsoleEvent::ResumeNote(n.clone()));
        }
        console.show(ConsoleEvent::Resuming {
            journal: r.journal.clone(),
            games: r.entries.len(),
            left,
        });
    }
    for w in &config.warnings {
        console.show(ConsoleEvent::Warning(w.clone()));
    }
    if let Some(o) = &config.tournament.openings {
        if o.order == crate::config::matches::DrawOrder::Random {
            console.show(ConsoleEvent::RandomOpenings {
                file: o.file.clone(),
                seed: config.seed.get(),
            });
        }
    }
    // A tuning's trajectory is its seed's: one drawn is shown so the run can be repeated
    // (a resumed run's is its journal's).
    if let (Some(_), crate::config::matches::Seed::Fresh(seed)) = (&config.tune, config.seed) {
        console.show(ConsoleEvent::TuneSeed(seed));
    }
    if let (true, crate::config::matches::Seed::Fresh(seed)) =
        (config.tournament.placed_by_seed(), config.seed)
    {
        console.show(ConsoleEvent::KnockoutSeed(seed));
    }
    if let Some(how) = cpus::describe(slot_cpus) {
        console.show(ConsoleEvent::Pinned(how));
    }
    if let Some(j) = outputs.journal_path() {
        console.show(ConsoleEvent::Journal(j.to_path_buf()));
    }
}

/// The run's console: `-quiet`, and a progress bar of the `total` games this process plays.
fn console_of(config: &Config, total: u64) -> Console {
    let verbosity = match config.console.quiet {
        true => Verbosity::Quiet,
        false => Verbosity::PerGame,
    };
    Console::new(verbosity, config.console.progress, total)
}

/// The link to the other shards, for a sharded run with a journal and an SPRT or a tuning.
fn shard_sync(config: &Config, d: &Dispatcher) -> Option<ShardSync> {
    let shard = config.cluster.shard?;
    // Games of the other shards count for an SPRT, and step a tuning's θ.
    // A knockout's or a Swiss's next round waits for the other shards' games of this one.
    let staged = config.tournament.kind.staged();
    if config.tournament.sprt.is_none() && config.tune.is_none() && !staged {
        return None;
    }
    config.outputs.journal.as_ref()?;
    Some(ShardSync::new(
        &config.cluster.rundir,
        shard,
        d.tracker().pairs().to_vec(),
    ))
}

/// What carries out the dispatcher's actions.
/// It runs on whichever slot's thread holds the `Desk`, so the writes that can take milliseconds
/// (a `.psq` file or the `-renlib` library synced per game, the tuning's files) and the console's
/// lines (a slow terminal or pipe) go to the `Writer` on the run's thread: a slot's thread blocked
/// on them would stop the other slots' games on it and add the wait to their engines' measured
/// times.
struct Shell {
    console: Console,
    cancel_games: CancellationToken,
    /// Cancelled once the dispatcher decides the run ends early (slots in `-wait` end at once).
    stopping: CancellationToken,
    /// A sharded run with an SPRT: the other shards' journals and the stop marker.
    sync: Option<ShardSync>,
    /// To the `Writer`, in the order the dispatcher decided them. A send wakes nobody: the
    /// run's thread takes what is queued on its own tick (`desk::WRITE_EVERY`).
    writes: std::sync::mpsc::Sender<Write>,
}

/// What the run's thread writes.
enum Write {
    Save(Box<GameRecord>, crate::outputs::Records),
    RebuildReport,
    TuneSnapshot([String; 3]),
    /// A console line: shown here, not by the slot that holds the desk, so no slot waits for
    /// another's terminal or pipe to take its next game (issue 37); in the order decided, as the
    /// channel keeps it.
    Show(ConsoleEvent),
}

/// The run's outputs, written on the run's thread in the order the dispatcher decided them.
struct Writer {
    console: Console,
    outputs: Outputs,
    /// `-report FILE`: the page's writer.
    report: Option<live_report::LiveReport>,
    /// A write to the journal or a record file failed: nothing more is written (a game the
    /// journal lacks is played again on resume).
    write_failed: bool,
    /// `tune`: where the trajectory CSV, θ in the parameter file's format and θ as `INFO` lines
    /// go (`Action::TuneSnapshot`'s texts, in that order).
    tune_files: [Option<PathBuf>; 3],
}

impl Writer {
    /// Carry out one write; `true` when a record could not be saved (the run must stop).
    fn write(&mut self, w: Write) -> bool {
        match w {
            Write::Save(record, records) => {
                if self.write_failed {
                    return false;
                }
                if let Err(e) = self.outputs.save(&record, records) {
                    self.console.show(ConsoleEvent::Error(e.to_string()));
                    self.write_failed = true;
                    return true;
                }
            }
            Write::TuneSnapshot(texts) => {
                if self.write_failed {
                    return false;
                }
                for (path, text) in self.tune_files.iter().zip(texts) {
                    let Some(path) = path else { continue };
                    let written = crate::formats::atomic_file::write_atomic(path, |w| {
                        std::io::Write::write_all(w, text.as_bytes())
                    });
                    // A tuning that cannot save θ stops as a failed record does (exit 5): playing
                    // on would end in a run whose result is nowhere but the journal.
                    if let Err(e) = written {
                        let e = format!("cannot write {}: {e}", path.display());
                        self.console.show(ConsoleEvent::Error(e));
                        self.write_failed = true;
                        return true;
                    }
                }
            }
            Write::RebuildReport => {
                if let Some(r) = &self.report {
                    r.refresh();
                }
            }
            Write::Show(event) => self.console.show(event),
        }
        false
    }

    /// Everything the desk has queued; a failed save stops the run.
    fn drain(&mut self, writes: &std::sync::mpsc::Receiver<Write>, desk: &Desk) {
        while let Ok(w) = writes.try_recv() {
            self.write_and_tell(w, desk);
        }
    }

    fn write_and_tell(&mut self, w: Write, desk: &Desk) {
        if self.write(w) {
            let mut s = desk.lock();
            s.catch_up(&desk.abort);
            s.feed(Event::OutputFailed);
        }
    }
}

/// The answer to a slot that asked for a game (`None` until the dispatcher gives one).
type Reply = Option<slot::Next>;

impl Shell {
    /// Carry out the dispatcher's actions; `reply` takes the answer to the slot that asked for a
    /// game.
    fn execute(&mut self, d: &mut Dispatcher, actions: Vec<Action>, reply: &mut Reply) {
        for a in actions {
            match a {
                Action::Play(p) => *reply = Some(slot::Next::Play(p)),
                Action::NoMoreGames => *reply = Some(slot::Next::End),
                // The version to wait past is the desk's (`DeskState::feed`).
                Action::Wait => *reply = Some(slot::Next::Wait(0)),
                Action::Console(event) => self.show(event),
                // The run's thread outlives every sender: a send fails only after it stopped
                // writing.
                Action::Save(record, records) => {
                    let _ = self.writes.send(Write::Save(record, records));
                }
                Action::AbandonGames => self.cancel_games.cancel(),
                Action::TuneSnapshot(texts) => {
                    let _ = self.writes.send(Write::TuneSnapshot(texts));
                }
                Action::RebuildReport => {
                    let _ = self.writes.send(Write::RebuildReport);
                }
                Action::StopShards(c) => {
                    let Some(sync) = self.sync.as_ref() else {
                        continue;
                    };
                    // The marker in place is the run's verdict (another shard's, when it
                    // decided first): the dispatcher prints that one.
                    let marker = sync.write_marker(&c).unwrap_or_else(|e| {
                        let w = format!("cannot write the shards' stop marker: {e}");
                        self.show(ConsoleEvent::Warning(w));
                        sync.own_marker(&c)
                    });
                    let more = d.on_event(Event::ShardsStopped(marker));
                    self.execute(d, more, &mut None);
                }
            }
        }
        if d.stop_reason() != StopReason::Completed {
            self.stopping.cancel();
        }
    }

    /// Queue a console line for the run's thread. The run's thread outlives every sender; once
    /// it stopped reading (at the very end), the line is shown here.
    fn show(&self, event: ConsoleEvent) {
        if let Err(std::sync::mpsc::SendError(Write::Show(event))) =
            self.writes.send(Write::Show(event))
        {
            self.console.show(event);
        }
    }

    /// The final report and the summary line of the run's `total` games (the last `-report`
    /// page is the writer's, written between the two).
    fn conclude(&mut self, d: &mut Dispatcher, total: u64, last_page: impl FnOnce()) -> RunSummary {
        let report = d.final_report();
        self.execute(d, report, &mut None);
        last_page();
        let (reason, finished) = (d.stop_reason(), d.finished_games());
        // A knockout's tie-breaks play past the games it counted on.
        let total = total.max(finished);
        let theta = d.tuner().map(|t| t.theta().to_vec());
        self.console.show(ConsoleEvent::Summary {
            finished,
            total,
            reason,
        });
        RunSummary {
            reason,
            finished,
            total,
            results: d.tracker().clone(),
            theta,
        }
    }

    /// Read the other shards' games and their stop marker into the dispatcher.
    fn sync(&mut self, d: &mut Dispatcher) {
        let Some(sync) = self.sync.as_mut() else {
            return;
        };
        // The marker first: the run's verdict is the deciding shard's, whatever this shard's
        // view of the others' games says.
        let mut actions = match sync.marker() {
            Some(m) => d.on_event(Event::ShardsStopped(m)),
            None => vec![],
        };
        let games = sync.poll();
        actions.extend(d.on_event(Event::Remote(games)));
        self.execute(d, actions, &mut None);
    }
}

/// Open files a run needs: per game slot, for each of its two engines three pipes, a pidfd and
/// two `/proc` files for its CPU and memory readings (measured: 12.0 a slot at -concurrency 900,
/// docs/design/BENCHMARKS.md §2), with room for the transient ones of a spawn; plus the outputs,
/// logs and the runtimes' own (one per worker thread, not per slot).
pub fn files_needed(concurrency: usize) -> u64 {
    concurrency as u64 * 14 + 64
}

/// Raise the soft open-file limit to what `-concurrency` needs (up to the hard limit), so a run
/// with hundreds of slots does not fail engine starts one after another; refuse the run before
/// its first game when even the hard limit is too low.
fn ensure_file_limit(concurrency: usize) -> Result<(), RunError> {
    let needed = files_needed(concurrency);
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit with a valid pointer to a local struct.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return Ok(());
    }
    if lim.rlim_cur == libc::RLIM_INFINITY || lim.rlim_cur >= needed {
        return Ok(());
    }
    if lim.rlim_max != libc::RLIM_INFINITY && lim.rlim_max < needed {
        return Err(RunError::FileLimit {
            concurrency,
            needed,
            limit: lim.rlim_max,
        });
    }
    let raised = libc::rlimit {
        rlim_cur: needed,
        rlim_max: lim.rlim_max,
    };
    // SAFETY: as above.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
        return Err(RunError::FileLimit {
            concurrency,
            needed,
            limit: lim.rlim_cur,
        });
    }
    tracing::debug!("open-file limit raised from {} to {needed}", lim.rlim_cur);
    Ok(())
}

/// `tune`: where the trajectory CSV, θ in the parameter file's format and θ as `INFO` lines go:
/// as given, else beside the journal (`X.journal.jsonl` → `X.tune.csv`, `X.tuned.txt`,
/// `X.tuned.info`).
fn tune_files(config: &Config, journal: Option<&std::path::Path>) -> [Option<PathBuf>; 3] {
    let Some(t) = &config.tune else {
        return [None, None, None];
    };
    let beside = |suffix: &str| {
        let j = journal?.to_string_lossy().into_owned();
        let stem = j.strip_suffix(".journal.jsonl").unwrap_or(&j);
        Some(PathBuf::from(format!("{stem}{suffix}")))
    };
    [
        t.csv.clone().or_else(|| beside(".tune.csv")),
        t.params_out.clone().or_else(|| beside(".tuned.txt")),
        t.info_out.clone().or_else(|| beside(".tuned.info")),
    ]
}

/// `tune`: every `-tuneout` file can be written, found before the first game rather than after
/// the first iteration.
fn check_tune_files(files: &[Option<PathBuf>; 3]) -> Result<(), RunError> {
    for (key, path) in ["csv", "params", "info"].into_iter().zip(files) {
        let Some(path) = path else { continue };
        let why = match path.as_os_str().is_empty() {
            true => Some("an empty path: name a file".to_string()),
            false => crate::outputs::paths::check_replaceable(path)
                .err()
                .map(|e| e.to_string()),
        };
        if let Some(why) = why {
            let path = path.clone();
            return Err(RunError::TuneOut { key, path, why });
        }
    }
    Ok(())
}

/// `-report FILE`: its first page is written before the first game.
fn live_report(
    config: &Config,
    outputs: &Outputs,
    console: &Console,
) -> Result<Option<live_report::LiveReport>, RunError> {
    // `Config` refuses `-report` without a journal.
    let (Some(out), Some(journal)) = (&config.outputs.report, outputs.journal_path()) else {
        return Ok(None);
    };
    live_report::LiveReport::start(journal.to_path_buf(), out.clone(), console.clone()).map(Some)
}

/// The opening book and its draw order, when `-openings` is given.
fn load_openings(
    config: &Config,
) -> Result<(Option<OpeningBook>, Option<OpeningSequence>), RunError> {
    let Some(o) = &config.tournament.openings else {
        return Ok((None, None));
    };
    let book = OpeningBook::load(&o.file, o.format, config.game.size, config.game.rule)?;
    if let Some(rule) = config.tournament.swap {
        let odd = (0..book.len())
            .filter_map(|i| book.get(i))
            .find(|o| o.stones.len() != 3);
        if let Some(odd) = odd {
            return Err(RunError::SwapOpening {
                file: o.file.clone(),
                line: odd.line,
                stones: odd.stones.len(),
                rule,
            });
        }
    }
    let sequence = book
        .sequence(o.order(config.seed), o.transform)
        .starting_at(o.start);
    Ok((Some(book), Some(sequence)))
}

/// The games still to play (in schedule order, computed as they are taken) and those already
/// played (journal order).
fn remaining(
    schedule: &Schedule,
    shard: Option<Shard>,
    resumed: Option<&resume::Resumed>,
) -> Result<(GameQueue, Vec<ScoredGame>), RunError> {
    let total = schedule.total_games();
    let Some(r) = resumed else {
        return Ok((GameQueue::new(schedule, shard, Default::default()), vec![]));
    };
    let pairs: Vec<(usize, usize)> = schedule.pairs().iter().map(|(a, b)| (a.0, b.0)).collect();
    let mut done = std::collections::HashSet::new();
    let mut repeats = crate::formats::journal::Repeats::default();
    let mut prior = Vec::new();
    for e in &r.entries {
        if e.game == 0 || e.game > total {
            return Err(RunError::BadJournal(format!(
                "{}: game {} is not in this run's schedule of {total} games",
                r.journal.display(),
                e.game
            )));
        }
        let seen = repeats
            .admit(e.game, e.result)
            .map_err(|c| RunError::BadJournal(format!("{}: {c}", r.journal.display())))?;
        if seen == crate::formats::journal::Seen::First {
            done.insert(e.game);
            prior.push(scored(
                &crate::formats::journal::GameSummary::from(e),
                &pairs,
            ));
        }
    }
    Ok((GameQueue::new(schedule, shard, done), prior))
}

/// What is checked before anything is opened: the open-file limit, `-cpus`, one file per role.
/// Returns each game slot's CPUs (none: not pinned).
fn check_before_opening(config: &Config) -> Result<Vec<Vec<usize>>, RunError> {
    let slots = config.tournament.concurrency;
    ensure_file_limit(slots)?;
    let slot_cpus = cpus::slot_shares(&config.tournament.slot_cpus, slots, cpus::allowed_cpus())?;
    same_file::check(config, config.outputs.journal.as_ref().map(|j| j.path()))?;
    Ok(slot_cpus)
}

/// The `-log` files, opened before the first game (`None` without `-log`/`-debug`).
fn open_logs(config: &Config) -> Result<Option<LogFiles>, RunError> {
    match config.outputs.log {
        LogLevel::Off => Ok(None),
        _ => Ok(Some(LogFiles::open(
            &config.outputs.log_dir,
            config.tournament.concurrency,
            config.cluster.shard,
        )?)),
    }
}

/// The run's schedule; a `tune` run's shards play whole iterations (their values are drawn
/// where they are played).
fn schedule_of(config: &Config) -> Schedule {
    if let Some(plan) = config.tournament.rounds_settings(config.seed) {
        return Schedule::staged(plan, config.tournament.kind);
    }
    let schedule = Schedule::new(
        config.tournament.engines.len(),
        config.tournament.kind,
        config.tournament.games,
        config.tournament.rounds,
        config.tournament.repeat,
    )
    .with_sides(config.tournament.sides);
    let schedule = match &config.tournament.groups {
        Some(g) => schedule.with_pairs(crate::schedule::groups::pairs_within(&g.ratings, g.gap)),
        None => schedule,
    };
    match &config.tune {
        Some(t) => schedule.with_shard_unit(t.setup.games_per_iteration()),
        None => schedule,
    }
}

/// The protocol log's writer task, when `-log` asked for one, and the sink the engines write to.
fn start_log(
    files: Option<LogFiles>,
    run_start: Instant,
    console: &Console,
) -> (LogSink, Option<tokio::task::JoinHandle<()>>) {
    let Some(files) = files else {
        return (LogSink::none(), None);
    };
    let (sink, rx) = LogSink::channel();
    let warnings = console.clone();
    let task = files.run(rx, run_start, move |w| {
        warnings.show(ConsoleEvent::Warning(w));
    });
    (sink, Some(tokio::spawn(task)))
}

/// What the dispatcher hears once every slot has ended: a Ctrl-C that came meanwhile, and a stop
/// marker written after this shard's last look (another shard decided while this one played its
/// last games), which is the run's verdict all the same.
fn last_events(desk: &Desk, stops: &Stops) {
    let mut state = desk.lock();
    let DeskState { d, shell, .. } = &mut *state;
    if stops.abort.is_cancelled() {
        d.on_event(Event::Interrupt);
    }
    if let Some(m) = shell.sync.as_ref().and_then(|s| s.marker()) {
        let actions = d.on_event(Event::ShardsStopped(m));
        shell.execute(d, actions, &mut None);
    }
}

/// The game slots' worker threads, and the channel that closes when the last one ends (a thread
/// that cannot be started is reported; the others play its share).
fn start_slots(
    shared: &Arc<Shared>,
    desk: &Arc<Desk>,
) -> (
    Vec<std::thread::JoinHandle<()>>,
    mpsc::UnboundedReceiver<std::convert::Infallible>,
) {
    let (alive, ended) = mpsc::unbounded_channel();
    let concurrency = shared.config.tournament.concurrency;
    let (slots, failed) = slot::spawn_workers(concurrency, shared.clone(), desk.clone(), alive);
    if let Some(e) = failed {
        let e = format!("cannot start a game worker thread: {e}");
        shared.console.show(ConsoleEvent::Error(e));
    }
    (slots, ended)
}

/// Run the whole tournament described by `config`.
pub async fn run(config: Config, stops: Stops) -> Result<RunSummary, RunError> {
    // Wine's server and services, which outlive the engines by seconds, end with the run.
    let wine = WineAdopter::for_engines(&config.tournament.engines);
    let result = run_games(config, stops).await;
    wine.end().await;
    result
}

/// The run of [`run`]: its games played, saved and reported.
async fn run_games(mut config: Config, stops: Stops) -> Result<RunSummary, RunError> {
    let run_start = Instant::now();
    let slot_cpus = check_before_opening(&config)?;
    let schedule = schedule_of(&config);
    let total = staged::total(&schedule);
    // `Config` refuses `-resume` without a journal.
    let resumed = match (config.start, config.outputs.journal.clone()) {
        (Start::Resume, Some(journal)) => Some(resume::prepare(&mut config, &journal, total)?),
        _ => None,
    };
    let (book, sequence) = load_openings(&config)?;
    let mut outputs = Outputs::open(&config, resumed.as_ref().map(|r| r.journal.clone()))?;
    let log_files = open_logs(&config)?;
    let (games, prior) = remaining(&schedule, config.cluster.shard, resumed.as_ref())?;
    // A shard's own share of the schedule (a knockout's or a Swiss's: its plan's).
    let (plan, own_total) = staged::plan_and_total(&config, games.len(), prior.len() as u64);
    let console = console_of(&config, own_total);
    let (log, log_task) = start_log(log_files, run_start, &console);
    let left = own_total - prior.len() as u64;
    announce(
        &console,
        &config,
        &outputs,
        resumed.as_ref(),
        left,
        &slot_cpus,
    );
    let names = slot::resolve_names(&config, &stops.abort).await;
    if let Some(r) = resumed.as_ref().filter(|_| !stops.abort.is_cancelled()) {
        r.check_names(&names)?;
    }
    let header = crate::config::identity::header(&config, &names, total);
    if resumed.as_ref().is_none_or(|r| r.needs_header) {
        outputs.write_header(&header)?;
    }
    let context = header.settings.context();
    let settings = dispatch_settings(&config, names.clone(), context, book.as_ref());
    let mut dispatcher = Dispatcher::new(settings, schedule, games, &prior);
    if let Some(plan) = plan {
        dispatcher = dispatcher.with_plan(plan, &prior);
    }
    if let Some(r) = &resumed {
        dispatcher.resume_tune(r.entries.iter().filter_map(|e| e.tune.as_ref()));
    }
    let cancel_games = stops.abort.child_token();
    let tune_files = tune_files(&config, outputs.journal_path());
    check_tune_files(&tune_files)?;
    let sync = shard_sync(&config, &dispatcher);
    let report = live_report(&config, &outputs, &console)?;
    outputs.games_begin();
    let (to_writer, writes) = std::sync::mpsc::channel();
    let mut writer = Writer {
        console: console.clone(),
        outputs,
        report,
        write_failed: false,
        tune_files,
    };
    let stopping = CancellationToken::new();
    let mut shell = Shell {
        console,
        cancel_games: cancel_games.clone(),
        stopping: stopping.clone(),
        sync,
        writes: to_writer,
    };
    // A shard started after another one decided the test ends at once with the verdict.
    shell.sync(&mut dispatcher);
    let shared = Arc::new(Shared {
        book,
        sequence,
        names,
        cancel_games: cancel_games.clone(),
        stopping,
        hard: stops.hard.clone(),
        log,
        console: shell.console.clone(),
        slot_cpus,
        config,
    });
    let desk = Arc::new(Desk {
        state: std::sync::Mutex::new(DeskState {
            d: dispatcher,
            shell,
            interrupted: false,
            changes: tokio::sync::watch::Sender::new(0),
        }),
        abort: stops.abort.clone(),
    });
    let (slots, ended) = start_slots(&shared, &desk);
    let sync_every = shared.config.cluster.sync_interval;
    let sync_every = sync_every.max(std::time::Duration::from_millis(10));
    watch(&desk, &mut writer, &writes, ended, sync_every).await;
    for s in slots {
        let _ = tokio::task::spawn_blocking(move || s.join()).await;
    }
    last_events(&desk, &stops);
    writer.drain(&writes, &desk);
    for w in writer.outputs.finish() {
        writer.console.show(ConsoleEvent::Warning(w));
    }
    writer.console.finish();
    // The slots held the last log senders; the writer ends when they are gone.
    drop(shared);
    if let Some(t) = log_task {
        let _ = t.await;
    }
    let mut state = desk.lock();
    let DeskState { d, shell, .. } = &mut *state;
    Ok(shell.conclude(d, own_total, || {
        // The final report's writes (no game is saved any more: nothing to stop).
        while let Ok(w) = writes.try_recv() {
            writer.write(w);
        }
        if let Some(r) = writer.report.take() {
            r.finish();
        }
    }))
}
