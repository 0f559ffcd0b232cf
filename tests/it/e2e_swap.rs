//! End-to-end tests of swap openings (`-swap2`, `-swap1`): the built runner with the bundled
//! engines, `pbrain-faulty`'s swap flags forcing each branch and each bad answer. The first
//! engine is scheduled black in game 1, so it proposes there.

use crate::common;

use common::*;
use serde_json::Value;

/// `pbrain-random` (seeded) or `pbrain-faulty` with flags, as an engine spec.
fn random(seed: u32) -> String {
    format!("pbrain-random --seed {seed}")
}

fn faulty(flags: &str) -> String {
    format!("pbrain-faulty --seed 5 {flags}")
}

/// A finished run in its own directory.
struct Swapped {
    dir: tempfile::TempDir,
    run: Run,
    /// The journal's games in game order.
    games: Vec<Value>,
}

/// Run `games` games between P (the first engine) and C with `extra` options (the swap rule
/// among them) in a new directory; the run must succeed.
fn swap_run(p: &str, c: &str, games: &str, extra: &[&str]) -> Swapped {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engine(p, &["name=P"])
        .engine(c, &["name=C"])
        .each(&["tc=10/1"])
        .games(games)
        .journal("j.jsonl")
        .pgn("g.pgn")
        .sgf("g.sgf")
        .noprogress()
        .args(extra)
        .run_in(dir.path());
    run.assert_success();
    let mut games = journal_games(&dir.path().join("j.jsonl"));
    games.sort_by_key(|g| g["game"].as_u64());
    Swapped { dir, run, games }
}

/// The journal entry of one game between P and C under `rule` (`-swap2` or `-swap1`).
fn one_game(p: &str, c: &str, rule: &str) -> Value {
    swap_run(p, c, "1", &[rule]).games.remove(0)
}

/// The steps of a game's swap as `(by, answer)`: the stones, or `SWAP`.
fn steps(g: &Value) -> Vec<(String, String)> {
    g["swap"]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no swap steps: {g}"))
        .iter()
        .map(|s| {
            let answer = if s["swap"] == true {
                "SWAP".to_string()
            } else {
                s["stones"].as_str().unwrap().to_string()
            };
            (s["by"].as_str().unwrap().to_string(), answer)
        })
        .collect()
}

fn step(by: &str, answer: &str) -> (String, String) {
    (by.to_string(), answer.to_string())
}

/// The game was played to an ordinary end (not lost in the swap, no engine fault).
fn played_out(g: &Value) {
    let how = g["termination"].as_str().unwrap();
    assert!(
        ["five", "full_board", "draw_after"].contains(&how),
        "{how}: {}",
        g["reason"]
    );
}

/// The kit's proposal on 15×15: black h8, white i8, black j9.
const PROPOSAL: &str = "h8i8j9";

#[test]
fn swap_after_three_stones_gives_the_chooser_black() {
    let r = swap_run(&random(1), &faulty("--swap-always"), "1", &["-swap2"]);
    let g = &r.games[0];
    assert_eq!(
        steps(g),
        vec![step("proposer", PROPOSAL), step("chooser", "SWAP")]
    );
    assert_eq!(g["swap"]["rule"], "swap2");
    assert_eq!(g["swap"]["proposer"], "P");
    assert_eq!(g["swap"]["chooser"], "C");
    assert_eq!(g["swap"]["proposer_plays"], "white");
    assert_eq!((&g["black"], &g["white"]), (&"C".into(), &"P".into()));
    assert_eq!(
        (&g["black_engine"], &g["white_engine"]),
        (&1.into(), &0.into())
    );
    assert_eq!(g["opening"], PROPOSAL);
    played_out(g);
    let pgn = std::fs::read_to_string(r.dir.path().join("g.pgn")).unwrap();
    assert!(
        pgn.contains("[Swap \"swap2: P h8i8j9, C SWAP; P plays white\"]"),
        "{pgn}"
    );
    assert!(pgn.contains("[White \"C\"]"), "{pgn}");
    let sgf = std::fs::read_to_string(r.dir.path().join("g.sgf")).unwrap();
    assert!(
        sgf.contains("\nswap2: P h8i8j9, C SWAP; P plays white]"),
        "{sgf}"
    );
    assert!(sgf.contains("PB[C]PW[P]"), "{sgf}");
}

#[test]
fn one_stone_after_three_keeps_the_scheduled_colours() {
    let g = &one_game(&random(1), &random(2), "-swap2");
    let s = steps(g);
    assert_eq!(s.len(), 2);
    assert_eq!(s[0], step("proposer", PROPOSAL));
    assert_eq!(s[1].0, "chooser");
    let letters = s[1].1.chars().filter(char::is_ascii_alphabetic).count();
    assert_eq!(letters, 1, "one stone: {s:?}");
    assert_eq!(g["swap"]["proposer_plays"], "black");
    assert_eq!((&g["black"], &g["white"]), (&"P".into(), &"C".into()));
    assert_eq!(g["opening"], format!("{PROPOSAL}{}", s[1].1));
    played_out(g);
}

#[test]
fn two_stones_then_swap_gives_the_proposer_black() {
    let g = &one_game(&faulty("--swap-always"), &faulty("--swap-two"), "-swap2");
    // The faulty engine's two stones go to the corners a15 (white) and o15 (black).
    assert_eq!(
        steps(g),
        vec![
            step("proposer", PROPOSAL),
            step("chooser", "a15o15"),
            step("proposer", "SWAP")
        ]
    );
    assert_eq!(g["swap"]["proposer_plays"], "black");
    assert_eq!(g["black"], "P");
    assert_eq!(g["opening"], "h8i8j9a15o15");
    played_out(g);
}

#[test]
fn two_stones_then_a_sixth_gives_the_proposer_white() {
    let g = &one_game(&random(1), &faulty("--swap-two"), "-swap2");
    let s = steps(g);
    assert_eq!(
        s[..2],
        [step("proposer", PROPOSAL), step("chooser", "a15o15")]
    );
    assert_eq!(s[2].0, "proposer");
    let sixth = &s[2].1;
    assert_eq!(g["swap"]["proposer_plays"], "white");
    assert_eq!((&g["black"], &g["white"]), (&"C".into(), &"P".into()));
    assert_eq!(g["opening"], format!("h8i8j9a15o15{sixth}"));
    // Black (the chooser) moved first in the game: six stones, black to move.
    played_out(g);
}

#[test]
fn swap1_offers_swap_or_one_stone_only() {
    let g = one_game(&random(1), &random(2), "-swap1");
    assert_eq!(g["swap"]["rule"], "swap1");
    assert_eq!(steps(&g).len(), 2);
    assert_eq!(g["black"], "P");
    played_out(&g);
    let g = one_game(&random(1), &faulty("--swap-always"), "-swap1");
    assert_eq!(g["black"], "C");
    played_out(&g);
    // Two stones are a swap2 answer: under swap1 the chooser loses.
    let g = &one_game(&random(1), &faulty("--swap-two"), "-swap1");
    assert_eq!(g["termination"], "swap_illegal");
    assert_eq!(g["result"], "1-0");
    assert_eq!(
        g["reason"],
        "white gave an illegal SWAP2BOARD answer \"0,14 14,14\": 2 stones where SWAP or one \
         stone after three (swap1) is asked for"
    );
}

#[test]
fn bad_answers_lose_with_their_reason() {
    // (flags, the faulty engine proposes, what the reason says)
    let cases = [
        ("--swap-occupied", false, "j9 is occupied"),
        ("--swap-offboard", false, "15,15 is off the board"),
        (
            "--swap-wrong-count",
            false,
            "3 stones where SWAP, one stone or two stones after three is asked for",
        ),
        ("--swap-garbage", false, "not an answer to SWAP2BOARD"),
        ("--swap-occupied", true, "a1 is occupied"),
        (
            "--swap-wrong-count",
            true,
            "2 stones where three stones (black, white, black) on the empty board is asked for",
        ),
        ("--swap-offboard", true, "15,15 is off the board"),
    ];
    for (flags, proposes, why) in cases {
        let (p, c) = if proposes {
            (faulty(flags), random(2))
        } else {
            (random(1), faulty(flags))
        };
        let r = swap_run(&p, &c, "1", &["-swap2"]);
        let g = &r.games[0];
        assert_eq!(g["termination"], "swap_illegal", "{flags}: {g}");
        let (loser, result) = if proposes {
            ("black", "0-1")
        } else {
            ("white", "1-0")
        };
        assert_eq!(g["result"], result, "{flags}");
        let reason = g["reason"].as_str().unwrap();
        assert!(
            reason.starts_with(&format!("{loser} gave an illegal SWAP2BOARD answer"))
                && reason.contains(why),
            "{flags}: {reason}"
        );
        assert_eq!(g["end"]["how"], "swap_illegal");
        assert!(r.run.stdout.contains(reason), "{}", r.run.stdout);
        // The colours stay the scheduled ones, and only the accepted stones are on the board.
        assert_eq!(g["black"], "P");
        let accepted = if proposes { "" } else { PROPOSAL };
        assert_eq!(g["opening"], accepted, "{flags}");
        assert_eq!(g["moves"], "");
    }
}

#[test]
fn an_engine_without_swap2board_plays_ordinary_games_and_is_reported_once() {
    let c = faulty("--swap-unknown");
    let Swapped { run, games, .. } = swap_run(&random(1), &c, "4", &["-swap2", "-repeat"]);
    assert_eq!(games.len(), 4);
    for g in &games {
        let n = g["game"].as_u64().unwrap();
        // C is asked as the chooser in odd games (after P's stones), as the proposer in even ones.
        let (by, black) = if n % 2 == 1 {
            ("chooser", "P")
        } else {
            ("proposer", "C")
        };
        assert_eq!(g["swap"]["unsupported"]["by"], by, "{g}");
        assert_eq!(
            g["swap"]["unsupported"]["answer"],
            "UNKNOWN SWAP2BOARD is not supported"
        );
        assert_eq!(g["black"], black, "scheduled colours: {g}");
        assert_eq!(g["opening"], "", "from the empty board: {g}");
        played_out(g);
    }
    let warnings: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("does not support SWAP2BOARD"))
        .collect();
    assert_eq!(
        warnings,
        vec![
            "Warning: C does not support SWAP2BOARD (it answered \"UNKNOWN SWAP2BOARD is not \
             supported\"): its games are played from the empty board with the scheduled \
             colours, without a swap"
        ]
    );
}

#[test]
fn repeat_gives_each_engine_the_proposers_role_in_turn() {
    let r = swap_run(&random(1), &random(2), "4", &["-swap2", "-repeat"]);
    let games = r.games;
    let proposers: Vec<&str> = games
        .iter()
        .map(|g| g["swap"]["proposer"].as_str().unwrap())
        .collect();
    assert_eq!(proposers, vec!["P", "C", "P", "C"]);
    for g in &games {
        assert_eq!(steps(g)[0], step("proposer", PROPOSAL));
        played_out(g);
    }
    // `export` rebuilds the same records from the journal (swap tags and comments included).
    Match::command(&["export", "j.jsonl"])
        .pgn("e.pgn")
        .sgf("e.sgf")
        .run_in(r.dir.path())
        .assert_success();
    for (made, rebuilt) in [("g.pgn", "e.pgn"), ("g.sgf", "e.sgf")] {
        let read = |f: &str| std::fs::read_to_string(r.dir.path().join(f)).unwrap();
        assert_eq!(read(made), read(rebuilt), "{made}");
        assert_eq!(read(made).matches("swap2: ").count(), 4, "{made}");
    }
}

#[test]
fn three_stone_openings_stand_for_the_proposal_and_others_are_refused() {
    let files = tempfile::tempdir().unwrap();
    let three = files.path().join("three.txt");
    std::fs::write(&three, "g8h9i10\nh8i8h7\n").unwrap();
    let three = format!("file={}", three.display());
    let extra = ["-swap2", "-openings", &three, "type=pos"];
    let g = &swap_run(&random(1), &faulty("--swap-always"), "2", &extra).games[0];
    assert_eq!(steps(g), vec![step("chooser", "SWAP")]);
    assert_eq!(g["opening"], "g8h9i10");
    assert_eq!(g["opening_line"], 1);
    assert_eq!(g["black"], "C");
    played_out(g);
    // Without SWAP2BOARD, the game is played from the opening's stones.
    let g = &swap_run(&random(1), &faulty("--swap-unknown"), "1", &extra).games[0];
    assert_eq!(g["swap"]["unsupported"]["by"], "chooser");
    assert_eq!(g["opening"], "g8h9i10");
    assert_eq!(g["black"], "P");
    played_out(g);
    // An opening of another size cannot start a swap: refused before the first game.
    let run = Match::new()
        .engine(&random(1), &[])
        .engine(&random(2), &[])
        .arg("-swap1")
        .openings_file(repo_root().join("openings/freestyle15.txt"), &["type=pos"])
        .journal("off")
        .run_in(files.path());
    run.assert_exit(1)
        .assert_stderr_has("freestyle15.txt:1: an opening of 4 stones: with -swap1");
    assert!(run.lines_starting("Started").is_empty());
}

/// `pbrain-random` in pbrain-kit's strict mode: it reads `SWAP2BOARD` as Rapfi does (`x,y,c`
/// lines, an `ERROR` per `x,y` line, a proposal kept on its board, `BEGIN` refused on stones).
fn strict(seed: u32) -> String {
    format!("{} --strict", random(seed))
}

#[test]
fn an_engine_that_reads_swap2board_as_board_plays_both_rules_in_both_colour_orders() {
    for (p, c) in [(random(1), strict(2)), (strict(1), strict(2))] {
        for rule in ["-swap2", "-swap1"] {
            let r = swap_run(&p, &c, "2", &[rule, "-repeat", "-log"]);
            for g in &r.games {
                assert!(g["swap"].get("unsupported").is_none(), "{rule}: {g}");
                played_out(g);
                // The strict engine's answers to stones came in BOARD's form.
                for s in g["swap"]["steps"].as_array().unwrap() {
                    let by = s["by"].as_str().unwrap();
                    let engine = match (g["game"].as_u64(), by) {
                        (Some(1), "proposer") | (Some(2), "chooser") => &p,
                        _ => &c,
                    };
                    let asked_stones = by == "chooser" || g["swap"]["steps"][0] != *s;
                    let board = engine.ends_with("--strict") && asked_stones;
                    assert_eq!(s.get("form").is_some(), board, "{rule}: {s} in {g}");
                }
            }
            let log = std::fs::read_to_string(r.dir.path().join("gomoku-cli.1.log")).unwrap();
            assert!(
                log.contains("takes SWAP2BOARD in the board form (x,y,c lines)"),
                "{log}"
            );
            // Its ERROR lines for the x,y form were drained, never read as an answer.
            assert!(
                log.contains("late line after SWAP2BOARD (3 stones), ignored:"),
                "{log}"
            );
        }
    }
}

#[test]
fn engines_asked_in_a_swap_that_failed_start_afresh_before_the_game() {
    // The strict proposer keeps its three stones; the chooser answers UNKNOWN to the command and
    // to each of its lines. Both are drained and restarted before the ordinary game, so the
    // proposer's BEGIN meets an empty board and no stray UNKNOWN is read as an answer.
    let r = swap_run(
        &strict(1),
        &faulty("--swap-unknown"),
        "2",
        &["-swap2", "-log"],
    );
    for g in &r.games {
        // Game 1: P proposes and C refuses; game 2: C refuses to propose.
        let (by, black) = match g["game"].as_u64() {
            Some(1) => ("chooser", "P"),
            _ => ("proposer", "C"),
        };
        assert_eq!(g["swap"]["unsupported"]["by"], by, "{g}");
        assert_eq!(g["black"], black);
        played_out(g);
    }
    let log = std::fs::read_to_string(r.dir.path().join("gomoku-cli.1.log")).unwrap();
    assert!(!log.contains("Board is not empty"), "{log}");
}
