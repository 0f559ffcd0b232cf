//! The engine layer against real child processes: small bash engines written into a temporary
//! directory, each reproducing one behaviour (including the predecessor's fatal cases).

use std::path::{Path, PathBuf};
use std::time::Duration;

use gomoku_cli::core::board::{BoardSize, Pos};
use gomoku_cli::core::rules::Rule;
use gomoku_cli::engine::{
    Direction, EngineError, EngineSession, EngineSpec, Field, LogEvent, LogSink, MoveReply,
    MoveRequest,
};
use tokio::sync::mpsc::UnboundedReceiver;

/// Generous: these are real processes on a shared machine, and no test asserts a duration.
const DEADLINE: Duration = Duration::from_secs(10);

/// The common loop of the scripts; `$line` has its CR removed. Each engine adds `case` arms
/// before the defaults through `ARMS`.
fn script(prelude: &str, arms: &str) -> String {
    format!(
        r#"#!/bin/bash
n=0
{prelude}
while IFS= read -r line; do
  line=${{line%$'\r'}}
  case "$line" in
{arms}
    ABOUT) printf 'name="TestEngine", version="1.0"\r\n' ;;
    "START "*|RESTART) printf 'OK\r\n' ;;
    BEGIN|"TURN "*|DONE) printf '%d,%d\r\n' $n $n; n=$((n+1)) ;;
    END) exit 0 ;;
  esac
done
"#
    )
}

struct Engines {
    dir: tempfile::TempDir,
}

impl Engines {
    fn new() -> Self {
        Engines {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// Writes an executable script and returns its path.
    fn write(&self, name: &str, text: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn spec(&self, name: &str, prelude: &str, arms: &str) -> EngineSpec {
        let path = self.write(name, &script(prelude, arms));
        EngineSpec::new(quote(&path))
    }
}

/// `EngineSession::spawn`, retried while the script is "text file busy": a test thread that
/// forks while another writes its script inherits the write descriptor until it execs, and the
/// kernel refuses to execute a file open for writing (ETXTBSY). A test-harness race, not ours.
async fn spawn_retry(
    spec: &EngineSpec,
    slot: usize,
    log: LogSink,
) -> Result<EngineSession, EngineError> {
    let mut tries = 0;
    loop {
        match EngineSession::spawn(spec, slot, log.clone()).await {
            Err(EngineError::SpawnFailed { source, .. })
                if source.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 100 =>
            {
                tries += 1;
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            other => return other,
        }
    }
}

/// A session on `spec` (slot 0, no log) with a 15×15 freestyle game started.
async fn started(spec: &EngineSpec) -> EngineSession {
    let mut s = spawn_retry(spec, 0, LogSink::none()).await.unwrap();
    freestyle(&mut s).await;
    s
}

/// A 15×15 freestyle game started on `s`, which must accept it.
async fn freestyle(s: &mut EngineSession) {
    s.new_game(size(15), Rule::Freestyle, DEADLINE)
        .await
        .unwrap();
}

/// A script engine `name` (see [`script`]) with a 15×15 freestyle game started; keep the
/// returned directory as long as the session.
async fn started_script(name: &str, prelude: &str, arms: &str) -> (Engines, EngineSession) {
    let engines = Engines::new();
    let spec = engines.spec(name, prelude, arms);
    let s = started(&spec).await;
    (engines, s)
}

/// The engine's answer to BEGIN, which must come.
async fn begin(s: &mut EngineSession) -> MoveReply {
    s.request_move(MoveRequest::Begin, None, DEADLINE)
        .await
        .unwrap()
}

fn quote(path: &Path) -> String {
    format!("'{}'", path.display())
}

fn size(n: u32) -> BoardSize {
    BoardSize::new(n).unwrap()
}

/// Processes of group `pgid` that are not zombies, as "pid state comm".
fn live_members(pgid: i32) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …; comm may contain spaces and parentheses.
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        if fields.len() < 3 {
            continue;
        }
        let (state, pgrp) = (fields[0], fields[2]);
        if pgrp == pgid.to_string() && state != "Z" && state != "X" {
            found.push(format!("{} {}", stat[..close + 1].trim(), state));
        }
    }
    found
}

/// Waits (generously) until no live process of the group remains; SIGKILL delivery is async.
async fn assert_group_gone(pgid: i32) {
    for _ in 0..250 {
        if live_members(pgid).is_empty() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "processes of group {pgid} still alive: {:?}",
        live_members(pgid)
    );
}

fn pgid_of(session: &EngineSession) -> i32 {
    session.process().expect("a real process").pgid()
}

fn drain(rx: &mut UnboundedReceiver<LogEvent>) -> Vec<LogEvent> {
    let mut events = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        events.push(ev);
    }
    events
}

#[tokio::test]
async fn normal_engine_plays_a_game_then_restarts_and_ends() {
    let engines = Engines::new();
    let spec = engines.spec(
        "pbrain-normal",
        "",
        r#"    "TURN 9,9") printf 'MESSAGE cwd=%s args=%d:%s\r\n' "$PWD" $# "$1"; printf '%d,%d\r\n' $n $n; n=$((n+1)) ;;"#,
    );
    let spec = EngineSpec::new(format!("{} 'two words' x", spec.cmd));
    let (log, mut rx) = LogSink::channel();
    let mut s = spawn_retry(&spec, 1, log).await.unwrap();
    assert_eq!(s.about(DEADLINE).await.unwrap(), "TestEngine");
    freestyle(&mut s).await;
    let r = begin(&mut s).await;
    assert_eq!((r.raw.as_str(), r.coords), ("0,0", Some((0, 0))));
    let r = s
        .request_move(
            MoveRequest::Turn(Pos::new(9, 9)),
            Some(Duration::from_secs(5)),
            DEADLINE,
        )
        .await
        .unwrap();
    assert_eq!(r.coords, Some((1, 1)));
    // `cmd` with a slash runs in the program's directory, with shell-split arguments.
    let dir = engines.dir.path().canonicalize().unwrap();
    assert_eq!(
        s.take_messages(),
        vec![format!("cwd={} args=2:two words", dir.display())]
    );
    let r = s
        .request_move(
            MoveRequest::Board(vec![
                (Pos::new(0, 0), Field::Own),
                (Pos::new(9, 9), Field::Opponent),
            ]),
            None,
            DEADLINE,
        )
        .await
        .unwrap();
    assert_eq!(r.coords, Some((2, 2)));
    let pid = s.process().unwrap().pid();
    s.new_game(size(15), Rule::Renju, DEADLINE).await.unwrap();
    assert_eq!(
        s.process().unwrap().pid(),
        pid,
        "RESTART reuses the process"
    );
    let pgid = pgid_of(&s);
    assert_eq!(s.shutdown().await.as_deref(), Some("exit status 0"));
    assert_group_gone(pgid).await;

    let events = drain(&mut rx);
    let sent: Vec<&str> = events
        .iter()
        .filter(|e| e.direction == Direction::ToEngine)
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(sent.iter().filter(|l| **l == "RESTART").count(), 1);
    assert!(sent.contains(&"INFO rule 4"), "{sent:?}");
    assert_eq!(sent.last(), Some(&"END"));
    assert!(events.iter().all(|e| e.slot == 1));
}

#[tokio::test]
async fn silent_engine_times_out_and_is_killed() {
    let (_engines, mut s) = started_script("pbrain-silent", "", r#"    BEGIN|"TURN "*) ;;"#).await;
    let pgid = pgid_of(&s);
    let err = s
        .request_move(MoveRequest::Begin, None, Duration::from_millis(300))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, EngineError::Timeout { what, .. } if what == "BEGIN"),
        "{err:?}"
    );
    assert!(!s.is_alive());
    assert_group_gone(pgid).await;
    // The next game starts a fresh process.
    freestyle(&mut s).await;
    assert!(s.is_alive());
    assert_ne!(pgid_of(&s), pgid);
    let pgid = pgid_of(&s);
    drop(s);
    assert_group_gone(pgid).await;
}

#[tokio::test]
async fn engine_exiting_between_moves_is_a_crash_with_its_status() {
    let (_engines, mut s) = started_script(
        "pbrain-quitter",
        "",
        r#"    BEGIN) printf '7,7\r\n'; exit 3 ;;"#,
    )
    .await;
    let r = begin(&mut s).await;
    assert_eq!(r.coords, Some((7, 7)));
    // Let it die so that the next write hits a pipe without reader (EPIPE, not SIGPIPE).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let err = s
        .request_move(MoveRequest::Turn(Pos::new(8, 8)), None, DEADLINE)
        .await
        .unwrap_err();
    match err {
        EngineError::Crashed { status } => assert_eq!(status, "exit status 3"),
        other => panic!("{other:?}"),
    }
    assert!(!s.is_alive());
}

#[tokio::test]
async fn engine_killed_by_a_signal_reports_it() {
    let (_engines, mut s) =
        started_script("pbrain-suicide", "", r#"    BEGIN) kill -SEGV $$ ;;"#).await;
    let err = s
        .request_move(MoveRequest::Begin, None, DEADLINE)
        .await
        .unwrap_err();
    match err {
        EngineError::Crashed { status } => {
            assert!(
                status.starts_with("killed by signal 11 (SIGSEGV)"),
                "{status}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn crash_is_detected_even_when_a_child_holds_the_pipe_open() {
    let engines = Engines::new();
    // The background sleep inherits stdout, so no end of file comes when the engine dies.
    let spec = engines.spec("pbrain-orphaner", "sleep 1000 &", r#"    BEGIN) exit 4 ;;"#);
    let mut s = started(&spec).await;
    let pgid = pgid_of(&s);
    let err = s
        .request_move(MoveRequest::Begin, None, Duration::from_secs(60))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, EngineError::Crashed { status } if status == "exit status 4"),
        "{err:?}"
    );
    assert_group_gone(pgid).await;
}

#[tokio::test]
async fn error_at_start_is_reported_with_its_text() {
    let engines = Engines::new();
    let spec = engines.spec(
        "pbrain-picky",
        "",
        r#"    "START "*) printf 'ERROR only size 20 is supported\r\n' ;;"#,
    );
    let mut s = spawn_retry(&spec, 0, LogSink::none()).await.unwrap();
    match s.new_game(size(15), Rule::Freestyle, DEADLINE).await {
        Err(EngineError::StartFailed { text }) => {
            assert_eq!(text, "ERROR only size 20 is supported")
        }
        other => panic!("{other:?}"),
    }
    let pgid = pgid_of(&s);
    s.shutdown().await;
    assert_group_gone(pgid).await;
}

#[tokio::test]
async fn banner_messages_before_about_are_skipped() {
    let engines = Engines::new();
    let spec = engines.spec(
        "pbrain-chatty",
        r#"printf 'MESSAGE Chatty engine v3\r\nMESSAGE (c) nobody\r\n'"#,
        r#"    ABOUT) printf 'DEBUG about to answer\r\nname="Chatty", author="X"\r\n' ;;"#,
    );
    let mut s = spawn_retry(&spec, 0, LogSink::none()).await.unwrap();
    assert_eq!(s.about(DEADLINE).await.unwrap(), "Chatty");
    assert_eq!(s.about_info().unwrap().author(), Some("X"));
    freestyle(&mut s).await;
    assert_eq!(begin(&mut s).await.coords, Some((0, 0)));
}

#[tokio::test]
async fn engine_ignoring_end_and_sigterm_is_killed_after_the_grace() {
    let engines = Engines::new();
    let path = engines.write(
        "pbrain-stubborn",
        "#!/bin/bash\ntrap '' TERM INT HUP\nwhile true; do\n  IFS= read -r line || sleep 0.05\n  case \"${line%$'\\r'}\" in\n    \"START \"*) printf 'OK\\r\\n' ;;\n    ABOUT) printf 'name=\"stubborn\"\\r\\n' ;;\n  esac\n  line=\ndone\n",
    );
    let spec = EngineSpec::new(quote(&path));
    let mut s = started(&spec).await;
    s.set_end_grace(Duration::from_millis(300));
    let pgid = pgid_of(&s);
    let started = std::time::Instant::now();
    let status = s.shutdown().await;
    assert_eq!(status.as_deref(), Some("killed by signal 9 (SIGKILL)"));
    // Generous bound: the point is that it returns at all (the predecessor hung forever).
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_group_gone(pgid).await;
}

#[tokio::test]
async fn children_of_the_engine_die_with_it_on_shutdown() {
    let engines = Engines::new();
    let spec = engines.spec("pbrain-parent", "sleep 1000 &", "");
    let mut s = spawn_retry(&spec, 0, LogSink::none()).await.unwrap();
    s.about(DEADLINE).await.unwrap();
    let pgid = pgid_of(&s);
    assert!(
        live_members(pgid).len() >= 2,
        "engine and its sleep child: {:?}",
        live_members(pgid)
    );
    // The engine exits on END by itself; its child would survive without the group kill.
    assert_eq!(s.shutdown().await.as_deref(), Some("exit status 0"));
    assert_group_gone(pgid).await;
}

#[tokio::test]
async fn children_of_the_engine_die_with_it_on_drop() {
    let engines = Engines::new();
    let spec = engines.spec("pbrain-parent", "sleep 1000 &", "");
    let mut s = spawn_retry(&spec, 0, LogSink::none()).await.unwrap();
    s.about(DEADLINE).await.unwrap();
    let pgid = pgid_of(&s);
    assert!(live_members(pgid).len() >= 2, "{:?}", live_members(pgid));
    drop(s);
    assert_group_gone(pgid).await;
}

#[tokio::test]
async fn trailing_spaces_and_any_line_end_are_accepted() {
    let (_engines, mut s) = started_script(
        "pbrain-sloppy",
        "",
        r#"    "START "*) printf 'OK  \n' ;;
    BEGIN) printf '\r\n  \r\n7,7 \r\n' ;;
    "TURN 1,1") printf ' 8 , 8\r' ;;
    "TURN 2,2") printf '9,9\n' ;;"#,
    )
    .await;
    let mut got = Vec::new();
    got.push(begin(&mut s).await.coords);
    for k in 1..=2 {
        got.push(
            s.request_move(MoveRequest::Turn(Pos::new(k, k)), None, DEADLINE)
                .await
                .unwrap()
                .coords,
        );
    }
    assert_eq!(got, vec![Some((7, 7)), Some((8, 8)), Some((9, 9))]);
}

#[tokio::test]
async fn suggest_gets_play_and_the_reply_is_the_move() {
    let (_engines, mut s) = started_script(
        "pbrain-suggester",
        "",
        r#"    BEGIN) printf 'SUGGEST 4,5\r\n' ;;
    "PLAY "*) printf '%s\r\n' "${line#PLAY }" ;;"#,
    )
    .await;
    let r = begin(&mut s).await;
    assert_eq!(r.coords, Some((4, 5)));
}

#[tokio::test]
async fn unparsable_answer_is_kept_raw() {
    let (_engines, mut s) = started_script(
        "pbrain-babbler",
        "",
        r#"    BEGIN) printf 'hello world \r\n' ;;"#,
    )
    .await;
    let r = begin(&mut s).await;
    assert_eq!((r.raw.as_str(), r.coords), ("hello world", None));
}

#[tokio::test]
async fn restart_refused_means_end_and_respawn() {
    let engines = Engines::new();
    let spec = engines.spec(
        "pbrain-oneshot",
        "",
        r#"    RESTART) printf 'UNKNOWN RESTART not implemented\r\n' ;;"#,
    );
    let (log, mut rx) = LogSink::channel();
    let mut s = spawn_retry(&spec, 0, log).await.unwrap();
    freestyle(&mut s).await;
    let first = pgid_of(&s);
    freestyle(&mut s).await;
    assert_ne!(pgid_of(&s), first);
    assert_group_gone(first).await;
    let r = begin(&mut s).await;
    assert_eq!(r.coords, Some((0, 0)), "a fresh process");
    let sent: Vec<String> = drain(&mut rx)
        .into_iter()
        .filter(|e| e.direction == Direction::ToEngine && !e.text.starts_with("INFO"))
        .map(|e| e.text)
        .collect();
    // Each game's INFO block ends with ABOUT, answered once the engine took it all in; after
    // RESTART they go out with it, so the refusing engine got them too before its END.
    assert_eq!(
        sent,
        vec!["START 15", "ABOUT", "RESTART", "ABOUT", "END", "START 15", "ABOUT", "BEGIN"]
    );
}

#[tokio::test]
async fn stderr_goes_to_the_log_not_the_protocol() {
    let engines = Engines::new();
    let spec = engines.spec(
        "pbrain-noisy",
        "",
        r#"    BEGIN) printf '1,1\n' >&2; printf '2,2\r\n' ;;"#,
    );
    let (log, mut rx) = LogSink::channel();
    let mut s = spawn_retry(&spec, 5, log).await.unwrap();
    freestyle(&mut s).await;
    let r = begin(&mut s).await;
    assert_eq!(r.coords, Some((2, 2)));
    let pgid = pgid_of(&s);
    s.shutdown().await;
    assert_group_gone(pgid).await;
    // The drain task may lag a little behind the protocol.
    let mut stderr = Vec::new();
    for _ in 0..250 {
        stderr.extend(
            drain(&mut rx)
                .into_iter()
                .filter(|e| e.direction == Direction::Stderr)
                .map(|e| (e.slot, e.text)),
        );
        if !stderr.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(stderr, vec![(5, "1,1".to_string())]);
}

#[tokio::test]
async fn megabyte_line_does_not_break_the_conversation() {
    let (_engines, mut s) = started_script(
        "pbrain-verbose",
        "big=$(head -c 1048576 /dev/zero | tr '\\0' x)",
        r#"    BEGIN) printf 'MESSAGE %s\r\n3,3\r\n' "$big" ;;"#,
    )
    .await;
    let r = begin(&mut s).await;
    assert_eq!(r.coords, Some((3, 3)));
    // Over the cap of 64 KiB of messages a move: counted, not kept.
    assert!(s.take_messages().is_empty());
    let counts = s.take_line_counts();
    assert_eq!((counts.dropped, counts.dropped_bytes), (1, 1 << 20));
}

#[tokio::test]
async fn missing_program_or_directory_is_a_spawn_error() {
    for cmd in [
        "/nonexistent-dir/pbrain-nothing",
        "./no-such-engine-here -x",
        "no-such-engine-on-path-xyz",
    ] {
        match spawn_retry(&EngineSpec::new(cmd), 0, LogSink::none()).await {
            Err(EngineError::SpawnFailed { cmd: c, .. }) => assert_eq!(c, cmd),
            other => panic!("{cmd}: {other:?}"),
        }
    }
    assert!(matches!(
        spawn_retry(&EngineSpec::new("'unterminated"), 0, LogSink::none()).await,
        Err(EngineError::BadCommand { .. })
    ));
}

/// Set in the child run of [`sigpipe_with_default_disposition_does_not_kill_the_runner`].
const SIGPIPE_CHILD_ENV: &str = "GOMOKU_ENGINE_TEST_SIGPIPE_CHILD";

/// The test harness, like any Rust binary, already ignores SIGPIPE, which would hide the
/// predecessor's death. So this re-runs the scenario below in a fresh process of this test
/// binary that first restores the default (fatal) disposition: the engine layer must still
/// survive writing to an engine that has exited.
#[test]
fn sigpipe_with_default_disposition_does_not_kill_the_runner() {
    // The scenario's name in this binary: its module path without the crate's name.
    let (_, module) = module_path!()
        .split_once("::")
        .expect("a module of the test binary");
    let scenario = format!("{module}::sigpipe_child_scenario");
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            scenario.as_str(),
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SIGPIPE_CHILD_ENV, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "child run failed ({:?}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("1 passed"), "{stdout}");
}

#[tokio::test]
#[ignore = "run by sigpipe_with_default_disposition_does_not_kill_the_runner"]
async fn sigpipe_child_scenario() {
    if std::env::var_os(SIGPIPE_CHILD_ENV).is_none() {
        return;
    }
    // SAFETY: restoring the default disposition before any engine is spawned.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let (_engines, mut s) = started_script(
        "pbrain-quitter",
        "",
        r#"    BEGIN) printf '7,7\r\n'; exit 3 ;;"#,
    )
    .await;
    begin(&mut s).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let err = s
        .request_move(MoveRequest::Turn(Pos::new(8, 8)), None, DEADLINE)
        .await
        .unwrap_err();
    assert!(matches!(err, EngineError::Crashed { .. }), "{err:?}");
}
