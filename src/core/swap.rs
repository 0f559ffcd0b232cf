//! Swap openings chosen by the engines (`-swap2`, `-swap1`) through the protocol's `SWAP2BOARD`:
//! the pure rules of the phase (who is asked what, which answers are legal, which colour each
//! engine plays afterwards) and the record of how it went. Asking the engines and their clocks
//! are `game.rs`'s; nothing here knows of engines or time.
//!
//! Swap2: the proposer (the engine scheduled black) is asked on the empty board for three stones
//! (black, white, black). The chooser answers `SWAP` (it plays black; the proposer plays white
//! and moves next), one stone (it plays white with that 4th stone; the proposer, black, moves
//! next) or two stones (the 4th and 5th). After two stones the proposer answers `SWAP` (it plays
//! black; the chooser, white, moves next) or one stone (it plays white with that 6th stone; the
//! chooser, black, moves next). Swap1 ends after the chooser's answer, without two stones. In
//! the protocol page's words: an engine that places stones "stays" with the colour to move, and
//! `SWAP` gives it the colour of the last stone on the board (its two `BOARD` examples).

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::core::board::{BoardSize, Color, Pos};
use crate::core::rules::{IllegalKind, MoveOutcome, Referee, Rule};

/// Which swap opening a run plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SwapRule {
    /// Three stones, then the opponent chooses its colour (or places the 4th stone).
    Swap1,
    /// As swap1, or two more stones and the proposer chooses.
    Swap2,
}

impl SwapRule {
    /// `swap1` or `swap2`, as the option and the journal spell it.
    pub fn name(self) -> &'static str {
        match self {
            SwapRule::Swap1 => "swap1",
            SwapRule::Swap2 => "swap2",
        }
    }

    /// The rule of a journal's `rule` text.
    pub fn from_name(name: &str) -> Option<SwapRule> {
        [SwapRule::Swap1, SwapRule::Swap2]
            .into_iter()
            .find(|r| r.name() == name)
    }
}

impl fmt::Display for SwapRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An engine's part in the phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Places the first three stones; the engine scheduled black.
    Proposer,
    /// Answers them; the engine scheduled white.
    Chooser,
}

impl Role {
    /// The colour the engine was scheduled to play, which it keeps until the phase decides.
    pub fn scheduled_colour(self) -> Color {
        match self {
            Role::Proposer => Color::Black,
            Role::Chooser => Color::White,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Role::Proposer => "proposer",
            Role::Chooser => "chooser",
        }
    }
}

/// What an engine's answer line to `SWAP2BOARD` says (coordinates unchecked: the phase judges
/// them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// `SWAP`: take the colour of the last stone placed.
    Swap,
    /// One to three points, in the order to place them.
    Stones(Vec<(i64, i64)>),
    /// `UNKNOWN` or `ERROR`: the engine does not play swap openings.
    Unsupported,
    /// Anything else.
    Unparsable,
}

/// How the stones of a `SWAP2BOARD` are written. Engines differ: the protocol page lists them
/// as `x,y` lines, while Rapfi reads them like `BOARD`'s, `x,y,c` lines (c = 1 the engine's own
/// stone, 2 the opponent's, the engine taken as the side to move) and answers the short form with
/// `ERROR`. On the empty board both are the same two lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Swap2Form {
    /// `x,y` lines, as the protocol page writes them.
    Points,
    /// `x,y,c` lines, as `BOARD` writes them.
    Board,
}

impl Swap2Form {
    /// `points` or `board`, as the journal and the log spell it.
    pub fn name(self) -> &'static str {
        match self {
            Swap2Form::Points => "points",
            Swap2Form::Board => "board",
        }
    }
}

/// An engine's answer to `SWAP2BOARD` with its think time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapReply {
    /// The line as received, trimmed.
    pub raw: String,
    pub answer: Answer,
    /// From the command to the answer, on the monotonic clock (when the engine was asked again
    /// in the other form, from the first command).
    pub elapsed: Duration,
    /// The form of the request this answers.
    pub form: Swap2Form,
}

/// One decision of the phase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub by: Role,
    /// `SWAP` (then `stones` is empty).
    pub swap: bool,
    /// The stones placed, in order.
    pub stones: Vec<Pos>,
    pub time: Duration,
    /// The form of the `SWAP2BOARD` it answered, when it was `BOARD`'s (`x,y,c` lines); `None`
    /// for the protocol page's form (and on the empty board, where both are the same).
    pub form: Option<Swap2Form>,
}

/// How the phase went: what the records show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapRecord {
    pub rule: SwapRule,
    /// The colour the proposer played in the game: black (its scheduled colour) when the phase
    /// did not decide (an engine did not support it, or lost in it).
    pub proposer: Color,
    pub steps: Vec<Step>,
    /// The engine that answered `UNKNOWN`/`ERROR`, and its answer: the game was then played
    /// without a swap, from the opening (if any) with the scheduled colours.
    pub unsupported: Option<(Role, String)>,
}

impl SwapRecord {
    /// A record of a phase that never asked anything (the game ended at start).
    pub fn unplayed(rule: SwapRule) -> Self {
        SwapRecord {
            rule,
            proposer: Color::Black,
            steps: Vec::new(),
            unsupported: None,
        }
    }

    /// Whether the phase chose the colours: its last answer was `SWAP` or one stone (three
    /// stones and two stones pass the choice on).
    pub fn decided(&self) -> bool {
        self.unsupported.is_none()
            && self
                .steps
                .last()
                .is_some_and(|s| s.swap || s.stones.len() == 1)
    }

    /// The colour a role's engine played in the game.
    pub fn colour_of(&self, role: Role) -> Color {
        match role {
            Role::Proposer => self.proposer,
            Role::Chooser => self.proposer.opponent(),
        }
    }
}

/// What the phase needs next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Send `SWAP2BOARD` with these stones to this engine.
    Ask { role: Role, stones: Vec<Pos> },
    /// The colours are chosen: the game goes on from the phase's stones.
    Decided,
}

/// The phase in progress: the stones placed so far and the decisions.
#[derive(Debug, Clone)]
pub struct SwapPhase {
    rule: SwapRule,
    referee: Referee,
    steps: Vec<Step>,
    /// The proposer's colour, once decided.
    proposer: Option<Color>,
}

impl SwapPhase {
    /// A phase from `opening`: the empty board (the proposer places three stones), or three
    /// stones of an opening file standing for the proposer's (the chooser answers them).
    pub fn new(
        rule: SwapRule,
        game_rule: Rule,
        size: BoardSize,
        opening: &[Pos],
    ) -> Result<Self, String> {
        if !matches!(opening.len(), 0 | 3) {
            return Err(format!(
                "a {rule} opening starts from 0 or 3 stones, not {}",
                opening.len()
            ));
        }
        let mut referee = Referee::new(game_rule, size);
        for &p in opening {
            if referee.play(p) != MoveOutcome::Continue {
                return Err(format!("the opening stone {p} cannot be placed"));
            }
        }
        Ok(SwapPhase {
            rule,
            referee,
            steps: Vec::new(),
            proposer: None,
        })
    }

    /// Who is asked next, with what; or the end.
    pub fn next(&self) -> Next {
        if self.proposer.is_some() {
            return Next::Decided;
        }
        let stones = self.stones().to_vec();
        // Three stones on the board: the chooser answers them; empty or five: the proposer.
        let role = if stones.len() == 3 {
            Role::Chooser
        } else {
            Role::Proposer
        };
        Next::Ask { role, stones }
    }

    /// Every stone on the board, in play order (the opening's, then the phase's).
    pub fn stones(&self) -> &[Pos] {
        self.referee.board().history()
    }

    pub fn board(&self) -> &crate::core::board::Board {
        self.referee.board()
    }

    /// Take the answer of the engine asked (see [`next`](Self::next)). `Err` says why it is
    /// not a legal answer here; the engine then loses and the phase is unchanged.
    pub fn answer(&mut self, answer: &Answer, time: Duration) -> Result<(), String> {
        let Next::Ask { role, stones } = self.next() else {
            return Err("the colours are already chosen".into());
        };
        let n = stones.len();
        match answer {
            Answer::Swap if n == 0 => Err("SWAP on the empty board: three stones are asked for \
                                          (black, white, black)"
                .into()),
            Answer::Swap => {
                // The answering engine takes the colour of the last stone placed.
                self.decide(role, Color::of_ply(n - 1));
                self.steps.push(Step {
                    by: role,
                    swap: true,
                    stones: Vec::new(),
                    time,
                    form: None,
                });
                Ok(())
            }
            Answer::Stones(points) => {
                let (allowed, expected) = self.expected(n);
                if !allowed.contains(&points.len()) {
                    return Err(format!(
                        "{} stone{} where {expected} is asked for",
                        points.len(),
                        if points.len() == 1 { "" } else { "s" }
                    ));
                }
                let placed = self.place_all(points)?;
                self.steps.push(Step {
                    by: role,
                    swap: false,
                    stones: placed,
                    time,
                    form: None,
                });
                // Three stones on the empty board or two on three: the choice passes on.
                // Otherwise the engine stays with the colour to move when it answered.
                if !matches!((n, points.len()), (0, 3) | (3, 2)) {
                    self.decide(role, Color::of_ply(n));
                }
                Ok(())
            }
            Answer::Unsupported => Err("the engine does not support SWAP2BOARD".into()),
            Answer::Unparsable => Err("not an answer to SWAP2BOARD (SWAP, or one to three \
                                       points x,y separated by spaces)"
                .into()),
        }
    }

    /// The stone counts a stones answer may have with `n` stones on the board, and their
    /// description for the loser's reason.
    fn expected(&self, n: usize) -> (&'static [usize], &'static str) {
        match (n, self.rule) {
            (0, _) => (
                &[3],
                "three stones (black, white, black) on the empty board",
            ),
            (3, SwapRule::Swap2) => (&[1, 2], "SWAP, one stone or two stones after three"),
            (3, SwapRule::Swap1) => (&[1], "SWAP or one stone after three (swap1)"),
            _ => (&[1], "SWAP or one stone after five"),
        }
    }

    /// Place every point (on a copy first: an answer is taken whole or not at all).
    fn place_all(&mut self, points: &[(i64, i64)]) -> Result<Vec<Pos>, String> {
        let mut trial = self.referee.clone();
        let size = trial.board().size();
        let mut placed = Vec::with_capacity(points.len());
        for &(x, y) in points {
            let colour = trial.side_to_move();
            let at = || {
                size.pos(x, y)
                    .ok()
                    .and_then(|p| p.to_pos_notation(size).ok())
                    .unwrap_or_else(|| format!("{x},{y}"))
            };
            match trial.play_xy(x, y) {
                MoveOutcome::Continue => {}
                MoveOutcome::Illegal(IllegalKind::Occupied) => {
                    return Err(format!("{} is occupied", at()))
                }
                MoveOutcome::Illegal(IllegalKind::OffBoard) => {
                    return Err(format!("{x},{y} is off the board"))
                }
                MoveOutcome::Forbidden(kind) => {
                    return Err(format!("{} is a forbidden point for black ({kind})", at()))
                }
                MoveOutcome::Win { .. } => return Err(format!("{} makes five for {colour}", at())),
                MoveOutcome::Draw => return Err(format!("{} fills the board", at())),
            }
            placed.extend(trial.board().history().last());
        }
        self.referee = trial;
        Ok(placed)
    }

    /// Note that the last answer taken replied to `SWAP2BOARD` in `BOARD`'s form.
    pub fn answered_in(&mut self, form: Swap2Form) {
        if let Some(step) = self.steps.last_mut() {
            step.form = (form == Swap2Form::Board).then_some(form);
        }
    }

    fn decide(&mut self, answerer: Role, colour: Color) {
        self.proposer = Some(match answerer {
            Role::Proposer => colour,
            Role::Chooser => colour.opponent(),
        });
    }

    /// The proposer's colour, once decided.
    pub fn proposer_colour(&self) -> Option<Color> {
        self.proposer
    }

    /// The record of the phase so far.
    pub fn record(&self, unsupported: Option<(Role, String)>) -> SwapRecord {
        SwapRecord {
            rule: self.rule,
            proposer: self.proposer.unwrap_or(Color::Black),
            steps: self.steps.clone(),
            unsupported,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::board::parse_pos_sequence;

    const MS: Duration = Duration::from_millis(7);

    fn size() -> BoardSize {
        BoardSize::new(15).unwrap()
    }

    fn pts(text: &str) -> Answer {
        let ps = parse_pos_sequence(text, size()).unwrap();
        Answer::Stones(ps.iter().map(|p| (p.x as i64, p.y as i64)).collect())
    }

    fn phase(rule: SwapRule) -> SwapPhase {
        SwapPhase::new(rule, Rule::Freestyle, size(), &[]).unwrap()
    }

    fn asked(p: &SwapPhase) -> (Role, usize) {
        match p.next() {
            Next::Ask { role, stones } => (role, stones.len()),
            Next::Decided => panic!("decided"),
        }
    }

    /// The proposer's three stones h8 i8 j10, accepted.
    fn proposed(rule: SwapRule) -> SwapPhase {
        let mut p = phase(rule);
        assert_eq!(asked(&p), (Role::Proposer, 0));
        p.answer(&pts("h8i8j10"), MS).unwrap();
        assert_eq!(asked(&p), (Role::Chooser, 3));
        p
    }

    #[test]
    fn swap_after_three_gives_the_chooser_black_and_the_proposer_moves() {
        let mut p = proposed(SwapRule::Swap2);
        p.answer(&Answer::Swap, MS).unwrap();
        assert_eq!(p.next(), Next::Decided);
        assert_eq!(p.proposer_colour(), Some(Color::White));
        // Three stones: white (the proposer) is to move, as the protocol's BOARD example shows.
        assert_eq!(p.board().side_to_move(), Color::White);
        let r = p.record(None);
        assert_eq!(r.proposer, Color::White);
        assert_eq!(r.colour_of(Role::Chooser), Color::Black);
        assert_eq!(r.steps.len(), 2);
        assert!(r.steps[1].swap && r.steps[1].stones.is_empty());
        assert_eq!(r.steps[1].by, Role::Chooser);
    }

    #[test]
    fn one_stone_after_three_keeps_the_chooser_white() {
        let mut p = proposed(SwapRule::Swap2);
        p.answer(&pts("i9"), MS).unwrap();
        assert_eq!(p.next(), Next::Decided);
        assert_eq!(p.proposer_colour(), Some(Color::Black));
        assert_eq!(p.stones().len(), 4);
        assert_eq!(p.board().side_to_move(), Color::Black);
    }

    #[test]
    fn two_stones_then_swap_gives_the_proposer_black() {
        let mut p = proposed(SwapRule::Swap2);
        p.answer(&pts("i9g7"), MS).unwrap();
        assert_eq!(asked(&p), (Role::Proposer, 5));
        p.answer(&Answer::Swap, MS).unwrap();
        assert_eq!(p.proposer_colour(), Some(Color::Black));
        // White (the chooser) places the 6th stone in the game.
        assert_eq!(p.board().side_to_move(), Color::White);
        assert_eq!(p.record(None).steps.len(), 3);
    }

    #[test]
    fn two_stones_then_a_sixth_gives_the_proposer_white() {
        let mut p = proposed(SwapRule::Swap2);
        p.answer(&pts("i9g7"), MS).unwrap();
        p.answer(&pts("g9"), MS).unwrap();
        // As the protocol's example: the 6th stone is white's, and the chooser is black.
        assert_eq!(p.proposer_colour(), Some(Color::White));
        assert_eq!(p.stones().len(), 6);
        assert_eq!(p.board().side_to_move(), Color::Black);
        let r = p.record(None);
        let stones: Vec<usize> = r.steps.iter().map(|s| s.stones.len()).collect();
        assert_eq!(stones, vec![3, 2, 1]);
        assert_eq!(r.steps.iter().map(|s| s.time).sum::<Duration>(), MS * 3);
    }

    #[test]
    fn swap1_has_no_two_stone_answer() {
        let mut p = proposed(SwapRule::Swap1);
        let why = p.answer(&pts("i9g7"), MS).unwrap_err();
        assert_eq!(
            why,
            "2 stones where SWAP or one stone after three (swap1) is asked for"
        );
        assert_eq!(p.stones().len(), 3, "a refused answer changes nothing");
        p.answer(&Answer::Swap, MS).unwrap();
        assert_eq!(p.proposer_colour(), Some(Color::White));
        let mut p = proposed(SwapRule::Swap1);
        p.answer(&pts("i9"), MS).unwrap();
        assert_eq!(p.proposer_colour(), Some(Color::Black));
    }

    #[test]
    fn wrong_shapes_are_refused_with_the_reason() {
        let mut p = phase(SwapRule::Swap2);
        assert!(p
            .answer(&Answer::Swap, MS)
            .unwrap_err()
            .contains("SWAP on the empty board"));
        assert_eq!(
            p.answer(&pts("h8i8"), MS).unwrap_err(),
            "2 stones where three stones (black, white, black) on the empty board is asked for"
        );
        assert!(p
            .answer(&Answer::Unparsable, MS)
            .unwrap_err()
            .contains("not an answer"));
        let mut p = proposed(SwapRule::Swap2);
        assert_eq!(
            p.answer(&pts("a1b1c1"), MS).unwrap_err(),
            "3 stones where SWAP, one stone or two stones after three is asked for"
        );
        p.answer(&pts("a1b1"), MS).unwrap();
        assert_eq!(
            p.answer(&pts("c1d1"), MS).unwrap_err(),
            "2 stones where SWAP or one stone after five is asked for"
        );
        assert_eq!(asked(&p), (Role::Proposer, 5));
    }

    #[test]
    fn bad_points_are_refused_and_nothing_is_placed() {
        let mut p = phase(SwapRule::Swap2);
        assert_eq!(p.answer(&pts("h8i8h8"), MS).unwrap_err(), "h8 is occupied");
        assert!(p.stones().is_empty());
        let off = Answer::Stones(vec![(7, 7), (15, 3), (8, 8)]);
        assert_eq!(p.answer(&off, MS).unwrap_err(), "15,3 is off the board");
        let neg = Answer::Stones(vec![(-1, 0), (1, 1), (2, 2)]);
        assert_eq!(p.answer(&neg, MS).unwrap_err(), "-1,0 is off the board");
        let mut p = proposed(SwapRule::Swap2);
        assert_eq!(p.answer(&pts("j10"), MS).unwrap_err(), "j10 is occupied");
        assert_eq!(p.record(None).steps.len(), 1);
    }

    /// A phase whose board holds `stones` (not reachable through answers: three stones make
    /// neither a five nor a foul), to check the reasons of `place_all`.
    fn on_board(rule: Rule, stones: &str) -> SwapPhase {
        let mut p = SwapPhase::new(SwapRule::Swap2, rule, size(), &[]).unwrap();
        for pos in parse_pos_sequence(stones, size()).unwrap() {
            assert_eq!(p.referee.play(pos), MoveOutcome::Continue);
        }
        p
    }

    #[test]
    fn a_five_or_a_forbidden_point_among_the_stones_is_refused() {
        let four = "a1a2b1b2c1c2d1d2";
        let mut p = on_board(Rule::Freestyle, four);
        assert_eq!(
            p.place_all(&[(4, 0)]).unwrap_err(),
            "e1 makes five for black"
        );
        assert_eq!(p.stones().len(), 8);
        // Black f8 g8 and h6 h7: h8 makes two open threes.
        let corners = "f8a1g8o1h6a15h7o15";
        let mut p = on_board(Rule::Renju, corners);
        assert_eq!(
            p.place_all(&[(7, 7)]).unwrap_err(),
            "h8 is a forbidden point for black (double-three)"
        );
        let mut p = on_board(Rule::Freestyle, corners);
        assert_eq!(p.place_all(&[(7, 7)]), Ok(vec![Pos::new(7, 7)]));
    }

    #[test]
    fn an_opening_of_three_stones_starts_at_the_choice_and_others_are_refused() {
        let opening = parse_pos_sequence("h8i8j10", size()).unwrap();
        let p = SwapPhase::new(SwapRule::Swap1, Rule::Renju, size(), &opening).unwrap();
        assert_eq!(
            p.next(),
            Next::Ask {
                role: Role::Chooser,
                stones: opening.clone()
            }
        );
        let e = SwapPhase::new(SwapRule::Swap2, Rule::Renju, size(), &opening[..2]).unwrap_err();
        assert_eq!(e, "a swap2 opening starts from 0 or 3 stones, not 2");
    }

    #[test]
    fn names_round_trip() {
        for r in [SwapRule::Swap1, SwapRule::Swap2] {
            assert_eq!(SwapRule::from_name(r.name()), Some(r));
        }
        assert_eq!(SwapRule::from_name("swap3"), None);
    }
}
