//! Reading PGN files for their tags alone, as rating tools (BayesElo, Ordo) do: each game's tag
//! pairs, its movetext skipped unparsed. Bytes are read line by line and only the tags a caller
//! keeps are copied, so a file of a million games reads in a few hundred milliseconds with memory
//! independent of its length.
//!
//! The tag section of a game is the run of lines starting with `[` (blanks before it allowed);
//! a `[` inside a movetext comment (`{...}`, across lines, or after `;`) is no tag. A tag line
//! that is not `[Name "value"]` pairs is an error naming the file and line.

use std::io::BufRead;

use thiserror::Error;

/// A PGN file that cannot be read.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum PgnError {
    /// A line of the tag section that is not `[Name "value"]` pairs.
    #[error("{file}:{line}: not a PGN tag pair ({why}): {text:?}")]
    BadTag {
        file: String,
        line: usize,
        why: &'static str,
        text: String,
    },
    /// A tag line that is not UTF-8 text.
    #[error("{file}:{line}: not UTF-8 text: {text:?}")]
    NotUtf8 {
        file: String,
        line: usize,
        text: String,
    },
    /// The file could not be read.
    #[error("{file}: {why}")]
    Io { file: String, why: String },
}

/// A tag's value and the line it is on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TagValue {
    pub value: String,
    pub line: usize,
}

/// One game's tag section, as far as it is kept: the tags asked for, by their order in `wanted`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TagSection {
    /// The line of its first tag.
    pub line: usize,
    /// One slot per wanted tag name; the last occurrence wins, as in BayesElo.
    pub tags: Vec<Option<TagValue>>,
}

/// Read the games of a PGN file: `each` is called with every game's section (`wanted` names the
/// tags kept, in the slots' order) and may stop the reading with its error. A last line without
/// its newline that is not a tag pair is a write cut short (a killed run): its game is skipped,
/// and the warning returned, as journals' readers skip a torn last line.
pub fn read_games<R, E>(
    mut input: R,
    file: &str,
    wanted: &[&str],
    mut each: impl FnMut(&TagSection) -> Result<(), E>,
) -> Result<Option<String>, E>
where
    R: BufRead,
    E: From<PgnError>,
{
    let mut game = TagSection {
        line: 0,
        tags: vec![None; wanted.len()],
    };
    let mut open = false;
    // Tags seen since the last movetext: a tag line after movetext (or after a blank line that
    // follows tags) starts the next game.
    let mut in_tags = false;
    let mut in_comment = false;
    let mut buf = Vec::with_capacity(256);
    let mut number = 0;
    loop {
        buf.clear();
        let n = input
            .read_until(b'\n', &mut buf)
            .map_err(|e| PgnError::Io {
                file: file.to_string(),
                why: e.to_string(),
            })?;
        if n == 0 {
            break;
        }
        number += 1;
        let mut line = trim(&buf);
        if number == 1 {
            line = line.strip_prefix(UTF8_BOM).unwrap_or(line);
        }
        let tag_line = !in_comment && line.first() == Some(&b'[');
        if tag_line {
            if !in_tags {
                if open {
                    each(&game)?;
                }
                game.line = number;
                game.tags.iter_mut().for_each(|t| *t = None);
                open = true;
                in_tags = true;
            }
            let tags = tag_pairs(line, |name, value| {
                if let Some(i) = wanted.iter().position(|w| w.as_bytes() == name) {
                    let value = String::from_utf8(value).map_err(|_| "not UTF-8")?;
                    game.tags[i] = Some(TagValue {
                        value,
                        line: number,
                    });
                }
                Ok(())
            })
            .map_err(|why| match buf.ends_with(b"\n") {
                false => None,
                true => Some(bad_line(file, number, why, line)),
            });
            match tags {
                Ok(()) => {}
                Err(Some(e)) => return Err(e.into()),
                Err(None) => {
                    return Ok(Some(format!(
                        "{file}:{number}: skipping a game cut short in its last line (an interrupted write)"
                    )))
                }
            }
        } else if line.is_empty() {
            in_tags = false;
        } else {
            in_tags = false;
            if line.first() != Some(&b'%') {
                in_comment = movetext_ends_in_comment(line, in_comment);
            }
        }
    }
    if open {
        each(&game)?;
    }
    Ok(None)
}

/// What some Windows editors put before a UTF-8 text.
pub const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

fn bad_line(file: &str, line: usize, why: &'static str, text: &[u8]) -> PgnError {
    let text: String = String::from_utf8_lossy(text).chars().take(120).collect();
    match why {
        "not UTF-8" => PgnError::NotUtf8 {
            file: file.to_string(),
            line,
            text,
        },
        _ => PgnError::BadTag {
            file: file.to_string(),
            line,
            why,
            text,
        },
    }
}

fn trim(line: &[u8]) -> &[u8] {
    let start = line
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(line.len());
    let end = line
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &line[start..end.max(start)]
}

/// Whether a `{` comment is still open at the end of a movetext line (`open`: at its start).
fn movetext_ends_in_comment(line: &[u8], mut open: bool) -> bool {
    for &b in line {
        match (open, b) {
            (true, b'}') => open = false,
            (false, b'{') => open = true,
            // The rest of the line is a comment: no brace in it counts.
            (false, b';') => return false,
            _ => {}
        }
    }
    open
}

/// The `[Name "value"]` pairs of a tag line (one or more, blanks between), each given to `each`
/// with its value unescaped (`\"`, `\\`).
fn tag_pairs(
    mut rest: &[u8],
    mut each: impl FnMut(&[u8], Vec<u8>) -> Result<(), &'static str>,
) -> Result<(), &'static str> {
    while !rest.is_empty() {
        rest = rest.strip_prefix(b"[").ok_or("expected '['")?;
        rest = trim_start(rest);
        let name_end = rest
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .unwrap_or(rest.len());
        if name_end == 0 {
            return Err("no tag name");
        }
        let name = &rest[..name_end];
        rest = trim_start(&rest[name_end..]);
        rest = rest.strip_prefix(b"\"").ok_or("expected a quoted value")?;
        let mut value = Vec::new();
        let mut escaped = false;
        let mut end = None;
        for (i, &b) in rest.iter().enumerate() {
            match (escaped, b) {
                (false, b'\\') => escaped = true,
                (false, b'"') => {
                    end = Some(i);
                    break;
                }
                _ => {
                    value.push(b);
                    escaped = false;
                }
            }
        }
        let end = end.ok_or("unterminated value")?;
        rest = trim_start(&rest[end + 1..]);
        rest = rest.strip_prefix(b"]").ok_or("expected ']'")?;
        each(name, value)?;
        rest = trim_start(rest);
    }
    Ok(())
}

fn trim_start(s: &[u8]) -> &[u8] {
    let start = s
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(s.len());
    &s[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    const WANTED: [&str; 3] = ["White", "Black", "Result"];

    fn games(text: &str) -> Result<Vec<TagSection>, PgnError> {
        let mut out = Vec::new();
        read_games(text.as_bytes(), "t.pgn", &WANTED, |g| {
            out.push(g.clone());
            Ok::<_, PgnError>(())
        })?;
        Ok(out)
    }

    fn value(g: &TagSection, i: usize) -> &str {
        g.tags[i].as_ref().map_or("", |t| t.value.as_str())
    }

    #[test]
    fn games_are_their_tag_sections_and_movetext_is_skipped() {
        let text = "[Event \"e\"]\n[White \"a b\"]\n[Black \"c \\\"q\\\"\"]\n[Result \"1-0\"]\n\n\
                    {a comment\n[White \"not a tag\"]} 1-0\n\n\
                    [White \"d\"] [Black \"e\"]\n[Result \"*\"]\n1. e4 ; {no comment\n*\n\
                    [White \"f\"]\n[Black \"g\"]\n[Result \"0-1\"]\n";
        let g = games(text).unwrap();
        assert_eq!(g.len(), 3);
        assert_eq!((value(&g[0], 0), value(&g[0], 1)), ("a b", "c \"q\""));
        assert_eq!(g[0].line, 1);
        assert_eq!(g[0].tags[2].as_ref().unwrap().line, 4);
        assert_eq!((value(&g[1], 0), value(&g[1], 2)), ("d", "*"));
        assert_eq!(g[1].line, 9);
        assert_eq!((value(&g[2], 0), value(&g[2], 2)), ("f", "0-1"));
        // A game without movetext, then the next: one section each only when a blank line or
        // movetext separates them.
        let g = games("[White \"a\"]\n\n[White \"b\"]\n").unwrap();
        assert_eq!(g.len(), 2);
        assert!(games("").unwrap().is_empty());
    }

    #[test]
    fn a_malformed_tag_line_is_named_by_file_and_line() {
        let err = games("[White \"a\"]\n[Black b]\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.pgn:2: not a PGN tag pair (expected a quoted value): \"[Black b]\""
        );
        let err = games("\n\n[Result \"1-0\n").unwrap_err().to_string();
        assert!(
            err.starts_with("t.pgn:3:") && err.contains("unterminated"),
            "{err}"
        );
        assert!(games("\u{feff}[White \"\u{e9}\"]\r\n").unwrap()[0].tags[0].is_some());
        // Cut short in its last line: that game is skipped with a warning.
        let mut kept = 0;
        let torn = read_games(
            "[White \"a\"]\n\n1-0\n[White \"b\"]\n[Black \"c".as_bytes(),
            "t.pgn",
            &WANTED,
            |_| {
                kept += 1;
                Ok::<_, PgnError>(())
            },
        );
        assert_eq!(kept, 1);
        assert!(torn
            .unwrap()
            .unwrap()
            .starts_with("t.pgn:5: skipping a game cut short"));
        let mut bytes = b"[White \"a\"]\n[Black \"".to_vec();
        bytes.extend([0xff, b'"', b']', b'\n']);
        let err = read_games(&bytes[..], "t.pgn", &WANTED, |_| Ok::<_, PgnError>(()));
        assert!(
            matches!(err, Err(PgnError::NotUtf8 { line: 2, .. })),
            "{err:?}"
        );
    }
}
