//! One file, one role: before the first game, every output path (journal, records, samples,
//! library, report, directories of `.psq` records and logs) and every input (the openings) is
//! resolved to the file it really names (`.`/`..`, symlinks, hard links) and two roles naming one
//! file are refused. Without it, `-journal j.txt -pgn j.txt` wrote PGN into the journal and the run
//! could no longer be read or resumed.

use std::path::{Component, Path, PathBuf};

use crate::cli::Opt;
use crate::config::Config;

/// Two roles that name the same file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SameFile {
    /// Two outputs would write into one file.
    #[error("{first} and {second} name the same file ({}): each output needs a file of its own", path.display())]
    Outputs {
        first: Opt,
        second: Opt,
        /// The path as the second role gave it.
        path: PathBuf,
    },
    /// An output would overwrite a file the run reads.
    #[error("{output} names {}, which is also the {input} file this run reads: an output must not overwrite an input", path.display())]
    Input {
        input: Opt,
        output: Opt,
        /// The path as the output gave it.
        path: PathBuf,
    },
}

/// The roles of a configuration's paths: `(option, path, is an input)`. `journal` is the journal
/// this run writes (the one found to resume, or the configured one).
fn roles<'a>(config: &'a Config, journal: Option<&'a Path>) -> Vec<(Opt, &'a Path, bool)> {
    let mut out: Vec<(Opt, &Path, bool)> = Vec::new();
    if let Some(o) = &config.tournament.openings {
        out.push((Opt::Openings, o.file.as_path(), true));
    }
    if let Some(j) = journal {
        out.push((Opt::Journal, j, false));
    }
    for (name, p) in [
        (Opt::Pgn, &config.outputs.pgn),
        (Opt::Sgf, &config.outputs.sgf),
        (Opt::Msg, &config.outputs.msg),
        (Opt::Psq, &config.outputs.psq),
        (Opt::Renlib, &config.outputs.renlib),
        (Opt::Report, &config.outputs.report),
    ] {
        if let Some(p) = p {
            out.push((name, p.as_path(), false));
        }
    }
    if let Some(s) = &config.outputs.sample {
        out.push((Opt::Sample, s.file.as_path(), false));
    }
    out
}

/// Lexically drop `.` and resolve `..` against what precedes it.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The file `path` really names: its longest existing ancestor with symlinks resolved, then the
/// rest. A path that cannot be resolved stays as given (absolute, normalized).
pub fn resolve(path: &Path) -> PathBuf {
    let absolute = match std::env::current_dir() {
        Ok(cwd) => cwd.join(path),
        Err(_) => path.to_path_buf(),
    };
    let absolute = normalize(&absolute);
    let mut rest = Vec::new();
    let mut base = absolute.as_path();
    loop {
        if let Ok(real) = base.canonicalize() {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return normalize(&out);
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                base = parent;
            }
            _ => return absolute,
        }
    }
}

/// Whether a path names a device, a pipe or a socket (`/dev/null` may take every output).
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// The device and inode of an existing file (hard links share them).
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Refuse two roles naming one file.
pub fn check(config: &Config, journal: Option<&Path>) -> Result<(), SameFile> {
    let seen: Vec<(Opt, &Path, bool, PathBuf)> = roles(config, journal)
        .into_iter()
        .filter(|(_, p, _)| !is_special(p))
        .map(|(name, p, input)| (name, p, input, resolve(p)))
        .collect();
    for (i, &(b, path, b_input, ref real_b)) in seen.iter().enumerate() {
        for &(a, _, a_input, ref real_a) in &seen[..i] {
            let same =
                real_a == real_b || identity(real_a).is_some_and(|id| identity(real_b) == Some(id));
            if !same {
                continue;
            }
            let path = path.to_path_buf();
            return Err(match (a_input, b_input) {
                (true, _) => SameFile::Input {
                    input: a,
                    output: b,
                    path,
                },
                (_, true) => SameFile::Input {
                    input: b,
                    output: a,
                    path,
                },
                _ => SameFile::Outputs {
                    first: a,
                    second: b,
                    path,
                },
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dots_and_symlinks_resolve_to_one_file() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().canonicalize().unwrap();
        std::fs::create_dir(d.join("sub")).unwrap();
        assert_eq!(resolve(&d.join("sub/../x.pgn")), d.join("x.pgn"));
        assert_eq!(resolve(&d.join("./sub/./y/z.pgn")), d.join("sub/y/z.pgn"));
        std::os::unix::fs::symlink(d.join("sub"), d.join("link")).unwrap();
        assert_eq!(resolve(&d.join("link/a.sgf")), d.join("sub/a.sgf"));
        std::fs::write(d.join("real"), "x").unwrap();
        std::os::unix::fs::symlink(d.join("real"), d.join("alias")).unwrap();
        assert_eq!(resolve(&d.join("alias")), d.join("real"));
    }

    #[test]
    fn messages_name_both_roles_and_the_path() {
        let out = SameFile::Outputs {
            first: Opt::Journal,
            second: Opt::Pgn,
            path: "j.txt".into(),
        };
        assert_eq!(
            out.to_string(),
            "-journal and -pgn name the same file (j.txt): each output needs a file of its own"
        );
        let input = SameFile::Input {
            input: Opt::Openings,
            output: Opt::Sgf,
            path: "o.txt".into(),
        };
        assert_eq!(
            input.to_string(),
            "-sgf names o.txt, which is also the -openings file this run reads: an output must not overwrite an input"
        );
    }
}
