//! End-to-end tests of named engines (`-engines FILE`, `-engine conf=NAME`, `engines list|add|
//! check`) and runs from a file (`-config FILE`, `-config save FILE`): a run spelled with names or
//! from a file is the run written out in full (one journal identity, `-resume` across spellings),
//! the command line overrides, and bad files and names are refused naming the file and the key.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::*;

fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("gomoku-named-")
        .tempdir()
        .unwrap()
}

/// The journal header (its first line) of `path`.
fn header(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

/// An engines file of two bundled engines: `A` (pbrain-random, its own time control) and `S`
/// (pbrain-scout, an option in cutechess's array form and its working directory).
fn engines_file(dir: &Path) -> std::path::PathBuf {
    let random = engine("pbrain-random");
    let scout = bin_dir();
    let text = serde_json::json!([
        {"name": "A", "command": random, "protocol": "gomocup", "tc": "10/0.2", "thread": 1},
        {"name": "S", "command": "pbrain-scout", "workingDirectory": scout, "stderrFile": "",
         "options": [{"name": "style", "value": 3, "type": "spin", "default": 1}], "maxmemory": 100000000}
    ]);
    let path = dir.join("e.json");
    std::fs::write(&path, serde_json::to_string_pretty(&text).unwrap()).unwrap();
    path
}

/// The two engines of [`engines_file`] written out in full.
fn written_out() -> Match {
    let scout = bin_dir().join("pbrain-scout");
    Match::new()
        .engine("pbrain-random", &["name=A", "tc=10/0.2", "thread=1"])
        .engine_cmd(
            &scout.to_string_lossy(),
            &["name=S", "option.style=3", "maxmemory=100000000"],
        )
}

fn quick(m: Match, journal: &str) -> Match {
    m.games(2).quiet().noprogress().journal(journal)
}

#[test]
fn a_run_with_conf_is_the_run_written_out_and_resumes_under_either_spelling() {
    let dir = tempdir();
    engines_file(dir.path());
    let named = Match::new().args(&[
        "-engines", "e.json", "-engine", "conf=A", "-engine", "conf=S",
    ]);
    quick(named.clone(), "named.jsonl")
        .run_in(dir.path())
        .assert_success();
    quick(written_out(), "full.jsonl")
        .run_in(dir.path())
        .assert_success();
    let (a, b) = (
        header(&dir.path().join("named.jsonl")),
        header(&dir.path().join("full.jsonl")),
    );
    assert_eq!(a["fingerprint"], b["fingerprint"]);
    assert_eq!(a["settings"]["engines"], b["settings"]["engines"]);
    // -resume finds the run under the other spelling: every game played, nothing to add.
    let games = journal_games(&dir.path().join("named.jsonl")).len();
    quick(written_out(), "named.jsonl")
        .resume()
        .run_in(dir.path())
        .assert_success();
    quick(named.clone(), "full.jsonl")
        .resume()
        .run_in(dir.path())
        .assert_success();
    assert_eq!(journal_games(&dir.path().join("named.jsonl")).len(), games);
    // ... and refuses another run (the check is real): the time control changed.
    let other = quick(named.arg("tc=10/0.3"), "named.jsonl")
        .resume()
        .run_in(dir.path());
    assert_ne!(other.code(), Some(0), "{}", other.stderr);
}

#[test]
fn the_engines_own_keys_win_over_each_and_each_over_the_entry() {
    let dir = tempdir();
    engines_file(dir.path());
    let m = Match::new()
        .args(&[
            "-engine", "thread=2", "conf=A", "-engine", "conf=S", "-engines", "e.json",
        ])
        .each(&["tc=5/0.1", "thread=3"]);
    quick(m, "j.jsonl").run_in(dir.path()).assert_success();
    let h = header(&dir.path().join("j.jsonl"));
    let engines = &h["settings"]["engines"];
    // -each's tc replaces the entries' (A's 10/0.2); A's own thread=2 wins over -each's 3.
    assert_eq!(engines[0]["tc"], engines[1]["tc"]);
    assert_eq!(engines[0]["threads"], 2);
    assert_eq!(engines[1]["threads"], 3);
    assert_eq!(engines[0]["tc"], "5/0.1");
}

#[test]
fn unknown_names_keys_and_files_are_refused_naming_them() {
    let dir = tempdir();
    engines_file(dir.path());
    let run = |args: &[&str]| run_in(dir.path(), args);
    run(&[
        "-engines", "e.json", "-engine", "conf=B", "-engine", "conf=A",
    ])
    .assert_exit(1)
    .assert_stderr_has("conf=B: no engine of that name in e.json (it has: A, S)");
    run(&[
        "-engines",
        "missing.json",
        "-engine",
        "conf=A",
        "-engine",
        "conf=A",
    ])
    .assert_exit(1)
    .assert_stderr_has("engines file missing.json: No such file");
    std::fs::write(
        dir.path().join("bad.json"),
        "[\n  {\"name\": \"A\", \"command\": \"x\"},\n  {\"name\": \"B\", \"command\": \"x\", \"hash\": 64}\n]\n",
    )
    .unwrap();
    run(&[
        "-engines", "bad.json", "-engine", "conf=A", "-engine", "conf=A",
    ])
    .assert_exit(1)
    .assert_stderr_has(
        "engines file bad.json:3:43: entry 2 (\"B\"): \"hash\": unknown key (known: name, command",
    );
    run(&[
        "-engines", "e.json", "-each", "conf=A", "-engine", "conf=A", "-engine", "conf=S",
    ])
    .assert_exit(1)
    .assert_stderr_has("-each: conf= names one engine");
    // conf= without any engines file: the default location is named.
    let out = Command::new(runner())
        .args(["-engine", "conf=A", "-engine", "conf=A"])
        .current_dir(dir.path())
        .env("GOMOKU_CLI_ENGINES", dir.path().join("none.json"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("conf=A: no engines file (give -engines FILE, or write "),
        "{stderr}"
    );
    assert!(stderr.contains("none.json"), "{stderr}");
}

/// `gomoku-cli ARGS` in `dir` with the default engines file under `config` (XDG_CONFIG_HOME).
fn with_home(dir: &Path, config: &Path, args: &[&str]) -> std::process::Output {
    Command::new(runner())
        .args(args)
        .current_dir(dir)
        .env_remove("GOMOKU_CLI_ENGINES")
        .env("XDG_CONFIG_HOME", config)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn engines_add_then_list_then_check_through_the_default_file() {
    let dir = tempdir();
    let config = dir.path().join("xdg");
    let scout = engine("pbrain-scout");
    let add = |name: &str, extra: &[&str]| {
        let cmd = format!("cmd={scout}");
        let mut args = vec!["engines", "add", name, &cmd, "tc=5/0.2", "option.style=2"];
        args.extend_from_slice(extra);
        with_home(dir.path(), &config, &args)
    };
    let out = add("scout", &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = config.join("gomoku-cli/engines.json");
    assert!(file.is_file());
    add("other", &[]);
    // A second engine of one name is refused unless --force; the file keeps both engines.
    let out = add("scout", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("an engine is already named \"scout\" (--force replaces it)"));
    assert!(add("scout", &["--force", "thread=2"]).status.success());
    // A bad value is refused by the file's reader, a key given twice as usage; nothing written.
    let before = std::fs::read(&file).unwrap();
    let out = add("bad", &["thread=0"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("entry 3 (\"bad\"): \"thread\": \"0\" is not valid"),
        "{stderr}"
    );
    assert_eq!(add("bad", &["tc=1"]).status.code(), Some(2));
    assert_eq!(std::fs::read(&file).unwrap(), before);
    let out = with_home(dir.path(), &config, &["engines", "list", "--json"]);
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["scout", "other"]);
    assert!(list[0]["settings"]
        .as_array()
        .unwrap()
        .contains(&"thread=2".into()));
    let out = with_home(dir.path(), &config, &["engines", "list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("scout  cmd="), "{text}");
    // check by name gives what check gives the engine written out.
    let by_name = with_home(
        dir.path(),
        &config,
        &["engines", "check", "scout", "-rule", "0"],
    );
    let direct = with_home(
        dir.path(),
        &config,
        &["check", "-engine", &format!("cmd={scout}"), "-rule", "0"],
    );
    assert_eq!(by_name.status.code(), direct.status.code());
    let last = |o: &std::process::Output| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .last()
            .map(String::from)
    };
    assert_eq!(last(&by_name), last(&direct));
    assert!(last(&by_name).unwrap().contains(" pass, "));
    let out = with_home(dir.path(), &config, &["engines", "check", "nobody"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn config_save_then_config_file_is_the_same_run_and_the_command_line_wins() {
    let dir = tempdir();
    engines_file(dir.path());
    let openings = repo_root().join("openings/freestyle15.txt");
    let base = Match::new()
        .args(&[
            "-engines", "e.json", "-engine", "conf=A", "-engine", "conf=S",
        ])
        .openings_file(&openings, &["type=pos", "order=random"])
        .games(2)
        .quiet()
        .noprogress();
    // Saving writes the file and plays nothing.
    let save = base
        .clone()
        .args(&["-config", "save", "run.conf"])
        .run_in(dir.path());
    save.assert_success().assert_stderr_has("wrote run.conf");
    let text = std::fs::read_to_string(dir.path().join("run.conf")).unwrap();
    assert!(text.contains("-engine name=A cmd="), "{text}");
    assert!(
        text.contains(" srand="),
        "the drawn seed is written: {text}"
    );
    assert!(!text.contains("conf="), "{text}");
    assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .ends_with(".jsonl")));
    // The file run twice is one run; resumed from the command line written out, too.
    for j in ["a.jsonl", "b.jsonl"] {
        run_in(dir.path(), &["-config", "run.conf", "-journal", j]).assert_success();
    }
    let (a, b) = (
        header(&dir.path().join("a.jsonl")),
        header(&dir.path().join("b.jsonl")),
    );
    assert_eq!(a["fingerprint"], b["fingerprint"]);
    let words: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .flat_map(|l| gomoku_cli::engine::spec::split_command_line(l).unwrap())
        .collect();
    let mut resume = words.clone();
    resume.extend(["-journal", "a.jsonl", "-resume"].map(String::from));
    run_in(dir.path(), &strs(&resume)).assert_success();
    // The command line wins: -games replaced.
    run_in(
        dir.path(),
        &["-config", "run.conf", "-games", "1", "-journal", "c.jsonl"],
    )
    .assert_success();
    let c = header(&dir.path().join("c.jsonl"));
    assert_eq!(c["settings"]["games"], 1);
    assert_ne!(c["fingerprint"], a["fingerprint"]);
    // The output may not be a file the run reads; a bad line is named by file and line.
    base.clone()
        .args(&["-config", "save", "e.json"])
        .run_in(dir.path())
        .assert_exit(1)
        .assert_stderr_has("e.json");
    std::fs::write(
        dir.path().join("bad.conf"),
        "# two engines\n-games 2\n-gmaes 3\n",
    )
    .unwrap();
    run_in(dir.path(), &["-config", "bad.conf"])
        .assert_exit(1)
        .assert_stderr_has("bad.conf:3: unknown option \"-gmaes\"");
    run_in(dir.path(), &["-config", "none.conf"])
        .assert_exit(1)
        .assert_stderr_has("-config none.conf: No such file");
    run_in(dir.path(), &["-config"]).assert_exit(2);
}

#[test]
fn a_tuning_saved_with_a_drawn_seed_runs_again_as_the_same_tuning() {
    let dir = tempdir();
    engines_file(dir.path());
    std::fs::write(dir.path().join("p.txt"), "a, int, 50, 0, 100, 5, 0.002\n").unwrap();
    let openings = repo_root().join("openings/freestyle15.txt");
    Match::command(&["tune", "-engines", "e.json", "-engine", "conf=S"])
        .args(&["-params", "p.txt", "-iterations", "1"])
        .openings_file(&openings, &["type=pos", "order=random"])
        .args(&["-config", "save", "t.conf"])
        .run_in(dir.path())
        .assert_success();
    let text = std::fs::read_to_string(dir.path().join("t.conf")).unwrap();
    assert!(text.contains("\n-srand "), "{text}");
    for j in ["a.jsonl", "b.jsonl"] {
        let args = [
            "tune",
            "-config",
            "t.conf",
            "-journal",
            j,
            "-quiet",
            "-noprogress",
        ];
        run_in(dir.path(), &args).assert_success();
    }
    let (a, b) = (
        header(&dir.path().join("a.jsonl")),
        header(&dir.path().join("b.jsonl")),
    );
    assert_eq!(a["fingerprint"], b["fingerprint"]);
    // check and openings generate read -config FILE but save nothing.
    run_in(
        dir.path(),
        &[
            "check", "-engine", "conf=S", "-engines", "e.json", "-config", "save", "c.conf",
        ],
    )
    .assert_exit(2)
    .assert_stderr_has("-config save: only the match runner and tune");
}
