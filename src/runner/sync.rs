//! The cluster-wide SPRT of a sharded run, without a daemon: each shard reads the other shards'
//! journals in the run directory incrementally ([`Tail`]: from the byte offset it last read) and feeds
//! their games to its dispatcher; the shard whose SPRT decides writes a stop marker (write, then
//! rename: readers never see half a marker), and every shard polls for it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::analysis::tracker::{scored, ScoredGame};
use crate::formats::journal::{GameSummary, Item, Repeats, Seen, Tail};
use crate::schedule::shard::{Shard, StopMarker, STOP_MARKER};
use crate::stats::SprtCrossing;

/// One shard's view of the others.
pub struct ShardSync {
    rundir: PathBuf,
    shard: Shard,
    pairs: Vec<(usize, usize)>,
    /// Each other journal, read as it grows.
    tails: HashMap<PathBuf, Tail>,
    /// Games already fed (a resumed shard may repeat none, but a reader must not count twice).
    seen: Repeats,
}

impl ShardSync {
    pub fn new(rundir: &Path, shard: Shard, pairs: Vec<(usize, usize)>) -> ShardSync {
        ShardSync {
            rundir: rundir.to_path_buf(),
            shard,
            pairs,
            tails: HashMap::new(),
            seen: Repeats::default(),
        }
    }

    /// Whether a stop marker exists (cheap: one stat call).
    pub fn stopped(&self) -> bool {
        self.rundir.join(STOP_MARKER).exists()
    }

    /// The stop marker, if a shard wrote one.
    pub fn marker(&self) -> Option<StopMarker> {
        let text = std::fs::read_to_string(self.rundir.join(STOP_MARKER)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// The marker this shard would write for `c` (what it reports when it cannot write one).
    pub fn own_marker(&self, c: &SprtCrossing) -> StopMarker {
        StopMarker {
            verdict: c.verdict,
            llr: c.llr,
            games: c.games,
            game: c.game,
            shard: self.shard.to_string(),
            written: chrono::Utc::now().to_rfc3339(),
        }
    }

    /// Write the stop marker for `c` unless one is there, and return the marker in place: the
    /// run's verdict, which every shard reports. Two shards can decide at nearly the same time
    /// (each with its own, slightly late, view of the others); the first marker stays and the
    /// later shard adopts it.
    pub fn write_marker(&self, c: &SprtCrossing) -> std::io::Result<StopMarker> {
        let path = self.rundir.join(STOP_MARKER);
        let marker = self.own_marker(c);
        if !path.exists() {
            let tmp = self
                .rundir
                .join(format!(".{STOP_MARKER}.{}.tmp", self.shard.tag()));
            std::fs::write(&tmp, serde_json::to_string(&marker).unwrap_or_default())?;
            // A hard link creates the name only if it is free, atomically (also on NFS), so a
            // marker another shard wrote meanwhile is never replaced, as a rename would; where
            // the filesystem has no hard links, a rename (then the last of two racing shards
            // wins, and both read back the same marker below).
            let placed = match std::fs::hard_link(&tmp, &path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
                Err(_) => std::fs::rename(&tmp, &path),
            };
            let _ = std::fs::remove_file(&tmp);
            placed?;
        }
        Ok(self.marker().unwrap_or(marker))
    }

    /// The games the other shards finished since the last call.
    pub fn poll(&mut self) -> Vec<ScoredGame> {
        let own = self.shard.journal_in(&self.rundir);
        let Ok(dir) = std::fs::read_dir(&self.rundir) else {
            return vec![];
        };
        let suffix = format!("-of-{}.journal.jsonl", self.shard.count);
        let others: Vec<PathBuf> = dir
            .flatten()
            .map(|e| e.path())
            .filter(|p| *p != own && p.to_string_lossy().ends_with(&suffix))
            .collect();
        let mut games = Vec::new();
        for path in others {
            let tail = self
                .tails
                .entry(path.clone())
                .or_insert_with(|| Tail::new(path));
            // A bad line (a header, a line another tool wrote) is skipped: this shard only
            // counts the others' games; `merge` reads every line and names a bad one.
            for item in tail.read_new::<GameSummary>() {
                if let Ok(Item::Entry(e)) = item {
                    // Game numbers are disjoint between shards: a conflict is not a game of the run.
                    if self.seen.admit(e.game, e.result) == Ok(Seen::First) {
                        games.push(scored(&e, &self.pairs));
                    }
                }
            }
        }
        games
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::journal::{render_entry, JournalEntry};
    use crate::game::record::fixtures::sample_record;
    use crate::stats::Verdict;
    use std::io::Write;

    #[test]
    fn reads_other_shards_incrementally_and_only_whole_lines() {
        let dir = tempfile::tempdir().unwrap();
        let me = Shard { index: 1, count: 2 };
        let other = Shard { index: 2, count: 2 };
        let mut sync = ShardSync::new(dir.path(), me, vec![(0, 1)]);
        let line = |game: u64| {
            let mut e = JournalEntry::from_record(&sample_record(), "f");
            e.game = game;
            render_entry(&e)
        };
        std::fs::write(me.journal_in(dir.path()), line(1)).unwrap();
        let path = other.journal_in(dir.path());
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(b"{\"type\":\"header\"}\n").unwrap();
        f.write_all(line(2).as_bytes()).unwrap();
        let half = line(4);
        f.write_all(&half.as_bytes()[..20]).unwrap();
        let got: Vec<u64> = sync.poll().iter().map(|g| g.game).collect();
        assert_eq!(got, vec![2], "own journal and the half line are not read");
        f.write_all(&half.as_bytes()[20..]).unwrap();
        let got: Vec<u64> = sync.poll().iter().map(|g| g.game).collect();
        assert_eq!(got, vec![4]);
        assert!(sync.poll().is_empty());
        assert!(sync.marker().is_none());
        let c = SprtCrossing {
            verdict: Verdict::H0,
            llr: -3.0,
            games: 9,
            game: 4,
        };
        let written = sync.write_marker(&c).unwrap();
        assert_eq!((written.crossing(), written.shard.as_str()), (c, "1/2"));
        let theirs = ShardSync::new(dir.path(), other, vec![(0, 1)]);
        let m = theirs.marker().unwrap();
        assert_eq!(
            (m.verdict, m.games, m.shard.as_str()),
            (Verdict::H0, 9, "1/2")
        );
        // A shard deciding later keeps the first marker and gets it back: the run's verdict.
        let late = SprtCrossing {
            verdict: Verdict::H1,
            llr: 3.1,
            games: 12,
            game: 14,
        };
        assert_eq!(theirs.write_marker(&late).unwrap(), m);
        assert_eq!(theirs.marker().unwrap(), m);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}
