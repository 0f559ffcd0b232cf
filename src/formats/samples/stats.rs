//! `gomoku-cli samples stats`: a summary of what a sample file holds.

use std::collections::BTreeMap;
use std::path::Path;

use crate::core::rules::Rule;
use crate::formats::samples::codec::{EntryCounts, EvalField};
use crate::formats::samples::reader::{open_samples, SampleReadError};
use crate::formats::samples::sample::StoredSample;
use crate::formats::samples::SampleFormat;

/// A summary of a sample file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SampleStats {
    pub count: u64,
    /// Indexed by [`crate::formats::samples::SampleResult::code`]: loss, draw, win.
    pub results: [u64; 3],
    /// Samples by number of stones in the position.
    pub plies: BTreeMap<usize, u64>,
    /// Samples by board size (binary formats only).
    pub sizes: BTreeMap<u8, u64>,
    /// Samples by Gomocup rule code (binary formats only).
    pub rules: BTreeMap<u8, u64>,
    /// Samples whose file records no size or rule (csv).
    pub without_context: u64,
    /// binpack only: entries (chains of positions) and move records.
    pub packed: Option<EntryCounts>,
    /// Samples that carry the mover's evaluation.
    pub with_eval: u64,
    /// Samples whose binpack group holds other PV moves, and those moves.
    pub groups: u64,
    pub alternatives: u64,
    /// Whether the format has a place for evaluations (binpack, csv's optional column): the
    /// report then says how many samples carry one.
    pub evals_kept: bool,
}

fn percent(n: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * n as f64 / total as f64
    }
}

impl SampleStats {
    pub fn add(&mut self, s: &StoredSample) {
        self.count += 1;
        self.results[s.result.code() as usize] += 1;
        self.with_eval += u64::from(s.eval.is_some());
        self.groups += u64::from(!s.alternatives.is_empty());
        self.alternatives += s.alternatives.len() as u64;
        *self.plies.entry(s.position.len()).or_default() += 1;
        match (s.size, s.rule) {
            (Some(size), Some(rule)) => {
                *self.sizes.entry(size.get()).or_default() += 1;
                *self.rules.entry(rule.code()).or_default() += 1;
            }
            _ => self.without_context += 1,
        }
    }

    /// A plain-text report: counts, result shares, sizes, rules and a ply histogram.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let n = self.count;
        s.push_str(&format!("samples: {n}\n"));
        if let Some(c) = self.packed {
            s.push_str(&format!(
                "binpack entries: {} (chains of consecutive positions), moves: {}\n",
                c.entries, c.moves
            ));
        }
        if n == 0 {
            return s;
        }
        if self.evals_kept {
            s.push_str(&format!(
                "with an evaluation: {} ({:.1}%)\n",
                self.with_eval,
                percent(self.with_eval, n)
            ));
        }
        if self.groups > 0 {
            s.push_str(&format!(
                "multi-PV groups: {} ({:.1}%), other PV moves in them: {}\n",
                self.groups,
                percent(self.groups, n),
                self.alternatives
            ));
        }
        let [loss, draw, win] = self.results;
        s.push_str(&format!(
            "results (side to move): loss {loss} ({:.1}%), draw {draw} ({:.1}%), win {win} ({:.1}%)\n",
            percent(loss, n),
            percent(draw, n),
            percent(win, n)
        ));
        if self.without_context == n {
            s.push_str("board sizes and rules: not recorded (csv)\n");
        } else {
            let sizes: Vec<String> = self
                .sizes
                .iter()
                .map(|(k, v)| format!("{k}x{k} {v}"))
                .collect();
            s.push_str(&format!("board sizes: {}\n", sizes.join(", ")));
            let rules: Vec<String> = self
                .rules
                .iter()
                .map(|(&code, v)| match Rule::from_code(code as i64) {
                    Ok(r) => format!("{r} ({code}) {v}"),
                    Err(_) => format!("code {code} {v}"),
                })
                .collect();
            s.push_str(&format!("rules: {}\n", rules.join(", ")));
        }
        let min = *self.plies.keys().next().expect("count > 0");
        let max = *self.plies.keys().next_back().expect("count > 0");
        let total: u64 = self.plies.iter().map(|(&p, &c)| p as u64 * c).sum();
        s.push_str(&format!(
            "stones in position: min {min}, mean {:.1}, max {max}\n",
            total as f64 / n as f64
        ));
        s.push_str(&self.histogram(min, max));
        s
    }

    /// The histogram of stones per position, at most about 20 rows with a round bucket width.
    fn histogram(&self, min: usize, max: usize) -> String {
        let mut s = String::new();
        let span = max - min + 1;
        let width = [1usize, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
            .into_iter()
            .find(|w| span.div_ceil(*w) <= 20)
            .unwrap_or(1000);
        let mut buckets: BTreeMap<usize, u64> = BTreeMap::new();
        for (&p, &c) in &self.plies {
            *buckets.entry(p / width * width).or_default() += c;
        }
        let peak = buckets.values().copied().max().unwrap_or(1).max(1);
        let label = |lo: usize| {
            if width == 1 {
                format!("{lo}")
            } else {
                format!("{lo}-{}", lo + width - 1)
            }
        };
        let label_width = buckets.keys().map(|&lo| label(lo).len()).max().unwrap_or(1);
        let count_width = peak.to_string().len();
        s.push_str("histogram of stones in position:\n");
        for (&lo, &c) in &buckets {
            let bar = ((c as f64 / peak as f64) * 40.0).round() as usize;
            s.push_str(&format!(
                "  {:>label_width$}  {:>count_width$}  {}\n",
                label(lo),
                c,
                "#".repeat(bar.max(usize::from(c > 0)))
            ));
        }
        s
    }
}

/// What `samples stats` found in a file.
#[derive(Debug)]
pub struct StatsReport {
    /// The file name and format, the statistics of every sample read, and the damage if any.
    pub text: String,
    /// What stopped the reading before the end of the file (a cut, a bad entry): the statistics
    /// cover the part before it, and the file is not sound.
    pub damage: Option<SampleReadError>,
}

/// `gomoku-cli samples stats FILE [--format F]`: read the file and render its statistics.
/// Without a format, it is guessed from the file name ([`SampleFormat::from_extension`]). A file that cannot be
/// opened is an error; a damaged one (cut by a kill mid-write, say) still gets the statistics of
/// its readable part, followed by where and why reading stopped, and `damage` is set.
pub fn samples_stats_command(
    path: &Path,
    format: Option<SampleFormat>,
) -> Result<StatsReport, SampleReadError> {
    let format = match format.or_else(|| SampleFormat::from_extension(path)) {
        Some(f) => f,
        None => {
            return Err(SampleReadError::UnknownFormat {
                path: path.to_path_buf(),
            })
        }
    };
    let mut stats = SampleStats {
        evals_kept: format.codec().evals() != EvalField::Never,
        ..SampleStats::default()
    };
    let mut damage = None;
    let mut reader = open_samples(path, format)?;
    for item in reader.by_ref() {
        match item {
            Ok(s) => stats.add(&s),
            Err(e) => damage = Some(e),
        }
    }
    if format.packed() {
        stats.packed = Some(reader.counts());
    }
    let mut text = format!("{} ({format})\n{}", path.display(), stats.render());
    if let Some(e) = &damage {
        text.push_str(&format!(
            "damaged: {e}\nthe statistics above cover only the part of the file before the damage\n"
        ));
    }
    Ok(StatsReport { text, damage })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::samples::{game_rng, samples_of};
    use crate::game::record::fixtures::sample_record;

    #[test]
    fn stats_render() {
        let r = sample_record();
        let mut st = SampleStats::default();
        for s in samples_of(&r, 1.0, &mut game_rng(0, 0)) {
            st.add(&StoredSample::stored_as(&s, SampleFormat::Bin));
        }
        let text = st.render();
        assert!(text.contains("samples: 7\n"), "{text}");
        assert!(
            text.contains("loss 3 (42.9%), draw 0 (0.0%), win 4 (57.1%)"),
            "{text}"
        );
        assert!(text.contains("board sizes: 15x15 7"), "{text}");
        assert!(text.contains("rules: freestyle (0) 7"), "{text}");
        assert!(text.contains("min 2, mean 5.0, max 8"), "{text}");
    }
}
