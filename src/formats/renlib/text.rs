//! Comments and board texts: kept as the exact bytes of the file (terminator and padding
//! included) so an untouched library writes back identically, decoded and edited in the
//! library's code page only where a merge adds lines.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use encoding_rs::Encoding;
use thiserror::Error;

/// Separates a comment's one-line title from its multi-line body.
pub const TITLE_END: u8 = 0x08;
/// Ends each line of a comment's body.
pub const LINE_END: &[u8] = b"\r\n";

/// The Windows code page comments and board texts are written in.
///
/// Only ASCII-compatible encodings are accepted: the title separator, line ends and the lines a
/// merge writes are ASCII, and they are found by their bytes without decoding the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodePage(&'static Encoding);

/// A code page name that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CodePageError {
    /// The name is not an encoding label `encoding_rs` knows.
    #[error("unknown encoding {0:?} (examples: windows-1252, gbk, big5, shift_jis, utf-8)")]
    Unknown(String),
    /// The encoding does not keep ASCII bytes as they are (UTF-16, ISO-2022-JP, ...).
    #[error("encoding {0} is not ASCII-compatible, RenLib texts cannot use it")]
    NotAsciiCompatible(&'static str),
}

impl CodePage {
    /// Western European, RenLib's own code page: every byte decodes and encodes back.
    pub const WINDOWS_1252: CodePage = CodePage(encoding_rs::WINDOWS_1252);

    /// The encoding's canonical name.
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// Decode text bytes; bytes the code page does not map become U+FFFD.
    pub fn decode(self, bytes: &[u8]) -> Cow<'_, str> {
        self.0.decode_without_bom_handling(bytes).0
    }

    /// Encode text; characters the code page lacks become `&#N;` (encoding_rs's fallback).
    pub fn encode(self, text: &str) -> Vec<u8> {
        self.0.encode(text).0.into_owned()
    }
}

impl Default for CodePage {
    fn default() -> Self {
        CodePage::WINDOWS_1252
    }
}

impl FromStr for CodePage {
    type Err = CodePageError;
    fn from_str(label: &str) -> Result<Self, Self::Err> {
        let enc = Encoding::for_label(label.trim().as_bytes())
            .ok_or_else(|| CodePageError::Unknown(label.to_string()))?;
        if enc.is_ascii_compatible() && enc.output_encoding() == enc {
            Ok(CodePage(enc))
        } else {
            Err(CodePageError::NotAsciiCompatible(enc.name()))
        }
    }
}

impl fmt::Display for CodePage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A text payload exactly as stored: content, terminator and padding, always an even length.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RawText(Vec<u8>);

impl RawText {
    /// Bytes read from a file (the reader checked the terminator).
    pub(crate) fn from_file(bytes: &[u8]) -> RawText {
        RawText(bytes.to_vec())
    }

    /// A new-style payload for `content`: NUL-terminated, padded with NUL to an even length, as
    /// RenLib writes. NUL bytes inside `content` would end the text early and are left out.
    pub fn new_style(content: &[u8]) -> RawText {
        let mut v: Vec<u8> = content.iter().copied().filter(|&b| b != 0).collect();
        v.push(0);
        if v.len() % 2 == 1 {
            v.push(0);
        }
        RawText(v)
    }

    /// [`RawText::new_style`] for content without NUL, terminated in place (no copy).
    fn terminated(mut content: Vec<u8>) -> RawText {
        if content.contains(&0) {
            return RawText::new_style(&content);
        }
        content.push(0);
        if content.len() % 2 == 1 {
            content.push(0);
        }
        RawText(content)
    }

    /// The bytes as written in the file.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// The text of a new-style payload: everything before the first NUL.
    pub fn content(&self) -> &[u8] {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(self.0.len());
        &self.0[..end]
    }

    /// The text of an old-style payload: 7-bit characters, the last one marked by bit 7.
    fn old_content(&self) -> Vec<u8> {
        let end = self
            .0
            .iter()
            .position(|&b| b & 0x80 != 0)
            .map_or(self.0.len(), |i| i + 1);
        self.0[..end].iter().map(|b| b & 0x7F).collect()
    }
}

/// Which comment flag bits a node carries; RenLib reads only the old-style payload when both are
/// set, and the bits are kept so the file writes back as it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommentStyle {
    /// Flag 0x08: NUL-terminated text.
    New,
    /// Flag 0x20: 7-bit text whose last character has bit 7 set (early RenLib versions).
    Old,
    /// Flags 0x20 and 0x08 together: read as old-style.
    OldAndNew,
}

impl CommentStyle {
    /// The flag bits of this style.
    pub fn flag_bits(self) -> u8 {
        match self {
            CommentStyle::New => 0x08,
            CommentStyle::Old => 0x20,
            CommentStyle::OldAndNew => 0x28,
        }
    }
}

/// A node's comment: one-line title, then optionally `0x08` and a body of CR LF separated lines.
///
/// Its style and payload are only ever paired by the reader or as a new-style text, so the flag
/// written always announces the payload that follows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Comment {
    style: CommentStyle,
    raw: RawText,
}

impl Comment {
    /// A comment as read from a file.
    pub(crate) fn from_file(style: CommentStyle, raw: RawText) -> Comment {
        Comment { style, raw }
    }

    pub fn style(&self) -> CommentStyle {
        self.style
    }

    /// The payload as written in the file.
    pub fn raw(&self) -> &RawText {
        &self.raw
    }

    /// A new-style comment with this content.
    pub fn new(content: &[u8]) -> Comment {
        Comment {
            style: CommentStyle::New,
            raw: RawText::new_style(content),
        }
    }

    /// A new-style comment taking `content` as it is (a NUL in it is left out).
    pub fn from_content(content: Vec<u8>) -> Comment {
        Comment {
            style: CommentStyle::New,
            raw: RawText::terminated(content),
        }
    }

    /// The comment's bytes without terminator or padding, old-style characters unmasked.
    pub fn content(&self) -> Cow<'_, [u8]> {
        match self.style {
            CommentStyle::New => Cow::Borrowed(self.raw.content()),
            CommentStyle::Old | CommentStyle::OldAndNew => Cow::Owned(self.raw.old_content()),
        }
    }

    /// The comment as lines: the title first, then the body's lines.
    pub fn lines(&self) -> CommentLines {
        CommentLines::parse(&self.content())
    }

    /// Decoded text, title and body lines joined by `sep` (an empty title before a body is
    /// left out).
    pub fn decoded(&self, page: CodePage, sep: &str) -> String {
        let lines = self.lines();
        let mut parts = Vec::new();
        if !lines.title.is_empty() || lines.body.is_none() {
            parts.push(page.decode(&lines.title).into_owned());
        }
        for l in lines.body.iter().flatten() {
            parts.push(page.decode(l).into_owned());
        }
        parts.join(sep)
    }
}

/// A comment split into its title and body lines, at the byte level (safe in every
/// ASCII-compatible code page: `0x08`, CR and LF are never part of a multi-byte character).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommentLines {
    pub title: Vec<u8>,
    /// `None` when the comment has no `0x08` (a title only).
    pub body: Option<Vec<Vec<u8>>>,
}

impl CommentLines {
    pub fn parse(content: &[u8]) -> CommentLines {
        match content.iter().position(|&b| b == TITLE_END) {
            None => CommentLines {
                title: content.to_vec(),
                body: None,
            },
            Some(i) => CommentLines {
                title: content[..i].to_vec(),
                body: Some(split_lines(&content[i + 1..])),
            },
        }
    }

    /// The content bytes; `parse(x).to_bytes() == x` for every `x`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = self.title.clone();
        if let Some(body) = &self.body {
            v.push(TITLE_END);
            for (i, l) in body.iter().enumerate() {
                if i > 0 {
                    v.extend_from_slice(LINE_END);
                }
                v.extend_from_slice(l);
            }
        }
        v
    }

    /// The body's lines (empty for a title-only comment).
    pub fn body_lines(&self) -> &[Vec<u8>] {
        self.body.as_deref().unwrap_or(&[])
    }

    /// Insert a body line at `index` (clamped), creating the body if there is none.
    pub fn insert(&mut self, index: usize, line: Vec<u8>) {
        let body = self.body.get_or_insert_with(Vec::new);
        body.insert(index.min(body.len()), line);
    }

    /// Where a line goes to be the last one: before a trailing empty line (a body ending in CR
    /// LF keeps that ending), else at the end.
    pub fn append_index(&self) -> usize {
        match self.body_lines() {
            [] => 0,
            [.., last] if last.is_empty() => self.body_lines().len() - 1,
            lines => lines.len(),
        }
    }
}

fn split_lines(body: &[u8]) -> Vec<Vec<u8>> {
    CrLfLines { rest: Some(body) }.map(<[u8]>::to_vec).collect()
}

/// The body lines of a comment's content, borrowed (none when it has no `0x08`): the walks over
/// every comment of a large library (game keys, statistics) copy nothing.
pub fn body_lines(content: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = content
        .iter()
        .position(|&b| b == TITLE_END)
        .map(|i| &content[i + 1..]);
    CrLfLines { rest: body }
}

/// Lines split at CR LF; the text after the last CR LF is a line too (possibly empty).
struct CrLfLines<'a> {
    rest: Option<&'a [u8]>,
}

impl<'a> Iterator for CrLfLines<'a> {
    type Item = &'a [u8];
    fn next(&mut self) -> Option<&'a [u8]> {
        let rest = self.rest?;
        match rest.windows(2).position(|w| w == LINE_END) {
            Some(i) => {
                self.rest = Some(&rest[i + 2..]);
                Some(&rest[..i])
            }
            None => {
                self.rest = None;
                Some(rest)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_style_payloads_are_terminated_and_even() {
        assert_eq!(RawText::new_style(b"abc").bytes(), b"abc\0");
        assert_eq!(RawText::new_style(b"ab").bytes(), b"ab\0\0");
        assert_eq!(RawText::new_style(b"").bytes(), b"\0\0");
        assert_eq!(RawText::new_style(b"a\0b").bytes(), b"ab\0\0");
        assert_eq!(RawText::from_file(b"ab\0X").content(), b"ab");
    }

    #[test]
    fn old_style_content_ends_at_the_high_bit() {
        let c = Comment {
            style: CommentStyle::Old,
            raw: RawText::from_file(&[b'h', b'i', b'!' | 0x80, b'x']),
        };
        assert_eq!(&*c.content(), b"hi!");
    }

    #[test]
    fn comment_lines_round_trip_any_bytes() {
        for content in [
            &b""[..],
            b"title",
            b"title\x08",
            b"t\x08a\r\nb",
            b"t\x08a\r\n",
            b"\x08\r\n\r\n",
            b"a\rb\nc\x08x\x08y\r",
        ] {
            assert_eq!(
                CommentLines::parse(content).to_bytes(),
                content,
                "{content:?}"
            );
        }
    }

    #[test]
    fn appending_keeps_a_trailing_line_end() {
        let mut l = CommentLines::parse(b"t\x08a\r\n");
        l.insert(l.append_index(), b"new".to_vec());
        assert_eq!(l.to_bytes(), b"t\x08a\r\nnew\r\n");
        let mut l = CommentLines::parse(b"t");
        l.insert(l.append_index(), b"new".to_vec());
        assert_eq!(l.to_bytes(), b"t\x08new");
    }

    #[test]
    fn borrowed_body_lines_agree_with_the_parsed_ones() {
        for content in [
            &b"t"[..],
            b"t\x08",
            b"t\x08a\r\n\r\nb",
            b"\x08a\r\n",
            b"\x08\r",
        ] {
            let parsed = CommentLines::parse(content);
            let borrowed: Vec<&[u8]> = body_lines(content).collect();
            let owned: Vec<&[u8]> = parsed.body_lines().iter().map(Vec::as_slice).collect();
            assert_eq!(borrowed, owned, "{content:?}");
        }
    }

    #[test]
    fn code_pages_by_label() {
        assert_eq!("gbk".parse::<CodePage>().unwrap().name(), "GBK");
        assert_eq!(CodePage::default().name(), "windows-1252");
        assert!(matches!(
            "utf-16le".parse::<CodePage>(),
            Err(CodePageError::NotAsciiCompatible(_))
        ));
        assert!(matches!(
            "klingon".parse::<CodePage>(),
            Err(CodePageError::Unknown(_))
        ));
        let gbk: CodePage = "gbk".parse().unwrap();
        assert_eq!(gbk.decode(&[0xc6, 0xe5]), "棋");
        assert_eq!(gbk.encode("棋"), vec![0xc6, 0xe5]);
    }
}
