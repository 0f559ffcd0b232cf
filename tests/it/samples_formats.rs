//! Training sample files: selection rules, exact csv, bin and binpack encodings, round trips through
//! the writer and reader for every format, bin_lz4 and binpack_lz4 files checked with the real
//! `lz4` tool and python's `lz4.frame` (including files whose writer was never finished or was cut
//! mid-write), `samples stats` on cut files, and a real run writing binpack_lz4.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use chrono::{TimeZone, Utc};
use gomoku_cli::core::board::{parse_pos_sequence, BoardSize, Color, Pos, Symmetry};
use gomoku_cli::core::rules::{ForbiddenKind, Rule};
use gomoku_cli::formats::samples::{
    bin_word, game_rng, read_samples, samples_of, samples_stats_command, Sample, SampleConfig,
    SampleEncodeError, SampleFormat, SampleReadError, SampleResult, SampleWriteError, SampleWriter,
    StoredSample,
};
use gomoku_cli::game::record::{GameOutcome, GameRecord, PlayedMove};
use gomoku_cli::game::termination::{GameResult, IllegalMoveKind, Termination};
use gomoku_cli::schedule::{EngineId, GameId};

fn size(n: u32) -> BoardSize {
    BoardSize::new(n).unwrap()
}

fn seq(text: &str, n: u32) -> Vec<Pos> {
    parse_pos_sequence(text, size(n)).unwrap()
}

/// A finished game on a `n`×`n` board: `opening` and `moves` in pos notation.
fn record(
    n: u32,
    rule: Rule,
    opening: &str,
    moves: &str,
    result: GameResult,
    termination: Termination,
) -> GameRecord {
    assert_eq!(
        termination.result(),
        result,
        "the termination decides the result"
    );
    GameRecord {
        game: GameId(1),
        round: 0,
        pair: 0,
        pair_game: 0,
        black: EngineId(0),
        white: EngineId(1),
        black_name: "a".into(),
        black_cmd: "a".into(),
        white_cmd: "b".into(),
        white_name: "b".into(),
        size: size(n),
        rule,
        opening: seq(opening, n),
        opening_line: None,
        transform: Symmetry::Identity,
        outcome: GameOutcome {
            termination,
            moves: seq(moves, n)
                .into_iter()
                .map(|pos| PlayedMove {
                    pos,
                    time: Duration::from_millis(5),
                    search: None,
                })
                .collect(),
            messages: vec![],
        },
        started: Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap(),
        ended: Utc.with_ymd_and_hms(2026, 1, 1, 0, 1, 0).unwrap(),
        usage: None,
        swap: None,
        tune: None,
    }
}

fn five(line: &str, n: u32) -> Termination {
    Termination::Five {
        winner: Color::Black,
        line: seq(line, n),
    }
}

/// Black wins on 15×15 freestyle after the opening h8 i9.
fn black_five() -> GameRecord {
    record(
        15,
        Rule::Freestyle,
        "h8i9",
        "h9i10h10i11h11i12h12",
        GameResult::BlackWins,
        five("h8h9h10h11h12", 15),
    )
}

/// A renju game black loses by playing a forbidden point (not part of `moves`).
fn renju_forbidden() -> GameRecord {
    record(
        15,
        Rule::Renju,
        "h8",
        "a1i9a2j10",
        GameResult::WhiteWins,
        Termination::Forbidden {
            kind: ForbiddenKind::DoubleThree,
            at: seq("g8", 15)[0],
        },
    )
}

/// A draw with no opening and an odd board, so the first sample has an empty position.
fn empty_start_draw() -> GameRecord {
    record(
        19,
        Rule::ExactFive,
        "",
        "j10a1s19k11",
        GameResult::Draw,
        Termination::DrawAfter { stones: 4 },
    )
}

fn games() -> Vec<GameRecord> {
    vec![black_five(), renju_forbidden(), empty_start_draw()]
}

fn all_samples(r: &GameRecord) -> Vec<Sample> {
    samples_of(r, 1.0, &mut game_rng(1, r.game.0))
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Write `batches` (one per game) to a fresh file and finish the writer.
fn write_file(dir: &Path, format: SampleFormat, batches: &[Vec<Sample>]) -> PathBuf {
    let file = dir.join(format.default_file());
    let cfg = SampleConfig::new(format, file.clone());
    let mut w = SampleWriter::open(&cfg).unwrap();
    for b in batches {
        w.write_game(b).unwrap();
    }
    w.finish().unwrap();
    file
}

fn stored(samples: &[Sample], format: SampleFormat) -> Vec<StoredSample> {
    samples
        .iter()
        .map(|s| StoredSample::stored_as(s, format))
        .collect()
}

/// Whether an external tool is usable; absent tools skip the test except on CI.
fn have(tool: &str, probe: &[&str]) -> bool {
    let ok = Command::new(tool)
        .args(probe)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("{tool} {probe:?} is required on CI");
        }
        eprintln!("skipping: {tool} {probe:?} is not available");
    }
    ok
}

fn lz4_cli_decode(path: &Path) -> Vec<u8> {
    let out = Command::new("lz4")
        .args(["-d", "-c"])
        .arg(path)
        .output()
        .unwrap();
    common::assert_ok(&out, "lz4 -d");
    out.stdout
}

/// Python's `lz4.frame.decompress` stops after the first frame, so decode frame by frame with
/// `LZ4FrameDecompressor` and its `unused_data`, as a trainer reading our files would.
const PY_DECODE: &str = r#"
import sys, lz4.frame
data = open(sys.argv[1], 'rb').read()
out = b''
while data:
    d = lz4.frame.LZ4FrameDecompressor()
    out += d.decompress(data)
    if not d.eof:
        sys.exit('truncated frame')
    data = d.unused_data
sys.stdout.buffer.write(out)
"#;

fn python_decode(path: &Path) -> Vec<u8> {
    let out = Command::new("python3")
        .args(["-c", PY_DECODE])
        .arg(path)
        .output()
        .unwrap();
    common::assert_ok(&out, "python lz4.frame");
    out.stdout
}

// ---------------------------------------------------------------------------------------------

#[test]
fn selection_follows_the_rules() {
    // Every played move once, the winning move last; opening stones are never moves.
    let r = black_five();
    let s = all_samples(&r);
    assert_eq!(s.len(), 7);
    assert_eq!(s.last().unwrap().mv, seq("h12", 15)[0]);
    assert_eq!(s[0].position, seq("h8i9", 15));
    // Black moved at even plies and won.
    let results: Vec<_> = s.iter().map(|x| x.result).collect();
    use SampleResult::*;
    assert_eq!(results, [Win, Loss, Win, Loss, Win, Loss, Win]);

    // freq 0: nothing; freq in between: a subset, in order.
    assert!(samples_of(&r, 0.0, &mut game_rng(9, 9)).is_empty());
    let some = samples_of(&r, 0.5, &mut game_rng(9, 9));
    assert!(some.iter().all(|x| s.contains(x)));

    // Odd opening: white moves first among the played moves.
    let mut odd = black_five();
    odd.opening = seq("h8", 15);
    odd.outcome.moves.insert(
        0,
        PlayedMove {
            pos: seq("i9", 15)[0],
            time: Duration::ZERO,
            search: None,
        },
    );
    let s = all_samples(&odd);
    assert_eq!(s.len(), 8);
    assert_eq!(s[0].result, Loss, "white to move at ply 1, black won");
    assert_eq!(s[0].position, seq("h8", 15));
}

#[test]
fn forbidden_move_is_not_a_sample_but_the_game_is() {
    let r = renju_forbidden();
    let s = all_samples(&r);
    assert_eq!(s.len(), 4);
    let g8 = seq("g8", 15)[0];
    assert!(s.iter().all(|x| x.mv != g8 && !x.position.contains(&g8)));
    assert_eq!(s.last().unwrap().mv, seq("j10", 15)[0]);
    // Opening h8 is black's; a1 (ply 1) is white's: white won.
    let results: Vec<_> = s.iter().map(|x| x.result).collect();
    use SampleResult::*;
    assert_eq!(results, [Win, Loss, Win, Loss]);
}

#[test]
fn forfeits_crashes_and_illegal_moves_give_no_samples() {
    let base = black_five();
    for t in [
        Termination::TimeForfeit {
            by: Color::White,
            elapsed: Duration::from_secs(6),
            limit: Duration::from_secs(5),
            said: None,
        },
        Termination::Crash {
            by: Color::White,
            status: "exit 1".into(),
        },
        Termination::IllegalMove {
            by: Color::White,
            kind: IllegalMoveKind::Occupied,
            text: "7,7".into(),
            at: None,
        },
        Termination::FailedStart {
            by: Color::White,
            text: "ERROR".into(),
        },
    ] {
        let mut r = base.clone();
        r.outcome.termination = t.clone();
        assert!(all_samples(&r).is_empty(), "{t:?}");
    }
    // And a writer given such a game adds nothing to the file: it holds only the empty frame
    // every new LZ4 file starts with.
    let dir = tmp();
    let file = write_file(dir.path(), SampleFormat::BinLz4, &[vec![]]);
    assert_eq!(std::fs::metadata(file).unwrap().len(), 11);
}

#[test]
fn csv_lines_are_exact() {
    let mut out = Vec::new();
    let w = {
        let mut w = SampleWriter::new(SampleFormat::Csv, &mut out, "mem");
        w.write_game(&all_samples(&black_five())[..2]).unwrap();
        w.write_game(&all_samples(&empty_start_draw())[..2])
            .unwrap();
        w.samples_written()
    };
    assert_eq!(w, 4);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "h8i9,h9,2\nh8i9h9,i10,0\n,j10,1\nj10,a1,1\n"
    );
}

#[test]
fn bin_entry_bytes_match_the_format() {
    // First sample of black_five: position h8 i9 (x=7,y=7; x=8,y=8), move h9 (x=7,y=8),
    // black to move and black won: result 2, ply 2, size 15, freestyle (0).
    //   word0 = 2 | 2<<2 | 15<<11 = 0x780A
    //   word1 = 0 | ((7<<5)|8)<<3 = 232<<3 = 0x0740
    //   stones: (7<<5)|7 = 0x00E7, (8<<5)|8 = 0x0108
    let mut out = Vec::new();
    let mut w = SampleWriter::new(SampleFormat::Bin, &mut out, "mem");
    w.write_game(&all_samples(&black_five())[..1]).unwrap();
    drop(w);
    assert_eq!(out, [0x0A, 0x78, 0x40, 0x07, 0xE7, 0x00, 0x08, 0x01]);

    // Renju sets the rule bits (4); white to move after h8 and white won: result 2, ply 1.
    //   word0 = 2 | 1<<2 | 15<<11 = 0x7806, word1 = 4 | ((0<<5)|0)<<3 = 0x0004 (a1 = 0,0)
    let mut out = Vec::new();
    let mut w = SampleWriter::new(SampleFormat::Bin, &mut out, "mem");
    w.write_game(&all_samples(&renju_forbidden())[..1]).unwrap();
    drop(w);
    assert_eq!(out, [0x06, 0x78, 0x04, 0x00, 0xE7, 0x00]);
}

#[test]
fn binpack_entry_bytes_match_the_format() {
    // The first two samples of black_five are one chain: start position h8 i9 (2 stones), moves
    // h9 and i10, black to move at the start and black won: result 2; size 15, freestyle (0).
    //   word1 = 15 | 0<<5 | 2<<8 | 4<<12 (stones at the end) | 2<<22 (stones at the start)
    //         = 0x0080_420F
    //   word2 = 0 (game tag) | 2<<14 (moves) = 0x0000_8000
    //   stones: h8 (7<<5)|7 = 0x00E7, i9 (8<<5)|8 = 0x0108
    //   moves, flags 0b111 (first and last of a one-move group, no evaluation) | move<<6, eval 0:
    //     h9 (7<<5)|8 = 232: 7 | 232<<6 = 0x3A07; i10 (8<<5)|9 = 265: 7 | 265<<6 = 0x4247
    let mut out = Vec::new();
    let mut w = SampleWriter::new(SampleFormat::Binpack, &mut out, "mem");
    w.write_game(&all_samples(&black_five())[..2]).unwrap();
    drop(w);
    #[rustfmt::skip]
    let want = [
        0x0F, 0x42, 0x80, 0x00, 0x00, 0x80, 0x00, 0x00, // head
        0xE7, 0x00, 0x08, 0x01, // h8 i9
        0x07, 0x3A, 0x00, 0x00, // h9
        0x47, 0x42, 0x00, 0x00, // i10
    ];
    assert_eq!(out, want);

    // A renju game's single sampled position (white to move after h8, white won): an entry of
    // its own, rule 4 and result 2 for white.
    //   word1 = 15 | 4<<5 | 2<<8 | 2<<12 | 1<<22 = 0x0040_228F, word2 = 1<<14
    //   h8 = 0x00E7, then a1 (0,0): 7 | 0<<6 = 0x0007
    let mut out = Vec::new();
    let mut w = SampleWriter::new(SampleFormat::Binpack, &mut out, "mem");
    w.write_game(&all_samples(&renju_forbidden())[..1]).unwrap();
    drop(w);
    assert_eq!(
        out,
        [0x8F, 0x22, 0x40, 0x00, 0x00, 0x40, 0x00, 0x00, 0xE7, 0x00, 0x07, 0x00, 0x00, 0x00]
    );
}

#[test]
fn binpack_keeps_every_sampled_move_in_chains_of_consecutive_positions() {
    // Moves 0, 1, 2 and 5 of black_five sampled (as freq < 1 might): two entries, the second of
    // a single position, which the predecessor would have dropped.
    let s = all_samples(&black_five());
    let picked = vec![s[0].clone(), s[1].clone(), s[2].clone(), s[5].clone()];
    let dir = tmp();
    let file = write_file(
        dir.path(),
        SampleFormat::Binpack,
        std::slice::from_ref(&picked),
    );
    let bytes = std::fs::read(&file).unwrap();
    // Entry 1: head, 2 stones, 3 moves; entry 2: head, 7 stones, 1 move.
    assert_eq!(bytes.len(), (8 + 2 * 2 + 4 * 3) + (8 + 2 * 7 + 4));
    assert_eq!(
        read_samples(&file, SampleFormat::Binpack).unwrap(),
        stored(&picked, SampleFormat::Binpack)
    );
    let report = samples_stats_command(&file, None).unwrap();
    assert!(report.damage.is_none());
    assert!(
        report.text.contains(
            "samples: 4\nbinpack entries: 2 (chains of consecutive positions), moves: 4\n"
        ),
        "{}",
        report.text
    );
}

#[test]
fn every_format_round_trips() {
    let batches: Vec<Vec<Sample>> = games().iter().map(all_samples).collect();
    let all: Vec<Sample> = batches.concat();
    assert_eq!(all.len(), 7 + 4 + 4);
    for format in SampleFormat::ALL {
        let dir = tmp();
        let file = write_file(dir.path(), format, &batches);
        let back = read_samples(&file, format).unwrap();
        assert_eq!(back, stored(&all, format), "{format}");
    }
}

#[test]
fn writers_append_to_existing_files() {
    let a = all_samples(&black_five());
    let b = all_samples(&renju_forbidden());
    for format in SampleFormat::ALL {
        let dir = tmp();
        write_file(dir.path(), format, std::slice::from_ref(&a));
        let file = write_file(dir.path(), format, std::slice::from_ref(&b));
        let back = read_samples(&file, format).unwrap();
        assert_eq!(
            back,
            stored(&[a.clone(), b.clone()].concat(), format),
            "{format}"
        );
    }
}

/// The LZ4 formats and the uncompressed stream their frames hold.
const LZ4_FORMATS: [(SampleFormat, SampleFormat); 2] = [
    (SampleFormat::BinLz4, SampleFormat::Bin),
    (SampleFormat::BinpackLz4, SampleFormat::Binpack),
];

/// Each LZ4 format's file, decoded by `decode`, is its uncompressed format's file.
fn lz4_files_decode_to_the_uncompressed_bytes(decode: fn(&Path) -> Vec<u8>) {
    let batches: Vec<Vec<Sample>> = games().iter().map(all_samples).collect();
    for (lz4, plain) in LZ4_FORMATS {
        let dir = tmp();
        let plain = std::fs::read(write_file(dir.path(), plain, &batches)).unwrap();
        let file = write_file(dir.path(), lz4, &batches);
        assert_eq!(decode(&file), plain, "{lz4}");
    }
}

#[test]
fn lz4_file_decodes_with_the_lz4_tool_to_the_uncompressed_bytes() {
    if have("lz4", &["--version"]) {
        lz4_files_decode_to_the_uncompressed_bytes(lz4_cli_decode);
    }
}

#[test]
fn lz4_file_decodes_with_python_lz4_frame_to_the_uncompressed_bytes() {
    if have("python3", &["-c", "import lz4.frame"]) {
        lz4_files_decode_to_the_uncompressed_bytes(python_decode);
    }
}

#[test]
fn unfinished_writer_leaves_a_valid_file() {
    // Two games written, then the writer is dropped without finish() (as when the runner dies).
    let a = all_samples(&black_five());
    let b = all_samples(&empty_start_draw());
    for (format, plain) in LZ4_FORMATS {
        let dir = tmp();
        let file = dir.path().join(format!("crash.{}", format.default_file()));
        {
            let cfg = SampleConfig::new(format, file.clone());
            let mut w = SampleWriter::open(&cfg).unwrap();
            w.write_game(&a).unwrap();
            w.write_game(&b).unwrap();
            // No finish(), not even the destructor, as when the process is killed.
            std::mem::forget(w);
        }
        let want = stored(&[a.clone(), b.clone()].concat(), format);
        assert_eq!(read_samples(&file, format).unwrap(), want, "{format}");
        if have("lz4", &["--version"]) {
            let decoded = lz4_cli_decode(&file);
            let plain =
                std::fs::read(write_file(dir.path(), plain, &[a.clone(), b.clone()])).unwrap();
            assert_eq!(decoded, plain, "{format}");
        }
    }
}

#[test]
fn a_file_cut_mid_frame_is_reported_at_the_frame() {
    let a = all_samples(&black_five());
    let b = all_samples(&renju_forbidden());
    for (format, _) in LZ4_FORMATS {
        let dir = tmp();
        let file = write_file(dir.path(), format, std::slice::from_ref(&a));
        let first_len = std::fs::metadata(&file).unwrap().len();
        let file = write_file(dir.path(), format, std::slice::from_ref(&b));
        let full = std::fs::read(&file).unwrap();
        // Cut inside the second game's frame, as a kill during its write would.
        cut(&file, 3);
        let err = read_samples(&file, format).unwrap_err();
        match &err {
            SampleReadError::Lz4 { offset, path, .. } => {
                assert_eq!(*offset, first_len, "{format}");
                assert_eq!(path, &file);
            }
            other => panic!("{format}: unexpected error {other}"),
        }
        assert!(
            err.to_string().contains(&format!("byte {first_len}")),
            "{err}"
        );
        // Cutting back to the frame boundary recovers every finished game.
        std::fs::write(&file, &full[..first_len as usize]).unwrap();
        assert_eq!(
            read_samples(&file, format).unwrap(),
            stored(&a, format),
            "{format}"
        );
    }
}

#[test]
fn unencodable_games_are_refused_whole() {
    // Caro's rule code 8 does not fit the 3-bit rule field: refused, nothing written.
    // The same holds for binpack, whose rule field is bin's.
    let mut caro = black_five();
    caro.rule = Rule::Caro;
    for format in [
        SampleFormat::Bin,
        SampleFormat::Binpack,
        SampleFormat::BinpackLz4,
    ] {
        let mut out = Vec::new();
        let mut w = SampleWriter::new(format, &mut out, "caro.bin");
        let err = w.write_game(&all_samples(&caro)).unwrap_err();
        assert!(
            matches!(
                err,
                SampleWriteError::Encode {
                    source: SampleEncodeError::RuleDoesNotFit { code: 8, .. },
                    ..
                }
            ),
            "{format}"
        );
        assert!(err.to_string().contains("caro.bin"), "{err}");
        assert_eq!(w.samples_written(), 0);
        drop(w);
        assert!(out.is_empty(), "{format}");
    }
    // csv has no rule field and takes it.
    let mut out = Vec::new();
    SampleWriter::new(SampleFormat::Csv, &mut out, "caro.csv")
        .write_game(&all_samples(&caro))
        .unwrap();
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 7);

    // 27×27: beyond pos notation, fine for bin.
    // (Pos notation cannot even spell its points, so build the moves from coordinates.)
    let mut big = record(
        15,
        Rule::Freestyle,
        "",
        "",
        GameResult::Draw,
        Termination::FullBoard,
    );
    big.size = size(27);
    big.outcome.moves = [Pos::new(26, 0), Pos::new(0, 26)]
        .into_iter()
        .map(|pos| PlayedMove {
            pos,
            time: Duration::ZERO,
            search: None,
        })
        .collect();
    let mut out = Vec::new();
    let err = SampleWriter::new(SampleFormat::Csv, &mut out, "big.csv")
        .write_game(&all_samples(&big))
        .unwrap_err();
    assert!(err.to_string().contains("27x27"), "{err}");
    let mut out = Vec::new();
    SampleWriter::new(SampleFormat::Bin, &mut out, "big.bin")
        .write_game(&all_samples(&big))
        .unwrap();
    assert_eq!(out.len(), 4 + 6);
}

#[test]
fn reader_errors_name_the_place() {
    let dir = tmp();
    let csv = dir.path().join("bad.csv");
    std::fs::write(&csv, "h8,i9,2\nh8,i9,7\n").unwrap();
    let err = read_samples(&csv, SampleFormat::Csv).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("{}:2:", csv.display())),
        "{err}"
    );

    // A bin file whose second entry is cut short.
    let s = all_samples(&black_five());
    let bin = write_file(dir.path(), SampleFormat::Bin, &[s[..2].to_vec()]);
    let bytes = std::fs::read(&bin).unwrap();
    std::fs::write(&bin, &bytes[..bytes.len() - 1]).unwrap();
    let err = read_samples(&bin, SampleFormat::Bin).unwrap_err();
    match err {
        SampleReadError::Bin { offset, .. } => assert_eq!(offset, 4 + 2 * 2),
        other => panic!("unexpected error {other}"),
    }
}

#[test]
fn stats_command_guesses_the_format() {
    let batches: Vec<Vec<Sample>> = games().iter().map(all_samples).collect();
    let dir = tmp();
    let lz4 = write_file(dir.path(), SampleFormat::BinLz4, &batches);
    let report = samples_stats_command(&lz4, None).unwrap();
    assert!(report.damage.is_none(), "{report:?}");
    let text = report.text;
    assert!(text.contains("(bin_lz4)"), "{text}");
    assert!(text.contains("samples: 15\n"), "{text}");
    // Wins: 4 (black_five) + 2 (white in renju_forbidden); draws: 4.
    assert!(
        text.contains("loss 5 (33.3%), draw 4 (26.7%), win 6 (40.0%)"),
        "{text}"
    );
    assert!(text.contains("board sizes: 15x15 11, 19x19 4"), "{text}");
    assert!(
        text.contains("rules: freestyle (0) 7, exact five (1) 4, renju (4) 4"),
        "{text}"
    );

    let csv = write_file(dir.path(), SampleFormat::Csv, &batches);
    let text = samples_stats_command(&csv, None).unwrap().text;
    assert!(text.contains("not recorded (csv)"), "{text}");

    let odd = dir.path().join("samples.dat");
    std::fs::copy(&lz4, &odd).unwrap();
    assert!(matches!(
        samples_stats_command(&odd, None),
        Err(SampleReadError::UnknownFormat { .. })
    ));
    assert!(samples_stats_command(&odd, Some(SampleFormat::BinLz4))
        .unwrap()
        .text
        .contains("samples: 15"));
}

/// Cut `file` `n` bytes before its end, as a writer killed in the middle of a game's write leaves it.
fn cut(file: &Path, n: usize) {
    let full = std::fs::read(file).unwrap();
    std::fs::write(file, &full[..full.len() - n]).unwrap();
}

/// `gomoku-cli samples stats FILE`: exit code and standard output.
fn stats_cli(file: &Path) -> (Option<i32>, String) {
    let out = Command::new(common::runner())
        .args(["samples", "stats"])
        .arg(file)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn stats_of_a_cut_file_report_the_complete_part_then_the_cut_and_fail() {
    // Game a (7 samples) is complete; game b (4 samples) is cut 3 bytes before its end.
    let a = all_samples(&black_five());
    let b = all_samples(&renju_forbidden());
    // For each format: the samples before the cut, and where the cut is reported.
    let bin_len = |s: &[Sample]| s.iter().map(|x| 4 + 2 * x.position.len()).sum::<usize>();
    let cases = [
        // One frame per game: the cut frame is b's, which starts right after a's.
        (SampleFormat::BinLz4, 7, None),
        // b's first three entries are whole; its last starts after them.
        (SampleFormat::Bin, 10, Some(bin_len(&a) + bin_len(&b[..3]))),
        (SampleFormat::Csv, 10, None),
        // b's four samples are one chain: one entry, cut; a's entry is whole.
        (SampleFormat::Binpack, 7, Some(8 + 2 * 2 + 4 * 7)),
        (SampleFormat::BinpackLz4, 7, None),
    ];
    for (format, complete, offset) in cases {
        let dir = tmp();
        let file = write_file(dir.path(), format, std::slice::from_ref(&a));
        let first_len = std::fs::metadata(&file).unwrap().len() as usize;
        write_file(dir.path(), format, std::slice::from_ref(&b));
        cut(&file, 3);
        let offset = match format {
            SampleFormat::BinLz4 | SampleFormat::BinpackLz4 => first_len,
            SampleFormat::Csv => {
                // The last line starts after the file's last complete line.
                let text = std::fs::read(&file).unwrap();
                text.iter().rposition(|&c| c == b'\n').unwrap() + 1
            }
            _ => offset.unwrap(),
        };
        let (code, stdout) = stats_cli(&file);
        assert_eq!(code, Some(1), "{format}: {stdout}");
        assert!(
            stdout.contains(&format!("samples: {complete}\n")),
            "{format}: {stdout}"
        );
        // After the statistics: where the file is cut and why.
        let damage = stdout
            .split_once("results (side to move)")
            .map(|(_, rest)| rest)
            .unwrap_or_default();
        assert!(
            damage.contains(&format!("byte {offset}")) && damage.contains("cut"),
            "{format}: {stdout}"
        );
    }
}

/// One binpack entry as a trainer parses it, independently of the crate's reader.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct PackedEntry {
    size: u32,
    rule: u32,
    result: u32,
    /// Stone words `(x << 5) | y` of the starting position, then of the moves.
    start: Vec<u16>,
    moves: Vec<u16>,
}

/// Parse a binpack stream, checking what our writer promises: the game tag is 0, the stone
/// counts add up, every move is a one-move group without evaluation (flags 0b111, eval 0).
fn parse_binpack(bytes: &[u8]) -> Vec<PackedEntry> {
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let (w1, w2) = (u32_at(at), u32_at(at + 4));
        let (start, moves) = ((w1 >> 22) as usize, (w2 >> 14) as usize);
        assert_eq!(w2 & 0x3FFF, 0, "game tag");
        assert_eq!(
            ((w1 >> 12) & 1023) as usize,
            start + moves,
            "stones at the end"
        );
        at += 8;
        let start_words = (0..start).map(|i| u16_at(at + 2 * i)).collect();
        at += 2 * start;
        let move_words = (0..moves)
            .map(|i| {
                let w = u16_at(at + 4 * i);
                assert_eq!(w & 0x3F, 0b111, "flags");
                assert_eq!(u16_at(at + 4 * i + 2), 0, "evaluation");
                w >> 6
            })
            .collect();
        at += 4 * moves;
        out.push(PackedEntry {
            size: w1 & 31,
            rule: (w1 >> 5) & 7,
            result: (w1 >> 8) & 15,
            start: start_words,
            moves: move_words,
        });
    }
    assert_eq!(at, bytes.len(), "the stream ends with an entry");
    out
}

fn words(text: &str) -> Vec<u16> {
    seq(text, 15).into_iter().map(bin_word).collect()
}

#[test]
fn a_real_run_writes_binpack_lz4_that_real_readers_decode() {
    let dir = tmp();
    common::Match::new()
        .engine("pbrain-random", &[])
        .engine("pbrain-random", &[])
        .rule(4)
        .games(8)
        .concurrency(2)
        .openings_file(
            common::repo_root().join("openings/renju15.txt"),
            &["type=pos"],
        )
        .journal("j.jsonl")
        .samples(&["format=binpack_lz4"])
        .run_in(dir.path())
        .assert_success();
    // The default file name of the format.
    let file = dir.path().join("sample.binpack.lz4");
    // Decode every frame with the lz4 tool and with python's lz4.frame (which fails on an
    // incomplete frame); they must agree.
    let mut decoded = Vec::new();
    if have("lz4", &["--version"]) {
        decoded.push(lz4_cli_decode(&file));
    }
    if have("python3", &["-c", "import lz4.frame"]) {
        decoded.push(python_decode(&file));
    }
    let Some(bytes) = decoded.first() else {
        return;
    };
    assert!(decoded.iter().all(|d| d == bytes));
    let mut entries = parse_binpack(bytes);

    // freq=1: one entry per game with a played move, holding the opening and every move.
    let mut want = Vec::new();
    for g in common::journal_games(&dir.path().join("j.jsonl")) {
        let (opening, moves) = (g["opening"].as_str().unwrap(), g["moves"].as_str().unwrap());
        let clean = !["crash", "time_forfeit", "illegal_move", "failed_start"]
            .contains(&g["termination"].as_str().unwrap());
        if !clean || moves.is_empty() {
            continue;
        }
        let start = words(opening);
        // The result for the side to move after the opening (black when it has an even count).
        let black_to_move = start.len() % 2 == 0;
        let result = match (g["result"].as_str().unwrap(), black_to_move) {
            ("1/2-1/2", _) => 1,
            ("1-0", true) | ("0-1", false) => 2,
            _ => 0,
        };
        want.push(PackedEntry {
            size: 15,
            rule: 4,
            result,
            start,
            moves: words(moves),
        });
    }
    assert!(!want.is_empty());
    // Games finish in any order at -concurrency 2: compare as sets.
    entries.sort();
    want.sort();
    assert_eq!(entries, want);

    // Our own reader and `samples stats` agree.
    let samples: usize = want.iter().map(|e| e.moves.len()).sum();
    assert_eq!(
        read_samples(&file, SampleFormat::BinpackLz4).unwrap().len(),
        samples
    );
    let (code, stdout) = stats_cli(&file);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("(binpack_lz4)"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "samples: {samples}\nbinpack entries: {} (chains of consecutive positions), moves: {samples}\n",
            want.len()
        )),
        "{stdout}"
    );
}

#[test]
fn binpack_refuses_caro_before_the_first_game() {
    let dir = tmp();
    for format in ["format=binpack", "format=binpack_lz4"] {
        let run = common::Match::new()
            .engine("pbrain-random", &[])
            .engine("pbrain-random", &[])
            .rule(8)
            .samples(&[format])
            .run_in(dir.path());
        run.assert_exit(1);
        assert!(
            run.stderr.contains("-sample") && run.stderr.contains("caro (code 8) does not fit"),
            "{format}: {}",
            run.stderr
        );
    }
    // No game was played, so no sample file was created.
    assert!(!dir.path().join("sample.binpack").exists());
    assert!(!dir.path().join("sample.binpack.lz4").exists());
}

/// How a trainer opens an LZ4 sample file: `lz4.frame.open`, read to the end (every frame).
const PY_TRAINER_OPEN: &str = r#"
import sys, lz4.frame
with lz4.frame.open(sys.argv[1], 'rb') as f:
    sys.stdout.buffer.write(f.read())
"#;

#[test]
fn an_lz4_file_without_samples_is_a_valid_empty_frame() {
    for (format, plain) in LZ4_FORMATS {
        let dir = tmp();
        // No game (a run stopped before its first one, or only games without samples).
        let empty = write_file(dir.path(), format, &[]);
        let bytes = std::fs::read(&empty).unwrap();
        assert_eq!(bytes.len(), 11, "{format}: {bytes:02x?}");
        assert_eq!(bytes[..4], [0x04, 0x22, 0x4d, 0x18], "the LZ4 frame magic");
        assert!(read_samples(&empty, format).unwrap().is_empty());
        // Games appended later follow the empty frame and read as before.
        let a = all_samples(&black_five());
        let cfg = SampleConfig::new(format, empty.clone());
        let mut w = SampleWriter::open(&cfg).unwrap();
        w.write_game(&a).unwrap();
        w.finish().unwrap();
        assert_eq!(read_samples(&empty, format).unwrap(), stored(&a, format));
        let want_plain = {
            let other = tmp();
            std::fs::read(write_file(other.path(), plain, std::slice::from_ref(&a))).unwrap()
        };
        if have("lz4", &["--version"]) {
            assert_eq!(lz4_cli_decode(&empty), want_plain, "{format}");
        }
        if have("python3", &["-c", "import lz4.frame"]) {
            let fresh_dir = tmp();
            let fresh = write_file(fresh_dir.path(), format, &[]);
            for (file, want) in [(&fresh, Vec::new()), (&empty, want_plain.clone())] {
                let out = Command::new("python3")
                    .args(["-c", PY_TRAINER_OPEN])
                    .arg(file)
                    .output()
                    .unwrap();
                common::assert_ok(&out, &format!("{format}: lz4.frame.open"));
                assert_eq!(out.stdout, want, "{format}");
            }
        }
    }
}
