//! Asking an engine to move: `BEGIN`/`TURN`/`BOARD` (or `YXBOARD` + `YXNBEST`), `SWAP2BOARD`
//! and `TAKEBACK`, each after `INFO time_left`, read under a deadline while the engine's memory
//! is sampled and its search output heard.

use std::time::Duration;

use tokio::time::{timeout_at, Instant};

use crate::core::board::Pos;
use crate::core::swap::{Answer, Swap2Form, SwapReply};
use crate::engine::listen::Listener;
use crate::engine::protocol::{
    cut_text, encode_time_left, parse_about, parse_engine_line, parse_swap_answer, Command,
    EngineLine, QUOTED_ANSWER_CHARS, UNLIMITED_TIME_LEFT_MS,
};
use crate::engine::resources::ProcWatch;
use crate::engine::session::io::{deadline_at, trimmed, Broken};
use crate::engine::session::quirks::{is_refusal, Answering};
use crate::engine::session::requests::{millis, MoveReply, MoveRequest, Takeback};
use crate::engine::session::usage::{sample_memory, MEMORY_SAMPLE};
use crate::engine::session::EngineSession;
use crate::engine::EngineError;

impl EngineSession {
    /// Asks for a move: `INFO time_left` (unlimited = 2147483647), then the command, then reads
    /// until an answer. MESSAGE lines are kept for [`take_messages`](Self::take_messages);
    /// DEBUG, ERROR, UNKNOWN and OK are only logged; `SUGGEST x,y` is answered `PLAY x,y` and the
    /// engine's reply to that is the move. Any other line is the answer, unparsable ones
    /// included (`coords: None`), so the referee can call it an illegal move.
    ///
    /// Past `deadline` (counted from sending; `Duration::MAX` = none, see
    /// [`EngineSpec::move_deadline`]) the engine is killed and `Timeout` returned; if it dies
    /// instead, `Crashed` with its exit status.
    pub async fn request_move(
        &mut self,
        req: MoveRequest,
        time_left: Option<Duration>,
        deadline: Duration,
    ) -> Result<MoveReply, EngineError> {
        if let (MoveRequest::Board(stones), Some(n)) = (&req, self.nbest()) {
            let command = Command::NBest {
                stones: stones.clone(),
                n,
            };
            let what = || format!("YXBOARD + YXNBEST {n}");
            let heard = self
                .request(command, Answering::NBest, time_left, deadline, what)
                .await?;
            if !is_refusal(&heard.line) {
                return Ok(self.move_reply(heard));
            }
            // Not an engine of Yixin's extensions: asked the usual way from now on, once what
            // it says to the stone lines is drained.
            self.quirks.nbest_refused = true;
            self.note(format!(
                "{} refused ({}): BOARD from now on",
                what(),
                heard.line
            ));
            self.quirks.unsettled = Some(what());
        }
        let heard = self
            .request(req.command(), Answering::Move, time_left, deadline, || {
                req.describe()
            })
            .await?;
        Ok(self.move_reply(heard))
    }

    /// The move answer `heard`, with the search report heard before it.
    fn move_reply(&mut self, heard: Heard) -> MoveReply {
        let (search, ignored) = match self.listener.as_mut() {
            Some(l) => (l.finish(), l.take_ignored()),
            None => (None, 0),
        };
        self.search_ignored += ignored;
        if ignored > 0 {
            self.note(format!(
                "{ignored} line(s) of search output ignored (malformed, cut or out of window)"
            ));
        }
        MoveReply {
            coords: heard.point,
            raw: cut_text(heard.line, QUOTED_ANSWER_CHARS),
            elapsed: heard.elapsed,
            search,
        }
    }

    /// `TAKEBACK x,y`: the engine removes the stone on `p` (the last move) and answers `OK`,
    /// within `deadline`. MESSAGE lines before the answer are kept, DEBUG lines logged; the
    /// first other line is the answer. `UNKNOWN` or `ERROR` is a refusal (the command is
    /// optional in the protocol), anything else a protocol error; after either, what the
    /// engine still prints is drained before the next request. Past `deadline` the engine is
    /// killed and `Timeout` returned; if it dies instead, `Crashed` with its exit status.
    pub async fn takeback(&mut self, p: Pos, deadline: Duration) -> Result<Takeback, EngineError> {
        self.check_alive()?;
        if self.quirks.unsettled.is_some() {
            self.drain(deadline, false).await?;
        }
        let start = Instant::now();
        let outcome = timeout_at(deadline_at(start, deadline), async {
            self.send(&Command::Takeback(p)).await?;
            loop {
                let line = self.read_line().await?;
                match parse_engine_line(&line) {
                    None | Some(EngineLine::Debug(_) | EngineLine::Info(_)) => {}
                    Some(EngineLine::Message(text)) => self.keep_message(text),
                    Some(_) => return Ok::<_, Broken>(trimmed(line)),
                }
            }
        })
        .await;
        let what = format!("TAKEBACK {},{}", p.x, p.y);
        let line = self.settle(outcome.ok(), &what, start).await?;
        if parse_engine_line(&line) == Some(EngineLine::Ok) {
            return Ok(Takeback::Done);
        }
        self.quirks.unsettled = Some(what.clone());
        let text = cut_text(line.clone(), QUOTED_ANSWER_CHARS);
        if is_refusal(&line) {
            return Ok(Takeback::Refused(text));
        }
        Err(EngineError::Protocol {
            text: format!("engine answered {what} with {text:?} instead of OK"),
        })
    }

    /// Asks `SWAP2BOARD` with `stones` (in play order) in a swap opening, as
    /// [`request_move`](Self::request_move) asks for a move: `INFO time_left` first, the same
    /// deadline, kill and crash handling, MESSAGE lines kept. The first line that is not
    /// MESSAGE, DEBUG or OK is the answer; `UNKNOWN` and `ERROR` included (the engine does not
    /// support the command, [`Answer::Unsupported`]).
    ///
    /// The stones go in the protocol page's `x,y` lines, unless the engine is known to take
    /// `BOARD`'s `x,y,c` ([`Swap2Form`]). An engine that answers the first with `ERROR` (as
    /// Rapfi does) is drained of what it still prints for it and asked again in the second, as
    /// the protocol lets a manager try again after `ERROR`; the form that got an answer is
    /// remembered for its later requests. All of it is timed as one answer, on its clock.
    pub async fn swap2_request(
        &mut self,
        stones: &[Pos],
        time_left: Option<Duration>,
        deadline: Duration,
    ) -> Result<SwapReply, EngineError> {
        // On the empty board both forms are the same two lines.
        let form = match self.quirks.swap_form {
            Some(form) if !stones.is_empty() => form,
            _ => Swap2Form::Points,
        };
        let start = Instant::now();
        let mut reply = self.swap2_once(stones, form, time_left, deadline).await?;
        let refused = matches!(parse_engine_line(&reply.raw), Some(EngineLine::Error(_)));
        if refused
            && form == Swap2Form::Points
            && !stones.is_empty()
            && self.quirks.swap_form.is_none()
        {
            self.note(format!(
                "SWAP2BOARD in x,y lines answered {:?}: asking again in BOARD's x,y,c lines",
                reply.raw
            ));
            self.drain(deadline.saturating_sub(start.elapsed()), false)
                .await?;
            // No end to its late lines could be found: asking again would read them.
            if self.quirks.unsettled.is_none() {
                let spent = start.elapsed();
                let left = time_left.map(|t| t.saturating_sub(spent));
                let deadline = deadline.saturating_sub(spent);
                reply = self
                    .swap2_once(stones, Swap2Form::Board, left, deadline)
                    .await?;
                reply.elapsed = start.elapsed();
            }
        }
        if reply.answer != Answer::Unsupported
            && !stones.is_empty()
            && self.quirks.swap_form.is_none()
        {
            self.quirks.swap_form = Some(reply.form);
            self.note(format!(
                "takes SWAP2BOARD in the {} form ({} lines)",
                reply.form.name(),
                match reply.form {
                    Swap2Form::Points => "x,y",
                    Swap2Form::Board => "x,y,c",
                }
            ));
        }
        Ok(reply)
    }

    /// One `SWAP2BOARD` exchange in `form`; a refusal leaves the session unsettled.
    async fn swap2_once(
        &mut self,
        stones: &[Pos],
        form: Swap2Form,
        time_left: Option<Duration>,
        deadline: Duration,
    ) -> Result<SwapReply, EngineError> {
        let command = Command::Swap2Board {
            stones: stones.to_vec(),
            form,
        };
        let Heard {
            line: raw, elapsed, ..
        } = self
            .request(command, Answering::Swap, time_left, deadline, || {
                format!("SWAP2BOARD ({} stones)", stones.len())
            })
            .await?;
        let answer = parse_swap_answer(&raw);
        if answer == Answer::Unsupported {
            self.quirks.unsettled = Some(format!("SWAP2BOARD ({} stones)", stones.len()));
        }
        Ok(SwapReply {
            answer,
            raw: cut_text(raw, QUOTED_ANSWER_CHARS),
            elapsed,
            form,
        })
    }

    /// Sends `INFO time_left` and `command`, and reads its answer line (trimmed) within
    /// `deadline`, sampling the engine's memory meanwhile. `what` describes the command for
    /// errors (built only then: the hot path builds no text).
    async fn request(
        &mut self,
        command: Command,
        answering: Answering,
        time_left: Option<Duration>,
        deadline: Duration,
        what: impl FnOnce() -> String,
    ) -> Result<Heard, EngineError> {
        self.check_alive()?;
        if self.quirks.unsettled.is_some() {
            self.drain(deadline, false).await?;
        }
        self.chatter.new_move();
        let time_left_ms = time_left.map_or(UNLIMITED_TIME_LEFT_MS, |d| {
            u64::try_from(d.as_millis())
                .unwrap_or(u64::MAX)
                .min(UNLIMITED_TIME_LEFT_MS)
        });
        let start = Instant::now();
        let deadline = deadline_at(start, deadline);
        // The engine's memory is sampled while it thinks (its peak is kept for the record); over
        // its limit it is killed and loses, as the protocol's `max_memory` promises. One timer
        // serves both the deadline and the samples: it fires at the earlier of the two, and an
        // engine that answers within the first period costs no read and no second timer.
        let mut watch = self.meter.take_watch(self.pid());
        let watched = watch.as_ref().map(ProcWatch::pid);
        let limit = self.spec.memory_limit();
        let mut peak = 0u64;
        let sample_after = |now: Instant| match watched {
            Some(_) => deadline.min(now + MEMORY_SAMPLE),
            None => deadline,
        };
        let outcome = {
            let answer = self.read_answer(command, time_left_ms, answering);
            tokio::pin!(answer);
            let timer = tokio::time::sleep_until(sample_after(start));
            tokio::pin!(timer);
            loop {
                tokio::select! {
                    biased;
                    r = &mut answer => break Some(r),
                    () = &mut timer => {
                        let now = Instant::now();
                        if now >= deadline {
                            break None;
                        }
                        if let Some(w) = &mut watch {
                            if let Err(over) = sample_memory(w, limit, &mut peak) {
                                break Some(Err(Broken::Error(over)));
                            }
                        }
                        timer.as_mut().reset(sample_after(now));
                    }
                }
            }
        };
        self.meter.note_peak(peak);
        self.meter.put_back(watch);
        match outcome {
            // The hot path: no description of the request to build.
            Some(Ok(reply)) => Ok(reply),
            other => self.settle(other, &what(), start).await,
        }
    }

    /// Send `INFO time_left` and the request, then read until the answer line (trimmed) and
    /// measure the time to it.
    async fn read_answer(
        &mut self,
        command: Command,
        time_left_ms: u64,
        answering: Answering,
    ) -> Result<Heard, Broken> {
        // Taken out of the session while `read_move_answer` borrows it; a request dropped
        // mid-way (its game abandoned) leaves a new buffer to the next.
        let mut bytes = std::mem::take(&mut self.request_bytes);
        bytes.clear();
        encode_time_left(&mut bytes, time_left_ms);
        command.encode_into(&mut bytes);
        // Search output is heard for moves only, and only what comes after this request.
        let mut listener = match answering {
            Answering::Move | Answering::NBest => self.listener.take(),
            Answering::Swap => None,
        };
        if let Some(l) = listener.as_mut() {
            l.begin();
        }
        let sent = Instant::now();
        let answer = self
            .read_move_answer(&bytes, answering, time_left_ms, sent, &mut listener)
            .await;
        self.listener = listener.or(self.listener.take());
        self.request_bytes = bytes;
        answer
    }

    /// The loop of [`read_answer`](Self::read_answer): sends `bytes`, then reads until the
    /// answer (see [`Answering`]), giving search output to `listener`. `time_left_ms` is the
    /// value sent in `INFO time_left`: a refusal about that line is not the answer.
    async fn read_move_answer(
        &mut self,
        bytes: &str,
        answering: Answering,
        time_left_ms: u64,
        sent: Instant,
        listener: &mut Option<Listener>,
    ) -> Result<Heard, Broken> {
        self.send_bytes(bytes).await?;
        loop {
            let line = self.read_line().await?;
            match parse_engine_line(&line) {
                Some(EngineLine::Info(rest)) => {
                    if let Some(l) = listener.as_mut() {
                        l.info(&rest, || millis(sent.elapsed()));
                    }
                    continue;
                }
                parsed @ (None | Some(EngineLine::Debug(_)) | Some(EngineLine::Ok)) => {
                    self.noise(parsed.as_ref(), &line, "no answer, ignored");
                    continue;
                }
                parsed @ Some(EngineLine::Error(_) | EngineLine::Unknown(_))
                    if matches!(&parsed, Some(EngineLine::Error(t) | EngineLine::Unknown(t))
                        if answering.refusal_is_noise(t, time_left_ms)) =>
                {
                    self.noise(parsed.as_ref(), &line, "no answer, ignored");
                    continue;
                }
                Some(EngineLine::Message(text)) => {
                    // A one-line search report is search output, not words for the record.
                    let heard = listener
                        .as_mut()
                        .is_some_and(|l| l.message(&text, || millis(sent.elapsed())));
                    if !heard {
                        self.keep_message(text);
                    }
                    continue;
                }
                Some(EngineLine::Suggest(x, y)) if answering != Answering::Swap => {
                    self.send(&Command::Play(x, y)).await?;
                    continue;
                }
                Some(answer) if self.quirks.about_may_follow => {
                    self.quirks.about_may_follow = false;
                    let about = parse_about(&line);
                    if about.get("name").is_none() {
                        return Ok(Heard::new(line, &answer, sent));
                    }
                    self.note(format!(
                        "the ABOUT answer after an ERROR to an INFO line: {line}"
                    ));
                    self.quirks.about_line = Some(about.raw);
                }
                Some(answer) => return Ok(Heard::new(line, &answer, sent)),
            }
        }
    }
}

/// An answer as the read loop heard it: the line (trimmed), the point it names where it is a
/// move, and the time from sending the request to it.
struct Heard {
    line: String,
    /// Taken from the line's one parse (`parse_engine_line` reads `x,y` first): the coordinates
    /// are not parsed again for the move.
    point: Option<(i64, i64)>,
    elapsed: Duration,
}

impl Heard {
    fn new(line: String, answer: &EngineLine, sent: Instant) -> Heard {
        let point = match *answer {
            EngineLine::Move(x, y) => Some((x, y)),
            _ => None,
        };
        Heard {
            line: trimmed(line),
            point,
            elapsed: sent.elapsed(),
        }
    }
}
