//! `gomoku-cli judge`: flags → `crate::commands::judge::verdicts::run_judge` over standard input or the files
//! given → one JSON object per line on standard output.

pub mod verdicts;

use std::io::Write;
use std::path::PathBuf;

use crate::commands::judge::verdicts::{run_judge, JudgeOptions, JudgeSummary};
use crate::core::board::{BoardSize, Color};
use crate::core::rules::Rule;

use crate::commands::{CommandError, CommandResult, Outcome};

/// The judge's flags.
#[derive(Debug)]
pub struct JudgeArgs {
    /// Gomocup rule code: 0 freestyle, 1 exact five, 4 renju, 8 caro, 9 standard caro. Note the
    /// default, 4 (renju): the match runner's -rule defaults to 0 (freestyle).
    pub rule: i64,
    /// Board size for move-sequence lines.
    pub boardsize: u32,
    /// The side to move on board lines (SIZE:ROW/...), for boards whose stone counts do not tell
    /// it (problem diagrams) or to override what they tell. Without it such boards report
    /// "to_move":null. Move sequences tell it themselves.
    pub to_move: Option<Side>,
    /// Refuse board lines whose stone counts no alternating game (black first) reaches, and a
    /// --to-move the counts contradict.
    pub strict: bool,
    /// Files to read (standard input when none).
    pub files: Vec<PathBuf>,
}

/// A side to move, as `--to-move` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Black,
    White,
}

impl From<Side> for Color {
    fn from(side: Side) -> Color {
        match side {
            Side::Black => Color::Black,
            Side::White => Color::White,
        }
    }
}

/// Run the judge: exit code 1 (`Failed`) when any line could not be judged.
pub fn run(args: JudgeArgs) -> CommandResult {
    let rule =
        Rule::from_code(args.rule).map_err(|e| CommandError::Usage(format!("--rule: {e}")))?;
    let size = BoardSize::new(args.boardsize)
        .map_err(|e| CommandError::Usage(format!("--boardsize: {e}")))?;
    let options = JudgeOptions {
        rule,
        size,
        to_move: args.to_move.map(Color::from),
        strict: args.strict,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut total = JudgeSummary::default();
    let mut add = |s: JudgeSummary| {
        total.lines += s.lines;
        total.errors += s.errors;
    };
    if args.files.is_empty() {
        let input = std::io::stdin().lock();
        let summary = run_judge(input, &options, &mut out)
            .map_err(|e| CommandError::Failed(format!("reading standard input: {e}")))?;
        add(summary);
    }
    for f in &args.files {
        let failed = |e: std::io::Error| CommandError::Failed(format!("{}: {e}", f.display()));
        let file = std::fs::File::open(f).map_err(failed)?;
        add(run_judge(std::io::BufReader::new(file), &options, &mut out).map_err(failed)?);
    }
    let _ = out.flush();
    if total.errors > 0 {
        return Err(CommandError::Failed(format!(
            "{} of {} lines could not be judged (see the error objects)",
            total.errors, total.lines
        )));
    }
    Ok(Outcome::Done)
}
