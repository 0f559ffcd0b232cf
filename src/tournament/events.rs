//! What a run tells the user, as values: the dispatcher and the shell decide these events and
//! how a run ended; the runner's console renders them as text.

use std::path::PathBuf;

use crate::game::termination::GameResult;
use crate::schedule::GameId;
use crate::stats::{Sprt, SprtCrossing, Wld};

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// Every scheduled game was played.
    Completed,
    /// Ctrl-C or SIGTERM: games in progress were abandoned.
    Interrupted,
    /// `-fatalerror` and an engine failed.
    EngineFailure,
    /// The SPRT accepted H0 (the first engine is not stronger by elo1).
    SprtH0,
    /// The SPRT accepted H1.
    SprtH1,
    /// A write to the journal or a record file failed: no new game started.
    OutputFailed,
    /// A Swiss round could not be paired without a rematch: the tournament ended before it.
    Unpairable,
}

/// Something the run tells the user.
#[derive(Debug, Clone, PartialEq)]
pub enum ConsoleEvent {
    /// A game was handed to a slot (`-quiet` hides it).
    GameStarted {
        game: GameId,
        total: u64,
        black: String,
        white: String,
    },
    /// A game ended (`-quiet` hides it; the progress bar advances).
    GameFinished {
        game: GameId,
        black: String,
        white: String,
        result: GameResult,
        /// Why it ended (`Termination::reason`).
        reason: String,
    },
    /// A pair's score after its latest game (`-quiet` hides it).
    Score {
        first: String,
        second: String,
        wld: Wld,
    },
    /// An engine answered `SWAP2BOARD` with `UNKNOWN`/`ERROR` (said once per engine).
    SwapUnsupported {
        engine: String,
        answer: String,
        /// Stones of the opening its games start from instead (0: the empty board).
        opening_stones: usize,
    },
    /// This process's SPRT crossed a bound: no new games start.
    SprtDecided { sprt: Sprt, crossing: SprtCrossing },
    /// The run's stop marker, written by `shard`, decided the SPRT: no new games start.
    ShardVerdict {
        sprt: Option<Sprt>,
        crossing: SprtCrossing,
        shard: String,
    },
    /// `-fatalerror` and an engine failed in `game`.
    EngineFailureStop { game: GameId, reason: String },
    /// A write to an output failed: no new game starts. `resumable`: the run has a journal, so
    /// `-resume` completes it once the cause is fixed (without one it can only be run again).
    OutputFailedStop { resumable: bool },
    /// A results block every `-ratinginterval` games.
    Results {
        block: String,
        /// A results block was printed before it (under `-quiet` a blank line separates them).
        follows_block: bool,
    },
    /// The report at the end of the run, after a blank line.
    FinalReport(String),
    /// `tune`: θ after `completed` of `total` iterations (every `-tune every=N`, and at the end).
    TuneProgress {
        completed: u64,
        total: u64,
        theta: String,
    },
    /// The run's last line: how many of its games were played, and why it ended.
    Summary {
        finished: u64,
        total: u64,
        reason: StopReason,
    },
    /// What a resume found and did (standard error).
    ResumeNote(String),
    /// A resume starts (standard error).
    Resuming {
        journal: PathBuf,
        games: usize,
        left: u64,
    },
    /// Openings drawn in random order, with the seed that repeats them (standard error).
    RandomOpenings { file: PathBuf, seed: u64 },
    /// A tuning's seed, drawn for want of `-srand`, with the option that repeats the run
    /// (standard error).
    TuneSeed(u64),
    /// A knockout's seed, drawn for want of `-srand`, that placed the engines past `-seeds`
    /// (standard error).
    KnockoutSeed(u64),
    /// Where the journal goes (standard error; `-quiet` hides it).
    Journal(PathBuf),
    /// `-cpus`: where the game slots run, as `runner::cpus::describe` says it (standard error).
    Pinned(String),
    /// Something is off, but the run goes on (standard error).
    Warning(String),
    /// Something failed (standard error).
    Error(String),
}
