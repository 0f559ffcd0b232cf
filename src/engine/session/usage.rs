//! What an engine's processes use, measured through their `/proc` files: CPU time per game
//! (start-up apart from thinking) and memory, sampled while the engine thinks.

use std::time::Duration;

use crate::engine::resources::ProcWatch;
use crate::engine::EngineError;

/// How often an engine's memory is read while it thinks: a few `/proc` reads each time, so a
/// tenth of a second costs nothing and catches a runaway allocation long before it takes the
/// machine.
pub(super) const MEMORY_SAMPLE: Duration = Duration::from_millis(100);

/// What an engine's processes used in one game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GameUsage {
    /// CPU time of its start-up for the game (`START`/`RESTART` and the INFO block).
    pub startup_cpu: Duration,
    /// CPU time from then to the end of the game: thinking, and pondering if it ponders.
    pub cpu: Duration,
    /// Memory its processes take at the end, bytes: their summed PSS (see `resources`; summed
    /// resident memory where `smaps_rollup` cannot be read).
    pub memory: u64,
}

/// A session's measures of its engine process: its peak memory, its CPU time marks and its open
/// `/proc` files. Each call takes the pid of the process now (none for in-process transports).
#[derive(Debug, Default)]
pub(super) struct Meter {
    /// Largest memory (summed PSS, see `resources`) seen while the engine thought, since the
    /// last [`take_peak`](Self::take_peak).
    peak_rss: u64,
    /// The engine's CPU time at the last [`game_usage`](Self::game_usage), with the pid it was
    /// read from: the next game's time is counted from there, so a game costs one read of
    /// `/proc` per engine, not two.
    cpu_mark: Option<(u32, Duration)>,
    /// The engine's CPU time when it had answered the game's `START`/`RESTART` (and the INFO
    /// block's `ABOUT`), with the pid: what it used before that is the game's start-up, apart
    /// from its thinking.
    start_mark: Option<(u32, Duration)>,
    /// The engine process's `/proc` files, open from its first move or game end to its end.
    proc_watch: Option<ProcWatch>,
}

impl Meter {
    /// The largest memory seen while the engine thought, since the last call.
    pub(super) fn take_peak(&mut self) -> u64 {
        std::mem::take(&mut self.peak_rss)
    }

    /// Keeps `peak` if it is the largest memory seen yet.
    pub(super) fn note_peak(&mut self, peak: u64) {
        self.peak_rss = self.peak_rss.max(peak);
    }

    /// CPU time since the last call (start-up apart, see [`mark_started`](Self::mark_started))
    /// and memory now; zero without a process.
    pub(super) fn game_usage(&mut self, pid: Option<u32>) -> GameUsage {
        let Some(mut watch) = self.take_watch(pid) else {
            return GameUsage::default();
        };
        let (pid, (now, memory)) = (watch.pid(), watch.sample());
        self.proc_watch = Some(watch);
        // A new process (respawned since the mark) used nothing before it started.
        let since = match self.cpu_mark {
            Some((marked, cpu)) if marked == pid => cpu,
            _ => Duration::ZERO,
        };
        // Without a start mark of this process (no START answered this game) it is all thinking.
        let started = match self.start_mark.take() {
            Some((marked, cpu)) if marked == pid => cpu.clamp(since, now.cpu.max(since)),
            _ => since,
        };
        self.cpu_mark = Some((pid, now.cpu));
        GameUsage {
            startup_cpu: started.saturating_sub(since),
            cpu: now.cpu.saturating_sub(started),
            memory: memory.bytes,
        }
    }

    /// Notes the CPU time used up to the end of the game's start.
    pub(super) fn mark_started(&mut self, pid: Option<u32>) {
        let Some(watch) = self.take_watch(pid) else {
            return;
        };
        self.start_mark = Some((watch.pid(), watch.usage().cpu));
        self.proc_watch = Some(watch);
    }

    /// The open `/proc` files of process `pid`, taken out of the meter (give them back with
    /// [`put_back`](Self::put_back)): opened on first use, and again for a new process after a
    /// respawn.
    pub(super) fn take_watch(&mut self, pid: Option<u32>) -> Option<ProcWatch> {
        let pid = pid?;
        match self.proc_watch.take() {
            Some(w) if w.pid() == pid => Some(w),
            _ => Some(ProcWatch::open(pid)),
        }
    }

    /// Keeps `watch` for the next measure (`None`: the process is gone).
    pub(super) fn put_back(&mut self, watch: Option<ProcWatch>) {
        self.proc_watch = watch;
    }
}

/// One sample of the watched tree's memory while the engine thinks, kept in `peak`: its summed
/// PSS (see `resources`), not its summed RSS. Over `limit`, the error that makes it lose.
pub(super) fn sample_memory(
    w: &mut ProcWatch,
    limit: Option<u64>,
    peak: &mut u64,
) -> Result<(), EngineError> {
    let mut memory = w.sample().1;
    if limit.is_some_and(|l| memory.estimated && memory.bytes > l) {
        // An estimate over the limit: a reading decides.
        memory = w.sample_exact().1;
    }
    let used = memory.bytes;
    *peak = (*peak).max(used);
    match limit.filter(|&l| used > l) {
        Some(limit) => Err(EngineError::MemoryLimit { peak: used, limit }),
        None => Ok(()),
    }
}
