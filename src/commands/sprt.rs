//! `gomoku-cli sprt`: the SPRT and Elo calculator, from pentanomial or W/L/D counts or from the
//! journal files of a run.

use super::{say, CommandError, CommandResult, Outcome};

/// The calculator's flags.
#[derive(clap::Args, Debug)]
pub struct SprtArgs {
    /// Pair counts by half-points of the first engine: LL,LD,WL+DD,WD,WW.
    #[arg(long, conflicts_with = "wld")]
    ptnml: Option<String>,
    /// Game counts of the first engine: W,L,D.
    #[arg(long)]
    wld: Option<String>,
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    elo0: f64,
    #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
    elo1: f64,
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// normalized (fishtest's default), logistic, or gsprt (c-gomoku-cli's approximation).
    #[arg(long, default_value = "normalized")]
    model: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Journal files (`-journal`) of one run, possibly split over shards.
    journals: Vec<std::path::PathBuf>,
}

/// Run the calculator and print its report.
pub fn run(a: SprtArgs) -> CommandResult {
    use gomoku_cli::stats::{sprt_calculator, Counts, Sprt, SprtModel};
    let model: SprtModel = match a.model.parse() {
        Ok(m) => m,
        Err(e) => {
            return Err(CommandError::Usage(format!("--model: {e}")));
        }
    };
    let sprt = match Sprt::new(a.elo0, a.elo1, a.alpha, a.beta, model) {
        Ok(s) => s,
        Err(e) => {
            return Err(CommandError::Usage(format!("{e}")));
        }
    };
    let calc = if a.journals.is_empty() {
        match Counts::from_args(a.wld.as_deref(), a.ptnml.as_deref()) {
            Ok(c) => sprt_calculator(c, &sprt),
            Err(e) => {
                return Err(CommandError::Usage(format!("{e}")));
            }
        }
    } else {
        if a.wld.is_some() || a.ptnml.is_some() {
            return Err(CommandError::Usage(
                "give counts or journal files, not both".into(),
            ));
        }
        sprt_from_journals(&a.journals, &sprt).map_err(CommandError::Failed)?
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
    sprt: &gomoku_cli::stats::Sprt,
) -> Result<gomoku_cli::stats::SprtCalculation, String> {
    let (replay, _) = super::replay(files, Some(*sprt))?;
    gomoku_cli::tracker::sprt_of(&replay.tracker, sprt).map_err(|e| e.to_string())
}
