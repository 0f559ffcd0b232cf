//! What every sample format provides ([`Codec`]: its names, what it can store, its encoder and
//! its reader) and what it may refuse ([`SampleEncodeError`]). The formats implement it in their
//! own files; `SampleFormat` (in mod.rs) maps each of its arms to one.

use std::io::{self, Read};

use thiserror::Error;

use crate::core::board::BoardSize;
use crate::core::rules::Rule;
use crate::formats::samples::sample::{EvalColumn, Sample, StoredSample};

// The limits of the formats' fields live here, beside the error whose messages name them.
/// Largest board the bin format can describe (5-bit board size field).
pub const BIN_MAX_SIZE: u8 = 31;
/// Largest position the bin format can describe (9-bit ply field).
pub const BIN_MAX_PLY: usize = 511;
/// Largest board pos notation (and so csv) can describe: one letter per column.
pub const CSV_MAX_SIZE: u8 = 26;
/// Most stones a binpack entry can count (10-bit fields): more than a 31x31 board holds.
pub const BINPACK_MAX_STONES: usize = 1023;
/// Most move records a binpack entry can count (18-bit field).
pub const BINPACK_MAX_RECORDS: usize = (1 << 18) - 1;

/// A sample the chosen format cannot represent.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SampleEncodeError {
    /// The board is larger than the 5-bit size field of bin and binpack allows.
    #[error("the bin and binpack sample formats store board sizes up to {BIN_MAX_SIZE} (5 bits); this board is {size}x{size}")]
    BoardTooLargeForBin { size: u8 },
    /// The board has more columns than pos notation has letters.
    #[error("the csv sample format uses pos notation, which stops at {CSV_MAX_SIZE} columns; this board is {size}x{size}")]
    BoardTooLargeForCsv { size: u8 },
    /// The rule code does not fit the 3-bit rule field of bin and binpack (caro, standard caro).
    #[error("the bin and binpack sample formats store the rule code in 3 bits (0 freestyle, 1 exact five, 4 renju); {rule} (code {code}) does not fit: use format=csv")]
    RuleDoesNotFit { rule: Rule, code: u8 },
    /// The position has more stones than the 9-bit ply field counts.
    #[error("the bin sample format stores positions of up to {BIN_MAX_PLY} stones (9 bits); this one has {ply}")]
    PlyTooLarge { ply: usize },
    /// A binpack chain ends with more stones than the 10-bit stone count holds (only possible
    /// for samples that are not from a real game: a 31x31 board holds 961 stones).
    #[error("the binpack sample format counts up to {BINPACK_MAX_STONES} stones (10 bits); this chain ends with {stones}")]
    TooManyStonesForBinpack { stones: usize },
    /// A binpack chain has more move records (moves and their multi-PV alternatives) than the
    /// 18-bit count holds (only possible for samples that are not from a real game).
    #[error("the binpack sample format counts up to {BINPACK_MAX_RECORDS} move records (18 bits); this chain has {records}")]
    TooManyMovesForBinpack { records: usize },
}

/// Where a format keeps the mover's evaluation: what `eval=` may ask and `samples stats` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EvalField {
    /// An optional column, written with `eval=on` (csv).
    Optional,
    /// Always written (binpack): `eval=on` would ask nothing more.
    Always,
    /// Nowhere (bin).
    Never,
}

/// The names of a format.
pub(super) struct Names {
    /// The name of `-sample format=` and `samples stats --format`.
    pub(super) name: &'static str,
    /// The file written when `file=` is not given.
    pub(super) default_file: &'static str,
    /// The endings of file names that imply this format, lower case and without their first
    /// dot: `csv` is compared with the extension; `binpack.lz4` (two parts) is an ending, which
    /// wins over any one-part extension (`lz4`).
    pub(super) extensions: &'static [&'static str],
}

/// One sample format. `SampleFormat` hands out one `&'static dyn Codec` per arm, so a new format
/// is a file with a type that implements this, and one arm there.
pub(super) trait Codec: Sync {
    /// Its names.
    fn names(&self) -> &Names;
    /// Whether games of this size and rule can be written at all, so a run can refuse before its
    /// first game.
    fn check(&self, size: BoardSize, rule: Rule) -> Result<(), SampleEncodeError>;
    /// Append a batch in the format's stream form (the bytes inside the LZ4 frames of a
    /// compressed format); `column` is csv's. On error `out` may hold part of the batch: the
    /// caller cuts it off.
    fn encode(
        &self,
        samples: &[Sample],
        column: EvalColumn,
        out: &mut Vec<u8>,
    ) -> Result<(), SampleEncodeError>;
    /// What a file of this format keeps of `sample` (csv without its evaluation column):
    /// usually [`StoredSample::keeping`].
    fn stored(&self, sample: &Sample) -> StoredSample;
    /// Where the evaluation goes.
    fn evals(&self) -> EvalField;
    /// Whether an entry holds a chain of positions rather than one sample (binpack).
    fn chains(&self) -> bool {
        false
    }
    /// The stream format inside the LZ4 frames, for a compressed format.
    fn lz4_inner(&self) -> Option<&'static dyn Codec> {
        None
    }
    /// Stream the samples of `input`. `framed`: `input` is the decompressed stream of LZ4
    /// frames, which changes how a stream that stops inside an entry is explained.
    fn reader(&self, input: Box<dyn Read>, framed: bool) -> io::Result<Box<dyn EntrySource>>;
}

/// How much of a file a reader has read whole.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EntryCounts {
    /// csv records and bin entries (one sample each), or binpack entries (one chain each).
    pub entries: u64,
    /// Move records: one per sample, but a binpack multi-PV group has one per alternative.
    pub moves: u64,
}

/// A format's reader: the samples of a stream, up to its first damage.
pub(super) trait EntrySource {
    /// The next sample, the damage that stops the stream, or `None` at its end.
    fn next_sample(&mut self) -> Option<Result<StoredSample, Damage>>;
    /// The entries and move records read whole so far.
    fn counts(&self) -> EntryCounts;
}

/// Where and why a stream cannot be read on; the reader adds the file's name and format.
#[derive(Debug)]
pub(super) enum Damage {
    /// A record of a text format: its line and byte offset, its text, what is wrong with it.
    Record {
        line: u64,
        offset: u64,
        text: String,
        why: String,
    },
    /// An entry of a binary stream, at a byte offset of the stream (after decompression).
    Entry { offset: u64, why: String },
    /// The frames around the stream (LZ4), at a byte offset of the file.
    Frame { offset: u64, why: String },
    /// The input could not be read.
    Io(io::Error),
}
