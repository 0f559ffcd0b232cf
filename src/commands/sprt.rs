//! `gomoku-cli sprt`: the SPRT and Elo calculator, from pentanomial or W/L/D counts or from the
//! journal files of a run.

use crate::commands::{say, CommandError, CommandResult, Outcome};
use crate::formats::journal::HeaderCheck;

/// The calculator's flags.
#[derive(Debug)]
pub struct SprtArgs {
    /// Pair counts by half-points of the first engine: LL,LD,WL+DD,WD,WW.
    pub ptnml: Option<String>,
    /// Game counts of the first engine: W,L,D.
    pub wld: Option<String>,
    /// H0's Elo. Default: the run's (from a journal's header), else 0.
    pub elo0: Option<f64>,
    /// H1's Elo. Default: the run's, else 5.
    pub elo1: Option<f64>,
    /// Default: the run's, else 0.05.
    pub alpha: Option<f64>,
    /// Default: the run's, else 0.05.
    pub beta: Option<f64>,
    /// normalized (fishtest's default), logistic, or gsprt (c-gomoku-cli's approximation).
    /// Default: the run's, else normalized.
    pub model: Option<String>,
    /// Print one JSON object instead of text.
    pub json: bool,
    /// Journal files (`-journal`) of one run, possibly split over shards.
    pub journals: Vec<std::path::PathBuf>,
    /// Read a journal whose header no longer gives its fingerprint (its settings were edited),
    /// with a warning naming it, instead of refusing it.
    pub force: bool,
}

/// The design when neither the journal nor a flag gives one: fishtest's usual bounds.
const DEFAULT_DESIGN: (f64, f64, f64, f64, crate::stats::SprtModel) =
    (0.0, 5.0, 0.05, 0.05, crate::stats::SprtModel::Normalized);

/// The SPRT design: each flag given, else the run's (a journal's header records its `-sprt`), else
/// the default. A flag that changes the run's value says so on standard error, since the verdict
/// then need not be the run's.
fn design(
    a: &SprtArgs,
    run: Option<crate::stats::Sprt>,
) -> Result<crate::stats::Sprt, CommandError> {
    use crate::stats::{Sprt, SprtModel};
    let model: Option<SprtModel> = match &a.model {
        Some(m) => Some(
            m.parse()
                .map_err(|e| CommandError::Usage(format!("--model: {e}")))?,
        ),
        None => None,
    };
    let (elo0, elo1, alpha, beta, base_model) = match run {
        Some(r) => (r.elo0, r.elo1, r.alpha, r.beta, r.model),
        None => DEFAULT_DESIGN,
    };
    if let Some(r) = run {
        let numbers = [
            ("elo0", a.elo0, r.elo0),
            ("elo1", a.elo1, r.elo1),
            ("alpha", a.alpha, r.alpha),
            ("beta", a.beta, r.beta),
        ];
        for (name, flag, theirs) in numbers {
            if let Some(v) = flag.filter(|v| *v != theirs) {
                eprintln!("note: --{name} {v} overrides the run's {name}={theirs}");
            }
        }
        if let Some(m) = model.filter(|m| *m != r.model) {
            eprintln!("note: --model {m} overrides the run's model={}", r.model);
        }
    }
    Sprt::new(
        a.elo0.unwrap_or(elo0),
        a.elo1.unwrap_or(elo1),
        a.alpha.unwrap_or(alpha),
        a.beta.unwrap_or(beta),
        model.unwrap_or(base_model),
    )
    .map_err(|e| CommandError::Usage(format!("{e}")))
}

/// Run the calculator and print its report.
pub fn run(a: SprtArgs) -> CommandResult {
    use crate::stats::{sprt_calculator, Counts};
    // With journals, the run's own design (from the first header; `replay` refuses journals
    // of different runs).
    let run_design = if a.journals.is_empty() {
        None
    } else {
        if a.wld.is_some() || a.ptnml.is_some() {
            return Err(CommandError::Usage(
                "give counts or journal files, not both".into(),
            ));
        }
        crate::commands::run_sprt(&a.journals, HeaderCheck::forced(a.force))?
    };
    let sprt = design(&a, run_design)?;
    let calc = if a.journals.is_empty() {
        match Counts::from_args(a.wld.as_deref(), a.ptnml.as_deref()) {
            Ok(c) => sprt_calculator(c, &sprt),
            Err(e) => {
                return Err(CommandError::Usage(format!("{e}")));
            }
        }
    } else {
        sprt_from_journals(&a.journals, &sprt, HeaderCheck::forced(a.force))
            .map_err(CommandError::Failed)?
    };
    if a.json {
        match serde_json::to_string(&calc) {
            Ok(j) => say(&format!("{j}\n")),
            Err(e) => {
                return Err(CommandError::Failed(format!("{e}")));
            }
        }
    } else {
        say(&calc.to_text());
    }
    Ok(Outcome::Done)
}

/// The SPRT of a run from its journal files (or run directories), replayed in the order the
/// games finished so the verdict is the test's first crossing, as the run reported it.
fn sprt_from_journals(
    files: &[std::path::PathBuf],
    sprt: &crate::stats::Sprt,
    check: HeaderCheck,
) -> Result<crate::stats::SprtCalculation, String> {
    let (replay, _) = crate::commands::replay(files, Some(*sprt), check)?;
    crate::analysis::tracker::sprt_calculation(&replay.tracker, sprt).map_err(|e| e.to_string())
}
