//! Piskvork `.psq` records end to end: `-psq DIR` on a real match of the bundled engines (one
//! file per game, read back to the journal's stones, times and names), `export -psq` (the same
//! bytes), the completion of a record a kill cut off (`-resume`), `.psq` openings, `lib merge` of
//! `.psq` files, the sample record of the shared test data, and bad input.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use gomoku_cli::core::board::{parse_pos_sequence, BoardSize, Pos};
use gomoku_cli::core::rules::Rule;
use gomoku_cli::formats::openings::{OpeningBook, OpeningFormat};
use gomoku_cli::formats::psq::{self, PsqGame};

/// The arguments of a 4-game freestyle match writing `-psq psq` and `-journal run.jsonl`.
fn match_args(extra: &[&str]) -> Match {
    scout_vs_random_match("freestyle15.txt")
        .games(4)
        .psq("psq")
        .journal("run.jsonl")
        .args(extra)
}

/// Play the match in a new directory; return it and the journal's games.
fn play(extra: &[&str]) -> (tempfile::TempDir, Vec<serde_json::Value>) {
    let dir = tempfile::tempdir().unwrap();
    match_args(extra).run_in(dir.path()).assert_success();
    let games = journal_games(&dir.path().join("run.jsonl"));
    assert_eq!(games.len(), 4);
    (dir, games)
}

/// The `gomoku-cli` tools (export, lib) in `dir`.
fn tool(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(runner())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("gomoku-cli starts")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The file names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn read_psq(path: &Path) -> PsqGame {
    let text = std::fs::read_to_string(path).unwrap();
    psq::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn record_of(dir: &Path, game: &serde_json::Value) -> PathBuf {
    dir.join(format!(
        "psq/game-{:06}.psq",
        game["game"].as_u64().unwrap()
    ))
}

#[test]
fn every_game_has_a_record_that_reads_back_to_the_journal_and_export_writes_the_same_bytes() {
    let (dir, games) = play(&[]);
    let size = BoardSize::new(15).unwrap();
    let mut expected: Vec<String> = games
        .iter()
        .map(|g| format!("game-{:06}.psq", g["game"].as_u64().unwrap()))
        .collect();
    expected.sort();
    assert_eq!(names_in(&dir.path().join("psq")), expected);
    for g in &games {
        let game = read_psq(&record_of(dir.path(), g));
        assert_eq!((game.width, game.height), (15, 15));
        let opening = parse_pos_sequence(g["opening"].as_str().unwrap(), size).unwrap();
        let moves = parse_pos_sequence(g["moves"].as_str().unwrap(), size).unwrap();
        let stones: Vec<Pos> = opening.iter().chain(&moves).copied().collect();
        assert_eq!(game.stones(), stones, "game {}", g["game"]);
        let times: Vec<u64> = game.moves.iter().map(|m| m.time_ms).collect();
        let mut want = vec![0; opening.len()];
        want.extend(
            g["times_ms"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_u64().unwrap()),
        );
        assert_eq!(times, want, "game {}", g["game"]);
        let names = (g["black"].as_str().unwrap(), g["white"].as_str().unwrap());
        let players = game.players.clone().expect("the record names the players");
        assert_eq!((players.0.as_str(), players.1.as_str()), names);
    }

    let out = tool(dir.path(), &["export", "run.jsonl", "-psq", "exported"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(names_in(&dir.path().join("exported")), expected);
    for name in &expected {
        let ran = std::fs::read(dir.path().join("psq").join(name)).unwrap();
        let exported = std::fs::read(dir.path().join("exported").join(name)).unwrap();
        assert_eq!(ran, exported, "{name}");
    }
    // Export writes new files only.
    let out = tool(dir.path(), &["export", "run.jsonl", "-psq", "exported"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("already exists"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn resume_writes_the_record_a_kill_cut_off() {
    let (dir, games) = play(&[]);
    // A kill between the journal line of the last game and its record leaves no record.
    let last = record_of(dir.path(), games.last().unwrap());
    let before = std::fs::read(&last).unwrap();
    std::fs::remove_file(&last).unwrap();
    let args = match_args(&["-resume"]);
    args.run_in(dir.path())
        .assert_success()
        .assert_stderr_has("wrote the last game's record");
    assert_eq!(std::fs::read(&last).unwrap(), before);
    assert_eq!(journal_games(&dir.path().join("run.jsonl")).len(), 4);
    // Nothing to complete: nothing said.
    let run = args.run_in(dir.path());
    run.assert_success();
    assert!(!run.stderr.contains("last game's record"), "{}", run.stderr);
}

#[test]
fn a_psq_record_is_an_opening_source() {
    let dir = tempfile::tempdir().unwrap();
    // Six stones, names and the final number, as Piskvork writes a record; CR LF endings.
    let record = "Piskvorky 15x15, 7:7, 0\r\n8,8,120\r\n9,9,80\r\n9,7,300\r\n7,9,10\r\n\
                  10,10,5\r\n6,6,7\r\nsome.exe\r\nother.zip\r\n0\r\n";
    std::fs::write(dir.path().join("start.psq"), record).unwrap();
    scout_vs_random_match("freestyle15.txt")
        .games(2)
        .journal("run.jsonl")
        // A second -openings replaces the helper's.
        .openings(&["file=start.psq", "type=psq", "moves=4"])
        .run_in(dir.path())
        .assert_success();
    let games = journal_games(&dir.path().join("run.jsonl"));
    assert_eq!(games.len(), 2);
    let first_four: Vec<Pos> = psq::parse(record).unwrap().stones()[..4].to_vec();
    let size = BoardSize::new(15).unwrap();
    for g in &games {
        let opening = parse_pos_sequence(g["opening"].as_str().unwrap(), size).unwrap();
        assert_eq!(opening, first_four, "game {}", g["game"]);
        assert_eq!(g["opening_line"], 5, "the line of the opening's last stone");
    }
    let header = std::fs::read_to_string(dir.path().join("run.jsonl")).unwrap();
    assert!(header
        .lines()
        .next()
        .unwrap()
        .contains(r#""format":"psq moves=4""#));
}

#[test]
fn lib_merge_takes_psq_records() {
    let (dir, games) = play(&[]);
    let out = tool(
        dir.path(),
        &["lib", "merge", "-o", "journal.lib", "run.jsonl"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut args = vec!["lib", "merge", "-o", "both.lib", "--into", "journal.lib"];
    let records: Vec<String> = games
        .iter()
        .map(|g| record_of(dir.path(), g).display().to_string())
        .collect();
    args.extend(records.iter().map(String::as_str));
    let out = tool(dir.path(), &args);
    let said = text(&out.stdout);
    assert!(out.status.success(), "{said}{}", text(&out.stderr));
    // Each record's stones are the journal game's: its path is in the tree already; only its
    // own game line (a psq: key) is new.
    assert_eq!(
        said.matches(": psq, 1 game: 1 added (0 new nodes)").count(),
        4,
        "{said}"
    );
    assert!(said.contains(", 8 games"), "{said}");
    let dump = tool(dir.path(), &["lib", "dump", "both.lib"]);
    let dump = text(&dump.stdout);
    let psq_lines: Vec<&str> = dump.lines().filter(|l| l.contains("[game psq:")).collect();
    assert_eq!(psq_lines.len(), 4, "{dump}");
    // The records name the players; they carry no result.
    for l in psq_lines {
        assert!(
            l.contains("scout - random") || l.contains("random - scout"),
            "{l}"
        );
    }
}

#[test]
fn the_sample_record_reads_and_renders_back() {
    let Some(path) = shared_testdata_file("piskvork-game.psq") else {
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let game = psq::parse(&text).unwrap();
    assert_eq!((game.width, game.height), (20, 20));
    let move_lines: Vec<&str> = lines[1..]
        .iter()
        .copied()
        .take_while(|l| l.contains(','))
        .collect();
    assert_eq!(game.moves.len(), move_lines.len());
    assert_eq!(game.moves.len(), 16);
    let xy_ms = |l: &str| -> (u8, u8, u64) {
        let f: Vec<&str> = l.split(',').collect();
        (
            f[0].parse().unwrap(),
            f[1].parse().unwrap(),
            f[2].parse().unwrap(),
        )
    };
    for (m, line) in [
        (game.moves.first().unwrap(), move_lines[0]),
        (game.moves.last().unwrap(), move_lines[15]),
    ] {
        let (x, y, ms) = xy_ms(line);
        assert_eq!((m.pos.x + 1, m.pos.y + 1, m.time_ms), (x, y, ms), "{line}");
    }
    assert_eq!(game.moves[0].pos, Pos::new(9, 9));
    let rendered = game.render();
    let back: Vec<&str> = rendered.lines().collect();
    assert_eq!(back[..17], lines[..17], "header and move lines");
    // The sample ends with the two program names and 0, the shape we write: all of it comes back.
    assert_eq!(rendered, text);

    // As an opening source: its first stones; all 16 end in white's five, refused at its line.
    let size = BoardSize::new(20).unwrap();
    let some = OpeningFormat::Psq { moves: Some(6) };
    let book = OpeningBook::load(&path, some, size, Rule::Freestyle).unwrap();
    assert_eq!(book.openings[0].stones, game.stones()[..6]);
    let all = OpeningFormat::Psq { moves: None };
    let e = OpeningBook::load(&path, all, size, Rule::Freestyle).unwrap_err();
    assert_eq!(e.line(), Some(17), "{e}");
    let e = OpeningBook::load(&path, some, BoardSize::STANDARD, Rule::Freestyle).unwrap_err();
    assert!(e.to_string().contains(":1: a 20x20 record"), "{e}");

    // lib merge counts it as not 15x15, as other games of other boards, and since nothing
    // could go in, refuses rather than write an empty library.
    let dir = tempfile::tempdir().unwrap();
    let p = path.display().to_string();
    let out = tool(dir.path(), &["lib", "merge", "-o", "x.lib", &p]);
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("no game could be merged")
            && said.contains("0 added")
            && said.contains("1 not 15x15"),
        "{said}"
    );
    assert!(!dir.path().join("x.lib").exists());
}

#[test]
fn a_malformed_psq_opening_is_refused_with_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.psq"),
        "Piskvorky 15x15, 7:7, 0\n8,8,0\n9,x,10\n",
    )
    .unwrap();
    scout_vs_random_match("freestyle15.txt")
        .journal("run.jsonl")
        .openings(&["file=bad.psq", "type=psq"])
        .run_in(dir.path())
        .assert_exit(1)
        .assert_stderr_has("bad.psq:3: bad move line")
        .assert_stderr_has("\"9,x,10\"");
    assert!(journal_games(&dir.path().join("run.jsonl")).is_empty());
}

#[test]
fn an_unusable_psq_directory_stops_the_run_before_its_first_game() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("taken"), "a file").unwrap();
    for psq_dir in ["taken/psq", "taken"] {
        scout_vs_random_match("freestyle15.txt")
            .journal("run.jsonl")
            .psq(psq_dir)
            .run_in(dir.path())
            .assert_exit(1)
            .assert_stderr_has(&format!(
                "cannot create {psq_dir}: taken is a file, not a directory"
            ));
        assert!(journal_games(&dir.path().join("run.jsonl")).is_empty());
    }
}
