//! The `gomoku-cli` binary: parse the command line, run, and map the outcome to an exit code.
//!
//! Exit codes are decided here and only here (documented in README.md):
//! 0 run completed (or SPRT accepted H1); 1 error in the input or an output file; 2 command-line
//! usage error; 3 SPRT accepted H0; 4 stopped by `-fatalerror` after an engine failure; 130 interrupted (Ctrl-C / SIGTERM).

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use gomoku_cli::board::BoardSize;
use gomoku_cli::cli;
use gomoku_cli::config::Config;
use gomoku_cli::rules::Rule;
use gomoku_cli::runner::{self, StopReason, Stops};

/// Exit codes, in one place.
mod exit {
    pub const OK: u8 = 0;
    pub const ERROR: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const SPRT_H0: u8 = 3;
    pub const ENGINE_FAILURE: u8 = 4;
    pub const INTERRUPTED: u8 = 130;
}

#[derive(Parser, Debug)]
#[command(
    name = "gomoku-cli",
    version,
    about = "Tools of gomoku-cli (the match runner takes c-gomoku-cli's options: run `gomoku-cli --help`)"
)]
struct Tools {
    #[command(subcommand)]
    command: Tool,
}

#[derive(Subcommand, Debug)]
enum Tool {
    /// Judge positions: one per input line (pos-notation moves or SIZE:ROW/ROW/...), one JSON object per line out.
    Judge {
        /// Gomocup rule code: 0 freestyle, 1 exact five, 4 renju, 8 caro, 9 standard caro.
        #[arg(long, default_value_t = 4)]
        rule: i64,
        /// Board size for move-sequence lines.
        #[arg(long, default_value_t = 15)]
        boardsize: u32,
        /// Files to read (standard input when none).
        files: Vec<std::path::PathBuf>,
    },
    /// SPRT and Elo calculator: from pentanomial or W/L/D counts, or from journal files of a run.
    Sprt(SprtArgs),
    /// Training sample files (-sample): check what a file holds.
    Samples {
        #[command(subcommand)]
        command: SamplesTool,
    },
}

#[derive(Subcommand, Debug)]
enum SamplesTool {
    /// Counts, result distribution, board sizes, rules and a histogram of stones per sample.
    Stats {
        /// The sample file.
        file: std::path::PathBuf,
        /// csv, bin or bin_lz4 (default: from the extension .csv / .bin / .lz4).
        #[arg(long)]
        format: Option<String>,
    },
}

const HELP: &str = "\
gomoku-cli — tournament runner for gomoku/renju engines speaking the Gomocup (pbrain) protocol

USAGE:
  gomoku-cli [-each OPTIONS] -engine OPTIONS -engine OPTIONS ... [options]
  gomoku-cli judge --rule R [--boardsize N] [FILE...]
  gomoku-cli sprt (--ptnml a,b,c,d,e | --wld W,L,D | JOURNAL...) [--elo0 E] [--elo1 E] [--json]
  gomoku-cli samples stats FILE [--format csv|bin|bin_lz4]

ENGINE OPTIONS (after -engine or -each; a per-engine value wins over -each):
  cmd=COMMAND        command to run; with a '/', it runs in that directory
  name=NAME          name (default: from ABOUT)
  tc=M[/T][+I]       match time / turn time / increment in seconds (tc=60: both 60; tc=0/5: turn only)
  depth=N nodes=N    INFO max_depth / max_node
  maxmemory=BYTES    INFO max_memory (default 367001600 = 350 MiB)
  thread=N           INFO thread_num
  tolerance=S        seconds an engine may run over its limit (default 3)
  option.K=V         sent as INFO K V

RUN OPTIONS:
  -concurrency N     games at once (default 1)
  -games N           games per pair per round (default 1)
  -rounds N          rounds (default 1)
  -gauntlet          first engine against each other (default: round robin)
  -repeat            each opening twice, colours reversed
  -loseonly          with -gauntlet, save only games the first engine loses
  -openings file=F [type=offset|pos] [order=sequential|random] [srand=N]
  -transform         after each pass through the openings, the next of the 8 symmetries
  -rule R            0 freestyle, 1 exact five, 4 renju, 8 caro, 9 standard caro (default 0)
  -boardsize N       5..32 (default 15)
  -drawafter N       draw when N stones stand on the board (opening included)
  -sendbyboard       send the whole position with BOARD before every move
  -startuptimeout S  seconds an engine has to answer START (default 10)
  -fatalerror        stop the run when an engine crashes, hangs or fails to start
  -log               protocol logs gomoku-cli.<slot>.log (in -logdir DIR, default .)
  -debug             like -log
  -journal FILE      one JSON line per finished game (default: a timestamped file; off = none)
  -sprt [elo0=E0] elo1=E1 [alpha=A] [beta=B] [model=normalized|logistic|gsprt]
                     stop when the SPRT decides (two engines)
  -ratinginterval N  results block every N games (default 10; 0 = at the end only)
  -pgn FILE -sgf FILE -msg FILE   game records
  -sample [freq=F] [format=csv|bin|bin_lz4] [file=F]   training samples
  -quiet -noprogress less output
  -draw C S, -resign C S  accepted for compatibility; no effect (pbrain engines report no score)

EXIT CODES: 0 done (or SPRT H1), 1 error, 2 usage error, 3 SPRT H0, 4 stopped by -fatalerror,
130 interrupted.
";

/// Write to standard output, ignoring a closed pipe (`gomoku-cli ... | head` must not panic).
fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("-h") | Some("--help") | Some("-help") | Some("help") => {
            say(HELP);
            return ExitCode::from(if args.is_empty() {
                exit::USAGE
            } else {
                exit::OK
            });
        }
        Some("-V") | Some("--version") | Some("-version") => {
            say(&format!("gomoku-cli {}\n", env!("CARGO_PKG_VERSION")));
            return ExitCode::from(exit::OK);
        }
        Some("judge") | Some("sprt") | Some("samples") => return tools(),
        _ => {}
    }
    legacy(&args)
}

fn tools() -> ExitCode {
    let tools = match Tools::try_parse() {
        Ok(t) => t,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            });
        }
    };
    match tools.command {
        Tool::Sprt(args) => sprt_tool(args),
        Tool::Samples {
            command: SamplesTool::Stats { file, format },
        } => {
            use gomoku_cli::record::samples::{samples_stats_command, SampleFormat};
            let format = match format.as_deref().map(str::parse::<SampleFormat>) {
                None => None,
                Some(Ok(f)) => Some(f),
                Some(Err(e)) => {
                    eprintln!("error: --format: {e}");
                    return ExitCode::from(exit::USAGE);
                }
            };
            match samples_stats_command(&file, format) {
                Ok(report) => {
                    // A damaged file: its statistics and the damage on stdout, and exit 1.
                    say(&report.text);
                    ExitCode::from(match report.damage {
                        None => exit::OK,
                        Some(_) => exit::ERROR,
                    })
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(exit::ERROR)
                }
            }
        }
        Tool::Judge {
            rule,
            boardsize,
            files,
        } => {
            let rule = match Rule::from_code(rule) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("error: --rule: {e}");
                    return ExitCode::from(exit::USAGE);
                }
            };
            let size = match BoardSize::new(boardsize) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: --boardsize: {e}");
                    return ExitCode::from(exit::USAGE);
                }
            };
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            let mut errors = 0;
            if files.is_empty() {
                let input = std::io::stdin().lock();
                match gomoku_cli::judge::run_judge(input, rule, size, &mut out) {
                    Ok(s) => errors += s.errors,
                    Err(e) => {
                        eprintln!("error: reading standard input: {e}");
                        return ExitCode::from(exit::ERROR);
                    }
                }
            }
            for f in files {
                let file = match std::fs::File::open(&f) {
                    Ok(file) => file,
                    Err(e) => {
                        eprintln!("error: {}: {e}", f.display());
                        return ExitCode::from(exit::ERROR);
                    }
                };
                match gomoku_cli::judge::run_judge(
                    std::io::BufReader::new(file),
                    rule,
                    size,
                    &mut out,
                ) {
                    Ok(s) => errors += s.errors,
                    Err(e) => {
                        eprintln!("error: {}: {e}", f.display());
                        return ExitCode::from(exit::ERROR);
                    }
                }
            }
            let _ = out.flush();
            ExitCode::from(if errors > 0 { exit::ERROR } else { exit::OK })
        }
    }
}

#[derive(clap::Args, Debug)]
struct SprtArgs {
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

fn sprt_tool(a: SprtArgs) -> ExitCode {
    use gomoku_cli::stats::{sprt_calculator, Counts, Sprt, SprtModel};
    let model: SprtModel = match a.model.parse() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: --model: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    let sprt = match Sprt::new(a.elo0, a.elo1, a.alpha, a.beta, model) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    let counts = if a.journals.is_empty() {
        match Counts::from_args(a.wld.as_deref(), a.ptnml.as_deref()) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(exit::USAGE);
            }
        }
    } else {
        if a.wld.is_some() || a.ptnml.is_some() {
            eprintln!("error: give counts or journal files, not both");
            return ExitCode::from(exit::USAGE);
        }
        match counts_from_journals(&a.journals) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(exit::ERROR);
            }
        }
    };
    let calc = sprt_calculator(counts, &sprt);
    if a.json {
        match serde_json::to_string(&calc) {
            Ok(j) => say(&format!("{j}\n")),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(exit::ERROR);
            }
        }
    } else {
        say(&calc.to_text());
    }
    ExitCode::from(exit::OK)
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

fn legacy(args: &[String]) -> ExitCode {
    let raw = match cli::parse_legacy(args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    let config = match Config::from_raw(&raw) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(exit::ERROR);
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(exit::ERROR);
        }
    };
    let stops = Stops::default();
    let result = rt.block_on(async {
        tokio::spawn(watch_signals(stops.clone()));
        runner::run(config, stops.clone()).await
    });
    // Engines still being ended in the background must not outlive us: the runtime's shutdown
    // drops every task, and dropping a session kills its process group.
    rt.shutdown_timeout(std::time::Duration::from_secs(5));
    match result {
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(exit::ERROR)
        }
        Ok(summary) => {
            say(&format!(
                "Finished {} of {} games{}\n",
                summary.finished,
                summary.total,
                match summary.reason {
                    StopReason::Completed => "",
                    StopReason::Interrupted => " (interrupted)",
                    StopReason::EngineFailure => " (stopped: engine failure)",
                    StopReason::SprtH0 => " (SPRT: H0 accepted)",
                    StopReason::SprtH1 => " (SPRT: H1 accepted)",
                }
            ));
            let _ = std::io::stdout().flush();
            ExitCode::from(match summary.reason {
                StopReason::Completed | StopReason::SprtH1 => exit::OK,
                StopReason::SprtH0 => exit::SPRT_H0,
                StopReason::Interrupted => exit::INTERRUPTED,
                StopReason::EngineFailure => exit::ENGINE_FAILURE,
            })
        }
    }
}

/// First Ctrl-C or SIGTERM: abandon games in progress and end engines politely. Second: kill now.
async fn watch_signals(stops: Stops) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return;
    };
    let mut seen = 0;
    loop {
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
        seen += 1;
        if seen == 1 {
            eprintln!("\nInterrupted: abandoning games in progress, ending engines (Ctrl-C again to kill them now)");
            stops.abort.cancel();
        } else {
            stops.hard.cancel();
        }
    }
}
