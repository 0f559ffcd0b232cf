//! pbrain-random over stdin/stdout: the command flows of the protocol, and legal play in many
//! refereed games for every rule and several board sizes.

use std::time::Duration;

use gomoku_cli::core::board::{BoardSize, Pos};
use gomoku_cli::core::rules::Rule;
use pbrain_kit::harness::{play_game, start_game, EngineProcess, GameEnd};
use pbrain_kit::parse_xy;

const BIN: &str = env!("CARGO_BIN_EXE_pbrain-random");
/// Generous: the engine answers in microseconds.
const T: Duration = Duration::from_secs(10);

fn spawn(seed: u64) -> EngineProcess {
    EngineProcess::spawn(BIN, &["--seed", &seed.to_string()]).unwrap()
}

fn answer(e: &mut EngineProcess) -> String {
    e.recv_answer(T).expect("an answer")
}

fn move_of(e: &mut EngineProcess, size: u8) -> Pos {
    let a = answer(e);
    let (x, y) = parse_xy(&a).unwrap_or_else(|| panic!("not a move: {a:?}"));
    assert!(
        (0..size as i64).contains(&x) && (0..size as i64).contains(&y),
        "{a}"
    );
    Pos::new(x as u8, y as u8)
}

#[test]
fn start_about_sizes_and_end() {
    let mut e = spawn(1);
    e.send("ABOUT").unwrap();
    let about = answer(&mut e);
    assert!(
        about.starts_with("name=\"pbrain-random\", version=\""),
        "{about}"
    );
    for bad in ["START 4", "START 33", "START x", "RECTSTART 10,12"] {
        e.send(bad).unwrap();
        assert!(answer(&mut e).starts_with("ERROR"), "{bad}");
    }
    for good in ["START 5", "START 32", "RECTSTART 20,20", "START 15"] {
        e.send(good).unwrap();
        assert_eq!(answer(&mut e), "OK", "{good}");
    }
    e.send("YXSHOWINFO").unwrap();
    assert!(answer(&mut e).starts_with("UNKNOWN"));
    e.send("END").unwrap();
    let st = e.wait_exit(T).expect("exits after END");
    assert!(st.success());
}

#[test]
fn begin_turn_board_takeback_restart() {
    let mut e = spawn(2);
    e.send("START 15").unwrap();
    assert_eq!(answer(&mut e), "OK");
    e.send("INFO timeout_turn 1000").unwrap();
    e.send("INFO rule 1").unwrap();
    e.send("INFO something_new 42").unwrap();
    e.send("BEGIN").unwrap();
    let first = move_of(&mut e, 15);
    // Opponent plays next to it; the answer must avoid both stones.
    let opp = Pos::new((first.x + 1) % 15, first.y);
    e.send(&format!("TURN {},{}", opp.x, opp.y)).unwrap();
    let second = move_of(&mut e, 15);
    assert!(second != first && second != opp);
    e.send(&format!("TAKEBACK {},{}", second.x, second.y))
        .unwrap();
    assert_eq!(answer(&mut e), "OK");
    e.send("RESTART").unwrap();
    assert_eq!(answer(&mut e), "OK");
    // A crowded BOARD: every point but two is taken; the answer must be one of the two.
    e.send("BOARD").unwrap();
    let free = [Pos::new(3, 4), Pos::new(10, 11)];
    let mut f = 1;
    for p in BoardSize::STANDARD.all().filter(|p| !free.contains(p)) {
        e.send(&format!("{},{},{f}", p.x, p.y)).unwrap();
        f = 3 - f;
    }
    e.send("DONE").unwrap();
    let m = move_of(&mut e, 15);
    assert!(free.contains(&m), "{m}");
    e.send("END").unwrap();
    assert!(e.wait_exit(T).is_some());
}

#[test]
fn tolerates_lf_cr_and_blank_lines() {
    let mut e = spawn(3);
    e.send_raw(b"START 10\n\nINFO rule 0\rBEGIN\n").unwrap();
    assert_eq!(answer(&mut e), "OK");
    move_of(&mut e, 10);
    e.send_raw(b"TURN 0,0  \r\n").unwrap();
    let m = move_of(&mut e, 10);
    assert_ne!(m, Pos::new(0, 0));
    // End of input also ends the engine.
    e.close_stdin();
    assert!(e.wait_exit(T).is_some());
}

#[test]
fn same_seed_same_moves() {
    let moves = |seed| {
        let mut e = spawn(seed);
        e.send("START 15").unwrap();
        answer(&mut e);
        e.send("BEGIN").unwrap();
        let mut v = vec![move_of(&mut e, 15)];
        let mut taken = v.clone();
        for _ in 0..5 {
            let t = BoardSize::STANDARD
                .all()
                .find(|p| !taken.contains(p))
                .unwrap();
            e.send(&format!("TURN {},{}", t.x, t.y)).unwrap();
            let m = move_of(&mut e, 15);
            taken.extend([t, m]);
            v.push(m);
        }
        v
    };
    assert_eq!(moves(7), moves(7));
    assert_ne!(moves(7), moves(8));
}

/// Random against random in every rule on several sizes: nobody ever plays an occupied,
/// off-board or (for black in renju, once the library detects them) forbidden point.
#[test]
fn legal_moves_in_many_games_for_every_rule() {
    let mut black = spawn(11);
    let mut white = spawn(12);
    let mut games = 0;
    for rule in Rule::ALL {
        for n in [5u32, 9, 15, 20, 32] {
            let size = BoardSize::new(n).unwrap();
            let reps = if rule == Rule::Renju { 8 } else { 3 };
            for _ in 0..reps {
                start_game(&mut black, size, rule, &[("timeout_turn", "1000")]).unwrap();
                start_game(&mut white, size, rule, &[]).unwrap();
                let rec = play_game(&mut black, &mut white, rule, size, &[], T).unwrap();
                assert!(
                    !matches!(rec.end, GameEnd::Loss { .. }),
                    "{rule} {n}x{n}: {:?} after {:?}",
                    rec.end,
                    rec.moves
                );
                games += 1;
            }
        }
    }
    assert_eq!(games, 4 * 5 * 3 + 5 * 8);
    black.finish();
    white.finish();
}

/// Black stones making (7,7) a double three; white stones out of the way. Black to move.
const DOUBLE_THREE_BOARD: [&str; 8] = [
    "7,5,1", "9,9,2", "7,6,1", "9,10,2", "5,7,1", "10,9,2", "6,7,1", "10,10,2",
];

/// How often black answers the double-three point (7,7) over `trials` fresh positions.
fn double_three_hits(rule: Rule, trials: usize) -> usize {
    let mut e = spawn(21);
    e.send("START 15").unwrap();
    assert_eq!(answer(&mut e), "OK");
    e.send(&format!("INFO rule {}", rule.code())).unwrap();
    let mut hits = 0;
    for _ in 0..trials {
        e.send("RESTART").unwrap();
        assert_eq!(answer(&mut e), "OK");
        e.send("BOARD").unwrap();
        for l in DOUBLE_THREE_BOARD {
            e.send(l).unwrap();
        }
        e.send("DONE").unwrap();
        if move_of(&mut e, 15) == Pos::new(7, 7) {
            hits += 1;
        }
    }
    hits
}

#[test]
fn renju_black_never_plays_a_forbidden_point() {
    let size = BoardSize::STANDARD;
    let mut r = gomoku_cli::core::rules::Referee::new(Rule::Renju, size);
    for l in DOUBLE_THREE_BOARD {
        let (x, y) = parse_xy(l.rsplit_once(',').unwrap().0).unwrap();
        r.play_xy(x, y);
    }
    let forbidden = r.forbidden_at(Pos::new(7, 7)).is_some();
    if !forbidden {
        eprintln!("the library does not detect renju forbidden points yet: renju check skipped");
    }
    // The same trials reach (7,7) when it is allowed, so the renju result means something.
    assert!(double_three_hits(Rule::Freestyle, 400) > 0);
    if forbidden {
        assert_eq!(double_three_hits(Rule::Renju, 400), 0);
    }
}
