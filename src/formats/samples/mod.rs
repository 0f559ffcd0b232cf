//! Training samples (`-sample`): what a sample is, which moves of a finished game become samples,
//! the `-sample` options, and the file formats, one file each:
//!
//! - `sample`: [`Sample`], [`StoredSample`] and the selection of a game's samples;
//! - `config`: the `-sample` options;
//! - `codec`: what a format provides (its names, what it can store, its encoder and its
//!   reader) and what it may refuse;
//! - the formats: `csv`, `bin` (with bin_lz4), `binpack` (with binpack_lz4); `lz4` puts another
//!   format's stream in LZ4 frames, one per game; `stream` is the entry-by-entry reading they
//!   share;
//! - `writer`: [`SampleWriter`], which appends one complete batch per game with a single
//!   `write_all`, so a file is valid up to the last finished game however the process ends; for
//!   `bin_lz4` and `binpack_lz4` each game's batch is its own complete LZ4 frame (concatenated
//!   frames are one stream);
//! - `reader`: [`SampleReader`], streaming a file back and saying where it is damaged;
//! - `stats`: the `samples stats` report.
//!
//! A new format is its file (a type that implements `codec::Codec`) and one line in
//! `sample_formats!` below, which declares [`SampleFormat`]'s arm and its codec together: every
//! `match` on the formats is there, so nothing else needs to know the new one.
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

mod bin;
mod binpack;
mod codec;
mod config;
mod csv;
mod lz4;
mod reader;
mod sample;
mod stats;
mod stream;
mod writer;

use std::fmt;
use std::path::Path;

use crate::core::board::BoardSize;
use crate::core::rules::Rule;

use codec::Codec;

pub use bin::{bin_word, encode_bin};
pub use binpack::{
    binpack_chain_len, encode_binpack, BINPACK_FIRST, BINPACK_LAST, BINPACK_NO_EVAL,
    BINPACK_PLAIN_MOVE,
};
pub use codec::{
    EntryCounts, SampleEncodeError, BINPACK_MAX_STONES, BIN_MAX_PLY, BIN_MAX_SIZE, CSV_MAX_SIZE,
};
pub use config::{SampleConfig, SampleConfigError};
pub use csv::encode_csv;
pub use reader::{open_samples, read_samples, SampleReadError, SampleReader};
pub use sample::{
    game_rng, samples_of, Alternative, EvalColumn, Sample, SampleResult, StoredSample,
};
pub use stats::{samples_stats_command, SampleStats, StatsReport};
pub use writer::{SampleWriteError, SampleWriter};

/// Declares [`SampleFormat`] with one arm per line, [`SampleFormat::ALL`] in the same order, and
/// the codec of each arm: a macro, so that no list of the formats can miss one.
macro_rules! sample_formats {
    ($($(#[$doc:meta])* $arm:ident => $codec:expr,)*) => {
        /// The file formats of `-sample format=`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum SampleFormat {
            $($(#[$doc])* $arm,)*
        }

        impl SampleFormat {
            /// Every format.
            pub const ALL: [SampleFormat; 0 $(+ sample_formats!(@one $arm))*] =
                [$(SampleFormat::$arm,)*];

            /// What the format is: everything else about it is asked of this.
            fn codec(self) -> &'static dyn Codec {
                match self {
                    $(SampleFormat::$arm => $codec,)*
                }
            }
        }
    };
    (@one $arm:ident) => {
        1
    };
}

sample_formats! {
    /// `position,move,result` lines.
    Csv => &csv::Csv,
    /// One entry per sample: a head of two u16 words, then the position's stones.
    Bin => &bin::Bin,
    /// The bin stream in LZ4 frames, one per game.
    BinLz4 => &bin::BIN_LZ4,
    /// The predecessor's packed format: one entry per chain of consecutive positions of a game.
    Binpack => &binpack::Binpack,
    /// The binpack stream in LZ4 frames, one per game.
    BinpackLz4 => &binpack::BINPACK_LZ4,
}

impl SampleFormat {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        self.codec().names().name
    }

    /// The file written when `file=` is not given.
    pub fn default_file(self) -> &'static str {
        self.codec().names().default_file
    }

    /// The format implied by a file name: `.csv`, `.bin`, `.binpack`, `.binpack.lz4`, and any
    /// other `.lz4` (such as `.bin.lz4`) for bin_lz4, as before binpack existed.
    pub fn from_extension(path: &Path) -> Option<SampleFormat> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        let claims = |f: &SampleFormat, fits: &dyn Fn(&str) -> bool| {
            f.codec().names().extensions.iter().any(|e| fits(e))
        };
        // An ending of two parts (`.binpack.lz4`) wins over an extension (`.lz4`).
        let two_parts = |e: &str| e.contains('.') && name.ends_with(&format!(".{e}"));
        if let Some(f) = SampleFormat::ALL.iter().find(|f| claims(f, &two_parts)) {
            return Some(*f);
        }
        let extension = Path::new(&name).extension()?.to_str()?;
        SampleFormat::ALL
            .into_iter()
            .find(|f| claims(f, &|e| e == extension))
    }

    /// Whether the file is LZ4 frames around the stream of [`SampleFormat::uncompressed`].
    pub fn compressed(self) -> bool {
        self.codec().lz4_inner().is_some()
    }

    /// The format of the stream inside the LZ4 frames (the format itself when not compressed).
    pub fn uncompressed(self) -> SampleFormat {
        let Some(inner) = self.codec().lz4_inner() else {
            return self;
        };
        SampleFormat::ALL
            .into_iter()
            .find(|f| f.name() == inner.names().name)
            .expect("the stream inside LZ4 frames is a format of its own")
    }

    /// Whether the format is binpack (entries are chains of positions, not single samples).
    pub fn packed(self) -> bool {
        self.codec().chains()
    }

    /// Whether games of this size and rule can be written in this format at all, so a run can
    /// refuse before its first game. (A bin position longer than [`BIN_MAX_PLY`] stones, possible
    /// only on boards of 23×23 and more, is still refused per game by the encoder.)
    pub fn check(self, size: BoardSize, rule: Rule) -> Result<(), SampleEncodeError> {
        self.codec().check(size, rule)
    }
}

impl fmt::Display for SampleFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl StoredSample {
    /// What a file of `format` keeps of `sample` (csv without its evaluation column).
    pub fn stored_as(sample: &Sample, format: SampleFormat) -> StoredSample {
        format.codec().stored(sample)
    }
}

/// Append a batch in `format`'s uncompressed form (bin for bin_lz4, binpack for binpack_lz4);
/// `column` is csv's. Nothing is appended on error.
pub fn encode_batch(
    format: SampleFormat,
    column: EvalColumn,
    samples: &[Sample],
    out: &mut Vec<u8>,
) -> Result<(), SampleEncodeError> {
    let start = out.len();
    let encoded = format.codec().encode(samples, column, out);
    if encoded.is_err() {
        out.truncate(start);
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_compressed_format_is_another_format_in_lz4_frames() {
        for f in SampleFormat::ALL {
            let inner = f.uncompressed();
            assert!(!inner.compressed(), "{f}");
            assert_eq!(f.compressed(), inner != f, "{f}");
            assert_eq!(f.packed(), inner.packed(), "{f}");
        }
        assert_eq!(SampleFormat::BinLz4.uncompressed(), SampleFormat::Bin);
        assert_eq!(
            SampleFormat::BinpackLz4.uncompressed(),
            SampleFormat::Binpack
        );
        assert!(SampleFormat::Binpack.packed() && !SampleFormat::Bin.packed());
    }

    #[test]
    fn the_option_table_lists_every_format() {
        // The help text is a table of literals: this is what makes a new format appear there.
        let names: Vec<&str> = SampleFormat::ALL.iter().map(|f| f.name()).collect();
        let rows: Vec<&crate::cli::table::Row> = crate::cli::table::ROWS
            .iter()
            .filter(|r| r.names == ["format"] || r.names == ["--format"])
            .filter(|r| r.value.contains("bin"))
            .collect();
        assert_eq!(rows.len(), 2, "-sample format= and samples stats --format");
        for row in rows {
            assert_eq!(row.value, names.join("|"), "{:?}", row.names);
        }
    }
}
