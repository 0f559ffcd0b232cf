//! Replacing a file atomically: written to a temporary file next to it, synced, then renamed over
//! it, so a reader (a browser reloading a report, a kill at any moment) sees the old file or the
//! new one, never a torn one. Used by RenLib archives (`-renlib`, `lib merge`) and reports.
//!
//! Only a regular file (or a path not there yet) is replaced so: a device or a FIFO (`-o
//! /dev/null`) is written in place, never renamed over (as root, a rename made `/dev/null` a
//! regular file), and no temporary file is made beside it; a write error there (`/dev/full`) is
//! an error all the same. A symlink is followed: the file it names is replaced and the link
//! stays (`/dev/stdout` redirected to a file must not become a file in `/dev`).

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The file replacing `path` replaces: `path` itself, or the file a symlink there names (the
/// link stays; a link that cannot be resolved is replaced as before).
pub fn replaced_file(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// Whether `path` is written in place rather than replaced: it exists and is not a regular file
/// (a device, a FIFO, a socket; a directory, which then fails to open). Side files (temporary,
/// `.progress`) are never made beside such a path.
pub fn writes_in_place(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| !m.is_file())
}

/// The temporary file `write_atomic` writes `path` through in process `pid`:
/// `dir/.NAME.PID.tmp`.
pub fn temp_path(path: &Path, pid: u32) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    Ok(dir_of(path).join(format!(".{}.{pid}.tmp", name.to_string_lossy())))
}

/// The directory `path` is in (`.` for a bare name).
fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Write `path` atomically with what `fill` writes. On failure the old file is untouched and the
/// temporary file removed. A path that [`writes_in_place`] is opened and written directly.
pub fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    if writes_in_place(path) {
        let file = fs::OpenOptions::new().write(true).open(path)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        fill(&mut out)?;
        return out.flush();
    }
    let path = &replaced_file(path);
    let dir = dir_of(path);
    let tmp = temp_path(path, std::process::id())?;
    let result = write_synced(&tmp, fill).and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    // The rename is durable once the directory is synced; not every filesystem allows it.
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

fn write_synced(tmp: &Path, fill: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let file = fs::File::create(tmp)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    fill(&mut out)?;
    out.flush()?;
    out.get_ref().sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_fill_keeps_the_old_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.html");
        write_atomic(&path, |w| w.write_all(b"old")).unwrap();
        let err = write_atomic(&path, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(fs::read(&path).unwrap(), b"old");
        write_atomic(&path, |w| w.write_all(b"new")).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "only the file itself remains");
    }
}

#[cfg(test)]
mod special_files {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    /// A FIFO in a fresh directory (never a path under /dev: a wrong decision there would rename
    /// over a device).
    fn fifo(dir: &Path) -> PathBuf {
        let path = dir.join("pipe");
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        path
    }

    #[test]
    fn a_fifo_is_written_in_place_with_no_temporary_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = fifo(dir.path());
        let reader = {
            let path = path.clone();
            // Blocks until the writer opens the FIFO; left behind (not joined) if it never does.
            std::thread::spawn(move || fs::read(path))
        };
        write_atomic(&path, |w| w.write_all(b"through the pipe")).unwrap();
        let kind = fs::symlink_metadata(&path).unwrap().file_type();
        assert!(kind.is_fifo(), "the FIFO was replaced by a {kind:?}");
        assert_eq!(reader.join().unwrap().unwrap(), b"through the pipe");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "nothing beside the FIFO: {names:?}");
    }

    #[test]
    fn a_symlink_stays_and_the_file_it_names_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::create_dir(d.join("links")).unwrap();
        fs::write(d.join("out.txt"), "old").unwrap();
        let link = d.join("links/stdout");
        std::os::unix::fs::symlink(d.join("out.txt"), &link).unwrap();
        write_atomic(&link, |w| w.write_all(b"new")).unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(d.join("out.txt")).unwrap(), b"new");
        assert_eq!(fs::read_dir(d.join("links")).unwrap().count(), 1);
        assert_eq!(fs::read_dir(d).unwrap().count(), 2, "no temporary left");
    }

    #[test]
    fn a_write_error_on_a_device_is_an_error() {
        let full = Path::new("/dev/full");
        if !full.exists() {
            eprintln!("skipped: no /dev/full");
            return;
        }
        // The decision first: were it wrong, the write below would rename over /dev/full.
        assert!(writes_in_place(full));
        let err = write_atomic(full, |w| w.write_all(b"x")).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOSPC), "{err}");
        assert!(fs::metadata(full).unwrap().file_type().is_char_device());
    }
}
