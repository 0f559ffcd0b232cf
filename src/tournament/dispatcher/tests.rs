//! The dispatcher's tests: synthetic events in, the actions and console events it answers with
//! checked (SPRT stops, -fatalerror, -loseonly, intervals, shards' games and markers, tuning).

use super::*;
use crate::game::record::fixtures::sample_record;
use crate::game::termination::Termination;
use crate::schedule::Repeat;
use crate::stats::SprtModel;

pub(super) fn settings() -> DispatchSettings {
    DispatchSettings {
        names: vec!["first".into(), "second".into(), "third".into()],
        sprt: None,
        rating_interval: 0,
        lose_only: false,
        stop_on_engine_failure: false,
        context: String::new(),
        sharded: false,
        report: false,
        white_first: None,
        tune: None,
        resumable: true,
        promote: None,
        slots: vec![],
    }
}

fn dispatcher(s: DispatchSettings, engines: usize, games: u64) -> Dispatcher {
    let schedule = Schedule::new(engines, TournamentKind::RoundRobin, games, 1, Repeat::Once);
    let queue = GameQueue::new(&schedule, None, Default::default());
    Dispatcher::new(s, schedule, queue, &[])
}

/// [`dispatcher`] with [`settings`] changed by `change`.
fn dispatcher_with(
    change: impl FnOnce(&mut DispatchSettings),
    engines: usize,
    games: u64,
) -> Dispatcher {
    let mut s = settings();
    change(&mut s);
    dispatcher(s, engines, games)
}

/// Take the next game, as a slot would; `None` when told to end.
fn take(d: &mut Dispatcher) -> Option<Pairing> {
    take_with_told(d).0
}

/// The next game and what the console is told with it.
fn take_with_told(d: &mut Dispatcher) -> (Option<Pairing>, Vec<ConsoleEvent>) {
    let actions = d.on_event(Event::Ready);
    let answers = actions
        .iter()
        .filter(|a| matches!(a, Action::Play(_) | Action::NoMoreGames))
        .count();
    assert_eq!(answers, 1, "{actions:?}");
    let events = told(&actions).into_iter().cloned().collect();
    let game = actions.into_iter().find_map(|a| match a {
        Action::Play(a) => Some(a.pairing),
        _ => None,
    });
    (game, events)
}

/// A finished record of pairing `p` in which `winner` (an engine index) won, or a draw.
fn record(p: &Pairing, winner: Option<usize>, termination: Option<Termination>) -> Event {
    Event::Finished(game_record(p, winner, termination))
}

/// The record [`record`] sends.
pub(super) fn game_record(
    p: &Pairing,
    winner: Option<usize>,
    termination: Option<Termination>,
) -> Box<GameRecord> {
    let mut r = sample_record();
    r.game = p.game;
    r.pair = p.pair;
    r.pair_game = p.pair_game;
    r.black = p.black;
    r.white = p.white;
    r.outcome.termination = termination.unwrap_or(match winner {
        None => Termination::FullBoard,
        Some(w) => Termination::Five {
            winner: if p.black.0 == w {
                Color::Black
            } else {
                Color::White
            },
            line: vec![],
        },
    });
    Box::new(r)
}

fn told(actions: &[Action]) -> Vec<&ConsoleEvent> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Console(e) => Some(e),
            _ => None,
        })
        .collect()
}

/// The text of the final report (`None` when there is none).
fn final_text(d: &mut Dispatcher) -> Option<String> {
    match d.final_report().as_slice() {
        [] => None,
        [Action::Console(ConsoleEvent::FinalReport(text))] => Some(text.clone()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_engine_without_swap2board_is_reported_once() {
    use crate::core::swap::{Role, SwapRecord, SwapRule};
    let mut d = dispatcher(settings(), 2, 3);
    let mut warnings = Vec::new();
    for _ in 0..3 {
        let p = take(&mut d).unwrap();
        let mut r = game_record(&p, Some(0), None);
        r.opening.clear();
        // The engine "second" answers UNKNOWN, whichever colour it was scheduled.
        let role = if p.white.0 == 1 {
            Role::Chooser
        } else {
            Role::Proposer
        };
        r.swap = Some(SwapRecord {
            unsupported: Some((role, "UNKNOWN no".into())),
            ..SwapRecord::unplayed(SwapRule::Swap2)
        });
        let actions = d.on_event(Event::Finished(r));
        let said = told(&actions).into_iter().cloned();
        warnings.extend(said.filter(|e| matches!(e, ConsoleEvent::SwapUnsupported { .. })));
    }
    assert_eq!(
        warnings,
        vec![ConsoleEvent::SwapUnsupported {
            engine: "second".into(),
            answer: "UNKNOWN no".into(),
            opening_stones: 0,
        }]
    );
}

#[test]
fn games_are_handed_out_in_order_then_slots_end() {
    let mut d = dispatcher(settings(), 2, 3);
    let got: Vec<u64> = std::iter::from_fn(|| take(&mut d))
        .map(|p| p.game.0)
        .collect();
    assert_eq!(got, vec![1, 2, 3]);
    assert!(take(&mut d).is_none());
}

#[test]
fn a_cap_of_2_pow_32_games_is_handed_out_without_a_list_of_them() {
    // An open-ended SPRT with a huge cap: the old queue listed every game number up front
    // (8 bytes each, 32 GiB here) before handing out the first.
    let mut d = dispatcher(settings(), 2, 1 << 32);
    let (first, events) = take_with_told(&mut d);
    assert_eq!(first.map(|p| p.game), Some(GameId(1)));
    assert_eq!(
        events,
        vec![ConsoleEvent::GameStarted {
            game: GameId(1),
            total: 1 << 32,
            black: "first".into(),
            white: "second".into(),
        }]
    );
    let next: Vec<u64> = std::iter::from_fn(|| take(&mut d))
        .take(3)
        .map(|p| p.game.0)
        .collect();
    assert_eq!(next, vec![2, 3, 4]);
}

#[test]
fn sprt_stop_with_games_in_flight_keeps_the_crossing() {
    let sprt = Sprt::new(0.0, 20.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
    let mut d = dispatcher_with(|s| s.sprt = Some(sprt), 2, 10_000);
    // Two slots: one game always in flight beside the one that finishes.
    let mut in_flight = take(&mut d).unwrap();
    let mut crossed_at = None;
    while crossed_at.is_none() {
        let p = take(&mut d).unwrap();
        // Mostly wins, a draw in four: the LLR climbs to the upper bound.
        let winner = (d.finished_games() % 4 != 3).then_some(0);
        let actions = d.on_event(record(&in_flight, winner, None));
        in_flight = p;
        if told(&actions)
            .iter()
            .any(|e| matches!(e, ConsoleEvent::SprtDecided { .. }))
        {
            crossed_at = Some(d.finished_games());
        }
    }
    let crossed_at = crossed_at.unwrap();
    assert_eq!(d.stop_reason(), StopReason::SprtH1);
    // No game starts after the decision, however many slots ask.
    for _ in 0..4 {
        assert!(take(&mut d).is_none());
    }
    let crossing = d.tracker().crossing().unwrap();
    assert_eq!(crossing.games, crossed_at);
    // The game in flight finishes as a loss and counts, but the verdict stays.
    let actions = d.on_event(record(&in_flight, Some(1), None));
    assert!(told(&actions)
        .iter()
        .all(|e| !matches!(e, ConsoleEvent::SprtDecided { .. })));
    assert_eq!(d.stop_reason(), StopReason::SprtH1);
    assert_eq!(d.finished_games(), crossed_at + 1);
    let text = final_text(&mut d).unwrap();
    assert!(
        text.contains(&format!("LLR: {:.2} (", crossing.llr)),
        "{text}"
    );
    assert!(text.contains("H1 accepted after"), "{text}");
    assert!(text.contains("with the 1 game counted after it"), "{text}");
}

#[test]
fn fatalerror_with_several_slots_stops_starting_games() {
    let mut d = dispatcher_with(|s| s.stop_on_engine_failure = true, 2, 8);
    let slots: Vec<Pairing> = (0..3).map(|_| take(&mut d).unwrap()).collect();
    let crash = Termination::Crash {
        by: Color::White,
        status: "exit 3".into(),
    };
    let actions = d.on_event(record(&slots[1], None, Some(crash)));
    assert!(actions.iter().any(|a| matches!(a, Action::AbandonGames)));
    assert!(told(&actions).iter().any(|e| matches!(
        e,
        ConsoleEvent::EngineFailureStop { game: GameId(2), reason } if reason.contains("crash")
    )));
    assert_eq!(d.stop_reason(), StopReason::EngineFailure);
    assert!(take(&mut d).is_none());
    d.on_event(Event::Abandoned(slots[0].game));
    d.on_event(Event::Abandoned(slots[2].game));
    assert!(take(&mut d).is_none());
    assert_eq!(d.finished_games(), 1);
    // An interruption afterwards does not change why the run stopped.
    d.on_event(Event::Interrupt);
    assert_eq!(d.stop_reason(), StopReason::EngineFailure);
}

#[test]
fn a_failed_write_stops_the_run_whatever_else_decided() {
    let mut d = dispatcher(settings(), 2, 8);
    let slots: Vec<Pairing> = (0..2).map(|_| take(&mut d).unwrap()).collect();
    d.on_event(record(&slots[0], None, None));
    let actions = d.on_event(Event::OutputFailed);
    assert!(actions.iter().any(|a| matches!(a, Action::AbandonGames)));
    let stop = ConsoleEvent::OutputFailedStop { resumable: true };
    assert!(told(&actions).contains(&&stop));

    assert_eq!(d.stop_reason(), StopReason::OutputFailed);
    assert!(take(&mut d).is_none(), "no new game starts");
    d.on_event(Event::Abandoned(slots[1].game));
    d.on_event(Event::Interrupt);
    assert_eq!(d.stop_reason(), StopReason::OutputFailed);
    assert_eq!(d.finished_games(), 1);
    // Without a journal (-journal off) there is nothing to resume: the advice says so.
    let mut journalless = dispatcher(
        DispatchSettings {
            resumable: false,
            ..settings()
        },
        2,
        8,
    );
    let _ = take(&mut journalless);
    let actions = journalless.on_event(Event::OutputFailed);
    let stop = ConsoleEvent::OutputFailedStop { resumable: false };
    assert!(told(&actions).contains(&&stop));
}

#[test]
fn the_first_engine_moves_first_after_the_opening_as_in_c_gomoku_cli() {
    use crate::formats::openings::order::{OpeningOrder, OpeningParity};
    use crate::formats::openings::{OpeningBook, OpeningFormat};
    // One stone (white to move), then two (black to move).
    let book = OpeningBook::parse_str(
        "h8\nh8 i9\n",
        "o.txt",
        OpeningFormat::Pos,
        crate::core::board::BoardSize::STANDARD,
        crate::core::rules::Rule::Freestyle,
    )
    .unwrap();
    let parity = OpeningParity::new(&book, OpeningOrder::Sequential, false, 0);
    let schedule = Schedule::new(2, TournamentKind::RoundRobin, 4, 1, Repeat::Twice);
    let queue = GameQueue::new(&schedule, None, Default::default());
    let mut d = Dispatcher::new(
        DispatchSettings {
            white_first: Some(std::sync::Arc::new(parity)),
            ..settings()
        },
        schedule,
        queue,
        &[],
    );
    let games: Vec<Pairing> = (0..4).map(|_| take(&mut d).unwrap()).collect();
    let first_plays: Vec<Color> = games
        .iter()
        .map(|p| {
            assert_eq!(p.first, EngineId(0));
            if p.black == p.first {
                Color::Black
            } else {
                Color::White
            }
        })
        .collect();
    // Pair 1 (one stone): first engine white, then black; pair 2 (two stones): black, white.
    assert_eq!(
        first_plays,
        [Color::White, Color::Black, Color::Black, Color::White]
    );
    // Without the rule the first engine is black in the first game of every pair.
    let mut plain = dispatcher(settings(), 2, 4);
    assert_eq!(take(&mut plain).unwrap().black, EngineId(0));
}

#[test]
fn results_blocks_say_whether_they_follow_another() {
    let two_names = |s: &mut DispatchSettings| {
        s.names = vec!["first".into(), "second".into()];
        s.rating_interval = 1;
    };
    let mut d = dispatcher_with(two_names, 2, 3);
    let mut blocks = Vec::new();
    while let Some(p) = take(&mut d) {
        let actions = d.on_event(record(&p, Some(0), None));
        blocks.extend(told(&actions).into_iter().filter_map(|e| match e {
            ConsoleEvent::Results {
                block,
                follows_block,
            } => Some((block.starts_with("Results of"), *follows_block)),
            _ => None,
        }));
    }
    assert_eq!(blocks, [(true, false), (true, true)]);
}

#[test]
fn failures_without_fatalerror_go_on() {
    let mut d = dispatcher(settings(), 2, 2);
    let p = take(&mut d).unwrap();
    let crash = Termination::TimeForfeit {
        by: Color::Black,
        elapsed: std::time::Duration::from_secs(9),
        limit: std::time::Duration::from_secs(1),
        said: None,
    };
    let actions = d.on_event(record(&p, None, Some(crash)));
    assert!(!actions.iter().any(|a| matches!(a, Action::AbandonGames)));
    assert!(take(&mut d).is_some());
}

#[test]
fn loseonly_keeps_other_records_for_the_first_engines_losses() {
    let schedule = Schedule::new(3, TournamentKind::Gauntlet, 2, 1, Repeat::Once);
    let total = schedule.total_games();
    let mut d = Dispatcher::new(
        DispatchSettings {
            lose_only: true,
            ..settings()
        },
        schedule.clone(),
        GameQueue::new(&schedule, None, Default::default()),
        &[],
    );
    let mut seen = Vec::new();
    while let Some(p) = take(&mut d) {
        let other = if p.black.0 == 0 { p.white.0 } else { p.black.0 };
        // Game by game: first engine wins, loses, draws.
        let winner = match p.game.0 % 3 {
            0 => Some(0),
            1 => Some(other),
            _ => None,
        };
        for a in d.on_event(record(&p, winner, None)) {
            if let Action::Save(r, records) = a {
                seen.push((r.game.0, winner, records));
            }
        }
    }
    assert_eq!(seen.len() as u64, total, "every game reaches the journal");
    for (game, winner, records) in seen {
        let lost = winner.is_some_and(|w| w != 0);
        let want = if lost {
            Records::All
        } else {
            Records::JournalOnly
        };
        assert_eq!(records, want, "game {game}");
    }
}

#[test]
fn loseonly_is_ignored_outside_a_gauntlet() {
    let mut d = dispatcher_with(|s| s.lose_only = true, 2, 1);
    let p = take(&mut d).unwrap();
    let saved = d.on_event(record(&p, Some(0), None));
    assert!(saved
        .iter()
        .any(|a| matches!(a, Action::Save(_, Records::All))));
}

fn play_all(d: &mut Dispatcher) -> Vec<ConsoleEvent> {
    let mut events = Vec::new();
    while let (Some(p), started) = take_with_told(d) {
        events.extend(started);
        let actions = d.on_event(record(&p, Some(0), None));
        events.extend(told(&actions).into_iter().cloned());
    }
    events.extend(told(&d.final_report()).into_iter().cloned());
    events
}

/// The text of a results block or the final report.
fn report_text(e: &ConsoleEvent) -> Option<&str> {
    match e {
        ConsoleEvent::Results { block, .. } => Some(block),
        ConsoleEvent::FinalReport(text) => Some(text),
        _ => None,
    }
}

#[test]
fn rating_interval_never_prints_the_final_block_twice() {
    for (games, interval, blocks) in [(10, 5, 2), (10, 10, 1), (7, 5, 2), (4, 0, 1), (3, 1, 3)] {
        let mut d = dispatcher_with(|s| s.rating_interval = interval, 2, games);
        let events = play_all(&mut d);
        let texts: Vec<&str> = events.iter().filter_map(report_text).collect();
        assert_eq!(texts.len(), blocks, "{games} games, interval {interval}");
        assert!(texts.iter().all(|t| t.starts_with("Results of")));
        assert!(matches!(events.last(), Some(ConsoleEvent::FinalReport(_))));
    }
}

#[test]
fn report_rebuilds_come_every_interval_with_any_number_of_engines_but_not_after_the_last_game() {
    for (engines, games, interval, report, rebuilds) in [
        (3, 2, 2, true, vec![2, 4]),
        (2, 7, 3, true, vec![3, 6]),
        (2, 6, 3, true, vec![3]),
        (2, 6, 0, true, vec![]),
        (2, 6, 1, false, vec![]),
    ] {
        let with = |s: &mut DispatchSettings| {
            s.rating_interval = interval;
            s.report = report;
        };
        let mut d = dispatcher_with(with, engines, games);
        let mut seen = Vec::new();
        let mut finished = 0;
        while let Some(p) = take(&mut d) {
            finished += 1;
            let actions = d.on_event(record(&p, Some(0), None));
            if actions.iter().any(|a| matches!(a, Action::RebuildReport)) {
                seen.push(finished);
            }
        }
        assert_eq!(
            seen, rebuilds,
            "{engines} engines, {games} games, interval {interval}"
        );
    }
}

#[test]
fn the_final_report_counts_the_games_adjudicated() {
    let mut d = dispatcher(settings(), 2, 2);
    let mut silent = dispatcher(settings(), 2, 2);
    let mut n = 0;
    while let Some(p) = take(&mut d) {
        let mut rec = game_record(&p, Some(0), None);
        n += 1;
        if n == 1 {
            rec.outcome.termination = Termination::AdjudicatedResign {
                by: Color::White,
                moves: 3,
                eval: crate::core::search::Eval::Score(-700),
                score: Some(600),
                opponent: None,
            };
        }
        d.on_event(Event::Finished(rec));
    }
    let report = final_text(&mut d).unwrap();
    assert!(
            report.contains("Adjudicated on the engines' evaluations: 1 by resignation, 0 drawn (of the 2 games this process played)"),
            "{report}"
        );
    while let Some(p) = take(&mut silent) {
        silent.on_event(record(&p, Some(0), None));
    }
    assert!(!final_text(&mut silent).unwrap().contains("Adjudicated"));
}

#[test]
fn the_final_report_has_each_engines_cpu_over_thinking_time() {
    let mut d = dispatcher(settings(), 2, 2);
    while let Some(p) = take(&mut d) {
        let mut rec = game_record(&p, Some(0), None);
        // sample_record's moves: 3, 13, 23, .. 63 ms after a two-stone opening, black first:
        // black thinks 3+23+43+63 = 132 ms and white 13+33+53 = 99 ms.
        rec.usage = Some(crate::game::record::GameUse {
            black: crate::game::record::EngineUse {
                cpu_ms: 198,
                startup_cpu_ms: 1500,
                peak_memory: 40 << 20,
                ..Default::default()
            },
            white: crate::game::record::EngineUse {
                cpu_ms: 66,
                startup_cpu_ms: 10,
                peak_memory: 8 << 20,
                ..Default::default()
            },
        });
        d.on_event(Event::Finished(rec));
    }
    let report = final_text(&mut d).unwrap();
    // Each engine played black once and white once: 264 ms of CPU over 231 ms of thinking.
    // Start-up (a hash filled at START: 1.5 s a game) is shown apart, not in the ratio.
    assert!(
            report.contains(
                "CPU 0.26 s, thinking 0.23 s, CPU/thinking 1.14, start-up CPU 1.51 s, peak memory 40 MiB"
            ),
            "{report}"
        );
    // Under 0.1 s of thinking the ratio says nothing: `-`, for every engine alike.
    assert_eq!(crate::stats::text::cpu_ratio(0, 99), "-");
    assert_eq!(crate::stats::text::cpu_ratio(5, 0), "-");
    assert_eq!(crate::stats::text::cpu_ratio(0, 100), "0.00");
    let none = usage_block(&["a".into()], &[EngineTotals::default()]);
    assert_eq!(none, None);
}

#[test]
fn a_name_longer_than_any_format_width_does_not_panic() {
    // An engine's ABOUT answer is cut to 64 characters, but `name=` comes from the command
    // line: `format!("{name:<width$}")` panicked above a width of 65535.
    let long = "n".repeat(70_000);
    let used = EngineTotals {
        games: 1,
        ..EngineTotals::default()
    };
    let block = usage_block(&[long.clone(), "b".into()], &[used, used]).unwrap();
    assert!(
        block.contains(&format!("  {long}  CPU")),
        "the long name stays whole"
    );
    assert!(block.contains(&format!("  b{}  CPU", " ".repeat(69_999))));
}

#[test]
fn interrupted_run_does_not_repeat_the_last_interval_block() {
    let mut d = dispatcher_with(|s| s.rating_interval = 2, 2, 10);
    let a = take(&mut d).unwrap();
    let b = take(&mut d).unwrap();
    let c = take(&mut d).unwrap();
    d.on_event(record(&a, Some(0), None));
    let actions = d.on_event(record(&b, Some(0), None));
    assert_eq!(told(&actions).len(), 3, "Finished, Score, block");
    d.on_event(Event::Interrupt);
    d.on_event(Event::Abandoned(c.game));
    assert_eq!(final_text(&mut d), None);
    assert_eq!(d.stop_reason(), StopReason::Interrupted);
}

#[test]
fn each_game_is_told_finished_and_scored_for_its_pair() {
    let mut d = dispatcher_with(|s| s.rating_interval = 2, 2, 4);
    let p = take(&mut d).unwrap();
    let actions = d.on_event(record(&p, Some(0), None));
    let (black, white) = (sample_record().black_name, sample_record().white_name);
    let reason = Termination::Five {
        winner: Color::Black,
        line: vec![],
    }
    .reason(sample_record().size);
    assert_eq!(
        told(&actions),
        [
            &ConsoleEvent::GameFinished {
                game: GameId(1),
                black,
                white,
                result: crate::game::termination::GameResult::BlackWins,
                reason,
            },
            &ConsoleEvent::Score {
                first: "first".into(),
                second: "second".into(),
                wld: crate::stats::Wld::new(1, 0, 0),
            }
        ]
    );
    let p = take(&mut d).unwrap();
    let actions = d.on_event(record(&p, Some(0), None));
    let texts: Vec<&str> = told(&actions).into_iter().filter_map(report_text).collect();
    assert!(
        matches!(texts.as_slice(), [t] if t.starts_with("Results of")),
        "the interval block after game 2: {texts:?}"
    );
}

#[test]
fn tournaments_end_with_standings_and_crosstable() {
    let mut d = dispatcher_with(|s| s.rating_interval = 1, 3, 1);
    let events = play_all(&mut d);
    let texts: Vec<&str> = events.iter().filter_map(report_text).collect();
    let [last] = texts.as_slice() else {
        panic!("{texts:?}")
    };
    assert!(!last.starts_with("Results of"), "{last}");
    assert!(last.contains("first") && last.contains("third"), "{last}");
}

fn shard_sprt() -> Sprt {
    Sprt::new(0.0, 20.0, 0.05, 0.05, SprtModel::Normalized).unwrap()
}

/// One shard of a 1000-game run with an SPRT, a results block every `interval` games.
fn shard_dispatcher(interval: u64) -> Dispatcher {
    let settings = DispatchSettings {
        sprt: Some(shard_sprt()),
        sharded: true,
        rating_interval: interval,
        ..settings()
    };
    dispatcher(settings, 2, 1000)
}

/// Games another shard finished (even game numbers, say), mostly wins of the first engine:
/// enough for the SPRT to accept H1.
fn remote_wins() -> Vec<ScoredGame> {
    (1..=400)
        .map(|i| ScoredGame {
            game: 2 * i,
            pair: 0,
            pair_game: 2 * i - 1,
            first: if i % 4 == 0 { Score::Draw } else { Score::Win },
            first_moved: i % 2 == 0,
        })
        .collect()
}

#[test]
fn other_shards_games_count_for_the_sprt_and_their_stop_is_obeyed() {
    let mut d = shard_dispatcher(0);
    let mine = take(&mut d).unwrap();
    let actions = d.on_event(Event::Remote(remote_wins()));
    assert!(
        actions
            .iter()
            .any(|a| matches!(a, Action::StopShards(c) if c.verdict == Verdict::H1)),
        "{actions:?}"
    );
    assert_eq!(d.stop_reason(), StopReason::SprtH1);
    assert!(
        take(&mut d).is_none(),
        "no game starts after the combined decision"
    );
    // The game in flight still finishes and counts as this shard's.
    d.on_event(record(&mine, Some(1), None));
    assert_eq!(d.finished_games(), 1);

    // A shard that hears of another shard's decision stops too, without writing a marker.
    let mut other = shard_dispatcher(0);
    let actions = other.on_event(Event::ShardsStopped(marker(Verdict::H0, 40, 52, "2/3")));
    assert!(actions.iter().all(|a| !matches!(a, Action::StopShards(_))));
    assert_eq!(other.stop_reason(), StopReason::SprtH0);
    assert!(take(&mut other).is_none());
}

fn marker(verdict: Verdict, games: u64, game: u64, shard: &str) -> StopMarker {
    StopMarker {
        verdict,
        llr: if verdict == Verdict::H1 { 2.97 } else { -2.97 },
        games,
        game,
        shard: shard.into(),
        written: "2026-11-24T10:00:00+00:00".into(),
    }
}

#[test]
fn a_shard_reports_the_stop_markers_crossing_not_its_own() {
    let mut d = shard_dispatcher(1);
    let mine = take(&mut d).unwrap();
    let second = take(&mut d).unwrap();
    // This shard's view crosses: it asks for the marker and prints nothing of its own.
    let actions = d.on_event(Event::Remote(remote_wins()));
    let own = d.tracker().crossing().unwrap();
    assert!(matches!(actions.as_slice(), [Action::StopShards(c)] if *c == own));
    // Nor a results block with its own crossing while it waits for the marker.
    let finished = d.on_event(record(&mine, Some(1), None));
    assert!(told(&finished).iter().all(|e| report_text(e).is_none()));
    // Another shard's marker was there first, at another point: that is the verdict.
    let m = marker(Verdict::H1, own.games - 5, own.game + 9, "2/2");
    let actions = d.on_event(Event::ShardsStopped(m.clone()));
    let verdict = ConsoleEvent::ShardVerdict {
        sprt: Some(shard_sprt()),
        crossing: m.crossing(),
        shard: "2/2".into(),
    };
    assert_eq!(told(&actions), [&verdict]);
    // Heard again at the next poll: said once.
    assert!(d.on_event(Event::ShardsStopped(m.clone())).is_empty());
    d.on_event(record(&second, Some(1), None));
    let want = m.crossing().describe();
    let text = final_text(&mut d).unwrap();
    assert!(text.contains(&format!("SPRT: {want}")), "{text}");
    assert!(!text.contains(&own.describe()), "{text}");
    assert_eq!(d.stop_reason(), StopReason::SprtH1);
}
/// The assignment a slot gets next.
fn assignment(d: &mut Dispatcher) -> Assignment {
    d.on_event(Event::Ready)
        .into_iter()
        .find_map(|a| match a {
            Action::Play(a) => Some(a),
            _ => None,
        })
        .expect("a game")
}

/// A tuned game's record: engine `winner` wins, the values as assigned.
fn tuned_record(a: &Assignment, winner: usize) -> Event {
    let mut r = game_record(&a.pairing, Some(winner), None);
    r.tune = a.tune.clone();
    Event::Finished(r)
}

fn saved_tune(actions: &[Action]) -> Option<&TuneEntry> {
    actions.iter().find_map(|a| match a {
        Action::Save(r, _) => r.tune.as_ref(),
        _ => None,
    })
}

#[test]
fn a_tuning_hands_out_values_and_steps_with_its_own_and_other_shards_iterations() {
    let params = crate::tune::params::Params::parse(
        "a, int, 50, 0, 100, 5, 0.002\n",
        std::path::Path::new("p.txt"),
    )
    .unwrap();
    let setup = TuneSetup {
        params,
        settings: crate::tune::spsa::SpsaSettings {
            iterations: 4,
            ..Default::default()
        },
        pairs: 1,
        every: 2,
    };
    let s = DispatchSettings {
        tune: Some((setup, 3)),
        ..settings()
    };
    // Shard 1 of 2: iterations 1 and 3 are its own, 2 and 4 the other shard's.
    let schedule =
        Schedule::new(2, TournamentKind::RoundRobin, 8, 1, Repeat::Twice).with_shard_unit(2);
    let shard = crate::schedule::shard::Shard { index: 1, count: 2 };
    let queue = GameQueue::new(&schedule, Some(shard), Default::default());
    let mut d = Dispatcher::new(s, schedule, queue, &[]);
    let (g1, g2) = (assignment(&mut d), assignment(&mut d));
    let (t1, t2) = (g1.tune.clone().unwrap(), g2.tune.clone().unwrap());
    assert_eq!((t1.iteration, t2.iteration), (1, 1));
    assert_eq!(t1, t2, "a pair's games are sent the same values");
    assert_ne!(t1.plus, t1.minus);
    // θ+ (engine 0) wins both: the second game completes the iteration and carries the step.
    let first = d.on_event(tuned_record(&g1, 0));
    assert_eq!(saved_tune(&first).unwrap().done, None);
    let second = d.on_event(tuned_record(&g2, 0));
    let step = saved_tune(&second).unwrap().done.clone().expect("the step");
    assert_eq!(step.score, 2);
    assert_eq!(step.theta, d.tuner().unwrap().theta());
    // Another shard's iteration 2 (games 3 and 4) steps θ here too, and every 2 iterations
    // θ is shown and written.
    let remote = |game, first| ScoredGame {
        game,
        pair: 0,
        pair_game: game - 1,
        first,
        first_moved: game % 2 == 1,
    };
    let actions = d.on_event(Event::Remote(vec![
        remote(3, Score::Win),
        remote(4, Score::Draw),
    ]));
    assert_eq!(d.tuner().unwrap().completed(), 2);
    assert!(
        told(&actions).iter().any(|e| matches!(
            e,
            ConsoleEvent::TuneProgress {
                completed: 2,
                total: 4,
                ..
            }
        )),
        "{actions:?}"
    );
    assert!(actions.iter().any(|a| matches!(a, Action::TuneSnapshot(_))));
    // The next game handed out is game 5, iteration 3's, drawn from θ after both steps.
    let next = assignment(&mut d);
    let t = d.tuner().unwrap();
    let spsa = crate::tune::spsa::Spsa::new(&t.setup().params, t.setup().settings);
    let drawn = spsa.step(3, t.theta(), 3);
    let values = next.tune.unwrap();
    assert_eq!((next.pairing.game.0, values.iteration), (5, 3));
    assert_eq!((values.plus, values.minus), (drawn.plus, drawn.minus));
}

#[test]
fn a_capped_engine_makes_a_slot_wait_until_its_game_ends() {
    // Two engines, the first capped at one game: a second slot asking waits, and gets the next
    // game once the first comes back; the run ends when both are played.
    let mut d = dispatcher_with(|s| s.slots = vec![Some(1), None], 2, 2);
    let first = take(&mut d).unwrap();
    assert!(matches!(
        d.on_event(Event::Ready).as_slice(),
        [Action::Wait]
    ));
    d.on_event(record(&first, Some(0), None));
    let second = take(&mut d).unwrap();
    assert_eq!(second.game.0, 2);
    // An abandoned game frees its engines as a finished one does.
    d.on_event(Event::Abandoned(second.game));
    assert!(take(&mut d).is_none(), "every game was handed out");
}

#[test]
fn a_league_says_who_is_promoted_after_the_standings_and_a_shard_only_who_leads() {
    let final_of = |sharded: bool, games_left: bool| {
        let mut d = dispatcher_with(
            |s| {
                s.promote = Some(2);
                s.sharded = sharded;
            },
            3,
            2,
        );
        if games_left {
            let p = take(&mut d).unwrap();
            d.on_event(record(&p, Some(0), None));
            d.on_event(Event::Interrupt);
            return final_text(&mut d).unwrap();
        }
        let events = play_all(&mut d);
        let texts: Vec<&str> = events.iter().filter_map(report_text).collect();
        texts.last().unwrap().to_string()
    };
    let text = final_of(false, false);
    let standings = text.find("Rank").unwrap();
    let promoted = text
        .find("Promoted (the top 2")
        .unwrap_or_else(|| panic!("{text}"));
    assert!(standings < promoted, "{text}");
    assert!(final_of(true, false).contains("Leading, with games still to play (the top 2"));
    assert!(final_of(false, true).contains("Leading, with games still to play (the top 2"));
    // Not a league: no promotion.
    let mut d = dispatcher(settings(), 3, 2);
    let events = play_all(&mut d);
    assert!(!events
        .iter()
        .filter_map(report_text)
        .any(|t| t.contains("Promoted")));
}
