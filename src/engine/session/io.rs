//! The session's side of the process: writing commands and reading lines under the engine's
//! exit, turning a broken pipe or a missed deadline into an [`EngineError`], and ending,
//! killing, suspending or restarting the process.

use std::process::ExitStatus;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::time::{timeout, timeout_at, Instant};

use crate::engine::process::{describe_status, EngineProcess, LineReader};
use crate::engine::protocol::{Command, EOL};
use crate::engine::session::EngineSession;
use crate::engine::{Direction, EngineError};

/// After the engine's output ends, how long to wait for its exit status (for the report only).
const EXIT_STATUS_WAIT: Duration = Duration::from_secs(1);

/// After the engine process exits while its output pipe stays open (a child inherited it), how
/// long to keep reading what it wrote before its death.
const EXIT_DRAIN: Duration = Duration::from_millis(100);

/// Why a read or write could not go on; turned into an [`EngineError`] outside the deadline so
/// that collecting the exit status is not mistaken for slowness.
pub(super) enum Broken {
    /// End of output or a broken pipe.
    Closed,
    /// The engine process exited (its output may still be held open by a child).
    Exited(ExitStatus),
    Error(EngineError),
}

impl From<EngineError> for Broken {
    fn from(e: EngineError) -> Self {
        Broken::Error(e)
    }
}

impl EngineSession {
    /// Kills the engine's process group now (e.g. after a time loss) and ends the conversation.
    pub fn kill(&mut self, why: &str) {
        if let Some(p) = &mut self.process {
            p.kill_group();
        }
        if self.dead.is_none() {
            self.note(format!("killed: {why}"));
            self.dead = Some(format!("killed: {why}"));
        }
    }

    /// Ends the engine: END, up to the grace period to exit, then SIGKILL to its whole process
    /// group. Returns the exit status, if known ("exit status 0", "killed by signal 9 (SIGKILL)").
    pub async fn shutdown(mut self) -> Option<String> {
        self.end_process().await
    }

    /// `-suspend`: stop the engine's processes while it is not on move (its pondering or
    /// background threads take no CPU from the opponent). Every command to it continues them
    /// first; a stopped engine's clock does not run, since moves are timed from their request.
    pub fn suspend(&mut self) {
        if let (Some(p), None) = (&self.process, &self.dead) {
            p.signal_group(true);
            self.suspended = true;
        }
    }

    /// Continue a suspended engine (before anything is sent to it).
    fn wake(&mut self) {
        if std::mem::take(&mut self.suspended) {
            if let Some(p) = &self.process {
                p.signal_group(false);
            }
        }
    }

    /// Ends the current process and starts a new one from the spec.
    pub async fn respawn(&mut self) -> Result<(), EngineError> {
        if self.process.is_none() {
            return Err(EngineError::Protocol {
                text: format!("cannot restart '{}': the session has no process", self.name),
            });
        }
        self.end_process().await;
        self.meter.put_back(None);
        let spawned = EngineProcess::spawn(&self.spec, self.slot, &self.name, &self.log).await?;
        self.reader = LineReader::new(Box::new(spawned.stdout));
        self.writer = Box::new(spawned.stdin);
        self.process = Some(spawned.process);
        self.exited = None;
        self.started = None;
        self.dead = None;
        Ok(())
    }

    /// END (unless the engine is already dead), then the grace period counted from sending it,
    /// then SIGKILL to the group; returns the described exit status.
    async fn end_process(&mut self) -> Option<String> {
        let status = self.end_leader().await;
        // Always, so that whatever the engine left running dies with it.
        if let Some(p) = &mut self.process {
            p.kill_group();
        }
        status
    }

    /// The first half of [`shutdown`](Self::shutdown): END (unless the engine is already dead)
    /// and up to the grace period for the engine to exit, its group SIGKILLed only if it does
    /// not. What an engine that did exit left running is still there, for `check` to find;
    /// [`kill`](Self::kill) or dropping the session kills the group afterwards. Returns the
    /// described exit status, as `shutdown` does.
    pub async fn end_leader(&mut self) -> Option<String> {
        self.wake();
        let grace_end = deadline_at(Instant::now(), self.grace);
        if self.dead.is_none() {
            // Best effort: the engine may be gone or not reading its input.
            let _ = timeout_at(grace_end, self.send(&Command::End)).await;
        }
        self.dead.get_or_insert_with(|| "ended".to_string());
        let Some(p) = &mut self.process else {
            let _ = self.writer.shutdown().await;
            return None;
        };
        let status = match self.exited {
            Some(s) => Some(s),
            None => {
                let left = grace_end.saturating_duration_since(Instant::now());
                p.exit_or_kill(left).await
            }
        };
        self.exited = self.exited.or(status);
        let status = status.map(describe_status);
        if let Some(s) = &status {
            self.note(format!("ended: {s}"));
        }
        status
    }

    /// Turns the outcome of a deadline-bounded exchange into the caller's result: a timeout kills
    /// the engine; a closed pipe or exit becomes `Crashed` with the exit status.
    pub(super) async fn settle<T>(
        &mut self,
        outcome: Option<Result<T, Broken>>,
        what: &str,
        start: Instant,
    ) -> Result<T, EngineError> {
        match outcome {
            Some(Ok(value)) => Ok(value),
            Some(Err(broken)) => Err(self.broken(broken).await),
            None => {
                let elapsed = start.elapsed();
                self.kill(&format!(
                    "no answer to {what} within {:.3} s",
                    elapsed.as_secs_f64()
                ));
                Err(EngineError::Timeout {
                    what: what.to_string(),
                    elapsed,
                    said: self.chatter.take_refusal(),
                })
            }
        }
    }

    async fn broken(&mut self, broken: Broken) -> EngineError {
        let status = match broken {
            Broken::Error(e) => {
                if matches!(e, EngineError::Io(_) | EngineError::MemoryLimit { .. }) {
                    self.kill(&e.to_string());
                }
                return e;
            }
            Broken::Exited(status) => describe_status(status),
            Broken::Closed => match &mut self.process {
                Some(p) => match p.wait_exit(EXIT_STATUS_WAIT).await {
                    Some(status) => describe_status(status),
                    None => "closed its output but kept running".to_string(),
                },
                None => "connection closed".to_string(),
            },
        };
        // Whatever the engine left running goes with it.
        if let Some(p) = &mut self.process {
            p.kill_group();
        }
        self.note(format!("crashed: {status}"));
        self.dead = Some(status.clone());
        EngineError::Crashed { status }
    }

    pub(super) fn check_alive(&self) -> Result<(), EngineError> {
        match &self.dead {
            None => Ok(()),
            Some(why) => Err(EngineError::Crashed {
                status: format!("engine is no longer running ({why})"),
            }),
        }
    }

    pub(super) async fn send(&mut self, command: &Command) -> Result<(), Broken> {
        self.send_all(std::slice::from_ref(command)).await
    }

    /// Sends several commands with a single write, so the engine wakes up once for all of them
    /// (`INFO time_left` and the move request, the INFO block): a separate write per line can
    /// cost the engine a wake-up each, and per move the runner's cost is mostly such wake-ups.
    pub(super) async fn send_all(&mut self, commands: &[Command]) -> Result<(), Broken> {
        let mut bytes = String::with_capacity(64);
        for command in commands {
            command.encode_into(&mut bytes);
        }
        self.send_bytes(&bytes).await
    }

    /// Writes encoded commands (lines ended by CR LF), logging each line when a protocol log
    /// is kept: the lines are split out again only then, so the hot path allocates nothing.
    pub(super) async fn send_bytes(&mut self, bytes: &str) -> Result<(), Broken> {
        self.wake();
        if self.log.is_enabled() {
            for line in bytes.split_terminator(EOL) {
                self.log
                    .emit(self.slot, &self.name, Direction::ToEngine, line);
            }
        }
        let written = async {
            self.writer.write_all(bytes.as_bytes()).await?;
            self.writer.flush().await
        }
        .await;
        match written {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(match self.exited {
                Some(s) => Broken::Exited(s),
                None => Broken::Closed,
            }),
            Err(e) => Err(Broken::Error(EngineError::Io(e))),
        }
    }

    /// The next non-empty line from the engine, logged. Watches the process too: if it exits
    /// while a child keeps the pipe open, what it wrote is still read, then it counts as dead.
    pub(super) async fn read_line(&mut self) -> Result<String, Broken> {
        loop {
            let read = if let Some(status) = self.exited {
                match timeout(EXIT_DRAIN, self.reader.next_line()).await {
                    Ok(read) => read,
                    Err(_) => return Err(Broken::Exited(status)),
                }
            } else {
                let process = &mut self.process;
                tokio::select! {
                    biased;
                    read = self.reader.next_line() => read,
                    status = wait_leader(process) => {
                        self.exited = Some(status);
                        continue;
                    }
                }
            };
            match read {
                Ok(Some(line)) => {
                    self.log
                        .emit(self.slot, &self.name, Direction::FromEngine, line.as_str());
                    return Ok(line);
                }
                Ok(None) => {
                    return Err(match self.exited {
                        Some(s) => Broken::Exited(s),
                        None => Broken::Closed,
                    })
                }
                Err(e) => return Err(Broken::Error(EngineError::Io(e))),
            }
        }
    }
}

/// Resolves when the engine process exits; never for in-process transports (or if waiting
/// fails, in which case the pipe's end of file still tells us).
async fn wait_leader(process: &mut Option<EngineProcess>) -> ExitStatus {
    if let Some(p) = process {
        if let Ok(status) = p.wait().await {
            return status;
        }
    }
    std::future::pending().await
}

/// `start + after`, saturating far in the future so `Duration::MAX` means "no deadline".
pub(super) fn deadline_at(start: Instant, after: Duration) -> Instant {
    start
        .checked_add(after)
        .unwrap_or_else(|| start + Duration::from_secs(100 * 365 * 86_400))
}

/// `line` without the whitespace around it, keeping its allocation when there is none to take
/// off (a move's answer, every move).
pub(super) fn trimmed(line: String) -> String {
    let t = line.trim();
    if t.len() == line.len() {
        line
    } else {
        t.to_string()
    }
}
