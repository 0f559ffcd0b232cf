//! Named engines: the engines file (cutechess-cli's `engines.json` form, plus the keys of our
//! `-engine`), read once into checked entries, and `-engine conf=NAME`'s expansion into the
//! `key=value` settings the rest of the program reads. Pure but for [`EnginesFile::load`].

use std::path::{Path, PathBuf};

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use thiserror::Error;

use crate::cli::KeyValues;
use crate::config::env::Env;

/// The keys an entry of the engines file may have: cutechess's, then ours (each an `-engine`
/// key of the same name), then `option.K`.
pub const ENTRY_KEYS: &[&str] = &[
    "name",
    "command",
    "cmd",
    "pkg",
    "workingDirectory",
    "protocol",
    "options",
    "stderrFile",
    "tc",
    "depth",
    "nodes",
    "maxmemory",
    "thread",
    "tolerance",
    "detail",
    "slots",
    "restart",
    "option.K",
];

/// The `-engine` keys an entry may set under their own name (their values checked by the one
/// reader of engine keys, passed in as a [`ValueCheck`]).
pub const VALUE_KEYS: &[&str] = &[
    "tc",
    "depth",
    "nodes",
    "maxmemory",
    "thread",
    "tolerance",
    "detail",
    "slots",
    "restart",
];

/// The keys cutechess writes in an option object besides `name` and `value`: what the option
/// is (its type, default, range, choices), not what is sent, so they are read past.
const OPTION_DESCRIPTION_KEYS: &[&str] = &["type", "default", "min", "max", "choices", "alias"];

/// The check of one `-engine` value (`tc`, `10/1`): `Err(why)` when it cannot be used. The file
/// is read with `config::engines::check_value`, the one reader of engine keys (passed in, so
/// that this file does not import the one that imports it).
pub type ValueCheck<'a> = &'a dyn Fn(&str, &str) -> Result<(), String>;

/// Why an engines file, or a `conf=` naming one of its engines, cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NamedError {
    /// The file cannot be read (a missing `-engines FILE` included).
    #[error("engines file {}: {why}", path.display())]
    Read { path: PathBuf, why: String },
    /// Bad JSON, a wrong type, an unknown key, a bad value: where serde_json stopped.
    #[error("engines file {}:{line}:{column}: {why}", path.display())]
    Entry {
        path: PathBuf,
        line: usize,
        column: usize,
        why: String,
    },
    /// Two entries of one name: which one `conf=` means is unclear.
    #[error("engines file {}: entries {first} and {second} are both named {name:?}", path.display())]
    Duplicate {
        path: PathBuf,
        name: String,
        first: usize,
        second: usize,
    },
    /// `conf=NAME` with no entry of that name.
    #[error("conf={name}: no engine of that name in {} (it has: {})", path.display(), list(known))]
    UnknownName {
        name: String,
        path: PathBuf,
        known: Vec<String>,
    },
    /// `conf=` without an engines file.
    #[error("conf={name}: no engines file (give -engines FILE, or write {})", default.display())]
    NoFile { name: String, default: PathBuf },
    /// `conf=` where it cannot stand.
    #[error("{0}")]
    Misplaced(String),
}

fn list(names: &[String]) -> String {
    match names.is_empty() {
        true => "no engines".into(),
        false => names.join(", "),
    }
}

/// One engine of the file: its name and its settings as `-engine` keys (`name=`, `cmd=`,
/// `tc=`, `option.K=` ...), every value already checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedEngine {
    pub name: String,
    pub settings: KeyValues,
}

/// An engines file read and checked: its path (for messages) and its engines in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnginesFile {
    pub path: PathBuf,
    pub engines: Vec<NamedEngine>,
}

/// Where the engines file is when `-engines` is not given: `$GOMOKU_CLI_ENGINES`, else
/// `$XDG_CONFIG_HOME/gomoku-cli/engines.json`, else `~/.config/gomoku-cli/engines.json`.
pub fn default_path(env: &Env) -> PathBuf {
    let set = |name| env.var(name).filter(|v| !v.is_empty());
    if let Some(p) = set("GOMOKU_CLI_ENGINES") {
        return PathBuf::from(p);
    }
    let config = match (set("XDG_CONFIG_HOME"), set("HOME")) {
        (Some(x), _) => PathBuf::from(x),
        (None, Some(home)) => Path::new(home).join(".config"),
        (None, None) => PathBuf::from(".config"),
    };
    config.join("gomoku-cli").join("engines.json")
}

impl EnginesFile {
    /// Read `path`. A file that is not there is `Ok(None)` when `optional` (the default location:
    /// needed only by `conf=`), an error otherwise (`-engines FILE`).
    pub fn load(
        path: &Path,
        optional: bool,
        check: ValueCheck,
    ) -> Result<Option<EnginesFile>, NamedError> {
        match std::fs::read_to_string(path) {
            Ok(text) => EnginesFile::parse(path, &text, check).map(Some),
            Err(e) if optional && e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(NamedError::Read {
                path: path.to_path_buf(),
                why: e.to_string(),
            }),
        }
    }

    /// Check the text of an engines file (`path` names it in messages).
    pub fn parse(path: &Path, text: &str, check: ValueCheck) -> Result<EnginesFile, NamedError> {
        let at = |e: serde_json::Error| {
            let why = e.to_string();
            let suffix = format!(" at line {} column {}", e.line(), e.column());
            NamedError::Entry {
                path: path.to_path_buf(),
                line: e.line(),
                column: e.column(),
                why: why.strip_suffix(&suffix).unwrap_or(&why).to_string(),
            }
        };
        // First the shape (an array of objects) and each entry's name, so that a message about a
        // key may name the entry even when its "name" comes after that key.
        let loose: Vec<serde_json::Map<String, Value>> =
            serde_json::from_str(text).map_err(|e| match at(e) {
                NamedError::Entry {
                    path,
                    line,
                    column,
                    why,
                } if why.starts_with("invalid type") => NamedError::Entry {
                    path,
                    line,
                    column,
                    why: format!("{why} (the file is a JSON array of engine objects: [{{\"name\": ..., \"command\": ...}}])"),
                },
                e => e,
            })?;
        let names: Vec<Option<String>> = (loose.iter())
            .map(|m| m.get("name").and_then(Value::as_str).map(String::from))
            .collect();
        let mut de = serde_json::Deserializer::from_str(text);
        let engines = Entries {
            names: &names,
            check,
        }
        .deserialize(&mut de)
        .map_err(at)?;
        for (j, b) in engines.iter().enumerate() {
            if let Some(i) = engines[..j].iter().position(|a| a.name == b.name) {
                return Err(NamedError::Duplicate {
                    path: path.to_path_buf(),
                    name: b.name.clone(),
                    first: i + 1,
                    second: j + 1,
                });
            }
        }
        Ok(EnginesFile {
            path: path.to_path_buf(),
            engines,
        })
    }

    /// The engine named `name`.
    pub fn get(&self, name: &str) -> Result<&NamedEngine, NamedError> {
        self.engines
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| NamedError::UnknownName {
                name: name.to_string(),
                path: self.path.clone(),
                known: self.engines.iter().map(|e| e.name.clone()).collect(),
            })
    }
}

/// `-engine conf=NAME k=v ...` as the settings it stands for: the entry's settings less those
/// that `-each` or the engine's own keys give, then the engine's own keys (without `conf=`).
/// So the order of precedence is the entry, then `-each`, then the `-engine` keys — cutechess-cli's
/// (`-each` over the configuration) with this program's (`-engine` over `-each`) — and reading the
/// result under `-each` gives the engine `conf=` gives.
pub fn expand(entry: &NamedEngine, each: &KeyValues, own: &KeyValues) -> KeyValues {
    let given = |k: &str| each.iter().chain(own).any(|(g, _)| g == k);
    let from_entry = entry.settings.iter().filter(|(k, _)| !given(k));
    let own = own.iter().filter(|(k, _)| k != "conf");
    from_entry.chain(own).cloned().collect()
}

/// The `conf=` of an engine's settings, if any.
pub fn conf_of(kvs: &KeyValues) -> Option<&str> {
    kvs.iter()
        .find(|(k, _)| k == "conf")
        .map(|(_, v)| v.as_str())
}

/// The text of a JSON scalar as an `-engine` value: a string as it is, a number as written, a
/// boolean as `true`/`false`; `None` for anything else.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The array of entries, each read knowing its index and (from the first pass) its name.
struct Entries<'a> {
    names: &'a [Option<String>],
    check: ValueCheck<'a>,
}

impl<'de> DeserializeSeed<'de> for Entries<'_> {
    type Value = Vec<NamedEngine>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Entries<'_> {
    type Value = Vec<NamedEngine>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of engine objects")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let index = out.len() + 1;
            let name = self.names.get(out.len()).cloned().flatten();
            match seq.next_element_seed(EntrySeed {
                index,
                name,
                check: self.check,
            })? {
                Some(e) => out.push(e),
                None => return Ok(out),
            }
        }
    }
}

struct EntrySeed<'a> {
    index: usize,
    name: Option<String>,
    check: ValueCheck<'a>,
}

impl EntrySeed<'_> {
    /// `entry 2 ("rapfi")`.
    fn label(&self) -> String {
        match &self.name {
            Some(n) => format!("entry {} ({n:?})", self.index),
            None => format!("entry {}", self.index),
        }
    }
}

impl<'de> DeserializeSeed<'de> for EntrySeed<'_> {
    type Value = NamedEngine;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EntrySeed<'_> {
    type Value = NamedEngine;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an engine object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut keys: Vec<(String, Value)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value: Value = map.next_value()?;
            let fail = |why: String| de::Error::custom(format!("{}: {key:?}: {why}", self.label()));
            if keys.iter().any(|(k, _)| *k == key) {
                return Err(fail("given twice".into()));
            }
            let known = ENTRY_KEYS.contains(&key.as_str())
                || key.strip_prefix("option.").is_some_and(|k| !k.is_empty());
            if !known {
                return Err(fail(format!(
                    "unknown key (known: {})",
                    ENTRY_KEYS.join(", ")
                )));
            }
            check_value(&key, &value, self.check).map_err(fail)?;
            keys.push((key, value));
        }
        entry_of(keys).map_err(|why| de::Error::custom(format!("{}: {why}", self.label())))
    }
}

/// Check one key's value alone (its type, and the value as `-engine` reads it).
fn check_value(key: &str, value: &Value, check: ValueCheck) -> Result<(), String> {
    let text = |what: &str| {
        value
            .as_str()
            .map(String::from)
            .ok_or_else(|| format!("expected {what}, got {}", kind(value)))
    };
    match key {
        "name" | "command" | "cmd" | "pkg" => {
            if text("a string")?.trim().is_empty() {
                return Err("is empty".into());
            }
        }
        "workingDirectory" => {
            text("a string")?;
        }
        "protocol" => {
            let p = text("a string")?;
            if !matches!(p.as_str(), "gomocup" | "pbrain") {
                return Err(format!(
                    "{p:?} is not a protocol of gomoku-cli: give \"gomocup\" (or \"pbrain\"), or leave it out"
                ));
            }
        }
        "stderrFile" => {
            if !text("a string")?.is_empty() {
                return Err("gomoku-cli cannot send an engine's standard error to a file: leave it out or \"\" (the protocol logs of -log hold what engines say)".into());
            }
        }
        "options" => {
            options_of(value)?;
        }
        _ => {
            let v = scalar(value)
                .ok_or_else(|| format!("expected a string or a number, got {}", kind(value)))?;
            if VALUE_KEYS.contains(&key) {
                check(key, &v)?;
            }
        }
    }
    Ok(())
}

/// `options`: cutechess's array of `{"name": K, "value": V}` objects, or an object `{K: V}`.
fn options_of(value: &Value) -> Result<Vec<(String, String)>, String> {
    let one = |name: &str, v: &Value| -> Result<(String, String), String> {
        if name.is_empty() {
            return Err("an option with an empty name".into());
        }
        let v = scalar(v).ok_or_else(|| {
            format!(
                "option {name:?}: expected a string, a number or a boolean, got {}",
                kind(v)
            )
        })?;
        Ok((name.to_string(), v))
    };
    let out: Vec<(String, String)> = match value {
        Value::Object(m) => m.iter().map(|(k, v)| one(k, v)).collect::<Result<_, _>>()?,
        Value::Array(items) => (items.iter().enumerate())
            .map(|(i, item)| {
                let at = |why: String| format!("option {}: {why}", i + 1);
                let Value::Object(m) = item else {
                    return Err(at(format!(
                        "expected an object {{\"name\": ..., \"value\": ...}}, got {}",
                        kind(item)
                    )));
                };
                if let Some(k) = m.keys().find(|k| {
                    !matches!(k.as_str(), "name" | "value")
                        && !OPTION_DESCRIPTION_KEYS.contains(&k.as_str())
                }) {
                    return Err(at(format!(
                        "unknown key {k:?} (known: name, value, {})",
                        OPTION_DESCRIPTION_KEYS.join(", ")
                    )));
                }
                let name = m
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| at("needs \"name\": a string".into()))?;
                let v = m
                    .get("value")
                    .ok_or_else(|| at(format!("{name:?} needs \"value\"")))?;
                one(name, v)
            })
            .collect::<Result<_, _>>()?,
        other => {
            return Err(format!(
                "expected an array of {{\"name\": ..., \"value\": ...}} or an object, got {}",
                kind(other)
            ))
        }
    };
    for (j, (name, _)) in out.iter().enumerate() {
        if out[..j].iter().any(|(n, _)| n == name) {
            return Err(format!("option {name:?} given twice"));
        }
    }
    Ok(out)
}

/// The entry of checked keys: its settings in `-engine` form.
fn entry_of(keys: Vec<(String, Value)>) -> Result<NamedEngine, String> {
    let get = |k: &str| keys.iter().find(|(key, _)| key == k).map(|(_, v)| v);
    let text = |k: &str| get(k).and_then(Value::as_str).map(String::from);
    let name = text("name").ok_or("needs \"name\"")?;
    let dir = text("workingDirectory").filter(|d| !d.is_empty());
    let program = match (text("command"), text("cmd"), text("pkg")) {
        (Some(_), Some(_), _) => return Err("\"command\" and \"cmd\" are one key: give one".into()),
        (Some(_), _, Some(_)) | (_, Some(_), Some(_)) => {
            return Err(
                "an engine is a command or a package: give \"command\" or \"pkg\", not both".into(),
            )
        }
        (None, None, Some(_)) if dir.is_some() => {
            return Err(
                "a package runs in its own unpacked folder: leave \"workingDirectory\" out".into(),
            )
        }
        (None, None, Some(zip)) => ("pkg", zip),
        (Some(c), None, None) | (None, Some(c), None) => match dir {
            Some(dir) => ("cmd", in_directory(&c, &dir)?),
            None => ("cmd", c),
        },
        (None, None, None) => return Err("needs \"command\" (or \"pkg\")".into()),
    };
    let mut settings = vec![
        ("name".to_string(), name.clone()),
        (program.0.to_string(), program.1),
    ];
    for (k, v) in &keys {
        if VALUE_KEYS.contains(&k.as_str()) || k.starts_with("option.") {
            settings.push((k.clone(), scalar(v).unwrap_or_default()));
        }
    }
    if let Some(options) = get("options") {
        for (k, v) in options_of(options)? {
            let key = format!("option.{k}");
            if settings.iter().any(|(s, _)| *s == key) {
                return Err(format!(
                    "option {k:?} is given both in \"options\" and as {key:?}"
                ));
            }
            settings.push((key, v));
        }
    }
    Ok(NamedEngine { name, settings })
}

/// `command` run in `dir` (cutechess's `workingDirectory`) as a `cmd=`: gomoku-cli runs an engine
/// in its program's folder, so a relative program is looked for in `dir`; an absolute one must
/// be in `dir` already.
fn in_directory(command: &str, dir: &str) -> Result<String, String> {
    let words = crate::engine::spec::split_command_line(command).map_err(|e| e.to_string())?;
    let Some((program, args)) = words.split_first() else {
        return Err("\"command\" is empty".into());
    };
    let path = Path::new(program);
    let program = if path.is_absolute() {
        if path.parent() != Some(Path::new(dir)) {
            return Err(format!(
                "\"workingDirectory\" {dir:?}: gomoku-cli runs an engine in its program's folder, and {program:?} is not in it: leave \"workingDirectory\" out or name the program relative to it"
            ));
        }
        program.clone()
    } else {
        Path::new(dir).join(path).to_string_lossy().into_owned()
    };
    let words = std::iter::once(&program).chain(args);
    Ok(words.map(|w| quote_word(w)).collect::<Vec<_>>().join(" "))
}

/// A word as a shell (and `cmd=`'s splitter) reads it back: as it is when nothing in it is
/// special, else in single quotes.
pub fn quote_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:+,@%^".contains(c));
    match plain {
        true => word.to_string(),
        false => format!("'{}'", word.replace('\'', "'\\''")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A check of the values refusing "fast" and "0", as the engine-key reader would.
    fn check(_key: &str, v: &str) -> Result<(), String> {
        match v {
            "fast" | "0" => Err("not valid".into()),
            _ => Ok(()),
        }
    }

    fn parse(text: &str) -> Result<EnginesFile, NamedError> {
        EnginesFile::parse(Path::new("e.json"), text, &check)
    }

    fn err(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    fn kv(pairs: &[(&str, &str)]) -> KeyValues {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn cutechess_entries_and_ours_read_into_engine_settings() {
        let f = parse(
            r#"[
  {"name": "rapfi", "command": "./pbrain-rapfi", "workingDirectory": "", "stderrFile": "",
   "protocol": "gomocup",
   "options": [{"name": "hash", "value": 64, "type": "spin", "default": 16, "min": 1, "max": 1024}],
   "tc": "10/1", "thread": 2, "detail": "off", "option.style": "fast"},
  {"name": "wine", "cmd": "pbrain-wine -x", "workingDirectory": "/opt/e", "options": {"a": "1"},
   "slots": 1, "restart": "on"}
]"#,
        )
        .unwrap();
        assert_eq!(f.engines.len(), 2);
        assert_eq!(
            f.engines[0].settings,
            kv(&[
                ("name", "rapfi"),
                ("cmd", "./pbrain-rapfi"),
                ("tc", "10/1"),
                ("thread", "2"),
                ("detail", "off"),
                ("option.style", "fast"),
                ("option.hash", "64"),
            ])
        );
        assert_eq!(
            f.engines[1].settings,
            kv(&[
                ("name", "wine"),
                ("cmd", "/opt/e/pbrain-wine -x"),
                ("slots", "1"),
                ("restart", "on"),
                ("option.a", "1")
            ])
        );
        assert_eq!(f.get("wine").unwrap().name, "wine");
        assert_eq!(parse("[]").unwrap().engines, vec![]);
    }

    #[test]
    fn every_error_names_the_file_the_entry_the_key_and_the_place() {
        // Syntax and shape.
        assert_eq!(
            err("[{\"name\": \"a\",}]"),
            "engines file e.json:1:15: trailing comma"
        );
        assert!(err("{}").starts_with("engines file e.json:1:0: invalid type: map, expected a sequence (the file is a JSON array"), "{}", err("{}"));
        assert!(
            err("[3]").starts_with("engines file e.json:1:2: invalid type: integer `3`"),
            "{}",
            err("[3]")
        );
        // A key: unknown, of the wrong type, of a bad value, twice; the name comes after it.
        let e = err("[{\"name\": \"a\", \"command\": \"x\"},\n {\"tcc\": \"1\", \"name\": \"b\", \"command\": \"x\"}]");
        assert!(e.starts_with("engines file e.json:2:12: entry 2 (\"b\"): \"tcc\": unknown key (known: name, command"), "{e}");
        let e = err("[{\"name\": \"a\", \"command\": 3}]");
        assert_eq!(e, "engines file e.json:1:28: entry 1 (\"a\"): \"command\": expected a string, got a number");
        let e = err("[{\"name\": \"a\", \"command\": \"x\", \"tc\": \"fast\"}]");
        assert!(
            e == "engines file e.json:1:44: entry 1 (\"a\"): \"tc\": not valid",
            "{e}"
        );
        let e = err("[{\"name\": \"a\", \"command\": \"x\", \"thread\": 0}]");
        assert!(e.contains("entry 1 (\"a\"): \"thread\": not valid"), "{e}");
        let e = err("[{\"name\": \"a\", \"name\": \"b\", \"command\": \"x\"}]");
        assert!(e.contains("\"name\": given twice"), "{e}");
        // Entries: no name, no command, both spellings, a duplicate name.
        assert!(err("[{\"command\": \"x\"}]").ends_with("entry 1: needs \"name\""));
        assert!(
            err("[{\"name\": \"a\"}]").ends_with("entry 1 (\"a\"): needs \"command\" (or \"pkg\")")
        );
        let e = err("[{\"name\": \"a\", \"command\": \"x\", \"cmd\": \"y\"}]");
        assert!(
            e.ends_with("\"command\" and \"cmd\" are one key: give one"),
            "{e}"
        );
        let e =
            err("[{\"name\": \"a\", \"command\": \"x\"}, {\"name\": \"a\", \"command\": \"y\"}]");
        assert_eq!(
            e,
            "engines file e.json: entries 1 and 2 are both named \"a\""
        );
        // cutechess keys we cannot honour.
        let e = err("[{\"name\": \"a\", \"command\": \"x\", \"protocol\": \"uci\"}]");
        assert!(
            e.contains("\"protocol\": \"uci\" is not a protocol of gomoku-cli"),
            "{e}"
        );
        let e = err("[{\"name\": \"a\", \"command\": \"x\", \"stderrFile\": \"e.txt\"}]");
        assert!(e.contains("\"stderrFile\": gomoku-cli cannot"), "{e}");
        let e =
            err("[{\"name\": \"a\", \"command\": \"/usr/bin/x\", \"workingDirectory\": \"/opt\"}]");
        assert!(
            e.contains(
                "\"workingDirectory\" \"/opt\": gomoku-cli runs an engine in its program's folder"
            ),
            "{e}"
        );
        let e = err("[{\"name\": \"a\", \"command\": \"x\", \"ponder\": true}]");
        assert!(e.contains("\"ponder\": unknown key"), "{e}");
        // Options: a bad item, an unknown key, twice, in both forms.
        let e = err("[{\"name\": \"a\", \"command\": \"x\", \"options\": [{\"name\": \"h\"}]}]");
        assert!(
            e.contains("\"options\": option 1: \"h\" needs \"value\""),
            "{e}"
        );
        let e = err("[{\"name\": \"a\", \"command\": \"x\", \"options\": [{\"name\": \"h\", \"value\": 1, \"x\": 2}]}]");
        assert!(e.contains("option 1: unknown key \"x\""), "{e}");
        let e = err("[{\"name\": \"a\", \"command\": \"x\", \"options\": {\"h\": [1]}}]");
        assert!(
            e.contains("option \"h\": expected a string, a number or a boolean, got an array"),
            "{e}"
        );
        let e = err(
            "[{\"name\": \"a\", \"command\": \"x\", \"options\": {\"h\": 1}, \"option.h\": 2}]",
        );
        assert!(
            e.contains("option \"h\" is given both in \"options\" and as \"option.h\""),
            "{e}"
        );
        let e = err("[{\"name\": \"a\", \"command\": \"x\", \"options\": 3}]");
        assert!(e.contains("\"options\": expected an array"), "{e}");
    }

    #[test]
    fn a_missing_default_file_is_none_and_a_missing_named_one_an_error() {
        let p = Path::new("/nonexistent/engines.json");
        assert_eq!(EnginesFile::load(p, true, &check), Ok(None));
        let e = EnginesFile::load(p, false, &check).unwrap_err().to_string();
        assert!(
            e.starts_with("engines file /nonexistent/engines.json: "),
            "{e}"
        );
    }

    #[test]
    fn a_package_entry_is_a_pkg_instead_of_a_command() {
        let f = parse("[{\"name\": \"embryo\", \"pkg\": \"/z/EMBRYO21.F.zip\", \"tc\": \"60/5\"}]")
            .unwrap();
        assert_eq!(
            f.get("embryo").unwrap().settings,
            kv(&[
                ("name", "embryo"),
                ("pkg", "/z/EMBRYO21.F.zip"),
                ("tc", "60/5")
            ])
        );
        let e = err("[{\"name\": \"a\", \"command\": \"x\", \"pkg\": \"a.zip\"}]");
        assert!(e.ends_with("give \"command\" or \"pkg\", not both"), "{e}");
        let e = err("[{\"name\": \"a\", \"pkg\": \"a.zip\", \"workingDirectory\": \"/o\"}]");
        assert!(e.ends_with("leave \"workingDirectory\" out"), "{e}");
        assert!(err("[{\"name\": \"a\", \"pkg\": \"\"}]").ends_with("\"pkg\": is empty"));
    }

    #[test]
    fn the_default_location_follows_the_environment() {
        let env = |vars: &[(&str, &str)]| {
            Env(vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.into()))
                .collect())
        };
        let p = |vars: &[(&str, &str)]| default_path(&env(vars));
        assert_eq!(
            p(&[("HOME", "/h")]),
            Path::new("/h/.config/gomoku-cli/engines.json")
        );
        assert_eq!(
            p(&[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x")]),
            Path::new("/x/gomoku-cli/engines.json")
        );
        assert_eq!(
            p(&[("XDG_CONFIG_HOME", "/x"), ("GOMOKU_CLI_ENGINES", "e.json")]),
            Path::new("e.json")
        );
    }

    #[test]
    fn conf_expands_under_each_and_the_engines_own_keys() {
        let entry = NamedEngine {
            name: "r".into(),
            settings: kv(&[
                ("name", "r"),
                ("cmd", "x"),
                ("tc", "10"),
                ("thread", "2"),
                ("option.h", "1"),
            ]),
        };
        let each = kv(&[("tc", "5")]);
        let own = kv(&[("thread", "4"), ("conf", "r")]);
        assert_eq!(
            expand(&entry, &each, &own),
            kv(&[
                ("name", "r"),
                ("cmd", "x"),
                ("option.h", "1"),
                ("thread", "4")
            ])
        );
        assert_eq!(conf_of(&own), Some("r"));
        let f = parse("[{\"name\": \"a\", \"command\": \"x\"}]").unwrap();
        assert_eq!(
            f.get("b").unwrap_err().to_string(),
            "conf=b: no engine of that name in e.json (it has: a)"
        );
    }

    #[test]
    fn words_are_quoted_as_the_command_splitter_reads_them() {
        for w in ["plain", "a b", "it's", "", "$HOME", "x\"y"] {
            let q = quote_word(w);
            assert_eq!(
                crate::engine::spec::split_command_line(&q).unwrap(),
                vec![w.to_string()],
                "{q}"
            );
        }
        assert_eq!(quote_word("cmd=./x"), "cmd=./x");
    }
}
