//! The referee loop of one game: asks the two players for moves, keeps their clocks, judges every
//! move and ends with a `GameOutcome` carrying exactly one `Termination`.
//!
//! Players are abstract (`Player`), so the loop is tested with scripted players and run with real
//! engine sessions.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio_util::sync::{CancellationToken, WaitForCancellationFuture};

use crate::core::board::{BoardSize, Color, Pos};
use crate::core::rules::{IllegalKind, MoveOutcome, Referee, Rule};
use crate::core::swap::SwapReply;
use crate::game::adjudicate::{Adjudication, Adjudicator};
use crate::game::record::{GameOutcome, PlayedMove};
use crate::game::termination::{seconds, IllegalMoveKind, Termination};

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

/// One player's clock during a game.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Side {
    pub(crate) clock: Clock,
    pub(crate) time_left: Option<Duration>,
    pub(crate) has_moved: bool,
}

impl Side {
    pub(crate) fn new(clock: Clock) -> Side {
        Side {
            clock,
            time_left: clock.match_time,
            has_moved: false,
        }
    }

    /// Before a request: credit the increment; returns what the player is told it has left, the
    /// limit of this answer (turn time or time left) and the deadline (limit + tolerance).
    pub(crate) fn budget(&mut self) -> (Option<Duration>, Option<Duration>, Option<Duration>) {
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
    pub(crate) fn spend(&mut self, elapsed: Duration) {
        if let Some(t) = self.time_left.as_mut() {
            *t = t.saturating_sub(elapsed);
        }
    }
}

/// The time loss of an answer that took `elapsed`: on time when elapsed − tolerance ≤ the limit
/// (turn time or match time left).
pub(crate) fn over_time(
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
pub(crate) struct MovesPlayed {
    pub(crate) moves: Vec<PlayedMove>,
    pub(crate) messages: Vec<(Color, String)>,
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
                text: format!("no answer to START in {}", seconds(elapsed)),
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

/// Ask `color`'s player for a move, or `Abandoned` when `cancelled` (the game's wait for its
/// token, made once a game: a wait made afresh each move joins and leaves the token's list of
/// waiters every move) completes first.
async fn ask<B: Player, W: Player>(
    color: Color,
    black: &mut B,
    white: &mut W,
    request: Request,
    time_left: Option<Duration>,
    deadline: Option<Duration>,
    cancelled: Pin<&mut WaitForCancellationFuture<'_>>,
) -> Result<Result<Reply, Failure>, Abandoned> {
    tokio::select! {
        biased;
        _ = cancelled => Err(Abandoned),
        r = async {
            match color {
                Color::Black => black.request_move(request, time_left, deadline).await,
                Color::White => white.request_move(request, time_left, deadline).await,
            }
        } => Ok(r),
    }
}

/// Start both players; the first that fails loses whatever its colour.
pub(crate) async fn start_both<B: Player, W: Player>(
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
pub(crate) fn referee_after(setup: &GameSetup, stones: &[Pos]) -> Referee {
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
pub(crate) async fn play_moves<B: Player, W: Player>(
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
    let cancelled = cancel.cancelled();
    tokio::pin!(cancelled);
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
        let reply = ask(
            color,
            black,
            white,
            request,
            time_left,
            deadline,
            cancelled.as_mut(),
        )
        .await?;
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
pub(crate) mod tests;
