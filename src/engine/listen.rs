//! Hears what an engine says about its search while it thinks: the `INFO PV … INFO PV DONE`
//! detail blocks (`INFO show_detail 2`) and the one-line `MESSAGE depth D-SD … ev V …` form, and
//! keeps the last complete report for the move. Pure and bounded: a line costs one pass over its
//! text, memory is a fixed set of fields plus capped move lists, and nothing here can fail a
//! game; what cannot be read is counted and dropped.

use crate::board::{BoardSize, Pos};
use crate::search::{Eval, PvMove, SearchReport, MULTIPV_CAP, PV_CAP};

/// A reported engine time this far past our own clock belongs to an earlier search (a report
/// printed after the last move, read now): the engine's clock starts after ours.
const TIME_WINDOW_MS: u64 = 100;

/// One principal variation as it is heard.
#[derive(Debug, Default, Clone)]
struct Pv {
    /// 0-based index among the PVs of one iteration.
    index: usize,
    /// How many PVs the iteration has (`INFO NUMPV`; 0 where the engine does not say).
    count: usize,
    report: SearchReport,
}

/// The listener of one engine, reset at every move request.
#[derive(Debug, Clone)]
pub struct Listener {
    size: BoardSize,
    /// The detail block being read (`INFO PV k` seen, `INFO PV DONE` not yet).
    block: Option<Pv>,
    /// The last complete report: PV 0's, with the iteration's other PVs.
    last: Option<SearchReport>,
    /// An iteration of several PVs (`INFO NUMPV n`) not yet heard whole, and its n: it becomes
    /// the report once all n are in, so a search stopped between PVs keeps the last whole one.
    pending: Option<(SearchReport, usize)>,
    /// Lines of search output that could not be read, since the last call to `take_ignored`.
    ignored: u64,
}

impl Listener {
    pub fn new(size: BoardSize) -> Self {
        Listener {
            size,
            block: None,
            last: None,
            pending: None,
            ignored: 0,
        }
    }

    /// A move request was sent: what was heard before belongs to no move of ours.
    pub fn begin(&mut self) {
        self.block = None;
        self.last = None;
        self.pending = None;
    }

    /// The report for the move just answered (the last complete one), and the listener emptied.
    pub fn finish(&mut self) -> Option<Box<SearchReport>> {
        if self.block.take().is_some() {
            // A block cut in the middle by the move: not a report.
            self.ignored += 1;
        }
        // No iteration heard whole: the part heard is better than nothing.
        let pending = self.pending.take().map(|(r, _)| r);
        let mut report = self.last.take().or(pending)?;
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
                    Some(pv) => self.complete(pv, elapsed_ms),
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
        let read = if is("DEPTH") {
            set(&mut r.depth, value.parse().ok())
        } else if is("SELDEPTH") {
            set(&mut r.seldepth, value.parse().ok())
        } else if is("TOTALNODES") {
            set(&mut r.nodes, value.parse().ok())
        } else if is("NUMPV") {
            match value.parse::<usize>() {
                Ok(n) if n <= MULTIPV_CAP => {
                    pv.count = n;
                    true
                }
                _ => false,
            }
        } else if is("TOTALTIME") {
            set(&mut r.time_ms, value.parse().ok())
        } else if is("EVAL") {
            eval_of(value).map(|e| r.eval = e).is_ok()
        } else if is("BESTLINE") {
            line_of(self.size, value, |t, s| Pos::parse_gomocup(t, s).ok())
                .map(|moves| r.pv = moves)
                .is_some()
        } else {
            true
        };
        if !read {
            self.ignored += 1;
        }
    }

    /// A `MESSAGE` text. Returns whether it was a one-line search report (read or not): those
    /// are search output, not words for the record.
    pub fn message(&mut self, text: &str, elapsed_ms: impl FnOnce() -> u64) -> bool {
        let mut words = text.split_ascii_whitespace();
        if !words
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("depth"))
        {
            return false;
        }
        match self.read_message(words) {
            Some(pv) => self.complete(pv, elapsed_ms),
            None => self.ignored += 1,
        }
        true
    }

    /// `D-SD [multipv K] ev V n NODES n/ms SPEED tm MS pv MOVES`, keys in any order, unknown
    /// keys skipped with their value.
    fn read_message<'a>(&self, mut words: impl Iterator<Item = &'a str>) -> Option<Pv> {
        let mut pv = Pv::default();
        let r = &mut pv.report;
        let depths = words.next()?;
        let (d, sd) = depths.split_once('-').unwrap_or((depths, ""));
        r.depth = Some(d.parse().ok()?);
        r.seldepth = if sd.is_empty() {
            None
        } else {
            Some(sd.parse().ok()?)
        };
        while let Some(key) = words.next() {
            let value = words.next().unwrap_or("");
            match key {
                "multipv" => match value.parse::<usize>() {
                    Ok(k) if (1..=MULTIPV_CAP).contains(&k) => pv.index = k - 1,
                    _ => return None,
                },
                "ev" => r.eval = eval_of(value).ok()?,
                "n" => r.nodes = Some(count_of(value)?),
                "tm" => r.time_ms = Some(value.parse().ok()?),
                "pv" => r.pv = line_of(self.size, value, letter_number)?,
                _ => {}
            }
        }
        Some(pv)
    }

    /// A PV heard whole: PV 0 starts a new report, later PVs join the current one.
    fn complete(&mut self, pv: Pv, elapsed_ms: impl FnOnce() -> u64) {
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
            let mut report = pv.report;
            report.multipv.extend(first);
            if pv.count > 1 {
                self.pending = Some((report, pv.count));
            } else {
                self.last = Some(report);
            }
            return;
        }
        // A later PV joins its iteration: the pending one, or (where the engine gives no count,
        // as in the one-line form) the last report.
        let joined = match self.pending.as_mut() {
            Some((report, _)) => report,
            None => match self.last.as_mut() {
                Some(report) => report,
                None => {
                    self.ignored += 1;
                    return;
                }
            },
        };
        match first {
            Some(first) if joined.multipv.len() == pv.index && joined.depth == pv.report.depth => {
                joined.multipv.push(first);
            }
            _ => {
                self.ignored += 1;
                return;
            }
        }
        if let Some((report, count)) = self.pending.take() {
            if report.multipv.len() >= count {
                self.last = Some(report);
            } else {
                self.pending = Some((report, count));
            }
        }
    }
}

/// A principal variation: moves separated by spaces (detail form) or run together (message
/// form, `H8I9J10`), kept up to [`PV_CAP`] moves; `None` when a kept move is not a point.
fn line_of(
    size: BoardSize,
    text: &str,
    point: impl Fn(&str, BoardSize) -> Option<Pos>,
) -> Option<Vec<Pos>> {
    let mut moves = Vec::with_capacity(PV_CAP.min(text.len() / 2 + 1));
    for token in split_moves(text) {
        if moves.len() == PV_CAP {
            break;
        }
        moves.push(point(token, size)?);
    }
    Some(moves)
}

/// Splits a move list into moves: on spaces, or before each letter of a run-together list.
fn split_moves(text: &str) -> impl Iterator<Item = &str> {
    text.split_ascii_whitespace().flat_map(|word| {
        let bytes = word.as_bytes();
        let pairs = word.contains(',');
        let mut start = 0;
        std::iter::from_fn(move || {
            if start >= bytes.len() {
                return None;
            }
            let mut end = start + 1;
            if pairs {
                end = bytes.len();
            } else {
                while end < bytes.len() && !bytes[end].is_ascii_alphabetic() {
                    end += 1;
                }
            }
            let token = &word[start..end];
            start = end;
            Some(token)
        })
    })
}

/// One point of a run-together move list: a letter for x from `a` (either case), then y + 1.
fn letter_number(token: &str, size: BoardSize) -> Option<Pos> {
    let (&letter, digits) = token.as_bytes().split_first()?;
    if !letter.is_ascii_alphabetic() || digits.is_empty() || !digits.iter().all(u8::is_ascii_digit)
    {
        return None;
    }
    let x = i64::from(letter.to_ascii_lowercase() - b'a');
    let y: i64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    size.pos(x, y - 1).ok()
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
fn eval_of(text: &str) -> Result<Option<Eval>, ()> {
    if text.eq_ignore_ascii_case("VAL_NONE") {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| ())
}

/// A node count as Rapfi prints it: plain, or with a K/M/G/T suffix.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Outlook;

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
            "INFO PV 0\nINFO DEPTH 13\nINFO EVAL -M4\nINFO BESTLINE 1,1\nINFO PV DONE",
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

    #[test]
    fn node_counts_with_suffixes() {
        assert_eq!(count_of("9999"), Some(9999));
        assert_eq!(count_of("12K"), Some(12_000));
        assert_eq!(count_of("3M"), Some(3_000_000));
        assert_eq!(count_of("K"), None);
        assert_eq!(count_of("99999999999T"), None);
    }
}
