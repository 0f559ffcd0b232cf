//! Merge properties of RenLib libraries (issue 10): the 8 symmetries of a game share one branch;
//! merge order does not matter; merging into a library keeps every node, flag and text it had;
//! a library merged into itself changes nothing; a game merged twice goes in once; shard
//! libraries merged together equal the games merged directly.

use crate::common;

use std::collections::HashMap;

use gomoku_cli::core::board::{Pos, Symmetry};
use gomoku_cli::formats::renlib::stats::{refresh_stats, LibStats};
use gomoku_cli::formats::renlib::{
    read, to_bytes, Cell, CodePage, Comment, Extension, Extra, GameKey, GameMerge, LibGame,
    Library, Marks, NodeId, RawText,
};
use gomoku_cli::game::termination::GameResult;
use proptest::prelude::*;

/// The 7×7 square around the centre: small, so games share openings often.
fn region() -> Vec<Cell> {
    let mut v = Vec::new();
    for y in 4..11 {
        for x in 4..11 {
            v.push(Cell::from_pos(Pos::new(x, y)).unwrap());
        }
    }
    v
}

fn game(i: usize, moves: Vec<Cell>) -> LibGame {
    let result = [
        Some(GameResult::BlackWins),
        Some(GameResult::WhiteWins),
        Some(GameResult::Draw),
        None,
    ][i % 4];
    LibGame::new(
        GameKey::new(&format!("g{i:03}")),
        moves,
        result,
        ("b", "w"),
        "five",
    )
    .unwrap()
}

fn transformed(moves: &[Cell], s: Symmetry) -> Vec<Cell> {
    moves.iter().map(|c| c.transformed(s)).collect()
}

/// Games that share openings up to symmetry: each takes a prefix of one base game, in one of the
/// 8 orientations, and continues with other points of the region.
fn games(max: usize) -> impl Strategy<Value = Vec<LibGame>> {
    let base = Just(region()).prop_shuffle();
    let variant = (
        0usize..12,
        0usize..8,
        Just(region()).prop_shuffle(),
        0usize..12,
    );
    (base, prop::collection::vec(variant, 1..max)).prop_map(|(base, variants)| {
        variants
            .into_iter()
            .enumerate()
            .map(|(i, (cut, sym, tail, extra))| {
                let mut moves: Vec<Cell> = base[..cut].to_vec();
                let more: Vec<Cell> = tail
                    .into_iter()
                    .filter(|c| !moves.contains(c))
                    .take(extra + 1)
                    .collect();
                moves.extend(more);
                game(i, transformed(&moves, Symmetry::ALL[sym]))
            })
            .collect()
    })
}

/// 60 games from h8 whose other stones lie anywhere: h8 gets many children. Keys from `first`.
fn wide_games(first: usize) -> impl Strategy<Value = Vec<LibGame>> {
    let all: Vec<Cell> = (0..15)
        .flat_map(|y| (0..15).map(move |x| Cell::from_pos(Pos::new(x, y)).unwrap()))
        .filter(|&c| c != Cell::CENTER)
        .collect();
    prop::collection::vec((Just(all).prop_shuffle(), 1usize..5), 60).prop_map(move |v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (cells, len))| {
                let moves = std::iter::once(Cell::CENTER)
                    .chain(cells.into_iter().take(len))
                    .collect();
                game(first + i, moves)
            })
            .collect()
    })
}

fn merged(games: &[LibGame]) -> Library {
    let mut lib = Library::new();
    for g in games {
        lib.merge_game(g, CodePage::default());
    }
    lib
}

/// A library merged from games, then given marks, comments and board texts on some nodes.
fn decorated() -> impl Strategy<Value = Library> {
    let note = (
        any::<u8>(),
        "[a-z ]{0,12}",
        prop::option::of("[a-z ]{0,12}"),
    );
    (
        games(8),
        prop::collection::vec((any::<usize>(), note), 0..10),
    )
        .prop_map(|(gs, notes)| {
            let mut lib = merged(&gs);
            let ids: Vec<NodeId> = lib.preorder().collect();
            for (pick, (bits, title, body)) in notes {
                let id = ids[pick % ids.len()];
                lib.set_marks(id, Marks::from_flags(bits & (Marks::MARK | Marks::START)));
                let mut text = title.into_bytes();
                if let Some(b) = body {
                    text.push(8);
                    text.extend_from_slice(b.as_bytes());
                }
                let extension =
                    (bits & 1 == 1).then(|| Extension::new([0, 0], Some(RawText::new_style(b"A"))));
                let comment = lib.comment(id).cloned().or(Some(Comment::new(&text)));
                lib.set_extra(id, Extra { comment, extension });
            }
            lib
        })
}

/// The sample libraries, when the test data is there.
fn sample_libraries() -> Vec<Library> {
    let Some(dir) = common::renlib_testdata() else {
        return Vec::new();
    };
    ["D4.lib", "I7.lib", "VCF.lib", "synthetic_v34.lib"]
        .iter()
        .map(|f| read(&std::fs::read(dir.join(f)).unwrap()).unwrap())
        .collect()
}

/// Every node of `lib` by its path of points from the game root (plus the root itself).
fn by_path(lib: &Library) -> HashMap<Vec<Cell>, NodeId> {
    let mut out = HashMap::new();
    let mut stack = vec![(lib.game_root(), Vec::new())];
    while let Some((id, path)) = stack.pop() {
        for c in lib.children(id) {
            let mut p = path.clone();
            p.push(lib.cell(c));
            stack.push((c, p));
        }
        out.insert(path, id);
    }
    out
}

/// The lines of a comment (title first), for "every line is still there, in order".
fn lines_of(c: Option<&Comment>) -> Vec<Vec<u8>> {
    c.map_or_else(Vec::new, |c| {
        let l = c.lines();
        std::iter::once(l.title.clone())
            .chain(l.body_lines().iter().cloned())
            .collect()
    })
}

fn is_subsequence(small: &[Vec<u8>], big: &[Vec<u8>]) -> bool {
    let mut it = big.iter();
    small.iter().all(|s| it.any(|b| b == s))
}

/// Every node of `before` is in `after` with its marks (a game may make a "not a move" node a
/// move), its comment lines in order, its board text and extension bits.
fn assert_kept(before: &Library, after: &Library) {
    let nodes_after = by_path(after);
    for (path, id) in by_path(before) {
        let Some(&a) = nodes_after.get(&path) else {
            panic!("node {path:?} lost");
        };
        let (mb, ma) = (before.marks(id).bits(), after.marks(a).bits());
        assert_eq!(
            mb & !Marks::NOT_A_MOVE,
            ma & mb & !Marks::NOT_A_MOVE,
            "marks of {path:?}"
        );
        let (lb, la) = (lines_of(before.comment(id)), lines_of(after.comment(a)));
        assert!(
            is_subsequence(&lb, &la),
            "comment of {path:?}: {lb:?} → {la:?}"
        );
        if let Some(c) = before.comment(id) {
            assert_eq!(c.lines().title, after.comment(a).unwrap().lines().title);
        }
        assert_eq!(
            before.board_text(id),
            after.board_text(a),
            "board text of {path:?}"
        );
        let bits = |l: &Library, n| {
            l.extra(n)
                .and_then(|e| e.extension.clone())
                .map(|x| x.bytes())
        };
        if let Some([x, y]) = bits(before, id) {
            let [p, q] = bits(after, a).expect("extension kept");
            assert_eq!((x & p, y & q), (x, y), "extension of {path:?}");
        }
    }
    assert!(after.node_count() >= before.node_count());
}

fn config() -> ProptestConfig {
    ProptestConfig::with_cases(64)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_8_symmetries_of_a_game_share_one_branch(moves in Just(region()).prop_shuffle(), len in 1usize..30) {
        let moves = &moves[..len];
        let mut lib = Library::new();
        for (i, s) in Symmetry::ALL.into_iter().enumerate() {
            let r = lib.merge_game(&game(i, transformed(moves, s)), CodePage::default());
            let expected_new = if i == 0 { len } else { 0 };
            prop_assert!(matches!(r, GameMerge::Added { new_nodes, .. } if new_nodes == expected_new), "{r:?}");
        }
        let stats = LibStats::of(&lib);
        prop_assert_eq!(stats.nodes, len + 1);
        prop_assert_eq!(stats.leaves, 1);
        prop_assert_eq!(stats.games, 8);
    }

    #[test]
    fn merge_order_does_not_matter(gs in games(10), seed in any::<u64>()) {
        let mut shuffled = gs.clone();
        // A deterministic shuffle from the seed (a rotation and a reversal).
        let k = (seed as usize) % shuffled.len();
        shuffled.rotate_left(k);
        if seed & 1 == 1 {
            shuffled.reverse();
        }
        let (mut a, mut b) = (merged(&gs), merged(&shuffled));
        prop_assert_eq!(to_bytes(&a), to_bytes(&b));
        refresh_stats(&mut a);
        refresh_stats(&mut b);
        prop_assert_eq!(to_bytes(&a), to_bytes(&b));
        // The same tree again gives the same bytes: the order of siblings is deterministic.
        prop_assert_eq!(to_bytes(&a), { let mut c = merged(&gs); refresh_stats(&mut c); to_bytes(&c) });
    }

    #[test]
    fn merging_into_a_library_keeps_what_it_had(existing in decorated(), gs in games(10), stats in any::<bool>()) {
        let mut lib = existing.clone();
        for g in &gs {
            lib.merge_game(g, CodePage::default());
        }
        if stats {
            refresh_stats(&mut lib);
        }
        assert_kept(&existing, &lib);
        let back = read(&to_bytes(&lib)).unwrap();
        prop_assert_eq!(to_bytes(&back), to_bytes(&lib));
    }

    #[test]
    fn merging_into_the_samples_keeps_what_they_had(gs in games(6)) {
        for existing in sample_libraries() {
            let mut lib = existing.clone();
            for g in &gs {
                lib.merge_game(g, CodePage::default());
            }
            refresh_stats(&mut lib);
            assert_kept(&existing, &lib);
            let mut again = lib.clone();
            again.merge_library(&existing);
            prop_assert_eq!(to_bytes(&again), to_bytes(&lib));
        }
    }

    #[test]
    fn a_library_merged_into_itself_changes_nothing(existing in decorated(), stats in any::<bool>()) {
        let mut lib = existing.clone();
        if stats {
            refresh_stats(&mut lib);
        }
        let before = to_bytes(&lib);
        let copy = lib.clone();
        let m = lib.merge_library(&copy);
        prop_assert_eq!(m.new_nodes, 0);
        prop_assert_eq!(m.symmetry, Symmetry::Identity);
        prop_assert_eq!(to_bytes(&lib), before);
    }

    #[test]
    fn a_game_merged_twice_goes_in_once(gs in games(6), sym in 0usize..8) {
        let mut lib = merged(&gs);
        refresh_stats(&mut lib);
        let before = to_bytes(&lib);
        for g in &gs {
            let mut again = g.clone();
            again.moves = transformed(&g.moves, Symmetry::ALL[sym]);
            prop_assert_eq!(lib.merge_game(&again, CodePage::default()), GameMerge::AlreadyPresent);
        }
        refresh_stats(&mut lib);
        prop_assert_eq!(to_bytes(&lib), before);
    }

    #[test]
    fn child_tables_do_not_change_what_a_merge_does(first in wide_games(0), then in wide_games(100)) {
        // `fresh` is the same library read back from its bytes: none of its nodes has a child
        // table yet, while `built` made them during its merges (h8 gets dozens of children).
        let mut built = merged(&first);
        let mut fresh = read(&to_bytes(&built)).unwrap();
        for g in &then {
            let (a, b) = (built.merge_game(g, CodePage::default()), fresh.merge_game(g, CodePage::default()));
            prop_assert_eq!(a, b);
        }
        prop_assert_eq!(to_bytes(&built), to_bytes(&fresh));
        let h8 = built.find_child(built.game_root(), Cell::CENTER).unwrap();
        prop_assert!(built.children(h8).count() >= 16, "h8 must have many children");
    }

    #[test]
    fn shard_libraries_merge_like_their_games(gs in games(12), cut in any::<usize>()) {
        let cut = cut % (gs.len() + 1);
        let (mut a, mut b) = (merged(&gs[..cut]), merged(&gs[cut..]));
        refresh_stats(&mut a);
        refresh_stats(&mut b);
        let mut together = Library::new();
        together.merge_library(&a);
        let m = together.merge_library(&b);
        prop_assert_eq!(m.symmetry, Symmetry::Identity);
        refresh_stats(&mut together);
        let mut direct = merged(&gs);
        refresh_stats(&mut direct);
        prop_assert_eq!(to_bytes(&together), to_bytes(&direct));
    }
}

#[test]
fn a_sample_merged_into_itself_changes_nothing() {
    for lib in sample_libraries() {
        let mut twice = lib.clone();
        let m = twice.merge_library(&lib);
        assert_eq!(m.new_nodes, 0);
        assert_eq!(to_bytes(&twice), to_bytes(&lib));
    }
}
