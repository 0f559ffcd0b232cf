//! Reading sample files back, streaming: csv record by record (the csv crate), bin and binpack
//! entry by entry, bin_lz4 and binpack_lz4 frame by frame after a walk over the frame structure.
//!
//! A damaged file yields every sample before the damage, then one error that says where the
//! damage is (line or byte offset) and what was expected there, then nothing: what follows a bad
//! entry cannot be trusted, and what precedes it is worth having (`samples stats` reports it).
//! The usual damage is a cut: a writer killed in the middle of a game's write leaves a partial
//! last record, entry or LZ4 frame.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use lz4_flex::frame::FrameDecoder;
use thiserror::Error;

use crate::core::board::{parse_pos_sequence, BoardSize, Pos};
use crate::core::rules::Rule;
use crate::formats::samples::{
    Alternative, Sample, SampleFormat, SampleResult, BINPACK_FIRST, BINPACK_LAST, BINPACK_NO_EVAL,
    CSV_MAX_SIZE,
};

/// A sample as read back from a file. csv records neither board size nor rule; bin no
/// evaluation; only binpack the other moves of a multi-PV group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSample {
    pub size: Option<BoardSize>,
    pub rule: Option<Rule>,
    pub position: Vec<Pos>,
    pub mv: Pos,
    pub result: SampleResult,
    /// The mover's evaluation (binpack, and csv's optional fourth column).
    pub eval: Option<i16>,
    /// The rest of the move's multi-PV group (binpack).
    pub alternatives: Vec<Alternative>,
}

impl StoredSample {
    /// What a file of `format` keeps of `sample` (csv without its evaluation column).
    pub fn stored_as(sample: &Sample, format: SampleFormat) -> StoredSample {
        let bin = format != SampleFormat::Csv;
        let packed = format.packed();
        StoredSample {
            size: bin.then_some(sample.size),
            rule: bin.then_some(sample.rule),
            position: sample.position.clone(),
            mv: sample.mv,
            result: sample.result,
            eval: sample.eval.filter(|_| packed),
            alternatives: if packed {
                sample.alternatives.clone()
            } else {
                Vec::new()
            },
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
}

/// How much of a file a reader has read whole.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EntryCounts {
    /// csv records and bin entries (one sample each), or binpack entries (one chain each).
    pub entries: u64,
    /// Move records: one per sample, but a binpack multi-PV group has one per alternative.
    pub moves: u64,
}

/// Streams the samples of a file. At the first damage it yields one error, then stops.
pub struct SampleReader {
    path: PathBuf,
    source: Source,
    done: bool,
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
        if format.compressed() {
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
            input = Box::new(Lz4Stream::new(bytes, walk.starts));
        }
        let source = match format {
            SampleFormat::Csv => Source::Csv(Box::new(CsvSource::new(input))),
            _ => Source::Bin(BinSource::new(input, format)),
        };
        Ok(SampleReader {
            path: path.to_path_buf(),
            source,
            done: false,
            tail,
        })
    }

    /// The entries and move records read whole so far.
    pub fn counts(&self) -> EntryCounts {
        match &self.source {
            Source::Csv(csv) => csv.counts,
            Source::Bin(bin) => bin.counts,
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

/// A csv file read by the csv crate: records of `position,move,result`, no header line.
struct CsvSource {
    reader: csv::Reader<Counting<Box<dyn Read>>>,
    /// The current record, reused.
    record: csv::ByteRecord,
    counts: EntryCounts,
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
            counts: EntryCounts::default(),
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
            let sample = parse_csv_record(&self.record).map_err(|why| self.error(path, why));
            if sample.is_ok() {
                self.counts.entries += 1;
                self.counts.moves += 1;
            }
            return Some(sample);
        }
    }

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
    if !(3..=4).contains(&record.len()) {
        return Err(format!(
            "expected 3 fields: position,move,result, or 4 with eval (found {})",
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
    let eval = match record.get(3).map(|_| field(3, "eval")).transpose()? {
        None | Some("") => None,
        Some(v) => Some(
            v.parse::<i16>()
                .map_err(|_| format!("eval {v:?} is not a number from -32768 to 32767"))?,
        ),
    };
    Ok(StoredSample {
        size: None,
        rule: None,
        position,
        mv,
        result,
        eval,
        alternatives: Vec::new(),
    })
}

/// A bin or binpack stream (the file, or the decompressed frames of an LZ4 file), entry by entry.
struct BinSource {
    input: Counting<Box<dyn Read>>,
    /// The file's format: bin or binpack, compressed or not.
    format: SampleFormat,
    /// The current entry's bytes after its head, reused.
    buf: Vec<u8>,
    /// Samples of the current entry not handed out yet (a binpack entry holds several).
    pending: VecDeque<StoredSample>,
    counts: EntryCounts,
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
            mv: stone(w1 >> 3, size).map_err(|e| format!("move {e}"))?,
        })
    }
}

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

/// A `(x << 5) | y` word as a point of a `size` board.
fn stone(w: u16, size: BoardSize) -> Result<Pos, String> {
    let (x, y) = (w >> 5, w & 31);
    if x >= size.get() as u16 || y >= size.get() as u16 {
        return Err(format!("{x},{y} is off the {size}x{size} board"));
    }
    Ok(Pos::new(x as u8, y as u8))
}

/// Little-endian u16 stone words as points, in order.
fn stones(words: &[u8], size: BoardSize) -> Result<Vec<Pos>, String> {
    words
        .chunks_exact(2)
        .enumerate()
        .map(|(i, w)| {
            stone(u16::from_le_bytes([w[0], w[1]]), size)
                .map_err(|e| format!("stone {} {e}", i + 1))
        })
        .collect()
}

impl BinSource {
    fn new(input: Box<dyn Read>, format: SampleFormat) -> BinSource {
        BinSource {
            input: Counting::new(input),
            format,
            buf: Vec::new(),
            pending: VecDeque::new(),
            counts: EntryCounts::default(),
        }
    }

    fn next(&mut self, path: &Path) -> Option<Result<StoredSample, SampleReadError>> {
        // A loop: a binpack entry may hold no move, hence no sample.
        while self.pending.is_empty() {
            let offset = self.input.read;
            let read = if self.format.packed() {
                self.read_binpack_entry()
            } else {
                self.read_bin_entry()
            };
            match read {
                Ok(true) => {}
                Ok(false) => return None,
                Err(why) => {
                    return Some(Err(SampleReadError::Bin {
                        path: path.to_path_buf(),
                        format: self.format,
                        offset,
                        why,
                    }))
                }
            }
        }
        self.pending.pop_front().map(Ok)
    }

    /// Why the data stops inside `what`: a cut file, or (decompressed) a frame that ends there.
    fn ends_inside(&self, what: String) -> String {
        if self.format.compressed() {
            format!("the decompressed stream ends inside {what}")
        } else {
            format!(
                "the file is cut inside {what} (as when the writer is killed mid-write; \
                 the entries before it are complete)"
            )
        }
    }

    /// Read a head of `N` bytes; `None` at the end of the stream.
    fn read_head<const N: usize>(&mut self) -> Result<Option<[u8; N]>, String> {
        let mut head = [0u8; N];
        match fill(&mut self.input, &mut head).map_err(|e| format!("read failed: {e}"))? {
            Fill::Full => Ok(Some(head)),
            Fill::Empty => Ok(None),
            Fill::Partial(n) => {
                Err(self.ends_inside(format!("this entry's head ({n} of {N} bytes)")))
            }
        }
    }

    /// Read the `len` bytes of the entry that follow its `head`-byte head into `buf`.
    fn read_body(&mut self, head: usize, len: usize) -> Result<(), String> {
        self.buf.resize(len, 0);
        let got =
            match fill(&mut self.input, &mut self.buf).map_err(|e| format!("read failed: {e}"))? {
                Fill::Full => return Ok(()),
                Fill::Empty => 0,
                Fill::Partial(n) => n,
            };
        Err(self.ends_inside(format!(
            "this entry ({} of {} bytes)",
            head + got,
            head + len
        )))
    }

    /// Read one bin entry into `pending`; `false` at the end of the stream.
    fn read_bin_entry(&mut self) -> Result<bool, String> {
        let Some(head) = self.read_head::<4>()? else {
            return Ok(false);
        };
        let head = BinHead::parse(head)?;
        self.read_body(4, 2 * head.ply)?;
        self.pending.push_back(StoredSample {
            size: Some(head.size),
            rule: Some(head.rule),
            position: stones(&self.buf, head.size)?,
            mv: head.mv,
            result: head.result,
            eval: None,
            alternatives: Vec::new(),
        });
        self.counts.entries += 1;
        self.counts.moves += 1;
        Ok(true)
    }

    /// Read one binpack entry's samples into `pending`; `false` at the end of the stream.
    fn read_binpack_entry(&mut self) -> Result<bool, String> {
        let Some(head) = self.read_head::<8>()? else {
            return Ok(false);
        };
        let head = BinpackHead::parse(head)?;
        self.read_body(8, 2 * head.start + 4 * head.moves)?;
        let (start, moves) = self.buf.split_at(2 * head.start);
        let samples = head.samples(stones(start, head.size)?, moves)?;
        self.pending.extend(samples);
        self.counts.entries += 1;
        self.counts.moves += head.moves as u64;
        Ok(true)
    }
}

impl Iterator for SampleReader {
    type Item = Result<StoredSample, SampleReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = match &mut self.source {
            Source::Csv(csv) => csv.next(&self.path),
            Source::Bin(bin) => bin.next(&self.path),
        };
        match item {
            Some(Ok(sample)) => Some(Ok(sample)),
            // What follows damage cannot be trusted: stop at the first.
            Some(Err(e)) => {
                self.done = true;
                Some(Err(e))
            }
            None => {
                self.done = true;
                self.tail.take().map(Err)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::board::Color;
    use crate::core::search::{Eval, PvMove, SearchReport};
    use crate::formats::samples::{encode_binpack, game_rng, samples_of, SampleWriter};
    use crate::game::record::{fixtures::sample_record, GameRecord, PlayedMove};
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

    #[test]
    fn csv_reads_the_evaluation_column() {
        let text = "h8i9,h9,2,-35\nh8i9h9,i10,0,\nh8i9h9i10,h10,2\n";
        let mut src = CsvSource::new(Box::new(io::Cursor::new(text.as_bytes().to_vec())));
        let evals: Vec<Option<i16>> = std::iter::from_fn(|| src.next(Path::new("mem")))
            .map(|s| s.unwrap().eval)
            .collect();
        assert_eq!(evals, [Some(-35), None, None]);
        let mut src = CsvSource::new(Box::new(io::Cursor::new(b"h8,h9,2,+M5\n".to_vec())));
        let err = src.next(Path::new("f.csv")).unwrap().unwrap_err();
        assert!(
            err.to_string().contains("eval \"+M5\" is not a number"),
            "{err}"
        );
    }

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
            "f.csv:2: expected 3 fields: position,move,result, or 4 with eval (found 2) in \"h8i9,h9\" \
             (the record at byte 10)"
        );
    }
}
