//! The c-gomoku-cli compatible command line: single-dash options with `key=value` lists, read into a
//! raw, unchecked form. `config` turns it into a checked `Config`.

use std::ffi::OsString;

use thiserror::Error;

/// Errors in the shape of the command line (values are checked later, in `config`).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CliError {
    /// The command line uses an option name that the program does not know.
    #[error("unknown option {0:?} (see --help)")]
    UnknownOption(String),
    /// An option is the last argument or is directly followed by another option, so its value is missing.
    #[error("-{option}: needs {what}")]
    MissingValue { option: String, what: &'static str },
    /// An option that takes key=value settings got an argument without `=` or with an empty key.
    #[error("-{option}: expected key=value, got {got:?}")]
    NotKeyValue { option: String, got: String },
    /// A bare argument appears where an option name was expected, e.g. an extra value after a flag or a one-value option.
    #[error("unexpected argument {0:?} (options start with '-')")]
    Stray(String),
    /// An argument that is not UTF-8 text; `index` counts from 1 after the program name, `lossy`
    /// shows it with U+FFFD for the bytes that are not.
    #[error("argument {index} is not UTF-8 text: {lossy:?}")]
    NotUtf8 { index: usize, lossy: String },
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
    /// Single-value options in the order given (`-concurrency 4` → ("concurrency", "4")).
    pub values: Vec<(String, String)>,
    /// Flags given (`-repeat` → "repeat").
    pub flags: Vec<String>,
    pub openings: Option<KeyValues>,
    pub sample: Option<KeyValues>,
    pub sprt: Option<KeyValues>,
    /// `-draw COUNT SCORE` / `-resign COUNT SCORE`: accepted for compatibility, see `config`.
    pub score_adjudication: Vec<(String, String, String)>,
}

impl RawCli {
    /// The last value given for a single-value option.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }
}

/// Options that take one value.
pub const VALUE_OPTIONS: &[&str] = &[
    "concurrency",
    "games",
    "rounds",
    "rule",
    "boardsize",
    "drawafter",
    "pgn",
    "sgf",
    "msg",
    "psq",
    "journal",
    "ratinginterval",
    "startuptimeout",
    "logdir",
    "shard",
    "renlib",
    "report",
    "cpus",
    "rundir",
    "syncinterval",
];

/// Options that take no value.
pub const FLAG_OPTIONS: &[&str] = &[
    "gauntlet",
    "loseonly",
    "repeat",
    "transform",
    "sendbyboard",
    "log",
    "debug",
    "fatalerror",
    "quiet",
    "noprogress",
    "verbose",
    "resume",
    "suspend",
    "swap2",
    "swap1",
];

fn is_option(arg: &str) -> bool {
    // A lone "-" or a negative number is a value, not an option.
    arg.len() > 1
        && arg.starts_with('-')
        && !arg[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.')
}

/// Option name without its leading dashes (`-engine` and `--engine` are the same).
fn option_name(arg: &str) -> &str {
    arg.trim_start_matches('-')
}

fn key_values(
    option: &str,
    args: &[String],
    i: &mut usize,
    allow_empty: bool,
) -> Result<KeyValues, CliError> {
    let mut out = Vec::new();
    while *i < args.len() && !is_option(&args[*i]) {
        let a = &args[*i];
        match a.split_once('=') {
            Some((k, v)) if !k.is_empty() => out.push((k.to_string(), v.to_string())),
            _ => {
                return Err(CliError::NotKeyValue {
                    option: option.to_string(),
                    got: a.clone(),
                })
            }
        }
        *i += 1;
    }
    if out.is_empty() && !allow_empty {
        return Err(CliError::MissingValue {
            option: option.to_string(),
            what: "key=value settings",
        });
    }
    Ok(out)
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

/// Read the legacy command line (without the program name).
pub fn parse_legacy(args: &[String]) -> Result<RawCli, CliError> {
    let mut raw = RawCli::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if !is_option(arg) {
            return Err(CliError::Stray(arg.clone()));
        }
        let name = option_name(arg).to_string();
        i += 1;
        match name.as_str() {
            "engine" => raw.engines.push(key_values(&name, args, &mut i, false)?),
            "each" => raw.each.extend(key_values(&name, args, &mut i, false)?),
            "openings" => raw.openings = Some(key_values(&name, args, &mut i, false)?),
            "sample" => raw.sample = Some(key_values(&name, args, &mut i, true)?),
            "sprt" => raw.sprt = Some(key_values(&name, args, &mut i, true)?),
            "draw" | "resign" => {
                let count = one_value(&name, args, &mut i)?;
                let score = one_value(&name, args, &mut i)?;
                raw.score_adjudication.push((name, count, score));
            }
            n if VALUE_OPTIONS.contains(&n) => {
                let v = one_value(&name, args, &mut i)?;
                raw.values.push((name, v));
            }
            n if FLAG_OPTIONS.contains(&n) => raw.flags.push(name),
            _ => return Err(CliError::UnknownOption(arg.clone())),
        }
    }
    Ok(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn predecessor_example_parses() {
        let a = args(&[
            "-each",
            "tc=180/30",
            "-engine",
            "name=Wine",
            "cmd=./example-engine/pbrain-wine",
            "-engine",
            "name=Rapfi",
            "cmd=./example-engine/pbrain-rapfi1",
            "-rule",
            "0",
            "-boardsize",
            "20",
            "-rounds",
            "2",
            "-games",
            "4000",
            "-debug",
            "-repeat",
            "-concurrency",
            "8",
            "-drawafter",
            "200",
            "-pgn",
            "my_games.pgn",
            "-sgf",
            "my_games.sgf",
            "-msg",
            "my_games.txt",
            "-openings",
            "file=opening_examples/offset_freestyle_20x20.txt",
            "order=random",
        ]);
        let raw = parse_legacy(&a).unwrap();
        assert_eq!(raw.engines.len(), 2);
        assert_eq!(raw.engines[0][0], ("name".into(), "Wine".into()));
        assert_eq!(raw.each, vec![("tc".into(), "180/30".into())]);
        assert_eq!(raw.value("games"), Some("4000"));
        assert!(raw.flag("repeat") && raw.flag("debug"));
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
                option: "concurrency".into(),
                what: "a value"
            })
        );
        assert!(matches!(
            parse_legacy(&args(&["-bogus"])),
            Err(CliError::UnknownOption(_))
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
        let raw = parse_legacy(&args(&[
            "-engine",
            "cmd=/bin/sh",
            "-engine",
            "cmd=/bin/sh",
            "-openings",
            "type=pos",
        ]))
        .unwrap();
        let e = crate::config::Config::from_raw(&raw).unwrap_err();
        assert!(e.to_string().starts_with("-openings: needs file="), "{e}");
    }

    #[test]
    fn negative_values_are_not_options() {
        let raw = parse_legacy(&args(&["-drawafter", "-1", "-sprt", "elo0=-5", "elo1=0"])).unwrap();
        assert_eq!(raw.value("drawafter"), Some("-1"));
        assert_eq!(raw.sprt.unwrap()[0].1, "-5");
        let raw = parse_legacy(&args(&["-sample"])).unwrap();
        assert_eq!(raw.sample, Some(vec![]));
    }
}
