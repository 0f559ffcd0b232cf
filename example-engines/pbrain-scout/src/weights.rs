//! The scout's evaluation weights: what each line shape an empty point offers is worth. Four of them
//! are tunable parameters, set by `INFO <name> <value>` or `--param name=value` and listed in
//! Rapfi's tuning-table form, so that `gomoku-cli tune` has something real to tune.

use crate::pattern::Shape;

/// One tunable weight: the shape it values and the integer range a value is clamped to.
pub struct Tunable {
    pub name: &'static str,
    pub shape: Shape,
    pub min: i64,
    pub max: i64,
}

/// The tunable weights (names lower-case: the protocol kit lower-cases `INFO` keys).
pub const TUNABLE: [Tunable; 4] = [
    Tunable {
        name: "eval_open_two",
        shape: Shape::OpenTwo,
        min: 0,
        max: 100,
    },
    Tunable {
        name: "eval_three",
        shape: Shape::Three,
        min: 0,
        max: 100,
    },
    Tunable {
        name: "eval_open_three",
        shape: Shape::OpenThree,
        min: 0,
        max: 400,
    },
    Tunable {
        name: "eval_four",
        shape: Shape::Four,
        min: 0,
        max: 400,
    },
];

/// Per-direction potential of an empty point by shape, summed into the evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Weights {
    potential: [i64; Shape::COUNT],
}

impl Default for Weights {
    /// The scout's values before it had parameters (its tests and benchmarks play with these).
    fn default() -> Self {
        Weights {
            potential: [0, 1, 4, 12, 14, 50, 60, 250, 1000],
        }
    }
}

impl Weights {
    #[inline]
    pub fn potential(&self, s: Shape) -> i64 {
        self.potential[s as usize]
    }

    /// Sets the tunable weight `name` from a number's text, as Rapfi's tuning map does: a
    /// fractional value is rounded to the nearest integer and a value out of range clamped.
    /// `Ok(false)`: not one of the scout's names (an `INFO` key meant for something else).
    pub fn set(&mut self, name: &str, value: &str) -> Result<bool, String> {
        let Some(t) = TUNABLE.iter().find(|t| t.name == name) else {
            return Ok(false);
        };
        let x = value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| !x.is_nan())
            .ok_or_else(|| format!("{name} expects a number, got {value:?}"))?;
        // The clamp in f64 first: a huge value cannot overflow the integer.
        let v = x.round().clamp(t.min as f64, t.max as f64) as i64;
        self.potential[t.shape as usize] = v;
        Ok(true)
    }

    /// Applies `--param name=value` arguments (repeatable; `--param name=value` or
    /// `--param=name=value`). Unknown names and bad values are errors here: the user typed them.
    pub fn from_args(args: &[String]) -> Result<Weights, String> {
        let mut w = Weights::default();
        let mut rest = args.iter();
        while let Some(a) = rest.next() {
            let setting = match a.strip_prefix("--param") {
                Some("") => rest.next().ok_or("--param expects name=value")?.as_str(),
                Some(s) if s.starts_with('=') => &s[1..],
                _ => continue,
            };
            let (name, value) = setting
                .split_once('=')
                .ok_or_else(|| format!("--param expects name=value, got {setting:?}"))?;
            if !w.set(&name.to_ascii_lowercase(), value)? {
                let names: Vec<_> = TUNABLE.iter().map(|t| t.name).collect();
                return Err(format!(
                    "--param: unknown parameter {name:?} (known: {})",
                    names.join(", ")
                ));
            }
        }
        Ok(w)
    }

    /// The tuning table in Rapfi's form, one `MESSAGE name,value,min,max,c_end,r_end` line per
    /// weight (c_end = (max − min)/20, r_end 0.002, as Rapfi's table has them).
    pub fn table(&self) -> Vec<String> {
        TUNABLE
            .iter()
            .map(|t| {
                let c_end = (t.max - t.min) as f64 / 20.0;
                format!(
                    "MESSAGE {},{},{},{},{c_end},0.002",
                    t.name,
                    self.potential(t.shape),
                    t.min,
                    t.max
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn info_values_are_rounded_and_clamped() {
        let mut w = Weights::default();
        assert_eq!(w.set("eval_open_three", "71.5"), Ok(true));
        assert_eq!(w.potential(Shape::OpenThree), 72);
        assert_eq!(w.set("eval_four", "-3"), Ok(true));
        assert_eq!(w.potential(Shape::Four), 0);
        assert_eq!(w.set("eval_three", "1e30"), Ok(true));
        assert_eq!(w.potential(Shape::Three), 100);
        assert_eq!(w.set("hash_size", "12"), Ok(false));
        assert!(w.set("eval_three", "many").is_err());
        assert_eq!(
            w.potential(Shape::Three),
            100,
            "a bad value changes nothing"
        );
        // Untuned shapes keep their values.
        assert_eq!(w.potential(Shape::OpenFour), 250);
    }

    #[test]
    fn command_line_parameters() {
        let w = Weights::from_args(&args(&[
            "--depth",
            "2",
            "--param",
            "eval_open_two=30",
            "--param=EVAL_FOUR=99.6",
        ]))
        .unwrap();
        assert_eq!(
            (w.potential(Shape::OpenTwo), w.potential(Shape::Four)),
            (30, 100)
        );
        assert_eq!(
            Weights::from_args(&args(&["--depth", "2"])).unwrap(),
            Weights::default()
        );
        for bad in [
            &["--param"][..],
            &["--param", "eval_four"],
            &["--param", "x=1"],
            &["--param=eval_four=z"],
        ] {
            assert!(Weights::from_args(&args(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn table_lists_the_defaults() {
        assert_eq!(
            Weights::default().table(),
            [
                "MESSAGE eval_open_two,12,0,100,5,0.002",
                "MESSAGE eval_three,14,0,100,5,0.002",
                "MESSAGE eval_open_three,50,0,400,20,0.002",
                "MESSAGE eval_four,60,0,400,20,0.002",
            ]
        );
    }
}
