//! Adjudication by the engines' own evaluations (`-draw`, `-resign`): pure rules and a tracker fed
//! one move at a time, so the referee loop only asks it after each move.
//!
//! The meaning is fastchess's: a draw when both engines' evaluations stay within ±S for M moves of
//! each, from a move number on; a loss when one engine's evaluation stays at or below −S for M of
//! its own moves (two-sided: and its opponent's at or above +S over the same moves). A mate counts
//! as beyond any S. A move without an evaluation breaks every run: no verdict from silence.

use std::fmt;
use std::num::NonZeroU32;

use crate::core::board::Color;
use crate::core::search::{Eval, Outlook};
use crate::game::record::PlayedMove;
use crate::game::termination::Termination;

/// `-draw movenumber=N movecount=M score=S`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawRule {
    /// The first move (counted from 1 after the opening, every stone a move) that can end a draw.
    pub from_move: u32,
    /// Moves of each engine in a row within the bound (2M moves in all).
    pub moves: NonZeroU32,
    /// The bound S: |eval| ≤ S.
    pub score: u32,
}

/// Whether a resignation needs the opponent's agreement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sides {
    /// The loser's own evaluations decide.
    One,
    /// `twosided=true`: the winner's evaluations must be at or above +S over the same moves.
    Both,
}

/// `-resign movecount=M score=S [twosided=true]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResignRule {
    /// Own moves in a row at or below −S.
    pub moves: NonZeroU32,
    pub score: u32,
    pub sides: Sides,
}

/// Every adjudication rule of a run; the default adjudicates nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Adjudication {
    pub draw: Option<DrawRule>,
    pub resign: Option<ResignRule>,
    /// `-resign mate=K`: the side to move loses after reporting a proven loss on K own moves in a row.
    pub mate: Option<NonZeroU32>,
}

impl Adjudication {
    /// Whether any rule is on.
    pub fn is_on(&self) -> bool {
        *self != Adjudication::default()
    }
}

impl fmt::Display for Adjudication {
    /// The rules in their command-line form (`-draw movenumber=0 movecount=8 score=20 -resign
    /// movecount=3 score=400 mate=2`), empty when none is on: the journal's header keeps it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut words = Vec::new();
        if let Some(d) = self.draw {
            let (n, m, s) = (d.from_move, d.moves, d.score);
            words.push(format!("-draw movenumber={n} movecount={m} score={s}"));
        }
        if self.resign.is_some() || self.mate.is_some() {
            words.push("-resign".into());
        }
        if let Some(r) = self.resign {
            words.push(format!("movecount={} score={}", r.moves, r.score));
            if r.sides == Sides::Both {
                words.push("twosided=true".into());
            }
        }
        if let Some(k) = self.mate {
            words.push(format!("mate={k}"));
        }
        f.write_str(&words.join(" "))
    }
}

/// One engine's current runs of evaluations, counted in its own moves.
#[derive(Debug, Clone, Copy, Default)]
struct Runs {
    /// At or below −S (the resign score).
    low: u32,
    /// At or above +S.
    high: u32,
    /// Proven losses.
    mated: u32,
    /// The last evaluation, when the last move had one.
    last: Option<Eval>,
}

/// Whether `e` is at or above `bound` (`Win`) or at or below `−bound` (`Loss`); mates are beyond
/// any bound.
fn beyond(e: Eval, outlook: Outlook, bound: u32) -> bool {
    match (e, outlook) {
        (Eval::Mate { outlook: o, .. }, _) => o == outlook,
        (Eval::Score(v), Outlook::Win) => i64::from(v) >= i64::from(bound),
        (Eval::Score(v), Outlook::Loss) => i64::from(v) <= -i64::from(bound),
    }
}

/// Whether `e` is within ±`bound`; a mate never is.
fn within(e: Eval, bound: u32) -> bool {
    matches!(e, Eval::Score(v) if v.unsigned_abs() <= bound)
}

/// A run that grows by one move when `holds`, and starts over otherwise.
fn extend(run: u32, holds: bool) -> u32 {
    if holds {
        run.saturating_add(1)
    } else {
        0
    }
}

/// The adjudication state of one game, fed each played move's evaluation.
#[derive(Debug, Clone)]
pub struct Adjudicator {
    rules: Adjudication,
    /// Moves in a row (both engines') within the draw bound.
    calm: u32,
    /// Black's runs, then white's.
    runs: [Runs; 2],
}

impl Adjudicator {
    pub fn new(rules: Adjudication) -> Adjudicator {
        Adjudicator {
            rules,
            calm: 0,
            runs: [Runs::default(); 2],
        }
    }

    /// After `mover` played move `number` (from 1 after the opening) having reported `eval` (its
    /// own view, before the move): how the game ends now, if a rule decides.
    pub fn after_move(
        &mut self,
        mover: Color,
        number: u32,
        eval: Option<Eval>,
    ) -> Option<Termination> {
        self.count(mover, eval);
        self.mated(mover)
            .or_else(|| self.resigned(mover))
            .or_else(|| self.resigned(mover.opponent()))
            .or_else(|| self.drawn(number))
    }

    /// [`Adjudicator::after_move`] for the last of `moves` (the game's moves after the opening),
    /// played by `mover`.
    pub fn after_played(&mut self, mover: Color, moves: &[PlayedMove]) -> Option<Termination> {
        let eval = moves.last()?.search.as_ref().and_then(|s| s.eval);
        let number = u32::try_from(moves.len()).unwrap_or(u32::MAX);
        self.after_move(mover, number, eval)
    }

    fn count(&mut self, mover: Color, eval: Option<Eval>) {
        let (resign, draw) = (self.rules.resign.map(|r| r.score), self.rules.draw);
        let r = &mut self.runs[mover as usize];
        let has = |f: &dyn Fn(Eval) -> bool| eval.is_some_and(f);
        r.low = extend(
            r.low,
            resign.is_some_and(|s| has(&|e| beyond(e, Outlook::Loss, s))),
        );
        r.high = extend(
            r.high,
            resign.is_some_and(|s| has(&|e| beyond(e, Outlook::Win, s))),
        );
        r.mated = extend(r.mated, has(&|e| e.is_proven_loss()));
        r.last = eval;
        self.calm = extend(
            self.calm,
            draw.is_some_and(|d| has(&|e| within(e, d.score))),
        );
    }

    /// The mate rule: `mover` reported a proven loss on K own moves in a row.
    fn mated(&self, mover: Color) -> Option<Termination> {
        let k = self.rules.mate?.get();
        let r = &self.runs[mover as usize];
        if r.mated < k {
            return None;
        }
        Some(Termination::AdjudicatedResign {
            by: mover,
            moves: k,
            eval: r.last?,
            score: None,
            opponent: None,
        })
    }

    /// The resign rule for `side`: M own moves at or below −S (two-sided: its opponent's last M
    /// at or above +S).
    fn resigned(&self, side: Color) -> Option<Termination> {
        let rule = self.rules.resign?;
        let m = rule.moves.get();
        let (own, other) = (
            &self.runs[side as usize],
            &self.runs[side.opponent() as usize],
        );
        let agreed = match rule.sides {
            Sides::One => true,
            Sides::Both => other.high >= m,
        };
        if own.low < m || !agreed {
            return None;
        }
        Some(Termination::AdjudicatedResign {
            by: side,
            moves: m,
            eval: own.last?,
            score: Some(rule.score),
            opponent: match rule.sides {
                Sides::One => None,
                Sides::Both => other.last,
            },
        })
    }

    /// The draw rule: from move N on, the last 2M moves all within ±S.
    fn drawn(&self, number: u32) -> Option<Termination> {
        let rule = self.rules.draw?;
        let m = rule.moves.get();
        let [black, white] = self.runs.map(|r| r.last);
        if number < rule.from_move || self.calm < m.saturating_mul(2) {
            return None;
        }
        Some(Termination::AdjudicatedDraw {
            moves: m,
            score: rule.score,
            black: black?,
            white: white?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Black, White};

    fn n(k: u32) -> NonZeroU32 {
        NonZeroU32::new(k).unwrap()
    }

    fn s(v: i32) -> Option<Eval> {
        Some(Eval::Score(v))
    }

    fn mate(outlook: Outlook) -> Option<Eval> {
        Some(Eval::Mate {
            outlook,
            plies: Some(3),
        })
    }

    /// Feeds evaluations, black first, moves numbered from 1; returns the number of the move that
    /// ended the game and how.
    fn play(rules: Adjudication, evals: &[Option<Eval>]) -> Option<(u32, Termination)> {
        let mut a = Adjudicator::new(rules);
        let colours = [Black, White].into_iter().cycle();
        (1..)
            .zip(colours)
            .zip(evals)
            .find_map(|((i, c), e)| a.after_move(c, i, *e).map(|t| (i, t)))
    }

    fn draw(from_move: u32, moves: u32, score: u32) -> Adjudication {
        Adjudication {
            draw: Some(DrawRule {
                from_move,
                moves: n(moves),
                score,
            }),
            ..Adjudication::default()
        }
    }

    fn resign(moves: u32, score: u32, sides: Sides) -> Adjudication {
        Adjudication {
            resign: Some(ResignRule {
                moves: n(moves),
                score,
                sides,
            }),
            ..Adjudication::default()
        }
    }

    #[test]
    fn a_draw_needs_m_moves_of_each_engine_within_the_bound() {
        let evals = [s(5), s(-10), s(10), s(0)];
        let (at, t) = play(draw(0, 2, 10), &evals).unwrap();
        assert_eq!(at, 4);
        assert_eq!(
            t,
            Termination::AdjudicatedDraw {
                moves: 2,
                score: 10,
                black: Eval::Score(10),
                white: Eval::Score(0),
            }
        );
        assert_eq!(t.result(), crate::game::termination::GameResult::Draw);
        assert_eq!(play(draw(0, 2, 9), &evals), None, "10 is outside ±9");
    }

    #[test]
    fn a_draw_waits_for_its_move_number_and_a_break_starts_over() {
        let calm = [s(0); 8];
        assert_eq!(play(draw(6, 1, 10), &calm).unwrap().0, 6);
        let broken = [s(0), s(0), s(0), None, s(0), s(0), s(0), s(0)];
        assert_eq!(play(draw(0, 2, 10), &broken).unwrap().0, 8);
        // A mate is outside any bound: the run starts over after it.
        let mated = [s(0), mate(Outlook::Win), s(0), s(0), s(0), s(0)];
        assert_eq!(play(draw(0, 2, u32::MAX), &mated).unwrap().0, 6);
    }

    #[test]
    fn one_sided_resign_counts_the_losers_own_moves() {
        // Black sinks; white's evals do not matter, nor do white's silent moves.
        let evals = [s(-400), None, s(-500), s(3), s(-401)];
        let (at, t) = play(resign(3, 400, Sides::One), &evals).unwrap();
        assert_eq!(at, 5);
        assert_eq!(
            t,
            Termination::AdjudicatedResign {
                by: Black,
                moves: 3,
                eval: Eval::Score(-401),
                score: Some(400),
                opponent: None,
            }
        );
        assert_eq!(t.result(), crate::game::termination::GameResult::WhiteWins);
        // Black's own moves: −400, none, −500, 0: never two in a row.
        let broken = [s(-400), s(0), None, s(0), s(-500), s(0), s(0)];
        assert_eq!(play(resign(2, 400, Sides::One), &broken), None);
    }

    #[test]
    fn two_sided_resign_needs_the_winner_to_agree() {
        let doubtful = [s(-500), s(100), s(-500), s(100)];
        assert_eq!(play(resign(2, 400, Sides::Both), &doubtful), None);
        assert!(play(resign(2, 400, Sides::One), &doubtful).is_some());
        // White agrees on its second move: black resigns then, after white's move.
        let agreed = [s(-500), s(450), s(-500), mate(Outlook::Win)];
        let (at, t) = play(resign(2, 400, Sides::Both), &agreed).unwrap();
        assert_eq!(at, 4);
        assert!(matches!(
            t,
            Termination::AdjudicatedResign {
                by: Black,
                opponent: Some(Eval::Mate { .. }),
                ..
            }
        ));
    }

    #[test]
    fn mates_are_beyond_any_bound_and_the_mate_rule_counts_proven_losses() {
        let evals = [s(0), mate(Outlook::Loss), s(0), mate(Outlook::Loss)];
        assert_eq!(play(resign(2, u32::MAX, Sides::One), &evals).unwrap().0, 4);
        let rules = Adjudication {
            mate: Some(n(2)),
            ..Adjudication::default()
        };
        let (at, t) = play(rules, &evals).unwrap();
        assert_eq!(at, 4);
        assert!(matches!(
            t,
            Termination::AdjudicatedResign {
                by: White,
                score: None,
                ..
            }
        ));
        let once = [mate(Outlook::Loss), s(0), s(-9), s(0), mate(Outlook::Loss)];
        assert_eq!(play(rules, &once), None);
    }

    #[test]
    fn engines_that_report_nothing_are_never_adjudicated() {
        let all = Adjudication {
            mate: Some(n(1)),
            ..Adjudication {
                resign: resign(1, 0, Sides::One).resign,
                ..draw(0, 1, u32::MAX)
            }
        };
        assert_eq!(play(all, &[None; 50]), None);
        assert!(!Adjudication::default().is_on() && all.is_on());
        let text =
            "-draw movenumber=0 movecount=1 score=4294967295 -resign movecount=1 score=0 mate=1";
        assert_eq!(all.to_string(), text);
        assert_eq!(Adjudication::default().to_string(), "");
    }
}
