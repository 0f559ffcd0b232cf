//! Unit tests of the rating fit on synthetic games: symmetries, the prior's closed form for two
//! players, the exactdist window against the whole grid, unrated players, errors. Agreement with
//! BayesElo itself is `tests/it/ratings_bayeselo.rs`.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::condense::Condensed;
use super::*;

fn game(first: u32, second: u32, outcome: Outcome) -> RatedGame {
    RatedGame {
        first,
        second,
        outcome,
    }
}

/// `count` copies of each `(first, second, outcome)`.
fn games(list: &[(u32, u32, Outcome, usize)]) -> Vec<RatedGame> {
    list.iter()
        .flat_map(|&(f, s, o, count)| std::iter::repeat_n(game(f, s, o), count))
        .collect()
}

/// `n` players, `count` games between random pairs with random colours, results drawn from the
/// model with advantage 50 and draw Elo 80.
fn random_games(n: u32, count: usize, seed: u64) -> Vec<RatedGame> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let strength: Vec<f64> = (0..n).map(|_| rng.gen_range(-300.0..300.0)).collect();
    (0..count)
        .map(|_| {
            let f = rng.gen_range(0..n);
            let s = (f + rng.gen_range(1..n)) % n;
            let delta = strength[f as usize] - strength[s as usize];
            game(f, s, Outcome::at_quantile(rng.gen(), delta, 50.0, 80.0))
        })
        .collect()
}

fn swap_colours(games: &[RatedGame]) -> Vec<RatedGame> {
    games
        .iter()
        .map(|g| {
            let outcome = match g.outcome {
                Outcome::FirstWins => Outcome::SecondWins,
                Outcome::SecondWins => Outcome::FirstWins,
                Outcome::Draw => Outcome::Draw,
            };
            game(g.second, g.first, outcome)
        })
        .collect()
}

fn assert_same_players(a: &RatingList, b: &RatingList, tolerance: f64) {
    for (pa, pb) in a.players.iter().zip(&b.players) {
        for (x, y) in [
            (pa.elo, pb.elo),
            (pa.minus, pb.minus),
            (pa.plus, pb.plus),
            (pa.opponent, pb.opponent),
        ] {
            assert!((x - y).abs() <= tolerance, "{pa:?} against {pb:?}");
        }
        assert_eq!(
            (pa.games, pa.score, pa.draws),
            (pb.games, pb.score, pb.draws)
        );
    }
}

#[test]
fn swapping_colours_with_the_advantage_negated_changes_nothing() {
    let g = random_games(12, 3000, 1);
    let swapped = swap_colours(&g);
    let fixed = |advantage| FitSettings {
        advantage: Parameter::Fixed(advantage),
        drawelo: Parameter::Fixed(80.0),
        los: true,
        ..FitSettings::default()
    };
    let a = fit(12, &g, &fixed(50.0)).unwrap();
    let b = fit(12, &swapped, &fixed(-50.0)).unwrap();
    assert_same_players(&a, &b, 1e-6);
    let (la, lb) = (a.los.unwrap(), b.los.unwrap());
    for (ra, rb) in la.iter().zip(&lb) {
        for (x, y) in ra.iter().zip(rb) {
            assert!((x - y).abs() < 1e-9);
        }
    }
    // Estimated, the advantage comes out with the opposite sign and the ratings the same, to the
    // tolerance MM stops at (its update of the advantage is not the mirror of itself, so the two
    // fits take different paths).
    let a = fit(12, &g, &FitSettings::default()).unwrap();
    let b = fit(12, &swapped, &FitSettings::default()).unwrap();
    assert!(a.advantage > 20.0, "{}", a.advantage);
    assert!(
        (a.advantage + b.advantage).abs() < 0.05,
        "{} {}",
        a.advantage,
        b.advantage
    );
    assert!((a.drawelo - b.drawelo).abs() < 0.05);
    assert_same_players(&a, &b, 0.05);
}

#[test]
fn renumbering_players_moves_their_lines_only() {
    let g = random_games(10, 2000, 2);
    // Player k becomes 9 - k: the sweep order changes, so equality holds to MM's tolerance only.
    let renumbered: Vec<RatedGame> = g
        .iter()
        .map(|x| game(9 - x.first, 9 - x.second, x.outcome))
        .collect();
    let a = fit(10, &g, &FitSettings::default()).unwrap();
    let b = fit(10, &renumbered, &FitSettings::default()).unwrap();
    let mut b_back = b.clone();
    b_back.players.reverse();
    assert_same_players(&a, &b_back, 0.05);
    let ranked: Vec<usize> = b.ranking().into_iter().map(|k| 9 - k).collect();
    assert_eq!(a.ranking(), ranked);
}

/// Two players, advantage 0, draw parameter `theta = 10^(drawelo/400)`: with `w` wins of A, no
/// loss and `d` draws (the prior's), the likelihood's maximum is at `r = gamma_A / gamma_B`, the
/// positive root of `d r² - w θ r - (w + d) = 0`.
#[test]
fn the_prior_gives_two_players_the_closed_form_gap() {
    for (wins, prior, drawelo) in [
        (1, 2.0, 0.01),
        (3, 2.0, 100.0),
        (5, 0.5, 40.0),
        (4, 6.0, 0.0),
    ] {
        let g = games(&[
            (0, 1, Outcome::FirstWins, wins / 2),
            (1, 0, Outcome::SecondWins, wins - wins / 2),
        ]);
        let settings = FitSettings {
            advantage: Parameter::Fixed(0.0),
            drawelo: Parameter::Fixed(drawelo),
            prior,
            ..FitSettings::default()
        };
        let list = fit(2, &g, &settings).unwrap();
        let (w, d, theta) = (wins as f64, prior, 10f64.powf(drawelo / 400.0));
        let r = (w * theta + (w * w * theta * theta + 4.0 * d * (w + d)).sqrt()) / (2.0 * d);
        let expected = 400.0 * r.log10();
        let gap = (list.players[0].elo - list.players[1].elo) / list.scale;
        assert!(
            (gap - expected).abs() < 0.01,
            "{wins} wins, prior {prior}, drawelo {drawelo}: {gap} against {expected}"
        );
        assert_eq!(list.players[0].score, w);
        assert_eq!(list.players[1].draws, 0);
    }
}

#[test]
fn the_scale_is_bayeselos() {
    let g = random_games(6, 500, 3);
    let settings = FitSettings {
        drawelo: Parameter::Fixed(100.0),
        ..FitSettings::default()
    };
    let list = fit(6, &g, &settings).unwrap();
    let x = 10f64.powf(-100.0 / 400.0);
    assert!((list.scale - 4.0 * x / ((1.0 + x) * (1.0 + x))).abs() < 1e-15);
    assert_eq!(list.drawelo, 100.0);
    // Mean 0 before the offset: the scaled ratings average to the offset.
    let shifted = fit(
        6,
        &g,
        &FitSettings {
            offset: 1600.0,
            ..settings
        },
    )
    .unwrap();
    let mean = shifted.players.iter().map(|p| p.elo).sum::<f64>() / 6.0;
    assert!((mean - 1600.0).abs() < 1e-9, "{mean}");
}

#[test]
fn the_window_gives_the_bounds_of_the_whole_grid() {
    for (n, count, seed) in [(5, 100, 4), (30, 20_000, 5), (3, 12, 6)] {
        let g = random_games(n, count, seed);
        let settings = FitSettings::default();
        let data = Condensed::new(n as usize, &g, settings.prior).unwrap();
        let model = mm::maximize(&data, &settings).unwrap();
        let window = exactdist::error_bars(&data, &model, 0.95, exactdist::CUTOFF, true);
        let whole = exactdist::error_bars(&data, &model, 0.95, f64::INFINITY, true);
        // Ratings well inside BayesElo's grid: going on past it changes nothing.
        let wide = exactdist::error_bars(&data, &model, 0.95, exactdist::CUTOFF, false);
        assert_eq!(window, wide);
        for (a, b) in window.iter().zip(&whole) {
            assert!(
                (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9,
                "{a:?} {b:?}"
            );
        }
    }
}

#[test]
fn a_player_without_games_is_listed_at_the_mean_and_changes_nothing() {
    let g = random_games(4, 400, 7);
    // Ids 0..4 become 0, 1, 3, 4: id 2 never plays.
    let spread: Vec<RatedGame> = g
        .iter()
        .map(|x| {
            let id = |k: u32| if k >= 2 { k + 1 } else { k };
            game(id(x.first), id(x.second), x.outcome)
        })
        .collect();
    let settings = FitSettings {
        offset: 1600.0,
        los: true,
        ..FitSettings::default()
    };
    let a = fit(4, &g, &settings).unwrap();
    let b = fit(5, &spread, &settings).unwrap();
    let mut rated = b.clone();
    rated.players.remove(2);
    assert_same_players(&a, &rated, 1e-9);
    let idle = &b.players[2];
    assert_eq!(
        (idle.games, idle.elo, idle.minus, idle.plus),
        (0, 1600.0, 0.0, 0.0)
    );
    assert_eq!(b.ranking().last(), Some(&2));
    let los = b.los.as_ref().unwrap();
    assert_eq!((los[2][0], los[0][2], los[2][2]), (0.5, 0.5, 0.0));
    let names: Vec<String> = ["a", "b", "a-much-longer-name", "c", "d"]
        .map(String::from)
        .to_vec();
    let table = render_table(&names, &b, 1);
    assert!(!table.contains("a-much"), "{table}");
    assert!(table.starts_with("Rank Name   Elo"), "{table}");
    assert!(!render_los(&names, &b, 4).contains("a-m"));
}

#[test]
fn the_likelihood_of_superiority_is_a_probability_pair() {
    let g = random_games(8, 800, 8);
    let list = fit(
        8,
        &g,
        &FitSettings {
            los: true,
            ..FitSettings::default()
        },
    )
    .unwrap();
    let los = list.los.unwrap();
    for (i, row) in los.iter().enumerate() {
        assert_eq!(row[i], 0.0);
        for (j, &p) in row.iter().enumerate() {
            if i != j {
                assert!((p + los[j][i] - 1.0).abs() < 1e-12);
                let higher = list.players[i].elo > list.players[j].elo;
                assert_eq!(p > 0.5, higher);
            }
        }
    }
}

#[test]
fn bad_games_and_settings_are_refused() {
    let ok = games(&[(0, 1, Outcome::Draw, 1)]);
    assert_eq!(
        fit(1, &ok, &FitSettings::default()),
        Err(RatingError::PlayerId {
            game: 0,
            id: 1,
            players: 1
        })
    );
    let own = [game(0, 1, Outcome::Draw), game(1, 1, Outcome::Draw)];
    assert_eq!(
        fit(2, &own, &FitSettings::default()),
        Err(RatingError::SelfGame { game: 1, id: 1 })
    );
    assert_eq!(
        fit(3, &[], &FitSettings::default()),
        Err(RatingError::NoGames)
    );
    let apart = games(&[(0, 1, Outcome::Draw, 2), (2, 3, Outcome::FirstWins, 2)]);
    assert_eq!(
        fit(4, &apart, &FitSettings::default()),
        Err(RatingError::Disconnected {
            first: 0,
            second: 2
        })
    );
    for (settings, name) in [
        (
            FitSettings {
                prior: -1.0,
                ..FitSettings::default()
            },
            "prior",
        ),
        (
            FitSettings {
                confidence: 1.0,
                ..FitSettings::default()
            },
            "confidence",
        ),
        (
            FitSettings {
                drawelo: Parameter::Fixed(f64::NAN),
                ..FitSettings::default()
            },
            "drawelo",
        ),
    ] {
        match fit(2, &ok, &settings) {
            Err(RatingError::Setting { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn without_a_prior_a_perfect_score_is_refused_not_infinite() {
    let no_prior = |advantage, drawelo| FitSettings {
        prior: 0.0,
        advantage,
        drawelo,
        ..FitSettings::default()
    };
    let held = no_prior(Parameter::Fixed(0.0), Parameter::Fixed(50.0));
    // Player 2 beats both others, who drew each other: its rating has no finite maximum.
    let top = games(&[
        (2, 0, Outcome::FirstWins, 3),
        (1, 2, Outcome::SecondWins, 3),
        (0, 1, Outcome::Draw, 2),
    ]);
    assert!(matches!(
        fit(3, &top, &held),
        Err(RatingError::Unbounded { .. })
    ));
    // The same with one point taken from player 2 is fine, and finite.
    let mut close = top.clone();
    close.push(game(0, 2, Outcome::Draw));
    let list = fit(3, &close, &held).unwrap();
    assert!(list.players.iter().all(|p| p.elo.is_finite()));
    // With the prior, a perfect score is rated.
    assert!(fit(3, &top, &FitSettings::default()).is_ok());
    // Estimated parameters with nothing on one side.
    let first_always_wins = games(&[(0, 1, Outcome::FirstWins, 2), (1, 0, Outcome::FirstWins, 2)]);
    assert_eq!(
        fit(
            2,
            &first_always_wins,
            &no_prior(Parameter::Estimate, Parameter::Fixed(50.0))
        ),
        Err(RatingError::UnboundedParameter {
            parameter: "advantage"
        })
    );
    let all_drawn = games(&[(0, 1, Outcome::Draw, 2), (1, 0, Outcome::Draw, 2)]);
    assert_eq!(
        fit(
            2,
            &all_drawn,
            &no_prior(Parameter::Fixed(0.0), Parameter::Estimate)
        ),
        Err(RatingError::UnboundedParameter {
            parameter: "draw Elo"
        })
    );
}

#[test]
fn game_counts_print_as_cpp_prints_a_float() {
    let list = RatingList {
        advantage: 0.0,
        drawelo: 0.0,
        scale: 1.0,
        offset: 0.0,
        players: [999_999, 1_000_000, 1_234_567]
            .iter()
            .enumerate()
            .map(|(k, &games)| PlayerRating {
                elo: 10.0 - k as f64,
                minus: 0.0,
                plus: 0.0,
                games,
                score: games as f64 / 2.0,
                draws: 0,
                opponent: 0.0,
            })
            .collect(),
        los: None,
        iterations: 0,
    };
    let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    let table = render_table(&names, &list, 1);
    let counts: Vec<&str> = table
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().nth(5).unwrap())
        .collect();
    assert_eq!(counts, ["999999", "1e+06", "1.23457e+06"]);
    assert_eq!(render_los(&names, &list, 4), "");
}

/// A rating past BayesElo's grid (an engine far above the field, as Gomocup's freestyle leaders
/// are): on BayesElo's grid its upper bar is cut short, even negative, as BayesElo prints it; the
/// grid that goes on gives a true one, and the same bars to everyone inside the grid.
#[test]
fn a_rating_past_bayeselo_s_grid_gets_a_true_bar_unless_asked_for_bayeselo_s() {
    // A ladder of 7: each player beats the next in 97 games of 100 (about 600 Elo a rung), so
    // the top and the bottom lie past the grid's ±1500 from the mean.
    let mut games = Vec::new();
    for p in 0..6u32 {
        for g in 0..100 {
            let outcome = if g < 3 {
                Outcome::SecondWins
            } else {
                Outcome::FirstWins
            };
            let (first, second) = if g % 2 == 0 { (p, p + 1) } else { (p + 1, p) };
            let outcome = match (first == p, outcome) {
                (true, o) => o,
                (false, Outcome::FirstWins) => Outcome::SecondWins,
                (false, _) => Outcome::FirstWins,
            };
            games.push(RatedGame {
                first,
                second,
                outcome,
            });
        }
    }
    let settings = FitSettings {
        advantage: Parameter::Fixed(0.0),
        drawelo: Parameter::Fixed(0.01),
        ..FitSettings::default()
    };
    let wide = fit(7, &games, &settings).unwrap();
    let cut = fit(
        7,
        &games,
        &FitSettings {
            bayeselo_grid: true,
            ..settings
        },
    )
    .unwrap();
    let (top, bottom) = (&wide.players[0], &wide.players[6]);
    assert!(
        top.elo > 1500.0 && bottom.elo < -1500.0,
        "{top:?} {bottom:?}"
    );
    // Symmetric ladder, symmetric bars, all positive.
    assert!(top.plus > 0.0 && top.minus > 0.0, "{top:?}");
    assert!((top.plus - bottom.minus).abs() < 0.5, "{top:?} {bottom:?}");
    assert!(
        cut.players[0].plus < top.plus - 10.0,
        "{:?}",
        cut.players[0]
    );
    assert!(
        cut.players[6].minus < bottom.minus - 10.0,
        "{:?}",
        cut.players[6]
    );
    assert_eq!(wide.players[1..6], cut.players[1..6]);
}
