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
    let counts = if a.journals.is_empty() {
        match Counts::from_args(a.wld.as_deref(), a.ptnml.as_deref()) {
            Ok(c) => c,
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
        match counts_from_journals(&a.journals) {
            Ok(c) => c,
            Err(e) => {
                return Err(CommandError::Failed(e));
            }
        }
    };
    let calc = sprt_calculator(counts, &sprt);
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

/// The counts a run would use for its SPRT, from its journal files.
fn counts_from_journals(files: &[std::path::PathBuf]) -> Result<gomoku_cli::stats::Counts, String> {
    use gomoku_cli::record::journal;
    let mut entries = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let read = journal::parse(&text, &f.display().to_string()).map_err(|e| e.to_string())?;
        for w in read.warnings {
            eprintln!("warning: {w}");
        }
        entries.extend(read.entries);
    }
    let t = gomoku_cli::tracker::from_journal(&entries).map_err(|e| e.to_string())?;
    if t.pairs().len() != 1 {
        return Err(format!(
            "the journals hold {} engine pairs; the SPRT compares two engines",
            t.pairs().len()
        ));
    }
    Ok(match t.pair_tally(0) {
        Some(p) => gomoku_cli::stats::Counts::Ptnml(p.pentanomial()),
        None => gomoku_cli::stats::Counts::Wld(t.wld(0)),
    })
}
