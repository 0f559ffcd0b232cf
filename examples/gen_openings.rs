//! Generates the opening sets shipped in `openings/` deterministically from a seed.
//!
//! ```text
//! cargo run --release --example gen_openings -- all --seed 20250101 --count 1000 --out-dir openings
//! ```
//!
//! Method (also in `openings/README.md`):
//! * freestyle: for each stone count 3, 4, 5, 6 a quarter of the set. A candidate puts its first
//!   stone within `first_radius` of the centre and every later stone (colours alternating from
//!   black) on an empty point at Chebyshev distance ≤ 2 from an earlier stone and within
//!   `box_radius` of the centre, all uniformly at random from ChaCha8 seeded with `--seed`.
//! * renju: each of the 26 canonical three-stone openings (read from `renju26_canonical.tsv`) gets
//!   every white 4th stone and then every black 5th stone within Chebyshev distance 2 of the stones
//!   already placed (exhaustive, no randomness); each canonical opening gets an equal share.
//! * every candidate is replayed through `rules::Referee::play` (rejecting fives and renju forbidden
//!   black stones), then rejected if either side has a four (a point that completes a five under
//!   the rule) or an open three (a legal stone after which two points complete a five), then
//!   deduplicated by position up to the 8 symmetries (`opening::position_key`).
//! * balance: `v = S(black) − S(white) ± G/2` (+ when black is to move). `S(c)` sums, over every
//!   5-cell window on the board in the 4 directions holding `k ≥ 1` stones of `c` and none of the
//!   opponent, the weight `4^(k−1)`; `G` is the largest increase of `S(mover) − S(other)` one stone
//!   of the side to move can make (legal points within distance 2 of a stone). Within each group
//!   the candidates with the smallest `|v|` are kept (ties by position key), then the whole set is
//!   shuffled with the seed so the file mixes groups.

use std::collections::HashSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Parser, ValueEnum};
use gomoku_cli::core::board::{Board, BoardSize, Color, Pos};
use gomoku_cli::core::rules::{
    forbidden_kind, winning_line, MoveOutcome, Referee, Rule, DIRECTIONS,
};
use gomoku_cli::formats::openings::{position_key, Opening, OpeningBook, OpeningFormat};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Set {
    Freestyle15,
    Renju15,
    Freestyle20,
    All,
}

#[derive(Debug, Parser)]
#[command(about = "Generate the shipped opening sets")]
struct Args {
    /// Which set to generate.
    set: Set,
    /// Seed for the random freestyle candidates and the final shuffle.
    #[arg(long, default_value_t = 20250101)]
    seed: u64,
    /// Openings per file.
    #[arg(long, default_value_t = 1000)]
    count: usize,
    /// Candidates to collect per group, as a multiple of the group's share (freestyle only).
    #[arg(long, default_value_t = 4)]
    pool_factor: usize,
    /// Where to write the files.
    #[arg(long, default_value = "openings")]
    out_dir: PathBuf,
    /// The 26 canonical renju openings (tab-separated; 4th column holds Gomocup x,y pairs).
    #[arg(
        long,
        default_value = "../shared/testdata/openings/renju26_canonical.tsv"
    )]
    renju26: PathBuf,
}

fn main() -> Result<()> {
    let args = Args::parse();
    std::fs::create_dir_all(&args.out_dir)?;
    let sets: &[Set] = match args.set {
        Set::All => &[Set::Freestyle15, Set::Renju15, Set::Freestyle20],
        Set::Freestyle15 => &[Set::Freestyle15],
        Set::Renju15 => &[Set::Renju15],
        Set::Freestyle20 => &[Set::Freestyle20],
    };
    for &set in sets {
        generate(set, &args)?;
    }
    Ok(())
}

struct Spec {
    file: &'static str,
    size: BoardSize,
    rule: Rule,
    format: OpeningFormat,
}

fn spec(set: Set) -> Spec {
    let (file, n, rule, format) = match set {
        Set::Freestyle15 => ("freestyle15.txt", 15, Rule::Freestyle, OpeningFormat::Pos),
        Set::Renju15 => ("renju15.txt", 15, Rule::Renju, OpeningFormat::Pos),
        Set::Freestyle20 | Set::All => (
            "freestyle20.txt",
            20,
            Rule::Freestyle,
            OpeningFormat::Offset,
        ),
    };
    Spec {
        file,
        size: BoardSize::new(n).expect("valid size"),
        rule,
        format,
    }
}

/// A candidate that passed every rejection test.
struct Candidate {
    stones: Vec<Pos>,
    key: Vec<Pos>,
    balance: f64,
}

fn generate(set: Set, args: &Args) -> Result<()> {
    let spec = spec(set);
    // Each set gets its own stream so regenerating one file does not change the others.
    let stream = match set {
        Set::Freestyle15 => 1,
        Set::Renju15 => 2,
        _ => 3,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    rng.set_stream(stream);

    let groups: Vec<Vec<Candidate>> = match set {
        Set::Renju15 => renju_groups(&spec, &args.renju26)?,
        _ => {
            let (first_radius, box_radius) = if spec.size.get() >= 20 {
                (2, 4)
            } else {
                (1, 3)
            };
            freestyle_groups(&spec, args, &mut rng, first_radius, box_radius)
        }
    };

    let shares = split_evenly(args.count, groups.len());
    let mut chosen: Vec<Candidate> = Vec::new();
    for (gi, (mut group, share)) in groups.into_iter().zip(shares).enumerate() {
        if group.len() < share {
            bail!(
                "{}: group {gi} has only {} candidates for a share of {share}",
                spec.file,
                group.len()
            );
        }
        group.sort_by(|a, b| {
            a.balance
                .abs()
                .total_cmp(&b.balance.abs())
                .then_with(|| a.key.cmp(&b.key))
        });
        let pool = group.len();
        group.truncate(share);
        let worst = group.last().map(|c| c.balance.abs()).unwrap_or(0.0);
        let mean = group.iter().map(|c| c.balance).sum::<f64>() / share.max(1) as f64;
        println!(
            "{}: group {gi}: pool {pool}, kept {share}, max |v| {worst:.1}, mean v {mean:+.2}",
            spec.file
        );
        chosen.extend(group);
    }
    // Fisher–Yates with the set's stream so the file interleaves groups.
    for i in (1..chosen.len()).rev() {
        let j = rng.gen_range(0..=i);
        chosen.swap(i, j);
    }

    let path = args.out_dir.join(spec.file);
    write_file(&path, &chosen, &spec)?;
    // Read the file back through the library, exactly as a tournament would.
    let book = OpeningBook::load(&path, spec.format, spec.size, spec.rule)
        .with_context(|| format!("re-reading {}", path.display()))?;
    if book.len() != chosen.len() || !book.duplicates().is_empty() {
        bail!(
            "{}: read back {} openings with duplicates",
            path.display(),
            book.len()
        );
    }
    println!("{}: wrote {} openings", path.display(), book.len());
    Ok(())
}

fn split_evenly(total: usize, parts: usize) -> Vec<usize> {
    (0..parts)
        .map(|i| total / parts + usize::from(i < total % parts))
        .collect()
}

fn write_file(path: &Path, chosen: &[Candidate], spec: &Spec) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    for c in chosen {
        let o = Opening {
            line: 0,
            stones: c.stones.clone(),
        };
        writeln!(out, "{}", o.to_line(spec.format, spec.size)?)?;
    }
    out.flush()?;
    Ok(())
}

fn freestyle_groups(
    spec: &Spec,
    args: &Args,
    rng: &mut ChaCha8Rng,
    first_radius: i64,
    box_radius: i64,
) -> Vec<Vec<Candidate>> {
    let counts = [3usize, 4, 5, 6];
    let shares = split_evenly(args.count, counts.len());
    let mut seen: HashSet<Vec<Pos>> = HashSet::new();
    let mut groups = Vec::new();
    let centre = spec.size.center();
    for (&stones_wanted, share) in counts.iter().zip(shares) {
        let target = share * args.pool_factor;
        let mut group = Vec::new();
        let mut attempts = 0usize;
        while group.len() < target && attempts < target * 200 {
            attempts += 1;
            let stones = random_stones(
                rng,
                spec.size,
                centre,
                stones_wanted,
                first_radius,
                box_radius,
            );
            if let Some(c) = judge(&stones, spec, &mut seen) {
                group.push(c);
            }
        }
        groups.push(group);
    }
    groups
}

fn random_stones(
    rng: &mut ChaCha8Rng,
    size: BoardSize,
    centre: Pos,
    n: usize,
    first_radius: i64,
    box_radius: i64,
) -> Vec<Pos> {
    let (cx, cy) = (centre.x as i64, centre.y as i64);
    let first = Pos::new(
        (cx + rng.gen_range(-first_radius..=first_radius)) as u8,
        (cy + rng.gen_range(-first_radius..=first_radius)) as u8,
    );
    let mut stones = vec![first];
    while stones.len() < n {
        let options: Vec<Pos> = size
            .all()
            .filter(|p| {
                (p.x as i64 - cx).abs() <= box_radius
                    && (p.y as i64 - cy).abs() <= box_radius
                    && !stones.contains(p)
                    && stones.iter().any(|s| chebyshev(*s, *p) <= 2)
            })
            .collect();
        stones.push(options[rng.gen_range(0..options.len())]);
    }
    stones
}

fn chebyshev(a: Pos, b: Pos) -> i64 {
    (a.x as i64 - b.x as i64)
        .abs()
        .max((a.y as i64 - b.y as i64).abs())
}

/// The 26 canonical openings, in file order.
fn read_renju26(path: &Path, size: BoardSize) -> Result<Vec<Vec<Pos>>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading {} (pass --renju26)", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let field = cols
            .get(3)
            .with_context(|| format!("{}:{}: no 4th column", path.display(), i + 1))?;
        let stones = field
            .split(' ')
            .map(|xy| Pos::parse_gomocup(xy, size))
            .collect::<Result<Vec<_>, _>>()
            .with_context(|| format!("{}:{}: {field:?}", path.display(), i + 1))?;
        out.push(stones);
    }
    if out.len() != 26 {
        bail!(
            "{}: expected 26 openings, found {}",
            path.display(),
            out.len()
        );
    }
    Ok(out)
}

fn renju_groups(spec: &Spec, tsv: &Path) -> Result<Vec<Vec<Candidate>>> {
    let mut seen: HashSet<Vec<Pos>> = HashSet::new();
    let mut groups = Vec::new();
    for base in read_renju26(tsv, spec.size)? {
        let mut group = Vec::new();
        for p4 in near_points(spec.size, &base) {
            let mut four = base.clone();
            four.push(p4);
            for p5 in near_points(spec.size, &four) {
                let mut five = four.clone();
                five.push(p5);
                if let Some(c) = judge(&five, spec, &mut seen) {
                    group.push(c);
                }
            }
        }
        groups.push(group);
    }
    Ok(groups)
}

/// Empty points at Chebyshev distance ≤ 2 from some stone, in reading order.
fn near_points(size: BoardSize, stones: &[Pos]) -> Vec<Pos> {
    size.all()
        .filter(|p| !stones.contains(p) && stones.iter().any(|s| chebyshev(*s, *p) <= 2))
        .collect()
}

/// Apply every rejection test; on success record the position key and return the candidate.
fn judge(stones: &[Pos], spec: &Spec, seen: &mut HashSet<Vec<Pos>>) -> Option<Candidate> {
    let mut referee = Referee::new(spec.rule, spec.size);
    for &p in stones {
        if referee.play(p) != MoveOutcome::Continue {
            return None;
        }
    }
    let board = referee.board();
    for c in [Color::Black, Color::White] {
        if has_four(board, c, spec.rule) || has_open_three(board, c, spec.rule) {
            return None;
        }
    }
    let key = position_key(stones, spec.size);
    if !seen.insert(key.clone()) {
        return None;
    }
    Some(Candidate {
        stones: stones.to_vec(),
        balance: balance(board, spec.rule),
        key,
    })
}

/// Empty points on the 4 lines through `p` within 4 steps (where a stone at `p` can matter).
fn line_points(board: &Board, p: Pos) -> impl Iterator<Item = Pos> + '_ {
    let size = board.size();
    DIRECTIONS.iter().flat_map(move |&(dx, dy)| {
        (-4i64..=4).filter(|&k| k != 0).filter_map(move |k| {
            let (x, y) = (p.x as i64 + k * dx, p.y as i64 + k * dy);
            size.pos(x, y).ok().filter(|&q| board.is_empty_at(q))
        })
    })
}

/// A point where one more stone of `c` completes a five under `rule`.
fn has_four(board: &Board, c: Color, rule: Rule) -> bool {
    board
        .size()
        .all()
        .any(|p| board.is_empty_at(p) && winning_line(board, p, c, rule).is_some())
}

/// A legal stone of `c` after which two points complete a five (a straight four): an open three.
/// Only called on positions without fours, so new five points lie on lines through the stone.
fn has_open_three(board: &Board, c: Color, rule: Rule) -> bool {
    let mut b = board.clone();
    let own: Vec<Pos> = board
        .history()
        .iter()
        .copied()
        .filter(|&p| board.get(p) == Some(c))
        .collect();
    let mut tried = HashSet::new();
    for s in own {
        for p in line_points(board, s) {
            if !tried.insert(p) {
                continue;
            }
            if rule == Rule::Renju && c == Color::Black && forbidden_kind(board, p).is_some() {
                continue;
            }
            b.put(p, c);
            let fives: HashSet<Pos> = line_points(&b, p)
                .filter(|&q| winning_line(&b, q, c, rule).is_some())
                .collect();
            b.remove(p);
            if fives.len() >= 2 {
                return true;
            }
        }
    }
    false
}

/// `S(c)`: over 5-cell windows with `k ≥ 1` stones of `c` and none of the opponent, sum `4^(k−1)`.
fn threat_score(board: &Board, c: Color) -> f64 {
    let n = board.size().get() as i64;
    let mut total = 0.0;
    for (dx, dy) in DIRECTIONS {
        for y in 0..n {
            for x in 0..n {
                let (ex, ey) = (x + 4 * dx, y + 4 * dy);
                if !board.size().contains(ex, ey) {
                    continue;
                }
                let mut own = 0;
                let mut blocked = false;
                for i in 0..5 {
                    match board.at(x + i * dx, y + i * dy) {
                        Some(s) if s == c => own += 1,
                        Some(_) => blocked = true,
                        None => {}
                    }
                }
                if !blocked && own > 0 {
                    total += 4f64.powi(own - 1);
                }
            }
        }
    }
    total
}

/// The change of `S(mover) − S(other)` when `mover` puts a stone on the empty point `p`: only the
/// (up to 20) windows through `p` change.
fn gain_at(board: &Board, p: Pos, mover: Color) -> f64 {
    let mut gain = 0.0;
    for (dx, dy) in DIRECTIONS {
        for start in -4i64..=0 {
            let (x0, y0) = (p.x as i64 + start * dx, p.y as i64 + start * dy);
            if !board.size().contains(x0, y0) || !board.size().contains(x0 + 4 * dx, y0 + 4 * dy) {
                continue;
            }
            let (mut own, mut opp) = (0, 0);
            for i in 0..5 {
                match board.at(x0 + i * dx, y0 + i * dy) {
                    Some(s) if s == mover => own += 1,
                    Some(_) => opp += 1,
                    None => {}
                }
            }
            if opp == 0 {
                // The window grows from `own` to `own + 1` mover stones.
                let before = if own > 0 { 4f64.powi(own - 1) } else { 0.0 };
                gain += 4f64.powi(own) - before;
            } else if own == 0 {
                // The window stops counting for the other side.
                gain += 4f64.powi(opp - 1);
            }
        }
    }
    gain
}

/// `v = S(black) − S(white) ± G/2`, positive when black stands better.
fn balance(board: &Board, rule: Rule) -> f64 {
    let mover = board.side_to_move();
    let gain = near_points(board.size(), board.history())
        .into_iter()
        .filter(|&p| {
            !(rule == Rule::Renju && mover == Color::Black && forbidden_kind(board, p).is_some())
        })
        .map(|p| {
            let g = gain_at(board, p, mover);
            // Debug builds check the incremental gain against a full recount.
            if cfg!(debug_assertions) {
                let diff = |b: &Board| threat_score(b, mover) - threat_score(b, mover.opponent());
                let mut after = board.clone();
                after.put(p, mover);
                assert_eq!(g, diff(&after) - diff(board), "gain at {p}");
            }
            g
        })
        .fold(0.0, f64::max);
    let black_minus_white = threat_score(board, Color::Black) - threat_score(board, Color::White);
    match mover {
        Color::Black => black_minus_white + gain / 2.0,
        Color::White => black_minus_white - gain / 2.0,
    }
}
