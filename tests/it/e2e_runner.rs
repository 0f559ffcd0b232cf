//! End-to-end tests: the built `gomoku-cli` binary driving the bundled example engines.

use crate::common;

use std::collections::{BTreeSet, HashMap};

use std::time::Duration;

use common::*;

fn journal(dir: &std::path::Path, name: &str) -> Vec<serde_json::Value> {
    journal_games(&dir.join(name))
}

#[test]
fn two_engine_match_with_repeat_and_openings() {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engine("pbrain-scout --depth 2", &["name=scout"])
        .engine("pbrain-random", &["name=random"])
        .each(&["tc=10/2"])
        .games(6)
        .repeat()
        .concurrency(2)
        .openings_file(repo_root().join("openings/freestyle15.txt"), &["type=pos"])
        .journal("games.jsonl")
        .run_in(dir.path());
    run.assert_success();
    assert_eq!(run.lines_starting("Started game ").len(), 6);
    assert_eq!(run.lines_starting("Finished game ").len(), 6);
    let games = run.journal("games.jsonl");
    assert_eq!(games.len(), 6);
    let mut by_number: Vec<u64> = games.iter().map(|g| g["game"].as_u64().unwrap()).collect();
    by_number.sort();
    assert_eq!(by_number, vec![1, 2, 3, 4, 5, 6]);
    // Games 2k-1 and 2k share an opening with colours reversed.
    let find = |n: u64| games.iter().find(|g| g["game"] == n).unwrap();
    for k in [1u64, 3, 5] {
        let (a, b) = (find(k), find(k + 1));
        assert_eq!(a["opening"], b["opening"]);
        assert_eq!(a["black"], b["white"]);
        assert_eq!(a["white"], b["black"]);
        assert!(!a["opening"].as_str().unwrap().is_empty());
    }
    // The searching engine beats the random one.
    let scout_points: f64 = games
        .iter()
        .map(
            |g| match (g["result"].as_str().unwrap(), g["black"] == "scout") {
                ("1-0", true) | ("0-1", false) => 1.0,
                ("1/2-1/2", _) => 0.5,
                _ => 0.0,
            },
        )
        .sum();
    assert!(scout_points >= 5.0, "scout scored only {scout_points}/6");
}

fn random_engines(names: &[&str]) -> Match {
    names.iter().enumerate().fold(Match::new(), |m, (i, n)| {
        m.engine(
            &format!("pbrain-random --seed {}", i + 1),
            &[&format!("name={n}")],
        )
    })
}

fn pair_counts(games: &[serde_json::Value]) -> HashMap<(String, String), usize> {
    let mut m = HashMap::new();
    for g in games {
        let mut p = [
            g["black"].as_str().unwrap().to_string(),
            g["white"].as_str().unwrap().to_string(),
        ];
        p.sort();
        *m.entry((p[0].clone(), p[1].clone())).or_default() += 1;
    }
    m
}

#[test]
fn four_engine_round_robin() {
    let dir = tempfile::tempdir().unwrap();
    let run = random_engines(&["a", "b", "c", "d"])
        .games(2)
        .rounds(2)
        .concurrency(3)
        .journal("rr.jsonl")
        .boardsize(9)
        .run_in(dir.path());
    run.assert_success();
    let games = run.journal("rr.jsonl");
    assert_eq!(games.len(), 6 * 2 * 2);
    let pairs = pair_counts(&games);
    assert_eq!(pairs.len(), 6);
    assert!(pairs.values().all(|&n| n == 4), "{pairs:?}");
    // Each engine plays black as often as white.
    let mut blacks: HashMap<&str, usize> = HashMap::new();
    for g in &games {
        *blacks.entry(g["black"].as_str().unwrap()).or_default() += 1;
    }
    assert!(blacks.values().all(|&n| n == 6), "{blacks:?}");
}

#[test]
fn gauntlet_pairs_the_first_engine_with_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let run = random_engines(&["hero", "x", "y", "z"])
        .arg("-gauntlet")
        .games(2)
        .journal("g.jsonl")
        .concurrency(2)
        .run_in(dir.path());
    run.assert_success();
    let games = run.journal("g.jsonl");
    assert_eq!(games.len(), 6);
    assert!(games
        .iter()
        .all(|g| g["black"] == "hero" || g["white"] == "hero"));
    assert_eq!(pair_counts(&games).len(), 3);
}

/// Run a match between pbrain-faulty (with `flags`) and pbrain-random; return the journal.
fn faulty_match(flags: &str, extra: &[&str]) -> (Run, Vec<serde_json::Value>) {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engine(&format!("pbrain-faulty {flags}"), &["name=faulty"])
        .engine("pbrain-random", &["name=random"])
        .games(2)
        .journal("f.jsonl")
        .boardsize(15)
        .args(extra)
        .run_in(dir.path());
    let games = run.journal("f.jsonl");
    (run, games)
}

fn assert_faulty_lost(games: &[serde_json::Value], termination: &str) {
    assert_eq!(games.len(), 2, "both games are played and recorded");
    for g in games {
        let faulty_black = g["black"] == "faulty";
        let expected = if faulty_black { "0-1" } else { "1-0" };
        assert_eq!(g["result"], expected, "game {g}");
        assert_eq!(g["termination"], termination, "game {g}");
    }
}

#[test]
fn faulty_engine_crash_loses_and_the_run_goes_on() {
    let (run, games) = faulty_match("--crash-at 3", &["-each", "tc=5/1"]);
    run.assert_success();
    assert_faulty_lost(&games, "crash");
    assert!(
        games[0]["reason"]
            .as_str()
            .unwrap()
            .contains("exit status 3"),
        "{}",
        games[0]
    );
}

#[test]
fn start_up_work_on_info_happens_before_the_first_moves_clock_starts() {
    // 1.5 s of work on `INFO max_memory` (a hash table being filled) against 0.3 s a move plus
    // 0.3 s of tolerance: the runner waits for the engine to take in its INFO block (within the
    // 10 s start-up timeout), so the first move is timed from its request and nothing is lost
    // on time. Before the fix the first move took the 1.5 s and was a time forfeit.
    let (run, games) = faulty_match(
        "--slow-info-ms 1500",
        &["-each", "tc=0/0.3", "tolerance=0.3"],
    );
    run.assert_success();
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_ne!(g["termination"], "time_forfeit", "{g}");
        let times = g["times_ms"].as_array().unwrap();
        assert!(times.iter().all(|t| t.as_u64().unwrap() < 1500), "{g}");
    }
}

#[test]
fn an_engine_over_its_memory_limit_loses_and_every_game_records_cpu_and_memory() {
    // maxmemory 64 MiB: the limit is 64 + 32 MiB of tolerance. The faulty engine takes 300 MiB
    // at its second move and thinks 2 s (the memory is read every 0.1 s while it thinks).
    let (run, games) = faulty_match(
        "--alloc-at 2 --alloc-mb 300",
        &["-each", "tc=0/20", "maxmemory=67108864"],
    );
    run.assert_success();
    assert_faulty_lost(&games, "memory_limit");
    let limit = 96u64 << 20;
    for g in &games {
        let reason = g["reason"].as_str().unwrap();
        assert!(
            reason.contains("exceeded its memory limit") && reason.contains("> 96 MiB"),
            "{reason}"
        );
        let (faulty, random) = if g["black"] == "faulty" {
            (&g["usage"]["black"], &g["usage"]["white"])
        } else {
            (&g["usage"]["white"], &g["usage"]["black"])
        };
        assert!(faulty["peak_memory"].as_u64().unwrap() > limit, "{g}");
        let healthy = random["peak_memory"].as_u64().unwrap();
        assert!(healthy > 0 && healthy < limit, "{g}");
        assert!(
            faulty["cpu_ms"].is_u64() && random["cpu_ms"].is_u64(),
            "{g}"
        );
    }
    assert!(run.stdout.contains("Engine use (CPU"), "{}", run.stdout);
}

#[test]
fn helpers_sharing_memory_count_it_once_against_the_limit() {
    // 16 forked helpers share the 48 MiB the engine wrote before forking (copy-on-write, never
    // written again): resident memory summed over the 17 processes is over 800 MiB, the memory
    // they take (summed PSS) about 60 MiB. With maxmemory 160 MiB (a limit of 192 MiB) the
    // engine plays; judged on summed resident memory it lost every game with memory_limit.
    // Each move takes 0.25 s, so its memory is read while it thinks.
    let (run, games) = faulty_match(
        "--forks 16 --fork-mb 48 --move-ms 250",
        &[
            "-each",
            "tc=0/20",
            "maxmemory=167772160",
            "-drawafter",
            "12",
        ],
    );
    run.assert_success();
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_ne!(g["termination"], "memory_limit", "{g}");
        let faulty = if g["black"] == "faulty" {
            &g["usage"]["black"]
        } else {
            &g["usage"]["white"]
        };
        let peak = faulty["peak_memory"].as_u64().unwrap();
        // The shared pages once, not 17 times.
        assert!(peak > 48 << 20 && peak < 192 << 20, "{g}");
    }
}

/// `burner` (pbrain-faulty --burn: a thread that spins for ever) against `sleeper` (sleeps
/// 50 ms before each of its moves, using no CPU), 4 games of 40 stones: for each game, the
/// burner's CPU time and the sleeper's thinking time, in ms.
fn burner_match(suspend: bool) -> Vec<(u64, u64)> {
    let dir = tempfile::tempdir().unwrap();
    let mut m = Match::new()
        .engine("pbrain-faulty --burn", &["name=burner"])
        .engine("pbrain-faulty --move-ms 50", &["name=sleeper"])
        .each(&["tc=0/2"])
        .games(4)
        .opt("-drawafter", 40)
        .journal("b.jsonl");
    if suspend {
        m = m.arg("-suspend");
    }
    let run = m.run_in(dir.path());
    run.assert_success();
    let games = run.journal("b.jsonl");
    assert_eq!(games.len(), 4);
    games
        .iter()
        .map(|g| {
            assert!(
                !["time_forfeit", "crash", "failed_start"]
                    .contains(&g["termination"].as_str().unwrap()),
                "{g}"
            );
            let burner_black = g["black"] == "burner";
            let (b, first_is_sleeper) = if burner_black {
                (&g["usage"]["black"], false)
            } else {
                (&g["usage"]["white"], true)
            };
            // No opening: black moves first, so the sleeper's moves are the odd or even ones.
            let sleeper_ms: u64 = g["times_ms"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .filter(|(i, _)| (i % 2 == 0) == first_is_sleeper)
                .map(|(_, t)| t.as_u64().unwrap())
                .sum();
            (b["cpu_ms"].as_u64().unwrap(), sleeper_ms)
        })
        .collect()
}

#[test]
fn suspend_keeps_an_engine_off_the_cpu_while_it_is_not_on_move() {
    let _cpu = cpu_share_lock();
    // With -suspend the burner runs only while it is on move (at once: a random move), so its
    // CPU stays near zero however long the sleeper thinks, and it never loses on time.
    let suspended = burner_match(true);
    for (cpu, sleeper) in &suspended {
        assert!(
            cpu * 4 < *sleeper + 100,
            "burner CPU {cpu} ms while the sleeper thought {sleeper} ms"
        );
    }
    // Without it, the burner spins through the sleeper's time (the control: the check above
    // would fail here).
    let free = burner_match(false);
    let (cpu, sleeper) = free.iter().fold((0, 0), |a, g| (a.0 + g.0, a.1 + g.1));
    assert!(
        cpu * 4 > sleeper,
        "burner CPU {cpu} ms over {sleeper} ms of the sleeper's thinking"
    );
}

/// `games` short games between two `pbrain-faulty --report-cpus` on `slots` slots with `-cpus
/// CPUS`, played in `dir` (journal `N-slots.jsonl`), whose start said `says`: the CPUs the games
/// ran on (both engines of each on one) and the runner's slot threads as the engines saw them.
fn pinned_run(
    dir: &std::path::Path,
    games: u64,
    slots: usize,
    cpus: &str,
    says: &str,
) -> (BTreeSet<usize>, BTreeSet<String>) {
    let reporter = "pbrain-faulty --report-cpus";
    let journal = format!("{slots}-slots.jsonl");
    let run = Match::new()
        .engine(reporter, &["name=a"])
        .engine(reporter, &["name=b"])
        .each(&["tc=0/5"])
        .games(games)
        .concurrency(slots)
        .opt("-cpus", cpus)
        .opt("-drawafter", 6)
        .journal(&journal)
        .run_in(dir);
    run.assert_success().assert_stderr_has(says);
    let played = run.journal(&journal);
    assert_eq!(played.len() as u64, games);
    let used = played.iter().map(game_cpu).collect();
    let threads = played.iter().flat_map(runner_threads).collect();
    (used, threads)
}

/// What the engines of `game` said after `prefix` in their `MESSAGE` lines, each once.
fn said(game: &serde_json::Value, prefix: &str) -> BTreeSet<String> {
    game["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| Some(m[1].as_str()?.strip_prefix(prefix)?.to_string()))
        .collect()
}

/// `slots-1=0`, ...: the CPUs of the runner's game-slot threads, as `pbrain-faulty
/// --report-cpus` saw them before each move (a worker not started yet is not in the list).
fn runner_threads(game: &serde_json::Value) -> Vec<String> {
    said(game, "runner cpus ")
        .iter()
        .flat_map(|l| l.split(' ').map(String::from).collect::<Vec<_>>())
        .collect()
}

/// The one CPU both engines of `game` ran on.
fn game_cpu(game: &serde_json::Value) -> usize {
    let engines = said(game, "cpus ");
    assert_eq!(
        engines.len(),
        1,
        "both engines of a game on one CPU: {game}"
    );
    engines.first().unwrap().parse().expect("one CPU")
}

/// `slots-1=C1 slots-2=C2 ...` for the CPUs `cpus`, one per slot in order.
fn slot_threads_on(cpus: &[usize]) -> BTreeSet<String> {
    cpus.iter()
        .enumerate()
        .map(|(i, c)| format!("slots-{}={c}", i + 1))
        .collect()
}

#[test]
fn cpus_pin_each_slots_engines_to_its_share() {
    // Two slots, CPUs 0 and 1: each game's engines report the one CPU of their slot.
    let dir = tempfile::tempdir().unwrap();
    let says = "CPUs: 2 game slots on CPUs 0-1 (one each)";
    let (used, threads) = pinned_run(dir.path(), 6, 2, "0,1", says);
    assert!(used.is_subset(&[0, 1].into()), "{used:?}");
    // The runner's thread that plays each slot runs where that slot's engines run, so a move
    // goes from the engine to the runner without waking another CPU.
    assert_eq!(threads, slot_threads_on(&[0, 1]));
    // Fewer CPUs than slots: the slots take them in turn, each CPU's slots on one thread of the
    // runner kept there (two threads for four slots, not four).
    let says = "CPUs: 4 game slots on CPUs 0-1 (2 to a CPU)";
    let (used, threads) = pinned_run(dir.path(), 8, 4, "0,1", says);
    assert!(used.is_subset(&[0, 1].into()), "{used:?}");
    assert_eq!(threads, slot_threads_on(&[0, 1]));
}

#[test]
fn cpus_auto_shares_out_the_cpus_the_runner_may_use() {
    // As many slots as CPUs: each slot's engines and its runner thread on a CPU of their own.
    // The runner inherits this process's affinity.
    let cpus = gomoku_cli::runner::cpus::allowed_cpus().expect("sched_getaffinity works on Linux");
    let allowed: BTreeSet<usize> = cpus.iter().copied().collect();
    let slots = cpus.len();
    let dir = tempfile::tempdir().unwrap();
    let says = format!("CPUs: {slots} game slot");
    let (used, threads) = pinned_run(dir.path(), 2 * slots as u64, slots, "auto", &says);
    assert!(used.is_subset(&allowed), "{used:?}");
    assert_eq!(threads, slot_threads_on(&cpus));
    assert!(
        used.len() > 1 || slots == 1,
        "the games spread over the CPUs: {used:?}"
    );
    // Twice as many slots as CPUs: two slots on each CPU, the same threads.
    let (used, threads) = pinned_run(
        dir.path(),
        4 * slots as u64,
        2 * slots,
        "auto",
        "(2 to a CPU)",
    );
    assert!(used.is_subset(&allowed), "{used:?}");
    assert_eq!(threads, slot_threads_on(&cpus));
}

#[test]
fn the_open_file_limit_is_raised_for_the_concurrency_or_the_run_refused_before_game_one() {
    let dir = tempfile::tempdir().unwrap();
    let args = |journal: &str| {
        Match::new()
            .engine("pbrain-random", &[])
            .engine("pbrain-random", &[])
            .each(&["tc=0/5"])
            .games(64)
            .concurrency(32)
            .opt("-drawafter", 10)
            .journal(journal)
            .quiet()
            .noprogress()
    };
    // Soft limit 100, hard limit untouched: 32 slots need 512, the runner raises it and plays
    // (before, 59 of these 64 games were lost by engines that could not start).
    let out = args("l.jsonl").run_with_ulimit(dir.path(), "ulimit -S -n 100");
    assert_ok(&out, "gomoku-cli");
    let games = journal(dir.path(), "l.jsonl");
    assert_eq!(games.len(), 64);
    assert!(
        games
            .iter()
            .all(|g| g["termination"] == "draw_after" || g["termination"] == "five"),
        "every engine started: {:?}",
        games.iter().map(|g| &g["termination"]).collect::<Vec<_>>()
    );
    // Hard limit 100 as well: refused before any game, naming the numbers.
    let out = args("m.jsonl").run_with_ulimit(dir.path(), "ulimit -n 100");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("-concurrency 32 needs about 512 open files, but the limit is 100"),
        "{err}"
    );
    assert!(journal(dir.path(), "m.jsonl").is_empty());
    // Hard limit exactly the budget: it must be enough for every engine to start.
    let out = args("n.jsonl").run_with_ulimit(dir.path(), "ulimit -n 512");
    assert_ok(&out, "gomoku-cli");
    let games = journal(dir.path(), "n.jsonl");
    assert_eq!(games.len(), 64);
    assert!(
        games.iter().all(|g| g["termination"] != "failed_start"),
        "every engine started within the budget"
    );
}

#[test]
fn faulty_engine_hang_loses_on_time_and_is_killed() {
    let (run, games) = faulty_match("--hang-at 2", &["-each", "tc=0/0.2", "tolerance=0.3"]);
    run.assert_success();
    assert_faulty_lost(&games, "time_forfeit");
}

#[test]
fn faulty_engine_illegal_offboard_and_garbage_moves_lose() {
    for (flag, kind) in [
        ("--illegal-at 2", "occupied"),
        ("--offboard-at 2", "off the board"),
        ("--garbage-at 2", "unparsable"),
    ] {
        let (run, games) = faulty_match(flag, &["-each", "tc=5/1"]);
        run.assert_success();
        assert_faulty_lost(&games, "illegal_move");
        assert!(
            games[0]["reason"].as_str().unwrap().contains(kind),
            "{flag}: {}",
            games[0]["reason"]
        );
    }
}

#[test]
fn faulty_engine_error_at_start_loses_whatever_its_colour() {
    let (run, games) = faulty_match("--error-at-start", &["-each", "tc=5/1"]);
    run.assert_success();
    assert_faulty_lost(&games, "failed_start");
}

#[test]
fn faulty_engine_exit_between_moves_is_a_crash_and_no_sigpipe() {
    let (run, games) = faulty_match("--exit-between-moves-at 2", &["-each", "tc=5/1"]);
    run.assert_success();
    assert_faulty_lost(&games, "crash");
}

#[test]
fn engines_that_ignore_end_or_spawn_children_do_not_survive() {
    for flags in [
        "--ignore-end",
        "--spawn-child",
        "--ignore-end --spawn-child",
    ] {
        let (run, games) = faulty_match(flags, &["-each", "tc=5/1", "-boardsize", "9"]);
        run.assert_success();
        assert_eq!(games.len(), 2);
        // run_in already asserted that no tagged process survived.
    }
}

#[test]
fn noisy_engines_banner_huge_lines_trailing_spaces_suggest() {
    for flags in [
        "--banner --message-every-move",
        "--huge-line-at 2",
        "--trailing-space",
        "--suggest",
    ] {
        let (run, games) = faulty_match(flags, &["-each", "tc=5/1", "-boardsize", "9"]);
        run.assert_success();
        assert_eq!(games.len(), 2);
        for g in &games {
            assert!(
                ["five", "full_board"].contains(&g["termination"].as_str().unwrap()),
                "{flags}: a well-formed game ends normally: {g}"
            );
        }
    }
}

#[test]
fn fatalerror_stops_the_run() {
    let (run, games) = faulty_match(
        "--crash-at 2",
        &["-each", "tc=5/1", "-fatalerror", "-games", "6"],
    );
    run.assert_exit(4);
    assert!(games.len() < 6);
    assert!(run.stdout.contains("-fatalerror"));
}

fn expect_error(args: Match, code: i32, needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let run = args.run_in(dir.path());
    run.assert_exit(code).assert_stderr_has(needle);
    assert!(run.lines_starting("Started game").is_empty());
}

#[test]
fn invalid_command_lines_fail_before_any_game() {
    let one = || Match::new().engine("pbrain-random", &[]);
    let two = || one().engine("pbrain-random", &[]);
    expect_error(two().concurrency(0), 1, "concurrency");
    expect_error(two().arg("-bogus"), 2, "unknown option");
    expect_error(two().arg("-concurrency"), 2, "needs a value");
    expect_error(one(), 1, "two engines");
    expect_error(one().engine_cmd("/no/such/engine", &[]), 1, "not found");
    expect_error(two().rule(3), 1, "rule");
    expect_error(two().boardsize(40), 1, "boardsize");
    expect_error(two().each(&["tc=abc"]), 1, "time control");
    expect_error(two().openings(&["file=/no/such/file"]), 1, "/no/such/file");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "h8i9\nh8zz\n").unwrap();
    expect_error(two().openings_file(&bad, &["type=pos"]), 1, ":2");
}

#[test]
fn each_does_not_override_per_engine_values() {
    // tolerance per engine must survive -each; a hang with a long per-engine tolerance would
    // take long, so check the weaker observable: a per-engine tc wins over -each's.
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .each(&["tc=0/0.1", "tolerance=0.1"])
        .engine(
            "pbrain-faulty --late-at 1 --late-ms 400",
            &["name=faulty", "tc=0/5"],
        )
        // The random engine too keeps its own generous limit, so a busy machine cannot
        // make it lose on time; only the faulty engine's 400 ms answer is under test.
        .engine("pbrain-random", &["name=random", "tc=0/5"])
        .games(1)
        .journal("j.jsonl")
        .boardsize(9)
        .run_in(dir.path());
    run.assert_success();
    let games = run.journal("j.jsonl");
    assert_ne!(games[0]["termination"], "time_forfeit", "{}", games[0]);
}

#[test]
fn ctrl_c_abandons_games_ends_engines_and_exits_130() {
    // interrupt_run checks that every game announced as finished is in the journal and nothing
    // else, and that no engine (nor the child it started) survives.
    let (code, stdout, finished) = interrupt_run("--spawn-child", &[libc::SIGINT], 3);
    assert_eq!(code, Some(130));
    assert!(finished >= 3);
    assert!(stdout.contains("interrupted"));
}

#[test]
fn ctrl_c_while_an_engine_thinks_abandons_its_game_at_once() {
    // Each game waits on a cancellation token of its own, a child of the one Ctrl-C cancels; a
    // game that missed it would wait out its engine's 600 s move.
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engine("pbrain-faulty --fault move3:hang", &["name=faulty"])
        .engine("pbrain-random", &["name=random"])
        .each(&["tc=0/600"])
        .games(2)
        .concurrency(2)
        .journal("h.jsonl")
        .spawn_in(dir.path());
    // Both games are under way once the two slots' four engines run; the faulty ones hang at
    // their third move, milliseconds later.
    wait_until(Duration::from_secs(60), || run.engines_running() >= 4);
    assert!(run.engines_running() >= 4, "both games started");
    std::thread::sleep(Duration::from_millis(500));
    let out = run.stop_with(libc::SIGINT, Duration::from_secs(60));
    out.assert_exit(130);
    assert!(journal(dir.path(), "h.jsonl").is_empty());
}

#[test]
fn ctrl_c_while_an_engine_is_asked_its_name_stops_at_once() {
    // Without name=, the runner asks each engine ABOUT before the first game, within
    // -startuptimeout; this engine never answers it. Ctrl-C there used to wait out the whole
    // timeout (here 600 s) before stopping.
    let dir = tempfile::tempdir().unwrap();
    let mut run = Match::new()
        .engine("pbrain-faulty --fault about:hang", &[])
        .engine("pbrain-random", &[])
        .opt("-startuptimeout", 600)
        .journal("n.jsonl")
        .spawn_in(dir.path());
    // The engine asked for its name is the first process the runner starts.
    wait_until(Duration::from_secs(60), || run.engines_running() > 0);
    assert!(run.engines_running() > 0, "the engine started");
    run.signal(libc::SIGINT);
    // Far less than the 600 s timeout, far more than stopping takes.
    let since = std::time::Instant::now();
    let mut stopped = false;
    while !stopped && since.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
        stopped = matches!(run.child.try_wait(), Ok(Some(_)));
    }
    if !stopped {
        let _ = run.child.kill();
    }
    let out = run.finish_run();
    assert!(stopped, "the runner was still asking the engine's name");
    out.assert_exit(130);
    assert!(journal(dir.path(), "n.jsonl").is_empty());
}

#[test]
fn predecessor_readme_example_runs_unchanged() {
    // The README's example with our engines in place of Wine and Rapfi, unchanged otherwise
    // (4000 games x 2 rounds would take hours: stop it with Ctrl-C once it is well under way).
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("example-engine")).unwrap();
    std::fs::create_dir_all(dir.path().join("opening_examples")).unwrap();
    // Symlinks, not copies: a copy is open for writing while other test threads fork, and an
    // exec during that window fails with "text file busy".
    std::os::unix::fs::symlink(
        engine("pbrain-random"),
        dir.path().join("example-engine/pbrain-wine"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        engine("pbrain-scout"),
        dir.path().join("example-engine/pbrain-rapfi1"),
    )
    .unwrap();
    let shared =
        repo_root().join("../shared/testdata/openings/cgomokucli_offset_freestyle_20x20.txt");
    let opening_text = if shared.exists() {
        std::fs::read_to_string(&shared).unwrap()
    } else {
        "8,-3, 6,-4, 5,-4, 4,-3, 2,-8, -1,-5\r\n6,6, 4,6, 6,4, 4,4, 6,2, 4,2".to_string()
    };
    std::fs::write(
        dir.path()
            .join("opening_examples/offset_freestyle_20x20.txt"),
        opening_text,
    )
    .unwrap();
    let line = "-each tc=180/30 \
        -engine name=Wine cmd=./example-engine/pbrain-wine \
        -engine name=Rapfi cmd=./example-engine/pbrain-rapfi1 \
        -rule 0 -boardsize 20 -rounds 2 -games 4000 -debug -repeat \
        -concurrency 8 -drawafter 200 \
        -pgn my_games.pgn -sgf my_games.sgf -msg my_games.txt \
        -openings file=opening_examples/offset_freestyle_20x20.txt order=random";
    let args: Vec<&str> = line.split_whitespace().collect();
    let run = spawn_tagged(dir.path(), &args);
    let games_in = |p: &str| {
        std::fs::read_to_string(dir.path().join(p))
            .map(|t| t.matches("[Result ").count())
            .unwrap_or(0)
    };
    wait_until(Duration::from_secs(90), || games_in("my_games.pgn") >= 4);
    run.signal(libc::SIGINT);
    run.finish_run().assert_exit(130);
    let n = games_in("my_games.pgn");
    assert!(n >= 4, "only {n} games in 90 s");
    let sgf = std::fs::read_to_string(dir.path().join("my_games.sgf")).unwrap();
    assert_eq!(sgf.matches("(;").count(), n);
    assert!(dir.path().join("my_games.txt").exists());
    // -debug turns on -log: one file per slot. Slots may be interrupted before their first
    // move, so look at all of them together.
    assert!(
        dir.path().join("gomoku-cli.1.log").exists(),
        "-debug turns on -log"
    );
    let mut log = String::new();
    for slot in 1..=8 {
        log += &std::fs::read_to_string(dir.path().join(format!("gomoku-cli.{slot}.log")))
            .unwrap_or_default();
    }
    // Both directions, with timestamps, and the board after moves (4 games were finished).
    assert!(
        log.contains("< START 20"),
        "{}",
        &log[..log.len().min(2000)]
    );
    assert!(log.contains("> OK"));
    assert!(log.lines().all(|l| l.starts_with('[')));
    assert!(
        log.contains(" # ...................."),
        "board rows in the log"
    );
}

/// Start a long run, wait for `games` recorded games, send `signals` (with a pause between), and
/// return the exit status, stdout and the journal.
fn interrupt_run(flags: &str, signals: &[i32], games: usize) -> (Option<i32>, String, usize) {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engine(&format!("pbrain-faulty {flags}"), &["name=faulty"])
        .engine("pbrain-random", &["name=random"])
        .games(100000)
        .concurrency(2)
        .journal("sig.jsonl")
        .each(&["tc=5/1"])
        .spawn_in(dir.path());
    wait_until(Duration::from_secs(60), || {
        journal(dir.path(), "sig.jsonl").len() >= games
    });
    for (i, &sig) in signals.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(Duration::from_millis(100));
        }
        run.signal(sig);
    }
    let out = run.finish_run();
    let finished = out.lines_starting("Finished game ").len();
    assert_eq!(out.journal("sig.jsonl").len(), finished);
    (out.code(), out.stdout, finished)
}

/// The most threads the runner had while `concurrency` slots played (sampled from
/// `/proc/PID/task` once games were being recorded), and the cores it may use.
fn threads_while_playing(concurrency: usize) -> (usize, usize) {
    let dir = tempfile::tempdir().unwrap();
    let run = Match::new()
        .engines("pbrain-random", &["a", "b"])
        .games(100000)
        .concurrency(concurrency)
        .boardsize(9)
        .journal("t.jsonl")
        .spawn_in(dir.path());
    wait_until(Duration::from_secs(60), || {
        journal(dir.path(), "t.jsonl").len() >= 2 * concurrency
    });
    let pid = run.child.id();
    let threads = || std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, |d| d.count());
    let most = (0..20)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(10));
            threads()
        })
        .max()
        .unwrap_or(0);
    run.signal(libc::SIGINT);
    run.finish_run().assert_exit(130);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (most, cores)
}

#[test]
fn the_runner_keeps_one_thread_per_slot_worker_and_three_more() {
    // The slots' worker threads (min(slots, cores)), the engine launcher's two and the run's
    // own: no runtime with a worker per core idling beside the slots (issue 37: 35 threads on
    // 16 cores at -concurrency 16, against c-gomoku-cli's 17).
    for concurrency in [1, 3] {
        let (threads, cores) = threads_while_playing(concurrency);
        let workers = concurrency.min(cores);
        assert!(threads > 0, "the runner's threads were read");
        assert!(
            threads <= workers + 3,
            "{threads} threads at -concurrency {concurrency} on {cores} cores"
        );
    }
}

#[test]
fn sigterm_stops_like_ctrl_c() {
    let (code, stdout, finished) = interrupt_run("--spawn-child", &[libc::SIGTERM], 2);
    assert_eq!(code, Some(130));
    assert!(finished >= 2);
    assert!(stdout.contains("interrupted"));
}

#[test]
fn second_ctrl_c_kills_engines_that_ignore_end() {
    let (code, _, finished) = interrupt_run(
        "--ignore-end --spawn-child",
        &[libc::SIGINT, libc::SIGINT],
        2,
    );
    assert_eq!(code, Some(130));
    assert!(finished >= 2);
}

#[test]
fn a_closed_stdout_does_not_kill_the_runner() {
    // `gomoku-cli ... | head -1`: later writes hit a broken pipe; the run still completes.
    let dir = tempfile::tempdir().unwrap();
    let mut run = Match::new()
        .engine("pbrain-random", &[])
        .engine("pbrain-random", &[])
        .games(20)
        .boardsize(9)
        .journal("j.jsonl")
        .spawn_in(dir.path());
    drop(run.child.stdout.take());
    let out = run.finish_run();
    out.assert_success();
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert_eq!(journal(dir.path(), "j.jsonl").len(), 20);
}

fn openings_of(dir: &std::path::Path, args: &[&str]) -> Vec<(String, String)> {
    let _ = std::fs::remove_file(dir.join("o.jsonl"));
    Match::new()
        .engine("pbrain-random", &[])
        .engine("pbrain-random", &[])
        .journal("o.jsonl")
        .args(args)
        .run_in(dir)
        .assert_success();
    let mut games = journal(dir, "o.jsonl");
    games.sort_by_key(|g| g["game"].as_u64());
    games
        .iter()
        .map(|g| {
            (
                g["opening"].as_str().unwrap().to_string(),
                g["transform"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn transform_cycles_the_symmetries_after_each_pass() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("two.txt"), "h8i9\r\nh8g9j8").unwrap();
    let got = openings_of(
        dir.path(),
        &[
            "-openings",
            "file=two.txt",
            "type=pos",
            "-transform",
            "-games",
            "6",
            "-repeat",
        ],
    );
    let names: Vec<&str> = got.iter().map(|(_, t)| t.as_str()).collect();
    // Pairs share an opening; two openings per pass; then the next symmetry.
    assert_eq!(
        names,
        ["identity", "identity", "identity", "identity", "rotate90", "rotate90"]
    );
    assert_eq!(got[0].0, "h8i9");
    assert_eq!(got[2].0, "h8g9j8");
    // rotate90 maps (x, y) to (y, 14 - x): h8 (7,7) stays, i9 (8,8) becomes (8,6) = i7.
    assert_eq!(got[4].0, "h8i7");
}

#[test]
fn random_order_is_reproducible_with_srand() {
    let dir = tempfile::tempdir().unwrap();
    let file = format!(
        "file={}",
        repo_root().join("openings/freestyle15.txt").display()
    );
    let args = [
        "-openings",
        &file,
        "type=pos",
        "order=random",
        "srand=42",
        "-games",
        "8",
    ];
    let a = openings_of(dir.path(), &args);
    let b = openings_of(dir.path(), &args);
    assert_eq!(a, b);
    let seq = openings_of(dir.path(), &["-openings", &file, "type=pos", "-games", "8"]);
    assert_ne!(a, seq, "random order differs from the file order");
    let other = openings_of(
        dir.path(),
        &[
            "-openings",
            &file,
            "type=pos",
            "order=random",
            "srand=43",
            "-games",
            "8",
        ],
    );
    assert_ne!(a, other);
}

#[test]
fn engines_die_even_when_the_runner_is_killed() {
    // SIGKILL gives the runner no chance to end its engines: the kernel does it (the engines are
    // spawned with a parent-death signal). These engines ignore the end of their input and
    // SIGTERM, so only that signal can end them.
    let dir = tempfile::tempdir().unwrap();
    let stubborn = "pbrain-faulty --ignore-end";
    let run = Match::new()
        .engine(stubborn, &[])
        .engine(stubborn, &[])
        .games(100000)
        .concurrency(2)
        .journal("k.jsonl")
        .spawn_in(dir.path());
    wait_until(Duration::from_secs(60), || {
        journal(dir.path(), "k.jsonl").len() >= 3
    });
    // The runner carries the tag too: count its engines only.
    let runner_pid = run.child.id();
    assert!(
        tagged_processes(&run.tag)
            .iter()
            .any(|(pid, _)| *pid != runner_pid),
        "engines are running"
    );
    run.signal(libc::SIGKILL);
    let out = run.finish();
    assert_eq!(out.status.code(), None, "killed by a signal");
}

#[test]
fn a_run_refused_before_its_first_game_leaves_no_journal_behind() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("afile"), "x").unwrap();
    let journals = |d: &std::path::Path| -> Vec<String> {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".jsonl"))
            .collect()
    };
    // The default (timestamped) journal is made first; the -report and -psq paths fail later,
    // one after the header was written, one before.
    for bad in [["-report", "afile/r.html"], ["-psq", "afile"]] {
        random_engines(&["a", "b"])
            .games(2)
            .quiet()
            .noprogress()
            .args(&bad)
            .run_in(dir.path())
            .assert_exit(1)
            .assert_stderr_has("afile");
        assert_eq!(journals(dir.path()), Vec::<String>::new(), "after {bad:?}");
    }
    // A named journal made by the refused run goes too; an empty one the user made stays.
    let args = random_engines(&["a", "b"])
        .journal("j.jsonl")
        .report("afile/r.html");
    args.run_in(dir.path()).assert_exit(1);
    assert!(!dir.path().join("j.jsonl").exists());
    std::fs::write(dir.path().join("j.jsonl"), "").unwrap();
    args.run_in(dir.path()).assert_exit(1);
    assert!(dir.path().join("j.jsonl").exists());
}

/// A standard output nobody reads stalls no game: the console's lines wait on the run's thread
/// while the slots play on (issue 37: before, the slot holding the desk blocked on the full pipe
/// and every other slot queued behind it). The engines count their own starts (`restart=on`: one
/// process per game), the runner's output pipe holds one page, and only once the engines have
/// played far past what fits in it is the pipe read: every game is then shown, in full.
#[test]
fn an_unread_standard_output_does_not_stall_the_games() {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    let dir = tempfile::tempdir().unwrap();
    let count = dir.path().join("starts");
    let script = dir.path().join("counting-engine");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho x >> '{}'\nexec '{}' \"$@\"\n",
            count.display(),
            engine("pbrain-random")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut fds = [0; 2];
    // SAFETY: pipe2(2) fills two new descriptors on success; fcntl on the one just made.
    let (read_end, write_end) = unsafe {
        assert_eq!(libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC), 0);
        assert!(libc::fcntl(fds[1], libc::F_SETPIPE_SZ, 4096) >= 4096);
        (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))
    };
    let games = 160;
    let args = Match::new()
        .each(&["restart=on"])
        .engine_cmd(&script.to_string_lossy(), &["name=a"])
        .engine_cmd(&script.to_string_lossy(), &["name=b"])
        .games(games)
        .concurrency(2)
        .to_args();
    let mut child = std::process::Command::new(runner())
        .args(&args)
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::from(write_end))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = || std::fs::read_to_string(&count).map_or(0, |s| s.lines().count());
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    // Two engine starts a game; 120 games print about 12 KiB, three times the pipe.
    while started() < 2 * 120 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let reached = started();
    let mut out = String::new();
    let mut pipe = std::fs::File::from(read_end);
    if reached < 2 * 120 {
        let _ = child.kill();
    }
    pipe.read_to_string(&mut out).unwrap();
    let status = child.wait().unwrap();
    assert!(
        reached >= 2 * 120,
        "the engines started {reached} times while standard output went unread"
    );
    assert!(status.success(), "{status:?}");
    let finished = out
        .lines()
        .filter(|l| l.starts_with("Finished game "))
        .count();
    assert_eq!(finished, games as usize, "{out}");
}

/// The run's thread writes what the slots hand in on a tick, not woken by every game (issue 37:
/// a slot woke it at each game's end, a wake-up across threads on every game's path, which on a
/// machine whose cores all run games waits for a core). Its voluntary context switches, read
/// from `/proc` while 1,000 instant games run: about two a game before, now one a tick.
#[test]
fn the_run_s_thread_is_not_woken_for_every_game() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let games = 1000;
    let args = Match::new()
        .engine_cmd(
            &format!("{} --first-empty", engine("pbrain-random")),
            &["name=a"],
        )
        .engine_cmd(
            &format!("{} --first-empty", engine("pbrain-random")),
            &["name=b"],
        )
        .games(games)
        .concurrency(2)
        .journal("games.jsonl")
        .to_args();
    let mut child = std::process::Command::new(runner())
        .args(&args)
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        stdout.read_to_string(&mut out).map(|_| out)
    });
    // The run's thread is the process's first: its task id is the process id.
    let status = format!("/proc/{0}/task/{0}/status", child.id());
    let mut switches = None;
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        let read = std::fs::read_to_string(&status).unwrap_or_default();
        let field = read
            .lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"));
        if let Some(n) = field.and_then(|n| n.trim().parse::<u64>().ok()) {
            switches = Some(n);
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let out = reader.join().unwrap().unwrap();
    assert!(exit.success(), "{exit:?}");
    assert_eq!(
        journal_games(&dir.path().join("games.jsonl")).len(),
        games as usize
    );
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("Finished game "))
            .count(),
        games as usize
    );
    let switches = switches.expect("the run's thread was seen in /proc");
    assert!(
        switches < games / 3,
        "the run's thread switched {switches} times in {games} games"
    );
}
