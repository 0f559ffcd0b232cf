//! Reader fuzz: mutated and truncated library files never panic the reader, a file it accepts
//! writes back byte for byte (and can be counted, dumped and merged), an error names an offset
//! inside the file, and the memory a read takes is bounded by the file's length.
//!
//! `cargo test` runs a few thousand cases; `RENLIB_FUZZ_CASES=1000000` runs more
//! (`bench/renlib_fuzz.sh` runs a million in release mode).

use crate::common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use gomoku_cli::formats::renlib::stats::{refresh_stats, LibStats};
use gomoku_cli::formats::renlib::{
    dump, read, to_bytes, Cell, CodePage, GameKey, LibGame, Notation, ReadError,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Counts each thread's live heap bytes and their peak, so a read's memory can be measured. Per
/// thread: the allocator is the whole test binary's, and the other tests allocate on their own
/// threads while a read is measured on this one.
struct Counting;

thread_local! {
    /// Bytes this thread allocated less those it freed (below zero when it frees what another
    /// thread allocated). Const-initialised without a destructor: reading it never allocates.
    static LIVE: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
    /// The most `LIVE` has been since [`heap_used_by`] last reset it.
    static PEAK: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
}
/// The largest heap use per file byte seen, in hundredths, for the report.
static WORST_RATIO: AtomicUsize = AtomicUsize::new(0);

/// Adds `delta` to this thread's live bytes and raises its peak.
fn count(delta: isize) {
    // `try_with` fails only once the thread's locals are torn down: nothing to count then.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded to the system allocator with the caller's layout.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) };
        count(-(layout.size() as isize));
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What `f` returns, and the most heap bytes this thread held meanwhile beyond what it held
/// before.
fn heap_used_by<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(std::cell::Cell::get);
    PEAK.with(|peak| peak.set(base));
    let value = f();
    let used = PEAK.with(std::cell::Cell::get) - base;
    (
        value,
        usize::try_from(used).expect("the peak is at least the base"),
    )
}

/// Heap bytes a read may take for a file of `len` bytes: a node is two bytes of file and a dozen
/// in the arena; a text of two bytes can cost a hundred (its vector and map entry).
fn memory_bound(len: usize) -> usize {
    128 * len + (64 << 10)
}

/// The files mutations start from: every sample when the test data is there, and a small
/// library with every kind of payload (marks, start, extension, board text, comments of both
/// styles, a pass, bytes after the tree) that is always there.
fn corpus() -> Vec<Vec<u8>> {
    let mut files = vec![built_in()];
    if let Some(dir) = common::renlib_testdata() {
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "lib"))
            .collect();
        names.sort();
        files.extend(names.iter().map(|p| std::fs::read(p).unwrap()));
    }
    files
}

fn built_in() -> Vec<u8> {
    let mut v = vec![0xFF, b'R', b'e', b'n', b'L', b'i', b'b', 0xFF, 3, 4];
    v.extend_from_slice(&[0xFF; 10]);
    v.extend_from_slice(&[0x00, 0x00]); // root
    v.extend_from_slice(&[0x78, 0x98]); // h8: sibling, mark, comment
    v.extend_from_slice(b"Title\x08line\r\nline 2\0\0");
    v.extend_from_slice(&[0x68, 0x85, 0x00, 0x01]); // h9: sibling, start, extension + board text
    v.extend_from_slice(b"AB\0\0");
    v.extend_from_slice(&[0x69, 0x62]); // i9: leaf, old-style comment, not a move
    v.extend_from_slice(&[b'o', b'l', b'd' | 0x80, 0x00]);
    v.extend_from_slice(&[0x00, 0x08]); // pass with a comment
    v.extend_from_slice(b"p\0");
    v.extend_from_slice(&[0x59, 0x40]); // i10: leaf
    v.extend_from_slice(&[0x87, 0x40]); // g7: leaf, last
    v.extend_from_slice(&[0xAB, 0xCD]); // bytes after the tree
    v
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip { at: usize, bit: u8 },
    Set { at: usize, byte: u8 },
    Insert { at: usize, bytes: Vec<u8> },
    Delete { at: usize, len: usize },
    Truncate { at: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        2 => (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Set { at, byte }),
        1 => (any::<usize>(), prop::collection::vec(any::<u8>(), 1..6))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        1 => (any::<usize>(), 1usize..8).prop_map(|(at, len)| Mutation::Delete { at, len }),
        2 => any::<usize>().prop_map(|at| Mutation::Truncate { at }),
    ]
}

fn apply(mut bytes: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let n = bytes.len().max(1);
        match m {
            Mutation::Flip { at, bit } => {
                if let Some(b) = bytes.get_mut(at % n) {
                    *b ^= 1 << bit;
                }
            }
            Mutation::Set { at, byte } => {
                if let Some(b) = bytes.get_mut(at % n) {
                    *b = *byte;
                }
            }
            Mutation::Insert { at, bytes: ins } => {
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, ins.iter().copied());
            }
            Mutation::Delete { at, len } => {
                let at = at % n;
                let end = (at + len).min(bytes.len());
                bytes.drain(at.min(end)..end);
            }
            Mutation::Truncate { at } => bytes.truncate(at % (bytes.len() + 1)),
        }
    }
    bytes
}

fn error_offset(e: &ReadError) -> usize {
    match e {
        ReadError::NotALibrary { .. } => 0,
        ReadError::UnsupportedVersion { .. } => 8,
        ReadError::Truncated { offset, .. } | ReadError::BadPoint { offset, .. } => *offset,
        ReadError::TooLarge { len } => *len,
    }
}

/// One case: read, and everything that follows from what was read.
fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let (result, used) = heap_used_by(|| read(bytes));
    WORST_RATIO.fetch_max(100 * used / bytes.len().max(1), Ordering::Relaxed);
    prop_assert!(
        used <= memory_bound(bytes.len()),
        "{used} heap bytes to read {} bytes",
        bytes.len()
    );
    let mut lib = match result {
        Err(e) => {
            prop_assert!(error_offset(&e) <= bytes.len(), "{e}");
            prop_assert!(!e.to_string().is_empty());
            return Ok(());
        }
        Ok(lib) => lib,
    };
    prop_assert!(lib.node_count() <= bytes.len() / 2);
    prop_assert_eq!(
        to_bytes(&lib),
        bytes,
        "an accepted file must write back identically"
    );
    let stats = LibStats::of(&lib);
    prop_assert_eq!(stats.size, bytes.len());
    if bytes.len() < 20_000 {
        let page = CodePage::default();
        dump::write_tree(&lib, Notation::Renju, page, &mut std::io::sink()).unwrap();
        dump::write_paths(&lib, Notation::Pos, &mut std::io::sink()).unwrap();
        let copy = lib.clone();
        let game = LibGame::new(
            GameKey::new("fuzz"),
            vec![Cell::CENTER, Cell::from_byte(0x69).unwrap()],
            None,
            ("a", "b"),
            "",
        )
        .unwrap();
        lib.merge_game(&game, page);
        lib.merge_library(&copy);
        refresh_stats(&mut lib);
        prop_assert!(read(&to_bytes(&lib)).is_ok());
    }
    Ok(())
}

/// The measure sees what the measured thread allocates, and not what another thread allocates
/// meanwhile (the other tests of this binary run beside the fuzz).
#[test]
fn the_heap_measure_counts_the_measured_thread_only() {
    const MIB: usize = 1 << 20;
    let (own, used) = heap_used_by(|| std::hint::black_box(vec![1u8; MIB]));
    assert!(
        used >= MIB,
        "{used} bytes measured for a MiB allocated here"
    );
    drop(own);
    let (theirs, used) = heap_used_by(|| {
        std::thread::spawn(|| std::hint::black_box(vec![1u8; MIB]))
            .join()
            .unwrap()
    });
    assert!(
        used < MIB / 2,
        "{used} bytes measured for a MiB allocated by another thread"
    );
    drop(theirs);
}

#[test]
fn mutated_and_truncated_libraries_never_break_the_reader() {
    let corpus = corpus();
    let cases = std::env::var("RENLIB_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    // Small files are picked more often: most mutations of a large one end its tree early.
    let weights: Vec<u32> = corpus
        .iter()
        .map(|f| if f.len() > 20_000 { 1 } else { 4 })
        .collect();
    let pick = prop::sample::select(
        (0..corpus.len())
            .flat_map(|i| std::iter::repeat_n(i, weights[i] as usize))
            .collect::<Vec<_>>(),
    );
    let strategy = (pick, prop::collection::vec(mutation(), 1..5));
    let started = std::time::Instant::now();
    runner
        .run(&strategy, |(i, muts)| {
            check(&apply(corpus[i].clone(), &muts))
        })
        .unwrap();
    // The untouched files too.
    for f in &corpus {
        check(f).unwrap();
    }
    println!(
        "{cases} mutated libraries read in {:.1} s; largest heap use {:.1} bytes per file byte",
        started.elapsed().as_secs_f64(),
        WORST_RATIO.load(Ordering::Relaxed) as f64 / 100.0
    );
}
