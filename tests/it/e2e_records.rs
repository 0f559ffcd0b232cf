//! Round trips of game records: games played by the example engines → journal, SGF, PGN and
//! message files → parsed back by independent parsers (sgf-parse from crates.io, python-chess
//! from PyPI) → the same moves, players and results.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::*;
use gomoku_cli::core::board::{parse_pos_sequence, BoardSize, Pos};

fn journal(dir: &Path, name: &str) -> Vec<serde_json::Value> {
    journal_games(&dir.join(name))
}

/// Play a small renju match with every record enabled; return the directory and the journal.
fn play(rule: &str, openings: &str, size: &str) -> (tempfile::TempDir, Vec<serde_json::Value>) {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engine("pbrain-scout --depth 2", &["name=scout"])
        .engine(
            "pbrain-faulty --message-every-move --crash-at 30",
            &["name=faulty [x]"],
        )
        .each(&["tc=0/5"])
        .games(6)
        .repeat()
        .concurrency(2)
        .rule(rule)
        .boardsize(size)
        .openings_file(repo_root().join(openings), &["type=pos"])
        .journal("games.jsonl")
        .sgf("games.sgf")
        .pgn("games.pgn")
        .msg("games.txt")
        .run_in(dir.path());
    run.assert_success();
    let games = journal(dir.path(), "games.jsonl");
    assert_eq!(games.len(), 6);
    (dir, games)
}

fn prop_value(
    node: &sgf_parse::SgfNode<sgf_parse::unknown_game::Prop>,
    id: &str,
) -> Option<String> {
    node.get_property(id).map(|p| {
        let s = p.to_string();
        s[id.len() + 1..s.len() - 1].to_string()
    })
}

#[test]
fn sgf_parses_with_a_real_parser_and_matches_the_journal() {
    let (dir, games) = play("4", "openings/renju15.txt", "15");
    let text = std::fs::read_to_string(dir.path().join("games.sgf")).unwrap();
    let trees = sgf_parse::parse(&text).expect("the SGF file parses");
    assert_eq!(trees.len(), games.len());
    let size = BoardSize::new(15).unwrap();
    for (tree, g) in trees.iter().zip(&games) {
        let sgf_parse::GameTree::Unknown(root) = tree else {
            panic!("GM[4] is not Go");
        };
        assert_eq!(prop_value(root, "GM").as_deref(), Some("4"));
        // The parser normalises SZ[15] to its square form.
        assert!(matches!(
            prop_value(root, "SZ").as_deref(),
            Some("15") | Some("15:15")
        ));
        use sgf_parse::unknown_game::Prop;
        let (Some(Prop::PB(pb)), Some(Prop::PW(pw))) =
            (root.get_property("PB"), root.get_property("PW"))
        else {
            panic!("no player names");
        };
        // Names come back unescaped ("faulty [x]" needs an escaped bracket in SGF).
        assert_eq!(Some(pb.text.as_str()), g["black"].as_str());
        assert_eq!(Some(pw.text.as_str()), g["white"].as_str());
        let re = prop_value(root, "RE").unwrap();
        let expect_re = match (
            g["result"].as_str().unwrap(),
            g["termination"].as_str().unwrap(),
        ) {
            ("1/2-1/2", _) => "0".to_string(),
            (r, t) => {
                let w = if r == "1-0" { "B" } else { "W" };
                let suffix = match t {
                    "five" => "",
                    "time_forfeit" => "T",
                    _ => "F",
                };
                format!("{w}+{suffix}")
            }
        };
        assert_eq!(re, expect_re);
        // Stones in played order, colours alternating from black.
        let mut stones: Vec<Pos> = Vec::new();
        for (i, node) in root.main_variation().skip(1).enumerate() {
            let (id, other) = if i % 2 == 0 { ("B", "W") } else { ("W", "B") };
            assert!(node.get_property(other).is_none());
            let v = prop_value(node, id).expect("a move node");
            stones.push(Pos::parse_sgf(&v, size).unwrap());
        }
        let mut expect = parse_pos_sequence(g["opening"].as_str().unwrap(), size).unwrap();
        expect.extend(parse_pos_sequence(g["moves"].as_str().unwrap(), size).unwrap());
        assert_eq!(stones, expect, "game {}", g["game"]);
    }
}

#[test]
fn pgn_parses_with_python_chess_with_players_and_results() {
    let (dir, games) = play("0", "openings/freestyle15.txt", "15");
    let script = r#"
import json, sys, chess.pgn
out = []
with open(sys.argv[1]) as f:
    while True:
        g = chess.pgn.read_game(f)
        if g is None:
            break
        if g.errors:
            raise SystemExit(f"parse errors: {g.errors}")
        h = g.headers
        out.append({"white": h["White"], "black": h["Black"], "result": h["Result"],
                    "date": h["Date"], "round": h["Round"], "plies": h["PlyCount"],
                    "termination": h["Termination"], "comment": g.comment})
print(json.dumps(out))
"#;
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(dir.path().join("games.pgn"))
        .output()
        .expect("python3 runs");
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("No module named 'chess'") && std::env::var("CI").as_deref() != Ok("true") {
            eprintln!("skipping: python-chess is not installed (pip install -r tests/python-requirements.txt)");
            return;
        }
        panic!("python-chess failed: {err}");
    }
    let parsed: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(parsed.len(), games.len());
    for (p, g) in parsed.iter().zip(&games) {
        // The first mover (gomoku black) is PGN's White.
        assert_eq!(p["white"], g["black"]);
        assert_eq!(p["black"], g["white"]);
        assert_eq!(p["result"], g["result"]);
        assert_eq!(p["round"], g["round"].to_string());
        let plies = g["times_ms"].as_array().unwrap().len()
            + parse_pos_sequence(g["opening"].as_str().unwrap(), BoardSize::new(15).unwrap())
                .unwrap()
                .len();
        assert_eq!(p["plies"], plies.to_string());
        assert!(
            p["date"].as_str().unwrap().len() == 10 && p["date"].as_str().unwrap().contains('.')
        );
        // The move comments (scout reports its search, faulty does not), read back by
        // python-chess as one text with the reason after them.
        assert_eq!(p["comment"], expected_pgn_comment(g), "game {}", g["game"]);
    }
}

/// What python-chess reads as a game's comment: each played move's `{eval/depth time}` (the time
/// alone without an evaluation) when some move has a report, then the reason; written here from
/// the journal, independently of the renderer.
fn expected_pgn_comment(g: &serde_json::Value) -> String {
    let reason = g["reason"].as_str().unwrap().replace(['{', '}'], "");
    let Some(search) = g["search"].as_array() else {
        return reason;
    };
    let times = g["times_ms"].as_array().unwrap();
    let mut parts: Vec<String> = times
        .iter()
        .zip(search)
        .map(|(t, s)| {
            let ms = t.as_u64().unwrap();
            let digits = match ms {
                0 => 0,
                1..=99 => 3,
                100..=999 => 2,
                1000..=9999 => 1,
                _ => 0,
            };
            let time = format!("{:.digits$}s", ms as f64 / 1000.0);
            match (s["ev"].as_str(), s["d"].as_u64()) {
                (Some(ev), Some(d)) => format!("{ev}/{d} {time}"),
                (Some(ev), None) => format!("{ev} {time}"),
                (None, _) => time,
            }
        })
        .collect();
    parts.push(reason);
    parts.join(" ")
}

/// Scout (reporting its search on every move but its first) against pbrain-faulty
/// `--search-good` (a report before each move): the journal keeps every report, the SGF, PGN
/// and messages quote them, `export` rebuilds all three byte for byte, and `-records evals=off`
/// leaves them out of the run's records and of the export alike.
#[test]
fn search_reports_reach_the_records_and_export_rebuilds_them() {
    let dir = tempfile::tempdir().unwrap();
    let play = |tag: &str, extra: &[&str]| {
        Match::new()
            .engine("pbrain-scout --depth 2", &["name=scout"])
            .engine("pbrain-faulty --search-good", &["name=faulty"])
            .each(&["tc=0/5"])
            .games(4)
            .repeat()
            .concurrency(2)
            .openings_file(repo_root().join("openings/freestyle15.txt"), &["type=pos"])
            .journal(format!("{tag}.jsonl"))
            .sgf(format!("{tag}.sgf"))
            .pgn(format!("{tag}.pgn"))
            .msg(format!("{tag}.txt"))
            .args(extra)
            .run_in(dir.path())
            .assert_success();
        let mut export = vec!["export".to_string(), format!("{tag}.jsonl")];
        for ext in ["sgf", "pgn", "txt"] {
            let flag = if ext == "txt" { "msg" } else { ext };
            export.extend([format!("-{flag}"), format!("{tag}-export.{ext}")]);
        }
        export.extend(extra.iter().map(|s| s.to_string()));
        common::run_in(dir.path(), &common::strs(&export)).assert_success();
        for ext in ["sgf", "pgn", "txt"] {
            let read = |name: String| std::fs::read(dir.path().join(name)).unwrap();
            assert!(
                read(format!("{tag}.{ext}")) == read(format!("{tag}-export.{ext}")),
                "{tag}.{ext}: export differs from the run's file"
            );
        }
        let read = |ext: &str| std::fs::read_to_string(dir.path().join(format!("{tag}.{ext}")));
        (
            read("sgf").unwrap(),
            read("pgn").unwrap(),
            read("txt").unwrap(),
        )
    };
    let (sgf, pgn, msg) = play("on", &[]);
    let games = journal(dir.path(), "on.jsonl");
    assert_eq!(games.len(), 4);
    let size = BoardSize::new(15).unwrap();
    let trees = sgf_parse::parse(&sgf).expect("the SGF file parses");
    for (tree, g) in trees.iter().zip(&games) {
        let search = g["search"].as_array().expect("reports in the journal");
        let times = g["times_ms"].as_array().unwrap();
        assert_eq!(search.len(), times.len());
        // faulty reports before every move, scout before all but its first.
        let reported = search.iter().filter(|s| !s.is_null()).count();
        assert!(
            reported + 1 >= search.len(),
            "{reported} of {}",
            search.len()
        );
        let sgf_parse::GameTree::Unknown(root) = tree else {
            panic!("GM[4] is not Go");
        };
        let opening = parse_pos_sequence(g["opening"].as_str().unwrap(), size)
            .unwrap()
            .len();
        let nodes: Vec<_> = root.main_variation().skip(1 + opening).collect();
        for (i, (node, s)) in nodes.iter().zip(search).enumerate() {
            let comment = prop_value(node, "C").unwrap();
            let mut lines = comment.lines();
            assert_eq!(lines.next(), Some(format!("{}ms", times[i]).as_str()));
            match s["ev"].as_str() {
                Some(ev) => assert!(
                    lines
                        .next()
                        .unwrap()
                        .starts_with(&format!("eval {ev} depth ")),
                    "{comment}"
                ),
                None => assert_eq!(lines.next(), None, "{comment}"),
            }
        }
        let header = format!("Game {} (", g["game"]);
        let block = &msg[msg.find(&header).unwrap()..];
        let block = &block[..block.find("\n\n").unwrap()];
        assert_eq!(block.matches(": ply ").count(), reported, "{block}");
    }
    assert!(pgn.contains("/1 "), "faulty's EVAL 25 at DEPTH 1: {pgn}");
    assert!(msg.contains("faulty: ply ") && msg.contains(": eval +25 depth 1"));
    // Turned off: the records as without reports (the journal keeps them).
    let (sgf, pgn, msg) = play("off", &["-records", "evals=off"]);
    assert!(journal(dir.path(), "off.jsonl")
        .iter()
        .all(|g| g["search"].is_array()));
    assert!(!sgf.contains("eval ") && !msg.contains(": ply "));
    assert!(pgn
        .lines()
        .filter(|l| l.starts_with('{'))
        .all(|l| l.matches('{').count() == 1));
    // A setting that is not one is refused before a game, and by export alike.
    Match::new()
        .engine("pbrain-random", &[])
        .engine("pbrain-random", &[])
        .args(&["-records", "evals=maybe"])
        .run_in(dir.path())
        .assert_exit(1)
        .assert_stderr_has(
            "-records: \"evals=maybe\" is not valid: evals=maybe: expected on or off",
        );
    common::run_in(
        dir.path(),
        &[
            "export",
            "on.jsonl",
            "-pgn",
            "x.pgn",
            "-records",
            "colour=on",
        ],
    )
    .assert_exit(2)
    .assert_stderr_has("-records: unknown key \"colour\" (known: evals)");
}

#[test]
fn messages_are_grouped_per_game_in_order() {
    let (dir, games) = play("0", "openings/freestyle15.txt", "15");
    let text = std::fs::read_to_string(dir.path().join("games.txt")).unwrap();
    for g in &games {
        let header = format!(
            "Game {} ({} vs {})",
            g["game"],
            g["black"].as_str().unwrap(),
            g["white"].as_str().unwrap()
        );
        let start = text
            .find(&header)
            .unwrap_or_else(|| panic!("no block {header}"));
        let block = &text[start..];
        let block = &block[..block.find("\n\n").unwrap_or(block.len())];
        // pbrain-faulty says `MESSAGE move N` before each of its moves.
        let numbers: Vec<u64> = block
            .lines()
            .filter_map(|l| l.split("move ").nth(1))
            .filter_map(|n| n.trim().parse().ok())
            .collect();
        assert!(!numbers.is_empty(), "{block}");
        assert!(
            numbers.windows(2).all(|w| w[0] < w[1]),
            "in order: {numbers:?}"
        );
    }
}

#[test]
fn samples_csv_freq_one_has_every_move_of_every_clean_game() {
    let dir = tempfile::tempdir().unwrap();
    let pair = || {
        Match::new()
            .engine("pbrain-scout --depth 2", &[])
            .engine("pbrain-faulty --crash-at 12", &[])
    };
    pair()
        .games(6)
        .each(&["tc=0/5"])
        .journal("j.jsonl")
        .samples(&["freq=1", "format=csv", "file=out.csv"])
        .run_in(dir.path())
        .assert_success();
    let games = journal(dir.path(), "j.jsonl");
    let expected: usize = games
        .iter()
        .filter(|g| {
            !["crash", "time_forfeit", "illegal_move", "failed_start"]
                .contains(&g["termination"].as_str().unwrap())
        })
        .map(|g| g["times_ms"].as_array().unwrap().len())
        .sum();
    let csv = std::fs::read_to_string(dir.path().join("out.csv")).unwrap_or_default();
    assert_eq!(csv.lines().count(), expected);
    // The predecessor's documented example line runs unchanged.
    pair()
        .games(2)
        .each(&["tc=0/5"])
        .samples(&["freq=0.25", "format=csv", "file=out2.csv"])
        .run_in(dir.path())
        .assert_success();
}

#[test]
fn bin_lz4_samples_stay_valid_after_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engine("pbrain-random", &[])
        .engine("pbrain-random", &[])
        .rule(4)
        .games(100000)
        .concurrency(2)
        .journal("j.jsonl")
        .samples(&["format=bin_lz4", "file=s.bin.lz4"])
        .spawn_in(dir.path());
    wait_until(std::time::Duration::from_secs(60), || {
        journal_games(&dir.path().join("j.jsonl")).len() >= 5
    });
    run.signal(libc::SIGINT);
    run.finish_run().assert_exit(130);
    let file = dir.path().join("s.bin.lz4");
    // The real lz4 tool decodes the whole file (concatenated frames).
    let lz4 = Command::new("lz4").args(["-d", "-c"]).arg(&file).output();
    let bin = match lz4 {
        Ok(out) => {
            assert_ok(&out, "lz4 -d -c");
            out.stdout
        }
        Err(_) if std::env::var("CI").as_deref() != Ok("true") => {
            eprintln!("skipping the lz4 tool check: lz4 is not installed");
            return;
        }
        Err(e) => panic!("lz4 tool: {e}"),
    };
    // Every entry is well formed: 4 + 2·ply bytes, board 15, rule 4, result 0..2.
    let mut off = 0;
    let mut entries = 0;
    while off < bin.len() {
        let w0 = u16::from_le_bytes([bin[off], bin[off + 1]]);
        let w1 = u16::from_le_bytes([bin[off + 2], bin[off + 3]]);
        assert!(w0 & 3 <= 2);
        assert_eq!(w0 >> 11, 15);
        assert_eq!(w1 & 7, 4);
        let ply = ((w0 >> 2) & 0x1ff) as usize;
        off += 4 + 2 * ply;
        entries += 1;
    }
    assert_eq!(off, bin.len());
    assert!(entries > 0);
    // Python's lz4.frame, frame after frame, gives the same bytes.
    let script = r#"
import sys, lz4.frame
data = open(sys.argv[1], "rb").read()
out = b""
while data:
    d = lz4.frame.LZ4FrameDecompressor()
    out += d.decompress(data)
    data = d.unused_data
sys.stdout.buffer.write(out)
"#;
    let py = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&file)
        .output()
        .unwrap();
    if py.status.success() {
        assert_eq!(py.stdout, bin);
    } else if std::env::var("CI").as_deref() == Ok("true") {
        panic!("python lz4: {}", String::from_utf8_lossy(&py.stderr));
    }
    // And the stats command counts the same entries.
    let stats = Command::new(runner())
        .args(["samples", "stats"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(stats.status.success());
    let text = String::from_utf8_lossy(&stats.stdout);
    assert!(text.contains(&format!("samples: {entries}")), "{text}");
}
