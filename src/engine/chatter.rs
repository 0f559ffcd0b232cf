//! What an engine prints besides its answers and search output: `MESSAGE` lines kept for the
//! records up to a cap per move, and counts of everything else (`ERROR`, `UNKNOWN`, `DEBUG`,
//! stray lines) for the journal, the report and `check`. Pure: the session feeds it lines.

use serde::{Deserialize, Serialize};

use crate::engine::protocol::{cut_text, printable, EngineLine, QUOTED_ANSWER_CHARS};

/// Most lines an engine may have kept or logged per move (its `MESSAGE` lines, and the notes
/// about its `ERROR`/`UNKNOWN`/`DEBUG` lines); past it they are only counted. Engines that talk
/// print a line per search depth, a few dozen a move (Rapfi's one-line reports, which are search
/// output, do not count); 256 leaves room for verbose ones while a game of 225 moves keeps at
/// most 57,600.
pub const LINES_PER_MOVE: usize = 256;

/// Most bytes of those lines per move: 64 KiB, a few hundred lines of ordinary length, so a
/// game of 225 moves keeps at most 14 MiB per engine however long its lines are (one line may
/// be as long as the reader's limit; it is dropped whole when it does not fit).
pub const BYTES_PER_MOVE: usize = 64 * 1024;

/// Lines an engine printed that were neither an answer, search output nor a kept message, by
/// kind, and the lines dropped over the cap. Written per engine in the journal's `usage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineCounts {
    /// `ERROR` lines not taken as an answer (while waiting for a move they never are).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub error: u64,
    /// `UNKNOWN` lines not taken as an answer.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unknown: u64,
    /// `DEBUG` lines.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub debug: u64,
    /// Other lines that were no answer: `OK` and blank lines while waiting for a move, late
    /// lines drained after a refusal.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub other: u64,
    /// Lines (`MESSAGE` and the above) over [`LINES_PER_MOVE`] or [`BYTES_PER_MOVE`] in a move:
    /// counted, neither kept nor logged.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dropped: u64,
    /// Their bytes.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dropped_bytes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl LineCounts {
    /// Nothing counted (the journal then writes no `lines`).
    pub fn is_empty(&self) -> bool {
        *self == LineCounts::default()
    }

    /// Both counts added (an engine's games summed up).
    pub fn add(&mut self, o: &LineCounts) {
        self.error += o.error;
        self.unknown += o.unknown;
        self.debug += o.debug;
        self.other += o.other;
        self.dropped += o.dropped;
        self.dropped_bytes += o.dropped_bytes;
    }

    /// Both counts added, or `None` where one would pass u64 (counts read from a journal).
    pub fn checked_add(&self, o: &LineCounts) -> Option<LineCounts> {
        Some(LineCounts {
            error: self.error.checked_add(o.error)?,
            unknown: self.unknown.checked_add(o.unknown)?,
            debug: self.debug.checked_add(o.debug)?,
            other: self.other.checked_add(o.other)?,
            dropped: self.dropped.checked_add(o.dropped)?,
            dropped_bytes: self.dropped_bytes.checked_add(o.dropped_bytes)?,
        })
    }
}

/// An engine's chatter since the records last took it.
#[derive(Debug, Default)]
pub struct Chatter {
    messages: Vec<String>,
    counts: LineCounts,
    /// Lines and bytes kept or logged in the current move.
    lines: usize,
    bytes: usize,
    /// The current move dropped a line already.
    dropping: bool,
    /// The first `ERROR`/`UNKNOWN` line of the current wait for an answer, cut for quoting: what
    /// a timeout's reason says the engine answered instead.
    refusal: Option<String>,
}

/// Whether a line found room in the move's budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Room {
    Kept,
    /// Counted and dropped; `first` for the move's first dropped line (worth one note).
    Dropped {
        first: bool,
    },
}

impl Chatter {
    /// A new move (or game start): a fresh budget, no refusal heard.
    pub fn new_move(&mut self) {
        self.lines = 0;
        self.bytes = 0;
        self.dropping = false;
        self.refusal = None;
    }

    /// Takes room for a line of `len` bytes, or counts it dropped.
    fn room(&mut self, len: usize) -> Room {
        if self.lines < LINES_PER_MOVE && self.bytes + len <= BYTES_PER_MOVE {
            self.lines += 1;
            self.bytes += len;
            return Room::Kept;
        }
        let first = !std::mem::replace(&mut self.dropping, true);
        self.counts.dropped += 1;
        self.counts.dropped_bytes += len as u64;
        Room::Dropped { first }
    }

    /// A `MESSAGE` line's text: kept for the records when the move has room, its control
    /// characters escaped ([`printable`]).
    pub fn message(&mut self, text: String) -> Room {
        let room = self.room(text.len());
        if room == Room::Kept {
            self.messages.push(printable(text));
        }
        room
    }

    /// A line that is no answer (`line` as parsed, `raw` as read): counted by kind; `Kept` when
    /// it may be logged. The first `ERROR`/`UNKNOWN` of a wait is kept for a timeout's reason.
    pub fn noise(&mut self, line: Option<&EngineLine>, raw: &str) -> Room {
        let c = &mut self.counts;
        match line {
            Some(EngineLine::Error(_)) => c.error += 1,
            Some(EngineLine::Unknown(_)) => c.unknown += 1,
            Some(EngineLine::Debug(_)) => c.debug += 1,
            _ => c.other += 1,
        }
        if matches!(line, Some(EngineLine::Error(_) | EngineLine::Unknown(_)))
            && self.refusal.is_none()
        {
            self.refusal = Some(cut_text(raw.trim().to_string(), QUOTED_ANSWER_CHARS));
        }
        self.room(raw.len())
    }

    /// The `MESSAGE` texts kept since the last call.
    pub fn take_messages(&mut self) -> Vec<String> {
        std::mem::take(&mut self.messages)
    }

    /// The counts since the last call.
    pub fn take_counts(&mut self) -> LineCounts {
        std::mem::take(&mut self.counts)
    }

    /// The counts since the last [`take_counts`](Self::take_counts).
    pub fn counts(&self) -> LineCounts {
        self.counts
    }

    /// The first `ERROR`/`UNKNOWN` line of the current wait, if any.
    pub fn take_refusal(&mut self) -> Option<String> {
        self.refusal.take()
    }
}

/// Whether the text of an `ERROR`/`UNKNOWN` line is about the `INFO time_left` line sent with a
/// request (it names `INFO`, `time_left` or the value `time_left` sent) and not about `command`,
/// the request's keyword. Rapfi that receives a line while it is still finishing its last move
/// drops the line's first word as a command sent while it thinks and refuses the others one by
/// one (`ERROR Unknown command: TIME_LEFT`, `ERROR Unknown command: 8502`), then answers the
/// request: such a line is noise, whereas one about the request itself is a refusal of it.
pub fn about_time_left(text: &str, time_left_ms: u64, command: &str) -> bool {
    let value = time_left_ms.to_string();
    let mut words = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty());
    let mut named = false;
    for w in &mut words {
        if w.eq_ignore_ascii_case(command) {
            return false;
        }
        named |=
            w.eq_ignore_ascii_case("INFO") || w.eq_ignore_ascii_case("time_left") || w == value;
    }
    named
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::parse_engine_line;

    fn noise(c: &mut Chatter, raw: &str) -> Room {
        c.noise(parse_engine_line(raw).as_ref(), raw)
    }

    #[test]
    fn lines_are_counted_by_kind_and_the_first_refusal_is_kept() {
        let mut c = Chatter::default();
        for raw in [
            "DEBUG x",
            "ERROR Unknown command: TIME_LEFT",
            "UNKNOWN y",
            "OK",
            "ERROR z",
        ] {
            assert_eq!(noise(&mut c, raw), Room::Kept);
        }
        assert_eq!(c.message("hello".into()), Room::Kept);
        assert_eq!(
            c.take_refusal().as_deref(),
            Some("ERROR Unknown command: TIME_LEFT")
        );
        assert_eq!(c.take_messages(), vec!["hello"]);
        let counts = c.take_counts();
        assert_eq!(
            counts,
            LineCounts {
                error: 2,
                unknown: 1,
                debug: 1,
                other: 1,
                ..LineCounts::default()
            }
        );
        assert!(c.take_counts().is_empty(), "taken");
    }

    #[test]
    fn past_the_cap_lines_are_counted_and_dropped_and_a_new_move_has_room_again() {
        let mut c = Chatter::default();
        for i in 0..LINES_PER_MOVE {
            assert_eq!(c.message(format!("m{i}")), Room::Kept);
        }
        assert_eq!(c.message("over".into()), Room::Dropped { first: true });
        assert_eq!(c.message("over".into()), Room::Dropped { first: false });
        assert_eq!(noise(&mut c, "ERROR e"), Room::Dropped { first: false });
        assert_eq!(c.counts().error, 1, "counted though not logged");
        c.new_move();
        assert_eq!(c.message("again".into()), Room::Kept);
        for _ in 1..LINES_PER_MOVE {
            c.message("m".into());
        }
        assert_eq!(c.message("over".into()), Room::Dropped { first: true });
        assert_eq!(c.take_messages().len(), 2 * LINES_PER_MOVE);
        let counts = c.take_counts();
        assert_eq!(counts.dropped, 4);
        assert_eq!(counts.dropped_bytes, 4 + 4 + 7 + 4);
    }

    #[test]
    fn the_byte_cap_drops_a_line_that_does_not_fit_whole() {
        let mut c = Chatter::default();
        let big = "x".repeat(BYTES_PER_MOVE - 10);
        assert_eq!(c.message(big), Room::Kept);
        assert_eq!(
            c.message("y".repeat(11)),
            Room::Dropped { first: true },
            "would pass the byte cap"
        );
        assert_eq!(c.counts().dropped_bytes, 11);
    }

    #[test]
    fn a_refusal_about_the_time_left_line_is_told_from_one_about_the_request() {
        // Rapfi, finishing its last move, dropped `INFO` and refused the rest of the line.
        assert!(about_time_left(
            "Unknown command: TIME_LEFT",
            8502,
            "YXBOARD"
        ));
        assert!(about_time_left("Unknown command: 8502", 8502, "YXBOARD"));
        assert!(about_time_left("unknown command INFO", 8502, "SWAP2BOARD"));
        // About the request, or about nothing we can tell: a refusal.
        assert!(!about_time_left(
            "Unknown command: YXBOARD",
            8502,
            "YXBOARD"
        ));
        assert!(!about_time_left("", 8502, "YXBOARD"));
        assert!(!about_time_left(
            "Color is not a valid value, must be one of [1, 2, 3].",
            8502,
            "SWAP2BOARD"
        ));
        assert!(!about_time_left("Unknown command: 85020", 8502, "YXBOARD"));
        assert!(!about_time_left(
            "INFO time_left before SWAP2BOARD not supported",
            1,
            "SWAP2BOARD"
        ));
    }
}
