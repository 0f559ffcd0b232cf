//! Training sample files (`-sample`, `gomoku-cli samples stats`): `SampleReader` over csv, bin,
//! bin_lz4, binpack and binpack_lz4 bytes, and the statistics the command prints.
//!
//! Input: byte 0 picks the format, the rest is the file. Checks: no panic; the reader stops at
//! its first error, which names an offset inside the file (csv, LZ4 structure); the samples read
//! before it, written again by `SampleWriter` in the same format, read back identically.
#![no_main]

use std::io::Cursor;
use std::path::Path;

use gomoku_cli::core::board::BoardSize;
use gomoku_cli::formats::samples::{
    EvalColumn, Sample, SampleEncodeError, SampleFormat, SampleReadError, SampleReader, SampleStats,
    SampleWriteError, SampleWriter, StoredSample,
};
use gomoku_cli::core::rules::Rule;
use libfuzzer_sys::fuzz_target;

const FORMATS: [SampleFormat; 5] = [
    SampleFormat::Csv,
    SampleFormat::Bin,
    SampleFormat::BinLz4,
    SampleFormat::Binpack,
    SampleFormat::BinpackLz4,
];

/// Every sample of a file up to its first error, and the error.
fn read_all(bytes: &[u8], format: SampleFormat) -> (Vec<StoredSample>, Option<SampleReadError>) {
    let reader = SampleReader::new(
        Box::new(Cursor::new(bytes.to_vec())),
        format,
        Path::new("f"),
    )
    .unwrap_or_else(|e| panic!("opening memory failed: {e}"));
    let mut samples = Vec::new();
    let mut error = None;
    for item in reader {
        match item {
            Ok(s) => samples.push(s),
            Err(e) => {
                assert!(error.is_none(), "a second error after {e}");
                error = Some(e);
            }
        }
    }
    (samples, error)
}

fuzz_target!(|data: &[u8]| {
    let Some((&format, file)) = data.split_first() else {
        return;
    };
    let format = FORMATS[usize::from(format) % FORMATS.len()];
    let (samples, error) = read_all(file, format);
    if let Some(e) = &error {
        match e {
            SampleReadError::Csv { offset, .. } | SampleReadError::Lz4 { offset, .. } => {
                assert!(*offset <= file.len() as u64, "{e}")
            }
            SampleReadError::Bin { offset, .. } if !format.compressed() => {
                assert!(*offset <= file.len() as u64, "{e}")
            }
            _ => {}
        }
        assert!(!e.to_string().is_empty());
    }
    let mut stats = SampleStats::default();
    samples.iter().for_each(|s| stats.add(s));
    let _ = stats.render();

    // csv keeps no board size nor rule: its pos notation has 26 letters.
    let letters = BoardSize::new(26).expect("26 is a board size");
    let again: Vec<Sample> = samples
        .iter()
        .map(|s| Sample {
            size: s.size.unwrap_or(letters),
            rule: s.rule.unwrap_or(Rule::Freestyle),
            position: s.position.clone(),
            mv: s.mv,
            result: s.result,
            eval: s.eval,
            alternatives: s.alternatives.clone(),
        })
        .collect();
    // A csv file read with an evaluation column is written with one.
    let column = match samples.iter().any(|s| s.eval.is_some()) {
        true => EvalColumn::With,
        false => EvalColumn::Without,
    };
    let mut writer = SampleWriter::new(format, Vec::new(), "again").with_eval_column(column);
    match writer.write_game(&again) {
        Ok(()) => {}
        // Entries that follow each other merge into one chain, which may then count more stones
        // than one entry can.
        Err(SampleWriteError::Encode {
            source:
                SampleEncodeError::TooManyStonesForBinpack { .. }
                | SampleEncodeError::TooManyMovesForBinpack { .. },
            ..
        }) => return,
        Err(e) => panic!("samples read from a file cannot be written again: {e}"),
    }
    let bytes = writer.finish().expect("writing memory");
    let (reread, error) = read_all(&bytes, format);
    assert!(error.is_none(), "{error:?}");
    assert_eq!(reread, samples);
});
