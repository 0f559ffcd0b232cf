//! Pure encodings of samples into bytes: csv lines and bin entries, appended to a buffer. No file
//! I/O here, so the writer, the benchmarks and the tests share one definition of each format.

use crate::board::Pos;
use crate::rules::Rule;
use thiserror::Error;

use super::{Sample, SampleFormat};

/// Largest board the bin format can describe (5-bit board size field).
pub const BIN_MAX_SIZE: u8 = 31;
/// Largest position the bin format can describe (9-bit ply field).
pub const BIN_MAX_PLY: usize = 511;
/// Largest board pos notation (and so csv) can describe: one letter per column.
pub const CSV_MAX_SIZE: u8 = 26;

/// A sample the chosen format cannot represent.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SampleEncodeError {
    /// The board is larger than the 5-bit size field allows.
    #[error("the bin sample format stores board sizes up to {BIN_MAX_SIZE} (5 bits); this board is {size}x{size}")]
    BoardTooLargeForBin { size: u8 },
    /// The board has more columns than pos notation has letters.
    #[error("the csv sample format uses pos notation, which stops at {CSV_MAX_SIZE} columns; this board is {size}x{size}")]
    BoardTooLargeForCsv { size: u8 },
    /// The rule code does not fit the 3-bit rule field (caro, standard caro).
    #[error("the bin sample format stores the rule code in 3 bits (0 freestyle, 1 exact five, 4 renju); {rule} (code {code}) does not fit: use format=csv")]
    RuleDoesNotFit { rule: Rule, code: u8 },
    /// The position has more stones than the 9-bit ply field counts.
    #[error("the bin sample format stores positions of up to {BIN_MAX_PLY} stones (9 bits); this one has {ply}")]
    PlyTooLarge { ply: usize },
}

pub(super) fn bin_rule_bits(rule: Rule) -> Result<u16, SampleEncodeError> {
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

/// Append one csv line `position,move,result` per sample (pos notation; an empty position is an
/// empty field; no header line, as the predecessor writes none). The csv crate writes the records,
/// so quoting and line ends follow the crate's rules rather than hand-written ones (pos notation and
/// the result digit never need quotes, so the bytes are the plain `h8i9,h9,2\n`).
pub fn encode_csv(samples: &[Sample], out: &mut Vec<u8>) -> Result<(), SampleEncodeError> {
    // Check the whole batch first: a csv writer cannot take back what it has written.
    if let Some(s) = samples.iter().find(|s| s.size.get() > CSV_MAX_SIZE) {
        return Err(SampleEncodeError::BoardTooLargeForCsv { size: s.size.get() });
    }
    let mut csv = csv::WriterBuilder::new()
        .has_headers(false)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out);
    let (mut position, mut mv) = (Vec::new(), Vec::new());
    for s in samples {
        position.clear();
        for &p in &s.position {
            push_pos(p, &mut position);
        }
        mv.clear();
        push_pos(s.mv, &mut mv);
        let result = [b'0' + s.result.code()];
        // Writing into a Vec cannot fail, and every record has the same three fields.
        csv.write_record([&position[..], &mv[..], &result[..]])
            .expect("a csv record into memory");
    }
    csv.flush().expect("flushing csv into memory");
    Ok(())
}

/// Append a batch in `format`'s uncompressed form (bin for bin_lz4). Nothing is appended on error.
pub fn encode_batch(
    format: SampleFormat,
    samples: &[Sample],
    out: &mut Vec<u8>,
) -> Result<(), SampleEncodeError> {
    let start = out.len();
    let encoded = match format {
        SampleFormat::Csv => encode_csv(samples, out),
        SampleFormat::Bin | SampleFormat::BinLz4 => {
            samples.iter().try_for_each(|s| encode_bin(s, out))
        }
    };
    if encoded.is_err() {
        out.truncate(start);
    }
    encoded
}
