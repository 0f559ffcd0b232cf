//! `-resume`: the temporary files a killed run left beside its outputs (`write_atomic`'s
//! `.NAME.PID.tmp`: `.game-000004.psq.PID.tmp` in the `-psq` folder, `.r.lib.PID.tmp` beside the
//! library, the report's and a tuning's) are removed. Only names this program makes for this
//! run's own outputs are touched, and only when their process is gone: a second runner working
//! beside this one (another shard sharing the folders, on this machine or another) keeps its
//! files, since a shard's outputs carry its tag and its siblings' never match.

use std::path::{Path, PathBuf};

use crate::outputs::records::{PsqTarget, PROBE};
use crate::schedule::shard::Shard;
use crate::schedule::GameId;

/// `.NAME.PID.tmp` read back: the file it stands in for and the process that made it.
pub fn parse_temp(name: &str) -> Option<(&str, u32)> {
    let inner = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (target, pid) = inner.rsplit_once('.')?;
    let digits = !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit());
    match (target.is_empty(), digits) {
        (false, true) => Some((target, pid.parse().ok()?)),
        _ => None,
    }
}

/// Whether process `pid` may still be writing: this process, or one that exists (also one we
/// may not signal). An unknown answer counts as alive: a file is kept rather than lost.
fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let Ok(id) = libc::pid_t::try_from(pid) else {
        return true;
    };
    if id <= 0 {
        return true;
    }
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    if unsafe { libc::kill(id, 0) } == 0 {
        return true;
    }
    std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// What a resumed run cleans: files replaced whole (library, report, `-tuneout`) and the `-psq`
/// folder.
#[derive(Debug, Default)]
pub struct Leftovers {
    files: Vec<PathBuf>,
    psq: Option<PsqTarget>,
    shard: Option<Shard>,
}

impl Leftovers {
    /// `shard`: the shard this process plays; then only outputs tagged with it are cleaned (an
    /// untagged path, such as a `-tuneout csv=` every shard names, may be a sibling's on another
    /// machine, where its process id means nothing here).
    pub fn new(shard: Option<Shard>) -> Leftovers {
        Leftovers {
            shard,
            ..Leftovers::default()
        }
    }

    /// A file this run replaces whole (a device or FIFO is written in place: nothing is made
    /// beside it, and nothing is looked for there).
    pub fn file(&mut self, path: &Path) -> &mut Leftovers {
        if !crate::formats::atomic_file::writes_in_place(path) {
            self.files.push(path.to_path_buf());
        }
        self
    }

    /// The `-psq` folder.
    pub fn psq(&mut self, target: &PsqTarget) -> &mut Leftovers {
        self.psq = Some(target.clone());
        self
    }

    /// Whether `name` (without its temporary wrapping) is one of this run's outputs in `dir`.
    fn owns(&self, dir: &Path, name: &str) -> bool {
        let ours = self.shard.is_none_or(|s| name.contains(&s.tag()));
        let file = self
            .files
            .iter()
            .any(|f| f.file_name().is_some_and(|n| n == name) && same_dir(&parent(f), dir));
        let record = self
            .psq
            .as_ref()
            .is_some_and(|p| same_dir(&p.dir, dir) && is_record(p, name));
        let probe = name == PROBE && self.psq.as_ref().is_some_and(|p| same_dir(&p.dir, dir));
        ours && (file || record || probe)
    }

    /// Remove the stale temporary files; returns those removed.
    pub fn remove(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = self.files.iter().map(|f| parent(f)).collect();
        dirs.extend(self.psq.as_ref().map(|p| p.dir.clone()));
        dirs.dedup();
        let mut removed = Vec::new();
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name();
                let Some((target, pid)) = name.to_str().and_then(parse_temp) else {
                    continue;
                };
                let plain = e.file_type().is_ok_and(|t| t.is_file());
                if plain && self.owns(&dir, target) && !alive(pid) {
                    let path = e.path();
                    if std::fs::remove_file(&path).is_ok() {
                        removed.push(path);
                    }
                }
            }
        }
        removed.sort();
        removed
    }
}

/// The folder of `path` (`.` for a bare name).
fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    a == b || crate::outputs::same_file::resolve(a) == crate::outputs::same_file::resolve(b)
}

/// Whether `name` is the `.psq` record of some game in `p`, exactly as `PsqTarget::path_of`
/// names it.
fn is_record(p: &PsqTarget, name: &str) -> bool {
    let Some(rest) = name.strip_prefix("game-") else {
        return false;
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    match digits.parse::<u64>() {
        Ok(n) => p.path_of(GameId(n)).file_name().is_some_and(|f| f == name),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_read_back_exactly() {
        assert_eq!(
            parse_temp(".game-000004.psq.4242.tmp"),
            Some(("game-000004.psq", 4242))
        );
        assert_eq!(parse_temp(".r.lib.17.tmp"), Some(("r.lib", 17)));
        for not in [
            "game-000004.psq.4242.tmp",
            ".r.lib.tmp",
            ".r.lib.12x.tmp",
            ".r.lib.12.temp",
            "..12.tmp",
            ".r.lib..tmp",
        ] {
            assert_eq!(parse_temp(not), None, "{not}");
        }
    }

    /// A process id that is certainly not running: a child that has been waited for.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn only_this_runs_temporaries_of_dead_processes_go() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("psq")).unwrap();
        let dead = dead_pid();
        let me = std::process::id();
        let touch = |p: &str| std::fs::write(d.join(p), "x").unwrap();
        let gone = [
            format!("psq/.game-000004.psq.{dead}.tmp"),
            format!("psq/.{PROBE}.{dead}.tmp"),
            format!(".r.lib.{dead}.tmp"),
        ];
        let kept = [
            format!("psq/.game-000004.psq.{me}.tmp"),
            format!("psq/.game-4.psq.{dead}.tmp"),
            format!("psq/.notes.txt.{dead}.tmp"),
            format!(".other.lib.{dead}.tmp"),
            format!(".r.lib.{dead}.temp"),
            "psq/game-000004.psq".to_string(),
            "r.lib".to_string(),
        ];
        for p in gone.iter().chain(&kept) {
            touch(p);
        }
        let psq = PsqTarget {
            dir: d.join("psq"),
            shard: None,
        };
        let mut l = Leftovers::new(None);
        l.file(&d.join("r.lib")).psq(&psq);
        let mut want: Vec<PathBuf> = gone.iter().map(|p| d.join(p)).collect();
        want.sort();
        assert_eq!(l.remove(), want);
        for p in &kept {
            assert!(d.join(p).exists(), "{p} was removed");
        }
    }

    #[test]
    fn a_shard_cleans_its_own_tagged_outputs_only() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let dead = dead_pid();
        let mine = Shard { index: 1, count: 2 };
        let theirs = Shard { index: 2, count: 2 };
        let psq = |s| PsqTarget {
            dir: d.to_path_buf(),
            shard: Some(s),
        };
        let name = |s| {
            let record = psq(s).path_of(GameId(3));
            let n = record.file_name().unwrap().to_string_lossy().into_owned();
            format!(".{n}.{dead}.tmp")
        };
        let tune = format!(".t.csv.{dead}.tmp");
        for n in [name(mine), name(theirs), tune.clone()] {
            std::fs::write(d.join(n), "x").unwrap();
        }
        let mut l = Leftovers::new(Some(mine));
        l.psq(&psq(mine)).file(&d.join("t.csv"));
        assert_eq!(l.remove(), vec![d.join(name(mine))]);
        assert!(d.join(name(theirs)).exists() && d.join(tune).exists());
    }
}
