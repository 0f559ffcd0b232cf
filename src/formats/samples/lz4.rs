//! LZ4 frames around another format's stream (bin_lz4, binpack_lz4): [`Lz4`] is that format's
//! codec with the frames added. The writer closes one frame per game, so a file is complete up
//! to its last finished game; the reader walks the frame structure first, which is what finds a
//! cut (the decoder takes a cut for a clean end), then decodes frame after frame.

use std::io::{self, Read};

use lz4_flex::frame::{BlockMode, BlockSize, FrameDecoder, FrameEncoder, FrameInfo};

use crate::core::board::BoardSize;
use crate::core::rules::Rule;
use crate::formats::samples::codec::{
    Codec, Damage, EntryCounts, EntrySource, EvalField, Names, SampleEncodeError,
};
use crate::formats::samples::sample::{EvalColumn, Sample, StoredSample};

/// A format whose file is LZ4 frames around the stream of `inner`: everything but the names and
/// the framing is `inner`'s. The inner format's file declares it (`bin::BIN_LZ4`).
pub(super) struct Lz4 {
    pub(super) inner: &'static dyn Codec,
    pub(super) names: Names,
}

impl Codec for Lz4 {
    fn names(&self) -> &Names {
        &self.names
    }

    fn check(&self, size: BoardSize, rule: Rule) -> Result<(), SampleEncodeError> {
        self.inner.check(size, rule)
    }

    /// The stream inside the frames: the writer frames it.
    fn encode(
        &self,
        samples: &[Sample],
        column: EvalColumn,
        out: &mut Vec<u8>,
    ) -> Result<(), SampleEncodeError> {
        self.inner.encode(samples, column, out)
    }

    fn stored(&self, sample: &Sample) -> StoredSample {
        self.inner.stored(sample)
    }

    fn evals(&self) -> EvalField {
        self.inner.evals()
    }

    fn chains(&self) -> bool {
        self.inner.chains()
    }

    fn lz4_inner(&self) -> Option<&'static dyn Codec> {
        Some(self.inner)
    }

    /// Reads the whole file into memory first, to walk its frames.
    fn reader(&self, mut input: Box<dyn Read>, _framed: bool) -> io::Result<Box<dyn EntrySource>> {
        let mut bytes = Vec::new();
        input.read_to_end(&mut bytes)?;
        let walk = lz4_frame_walk(&bytes);
        let stream = Box::new(Lz4Stream::new(bytes, walk.starts));
        Ok(Box::new(Framed {
            inner: self.inner.reader(stream, true)?,
            tail: walk
                .damage
                .map(|(offset, why)| Damage::Frame { offset, why }),
        }))
    }
}

/// The inner format's reader over the decompressed frames, then the damage after the last
/// complete frame if any.
struct Framed {
    inner: Box<dyn EntrySource>,
    /// Damage after the last complete frame: reported once the frames before it are read.
    tail: Option<Damage>,
}

impl EntrySource for Framed {
    fn next_sample(&mut self) -> Option<Result<StoredSample, Damage>> {
        match self.inner.next_sample() {
            None => self.tail.take().map(Err),
            some => some,
        }
    }

    fn counts(&self) -> EntryCounts {
        self.inner.counts()
    }
}

/// The frame encoder of the writer, reused across games (each `try_finish` closes one frame):
/// 64 KB independent blocks and a content checksum.
pub(super) fn frame_encoder() -> FrameEncoder<Vec<u8>> {
    let info = FrameInfo::new()
        .block_size(BlockSize::Max64KB)
        .block_mode(BlockMode::Independent)
        .content_checksum(true);
    FrameEncoder::with_frame_info(info, Vec::new())
}

/// A complete LZ4 frame holding no data: the header (magic, flags, block size, checksum) and
/// the end mark, 11 bytes.
pub(super) fn empty_lz4_frame() -> Vec<u8> {
    let enc = FrameEncoder::with_frame_info(FrameInfo::new(), Vec::new());
    enc.finish().unwrap_or_default()
}

const LZ4_MAGIC: u32 = 0x184D_2204;
const LZ4_LEGACY_MAGIC: u32 = 0x184C_2102;

/// The complete data frames of an LZ4 file, and what stopped the walk before the end if anything.
pub(super) struct FrameWalk {
    /// Where each complete data frame starts.
    pub(super) starts: Vec<usize>,
    /// The offset of the first frame that cannot be read whole, and why.
    pub(super) damage: Option<(u64, String)>,
}

/// Walk the frames of an LZ4 file without decoding them. The decoder itself treats a cut as a
/// clean end, so this is what finds a cut, and it names the offset of the frame it breaks in.
/// Skippable frames are passed over; the legacy format is not supported.
pub(super) fn lz4_frame_walk(bytes: &[u8]) -> FrameWalk {
    let mut starts = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        match lz4_frame_end(bytes, at) {
            Ok((end, data)) => {
                if data {
                    starts.push(at);
                }
                at = end;
            }
            Err(why) => {
                return FrameWalk {
                    starts,
                    damage: Some((at as u64, why)),
                }
            }
        }
    }
    FrameWalk {
        starts,
        damage: None,
    }
}

/// Where the LZ4 frame that starts at `start` ends, and whether it holds data (a skippable frame
/// does not); or why it cannot be read whole.
fn lz4_frame_end(bytes: &[u8], start: usize) -> Result<(usize, bool), String> {
    // Every part of the frame up to `end` must be in the file; else say which part is cut.
    let need = |end: usize, what: &str| {
        if end <= bytes.len() {
            return Ok(());
        }
        Err(format!(
            "the file is cut inside the frame that starts here: its {what} needs {} more bytes \
             (as when the writer is killed mid-write; the frames before it are complete)",
            end - bytes.len()
        ))
    };
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    need(start + 4, "magic number")?;
    let magic = u32_at(start);
    if (0x184D_2A50..=0x184D_2A5F).contains(&magic) {
        need(start + 8, "skippable frame size")?;
        let end = start + 8 + u32_at(start + 4) as usize;
        need(end, "skippable frame")?;
        return Ok((end, false));
    }
    if magic == LZ4_LEGACY_MAGIC {
        return Err("legacy LZ4 format is not supported".into());
    }
    if magic != LZ4_MAGIC {
        return Err(format!("not an LZ4 frame (magic number {magic:#010x})"));
    }
    need(start + 5, "frame descriptor")?;
    let flg = bytes[start + 4];
    if flg >> 6 != 1 {
        return Err(format!("unknown LZ4 frame version {}", flg >> 6));
    }
    let block_checksum = flg & 0x10 != 0;
    let content_size = flg & 0x08 != 0;
    let content_checksum = flg & 0x04 != 0;
    let dict_id = flg & 0x01 != 0;
    // magic, FLG, BD, optional content size and dictionary id, header checksum
    let mut at = start + 4 + 2 + if content_size { 8 } else { 0 } + if dict_id { 4 } else { 0 } + 1;
    need(at, "frame descriptor")?;
    loop {
        need(at + 4, "block header")?;
        let block = u32_at(at);
        at += 4;
        if block == 0 {
            break;
        }
        at += (block & 0x7FFF_FFFF) as usize + if block_checksum { 4 } else { 0 };
        need(at, "block")?;
    }
    if content_checksum {
        at += 4;
        need(at, "content checksum")?;
    }
    Ok((at, true))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::samples::{game_rng, samples_of, SampleFormat, SampleWriter};
    use crate::game::record::fixtures::sample_record;

    #[test]
    fn lz4_frame_walk_finds_the_complete_frames_and_the_cut() {
        let mut w = SampleWriter::new(SampleFormat::BinLz4, Vec::new(), "mem");
        let r = sample_record();
        w.write_game(&samples_of(&r, 1.0, &mut game_rng(0, 0)))
            .unwrap();
        let bytes = w.finish().unwrap();
        let walk = lz4_frame_walk(&bytes);
        assert_eq!((walk.starts, walk.damage), (vec![0], None));
        let mut two = bytes.clone();
        two.extend_from_slice(&bytes);
        let walk = lz4_frame_walk(&two);
        assert_eq!((walk.starts, walk.damage), (vec![0, bytes.len()], None));
        // Cut 9 bytes into the second frame (inside its first block header): the first frame is
        // whole, the damage is at the second's start and says what is missing.
        let walk = lz4_frame_walk(&two[..bytes.len() + 9]);
        assert_eq!(walk.starts, vec![0]);
        let (offset, why) = walk.damage.unwrap();
        assert_eq!(offset, bytes.len() as u64);
        assert!(why.contains("cut inside the frame"), "{why}");
        assert!(why.contains("block header needs 2 more bytes"), "{why}");
        let walk = lz4_frame_walk(b"garbage!");
        assert!(walk.starts.is_empty());
        assert_eq!(walk.damage.unwrap().0, 0);
    }
}
