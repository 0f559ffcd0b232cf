//! The listener tested on the search output of Rapfi, Yixin-style engines and malformed lines.

use super::*;

/// A listener on a 15x15 board whose request has begun.
fn listening() -> Listener {
    let mut l = Listener::new(BoardSize::new(15).unwrap());
    l.begin();
    l
}

fn p(x: u8, y: u8) -> Pos {
    Pos::new(x, y)
}

/// Feeds lines as the session would: `INFO`/`MESSAGE` prefixes stripped.
fn hear(l: &mut Listener, lines: &str, elapsed_ms: u64) {
    for line in lines.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(rest) = line.strip_prefix("INFO ") {
            l.info(rest, || elapsed_ms);
        } else if let Some(rest) = line.strip_prefix("MESSAGE ") {
            l.message(rest, || elapsed_ms);
        }
    }
}

/// A block as Rapfi 3aedf3a prints it with `INFO show_detail 2`.
const RAPFI_BLOCK: &str = "
    INFO PV 0
    INFO NUMPV 1
    INFO DEPTH 12
    INFO SELDEPTH 20
    INFO NODES 123456
    INFO TOTALNODES 234567
    INFO TOTALTIME 510
    INFO SPEED 459935
    INFO EVAL 35
    INFO WINRATE 0.543
    INFO BESTLINE 7,7 8,8 6,6
    INFO PV DONE";

#[test]
fn a_detail_block_is_a_report() {
    let mut l = listening();
    hear(&mut l, RAPFI_BLOCK, 600);
    let r = l.finish().expect("a report");
    assert_eq!(r.eval, Some(Eval::Score(35)));
    assert_eq!((r.depth, r.seldepth), (Some(12), Some(20)));
    assert_eq!(r.nodes, Some(234_567), "the total, not the root move's");
    assert_eq!(r.time_ms, Some(510));
    assert_eq!(r.pv, vec![p(7, 7), p(8, 8), p(6, 6)]);
    assert!(r.multipv.is_empty(), "one PV is the report itself");
    assert_eq!(r.speed(), Some(459_935));
    assert_eq!(l.take_ignored(), 0);
    assert!(l.finish().is_none(), "a report serves one move");
}

#[test]
fn the_last_complete_report_wins_and_a_cut_block_is_not_one() {
    let mut l = listening();
    hear(&mut l, RAPFI_BLOCK, 600);
    hear(
        &mut l,
        "INFO PV 0\nINFO DEPTH 13\nINFO SELDEPTH 13\nINFO TOTALNODES 3\nINFO TOTALTIME 600\n\
         INFO EVAL -M4\nINFO BESTLINE 1,1\nINFO PV DONE",
        700,
    );
    hear(&mut l, "INFO PV 0\nINFO DEPTH 14\nINFO EVAL 90", 800);
    let r = l.finish().unwrap();
    assert_eq!(r.depth, Some(13));
    assert_eq!(
        r.eval,
        Some(Eval::Mate {
            outlook: Outlook::Loss,
            plies: Some(4)
        })
    );
    assert_eq!(l.take_ignored(), 1, "the cut block is counted");
}

#[test]
fn several_pvs_join_the_report_of_their_iteration() {
    let mut l = listening();
    for (k, ev, mv) in [(0, "40", "7,7"), (1, "12", "8,7"), (2, "-M3", "0,0")] {
        let block = format!(
            "INFO PV {k}\nINFO NUMPV 3\nINFO DEPTH 9\nINFO EVAL {ev}\nINFO BESTLINE {mv} 1,1\nINFO PV DONE"
        );
        hear(&mut l, &block, 100);
    }
    let r = l.finish().unwrap();
    assert_eq!(r.eval, Some(Eval::Score(40)));
    let firsts: Vec<_> = r.multipv.iter().map(|m| m.pos).collect();
    assert_eq!(firsts, vec![p(7, 7), p(8, 7), p(0, 0)]);
    assert!(r.multipv[2].eval.unwrap().is_proven_loss());
}

#[test]
fn a_search_stopped_between_pvs_keeps_the_last_whole_iteration() {
    let block = |k, depth, ev, mv| {
        format!("INFO PV {k}\nINFO NUMPV 2\nINFO DEPTH {depth}\nINFO EVAL {ev}\nINFO BESTLINE {mv}\nINFO PV DONE")
    };
    let mut l = listening();
    hear(&mut l, &block(0, 5, 40, "7,7"), 10);
    hear(&mut l, &block(1, 5, 10, "8,8"), 10);
    hear(&mut l, &block(0, 6, 45, "6,6"), 10);
    let r = l.finish().unwrap();
    assert_eq!(r.depth, Some(5));
    assert_eq!(
        r.multipv.iter().map(|m| m.pos).collect::<Vec<_>>(),
        [p(7, 7), p(8, 8)]
    );
    assert_eq!(l.take_ignored(), 0);

    // Only part of one iteration heard: that part.
    l.begin();
    hear(&mut l, &block(0, 1, 3, "7,7"), 10);
    let r = l.finish().unwrap();
    assert_eq!((r.depth, r.eval), (Some(1), Some(Eval::Score(3))));
}

#[test]
fn rapfis_one_line_messages_are_reports() {
    let mut l = listening();
    assert!(l.message("depth 8-14 ev 27 n 3152 n/ms 315 tm 10 pv H8I9J10", || 50));
    assert!(l.message("depth 9-17 ev +M5 n 12K n/ms 400 tm 30 pv H8I9", || 50));
    assert!(
        !l.message("Speed 1.2M nps", || 50),
        "human text is not a report"
    );
    let r = l.finish().unwrap();
    assert_eq!((r.depth, r.seldepth), (Some(9), Some(17)));
    assert_eq!(
        r.eval,
        Some(Eval::Mate {
            outlook: Outlook::Win,
            plies: Some(5)
        })
    );
    assert_eq!(r.nodes, Some(12_000));
    assert_eq!(r.time_ms, Some(30));
    assert_eq!(r.pv, vec![p(7, 7), p(8, 8)]);

    l.begin();
    l.message("depth 5-9 multipv 1 ev 10 n 100 n/ms 1 tm 5 pv H8", || 50);
    l.message("depth 5-9 multipv 2 ev -3 n 100 n/ms 1 tm 5 pv A1", || 50);
    let r = l.finish().unwrap();
    assert_eq!(r.multipv.len(), 2);
    assert_eq!(
        r.multipv[1],
        PvMove {
            pos: p(0, 0),
            eval: Some(Eval::Score(-3))
        }
    );
}

#[test]
fn garbage_is_counted_never_kept() {
    let mut l = listening();
    let garbage = "
        INFO PV x
        INFO PV DONE
        INFO PV 0
        INFO EVAL banana
        INFO DEPTH -3
        INFO EVAL 99999999999
        INFO BESTLINE 7,7 99,99
        INFO PV DONE
        MESSAGE depth x-y ev ?? pv ZZ99
        MESSAGE depth 3 ev 5 pv Z99";
    hear(&mut l, garbage, 10);
    let r = l.finish().expect("the block itself completed");
    assert_eq!(r.eval, None);
    assert_eq!(r.depth, None);
    assert!(r.pv.is_empty());
    assert_eq!(l.take_ignored(), 8);
}

#[test]
fn a_pv_is_capped_and_an_old_report_is_out_of_its_window() {
    let mut l = listening();
    let long: Vec<String> = (0..10_000)
        .map(|i| format!("{},{}", i % 15, (i / 15) % 15))
        .collect();
    hear(
        &mut l,
        &format!("INFO PV 0\nINFO BESTLINE {}\nINFO PV DONE", long.join(" ")),
        5,
    );
    assert_eq!(l.finish().unwrap().pv.len(), PV_CAP);

    // Printed after the last move (the whole think time), read as the next request starts.
    l.begin();
    hear(
        &mut l,
        "INFO PV 0\nINFO TOTALTIME 5000\nINFO EVAL 3\nINFO PV DONE",
        2,
    );
    assert!(l.finish().is_none());
    assert_eq!(l.take_ignored(), 1);
}

#[test]
fn other_info_keys_and_messages_pass_untouched() {
    let mut l = listening();
    hear(
        &mut l,
        "INFO REALTIME BEST 7,7\nMESSAGE REALTIME REFRESH\nMESSAGE hello",
        1,
    );
    assert!(l.finish().is_none());
    assert_eq!(l.take_ignored(), 0);
}

/// Rapfi 3aedf3a at `message_mode = "normal"` with `show_detail 2`: each depth's detail
/// block, then the depth line, then at the end the speed line.
const RAPFI_NORMAL: &str = "
    MESSAGE OptiTime 95ms | MaxTime 190ms
    INFO PV 0
    INFO NUMPV 1
    INFO DEPTH 14
    INFO SELDEPTH 31
    INFO NODES 20000
    INFO TOTALNODES 66210
    INFO TOTALTIME 79
    INFO SPEED 838101
    INFO EVAL -131
    INFO WINRATE 0.31
    INFO BESTLINE 7,5 7,6
    INFO PV DONE
    MESSAGE Depth 14-31 | Eval -131 | Time 79ms | H6 H7
    MESSAGE Speed 838K | Depth 14-31 | Eval -131 | Node 66K | Time 80ms";

#[test]
fn a_depth_line_never_replaces_the_complete_block_before_it() {
    let mut l = listening();
    hear(&mut l, RAPFI_NORMAL, 100);
    let r = l.finish().unwrap();
    assert_eq!(r.eval, Some(Eval::Score(-131)));
    assert_eq!((r.depth, r.seldepth), (Some(14), Some(31)));
    assert_eq!(r.nodes, Some(66_210), "the block's exact count");
    assert_eq!(r.time_ms, Some(79));
    assert_eq!(r.pv, vec![p(7, 5), p(7, 6)]);
    assert_eq!(l.take_ignored(), 0);
}

#[test]
fn rapfis_normal_and_brief_lines_alone_are_reports() {
    // `detail=off`, normal mode: the depth lines, then the end line fills in the nodes.
    let mut l = listening();
    let mut said = Vec::new();
    for text in [
        "OptiTime 95ms | MaxTime 190ms",
        "Depth 13-25 | Eval -90 | Time 40ms | H8 I9 J10",
        "Depth 14-31 | Eval +M5 | Time 12s | H6 H7",
        "Speed 838K | Depth 14-31 | Eval +M5 | Node 253K | Time 12s",
    ] {
        said.push(l.message(text, || 20_000));
    }
    assert_eq!(said, [false, true, true, true], "OptiTime is words");
    let r = l.finish().unwrap();
    let win5 = Eval::Mate {
        outlook: Outlook::Win,
        plies: Some(5),
    };
    assert_eq!(r.eval, Some(win5));
    assert_eq!((r.depth, r.seldepth), (Some(14), Some(31)));
    assert_eq!((r.nodes, r.time_ms), (Some(253_000), Some(12_000)));
    assert_eq!(r.pv, vec![p(7, 5), p(7, 6)]);

    // Brief mode says only this, at the end.
    l.begin();
    l.message(
        "Speed 2456K | Depth 9-17 | Eval 35 | Node 1234K | Time 502ms",
        || 600,
    );
    l.message("Bestline H8 I9 J10", || 600);
    let r = l.finish().unwrap();
    assert_eq!((r.eval, r.depth), (Some(Eval::Score(35)), Some(9)));
    assert_eq!((r.nodes, r.time_ms), (Some(1_234_000), Some(502)));
    assert_eq!(r.pv, vec![p(7, 7), p(8, 8), p(9, 9)]);
    assert_eq!(l.take_ignored(), 0);
}

#[test]
fn normal_mode_pv_lines_make_a_group() {
    let mut l = listening();
    for text in [
        "(1) 40 | 9-15 | H8 I9",
        "(2) 12 | 9-13 | I8",
        "(3) -M3 | 9-9 | A1 B2",
        "Depth 9-15 | Eval 40 | Time 30ms | H8 I9",
        // The next depth, cut after its first PV: the whole one before is kept.
        "(1) 44 | 10-18 | H8 I9",
    ] {
        assert!(l.message(text, || 50), "{text}");
    }
    let r = l.finish().unwrap();
    assert_eq!(
        (r.eval, r.depth, r.time_ms),
        (Some(Eval::Score(40)), Some(9), Some(30))
    );
    let firsts: Vec<_> = r.multipv.iter().map(|m| m.pos).collect();
    assert_eq!(firsts, [p(7, 7), p(8, 7), p(0, 0)]);
    assert!(r.multipv[2].eval.unwrap().is_proven_loss());
}

#[test]
fn a_ucilike_search_cut_in_an_iteration_keeps_the_whole_one_before() {
    // show_detail 2 and ucilike: each PV as a block and as a line.
    let mut l = listening();
    for (depth, pvs) in [(9, 3), (10, 1)] {
        for k in 0..pvs {
            let (x, ev) = (k + 3, 40 - 10 * k);
            hear(
                &mut l,
                &format!(
                    "INFO PV {k}\nINFO NUMPV 3\nINFO DEPTH {depth}\nINFO SELDEPTH 20\n\
                     INFO TOTALNODES 5000\nINFO TOTALTIME 30\nINFO EVAL {ev}\n\
                     INFO BESTLINE {x},7 8,8\nINFO PV DONE\n\
                     MESSAGE depth {depth}-20 multipv {} ev {ev} n 5K n/ms 166 tm 30 pv {}8 I9",
                    k + 1,
                    (b'A' + x) as char
                ),
                50,
            );
        }
    }
    let r = l.finish().unwrap();
    assert_eq!(r.depth, Some(9));
    assert_eq!(r.nodes, Some(5000));
    let firsts: Vec<_> = r.multipv.iter().map(|m| (m.pos, m.eval)).collect();
    let score = |v| Some(Eval::Score(v));
    assert_eq!(
        firsts,
        [
            (p(3, 7), score(40)),
            (p(4, 7), score(30)),
            (p(5, 7), score(20))
        ]
    );
    assert_eq!(l.take_ignored(), 0);
}

#[test]
fn other_engines_one_line_reports() {
    // Embryo: lower-case counts, colour-prefixed moves with spaces.
    let mut l = listening();
    assert!(l.message("depth 5-9 ev 84 n 253k n/ms 838 tm 1 pv Xh8 Oi9", || 5));
    let r = l.finish().unwrap();
    assert_eq!((r.depth, r.seldepth), (Some(5), Some(9)));
    assert_eq!((r.eval, r.nodes), (Some(Eval::Score(84)), Some(253_000)));
    assert_eq!(r.pv, vec![p(7, 7), p(8, 8)]);

    // Moves spaced, without colours: all of them.
    l.begin();
    l.message("depth 5-9 ev 84 pv h8 i9 j10", || 5);
    assert_eq!(l.finish().unwrap().pv, vec![p(7, 7), p(8, 8), p(9, 9)]);

    // PentaZen: `dep`, `nd`, `sp`, no PV.
    l.begin();
    assert!(l.message("dep 1-1 ev 0 nd 1 tm 1 sp 1", || 5));
    assert!(l.message("dep 2-3 ev -7 nd 12 tm 2 sp 6", || 5));
    let r = l.finish().unwrap();
    assert_eq!((r.depth, r.seldepth), (Some(2), Some(3)));
    assert_eq!(
        (r.eval, r.nodes, r.time_ms),
        (Some(Eval::Score(-7)), Some(12), Some(2))
    );

    // Rapfi's move without a search.
    l.begin();
    l.message("depth 1-0 ev +M1 n 0 n/ms 0 tm 0 pv (NONE)", || 5);
    let r = l.finish().unwrap();
    assert!(r.pv.is_empty());
    assert_eq!(l.take_ignored(), 0);
}

#[test]
fn rapfis_mcts_lines() {
    let mut l = listening();
    for text in [
        "(1) 35 (W 54.30, D 1.20, S 0.50) | V 12K | SD 20 | H8 I9",
        "(2) -8 (W 48.10, D 1.00, S 0.70) | V 3K | SD 14 | I9 H8",
        "Speed 838K | Visit 66K | Time 80ms",
    ] {
        assert!(l.message(text, || 100), "{text}");
    }
    let r = l.finish().unwrap();
    assert_eq!((r.eval, r.seldepth), (Some(Eval::Score(35)), Some(20)));
    assert_eq!((r.nodes, r.time_ms), (Some(66_000), Some(80)));
    assert_eq!(r.multipv.len(), 2);

    l.begin();
    l.message(
        "multipv 1 ev 35 w 54.30 d 1.20 stdev 0.50 v 12K seldepth 20 n 66K n/ms 838 tm 79 \
         prior 0.31 pv H8 I9",
        || 100,
    );
    let r = l.finish().unwrap();
    assert_eq!(
        (r.eval, r.seldepth, r.nodes),
        (Some(Eval::Score(35)), Some(20), Some(66_000))
    );
    assert_eq!(r.pv, vec![p(7, 7), p(8, 8)]);
    assert_eq!(l.take_ignored(), 0);
}

#[test]
fn gomocup_2021_engines_lines() {
    // Rapfi 0.29: keys with colons, the PV as protocol points.
    let mut l = listening();
    assert!(l.message(
        "Speed: 345 | Depth: 9-17 | Eval: 114 | Node: 86K | Time: 251 ms",
        || 300
    ));
    assert!(l.message("Bestline: [9,7][7,9][8,6]", || 300));
    let r = l.finish().unwrap();
    assert_eq!(
        (r.eval, r.depth, r.seldepth),
        (Some(Eval::Score(114)), Some(9), Some(17))
    );
    assert_eq!((r.nodes, r.time_ms), (Some(86_000), Some(251)));
    assert_eq!(r.pv, vec![p(9, 7), p(7, 9), p(8, 6)]);

    // PentaZen's proven win.
    l.begin();
    l.message("dep 7-14 ev +v17 nd 2372 tm 4 sp 593", || 5);
    let r = l.finish().unwrap();
    let win = |n| Eval::Mate {
        outlook: Outlook::Win,
        plies: Some(n),
    };
    assert_eq!(r.eval, Some(win(17)));

    // SlowRenju's summary; its candidate table stays words.
    l.begin();
    assert!(!l.message(" 5;(05,06)      13 ----------      368", || 400));
    assert!(l.message(
        "Nodes=39900, Time=381ms, speed=104724, depth=5-9, Evaluation=13",
        || 400
    ));
    let r = l.finish().unwrap();
    assert_eq!(
        (r.eval, r.depth, r.seldepth),
        (Some(Eval::Score(13)), Some(5), Some(9))
    );
    assert_eq!((r.nodes, r.time_ms), (Some(39_900), Some(381)));

    // EGO's depth lines; its summary and the rest are words.
    l.begin();
    for text in [
        "level 4, value 0, (6 ,8), speed 557 k, node 7805 , max extend 4, extend node 5815 , \
         cache hit: 55/171 ,inner combo rate 42/160 ,cost 14 ms",
        "level 6, value -20, (6 ,8), speed 276 k, node 12698 , max extend 6, extend node 259 , \
         cache hit: 65/903 ,inner combo rate 4/11 ,cost 46 ms",
    ] {
        assert!(l.message(text, || 100), "{text}");
    }
    assert!(!l.message(":level 6(3) value -20 (6,8) speed 276 k (12698) ", || 100));
    assert!(!l.message("combo level. self 0 , other 7 ", || 100));
    let r = l.finish().unwrap();
    assert_eq!((r.eval, r.depth), (Some(Eval::Score(-20)), Some(6)));
    assert_eq!((r.nodes, r.time_ms), (Some(12_698), Some(46)));
    assert_eq!(l.take_ignored(), 0);
}

#[test]
fn a_shallower_or_less_complete_report_never_replaces_the_kept_one() {
    let mut l = listening();
    l.message("depth 9-15 ev 40 n 5K tm 30 pv H8", || 50);
    // Deeper, but without its PV.
    l.message("depth 10-16 ev 44 n 6K tm 40", || 50);
    // As complete, but shallower.
    l.message("depth 8-15 ev 10 n 7K tm 45 pv A1", || 50);
    let r = l.finish().unwrap();
    assert_eq!((r.depth, r.eval), (Some(9), Some(Eval::Score(40))));

    // Another report of the same depth, as complete: the later one.
    l.begin();
    l.message("depth 9-15 ev 40 n 5K tm 30 pv H8", || 50);
    l.message("depth 9-16 ev 52 n 6K tm 35 pv I9", || 50);
    let r = l.finish().unwrap();
    assert_eq!(
        (r.eval, r.pv.clone()),
        (Some(Eval::Score(52)), vec![p(8, 8)])
    );
}

#[test]
fn pondering_lines_are_search_output_for_no_move() {
    let mut l = listening();
    assert!(l.message("[Pondering] Depth 9-15 | Eval 40 | Time 30ms | H8", || 50));
    assert!(l.finish().is_none());
    assert_eq!(l.take_ignored(), 0);
}

#[test]
fn malformed_one_line_shapes_are_counted() {
    let mut l = listening();
    for text in [
        "Depth 9-x | Eval 40 | Time 30ms | H8",
        "Depth 9-15 | Eval 40 | Time 30 parsecs | H8",
        "Depth 9-15 | Eval 40 | Time 30ms | H8 Z99",
        "depth 5-9 ev 84 pv Xh8 Oz9",
        "(0) 40 | 9-15 | H8",
        "Bestline H8 banana",
    ] {
        assert!(l.message(text, || 50), "{text}");
    }
    assert!(l.finish().is_none());
    assert_eq!(l.take_ignored(), 6);
}

/// Real engines' lines (tests/search_reports.txt): every section's report is the one its
/// `expect` line gives, no line is dropped, and only the lines that are no report stay
/// messages.
#[test]
fn real_engines_lines_are_heard() {
    let corpus = include_str!("../../../tests/search_reports.txt");
    let points = |text: &str| -> Vec<Pos> {
        text.split('/')
            .map(|t| Pos::parse_gomocup(t, BoardSize::new(15).unwrap()).unwrap())
            .collect()
    };
    let mut sections = 0;
    for section in corpus.split("\n== ").skip(1) {
        sections += 1;
        let mut lines = section.lines();
        let title = lines.next().unwrap();
        let expect = lines.next().unwrap().strip_prefix("expect ").unwrap();
        let mut want = SearchReport::default();
        let mut firsts = Vec::new();
        let mut words = 0;
        for item in expect.split(' ') {
            let (key, value) = item.split_once('=').unwrap();
            match key {
                "ev" => want.eval = Some(value.parse().unwrap()),
                "d" => want.depth = Some(value.parse().unwrap()),
                "sd" => want.seldepth = Some(value.parse().unwrap()),
                "n" => want.nodes = Some(value.parse().unwrap()),
                "ms" => want.time_ms = Some(value.parse().unwrap()),
                "pv" => want.pv = points(value),
                "firsts" => firsts = points(value),
                "words" => words = value.parse().unwrap(),
                _ => panic!("{title}: unknown key {key}"),
            }
        }
        let mut l = listening();
        let mut messages = 0;
        for line in lines {
            // A late report would be refused: this test is about shapes, not times.
            if let Some(rest) = line.strip_prefix("INFO ") {
                l.info(rest, || 3_600_000);
            } else if let Some(text) = line.strip_prefix("MESSAGE ") {
                messages += usize::from(!l.message(text, || 3_600_000));
            }
        }
        let got = l.finish().unwrap_or_else(|| panic!("{title}: no report"));
        let got_firsts: Vec<Pos> = got.multipv.iter().map(|m| m.pos).collect();
        want.multipv = got.multipv.clone();
        assert_eq!(*got, want, "{title}");
        assert_eq!(got_firsts, firsts, "{title}");
        assert_eq!(messages, words, "{title}: lines left as messages");
        assert_eq!(l.take_ignored(), 0, "{title}: lines dropped");
    }
    assert!(sections >= 20, "{sections} sections read");
}

#[test]
fn times_as_rapfi_writes_them() {
    assert_eq!(time_of("79"), Some(79));
    assert_eq!(time_of("79ms"), Some(79));
    assert_eq!(time_of("12s"), Some(12_000));
    assert_eq!(time_of("3min"), Some(180_000));
    assert_eq!(time_of("2h"), Some(7_200_000));
    assert_eq!(time_of("ms"), None);
    assert_eq!(time_of("251 ms"), Some(251));
    assert_eq!(time_of("5  s"), None);
}

#[test]
fn node_counts_with_suffixes() {
    assert_eq!(count_of("9999"), Some(9999));
    assert_eq!(count_of("12K"), Some(12_000));
    assert_eq!(count_of("3M"), Some(3_000_000));
    assert_eq!(count_of("K"), None);
    assert_eq!(count_of("99999999999T"), None);
}
