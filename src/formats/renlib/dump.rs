//! `lib dump`: the tree as indented text (a line per branch: a node with one child continues its
//! line, each child of a fork starts a line one step deeper), or one line per path from the top to
//! a leaf.

use std::io::{self, Write};

use crate::formats::renlib::text::CodePage;
use crate::formats::renlib::{Library, Marks, NodeId, Notation};

/// How a node is named: the 3.4 root is `ROOT`, other `00` nodes `pass/root`, points in the
/// chosen notation.
fn name(lib: &Library, id: NodeId, notation: Notation) -> String {
    if id == lib.game_root() && id != NodeId::TOP {
        "ROOT".to_string()
    } else {
        lib.cell(id).notation(notation).to_string()
    }
}

/// One line per path from the top to a leaf: the points separated by spaces.
pub fn write_paths(lib: &Library, notation: Notation, out: &mut impl Write) -> io::Result<()> {
    let mut path: Vec<String> = Vec::new();
    for (id, depth) in crate::formats::renlib::stats::with_depth(lib) {
        path.truncate(depth - 1);
        path.push(name(lib, id, notation));
        if lib.first_child(id).is_none() {
            writeln!(out, "{}", path.join(" "))?;
        }
    }
    Ok(())
}

/// The tree as indented text; each node with its marks, comment (lines joined by ` / `) and
/// board text, decoded from `page`.
pub fn write_tree(
    lib: &Library,
    notation: Notation,
    page: CodePage,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut starts: Vec<(NodeId, usize)> = lib.children(NodeId::TOP).map(|c| (c, 0)).collect();
    starts.reverse();
    while let Some((first, indent)) = starts.pop() {
        let mut line = "  ".repeat(indent);
        let mut id = first;
        loop {
            line.push_str(&node_text(lib, id, notation, page));
            let mut kids = lib.children(id);
            match (kids.next(), kids.next()) {
                (None, _) => break,
                (Some(only), None) => {
                    line.push(' ');
                    id = only;
                }
                (Some(_), Some(_)) => {
                    let mut forks: Vec<(NodeId, usize)> =
                        lib.children(id).map(|c| (c, indent + 1)).collect();
                    forks.reverse();
                    starts.extend(forks);
                    break;
                }
            }
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn node_text(lib: &Library, id: NodeId, notation: Notation, page: CodePage) -> String {
    let mut t = name(lib, id, notation);
    let m = lib.marks(id);
    for (bit, label) in [
        (Marks::MARK, " [mark]"),
        (Marks::START, " [start]"),
        (Marks::NOT_A_MOVE, " [not a move]"),
    ] {
        if m.has(bit) {
            t.push_str(label);
        }
    }
    if let Some(c) = lib.comment(id) {
        t.push_str(&format!(" {{{}}}", one_line(&c.decoded(page, " / "))));
    }
    if let Some(b) = lib.board_text(id) {
        t.push_str(&format!(" <{}>", one_line(&page.decode(b.content()))));
    }
    t
}

/// Control characters shown as spaces, so a node stays on its line.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::renlib::read;

    const SYNTHETIC: &[u8] = b"\xffRenLib\xff\x03\x04\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00x\x98Center\x08multi-line\r\ncomment\x00\x00h\x84i\xc1\x00\x01A\x00\x00\x08pass\x00\x00Y@i@\x87@";

    #[test]
    fn paths_name_the_root_and_passes() {
        let lib = read(SYNTHETIC).unwrap();
        let mut out = Vec::new();
        write_paths(&lib, Notation::Renju, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "ROOT h8 h9 i9\nROOT h8 h9 pass/root i10\nROOT h8 i9\nROOT g7\n"
        );
        let mut out = Vec::new();
        write_paths(&lib, Notation::Pos, &mut out).unwrap();
        assert!(String::from_utf8(out)
            .unwrap()
            .starts_with("ROOT h8 h7 i7\n"));
    }

    #[test]
    fn the_tree_continues_single_children_on_a_line() {
        let lib = read(SYNTHETIC).unwrap();
        let mut out = Vec::new();
        write_tree(&lib, Notation::Renju, CodePage::default(), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "ROOT\n  h8 [mark] {Center / multi-line / comment}\n    h9 [start]\n      i9 <A>\n      pass/root {pass} i10\n    i9\n  g7\n"
        );
    }
}
