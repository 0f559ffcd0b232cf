//! Snapshot tests of the text reports (results block, standings, crosstable) and of the SPRT
//! calculator's text and JSON, on fixed inputs.

use gomoku_cli::stats::{
    crosstable, results_block, sprt_calculator, standings_table, Counts, MatchSummary, PairTally,
    Pentanomial, Score, Sprt, SprtModel, TournamentTally, Wld,
};

fn pairs(ll: u64, ld: u64, wl: u64, dd: u64, wd: u64, ww: u64) -> PairTally {
    PairTally {
        ll,
        ld,
        wl,
        dd,
        wd,
        ww,
    }
}

/// Games implied by a pair tally, first engine's view.
fn games_of(p: &PairTally) -> Wld {
    Wld::new(
        p.wl + p.wd + 2 * p.ww,
        2 * p.ll + p.ld + p.wl,
        p.ld + 2 * p.dd + p.wd,
    )
}

#[test]
fn results_block_paired_with_sprt() {
    let p = pairs(69, 755, 700, 790, 768, 244);
    let m = MatchSummary {
        first: "engine-new",
        second: "engine-base",
        context: "10+0.1, 1t, 16MB, openings.txt",
        wld: games_of(&p),
        pairs: Some(p),
        sprt: Some(Sprt::new(0.0, 5.0, 0.05, 0.05, SprtModel::Normalized).unwrap()),
        crossing: None,
    };
    insta::assert_snapshot!(results_block(&m));
}

#[test]
fn results_block_negative_llr_shows_negative_progress() {
    let p = pairs(300, 900, 800, 900, 700, 200);
    let m = MatchSummary {
        first: "A",
        second: "B",
        context: "",
        wld: games_of(&p),
        pairs: Some(p),
        sprt: Some(Sprt::new(0.0, 5.0, 0.05, 0.1, SprtModel::Logistic).unwrap()),
        crossing: None,
    };
    let out = results_block(&m);
    assert!(out.contains("LLR: -") && out.contains("(-"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn results_block_unpaired_without_sprt() {
    let m = MatchSummary {
        first: "alpha",
        second: "beta",
        context: "free, 15x15",
        wld: Wld::new(400, 300, 300),
        pairs: None,
        sprt: None,
        crossing: None,
    };
    insta::assert_snapshot!(results_block(&m));
}

#[test]
fn results_block_degenerate_prints_inf_and_nan() {
    let m = MatchSummary {
        first: "strong",
        second: "weak",
        context: "",
        wld: Wld::new(10, 0, 0),
        pairs: Some(pairs(0, 0, 0, 0, 0, 5)),
        sprt: Some(Sprt::new(0.0, 10.0, 0.05, 0.05, SprtModel::Gsprt).unwrap()),
        crossing: None,
    };
    insta::assert_snapshot!(results_block(&m));
}

#[test]
fn results_block_reports_the_crossing_and_the_games_in_flight_separately() {
    use gomoku_cli::stats::{SprtCrossing, Verdict};
    let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
    let crossing = SprtCrossing {
        verdict: Verdict::H1,
        llr: 2.98,
        games: 147,
        game: 151,
    };
    let m = MatchSummary {
        first: "A",
        second: "B",
        context: "",
        wld: Wld::new(60, 40, 50),
        pairs: None,
        sprt: Some(sprt),
        crossing: Some(crossing),
    };
    let out = results_block(&m);
    let all = sprt.llr_trinomial(&Wld::new(60, 40, 50));
    assert!(out.contains("LLR: 2.98 ("), "{out}");
    assert!(
        out.contains(&format!(
            "SPRT: H1 accepted after 147 games (at game 151, LLR 2.98); with the 3 games counted after it: LLR {all:.2}"
        )),
        "{out}"
    );
}

fn three_engine_tournament(paired: bool, extra: &[&str]) -> TournamentTally {
    use Score::*;
    let mut names: Vec<String> = vec!["embryo".into(), "pbrain-scout".into(), "rapfi".into()];
    names.extend(extra.iter().map(|s| s.to_string()));
    let mut t = TournamentTally::new(names);
    let script: [(usize, usize, [Score; 2], u32); 6] = [
        (2, 0, [Win, Win], 5),
        (2, 0, [Win, Draw], 2),
        (2, 1, [Win, Loss], 4),
        (2, 1, [Draw, Draw], 2),
        (1, 0, [Win, Loss], 3),
        (1, 0, [Loss, Draw], 1),
    ];
    for (a, b, [g1, g2], times) in script {
        for _ in 0..times {
            if paired {
                t.record_pair(a, b, g1, g2).unwrap();
            } else {
                t.record_game(a, b, g1).unwrap();
                t.record_game(a, b, g2).unwrap();
            }
        }
    }
    t
}

#[test]
fn standings_paired() {
    insta::assert_snapshot!(standings_table(&three_engine_tournament(true, &[])));
}

#[test]
fn standings_unpaired() {
    let out = standings_table(&three_engine_tournament(false, &[]));
    assert!(!out.contains("Ptnml"));
    insta::assert_snapshot!(out);
}

#[test]
fn crosstable_three_engines() {
    // A fourth engine that has not played yet: its row shows no games.
    let t = three_engine_tournament(true, &["newcomer"]);
    insta::assert_snapshot!(crosstable(&t));
}

#[test]
fn calculator_text_and_json() {
    let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
    let counts = Counts::from_args(None, Some("1200,9000,20000,9100,1300")).unwrap();
    let c = sprt_calculator(counts, &sprt);
    insta::assert_snapshot!(c.to_text());
    insta::assert_json_snapshot!(c);
    let w = sprt_calculator(
        Counts::from_args(Some("716,591,2163"), None).unwrap(),
        &Sprt::new(-1.75, 0.25, 0.05, 0.05, SprtModel::Logistic).unwrap(),
    );
    insta::assert_snapshot!("calculator_wld_text", w.to_text());
}

#[test]
fn pentanomial_from_pair_tally_matches_manual_counts() {
    let p = pairs(1, 2, 3, 4, 5, 6);
    assert_eq!(p.pentanomial(), Pentanomial([1, 2, 7, 5, 6]));
}
