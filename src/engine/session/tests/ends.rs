//! How a conversation ends or breaks: timeouts, crashes, the log, TAKEBACK, END.

use super::*;

#[tokio::test(start_paused = true)]
async fn silent_engine_times_out_at_the_deadline() {
    let (mut s, engine, mut rx) = with_engine(session(), |mut e| async move {
        e.skip(2).await;
        e.send("MESSAGE still thinking\n").await;
        tokio::time::sleep(Duration::from_secs(3600)).await;
        e
    });
    let asked = s.request_move(MoveRequest::Begin, Some(SEC), Duration::from_millis(2500));
    assert_eq!(
        timeout_of(asked.await),
        ("BEGIN".to_string(), Duration::from_millis(2500))
    );
    assert!(!s.is_alive());
    assert!(matches!(
        s.request_move(MoveRequest::Begin, None, SEC).await,
        Err(EngineError::Crashed { .. })
    ));
    engine.abort();
    let mut notes = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        assert_eq!(ev.slot, 3);
        if ev.direction == Direction::Note {
            notes.push(ev.text);
        }
    }
    assert!(
        notes.iter().any(|n| n.contains("no answer to BEGIN")),
        "{notes:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn closed_output_is_a_crash() {
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        e.skip(2).await;
        e.send("MESSAGE bye\n").await;
        drop(e);
    });
    let err = s
        .request_move(MoveRequest::Begin, None, SEC)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, EngineError::Crashed { status } if status == "connection closed"),
        "{err:?}"
    );
    engine.await.unwrap();
    assert!(!s.is_alive());
}

#[tokio::test(start_paused = true)]
async fn writing_to_a_closed_engine_is_a_crash_not_a_panic() {
    let (mut s, e, _rx) = session();
    drop(e);
    let err = s
        .request_move(MoveRequest::Begin, None, SEC)
        .await
        .unwrap_err();
    assert!(matches!(err, EngineError::Crashed { .. }), "{err:?}");
}

#[tokio::test(start_paused = true)]
async fn log_records_both_directions_without_line_ends() {
    let (mut s, engine, mut rx) = with_engine(session(), |mut e| async move {
        e.skip(2).await;
        e.send("5,5\r\n").await;
        e
    });
    s.request_move(MoveRequest::Begin, None, SEC).await.unwrap();
    engine.await.unwrap();
    let mut events = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        events.push((ev.direction, ev.text, ev.engine));
    }
    let fake = "fake".to_string();
    assert_eq!(
        events,
        vec![
            (
                Direction::ToEngine,
                "INFO time_left 2147483647".into(),
                fake.clone()
            ),
            (Direction::ToEngine, "BEGIN".into(), fake.clone()),
            (Direction::FromEngine, "5,5".into(), fake),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn takeback_reads_ok_a_refusal_or_reports_another_answer() {
    let (mut s, engine, _rx) = with_engine(started().await, |mut e| async move {
        assert_eq!(e.recv().await, "TAKEBACK 9,10");
        e.send("DEBUG undo\r\nMESSAGE gone\r\nOK\r\n").await;
        assert_eq!(e.recv().await, "TAKEBACK 1,2");
        e.send("UNKNOWN TAKEBACK\r\n").await;
        // The refusal is drained (ABOUT, up to its known answer) before the next request.
        assert_eq!(e.recv().await, "ABOUT");
        e.send("name=\"fake\"\r\n").await;
        assert_eq!(e.recv().await, "TAKEBACK 3,4");
        e.send("7,7\r\n").await;
        e
    });
    let at = |x, y| Pos::new(x, y);
    assert_eq!(s.takeback(at(9, 10), SEC).await.unwrap(), Takeback::Done);
    assert_eq!(s.take_messages(), vec!["gone"]);
    assert_eq!(
        s.takeback(at(1, 2), SEC).await.unwrap(),
        Takeback::Refused("UNKNOWN TAKEBACK".into())
    );
    match s.takeback(at(3, 4), SEC).await {
        Err(EngineError::Protocol { text }) => {
            assert_eq!(
                text,
                "engine answered TAKEBACK 3,4 with \"7,7\" instead of OK"
            )
        }
        other => panic!("{other:?}"),
    }
    assert!(s.is_alive());
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_silent_or_closed_engine_at_takeback_times_out_or_crashes() {
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        assert_eq!(e.recv().await, "TAKEBACK 0,0");
        tokio::time::sleep(Duration::from_secs(3600)).await;
        e
    });
    let t = Instant::now();
    assert_eq!(
        timeout_of(s.takeback(Pos::new(0, 0), SEC).await).0,
        "TAKEBACK 0,0"
    );
    assert_eq!(t.elapsed(), SEC);
    assert!(!s.is_alive());
    engine.abort();
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        e.recv().await;
        drop(e);
    });
    assert!(matches!(
        s.takeback(Pos::new(0, 0), SEC).await,
        Err(EngineError::Crashed { .. })
    ));
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn shutdown_sends_end() {
    let (s, mut e, _rx) = session();
    let engine = tokio::spawn(async move { e.recv().await });
    assert_eq!(s.shutdown().await, None);
    assert_eq!(engine.await.unwrap(), "END");
}
