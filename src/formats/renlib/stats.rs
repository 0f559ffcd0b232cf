//! What a library holds (`lib stats`), and the `--stats` lines: for every node, the games that
//! went through it, counted from the game lines of its subtree, so they are recomputed rather
//! than added up and a game merged twice never counts twice.

use serde::Serialize;

use crate::formats::renlib::lines::{
    is_stats_line, parse_game_line, push_stats_line, stats_line, Tally,
};
use crate::formats::renlib::text::body_lines;
use crate::formats::renlib::write::flags;
use crate::formats::renlib::{Cell, Comment, Library, NodeId};

/// The counts `lib stats` prints; field names follow `samples_summary.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LibStats {
    /// `[major, minor]`; `[0, 0]` for a headerless library.
    pub version: [u8; 2],
    /// File length: what the tree takes plus any bytes after it.
    pub size: usize,
    /// Nodes in the file, the 3.4 root included.
    pub nodes: usize,
    /// Bytes from the file's start to the tree's end.
    pub bytes_consumed: usize,
    pub leaves: usize,
    pub comments: usize,
    /// Comments in the old style (flag 0x20).
    pub old_comments: usize,
    pub boardtexts: usize,
    pub marks: usize,
    pub starts: usize,
    pub not_moves: usize,
    /// Nodes with extension bytes (flag 0x01).
    pub extensions: usize,
    /// Nodes on the longest path from the top, the 3.4 root included.
    pub max_depth: usize,
    /// Point and flag bytes of the first node, `0x78/0x08`.
    pub first_node: Option<String>,
    /// Every flag bit that occurs, or-ed together.
    pub flag_bits_seen: String,
    /// Game lines (`[game ...]`) in the comments.
    pub games: usize,
}

impl LibStats {
    pub fn of(lib: &Library) -> LibStats {
        let (major, minor) = lib.header().version();
        let mut s = LibStats {
            version: [major, minor],
            size: 0,
            nodes: lib.node_count(),
            bytes_consumed: lib.header().bytes().len(),
            leaves: 0,
            comments: 0,
            old_comments: 0,
            boardtexts: 0,
            marks: 0,
            starts: 0,
            not_moves: 0,
            extensions: 0,
            max_depth: 0,
            first_node: None,
            flag_bits_seen: String::new(),
            games: 0,
        };
        let mut seen = 0u8;
        for (id, depth) in with_depth(lib) {
            let f = flags(lib, id);
            seen |= f;
            s.first_node
                .get_or_insert_with(|| format!("{:#04x}/{f:#04x}", lib.cell(id).byte()));
            s.max_depth = s.max_depth.max(depth);
            s.bytes_consumed += 2;
            s.count_node(lib, id, f);
        }
        s.flag_bits_seen = format!("{seen:#04x}");
        s.size = s.bytes_consumed + lib.trailer().len();
        s
    }

    fn count_node(&mut self, lib: &Library, id: NodeId, f: u8) {
        let m = lib.marks(id);
        self.leaves += usize::from(lib.first_child(id).is_none());
        self.marks += usize::from(m.has(crate::formats::renlib::Marks::MARK));
        self.starts += usize::from(m.has(crate::formats::renlib::Marks::START));
        self.not_moves += usize::from(m.has(crate::formats::renlib::Marks::NOT_A_MOVE));
        self.old_comments += usize::from(f & crate::formats::renlib::read::OLD_COMMENT != 0);
        let Some(extra) = lib.extra(id) else {
            return;
        };
        if let Some(c) = &extra.comment {
            self.comments += 1;
            self.bytes_consumed += c.raw().bytes().len();
            self.games += body_lines(&c.content())
                .filter(|l| parse_game_line(l).is_some())
                .count();
        }
        if let Some(x) = &extra.extension {
            self.extensions += 1;
            self.bytes_consumed += 2;
            if let Some(t) = x.board_text() {
                self.boardtexts += 1;
                self.bytes_consumed += t.bytes().len();
            }
        }
    }

    /// The report `lib stats` prints.
    pub fn text(&self, file: &str) -> String {
        let version = match self.version {
            [0, 0] => "none (headerless, before 3.0)".to_string(),
            [a, b] => format!("{a}.{b}"),
        };
        let mut t = format!("file:          {file}\nversion:       {version}\n");
        t += &format!(
            "size:          {} bytes ({} after the tree's end)\n",
            self.size,
            self.size - self.bytes_consumed
        );
        for (name, n) in [
            ("nodes", self.nodes),
            ("leaves", self.leaves),
            ("comments", self.comments),
            ("  old-style", self.old_comments),
            ("board texts", self.boardtexts),
            ("marks", self.marks),
            ("starts", self.starts),
            ("not a move", self.not_moves),
            ("extensions", self.extensions),
            ("max depth", self.max_depth),
            ("game lines", self.games),
        ] {
            t += &format!("{:<15}{n}\n", format!("{name}:"));
        }
        t += &format!(
            "first node:    {}\nflag bits:     {}\n",
            self.first_node.as_deref().unwrap_or("none"),
            self.flag_bits_seen
        );
        t
    }
}

/// Every node in file order with its depth (nodes on its path from the top, itself included).
pub fn with_depth(lib: &Library) -> impl Iterator<Item = (NodeId, usize)> + '_ {
    let mut stack: Vec<(NodeId, usize)> = lib
        .first_child(NodeId::TOP)
        .map(|c| (c, 1))
        .into_iter()
        .collect();
    std::iter::from_fn(move || {
        let (id, depth) = stack.pop()?;
        stack.extend(lib.next_sibling(id).map(|s| (s, depth)));
        stack.extend(lib.first_child(id).map(|c| (c, depth + 1)));
        Some((id, depth))
    })
}

/// Whether any node carries a statistics line (a library merged with `--stats` before).
pub fn has_stats_lines(lib: &Library) -> bool {
    lib.comments()
        .any(|(_, c)| body_lines(&c.content()).any(is_stats_line))
}

/// Give every node its statistics line: the games whose line sits in its subtree, with their
/// results from black's side; nodes no game went through lose any statistics line they had.
pub fn refresh_stats(lib: &mut Library) {
    let order: Vec<NodeId> = lib.preorder().collect();
    let mut parent = vec![0u32; lib.node_count() + 1];
    for &id in &order {
        for c in lib.children(id) {
            parent[c.index()] = id.index() as u32;
        }
    }
    let mut tally = vec![Tally::default(); lib.node_count() + 1];
    for (id, c) in lib.comments() {
        for l in body_lines(&c.content()) {
            if let Some(g) = parse_game_line(l) {
                tally[id.index()].add_result(g.result);
            }
        }
    }
    // Children come after their parent in preorder: add up from the end.
    for &id in order.iter().rev() {
        let t = tally[id.index()];
        tally[parent[id.index()] as usize].add(t);
    }
    let fresh = order
        .iter()
        .filter(|&&id| tally[id.index()].games() > 0 && lib.extra(id).is_none())
        .count();
    lib.reserve_extras(fresh);
    for (i, &id) in order.iter().enumerate() {
        // A node right before a pass in the file gets no line: a comment's end is NUL bytes, and
        // readers that skip every NUL after a comment (Figrid) would take the pass's point byte,
        // 00, for one and lose the tree from there.
        let before_pass = order.get(i + 1).is_some_and(|&n| lib.cell(n) == Cell::PASS);
        let t = if before_pass {
            Tally::default()
        } else {
            tally[id.index()]
        };
        set_stats_line(lib, id, &t);
    }
}

fn set_stats_line(lib: &mut Library, id: NodeId, t: &Tally) {
    if lib.comment(id).is_none() {
        // Most nodes: no comment yet, one is made of the line alone.
        if t.games() > 0 {
            let mut raw = Vec::with_capacity(64);
            raw.push(crate::formats::renlib::text::TITLE_END);
            push_stats_line(t, &mut raw);
            lib.put_comment(id, Some(Comment::from_content(raw)));
        }
        return;
    }
    let had = lib.comment(id).map(Comment::lines);
    let has_line = had
        .as_ref()
        .is_some_and(|l| l.body_lines().iter().any(|b| is_stats_line(b)));
    if t.games() == 0 && !has_line {
        return;
    }
    let mut lines = had.unwrap_or_default();
    let at = lines.body_lines().iter().position(|b| is_stats_line(b));
    if let Some(body) = lines.body.as_mut() {
        body.retain(|b| !is_stats_line(b));
        if body.is_empty() {
            lines.body = None;
        }
    }
    if t.games() > 0 {
        let index = at.unwrap_or_else(|| lines.append_index());
        lines.insert(index, stats_line(t));
    }
    let new = Comment::new(&lines.to_bytes());
    if lib.comment(id).map(|c| c.content()) != Some(new.content()) {
        let empty = lines.title.is_empty() && lines.body_lines().iter().all(|b| b.is_empty());
        lib.put_comment(id, (!empty).then_some(new));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::renlib::merge::tests::game;
    use crate::formats::renlib::write::{comments_before_passes, to_bytes};
    use crate::formats::renlib::CodePage;

    #[test]
    fn no_statistics_line_comes_right_before_a_pass() {
        // h8 h9, then black passes and white goes on; another game goes on from h9 with a
        // stone: h9 has games below it and a pass for first child.
        let mut lib = Library::new();
        for (key, moves) in [
            ("p", &[0x78, 0x68, 0x00, 0x69][..]),
            ("q", &[0x78, 0x68, 0x79]),
        ] {
            lib.merge_game(&game(key, moves), CodePage::default());
        }
        refresh_stats(&mut lib);
        assert!(has_stats_lines(&lib));
        assert_eq!(comments_before_passes(&lib), vec![]);
        let back = crate::formats::renlib::read(&to_bytes(&lib)).unwrap();
        assert_eq!(back.node_count(), lib.node_count());
        assert_eq!(comments_before_passes(&back), vec![]);
        // The nodes around it keep theirs: the root and h8 count both games, the pass one.
        let lines: Vec<String> = back
            .preorder()
            .map(|id| {
                let c = back.comment(id).map(|c| c.content().into_owned());
                String::from_utf8_lossy(&c.unwrap_or_default()).into_owned()
            })
            .collect();
        assert!(
            lines[0].contains("2 games") && lines[1].contains("2 games"),
            "{lines:?}"
        );
        assert!(lines[3].contains("1 game,"), "{lines:?}");
    }
}
