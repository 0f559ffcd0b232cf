//! What an engine's processes use, read from Linux's `/proc`: CPU time (user + system, reaped
//! children included) and memory of the engine's process and every process it started
//! (followed through `/proc/PID/task/TID/children`, a few reads for a typical engine rather than
//! a scan of every process on the machine). Parsing is pure and tested on fixed texts.
//!
//! Memory is judged on the tree's summed proportional set size (PSS, `/proc/PID/smaps_rollup`):
//! each resident page counts once, split between the processes that map it. Resident memory
//! (RSS) counts a page once per process that maps it, so an engine that forks helpers sharing
//! its pages (copy-on-write) was charged for them once per helper: 200 helpers read 1179 MiB
//! for a footprint of 151 MiB. The unique set size (USS, pages mapped by one process only) is
//! what Gomocup's judge sums on Windows, where an engine's processes share no written pages;
//! on Linux it would not count a page shared within the tree at all (an engine could fork and
//! hide its hash table from the limit), while the summed PSS counts it exactly once. Both are
//! shown by `check`.
//!
//! The runner reads this once per engine and game (and while a move is long), so a read is kept
//! to the fewest system calls: each file is opened, read once into a stack buffer and closed
//! (no `statx` for a size hint, no second read to see the end: a short read of a `/proc` file is
//! its end), and a single-threaded process's children are read from its one task without
//! listing the task directory. `smaps_rollup` is dear (the kernel walks the process's page
//! tables: 0.05 ms for a 2 MiB engine, 5 to 10 ms for 350 MiB, 15 to 18 ms for 1 GiB, against
//! 4 µs for `stat`, on a loaded 2-core machine), so a [`ProcWatch`] reads it at most once per hundred times its last cost (at most
//! 1% of the runner's time) and in between adds the growth of the cheap resident figure.

use std::time::{Duration, Instant};

/// Resources of one engine's processes at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// CPU time consumed so far, user + system, of live processes and the children they reaped.
    pub cpu: Duration,
    /// Resident memory now, summed over the processes, bytes: a page shared by several of them
    /// counts once for each.
    pub rss: u64,
    /// The summed PSS and USS, where read (`None`: not asked for, or `smaps_rollup` of the
    /// engine's own process cannot be read).
    pub footprint: Option<Footprint>,
}

/// Memory of a process tree as `smaps_rollup` tells it, bytes. A process whose `smaps_rollup`
/// cannot be read (gone meanwhile, or not ours to read) counts its resident memory in both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Proportional set size: each page divided between the processes that map it.
    pub pss: u64,
    /// Unique set size: pages mapped by one process only (`Private_Clean + Private_Dirty`).
    pub uss: u64,
}

/// The fields of `/proc/PID/smaps_rollup` we use, bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rollup {
    pub rss: u64,
    pub pss: u64,
    pub uss: u64,
}

/// Parse `/proc/PID/smaps_rollup` (a header line, then `Name:  N kB` lines).
pub fn parse_smaps_rollup(text: &str) -> Option<Rollup> {
    let (mut rss, mut pss, mut clean, mut dirty) = (None, None, None, None);
    for line in text.lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let slot = match name {
            "Rss" => &mut rss,
            "Pss" => &mut pss,
            "Private_Clean" => &mut clean,
            "Private_Dirty" => &mut dirty,
            _ => continue,
        };
        let kb = value
            .trim()
            .strip_suffix("kB")?
            .trim()
            .parse::<u64>()
            .ok()?;
        *slot = Some(kb.saturating_mul(1024));
    }
    Some(Rollup {
        rss: rss?,
        pss: pss?,
        uss: clean?.saturating_add(dirty?),
    })
}

/// What a memory limit is judged on, and which figure it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Memory {
    pub bytes: u64,
    /// `false` where `smaps_rollup` cannot be read: `bytes` is then the summed resident memory.
    pub pss: bool,
    /// `bytes` is the last reading of the PSS plus the growth of the resident memory since, not
    /// a reading of its own (see [`ProcWatch::sample`]).
    pub estimated: bool,
}

/// The fields of `/proc/PID/stat` we use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// utime + stime + cutime + cstime, clock ticks.
    pub cpu_ticks: u64,
    /// Resident set, pages.
    pub rss_pages: u64,
    /// Threads of the process (its tasks under `/proc/PID/task`).
    pub threads: u64,
}

/// Parse `/proc/PID/stat`. The command name (field 2) is in parentheses and may hold spaces and
/// parentheses, so the fields are counted after its last `)`.
pub fn parse_stat(text: &str) -> Option<ProcStat> {
    let rest = &text[text.rfind(')')? + 1..];
    // rest starts at field 3 (state): field k is the (k - 3)th. Fields 14-17 are the CPU
    // times, 20 the threads, 24 the resident set; read in one pass without collecting.
    let mut f = rest.split_whitespace().skip(14 - 3);
    let mut next = |skip: usize| -> Option<u64> {
        let v = f.nth(skip)?.parse::<i64>().ok()?;
        Some(v.max(0) as u64)
    };
    let ticks = next(0)? + next(0)? + next(0)? + next(0)?;
    let threads = next(2)?;
    let rss_pages = next(3)?;
    Some(ProcStat {
        cpu_ticks: ticks,
        rss_pages,
        threads,
    })
}

/// Child pids listed in a `children` file (space-separated).
pub fn parse_children(text: &str) -> impl Iterator<Item = u32> + '_ {
    text.split_whitespace().filter_map(|p| p.parse().ok())
}

/// The system setting `name` (`sysconf`), or `fallback` where it is not known.
fn sysconf_or(name: libc::c_int, fallback: u64) -> u64 {
    // SAFETY: sysconf has no memory-safety requirements.
    let v = unsafe { libc::sysconf(name) };
    if v > 0 {
        v as u64
    } else {
        fallback
    }
}

fn clock_ticks_per_second() -> u64 {
    sysconf_or(libc::_SC_CLK_TCK, 100)
}

fn page_size() -> u64 {
    sysconf_or(libc::_SC_PAGESIZE, 4096)
}

/// How often a [`ProcWatch`] may read `smaps_rollup`: no sooner after a reading than this many
/// times what that reading cost (at most 1% of the runner's time goes to it), and than
/// [`ROLLUP_GAP`].
const ROLLUP_SPACING: u32 = 100;

/// The least time between two readings of `smaps_rollup` by one [`ProcWatch`]. Fast engines end
/// games every few milliseconds, and each game's end samples them: read each time, a small
/// engine's 50 µs a reading were a tenth of the runner's CPU per game at 64 slots. A sample over
/// the memory limit is read afresh before it is believed ([`ProcWatch::sample_exact`]).
const ROLLUP_GAP: Duration = Duration::from_secs(1);

/// The usage of process `pid` and all its descendants, memory as PSS and USS too (every
/// process's `smaps_rollup` read: for `check`, not a match's per-move path); zero for a process
/// that is gone (or where `/proc` cannot be read).
pub fn tree_usage(pid: u32) -> Usage {
    usage_from(pid, None, true)
}

/// The `/proc` files of one engine's leader, kept open: each reading is then one `pread` per
/// file instead of an open, a read and a close (measured: 5.7 against 17 µs for the two files).
/// A descriptor stays bound to its process, so a reused pid is never read by mistake: once the
/// process is gone its reads fail and it counts as zero, as [`tree_usage`] does.
#[derive(Debug)]
pub struct ProcWatch {
    pid: u32,
    stat: Option<std::fs::File>,
    /// The children of its main task (all of them while it has one thread).
    children: Option<std::fs::File>,
    /// Its `smaps_rollup`; `None` where it cannot be opened (a kernel before 4.14, or not ours
    /// to read): memory is then resident memory.
    rollup: Option<std::fs::File>,
    /// The last reading of the tree's PSS.
    last: Option<Reading>,
}

/// One reading of `smaps_rollup` over the tree.
#[derive(Debug, Clone, Copy)]
struct Reading {
    at: Instant,
    cost: Duration,
    pss: u64,
    /// The summed resident memory read with it.
    rss: u64,
}

impl ProcWatch {
    /// Opens the files of `pid` (three descriptors while the watch lives).
    pub fn open(pid: u32) -> Self {
        let open = |name: String| std::fs::File::open(name).ok();
        let rollup = match std::fs::File::open(format!("/proc/{pid}/smaps_rollup")) {
            Ok(f) => Some(f),
            Err(e) => {
                // Said once per engine process: the limit then over-counts shared pages.
                if std::path::Path::new(&format!("/proc/{pid}")).exists() {
                    tracing::warn!(
                        "/proc/{pid}/smaps_rollup cannot be read ({e}): the engine's memory is \
                         judged on resident memory, which counts pages its processes share once \
                         per process"
                    );
                }
                None
            }
        };
        ProcWatch {
            pid,
            stat: open(format!("/proc/{pid}/stat")),
            children: open(format!("/proc/{pid}/task/{pid}/children")),
            rollup,
            last: None,
        }
    }

    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// CPU time and resident memory of the process and its descendants, its own files read
    /// through the open descriptors (no `smaps_rollup`).
    pub fn usage(&self) -> Usage {
        usage_from(self.pid, Some(self), false)
    }

    /// [`usage`](Self::usage), and the memory the tree takes: its summed PSS when a reading of
    /// `smaps_rollup` is due (at most 1% of the time, see [`ROLLUP_SPACING`]), else the last
    /// one plus what the resident memory grew since (an allocation shows in both alike; pages
    /// shared within the tree that a process writes show at the next reading). Resident memory
    /// where `smaps_rollup` cannot be read.
    pub fn sample(&mut self) -> (Usage, Memory) {
        self.sample_when(false)
    }

    /// [`sample`](Self::sample) with `smaps_rollup` read now, due or not (where it can be
    /// read): before an engine is killed for its memory, the figure is a reading, not an
    /// estimate.
    pub fn sample_exact(&mut self) -> (Usage, Memory) {
        self.sample_when(true)
    }

    fn sample_when(&mut self, force: bool) -> (Usage, Memory) {
        let now = Instant::now();
        let due = self.rollup.is_some()
            && (force
                || self.last.is_none_or(|r| {
                    now.saturating_duration_since(r.at)
                        >= r.cost.saturating_mul(ROLLUP_SPACING).max(ROLLUP_GAP)
                }));
        let usage = usage_from(self.pid, Some(self), due);
        let memory = match (usage.footprint, self.last) {
            (Some(f), _) => {
                self.last = Some(Reading {
                    at: now,
                    cost: now.elapsed(),
                    pss: f.pss,
                    rss: usage.rss,
                });
                Memory {
                    bytes: f.pss,
                    pss: true,
                    estimated: false,
                }
            }
            (None, Some(r)) if usage.rss > 0 => Memory {
                bytes: r.pss.saturating_add(usage.rss.saturating_sub(r.rss)),
                pss: true,
                estimated: true,
            },
            _ => Memory {
                bytes: usage.rss,
                pss: false,
                estimated: false,
            },
        };
        (usage, memory)
    }
}

/// [`tree_usage`], reading the root's files through `watch` when given, and every process's
/// `smaps_rollup` when `rollup`.
fn usage_from(pid: u32, watch: Option<&ProcWatch>, rollup: bool) -> Usage {
    let mut ticks = 0u64;
    let mut pages = 0u64;
    let mut footprint = Footprint::default();
    let mut todo = vec![pid];
    let mut seen = 0usize;
    let mut buf = [0u8; 4096];
    let mut path = String::with_capacity(48);
    while let Some(p) = todo.pop() {
        seen += 1;
        // A fork bomb must not make the runner loop for ever.
        if seen > 4096 {
            break;
        }
        let root = watch.filter(|w| w.pid == p);
        let stat = match root {
            Some(w) => read_open(w.stat.as_ref(), &mut buf),
            None => read_proc(&mut path, format_args!("/proc/{p}/stat"), &mut buf),
        };
        let Some(stat) = stat.and_then(|text| parse_stat(&String::from_utf8_lossy(text))) else {
            continue;
        };
        ticks += stat.cpu_ticks;
        pages += stat.rss_pages;
        if rollup {
            let text = match root {
                Some(w) => read_open(w.rollup.as_ref(), &mut buf),
                None => read_proc(&mut path, format_args!("/proc/{p}/smaps_rollup"), &mut buf),
            };
            match text.and_then(|t| parse_smaps_rollup(&String::from_utf8_lossy(t))) {
                Some(r) => {
                    footprint.pss += r.pss;
                    footprint.uss += r.uss;
                }
                None if p == pid => return usage_from(pid, watch, false),
                None => {
                    // Gone since its stat was read, or not ours to read: counted in full.
                    let rss = stat.rss_pages * page_size();
                    footprint.pss += rss;
                    footprint.uss += rss;
                }
            }
        }
        if stat.threads == 1 {
            // The common case: the leader is the only task, whose id is the process's.
            let children = match root {
                Some(w) => read_open(w.children.as_ref(), &mut buf),
                None => read_proc(
                    &mut path,
                    format_args!("/proc/{p}/task/{p}/children"),
                    &mut buf,
                ),
            };
            if let Some(c) = children {
                todo.extend(parse_children(&String::from_utf8_lossy(c)));
            }
            continue;
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
        footprint: (rollup && pages > 0).then_some(footprint),
    }
}

/// The text of an open `/proc` file, read again from its start (one `pread`), or `None` as
/// [`read_proc`] gives it.
fn read_open<'b>(file: Option<&std::fs::File>, buf: &'b mut [u8]) -> Option<&'b [u8]> {
    use std::os::unix::fs::FileExt as _;
    let n = file?.read_at(buf, 0).ok()?;
    (n < buf.len()).then(|| &buf[..n])
}

/// The text of a small `/proc` file in three system calls (open, one read, close), or `None`
/// when it cannot be read or does not fit in `buf` (a stat line is about 300 bytes; children
/// beyond a few hundred are not followed, as a fork bomb's would not be).
fn read_proc<'b>(
    path: &mut String,
    name: std::fmt::Arguments<'_>,
    buf: &'b mut [u8],
) -> Option<&'b [u8]> {
    use std::fmt::Write as _;
    use std::io::Read as _;
    path.clear();
    path.write_fmt(name).ok()?;
    let mut file = std::fs::File::open(&*path).ok()?;
    // A `/proc` file is generated whole on each read: a read that does not fill the buffer
    // returned all of it.
    let n = file.read(buf).ok()?;
    (n < buf.len()).then(|| &buf[..n])
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
                rss_pages: 1234,
                threads: 4
            })
        );
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("1 (x) S 1 2"), None);
        assert_eq!(parse_children("12 13 \n").collect::<Vec<_>>(), vec![12, 13]);
    }

    #[test]
    fn smaps_rollup_gives_rss_pss_and_private_pages() {
        let text =
            "556d61dfa000-7fff04f23000 ---p 00000000 00:00 0                          [rollup]
Rss:                1688 kB
Pss:                 229 kB
Pss_Dirty:           112 kB
Shared_Clean:       1540 kB
Shared_Dirty:          0 kB
Private_Clean:        36 kB
Private_Dirty:       112 kB
Swap:                  0 kB
";
        assert_eq!(
            parse_smaps_rollup(text),
            Some(Rollup {
                rss: 1688 << 10,
                pss: 229 << 10,
                uss: 148 << 10
            })
        );
        assert_eq!(parse_smaps_rollup("Rss: 1 kB\nPss: 1 kB\n"), None);
        assert_eq!(
            parse_smaps_rollup("Rss: x kB\nPss: 1 kB\nPrivate_Clean: 0 kB\nPrivate_Dirty: 0 kB"),
            None
        );
    }

    #[test]
    fn pages_shared_by_forked_processes_count_once_in_the_footprint() {
        // sh forks two subshells (copies of sh sharing its pages) that sleep as shells: summed
        // resident memory counts sh's pages three times, PSS once.
        let mut sh = std::process::Command::new("sh")
            .args([
                "-c",
                "(while :; do sleep 1; done) & (while :; do sleep 1; done) & wait",
            ])
            .spawn()
            .unwrap();
        let pid = sh.id();
        let t = std::time::Instant::now();
        let mut tree = tree_usage(pid);
        while (tree.rss == 0
            || parse_children(
                &std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
                    .unwrap_or_default(),
            )
            .count()
                < 2)
            && t.elapsed() < Duration::from_secs(60)
        {
            std::thread::sleep(Duration::from_millis(10));
            tree = tree_usage(pid);
        }
        let mut watch = ProcWatch::open(pid);
        let (usage, memory) = watch.sample();
        // The subshells first (sh is in our own process group, so the tree is killed one by one).
        let kids: Vec<u32> = parse_children(
            &std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
                .unwrap_or_default(),
        )
        .collect();
        for k in kids {
            // SAFETY: signalling processes we started.
            unsafe { libc::kill(k as i32, libc::SIGKILL) };
        }
        sh.kill().unwrap();
        sh.wait().unwrap();
        let f = tree.footprint.expect("smaps_rollup readable");
        assert!(f.uss <= f.pss && f.pss < tree.rss, "{tree:?}");
        assert!(
            memory.pss && memory.bytes < usage.rss,
            "{memory:?} {usage:?}"
        );
        // Read once: the next sample within 100 times its cost estimates from the RSS instead.
        assert!(watch.last.is_some());
    }

    #[test]
    fn readings_are_a_gap_apart_and_an_exact_sample_reads_now() {
        let mut watch = ProcWatch::open(std::process::id());
        if watch.rollup.is_none() {
            eprintln!("smaps_rollup cannot be read here: nothing to check");
            return;
        }
        let (_, first) = watch.sample();
        assert!(first.pss && !first.estimated, "{first:?}");
        // Far more than 100 times a reading of this small process, well within the gap.
        std::thread::sleep(Duration::from_millis(50));
        let (_, soon) = watch.sample();
        assert!(soon.pss && soon.estimated, "{soon:?}");
        let (_, exact) = watch.sample_exact();
        assert!(exact.pss && !exact.estimated, "{exact:?}");
    }

    #[test]
    fn a_single_threaded_process_s_children_are_counted() {
        // sh is single-threaded: its children are read from its one task, without listing
        // /proc/PID/task. The tree's memory is sh's and its two children's.
        let mut sh = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & sleep 30 & wait"])
            .spawn()
            .unwrap();
        let pid = sh.id();
        let children = format!("/proc/{pid}/task/{pid}/children");
        let t = std::time::Instant::now();
        // Both children counted once they run `sleep` (between fork and exec a child is a copy
        // of sh whose memory is being replaced).
        let sleeping = || {
            let kids = std::fs::read_to_string(&children).unwrap_or_default();
            parse_children(&kids)
                .filter(|k| {
                    std::fs::read(format!("/proc/{k}/cmdline"))
                        .is_ok_and(|c| c.starts_with(b"sleep\0"))
                })
                .count()
        };
        while sleeping() < 2 && t.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let own =
            parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap()).unwrap();
        assert_eq!(own.threads, 1);
        let tree = tree_usage(pid);
        // SAFETY: signalling the group of the children we started (sh's own group is ours).
        let kids: Vec<u32> = parse_children(&std::fs::read_to_string(&children).unwrap()).collect();
        for k in &kids {
            unsafe { libc::kill(*k as i32, libc::SIGKILL) };
        }
        sh.kill().unwrap();
        sh.wait().unwrap();
        assert_eq!(kids.len(), 2);
        assert!(
            tree.rss > own.rss_pages * page_size(),
            "{tree:?} vs sh alone {own:?}"
        );
    }

    #[test]
    fn a_watch_reads_its_process_through_open_files_until_it_is_gone() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let watch = ProcWatch::open(child.id());
        assert_eq!(watch.pid(), child.id());
        // A process just started may show no resident pages yet (the kernel folds its counters
        // in later): wait until it does.
        let t = std::time::Instant::now();
        while tree_usage(child.id()).rss == 0 && t.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let live = watch.usage();
        assert!(live.rss > 0, "{live:?}");
        // Read again from the start each time: the same process, the same kind of figure.
        assert!(watch.usage().rss > 0);
        child.kill().unwrap();
        child.wait().unwrap();
        // Reaped: its descriptors read nothing, whoever gets the pid next.
        assert_eq!(watch.usage(), Usage::default());
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
