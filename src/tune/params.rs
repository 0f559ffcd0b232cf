//! Parameter files for tuning: OpenBench's lines (`name, int|float, start, min, max, c_end, r_end`)
//! or Rapfi's printed tuning table (`[MESSAGE ]name,value,min,max,c_end,r_end`), parsed into checked
//! parameters and written back in the input's format with new values.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// How a parameter's values are sent: integers are rounded before they reach the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ParamKind {
    Int,
    Float,
}

impl ParamKind {
    /// OpenBench's word for the kind.
    pub fn name(self) -> &'static str {
        match self {
            ParamKind::Int => "int",
            ParamKind::Float => "float",
        }
    }
}

/// One tunable parameter: its start value, bounds and SPSA end-of-run settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
    pub start: f64,
    pub min: f64,
    pub max: f64,
    /// The perturbation size at the last iteration.
    pub c_end: f64,
    /// The learning rate at the last iteration, relative to `c_end²`.
    pub r_end: f64,
}

/// The shape of the file's lines; output is written in the shape read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ParamsFormat {
    /// `name, int|float, start, min, max, c_end, r_end`.
    OpenBench,
    /// `MESSAGE name,value,min,max,c_end,r_end` as Rapfi prints it (the `MESSAGE ` is optional);
    /// a parameter is an integer when its value, min and max are all integral.
    Rapfi,
}

impl fmt::Display for ParamsFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParamsFormat::OpenBench => {
                "OpenBench's `name, int|float, start, min, max, c_end, r_end`"
            }
            ParamsFormat::Rapfi => "Rapfi's `name,value,min,max,c_end,r_end`",
        })
    }
}

/// The parameters of one tuning run, in file order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub format: ParamsFormat,
    pub list: Vec<Param>,
}

/// A parameter file that cannot be used. Each names the file, its 1-based line and the text refused.
#[derive(Debug, Error)]
pub enum ParamsError {
    /// The file could not be read.
    #[error("{}: cannot read the parameter file: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A line that is neither format's shape.
    #[error("{}:{line}: {text:?} is neither `name, int|float, start, min, max, c_end, r_end` (OpenBench) nor `[MESSAGE ]name,value,min,max,c_end,r_end` (Rapfi)", path.display())]
    Shape {
        path: PathBuf,
        line: usize,
        text: String,
    },
    /// A line in the other format than the file's first parameter.
    #[error("{}:{line}: {text:?} is in {found} but line {first_line} is in {first}: one format per file", path.display())]
    Mixed {
        path: PathBuf,
        line: usize,
        text: String,
        found: ParamsFormat,
        first: ParamsFormat,
        first_line: usize,
    },
    /// A field that is not a finite number.
    #[error("{}:{line}: {field} {text:?} is not a number", path.display())]
    Number {
        path: PathBuf,
        line: usize,
        field: &'static str,
        text: String,
    },
    /// A field outside what it may be (min above max, start outside the bounds, c_end or r_end not
    /// positive, an int parameter whose bounds hold no integer).
    #[error("{}:{line}: {text:?}: {why}", path.display())]
    Range {
        path: PathBuf,
        line: usize,
        text: String,
        why: String,
    },
    /// A name that is empty or holds whitespace or a comma (names go into `INFO` lines and
    /// command lines).
    #[error("{}:{line}: parameter name {text:?} is empty or holds whitespace or a comma", path.display())]
    Name {
        path: PathBuf,
        line: usize,
        text: String,
    },
    /// A name given twice.
    #[error("{}:{line}: parameter {text:?} is already defined on line {first_line}", path.display())]
    Duplicate {
        path: PathBuf,
        line: usize,
        text: String,
        first_line: usize,
    },
    /// A file without any parameter line.
    #[error("{}: holds no parameter (only blank lines and # comments)", path.display())]
    Empty { path: PathBuf },
}

/// Shortest text that reads back as the same `f64`, never in exponent form; `-0` is written `0`.
fn number_text(x: f64) -> String {
    if x == 0.0 {
        "0".to_string()
    } else {
        format!("{x}")
    }
}

/// One parsed line and the line's format.
struct Line {
    format: ParamsFormat,
    param: Param,
}

/// Reads one line's parameter; `None` for blank and comment lines.
fn parse_line(raw: &str, path: &Path, line: usize) -> Result<Option<Line>, ParamsError> {
    let text = raw.split('#').next().unwrap_or("").trim();
    if text.is_empty() {
        return Ok(None);
    }
    let shape = || ParamsError::Shape {
        path: path.to_path_buf(),
        line,
        text: text.to_string(),
    };
    // Rapfi prints its table as MESSAGE lines; a copy without the prefix is the same table.
    let (prefixed, body) = match text.split_once(char::is_whitespace) {
        Some((word, rest)) if word.eq_ignore_ascii_case("MESSAGE") => (true, rest.trim()),
        _ => (false, text),
    };
    let fields: Vec<&str> = body.split(',').map(str::trim).collect();
    let (format, kind, numbers) = match fields.len() {
        7 if !prefixed => {
            let kind = match fields[1].to_ascii_lowercase().as_str() {
                "int" => Some(ParamKind::Int),
                "float" => Some(ParamKind::Float),
                _ => return Err(shape()),
            };
            (ParamsFormat::OpenBench, kind, &fields[2..])
        }
        6 => (ParamsFormat::Rapfi, None, &fields[1..]),
        _ => return Err(shape()),
    };
    let name = fields[0];
    if name.is_empty() || name.chars().any(char::is_whitespace) {
        return Err(ParamsError::Name {
            path: path.to_path_buf(),
            line,
            text: name.to_string(),
        });
    }
    const FIELDS: [&str; 5] = ["start", "min", "max", "c_end", "r_end"];
    let mut v = [0.0; 5];
    for ((slot, field), s) in v.iter_mut().zip(FIELDS).zip(numbers) {
        *slot = s
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| ParamsError::Number {
                path: path.to_path_buf(),
                line,
                field,
                text: s.to_string(),
            })?;
    }
    let [start, min, max, c_end, r_end] = v;
    let kind = kind.unwrap_or(if [start, min, max].iter().all(|x| x.fract() == 0.0) {
        ParamKind::Int
    } else {
        ParamKind::Float
    });
    let param = Param {
        name: name.to_string(),
        kind,
        start,
        min,
        max,
        c_end,
        r_end,
    };
    check_ranges(&param).map_err(|why| ParamsError::Range {
        path: path.to_path_buf(),
        line,
        text: text.to_string(),
        why,
    })?;
    Ok(Some(Line { format, param }))
}

/// The values an engine may be sent: those of a 64-bit integer (2^63 is the first f64 past
/// `i64::MAX`), for a float as for an int, so that every value is a normal decimal of at most 19
/// digits before the point.
const SENDABLE: std::ops::Range<f64> = -9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0;

/// A number of a message: in exponent form where its decimal would be long (`1e308`, not 309
/// digits).
fn short(x: f64) -> String {
    let a = x.abs();
    if a >= 1e15 || (a != 0.0 && a < 1e-6) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// Why a parameter's numbers cannot be tuned, if they cannot.
fn check_ranges(p: &Param) -> Result<(), String> {
    let (start, min, max) = (short(p.start), short(p.min), short(p.max));
    if p.min >= p.max {
        return Err(format!("min {min} is not below max {max}"));
    }
    if p.start < p.min || p.start > p.max {
        return Err(format!("start {start} is outside [{min}, {max}]"));
    }
    if p.c_end <= 0.0 {
        return Err(format!("c_end {} is not positive", short(p.c_end)));
    }
    if p.r_end <= 0.0 {
        return Err(format!("r_end {} is not positive", short(p.r_end)));
    }
    for (name, x, text) in [("min", p.min, &min), ("max", p.max, &max)] {
        if !SENDABLE.contains(&x) {
            return Err(format!(
                "{name} {text} is past the values an engine is sent (-9223372036854775808 to \
                 9223372036854775807)"
            ));
        }
    }
    if p.kind == ParamKind::Int && p.min.ceil() > p.max.floor() {
        return Err(format!("no integer in [{min}, {max}]"));
    }
    // SPSA plays θ + c·Δ against θ − c·Δ: a c lost in the rounding of the values would play
    // the same values on both sides, every game, and learn nothing.
    let largest = p.min.abs().max(p.max.abs());
    if largest + p.c_end == largest {
        return Err(format!(
            "c_end {} is lost in the rounding of values as large as {}: θ+ and θ− would be the same",
            short(p.c_end),
            short(largest)
        ));
    }
    Ok(())
}

impl Params {
    /// Reads and parses a parameter file.
    pub fn load(path: &Path) -> Result<Params, ParamsError> {
        let text = std::fs::read_to_string(path).map_err(|source| ParamsError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Params::parse(&text, path)
    }

    /// Parses a parameter file's text (`path` names it in errors). Blank lines and `#` comments
    /// are skipped; all parameter lines must be in one format.
    pub fn parse(text: &str, path: &Path) -> Result<Params, ParamsError> {
        let mut first: Option<(ParamsFormat, usize)> = None;
        let mut list: Vec<(Param, usize)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let Some(parsed) = parse_line(raw, path, line)? else {
                continue;
            };
            match first {
                None => first = Some((parsed.format, line)),
                Some((f, first_line)) if f != parsed.format => {
                    return Err(ParamsError::Mixed {
                        path: path.to_path_buf(),
                        line,
                        text: raw.trim().to_string(),
                        found: parsed.format,
                        first: f,
                        first_line,
                    })
                }
                Some(_) => {}
            }
            if let Some((_, first_line)) = list.iter().find(|(p, _)| p.name == parsed.param.name) {
                return Err(ParamsError::Duplicate {
                    path: path.to_path_buf(),
                    line,
                    text: parsed.param.name,
                    first_line: *first_line,
                });
            }
            list.push((parsed.param, line));
        }
        let Some((format, _)) = first else {
            return Err(ParamsError::Empty {
                path: path.to_path_buf(),
            });
        };
        Ok(Params {
            format,
            list: list.into_iter().map(|(p, _)| p).collect(),
        })
    }

    /// The start values, θ at iteration 0.
    pub fn start(&self) -> Vec<f64> {
        self.list.iter().map(|p| p.start).collect()
    }

    /// The text of value `x` of parameter `i` as an engine receives it: an integer parameter
    /// rounded to the nearest integer, a float in its shortest exact text.
    pub fn value_text(&self, i: usize, x: f64) -> String {
        match self.list[i].kind {
            ParamKind::Int => number_text(x.round()),
            ParamKind::Float => number_text(x),
        }
    }

    /// The whole file in the input's format with θ as the start values.
    pub fn render(&self, theta: &[f64]) -> String {
        let mut out = String::new();
        for (i, (p, &x)) in self.list.iter().zip(theta).enumerate() {
            let (value, min, max) = (
                self.value_text(i, x),
                number_text(p.min),
                number_text(p.max),
            );
            let (c_end, r_end) = (number_text(p.c_end), number_text(p.r_end));
            out += &match self.format {
                ParamsFormat::OpenBench => format!(
                    "{}, {}, {value}, {min}, {max}, {c_end}, {r_end}\n",
                    p.name,
                    p.kind.name()
                ),
                ParamsFormat::Rapfi => {
                    format!("MESSAGE {},{value},{min},{max},{c_end},{r_end}\n", p.name)
                }
            };
        }
        out
    }

    /// `INFO name value` per parameter, ready to paste into a manager's engine settings.
    pub fn info_lines(&self, theta: &[f64]) -> String {
        self.lines_with(theta, |name, value| format!("INFO {name} {value}\n"))
    }

    /// `name, value` per parameter: OpenBench's form of a run's result.
    pub fn result_lines(&self, theta: &[f64]) -> String {
        self.lines_with(theta, |name, value| format!("{name}, {value}\n"))
    }

    fn lines_with(&self, theta: &[f64], line: impl Fn(&str, &str) -> String) -> String {
        self.list
            .iter()
            .zip(theta)
            .enumerate()
            .map(|(i, (p, &x))| line(&p.name, &self.value_text(i, x)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Params, ParamsError> {
        Params::parse(text, Path::new("p.txt"))
    }

    /// The error's line number and message, for refusal tests.
    fn refusal(text: &str) -> (usize, String) {
        let e = parse(text).expect_err("refused");
        let line = match &e {
            ParamsError::Shape { line, .. }
            | ParamsError::Mixed { line, .. }
            | ParamsError::Number { line, .. }
            | ParamsError::Range { line, .. }
            | ParamsError::Name { line, .. }
            | ParamsError::Duplicate { line, .. } => *line,
            ParamsError::Empty { .. } => unreachable!("no line to name"),
            ParamsError::Read { .. } => unreachable!("parse reads no file"),
        };
        let msg = e.to_string();
        assert!(msg.starts_with(&format!("p.txt:{line}: ")), "{msg}");
        (line, msg)
    }

    const OPENBENCH: &str = "# scout weights\n\
        \n\
        open_three, int, 60, 0, 200, 10, 0.002\n\
        aspiration, FLOAT, 0.5, 0.1, 2.5, 0.05, 0.002  # trailing comment\n";

    const RAPFI: &str = "MESSAGE futility[0],120,0,400,20,0.0020\n\
        razor,0.75,0,1.5,0.075,0.0020\n";

    #[test]
    fn reads_openbench_lines() {
        let p = parse(OPENBENCH).unwrap();
        assert_eq!(p.format, ParamsFormat::OpenBench);
        assert_eq!(
            p.list,
            vec![
                Param {
                    name: "open_three".into(),
                    kind: ParamKind::Int,
                    start: 60.0,
                    min: 0.0,
                    max: 200.0,
                    c_end: 10.0,
                    r_end: 0.002,
                },
                Param {
                    name: "aspiration".into(),
                    kind: ParamKind::Float,
                    start: 0.5,
                    min: 0.1,
                    max: 2.5,
                    c_end: 0.05,
                    r_end: 0.002,
                },
            ]
        );
        assert_eq!(p.start(), vec![60.0, 0.5]);
    }

    #[test]
    fn reads_rapfi_table_with_and_without_message() {
        let p = parse(RAPFI).unwrap();
        assert_eq!(p.format, ParamsFormat::Rapfi);
        assert_eq!(p.list[0].name, "futility[0]");
        assert_eq!(p.list[0].kind, ParamKind::Int);
        assert_eq!((p.list[0].start, p.list[0].c_end), (120.0, 20.0));
        assert_eq!(p.list[1].kind, ParamKind::Float);
        assert_eq!((p.list[1].max, p.list[1].r_end), (1.5, 0.002));
    }

    #[test]
    fn every_refusal_names_its_line() {
        let ob = "a, int, 1, 0, 2, 1, 0.002\n";
        let cases: [(&str, usize, &str); 15] = [
            ("a, int, 1, 0, 2\n", 1, "is neither"),
            ("a, double, 1, 0, 2, 1, 0.002\n", 1, "is neither"),
            ("MESSAGE a, int, 1, 0, 2, 1, 0.002\n", 1, "is neither"),
            ("\n# c\nhello world\n", 3, "is neither"),
            (
                &format!("{ob}b,1,0,2,1,0.002\n"),
                2,
                "line 1 is in OpenBench",
            ),
            (
                "a, int, x, 0, 2, 1, 0.002\n",
                1,
                "start \"x\" is not a number",
            ),
            ("a,1,0,inf,1,0.002\n", 1, "max \"inf\" is not a number"),
            ("a,1,3,2,1,0.002\n", 1, "min 3 is not below max 2"),
            ("a,5,0,2,1,0.002\n", 1, "start 5 is outside [0, 2]"),
            ("a,1,0,2,0,0.002\n", 1, "c_end 0 is not positive"),
            ("a,1,0,2,1,-1\n", 1, "r_end -1 is not positive"),
            (
                "a, int, 0.5, 0.2, 0.8, 1, 0.002\n",
                1,
                "no integer in [0.2, 0.8]",
            ),
            (&format!("{ob}\n{ob}"), 3, "already defined on line 1"),
            ("MESSAGE two words,1,0,2,1,0.002\n", 1, "name \"two words\""),
            (", int, 1, 0, 2, 1, 0.002\n", 1, "name \"\""),
        ];
        for (text, line, part) in cases {
            let (got, msg) = refusal(text);
            assert_eq!(got, line, "{text:?}: {msg}");
            assert!(msg.contains(part), "{text:?}: {msg}");
        }
    }

    #[test]
    fn values_an_engine_cannot_be_sent_or_spsa_cannot_move_are_refused() {
        let cases = [
            // The line: θ+ = θ− (20 is lost at 1e300) and a 301-digit number sent.
            ("eval_four, int, 1e300, 0, 1e308, 20, 0.002", "max 1e308"),
            ("a, int, 0, -1e19, 5, 1, 0.002", "min -1e19"),
            (
                "a, int, 9223372036854775807, 0, 9223372036854775807, 1, 0.002",
                "max 9.223372036854776e18",
            ),
            ("a, float, 1e200, 0, 1e300, 1, 0.002", "max 1e300"),
            ("a,3,3,3,1,0.002", "min 3 is not below max 3"),
            ("a, float, 1e15, 0, 1e15, 0.01, 0.002", "c_end 0.01 is lost"),
        ];
        for (text, part) in cases {
            let (line, msg) = refusal(&format!("{text}\n"));
            assert_eq!(line, 1, "{text:?}: {msg}");
            assert!(msg.contains(part), "{text:?}: {msg}");
        }
        // The widest bounds an int parameter may have, and a float's perturbation that shows.
        let p =
            parse("a, int, 0, -9223372036854775808, 9223372036854774784, 4096, 0.002\n").unwrap();
        let sent = p.value_text(0, p.list[0].max);
        assert_eq!(
            sent.parse::<i64>().map(|n| n as f64),
            Ok(p.list[0].max),
            "{sent}"
        );
        assert!(parse("a, float, 1e15, 0, 1e15, 0.5, 0.002\n").is_ok());
    }

    #[test]
    fn a_file_without_parameters_is_named_without_a_line() {
        for text in ["", "# nothing\n\n"] {
            let e = parse(text).unwrap_err().to_string();
            assert_eq!(
                e,
                "p.txt: holds no parameter (only blank lines and # comments)"
            );
        }
    }

    #[test]
    fn load_names_a_missing_file() {
        let e = Params::load(Path::new("/nonexistent/params.txt")).unwrap_err();
        assert!(matches!(e, ParamsError::Read { .. }));
        assert!(
            e.to_string().starts_with("/nonexistent/params.txt: "),
            "{e}"
        );
    }

    #[test]
    fn values_are_sent_as_integers_or_shortest_floats() {
        let p = parse(OPENBENCH).unwrap();
        assert_eq!(p.value_text(0, 12.4), "12");
        assert_eq!(p.value_text(0, -2.6), "-3");
        assert_eq!(p.value_text(0, -0.2), "0");
        assert_eq!(p.value_text(1, 0.1 + 0.2), "0.30000000000000004");
        assert_eq!(p.value_text(1, 1e-7), "0.0000001");
        assert_eq!(p.value_text(1, 2.0), "2");
    }

    #[test]
    fn output_lines() {
        let p = parse(OPENBENCH).unwrap();
        let theta = [71.6, 0.625];
        assert_eq!(
            p.info_lines(&theta),
            "INFO open_three 72\nINFO aspiration 0.625\n"
        );
        assert_eq!(
            p.result_lines(&theta),
            "open_three, 72\naspiration, 0.625\n"
        );
        assert_eq!(
            p.render(&theta),
            "open_three, int, 72, 0, 200, 10, 0.002\naspiration, float, 0.625, 0.1, 2.5, 0.05, 0.002\n"
        );
        let r = parse(RAPFI).unwrap();
        assert_eq!(
            r.render(&[99.0, 1.25]),
            "MESSAGE futility[0],99,0,400,20,0.002\nMESSAGE razor,1.25,0,1.5,0.075,0.002\n"
        );
    }

    #[test]
    fn render_round_trips() {
        for (text, theta) in [(OPENBENCH, [137.0, 1.0 / 3.0]), (RAPFI, [3.0, 0.1 + 0.2])] {
            let p = parse(text).unwrap();
            let again = parse(&p.render(&theta)).unwrap();
            assert_eq!(again.format, p.format);
            assert_eq!(again.start(), theta.to_vec());
            let rest = |q: &Params| -> Vec<_> {
                q.list
                    .iter()
                    .map(|x| (x.name.clone(), x.kind, x.min, x.max, x.c_end, x.r_end))
                    .collect()
            };
            assert_eq!(rest(&again), rest(&p));
        }
    }
}
