//! The process environment as the configuration reads it (scheduler array variables, `PATH`,
//! `RUST_LOG`): passed in, so that a test can give its own.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

/// The process environment as the configuration reads it (scheduler array variables, `PATH`,
/// `RUST_LOG`): passed in, so that it can be given in a test.
#[derive(Debug, Clone, Default)]
pub struct Env(pub(super) BTreeMap<String, OsString>);

impl Env {
    /// This process's environment (variables with a name that is not UTF-8 are left out).
    pub fn of_process() -> Env {
        let vars = std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v)));
        Env(vars.collect())
    }

    /// A variable's value, if set and UTF-8 text.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.0.get(name)?.to_str()
    }

    pub(super) fn var_os(&self, name: &str) -> Option<&OsStr> {
        self.0.get(name).map(OsString::as_os_str)
    }
}
