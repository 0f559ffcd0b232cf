//! Reading sample files back, streaming, with each format's reader (`codec::Codec::reader`): csv record
//! by record, bin and binpack entry by entry, bin_lz4 and binpack_lz4 frame by frame after a walk
//! over the frame structure.
//!
//! A damaged file yields every sample before the damage, then one error that says where the
//! damage is (line or byte offset) and what was expected there, then nothing: what follows a bad
//! entry cannot be trusted, and what precedes it is worth having (`samples stats` reports it).
//! The usual damage is a cut: a writer killed in the middle of a game's write leaves a partial
//! last record, entry or LZ4 frame.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::formats::samples::codec::{Damage, EntryCounts, EntrySource};
use crate::formats::samples::sample::StoredSample;
use crate::formats::samples::SampleFormat;

/// Failures reading a sample file.
#[derive(Debug, Error)]
pub enum SampleReadError {
    /// The file cannot be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// No format was given and the file name does not tell it.
    #[error("cannot tell the sample format of {path} from its extension (.csv, .bin, .lz4, .binpack, .binpack.lz4): give the format")]
    UnknownFormat { path: PathBuf },
    /// A csv record that is not `position,move,result[,eval]` (or is cut short by the end of the file);
    /// `line` and `offset` are where the record starts.
    #[error("{path}:{line}: {why} in {text:?} (the record at byte {offset})")]
    Csv {
        path: PathBuf,
        line: u64,
        offset: u64,
        text: String,
        why: String,
    },
    /// A bin or binpack entry that is cut short or holds an impossible value; `offset` counts
    /// bytes of the bin or binpack stream (after decompression for the LZ4 formats).
    #[error("{path}: {kind} entry at byte {offset}{stream}: {why}", kind = .format.uncompressed(), stream = if .format.compressed() { " of the decompressed stream" } else { "" })]
    Bin {
        path: PathBuf,
        /// The file's format.
        format: SampleFormat,
        offset: u64,
        why: String,
    },
    /// The LZ4 frame structure is broken (cut, or not LZ4) at `offset`, a byte offset in the file.
    #[error("{path}: LZ4 data at byte {offset}: {why}")]
    Lz4 {
        path: PathBuf,
        offset: u64,
        why: String,
    },
}

/// Streams the samples of a file. At the first damage it yields one error, then stops.
pub struct SampleReader {
    path: PathBuf,
    format: SampleFormat,
    source: Box<dyn EntrySource>,
    done: bool,
}

impl SampleReader {
    /// Stream the samples of `input`, the contents of a file of `format`; `path` names it in
    /// errors. An LZ4 file is read into memory first, to walk its frames.
    pub fn new(
        input: Box<dyn Read>,
        format: SampleFormat,
        path: &Path,
    ) -> Result<SampleReader, SampleReadError> {
        let source = format
            .codec()
            .reader(input, false)
            .map_err(|source| SampleReadError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(SampleReader {
            path: path.to_path_buf(),
            format,
            source,
            done: false,
        })
    }

    /// The entries and move records read whole so far.
    pub fn counts(&self) -> EntryCounts {
        self.source.counts()
    }

    /// The error that names this file for `damage` in it.
    fn error(&self, damage: Damage) -> SampleReadError {
        let path = self.path.clone();
        match damage {
            Damage::Record {
                line,
                offset,
                text,
                why,
            } => SampleReadError::Csv {
                path,
                line,
                offset,
                text,
                why,
            },
            Damage::Entry { offset, why } => SampleReadError::Bin {
                path,
                format: self.format,
                offset,
                why,
            },
            Damage::Frame { offset, why } => SampleReadError::Lz4 { path, offset, why },
            Damage::Io(source) => SampleReadError::Io { path, source },
        }
    }
}

/// Open a sample file for streaming.
pub fn open_samples(path: &Path, format: SampleFormat) -> Result<SampleReader, SampleReadError> {
    let file = File::open(path).map_err(|source| SampleReadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    SampleReader::new(
        Box::new(BufReader::with_capacity(1 << 16, file)),
        format,
        path,
    )
}

/// Read a whole sample file: every sample, or the first damage.
pub fn read_samples(
    path: &Path,
    format: SampleFormat,
) -> Result<Vec<StoredSample>, SampleReadError> {
    open_samples(path, format)?.collect()
}
impl Iterator for SampleReader {
    type Item = Result<StoredSample, SampleReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.source.next_sample() {
            Some(Ok(sample)) => Some(Ok(sample)),
            // What follows damage cannot be trusted: stop at the first.
            Some(Err(damage)) => {
                self.done = true;
                Some(Err(self.error(damage)))
            }
            None => {
                self.done = true;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::board::Color;
    use crate::core::board::{BoardSize, Pos};
    use crate::core::rules::Rule;
    use crate::core::search::{Eval, PvMove, SearchReport};
    use crate::formats::samples::lz4::lz4_frame_walk;
    use crate::formats::samples::{game_rng, samples_of, Sample, SampleWriter};
    use crate::game::record::fixtures::sample_record;
    use crate::game::record::GameRecord;
    use crate::game::record::PlayedMove;
    use crate::game::termination::Termination;
    use proptest::prelude::*;
    use rand::seq::SliceRandom;

    /// Read `bytes`, a file of `format`, to the end.
    fn read_bytes(bytes: Vec<u8>, format: SampleFormat) -> (Vec<StoredSample>, EntryCounts) {
        let mut r =
            SampleReader::new(Box::new(io::Cursor::new(bytes)), format, Path::new("mem")).unwrap();
        let samples = r.by_ref().collect::<Result<_, _>>().unwrap();
        (samples, r.counts())
    }

    /// A search report for move `i` whose next points are `next`: none, an evaluation, or an
    /// evaluation and a PV list whose other move is the next point (empty when it is asked).
    fn report_for(i: usize, next: &[Pos]) -> Option<Box<SearchReport>> {
        let eval = Some(Eval::Score(i as i32 * 37 - 600));
        let multipv = match next {
            [n, ..] if i % 3 == 2 => vec![PvMove {
                pos: *n,
                eval: (i % 2 == 0).then_some(Eval::Score(-(i as i32))),
            }],
            _ => Vec::new(),
        };
        (i % 3 != 0).then(|| {
            Box::new(SearchReport {
                eval,
                multipv,
                ..SearchReport::default()
            })
        })
    }

    /// A finished game on a `size` board: `opening` and `moves` stones on distinct random points,
    /// two moves in three with a search report ([`report_for`]).
    fn random_game(
        size: u32,
        rule: Rule,
        seed: u64,
        opening: usize,
        moves: usize,
        result: u8,
    ) -> GameRecord {
        let size = BoardSize::new(size).unwrap();
        let mut points: Vec<Pos> = size.all().collect();
        points.shuffle(&mut game_rng(seed, 0));
        let moves = moves.min(points.len() - opening);
        let mut r = sample_record();
        r.size = size;
        r.rule = rule;
        r.opening = points[..opening].to_vec();
        r.outcome.moves = (opening..opening + moves)
            .map(|at| PlayedMove {
                pos: points[at],
                time: std::time::Duration::ZERO,
                search: report_for(at - opening, &points[at + 1..]),
            })
            .collect();
        r.outcome.termination = match result {
            0 => Termination::Five {
                winner: Color::Black,
                line: vec![],
            },
            1 => Termination::Five {
                winner: Color::White,
                line: vec![],
            },
            _ => Termination::FullBoard,
        };
        r
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        /// Random games → samples at a random freq → each binary format → read back: the same
        /// samples; binpack has one entry per run of consecutive sampled moves of a game, and
        /// binpack_lz4 one complete frame per game that has samples.
        #[test]
        fn binary_formats_round_trip_random_games(
            size in 5u32..=31,
            rule in prop::sample::select(vec![Rule::Freestyle, Rule::ExactFive, Rule::Renju]),
            seed in any::<u64>(),
            games in prop::collection::vec((0usize..6, 0usize..90, 0u8..3), 1..4),
            freq in prop::sample::select(vec![0.0, 0.2, 0.5, 0.9, 1.0]),
        ) {
            let batches: Vec<Vec<Sample>> = games
                .iter()
                .enumerate()
                .map(|(g, &(opening, moves, result))| {
                    let r = random_game(size, rule, seed ^ g as u64, opening, moves, result);
                    samples_of(&r, freq, &mut game_rng(seed, g as u64))
                })
                .collect();
            let all: Vec<Sample> = batches.concat();
            // Independently of the encoder: a run breaks where a game starts or a move was skipped.
            let runs = batches
                .iter()
                .map(|b| {
                    b.iter().enumerate().filter(|(i, s)| {
                        *i == 0 || s.position.len() != b[i - 1].position.len() + 1
                    }).count() as u64
                })
                .sum::<u64>();
            for format in [SampleFormat::Bin, SampleFormat::BinLz4, SampleFormat::Binpack, SampleFormat::BinpackLz4] {
                let mut w = SampleWriter::new(format, Vec::new(), "mem");
                for b in &batches {
                    w.write_game(b).unwrap();
                }
                let bytes = w.finish().unwrap();
                if format.compressed() {
                    let walk = lz4_frame_walk(&bytes);
                    prop_assert!(walk.damage.is_none());
                    let with_samples = batches.iter().filter(|b| !b.is_empty()).count();
                    prop_assert_eq!(walk.starts.len(), with_samples);
                }
                let (back, counts) = read_bytes(bytes, format);
                let want: Vec<StoredSample> =
                    all.iter().map(|s| StoredSample::stored_as(s, format)).collect();
                prop_assert_eq!(&back, &want, "{}", format);
                let records = all.iter().map(|s| 1 + s.alternatives.len() as u64).sum::<u64>();
                let want_moves = if format.packed() { records } else { all.len() as u64 };
                prop_assert_eq!(counts.moves, want_moves);
                if format.packed() {
                    prop_assert_eq!(counts.entries, runs, "{}", format);
                }
            }
        }
    }

    #[test]
    fn reading_stops_at_the_damage_after_the_complete_part() {
        let r = sample_record();
        let samples = samples_of(&r, 1.0, &mut game_rng(0, 0));
        for format in [SampleFormat::Bin, SampleFormat::BinLz4, SampleFormat::Csv] {
            let mut w = SampleWriter::new(format, Vec::new(), "mem");
            w.write_game(&samples).unwrap();
            w.write_game(&samples).unwrap();
            let mut bytes = w.finish().unwrap();
            // Two bytes: a csv file without only its final newline is whole.
            bytes.truncate(bytes.len() - 2);
            let read: Vec<_> =
                SampleReader::new(Box::new(io::Cursor::new(bytes)), format, Path::new("mem"))
                    .unwrap()
                    .collect();
            // bin_lz4 loses the cut game's whole frame; bin and csv only the cut entry or line.
            let complete = if format == SampleFormat::BinLz4 {
                7
            } else {
                13
            };
            assert_eq!(read.len(), complete + 1, "{format}");
            assert!(read[..complete].iter().all(Result::is_ok), "{format}");
            let err = read[complete].as_ref().unwrap_err().to_string();
            assert!(err.contains("cut inside"), "{format}: {err}");
        }
    }
}
