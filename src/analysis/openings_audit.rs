//! Openings seen as the same under the 8 board symmetries: an opening file rewritten in canonical
//! form without duplicates (`openings canonical`), and the games of a run audited per canonical
//! opening (`openings audit`): black's score, colour-reversed pairs as a pentanomial, length and
//! endings, and the openings one colour wins whoever plays it. Pure: the commands read the files.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::core::board::{to_pos_sequence, BoardSize, Color, Pos, Symmetry};
use crate::formats::journal::{Conflict, JournalEntry, JournalGame, RebuildError, Repeats, Seen};
use crate::formats::openings::Opening;
use crate::game::termination::GameResult;
use crate::stats::{Pentanomial, Score};

/// One opening of a file in canonical form, with how often it (or one of its images) occurs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanonicalOpening {
    /// The canonical image (`Symmetry::canonical`), at the line of its first occurrence.
    pub opening: Opening,
    /// Occurrences in the file, the first included.
    pub count: usize,
}

/// Every opening in canonical form, each once, in the order of first occurrence.
pub fn canonical_openings(openings: &[Opening], size: BoardSize) -> Vec<CanonicalOpening> {
    let mut index: HashMap<Vec<Pos>, usize> = HashMap::new();
    let mut out: Vec<CanonicalOpening> = Vec::new();
    for o in openings {
        let (_, stones) = Symmetry::canonical(&o.stones, size);
        match index.get(&stones) {
            Some(&i) => out[i].count += 1,
            None => {
                index.insert(stones.clone(), out.len());
                out.push(CanonicalOpening {
                    opening: Opening {
                        line: o.line,
                        stones,
                    },
                    count: 1,
                });
            }
        }
    }
    out
}

/// What the audit reads of one journal line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditGame {
    /// The run's fingerprint: game numbers and pairs are a run's own.
    pub run: String,
    pub game: u64,
    pub pair: usize,
    pub pair_game: u64,
    pub black_engine: usize,
    pub white_engine: usize,
    pub size: BoardSize,
    /// The opening as played (after the transform; with a swap opening, the stones chosen).
    pub opening: Vec<Pos>,
    /// Moves played after the opening.
    pub moves: usize,
    pub result: GameResult,
    /// The journal's termination code.
    pub termination: String,
}

impl AuditGame {
    /// The fields of a journal line the audit needs, its stones read as points.
    pub fn from_entry(e: &JournalEntry) -> Result<AuditGame, RebuildError> {
        Ok(AuditGame::of(&JournalGame::try_from(e)?))
    }

    /// A journal line already read.
    pub fn of(g: &JournalGame) -> AuditGame {
        let e = g.entry;
        AuditGame {
            run: e.fingerprint.clone(),
            game: e.game,
            pair: e.pair,
            pair_game: e.pair_game,
            black_engine: e.black_engine,
            white_engine: e.white_engine,
            size: g.size,
            opening: g.opening.clone(),
            moves: g.moves.len(),
            result: e.result,
            termination: e.termination.clone(),
        }
    }
}

/// One opening's figures. Field names are the `--json` contract (docs/guide/openings.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpeningAudit {
    /// Canonical image of the opening, pos notation (offsets on boards over 26).
    pub opening: String,
    pub size: u8,
    pub games: u64,
    pub black_wins: u64,
    pub white_wins: u64,
    pub draws: u64,
    /// Black's mean score (a draw is half a point).
    pub black_score: f64,
    /// Wilson score interval at 95% of `black_score`.
    pub black_score_low: f64,
    pub black_score_high: f64,
    /// Complete colour-reversed pairs.
    pub pairs: u64,
    /// The pairs by half points of the engine pair's first engine (lower index): LL, LD, WL+DD,
    /// WD, WW.
    pub pentanomial: [u64; 5],
    /// Share of pairs one engine won 2-0 (LL + WW over pairs); null without pairs.
    pub decisive_pairs: Option<f64>,
    /// Pairs black won twice, and white.
    pub black_sweeps: u64,
    pub white_sweeps: u64,
    /// The colour that won both games of every pair (at least one): the opening decides, not
    /// the engines.
    pub decided_by: Option<Color>,
    /// Mean moves played after the opening.
    pub average_moves: f64,
    /// Games by termination code.
    pub terminations: BTreeMap<String, u64>,
}

impl OpeningAudit {
    /// How its games ended, `five 3, time_forfeit 1`: the text table's and the report's column.
    pub fn endings(&self) -> String {
        let parts: Vec<String> = self
            .terminations
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        parts.join(", ")
    }
}

/// The audit of a set of games.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Audit {
    /// Games counted (repeats of a game dropped).
    pub games: u64,
    /// Complete pairs over all openings.
    pub pairs: u64,
    /// Openings flagged `decided_by`.
    pub decided: u64,
    /// Most games first, then by opening.
    pub openings: Vec<OpeningAudit>,
}

#[derive(Debug, Clone, Default)]
struct Tally {
    size: u8,
    games: u64,
    black_wins: u64,
    white_wins: u64,
    draws: u64,
    pentanomial: Pentanomial,
    black_sweeps: u64,
    white_sweeps: u64,
    moves: u64,
    terminations: BTreeMap<String, u64>,
}

/// The first game of a pair waiting for its partner (games finish out of order).
#[derive(Debug, Clone)]
struct Pending {
    key: String,
    black_engine: usize,
    first_engine: usize,
    result: GameResult,
}

/// Builds an [`Audit`] one game at a time.
#[derive(Debug, Default)]
pub struct Auditor {
    seen: HashMap<String, Repeats>,
    tallies: HashMap<(u8, String), Tally>,
    pending: HashMap<(String, usize, u64), Pending>,
}

impl Auditor {
    /// Count one game; a repeat of a game already counted is dropped (the journals' one rule),
    /// the same game with another result is an error.
    pub fn add(&mut self, g: &AuditGame) -> Result<(), Conflict> {
        let seen = self.seen.entry(g.run.clone()).or_default();
        if seen.admit(g.game, g.result)? == Seen::Repeat {
            return Ok(());
        }
        let (_, canonical) = Symmetry::canonical(&g.opening, g.size);
        // Pos notation stops at 26 columns: larger boards' openings are written as offsets.
        let key = to_pos_sequence(&canonical, g.size)
            .unwrap_or_else(|_| crate::formats::openings::to_offset_line(&canonical, g.size));
        let t = self.tallies.entry((g.size.get(), key.clone())).or_default();
        t.size = g.size.get();
        t.games += 1;
        match g.result {
            GameResult::BlackWins => t.black_wins += 1,
            GameResult::WhiteWins => t.white_wins += 1,
            GameResult::Draw => t.draws += 1,
        }
        t.moves += g.moves as u64;
        *t.terminations.entry(g.termination.clone()).or_default() += 1;
        self.pair_up(g, key);
        Ok(())
    }

    /// Pair games `2m` and `2m+1` of an engine pair when they share the canonical opening with
    /// colours reversed (what `-repeat` plays); other partners stay single games.
    fn pair_up(&mut self, g: &AuditGame, key: String) {
        let slot = (g.run.clone(), g.pair, g.pair_game / 2);
        let Some(other) = self.pending.remove(&slot) else {
            let first_engine = g.black_engine.min(g.white_engine);
            let p = Pending {
                key,
                black_engine: g.black_engine,
                first_engine,
                result: g.result,
            };
            self.pending.insert(slot, p);
            return;
        };
        if other.key != key || other.black_engine == g.black_engine {
            return;
        }
        let score = |result: GameResult, black: usize| match result.winner() {
            None => Score::Draw,
            Some(Color::Black) if black == other.first_engine => Score::Win,
            Some(Color::White) if black != other.first_engine => Score::Win,
            Some(_) => Score::Loss,
        };
        let (a, b) = (
            score(other.result, other.black_engine),
            score(g.result, g.black_engine),
        );
        let Some(t) = self.tallies.get_mut(&(g.size.get(), key)) else {
            return;
        };
        t.pentanomial.add_pair(a, b);
        match (other.result, g.result) {
            (GameResult::BlackWins, GameResult::BlackWins) => t.black_sweeps += 1,
            (GameResult::WhiteWins, GameResult::WhiteWins) => t.white_sweeps += 1,
            _ => {}
        }
    }

    /// The audit of the games counted.
    pub fn finish(self) -> Audit {
        let mut openings: Vec<OpeningAudit> = self
            .tallies
            .into_iter()
            .map(|((_, key), t)| t.audit(key))
            .collect();
        openings.sort_by(|a, b| (b.games, a.size, &a.opening).cmp(&(a.games, b.size, &b.opening)));
        Audit {
            games: openings.iter().map(|o| o.games).sum(),
            pairs: openings.iter().map(|o| o.pairs).sum(),
            decided: openings.iter().filter(|o| o.decided_by.is_some()).count() as u64,
            openings,
        }
    }
}

impl Tally {
    fn audit(self, opening: String) -> OpeningAudit {
        let points = self.black_wins as f64 + 0.5 * self.draws as f64;
        let (low, high) = wilson(points, self.games);
        let pairs = self.pentanomial.pairs();
        let [ll, _, _, _, ww] = self.pentanomial.0;
        let decided_by = match pairs {
            0 => None,
            n if self.black_sweeps == n => Some(Color::Black),
            n if self.white_sweeps == n => Some(Color::White),
            _ => None,
        };
        OpeningAudit {
            opening,
            size: self.size,
            games: self.games,
            black_wins: self.black_wins,
            white_wins: self.white_wins,
            draws: self.draws,
            black_score: points / self.games as f64,
            black_score_low: low,
            black_score_high: high,
            pairs,
            pentanomial: self.pentanomial.0,
            decisive_pairs: (pairs > 0).then(|| (ll + ww) as f64 / pairs as f64),
            black_sweeps: self.black_sweeps,
            white_sweeps: self.white_sweeps,
            decided_by,
            average_moves: self.moves as f64 / self.games as f64,
            terminations: self.terminations,
        }
    }
}

/// Wilson score interval at 95% for `points` successes in `n` trials (a draw counted as half a
/// success); `(0, 1)` for no trial.
pub fn wilson(points: f64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (z, n) = (1.959_963_984_540_054_f64, n as f64);
    let p = points / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The audit as a text table, one opening a line.
pub fn to_text(a: &Audit) -> String {
    let mut out = format!(
        "{} games, {} openings, {} pairs, {} openings decided by colour\n\
         black score with its Wilson 95% interval; pairs by the first engine's half points \
         LL/LD/WL+DD/WD/WW\n",
        a.games,
        a.openings.len(),
        a.pairs,
        a.decided
    );
    out.push_str(&format!(
        "{:<24} {:>6} {:>21} {:>6} {:>19} {:>8} {:>7}  {:<8} ending\n",
        "opening", "games", "black score", "pairs", "pentanomial", "decisive", "moves", "decided"
    ));
    for o in &a.openings {
        let [a0, a1, a2, a3, a4] = o.pentanomial;
        out.push_str(&format!(
            "{:<24} {:>6} {:>6.3} [{:.3}, {:.3}] {:>6} {:>19} {:>8} {:>7.1}  {:<8} {}\n",
            o.opening,
            o.games,
            o.black_score,
            o.black_score_low,
            o.black_score_high,
            o.pairs,
            format!("{a0}/{a1}/{a2}/{a3}/{a4}"),
            o.decisive_pairs
                .map_or("-".to_string(), |d| format!("{:.0}%", 100.0 * d)),
            o.average_moves,
            o.decided_by.map_or("-", Color::name),
            o.endings()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn size() -> BoardSize {
        BoardSize::new(15).unwrap()
    }

    fn stones(text: &str) -> Vec<Pos> {
        crate::core::board::parse_pos_sequence(text, size()).unwrap()
    }

    /// A game of run "r": engines 0 and 1, `black` playing black.
    fn game(game: u64, pair_game: u64, black: usize, opening: &str, result: &str) -> AuditGame {
        AuditGame {
            run: "r".into(),
            game,
            pair: 0,
            pair_game,
            black_engine: black,
            white_engine: 1 - black,
            size: size(),
            opening: stones(opening),
            moves: 10 + game as usize,
            result: result.parse().unwrap(),
            termination: "five".into(),
        }
    }

    fn audit_of(games: &[AuditGame]) -> Audit {
        let mut a = Auditor::default();
        for g in games {
            a.add(g).unwrap();
        }
        a.finish()
    }

    proptest! {
        #[test]
        fn every_image_has_the_same_canonical_form(
            points in proptest::collection::hash_set((0u8..15, 0u8..15), 1..8),
            sym in 0usize..8,
        ) {
            let moves: Vec<Pos> = points.into_iter().map(|(x, y)| Pos::new(x, y)).collect();
            let (_, canon) = Symmetry::canonical(&moves, size());
            let image = Symmetry::from_index(sym).apply_all(&moves, size());
            prop_assert_eq!(&Symmetry::canonical(&image, size()).1, &canon);
            prop_assert_eq!(Symmetry::canonical(&canon, size()).1, canon.clone());
            let file: Vec<Opening> = Symmetry::ALL
                .iter()
                .enumerate()
                .map(|(i, s)| Opening { line: i + 1, stones: s.apply_all(&moves, size()) })
                .collect();
            let unique = canonical_openings(&file, size());
            prop_assert_eq!(unique.len(), 1);
            prop_assert_eq!(unique[0].count, 8);
            prop_assert_eq!(&unique[0].opening.stones, &canon);
        }
    }

    #[test]
    fn canonical_openings_keep_first_occurrence_order_and_count() {
        let file = [
            Opening {
                line: 1,
                stones: stones("h8i9"),
            },
            Opening {
                line: 2,
                stones: stones("h8h9"),
            },
            // h8i9 turned a quarter: the same opening.
            Opening {
                line: 4,
                stones: Symmetry::Rot90.apply_all(&stones("h8i9"), size()),
            },
        ];
        let unique = canonical_openings(&file, size());
        assert_eq!(unique.len(), 2);
        assert_eq!((unique[0].opening.line, unique[0].count), (1, 2));
        assert_eq!((unique[1].opening.line, unique[1].count), (2, 1));
    }

    #[test]
    fn pairs_share_a_canonical_opening_with_colours_reversed() {
        // Pair 0: the same opening (second game rotated), black wins both: a black sweep.
        // Pair 1: engine 0 wins both (as black, then as white): decisive, LL/WW cell.
        let rotated =
            to_pos_sequence(&Symmetry::Rot180.apply_all(&stones("h8i9"), size()), size()).unwrap();
        let a = audit_of(&[
            game(1, 0, 0, "h8i9", "1-0"),
            game(2, 1, 1, &rotated, "1-0"),
            game(3, 2, 0, "h8h9", "1-0"),
            game(4, 3, 1, "h8h9", "1-0"),
            game(5, 4, 0, "g8h9", "1-0"),
            game(6, 5, 1, "g8h9", "0-1"),
        ]);
        assert_eq!(a.games, 6);
        assert_eq!(a.pairs, 3);
        let canon =
            |t: &str| to_pos_sequence(&Symmetry::canonical(&stones(t), size()).1, size()).unwrap();
        let of = |t: &str| a.openings.iter().find(|o| o.opening == canon(t)).unwrap();
        let first = of("h8i9");
        assert_eq!(first.games, 2);
        assert_eq!(first.pentanomial, [0, 0, 1, 0, 0]);
        assert_eq!(first.decided_by, Some(Color::Black));
        assert_eq!(first.decisive_pairs, Some(0.0));
        assert_eq!(first.black_score, 1.0);
        let g = of("g8h9");
        assert_eq!(g.pentanomial, [0, 0, 0, 0, 1]);
        assert_eq!(g.decisive_pairs, Some(1.0));
        assert_eq!(g.decided_by, None);
        assert_eq!(g.average_moves, 15.5);
        assert_eq!(g.terminations.get("five"), Some(&2));
    }

    #[test]
    fn partners_with_other_openings_or_colours_stay_single_games() {
        let a = audit_of(&[
            game(1, 0, 0, "h8i9", "1-0"),
            game(2, 1, 1, "h8h9", "1-0"),
            game(3, 2, 0, "h8i9", "0-1"),
            game(4, 3, 0, "h8i9", "1-0"),
        ]);
        assert_eq!(a.games, 4);
        assert_eq!(a.pairs, 0);
        assert!(a.openings.iter().all(|o| o.decided_by.is_none()));
    }

    #[test]
    fn repeats_are_dropped_and_conflicts_refused() {
        let mut a = Auditor::default();
        a.add(&game(1, 0, 0, "h8i9", "1-0")).unwrap();
        a.add(&game(1, 0, 0, "h8i9", "1-0")).unwrap();
        assert!(a.add(&game(1, 0, 0, "h8i9", "0-1")).is_err());
        let audit = a.finish();
        assert_eq!(audit.games, 1);
        assert_eq!(audit.openings[0].black_wins, 1);
    }

    #[test]
    fn openings_of_boards_over_26_are_written_as_offsets() {
        let size = BoardSize::new(30).unwrap();
        let g = AuditGame {
            size,
            opening: vec![size.center(), Pos::new(16, 14)],
            ..game(1, 0, 0, "h8", "1-0")
        };
        // The symmetries of an even board turn about (14.5, 14.5): the centre's smallest image
        // is (14,14), offset -1,-1, and flipYX takes (16,14) to (15,13), offset 0,-2.
        assert_eq!(audit_of(&[g]).openings[0].opening, "-1,-1, 0,-2");
    }

    #[test]
    fn wilson_interval_holds_the_score_and_stays_in_bounds() {
        let (low, high) = wilson(10.0, 10);
        assert!(low > 0.69 && low < 0.73 && high > 0.9999, "{low} {high}");
        let (low, high) = wilson(5.0, 10);
        assert!(low < 0.5 && high > 0.5 && (0.5 - low - (high - 0.5)).abs() < 1e-12);
        assert_eq!(wilson(0.0, 0), (0.0, 1.0));
    }

    #[test]
    fn the_text_table_has_a_line_per_opening() {
        let a = audit_of(&[game(1, 0, 0, "h8i9", "1-0"), game(2, 1, 1, "h8i9", "1-0")]);
        let text = to_text(&a);
        assert_eq!(text.lines().count(), 3 + a.openings.len());
        assert!(text.contains("black"), "{text}");
    }
}
