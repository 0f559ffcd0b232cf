//! What `gomoku-cli lib merge` reads besides libraries and journals: SGF files (`renlib::sgf`,
//! main lines through `LibGame::from_sgf`), Piskvork `.psq` records (`LibGame::from_psq`) and
//! pos-notation game lists (`LibGame::from_pos_line`), each merged into a library.
//!
//! Input: byte 0 picks the kind (SGF, psq, pos list), the rest is the file, read as the command
//! reads it (invalid UTF-8 replaced). Checks: no panic; an SGF error names an offset inside the
//! text; a game merged again changes nothing, and so does merging the library into itself; the
//! library written out reads back and writes back byte for byte.
#![no_main]

use gomoku_cli::formats::psq;
use gomoku_cli::formats::renlib::sgf::{self, SgfError};
use gomoku_cli::formats::renlib::{read, to_bytes, CodePage, GameMerge, LibGame, Library};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&kind, file)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(file);
    let games: Vec<LibGame> = match kind % 3 {
        0 => match sgf::parse(&text) {
            Ok(games) => games
                .iter()
                .filter_map(|g| LibGame::from_sgf(g).ok())
                .collect(),
            Err(e) => {
                let (SgfError::Unexpected { offset, .. } | SgfError::Unterminated { offset, .. }) =
                    e;
                assert!(offset <= text.len(), "{e}");
                return;
            }
        },
        1 => match psq::parse(&text) {
            Ok(game) => LibGame::from_psq(&game).into_iter().collect(),
            Err(_) => return,
        },
        _ => text
            .split('\n')
            .filter_map(LibGame::from_pos_line)
            .filter_map(Result::ok)
            .collect(),
    };
    let page = CodePage::default();
    let mut lib = Library::new();
    for game in &games {
        lib.merge_game(game, page);
        let before = to_bytes(&lib);
        assert_eq!(lib.merge_game(game, page), GameMerge::AlreadyPresent);
        assert!(
            to_bytes(&lib) == before,
            "a game merged again changed the library"
        );
    }
    let bytes = to_bytes(&lib);
    let copy = lib.clone();
    lib.merge_library(&copy);
    assert!(
        to_bytes(&lib) == bytes,
        "merging a library into itself changed it"
    );
    let again = read(&bytes).unwrap_or_else(|e| panic!("a merged library does not read: {e}"));
    assert!(
        to_bytes(&again) == bytes,
        "a merged library does not write back the same"
    );
});
