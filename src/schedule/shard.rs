//! Shards: one run split over N processes (a SLURM job array, a Kubernetes indexed Job, or by
//! hand). Shard K plays the game numbers of every N-th unit of the schedule (a unit is one game,
//! or with `-repeat` the colour-swapped pair, which never splits), so the N shards together play
//! exactly the unsharded schedule and each shard's prefix is spread evenly over it. Pure: the
//! environment is passed in.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::stats::SprtCrossing;

use crate::schedule::{GameId, Schedule};

/// Shard `index` of `count` (1 ≤ index ≤ count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

/// A shard setting that cannot be used.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ShardError {
    /// `-shard` is not `K/N` with 1 ≤ K ≤ N.
    #[error("-shard: {0:?} is not K/N with 1 <= K <= N")]
    Bad(String),
    /// A scheduler variable that is not a number or out of range.
    #[error("{var}={value:?}: {why}")]
    Env {
        var: &'static str,
        value: String,
        why: String,
    },
}

/// The Kubernetes variable for the number of shards (an indexed Job only sets the index).
pub const K8S_COUNT_VAR: &str = "GOMOKU_CLI_SHARDS";

/// The stop marker's name in the run directory: the shard whose SPRT decides writes it, every
/// shard and `merge`/`sprt`/`report` read it (the run's verdict is the deciding shard's).
pub const STOP_MARKER: &str = "sprt-stop.json";

/// What the stop marker says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StopMarker {
    pub verdict: crate::stats::Verdict,
    /// The crossing as the deciding shard saw it.
    pub llr: f64,
    pub games: u64,
    pub game: u64,
    /// The deciding shard, `K/N`.
    pub shard: String,
    /// RFC 3339 time the marker was written.
    pub written: String,
}

impl StopMarker {
    /// The crossing the marker records.
    pub fn crossing(&self) -> SprtCrossing {
        SprtCrossing {
            verdict: self.verdict,
            llr: self.llr,
            games: self.games,
            game: self.game,
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// Parse `K/N`.
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError::Bad(text.to_string());
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u64 = k.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// From a scheduler's environment: SLURM's job array (`SLURM_ARRAY_TASK_ID`,
    /// `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_COUNT`) or a Kubernetes indexed Job
    /// (`JOB_COMPLETION_INDEX`, 0-based, and [`K8S_COUNT_VAR`]). `None` outside both.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<Option<Shard>, ShardError> {
        let num = |name: &'static str| -> Result<Option<u64>, ShardError> {
            match var(name) {
                None => Ok(None),
                Some(v) => crate::core::numbers::whole_number(&v, 0..=u64::MAX)
                    .map(Some)
                    .map_err(|e| ShardError::Env {
                        var: name,
                        value: v,
                        why: format!("not {e}"),
                    }),
            }
        };
        let out_of_range = |name: &'static str, v: u64| ShardError::Env {
            var: name,
            value: v.to_string(),
            why: "outside the array".into(),
        };
        if let (Some(id), Some(count)) =
            (num("SLURM_ARRAY_TASK_ID")?, num("SLURM_ARRAY_TASK_COUNT")?)
        {
            let min = num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let index = id
                .checked_sub(min)
                .map(|i| i + 1)
                .filter(|&i| i <= count)
                .ok_or(out_of_range("SLURM_ARRAY_TASK_ID", id))?;
            return Ok(Some(Shard { index, count }));
        }
        if let (Some(i), Some(count)) = (num("JOB_COMPLETION_INDEX")?, num(K8S_COUNT_VAR)?) {
            if i >= count {
                return Err(out_of_range("JOB_COMPLETION_INDEX", i));
            }
            return Ok(Some(Shard {
                index: i + 1,
                count,
            }));
        }
        Ok(None)
    }

    /// Whether game `g` is this shard's.
    pub fn owns(&self, schedule: &Schedule, g: GameId) -> bool {
        self.owns_in_units(unit_of(schedule), g)
    }

    /// Whether game `g` is this shard's when the games are dealt `unit` at a time (a knockout's
    /// or a Swiss's numbers, which [`Schedule`] does not list).
    pub fn owns_in_units(&self, unit: u64, g: GameId) -> bool {
        ((g.0.max(1) - 1) / unit.max(1)) % self.count == self.index - 1
    }

    /// This shard's first game numbered `g` or later (not checked against the schedule's end),
    /// found by arithmetic: the game queue jumps over the other shards' units instead of
    /// testing each game. `None` past `u64::MAX`.
    pub fn next_owned(&self, schedule: &Schedule, g: GameId) -> Option<GameId> {
        let unit = unit_of(schedule);
        let j = (g.0.max(1) - 1) / unit;
        let (have, want) = (j % self.count, self.index - 1);
        if have == want {
            return Some(GameId(g.0.max(1)));
        }
        // Units until the next one of this shard, less than `count` (no overflow either way).
        let ahead = if want > have {
            want - have
        } else {
            self.count - (have - want)
        };
        let start = j.checked_add(ahead)?.checked_mul(unit)?.checked_add(1)?;
        Some(GameId(start))
    }

    /// How many of the schedule's games are this shard's, by arithmetic (no walk over them).
    pub fn owned_games(&self, schedule: &Schedule) -> u64 {
        let (unit, total) = (unit_of(schedule) as u128, schedule.total_games() as u128);
        let (count, want) = (self.count as u128, (self.index - 1) as u128);
        let (full, rest) = (total / unit, total % unit);
        // Whole units numbered below `full` that fall to this shard, then a last partial unit.
        let whole = (full + count - 1 - want) / count;
        let partial = if rest > 0 && full % count == want {
            rest
        } else {
            0
        };
        // At most `total`, so it fits.
        (whole * unit + partial) as u64
    }

    /// `shard-K-of-N`, the tag in this shard's file names.
    pub fn tag(&self) -> String {
        format!("shard-{}-of-{}", self.index, self.count)
    }

    /// This shard's journal in the run directory.
    pub fn journal_in(&self, rundir: &Path) -> PathBuf {
        rundir.join(format!("{}.journal.jsonl", self.tag()))
    }

    /// `games.pgn` → `games.shard-2-of-4.pgn` (the tag before the last extension), so shards
    /// never write into one file.
    pub fn output_name(&self, path: &Path) -> PathBuf {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tagged = match name.split_once('.') {
            Some((stem, ext)) if !stem.is_empty() => format!("{stem}.{}.{ext}", self.tag()),
            _ => format!("{name}.{}", self.tag()),
        };
        path.with_file_name(tagged)
    }
}

/// Games per unit of the shard split: one, or with `-repeat` the colour-swapped pair.
fn unit_of(schedule: &Schedule) -> u64 {
    schedule.shard_unit()
}

/// A seed all shards of one scheduler job agree on without talking: derived from the job's id.
pub fn job_seed(job_id: &str) -> u64 {
    // SHA-256: stable across machines and builds (std's hasher is not promised to be).
    use sha2::Digest;
    let d = sha2::Sha256::digest(job_id.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&d[..8]);
    u64::from_le_bytes(first).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::{Repeat, TournamentKind};

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: std::collections::HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn parse_and_environment() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "2", "a/b", "2/0"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_MIN", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert_eq!(
            Shard::from_env(slurm),
            Ok(Some(Shard { index: 3, count: 4 }))
        );
        let k8s = env(&[("JOB_COMPLETION_INDEX", "0"), (K8S_COUNT_VAR, "3")]);
        assert_eq!(Shard::from_env(k8s), Ok(Some(Shard { index: 1, count: 3 })));
        assert_eq!(Shard::from_env(env(&[])), Ok(None));
        let off = env(&[
            ("SLURM_ARRAY_TASK_ID", "9"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(Shard::from_env(off).is_err());
    }

    #[test]
    fn shards_partition_the_schedule_and_never_split_pairs() {
        for (engines, kind, games, rounds, repeat) in [
            (2, TournamentKind::RoundRobin, 7, 3, Repeat::Twice),
            (4, TournamentKind::RoundRobin, 3, 2, Repeat::Once),
            (4, TournamentKind::Gauntlet, 4, 1, Repeat::Twice),
        ] {
            let s = Schedule::new(engines, kind, games, rounds, repeat);
            for n in 1..=5 {
                let mut seen = vec![0; s.total_games() as usize];
                for k in 1..=n {
                    let shard = Shard { index: k, count: n };
                    for g in (1..=s.total_games()).map(GameId) {
                        if shard.owns(&s, g) {
                            seen[(g.0 - 1) as usize] += 1;
                            if repeat == Repeat::Twice {
                                // The other game of the pair is the same shard's.
                                let other = if g.0 % 2 == 1 { g.0 + 1 } else { g.0 - 1 };
                                if other <= s.total_games() {
                                    assert!(shard.owns(&s, GameId(other)));
                                }
                            }
                        }
                    }
                }
                assert!(seen.iter().all(|&c| c == 1), "{n} shards: {seen:?}");
            }
        }
    }

    #[test]
    fn file_names_carry_the_shard() {
        let s = Shard { index: 2, count: 4 };
        assert_eq!(
            s.output_name(Path::new("out/games.pgn")),
            PathBuf::from("out/games.shard-2-of-4.pgn")
        );
        assert_eq!(
            s.output_name(Path::new("s.bin.lz4")),
            PathBuf::from("s.shard-2-of-4.bin.lz4")
        );
        assert_eq!(
            s.journal_in(Path::new("run")),
            PathBuf::from("run/shard-2-of-4.journal.jsonl")
        );
        assert_eq!(job_seed("123"), job_seed("123"));
        assert_ne!(job_seed("123"), job_seed("124"));
    }
}
