//! The engine's command read past its launchers (`wine`, `env`, interpreters): the file the
//! check names, and which processes left after it are wine's own rather than the engine's.

use std::path::Path;

/// Programs that run the engine's own file, named after them in `cmd=` (`wine X.exe`,
/// `python3 -u engine.py`, `env VAR=1 ./pbrain-x`): the judge's prefix rule is about that file.
pub(super) const LAUNCHERS: [&str; 14] = [
    "wine",
    "wine64",
    "wine-stable",
    "wine-staging",
    "python",
    "python2",
    "python3",
    "pypy",
    "pypy3",
    "sh",
    "bash",
    "dash",
    "env",
    "mono",
];

/// Whether `cmd` runs the engine through wine (`wine X.exe`, `env A=1 wine64 X.exe`).
pub(super) fn runs_under_wine(cmd: &str) -> bool {
    launch(cmd).1.iter().any(|l| l.starts_with("wine"))
}

/// Wine's own Windows programs, which it starts for any program it runs and leaves running.
pub(super) const WINE_SERVICES: [&str; 9] = [
    "services.exe",
    "winedevice.exe",
    "plugplay.exe",
    "svchost.exe",
    "rpcss.exe",
    "explorer.exe",
    "wineboot.exe",
    "conhost.exe",
    "winemenubuilder.exe",
];

/// Whether a leftover's command line is one of wine's own processes: `wineserver`, anything
/// of wine's Windows (`C:\windows\system32\...`), or one of [`WINE_SERVICES`] however it
/// names itself (`services.exe` alone early in its start).
pub(super) fn is_wine_own(cmd: &str) -> bool {
    let c = cmd.to_ascii_lowercase();
    let program = c.split_whitespace().next().unwrap_or("");
    let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
    base == "wineserver"
        || base == "wineserver64"
        || WINE_SERVICES.contains(&base)
        || c.starts_with("c:\\windows\\system32\\")
        || c.starts_with("c:\\windows\\syswow64\\")
}

/// The file name of the engine's program in `cmd`: its first word's, or past a launcher (see
/// [`LAUNCHERS`]) the first argument that is not an option (nor, after `env`, a `VAR=value`).
pub(super) fn engine_file(cmd: &str) -> String {
    launch(cmd).0
}

/// The file name of the engine's program in `cmd` (see [`engine_file`]) and the launchers
/// before it, by file name.
pub(super) fn launch(cmd: &str) -> (String, Vec<String>) {
    let words = crate::engine::spec::split_command_line(cmd).unwrap_or_default();
    let name = |w: &str| {
        Path::new(w)
            .file_name()
            .map_or_else(|| w.to_string(), |f| f.to_string_lossy().into_owned())
    };
    let mut launchers = Vec::new();
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let program = name(word);
        if !LAUNCHERS.contains(&program.as_str()) {
            return (program, launchers);
        }
        let env = program == "env";
        let next = words[i + 1..]
            .iter()
            .position(|w| !(w.starts_with('-') || env && w.contains('=')));
        match next {
            Some(j) => i += 1 + j,
            None => return (program, launchers),
        }
        launchers.push(program);
    }
    (name(cmd), launchers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_engine_file_is_named_past_launchers() {
        for (cmd, file) in [
            ("./pbrain-x -v", "pbrain-x"),
            ("wine /e/pbrain-embryo21_f.exe", "pbrain-embryo21_f.exe"),
            (
                "wine64 --debug 'dir with space/pbrain-y.exe'",
                "pbrain-y.exe",
            ),
            ("env A=1 B=2 wine X.exe", "X.exe"),
            ("python3 -u engines/pbrain-py.py --deep", "pbrain-py.py"),
            ("sh", "sh"),
            ("/usr/bin/env -i", "env"),
        ] {
            assert_eq!(engine_file(cmd), file, "{cmd}");
        }
    }

    #[test]
    fn wine_s_own_processes_are_told_from_the_engine_s() {
        assert!(runs_under_wine("wine X.exe"));
        assert!(runs_under_wine("env WINEDEBUG=-all /usr/bin/wine64 X.exe"));
        assert!(!runs_under_wine("./pbrain-wine"));
        assert!(!runs_under_wine("python3 wine.py"));
        for own in [
            "/usr/lib/wine/wineserver64 -p0",
            "C:\\windows\\system32\\services.exe",
            "C:\\windows\\system32\\svchost.exe -k LocalServiceNetworkRestricted",
            "services.exe",
        ] {
            assert!(is_wine_own(own), "{own}");
        }
        for engine in [
            "sleep 1000",
            "C:\\engines\\pbrain-x.exe",
            "/tmp/wineserver-like",
        ] {
            assert!(!is_wine_own(engine), "{engine}");
        }
    }
}
