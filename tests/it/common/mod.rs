//! Helpers for the end-to-end tests: locate the built binaries, run the runner with a unique tag in
//! its environment, and find any process that still carries the tag (a leaked engine).

#![allow(dead_code)]

use std::fmt::Display;
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

/// Held by a test that measures the CPU time an engine gets (`-suspend`'s control needs its
/// burner to spin through the other engine's thinking) and by the tests that keep both CPUs busy
/// for seconds (engines searching or flooding output) which the run order puts beside it. One
/// test binary runs them side by side: the burner got 910 ms of 4324 beside `e2e_search`'s.
pub fn cpu_share_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    // A test that failed holding it poisons it; the next test's measure is still sound.
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A finished runner: its exit, its output as text, and where it ran.
pub struct Run {
    pub output: Output,
    pub stdout: String,
    pub stderr: String,
    pub tag: String,
    /// The arguments it was given, for the messages of failed checks.
    pub args: Vec<String>,
    /// The directory it ran in, where its relative output paths are.
    pub dir: PathBuf,
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
    /// Checks the exit code; a failure shows the command line, standard output and error.
    pub fn assert_exit(&self, code: i32) -> &Self {
        assert_eq!(
            self.code(),
            Some(code),
            "gomoku-cli {:?}\nstdout: {}\nstderr: {}",
            self.args,
            self.stdout,
            self.stderr
        );
        self
    }
    /// Checks that the run exited with 0.
    pub fn assert_success(&self) -> &Self {
        self.assert_exit(0)
    }
    /// Checks that standard error holds `needle`, showing it when it does not.
    pub fn assert_stderr_has(&self, needle: &str) -> &Self {
        assert!(
            self.stderr.contains(needle),
            "{needle:?} not in stderr of {:?}: {}",
            self.args,
            self.stderr
        );
        self
    }
    /// Checks that standard output holds `needle`, showing it when it does not.
    pub fn assert_stdout_has(&self, needle: &str) -> &Self {
        assert!(
            self.stdout.contains(needle),
            "{needle:?} not in stdout of {:?}: {}",
            self.args,
            self.stdout
        );
        self
    }
    /// The game entries of the journal `name` in the run's directory (see [`journal_games`]).
    pub fn journal(&self, name: &str) -> Vec<serde_json::Value> {
        journal_games(&self.dir.join(name))
    }
}

/// Borrowed views of owned arguments, for `run_in` and `spawn_tagged`.
pub fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// Run the runner to completion in `dir` and check no engine survives it.
pub fn run_in(dir: &Path, args: &[&str]) -> Run {
    run_in_env(dir, args, &[], Duration::from_secs(3))
}

/// [`run_in`] with variables added to the runner's environment, and no engine process allowed
/// past `grace` after it exits.
pub fn run_in_env(dir: &Path, args: &[&str], env: &[(&str, &Path)], grace: Duration) -> Run {
    let tag = unique_tag();
    let output = Command::new(runner())
        .args(args)
        .current_dir(dir)
        .env(TAG_VAR, &tag)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("runner starts");
    let left = survivors_after(&tag, grace);
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
        args: args.iter().map(|a| a.to_string()).collect(),
        dir: dir.to_path_buf(),
    }
}

/// Methods of [`Match`] adding an option and its value: `name => "-option"`.
macro_rules! valued {
    ($($name:ident => $option:literal,)*) => {
        $(
            #[doc = concat!("`", $option, " VALUE`")]
            pub fn $name(self, value: impl Display) -> Self {
                self.opt($option, value)
            }
        )*
    };
}

/// Methods of [`Match`] adding an option without a value: `name => "-option"`.
macro_rules! flags {
    ($($name:ident => $option:literal,)*) => {
        $(
            #[doc = concat!("`", $option, "`")]
            pub fn $name(self) -> Self {
                self.arg($option)
            }
        )*
    };
}

/// A gomoku-cli command line, its arguments in the order of the calls that add them (so a test
/// says exactly what reaches the binary), and the ways to run it.
#[derive(Clone, Debug, Default)]
pub struct Match {
    args: Vec<String>,
}

impl Match {
    /// An empty command line: a match, with engines and options to add.
    pub fn new() -> Self {
        Self::default()
    }
    /// A command line opening with the subcommand (or other words) `words`: `check`, `export`….
    pub fn command(words: &[&str]) -> Self {
        Self::new().args(words)
    }
    /// `-engine cmd=PATH [FLAGS]` then `opts` (`name=A`, `tc=0/5`…), where `spec` is a bundled
    /// engine's name and its flags: `"pbrain-faulty --crash-at 3"`.
    pub fn engine(self, spec: &str, opts: &[&str]) -> Self {
        let (name, flags) = spec.split_once(' ').unwrap_or((spec, ""));
        let path = engine(name);
        let cmd = if flags.is_empty() {
            path
        } else {
            format!("{path} {flags}")
        };
        self.engine_cmd(&cmd, opts)
    }
    /// `-engine cmd=CMD` then `opts`, for a command that is not a bundled engine.
    pub fn engine_cmd(self, cmd: &str, opts: &[&str]) -> Self {
        self.arg("-engine").arg(&format!("cmd={cmd}")).args(opts)
    }
    /// One engine `spec` (see [`Match::engine`]) under each of `names`.
    pub fn engines(self, spec: &str, names: &[&str]) -> Self {
        names
            .iter()
            .fold(self, |m, n| m.engine(spec, &[&format!("name={n}")]))
    }
    /// `-each` with its options.
    pub fn each(self, opts: &[&str]) -> Self {
        self.arg("-each").args(opts)
    }
    valued! {
        rule => "-rule",
        boardsize => "-boardsize",
        games => "-games",
        rounds => "-rounds",
        concurrency => "-concurrency",
    }
    flags! {
        repeat => "-repeat",
        quiet => "-quiet",
        noprogress => "-noprogress",
        resume => "-resume",
    }
    /// `-openings` with its options as given.
    pub fn openings(self, opts: &[&str]) -> Self {
        self.arg("-openings").args(opts)
    }
    /// `-openings file=PATH` then `opts` (`type=pos`, `order=random`…).
    pub fn openings_file(self, path: impl AsRef<Path>, opts: &[&str]) -> Self {
        let file = format!("file={}", path.as_ref().display());
        self.openings(&[&file]).args(opts)
    }
    valued! {
        journal => "-journal",
        pgn => "-pgn",
        sgf => "-sgf",
        msg => "-msg",
        psq => "-psq",
        renlib => "-renlib",
        report => "-report",
    }
    /// `-sample` with its options (`format=csv`, `file=out.csv`…).
    pub fn samples(self, opts: &[&str]) -> Self {
        self.arg("-sample").args(opts)
    }
    /// An option and its value.
    pub fn opt(self, name: &str, value: impl Display) -> Self {
        self.arg(name).arg(&value.to_string())
    }
    /// One raw argument.
    pub fn arg(mut self, a: &str) -> Self {
        self.args.push(a.to_string());
        self
    }
    /// Raw arguments, in order.
    pub fn args(mut self, more: &[&str]) -> Self {
        self.args.extend(more.iter().map(|a| a.to_string()));
        self
    }
    /// The command line's arguments.
    pub fn to_args(&self) -> Vec<String> {
        self.args.clone()
    }
    /// Run it to completion in `dir` (see [`run_in`]).
    pub fn run_in(&self, dir: &Path) -> Run {
        run_in(dir, &strs(&self.args))
    }
    /// Run it to completion in `dir` with `env` added (see [`run_in_env`]).
    pub fn run_in_env(&self, dir: &Path, env: &[(&str, &Path)], grace: Duration) -> Run {
        run_in_env(dir, &strs(&self.args), env, grace)
    }
    /// Run it to completion in the test's own working directory (cargo's: the package root).
    pub fn run_here(&self) -> Run {
        run_in(
            &std::env::current_dir().expect("a working directory"),
            &strs(&self.args),
        )
    }
    /// Start it in `dir` without waiting (see [`spawn_tagged`]).
    pub fn spawn_in(&self, dir: &Path) -> Tagged {
        spawn_tagged(dir, &strs(&self.args))
    }
    /// Start it in `dir` as a script's background job, SIGINT ignored (see
    /// [`spawn_tagged_in_background`]).
    pub fn spawn_in_background(&self, dir: &Path) -> Tagged {
        spawn_tagged_in_background(dir, &strs(&self.args))
    }
    /// Run it under `ulimit` settings in `dir` (see [`run_with_ulimit`]).
    pub fn run_with_ulimit(&self, dir: &Path, ulimit: &str) -> Output {
        run_with_ulimit(dir, ulimit, &strs(&self.args))
    }
}

/// Checks that a process `what` exited with 0, showing its standard error when it did not.
pub fn assert_ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A runner started in the background with a unique tag, for tests that signal it.
pub struct Tagged {
    pub child: std::process::Child,
    pub tag: String,
    /// The arguments it was given, for the messages of failed checks.
    pub args: Vec<String>,
    /// The directory it runs in.
    pub dir: PathBuf,
}

/// Start the runner in `dir` without waiting for it.
pub fn spawn_tagged(dir: &Path, args: &[&str]) -> Tagged {
    spawn_tagged_with(dir, args, false)
}

/// Start the runner in `dir` as a shell script starts a background job (`gomoku-cli ... &`):
/// with SIGINT ignored, a disposition it inherits.
pub fn spawn_tagged_in_background(dir: &Path, args: &[&str]) -> Tagged {
    spawn_tagged_with(dir, args, true)
}

fn spawn_tagged_with(dir: &Path, args: &[&str], sigint_ignored: bool) -> Tagged {
    use std::os::unix::process::CommandExt;
    let tag = unique_tag();
    let mut command = Command::new(runner());
    command
        .args(args)
        .current_dir(dir)
        .env(TAG_VAR, &tag)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if sigint_ignored {
        // SAFETY: signal(2) is async-signal-safe, as a pre_exec hook needs.
        unsafe {
            command.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_IGN);
                Ok(())
            });
        }
    }
    let child = command.spawn().expect("runner starts");
    Tagged {
        child,
        tag,
        args: args.iter().map(|a| a.to_string()).collect(),
        dir: dir.to_path_buf(),
    }
}

/// Standard output of a started runner, read by a thread as it comes.
pub struct Follow {
    text: std::sync::Arc<std::sync::Mutex<String>>,
    reader: std::thread::JoinHandle<()>,
}

impl Follow {
    /// What was read so far.
    pub fn text(&self) -> String {
        self.text.lock().unwrap().clone()
    }
    /// Wait up to `within` for `needle` to be printed; whether it was.
    pub fn wait_for(&self, needle: &str, within: Duration) -> bool {
        wait_until(within, || self.text().contains(needle));
        self.text().contains(needle)
    }
    /// Everything printed, once the runner closed its standard output.
    pub fn all(self) -> String {
        let _ = self.reader.join();
        let text = self.text.lock().unwrap().clone();
        text
    }
}

impl Tagged {
    /// Read its standard output as it comes (the output of [`Tagged::finish`] then has none).
    pub fn follow_stdout(&mut self) -> Follow {
        use std::io::Read;
        let mut pipe = self.child.stdout.take().expect("standard output is piped");
        let text = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let sink = text.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = pipe.read(&mut buf) {
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Follow { text, reader }
    }

    /// Wait up to `within` for it to exit; whether it did (killed otherwise, for
    /// [`Tagged::finish`] to reap).
    pub fn exits_within(&mut self, within: Duration) -> bool {
        let start = Instant::now();
        let mut exited = false;
        while !exited && start.elapsed() < within {
            std::thread::sleep(Duration::from_millis(20));
            exited = matches!(self.child.try_wait(), Ok(Some(_)));
        }
        if !exited {
            let _ = self.child.kill();
        }
        exited
    }

    /// Send `sig`, check that it exits within `within` (a time far longer than stopping takes
    /// and far shorter than the work it was given), and return the finished run.
    pub fn stop_with(mut self, sig: i32, within: Duration) -> Run {
        self.signal(sig);
        let stopped = self.exits_within(within);
        let args = self.args.clone();
        let run = self.finish_run();
        assert!(
            stopped,
            "gomoku-cli {args:?} went on after signal {sig}\nstderr: {}",
            run.stderr
        );
        run
    }

    /// How many of its tagged processes are not the runner itself: its engines (and what they
    /// started).
    pub fn engines_running(&self) -> usize {
        let runner = self.child.id();
        tagged_processes(&self.tag)
            .into_iter()
            .filter(|(pid, _)| *pid != runner)
            .count()
    }

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

    /// [`Tagged::finish`], as a [`Run`] to check.
    pub fn finish_run(self) -> Run {
        let (tag, args, dir) = (self.tag.clone(), self.args.clone(), self.dir.clone());
        let output = self.finish();
        Run {
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            output,
            tag,
            args,
            dir,
        }
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
    scout_vs_random_match(openings).args(extra).to_args()
}

/// [`scout_vs_random`]'s command line before its `extra`, to build on.
pub fn scout_vs_random_match(openings: &str) -> Match {
    Match::new()
        .engine("pbrain-scout", &["name=scout"])
        .engine("pbrain-random", &["name=random"])
        .each(&["tc=5/0.5"])
        .repeat()
        .concurrency(2)
        .openings_file(repo_root().join("openings").join(openings), &["type=pos"])
        .noprogress()
        .quiet()
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

/// pbrain-figrid's path, or `None` after saying why the test skips (a failure under `CI=true`).
pub fn figrid() -> Option<PathBuf> {
    let found = match std::env::var_os("PBRAIN_FIGRID") {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("pbrain-figrid"))
                .find(|p| p.is_file())
        }),
    };
    let why = match found {
        Some(p) if p.is_file() => return Some(p),
        Some(p) => format!("PBRAIN_FIGRID={} is not a file", p.display()),
        None => "no pbrain-figrid in PBRAIN_FIGRID or on PATH".to_string(),
    };
    let install = "cargo install --locked figrid-board@1.2.0 --bin pbrain-figrid \
                   --features embed-weights,codebook-eval";
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{why} (CI=true: .ci/run installs it: {install})");
    }
    println!("skipping: {why} ({install})");
    None
}
