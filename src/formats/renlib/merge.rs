//! Merging games and libraries into a library.
//!
//! A game goes in from the game root, in the one of the 8 board symmetries that follows the
//! existing tree deepest; ties go to the symmetry whose image of the game is smallest (moves
//! compared in order, points in reading order), so a tree built by merges holds each game in its
//! canonical orientation and does not depend on the order the games came in. New children are
//! placed in point order for the same reason. A game whose key the library already holds changes
//! nothing. A library goes in as a whole, in the symmetry that matches the most of its nodes.

use std::collections::HashSet;

use crate::core::board::Symmetry;

use crate::formats::renlib::lines::{game_line, is_stats_line, parse_game_line};
use crate::formats::renlib::text::{body_lines, CodePage, CommentLines};
use crate::formats::renlib::{Cell, Comment, Extension, Extra, LibGame, Library, Marks, NodeId};

/// What merging one game did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameMerge {
    /// The game went in: `new_nodes` nodes were added, the moves were mapped by `symmetry`.
    Added {
        new_nodes: usize,
        symmetry: Symmetry,
    },
    /// A game with the same key is in the library already: nothing changed.
    AlreadyPresent,
}

/// What merging a library did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LibraryMerge {
    /// The symmetry applied to the merged library's points.
    pub symmetry: Symmetry,
    pub new_nodes: usize,
    /// Game lines that came in with a key the library did not hold.
    pub new_games: usize,
}

impl Library {
    /// Merge one finished game (see the module documentation); `page` encodes its comment line.
    /// Merging a game whose key is already in the library changes nothing, so a game merged
    /// again after a resume, or from two journals, goes in once.
    pub fn merge_game(&mut self, game: &LibGame, page: CodePage) -> GameMerge {
        let key = page.encode(game.key.as_str());
        if self.game_ids_mut().contains(key.as_slice()) {
            return GameMerge::AlreadyPresent;
        }
        if let Some(legacy) = &game.legacy_key {
            // A library written before keys held the moves: its line for this run's game number
            // is this game only where it sits at the end of these moves (another run with the
            // same settings played other moves under the same number).
            let legacy = page.encode(legacy.as_str());
            if self.game_ids_mut().contains(legacy.as_slice())
                && holds_line_at_end(self, &game.moves, &legacy)
            {
                return GameMerge::AlreadyPresent;
            }
        }
        // A library without a root (3.0) can only start at h8 and holds no pass, as in RenLib.
        let first_is_h8 = game.moves.first() == Some(&Cell::CENTER);
        if !first_is_h8 || game.moves.contains(&Cell::PASS) {
            self.add_root();
        }
        let root = self.game_root();
        let symmetry = orientation(self, root, &game.moves);
        let mut node = root;
        let mut new_nodes = 0;
        for &m in &game.moves {
            let cell = m.transformed(symmetry);
            node = match self.find_child(node, cell) {
                Some(child) => child,
                None => {
                    new_nodes += 1;
                    self.add_child_sorted(node, cell)
                }
            };
            // A game played here: the node is a move now, as RenLib marks it when adding a game.
            let marks = self.marks(node);
            self.set_marks(node, marks.with(Marks::NOT_A_MOVE, false));
        }
        insert_game_line(self, node, game_line(game, page));
        self.game_ids_mut().insert(key.into_boxed_slice());
        GameMerge::Added {
            new_nodes,
            symmetry,
        }
    }

    /// Merge another library: its game root's subtrees under ours, in the symmetry that matches
    /// most of its nodes (ties: identity first, then `Symmetry::ALL` order). Nodes we lack are
    /// copied as they are; nodes we have gain the other's marks, texts and comment lines that
    /// they lack. Merging a library into itself changes nothing.
    pub fn merge_library(&mut self, other: &Library) -> LibraryMerge {
        let other_root = other.game_root();
        let needs_root = other
            .children(other_root)
            .any(|c| other.cell(c) != Cell::CENTER)
            || (other_root != NodeId::TOP && other.extra(other_root).is_some());
        if needs_root {
            self.add_root();
        }
        let root = self.game_root();
        let symmetry = library_orientation(self, root, other, other_root);
        let ids_before = self.game_ids_mut().len();
        let mut new_nodes = 0;
        if root != NodeId::TOP && other_root != NodeId::TOP {
            merge_node(self, root, other, other_root);
        }
        let mut stack = vec![(root, other_root)];
        while let Some((ours, theirs)) = stack.pop() {
            for oc in other.children(theirs) {
                let cell = other.cell(oc).transformed(symmetry);
                match self.find_child(ours, cell) {
                    Some(c) => {
                        merge_node(self, c, other, oc);
                        stack.push((c, oc));
                    }
                    None => {
                        let c = self.add_child_sorted(ours, cell);
                        new_nodes += copy_subtree(self, c, other, oc, symmetry);
                    }
                }
            }
        }
        LibraryMerge {
            symmetry,
            new_nodes,
            new_games: self.game_ids_mut().len() - ids_before,
        }
    }
}

/// The keys of every game line in the library.
pub(crate) fn collect_game_ids(lib: &Library) -> HashSet<Box<[u8]>> {
    let mut ids = HashSet::new();
    for (_, c) in lib.comments() {
        for line in body_lines(&c.content()) {
            if let Some(g) = parse_game_line(line) {
                ids.insert(g.key.into());
            }
        }
    }
    ids
}

/// Whether the node at the end of `moves` (in any symmetry) has a game line keyed `key`.
fn holds_line_at_end(lib: &Library, moves: &[Cell], key: &[u8]) -> bool {
    Symmetry::ALL.into_iter().any(|s| {
        let end = moves.iter().try_fold(lib.game_root(), |node, m| {
            lib.find_child(node, m.transformed(s))
        });
        end.and_then(|n| lib.comment(n)).is_some_and(|c| {
            body_lines(&c.content()).any(|l| parse_game_line(l).is_some_and(|g| g.key == key))
        })
    })
}

/// The symmetry that follows the tree deepest from `root`; ties go to the smallest image.
fn orientation(lib: &mut Library, root: NodeId, moves: &[Cell]) -> Symmetry {
    let depths = follow_depths(lib, root, moves);
    let mut best = Symmetry::Identity;
    for (i, s) in Symmetry::ALL.into_iter().enumerate().skip(1) {
        let (d, b) = (depths[i], depths[best.index()]);
        if d > b || (d == b && image_is_smaller(moves, s, best)) {
            best = s;
        }
    }
    best
}

/// How deep each of the 8 images of `moves` (in `Symmetry::ALL` order) follows the tree.
///
/// The images are walked together, a level at a time, and the children of a node are read once
/// for all the images standing on it: near the root, where nodes have the most children, the
/// images stand on the same few nodes, and reading a child is a cache miss in a large tree.
fn follow_depths(lib: &mut Library, root: NodeId, moves: &[Cell]) -> [usize; 8] {
    let mut depth = [moves.len(); 8];
    // The node each image stands on; `None` once it has left the tree.
    let mut at: [Option<NodeId>; 8] = [Some(root); 8];
    for (level, m) in moves.iter().enumerate() {
        let wanted: [Cell; 8] = std::array::from_fn(|i| m.transformed(Symmetry::ALL[i]));
        let mut next: [Option<NodeId>; 8] = [None; 8];
        let mut served = [false; 8];
        for i in 0..8 {
            let Some(node) = at[i].filter(|_| !served[i]) else {
                continue;
            };
            let group: u8 = (i..8)
                .filter(|&j| at[j] == Some(node))
                .fold(0, |g, j| g | 1 << j);
            step_group(lib, node, group, &wanted, &mut next);
            for j in (0..8).filter(|&j| group & 1 << j != 0) {
                served[j] = true;
                if next[j].is_none() {
                    depth[j] = level;
                }
            }
        }
        at = next;
        if at.iter().all(Option::is_none) {
            break;
        }
    }
    depth
}

/// The children of `node` that the images in `group` (a bit per symmetry) want next, read in one
/// pass over the children, or from the node's table; a node found with many children gets one.
fn step_group(
    lib: &mut Library,
    node: NodeId,
    group: u8,
    wanted: &[Cell; 8],
    next: &mut [Option<NodeId>; 8],
) {
    let members = (0..8).filter(|&j| group & 1 << j != 0);
    if lib.is_indexed(node) {
        for j in members {
            next[j] = lib.find_child(node, wanted[j]);
        }
        return;
    }
    let mut missing = group;
    let mut scanned = 0;
    for c in lib.children(node) {
        scanned += 1;
        let cell = lib.cell(c);
        for j in 0..8 {
            if missing & 1 << j != 0 && wanted[j] == cell {
                next[j] = Some(c);
                missing &= !(1 << j);
            }
        }
        if missing == 0 {
            break;
        }
    }
    if scanned >= crate::formats::renlib::wide::WIDE {
        lib.index_children(node);
    }
}

/// Whether the image of `moves` under `a` sorts before its image under `b`.
fn image_is_smaller(moves: &[Cell], a: Symmetry, b: Symmetry) -> bool {
    moves
        .iter()
        .map(|m| (m.transformed(a), m.transformed(b)))
        .find(|(x, y)| x != y)
        .is_some_and(|(x, y)| x < y)
}

/// Put a game line into a node's comment: among the game lines in key order, else last.
fn insert_game_line(lib: &mut Library, node: NodeId, line: Vec<u8>) {
    let mut lines = lib.comment(node).map(Comment::lines).unwrap_or_default();
    insert_line_sorted(&mut lines, line);
    lib.put_comment(node, Some(Comment::new(&lines.to_bytes())));
}

/// The symmetry under which most of `other`'s nodes below its root are found in `lib`.
fn library_orientation(
    lib: &Library,
    root: NodeId,
    other: &Library,
    other_root: NodeId,
) -> Symmetry {
    let mut best = (0usize, Symmetry::Identity);
    for (i, s) in Symmetry::ALL.into_iter().enumerate() {
        let mut matched = 0;
        let mut stack = vec![(root, other_root)];
        while let Some((ours, theirs)) = stack.pop() {
            for oc in other.children(theirs) {
                if let Some(c) = lib.find_child(ours, other.cell(oc).transformed(s)) {
                    matched += 1;
                    stack.push((c, oc));
                }
            }
        }
        if i == 0 || matched > best.0 {
            best = (matched, s);
        }
    }
    best.1
}

/// Copy `theirs`'s marks, texts and subtree into the new node `ours`, children in their order.
/// Returns the number of nodes created, `ours` included.
fn copy_subtree(
    lib: &mut Library,
    ours: NodeId,
    other: &Library,
    theirs: NodeId,
    s: Symmetry,
) -> usize {
    let mut created = 1;
    copy_node(lib, ours, other, theirs);
    let mut stack = vec![(ours, theirs)];
    while let Some((o, t)) = stack.pop() {
        let mut prev: Option<NodeId> = None;
        for tc in other.children(t) {
            let cell = other.cell(tc).transformed(s);
            let c = match prev {
                None => lib.add_child_sorted(o, cell),
                Some(p) => lib.add_sibling_after(p, cell),
            };
            copy_node(lib, c, other, tc);
            created += 1;
            prev = Some(c);
            stack.push((c, tc));
        }
    }
    created
}

/// A new node takes the other's marks and payloads.
fn copy_node(lib: &mut Library, ours: NodeId, other: &Library, theirs: NodeId) {
    lib.set_marks(ours, other.marks(theirs));
    if let Some(extra) = other.extra(theirs) {
        let comment = extra.comment.as_ref().map(|c| adopt_comment(lib, c));
        let extension = extra.extension.clone();
        lib.put_extra(ours, Extra { comment, extension });
    }
}

/// The other library's comment as ours: kept as it is (bytes and style) unless it holds game
/// lines whose key we hold already elsewhere, which are left out so a game never counts twice.
/// Its game keys become ours.
fn adopt_comment(lib: &mut Library, c: &Comment) -> Comment {
    let lines = c.lines();
    let ids = lib.game_ids_mut();
    let known = |l: &Vec<u8>| parse_game_line(l).is_some_and(|g| ids.contains(g.key));
    let adopted = if lines.body_lines().iter().any(known) {
        let mut kept = lines.clone();
        if let Some(body) = kept.body.as_mut() {
            body.retain(|l| !known(l));
        }
        Comment::new(&kept.to_bytes())
    } else {
        c.clone()
    };
    for l in lines.body_lines() {
        if let Some(g) = parse_game_line(l) {
            ids.insert(g.key.into());
        }
    }
    adopted
}

/// An existing node gains what the other's node has and it lacks.
fn merge_node(lib: &mut Library, ours: NodeId, other: &Library, theirs: NodeId) {
    let (a, b) = (lib.marks(ours), other.marks(theirs));
    let marks = a
        .with(Marks::MARK, a.has(Marks::MARK) || b.has(Marks::MARK))
        .with(Marks::START, a.has(Marks::START) || b.has(Marks::START))
        .with(
            Marks::NOT_A_MOVE,
            a.has(Marks::NOT_A_MOVE) && b.has(Marks::NOT_A_MOVE),
        );
    lib.set_marks(ours, marks);
    let Some(theirs_extra) = other.extra(theirs) else {
        return;
    };
    let mut extra = lib.extra(ours).cloned().unwrap_or_default();
    extra.extension = merge_extension(extra.extension.take(), theirs_extra.extension.as_ref());
    extra.comment = match (extra.comment.take(), &theirs_extra.comment) {
        (mine, None) => mine,
        (None, Some(c)) => Some(adopt_comment(lib, c)),
        (Some(mine), Some(c)) if mine.content() == c.content() => Some(mine),
        (Some(mine), Some(c)) => Some(merge_comments(lib, &mine, c)),
    };
    lib.put_extra(ours, extra);
}

fn merge_extension(mine: Option<Extension>, theirs: Option<&Extension>) -> Option<Extension> {
    match (mine, theirs) {
        (m, None) => m,
        (None, Some(t)) => Some(t.clone()),
        (Some(mut m), Some(t)) => {
            m.other_bits = [
                m.other_bits[0] | t.other_bits[0],
                m.other_bits[1] | t.other_bits[1],
            ];
            if m.board_text.is_none() {
                m.board_text = t.board_text.clone();
            }
            Some(m)
        }
    }
}

/// Our comment plus the other's title (when ours has none, or as a body line) and its body lines
/// we lack; statistics lines are left out (they are recomputed), game lines whose key we hold are
/// left out, the others go in key order.
fn merge_comments(lib: &mut Library, mine: &Comment, theirs: &Comment) -> Comment {
    let original = mine.lines();
    let mut lines = original.clone();
    let other = theirs.lines();
    if lines.title.is_empty() {
        lines.title = other.title.clone();
    } else if !other.title.is_empty()
        && other.title != lines.title
        && !lines.body_lines().contains(&other.title)
    {
        lines.insert(lines.append_index(), other.title.clone());
    }
    for l in other.body_lines() {
        if is_stats_line(l) || lines.body_lines().contains(l) || l.is_empty() {
            continue;
        }
        match parse_game_line(l) {
            // The same run's game under its older or newer key, at the node it ends on.
            Some(g) if holds_other_key_of(&lines, g.key) => {}
            Some(g) => {
                let ids = lib.game_ids_mut();
                if ids.insert(g.key.into()) {
                    insert_line_sorted(&mut lines, l.clone());
                }
            }
            None => lines.insert(lines.append_index(), l.clone()),
        }
    }
    if lines == original {
        // Nothing new: keep the comment's bytes (style, padding) as they were.
        mine.clone()
    } else {
        Comment::new(&lines.to_bytes())
    }
}

/// Whether `lines` hold a game line for the same run's game as `key` under its other form:
/// `FINGERPRINT:GAME` (earlier builds) against `FINGERPRINT:GAME:MOVES`. Both sit on the node
/// the game ends on, so a library of each merged together keep the game once.
fn holds_other_key_of(lines: &CommentLines, key: &[u8]) -> bool {
    let older_of = |old: &[u8], new: &[u8]| {
        old.iter().filter(|&&b| b == b':').count() == 1
            && new.len() == old.len() + 17
            && new.starts_with(old)
            && new[old.len()] == b':'
    };
    lines
        .body_lines()
        .iter()
        .any(|l| parse_game_line(l).is_some_and(|g| older_of(g.key, key) || older_of(key, g.key)))
}

/// Game lines stay in key order and before the statistics line; the first one goes where the
/// statistics line is, or last.
fn insert_line_sorted(lines: &mut CommentLines, line: Vec<u8>) {
    let key = parse_game_line(&line)
        .map(|g| g.key.to_vec())
        .unwrap_or_default();
    let body = lines.body_lines();
    let games: Vec<(usize, &[u8])> = body
        .iter()
        .enumerate()
        .filter_map(|(i, l)| parse_game_line(l).map(|g| (i, g.key)))
        .collect();
    let index = games
        .iter()
        .find(|(_, k)| *k > key.as_slice())
        .map(|(i, _)| *i)
        .or_else(|| games.last().map(|(i, _)| i + 1))
        .or_else(|| body.iter().position(|l| is_stats_line(l)))
        .unwrap_or_else(|| lines.append_index());
    lines.insert(index, line);
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::formats::renlib::GameKey;

    /// A game of these point bytes, no result (the statistics' tests take it too).
    pub(crate) fn game(key: &str, moves: &[u8]) -> LibGame {
        let moves = moves.iter().map(|&b| Cell::from_byte(b).unwrap()).collect();
        LibGame::new(GameKey::new(key), moves, None, ("a", "b"), "").unwrap()
    }

    #[test]
    fn ties_go_to_the_smallest_image() {
        // h8 then the point right of it (0x79): its images 0x68, 0x77, 0x79 and 0x88 all tie on
        // an empty tree; the smallest in reading order is 0x68, the point above h8.
        let mut lib = Library::new();
        lib.merge_game(&game("a", &[0x78, 0x79]), CodePage::default());
        let h8 = lib.find_child(lib.game_root(), Cell::CENTER).unwrap();
        let kids: Vec<u8> = lib.children(h8).map(|c| lib.cell(c).byte()).collect();
        assert_eq!(kids, [0x68]);
    }

    #[test]
    fn games_of_two_runs_with_the_same_settings_all_go_in() {
        // The same fingerprint and game numbers, other moves: other games.
        let run = |moves: &[u8], game| {
            let moves = moves.iter().map(|&b| Cell::from_byte(b).unwrap()).collect();
            LibGame::of_run_for_tests("f00d", game, moves)
        };
        let mut lib = Library::new();
        let page = CodePage::default();
        for g in [run(&[0x78, 0x69], 1), run(&[0x78, 0x79, 0x88], 2)] {
            assert!(matches!(lib.merge_game(&g, page), GameMerge::Added { .. }));
        }
        for g in [run(&[0x78, 0x68, 0x57], 1), run(&[0x78, 0x89], 2)] {
            assert!(matches!(lib.merge_game(&g, page), GameMerge::Added { .. }));
        }
        assert_eq!(collect_game_ids(&lib).len(), 4);
        // Each again: nothing.
        for g in [run(&[0x78, 0x69], 1), run(&[0x78, 0x89], 2)] {
            assert_eq!(lib.merge_game(&g, page), GameMerge::AlreadyPresent);
        }
    }

    #[test]
    fn a_library_keyed_as_before_keeps_its_games_and_takes_other_runs() {
        // An older build keyed game 1 of run f00d `f00d:1`: its line, at the end of its moves,
        // still stands for that game; game 1 of another run with the same settings goes in.
        let moves = |b: &[u8]| b.iter().map(|&b| Cell::from_byte(b).unwrap()).collect();
        let page = CodePage::default();
        let mut lib = Library::new();
        let mut old = LibGame::of_run_for_tests("f00d", 1, moves(&[0x78, 0x69]));
        old.key = GameKey::new("f00d:1");
        old.legacy_key = None;
        lib.merge_game(&old, page);
        lib.set_comment(NodeId::TOP, None); // forget the collected keys: read as from a file
        let same = LibGame::of_run_for_tests("f00d", 1, moves(&[0x78, 0x69]));
        assert_eq!(lib.merge_game(&same, page), GameMerge::AlreadyPresent);
        // In another orientation too (the merge chose it).
        let mirrored = LibGame::of_run_for_tests("f00d", 1, moves(&[0x78, 0x87]));
        assert_eq!(lib.merge_game(&mirrored, page), GameMerge::AlreadyPresent);
        let other = LibGame::of_run_for_tests("f00d", 1, moves(&[0x78, 0x68, 0x57]));
        assert!(matches!(
            lib.merge_game(&other, page),
            GameMerge::Added { .. }
        ));
        assert_eq!(collect_game_ids(&lib).len(), 2);
    }

    #[test]
    fn libraries_keyed_before_and_after_merge_into_one_line_a_game() {
        let moves = |b: &[u8]| b.iter().map(|&b| Cell::from_byte(b).unwrap()).collect();
        let page = CodePage::default();
        let mut new = Library::new();
        new.merge_game(
            &LibGame::of_run_for_tests("f00d", 1, moves(&[0x78, 0x69])),
            page,
        );
        let mut old = Library::new();
        old.merge_game(&game("f00d:1", &[0x78, 0x69]), page);
        old.merge_game(&game("f00d:2", &[0x78, 0x68]), page);
        let mut both = new.clone();
        assert_eq!(both.merge_library(&old).new_games, 1);
        let mut back = old.clone();
        assert_eq!(back.merge_library(&new).new_games, 0);
        assert_eq!(collect_game_ids(&both).len(), 2);
        assert_eq!(collect_game_ids(&back).len(), 2);
    }

    #[test]
    fn a_game_line_removed_by_hand_lets_the_game_in_again() {
        let mut lib = Library::new();
        let g = game("k", &[0x78, 0x69]);
        assert!(matches!(
            lib.merge_game(&g, CodePage::default()),
            GameMerge::Added { .. }
        ));
        assert_eq!(
            lib.merge_game(&g, CodePage::default()),
            GameMerge::AlreadyPresent
        );
        let end = lib
            .preorder()
            .find(|&id| lib.comment(id).is_some())
            .unwrap();
        lib.set_comment(end, None);
        assert!(matches!(
            lib.merge_game(&g, CodePage::default()),
            GameMerge::Added { new_nodes: 0, .. }
        ));
    }

    #[test]
    fn a_game_away_from_h8_gives_a_30_library_a_root() {
        let mut lib = crate::formats::renlib::read(&[0x78, 0x40]).unwrap();
        assert_eq!(lib.game_root(), NodeId::TOP);
        lib.merge_game(&game("x", &[0x79]), CodePage::default());
        assert_eq!(lib.header().version(), (3, 4));
        let root = lib.game_root();
        assert_eq!(lib.cell(root), Cell::PASS);
        let kids: Vec<u8> = lib.children(root).map(|c| lib.cell(c).byte()).collect();
        assert_eq!(kids, [0x68, 0x78]);
    }
}
