//! RenLib `.lib` files: `renlib::read`, then what `gomoku-cli lib` does with a library it read.
//! (`tests/it/renlib_fuzz.rs` mutates the sample libraries with proptest and measures the memory a
//! read takes; this target lets libFuzzer's coverage guide the bytes instead.)
//!
//! Checks: no panic; an error names an offset inside the file; an accepted file has at most a
//! node per two bytes and writes back byte for byte; its statistics, dumps, a game merged into
//! it, itself merged into it and the statistics comments refreshed all work, and the result reads
//! back.
#![no_main]

use gomoku_cli::formats::renlib::dump;
use gomoku_cli::formats::renlib::stats::{refresh_stats, LibStats};
use gomoku_cli::formats::renlib::{read, to_bytes, Cell, CodePage, GameKey, LibGame, Notation, ReadError};
use libfuzzer_sys::fuzz_target;

fn error_offset(e: &ReadError) -> usize {
    match e {
        ReadError::NotALibrary { .. } => 0,
        ReadError::UnsupportedVersion { .. } => 8,
        ReadError::Truncated { offset, .. } | ReadError::BadPoint { offset, .. } => *offset,
        ReadError::TooLarge { len } => *len,
    }
}

fuzz_target!(|data: &[u8]| {
    let mut lib = match read(data) {
        Err(e) => {
            assert!(error_offset(&e) <= data.len(), "{e}");
            assert!(!e.to_string().is_empty());
            return;
        }
        Ok(lib) => lib,
    };
    assert!(lib.node_count() <= data.len() / 2);
    assert!(
        to_bytes(&lib) == data,
        "an accepted file must write back identically"
    );
    assert_eq!(LibStats::of(&lib).size, data.len());
    let page = CodePage::default();
    dump::write_tree(&lib, Notation::Renju, page, &mut std::io::sink()).expect("a sink");
    dump::write_paths(&lib, Notation::Pos, &mut std::io::sink()).expect("a sink");
    let copy = lib.clone();
    let game = LibGame::new(
        GameKey::new("fuzz"),
        vec![Cell::CENTER, Cell::from_byte(0x69).expect("i9")],
        None,
        ("a", "b"),
        "",
    )
    .expect("a two-move game");
    lib.merge_game(&game, page);
    lib.merge_library(&copy);
    refresh_stats(&mut lib);
    if let Err(e) = read(&to_bytes(&lib)) {
        panic!("a merged library does not read back: {e}");
    }
});
