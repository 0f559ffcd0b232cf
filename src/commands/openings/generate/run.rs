//! `openings generate`, the shell: `-concurrency` engine sessions (the runner's `EngineSession`,
//! as `check` drives it: a new game, the position as `BOARD`, one move asked, the search report's
//! evaluation read), the progress file (one line per evaluated candidate, flushed per line, a
//! torn last line cut on resume), the progress bar and the output file, written at the end from
//! what the pure [`Generation`] chose.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use thiserror::Error;
use tokio::sync::mpsc;

use crate::commands::openings::generate::{
    CandidateSettings, Evaluated, Generation, Progress, ProgressError, Tally, Verdict,
};
use crate::core::board::{Color, Pos};
use crate::core::search::Eval;
use crate::engine::{EngineError, EngineSession, EngineSpec, Field, LogSink, MoveRequest};
use crate::formats::openings::{Opening, OpeningFormat};
use crate::runner::Stops;
use crate::schedule::shard::Shard;

/// Everything a generation needs, checked.
#[derive(Debug, Clone)]
pub struct GenerateOptions {
    pub settings: CandidateSettings,
    /// The engine with its limits (`depth=`, `nodes=`, `tc=`, `option.K=`...).
    pub spec: EngineSpec,
    /// Time to answer START/RESTART and the INFO block (`-startuptimeout`).
    pub startup: Duration,
    /// Openings this process keeps (its shard's share).
    pub count: u64,
    /// The window: kept when |eval| <= balance.
    pub balance: u32,
    pub format: OpeningFormat,
    pub concurrency: usize,
    pub shard: Option<Shard>,
    /// The output file (already named by the shard); the progress file is beside it.
    pub output: PathBuf,
}

/// What a generation did.
#[derive(Debug, Clone)]
pub struct GenerateReport {
    pub tally: Tally,
    /// Openings written.
    pub written: usize,
    /// The candidates of the settings ran out before `count` were kept.
    pub exhausted: bool,
    /// A signal stopped the run: the openings kept by then were written, the progress file
    /// holds every evaluation, and the same command goes on from it.
    pub interrupted: bool,
    pub elapsed: Duration,
}

/// Why a generation could not go on.
#[derive(Debug, Error)]
pub enum GenerateError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The progress file beside the output is another generation's or damaged.
    #[error("{path}: {source}")]
    Progress {
        path: PathBuf,
        source: ProgressError,
    },
    /// The engine could not be started.
    #[error("cannot start the engine: {0}")]
    Spawn(EngineError),
    /// The engine answered without an evaluation too many times in a row.
    #[error("the engine gave no evaluation for {0} candidates in a row (does it report its search after INFO show_detail 2?); see the warnings above")]
    NoEvaluations(u64),
    /// A kept candidate cannot be written in the chosen format (pos notation on a board over 26).
    #[error("cannot write an opening as {format}: {why}")]
    Format { format: String, why: String },
}

/// The progress file of `output`: `FILE.progress`.
pub fn progress_path(output: &Path) -> PathBuf {
    // Beside the file a symlink names, as the output is (`atomic_file`), not beside the link.
    let mut name = crate::formats::atomic_file::replaced_file(output).into_os_string();
    name.push(".progress");
    PathBuf::from(name)
}

/// The progress file's first line: the settings that decide which openings come out (not the
/// count, the format or the concurrency: a run may be resumed with more openings asked).
pub fn header(opts: &GenerateOptions) -> String {
    let s = &opts.spec;
    let engine = serde_json::json!({
        "cmd": s.cmd, "tc": s.tc.to_string(), "depth": s.depth, "nodes": s.nodes,
        "threads": s.threads, "max_memory": s.max_memory, "options": s.options,
    });
    let shard = opts.shard.map(|s| s.to_string());
    let value = serde_json::json!({
        "opengen": 1, "candidates": opts.settings, "balance": opts.balance,
        "shard": shard, "engine": engine,
    });
    value.to_string()
}

/// One candidate to evaluate.
struct Job {
    number: u64,
    stones: Vec<Pos>,
}

/// What a worker tells the owner of the run.
enum Event {
    Answered {
        worker: usize,
        done: Evaluated,
    },
    /// A note for standard error (an evaluation that failed).
    Note(String),
    /// The engine would not start: the run cannot go on.
    SpawnFailed(EngineError),
}

/// Runs a generation to its end, or until `stops.abort` is cancelled: then no candidate is
/// handed out any more, the engines are ended (`stops.hard`: killed at once) and the openings
/// kept so far are written (tokio runtime needed).
pub async fn generate(
    opts: GenerateOptions,
    stops: &Stops,
) -> Result<GenerateReport, GenerateError> {
    let started = Instant::now();
    let (mut gen, mut progress) = open_progress(&opts)?;
    let bar = progress_bar(gen.target(), gen.chosen().len() as u64);
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let mut workers: Vec<Option<mpsc::UnboundedSender<Job>>> = Vec::new();
    let mut tasks = Vec::new();
    for w in 0..opts.concurrency.max(1) {
        let Some((number, stones)) = gen.next_job() else {
            break;
        };
        let (tx, rx) = mpsc::unbounded_channel();
        let _ = tx.send(Job { number, stones });
        workers.push(Some(tx));
        let ctx = WorkerContext {
            worker: w,
            opts: opts.clone(),
            events: events_tx.clone(),
            stops: stops.clone(),
        };
        tasks.push(tokio::spawn(worker(ctx, rx)));
    }
    drop(events_tx);
    let progress_file = progress_path(&opts.output);
    let mut failure = None;
    let mut interrupted = false;
    loop {
        let ev = tokio::select! {
            ev = events.recv() => ev,
            _ = stops.abort.cancelled() => None,
        };
        let Some(ev) = ev else {
            interrupted = stops.abort.is_cancelled();
            break;
        };
        match ev {
            Event::Answered { worker, done } => {
                let line = done.line();
                progress
                    .write_all(line.as_bytes())
                    .and_then(|_| progress.flush())
                    .map_err(|source| GenerateError::Io {
                        path: progress_file.clone(),
                        source,
                    })?;
                gen.record(&done);
                if let Some(b) = &bar {
                    b.set_position(gen.chosen().len() as u64);
                    b.set_message(format!("{} evaluated", gen.tally.evaluated));
                }
                let next = gen.next_job();
                match (next, &workers[worker]) {
                    (Some((number, stones)), Some(tx)) => {
                        let _ = tx.send(Job { number, stones });
                    }
                    _ => workers[worker] = None,
                }
            }
            Event::Note(text) => note(&bar, &text),
            Event::SpawnFailed(e) => {
                failure = Some(e);
                workers.iter_mut().for_each(|w| *w = None);
            }
        }
        if gen.in_flight() == 0 && !workers.iter().any(Option::is_some) {
            break;
        }
    }
    // Every worker's job channel closes here, so each ends its engine and returns.
    drop(workers);
    for t in tasks {
        let _ = t.await;
    }
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if let Some(e) = failure {
        return Err(GenerateError::Spawn(e));
    }
    if gen.failing() {
        return Err(GenerateError::NoEvaluations(
            crate::commands::openings::generate::ERROR_RUN_MAX,
        ));
    }
    let written = write_output(&opts, &gen)?;
    Ok(GenerateReport {
        tally: gen.tally,
        written,
        exhausted: gen.exhausted,
        interrupted,
        elapsed: started.elapsed(),
    })
}

/// The progress file read (a run to continue, a torn last line cut off) or started, and the
/// generation fed with what it holds; the file is open for appending. An output that is a device
/// or a FIFO (`-o /dev/null`) gets no progress file: no side file is made beside a device.
fn open_progress(opts: &GenerateOptions) -> Result<(Generation, Box<dyn Write>), GenerateError> {
    if crate::formats::atomic_file::writes_in_place(&opts.output) {
        let gen = Generation::new(opts.settings, opts.shard, opts.count, &[]);
        return Ok((gen, Box::new(std::io::sink())));
    }
    let path = progress_path(&opts.output);
    let io = |source| GenerateError::Io {
        path: path.clone(),
        source,
    };
    let header = header(opts);
    crate::outputs::prepare_parent(&path).map_err(|e| io(std::io::Error::other(e.to_string())))?;
    let done = match std::fs::read(&path) {
        Ok(bytes) if !bytes.is_empty() => {
            let text = String::from_utf8_lossy(&bytes);
            let p = Progress::parse(&text, &header).map_err(|source| GenerateError::Progress {
                path: path.clone(),
                source,
            })?;
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(io)?;
            file.set_len(p.whole_len as u64).map_err(io)?;
            p.done
        }
        Ok(_) => Vec::new(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(io(e)),
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(io)?;
    if done.is_empty() && file.metadata().map_err(io)?.len() == 0 {
        file.write_all(format!("{header}\n").as_bytes())
            .and_then(|_| file.flush())
            .map_err(io)?;
    }
    let gen = Generation::new(opts.settings, opts.shard, opts.count, &done);
    Ok((gen, Box::new(file)))
}

/// The chosen openings, in candidate order, written atomically.
fn write_output(opts: &GenerateOptions, gen: &Generation) -> Result<usize, GenerateError> {
    let size = opts.settings.size;
    let mut text = String::new();
    let chosen = gen.chosen();
    for (k, &n) in chosen.iter().enumerate() {
        // A chosen number was a legal candidate when it was handed out: it still is.
        let Ok(stones) = opts.settings.candidate(n) else {
            continue;
        };
        let opening = Opening {
            line: k + 1,
            stones,
        };
        let line = opening
            .to_line(opts.format, size)
            .map_err(|e| GenerateError::Format {
                format: opts.format.to_string(),
                why: e.to_string(),
            })?;
        text.push_str(&line);
        text.push('\n');
    }
    let io = |source| GenerateError::Io {
        path: opts.output.clone(),
        source,
    };
    crate::outputs::prepare_parent(&opts.output)
        .map_err(|e| io(std::io::Error::other(e.to_string())))?;
    crate::formats::atomic_file::write_atomic(&opts.output, |w| w.write_all(text.as_bytes()))
        .map_err(io)?;
    Ok(chosen.len())
}

/// What a worker needs.
struct WorkerContext {
    worker: usize,
    opts: GenerateOptions,
    events: mpsc::UnboundedSender<Event>,
    stops: Stops,
}

/// One engine session evaluating the jobs it is given until its channel closes or the run is
/// stopped (a search in progress is abandoned). Its engine is ended, or killed on a hard stop.
async fn worker(ctx: WorkerContext, jobs: mpsc::UnboundedReceiver<Job>) {
    let abort = ctx.stops.abort.clone();
    let spawned = tokio::select! {
        s = EngineSession::spawn(&ctx.opts.spec, ctx.worker, LogSink::none()) => s,
        _ = abort.cancelled() => return,
    };
    let mut session = match spawned {
        Ok(s) => s,
        Err(e) => {
            let _ = ctx.events.send(Event::SpawnFailed(e));
            return;
        }
    };
    tokio::select! {
        _ = evaluate_jobs(&ctx, &mut session, jobs) => {}
        _ = abort.cancelled() => {}
    }
    // Dropped unfinished on a hard stop, the session kills the engine's process group.
    tokio::select! {
        _ = session.shutdown() => {}
        _ = ctx.stops.hard.cancelled() => {}
    }
}

/// The jobs of one worker, evaluated in turn until its channel closes.
async fn evaluate_jobs(
    ctx: &WorkerContext,
    session: &mut EngineSession,
    mut jobs: mpsc::UnboundedReceiver<Job>,
) {
    while let Some(job) = jobs.recv().await {
        let eval = match evaluate(session, &ctx.opts, &job.stones).await {
            Ok(Some(e)) => Some(e),
            Ok(None) => {
                let why = format!(
                    "candidate {}: the engine reported no evaluation",
                    job.number
                );
                let _ = ctx.events.send(Event::Note(why));
                None
            }
            Err(e) => {
                let why = format!("candidate {}: {e}", job.number);
                let _ = ctx.events.send(Event::Note(why));
                None
            }
        };
        let done = Evaluated {
            number: job.number,
            eval,
            verdict: Verdict::of(eval, ctx.opts.balance),
        };
        let answered = Event::Answered {
            worker: ctx.worker,
            done,
        };
        if ctx.events.send(answered).is_err() {
            break;
        }
    }
}

/// A new game, the position as `BOARD`, one move asked: the evaluation of the search report
/// before it (side to move's view).
async fn evaluate(
    session: &mut EngineSession,
    opts: &GenerateOptions,
    stones: &[Pos],
) -> Result<Option<Eval>, EngineError> {
    let s = &opts.settings;
    session.new_game(s.size, s.rule, opts.startup).await?;
    let to_move = Color::of_ply(stones.len());
    let board = stones
        .iter()
        .enumerate()
        .map(|(k, &p)| (p, Field::of(Color::of_ply(k) == to_move)))
        .collect();
    let left = opts.spec.tc.match_time;
    let deadline = opts.spec.move_deadline(left).unwrap_or(Duration::MAX);
    let reply = session
        .request_move(MoveRequest::Board(board), left, deadline)
        .await?;
    Ok(reply.search.and_then(|r| r.eval))
}

/// A bar of openings kept out of `target`, on standard error when it is a terminal.
fn progress_bar(target: u64, kept: u64) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(target);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} openings kept  ETA {eta}  {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b.set_position(kept.min(target));
        b
    })
}

/// A line on standard error, above the bar.
fn note(bar: &Option<indicatif::ProgressBar>, text: &str) {
    match bar {
        Some(b) => b.suspend(|| eprintln!("warning: {text}")),
        None => eprintln!("warning: {text}"),
    }
}

/// The summary line (ending in what to do after an interruption).
pub fn summary(r: &GenerateReport, count: u64, output: &Path) -> String {
    let t = &r.tally;
    let resumed = if t.resumed > 0 {
        format!(" ({} from the progress file)", t.resumed)
    } else {
        String::new()
    };
    format!(
        "{}: {} of {count} openings written; candidates tried {}, refused as illegal {}, as duplicate {}; evaluated {}{resumed}, kept {}, out of window {}, errors {}; {:.1} s{}",
        output.display(),
        r.written,
        t.tried,
        t.illegal,
        t.duplicates,
        t.evaluated,
        t.kept,
        t.out,
        t.errors,
        r.elapsed.as_secs_f64(),
        match r.interrupted {
            true => format!(
                " (interrupted: every evaluation is in {}; the same command goes on from there)",
                progress_path(output).display()
            ),
            false => String::new(),
        }
    )
}
