//! The engines of a command line: `-engine` with `-each` under it, every key checked and the
//! program found; and [`OneEngine`], the engine and shared match options of `check` and
//! `openings generate`.

use std::time::Duration;

use crate::cli::{KeyValues, Opt, RawCli};
use crate::config::env::Env;
use crate::config::error::{keys_of, parse_number, parse_secs, parse_u64, ConfigError};
use crate::config::matches::{board_of, shard_of, startup_timeout_of};
use crate::config::named::{self, conf_of, EnginesFile, NamedError};
use crate::core::board::BoardSize;
use crate::core::rules::Rule;
use crate::engine::package::{self, Package};
use crate::engine::spec::{Detail, EngineSpec, TimeControl};
use crate::schedule::shard::Shard;

/// Apply engine `key=value` settings onto a spec. Later keys win within one list.
pub(super) fn apply_engine_keys(
    spec: &mut EngineSpec,
    kvs: &KeyValues,
    option: Opt,
    index: usize,
) -> Result<(), ConfigError> {
    if ["cmd", "pkg"]
        .iter()
        .all(|k| kvs.iter().any(|(key, _)| key == k))
    {
        return Err(ConfigError::BadValue {
            option,
            value: "cmd=... pkg=...".into(),
            why: "an engine is a command or a package: give cmd= or pkg=, not both".into(),
        });
    }
    for (k, v) in kvs {
        apply_engine_key(spec, k, v, option, index).map_err(|e| match e {
            // Name the key: `-each: "maxmemory=-1" is not valid`, not just `"-1"`.
            ConfigError::BadValue { option, why, .. } => ConfigError::BadValue {
                option,
                value: format!("{k}={v}"),
                why,
            },
            other => other,
        })?;
    }
    Ok(())
}

/// Apply one engine `key=value` setting.
pub(super) fn apply_engine_key(
    spec: &mut EngineSpec,
    k: &str,
    v: &str,
    option: Opt,
    index: usize,
) -> Result<(), ConfigError> {
    match k {
        // One replaces the other: an -engine's pkg= wins over a cmd= of -each.
        "cmd" => {
            spec.cmd = v.to_string();
            spec.package = None;
        }
        "pkg" => {
            if v.trim().is_empty() {
                let why = "expected the path of a Gomocup engine package (a .zip)".into();
                let value = v.to_string();
                return Err(ConfigError::BadValue { option, value, why });
            }
            spec.cmd.clear();
            spec.package = Some(Package {
                zip: v.into(),
                ..Package::default()
            });
        }
        "name" => spec.name = Some(v.to_string()),
        "tc" => {
            spec.tc = TimeControl::parse(v).map_err(|e| ConfigError::Engine {
                index,
                source: Box::new(e),
            })?
        }
        "depth" => spec.depth = Some(parse_u64(option, v, 1)?),
        "nodes" => spec.nodes = Some(parse_u64(option, v, 1)?),
        "maxmemory" => spec.max_memory = parse_u64(option, v, 0)?,
        "thread" => spec.threads = Some(parse_number(option, v, 1..=u32::MAX)?),
        "tolerance" => spec.tolerance = parse_secs(option, v)?,
        "detail" => {
            spec.detail = Detail::parse(v).ok_or_else(|| ConfigError::BadValue {
                option,
                value: v.to_string(),
                why: "expected off or a show_detail level 0-3".into(),
            })?
        }
        "slots" => spec.slots = Some(parse_number(option, v, 1..=u32::MAX)?),
        "restart" => {
            spec.restart = match v {
                "on" => true,
                "off" => false,
                _ => {
                    return Err(ConfigError::BadValue {
                        option,
                        value: v.to_string(),
                        why: "expected on or off".into(),
                    })
                }
            }
        }
        key if key.starts_with("option.") && key.len() > 7 => {
            let name = key["option.".len()..].to_string();
            spec.options.retain(|(n, _)| *n != name);
            spec.options.push((name, v.to_string()));
        }
        _ => {
            return Err(ConfigError::UnknownKey {
                option,
                key: k.to_string(),
                known: keys_of("-engine"),
            })
        }
    }
    Ok(())
}

/// Find a program the way the OS will: a path with `/` relative to its working directory, else PATH.
pub(super) fn program_exists(
    program: &std::path::Path,
    cwd: Option<&std::path::Path>,
    env: &Env,
) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let is_exec = |p: &std::path::Path| {
        std::fs::metadata(p)
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    };
    if program.components().count() > 1 || program.is_absolute() {
        let full = match cwd {
            Some(d) if !program.is_absolute() => d.join(program),
            _ => program.to_path_buf(),
        };
        return is_exec(&full);
    }
    env.var_os("PATH")
        .map(|paths| std::env::split_paths(paths).any(|d| is_exec(&d.join(program))))
        .unwrap_or(false)
}

/// Every `-engine` with `-each` applied under it (a per-engine value wins), checked.
pub(super) fn engines_of(raw: &RawCli, env: &Env) -> Result<Vec<EngineSpec>, ConfigError> {
    let board = board_of(raw)?;
    (engine_lists(raw, env)?.iter().enumerate())
        .map(|(i, kvs)| engine_of(&raw.each, kvs, i + 1, board, env))
        .collect()
}

/// Read the engines file at `path` (`named::EnginesFile::load`), its values checked as `-engine`
/// checks them; a missing file is `None` when `optional`.
pub fn load_engines_file(
    path: &std::path::Path,
    optional: bool,
) -> Result<Option<EnginesFile>, NamedError> {
    EnginesFile::load(path, optional, &check_value)
}

/// Read the text of an engines file (`path` names it), its values checked as `-engine` checks them.
pub fn parse_engines_file(path: &std::path::Path, text: &str) -> Result<EnginesFile, NamedError> {
    EnginesFile::parse(path, text, &check_value)
}

/// One `-engine` value alone, as `engine_of` reads it (for the engines file): the message
/// without the `-engine:` the file's entry and key replace.
pub fn check_value(key: &str, value: &str) -> Result<(), String> {
    let mut spec = EngineSpec::new("");
    apply_engine_key(&mut spec, key, value, Opt::Engine, 1).map_err(|e| {
        let m = e.to_string();
        let m = m.strip_prefix("-engine: ").unwrap_or(&m);
        m.strip_prefix("engine 1: ").unwrap_or(m).to_string()
    })
}

/// The engines file a command line uses: `-engines FILE` (which must be there), else the
/// default one when an engine names an entry with `conf=` (`None` when none does).
pub fn engines_file(raw: &RawCli, env: &Env) -> Result<Option<EnginesFile>, ConfigError> {
    if let Some(path) = raw.value(Opt::EnginesFile) {
        return Ok(load_engines_file(std::path::Path::new(path), false)?);
    }
    let Some(name) = raw.engines.iter().find_map(|kvs| conf_of(kvs)) else {
        return Ok(None);
    };
    let default = named::default_path(env);
    match load_engines_file(&default, true)? {
        Some(file) => Ok(Some(file)),
        None => Err(NamedError::NoFile {
            name: name.to_string(),
            default,
        }
        .into()),
    }
}

/// Every `-engine`'s settings with `conf=NAME` replaced by what it stands for
/// (`named::expand`): the lists `engine_of` reads under `-each`, and what `-config save` writes.
pub fn engine_lists(raw: &RawCli, env: &Env) -> Result<Vec<KeyValues>, ConfigError> {
    if raw.each.iter().any(|(k, _)| k == "conf") {
        let why = "-each: conf= names one engine: give it to an -engine";
        return Err(NamedError::Misplaced(why.into()).into());
    }
    let file = engines_file(raw, env)?;
    (raw.engines.iter())
        .map(|kvs| match (conf_of(kvs), &file) {
            (None, _) => Ok(kvs.clone()),
            (Some(name), Some(file)) => Ok(named::expand(file.get(name)?, &raw.each, kvs)),
            (Some(name), None) => unreachable!("engines_file found a file for conf={name}"),
        })
        .collect()
}

/// The engine `index` (from 1): `-each` under its own `-engine` settings `kvs`, checked: a `cmd=`
/// whose program exists, every key known and its value valid. The one reader of engine keys, for
/// the match, `tune`, `check` and `openings generate`.
pub(super) fn engine_of(
    each: &KeyValues,
    kvs: &KeyValues,
    index: usize,
    board: (BoardSize, Rule),
    env: &Env,
) -> Result<EngineSpec, ConfigError> {
    let mut spec = EngineSpec::new("");
    // -each first, then the engine's own keys: a per-engine value wins.
    apply_engine_keys(&mut spec, each, Opt::Each, index)?;
    apply_engine_keys(&mut spec, kvs, Opt::Engine, index)?;
    if spec.package.is_some() {
        resolve_package(&mut spec, board, index, env)?;
    }
    if spec.cmd.trim().is_empty() {
        return Err(ConfigError::MissingCmd { index });
    }
    let (program, _args, cwd) = spec.program_and_args().map_err(|e| ConfigError::Engine {
        index,
        source: Box::new(e),
    })?;
    if !program_exists(&program, cwd.as_deref(), env) {
        return Err(ConfigError::MissingProgram { index, program });
    }
    Ok(spec)
}

/// Where packages are unpacked: `$XDG_CACHE_HOME/gomoku-cli/packages`, else
/// `$HOME/.cache/gomoku-cli/packages` (the XDG base directories' rule).
pub fn package_cache(env: &Env) -> Option<std::path::PathBuf> {
    let xdg = env.var("XDG_CACHE_HOME").filter(|d| d.starts_with('/'));
    let base = match xdg {
        Some(d) => d.into(),
        None => std::path::Path::new(env.var("HOME").filter(|h| !h.is_empty())?).join(".cache"),
    };
    Some(base.join("gomoku-cli").join("packages"))
}

/// A `pkg=` engine made runnable: its zip unpacked (`engine::package`), `cmd` its program for the
/// run's rule and size (quoted, so the program's folder is the engine's working directory), a
/// Windows program run through `$WINE` or the `wine` on PATH unless the host is Windows.
fn resolve_package(
    spec: &mut EngineSpec,
    (size, rule): (BoardSize, Rule),
    index: usize,
    env: &Env,
) -> Result<(), ConfigError> {
    let pkg = spec.package.as_mut().expect("a package engine");
    let zip = pkg.zip.clone();
    let root = package_cache(env).ok_or_else(|| ConfigError::Engine {
        index,
        source: "pkg=: no folder to unpack packages in (set XDG_CACHE_HOME or HOME)".into(),
    })?;
    let failed = |source| ConfigError::Package {
        index,
        zip: zip.clone(),
        source,
    };
    let prepared = package::prepare(&zip, &root, rule, u32::from(size.get())).map_err(failed)?;
    pkg.sha256 = prepared.unpacked.sha256.clone();
    pkg.launcher = None;
    if prepared.is_exe() && !cfg!(windows) {
        let wine = env.var("WINE").filter(|w| !w.is_empty()).unwrap_or("wine");
        let wine = std::path::PathBuf::from(wine);
        if !program_exists(&wine, None, env) {
            let program = prepared.program.file_name().unwrap_or_default();
            return Err(ConfigError::NoWine {
                index,
                zip,
                program: program.to_string_lossy().into_owned(),
            });
        }
        // A path is made absolute (the engine runs in the package's folder); a bare name is
        // looked up in PATH when the engine starts.
        let wine = match wine.components().count() {
            1 => wine,
            _ => std::path::absolute(&wine).unwrap_or(wine),
        };
        pkg.launcher = Some(wine);
    }
    let program = prepared.program.to_string_lossy();
    spec.cmd = crate::config::named::quote_word(&program);
    Ok(())
}

/// A command that drives one engine (`check`, `openings generate`): the engine read once and
/// checked as a match checks each of its engines, and the match options such a command shares.
#[derive(Debug, Clone)]
pub struct OneEngine {
    pub spec: EngineSpec,
    /// `-boardsize` and `-rule`.
    pub size: BoardSize,
    pub rule: Rule,
    /// `-concurrency`.
    pub concurrency: usize,
    /// `-startuptimeout`.
    pub startup_timeout: Duration,
    /// `-shard K/N`, or from the scheduler's environment.
    pub shard: Option<Shard>,
}

impl OneEngine {
    /// The one `-engine` of `raw` (the caller has checked there is one), `-each` under it.
    pub fn from_raw(raw: &RawCli, env: &Env) -> Result<OneEngine, ConfigError> {
        let lists = engine_lists(raw, env)?;
        let kvs = lists.first().cloned().unwrap_or_default();
        let (size, rule) = board_of(raw)?;
        let spec = engine_of(&raw.each, &kvs, 1, (size, rule), env)?;
        let concurrency = match raw.value(Opt::Concurrency) {
            Some(v) => parse_u64(Opt::Concurrency, v, 1)? as usize,
            None => 1,
        };
        Ok(OneEngine {
            spec,
            size,
            rule,
            concurrency,
            startup_timeout: startup_timeout_of(raw)?,
            shard: shard_of(raw, env)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_engines_file_checks_values_as_the_command_line_does() {
        let path = std::path::Path::new("e.json");
        let text = |v: &str| format!("[{{\"name\": \"a\", \"command\": \"x\", {v}}}]");
        let e = |v: &str| parse_engines_file(path, &text(v)).unwrap_err().to_string();
        assert!(
            e("\"tc\": \"fast\"").contains("entry 1 (\"a\"): \"tc\": time control 'fast'"),
            "{}",
            e("\"tc\": \"fast\"")
        );
        assert!(
            e("\"thread\": 0").contains("\"thread\": \"0\" is not valid"),
            "{}",
            e("\"thread\": 0")
        );
        assert!(e("\"detail\": \"9\"").contains("expected off or a show_detail level 0-3"));
        for v in [
            "\"tc\": \"10/1+0.1\"",
            "\"thread\": 2",
            "\"maxmemory\": 0",
            "\"detail\": \"off\"",
        ] {
            assert!(parse_engines_file(path, &text(v)).is_ok(), "{v}");
        }
    }
}
