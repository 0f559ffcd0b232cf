//! End-to-end tests of `gomoku-cli lib stats|dump|merge` with the built binary: a match of the
//! bundled engines makes the journal and SGF file that go into a library.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;
use gomoku_cli::core::board::{parse_pos_sequence, BoardSize, Pos, Symmetry};
use gomoku_cli::formats::renlib::read;

fn lib(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(runner())
        .arg("lib")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run `lib ARGS` successfully and check its output says `expected`.
fn says(dir: &Path, args: &[&str], expected: &str) -> String {
    let out = ok(dir, args);
    assert!(
        out.contains(expected),
        "lib {args:?} does not say {expected:?}:\n{out}"
    );
    out
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let (code, out, err) = lib(dir, args);
    assert_eq!(code, 0, "lib {args:?}\n{out}\n{err}");
    out
}

/// A renju match of pbrain-random against itself: journal `j.jsonl`, SGF `g.sgf`.
fn play(dir: &Path, games: &str, size: &str) {
    let mut args = Match::new()
        .engines("pbrain-random", &["A", "B"])
        .rule(4)
        .boardsize(size)
        .games(games)
        .repeat()
        .journal("j.jsonl")
        .sgf("g.sgf");
    if size == "15" {
        args = args.openings_file(repo_root().join("openings/renju15.txt"), &["type=pos"]);
    }
    args.run_in(dir).assert_success();
}

/// The run's PGN, rebuilt from its journal by `export` (what `-pgn` wrote): its file name.
fn run_pgn(dir: &Path) -> String {
    Match::command(&["export", "j.jsonl", "--pgn", "g.pgn"])
        .run_in(dir)
        .assert_success();
    "g.pgn".into()
}

/// Every stone of each journal game (opening first), as points.
fn journal_stones(path: &Path) -> Vec<Vec<Pos>> {
    journal_games(path)
        .iter()
        .map(|g| {
            let text = format!(
                "{}{}",
                g["opening"].as_str().unwrap(),
                g["moves"].as_str().unwrap()
            );
            parse_pos_sequence(&text, BoardSize::STANDARD).unwrap()
        })
        .collect()
}

fn pos_text(moves: &[Pos]) -> Vec<String> {
    moves
        .iter()
        .map(|p| p.to_pos_notation(BoardSize::STANDARD).unwrap())
        .collect()
}

fn stats_json(dir: &Path, file: &str) -> serde_json::Value {
    serde_json::from_str(&ok(dir, &["stats", "--json", file])).unwrap()
}

#[test]
fn journals_sgf_and_game_lists_go_in_once_in_one_orientation() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    play(dir, "6", "15");
    let games = journal_stones(&dir.join("j.jsonl"));
    assert_eq!(games.len(), 6);

    let out = says(
        dir,
        &["merge", "-o", "out.lib", "j.jsonl"],
        "j.jsonl: journal, 6 games: 6 added (",
    );
    assert!(out.contains("wrote out.lib: "), "{out}");
    let stats = stats_json(dir, "out.lib");
    assert_eq!(stats["games"], 6);
    assert_eq!(stats["version"], serde_json::json!([3, 4]));

    // Each game is a path from the root, in one of its 8 orientations.
    let paths = ok(dir, &["dump", "--paths", "--notation", "pos", "out.lib"]);
    for g in &games {
        let found = Symmetry::ALL.into_iter().any(|s| {
            let want = pos_text(&s.apply_all(g, BoardSize::STANDARD));
            paths.lines().any(|l| {
                let tokens: Vec<&str> = l.split(' ').skip(1).collect();
                tokens.len() >= want.len() && tokens[..want.len()] == want[..]
            })
        });
        assert!(
            found,
            "game {:?} is not in the library:\n{paths}",
            pos_text(g)
        );
    }

    // The same journal again: nothing changes, byte for byte.
    says(
        dir,
        &["merge", "-o", "again.lib", "--into", "out.lib", "j.jsonl"],
        "6 games: 0 added (0 new nodes), 6 already in the library",
    );
    let bytes = std::fs::read(dir.join("out.lib")).unwrap();
    assert_eq!(std::fs::read(dir.join("again.lib")).unwrap(), bytes);

    // The run's SGF holds the same games: new game lines, no new node.
    says(
        dir,
        &["merge", "-o", "sgf.lib", "--into", "out.lib", "g.sgf"],
        "g.sgf: SGF, 6 games: 6 added (0 new nodes)",
    );

    // The games rotated, as a pos-notation list: the same branches again.
    let list: String = games
        .iter()
        .map(|g| pos_text(&Symmetry::Rot90.apply_all(g, BoardSize::STANDARD)).join("") + "\r\n")
        .collect();
    std::fs::write(dir.join("games.txt"), format!("# rotated\n{list}\n")).unwrap();
    says(
        dir,
        &["merge", "-o", "out.lib", "--into", "out.lib", "games.txt"],
        "games.txt: game list, 6 games: 6 added (0 new nodes)",
    );
    assert_eq!(stats_json(dir, "out.lib")["games"], 12);
    assert_eq!(
        stats_json(dir, "out.lib")["nodes"],
        stats_json(dir, "again.lib")["nodes"]
    );
}

#[test]
fn two_runs_with_the_same_settings_keep_all_their_games() {
    // Two runs of one configuration: the same fingerprint and game numbers, other moves (the
    // engine draws its moves at random). Every game goes in; each journal again adds nothing.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for run in ["a", "b"] {
        std::fs::create_dir(dir.join(run)).unwrap();
        play(&dir.join(run), "4", "15");
    }
    let (a, b) = (dir.join("a/j.jsonl"), dir.join("b/j.jsonl"));
    let fingerprint = |p: &Path| journal_games(p)[0]["fingerprint"].clone();
    assert_eq!(fingerprint(&a), fingerprint(&b));
    assert_ne!(journal_stones(&a), journal_stones(&b));
    says(
        dir,
        &["merge", "-o", "out.lib", "a/j.jsonl", "b/j.jsonl"],
        "b/j.jsonl: journal, 4 games: 4 added (",
    );
    assert_eq!(stats_json(dir, "out.lib")["games"], 8);
    says(
        dir,
        &[
            "merge",
            "-o",
            "again.lib",
            "--into",
            "out.lib",
            "b/j.jsonl",
            "a/j.jsonl",
        ],
        "a/j.jsonl: journal, 4 games: 0 added (0 new nodes), 4 already in the library",
    );
    assert_eq!(
        std::fs::read(dir.join("again.lib")).unwrap(),
        std::fs::read(dir.join("out.lib")).unwrap()
    );
}

#[test]
fn statistics_lines_are_updated_not_duplicated() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    play(dir, "4", "15");
    ok(dir, &["merge", "-o", "s.lib", "--stats", "j.jsonl"]);
    let tree = ok(dir, &["dump", "s.lib"]);
    let first = tree.lines().next().unwrap();
    assert!(
        first.starts_with("ROOT {[stats] 4 games, black +"),
        "{first}"
    );
    // Merged again without --stats: the lines stay, with the same counts.
    says(
        dir,
        &["merge", "-o", "s.lib", "--into", "s.lib", "j.jsonl"],
        "statistics refreshed",
    );
    let again = ok(dir, &["dump", "s.lib"]);
    assert_eq!(again, tree);
    for line in again.lines() {
        for node in line.split(" {") {
            assert!(node.matches("[stats]").count() <= 1, "{line}");
        }
    }
}

/// Nodes and leaves (paths) of a library as Figrid v0.20 reads one (its `Tree::load_renlib`):
/// after a comment it skips every NUL byte, not only the padding, so a pass node's `00` right
/// after a comment goes with it.
fn figrid_reading(bytes: &[u8]) -> (usize, usize) {
    let (mut at, mut open, mut nodes, mut leaves) = (20, 0usize, 0, 0);
    while at + 1 < bytes.len() {
        let flags = bytes[at + 1];
        at += 2;
        nodes += 1;
        let (leaf, sibling) = (flags & 0x40 != 0, flags & 0x80 != 0);
        leaves += usize::from(leaf);
        match (leaf, sibling) {
            (false, true) => open += 1,
            (true, false) if open == 0 => break,
            (true, false) => open -= 1,
            _ => {}
        }
        if flags & 0x28 != 0 {
            while at < bytes.len() && bytes[at] != 0 {
                at += 1;
            }
            while at < bytes.len() && bytes[at] == 0 {
                at += 1;
            }
        }
    }
    (nodes, leaves)
}

#[test]
fn no_pass_node_follows_a_statistics_line() {
    // Two games from h8 h9: one goes on with a pass (SGF's empty move), the other with a stone.
    // With --stats h9 has games below it, and a pass for first child: a comment right before
    // the pass is what Figrid misreads (1 path and 2 nodes for 2 and 6).
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(
        dir.join("g.sgf"),
        "(;GM[4]SZ[15];B[hh];W[hg];B[];W[ig])\n(;GM[4]SZ[15];B[hh];W[hg];B[ih])\n",
    )
    .unwrap();
    let out = ok(dir, &["merge", "-o", "p.lib", "--stats", "g.sgf"]);
    assert!(out.contains("wrote p.lib: 6 nodes, 2 games"), "{out}");
    let written = read(&std::fs::read(dir.join("p.lib")).unwrap()).unwrap();
    assert_eq!(
        gomoku_cli::formats::renlib::write::comments_before_passes(&written),
        vec![]
    );
    let paths = ok(dir, &["dump", "--paths", "p.lib"]);
    assert_eq!(paths.lines().count(), 2, "{paths}");
    let bytes = std::fs::read(dir.join("p.lib")).unwrap();
    assert_eq!(figrid_reading(&bytes), (6, 2));
    let tree = ok(dir, &["dump", "p.lib"]);
    assert!(tree.starts_with("ROOT {[stats] 2 games"), "{tree}");
    // A game that ends at h9 needs its line there: that one is said.
    std::fs::write(dir.join("end.sgf"), "(;GM[4]SZ[15];B[hh];W[hg])\n").unwrap();
    let (code, _, err) = lib(dir, &["merge", "-o", "e.lib", "--into", "p.lib", "end.sgf"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("e.lib: 1 comment(s) right before a pass node"),
        "{err}"
    );
}

#[test]
fn games_off_the_15x15_board_are_counted_not_lost() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    play(dir, "2", "9");
    // Counted and said; and since nothing could go in, no empty library is written.
    let (code, _, err) = lib(dir, &["merge", "-o", "nine.lib", "j.jsonl"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("j.jsonl: no game could be merged (read as journal: 2 games: 0 added (0 new nodes), 0 already in the library, 2 not 15x15"),
        "{err}"
    );
    assert!(!dir.join("nine.lib").exists());
}

#[test]
fn inputs_that_yield_no_game_are_refused_naming_the_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    play(dir, "2", "15");
    // The run's PGN: tags and results only, for Elo tools.
    let mut pgn = run_pgn(dir);
    let (code, out, err) = lib(dir, &["merge", "-o", "p.lib", &pgn]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains(&format!("{pgn}:1: a PGN file")) && err.contains("merge the run's journal"),
        "{err}"
    );
    assert!(!dir.join("p.lib").exists(), "no empty library");
    // A PGN after blank lines: the line of its first tag.
    std::fs::write(
        dir.join("late.pgn"),
        format!("\n\n{}", std::fs::read_to_string(dir.join(&pgn)).unwrap()),
    )
    .unwrap();
    pgn = "late.pgn".into();
    let (code, _, err) = lib(dir, &["merge", "-o", "p.lib", &pgn]);
    assert_eq!(code, 1);
    assert!(err.contains("late.pgn:3: a PGN file"), "{err}");
    // A text file of lines that are not games.
    std::fs::write(dir.join("notes.txt"), "hello\nworld\n").unwrap();
    let (code, _, err) = lib(dir, &["merge", "-o", "p.lib", "j.jsonl", "notes.txt"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("notes.txt: no game could be merged (read as game list: 2 games: 0 added")
            && err.contains("line 1: "),
        "{err}"
    );
    assert!(
        !dir.join("p.lib").exists(),
        "nothing written when one input fails"
    );
}

#[test]
fn a_failed_merge_leaves_the_output_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("games.txt"), "h8i9j10\n").unwrap();
    ok(dir, &["merge", "-o", "out.lib", "games.txt"]);
    let before = std::fs::read(dir.join("out.lib")).unwrap();
    std::fs::write(dir.join("bad.lib"), b"\xffRenLib\xff\x03\x00").unwrap();
    std::fs::write(dir.join("bad.jsonl"), "{\"game\":1}\n{}\n").unwrap();
    for bad in ["bad.lib", "bad.jsonl", "missing.txt"] {
        let (code, _, err) = lib(dir, &["merge", "-o", "out.lib", "games.txt", bad]);
        assert_eq!(code, 1, "{bad}: {err}");
        assert!(err.contains(bad), "{err}");
        assert_eq!(std::fs::read(dir.join("out.lib")).unwrap(), before);
    }
    let (_, _, err) = lib(dir, &["merge", "-o", "out.lib", "bad.lib"]);
    assert!(
        err.contains("offset 10: the file ends; expected the rest of the 20-byte header"),
        "{err}"
    );
    let names: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(names.len(), 4, "no temporary file is left: {names:?}");
    let (code, _, err) = lib(
        dir,
        &["merge", "-o", "x.lib", "--encoding", "utf-16", "games.txt"],
    );
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_killed_merge_never_leaves_a_broken_library() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("one.txt"), "h8i9\n").unwrap();
    ok(dir, &["merge", "-o", "out.lib", "one.txt"]);
    let old = std::fs::read(dir.join("out.lib")).unwrap();
    // Enough games that the write takes a while.
    let mut seed: u64 = 7;
    let mut list = String::new();
    for _ in 0..40_000 {
        let mut cells: Vec<u8> = (0..225).collect();
        for i in 0..60 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let j = i + (seed >> 33) as usize % (225 - i);
            cells.swap(i, j);
            let c = cells[i];
            list.push_str(&format!("{}{}", (b'a' + c % 15) as char, c / 15 + 1));
        }
        list.push('\n');
    }
    std::fs::write(dir.join("many.txt"), list).unwrap();
    // Kills spread over reading, merging and writing (a debug build merges these games in about
    // a second, and rewrites the file in a fifth of one).
    for delay_ms in (1..12).map(|i| i * 100) {
        let mut child = Command::new(runner())
            .args([
                "lib", "merge", "-o", "out.lib", "--into", "out.lib", "many.txt",
            ])
            .current_dir(dir)
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read(dir.join("out.lib")).unwrap();
        let lib = read(&now).unwrap_or_else(|e| panic!("after {delay_ms} ms: {e}"));
        assert!(
            now == old || lib.node_count() > 40_000,
            "after {delay_ms} ms"
        );
    }
}

#[test]
fn libraries_merge_as_whole_trees() {
    let Some(data) = renlib_testdata() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let d4 = data.join("D4.lib");
    let i7 = data.join("I7.lib");
    let (d4, i7) = (d4.to_str().unwrap(), i7.to_str().unwrap());
    // A library merged into itself: the same bytes.
    says(
        dir,
        &["merge", "-o", "same.lib", "--into", d4, d4],
        "library, 3058 nodes: 0 new nodes (symmetry identity)",
    );
    assert_eq!(
        std::fs::read(dir.join("same.lib")).unwrap(),
        std::fs::read(d4).unwrap()
    );
    // Two libraries into a new one: a root, then both trees, which share only h8 (D4's h8 has
    // no comment, I7's has): every node, leaf and comment of each is there.
    ok(dir, &["merge", "-o", "both.lib", d4, i7]);
    let both = stats_json(dir, "both.lib");
    assert_eq!(both["nodes"], 1 + 3058 + 2076 - 1, "{both}");
    assert_eq!(both["leaves"], 350 + 262, "{both}");
    assert_eq!(both["comments"], 145 + 93, "{both}");
    assert_eq!(both["max_depth"], 45 + 1, "{both}");
}

#[test]
fn help_names_the_lib_commands() {
    let out = Command::new(runner())
        .args(["help", "lib"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for word in ["stats", "dump", "merge"] {
        assert!(text.contains(word), "{text}");
    }
    let out = Command::new(runner())
        .args(["lib", "merge", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in ["--into", "--stats", "--encoding", "-o"] {
        assert!(text.contains(flag), "{text}");
    }
    let out = Command::new(runner()).arg("--help").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("gomoku-cli lib merge -o OUT.lib"));
}
