//! What a training sample is and which moves of a finished game become samples: the model every
//! format encodes ([`Sample`]) and reads back ([`StoredSample`]), independent of any format.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::core::board::{BoardSize, Pos};
use crate::core::rules::Rule;
use crate::core::search::SearchReport;
use crate::game::record::GameRecord;

/// Whether a csv sample file has a fourth column with the mover's evaluation (`eval=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum EvalColumn {
    /// `position,move,result`, as before evaluations were heard (the default).
    #[default]
    Without,
    /// `position,move,result,eval`; the field is empty where the engine reported none.
    With,
}

/// The final result from the point of view of the side to move; the number is the file encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SampleResult {
    Loss = 0,
    Draw = 1,
    Win = 2,
}

impl SampleResult {
    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(code: u16) -> Option<SampleResult> {
        match code {
            0 => Some(SampleResult::Loss),
            1 => Some(SampleResult::Draw),
            2 => Some(SampleResult::Win),
            _ => None,
        }
    }

    /// The same result seen by the other player (who moves in the next position).
    pub fn flipped(self) -> SampleResult {
        match self {
            SampleResult::Loss => SampleResult::Win,
            SampleResult::Draw => SampleResult::Draw,
            SampleResult::Win => SampleResult::Loss,
        }
    }
}

/// One training sample: a position, the move played in it and how the game ended for the mover,
/// with what the mover's engine said of the position when it reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    pub size: BoardSize,
    pub rule: Rule,
    /// Every stone on the board in play order, black first (opening included).
    pub position: Vec<Pos>,
    /// The move played in `position`.
    pub mv: Pos,
    pub result: SampleResult,
    /// The mover's evaluation of `position` (the side to move's view, before its move, as the
    /// trainer reads it with the result), on the samples' scale ([`crate::core::search::Eval::value`]).
    pub eval: Option<i16>,
    /// The other first moves of a multi-PV search, in PV order: binpack writes them after `mv`
    /// in the move's group.
    pub alternatives: Vec<Alternative>,
}

/// A move the engine ranked beside the one played (`YXNBEST`), with its evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alternative {
    pub mv: Pos,
    pub eval: Option<i16>,
}

/// What a search report gives a sample: the evaluation, and the other PV moves that are empty
/// points of `position` (an engine's garbage never reaches a training set), each once.
fn heard(
    report: Option<&SearchReport>,
    position: &[Pos],
    mv: Pos,
) -> (Option<i16>, Vec<Alternative>) {
    let Some(r) = report else {
        return (None, Vec::new());
    };
    // Eval::value is within ±30000, which i16 holds.
    let value = |e: crate::core::search::Eval| e.value() as i16;
    let mut alternatives: Vec<Alternative> = Vec::new();
    for pv in &r.multipv {
        let taken = pv.pos == mv
            || position.contains(&pv.pos)
            || alternatives.iter().any(|a| a.mv == pv.pos);
        if !taken {
            alternatives.push(Alternative {
                mv: pv.pos,
                eval: pv.eval.map(value),
            });
        }
    }
    // The played move's own PV evaluation when it has one (an engine may play another PV than
    // the first); else the report's.
    let own = r
        .multipv
        .iter()
        .find(|pv| pv.pos == mv)
        .and_then(|pv| pv.eval);
    (own.or(r.eval).map(value), alternatives)
}

/// The generator that decides which moves of game `game` of a run seeded with `seed` are sampled:
/// a game's samples depend only on these two numbers, not on which slot played it or when.
pub fn game_rng(seed: u64, game: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // One independent ChaCha stream per game.
    rng.set_stream(game);
    rng
}

/// The samples of a finished game: each legal played move (not the opening stones, not a final
/// forbidden move; the winning move included) with probability `freq`. Games lost on time, by crash,
/// illegal move or failed start give none. Draws one `f64` from `rng` per move.
pub fn samples_of(record: &GameRecord, freq: f64, rng: &mut impl Rng) -> Vec<Sample> {
    if !record.outcome.termination.yields_samples() {
        return Vec::new();
    }
    let winner = record.outcome.result().winner();
    let stones = record.all_stones();
    let first = record.opening.len();
    let mut out = Vec::new();
    for ply in first..stones.len() {
        // `gen` is in [0, 1): freq 1 takes every move, freq 0 (or NaN) none.
        if rng.gen::<f64>() >= freq {
            continue;
        }
        let mover = crate::core::board::Color::of_ply(ply);
        let result = match winner {
            None => SampleResult::Draw,
            Some(w) if w == mover => SampleResult::Win,
            Some(_) => SampleResult::Loss,
        };
        let report = record.outcome.moves[ply - first].search.as_deref();
        let (eval, alternatives) = heard(report, &stones[..ply], stones[ply]);
        out.push(Sample {
            size: record.size,
            rule: record.rule,
            position: stones[..ply].to_vec(),
            mv: stones[ply],
            result,
            eval,
            alternatives,
        });
    }
    out
}

/// A sample as read back from a file. csv records neither board size nor rule; bin no
/// evaluation; only binpack the other moves of a multi-PV group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSample {
    pub size: Option<BoardSize>,
    pub rule: Option<Rule>,
    pub position: Vec<Pos>,
    pub mv: Pos,
    pub result: SampleResult,
    /// The mover's evaluation (binpack, and csv's optional fourth column).
    pub eval: Option<i16>,
    /// The rest of the move's multi-PV group (binpack).
    pub alternatives: Vec<Alternative>,
}

impl StoredSample {
    /// What a file keeps of `sample`: the position, the move and the result, with the board size
    /// and rule when `context`, and the evaluation and the multi-PV group when `evals`.
    pub(super) fn keeping(sample: &Sample, context: bool, evals: bool) -> StoredSample {
        StoredSample {
            size: context.then_some(sample.size),
            rule: context.then_some(sample.rule),
            position: sample.position.clone(),
            mv: sample.mv,
            result: sample.result,
            eval: sample.eval.filter(|_| evals),
            alternatives: if evals {
                sample.alternatives.clone()
            } else {
                Vec::new()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::record::fixtures::sample_record;
    use crate::game::termination::Termination;

    #[test]
    fn samples_carry_the_movers_evaluation_and_the_other_pv_moves() {
        use crate::core::search::{Eval, Outlook, PvMove, SearchReport};
        let mut r = sample_record();
        let size = r.size;
        let at = |t: &str| crate::core::board::parse_pos_sequence(t, size).unwrap()[0];
        let report = |eval, multipv| {
            Some(Box::new(SearchReport {
                eval,
                multipv,
                ..SearchReport::default()
            }))
        };
        let pv = |t: &str, eval| PvMove { pos: at(t), eval };
        // Move 0 (h9): +35. Move 1 (i10): a loss in 4 plies. Move 2 (h10): PVs j10 (the
        // first, +50), h10 (the move played, +20), h8 (occupied: garbage), j10 again, k11
        // (no evaluation). Move 3: nothing.
        r.outcome.moves[0].search = report(Some(Eval::Score(35)), vec![]);
        let lost = Eval::Mate {
            outlook: Outlook::Loss,
            plies: Some(4),
        };
        r.outcome.moves[1].search = report(Some(lost), vec![]);
        r.outcome.moves[2].search = report(
            Some(Eval::Score(50)),
            vec![
                pv("j10", Some(Eval::Score(50))),
                pv("h10", Some(Eval::Score(20))),
                pv("h8", Some(Eval::Score(10))),
                pv("j10", Some(Eval::Score(5))),
                pv("k11", None),
            ],
        );
        let s = samples_of(&r, 1.0, &mut game_rng(0, 0));
        assert_eq!(s[0].eval, Some(35));
        assert_eq!(s[1].eval, Some(-29996));
        assert!(s[0].alternatives.is_empty() && s[1].alternatives.is_empty());
        assert_eq!(s[2].mv, at("h10"));
        assert_eq!(s[2].eval, Some(20), "the played move's own PV evaluation");
        assert_eq!(
            s[2].alternatives,
            vec![
                Alternative {
                    mv: at("j10"),
                    eval: Some(50)
                },
                Alternative {
                    mv: at("k11"),
                    eval: None
                },
            ]
        );
        assert!(s[3..]
            .iter()
            .all(|x| x.eval.is_none() && x.alternatives.is_empty()));
    }

    #[test]
    fn every_move_of_the_fixture_with_results_for_the_mover() {
        // Opening h8 i9 (2 stones), then 7 moves; black wins with the 7th.
        let r = sample_record();
        let s = samples_of(&r, 1.0, &mut game_rng(1, 7));
        assert_eq!(s.len(), 7);
        for (i, smp) in s.iter().enumerate() {
            assert_eq!(smp.position.len(), 2 + i);
            assert_eq!(smp.mv, r.outcome.moves[i].pos);
            // Moves 0, 2, 4, 6 are black's (ply 2, 4, ...).
            let want = if i % 2 == 0 {
                SampleResult::Win
            } else {
                SampleResult::Loss
            };
            assert_eq!(smp.result, want, "move {i}");
        }
        assert_eq!(s[0].position, r.opening);
        assert_eq!(s[6].position, r.all_stones()[..8].to_vec());
    }

    #[test]
    fn selection_is_deterministic_per_seed_and_game() {
        let r = sample_record();
        let a = samples_of(&r, 0.5, &mut game_rng(42, 3));
        let b = samples_of(&r, 0.5, &mut game_rng(42, 3));
        assert_eq!(a, b);
        // Different games draw from different streams.
        let picks = |g: u64| {
            (0..20)
                .map(|k| samples_of(&r, 0.5, &mut game_rng(42, g * 100 + k)).len())
                .collect::<Vec<_>>()
        };
        assert_ne!(picks(1), picks(2));
    }

    #[test]
    fn draws_and_forfeits() {
        let mut r = sample_record();
        r.outcome.termination = Termination::FullBoard;
        let s = samples_of(&r, 1.0, &mut game_rng(0, 0));
        assert!(s.iter().all(|x| x.result == SampleResult::Draw));
        r.outcome.termination = Termination::Crash {
            by: crate::core::board::Color::White,
            status: "signal 9".into(),
        };
        assert!(samples_of(&r, 1.0, &mut game_rng(0, 0)).is_empty());
    }
}
