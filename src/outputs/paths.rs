//! One policy for every output path: parent directories are created, and a path that cannot be
//! used is named (with the file in the way, when a parent is one) before the first game.

use std::path::Path;

use super::OutputError;

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
}
