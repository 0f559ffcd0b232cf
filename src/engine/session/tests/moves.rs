//! Move and SWAP2BOARD requests: what is sent, what is the answer, what is noise.

use super::*;

#[tokio::test(start_paused = true)]
async fn move_request_sends_time_left_and_measures_elapsed() {
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        e.expect(&["INFO time_left 2147483647", "BEGIN"]).await;
        tokio::time::sleep(Duration::from_millis(1234)).await;
        e.send("DEBUG thinking\r\nMESSAGE I will win\r\nUNKNOWN x\nOK\n 7 , 7 \r\n")
            .await;
        e.expect(&["INFO time_left 9876", "TURN 8,9"]).await;
        e.send("7,8\r").await;
        e.expect(&["INFO time_left 0", "BOARD", "7,7,1", "8,9,2", "DONE"])
            .await;
        e.send("6,6\n").await;
        e
    });
    let r = s
        .request_move(MoveRequest::Begin, None, Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(r.coords, Some((7, 7)));
    assert_eq!(r.raw, "7 , 7");
    assert_eq!(r.elapsed, Duration::from_millis(1234));
    assert_eq!(s.take_messages(), vec!["I will win"]);
    assert!(s.take_messages().is_empty());
    let r = s
        .request_move(turn(8, 9), Some(Duration::from_micros(9_876_999)), SEC)
        .await
        .unwrap();
    assert_eq!(r.coords, Some((7, 8)));
    assert_eq!(r.elapsed, Duration::ZERO);
    let r = s
        .request_move(
            MoveRequest::Board(vec![
                (Pos::new(7, 7), Field::Own),
                (Pos::new(8, 9), Field::Opponent),
            ]),
            Some(Duration::ZERO),
            SEC,
        )
        .await
        .unwrap();
    assert_eq!(r.coords, Some((6, 6)));
    engine.await.unwrap();
}

#[test]
fn an_answer_with_nothing_to_trim_keeps_its_allocation() {
    let line = String::from("7,7");
    let at = line.as_ptr();
    let t = io::trimmed(line);
    assert_eq!((t.as_str(), t.as_ptr()), ("7,7", at));
    assert_eq!(io::trimmed(" 8,8\t".to_string()), "8,8");
    assert_eq!(io::trimmed("  ".to_string()), "");
}

#[tokio::test(start_paused = true)]
async fn swap2_request_sends_time_left_and_the_stones_and_reads_every_answer_shape() {
    use crate::core::swap::Answer;
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        e.expect(&["INFO time_left 5000", "SWAP2BOARD", "DONE"])
            .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        e.send("DEBUG x\r\nMESSAGE three stones\r\nOK\r\n7,7 8,7 9,9\r\n")
            .await;
        assert_eq!(e.recv().await, "INFO time_left 2147483647");
        e.expect(&["SWAP2BOARD", "7,7", "8,7", "9,9", "DONE"]).await;
        e.send("SWAP\r\n").await;
        for answer in ["UNKNOWN SWAP2BOARD", "SUGGEST 1,2", "8,8 8,6"] {
            e.expect(&["INFO time_left 2147483647", "SWAP2BOARD", "DONE"])
                .await;
            e.send(&format!("{answer}\r\n")).await;
        }
        e
    });
    let r = s
        .swap2_request(&[], Some(Duration::from_secs(5)), SEC)
        .await
        .unwrap();
    assert_eq!(r.answer, Answer::Stones(vec![(7, 7), (8, 7), (9, 9)]));
    assert_eq!(r.raw, "7,7 8,7 9,9");
    assert_eq!(r.elapsed, Duration::from_millis(300));
    assert_eq!(s.take_messages(), vec!["three stones"]);
    let three = [Pos::new(7, 7), Pos::new(8, 7), Pos::new(9, 9)];
    let r = s.swap2_request(&three, None, SEC).await.unwrap();
    assert_eq!(r.answer, Answer::Swap);
    let mut answers = Vec::new();
    for _ in 0..3 {
        answers.push(s.swap2_request(&[], None, SEC).await.unwrap());
    }
    assert_eq!(answers[0].answer, Answer::Unsupported);
    assert_eq!(answers[0].raw, "UNKNOWN SWAP2BOARD");
    assert_eq!(answers[1].answer, Answer::Unparsable);
    assert_eq!(answers[2].answer, Answer::Stones(vec![(8, 8), (8, 6)]));
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn search_output_before_a_move_is_its_report_and_never_its_answer() {
    let (mut s, engine, _rx) = with_engine(started().await, |mut e| async move {
        recv_until(&mut e, "TURN 8,9").await;
        e.send(
            "INFO PV 0\r\nINFO DEPTH 7\r\nINFO EVAL +M3\r\nINFO BESTLINE 7,8 9,9\r\nINFO PV DONE\r\n\
             MESSAGE depth x-y ev ??\r\nMESSAGE thinking hard\r\n7,8\r\n",
        )
        .await;
        // A block cut by the move is no report; nor is one printed after it.
        recv_until(&mut e, "TURN 9,9").await;
        e.send("INFO PV 0\r\nINFO EVAL 5\r\n1,1\r\nINFO PV 0\r\nINFO TOTALTIME 900\r\nINFO PV DONE\r\n")
            .await;
        recv_until(&mut e, "TURN 2,2").await;
        e.send("3,3\r\n").await;
        e
    });
    let r = s.request_move(turn(8, 9), None, SEC).await.unwrap();
    let report = r.search.expect("a report");
    assert_eq!(report.depth, Some(7));
    assert_eq!(report.eval.map(|e| e.to_string()).as_deref(), Some("+M3"));
    assert_eq!(report.pv, vec![Pos::new(7, 8), Pos::new(9, 9)]);
    assert_eq!(
        s.take_messages(),
        vec!["thinking hard"],
        "a report is not a message"
    );
    let r = s.request_move(turn(9, 9), None, SEC).await.unwrap();
    assert_eq!((r.coords, r.search), (Some((1, 1)), None));
    let r = s.request_move(turn(2, 2), None, SEC).await.unwrap();
    assert_eq!(r.coords, Some((3, 3)));
    // Its engine time is longer than this request has run: an earlier search's.
    assert_eq!(
        r.search, None,
        "the block after the last move belongs to no move"
    );
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn nbest_asks_yxnbest_on_the_board_and_falls_back_to_board_when_refused() {
    let mut spec = EngineSpec::new("fake");
    spec.nbest = Some(3);
    let (mut s, engine, _rx) = with_engine(session_with(spec), |mut e| async move {
        assert_eq!(e.recv().await, "START 15");
        e.send("OK\r\n").await;
        e.info_block().await;
        let asked = recv_until(&mut e, "YXNBEST 3").await;
        assert_eq!(asked[1..], ["YXBOARD", "7,7,2", "DONE", "YXNBEST 3"]);
        let block = |k, ev, mv| {
            format!("INFO PV {k}\r\nINFO NUMPV 2\r\nINFO DEPTH 4\r\nINFO EVAL {ev}\r\nINFO BESTLINE {mv}\r\nINFO PV DONE\r\n")
        };
        e.send(&format!(
            "{}{}8,8\r\n",
            block(0, 30, "8,8"),
            block(1, -5, "6,6")
        ))
        .await;
        // Refused the next time: the stone lines' echoes are drained, then BOARD is asked.
        recv_until(&mut e, "YXNBEST 3").await;
        e.send("UNKNOWN YXBOARD\r\nUNKNOWN 7,7,2\r\n").await;
        let asked = recv_until(&mut e, "ABOUT").await;
        assert!(!asked.iter().any(|l| l.starts_with("YX")), "{asked:?}");
        e.send("name=\"fake\"\r\n").await;
        let asked = recv_until(&mut e, "DONE").await;
        assert_eq!(asked[1..], ["BOARD", "7,7,2", "8,8,1", "9,9,2", "DONE"]);
        e.send("4,4\r\n").await;
        e
    });
    new_game15(&mut s).await.unwrap();
    let board = |stones: &[(u8, u8)]| {
        MoveRequest::Board(
            stones
                .iter()
                .enumerate()
                .map(|(i, &(x, y))| (Pos::new(x, y), Field::of(i % 2 == stones.len() % 2)))
                .collect(),
        )
    };
    let r = s.request_move(board(&[(7, 7)]), None, SEC).await.unwrap();
    assert_eq!(r.coords, Some((8, 8)));
    let pvs: Vec<_> = r.search.unwrap().multipv.iter().map(|m| m.pos).collect();
    assert_eq!(pvs, vec![Pos::new(8, 8), Pos::new(6, 6)]);
    assert_eq!(s.nbest(), Some(3));
    let r = s
        .request_move(board(&[(7, 7), (8, 8), (9, 9)]), None, SEC)
        .await
        .unwrap();
    assert_eq!(r.coords, Some((4, 4)));
    assert_eq!(s.nbest(), None, "refused once, never asked again");
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn an_error_instead_of_a_move_is_no_answer_the_engine_loses_on_time_quoting_it() {
    let (mut s, engine, _rx) = with_engine(session(), |mut e| async move {
        e.recv().await;
        assert_eq!(e.recv().await, "BEGIN");
        e.send("MESSAGE hm\r\nERROR Board is not empty.\r\nUNKNOWN what\r\n")
            .await;
        e
    });
    let t = Instant::now();
    let (what, elapsed, said) = match s
        .request_move(MoveRequest::Begin, None, Duration::from_secs(5))
        .await
    {
        Err(EngineError::Timeout {
            what,
            elapsed,
            said,
        }) => (what, elapsed, said),
        other => panic!("{other:?}"),
    };
    assert_eq!(what, "BEGIN");
    assert_eq!(said.as_deref(), Some("ERROR Board is not empty."));
    assert_eq!(elapsed, Duration::from_secs(5), "waited for the deadline");
    assert_eq!(t.elapsed(), Duration::from_secs(5));
    assert_eq!(s.take_messages(), vec!["hm"]);
    let counts = s.take_line_counts();
    assert_eq!((counts.error, counts.unknown), (1, 1));
    assert!(!s.is_alive(), "killed at the deadline");
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn error_lines_before_a_move_are_counted_noise_and_the_move_is_the_answer() {
    let (mut s, engine, mut rx) = with_engine(session(), |mut e| async move {
        e.recv().await;
        assert_eq!(e.recv().await, "TURN 1,2");
        // Rapfi sent a line while it finished its last move: it drops INFO and refuses the
        // rest, then answers the TURN.
        e.send("ERROR Unknown command: TIME_LEFT\r\nERROR Unknown command: 8502\r\n")
            .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        e.send("DEBUG thinking\r\nOK\r\n3,4\r\n").await;
        e
    });
    let r = s.request_move(turn(1, 2), None, SEC).await.unwrap();
    assert_eq!(r.coords, Some((3, 4)));
    assert_eq!(r.elapsed, Duration::from_millis(300));
    assert_eq!(
        s.line_counts(),
        LineCounts {
            error: 2,
            debug: 1,
            other: 1,
            ..LineCounts::default()
        }
    );
    engine.await.unwrap();
    let notes = notes(&mut rx);
    assert!(
        notes
            .iter()
            .any(|n| n == "no answer, ignored: ERROR Unknown command: TIME_LEFT"),
        "{notes:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn an_error_about_the_time_left_line_is_no_refusal_of_yxnbest_or_swap2board() {
    let mut spec = EngineSpec::new("fake");
    spec.nbest = Some(2);
    let (mut s, engine, _rx) = with_engine(session_with(spec), |mut e| async move {
        assert_eq!(e.recv().await, "START 15");
        e.send("OK\r\n").await;
        e.info_block().await;
        recv_until(&mut e, "YXNBEST 2").await;
        e.send("ERROR Unknown command: TIME_LEFT\r\nERROR Unknown command: 2147483647\r\n8,8\r\n")
            .await;
        recv_until(&mut e, "DONE").await;
        e.send("ERROR Unknown command: TIME_LEFT\r\nSWAP\r\n").await;
        e
    });
    new_game15(&mut s).await.unwrap();
    let board = MoveRequest::Board(vec![(Pos::new(7, 7), Field::Opponent)]);
    let r = s.request_move(board, None, SEC).await.unwrap();
    assert_eq!(r.coords, Some((8, 8)));
    assert_eq!(s.nbest(), Some(2), "not refused");
    let r = s.swap2_request(&[Pos::new(7, 7)], None, SEC).await.unwrap();
    assert_eq!(r.answer, Answer::Swap);
    assert_eq!(s.take_line_counts().error, 3);
    engine.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_message_flood_is_kept_up_to_the_cap_per_move_and_the_rest_counted() {
    use crate::engine::chatter::{BYTES_PER_MOVE, LINES_PER_MOVE};
    let flood = 10 * LINES_PER_MOVE;
    let (mut s, engine, mut rx) = with_engine(session(), move |mut e| async move {
        for _ in 0..2 {
            recv_until(&mut e, "BEGIN").await;
            let mut out = String::new();
            for i in 0..flood {
                out.push_str(&format!("MESSAGE line {i}\r\nDEBUG d\r\n"));
            }
            out.push_str("7,7\r\n");
            e.send(&out).await;
        }
        e
    });
    for _ in 0..2 {
        let r = s.request_move(MoveRequest::Begin, None, SEC).await.unwrap();
        assert_eq!(r.coords, Some((7, 7)));
    }
    let kept = s.take_messages();
    // Half of each move's room went to the DEBUG lines' notes.
    assert_eq!(kept.len(), LINES_PER_MOVE, "{} kept", kept.len());
    assert!(kept.iter().map(String::len).sum::<usize>() <= 2 * BYTES_PER_MOVE);
    assert_eq!(kept[0], "line 0");
    let counts = s.take_line_counts();
    assert_eq!(counts.debug, 2 * flood as u64);
    assert_eq!(counts.dropped, 2 * (2 * flood - LINES_PER_MOVE) as u64);
    assert!(counts.dropped_bytes > counts.dropped * 5);
    engine.await.unwrap();
    let notes = notes(&mut rx);
    let over = notes.iter().filter(|n| n.starts_with("over ")).count();
    assert_eq!(over, 2, "one note a move");
}
