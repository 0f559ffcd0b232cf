//! Every example command line of README.md and of the help (`--help`, `help CMD`) is read by the
//! program's own parser, the one table of options; those that play a match between the bundled
//! engines are run, as a new user would paste them.

use crate::common;

use common::{bin_dir, repo_root, run_in};
use gomoku_cli::cli::help;
use gomoku_cli::cli::parse::parse;
use gomoku_cli::cli::table::Command;

/// The words of a shell line: spaces split, '...' and "..." quote (enough for the README).
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

/// The command lines of README.md's code blocks that run gomoku-cli, with their line numbers:
/// continuation lines joined, a prompt, a leading `cmd &&` or `... |`, a trailing comment or
/// pipe cut off. Synopses (`[OPTIONS]`, `...`) are not examples and are left out.
fn readme_examples() -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let mut out = Vec::new();
    let mut in_code = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("```") {
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
fn the_readme_has_examples_of_every_kind() {
    let examples = readme_examples();
    let commands: std::collections::BTreeSet<Command> =
        examples.iter().map(|(_, l)| command_of(l).0).collect();
    for c in [
        Command::Run,
        Command::Sprt,
        Command::LibMerge,
        Command::Check,
        Command::Judge,
    ] {
        assert!(
            commands.contains(&c),
            "no README example of {c:?}: {examples:?}"
        );
    }
}

#[test]
fn every_example_of_the_readme_and_the_help_parses() {
    let readme = readme_examples().into_iter();
    let help = help_examples().into_iter().map(|l| (0, l));
    for (number, line) in readme.chain(help) {
        let (command, args) = command_of(&line);
        let where_ = match number {
            0 => "the help".to_string(),
            n => format!("README.md:{n}"),
        };
        parse(command, &args).unwrap_or_else(|e| panic!("{where_}: {line}: {e}"));
        // The runner's examples are read into what `config` checks.
        if command == Command::Run {
            gomoku_cli::cli::parse_legacy(&args).unwrap();
        }
    }
}

/// Run an example with the bundled engines (a match or a check): its `target/release/` and
/// `target/debug/` engines are this build's, its opening files the repository's; in a folder of
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
        .replace("file=openings/", &format!("file={root}openings/"));
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
fn the_quick_start_matches_and_checks_of_the_readme_and_the_help_run() {
    let readme = readme_examples().into_iter().map(|(_, l)| l);
    let runs: Vec<String> = readme
        .chain(help_examples())
        .filter(|l| matches!(command_of(l).0, Command::Run | Command::Check))
        .filter(|l| bundled_engines_only(l))
        .collect();
    assert!(runs.len() >= 4, "{runs:?}");
    for line in runs {
        run_example(&line);
    }
}

#[test]
fn the_readme_names_every_option_and_key_of_every_command() {
    use gomoku_cli::cli::table::{rows_of, Takes};
    let text = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
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
    assert!(missing.is_empty(), "README.md does not name: {missing:?}");
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
