//! Which program of a Gomocup engine package plays a run: GomocupJudge's choice (its client's
//! `get_cmd_protocol`) among the package's top-level files, by rule, board size and the host's
//! word size. Pure: a list of names in, one name (or why none) out.
//!
//! GomocupJudge's table, as this module follows it:
//! - the candidates are the top-level `pbrain*.exe` files (case ignored); a package whose `.exe`
//!   files all lack the prefix speaks Gomocup's old file protocol, which gomoku-cli does not;
//! - one candidate plays whatever its name says;
//! - of several, a name's stem (lower case, a trailing `_64`, `-64` or `64` taken off) may end in
//!   `_RULE-SIZE`, `_RULE` or `_SIZE`, RULE one of `freestyle`, `standard` (exact five), `renju`,
//!   `caro` (both caro rules), SIZE `15` or `20`; a name for another rule or size is out, and of
//!   the rest the best says both (4), then the rule (3), then the size (2), then neither (1);
//! - ties go to the name that has `64` in it on a 64-bit host (to one without it on a 32-bit
//!   one), then to the first name in byte order (GomocupJudge takes the first the folder lists).
//!
//! One departure: where every candidate is named for another rule or size, GomocupJudge falls
//! back to playing one of them anyway; here that is an error naming what the package holds, since
//! an engine built for another rule plays wrong games rather than failing.
//!
//! A package for Linux or macOS (no `.exe` in it): its top-level files named `pbrain*` without an
//! extension are the candidates, picked by the same table, and run directly.

use thiserror::Error;

use crate::core::rules::Rule;

/// Why no program of a package can play the run.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PickError {
    /// No `.exe` and no extension-less `pbrain*` file at the top of the package.
    #[error("holds no engine (a pbrain-*.exe, or a pbrain-* program without an extension) at its top level; it holds: {}", listing(.files))]
    NoEngine { files: Vec<String> },
    /// Only `.exe` files without the `pbrain` prefix: Gomocup's old file protocol.
    #[error("holds only {}, which speak Gomocup's old file protocol (no pbrain- prefix); gomoku-cli speaks the pbrain protocol only", listing(.exes))]
    OldProtocol { exes: Vec<String> },
    /// Every candidate is named for another rule or board size.
    #[error("holds no engine for {rule} on {size}x{size}: {} (GomocupJudge's suffixes: _freestyle, _standard, _renju, _caro, _15, _20)", listing(.candidates))]
    NoMatch {
        rule: String,
        size: u32,
        candidates: Vec<String>,
    },
}

fn listing(files: &[String]) -> String {
    if files.is_empty() {
        "nothing".into()
    } else {
        files.join(", ")
    }
}

/// GomocupJudge's name of a rule: its bits of the protocol's rule code (4 renju, 8 caro,
/// 1 exact five), in that order, so standard caro (9) is caro.
pub fn rule_word(rule: Rule) -> &'static str {
    let code = rule.code();
    if code & 4 != 0 {
        "renju"
    } else if code & 8 != 0 {
        "caro"
    } else if code & 1 != 0 {
        "standard"
    } else {
        "freestyle"
    }
}

const RULES: [&str; 4] = ["freestyle", "standard", "renju", "caro"];
const SIZES: [&str; 2] = ["15", "20"];

/// The rule and size a file's name is for (GomocupJudge's `get_file_rule_size`).
fn rule_and_size(name: &str) -> (Option<&'static str>, Option<&'static str>) {
    let lower = name.to_ascii_lowercase();
    let mut base = lower.strip_suffix(".exe").unwrap_or(&lower);
    for bits in ["_64", "-64", "64"] {
        if let Some(b) = base.strip_suffix(bits) {
            base = b;
            break;
        }
    }
    for r in RULES {
        for s in SIZES {
            if base.ends_with(&format!("_{r}-{s}")) {
                return (Some(r), Some(s));
            }
        }
    }
    if let Some(r) = RULES.iter().find(|r| base.ends_with(&format!("_{r}"))) {
        return (Some(r), None);
    }
    if let Some(s) = SIZES.iter().find(|s| base.ends_with(&format!("_{s}"))) {
        return (None, Some(s));
    }
    (None, None)
}

/// How well a name fits (GomocupJudge's `score_candidate`): 0 out, 1 generic … 4 rule and size.
fn compatibility(name: &str, rule: &str, size: &str) -> u8 {
    match rule_and_size(name) {
        (Some(r), _) if r != rule => 0,
        (_, Some(s)) if s != size => 0,
        (Some(_), Some(_)) => 4,
        (Some(_), None) => 3,
        (None, Some(_)) => 2,
        (None, None) => 1,
    }
}

/// Whether `name` is a Windows program (`.exe`, case ignored): it runs through Wine elsewhere.
pub fn is_exe(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".exe")
}

fn is_pbrain(name: &str) -> bool {
    name.to_ascii_lowercase().starts_with("pbrain")
}

/// The program of a package (its top-level file names `files`) that plays `rule` on a
/// `size`×`size` board on a host of 64 bits or not (see the module's table).
pub fn pick(files: &[String], rule: Rule, size: u32, host_64: bool) -> Result<String, PickError> {
    let mut sorted = files.to_vec();
    sorted.sort();
    let exes: Vec<String> = sorted.iter().filter(|f| is_exe(f)).cloned().collect();
    let candidates: Vec<String> = if exes.is_empty() {
        // A package built for this host: extension-less pbrain* files.
        (sorted.iter())
            .filter(|f| is_pbrain(f) && !f.contains('.'))
            .cloned()
            .collect()
    } else {
        exes.iter().filter(|f| is_pbrain(f)).cloned().collect()
    };
    match candidates.len() {
        0 if exes.is_empty() => return Err(PickError::NoEngine { files: sorted }),
        0 => return Err(PickError::OldProtocol { exes }),
        1 => return Ok(candidates[0].clone()),
        _ => {}
    }
    let (rule_name, size_text) = (rule_word(rule), size.to_string());
    let score = |f: &String| {
        let arch = host_64 == f.contains("64");
        (compatibility(f, rule_name, &size_text), arch)
    };
    // The first of the best: max_by_key would keep the last of equals.
    let best = (candidates.iter().map(score).max()).expect("two candidates or more");
    if best.0 == 0 {
        return Err(PickError::NoMatch {
            rule: rule_name.into(),
            size,
            candidates,
        });
    }
    Ok(candidates
        .into_iter()
        .find(|f| score(f) == best)
        .expect("the best is one of them"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn pick_of(list: &[&str], rule: Rule, size: u32) -> Result<String, PickError> {
        pick(&names(list), rule, size, true)
    }

    #[test]
    fn one_engine_plays_whatever_its_name_says() {
        // XoXo21.F's one program plays every run (it answers START itself).
        let files = ["pbrain-XoXo.exe", "brain.map", "msvcp140.dll"];
        for (rule, size) in [(Rule::Renju, 15), (Rule::Freestyle, 20)] {
            assert_eq!(pick_of(&files, rule, size).unwrap(), "pbrain-XoXo.exe");
        }
        // Even one named for another rule: GomocupJudge does not look at a lone program's name.
        assert_eq!(
            pick_of(&["pbrain-x_renju.exe"], Rule::Freestyle, 15).unwrap(),
            "pbrain-x_renju.exe"
        );
    }

    #[test]
    fn the_rule_and_size_suffixes_pick_as_gomocupjudge_does() {
        let files = [
            "pbrain-e.exe",
            "pbrain-e_15.exe",
            "pbrain-e_renju.exe",
            "pbrain-e_standard-15.exe",
            "pbrain-e_caro_64.exe",
            "pbrain-e_freestyle-20.exe",
        ];
        let cases = [
            (Rule::Freestyle, 20, "pbrain-e_freestyle-20.exe"),
            (Rule::Freestyle, 15, "pbrain-e_15.exe"),
            (Rule::Freestyle, 19, "pbrain-e.exe"),
            (Rule::ExactFive, 15, "pbrain-e_standard-15.exe"),
            (Rule::ExactFive, 20, "pbrain-e.exe"),
            (Rule::Renju, 15, "pbrain-e_renju.exe"),
            (Rule::Caro, 15, "pbrain-e_caro_64.exe"),
            (Rule::StandardCaro, 20, "pbrain-e_caro_64.exe"),
        ];
        for (rule, size, want) in cases {
            assert_eq!(
                pick_of(&files, rule, size).unwrap(),
                want,
                "{rule:?} {size}"
            );
        }
    }

    #[test]
    fn the_word_size_breaks_ties_and_case_is_ignored() {
        // WHOSE19: the same engine in 32 and 64 bits.
        let files = ["pbrain-whose20190401.exe", "pbrain-whose20190401x64.exe"];
        let on = |host_64| pick(&names(&files), Rule::Freestyle, 15, host_64).unwrap();
        assert_eq!(on(true), "pbrain-whose20190401x64.exe");
        assert_eq!(on(false), "pbrain-whose20190401.exe");
        // A better fit beats the word size; upper case suffixes count.
        let files = ["PBRAIN-E_RENJU.EXE", "pbrain-e_64.exe"];
        assert_eq!(
            pick_of(&files, Rule::Renju, 15).unwrap(),
            "PBRAIN-E_RENJU.EXE"
        );
        assert_eq!(
            pick_of(&files, Rule::Freestyle, 15).unwrap(),
            "pbrain-e_64.exe"
        );
        // Equals: the first name in byte order, whatever order the list came in.
        let files = ["pbrain-b.exe", "pbrain-a.exe"];
        assert_eq!(
            pick_of(&files, Rule::Freestyle, 15).unwrap(),
            "pbrain-a.exe"
        );
    }

    #[test]
    fn pbrain_programs_are_preferred_and_old_protocol_ones_refused() {
        let files = ["engine.exe", "pbrain-e.exe", "tool_64.exe"];
        assert_eq!(
            pick_of(&files, Rule::Freestyle, 15).unwrap(),
            "pbrain-e.exe"
        );
        let e = pick_of(&["engine.exe", "tool.exe"], Rule::Freestyle, 15).unwrap_err();
        assert_eq!(
            e,
            PickError::OldProtocol {
                exes: names(&["engine.exe", "tool.exe"])
            }
        );
        assert!(e.to_string().contains("engine.exe, tool.exe"), "{e}");
    }

    #[test]
    fn a_package_with_nothing_for_the_run_is_an_error_listing_it() {
        let e = pick_of(
            &["pbrain-e_renju.exe", "pbrain-e_caro.exe"],
            Rule::Freestyle,
            15,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "holds no engine for freestyle on 15x15: pbrain-e_caro.exe, pbrain-e_renju.exe \
             (GomocupJudge's suffixes: _freestyle, _standard, _renju, _caro, _15, _20)"
        );
        let e = pick_of(&["readme.txt", "engine.dll"], Rule::Freestyle, 15).unwrap_err();
        assert_eq!(
            e,
            PickError::NoEngine {
                files: names(&["engine.dll", "readme.txt"])
            }
        );
        assert!(pick_of(&[], Rule::Renju, 15)
            .unwrap_err()
            .to_string()
            .ends_with("it holds: nothing"));
    }

    #[test]
    fn a_package_for_this_host_runs_its_extensionless_pbrain_program() {
        let files = [
            "pbrain-kit",
            "pbrain-kit_renju",
            "pbrain-kit.toml",
            "libx.so",
        ];
        assert_eq!(pick_of(&files, Rule::Freestyle, 15).unwrap(), "pbrain-kit");
        assert_eq!(
            pick_of(&files, Rule::Renju, 15).unwrap(),
            "pbrain-kit_renju"
        );
        // With a .exe inside, the Windows programs are the package's engines.
        let files = ["pbrain-kit", "pbrain-kit.exe"];
        assert_eq!(
            pick_of(&files, Rule::Freestyle, 15).unwrap(),
            "pbrain-kit.exe"
        );
    }
}
