//! What the check saw over its games, summed into items: move times and margins, the engine's
//! search reports, the lines that were no answer. Pure.

use std::time::Duration;

use crate::commands::check::report::Status;
use crate::core::board::Pos;
use crate::engine::LineCounts;

/// Times and outcome of the moves of one check game.
#[derive(Debug, Default)]
pub(super) struct Timing {
    pub(super) moves: usize,
    pub(super) slowest: Duration,
    /// The smallest `min(turn, time left) - elapsed`, in signed milliseconds.
    pub(super) margin_ms: Option<i64>,
}

impl Timing {
    pub(super) fn add(&mut self, elapsed: Duration, limit: Duration) {
        self.moves += 1;
        self.slowest = self.slowest.max(elapsed);
        let margin = limit.as_millis() as i64 - elapsed.as_millis() as i64;
        self.margin_ms = Some(self.margin_ms.map_or(margin, |m| m.min(margin)));
    }

    pub(super) fn merge(&mut self, other: &Timing) {
        self.moves += other.moves;
        self.slowest = self.slowest.max(other.slowest);
        if let Some(m) = other.margin_ms {
            self.margin_ms = Some(self.margin_ms.map_or(m, |n| n.min(m)));
        }
    }
}

/// The search reports heard with the check's moves (`INFO` detail blocks and `MESSAGE depth`
/// lines, read by the session's listener).
#[derive(Debug, Default)]
pub(super) struct SearchSeen {
    /// Moves answered with a report before them.
    reported: usize,
    /// Of those, reports whose principal variation starts with the move played.
    agreeing: usize,
    /// The deepest depth reported.
    depth: Option<u32>,
    /// A report whose principal variation starts elsewhere: (its first move, the move).
    disagreeing: Option<(Pos, (i64, i64))>,
}

impl SearchSeen {
    pub(super) fn add(
        &mut self,
        report: Option<&crate::core::search::SearchReport>,
        played: Option<(i64, i64)>,
    ) {
        let Some(r) = report else { return };
        self.reported += 1;
        self.depth = self.depth.max(r.depth);
        match (r.pv.first(), played) {
            (Some(p), Some((x, y))) if (p.x as i64, p.y as i64) == (x, y) => self.agreeing += 1,
            (Some(&p), Some(xy)) => {
                self.disagreeing.get_or_insert((p, xy));
            }
            _ => {}
        }
    }

    /// The item: reports heard pass; lines the listener could not read warn, and so do reports
    /// none of whose principal variations starts with the move played (coordinates swapped or
    /// off by one). A real engine's last complete report may name another move now and then
    /// (its last iteration, cut by the clock, changed its mind): one that does is counted, not
    /// warned about. None heard is skipped (the judge reads none, and an engine need print
    /// none).
    pub(super) fn verdict(&self, ignored: u64, moves: usize) -> (Status, String) {
        let depth = self.depth.map_or("-".to_string(), |d| d.to_string());
        let seen = format!(
            "reports with {} of {moves} moves, deepest depth {depth}, {} PV(s) starting with the move played",
            self.reported, self.agreeing
        );
        if ignored > 0 {
            return (
                Status::Warn,
                format!("{ignored} line(s) of search output could not be read (malformed, cut or out of range); {seen}"),
            );
        }
        match self.disagreeing {
            Some((p, (x, y))) if self.agreeing == 0 => (
                Status::Warn,
                format!("no reported PV starts with the move played (one starts with {p}, the move was {x},{y}); {seen}"),
            ),
            _ if self.reported == 0 => (
                Status::Skip,
                "no search output heard (INFO show_detail asked; the judge reads none)".to_string(),
            ),
            _ => (Status::Pass, seen),
        }
    }
}

/// The `stray lines` item: the lines an engine printed that were no answer to what it was asked
/// (counted by the sessions). A match logs them and waits on for the move (an `ERROR` in place
/// of a move is no move), so they warn, never fail. Lines over the per-move cap are said but do
/// not warn here: the `messages` item warns on the long or many messages they are.
pub(super) fn stray_verdict(lines: &LineCounts) -> (Status, String) {
    let stray = lines.error + lines.unknown + lines.debug + lines.other;
    let dropped = (lines.dropped > 0).then(|| {
        format!(
            "{} lines ({} bytes) over the cap a move, dropped",
            lines.dropped, lines.dropped_bytes
        )
    });
    if stray == 0 {
        let detail = "every line answered what was asked".to_string();
        return (
            Status::Pass,
            dropped.map_or(detail.clone(), |d| format!("{detail}; {d}")),
        );
    }
    let mut detail = format!(
        "{} ERROR, {} UNKNOWN, {} DEBUG, {} other lines that were no answer (logged; a match waits on past them)",
        lines.error, lines.unknown, lines.debug, lines.other
    );
    if let Some(d) = dropped {
        detail.push_str(&format!("; {d}"));
    }
    (Status::Warn, detail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::board::BoardSize;

    #[test]
    fn stray_lines_warn_with_their_counts_and_pass_without() {
        let (status, detail) = stray_verdict(&LineCounts::default());
        assert_eq!(status, Status::Pass, "{detail}");
        let flood = LineCounts {
            dropped: 9,
            dropped_bytes: 900,
            ..LineCounts::default()
        };
        let (status, detail) = stray_verdict(&flood);
        assert_eq!(
            status,
            Status::Pass,
            "the messages item warns on those: {detail}"
        );
        assert!(detail.contains("9 lines (900 bytes)"), "{detail}");
        let lines = LineCounts {
            error: 2,
            debug: 1,
            dropped: 5,
            dropped_bytes: 70,
            ..LineCounts::default()
        };
        let (status, detail) = stray_verdict(&lines);
        assert_eq!(status, Status::Warn);
        assert!(
            detail.starts_with("2 ERROR, 0 UNKNOWN, 1 DEBUG, 0 other"),
            "{detail}"
        );
        assert!(detail.contains("5 lines (70 bytes)"), "{detail}");
    }

    #[test]
    fn search_reports_warn_only_when_none_names_the_move_played() {
        let size = BoardSize::new(15).unwrap();
        let report = |x, y| crate::core::search::SearchReport {
            depth: Some(4),
            pv: vec![size.pos(x, y).unwrap()],
            ..Default::default()
        };
        let mut seen = SearchSeen::default();
        assert_eq!(seen.verdict(0, 3).0, Status::Skip);
        seen.add(Some(&report(7, 7)), Some((7, 7)));
        seen.add(Some(&report(2, 8)), Some((1, 7)));
        seen.add(None, Some((3, 3)));
        let (status, detail) = seen.verdict(0, 3);
        assert_eq!(status, Status::Pass, "{detail}");
        assert!(
            detail.contains("reports with 2 of 3 moves, deepest depth 4, 1 PV(s)"),
            "{detail}"
        );
        assert_eq!(seen.verdict(5, 3).0, Status::Warn);
        let mut swapped = SearchSeen::default();
        swapped.add(Some(&report(8, 7)), Some((7, 8)));
        assert_eq!(swapped.verdict(0, 1).0, Status::Warn);
    }

    #[test]
    fn margins_keep_the_smallest() {
        let mut t = Timing::default();
        t.add(Duration::from_millis(300), Duration::from_millis(1000));
        t.add(Duration::from_millis(1200), Duration::from_millis(1000));
        assert_eq!(t.margin_ms, Some(-200));
        assert_eq!(t.slowest, Duration::from_millis(1200));
    }
}
