//! `gomoku-cli lib`: RenLib `.lib` archives: what a library holds (`stats`), its tree as text
//! (`dump`), and merging journals, SGF files, Piskvork `.psq` records, pos-notation game lists and
//! other libraries into one (`merge`, written atomically).

use std::fs;
use std::io::{self, BufRead, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::formats::journal;
use crate::formats::psq;
use crate::formats::renlib::stats::{has_stats_lines, refresh_stats, LibStats};
use crate::formats::renlib::write::comments_before_passes;
use crate::formats::renlib::{
    dump, file, sgf, CodePage, GameMerge, LibGame, Library, NotMergeable, Notation, MAGIC,
};

use crate::commands::{failed, say, CommandError, CommandResult, Outcome};

/// The `lib` subcommands.
#[derive(Debug)]
pub struct LibArgs {
    pub command: LibTool,
}

#[derive(Debug)]
pub enum LibTool {
    /// Version, nodes, leaves, comments, board texts, marks, starts, maximum depth.
    Stats {
        /// The library file.
        file: PathBuf,
        /// One JSON object (the fields of samples_summary.json) instead of text.
        json: bool,
    },
    /// The tree as indented text (comments decoded), or one line per path from the top to a leaf.
    Dump {
        /// The library file.
        file: PathBuf,
        /// One line per path from the top to a leaf, points only.
        paths: bool,
        /// renju (row 1 at the bottom, as RenLib shows) or pos (row 1 at the top, as journals).
        notation: NotationArg,
        /// Code page of the comments and board texts (gbk, big5, shift_jis, utf-8, ...).
        encoding: String,
    },
    /// Merge games (journals, SGF files, Piskvork .psq records, pos-notation game lists: one game
    /// a line) and libraries into one library; each game in the symmetry that follows the tree
    /// deepest.
    Merge {
        /// The library to write (replaced atomically; it may be the --into file).
        out: PathBuf,
        /// Start from this library instead of an empty one.
        into: Option<PathBuf>,
        /// Give every node a line with the games through it and their results from black's
        /// side (kept up to date on later merges).
        stats: bool,
        /// Code page of the comments written and read (gbk, big5, shift_jis, utf-8, ...).
        encoding: String,
        /// Read a journal whose header no longer gives its fingerprint (its settings were edited),
        /// with a warning naming it, instead of refusing it.
        force: bool,
        /// Journals (.jsonl), SGF files, .psq records, pos-notation game lists, .lib files.
        inputs: Vec<PathBuf>,
    },
}

/// `--notation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotationArg {
    Renju,
    Pos,
}

/// Run a `lib` subcommand.
pub fn run(args: LibArgs) -> CommandResult {
    match args.command {
        LibTool::Stats { file, json } => stats(&file, json),
        LibTool::Dump {
            file,
            paths,
            notation,
            encoding,
        } => {
            let notation = match notation {
                NotationArg::Renju => Notation::Renju,
                NotationArg::Pos => Notation::Pos,
            };
            let form = if paths { Form::Paths } else { Form::Tree };
            dump_file(&file, form, notation, code_page(&encoding)?)
        }
        LibTool::Merge {
            out,
            into,
            stats,
            encoding,
            force,
            inputs,
        } => {
            let lines = if stats {
                StatsLines::Refresh
            } else {
                StatsLines::IfPresent
            };
            let check = journal::HeaderCheck::forced(force);
            let page = code_page(&encoding)?;
            merge(&out, into.as_deref(), lines, page, check, &inputs)
        }
    }
}

fn code_page(label: &str) -> Result<CodePage, CommandError> {
    label
        .parse()
        .map_err(|e| CommandError::Usage(format!("--encoding: {e}")))
}

fn stats(path: &Path, json: bool) -> CommandResult {
    let lib = file::load(path).map_err(failed)?;
    let stats = LibStats::of(&lib);
    if json {
        let mut v = serde_json::to_value(&stats).map_err(failed)?;
        v["file"] = file_name(path).into();
        say(&format!("{v}\n"));
    } else {
        say(&stats.text(&path.display().to_string()));
    }
    Ok(Outcome::Done)
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// What `lib dump` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// The tree, a line per branch.
    Tree,
    /// A line per path from the top to a leaf.
    Paths,
}

fn dump_file(path: &Path, form: Form, notation: Notation, page: CodePage) -> CommandResult {
    let lib = file::load(path).map_err(failed)?;
    let mut out = BufWriter::new(io::stdout().lock());
    let written = match form {
        Form::Paths => dump::write_paths(&lib, notation, &mut out),
        Form::Tree => dump::write_tree(&lib, notation, page, &mut out),
    };
    match written.and_then(|()| out.flush()) {
        // `lib dump ... | head` closes the pipe early: that is not a failure.
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(failed(e)),
        _ => Ok(Outcome::Done),
    }
}

/// What one input brought.
#[derive(Debug, Default)]
struct Tally {
    games: usize,
    added: usize,
    already: usize,
    new_nodes: usize,
    /// Games not on a 15×15 board.
    off_board: usize,
    /// Other games that could not go in, and the first reason.
    rejected: usize,
    first_rejection: Option<String>,
}

impl Tally {
    fn game(
        &mut self,
        lib: &mut Library,
        game: Result<LibGame, NotMergeable>,
        at: &str,
        page: CodePage,
    ) {
        self.games += 1;
        match game {
            Ok(g) => match lib.merge_game(&g, page) {
                GameMerge::Added { new_nodes, .. } => {
                    self.added += 1;
                    self.new_nodes += new_nodes;
                }
                GameMerge::AlreadyPresent => self.already += 1,
            },
            Err(e) if e.is_board_size() => self.off_board += 1,
            Err(e) => {
                self.rejected += 1;
                self.first_rejection
                    .get_or_insert_with(|| format!("{at}: {e}"));
            }
        }
    }

    /// An input that gave the library nothing is refused: merging a file of the wrong kind (a
    /// PGN, a list of non-games) must not end in an empty library and exit 0.
    fn check(self, name: &str, kind: &str) -> Result<String, CommandError> {
        if self.added + self.already == 0 {
            return Err(failed(format!(
                "{name}: no game could be merged (read as {kind}: {})",
                self.text()
            )));
        }
        Ok(format!("{kind}, {}", self.text()))
    }

    fn text(&self) -> String {
        let mut t = format!(
            "{} game{}: {} added ({} new nodes), {} already in the library",
            self.games,
            if self.games == 1 { "" } else { "s" },
            self.added,
            self.new_nodes,
            self.already
        );
        if self.off_board > 0 {
            t += &format!(
                ", {} not 15x15 (RenLib holds 15x15 games only)",
                self.off_board
            );
        }
        if let Some(first) = &self.first_rejection {
            t += &format!(", {} not mergeable (first: {first})", self.rejected);
        }
        t
    }
}

/// What an input file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Library,
    Journal,
    Sgf,
    Psq,
    /// A PGN file: gomoku-cli's and c-gomoku-cli's hold tags and results only, no moves.
    Pgn,
    PosList,
}

/// A `.lib` extension or RenLib's header makes a library, a `.psq` extension or Piskvork's
/// header a `.psq` record; otherwise the first non-blank character decides: `(` SGF, `{` a
/// journal, anything else a pos-notation game list.
fn kind_of(path: &Path) -> io::Result<Kind> {
    let ext = |x: &str| path.extension().is_some_and(|e| e.eq_ignore_ascii_case(x));
    if ext("lib") {
        return Ok(Kind::Library);
    }
    if ext("psq") {
        return Ok(Kind::Psq);
    }
    let mut head = Vec::new();
    fs::File::open(path)?.take(4096).read_to_end(&mut head)?;
    if head.starts_with(&MAGIC) {
        return Ok(Kind::Library);
    }
    let text = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&head);
    if text.starts_with(b"Piskvorky") {
        return Ok(Kind::Psq);
    }
    Ok(match head.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'(') => Kind::Sgf,
        Some(b'{') => Kind::Journal,
        Some(b'[') => Kind::Pgn,
        _ => Kind::PosList,
    })
}

/// Which statistics lines a merge writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StatsLines {
    /// `--stats`: on every node.
    Refresh,
    /// Only when the library has some already (or a merged library brought them).
    IfPresent,
}

fn merge(
    out: &Path,
    into: Option<&Path>,
    lines: StatsLines,
    page: CodePage,
    check: journal::HeaderCheck,
    inputs: &[PathBuf],
) -> CommandResult {
    // `--into` is read whole before `-o` is replaced: it may be the output.
    crate::commands::check_roles(inputs, &[("-o", Some(out))])?;
    let mut lib = match into {
        Some(p) => file::load(p).map_err(failed)?,
        None => Library::new(),
    };
    for input in inputs {
        let name = input.display().to_string();
        let read_err = |e: io::Error| CommandError::Failed(format!("cannot read {name}: {e}"));
        let line = match kind_of(input).map_err(read_err)? {
            Kind::Library => {
                let other = file::load(input).map_err(failed)?;
                let m = lib.merge_library(&other);
                format!(
                    "library, {} nodes: {} new nodes (symmetry {}), {} new game lines",
                    other.node_count(),
                    m.new_nodes,
                    m.symmetry,
                    m.new_games
                )
            }
            Kind::Journal => merge_journal(&mut lib, input, page, check)?,
            Kind::Sgf => {
                let bytes = fs::read(input).map_err(read_err)?;
                let text = String::from_utf8_lossy(&bytes);
                let games = sgf::parse(&text).map_err(|e| failed(format!("{name}: {e}")))?;
                let mut t = Tally::default();
                for (i, g) in games.iter().enumerate() {
                    t.game(
                        &mut lib,
                        LibGame::from_sgf(g),
                        &format!("game {}", i + 1),
                        page,
                    );
                }
                t.check(&name, "SGF")?
            }
            Kind::Psq => {
                let bytes = fs::read(input).map_err(read_err)?;
                let game = psq::parse(&String::from_utf8_lossy(&bytes))
                    .map_err(|e| failed(format!("{name}: {e}")))?;
                let mut t = Tally::default();
                t.game(&mut lib, LibGame::from_psq(&game), "the record", page);
                t.check(&name, "psq")?
            }
            Kind::Pgn => {
                let bytes = fs::read(input).map_err(read_err)?;
                let line = String::from_utf8_lossy(&bytes)
                    .lines()
                    .position(|l| l.trim_start().starts_with('['))
                    .map_or(1, |i| i + 1);
                return Err(failed(format!(
                    "{name}:{line}: a PGN file: the PGN of gomoku-cli and c-gomoku-cli holds each game's players and result for Elo tools, not its moves, so no game of it can go into a library; merge the run's journal (or its SGF) instead"
                )));
            }
            Kind::PosList => merge_pos_list(&mut lib, input, page)?,
        };
        say(&format!("{name}: {line}\n"));
    }
    // Statistics already in the library (or brought by a merged one) are kept up to date.
    let stats = lines == StatsLines::Refresh || has_stats_lines(&lib);
    if stats {
        refresh_stats(&mut lib);
    }
    file::save_atomic(out, &lib).map_err(failed)?;
    let before_pass = comments_before_passes(&lib).len();
    if before_pass > 0 {
        eprintln!(
            "warning: {}: {before_pass} comment(s) right before a pass node (a game that ends where another goes on with a pass): Figrid skips the pass with the comment's end and misreads the tree below; RenLib reads it",
            out.display()
        );
    }
    say(&format!(
        "wrote {}: {} nodes, {} games{}\n",
        out.display(),
        lib.node_count(),
        lib.game_count(),
        if stats { ", statistics refreshed" } else { "" }
    ));
    Ok(Outcome::Done)
}

fn merge_journal(
    lib: &mut Library,
    path: &Path,
    page: CodePage,
    check: journal::HeaderCheck,
) -> Result<String, CommandError> {
    let name = path.display().to_string();
    let text = fs::read(path).map_err(|e| failed(format!("cannot read {name}: {e}")))?;
    let read = journal::parse_checked(&text, &name, check).map_err(failed)?;
    for w in &read.warnings {
        eprintln!("warning: {w}");
    }
    let mut t = Tally::default();
    for e in &read.entries {
        t.game(
            lib,
            LibGame::from_journal(e),
            &format!("game {}", e.game),
            page,
        );
    }
    t.check(&name, "journal")
}

/// A game list is read line by line: a million games need not be in memory at once.
fn merge_pos_list(lib: &mut Library, path: &Path, page: CodePage) -> Result<String, CommandError> {
    let name = path.display().to_string();
    let err = |e: io::Error| failed(format!("cannot read {name}: {e}"));
    let reader = io::BufReader::with_capacity(1 << 20, fs::File::open(path).map_err(err)?);
    let mut t = Tally::default();
    for (i, line) in reader.split(b'\n').enumerate() {
        let line = line.map_err(err)?;
        let line = String::from_utf8_lossy(&line);
        if let Some(game) = LibGame::from_pos_line(&line) {
            t.game(lib, game, &format!("line {}", i + 1), page);
        }
    }
    t.check(&name, "game list")
}
