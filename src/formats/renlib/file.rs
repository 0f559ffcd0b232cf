//! The only part of `renlib` that touches files: loading a library, and replacing one atomically
//! (a temporary file next to it, synced, then renamed over it), so a kill at any moment leaves
//! either the old library or the new one, never a torn file.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::formats::renlib::{read, write, Library, ReadError};

/// A library file that cannot be read or written.
#[derive(Debug, Error)]
pub enum FileError {
    /// The file cannot be opened or read.
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    /// The file is not a library we can read.
    #[error("{path}: {source}")]
    Parse { path: PathBuf, source: ReadError },
    /// The new file cannot be written or put in place (the old one is untouched).
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: io::Error },
}

/// Read a library file.
pub fn load(path: &Path) -> Result<Library, FileError> {
    let bytes = fs::read(path).map_err(|source| FileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    read(&bytes).map_err(|source| FileError::Parse {
        path: path.to_path_buf(),
        source,
    })
}

/// Read a library file, or start a new (3.4, empty) library when there is none yet.
pub fn load_or_new(path: &Path) -> Result<Library, FileError> {
    match fs::metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Library::new()),
        _ => load(path),
    }
}

/// Write `lib` to `path` atomically: to a temporary file in the same directory, flushed to disk,
/// then renamed over `path`.
pub fn save_atomic(path: &Path, lib: &Library) -> Result<(), FileError> {
    crate::formats::atomic_file::write_atomic(path, |mut out| write(lib, &mut out)).map_err(
        |source| FileError::Write {
            path: path.to_path_buf(),
            source,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::renlib::to_bytes;

    #[test]
    fn saves_replace_the_file_and_leave_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.lib");
        assert_eq!(
            to_bytes(&load_or_new(&path).unwrap()),
            to_bytes(&Library::new())
        );
        fs::write(&path, b"old").unwrap();
        save_atomic(&path, &Library::new()).unwrap();
        assert_eq!(fs::read(&path).unwrap(), to_bytes(&Library::new()));
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        assert!(matches!(
            load(&dir.path().join("none.lib")),
            Err(FileError::Read { .. })
        ));
        fs::write(&path, b"junk").unwrap();
        assert!(matches!(load(&path), Err(FileError::Parse { .. })));
    }

    #[test]
    fn a_failed_save_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub");
        fs::create_dir(&path).unwrap();
        // Renaming a file over a directory fails: the directory stays, no temporary is left.
        assert!(save_atomic(&path, &Library::new()).is_err());
        assert!(path.is_dir());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
