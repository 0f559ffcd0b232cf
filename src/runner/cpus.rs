//! `-cpus`: the CPUs of each game slot, checked against those this process may run on (and
//! `auto` made from them) before anything starts, and the pinning of a slot's own thread.
//!
//! A game is a chain of round trips between the runner and one engine at a time. When the
//! runner's thread and the engines share the slot's CPUs, a move goes from one to the other on
//! the CPU that is already awake; otherwise each message wakes an idle CPU, which on a virtual
//! machine costs more than the move itself (BENCHMARKS §13).

use thiserror::Error;

use crate::config::matches::{share_cpus, SlotCpus};

/// `-cpus` that this process cannot honour.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum CpusError {
    /// `-cpus LIST` names CPUs this process may not run on (absent, offline, or outside its
    /// affinity): every engine start would fail (sched_setaffinity: EINVAL), every game would be
    /// lost as `failed_start`.
    #[error("-cpus: CPU {missing} cannot be used: this process may run on CPUs {allowed} only")]
    NotAllowed { missing: String, allowed: String },
    /// `-cpus auto` where the CPUs this process may run on are not known.
    #[error("-cpus auto: {0}")]
    Auto(String),
}

/// Each game slot's CPUs (empty: not pinned), from `-cpus` and the CPUs this process may run on
/// (`None` when they cannot be read).
pub fn slot_shares(
    cpus: &SlotCpus,
    slots: usize,
    allowed: Option<Vec<usize>>,
) -> Result<Vec<Vec<usize>>, CpusError> {
    match cpus {
        SlotCpus::Anywhere => Ok(Vec::new()),
        SlotCpus::Listed(shares) => {
            check_listed(shares, allowed)?;
            Ok(shares.clone())
        }
        SlotCpus::Auto => {
            let allowed = allowed.ok_or_else(|| {
                CpusError::Auto("the CPUs this process may run on cannot be read".into())
            })?;
            share_cpus(&allowed, slots).map_err(CpusError::Auto)
        }
    }
}

/// The CPUs this process may run on (its affinity mask), or `None` when it cannot be read.
pub fn allowed_cpus() -> Option<Vec<usize>> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity fills it and CPU_ISSET
    // reads it within its fixed size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) != 0 {
            return None;
        }
        let max = 8 * std::mem::size_of_val(&set);
        Some((0..max).filter(|&c| libc::CPU_ISSET(c, &set)).collect())
    }
}

/// Keep the calling thread on `cpus` (a slot's share; empty: leave it where it is).
pub fn pin_this_thread(cpus: &[usize]) -> std::io::Result<()> {
    let Some(set) = crate::engine::spawn::cpu_set(cpus) else {
        return Ok(());
    };
    // SAFETY: pid 0 is the calling thread; `set` is a valid cpu_set_t of the size given.
    match unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Where the slots of `shares` (one set of CPUs per slot) run, for the console: `4 game slots
/// on CPUs 0-1 (2 to a CPU)`. `None` when they are not pinned.
pub fn describe(shares: &[Vec<usize>]) -> Option<String> {
    let first = shares.first()?;
    let mut all: Vec<usize> = shares.iter().flatten().copied().collect();
    all.sort_unstable();
    all.dedup();
    let slots = match shares.len() {
        1 => "1 game slot".to_string(),
        n => format!("{n} game slots"),
    };
    let how = if shares.len() == 1 {
        String::new()
    } else if shares.len() > all.len() {
        let most = shares.len().div_ceil(all.len());
        match shares.len() % all.len() {
            0 => format!(" ({most} to a CPU)"),
            _ => format!(" (up to {most} to a CPU)"),
        }
    } else if first.len() == 1 {
        " (one each)".to_string()
    } else {
        format!(" ({} CPUs each)", first.len())
    };
    Some(format!("{slots} on CPUs {}{how}", cpu_ranges(&all)))
}

/// `0-3,8` for a sorted list of CPUs.
fn cpu_ranges(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        while i + 1 < cpus.len() && cpus[i + 1] == cpus[i] + 1 {
            i += 1;
        }
        parts.push(match cpus[i] {
            end if end == start => start.to_string(),
            end => format!("{start}-{end}"),
        });
        i += 1;
    }
    parts.join(",")
}

/// `-cpus LIST`: every CPU named must be one this process may use (nothing to check when that
/// is unknown).
fn check_listed(shares: &[Vec<usize>], allowed: Option<Vec<usize>>) -> Result<(), CpusError> {
    let Some(allowed) = allowed else {
        return Ok(());
    };
    let mut missing: Vec<usize> = shares
        .iter()
        .flatten()
        .copied()
        .filter(|c| !allowed.contains(c))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    missing.sort_unstable();
    Err(CpusError::NotAllowed {
        missing: cpu_ranges(&missing),
        allowed: cpu_ranges(&allowed),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpus_outside_the_affinity_are_refused_naming_the_usable_ones() {
        let two = Some(vec![0, 1]);
        let listed =
            |shares: &[&[usize]]| SlotCpus::Listed(shares.iter().map(|s| s.to_vec()).collect());
        assert_eq!(
            slot_shares(&listed(&[&[0], &[1]]), 2, two.clone()),
            Ok(vec![vec![0], vec![1]])
        );
        let e = slot_shares(&listed(&[&[5, 6], &[7]]), 2, two.clone()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "-cpus: CPU 5-7 cannot be used: this process may run on CPUs 0-1 only"
        );
        let e = slot_shares(&listed(&[&[1, 3]]), 1, Some(vec![0, 1, 2, 4, 6, 7])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "-cpus: CPU 3 cannot be used: this process may run on CPUs 0-2,4,6-7 only"
        );
        // Unknown affinity: nothing to check against.
        assert!(slot_shares(&listed(&[&[99]]), 1, None).is_ok());
        // This process can always use what it runs on.
        let mine = allowed_cpus().expect("sched_getaffinity works on Linux");
        assert!(slot_shares(&SlotCpus::Listed(vec![mine.clone()]), 1, Some(mine)).is_ok());
    }

    #[test]
    fn auto_shares_out_the_cpus_this_process_may_use() {
        let some = Some(vec![2, 3, 5, 8, 9]);
        assert_eq!(
            slot_shares(&SlotCpus::Auto, 2, some.clone()),
            Ok(vec![vec![2, 3], vec![5, 8]])
        );
        assert_eq!(
            slot_shares(&SlotCpus::Auto, 5, some.clone()),
            Ok(vec![vec![2], vec![3], vec![5], vec![8], vec![9]])
        );
        // More slots than CPUs: they take the CPUs in turn.
        assert_eq!(
            slot_shares(&SlotCpus::Auto, 6, some),
            Ok(vec![vec![2], vec![3], vec![5], vec![8], vec![9], vec![2]])
        );
        assert!(slot_shares(&SlotCpus::Auto, 1, None)
            .unwrap_err()
            .to_string()
            .contains("cannot be read"));
        assert_eq!(
            slot_shares(&SlotCpus::Anywhere, 8, Some(vec![0])),
            Ok(vec![])
        );
    }

    #[test]
    fn the_console_is_told_where_the_slots_run() {
        let sets = |s: &[&[usize]]| -> Vec<Vec<usize>> { s.iter().map(|c| c.to_vec()).collect() };
        assert_eq!(describe(&[]), None);
        assert_eq!(
            describe(&sets(&[&[0, 1]])).as_deref(),
            Some("1 game slot on CPUs 0-1")
        );
        assert_eq!(
            describe(&sets(&[&[0], &[1]])).as_deref(),
            Some("2 game slots on CPUs 0-1 (one each)")
        );
        assert_eq!(
            describe(&sets(&[&[0, 2], &[4, 6]])).as_deref(),
            Some("2 game slots on CPUs 0,2,4,6 (2 CPUs each)")
        );
        assert_eq!(
            describe(&sets(&[&[0], &[1], &[0], &[1]])).as_deref(),
            Some("4 game slots on CPUs 0-1 (2 to a CPU)")
        );
        assert_eq!(
            describe(&sets(&[&[0], &[1], &[0]])).as_deref(),
            Some("3 game slots on CPUs 0-1 (up to 2 to a CPU)")
        );
    }

    #[test]
    fn a_thread_pinned_to_a_cpu_stays_there() {
        let mine = allowed_cpus().expect("sched_getaffinity works on Linux");
        let last = *mine.last().unwrap();
        let seen = std::thread::spawn(move || {
            pin_this_thread(&[last]).unwrap();
            allowed_cpus()
        })
        .join()
        .unwrap();
        assert_eq!(seen, Some(vec![last]));
        // Only that thread: this one may still run anywhere it could.
        assert_eq!(allowed_cpus(), Some(mine));
        assert!(pin_this_thread(&[]).is_ok());
    }
}
