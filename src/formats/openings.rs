//! Opening files: parsing the offset and pos formats (and a Piskvork `.psq` game record as one
//! opening), validating each opening under the game rule, rendering openings back to text, and the
//! deterministic order in which a tournament draws them.
//!
//! Pure code except `OpeningBook::load`, which reads one file. Every parse or validation error
//! names the file, the 1-based line number in that file and the offending text, so a user can fix
//! a bad line without guessing.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

use crate::core::board::{BoardError, BoardSize, Color, Pos, Symmetry};
use crate::core::rules::{standing_winner, ForbiddenKind, MoveOutcome, Referee, Rule};
use crate::formats::psq::{self, PsqGame, PsqProblem};

/// How the stones of one opening are written on a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpeningFormat {
    /// Gomocup tournament format: `dx,dy, dx,dy, ...` relative to the centre `(floor(n/2), floor(n/2))`.
    Offset,
    /// `h8i9j10`: a letter for x (`a` = 0), then y+1 counted from the top. Boards up to 26.
    Pos,
    /// A Piskvork `.psq` game record, one opening: its first `moves` stones (all when `None`).
    Psq { moves: Option<usize> },
}

impl OpeningFormat {
    /// The name used on the command line (`type=offset` / `type=pos`).
    pub fn name(self) -> &'static str {
        match self {
            OpeningFormat::Offset => "offset",
            OpeningFormat::Pos => "pos",
            OpeningFormat::Psq { .. } => "psq",
        }
    }
}

impl fmt::Display for OpeningFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        match self {
            OpeningFormat::Psq { moves: Some(n) } => write!(f, " moves={n}"),
            _ => Ok(()),
        }
    }
}

impl FromStr for OpeningFormat {
    type Err = OpeningError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "offset" => Ok(OpeningFormat::Offset),
            "pos" => Ok(OpeningFormat::Pos),
            "psq" => Ok(OpeningFormat::Psq { moves: None }),
            other => Err(OpeningError::UnknownFormat(other.to_string())),
        }
    }
}

/// What is wrong with one line of an opening file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LineProblem {
    /// The line contains a character that has no place in the chosen opening notation.
    #[error("unexpected character {ch:?} at column {column}")]
    UnexpectedChar { ch: char, column: usize },
    /// An offset value contains digits and signs but does not read as a whole number.
    #[error("{token:?} is not an integer")]
    BadNumber { token: String },
    /// Two commas with nothing between them (or a comma at either end) leave an offset value blank.
    #[error("empty value (stray comma?) at value {index}")]
    EmptyValue { index: usize },
    /// An offset line has a dangling x without its y, so the values cannot be paired into stones.
    #[error("odd number of offset values ({count}); each stone needs dx,dy")]
    OddValueCount { count: usize },
    /// A pos-notation stone gives its column letter but no row number after it.
    #[error("letter {letter:?} has no row number")]
    MissingRow { letter: char },
    /// A stone of the opening lies outside the board size used for the tournament.
    #[error("stone {stone} ({text}) is off the {size}x{size} board")]
    OffBoard {
        stone: usize,
        text: String,
        size: u8,
    },
    /// The opening places two stones on the same point.
    #[error("stone {stone} ({text}) repeats stone {first}")]
    Duplicate {
        stone: usize,
        text: String,
        first: usize,
    },
    /// Placing this stone already wins the game, so the opening would leave nothing to play.
    #[error("stone {stone} ({text}) completes a five for {color} under {rule}")]
    Five {
        stone: usize,
        text: String,
        color: Color,
        rule: Rule,
    },
    /// The finished opening position already contains a winning line, although no single stone was judged to make it.
    #[error("the position contains a five for {color} under {rule}")]
    StandingFive { color: Color, rule: Rule },
    /// Under renju, the opening makes black play a move that the rule forbids.
    #[error("stone {stone} ({text}) is a forbidden black move under renju ({kind})")]
    Forbidden {
        stone: usize,
        text: String,
        kind: ForbiddenKind,
    },
    /// The opening covers every point of the board, so no move would be left to play.
    #[error("stone {stone} ({text}) fills the board")]
    FillsBoard { stone: usize, text: String },
    /// A line of a `.psq` record that does not read (header, move, point off its board, taken).
    #[error("{0}")]
    Psq(PsqProblem),
    /// A `.psq` record of another board than the tournament's: its points would mean other places.
    #[error("a {width}x{height} record, but the board is {size}x{size} (-boardsize)")]
    PsqBoard { width: u8, height: u8, size: u8 },
}

impl LineProblem {
    /// The 1-based stone the problem is about, when it is about one.
    fn stone(&self) -> Option<usize> {
        match self {
            LineProblem::OffBoard { stone, .. }
            | LineProblem::Duplicate { stone, .. }
            | LineProblem::Five { stone, .. }
            | LineProblem::Forbidden { stone, .. }
            | LineProblem::FillsBoard { stone, .. } => Some(*stone),
            _ => None,
        }
    }
}

/// Errors from reading and validating an opening file.
#[derive(Debug, Error)]
pub enum OpeningError {
    /// The opening file could not be read from disk (missing, unreadable, a directory...).
    #[error("cannot read opening file {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// One line of the opening file could not be parsed or is not a playable opening.
    #[error("{}:{line}: {problem}: {text:?}{}", file.display(), notation_hint(*looks_like))]
    Line {
        file: PathBuf,
        line: usize,
        text: String,
        problem: LineProblem,
        /// The other notation, when the line fails in the one asked for but reads in this one:
        /// the message then suggests the `type=` to use.
        looks_like: Option<OpeningFormat>,
    },
    /// The opening file has only blank lines, so there is no opening to play.
    #[error("{}: the file contains no openings", file.display())]
    Empty { file: PathBuf },
    /// The chosen notation cannot describe the tournament's board size, so no line could be read.
    #[error("{}: {source}", file.display())]
    Notation {
        file: PathBuf,
        #[source]
        source: BoardError,
    },
    /// The `type=` given for the opening file names none of the supported formats.
    #[error("unknown opening format {0:?} (expected offset, pos or psq)")]
    UnknownFormat(String),
    /// `moves=N` asks for more stones than the `.psq` record holds.
    #[error("{}: the record has {stones} stones; moves={wanted} asks for more", file.display())]
    PsqTooShort {
        file: PathBuf,
        stones: usize,
        wanted: usize,
    },
}

/// The end of a line error's message when the line reads in the other notation.
fn notation_hint(looks_like: Option<OpeningFormat>) -> &'static str {
    match looks_like {
        None => "",
        Some(OpeningFormat::Pos) => " (this looks like pos notation: add type=pos to -openings)",
        Some(OpeningFormat::Offset) => {
            " (this looks like offset notation: use type=offset, the default, in -openings)"
        }
        Some(OpeningFormat::Psq { .. }) => {
            " (this looks like a Piskvork .psq record: use type=psq in -openings)"
        }
    }
}

impl OpeningError {
    /// The 1-based line number of a line error.
    pub fn line(&self) -> Option<usize> {
        match self {
            OpeningError::Line { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// The problem found on a line, for a line error.
    pub fn problem(&self) -> Option<&LineProblem> {
        match self {
            OpeningError::Line { problem, .. } => Some(problem),
            _ => None,
        }
    }
}

/// One opening: its stones in play order (black first, colours alternating) and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Opening {
    /// 1-based line number in the source file.
    pub line: usize,
    pub stones: Vec<Pos>,
}

impl Opening {
    /// The stones under a symmetry, in play order.
    pub fn transformed(&self, sym: Symmetry, size: BoardSize) -> Vec<Pos> {
        sym.apply_all(&self.stones, size)
    }

    /// Render in pos notation (`h8i9j10`). Fails only for boards larger than 26.
    pub fn to_pos_line(&self, size: BoardSize) -> Result<String, BoardError> {
        crate::core::board::to_pos_sequence(&self.stones, size)
    }

    /// Render in offset notation (`0,0, 1,-1, 2,0`), the Gomocup tournament form.
    pub fn to_offset_line(&self, size: BoardSize) -> String {
        to_offset_line(&self.stones, size)
    }

    /// Render in the given format; a `.psq` record is a whole file (stones without think times).
    pub fn to_line(&self, format: OpeningFormat, size: BoardSize) -> Result<String, BoardError> {
        match format {
            OpeningFormat::Offset => Ok(self.to_offset_line(size)),
            OpeningFormat::Pos => self.to_pos_line(size),
            OpeningFormat::Psq { .. } => {
                let stones = self.stones.iter().map(|&p| (p, 0));
                Ok(PsqGame::new(size, stones, None).render())
            }
        }
    }
}

/// Render stones in offset notation relative to `(floor(n/2), floor(n/2))`, `", "` between stones.
pub fn to_offset_line(stones: &[Pos], size: BoardSize) -> String {
    let c = size.center();
    stones
        .iter()
        .map(|p| format!("{},{}", p.x as i32 - c.x as i32, p.y as i32 - c.y as i32))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A key identifying the *position* an opening reaches, the same for all 8 symmetric images and for
/// every order of playing the same stones: for each symmetry, the black stones sorted then the white
/// stones sorted; the smallest of the 8. (Stronger than `Symmetry::canonical`, which keeps the
/// play order; two openings with equal keys give the engines the same position.)
pub fn position_key(stones: &[Pos], size: BoardSize) -> Vec<Pos> {
    Symmetry::ALL
        .into_iter()
        .map(|s| {
            let img = s.apply_all(stones, size);
            let mut black: Vec<Pos> = img.iter().step_by(2).copied().collect();
            let mut white: Vec<Pos> = img.iter().skip(1).step_by(2).copied().collect();
            black.sort();
            white.sort();
            // Black always has ceil(len/2) stones, so the concatenation is unambiguous.
            black.extend(white);
            black
        })
        .min()
        .unwrap_or_default()
}

/// A validated list of openings read from one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpeningBook {
    pub openings: Vec<Opening>,
    /// The file the openings came from (or the name given to `parse_str`).
    pub source: PathBuf,
    pub size: BoardSize,
    pub rule: Rule,
}

impl OpeningBook {
    /// Read and validate an opening file. CR LF, a missing final newline, blank lines and trailing
    /// spaces are tolerated; any other problem is an error naming the file, line and text.
    pub fn load(
        path: impl AsRef<Path>,
        format: OpeningFormat,
        size: BoardSize,
        rule: Rule,
    ) -> Result<OpeningBook, OpeningError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| OpeningError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse_bytes(&bytes, path, format, size, rule)
    }

    /// Parse and validate the bytes of an opening file; `source` names it in errors.
    pub fn parse_bytes(
        bytes: &[u8],
        source: impl Into<PathBuf>,
        format: OpeningFormat,
        size: BoardSize,
        rule: Rule,
    ) -> Result<OpeningBook, OpeningError> {
        // Invalid UTF-8 becomes U+FFFD, which the line parser then reports as an unexpected
        // character on the right line instead of failing the whole file without a location.
        let text = String::from_utf8_lossy(bytes);
        Self::parse_str(&text, source, format, size, rule)
    }

    /// Parse and validate openings from text; `source` names the text in errors.
    pub fn parse_str(
        text: &str,
        source: impl Into<PathBuf>,
        format: OpeningFormat,
        size: BoardSize,
        rule: Rule,
    ) -> Result<OpeningBook, OpeningError> {
        let source = source.into();
        if let OpeningFormat::Psq { moves } = format {
            return Self::parse_psq(text, source, moves, size, rule);
        }
        if format == OpeningFormat::Pos && size.get() > 26 {
            return Err(OpeningError::Notation {
                file: source,
                source: BoardError::NotationTooSmall {
                    notation: "pos",
                    size: size.get(),
                    max: 26,
                },
            });
        }
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut openings = Vec::new();
        for (i, raw) in text.split('\n').enumerate() {
            let line_no = i + 1;
            let line = raw.trim();
            if line.is_empty() {
                continue;
            }
            let stones = parse_line(line, format, size)
                .map_err(|problem| (problem, other_notation_reads(line, format, size)))
                .and_then(|st| {
                    validate(&st, size, rule)
                        .map(|()| st)
                        .map_err(|problem| (problem, None))
                })
                .map_err(|(problem, looks_like)| OpeningError::Line {
                    file: source.clone(),
                    line: line_no,
                    text: line.to_string(),
                    problem,
                    looks_like,
                })?;
            openings.push(Opening {
                line: line_no,
                stones,
            });
        }
        if openings.is_empty() {
            return Err(OpeningError::Empty { file: source });
        }
        Ok(OpeningBook {
            openings,
            source,
            size,
            rule,
        })
    }

    /// A `.psq` record as a book of one opening: its first `moves` stones (all when `None`),
    /// validated like any opening; errors name the record's line.
    fn parse_psq(
        text: &str,
        source: PathBuf,
        moves: Option<usize>,
        size: BoardSize,
        rule: Rule,
    ) -> Result<OpeningBook, OpeningError> {
        let line_error = |line: usize, problem| OpeningError::Line {
            file: source.clone(),
            line,
            text: line_text(text, line),
            problem,
            looks_like: None,
        };
        let game = psq::parse(text).map_err(|e| line_error(e.line, LineProblem::Psq(e.problem)))?;
        if (game.width, game.height) != (size.get(), size.get()) {
            let (width, height) = (game.width, game.height);
            let size = size.get();
            return Err(line_error(
                1,
                LineProblem::PsqBoard {
                    width,
                    height,
                    size,
                },
            ));
        }
        let wanted = moves.unwrap_or(game.moves.len());
        let taken = game
            .moves
            .get(..wanted)
            .ok_or_else(|| OpeningError::PsqTooShort {
                file: source.clone(),
                stones: game.moves.len(),
                wanted,
            })?;
        let Some(last) = taken.last() else {
            return Err(OpeningError::Empty { file: source });
        };
        let stones: Vec<Pos> = taken.iter().map(|m| m.pos).collect();
        validate(&stones, size, rule).map_err(|problem| {
            let at = problem
                .stone()
                .and_then(|k| taken.get(k.checked_sub(1)?))
                .unwrap_or(last);
            line_error(at.line, problem)
        })?;
        Ok(OpeningBook {
            openings: vec![Opening {
                line: last.line,
                stones,
            }],
            source,
            size,
            rule,
        })
    }

    pub fn len(&self) -> usize {
        self.openings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.openings.is_empty()
    }

    pub fn get(&self, index: usize) -> Option<&Opening> {
        self.openings.get(index)
    }

    /// The stones of opening `index` under `sym`, in play order.
    pub fn stones(&self, index: usize, sym: Symmetry) -> Option<Vec<Pos>> {
        self.get(index).map(|o| o.transformed(sym, self.size))
    }

    /// A drawing order over this book (never empty, so always valid).
    pub fn sequence(&self, order: OpeningOrder, transform: bool) -> OpeningSequence {
        OpeningSequence::new(self.len(), order, transform)
    }

    /// Indices of openings reaching the same position as an earlier one, up to symmetry and
    /// move order (see `position_key`), as `(later, earlier)` index pairs.
    pub fn duplicates(&self) -> Vec<(usize, usize)> {
        let mut seen: HashMap<Vec<Pos>, usize> = HashMap::new();
        let mut dups = Vec::new();
        for (i, o) in self.openings.iter().enumerate() {
            match seen.entry(position_key(&o.stones, self.size)) {
                std::collections::hash_map::Entry::Occupied(e) => dups.push((i, *e.get())),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(i);
                }
            }
        }
        dups
    }
}

/// Text of one stone as the user would recognise it in the chosen format.
fn offset_text(dx: i64, dy: i64) -> String {
    format!("{dx},{dy}")
}

/// Line `line` (1-based) of `text`, trimmed, for messages.
fn line_text(text: &str, line: usize) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split('\n')
        .nth(line.saturating_sub(1))
        .unwrap_or("")
        .trim()
        .to_string()
}

fn parse_line(line: &str, format: OpeningFormat, size: BoardSize) -> Result<Vec<Pos>, LineProblem> {
    match format {
        // A `.psq` record is read whole (`parse_psq`), never here.
        OpeningFormat::Offset | OpeningFormat::Psq { .. } => parse_offset_line(line, size),
        OpeningFormat::Pos => parse_pos_line(line, size),
    }
}

/// The other notation, if `line` (which failed to parse in `format`) parses in it: a file in the
/// wrong notation is the likely mistake then. Pos notation only fits boards up to 26; a Piskvork
/// header line means a `.psq` record.
fn other_notation_reads(
    line: &str,
    format: OpeningFormat,
    size: BoardSize,
) -> Option<OpeningFormat> {
    if line.starts_with("Piskvorky") {
        return Some(OpeningFormat::Psq { moves: None });
    }
    let other = match format {
        OpeningFormat::Offset if size.get() <= 26 => OpeningFormat::Pos,
        OpeningFormat::Offset => return None,
        OpeningFormat::Pos => OpeningFormat::Offset,
        OpeningFormat::Psq { .. } => return None,
    };
    parse_line(line, other, size).is_ok().then_some(other)
}

fn parse_offset_line(line: &str, size: BoardSize) -> Result<Vec<Pos>, LineProblem> {
    // Report stray characters first, with their column, so `0;0` reads better than "not an integer".
    for (col, ch) in line.chars().enumerate() {
        if !(ch.is_ascii_digit() || ch == ',' || ch == '-' || ch == '+' || ch.is_whitespace()) {
            return Err(LineProblem::UnexpectedChar {
                ch,
                column: col + 1,
            });
        }
    }
    let mut values = Vec::new();
    for (index, token) in line.split(',').enumerate() {
        let token = token.trim();
        if token.is_empty() {
            return Err(LineProblem::EmptyValue { index: index + 1 });
        }
        let v: i64 = token.parse().map_err(|_| LineProblem::BadNumber {
            token: token.to_string(),
        })?;
        values.push(v);
    }
    if values.len() % 2 != 0 {
        return Err(LineProblem::OddValueCount {
            count: values.len(),
        });
    }
    let c = size.center();
    values
        .chunks(2)
        .enumerate()
        .map(|(i, d)| {
            let (dx, dy) = (d[0], d[1]);
            // Checked: an offset near the i64 limits is off the board, not an overflow.
            let x = i64::from(c.x).checked_add(dx);
            let y = i64::from(c.y).checked_add(dy);
            x.zip(y)
                .and_then(|(x, y)| size.pos(x, y).ok())
                .ok_or_else(|| LineProblem::OffBoard {
                    stone: i + 1,
                    text: offset_text(dx, dy),
                    size: size.get(),
                })
        })
        .collect()
}

fn parse_pos_line(line: &str, size: BoardSize) -> Result<Vec<Pos>, LineProblem> {
    let chars: Vec<char> = line.chars().collect();
    let mut stones = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let ch = chars[i];
        // Whitespace between stones is harmless and appears in hand-edited files.
        if ch.is_whitespace() {
            i += 1;
            continue;
        }
        if !ch.is_ascii_alphabetic() {
            return Err(LineProblem::UnexpectedChar { ch, column: i + 1 });
        }
        let start = i;
        i += 1;
        let digits_start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        if digits_start == i {
            return Err(LineProblem::MissingRow { letter: ch });
        }
        let text: String = chars[start..i].iter().collect();
        let digits: String = chars[digits_start..i].iter().collect();
        let x = (ch.to_ascii_lowercase() as u8 - b'a') as i64;
        let off = || LineProblem::OffBoard {
            stone: stones.len() + 1,
            text: text.clone(),
            size: size.get(),
        };
        // A huge row number does not fit any board: report it as off the board.
        let n: i64 = digits.parse().map_err(|_| off())?;
        let p = size.pos(x, n - 1).map_err(|_| off())?;
        stones.push(p);
    }
    Ok(stones)
}

/// The notation of one stone for messages: pos notation when the board allows it, else `x,y`.
fn stone_text(p: Pos, size: BoardSize) -> String {
    p.to_pos_notation(size).unwrap_or_else(|_| p.to_string())
}

/// Replay the stones through the referee: duplicates, fives and renju forbidden moves are errors.
fn validate(stones: &[Pos], size: BoardSize, rule: Rule) -> Result<(), LineProblem> {
    let mut first_at: HashMap<Pos, usize> = HashMap::new();
    let mut referee = Referee::new(rule, size);
    for (i, &p) in stones.iter().enumerate() {
        let stone = i + 1;
        let text = stone_text(p, size);
        if let Some(&first) = first_at.get(&p) {
            return Err(LineProblem::Duplicate { stone, text, first });
        }
        first_at.insert(p, stone);
        match referee.play(p) {
            MoveOutcome::Continue => {}
            MoveOutcome::Win { color, .. } => {
                return Err(LineProblem::Five {
                    stone,
                    text,
                    color,
                    rule,
                })
            }
            MoveOutcome::Forbidden(kind) => {
                return Err(LineProblem::Forbidden { stone, text, kind })
            }
            MoveOutcome::Draw => return Err(LineProblem::FillsBoard { stone, text }),
            // Off-board stones were rejected while parsing and duplicates just above; keep the
            // referee's word anyway rather than assume.
            MoveOutcome::Illegal(_) => {
                return Err(LineProblem::OffBoard {
                    stone,
                    text,
                    size: size.get(),
                })
            }
        }
    }
    // The referee judges each stone as it lands; a final look at the whole position guards against
    // a five that no single placement was judged to complete.
    if let Some((color, _)) = standing_winner(referee.board(), rule) {
        return Err(LineProblem::StandingFive { color, rule });
    }
    Ok(())
}

/// The order in which openings are taken from the book.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpeningOrder {
    /// Line order, wrapping around after the last opening.
    Sequential,
    /// A fresh shuffle of the whole book on every pass, reproducible from `seed` alone.
    Random { seed: u64 },
}

/// An unpredictable seed for `order=random` with `srand=0` (the predecessor's "pick one for me").
/// Callers print it so the run can be reproduced with `srand=<seed>`. Never returns 0, which the
/// command line reserves for "choose a seed".
pub fn fresh_seed() -> u64 {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    // RandomState is keyed from OS entropy; mixing in time and pid covers platforms where it is not.
    let mut h = RandomState::new().build_hasher();
    h.write_u128(nanos);
    h.write_u32(std::process::id());
    match h.finish() {
        0 => 0x9e37_79b9_7f4a_7c15,
        s => s,
    }
}

/// Deterministic random access to "which opening, under which symmetry, for draw number `k`".
///
/// Draw `k` belongs to pass `k / n` over the book (n = book length) at slot `k % n`. Sequential
/// order takes opening `k % n`; random order takes `perm(pass)[k % n]`, where `perm(pass)` is a
/// Fisher–Yates shuffle of `0..n` driven by ChaCha8 keyed with `(seed, pass)`, so the same seed gives
/// the same games on every machine, and any `k` can be drawn directly (resume, shards).
/// With `transform`, pass `p` plays every opening under `Symmetry::ALL[p % 8]` (identity on the first
/// pass, then the next symmetry after each full pass, as the predecessor did); without it, identity.
///
/// Repeating an opening with colours reversed (`-repeat`) is the scheduler's business: it calls
/// `draw(pair_index)` once per pair of games and plays the result twice.
#[derive(Debug)]
pub struct OpeningSequence {
    n: usize,
    order: OpeningOrder,
    transform: bool,
    /// The permutation of the last pass asked for; draws usually walk `k` upwards, so one pass is
    /// reused `n` times before the next shuffle.
    cache: Mutex<Option<(u64, Arc<[u32]>)>>,
}

/// Which openings leave white to move (an odd number of stones): under c-gomoku-cli's colour
/// rule the first engine of a pair then plays white, since it makes the first move after the
/// opening.
#[derive(Debug)]
pub struct OpeningParity {
    sequence: OpeningSequence,
    /// Per opening of the book: an odd number of stones.
    odd: Vec<bool>,
}

impl OpeningParity {
    /// The parity of every opening of `book`, drawn in the run's order.
    pub fn new(book: &OpeningBook, order: OpeningOrder, transform: bool) -> OpeningParity {
        OpeningParity {
            sequence: book.sequence(order, transform),
            odd: book
                .openings
                .iter()
                .map(|o| o.stones.len() % 2 == 1)
                .collect(),
        }
    }

    /// Draw `k` is an opening after which white moves first.
    pub fn white_to_move(&self, k: u64) -> bool {
        let (index, _) = self.sequence.draw(k);
        self.odd.get(index).copied().unwrap_or(false)
    }
}

impl OpeningSequence {
    /// `book_len` must be at least 1 (an `OpeningBook` is never empty; use `OpeningBook::sequence`).
    ///
    /// # Panics
    /// If `book_len` is 0 or does not fit in `u32` — both programming errors, not input errors.
    pub fn new(book_len: usize, order: OpeningOrder, transform: bool) -> Self {
        assert!(
            book_len > 0,
            "an opening sequence needs at least one opening"
        );
        assert!(u32::try_from(book_len).is_ok(), "too many openings");
        OpeningSequence {
            n: book_len,
            order,
            transform,
            cache: Mutex::new(None),
        }
    }

    pub fn book_len(&self) -> usize {
        self.n
    }

    pub fn order(&self) -> OpeningOrder {
        self.order
    }

    pub fn transform(&self) -> bool {
        self.transform
    }

    /// The opening index and symmetry of draw number `k` (0-based).
    pub fn draw(&self, k: u64) -> (usize, Symmetry) {
        let n = self.n as u64;
        let pass = k / n;
        let slot = (k % n) as usize;
        let index = match self.order {
            OpeningOrder::Sequential => slot,
            OpeningOrder::Random { seed } => self.permutation_cached(seed, pass)[slot] as usize,
        };
        let sym = if self.transform {
            Symmetry::ALL[(pass % 8) as usize]
        } else {
            Symmetry::Identity
        };
        (index, sym)
    }

    /// The full order of opening indices in pass `pass`.
    pub fn pass_order(&self, pass: u64) -> Vec<usize> {
        match self.order {
            OpeningOrder::Sequential => (0..self.n).collect(),
            OpeningOrder::Random { seed } => self
                .permutation_cached(seed, pass)
                .iter()
                .map(|&i| i as usize)
                .collect(),
        }
    }

    fn permutation_cached(&self, seed: u64, pass: u64) -> Arc<[u32]> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((p, perm)) = cache.as_ref() {
            if *p == pass {
                return Arc::clone(perm);
            }
        }
        let perm: Arc<[u32]> = shuffled(self.n, seed, pass).into();
        *cache = Some((pass, Arc::clone(&perm)));
        perm
    }
}

/// Fisher–Yates shuffle of `0..n` for `(seed, pass)`. The key is `seed` then `pass`, little-endian,
/// zero-padded to 32 bytes; bounded draws use our own rejection sampling on `next_u64` so the
/// result depends only on the ChaCha8 stream, not on a library's sampling algorithm.
fn shuffled(n: usize, seed: u64, pass: u64) -> Vec<u32> {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&pass.to_le_bytes());
    let mut rng = ChaCha8Rng::from_seed(key);
    let mut v: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        let j = uniform_below(&mut rng, i as u64 + 1) as usize;
        v.swap(i, j);
    }
    v
}

/// A uniform integer in `0..bound` (`bound` > 0) by rejection, unbiased.
fn uniform_below(rng: &mut ChaCha8Rng, bound: u64) -> u64 {
    // Largest multiple of `bound` that fits; values at or above it would bias small results.
    let zone = u64::MAX - (u64::MAX % bound);
    loop {
        let r = rng.next_u64();
        if r < zone {
            return r % bound;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::board::parse_pos_sequence;

    fn sz(n: u32) -> BoardSize {
        BoardSize::new(n).unwrap()
    }

    fn parse(
        text: &str,
        format: OpeningFormat,
        n: u32,
        rule: Rule,
    ) -> Result<OpeningBook, OpeningError> {
        OpeningBook::parse_str(text, "test.txt", format, sz(n), rule)
    }

    fn line_err(
        text: &str,
        format: OpeningFormat,
        n: u32,
        rule: Rule,
    ) -> (usize, LineProblem, String) {
        match parse(text, format, n, rule) {
            Err(e @ OpeningError::Line { .. }) => {
                let msg = e.to_string();
                (e.line().unwrap(), e.problem().unwrap().clone(), msg)
            }
            other => panic!("expected a line error, got {other:?}"),
        }
    }

    /// [`line_err`] on a 15x15 freestyle board.
    fn line_err15(text: &str, format: OpeningFormat) -> (usize, LineProblem, String) {
        line_err(text, format, 15, Rule::Freestyle)
    }

    #[test]
    fn offset_lines_with_and_without_spaces() {
        let b = parse(
            "0,0, 1,-1, 2,0\n-1,-1,0,1,2,2",
            OpeningFormat::Offset,
            15,
            Rule::Freestyle,
        )
        .unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(
            b.openings[0].stones,
            vec![Pos::new(7, 7), Pos::new(8, 6), Pos::new(9, 7)]
        );
        assert_eq!(
            b.openings[1].stones,
            vec![Pos::new(6, 6), Pos::new(7, 8), Pos::new(9, 9)]
        );
        // Even sizes: the centre is floor(n/2).
        let b = parse("0,0, -10,9", OpeningFormat::Offset, 20, Rule::Freestyle).unwrap();
        assert_eq!(
            b.openings[0].stones,
            vec![Pos::new(10, 10), Pos::new(0, 19)]
        );
    }

    #[test]
    fn crlf_blank_lines_trailing_spaces_and_no_final_newline() {
        let text = "\r\n0,0, 1,1  \r\n\r\n   \r\n1,0, 0,1\t\r\n-1,-1";
        let b = parse(text, OpeningFormat::Offset, 15, Rule::Freestyle).unwrap();
        let lines: Vec<usize> = b.openings.iter().map(|o| o.line).collect();
        assert_eq!(lines, vec![2, 5, 6]);
        assert_eq!(b.openings[2].stones, vec![Pos::new(6, 6)]);
        let b = parse(
            "\u{feff}h8i9\r\n\r\nj10\r\n",
            OpeningFormat::Pos,
            15,
            Rule::Freestyle,
        )
        .unwrap();
        assert_eq!(b.openings.len(), 2);
        assert_eq!(b.openings[1].line, 3);
    }

    #[test]
    fn pos_lines() {
        let b = parse("h8i9j10\nH8 I9", OpeningFormat::Pos, 15, Rule::Freestyle).unwrap();
        assert_eq!(
            b.openings[0].stones,
            parse_pos_sequence("h8i9j10", sz(15)).unwrap()
        );
        assert_eq!(b.openings[1].stones, vec![Pos::new(7, 7), Pos::new(8, 8)]);
    }

    #[test]
    fn errors_name_file_line_and_text() {
        let (line, problem, msg) = line_err(
            "0,0\n\n0,0, 1;1\n",
            OpeningFormat::Offset,
            15,
            Rule::Freestyle,
        );
        assert_eq!(line, 3);
        assert_eq!(problem, LineProblem::UnexpectedChar { ch: ';', column: 7 });
        assert!(msg.starts_with("test.txt:3:"), "{msg}");
        assert!(msg.contains("\"0,0, 1;1\""), "{msg}");

        let (line, problem, _) = line_err15("0,0, 1", OpeningFormat::Offset);
        assert_eq!(
            (line, problem),
            (1, LineProblem::OddValueCount { count: 3 })
        );

        let (_, problem, _) = line_err15("0,0,, 1,1", OpeningFormat::Offset);
        assert_eq!(problem, LineProblem::EmptyValue { index: 3 });

        let (_, problem, _) = line_err15("0,0, 1-,1", OpeningFormat::Offset);
        assert_eq!(problem, LineProblem::BadNumber { token: "1-".into() });

        let (line, problem, msg) = line_err15("0,0\n0,0, -8,-6", OpeningFormat::Offset);
        assert_eq!(line, 2);
        assert_eq!(
            problem,
            LineProblem::OffBoard {
                stone: 2,
                text: "-8,-6".into(),
                size: 15
            }
        );
        assert!(msg.contains("off the 15x15 board"), "{msg}");
        // The same stone is fine on 20x20.
        assert!(parse("0,0, -8,-6", OpeningFormat::Offset, 20, Rule::Freestyle).is_ok());

        let (_, problem, _) = line_err15("h8p1", OpeningFormat::Pos);
        assert_eq!(
            problem,
            LineProblem::OffBoard {
                stone: 2,
                text: "p1".into(),
                size: 15
            }
        );
        let (_, problem, _) = line_err15("h8i0", OpeningFormat::Pos);
        assert!(matches!(problem, LineProblem::OffBoard { stone: 2, .. }));
        let (_, problem, _) = line_err15("h8i", OpeningFormat::Pos);
        assert_eq!(problem, LineProblem::MissingRow { letter: 'i' });
        let (_, problem, _) = line_err15("h8,i9", OpeningFormat::Pos);
        assert_eq!(problem, LineProblem::UnexpectedChar { ch: ',', column: 3 });
        let (_, problem, _) = line_err15("h8i99999999999999999999", OpeningFormat::Pos);
        assert!(matches!(problem, LineProblem::OffBoard { stone: 2, .. }));
        // An offset file read as pos fails on the first line with a clear character complaint.
        let (_, problem, msg) = line_err15("0,0, 1,1", OpeningFormat::Pos);
        assert_eq!(problem, LineProblem::UnexpectedChar { ch: '0', column: 1 });
        assert!(
            msg.ends_with(
                "(this looks like offset notation: use type=offset, the default, in -openings)"
            ),
            "{msg}"
        );
        // And the other way round; on boards over 26 pos notation is no candidate.
        let (_, _, msg) = line_err15("h8i9", OpeningFormat::Offset);
        assert!(
            msg.ends_with("(this looks like pos notation: add type=pos to -openings)"),
            "{msg}"
        );
        let (_, _, msg) = line_err("h8i9", OpeningFormat::Offset, 27, Rule::Freestyle);
        assert!(!msg.contains("looks like"), "{msg}");
    }

    #[test]
    fn duplicate_stones_are_rejected() {
        let (line, problem, msg) = line_err15("h8i9\nh8i9j10i9", OpeningFormat::Pos);
        assert_eq!(line, 2);
        assert_eq!(
            problem,
            LineProblem::Duplicate {
                stone: 4,
                text: "i9".into(),
                first: 2
            }
        );
        assert!(msg.contains("repeats stone 2"), "{msg}");
    }

    #[test]
    fn fives_are_rejected_under_the_rule() {
        // Black h8..l8 is a five in row 8; white plays on row 1 in between.
        let five = "h8a1i8b1j8c1k8d1l8";
        let (line, problem, _) = line_err15(five, OpeningFormat::Pos);
        assert_eq!(line, 1);
        assert_eq!(
            problem,
            LineProblem::Five {
                stone: 9,
                text: "l8".into(),
                color: Color::Black,
                rule: Rule::Freestyle
            }
        );
        // Four black stones are fine.
        assert!(parse("h8a1i8b1j8c1k8", OpeningFormat::Pos, 15, Rule::Freestyle).is_ok());
        // A black six is a win in freestyle but not under exact-five.
        let six = "c8a1d8b1e8c1g8d1h8a3f8";
        assert!(matches!(
            line_err15(six, OpeningFormat::Pos).1,
            LineProblem::Five { stone: 11, .. }
        ));
        assert!(parse(six, OpeningFormat::Pos, 15, Rule::ExactFive).is_ok());
        // White fives count too.
        let white = "a1h8a3i8a5j8a7k8a9l8";
        assert!(matches!(
            line_err(white, OpeningFormat::Pos, 15, Rule::Renju).1,
            LineProblem::Five {
                stone: 10,
                color: Color::White,
                ..
            }
        ));
    }

    #[test]

    fn renju_forbidden_black_stone_is_rejected() {
        // Black g8 h8 | i9 i10, then i8 makes two open threes (row 8: g8 h8 i8; column i: i8 i9 i10)
        // with every neighbouring point empty: a plain double-three. White sits far away on column a.
        let text = "g8a1h8a3i9a5i10a7i8";
        // Freestyle accepts it; renju must not.
        assert!(parse(text, OpeningFormat::Pos, 15, Rule::Freestyle).is_ok());
        let (line, problem, msg) = line_err(text, OpeningFormat::Pos, 15, Rule::Renju);
        assert_eq!(line, 1);
        assert_eq!(
            problem,
            LineProblem::Forbidden {
                stone: 9,
                text: "i8".into(),
                kind: ForbiddenKind::DoubleThree
            }
        );
        assert!(msg.contains("forbidden"), "{msg}");
    }

    #[test]
    fn empty_files_are_errors() {
        for text in ["", "\r\n  \r\n", "\n\n"] {
            let e = parse(text, OpeningFormat::Offset, 15, Rule::Freestyle).unwrap_err();
            assert!(matches!(e, OpeningError::Empty { .. }), "{e:?}");
            assert!(e.to_string().contains("test.txt"), "{e}");
        }
    }

    #[test]
    fn pos_format_needs_a_board_of_at_most_26() {
        let e = parse("a1", OpeningFormat::Pos, 27, Rule::Freestyle).unwrap_err();
        assert!(matches!(e, OpeningError::Notation { .. }), "{e:?}");
        assert!(parse("0,0", OpeningFormat::Offset, 27, Rule::Freestyle).is_ok());
    }

    #[test]
    fn load_reports_missing_files_with_their_path() {
        let e = OpeningBook::load(
            "/nonexistent/openings.txt",
            OpeningFormat::Offset,
            sz(15),
            Rule::Freestyle,
        )
        .unwrap_err();
        assert!(e.to_string().contains("/nonexistent/openings.txt"), "{e}");
    }

    #[test]
    fn load_reads_a_file_and_keeps_its_path_in_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("o.txt");
        std::fs::write(&path, b"0,0, 1,1\r\n\r\n0,0, 0,0").unwrap();
        let e =
            OpeningBook::load(&path, OpeningFormat::Offset, sz(15), Rule::Freestyle).unwrap_err();
        assert_eq!(e.line(), Some(3));
        assert!(e.to_string().contains(&path.display().to_string()), "{e}");
        std::fs::write(&path, b"0,0, 1,1\xff\r\n").unwrap();
        let e =
            OpeningBook::load(&path, OpeningFormat::Offset, sz(15), Rule::Freestyle).unwrap_err();
        assert_eq!(e.line(), Some(1));
        std::fs::write(&path, b"0,0, 1,1\r\n2,2").unwrap();
        let b = OpeningBook::load(&path, OpeningFormat::Offset, sz(15), Rule::Freestyle).unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(b.source, path);
    }

    #[test]
    fn a_psq_record_is_one_opening_of_its_first_stones() {
        let text = "Piskvorky 15x15, 7:7, 0\n8,8,100\n9,9,200\n\n8,9,300\nscout\nrandom\n0\n";
        let psq = |moves| OpeningFormat::Psq { moves };
        let b = parse(text, psq(None), 15, Rule::Freestyle).unwrap();
        assert_eq!(b.len(), 1);
        let all = parse_pos_sequence("h8i9h9", sz(15)).unwrap();
        assert_eq!(b.openings[0].stones, all);
        // The opening's line is the line of its last stone.
        assert_eq!(b.openings[0].line, 5);
        let b = parse(text, psq(Some(2)), 15, Rule::Freestyle).unwrap();
        assert_eq!(b.openings[0].stones, all[..2]);
        assert_eq!(b.openings[0].line, 3);
        let e = parse(text, psq(Some(4)), 15, Rule::Freestyle).unwrap_err();
        assert_eq!(
            e.to_string(),
            "test.txt: the record has 3 stones; moves=4 asks for more"
        );
        let e = parse(text, psq(None), 20, Rule::Freestyle).unwrap_err();
        assert_eq!(
            e.to_string(),
            "test.txt:1: a 15x15 record, but the board is 20x20 (-boardsize): \"Piskvorky 15x15, 7:7, 0\""
        );
        let e = parse(
            "Piskvorky 15x15, 7:7, 0\n0\n",
            psq(None),
            15,
            Rule::Freestyle,
        );
        assert!(matches!(e, Err(OpeningError::Empty { .. })));
        assert_eq!(psq(Some(8)).to_string(), "psq moves=8");
        assert_eq!("psq".parse::<OpeningFormat>().unwrap(), psq(None));
    }

    #[test]
    fn psq_errors_name_the_record_line() {
        let psq = OpeningFormat::Psq { moves: None };
        let e = parse(
            "Piskvorky 15x15, 7:7, 0\n8,8,0\n9,x,0\n",
            psq,
            15,
            Rule::Freestyle,
        )
        .unwrap_err();
        assert_eq!(e.line(), Some(3));
        assert!(matches!(
            e.problem(),
            Some(LineProblem::Psq(PsqProblem::BadMove { .. }))
        ));
        assert!(
            e.to_string().starts_with("test.txt:3: bad move line"),
            "{e}"
        );
        // A finished game's record ends with a five: refused at the line of the winning stone.
        let mut five = String::from("Piskvorky 15x15, 7:7, 0\n");
        for x in 1..=5 {
            five += &format!("{x},1,0\n");
            if x < 5 {
                five += &format!("{x},15,0\n");
            }
        }
        let e = parse(&five, psq, 15, Rule::Freestyle).unwrap_err();
        assert_eq!(e.line(), Some(10));
        assert!(
            matches!(e.problem(), Some(LineProblem::Five { stone: 9, .. })),
            "{e}"
        );
        assert!(e.to_string().ends_with(": \"5,1,0\""), "{e}");
        let psq8 = OpeningFormat::Psq { moves: Some(8) };
        assert!(parse(&five, psq8, 15, Rule::Freestyle).is_ok());
        // The same file read as offsets suggests type=psq.
        let (line, _, msg) = line_err15(&five, OpeningFormat::Offset);
        assert_eq!(line, 1);
        assert!(msg.contains("use type=psq"), "{msg}");
    }

    #[test]
    fn rendering_round_trips() {
        let s = sz(15);
        let o = Opening {
            line: 1,
            stones: parse_pos_sequence("h8i9j10a1o15", s).unwrap(),
        };
        assert_eq!(o.to_pos_line(s).unwrap(), "h8i9j10a1o15");
        assert_eq!(o.to_offset_line(s), "0,0, 1,1, 2,2, -7,-7, 7,7");
        let psq = OpeningFormat::Psq { moves: None };
        for format in [OpeningFormat::Offset, OpeningFormat::Pos, psq] {
            for n in [15u32, 20, 26] {
                let size = sz(n);
                let stones: Vec<Pos> = vec![
                    Pos::new(0, 0),
                    Pos::new(n as u8 - 1, 0),
                    Pos::new(3, n as u8 - 1),
                    Pos::new(n as u8 / 2, n as u8 / 2),
                ];
                let o = Opening { line: 1, stones };
                let line = o.to_line(format, size).unwrap();
                let b = OpeningBook::parse_str(&line, "rt", format, size, Rule::Freestyle).unwrap();
                assert_eq!(b.openings[0].stones, o.stones, "{format} {n}: {line}");
            }
        }
    }

    #[test]
    fn position_key_ignores_symmetry_and_order_but_not_colour() {
        let s = sz(15);
        let a = parse_pos_sequence("h8i9j10k11", s).unwrap();
        let b = parse_pos_sequence("j10k11h8i9", s).unwrap(); // same stones, same colours
        let c = parse_pos_sequence("i9h8k11j10", s).unwrap(); // colours swapped
        assert_eq!(position_key(&a, s), position_key(&b, s));
        assert_ne!(position_key(&a, s), position_key(&c, s));
        for sym in Symmetry::ALL {
            assert_eq!(position_key(&sym.apply_all(&a, s), s), position_key(&a, s));
        }
        let book = parse(
            "h8i9j10k11\nj10k11h8i9\ni9h8k11j10",
            OpeningFormat::Pos,
            15,
            Rule::Freestyle,
        )
        .unwrap();
        assert_eq!(book.duplicates(), vec![(1, 0)]);
    }

    #[test]
    fn sequential_order_walks_the_file_and_cycles_symmetries() {
        let seq = OpeningSequence::new(3, OpeningOrder::Sequential, true);
        let got: Vec<(usize, Symmetry)> = (0..7).map(|k| seq.draw(k)).collect();
        assert_eq!(
            got,
            vec![
                (0, Symmetry::Identity),
                (1, Symmetry::Identity),
                (2, Symmetry::Identity),
                (0, Symmetry::Rot90),
                (1, Symmetry::Rot90),
                (2, Symmetry::Rot90),
                (0, Symmetry::Rot180),
            ]
        );
        // Pass 8 comes back to identity; pass 7 is the last symmetry.
        assert_eq!(seq.draw(3 * 7), (0, Symmetry::FlipYX));
        assert_eq!(seq.draw(3 * 8 + 2), (2, Symmetry::Identity));
        let plain = OpeningSequence::new(3, OpeningOrder::Sequential, false);
        assert_eq!(plain.draw(3 * 5 + 1), (1, Symmetry::Identity));
    }

    #[test]
    fn random_order_is_a_fresh_permutation_per_pass_and_reproducible() {
        let n = 50;
        let seq = OpeningSequence::new(n, OpeningOrder::Random { seed: 7 }, true);
        let mut passes = Vec::new();
        for pass in 0..4u64 {
            let mut idx: Vec<usize> = (0..n as u64)
                .map(|i| seq.draw(pass * n as u64 + i).0)
                .collect();
            passes.push(idx.clone());
            assert_eq!(seq.draw(pass * n as u64).1, Symmetry::ALL[pass as usize]);
            idx.sort();
            assert_eq!(
                idx,
                (0..n).collect::<Vec<_>>(),
                "pass {pass} is a permutation"
            );
        }
        assert_ne!(passes[0], passes[1]);
        assert_ne!(passes[0], (0..n).collect::<Vec<_>>());
        // Random access in any order agrees with walking forwards, and another instance agrees.
        let other = OpeningSequence::new(n, OpeningOrder::Random { seed: 7 }, true);
        for k in [170u64, 3, 120, 49, 50, 0, 199] {
            let pass = (k / n as u64) as usize;
            assert_eq!(other.draw(k).0, passes[pass][(k % n as u64) as usize]);
        }
        assert_eq!(other.pass_order(2), passes[2]);
        // A different seed gives a different order.
        let third = OpeningSequence::new(n, OpeningOrder::Random { seed: 8 }, true);
        assert_ne!(third.pass_order(0), passes[0]);
    }

    #[test]
    fn random_order_is_pinned_across_versions() {
        // Recorded once; if this changes, runs with a given srand no longer replay the same games.
        let seq = OpeningSequence::new(10, OpeningOrder::Random { seed: 12345 }, false);
        assert_eq!(seq.pass_order(0), PINNED_PASS0);
        assert_eq!(seq.pass_order(1), PINNED_PASS1);
    }

    const PINNED_PASS0: [usize; 10] = [3, 5, 7, 8, 0, 1, 2, 4, 6, 9];
    const PINNED_PASS1: [usize; 10] = [3, 7, 8, 4, 5, 9, 0, 1, 2, 6];

    #[test]
    fn single_opening_books_work() {
        let seq = OpeningSequence::new(1, OpeningOrder::Random { seed: 1 }, true);
        assert_eq!(seq.draw(0), (0, Symmetry::Identity));
        assert_eq!(seq.draw(9), (0, Symmetry::Rot90));
    }

    #[test]
    fn fresh_seeds_are_nonzero_and_vary() {
        let a = fresh_seed();
        let b = fresh_seed();
        assert_ne!(a, 0);
        assert_ne!(b, 0);
        // RandomState keys differ per instance, so two calls differ (2^-64 chance of a false alarm).
        assert_ne!(a, b);
    }

    #[test]
    fn format_names_parse() {
        assert_eq!(
            "offset".parse::<OpeningFormat>().unwrap(),
            OpeningFormat::Offset
        );
        assert_eq!("pos".parse::<OpeningFormat>().unwrap(), OpeningFormat::Pos);
        assert!("renju".parse::<OpeningFormat>().is_err());
    }

    #[test]
    fn book_accessors_apply_symmetry() {
        let b = parse("h8i9", OpeningFormat::Pos, 15, Rule::Freestyle).unwrap();
        assert_eq!(
            b.stones(0, Symmetry::FlipY).unwrap(),
            vec![Pos::new(7, 7), Pos::new(6, 8)]
        );
        assert!(b.stones(1, Symmetry::Identity).is_none());
        let seq = b.sequence(OpeningOrder::Sequential, false);
        assert_eq!(seq.book_len(), 1);
    }
}
