//! The edges a real run hits, from the command line: a full disk or a file size limit stops the
//! run with everything written intact and `-resume` completes it; settings that would spoil every
//! game are refused before game 1.

use crate::common;

use common::*;

/// Two random engines, short games (drawn at 20 stones), colour-swapped pairs, quiet.
fn random_match(games: &str, extra: &[&str]) -> Match {
    random_pair("b", games).args(extra)
}

/// [`random_match`]'s command line before its extra options, the second engine named `second`.
fn random_pair(second: &str, games: &str) -> Match {
    Match::new()
        .engines("pbrain-random", &["a", second])
        .each(&["tc=0/5"])
        .games(games)
        .repeat()
        .opt("-drawafter", 20)
        .quiet()
        .noprogress()
}

#[test]
fn a_file_size_limit_stops_the_run_intact_and_resume_completes_it() {
    let dir = tempfile::tempdir().unwrap();
    let args = random_match(
        "30",
        &["-journal", "j.jsonl", "-pgn", "g.pgn", "-sgf", "g.sgf"],
    );
    // 16 KiB a file: the journal outgrows it after a few games.
    let out = args.run_with_ulimit(dir.path(), "ulimit -f 16");
    let err = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(5), "{err}\n{stdout}");
    assert!(
        err.contains("error: cannot write to ") && err.contains("File too large"),
        "the file and the OS error are named: {err}"
    );
    assert!(
        stdout.contains("Stopping: an output could not be written"),
        "{stdout}"
    );
    assert!(
        stdout.contains("(stopped: an output could not be written)"),
        "{stdout}"
    );
    // Every line on disk is whole: no torn journal line, no half record.
    let text = std::fs::read_to_string(dir.path().join("j.jsonl")).unwrap();
    assert!(text.ends_with('\n'), "the journal ends with a whole line");
    let first = journal_games(&dir.path().join("j.jsonl"));
    assert!(
        !first.is_empty() && first.len() < 30,
        "stopped part-way: {} games",
        first.len()
    );
    // Space is back: the same command with -resume completes the run.
    args.resume().run_in(dir.path()).assert_success();
    let games = journal_games(&dir.path().join("j.jsonl"));
    let mut numbers: Vec<u64> = games.iter().map(|g| g["game"].as_u64().unwrap()).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=30).collect::<Vec<_>>(), "each game once");
    // The records hold every game exactly once: byte for byte what export rebuilds.
    Match::command(&["export", "j.jsonl", "--pgn", "e.pgn", "--sgf", "e.sgf"])
        .run_in(dir.path())
        .assert_success();
    for (run_file, exported) in [("g.pgn", "e.pgn"), ("g.sgf", "e.sgf")] {
        let a = std::fs::read(dir.path().join(run_file)).unwrap();
        let b = std::fs::read(dir.path().join(exported)).unwrap();
        assert!(a == b, "{run_file} differs from the journal's export");
    }
}

#[test]
fn a_full_disk_stops_the_run_and_the_journal_keeps_what_was_played() {
    let dir = tempfile::tempdir().unwrap();
    // The journal cannot even take its header: refused before game 1.
    let run = random_match("3", &["-journal", "/dev/full"]).run_in(dir.path());
    run.assert_exit(1)
        .assert_stderr_has("cannot write to /dev/full: No space left on device");
    assert!(!run.stdout.contains("Started game"), "{}", run.stdout);
    // The PGN fails at the first game: the run stops as soon as the run's thread has tried the
    // write (it writes what the slots queued every 10 ms: games that finished meanwhile were
    // played, no more start), exit 5. The journal keeps the game whose PGN failed and nothing
    // after it: the games it lacks are played again on resume.
    let run = random_match("200", &[])
        .journal("p.jsonl")
        .pgn("/dev/full")
        .concurrency(1)
        .run_in(dir.path());
    run.assert_exit(5)
        .assert_stderr_has("cannot write to /dev/full")
        .assert_stdout_has("run the same command with -resume");
    assert_eq!(journal_games(&dir.path().join("p.jsonl")).len(), 1);
    let finished = run.lines_starting("Finished ");
    let played: Option<u32> = finished
        .last()
        .and_then(|l| l.strip_prefix("Finished ")?.split(' ').next()?.parse().ok());
    assert!(
        played.is_some_and(|n| (1..200).contains(&n)),
        "{finished:?}"
    );
    // Without a journal there is nothing to resume: no -resume advice.
    let run = random_match("3", &["-journal", "off"])
        .pgn("/dev/full")
        .concurrency(1)
        .run_in(dir.path());
    run.assert_exit(5)
        .assert_stdout_has("The run has no journal (-journal off), so it cannot be resumed");
    assert!(!run.stdout.contains("-resume"), "{}", run.stdout);
}

#[test]
fn settings_that_would_lose_or_waste_every_game_are_refused_before_game_one() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (
            &["-cpus", "1000"],
            "-cpus: CPU 1000 cannot be used: this process may run on CPUs ",
        ),
        (
            &["-startuptimeout", "0"],
            "-startuptimeout: \"0\" is not valid: must be more than 0 seconds",
        ),
        (
            &["-drawafter", "-1"],
            "-drawafter: \"-1\" is not valid: must be 0 (off)",
        ),
        (
            &["-boardsize", "20", "-renlib", "a.lib"],
            "-renlib: a RenLib library holds 15x15 games only",
        ),
        (
            &["-each", "maxmemory=-1"],
            "-each: \"maxmemory=-1\" is not valid: expected a whole number",
        ),
    ];
    for (extra, message) in cases {
        let run = random_match("2", &["-journal", "r.jsonl"])
            .args(extra)
            .run_in(dir.path());
        run.assert_exit(1).assert_stderr_has(message);
        assert!(!run.stdout.contains("Started game"), "{}", run.stdout);
        assert!(
            !dir.path().join("r.jsonl").exists(),
            "{extra:?}: nothing written"
        );
        assert!(!dir.path().join("a.lib").exists());
    }
}

#[test]
fn two_roles_naming_one_file_are_refused_before_game_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    std::os::unix::fs::symlink("d", dir.path().join("link")).unwrap();
    let openings = dir.path().join("o.txt");
    std::fs::write(&openings, "h8 i9\n").unwrap();
    let open = format!("file={}", openings.display());
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["-journal", "j.txt", "-pgn", "j.txt"],
            "-journal and -pgn name the same file (j.txt)",
        ),
        (
            vec!["-journal", "j.jsonl", "-pgn", "x", "-sgf", "x", "-msg", "x"],
            "-pgn and -sgf name the same file (x)",
        ),
        (
            vec![
                "-journal",
                "j.jsonl",
                "-sgf",
                "d/g.sgf",
                "-msg",
                "link/../d/./g.sgf",
            ],
            "-sgf and -msg name the same file (link/../d/./g.sgf)",
        ),
        (
            vec![
                "-journal",
                "j.jsonl",
                "-pgn",
                "link/g.pgn",
                "-sample",
                "file=d/g.pgn",
            ],
            "-pgn and -sample name the same file (d/g.pgn)",
        ),
        (
            vec![
                "-openings",
                &open,
                "type=pos",
                "-journal",
                "j.jsonl",
                "-pgn",
                "o.txt",
            ],
            "-pgn names o.txt, which is also the -openings file this run reads",
        ),
        (
            vec![
                "-shard", "1/2", "-journal", "j.jsonl", "-pgn", "g.pgn", "-sgf", "./g.pgn",
            ],
            "-pgn and -sgf name the same file (./g.shard-1-of-2.pgn)",
        ),
    ];
    for (extra, message) in cases {
        let run = random_match("2", &extra).run_in(dir.path());
        run.assert_exit(1).assert_stderr_has(message);
        assert!(!run.stdout.contains("Started game"), "{}", run.stdout);
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left.len(), 3, "nothing written: {left:?}");
    assert_eq!(std::fs::read_to_string(&openings).unwrap(), "h8 i9\n");
    // Devices are not files: every output may go to /dev/null.
    random_match("2", &[])
        .journal("j.jsonl")
        .pgn("/dev/null")
        .sgf("/dev/null")
        .run_in(dir.path())
        .assert_success();
}

#[test]
fn resume_refuses_an_engine_renamed_since_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let args = random_match("4", &["-journal", "n.jsonl"]);
    args.run_in(dir.path()).assert_success();
    let before = std::fs::read(dir.path().join("n.jsonl")).unwrap();
    // The same run, the second engine now called "x".
    random_pair("x", "4")
        .journal("n.jsonl")
        .resume()
        .run_in(dir.path())
        .assert_exit(1)
        .assert_stderr_has("records a different run; these settings differ:")
        .assert_stderr_has("engines[1].name: \"b\" in the journal, \"x\" now");
    assert_eq!(std::fs::read(dir.path().join("n.jsonl")).unwrap(), before);
    // Unchanged names resume (nothing left to play).
    args.resume().run_in(dir.path()).assert_success();
}

#[test]
fn start_up_cpu_is_counted_apart_from_thinking() {
    // An engine that spins 400 ms of CPU at every START/RESTART (a hash being filled) and then
    // moves at once, against a plain random engine.
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engine("pbrain-faulty --start-cpu-ms 400", &["name=hash"])
        .engine("pbrain-random", &["name=rnd"])
        .each(&["tc=0/30"])
        .games(2)
        .opt("-drawafter", 20)
        .journal("u.jsonl")
        .noprogress()
        .run_in(dir.path());
    run.assert_success();
    let games = journal_games(&dir.path().join("u.jsonl"));
    let mut startup = 0;
    let mut thinking = 0;
    for g in &games {
        let colour = if g["black"] == "hash" {
            "black"
        } else {
            "white"
        };
        let u = &g["usage"][colour];
        startup += u["startup_cpu_ms"].as_u64().unwrap_or(0);
        thinking += u["cpu_ms"].as_u64().unwrap();
    }
    // 2 × 400 ms of start-up CPU (less a tick or two of accounting), and the moves took next to
    // nothing.
    assert!(startup >= 700, "start-up CPU {startup} ms: {games:?}");
    assert!(
        thinking < startup / 2,
        "thinking CPU {thinking} ms vs start-up {startup} ms"
    );
    let line = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("hash"))
        .unwrap_or_default();
    assert!(
        line.contains("start-up CPU 0.") || line.contains("start-up CPU 1."),
        "{}",
        run.stdout
    );
}

#[test]
fn messages_name_what_the_user_gave() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("afile"), "x").unwrap();
    // The default journal goes next to -pgn: the error names the -pgn path, not the journal's.
    let run = random_match("2", &["-pgn", "afile/x.pgn"]).run_in(dir.path());
    run.assert_exit(1)
        .assert_stderr_has("cannot create afile/x.pgn: afile is a file, not a directory");
    assert!(!run.stderr.contains("journal.jsonl"), "{}", run.stderr);
    // A shard replaces the journal's name: it says where the journal goes.
    random_match("2", &["-shard", "1/2", "-journal", "sub/my.jsonl"])
        .run_in(dir.path())
        .assert_success()
        .assert_stderr_has(
            "warning: -journal sub/my.jsonl: shard 1/2 writes its journal as sub/shard-1-of-2.journal.jsonl",
        );
    assert!(dir.path().join("sub/shard-1-of-2.journal.jsonl").is_file());
}
