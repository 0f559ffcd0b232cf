//! One file, one role, for a match run: before the first game, every output path (journal,
//! records, samples, library, report, directories of `.psq` records, a tuning's `-tuneout` files)
//! and every input (the openings, a tuning's `-params`) go through the policy every command uses
//! (`outputs::same_file`): two roles naming one file are refused.

use std::path::Path;

use crate::cli::Opt;
use crate::config::Config;
use crate::outputs::same_file::Roles;
pub use crate::outputs::same_file::SameFile;

/// The roles of a configuration's paths. `journal` is the journal this run writes (the one found
/// to resume, or the configured one).
fn roles(config: &Config, journal: Option<&Path>) -> Roles {
    let mut roles = Roles::of_run();
    if let Some(o) = &config.tournament.openings {
        roles.input(Opt::Openings.to_string(), &o.file);
    }
    if let Some(g) = &config.tournament.groups {
        if let Some(r) = &g.ratings_from {
            roles.input("-groups ratings=", r);
        }
        if let Some(f) = &g.engines_file {
            roles.input(Opt::EnginesFile.to_string(), f);
        }
        if let Some(p) = &g.promoted {
            roles.output("-groups promoted=", p);
        }
    }
    if let Some(t) = &config.tune {
        roles.input("-params", &t.params_file);
    }
    if let Some(j) = journal {
        roles.output(Opt::Journal.to_string(), j);
    }
    for (name, p) in [
        (Opt::Pgn, &config.outputs.pgn),
        (Opt::Sgf, &config.outputs.sgf),
        (Opt::Msg, &config.outputs.msg),
        (Opt::Psq, &config.outputs.psq),
        (Opt::Renlib, &config.outputs.renlib),
        (Opt::Report, &config.outputs.report),
    ] {
        if let Some(p) = p {
            roles.output(name.to_string(), p);
        }
    }
    if let Some(s) = &config.outputs.sample {
        roles.output(Opt::Sample.to_string(), &s.file);
    }
    let tune = crate::runner::tune_files(config, journal);
    for (key, p) in ["csv", "params", "info"].into_iter().zip(tune) {
        if let Some(p) = p {
            roles.output(format!("-tuneout {key}="), p);
        }
    }
    roles
}

/// Refuse two roles naming one file.
pub fn check(config: &Config, journal: Option<&Path>) -> Result<(), SameFile> {
    roles(config, journal).check()
}
