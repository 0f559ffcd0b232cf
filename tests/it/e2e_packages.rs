//! Gomocup engine packages (`-engine pkg=FILE.zip`) from the command line: a zip of a bundled
//! engine played in a match from the cache it unpacks into, its SHA-256 the engine's identity in
//! the journal (a resume with other bytes under the same name is refused), the errors of bad
//! packages, and real Gomocup packages (Windows programs) under Wine.
//!
//! The Wine test needs `wine` and Gomocup's zips: `GOMOCUP_PKGS` (a folder of zips), else the
//! GomocupDownload git mirror at `GOMOCUP_MIRROR` or /work/.mirror/Gomocup+GomocupDownload/repo
//! read with `git show`. The zips cannot be committed here (others' programs) nor fetched by CI,
//! so without them the test says so and skips, under `CI=true` too.

use crate::common::*;

use sha2::Digest;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A zip of `(name, bytes, unix mode)` entries, stored (the engine binary is large; speed, not
/// size, matters here).
fn zip_of(entries: &[(&str, &[u8], u32)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes, mode) in entries {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .unix_permissions(*mode);
        w.start_file(*name, options).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The package cache of a test: `XDG_CACHE_HOME` in its folder.
fn cache_env(dir: &Path) -> (PathBuf, PathBuf) {
    let cache = dir.join("cache");
    (cache.clone(), cache.join("gomoku-cli").join("packages"))
}

/// A package of the bundled pbrain-random (and a file it does not need) written to `dir/NAME`.
fn random_package(dir: &Path, name: &str, extra: &[u8]) -> Vec<u8> {
    let engine = std::fs::read(engine("pbrain-random")).unwrap();
    let bytes = zip_of(&[
        ("pbrain-random", &engine, 0o755),
        ("readme.txt", extra, 0o644),
    ]);
    std::fs::write(dir.join(name), &bytes).unwrap();
    bytes
}

/// The first line of a journal: its header.
fn read_journal_header(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

fn package_match(games: usize) -> Match {
    Match::new()
        .args(&["-engine", "pkg=random.zip", "name=pkg"])
        .engine("pbrain-scout --depth 1", &["name=scout"])
        .games(games)
        .journal("j.jsonl")
        .noprogress()
}

#[test]
fn a_package_of_a_bundled_engine_plays_from_its_zip_and_its_hash_is_its_identity() {
    let dir = tempfile::tempdir().unwrap();
    let (xdg, packages) = cache_env(dir.path());
    let bytes = random_package(dir.path(), "random.zip", b"one");
    let hash = sha256_hex(&bytes);
    let env = [("XDG_CACHE_HOME", xdg.as_path())];
    let grace = Duration::from_secs(3);
    package_match(2)
        .run_in_env(dir.path(), &env, grace)
        .assert_success();
    let games = journal_games(&dir.path().join("j.jsonl"));
    assert_eq!(games.len(), 2);
    let header = read_journal_header(&dir.path().join("j.jsonl"));
    let e = &header["settings"]["engines"][0];
    assert_eq!(e["cmd"], "pkg=random.zip", "{e}");
    assert_eq!(e["package"], hash.as_str(), "{e}");
    assert!(header["settings"]["engines"][1].get("package").is_none());
    // Unpacked once, under the zip's hash, with nothing half-made beside it.
    let listing: Vec<String> = std::fs::read_dir(&packages)
        .unwrap()
        .map(|d| d.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(listing, std::slice::from_ref(&hash));
    assert!(packages.join(&hash).join("pbrain-random").is_file());

    // Other bytes under the same name: another engine, so the resume is refused.
    random_package(dir.path(), "random.zip", b"two");
    let run = package_match(2)
        .resume()
        .run_in_env(dir.path(), &env, grace);
    run.assert_exit(1)
        .assert_stderr_has("records a different run")
        .assert_stderr_has("engines[0].package");
    assert_eq!(journal_games(&dir.path().join("j.jsonl")).len(), 2);
    // The same bytes again (a copy of the first zip) are the same engine: the resume finds the
    // run complete.
    std::fs::write(dir.path().join("random.zip"), &bytes).unwrap();
    package_match(2)
        .resume()
        .run_in_env(dir.path(), &env, grace)
        .assert_success()
        .assert_stderr_has("2 games in the journal, 0 to play");
}

#[test]
fn check_judges_the_package_program() {
    let dir = tempfile::tempdir().unwrap();
    let (xdg, _) = cache_env(dir.path());
    random_package(dir.path(), "random.zip", b"");
    let run = Match::command(&["check"])
        .args(&["-engine", "pkg=random.zip"])
        .opt("-startuptimeout", 5)
        .run_in_env(
            dir.path(),
            &[("XDG_CACHE_HOME", xdg.as_path())],
            Duration::from_secs(3),
        );
    assert!(
        run.stdout
            .starts_with("check of pkg=random.zip (pbrain-random)\n"),
        "{}",
        run.stdout
    );
    let prefix = run.lines_starting("pass  prefix");
    assert_eq!(prefix.len(), 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        prefix[0].contains("file name pbrain-random"),
        "{}",
        prefix[0]
    );
}

#[test]
fn bad_packages_are_refused_naming_the_zip_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let (xdg, packages) = cache_env(dir.path());
    std::fs::write(dir.path().join("junk.zip"), b"not a zip at all").unwrap();
    let exes = zip_of(&[
        ("pbrain-e_renju.exe", b"MZ", 0o644),
        ("pbrain-e_caro.exe", b"MZ", 0o644),
    ]);
    std::fs::write(dir.path().join("rules.zip"), exes).unwrap();
    let windows = zip_of(&[("pbrain-w.exe", b"MZ", 0o644), ("w.dll", b"MZ", 0o644)]);
    std::fs::write(dir.path().join("win.zip"), windows).unwrap();
    let slip = zip_of(&[("pbrain-x", b"x", 0o755), ("../evil", b"x", 0o644)]);
    std::fs::write(dir.path().join("slip.zip"), slip).unwrap();
    let no_wine = dir.path().join("no-such-wine");
    let cases: [(&str, &str, &[&str]); 6] = [
        ("cmd=/bin/sh pkg=junk.zip", "", &["give cmd= or pkg=, not both"]),
        ("pkg=junk.zip", "", &["engine 1: pkg=junk.zip: not a zip file"]),
        ("pkg=missing.zip", "", &["pkg=missing.zip: cannot read", "missing.zip"]),
        (
            "pkg=rules.zip",
            "",
            &["pkg=rules.zip: holds no engine for freestyle on 15x15: pbrain-e_caro.exe, pbrain-e_renju.exe"],
        ),
        (
            "pkg=win.zip",
            "wine",
            &["pkg=win.zip: pbrain-w.exe is a Windows program and there is no Wine to run it"],
        ),
        ("pkg=slip.zip", "", &["pkg=slip.zip: entry \"../evil\" leaves the package's folder"]),
    ];
    for (engine_keys, wine, needles) in cases {
        let mut env = vec![("XDG_CACHE_HOME", xdg.as_path())];
        if !wine.is_empty() {
            env.push(("WINE", no_wine.as_path()));
        }
        let mut m = Match::new();
        for key in std::iter::once("-engine").chain(engine_keys.split(' ')) {
            m = m.arg(key);
        }
        let run =
            m.engine("pbrain-random", &[])
                .run_in_env(dir.path(), &env, Duration::from_secs(3));
        run.assert_exit(1);
        for needle in needles {
            run.assert_stderr_has(needle);
        }
    }
    assert!(!dir.path().join("evil").exists());
    // Only the packages that unpacked are in the cache, whole.
    let mut listing: Vec<String> = std::fs::read_dir(&packages)
        .unwrap()
        .map(|d| d.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    listing.sort();
    let read = |n: &str| std::fs::read(dir.path().join(n)).unwrap();
    let mut want = vec![sha256_hex(&read("rules.zip")), sha256_hex(&read("win.zip"))];
    want.sort();
    assert_eq!(listing, want);
}

/// The Gomocup packages the Wine test plays, by their file in GomocupDownload (64-bit programs:
/// Debian's `wine` runs them without the 32-bit part).
const WINE_PACKAGES: [&str; 2] = ["2021/EMBRYO21.F.zip", "2021/RAPFI21.zip"];

/// The zips of [`WINE_PACKAGES`] copied into `dir`, or why not.
fn gomocup_zips(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let from_folder = std::env::var_os("GOMOCUP_PKGS").map(PathBuf::from);
    let mirror = std::env::var_os("GOMOCUP_MIRROR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/.mirror/Gomocup+GomocupDownload/repo"));
    for file in WINE_PACKAGES {
        let name = file.rsplit('/').next().unwrap();
        let bytes = match &from_folder {
            Some(d) => std::fs::read(d.join(name))
                .map_err(|e| format!("GOMOCUP_PKGS: {}: {e}", d.join(name).display()))?,
            None => {
                let out = std::process::Command::new("git")
                    .arg("-C")
                    .arg(&mirror)
                    .args(["show", &format!("HEAD:{file}")])
                    .output()
                    .map_err(|e| format!("git: {e}"))?;
                if !out.status.success() || out.stdout.is_empty() {
                    return Err(format!(
                        "{file} is not in {} (give GOMOCUP_PKGS=a folder of Gomocup zips)",
                        mirror.display()
                    ));
                }
                out.stdout
            }
        };
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        out.push(path);
    }
    Ok(out)
}

#[test]
fn gomocup_packages_play_from_their_zips_under_wine() {
    let dir = tempfile::tempdir().unwrap();
    let found_wine = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("wine").is_file()));
    let zips = match (found_wine, gomocup_zips(dir.path())) {
        (true, Ok(z)) => z,
        (false, _) => return println!("skipping: no wine on PATH (apt-get install wine)"),
        (_, Err(why)) => return println!("skipping: {why}"),
    };
    let (xdg, _) = cache_env(dir.path());
    // A prefix of the test's own: Wine's server and services started for it are the runner's
    // to end, and nothing of the user's prefix is touched. Made first, as a user sets one up
    // (about 15 s), and its server waited for, so that the runner starts the one it must end.
    let prefix = dir.path().join("wineprefix");
    for (program, arg) in [("wineboot", "-i"), ("wineserver", "-w")] {
        let status = std::process::Command::new(program)
            .arg(arg)
            .env("WINEPREFIX", &prefix)
            .env("WINEDEBUG", "-all")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
        assert!(status.is_ok_and(|s| s.success()), "{program} {arg}");
    }
    for zip in zips {
        let name = zip.file_name().unwrap().to_string_lossy().into_owned();
        let env = [
            ("XDG_CACHE_HOME", xdg.as_path()),
            ("WINEPREFIX", prefix.as_path()),
        ];
        // No grace: wineserver, which outlives its last program by seconds, must be gone when
        // the runner is.
        let run = Match::new()
            .args(&["-engine", &format!("pkg={name}"), "name=pkg"])
            .engine("pbrain-scout --depth 2", &["name=scout"])
            .each(&["tc=20/2"])
            .games(2)
            .opt("-startuptimeout", 120)
            .journal("j.jsonl")
            .noprogress()
            .run_in_env(dir.path(), &env, Duration::ZERO);
        run.assert_success();
        let games = journal_games(&dir.path().join("j.jsonl"));
        std::fs::remove_file(dir.path().join("j.jsonl")).unwrap();
        assert_eq!(games.len(), 2, "{name}: {}", run.stdout);
        println!("{name}: {}", run.lines_starting("Finished game").join("; "));
    }
}
