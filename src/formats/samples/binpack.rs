//! The binpack format (the predecessor's packed format, read by Rapfi's trainer): one entry per
//! chain of consecutive positions of a game, an 8-byte head, the starting position's stones,
//! then one record per move with its flags and evaluation (a multi-PV group holds the move played
//! and the other PV moves). It has bin's stone words and size and rule fields. Also binpack_lz4,
//! the binpack stream in LZ4 frames.

use std::collections::VecDeque;
use std::io::{self, Read};

use crate::core::board::{BoardSize, Pos};
use crate::core::rules::Rule;
use crate::formats::samples::bin::{bin_rule_bits, bin_word, check_fields, stone, stones};
use crate::formats::samples::codec::{
    Codec, EntrySource, EvalField, Names, SampleEncodeError, BINPACK_MAX_RECORDS,
    BINPACK_MAX_STONES, BIN_MAX_SIZE,
};
use crate::formats::samples::lz4::Lz4;
use crate::formats::samples::sample::{
    Alternative, EvalColumn, Sample, SampleResult, StoredSample,
};
use crate::formats::samples::stream::{EntryFormat, EntryStream, Entrywise};

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

/// The binpack format.
pub(super) struct Binpack;

/// binpack_lz4: the binpack stream in LZ4 frames, one per game.
pub(super) const BINPACK_LZ4: Lz4 = Lz4 {
    inner: &Binpack,
    names: Names {
        name: "binpack_lz4",
        default_file: "sample.binpack.lz4",
        extensions: &["binpack.lz4"],
    },
};

impl Codec for Binpack {
    fn names(&self) -> &Names {
        &Names {
            name: "binpack",
            default_file: "sample.binpack",
            extensions: &["binpack"],
        }
    }

    fn check(&self, size: BoardSize, rule: Rule) -> Result<(), SampleEncodeError> {
        // binpack has bin's 5-bit size and 3-bit rule fields; its 10-bit stone counts hold
        // every stone of a 31x31 board, so it has no ply limit.
        check_fields(size, rule)
    }

    fn encode(
        &self,
        samples: &[Sample],
        _column: EvalColumn,
        out: &mut Vec<u8>,
    ) -> Result<(), SampleEncodeError> {
        encode_binpack(samples, out)
    }

    fn stored(&self, sample: &Sample) -> StoredSample {
        StoredSample::keeping(sample, true, true)
    }

    fn evals(&self) -> EvalField {
        EvalField::Always
    }

    fn chains(&self) -> bool {
        true
    }

    fn reader(&self, input: Box<dyn Read>, framed: bool) -> io::Result<Box<dyn EntrySource>> {
        Ok(Box::new(Entrywise::new(input, framed, BinpackEntry)))
    }
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

/// Reads binpack entries.
struct BinpackEntry;

/// The fields of a binpack entry's 8-byte head (the 14-bit game tag is reserved and ignored).
struct BinpackHead {
    size: BoardSize,
    rule: Rule,
    /// For the side to move at the starting position.
    result: SampleResult,
    /// Stones on the board when the entry ends.
    stones: usize,
    /// Stones of the starting position.
    start: usize,
    /// Move records that follow the starting position.
    moves: usize,
}

impl BinpackHead {
    fn parse(head: [u8; 8]) -> Result<BinpackHead, String> {
        let w1 = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let w2 = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
        let size = BoardSize::new(w1 & 31).map_err(|e| format!("board size field: {e}"))?;
        let rule =
            Rule::from_code(((w1 >> 5) & 7) as i64).map_err(|e| format!("rule field: {e}"))?;
        let code = ((w1 >> 8) & 15) as u16;
        let result = SampleResult::from_code(code)
            .ok_or(format!("result field is {code} (expected 0, 1 or 2)"))?;
        Ok(BinpackHead {
            size,
            rule,
            result,
            stones: ((w1 >> 12) & 1023) as usize,
            start: (w1 >> 22) as usize,
            moves: (w2 >> 14) as usize,
        })
    }

    /// The samples of the entry whose starting position is `position` and whose move records
    /// are `moves`: one per multi-PV group (bits 0 and 1 mark its first and last move), whose
    /// first move is the one played; the others are alternatives the engine reported. A move
    /// without bit 2 carries its evaluation. A pass (bit 3) cannot be a sample and is refused.
    fn samples(&self, mut position: Vec<Pos>, moves: &[u8]) -> Result<Vec<StoredSample>, String> {
        let mut out = Vec::new();
        let mut result = self.result;
        // The first move of the group being read, with its evaluation, and the others so far.
        let mut played: Option<Alternative> = None;
        let mut alternatives = Vec::new();
        for (i, m) in moves.chunks_exact(4).enumerate() {
            let word = u16::from_le_bytes([m[0], m[1]]);
            let (first, last) = (word & BINPACK_FIRST != 0, word & BINPACK_LAST != 0);
            if word & 8 != 0 {
                return Err(format!(
                    "move {} is a pass, which no sample can hold",
                    i + 1
                ));
            }
            let mv = stone(word >> 6, self.size).map_err(|e| format!("move {} {e}", i + 1))?;
            let eval = (word & BINPACK_NO_EVAL == 0).then(|| i16::from_le_bytes([m[2], m[3]]));
            let this = Alternative { mv, eval };
            match (played, first) {
                (None, true) => played = Some(this),
                (Some(_), false) => alternatives.push(this),
                (None, false) => {
                    return Err(format!(
                        "move {} is in no multi-PV group (bit 0 unset after a group's end)",
                        i + 1
                    ))
                }
                (Some(_), true) => {
                    return Err(format!(
                        "move {} starts a multi-PV group inside another (bit 1 unset before it)",
                        i + 1
                    ))
                }
            }
            if let (true, Some(Alternative { mv, eval })) = (last, played) {
                out.push(StoredSample {
                    size: Some(self.size),
                    rule: Some(self.rule),
                    position: position.clone(),
                    mv,
                    result,
                    eval,
                    alternatives: std::mem::take(&mut alternatives),
                });
                position.push(mv);
                result = result.flipped();
                played = None;
            }
        }
        if played.is_some() {
            return Err("the last multi-PV group has no end (bit 1 unset)".into());
        }
        if position.len() != self.stones {
            return Err(format!(
                "the head says the entry ends with {} stones, its moves make {}",
                self.stones,
                position.len()
            ));
        }
        Ok(out)
    }
}

impl EntryFormat for BinpackEntry {
    fn read_entry(
        &self,
        stream: &mut EntryStream,
        out: &mut VecDeque<StoredSample>,
    ) -> Result<Option<u64>, String> {
        let Some(head) = stream.read_head::<8>()? else {
            return Ok(None);
        };
        let head = BinpackHead::parse(head)?;
        let body = stream.read_body(8, 2 * head.start + 4 * head.moves)?;
        let (start, moves) = body.split_at(2 * head.start);
        let samples = head.samples(stones(start, head.size)?, moves)?;
        out.extend(samples);
        Ok(Some(head.moves as u64))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::formats::samples::EntryCounts;
    use crate::formats::samples::{encode_batch, game_rng, samples_of, SampleFormat, SampleReader};
    use crate::game::record::fixtures::sample_record;

    /// The fixture's 7 samples: opening h8 i9, then 7 moves, black wins with the last.
    fn fixture() -> Vec<Sample> {
        samples_of(&sample_record(), 1.0, &mut game_rng(0, 0))
    }

    /// Read `bytes`, a binpack stream, to the end: the samples and what was counted.
    fn read_bytes(bytes: Vec<u8>, format: SampleFormat) -> (Vec<StoredSample>, EntryCounts) {
        let mut r =
            SampleReader::new(Box::new(io::Cursor::new(bytes)), format, Path::new("mem")).unwrap();
        let samples = r.by_ref().collect::<Result<_, _>>().unwrap();
        (samples, r.counts())
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

    #[test]
    fn binpack_multi_pv_groups_give_one_sample_each_with_the_first_move_played() {
        // An entry written by hand as Rapfi's self-play writes one: a group of two (the played
        // move with its evaluation, then another PV move with its own) and a group of one
        // without evaluation. Our writer writes the same bytes for the same samples.
        let mut s = samples_of(&sample_record(), 1.0, &mut game_rng(0, 0));
        s.truncate(2);
        let mut plain = Vec::new();
        encode_binpack(&s, &mut plain).unwrap();
        let moves_at = 8 + 2 * s[0].position.len();
        let alternative = Pos::new(0, 0);
        let mut entry = plain[..moves_at].to_vec();
        // Three move records now.
        entry[4..8].copy_from_slice(&(3u32 << 14).to_le_bytes());
        let records: [(u16, Pos, i16); 3] = [
            (0b001, s[0].mv, 12),
            (0b010, alternative, -35),
            (0b111, s[1].mv, 0),
        ];
        for (flags, mv, eval) in records {
            entry.extend_from_slice(
                &(flags | crate::formats::samples::bin_word(mv) << 6).to_le_bytes(),
            );
            entry.extend_from_slice(&eval.to_le_bytes());
        }
        s[0].eval = Some(12);
        s[0].alternatives = vec![Alternative {
            mv: alternative,
            eval: Some(-35),
        }];
        let mut ours = Vec::new();
        encode_binpack(&s, &mut ours).unwrap();
        assert_eq!(ours, entry);
        let (back, counts) = read_bytes(entry.clone(), SampleFormat::Binpack);
        let want: Vec<StoredSample> = s
            .iter()
            .map(|x| StoredSample::stored_as(x, SampleFormat::Binpack))
            .collect();
        assert_eq!(back, want);
        assert_eq!(back[0].alternatives.len(), 1);
        assert_eq!(
            counts,
            EntryCounts {
                entries: 1,
                moves: 3
            }
        );
        // A group left open at the end of the entry is damage.
        let last = entry.len() - 4;
        entry[last] &= !0b010;
        let err = SampleReader::new(
            Box::new(io::Cursor::new(entry)),
            SampleFormat::Binpack,
            Path::new("mem"),
        )
        .unwrap()
        .find_map(Result::err)
        .unwrap();
        assert!(err.to_string().contains("has no end"), "{err}");
    }
}
