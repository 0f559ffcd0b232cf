//! The referee loop of one game: asks the two players for moves, keeps their clocks, judges every
//! move and ends with a `GameRecord` carrying exactly one `Termination`.
//!
//! Players are abstract (`Player`), so the loop is tested with scripted players and run with real
//! engine sessions.

use std::fmt;
use std::future::Future;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::board::{BoardSize, Color, Pos};
use crate::rules::{ForbiddenKind, IllegalKind, MoveOutcome, Referee, Rule};

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

/// A player's answer to a move request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The line as received (for the record of an unparsable move).
    pub raw: String,
    /// Coordinates when the line was a move.
    pub coords: Option<(i64, i64)>,
    /// Think time on a monotonic clock, from the command to the answer.
    pub elapsed: Duration,
}

/// Why a player could not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No answer before the deadline (the caller kills the engine).
    Timeout { elapsed: Duration },
    /// The engine process ended or its pipes broke.
    Crashed { status: String },
    /// START (or RESTART) answered with an error or not at all.
    StartFailed { text: String },
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

    /// `MESSAGE` lines received since the last call.
    fn take_messages(&mut self) -> Vec<String>;

    /// Called after this player's move was placed (for `-debug` board printing).
    fn after_move(&mut self, _board: &crate::board::Board) {}
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IllegalMoveKind {
    Occupied,
    OffBoard,
    Unparsable,
}

/// Every way a game can end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Termination {
    /// A winning line under the rule (five, or overline where it wins).
    Five { line: Vec<Pos> },
    /// Black played a renju forbidden point and loses.
    Forbidden { kind: ForbiddenKind, at: Pos },
    /// A move that cannot be played; the offender loses.
    IllegalMove { kind: IllegalMoveKind, text: String },
    /// Over the turn or match time (beyond the tolerance); the offender loses.
    TimeForfeit { elapsed: Duration, limit: Duration },
    /// The engine process died or its pipes broke; it loses.
    Crash { status: String },
    /// The engine failed to start the game; it loses whatever its colour.
    FailedStart { text: String },
    /// The board filled up without a winner: a draw.
    FullBoard,
    /// `-drawafter`: the stones on the board (opening included) reached the limit: a draw.
    DrawAfter { stones: usize },
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
            Termination::FullBoard => "full_board",
            Termination::DrawAfter { .. } => "draw_after",
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
        )
    }

    /// Whether the loser's engine misbehaved (it is restarted before its next game).
    pub fn engine_fault(&self) -> bool {
        matches!(
            self,
            Termination::TimeForfeit { .. }
                | Termination::Crash { .. }
                | Termination::FailedStart { .. }
        )
    }
}

/// One played move with its think time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayedMove {
    pub pos: Pos,
    pub time: Duration,
}

/// Everything the referee knows about a finished game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameOutcome {
    pub result: GameResult,
    pub termination: Termination,
    /// Human text: "black makes five", "white loses on time (5.123 s > 5.000 s)", ...
    pub reason: String,
    /// Legal moves played after the opening, in order, with think times.
    pub moves: Vec<PlayedMove>,
    /// A forbidden move that ended the game (not on the board), recorded for SGF.
    pub forbidden_move: Option<Pos>,
    /// `MESSAGE` lines in order, by colour.
    pub messages: Vec<(Color, String)>,
    /// The colour whose engine misbehaved (timeout, crash, failed start): restart it.
    pub faulty: Option<Color>,
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
    /// Send the whole board with `BOARD` before every move.
    pub send_by_board: bool,
    pub black_clock: Clock,
    pub white_clock: Clock,
}

fn ms(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

struct Side {
    clock: Clock,
    time_left: Option<Duration>,
    has_moved: bool,
}

/// Play one game between `black` and `white`. Returns `Err(Abandoned)` if `cancel` fires first.
pub async fn play_game<B: Player, W: Player>(
    setup: &GameSetup,
    black: &mut B,
    white: &mut W,
    cancel: &CancellationToken,
) -> Result<GameOutcome, Abandoned> {
    let mut referee = Referee::new(setup.rule, setup.size);
    for &p in &setup.opening {
        // Openings are validated when loaded; a stone that still does not fit is a bug upstream,
        // but judging it as an ordinary game is better than a panic.
        let _ = referee.play(p);
    }
    let mut out = GameOutcome {
        result: GameResult::Draw,
        termination: Termination::FullBoard,
        reason: String::new(),
        moves: Vec::new(),
        forbidden_move: None,
        messages: Vec::new(),
        faulty: None,
    };

    // Start both engines; the one that fails loses whatever its colour.
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
            let text = match f {
                Failure::StartFailed { text } => text,
                Failure::Crashed { status } => format!("crashed at start ({status})"),
                Failure::Timeout { elapsed } => format!("no answer to START in {}", ms(elapsed)),
            };
            out.result = GameResult::win_for(color.opponent());
            out.reason = format!("{color} failed to start: {text}");
            out.termination = Termination::FailedStart { text };
            out.faulty = Some(color);
            return Ok(out);
        }
    }

    let mut sides = [
        Side {
            clock: setup.black_clock,
            time_left: setup.black_clock.match_time,
            has_moved: false,
        },
        Side {
            clock: setup.white_clock,
            time_left: setup.white_clock.match_time,
            has_moved: false,
        },
    ];

    if referee.board().is_full() {
        out.reason = "the opening fills the board".into();
        return Ok(out);
    }
    if setup.draw_after > 0 && referee.board().stone_count() >= setup.draw_after {
        out.termination = Termination::DrawAfter {
            stones: referee.board().stone_count(),
        };
        out.reason = format!("draw after {} stones", referee.board().stone_count());
        return Ok(out);
    }

    loop {
        let color = referee.side_to_move();
        let side = &mut sides[color as usize];
        let history = referee.board().history();
        let request = if history.is_empty() {
            Request::Begin
        } else if setup.send_by_board || !side.has_moved {
            Request::Board {
                stones: history.to_vec(),
                own: color,
            }
        } else {
            Request::Turn(*history.last().unwrap_or(&Pos::new(0, 0)))
        };
        if let Some(t) = side.time_left.as_mut() {
            *t += side.clock.increment;
        }
        let limit = match (side.clock.turn_time, side.time_left) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let deadline = limit.map(|l| l + side.clock.tolerance);
        let time_left = side.time_left;

        let reply = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(Abandoned),
            r = async {
                match color {
                    Color::Black => black.request_move(request, time_left, deadline).await,
                    Color::White => white.request_move(request, time_left, deadline).await,
                }
            } => r,
        };
        let msgs = match color {
            Color::Black => black.take_messages(),
            Color::White => white.take_messages(),
        };
        out.messages.extend(msgs.into_iter().map(|m| (color, m)));
        let side = &mut sides[color as usize];
        side.has_moved = true;

        let reply = match reply {
            Ok(r) => r,
            Err(Failure::Timeout { elapsed }) => {
                let limit = limit.unwrap_or(Duration::ZERO);
                out.result = GameResult::win_for(color.opponent());
                out.reason = format!("{color} loses on time ({} > {})", ms(elapsed), ms(limit));
                out.termination = Termination::TimeForfeit { elapsed, limit };
                out.faulty = Some(color);
                return Ok(out);
            }
            Err(Failure::Crashed { status }) | Err(Failure::StartFailed { text: status }) => {
                out.result = GameResult::win_for(color.opponent());
                out.reason = format!("{color} engine crashed ({status})");
                out.termination = Termination::Crash { status };
                out.faulty = Some(color);
                return Ok(out);
            }
        };

        // On time when elapsed − tolerance ≤ turn limit and ≤ match time left.
        if let Some(l) = limit {
            if reply.elapsed.saturating_sub(side.clock.tolerance) > l {
                out.result = GameResult::win_for(color.opponent());
                out.reason = format!("{color} loses on time ({} > {})", ms(reply.elapsed), ms(l));
                out.termination = Termination::TimeForfeit {
                    elapsed: reply.elapsed,
                    limit: l,
                };
                out.faulty = Some(color);
                return Ok(out);
            }
        }
        if let Some(t) = side.time_left.as_mut() {
            *t = t.saturating_sub(reply.elapsed);
        }

        let Some((x, y)) = reply.coords else {
            out.result = GameResult::win_for(color.opponent());
            out.reason = format!("{color} sent an unparsable move {:?}", reply.raw);
            out.termination = Termination::IllegalMove {
                kind: IllegalMoveKind::Unparsable,
                text: reply.raw,
            };
            return Ok(out);
        };
        match referee.play_xy(x, y) {
            MoveOutcome::Continue => {}
            MoveOutcome::Illegal(kind) => {
                let kind = match kind {
                    IllegalKind::Occupied => IllegalMoveKind::Occupied,
                    IllegalKind::OffBoard => IllegalMoveKind::OffBoard,
                };
                out.result = GameResult::win_for(color.opponent());
                out.reason = format!(
                    "{color} played an illegal move {x},{y} ({})",
                    match kind {
                        IllegalMoveKind::Occupied => "occupied point",
                        _ => "off the board",
                    }
                );
                out.termination = Termination::IllegalMove {
                    kind,
                    text: reply.raw,
                };
                return Ok(out);
            }
            MoveOutcome::Forbidden(kind) => {
                let at = Pos::new(x as u8, y as u8);
                out.forbidden_move = Some(at);
                out.result = GameResult::win_for(color.opponent());
                out.reason = format!("black played a forbidden move ({kind}) at {at}");
                out.termination = Termination::Forbidden { kind, at };
                return Ok(out);
            }
            MoveOutcome::Win { color: c, line } => {
                out.moves.push(PlayedMove {
                    pos: Pos::new(x as u8, y as u8),
                    time: reply.elapsed,
                });
                out.result = GameResult::win_for(c);
                out.reason = format!("{c} makes five");
                out.termination = Termination::Five { line };
                return Ok(out);
            }
            MoveOutcome::Draw => {
                out.moves.push(PlayedMove {
                    pos: Pos::new(x as u8, y as u8),
                    time: reply.elapsed,
                });
                out.reason = "board full".into();
                out.termination = Termination::FullBoard;
                return Ok(out);
            }
        }
        out.moves.push(PlayedMove {
            pos: Pos::new(x as u8, y as u8),
            time: reply.elapsed,
        });
        match color {
            Color::Black => black.after_move(referee.board()),
            Color::White => white.after_move(referee.board()),
        }
        let stones = referee.board().stone_count();
        if setup.draw_after > 0 && stones >= setup.draw_after {
            out.reason = format!("draw after {stones} stones");
            out.termination = Termination::DrawAfter { stones };
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::parse_pos_sequence;
    use std::collections::VecDeque;

    /// A player that answers from a script; each entry is the reply or a failure.
    struct Scripted {
        answers: VecDeque<Result<Reply, Failure>>,
        start: Result<(), Failure>,
        requests: Vec<(Request, Option<Duration>, Option<Duration>)>,
        messages: Vec<String>,
    }

    fn mv(x: i64, y: i64, ms: u64) -> Result<Reply, Failure> {
        Ok(Reply {
            raw: format!("{x},{y}"),
            coords: Some((x, y)),
            elapsed: Duration::from_millis(ms),
        })
    }

    impl Scripted {
        fn new(answers: Vec<Result<Reply, Failure>>) -> Self {
            Scripted {
                answers: answers.into(),
                start: Ok(()),
                requests: vec![],
                messages: vec![],
            }
        }
    }

    impl Player for Scripted {
        async fn new_game(&mut self, _: BoardSize, _: Rule) -> Result<(), Failure> {
            self.start.clone()
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
        fn take_messages(&mut self) -> Vec<String> {
            std::mem::take(&mut self.messages)
        }
    }

    fn setup(rule: Rule, opening: &str) -> GameSetup {
        let size = BoardSize::new(15).unwrap();
        GameSetup {
            size,
            rule,
            opening: parse_pos_sequence(opening, size).unwrap(),
            draw_after: 0,
            send_by_board: false,
            black_clock: Clock::UNLIMITED,
            white_clock: Clock::UNLIMITED,
        }
    }

    async fn run(s: &GameSetup, b: &mut Scripted, w: &mut Scripted) -> GameOutcome {
        play_game(s, b, w, &CancellationToken::new()).await.unwrap()
    }

    #[tokio::test]
    async fn five_wins_and_requests_follow_the_protocol() {
        let s = setup(Rule::Freestyle, "");
        let mut b = Scripted::new((0..5).map(|i| mv(i, 0, 1)).collect());
        let mut w = Scripted::new((0..4).map(|i| mv(i, 1, 1)).collect());
        let o = run(&s, &mut b, &mut w).await;
        assert_eq!(o.result, GameResult::BlackWins);
        assert!(matches!(o.termination, Termination::Five { ref line } if line.len() == 5));
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
        })]);
        let o = run(&s, &mut b, &mut w).await;
        assert!(
            matches!(b.requests[0].0, Request::Board { ref stones, own: Color::Black } if stones.len() == 2)
        );
        assert_eq!(o.result, GameResult::BlackWins);
        assert_eq!(
            o.termination,
            Termination::IllegalMove {
                kind: IllegalMoveKind::Unparsable,
                text: "hello world".into()
            }
        );
    }

    #[tokio::test]
    async fn illegal_and_offboard_moves_lose() {
        let s = setup(Rule::Freestyle, "h8");
        let mut b = Scripted::new(vec![]);
        let mut w = Scripted::new(vec![mv(7, 7, 1)]);
        let o = run(&s, &mut b, &mut w).await;
        assert_eq!(o.result, GameResult::BlackWins);
        assert!(matches!(
            o.termination,
            Termination::IllegalMove {
                kind: IllegalMoveKind::Occupied,
                ..
            }
        ));
        let mut b = Scripted::new(vec![]);
        let mut w = Scripted::new(vec![mv(15, 15, 1)]);
        let o = run(&s, &mut b, &mut w).await;
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
        assert_eq!(o.result, GameResult::BlackWins);
        assert_eq!(o.faulty, Some(Color::White));
        assert!(matches!(o.termination, Termination::FailedStart { .. }));
        let mut b = Scripted::new(vec![]);
        b.start = Err(Failure::StartFailed { text: "x".into() });
        let mut w = Scripted::new(vec![]);
        let o = run(&s, &mut b, &mut w).await;
        assert_eq!(o.result, GameResult::WhiteWins);
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
        assert_eq!(o.result, GameResult::WhiteWins);
        assert!(matches!(o.termination, Termination::TimeForfeit { .. }));
        assert_eq!(o.faulty, Some(Color::Black));
        // A reported timeout from the session is a forfeit too.
        let mut b = Scripted::new(vec![Err(Failure::Timeout {
            elapsed: Duration::from_secs(7),
        })]);
        let o = run(&s, &mut b, &mut Scripted::new(vec![])).await;
        assert!(matches!(o.termination, Termination::TimeForfeit { .. }));
    }

    #[tokio::test]
    async fn crash_loses_and_drawafter_counts_opening_stones() {
        let s = setup(Rule::Freestyle, "h8");
        let mut w = Scripted::new(vec![Err(Failure::Crashed {
            status: "exit status 3".into(),
        })]);
        let o = run(&s, &mut Scripted::new(vec![]), &mut w).await;
        assert_eq!(o.result, GameResult::BlackWins);
        assert_eq!(o.faulty, Some(Color::White));
        let mut s = setup(Rule::Freestyle, "h8i9");
        s.draw_after = 4;
        let mut b = Scripted::new(vec![mv(0, 0, 1)]);
        let mut w = Scripted::new(vec![mv(14, 14, 1)]);
        let o = run(&s, &mut b, &mut w).await;
        assert_eq!(o.result, GameResult::Draw);
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
}
