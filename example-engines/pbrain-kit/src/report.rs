//! Search reports in the two forms engines print them while they think: the Yixin-Board `INFO`
//! detail block (`INFO PV k` … `INFO PV DONE`, asked for with `INFO show_detail 2`) and the
//! one-line `MESSAGE depth D-SD ev V n N n/ms S tm T pv MOVES` of Rapfi's message mode.
//!
//! Only the text lives here: what is reported (depth, nodes, the line) is the engine's business.

use std::fmt;
use std::time::Duration;

use gomoku_cli::core::board::Pos;

/// Ordinary evaluations are clamped to this, as Rapfi does; proven wins and losses are mates.
pub const EVAL_CLAMP: i32 = 6000;

/// What `INFO show_detail N` asks for: 0 nothing, 1 realtime highlights, 2 detail blocks,
/// 3 both. Unknown values count as nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ShowDetail {
    #[default]
    Nothing,
    Realtime,
    Detail,
    Both,
}

impl ShowDetail {
    /// The value of an `INFO show_detail` line.
    pub fn from_info(value: &str) -> ShowDetail {
        match value.trim() {
            "1" => ShowDetail::Realtime,
            "2" => ShowDetail::Detail,
            "3" => ShowDetail::Both,
            _ => ShowDetail::Nothing,
        }
    }

    /// Whether the manager asked for the search's progress (detail blocks, or both).
    pub fn wants_detail(self) -> bool {
        matches!(self, ShowDetail::Detail | ShowDetail::Both)
    }
}

/// Which form a report takes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Form {
    /// `INFO` detail blocks.
    #[default]
    Detail,
    /// One `MESSAGE depth …` line per principal variation.
    Message,
}

/// An evaluation from the side to move's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// The engine's own scale, printed clamped to ±[`EVAL_CLAMP`].
    Score(i32),
    /// A proven win in this many plies (the winning move counted).
    Win(u32),
    /// A proven loss in this many plies.
    Loss(u32),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Value::Score(v) => write!(f, "{}", v.clamp(-EVAL_CLAMP, EVAL_CLAMP)),
            Value::Win(n) => write!(f, "+M{n}"),
            Value::Loss(n) => write!(f, "-M{n}"),
        }
    }
}

impl Value {
    /// The win rate the score stands for: the logistic curve trainers use (`1 / (1 +
    /// exp(-v / 200))`), 1 and 0 for proven wins and losses.
    pub fn winrate(self) -> f64 {
        match self {
            Value::Score(v) => {
                let v = f64::from(v.clamp(-EVAL_CLAMP, EVAL_CLAMP));
                1.0 / (1.0 + (-v / 200.0).exp())
            }
            Value::Win(_) => 1.0,
            Value::Loss(_) => 0.0,
        }
    }
}

/// One principal variation of a completed iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct PvReport {
    /// 0-based; PV 0 is the best move.
    pub index: usize,
    /// How many principal variations this iteration reports.
    pub count: usize,
    pub depth: u32,
    pub seldepth: u32,
    /// Nodes searched under this PV's first move.
    pub nodes: u64,
    /// Nodes of the whole search so far.
    pub total_nodes: u64,
    /// Since the search started.
    pub elapsed: Duration,
    pub eval: Value,
    /// The variation, its first move the move it evaluates.
    pub line: Vec<Pos>,
}

impl PvReport {
    /// Nodes per second of the whole search so far.
    pub fn speed(&self) -> u64 {
        let micros = self.elapsed.as_micros().max(1);
        (u128::from(self.total_nodes) * 1_000_000 / micros).min(u128::from(u64::MAX)) as u64
    }

    /// The detail block: `INFO PV k` … `INFO PV DONE`, in the Yixin-Board order.
    pub fn detail_lines(&self) -> Vec<String> {
        let line: Vec<String> = self.line.iter().map(Pos::to_string).collect();
        vec![
            format!("INFO PV {}", self.index),
            format!("INFO NUMPV {}", self.count),
            format!("INFO DEPTH {}", self.depth),
            format!("INFO SELDEPTH {}", self.seldepth),
            format!("INFO NODES {}", self.nodes),
            format!("INFO TOTALNODES {}", self.total_nodes),
            format!("INFO TOTALTIME {}", self.elapsed.as_millis()),
            format!("INFO SPEED {}", self.speed()),
            format!("INFO EVAL {}", self.eval),
            format!("INFO WINRATE {:.4}", self.eval.winrate()),
            format!("INFO BESTLINE {}", line.join(" ")),
            "INFO PV DONE".to_string(),
        ]
    }

    /// The one-line form; `multipv K` (1-based) only when there are several PVs.
    pub fn message_line(&self) -> String {
        let multipv = if self.count > 1 {
            format!(" multipv {}", self.index + 1)
        } else {
            String::new()
        };
        let moves: String = self.line.iter().map(|&p| move_letters(p)).collect();
        format!(
            "MESSAGE depth {}-{}{multipv} ev {} n {} n/ms {} tm {} pv {moves}",
            self.depth,
            self.seldepth,
            self.eval,
            nodes_text(self.total_nodes),
            self.speed() / 1000,
            self.elapsed.as_millis(),
        )
    }

    /// The lines of this report in `form`.
    pub fn lines(&self, form: Form) -> Vec<String> {
        match form {
            Form::Detail => self.detail_lines(),
            Form::Message => vec![self.message_line()],
        }
    }
}

/// A point as the message form writes it: the column as a letter from `A` (boards wider than 26
/// go on with the ASCII characters after `Z`), the row from 1: `7,7` is `H8`.
pub fn move_letters(p: Pos) -> String {
    format!("{}{}", char::from(b'A' + p.x), u32::from(p.y) + 1)
}

/// A node count with a `K` or `M` suffix once it is large: `9999`, `12K`, `3M`.
pub fn nodes_text(n: u64) -> String {
    match n {
        0..10_000 => n.to_string(),
        10_000..10_000_000 => format!("{}K", n / 1000),
        _ => format!("{}M", n / 1_000_000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(index: usize, count: usize) -> PvReport {
        PvReport {
            index,
            count,
            depth: 4,
            seldepth: 6,
            nodes: 900,
            total_nodes: 12_345,
            elapsed: Duration::from_millis(250),
            eval: Value::Score(35),
            line: vec![Pos::new(7, 7), Pos::new(8, 8), Pos::new(9, 9)],
        }
    }

    #[test]
    fn a_detail_block_has_every_line_in_order() {
        assert_eq!(
            sample(1, 3).detail_lines(),
            [
                "INFO PV 1",
                "INFO NUMPV 3",
                "INFO DEPTH 4",
                "INFO SELDEPTH 6",
                "INFO NODES 900",
                "INFO TOTALNODES 12345",
                "INFO TOTALTIME 250",
                "INFO SPEED 49380",
                "INFO EVAL 35",
                "INFO WINRATE 0.5436",
                "INFO BESTLINE 7,7 8,8 9,9",
                "INFO PV DONE",
            ]
        );
    }

    #[test]
    fn the_message_form_follows_rapfis_grammar() {
        assert_eq!(
            sample(0, 1).message_line(),
            "MESSAGE depth 4-6 ev 35 n 12K n/ms 49 tm 250 pv H8I9J10"
        );
        let mut r = sample(2, 3);
        r.eval = Value::Loss(4);
        assert_eq!(
            r.message_line(),
            "MESSAGE depth 4-6 multipv 3 ev -M4 n 12K n/ms 49 tm 250 pv H8I9J10"
        );
        assert_eq!(r.lines(Form::Message), [r.message_line()]);
        assert_eq!(r.lines(Form::Detail).len(), 12);
    }

    #[test]
    fn values_print_plain_clamped_or_as_mates() {
        assert_eq!(Value::Score(-120).to_string(), "-120");
        assert_eq!(Value::Score(123_456).to_string(), "6000");
        assert_eq!(Value::Score(-123_456).to_string(), "-6000");
        assert_eq!(Value::Win(5).to_string(), "+M5");
        assert_eq!(Value::Loss(2).to_string(), "-M2");
        assert_eq!(Value::Score(0).winrate(), 0.5);
        assert_eq!(Value::Win(1).winrate(), 1.0);
        assert!(Value::Score(-400).winrate() < 0.2);
    }

    #[test]
    fn node_counts_and_points_in_the_message_form() {
        assert_eq!(nodes_text(9_999), "9999");
        assert_eq!(nodes_text(12_345), "12K");
        assert_eq!(nodes_text(34_000_000), "34M");
        assert_eq!(move_letters(Pos::new(0, 0)), "A1");
        assert_eq!(move_letters(Pos::new(14, 14)), "O15");
    }

    #[test]
    fn show_detail_levels() {
        assert_eq!(ShowDetail::from_info("0"), ShowDetail::Nothing);
        assert!(!ShowDetail::from_info("1").wants_detail());
        assert!(ShowDetail::from_info("2").wants_detail());
        assert!(ShowDetail::from_info(" 3").wants_detail());
        assert_eq!(ShowDetail::from_info("banana"), ShowDetail::Nothing);
    }
}
