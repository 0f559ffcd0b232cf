//! pbrain-kit: the engine side of the Gomocup (pbrain) protocol, shared by the bundled example engines.
//!
//! `Input` turns stdin into `Command`s (tolerating CR LF, bare CR, blank lines and trailing spaces),
//! `Output` writes one flushed line per answer, and `GameState` keeps the board, the rule, our
//! colour and the announced limits, deciding the standard answer to every command. An engine only
//! has to pick moves (`Brain`); engines that misbehave on purpose drive `GameState` themselves.
//! `harness` is a tiny scripted manager used by the engines' integration tests.
//!
//! Strict mode ([`Options::strict`], `--strict` on the bundled engines) reads `SWAP2BOARD` the
//! way Rapfi, the strongest public engine, does, so the manager is tested against both readings:
//! its stones are `x,y,c` lines as in `BOARD` (the engine is the side to move), each `x,y` line is
//! refused with an `ERROR` line of its own and left out, a proposal on the empty board stays on
//! the engine's board, and `BEGIN` on a board with stones is refused (`ERROR Board is not
//! empty.`).
//!
//! `YXBOARD` … `DONE` sets a position without asking for a move (read as `BOARD`). `YXNBEST n`
//! asks for the side to move's move with n principal variations; only engines that enable
//! [`Options::nbest`] answer it (the others answer `UNKNOWN`, as before). `INFO show_detail N` is
//! kept in the state ([`GameState::show_detail`]) for engines that report their search
//! ([`report`]).

pub mod harness;
pub mod report;

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::time::Duration;

use gomoku_cli::core::board::{Board, BoardSize, Color, Pos};
use gomoku_cli::core::rules::{forbidden_kind, Rule};
use rand::seq::SliceRandom;
use rand::Rng;

use report::ShowDetail;

/// One command from the manager. Coordinates stay signed so off-board input can be reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Start(u32),
    RectStart(u32, u32),
    Restart,
    Info {
        key: String,
        value: String,
    },
    Begin,
    Turn(i64, i64),
    /// The `x,y,f` lines between `BOARD` and `DONE`, in the order sent.
    Board(Vec<(i64, i64, u8)>),
    /// The `x,y` lines between `SWAP2BOARD` and `DONE`: the stones of a swap opening in play
    /// order (black first).
    Swap2Board(Vec<(i64, i64)>),
    /// Strict mode: the `x,y,f` lines between `SWAP2BOARD` and `DONE` as in `BOARD` (f = 1 own,
    /// 2 the opponent's), and the lines that were not such (Rapfi refuses each with `ERROR`).
    Swap2BoardFields {
        stones: Vec<(i64, i64, u8)>,
        refused: Vec<String>,
    },
    /// The `x,y,f` lines between `YXBOARD` and `DONE`: a position to hold, no move asked.
    YxBoard(Vec<(i64, i64, u8)>),
    /// `YXNBEST n`: the side to move's move, searched with n principal variations.
    YxNBest(u32),
    Takeback(i64, i64),
    Play(i64, i64),
    About,
    End,
    /// A known command whose arguments do not parse; answered with `ERROR`.
    Malformed {
        line: String,
        why: String,
    },
    /// Anything else; answered with `UNKNOWN`.
    Unknown(String),
}

/// Parse `x,y` (spaces around the numbers allowed).
pub fn parse_xy(text: &str) -> Option<(i64, i64)> {
    let (x, y) = text.split_once(',')?;
    Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
}

fn parse_board_line(text: &str) -> Option<(i64, i64, u8)> {
    let mut parts = text.split(',').map(str::trim);
    let x = parts.next()?.parse().ok()?;
    let y = parts.next()?.parse().ok()?;
    let f = parts.next()?.parse().ok()?;
    if parts.next().is_some() {
        return None;
    }
    Some((x, y, f))
}

fn malformed(line: &str, why: &str) -> Command {
    Command::Malformed {
        line: line.to_string(),
        why: why.to_string(),
    }
}

/// Parse a single-line command. `BOARD` is returned with no stones; `Input` collects its lines.
pub fn parse_command(line: &str) -> Command {
    let line = line.trim();
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (line, ""),
    };
    let xy = |cmd: fn(i64, i64) -> Command| match parse_xy(rest) {
        Some((x, y)) => cmd(x, y),
        None => malformed(line, "expected coordinates x,y"),
    };
    match word.to_ascii_uppercase().as_str() {
        "START" => match rest.parse() {
            Ok(n) => Command::Start(n),
            Err(_) => malformed(line, "expected a board size"),
        },
        "RECTSTART" => match parse_xy(rest) {
            Some((w, h)) if w >= 0 && h >= 0 => Command::RectStart(w as u32, h as u32),
            _ => malformed(line, "expected width,height"),
        },
        "RESTART" => Command::Restart,
        "INFO" => {
            let (key, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            Command::Info {
                key: key.to_ascii_lowercase(),
                value: value.trim().to_string(),
            }
        }
        "BEGIN" => Command::Begin,
        "TURN" => xy(Command::Turn),
        "BOARD" => Command::Board(Vec::new()),
        "YXBOARD" => Command::YxBoard(Vec::new()),
        "YXNBEST" => match rest.parse::<u32>() {
            Ok(n) => Command::YxNBest(n.max(1)),
            Err(_) => malformed(line, "expected a number of best moves"),
        },
        "SWAP2BOARD" => Command::Swap2Board(Vec::new()),
        "TAKEBACK" => xy(Command::Takeback),
        "PLAY" => xy(Command::Play),
        "ABOUT" => Command::About,
        "END" => Command::End,
        _ => Command::Unknown(line.to_string()),
    }
}

/// How an engine built on the kit reads the protocol.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Read `SWAP2BOARD` as Rapfi does (see the crate's documentation).
    pub strict: bool,
    /// Answer `YXNBEST n` (the brain searches several principal variations); `UNKNOWN` without.
    pub nbest: bool,
}

impl Options {
    /// `--strict` on the command line.
    pub fn from_args(args: &[String]) -> Options {
        Options {
            strict: args.iter().any(|a| a == "--strict"),
            nbest: false,
        }
    }
}

/// Line reader over the manager's commands.
pub struct Input<R> {
    reader: R,
    pending: VecDeque<String>,
    /// `SWAP2BOARD` stones as `BOARD`'s `x,y,f` lines (strict mode).
    strict: bool,
}

impl<R: BufRead> Input<R> {
    pub fn new(reader: R) -> Self {
        Input {
            reader,
            pending: VecDeque::new(),
            strict: false,
        }
    }

    /// A reader with `options` (strict mode reads `SWAP2BOARD` as `BOARD`).
    pub fn with_options(reader: R, options: Options) -> Self {
        Input {
            strict: options.strict,
            ..Input::new(reader)
        }
    }

    /// The next non-empty line, trimmed; `None` at end of input. CR, LF and CR LF all end a line.
    pub fn next_line(&mut self) -> io::Result<Option<String>> {
        loop {
            if let Some(line) = self.pending.pop_front() {
                return Ok(Some(line));
            }
            let mut buf = Vec::new();
            if self.reader.read_until(b'\n', &mut buf)? == 0 {
                return Ok(None);
            }
            let text = String::from_utf8_lossy(&buf);
            for piece in text.split(['\r', '\n']) {
                let piece = piece.trim();
                if !piece.is_empty() {
                    self.pending.push_back(piece.to_string());
                }
            }
        }
    }

    /// The next command; `BOARD` and `SWAP2BOARD` include their stone lines up to `DONE`.
    /// `None` at end of input.
    pub fn next_command(&mut self) -> io::Result<Option<Command>> {
        let Some(line) = self.next_line()? else {
            return Ok(None);
        };
        let cmd = parse_command(&line);
        let yx = cmd == Command::YxBoard(Vec::new());
        let board = yx || cmd == Command::Board(Vec::new());
        if !board && cmd != Command::Swap2Board(Vec::new()) {
            return Ok(Some(cmd));
        }
        if !board && self.strict {
            return self.strict_swap2_lines();
        }
        let Some((lines, bad)) = self.lines_to_done(|l| {
            if board {
                parse_board_line(l)
            } else {
                parse_xy(l).map(|(x, y)| (x, y, 0))
            }
        })?
        else {
            return Ok(None);
        };
        Ok(Some(match (bad, board) {
            (Some(l), true) => malformed(&l, "expected a BOARD line x,y,field"),
            (Some(l), false) => malformed(&l, "expected a SWAP2BOARD line x,y"),
            (None, true) if yx => Command::YxBoard(lines),
            (None, true) => Command::Board(lines),
            (None, false) => Command::Swap2Board(lines.iter().map(|s| (s.0, s.1)).collect()),
        }))
    }

    /// Strict mode's `SWAP2BOARD`: every line up to `DONE` as `BOARD` reads it, the others kept
    /// to be refused one by one.
    fn strict_swap2_lines(&mut self) -> io::Result<Option<Command>> {
        let (mut stones, mut refused) = (Vec::new(), Vec::new());
        loop {
            let Some(l) = self.next_line()? else {
                return Ok(None);
            };
            if l.eq_ignore_ascii_case("DONE") {
                return Ok(Some(Command::Swap2BoardFields { stones, refused }));
            }
            match parse_board_line(&l).filter(|s| matches!(s.2, 1 | 2)) {
                Some(s) => stones.push(s),
                None => refused.push(l),
            }
        }
    }

    /// The lines up to `DONE` read by `parse`, and the first that did not parse; `None` at end
    /// of input.
    #[allow(clippy::type_complexity)]
    fn lines_to_done(
        &mut self,
        parse: impl Fn(&str) -> Option<(i64, i64, u8)>,
    ) -> io::Result<Option<(Vec<(i64, i64, u8)>, Option<String>)>> {
        let mut stones = Vec::new();
        let mut bad = None;
        loop {
            let Some(l) = self.next_line()? else {
                return Ok(None);
            };
            if l.eq_ignore_ascii_case("DONE") {
                return Ok(Some((stones, bad)));
            }
            match parse(&l) {
                Some(s) => stones.push(s),
                None => bad = bad.or(Some(l)),
            }
        }
    }
}

/// Line writer: every line is flushed at once so the manager never waits on a buffer.
pub struct Output<W> {
    writer: W,
    eol: &'static str,
    trailing: &'static str,
}

impl<W: Write> Output<W> {
    /// Lines end with `\n`.
    pub fn new(writer: W) -> Self {
        Output {
            writer,
            eol: "\n",
            trailing: "",
        }
    }

    /// Lines end with `trailing` then `eol` (e.g. `"  "` and `"\r\n"`).
    pub fn with_endings(writer: W, trailing: &'static str, eol: &'static str) -> Self {
        Output {
            writer,
            eol,
            trailing,
        }
    }

    pub fn line(&mut self, text: &str) -> io::Result<()> {
        write!(self.writer, "{text}{}{}", self.trailing, self.eol)?;
        self.writer.flush()
    }
}

/// The limits announced with `INFO`. Times in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    pub timeout_turn: Option<u64>,
    pub timeout_match: Option<u64>,
    pub time_left: Option<i64>,
    pub max_memory: Option<u64>,
    pub game_type: Option<u32>,
    pub max_depth: Option<u32>,
    pub max_node: Option<u64>,
    pub thread_num: Option<u32>,
}

/// `time_left` value meaning "no match limit".
pub const UNLIMITED_TIME_LEFT: i64 = 2_147_483_647;

impl Limits {
    /// Time to spend on the next move: at most `timeout_turn` and about a tenth of `time_left`,
    /// minus a safety margin for process and pipe latency; `default` when nothing was announced.
    /// `Some(ZERO)` means "as fast as possible" (`timeout_turn 0`).
    pub fn move_budget(&self, default: Duration) -> Duration {
        if self.timeout_turn == Some(0) {
            return Duration::ZERO;
        }
        let mut ms: Option<u64> = self.timeout_turn;
        if let Some(left) = self.time_left {
            if left < UNLIMITED_TIME_LEFT {
                let share = (left.max(0) as u64) / 10;
                ms = Some(ms.map_or(share, |t| t.min(share)));
            }
        }
        let Some(ms) = ms else {
            return default;
        };
        // Keep a quarter of the budget (at least 30 ms, at most 300 ms) for overheads.
        let margin = (ms / 4).clamp(30, 300);
        Duration::from_millis(ms.saturating_sub(margin).max(1))
    }
}

/// Decode `INFO rule`: a bitmask of 1 exactly five, 2 continuous (ignored), 4 renju, 8 caro.
pub fn rule_from_info(value: i64) -> Rule {
    if value & 4 != 0 {
        Rule::Renju
    } else if value & 8 != 0 {
        if value & 1 != 0 {
            Rule::StandardCaro
        } else {
            Rule::Caro
        }
    } else if value & 1 != 0 {
        Rule::ExactFive
    } else {
        Rule::Freestyle
    }
}

/// What the engine loop must do after `GameState::handle`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Send this line.
    Reply(String),
    /// Choose a move for `me()`, play it with `play_own` and send it.
    Think,
    /// Answer `SWAP2BOARD` (the board holds its stones, `me()` is the colour to move): three
    /// stones, `SWAP`, or one or two stones; see [`swap2_answer`].
    Swap2,
    /// Send the engine's `ABOUT` line.
    About,
    /// Exit.
    Quit,
    /// Nothing to send.
    Silent,
}

/// The game as the engine sees it.
#[derive(Debug, Clone)]
pub struct GameState {
    board: Option<Board>,
    rule: Rule,
    me: Color,
    moves_asked: u32,
    /// The points of a continuous game's winning line (`BOARD` field 3): held, by no one's
    /// stone that counts, so never a move.
    blocked: Vec<Pos>,
    pub limits: Limits,
    /// Strict mode (see the crate's documentation).
    strict: bool,
    /// `YXNBEST` is answered.
    nbest: bool,
    /// Principal variations asked for the current move (1 but after `YXNBEST n`).
    pvs: u32,
    /// What the manager asked to hear of the search (`INFO show_detail`).
    show_detail: ShowDetail,
    /// Lines to send before the answer to the current command (strict mode's `ERROR`s).
    before: Vec<String>,
}

impl Default for GameState {
    fn default() -> Self {
        Self::new()
    }
}

impl GameState {
    pub fn new() -> Self {
        GameState {
            board: None,
            rule: Rule::Freestyle,
            me: Color::Black,
            moves_asked: 0,
            blocked: Vec::new(),
            limits: Limits::default(),
            strict: false,
            nbest: false,
            pvs: 1,
            show_detail: ShowDetail::Nothing,
            before: Vec::new(),
        }
    }

    /// A state with `options` (strict mode refuses `BEGIN` on a board with stones and keeps a
    /// `SWAP2BOARD` proposal on its board).
    pub fn with_options(options: Options) -> Self {
        GameState {
            strict: options.strict,
            nbest: options.nbest,
            ..GameState::new()
        }
    }

    /// The lines to send before the answer to the command just handled.
    pub fn take_before(&mut self) -> Vec<String> {
        std::mem::take(&mut self.before)
    }

    /// After answering `SWAP2BOARD` with `answer`: in strict mode a proposal on the empty board
    /// stays on the board, as Rapfi keeps the stones it placed.
    pub fn after_swap2(&mut self, answer: &str) {
        let Some(board) = self
            .board
            .as_mut()
            .filter(|b| self.strict && b.stone_count() == 0)
        else {
            return;
        };
        for (i, point) in answer.split_whitespace().enumerate() {
            if let Some(p) = parse_xy(point).and_then(|(x, y)| board.size().pos(x, y).ok()) {
                board.put(p, Color::of_ply(i));
            }
        }
    }

    /// The board, once `START` succeeded.
    pub fn board(&self) -> Option<&Board> {
        self.board.as_ref()
    }

    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The colour we play in the current game.
    pub fn me(&self) -> Color {
        self.me
    }

    /// How many moves we have been asked for in this game (1 while answering the first).
    pub fn moves_asked(&self) -> u32 {
        self.moves_asked
    }

    /// How many principal variations the current move asks for: n after `YXNBEST n`, else 1.
    pub fn pvs(&self) -> u32 {
        self.pvs
    }

    /// What `INFO show_detail` asked to hear of the search (nothing until told).
    pub fn show_detail(&self) -> ShowDetail {
        self.show_detail
    }

    /// Whether `p` is a legal move for us: on the board, empty and, for black in renju, not forbidden.
    pub fn is_legal(&self, p: Pos) -> bool {
        let Some(b) = &self.board else {
            return false;
        };
        b.size().contains(p.x as i64, p.y as i64)
            && b.is_empty_at(p)
            && !self.blocked.contains(&p)
            && !(self.rule == Rule::Renju
                && self.me == Color::Black
                && forbidden_kind(b, p).is_some())
    }

    /// Every legal move for us, in reading order.
    pub fn legal_moves(&self) -> Vec<Pos> {
        let Some(b) = &self.board else {
            return Vec::new();
        };
        b.size().all().filter(|&p| self.is_legal(p)).collect()
    }

    /// Record our own move. Returns false (changing nothing) when the point is taken or off the board.
    pub fn play_own(&mut self, p: Pos) -> bool {
        let me = self.me;
        match &mut self.board {
            Some(b) if b.size().contains(p.x as i64, p.y as i64) => b.put(p, me),
            _ => false,
        }
    }

    fn new_board(&mut self, n: u32) -> Action {
        match BoardSize::new(n) {
            Ok(size) => {
                self.board = Some(Board::new(size));
                self.me = Color::Black;
                self.moves_asked = 0;
                self.blocked.clear();
                Action::Reply("OK".into())
            }
            Err(e) => Action::Reply(format!("ERROR {e}")),
        }
    }

    fn checked_pos(&self, x: i64, y: i64) -> Result<Pos, String> {
        let b = self
            .board
            .as_ref()
            .ok_or("no board yet: send START first")?;
        b.size().pos(x, y).map_err(|e| e.to_string())
    }

    /// Update the state for `cmd` and say what to answer.
    pub fn handle(&mut self, cmd: Command) -> Action {
        self.pvs = 1;
        match cmd {
            Command::Start(n) => self.new_board(n),
            Command::RectStart(w, h) if w == h => self.new_board(w),
            Command::RectStart(w, h) => Action::Reply(format!(
                "ERROR rectangular boards are not supported ({w}x{h})"
            )),
            Command::Restart => match &self.board {
                Some(b) => {
                    let n = b.size().get() as u32;
                    self.new_board(n)
                }
                None => Action::Reply("ERROR no board yet: send START first".into()),
            },
            Command::Info { key, value } => {
                self.info(&key, &value);
                Action::Silent
            }
            Command::Begin => match &self.board {
                Some(b) if self.strict && b.stone_count() > 0 => {
                    Action::Reply("ERROR Board is not empty.".into())
                }
                Some(b) => {
                    self.me = b.side_to_move();
                    self.moves_asked += 1;
                    Action::Think
                }
                None => Action::Reply("ERROR no board yet: send START first".into()),
            },
            Command::Turn(x, y) => {
                let p = match self.checked_pos(x, y) {
                    Ok(p) => p,
                    Err(e) => return Action::Reply(format!("ERROR TURN {x},{y}: {e}")),
                };
                let b = self.board.as_mut().expect("checked_pos saw a board");
                let them = b.side_to_move();
                if !b.put(p, them) {
                    return Action::Reply(format!("ERROR TURN {x},{y}: point is occupied"));
                }
                self.me = them.opponent();
                self.moves_asked += 1;
                Action::Think
            }
            Command::Board(stones) => match self.set_board(&stones) {
                Ok(()) => {
                    self.moves_asked += 1;
                    Action::Think
                }
                Err(refusal) => Action::Reply(refusal),
            },
            Command::YxBoard(stones) => match self.set_board(&stones) {
                Ok(()) => Action::Silent,
                Err(refusal) => Action::Reply(refusal.replacen("BOARD", "YXBOARD", 1)),
            },
            Command::YxNBest(n) if !self.nbest => {
                Action::Reply(format!("UNKNOWN command \"YXNBEST {n}\""))
            }
            Command::YxNBest(n) => match &self.board {
                Some(b) => {
                    self.me = b.side_to_move();
                    self.moves_asked += 1;
                    self.pvs = n;
                    Action::Think
                }
                None => Action::Reply("ERROR no board yet: send START first".into()),
            },
            Command::Swap2Board(stones) => self.set_swap_board(&stones),
            Command::Swap2BoardFields { stones, refused } => {
                self.before.extend(refused.iter().map(|_| {
                    "ERROR Color is not a valid value, must be one of [1, 2, 3].".to_string()
                }));
                match self.set_board(&stones) {
                    Ok(()) => Action::Swap2,
                    Err(refusal) => Action::Reply(refusal),
                }
            }
            Command::Takeback(x, y) => match self.checked_pos(x, y) {
                Ok(p) => {
                    if let Some(b) = &mut self.board {
                        b.remove(p);
                    }
                    Action::Reply("OK".into())
                }
                Err(e) => Action::Reply(format!("ERROR TAKEBACK {x},{y}: {e}")),
            },
            Command::Play(x, y) => match self.checked_pos(x, y) {
                Ok(p) if self.play_own(p) => Action::Reply(format!("{x},{y}")),
                Ok(_) => Action::Reply(format!("ERROR PLAY {x},{y}: point is occupied")),
                Err(e) => Action::Reply(format!("ERROR PLAY {x},{y}: {e}")),
            },
            Command::About => Action::About,
            Command::End => Action::Quit,
            Command::Malformed { line, why } => Action::Reply(format!("ERROR {why}: {line:?}")),
            Command::Unknown(line) => Action::Reply(format!("UNKNOWN command {line:?}")),
        }
    }

    /// Set the position of a `BOARD`-like command (field 1 ours, 2 theirs, 3 a winning line's
    /// point); the refusal to send otherwise.
    fn set_board(&mut self, stones: &[(i64, i64, u8)]) -> Result<(), String> {
        let Some(old) = &self.board else {
            return Err("ERROR no board yet: send START first".into());
        };
        let size = old.size();
        let own = stones.iter().filter(|s| s.2 == 1).count();
        let theirs = stones.iter().filter(|s| s.2 == 2).count();
        // Black is to move when both sides have as many stones; otherwise alternation decides.
        self.me = if own == theirs {
            Color::Black
        } else if theirs == own + 1 {
            Color::White
        } else {
            Color::of_ply(own + theirs)
        };
        let mut board = Board::new(size);
        let mut blocked = Vec::new();
        for &(x, y, f) in stones {
            let p = match size.pos(x, y) {
                Ok(p) => p,
                Err(e) => return Err(format!("ERROR BOARD line {x},{y},{f}: {e}")),
            };
            let c = match f {
                1 => self.me,
                2 => self.me.opponent(),
                // A continuous game's winning line: its points are taken, by nobody's stone.
                3 => {
                    blocked.push(p);
                    continue;
                }
                _ => continue,
            };
            if !board.put(p, c) {
                return Err(format!("ERROR BOARD line {x},{y},{f}: point is occupied"));
            }
        }
        self.board = Some(board);
        self.blocked = blocked;
        Ok(())
    }

    /// `SWAP2BOARD`: the stones alternate from black; we answer for the colour to move.
    fn set_swap_board(&mut self, stones: &[(i64, i64)]) -> Action {
        let Some(old) = &self.board else {
            return Action::Reply("ERROR no board yet: send START first".into());
        };
        let size = old.size();
        let mut board = Board::new(size);
        for (i, &(x, y)) in stones.iter().enumerate() {
            let placed = size.pos(x, y).map(|p| board.put(p, Color::of_ply(i)));
            if !matches!(placed, Ok(true)) {
                return Action::Reply(format!("ERROR SWAP2BOARD line {x},{y}: not a free point"));
            }
        }
        if !matches!(stones.len(), 0 | 3 | 5) {
            return Action::Reply(format!(
                "ERROR SWAP2BOARD with {} stones: 0, 3 or 5 expected",
                stones.len()
            ));
        }
        self.me = board.side_to_move();
        self.board = Some(board);
        Action::Swap2
    }

    fn info(&mut self, key: &str, value: &str) {
        let int = value.parse::<i64>().ok();
        let uint = int.filter(|v| *v >= 0).map(|v| v as u64);
        match key {
            "timeout_turn" => self.limits.timeout_turn = uint,
            "timeout_match" => self.limits.timeout_match = uint,
            "time_left" => self.limits.time_left = int,
            "max_memory" => self.limits.max_memory = uint,
            "game_type" => self.limits.game_type = uint.map(|v| v as u32),
            "max_depth" => self.limits.max_depth = uint.map(|v| v.min(u32::MAX as u64) as u32),
            "max_node" => self.limits.max_node = uint,
            "thread_num" => self.limits.thread_num = uint.map(|v| v.min(u32::MAX as u64) as u32),
            "show_detail" => self.show_detail = ShowDetail::from_info(value),
            "rule" => {
                if let Some(v) = int {
                    self.rule = rule_from_info(v);
                }
            }
            _ => {}
        }
    }
}

/// The `ABOUT` answer.
pub fn about_line(name: &str, version: &str, author: &str, country: &str) -> String {
    format!("name=\"{name}\", version=\"{version}\", author=\"{author}\", country=\"{country}\"")
}

/// A move chooser.
pub trait Brain {
    /// The `ABOUT` line.
    fn about(&self) -> String;
    /// A legal move for `state.me()`, or `None` when there is none.
    fn choose(&mut self, state: &GameState) -> Option<Pos>;
    /// [`Brain::choose`] for an engine that reports its search: `say` sends a line at once
    /// (while thinking); `state.pvs()` principal variations are asked for. Without an override,
    /// `choose`, silently.
    fn think(&mut self, state: &GameState, _say: &mut dyn FnMut(&str)) -> Option<Pos> {
        self.choose(state)
    }
    /// An `INFO key value` line, after the state took it in (engines size their hash from
    /// `max_memory` here).
    fn info(&mut self, _key: &str, _value: &str) {}
    /// The answer to `SWAP2BOARD`: the kit's policy, [`swap2_answer`], with this brain's moves.
    fn swap2(&mut self, state: &GameState) -> String {
        swap2_answer(state, |s| self.choose(s))
    }
}

/// The three stones the bundled engines propose on an empty board: black on the centre, white
/// beside it, black a knight's move away (no two black stones touch, so the opponent's count
/// finds the position even and stays).
pub fn swap2_proposal(size: BoardSize) -> [Pos; 3] {
    let c = size.get() / 2;
    [Pos::new(c, c), Pos::new(c + 1, c), Pos::new(c + 2, c + 1)]
}

/// A trivial count of who the position favours: pairs of touching stones (8 directions) of
/// black minus those of white.
pub fn black_lead(board: &Board) -> i64 {
    let mut lead = 0;
    for &p in board.history() {
        let Some(c) = board.get(p) else { continue };
        // Each pair once: the neighbours after p in reading order.
        for (dx, dy) in [(1, 0), (-1, 1), (0, 1), (1, 1)] {
            if board.at(p.x as i64 + dx, p.y as i64 + dy) == Some(c) {
                lead += if c == Color::Black { 1 } else { -1 };
            }
        }
    }
    lead
}

/// The bundled engines' swap policy: on the empty board, [`swap2_proposal`]; on three or five
/// stones, `SWAP` (take black) when [`black_lead`] favours black, else stay and place one stone
/// with `choose` (the 4th or 6th, for the colour to move).
pub fn swap2_answer(state: &GameState, choose: impl FnOnce(&GameState) -> Option<Pos>) -> String {
    let Some(board) = state.board() else {
        return "ERROR no board yet: send START first".into();
    };
    if board.stone_count() == 0 {
        let stones = swap2_proposal(board.size()).map(|p| p.to_string());
        return stones.join(" ");
    }
    if black_lead(board) > 0 {
        return "SWAP".into();
    }
    match choose(state) {
        Some(p) => p.to_string(),
        None => "SWAP".into(),
    }
}

/// Serve the protocol until `END` or end of input.
pub fn run<B: Brain, R: BufRead, W: Write>(brain: &mut B, input: R, output: W) -> io::Result<()> {
    run_with(brain, input, output, Options::default())
}

/// [`run`] with `options` (strict mode).
pub fn run_with<B: Brain, R: BufRead, W: Write>(
    brain: &mut B,
    input: R,
    output: W,
    options: Options,
) -> io::Result<()> {
    let mut input = Input::with_options(input, options);
    let mut out = Output::new(output);
    let mut state = GameState::with_options(options);
    while let Some(cmd) = input.next_command()? {
        let info = match &cmd {
            Command::Info { key, value } => Some((key.clone(), value.clone())),
            _ => None,
        };
        let action = state.handle(cmd);
        if let Some((key, value)) = info {
            brain.info(&key, &value);
        }
        for line in state.take_before() {
            out.line(&line)?;
        }
        match action {
            Action::Reply(line) => out.line(&line)?,
            Action::Think => {
                // A failed report line fails the engine like its move would, after the search.
                let mut failed = None;
                let chosen = brain.think(&state, &mut |line| {
                    if failed.is_none() {
                        failed = out.line(line).err();
                    }
                });
                if let Some(e) = failed {
                    return Err(e);
                }
                match chosen {
                    Some(p) => {
                        state.play_own(p);
                        out.line(&p.to_string())?;
                    }
                    None => out.line("ERROR no legal move left")?,
                }
            }
            Action::About => out.line(&brain.about())?,
            Action::Swap2 => {
                let answer = brain.swap2(&state);
                state.after_swap2(&answer);
                out.line(&answer)?
            }
            Action::Quit => return Ok(()),
            Action::Silent => {}
        }
    }
    Ok(())
}

/// A random legal move, preferring points within two cells of a stone; the centre region on an
/// empty board. `None` when nothing is legal.
pub fn random_legal_move<R: Rng>(state: &GameState, rng: &mut R) -> Option<Pos> {
    let board = state.board()?;
    let size = board.size();
    let n = size.get() as i64;
    let near = |p: Pos| {
        (-2..=2).any(|dy| (-2..=2).any(|dx| board.at(p.x as i64 + dx, p.y as i64 + dy).is_some()))
    };
    let empty: Vec<Pos> = size.all().filter(|&p| board.is_empty_at(p)).collect();
    let mut preferred: Vec<Pos> = if board.stone_count() == 0 {
        let c = n / 2;
        empty
            .iter()
            .copied()
            .filter(|p| (p.x as i64 - c).abs() <= 2 && (p.y as i64 - c).abs() <= 2)
            .collect()
    } else {
        empty.iter().copied().filter(|&p| near(p)).collect()
    };
    // Try the preferred points in random order, then everything else; legality (renju forbidden
    // points) is checked lazily because it is the expensive part.
    preferred.shuffle(rng);
    if let Some(p) = preferred.into_iter().find(|&p| state.is_legal(p)) {
        return Some(p);
    }
    let mut rest = empty;
    rest.shuffle(rng);
    rest.into_iter().find(|&p| state.is_legal(p))
}

/// Parse `--name value` from the command line.
pub fn arg_value(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
        .or_else(|| {
            let prefix = format!("{name}=");
            args.iter()
                .find_map(|a| a.strip_prefix(&prefix).map(str::to_string))
        })
}

/// A seed from `--seed N`, or from the clock and process id.
pub fn seed_from_args(args: &[String]) -> Result<u64, String> {
    match arg_value(args, "--seed") {
        Some(s) => s
            .parse()
            .map_err(|_| format!("--seed expects a non-negative integer, got {s:?}")),
        None => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            Ok(nanos ^ ((std::process::id() as u64) << 32))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands_with_odd_line_endings() {
        let text =
            "START 15\r\n\r\nINFO Rule 4 \rTURN 7, 8\nBOARD\r\n7,7,1\r\n8,8,2\r\nDONE\r\nfoo bar\n";
        let mut input = Input::new(text.as_bytes());
        assert_eq!(input.next_command().unwrap(), Some(Command::Start(15)));
        assert_eq!(
            input.next_command().unwrap(),
            Some(Command::Info {
                key: "rule".into(),
                value: "4".into()
            })
        );
        assert_eq!(input.next_command().unwrap(), Some(Command::Turn(7, 8)));
        assert_eq!(
            input.next_command().unwrap(),
            Some(Command::Board(vec![(7, 7, 1), (8, 8, 2)]))
        );
        assert!(matches!(
            input.next_command().unwrap(),
            Some(Command::Unknown(_))
        ));
        assert_eq!(input.next_command().unwrap(), None);
    }

    #[test]
    fn swap2board_reads_its_stones_and_the_policy_answers_each_case() {
        let text = "SWAP2BOARD\r\nDONE\r\nSWAP2BOARD\r\n7,7\r\n8,7\r\n9,8\r\nDONE\r\n\
                    SWAP2BOARD\r\n7,7\r\nx\r\nDONE\r\n";
        let mut input = Input::new(text.as_bytes());
        let empty = input.next_command().unwrap().unwrap();
        assert_eq!(empty, Command::Swap2Board(vec![]));
        let three = input.next_command().unwrap().unwrap();
        assert_eq!(three, Command::Swap2Board(vec![(7, 7), (8, 7), (9, 8)]));
        assert!(matches!(
            input.next_command().unwrap(),
            Some(Command::Malformed { .. })
        ));
        let mut s = GameState::new();
        s.handle(Command::Start(15));
        assert_eq!(s.handle(empty), Action::Swap2);
        assert_eq!(s.me(), Color::Black);
        assert_eq!(swap2_answer(&s, |_| None), "7,7 8,7 9,8");
        assert_eq!(s.handle(three), Action::Swap2);
        assert_eq!(s.me(), Color::White);
        // Even by the count: stay, with the brain's stone.
        assert_eq!(swap2_answer(&s, |_| Some(Pos::new(3, 3))), "3,3");
        // Two touching black stones: take black.
        let touching = Command::Swap2Board(vec![(7, 7), (0, 0), (8, 8)]);
        assert_eq!(s.handle(touching), Action::Swap2);
        assert_eq!(swap2_answer(&s, |_| Some(Pos::new(3, 3))), "SWAP");
        let five = Command::Swap2Board(vec![(7, 7), (0, 0), (9, 9), (0, 1), (11, 11)]);
        assert_eq!(s.handle(five), Action::Swap2);
        assert_eq!(s.me(), Color::White);
        assert!(matches!(
            s.handle(Command::Swap2Board(vec![(7, 7), (7, 7), (1, 1)])),
            Action::Reply(r) if r.starts_with("ERROR")
        ));
        assert!(matches!(
            s.handle(Command::Swap2Board(vec![(7, 7)])),
            Action::Reply(r) if r.starts_with("ERROR")
        ));
    }

    #[test]
    fn strict_mode_reads_swap2board_as_rapfi_does() {
        let text = "START 15\r\nSWAP2BOARD\r\n7,7\r\n8,7\r\n9,8\r\nDONE\r\nBEGIN\r\n\
                    SWAP2BOARD\r\n7,7,2\r\n8,7,1\r\n9,9,2\r\nDONE\r\n\
                    SWAP2BOARD\r\n7,7,2\r\n8,7,1\r\n9,9,2\r\n8,8,1\r\n8,6,2\r\nDONE\r\n\
                    RESTART\r\nBEGIN\r\n";
        let mut out = Vec::new();
        let strict = Options {
            strict: true,
            ..Options::default()
        };
        run_with(&mut Fixed(false), text.as_bytes(), &mut out, strict).unwrap();
        let bad = "ERROR Color is not a valid value, must be one of [1, 2, 3].";
        let lines: Vec<&str> = std::str::from_utf8(&out).unwrap().lines().collect();
        assert_eq!(
            lines,
            [
                "OK",
                // Each x,y line refused, then a proposal for the empty board it was left with...
                bad,
                bad,
                bad,
                "7,7 8,7 9,8",
                // ...which stays on its board.
                "ERROR Board is not empty.",
                // x,y,c lines: white to move after three, black has no touching pair: it stays.
                "0,0",
                // After five, white to move again; the count is even, so it stays too.
                "0,0",
                "OK",
                "0,0",
            ]
        );
        // Without strict mode the x,y lines are the stones (white stays), and BEGIN is answered
        // on any board.
        let mut out = Vec::new();
        let text = "START 15\r\nSWAP2BOARD\r\n7,7\r\n8,7\r\n9,8\r\nDONE\r\nBEGIN\r\n";
        run(&mut Fixed(false), text.as_bytes(), &mut out).unwrap();
        let lines: Vec<&str> = std::str::from_utf8(&out).unwrap().lines().collect();
        assert_eq!(lines, ["OK", "0,0", "0,0"]);
    }

    /// A brain that plays the first legal point; with `.0` it reports one line per move,
    /// naming how many PVs it was asked for.
    struct Fixed(bool);
    impl Brain for Fixed {
        fn about(&self) -> String {
            "name=\"fixed\"".into()
        }
        fn choose(&mut self, s: &GameState) -> Option<Pos> {
            s.legal_moves().into_iter().next()
        }
        fn think(&mut self, s: &GameState, say: &mut dyn FnMut(&str)) -> Option<Pos> {
            if self.0 {
                say(&format!(
                    "MESSAGE pvs {} detail {:?}",
                    s.pvs(),
                    s.show_detail()
                ));
            }
            self.choose(s)
        }
    }

    fn served(text: &str, options: Options) -> Vec<String> {
        let mut out = Vec::new();
        run_with(&mut Fixed(true), text.as_bytes(), &mut out, options).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    }

    #[test]
    fn yxboard_sets_a_position_and_yxnbest_asks_the_side_to_move() {
        let text =
            "START 15\r\nINFO SHOW_DETAIL 2\r\nYXBOARD\r\n7,7,2\r\n0,0,1\r\n8,8,2\r\nDONE\r\n\
                    YXNBEST 3\r\nTURN 2,0\r\nYXBOARD\r\n7,7,2\r\n7,7,1\r\nDONE\r\nYXNBEST x\r\n";
        let nbest = Options {
            nbest: true,
            ..Options::default()
        };
        let lines = served(text, nbest);
        assert_eq!(
            lines,
            [
                "OK",
                // No answer to YXBOARD; YXNBEST: white (two black stones, one white) to move.
                "MESSAGE pvs 3 detail Detail",
                "1,0",
                // TURN asks for one PV again.
                "MESSAGE pvs 1 detail Detail",
                "3,0",
                "ERROR YXBOARD line 7,7,1: point is occupied",
                "ERROR expected a number of best moves: \"YXNBEST x\"",
            ]
        );
        // Engines that do not enable it answer YXNBEST as an unknown command, as before.
        let lines = served(
            "START 15\r\nYXBOARD\r\nDONE\r\nYXNBEST 2\r\n",
            Options::default(),
        );
        assert_eq!(lines, ["OK", "UNKNOWN command \"YXNBEST 2\""]);
    }

    #[test]
    fn rule_bits() {
        assert_eq!(rule_from_info(0), Rule::Freestyle);
        assert_eq!(rule_from_info(1), Rule::ExactFive);
        assert_eq!(rule_from_info(4), Rule::Renju);
        assert_eq!(rule_from_info(8), Rule::Caro);
        assert_eq!(rule_from_info(9), Rule::StandardCaro);
        assert_eq!(rule_from_info(2), Rule::Freestyle);
    }

    #[test]
    fn budget_takes_the_tighter_limit_minus_a_margin() {
        let mut l = Limits::default();
        assert_eq!(
            l.move_budget(Duration::from_secs(2)),
            Duration::from_secs(2)
        );
        l.timeout_turn = Some(1000);
        assert_eq!(l.move_budget(Duration::ZERO), Duration::from_millis(750));
        l.time_left = Some(2000);
        assert_eq!(l.move_budget(Duration::ZERO), Duration::from_millis(150));
        l.time_left = Some(UNLIMITED_TIME_LEFT);
        assert_eq!(l.move_budget(Duration::ZERO), Duration::from_millis(750));
        l.timeout_turn = Some(0);
        assert_eq!(l.move_budget(Duration::from_secs(2)), Duration::ZERO);
    }

    #[test]
    fn board_command_assigns_colours_from_counts() {
        let mut s = GameState::new();
        assert_eq!(s.handle(Command::Start(15)), Action::Reply("OK".into()));
        assert_eq!(
            s.handle(Command::Board(vec![(7, 7, 2), (8, 8, 1), (9, 9, 2)])),
            Action::Think
        );
        assert_eq!(s.me(), Color::White);
        let b = s.board().unwrap();
        assert_eq!(b.get(Pos::new(7, 7)), Some(Color::Black));
        assert_eq!(b.get(Pos::new(8, 8)), Some(Color::White));
        assert!(!s.is_legal(Pos::new(9, 9)));
        assert!(matches!(
            s.handle(Command::Turn(9, 9)),
            Action::Reply(r) if r.starts_with("ERROR")
        ));
        assert!(matches!(
            s.handle(Command::Turn(15, 0)),
            Action::Reply(r) if r.starts_with("ERROR")
        ));
        assert_eq!(
            s.handle(Command::Takeback(9, 9)),
            Action::Reply("OK".into())
        );
        assert!(s.is_legal(Pos::new(9, 9)));
        // A winning line's points (field 3) count for no one's stones and are never a move.
        assert_eq!(
            s.handle(Command::Board(vec![
                (0, 0, 3),
                (1, 0, 3),
                (7, 7, 1),
                (8, 8, 2)
            ])),
            Action::Think
        );
        assert_eq!(s.me(), Color::Black);
        assert!(!s.is_legal(Pos::new(1, 0)));
        assert!(s.legal_moves().iter().all(|p| p.y != 0 || p.x > 1));
        assert_eq!(s.handle(Command::Restart), Action::Reply("OK".into()));
        assert!(s.is_legal(Pos::new(1, 0)));
        assert_eq!(s.handle(Command::Start(4)).clone(), {
            let e = gomoku_cli::core::board::BoardSize::new(4).unwrap_err();
            Action::Reply(format!("ERROR {e}"))
        });
    }
}
