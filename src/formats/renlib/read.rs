//! The reader: bytes of a `.lib` file → [`Library`], every flag, text and byte kept.
//!
//! Nodes come in preorder, two bytes each (point, flags), then the extension bytes (flag 0x01),
//! the comment (0x20 old style, else 0x08) and the board text (bit 0 of the second extension
//! byte). The structure comes from two flags: 0x40 "no child" and 0x80 "a sibling follows".
//! Nothing here allocates by a size read from the file: every buffer is bounded by the file's
//! length, and the tree is rebuilt with an explicit stack (no recursion on file depth).

use std::fmt;

use thiserror::Error;

use crate::formats::renlib::text::{CommentStyle, RawText};
use crate::formats::renlib::{
    Cell, Comment, Extension, Extra, Header, Library, Marks, NodeId, HEADER_LEN, MAGIC,
};

/// Flag 0x80: a sibling follows this node's subtree.
pub const HAS_SIBLING: u8 = 0x80;
/// Flag 0x40: the node has no child.
pub const IS_LEAF: u8 = 0x40;
/// Flag 0x20: an old-style comment follows.
pub const OLD_COMMENT: u8 = 0x20;
/// Flag 0x08: a comment follows.
pub const COMMENT: u8 = 0x08;
/// Flag 0x01: two extension bytes follow.
pub const EXTENSION: u8 = 0x01;

/// Largest file the arena's 32-bit links can index (two bytes a node at the least).
const MAX_FILE_LEN: usize = u32::MAX as usize;

/// What the reader was looking for where a file ended or went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// The 20-byte header.
    Header,
    /// The first node after the header.
    FirstNode,
    /// The first child of the node that starts at this offset (its "no child" flag is clear).
    FirstChild(usize),
    /// The next sibling of the node that starts at this offset (its "sibling" flag is set).
    Sibling(usize),
    /// The two extension bytes of the node at this offset.
    Extension(usize),
    /// The end (a NUL) of the comment of the node at this offset.
    CommentEnd(usize),
    /// The end (a byte with bit 7 set) of the old-style comment of the node at this offset.
    OldCommentEnd(usize),
    /// The end (a NUL) of the board text of the node at this offset.
    BoardTextEnd(usize),
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Header => write!(f, "the rest of the 20-byte header"),
            Expected::FirstNode => write!(f, "the first node (two bytes)"),
            Expected::FirstChild(at) => write!(f, "the first child of the node at offset {at}"),
            Expected::Sibling(at) => write!(f, "the next sibling of the node at offset {at}"),
            Expected::Extension(at) => {
                write!(f, "the two extension bytes of the node at offset {at}")
            }
            Expected::CommentEnd(at) => {
                write!(f, "a NUL ending the comment of the node at offset {at}")
            }
            Expected::OldCommentEnd(at) => write!(
                f,
                "a byte with bit 7 set ending the old-style comment of the node at offset {at}"
            ),
            Expected::BoardTextEnd(at) => {
                write!(f, "a NUL ending the board text of the node at offset {at}")
            }
        }
    }
}

/// Why bytes are not a library we can read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReadError {
    /// The file starts neither with RenLib's header nor with a headerless library's first move.
    #[error("offset 0: expected the RenLib header (FF \"RenLib\" FF) or a headerless library starting at h8 (78), found {found}")]
    NotALibrary { found: String },
    /// The header names a version newer than 3.4, the last layout RenLib defines.
    #[error("offset 8: version {major}.{minor} is not supported (expected 3.4 or older)")]
    UnsupportedVersion { major: u8, minor: u8 },
    /// The file ends where more bytes are needed.
    #[error("offset {offset}: the file ends; expected {expected}")]
    Truncated { offset: usize, expected: Expected },
    /// A node's point byte is neither `00` nor a point of the 15×15 board.
    #[error("offset {offset}: point byte {byte:#04x} is not on the 15x15 board (expected 00, or column 1..15 in the low nibble and row 0..14 in the high one)")]
    BadPoint { offset: usize, byte: u8 },
    /// The file is too large for the node arena's 32-bit links.
    #[error("the file has {len} bytes, more than the {MAX_FILE_LEN} a library may have")]
    TooLarge { len: usize },
}

/// Where the next node goes.
#[derive(Clone, Copy)]
enum Slot {
    FirstChildOf(NodeId, usize),
    SiblingOf(NodeId, usize),
}

/// Read a whole library.
pub fn read(bytes: &[u8]) -> Result<Library, ReadError> {
    if bytes.len() > MAX_FILE_LEN {
        return Err(ReadError::TooLarge { len: bytes.len() });
    }
    let header = read_header(bytes)?;
    let start = header.bytes().len();
    // A node takes two bytes at least: the arena never outgrows the file.
    let mut lib = Library::with_header(header, (bytes.len() - start) / 2 + 1);
    let mut cur = Cursor { bytes, at: start };
    let mut slot = Slot::FirstChildOf(NodeId::TOP, 0);
    // Nodes with children whose sibling is still to come, with their offsets.
    let mut pending: Vec<(NodeId, usize)> = Vec::new();
    if cur.at < bytes.len() {
        loop {
            let offset = cur.at;
            let (id, flags) = read_node(&mut cur, &mut lib, slot)?;
            slot = match (flags & IS_LEAF != 0, flags & HAS_SIBLING != 0) {
                (false, has_sibling) => {
                    if has_sibling {
                        pending.push((id, offset));
                    }
                    Slot::FirstChildOf(id, offset)
                }
                (true, true) => Slot::SiblingOf(id, offset),
                (true, false) => match pending.pop() {
                    Some((up, up_offset)) => Slot::SiblingOf(up, up_offset),
                    None => break,
                },
            };
        }
    }
    lib.set_trailer(&bytes[cur.at..]);
    Ok(lib)
}

fn read_header(bytes: &[u8]) -> Result<Header, ReadError> {
    match bytes.first() {
        Some(0xFF) => {}
        Some(&b) if b == Cell::CENTER.byte() => return Ok(Header::Headerless),
        _ => {
            return Err(ReadError::NotALibrary {
                found: hex_prefix(bytes),
            })
        }
    }
    let common = bytes.len().min(MAGIC.len());
    if bytes[..common] != MAGIC[..common] {
        return Err(ReadError::NotALibrary {
            found: hex_prefix(bytes),
        });
    }
    let raw: [u8; HEADER_LEN] = bytes
        .get(..HEADER_LEN)
        .and_then(|h| h.try_into().ok())
        .ok_or(ReadError::Truncated {
            offset: bytes.len(),
            expected: Expected::Header,
        })?;
    let (major, minor) = (raw[8], raw[9]);
    if u32::from(major) * 100 + u32::from(minor) > 304 {
        return Err(ReadError::UnsupportedVersion { major, minor });
    }
    Ok(Header::Standard(raw))
}

fn hex_prefix(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "an empty file".into();
    }
    let shown: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02X}")).collect();
    shown.join(" ")
}

/// Read one node with its payloads into `slot`; returns it and its flag byte.
fn read_node(
    cur: &mut Cursor<'_>,
    lib: &mut Library,
    slot: Slot,
) -> Result<(NodeId, u8), ReadError> {
    let offset = cur.at;
    let expected = match slot {
        Slot::FirstChildOf(NodeId::TOP, _) => Expected::FirstNode,
        Slot::FirstChildOf(_, at) => Expected::FirstChild(at),
        Slot::SiblingOf(_, at) => Expected::Sibling(at),
    };
    let [point, flags] = cur.pair(expected)?;
    let cell = Cell::from_byte(point).ok_or(ReadError::BadPoint {
        offset,
        byte: point,
    })?;
    let id = match slot {
        Slot::FirstChildOf(parent, _) => lib.add_child_last(parent, cell),
        Slot::SiblingOf(prev, _) => lib.add_sibling_after(prev, cell),
    };
    lib.set_marks(id, Marks::from_flags(flags));
    let extra = read_payloads(cur, flags, offset)?;
    lib.put_extra(id, extra);
    Ok((id, flags))
}

/// Extension bytes, comment and board text of the node at `offset`, in file order.
fn read_payloads(cur: &mut Cursor<'_>, flags: u8, offset: usize) -> Result<Extra, ReadError> {
    let ext_bytes = if flags & EXTENSION != 0 {
        Some(cur.pair(Expected::Extension(offset))?)
    } else {
        None
    };
    let style = match (flags & OLD_COMMENT != 0, flags & COMMENT != 0) {
        (true, true) => Some(CommentStyle::OldAndNew),
        (true, false) => Some(CommentStyle::Old),
        (false, true) => Some(CommentStyle::New),
        (false, false) => None,
    };
    let comment = match style {
        None => None,
        Some(CommentStyle::New) => Some(Comment::from_file(
            CommentStyle::New,
            cur.text_until(|b| b == 0, Expected::CommentEnd(offset))?,
        )),
        Some(old) => Some(Comment::from_file(
            old,
            cur.text_until(|b| b & 0x80 != 0, Expected::OldCommentEnd(offset))?,
        )),
    };
    let extension = match ext_bytes {
        None => None,
        Some([a, b]) => Some(Extension::new(
            [a, b],
            if b & 1 != 0 {
                Some(cur.text_until(|b| b == 0, Expected::BoardTextEnd(offset))?)
            } else {
                None
            },
        )),
    };
    Ok(Extra { comment, extension })
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn pair(&mut self, expected: Expected) -> Result<[u8; 2], ReadError> {
        match self.bytes.get(self.at..self.at + 2) {
            Some(&[a, b]) => {
                self.at += 2;
                Ok([a, b])
            }
            _ => Err(ReadError::Truncated {
                offset: self.bytes.len(),
                expected,
            }),
        }
    }

    /// A text read two bytes at a time, as RenLib reads it, up to the pair holding a byte for
    /// which `ends` holds; the whole pairs are kept.
    fn text_until(
        &mut self,
        ends: impl Fn(u8) -> bool,
        expected: Expected,
    ) -> Result<RawText, ReadError> {
        let start = self.at;
        loop {
            let [a, b] = self.pair(expected)?;
            if ends(a) || ends(b) {
                return Ok(RawText::from_file(&self.bytes[start..self.at]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v34(tree: &[u8]) -> Vec<u8> {
        let mut v = Header::for_version(3, 4).bytes().to_vec();
        v.extend_from_slice(tree);
        v
    }

    #[test]
    fn rebuilds_siblings_and_children() {
        // root → h8 (→ h9 leaf, i9 leaf), g7 leaf
        let lib = read(&v34(&[
            0x00, 0x00, 0x78, 0x80, 0x68, 0xC0, 0x69, 0x40, 0x87, 0x40,
        ]))
        .unwrap();
        let root = lib.game_root();
        assert_eq!(lib.cell(root), Cell::PASS);
        let top: Vec<u8> = lib.children(root).map(|c| lib.cell(c).byte()).collect();
        assert_eq!(top, [0x78, 0x87]);
        let h8 = lib.find_child(root, Cell::CENTER).unwrap();
        let kids: Vec<u8> = lib.children(h8).map(|c| lib.cell(c).byte()).collect();
        assert_eq!(kids, [0x68, 0x69]);
        assert!(lib.trailer().is_empty());
    }

    #[test]
    fn errors_name_the_offset_and_what_was_expected() {
        let e = read(&v34(&[0x00, 0x00, 0x78])).unwrap_err();
        assert_eq!(
            e,
            ReadError::Truncated {
                offset: 23,
                expected: Expected::FirstChild(20)
            }
        );
        assert!(e.to_string().contains("offset 23"), "{e}");
        let e = read(&v34(&[0x00, 0x00, 0x78, 0x48, b'a', b'b'])).unwrap_err();
        assert_eq!(
            e,
            ReadError::Truncated {
                offset: 26,
                expected: Expected::CommentEnd(22)
            }
        );
        let e = read(&v34(&[0x00, 0x00, 0x10, 0x40])).unwrap_err();
        assert_eq!(
            e,
            ReadError::BadPoint {
                offset: 22,
                byte: 0x10
            }
        );
        let e = read(&v34(&[0x00, 0x00, 0x78, 0xC0])).unwrap_err();
        assert_eq!(
            e,
            ReadError::Truncated {
                offset: 24,
                expected: Expected::Sibling(22)
            }
        );
        assert!(matches!(
            read(b"PK\x03\x04"),
            Err(ReadError::NotALibrary { .. })
        ));
        assert!(matches!(read(&[]), Err(ReadError::NotALibrary { .. })));
        assert!(matches!(
            read(&MAGIC[..5]),
            Err(ReadError::Truncated {
                expected: Expected::Header,
                ..
            })
        ));
        let mut newer = Header::for_version(3, 5).bytes().to_vec();
        newer.extend_from_slice(&[0, 0x40]);
        assert_eq!(
            read(&newer).unwrap_err(),
            ReadError::UnsupportedVersion { major: 3, minor: 5 }
        );
    }

    #[test]
    fn payloads_are_read_in_pairs_and_kept() {
        // h8 with extension (board text bit), old-style comment, board text.
        let lib = read(&v34(&[
            0x78,
            0x61,
            0x00,
            0x03,
            b'o',
            b'k' | 0x80,
            b'A',
            0x00,
        ]))
        .unwrap();
        let h8 = lib.first_child(NodeId::TOP).unwrap();
        let c = lib.comment(h8).unwrap();
        assert_eq!(c.style(), CommentStyle::Old);
        assert_eq!(&*c.content(), b"ok");
        let x = lib.extra(h8).unwrap().extension.as_ref().unwrap();
        assert_eq!(x.other_bits(), [0x00, 0x02]);
        assert_eq!(x.bytes(), [0x00, 0x03]);
        assert_eq!(lib.board_text(h8).unwrap().content(), b"A");
    }

    #[test]
    fn headerless_and_empty_libraries() {
        let lib = read(&[0x78, 0x40]).unwrap();
        assert_eq!(lib.header(), &Header::Headerless);
        assert_eq!(lib.node_count(), 1);
        let lib = read(Header::for_version(3, 0).bytes()).unwrap();
        assert_eq!(lib.node_count(), 0);
    }

    #[test]
    fn bytes_after_the_tree_are_kept() {
        let lib = read(&v34(&[0x00, 0x40, 0xAB, 0xCD, 0xEF])).unwrap();
        assert_eq!(lib.node_count(), 1);
        assert_eq!(lib.trailer(), &[0xAB, 0xCD, 0xEF]);
    }
}
