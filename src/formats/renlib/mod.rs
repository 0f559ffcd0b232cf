//! RenLib `.lib` opening trees: an arena of nodes that keeps every byte a library file holds, read
//! and written back identically, and merged with games in the board orientation that follows the
//! tree deepest.
//!
//! Pure except `file` (loading, and the atomic rewrite that a kill cannot leave half done).
//! Layout facts (header, flags, tree rebuild, texts) are in docs/formats/renlib.md.
//!
//! Archiving the games of a run as they finish (what `-renlib FILE` does): merging a game whose
//! key is in the library already changes nothing, so a resumed run or a second shard may offer
//! the same game again.
//!
//! ```no_run
//! use gomoku_cli::game::record::GameRecord;
//! use gomoku_cli::formats::renlib::{file, stats, CodePage, LibGame};
//!
//! fn archive(path: &std::path::Path, fingerprint: &str, finished: &[GameRecord]) -> Result<(), file::FileError> {
//!     let mut lib = file::load_or_new(path)?; // once per run
//!     for record in finished {
//!         match LibGame::from_record(record, fingerprint) {
//!             Ok(game) => {
//!                 lib.merge_game(&game, CodePage::default());
//!             }
//!             // A game off 15×15 cannot go in: count it and say so.
//!             Err(e) => eprintln!("game {} not archived: {e}", record.game),
//!         }
//!         if stats::has_stats_lines(&lib) {
//!             stats::refresh_stats(&mut lib);
//!         }
//!         file::save_atomic(path, &lib)?; // after every game: old or new file, never half
//!     }
//!     Ok(())
//! }
//! ```

mod cell;
pub mod dump;
pub mod file;
pub mod game;
pub mod lines;
pub mod merge;
pub mod read;
pub mod sgf;
pub mod stats;
pub mod text;
mod wide;
pub mod write;

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

pub use cell::{Cell, Notation, SIZE};
pub use game::{GameKey, LibGame, NotMergeable};
pub use merge::{GameMerge, LibraryMerge};
pub use read::{read, ReadError};
pub use text::{CodePage, Comment, CommentStyle, RawText};
pub use write::{to_bytes, write};

use wide::{Wide, WIDE};

/// Bytes 0..8 of every header: `FF "RenLib" FF`.
pub const MAGIC: [u8; 8] = [0xFF, b'R', b'e', b'n', b'L', b'i', b'b', 0xFF];
/// Length of the header.
pub const HEADER_LEN: usize = 20;

/// The start of a library file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Header {
    /// No header at all: the oldest libraries start with their first move, h8.
    Headerless,
    /// The 20 bytes as read: magic, major and minor version, ten `FF`.
    Standard([u8; HEADER_LEN]),
}

impl Header {
    /// The header RenLib writes for a version.
    pub fn for_version(major: u8, minor: u8) -> Header {
        let mut raw = [0xFF; HEADER_LEN];
        raw[..8].copy_from_slice(&MAGIC);
        raw[8] = major;
        raw[9] = minor;
        Header::Standard(raw)
    }

    /// `(major, minor)`; a headerless library is older than 3.0 and reported as 0.0.
    pub fn version(&self) -> (u8, u8) {
        match self {
            Header::Headerless => (0, 0),
            Header::Standard(raw) => (raw[8], raw[9]),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            Header::Headerless => &[],
            Header::Standard(raw) => raw,
        }
    }
}

/// Index of a node in a library's arena. Node 0 is the virtual top whose children are the file's
/// top-level nodes; it is never written and never a child, so 0 also means "none" in links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(u32);

impl NodeId {
    /// The virtual top.
    pub const TOP: NodeId = NodeId(0);

    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The node attributes that are not structure: mark, start mark, "not a move".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Marks(u8);

impl Marks {
    /// Flag 0x10: marked.
    pub const MARK: u8 = 0x10;
    /// Flag 0x04: a start position.
    pub const START: u8 = 0x04;
    /// Flag 0x02: the node is not a move (a board-text holder).
    pub const NOT_A_MOVE: u8 = 0x02;
    const ALL: u8 = Self::MARK | Self::START | Self::NOT_A_MOVE;

    /// The marks among a flag byte's bits.
    pub fn from_flags(flags: u8) -> Marks {
        Marks(flags & Self::ALL)
    }
    pub fn bits(self) -> u8 {
        self.0
    }
    pub fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
    pub fn with(self, bit: u8, on: bool) -> Marks {
        Marks(if on { self.0 | bit } else { self.0 & !bit } & Self::ALL)
    }
}

/// Flag 0x01's two extension bytes, and the board text their bit 0 announces.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Extension {
    /// The two bytes with the board-text bit (bit 0 of the second) cleared: RenLib defines no
    /// other bit, any that are set are kept as they are. The bit itself is `board_text`'s
    /// presence, so the two cannot disagree.
    other_bits: [u8; 2],
    board_text: Option<RawText>,
}

impl Extension {
    /// Extension bytes (their board-text bit is ignored: `board_text` decides it).
    pub fn new(bytes: [u8; 2], board_text: Option<RawText>) -> Extension {
        Extension {
            other_bits: [bytes[0], bytes[1] & !1],
            board_text,
        }
    }

    /// The two bytes without the board-text bit.
    pub fn other_bits(&self) -> [u8; 2] {
        self.other_bits
    }

    pub fn board_text(&self) -> Option<&RawText> {
        self.board_text.as_ref()
    }

    /// The bytes as written: the board-text bit set when there is a board text.
    pub fn bytes(&self) -> [u8; 2] {
        let [a, b] = self.other_bits;
        [a, b | u8::from(self.board_text.is_some())]
    }
}

/// What a node carries besides its point and marks; most nodes have none, so it lives aside.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Extra {
    pub comment: Option<Comment>,
    pub extension: Option<Extension>,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    cell: Cell,
    marks: Marks,
    /// Whether `extras` holds an entry: most nodes have none, and a walk over millions of nodes
    /// should not look each one up (the flag sits in what would be padding).
    has_extra: bool,
    /// First child, 0 = none.
    child: u32,
    /// Next sibling, 0 = none.
    sibling: u32,
}

/// Hashes a node index with one multiplication: the keys are small distinct integers, not
/// attacker-chosen, and a library can hold a million texts.
#[derive(Default)]
struct IndexHasher(u64);

impl Hasher for IndexHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type IndexMap<V> = HashMap<u32, V, BuildHasherDefault<IndexHasher>>;

/// A RenLib library: header, the tree in an arena (children in file order), texts aside, and any
/// bytes that follow the tree's end (kept so the file writes back as it was).
#[derive(Debug, Clone)]
pub struct Library {
    header: Header,
    nodes: Vec<Node>,
    extras: IndexMap<Extra>,
    /// Child tables of the nodes with many children (built by merges, see `wide`).
    wide: IndexMap<Box<Wide>>,
    trailer: Vec<u8>,
    /// Game ids found in `[game ...]` comment lines, built on the first merge.
    game_ids: Option<HashSet<Box<[u8]>>>,
}

impl Default for Library {
    fn default() -> Self {
        Library::new()
    }
}

impl Library {
    /// An empty version 3.4 library: header and root node, as RenLib starts a new one.
    pub fn new() -> Library {
        let mut lib = Library::with_header(Header::for_version(3, 4), 2);
        lib.add_child_last(NodeId::TOP, Cell::PASS);
        lib
    }

    /// A library with no nodes yet.
    pub(crate) fn with_header(header: Header, capacity: usize) -> Library {
        let mut nodes = Vec::with_capacity(capacity.max(1));
        nodes.push(Node {
            cell: Cell::PASS,
            marks: Marks::default(),
            has_extra: false,
            child: 0,
            sibling: 0,
        });
        Library {
            header,
            nodes,
            extras: IndexMap::default(),
            wide: IndexMap::default(),
            trailer: Vec::new(),
            game_ids: None,
        }
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Bytes after the tree's end, kept verbatim.
    pub fn trailer(&self) -> &[u8] {
        &self.trailer
    }

    pub(crate) fn set_trailer(&mut self, bytes: &[u8]) {
        self.trailer = bytes.to_vec();
    }

    /// Number of nodes in the file (the virtual top not counted).
    pub fn node_count(&self) -> usize {
        self.nodes.len() - 1
    }

    /// The node games start from: the root node (a first top-level node `00`, version 3.4), else
    /// the virtual top (version 3.0, whose first node is the first move).
    pub fn game_root(&self) -> NodeId {
        match self.first_child(NodeId::TOP) {
            Some(first) if self.cell(first) == Cell::PASS => first,
            _ => NodeId::TOP,
        }
    }

    pub fn cell(&self, id: NodeId) -> Cell {
        self.nodes[id.index()].cell
    }

    pub fn marks(&self, id: NodeId) -> Marks {
        self.nodes[id.index()].marks
    }

    pub fn set_marks(&mut self, id: NodeId, marks: Marks) {
        self.nodes[id.index()].marks = marks;
    }

    pub fn first_child(&self, id: NodeId) -> Option<NodeId> {
        link(self.nodes[id.index()].child)
    }

    pub fn next_sibling(&self, id: NodeId) -> Option<NodeId> {
        link(self.nodes[id.index()].sibling)
    }

    /// The children of a node, in file order.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            lib: self,
            next: self.first_child(id),
        }
    }

    /// The child with this point, if any.
    pub fn find_child(&self, id: NodeId, cell: Cell) -> Option<NodeId> {
        match self.wide.get(&id.0) {
            Some(w) => w.get(cell),
            None => self.children(id).find(|&c| self.cell(c) == cell),
        }
    }

    /// Whether a node's children have a lookup table.
    pub(crate) fn is_indexed(&self, id: NodeId) -> bool {
        self.wide.contains_key(&id.0)
    }

    /// Give a node's children a lookup table (a merge found it has many).
    pub(crate) fn index_children(&mut self, id: NodeId) {
        if !self.is_indexed(id) {
            let w = Wide::build(self.children(id).map(|c| (c, self.cell(c))));
            self.wide.insert(id.0, Box::new(w));
        }
    }

    /// Comment and extension of a node, if it has any.
    pub fn extra(&self, id: NodeId) -> Option<&Extra> {
        if self.nodes[id.index()].has_extra {
            self.extras.get(&id.0)
        } else {
            None
        }
    }

    /// Every node's comment, in no particular order (for counts and searches).
    pub fn comments(&self) -> impl Iterator<Item = (NodeId, &Comment)> {
        self.extras
            .iter()
            .filter_map(|(&id, e)| e.comment.as_ref().map(|c| (NodeId(id), c)))
    }

    pub fn comment(&self, id: NodeId) -> Option<&Comment> {
        self.extra(id).and_then(|e| e.comment.as_ref())
    }

    pub fn board_text(&self, id: NodeId) -> Option<&RawText> {
        self.extra(id)
            .and_then(|e| e.extension.as_ref())
            .and_then(Extension::board_text)
    }

    /// Replace a node's comment and extension (an empty `Extra` removes them).
    pub fn set_extra(&mut self, id: NodeId, extra: Extra) {
        self.put_extra(id, extra);
        // The game lines may have changed: the keys are collected again on the next merge.
        self.game_ids = None;
    }

    /// Replace a node's comment, keeping its extension.
    pub fn set_comment(&mut self, id: NodeId, comment: Option<Comment>) {
        self.put_comment(id, comment);
        self.game_ids = None;
    }

    /// [`Library::set_extra`] for callers that keep the game keys up to date themselves.
    pub(crate) fn put_extra(&mut self, id: NodeId, extra: Extra) {
        let has = extra != Extra::default();
        let node = &mut self.nodes[id.index()];
        if has {
            self.extras.insert(id.0, extra);
        } else if node.has_extra {
            self.extras.remove(&id.0);
        }
        node.has_extra = has;
    }

    /// Room for `n` more nodes with texts (a statistics pass adds one to most nodes).
    pub(crate) fn reserve_extras(&mut self, n: usize) {
        self.extras.reserve(n);
    }

    /// [`Library::set_comment`] for callers that keep the game keys up to date themselves.
    pub(crate) fn put_comment(&mut self, id: NodeId, comment: Option<Comment>) {
        match self
            .extras
            .get_mut(&id.0)
            .filter(|_| self.nodes[id.index()].has_extra)
        {
            Some(extra) if comment.is_some() || extra.extension.is_some() => {
                extra.comment = comment
            }
            _ => {
                let extension = self.extra(id).and_then(|e| e.extension.clone());
                self.put_extra(id, Extra { comment, extension });
            }
        }
    }

    /// Every node in file order (preorder), the virtual top left out.
    pub fn preorder(&self) -> Preorder<'_> {
        Preorder {
            lib: self,
            stack: self.first_child(NodeId::TOP).into_iter().collect(),
        }
    }

    /// A new node appended as the last child of `parent` (the reader builds files this way).
    pub(crate) fn add_child_last(&mut self, parent: NodeId, cell: Cell) -> NodeId {
        let id = self.push(cell);
        match self.children(parent).last() {
            None => self.nodes[parent.index()].child = id.0,
            Some(last) => self.nodes[last.index()].sibling = id.0,
        }
        if let Some(w) = self.wide.get_mut(&parent.0) {
            w.add(cell, id);
        }
        id
    }

    /// A new node appended right after `prev` among its siblings (the reader's sibling link).
    /// The parent must not have a child table: the reader and a copied subtree build new nodes.
    pub(crate) fn add_sibling_after(&mut self, prev: NodeId, cell: Cell) -> NodeId {
        let id = self.push(cell);
        self.nodes[id.index()].sibling = self.nodes[prev.index()].sibling;
        self.nodes[prev.index()].sibling = id.0;
        id
    }

    /// A new child of `parent` placed before the first sibling whose point sorts after it, so a
    /// tree built only by merging keeps its children sorted and does not depend on merge order.
    pub(crate) fn add_child_sorted(&mut self, parent: NodeId, cell: Cell) -> NodeId {
        let mut scanned = 0;
        let known = self.wide.get(&parent.0).and_then(|w| w.predecessor(cell));
        let before = known.unwrap_or_else(|| {
            self.children(parent)
                .inspect(|_| scanned += 1)
                .take_while(|&c| self.cell(c) <= cell)
                .last()
        });
        let id = match before {
            None => {
                let id = self.push(cell);
                self.nodes[id.index()].sibling = self.nodes[parent.index()].child;
                self.nodes[parent.index()].child = id.0;
                id
            }
            Some(prev) => self.add_sibling_after(prev, cell),
        };
        match self.wide.get_mut(&parent.0) {
            Some(w) => w.add(cell, id),
            None if scanned >= WIDE => self.index_children(parent),
            None => {}
        }
        id
    }

    /// Put a new root node above the top-level nodes and make the header 3.4, as RenLib does
    /// before it writes a library whose first moves are not all h8.
    pub(crate) fn add_root(&mut self) {
        if self.game_root() != NodeId::TOP {
            return;
        }
        let old_first = self.nodes[0].child;
        // The top's children move under the root: tables keyed by parent would be wrong.
        self.wide.clear();
        let root = self.push(Cell::PASS);
        self.nodes[root.index()].child = old_first;
        self.nodes[0].child = root.0;
        self.header = Header::for_version(3, 4);
    }

    fn push(&mut self, cell: Cell) -> NodeId {
        let id = NodeId(u32::try_from(self.nodes.len()).expect("fewer than 2^32 nodes"));
        self.nodes.push(Node {
            cell,
            marks: Marks::default(),
            has_extra: false,
            child: 0,
            sibling: 0,
        });
        id
    }

    /// Number of distinct game keys in the library's game lines.
    pub fn game_count(&mut self) -> usize {
        self.game_ids_mut().len()
    }

    pub(crate) fn game_ids_mut(&mut self) -> &mut HashSet<Box<[u8]>> {
        if self.game_ids.is_none() {
            let ids = merge::collect_game_ids(self);
            self.game_ids = Some(ids);
        }
        self.game_ids.get_or_insert_with(HashSet::new)
    }
}

fn link(raw: u32) -> Option<NodeId> {
    (raw != 0).then_some(NodeId(raw))
}

/// Iterator over a node's children.
pub struct Children<'a> {
    lib: &'a Library,
    next: Option<NodeId>,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        let id = self.next?;
        self.next = self.lib.next_sibling(id);
        Some(id)
    }
}

/// Iterator over the nodes in file order.
pub struct Preorder<'a> {
    lib: &'a Library,
    stack: Vec<NodeId>,
}

impl Iterator for Preorder<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        let id = self.stack.pop()?;
        self.stack.extend(self.lib.next_sibling(id));
        self.stack.extend(self.lib.first_child(id));
        Some(id)
    }
}
