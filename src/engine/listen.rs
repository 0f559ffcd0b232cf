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
mod tests {
    use super::*;

    /// A listener on a 15x15 board whose request has begun.
    fn listening() -> Listener {
        let mut l = Listener::new(BoardSize::new(15).unwrap());
        l.begin();
        l
    }

    fn p(x: u8, y: u8) -> Pos {
        Pos::new(x, y)
    }

    /// Feeds lines as the session would: `INFO`/`MESSAGE` prefixes stripped.
    fn hear(l: &mut Listener, lines: &str, elapsed_ms: u64) {
        for line in lines.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if let Some(rest) = line.strip_prefix("INFO ") {
                l.info(rest, || elapsed_ms);
            } else if let Some(rest) = line.strip_prefix("MESSAGE ") {
                l.message(rest, || elapsed_ms);
            }
        }
    }

    /// A block as Rapfi 3aedf3a prints it with `INFO show_detail 2`.
    const RAPFI_BLOCK: &str = "
        INFO PV 0
        INFO NUMPV 1
        INFO DEPTH 12
        INFO SELDEPTH 20
        INFO NODES 123456
        INFO TOTALNODES 234567
        INFO TOTALTIME 510
        INFO SPEED 459935
        INFO EVAL 35
        INFO WINRATE 0.543
        INFO BESTLINE 7,7 8,8 6,6
        INFO PV DONE";

    #[test]
    fn a_detail_block_is_a_report() {
        let mut l = listening();
        hear(&mut l, RAPFI_BLOCK, 600);
        let r = l.finish().expect("a report");
        assert_eq!(r.eval, Some(Eval::Score(35)));
        assert_eq!((r.depth, r.seldepth), (Some(12), Some(20)));
        assert_eq!(r.nodes, Some(234_567), "the total, not the root move's");
        assert_eq!(r.time_ms, Some(510));
        assert_eq!(r.pv, vec![p(7, 7), p(8, 8), p(6, 6)]);
        assert!(r.multipv.is_empty(), "one PV is the report itself");
        assert_eq!(r.speed(), Some(459_935));
        assert_eq!(l.take_ignored(), 0);
        assert!(l.finish().is_none(), "a report serves one move");
    }

    #[test]
    fn the_last_complete_report_wins_and_a_cut_block_is_not_one() {
        let mut l = listening();
        hear(&mut l, RAPFI_BLOCK, 600);
        hear(
            &mut l,
            "INFO PV 0\nINFO DEPTH 13\nINFO SELDEPTH 13\nINFO TOTALNODES 3\nINFO TOTALTIME 600\n\
             INFO EVAL -M4\nINFO BESTLINE 1,1\nINFO PV DONE",
            700,
        );
        hear(&mut l, "INFO PV 0\nINFO DEPTH 14\nINFO EVAL 90", 800);
        let r = l.finish().unwrap();
        assert_eq!(r.depth, Some(13));
        assert_eq!(
            r.eval,
            Some(Eval::Mate {
                outlook: Outlook::Loss,
                plies: Some(4)
            })
        );
        assert_eq!(l.take_ignored(), 1, "the cut block is counted");
    }

    #[test]
    fn several_pvs_join_the_report_of_their_iteration() {
        let mut l = listening();
        for (k, ev, mv) in [(0, "40", "7,7"), (1, "12", "8,7"), (2, "-M3", "0,0")] {
            let block = format!(
                "INFO PV {k}\nINFO NUMPV 3\nINFO DEPTH 9\nINFO EVAL {ev}\nINFO BESTLINE {mv} 1,1\nINFO PV DONE"
            );
            hear(&mut l, &block, 100);
        }
        let r = l.finish().unwrap();
        assert_eq!(r.eval, Some(Eval::Score(40)));
        let firsts: Vec<_> = r.multipv.iter().map(|m| m.pos).collect();
        assert_eq!(firsts, vec![p(7, 7), p(8, 7), p(0, 0)]);
        assert!(r.multipv[2].eval.unwrap().is_proven_loss());
    }

    #[test]
    fn a_search_stopped_between_pvs_keeps_the_last_whole_iteration() {
        let block = |k, depth, ev, mv| {
            format!("INFO PV {k}\nINFO NUMPV 2\nINFO DEPTH {depth}\nINFO EVAL {ev}\nINFO BESTLINE {mv}\nINFO PV DONE")
        };
        let mut l = listening();
        hear(&mut l, &block(0, 5, 40, "7,7"), 10);
        hear(&mut l, &block(1, 5, 10, "8,8"), 10);
        hear(&mut l, &block(0, 6, 45, "6,6"), 10);
        let r = l.finish().unwrap();
        assert_eq!(r.depth, Some(5));
        assert_eq!(
            r.multipv.iter().map(|m| m.pos).collect::<Vec<_>>(),
            [p(7, 7), p(8, 8)]
        );
        assert_eq!(l.take_ignored(), 0);

        // Only part of one iteration heard: that part.
        l.begin();
        hear(&mut l, &block(0, 1, 3, "7,7"), 10);
        let r = l.finish().unwrap();
        assert_eq!((r.depth, r.eval), (Some(1), Some(Eval::Score(3))));
    }

    #[test]
    fn rapfis_one_line_messages_are_reports() {
        let mut l = listening();
        assert!(l.message("depth 8-14 ev 27 n 3152 n/ms 315 tm 10 pv H8I9J10", || 50));
        assert!(l.message("depth 9-17 ev +M5 n 12K n/ms 400 tm 30 pv H8I9", || 50));
        assert!(
            !l.message("Speed 1.2M nps", || 50),
            "human text is not a report"
        );
        let r = l.finish().unwrap();
        assert_eq!((r.depth, r.seldepth), (Some(9), Some(17)));
        assert_eq!(
            r.eval,
            Some(Eval::Mate {
                outlook: Outlook::Win,
                plies: Some(5)
            })
        );
        assert_eq!(r.nodes, Some(12_000));
        assert_eq!(r.time_ms, Some(30));
        assert_eq!(r.pv, vec![p(7, 7), p(8, 8)]);

        l.begin();
        l.message("depth 5-9 multipv 1 ev 10 n 100 n/ms 1 tm 5 pv H8", || 50);
        l.message("depth 5-9 multipv 2 ev -3 n 100 n/ms 1 tm 5 pv A1", || 50);
        let r = l.finish().unwrap();
        assert_eq!(r.multipv.len(), 2);
        assert_eq!(
            r.multipv[1],
            PvMove {
                pos: p(0, 0),
                eval: Some(Eval::Score(-3))
            }
        );
    }

    #[test]
    fn garbage_is_counted_never_kept() {
        let mut l = listening();
        let garbage = "
            INFO PV x
            INFO PV DONE
            INFO PV 0
            INFO EVAL banana
            INFO DEPTH -3
            INFO EVAL 99999999999
            INFO BESTLINE 7,7 99,99
            INFO PV DONE
            MESSAGE depth x-y ev ?? pv ZZ99
            MESSAGE depth 3 ev 5 pv Z99";
        hear(&mut l, garbage, 10);
        let r = l.finish().expect("the block itself completed");
        assert_eq!(r.eval, None);
        assert_eq!(r.depth, None);
        assert!(r.pv.is_empty());
        assert_eq!(l.take_ignored(), 8);
    }

    #[test]
    fn a_pv_is_capped_and_an_old_report_is_out_of_its_window() {
        let mut l = listening();
        let long: Vec<String> = (0..10_000)
            .map(|i| format!("{},{}", i % 15, (i / 15) % 15))
            .collect();
        hear(
            &mut l,
            &format!("INFO PV 0\nINFO BESTLINE {}\nINFO PV DONE", long.join(" ")),
            5,
        );
        assert_eq!(l.finish().unwrap().pv.len(), PV_CAP);

        // Printed after the last move (the whole think time), read as the next request starts.
        l.begin();
        hear(
            &mut l,
            "INFO PV 0\nINFO TOTALTIME 5000\nINFO EVAL 3\nINFO PV DONE",
            2,
        );
        assert!(l.finish().is_none());
        assert_eq!(l.take_ignored(), 1);
    }

    #[test]
    fn other_info_keys_and_messages_pass_untouched() {
        let mut l = listening();
        hear(
            &mut l,
            "INFO REALTIME BEST 7,7\nMESSAGE REALTIME REFRESH\nMESSAGE hello",
            1,
        );
        assert!(l.finish().is_none());
        assert_eq!(l.take_ignored(), 0);
    }

    /// Rapfi 3aedf3a at `message_mode = "normal"` with `show_detail 2`: each depth's detail
    /// block, then the depth line, then at the end the speed line.
    const RAPFI_NORMAL: &str = "
        MESSAGE OptiTime 95ms | MaxTime 190ms
        INFO PV 0
        INFO NUMPV 1
        INFO DEPTH 14
        INFO SELDEPTH 31
        INFO NODES 20000
        INFO TOTALNODES 66210
        INFO TOTALTIME 79
        INFO SPEED 838101
        INFO EVAL -131
        INFO WINRATE 0.31
        INFO BESTLINE 7,5 7,6
        INFO PV DONE
        MESSAGE Depth 14-31 | Eval -131 | Time 79ms | H6 H7
        MESSAGE Speed 838K | Depth 14-31 | Eval -131 | Node 66K | Time 80ms";

    #[test]
    fn a_depth_line_never_replaces_the_complete_block_before_it() {
        let mut l = listening();
        hear(&mut l, RAPFI_NORMAL, 100);
        let r = l.finish().unwrap();
        assert_eq!(r.eval, Some(Eval::Score(-131)));
        assert_eq!((r.depth, r.seldepth), (Some(14), Some(31)));
        assert_eq!(r.nodes, Some(66_210), "the block's exact count");
        assert_eq!(r.time_ms, Some(79));
        assert_eq!(r.pv, vec![p(7, 5), p(7, 6)]);
        assert_eq!(l.take_ignored(), 0);
    }

    #[test]
    fn rapfis_normal_and_brief_lines_alone_are_reports() {
        // `detail=off`, normal mode: the depth lines, then the end line fills in the nodes.
        let mut l = listening();
        let mut said = Vec::new();
        for text in [
            "OptiTime 95ms | MaxTime 190ms",
            "Depth 13-25 | Eval -90 | Time 40ms | H8 I9 J10",
            "Depth 14-31 | Eval +M5 | Time 12s | H6 H7",
            "Speed 838K | Depth 14-31 | Eval +M5 | Node 253K | Time 12s",
        ] {
            said.push(l.message(text, || 20_000));
        }
        assert_eq!(said, [false, true, true, true], "OptiTime is words");
        let r = l.finish().unwrap();
        let win5 = Eval::Mate {
            outlook: Outlook::Win,
            plies: Some(5),
        };
        assert_eq!(r.eval, Some(win5));
        assert_eq!((r.depth, r.seldepth), (Some(14), Some(31)));
        assert_eq!((r.nodes, r.time_ms), (Some(253_000), Some(12_000)));
        assert_eq!(r.pv, vec![p(7, 5), p(7, 6)]);

        // Brief mode says only this, at the end.
        l.begin();
        l.message(
            "Speed 2456K | Depth 9-17 | Eval 35 | Node 1234K | Time 502ms",
            || 600,
        );
        l.message("Bestline H8 I9 J10", || 600);
        let r = l.finish().unwrap();
        assert_eq!((r.eval, r.depth), (Some(Eval::Score(35)), Some(9)));
        assert_eq!((r.nodes, r.time_ms), (Some(1_234_000), Some(502)));
        assert_eq!(r.pv, vec![p(7, 7), p(8, 8), p(9, 9)]);
        assert_eq!(l.take_ignored(), 0);
    }

    #[test]
    fn normal_mode_pv_lines_make_a_group() {
        let mut l = listening();
        for text in [
            "(1) 40 | 9-15 | H8 I9",
            "(2) 12 | 9-13 | I8",
            "(3) -M3 | 9-9 | A1 B2",
            "Depth 9-15 | Eval 40 | Time 30ms | H8 I9",
            // The next depth, cut after its first PV: the whole one before is kept.
            "(1) 44 | 10-18 | H8 I9",
        ] {
            assert!(l.message(text, || 50), "{text}");
        }
        let r = l.finish().unwrap();
        assert_eq!(
            (r.eval, r.depth, r.time_ms),
            (Some(Eval::Score(40)), Some(9), Some(30))
        );
        let firsts: Vec<_> = r.multipv.iter().map(|m| m.pos).collect();
        assert_eq!(firsts, [p(7, 7), p(8, 7), p(0, 0)]);
        assert!(r.multipv[2].eval.unwrap().is_proven_loss());
    }

    #[test]
    fn a_ucilike_search_cut_in_an_iteration_keeps_the_whole_one_before() {
        // show_detail 2 and ucilike: each PV as a block and as a line.
        let mut l = listening();
        for (depth, pvs) in [(9, 3), (10, 1)] {
            for k in 0..pvs {
                let (x, ev) = (k + 3, 40 - 10 * k);
                hear(
                    &mut l,
                    &format!(
                        "INFO PV {k}\nINFO NUMPV 3\nINFO DEPTH {depth}\nINFO SELDEPTH 20\n\
                         INFO TOTALNODES 5000\nINFO TOTALTIME 30\nINFO EVAL {ev}\n\
                         INFO BESTLINE {x},7 8,8\nINFO PV DONE\n\
                         MESSAGE depth {depth}-20 multipv {} ev {ev} n 5K n/ms 166 tm 30 pv {}8 I9",
                        k + 1,
                        (b'A' + x) as char
                    ),
                    50,
                );
            }
        }
        let r = l.finish().unwrap();
        assert_eq!(r.depth, Some(9));
        assert_eq!(r.nodes, Some(5000));
        let firsts: Vec<_> = r.multipv.iter().map(|m| (m.pos, m.eval)).collect();
        let score = |v| Some(Eval::Score(v));
        assert_eq!(
            firsts,
            [
                (p(3, 7), score(40)),
                (p(4, 7), score(30)),
                (p(5, 7), score(20))
            ]
        );
        assert_eq!(l.take_ignored(), 0);
    }

    #[test]
    fn other_engines_one_line_reports() {
        // Embryo: lower-case counts, colour-prefixed moves with spaces.
        let mut l = listening();
        assert!(l.message("depth 5-9 ev 84 n 253k n/ms 838 tm 1 pv Xh8 Oi9", || 5));
        let r = l.finish().unwrap();
        assert_eq!((r.depth, r.seldepth), (Some(5), Some(9)));
        assert_eq!((r.eval, r.nodes), (Some(Eval::Score(84)), Some(253_000)));
        assert_eq!(r.pv, vec![p(7, 7), p(8, 8)]);

        // Moves spaced, without colours: all of them.
        l.begin();
        l.message("depth 5-9 ev 84 pv h8 i9 j10", || 5);
        assert_eq!(l.finish().unwrap().pv, vec![p(7, 7), p(8, 8), p(9, 9)]);

        // PentaZen: `dep`, `nd`, `sp`, no PV.
        l.begin();
        assert!(l.message("dep 1-1 ev 0 nd 1 tm 1 sp 1", || 5));
        assert!(l.message("dep 2-3 ev -7 nd 12 tm 2 sp 6", || 5));
        let r = l.finish().unwrap();
        assert_eq!((r.depth, r.seldepth), (Some(2), Some(3)));
        assert_eq!(
            (r.eval, r.nodes, r.time_ms),
            (Some(Eval::Score(-7)), Some(12), Some(2))
        );

        // Rapfi's move without a search.
        l.begin();
        l.message("depth 1-0 ev +M1 n 0 n/ms 0 tm 0 pv (NONE)", || 5);
        let r = l.finish().unwrap();
        assert!(r.pv.is_empty());
        assert_eq!(l.take_ignored(), 0);
    }

    #[test]
    fn rapfis_mcts_lines() {
        let mut l = listening();
        for text in [
            "(1) 35 (W 54.30, D 1.20, S 0.50) | V 12K | SD 20 | H8 I9",
            "(2) -8 (W 48.10, D 1.00, S 0.70) | V 3K | SD 14 | I9 H8",
            "Speed 838K | Visit 66K | Time 80ms",
        ] {
            assert!(l.message(text, || 100), "{text}");
        }
        let r = l.finish().unwrap();
        assert_eq!((r.eval, r.seldepth), (Some(Eval::Score(35)), Some(20)));
        assert_eq!((r.nodes, r.time_ms), (Some(66_000), Some(80)));
        assert_eq!(r.multipv.len(), 2);

        l.begin();
        l.message(
            "multipv 1 ev 35 w 54.30 d 1.20 stdev 0.50 v 12K seldepth 20 n 66K n/ms 838 tm 79 \
             prior 0.31 pv H8 I9",
            || 100,
        );
        let r = l.finish().unwrap();
        assert_eq!(
            (r.eval, r.seldepth, r.nodes),
            (Some(Eval::Score(35)), Some(20), Some(66_000))
        );
        assert_eq!(r.pv, vec![p(7, 7), p(8, 8)]);
        assert_eq!(l.take_ignored(), 0);
    }

    #[test]
    fn gomocup_2021_engines_lines() {
        // Rapfi 0.29: keys with colons, the PV as protocol points.
        let mut l = listening();
        assert!(l.message(
            "Speed: 345 | Depth: 9-17 | Eval: 114 | Node: 86K | Time: 251 ms",
            || 300
        ));
        assert!(l.message("Bestline: [9,7][7,9][8,6]", || 300));
        let r = l.finish().unwrap();
        assert_eq!(
            (r.eval, r.depth, r.seldepth),
            (Some(Eval::Score(114)), Some(9), Some(17))
        );
        assert_eq!((r.nodes, r.time_ms), (Some(86_000), Some(251)));
        assert_eq!(r.pv, vec![p(9, 7), p(7, 9), p(8, 6)]);

        // PentaZen's proven win.
        l.begin();
        l.message("dep 7-14 ev +v17 nd 2372 tm 4 sp 593", || 5);
        let r = l.finish().unwrap();
        let win = |n| Eval::Mate {
            outlook: Outlook::Win,
            plies: Some(n),
        };
        assert_eq!(r.eval, Some(win(17)));

        // SlowRenju's summary; its candidate table stays words.
        l.begin();
        assert!(!l.message(" 5;(05,06)      13 ----------      368", || 400));
        assert!(l.message(
            "Nodes=39900, Time=381ms, speed=104724, depth=5-9, Evaluation=13",
            || 400
        ));
        let r = l.finish().unwrap();
        assert_eq!(
            (r.eval, r.depth, r.seldepth),
            (Some(Eval::Score(13)), Some(5), Some(9))
        );
        assert_eq!((r.nodes, r.time_ms), (Some(39_900), Some(381)));

        // EGO's depth lines; its summary and the rest are words.
        l.begin();
        for text in [
            "level 4, value 0, (6 ,8), speed 557 k, node 7805 , max extend 4, extend node 5815 , \
             cache hit: 55/171 ,inner combo rate 42/160 ,cost 14 ms",
            "level 6, value -20, (6 ,8), speed 276 k, node 12698 , max extend 6, extend node 259 , \
             cache hit: 65/903 ,inner combo rate 4/11 ,cost 46 ms",
        ] {
            assert!(l.message(text, || 100), "{text}");
        }
        assert!(!l.message(":level 6(3) value -20 (6,8) speed 276 k (12698) ", || 100));
        assert!(!l.message("combo level. self 0 , other 7 ", || 100));
        let r = l.finish().unwrap();
        assert_eq!((r.eval, r.depth), (Some(Eval::Score(-20)), Some(6)));
        assert_eq!((r.nodes, r.time_ms), (Some(12_698), Some(46)));
        assert_eq!(l.take_ignored(), 0);
    }

    #[test]
    fn a_shallower_or_less_complete_report_never_replaces_the_kept_one() {
        let mut l = listening();
        l.message("depth 9-15 ev 40 n 5K tm 30 pv H8", || 50);
        // Deeper, but without its PV.
        l.message("depth 10-16 ev 44 n 6K tm 40", || 50);
        // As complete, but shallower.
        l.message("depth 8-15 ev 10 n 7K tm 45 pv A1", || 50);
        let r = l.finish().unwrap();
        assert_eq!((r.depth, r.eval), (Some(9), Some(Eval::Score(40))));

        // Another report of the same depth, as complete: the later one.
        l.begin();
        l.message("depth 9-15 ev 40 n 5K tm 30 pv H8", || 50);
        l.message("depth 9-16 ev 52 n 6K tm 35 pv I9", || 50);
        let r = l.finish().unwrap();
        assert_eq!(
            (r.eval, r.pv.clone()),
            (Some(Eval::Score(52)), vec![p(8, 8)])
        );
    }

    #[test]
    fn pondering_lines_are_search_output_for_no_move() {
        let mut l = listening();
        assert!(l.message("[Pondering] Depth 9-15 | Eval 40 | Time 30ms | H8", || 50));
        assert!(l.finish().is_none());
        assert_eq!(l.take_ignored(), 0);
    }

    #[test]
    fn malformed_one_line_shapes_are_counted() {
        let mut l = listening();
        for text in [
            "Depth 9-x | Eval 40 | Time 30ms | H8",
            "Depth 9-15 | Eval 40 | Time 30 parsecs | H8",
            "Depth 9-15 | Eval 40 | Time 30ms | H8 Z99",
            "depth 5-9 ev 84 pv Xh8 Oz9",
            "(0) 40 | 9-15 | H8",
            "Bestline H8 banana",
        ] {
            assert!(l.message(text, || 50), "{text}");
        }
        assert!(l.finish().is_none());
        assert_eq!(l.take_ignored(), 6);
    }

    /// Real engines' lines (tests/search_reports.txt): every section's report is the one its
    /// `expect` line gives, no line is dropped, and only the lines that are no report stay
    /// messages.
    #[test]
    fn real_engines_lines_are_heard() {
        let corpus = include_str!("../../tests/search_reports.txt");
        let points = |text: &str| -> Vec<Pos> {
            text.split('/')
                .map(|t| Pos::parse_gomocup(t, BoardSize::new(15).unwrap()).unwrap())
                .collect()
        };
        let mut sections = 0;
        for section in corpus.split("\n== ").skip(1) {
            sections += 1;
            let mut lines = section.lines();
            let title = lines.next().unwrap();
            let expect = lines.next().unwrap().strip_prefix("expect ").unwrap();
            let mut want = SearchReport::default();
            let mut firsts = Vec::new();
            let mut words = 0;
            for item in expect.split(' ') {
                let (key, value) = item.split_once('=').unwrap();
                match key {
                    "ev" => want.eval = Some(value.parse().unwrap()),
                    "d" => want.depth = Some(value.parse().unwrap()),
                    "sd" => want.seldepth = Some(value.parse().unwrap()),
                    "n" => want.nodes = Some(value.parse().unwrap()),
                    "ms" => want.time_ms = Some(value.parse().unwrap()),
                    "pv" => want.pv = points(value),
                    "firsts" => firsts = points(value),
                    "words" => words = value.parse().unwrap(),
                    _ => panic!("{title}: unknown key {key}"),
                }
            }
            let mut l = listening();
            let mut messages = 0;
            for line in lines {
                // A late report would be refused: this test is about shapes, not times.
                if let Some(rest) = line.strip_prefix("INFO ") {
                    l.info(rest, || 3_600_000);
                } else if let Some(text) = line.strip_prefix("MESSAGE ") {
                    messages += usize::from(!l.message(text, || 3_600_000));
                }
            }
            let got = l.finish().unwrap_or_else(|| panic!("{title}: no report"));
            let got_firsts: Vec<Pos> = got.multipv.iter().map(|m| m.pos).collect();
            want.multipv = got.multipv.clone();
            assert_eq!(*got, want, "{title}");
            assert_eq!(got_firsts, firsts, "{title}");
            assert_eq!(messages, words, "{title}: lines left as messages");
            assert_eq!(l.take_ignored(), 0, "{title}: lines dropped");
        }
        assert!(sections >= 20, "{sections} sections read");
    }

    #[test]
    fn times_as_rapfi_writes_them() {
        assert_eq!(time_of("79"), Some(79));
        assert_eq!(time_of("79ms"), Some(79));
        assert_eq!(time_of("12s"), Some(12_000));
        assert_eq!(time_of("3min"), Some(180_000));
        assert_eq!(time_of("2h"), Some(7_200_000));
        assert_eq!(time_of("ms"), None);
        assert_eq!(time_of("251 ms"), Some(251));
        assert_eq!(time_of("5  s"), None);
    }

    #[test]
    fn node_counts_with_suffixes() {
        assert_eq!(count_of("9999"), Some(9999));
        assert_eq!(count_of("12K"), Some(12_000));
        assert_eq!(count_of("3M"), Some(3_000_000));
        assert_eq!(count_of("K"), None);
        assert_eq!(count_of("99999999999T"), None);
    }
}
