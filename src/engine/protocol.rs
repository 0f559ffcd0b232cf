//! The pbrain (Gomocup) protocol as pure text: encoding manager commands and tolerantly parsing
//! what engines print, including the ABOUT answer. No I/O here, so every quirk is unit-tested.

use std::fmt;

use crate::core::board::Pos;
use crate::core::swap::{Answer, Swap2Form};

/// Manager lines end with CR LF: the official judge insists on it and engines written for it
/// may rely on it.
pub const EOL: &str = "\r\n";

/// The time_left value that means "no match limit".
pub const UNLIMITED_TIME_LEFT_MS: u64 = 2_147_483_647;

/// A command from the manager to an engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `START n`: a new square board.
    Start(u8),
    /// `RESTART`: a new game in the same process.
    Restart,
    /// `INFO key value`: never answered.
    Info { key: String, value: String },
    /// `BEGIN`: move first on an empty board.
    Begin,
    /// `TURN x,y`: the opponent played here; answer a move.
    Turn(Pos),
    /// `BOARD`, one `x,y,f` line per stone in play order, `DONE`.
    Board(Vec<(Pos, Field)>),
    /// `TAKEBACK x,y`: undo the last move, the stone on this point; answered `OK`.
    Takeback(Pos),
    /// `PLAY x,y`: the answer to an engine's `SUGGEST x,y`.
    Play(i64, i64),
    /// `END`: exit now.
    End,
    /// `ABOUT`: describe yourself on one line.
    About,
    /// `SWAP2BOARD`, one line per stone in play order, `DONE`: choose in a swap opening (see
    /// [`parse_swap_answer`]). The protocol page's lines are `x,y`; in [`Swap2Form::Board`]
    /// they are `x,y,c` as in `BOARD`, the engine taken as the side to move.
    Swap2Board { stones: Vec<Pos>, form: Swap2Form },
    /// `YXBOARD`, the stones as in `BOARD`, `DONE` (sets the position, no answer), then
    /// `YXNBEST n`: answer a move after a search for the `n` best (Yixin's extension, Rapfi's).
    NBest { stones: Vec<(Pos, Field)>, n: u32 },
}

/// The third number of a `BOARD` line: whose stone the point holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// 1: the engine's own stone.
    Own,
    /// 2: the opponent's stone.
    Opponent,
    /// 3: a stone of a winning line in Piskvork's continuous game (`INFO rule` bit 2), or a
    /// point forbidden by renju rules there. Only `check` sends it: a game never does.
    WinningLine,
}

impl Field {
    /// [`Own`](Field::Own) for the engine's stone, else [`Opponent`](Field::Opponent).
    pub fn of(own: bool) -> Field {
        if own {
            Field::Own
        } else {
            Field::Opponent
        }
    }

    /// The line's ending after `x,y`.
    fn suffix(self) -> &'static str {
        match self {
            Field::Own => ",1",
            Field::Opponent => ",2",
            Field::WinningLine => ",3",
        }
    }
}

impl Command {
    /// Shorthand for an INFO command.
    pub fn info(key: impl Into<String>, value: impl ToString) -> Command {
        Command::Info {
            key: key.into(),
            value: value.to_string(),
        }
    }

    /// The lines of this command without line ends (BOARD spans several lines): the
    /// [`encode`](Self::encode)d bytes split at CR LF, so the log and the error texts show
    /// exactly what is sent.
    pub fn lines(&self) -> Vec<String> {
        self.encode()
            .split_terminator(EOL)
            .map(str::to_string)
            .collect()
    }

    /// The bytes to write: every line followed by CR LF.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        self.encode_into(&mut out);
        out
    }

    /// Appends [`encode`](Self::encode)'s bytes to `out`: the one place a command's text is
    /// written. A move request is encoded on every move, so numbers are written by hand, with
    /// no line vector and no formatting machinery.
    pub fn encode_into(&self, out: &mut String) {
        match self {
            Command::Start(n) => {
                out.push_str("START ");
                push_int(out, i64::from(*n));
            }
            Command::Restart => out.push_str("RESTART"),
            Command::Info { key, value } => {
                for part in ["INFO ", key, " ", value] {
                    out.push_str(part);
                }
            }
            Command::Begin => out.push_str("BEGIN"),
            Command::Turn(p) => {
                out.push_str("TURN ");
                push_pos(out, *p);
            }
            Command::Board(stones) => push_board(out, "BOARD", stones),
            Command::NBest { stones, n } => {
                push_board(out, "YXBOARD", stones);
                out.push_str(EOL);
                out.push_str("YXNBEST ");
                push_int(out, i64::from(*n));
            }
            Command::Takeback(p) => {
                out.push_str("TAKEBACK ");
                push_pos(out, *p);
            }
            Command::Play(x, y) => {
                out.push_str("PLAY ");
                push_xy(out, *x, *y);
            }
            Command::End => out.push_str("END"),
            Command::About => out.push_str("ABOUT"),
            Command::Swap2Board { stones, form } => {
                out.push_str("SWAP2BOARD");
                out.push_str(EOL);
                // The side to move after the stones: its stones are the engine's own (1).
                let to_move = stones.len() % 2;
                for (i, p) in stones.iter().enumerate() {
                    push_pos(out, *p);
                    if *form == Swap2Form::Board {
                        out.push_str(Field::of(i % 2 == to_move).suffix());
                    }
                    out.push_str(EOL);
                }
                out.push_str("DONE");
            }
        }
        // Every command's last line; the lines before it end where they are written.
        out.push_str(EOL);
    }
}

/// Appends `INFO time_left ms` as [`Command::info`] would encode it, without building the
/// command: it goes before every move request.
pub fn encode_time_left(out: &mut String, ms: u64) {
    out.push_str("INFO time_left ");
    push_int(out, i64::try_from(ms).unwrap_or(i64::MAX));
    out.push_str(EOL);
}

/// `head`, one `x,y,f` line per stone, then `DONE` without its line end.
fn push_board(out: &mut String, head: &str, stones: &[(Pos, Field)]) {
    out.push_str(head);
    out.push_str(EOL);
    for (p, field) in stones {
        push_pos(out, *p);
        out.push_str(field.suffix());
        out.push_str(EOL);
    }
    out.push_str("DONE");
}

/// Appends `x,y`.
fn push_pos(out: &mut String, p: Pos) {
    push_xy(out, i64::from(p.x), i64::from(p.y));
}

/// Appends `x,y`.
fn push_xy(out: &mut String, x: i64, y: i64) {
    push_int(out, x);
    out.push(',');
    push_int(out, y);
}

/// Appends the decimal digits of `n` to `out`.
pub fn push_int(out: &mut String, n: i64) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// One non-empty line from an engine, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineLine {
    /// `x,y`: a move (coordinates unchecked; the referee judges them).
    Move(i64, i64),
    /// `SUGGEST x,y`.
    Suggest(i64, i64),
    /// `MESSAGE text`: for the user, recorded.
    Message(String),
    /// `DEBUG text`: for the engine's author, only logged.
    Debug(String),
    /// `INFO key value` from the engine: search output (`INFO PV …` blocks), never an answer.
    Info(String),
    /// `ERROR text`.
    Error(String),
    /// `UNKNOWN text`: the engine does not know the command.
    Unknown(String),
    /// `OK` (anything after it is ignored: some engines write `OK - ready`).
    Ok,
    /// Anything else, trimmed. As an answer to a move request it is an unparsable move.
    Unrecognised(String),
}

impl fmt::Display for EngineLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineLine::Move(x, y) => write!(f, "{x},{y}"),
            EngineLine::Suggest(x, y) => write!(f, "SUGGEST {x},{y}"),
            EngineLine::Message(t) => write!(f, "MESSAGE {t}"),
            EngineLine::Debug(t) => write!(f, "DEBUG {t}"),
            EngineLine::Info(t) => write!(f, "INFO {t}"),
            EngineLine::Error(t) => write!(f, "ERROR {t}"),
            EngineLine::Unknown(t) => write!(f, "UNKNOWN {t}"),
            EngineLine::Ok => f.write_str("OK"),
            EngineLine::Unrecognised(t) => f.write_str(t),
        }
    }
}

/// Classifies one line. Line ends (CR, LF) and surrounding whitespace are ignored; an empty line
/// gives `None`, as the protocol says the manager ignores it. Keywords are matched without regard
/// to case and must stand alone as a word (`MESSAGEx` is not a message).
pub fn parse_engine_line(line: &str) -> Option<EngineLine> {
    let line = line.trim_matches(|c: char| c.is_whitespace());
    if line.is_empty() {
        return None;
    }
    if let Some((x, y)) = parse_coords(line) {
        return Some(EngineLine::Move(x, y));
    }
    let (word, rest) = match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], line[i..].trim_start()),
        None => (line, ""),
    };
    let text = || rest.to_string();
    // Compared in place: this runs on every line an engine prints.
    let is = |keyword: &str| word.eq_ignore_ascii_case(keyword);
    let parsed = if is("MESSAGE") {
        EngineLine::Message(text())
    } else if is("INFO") {
        EngineLine::Info(text())
    } else if is("DEBUG") {
        EngineLine::Debug(text())
    } else if is("ERROR") {
        EngineLine::Error(text())
    } else if is("UNKNOWN") {
        EngineLine::Unknown(text())
    } else if is("OK") {
        EngineLine::Ok
    } else if is("SUGGEST") {
        match parse_coords(rest) {
            Some((x, y)) => EngineLine::Suggest(x, y),
            None => EngineLine::Unrecognised(line.to_string()),
        }
    } else {
        EngineLine::Unrecognised(line.to_string())
    };
    Some(parsed)
}

/// Parses `x,y` with optional whitespace around either number. Signs are accepted so that a
/// negative coordinate reaches the referee as an off-board move rather than as garbage.
pub fn parse_coords(text: &str) -> Option<(i64, i64)> {
    // The first comma, found byte by byte: a move's answer is a few bytes, read twice a move.
    let comma = text.bytes().position(|b| b == b',')?;
    Some((parse_int(&text[..comma])?, parse_int(&text[comma + 1..])?))
}

fn parse_int(text: &str) -> Option<i64> {
    // One pass over the digits (four times a move): an optional sign, then ASCII digits only,
    // and `None` past the range of i64, as `str::parse` would say. ASCII text is trimmed of what
    // `str::trim` takes off it (vertical tab included), without decoding characters.
    let t = if text.is_ascii() {
        let space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r');
        let b = text.as_bytes();
        let start = b.iter().position(|c| !space(c)).unwrap_or(b.len());
        let end = b.iter().rposition(|c| !space(c)).map_or(start, |e| e + 1);
        &b[start..end]
    } else {
        text.trim().as_bytes()
    };
    let (negative, digits) = match t.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, t),
    };
    if digits.is_empty() {
        return None;
    }
    let mut n: i64 = 0;
    for &b in digits {
        let d = i64::from(b.wrapping_sub(b'0'));
        if d > 9 {
            return None;
        }
        // Accumulated on the sign's side, so that i64::MIN is reached without overflow.
        n = n.checked_mul(10)?;
        n = if negative {
            n.checked_sub(d)?
        } else {
            n.checked_add(d)?
        };
    }
    Some(n)
}

/// Reads an engine's answer line to `SWAP2BOARD`: `SWAP` (any case), or one to three points
/// `x,y` separated by spaces (spaces around the commas tolerated, as for moves); `UNKNOWN` and
/// `ERROR` lines say the engine does not support the command. Points stay unchecked: the
/// referee judges them (off the board, occupied).
pub fn parse_swap_answer(line: &str) -> Answer {
    let line = line.trim();
    if line.eq_ignore_ascii_case("SWAP") {
        return Answer::Swap;
    }
    if let Some(EngineLine::Unknown(_) | EngineLine::Error(_)) = parse_engine_line(line) {
        return Answer::Unsupported;
    }
    // `7 , 7  8,8` → `7,7 8,8`: spaces next to a comma belong to the point.
    let mut joined = String::with_capacity(line.len());
    for part in line.split(',') {
        if !joined.is_empty() {
            joined.truncate(joined.trim_end().len());
            joined.push(',');
        }
        joined.push_str(if joined.is_empty() {
            part
        } else {
            part.trim_start()
        });
    }
    let points: Option<Vec<(i64, i64)>> = joined.split_whitespace().map(parse_coords).collect();
    match points {
        Some(p) if (1..=3).contains(&p.len()) => Answer::Stones(p),
        _ => Answer::Unparsable,
    }
}

/// An engine's ABOUT answer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct About {
    /// The `key="value"` pairs in order; keys lower-cased.
    pub fields: Vec<(String, String)>,
    /// The whole line, trimmed.
    pub raw: String,
}

impl About {
    /// The value of one key (case-insensitive).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    /// The engine's name: the `name` field, or the whole line for old engines that answer free
    /// text, or `None` when the line is empty.
    pub fn name(&self) -> Option<&str> {
        match self.get("name") {
            Some(n) if !n.trim().is_empty() => Some(n.trim()),
            _ if self.fields.is_empty() && !self.raw.is_empty() => Some(&self.raw),
            _ => None,
        }
    }

    pub fn version(&self) -> Option<&str> {
        self.get("version")
    }

    pub fn author(&self) -> Option<&str> {
        self.get("author")
    }

    pub fn country(&self) -> Option<&str> {
        self.get("country")
    }
}

/// Parses `name="Foo", version="1.0", …`. Values may also be unquoted (up to the next comma);
/// their control characters are escaped ([`printable`]), the raw line kept as it was.
/// Parsing stops at the first malformed part and keeps the fields read so far; a line without
/// any `key=` is free text (see [`About::name`]).
pub fn parse_about(line: &str) -> About {
    let raw = line.trim().to_string();
    let mut fields = Vec::new();
    let mut rest = raw.as_str();
    loop {
        rest = rest.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
        if rest.is_empty() {
            break;
        }
        let Some(eq) = rest.find('=') else { break };
        let key = rest[..eq].trim();
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            break;
        }
        let after = rest[eq + 1..].trim_start();
        let (value, remaining) = if let Some(quoted) = after.strip_prefix('"') {
            match quoted.find('"') {
                Some(end) => (&quoted[..end], &quoted[end + 1..]),
                // An unterminated quote takes the rest of the line.
                None => (quoted, ""),
            }
        } else {
            match after.find(',') {
                Some(end) => (after[..end].trim_end(), &after[end..]),
                None => (after.trim_end(), ""),
            }
        };
        fields.push((key.to_ascii_lowercase(), printable(value.to_string())));
        rest = remaining;
    }
    About { fields, raw }
}

/// Most characters of an engine's answer kept where the records quote it (an unparsable move,
/// a refused START, a swap answer): the protocol lets an engine print lines of any length (the
/// reader keeps up to 16 MiB), and every journal line, PGN, SGF and report would otherwise carry
/// such a line whole, twice per game in the journal.
pub const QUOTED_ANSWER_CHARS: usize = 200;

/// Most characters of an engine name taken from an `ABOUT` answer: it heads every results table,
/// record and console line.
pub const ABOUT_NAME_CHARS: usize = 64;

/// `text` with at most `max` characters, made [`printable`]: longer texts keep their first
/// `max` and end with `…`, so a reader sees it was cut. A short printable text is returned as it
/// is (no copy: this is on every move's path).
pub fn cut_text(mut text: String, max: usize) -> String {
    if text.len() > max {
        if let Some((end, _)) = text.char_indices().nth(max) {
            text.truncate(end);
            text.push('…');
        }
    }
    printable(text)
}

/// `text` with each control character (NUL, ESC, line ends, tabs, DEL, the C1 range) written
/// as its escape (`\0` as `\u{0}`, ESC as `\u{1b}`, a tab as `\t`). Engine-supplied text (its
/// `ABOUT` fields, `MESSAGE` lines, answers quoted in reasons) goes into PGN tags, SGF
/// properties, the messages file, `.psq` names, the report and the console: there a NUL cuts a
/// C reader's string, a line end breaks a one-line format and an escape sequence rewrites the
/// terminal. Returned as it is when it holds none.
pub fn printable(text: String) -> String {
    if !text.chars().any(char::is_control) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: u8, y: u8) -> Pos {
        Pos::new(x, y)
    }

    #[test]
    fn control_characters_in_engine_texts_are_escaped() {
        assert_eq!(printable("plain é".into()), "plain é");
        assert_eq!(
            printable("a\0b\x07c\x1b[31md\te\r\nf\x7f\u{85}".into()),
            "a\\u{0}b\\u{7}c\\u{1b}[31md\\te\\r\\nf\\u{7f}\\u{85}"
        );
        assert_eq!(cut_text("ab\0cdef".into(), 3), "ab\\u{0}…");
        let about = parse_about("name=\"x\0y\", version=\"1\x1b\"");
        assert_eq!(about.name(), Some("x\\u{0}y"));
        assert_eq!(about.version(), Some("1\\u{1b}"));
        assert_eq!(
            about.raw, "name=\"x\0y\", version=\"1\x1b\"",
            "kept as read"
        );
    }

    #[test]
    fn long_engine_texts_are_cut_on_a_character_boundary() {
        let cut = |t: &str, max| cut_text(t.to_string(), max);
        assert_eq!(cut("hello", 5), "hello");
        assert_eq!(cut("hello!", 5), "hello…");
        assert_eq!(cut("", 0), "");
        // Five bytes but three characters: nothing to cut.
        assert_eq!(cut("ééx", 3), "ééx");
        assert_eq!(cut("éééé", 2), "éé…");
        let huge = "x".repeat(1 << 20);
        assert_eq!(
            cut(&huge, QUOTED_ANSWER_CHARS).chars().count(),
            QUOTED_ANSWER_CHARS + 1
        );
    }

    #[test]
    fn numbers_written_by_hand_and_lines_split_from_the_bytes() {
        for (x, y) in [(-3, 1_000_000_007), (i64::MIN, 0), (0, i64::MAX)] {
            assert_eq!(Command::Play(x, y).encode(), format!("PLAY {x},{y}\r\n"));
        }
        assert_eq!(Command::Turn(p(0, 31)).encode(), "TURN 0,31\r\n");
        for ms in [0, 7, 1_000, UNLIMITED_TIME_LEFT_MS] {
            let mut out = String::from("x");
            encode_time_left(&mut out, ms);
            assert_eq!(out, format!("x{}", Command::info("time_left", ms).encode()));
        }
        let board = Command::Board(vec![
            (p(7, 7), Field::Own),
            (p(12, 0), Field::Opponent),
            (p(3, 3), Field::WinningLine),
        ]);
        assert_eq!(board.lines(), ["BOARD", "7,7,1", "12,0,2", "3,3,3", "DONE"]);
        let nbest = Command::NBest {
            stones: vec![(p(1, 2), Field::Own)],
            n: 2,
        };
        assert_eq!(nbest.lines(), ["YXBOARD", "1,2,1", "DONE", "YXNBEST 2"]);
        assert_eq!(Command::Start(20).lines(), ["START 20"]);
        let mut out = String::new();
        for n in [0, 9, 10, -1, i64::MAX, i64::MIN] {
            out.clear();
            push_int(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }

    /// What `parse_int` accepts, said the slow way: trimmed, an optional sign, ASCII digits,
    /// within i64.
    fn parse_int_reference(text: &str) -> Option<i64> {
        let t = text.trim();
        let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        t.parse().ok()
    }

    #[test]
    fn integers_are_read_as_the_standard_parse_reads_them() {
        for text in [
            "0",
            "7",
            " 12 ",
            "-3",
            "+4",
            "-0",
            "",
            "-",
            "+",
            "--1",
            "+-1",
            "1-",
            "1 2",
            "x",
            "١",
            "٣",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "00000000000000000000007",
            "\u{a0}5\u{2003}",
            "\u{b}6\u{c}",
            "\u{1c}6",
            "\r\n-7\t",
        ] {
            assert_eq!(parse_int(text), parse_int_reference(text), "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn integers_anywhere_are_read_as_the_standard_parse_reads_them(
            text in "[ ,+\\-0-9a\t\n\r\u{b}\u{c}\u{1c}\u{a0}]{0,24}",
            n in proptest::num::i64::ANY,
        ) {
            proptest::prop_assert_eq!(parse_int(&text), parse_int_reference(&text));
            let coords = text.split_once(',').and_then(|(x, y)| {
                Some((parse_int_reference(x)?, parse_int_reference(y)?))
            });
            proptest::prop_assert_eq!(parse_coords(&text), coords);
            let padded = format!(" {n}\t");
            proptest::prop_assert_eq!(parse_int(&padded), Some(n));
            let mut out = String::new();
            push_int(&mut out, n);
            proptest::prop_assert_eq!(out, n.to_string());
        }

        /// The session takes a move's point from the line's one parse (`parse_engine_line`)
        /// instead of reading the trimmed answer again: both must name the same point for every
        /// line, keywords, Unicode spaces and line ends included.
        #[test]
        fn the_point_of_a_parsed_line_is_the_point_of_its_trimmed_text(
            text in "[ ,+\\-0-9OKSUGEMa\t\n\r\u{b}\u{c}\u{1c}\u{85}\u{a0}\u{2003}]{0,24}",
            line in "[ \t\u{a0}\u{2003}]{0,2}(OK |SUGGEST |MESSAGE |ok,)?[+\\-]?[0-9]{0,3}[ \t]?,[ \u{a0}]?[+\\-]?[0-9a]{0,3}[ \r\n\u{85}\u{2003}]{0,2}",
        ) {
            for text in [text, line] {
                let point = match parse_engine_line(&text) {
                    Some(EngineLine::Move(x, y)) => Some((x, y)),
                    _ => None,
                };
                proptest::prop_assert_eq!(point, parse_coords(text.trim()), "{:?}", text);
            }
        }
    }

    #[test]
    fn encodes_every_command_with_crlf() {
        assert_eq!(Command::Start(15).encode(), "START 15\r\n");
        assert_eq!(Command::Restart.encode(), "RESTART\r\n");
        assert_eq!(
            Command::info("timeout_turn", 5000).encode(),
            "INFO timeout_turn 5000\r\n"
        );
        assert_eq!(Command::Begin.encode(), "BEGIN\r\n");
        assert_eq!(Command::Turn(p(10, 3)).encode(), "TURN 10,3\r\n");
        assert_eq!(Command::Play(7, 8).encode(), "PLAY 7,8\r\n");
        assert_eq!(Command::End.encode(), "END\r\n");
        assert_eq!(Command::About.encode(), "ABOUT\r\n");
        assert_eq!(
            Command::Board(vec![
                (p(7, 7), Field::Own),
                (p(8, 7), Field::Opponent),
                (p(0, 31), Field::of(true))
            ])
            .encode(),
            "BOARD\r\n7,7,1\r\n8,7,2\r\n0,31,1\r\nDONE\r\n"
        );
        // The continuous game's winning-line value, as the protocol page writes it.
        assert_eq!(
            Command::Board(vec![
                (p(1, 2), Field::WinningLine),
                (p(5, 5), Field::of(false))
            ])
            .encode(),
            "BOARD\r\n1,2,3\r\n5,5,2\r\nDONE\r\n"
        );
        assert_eq!(Command::Takeback(p(9, 10)).encode(), "TAKEBACK 9,10\r\n");
        assert_eq!(Command::Board(vec![]).encode(), "BOARD\r\nDONE\r\n");
        let nbest = Command::NBest {
            stones: vec![(Pos::new(7, 7), Field::Opponent)],
            n: 3,
        };
        assert_eq!(nbest.encode(), "YXBOARD\r\n7,7,2\r\nDONE\r\nYXNBEST 3\r\n");
        assert_eq!(nbest.lines().join("\r\n") + "\r\n", nbest.encode());
        let swap2 = |stones: Vec<Pos>, form| Command::Swap2Board { stones, form }.encode();
        for form in [Swap2Form::Points, Swap2Form::Board] {
            assert_eq!(swap2(vec![], form), "SWAP2BOARD\r\nDONE\r\n");
        }
        let three = vec![p(7, 7), p(8, 7), p(9, 9)];
        assert_eq!(
            swap2(three.clone(), Swap2Form::Points),
            "SWAP2BOARD\r\n7,7\r\n8,7\r\n9,9\r\nDONE\r\n"
        );
        // As the protocol page's BOARD example after three stones: white (to move) is own.
        assert_eq!(
            swap2(three, Swap2Form::Board),
            "SWAP2BOARD\r\n7,7,2\r\n8,7,1\r\n9,9,2\r\nDONE\r\n"
        );
        let five = vec![p(7, 7), p(8, 7), p(9, 9), p(8, 8), p(8, 6)];
        assert_eq!(
            swap2(five, Swap2Form::Board),
            "SWAP2BOARD\r\n7,7,2\r\n8,7,1\r\n9,9,2\r\n8,8,1\r\n8,6,2\r\nDONE\r\n"
        );
    }

    #[test]
    fn swap_answers_as_the_protocol_page_writes_them() {
        assert_eq!(parse_swap_answer("SWAP"), Answer::Swap);
        assert_eq!(parse_swap_answer(" swap \r\n"), Answer::Swap);
        assert_eq!(parse_swap_answer("8,8"), Answer::Stones(vec![(8, 8)]));
        assert_eq!(
            parse_swap_answer("8,8 8,6"),
            Answer::Stones(vec![(8, 8), (8, 6)])
        );
        assert_eq!(
            parse_swap_answer("7,7 8,7 9,9\r\n"),
            Answer::Stones(vec![(7, 7), (8, 7), (9, 9)])
        );
        assert_eq!(
            parse_swap_answer(" 7 , 7\t8,  7   -1,40 "),
            Answer::Stones(vec![(7, 7), (8, 7), (-1, 40)])
        );
        assert_eq!(
            parse_swap_answer("UNKNOWN command SWAP2BOARD"),
            Answer::Unsupported
        );
        assert_eq!(parse_swap_answer("error not here"), Answer::Unsupported);
        for bad in [
            "",
            "SWAPX",
            "SWAP 1,2",
            "1,2 3,4 5,6 7,8",
            "1,2,3",
            "1,2 x,3",
            "7 7",
            "hello",
            "1,2;3,4",
            "99999999999999999999,1",
            "MESSAGE 1,2",
        ] {
            assert_eq!(parse_swap_answer(bad), Answer::Unparsable, "{bad:?}");
        }
    }

    #[test]
    fn moves_tolerate_spaces_and_line_ends() {
        for line in [
            "7,8",
            "7,8 ",
            " 7,8",
            "7 , 8",
            "7,8\r\n",
            "7,8\r",
            "7,8\n",
            "\t7,\t8 \r\n",
        ] {
            assert_eq!(
                parse_engine_line(line),
                Some(EngineLine::Move(7, 8)),
                "{line:?}"
            );
        }
        assert_eq!(parse_engine_line("-1,40"), Some(EngineLine::Move(-1, 40)));
        assert_eq!(parse_engine_line("27,31"), Some(EngineLine::Move(27, 31)));
    }

    #[test]
    fn malformed_moves_are_unrecognised_text() {
        for line in [
            "7,8,1",
            "7;8",
            "7,",
            ",8",
            "a,b",
            "7.5,8",
            "99999999999999999999,1",
            "- 1,2",
            "hello world",
            "7 8",
        ] {
            assert_eq!(
                parse_engine_line(line),
                Some(EngineLine::Unrecognised(line.trim().to_string())),
                "{line:?}"
            );
        }
    }

    #[test]
    fn empty_lines_are_ignored() {
        for line in ["", " ", "\r", "\r\n", "\n", " \t \r\n"] {
            assert_eq!(parse_engine_line(line), None, "{line:?}");
        }
    }

    #[test]
    fn keyword_lines() {
        assert_eq!(
            parse_engine_line("MESSAGE I will  win \r\n"),
            Some(EngineLine::Message("I will  win".into()))
        );
        assert_eq!(
            parse_engine_line("MESSAGE"),
            Some(EngineLine::Message(String::new()))
        );
        assert_eq!(
            parse_engine_line("DEBUG depth 5 [10,14]"),
            Some(EngineLine::Debug("depth 5 [10,14]".into()))
        );
        assert_eq!(
            parse_engine_line("ERROR unsupported size"),
            Some(EngineLine::Error("unsupported size".into()))
        );
        assert_eq!(
            parse_engine_line("UNKNOWN command RESTART"),
            Some(EngineLine::Unknown("command RESTART".into()))
        );
        assert_eq!(parse_engine_line("OK"), Some(EngineLine::Ok));
        assert_eq!(parse_engine_line("OK - ready "), Some(EngineLine::Ok));
        assert_eq!(parse_engine_line("ok"), Some(EngineLine::Ok));
        assert_eq!(
            parse_engine_line("message hi"),
            Some(EngineLine::Message("hi".into()))
        );
        assert_eq!(
            parse_engine_line("SUGGEST 3,4"),
            Some(EngineLine::Suggest(3, 4))
        );
        assert_eq!(
            parse_engine_line("SUGGEST  3 , 4 \r"),
            Some(EngineLine::Suggest(3, 4))
        );
    }

    #[test]
    fn glued_or_broken_keywords_are_unrecognised() {
        for line in [
            "MESSAGEhello",
            "OKAY",
            "SUGGEST",
            "SUGGEST x,y",
            "SUGGEST 1,2,3",
        ] {
            assert_eq!(
                parse_engine_line(line),
                Some(EngineLine::Unrecognised(line.to_string())),
                "{line:?}"
            );
        }
    }

    #[test]
    fn display_reproduces_the_line() {
        for line in [
            "3,4",
            "SUGGEST 3,4",
            "MESSAGE a b",
            "DEBUG x",
            "ERROR e",
            "UNKNOWN u",
            "OK",
            "junk here",
        ] {
            assert_eq!(parse_engine_line(line).unwrap().to_string(), line);
        }
    }

    #[test]
    fn about_with_fields() {
        let a = parse_about(r#"name="SomeBrain", version="1.0", author="Nymand", country="USA""#);
        assert_eq!(a.name(), Some("SomeBrain"));
        assert_eq!(a.version(), Some("1.0"));
        assert_eq!(a.author(), Some("Nymand"));
        assert_eq!(a.country(), Some("USA"));
        assert_eq!(a.fields.len(), 4);
    }

    #[test]
    fn about_tolerates_spacing_case_commas_inside_quotes_and_unquoted_values() {
        let a = parse_about(r#" NAME = "Rapfi, the engine" ,version=2.1 ,  www="x=y" "#);
        assert_eq!(a.name(), Some("Rapfi, the engine"));
        assert_eq!(a.version(), Some("2.1"));
        assert_eq!(a.get("www"), Some("x=y"));
        let a = parse_about(r#"name="Unterminated"#);
        assert_eq!(a.name(), Some("Unterminated"));
    }

    #[test]
    fn about_free_text_is_the_name() {
        let a = parse_about("Pisq 5 by someone\r\n");
        assert!(a.fields.is_empty());
        assert_eq!(a.name(), Some("Pisq 5 by someone"));
        assert_eq!(parse_about("  ").name(), None);
    }

    #[test]
    fn about_without_name_field_has_no_name() {
        let a = parse_about(r#"version="1.0", author="X""#);
        assert_eq!(a.name(), None);
        assert_eq!(a.version(), Some("1.0"));
        let a = parse_about(r#"name="", version="1""#);
        assert_eq!(a.name(), None);
    }

    #[test]
    fn about_stops_at_malformed_part_keeping_earlier_fields() {
        let a = parse_about(r#"name="A", this is junk"#);
        assert_eq!(a.fields, vec![("name".to_string(), "A".to_string())]);
        assert_eq!(a.name(), Some("A"));
    }
}
