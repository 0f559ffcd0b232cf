//! Checks the statistics core against the reference vectors computed from fishtest, fastchess,
//! cutechess and c-gomoku-cli (`shared/testdata/sprt/sprt_reference.json`), with the tolerances
//! its README recommends.

use std::collections::BTreeMap;
use std::path::PathBuf;

use gomoku_cli::stats::{
    cutechess_wdl, fastchess_pentanomial, fastchess_wdl, fishtest_pentanomial, fishtest_trinomial,
    EloEstimate, Pentanomial, Sprt, SprtModel, Verdict, Wld,
};
use serde_json::Value;

fn load() -> Option<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/testdata/sprt/sprt_reference.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(serde_json::from_str(&text).expect("reference JSON parses")),
        Err(e) => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("reference data {} missing under CI: {e}", path.display());
            }
            eprintln!(
                "skipping: reference data {} not found ({e})",
                path.display()
            );
            None
        }
    }
}

/// A JSON number, or one of the strings the file uses for non-finite values.
fn num(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap(),
        Value::String(s) => match s.as_str() {
            "Infinity" => f64::INFINITY,
            "-Infinity" => f64::NEG_INFINITY,
            "NaN" => f64::NAN,
            other => panic!("unexpected number string {other:?}"),
        },
        other => panic!("not a number: {other}"),
    }
}

fn counts(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect()
}

/// Records comparisons: failures, and the largest finite deviation per quantity.
#[derive(Default)]
struct Checker {
    failures: Vec<String>,
    max_dev: BTreeMap<String, f64>,
    compared: usize,
}

impl Checker {
    fn check(&mut self, what: &str, case: &str, got: f64, want: f64, rtol: f64, atol: f64) {
        self.compared += 1;
        let ok = if want.is_finite() {
            let dev = (got - want).abs();
            let slot = self.max_dev.entry(what.to_string()).or_insert(0.0);
            if dev.is_nan() {
                *slot = f64::NAN;
            } else if dev > *slot {
                *slot = dev;
            }
            dev <= atol + rtol * want.abs()
        } else if want.is_nan() {
            got.is_nan()
        } else {
            got == want
        };
        if !ok {
            self.failures
                .push(format!("{case}: {what} got {got:e}, want {want:e}"));
        }
    }
}

fn model_of(name: &str) -> SprtModel {
    match name {
        "normalized" => SprtModel::Normalized,
        "logistic" => SprtModel::Logistic,
        "gsprt_approx" => SprtModel::Gsprt,
        other => panic!("unknown model {other}"),
    }
}

fn check_llr_case(ck: &mut Checker, case: &Value, label: &str) {
    let model = model_of(case["model"].as_str().unwrap());
    let stats = case["stats"].as_str().unwrap();
    let c = counts(&case["counts"]);
    let (elo0, elo1) = (num(&case["elo0"]), num(&case["elo1"]));
    let sprt = Sprt::new(elo0, elo1, num(&case["alpha"]), num(&case["beta"]), model).unwrap();
    let llr = match stats {
        "trinomial" => sprt.llr_trinomial(&Wld::from_trinomial([c[0], c[1], c[2]])),
        "pentanomial" => sprt.llr_pentanomial(&Pentanomial([c[0], c[1], c[2], c[3], c[4]])),
        other => panic!("unknown stats {other}"),
    };
    let tol = if model == SprtModel::Gsprt {
        1e-12
    } else {
        1e-7
    };
    let what = format!("llr {stats} {}", case["model"].as_str().unwrap());
    // A one-sided gsprt score (fewer than two non-zero cells, games played) has no variance:
    // c-gomoku-cli's value is 0 there, so its test never stops. Ours is the LLR fastchess and
    // fishtest compute on such counts (zero cells regularised, exact logistic GLR), which the
    // file gives as the `fishtest_LLR_logistic` cross-check.
    let one_sided = c.iter().filter(|&&n| n > 0).count() == 1;
    if model == SprtModel::Gsprt && one_sided {
        let want = num(&case["crosscheck"]["fishtest_LLR_logistic"]);
        ck.check(&format!("{what} one-sided"), label, llr, want, 1e-7, 1e-7);
    } else {
        ck.check(&what, label, llr, num(&case["llr"]), tol, tol);
    }
    if let Some(mp) = case["crosscheck"].get("llr_converged_mp40") {
        ck.check(&format!("{what} vs mp40"), label, llr, num(mp), 1e-7, 1e-7);
    }
    let (lower, upper) = sprt.bounds();
    ck.check("bounds", label, lower, num(&case["lower"]), 1e-14, 1e-14);
    ck.check("bounds", label, upper, num(&case["upper"]), 1e-14, 1e-14);
    for design in case["bounds"].as_array().unwrap() {
        let s = Sprt::new(
            elo0,
            elo1,
            num(&design["alpha"]),
            num(&design["beta"]),
            model,
        )
        .unwrap();
        let (lo, hi) = s.bounds();
        ck.check("bounds", label, lo, num(&design["lower"]), 1e-14, 1e-14);
        ck.check("bounds", label, hi, num(&design["upper"]), 1e-14, 1e-14);
        let want = match design["decision"].as_str().unwrap() {
            "H0" => Some(Verdict::H0),
            "H1" => Some(Verdict::H1),
            "continue" => None,
            other => panic!("unknown decision {other}"),
        };
        ck.compared += 1;
        if s.decide(llr) != want {
            ck.failures.push(format!(
                "{label}: decision at alpha={} beta={} got {:?}, want {want:?}",
                s.alpha,
                s.beta,
                s.decide(llr)
            ));
        }
    }
}

fn check_elo_case(ck: &mut Checker, case: &Value, label: &str) {
    let imp = case["impl"].as_str().unwrap();
    let stats = case["stats"].as_str().unwrap();
    let c = counts(&case["counts"]);
    let e: EloEstimate = match (imp, stats) {
        ("fastchess", "trinomial") => fastchess_wdl(&Wld::from_trinomial([c[0], c[1], c[2]])),
        ("fishtest", "trinomial") => fishtest_trinomial(&Wld::from_trinomial([c[0], c[1], c[2]])),
        ("cutechess", "trinomial") => cutechess_wdl(&Wld::from_trinomial([c[0], c[1], c[2]])),
        ("fastchess", "pentanomial") => {
            fastchess_pentanomial(&Pentanomial([c[0], c[1], c[2], c[3], c[4]]))
        }
        ("fishtest", "pentanomial") => {
            fishtest_pentanomial(&Pentanomial([c[0], c[1], c[2], c[3], c[4]]))
        }
        other => panic!("unexpected elo case {other:?}"),
    };
    let mut fields = vec![
        ("score", e.score),
        ("elo", e.elo.value),
        ("elo_error", e.elo.error),
        ("elo_lower", e.elo.lower),
        ("elo_upper", e.elo.upper),
        ("los", e.los),
        ("draw_ratio", e.draw_ratio),
    ];
    if let Some(n) = e.nelo {
        fields.extend([
            ("nelo", n.value),
            ("nelo_error", n.error),
            ("nelo_lower", n.lower),
            ("nelo_upper", n.upper),
        ]);
    }
    for (name, got) in fields {
        if let Some(want) = case.get(name) {
            let what = format!("{imp} {stats} {name}");
            ck.check(&what, label, got, num(want), 1e-9, 1e-9);
        }
    }
    // Every quantity the reference gives must have been computed.
    for key in ["nelo", "nelo_error"] {
        if case.get(key).is_some() && e.nelo.is_none() {
            ck.failures
                .push(format!("{label}: {imp} gives {key}, we do not"));
        }
    }
}

#[test]
fn every_reference_case_matches() {
    let Some(data) = load() else { return };
    let cases = data["cases"].as_array().unwrap();
    let mut ck = Checker::default();
    let mut per_kind: BTreeMap<String, usize> = BTreeMap::new();
    for case in cases {
        let kind = case["kind"].as_str().unwrap();
        let stats = case["stats"].as_str().unwrap();
        let which = case
            .get("model")
            .or_else(|| case.get("impl"))
            .and_then(Value::as_str)
            .unwrap();
        let label = format!(
            "{kind} {stats} {which} {:?} {} {}",
            case["label"].as_str().unwrap_or(""),
            case["counts"],
            case.get("elo0")
                .map(|_| format!("[{}, {}]", case["elo0"], case["elo1"]))
                .unwrap_or_default()
        );
        match kind {
            "llr" => check_llr_case(&mut ck, case, &label),
            "elo" => check_elo_case(&mut ck, case, &label),
            other => panic!("unknown case kind {other}"),
        }
        *per_kind
            .entry(format!("{kind} {stats} {which}"))
            .or_default() += 1;
    }
    println!(
        "reference cases checked: {} ({} comparisons)",
        cases.len(),
        ck.compared
    );
    for (k, n) in &per_kind {
        println!("  {k}: {n}");
    }
    println!("max abs deviation per quantity:");
    for (k, d) in &ck.max_dev {
        println!("  {k}: {d:.3e}");
    }
    // Every category the README lists must be present, so a truncated file cannot pass silently.
    for needed in [
        "llr pentanomial normalized",
        "llr pentanomial logistic",
        "llr trinomial normalized",
        "llr trinomial logistic",
        "llr trinomial gsprt_approx",
        "elo trinomial fastchess",
        "elo trinomial fishtest",
        "elo trinomial cutechess",
        "elo pentanomial fastchess",
    ] {
        assert!(
            per_kind.contains_key(needed),
            "no {needed} cases in the file"
        );
    }
    assert!(
        ck.failures.is_empty(),
        "{} mismatches:\n{}",
        ck.failures.len(),
        ck.failures.join("\n")
    );
}
