//! Pure encodings of samples into bytes: csv lines, bin entries and binpack chains, appended to a
//! buffer. No file I/O here, so the writer, the benchmarks and the tests share one definition of
//! each format. The byte layouts are described in docs/formats/samples.md.

use crate::core::board::Pos;
use crate::core::rules::Rule;
use thiserror::Error;

use crate::formats::samples::{EvalColumn, Sample, SampleFormat};

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
/// Bit 0 of a binpack move word: the first move of its group (the move played).
pub const BINPACK_FIRST: u16 = 0b001;
/// Bit 1: the last move of its group (a multi-PV group holds the played move, then the other
/// PV moves).
pub const BINPACK_LAST: u16 = 0b010;
/// Bit 2: no evaluation (its i16 field is then 0).
pub const BINPACK_NO_EVAL: u16 = 0b100;
/// The flags of a move from an engine that reported nothing: its own one-move group, no
/// evaluation.
pub const BINPACK_PLAIN_MOVE: u16 = BINPACK_FIRST | BINPACK_LAST | BINPACK_NO_EVAL;

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
/// empty field; no header line, as the predecessor writes none), with [`EvalColumn::With`] a
/// fourth field, the evaluation (empty when there is none). The csv crate writes the records,
/// so quoting and line ends follow the crate's rules rather than hand-written ones (pos notation and
/// the numbers never need quotes, so the bytes are the plain `h8i9,h9,2\n` or `h8i9,h9,2,-35\n`).
pub fn encode_csv(
    samples: &[Sample],
    column: EvalColumn,
    out: &mut Vec<u8>,
) -> Result<(), SampleEncodeError> {
    // Check the whole batch first: a csv writer cannot take back what it has written.
    if let Some(s) = samples.iter().find(|s| s.size.get() > CSV_MAX_SIZE) {
        return Err(SampleEncodeError::BoardTooLargeForCsv { size: s.size.get() });
    }
    let mut csv = csv::WriterBuilder::new()
        .has_headers(false)
        .terminator(csv::Terminator::Any(b'\n'))
        // The crate's buffer in front of `out` is allocated per batch: keep it small.
        .buffer_capacity(1024)
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
        let eval = s.eval.map(|v| v.to_string()).unwrap_or_default();
        let fields: &[&[u8]] = match column {
            EvalColumn::Without => &[&position, &mv, &result],
            EvalColumn::With => &[&position, &mv, &result, eval.as_bytes()],
        };
        // Writing into a Vec cannot fail, and every record has the same fields.
        csv.write_record(fields).expect("a csv record into memory");
    }
    csv.flush().expect("flushing csv into memory");
    Ok(())
}

/// How many samples at the start of `samples` form one binpack chain: each one continues the one
/// before it, that is the same board and rule, its position is the previous position plus the
/// previous move, and its result is the previous one seen from the other side. The samples of
/// one game at freq=1 are one chain; at a lower freq, every skipped move starts a new chain.
pub fn binpack_chain_len(samples: &[Sample]) -> usize {
    samples
        .windows(2)
        .position(|w| !continues(&w[0], &w[1]))
        .map_or(samples.len(), |i| i + 1)
}

fn continues(prev: &Sample, next: &Sample) -> bool {
    let n = prev.position.len();
    next.size == prev.size
        && next.rule == prev.rule
        && next.result == prev.result.flipped()
        && next.position.len() == n + 1
        && next.position[n] == prev.mv
        && next.position[..n] == prev.position[..]
}

/// Append `samples` as binpack entries, one per chain ([`binpack_chain_len`]). A chain of one
/// sample is an entry too (the predecessor wrote nothing for it, losing the sample).
pub fn encode_binpack(samples: &[Sample], out: &mut Vec<u8>) -> Result<(), SampleEncodeError> {
    let mut rest = samples;
    while !rest.is_empty() {
        let (chain, after) = rest.split_at(binpack_chain_len(rest));
        encode_binpack_entry(chain, out)?;
        rest = after;
    }
    Ok(())
}

/// One binpack entry: an 8-byte head, the starting position, then each move with its flags.
fn encode_binpack_entry(chain: &[Sample], out: &mut Vec<u8>) -> Result<(), SampleEncodeError> {
    let first = &chain[0];
    let size = first.size.get();
    if size > BIN_MAX_SIZE {
        return Err(SampleEncodeError::BoardTooLargeForBin { size });
    }
    let rule = bin_rule_bits(first.rule)? as u32;
    let start = first.position.len();
    let stones = start + chain.len();
    if stones > BINPACK_MAX_STONES {
        return Err(SampleEncodeError::TooManyStonesForBinpack { stones });
    }
    // One record per move of each group.
    let records: usize = chain.iter().map(|s| 1 + s.alternatives.len()).sum();
    if records > BINPACK_MAX_RECORDS {
        return Err(SampleEncodeError::TooManyMovesForBinpack { records });
    }
    // Word 1: size (5 bits), rule (3), result (4), stones at the end (10), stones at the start
    // (10). Word 2: game tag (14 bits, reserved: 0), number of moves (18).
    let word1 = size as u32
        | rule << 5
        | (first.result.code() as u32) << 8
        | (stones as u32) << 12
        | (start as u32) << 22;
    let word2 = (records as u32) << 14;
    out.reserve(8 + 2 * start + 4 * records);
    out.extend_from_slice(&word1.to_le_bytes());
    out.extend_from_slice(&word2.to_le_bytes());
    for &p in &first.position {
        out.extend_from_slice(&bin_word(p).to_le_bytes());
    }
    for s in chain {
        let alone = s.alternatives.is_empty();
        push_binpack_move(
            BINPACK_FIRST | if alone { BINPACK_LAST } else { 0 },
            s.mv,
            s.eval,
            out,
        );
        for (i, a) in s.alternatives.iter().enumerate() {
            let last = i + 1 == s.alternatives.len();
            push_binpack_move(if last { BINPACK_LAST } else { 0 }, a.mv, a.eval, out);
        }
    }
    Ok(())
}

/// One binpack move record: `flags | move<<6`, then the evaluation (0 and the no-evaluation bit
/// when there is none). The evaluation is the side to move's, in the position before the move,
/// as Rapfi's self-play writes it and its trainer mixes it with the result for that side.
fn push_binpack_move(flags: u16, mv: Pos, eval: Option<i16>, out: &mut Vec<u8>) {
    let (flags, eval) = match eval {
        Some(v) => (flags, v),
        None => (flags | BINPACK_NO_EVAL, 0),
    };
    out.extend_from_slice(&(flags | bin_word(mv) << 6).to_le_bytes());
    out.extend_from_slice(&eval.to_le_bytes());
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
    let encoded = match format {
        SampleFormat::Csv => encode_csv(samples, column, out),
        SampleFormat::Bin | SampleFormat::BinLz4 => {
            samples.iter().try_for_each(|s| encode_bin(s, out))
        }
        SampleFormat::Binpack | SampleFormat::BinpackLz4 => encode_binpack(samples, out),
    };
    if encoded.is_err() {
        out.truncate(start);
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::samples::{game_rng, samples_of, Alternative};
    use crate::game::record::fixtures::sample_record;

    /// The fixture's 7 samples: opening h8 i9, then 7 moves, black wins with the last.
    fn fixture() -> Vec<Sample> {
        samples_of(&sample_record(), 1.0, &mut game_rng(0, 0))
    }

    #[test]
    fn one_game_at_freq_one_is_one_chain() {
        let s = fixture();
        assert_eq!(binpack_chain_len(&s), 7);
        let mut out = Vec::new();
        encode_binpack(&s, &mut out).unwrap();
        // Head, the 2 opening stones, 7 moves.
        assert_eq!(out.len(), 8 + 2 * 2 + 4 * 7);
        let word2 = u32::from_le_bytes(out[4..8].try_into().unwrap());
        assert_eq!(word2 >> 14, 7);
    }

    #[test]
    fn chains_break_where_a_move_was_not_sampled_or_the_result_does_not_follow() {
        let s = fixture();
        // Moves 0, 1, then 3: move 2 was not sampled, so move 3's position does not follow.
        let picked = vec![s[0].clone(), s[1].clone(), s[3].clone()];
        assert_eq!(binpack_chain_len(&picked), 2);
        assert_eq!(binpack_chain_len(&picked[2..]), 1);
        // A result that is not the previous one flipped cannot be derived from the entry's.
        let mut odd = s[..2].to_vec();
        odd[1].result = odd[0].result;
        assert_eq!(binpack_chain_len(&odd), 1);
        // Another board or rule is another game.
        let mut other = s[..2].to_vec();
        other[1].rule = Rule::Renju;
        assert_eq!(binpack_chain_len(&other), 1);
        assert_eq!(binpack_chain_len(&[]), 0);
    }

    #[test]
    fn a_single_sampled_position_gets_its_own_entry() {
        // The predecessor writes nothing for a chain of one position; we write the entry.
        let s = fixture();
        let mut out = Vec::new();
        encode_binpack(&s[4..5], &mut out).unwrap();
        let start = s[4].position.len();
        assert_eq!(out.len(), 8 + 2 * start + 4);
        let word1 = u32::from_le_bytes(out[0..4].try_into().unwrap());
        assert_eq!((word1 >> 22) as usize, start);
        assert_eq!(((word1 >> 12) & 1023) as usize, start + 1);
        let mv = u16::from_le_bytes(out[out.len() - 4..out.len() - 2].try_into().unwrap());
        assert_eq!(mv, BINPACK_PLAIN_MOVE | bin_word(s[4].mv) << 6);
        assert_eq!(out[out.len() - 2..], [0, 0], "no evaluation: 0");
    }

    /// The move records of a one-chain binpack entry: (flags, stone word, evaluation).
    fn records(out: &[u8], start: usize) -> Vec<(u16, u16, i16)> {
        out[8 + 2 * start..]
            .chunks_exact(4)
            .map(|m| {
                let w = u16::from_le_bytes([m[0], m[1]]);
                (w & 0x3F, w >> 6, i16::from_le_bytes([m[2], m[3]]))
            })
            .collect()
    }

    #[test]
    fn binpack_moves_carry_their_evaluations_and_groups() {
        let mut s = fixture();
        // Move 0 reported +35; move 1 nothing; move 2 a group: played, then two PV moves, the
        // second of which has no evaluation; move 3 a loss in 4 plies.
        s[0].eval = Some(35);
        s[2].eval = Some(-12);
        let (a, b) = (Pos::new(0, 0), Pos::new(1, 1));
        s[2].alternatives = vec![
            Alternative {
                mv: a,
                eval: Some(-40),
            },
            Alternative { mv: b, eval: None },
        ];
        s[3].eval = Some(-(30000 - 4));
        let mut out = Vec::new();
        encode_binpack(&s[..4], &mut out).unwrap();
        let word2 = u32::from_le_bytes(out[4..8].try_into().unwrap());
        assert_eq!(word2 >> 14, 6, "4 moves and 2 alternatives");
        let word1 = u32::from_le_bytes(out[0..4].try_into().unwrap());
        assert_eq!(
            ((word1 >> 12) & 1023) as usize,
            2 + 4,
            "stones count played moves only"
        );
        let w = |i: usize| bin_word(s[i].mv);
        assert_eq!(
            records(&out, 2),
            vec![
                (0b011, w(0), 35),
                (0b111, w(1), 0),
                (0b001, w(2), -12),
                (0b000, bin_word(a), -40),
                (0b110, bin_word(b), 0),
                (0b011, w(3), -29996),
            ]
        );
        // Without evaluations and groups the bytes are those of an engine that says nothing.
        let plain = fixture();
        let mut out = Vec::new();
        encode_binpack(&plain, &mut out).unwrap();
        assert!(records(&out, 2)
            .iter()
            .all(|r| r.0 == BINPACK_PLAIN_MOVE && r.2 == 0));
    }

    #[test]
    fn csv_has_an_evaluation_column_only_when_asked() {
        let mut s = fixture();
        s[0].eval = Some(-35);
        s[1].eval = Some(29995);
        let text = |column| {
            let mut out = Vec::new();
            encode_csv(&s[..3], column, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            text(EvalColumn::Without),
            "h8i9,h9,2\nh8i9h9,i10,0\nh8i9h9i10,h10,2\n"
        );
        assert_eq!(
            text(EvalColumn::With),
            "h8i9,h9,2,-35\nh8i9h9,i10,0,29995\nh8i9h9i10,h10,2,\n"
        );
    }

    #[test]
    fn binpack_refuses_what_bin_refuses() {
        let mut s = fixture();
        for x in &mut s {
            x.rule = Rule::Caro;
        }
        let mut out = Vec::new();
        assert!(matches!(
            encode_batch(SampleFormat::Binpack, EvalColumn::Without, &s, &mut out),
            Err(SampleEncodeError::RuleDoesNotFit { code: 8, .. })
        ));
        assert!(out.is_empty(), "nothing of a refused batch is written");
    }
}
