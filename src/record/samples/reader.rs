//! Reading sample files back, streaming: csv record by record (the csv crate), bin entry by entry,
//! bin_lz4 frame by frame after a walk over the frame structure.
//!
//! A damaged file yields every sample before the damage, then one error that says where the
//! damage is (line or byte offset) and what was expected there, then nothing: what follows a bad
//! entry cannot be trusted, and what precedes it is worth having (`samples stats` reports it).
//! The usual damage is a cut: a writer killed in the middle of a game's write leaves a partial
//! last record, entry or LZ4 frame.

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
    /// A csv record that is not `position,move,result` (or is cut short by the end of the file);
    /// `line` and `offset` are where the record starts.
    #[error("{path}:{line}: {why} in {text:?} (the record at byte {offset})")]
    Csv {
        path: PathBuf,
        line: u64,
        offset: u64,
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

/// The complete data frames of an LZ4 file, and what stopped the walk before the end if anything.
struct FrameWalk {
    /// Where each complete data frame starts.
    starts: Vec<usize>,
    /// The offset of the first frame that cannot be read whole, and why.
    damage: Option<(u64, String)>,
}

/// Walk the frames of an LZ4 file without decoding them. The decoder itself treats a cut as a
/// clean end, so this is what finds a cut, and it names the offset of the frame it breaks in.
/// Skippable frames are passed over; the legacy format is not supported.
fn lz4_frame_walk(bytes: &[u8]) -> FrameWalk {
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

/// A reader that counts the bytes it hands out (the offset of the next bin entry) and remembers
/// whether it met the end of its input and the last byte before it: a csv record that ends the
/// file without a line end may be a cut one.
struct Counting<R> {
    inner: R,
    read: u64,
    at_end: bool,
    last: Option<u8>,
}

impl<R> Counting<R> {
    fn new(inner: R) -> Counting<R> {
        Counting {
            inner,
            read: 0,
            at_end: false,
            last: None,
        }
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if n > 0 {
            self.last = Some(buf[n - 1]);
        } else if !buf.is_empty() {
            self.at_end = true;
        }
        Ok(n)
    }
}

/// How much of a buffer a read could fill.
enum Fill {
    Full,
    /// Nothing: the stream had already ended.
    Empty,
    /// This many bytes, then the end.
    Partial(usize),
}

/// Read as much of `buf` as there is.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> io::Result<Fill> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(match filled {
        n if n == buf.len() => Fill::Full,
        0 => Fill::Empty,
        n => Fill::Partial(n),
    })
}

enum Source {
    /// Boxed: the csv reader's state is large next to the other variants.
    Csv(Box<CsvSource>),
    Bin(BinSource),
    Done,
}

/// Streams the samples of a file. At the first damage it yields one error, then stops.
pub struct SampleReader {
    path: PathBuf,
    source: Source,
    /// Damage after the last complete LZ4 frame: reported once the frames before it are read.
    tail: Option<SampleReadError>,
}

impl SampleReader {
    /// Stream the samples of `input`, the contents of a file of `format`; `path` names it in
    /// errors. An LZ4 file is read into memory first, to walk its frames.
    pub fn new(
        mut input: Box<dyn Read>,
        format: SampleFormat,
        path: &Path,
    ) -> Result<SampleReader, SampleReadError> {
        let mut tail = None;
        let source = match format {
            SampleFormat::Csv => Source::Csv(Box::new(CsvSource::new(input))),
            SampleFormat::Bin => Source::Bin(BinSource::new(input, false)),
            SampleFormat::BinLz4 => {
                let mut bytes = Vec::new();
                input
                    .read_to_end(&mut bytes)
                    .map_err(|source| SampleReadError::Io {
                        path: path.to_path_buf(),
                        source,
                    })?;
                let walk = lz4_frame_walk(&bytes);
                tail = walk.damage.map(|(offset, why)| SampleReadError::Lz4 {
                    path: path.to_path_buf(),
                    offset,
                    why,
                });
                Source::Bin(BinSource::new(
                    Box::new(Lz4Stream::new(bytes, walk.starts)),
                    true,
                ))
            }
        };
        Ok(SampleReader {
            path: path.to_path_buf(),
            source,
            tail,
        })
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

/// A csv file read by the csv crate: records of `position,move,result`, no header line.
struct CsvSource {
    reader: csv::Reader<Counting<Box<dyn Read>>>,
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
            .from_reader(Counting::new(input));
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
            return Some(parse_csv_record(&self.record).map_err(|why| self.error(path, why)));
        }
    }
}

impl CsvSource {
    /// The error for the current record, which `why` is wrong with.
    fn error(&self, path: &Path, why: String) -> SampleReadError {
        let start = self
            .record
            .position()
            .cloned()
            .unwrap_or_else(csv::Position::new);
        // A record that ends the input without a line end is the partial last line of a cut
        // file (our writer ends every line); anywhere else it is a malformed line.
        let input = self.reader.get_ref();
        let cut = input.at_end
            && self.reader.position().byte() == input.read
            && !matches!(input.last, Some(b'\n' | b'\r'));
        let why = if cut {
            format!(
                "the file is cut inside this record, its last, which has no line end: {why} \
                 (as when the writer is killed mid-write; the records before it are complete)"
            )
        } else {
            why
        };
        SampleReadError::Csv {
            path: path.to_path_buf(),
            line: start.line(),
            offset: start.byte(),
            text: self
                .record
                .iter()
                .map(String::from_utf8_lossy)
                .collect::<Vec<_>>()
                .join(","),
            why,
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

/// A bin stream (a bin file, or the decompressed frames of a bin_lz4 file), entry by entry.
struct BinSource {
    input: Counting<Box<dyn Read>>,
    /// Whether the stream is decompressed (offsets are then not file offsets).
    compressed: bool,
    /// The current entry's stones, reused.
    words: Vec<u8>,
}

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
            mv: stone(w1 >> 3, size, "move")?,
        })
    }
}

/// A `(x << 5) | y` word as a point of a `size` board.
fn stone(w: u16, size: BoardSize, what: &str) -> Result<Pos, String> {
    let (x, y) = (w >> 5, w & 31);
    if x >= size.get() as u16 || y >= size.get() as u16 {
        return Err(format!("{what} {x},{y} is off the {size}x{size} board"));
    }
    Ok(Pos::new(x as u8, y as u8))
}

/// Little-endian u16 stone words as points, in order.
fn stones(words: &[u8], size: BoardSize) -> Result<Vec<Pos>, String> {
    words
        .chunks_exact(2)
        .enumerate()
        .map(|(i, w)| {
            stone(
                u16::from_le_bytes([w[0], w[1]]),
                size,
                &format!("stone {}", i + 1),
            )
        })
        .collect()
}

impl BinSource {
    fn new(input: Box<dyn Read>, compressed: bool) -> BinSource {
        BinSource {
            input: Counting::new(input),
            compressed,
            words: Vec::new(),
        }
    }

    fn next(&mut self, path: &Path) -> Option<Result<StoredSample, SampleReadError>> {
        let offset = self.input.read;
        self.next_entry()
            .map_err(|why| SampleReadError::Bin {
                path: path.to_path_buf(),
                offset,
                compressed: self.compressed,
                why,
            })
            .transpose()
    }

    /// Why the data stops inside `what`: a cut file, or (decompressed) a frame that ends there.
    fn ends_inside(&self, what: String) -> String {
        if self.compressed {
            format!("the decompressed stream ends inside {what}")
        } else {
            format!(
                "the file is cut inside {what} (as when the writer is killed mid-write; \
                 the entries before it are complete)"
            )
        }
    }

    /// The next entry; `None` at the end of the stream.
    fn next_entry(&mut self) -> Result<Option<StoredSample>, String> {
        let read_err = |e: io::Error| format!("read failed: {e}");
        let mut head = [0u8; 4];
        match fill(&mut self.input, &mut head).map_err(read_err)? {
            Fill::Full => {}
            Fill::Empty => return Ok(None),
            Fill::Partial(n) => {
                return Err(self.ends_inside(format!("this entry's head ({n} of 4 bytes)")))
            }
        }
        let head = BinHead::parse(head)?;
        self.words.resize(2 * head.ply, 0);
        match fill(&mut self.input, &mut self.words).map_err(read_err)? {
            Fill::Full => {}
            Fill::Empty if head.ply == 0 => {}
            Fill::Empty => {
                return Err(
                    self.ends_inside(format!("this entry (4 of {} bytes)", 4 + 2 * head.ply))
                )
            }
            Fill::Partial(n) => {
                return Err(self.ends_inside(format!(
                    "this entry ({} of {} bytes)",
                    4 + n,
                    4 + 2 * head.ply
                )))
            }
        }
        Ok(Some(StoredSample {
            size: Some(head.size),
            rule: Some(head.rule),
            position: stones(&self.words, head.size)?,
            mv: head.mv,
            result: head.result,
        }))
    }
}

impl Iterator for SampleReader {
    type Item = Result<StoredSample, SampleReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = match &mut self.source {
            Source::Csv(csv) => csv.next(&self.path),
            Source::Bin(bin) => bin.next(&self.path),
            Source::Done => None,
        };
        match item {
            Some(Ok(sample)) => Some(Ok(sample)),
            // What follows damage cannot be trusted: stop at the first.
            Some(Err(e)) => {
                self.source = Source::Done;
                self.tail = None;
                Some(Err(e))
            }
            None => {
                self.source = Source::Done;
                self.tail.take().map(Err)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::fixtures::sample_record;
    use crate::record::samples::{game_rng, samples_of, SampleWriter};

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
            "f.csv:2: expected 3 fields: position,move,result (found 2) in \"h8i9,h9\" \
             (the record at byte 10)"
        );
    }
}
