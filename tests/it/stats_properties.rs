//! Property tests of the SPRT: the LLR never drops when the first engine wins one more game, it is
//! antisymmetric under swapping the engines, and the bounds behave as alpha and beta say.

use gomoku_cli::stats::{Pentanomial, Sprt, SprtModel, Verdict, Wld};
use proptest::prelude::*;

/// The exact GLR models. The Gsprt approximation is not monotone (see
/// `gsprt_approximation_is_not_monotone`), so the monotonicity properties exclude it.
fn exact_model() -> impl Strategy<Value = SprtModel> {
    prop_oneof![Just(SprtModel::Normalized), Just(SprtModel::Logistic)]
}

fn model() -> impl Strategy<Value = SprtModel> {
    prop_oneof![
        Just(SprtModel::Normalized),
        Just(SprtModel::Logistic),
        Just(SprtModel::Gsprt),
    ]
}

/// (elo0, elo1) with elo0 < elo1, in the range SPRT designs use.
fn hypotheses() -> impl Strategy<Value = (f64, f64)> {
    (-20.0f64..20.0, 0.25f64..20.0).prop_map(|(e0, w)| (e0, e0 + w))
}

fn sprt(model: SprtModel, (elo0, elo1): (f64, f64)) -> Sprt {
    Sprt::new(elo0, elo1, 0.05, 0.05, model).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-8 * (1.0 + a.abs().max(b.abs()))
}

proptest! {
    #[test]
    fn one_more_win_never_lowers_the_trinomial_llr(
        model in exact_model(),
        h in hypotheses(),
        w in 0u64..400, l in 0u64..400, d in 0u64..800,
    ) {
        let before = Wld::new(w, l, d);
        let after = Wld::new(w + 1, l, d);
        let s = sprt(model, h);
        let (a, b) = (s.llr_trinomial(&before), s.llr_trinomial(&after));
        prop_assert!(b >= a - 1e-9 * (1.0 + a.abs()), "{a} -> {b}");
    }

    #[test]
    fn one_more_won_pair_never_lowers_the_pentanomial_llr(
        model in exact_model(),
        h in hypotheses(),
        c in proptest::array::uniform5(0u64..300),
        cell in 0usize..4,
    ) {
        // Upgrading one pair by half a point (LL->LD, ..., WD->WW) is the pair analogue of
        // turning a game into a better result.
        prop_assume!(c[cell] > 0);
        let mut up = c;
        up[cell] -= 1;
        up[cell + 1] += 1;
        let s = sprt(model, h);
        let (a, b) = (s.llr_pentanomial(&Pentanomial(c)), s.llr_pentanomial(&Pentanomial(up)));
        prop_assert!(b >= a - 1e-9 * (1.0 + a.abs()), "{a} -> {b}");
    }

    #[test]
    fn swapping_engines_negates_the_llr(
        model in model(),
        h in hypotheses(),
        w in 0u64..400, l in 0u64..400, d in 0u64..800,
        c in proptest::array::uniform5(0u64..300),
    ) {
        let s = sprt(model, h);
        let mirrored = sprt(model, (-h.1, -h.0));
        let t = Wld::new(w, l, d);
        let (a, b) = (s.llr_trinomial(&t), mirrored.llr_trinomial(&t.swapped()));
        prop_assert!(close(a, -b), "trinomial {a} vs {b}");
        let p = Pentanomial(c);
        let (a, b) = (s.llr_pentanomial(&p), mirrored.llr_pentanomial(&p.reversed()));
        prop_assert!(close(a, -b), "pentanomial {a} vs {b}");
    }

    #[test]
    fn llr_is_finite_for_any_counts_and_realistic_hypotheses(
        model in model(),
        e0 in -300.0f64..300.0, width in 0.1f64..100.0,
        w in 0u64..100_000, l in 0u64..100_000, d in 0u64..100_000,
        c in proptest::array::uniform5(0u64..50_000),
    ) {
        let s = sprt(model, (e0, e0 + width));
        prop_assert!(s.llr_trinomial(&Wld::new(w, l, d)).is_finite());
        prop_assert!(s.llr_pentanomial(&Pentanomial(c)).is_finite());
    }

    #[test]
    fn bounds_follow_alpha_and_beta(
        alpha in 0.001f64..0.4,
        beta in 0.001f64..0.4,
        shrink in 0.1f64..0.99,
        llr in -10.0f64..10.0,
    ) {
        let s = Sprt::new(0.0, 5.0, alpha, beta, SprtModel::Normalized).unwrap();
        let (lower, upper) = s.bounds();
        prop_assert!(lower < 0.0 && upper > 0.0);
        // The Wald bounds: e^upper = (1-beta)/alpha, e^lower = beta/(1-alpha).
        prop_assert!(close(upper.exp() * alpha, 1.0 - beta));
        prop_assert!(close(lower.exp() * (1.0 - alpha), beta));
        // A smaller alpha demands more evidence for H1; a smaller beta more for H0.
        let stricter = Sprt::new(0.0, 5.0, alpha * shrink, beta * shrink, SprtModel::Normalized)
            .unwrap();
        let (l2, u2) = stricter.bounds();
        prop_assert!(u2 > upper && l2 < lower);
        let symmetric = Sprt::new(0.0, 5.0, alpha, alpha, SprtModel::Normalized).unwrap().bounds();
        prop_assert!(close(symmetric.0, -symmetric.1));
        let want = if llr > upper { Some(Verdict::H1) } else if llr < lower { Some(Verdict::H0) } else { None };
        prop_assert_eq!(s.decide(llr), want);
    }
}

#[test]
fn llr_grows_with_evidence_for_h1() {
    // Same score, ten times the games: ten times the LLR under every model (GLR and the
    // approximation are both N times a per-game quantity, up to the 1e-3 regularization).
    for model in [SprtModel::Normalized, SprtModel::Logistic, SprtModel::Gsprt] {
        let s = Sprt::new(0.0, 5.0, 0.05, 0.05, model).unwrap();
        let small = s.llr_trinomial(&Wld::new(330, 300, 370));
        let big = s.llr_trinomial(&Wld::new(3300, 3000, 3700));
        assert!(small > 0.0, "{model}: {small}");
        assert!(
            (big / small - 10.0).abs() < 1e-6,
            "{model}: {small} -> {big}"
        );
    }
}

#[test]
fn gsprt_approximation_is_not_monotone() {
    // Found by the monotonicity property: with a score above both hypotheses, one more win also
    // raises the variance estimate enough to lower c-gomoku-cli's approximate LLR. The exact GLR
    // does not do this.
    let h = (-19.07338675381168, -18.82338675381168);
    let gsprt = sprt(SprtModel::Gsprt, h);
    let before = gsprt.llr_trinomial(&Wld::new(0, 1, 37));
    let after = gsprt.llr_trinomial(&Wld::new(1, 1, 37));
    assert!(after < before, "{before} -> {after}");
    let exact = sprt(SprtModel::Logistic, h);
    assert!(exact.llr_trinomial(&Wld::new(1, 1, 37)) >= exact.llr_trinomial(&Wld::new(0, 1, 37)));
}
