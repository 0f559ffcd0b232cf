//! What an engine left running once it exited: processes still in its process group, and
//! those that escaped the group (`setsid`, a double fork) to run on as daemons. `check` makes
//! itself the child subreaper ([`Subreaper`]) so that such orphans are reparented to it rather
//! than to init, where nothing could tell them from the machine's other processes; then every
//! child of the check that is not a live engine, every member of the engine's group, and their
//! descendants are found in `/proc`, killed and reaped ([`sweep`]). Selection is pure and tested
//! on fixed tables.

use std::collections::BTreeSet;
use std::io;
use std::time::Duration;

/// How many rounds of find-and-kill a sweep makes at most: a leftover may fork between the
/// scan and its SIGKILL, and its child is found in the next round.
const SWEEP_ROUNDS: usize = 10;
/// Between two rounds: the time for a killed process to become a zombie that can be reaped.
const ROUND_PAUSE: Duration = Duration::from_millis(20);
/// A leftover's command line is cut to this many characters in the report.
const CMD_CHARS: usize = 80;

/// This process as the child subreaper (Linux `PR_SET_CHILD_SUBREAPER`) while the value lives;
/// the previous setting is restored when it is dropped.
#[derive(Debug)]
pub struct Subreaper {
    previous: libc::c_ulong,
}

impl Subreaper {
    /// Orphans of this process's descendants are reparented to it from now on.
    pub fn set() -> io::Result<Subreaper> {
        let mut previous: libc::c_int = 0;
        // SAFETY: prctl(2) reads or sets a flag of this process; GET writes one int we own.
        unsafe {
            if libc::prctl(
                libc::PR_GET_CHILD_SUBREAPER,
                &mut previous as *mut libc::c_int,
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
            if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(Subreaper {
            previous: previous as libc::c_ulong,
        })
    }
}

impl Drop for Subreaper {
    fn drop(&mut self) {
        // SAFETY: as in `set`.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, self.previous) };
    }
}

/// The fields of one `/proc/PID/stat` line a sweep needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcEntry {
    pub pid: u32,
    pub ppid: u32,
    pub pgrp: i32,
    /// Dead, waiting to be reaped (state `Z`, or `X`).
    pub zombie: bool,
}

/// Parses `pid (comm) state ppid pgrp ...`; the name may hold spaces and parentheses, so the
/// fields are counted after its last `)`.
pub fn parse_stat_ids(text: &str) -> Option<ProcEntry> {
    let (head, rest) = text.rsplit_once(')')?;
    let pid = head.split_whitespace().next()?.parse().ok()?;
    let mut f = rest.split_whitespace();
    let state = f.next()?;
    Some(ProcEntry {
        pid,
        ppid: f.next()?.parse().ok()?,
        pgrp: f.next()?.parse().ok()?,
        zombie: matches!(state, "Z" | "X"),
    })
}

/// The pids a sweep takes: children of `me` (orphans reparented to it) and members of group
/// `pgid`, except `me` and `spare` (live engines), with all their descendants.
pub fn select(table: &[ProcEntry], me: u32, pgid: Option<i32>, spare: &[u32]) -> BTreeSet<u32> {
    let mut taken: BTreeSet<u32> = table
        .iter()
        .filter(|e| e.pid != me && !spare.contains(&e.pid))
        .filter(|e| e.ppid == me || Some(e.pgrp) == pgid)
        .map(|e| e.pid)
        .collect();
    loop {
        let before = taken.len();
        for e in table {
            if taken.contains(&e.ppid) && !spare.contains(&e.pid) {
                taken.insert(e.pid);
            }
        }
        if taken.len() == before {
            return taken;
        }
    }
}

/// Wine's server and services, adopted while a command runs engines of Gomocup packages
/// through Wine (`EngineSpec::package`'s launcher): they leave the engines' process groups by
/// design and live on for seconds after the last Wine program, so the command becomes their
/// child subreaper while it runs, and [`WineAdopter::end`] kills and reaps them. Nothing is
/// adopted when no engine runs under Wine.
#[derive(Debug)]
pub struct WineAdopter(Option<Subreaper>);

impl WineAdopter {
    /// Adopts orphans from now on if one of `engines` runs under Wine.
    pub fn for_engines<'a>(
        engines: impl IntoIterator<Item = &'a crate::engine::spec::EngineSpec>,
    ) -> WineAdopter {
        let wine =
            (engines.into_iter()).any(|e| e.package.as_ref().is_some_and(|p| p.launcher.is_some()));
        WineAdopter(wine.then(Subreaper::set).and_then(Result::ok))
    }

    /// Kills and reaps what was adopted (call it once every engine has ended).
    pub async fn end(self) {
        if self.0.is_some() {
            sweep(None, &[]).await;
        }
    }
}

/// A process found running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    pub pid: u32,
    /// Its command line (`/proc/PID/cmdline`, arguments joined by spaces), cut.
    pub cmd: String,
    /// Whether it was still in the engine's process group (else it escaped it).
    pub in_group: bool,
}

impl std::fmt::Display for Leftover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let place = if self.in_group {
            "in its process group"
        } else {
            "escaped its process group"
        };
        write!(f, "pid {} `{}` ({place})", self.pid, self.cmd)
    }
}

/// Every process of the machine, as far as `/proc` can be read.
fn process_table() -> Vec<ProcEntry> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter(|d| {
            d.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|d| std::fs::read_to_string(d.path().join("stat")).ok())
        .filter_map(|text| parse_stat_ids(&text))
        .collect()
}

/// The command line of `pid`, arguments joined by spaces; its name when it has none.
fn command_line(pid: u32) -> String {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let args: Vec<String> = raw
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let text = if args.is_empty() {
        std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default()
    } else {
        args.join(" ")
    };
    text.trim().chars().take(CMD_CHARS).collect()
}

/// Finds what an engine of process group `pgid` left running (see the module), kills it with
/// SIGKILL and reaps what was reparented to this process, until nothing is left; `spare` are
/// the pids of live engines (and of an ended engine's leader, reaped by its session). Returns
/// the live processes found, in pid order.
pub async fn sweep(pgid: Option<i32>, spare: &[u32]) -> Vec<Leftover> {
    let me = std::process::id();
    let mut found: Vec<Leftover> = Vec::new();
    for _ in 0..SWEEP_ROUNDS {
        let table = process_table();
        let taken = select(&table, me, pgid, spare);
        if taken.is_empty() {
            break;
        }
        for e in table.iter().filter(|e| taken.contains(&e.pid)) {
            if !e.zombie && found.iter().all(|l| l.pid != e.pid) {
                found.push(Leftover {
                    pid: e.pid,
                    cmd: command_line(e.pid),
                    in_group: Some(e.pgrp) == pgid,
                });
            }
            // SAFETY: kill(2) on a process found above; one that is gone gives ESRCH.
            unsafe { libc::kill(e.pid as libc::pid_t, libc::SIGKILL) };
        }
        tokio::time::sleep(ROUND_PAUSE).await;
        for e in table.iter().filter(|e| taken.contains(&e.pid)) {
            // Only this process's children can be reaped; the others are reparented to it as
            // their parents die, and reaped in a later round.
            // SAFETY: waitpid(2) on a child of ours, without blocking.
            unsafe { libc::waitpid(e.pid as libc::pid_t, std::ptr::null_mut(), libc::WNOHANG) };
        }
    }
    found.sort_by_key(|l| l.pid);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(pid: u32, ppid: u32, pgrp: i32) -> ProcEntry {
        ProcEntry {
            pid,
            ppid,
            pgrp,
            zombie: false,
        }
    }

    #[test]
    fn stat_ids_are_read_after_the_name() {
        let e = parse_stat_ids("4242 (a (b) c) S 17 4200 4200 0 -1 4194560 ...").unwrap();
        assert_eq!(e, entry(4242, 17, 4200));
        let z = parse_stat_ids("7 (sleep) Z 1 7 7").unwrap();
        assert!(z.zombie);
        assert_eq!(parse_stat_ids("garbage"), None);
        assert_eq!(parse_stat_ids("1 (x) S"), None);
    }

    #[test]
    fn orphans_group_members_and_their_descendants_are_taken_live_engines_spared() {
        let me = 100;
        let table = [
            entry(1, 0, 1),
            entry(me, 1, me as i32),
            // A live engine (spared) and its helper thread-process in its group.
            entry(200, me, 200),
            entry(201, 200, 200),
            // The ended engine's child, reparented to us, still in group 300.
            entry(301, me, 300),
            // In group 300, its parent (not us) alive.
            entry(302, 301, 300),
            // A daemon that escaped (setsid) and its own child.
            entry(400, me, 400),
            entry(401, 400, 400),
            // Someone else's.
            entry(500, 1, 500),
        ];
        let taken = select(&table, me, Some(300), &[200]);
        assert_eq!(taken.into_iter().collect::<Vec<_>>(), [301, 302, 400, 401]);
        // Without a group, the orphans only; nothing at all on a quiet machine.
        let taken = select(&table[..6], me, None, &[200]);
        assert_eq!(taken.into_iter().collect::<Vec<_>>(), [301, 302]);
        assert!(select(&table[..4], me, Some(300), &[200]).is_empty());
    }

    #[test]
    fn leftovers_say_where_they_ran() {
        let l = Leftover {
            pid: 9,
            cmd: "sleep 1000".into(),
            in_group: false,
        };
        assert_eq!(
            l.to_string(),
            "pid 9 `sleep 1000` (escaped its process group)"
        );
    }
}
