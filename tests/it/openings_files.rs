//! Opening files from the wild (shared test data) and the opening sets shipped in `openings/`
//! must parse for the board size and rule they are meant for.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use gomoku_cli::core::board::{parse_pos_sequence, Board, BoardSize, Color, Pos};
use gomoku_cli::core::rules::{winning_line, Rule, DIRECTIONS};
use gomoku_cli::formats::openings::{
    position_key, LineProblem, OpeningBook, OpeningError, OpeningFormat,
};

fn testdata(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/testdata")
        .join(rel);
    if p.exists() {
        Some(p)
    } else if std::env::var("CI").as_deref() == Ok("true") {
        panic!("test data {} is missing (CI=true)", p.display());
    } else {
        eprintln!("skipping: test data {} is absent", p.display());
        None
    }
}

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("openings")
        .join(name)
}

fn size(n: u32) -> BoardSize {
    BoardSize::new(n).unwrap()
}

fn load(rel: &str, format: OpeningFormat, n: u32, rule: Rule) -> Option<OpeningBook> {
    let path = testdata(rel)?;
    Some(
        OpeningBook::load(&path, format, size(n), rule)
            .unwrap_or_else(|e| panic!("{} should parse: {e}", path.display())),
    )
}

#[test]
fn predecessor_offset_example_parses_on_20x20() {
    let Some(b) = load(
        "openings/cgomokucli_offset_freestyle_20x20.txt",
        OpeningFormat::Offset,
        20,
        Rule::Freestyle,
    ) else {
        return;
    };
    assert_eq!(b.len(), 4);
    // First stone of the first line: 8,-3 from the centre (10,10).
    assert_eq!(b.openings[0].stones[0], Pos::new(18, 7));
    assert_eq!(b.openings[3].stones.len(), 20);
    assert_eq!(b.openings[3].line, 4);
}

#[test]
fn predecessor_pos_example_parses_on_20x20() {
    let Some(b) = load(
        "openings/cgomokucli_pos_freestyle_20x20.txt",
        OpeningFormat::Pos,
        20,
        Rule::Freestyle,
    ) else {
        return;
    };
    assert_eq!(b.len(), 4);
    assert_eq!(
        b.openings[0].stones,
        parse_pos_sequence("d3e5f6d7", size(20)).unwrap()
    );
    assert_eq!(b.openings[3].stones.len(), 18);
}

#[test]
fn gomocup_files_parse_on_20x20() {
    // The judge file has a line without spaces after the commas and one with 41 stones.
    if let Some(b) = load(
        "openings/gomocupjudge_openings_20.txt",
        OpeningFormat::Offset,
        20,
        Rule::Freestyle,
    ) {
        assert_eq!(b.len(), 6);
        assert_eq!(b.openings[5].stones.len(), 41);
        assert_eq!(b.openings[4].stones[0], Pos::new(6, 0));
    }
    if let Some(b) = load(
        "openings/gomocuponline_openings.txt",
        OpeningFormat::Offset,
        20,
        Rule::Freestyle,
    ) {
        assert_eq!(b.len(), 3);
        assert_eq!(b.openings[2].stones[0], Pos::new(1, 1));
    }
}

#[test]
fn piskvork_file_on_15x15_names_its_off_board_line() {
    let Some(path) = testdata("openings/piskvork_openings.txt") else {
        return;
    };
    // Line 41 starts at -8,-6: x = 7 - 8 = -1, off a 15x15 board. Every earlier line is fine.
    let e = OpeningBook::load(&path, OpeningFormat::Offset, size(15), Rule::Freestyle).unwrap_err();
    assert_eq!(e.line(), Some(41), "{e}");
    assert_eq!(
        e.problem(),
        Some(&LineProblem::OffBoard {
            stone: 1,
            text: "-8,-6".into(),
            size: 15
        })
    );
    let msg = e.to_string();
    assert!(msg.contains("piskvork_openings.txt:41:"), "{msg}");
    assert!(msg.contains("-8,-6, -7,-6"), "{msg}");

    // Without that line the other 40 parse on 15x15, and all 41 parse on 20x20.
    let text = std::fs::read_to_string(&path).unwrap();
    let first40: Vec<&str> = text.lines().take(40).collect();
    let b = OpeningBook::parse_str(
        &first40.join("\n"),
        &path,
        OpeningFormat::Offset,
        size(15),
        Rule::Freestyle,
    )
    .unwrap();
    assert_eq!(b.len(), 40);
    let b = OpeningBook::load(&path, OpeningFormat::Offset, size(20), Rule::Freestyle).unwrap();
    assert_eq!(b.len(), 41);
}

#[test]
fn renju26_offset_file_matches_the_canonical_table() {
    let Some(b) = load(
        "openings/renju26_canonical_offset.txt",
        OpeningFormat::Offset,
        15,
        Rule::Renju,
    ) else {
        return;
    };
    let Some(tsv) = testdata("openings/renju26_canonical.tsv") else {
        return;
    };
    let text = std::fs::read_to_string(tsv).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 26);
    assert_eq!(b.len(), 26);
    for (row, opening) in rows.iter().zip(&b.openings) {
        // Column 3: Gomocup x,y pairs separated by spaces; column 4: the offset line itself.
        let stones: Vec<Pos> = row[3]
            .split(' ')
            .map(|xy| Pos::parse_gomocup(xy, size(15)).unwrap())
            .collect();
        assert_eq!(opening.stones, stones, "{}", row[0]);
        assert_eq!(opening.to_offset_line(size(15)), row[4], "{}", row[0]);
        // Column 2, renju notation (rows from the bottom), agrees too.
        let renju: Vec<Pos> = row[2]
            .split(' ')
            .map(|p| Pos::parse_renju(p, size(15)).unwrap())
            .collect();
        assert_eq!(opening.stones, renju, "{}", row[0]);
    }
    // The 26 are distinct positions even up to symmetry.
    let keys: HashSet<Vec<Pos>> = b
        .openings
        .iter()
        .map(|o| position_key(&o.stones, size(15)))
        .collect();
    assert_eq!(keys.len(), 26);
}

/// Points where `c` would complete a five (five or more; exactly five for renju black).
fn five_points(board: &Board, c: Color, rule: Rule) -> Vec<Pos> {
    board
        .size()
        .all()
        .filter(|&p| board.is_empty_at(p) && winning_line(board, p, c, rule).is_some())
        .collect()
}

/// An open three for `c`: one stone that leaves two points completing a five on its line.
fn has_open_three(board: &Board, c: Color, rule: Rule) -> bool {
    let mut b = board.clone();
    for p in board.size().all().filter(|&p| board.is_empty_at(p)) {
        let near = DIRECTIONS.iter().any(|&(dx, dy)| {
            (-4i64..=4).any(|k| b.at(p.x as i64 + k * dx, p.y as i64 + k * dy) == Some(c))
        });
        if !near {
            continue;
        }
        b.put(p, c);
        let threats = five_points(&b, c, rule).len();
        b.remove(p);
        if threats >= 2 {
            return true;
        }
    }
    false
}

fn check_shipped(name: &str, format: OpeningFormat, n: u32, rule: Rule) {
    let path = shipped(name);
    let b = OpeningBook::load(&path, format, size(n), rule)
        .unwrap_or_else(|e| panic!("shipped {name} must parse: {e}"));
    assert!(b.len() >= 600, "{name} has only {} openings", b.len());
    assert_eq!(b.duplicates(), vec![], "{name} repeats a position");
    for o in &b.openings {
        let board = Board::from_moves(size(n), &o.stones).unwrap();
        for c in [Color::Black, Color::White] {
            assert!(
                five_points(&board, c, rule).is_empty(),
                "{name}:{}: {c} has a four",
                o.line
            );
            assert!(
                !has_open_three(&board, c, rule),
                "{name}:{}: {c} has an open three",
                o.line
            );
        }
    }
}

#[test]
fn shipped_freestyle15_is_valid() {
    check_shipped("freestyle15.txt", OpeningFormat::Pos, 15, Rule::Freestyle);
}

#[test]
fn shipped_freestyle20_is_valid() {
    check_shipped(
        "freestyle20.txt",
        OpeningFormat::Offset,
        20,
        Rule::Freestyle,
    );
}

#[test]
fn shipped_renju15_is_valid() {
    check_shipped("renju15.txt", OpeningFormat::Pos, 15, Rule::Renju);
    // Every renju opening extends one of the 26 canonical three-stone openings (as generated,
    // before any symmetry): black h8 in the centre, white next to it.
    let b = OpeningBook::load(
        shipped("renju15.txt"),
        OpeningFormat::Pos,
        size(15),
        Rule::Renju,
    )
    .unwrap();
    for o in &b.openings {
        assert_eq!(o.stones.len(), 5, "line {}", o.line);
        assert_eq!(o.stones[0], Pos::new(7, 7), "line {}", o.line);
        assert!(
            [Pos::new(7, 6), Pos::new(8, 6)].contains(&o.stones[1]),
            "line {}",
            o.line
        );
    }
}

#[test]
fn a_bad_line_in_a_real_file_is_reported_with_its_number() {
    // Guard against line-number drift when blank lines and CR LF mix.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mixed.txt");
    std::fs::write(&path, "h8i9\r\n\r\n\nh8\r\n  \r\nh8i9h8\r\nj10").unwrap();
    let e = OpeningBook::load(&path, OpeningFormat::Pos, size(15), Rule::Freestyle).unwrap_err();
    assert!(matches!(e, OpeningError::Line { line: 6, .. }), "{e}");
}

#[test]
fn pos_file_read_as_offset_hints_at_type_pos() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pos.txt");
    std::fs::write(&path, "\r\nh8i9j10\r\ng8\r\n").unwrap();
    let e = OpeningBook::load(&path, OpeningFormat::Offset, size(15), Rule::Freestyle).unwrap_err();
    assert_eq!(e.line(), Some(2), "{e}");
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!("{}:2:", path.display())),
        "file and line named: {msg}"
    );
    assert!(
        msg.ends_with("(this looks like pos notation: add type=pos to -openings)"),
        "{msg}"
    );
    // A line that is bad in both notations gets no hint.
    std::fs::write(&path, "0;0\n").unwrap();
    let msg = OpeningBook::load(&path, OpeningFormat::Offset, size(15), Rule::Freestyle)
        .unwrap_err()
        .to_string();
    assert!(!msg.contains("looks like"), "{msg}");
}

#[test]
fn offset_file_read_as_pos_hints_at_type_offset() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("offset.txt");
    std::fs::write(&path, "0,0, 1,1\n").unwrap();
    let msg = OpeningBook::load(&path, OpeningFormat::Pos, size(15), Rule::Freestyle)
        .unwrap_err()
        .to_string();
    assert!(
        msg.starts_with(&format!("{}:1:", path.display())),
        "file and line named: {msg}"
    );
    assert!(msg.contains("this looks like offset notation"), "{msg}");
    assert!(msg.contains("type=offset"), "{msg}");
    // A pos line that fails on its own (off the board) is not blamed on the notation.
    std::fs::write(&path, "h8z9\n").unwrap();
    let msg = OpeningBook::load(&path, OpeningFormat::Pos, size(15), Rule::Freestyle)
        .unwrap_err()
        .to_string();
    assert!(!msg.contains("looks like"), "{msg}");
}
