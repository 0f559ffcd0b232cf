//! Everything the program says about its options, written from the table (`cli::table`): the
//! `--help` of the match runner, `help CMD` of each command, the man page (`help --man`) and the
//! reference page docs/reference/options.md. Pure functions of the table, tested against the
//! committed files.

use crate::cli::table::{self, Command, Row, Section, Takes, EXIT_CODES};

/// The text width of the help.
const WIDTH: usize = 100;
/// The column where an option's help starts.
const HELP_COLUMN: usize = 26;

/// `gomoku-cli help lib merge` (or `gomoku-cli --help` for the match runner).
pub fn help_command(command: Command) -> String {
    match command {
        Command::Run => "gomoku-cli --help".into(),
        c => format!("gomoku-cli help {}", c.words().join(" ")),
    }
}

/// How an option or key is written with its value: `-games N`, `cmd=COMMAND`, `--json`, `FILE...`.
pub fn spec(row: &Row) -> String {
    match row.takes {
        Takes::Key { .. } => format!("{}={}", row.name(), row.value),
        Takes::Positional { max, .. } => match max {
            Some(1) => row.name().to_string(),
            Some(_) => row.name().to_string(),
            None => format!("{}...", row.name()),
        },
        _ => {
            let names = row.names.join(", ");
            match row.value {
                "" => names,
                v => format!("{names} {v}"),
            }
        }
    }
}

/// The sections of `command` with their rows: each option followed by its keys.
fn sections(command: Command) -> Vec<(Section, Vec<(&'static Row, bool)>)> {
    let mut out: Vec<(Section, Vec<(&'static Row, bool)>)> = Vec::new();
    let mut rows: Vec<&'static Row> = table::rows_of(command)
        .filter(|r| !matches!(r.takes, Takes::Key { .. }))
        .collect();
    rows.sort_by_key(|r| r.section);
    for row in rows {
        let mut list = vec![(row, false)];
        list.extend(
            table::rows_of(command)
                .filter(|k| k.takes == Takes::Key { parent: row.name() })
                .map(|k| (k, true)),
        );
        match out.last_mut() {
            Some((s, l)) if *s == row.section => l.extend(list),
            _ => out.push((row.section, list)),
        }
    }
    out
}

/// `text` wrapped to `WIDTH`, every line but the first indented by `indent`.
fn wrap(text: &str, first: usize, indent: usize) -> String {
    let mut out = String::new();
    let mut column = first;
    let mut line_empty = true;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if !line_empty && column + 1 + len > WIDTH {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            column = indent;
            line_empty = true;
        }
        if !line_empty {
            out.push(' ');
            column += 1;
        }
        out.push_str(word);
        column += len;
        line_empty = false;
    }
    out
}

/// One option line (and its continuation lines) of the text help.
fn option_lines(row: &Row, key: bool) -> String {
    let indent = if key { 4 } else { 2 };
    let spec = spec(row);
    let mut out = format!("{}{spec}", " ".repeat(indent));
    let used = indent + spec.chars().count();
    if used + 2 > HELP_COLUMN {
        out.push('\n');
        out.push_str(&" ".repeat(HELP_COLUMN));
    } else {
        out.push_str(&" ".repeat(HELP_COLUMN - used));
    }
    out.push_str(&wrap(row.help, HELP_COLUMN, HELP_COLUMN));
    out.push('\n');
    out
}

fn exit_codes_text() -> String {
    let mut out = String::from("EXIT CODES\n");
    for (code, what) in EXIT_CODES {
        let head = format!("  {code:<5}");
        out.push_str(&head);
        out.push_str(&wrap(what, head.len(), head.len()));
        out.push('\n');
    }
    out
}

/// The options of `command` by section, as text.
fn options_text(command: Command) -> String {
    let mut out = String::new();
    for (section, rows) in sections(command) {
        out.push('\n');
        out.push_str(section.title());
        out.push('\n');
        for (row, key) in rows {
            out.push_str(&option_lines(row, key));
        }
    }
    out
}

/// `gomoku-cli --help`: every command's synopsis, then the match runner's options.
pub fn main_help() -> String {
    let mut out = String::from(
        "gomoku-cli — tournament runner for gomoku/renju engines speaking the Gomocup (pbrain) protocol\n\nUSAGE:\n",
    );
    for c in Command::ALL {
        out.push_str(&format!("  {} {}\n", c.title(), c.synopsis()));
    }
    out.push_str("  gomoku-cli help COMMAND       the options of a command (e.g. gomoku-cli help lib merge)\n");
    out.push_str("  gomoku-cli help --man         all of it as a man page: gomoku-cli help --man | man -l -\n\n");
    out.push_str(&wrap(Command::Run.about(), 0, 0));
    out.push('\n');
    out.push_str(&options_text(Command::Run));
    out.push_str(&examples_text(Command::Run));
    out.push('\n');
    out.push_str(&exit_codes_text());
    out
}

fn examples_text(command: Command) -> String {
    let examples = examples(command);
    if examples.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nEXAMPLES\n");
    for e in examples {
        out.push_str(&format!("  {e}\n"));
    }
    out
}

/// `gomoku-cli help CMD` and `gomoku-cli CMD --help`.
pub fn command_help(command: Command) -> String {
    if command == Command::Run {
        return main_help();
    }
    let mut out = format!("usage: {} {}\n\n", command.title(), command.synopsis());
    out.push_str(&wrap(command.about(), 0, 0));
    out.push('\n');
    out.push_str(&options_text(command));
    out.push_str("  -h, --help              this help\n");
    out.push_str(&examples_text(command));
    out.push('\n');
    out.push_str(&exit_codes_text());
    out
}

/// Example command lines of `command` (each one is parsed by a test; those of the match runner
/// name the bundled engines and are run by a test).
pub fn examples(command: Command) -> &'static [&'static str] {
    match command {
        Command::Run => &[
            "gomoku-cli -engine cmd=target/debug/pbrain-scout -engine cmd=target/debug/pbrain-random -each tc=10/0.1 -games 4 -repeat -concurrency 2 -journal off",
            "gomoku-cli -engine cmd=./new -engine cmd=./old -each tc=10/0.1 -games 5000 -repeat -sprt elo0=0 elo1=5 -journal run.jsonl",
            "gomoku-cli -engine cmd=./new -engine cmd=./old -each tc=10/0.1 -games 5000 -repeat -sprt elo0=0 elo1=5 -journal run.jsonl -resume",
        ],
        Command::Check => &["gomoku-cli check -engine cmd=target/debug/pbrain-scout -rule 0,4"],
        Command::Tune => &["gomoku-cli tune -engine cmd=./engine depth=3 tc=0/10 -params p.txt -iterations 200 -pairs 4 -srand 1"],
        Command::Judge => &["gomoku-cli judge --rule 4 --to-move black problems.txt"],
        Command::Sprt => &[
            "gomoku-cli sprt --ptnml 10,20,30,25,15 --elo0 0 --elo1 5",
            "gomoku-cli sprt --wld 120,100,80 --model logistic --json",
        ],
        Command::SamplesStats => &["gomoku-cli samples stats sample.bin.lz4"],
        Command::Export => &["gomoku-cli export run.jsonl -pgn run.pgn -sample freq=1 format=bin"],
        Command::Merge => &["gomoku-cli merge rundir/ --json"],
        Command::Ratings => &[
            "gomoku-cli ratings rundir/ other.pgn --min-games 20",
            "gomoku-cli ratings gomocup2024.pgn --gomocup --los",
        ],
        Command::LibStats => &["gomoku-cli lib stats book.lib --json"],
        Command::LibDump => &["gomoku-cli lib dump --paths --notation pos book.lib"],
        Command::LibMerge => &["gomoku-cli lib merge -o book.lib --into book.lib --stats a.jsonl b.sgf"],
        Command::Report => &["gomoku-cli report rundir/ -o report.html"],
        Command::OpeningsCanonical => &["gomoku-cli openings canonical mine.txt type=pos -o mine-canonical.txt --counts counts.tsv"],
        Command::OpeningsAudit => &["gomoku-cli openings audit rundir/ --json"],
        Command::OpeningsGenerate => &["gomoku-cli openings generate -engine cmd=./engine depth=7 -count 1000 -balance 60 -o balanced.txt"],
        Command::EnginesList => &["gomoku-cli engines list --json"],
        Command::EnginesAdd => &["gomoku-cli engines add scout cmd=target/debug/pbrain-scout tc=10/0.1 option.hash=64"],
        Command::EnginesCheck => &["gomoku-cli engines check scout -rule 0,4"],
    }
}

/// A man page text escaped for roff (the `roff` crate escapes what it is given).
fn man_option(page: &mut roff::Roff, row: &Row) {
    use roff::{bold, italic, roman};
    let head = match row.takes {
        Takes::Key { .. } => vec![bold(format!("{}=", row.name())), italic(row.value)],
        Takes::Positional { .. } => vec![italic(spec(row))],
        _ => {
            let mut h = vec![bold(row.names.join(", "))];
            if !row.value.is_empty() {
                h.push(roman(" "));
                h.push(italic(row.value));
            }
            h
        }
    };
    page.control("TP", []).text(head).text([roman(row.help)]);
}

/// The man page, gomoku-cli(1), of every command.
pub fn man_page() -> String {
    use roff::{bold, roman, Roff};
    let version = env!("CARGO_PKG_VERSION");
    let mut page = Roff::new();
    page.control(
        "TH",
        ["GOMOKU-CLI", "1", "", &format!("gomoku-cli {version}")],
    );
    page.control("SH", ["NAME"]).text([roman(
        "gomoku-cli - tournament runner for gomoku/renju engines speaking the Gomocup (pbrain) protocol",
    )]);
    page.control("SH", ["SYNOPSIS"]);
    for c in Command::ALL {
        page.text([bold(c.title()), roman(format!(" {}", c.synopsis()))])
            .control("br", []);
    }
    page.control("SH", ["DESCRIPTION"])
        .text([roman(Command::Run.about())]);
    for c in Command::ALL {
        let title = match c {
            Command::Run => "MATCH OPTIONS".to_string(),
            c => c.title().to_uppercase(),
        };
        page.control("SH", [title.as_str()]);
        if c != Command::Run {
            page.text([bold(c.title()), roman(format!(" {}", c.synopsis()))]);
            page.control("PP", []).text([roman(c.about())]);
        }
        for (section, rows) in sections(c) {
            page.control("SS", [section.title()]);
            for (row, key) in rows {
                if key {
                    page.control("RS", []);
                }
                man_option(&mut page, row);
                if key {
                    page.control("RE", []);
                }
            }
        }
        let examples = examples(c);
        if !examples.is_empty() {
            page.control("SS", ["EXAMPLES"]);
            for e in examples {
                page.control("PP", []).text([roman(*e)]);
            }
        }
    }
    page.control("SH", ["EXIT STATUS"]);
    for (code, what) in EXIT_CODES {
        page.control("TP", [])
            .text([bold(code.to_string())])
            .text([roman(*what)]);
    }
    page.control("SH", ["SEE ALSO"]).text([roman(
        "docs/guide/ (a page per task) and docs/reference/ (options, exit codes, terminations, errors) in the source tree; README.md links them.",
    )]);
    page.render()
}

/// A markdown table cell: `|` escaped.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// docs/reference/options.md: every command's options as tables.
pub fn reference() -> String {
    let mut out = String::from(
        "# Options reference\n\n<!-- Generated from src/cli/table.rs by `GOMOKU_CLI_BLESS=1 cargo test --lib cli::help`; do not edit. -->\n\n\
         Every option of every command, from the one table the parsers and `--help` are built from.\n\
         `gomoku-cli help --man | man -l -` shows the same as a man page. Every option may be written\n\
         with one dash or two (`-json`, `--json`), and a value option as `--name=value`.\n",
    );
    for c in Command::ALL {
        out.push_str(&format!(
            "\n## `{}`\n\n```\n{} {}\n```\n\n{}\n",
            c.title(),
            c.title(),
            c.synopsis(),
            c.about()
        ));
        for (section, rows) in sections(c) {
            out.push_str(&format!(
                "\n### {}\n\n| option | meaning |\n|---|---|\n",
                section.title()
            ));
            for (row, key) in rows {
                let spec = cell(&spec(row));
                let spec = if key {
                    format!("&nbsp;&nbsp;`{spec}`")
                } else {
                    format!("`{spec}`")
                };
                out.push_str(&format!("| {spec} | {} |\n", cell(row.help)));
            }
        }
    }
    out.push_str("\n## Exit codes\n\n| code | meaning |\n|---|---|\n");
    for (code, what) in EXIT_CODES {
        out.push_str(&format!("| {code} | {} |\n", cell(what)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed file `path` (from the repository root) equals `text`; with
    /// `GOMOKU_CLI_BLESS=1` it is written instead.
    fn committed(path: &str, text: &str) {
        let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        if std::env::var_os("GOMOKU_CLI_BLESS").is_some() {
            std::fs::write(&full, text).unwrap();
            return;
        }
        let on_disk = std::fs::read_to_string(&full).unwrap_or_default();
        assert!(
            on_disk == text,
            "{path} is not what the table gives: run `GOMOKU_CLI_BLESS=1 cargo test --lib cli::help` and commit it"
        );
    }

    #[test]
    fn the_committed_reference_and_man_page_are_the_tables() {
        committed("docs/reference/options.md", &reference());
        committed("docs/reference/gomoku-cli.1", &man_page());
    }

    #[test]
    fn every_row_appears_in_its_commands_help_man_page_and_reference() {
        let man = man_page();
        let reference = reference();
        for c in Command::ALL {
            let help = command_help(c);
            for row in table::rows_of(c) {
                let s = spec(row);
                assert!(help.contains(&s), "{s} not in the help of {c:?}");
                assert!(help.contains(row.help.split_whitespace().next().unwrap()));
                assert!(reference.contains(&cell(&s)), "{s} not in the reference");
                assert!(
                    man.contains(&roff_escaped(row.name())),
                    "{} not in the man page",
                    row.name()
                );
            }
        }
    }

    /// How roff writes `text` (dashes escaped).
    fn roff_escaped(text: &str) -> String {
        text.replace('-', "\\-")
    }

    #[test]
    fn the_help_states_what_it_used_to_leave_out_and_not_what_was_false() {
        let help = main_help();
        for needed in [
            "-records",
            "detail=",
            "eval=",
            "multipv=",
            "-shard",
            "-rundir",
            "-syncinterval",
            "  5 ",
        ] {
            assert!(help.contains(needed), "--help lacks {needed}");
        }
        assert!(!help.contains("no effect"), "{help}");
        let check = command_help(Command::Check);
        assert!(!check.contains("is not built"));
    }

    #[test]
    fn help_lines_fit_the_width() {
        for c in Command::ALL {
            for line in command_help(c).lines() {
                // A long spelling or example may not be broken.
                let long_word = line.split_whitespace().any(|w| w.len() > 40);
                assert!(
                    line.chars().count() <= WIDTH
                        || long_word
                        || line.starts_with("  gomoku-cli")
                        || line.starts_with("usage: "),
                    "{c:?}: {line}"
                );
            }
        }
    }
}
