//! The finished game: the value the dispatcher fans out to the journal and every record
//! (`formats` renders it, `outputs` writes it), with the engines' use of time and memory.

use std::fmt::Write;
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::core::board::{BoardSize, Color, Pos, Symmetry};
use crate::core::rules::Rule;
use crate::core::search::SearchReport;
use crate::core::swap::{Role, SwapRecord};
use crate::engine::LineCounts;
use crate::game::termination::{GameResult, Termination};
use crate::schedule::{EngineId, GameId};

/// One played move with its think time and what the engine said about its search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedMove {
    pub pos: Pos,
    pub time: Duration,
    /// Boxed: most moves of most engines carry none, and a game keeps every move.
    pub search: Option<Box<SearchReport>>,
}

/// Everything the referee knows about a finished game. Result, reason and fault come from the
/// termination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameOutcome {
    pub termination: Termination,
    /// Legal moves played after the opening, in order, with think times.
    pub moves: Vec<PlayedMove>,
    /// `MESSAGE` lines in order, by colour.
    pub messages: Vec<(Color, String)>,
}

impl GameOutcome {
    /// The result from black's side.
    pub fn result(&self) -> GameResult {
        self.termination.result()
    }
}

/// Whether the text records quote what the engines said about their search (`-records
/// evals=on|off`). A game without any report renders the same either way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Evals {
    /// Every move with a report carries it: PGN and SGF comments, a line in the messages.
    #[default]
    On,
    /// The records as if no engine had reported.
    Off,
}

/// A value of `evals=` that is neither `on` nor `off`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("evals={0}: expected on or off")]
pub struct BadEvals(pub String);

impl std::str::FromStr for Evals {
    type Err = BadEvals;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "on" => Ok(Evals::On),
            "off" => Ok(Evals::Off),
            _ => Err(BadEvals(s.to_string())),
        }
    }
}

impl Evals {
    /// The `-records` settings (`evals=on|off`) as the run, `export` and `merge` take them.
    pub fn from_settings(kvs: &[(String, String)]) -> Result<Evals, RecordsSettingError> {
        let mut evals = Evals::default();
        for (k, v) in kvs {
            match k.as_str() {
                "evals" => evals = v.parse()?,
                _ => return Err(RecordsSettingError::UnknownKey(k.clone())),
            }
        }
        Ok(evals)
    }
}

/// A `-records` setting that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordsSettingError {
    /// A key other than `evals`.
    #[error("unknown key {0:?} (known: evals)")]
    UnknownKey(String),
    /// `evals=` with a value other than `on`/`off`.
    #[error("{0}")]
    Evals(#[from] BadEvals),
}

/// Seconds as cutechess writes a move's time in its PGN comments: three decimals under 0.1 s,
/// two under 1 s, one under 10 s, none above (`0.051s`, `0.51s`, `5.1s`, `51s`).
pub fn seconds_text(t: Duration) -> String {
    let ms = t.as_millis();
    let digits = match ms {
        0 => return "0s".into(),
        1..=99 => 3,
        100..=999 => 2,
        1000..=9999 => 1,
        _ => 0,
    };
    // Whole milliseconds, as the journal keeps them: `export` writes the same text.
    format!("{:.digits$}s", ms as f64 / 1000.0)
}

/// What an engine said about one move's search in one line, every field it gave: `eval +35
/// depth 12-20 nodes 48210 time 510ms pv h9 i10 h10` (with several PVs, `multipv h9 +35 i10
/// +20` after). Shared by the SGF comments and the messages file.
pub fn report_text(s: &SearchReport, size: BoardSize) -> String {
    let mut t = String::new();
    let mut field = |key: &str, value: &dyn std::fmt::Display| {
        if !t.is_empty() {
            t.push(' ');
        }
        let _ = write!(t, "{key} {value}");
    };
    if let Some(e) = s.eval {
        field("eval", &e);
    }
    match (s.depth, s.seldepth) {
        (Some(d), Some(sd)) => field("depth", &format_args!("{d}-{sd}")),
        (Some(d), None) => field("depth", &d),
        (None, Some(sd)) => field("seldepth", &sd),
        (None, None) => {}
    }
    if let Some(n) = s.nodes {
        field("nodes", &n);
    }
    if let Some(ms) = s.time_ms {
        field("time", &format_args!("{ms}ms"));
    }
    let one = |p: &Pos| moves_text(std::slice::from_ref(p), size);
    if !s.pv.is_empty() {
        let pv: Vec<String> = s.pv.iter().map(one).collect();
        field("pv", &pv.join(" "));
    }
    if !s.multipv.is_empty() {
        let alternatives: Vec<String> = (s.multipv.iter())
            .map(|m| match m.eval {
                Some(e) => format!("{} {e}", one(&m.pos)),
                None => one(&m.pos),
            })
            .collect();
        field("multipv", &alternatives.join(" "));
    }
    t
}

/// A finished game with everything the outputs need.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRecord {
    pub game: GameId,
    pub round: u64,
    pub pair: usize,
    /// Index of the game within its pair across rounds (games `2m`, `2m+1` share an opening with -repeat).
    pub pair_game: u64,
    pub black: EngineId,
    pub white: EngineId,
    pub black_name: String,
    pub white_name: String,
    /// The engines' `cmd=` as given: the identity of what played.
    pub black_cmd: String,
    pub white_cmd: String,
    pub size: BoardSize,
    pub rule: Rule,
    /// Opening stones as played (after the transform), black first.
    pub opening: Vec<Pos>,
    /// 1-based line in the openings file, when one was used.
    pub opening_line: Option<usize>,
    pub transform: Symmetry,
    pub outcome: GameOutcome,
    pub started: DateTime<Utc>,
    pub ended: DateTime<Utc>,
    /// What each engine's processes used in the game (absent for games rebuilt from journals
    /// of earlier versions).
    pub usage: Option<GameUse>,
    /// `-swap2`/`-swap1`: how the engines chose the opening (`black`/`white` above are the
    /// colours as chosen; the phase's stones end `opening`).
    pub swap: Option<SwapRecord>,
    /// `tune`: the iteration the game belongs to, the values the engines were sent, and the
    /// step when the game completed its iteration.
    pub tune: Option<crate::tune::entry::TuneEntry>,
}

/// What one engine's processes used during one game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EngineUse {
    /// CPU time, user + system, of the engine and the processes it started, milliseconds, from
    /// its answer to `START` on: the game's thinking (and pondering), not its start-up.
    pub cpu_ms: u64,
    /// CPU time of its start-up for the game (`START`/`RESTART`: hash tables, networks),
    /// milliseconds; absent in journals written before it was counted apart.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub startup_cpu_ms: u64,
    /// Largest resident memory of those processes seen in the game (sampled while it thought
    /// and at the end), bytes.
    pub peak_memory: u64,
    /// The lines it printed that were no answer (`ERROR`, `UNKNOWN`, `DEBUG`, ...) and those
    /// dropped over the cap a move; absent when there were none.
    #[serde(default, skip_serializing_if = "LineCounts::is_empty")]
    pub lines: LineCounts,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The thinking time of `colour` in a game: the sum of its moves' times, given every played
/// move's time in order after an opening of `opening` stones (black plays the even plies).
pub fn think_ms(times_ms: impl IntoIterator<Item = u64>, opening: usize, colour: Color) -> u64 {
    times_ms
        .into_iter()
        .enumerate()
        .filter(|(i, _)| Color::of_ply(opening + i) == colour)
        .map(|(_, t)| t)
        .sum()
}

/// Both engines' use of one game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameUse {
    pub black: EngineUse,
    pub white: EngineUse,
}

impl GameRecord {
    /// Engine name of a colour.
    pub fn name_of(&self, c: Color) -> &str {
        match c {
            Color::Black => &self.black_name,
            Color::White => &self.white_name,
        }
    }

    /// The engine name of a swap role (the colours are the chosen ones).
    pub fn name_of_role(&self, swap: &SwapRecord, role: Role) -> &str {
        self.name_of(swap.colour_of(role))
    }

    /// The swap opening in words, for the SGF comment and the PGN tag: `swap2: random h8i8j10,
    /// scout i9g7, random SWAP; random plays black`.
    pub fn swap_text(&self) -> Option<String> {
        let swap = self.swap.as_ref()?;
        let mut parts: Vec<String> = swap
            .steps
            .iter()
            .map(|step| {
                let what = if step.swap {
                    "SWAP".to_string()
                } else {
                    moves_text(&step.stones, self.size)
                };
                format!("{} {what}", self.name_of_role(swap, step.by))
            })
            .collect();
        if parts.is_empty() {
            parts.push("no answer".into());
        }
        let mut text = format!("{}: {}", swap.rule, parts.join(", "));
        if let Some((role, answer)) = &swap.unsupported {
            let name = self.name_of_role(swap, *role);
            text.push_str(&format!(
                "; {name} answered {answer:?} (no SWAP2BOARD): played without a swap"
            ));
        } else if swap.decided() {
            let name = self.name_of_role(swap, Role::Proposer);
            text.push_str(&format!("; {name} plays {}", swap.proposer));
        }
        Some(text)
    }

    /// Each played move's search report as the records quote it: `None` when `evals` is off or
    /// no move has one (the records are then as before engines were heard), else one entry per
    /// played move.
    pub fn quoted_reports(&self, evals: Evals) -> Option<Vec<Option<&SearchReport>>> {
        let moves = &self.outcome.moves;
        if evals == Evals::Off || moves.iter().all(|m| m.search.is_none()) {
            return None;
        }
        Some(moves.iter().map(|m| m.search.as_deref()).collect())
    }

    /// Every stone on the board in play order: opening then played moves.
    pub fn all_stones(&self) -> Vec<Pos> {
        self.opening
            .iter()
            .copied()
            .chain(self.outcome.moves.iter().map(|m| m.pos))
            .collect()
    }
}

/// Render `moves` in pos notation, or in Gomocup `x,y` pairs separated by spaces where the board is
/// too large for letters (pos notation stops at 26 columns).
pub fn moves_text(moves: &[Pos], size: BoardSize) -> String {
    crate::core::board::to_pos_sequence(moves, size).unwrap_or_else(|_| {
        moves
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    })
}

#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;
    use crate::core::board::parse_pos_sequence;
    use chrono::TimeZone;
    use std::time::Duration;

    /// A small finished game used by the renderer tests.
    pub fn sample_record() -> GameRecord {
        let size = BoardSize::new(15).unwrap();
        let opening = parse_pos_sequence("h8i9", size).unwrap();
        let moves = parse_pos_sequence("h9i10h10i11h11i12h12", size).unwrap();
        GameRecord {
            game: GameId(7),
            round: 2,
            pair: 0,
            pair_game: 3,
            black: EngineId(1),
            white: EngineId(0),
            black_name: "scout".into(),
            white_name: "random".into(),
            black_cmd: "./pbrain-scout --depth 4".into(),
            white_cmd: "./pbrain-random".into(),
            size,
            rule: Rule::Freestyle,
            opening,
            opening_line: Some(12),
            transform: Symmetry::Rot90,
            outcome: GameOutcome {
                termination: Termination::Five {
                    winner: Color::Black,
                    line: parse_pos_sequence("h8h9h10h11h12", size).unwrap(),
                },
                moves: moves
                    .into_iter()
                    .enumerate()
                    .map(|(i, pos)| PlayedMove {
                        pos,
                        time: Duration::from_millis(10 * i as u64 + 3),
                        search: None,
                    })
                    .collect(),
                messages: vec![(Color::Black, "depth 4 eval 120".into())],
            },
            started: Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap(),
            ended: Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 5).unwrap(),
            usage: None,
            swap: None,
            tune: None,
        }
    }

    /// A search report with an evaluation (`+35`, `-M4`) and a depth.
    pub fn report(eval: &str, depth: Option<u32>) -> crate::core::search::SearchReport {
        crate::core::search::SearchReport {
            eval: Some(eval.parse().unwrap()),
            depth,
            ..Default::default()
        }
    }

    /// `r` with reports on every played move but the first (played without a search, as
    /// engines do): full ones for black, a mate for white's last.
    pub fn with_reports(mut r: GameRecord) -> GameRecord {
        let size = r.size;
        let n = r.outcome.moves.len();
        for (i, m) in r.outcome.moves.iter_mut().enumerate().skip(1) {
            let mut s = report(if i + 1 == n { "-M3" } else { "+35" }, Some(4 + i as u32));
            if i % 2 == 0 {
                s.seldepth = Some(9);
                s.nodes = Some(48_210 * i as u64);
                s.time_ms = Some(510);
                s.pv = parse_pos_sequence("h9i10h10", size).unwrap();
            }
            if i == 2 {
                s.multipv = vec![
                    crate::core::search::PvMove {
                        pos: s.pv[0],
                        eval: s.eval,
                    },
                    crate::core::search::PvMove {
                        pos: Pos::new(0, 0),
                        eval: None,
                    },
                ];
            }
            m.search = Some(Box::new(s));
        }
        r
    }

    /// A swap2 game: random proposed h8 i8 j10, scout placed i9 g7, random took black with
    /// SWAP (scout, white, then played the moves).
    pub fn swap_record() -> GameRecord {
        use crate::core::swap::{Step, SwapRule};
        let mut r = sample_record();
        let size = r.size;
        let stones = |t: &str| parse_pos_sequence(t, size).unwrap();
        r.opening = stones("h8i8j10i9g7");
        r.outcome.moves.truncate(6);
        r.outcome.termination = Termination::TimeForfeit {
            by: Color::White,
            elapsed: Duration::from_millis(6100),
            limit: Duration::from_secs(5),
            said: None,
        };
        r.black = EngineId(0);
        r.white = EngineId(1);
        r.black_name = "random".into();
        r.white_name = "scout".into();
        std::mem::swap(&mut r.black_cmd, &mut r.white_cmd);
        let step = |by, swap, t: &str, ms| Step {
            by,
            swap,
            stones: stones(t),
            time: Duration::from_millis(ms),
            form: None,
        };
        r.swap = Some(SwapRecord {
            rule: SwapRule::Swap2,
            proposer: Color::Black,
            steps: vec![
                step(Role::Proposer, false, "h8i8j10", 12),
                step(Role::Chooser, false, "i9g7", 40),
                step(Role::Proposer, true, "", 3),
            ],
            unsupported: None,
        });
        r
    }
}
