//! Playing strength of pbrain-scout, measured in refereed games: against pbrain-random, and a
//! deeper search against a shallower one from varied openings.

use std::time::{Duration, Instant};

use gomoku_cli::core::board::{BoardSize, Color, Pos};
use gomoku_cli::core::rules::{MoveOutcome, Referee, Rule};
use pbrain_kit::harness::{play_game, start_game, EngineProcess, GameEnd, LocalEngine, Player};
use pbrain_kit::{random_legal_move, Brain, GameState};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SCOUT: &str = env!("CARGO_BIN_EXE_pbrain-scout");
/// Generous: a move normally takes milliseconds.
const TIMEOUT: Duration = Duration::from_secs(20);
/// pbrain-random's brain, run in the test process (the binary belongs to another package).
struct RandomBrain(ChaCha8Rng);

impl Brain for RandomBrain {
    fn about(&self) -> String {
        "name=\"random\"".into()
    }

    fn choose(&mut self, state: &GameState) -> Option<Pos> {
        random_legal_move(state, &mut self.0)
    }
}

/// One side of a match.
enum Side<'a> {
    Scout(&'a [&'a str]),
    Random(u64),
}

impl Side<'_> {
    fn spawn(&self) -> Box<dyn Player> {
        match self {
            Side::Scout(args) => Box::new(EngineProcess::spawn(SCOUT, args).unwrap()),
            Side::Random(seed) => Box::new(LocalEngine::new(RandomBrain(
                ChaCha8Rng::seed_from_u64(*seed),
            ))),
        }
    }
}

/// A random opening of `stones` stones in the 5x5 centre, with no five and no forbidden point.
fn opening(rng: &mut ChaCha8Rng, size: BoardSize, rule: Rule, stones: usize) -> Vec<Pos> {
    let c = size.get() as i64 / 2;
    let mut r = Referee::new(rule, size);
    let mut moves = Vec::new();
    while moves.len() < stones {
        let p = Pos::new(
            (c + rng.gen_range(-2..=2)) as u8,
            (c + rng.gen_range(-2..=2)) as u8,
        );
        if r.board().is_empty_at(p) && r.play(p) == MoveOutcome::Continue {
            moves.push(p);
        }
    }
    moves
}

/// Results of `games` games between two commands, alternating colours; returns (a wins, b wins, draws).
fn match_up(
    a: Side,
    b: Side,
    rule: Rule,
    games: usize,
    opening_stones: usize,
    seed: u64,
) -> (usize, usize, usize) {
    let size = BoardSize::STANDARD;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut ea = a.spawn();
    let mut eb = b.spawn();
    let (mut wa, mut wb, mut draws) = (0, 0, 0);
    for g in 0..games {
        let open = opening(&mut rng, size, rule, opening_stones);
        start_game(ea.as_mut(), size, rule, &[]).unwrap();
        start_game(eb.as_mut(), size, rule, &[]).unwrap();
        let a_black = g % 2 == 0;
        let rec = if a_black {
            play_game(ea.as_mut(), eb.as_mut(), rule, size, &open, TIMEOUT).unwrap()
        } else {
            play_game(eb.as_mut(), ea.as_mut(), rule, size, &open, TIMEOUT).unwrap()
        };
        if let GameEnd::Loss { loser, why } = &rec.end {
            // Nobody may lose by breaking the rules or the protocol.
            panic!("game {g}: {loser} lost by {why}; moves {:?}", rec.moves);
        }
        match rec.winner() {
            Some(c) if (c == Color::Black) == a_black => wa += 1,
            Some(_) => wb += 1,
            None => draws += 1,
        }
    }
    let _ = ea.send("END");
    let _ = eb.send("END");
    (wa, wb, draws)
}

#[test]
fn scout_beats_random_in_at_least_95_percent_of_games() {
    let t = Instant::now();
    let mut scout_wins = 0;
    let mut total = 0;
    // 40 games over the rules, a fixed low depth so the test stays quick.
    for (i, rule) in [
        Rule::Freestyle,
        Rule::ExactFive,
        Rule::Renju,
        Rule::Caro,
        Rule::StandardCaro,
    ]
    .into_iter()
    .enumerate()
    {
        let (w, l, d) = match_up(
            Side::Scout(&["--depth", "2"]),
            Side::Random(100 + i as u64),
            rule,
            8,
            0,
            i as u64,
        );
        eprintln!("{rule}: scout {w} random {l} draws {d}");
        scout_wins += w;
        total += w + l + d;
    }
    eprintln!(
        "scout (depth 2) vs random: {scout_wins}/{total} in {:?}",
        t.elapsed()
    );
    assert!(scout_wins * 100 >= total * 95, "{scout_wins}/{total}");
}

/// Depth 4 against depth 2 from random openings. `SCOUT_DEPTH_GAMES` sets the number of games.
#[test]
fn deeper_search_is_stronger() {
    let games: usize = std::env::var("SCOUT_DEPTH_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let depth = |name: &str, default: u32| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
            .to_string()
    };
    let (deep_depth, shallow_depth) = (depth("SCOUT_DEEP", 4), depth("SCOUT_SHALLOW", 2));
    let t = Instant::now();
    let (deep, shallow, draws) = match_up(
        Side::Scout(&["--depth", &deep_depth]),
        Side::Scout(&["--depth", &shallow_depth]),
        Rule::Freestyle,
        games,
        3,
        7,
    );
    eprintln!(
        "depth {deep_depth} vs depth {shallow_depth}: {deep} wins, {shallow} losses, {draws} draws in {:?}",
        t.elapsed()
    );
    assert!(deep > 2 * shallow, "depth 4 {deep} vs depth 2 {shallow}");
}
