//! Property tests for the referee: symmetry invariance of forbidden points and wins, agreement of
//! the fast renju check with a slow, independently formulated one, and random games under every
//! rule that the referee must judge consistently.

use gomoku_cli::core::board::{Board, BoardSize, Color, Pos, Symmetry};
use gomoku_cli::core::rules::{
    forbidden_kind, forbidden_points, standing_winner, winning_line, ForbiddenKind, MoveOutcome,
    Referee, Rule, DIRECTIONS,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random position: `stones` stones at random points, black with probability `black_pct`%.
/// Black-heavy dense positions are where forbidden points live.
fn random_board(size: u32, seed: u64, fill_pct: u32, black_pct: u32) -> Board {
    let size = BoardSize::new(size).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut b = Board::new(size);
    for p in size.all() {
        if rng.gen_range(0..100) < fill_pct {
            let c = if rng.gen_range(0..100) < black_pct {
                Color::Black
            } else {
                Color::White
            };
            b.put(p, c);
        }
    }
    b
}

// ---------------------------------------------------------------------------------------------
// A slow reference referee. It counts fours as distinct *sets of four stones* that one more stone
// turns into an exact five (so a straight four, completable at two ends, is one four), instead of
// the fast check's completion points and run lengths, and copies the board for every hypothesis.

fn black_at(b: &Board, x: i64, y: i64) -> bool {
    b.at(x, y) == Some(Color::Black)
}

fn empty_at(b: &Board, x: i64, y: i64) -> bool {
    b.size().contains(x, y) && b.at(x, y).is_none()
}

/// Black run length through (x, y) along d, (x, y) itself assumed black.
fn run_len(b: &Board, x: i64, y: i64, (dx, dy): (i64, i64)) -> usize {
    let mut n = 1;
    let mut k = 1;
    while black_at(b, x + k * dx, y + k * dy) {
        n += 1;
        k += 1;
    }
    k = 1;
    while black_at(b, x - k * dx, y - k * dy) {
        n += 1;
        k += 1;
    }
    n
}

/// The distinct four-stone sets on line d that contain (x, y) (already black on `b`).
fn fours_on_line(b: &Board, x: i64, y: i64, d: (i64, i64)) -> Vec<Vec<(i64, i64)>> {
    let mut sets: Vec<Vec<(i64, i64)>> = Vec::new();
    for start in -4..=0i64 {
        let cells: Vec<(i64, i64)> = (0..5)
            .map(|i| (x + (start + i) * d.0, y + (start + i) * d.1))
            .collect();
        let empties: Vec<&(i64, i64)> = cells.iter().filter(|c| empty_at(b, c.0, c.1)).collect();
        let blacks: Vec<(i64, i64)> = cells
            .iter()
            .copied()
            .filter(|c| black_at(b, c.0, c.1))
            .collect();
        if blacks.len() != 4 || empties.len() != 1 {
            continue;
        }
        // Filling the gap must give exactly five: the cells just outside the window are not black.
        let before = (cells[0].0 - d.0, cells[0].1 - d.1);
        let after = (cells[4].0 + d.0, cells[4].1 + d.1);
        if black_at(b, before.0, before.1) || black_at(b, after.0, after.1) {
            continue;
        }
        if !sets.contains(&blacks) {
            sets.push(blacks);
        }
    }
    sets
}

/// Whether the four-stone set `s` on line d can be completed at two different points.
fn is_straight(b: &Board, s: &[(i64, i64)], d: (i64, i64)) -> bool {
    let (x, y) = s[0];
    let mut ends = 0;
    for start in -4..=0i64 {
        let cells: Vec<(i64, i64)> = (0..5)
            .map(|i| (x + (start + i) * d.0, y + (start + i) * d.1))
            .collect();
        if s.iter().all(|c| cells.contains(c))
            && cells.iter().filter(|c| empty_at(b, c.0, c.1)).count() == 1
        {
            let before = (cells[0].0 - d.0, cells[0].1 - d.1);
            let after = (cells[4].0 + d.0, cells[4].1 + d.1);
            if !black_at(b, before.0, before.1) && !black_at(b, after.0, after.1) {
                ends += 1;
            }
        }
    }
    ends >= 2
}

#[derive(Debug, PartialEq)]
enum Slow {
    Five,
    Legal,
    Forbidden(ForbiddenKind),
}

fn slow_judge(b: &Board, x: i64, y: i64) -> Slow {
    let mut with = b.clone();
    with.put(Pos::new(x as u8, y as u8), Color::Black);
    if DIRECTIONS.iter().any(|&d| run_len(&with, x, y, d) == 5) {
        return Slow::Five;
    }
    if DIRECTIONS.iter().any(|&d| run_len(&with, x, y, d) >= 6) {
        return Slow::Forbidden(ForbiddenKind::Overline);
    }
    let fours: Vec<usize> = DIRECTIONS
        .iter()
        .map(|&d| fours_on_line(&with, x, y, d).len())
        .collect();
    if fours.iter().sum::<usize>() >= 2 {
        return Slow::Forbidden(ForbiddenKind::DoubleFour);
    }
    let mut threes = 0;
    for (i, &d) in DIRECTIONS.iter().enumerate() {
        if fours[i] > 0 {
            continue;
        }
        let mut real = false;
        for k in (-4..=4i64).filter(|&k| k != 0) {
            let (qx, qy) = (x + k * d.0, y + k * d.1);
            if !empty_at(&with, qx, qy) {
                continue;
            }
            let mut w2 = with.clone();
            w2.put(Pos::new(qx as u8, qy as u8), Color::Black);
            let straight = fours_on_line(&w2, x, y, d)
                .iter()
                .any(|s| s.contains(&(qx, qy)) && is_straight(&w2, s, d));
            if straight && slow_judge(&with, qx, qy) == Slow::Legal {
                real = true;
                break;
            }
        }
        if real {
            threes += 1;
        }
    }
    if threes >= 2 {
        Slow::Forbidden(ForbiddenKind::DoubleThree)
    } else {
        Slow::Legal
    }
}

// ---------------------------------------------------------------------------------------------

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn fast_check_agrees_with_slow_reference(
        size in 5u32..=32,
        seed in any::<u64>(),
        fill in 20u32..=55,
        black in 50u32..=80,
    ) {
        let b = random_board(size, seed, fill, black);
        for p in b.size().all().filter(|&p| b.is_empty_at(p)) {
            let slow = slow_judge(&b, p.x as i64, p.y as i64);
            let want = match slow {
                Slow::Forbidden(k) => Some(k),
                _ => None,
            };
            prop_assert_eq!(forbidden_kind(&b, p), want, "point {} on\n{}", p, b);
        }
    }

    #[test]
    fn the_candidate_filter_never_hides_a_forbidden_point(
        size in 7u32..=20,
        seed in any::<u64>(),
        fill in 10u32..=70,
        black in 40u32..=90,
    ) {
        // forbidden_points checks only the points could_be_forbidden lets through; every point
        // checked one by one must give the same list.
        let b = random_board(size, seed, fill, black);
        let all: Vec<(Pos, ForbiddenKind)> = b
            .size()
            .all()
            .filter(|&p| b.is_empty_at(p))
            .filter_map(|p| forbidden_kind(&b, p).map(|k| (p, k)))
            .collect();
        prop_assert_eq!(forbidden_points(&b, Rule::Renju), all, "on\n{}", b);
    }

    #[test]
    fn forbidden_points_and_wins_are_symmetric(
        size in 5u32..=20,
        seed in any::<u64>(),
        fill in 15u32..=60,
        black in 45u32..=80,
    ) {
        let b = random_board(size, seed, fill, black);
        let s = b.size();
        let base = forbidden_points(&b, Rule::Renju);
        for sym in Symmetry::ALL {
            let t = b.transformed(sym);
            let mut mapped: Vec<(Pos, ForbiddenKind)> =
                base.iter().map(|&(p, k)| (sym.apply(p, s), k)).collect();
            mapped.sort();
            prop_assert_eq!(forbidden_points(&t, Rule::Renju), mapped, "{}", sym);
            for rule in Rule::ALL {
                // Random boards can hold fives of both colours; which one the scan meets first
                // depends on orientation, whether there is one does not.
                prop_assert_eq!(
                    standing_winner(&b, rule).is_some(),
                    standing_winner(&t, rule).is_some(),
                    "{} {}", rule, sym
                );
                for p in s.all() {
                    if let Some(c) = b.get(p) {
                        // Whether the stone wins is invariant; which line is reported first when it
                        // completes several is not (the scan order of directions changes).
                        let a = winning_line(&b, p, c, rule).is_some();
                        let z = winning_line(&t, sym.apply(p, s), c, rule).is_some();
                        prop_assert_eq!(a, z, "{} {} at {}", rule, sym, p);
                    }
                }
            }
        }
    }

    #[test]
    fn random_games_are_always_judged_consistently(
        size in 5u32..=20,
        seed in any::<u64>(),
        rule_index in 0usize..5,
    ) {
        let rule = Rule::ALL[rule_index];
        let size = BoardSize::new(size).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut referee = Referee::new(rule, size);
        'game: loop {
            let mover = referee.side_to_move();
            let mut empties: Vec<Pos> =
                size.all().filter(|&p| referee.board().is_empty_at(p)).collect();
            prop_assert!(!empties.is_empty(), "game went on with a full board");
            loop {
                if empties.is_empty() {
                    // Every empty point is forbidden for black: nothing legal to play.
                    prop_assert_eq!(rule, Rule::Renju);
                    prop_assert_eq!(mover, Color::Black);
                    break 'game;
                }
                let p = empties.swap_remove(rng.gen_range(0..empties.len()));
                let before = referee.board().clone();
                match referee.play(p) {
                    MoveOutcome::Forbidden(kind) => {
                        prop_assert_eq!(rule, Rule::Renju);
                        prop_assert_eq!(mover, Color::Black);
                        prop_assert_eq!(forbidden_kind(&before, p), Some(kind));
                        prop_assert_eq!(referee.board(), &before, "forbidden move changed the board");
                        continue;
                    }
                    MoveOutcome::Illegal(k) => {
                        prop_assert!(false, "empty point {} judged illegal: {}", p, k);
                    }
                    MoveOutcome::Win { color, line } => {
                        prop_assert_eq!(color, mover);
                        prop_assert!(line.len() >= 5);
                        prop_assert!(line.contains(&p));
                        let b = referee.board();
                        prop_assert!(line.iter().all(|&q| b.get(q) == Some(mover)));
                        // Consecutive cells along one direction.
                        let step = (
                            line[1].x as i64 - line[0].x as i64,
                            line[1].y as i64 - line[0].y as i64,
                        );
                        prop_assert!(DIRECTIONS.contains(&step));
                        for w in line.windows(2) {
                            prop_assert_eq!(
                                (w[1].x as i64 - w[0].x as i64, w[1].y as i64 - w[0].y as i64),
                                step
                            );
                        }
                        if matches!(rule, Rule::ExactFive | Rule::StandardCaro)
                            || (rule == Rule::Renju && mover == Color::Black)
                        {
                            prop_assert_eq!(line.len(), 5);
                        }
                        prop_assert_eq!(standing_winner(b, rule).map(|w| w.0), Some(mover));
                        break 'game;
                    }
                    MoveOutcome::Draw => {
                        prop_assert!(referee.board().is_full());
                        prop_assert!(winning_line(referee.board(), p, mover, rule).is_none());
                        prop_assert_eq!(standing_winner(referee.board(), rule), None);
                        break 'game;
                    }
                    MoveOutcome::Continue => {
                        prop_assert!(!referee.board().is_full());
                        prop_assert_eq!(referee.board().get(p), Some(mover));
                        prop_assert!(winning_line(referee.board(), p, mover, rule).is_none());
                        continue 'game;
                    }
                }
            }
        }
    }
}

#[test]
fn slow_reference_knows_the_basic_shapes() {
    // Guards the oracle itself: a double-three, a one-line double-four, an overline, a five.
    let size = BoardSize::new(9).unwrap();
    let mk = |rows: [&str; 9]| {
        let mut b = Board::new(size);
        for (y, r) in rows.iter().enumerate() {
            for (x, ch) in r.chars().enumerate() {
                match ch {
                    'X' => {
                        b.put(Pos::new(x as u8, y as u8), Color::Black);
                    }
                    'O' => {
                        b.put(Pos::new(x as u8, y as u8), Color::White);
                    }
                    _ => {}
                }
            }
        }
        b
    };
    let e = ".........";
    let b = mk([e, e, e, "....X....", "....X....", "..XX.....", e, e, e]);
    assert_eq!(
        slow_judge(&b, 4, 5),
        Slow::Forbidden(ForbiddenKind::DoubleThree)
    );
    let b = mk([e, e, e, e, ".X.X.X.X.", e, e, e, e]);
    assert_eq!(
        slow_judge(&b, 4, 4),
        Slow::Forbidden(ForbiddenKind::DoubleFour)
    );
    let b = mk([e, e, e, e, ".XXX.XX..", e, e, e, e]);
    assert_eq!(
        slow_judge(&b, 4, 4),
        Slow::Forbidden(ForbiddenKind::Overline)
    );
    let b = mk([e, e, e, e, "XXXX.....", e, e, e, e]);
    assert_eq!(slow_judge(&b, 4, 4), Slow::Five);
    let b = mk([e, e, e, e, "OXX.X....", e, e, e, e]);
    assert_eq!(slow_judge(&b, 3, 4), Slow::Legal);
}
