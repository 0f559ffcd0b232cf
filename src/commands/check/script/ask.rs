//! A check game's requests: a new game, a move asked within its deadline (the judge's
//! tolerance past the limit) and timed, a position sent with `BOARD`, and the item a game's
//! outcome decides.

use super::*;

impl Checker {
    /// A new game for item `name`; on failure the item is reported and `false` returned.
    pub(super) async fn new_game(
        &mut self,
        session: &mut EngineSession,
        size: BoardSize,
        rule: Rule,
        name: &str,
    ) -> bool {
        tokio::time::sleep(OPPONENT_PAUSE).await;
        match session.new_game(size, rule, self.opts.startup).await {
            Ok(()) => true,
            Err(e) => {
                self.engine_error(name, &e, "fast");
                false
            }
        }
    }

    /// The kill deadline of a move under `tc` with `left` on the clock: the judge's limit plus
    /// its tolerance, as the runner computes it.
    pub(super) fn deadline(&self, tc: &TimeControl, left: Option<Duration>) -> Duration {
        self.spec_with(*tc)
            .move_deadline(left)
            .unwrap_or(Duration::MAX)
    }

    /// Asks one move under the fast control with `left` on the match clock, and plays it.
    pub(super) async fn ask(
        &mut self,
        session: &mut EngineSession,
        referee: &mut Referee,
        request: MoveRequest,
        left: Option<Duration>,
    ) -> Result<(MoveOutcome, Duration), Stop> {
        let left = left.or(self.opts.fast.match_time);
        let deadline = self.deadline(&self.opts.fast, left);
        tokio::time::sleep(OPPONENT_PAUSE).await;
        let reply = session
            .request_move(request, left, deadline)
            .await
            .map_err(Stop::Engine)?;
        // The session samples memory only while a move takes over a tenth of a second; a
        // reading after each answer catches the fast movers' memory too, as PSS, USS and RSS.
        self.note_usage(session.usage());
        self.timing
            .add(reply.elapsed, limit_of(&self.opts.fast, left));
        self.search.add(reply.search.as_deref(), reply.coords);
        let Some((x, y)) = reply.coords else {
            return Err(Stop::Illegal(format!(
                "answer {:?} is not a move",
                reply.raw
            )));
        };
        match referee.play_xy(x, y) {
            MoveOutcome::Illegal(kind) => Err(Stop::Illegal(format!("{x},{y}: {kind:?}"))),
            MoveOutcome::Forbidden(kind) => Err(Stop::Illegal(format!(
                "{x},{y}: forbidden point ({kind:?})"
            ))),
            outcome => Ok((outcome, reply.elapsed)),
        }
    }

    /// BOARD with `stones` in play order (black to move: the engine's stones are the black
    /// ones), and first the `winning` line's points with field 3 (made before play went on, in
    /// a continuous game). A move on one of those is a warning.
    pub(super) async fn ask_board(
        &mut self,
        session: &mut EngineSession,
        size: BoardSize,
        rule: Rule,
        stones: Vec<Pos>,
        winning: &[Pos],
    ) -> Result<(MoveOutcome, Duration), Stop> {
        let mut referee = Referee::new(rule, size);
        let mut board = Board::new(size);
        for &p in &stones {
            board.put(p, board.side_to_move());
            referee.play(p);
        }
        let own = |p: Pos| Field::of(board.get(p) == Some(Color::Black));
        let request = MoveRequest::Board(
            winning
                .iter()
                .map(|&p| (p, Field::WinningLine))
                .chain(stones.iter().map(|&p| (p, own(p))))
                .collect(),
        );
        let outcome = self.ask(session, &mut referee, request, None).await?;
        match referee.board().history().last() {
            Some(p) if winning.contains(p) => Err(Stop::Warn(format!(
                "{p} is on the winning line (field 3): the engine takes those points for empty, \
                 as Rapfi does; only Piskvork's continuous game sends them, the judge never"
            ))),
            _ => Ok(outcome),
        }
    }

    pub(super) fn verdict(
        &mut self,
        name: &str,
        outcome: Result<(MoveOutcome, Duration), Stop>,
        what: &str,
    ) {
        match outcome {
            Ok(_) => self.push(name, Status::Pass, what),
            Err(Stop::Illegal(why)) => self.push(name, Status::Fail, format!("illegal move {why}")),
            Err(Stop::Warn(why)) => self.push(name, Status::Warn, why),
            Err(Stop::Engine(e)) => self.engine_error(name, &e, &short_label(&self.opts.fast)),
        }
    }
}
