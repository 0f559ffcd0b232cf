//! The referee loop of one game: asks the two players for moves, keeps their clocks, judges every
//! move and ends with a `GameRecord` carrying exactly one `Termination`.
//!
//! Players are abstract (`Player`), so the loop is tested with scripted players and run with real
//! engine sessions.

use std::fmt;
use std::future::Future;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::core::board::{BoardSize, Color, Pos};
use crate::core::rules::{ForbiddenKind, IllegalKind, MoveOutcome, Referee, Rule};
use crate::core::search::{Eval, SearchReport};
use crate::core::swap::SwapReply;
use crate::game::adjudicate::{Adjudication, Adjudicator};

pub mod adjudicate;
pub mod record;
mod swap_game;
pub use swap_game::{play_swap_game, SwapGame};

/// What a player is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Play first on an empty board.
    Begin,
    /// The opponent played here; answer with a move.
    Turn(Pos),
    /// The whole position in play order (colours alternate from black), then answer.
    Board { stones: Vec<Pos>, own: Color },
}

/// A player's answer to a move request: the engine layer's, which a scripted test player gives
/// too.
pub use crate::engine::MoveReply as Reply;

/// Why a player could not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No answer before the deadline (the caller kills the engine); `said`, the first
    /// `ERROR`/`UNKNOWN` line it printed instead.
    Timeout {
        elapsed: Duration,
        said: Option<String>,
    },
    /// The engine process ended or its pipes broke.
    Crashed { status: String },
    /// START (or RESTART) answered with an error or not at all.
    StartFailed { text: String },
    /// The engine's processes held more memory than its limit while it thought (it was killed).
    MemoryLimit { peak: u64, limit: u64 },
}

/// A participant of a game. Implemented by engine sessions and by scripted test players.
pub trait Player {
    /// Prepare for a new game (START/RESTART plus the INFO block).
    fn new_game(
        &mut self,
        size: BoardSize,
        rule: Rule,
    ) -> impl Future<Output = Result<(), Failure>> + Send;

    /// Ask for a move; `time_left` is what the player is told it has, `deadline` when we give up.
    fn request_move(
        &mut self,
        request: Request,
        time_left: Option<Duration>,
        deadline: Option<Duration>,
    ) -> impl Future<Output = Result<Reply, Failure>> + Send;

    /// Ask `SWAP2BOARD` with `stones` in a swap opening (time as for a move).
    fn swap_request(
        &mut self,
        stones: Vec<Pos>,
        time_left: Option<Duration>,
        deadline: Option<Duration>,
    ) -> impl Future<Output = Result<SwapReply, Failure>> + Send;

    /// `MESSAGE` lines received since the last call.
    fn take_messages(&mut self) -> Vec<String>;

    /// Called after this player's move was placed (for `-debug` board printing).
    fn after_move(&mut self, _board: &crate::core::board::Board) {}

    /// The player is to be sent the whole board before each move (an engine asked for several
    /// best moves, which `YXBOARD` + `YXNBEST` ask on a whole position).
    fn wants_board(&self) -> bool {
        false
    }
}

/// A player's time control, with the tolerance that absorbs pipe and scheduling latency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// Whole-game time; `None` = unlimited.
    pub match_time: Option<Duration>,
    /// Per-move limit; `None` = unlimited.
    pub turn_time: Option<Duration>,
    /// Credited each time the player is asked to move.
    pub increment: Duration,
    pub tolerance: Duration,
}

impl Clock {
    pub const UNLIMITED: Clock = Clock {
        match_time: None,
        turn_time: None,
        increment: Duration::ZERO,
        tolerance: Duration::from_secs(3),
    };
}

/// The result from black's side, as PGN-like text is derived from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    BlackWins,
    WhiteWins,
    Draw,
}

/// A result text that is none of `1-0`, `0-1`, `1/2-1/2`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown result {0:?} (expected 1-0, 0-1 or 1/2-1/2)")]
pub struct UnknownResult(pub String);

impl std::str::FromStr for GameResult {
    type Err = UnknownResult;

    /// The text [`GameResult::as_str`] writes, surrounding blanks allowed.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        [
            GameResult::BlackWins,
            GameResult::WhiteWins,
            GameResult::Draw,
        ]
        .into_iter()
        .find(|r| r.as_str() == text.trim())
        .ok_or_else(|| UnknownResult(text.to_string()))
    }
}

impl GameResult {
    pub fn win_for(c: Color) -> GameResult {
        match c {
            Color::Black => GameResult::BlackWins,
            Color::White => GameResult::WhiteWins,
        }
    }

    /// `1-0` black won, `0-1` white won, `1/2-1/2` draw.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::BlackWins => "1-0",
            GameResult::WhiteWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::BlackWins => Some(Color::Black),
            GameResult::WhiteWins => Some(Color::White),
            GameResult::Draw => None,
        }
    }

    /// Points scored by `c` (1, ½ or 0) as half-points.
    pub fn half_points_for(self, c: Color) -> u32 {
        match self.winner() {
            None => 1,
            Some(w) if w == c => 2,
            Some(_) => 0,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What was wrong with an illegal move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IllegalMoveKind {
    Occupied,
    OffBoard,
    Unparsable,
}

/// Every way a game can end, with who lost and why: the result, the reason text and whether an
/// engine misbehaved are all derived from it, so they can never disagree.
///
/// Serialized (in the journal's `end`) with a `how` tag in snake case.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "how", rename_all = "snake_case")]
pub enum Termination {
    /// A winning line under the rule (five, or overline where it wins).
    Five { winner: Color, line: Vec<Pos> },
    /// Black played a renju forbidden point and loses.
    Forbidden { kind: ForbiddenKind, at: Pos },
    /// A move that cannot be played; the offender loses. `at` is the point when it is on the board.
    IllegalMove {
        by: Color,
        kind: IllegalMoveKind,
        text: String,
        at: Option<Pos>,
    },
    /// Over the turn or match time (beyond the tolerance); the offender loses. `said`: the
    /// first `ERROR`/`UNKNOWN` line it printed instead of an answer it never gave.
    TimeForfeit {
        by: Color,
        elapsed: Duration,
        limit: Duration,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        said: Option<String>,
    },
    /// The engine process died or its pipes broke; it loses.
    Crash { by: Color, status: String },
    /// The engine failed to start the game; it loses whatever its colour.
    FailedStart { by: Color, text: String },
    /// The engine's processes held more memory than `max_memory` plus the tolerance while it
    /// thought; it was killed and loses. Bytes.
    MemoryLimit { by: Color, peak: u64, limit: u64 },
    /// The engine answered a move request with an `ERROR` line (`text`, whole) instead of a
    /// move; it lost at once, and was restarted before its next game. Written by earlier
    /// versions only: an `ERROR` line no longer ends the wait for a move (an engine that never
    /// moves loses on time, the line quoted in [`TimeForfeit`](Termination::TimeForfeit)).
    EngineError { by: Color, text: String },
    /// The board filled up without a winner: a draw.
    FullBoard,
    /// `-drawafter`: the stones on the board (opening included) reached the limit: a draw.
    DrawAfter { stones: usize },
    /// An answer to `SWAP2BOARD` the referee refuses (occupied or off-board stones, a five or a
    /// renju foul among them, the wrong number of stones, not an answer at all); the engine that
    /// gave it loses. `by` is its scheduled colour (the colours were not chosen yet).
    SwapIllegal {
        by: Color,
        answer: String,
        why: String,
    },
    /// `-draw`: both engines' evaluations stayed within ±`score` for `moves` moves of each;
    /// `black`'s and `white`'s are their last (each engine's own view).
    AdjudicatedDraw {
        moves: u32,
        score: u32,
        black: Eval,
        white: Eval,
    },
    /// `-resign`: `by`'s evaluation stayed at or below −`score` for `moves` of its own moves, the
    /// last `eval`; `opponent` is the winner's last with `twosided=true`. Without `score` the mate
    /// rule decided: `by` reported a proven loss on `moves` own moves in a row.
    AdjudicatedResign {
        by: Color,
        moves: u32,
        eval: Eval,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        score: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        opponent: Option<Eval>,
    },
}

/// A point in pos notation (`h8`), or `x,y` where the board is too large for letters.
fn point(p: Pos, size: BoardSize) -> String {
    p.to_pos_notation(size).unwrap_or_else(|_| p.to_string())
}

impl Termination {
    /// The variant in snake case, as written in the journal.
    pub fn code(&self) -> &'static str {
        match self {
            Termination::Five { .. } => "five",
            Termination::Forbidden { .. } => "forbidden",
            Termination::IllegalMove { .. } => "illegal_move",
            Termination::TimeForfeit { .. } => "time_forfeit",
            Termination::Crash { .. } => "crash",
            Termination::FailedStart { .. } => "failed_start",
            Termination::MemoryLimit { .. } => "memory_limit",
            Termination::EngineError { .. } => "engine_error",
            Termination::FullBoard => "full_board",
            Termination::DrawAfter { .. } => "draw_after",
            Termination::SwapIllegal { .. } => "swap_illegal",
            Termination::AdjudicatedDraw { .. } => "adjudicated_draw",
            Termination::AdjudicatedResign { .. } => "adjudicated_resign",
        }
    }

    /// The colour that lost, `None` for a draw.
    pub fn loser(&self) -> Option<Color> {
        match self {
            Termination::Five { winner, .. } => Some(winner.opponent()),
            Termination::Forbidden { .. } => Some(Color::Black),
            Termination::IllegalMove { by, .. }
            | Termination::TimeForfeit { by, .. }
            | Termination::Crash { by, .. }
            | Termination::FailedStart { by, .. }
            | Termination::MemoryLimit { by, .. }
            | Termination::EngineError { by, .. }
            | Termination::SwapIllegal { by, .. }
            | Termination::AdjudicatedResign { by, .. } => Some(*by),
            Termination::FullBoard
            | Termination::DrawAfter { .. }
            | Termination::AdjudicatedDraw { .. } => None,
        }
    }

    /// The result from black's side.
    pub fn result(&self) -> GameResult {
        match self.loser() {
            Some(l) => GameResult::win_for(l.opponent()),
            None => GameResult::Draw,
        }
    }

    /// The colour whose engine misbehaved (timeout, crash, failed start, an `ERROR` instead of
    /// a move): it is killed and
    /// restarted before its next game, and `-fatalerror` stops the run.
    pub fn faulty(&self) -> Option<Color> {
        match self {
            Termination::TimeForfeit { by, .. }
            | Termination::Crash { by, .. }
            | Termination::FailedStart { by, .. }
            | Termination::MemoryLimit { by, .. }
            | Termination::EngineError { by, .. } => Some(*by),
            _ => None,
        }
    }

    /// Whether the loser's engine misbehaved.
    pub fn engine_fault(&self) -> bool {
        self.faulty().is_some()
    }

    /// A forbidden move that ended the game (it is not on the board; SGF and the journal show it).
    pub fn forbidden_move(&self) -> Option<Pos> {
        match self {
            Termination::Forbidden { at, .. } => Some(*at),
            _ => None,
        }
    }

    /// Whether the game counts for training samples (the predecessor's rule, extended to crashes).
    pub fn yields_samples(&self) -> bool {
        !matches!(
            self,
            Termination::IllegalMove { .. }
                | Termination::TimeForfeit { .. }
                | Termination::Crash { .. }
                | Termination::FailedStart { .. }
                | Termination::MemoryLimit { .. }
                | Termination::EngineError { .. }
                | Termination::SwapIllegal { .. }
        )
    }

    /// Human text, points in pos notation like the records: "black makes five", "white loses on
    /// time (5.123 s > 5.000 s)", "black played a forbidden move (double-three) at j6".
    pub fn reason(&self, size: BoardSize) -> String {
        match self {
            Termination::Five { winner, .. } => format!("{winner} makes five"),
            Termination::Forbidden { kind, at } => {
                format!(
                    "black played a forbidden move ({kind}) at {}",
                    point(*at, size)
                )
            }
            Termination::IllegalMove { by, kind, text, at } => match (kind, at) {
                (IllegalMoveKind::Unparsable, _) => {
                    format!("{by} sent an unparsable move {text:?}")
                }
                (IllegalMoveKind::Occupied, Some(p)) => format!(
                    "{by} played an illegal move {} (occupied point)",
                    point(*p, size)
                ),
                (IllegalMoveKind::Occupied, None) => {
                    format!("{by} played an illegal move {text} (occupied point)")
                }
                (IllegalMoveKind::OffBoard, _) => {
                    format!("{by} played an illegal move {text} (off the board)")
                }
            },
            Termination::TimeForfeit {
                by,
                elapsed,
                limit,
                said,
            } => {
                let instead = said
                    .as_ref()
                    .map_or(String::new(), |s| format!(", having answered only {s:?}"));
                format!(
                    "{by} loses on time ({} > {}{instead})",
                    ms(*elapsed),
                    ms(*limit)
                )
            }
            Termination::Crash { by, status } => format!("{by} engine crashed ({status})"),
            Termination::FailedStart { by, text } => format!("{by} failed to start: {text}"),
            Termination::MemoryLimit { by, peak, limit } => format!(
                "{by} exceeded its memory limit ({} MiB > {} MiB)",
                peak >> 20,
                limit >> 20
            ),
            Termination::EngineError { by, text } => {
                format!("{by} answered {text:?} instead of a move")
            }
            Termination::FullBoard => "board full".into(),
            Termination::DrawAfter { stones } => format!("draw after {stones} stones"),
            Termination::SwapIllegal { by, answer, why } => {
                format!("{by} gave an illegal SWAP2BOARD answer {answer:?}: {why}")
            }
            Termination::AdjudicatedDraw {
                moves,
                score,
                black,
                white,
            } => format!(
                "adjudicated draw: both evals within {score} of zero for {moves} moves each \
                 (black {black}, white {white})"
            ),
            Termination::AdjudicatedResign {
                by,
                moves,
                eval,
                score,
                opponent,
            } => resign_reason(*by, *moves, *eval, *score, *opponent),
        }
    }
}

/// The reason text of an adjudicated resignation (see [`Termination::AdjudicatedResign`]).
fn resign_reason(
    by: Color,
    moves: u32,
    eval: Eval,
    score: Option<u32>,
    opponent: Option<Eval>,
) -> String {
    let why = match score {
        None => format!("reported a proven loss on {moves} moves in a row (last {eval})"),
        Some(s) => format!("eval at or below -{s} for {moves} moves (last {eval})"),
    };
    let agreed = opponent.map_or(String::new(), |o| {
        format!(", {} agreed ({o})", by.opponent())
    });
    format!("{by} resigns by adjudication: {why}{agreed}")
}

/// One played move with its think time and what the engine said about its search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedMove {
    pub pos: Pos,
    pub time: Duration,
    /// Boxed: most moves of most engines carry none, and a game keeps every move.
    pub search: Option<Box<SearchReport>>,
}

/// Everything the referee knows about a finished game. Result, reason and fault come from the
/// termination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameOutcome {
    pub termination: Termination,
    /// Legal moves played after the opening, in order, with think times.
    pub moves: Vec<PlayedMove>,
    /// `MESSAGE` lines in order, by colour.
    pub messages: Vec<(Color, String)>,
}

impl GameOutcome {
    /// The result from black's side.
    pub fn result(&self) -> GameResult {
        self.termination.result()
    }
}

/// A game that did not finish because the run was stopped: not counted, not written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abandoned;

/// Fixed parameters of one game.
#[derive(Debug, Clone)]
pub struct GameSetup {
    pub size: BoardSize,
    pub rule: Rule,
    /// Opening stones in order, black first (already validated).
    pub opening: Vec<Pos>,
    /// Draw when this many stones stand on the board (0 = never).
    pub draw_after: usize,
    /// `-draw`/`-resign`: ends decided by the engines' evaluations.
    pub adjudication: Adjudication,
    /// Send the whole board with `BOARD` before every move.
    pub send_by_board: bool,
    pub black_clock: Clock,
    pub white_clock: Clock,
}

fn ms(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

/// One player's clock during a game.
#[derive(Debug, Clone, Copy)]
struct Side {
    clock: Clock,
    time_left: Option<Duration>,
    has_moved: bool,
}

impl Side {
    fn new(clock: Clock) -> Side {
        Side {
            clock,
            time_left: clock.match_time,
            has_moved: false,
        }
    }

    /// Before a request: credit the increment; returns what the player is told it has left, the
    /// limit of this answer (turn time or time left) and the deadline (limit + tolerance).
    fn budget(&mut self) -> (Option<Duration>, Option<Duration>, Option<Duration>) {
        // Saturating: a clock built from the largest durations must not overflow mid-game.
        if let Some(t) = self.time_left.as_mut() {
            *t = t.saturating_add(self.clock.increment);
        }
        let limit = match (self.clock.turn_time, self.time_left) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        (
            self.time_left,
            limit,
            limit.map(|l| l.saturating_add(self.clock.tolerance)),
        )
    }

    /// After an answer: its think time comes off the match time.
    fn spend(&mut self, elapsed: Duration) {
        if let Some(t) = self.time_left.as_mut() {
            *t = t.saturating_sub(elapsed);
        }
    }
}

/// The time loss of an answer that took `elapsed`: on time when elapsed − tolerance ≤ the limit
/// (turn time or match time left).
fn over_time(
    by: Color,
    elapsed: Duration,
    limit: Option<Duration>,
    tolerance: Duration,
) -> Option<Termination> {
    let limit = limit?;
    (elapsed.saturating_sub(tolerance) > limit).then_some(Termination::TimeForfeit {
        by,
        elapsed,
        limit,
        said: None,
    })
}

/// What a game played: the moves after the opening and the engines' messages.
#[derive(Debug, Default)]
struct MovesPlayed {
    moves: Vec<PlayedMove>,
    messages: Vec<(Color, String)>,
}

impl Failure {
    /// The one path from a player's failure to how the game ends. `limit` is the time the player
    /// had for this answer (for a timeout's reason text); `at_start` when it failed to start.
    pub fn termination(self, by: Color, limit: Option<Duration>, at_start: bool) -> Termination {
        match (self, at_start) {
            (Failure::StartFailed { text }, true) => Termination::FailedStart { by, text },
            (Failure::Crashed { status }, true) => Termination::FailedStart {
                by,
                text: format!("crashed at start ({status})"),
            },
            (Failure::Timeout { elapsed, .. }, true) => Termination::FailedStart {
                by,
                text: format!("no answer to START in {}", ms(elapsed)),
            },
            (Failure::MemoryLimit { peak, limit }, _) => {
                Termination::MemoryLimit { by, peak, limit }
            }
            (Failure::Timeout { elapsed, said }, false) => Termination::TimeForfeit {
                by,
                elapsed,
                limit: limit.unwrap_or(Duration::ZERO),
                said,
            },
            (Failure::Crashed { status }, false)
            | (Failure::StartFailed { text: status }, false) => Termination::Crash { by, status },
        }
    }
}

/// Ask `color`'s player for a move, or `Abandoned` when `cancel` fires first.
async fn ask<B: Player, W: Player>(
    color: Color,
    black: &mut B,
    white: &mut W,
    request: Request,
    time_left: Option<Duration>,
    deadline: Option<Duration>,
    cancel: &CancellationToken,
) -> Result<Result<Reply, Failure>, Abandoned> {
    tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(Abandoned),
        r = async {
            match color {
                Color::Black => black.request_move(request, time_left, deadline).await,
                Color::White => white.request_move(request, time_left, deadline).await,
            }
        } => Ok(r),
    }
}

/// Start both players; the first that fails loses whatever its colour.
async fn start_both<B: Player, W: Player>(
    setup: &GameSetup,
    black: &mut B,
    white: &mut W,
    cancel: &CancellationToken,
) -> Result<Option<Termination>, Abandoned> {
    for color in [Color::Black, Color::White] {
        let started = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(Abandoned),
            r = async {
                match color {
                    Color::Black => black.new_game(setup.size, setup.rule).await,
                    Color::White => white.new_game(setup.size, setup.rule).await,
                }
            } => r,
        };
        if let Err(f) = started {
            return Ok(Some(f.termination(color, None, true)));
        }
    }
    Ok(None)
}

/// The request for the side to move: the first move, the opponent's last move, or the board.
fn request_for(referee: &Referee, color: Color, side: &Side, by_board: bool) -> Request {
    let history = referee.board().history();
    match history.last() {
        None => Request::Begin,
        Some(&last) if !by_board && side.has_moved => Request::Turn(last),
        Some(_) => Request::Board {
            stones: history.to_vec(),
            own: color,
        },
    }
}

/// Judge a reply: `Ok(pos)` when the game goes on with the move placed, `Err` when it ends.
fn judge_reply(
    referee: &mut Referee,
    color: Color,
    reply: &Reply,
    limit: Option<Duration>,
    tolerance: Duration,
    moves: &mut Vec<PlayedMove>,
) -> Result<(), Termination> {
    if let Some(t) = over_time(color, reply.elapsed, limit, tolerance) {
        return Err(t);
    }
    let Some((x, y)) = reply.coords else {
        return Err(Termination::IllegalMove {
            by: color,
            kind: IllegalMoveKind::Unparsable,
            text: reply.raw.clone(),
            at: None,
        });
    };
    let size = referee.board().size();
    let on_board = size.pos(x, y).ok();
    let outcome = referee.play_xy(x, y);
    let played = PlayedMove {
        pos: on_board.unwrap_or(Pos::new(0, 0)),
        time: reply.elapsed,
        search: reply.search.clone(),
    };
    match outcome {
        MoveOutcome::Continue => {
            moves.push(played);
            Ok(())
        }
        MoveOutcome::Illegal(kind) => Err(Termination::IllegalMove {
            by: color,
            kind: match kind {
                IllegalKind::Occupied => IllegalMoveKind::Occupied,
                IllegalKind::OffBoard => IllegalMoveKind::OffBoard,
            },
            text: format!("{x},{y}"),
            at: on_board,
        }),
        MoveOutcome::Forbidden(kind) => Err(Termination::Forbidden {
            kind,
            at: played.pos,
        }),
        MoveOutcome::Win { color: c, line } => {
            moves.push(played);
            Err(Termination::Five { winner: c, line })
        }
        MoveOutcome::Draw => {
            moves.push(played);
            Err(Termination::FullBoard)
        }
    }
}

/// Play one game between `black` and `white`. Returns `Err(Abandoned)` if `cancel` fires first.
pub async fn play_game<B: Player, W: Player>(
    setup: &GameSetup,
    black: &mut B,
    white: &mut W,
    cancel: &CancellationToken,
) -> Result<GameOutcome, Abandoned> {
    let mut played = MovesPlayed::default();
    let termination = match start_both(setup, black, white, cancel).await? {
        Some(t) => t,
        None => {
            let sides = [Side::new(setup.black_clock), Side::new(setup.white_clock)];
            let mut referee = referee_after(setup, &setup.opening);
            play_moves(
                setup,
                &mut referee,
                black,
                white,
                sides,
                cancel,
                &mut played,
            )
            .await?
        }
    };
    Ok(GameOutcome {
        termination,
        moves: played.moves,
        messages: played.messages,
    })
}

/// A referee with `stones` placed, the game's start position.
fn referee_after(setup: &GameSetup, stones: &[Pos]) -> Referee {
    let mut referee = Referee::new(setup.rule, setup.size);
    for &p in stones {
        // Openings are validated when loaded (swap stones when answered); a stone that still
        // does not fit is a bug upstream, but judging it as an ordinary game is better than a
        // panic.
        let _ = referee.play(p);
    }
    referee
}

/// The move loop from `referee`'s position with the clocks `sides` (black, white): returns how
/// the game ended.
async fn play_moves<B: Player, W: Player>(
    setup: &GameSetup,
    referee: &mut Referee,
    black: &mut B,
    white: &mut W,
    mut sides: [Side; 2],
    cancel: &CancellationToken,
    played: &mut MovesPlayed,
) -> Result<Termination, Abandoned> {
    let draw_reached =
        |r: &Referee| setup.draw_after > 0 && r.board().stone_count() >= setup.draw_after;
    if referee.board().is_full() {
        return Ok(Termination::FullBoard);
    }
    let mut adjudicator = Adjudicator::new(setup.adjudication);
    loop {
        if draw_reached(referee) {
            return Ok(Termination::DrawAfter {
                stones: referee.board().stone_count(),
            });
        }
        let color = referee.side_to_move();
        let side = &mut sides[color as usize];
        let by_board = setup.send_by_board
            || match color {
                Color::Black => black.wants_board(),
                Color::White => white.wants_board(),
            };
        let request = request_for(referee, color, side, by_board);
        let (time_left, limit, deadline) = side.budget();
        let reply = ask(color, black, white, request, time_left, deadline, cancel).await?;
        let msgs = match color {
            Color::Black => black.take_messages(),
            Color::White => white.take_messages(),
        };
        played.messages.extend(msgs.into_iter().map(|m| (color, m)));
        let side = &mut sides[color as usize];
        side.has_moved = true;
        let reply = reply.map_err(|f| f.termination(color, limit, false));
        let judged = reply.and_then(|r| {
            side.spend(r.elapsed);
            judge_reply(
                referee,
                color,
                &r,
                limit,
                side.clock.tolerance,
                &mut played.moves,
            )
        });
        if let Err(t) = judged {
            return Ok(t);
        }
        match color {
            Color::Black => black.after_move(referee.board()),
            Color::White => white.after_move(referee.board()),
        }
        if let Some(t) = adjudicator.after_played(color, &played.moves) {
            return Ok(t);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::core::board::parse_pos_sequence;
    use std::collections::VecDeque;

    /// One termination of each kind. The match has no wildcard: a new variant does not compile
    /// until it is added here, and then to [`TERMINATIONS`] (the test below).
    pub(crate) fn one_of_each() -> Vec<Termination> {
        let (by, at) = (Color::Black, Pos::new(7, 7));
        let all = vec![
            Termination::Five {
                winner: by,
                line: vec![],
            },
            Termination::Forbidden {
                kind: ForbiddenKind::Overline,
                at,
            },
            Termination::IllegalMove {
                by,
                kind: IllegalMoveKind::Occupied,
                text: "7,7".into(),
                at: Some(at),
            },
            Termination::TimeForfeit {
                by,
                elapsed: Duration::from_secs(2),
                limit: Duration::from_secs(1),
                said: None,
            },
            Termination::Crash {
                by,
                status: "exit status 1".into(),
            },
            Termination::FailedStart {
                by,
                text: "x".into(),
            },
            Termination::MemoryLimit {
                by,
                peak: 2,
                limit: 1,
            },
            Termination::EngineError {
                by,
                text: "ERROR".into(),
            },
            Termination::FullBoard,
            Termination::DrawAfter { stones: 100 },
            Termination::SwapIllegal {
                by,
                answer: "x".into(),
                why: "y".into(),
            },
            Termination::AdjudicatedDraw {
                moves: 4,
                score: 10,
                black: Eval::Score(3),
                white: Eval::Score(-5),
            },
            Termination::AdjudicatedResign {
                by,
                moves: 3,
                eval: Eval::Score(-500),
                score: Some(400),
                opponent: Some(Eval::Score(450)),
            },
        ];
        for t in &all {
            match t {
                Termination::Five { .. }
                | Termination::Forbidden { .. }
                | Termination::IllegalMove { .. }
                | Termination::TimeForfeit { .. }
                | Termination::Crash { .. }
                | Termination::FailedStart { .. }
                | Termination::MemoryLimit { .. }
                | Termination::EngineError { .. }
                | Termination::FullBoard
                | Termination::DrawAfter { .. }
                | Termination::SwapIllegal { .. }
                | Termination::AdjudicatedDraw { .. }
                | Termination::AdjudicatedResign { .. } => {}
            }
        }
        all
    }

    #[test]
    fn results_read_back_what_they_write_and_nothing_else() {
        for r in [
            GameResult::BlackWins,
            GameResult::WhiteWins,
            GameResult::Draw,
        ] {
            assert_eq!(r.as_str().parse::<GameResult>(), Ok(r));
            assert_eq!(format!(" {} ", r.as_str()).parse::<GameResult>(), Ok(r));
        }
        for bad in ["", "1-1", "½-½", "1/2", "B+", "1-0x"] {
            assert_eq!(
                bad.parse::<GameResult>(),
                Err(UnknownResult(bad.to_string())),
                "{bad}"
            );
        }
    }

    /// A player that answers from a script; each entry is the reply or a failure.
    pub(super) struct Scripted {
        pub(super) answers: VecDeque<Result<Reply, Failure>>,
        pub(super) start: Result<(), Failure>,
        pub(super) requests: Vec<(Request, Option<Duration>, Option<Duration>)>,
        pub(super) messages: Vec<String>,
        /// Answers to SWAP2BOARD, and the stones and times each was asked with.
        pub(super) swaps: VecDeque<Result<SwapReply, Failure>>,
        pub(super) swap_requests: Vec<(Vec<Pos>, Option<Duration>, Option<Duration>)>,
        /// How many times it was asked to start a game (`new_game`).
        pub(super) starts: usize,
        /// The answer to every start after the first.
        pub(super) restart: Result<(), Failure>,
    }

    pub(super) fn mv(x: i64, y: i64, ms: u64) -> Result<Reply, Failure> {
        Ok(Reply {
            raw: format!("{x},{y}"),
            coords: Some((x, y)),
            elapsed: Duration::from_millis(ms),
            search: None,
        })
    }

    impl Scripted {
        pub(super) fn new(answers: Vec<Result<Reply, Failure>>) -> Self {
            Scripted {
                answers: answers.into(),
                start: Ok(()),
                requests: vec![],
                messages: vec![],
                swaps: VecDeque::new(),
                swap_requests: vec![],
                starts: 0,
                restart: Ok(()),
            }
        }
    }

    impl Player for Scripted {
        async fn new_game(&mut self, _: BoardSize, _: Rule) -> Result<(), Failure> {
            self.starts += 1;
            match self.starts {
                1 => self.start.clone(),
                _ => self.restart.clone(),
            }
        }
        async fn request_move(
            &mut self,
            request: Request,
            time_left: Option<Duration>,
            deadline: Option<Duration>,
        ) -> Result<Reply, Failure> {
            self.requests.push((request, time_left, deadline));
            self.messages.push(format!("move {}", self.requests.len()));
            self.answers.pop_front().unwrap_or(Err(Failure::Crashed {
                status: "script exhausted".into(),
            }))
        }
        async fn swap_request(
            &mut self,
            stones: Vec<Pos>,
            time_left: Option<Duration>,
            deadline: Option<Duration>,
        ) -> Result<SwapReply, Failure> {
            self.swap_requests.push((stones, time_left, deadline));
            self.messages
                .push(format!("swap {}", self.swap_requests.len()));
            self.swaps.pop_front().unwrap_or(Err(Failure::Crashed {
                status: "swap script exhausted".into(),
            }))
        }
        fn take_messages(&mut self) -> Vec<String> {
            std::mem::take(&mut self.messages)
        }
    }

    pub(super) fn setup(rule: Rule, opening: &str) -> GameSetup {
        let size = BoardSize::new(15).unwrap();
        GameSetup {
            size,
            rule,
            opening: parse_pos_sequence(opening, size).unwrap(),
            draw_after: 0,
            adjudication: Adjudication::default(),
            send_by_board: false,
            black_clock: Clock::UNLIMITED,
            white_clock: Clock::UNLIMITED,
        }
    }

    async fn run(s: &GameSetup, b: &mut Scripted, w: &mut Scripted) -> GameOutcome {
        play_game(s, b, w, &CancellationToken::new()).await.unwrap()
    }

    /// The game between two scripts whose requests are not looked at afterwards.
    async fn play(
        s: &GameSetup,
        black: Vec<Result<Reply, Failure>>,
        white: Vec<Result<Reply, Failure>>,
    ) -> GameOutcome {
        run(s, &mut Scripted::new(black), &mut Scripted::new(white)).await
    }

    #[tokio::test]
    async fn an_engine_that_answers_only_error_loses_on_time_with_the_error_quoted() {
        let s = setup(Rule::Freestyle, "");
        let timeout = Err(Failure::Timeout {
            elapsed: Duration::from_millis(4500),
            said: Some("ERROR Board is not empty.".into()),
        });
        let mut b = Scripted::new(vec![timeout]);
        let mut w = Scripted::new(vec![]);
        let o = run(&s, &mut b, &mut w).await;
        assert_eq!(o.termination.code(), "time_forfeit");
        assert_eq!(o.result(), GameResult::WhiteWins);
        assert_eq!(o.termination.faulty(), Some(Color::Black));
        assert!(!o.termination.yields_samples());
        assert!(
            o.termination
                .reason(s.size)
                .ends_with(", having answered only \"ERROR Board is not empty.\")"),
            "{}",
            o.termination.reason(s.size)
        );
        assert!(w.requests.is_empty());
        // Journals of earlier versions end such games as `engine_error`: still read and told.
        let old = Termination::EngineError {
            by: Color::Black,
            text: "ERROR Board is not empty.".into(),
        };
        assert_eq!(
            old.reason(s.size),
            "black answered \"ERROR Board is not empty.\" instead of a move"
        );
    }

    #[tokio::test]
    async fn five_wins_and_requests_follow_the_protocol() {
        let s = setup(Rule::Freestyle, "");
        let mut b = Scripted::new((0..5).map(|i| mv(i, 0, 1)).collect());
        let mut w = Scripted::new((0..4).map(|i| mv(i, 1, 1)).collect());
        let o = run(&s, &mut b, &mut w).await;
        assert_eq!(o.result(), GameResult::BlackWins);
        assert!(
            matches!(o.termination, Termination::Five { ref line, winner: Color::Black } if line.len() == 5)
        );
        assert_eq!(o.moves.len(), 9);
        assert_eq!(b.requests[0].0, Request::Begin);
        assert_eq!(b.requests[1].0, Request::Turn(Pos::new(0, 1)));
        // White's first request shows the board, later ones the last move.
        assert!(
            matches!(w.requests[0].0, Request::Board { ref stones, own: Color::White } if stones.len() == 1)
        );
        assert_eq!(w.requests[1].0, Request::Turn(Pos::new(1, 0)));
        assert_eq!(o.messages[0], (Color::Black, "move 1".to_string()));
    }

    #[tokio::test]
    async fn opening_then_board_for_both_engines() {
        let s = setup(Rule::Freestyle, "h8i9");
        let mut b = Scripted::new(vec![mv(0, 0, 1), mv(1, 0, 1)]);
        let mut w = Scripted::new(vec![Ok(Reply {
            raw: "hello world".into(),
            coords: None,
            elapsed: Duration::ZERO,
            search: None,
        })]);
        let o = run(&s, &mut b, &mut w).await;
        assert!(
            matches!(b.requests[0].0, Request::Board { ref stones, own: Color::Black } if stones.len() == 2)
        );
        assert_eq!(o.result(), GameResult::BlackWins);
        assert_eq!(
            o.termination,
            Termination::IllegalMove {
                by: Color::White,
                kind: IllegalMoveKind::Unparsable,
                text: "hello world".into(),
                at: None,
            }
        );
    }

    #[tokio::test]
    async fn illegal_and_offboard_moves_lose() {
        let s = setup(Rule::Freestyle, "h8");
        let o = play(&s, vec![], vec![mv(7, 7, 1)]).await;
        assert_eq!(o.result(), GameResult::BlackWins);
        assert!(matches!(
            o.termination,
            Termination::IllegalMove {
                kind: IllegalMoveKind::Occupied,
                ..
            }
        ));
        let o = play(&s, vec![], vec![mv(15, 15, 1)]).await;
        assert!(matches!(
            o.termination,
            Termination::IllegalMove {
                kind: IllegalMoveKind::OffBoard,
                ..
            }
        ));
    }

    #[tokio::test]
    async fn failed_start_loses_whatever_the_colour() {
        let s = setup(Rule::Freestyle, "");
        let mut b = Scripted::new(vec![]);
        let mut w = Scripted::new(vec![]);
        w.start = Err(Failure::StartFailed {
            text: "ERROR cannot start".into(),
        });
        let o = run(&s, &mut b, &mut w).await;
        assert_eq!(o.result(), GameResult::BlackWins);
        assert_eq!(o.termination.faulty(), Some(Color::White));
        assert!(matches!(o.termination, Termination::FailedStart { .. }));
        let mut b = Scripted::new(vec![]);
        b.start = Err(Failure::StartFailed { text: "x".into() });
        let mut w = Scripted::new(vec![]);
        let o = run(&s, &mut b, &mut w).await;
        assert_eq!(o.result(), GameResult::WhiteWins);
    }

    #[tokio::test]
    async fn clocks_increment_and_time_forfeit() {
        let mut s = setup(Rule::Freestyle, "");
        s.black_clock = Clock {
            match_time: Some(Duration::from_secs(10)),
            turn_time: Some(Duration::from_secs(5)),
            increment: Duration::from_secs(1),
            tolerance: Duration::from_secs(1),
        };
        // Black uses 4 s (on time), then 6.5 s: turn limit 5 s + tolerance 1 s exceeded.
        let mut b = Scripted::new(vec![mv(0, 0, 4000), mv(1, 0, 6500)]);
        let mut w = Scripted::new(vec![mv(0, 5, 1)]);
        let o = run(&s, &mut b, &mut w).await;
        // First request: 10 s + 1 s increment; deadline = min(5, 11) + 1.
        assert_eq!(b.requests[0].1, Some(Duration::from_secs(11)));
        assert_eq!(b.requests[0].2, Some(Duration::from_secs(6)));
        // Second: 11 - 4 + 1 = 8 s left.
        assert_eq!(b.requests[1].1, Some(Duration::from_secs(8)));
        assert_eq!(o.result(), GameResult::WhiteWins);
        assert!(matches!(o.termination, Termination::TimeForfeit { .. }));
        assert_eq!(o.termination.faulty(), Some(Color::Black));
        // A reported timeout from the session is a forfeit too.
        let timeout = Err(Failure::Timeout {
            elapsed: Duration::from_secs(7),
            said: None,
        });
        let o = play(&s, vec![timeout], vec![]).await;
        assert!(matches!(o.termination, Termination::TimeForfeit { .. }));
    }

    #[tokio::test]
    async fn the_largest_clocks_do_not_overflow() {
        // Fuzz finding (cli), found next to it: a time control and tolerance near the largest
        // `Duration` overflowed when the increment and the tolerance were added.
        let mut s = setup(Rule::Freestyle, "");
        let huge = Clock {
            match_time: Some(Duration::MAX),
            turn_time: Some(Duration::MAX),
            increment: Duration::MAX,
            tolerance: Duration::MAX,
        };
        (s.black_clock, s.white_clock) = (huge, huge);
        let mut b = Scripted::new(vec![mv(0, 0, 1), mv(1, 0, 1)]);
        let mut w = Scripted::new(vec![mv(0, 5, 1)]);
        let o = run(&s, &mut b, &mut w).await;
        assert_eq!(b.requests[0].1, Some(Duration::MAX));
        assert_eq!(b.requests[0].2, Some(Duration::MAX));
        assert!(!matches!(o.termination, Termination::TimeForfeit { .. }));
    }

    #[tokio::test]
    async fn crash_loses_and_drawafter_counts_opening_stones() {
        let s = setup(Rule::Freestyle, "h8");
        let crashed = Err(Failure::Crashed {
            status: "exit status 3".into(),
        });
        let o = play(&s, vec![], vec![crashed]).await;
        assert_eq!(o.result(), GameResult::BlackWins);
        assert_eq!(o.termination.faulty(), Some(Color::White));
        let mut s = setup(Rule::Freestyle, "h8i9");
        s.draw_after = 4;
        let o = play(&s, vec![mv(0, 0, 1)], vec![mv(14, 14, 1)]).await;
        assert_eq!(o.result(), GameResult::Draw);
        assert_eq!(o.termination, Termination::DrawAfter { stones: 4 });
        assert_eq!(o.moves.len(), 2);
    }

    #[tokio::test]
    async fn cancellation_abandons_the_game() {
        let s = setup(Rule::Freestyle, "");
        let cancel = CancellationToken::new();
        cancel.cancel();
        let r = play_game(
            &s,
            &mut Scripted::new(vec![]),
            &mut Scripted::new(vec![]),
            &cancel,
        )
        .await;
        assert_eq!(r, Err(Abandoned));
    }

    #[tokio::test]
    async fn reasons_name_points_in_pos_notation_like_the_records() {
        // White answers on black's opening stone h8 (Gomocup 7,7): the reason says h8, as the
        // journal, PGN and SGF do, not the protocol's 7,7.
        let s = setup(Rule::Freestyle, "h8");
        let o = play(&s, vec![], vec![mv(7, 7, 1)]).await;
        assert_eq!(
            o.termination.reason(s.size),
            "white played an illegal move h8 (occupied point)"
        );
        let forbidden = Termination::Forbidden {
            kind: crate::core::rules::ForbiddenKind::DoubleThree,
            at: Pos::new(9, 9),
        };
        assert_eq!(
            forbidden.reason(s.size),
            "black played a forbidden move (double-three) at j10"
        );
        // Off the board there is no pos notation: the engine's own text is shown.
        let o = play(&s, vec![], vec![mv(15, 3, 1)]).await;
        assert_eq!(
            o.termination.reason(s.size),
            "white played an illegal move 15,3 (off the board)"
        );
    }

    #[test]
    fn termination_derives_result_loser_and_fault() {
        let by = Color::White;
        let cases = [
            (
                Termination::Five {
                    winner: Color::Black,
                    line: vec![],
                },
                GameResult::BlackWins,
                None,
            ),
            (
                Termination::Crash {
                    by,
                    status: "x".into(),
                },
                GameResult::BlackWins,
                Some(by),
            ),
            (
                Termination::FailedStart {
                    by: Color::Black,
                    text: "x".into(),
                },
                GameResult::WhiteWins,
                Some(Color::Black),
            ),
            (
                Termination::TimeForfeit {
                    by,
                    elapsed: Duration::ZERO,
                    limit: Duration::ZERO,
                    said: None,
                },
                GameResult::BlackWins,
                Some(by),
            ),
            (
                Termination::IllegalMove {
                    by,
                    kind: IllegalMoveKind::OffBoard,
                    text: "x".into(),
                    at: None,
                },
                GameResult::BlackWins,
                None,
            ),
            (
                Termination::Forbidden {
                    kind: crate::core::rules::ForbiddenKind::Overline,
                    at: Pos::new(0, 0),
                },
                GameResult::WhiteWins,
                None,
            ),
            (Termination::FullBoard, GameResult::Draw, None),
            (Termination::DrawAfter { stones: 9 }, GameResult::Draw, None),
        ];
        for (t, result, faulty) in cases {
            assert_eq!(t.result(), result, "{t:?}");
            assert_eq!(t.faulty(), faulty, "{t:?}");
            assert_eq!(t.engine_fault(), faulty.is_some(), "{t:?}");
            assert_eq!(t.loser(), result.winner().map(Color::opponent), "{t:?}");
        }
    }
}
