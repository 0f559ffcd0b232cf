//! The one parser of every command's arguments, driven by the table (`cli::table`): what an
//! option takes, how it is spelled and which words are positionals all come from its rows.
//! Values are not checked here: each command's reader (`config`, the subcommands) checks them.

use crate::cli::table::{self, Command, Row, Takes};
use crate::cli::{CliError, KeyValues};

/// What was given for one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Given {
    Flag,
    Value(String),
    Settings(KeyValues),
    Positional(String),
}

impl Given {
    /// The words that give it again on a command line (`-games 4`, `-engine cmd=x tc=1`, a
    /// positional as it is): what `-config save` writes and `-config FILE` reads back.
    pub fn words(&self, row: &Row) -> Vec<String> {
        let name = row.name().to_string();
        match self {
            Given::Flag => vec![name],
            Given::Value(v) => vec![name, v.clone()],
            Given::Settings(kvs) => std::iter::once(name)
                .chain(kvs.iter().map(|(k, v)| format!("{k}={v}")))
                .collect(),
            Given::Positional(p) => vec![p.clone()],
        }
    }
}

/// A command line read against the table, in the order written.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub command: Command,
    pub items: Vec<(&'static Row, Given)>,
    /// `-h`, `-help` or `--help` was given.
    pub help: bool,
}

impl Parsed {
    /// The items of the row shown as `name` (`--rule`, `-o`, `JOURNAL`).
    fn of(&self, name: &str) -> Vec<&Given> {
        debug_assert!(
            table::rows_of(self.command).any(|r| r.name() == name),
            "{name} is no row of {:?}",
            self.command
        );
        self.items
            .iter()
            .filter(|(r, _)| r.name() == name)
            .map(|(_, g)| g)
            .collect()
    }

    /// The last value of the option shown as `name`.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.of(name).into_iter().fold(None, |last, g| match g {
            Given::Value(v) => Some(v.as_str()),
            _ => last,
        })
    }

    pub fn flag(&self, name: &str) -> bool {
        self.of(name).into_iter().any(|g| *g == Given::Flag)
    }

    /// The settings of the option `name` (`None` when not given): the last list given, or every
    /// list joined where they add up (`table::lists_add_up`).
    pub fn settings(&self, name: &str) -> Option<KeyValues> {
        let mut out: Option<KeyValues> = None;
        for g in self.of(name) {
            if let Given::Settings(kvs) = g {
                let list = out.get_or_insert_with(Vec::new);
                if !table::lists_add_up(name) {
                    list.clear();
                }
                list.extend(kvs.iter().cloned());
            }
        }
        out
    }

    /// The positionals of the row `name`.
    pub fn positionals(&self, name: &str) -> Vec<String> {
        self.of(name)
            .into_iter()
            .filter_map(|g| match g {
                Given::Positional(p) => Some(p.clone()),
                _ => None,
            })
            .collect()
    }
}

/// Whether `arg` is an option word: a lone "-" or a negative number is a value.
pub fn is_option(arg: &str) -> bool {
    arg.len() > 1
        && arg.starts_with('-')
        && !arg[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.')
}

/// Read `args` (after the command's words) as `command`'s command line.
pub fn parse(command: Command, args: &[String]) -> Result<Parsed, CliError> {
    let positional = table::rows_of(command).find(|r| matches!(r.takes, Takes::Positional { .. }));
    let mut p = Parsed {
        command,
        items: Vec::new(),
        help: false,
    };
    let mut only_positionals = false;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if !only_positionals && arg == "--" && positional.is_some() {
            only_positionals = true;
            continue;
        }
        if only_positionals || !is_option(arg) {
            match positional {
                Some(row) => p.items.push((row, Given::Positional(arg.clone()))),
                None => return Err(CliError::Stray(arg.clone())),
            }
            continue;
        }
        // `--rule=4`: no option's name holds a `=`.
        let word = arg.trim_start_matches('-');
        let (word, inline) = match word.split_once('=') {
            Some((w, v)) => (w, Some(v.to_string())),
            None => (word, None),
        };
        if command != Command::Run && matches!(word, "h" | "help") {
            p.help = true;
            continue;
        }
        let Some(row) = table::option_of(command, word) else {
            return Err(CliError::UnknownOption {
                option: arg.clone(),
                command,
            });
        };
        let option = row.name().to_string();
        let given = match row.takes {
            Takes::Flag if inline.is_some() => {
                return Err(CliError::FlagValue(option));
            }
            Takes::Flag => Given::Flag,
            Takes::Value => match inline {
                Some(v) => Given::Value(v),
                None => {
                    let v = one_value(&option, args, &mut i)?;
                    // `-config save FILE` is two words (`config::run_file` takes -config out
                    // before a command reads its line; this keeps such a line one option here).
                    if option == "-config" && v == "save" {
                        Given::Value(format!("save {}", one_value(&option, args, &mut i)?))
                    } else {
                        Given::Value(v)
                    }
                }
            },
            Takes::Settings { empty, pair } => {
                let mut words: Vec<String> = inline.into_iter().collect();
                let pair = pair && words.is_empty();
                if pair && args.get(i).is_some_and(|a| !a.contains('=')) {
                    let count = one_value(&option, args, &mut i)?;
                    let score = one_value(&option, args, &mut i)?;
                    Given::Settings(vec![("movecount".into(), count), ("score".into(), score)])
                } else {
                    let stop_at_plain = positional.is_some();
                    while i < args.len() && !is_option(&args[i]) {
                        let is_setting =
                            matches!(args[i].split_once('='), Some((k, _)) if !k.is_empty());
                        if !is_setting && stop_at_plain {
                            break;
                        }
                        words.push(args[i].clone());
                        i += 1;
                    }
                    let kvs = key_values(&option, &words)?;
                    let pairs = kvs.iter().map(|(k, v)| (k.as_str(), v.as_str()));
                    crate::cli::refuse_repeated_keys(&option, pairs)?;
                    if kvs.is_empty() && !empty {
                        return Err(CliError::MissingValue {
                            option,
                            what: if pair {
                                "a value"
                            } else {
                                "key=value settings"
                            },
                        });
                    }
                    Given::Settings(kvs)
                }
            }
            Takes::Key { .. } | Takes::Positional { .. } => unreachable!("not an option row"),
        };
        p.items.push((row, given));
    }
    check_whole(&p, positional)?;
    Ok(p)
}

/// What only the whole line can tell: a key in two lists that add up (-each), and the count of
/// positionals.
fn check_whole(p: &Parsed, positional: Option<&'static Row>) -> Result<(), CliError> {
    let command = p.command;
    // Where lists add up (-each), a key in two of them is given twice as well; elsewhere the
    // last list replaces the others (a script's `-openings` after a default one).
    for row in table::rows_of(command).filter(|r| matches!(r.takes, Takes::Settings { .. })) {
        if !table::lists_add_up(row.name()) {
            continue;
        }
        let all = p.items.iter().filter(|(r, _)| std::ptr::eq(*r, row));
        let kvs = all.filter_map(|(_, g)| match g {
            Given::Settings(kvs) => Some(kvs),
            _ => None,
        });
        let pairs = kvs.flatten().map(|(k, v)| (k.as_str(), v.as_str()));
        crate::cli::refuse_repeated_keys(row.name(), pairs)?;
    }
    if let (Some(row), false) = (positional, p.help) {
        let n = p
            .items
            .iter()
            .filter(|(r, _)| std::ptr::eq(*r, row))
            .count();
        if let Takes::Positional { min, max } = row.takes {
            if n < min || max.is_some_and(|m| n > m) {
                return Err(CliError::Positionals {
                    what: row.name(),
                    got: n,
                    min,
                    max,
                });
            }
        }
    }
    Ok(())
}

fn one_value(option: &str, args: &[String], i: &mut usize) -> Result<String, CliError> {
    match args.get(*i) {
        Some(v) if !is_option(v) => {
            *i += 1;
            Ok(v.clone())
        }
        _ => Err(CliError::MissingValue {
            option: option.to_string(),
            what: "a value",
        }),
    }
}

fn key_values(option: &str, words: &[String]) -> Result<KeyValues, CliError> {
    words
        .iter()
        .map(|a| match a.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
            _ => Err(CliError::NotKeyValue {
                option: option.to_string(),
                got: a.clone(),
            }),
        })
        .collect()
}
