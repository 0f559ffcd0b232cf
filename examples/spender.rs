//! An engine for `bench/timing.sh` that uses most of its time and says how long it thought.
//!
//! On each move it spins the CPU (as a searching engine does) for
//! `min(timeout_turn, time_left / 10) - margin`, then writes `MESSAGE spent_us N`, N being its own
//! measurement from the moment the move's command line was read to just before its answer, then
//! a free point nearest the centre (freestyle only: enough for a timing study). The runner's think
//! time of the same move, in the journal, can then be set against the engine's own figure.
//!
//! ```text
//! spender [--margin-ms M]    # default 5
//! ```

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let margin_ms: u64 = match args.iter().position(|a| a == "--margin-ms") {
        Some(i) => match args.get(i + 1).and_then(|v| v.parse().ok()) {
            Some(v) => v,
            None => {
                eprintln!("spender: --margin-ms expects milliseconds");
                std::process::exit(2);
            }
        },
        None => 5,
    };
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut engine = Engine {
        size: 15,
        stones: Vec::new(),
        turn_ms: None,
        left_ms: None,
        margin: Duration::from_millis(margin_ms),
        board_start: None,
    };
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let start = Instant::now();
        let Some(reply) = engine.answer(line.trim(), start) else {
            continue;
        };
        if reply == "END" || out.write_all(reply.as_bytes()).is_err() || out.flush().is_err() {
            return;
        }
    }
}

struct Engine {
    size: i32,
    stones: Vec<(i32, i32)>,
    turn_ms: Option<u64>,
    left_ms: Option<u64>,
    margin: Duration,
    /// While a BOARD block is read: when its first line arrived (the move's clock starts there).
    board_start: Option<Instant>,
}

impl Engine {
    /// The text to write for one input line (None: nothing), "END" to stop.
    fn answer(&mut self, line: &str, start: Instant) -> Option<String> {
        let upper = line.to_ascii_uppercase();
        let mut words = upper.split_whitespace();
        let first = words.next()?;
        if self.board_start.is_some() {
            if first == "DONE" {
                let start = self.board_start.take().unwrap_or(start);
                return Some(self.think(start));
            }
            let nums: Vec<i32> = first.split(',').filter_map(|v| v.parse().ok()).collect();
            if nums.len() >= 2 {
                self.stones.push((nums[0], nums[1]));
            }
            return None;
        }
        match first {
            "START" => {
                self.size = words.next().and_then(|v| v.parse().ok()).unwrap_or(15);
                self.stones.clear();
                Some("OK\r\n".into())
            }
            "RESTART" => {
                self.stones.clear();
                Some("OK\r\n".into())
            }
            "INFO" => {
                let (key, value) = (words.next()?, words.next()?.parse::<i64>().ok()?);
                let ms = u64::try_from(value).ok();
                match key {
                    "TIMEOUT_TURN" => self.turn_ms = ms.filter(|&v| v > 0),
                    "TIME_LEFT" => self.left_ms = ms.filter(|&v| v < 2_147_483_647),
                    _ => {}
                }
                None
            }
            "ABOUT" => Some("name=\"spender\", version=\"1\"\r\n".into()),
            "BEGIN" => Some(self.think(start)),
            "TURN" => {
                let nums: Vec<i32> = words
                    .next()?
                    .split(',')
                    .filter_map(|v| v.parse().ok())
                    .collect();
                if nums.len() == 2 {
                    self.stones.push((nums[0], nums[1]));
                }
                Some(self.think(start))
            }
            "BOARD" => {
                self.stones.clear();
                self.board_start = Some(start);
                None
            }
            "END" => Some("END".into()),
            _ => Some("UNKNOWN\r\n".into()),
        }
    }

    /// Spin for the budget, then the message and the move.
    fn think(&mut self, start: Instant) -> String {
        let mut ms = self.turn_ms.unwrap_or(u64::MAX);
        if let Some(left) = self.left_ms {
            ms = ms.min(left / 10);
        }
        if ms == u64::MAX {
            ms = 0;
        }
        let budget = Duration::from_millis(ms).saturating_sub(self.margin);
        let mut spins = 0u64;
        while start.elapsed() < budget {
            spins = std::hint::black_box(spins.wrapping_add(1));
        }
        let mv = self.free_point();
        self.stones.push(mv);
        let spent = start.elapsed().as_micros();
        format!("MESSAGE spent_us {spent}\r\n{},{}\r\n", mv.0, mv.1)
    }

    /// The free point nearest the centre (in rings), or the corner when the board is full.
    fn free_point(&self) -> (i32, i32) {
        let c = self.size / 2;
        for r in 0..=c + 1 {
            for y in (c - r).max(0)..=(c + r).min(self.size - 1) {
                for x in (c - r).max(0)..=(c + r).min(self.size - 1) {
                    if !self.stones.contains(&(x, y)) {
                        return (x, y);
                    }
                }
            }
        }
        (0, 0)
    }
}
