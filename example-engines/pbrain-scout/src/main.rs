//! pbrain-scout: a small searching engine (pattern evaluation, iterative-deepening alpha-beta)
//! that honours the time, depth and node limits of the protocol and plays every rule legally.
//!
//! `--depth N` and `--nodes N` set the default limits; `INFO max_depth` / `INFO max_node` override
//! them. `--time-ms N` is the per-move budget when the manager announces no time limit;
//! `--verbose` prints a `DEBUG best .. score .. depth .. nodes ..` line before each move.
//! `INFO max_memory N` allocates (and fills) a hash table of N/16 bytes for move ordering; the
//! same line again (managers send it before every game) empties it, in O(1).
//! `--strict` reads `SWAP2BOARD` as Rapfi does (pbrain-kit's strict mode).
//!
//! It reports its real search as Rapfi does once the manager sends `INFO show_detail 2` (or 3;
//! 0, the default, and 1 print nothing): after every completed iteration, one `INFO PV k` …
//! `INFO PV DONE` detail block per principal variation, or with `--messages` one
//! `MESSAGE depth D-SD [multipv K] ev V n N n/ms S tm T pv MOVES` line each. Scores are its own
//! evaluation from the side to move's view, proven wins and losses `+M<n>` / `-M<n>` (n plies,
//! the winning move counted). `YXNBEST n` (after `YXBOARD` … `DONE`) searches the best n root
//! moves exactly and answers the best, as `TURN` would.
//!
//! Four evaluation weights are tunable parameters (`eval_open_two`, `eval_three`,
//! `eval_open_three`, `eval_four`: what an open two, a three, an open three, broken or not, and a
//! four are worth): `INFO <name> <value>` sets one for the next search (rounded to an integer and
//! clamped to its range, as Rapfi does), `--param name=value` (repeatable) at start. Without
//! them the weights are the scout's old constants. `--tune-table` prints the weights at startup,
//! before any command, as Rapfi's tuning table (`MESSAGE name,value,min,max,c_end,r_end`), which
//! `gomoku-cli tune -params` reads.

mod hash;
mod pattern;
mod search;
mod weights;

use std::io;
use std::time::Duration;

use gomoku_cli::core::board::Pos;
use pbrain_kit::report::{Form, PvReport};
use pbrain_kit::{about_line, arg_value, random_legal_move, run_with, Brain, GameState, Options};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use hash::HashTable;
use search::{limits_for, value_of, Iteration, Scout, Tables};
use weights::Weights;

const USAGE: &str = "usage: pbrain-scout [--depth N] [--nodes N] [--time-ms N] [--verbose]
                     [--strict] [--messages] [--param name=value]... [--tune-table]";

struct ScoutBrain {
    tables: Tables,
    /// Allocated when the manager announces `max_memory` (and again when it changes).
    hash: Option<(u64, HashTable)>,
    depth: u32,
    nodes: Option<u64>,
    time: Duration,
    verbose: bool,
    /// The form of the search reports (`--messages`: one-line messages).
    form: Form,
}

/// The reports of a completed iteration, one per principal variation, best first.
fn reports(it: &Iteration) -> Vec<PvReport> {
    it.lines
        .iter()
        .enumerate()
        .map(|(index, l)| PvReport {
            index,
            count: it.lines.len(),
            depth: it.depth,
            seldepth: l.seldepth,
            nodes: l.nodes,
            total_nodes: it.total_nodes,
            elapsed: it.elapsed,
            eval: value_of(l.score),
            line: l.line.clone(),
        })
        .collect()
}

impl Brain for ScoutBrain {
    fn about(&self) -> String {
        about_line("pbrain-scout", env!("CARGO_PKG_VERSION"), "gomoku-cli", "-")
    }

    fn choose(&mut self, state: &GameState) -> Option<Pos> {
        self.think(state, &mut |_| {})
    }

    fn think(&mut self, state: &GameState, say: &mut dyn FnMut(&str)) -> Option<Pos> {
        let board = state.board()?;
        let limits = limits_for(&state.limits, self.depth, self.nodes, self.time);
        let hash = self.hash.as_mut().map(|(_, h)| h);
        let mut scout = Scout::with_hash(&self.tables, hash, board, state.rule());
        let (show, form) = (state.show_detail().wants_detail(), self.form);
        let mut report = |it: &Iteration| {
            if show {
                for r in reports(it) {
                    r.lines(form).iter().for_each(|l| say(l));
                }
            }
        };
        match scout.search(state.me(), limits, state.pvs() as usize, &mut report) {
            Some(r) if state.is_legal(r.best) => {
                if self.verbose {
                    // DEBUG lines are part of the protocol: managers log them and move on.
                    println!(
                        "DEBUG best {} score {} depth {} nodes {}",
                        r.best, r.score, r.depth, r.nodes
                    );
                }
                Some(r.best)
            }
            // Defensive: never send an illegal point, whatever the search thought.
            _ => random_legal_move(state, &mut ChaCha8Rng::seed_from_u64(0)),
        }
    }

    fn info(&mut self, key: &str, value: &str) {
        if key != "max_memory" {
            // A tunable weight; a value that is no number leaves it as it was.
            if let Err(e) = self.tables.weights.set(key, value) {
                if self.verbose {
                    println!("DEBUG {e}");
                }
            }
            return;
        }
        // 0 means no limit: a modest table then.
        let bytes = match value.trim().parse::<u64>() {
            Ok(0) => 64 << 20,
            Ok(b) => b,
            Err(_) => return,
        };
        match &mut self.hash {
            // Managers send max_memory before every game: a new game starts from an empty
            // table, so a position's search never depends on the games before it (fixed-depth
            // results are the same in any order, on any shard, after any resume).
            Some((b, table)) if *b == bytes => table.clear(),
            _ => {
                self.hash = None; // free the old table before taking the new one
                let table = HashTable::new(bytes);
                if self.verbose {
                    println!("DEBUG hash {} bytes", table.bytes());
                }
                self.hash = Some((bytes, table));
            }
        }
    }
}

fn parse_num<T: std::str::FromStr>(args: &[String], name: &str) -> Result<Option<T>, String> {
    match arg_value(args, name) {
        None => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|_| format!("{name} expects a non-negative integer, got {v:?}\n{USAGE}")),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return;
    }
    let parsed = (|| -> Result<_, String> {
        Ok((
            parse_num::<u32>(&args, "--depth")?.unwrap_or(6).max(1),
            parse_num::<u64>(&args, "--nodes")?,
            parse_num::<u64>(&args, "--time-ms")?.unwrap_or(2000),
            Weights::from_args(&args).map_err(|e| format!("{e}\n{USAGE}"))?,
        ))
    })();
    let (depth, nodes, time_ms, weights) = match parsed {
        Ok(v) => v,
        Err(e) => {
            eprintln!("pbrain-scout: {e}");
            std::process::exit(2);
        }
    };
    if args.iter().any(|a| a == "--tune-table") {
        weights.table().iter().for_each(|l| println!("{l}"));
    }
    let mut tables = Tables::new();
    tables.weights = weights;
    let mut brain = ScoutBrain {
        tables,
        hash: None,
        depth,
        nodes,
        time: Duration::from_millis(time_ms),
        verbose: args.iter().any(|a| a == "--verbose"),
        form: if args.iter().any(|a| a == "--messages") {
            Form::Message
        } else {
            Form::Detail
        },
    };
    let options = Options {
        nbest: true,
        ..Options::from_args(&args)
    };
    if let Err(e) = run_with(&mut brain, io::stdin().lock(), io::stdout().lock(), options) {
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("pbrain-scout: {e}");
            std::process::exit(1);
        }
    }
}
