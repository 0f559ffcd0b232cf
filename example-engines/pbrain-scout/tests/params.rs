//! pbrain-scout's tunable weights over the protocol: `INFO <name> <value>` and `--param
//! name=value` change its evaluation (the same way), unknown keys change nothing, and
//! `--tune-table` prints a table that gomoku-cli reads as a Rapfi parameter file.

use std::path::Path;
use std::time::Duration;

use gomoku_cli::tune::params::{ParamKind, Params, ParamsFormat};
use pbrain_kit::harness::EngineProcess;
use pbrain_kit::parse_xy;

const BIN: &str = env!("CARGO_BIN_EXE_pbrain-scout");
/// Generous upper bound: moves take milliseconds at the depth used here.
const T: Duration = Duration::from_secs(20);

/// A middle game, as BOARD lines.
const STONES: [&str; 6] = ["7,7,1", "8,8,2", "8,7,1", "6,6,2", "9,9,1", "6,8,2"];

/// Each depth's `ev` and `pv` from the one-line reports of one search of the position, after
/// `infos`.
fn search(args: &[&str], infos: &[&str]) -> Vec<(String, String)> {
    let mut all = vec!["--messages", "--depth", "3"];
    all.extend_from_slice(args);
    let mut e = EngineProcess::spawn(BIN, &all).unwrap();
    e.send("START 15").unwrap();
    assert_eq!(e.recv_answer(T).as_deref(), Some("OK"));
    e.send("INFO show_detail 2").unwrap();
    for i in infos {
        e.send(i).unwrap();
    }
    e.send("BOARD").unwrap();
    for l in STONES {
        e.send(l).unwrap();
    }
    e.send("DONE").unwrap();
    let mut reports = Vec::new();
    loop {
        let line = e.recv_raw(T).expect("a line before the timeout");
        if parse_xy(&line).is_some() {
            break;
        }
        // MESSAGE depth D-SD ev V n N n/ms S tm T pv MOVES: keep what does not depend on time.
        let w: Vec<&str> = line.split(' ').collect();
        assert_eq!((w.len(), w[3], w[11]), (13, "ev", "pv"), "{line}");
        reports.push((w[4].to_string(), w[12].to_string()));
    }
    assert!(e.finish());
    assert_eq!(reports.len(), 3);
    reports
}

#[test]
fn info_and_param_change_the_evaluation_alike() {
    let default = search(&[], &[]);
    // Keys the scout does not know, and a weight set to its own default, change nothing.
    assert_eq!(
        search(&[], &["INFO hash_size 5", "INFO eval_open_two 12"]),
        default
    );
    let by_info = search(&[], &["INFO eval_open_two 90", "INFO EVAL_THREE 0.4"]);
    assert_ne!(by_info, default);
    let by_param = search(
        &["--param", "eval_open_two=90", "--param=eval_three=0"],
        &[],
    );
    assert_eq!(by_param, by_info);
    // Out of range is clamped to the maximum, as Rapfi does.
    assert_eq!(
        search(&[], &["INFO eval_open_two 100"]),
        search(&[], &["INFO eval_open_two 5000"])
    );
}

#[test]
fn tune_table_is_a_rapfi_parameter_file() {
    let mut e = EngineProcess::spawn(BIN, &["--tune-table", "--param", "eval_four=75"]).unwrap();
    let lines: Vec<String> = (0..4)
        .map(|_| e.recv_raw(T).expect("a table line"))
        .collect();
    // The engine then plays as usual.
    e.send("START 15").unwrap();
    assert_eq!(e.recv_answer(T).as_deref(), Some("OK"));
    assert!(e.finish());
    let params = Params::parse(&lines.join("\n"), Path::new("scout-table")).unwrap();
    assert_eq!(params.format, ParamsFormat::Rapfi);
    let names: Vec<&str> = params.list.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "eval_open_two",
            "eval_three",
            "eval_open_three",
            "eval_four"
        ]
    );
    assert!(params.list.iter().all(|p| p.kind == ParamKind::Int));
    assert_eq!(params.start(), [12.0, 14.0, 50.0, 75.0]);
}

#[test]
fn unknown_or_malformed_param_is_refused() {
    for bad in [
        &["--param", "eval_five=3"][..],
        &["--param", "eval_four"],
        &["--param=eval_four=x"],
    ] {
        let mut e = EngineProcess::spawn(BIN, bad).unwrap();
        let status = e.wait_exit(T).expect("exits at once");
        assert_eq!(status.code(), Some(2), "{bad:?}");
    }
}
