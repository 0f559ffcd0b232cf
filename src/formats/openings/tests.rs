//! The openings' tests: each file format read (offset, pos, psq), bad lines refused naming the
//! line, the book's transforms and the draw order.

use super::*;
use crate::core::board::parse_pos_sequence;
use crate::formats::openings::order::OpeningOrder;

fn sz(n: u32) -> BoardSize {
    BoardSize::new(n).unwrap()
}

fn parse(
    text: &str,
    format: OpeningFormat,
    n: u32,
    rule: Rule,
) -> Result<OpeningBook, OpeningError> {
    OpeningBook::parse_str(text, "test.txt", format, sz(n), rule)
}

fn line_err(text: &str, format: OpeningFormat, n: u32, rule: Rule) -> (usize, LineProblem, String) {
    match parse(text, format, n, rule) {
        Err(e @ OpeningError::Line { .. }) => {
            let msg = e.to_string();
            (e.line().unwrap(), e.problem().unwrap().clone(), msg)
        }
        other => panic!("expected a line error, got {other:?}"),
    }
}

/// [`line_err`] on a 15x15 freestyle board.
fn line_err15(text: &str, format: OpeningFormat) -> (usize, LineProblem, String) {
    line_err(text, format, 15, Rule::Freestyle)
}

#[test]
fn offset_lines_with_and_without_spaces() {
    let b = parse(
        "0,0, 1,-1, 2,0\n-1,-1,0,1,2,2",
        OpeningFormat::Offset,
        15,
        Rule::Freestyle,
    )
    .unwrap();
    assert_eq!(b.len(), 2);
    assert_eq!(
        b.openings[0].stones,
        vec![Pos::new(7, 7), Pos::new(8, 6), Pos::new(9, 7)]
    );
    assert_eq!(
        b.openings[1].stones,
        vec![Pos::new(6, 6), Pos::new(7, 8), Pos::new(9, 9)]
    );
    // Even sizes: the centre is floor(n/2).
    let b = parse("0,0, -10,9", OpeningFormat::Offset, 20, Rule::Freestyle).unwrap();
    assert_eq!(
        b.openings[0].stones,
        vec![Pos::new(10, 10), Pos::new(0, 19)]
    );
}

#[test]
fn crlf_blank_lines_trailing_spaces_and_no_final_newline() {
    let text = "\r\n0,0, 1,1  \r\n\r\n   \r\n1,0, 0,1\t\r\n-1,-1";
    let b = parse(text, OpeningFormat::Offset, 15, Rule::Freestyle).unwrap();
    let lines: Vec<usize> = b.openings.iter().map(|o| o.line).collect();
    assert_eq!(lines, vec![2, 5, 6]);
    assert_eq!(b.openings[2].stones, vec![Pos::new(6, 6)]);
    let b = parse(
        "\u{feff}h8i9\r\n\r\nj10\r\n",
        OpeningFormat::Pos,
        15,
        Rule::Freestyle,
    )
    .unwrap();
    assert_eq!(b.openings.len(), 2);
    assert_eq!(b.openings[1].line, 3);
}

#[test]
fn pos_lines() {
    let b = parse("h8i9j10\nH8 I9", OpeningFormat::Pos, 15, Rule::Freestyle).unwrap();
    assert_eq!(
        b.openings[0].stones,
        parse_pos_sequence("h8i9j10", sz(15)).unwrap()
    );
    assert_eq!(b.openings[1].stones, vec![Pos::new(7, 7), Pos::new(8, 8)]);
}

#[test]
fn errors_name_file_line_and_text() {
    let (line, problem, msg) = line_err(
        "0,0\n\n0,0, 1;1\n",
        OpeningFormat::Offset,
        15,
        Rule::Freestyle,
    );
    assert_eq!(line, 3);
    assert_eq!(problem, LineProblem::UnexpectedChar { ch: ';', column: 7 });
    assert!(msg.starts_with("test.txt:3:"), "{msg}");
    assert!(msg.contains("\"0,0, 1;1\""), "{msg}");

    let (line, problem, _) = line_err15("0,0, 1", OpeningFormat::Offset);
    assert_eq!(
        (line, problem),
        (1, LineProblem::OddValueCount { count: 3 })
    );

    let (_, problem, _) = line_err15("0,0,, 1,1", OpeningFormat::Offset);
    assert_eq!(problem, LineProblem::EmptyValue { index: 3 });

    let (_, problem, _) = line_err15("0,0, 1-,1", OpeningFormat::Offset);
    assert_eq!(problem, LineProblem::BadNumber { token: "1-".into() });

    let (line, problem, msg) = line_err15("0,0\n0,0, -8,-6", OpeningFormat::Offset);
    assert_eq!(line, 2);
    assert_eq!(
        problem,
        LineProblem::OffBoard {
            stone: 2,
            text: "-8,-6".into(),
            size: 15
        }
    );
    assert!(msg.contains("off the 15x15 board"), "{msg}");
    // The same stone is fine on 20x20.
    assert!(parse("0,0, -8,-6", OpeningFormat::Offset, 20, Rule::Freestyle).is_ok());

    let (_, problem, _) = line_err15("h8p1", OpeningFormat::Pos);
    assert_eq!(
        problem,
        LineProblem::OffBoard {
            stone: 2,
            text: "p1".into(),
            size: 15
        }
    );
    let (_, problem, _) = line_err15("h8i0", OpeningFormat::Pos);
    assert!(matches!(problem, LineProblem::OffBoard { stone: 2, .. }));
    let (_, problem, _) = line_err15("h8i", OpeningFormat::Pos);
    assert_eq!(problem, LineProblem::MissingRow { letter: 'i' });
    let (_, problem, _) = line_err15("h8,i9", OpeningFormat::Pos);
    assert_eq!(problem, LineProblem::UnexpectedChar { ch: ',', column: 3 });
    let (_, problem, _) = line_err15("h8i99999999999999999999", OpeningFormat::Pos);
    assert!(matches!(problem, LineProblem::OffBoard { stone: 2, .. }));
    // An offset file read as pos fails on the first line with a clear character complaint.
    let (_, problem, msg) = line_err15("0,0, 1,1", OpeningFormat::Pos);
    assert_eq!(problem, LineProblem::UnexpectedChar { ch: '0', column: 1 });
    assert!(
        msg.ends_with(
            "(this looks like offset notation: use type=offset, the default, in -openings)"
        ),
        "{msg}"
    );
    // And the other way round; on boards over 26 pos notation is no candidate.
    let (_, _, msg) = line_err15("h8i9", OpeningFormat::Offset);
    assert!(
        msg.ends_with("(this looks like pos notation: add type=pos to -openings)"),
        "{msg}"
    );
    let (_, _, msg) = line_err("h8i9", OpeningFormat::Offset, 27, Rule::Freestyle);
    assert!(!msg.contains("looks like"), "{msg}");
}

#[test]
fn duplicate_stones_are_rejected() {
    let (line, problem, msg) = line_err15("h8i9\nh8i9j10i9", OpeningFormat::Pos);
    assert_eq!(line, 2);
    assert_eq!(
        problem,
        LineProblem::Duplicate {
            stone: 4,
            text: "i9".into(),
            first: 2
        }
    );
    assert!(msg.contains("repeats stone 2"), "{msg}");
}

#[test]
fn fives_are_rejected_under_the_rule() {
    // Black h8..l8 is a five in row 8; white plays on row 1 in between.
    let five = "h8a1i8b1j8c1k8d1l8";
    let (line, problem, _) = line_err15(five, OpeningFormat::Pos);
    assert_eq!(line, 1);
    assert_eq!(
        problem,
        LineProblem::Five {
            stone: 9,
            text: "l8".into(),
            color: Color::Black,
            rule: Rule::Freestyle
        }
    );
    // Four black stones are fine.
    assert!(parse("h8a1i8b1j8c1k8", OpeningFormat::Pos, 15, Rule::Freestyle).is_ok());
    // A black six is a win in freestyle but not under exact-five.
    let six = "c8a1d8b1e8c1g8d1h8a3f8";
    assert!(matches!(
        line_err15(six, OpeningFormat::Pos).1,
        LineProblem::Five { stone: 11, .. }
    ));
    assert!(parse(six, OpeningFormat::Pos, 15, Rule::ExactFive).is_ok());
    // White fives count too.
    let white = "a1h8a3i8a5j8a7k8a9l8";
    assert!(matches!(
        line_err(white, OpeningFormat::Pos, 15, Rule::Renju).1,
        LineProblem::Five {
            stone: 10,
            color: Color::White,
            ..
        }
    ));
}

#[test]

fn renju_forbidden_black_stone_is_rejected() {
    // Black g8 h8 | i9 i10, then i8 makes two open threes (row 8: g8 h8 i8; column i: i8 i9 i10)
    // with every neighbouring point empty: a plain double-three. White sits far away on column a.
    let text = "g8a1h8a3i9a5i10a7i8";
    // Freestyle accepts it; renju must not.
    assert!(parse(text, OpeningFormat::Pos, 15, Rule::Freestyle).is_ok());
    let (line, problem, msg) = line_err(text, OpeningFormat::Pos, 15, Rule::Renju);
    assert_eq!(line, 1);
    assert_eq!(
        problem,
        LineProblem::Forbidden {
            stone: 9,
            text: "i8".into(),
            kind: ForbiddenKind::DoubleThree
        }
    );
    assert!(msg.contains("forbidden"), "{msg}");
}

#[test]
fn empty_files_are_errors() {
    for text in ["", "\r\n  \r\n", "\n\n"] {
        let e = parse(text, OpeningFormat::Offset, 15, Rule::Freestyle).unwrap_err();
        assert!(matches!(e, OpeningError::Empty { .. }), "{e:?}");
        assert!(e.to_string().contains("test.txt"), "{e}");
    }
}

#[test]
fn pos_format_needs_a_board_of_at_most_26() {
    let e = parse("a1", OpeningFormat::Pos, 27, Rule::Freestyle).unwrap_err();
    assert!(matches!(e, OpeningError::Notation { .. }), "{e:?}");
    assert!(parse("0,0", OpeningFormat::Offset, 27, Rule::Freestyle).is_ok());
}

#[test]
fn load_reports_missing_files_with_their_path() {
    let e = OpeningBook::load(
        "/nonexistent/openings.txt",
        OpeningFormat::Offset,
        sz(15),
        Rule::Freestyle,
    )
    .unwrap_err();
    assert!(e.to_string().contains("/nonexistent/openings.txt"), "{e}");
}

#[test]
fn load_reads_a_file_and_keeps_its_path_in_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("o.txt");
    std::fs::write(&path, b"0,0, 1,1\r\n\r\n0,0, 0,0").unwrap();
    let e = OpeningBook::load(&path, OpeningFormat::Offset, sz(15), Rule::Freestyle).unwrap_err();
    assert_eq!(e.line(), Some(3));
    assert!(e.to_string().contains(&path.display().to_string()), "{e}");
    std::fs::write(&path, b"0,0, 1,1\xff\r\n").unwrap();
    let e = OpeningBook::load(&path, OpeningFormat::Offset, sz(15), Rule::Freestyle).unwrap_err();
    assert_eq!(e.line(), Some(1));
    std::fs::write(&path, b"0,0, 1,1\r\n2,2").unwrap();
    let b = OpeningBook::load(&path, OpeningFormat::Offset, sz(15), Rule::Freestyle).unwrap();
    assert_eq!(b.len(), 2);
    assert_eq!(b.source, path);
}

#[test]
fn a_psq_record_is_one_opening_of_its_first_stones() {
    let text = "Piskvorky 15x15, 7:7, 0\n8,8,100\n9,9,200\n\n8,9,300\nscout\nrandom\n0\n";
    let psq = |moves| OpeningFormat::Psq { moves };
    let b = parse(text, psq(None), 15, Rule::Freestyle).unwrap();
    assert_eq!(b.len(), 1);
    let all = parse_pos_sequence("h8i9h9", sz(15)).unwrap();
    assert_eq!(b.openings[0].stones, all);
    // The opening's line is the line of its last stone.
    assert_eq!(b.openings[0].line, 5);
    let b = parse(text, psq(Some(2)), 15, Rule::Freestyle).unwrap();
    assert_eq!(b.openings[0].stones, all[..2]);
    assert_eq!(b.openings[0].line, 3);
    let e = parse(text, psq(Some(4)), 15, Rule::Freestyle).unwrap_err();
    assert_eq!(
        e.to_string(),
        "test.txt: the record has 3 stones; moves=4 asks for more"
    );
    let e = parse(text, psq(None), 20, Rule::Freestyle).unwrap_err();
    assert_eq!(
            e.to_string(),
            "test.txt:1: a 15x15 record, but the board is 20x20 (-boardsize): \"Piskvorky 15x15, 7:7, 0\""
        );
    let e = parse(
        "Piskvorky 15x15, 7:7, 0\n0\n",
        psq(None),
        15,
        Rule::Freestyle,
    );
    assert!(matches!(e, Err(OpeningError::Empty { .. })));
    assert_eq!(psq(Some(8)).to_string(), "psq moves=8");
    assert_eq!("psq".parse::<OpeningFormat>().unwrap(), psq(None));
}

#[test]
fn psq_errors_name_the_record_line() {
    let psq = OpeningFormat::Psq { moves: None };
    let e = parse(
        "Piskvorky 15x15, 7:7, 0\n8,8,0\n9,x,0\n",
        psq,
        15,
        Rule::Freestyle,
    )
    .unwrap_err();
    assert_eq!(e.line(), Some(3));
    assert!(matches!(
        e.problem(),
        Some(LineProblem::Psq(PsqProblem::BadMove { .. }))
    ));
    assert!(
        e.to_string().starts_with("test.txt:3: bad move line"),
        "{e}"
    );
    // A finished game's record ends with a five: refused at the line of the winning stone.
    let mut five = String::from("Piskvorky 15x15, 7:7, 0\n");
    for x in 1..=5 {
        five += &format!("{x},1,0\n");
        if x < 5 {
            five += &format!("{x},15,0\n");
        }
    }
    let e = parse(&five, psq, 15, Rule::Freestyle).unwrap_err();
    assert_eq!(e.line(), Some(10));
    assert!(
        matches!(e.problem(), Some(LineProblem::Five { stone: 9, .. })),
        "{e}"
    );
    assert!(e.to_string().ends_with(": \"5,1,0\""), "{e}");
    let psq8 = OpeningFormat::Psq { moves: Some(8) };
    assert!(parse(&five, psq8, 15, Rule::Freestyle).is_ok());
    // The same file read as offsets suggests type=psq.
    let (line, _, msg) = line_err15(&five, OpeningFormat::Offset);
    assert_eq!(line, 1);
    assert!(msg.contains("use type=psq"), "{msg}");
}

#[test]
fn rendering_round_trips() {
    let s = sz(15);
    let o = Opening {
        line: 1,
        stones: parse_pos_sequence("h8i9j10a1o15", s).unwrap(),
    };
    assert_eq!(o.to_pos_line(s).unwrap(), "h8i9j10a1o15");
    assert_eq!(o.to_offset_line(s), "0,0, 1,1, 2,2, -7,-7, 7,7");
    let psq = OpeningFormat::Psq { moves: None };
    for format in [OpeningFormat::Offset, OpeningFormat::Pos, psq] {
        for n in [15u32, 20, 26] {
            let size = sz(n);
            let stones: Vec<Pos> = vec![
                Pos::new(0, 0),
                Pos::new(n as u8 - 1, 0),
                Pos::new(3, n as u8 - 1),
                Pos::new(n as u8 / 2, n as u8 / 2),
            ];
            let o = Opening { line: 1, stones };
            let line = o.to_line(format, size).unwrap();
            let b = OpeningBook::parse_str(&line, "rt", format, size, Rule::Freestyle).unwrap();
            assert_eq!(b.openings[0].stones, o.stones, "{format} {n}: {line}");
        }
    }
}

#[test]
fn position_key_ignores_symmetry_and_order_but_not_colour() {
    let s = sz(15);
    let a = parse_pos_sequence("h8i9j10k11", s).unwrap();
    let b = parse_pos_sequence("j10k11h8i9", s).unwrap(); // same stones, same colours
    let c = parse_pos_sequence("i9h8k11j10", s).unwrap(); // colours swapped
    assert_eq!(position_key(&a, s), position_key(&b, s));
    assert_ne!(position_key(&a, s), position_key(&c, s));
    for sym in Symmetry::ALL {
        assert_eq!(position_key(&sym.apply_all(&a, s), s), position_key(&a, s));
    }
    let book = parse(
        "h8i9j10k11\nj10k11h8i9\ni9h8k11j10",
        OpeningFormat::Pos,
        15,
        Rule::Freestyle,
    )
    .unwrap();
    assert_eq!(book.duplicates(), vec![(1, 0)]);
}

#[test]
fn format_names_parse() {
    assert_eq!(
        "offset".parse::<OpeningFormat>().unwrap(),
        OpeningFormat::Offset
    );
    assert_eq!("pos".parse::<OpeningFormat>().unwrap(), OpeningFormat::Pos);
    assert!("renju".parse::<OpeningFormat>().is_err());
}

#[test]
fn book_accessors_apply_symmetry() {
    let b = parse("h8i9", OpeningFormat::Pos, 15, Rule::Freestyle).unwrap();
    assert_eq!(
        b.stones(0, Symmetry::FlipY).unwrap(),
        vec![Pos::new(7, 7), Pos::new(6, 8)]
    );
    assert!(b.stones(1, Symmetry::Identity).is_none());
    let seq = b.sequence(OpeningOrder::Sequential, false);
    assert_eq!(seq.book_len(), 1);
}
