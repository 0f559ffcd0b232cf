//! A game with a swap opening (`-swap2`, `-swap1`) over two players: they are asked
//! `SWAP2BOARD` in turn as [`SwapPhase`] says, each answer on its engine's clock like a move and
//! judged by the referee; then the game goes on from the chosen stones with the chosen colours.

use tokio_util::sync::CancellationToken;

use crate::core::board::{Color, Pos};
use crate::core::swap::{Answer, Next, Role, SwapPhase, SwapRecord, SwapRule};
use crate::game::play::{
    over_time, play_moves, referee_after, start_both, Abandoned, GameSetup, MovesPlayed, Player,
    Side,
};
use crate::game::record::GameOutcome;
use crate::game::termination::Termination;

/// A game with a swap opening, as played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapGame {
    pub outcome: GameOutcome,
    pub swap: SwapRecord,
    /// The position the moves were played from: the opening's stones and the phase's (only the
    /// opening's when an engine did not support the phase).
    pub opening: Vec<Pos>,
}

/// How the phase ended.
enum PhaseEnd {
    /// The colours are chosen.
    Decided,
    /// An engine answered `UNKNOWN`/`ERROR` (its role and answer).
    Unsupported(Role, String),
    /// An engine lost in the phase (illegal answer, time, crash).
    Lost(Termination),
}

/// Play a game whose opening the engines choose. `proposer` is the engine scheduled black and
/// `chooser` the one scheduled white: `setup`'s black clock is the proposer's. Both are started,
/// then asked in turn; once the colours are chosen the game goes on from the phase's stones, the
/// engine to move receiving them with `BOARD` (so does the other at its first move). An engine
/// answering `UNKNOWN`/`ERROR` makes it an ordinary game from `setup.opening` with the scheduled
/// colours, the clocks as the phase left them, after every engine asked in the phase was
/// started afresh (`new_game`: a proposer keeps the stones it placed, and a refusing engine may
/// still be printing). An illegal answer loses.
pub async fn play_swap_game<P: Player>(
    setup: &GameSetup,
    rule: SwapRule,
    proposer: &mut P,
    chooser: &mut P,
    cancel: &CancellationToken,
) -> Result<SwapGame, Abandoned> {
    let mut sides = [Side::new(setup.black_clock), Side::new(setup.white_clock)];
    let mut played = MovesPlayed::default();
    let start = start_both(setup, proposer, chooser, cancel).await?;
    // The runner refuses openings a phase cannot start from before the first game; should one
    // come, its game is played as the opening stands, without a swap.
    let phase = SwapPhase::new(rule, setup.rule, setup.size, &setup.opening).ok();
    let (Some(mut phase), None) = (phase, start.clone()) else {
        let termination = match start {
            Some(t) => t,
            None => {
                let mut referee = referee_after(setup, &setup.opening);
                play_moves(
                    setup,
                    &mut referee,
                    proposer,
                    chooser,
                    sides,
                    cancel,
                    &mut played,
                )
                .await?
            }
        };
        return Ok(SwapGame {
            outcome: outcome(termination, played),
            swap: SwapRecord::unplayed(rule),
            opening: setup.opening.clone(),
        });
    };
    let mut said = Vec::new();
    let mut asked = [false; 2];
    let mut end = ask_phase(
        &mut phase,
        [&mut *proposer, &mut *chooser],
        &mut sides,
        cancel,
        (&mut said, &mut asked),
    )
    .await?;
    if let PhaseEnd::Unsupported(..) = end {
        let players: [&mut P; 2] = [&mut *proposer, &mut *chooser];
        for (role, player) in [Role::Proposer, Role::Chooser].into_iter().zip(players) {
            if !asked[role as usize] {
                continue;
            }
            let reset = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(Abandoned),
                r = player.new_game(setup.size, setup.rule) => r,
            };
            if let Err(f) = reset {
                end = PhaseEnd::Lost(f.termination(role.scheduled_colour(), None, true));
                break;
            }
        }
    }
    let (swap, opening) = match &end {
        PhaseEnd::Decided => (phase.record(None), phase.stones().to_vec()),
        PhaseEnd::Unsupported(role, text) => (
            phase.record(Some((*role, text.clone()))),
            setup.opening.clone(),
        ),
        PhaseEnd::Lost(_) => (phase.record(None), phase.stones().to_vec()),
    };
    played.messages = said
        .into_iter()
        .map(|(role, text)| (swap.colour_of(role), text))
        .collect();
    let termination = match end {
        PhaseEnd::Lost(t) => t,
        PhaseEnd::Decided | PhaseEnd::Unsupported(..) => {
            let mut referee = referee_after(setup, &opening);
            let [p, c] = sides;
            let table = &mut played;
            if swap.proposer == Color::Black {
                play_moves(
                    setup,
                    &mut referee,
                    proposer,
                    chooser,
                    [p, c],
                    cancel,
                    table,
                )
                .await?
            } else {
                play_moves(
                    setup,
                    &mut referee,
                    chooser,
                    proposer,
                    [c, p],
                    cancel,
                    table,
                )
                .await?
            }
        }
    };
    Ok(SwapGame {
        outcome: outcome(termination, played),
        swap,
        opening,
    })
}

fn outcome(termination: Termination, played: MovesPlayed) -> GameOutcome {
    GameOutcome {
        termination,
        moves: played.moves,
        messages: played.messages,
    }
}

/// Ask the engines in turn until the phase decides, an engine does not support it, or one
/// loses. `players` and `sides` are in role order (proposer, chooser); `said` collects their
/// `MESSAGE` lines, `asked` which of them were asked.
async fn ask_phase<P: Player>(
    phase: &mut SwapPhase,
    players: [&mut P; 2],
    sides: &mut [Side; 2],
    cancel: &CancellationToken,
    (said, asked): (&mut Vec<(Role, String)>, &mut [bool; 2]),
) -> Result<PhaseEnd, Abandoned> {
    let [proposer, chooser] = players;
    loop {
        let Next::Ask { role, stones } = phase.next() else {
            return Ok(PhaseEnd::Decided);
        };
        let (player, side) = match role {
            Role::Proposer => (&mut *proposer, &mut sides[0]),
            Role::Chooser => (&mut *chooser, &mut sides[1]),
        };
        let colour = role.scheduled_colour();
        asked[role as usize] = true;
        let (time_left, limit, deadline) = side.budget();
        let reply = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(Abandoned),
            r = player.swap_request(stones, time_left, deadline) => r,
        };
        said.extend(player.take_messages().into_iter().map(|m| (role, m)));
        let reply = match reply {
            Ok(r) => r,
            Err(f) => return Ok(PhaseEnd::Lost(f.termination(colour, limit, false))),
        };
        side.spend(reply.elapsed);
        if let Some(t) = over_time(colour, reply.elapsed, limit, side.clock.tolerance) {
            return Ok(PhaseEnd::Lost(t));
        }
        let judged = match reply.answer {
            Answer::Unsupported => return Ok(PhaseEnd::Unsupported(role, reply.raw)),
            ref answer => phase.answer(answer, reply.elapsed),
        };
        if let Err(why) = judged {
            return Ok(PhaseEnd::Lost(Termination::SwapIllegal {
                by: colour,
                answer: reply.raw,
                why,
            }));
        }
        phase.answered_in(reply.form);
        // `-suspend` and `-debug` as after a move.
        player.after_move(phase.board());
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::core::rules::Rule;
    use crate::core::swap::{Swap2Form, SwapReply};
    use crate::game::play::{
        tests::{mv, setup, Scripted},
        Clock, Failure, Reply, Request,
    };
    use crate::game::termination::GameResult;

    fn answer(raw: &str, answer: Answer, ms: u64) -> Result<SwapReply, Failure> {
        Ok(SwapReply {
            raw: raw.into(),
            answer,
            elapsed: Duration::from_millis(ms),
            form: Swap2Form::Points,
        })
    }

    fn stones(points: &[(i64, i64)]) -> Result<SwapReply, Failure> {
        let raw: Vec<String> = points.iter().map(|(x, y)| format!("{x},{y}")).collect();
        answer(&raw.join(" "), Answer::Stones(points.to_vec()), 1)
    }

    fn swap() -> Result<SwapReply, Failure> {
        answer("SWAP", Answer::Swap, 1)
    }

    /// A player that answers SWAP2BOARD from `swaps`, then `moves`.
    fn player(
        swaps: Vec<Result<SwapReply, Failure>>,
        moves: Vec<Result<Reply, Failure>>,
    ) -> Scripted {
        let mut p = Scripted::new(moves);
        p.swaps = swaps.into();
        p
    }

    /// An answer that loses the game at once, to end it after its first request.
    fn garbage() -> Result<Reply, Failure> {
        Ok(Reply {
            raw: "resign".into(),
            coords: None,
            elapsed: Duration::ZERO,
            search: None,
        })
    }

    const THREE: [(i64, i64); 3] = [(7, 7), (8, 7), (9, 9)];

    async fn play(rule: SwapRule, p: &mut Scripted, c: &mut Scripted) -> SwapGame {
        play_on(&setup(Rule::Freestyle, ""), rule, p, c).await
    }

    /// The swap game of setup `s`, not cancelled.
    async fn play_on(
        s: &GameSetup,
        rule: SwapRule,
        p: &mut Scripted,
        c: &mut Scripted,
    ) -> SwapGame {
        play_swap_game(s, rule, p, c, &CancellationToken::new())
            .await
            .unwrap()
    }

    fn board_request(p: &Scripted) -> (usize, Color) {
        match &p.requests[0].0 {
            Request::Board { stones, own } => (stones.len(), *own),
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn swap_after_three_the_chooser_plays_black_and_the_proposer_moves_on_the_board() {
        let mut p = player(vec![stones(&THREE)], vec![garbage()]);
        let mut c = player(vec![swap()], vec![]);
        let g = play(SwapRule::Swap2, &mut p, &mut c).await;
        assert_eq!(p.swap_requests[0].0, vec![]);
        assert_eq!(c.swap_requests[0].0.len(), 3);
        assert_eq!(g.swap.proposer, Color::White);
        assert_eq!(g.opening.len(), 3);
        // The proposer, white, moves next and is sent the three stones as its opponent's and own.
        assert_eq!(board_request(&p), (3, Color::White));
        assert_eq!(g.outcome.result(), GameResult::BlackWins);
        assert!(matches!(
            g.outcome.termination,
            Termination::IllegalMove {
                by: Color::White,
                ..
            }
        ));
        // Messages follow the colours as chosen: the proposer's are white's.
        assert_eq!(g.outcome.messages[0], (Color::White, "swap 1".to_string()));
        assert_eq!(g.outcome.messages[1], (Color::Black, "swap 1".to_string()));
    }

    #[tokio::test]
    async fn one_stone_after_three_the_proposer_stays_black_and_moves() {
        let mut p = player(vec![stones(&THREE)], vec![garbage()]);
        let mut c = player(vec![stones(&[(8, 8)])], vec![]);
        let g = play(SwapRule::Swap2, &mut p, &mut c).await;
        assert_eq!(g.swap.proposer, Color::Black);
        assert_eq!(board_request(&p), (4, Color::Black));
        assert_eq!(g.outcome.result(), GameResult::WhiteWins);
    }

    #[tokio::test]
    async fn two_stones_then_swap_the_proposer_plays_black_and_the_chooser_places_the_sixth() {
        let mut p = player(vec![stones(&THREE), swap()], vec![]);
        let mut c = player(vec![stones(&[(8, 8), (8, 6)])], vec![garbage()]);
        let g = play(SwapRule::Swap2, &mut p, &mut c).await;
        assert_eq!(p.swap_requests[1].0.len(), 5);
        assert_eq!(g.swap.proposer, Color::Black);
        assert_eq!(board_request(&c), (5, Color::White));
        assert_eq!(g.swap.steps.len(), 3);
        assert_eq!(g.outcome.result(), GameResult::BlackWins);
    }

    #[tokio::test]
    async fn two_stones_then_a_sixth_the_proposer_plays_white_and_the_chooser_black_moves() {
        let mut p = player(vec![stones(&THREE), stones(&[(6, 8)])], vec![]);
        let mut c = player(vec![stones(&[(8, 8), (8, 6)])], vec![mv(0, 0, 1)]);
        p.answers.push_back(garbage());
        let g = play(SwapRule::Swap2, &mut p, &mut c).await;
        assert_eq!(g.swap.proposer, Color::White);
        assert_eq!(g.opening.len(), 6);
        assert_eq!(board_request(&c), (6, Color::Black));
        // The proposer (white) then gets the whole board too: its first move of the game.
        assert_eq!(board_request(&p), (7, Color::White));
        assert_eq!(g.outcome.moves.len(), 1);
        assert_eq!(g.outcome.result(), GameResult::BlackWins);
    }

    #[tokio::test]
    async fn swap1_refuses_two_stones_and_the_chooser_loses_with_the_reason() {
        let mut p = player(vec![stones(&THREE)], vec![]);
        let mut c = player(vec![stones(&[(8, 8), (8, 6)])], vec![]);
        let g = play(SwapRule::Swap1, &mut p, &mut c).await;
        assert_eq!(g.outcome.result(), GameResult::BlackWins);
        assert_eq!(g.opening.len(), 3, "the stones on the board when it lost");
        let t = &g.outcome.termination;
        assert_eq!(t.code(), "swap_illegal");
        assert_eq!(t.faulty(), None);
        assert!(!t.yields_samples());
        assert_eq!(
            t.reason(crate::core::board::BoardSize::new(15).unwrap()),
            "white gave an illegal SWAP2BOARD answer \"8,8 8,6\": 2 stones where SWAP or one \
             stone after three (swap1) is asked for"
        );
    }

    #[tokio::test]
    async fn bad_stones_lose_for_the_engine_that_answered() {
        let occupied = stones(&[(7, 7), (7, 7), (8, 8)]);
        let mut p = player(vec![occupied], vec![]);
        let g = play(SwapRule::Swap2, &mut p, &mut player(vec![], vec![])).await;
        assert_eq!(g.outcome.result(), GameResult::WhiteWins);
        assert!(
            matches!(&g.outcome.termination, Termination::SwapIllegal { by: Color::Black, why, .. } if why == "h8 is occupied")
        );
        assert!(g.opening.is_empty());
        let mut p = player(vec![stones(&THREE)], vec![]);
        let mut c = player(vec![answer("hello", Answer::Unparsable, 1)], vec![]);
        let g = play(SwapRule::Swap2, &mut p, &mut c).await;
        assert!(matches!(
            g.outcome.termination,
            Termination::SwapIllegal {
                by: Color::White,
                ..
            }
        ));
    }

    #[tokio::test]
    async fn unknown_makes_an_ordinary_game_with_the_scheduled_colours() {
        let mut p = player(vec![stones(&THREE)], vec![garbage()]);
        let unknown = answer("UNKNOWN SWAP2BOARD", Answer::Unsupported, 1);
        let mut c = player(vec![unknown], vec![]);
        let g = play(SwapRule::Swap2, &mut p, &mut c).await;
        assert_eq!(
            g.swap.unsupported,
            Some((Role::Chooser, "UNKNOWN SWAP2BOARD".to_string()))
        );
        assert_eq!(g.swap.proposer, Color::Black);
        assert!(g.opening.is_empty(), "the proposer's stones are not played");
        assert_eq!(p.requests[0].0, Request::Begin);
        assert_eq!(g.outcome.result(), GameResult::WhiteWins);
        // Both engines were asked, so both start the game afresh: the proposer still holds the
        // three stones it placed, and the chooser may still be answering the stone lines.
        assert_eq!((p.starts, c.starts), (2, 2));
    }

    #[tokio::test]
    async fn only_the_engines_asked_are_started_again_and_a_failed_restart_loses() {
        // With an opening, the proposer is never asked: only the chooser starts again.
        let s = setup(Rule::Freestyle, "h8i8j10");
        let mut p = player(vec![], vec![garbage()]);
        let mut c = player(vec![answer("ERROR no", Answer::Unsupported, 1)], vec![]);
        let g = play_on(&s, SwapRule::Swap2, &mut p, &mut c).await;
        assert_eq!((p.starts, c.starts), (1, 2));
        assert_eq!(g.opening.len(), 3);
        // White (the chooser) moves on the opening and has nothing more to say.
        assert_eq!(g.outcome.result(), GameResult::BlackWins);
        // A chooser that cannot start again loses as at the start of a game.
        let mut p = player(vec![], vec![]);
        let mut c = player(vec![answer("UNKNOWN", Answer::Unsupported, 1)], vec![]);
        c.restart = Err(Failure::StartFailed {
            text: "ERROR no".into(),
        });
        let g = play_on(&s, SwapRule::Swap2, &mut p, &mut c).await;
        assert!(matches!(
            &g.outcome.termination,
            Termination::FailedStart { by: Color::White, text } if text == "ERROR no"
        ));
        assert!(p.requests.is_empty());
    }

    #[tokio::test]
    async fn an_answer_in_the_board_form_is_recorded_with_its_step() {
        let mut p = player(vec![stones(&THREE)], vec![garbage()]);
        let mut board = stones(&[(8, 8)]);
        if let Ok(r) = &mut board {
            r.form = Swap2Form::Board;
        }
        let mut c = player(vec![board], vec![]);
        let g = play(SwapRule::Swap2, &mut p, &mut c).await;
        assert_eq!(g.swap.steps[0].form, None);
        assert_eq!(g.swap.steps[1].form, Some(Swap2Form::Board));
    }

    #[tokio::test]
    async fn swap_answers_count_on_the_engines_clocks() {
        let mut s = setup(Rule::Freestyle, "");
        let clock = Clock {
            match_time: Some(Duration::from_secs(10)),
            turn_time: Some(Duration::from_secs(5)),
            increment: Duration::ZERO,
            tolerance: Duration::from_secs(1),
        };
        s.black_clock = clock;
        s.white_clock = clock;
        let slow = answer("7,7 8,7 9,9", Answer::Stones(THREE.to_vec()), 4000);
        let mut p = player(vec![slow], vec![garbage()]);
        let mut c = player(vec![stones(&[(8, 8)])], vec![]);
        let g = play_on(&s, SwapRule::Swap2, &mut p, &mut c).await;
        assert_eq!(p.swap_requests[0].1, Some(Duration::from_secs(10)));
        assert_eq!(p.swap_requests[0].2, Some(Duration::from_secs(6)));
        // The proposer's first move: 10 s − 4 s.
        assert_eq!(p.requests[0].1, Some(Duration::from_secs(6)));
        assert_eq!(g.swap.steps[0].time, Duration::from_secs(4));
        // Over the turn time in the phase is a time loss like any other.
        let late = answer("SWAP", Answer::Swap, 6500);
        let mut p = player(vec![stones(&THREE)], vec![]);
        let mut c = player(vec![late], vec![]);
        let g = play_on(&s, SwapRule::Swap2, &mut p, &mut c).await;
        assert!(matches!(
            g.outcome.termination,
            Termination::TimeForfeit {
                by: Color::White,
                ..
            }
        ));
        let crash = Err(Failure::Crashed {
            status: "exit status 3".into(),
        });
        let g = play(
            SwapRule::Swap2,
            &mut player(vec![crash], vec![]),
            &mut player(vec![], vec![]),
        )
        .await;
        assert_eq!(g.outcome.termination.faulty(), Some(Color::Black));
    }

    #[tokio::test]
    async fn three_opening_stones_stand_for_the_proposal() {
        let s = setup(Rule::Freestyle, "h8i8j10");
        let mut p = player(vec![], vec![garbage()]);
        let mut c = player(vec![stones(&[(8, 8)])], vec![]);
        let g = play_on(&s, SwapRule::Swap1, &mut p, &mut c).await;
        assert!(p.swap_requests.is_empty());
        assert_eq!(c.swap_requests[0].0, s.opening);
        assert_eq!(g.opening.len(), 4);
        assert_eq!(g.swap.steps.len(), 1);
        assert_eq!(board_request(&p), (4, Color::Black));
    }

    #[tokio::test]
    async fn a_failed_start_or_a_cancel_ends_before_the_phase() {
        let mut p = player(vec![], vec![]);
        p.start = Err(Failure::StartFailed { text: "no".into() });
        let g = play(SwapRule::Swap2, &mut p, &mut player(vec![], vec![])).await;
        assert!(matches!(
            g.outcome.termination,
            Termination::FailedStart {
                by: Color::Black,
                ..
            }
        ));
        assert!(g.swap.steps.is_empty());
        let cancel = CancellationToken::new();
        cancel.cancel();
        let s = setup(Rule::Freestyle, "");
        let (mut p, mut c) = (player(vec![], vec![]), player(vec![], vec![]));
        let r = play_swap_game(&s, SwapRule::Swap2, &mut p, &mut c, &cancel).await;
        assert_eq!(r, Err(Abandoned));
    }
}
