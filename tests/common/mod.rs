//! Helpers for the end-to-end tests: locate the built binaries, run the runner with a unique tag in
//! its environment, and find any process that still carries the tag (a leaked engine).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The directory holding the workspace's binaries (same profile as the test).
pub fn bin_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_gomoku-cli"))
        .parent()
        .expect("binary dir")
        .to_path_buf()
}

pub fn runner() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_gomoku-cli"))
}

/// Path of an example engine; the README's test command builds them first.
pub fn engine(name: &str) -> String {
    let p = bin_dir().join(name);
    assert!(
        p.exists(),
        "{} is missing: build the workspace first (cargo build --workspace --bins)",
        p.display()
    );
    p.to_string_lossy().into_owned()
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A tag unique to one runner invocation, inherited by every process it starts.
pub fn unique_tag() -> String {
    format!(
        "gctest-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    )
}

pub const TAG_VAR: &str = "GOMOKU_CLI_TEST_TAG";

/// Processes (pid, cmdline) whose environment carries `tag`.
pub fn tagged_processes(tag: &str) -> Vec<(u32, String)> {
    let needle = format!("{TAG_VAR}={tag}");
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let Ok(env) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if env.split(|&b| b == 0).any(|kv| kv == needle.as_bytes()) {
            // Zombies are already dead; only count live processes.
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            let state = stat
                .rsplit_once(") ")
                .and_then(|(_, rest)| rest.chars().next());
            if state == Some('Z') {
                continue;
            }
            let cmd = std::fs::read(entry.path().join("cmdline"))
                .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
                .unwrap_or_default();
            out.push((pid, cmd));
        }
    }
    out
}

/// Wait up to `within` for every tagged process to disappear; return the survivors.
pub fn survivors_after(tag: &str, within: Duration) -> Vec<(u32, String)> {
    let start = Instant::now();
    loop {
        let left = tagged_processes(tag);
        if left.is_empty() || start.elapsed() > within {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Kill leftovers so one failing test does not leak into the machine.
pub fn kill_tagged(tag: &str) {
    for (pid, _) in tagged_processes(tag) {
        let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
    }
}

pub struct Run {
    pub output: Output,
    pub stdout: String,
    pub stderr: String,
    pub tag: String,
}

impl Run {
    pub fn code(&self) -> Option<i32> {
        self.output.status.code()
    }
    pub fn lines_starting(&self, prefix: &str) -> Vec<&str> {
        self.stdout
            .lines()
            .filter(|l| l.starts_with(prefix))
            .collect()
    }
}

/// Borrowed views of owned arguments, for `run_in` and `spawn_tagged`.
pub fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// Run the runner to completion in `dir` and check no engine survives it.
pub fn run_in(dir: &Path, args: &[&str]) -> Run {
    let tag = unique_tag();
    let output = Command::new(runner())
        .args(args)
        .current_dir(dir)
        .env(TAG_VAR, &tag)
        .stdin(Stdio::null())
        .output()
        .expect("runner starts");
    let left = survivors_after(&tag, Duration::from_secs(3));
    kill_tagged(&tag);
    assert!(
        left.is_empty(),
        "engine processes outlived the runner: {left:?}"
    );
    Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        output,
        tag,
    }
}

/// A runner started in the background with a unique tag, for tests that signal it.
pub struct Tagged {
    pub child: std::process::Child,
    pub tag: String,
}

/// Start the runner in `dir` without waiting for it.
pub fn spawn_tagged(dir: &Path, args: &[&str]) -> Tagged {
    let tag = unique_tag();
    let child = Command::new(runner())
        .args(args)
        .current_dir(dir)
        .env(TAG_VAR, &tag)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runner starts");
    Tagged { child, tag }
}

impl Tagged {
    pub fn signal(&self, sig: i32) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.child.id() as i32, sig) };
    }

    /// Wait for the exit, then check that no engine (nor anything it started) survives.
    pub fn finish(self) -> Output {
        let out = self.child.wait_with_output().expect("runner exits");
        let left = survivors_after(&self.tag, Duration::from_secs(3));
        kill_tagged(&self.tag);
        assert!(
            left.is_empty(),
            "engine processes outlived the runner: {left:?}"
        );
        out
    }
}

/// Poll `cond` every 20 ms for at most `within`.
pub fn wait_until(within: Duration, cond: impl Fn() -> bool) {
    let start = Instant::now();
    while !cond() && start.elapsed() < within {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The game entries of a journal file (its header line left out); empty when it is missing.
/// Tests poll journals of running matches: a last line without its line end is being written
/// (or was cut by a kill) and is left out, as the journal's own readers skip a torn last line;
/// every complete line must be JSON.
pub fn journal_games(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("journal line is JSON"))
        .filter(|v| v["type"] != "header")
        .collect()
}

/// `../shared/testdata/renlib` (the RenLib samples and their `samples_summary.json`), or `None`
/// after saying so when it is absent; under `CI=true` its absence fails the test.
pub fn renlib_testdata() -> Option<PathBuf> {
    let dir = repo_root().join("../shared/testdata/renlib");
    if dir.join("samples_summary.json").is_file() {
        return Some(dir);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("RenLib test data missing at {}", dir.display());
    }
    println!("skipping: RenLib test data not found at {}", dir.display());
    None
}

/// A file of `../shared/testdata` (`rel` inside it), or `None` after saying so when it is absent;
/// under `CI=true` its absence fails the test.
pub fn shared_testdata_file(rel: &str) -> Option<PathBuf> {
    let path = repo_root().join("../shared/testdata").join(rel);
    if path.is_file() {
        return Some(path);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("test data missing at {}", path.display());
    }
    println!("skipping: test data not found at {}", path.display());
    None
}

/// The bundled `scout` against `random` in colour-swapped pairs at concurrency 2, with the
/// repository's `openings` file (pos notation), quiet, then `extra` (rule, games, outputs).
pub fn scout_vs_random(openings: &str, extra: &[&str]) -> Vec<String> {
    let file = repo_root().join("openings").join(openings);
    let mut a: Vec<String> = vec![
        "-engine".into(),
        format!("cmd={}", engine("pbrain-scout")),
        "name=scout".into(),
        "-engine".into(),
        format!("cmd={}", engine("pbrain-random")),
        "name=random".into(),
        "-each".into(),
        "tc=5/0.5".into(),
        "-repeat".into(),
        "-concurrency".into(),
        "2".into(),
        "-openings".into(),
        format!("file={}", file.display()),
        "type=pos".into(),
        "-noprogress".into(),
        "-quiet".into(),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// The runner under `ulimit` settings (bash's `ulimit`, then exec) in `dir`, without standard input.
pub fn run_with_ulimit(dir: &std::path::Path, ulimit: &str, args: &[&str]) -> std::process::Output {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "{ulimit} && exec '{}' {}",
            runner().display(),
            quoted.join(" ")
        ))
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}
