//! The bin format: one entry per sample, a head of two little-endian u16 words (result, ply and
//! board size; rule and move) then the position's stones, one `(x << 5) | y` word each. Also the
//! fields binpack shares with it (stone words, the 5-bit size and 3-bit rule), and bin_lz4, the
//! bin stream in LZ4 frames.

use std::collections::VecDeque;
use std::io::{self, Read};

use crate::core::board::{BoardSize, Pos};
use crate::core::rules::Rule;
use crate::formats::samples::codec::{
    Codec, EntrySource, EvalField, Names, SampleEncodeError, BIN_MAX_PLY, BIN_MAX_SIZE,
};
use crate::formats::samples::lz4::Lz4;
use crate::formats::samples::sample::{EvalColumn, Sample, SampleResult, StoredSample};
use crate::formats::samples::stream::{EntryFormat, EntryStream, Entrywise};

/// The bin format.
pub(super) struct Bin;

/// bin_lz4: the bin stream in LZ4 frames, one per game. Any `.lz4` file is taken for one, as
/// before binpack existed.
pub(super) const BIN_LZ4: Lz4 = Lz4 {
    inner: &Bin,
    names: Names {
        name: "bin_lz4",
        default_file: "sample.bin.lz4",
        extensions: &["lz4"],
    },
};

impl Codec for Bin {
    fn names(&self) -> &Names {
        &Names {
            name: "bin",
            default_file: "sample.bin",
            extensions: &["bin"],
        }
    }

    fn check(&self, size: BoardSize, rule: Rule) -> Result<(), SampleEncodeError> {
        // A position longer than BIN_MAX_PLY stones, possible only on boards of 23×23 and more,
        // is still refused per game by the encoder.
        check_fields(size, rule)
    }

    fn encode(
        &self,
        samples: &[Sample],
        _column: EvalColumn,
        out: &mut Vec<u8>,
    ) -> Result<(), SampleEncodeError> {
        samples.iter().try_for_each(|s| encode_bin(s, out))
    }

    fn stored(&self, sample: &Sample) -> StoredSample {
        StoredSample::keeping(sample, true, false)
    }

    fn evals(&self) -> EvalField {
        EvalField::Never
    }

    fn reader(&self, input: Box<dyn Read>, framed: bool) -> io::Result<Box<dyn EntrySource>> {
        Ok(Box::new(Entrywise::new(input, framed, BinEntry)))
    }
}

/// Whether the board size and the rule fit bin's 5-bit size and 3-bit rule fields (binpack's
/// too).
pub(super) fn check_fields(size: BoardSize, rule: Rule) -> Result<(), SampleEncodeError> {
    if size.get() > BIN_MAX_SIZE {
        return Err(SampleEncodeError::BoardTooLargeForBin { size: size.get() });
    }
    bin_rule_bits(rule)?;
    Ok(())
}

/// The 3-bit rule field: the Gomocup rule code, refused where it does not fit (caro 8, standard
/// caro 9) rather than masked into another rule's code.
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

/// Reads bin entries.
struct BinEntry;

/// The fields of a bin entry's 4-byte head.
struct BinHead {
    result: SampleResult,
    ply: usize,
    size: BoardSize,
    rule: Rule,
    mv: Pos,
}

impl BinHead {
    fn parse(head: [u8; 4]) -> Result<BinHead, String> {
        let w0 = u16::from_le_bytes([head[0], head[1]]);
        let w1 = u16::from_le_bytes([head[2], head[3]]);
        let result = SampleResult::from_code(w0 & 3)
            .ok_or("result field is 3 (expected 0, 1 or 2)".to_string())?;
        let size =
            BoardSize::new((w0 >> 11) as u32).map_err(|e| format!("board size field: {e}"))?;
        let rule = Rule::from_code((w1 & 7) as i64).map_err(|e| format!("rule field: {e}"))?;
        Ok(BinHead {
            result,
            ply: ((w0 >> 2) & 0x1FF) as usize,
            size,
            rule,
            mv: stone(w1 >> 3, size).map_err(|e| format!("move {e}"))?,
        })
    }
}

impl EntryFormat for BinEntry {
    fn read_entry(
        &self,
        stream: &mut EntryStream,
        out: &mut VecDeque<StoredSample>,
    ) -> Result<Option<u64>, String> {
        let Some(head) = stream.read_head::<4>()? else {
            return Ok(None);
        };
        let head = BinHead::parse(head)?;
        let body = stream.read_body(4, 2 * head.ply)?;
        out.push_back(StoredSample {
            size: Some(head.size),
            rule: Some(head.rule),
            position: stones(body, head.size)?,
            mv: head.mv,
            result: head.result,
            eval: None,
            alternatives: Vec::new(),
        });
        Ok(Some(1))
    }
}

/// A `(x << 5) | y` word as a point of a `size` board.
pub(super) fn stone(w: u16, size: BoardSize) -> Result<Pos, String> {
    let (x, y) = (w >> 5, w & 31);
    if x >= size.get() as u16 || y >= size.get() as u16 {
        return Err(format!("{x},{y} is off the {size}x{size} board"));
    }
    Ok(Pos::new(x as u8, y as u8))
}

/// Little-endian u16 stone words as points, in order.
pub(super) fn stones(words: &[u8], size: BoardSize) -> Result<Vec<Pos>, String> {
    words
        .chunks_exact(2)
        .enumerate()
        .map(|(i, w)| {
            stone(u16::from_le_bytes([w[0], w[1]]), size)
                .map_err(|e| format!("stone {} {e}", i + 1))
        })
        .collect()
}
