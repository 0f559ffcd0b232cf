//! The journal's wire contract: the header line and one JSON line per finished game, their
//! field names (a public contract, documented in docs/formats/journal.md) and their rendering.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::core::board::{BoardSize, Color, Pos, Symmetry};
use crate::core::rules::Rule;
use crate::core::swap::{Role, Step, Swap2Form, SwapRecord, SwapRule};
use crate::game::record::{moves_text, GameOutcome, GameRecord, PlayedMove};
use crate::game::termination::{termination_code, GameResult, Termination};
use crate::schedule::{EngineId, GameId};

/// Declares the game line once: `JournalEntry` with every field in the order the line writes
/// them, and `GameSummary` with the fields marked `summary`, with the same types, names and
/// serde attributes, and the `From<&JournalEntry>` that copies them, so the two cannot drift.
macro_rules! game_line {
    (
        $(#[$entry_attr:meta])* pub struct JournalEntry { $($fields:tt)* }
        $(#[$summary_attr:meta])* pub struct GameSummary;
    ) => {
        game_line!(@field [$(#[$entry_attr])*] [] [$(#[$summary_attr])*] [] [] $($fields)*);
    };
    // Every field looked at: the two structs and the conversion.
    (@field [$($entry_attr:tt)*] [$($entry:tt)*] [$($summary_attr:tt)*] [$($summary:tt)*]
        [$($name:ident)*]) => {
        $($entry_attr)* pub struct JournalEntry { $($entry)* }

        $($summary_attr)* pub struct GameSummary { $($summary)* }

        impl From<&JournalEntry> for GameSummary {
            fn from(e: &JournalEntry) -> Self {
                GameSummary { $($name: Clone::clone(&e.$name)),* }
            }
        }
    };
    // A field marked `summary`: in both.
    (@field [$($entry_attr:tt)*] [$($entry:tt)*] [$($summary_attr:tt)*] [$($summary:tt)*]
        [$($name:ident)*] $(#[$m:meta])* summary pub $f:ident : $t:ty, $($rest:tt)*) => {
        game_line!(@field [$($entry_attr)*] [$($entry)* $(#[$m])* pub $f: $t,]
            [$($summary_attr)*] [$($summary)* $(#[$m])* pub $f: $t,] [$($name)* $f] $($rest)*);
    };
    // Any other field: the line's alone.
    (@field [$($entry_attr:tt)*] [$($entry:tt)*] [$($summary_attr:tt)*] [$($summary:tt)*]
        [$($name:ident)*] $(#[$m:meta])* pub $f:ident : $t:ty, $($rest:tt)*) => {
        game_line!(@field [$($entry_attr)*] [$($entry)* $(#[$m])* pub $f: $t,]
            [$($summary_attr)*] [$($summary)*] [$($name)*] $($rest)*);
    };
}

game_line! {
/// One journal line. Field names are a public contract (documented in docs/formats/journal.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// 1-based game number in the schedule.
    summary pub game: u64,
    /// 1-based round.
    pub round: u64,
    /// Index of the engine pair (0-based).
    summary pub pair: usize,
    /// Index of the game within its pair, across rounds (`2m`, `2m+1` share an opening with -repeat).
    summary pub pair_game: u64,
    /// Engine names.
    summary pub black: String,
    summary pub white: String,
    /// Engine indices (order of `-engine` options, 0-based).
    summary pub black_engine: usize,
    summary pub white_engine: usize,
    /// The engines' commands as given with `cmd=`.
    #[serde(default)]
    pub black_cmd: String,
    #[serde(default)]
    pub white_cmd: String,
    pub size: u8,
    pub rule: u8,
    /// Opening stones in pos notation (after the transform).
    summary pub opening: String,
    /// 1-based line of the openings file.
    pub opening_line: Option<usize>,
    /// Symmetry applied to the opening (`identity`, `rotate90`, ...).
    pub transform: String,
    /// Moves played after the opening, pos notation, in order.
    pub moves: String,
    /// Think time per played move, milliseconds.
    pub times_ms: Vec<u64>,
    /// A forbidden move that ended the game (not on the board), pos notation.
    pub forbidden_move: Option<String>,
    /// `"1-0"` black won, `"0-1"` white won, `"1/2-1/2"`.
    #[serde(with = "result_text")]
    summary pub result: GameResult,
    /// `Termination` variant in snake case.
    pub termination: String,
    pub reason: String,
    /// RFC 3339 timestamps.
    pub started: String,
    summary pub ended: String,
    /// Identity of the run's configuration: games from different configurations must not be mixed.
    summary pub fingerprint: String,
    /// How the game ended, in full: with `messages`, what `export` and `-resume` rebuild the other
    /// records from (absent in journals of earlier versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<Termination>,
    /// The engines' `MESSAGE` lines, in order, by colour.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<(Color, String)>,
    /// `-loseonly`: the game went to the journal only, not to the other records.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub journal_only: bool,
    /// Sizes of the other record files just before this game was appended to them, so `-resume`
    /// can tell whether a kill came between the journal line and those records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<OutputSizes>,
    /// CPU time and peak memory of each engine's processes in the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::game::record::GameUse>,
    /// `-swap2`/`-swap1`: how the engines chose the opening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swap: Option<SwapEntry>,
    /// What the engines said about their search, one entry per played move (`null` where the
    /// engine said nothing); absent when no move carries a report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub search: Vec<Option<crate::formats::journal::SearchEntry>>,
    /// `tune`: the game's iteration, the values sent, and the step it completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tune: Option<crate::tune::entry::TuneEntry>,
}

/// The fields of a game line that statistics need (those marked `summary` above): what `sprt`,
/// `merge` and the shards' sync read (everything else in the line is skipped unparsed, which
/// makes reading large journals several times faster).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct GameSummary;
}

/// A game's swap opening as the journal writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapEntry {
    /// `swap1` or `swap2`.
    pub rule: String,
    /// Engine names: the proposer (the engine scheduled black) and the chooser.
    pub proposer: String,
    pub chooser: String,
    /// The colour the proposer played in the game (`black` when the phase did not decide).
    pub proposer_plays: Color,
    /// The answers in order.
    pub steps: Vec<SwapStepEntry>,
    /// An engine answered `UNKNOWN`/`ERROR`: the game was played without a swap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsupported: Option<SwapUnsupported>,
}

/// One answer of a swap opening.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapStepEntry {
    /// `proposer` or `chooser`.
    pub by: Role,
    /// The answer was `SWAP`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub swap: bool,
    /// The stones placed, pos notation (empty for `SWAP`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stones: String,
    /// Think time, milliseconds (on the engine's clock).
    pub ms: u64,
    /// `board` when the engine was asked in `BOARD`'s form (`x,y,c` lines), as Rapfi reads
    /// `SWAP2BOARD`; absent for the protocol page's `x,y` lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<Swap2Form>,
}

/// The engine that did not support `SWAP2BOARD`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapUnsupported {
    pub by: Role,
    /// Its answer line.
    pub answer: String,
}

impl SwapEntry {
    fn from_record(r: &GameRecord, swap: &SwapRecord) -> Self {
        SwapEntry {
            rule: swap.rule.name().to_string(),
            proposer: r.name_of_role(swap, Role::Proposer).to_string(),
            chooser: r.name_of_role(swap, Role::Chooser).to_string(),
            proposer_plays: swap.proposer,
            steps: swap
                .steps
                .iter()
                .map(|s| SwapStepEntry {
                    by: s.by,
                    swap: s.swap,
                    stones: moves_text(&s.stones, r.size),
                    ms: s.time.as_millis() as u64,
                    form: s.form,
                })
                .collect(),
            unsupported: swap
                .unsupported
                .as_ref()
                .map(|(by, answer)| SwapUnsupported {
                    by: *by,
                    answer: answer.clone(),
                }),
        }
    }

    /// The record this entry was written from (`bad` names a field that cannot be read).
    fn to_record(
        &self,
        size: BoardSize,
        bad: impl Fn(&'static str, &str, String) -> RebuildError,
    ) -> Result<SwapRecord, RebuildError> {
        let rule = SwapRule::from_name(&self.rule)
            .ok_or_else(|| bad("swap.rule", &self.rule, "not swap1 or swap2".into()))?;
        let steps = self
            .steps
            .iter()
            .map(|s| {
                let stones = parse_moves_text(&s.stones, size)
                    .map_err(|e| bad("swap.steps.stones", &s.stones, e.to_string()))?;
                Ok(Step {
                    by: s.by,
                    swap: s.swap,
                    stones,
                    time: std::time::Duration::from_millis(s.ms),
                    form: s.form,
                })
            })
            .collect::<Result<_, RebuildError>>()?;
        Ok(SwapRecord {
            rule,
            proposer: self.proposer_plays,
            steps,
            unsupported: self.unsupported.as_ref().map(|u| (u.by, u.answer.clone())),
        })
    }
}

/// A result as the journal writes it (`1-0`, `0-1`, `1/2-1/2`): read once, here, so a line
/// with another result is a bad line, named with its file and line number.
/// A result as journals write it (`1-0`, `0-1`, `1/2-1/2`), for serde: every reader of game
/// lines parses it once, here.
pub mod result_text {
    use crate::game::termination::GameResult;

    pub fn serialize<S: serde::Serializer>(r: &GameResult, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(r.as_str())
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<GameResult, D::Error> {
        let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Byte sizes of the record files (those the run writes) before a game's records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputSizes {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pgn: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sgf: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<u64>,
}

impl OutputSizes {
    /// The size recorded for a text format's file.
    pub fn text(&self, f: crate::formats::text_records::TextFormat) -> Option<u64> {
        use crate::formats::text_records::TextFormat;
        match f {
            TextFormat::Pgn => self.pgn,
            TextFormat::Sgf => self.sgf,
            TextFormat::Msg => self.msg,
        }
    }

    fn text_mut(&mut self, f: crate::formats::text_records::TextFormat) -> &mut Option<u64> {
        use crate::formats::text_records::TextFormat;
        match f {
            TextFormat::Pgn => &mut self.pgn,
            TextFormat::Sgf => &mut self.sgf,
            TextFormat::Msg => &mut self.msg,
        }
    }

    /// Record the size of a text format's file.
    pub fn set_text(&mut self, f: crate::formats::text_records::TextFormat, bytes: u64) {
        *self.text_mut(f) = Some(bytes);
    }
}

/// A journal entry that cannot be turned back into a game record.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum RebuildError {
    /// Written by a version that did not record how games ended in full.
    #[error("game {game}: the journal line has no `end` (written by an older version)")]
    NoEnd { game: u64 },
    /// A field that does not hold what its name says.
    #[error("game {game}: {field} {value:?} cannot be read: {why}")]
    Field {
        game: u64,
        field: &'static str,
        value: String,
        why: String,
    },
}

impl JournalEntry {
    pub fn from_record(r: &GameRecord, fingerprint: &str) -> Self {
        JournalEntry {
            game: r.game.0,
            round: r.round,
            pair: r.pair,
            pair_game: r.pair_game,
            black: r.black_name.clone(),
            white: r.white_name.clone(),
            black_engine: r.black.0,
            white_engine: r.white.0,
            black_cmd: r.black_cmd.clone(),
            white_cmd: r.white_cmd.clone(),
            size: r.size.get(),
            rule: r.rule.code(),
            opening: moves_text(&r.opening, r.size),
            opening_line: r.opening_line,
            transform: r.transform.name().to_string(),
            moves: moves_text(
                &r.outcome.moves.iter().map(|m| m.pos).collect::<Vec<_>>(),
                r.size,
            ),
            times_ms: r
                .outcome
                .moves
                .iter()
                .map(|m| m.time.as_millis() as u64)
                .collect(),
            forbidden_move: r
                .outcome
                .termination
                .forbidden_move()
                .map(|p| moves_text(&[p], r.size)),
            result: r.outcome.result(),
            termination: r.outcome.termination.code().to_string(),
            reason: r.outcome.termination.reason(r.size),
            started: r.started.to_rfc3339(),
            ended: r.ended.to_rfc3339(),
            fingerprint: fingerprint.to_string(),
            end: Some(r.outcome.termination.clone()),
            messages: r.outcome.messages.clone(),
            journal_only: false,
            outputs: None,
            usage: r.usage,
            swap: r.swap.as_ref().map(|s| SwapEntry::from_record(r, s)),
            search: crate::formats::journal::entries_of(&r.outcome.moves, r.size),
            tune: r.tune.clone(),
        }
    }

    /// The game record this entry was written from: everything the renderers use, exactly.
    pub fn to_record(&self) -> Result<GameRecord, RebuildError> {
        // Said first: a line of an older version is that, whatever else it holds.
        self.end
            .as_ref()
            .ok_or(RebuildError::NoEnd { game: self.game })?;
        JournalGame::try_from(self)?.to_record()
    }
}

/// A game line read once into checked values: its board, rule, stones, times and termination.
/// The report, the openings audit, RenLib, `export` and `-resume` take games in this form; the
/// line's other fields (names, numbers, messages) are read from `entry` as written.
#[derive(Debug, Clone)]
pub struct JournalGame<'a> {
    pub entry: &'a JournalEntry,
    pub size: BoardSize,
    pub rule: Rule,
    pub opening: Vec<Pos>,
    /// The moves played after the opening; `entry.times_ms` holds one time for each.
    pub moves: Vec<Pos>,
    /// The forbidden point a renju game was lost on.
    pub forbidden: Option<Pos>,
    /// The termination's code (a row of [`crate::game::termination::TerminationKind::row`]), or
    /// [`crate::game::termination::OTHER_TERMINATION`] for one this version does not know.
    pub termination: &'static str,
}

impl<'a> TryFrom<&'a JournalEntry> for JournalGame<'a> {
    type Error = RebuildError;

    fn try_from(e: &'a JournalEntry) -> Result<Self, RebuildError> {
        let bad = |field, value: &str, why: String| e.bad(field, value, why);
        let size = BoardSize::new(u32::from(e.size))
            .map_err(|err| bad("size", &e.size.to_string(), err.to_string()))?;
        let rule = Rule::from_code(i64::from(e.rule))
            .map_err(|err| bad("rule", &e.rule.to_string(), err.to_string()))?;
        let stones = |field, text: &str| {
            parse_moves_text(text, size).map_err(|err| bad(field, text, err.to_string()))
        };
        let opening = stones("opening", &e.opening)?;
        let moves = stones("moves", &e.moves)?;
        // A point taken twice (an opening `h8h8`, a move on a stone) is no game: every reader
        // would count or draw a position that cannot be played.
        let mut taken = std::collections::HashMap::new();
        for (k, p) in opening.iter().chain(&moves).enumerate() {
            if let Some(first) = taken.insert(*p, k) {
                let (field, text) = match k < opening.len() {
                    true => ("opening", &e.opening),
                    false => ("moves", &e.moves),
                };
                let why = format!(
                    "stone {} repeats stone {} on the same point",
                    k + 1,
                    first + 1
                );
                return Err(bad(field, text, why));
            }
        }
        if moves.len() != e.times_ms.len() {
            let why = format!("{} moves but {} times", moves.len(), e.times_ms.len());
            return Err(bad("times_ms", &e.moves, why));
        }
        let forbidden = match &e.forbidden_move {
            Some(m) => Some(
                stones("forbidden_move", m)?
                    .first()
                    .copied()
                    .ok_or_else(|| bad("forbidden_move", m, "no point".into()))?,
            ),
            None => None,
        };
        Ok(JournalGame {
            entry: e,
            size,
            rule,
            opening,
            moves,
            forbidden,
            termination: termination_code(&e.termination),
        })
    }
}

impl JournalEntry {
    /// A field of this line that does not hold what its name says.
    fn bad(&self, field: &'static str, value: &str, why: String) -> RebuildError {
        RebuildError::Field {
            game: self.game,
            field,
            value: value.to_string(),
            why,
        }
    }
}

impl JournalGame<'_> {
    /// The game record the line was written from: everything the renderers use, exactly.
    pub fn to_record(&self) -> Result<GameRecord, RebuildError> {
        let e = self.entry;
        let bad = |field, value: &str, why: String| e.bad(field, value, why);
        let termination = e.end.clone().ok_or(RebuildError::NoEnd { game: e.game })?;
        let searches = crate::formats::journal::reports_of(&e.search, self.moves.len(), self.size)
            .map_err(|(value, why)| bad("search", &value, why))?;
        let time = |field, text: &str| {
            chrono::DateTime::parse_from_rfc3339(text)
                .map(|t| t.with_timezone(&chrono::Utc))
                .map_err(|err| bad(field, text, err.to_string()))
        };
        Ok(GameRecord {
            game: GameId(e.game),
            round: e.round,
            pair: e.pair,
            pair_game: e.pair_game,
            black: EngineId(e.black_engine),
            white: EngineId(e.white_engine),
            black_name: e.black.clone(),
            white_name: e.white.clone(),
            black_cmd: e.black_cmd.clone(),
            white_cmd: e.white_cmd.clone(),
            size: self.size,
            rule: self.rule,
            opening: self.opening.clone(),
            opening_line: e.opening_line,
            transform: Symmetry::from_name(&e.transform)
                .ok_or_else(|| bad("transform", &e.transform, "unknown symmetry".into()))?,
            outcome: GameOutcome {
                termination,
                moves: self
                    .moves
                    .iter()
                    .zip(&e.times_ms)
                    .zip(searches)
                    .map(|((&pos, &ms), search)| PlayedMove {
                        pos,
                        time: std::time::Duration::from_millis(ms),
                        search,
                    })
                    .collect(),
                messages: e.messages.clone(),
            },
            started: time("started", &e.started)?,
            ended: time("ended", &e.ended)?,
            usage: e.usage,
            swap: match &e.swap {
                Some(s) => Some(s.to_record(self.size, bad)?),
                None => None,
            },
            tune: e.tune.clone(),
        })
    }
}

/// The inverse of [`moves_text`]: pos notation, or `x,y` pairs separated by spaces.
pub fn parse_moves_text(
    text: &str,
    size: BoardSize,
) -> Result<Vec<Pos>, crate::core::board::BoardError> {
    if text.contains(',') {
        text.split_whitespace()
            .map(|p| Pos::parse_gomocup(p, size))
            .collect()
    } else {
        crate::core::board::parse_pos_sequence(text, size)
    }
}

/// Render an entry as its journal line, newline included.
pub fn render_entry(e: &JournalEntry) -> String {
    let mut s = serde_json::to_string(e).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    s.push('\n');
    s
}

/// The journal's first line: the settings that decide what a game is and how games pair, so a
/// reader never guesses. Field names are a public contract (docs/formats/journal.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalHeader {
    /// Always `"header"`: tells this line from a game entry.
    #[serde(rename = "type")]
    pub kind: String,
    /// Version of the journal layout.
    pub format: u32,
    /// `gomoku-cli <version>` that wrote it.
    pub program: String,
    /// Same value as every entry's `fingerprint`.
    pub fingerprint: String,
    /// RFC 3339 time the run started.
    pub started: String,
    /// The runner's arguments as given.
    pub command_line: Vec<String>,
    pub settings: RunSettings,
}

/// The part of a run's configuration that decides its games.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    pub engines: Vec<EngineSettings>,
    pub rule: u8,
    pub size: u8,
    /// `round_robin`, `gauntlet`, `knockout` or `swiss`.
    pub tournament: String,
    /// A knockout's `-seeds N`; absent without (and before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<usize>,
    pub games: u64,
    pub rounds: u64,
    /// Games are played in colour-swapped pairs (`-repeat`): games `2m`, `2m+1` of a pair form one.
    pub repeat: bool,
    /// `-noswap`: every game of a pair in the same colours; absent when off (and before it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub noswap: bool,
    /// `-reverse`: each game's colours the other way round; absent when off (and before it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reverse: bool,
    /// `-ponder`: engines think on the opponent's time; absent when off (and before it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ponder: bool,
    /// Games in the whole schedule.
    pub total_games: u64,
    /// `-drawafter` (0 = off).
    pub draw_after: usize,
    pub send_by_board: bool,
    pub openings: Option<OpeningSettings>,
    /// The run's seed (openings order and sample selection).
    pub seed: u64,
    /// The shard this journal is (`-shard K/N`), absent for an unsharded run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::schedule::shard::Shard>,
    /// The run's `-sprt`, so `merge` reports the test the run ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtSettings>,
    /// `-swap2`/`-swap1`: the engines choose the openings (`swap2` or `swap1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swap: Option<String>,
    /// Who plays which colour in a pair: `first_to_move` (c-gomoku-cli's rule: the pair's first
    /// engine makes the first move after the opening, so white after an opening with an odd
    /// number of stones). Absent in journals written before it: the first engine played black.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colours: Option<String>,
    /// `-draw`/`-resign` in their command-line form; absent when off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudication: Option<String>,
    /// `gomoku-cli tune`: the tuning's parameters and SPSA settings; absent for a match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tune: Option<crate::tune::entry::TuneSettings>,
    /// `-tournament groups`: the league's gap, the ratings it used and its promotion; absent
    /// for another format (and before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<GroupSettings>,
}

/// A league's settings as its journal records them: `tournament` stays `round_robin` (a league
/// is one, of the pairs within the gap), and readers rebuild its pairs from these.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupSettings {
    /// Engines rated this many Elo apart or more do not meet.
    pub gap: u64,
    /// Each engine's rating in whole Elo, in engine order; `null` for an unrated engine.
    pub ratings: Vec<Option<i64>>,
    /// How many are promoted at the end.
    pub promote: usize,
    /// Where the ratings were read (`-groups ratings=`), for the reader; not part of the run.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ratings_from: String,
}

impl GroupSettings {
    /// The league's engine pairs (first, second), in schedule order.
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        crate::schedule::groups::pairs_within(&self.ratings, self.gap)
            .into_iter()
            .map(|(a, b)| (a.0, b.0))
            .collect()
    }
}

/// A run's SPRT design.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SprtSettings {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// `normalized`, `logistic` or `gsprt`.
    pub model: String,
}

/// One engine as the run used it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineSettings {
    pub name: String,
    pub cmd: String,
    /// Time control as `-engine tc=` reads it.
    pub tc: String,
    pub depth: Option<u64>,
    pub nodes: Option<u64>,
    pub max_memory: u64,
    pub threads: Option<u32>,
    pub options: Vec<(String, String)>,
    /// A Gomocup package engine's zip SHA-256 (`cmd` is then `pkg=` and the zip as given): the
    /// engine's identity, so a resume with other bytes under the same name is refused. Left out
    /// for a command, so earlier journals keep their fingerprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
}

/// The openings file and how it is drawn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpeningSettings {
    pub file: String,
    /// `offset` or `pos`.
    pub format: String,
    /// `sequential` or `random`.
    pub order: String,
    pub transform: bool,
    /// `start=N` as typed (1-based); absent from 1 (and before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<u64>,
    /// SHA-256 of the file's bytes, hex: a resumed or merged run must use the same openings.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sha256: String,
}

impl RunSettings {
    /// The results block's header text: time controls, rule, board, openings file name. The
    /// runner, `merge` and `report` all print it from here.
    pub fn context(&self) -> String {
        let tcs: Vec<&str> = self.engines.iter().map(|e| e.tc.as_str()).collect();
        let mut parts = vec![if tcs.windows(2).all(|w| w[0] == w[1]) {
            tcs.first().copied().unwrap_or_default().to_string()
        } else {
            tcs.join(" vs ")
        }];
        parts.push(format!("rule {}", self.rule));
        parts.push(format!("{}x{}", self.size, self.size));
        if let Some(o) = &self.openings {
            let name = std::path::Path::new(&o.file).file_name();
            parts.push(
                name.map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            );
        }
        parts.extend(self.swap.clone());
        parts.join(", ")
    }
}

impl SprtSettings {
    /// The checked SPRT this header describes (a hand-edited header can hold any numbers).
    pub fn sprt(&self) -> Result<crate::stats::Sprt, String> {
        let model = self
            .model
            .parse()
            .map_err(|e| format!("the journal's SPRT model: {e}"))?;
        crate::stats::Sprt::new(self.elo0, self.elo1, self.alpha, self.beta, model)
            .map_err(|e| format!("the journal's SPRT: {e}"))
    }
}

/// The header line value of a journal layout version.
pub const HEADER_KIND: &str = "header";
/// Current journal layout version.
pub const FORMAT: u32 = 1;

/// Render the header line, newline included.
pub fn render_header(h: &JournalHeader) -> String {
    let mut s = serde_json::to_string(h).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    s.push('\n');
    s
}

/// Render one journal line, newline included.
pub fn render_line(r: &GameRecord, fingerprint: &str) -> String {
    render_entry(&JournalEntry::from_record(r, fingerprint))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::journal::parse;
    use crate::game::record::fixtures::sample_record;

    #[test]
    fn line_has_the_documented_fields() {
        let line = render_line(&sample_record(), "abc123");
        assert!(line.ends_with('\n'));
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["game"], 7);
        assert_eq!(v["round"], 2);
        assert_eq!(v["black"], "scout");
        assert_eq!(v["white"], "random");
        assert_eq!(v["result"], "1-0");
        assert_eq!(v["termination"], "five");
        assert_eq!(v["opening"], "h8i9");
        assert_eq!(v["moves"], "h9i10h10i11h11i12h12");
        assert_eq!(v["times_ms"].as_array().unwrap().len(), 7);
        assert_eq!(v["transform"], "rotate90");
        assert_eq!(v["fingerprint"], "abc123");
    }

    #[test]
    fn a_header_with_its_keys_reordered_is_still_the_header() {
        let h = crate::analysis::report::model::tests::header(&["a", "b"], false, false, 0);
        let sorted: serde_json::Value = serde_json::from_str(&render_header(&h)).unwrap();
        // serde_json's Value sorts keys: `command_line` comes before `type`.
        let text = format!("{sorted}\n{}", render_line(&sample_record(), "f"));
        assert!(!text.starts_with("{\"type\""));
        let read = parse(&text, "j").unwrap();
        assert_eq!(read.header, Some(h));
        assert_eq!(read.entries.len(), 1);
    }

    #[test]
    fn torn_last_line_is_skipped_other_bad_lines_fail() {
        let good = render_line(&sample_record(), "f");
        let mut next = sample_record();
        next.game = crate::schedule::GameId(8);
        let next = render_line(&next, "f");
        let text = format!("{good}{next}{{\"game\":3,\"rou");
        let read = parse(&text, "j.jsonl").unwrap();
        assert_eq!(read.entries.len(), 2);
        assert_eq!(read.warnings.len(), 1);
        assert!(read.warnings[0].contains("j.jsonl:3"));
        let text = format!("{good}garbage\n{good}");
        let err = parse(&text, "j.jsonl").unwrap_err();
        assert!(err.to_string().contains("j.jsonl:2"), "{err}");
        let round_trip = parse(&good, "x").unwrap();
        assert_eq!(
            round_trip.entries[0],
            JournalEntry::from_record(&sample_record(), "f")
        );
    }

    #[test]
    fn a_swap_game_round_trips_through_its_line() {
        let r = crate::game::record::fixtures::swap_record();
        let line = render_line(&r, "f");
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["swap"]["rule"], "swap2");
        assert_eq!(v["swap"]["proposer"], "random");
        assert_eq!(v["swap"]["chooser"], "scout");
        assert_eq!(v["swap"]["proposer_plays"], "black");
        assert_eq!(v["swap"]["steps"][0]["stones"], "h8i8j10");
        assert_eq!(v["swap"]["steps"][2]["swap"], true);
        assert_eq!(v["opening"], "h8i8j10i9g7");
        let e = parse(&line, "j").unwrap().entries.remove(0);
        assert_eq!(e.to_record().unwrap(), r);
        // The form of SWAP2BOARD an answer replied to: only `BOARD`'s is written.
        assert!(v["swap"]["steps"][1].get("form").is_none());
        let mut board_form = r.clone();
        if let Some(s) = &mut board_form.swap {
            s.steps[1].form = Some(Swap2Form::Board);
        }
        let line = render_line(&board_form, "f");
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["swap"]["steps"][1]["form"], "board");
        let e = parse(&line, "j").unwrap().entries.remove(0);
        assert_eq!(e.to_record().unwrap(), board_form);
        let mut unsupported = r.clone();
        if let Some(s) = &mut unsupported.swap {
            s.unsupported = Some((Role::Chooser, "UNKNOWN SWAP2BOARD".into()));
        }
        let e = parse(render_line(&unsupported, "f"), "j")
            .unwrap()
            .entries
            .remove(0);
        assert_eq!(e.to_record().unwrap(), unsupported);
        let mut bad = e;
        if let Some(s) = &mut bad.swap {
            s.rule = "swap9".into();
        }
        assert!(matches!(
            bad.to_record(),
            Err(RebuildError::Field {
                field: "swap.rule",
                ..
            })
        ));
    }

    #[test]
    fn an_entry_rebuilds_the_record_it_was_written_from() {
        let mut r = sample_record();
        r.outcome
            .messages
            .push((crate::core::board::Color::White, "hi".into()));
        let line = render_line(&r, "f");
        let e = parse(&line, "j").unwrap().entries.remove(0);
        assert_eq!(e.to_record().unwrap(), r);
        // Journals of earlier versions lack `end`: rebuilding says so.
        let mut old = e.clone();
        old.end = None;
        assert_eq!(old.to_record(), Err(RebuildError::NoEnd { game: 7 }));
        let mut bad = e;
        bad.transform = "sideways".into();
        assert!(matches!(
            bad.to_record(),
            Err(RebuildError::Field {
                field: "transform",
                ..
            })
        ));
    }

    #[test]
    fn a_line_is_read_once_into_checked_values_and_a_bad_field_is_named() {
        let e = JournalEntry::from_record(&sample_record(), "f");
        let g = JournalGame::try_from(&e).unwrap();
        let r = sample_record();
        assert_eq!((g.size, g.rule), (r.size, r.rule));
        assert_eq!(g.opening, r.opening);
        let played: Vec<Pos> = r.outcome.moves.iter().map(|m| m.pos).collect();
        assert_eq!(g.moves, played);
        assert_eq!(g.termination, r.outcome.termination.code());
        // A code this version does not know is filed as `other`, not guessed.
        let mut later = e.clone();
        later.termination = "resigned".into();
        assert_eq!(JournalGame::try_from(&later).unwrap().termination, "other");
        let field_of = |e: &JournalEntry| match JournalGame::try_from(e) {
            Err(RebuildError::Field { game, field, .. }) => (game, field),
            other => panic!("{other:?}"),
        };
        let mut bad = e.clone();
        bad.times_ms.push(5);
        assert_eq!(field_of(&bad), (7, "times_ms"));
        let mut bad = e.clone();
        bad.moves = "h8z99".into();
        assert_eq!(field_of(&bad), (7, "moves"));
        let mut bad = e.clone();
        bad.size = 99;
        assert_eq!(field_of(&bad), (7, "size"));
        let mut bad = e.clone();
        bad.rule = 3;
        assert_eq!(field_of(&bad), (7, "rule"));
        // A point taken twice: in the opening (`h8h8`), or by a move on an opening stone.
        let mut bad = e.clone();
        bad.opening = "h8h8".into();
        assert_eq!(field_of(&bad), (7, "opening"));
        let err = JournalGame::try_from(&bad).unwrap_err().to_string();
        assert!(
            err.ends_with("stone 2 repeats stone 1 on the same point"),
            "{err}"
        );
        let mut bad = e.clone();
        bad.moves = format!("{}{}", &e.opening[..2], &e.moves[2..]);
        assert_eq!(field_of(&bad), (7, "moves"));
        let err = JournalGame::try_from(&bad).unwrap_err().to_string();
        assert!(
            err.ends_with("stone 3 repeats stone 1 on the same point"),
            "{err}"
        );
    }
}
