//! One engine child process: spawned in its own process group with piped stdio, its stderr
//! drained into the log, and the whole group killed when we are done with it or dropped, so no
//! engine (nor anything it started) outlives the runner.

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::Once;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::net::unix::pipe;

use crate::engine::spawn::{self, Child, SpawnRequest};

use crate::engine::spec::EngineSpec;
use crate::engine::{Direction, EngineError, LogSink};

/// Longest line kept from an engine. The protocol allows the manager to cut very long lines;
/// the cap bounds memory against an engine that prints without ever ending a line.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Read buffer of each engine pipe. Engine lines are short (a move, a MESSAGE), and a run keeps
/// two pipes per engine for every game slot: 1 KiB instead of tokio's 8 KiB keeps the runner at
/// about 20 KiB a slot (see docs/design/BENCHMARKS.md); longer lines only take more reads.
const PIPE_BUFFER_BYTES: usize = 1024;

/// Read buffer of an engine's stderr drain: stderr is only logged, never waited on, so small
/// reads cost nothing that matters, while 1024 slots keep 2,048 of these buffers.
const STDERR_BUFFER_BYTES: usize = 256;

/// After SIGKILL, how long to wait for the kernel to let us reap the leader.
const REAP_WAIT: Duration = Duration::from_secs(2);

/// Reads lines ended by CR LF, LF or CR, skipping empty ones, without ever holding more than
/// `max` bytes of one line (the excess is discarded up to the line end).
///
/// Cancel-safe: a partial line survives a cancelled `next_line` (e.g. under `timeout`), because
/// bytes move from the buffer into `self` without an await in between.
pub struct LineReader<R> {
    inner: BufReader<R>,
    line: Vec<u8>,
    truncated: bool,
    max: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(inner: R) -> Self {
        Self::with_limit(inner, MAX_LINE_BYTES)
    }

    pub fn with_limit(inner: R, max: usize) -> Self {
        Self::with_buffer(inner, max, PIPE_BUFFER_BYTES)
    }

    /// A reader whose pipe reads go through a buffer of `buffer` bytes.
    pub fn with_buffer(inner: R, max: usize, buffer: usize) -> Self {
        LineReader {
            inner: BufReader::with_capacity(buffer, inner),
            line: Vec::new(),
            truncated: false,
            max: max.max(1),
        }
    }

    /// The next non-empty line without its end (invalid UTF-8 replaced), or `None` at end of
    /// input. A final line without a line end is returned too.
    pub async fn next_line(&mut self) -> io::Result<Option<String>> {
        loop {
            let available = match self.inner.fill_buf().await {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Ok(self.has_partial().then(|| self.take_line()));
            }
            match available.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(end) => {
                    let (line, max) = (&mut self.line, self.max);
                    self.truncated |= append_capped(line, &available[..end], max);
                    self.inner.consume(end + 1);
                    // CR LF yields an empty segment between CR and LF: skip it.
                    if self.has_partial() {
                        return Ok(Some(self.take_line()));
                    }
                }
                None => {
                    let n = available.len();
                    let (line, max) = (&mut self.line, self.max);
                    self.truncated |= append_capped(line, available, max);
                    self.inner.consume(n);
                }
            }
        }
    }

    fn has_partial(&self) -> bool {
        !self.line.is_empty() || self.truncated
    }

    fn take_line(&mut self) -> String {
        self.truncated = false;
        match String::from_utf8(std::mem::take(&mut self.line)) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }
    }
}

/// Appends as much of `data` as fits under `max`; true when something was dropped.
fn append_capped(line: &mut Vec<u8>, data: &[u8], max: usize) -> bool {
    let room = max.saturating_sub(line.len());
    let take = room.min(data.len());
    line.extend_from_slice(&data[..take]);
    take < data.len()
}

/// Human-readable exit status: "exit status 3", "killed by signal 9 (SIGKILL)".
pub fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    if let Some(sig) = status.signal() {
        let name = signal_name(sig)
            .map(|n| format!(" ({n})"))
            .unwrap_or_default();
        let core = if status.core_dumped() {
            ", core dumped"
        } else {
            ""
        };
        return format!("killed by signal {sig}{name}{core}");
    }
    format!("{status}")
}

fn signal_name(sig: i32) -> Option<&'static str> {
    Some(match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        _ => return None,
    })
}

/// Makes sure writing to a dead engine's pipe is an `EPIPE` error instead of a fatal signal.
/// Rust binaries already ignore SIGPIPE, but this library may be embedded in a program that
/// restored the default, and the predecessor died exactly this way. Children get the default
/// disposition back from our spawn, so engines are unaffected.
fn ignore_sigpipe() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: querying and setting a signal disposition; no handler code is installed.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGPIPE, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_DFL
            {
                libc::signal(libc::SIGPIPE, libc::SIG_IGN);
            }
        }
    });
}

/// A running engine process (the leader of its own process group).
#[derive(Debug)]
pub struct EngineProcess {
    child: Child,
    pgid: i32,
    /// Set once SIGKILL went to the group, so Drop does not signal a possibly reused id.
    group_killed: bool,
}

/// A freshly spawned engine with the two protocol pipes handed to the caller.
#[derive(Debug)]
pub struct Spawned {
    pub process: EngineProcess,
    pub stdin: pipe::Sender,
    pub stdout: pipe::Receiver,
}

impl EngineProcess {
    /// Starts the engine of `spec` (see [`EngineSpec::program_and_args`]) in a new process group.
    /// Its stderr lines go to `log` as [`Direction::Stderr`] under `name`. Must be called inside
    /// a tokio runtime.
    pub async fn spawn(
        spec: &EngineSpec,
        slot: usize,
        name: &str,
        log: &LogSink,
    ) -> Result<Spawned, EngineError> {
        ignore_sigpipe();
        let (program, args, cwd) =
            spec.program_and_args()
                .map_err(|source| EngineError::BadCommand {
                    cmd: spec.cmd.clone(),
                    source,
                })?;
        let started = spawn::spawn(&SpawnRequest {
            program: &program,
            args: &args,
            cwd: cwd.as_deref(),
            cpus: &spec.cpus,
        })
        .await
        .map_err(|source| EngineError::SpawnFailed {
            cmd: spec.cmd.clone(),
            source,
        })?;
        let child = started.child;
        let pid = child.started_pid();
        // Its own group (made by the child before its exec): killpg then reaches everything the
        // engine started, and a Ctrl-C in the terminal is handled by the runner instead of
        // hitting engines directly.
        let pgid = pid as i32;
        let pipes = (|| {
            Ok::<_, io::Error>((
                pipe::Sender::from_owned_fd(started.stdin)?,
                pipe::Receiver::from_owned_fd(started.stdout)?,
                pipe::Receiver::from_owned_fd(started.stderr)?,
            ))
        })();
        let (stdin, stdout, stderr) = pipes.map_err(|source| {
            // SAFETY: signalling the group just created; the child handle reaps the leader.
            unsafe { libc::killpg(pgid, libc::SIGKILL) };
            EngineError::SpawnFailed {
                cmd: spec.cmd.clone(),
                source,
            }
        })?;
        log.emit(
            slot,
            name,
            Direction::Note,
            format!("started pid {pid}: {}", spec.cmd),
        );
        let (log, name) = (log.clone(), name.to_string());
        // The drain ends at EOF, i.e. once every process holding the pipe is gone.
        tokio::spawn(async move {
            let mut lines = LineReader::with_buffer(stderr, MAX_LINE_BYTES, STDERR_BUFFER_BYTES);
            while let Ok(Some(line)) = lines.next_line().await {
                log.emit(slot, &name, Direction::Stderr, line);
            }
        });
        Ok(Spawned {
            process: EngineProcess {
                child,
                pgid,
                group_killed: false,
            },
            stdin,
            stdout,
        })
    }

    /// The leader's pid, until it has been reaped.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// The process group id (the leader's pid at spawn).
    pub fn pgid(&self) -> i32 {
        self.pgid
    }

    /// Waits for the leader to exit. Cancel-safe; returns at once once it has exited.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        self.child.wait().await
    }

    /// The exit status if the leader exits within `within`.
    pub async fn wait_exit(&mut self, within: Duration) -> Option<ExitStatus> {
        match tokio::time::timeout(within, self.child.wait()).await {
            Ok(Ok(status)) => Some(status),
            _ => None,
        }
    }

    /// Stops (SIGSTOP) or continues (SIGCONT) every process of the group: `-suspend` keeps an
    /// engine that is not on move from taking CPU. No-op once the group was killed.
    pub fn signal_group(&self, stop: bool) {
        if self.group_killed {
            return;
        }
        let sig = if stop { libc::SIGSTOP } else { libc::SIGCONT };
        // SAFETY: kill(2) on our own engine's process group.
        unsafe { libc::killpg(self.pgid, sig) };
    }

    /// Sends SIGKILL to the whole group (no-op for a group already gone). Does not wait.
    pub fn kill_group(&mut self) {
        // SAFETY: signalling a process group we created; ESRCH (already gone) is harmless.
        unsafe { libc::killpg(self.pgid, libc::SIGKILL) };
        // In case the leader moved itself to another group.
        let _ = self.child.start_kill();
        self.group_killed = true;
    }

    /// After END was sent: gives the leader `grace` to exit, else SIGKILLs the whole group;
    /// returns the leader's exit status if it could be reaped. A leader that exited in time
    /// leaves the rest of its group as it is: `check` looks at what it left running before the
    /// group is killed.
    pub async fn exit_or_kill(&mut self, grace: Duration) -> Option<ExitStatus> {
        match self.wait_exit(grace).await {
            Some(status) => Some(status),
            None => {
                self.kill_group();
                self.wait_exit(REAP_WAIT).await
            }
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if !self.group_killed {
            // SAFETY: see kill_group. The child handle then reaps the leader in background.
            unsafe { libc::killpg(self.pgid, libc::SIGKILL) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    async fn lines_of(input: &[u8], max: usize) -> Vec<String> {
        let mut reader = LineReader::with_limit(input, max);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().await.unwrap() {
            out.push(line);
        }
        out
    }

    #[tokio::test]
    async fn splits_on_every_line_end_and_skips_empty_lines() {
        let got = lines_of(b"a\r\nb\nc\rd\r\n\r\n\n\re", 100).await;
        assert_eq!(got, vec!["a", "b", "c", "d", "e"]);
        assert_eq!(lines_of(b"", 100).await, Vec::<String>::new());
        assert_eq!(lines_of(b"\r\n\r\n", 100).await, Vec::<String>::new());
        assert_eq!(lines_of(b"  \r\n", 100).await, vec!["  "]);
    }

    #[tokio::test]
    async fn long_lines_are_cut_and_the_rest_discarded() {
        let mut input = vec![b'x'; 50];
        input.extend_from_slice(b"\r\n7,7\r\n");
        assert_eq!(
            lines_of(&input, 10).await,
            vec!["x".repeat(10), "7,7".into()]
        );
        // Exactly at the limit nothing is lost.
        assert_eq!(lines_of(b"0123456789\n", 10).await, vec!["0123456789"]);
    }

    #[tokio::test]
    async fn invalid_utf8_is_replaced_not_fatal() {
        assert_eq!(lines_of(b"ab\xffc\n", 100).await, vec!["ab\u{fffd}c"]);
    }

    #[tokio::test]
    async fn partial_lines_survive_cancellation() {
        let (mut tx, rx) = tokio::io::duplex(64);
        let mut reader = LineReader::new(rx);
        tx.write_all(b"12,").await.unwrap();
        let first = tokio::time::timeout(Duration::from_millis(20), reader.next_line()).await;
        assert!(first.is_err(), "no line yet");
        tx.write_all(b"13\r\n").await.unwrap();
        assert_eq!(reader.next_line().await.unwrap().as_deref(), Some("12,13"));
        drop(tx);
        assert_eq!(reader.next_line().await.unwrap(), None);
    }

    #[test]
    fn statuses_are_described() {
        assert_eq!(
            describe_status(ExitStatus::from_raw(3 << 8)),
            "exit status 3"
        );
        assert_eq!(describe_status(ExitStatus::from_raw(0)), "exit status 0");
        assert_eq!(
            describe_status(ExitStatus::from_raw(9)),
            "killed by signal 9 (SIGKILL)"
        );
        assert_eq!(
            describe_status(ExitStatus::from_raw(11 | 0x80)),
            "killed by signal 11 (SIGSEGV), core dumped"
        );
        assert_eq!(
            describe_status(ExitStatus::from_raw(60)),
            "killed by signal 60"
        );
    }
}
