//! `gomoku-cli tune`: SPSA tuning of one engine's parameters. The tuning's own options are taken
//! out, the rest is a match's command line with its one `-engine` given twice (θ+ and θ−), one
//! colour-swapped pair per opening, `2·pairs` games an iteration; the run is a match run in
//! every other way (journal, `-resume`, shards, records, report). Its last lines on standard
//! output are the tuned values, `name, value` each (OpenBench's form).

use std::path::PathBuf;

use crate::cli::table::{self, Command};
use crate::cli::{self, Opt, RawCli};
use crate::config::env::Env;
use crate::config::{Config, TuneConfig};
use crate::tune::params::Params;
use crate::tune::spsa::SpsaSettings;
use crate::tune::TuneSetup;

use crate::commands::{failed, say, CommandError, CommandResult};

/// The tuning's own options, as given.
#[derive(Debug, Default)]
struct TuneArgs {
    /// `-config save FILE`: write the tuning's options there instead of running it.
    save: Option<PathBuf>,
    /// The arguments with `-config FILE`'s options merged in (what `-config save` writes).
    args: Vec<String>,
    params: Option<String>,
    iterations: Option<String>,
    pairs: Option<String>,
    srand: Option<String>,
    spsa: Vec<String>,
    out: Vec<String>,
}

/// The tuning's options and the match's, read from the table of options.
fn split(args: &[String]) -> Result<(TuneArgs, RawCli), CommandError> {
    let loaded = crate::commands::usage::with_config_file(Command::Tune, args)?;
    let p = crate::cli::parse::parse(Command::Tune, &loaded.args)
        .map_err(|e| crate::commands::usage::usage_error(Command::Tune, e))?;
    let written = |name: &str| crate::commands::usage::written(&p, name).unwrap_or_default();
    let t = TuneArgs {
        save: loaded.save.clone(),
        args: loaded.args.clone(),
        params: p.value("-params").map(String::from),
        iterations: p.value("-iterations").map(String::from),
        pairs: p.value("-pairs").map(String::from),
        srand: p.value("-srand").map(String::from),
        spsa: written("-spsa"),
        out: written("-tuneout"),
    };
    Ok((t, cli::raw_of(&p)))
}

/// The keys of tune's option `parent` (`-spsa`), from the table of options.
fn keys_of(parent: &str) -> Vec<&'static str> {
    table::rows_of(Command::Tune)
        .filter(|r| matches!(r.takes, table::Takes::Key { parent: p } if p == parent))
        .map(table::Row::name)
        .collect()
}

/// A positive whole number of an option.
fn count(option: &str, text: Option<&str>, default: Option<u64>) -> Result<u64, String> {
    match (text, default) {
        (None, Some(d)) => Ok(d),
        (None, None) => Err(format!("{option} N is required")),
        (Some(t), _) => crate::core::numbers::whole_number(t, 1..=u64::MAX)
            .map_err(|e| format!("{option} {t:?}: expected {e}")),
    }
}

/// `key=value` pairs of `-spsa`/`-tuneout`, each key known.
fn pairs_of<'a>(
    option: &str,
    items: &'a [String],
    keys: &[&str],
) -> Result<Vec<(&'a str, &'a str)>, String> {
    let pairs = items
        .iter()
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) if keys.contains(&k) => Ok((k, v)),
            _ => Err(format!(
                "{option} {kv:?}: expected key=value with key one of {}",
                keys.join(", ")
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    cli::refuse_repeated_keys(option, pairs.iter().copied()).map_err(|e| e.to_string())?;
    Ok(pairs)
}

/// SPSA's settings from `-spsa`, for a run of `iterations`.
fn spsa_of(items: &[String], iterations: u64) -> Result<SpsaSettings, String> {
    let mut s = SpsaSettings {
        iterations,
        ..SpsaSettings::default()
    };
    for (k, v) in pairs_of("-spsa", items, &keys_of("-spsa"))? {
        // SPSA converges for 0 < γ < α ≤ 1 (Spall); A is any size.
        let (range, ok): (&str, fn(f64) -> bool) = match k {
            "alpha" => ("0 < alpha <= 1", |x| x > 0.0 && x <= 1.0),
            "gamma" => ("0 <= gamma < 1", |x| (0.0..1.0).contains(&x)),
            _ => ("A >= 0", |x| x >= 0.0),
        };
        let x: f64 = v
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite() && ok(*x))
            .ok_or_else(|| format!("-spsa {k}={v}: expected a number with {range}"))?;
        match k {
            "alpha" => s.alpha = x,
            "gamma" => s.gamma = x,
            _ => s.a_big = Some(x),
        }
    }
    Ok(s)
}

/// The match configuration of a tuning: the engine twice, `-repeat`, the iterations' games.
fn config_of(t: &TuneArgs, mut raw: RawCli, env: &Env) -> Result<Config, CommandError> {
    let usage = |why: String| crate::commands::usage::usage_error(Command::Tune, why);
    let iterations = count("-iterations", t.iterations.as_deref(), None).map_err(usage)?;
    let pairs = count("-pairs", t.pairs.as_deref(), Some(1)).map_err(usage)?;
    let settings = spsa_of(&t.spsa, iterations).map_err(usage)?;
    let mut every = (iterations / 10).max(1);
    let (mut csv, mut params_out, mut info_out) = (None, None, None);
    let keys = keys_of("-tuneout");
    for (k, v) in pairs_of("-tuneout", &t.out, &keys).map_err(usage)? {
        match k {
            "every" => every = count("-tuneout every=", Some(v), None).map_err(usage)?,
            "csv" => csv = Some(PathBuf::from(v)),
            "params" => params_out = Some(PathBuf::from(v)),
            _ => info_out = Some(PathBuf::from(v)),
        }
    }
    if raw.engines.len() != 1 {
        return Err(usage(format!(
            "tune takes exactly one -engine, played as θ+ and θ− (got {})",
            raw.engines.len()
        )));
    }
    let file = t
        .params
        .as_ref()
        .ok_or_else(|| usage("-params FILE is required".into()))?;
    let params = Params::load(std::path::Path::new(file)).map_err(failed)?;
    let per_iteration = pairs.checked_mul(2);
    let games = per_iteration
        .and_then(|g| iterations.checked_mul(g))
        .ok_or_else(|| {
            usage(format!(
                "-iterations {iterations} × -pairs {pairs}: too many games"
            ))
        })?;
    raw.engines.push(raw.engines[0].clone());
    raw.values.push((Opt::Games, games.to_string()));
    raw.flags.push(Opt::Repeat);
    let mut config = Config::from_raw(&raw, env).map_err(failed)?;
    if let Some(s) = &t.srand {
        // The flips and the rounding are drawn from it, and a random openings order.
        let seed = count("-srand", Some(s), None).map_err(usage)?;
        config.seed = crate::config::matches::Seed::Given(seed);
    }
    if config.tournament.concurrency > 1 {
        config.warnings.push(format!(
            "tune: -concurrency {}: iterations overlap, as fishtest's workers do: an iteration's \
             values are drawn from θ when its first game starts and its step is applied when its \
             last game ends, so the trajectory depends on the order games end (-concurrency 1 \
             makes it reproducible)",
            config.tournament.concurrency
        ));
    }
    // Every shard recomputes the others' steps from the seed: they must share it.
    let job_seed = env
        .var("SLURM_ARRAY_JOB_ID")
        .is_some_and(|id| !id.trim().is_empty());
    let drawn = matches!(config.seed, crate::config::matches::Seed::Fresh(_));
    if config.cluster.shard.is_some() && drawn && !job_seed {
        return Err(usage(
            "the shards of a tuning must share one seed: give -srand S (a SLURM job array derives it from SLURM_ARRAY_JOB_ID)".into(),
        ));
    }
    config.tune = Some(TuneConfig {
        setup: TuneSetup {
            params,
            settings,
            pairs,
            every,
        },
        params_file: PathBuf::from(file),
        csv,
        params_out,
        info_out,
    });
    Ok(config)
}

/// Run `gomoku-cli tune` from the arguments after `tune`.
pub fn run(args: &[String]) -> CommandResult {
    let (t, raw) = split(args)?;
    let env = Env::of_process();
    let config = config_of(&t, raw.clone(), &env)?;
    if let Some(out) = &t.save {
        // The seed drawn is written: the same flips, roundings and openings order.
        let seed = match (&t.srand, config.seed) {
            (None, crate::config::matches::Seed::Fresh(s)) => Some(s),
            _ => None,
        };
        let mut lines = crate::config::run_file::saved_lines(
            Command::Tune,
            &t.args,
            &crate::config::engines::engine_lists(&raw, &env).map_err(failed)?,
            None,
        );
        lines.extend(seed.map(|s| vec!["-srand".to_string(), s.to_string()]));
        let params = config.tune.as_ref().map(|t| t.params_file.clone());
        let inputs = params.iter().map(|p| ("-params", p.as_path()));
        crate::commands::run::save(out, &lines, &raw, &config, &env, inputs)?;
        return Ok(crate::commands::Outcome::Done);
    }
    let setup = config.tune.as_ref().map(|t| t.setup.clone());
    let resumable = config.outputs.journal.is_some();
    let summary = crate::commands::run::execute(config)?;
    if let (Some(setup), Some(theta)) = (setup, &summary.theta) {
        say(&format!(
            "\nTuned parameters ({}):\n{}\nAs INFO lines:\n{}\n{}",
            match (summary.reason, resumable) {
                (crate::tournament::events::StopReason::Completed, _) => "the run completed",
                (_, true) => "the run stopped early: resume it with -resume",
                // -resume needs the journal that -journal off left out.
                (_, false) => "the run stopped early; it has no journal to resume",
            },
            setup.params.render(theta),
            setup.params.info_lines(theta),
            setup.params.result_lines(theta)
        ));
    }
    Ok(crate::commands::run::outcome_of(summary.reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_tunings_options_are_taken_out_and_the_rest_is_a_match() {
        let (t, raw) = split(&args(
            "-engine cmd=x -params p.txt -iterations 20 -spsa alpha=0.6 A=5 -pairs 2 -tuneout every=5 csv=t.csv -concurrency 2",
        ))
        .unwrap();
        assert_eq!(t.params.as_deref(), Some("p.txt"));
        assert_eq!(t.iterations.as_deref(), Some("20"));
        assert_eq!(t.pairs.as_deref(), Some("2"));
        assert_eq!(t.spsa, args("alpha=0.6 A=5"));
        assert_eq!(t.out, args("every=5 csv=t.csv"));
        assert_eq!(raw.engines, vec![vec![("cmd".into(), "x".into())]]);
        assert_eq!(raw.value(Opt::Concurrency), Some("2"));
        assert!(split(&args("-params")).is_err());
        // A match's own game count is not a tuning's: it says whose option it is.
        let e = split(&args("-engine cmd=x -games 4"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("an option of the match runner, not of gomoku-cli tune"),
            "{e}"
        );
    }

    #[test]
    fn a_key_given_twice_is_refused() {
        assert_eq!(
            spsa_of(&args("alpha=0.5 alpha=0.6"), 10).unwrap_err(),
            "-spsa: alpha given twice (\"0.5\" and \"0.6\")"
        );
        let out = args("csv=a.csv csv=b.csv");
        assert!(pairs_of("-tuneout", &out, &["csv"]).is_err());
    }

    #[test]
    fn spsa_settings_are_checked() {
        let s = spsa_of(&args("alpha=0.5 gamma=0.2 A=10"), 100).unwrap();
        assert_eq!(
            (s.alpha, s.gamma, s.a_big, s.iterations),
            (0.5, 0.2, Some(10.0), 100)
        );
        let s = spsa_of(&[], 100).unwrap();
        assert_eq!((s.alpha, s.gamma, s.a_big), (0.602, 0.101, None));
        for bad in [
            "alpha=x",
            "beta=1",
            "gamma=-1",
            "A",
            "alpha=1e308",
            "gamma=1",
            "A=inf",
        ] {
            assert!(spsa_of(&args(bad), 10).is_err(), "{bad}");
        }
    }
}
