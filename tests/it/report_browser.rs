//! The HTML report in a real browser: Debian's Chromium, headless, on reports of real runs of the
//! bundled engines. It checks what a user sees: the page loads without script errors, the
//! standings name every engine, the LLR chart has a point per game, the viewer stepped to the end
//! of a game shows the journal's final position and termination, and hostile engine names and
//! messages stay text. Without Chromium the tests say so and skip, except under `CI=true`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{journal_games, scout_vs_random_match, Match};

/// Chromium's executable: `$CHROMIUM`, or the first of the usual names on the PATH.
fn chromium() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n)))
        .find(|p| p.is_file());
    if found.is_none() {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("chromium is not installed (.ci/run installs Debian's chromium package)");
        }
        println!("skipping: no chromium on the PATH (apt-get install chromium)");
    }
    found
}

/// Run headless Chromium on `url` with `what` (`--dump-dom`, `--screenshot=F`): stdout and
/// stderr. Each call gets its own profile directory, so tests can run at the same time.
fn headless(browser: &Path, url: &str, what: &str) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1280,2400",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(what)
        .arg(url)
        .output()
        .expect("chromium runs");
    common::assert_ok(&out, "chromium");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Messages the page's scripts logged as errors (uncaught exceptions, console.error).
fn script_errors(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("CONSOLE") && (l.contains("Uncaught") || l.contains(":ERROR:")))
        .collect()
}

/// Attribute `name` of each element that starts with `open` (as Chromium serializes the DOM).
fn attrs<'a>(dom: &'a str, open: &str, name: &str) -> Vec<&'a str> {
    dom.match_indices(open)
        .filter_map(|(i, _)| {
            let tag = &dom[i..i + dom[i..].find('>')?];
            let v = tag.split(&format!(" {name}=\"")).nth(1)?;
            v.split('"').next()
        })
        .collect()
}

fn between<'a>(s: &'a str, from: &str, to: &str) -> &'a str {
    let a = s.find(from).map_or(s.len(), |i| i + from.len());
    let b = s[a..].find(to).map_or(s.len(), |j| a + j);
    &s[a..b]
}

fn url(file: &Path, fragment: &str) -> String {
    format!("file://{}{fragment}", file.display())
}

/// Write `journal` as `NAME.jsonl` in `dir` and make `NAME.html` of it with `gomoku-cli report`.
fn report_of(dir: &Path, name: &str, journal: &str) {
    std::fs::write(dir.join(format!("{name}.jsonl")), journal).unwrap();
    Match::command(&[
        "report",
        &format!("{name}.jsonl"),
        "-o",
        &format!("{name}.html"),
    ])
    .run_in(dir)
    .assert_success();
}

/// A renju match with an SPRT between the bundled engines, reported by the runner (`-report`).
fn renju_run(dir: &Path) -> (PathBuf, Vec<serde_json::Value>) {
    let run = scout_vs_random_match("renju15.txt")
        .rule(4)
        .games(10)
        .args(&["-sprt", "elo0=0", "elo1=400"])
        .journal("j.jsonl")
        .report("report.html")
        .run_in(dir);
    assert!(matches!(run.code(), Some(0 | 3)), "{}", run.stderr);
    (dir.join("report.html"), journal_games(&dir.join("j.jsonl")))
}

#[test]
fn the_report_of_a_real_run_works_in_chromium() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (report, games) = renju_run(dir.path());
    // The longest game, so the viewer has the most to show.
    let game = games
        .iter()
        .max_by_key(|g| g["moves"].as_str().unwrap().len())
        .unwrap();
    let n = game["game"].as_u64().unwrap();
    let (dom, stderr) = headless(
        &browser,
        &url(&report, &format!("#game={n}&ply=end")),
        "--dump-dom",
    );
    assert!(
        dom.contains("data-viewer=\"ready\""),
        "the viewer's script ran to its end"
    );
    assert!(
        script_errors(&stderr).is_empty(),
        "{:?}",
        script_errors(&stderr)
    );
    assert!(
        between(&dom, "<pre id=\"js-errors\"", "</pre>").ends_with("hidden=\"\">"),
        "no error caught by the page"
    );
    // Standings: every engine.
    let standings = between(&dom, "<table id=\"standings\">", "</table>");
    for name in ["scout", "random"] {
        assert!(
            standings.contains(&format!("<td class=\"engine\">{name}</td>")),
            "{name}"
        );
    }
    // The LLR chart: one point per game.
    let llr = between(&dom, "<figure id=\"chart-llr\"", "</figure>");
    assert!(
        llr.starts_with(&format!(" data-points=\"{}\"", games.len())),
        "{}",
        &llr[..40]
    );
    let line = attrs(llr, "<polyline", "points")
        .into_iter()
        .zip(attrs(llr, "<polyline", "stroke"))
        .find(|(_, stroke)| *stroke == "#1F77B4")
        .map(|(points, _)| points)
        .expect("the LLR line");
    assert_eq!(line.split_whitespace().count(), games.len());
    // The viewer at the end of the game: the journal's stones, colours and termination.
    let board = between(&dom, "<svg id=\"board\"", "</svg>");
    let stones = format!(
        "{}{}",
        game["opening"].as_str().unwrap(),
        game["moves"].as_str().unwrap()
    );
    let shown: Vec<&str> = attrs(board, "<g class=\"stone", "data-pos");
    assert_eq!(shown.concat(), stones, "stones in play order");
    let colours = attrs(board, "<g class=\"stone", "data-color");
    assert!(colours
        .iter()
        .enumerate()
        .all(|(i, c)| *c == if i % 2 == 0 { "b" } else { "w" }));
    let status = between(&dom, "<p id=\"viewer-status\">", "</p>");
    let reason = game["reason"].as_str().unwrap();
    assert!(
        status.starts_with(&format!("End: {}", game["result"].as_str().unwrap())),
        "{status}"
    );
    assert!(
        status.contains(
            &reason
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
        ),
        "{status} / {reason}"
    );
    assert!(
        board.contains(&format!("data-ply=\"{}\"", shown.len()))
            || dom.contains(&format!("data-ply=\"{}\"", shown.len()))
    );
    // The evaluation graph: a dot per move the journal has an evaluation for (scout reports
    // its search, random does not), and the move list quotes the reports.
    let search = game["search"]
        .as_array()
        .expect("scout's reports in the journal");
    let evals = search.iter().filter(|s| s["ev"].is_string()).count();
    assert!(evals > 0);
    let graph = between(&dom, "<svg id=\"eval-graph\"", "</svg>");
    assert_eq!(
        attrs(&dom, "<svg id=\"eval-graph\"", "data-points"),
        [evals.to_string()]
    );
    assert_eq!(graph.matches("<circle").count(), evals, "{graph}");
    assert!(
        !graph.split('>').next().unwrap().contains("hidden"),
        "shown"
    );
    let moves = between(&dom, "<div id=\"viewer-moves\"", "</div>");
    assert_eq!(
        moves.matches(", depth ").count() + moves.matches("· depth ").count(),
        search.iter().filter(|s| s["d"].is_u64()).count(),
        "{moves}"
    );
    // A screenshot of the page.
    let png = dir.path().join("report.png");
    headless(
        &browser,
        &url(&report, &format!("#game={n}&ply=end")),
        &format!("--screenshot={}", png.display()),
    );
    let bytes = std::fs::read(&png).unwrap();
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 10_000,
        "{} bytes",
        bytes.len()
    );
}

#[test]
fn hostile_engine_names_and_messages_run_nothing_in_chromium() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (_, _) = renju_run(dir.path());
    let evil_a = "</script><script>alert(1)</script>";
    let evil_b = "<img src=x onerror=\"document.body.dataset.pwned=1\">";
    let evil_msg = "</script><script>document.title='pwned'</script><!--";
    let text = std::fs::read_to_string(dir.path().join("j.jsonl")).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["type"] == "header" {
            v["settings"]["engines"][0]["name"] = evil_a.into();
            v["settings"]["engines"][1]["name"] = evil_b.into();
        } else {
            v["messages"] = serde_json::json!([["black", evil_msg]]);
            v["reason"] =
                serde_json::Value::from(format!("{} {evil_b}", v["reason"].as_str().unwrap()));
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    report_of(dir.path(), "evil", &out);
    let (dom, stderr) = headless(
        &browser,
        &url(&dir.path().join("evil.html"), "#game=1&ply=end"),
        "--dump-dom",
    );
    assert!(
        dom.contains("data-viewer=\"ready\""),
        "the page's own script still runs"
    );
    assert!(
        script_errors(&stderr).is_empty(),
        "{:?}",
        script_errors(&stderr)
    );
    assert_eq!(
        dom.matches("<script").count(),
        2,
        "only the page's two scripts"
    );
    assert!(!dom.contains("<img"), "no element from a name or a reason");
    assert!(!dom.contains("data-pwned"), "no handler ran");
    assert!(
        !dom.contains("<title>pwned"),
        "no script from a message ran"
    );
    let standings = between(&dom, "<table id=\"standings\">", "</table>");
    assert!(
        standings.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the name shows as text"
    );
    let messages = between(&dom, "<ul id=\"viewer-messages\">", "</ul>");
    assert!(
        messages.contains("&lt;/script&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt;"),
        "{messages}"
    );
}

#[test]
fn a_report_larger_than_the_page_list_pages_through_every_game() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (_, games) = renju_run(dir.path());
    // 2,500 games made of the run's real ones, renumbered.
    let text = std::fs::read_to_string(dir.path().join("j.jsonl")).unwrap();
    let mut header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    header["settings"]["total_games"] = 2500.into();
    let mut out = format!("{header}\n");
    for n in 1..=2500u64 {
        let mut g = games[(n as usize - 1) % games.len()].clone();
        g["game"] = n.into();
        g["pair_game"] = (n - 1).into();
        out.push_str(&format!("{g}\n"));
    }
    report_of(dir.path(), "big", &out);
    let page = dir.path().join("big.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(
        html.matches("<tr class=\"e").count(),
        2000,
        "the page's own list"
    );
    let (dom, stderr) = headless(&browser, &url(&page, "#game=2500&ply=end"), "--dump-dom");
    assert!(
        script_errors(&stderr).is_empty(),
        "{:?}",
        script_errors(&stderr)
    );
    let rows = attrs(&dom, "<tr class=\"e", "data-game");
    assert_eq!(rows.len(), 500, "one page of the script's list");
    assert_eq!(rows.first(), Some(&"1"));
    assert_eq!(rows.last(), Some(&"500"));
    assert!(
        dom.contains("games 1–500 of 2500"),
        "{}",
        between(&dom, "<span id=\"page-info\">", "</span>")
    );
    assert!(
        dom.contains("data-game=\"2500\" data-ply="),
        "the viewer opened the last game"
    );
}

#[test]
fn the_report_of_a_tuning_draws_its_charts_in_chromium() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let params = dir.path().join("p.txt");
    std::fs::write(
        &params,
        "eval_four, int, 150, 0, 400, 20, 0.002\neval_open_three, float, 80.0, 0.0, 400.0, 20.0, 0.002\n",
    )
    .unwrap();
    Match::command(&["tune"])
        .engine("pbrain-scout", &["depth=1", "tc=0/60"])
        .opt("-params", params.display())
        .opt("-iterations", 3)
        .openings_file(
            common::repo_root().join("openings/freestyle15.txt"),
            &["type=pos"],
        )
        .rule(0)
        .boardsize(15)
        .journal("t.jsonl")
        .report("t.html")
        .noprogress()
        .run_in(dir.path())
        .assert_success();
    let page = dir.path().join("t.html");
    let (dom, stderr) = headless(&browser, &url(&page, ""), "--dump-dom");
    assert!(
        script_errors(&stderr).is_empty(),
        "{:?}",
        script_errors(&stderr)
    );
    let tune = between(&dom, "<section id=\"tune\">", "</section>");
    assert_eq!(
        attrs(tune, "<figure", "data-points"),
        ["3", "3"],
        "a chart per parameter, a point per iteration"
    );
    // Each chart has its band (a polygon) and its line.
    assert_eq!(tune.matches("<polygon").count(), 2, "{tune}");
    assert!(tune.matches("<polyline").count() >= 4, "{tune}");
}

/// The cells of each body row of the table that starts at `open` (as Chromium serializes it).
fn table_rows(dom: &str, open: &str) -> Vec<Vec<String>> {
    let body = between(between(dom, open, "</table>"), "<tbody>", "</tbody>");
    // `<tr` with whatever attributes a row has (the league marks the promoted by a class).
    body.split("<tr")
        .skip(1)
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|cell| between(cell, ">", "</td>").to_string())
                .collect()
        })
        .collect()
}

#[test]
fn the_rating_list_and_its_heat_map_show_in_chromium() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let scout = |depth: u32| format!("pbrain-scout --depth {depth}");
    let run = Match::new()
        .engine(&scout(2), &["name=deep"])
        .engine(&scout(1), &["name=shallow"])
        .engines("pbrain-random", &["rand1", "rand2"])
        .games(4)
        .repeat()
        .concurrency(2)
        .each(&["tc=0/5"])
        .journal("j.jsonl")
        .report("report.html")
        .run_in(dir.path());
    run.assert_success();
    // The console's list at the end of the run.
    assert!(
        run.stdout.contains("Rank Name"),
        "the rating list at the end: {}",
        run.stdout
    );
    let (dom, stderr) = headless(
        &browser,
        &url(&dir.path().join("report.html"), ""),
        "--dump-dom",
    );
    assert!(
        script_errors(&stderr).is_empty(),
        "{:?}",
        script_errors(&stderr)
    );
    let ratings = table_rows(&dom, "<table id=\"ratings\">");
    assert_eq!(ratings.len(), 4, "one row per engine");
    let elos: Vec<i64> = ratings.iter().map(|r| r[2].parse().unwrap()).collect();
    assert!(
        elos.windows(2).all(|w| w[0] >= w[1]),
        "rank order: {elos:?}"
    );
    assert!(elos.iter().sum::<i64>().abs() <= 2, "mean 0: {elos:?}");
    let los = table_rows(&dom, "<table id=\"los\" class=\"heat\">");
    assert_eq!(los.len(), 4);
    for (i, row) in los.iter().enumerate() {
        assert_eq!(row.len(), 4);
        assert_eq!(row[i], "", "the diagonal is empty");
        for (j, cell) in row.iter().enumerate().filter(|(j, _)| *j != i) {
            let p: i64 = cell.parse().unwrap();
            let q: i64 = los[j][i].parse().unwrap();
            assert!((p + q - 100).abs() <= 1, "LOS {i},{j}: {p} + {q}");
        }
    }
    // Every off-diagonal cell is coloured.
    let heat = between(&dom, "<table id=\"los\" class=\"heat\">", "</table>");
    assert_eq!(heat.matches("style=\"background: rgb(").count(), 12);
}

#[test]
fn a_leagues_promotion_shows_in_chromium() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    // deep and rand1 are 500 apart: no game; rand2 is unrated and meets everyone.
    std::fs::write(
        dir.path().join("last.txt"),
        "Rank Name Elo + - games score oppo. draws\n1 deep 1800 9 9 9 50% 0 0%\n\
         2 shallow 1500 9 9 9 50% 0 0%\n3 rand1 1300 9 9 9 50% 0 0%\n",
    )
    .unwrap();
    let run = Match::new()
        .engine("pbrain-scout --depth 2", &["name=deep"])
        .engine("pbrain-scout --depth 1", &["name=shallow"])
        .engines("pbrain-random", &["rand1", "rand2"])
        .args(&[
            "-tournament",
            "groups",
            "-groups",
            "ratings=last.txt",
            "promote=2",
        ])
        .games(2)
        .repeat()
        .each(&["tc=0/5"])
        .journal("j.jsonl")
        .report("report.html")
        .run_in(dir.path());
    run.assert_success();
    let (dom, stderr) = headless(
        &browser,
        &url(&dir.path().join("report.html"), ""),
        "--dump-dom",
    );
    assert!(
        script_errors(&stderr).is_empty(),
        "{:?}",
        script_errors(&stderr)
    );
    let rows = table_rows(&dom, "<table id=\"league\">");
    assert_eq!(rows.len(), 4, "one row per engine: {rows:?}");
    let marks: Vec<&str> = rows.iter().map(|r| r[6].as_str()).collect();
    assert_eq!(marks, ["promoted", "promoted", "", ""], "{rows:?}");
    // The promoted are those the console named, in its order.
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("Promoted (the top 2"))
        .unwrap();
    assert!(
        line.contains(&format!("1. {} (", rows[0][1])),
        "{line} vs {rows:?}"
    );
    assert!(
        line.contains(&format!("2. {} (", rows[1][1])),
        "{line} vs {rows:?}"
    );
    let rand2 = rows.iter().find(|r| r[1] == "rand2").unwrap();
    assert_eq!(rand2[2], "unrated");
    assert!(
        dom.contains("pairs out of the gap, no games: deep – rand1"),
        "the pair the gap kept apart"
    );
}

/// A knockout's bracket and a Swiss's rounds and standings, as the report of a real run of the
/// bundled engines shows them in Chromium: every round, each match with its engines, the winner.
#[test]
fn the_knockout_bracket_and_the_swiss_rounds_show_in_chromium() {
    let Some(browser) = chromium() else { return };
    let field = || {
        Match::new()
            .engine("pbrain-scout --depth 2", &["name=deep"])
            .engine("pbrain-scout --depth 1", &["name=shallow"])
            .engines("pbrain-random", &["rand1", "rand2", "rand3"])
            .games(2)
            .repeat()
            .concurrency(2)
            .each(&["tc=0/5"])
            .journal("j.jsonl")
            .report("report.html")
    };
    for (args, section) in [
        (
            &["-tournament", "knockout", "-seeds", "2", "-srand", "5"][..],
            "bracket",
        ),
        (&["-tournament", "swiss", "-rounds", "3"], "swiss"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        field().args(args).run_in(dir.path()).assert_success();
        let (dom, stderr) = headless(
            &browser,
            &url(&dir.path().join("report.html"), ""),
            "--dump-dom",
        );
        assert!(
            script_errors(&stderr).is_empty(),
            "{:?}",
            script_errors(&stderr)
        );
        let shown = between(&dom, &format!("<section id=\"{section}\">"), "</section>");
        // Three rounds: a knockout of five in a bracket of eight, or the Swiss's -rounds.
        for r in 1..=3 {
            assert!(
                shown.contains(&format!("<table class=\"round\" id=\"round-{r}\">")),
                "{section}: round {r}"
            );
        }
        assert!(!shown.contains("round-4"), "{section}");
        let rounds = between(shown, "<div class=\"rounds\">", "</div>");
        for name in ["deep", "shallow", "rand1", "rand2", "rand3"] {
            assert!(
                rounds.contains(&format!("{name}</td>")),
                "{section}: {name}"
            );
        }
        assert!(
            between(shown, "<p id=\"winner\">", "</p>").starts_with("Winner: <b>"),
            "{section}"
        );
        if section == "bracket" {
            assert!(rounds.contains("<caption>Final</caption>"));
            assert_eq!(
                rounds.matches("<tr class=\"match\">").count(),
                4 + 2 + 1,
                "bracket places"
            );
        } else {
            let standings = table_rows(&dom, "<table id=\"swiss-standings\">");
            assert_eq!(standings.len(), 5, "one row per engine");
            // Three rounds: every engine played two or three matches of two games.
            assert!(
                standings
                    .iter()
                    .all(|r| ["4", "6"].contains(&r[4].as_str())),
                "{standings:?}"
            );
        }
    }
}
