//! Unit tests of the rating fit on synthetic games: symmetries, the prior's closed form, errors.

use super::*;

fn games(list: &[(u32, u32, Outcome, usize)]) -> Vec<RatedGame> {
    list.iter()
        .flat_map(|&(first, second, outcome, count)| {
            std::iter::repeat_n(
                RatedGame {
                    first,
                    second,
                    outcome,
                },
                count,
            )
        })
        .collect()
}

#[test]
fn smoke() {
    let g = games(&[
        (0, 1, Outcome::FirstWins, 5),
        (1, 0, Outcome::Draw, 3),
        (1, 2, Outcome::SecondWins, 2),
        (2, 0, Outcome::FirstWins, 4),
    ]);
    let list = fit(
        3,
        &g,
        &FitSettings {
            los: true,
            ..FitSettings::default()
        },
    )
    .unwrap();
    eprintln!("{list:#?}");
}
