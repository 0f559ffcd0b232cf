//! Engine quirks: a refused form asked again, late lines drained, a late ABOUT answer,
//! odd or huge answers, SUGGEST.

use super::*;

#[tokio::test(start_paused = true)]
async fn swap2board_refused_in_x_y_lines_is_asked_again_in_board_lines_and_remembered() {
    let (mut s, mut e, mut rx) = started().await;
    let three = [Pos::new(7, 7), Pos::new(8, 7), Pos::new(9, 9)];
    let engine = tokio::spawn(async move {
        // As Rapfi: an ERROR per stone line it cannot read, then a proposal for the board it
        // was left with (the empty one).
        assert_eq!(e.recv().await, "INFO time_left 10000");
        let asked = recv_until(&mut e, "DONE").await;
        assert_eq!(asked, ["SWAP2BOARD", "7,7", "8,7", "9,9", "DONE"]);
        let bad = "ERROR Color is not a valid value, must be one of [1, 2, 3].\r\n";
        e.send(&format!("{bad}{bad}{bad}")).await;
        tokio::time::sleep(Duration::from_millis(20)).await;
        e.send("0,0 2,1 2,4\r\n").await;
        // The drain: ABOUT, answered after the late lines.
        assert_eq!(e.recv().await, "ABOUT");
        e.send("name=\"fake\"\r\n").await;
        let again = recv_until(&mut e, "DONE").await;
        assert!(again[0].starts_with("INFO time_left "), "{again:?}");
        assert_eq!(
            again[1..],
            ["SWAP2BOARD", "7,7,2", "8,7,1", "9,9,2", "DONE"]
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
        e.send("SWAP\r\n").await;
        // Later requests go straight to the form that was answered.
        let next = recv_until(&mut e, "DONE").await;
        assert_eq!(next[1..], ["SWAP2BOARD", "7,7,2", "8,7,1", "9,9,2", "DONE"]);
        e.send("8,8\r\n").await;
        e
    });
    let r = s
        .swap2_request(&three, Some(Duration::from_secs(10)), SEC)
        .await
        .unwrap();
    assert_eq!(r.answer, Answer::Swap);
    assert_eq!(r.form, Swap2Form::Board);
    // Timed as one answer, from the first request.
    assert_eq!(r.elapsed, Duration::from_millis(120));
    let r = s.swap2_request(&three, None, SEC).await.unwrap();
    assert_eq!(r.answer, Answer::Stones(vec![(8, 8)]));
    assert_eq!(r.form, Swap2Form::Board);
    engine.await.unwrap();
    let notes = notes(&mut rx);
    assert!(
        notes
            .iter()
            .any(|n| n == "late line after SWAP2BOARD (3 stones), ignored: 0,0 2,1 2,4"),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("takes SWAP2BOARD in the board form")),
        "{notes:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn an_engine_that_reads_x_y_lines_keeps_them_and_unknown_is_not_asked_again() {
    let (mut s, mut e, _rx) = started().await;
    let three = [Pos::new(7, 7), Pos::new(8, 7), Pos::new(9, 9)];
    let engine = tokio::spawn(async move {
        let first = recv_until(&mut e, "DONE").await;
        assert_eq!(first[2], "7,7");
        e.send("UNKNOWN SWAP2BOARD\r\n").await;
        e
    });
    let r = s.swap2_request(&three, None, SEC).await.unwrap();
    assert_eq!(r.answer, Answer::Unsupported);
    assert_eq!(r.form, Swap2Form::Points);
    drop(engine.await.unwrap());
    let (mut s, engine, _rx) = with_engine(started().await, |mut e| async move {
        recv_until(&mut e, "DONE").await;
        e.send("SWAP\r\n").await;
        let again = recv_until(&mut e, "DONE").await;
        assert_eq!(again[2], "7,7", "{again:?}");
        e.send("ERROR not now\r\n").await;
        e
    });
    assert_eq!(
        s.swap2_request(&three, None, SEC).await.unwrap().answer,
        Answer::Swap
    );
    // An engine known to read x,y lines that refuses is not asked again in the other form.
    let r = s.swap2_request(&three, None, SEC).await.unwrap();
    assert_eq!(r.answer, Answer::Unsupported);
    assert_eq!(r.raw, "ERROR not now");
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn late_lines_after_a_refused_swap2board_are_drained_before_restart() {
    let (mut s, engine, mut rx) = with_engine(started().await, |mut e| async move {
        recv_until(&mut e, "DONE").await;
        // As old engines: UNKNOWN to the command and to each of its lines.
        e.send("UNKNOWN SWAP2BOARD\r\n").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        e.send("UNKNOWN 7,7\r\nUNKNOWN DONE\r\n").await;
        assert_eq!(e.recv().await, "ABOUT");
        e.send("name=\"fake\"\r\n").await;
        assert_eq!(e.recv().await, "RESTART");
        e.send("OK\r\n").await;
        e.info_block().await;
        e
    });
    let r = s.swap2_request(&[Pos::new(7, 7)], None, SEC).await.unwrap();
    assert_eq!(r.answer, Answer::Unsupported);
    new_game15(&mut s).await.unwrap();
    engine.await.unwrap();
    let notes = notes(&mut rx);
    let late: Vec<&String> = notes
        .iter()
        .filter(|t| t.starts_with("late line"))
        .collect();
    assert_eq!(
        late,
        [
            "late line after SWAP2BOARD (1 stones), ignored: UNKNOWN 7,7",
            "late line after SWAP2BOARD (1 stones), ignored: UNKNOWN DONE"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn without_a_known_about_answer_a_refusing_engine_is_started_afresh() {
    // An in-process transport cannot be respawned: the kill shows as a dead session.
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        recv_until(&mut e, "DONE").await;
        e.send("UNKNOWN SWAP2BOARD\r\n").await;
        e
    });
    let r = s.swap2_request(&[], None, SEC).await.unwrap();
    assert_eq!(r.answer, Answer::Unsupported);
    let _e = engine.await.unwrap();
    let err = new_game15(&mut s).await.unwrap_err();
    assert!(matches!(err, EngineError::Protocol { .. }), "{err}");
    assert!(!s.is_alive());
}

#[tokio::test(start_paused = true)]
async fn an_error_about_an_info_line_is_not_taken_for_the_about_answer() {
    let (mut s, engine, _rx) = with_engine(started().await, |mut e| async move {
        assert_eq!(e.recv().await, "RESTART");
        e.send("OK\r\n").await;
        recv_until(&mut e, "INFO max_memory 367001600").await;
        // As Rapfi for a small max_memory: at once, before ABOUT's answer.
        e.send("ERROR Max memory too small, might exceeds memory limits\r\n")
            .await;
        recv_until(&mut e, "ABOUT").await;
        e.send("name=\"fake\"\r\n").await;
        e.expect(&["INFO time_left 2147483647", "BEGIN"]).await;
        e.send("7,7\r\n").await;
        e
    });
    new_game15(&mut s).await.unwrap();
    let r = s.request_move(MoveRequest::Begin, None, SEC).await.unwrap();
    assert_eq!(r.coords, Some((7, 7)));
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn on_a_fresh_start_an_error_to_an_info_line_leaves_the_about_answer_for_later() {
    // No ABOUT answer known yet (the first game of a named engine): the ERROR is taken for
    // the answer, and the real one, arriving when the first move is asked, is not the move.
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        assert_eq!(e.recv().await, "START 15");
        e.send("OK\r\n").await;
        recv_until(&mut e, "INFO max_memory 367001600").await;
        e.send("ERROR Max memory too small, might exceeds memory limits\r\n")
            .await;
        recv_until(&mut e, "ABOUT").await;
        e.expect(&["INFO time_left 2147483647", "BEGIN"]).await;
        e.send("name=\"fake\", version=\"1\"\r\n").await;
        e.send("7,7\r\n").await;
        e.expect(&["INFO time_left 2147483647", "TURN 8,8"]).await;
        e.send("name=\"not a move\"\r\n").await;
        e
    });
    new_game15(&mut s).await.unwrap();
    let r = s.request_move(MoveRequest::Begin, None, SEC).await.unwrap();
    assert_eq!(r.coords, Some((7, 7)));
    // Only the first move's answer may be preceded by it: later, such a line is the answer.
    let r = s.request_move(turn(8, 8), None, SEC).await.unwrap();
    assert_eq!((r.coords, r.raw.as_str()), (None, "name=\"not a move\""));
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_silent_swap2_answer_times_out_and_kills() {
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        e.skip(3).await;
        tokio::time::sleep(Duration::from_secs(3600)).await;
        e
    });
    assert_eq!(
        timeout_of(s.swap2_request(&[], None, Duration::from_secs(2)).await),
        ("SWAP2BOARD (0 stones)".to_string(), Duration::from_secs(2))
    );
    assert!(!s.is_alive());
    engine.abort();
}

#[tokio::test(start_paused = true)]
async fn unlimited_deadline_waits_as_long_as_it_takes() {
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        e.skip(2).await;
        tokio::time::sleep(Duration::from_secs(10 * 86_400)).await;
        e.send("1,2\n").await;
        e
    });
    let r = s
        .request_move(MoveRequest::Begin, None, Duration::MAX)
        .await
        .unwrap();
    assert_eq!(r.coords, Some((1, 2)));
    assert_eq!(r.elapsed, Duration::from_secs(10 * 86_400));
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn garbage_answer_is_an_unparsable_move() {
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        e.skip(2).await;
        e.send("hello world  \r\n").await;
        e
    });
    let r = s.request_move(MoveRequest::Begin, None, SEC).await.unwrap();
    assert_eq!(r.raw, "hello world");
    assert_eq!(r.coords, None);
    assert!(s.is_alive());
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn huge_answers_are_cut_where_the_records_quote_them() {
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        assert_eq!(e.recv().await, "ABOUT");
        e.send(&format!("{}\r\n", "n".repeat(100_000))).await;
        assert_eq!(e.recv().await, "START 15");
        e.send(&format!("ERROR {}\r\n", "e".repeat(100_000))).await;
        e.skip(2).await;
        e.send(&format!("{}\r\n", "g".repeat(100_000))).await;
        e
    });
    let name = s.about(SEC).await.unwrap();
    assert_eq!(name, format!("{}…", "n".repeat(ABOUT_NAME_CHARS)));
    assert_eq!(s.name(), name);
    match new_game15(&mut s).await {
        Err(EngineError::StartFailed { text }) => {
            assert_eq!(text.chars().count(), QUOTED_ANSWER_CHARS + 1);
            assert!(
                text.starts_with("ERROR eee") && text.ends_with('…'),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
    let r = s.request_move(MoveRequest::Begin, None, SEC).await.unwrap();
    assert_eq!(r.raw, format!("{}…", "g".repeat(QUOTED_ANSWER_CHARS)));
    assert_eq!(r.coords, None);
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn suggest_is_answered_with_play() {
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        e.recv().await;
        assert_eq!(e.recv().await, "TURN 1,2");
        e.send("SUGGEST 3,4\r\n").await;
        assert_eq!(e.recv().await, "PLAY 3,4");
        e.send("3,4\r\n").await;
        e
    });
    let r = s.request_move(turn(1, 2), None, SEC).await.unwrap();
    assert_eq!(r.coords, Some((3, 4)));
    engine.await.unwrap();
}
