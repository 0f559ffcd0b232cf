//! The unpacked packages: each zip unpacked once into `ROOT/<its SHA-256>/` and reused by every
//! later run. The unpack goes to a hidden folder beside it that is renamed into place when whole,
//! so two runs unpacking at once or one killed half-way never leave a partial folder under the
//! final name (the loser of a race drops its copy and uses the winner's).

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use sha2::Digest;

use super::PackageError;

/// The most entries a package may hold.
pub const MAX_ENTRIES: usize = 10_000;
/// The most bytes its files may unpack to, together (Gomocup's largest packages, networks
/// included, unpack to a few hundred MiB).
pub const MAX_UNPACKED: u64 = 4 << 30;

/// A package unpacked in the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpacked {
    /// `ROOT/<sha256>`.
    pub dir: PathBuf,
    /// The zip's SHA-256 in lower-case hex.
    pub sha256: String,
    /// The names of the regular files at the folder's top level.
    pub files: Vec<String>,
}

/// The SHA-256 of a file's bytes in hex, read in blocks (a package may be hundreds of MiB):
/// also the digest of the openings file in a journal's header (`config::identity`).
pub fn sha256_of(path: &Path) -> io::Result<String> {
    let mut file = fs::File::open(path)?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(crate::core::numbers::hex(&hasher.finalize()))
}

/// The zip at `zip` unpacked under `root` (made if missing): the folder of an earlier unpack of
/// the same bytes, else a new one.
pub fn unpack(zip: &Path, root: &Path) -> Result<Unpacked, PackageError> {
    let io_err = |what: &str, path: &Path, e: io::Error| PackageError::Io {
        what: format!("{what} {}", path.display()),
        source: e,
    };
    let sha256 = sha256_of(zip).map_err(|e| io_err("cannot read", zip, e))?;
    let dir = root.join(&sha256);
    if !dir.is_dir() {
        fs::create_dir_all(root).map_err(|e| io_err("cannot create", root, e))?;
        let tmp = tempfile_dir(root, &sha256)
            .map_err(|e| io_err("cannot create a folder in", root, e))?;
        let unpacked = extract(zip, &tmp);
        let placed = unpacked.and_then(|()| match fs::rename(&tmp, &dir) {
            Ok(()) => Ok(()),
            // Another run put the same package in place first: its copy is as good.
            Err(_) if dir.is_dir() => Ok(()),
            Err(e) => Err(io_err("cannot move the unpacked package to", &dir, e)),
        });
        if tmp.exists() {
            let _ = fs::remove_dir_all(&tmp);
        }
        placed?;
    }
    let mut files = Vec::new();
    for entry in fs::read_dir(&dir).map_err(|e| io_err("cannot list", &dir, e))? {
        let entry = entry.map_err(|e| io_err("cannot list", &dir, e))?;
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            files.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    files.sort();
    Ok(Unpacked { dir, sha256, files })
}

/// A new hidden folder in `root` for one unpack of `sha256`, its name unique to this process.
fn tempfile_dir(root: &Path, sha256: &str) -> io::Result<PathBuf> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    for n in 0..100u32 {
        let dir = root.join(format!(".{sha256}.{}-{nanos}-{n}.tmp", std::process::id()));
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(io::ErrorKind::AlreadyExists, "no free name"))
}

/// Every entry of the zip written under `into`, checked first: paths that stay inside it (no
/// `..`, no absolute path: zip-slip), no links, a sane number and size.
fn extract(zip: &Path, into: &Path) -> Result<(), PackageError> {
    let file = fs::File::open(zip).map_err(|e| PackageError::Io {
        what: format!("cannot read {}", zip.display()),
        source: e,
    })?;
    let corrupt = |why: String| PackageError::Corrupt { why };
    let mut archive = zip::ZipArchive::new(io::BufReader::new(file))
        .map_err(|e| corrupt(format!("not a zip file ({e})")))?;
    if archive.len() > MAX_ENTRIES {
        return Err(corrupt(format!(
            "{} entries, more than the {MAX_ENTRIES} a package may hold",
            archive.len()
        )));
    }
    let mut total: u64 = 0;
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| corrupt(format!("entry {}: {e}", i + 1)))?;
        let name = entry.name().to_string();
        // The zip crate makes `/etc/x` and `C:\x` relative; such names are refused all the
        // same, as `..` is: no honest package is made of them.
        let rooted = name.starts_with(['/', '\\'])
            || name
                .split(['/', '\\'])
                .next()
                .is_some_and(|c| c.contains(':'));
        let Some(relative) = entry.enclosed_name().filter(|_| !rooted) else {
            return Err(PackageError::Escapes { entry: name });
        };
        if entry.is_symlink() {
            return Err(PackageError::Link { entry: name });
        }
        let path = into.join(&relative);
        let write_err = |e: io::Error| PackageError::Io {
            what: format!("cannot write {}", path.display()),
            source: e,
        };
        if entry.is_dir() {
            fs::create_dir_all(&path).map_err(write_err)?;
            continue;
        }
        total = total.saturating_add(entry.size());
        if total > MAX_UNPACKED {
            return Err(corrupt(format!(
                "its files unpack to more than {} GiB",
                MAX_UNPACKED >> 30
            )));
        }
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(write_err)?;
        }
        // An entry whose name was seen before would overwrite it: refuse rather than guess.
        let mut out = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(write_err)?;
        let declared = entry.size();
        // The declared size bounds what is written, whatever the compressed stream holds.
        let copied = io::copy(&mut (&mut entry).take(declared), &mut out)
            .map_err(|e| corrupt(format!("entry {name}: {e}")))?;
        // Reading past the declared size must find the end (and there the CRC is checked).
        let more = entry
            .read(&mut [0u8; 1])
            .map_err(|e| corrupt(format!("entry {name}: {e}")))?;
        if copied != declared || more != 0 {
            let what = if more != 0 { "more than" } else { "fewer than" };
            return Err(corrupt(format!(
                "entry {name}: {what} the {declared} bytes its header says"
            )));
        }
        out.flush().map_err(write_err)?;
        if let Some(mode) = entry.unix_mode() {
            use std::os::unix::fs::PermissionsExt;
            // The owner's read and write, and execute where the zip says so.
            let mode = 0o644 | (mode & 0o111);
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).map_err(write_err)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zip of `(name, bytes, unix mode)` entries, written with the zip crate's own writer.
    pub(crate) fn zip_of(entries: &[(&str, &[u8], u32)]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
        for (name, bytes, mode) in entries {
            let options = zip::write::SimpleFileOptions::default().unix_permissions(*mode);
            w.start_file(*name, options).unwrap();
            w.write_all(bytes).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        fs::write(&path, bytes).unwrap();
        path
    }

    /// The names in `root`, hidden ones included.
    fn listing(root: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(root)
            .map(|d| {
                d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }

    #[test]
    fn a_package_is_unpacked_once_under_its_hash_and_reused() {
        let t = tempfile::tempdir().unwrap();
        let bytes = zip_of(&[
            ("pbrain-x", b"#!/bin/sh\n", 0o755),
            ("data/w.bin", b"weights", 0o644),
            ("readme.txt", b"hi", 0o600),
        ]);
        let zip = write(t.path(), "x.zip", &bytes);
        let root = t.path().join("cache");
        let u = unpack(&zip, &root).unwrap();
        let hash = sha256_of(&zip).unwrap();
        assert_eq!(u.sha256, hash);
        assert_eq!(u.dir, root.join(&hash));
        assert_eq!(u.files, ["pbrain-x", "readme.txt"]);
        assert_eq!(fs::read(u.dir.join("data/w.bin")).unwrap(), b"weights");
        use std::os::unix::fs::PermissionsExt;
        let mode = |n: &str| fs::metadata(u.dir.join(n)).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode("pbrain-x"), mode("readme.txt")), (0o755, 0o644));
        // No temporary folder is left, and a second unpack (a copy of the zip elsewhere) reuses
        // the folder: a file added to it is still there.
        assert_eq!(listing(&root), std::slice::from_ref(&hash));
        fs::write(u.dir.join("mark"), b"").unwrap();
        let copy = write(t.path(), "copy.zip", &bytes);
        let again = unpack(&copy, &root).unwrap();
        assert_eq!(again.dir, u.dir);
        assert!(again.files.contains(&"mark".to_string()));
        // Other bytes, another folder.
        let other = write(t.path(), "o.zip", &zip_of(&[("pbrain-y", b"y", 0o755)]));
        assert_ne!(unpack(&other, &root).unwrap().dir, u.dir);
    }

    #[test]
    fn runs_unpacking_at_once_and_a_killed_unpack_leave_one_whole_folder() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("cache");
        let files: Vec<(String, Vec<u8>)> = (0..40)
            .map(|i| (format!("f{i}.bin"), vec![i as u8; 20_000]))
            .collect();
        let entries: Vec<(&str, &[u8], u32)> = (files.iter())
            .map(|(n, b)| (n.as_str(), b.as_slice(), 0o644))
            .collect();
        let zip = write(t.path(), "p.zip", &zip_of(&entries));
        let hash = sha256_of(&zip).unwrap();
        // A killed unpack: its hidden folder, half-written, stays where it was left.
        let stale = root.join(format!(".{hash}.1-2-0.tmp"));
        fs::create_dir_all(&stale).unwrap();
        fs::write(stale.join("f0.bin"), b"half").unwrap();
        let runs: Vec<_> = (0..4)
            .map(|_| {
                let (zip, root) = (zip.clone(), root.clone());
                std::thread::spawn(move || unpack(&zip, &root).unwrap())
            })
            .collect();
        for run in runs {
            let u = run.join().unwrap();
            assert_eq!(u.dir, root.join(&hash));
            assert_eq!(u.files.len(), 40);
        }
        for (name, bytes) in &files {
            assert_eq!(&fs::read(root.join(&hash).join(name)).unwrap(), bytes);
        }
        // Only the final folder and the killed one's leftover: no run's own temporary folder.
        assert_eq!(listing(&root), [format!(".{hash}.1-2-0.tmp"), hash]);
    }

    #[test]
    fn a_corrupt_zip_is_an_error_and_leaves_nothing() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("cache");
        let junk = write(t.path(), "junk.zip", b"this is not a zip file at all");
        let e = unpack(&junk, &root).unwrap_err();
        assert!(matches!(e, PackageError::Corrupt { .. }), "{e}");
        assert!(e.to_string().contains("not a zip file"), "{e}");
        // A zip cut short: its central directory is gone.
        let whole = zip_of(&[("pbrain-x", &[7u8; 5000], 0o755)]);
        let cut = write(t.path(), "cut.zip", &whole[..whole.len() / 2]);
        assert!(matches!(
            unpack(&cut, &root),
            Err(PackageError::Corrupt { .. })
        ));
        // A flipped byte inside the data: the CRC check fails while unpacking.
        let mut bad = whole.clone();
        bad[40] ^= 0xff;
        let bad = write(t.path(), "bad.zip", &bad);
        assert!(unpack(&bad, &root).is_err());
        assert!(listing(&root).is_empty(), "{:?}", listing(&root));
        let missing = unpack(&t.path().join("none.zip"), &root).unwrap_err();
        assert!(missing.to_string().contains("none.zip"), "{missing}");
    }

    #[test]
    fn entries_that_escape_the_folder_are_refused() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("cache");
        for name in [
            "../evil",
            "a/../../evil",
            "/etc/evil",
            "C:\\evil",
            "c:/evil",
        ] {
            let zip = write(
                t.path(),
                "slip.zip",
                &zip_of(&[("pbrain-x", b"x", 0o755), (name, b"x", 0o644)]),
            );
            let e = unpack(&zip, &root).unwrap_err();
            assert!(matches!(e, PackageError::Escapes { .. }), "{name}: {e}");
            assert!(e.to_string().contains(&format!("{name:?}")), "{e}");
        }
        assert!(!t.path().join("evil").exists());
        assert!(listing(&root).is_empty(), "{:?}", listing(&root));
    }

    #[test]
    fn an_entry_larger_than_its_header_says_is_cut_and_refused() {
        // Rewrite the local and central headers' uncompressed size of a stored entry to less
        // than it holds: the copy stops at the declared size and the CRC fails, or the sizes
        // disagree; either way the package is refused.
        let t = tempfile::tempdir().unwrap();
        let mut w = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        w.start_file("pbrain-x", stored).unwrap();
        w.write_all(&[1u8; 100]).unwrap();
        let mut bytes = w.finish().unwrap().into_inner();
        let hundred = 100u32.to_le_bytes();
        let mut patched = 0;
        for i in 0..bytes.len() - 8 {
            // compressed size then uncompressed size, both 100: make the second 10.
            if bytes[i..i + 4] == hundred && bytes[i + 4..i + 8] == hundred {
                bytes[i + 4..i + 8].copy_from_slice(&10u32.to_le_bytes());
                patched += 1;
            }
        }
        assert_eq!(patched, 2, "the local and the central header");
        let zip = write(t.path(), "lie.zip", &bytes);
        assert!(unpack(&zip, &t.path().join("cache")).is_err());
    }
}
