//! The `-sample` options: `freq=`, `format=`, `file=`, `eval=` and `multipv=`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::str::FromStr;

use thiserror::Error;

use crate::core::search::MULTIPV_CAP;
use crate::formats::samples::codec::EvalField;
use crate::formats::samples::sample::EvalColumn;
use crate::formats::samples::SampleFormat;

impl FromStr for SampleFormat {
    type Err = SampleConfigError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SampleFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| SampleConfigError::UnknownFormat {
                value: s.to_string(),
            })
    }
}

/// Problems with the `-sample` options.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SampleConfigError {
    /// A key other than freq, format, file, eval and multipv.
    #[error("-sample: unknown key {key:?} (in {key}={value}); expected freq, format, file, eval or multipv")]
    UnknownKey { key: String, value: String },
    /// The same key twice: which one was meant is unclear, so neither wins.
    #[error(transparent)]
    Duplicate(#[from] crate::cli::RepeatedKey),
    /// freq= is not a number.
    #[error("-sample: freq={value} is not a number")]
    BadFreq { value: String },
    /// freq= is a number outside [0, 1] (or NaN).
    #[error("-sample: freq={value} is outside [0, 1]")]
    FreqOutOfRange { value: String },
    /// format= names no sample format.
    #[error("-sample: unknown format={value:?} (expected {})", format_names())]
    UnknownFormat { value: String },
    /// file= is given but empty.
    #[error("-sample: file= is empty")]
    EmptyFile,
    /// eval= is neither on nor off.
    #[error("-sample: eval={value} is not on or off")]
    BadEval { value: String },
    /// eval=on with a format other than csv: binpack always records the evaluations, bin has no
    /// field for them.
    #[error("-sample: eval=on adds a csv column; {format} {why}")]
    EvalNotCsv {
        format: SampleFormat,
        why: &'static str,
    },
    /// multipv= is not a whole number from 1 to the most principal variations kept.
    #[error("-sample: multipv={value} is not a whole number from 1 to {MULTIPV_CAP}")]
    BadMultipv { value: String },
}

/// What `-sample` asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleConfig {
    /// Probability that a move becomes a sample, in [0, 1].
    pub freq: f64,
    pub format: SampleFormat,
    pub file: PathBuf,
    /// csv only: whether lines carry the evaluation.
    pub eval_column: EvalColumn,
    /// `multipv=N`, N ≥ 2: the engines are asked for N best moves (`YXNBEST`), and binpack
    /// writes each move's group. `multipv=1` is the plain `TURN`, so it is `None` here.
    pub multipv: Option<u32>,
}

impl SampleConfig {
    /// The configuration of a format with every other key at its default.
    pub fn new(format: SampleFormat, file: impl Into<PathBuf>) -> SampleConfig {
        SampleConfig {
            freq: 1.0,
            format,
            file: file.into(),
            eval_column: EvalColumn::Without,
            multipv: None,
        }
    }

    /// Parse the `key=value` list that follows `-sample`. Defaults: freq=1, format=csv, file by
    /// format ([`SampleFormat::default_file`]: sample.csv, sample.bin, sample.bin.lz4, ...),
    /// eval=off, multipv=1.
    pub fn parse(kvs: &[(String, String)]) -> Result<SampleConfig, SampleConfigError> {
        let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
        for (key, value) in kvs {
            if !matches!(
                key.as_str(),
                "freq" | "format" | "file" | "eval" | "multipv"
            ) {
                return Err(SampleConfigError::UnknownKey {
                    key: key.clone(),
                    value: value.clone(),
                });
            }
            seen.insert(key, value);
        }
        crate::cli::refuse_repeated_keys(
            "-sample",
            kvs.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        )?;
        let freq = match seen.get("freq") {
            None => 1.0,
            Some(v) => {
                let f: f64 = v.trim().parse().map_err(|_| SampleConfigError::BadFreq {
                    value: v.to_string(),
                })?;
                // `contains` is false for NaN too.
                if !(0.0..=1.0).contains(&f) {
                    return Err(SampleConfigError::FreqOutOfRange {
                        value: v.to_string(),
                    });
                }
                f
            }
        };
        let format = match seen.get("format") {
            None => SampleFormat::Csv,
            Some(v) => v.parse()?,
        };
        let file = match seen.get("file") {
            None => PathBuf::from(format.default_file()),
            Some(&"") => return Err(SampleConfigError::EmptyFile),
            Some(v) => PathBuf::from(v),
        };
        Ok(SampleConfig {
            freq,
            format,
            file,
            eval_column: eval_column_of(seen.get("eval").copied(), format)?,
            multipv: multipv_of(seen.get("multipv").copied())?,
        })
    }
}

/// Every format's name, listed in prose: `csv, bin, bin_lz4, binpack or binpack_lz4`.
fn format_names() -> String {
    let names: Vec<&str> = SampleFormat::ALL.iter().map(|f| f.name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// `eval=on|off` (also 1|0): on only for csv, the one format where the evaluation is optional.
fn eval_column_of(
    value: Option<&str>,
    format: SampleFormat,
) -> Result<EvalColumn, SampleConfigError> {
    let column = match value {
        None | Some("off" | "0") => return Ok(EvalColumn::Without),
        Some("on" | "1") => EvalColumn::With,
        Some(v) => {
            return Err(SampleConfigError::BadEval {
                value: v.to_string(),
            })
        }
    };
    let why = match format.codec().evals() {
        EvalField::Optional => return Ok(column),
        EvalField::Never => "has no field for it (binpack has one)",
        EvalField::Always => "records every reported evaluation without it",
    };
    Err(SampleConfigError::EvalNotCsv { format, why })
}

/// `multipv=N`, 1 ≤ N ≤ [`MULTIPV_CAP`]; 1 asks nothing more than one move.
fn multipv_of(value: Option<&str>) -> Result<Option<u32>, SampleConfigError> {
    let Some(v) = value else {
        return Ok(None);
    };
    match v.trim().parse::<u32>() {
        Ok(1) => Ok(None),
        Ok(n) if (2..=MULTIPV_CAP as u32).contains(&n) => Ok(Some(n)),
        _ => Err(SampleConfigError::BadMultipv {
            value: v.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn config_defaults_and_values() {
        let c = SampleConfig::parse(&[]).unwrap();
        assert_eq!(c, SampleConfig::new(SampleFormat::Csv, "sample.csv"));
        let c = SampleConfig::parse(&kv(&[("format", "bin_lz4"), ("freq", "0.25")])).unwrap();
        assert_eq!(c.file, PathBuf::from("sample.bin.lz4"));
        assert_eq!(c.freq, 0.25);
        let c = SampleConfig::parse(&kv(&[("format", "binpack_lz4")])).unwrap();
        assert_eq!(
            (c.format, c.file),
            (SampleFormat::BinpackLz4, "sample.binpack.lz4".into())
        );
        let c = SampleConfig::parse(&kv(&[("format", "bin"), ("file", "x.dat")])).unwrap();
        assert_eq!((c.format, c.file), (SampleFormat::Bin, "x.dat".into()));
    }

    #[test]
    fn config_eval_column_and_multipv() {
        let c = SampleConfig::parse(&kv(&[("eval", "on"), ("multipv", "3")])).unwrap();
        assert_eq!((c.eval_column, c.multipv), (EvalColumn::With, Some(3)));
        // multipv=1 is one move, as TURN asks: nothing more to ask of the engines.
        let c = SampleConfig::parse(&kv(&[("eval", "0"), ("multipv", "1")])).unwrap();
        assert_eq!((c.eval_column, c.multipv), (EvalColumn::Without, None));
        let c = SampleConfig::parse(&kv(&[("format", "binpack"), ("multipv", "64")])).unwrap();
        assert_eq!(c.multipv, Some(MULTIPV_CAP as u32));
        for bad in ["0", "65", "-2", "two", ""] {
            let e = SampleConfig::parse(&kv(&[("multipv", bad)])).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("-sample: multipv={bad} is not a whole number from 1 to 64")
            );
        }
        let e = SampleConfig::parse(&kv(&[("eval", "yes")])).unwrap_err();
        assert_eq!(e.to_string(), "-sample: eval=yes is not on or off");
        for (format, why) in [("bin_lz4", "has no field"), ("binpack", "records every")] {
            let e = SampleConfig::parse(&kv(&[("format", format), ("eval", "on")])).unwrap_err();
            assert!(e.to_string().contains(why), "{e}");
        }
        assert!(SampleConfig::parse(&kv(&[("format", "bin"), ("eval", "off")])).is_ok());
    }

    #[test]
    fn config_errors_name_key_and_value() {
        let e = SampleConfig::parse(&kv(&[("freq", "1.5")])).unwrap_err();
        assert_eq!(e.to_string(), "-sample: freq=1.5 is outside [0, 1]");
        let e = SampleConfig::parse(&kv(&[("freq", "NaN")])).unwrap_err();
        assert!(matches!(e, SampleConfigError::FreqOutOfRange { .. }));
        let e = SampleConfig::parse(&kv(&[("freq", "often")])).unwrap_err();
        assert_eq!(e.to_string(), "-sample: freq=often is not a number");
        let e = SampleConfig::parse(&kv(&[("format", "zip")])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "-sample: unknown format=\"zip\" (expected csv, bin, bin_lz4, binpack or binpack_lz4)"
        );
        let e = SampleConfig::parse(&kv(&[("freqq", "1")])).unwrap_err();
        assert!(e.to_string().contains("freqq=1"), "{e}");
        let e = SampleConfig::parse(&kv(&[("file", "a"), ("file", "b")])).unwrap_err();
        assert_eq!(e.to_string(), "-sample: file given twice (\"a\" and \"b\")");
    }
}
