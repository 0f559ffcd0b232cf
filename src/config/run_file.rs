//! A run from a file: `-config FILE` reads options from a text file, one per line written as on
//! the command line (`-each tc=10/1`, `-engine conf=rapfi`, `-games 100`; `#` comment lines and
//! blank lines skipped), through the same table and parser as the command line; the command
//! line's options win. `-config save FILE` (the match runner) writes a run's options in that
//! form. Pure but for [`load`], which reads the file.

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::cli::parse::{parse, Given};
use crate::cli::table::{self, Command, Row};
use crate::cli::KeyValues;
use crate::config::named::quote_word;

/// Why `-config` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RunFileError {
    /// `-config` at the end of the command line, or `-config save` without a file.
    #[error("-config: needs FILE, or save FILE")]
    MissingValue,
    /// Two files to read, or two to write.
    #[error("-config{what} given twice ({first} and {second}): give one")]
    Twice {
        what: &'static str,
        first: String,
        second: String,
    },
    /// The file cannot be read.
    #[error("-config {}: {why}", path.display())]
    Read { path: PathBuf, why: String },
    /// Lines that cannot stand together (a key in two `-each` lines).
    #[error("-config {}: {why}", path.display())]
    File { path: PathBuf, why: String },
    /// A line that is no option of the command, or whose value is malformed.
    #[error("{}:{line}: {why}", path.display())]
    Line {
        path: PathBuf,
        line: usize,
        why: String,
    },
}

impl RunFileError {
    /// Whether the command line itself is at fault (exit code 2) rather than the file (1).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            RunFileError::MissingValue | RunFileError::Twice { .. }
        )
    }
}

/// A command line with `-config` taken out: the arguments left, the file to read, the file to
/// write.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigArgs {
    pub args: Vec<String>,
    pub load: Option<PathBuf>,
    pub save: Option<PathBuf>,
}

/// Take `-config FILE`, `-config=FILE` and `-config save FILE` (one or two dashes) out of `args`.
pub fn split(args: &[String]) -> Result<ConfigArgs, RunFileError> {
    let mut out = ConfigArgs::default();
    let mut i = 0;
    let set = |slot: &mut Option<PathBuf>, what, value: &str| match slot {
        Some(first) => Err(RunFileError::Twice {
            what,
            first: first.display().to_string(),
            second: value.to_string(),
        }),
        None => {
            *slot = Some(PathBuf::from(value));
            Ok(())
        }
    };
    while i < args.len() {
        let word = args[i].as_str();
        i += 1;
        let inline = ["-config=", "--config="]
            .iter()
            .find_map(|p| word.strip_prefix(p));
        if let Some(v) = inline {
            set(&mut out.load, "", v)?;
            continue;
        }
        if !matches!(word, "-config" | "--config") {
            out.args.push(word.to_string());
            continue;
        }
        let value = |i: usize| {
            args.get(i)
                .filter(|a| !crate::cli::parse::is_option(a))
                .ok_or(RunFileError::MissingValue)
        };
        let first = value(i)?;
        i += 1;
        if first == "save" {
            set(&mut out.save, " save", value(i)?)?;
            i += 1;
        } else {
            set(&mut out.load, "", first)?;
        }
    }
    Ok(out)
}

/// One option of a config file and its line.
#[derive(Debug, Clone)]
pub struct FileItem {
    pub line: usize,
    pub row: &'static Row,
    pub given: Given,
}

/// The options of a config file's `text` for `command` (`path` names it in messages).
pub fn parse_text(
    command: Command,
    path: &Path,
    text: &str,
) -> Result<Vec<FileItem>, RunFileError> {
    let mut items = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = |why: String| RunFileError::Line {
            path: path.to_path_buf(),
            line: n + 1,
            why,
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words = crate::engine::spec::split_command_line(line).map_err(|e| at(e.to_string()))?;
        if !crate::cli::parse::is_option(&words[0]) {
            return Err(at(format!(
                "expected an option as on the command line (-games 4), got {:?}",
                words[0]
            )));
        }
        if split(&words).map_or(true, |c| c.load.is_some() || c.save.is_some()) {
            return Err(at(
                "-config in a config file: a file cannot load another".into()
            ));
        }
        let p = parse(command, &words).map_err(|e| at(e.to_string()))?;
        items.extend(p.items.into_iter().map(|(row, given)| FileItem {
            line: n + 1,
            row,
            given,
        }));
    }
    // Each line read alone; then the lines together, as one command line reads them.
    let words: Vec<String> = (items.iter()).flat_map(|i| i.given.words(i.row)).collect();
    parse(command, &words).map_err(|e| RunFileError::File {
        path: path.to_path_buf(),
        why: e.to_string(),
    })?;
    Ok(items)
}

/// The command line a config file's `items` and the command line `cli` make: the file's options
/// first, less those the command line gives — an option given on the command line replaces the
/// file's (every `-engine` of the file when it gives one), except `-each`, whose keys add up: the
/// file's keys that the command line's `-each` does not give stay — then the command line.
pub fn merge(command: Command, items: &[FileItem], cli: &[String]) -> Vec<String> {
    let given = parse(command, cli).map(|p| p.items).unwrap_or_default();
    let on_cli = |row: &Row| given.iter().any(|(r, _)| r.name() == row.name());
    let cli_each: Vec<String> = (given.iter())
        .filter(|(r, _)| table::lists_add_up(r.name()))
        .filter_map(|(_, g)| match g {
            Given::Settings(kvs) => Some(kvs.iter().map(|(k, _)| k.clone())),
            _ => None,
        })
        .flatten()
        .collect();
    let mut out = Vec::new();
    for item in items {
        let given = match (&item.given, on_cli(item.row)) {
            (_, false) => item.given.clone(),
            (Given::Settings(kvs), true) if table::lists_add_up(item.row.name()) => {
                let kept: Vec<_> = (kvs.iter())
                    .filter(|(k, _)| !cli_each.contains(k))
                    .cloned()
                    .collect();
                if kept.is_empty() {
                    continue;
                }
                Given::Settings(kept)
            }
            (_, true) => continue,
        };
        out.extend(given.words(item.row));
    }
    out.extend(cli.iter().cloned());
    out
}

/// `args` with `-config` taken out and its file's options merged in (`merge`), and the file
/// `-config save` names. A command without `-config` gets its arguments back.
pub fn load(command: Command, args: &[String]) -> Result<ConfigArgs, RunFileError> {
    if table::option_of(command, "config").is_none() {
        return Ok(ConfigArgs {
            args: args.to_vec(),
            ..ConfigArgs::default()
        });
    }
    let mut split = split(args)?;
    if let Some(path) = &split.load {
        let text = std::fs::read_to_string(path).map_err(|e| RunFileError::Read {
            path: path.clone(),
            why: e.to_string(),
        })?;
        let items = parse_text(command, path, &text)?;
        split.args = merge(command, &items, &split.args);
    }
    Ok(split)
}

/// A config file of `lines` (each the words of one option), as `-config save` writes it.
pub fn render(lines: &[Vec<String>]) -> String {
    let mut out = format!(
        "# gomoku-cli {}: a run's options, one a line as on the command line (gomoku-cli -config FILE)\n",
        env!("CARGO_PKG_VERSION")
    );
    for words in lines {
        let quoted: Vec<String> = words.iter().map(|w| quote_word(w)).collect();
        out.push_str(&quoted.join(" "));
        out.push('\n');
    }
    out
}

/// What `-config save` writes for `command`'s `args` (`-config` taken out): each option
/// as given, the engines as `lists` (their `conf=` written out, `config::engines::engine_lists`)
/// in place of the `-engine`s and without `-engines`, and `srand=seed` added to `-openings` when
/// the run drew its seed: loading the file gives this run's identity.
pub fn saved_lines(
    command: Command,
    args: &[String],
    lists: &[KeyValues],
    seed: Option<u64>,
) -> Vec<Vec<String>> {
    let items = parse(command, args).map(|p| p.items).unwrap_or_default();
    let mut out = Vec::new();
    let mut engines = Some(lists);
    for (row, given) in items {
        match (row.name(), given) {
            ("-engine", _) => {
                for kvs in engines.take().into_iter().flatten() {
                    out.push(Given::Settings(kvs.clone()).words(row));
                }
            }
            ("-engines", _) => {}
            ("-openings", Given::Settings(mut kvs)) => {
                if let (Some(seed), false) = (seed, kvs.iter().any(|(k, _)| k == "srand")) {
                    kvs.push(("srand".into(), seed.to_string()));
                }
                out.push(Given::Settings(kvs).words(row));
            }
            (_, given) => out.push(given.words(row)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    fn items(text: &str) -> Result<Vec<FileItem>, RunFileError> {
        parse_text(Command::Run, Path::new("run.conf"), text)
    }

    #[test]
    fn config_is_taken_out_in_each_spelling() {
        let c = split(&words(
            "-games 2 -config a.conf --config save b.conf -rounds 3",
        ))
        .unwrap();
        assert_eq!(c.args, words("-games 2 -rounds 3"));
        assert_eq!(c.load, Some(PathBuf::from("a.conf")));
        assert_eq!(c.save, Some(PathBuf::from("b.conf")));
        assert_eq!(split(&words("--config=a")).unwrap().load, Some("a".into()));
        assert_eq!(split(&words("-config")), Err(RunFileError::MissingValue));
        assert_eq!(
            split(&words("-config save -games 1")),
            Err(RunFileError::MissingValue)
        );
        assert_eq!(
            split(&words("-config -games 1")),
            Err(RunFileError::MissingValue)
        );
        let e = split(&words("-config a -config b")).unwrap_err();
        assert_eq!(e.to_string(), "-config given twice (a and b): give one");
        assert!(e.is_usage());
    }

    #[test]
    fn a_file_reads_as_the_command_line_with_comments_and_quotes() {
        let text =
            "# a run\n\n-engine 'cmd=./x -v' tc=1\n  -engine cmd=y\n-games 4 -repeat\n-each tc=2\n";
        let items = items(text).unwrap();
        let lines: Vec<usize> = items.iter().map(|i| i.line).collect();
        assert_eq!(lines, vec![3, 4, 5, 5, 6]);
        let args = merge(Command::Run, &items, &[]);
        assert_eq!(
            args,
            vec![
                "-engine",
                "cmd=./x -v",
                "tc=1",
                "-engine",
                "cmd=y",
                "-games",
                "4",
                "-repeat",
                "-each",
                "tc=2"
            ]
        );
    }

    #[test]
    fn every_bad_line_is_named_by_file_and_line() {
        let e = |text: &str| items(text).unwrap_err().to_string();
        assert_eq!(
            e("-games 2\n-bogus 1\n"),
            "run.conf:2: unknown option \"-bogus\" (see `gomoku-cli --help`)"
        );
        assert_eq!(e("\n-games\n"), "run.conf:2: -games: needs a value");
        assert_eq!(
            e("games 2"),
            "run.conf:1: expected an option as on the command line (-games 4), got \"games\""
        );
        assert!(
            e("-engine 'cmd=x").starts_with("run.conf:1: "),
            "{}",
            e("-engine 'cmd=x")
        );
        assert_eq!(
            e("-engine cmd"),
            "run.conf:1: -engine: expected key=value, got \"cmd\""
        );
        assert_eq!(
            e("-config other.conf"),
            "run.conf:1: -config in a config file: a file cannot load another"
        );
        assert_eq!(
            e("-games 2 3"),
            "run.conf:1: unexpected argument \"3\" (options start with '-')"
        );
        assert_eq!(
            e("-each tc=1\n-each tc=2\n"),
            "-config run.conf: -each: tc given twice (\"1\" and \"2\")"
        );
        // An option of another command is refused as on the command line.
        let e = parse_text(Command::Check, Path::new("c"), "-games 2").unwrap_err();
        assert!(
            e.to_string().starts_with("c:1: unknown option \"-games\""),
            "{e}"
        );
    }

    #[test]
    fn the_command_line_wins_option_by_option_and_each_adds_up() {
        let file = items(
            "-engine cmd=a\n-engine cmd=b\n-games 4\n-repeat\n-each tc=10 thread=2\n-openings file=o.txt\n",
        )
        .unwrap();
        let merged = |cli: &str| merge(Command::Run, &file, &words(cli)).join(" ");
        // Nothing on the command line: the file as it is.
        assert_eq!(
            merged(""),
            "-engine cmd=a -engine cmd=b -games 4 -repeat -each tc=10 thread=2 -openings file=o.txt"
        );
        // A single value replaced; any -engine replaces all of the file's; -each by key.
        assert_eq!(
            merged("-games 8 -engine cmd=c -engine cmd=d -each tc=5"),
            "-repeat -each thread=2 -openings file=o.txt -games 8 -engine cmd=c -engine cmd=d -each tc=5"
        );
        assert_eq!(
            merged("-each tc=5 thread=1"),
            "-engine cmd=a -engine cmd=b -games 4 -repeat -openings file=o.txt -each tc=5 thread=1"
        );
        // The result parses as one command line: -each's keys are no longer given twice.
        let raw =
            crate::cli::parse_legacy(&merge(Command::Run, &file, &words("-each tc=5"))).unwrap();
        assert_eq!(raw.each.len(), 2);
    }

    #[test]
    fn saving_writes_the_engines_out_and_pins_a_drawn_seed() {
        let args = words("-engines e.json -engine conf=a -games 2 -engine conf=b tc=1 -openings file=o order=random");
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        let lists = vec![
            vec![kv("name", "a"), kv("cmd", "x")],
            vec![kv("cmd", "y"), kv("tc", "1")],
        ];
        let lines: Vec<String> = saved_lines(Command::Run, &args, &lists, Some(7))
            .iter()
            .map(|l| l.join(" "))
            .collect();
        assert_eq!(
            lines,
            vec![
                "-engine name=a cmd=x",
                "-engine cmd=y tc=1",
                "-games 2",
                "-openings file=o order=random srand=7"
            ]
        );
        let args = words("-engine cmd=x -engine cmd=y -openings file=o srand=3");
        let lines = saved_lines(Command::Run, &args, &lists, Some(7));
        assert_eq!(lines[2].join(" "), "-openings file=o srand=3");
    }

    #[test]
    fn render_writes_what_parse_text_reads() {
        let lines = vec![
            words("-engine name=a"),
            vec!["-engine".into(), "cmd=./x -v 'q'".into(), "tc=1".into()],
            words("-drawafter -1"),
        ];
        let text = render(&lines);
        assert!(text.starts_with("# gomoku-cli "));
        let back = merge(Command::Run, &items(&text).unwrap(), &[]);
        assert_eq!(back, lines.concat());
    }
}
