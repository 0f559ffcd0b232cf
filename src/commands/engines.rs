//! `gomoku-cli engines list|add|check`: the engines file (`config::named`) listed, an engine
//! added to it (checked by the file's one reader, written atomically), an engine of it checked
//! by `check` itself.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::cli::parse::{Given, Parsed};
use crate::cli::table::Command;
use crate::config::env::Env;
use crate::config::named;

use crate::commands::usage::usage_error;
use crate::commands::{failed, say, CommandError, CommandResult, Outcome};

/// Run `engines list`, `engines add` or `engines check` of the command line `p`.
pub fn run(command: Command, p: &Parsed) -> CommandResult {
    let env = Env::of_process();
    let given = p.value("-engines").map(PathBuf::from);
    let path = given.clone().unwrap_or_else(|| named::default_path(&env));
    match command {
        Command::EnginesList => list(&path, given.is_none(), p.flag("--json")),
        Command::EnginesAdd => add(&path, &p.positionals("NAME key=value"), p.flag("--force")),
        Command::EnginesCheck => check(p),
        other => unreachable!("{other:?} is no engines command"),
    }
}

/// The engines, one a line (`NAME  cmd=...  tc=... ...`), or a JSON array.
fn list(path: &Path, optional: bool, json: bool) -> CommandResult {
    let engines = match crate::config::engines::load_engines_file(path, optional).map_err(failed)? {
        Some(file) => file.engines,
        None => {
            eprintln!(
                "no engines file at {} (gomoku-cli engines add NAME cmd=... writes one)",
                path.display()
            );
            Vec::new()
        }
    };
    if json {
        let list: Vec<Value> = (engines.iter())
            .map(|e| {
                let settings = e.settings.iter().skip(1).map(|(k, v)| format!("{k}={v}"));
                serde_json::json!({"name": e.name, "settings": settings.collect::<Vec<_>>()})
            })
            .collect();
        let text = serde_json::to_string_pretty(&list).map_err(failed)?;
        say(&format!("{text}\n"));
        return Ok(Outcome::Done);
    }
    let width = engines.iter().map(|e| e.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for e in &engines {
        // The settings after name=, as -engine takes them (cmd= quoted when it has spaces).
        let settings: Vec<String> = (e.settings.iter().skip(1))
            .map(|(k, v)| named::quote_word(&format!("{k}={v}")))
            .collect();
        out.push_str(&format!("{:width$}  {}\n", e.name, settings.join(" ")));
    }
    say(&out);
    Ok(Outcome::Done)
}

/// Add (or with `force` replace) the engine `words[0]` with the settings `words[1..]`.
fn add(path: &Path, words: &[String], force: bool) -> CommandResult {
    let usage = |why: String| usage_error(Command::EnginesAdd, why);
    let (name, settings) = words.split_first().expect("the parser asks for a name");
    let entry = entry_json(name, settings).map_err(usage)?;
    // The file as it is, checked first: an entry this program cannot read is not rewritten.
    let (mut entries, existed) = match std::fs::read_to_string(path) {
        Ok(text) => {
            crate::config::engines::parse_engines_file(path, &text)
                .map_err(|e| failed(format!("{e} (fix the file before adding to it)")))?;
            let entries: Vec<Value> = serde_json::from_str(&text).map_err(failed)?;
            (entries, true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), false),
        Err(e) => return Err(failed(format!("engines file {}: {e}", path.display()))),
    };
    let same = |v: &Value| v.get("name").and_then(Value::as_str) == Some(name.as_str());
    match entries.iter().position(same) {
        Some(_) if !force => {
            return Err(failed(format!(
                "engines file {}: an engine is already named {name:?} (--force replaces it)",
                path.display()
            )))
        }
        Some(i) => entries[i] = entry,
        None => entries.push(entry),
    }
    let text = render_file(&entries);
    // The file written is read back by the one reader first: a bad value is refused here.
    crate::config::engines::parse_engines_file(path, &text).map_err(failed)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| failed(format!("cannot create {}: {e}", dir.display())))?;
    }
    crate::formats::atomic_file::write_atomic(path, |out| out.write_all(text.as_bytes()))
        .map_err(|e| failed(format!("cannot write {}: {e}", path.display())))?;
    let how = if existed { "updated" } else { "created" };
    eprintln!("{how} {}: {name}", path.display());
    Ok(Outcome::Done)
}

/// The file's object for `engines add NAME k=v ...`: `cmd=` as `"command"`, `option.K=V` in
/// cutechess's `"options"` array, every other `-engine` key under its own name.
pub(crate) fn entry_json(name: &str, settings: &[String]) -> Result<Value, String> {
    let mut entry = serde_json::Map::new();
    entry.insert("name".into(), Value::String(name.to_string()));
    let mut options = Vec::new();
    let known = crate::cli::table::keys_of(Command::Run, "-engine");
    for word in settings {
        let (k, v) = word
            .split_once('=')
            .filter(|(k, _)| !k.is_empty())
            .ok_or_else(|| format!("{word:?}: expected key=value (as -engine takes them)"))?;
        // Whole numbers as JSON numbers, as one writes them by hand; the rest as text.
        let value = match (k, v.parse::<u64>()) {
            ("depth" | "nodes" | "maxmemory" | "thread", Ok(n)) if n.to_string() == v => n.into(),
            _ => Value::String(v.to_string()),
        };
        let key = match k {
            "cmd" => "command",
            "name" | "conf" => {
                return Err(format!(
                    "{k}=: the engine's name is the first word, {name:?}"
                ))
            }
            k if k.starts_with("option.") && k.len() > 7 => {
                options.push(serde_json::json!({"name": &k[7..], "value": value}));
                continue;
            }
            k if named::ENTRY_KEYS.contains(&k) => k,
            k => return Err(format!("{k}=: unknown key (known: {known})")),
        };
        if entry.insert(key.to_string(), value).is_some() {
            return Err(format!("{k}= given twice"));
        }
    }
    if !entry.contains_key("command") && !entry.contains_key("pkg") {
        return Err("cmd= (or pkg=) is required".into());
    }
    if !options.is_empty() {
        entry.insert("options".into(), Value::Array(options));
    }
    Ok(Value::Object(entry))
}

/// The engines file's text: one engine object after another, each key on a line of its own in
/// the order of `named::ENTRY_KEYS` (name and command first; serde_json's map would sort them),
/// each value compact.
pub(crate) fn render_file(entries: &[Value]) -> String {
    let rank = |k: &str| {
        let known = named::ENTRY_KEYS.iter().position(|x| *x == k);
        known.unwrap_or(named::ENTRY_KEYS.len())
    };
    let objects: Vec<String> = (entries.iter())
        .map(|entry| match entry {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort_by_key(|k| (rank(k), k.as_str()));
                let lines: Vec<String> = (keys.into_iter())
                    .map(|k| format!("    {}: {}", json(k), json(&m[k])))
                    .collect();
                format!("  {{\n{}\n  }}", lines.join(",\n"))
            }
            other => format!("  {}", json(other)),
        })
        .collect();
    format!("[\n{}\n]\n", objects.join(",\n"))
}

/// Compact JSON of a key or a value.
fn json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// `gomoku-cli check -engine conf=NAME` with the other options given.
fn check(p: &Parsed) -> CommandResult {
    let name = p.positionals("NAME").pop().unwrap_or_default();
    let mut args = vec!["-engine".to_string(), format!("conf={name}")];
    for (row, given) in &p.items {
        if !matches!(given, Given::Positional(_)) {
            args.extend(given.words(row));
        }
    }
    crate::commands::check::run(&args).map_err(|e| match e {
        CommandError::Usage(why) => {
            CommandError::Usage(why.replace("gomoku-cli check", &Command::EnginesCheck.title()))
        }
        e => e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn add_writes_the_files_form_and_refuses_what_it_cannot() {
        let e = entry_json(
            "r",
            &words("cmd=./x tc=10/1 thread=2 option.hash=64 option.style=1"),
        )
        .unwrap();
        assert_eq!(
            e,
            serde_json::json!({"name": "r", "command": "./x", "tc": "10/1", "thread": 2,
                "options": [{"name": "hash", "value": "64"}, {"name": "style", "value": "1"}]})
        );
        let err = |w: &str| entry_json("r", &words(w)).unwrap_err();
        assert_eq!(err("tc=1"), "cmd= (or pkg=) is required");
        let pkg = entry_json("e", &words("pkg=E.zip tc=1")).unwrap();
        assert_eq!(
            pkg,
            serde_json::json!({"name": "e", "pkg": "E.zip", "tc": "1"})
        );
        assert!(err("cmd=x bogus=1").starts_with("bogus=: unknown key (known: cmd, name,"));
        assert!(err("cmd=x name=y").starts_with("name=: the engine's name is the first word"));
        assert_eq!(err("cmd=x tc=1 tc=2"), "tc= given twice");
        assert_eq!(
            err("cmd=x tc"),
            "\"tc\": expected key=value (as -engine takes them)"
        );
    }

    #[test]
    fn the_file_is_written_name_and_command_first_and_reads_back() {
        let a = entry_json("r", &words("tc=1 cmd=./x option.h=1 depth=3")).unwrap();
        let b = serde_json::json!({"options": {"k": 1.5}, "name": "s", "command": "y z"});
        let text = render_file(&[a.clone(), b.clone()]);
        let first = "[\n  {\n    \"name\": \"r\",\n    \"command\": \"./x\",\n    \"options\": [{\"name\":\"h\",\"value\":\"1\"}],\n    \"tc\": \"1\",\n    \"depth\": 3\n  },";
        assert!(text.starts_with(first), "{text}");
        let back: Vec<Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, vec![a, b]);
    }
}
