//! The referee loop against scripted players.

use super::*;
use crate::core::board::parse_pos_sequence;
use crate::game::termination::GameResult;
use std::collections::VecDeque;

/// A player that answers from a script; each entry is the reply or a failure.
pub(crate) struct Scripted {
    pub(crate) answers: VecDeque<Result<Reply, Failure>>,
    pub(crate) start: Result<(), Failure>,
    pub(crate) requests: Vec<(Request, Option<Duration>, Option<Duration>)>,
    pub(crate) messages: Vec<String>,
    /// Answers to SWAP2BOARD, and the stones and times each was asked with.
    pub(crate) swaps: VecDeque<Result<SwapReply, Failure>>,
    pub(crate) swap_requests: Vec<(Vec<Pos>, Option<Duration>, Option<Duration>)>,
    /// How many times it was asked to start a game (`new_game`).
    pub(crate) starts: usize,
    /// The answer to every start after the first.
    pub(crate) restart: Result<(), Failure>,
}

pub(crate) fn mv(x: i64, y: i64, ms: u64) -> Result<Reply, Failure> {
    Ok(Reply {
        raw: format!("{x},{y}"),
        coords: Some((x, y)),
        elapsed: Duration::from_millis(ms),
        search: None,
    })
}

impl Scripted {
    pub(crate) fn new(answers: Vec<Result<Reply, Failure>>) -> Self {
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

pub(crate) fn setup(rule: Rule, opening: &str) -> GameSetup {
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
