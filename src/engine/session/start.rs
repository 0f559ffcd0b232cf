//! A game's start in a session: `ABOUT`, `START` or `RESTART` with the INFO block, and the
//! drain of what an engine still prints after a refusal before anything else is asked.

use std::time::Duration;

use tokio::time::{timeout_at, Instant};

use crate::core::board::BoardSize;
use crate::core::rules::Rule;
use crate::engine::listen::Listener;
use crate::engine::protocol::{
    cut_text, parse_about, parse_engine_line, Command, EngineLine, ABOUT_NAME_CHARS,
    QUOTED_ANSWER_CHARS,
};
use crate::engine::session::io::{deadline_at, trimmed, Broken};
use crate::engine::session::quirks::is_refusal;
use crate::engine::session::requests::game_infos;
use crate::engine::session::EngineSession;
use crate::engine::EngineError;

impl EngineSession {
    /// Asks ABOUT and returns the engine's name: the `name` field, the free-text answer of old
    /// engines, or (when the engine answers UNKNOWN/ERROR) the program name. MESSAGE and DEBUG
    /// banner lines before the answer are skipped. The session's log name becomes the user's
    /// name if set, else this one.
    pub async fn about(&mut self, deadline: Duration) -> Result<String, EngineError> {
        self.check_alive()?;
        let start = Instant::now();
        let outcome = timeout_at(deadline_at(start, deadline), async {
            self.send(&Command::About).await?;
            loop {
                let line = self.read_line().await?;
                match parse_engine_line(&line) {
                    None
                    | Some(EngineLine::Message(_))
                    | Some(EngineLine::Debug(_) | EngineLine::Info(_))
                    | Some(EngineLine::Ok) => continue,
                    Some(EngineLine::Unknown(_)) | Some(EngineLine::Error(_)) => {
                        return Ok::<_, Broken>(None)
                    }
                    Some(_) => return Ok(Some(parse_about(&line))),
                }
            }
        })
        .await;
        let about = self.settle(outcome.ok(), "ABOUT", start).await?;
        if let Some(a) = &about {
            self.quirks.about_line = Some(a.raw.clone());
        }
        let fallback = self.spec.program_name();
        let name = about
            .as_ref()
            .and_then(|a| a.name())
            .map(|n| cut_text(n.to_string(), ABOUT_NAME_CHARS))
            .unwrap_or_else(|| fallback.clone());
        self.name = self.spec.name.clone().unwrap_or_else(|| name.clone());
        self.about = about;
        Ok(name)
    }

    /// Prepares a new game: `START n` on a fresh process (or when the size changed), else
    /// `RESTART`; either must be answered `OK` within `startup_deadline`. An engine answering
    /// RESTART with UNKNOWN or ERROR is ended and started again, as the protocol says. A dead
    /// session (crash, timeout) is respawned first. Then the INFO block of the spec is sent.
    pub async fn new_game(
        &mut self,
        size: BoardSize,
        rule: Rule,
        startup_deadline: Duration,
    ) -> Result<(), EngineError> {
        // What an engine still had to say after a refused request is not the answer to RESTART;
        // when it cannot be drained the engine was killed, and starts afresh below.
        let _ = self.drain(startup_deadline, true).await;
        // The start's messages have a move's room of their own.
        self.chatter.new_move();
        if self.dead.is_some() {
            self.respawn().await?;
        }
        self.listener = Some(Listener::new(size));
        let mut infos = game_infos(&self.spec, rule);
        for (key, value) in &self.game_options {
            infos.push(Command::info(key.clone(), value));
        }
        infos.push(Command::About);
        // Whether the INFO block and ABOUT already went out with RESTART.
        let mut sent = false;
        if self.started == Some(size) {
            // RESTART, the INFO block and ABOUT in one write: the engine reads them in order, so
            // this is the same conversation in one round trip instead of two (per game, at every
            // concurrency). Should it refuse RESTART, the lines after it go to a process that is
            // ended; should it not answer, it is killed.
            match self
                .handshake(Command::Restart, &infos, startup_deadline)
                .await
            {
                Ok(()) => sent = true,
                Err(EngineError::StartFailed { text }) => {
                    self.note(format!("RESTART refused ({text}); restarting the process"));
                    if self.process.is_none() {
                        // The INFO block and ABOUT sent after RESTART would be answered next.
                        self.kill("refused RESTART");
                        return Err(EngineError::Protocol {
                            text: format!(
                                "engine refused RESTART ({text}) and cannot be respawned"
                            ),
                        });
                    }
                    self.respawn().await?;
                    self.handshake(Command::Start(size.get()), &[], startup_deadline)
                        .await?;
                }
                Err(e) => return Err(e),
            }
        } else {
            self.handshake(Command::Start(size.get()), &[], startup_deadline)
                .await?;
        }
        self.started = Some(size);
        let start = Instant::now();
        // The INFO block, then ABOUT: an engine reads commands in order, so its answer comes
        // once it has taken in every INFO line, and the work they cause (a hash table sized from
        // `max_memory`, a network loaded) is done within the start-up deadline, before the first
        // move's clock starts, as the predecessor's ABOUT round trip did.
        // An engine known to answer ABOUT with something else may print ERROR about an INFO
        // line before it (Rapfi does for a small `max_memory`): that line is not the answer, and
        // taking it so would leave the real answer to be read as the first move.
        let answers_about = self.quirks.about_line.is_some();
        let outcome = timeout_at(deadline_at(start, startup_deadline), async {
            if !sent {
                self.send_all(&infos).await?;
            }
            loop {
                let line = self.read_line().await?;
                match parse_engine_line(&line) {
                    Some(EngineLine::Message(text)) => self.keep_message(text),
                    None
                    | Some(EngineLine::Debug(_) | EngineLine::Info(_))
                    | Some(EngineLine::Ok) => {}
                    Some(EngineLine::Error(_) | EngineLine::Unknown(_)) if answers_about => {}
                    // The answer, whatever it says (UNKNOWN and ERROR included).
                    Some(_) => return Ok::<_, Broken>(trimmed(line)),
                }
            }
        })
        .await;
        let answer = self.settle(outcome.ok(), "INFO and ABOUT", start).await?;
        if !is_refusal(&answer) {
            self.quirks.about_line = Some(answer);
        } else {
            self.quirks.about_may_follow = !answers_about;
        }
        Ok(())
    }

    /// Reads what the engine still prints after an exchange that ended on a refusal (see
    /// `unsettled`), up to its answer to an `ABOUT` sent now: every line before it is late,
    /// logged and never taken as an answer. Without a known `ABOUT` answer to wait for the
    /// engine is killed when `or_kill` (a new process is the only clean slate), else left as it
    /// is; with no answer within `deadline` it is killed and the error returned.
    pub(super) async fn drain(
        &mut self,
        deadline: Duration,
        or_kill: bool,
    ) -> Result<(), EngineError> {
        let Some(what) = self.quirks.unsettled.take() else {
            return Ok(());
        };
        if self.dead.is_some() {
            return Ok(());
        }
        let Some(marker) = self.quirks.about_line.clone() else {
            if or_kill {
                self.kill(&format!(
                    "what it prints after {what} cannot be told from its answers"
                ));
            } else {
                self.quirks.unsettled = Some(what);
            }
            return Ok(());
        };
        let start = Instant::now();
        let outcome = timeout_at(deadline_at(start, deadline), async {
            self.send(&Command::About).await?;
            loop {
                let line = self.read_line().await?;
                let line = line.trim();
                if line == marker {
                    return Ok::<_, Broken>(());
                }
                if !line.is_empty() {
                    let why = format!("late line after {what}, ignored");
                    self.noise(parse_engine_line(line).as_ref(), line, &why);
                }
            }
        })
        .await;
        self.settle(outcome.ok(), &format!("ABOUT (after {what})"), start)
            .await
    }

    /// Sends a command and waits for `OK`; ERROR or UNKNOWN give `StartFailed` with the line.
    /// `then` goes out in the same write as `command`, to be answered after it.
    async fn handshake(
        &mut self,
        command: Command,
        then: &[Command],
        deadline: Duration,
    ) -> Result<(), EngineError> {
        let start = Instant::now();
        let outcome = timeout_at(deadline_at(start, deadline), async {
            let mut bytes = command.encode();
            for c in then {
                c.encode_into(&mut bytes);
            }
            self.send_bytes(&bytes).await?;
            loop {
                let line = self.read_line().await?;
                match parse_engine_line(&line) {
                    Some(EngineLine::Ok) => return Ok(()),
                    Some(EngineLine::Error(_)) | Some(EngineLine::Unknown(_)) => {
                        return Err(Broken::Error(EngineError::StartFailed {
                            text: cut_text(trimmed(line), QUOTED_ANSWER_CHARS),
                        }))
                    }
                    Some(EngineLine::Message(text)) => self.keep_message(text),
                    // Banners and stray output before OK are tolerated (and logged).
                    _ => {}
                }
            }
        })
        .await;
        match outcome {
            Ok(Ok(())) => Ok(()),
            // Described only when it failed: this runs before every game.
            other => {
                let what = command.lines().join(" ");
                self.settle(other.ok(), &what, start).await
            }
        }
    }
}
