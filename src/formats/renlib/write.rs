//! The writer: [`Library`] → the bytes of a `.lib` file. The structure flags (0x80, 0x40) come
//! from the tree, the others from what each node carries, so a library read from a file writes
//! back byte for byte and a merged one is what RenLib expects.

use std::io::{self, Write};

use crate::formats::renlib::read::{EXTENSION, HAS_SIBLING, IS_LEAF};
use crate::formats::renlib::{Extension, Library, NodeId};

/// The flag byte of a node as it is written.
pub fn flags(lib: &Library, id: NodeId) -> u8 {
    let mut f = lib.marks(id).bits();
    if lib.next_sibling(id).is_some() {
        f |= HAS_SIBLING;
    }
    if lib.first_child(id).is_none() {
        f |= IS_LEAF;
    }
    if let Some(extra) = lib.extra(id) {
        if let Some(c) = &extra.comment {
            f |= c.style().flag_bits();
        }
        if extra.extension.is_some() {
            f |= EXTENSION;
        }
    }
    f
}

/// Write the whole library: header, nodes in preorder with their payloads, trailing bytes.
pub fn write(lib: &Library, out: &mut impl Write) -> io::Result<()> {
    // Nodes are two bytes: gather them in a buffer rather than make a call per node.
    const CHUNK: usize = 1 << 16;
    let mut buf = Vec::with_capacity(CHUNK + 1024);
    buf.extend_from_slice(lib.header().bytes());
    for id in lib.preorder() {
        buf.push(lib.cell(id).byte());
        buf.push(flags(lib, id));
        if let Some(extra) = lib.extra(id) {
            if let Some(x) = &extra.extension {
                buf.extend_from_slice(&x.bytes());
            }
            if let Some(c) = &extra.comment {
                buf.extend_from_slice(c.raw().bytes());
            }
            if let Some(t) = extra.extension.as_ref().and_then(Extension::board_text) {
                buf.extend_from_slice(t.bytes());
            }
        }
        if buf.len() >= CHUNK {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    buf.extend_from_slice(lib.trailer());
    out.write_all(&buf)
}

/// The nodes that carry a comment and come right before a pass node in the file. A comment
/// ends in NUL bytes and a pass's point byte is 00: Figrid skips every NUL after a comment, reads
/// the pass's flag byte as a point and loses the rest of the tree (RenLib reads the padding to
/// an even length only). `lib merge` writes none with its statistics lines and warns of any
/// other (a game that ends where another goes on with a pass).
pub fn comments_before_passes(lib: &Library) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut previous: Option<NodeId> = None;
    for id in lib.preorder() {
        if let Some(p) = previous.filter(|_| lib.cell(id) == crate::formats::renlib::Cell::PASS) {
            if lib.comment(p).is_some() {
                out.push(p);
            }
        }
        previous = Some(id);
    }
    out
}

/// The file's bytes in memory.
pub fn to_bytes(lib: &Library) -> Vec<u8> {
    let mut v = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write(lib, &mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::super::{read, Cell, Comment, Extra, Header, Marks};
    use super::*;

    #[test]
    fn a_new_library_is_a_34_header_and_a_root() {
        let bytes = to_bytes(&Library::new());
        let mut expected = Header::for_version(3, 4).bytes().to_vec();
        expected.extend_from_slice(&[0x00, 0x40]);
        assert_eq!(bytes, expected);
    }

    #[test]
    fn flags_come_from_the_tree_and_the_payloads() {
        let mut lib = Library::new();
        let root = lib.game_root();
        let h8 = lib.add_child_sorted(root, Cell::CENTER);
        let h9 = lib.add_child_sorted(h8, Cell::from_byte(0x68).unwrap());
        let g7 = lib.add_child_sorted(root, Cell::from_byte(0x87).unwrap());
        lib.set_marks(h9, Marks::default().with(Marks::MARK, true));
        lib.set_extra(
            g7,
            Extra {
                comment: Some(Comment::new(b"hi")),
                extension: None,
            },
        );
        assert_eq!(flags(&lib, root), 0x00);
        assert_eq!(flags(&lib, h8), 0x80);
        assert_eq!(flags(&lib, h9), 0x50);
        assert_eq!(flags(&lib, g7), 0x48);
        let back = read(&to_bytes(&lib)).unwrap();
        assert_eq!(to_bytes(&back), to_bytes(&lib));
    }
}
