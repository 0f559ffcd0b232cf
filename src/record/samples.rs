//! Training samples (`-sample`): which positions of a finished game become samples, their csv / bin /
//! bin_lz4 encodings, a crash-safe appending writer, a streaming reader and the `samples stats` report.
//!
//! Selection and encoding are pure. The writer appends one complete batch per game with a single
//! `write_all`, so a file is valid up to the last finished game however the process ends; for
//! `bin_lz4` each game's batch is its own complete LZ4 frame (concatenated frames are one stream).
//!
//! # The rule field of the bin format
//! The bin format gives the Gomocup rule code 3 bits. Codes 0 (freestyle), 1 (exact five) and
//! 4 (renju) fit; caro (8) and standard caro (9) do not, and masking them (`code & 7`) would label
//! caro games as freestyle / exact five, silently poisoning a training set. So bin and bin_lz4
//! refuse those rules with [`SampleEncodeError::RuleDoesNotFit`]; [`SampleFormat::check`] lets a
//! run refuse before the first game. csv records no rule and accepts every rule.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use lz4_flex::frame::{BlockMode, BlockSize, FrameDecoder, FrameEncoder, FrameInfo};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

use crate::board::{parse_pos_sequence, BoardSize, Pos};
use crate::record::GameRecord;
use crate::rules::Rule;

/// Largest board the bin format can describe (5-bit board size field).
pub const BIN_MAX_SIZE: u8 = 31;
/// Largest position the bin format can describe (9-bit ply field).
pub const BIN_MAX_PLY: usize = 511;
/// Largest board pos notation (and so csv) can describe: one letter per column.
pub const CSV_MAX_SIZE: u8 = 26;

// ---------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------

/// The three file formats of `-sample format=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SampleFormat {
    Csv,
    Bin,
    BinLz4,
}

impl SampleFormat {
    pub const ALL: [SampleFormat; 3] = [SampleFormat::Csv, SampleFormat::Bin, SampleFormat::BinLz4];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SampleFormat::Csv => "csv",
            SampleFormat::Bin => "bin",
            SampleFormat::BinLz4 => "bin_lz4",
        }
    }

    /// The file written when `file=` is not given.
    pub fn default_file(self) -> &'static str {
        match self {
            SampleFormat::Csv => "sample.csv",
            SampleFormat::Bin => "sample.bin",
            SampleFormat::BinLz4 => "sample.bin.lz4",
        }
    }

    /// The format implied by a file name: `.csv`, `.bin`, `.lz4`.
    pub fn from_extension(path: &Path) -> Option<SampleFormat> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "csv" => Some(SampleFormat::Csv),
            "bin" => Some(SampleFormat::Bin),
            "lz4" => Some(SampleFormat::BinLz4),
            _ => None,
        }
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
            SampleFormat::Bin | SampleFormat::BinLz4 => {
                if size.get() > BIN_MAX_SIZE {
                    return Err(SampleEncodeError::BoardTooLargeForBin { size: size.get() });
                }
                bin_rule_bits(rule)?;
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
    #[error("-sample: unknown key {key:?} (in {key}={value}); expected freq, format or file")]
    UnknownKey { key: String, value: String },
    #[error("-sample: {key} given twice ({first:?} and {second:?})")]
    Duplicate {
        key: String,
        first: String,
        second: String,
    },
    #[error("-sample: freq={value} is not a number")]
    BadFreq { value: String },
    #[error("-sample: freq={value} is outside [0, 1]")]
    FreqOutOfRange { value: String },
    #[error("-sample: unknown format={value:?} (expected csv, bin or bin_lz4)")]
    UnknownFormat { value: String },
    #[error("-sample: file= is empty")]
    EmptyFile,
}

/// What `-sample` asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleConfig {
    /// Probability that a move becomes a sample, in [0, 1].
    pub freq: f64,
    pub format: SampleFormat,
    pub file: PathBuf,
}

impl SampleConfig {
    /// Parse the `key=value` list that follows `-sample`. Defaults: freq=1, format=csv,
    /// file=sample.csv / sample.bin / sample.bin.lz4 by format.
    pub fn parse(kvs: &[(String, String)]) -> Result<SampleConfig, SampleConfigError> {
        let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
        for (key, value) in kvs {
            if !matches!(key.as_str(), "freq" | "format" | "file") {
                return Err(SampleConfigError::UnknownKey {
                    key: key.clone(),
                    value: value.clone(),
                });
            }
            if let Some(first) = seen.insert(key, value) {
                return Err(SampleConfigError::Duplicate {
                    key: key.clone(),
                    first: first.to_string(),
                    second: value.clone(),
                });
            }
        }
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
        Ok(SampleConfig { freq, format, file })
    }
}

// ---------------------------------------------------------------------------------------------
// Selection
// ---------------------------------------------------------------------------------------------

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
}

/// One training sample: a position, the move played in it and how the game ended for the mover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    pub size: BoardSize,
    pub rule: Rule,
    /// Every stone on the board in play order, black first (opening included).
    pub position: Vec<Pos>,
    /// The move played in `position`.
    pub mv: Pos,
    pub result: SampleResult,
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
        let mover = crate::board::Color::of_ply(ply);
        let result = match winner {
            None => SampleResult::Draw,
            Some(w) if w == mover => SampleResult::Win,
            Some(_) => SampleResult::Loss,
        };
        out.push(Sample {
            size: record.size,
            rule: record.rule,
            position: stones[..ply].to_vec(),
            mv: stones[ply],
            result,
        });
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------

/// A sample the chosen format cannot represent.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SampleEncodeError {
    #[error("the bin sample format stores board sizes up to {BIN_MAX_SIZE} (5 bits); this board is {size}x{size}")]
    BoardTooLargeForBin { size: u8 },
    #[error("the csv sample format uses pos notation, which stops at {CSV_MAX_SIZE} columns; this board is {size}x{size}")]
    BoardTooLargeForCsv { size: u8 },
    #[error("the bin sample format stores the rule code in 3 bits (0 freestyle, 1 exact five, 4 renju); {rule} (code {code}) does not fit: use format=csv")]
    RuleDoesNotFit { rule: Rule, code: u8 },
    #[error("the bin sample format stores positions of up to {BIN_MAX_PLY} stones (9 bits); this one has {ply}")]
    PlyTooLarge { ply: usize },
}

fn bin_rule_bits(rule: Rule) -> Result<u16, SampleEncodeError> {
    let code = rule.code();
    if code > 7 {
        return Err(SampleEncodeError::RuleDoesNotFit { rule, code });
    }
    Ok(code as u16)
}

/// A stone as a bin word: `(x << 5) | y`.
pub fn bin_word(p: Pos) -> u16 {
    ((p.x as u16) << 5) | p.y as u16
}

/// Append one bin entry (little-endian u16 words: header, rule|move, then the position).
pub fn encode_bin(sample: &Sample, out: &mut Vec<u8>) -> Result<(), SampleEncodeError> {
    let size = sample.size.get();
    if size > BIN_MAX_SIZE {
        return Err(SampleEncodeError::BoardTooLargeForBin { size });
    }
    let rule = bin_rule_bits(sample.rule)?;
    let ply = sample.position.len();
    if ply > BIN_MAX_PLY {
        return Err(SampleEncodeError::PlyTooLarge { ply });
    }
    let word0 = sample.result.code() as u16 | (ply as u16) << 2 | (size as u16) << 11;
    let word1 = rule | bin_word(sample.mv) << 3;
    out.reserve(4 + 2 * ply);
    out.extend_from_slice(&word0.to_le_bytes());
    out.extend_from_slice(&word1.to_le_bytes());
    for &p in &sample.position {
        out.extend_from_slice(&bin_word(p).to_le_bytes());
    }
    Ok(())
}

/// Pos notation of one stone straight into a byte buffer (the letter then the 1-based row).
fn push_pos(p: Pos, out: &mut Vec<u8>) {
    out.push(b'a' + p.x);
    let row = p.y as u32 + 1;
    if row >= 10 {
        out.push(b'0' + (row / 10) as u8);
    }
    out.push(b'0' + (row % 10) as u8);
}

/// Append one csv line `position,move,result\n` (pos notation; empty position = empty field).
pub fn encode_csv(sample: &Sample, out: &mut Vec<u8>) -> Result<(), SampleEncodeError> {
    let size = sample.size.get();
    if size > CSV_MAX_SIZE {
        return Err(SampleEncodeError::BoardTooLargeForCsv { size });
    }
    for &p in &sample.position {
        push_pos(p, out);
    }
    out.push(b',');
    push_pos(sample.mv, out);
    out.push(b',');
    out.push(b'0' + sample.result.code());
    out.push(b'\n');
    Ok(())
}

/// Append a batch in `format`'s uncompressed form (bin for bin_lz4). Nothing is appended on error.
pub fn encode_batch(
    format: SampleFormat,
    samples: &[Sample],
    out: &mut Vec<u8>,
) -> Result<(), SampleEncodeError> {
    let start = out.len();
    let encode = match format {
        SampleFormat::Csv => encode_csv,
        SampleFormat::Bin | SampleFormat::BinLz4 => encode_bin,
    };
    for s in samples {
        if let Err(e) = encode(s, out) {
            out.truncate(start);
            return Err(e);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------------------------

/// Failures of the sample writer.
#[derive(Debug, Error)]
pub enum SampleWriteError {
    #[error("cannot write samples to {name}: {source}")]
    Encode {
        name: String,
        #[source]
        source: SampleEncodeError,
    },
    #[error("cannot write samples to {name}: {source}")]
    Io {
        name: String,
        #[source]
        source: io::Error,
    },
}

/// Appends the samples of each finished game to a file (or any `Write`).
///
/// Every game is encoded in memory and written with one `write_all` then flushed, so the output
/// holds only whole games (short of a kill in the middle of that one call). For bin_lz4 every game
/// is a complete LZ4 frame; a file cut after any game decodes with `lz4 -d`. Python's
/// `lz4.frame.decompress` returns only the first frame of a buffer: read such files with
/// `LZ4FrameDecompressor` in a loop over `unused_data` (see the tests), or with `lz4 -d`.
/// Data reaches the kernel after every game (nothing is lost when the process is killed); it is
/// not fsync'ed.
pub struct SampleWriter<W: Write = File> {
    format: SampleFormat,
    name: String,
    out: W,
    /// The uncompressed batch, reused across games.
    buf: Vec<u8>,
    /// The frame encoder, reused across games (each `try_finish` closes one frame).
    lz4: Option<FrameEncoder<Vec<u8>>>,
    samples: u64,
}

impl SampleWriter<File> {
    /// Open `config.file` for appending (created if missing), whatever the format: an existing
    /// bin_lz4 file simply gets more frames. (A file left cut mid-game by a kill during a write
    /// stays cut: new games are appended after the damaged tail, which the reader reports.)
    pub fn open(config: &SampleConfig) -> Result<SampleWriter<File>, SampleWriteError> {
        let name = config.file.display().to_string();
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&config.file)
            .map_err(|source| SampleWriteError::Io {
                name: name.clone(),
                source,
            })?;
        Ok(SampleWriter::new(config.format, file, name))
    }
}

impl<W: Write> SampleWriter<W> {
    /// A writer over any output; `name` is used in error messages.
    pub fn new(format: SampleFormat, out: W, name: impl Into<String>) -> SampleWriter<W> {
        let lz4 = (format == SampleFormat::BinLz4).then(|| {
            let info = FrameInfo::new()
                .block_size(BlockSize::Max64KB)
                .block_mode(BlockMode::Independent)
                .content_checksum(true);
            FrameEncoder::with_frame_info(info, Vec::new())
        });
        SampleWriter {
            format,
            name: name.into(),
            out,
            buf: Vec::new(),
            lz4,
            samples: 0,
        }
    }

    pub fn format(&self) -> SampleFormat {
        self.format
    }

    /// Samples written so far.
    pub fn samples_written(&self) -> u64 {
        self.samples
    }

    fn io_err(&self, source: io::Error) -> SampleWriteError {
        SampleWriteError::Io {
            name: self.name.clone(),
            source,
        }
    }

    /// Append one game's samples and flush. An empty batch writes nothing (no empty frame). If any
    /// sample cannot be encoded, nothing of this game is written.
    pub fn write_game(&mut self, samples: &[Sample]) -> Result<(), SampleWriteError> {
        if samples.is_empty() {
            return Ok(());
        }
        self.buf.clear();
        encode_batch(self.format, samples, &mut self.buf).map_err(|source| {
            SampleWriteError::Encode {
                name: self.name.clone(),
                source,
            }
        })?;
        let result = match self.lz4.as_mut() {
            None => self.out.write_all(&self.buf),
            Some(enc) => {
                enc.get_mut().clear();
                let framed = enc
                    .write_all(&self.buf)
                    .and_then(|()| enc.try_finish().map_err(io::Error::from));
                match framed {
                    Ok(()) => self.out.write_all(enc.get_ref()),
                    Err(e) => Err(e),
                }
            }
        };
        result
            .and_then(|()| self.out.flush())
            .map_err(|e| self.io_err(e))?;
        self.samples += samples.len() as u64;
        Ok(())
    }

    /// Flush and hand back the output. Every game is already complete on disk, so this is only a
    /// final flush; dropping the writer instead loses nothing.
    pub fn finish(mut self) -> Result<W, SampleWriteError> {
        self.out.flush().map_err(|e| self.io_err(e))?;
        Ok(self.out)
    }
}

// ---------------------------------------------------------------------------------------------
// Reader
// ---------------------------------------------------------------------------------------------

/// A sample as read back from a file. csv records neither board size nor rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSample {
    pub size: Option<BoardSize>,
    pub rule: Option<Rule>,
    pub position: Vec<Pos>,
    pub mv: Pos,
    pub result: SampleResult,
}

impl StoredSample {
    /// What a file of `format` keeps of `sample`.
    pub fn stored_as(sample: &Sample, format: SampleFormat) -> StoredSample {
        let bin = format != SampleFormat::Csv;
        StoredSample {
            size: bin.then_some(sample.size),
            rule: bin.then_some(sample.rule),
            position: sample.position.clone(),
            mv: sample.mv,
            result: sample.result,
        }
    }
}

/// Failures reading a sample file.
#[derive(Debug, Error)]
pub enum SampleReadError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot tell the sample format of {path} from its extension (.csv, .bin, .lz4): give the format")]
    UnknownFormat { path: PathBuf },
    #[error("{path}:{line}: {why} in {text:?}")]
    Csv {
        path: PathBuf,
        line: u64,
        text: String,
        why: String,
    },
    /// `offset` counts bytes of the bin stream (after decompression for bin_lz4).
    #[error("{path}: bin entry at byte {offset}{stream}: {why}", stream = if *.compressed { " of the decompressed stream" } else { "" })]
    Bin {
        path: PathBuf,
        offset: u64,
        compressed: bool,
        why: String,
    },
    /// `offset` is a byte offset in the compressed file.
    #[error("{path}: LZ4 data at byte {offset}: {why}")]
    Lz4 {
        path: PathBuf,
        offset: u64,
        why: String,
    },
}

const LZ4_MAGIC: u32 = 0x184D_2204;
const LZ4_LEGACY_MAGIC: u32 = 0x184C_2102;

/// Walk the frames of an LZ4 file without decoding them and return where each data frame starts, so
/// that a cut or damaged file is reported with the offset of the frame it breaks in (the decoder
/// itself treats a cut as a clean end). Skippable frames are passed over; the legacy format is not
/// supported.
fn lz4_frame_starts(bytes: &[u8]) -> Result<Vec<usize>, (u64, String)> {
    let u32_at = |at: usize| -> Option<u32> {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
    };
    let mut starts = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        let start = at;
        let cut = |what: &str| {
            (
                start as u64,
                format!(
                    "the file ends inside the frame that starts here ({what}), as when the writer \
                     is killed mid-write; the bytes before it hold every finished game"
                ),
            )
        };
        let magic = u32_at(at).ok_or_else(|| cut("magic number"))?;
        if (0x184D_2A50..=0x184D_2A5F).contains(&magic) {
            let len = u32_at(at + 4).ok_or_else(|| cut("skippable frame size"))? as usize;
            at += 8 + len;
            if at > bytes.len() {
                return Err(cut("skippable frame"));
            }
            continue;
        }
        if magic == LZ4_LEGACY_MAGIC {
            return Err((start as u64, "legacy LZ4 format is not supported".into()));
        }
        if magic != LZ4_MAGIC {
            return Err((
                start as u64,
                format!("not an LZ4 frame (magic number {magic:#010x})"),
            ));
        }
        starts.push(start);
        let flg = *bytes.get(at + 4).ok_or_else(|| cut("frame descriptor"))?;
        if flg >> 6 != 1 {
            return Err((
                start as u64,
                format!("unknown LZ4 frame version {}", flg >> 6),
            ));
        }
        let block_checksum = flg & 0x10 != 0;
        let content_size = flg & 0x08 != 0;
        let content_checksum = flg & 0x04 != 0;
        let dict_id = flg & 0x01 != 0;
        // magic, FLG, BD, optional content size and dictionary id, header checksum
        at += 4 + 2 + if content_size { 8 } else { 0 } + if dict_id { 4 } else { 0 } + 1;
        if at > bytes.len() {
            return Err(cut("frame descriptor"));
        }
        loop {
            let block = u32_at(at).ok_or_else(|| cut("block header"))?;
            at += 4;
            if block == 0 {
                break;
            }
            at += (block & 0x7FFF_FFFF) as usize + if block_checksum { 4 } else { 0 };
            if at > bytes.len() {
                return Err(cut("block"));
            }
        }
        if content_checksum {
            at += 4;
            if at > bytes.len() {
                return Err(cut("content checksum"));
            }
        }
    }
    Ok(starts)
}

/// The decompressed stream of a whole LZ4 file, one frame after the other. (`FrameDecoder` reports
/// the end of each frame as the end of the stream, so every frame gets its own decoder.)
struct Lz4Stream {
    /// Start offsets of the frames not yet begun.
    next: std::vec::IntoIter<usize>,
    /// The decoder of the current frame; `None` only before the first frame.
    current: Option<FrameDecoder<io::Cursor<Vec<u8>>>>,
    /// The file contents while no decoder holds them.
    idle: Option<io::Cursor<Vec<u8>>>,
}

impl Lz4Stream {
    fn new(bytes: Vec<u8>, starts: Vec<usize>) -> Lz4Stream {
        Lz4Stream {
            next: starts.into_iter(),
            current: None,
            idle: Some(io::Cursor::new(bytes)),
        }
    }
}

impl Read for Lz4Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(dec) = self.current.as_mut() {
                let n = dec.read(buf)?;
                if n > 0 || buf.is_empty() {
                    return Ok(n);
                }
            }
            let Some(start) = self.next.next() else {
                return Ok(0);
            };
            let mut cursor = match self.current.take() {
                Some(dec) => dec.into_inner(),
                None => self.idle.take().expect("file bytes held by the stream"),
            };
            cursor.set_position(start as u64);
            self.current = Some(FrameDecoder::new(cursor));
        }
    }
}

/// A reader of bytes that counts what it has handed out (the offset of the next bin entry).
struct Counting<R> {
    inner: R,
    read: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

/// Read as much of `buf` as there is; returns how many bytes were filled (less only at the end).
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

enum Source {
    Csv {
        lines: io::Lines<BufReader<File>>,
        line: u64,
    },
    Bin {
        reader: Counting<Box<dyn Read>>,
        compressed: bool,
        words: Vec<u8>,
    },
    Done,
}

/// Streams the samples of a file; yields an error (then stops) at the first bad entry.
pub struct SampleReader {
    path: PathBuf,
    source: Source,
}

/// Open a sample file for streaming. For bin_lz4 the compressed file is read into memory and its
/// frame structure checked first (a file cut mid-frame is an error naming the frame's offset).
pub fn open_samples(path: &Path, format: SampleFormat) -> Result<SampleReader, SampleReadError> {
    let io_err = |source| SampleReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let source = match format {
        SampleFormat::Csv => Source::Csv {
            lines: BufReader::new(File::open(path).map_err(io_err)?).lines(),
            line: 0,
        },
        SampleFormat::Bin => Source::Bin {
            reader: Counting {
                inner: Box::new(BufReader::with_capacity(
                    1 << 16,
                    File::open(path).map_err(io_err)?,
                )),
                read: 0,
            },
            compressed: false,
            words: Vec::new(),
        },
        SampleFormat::BinLz4 => {
            let bytes = std::fs::read(path).map_err(io_err)?;
            let starts =
                lz4_frame_starts(&bytes).map_err(|(offset, why)| SampleReadError::Lz4 {
                    path: path.to_path_buf(),
                    offset,
                    why,
                })?;
            Source::Bin {
                reader: Counting {
                    inner: Box::new(Lz4Stream::new(bytes, starts)),
                    read: 0,
                },
                compressed: true,
                words: Vec::new(),
            }
        }
    };
    Ok(SampleReader {
        path: path.to_path_buf(),
        source,
    })
}

/// Read a whole sample file.
pub fn read_samples(
    path: &Path,
    format: SampleFormat,
) -> Result<Vec<StoredSample>, SampleReadError> {
    open_samples(path, format)?.collect()
}

fn parse_csv_line(text: &str) -> Result<StoredSample, String> {
    // Pos notation has 26 letters; the file does not say the board size, so check against that.
    let letters = BoardSize::new(CSV_MAX_SIZE as u32).expect("26 is a valid board size");
    let mut fields = text.split(',');
    let (Some(pos), Some(mv), Some(res), None) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err("expected 3 fields: position,move,result".into());
    };
    let position = parse_pos_sequence(pos.trim(), letters).map_err(|e| format!("position: {e}"))?;
    let mv = match parse_pos_sequence(mv.trim(), letters).map_err(|e| format!("move: {e}"))?[..] {
        [p] => p,
        _ => return Err(format!("move {mv:?} is not a single point")),
    };
    let result = res
        .trim()
        .parse::<u16>()
        .ok()
        .and_then(SampleResult::from_code)
        .ok_or_else(|| format!("result {res:?} is not 0, 1 or 2"))?;
    Ok(StoredSample {
        size: None,
        rule: None,
        position,
        mv,
        result,
    })
}

impl SampleReader {
    fn next_csv(&mut self) -> Option<Result<StoredSample, SampleReadError>> {
        let Source::Csv { lines, line } = &mut self.source else {
            unreachable!("called on a csv source")
        };
        loop {
            *line += 1;
            let text = match lines.next()? {
                Ok(t) => t,
                Err(source) => {
                    return Some(Err(SampleReadError::Io {
                        path: self.path.clone(),
                        source,
                    }))
                }
            };
            let text = text.trim_end_matches('\r');
            if text.trim().is_empty() {
                continue;
            }
            return Some(parse_csv_line(text).map_err(|why| SampleReadError::Csv {
                path: self.path.clone(),
                line: *line,
                text: text.to_string(),
                why,
            }));
        }
    }

    fn next_bin(&mut self) -> Option<Result<StoredSample, SampleReadError>> {
        let Source::Bin {
            reader,
            compressed,
            words,
        } = &mut self.source
        else {
            unreachable!("called on a bin source")
        };
        let offset = reader.read;
        let compressed = *compressed;
        let err = |why: String| SampleReadError::Bin {
            path: self.path.clone(),
            offset,
            compressed,
            why,
        };
        let mut head = [0u8; 4];
        let got = match read_full(reader, &mut head) {
            Ok(n) => n,
            Err(e) => return Some(Err(err(format!("read failed: {e}")))),
        };
        if got == 0 {
            return None;
        }
        if got < 4 {
            return Some(Err(err(format!(
                "the data ends inside an entry header ({got} of 4 bytes)"
            ))));
        }
        let w0 = u16::from_le_bytes([head[0], head[1]]);
        let w1 = u16::from_le_bytes([head[2], head[3]]);
        let Some(result) = SampleResult::from_code(w0 & 3) else {
            return Some(Err(err("result field is 3 (expected 0, 1 or 2)".into())));
        };
        let ply = ((w0 >> 2) & 0x1FF) as usize;
        let size = match BoardSize::new((w0 >> 11) as u32) {
            Ok(s) => s,
            Err(e) => return Some(Err(err(format!("board size field: {e}")))),
        };
        let rule = match Rule::from_code((w1 & 7) as i64) {
            Ok(r) => r,
            Err(e) => return Some(Err(err(format!("rule field: {e}")))),
        };
        let stone = |w: u16, what: &str| -> Result<Pos, String> {
            let (x, y) = (w >> 5, w & 31);
            if x >= size.get() as u16 || y >= size.get() as u16 {
                return Err(format!("{what} {x},{y} is off the {size}x{size} board"));
            }
            Ok(Pos::new(x as u8, y as u8))
        };
        let mv = match stone(w1 >> 3, "move") {
            Ok(p) => p,
            Err(why) => return Some(Err(err(why))),
        };
        words.resize(2 * ply, 0);
        match read_full(reader, words) {
            Ok(n) if n == words.len() => {}
            Ok(n) => {
                return Some(Err(err(format!(
                    "the data ends inside the entry ({} of {} bytes)",
                    4 + n,
                    4 + 2 * ply
                ))))
            }
            Err(e) => return Some(Err(err(format!("read failed: {e}")))),
        }
        let mut position = Vec::with_capacity(ply);
        for (i, w) in words.chunks_exact(2).enumerate() {
            match stone(
                u16::from_le_bytes([w[0], w[1]]),
                &format!("stone {}", i + 1),
            ) {
                Ok(p) => position.push(p),
                Err(why) => return Some(Err(err(why))),
            }
        }
        Some(Ok(StoredSample {
            size: Some(size),
            rule: Some(rule),
            position,
            mv,
            result,
        }))
    }
}

impl Iterator for SampleReader {
    type Item = Result<StoredSample, SampleReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = match self.source {
            Source::Csv { .. } => self.next_csv(),
            Source::Bin { .. } => self.next_bin(),
            Source::Done => None,
        };
        // Stop after the first error: what follows a bad entry cannot be trusted.
        if !matches!(item, Some(Ok(_))) {
            self.source = Source::Done;
        }
        item
    }
}

// ---------------------------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------------------------

/// A summary of a sample file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SampleStats {
    pub count: u64,
    /// Indexed by [`SampleResult::code`]: loss, draw, win.
    pub results: [u64; 3],
    /// Samples by number of stones in the position.
    pub plies: BTreeMap<usize, u64>,
    /// Samples by board size (bin formats only).
    pub sizes: BTreeMap<u8, u64>,
    /// Samples by Gomocup rule code (bin formats only).
    pub rules: BTreeMap<u8, u64>,
    /// Samples whose file records no size or rule (csv).
    pub without_context: u64,
}

fn percent(n: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * n as f64 / total as f64
    }
}

impl SampleStats {
    pub fn add(&mut self, s: &StoredSample) {
        self.count += 1;
        self.results[s.result.code() as usize] += 1;
        *self.plies.entry(s.position.len()).or_default() += 1;
        match (s.size, s.rule) {
            (Some(size), Some(rule)) => {
                *self.sizes.entry(size.get()).or_default() += 1;
                *self.rules.entry(rule.code()).or_default() += 1;
            }
            _ => self.without_context += 1,
        }
    }

    /// A plain-text report: counts, result shares, sizes, rules and a ply histogram.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let n = self.count;
        s.push_str(&format!("samples: {n}\n"));
        if n == 0 {
            return s;
        }
        let [loss, draw, win] = self.results;
        s.push_str(&format!(
            "results (side to move): loss {loss} ({:.1}%), draw {draw} ({:.1}%), win {win} ({:.1}%)\n",
            percent(loss, n),
            percent(draw, n),
            percent(win, n)
        ));
        if self.without_context == n {
            s.push_str("board sizes and rules: not recorded (csv)\n");
        } else {
            let sizes: Vec<String> = self
                .sizes
                .iter()
                .map(|(k, v)| format!("{k}x{k} {v}"))
                .collect();
            s.push_str(&format!("board sizes: {}\n", sizes.join(", ")));
            let rules: Vec<String> = self
                .rules
                .iter()
                .map(|(&code, v)| match Rule::from_code(code as i64) {
                    Ok(r) => format!("{r} ({code}) {v}"),
                    Err(_) => format!("code {code} {v}"),
                })
                .collect();
            s.push_str(&format!("rules: {}\n", rules.join(", ")));
        }
        let min = *self.plies.keys().next().expect("count > 0");
        let max = *self.plies.keys().next_back().expect("count > 0");
        let total: u64 = self.plies.iter().map(|(&p, &c)| p as u64 * c).sum();
        s.push_str(&format!(
            "stones in position: min {min}, mean {:.1}, max {max}\n",
            total as f64 / n as f64
        ));
        // At most about 20 rows, with a round bucket width.
        let span = max - min + 1;
        let width = [1usize, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
            .into_iter()
            .find(|w| span.div_ceil(*w) <= 20)
            .unwrap_or(1000);
        let mut buckets: BTreeMap<usize, u64> = BTreeMap::new();
        for (&p, &c) in &self.plies {
            *buckets.entry(p / width * width).or_default() += c;
        }
        let peak = buckets.values().copied().max().unwrap_or(1).max(1);
        let label = |lo: usize| {
            if width == 1 {
                format!("{lo}")
            } else {
                format!("{lo}-{}", lo + width - 1)
            }
        };
        let label_width = buckets.keys().map(|&lo| label(lo).len()).max().unwrap_or(1);
        let count_width = peak.to_string().len();
        s.push_str("histogram of stones in position:\n");
        for (&lo, &c) in &buckets {
            let bar = ((c as f64 / peak as f64) * 40.0).round() as usize;
            s.push_str(&format!(
                "  {:>label_width$}  {:>count_width$}  {}\n",
                label(lo),
                c,
                "#".repeat(bar.max(usize::from(c > 0)))
            ));
        }
        s
    }
}

/// `gomoku-cli samples stats FILE [--format F]`: read the whole file and render its statistics.
/// Without a format, it is guessed from the extension (.csv, .bin, .lz4).
pub fn samples_stats_command(
    path: &Path,
    format: Option<SampleFormat>,
) -> Result<String, SampleReadError> {
    let format = match format.or_else(|| SampleFormat::from_extension(path)) {
        Some(f) => f,
        None => {
            return Err(SampleReadError::UnknownFormat {
                path: path.to_path_buf(),
            })
        }
    };
    let mut stats = SampleStats::default();
    for s in open_samples(path, format)? {
        stats.add(&s?);
    }
    Ok(format!("{} ({format})\n{}", path.display(), stats.render()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Termination;
    use crate::record::fixtures::sample_record;

    fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn config_defaults_and_values() {
        let c = SampleConfig::parse(&[]).unwrap();
        assert_eq!(
            c,
            SampleConfig {
                freq: 1.0,
                format: SampleFormat::Csv,
                file: "sample.csv".into()
            }
        );
        let c = SampleConfig::parse(&kv(&[("format", "bin_lz4"), ("freq", "0.25")])).unwrap();
        assert_eq!(c.file, PathBuf::from("sample.bin.lz4"));
        assert_eq!(c.freq, 0.25);
        let c = SampleConfig::parse(&kv(&[("format", "bin"), ("file", "x.dat")])).unwrap();
        assert_eq!((c.format, c.file), (SampleFormat::Bin, "x.dat".into()));
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
        assert!(matches!(e, SampleConfigError::Duplicate { .. }));
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
            by: crate::board::Color::White,
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
        assert!(SampleFormat::Bin.check(s32, Rule::Freestyle).is_err());
        assert!(SampleFormat::Csv
            .check(BoardSize::new(27).unwrap(), Rule::Freestyle)
            .is_err());
    }

    #[test]
    fn lz4_frame_walk_reports_cuts() {
        let mut w = SampleWriter::new(SampleFormat::BinLz4, Vec::new(), "mem");
        let r = sample_record();
        w.write_game(&samples_of(&r, 1.0, &mut game_rng(0, 0)))
            .unwrap();
        let bytes = w.finish().unwrap();
        assert!(lz4_frame_starts(&bytes).is_ok());
        let mut two = bytes.clone();
        two.extend_from_slice(&bytes);
        assert!(lz4_frame_starts(&two).is_ok());
        let cut = &two[..bytes.len() + 9];
        let (offset, why) = lz4_frame_starts(cut).unwrap_err();
        assert_eq!(offset, bytes.len() as u64);
        assert!(why.contains("ends inside"), "{why}");
        let (offset, _) = lz4_frame_starts(b"garbage!").unwrap_err();
        assert_eq!(offset, 0);
    }

    #[test]
    fn stats_render() {
        let r = sample_record();
        let mut st = SampleStats::default();
        for s in samples_of(&r, 1.0, &mut game_rng(0, 0)) {
            st.add(&StoredSample::stored_as(&s, SampleFormat::Bin));
        }
        let text = st.render();
        assert!(text.contains("samples: 7\n"), "{text}");
        assert!(
            text.contains("loss 3 (42.9%), draw 0 (0.0%), win 4 (57.1%)"),
            "{text}"
        );
        assert!(text.contains("board sizes: 15x15 7"), "{text}");
        assert!(text.contains("rules: freestyle (0) 7"), "{text}");
        assert!(text.contains("min 2, mean 5.0, max 8"), "{text}");
    }
}
