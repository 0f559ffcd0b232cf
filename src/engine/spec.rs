//! What one engine is and how it is limited: its command line, name, time control and the
//! resource hints sent to it, plus the predecessor-compatible rules for turning `cmd=` into a
//! program, its arguments and its working directory.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use thiserror::Error;

/// The least memory tolerance over `max_memory` (see [`EngineSpec::memory_limit`]).
pub const MEMORY_TOLERANCE_MIN: u64 = 32 << 20;

/// The memory limit sent as `INFO max_memory` unless the user sets one: 350 MiB, as Gomocup and
/// c-gomoku-cli use.
pub const DEFAULT_MAX_MEMORY: u64 = 350 * 1024 * 1024;

/// How far past its limit an engine may answer before it is declared hung (c-gomoku-cli's default).
pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SpecError {
    /// A time control string is empty, misshapen or holds a negative or non-numeric time.
    #[error("time control '{text}': {why} (expected match[/turn][+increment] in seconds, e.g. 180/30+1)")]
    BadTimeControl { text: String, why: String },
    /// The engine command has no program to run (it is empty or only whitespace).
    #[error("engine command is empty")]
    EmptyCommand,
    /// The engine command opens a single or double quote that is never closed.
    #[error("engine command '{cmd}': unterminated {quote} quote")]
    UnterminatedQuote { cmd: String, quote: char },
    /// The program path in the engine command cannot be made absolute or names a directory.
    #[error("engine command '{cmd}': cannot resolve the program path: {why}")]
    BadProgramPath { cmd: String, why: String },
}

/// Time limits of one engine; `None` means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimeControl {
    /// Total thinking time of one game (`INFO timeout_match`).
    pub match_time: Option<Duration>,
    /// Limit for one move (`INFO timeout_turn`).
    pub turn_time: Option<Duration>,
    /// Added to the match clock after each move.
    pub increment: Duration,
}

/// The longest time a command-line duration may give (time controls, `tolerance=`,
/// `-startuptimeout`, `-syncinterval`): about 31 years. The bound keeps clocks, deadlines and
/// timers that add these durations far from overflowing.
pub const MAX_SECONDS: f64 = 1e9;

impl TimeControl {
    /// No limit at all.
    pub const UNLIMITED: TimeControl = TimeControl {
        match_time: None,
        turn_time: None,
        increment: Duration::ZERO,
    };

    /// Parses `match[/turn][+increment]`, each in seconds (fractions allowed).
    ///
    /// As in c-gomoku-cli, an omitted turn time equals the match time, and a zero match time means
    /// no match limit (`0/5` = five seconds a move and nothing else). A zero turn time means no
    /// turn limit here, because the alternative (`INFO timeout_turn 0`, "play as fast as possible")
    /// would make `tc=0` mean the opposite of what users write it for.
    pub fn parse(text: &str) -> Result<TimeControl, SpecError> {
        let bad = |why: &str| SpecError::BadTimeControl {
            text: text.to_string(),
            why: why.to_string(),
        };
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(bad("empty"));
        }
        let (main, increment) = match trimmed.split_once('+') {
            Some((main, inc)) => (main, Some(inc)),
            None => (trimmed, None),
        };
        let (match_text, turn_text) = match main.split_once('/') {
            Some((m, t)) => (m, Some(t)),
            None => (main, None),
        };
        let seconds = |part: &str, what: &str| -> Result<Duration, SpecError> {
            let part = part.trim();
            if part.is_empty() {
                return Err(bad(&format!("missing {what}")));
            }
            let value: f64 = part
                .parse()
                .map_err(|_| bad(&format!("{what} '{part}' is not a number")))?;
            if !value.is_finite() || value < 0.0 {
                return Err(bad(&format!(
                    "{what} '{part}' must be a non-negative number"
                )));
            }
            if value > MAX_SECONDS {
                return Err(bad(&format!(
                    "{what} '{part}' is too large (at most {MAX_SECONDS} seconds)"
                )));
            }
            Ok(Duration::from_secs_f64(value))
        };
        let match_time = seconds(match_text, "match time")?;
        let turn_time = match turn_text {
            Some(t) => seconds(t, "turn time")?,
            None => match_time,
        };
        let increment = match increment {
            Some(i) => seconds(i, "increment")?,
            None => Duration::ZERO,
        };
        let nonzero = |d: Duration| (!d.is_zero()).then_some(d);
        Ok(TimeControl {
            match_time: nonzero(match_time),
            turn_time: nonzero(turn_time),
            increment,
        })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = |d: Option<Duration>| d.map_or(0.0, |d| d.as_secs_f64());
        write!(f, "{}", secs(self.match_time))?;
        if self.turn_time != self.match_time {
            write!(f, "/{}", secs(self.turn_time))?;
        }
        if !self.increment.is_zero() {
            write!(f, "+{}", self.increment.as_secs_f64())?;
        }
        Ok(())
    }
}

/// Everything the runner knows about one engine before starting it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSpec {
    /// The command line as the user wrote it after `cmd=`.
    pub cmd: String,
    /// Overrides the name the engine gives in its ABOUT answer.
    pub name: Option<String>,
    pub tc: TimeControl,
    /// `INFO max_depth`, an extension.
    pub depth: Option<u64>,
    /// `INFO max_node`, an extension.
    pub nodes: Option<u64>,
    /// `INFO max_memory` in bytes; 0 means no limit.
    pub max_memory: u64,
    /// `INFO thread_num`, an extension.
    pub threads: Option<u32>,
    /// How far past its time an answer is still accepted.
    pub tolerance: Duration,
    /// Raw `option.K=V` pairs, sent as `INFO K V` before every game.
    pub options: Vec<(String, String)>,
    /// CPUs the engine's processes may run on (`-cpus`: its game slot's share); empty = any.
    pub cpus: Vec<usize>,
    /// What search output to ask for with `INFO show_detail` (`detail=`).
    pub detail: Detail,
    /// Ask for this many best moves with `YXNBEST` (`-sample … multipv=N`, N ≥ 2).
    pub nbest: Option<u32>,
    /// `slots=N`: at most this many of its games at once (the dispatcher's cap).
    pub slots: Option<u32>,
    /// `restart=on`: a fresh process for every game instead of `RESTART` in the same one.
    pub restart: bool,
    /// `-ponder`: `INFO pondering 1` before every game (Yixin-Board's and Rapfi's key), unless an
    /// `option.pondering=` of the user's own says otherwise.
    pub ponder: bool,
    /// The Gomocup package the engine comes from (`pkg=`): `cmd` is then its picked program,
    /// run in the package's folder, through the package's launcher (Wine) when it has one.
    pub package: Option<crate::engine::package::Package>,
}

/// The `INFO show_detail` level asked of an engine before every game (`detail=` of `-engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Detail {
    /// Send no `show_detail` line (the engine's own default; one-line messages are still read).
    Off,
    /// Send `INFO show_detail N` (0 none, 1 realtime, 2 detail blocks, 3 both).
    Level(u8),
}

impl Detail {
    /// Detail blocks after every iteration: what the runner reads.
    pub const DEFAULT: Detail = Detail::Level(2);

    /// `off` or a level 0–3.
    pub fn parse(text: &str) -> Option<Detail> {
        match text {
            "off" => Some(Detail::Off),
            _ => text.parse().ok().filter(|&n| n <= 3).map(Detail::Level),
        }
    }
}

impl EngineSpec {
    /// A spec with the predecessor's defaults: unlimited time, 350 MiB, 3 s tolerance.
    pub fn new(cmd: impl Into<String>) -> Self {
        EngineSpec {
            cmd: cmd.into(),
            name: None,
            tc: TimeControl::UNLIMITED,
            depth: None,
            nodes: None,
            max_memory: DEFAULT_MAX_MEMORY,
            threads: None,
            tolerance: DEFAULT_TOLERANCE,
            options: Vec::new(),
            cpus: Vec::new(),
            detail: Detail::DEFAULT,
            nbest: None,
            slots: None,
            restart: false,
            ponder: false,
            package: None,
        }
    }

    /// The memory an engine's processes may hold while it thinks: `max_memory` plus a tolerance
    /// of a tenth of it and at least 32 MiB (the runtime's and the binary's own pages, measured
    /// as resident memory, come on top of what an engine sizes from `max_memory`). `None` when
    /// `max_memory` is 0 (no limit).
    pub fn memory_limit(&self) -> Option<u64> {
        (self.max_memory > 0).then(|| {
            self.max_memory
                .saturating_add((self.max_memory / 10).max(MEMORY_TOLERANCE_MIN))
        })
    }

    /// The hard deadline for one move: the tighter of the turn limit and the match time left,
    /// plus the tolerance (Piskvork's rule: on time when `elapsed - tolerance` is within both).
    /// `None` when neither limit applies. `time_left` is the caller's match clock.
    pub fn move_deadline(&self, time_left: Option<Duration>) -> Option<Duration> {
        let limit = match (self.tc.turn_time, time_left) {
            (Some(t), Some(l)) => t.min(l),
            (Some(t), None) => t,
            (None, Some(l)) => l,
            (None, None) => return None,
        };
        Some(limit.saturating_add(self.tolerance))
    }

    /// The name to show before the engine has answered ABOUT: the user's name, else the
    /// program name.
    pub fn display_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| self.program_name())
    }

    /// The engine as the user gave it, for headings: `cmd`, or for a package `pkg=ZIP (PROGRAM)`
    /// (the program picked in it, by file name).
    pub fn label(&self) -> String {
        match &self.package {
            Some(p) => format!("pkg={} ({})", p.zip.display(), self.program_name()),
            None => self.cmd.clone(),
        }
    }

    /// The file name of the program (`pbrain-wine` for `cmd=../e/pbrain-wine -x`).
    pub fn program_name(&self) -> String {
        let first = split_command_line(&self.cmd)
            .ok()
            .and_then(|words| words.into_iter().next())
            .unwrap_or_else(|| self.cmd.clone());
        Path::new(&first)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or(first)
    }

    /// Splits `cmd` into the program, its arguments and the directory to run it in.
    ///
    /// Words are split like a shell does (whitespace, `'…'`, `"…"`, backslash escapes). When the
    /// program contains a `/` it runs in the program's own directory, as c-gomoku-cli does
    /// (`cmd=../Engines/Wine2.0` runs Wine2.0 inside `../Engines`). The returned program is then
    /// an absolute path, because a relative one would be ambiguous once the directory changes.
    /// Without a `/` the program is looked up in `PATH` and no directory is set.
    pub fn program_and_args(&self) -> Result<(PathBuf, Vec<String>, Option<PathBuf>), SpecError> {
        let mut words = split_command_line(&self.cmd)?.into_iter();
        let program = words.next().ok_or(SpecError::EmptyCommand)?;
        let args: Vec<String> = words.collect();
        if !program.contains('/') {
            return Ok((PathBuf::from(program), args, None));
        }
        let bad = |why: String| SpecError::BadProgramPath {
            cmd: self.cmd.clone(),
            why,
        };
        let absolute = std::path::absolute(&program).map_err(|e| bad(e.to_string()))?;
        if absolute.file_name().is_none() {
            return Err(bad(format!("'{program}' names a directory, not a program")));
        }
        let dir = absolute
            .parent()
            .map(Path::to_path_buf)
            .ok_or_else(|| bad(format!("'{program}' has no parent directory")))?;
        // A package's Windows program: `wine PROGRAM ARGS` in the program's folder.
        if let Some(launcher) = self.package.as_ref().and_then(|p| p.launcher.clone()) {
            let mut all = vec![absolute.to_string_lossy().into_owned()];
            all.extend(args);
            return Ok((launcher, all, Some(dir)));
        }
        Ok((absolute, args, Some(dir)))
    }
}

/// Splits a command line into words the way a POSIX shell would, without any expansion.
pub fn split_command_line(cmd: &str) -> Result<Vec<String>, SpecError> {
    let mut words = Vec::new();
    let mut word = String::new();
    // Whether a word has started: `""` is an empty word, not nothing.
    let mut in_word = false;
    let mut chars = cmd.chars();
    let unterminated = |quote| SpecError::UnterminatedQuote {
        cmd: cmd.to_string(),
        quote,
    };
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(unterminated('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        // Inside double quotes a backslash only escapes these, as in sh.
                        Some('\\') => match chars.next() {
                            Some(e @ ('"' | '\\' | '$' | '`')) => word.push(e),
                            Some(other) => {
                                word.push('\\');
                                word.push(other);
                            }
                            None => return Err(unterminated('"')),
                        },
                        Some(c) => word.push(c),
                        None => return Err(unterminated('"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                // A trailing lone backslash is kept literally rather than rejected.
                word.push(chars.next().unwrap_or('\\'));
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Option<Duration> {
        Some(Duration::from_secs_f64(s))
    }

    #[test]
    fn match_only_sets_turn_to_match() {
        let tc = TimeControl::parse("60").unwrap();
        assert_eq!(tc.match_time, secs(60.0));
        assert_eq!(tc.turn_time, secs(60.0));
        assert_eq!(tc.increment, Duration::ZERO);
    }

    #[test]
    fn zero_match_means_unlimited_match() {
        let tc = TimeControl::parse("0/5").unwrap();
        assert_eq!(tc.match_time, None);
        assert_eq!(tc.turn_time, secs(5.0));
        assert_eq!(TimeControl::parse("0").unwrap(), TimeControl::UNLIMITED);
    }

    #[test]
    fn full_form_with_increment_and_fractions() {
        let tc = TimeControl::parse("180/30+1").unwrap();
        assert_eq!(tc.match_time, secs(180.0));
        assert_eq!(tc.turn_time, secs(30.0));
        assert_eq!(tc.increment, Duration::from_secs(1));
        let tc = TimeControl::parse("2.5/0.25+0.1").unwrap();
        assert_eq!(tc.match_time, secs(2.5));
        assert_eq!(tc.turn_time, secs(0.25));
        assert_eq!(tc.increment, Duration::from_millis(100));
        let tc = TimeControl::parse("10+2").unwrap();
        assert_eq!(tc.turn_time, secs(10.0));
        assert_eq!(tc.increment, Duration::from_secs(2));
    }

    #[test]
    fn bad_time_controls_name_the_text() {
        for text in [
            "", "abc", "60/", "/5", "60/x", "60+", "-1", "1/-2", "inf", "NaN", "1e30",
        ] {
            let err = TimeControl::parse(text).unwrap_err();
            assert!(
                matches!(&err, SpecError::BadTimeControl { text: t, .. } if t == text),
                "{text}: {err:?}"
            );
            assert!(err.to_string().contains(&format!("'{text}'")), "{err}");
        }
    }

    #[test]
    fn time_controls_beyond_the_bound_are_refused() {
        // Fuzz finding (cli): times that fit a `Duration` but overflow the game clock once an
        // increment or the tolerance is added; the slot thread panicked mid-run.
        for text in ["1.8e19", "1e10/5", "60/1e12", "60+1.5e9"] {
            let err = TimeControl::parse(text).unwrap_err();
            assert!(
                err.to_string()
                    .contains("is too large (at most 1000000000 seconds)"),
                "{err}"
            );
        }
        let tc = TimeControl::parse("1e9/1e9+1e9").unwrap();
        assert_eq!(tc.match_time, secs(1e9));
    }

    #[test]
    fn display_round_trips() {
        for text in ["60", "0/5", "180/30+1", "2.5/0.25+0.1"] {
            let tc = TimeControl::parse(text).unwrap();
            assert_eq!(TimeControl::parse(&tc.to_string()).unwrap(), tc, "{text}");
        }
    }

    #[test]
    fn defaults_match_the_predecessor() {
        let spec = EngineSpec::new("pbrain-x");
        assert_eq!(spec.max_memory, 367_001_600);
        assert_eq!(spec.tolerance, Duration::from_secs(3));
        assert_eq!(spec.tc, TimeControl::UNLIMITED);
    }

    #[test]
    fn memory_limit_is_max_memory_plus_a_tenth_and_at_least_32_mib() {
        let mut spec = EngineSpec::new("x");
        spec.max_memory = 1 << 30;
        assert_eq!(spec.memory_limit(), Some((1 << 30) + (1 << 30) / 10));
        spec.max_memory = 100 << 20;
        assert_eq!(spec.memory_limit(), Some(132 << 20));
        spec.max_memory = 0;
        assert_eq!(spec.memory_limit(), None);
    }

    #[test]
    fn move_deadline_takes_the_tighter_limit_plus_tolerance() {
        let mut spec = EngineSpec::new("x");
        assert_eq!(spec.move_deadline(None), None);
        assert_eq!(
            spec.move_deadline(Some(Duration::from_secs(2))),
            Some(Duration::from_secs(5))
        );
        spec.tc = TimeControl::parse("60/10").unwrap();
        spec.tolerance = Duration::from_millis(500);
        assert_eq!(
            spec.move_deadline(None),
            Some(Duration::from_millis(10_500))
        );
        assert_eq!(
            spec.move_deadline(Some(Duration::from_secs(4))),
            Some(Duration::from_millis(4_500))
        );
        assert_eq!(
            spec.move_deadline(Some(Duration::from_secs(40))),
            Some(Duration::from_millis(10_500))
        );
    }

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(
            split_command_line(r#"  a "b c"  'd "e"' f\ g "h\"i" "" "#).unwrap(),
            vec!["a", "b c", "d \"e\"", "f g", "h\"i", ""]
        );
        assert_eq!(split_command_line("").unwrap(), Vec::<String>::new());
        assert_eq!(split_command_line("x\"y z\"w").unwrap(), vec!["xy zw"]);
        assert!(matches!(
            split_command_line("a 'b"),
            Err(SpecError::UnterminatedQuote { quote: '\'', .. })
        ));
        assert!(matches!(
            split_command_line("a \"b"),
            Err(SpecError::UnterminatedQuote { quote: '"', .. })
        ));
    }

    #[test]
    fn program_with_slash_runs_in_its_directory() {
        let spec = EngineSpec::new("../Engines/Wine2.0 -foo=1 \"two words\"");
        let (program, args, cwd) = spec.program_and_args().unwrap();
        assert!(program.is_absolute());
        assert!(program.ends_with("Engines/Wine2.0"), "{program:?}");
        assert_eq!(args, vec!["-foo=1", "two words"]);
        assert_eq!(cwd.as_deref(), program.parent());
        let here = std::env::current_dir().unwrap();
        assert_eq!(cwd.unwrap(), here.join("../Engines"));
    }

    #[test]
    fn program_without_slash_uses_path() {
        let spec = EngineSpec::new("demoengine --x");
        let (program, args, cwd) = spec.program_and_args().unwrap();
        assert_eq!(program, PathBuf::from("demoengine"));
        assert_eq!(args, vec!["--x"]);
        assert_eq!(cwd, None);
    }

    #[test]
    fn empty_or_directory_commands_are_rejected() {
        assert_eq!(
            EngineSpec::new("   ").program_and_args(),
            Err(SpecError::EmptyCommand)
        );
        assert!(matches!(
            EngineSpec::new("/").program_and_args(),
            Err(SpecError::BadProgramPath { .. })
        ));
    }

    #[test]
    fn display_name_prefers_the_user_name() {
        let mut spec = EngineSpec::new("'../my dir/pbrain-wine' -x");
        assert_eq!(spec.display_name(), "pbrain-wine");
        spec.name = Some("Wine".into());
        assert_eq!(spec.display_name(), "Wine");
        assert_eq!(spec.program_name(), "pbrain-wine");
    }
}
