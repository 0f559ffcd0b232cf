//! The engine quirks a session handles, as state and pure decisions: what it learned of an
//! engine (its `ABOUT` answer, the `SWAP2BOARD` form it takes, a refused `YXNBEST`), an exchange
//! left unsettled by a refusal (late lines to drain), and which `ERROR`/`UNKNOWN` lines are noise
//! rather than the answer waited for.

use crate::core::swap::Swap2Form;
use crate::engine::chatter::about_time_left;
use crate::engine::protocol::{parse_engine_line, EngineLine};

/// What the session learned of this engine's ways, and an exchange it left unfinished.
#[derive(Debug, Default)]
pub(super) struct Quirks {
    /// The engine's answer to `ABOUT`, the last one that was not `ERROR`/`UNKNOWN`: the line
    /// that ends the drain of late lines after a refusal. Kept across new processes (the same program).
    pub(super) about_line: Option<String>,
    /// The INFO block of a fresh start was answered with a refusal before any ABOUT answer was
    /// known: an ERROR about an INFO line, with the ABOUT answer still to come. Until the first
    /// answer to a move or `SWAP2BOARD`, a line with a `name="..."` field is that late ABOUT
    /// answer, not the answer asked for.
    pub(super) about_may_follow: bool,
    /// An exchange that ended on an `ERROR`/`UNKNOWN` answer, after which the engine may still
    /// print lines of its own (Rapfi writes an `ERROR` per stone line it cannot read, then an
    /// answer): they are drained before the next game, never read as the next answer.
    pub(super) unsettled: Option<String>,
    /// The form of `SWAP2BOARD` this engine takes, once it answered one with stones; kept
    /// across new processes.
    pub(super) swap_form: Option<Swap2Form>,
    /// The engine answered `YXBOARD`/`YXNBEST` with a refusal: kept across new processes.
    pub(super) nbest_refused: bool,
}

/// Which answer a request waits for: the lines an engine may send before it differ.
///
/// A line that is not the answer never ends the wait: an engine may print `ERROR` or `UNKNOWN`
/// about something else and answer after (Rapfi, sent a line in the moment it has printed its
/// move but not yet marked itself idle, drops the line's first word and refuses the others:
/// `ERROR Unknown command: TIME_LEFT`, then answers the request). An engine that never
/// answers loses on time, its first `ERROR`/`UNKNOWN` quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Answering {
    /// A move: `ERROR`, `UNKNOWN`, `DEBUG` and `OK` lines are noise (counted, logged), `SUGGEST`
    /// is answered with `PLAY`; only a move or an unparsable line is the answer.
    Move,
    /// A `SWAP2BOARD` answer: `UNKNOWN`/`ERROR` is the answer (the command is not supported),
    /// unless it is about the `INFO time_left` line sent with it
    /// ([`about_time_left`]).
    Swap,
    /// A move after `YXBOARD` + `YXNBEST`: as [`Move`](Answering::Move), but `UNKNOWN`/`ERROR`
    /// is the answer (the extensions are not supported), unless it is about the
    /// `INFO time_left` line.
    NBest,
}

impl Answering {
    /// Whether a refusal (`ERROR`/`UNKNOWN` with `text`) read while waiting is noise rather
    /// than the answer: always for a move; for the others when it is about the
    /// `INFO time_left` line (worth `time_left_ms`) sent with the request.
    pub(super) fn refusal_is_noise(self, text: &str, time_left_ms: u64) -> bool {
        self == Answering::Move || about_time_left(text, time_left_ms, self.keyword())
    }

    /// The request's keyword: a refusal line that names it is about the request.
    fn keyword(self) -> &'static str {
        match self {
            Answering::Move => "",
            Answering::Swap => "SWAP2BOARD",
            Answering::NBest => "YXBOARD",
        }
    }
}

/// Whether an answer is `ERROR` or `UNKNOWN`: a refusal, not the answer asked for.
pub(super) fn is_refusal(line: &str) -> bool {
    matches!(
        parse_engine_line(line),
        Some(EngineLine::Error(_) | EngineLine::Unknown(_))
    )
}
