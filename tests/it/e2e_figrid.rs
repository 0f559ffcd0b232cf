//! A real engine written by others in the loop: figrid-board's `pbrain-figrid` (crates.io,
//! `cargo install figrid-board --features embed-weights,codebook-eval`, a Piskvork engine with its
//! networks built in) against the bundled engines through the runner, freestyle and renju on
//! 15×15 (the only size its default build plays). Every game must end on the board, the journal
//! must replay, and the PGN and `.psq` records must agree with it.
//!
//! The engine is `PBRAIN_FIGRID` (a path), else `pbrain-figrid` on PATH. Absent, the tests say so
//! and skip, except under `CI=true`, where `.ci/run` installs it and its absence is a failure.
//! The variable is not named `FIGRID_…`: pbrain-figrid refuses to start (`ERROR unknown engine
//! variable`, exit 2) when its environment, which it inherits from the runner, holds a
//! `FIGRID_*`/`NORU_*` variable it does not know.

use crate::common;

use common::*;
use gomoku_cli::core::board::{parse_pos_sequence, Board, BoardSize, Color, Pos};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Games per opponent (colour-swapped pairs).
const GAMES: usize = 4;

/// A gauntlet of figrid against pbrain-scout and pbrain-random under `rule` with the
/// repository's `openings` file, its journal, PGN and `.psq` records checked; returns the games.
fn gauntlet(rule: u8, openings: &str) -> Option<Vec<Value>> {
    let figrid = figrid()?;
    let dir = tempfile::tempdir().unwrap();
    // 0.3 s a move: figrid thinks for the turn time less its 150 ms safety margin.
    Match::new()
        .engine_cmd(&figrid.to_string_lossy(), &["name=figrid"])
        .engine("pbrain-scout", &["name=scout"])
        .engine("pbrain-random --seed 7", &["name=random"])
        .arg("-gauntlet")
        .each(&["tc=0/0.3"])
        .rule(rule)
        .games(GAMES)
        .repeat()
        .concurrency(2)
        .openings_file(repo_root().join("openings").join(openings), &["type=pos"])
        .journal("j.jsonl")
        .pgn("g.pgn")
        .psq("psq")
        .noprogress()
        .run_in(dir.path())
        .assert_success();
    let games = journal_games(&dir.path().join("j.jsonl"));
    let mut sorted: Vec<u64> = games.iter().map(|g| g["game"].as_u64().unwrap()).collect();
    sorted.sort_unstable();
    let expected: Vec<u64> = (1..=2 * GAMES as u64).collect();
    assert_eq!(sorted, expected, "each game once in the journal");
    for g in &games {
        check_game(g, rule);
    }
    check_pgn(&dir.path().join("g.pgn"), &games);
    check_psq(&dir.path().join("psq"), &games);
    Some(games)
}

/// The longest run of `c` through `p` on `board` in any of the four directions.
fn longest_run(board: &Board, p: Pos, c: Color) -> usize {
    [(1, 0), (0, 1), (1, 1), (1, -1)]
        .iter()
        .map(|&(dx, dy)| {
            let count = |sign: i64| {
                (1..)
                    .take_while(|k| {
                        board.at(p.x as i64 + sign * k * dx, p.y as i64 + sign * k * dy) == Some(c)
                    })
                    .count()
            };
            1 + count(1) + count(-1)
        })
        .max()
        .unwrap()
}

/// One game of the journal: it ended on the board (a five, a full board, or a renju foul by
/// black, who then lost), never by a fault (time, crash, error, illegal move), and it replays:
/// its stones on distinct points and the last one making the five the journal says.
fn check_game(g: &Value, rule: u8) {
    let n = &g["game"];
    let size = BoardSize::new(15).unwrap();
    assert_eq!(g["rule"], rule, "game {n}");
    assert!(
        g["black"] == "figrid" || g["white"] == "figrid",
        "game {n}: figrid plays every game: {g}"
    );
    let termination = g["termination"].as_str().unwrap();
    let result = g["result"].as_str().unwrap();
    let opening = parse_pos_sequence(g["opening"].as_str().unwrap(), size).unwrap();
    let moves = parse_pos_sequence(g["moves"].as_str().unwrap(), size).unwrap();
    assert_eq!(
        g["times_ms"].as_array().unwrap().len(),
        moves.len(),
        "game {n}: one time a move"
    );
    let stones: Vec<Pos> = opening.iter().chain(&moves).copied().collect();
    let board = Board::from_moves(size, &stones)
        .unwrap_or_else(|p| panic!("game {n}: {p} played on an occupied point: {g}"));
    let winner_is = |c: Color| if c == Color::Black { "1-0" } else { "0-1" };
    match termination {
        "five" => {
            let last = *stones.last().unwrap();
            let mover = Color::of_ply(stones.len() - 1);
            let run = longest_run(&board, last, mover);
            let exact = rule == 4 && mover == Color::Black;
            assert!(
                if exact { run == 5 } else { run >= 5 },
                "game {n}: the last stone {last} makes a run of {run}: {g}"
            );
            assert_eq!(result, winner_is(mover), "game {n}: {g}");
            assert_eq!(g["end"]["winner"], mover.name(), "game {n}");
        }
        "full_board" => {
            assert!(board.is_full(), "game {n}: {g}");
            assert_eq!(result, "1/2-1/2", "game {n}");
        }
        "forbidden" => {
            assert_eq!(rule, 4, "game {n}: a foul outside renju: {g}");
            assert_eq!(board.side_to_move(), Color::Black, "game {n}: {g}");
            assert!(g["forbidden_move"].is_string(), "game {n}: {g}");
            assert_eq!(result, winner_is(Color::White), "game {n}: {g}");
        }
        other => panic!(
            "game {n} ended by {other} ({}), not on the board: {g}",
            g["reason"]
        ),
    }
}

/// The PGN holds each game once, with the journal's players (the first mover, black, in the
/// `White` tag) and result.
fn check_pgn(path: &Path, games: &[Value]) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut by_id: BTreeMap<u64, BTreeMap<String, String>> = BTreeMap::new();
    let mut tags = BTreeMap::new();
    for line in text.lines() {
        if let Some(tag) = line.strip_prefix('[').and_then(|l| l.strip_suffix("\"]")) {
            let (key, value) = tag.split_once(" \"").unwrap();
            tags.insert(key.to_string(), value.to_string());
            if key == "GameId" {
                let id = value.parse().unwrap();
                assert!(
                    by_id.insert(id, std::mem::take(&mut tags)).is_none(),
                    "game {id} twice in the PGN"
                );
            }
        }
    }
    assert_eq!(by_id.len(), games.len(), "one PGN game per journal game");
    for g in games {
        let id = g["game"].as_u64().unwrap();
        let t = &by_id[&id];
        assert_eq!(t["White"], g["black"].as_str().unwrap(), "PGN game {id}");
        assert_eq!(t["Black"], g["white"].as_str().unwrap(), "PGN game {id}");
        assert_eq!(t["Result"], g["result"].as_str().unwrap(), "PGN game {id}");
    }
}

/// One `.psq` record per game: its stones (1-based `x,y,ms` lines) are the journal's opening
/// and moves, and its closing lines name black and white.
fn check_psq(dir: &Path, games: &[Value]) {
    let size = BoardSize::new(15).unwrap();
    for g in games {
        let id = g["game"].as_u64().unwrap();
        let path = dir.join(format!("game-{id:06}.psq"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("Piskvorky 15x15"),
            "{}",
            path.display()
        );
        let stones: Vec<Pos> = lines[1..]
            .iter()
            .map_while(|l| {
                // x and y from 1, then the think time in milliseconds.
                let v: Vec<u32> = l
                    .split(',')
                    .map(|f| f.trim().parse().ok())
                    .collect::<Option<_>>()?;
                let coord = |k: usize| u8::try_from(v[k]).ok()?.checked_sub(1);
                (v.len() == 3).then(|| Some(Pos::new(coord(0)?, coord(1)?)))?
            })
            .collect();
        let journal: Vec<Pos> = [&g["opening"], &g["moves"]]
            .iter()
            .flat_map(|t| parse_pos_sequence(t.as_str().unwrap(), size).unwrap())
            .collect();
        assert_eq!(stones, journal, "{}", path.display());
        let names = &lines[1 + stones.len()..];
        assert_eq!(
            names.first().copied(),
            g["black"].as_str(),
            "{}",
            path.display()
        );
        assert_eq!(
            names.get(1).copied(),
            g["white"].as_str(),
            "{}",
            path.display()
        );
    }
}

/// How figrid's games ended against each opponent, for the test's output (`--nocapture`).
fn summary(games: &[Value]) -> String {
    let mut ends: BTreeMap<String, usize> = BTreeMap::new();
    for g in games {
        let (figrid, opponent) = if g["black"] == "figrid" {
            ("1-0", &g["white"])
        } else {
            ("0-1", &g["black"])
        };
        let outcome = match g["result"].as_str().unwrap() {
            "1/2-1/2" => "drew",
            r if r == figrid => "won",
            _ => "lost",
        };
        let key = format!(
            "{outcome} v {} by {}",
            opponent.as_str().unwrap(),
            g["termination"].as_str().unwrap()
        );
        *ends.entry(key).or_default() += 1;
    }
    format!("{ends:?}")
}

#[test]
fn figrid_plays_freestyle_through_the_runner() {
    if let Some(games) = gauntlet(0, "freestyle15.txt") {
        println!("freestyle: {}", summary(&games));
    }
}

#[test]
fn figrid_plays_renju_through_the_runner() {
    if let Some(games) = gauntlet(4, "renju15.txt") {
        println!("renju: {}", summary(&games));
    }
}
