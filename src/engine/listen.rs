//! Hears what an engine says about its search while it thinks, in every shape the field prints:
//! the `INFO PV … INFO PV DONE` detail blocks (`INFO show_detail 2`), the one-line
//! `MESSAGE depth D-SD … ev V … pv …` form (Rapfi's "ucilike" mode, Embryo, PentaZen) and Rapfi's
//! `|`-separated lines (`Depth 14-31 | Eval -131 | Time 79ms | H6 H7`, its "normal" and "brief"
//! modes), and keeps the best report for the move: the last iteration heard whole, never
//! replaced by a less complete or shallower one. Pure and bounded: a line costs one pass over
//! its text, memory is a fixed set of fields plus capped move lists, and nothing here can fail a
//! game; what cannot be read is counted and dropped.

use crate::core::board::{BoardSize, Pos};
use crate::core::search::{
    Eval, Outlook, PvMove, SearchReport, MATE_PLIES_MAX, MULTIPV_CAP, PV_CAP,
};

/// A reported engine time this far past our own clock belongs to an earlier search (a report
/// printed after the last move, read now): the engine's clock starts after ours.
const TIME_WINDOW_MS: u64 = 100;

/// One principal variation as it is heard: one detail block or one message line.
#[derive(Debug, Default, Clone)]
struct Pv {
    /// 0-based index among the PVs of one iteration.
    index: usize,
    report: SearchReport,
}

/// The listener of one engine, reset at every move request.
#[derive(Debug, Clone)]
pub struct Listener {
    size: BoardSize,
    /// The detail block being read (`INFO PV k` seen, `INFO PV DONE` not yet).
    block: Option<Pv>,
    /// The iteration being heard: PV 0's report, with the other PVs heard so far. It is offered
    /// as the report when the next iteration starts or the move comes, so an iteration cut by
    /// the move (fewer PVs than the one before) never replaces a whole one.
    iteration: Option<SearchReport>,
    /// The report kept for the move.
    kept: Option<SearchReport>,
    /// Lines of search output that could not be read, since the last call to `take_ignored`.
    ignored: u64,
}

impl Listener {
    pub fn new(size: BoardSize) -> Self {
        Listener {
            size,
            block: None,
            iteration: None,
            kept: None,
            ignored: 0,
        }
    }

    /// A move request was sent: what was heard before belongs to no move of ours.
    pub fn begin(&mut self) {
        self.block = None;
        self.iteration = None;
        self.kept = None;
    }

    /// The report for the move just answered, and the listener emptied.
    pub fn finish(&mut self) -> Option<Box<SearchReport>> {
        if self.block.take().is_some() {
            // A block cut in the middle by the move: not a report.
            self.ignored += 1;
        }
        self.close_iteration();
        let mut report = self.kept.take()?;
        if report.multipv.len() < 2 {
            // One PV: its move and eval are the report's own.
            report.multipv.clear();
        }
        Some(Box::new(report))
    }

    /// How many lines were dropped since the last call.
    pub fn take_ignored(&mut self) -> u64 {
        std::mem::take(&mut self.ignored)
    }

    /// An `INFO` line from the engine (`rest` is what follows `INFO `); `elapsed_ms` says how
    /// long ago the request was sent (asked only when a PV completes: a clock read per line
    /// would cost more than the line). Keys that are not search output are ignored uncounted.
    pub fn info(&mut self, rest: &str, elapsed_ms: impl FnOnce() -> u64) {
        let (key, value) = match rest.split_once(char::is_whitespace) {
            Some((k, v)) => (k, v.trim()),
            None => (rest, ""),
        };
        let is = |name: &str| key.eq_ignore_ascii_case(name);
        if is("PV") {
            if value.eq_ignore_ascii_case("DONE") {
                match self.block.take() {
                    Some(pv) => self.hear(pv, elapsed_ms),
                    None => self.ignored += 1,
                }
            } else {
                match value.parse::<usize>() {
                    Ok(index) if index < MULTIPV_CAP => {
                        if self.block.is_some() {
                            self.ignored += 1;
                        }
                        self.block = Some(Pv {
                            index,
                            ..Pv::default()
                        });
                    }
                    _ => {
                        self.block = None;
                        self.ignored += 1;
                    }
                }
            }
            return;
        }
        let Some(pv) = self.block.as_mut() else {
            return;
        };
        let r = &mut pv.report;
        // NODES (one root move's), SPEED, WINRATE and the MCTS keys: derived or not kept.
        // NUMPV is checked, not kept: an iteration is whole when the next one starts.
        let read = if is("DEPTH") {
            set(&mut r.depth, value.parse().ok())
        } else if is("SELDEPTH") {
            set(&mut r.seldepth, value.parse().ok())
        } else if is("TOTALNODES") {
            set(&mut r.nodes, value.parse().ok())
        } else if is("NUMPV") {
            value.parse::<usize>().is_ok_and(|n| n <= MULTIPV_CAP)
        } else if is("TOTALTIME") {
            set(&mut r.time_ms, value.parse().ok())
        } else if is("EVAL") {
            eval_of(value).map(|e| r.eval = e).is_ok()
        } else if is("BESTLINE") {
            line_of(self.size, value)
                .map(|moves| r.pv = moves)
                .is_some()
        } else {
            true
        };
        if !read {
            self.ignored += 1;
        }
    }

    /// A `MESSAGE` text. Returns whether it was search output (read or not): a search report in
    /// any of its one-line shapes, or a pondering search's line. Those are not words for the
    /// record.
    pub fn message(&mut self, text: &str, elapsed_ms: impl FnOnce() -> u64) -> bool {
        let text = text.trim();
        let read = match shape_of(text) {
            Shape::Words => return false,
            // Rapfi thinking on the opponent's time: about no move of ours.
            Shape::Pondering => return true,
            Shape::Pipes => self.read_pipes(text),
            Shape::Keys => self.read_keys(text),
            Shape::Commas => read_commas(text),
            Shape::Bestline(moves) => moves_in(moves, self.size).ok().flatten().map(|pv| Pv {
                index: 0,
                report: SearchReport {
                    pv,
                    ..SearchReport::default()
                },
            }),
        };
        match read {
            Some(pv) => self.hear(pv, elapsed_ms),
            None => self.ignored += 1,
        }
        true
    }

    /// `depth D-SD [multipv K] ev V n NODES n/ms SPEED tm MS pv MOVES` and its relatives
    /// (`dep`/`nd`/`sp` keys, Rapfi's MCTS `multipv K ev V … seldepth S … pv …`): keys in any
    /// order and either case, unknown keys skipped with their value, the PV as long as words
    /// are moves.
    fn read_keys(&self, text: &str) -> Option<Pv> {
        let mut pv = Pv::default();
        let r = &mut pv.report;
        let mut words = text.split_ascii_whitespace().peekable();
        while let Some(key) = words.next() {
            let is = |name: &str| key.eq_ignore_ascii_case(name);
            if is("pv") {
                r.pv.reserve(PV_CAP.min(text.len() / 3 + 1));
                while let Some(word) = words.peek() {
                    if !moves_of(word, self.size, &mut r.pv).ok()? {
                        break;
                    }
                    words.next();
                }
                continue;
            }
            let value = words.next().unwrap_or("");
            if is("depth") || is("dep") {
                (r.depth, r.seldepth) = depths_of(value)?;
            } else if is("seldepth") || is("sd") {
                r.seldepth = Some(value.parse().ok()?);
            } else if is("multipv") {
                pv.index = index_of(value)?;
            } else if is("ev") || is("eval") {
                r.eval = eval_of(value).ok()?;
            } else if is("n") || is("nd") || is("nodes") {
                r.nodes = Some(count_of(value)?);
            } else if is("tm") || is("time") {
                r.time_ms = Some(time_of(value)?);
            }
        }
        Some(pv)
    }

    /// Rapfi's `|`-separated lines: `Depth D-SD | Eval E | Time T | MOVES` (after each depth),
    /// `Speed S | Depth D-SD | Eval E | Node N | Time T` (at the end), `(K) E | D-SD | MOVES`
    /// (each PV of several) and the MCTS `(K) E (W …) | V N | SD S | MOVES`,
    /// `Speed S | Visit N | Time T`. Unknown fields are skipped.
    fn read_pipes(&self, text: &str) -> Option<Pv> {
        let mut pv = Pv::default();
        let r = &mut pv.report;
        for (i, field) in text.split('|').enumerate() {
            let field = field.trim();
            let (key, value) = field.split_once(' ').unwrap_or((field, ""));
            let (key, value) = (key.strip_suffix(':').unwrap_or(key), value.trim());
            let is = |name: &str| key.eq_ignore_ascii_case(name);
            if i == 0 && key.starts_with('(') {
                // `(K) E`, then perhaps `(W 54.30, D 1.20, S 0.50)`.
                let k = key.strip_prefix('(')?.strip_suffix(')')?;
                pv.index = index_of(k)?;
                r.eval = eval_of(value.split(' ').next()?).ok()?;
            } else if is("Depth") {
                (r.depth, r.seldepth) = depths_of(value)?;
            } else if is("Eval") {
                r.eval = eval_of(value).ok()?;
            } else if is("Time") {
                r.time_ms = Some(time_of(value)?);
            } else if is("Node") || is("Visit") {
                r.nodes = Some(count_of(value)?);
            } else if is("SD") {
                r.seldepth = Some(value.parse().ok()?);
            } else if field.starts_with(|c: char| c.is_ascii_digit()) {
                (r.depth, r.seldepth) = depths_of(field)?;
            } else if let Some(moves) = moves_in(field, self.size).ok()? {
                r.pv = moves;
            }
        }
        Some(pv)
    }

    /// A PV heard whole (a block at its `INFO PV DONE`, a message line at once): PV 0 of the
    /// iteration being heard said again fills in what it lacked (Rapfi prints each PV as a
    /// detail block and as a message), another PV 0 starts a new iteration, later PVs join
    /// theirs.
    fn hear(&mut self, pv: Pv, elapsed_ms: impl FnOnce() -> u64) {
        if pv
            .report
            .time_ms
            .is_some_and(|t| t > elapsed_ms().saturating_add(TIME_WINDOW_MS))
        {
            self.ignored += 1;
            return;
        }
        let first = pv.report.pv.first().map(|&pos| PvMove {
            pos,
            eval: pv.report.eval,
        });
        if pv.index == 0 {
            match self.iteration.as_mut() {
                Some(heard) if same_iteration(heard, &pv.report) => fill(heard, &pv.report),
                _ => {
                    self.close_iteration();
                    let mut report = pv.report;
                    report.multipv.extend(first);
                    self.iteration = Some(report);
                }
            }
            return;
        }
        let joined = match (self.iteration.as_mut(), first) {
            (Some(heard), Some(first)) if heard.depth == pv.report.depth => {
                let heard = &mut heard.multipv;
                if pv.index == heard.len() {
                    heard.push(first);
                    true
                } else {
                    // Said again: the evaluation, if it lacked one.
                    match heard.get_mut(pv.index) {
                        Some(m) if m.pos == first.pos => {
                            m.eval = m.eval.or(first.eval);
                            true
                        }
                        _ => false,
                    }
                }
            }
            _ => false,
        };
        if !joined {
            self.ignored += 1;
        }
    }

    /// The iteration heard is over: it becomes the report if it is at least as complete and as
    /// deep as the one kept, or fills in what the kept one lacks if it is the same.
    fn close_iteration(&mut self) {
        let Some(report) = self.iteration.take() else {
            return;
        };
        match self.kept.as_mut() {
            None => self.kept = Some(report),
            Some(kept) if same_iteration(kept, &report) => fill(kept, &report),
            Some(kept) if replaces(&report, kept) => *kept = report,
            Some(_) => {}
        }
    }
}

/// The shapes a `MESSAGE` text can have.
enum Shape<'a> {
    /// Words for the record.
    Words,
    /// `[Pondering] …`: a search on the opponent's time.
    Pondering,
    /// Rapfi's `|`-separated lines.
    Pipes,
    /// `depth …`/`dep …`/`multipv …` with keys and values.
    Keys,
    /// `Bestline MOVES`: the PV of the report just printed (Rapfi's "brief" mode).
    Bestline(&'a str),
    /// Comma-separated fields: SlowRenju's `Nodes=…, Time=…ms, speed=…, depth=D-SD,
    /// Evaluation=V`, EGO's `level D, value V, (x ,y), speed S k, node N , … ,cost T ms`.
    Commas,
}

fn shape_of(text: &str) -> Shape<'_> {
    if text.starts_with("[Pondering]") {
        return Shape::Pondering;
    }
    let (first, rest) = text.split_once(' ').unwrap_or((text, ""));
    // Rapfi 0.29 (Gomocup 2021) writes its keys with a colon: `Speed: 345 | Depth: 9-17 | …`.
    let word = first.strip_suffix(':').unwrap_or(first);
    let is = |name: &str| word.eq_ignore_ascii_case(name);
    if text.contains('|') {
        let pv_line = first.starts_with('(') && first.ends_with(')');
        if is("Depth") || is("Speed") || pv_line {
            return Shape::Pipes;
        }
        // `OptiTime … | MaxTime …` and other words.
        return Shape::Words;
    }
    if is("depth") || is("dep") || is("multipv") {
        Shape::Keys
    } else if is("Bestline") {
        Shape::Bestline(rest)
    } else if first.starts_with("Nodes=") || is("level") && rest.contains(", value ") {
        Shape::Commas
    } else {
        Shape::Words
    }
}

/// SlowRenju's and EGO's comma-separated fields, `key=value` or `key value`, unknown ones
/// skipped. EGO's point `(x ,y)` is not read: which way round it is, is not known.
fn read_commas(text: &str) -> Option<Pv> {
    let mut pv = Pv::default();
    let r = &mut pv.report;
    for field in text.split(',') {
        let field = field.trim();
        let (key, value) = field
            .split_once('=')
            .or_else(|| field.split_once(' '))
            .unwrap_or((field, ""));
        let value = value.trim();
        let is = |name: &str| key.eq_ignore_ascii_case(name);
        if is("depth") || is("level") {
            (r.depth, r.seldepth) = depths_of(value)?;
        } else if is("Evaluation") || is("value") {
            r.eval = eval_of(value).ok()?;
        } else if is("Nodes") || is("node") {
            r.nodes = Some(count_of(value)?);
        } else if is("Time") || is("cost") {
            r.time_ms = Some(time_of(value)?);
        }
    }
    Some(pv)
}

/// Whether two reports are the same iteration said twice (a detail block and a message, a
/// depth line and the end line): no field both give differs.
fn same_iteration(a: &SearchReport, b: &SearchReport) -> bool {
    fn agree<T: PartialEq>(a: Option<T>, b: Option<T>) -> bool {
        a.is_none() || b.is_none() || a == b
    }
    agree(a.depth, b.depth) && agree(a.eval, b.eval) && agree(a.pv.first(), b.pv.first())
}

/// Fills what `kept` lacks from `more` (of the same iteration).
fn fill(kept: &mut SearchReport, more: &SearchReport) {
    kept.eval = kept.eval.or(more.eval);
    kept.depth = kept.depth.or(more.depth);
    kept.seldepth = kept.seldepth.or(more.seldepth);
    kept.nodes = kept.nodes.or(more.nodes);
    kept.time_ms = kept.time_ms.or(more.time_ms);
    if kept.pv.is_empty() {
        kept.pv.clone_from(&more.pv);
    }
    match kept.multipv.first_mut() {
        Some(m) => m.eval = m.eval.or(kept.eval),
        None => kept.multipv.extend(kept.pv.first().map(|&pos| PvMove {
            pos,
            eval: kept.eval,
        })),
    }
}

/// Which fields a report gives, one bit each.
fn fields(r: &SearchReport) -> u8 {
    u8::from(r.eval.is_some())
        | u8::from(r.depth.is_some()) << 1
        | u8::from(r.seldepth.is_some()) << 2
        | u8::from(r.nodes.is_some()) << 3
        | u8::from(r.time_ms.is_some()) << 4
        | u8::from(!r.pv.is_empty()) << 5
}

/// Whether `new` replaces `kept`: it gives every field `kept` gives, as many PVs, and is as deep.
fn replaces(new: &SearchReport, kept: &SearchReport) -> bool {
    let deep = match (new.depth, kept.depth) {
        (Some(n), Some(k)) => n >= k,
        (_, None) => true,
        (None, Some(_)) => false,
    };
    deep && fields(new) & fields(kept) == fields(kept) && new.multipv.len() >= kept.multipv.len()
}

/// A detail block's principal variation, `x,y` pairs separated by spaces, kept up to
/// [`PV_CAP`] moves; `None` when a kept move is not a point.
fn line_of(size: BoardSize, text: &str) -> Option<Vec<Pos>> {
    let mut moves = Vec::with_capacity(PV_CAP.min(text.len() / 4 + 1));
    for token in text.split_ascii_whitespace() {
        if moves.len() == PV_CAP {
            break;
        }
        moves.push(Pos::parse_gomocup(token, size).ok()?);
    }
    Some(moves)
}

/// The moves of a message's move list whose words are all moves; `Ok(None)` when a word is not
/// one, `Err` when one is off the board.
fn moves_in(text: &str, size: BoardSize) -> Result<Option<Vec<Pos>>, ()> {
    // A move is 2 characters at least, with its space 3.
    let mut moves = Vec::with_capacity(PV_CAP.min(text.len() / 3 + 1));
    for word in text.split_ascii_whitespace() {
        if !moves_of(word, size, &mut moves)? {
            return Ok(None);
        }
    }
    Ok(Some(moves))
}

/// Reads one word of a message's move list onto `moves` (kept up to [`PV_CAP`]): one move or
/// several run together, each a letter for x from `a` (either case) then y + 1, perhaps after
/// a colour (`Xh8`, `Oi9`). `Ok(false)`: the word is no move list (`(NONE)`, `Pass`, a key),
/// `moves` unchanged; `Err`: it is one, with a point off the board.
fn moves_of(word: &str, size: BoardSize, moves: &mut Vec<Pos>) -> Result<bool, ()> {
    if let Some(pairs) = word.strip_prefix('[') {
        return pairs_of(pairs, size, moves);
    }
    let bytes = word.as_bytes();
    let before = moves.len();
    let mut i = 0;
    let mut off_board = false;
    while i < bytes.len() {
        let letters = bytes[i..]
            .iter()
            .take_while(|b| b.is_ascii_alphabetic())
            .count();
        let column = match letters {
            1 => bytes[i],
            2 if matches!(bytes[i], b'X' | b'x' | b'O' | b'o') => bytes[i + 1],
            _ => {
                moves.truncate(before);
                return Ok(false);
            }
        };
        i += letters;
        let digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || digits > 3 {
            moves.truncate(before);
            return Ok(false);
        }
        let y: i64 = word[i..i + digits].parse().map_err(|_| ())?;
        i += digits;
        let x = i64::from(column.to_ascii_lowercase() - b'a');
        match size.pos(x, y - 1) {
            Ok(pos) if moves.len() < PV_CAP => moves.push(pos),
            Ok(_) => {}
            // Known once the whole word is a move list.
            Err(_) => off_board = true,
        }
    }
    if off_board {
        return Err(());
    }
    Ok(i > 0)
}

/// Rapfi 0.29's Bestline, `[9,7][7,9]…` (the leading `[` taken): points as the protocol
/// writes them.
fn pairs_of(pairs: &str, size: BoardSize, moves: &mut Vec<Pos>) -> Result<bool, ()> {
    let Some(pairs) = pairs.strip_suffix(']') else {
        return Ok(false);
    };
    for pair in pairs.split("][") {
        let pos = Pos::parse_gomocup(pair, size).map_err(|_| ())?;
        if moves.len() < PV_CAP {
            moves.push(pos);
        }
    }
    Ok(true)
}

/// `D-SD` or `D`: a depth and perhaps a selective depth.
fn depths_of(text: &str) -> Option<(Option<u32>, Option<u32>)> {
    let (d, sd) = text.split_once('-').unwrap_or((text, ""));
    let sd = if sd.is_empty() {
        None
    } else {
        Some(sd.parse().ok()?)
    };
    Some((Some(d.parse().ok()?), sd))
}

/// A 1-based PV number as a 0-based index.
fn index_of(text: &str) -> Option<usize> {
    match text.parse::<usize>() {
        Ok(k) if (1..=MULTIPV_CAP).contains(&k) => Some(k - 1),
        _ => None,
    }
}

/// Stores a read value; `false` when there was none.
fn set<T>(field: &mut Option<T>, value: Option<T>) -> bool {
    let read = value.is_some();
    if read {
        *field = value;
    }
    read
}

/// An evaluation, `Ok(None)` for `VAL_NONE`.
/// Besides what [`Eval`] reads, PentaZen's `+v17`/`-v9`: a proven win or loss in that many
/// plies (the number falls by two a move as it plays the win out).
fn eval_of(text: &str) -> Result<Option<Eval>, ()> {
    if text.eq_ignore_ascii_case("VAL_NONE") {
        return Ok(None);
    }
    let proven = |sign: char| {
        let plies = text.strip_prefix(sign)?.strip_prefix('v')?;
        plies.bytes().all(|b| b.is_ascii_digit()).then_some(())?;
        plies.parse::<u32>().ok().filter(|&n| n <= MATE_PLIES_MAX)
    };
    for (sign, outlook) in [('+', Outlook::Win), ('-', Outlook::Loss)] {
        if let Some(plies) = proven(sign) {
            return Ok(Some(Eval::Mate {
                outlook,
                plies: Some(plies),
            }));
        }
    }
    text.parse().map(Some).map_err(|_| ())
}

/// A node count as Rapfi and Embryo print it: plain, or with a K/M/G/T suffix (either case).
fn count_of(text: &str) -> Option<u64> {
    let (digits, scale) = match text.as_bytes().last()? {
        b'K' | b'k' => (&text[..text.len() - 1], 1_000),
        b'M' | b'm' => (&text[..text.len() - 1], 1_000_000),
        b'G' | b'g' => (&text[..text.len() - 1], 1_000_000_000),
        b'T' | b't' => (&text[..text.len() - 1], 1_000_000_000_000),
        _ => (text, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(scale)
}

/// A time in milliseconds: plain, or as Rapfi writes it in its `|` lines (`79ms`, `12s`,
/// `3min`, `2h`: the unit grows with the time, the digits are cut, not rounded).
fn time_of(text: &str) -> Option<u64> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    // Rapfi 0.29 writes `251 ms`.
    let unit = text[digits..].strip_prefix(' ').unwrap_or(&text[digits..]);
    let scale = match unit {
        "" | "ms" => 1,
        "s" => 1_000,
        "min" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    text[..digits].parse::<u64>().ok()?.checked_mul(scale)
}

#[cfg(test)]
mod tests;
