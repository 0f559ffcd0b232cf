//! What the user sees while a run goes on, from one reporter: the run's parts (the dispatcher,
//! the shell, the slots, the log and report writers) send `ConsoleEvent`s, and the `Console`
//! decides what `-quiet` hides and renders the rest, the game lines on standard output (flushed
//! per line even when redirected) and the notes and warnings on standard error, never torn by the
//! progress bar (standard error) it keeps. The text is rendered by a pure function, unit-tested.

use std::io::{IsTerminal, Write};

use crate::stats::Sprt;
use crate::tournament::events::{ConsoleEvent, StopReason};

/// How the console shows the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbosity {
    /// `Started`/`Finished`/`Score` lines for every game.
    PerGame,
    /// `-quiet`: reports and stop decisions only.
    Quiet,
}

/// Which output a line goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl ConsoleEvent {
    /// Where the event goes and its exact text (with the final newline), or `None` when
    /// `verbosity` hides it.
    pub fn render(&self, verbosity: Verbosity) -> Option<(Stream, String)> {
        use ConsoleEvent as E;
        let per_game = verbosity == Verbosity::PerGame;
        let out = |text: String| Some((Stream::Stdout, lines(&text)));
        let err = |text: String| Some((Stream::Stderr, format!("{text}\n")));
        match self {
            E::GameStarted { .. } | E::GameFinished { .. } | E::Score { .. } if !per_game => None,
            E::GameStarted {
                game,
                total,
                black,
                white,
            } => out(format!(
                "Started game {game} of {total} ({black} vs {white})"
            )),
            E::GameFinished {
                game,
                black,
                white,
                result,
                reason,
            } => out(format!(
                "Finished game {game} ({black} vs {white}): {result} {{{reason}}}"
            )),
            E::Score { first, second, wld } => out(format!(
                "Score of {first} vs {second}: {} - {} - {}  [{:.3}] {}",
                wld.wins,
                wld.losses,
                wld.draws,
                wld.score(),
                wld.games()
            )),
            E::SwapUnsupported {
                engine,
                answer,
                opening_stones,
            } => out(format!(
                "Warning: {engine} does not support SWAP2BOARD (it answered {answer:?}): its \
                 games are played from {} with the scheduled colours, without a swap",
                if *opening_stones == 0 {
                    "the empty board"
                } else {
                    "the opening"
                }
            )),
            E::SprtDecided { sprt, crossing } => out(format!(
                "SPRT{}: {}; no new games start",
                design(sprt),
                crossing.describe()
            )),
            E::ShardVerdict {
                sprt,
                crossing,
                shard,
            } => out(format!(
                "SPRT{}: {}, decided by shard {shard} (the run's stop marker); no new games start",
                sprt.as_ref().map_or(String::new(), design),
                crossing.describe()
            )),
            E::EngineFailureStop { game, reason } => out(format!(
                "Stopping: engine failure in game {game} ({reason}) and -fatalerror is set"
            )),
            E::OutputFailedStop { resumable } => out(format!(
                "Stopping: an output could not be written (see the error above); no new game \
                 starts. {}",
                after_failed_output(*resumable)
            )),
            E::Results {
                block,
                follows_block,
            } => out(match follows_block & !per_game {
                true => format!("\n{block}"),
                false => block.clone(),
            }),
            E::FinalReport(text) => out(format!("\n{text}")),
            E::TuneProgress {
                completed,
                total,
                theta,
            } => out(format!("Tune: {completed} of {total} iterations: {theta}")),
            E::Summary {
                finished,
                total,
                reason,
            } => out(format!(
                "Finished {finished} of {total} games{}",
                summary_suffix(*reason)
            )),
            E::ResumeNote(note) => err(format!("Resume: {note}")),
            E::Resuming {
                journal,
                games,
                left,
            } => err(format!(
                "Resuming {}: {games} games in the journal, {left} to play",
                journal.display()
            )),
            E::RandomOpenings { file, seed } => err(format!(
                "Openings: {} in random order, srand={seed} (repeat with this seed to replay)",
                file.display()
            )),
            E::TuneSeed(seed) => err(format!(
                "Tune: seed {seed} drawn (repeat the run with -srand {seed})"
            )),
            E::KnockoutSeed(seed) => err(format!(
                "Knockout: the engines past -seeds placed with seed {seed} (the same bracket \
                 again with -srand {seed})"
            )),
            E::Pinned(how) => err(format!("CPUs: {how}")),
            E::Journal(_) if !per_game => None,
            E::Journal(path) => err(format!("Journal: {}", path.display())),
            E::Warning(w) => err(format!("warning: {w}")),
            E::Error(e) => err(format!("error: {e}")),
        }
    }
}

/// What to do after a failed output stopped the run.
fn after_failed_output(resumable: bool) -> &'static str {
    match resumable {
        true => "Once the cause is fixed, run the same command with -resume to complete the run",
        // -resume needs the journal that -journal off left out.
        false => {
            "The run has no journal (-journal off), so it cannot be resumed: once the cause is \
             fixed, run it again"
        }
    }
}

/// The summary line's ending: why the run stopped, nothing when it completed.
fn summary_suffix(reason: StopReason) -> &'static str {
    match reason {
        StopReason::Completed => "",
        StopReason::Interrupted => " (interrupted)",
        StopReason::EngineFailure => " (stopped: engine failure)",
        StopReason::SprtH0 => " (SPRT: H0 accepted)",
        StopReason::SprtH1 => " (SPRT: H1 accepted)",
        StopReason::OutputFailed => " (stopped: an output could not be written)",
        StopReason::Unpairable => " (stopped: the next Swiss round could not be paired)",
    }
}

/// ` (normalized, elo0=0, elo1=5, alpha=0.05, beta=0.05)`: the SPRT's design, as its verdicts
/// show it.
fn design(s: &Sprt) -> String {
    format!(
        " ({}, elo0={}, elo1={}, alpha={}, beta={})",
        s.model, s.elo0, s.elo1, s.alpha, s.beta
    )
}

/// Text as standard output shows it: each line ended by one newline (a trailing newline is not
/// doubled), an empty text as one empty line.
fn lines(text: &str) -> String {
    if text.is_empty() {
        return "\n".into();
    }
    text.lines().flat_map(|l| [l, "\n"]).collect()
}

/// The reporter of a run: renders its events around an optional progress bar. Clones share the
/// bar, so threads of the run (slots, log and report writers) report through their own clone.
#[derive(Clone)]
pub struct Console {
    bar: Option<indicatif::ProgressBar>,
    verbosity: Verbosity,
}

impl Console {
    /// A console with a progress bar of `total` games when `progress` is asked for and standard
    /// error is a terminal.
    pub fn new(verbosity: Verbosity, progress: bool, total: u64) -> Console {
        let bar = (progress && std::io::stderr().is_terminal()).then(|| {
            let b = indicatif::ProgressBar::new(total);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} games  {rate}  ETA {eta}  {msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .with_key(
                    "rate",
                    |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{:.1} games/min", state.per_sec() * 60.0);
                    },
                ),
            );
            b
        });
        Console { bar, verbosity }
    }

    /// Show an event. A closed standard output is ignored: `gomoku-cli ... | head` must not
    /// stop the run.
    pub fn show(&self, event: ConsoleEvent) {
        if let Some((stream, text)) = event.render(self.verbosity) {
            let write = || match stream {
                Stream::Stdout => {
                    let mut out = std::io::stdout().lock();
                    let _ = out.write_all(text.as_bytes());
                    let _ = out.flush();
                }
                // As `eprintln!` did (and a test harness captures).
                Stream::Stderr => eprint!("{text}"),
            };
            match &self.bar {
                Some(b) => b.suspend(write),
                None => write(),
            }
        }
        if let (Some(b), ConsoleEvent::GameFinished { .. }) = (&self.bar, &event) {
            b.inc(1);
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::termination::GameResult;
    use crate::schedule::GameId;
    use crate::stats::{SprtCrossing, SprtModel, Verdict, Wld};
    use ConsoleEvent as E;
    use Stream::{Stderr, Stdout};

    /// Each event's text, as the run printed it before the console had events; whether `-quiet`
    /// shows it.
    fn cases() -> Vec<(ConsoleEvent, Stream, &'static str, bool)> {
        let (a, b) = (String::from("alpha"), String::from("beta"));
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.1, SprtModel::Normalized).unwrap();
        let crossing = SprtCrossing {
            verdict: Verdict::H1,
            llr: 2.9444,
            games: 120,
            game: 131,
        };
        let (game, reason) = (GameId(7), String::from("white crashed"));
        vec![
            (
                E::GameStarted {
                    game,
                    total: 10,
                    black: a.clone(),
                    white: b.clone(),
                },
                Stdout,
                "Started game 7 of 10 (alpha vs beta)\n",
                false,
            ),
            (
                E::GameFinished {
                    game,
                    black: a.clone(),
                    white: b.clone(),
                    result: GameResult::WhiteWins,
                    reason: "five in a row".into(),
                },
                Stdout,
                "Finished game 7 (alpha vs beta): 0-1 {five in a row}\n",
                false,
            ),
            (
                E::Score {
                    first: a,
                    second: b.clone(),
                    wld: Wld::new(2, 1, 1),
                },
                Stdout,
                "Score of alpha vs beta: 2 - 1 - 1  [0.625] 4\n",
                false,
            ),
            (
                E::SprtDecided { sprt, crossing },
                Stdout,
                "SPRT (normalized, elo0=0, elo1=5, alpha=0.05, beta=0.1): H1 accepted after 120 \
                 games (at game 131, LLR 2.94); no new games start\n",
                true,
            ),
            (
                E::ShardVerdict {
                    sprt: None,
                    crossing,
                    shard: "2/3".into(),
                },
                Stdout,
                "SPRT: H1 accepted after 120 games (at game 131, LLR 2.94), decided by shard 2/3 \
                 (the run's stop marker); no new games start\n",
                true,
            ),
            (
                E::EngineFailureStop { game, reason },
                Stdout,
                "Stopping: engine failure in game 7 (white crashed) and -fatalerror is set\n",
                true,
            ),
            (
                E::OutputFailedStop { resumable: true },
                Stdout,
                "Stopping: an output could not be written (see the error above); no new game \
                 starts. Once the cause is fixed, run the same command with -resume to complete \
                 the run\n",
                true,
            ),
            (
                E::OutputFailedStop { resumable: false },
                Stdout,
                "Stopping: an output could not be written (see the error above); no new game \
                 starts. The run has no journal (-journal off), so it cannot be resumed: once the \
                 cause is fixed, run it again\n",
                true,
            ),
            (
                E::SwapUnsupported {
                    engine: b,
                    answer: "ERROR x".into(),
                    opening_stones: 3,
                },
                Stdout,
                "Warning: beta does not support SWAP2BOARD (it answered \"ERROR x\"): its games \
                 are played from the opening with the scheduled colours, without a swap\n",
                true,
            ),
            (
                E::FinalReport("Standings\n  1 a\n".into()),
                Stdout,
                "\nStandings\n  1 a\n",
                true,
            ),
            (
                E::Summary {
                    finished: 3,
                    total: 8,
                    reason: StopReason::SprtH0,
                },
                Stdout,
                "Finished 3 of 8 games (SPRT: H0 accepted)\n",
                true,
            ),
            (E::ResumeNote("x".into()), Stderr, "Resume: x\n", true),
            (
                E::Resuming {
                    journal: "run.jsonl".into(),
                    games: 4,
                    left: 6,
                },
                Stderr,
                "Resuming run.jsonl: 4 games in the journal, 6 to play\n",
                true,
            ),
            (
                E::RandomOpenings {
                    file: "o.txt".into(),
                    seed: 42,
                },
                Stderr,
                "Openings: o.txt in random order, srand=42 (repeat with this seed to replay)\n",
                true,
            ),
            (
                E::TuneSeed(7),
                Stderr,
                "Tune: seed 7 drawn (repeat the run with -srand 7)\n",
                true,
            ),
            (
                E::Pinned("2 game slots on CPUs 0-1 (one each)".into()),
                Stderr,
                "CPUs: 2 game slots on CPUs 0-1 (one each)\n",
                true,
            ),
            (
                E::Journal("j.jsonl".into()),
                Stderr,
                "Journal: j.jsonl\n",
                false,
            ),
            // A message that ends in a newline keeps it, as `eprintln!` did.
            (E::Warning("w\n".into()), Stderr, "warning: w\n\n", true),
            (E::Error("e".into()), Stderr, "error: e\n", true),
        ]
    }

    #[test]
    fn every_event_reads_as_before_and_quiet_hides_the_per_game_ones() {
        for (event, stream, text, quiet_shows) in cases() {
            let want = Some((stream, text.to_string()));
            assert_eq!(event.render(Verbosity::PerGame), want, "{event:?}");
            let quiet = event.render(Verbosity::Quiet);
            assert_eq!(quiet, want.filter(|_| quiet_shows), "-quiet: {event:?}");
        }
    }

    #[test]
    fn results_blocks_are_separated_by_a_blank_line_only_under_quiet() {
        let text = |follows_block, v| {
            let block = "Results of a vs b:\nElo: 0\n".into();
            E::Results {
                block,
                follows_block,
            }
            .render(v)
            .map(|(_, t)| t)
        };
        let plain = Some("Results of a vs b:\nElo: 0\n".to_string());
        assert_eq!(text(false, Verbosity::Quiet), plain);
        assert_eq!(text(true, Verbosity::PerGame), plain);
        let separated = Some("\nResults of a vs b:\nElo: 0\n".to_string());
        assert_eq!(text(true, Verbosity::Quiet), separated);
    }

    #[test]
    fn standard_output_ends_each_line_once() {
        assert_eq!(lines(""), "\n");
        assert_eq!(lines("a\nb\n"), "a\nb\n");
        assert_eq!(lines("a\n\nb"), "a\n\nb\n");
    }
}
