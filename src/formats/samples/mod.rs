//! Training samples (`-sample`): what a sample is, which moves of a finished game become samples,
//! and the `-sample` options. The formats live in the submodules:
//!
//! - `encode`: samples to bytes (csv, bin, binpack), pure;
//! - `writer`: [`SampleWriter`], which appends one complete batch per game with a single
//!   `write_all`, so a file is valid up to the last finished game however the process ends; for
//!   `bin_lz4` and `binpack_lz4` each game's batch is its own complete LZ4 frame (concatenated
//!   frames are one stream);
//! - `reader`: [`SampleReader`], streaming a file back and saying where it is damaged;
//! - `stats`: the `samples stats` report.
//!
//! The public names are re-exported here, so callers use `crate::formats::samples::X` whatever
//! file `X` lives in.
//!
//! # The rule field of the binary formats
//! bin and binpack give the Gomocup rule code 3 bits. Codes 0 (freestyle), 1 (exact five) and
//! 4 (renju) fit; caro (8) and standard caro (9) do not, and masking them (`code & 7`) would label
//! caro games as freestyle / exact five, silently poisoning a training set. So the four binary
//! formats refuse those rules with [`SampleEncodeError::RuleDoesNotFit`]; [`SampleFormat::check`]
//! lets a run refuse before the first game. csv records no rule and accepts every rule.

mod encode;
mod reader;
mod stats;
mod writer;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

use crate::core::board::BoardSize;
use crate::core::board::Pos;
use crate::core::rules::Rule;
use crate::core::search::{SearchReport, MULTIPV_CAP};
use crate::game::record::GameRecord;

pub use encode::{
    bin_word, binpack_chain_len, encode_batch, encode_bin, encode_binpack, encode_csv,
    SampleEncodeError, BINPACK_FIRST, BINPACK_LAST, BINPACK_MAX_STONES, BINPACK_NO_EVAL,
    BINPACK_PLAIN_MOVE, BIN_MAX_PLY, BIN_MAX_SIZE, CSV_MAX_SIZE,
};
pub use reader::{
    open_samples, read_samples, EntryCounts, SampleReadError, SampleReader, StoredSample,
};
pub use stats::{samples_stats_command, SampleStats, StatsReport};
pub use writer::{SampleWriteError, SampleWriter};

/// The file formats of `-sample format=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SampleFormat {
    /// `position,move,result` lines.
    Csv,
    /// One entry per sample: a head of two u16 words, then the position's stones.
    Bin,
    /// The bin stream in LZ4 frames, one per game.
    BinLz4,
    /// The predecessor's packed format: one entry per chain of consecutive positions of a game.
    Binpack,
    /// The binpack stream in LZ4 frames, one per game.
    BinpackLz4,
}

impl SampleFormat {
    pub const ALL: [SampleFormat; 5] = [
        SampleFormat::Csv,
        SampleFormat::Bin,
        SampleFormat::BinLz4,
        SampleFormat::Binpack,
        SampleFormat::BinpackLz4,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SampleFormat::Csv => "csv",
            SampleFormat::Bin => "bin",
            SampleFormat::BinLz4 => "bin_lz4",
            SampleFormat::Binpack => "binpack",
            SampleFormat::BinpackLz4 => "binpack_lz4",
        }
    }

    /// The file written when `file=` is not given.
    pub fn default_file(self) -> &'static str {
        match self {
            SampleFormat::Csv => "sample.csv",
            SampleFormat::Bin => "sample.bin",
            SampleFormat::BinLz4 => "sample.bin.lz4",
            SampleFormat::Binpack => "sample.binpack",
            SampleFormat::BinpackLz4 => "sample.binpack.lz4",
        }
    }

    /// The format implied by a file name: `.csv`, `.bin`, `.binpack`, `.binpack.lz4`, and any
    /// other `.lz4` (such as `.bin.lz4`) for bin_lz4, as before binpack existed.
    pub fn from_extension(path: &Path) -> Option<SampleFormat> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        if name.ends_with(".binpack.lz4") {
            return Some(SampleFormat::BinpackLz4);
        }
        match Path::new(&name).extension()?.to_str()? {
            "csv" => Some(SampleFormat::Csv),
            "bin" => Some(SampleFormat::Bin),
            "lz4" => Some(SampleFormat::BinLz4),
            "binpack" => Some(SampleFormat::Binpack),
            _ => None,
        }
    }

    /// Whether the file is LZ4 frames around the stream of [`SampleFormat::uncompressed`].
    pub fn compressed(self) -> bool {
        matches!(self, SampleFormat::BinLz4 | SampleFormat::BinpackLz4)
    }

    /// The format of the stream inside the LZ4 frames (the format itself when not compressed).
    pub fn uncompressed(self) -> SampleFormat {
        match self {
            SampleFormat::BinLz4 => SampleFormat::Bin,
            SampleFormat::BinpackLz4 => SampleFormat::Binpack,
            other => other,
        }
    }

    /// Whether the format is binpack (entries are chains of positions, not single samples).
    pub fn packed(self) -> bool {
        self.uncompressed() == SampleFormat::Binpack
    }

    /// Whether games of this size and rule can be written in this format at all, so a run can
    /// refuse before its first game. (A bin position longer than [`BIN_MAX_PLY`] stones, possible
    /// only on boards of 23×23 and more, is still refused per game by the encoder.)
    pub fn check(self, size: BoardSize, rule: Rule) -> Result<(), SampleEncodeError> {
        match self {
            SampleFormat::Csv => {
                if size.get() > CSV_MAX_SIZE {
                    return Err(SampleEncodeError::BoardTooLargeForCsv { size: size.get() });
                }
            }
            // binpack has bin's 5-bit size and 3-bit rule fields; its 10-bit stone counts hold
            // every stone of a 31x31 board, so it has no ply limit.
            SampleFormat::Bin
            | SampleFormat::BinLz4
            | SampleFormat::Binpack
            | SampleFormat::BinpackLz4 => {
                if size.get() > BIN_MAX_SIZE {
                    return Err(SampleEncodeError::BoardTooLargeForBin { size: size.get() });
                }
                encode::bin_rule_bits(rule)?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for SampleFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SampleFormat {
    type Err = SampleConfigError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SampleFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| SampleConfigError::UnknownFormat {
                value: s.to_string(),
            })
    }
}

/// Problems with the `-sample` options.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SampleConfigError {
    /// A key other than freq, format, file, eval and multipv.
    #[error("-sample: unknown key {key:?} (in {key}={value}); expected freq, format, file, eval or multipv")]
    UnknownKey { key: String, value: String },
    /// The same key twice: which one was meant is unclear, so neither wins.
    #[error(transparent)]
    Duplicate(#[from] crate::cli::RepeatedKey),
    /// freq= is not a number.
    #[error("-sample: freq={value} is not a number")]
    BadFreq { value: String },
    /// freq= is a number outside [0, 1] (or NaN).
    #[error("-sample: freq={value} is outside [0, 1]")]
    FreqOutOfRange { value: String },
    /// format= names no sample format.
    #[error(
        "-sample: unknown format={value:?} (expected csv, bin, bin_lz4, binpack or binpack_lz4)"
    )]
    UnknownFormat { value: String },
    /// file= is given but empty.
    #[error("-sample: file= is empty")]
    EmptyFile,
    /// eval= is neither on nor off.
    #[error("-sample: eval={value} is not on or off")]
    BadEval { value: String },
    /// eval=on with a format other than csv: binpack always records the evaluations, bin has no
    /// field for them.
    #[error("-sample: eval=on adds a csv column; {format} {why}")]
    EvalNotCsv {
        format: SampleFormat,
        why: &'static str,
    },
    /// multipv= is not a whole number from 1 to the most principal variations kept.
    #[error("-sample: multipv={value} is not a whole number from 1 to {MULTIPV_CAP}")]
    BadMultipv { value: String },
}

/// Whether a csv sample file has a fourth column with the mover's evaluation (`eval=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum EvalColumn {
    /// `position,move,result`, as before evaluations were heard (the default).
    #[default]
    Without,
    /// `position,move,result,eval`; the field is empty where the engine reported none.
    With,
}

/// What `-sample` asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleConfig {
    /// Probability that a move becomes a sample, in [0, 1].
    pub freq: f64,
    pub format: SampleFormat,
    pub file: PathBuf,
    /// csv only: whether lines carry the evaluation.
    pub eval_column: EvalColumn,
    /// `multipv=N`, N ≥ 2: the engines are asked for N best moves (`YXNBEST`), and binpack
    /// writes each move's group. `multipv=1` is the plain `TURN`, so it is `None` here.
    pub multipv: Option<u32>,
}

impl SampleConfig {
    /// The configuration of a format with every other key at its default.
    pub fn new(format: SampleFormat, file: impl Into<PathBuf>) -> SampleConfig {
        SampleConfig {
            freq: 1.0,
            format,
            file: file.into(),
            eval_column: EvalColumn::Without,
            multipv: None,
        }
    }

    /// Parse the `key=value` list that follows `-sample`. Defaults: freq=1, format=csv, file by
    /// format ([`SampleFormat::default_file`]: sample.csv, sample.bin, sample.bin.lz4, ...),
    /// eval=off, multipv=1.
    pub fn parse(kvs: &[(String, String)]) -> Result<SampleConfig, SampleConfigError> {
        let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
        for (key, value) in kvs {
            if !matches!(
                key.as_str(),
                "freq" | "format" | "file" | "eval" | "multipv"
            ) {
                return Err(SampleConfigError::UnknownKey {
                    key: key.clone(),
                    value: value.clone(),
                });
            }
            seen.insert(key, value);
        }
        crate::cli::refuse_repeated_keys(
            "-sample",
            kvs.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        )?;
        let freq = match seen.get("freq") {
            None => 1.0,
            Some(v) => {
                let f: f64 = v.trim().parse().map_err(|_| SampleConfigError::BadFreq {
                    value: v.to_string(),
                })?;
                // `contains` is false for NaN too.
                if !(0.0..=1.0).contains(&f) {
                    return Err(SampleConfigError::FreqOutOfRange {
                        value: v.to_string(),
                    });
                }
                f
            }
        };
        let format = match seen.get("format") {
            None => SampleFormat::Csv,
            Some(v) => v.parse()?,
        };
        let file = match seen.get("file") {
            None => PathBuf::from(format.default_file()),
            Some(&"") => return Err(SampleConfigError::EmptyFile),
            Some(v) => PathBuf::from(v),
        };
        Ok(SampleConfig {
            freq,
            format,
            file,
            eval_column: eval_column_of(seen.get("eval").copied(), format)?,
            multipv: multipv_of(seen.get("multipv").copied())?,
        })
    }
}

/// `eval=on|off` (also 1|0): on only for csv, the one format where the evaluation is optional.
fn eval_column_of(
    value: Option<&str>,
    format: SampleFormat,
) -> Result<EvalColumn, SampleConfigError> {
    let column = match value {
        None | Some("off" | "0") => return Ok(EvalColumn::Without),
        Some("on" | "1") => EvalColumn::With,
        Some(v) => {
            return Err(SampleConfigError::BadEval {
                value: v.to_string(),
            })
        }
    };
    let why = match format.uncompressed() {
        SampleFormat::Csv => return Ok(column),
        SampleFormat::Bin => "has no field for it (binpack has one)",
        _ => "records every reported evaluation without it",
    };
    Err(SampleConfigError::EvalNotCsv { format, why })
}

/// `multipv=N`, 1 ≤ N ≤ [`MULTIPV_CAP`]; 1 asks nothing more than one move.
fn multipv_of(value: Option<&str>) -> Result<Option<u32>, SampleConfigError> {
    let Some(v) = value else {
        return Ok(None);
    };
    match v.trim().parse::<u32>() {
        Ok(1) => Ok(None),
        Ok(n) if (2..=MULTIPV_CAP as u32).contains(&n) => Ok(Some(n)),
        _ => Err(SampleConfigError::BadMultipv {
            value: v.to_string(),
        }),
    }
}

/// The final result from the point of view of the side to move; the number is the file encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SampleResult {
    Loss = 0,
    Draw = 1,
    Win = 2,
}

impl SampleResult {
    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(code: u16) -> Option<SampleResult> {
        match code {
            0 => Some(SampleResult::Loss),
            1 => Some(SampleResult::Draw),
            2 => Some(SampleResult::Win),
            _ => None,
        }
    }

    /// The same result seen by the other player (who moves in the next position).
    pub fn flipped(self) -> SampleResult {
        match self {
            SampleResult::Loss => SampleResult::Win,
            SampleResult::Draw => SampleResult::Draw,
            SampleResult::Win => SampleResult::Loss,
        }
    }
}

/// One training sample: a position, the move played in it and how the game ended for the mover,
/// with what the mover's engine said of the position when it reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    pub size: BoardSize,
    pub rule: Rule,
    /// Every stone on the board in play order, black first (opening included).
    pub position: Vec<Pos>,
    /// The move played in `position`.
    pub mv: Pos,
    pub result: SampleResult,
    /// The mover's evaluation of `position` (the side to move's view, before its move, as the
    /// trainer reads it with the result), on the samples' scale ([`crate::core::search::Eval::value`]).
    pub eval: Option<i16>,
    /// The other first moves of a multi-PV search, in PV order: binpack writes them after `mv`
    /// in the move's group.
    pub alternatives: Vec<Alternative>,
}

/// A move the engine ranked beside the one played (`YXNBEST`), with its evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alternative {
    pub mv: Pos,
    pub eval: Option<i16>,
}

/// What a search report gives a sample: the evaluation, and the other PV moves that are empty
/// points of `position` (an engine's garbage never reaches a training set), each once.
fn heard(
    report: Option<&SearchReport>,
    position: &[Pos],
    mv: Pos,
) -> (Option<i16>, Vec<Alternative>) {
    let Some(r) = report else {
        return (None, Vec::new());
    };
    // Eval::value is within ±30000, which i16 holds.
    let value = |e: crate::core::search::Eval| e.value() as i16;
    let mut alternatives: Vec<Alternative> = Vec::new();
    for pv in &r.multipv {
        let taken = pv.pos == mv
            || position.contains(&pv.pos)
            || alternatives.iter().any(|a| a.mv == pv.pos);
        if !taken {
            alternatives.push(Alternative {
                mv: pv.pos,
                eval: pv.eval.map(value),
            });
        }
    }
    // The played move's own PV evaluation when it has one (an engine may play another PV than
    // the first); else the report's.
    let own = r
        .multipv
        .iter()
        .find(|pv| pv.pos == mv)
        .and_then(|pv| pv.eval);
    (own.or(r.eval).map(value), alternatives)
}

/// The generator that decides which moves of game `game` of a run seeded with `seed` are sampled:
/// a game's samples depend only on these two numbers, not on which slot played it or when.
pub fn game_rng(seed: u64, game: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // One independent ChaCha stream per game.
    rng.set_stream(game);
    rng
}

/// The samples of a finished game: each legal played move (not the opening stones, not a final
/// forbidden move; the winning move included) with probability `freq`. Games lost on time, by crash,
/// illegal move or failed start give none. Draws one `f64` from `rng` per move.
pub fn samples_of(record: &GameRecord, freq: f64, rng: &mut impl Rng) -> Vec<Sample> {
    if !record.outcome.termination.yields_samples() {
        return Vec::new();
    }
    let winner = record.outcome.result().winner();
    let stones = record.all_stones();
    let first = record.opening.len();
    let mut out = Vec::new();
    for ply in first..stones.len() {
        // `gen` is in [0, 1): freq 1 takes every move, freq 0 (or NaN) none.
        if rng.gen::<f64>() >= freq {
            continue;
        }
        let mover = crate::core::board::Color::of_ply(ply);
        let result = match winner {
            None => SampleResult::Draw,
            Some(w) if w == mover => SampleResult::Win,
            Some(_) => SampleResult::Loss,
        };
        let report = record.outcome.moves[ply - first].search.as_deref();
        let (eval, alternatives) = heard(report, &stones[..ply], stones[ply]);
        out.push(Sample {
            size: record.size,
            rule: record.rule,
            position: stones[..ply].to_vec(),
            mv: stones[ply],
            result,
            eval,
            alternatives,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::record::fixtures::sample_record;
    use crate::game::termination::Termination;

    fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn config_defaults_and_values() {
        let c = SampleConfig::parse(&[]).unwrap();
        assert_eq!(c, SampleConfig::new(SampleFormat::Csv, "sample.csv"));
        let c = SampleConfig::parse(&kv(&[("format", "bin_lz4"), ("freq", "0.25")])).unwrap();
        assert_eq!(c.file, PathBuf::from("sample.bin.lz4"));
        assert_eq!(c.freq, 0.25);
        let c = SampleConfig::parse(&kv(&[("format", "binpack_lz4")])).unwrap();
        assert_eq!(
            (c.format, c.file),
            (SampleFormat::BinpackLz4, "sample.binpack.lz4".into())
        );
        let c = SampleConfig::parse(&kv(&[("format", "bin"), ("file", "x.dat")])).unwrap();
        assert_eq!((c.format, c.file), (SampleFormat::Bin, "x.dat".into()));
    }

    #[test]
    fn config_eval_column_and_multipv() {
        let c = SampleConfig::parse(&kv(&[("eval", "on"), ("multipv", "3")])).unwrap();
        assert_eq!((c.eval_column, c.multipv), (EvalColumn::With, Some(3)));
        // multipv=1 is one move, as TURN asks: nothing more to ask of the engines.
        let c = SampleConfig::parse(&kv(&[("eval", "0"), ("multipv", "1")])).unwrap();
        assert_eq!((c.eval_column, c.multipv), (EvalColumn::Without, None));
        let c = SampleConfig::parse(&kv(&[("format", "binpack"), ("multipv", "64")])).unwrap();
        assert_eq!(c.multipv, Some(MULTIPV_CAP as u32));
        for bad in ["0", "65", "-2", "two", ""] {
            let e = SampleConfig::parse(&kv(&[("multipv", bad)])).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("-sample: multipv={bad} is not a whole number from 1 to 64")
            );
        }
        let e = SampleConfig::parse(&kv(&[("eval", "yes")])).unwrap_err();
        assert_eq!(e.to_string(), "-sample: eval=yes is not on or off");
        for (format, why) in [("bin_lz4", "has no field"), ("binpack", "records every")] {
            let e = SampleConfig::parse(&kv(&[("format", format), ("eval", "on")])).unwrap_err();
            assert!(e.to_string().contains(why), "{e}");
        }
        assert!(SampleConfig::parse(&kv(&[("format", "bin"), ("eval", "off")])).is_ok());
    }

    #[test]
    fn samples_carry_the_movers_evaluation_and_the_other_pv_moves() {
        use crate::core::search::{Eval, Outlook, PvMove, SearchReport};
        let mut r = sample_record();
        let size = r.size;
        let at = |t: &str| crate::core::board::parse_pos_sequence(t, size).unwrap()[0];
        let report = |eval, multipv| {
            Some(Box::new(SearchReport {
                eval,
                multipv,
                ..SearchReport::default()
            }))
        };
        let pv = |t: &str, eval| PvMove { pos: at(t), eval };
        // Move 0 (h9): +35. Move 1 (i10): a loss in 4 plies. Move 2 (h10): PVs j10 (the
        // first, +50), h10 (the move played, +20), h8 (occupied: garbage), j10 again, k11
        // (no evaluation). Move 3: nothing.
        r.outcome.moves[0].search = report(Some(Eval::Score(35)), vec![]);
        let lost = Eval::Mate {
            outlook: Outlook::Loss,
            plies: Some(4),
        };
        r.outcome.moves[1].search = report(Some(lost), vec![]);
        r.outcome.moves[2].search = report(
            Some(Eval::Score(50)),
            vec![
                pv("j10", Some(Eval::Score(50))),
                pv("h10", Some(Eval::Score(20))),
                pv("h8", Some(Eval::Score(10))),
                pv("j10", Some(Eval::Score(5))),
                pv("k11", None),
            ],
        );
        let s = samples_of(&r, 1.0, &mut game_rng(0, 0));
        assert_eq!(s[0].eval, Some(35));
        assert_eq!(s[1].eval, Some(-29996));
        assert!(s[0].alternatives.is_empty() && s[1].alternatives.is_empty());
        assert_eq!(s[2].mv, at("h10"));
        assert_eq!(s[2].eval, Some(20), "the played move's own PV evaluation");
        assert_eq!(
            s[2].alternatives,
            vec![
                Alternative {
                    mv: at("j10"),
                    eval: Some(50)
                },
                Alternative {
                    mv: at("k11"),
                    eval: None
                },
            ]
        );
        assert!(s[3..]
            .iter()
            .all(|x| x.eval.is_none() && x.alternatives.is_empty()));
    }

    #[test]
    fn config_errors_name_key_and_value() {
        let e = SampleConfig::parse(&kv(&[("freq", "1.5")])).unwrap_err();
        assert_eq!(e.to_string(), "-sample: freq=1.5 is outside [0, 1]");
        let e = SampleConfig::parse(&kv(&[("freq", "NaN")])).unwrap_err();
        assert!(matches!(e, SampleConfigError::FreqOutOfRange { .. }));
        let e = SampleConfig::parse(&kv(&[("freq", "often")])).unwrap_err();
        assert_eq!(e.to_string(), "-sample: freq=often is not a number");
        let e = SampleConfig::parse(&kv(&[("format", "zip")])).unwrap_err();
        assert!(e.to_string().contains("\"zip\""), "{e}");
        let e = SampleConfig::parse(&kv(&[("freqq", "1")])).unwrap_err();
        assert!(e.to_string().contains("freqq=1"), "{e}");
        let e = SampleConfig::parse(&kv(&[("file", "a"), ("file", "b")])).unwrap_err();
        assert_eq!(e.to_string(), "-sample: file given twice (\"a\" and \"b\")");
    }

    #[test]
    fn the_format_follows_from_the_file_name() {
        let guess = |name: &str| SampleFormat::from_extension(Path::new(name));
        assert_eq!(guess("dir/a.csv"), Some(SampleFormat::Csv));
        assert_eq!(guess("a.BIN"), Some(SampleFormat::Bin));
        assert_eq!(guess("a.bin.lz4"), Some(SampleFormat::BinLz4));
        assert_eq!(guess("a.lz4"), Some(SampleFormat::BinLz4));
        assert_eq!(guess("a.binpack"), Some(SampleFormat::Binpack));
        assert_eq!(guess("a.binpack.lz4"), Some(SampleFormat::BinpackLz4));
        assert_eq!(guess("a.dat"), None);
        assert_eq!(guess("binpack"), None);
        // Every default file name says its own format.
        for f in SampleFormat::ALL {
            assert_eq!(guess(f.default_file()), Some(f), "{f}");
            assert_eq!(f.name().parse::<SampleFormat>(), Ok(f));
        }
    }

    #[test]
    fn every_move_of_the_fixture_with_results_for_the_mover() {
        // Opening h8 i9 (2 stones), then 7 moves; black wins with the 7th.
        let r = sample_record();
        let s = samples_of(&r, 1.0, &mut game_rng(1, 7));
        assert_eq!(s.len(), 7);
        for (i, smp) in s.iter().enumerate() {
            assert_eq!(smp.position.len(), 2 + i);
            assert_eq!(smp.mv, r.outcome.moves[i].pos);
            // Moves 0, 2, 4, 6 are black's (ply 2, 4, ...).
            let want = if i % 2 == 0 {
                SampleResult::Win
            } else {
                SampleResult::Loss
            };
            assert_eq!(smp.result, want, "move {i}");
        }
        assert_eq!(s[0].position, r.opening);
        assert_eq!(s[6].position, r.all_stones()[..8].to_vec());
    }

    #[test]
    fn selection_is_deterministic_per_seed_and_game() {
        let r = sample_record();
        let a = samples_of(&r, 0.5, &mut game_rng(42, 3));
        let b = samples_of(&r, 0.5, &mut game_rng(42, 3));
        assert_eq!(a, b);
        // Different games draw from different streams.
        let picks = |g: u64| {
            (0..20)
                .map(|k| samples_of(&r, 0.5, &mut game_rng(42, g * 100 + k)).len())
                .collect::<Vec<_>>()
        };
        assert_ne!(picks(1), picks(2));
    }

    #[test]
    fn draws_and_forfeits() {
        let mut r = sample_record();
        r.outcome.termination = Termination::FullBoard;
        let s = samples_of(&r, 1.0, &mut game_rng(0, 0));
        assert!(s.iter().all(|x| x.result == SampleResult::Draw));
        r.outcome.termination = Termination::Crash {
            by: crate::core::board::Color::White,
            status: "signal 9".into(),
        };
        assert!(samples_of(&r, 1.0, &mut game_rng(0, 0)).is_empty());
    }

    #[test]
    fn format_check_refuses_what_cannot_be_stored() {
        let s15 = BoardSize::new(15).unwrap();
        let s32 = BoardSize::new(32).unwrap();
        assert!(SampleFormat::Bin.check(s15, Rule::Renju).is_ok());
        assert!(matches!(
            SampleFormat::BinLz4.check(s15, Rule::Caro),
            Err(SampleEncodeError::RuleDoesNotFit { code: 8, .. })
        ));
        assert!(SampleFormat::Csv.check(s15, Rule::StandardCaro).is_ok());
        // binpack has bin's size and rule fields.
        assert!(SampleFormat::BinpackLz4.check(s15, Rule::Renju).is_ok());
        for format in [SampleFormat::Binpack, SampleFormat::BinpackLz4] {
            assert!(matches!(
                format.check(s15, Rule::StandardCaro),
                Err(SampleEncodeError::RuleDoesNotFit { code: 9, .. })
            ));
            assert!(format.check(s32, Rule::Freestyle).is_err());
            assert!(format
                .check(BoardSize::new(31).unwrap(), Rule::Freestyle)
                .is_ok());
        }
        assert!(SampleFormat::Bin.check(s32, Rule::Freestyle).is_err());
        assert!(SampleFormat::Csv
            .check(BoardSize::new(27).unwrap(), Rule::Freestyle)
            .is_err());
    }
}
