//! Reading sample files back, streaming: csv line by line, bin entry by entry, bin_lz4 frame by
//! frame after a walk over the frame structure that locates a cut.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use lz4_flex::frame::FrameDecoder;
use thiserror::Error;

use super::{Sample, SampleFormat, SampleResult, CSV_MAX_SIZE};
use crate::board::{parse_pos_sequence, BoardSize, Pos};
use crate::rules::Rule;

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
    /// The file cannot be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// No format was given and the file name does not tell it.
    #[error("cannot tell the sample format of {path} from its extension (.csv, .bin, .lz4): give the format")]
    UnknownFormat { path: PathBuf },
    /// A csv line that is not `position,move,result`.
    #[error("{path}:{line}: {why} in {text:?}")]
    Csv {
        path: PathBuf,
        line: u64,
        text: String,
        why: String,
    },
    /// A bin entry that is cut short or holds an impossible value; `offset` counts bytes of the
    /// bin stream (after decompression for bin_lz4).
    #[error("{path}: bin entry at byte {offset}{stream}: {why}", stream = if *.compressed { " of the decompressed stream" } else { "" })]
    Bin {
        path: PathBuf,
        offset: u64,
        compressed: bool,
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
    /// Boxed: the csv reader's state is large next to the other variants.
    Csv(Box<CsvSource>),
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
        SampleFormat::Csv => Source::Csv(Box::new(CsvSource::new(Box::new(
            File::open(path).map_err(io_err)?,
        )))),
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

/// A csv file read by the csv crate: records of `position,move,result`, no header line.
struct CsvSource {
    reader: csv::Reader<Box<dyn Read>>,
    /// The current record, reused.
    record: csv::ByteRecord,
}

impl CsvSource {
    fn new(input: Box<dyn Read>) -> CsvSource {
        let reader = csv::ReaderBuilder::new()
            .has_headers(false)
            // The field count is checked per record, with a message that names the fields.
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(input);
        CsvSource {
            reader,
            record: csv::ByteRecord::new(),
        }
    }

    fn next(&mut self, path: &Path) -> Option<Result<StoredSample, SampleReadError>> {
        loop {
            match self.reader.read_byte_record(&mut self.record) {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => {
                    return Some(Err(SampleReadError::Io {
                        path: path.to_path_buf(),
                        source: e.into(),
                    }))
                }
            }
            // The crate skips empty lines; a line of blanks is one empty field after trimming.
            if self.record.len() == 1 && self.record[0].is_empty() {
                continue;
            }
            let record = &self.record;
            return Some(parse_csv_record(record).map_err(|why| {
                SampleReadError::Csv {
                    path: path.to_path_buf(),
                    line: record.position().map_or(0, |p| p.line()),
                    text: record
                        .iter()
                        .map(String::from_utf8_lossy)
                        .collect::<Vec<_>>()
                        .join(","),
                    why,
                }
            }));
        }
    }
}

fn parse_csv_record(record: &csv::ByteRecord) -> Result<StoredSample, String> {
    // Pos notation has 26 letters; the file does not say the board size, so check against that.
    let letters = BoardSize::new(CSV_MAX_SIZE as u32).expect("26 is a valid board size");
    if record.len() != 3 {
        return Err(format!(
            "expected 3 fields: position,move,result (found {})",
            record.len()
        ));
    }
    let field = |i: usize, name: &str| {
        std::str::from_utf8(&record[i]).map_err(|_| format!("{name} is not UTF-8 text"))
    };
    let (pos, mv, res) = (
        field(0, "position")?,
        field(1, "move")?,
        field(2, "result")?,
    );
    let position = parse_pos_sequence(pos, letters).map_err(|e| format!("position: {e}"))?;
    let mv = match parse_pos_sequence(mv, letters).map_err(|e| format!("move: {e}"))?[..] {
        [p] => p,
        _ => return Err(format!("move {mv:?} is not a single point")),
    };
    let result = res
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
            Source::Csv(ref mut csv) => csv.next(&self.path),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::fixtures::sample_record;
    use crate::record::samples::{game_rng, samples_of, SampleWriter};

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
    fn csv_reader_takes_what_the_csv_crate_parses() {
        // CR LF line ends, blank lines, a quoted field, blanks around fields, no final newline.
        let text = "h8i9,h9,2\r\n\r\n\"h8i9h9\", i10 ,0\n   \n,j10,1";
        let mut src = CsvSource::new(Box::new(io::Cursor::new(text.as_bytes().to_vec())));
        let got: Vec<StoredSample> = std::iter::from_fn(|| src.next(Path::new("mem")))
            .collect::<Result<_, _>>()
            .unwrap();
        let size = BoardSize::new(15).unwrap();
        let seq = |t: &str| parse_pos_sequence(t, size).unwrap();
        let want = [("h8i9", "h9", 2), ("h8i9h9", "i10", 0), ("", "j10", 1)];
        assert_eq!(got.len(), want.len());
        for (s, (position, mv, result)) in got.iter().zip(want) {
            assert_eq!(s.position, seq(position));
            assert_eq!(s.mv, seq(mv)[0]);
            assert_eq!(s.result.code(), result);
            assert_eq!((s.size, s.rule), (None, None));
        }
    }

    #[test]
    fn csv_reader_names_the_line_of_a_bad_record() {
        let text = "h8i9,h9,2\nh8i9,h9\n";
        let mut src = CsvSource::new(Box::new(io::Cursor::new(text.as_bytes().to_vec())));
        assert!(src.next(Path::new("f.csv")).unwrap().is_ok());
        let err = src.next(Path::new("f.csv")).unwrap().unwrap_err();
        assert_eq!(
            err.to_string(),
            "f.csv:2: expected 3 fields: position,move,result (found 2) in \"h8i9,h9\""
        );
    }
}
