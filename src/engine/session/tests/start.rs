//! A game's start: ABOUT, START and RESTART with the INFO block, and their failures.

use super::*;

#[tokio::test(start_paused = true)]
async fn about_skips_banner_and_parses_name() {
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        assert_eq!(e.recv().await, "ABOUT");
        e.send("MESSAGE Welcome to Foo\r\nDEBUG build 42\n\r\nname=\"Foo\", version=\"2\"\r\n")
            .await;
        e
    });
    assert_eq!(s.about(SEC).await.unwrap(), "Foo");
    assert_eq!(s.name(), "Foo");
    assert_eq!(s.about_info().unwrap().version(), Some("2"));
    assert!(s.take_messages().is_empty(), "banner is not a game message");
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn about_user_name_wins_for_logs_and_unknown_falls_back() {
    let mut spec = EngineSpec::new("./dir/pbrain-x");
    spec.name = Some("Mine".into());
    let (mut s, engine, _rx) = with_engine(session_with(spec), |mut e| async move {
        assert_eq!(e.recv().await, "ABOUT");
        e.send("UNKNOWN ABOUT\n").await;
        e
    });
    assert_eq!(s.about(SEC).await.unwrap(), "pbrain-x");
    assert_eq!(s.name(), "Mine");
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn start_sends_the_info_block_in_order() {
    let mut spec = EngineSpec::new("fake");
    spec.tc = TimeControl::parse("180/30+1.5").unwrap();
    spec.depth = Some(12);
    spec.nodes = Some(100000);
    spec.threads = Some(2);
    spec.max_memory = 1000;
    spec.options = vec![("caution_factor".into(), "2".into())];
    let (mut s, engine, _rx) = with_engine(session_with(spec), |mut e| async move {
        assert_eq!(e.recv().await, "START 20");
        e.send("OK\r\n").await;
        let got = e.info_block().await;
        (e, got)
    });
    s.new_game(size(20), Rule::Renju, SEC).await.unwrap();
    let (_e, got) = engine.await.unwrap();
    assert_eq!(
        got,
        vec![
            "INFO timeout_turn 30000",
            "INFO timeout_match 180000",
            "INFO time_increment 1500",
            "INFO max_memory 1000",
            "INFO game_type 1",
            "INFO rule 4",
            "INFO max_depth 12",
            "INFO max_node 100000",
            "INFO thread_num 2",
            "INFO show_detail 2",
            "INFO caution_factor 2",
        ]
    );
}

#[test]
fn infos_for_unlimited_time() {
    let spec = EngineSpec::new("x");
    let lines: Vec<String> = game_infos(&spec, Rule::Freestyle)
        .iter()
        .flat_map(|c| c.lines())
        .collect();
    assert_eq!(
        lines,
        vec![
            "INFO timeout_match 0",
            "INFO max_memory 367001600",
            "INFO game_type 1",
            "INFO rule 0",
            "INFO show_detail 2",
        ]
    );
    // `detail=off` sends none; an engine option of the same key replaces ours.
    let mut spec = EngineSpec::new("x");
    spec.detail = Detail::Off;
    let mut lines = game_infos(&spec, Rule::Freestyle)
        .into_iter()
        .flat_map(|c| c.lines());
    assert!(lines.all(|l| !l.contains("show_detail")));
    spec.detail = Detail::Level(3);
    spec.options = vec![("SHOW_DETAIL".into(), "1".into())];
    let lines: Vec<String> = game_infos(&spec, Rule::Freestyle)
        .iter()
        .flat_map(|c| c.lines())
        .filter(|l| l.to_ascii_lowercase().contains("show_detail"))
        .collect();
    assert_eq!(lines, vec!["INFO SHOW_DETAIL 1"]);
    let mut spec = EngineSpec::new("x");
    spec.tc = TimeControl::parse("0/5").unwrap();
    let lines: Vec<String> = game_infos(&spec, Rule::StandardCaro)
        .iter()
        .flat_map(|c| c.lines())
        .collect();
    assert_eq!(lines[0], "INFO timeout_turn 5000");
    assert_eq!(lines[1], "INFO timeout_match 0");
    assert_eq!(lines.last().unwrap(), "INFO show_detail 2");
    assert_eq!(lines[lines.len() - 2], "INFO rule 9");
}

#[tokio::test(start_paused = true)]
async fn error_at_start_is_start_failed_with_the_text() {
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        assert_eq!(e.recv().await, "START 15");
        e.send("MESSAGE hmm\r\nERROR unsupported size\r\n").await;
        e
    });
    match new_game15(&mut s).await {
        Err(EngineError::StartFailed { text }) => assert_eq!(text, "ERROR unsupported size"),
        other => panic!("{other:?}"),
    }
    assert_eq!(s.take_messages(), vec!["hmm"]);
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn second_game_restarts_and_size_change_starts() {
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        let mut seen = Vec::new();
        loop {
            let line = e.recv().await;
            if line.starts_with("START") || line == "RESTART" {
                e.send("OK\n").await;
            }
            let started = line.starts_with("START") || line == "RESTART";
            let done = line == "START 20";
            seen.push(line);
            if started {
                seen.extend(e.info_block().await);
            }
            if done {
                return seen;
            }
        }
    });
    new_game15(&mut s).await.unwrap();
    new_game15(&mut s).await.unwrap();
    s.new_game(size(20), Rule::Freestyle, SEC).await.unwrap();
    let seen = engine.await.unwrap();
    let commands: Vec<&str> = seen
        .iter()
        .map(String::as_str)
        .filter(|l| !l.starts_with("INFO"))
        .collect();
    assert_eq!(commands, vec!["START 15", "RESTART", "START 20"]);
}

#[tokio::test(start_paused = true)]
async fn restart_sends_the_info_block_and_about_before_its_ok() {
    // RESTART, the INFO block and ABOUT come in one write: the engine reads them all before
    // it answers OK (a runner that waited for OK first would leave it waiting here, and the
    // paused clock would run the timeout out).
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        e.first_game_then_restart().await;
        let mut ahead = Vec::new();
        while ahead.last().map(String::as_str) != Some("ABOUT") {
            let line = tokio::time::timeout(SEC, e.recv()).await;
            ahead.push(line.expect("the INFO block and ABOUT before OK"));
        }
        e.send("OK\nname=\"fake\"\n").await;
        ahead
    });
    s.new_game(size(15), Rule::Freestyle, 10 * SEC)
        .await
        .unwrap();
    s.new_game(size(15), Rule::Freestyle, 10 * SEC)
        .await
        .unwrap();
    let ahead = engine.await.unwrap();
    assert!(
        ahead[..ahead.len() - 1]
            .iter()
            .all(|l| l.starts_with("INFO ")),
        "{ahead:?}"
    );
    assert!(ahead.contains(&"INFO rule 0".to_string()), "{ahead:?}");
    assert!(s.is_alive());
}

#[tokio::test(start_paused = true)]
async fn restart_refused_without_process_is_a_protocol_error() {
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        e.first_game_then_restart().await;
        e.send("UNKNOWN RESTART\n").await;
        e
    });
    new_game15(&mut s).await.unwrap();
    let err = new_game15(&mut s).await.unwrap_err();
    assert!(
        matches!(&err, EngineError::Protocol { text } if text.contains("UNKNOWN RESTART")),
        "{err}"
    );
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn the_game_starts_only_once_the_engine_has_taken_in_the_info_block() {
    // An engine that allocates its hash on `INFO max_memory` for 4 s: new_game returns after
    // that work (the first move's clock has not started), within a 5 s start-up deadline.
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        assert_eq!(e.recv().await, "START 15");
        e.send("OK\n").await;
        loop {
            let line = e.recv().await;
            if line.starts_with("INFO max_memory") {
                tokio::time::sleep(Duration::from_secs(4)).await;
            }
            if line == "ABOUT" {
                e.send("MESSAGE hash ready\nUNKNOWN ABOUT\n").await;
                return e;
            }
        }
    });
    let t = tokio::time::Instant::now();
    s.new_game(size(15), Rule::Freestyle, Duration::from_secs(5))
        .await
        .unwrap();
    assert!(t.elapsed() >= Duration::from_secs(4), "{:?}", t.elapsed());
    assert_eq!(s.take_messages(), vec!["hash ready"]);
    let _e = engine.await.unwrap();
    // Past the deadline, it is a start-up timeout.
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        assert_eq!(e.recv().await, "START 15");
        e.send("OK\n").await;
        tokio::time::sleep(Duration::from_secs(60)).await;
        e
    });
    let started = s.new_game(size(15), Rule::Freestyle, Duration::from_secs(5));
    assert_eq!(timeout_of(started.await).0, "INFO and ABOUT");
    drop(engine);
}

#[tokio::test(start_paused = true)]
async fn start_timeout_uses_the_startup_deadline() {
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        assert_eq!(e.recv().await, "START 15");
        // Slow hash allocation: 4 s, within a 5 s startup deadline.
        tokio::time::sleep(Duration::from_secs(4)).await;
        e.send("OK\n").await;
        e.info_block().await;
        e
    });
    s.new_game(size(15), Rule::Freestyle, Duration::from_secs(5))
        .await
        .unwrap();
    let _e = engine.await.unwrap();

    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        assert_eq!(e.recv().await, "START 15");
        tokio::time::sleep(Duration::from_secs(60)).await;
        e
    });
    let started = s.new_game(size(15), Rule::Freestyle, Duration::from_secs(5));
    assert_eq!(
        timeout_of(started.await),
        ("START 15".to_string(), Duration::from_secs(5))
    );
    assert!(!s.is_alive());
    engine.abort();
}
