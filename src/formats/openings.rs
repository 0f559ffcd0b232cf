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

use thiserror::Error;

pub mod order;

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

#[cfg(test)]
mod tests;
