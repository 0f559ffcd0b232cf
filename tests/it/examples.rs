//! Every example command line of the docs (README.md, CONTRIBUTING.md, docs/**/*.md but the files
//! of [`EXEMPT`]) and of the help (`--help`, `help CMD`) is read by the program's own parser, the
//! one table of options; those that play a match or check an engine with the bundled engines only
//! are run, as a new user would paste them. Every relative link of every markdown file of the
//! repository leads to a file (and a heading) that exists.

use crate::common;

use common::{bin_dir, repo_root, run_in};
use gomoku_cli::cli::help;
use gomoku_cli::cli::parse::parse;
use gomoku_cli::cli::table::Command;

/// The words of a shell line: spaces split, '...' and "..." quote (enough for the docs).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut in_word = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                }
                in_word = false;
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Markdown files whose command lines are not examples, and why: the options reference is
/// generated from the table (`cli::help`), so its synopses are the help's, read below as such;
/// BENCHMARKS.md records measurements, run by hand, whose commands name machines, builds and
/// engines CI lacks (Rapfi, c-gomoku-cli, builds of earlier commits) or play thousands of games,
/// and keep the syntax of the commit they measured.
const EXEMPT: [&str; 2] = ["docs/reference/options.md", "docs/design/BENCHMARKS.md"];

/// The markdown files under `dir` (relative to the repository), in a stable order; build
/// outputs and hidden folders left out.
fn markdown_under(dir: &str) -> Vec<String> {
    fn walk(dir: &std::path::Path, rel: &str, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap())
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name().to_string_lossy().into_owned();
            let rel = match rel {
                "" => name.clone(),
                _ => format!("{rel}/{name}"),
            };
            if e.file_type().unwrap().is_dir() {
                if !name.starts_with('.') && name != "target" {
                    walk(&e.path(), &rel, out);
                }
            } else if name.ends_with(".md") {
                out.push(rel);
            }
        }
    }
    let mut files = Vec::new();
    walk(&repo_root().join(dir), dir, &mut files);
    files
}

/// Every markdown file of the docs, relative to the repository: README.md, CONTRIBUTING.md and
/// those under docs/.
fn doc_files() -> Vec<String> {
    let mut files = vec!["README.md".to_string(), "CONTRIBUTING.md".to_string()];
    files.extend(markdown_under("docs"));
    files
}

/// The command lines of a markdown text's code blocks that run gomoku-cli, with their line
/// numbers: continuation lines joined, a prompt, a leading `cmd &&` or `... |`, a trailing comment
/// or pipe cut off. Synopses (`[OPTIONS]`, `...`) are not examples and are left out.
fn examples_of(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_code = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if !in_code {
            continue;
        }
        let (number, line) = match pending.take() {
            Some((n, head)) => (n, format!("{head} {}", line.trim())),
            None => (i + 1, line.trim().to_string()),
        };
        if let Some(head) = line.strip_suffix('\\') {
            pending = Some((number, head.trim_end().to_string()));
            continue;
        }
        let line = line.strip_prefix("$ ").unwrap_or(&line);
        let starts = ["", "./target/release/", "target/release/", "target/debug/"];
        let start = line
            .match_indices("gomoku-cli ")
            .map(|(at, _)| at)
            .find(|&at| {
                let before = &line[..at];
                starts.iter().any(|s| {
                    let b = before.strip_suffix(s).unwrap_or("-");
                    b.is_empty() || b.ends_with("&& ") || b.ends_with("| ")
                })
            });
        let Some(start) = start else { continue };
        let command = &line[start..];
        let command = command.split(" | ").next().unwrap();
        let command = command.split(" # ").next().unwrap().trim();
        if command.contains(" [") || command.contains("...") {
            continue;
        }
        out.push((number, command.to_string()));
    }
    out
}

/// The example command lines of every doc file but the exempt ones, each with its `FILE:LINE`.
fn doc_examples() -> Vec<(String, String)> {
    doc_files()
        .into_iter()
        .filter(|f| !EXEMPT.contains(&f.as_str()))
        .flat_map(|f| {
            let text = std::fs::read_to_string(repo_root().join(&f)).unwrap();
            examples_of(&text)
                .into_iter()
                .map(move |(n, l)| (format!("{f}:{n}"), l))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The examples of the help, every command's.
fn help_examples() -> Vec<String> {
    Command::ALL
        .into_iter()
        .flat_map(|c| help::examples(c).iter().map(|e| e.to_string()))
        .collect()
}

/// The command and its arguments of a command line starting with the program.
fn command_of(line: &str) -> (Command, Vec<String>) {
    let words = shell_words(line);
    let args = words[1..].to_vec();
    match Command::of_words(&args) {
        Some((c, n)) => (c, args[n..].to_vec()),
        None => (Command::Run, args),
    }
}

#[test]
fn the_docs_have_examples_of_every_kind() {
    let examples = doc_examples();
    assert!(
        examples.iter().any(|(at, _)| at.starts_with("README.md:")),
        "README.md shows no command line: {examples:?}"
    );
    let commands: std::collections::BTreeSet<Command> =
        examples.iter().map(|(_, l)| command_of(l).0).collect();
    for c in [
        Command::Run,
        Command::Sprt,
        Command::LibMerge,
        Command::Check,
        Command::Judge,
        Command::Tune,
        Command::Report,
        Command::OpeningsCanonical,
        Command::OpeningsAudit,
        Command::OpeningsGenerate,
    ] {
        assert!(
            commands.contains(&c),
            "no example of {c:?} in the docs: {examples:?}"
        );
    }
}

#[test]
fn every_example_of_the_docs_and_the_help_parses() {
    let docs = doc_examples().into_iter();
    let help = help_examples()
        .into_iter()
        .map(|l| ("the help".to_string(), l));
    for (at, line) in docs.chain(help) {
        let (command, args) = command_of(&line);
        parse(command, &args).unwrap_or_else(|e| panic!("{at}: {line}: {e}"));
        // The runner's examples are read into what `config` checks.
        if command == Command::Run {
            gomoku_cli::cli::parse_legacy(&args).unwrap_or_else(|e| panic!("{at}: {line}: {e}"));
        }
    }
}

/// Run an example with the bundled engines (a match or a check): its `target/release/` and
/// `target/debug/` engines are this build's, its opening and ratings files the repository's; in a folder of
/// its own.
fn run_example(line: &str) {
    let bins = format!("{}/", bin_dir().display());
    let root = format!("{}/", repo_root().display());
    // Through a mark, so that a replaced path is not replaced again.
    let line = line
        .replace("./target/release/", "\u{0}")
        .replace("target/release/", "\u{0}")
        .replace("target/debug/", "\u{0}")
        .replace('\u{0}', &bins)
        .replace("file=openings/", &format!("file={root}openings/"))
        .replace("ratings=docs/", &format!("ratings={root}docs/"));
    let words = shell_words(&line);
    let dir = tempfile::tempdir().unwrap();
    let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    let run = run_in(dir.path(), &args);
    assert_eq!(run.code(), Some(0), "{line}\n{}", run.stderr);
    let last = match command_of(&line).0 {
        Command::Run => "Finished",
        _ => " 0 fail",
    };
    assert!(run.stdout.contains(last), "{line}\n{}", run.stdout);
    if let Some(i) = args.iter().position(|a| *a == "-report") {
        assert!(dir.path().join(args[i + 1]).exists(), "{line}");
    }
}

/// Whether every engine of a line is a bundled one.
fn bundled_engines_only(line: &str) -> bool {
    let cmds: Vec<&str> = line
        .split_whitespace()
        .filter_map(|w| w.strip_prefix("cmd="))
        .collect();
    !cmds.is_empty()
        && cmds
            .iter()
            .all(|c| c.contains("target/") && c.contains("pbrain-"))
}

#[test]
fn the_matches_and_checks_of_the_docs_and_the_help_run() {
    let docs = doc_examples().into_iter().map(|(_, l)| l);
    let runs: Vec<String> = docs
        .chain(help_examples())
        .filter(|l| matches!(command_of(l).0, Command::Run | Command::Check))
        .filter(|l| bundled_engines_only(l))
        .collect();
    assert!(runs.len() >= 4, "{runs:?}");
    for line in runs {
        run_example(&line);
    }
}

/// The docs written by hand, one text: every doc file but the generated reference, which names
/// every option by construction.
fn handwritten_docs() -> String {
    doc_files()
        .into_iter()
        .filter(|f| f != "docs/reference/options.md")
        .map(|f| std::fs::read_to_string(repo_root().join(f)).unwrap())
        .collect()
}

#[test]
fn the_docs_name_every_option_and_key_of_every_command() {
    use gomoku_cli::cli::table::{rows_of, Takes};
    let text = handwritten_docs();
    let mut missing = Vec::new();
    for c in Command::ALL {
        for row in rows_of(c) {
            let named = match row.takes {
                Takes::Positional { .. } => continue,
                Takes::Key { .. } if row.name().ends_with(".K") => row.name().replace(".K", "."),
                Takes::Key { .. } => format!("{}=", row.name()),
                _ => row.name().to_string(),
            };
            if !text.contains(&named) {
                missing.push(format!("{} {named}", c.title()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "the docs (README.md, CONTRIBUTING.md, docs/ but the generated reference) do not name: \
         {missing:?}"
    );
}

#[test]
fn the_reference_lists_every_exit_code_and_termination() {
    let page = |f: &str| std::fs::read_to_string(repo_root().join(f)).unwrap();
    let exits = page("docs/reference/exit-codes.md");
    for (code, _) in gomoku_cli::cli::table::EXIT_CODES {
        assert!(
            exits.contains(&format!("\n| {code} | ")),
            "docs/reference/exit-codes.md has no row for exit code {code}"
        );
    }
    let terminations = page("docs/reference/terminations.md");
    // Each row says what the one table says: report label, PGN tag, SGF suffix, fault, samples.
    for kind in gomoku_cli::game::termination::TerminationKind::ALL {
        let row = kind.row();
        let line = terminations
            .lines()
            .find(|l| l.starts_with(&format!("| `{}` | ", row.code)))
            .unwrap_or_else(|| panic!("docs/reference/terminations.md has no row `{}`", row.code));
        // | code | report | who loses | PGN | SGF | engine fault | samples | reason |
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let yes = |b: bool| if b { "yes" } else { "no" };
        let sgf_ok = cells[5] == "`0`"
            || cells[5]
                .split(", ")
                .all(|f| f.ends_with(&format!("+{}`", row.sgf)));
        assert!(
            cells[2] == row.label
                && cells[4] == format!("`{}`", row.pgn.as_str())
                && sgf_ok
                && (cells[6] == "yes") == row.fault
                && cells[7] == yes(row.samples),
            "docs/reference/terminations.md: the row {line:?} does not say what the table says: {row:?}"
        );
    }
}

/// The anchors of a markdown text's headings, as GitHub makes them: lower case, punctuation
/// dropped but `-` and `_`, spaces made `-`; a repeated one gets `-1`, `-2`, ...
fn anchors_of(text: &str) -> Vec<String> {
    let mut anchors: Vec<String> = Vec::new();
    let mut seen = std::collections::HashMap::<String, usize>::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        let Some(title) = (!in_code && line.starts_with('#'))
            .then(|| line.trim_start_matches('#'))
            .and_then(|t| t.strip_prefix(' '))
        else {
            continue;
        };
        let slug: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let times = seen.entry(slug.clone()).or_default();
        anchors.push(match *times {
            0 => slug,
            n => format!("{slug}-{n}"),
        });
        *times += 1;
    }
    anchors
}

/// The targets of a markdown text's links and images (`[text](target)`) outside code, with their
/// line numbers.
fn links_of(text: &str) -> Vec<(usize, String)> {
    let mut links = Vec::new();
    let mut in_code = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Outside inline code: every other piece between backticks.
        for prose in line.split('`').step_by(2) {
            let mut rest = prose;
            while let Some(at) = rest.find("](") {
                let after = &rest[at + 2..];
                let Some(end) = after.find(')') else { break };
                links.push((i + 1, after[..end].to_string()));
                rest = &after[end..];
            }
        }
    }
    links
}

#[test]
fn the_anchors_are_githubs() {
    let text = "# Swap openings (`-swap2`, `-swap1`)\n```\n# not a heading\n```\n\
                ## The HTML report (`-report`, `gomoku-cli report`)\n## Notes\n### Notes\n";
    assert_eq!(
        anchors_of(text),
        [
            "swap-openings--swap2--swap1",
            "the-html-report--report-gomoku-cli-report",
            "notes",
            "notes-1"
        ]
    );
    let links = links_of("see [a](b.md#c) and `[x](y)` and ![p](../p.png)\n```\n[q](r)\n```\n");
    assert_eq!(
        links,
        [(1, "b.md#c".to_string()), (1, "../p.png".to_string())]
    );
}

#[test]
fn every_relative_link_of_the_docs_leads_somewhere() {
    let mut broken = Vec::new();
    let mut checked = 0;
    // The docs and every other markdown file of the repository (bench/, openings/, examples/).
    let files = markdown_under("");
    assert!(doc_files().iter().all(|f| files.contains(f)), "{files:?}");
    for file in files {
        let path = repo_root().join(&file);
        let text = std::fs::read_to_string(&path).unwrap();
        for (line, target) in links_of(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (to, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let to = match to {
                "" => path.clone(),
                to => path.parent().unwrap().join(to),
            };
            let Ok(linked) = std::fs::metadata(&to) else {
                broken.push(format!("{file}:{line}: {target}: no such file"));
                continue;
            };
            if anchor.is_empty() || !linked.is_file() {
                continue;
            }
            let anchors = anchors_of(&std::fs::read_to_string(&to).unwrap());
            if !anchors.iter().any(|a| a == anchor) {
                broken.push(format!("{file}:{line}: {target}: no such heading"));
            }
        }
    }
    assert!(checked > 50, "only {checked} links read");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// c-gomoku-cli's README (`../shared/reference`), or `None` after saying so when it is absent;
/// under `CI=true` its absence fails the test.
fn predecessor_readme() -> Option<String> {
    let path = repo_root().join("../shared/reference/c-gomoku-cli-README.md");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(_) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("c-gomoku-cli's README missing at {}", path.display())
        }
        Err(_) => {
            println!(
                "skipping: c-gomoku-cli's README not found at {}",
                path.display()
            );
            None
        }
    }
}

#[test]
fn the_predecessors_readme_examples_and_options_are_ours() {
    let Some(text) = predecessor_readme() else {
        return;
    };
    // Its example command lines (code blocks, continuation lines joined), synopses left out.
    let mut examples = Vec::new();
    let mut in_code = false;
    let mut pending = String::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        let line = format!("{pending}{}", line.trim());
        pending.clear();
        if let Some(head) = line.strip_suffix('\\') {
            pending = head.to_string();
            continue;
        }
        if in_code && line.starts_with("c-gomoku-cli ") && !line.contains(" [") {
            examples.push(line);
        }
    }
    // And the examples in its prose: `-sample freq=0.25 format=csv file=out.csv `.
    examples.push("c-gomoku-cli -sample freq=0.25 format=csv file=out.csv".into());
    assert!(!examples.is_empty());
    for line in &examples {
        let words = shell_words(line);
        gomoku_cli::cli::parse_legacy(&words[1..]).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
    // Every option of its list (` * `name ...``) is one of the match runner's, every engine
    // option (`cmd=...`) one of -engine's keys.
    let runner: Vec<&str> = gomoku_cli::cli::table::rows_of(Command::Run)
        .flat_map(|r| r.names.iter().map(|n| n.trim_start_matches('-')))
        .collect();
    let mut options = 0;
    for line in text.lines() {
        let Some(rest) = line.strip_prefix(" * `") else {
            continue;
        };
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
            .collect();
        let word = word
            .strip_prefix("option.")
            .map_or(word.as_str(), |_| "option.K");
        assert!(
            runner.contains(&word),
            "c-gomoku-cli's {word} is not an option or key of ours"
        );
        options += 1;
    }
    assert!(options > 20, "{options} options read");
}
