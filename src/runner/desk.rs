//! The desk: the dispatcher and the shell that carries out its actions behind one lock, where
//! a slot hands in its game and takes its next one on its own thread; and the run's watch, which
//! writes what the desk queues and feeds it Ctrl-C and the other shards' progress.

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{slot, Reply, Shell, Write, Writer};
use crate::game::record::GameRecord;
use crate::tournament::dispatcher::{Dispatcher, Event};

/// The dispatcher and its shell, shared by the slots: a slot hands in its game and takes its next
/// one on its own thread, in one short hold of the lock, as c-gomoku-cli's workers take theirs
/// from its job queue. A message to a dispatcher thread and its answer back put two cross-thread
/// wake-ups on every game's path, and on a machine whose cores all run games the woken thread
/// waits for a core (issue 37: 15–75 % of the wall time at 16 and 32 slots on 16 cores).
pub(super) struct Desk {
    pub(super) state: std::sync::Mutex<DeskState>,
    /// Ctrl-C or SIGTERM: fed to the dispatcher before any event that follows it.
    pub(super) abort: CancellationToken,
}

pub(super) struct DeskState {
    pub(super) d: Dispatcher,
    pub(super) shell: Shell,
    /// `Event::Interrupt` was fed.
    pub(super) interrupted: bool,
    /// Counts the events that may let a waiting slot start a game (all but `Ready`): a slot told
    /// to wait sleeps until it moves past the count it was told (`slot::Next::Wait`).
    pub(super) changes: tokio::sync::watch::Sender<u64>,
}

impl DeskState {
    /// `Event::Interrupt` once the run is aborted, before anything else: when slots abandon their
    /// games and end, that must not read as a completed run, nor may a slot get a new game.
    pub(super) fn catch_up(&mut self, abort: &CancellationToken) {
        if abort.is_cancelled() && !self.interrupted {
            self.interrupted = true;
            self.feed(Event::Interrupt);
        }
    }

    /// Feed one event and carry out its actions; the answer to a `Ready`.
    pub(super) fn feed(&mut self, event: Event) -> Reply {
        // A `Ready` frees no game: counting it would wake waiting slots only to wait again,
        // each waking the next.
        let ready = matches!(event, Event::Ready);
        let actions = self.d.on_event(event);
        let mut reply = None;
        self.shell.execute(&mut self.d, actions, &mut reply);
        if !ready {
            self.changed();
        }
        match reply {
            Some(slot::Next::Wait(_)) => Some(slot::Next::Wait(*self.changes.borrow())),
            other => other,
        }
    }

    fn changed(&self) {
        self.changes.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// The other shards' games and stop marker read in: waiting slots may now have games.
    pub(super) fn sync(&mut self) {
        let DeskState { d, shell, .. } = self;
        shell.sync(d);
        self.changed();
    }
}

impl Desk {
    /// The state, even after a panic of another holder (its dispatcher state is whole: every
    /// event is handled in one call).
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, DeskState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl slot::GameDesk for Desk {
    fn next_game(&self, finished: Option<Box<GameRecord>>) -> slot::Next {
        let mut s = self.lock();
        s.catch_up(&self.abort);
        if let Some(record) = finished {
            s.feed(Event::Finished(record));
        }
        // Before a game starts, a look for another shard's stop (one stat call), so a shard
        // starts no game after the marker is written.
        if s.shell.sync.as_ref().is_some_and(|sync| sync.stopped()) {
            s.sync();
        }
        s.feed(Event::Ready).unwrap_or(slot::Next::End)
    }

    fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.lock().changes.subscribe()
    }

    fn abandoned(&self, game: crate::schedule::GameId) {
        let mut s = self.lock();
        s.catch_up(&self.abort);
        s.feed(Event::Abandoned(game));
    }
}

/// How often the run's thread writes what the desk queued. No slot wakes it: at thousands of
/// games a second a wake-up across threads on every game's path waits for a core when every core
/// runs games (issue 37), as c-gomoku-cli's main thread also sleeps between its looks. A game's
/// journal line and console lines wait this long at most.
pub(super) const WRITE_EVERY: std::time::Duration = std::time::Duration::from_millis(10);

/// Write what the desk queues, every `WRITE_EVERY`; watch for Ctrl-C and the other shards'
/// progress, until every slot has ended (`ended` closed: its senders are the slots').
pub(super) async fn watch(
    desk: &Desk,
    writer: &mut Writer,
    writes: &std::sync::mpsc::Receiver<Write>,
    mut ended: mpsc::UnboundedReceiver<std::convert::Infallible>,
    sync_every: std::time::Duration,
) {
    use tokio::time::{interval, MissedTickBehavior};
    let mut interrupted = false;
    let mut tick = interval(sync_every);
    let mut flush = interval(WRITE_EVERY);
    flush.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let syncing = desk.lock().shell.sync.is_some();
    loop {
        tokio::select! {
            biased;
            _ = desk.abort.cancelled(), if !interrupted => {
                interrupted = true;
                desk.lock().catch_up(&desk.abort);
            }
            _ = ended.recv() => break,
            _ = flush.tick() => writer.drain(writes, desk),
            _ = tick.tick(), if syncing => desk.lock().sync(),
        }
    }
}
