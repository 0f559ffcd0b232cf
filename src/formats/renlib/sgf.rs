//! A small SGF reader for `lib merge`: every game tree of a file, its root properties and the
//! moves of its main line (the first variation at every branch). No recursion on the file's
//! nesting, no size taken from the file.

use thiserror::Error;

use crate::core::board::Color;

/// One node of a main line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SgfNode {
    /// Properties in file order, each with its values (escapes resolved).
    pub props: Vec<(String, Vec<String>)>,
}

impl SgfNode {
    /// The first value of a property.
    pub fn get(&self, ident: &str) -> Option<&str> {
        self.props
            .iter()
            .find(|(k, _)| k == ident)
            .and_then(|(_, v)| v.first())
            .map(String::as_str)
    }

    /// The move of this node: its colour and point text (empty = pass).
    pub fn stone(&self) -> Option<(Color, &str)> {
        self.get("B")
            .map(|v| (Color::Black, v))
            .or_else(|| self.get("W").map(|v| (Color::White, v)))
    }
}

/// One game tree's main line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SgfGame {
    /// Byte offset of the game's `(` in the file.
    pub offset: usize,
    /// The game's text from `(` to its `)`: its identity when nothing else names it.
    pub text: String,
    /// Root node first.
    pub nodes: Vec<SgfNode>,
}

impl SgfGame {
    /// A root property.
    pub fn root(&self, ident: &str) -> Option<&str> {
        self.nodes.first().and_then(|n| n.get(ident))
    }
}

/// Text that is not SGF.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SgfError {
    /// A character where the grammar wants something else.
    #[error("offset {offset}: expected {expected}, found {found:?}")]
    Unexpected {
        offset: usize,
        expected: &'static str,
        found: char,
    },
    /// The text ends inside a game tree or a property value.
    #[error("offset {offset}: the file ends inside {inside}")]
    Unterminated { offset: usize, inside: &'static str },
}

/// Every game tree in `text`.
pub fn parse(text: &str) -> Result<Vec<SgfGame>, SgfError> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
    let mut games = Vec::new();
    loop {
        p.skip_space();
        match p.peek() {
            None => return Ok(games),
            Some(b'(') => games.push(p.game()?),
            Some(_) => return Err(p.unexpected("'(' starting a game")),
        }
    }
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

/// An open game tree: whether it lies on the main line, and whether a variation has been seen.
struct Open {
    main: bool,
    had_variation: bool,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn unexpected(&self, expected: &'static str) -> SgfError {
        let found = self
            .text
            .get(self.at..)
            .and_then(|s| s.chars().next())
            .unwrap_or(' ');
        SgfError::Unexpected {
            offset: self.at,
            expected,
            found,
        }
    }

    /// One game tree, from its `(` to the matching `)`, keeping the main line's nodes.
    fn game(&mut self) -> Result<SgfGame, SgfError> {
        let start = self.at;
        let mut open: Vec<Open> = Vec::new();
        let mut nodes = Vec::new();
        loop {
            self.skip_space();
            match self.peek() {
                None => {
                    return Err(SgfError::Unterminated {
                        offset: self.at,
                        inside: "a game tree (missing ')')",
                    })
                }
                Some(b'(') => {
                    let main = match open.last_mut() {
                        None => true,
                        Some(parent) => {
                            let first = !parent.had_variation;
                            parent.had_variation = true;
                            parent.main && first
                        }
                    };
                    open.push(Open {
                        main,
                        had_variation: false,
                    });
                    self.at += 1;
                }
                Some(b')') => {
                    self.at += 1;
                    open.pop();
                    if open.is_empty() {
                        break;
                    }
                }
                Some(b';') if !open.is_empty() => {
                    self.at += 1;
                    let node = self.node()?;
                    if open.last().is_some_and(|o| o.main) {
                        nodes.push(node);
                    }
                }
                Some(_) => return Err(self.unexpected("'(', ')' or ';'")),
            }
        }
        Ok(SgfGame {
            offset: start,
            text: self.text[start..self.at].to_string(),
            nodes,
        })
    }

    /// The properties after a `;`.
    fn node(&mut self) -> Result<SgfNode, SgfError> {
        let mut node = SgfNode::default();
        loop {
            self.skip_space();
            let start = self.at;
            while self.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
                self.at += 1;
            }
            if start == self.at {
                return Ok(node);
            }
            let ident = self.text[start..self.at].to_string();
            let mut values = Vec::new();
            self.skip_space();
            while self.peek() == Some(b'[') {
                values.push(self.value()?);
                self.skip_space();
            }
            if values.is_empty() {
                return Err(self.unexpected("'[' opening a property value"));
            }
            node.props.push((ident, values));
        }
    }

    /// One `[...]` value; `\` escapes the next character, `\` before a line end joins lines.
    fn value(&mut self) -> Result<String, SgfError> {
        let open = self.at;
        self.at += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => {
                    return Err(SgfError::Unterminated {
                        offset: open,
                        inside: "a property value (missing ']')",
                    })
                }
                Some(b']') => {
                    self.at += 1;
                    return Ok(String::from_utf8_lossy(&out).into_owned());
                }
                Some(b'\\') => {
                    self.at += 1;
                    match self.peek() {
                        Some(b'\n' | b'\r') => self.skip_line_end(),
                        Some(b) => {
                            out.push(b);
                            self.at += 1;
                        }
                        None => {}
                    }
                }
                Some(b) => {
                    out.push(b);
                    self.at += 1;
                }
            }
        }
    }

    fn skip_line_end(&mut self) {
        let first = self.peek();
        self.at += 1;
        let second = self.peek();
        if matches!(
            (first, second),
            (Some(b'\r'), Some(b'\n')) | (Some(b'\n'), Some(b'\r'))
        ) {
            self.at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_games_and_their_main_lines() {
        let text =
            "(;GM[4]SZ[15]PB[a\\]b]C[x\\\ny];B[hh];W[hi](;B[ii];W[jj])(;B[aa]))\n(;SZ[15];B[hh])";
        let games = parse(text).unwrap();
        assert_eq!(games.len(), 2);
        let g = &games[0];
        assert_eq!(g.root("PB"), Some("a]b"));
        assert_eq!(g.root("C"), Some("xy"));
        let moves: Vec<&str> = g
            .nodes
            .iter()
            .filter_map(|n| n.stone())
            .map(|s| s.1)
            .collect();
        assert_eq!(moves, ["hh", "hi", "ii", "jj"]);
        assert_eq!(games[1].offset, text.find("(;SZ").unwrap());
        assert!(games[0].text.ends_with("(;B[aa]))"));
    }

    #[test]
    fn errors_give_the_offset() {
        assert_eq!(
            parse("(;B[hh]").unwrap_err(),
            SgfError::Unterminated {
                offset: 7,
                inside: "a game tree (missing ')')"
            }
        );
        assert!(matches!(
            parse("x"),
            Err(SgfError::Unexpected { offset: 0, .. })
        ));
        assert!(matches!(
            parse("(;B[hh)"),
            Err(SgfError::Unterminated { offset: 3, .. })
        ));
        assert!(matches!(
            parse("(;B)"),
            Err(SgfError::Unexpected { offset: 3, .. })
        ));
    }
}
