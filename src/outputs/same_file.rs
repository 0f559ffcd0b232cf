//! One file, one role, for every command: before any work, every path a command writes and every
//! file it reads is resolved to the file it really names (`.`/`..`, symlinks, hard links), and two
//! roles naming one file are refused, naming both. Without it, `-journal j.txt -pgn j.txt` wrote
//! PGN into the journal, and `report run.jsonl -o run.jsonl` replaced the journal with HTML.
//!
//! Two inputs may name one file (reading twice harms nothing). A device, a pipe or a socket
//! (`/dev/null`) may take every role: nothing is replaced there (see `atomic_file`).

use std::path::{Component, Path, PathBuf};

/// Two roles that name the same file; each role is named as the command line gives it (`-o`,
/// `--counts`, `-tuneout csv=`, `input`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SameFile {
    /// Two outputs would write into one file.
    #[error("{first} and {second} name the same file ({}): each output needs a file of its own", path.display())]
    Outputs {
        first: String,
        second: String,
        /// The path as the second role gave it.
        path: PathBuf,
    },
    /// An output would overwrite a file the command reads.
    #[error("{output} names {}, which is also the {input} file this {reader} reads: an output must not overwrite an input", path.display())]
    Input {
        input: String,
        output: String,
        /// The path as the output gave it.
        path: PathBuf,
        /// Who reads it: `run` (the match runner, `tune`) or `command`.
        reader: &'static str,
    },
}

/// The files a command reads and writes, each with the option that names it.
#[derive(Debug, Clone)]
pub struct Roles {
    reader: &'static str,
    list: Vec<Role>,
}

#[derive(Debug, Clone)]
struct Role {
    label: String,
    path: PathBuf,
    input: bool,
}

impl Roles {
    /// The roles of a match run (or a tuning): an input clash is "the file this run reads".
    pub fn of_run() -> Roles {
        Roles {
            reader: "run",
            list: Vec::new(),
        }
    }

    /// The roles of a subcommand (`report`, `lib merge`, `openings canonical`, `export`...).
    pub fn of_command() -> Roles {
        Roles {
            reader: "command",
            list: Vec::new(),
        }
    }

    /// A file the command reads, named by `label` (`-openings`, `input`).
    pub fn input(&mut self, label: impl Into<String>, path: impl Into<PathBuf>) -> &mut Roles {
        self.push(label.into(), path.into(), true)
    }

    /// A file (or directory) the command writes, named by `label` (`-o`, `-tuneout csv=`).
    pub fn output(&mut self, label: impl Into<String>, path: impl Into<PathBuf>) -> &mut Roles {
        self.push(label.into(), path.into(), false)
    }

    fn push(&mut self, label: String, path: PathBuf, input: bool) -> &mut Roles {
        self.list.push(Role { label, path, input });
        self
    }

    /// Refuse an output naming the file of an input or of another output; the first clash in the
    /// order the roles were given is named.
    pub fn check(&self) -> Result<(), SameFile> {
        let seen: Vec<(&Role, PathBuf)> = (self.list.iter())
            .filter(|r| !is_special(&r.path))
            .map(|r| (r, resolve(&r.path)))
            .collect();
        for (i, (b, real_b)) in seen.iter().enumerate() {
            for (a, real_a) in &seen[..i] {
                if (a.input && b.input) || !same(real_a, real_b) {
                    continue;
                }
                let (input, output) = match (a.input, b.input) {
                    (true, _) => (a, b),
                    (_, true) => (b, a),
                    _ => {
                        return Err(SameFile::Outputs {
                            first: a.label.clone(),
                            second: b.label.clone(),
                            path: b.path.clone(),
                        })
                    }
                };
                return Err(SameFile::Input {
                    input: input.label.clone(),
                    output: output.label.clone(),
                    path: output.path.clone(),
                    reader: self.reader,
                });
            }
        }
        Ok(())
    }
}

/// Whether two resolved paths are one file: the same path, or one inode (hard links).
fn same(a: &Path, b: &Path) -> bool {
    a == b || identity(a).is_some_and(|id| identity(b) == Some(id))
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
            first: "-journal".into(),
            second: "-pgn".into(),
            path: "j.txt".into(),
        };
        assert_eq!(
            out.to_string(),
            "-journal and -pgn name the same file (j.txt): each output needs a file of its own"
        );
        let input = SameFile::Input {
            input: "-openings".into(),
            output: "-sgf".into(),
            path: "o.txt".into(),
            reader: "run",
        };
        assert_eq!(
            input.to_string(),
            "-sgf names o.txt, which is also the -openings file this run reads: an output must not overwrite an input"
        );
    }

    #[test]
    fn an_output_on_an_input_or_another_output_is_refused_two_inputs_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("o.txt"), "x").unwrap();
        std::fs::hard_link(d.join("o.txt"), d.join("hard.txt")).unwrap();
        let mut roles = Roles::of_command();
        roles.input("input", d.join("o.txt"));
        roles.input("--into", d.join("hard.txt"));
        roles.output("-o", d.join("c.txt"));
        assert_eq!(roles.check(), Ok(()));
        let mut counts = roles.clone();
        counts.output("--counts", d.join("sub/../hard.txt"));
        assert_eq!(
            counts.check(),
            Err(SameFile::Input {
                input: "input".into(),
                output: "--counts".into(),
                path: d.join("sub/../hard.txt"),
                reader: "command",
            })
        );
        let mut twice = roles.clone();
        twice.output("--counts", d.join("./c.txt"));
        assert_eq!(
            twice.check(),
            Err(SameFile::Outputs {
                first: "-o".into(),
                second: "--counts".into(),
                path: d.join("./c.txt"),
            })
        );
    }

    #[test]
    fn a_device_takes_every_role() {
        let mut roles = Roles::of_command();
        roles.input("input", "/dev/null");
        roles.output("-o", "/dev/null");
        roles.output("--counts", "/dev/null");
        assert_eq!(roles.check(), Ok(()));
    }
}
