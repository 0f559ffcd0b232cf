//! The c-gomoku-cli compatible command line: single-dash options with `key=value` lists, read into a
//! raw, unchecked form. `config` turns it into a checked `Config`.

pub mod help;
pub mod parse;
pub mod table;

use std::ffi::OsString;

use thiserror::Error;

pub use parse::{Given, Parsed};

/// Errors in the shape of the command line (values are checked later, in `config`).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CliError {
    /// The command line uses an option name that the program does not know.
    #[error("{}", unknown_option(option, *command))]
    UnknownOption {
        option: String,
        command: table::Command,
    },
    /// An option is the last argument or is directly followed by another option, so its value is missing.
    #[error("{option}: needs {what}")]
    MissingValue { option: String, what: &'static str },
    /// An option that takes key=value settings got an argument without `=` or with an empty key.
    #[error("{option}: expected key=value, got {got:?}")]
    NotKeyValue { option: String, got: String },
    /// A bare argument appears where an option name was expected, e.g. an extra value after a flag or a one-value option.
    #[error("unexpected argument {0:?} (options start with '-')")]
    Stray(String),
    /// A flag given a value (`--json=1`).
    #[error("{0}: takes no value")]
    FlagValue(String),
    /// Too few or too many words that are not options.
    #[error("{what}: expected {}, got {got}", count_range(*min, *max))]
    Positionals {
        what: &'static str,
        got: usize,
        min: usize,
        max: Option<usize>,
    },
    /// An argument that is not UTF-8 text; `index` counts from 1 after the program name, `lossy`
    /// shows it with U+FFFD for the bytes that are not.
    #[error("argument {index} is not UTF-8 text: {lossy:?}")]
    NotUtf8 { index: usize, lossy: String },
    /// A key given twice in one option's settings.
    #[error(transparent)]
    RepeatedKey(#[from] RepeatedKey),
}

/// A key given twice in one `key=value` list (`-resign movecount=3 movecount=4`): which one was
/// meant is unclear, so neither wins. Keys differ by their whole text: `option.A=` and
/// `option.B=` are two keys.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{option}: {key} given twice ({first:?} and {second:?})")]
pub struct RepeatedKey {
    pub option: String,
    pub key: String,
    pub first: String,
    pub second: String,
}

/// The one check of every `key=value` list of every command: no key twice.
pub fn refuse_repeated_keys<'a>(
    option: &str,
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<(), RepeatedKey> {
    let mut seen = std::collections::HashMap::new();
    for (key, value) in pairs {
        if let Some(first) = seen.insert(key, value) {
            return Err(RepeatedKey {
                option: option.to_string(),
                key: key.to_string(),
                first: first.to_string(),
                second: value.to_string(),
            });
        }
    }
    Ok(())
}

/// The message of an unknown option: where it belongs when another command has it, and where
/// the command's options are listed.
fn unknown_option(option: &str, command: table::Command) -> String {
    let word = option.trim_start_matches('-');
    let word = word.split_once('=').map_or(word, |(w, _)| w);
    let others: Vec<String> = table::Command::ALL
        .into_iter()
        .filter(|c| *c != command && table::option_of(*c, word).is_some())
        .map(|c| match c {
            table::Command::Run => "the match runner".to_string(),
            c => c.title(),
        })
        .collect();
    let belongs = match others.first() {
        Some(first) if command != table::Command::Run => {
            format!(": an option of {first}, not of {}", command.title())
        }
        _ => String::new(),
    };
    let help = help::help_command(command);
    format!("unknown option {option:?}{belongs} (see `{help}`)")
}

/// "1", "1 or 2", "at least 1".
fn count_range(min: usize, max: Option<usize>) -> String {
    match max {
        Some(m) if m == min => m.to_string(),
        Some(m) => format!("{min} to {m}"),
        None => format!("at least {min}"),
    }
}

/// The program's arguments (without its name) as text. An argument that is not UTF-8 is an error
/// naming it: `std::env::args` would panic on it.
pub fn args_from_os(args: impl IntoIterator<Item = OsString>) -> Result<Vec<String>, CliError> {
    args.into_iter()
        .enumerate()
        .map(|(i, a)| {
            a.into_string().map_err(|a| CliError::NotUtf8 {
                index: i + 1,
                lossy: a.to_string_lossy().into_owned(),
            })
        })
        .collect()
}

/// A `key=value` list as given after `-engine`, `-each`, `-openings`, `-sample` or `-sprt`.
pub type KeyValues = Vec<(String, String)>;

/// The command line as written, before any value is checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawCli {
    pub engines: Vec<KeyValues>,
    pub each: KeyValues,
    /// Single-value options in the order given (`-concurrency 4` → (`Opt::Concurrency`, "4")).
    pub values: Vec<(Opt, String)>,
    /// Flags given (`-repeat` → `Opt::Repeat`).
    pub flags: Vec<Opt>,
    pub openings: Option<KeyValues>,
    pub sample: Option<KeyValues>,
    pub sprt: Option<KeyValues>,
    /// `-records evals=on|off`.
    pub records: Option<KeyValues>,
    /// `-draw key=value...`; the predecessor's `-draw COUNT SCORE` is read as `movecount=COUNT
    /// score=SCORE`.
    pub draw: Option<KeyValues>,
    /// `-resign key=value...`, or `-resign COUNT SCORE` read as for `-draw`.
    pub resign: Option<KeyValues>,
    /// `-groups key=value...`: `-tournament groups`' settings.
    pub groups: Option<KeyValues>,
}

impl RawCli {
    /// The last value given for a single-value option.
    pub fn value(&self, opt: Opt) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(k, _)| *k == opt)
            .map(|(_, v)| v.as_str())
    }

    pub fn flag(&self, opt: Opt) -> bool {
        self.flags.contains(&opt)
    }
}

/// The match runner's options, each filled from its row of the table (`table::ROWS`, where its
/// spelling, value and help are): the typed keys of `RawCli` that `config` reads.
macro_rules! opts {
    ($($opt:ident,)*) => {
        /// An option of the match runner's command line; it displays as it is spelled (`-games`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Opt {
            $($opt,)*
        }

        impl Opt {
            /// Every option, for the test that each has exactly one row.
            pub const ALL: &'static [Opt] = &[$(Opt::$opt,)*];
        }
    };
}

opts! {
    Engine, Each, Openings, Sample, Sprt, Draw, Resign, Records, Concurrency, Games, Rounds, Rule,
    BoardSize, DrawAfter, Pgn, Sgf, Msg, Psq, Journal, RatingInterval, StartupTimeout, LogDir,
    Shard, Renlib, Report, Cpus, RunDir, SyncInterval, Gauntlet, LoseOnly, Repeat, Transform,
    SendByBoard, Log, Debug, FatalError, Quiet, NoProgress, Verbose, Resume, Suspend, Swap2, Swap1,
    // named engines and runs from a file (issue 35)
    EnginesFile, Config,
    // smaller knobs (issue 36)
    Wait, NoSwap, Reverse, Ponder,
    // tournament formats (issue 36)
    Tournament, Seeds, Srand,
    // Gomocup's league (issue 36)
    Groups,
}

impl std::fmt::Display for Opt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(table::row_of_opt(*self).name())
    }
}

/// Read the legacy command line (without the program name).
pub fn parse_legacy(args: &[String]) -> Result<RawCli, CliError> {
    Ok(raw_of(&parse::parse(table::Command::Run, args)?))
}

/// The match runner's options of a parsed command line (run's or tune's) as a `RawCli`; rows
/// without an `Opt` (tune's own) are left to their command.
pub fn raw_of(p: &Parsed) -> RawCli {
    let mut raw = RawCli::default();
    for (row, given) in &p.items {
        let Some(opt) = row.opt else { continue };
        match (opt, given.clone()) {
            (Opt::Engine, Given::Settings(kvs)) => raw.engines.push(kvs),
            (Opt::Each, Given::Settings(kvs)) => raw.each.extend(kvs),
            (Opt::Openings, Given::Settings(kvs)) => raw.openings = Some(kvs),
            (Opt::Sample, Given::Settings(kvs)) => raw.sample = Some(kvs),
            (Opt::Sprt, Given::Settings(kvs)) => raw.sprt = Some(kvs),
            (Opt::Records, Given::Settings(kvs)) => raw.records = Some(kvs),
            (Opt::Draw, Given::Settings(kvs)) => raw.draw = Some(kvs),
            (Opt::Resign, Given::Settings(kvs)) => raw.resign = Some(kvs),
            (Opt::Groups, Given::Settings(kvs)) => raw.groups = Some(kvs),
            (_, Given::Value(v)) => raw.values.push((opt, v)),
            (_, _) => raw.flags.push(opt),
        }
    }
    raw
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    /// The words of a command line without quoting.
    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn predecessor_example_parses() {
        let a = words(
            "-each tc=180/30 -engine name=Wine cmd=./example-engine/pbrain-wine -engine \
             name=Rapfi cmd=./example-engine/pbrain-rapfi1 -rule 0 -boardsize 20 -rounds 2 \
             -games 4000 -debug -repeat -concurrency 8 -drawafter 200 -pgn my_games.pgn -sgf \
             my_games.sgf -msg my_games.txt -openings \
             file=opening_examples/offset_freestyle_20x20.txt order=random",
        );
        let raw = parse_legacy(&a).unwrap();
        assert_eq!(raw.engines.len(), 2);
        assert_eq!(raw.engines[0][0], ("name".into(), "Wine".into()));
        assert_eq!(raw.each, vec![("tc".into(), "180/30".into())]);
        assert_eq!(raw.value(Opt::Games), Some("4000"));
        assert!(raw.flag(Opt::Repeat) && raw.flag(Opt::Debug));
        assert_eq!(raw.openings.as_ref().unwrap().len(), 2);
    }

    #[test]
    fn command_with_arguments_stays_one_value() {
        let raw = parse_legacy(&args(&["-engine", "cmd=../fooEngine -foo=1"])).unwrap();
        assert_eq!(raw.engines[0][0].1, "../fooEngine -foo=1");
    }

    #[test]
    fn errors_name_the_option() {
        assert_eq!(
            parse_legacy(&args(&["-concurrency"])),
            Err(CliError::MissingValue {
                option: "-concurrency".into(),
                what: "a value"
            })
        );
        assert!(matches!(
            parse_legacy(&args(&["-bogus"])),
            Err(CliError::UnknownOption { .. })
        ));
        assert!(matches!(
            parse_legacy(&args(&["-engine", "cmd"])),
            Err(CliError::NotKeyValue { .. })
        ));
        assert!(matches!(
            parse_legacy(&args(&["-engine"])),
            Err(CliError::MissingValue { .. })
        ));
        assert!(matches!(
            parse_legacy(&args(&["stray"])),
            Err(CliError::Stray(_))
        ));
    }

    #[test]
    fn missing_values_use_the_dash_option_form() {
        // Every other command-line message reads `-option: ...`; so do missing values.
        let msg = |a: &[&str]| parse_legacy(&args(a)).unwrap_err().to_string();
        assert_eq!(msg(&["-games"]), "-games: needs a value");
        assert_eq!(msg(&["-games", "-repeat"]), "-games: needs a value");
        assert_eq!(msg(&["-draw", "1"]), "-draw: needs a value");
        assert_eq!(msg(&["-engine"]), "-engine: needs key=value settings");
        assert_eq!(
            msg(&["-openings", "file"]),
            "-openings: expected key=value, got \"file\""
        );
        // The one missing value found later, by `config`, reads the same way.
        let e = "-engine cmd=/bin/sh -engine cmd=/bin/sh -openings type=pos";
        let e = crate::config::config_in(e, &[]).unwrap_err();
        assert!(e.to_string().starts_with("-openings: needs file="), "{e}");
    }

    #[test]
    fn a_key_given_twice_in_one_list_is_refused_naming_both_values() {
        let msg = |line: &str| parse_legacy(&words(line)).unwrap_err().to_string();
        assert_eq!(
            msg("-resign movecount=3 movecount=4 score=3"),
            "-resign: movecount given twice (\"3\" and \"4\")"
        );
        assert_eq!(
            msg("-engine cmd=a option.hash=1 option.hash=2"),
            "-engine: option.hash given twice (\"1\" and \"2\")"
        );
        for line in [
            "-draw movecount=3 score=1 score=2",
            "-openings file=a file=b",
            "-each tc=1 tc=2",
            "-each tc=1 -each tc=2",
            "-sprt elo0=0 elo0=1",
            "-records evals=on evals=off",
            "-sample freq=1 freq=0.5",
        ] {
            assert!(
                msg(line).contains(" given twice ("),
                "{line}: {}",
                msg(line)
            );
        }
        // Not repeats: options of different names, and -engine over -each (the documented
        // precedence).
        let raw = parse_legacy(&words(
            "-each tc=1 -engine cmd=a tc=2 option.a=1 option.b=2 -engine cmd=b",
        ))
        .unwrap();
        assert_eq!(raw.engines.len(), 2);
        // A second -openings (or -sample, -sprt, ...) replaces the first, as a script giving a
        // default and then its own expects; only -each's lists add up.
        let raw = parse_legacy(&words(
            "-openings file=a type=pos -openings file=b type=psq moves=4 -sample freq=1 -sample freq=0.5",
        ))
        .unwrap();
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        let openings = [kv("file", "b"), kv("type", "psq"), kv("moves", "4")];
        assert_eq!(raw.openings.as_deref(), Some(&openings[..]));
        assert_eq!(raw.sample.as_deref(), Some(&[kv("freq", "0.5")][..]));
    }

    #[test]
    fn config_save_file_is_one_option() {
        // `-config save FILE` is two words; `config::run_file` takes it out before a command
        // reads its line, and the parser (the docs' examples are read by it alone) keeps it one.
        let p = parse::parse(
            table::Command::Run,
            &args(&["-config", "save", "x.conf", "-games", "2"]),
        );
        let p = p.unwrap();
        assert_eq!(p.items[0].1, Given::Value("save x.conf".into()));
        assert_eq!(p.items.len(), 2);
        assert!(parse_legacy(&args(&["-config", "save"])).is_err());
    }

    #[test]
    fn negative_values_are_not_options() {
        let raw = parse_legacy(&args(&["-drawafter", "-1", "-sprt", "elo0=-5", "elo1=0"])).unwrap();
        assert_eq!(raw.value(Opt::DrawAfter), Some("-1"));
        assert_eq!(raw.sprt.unwrap()[0].1, "-5");
        let raw = parse_legacy(&args(&["-sample"])).unwrap();
        assert_eq!(raw.sample, Some(vec![]));
    }

    #[test]
    fn draw_and_resign_take_settings_or_the_old_count_and_score() {
        let kv = |a: &[(&str, &str)]| -> KeyValues {
            a.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let raw = parse_legacy(&args(&["-draw", "8", "20", "-resign", "3", "-400"])).unwrap();
        assert_eq!(raw.draw, Some(kv(&[("movecount", "8"), ("score", "20")])));
        assert_eq!(
            raw.resign,
            Some(kv(&[("movecount", "3"), ("score", "-400")]))
        );
        let a = words("-resign movecount=3 score=400 twosided=true -draw score=5");
        let raw = parse_legacy(&a).unwrap();
        let resign = [("movecount", "3"), ("score", "400"), ("twosided", "true")];
        assert_eq!(raw.resign, Some(kv(&resign)));
        assert_eq!(raw.draw, Some(kv(&[("score", "5")])));
        let msg = |a: &[&str]| parse_legacy(&args(a)).unwrap_err().to_string();
        assert_eq!(
            msg(&["-resign", "score=1", "x"]),
            "-resign: expected key=value, got \"x\""
        );
        assert_eq!(msg(&["-resign"]), "-resign: needs a value");
    }
}
