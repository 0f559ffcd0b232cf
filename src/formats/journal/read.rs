//! Reading journals: one stream of a file's lines (torn last lines skipped), several journals
//! merged in an explicit order, and an incremental tail by byte offset for the shard sync and
//! the live report. Every reader of journals in the crate reads through here.

use serde::Deserialize;
use thiserror::Error;

use crate::formats::journal::identity::HeaderMismatch;
use crate::formats::journal::repeats::{LineSeen, SeenLines};
use crate::formats::journal::wire::{GameSummary, JournalEntry, JournalHeader, HEADER_KIND};

/// A game line of any shape (whole entry or summary) as readers merging several journals order
/// them: by the time the game ended, then by number.
pub trait FinishedGame {
    fn game_number(&self) -> u64;
    /// RFC 3339 end time.
    fn ended_at(&self) -> &str;
    /// The run's identity, as the line carries it.
    fn run(&self) -> &str;
}

impl FinishedGame for JournalEntry {
    fn game_number(&self) -> u64 {
        self.game
    }
    fn ended_at(&self) -> &str {
        &self.ended
    }
    fn run(&self) -> &str {
        &self.fingerprint
    }
}

impl FinishedGame for GameSummary {
    fn game_number(&self) -> u64 {
        self.game
    }
    fn ended_at(&self) -> &str {
        &self.ended
    }
    fn run(&self) -> &str {
        &self.fingerprint
    }
}

/// A journal that cannot be read.
#[derive(Debug, Error)]
pub enum JournalError {
    /// A line that is neither a header nor a game entry (and not a torn last line).
    #[error("{file}:{line}: not a journal entry ({why}): {text:?}")]
    BadLine {
        file: String,
        line: usize,
        why: String,
        text: String,
    },
    /// A header whose settings were edited (see [`JournalHeader::check`]).
    #[error("{0} ({FORCE_HINT})")]
    Header(HeaderMismatch),
    /// Two different lines for the same game of the same run.
    #[error("{file}:{line}: game {game} is also at {first_file}:{first_line} with other content: the journals are not of one run, or one was edited")]
    Conflict {
        file: String,
        line: usize,
        game: u64,
        first_file: String,
        first_line: usize,
    },
}

/// What the reading commands say of a header refused.
const FORCE_HINT: &str = "--force reads it anyway, with a warning";

/// Whether a reader refuses a journal whose header no longer gives its fingerprint, or warns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeaderCheck {
    #[default]
    Refuse,
    /// `--force`: read it, with a warning naming the file.
    Warn,
}

impl HeaderCheck {
    pub fn forced(force: bool) -> HeaderCheck {
        if force {
            HeaderCheck::Warn
        } else {
            HeaderCheck::Refuse
        }
    }

    /// Apply the check to `h`, read from `file`: a warning to keep, or the error.
    fn apply(self, h: &JournalHeader, file: &str) -> Result<Option<String>, JournalError> {
        match (h.check(file), self) {
            (Ok(()), _) => Ok(None),
            (Err(e), HeaderCheck::Refuse) => Err(JournalError::Header(e)),
            (Err(e), HeaderCheck::Warn) => Ok(Some(format!("{e}; read anyway (--force)"))),
        }
    }
}

/// Repeated game lines, one warning for them all: the first named, the rest counted.
#[derive(Debug, Default)]
struct RepeatNote {
    count: u64,
    /// The warning's index among the reader's warnings, once there is one.
    at: Option<usize>,
    first: String,
}

impl RepeatNote {
    fn note(&mut self, warnings: &mut Vec<String>, first: impl FnOnce() -> String) {
        self.count += 1;
        if self.at.is_none() {
            self.first = first();
            self.at = Some(warnings.len());
            warnings.push(String::new());
        }
        if let Some(w) = self.at.and_then(|i| warnings.get_mut(i)) {
            *w = match self.count {
                1 => format!("{}: counted once", self.first),
                n => format!(
                    "{n} repeated game lines counted once (the first: {})",
                    self.first
                ),
            };
        }
    }
}

/// The entries of a journal plus what was skipped.
#[derive(Debug, Default)]
pub struct JournalRead {
    /// The header line, absent in journals of versions before it existed.
    pub header: Option<JournalHeader>,
    /// Game entries in file order (the order the games finished).
    pub entries: Vec<JournalEntry>,
    /// A torn last line (a killed run): skipped, with this warning.
    pub warnings: Vec<String>,
}

/// Whether a line is a header (its `type` is `header`); entries have no `type`.
fn is_header(line: &str) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        #[serde(rename = "type")]
        kind: Option<String>,
    }
    // The writer starts a game line with `game`: only other lines (the header, or lines whose
    // keys a tool reordered) are probed for `type`.
    !line.trim_start().starts_with("{\"game\"")
        && serde_json::from_str::<Probe>(line).is_ok_and(|p| p.kind.as_deref() == Some(HEADER_KIND))
}

/// One item of a journal being read (games as `E`: whole entries, or their summaries).
#[derive(Debug)]
pub enum Item<E = JournalEntry> {
    Header(Box<JournalHeader>),
    Entry(Box<E>),
    /// A torn last line (a killed run), skipped.
    Torn(String),
}

/// A journal read line by line (memory independent of its length). A malformed *last* line
/// without its newline is a torn write and is skipped with a warning; a malformed line anywhere
/// else is an error naming the file and line.
///
/// Lines are read as bytes: a write torn inside a multi-byte character (a name or a message
/// that is not ASCII) leaves a last line that is not UTF-8, which is a torn line like any other.
pub struct Stream<R, E = JournalEntry> {
    input: R,
    file: String,
    line: usize,
    /// Bytes of the file before the current line.
    offset: u64,
    buf: Vec<u8>,
    done: bool,
    entries: std::marker::PhantomData<E>,
}

impl<R, E> Stream<R, E> {
    /// The file's name as messages give it.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The number and text of the line just read (the last item's).
    fn current(&self) -> (usize, &str) {
        let text = std::str::from_utf8(&self.buf).unwrap_or_default();
        (self.line, text)
    }
}

impl<R: std::io::BufRead, E> Stream<R, E> {
    pub fn new(input: R, file: impl Into<String>) -> Self {
        Stream {
            input,
            file: file.into(),
            line: 0,
            offset: 0,
            buf: Vec::new(),
            done: false,
            entries: std::marker::PhantomData,
        }
    }

    fn bad(&self, line: usize, why: String, text: &str) -> JournalError {
        JournalError::BadLine {
            file: self.file.clone(),
            line,
            why,
            text: text.chars().take(120).collect(),
        }
    }
}

impl<R: std::io::BufRead, E: serde::de::DeserializeOwned> Iterator for Stream<R, E> {
    type Item = Result<Item<E>, JournalError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            self.buf.clear();
            match self.input.read_until(b'\n', &mut self.buf) {
                Ok(0) => self.done = true,
                Ok(n) => {
                    self.line += 1;
                    let start = self.offset;
                    self.offset += n as u64;
                    let complete = self.buf.ends_with(b"\n");
                    let line = match std::str::from_utf8(&self.buf) {
                        Ok(text) => text.trim_end_matches(['\n', '\r']),
                        Err(e) => {
                            let at = e.valid_up_to();
                            let why = format!(
                                "not UTF-8 text: byte {:#04x} at column {} (offset {} of the file)",
                                self.buf[at],
                                at + 1,
                                start + at as u64
                            );
                            return Some(if complete {
                                Err(self.bad(self.line, why, &String::from_utf8_lossy(&self.buf)))
                            } else {
                                Ok(Item::Torn(format!(
                                    "{}:{}: skipping a torn last line (an interrupted write): {why}",
                                    self.file, self.line
                                )))
                            });
                        }
                    };
                    if line.trim().is_empty() {
                        continue;
                    }
                    let parsed = if is_header(line) {
                        serde_json::from_str(line).map(|h| Item::Header(Box::new(h)))
                    } else {
                        serde_json::from_str(line).map(|e| Item::Entry(Box::new(e)))
                    };
                    return Some(match parsed {
                        Ok(item) => Ok(item),
                        Err(e) if !complete => Ok(Item::Torn(format!(
                            "{}:{}: skipping a torn last line (an interrupted write): {e}",
                            self.file, self.line
                        ))),
                        Err(e) => Err(self.bad(self.line, e.to_string(), line)),
                    });
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(self.bad(self.line + 1, e.to_string(), "")));
                }
            }
        }
        None
    }
}

/// Parse a journal's bytes (see [`Stream`]): its header checked against its fingerprint, a
/// repeated game line counted once, two lines for one game refused naming both.
pub fn parse(bytes: impl AsRef<[u8]>, file: &str) -> Result<JournalRead, JournalError> {
    parse_checked(bytes, file, HeaderCheck::Refuse)
}

/// [`parse`], the header checked as `check` says.
pub fn parse_checked(
    bytes: impl AsRef<[u8]>,
    file: &str,
    check: HeaderCheck,
) -> Result<JournalRead, JournalError> {
    let mut out = JournalRead::default();
    let mut seen = SeenLines::default();
    let mut repeats = RepeatNote::default();
    let mut lines = Stream::<_, JournalEntry>::new(bytes.as_ref(), file);
    while let Some(item) = lines.next() {
        match item? {
            Item::Header(h) if out.header.is_none() => {
                out.warnings.extend(check.apply(&h, file)?);
                out.header = Some(*h);
            }
            Item::Header(_) => out
                .warnings
                .push(format!("{file}: a second header line is ignored")),
            Item::Entry(e) => {
                let (line, text) = lines.current();
                match seen.admit(&e.fingerprint, e.game, text, 0, line) {
                    LineSeen::First => out.entries.push(*e),
                    LineSeen::Repeat { line: first, .. } => repeats.note(&mut out.warnings, || {
                        format!("{file}:{line}: game {} repeats {file}:{first}", e.game)
                    }),
                    LineSeen::Conflict { line: first, .. } => {
                        return Err(JournalError::Conflict {
                            file: file.to_string(),
                            line,
                            game: e.game,
                            first_file: file.to_string(),
                            first_line: first,
                        })
                    }
                }
            }
            Item::Torn(w) => out.warnings.push(w),
        }
    }
    Ok(out)
}

impl<R, E> Stream<R, E> {
    /// Continue numbering lines and bytes from where an earlier read of the same file stopped
    /// (so errors name the file's own line and offset).
    fn starting_at(mut self, line: usize, offset: u64) -> Self {
        self.line = line;
        self.offset = offset;
        self
    }
}

/// The header of a journal file (its first line), if it has one.
pub fn header_of(path: &std::path::Path) -> Option<JournalHeader> {
    let file = std::fs::File::open(path).ok()?;
    let mut lines =
        Stream::<_, GameSummary>::new(std::io::BufReader::new(file), path.display().to_string());
    match lines.next()? {
        Ok(Item::Header(h)) => Some(*h),
        _ => None,
    }
}

/// Journal files named on a command line: a directory stands for every `*.journal.jsonl` in it
/// (a run directory of shards), in name order.
pub fn journal_files(args: &[std::path::PathBuf]) -> Result<Vec<std::path::PathBuf>, String> {
    let mut files = Vec::new();
    for a in args {
        if a.is_dir() {
            let mut found: Vec<_> = std::fs::read_dir(a)
                .map_err(|e| format!("{}: {e}", a.display()))?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().ends_with(".journal.jsonl"))
                .collect();
            if found.is_empty() {
                return Err(format!("{}: no *.journal.jsonl files", a.display()));
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(a.clone());
        }
    }
    Ok(files)
}

/// The order in which several journals of one run are read together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// The order the games finished: one file in its own order, several merged by each game's
    /// `ended` time, then number. Statistics read so, and an SPRT crossing is found at the game
    /// the run found it. Streams: no game is held, only what the duplicate check keeps of
    /// each ([`SeenLines`]: some 50 bytes a game, 10 MB for 200 000).
    Finished,
    /// By game number (records and archives: the order a user reads a run in). One file keeps
    /// its own order, as the run wrote its records.
    GameNumber,
}

type JournalFile<E> = Stream<std::io::BufReader<std::fs::File>, E>;

/// Every game of a run's journals, read whole ([`JournalSet::read_all`]).
#[derive(Debug)]
pub struct ReadAll<E> {
    pub headers: Vec<JournalHeader>,
    pub games: Vec<E>,
    /// Torn last lines skipped.
    pub warnings: Vec<String>,
}

/// The journals of one run read together: their headers, then their games in the [`Order`] asked
/// for. Read errors stop the iteration and are kept in `error`; torn last lines in `warnings`.
pub struct JournalSet<E = GameSummary> {
    pub headers: Vec<JournalHeader>,
    streams: Vec<JournalFile<E>>,
    heads: std::collections::BinaryHeap<std::cmp::Reverse<(i64, u64, usize)>>,
    /// The head entry of each file (one per file at a time).
    pending: Vec<Option<E>>,
    /// The first read error: the iteration stops there and the caller reports it.
    pub error: Option<String>,
    /// Torn last lines skipped so far (a killed run), one message each; headers read with
    /// `--force`; repeated game lines (one message for them all).
    pub warnings: Vec<String>,
    check: HeaderCheck,
    seen: SeenLines,
    repeats: RepeatNote,
}

impl<E> JournalSet<E>
where
    E: serde::de::DeserializeOwned + FinishedGame,
{
    /// Open journal files or run directories (see [`journal_files`]), to be read in
    /// [`Order::Finished`]. Each header is checked against its fingerprint (refused when it no
    /// longer gives it); a repeated game line is read once, two lines for one game of one run
    /// are an error naming both.
    pub fn open(args: &[std::path::PathBuf]) -> Result<JournalSet<E>, String> {
        Self::open_checked(args, HeaderCheck::Refuse)
    }

    /// [`JournalSet::open`], headers checked as `check` says (`--force`).
    pub fn open_checked(
        args: &[std::path::PathBuf],
        check: HeaderCheck,
    ) -> Result<JournalSet<E>, String> {
        let mut set = JournalSet {
            headers: Vec::new(),
            streams: Vec::new(),
            heads: Default::default(),
            pending: Vec::new(),
            error: None,
            warnings: Vec::new(),
            check,
            seen: SeenLines::default(),
            repeats: RepeatNote::default(),
        };
        let mut firsts = Vec::new();
        for f in journal_files(args)? {
            let file = std::fs::File::open(&f).map_err(|e| format!("{}: {e}", f.display()))?;
            let reader = std::io::BufReader::new(file);
            set.streams
                .push(JournalFile::new(reader, f.display().to_string()));
            firsts.push(set.pull(set.streams.len() - 1)?);
        }
        for (i, first) in firsts.into_iter().enumerate() {
            set.push_head(i, first);
        }
        Ok(set)
    }

    /// Every game of the journals in `order`, with the headers; the first read error fails.
    pub fn read_all(args: &[std::path::PathBuf], order: Order) -> Result<ReadAll<E>, String> {
        Self::read_all_checked(args, order, HeaderCheck::Refuse)
    }

    /// [`JournalSet::read_all`], headers checked as `check` says (`--force`).
    pub fn read_all_checked(
        args: &[std::path::PathBuf],
        order: Order,
        check: HeaderCheck,
    ) -> Result<ReadAll<E>, String> {
        let mut set = Self::open_checked(args, check)?;
        let several = set.streams.len() > 1;
        let mut games: Vec<E> = set.by_ref().collect();
        if let Some(e) = set.error {
            return Err(e);
        }
        if order == Order::GameNumber && several {
            games.sort_by_key(|g| g.game_number());
        }
        Ok(ReadAll {
            headers: set.headers,
            games,
            warnings: set.warnings,
        })
    }

    /// The next entry of file `i` (its header lines checked and kept aside, torn lines and
    /// repeated game lines noted).
    fn pull(&mut self, i: usize) -> Result<Option<E>, String> {
        while let Some(item) = self.streams[i].next() {
            match item.map_err(|e| e.to_string())? {
                Item::Header(h) => {
                    let file = self.streams[i].file();
                    let warning = self.check.apply(&h, file).map_err(|e| e.to_string())?;
                    self.warnings.extend(warning);
                    self.headers.push(*h);
                }
                Item::Entry(e) => {
                    let (line, text) = self.streams[i].current();
                    match (self.seen).admit(e.run(), e.game_number(), text, i, line) {
                        LineSeen::First => return Ok(Some(*e)),
                        LineSeen::Repeat { file, line: first } => {
                            let (here, there) = (self.streams[i].file(), self.streams[file].file());
                            let game = e.game_number();
                            let say =
                                || format!("{here}:{line}: game {game} repeats {there}:{first}");
                            self.repeats.note(&mut self.warnings, say);
                        }
                        LineSeen::Conflict { file, line: first } => {
                            return Err(JournalError::Conflict {
                                file: self.streams[i].file().to_string(),
                                line,
                                game: e.game_number(),
                                first_file: self.streams[file].file().to_string(),
                                first_line: first,
                            }
                            .to_string())
                        }
                    }
                }
                Item::Torn(w) => self.warnings.push(w),
            }
        }
        Ok(None)
    }

    fn push_head(&mut self, i: usize, e: Option<E>) {
        let Some(e) = e else { return };
        let ended = chrono::DateTime::parse_from_rfc3339(e.ended_at())
            .ok()
            .and_then(|t| t.timestamp_nanos_opt())
            .unwrap_or(0);
        // One file: its own order (the key only breaks ties between files).
        let key = if self.streams.len() == 1 { 0 } else { ended };
        self.heads
            .push(std::cmp::Reverse((key, e.game_number(), i)));
        if self.pending.len() <= i {
            self.pending.resize_with(i + 1, || None);
        }
        self.pending[i] = Some(e);
    }
}

impl<E> Iterator for JournalSet<E>
where
    E: serde::de::DeserializeOwned + FinishedGame,
{
    type Item = E;

    fn next(&mut self) -> Option<E> {
        let std::cmp::Reverse((_, _, i)) = self.heads.pop()?;
        let e = self.pending.get_mut(i).and_then(Option::take)?;
        match self.pull(i) {
            Ok(next) => self.push_head(i, next),
            Err(x) => {
                self.error.get_or_insert(x);
                self.heads.clear();
            }
        }
        Some(e)
    }
}

/// A journal being written by someone else, read as it grows: each [`Tail::read_new`] returns
/// the whole lines appended since the last (a line being written waits for the next read).
/// Shards read each other's journals so, and the live report its run's.
#[derive(Debug)]
pub struct Tail {
    path: std::path::PathBuf,
    /// Bytes and lines of the file read so far.
    offset: u64,
    line: usize,
}

impl Tail {
    pub fn new(path: impl Into<std::path::PathBuf>) -> Tail {
        Tail {
            path: path.into(),
            offset: 0,
            line: 0,
        }
    }

    /// The items of the whole lines appended since the last read; none while the file cannot be
    /// read (not yet created, say). A bad line is an error item naming the file's own line.
    pub fn read_new<E: serde::de::DeserializeOwned>(
        &mut self,
    ) -> Vec<Result<Item<E>, JournalError>> {
        use std::io::{Read, Seek};
        let mut bytes = Vec::new();
        let read = std::fs::File::open(&self.path).and_then(|mut f| {
            f.seek(std::io::SeekFrom::Start(self.offset))?;
            f.read_to_end(&mut bytes)
        });
        let Some(end) = read.ok().and(bytes.iter().rposition(|&b| b == b'\n')) else {
            return vec![];
        };
        let whole = &bytes[..=end];
        let items = Stream::new(whole, self.path.display().to_string())
            .starting_at(self.line, self.offset)
            .collect();
        self.offset += whole.len() as u64;
        self.line += whole.iter().filter(|&&b| b == b'\n').count();
        items
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::journal::render_line;
    use crate::game::record::fixtures::sample_record;
    use std::io::Write;

    #[test]
    fn a_tail_reads_whole_lines_once_and_names_the_file_s_own_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        let line = render_line(&sample_record(), "f");
        let mut f = std::fs::File::create(&path).unwrap();
        let mut tail = Tail::new(&path);
        f.write_all(format!("{line}{}", &line[..9]).as_bytes())
            .unwrap();
        let first = tail.read_new::<GameSummary>();
        assert_eq!(first.len(), 1, "the half line waits");
        assert!(matches!(first[0], Ok(Item::Entry(_))));
        f.write_all(format!("{}garbage\n", &line[9..]).as_bytes())
            .unwrap();
        let next = tail.read_new::<GameSummary>();
        assert_eq!(next.len(), 2);
        assert!(matches!(next[0], Ok(Item::Entry(_))));
        let err = next[1].as_ref().unwrap_err().to_string();
        assert!(err.contains("j.jsonl:3"), "{err}");
        assert!(tail.read_new::<GameSummary>().is_empty());
    }

    #[test]
    fn a_line_with_an_unknown_result_is_a_bad_line_named_by_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.jsonl");
        let good = render_line(&sample_record(), "f");
        let bad = good.replace("\"result\":\"1-0\"", "\"result\":\"2-0\"");
        assert_ne!(good, bad);
        std::fs::write(&p, format!("{good}{bad}{good}")).unwrap();
        let err = JournalSet::<GameSummary>::read_all(&[p], Order::Finished).unwrap_err();
        assert!(
            err.contains("j.jsonl:2") && err.contains("\"2-0\""),
            "{err}"
        );
    }

    #[test]
    fn a_repeated_line_is_read_once_and_a_conflicting_one_named_with_both_lines() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = sample_record();
        let mut lines = Vec::new();
        for n in 1..=3 {
            r.game = crate::schedule::GameId(n);
            lines.push(render_line(&r, "f"));
        }
        let a = dir.path().join("a.jsonl");
        std::fs::write(&a, lines.concat() + &lines[1]).unwrap();
        let read =
            JournalSet::<GameSummary>::read_all(std::slice::from_ref(&a), Order::Finished).unwrap();
        assert_eq!(read.games.len(), 3);
        assert_eq!(read.warnings.len(), 1, "{:?}", read.warnings);
        assert!(
            read.warnings[0].contains("a.jsonl:4: game 2 repeats")
                && read.warnings[0].contains("a.jsonl:2: counted once"),
            "{:?}",
            read.warnings
        );
        let parsed = parse(std::fs::read(&a).unwrap(), "a.jsonl").unwrap();
        assert_eq!(parsed.entries.len(), 3);
        // The journal named twice: each game once.
        let twice = JournalSet::<GameSummary>::read_all(&[a.clone(), a.clone()], Order::Finished);
        assert_eq!(twice.unwrap().games.len(), 3);
        // Game 2 again with another result, in another file.
        let b = dir.path().join("b.jsonl");
        let other = lines[1].replace("\"result\":\"1-0\"", "\"result\":\"0-1\"");
        assert_ne!(other, lines[1]);
        std::fs::write(&b, format!("{}{other}", lines[0])).unwrap();
        let err = JournalSet::<JournalEntry>::read_all(&[a.clone(), b.clone()], Order::GameNumber)
            .unwrap_err();
        assert!(
            err.contains(":2: game 2 is also at")
                && err.contains("a.jsonl:2")
                && err.contains("b.jsonl:2")
                && err.contains("with other content"),
            "{err}"
        );
        std::fs::write(&b, format!("{}{other}", lines.concat())).unwrap();
        let err = parse(std::fs::read(&b).unwrap(), "b.jsonl")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("b.jsonl:4: game 2 is also at b.jsonl:2"),
            "{err}"
        );
    }

    #[test]
    fn a_header_whose_settings_were_edited_is_refused_or_read_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let config = crate::config::config_in(
            "-engine cmd=cat -engine cmd=sh -each tc=10/1 -games 2",
            &[("PATH", "/usr/bin:/bin")],
        )
        .unwrap();
        let h = crate::config::identity::header(&config, &["a".into(), "b".into()], 2);
        let game = render_line(&sample_record(), &h.fingerprint);
        let good = crate::formats::journal::render_header(&h);
        let mut edited = h.clone();
        edited.settings.rule = 4;
        let edited = crate::formats::journal::render_header(&edited);
        let p = dir.path().join("j.jsonl");
        std::fs::write(&p, format!("{good}{game}")).unwrap();
        assert!(
            JournalSet::<GameSummary>::read_all(std::slice::from_ref(&p), Order::Finished).is_ok()
        );
        std::fs::write(&p, format!("{edited}{game}")).unwrap();
        let err = JournalSet::<GameSummary>::read_all(std::slice::from_ref(&p), Order::Finished)
            .unwrap_err();
        assert!(
            err.contains("j.jsonl: the header's settings give") && err.contains("--force"),
            "{err}"
        );
        let err = parse(std::fs::read(&p).unwrap(), "j.jsonl").unwrap_err();
        assert!(matches!(err, JournalError::Header(_)), "{err}");
        let forced = JournalSet::<GameSummary>::read_all_checked(
            std::slice::from_ref(&p),
            Order::Finished,
            HeaderCheck::Warn,
        )
        .unwrap();
        assert_eq!(forced.games.len(), 1);
        assert!(
            forced.warnings[0].contains("read anyway (--force)"),
            "{:?}",
            forced.warnings
        );
    }

    #[test]
    fn several_journals_are_read_in_the_order_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = sample_record();
        let mut write = |name: &str, games: &[(u64, i64)]| {
            let mut text = String::new();
            for &(game, minute) in games {
                r.game = crate::schedule::GameId(game);
                r.ended = chrono::DateTime::from_timestamp(minute * 60, 0).unwrap();
                text.push_str(&render_line(&r, "f"));
            }
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let a = write("a.journal.jsonl", &[(4, 1), (1, 3)]);
        let b = write("b.journal.jsonl", &[(2, 2), (3, 4)]);
        let numbers = |order| {
            let read = JournalSet::<GameSummary>::read_all(&[a.clone(), b.clone()], order).unwrap();
            read.games.iter().map(|g| g.game).collect::<Vec<_>>()
        };
        assert_eq!(numbers(Order::Finished), vec![4, 2, 1, 3]);
        assert_eq!(numbers(Order::GameNumber), vec![1, 2, 3, 4]);
        // One file keeps its own order either way.
        let one = JournalSet::<GameSummary>::read_all(&[a], Order::GameNumber).unwrap();
        assert_eq!(
            one.games.iter().map(|g| g.game).collect::<Vec<_>>(),
            vec![4, 1]
        );
    }
}
