//! What an engine's processes use, read from Linux's `/proc`: CPU time (user + system, reaped
//! children included) and resident memory of the engine's process and every process it started
//! (followed through `/proc/PID/task/TID/children`, a few reads for a typical engine rather than
//! a scan of every process on the machine). Parsing is pure and tested on fixed texts.

use std::time::Duration;

/// Resources of one engine's processes at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// CPU time consumed so far, user + system, of live processes and the children they reaped.
    pub cpu: Duration,
    /// Resident memory now, bytes.
    pub rss: u64,
}

/// The fields of `/proc/PID/stat` we use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// utime + stime + cutime + cstime, clock ticks.
    pub cpu_ticks: u64,
    /// Resident set, pages.
    pub rss_pages: u64,
}

/// Parse `/proc/PID/stat`. The command name (field 2) is in parentheses and may hold spaces and
/// parentheses, so the fields are counted after its last `)`.
pub fn parse_stat(text: &str) -> Option<ProcStat> {
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest starts at field 3 (state): field k is f[k - 3].
    let num = |k: usize| f.get(k - 3)?.parse::<i64>().ok();
    let ticks = [14, 15, 16, 17]
        .iter()
        .map(|&k| num(k).map(|v| v.max(0) as u64))
        .sum::<Option<u64>>()?;
    Some(ProcStat {
        cpu_ticks: ticks,
        rss_pages: num(24)?.max(0) as u64,
    })
}

/// Child pids listed in a `children` file (space-separated).
pub fn parse_children(text: &str) -> impl Iterator<Item = u32> + '_ {
    text.split_whitespace().filter_map(|p| p.parse().ok())
}

fn clock_ticks_per_second() -> u64 {
    // SAFETY: sysconf has no memory-safety requirements.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as u64
    } else {
        100
    }
}

fn page_size() -> u64 {
    // SAFETY: as above.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as u64
    } else {
        4096
    }
}

/// The usage of process `pid` and all its descendants; zero for a process that is gone (or
/// where `/proc` cannot be read).
pub fn tree_usage(pid: u32) -> Usage {
    let mut ticks = 0u64;
    let mut pages = 0u64;
    let mut todo = vec![pid];
    let mut seen = 0usize;
    while let Some(p) = todo.pop() {
        seen += 1;
        // A fork bomb must not make the runner loop for ever.
        if seen > 4096 {
            break;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
            continue;
        };
        if let Some(s) = parse_stat(&stat) {
            ticks += s.cpu_ticks;
            pages += s.rss_pages;
        }
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else {
            continue;
        };
        for t in tasks.flatten() {
            if let Ok(c) = std::fs::read_to_string(t.path().join("children")) {
                todo.extend(parse_children(&c));
            }
        }
    }
    let hz = clock_ticks_per_second();
    Usage {
        cpu: Duration::from_millis(ticks * 1000 / hz),
        rss: pages * page_size(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_after_the_name() {
        // A name with spaces and parentheses; utime 250, stime 50, cutime 7, cstime 3, rss 1234.
        let text = "4242 (my (odd) engine) S 1 4242 4242 0 -1 4194560 300 0 0 0 250 50 7 3 20 0 4 0 123 456789 1234 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
        assert_eq!(
            parse_stat(text),
            Some(ProcStat {
                cpu_ticks: 310,
                rss_pages: 1234
            })
        );
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("1 (x) S 1 2"), None);
        assert_eq!(parse_children("12 13 \n").collect::<Vec<_>>(), vec![12, 13]);
    }

    #[test]
    fn this_process_uses_cpu_and_memory() {
        let me = std::process::id();
        let before = tree_usage(me);
        assert!(before.rss > 1 << 20, "{before:?}");
        // Burn CPU until the counter moves (ticks are coarse; a loaded machine gives us little).
        let t = std::time::Instant::now();
        let mut x = 0u64;
        let mut after = before;
        while after.cpu == before.cpu && t.elapsed() < Duration::from_secs(60) {
            for _ in 0..1_000_000 {
                x = x.wrapping_mul(31).wrapping_add(7);
            }
            after = tree_usage(me);
        }
        std::hint::black_box(x);
        assert!(after.cpu > before.cpu, "{before:?} {after:?}");
        assert_eq!(tree_usage(u32::MAX), Usage::default());
    }
}
