//! One policy for every output path: parent directories are created, and a path that cannot be
//! used is named (with the file in the way, when a parent is one) before the first game.

use std::path::Path;

use crate::outputs::OutputError;

/// Make sure `path` can be created: its parent directories exist (created if missing). The error
/// names the path and, when a parent is a file, which one.
pub fn prepare_parent(path: &Path) -> Result<(), OutputError> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => prepare_dir(dir, path),
        _ => Ok(()),
    }
}

/// Create `dir` (for `for_path`'s sake) or explain why it cannot be.
pub fn prepare_dir(dir: &Path, for_path: &Path) -> Result<(), OutputError> {
    if let Some(file) = dir.ancestors().find(|a| a.is_file()) {
        return Err(OutputError::NotADirectory {
            path: for_path.to_path_buf(),
            file: file.to_path_buf(),
        });
    }
    std::fs::create_dir_all(dir).map_err(|source| OutputError::Open {
        path: dir.to_path_buf(),
        source,
    })
}

/// Whether a file replaced whole (`atomic_file::write_atomic`) can be written at `path`, found
/// before the work rather than after it: it has a file name, its parent directories exist
/// (created if missing), it is not a directory, and the temporary file it is written through can
/// be made beside it. A device or FIFO (written in place) is taken as it is: opening a FIFO
/// would wait for its reader.
pub fn check_replaceable(path: &Path) -> Result<(), OutputError> {
    let open = |source| OutputError::Open {
        path: path.to_path_buf(),
        source,
    };
    if path.file_name().is_none() {
        let no_name = std::io::Error::new(std::io::ErrorKind::InvalidInput, "no file name");
        return Err(open(no_name));
    }
    if crate::formats::atomic_file::writes_in_place(path) {
        return match path.is_dir() {
            true => Err(open(std::io::Error::other("a directory, not a file"))),
            false => Ok(()),
        };
    }
    prepare_parent(path)?;
    let probe = crate::formats::atomic_file::temp_path(path, std::process::id()).map_err(open)?;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(open)?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Open `path` for appending (created, with its parent directories, if missing).
pub fn open_append(path: &Path) -> Result<std::fs::File, OutputError> {
    prepare_parent(path)?;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|source| OutputError::Open {
            path: path.to_path_buf(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_in_the_way_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("A");
        std::fs::write(&a, "x").unwrap();
        let err = prepare_parent(&a.join("B.pgn")).unwrap_err().to_string();
        assert!(
            err.contains("A/B.pgn") && err.contains("is a file"),
            "{err}"
        );
        assert!(!err.contains("File exists"), "{err}");
        // Missing directories are created.
        let deep = dir.path().join("x/y/z.sgf");
        prepare_parent(&deep).unwrap();
        assert!(dir.path().join("x/y").is_dir());
    }

    #[test]
    fn a_file_replaced_whole_is_checked_before_the_work() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        check_replaceable(&d.join("new/t.csv")).unwrap();
        assert!(d.join("new").is_dir(), "its folder is made");
        assert_eq!(std::fs::read_dir(d.join("new")).unwrap().count(), 0);
        let empty = check_replaceable(Path::new("")).unwrap_err().to_string();
        assert!(empty.contains("no file name"), "{empty}");
        let folder = check_replaceable(&d.join("new")).unwrap_err().to_string();
        assert!(folder.contains("a directory"), "{folder}");
        std::fs::write(d.join("f"), "x").unwrap();
        let under = check_replaceable(&d.join("f/t.csv"))
            .unwrap_err()
            .to_string();
        assert!(under.contains("is a file"), "{under}");
        check_replaceable(Path::new("/dev/null")).unwrap();
        // A folder it may not write (root may write anywhere: not checkable there).
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            use std::os::unix::fs::PermissionsExt;
            let ro = d.join("ro");
            std::fs::create_dir(&ro).unwrap();
            std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o500)).unwrap();
            let denied = check_replaceable(&ro.join("t.csv"))
                .unwrap_err()
                .to_string();
            assert!(denied.contains("ermission denied"), "{denied}");
            std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o700)).unwrap();
        }
    }
}
