//! pbrain-random: answers every move instantly with a random legal point (near the stones when it
//! can), for every rule and board size 5..=32. `--seed N` makes it reproducible; `--strict` reads
//! `SWAP2BOARD` as Rapfi does (pbrain-kit's strict mode). With `--first-empty` it plays the first
//! legal point in reading order instead: every game the same, the cheapest possible answer, for
//! benchmarks that pair two runners on identical games (on 15×15 freestyle, black makes five on
//! the anti-diagonal at move 61). `--exclusive FILE` makes it a witness of the runner's
//! `slots=`/`-ponder` caps: it holds a lock on FILE while it thinks (`--think-ms N`, default 20),
//! and when another process holds it — the same engine thinking in another game at that moment —
//! it appends a line to `FILE.clashes`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use gomoku_cli::core::board::Pos;
use pbrain_kit::{
    about_line, random_legal_move, run_with, seed_from_args, Brain, GameState, Options,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

struct RandomBrain {
    rng: ChaCha8Rng,
    /// `--first-empty`: the first legal point in reading order, no randomness.
    first_empty: bool,
    /// `--exclusive FILE`: the lock held while thinking, and how long a move takes.
    exclusive: Option<(PathBuf, Duration)>,
}

impl RandomBrain {
    /// Think for the set time holding the lock; a lock held elsewhere is a clash, written down.
    fn think_alone(&self) {
        let Some((path, think)) = &self.exclusive else {
            return;
        };
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path);
        let Ok(lock) = lock else { return };
        if lock.try_lock().is_err() {
            let mut clashes = path.clone().into_os_string();
            clashes.push(".clashes");
            let log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(clashes);
            if let Ok(mut log) = log {
                let _ = writeln!(log, "{}", std::process::id());
            }
        }
        std::thread::sleep(*think);
        // Dropping the file releases the lock.
    }
}

impl Brain for RandomBrain {
    fn about(&self) -> String {
        about_line(
            "pbrain-random",
            env!("CARGO_PKG_VERSION"),
            "gomoku-cli",
            "-",
        )
    }

    fn choose(&mut self, state: &GameState) -> Option<Pos> {
        self.think_alone();
        if self.first_empty {
            let board = state.board()?;
            return board.size().all().find(|&p| state.is_legal(p));
        }
        random_legal_move(state, &mut self.rng)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!(
            "usage: pbrain-random [--seed N] [--strict] [--first-empty] \
             [--exclusive FILE [--think-ms N]]"
        );
        return;
    }
    let seed = match seed_from_args(&args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("pbrain-random: {e}");
            std::process::exit(2);
        }
    };
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
    };
    let think = match value("--think-ms").map(|v| v.parse::<u64>()) {
        None => Duration::from_millis(20),
        Some(Ok(ms)) => Duration::from_millis(ms),
        Some(Err(e)) => {
            eprintln!("pbrain-random: --think-ms: {e}");
            std::process::exit(2);
        }
    };
    let mut brain = RandomBrain {
        rng: ChaCha8Rng::seed_from_u64(seed),
        first_empty: args.iter().any(|a| a == "--first-empty"),
        exclusive: value("--exclusive").map(|f| (PathBuf::from(f), think)),
    };
    let options = Options::from_args(&args);
    if let Err(e) = run_with(&mut brain, io::stdin().lock(), io::stdout().lock(), options) {
        // A closed pipe just means the manager went away.
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("pbrain-random: {e}");
            std::process::exit(1);
        }
    }
}
