//! The scout's search: a padded board that keeps, for every empty point, colour and direction, the
//! line shape a stone there would make (updated incrementally along the four lines of each move),
//! a pattern evaluation summed from those shapes, and iterative-deepening alpha-beta over the most
//! promising nearby points with immediate-win, must-block and open-four shortcuts.
//!
//! Every completed iteration is handed to a reporter with its real depth, nodes, time and the
//! principal variations (several with multi-PV: each root move that reached the best n keeps its
//! exact score and line).

use std::time::{Duration, Instant};

use gomoku_cli::core::board::{Board, Color, Pos};
use gomoku_cli::core::rules::{forbidden_kind, Rule};

use pbrain_kit::report::Value;

use crate::hash::HashTable;
use crate::pattern::{Shape, ShapeTable, BLOCK, EMPTY, OWN, POW3};
use crate::weights::Weights;

/// Padding around the board: the shape window reaches 4 cells out and the move neighbourhood 2.
const PAD: usize = 5;
const WALL: u8 = 3;
/// Score of a win on the spot; wins further away score `WIN - ply`.
pub const WIN: i32 = 10_000_000;
const WIN_MIN: i32 = WIN - 10_000;
const INF: i32 = WIN + 1;
/// Offsets of the 8 window cells, matching `pattern::POW3` order.
const WINDOW: [isize; 8] = [-4, -3, -2, -1, 1, 2, 3, 4];
/// Moves tried at the root and at inner nodes, best-ordered first.
const ROOT_WIDTH: usize = 20;
const NODE_WIDTH: usize = 12;

/// Per-direction value of a move for move ordering (combinations handled in `move_value`).
const MOVE_VALUE: [i32; Shape::COUNT] = [0, 2, 6, 25, 30, 400, 500, 100_000, 1_000_000];

/// The two shape tables (overline counts as five, or only exact five does) and the evaluation
/// weights.
pub struct Tables {
    free: ShapeTable,
    exact: ShapeTable,
    pub weights: Weights,
}

impl Tables {
    pub fn new() -> Self {
        Tables {
            free: ShapeTable::new(false),
            exact: ShapeTable::new(true),
            weights: Weights::default(),
        }
    }
}

impl Default for Tables {
    fn default() -> Self {
        Self::new()
    }
}

/// Search limits for one move.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_depth: u32,
    pub max_nodes: u64,
    /// Wall-clock budget; the first iteration always completes.
    pub time: Option<Duration>,
}

/// One principal variation of a completed iteration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootLine {
    /// From the side to move's view; `WIN - k` a win by the five on ply k (0 = this move).
    pub score: i32,
    /// The variation, starting with the root move.
    pub line: Vec<Pos>,
    /// Nodes searched under this root move so far (all iterations).
    pub nodes: u64,
    /// The deepest ply reached under this root move in this iteration.
    pub seldepth: u32,
}

/// What the search knows after a completed iteration (or a shortcut that needed none).
#[derive(Debug, Clone, Copy)]
pub struct Iteration<'a> {
    pub depth: u32,
    pub total_nodes: u64,
    pub elapsed: Duration,
    /// The best root moves, best first.
    pub lines: &'a [RootLine],
}

/// A score as the protocol reports it: proven wins and losses as mates in plies (the winning
/// move counted), other scores as they are.
pub fn value_of(score: i32) -> Value {
    let plies = |s: i32| (WIN - s.abs() + 1) as u32;
    if score >= WIN_MIN {
        Value::Win(plies(score))
    } else if score <= -WIN_MIN {
        Value::Loss(plies(score))
    } else {
        Value::Score(score)
    }
}

/// A root move with what the search learnt of it.
#[derive(Debug, Clone)]
struct RootMove {
    q: usize,
    /// Its line (cells) from the last iteration where its score was exact.
    pv: Vec<usize>,
    nodes: u64,
    seldepth: u32,
}

/// The outcome of a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchResult {
    pub best: Pos,
    pub score: i32,
    /// Deepest completed iteration.
    pub depth: u32,
    pub nodes: u64,
}

fn ci(c: Color) -> usize {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

fn color_of(i: usize) -> Color {
    if i == 0 {
        Color::Black
    } else {
        Color::White
    }
}

/// Window state of a cell value (0 empty, 1 black, 2 white, 3 wall) for colour index 0 or 1.
const STATE: [[u8; 4]; 2] = [[EMPTY, OWN, BLOCK, BLOCK], [EMPTY, BLOCK, OWN, BLOCK]];

pub struct Scout<'t> {
    tables: &'t Tables,
    /// Best moves of positions met before (this search's and earlier moves').
    hash: Option<&'t mut HashTable>,
    /// Zobrist key of the position.
    key: u64,
    rule: Rule,
    n: usize,
    w: usize,
    dirs: [isize; 4],
    cells: Vec<u8>,
    /// `[cell][colour][direction]`: shape a stone of that colour on that empty cell makes.
    shapes: Vec<[[Shape; 4]; 2]>,
    /// Stones within two cells (Chebyshev) of each cell.
    near: Vec<u16>,
    potential: [i64; 2],
    counts: [[i32; Shape::COUNT]; 2],
    /// Mirror of the position for the library's renju forbidden-point detection.
    board: Board,
    nodes: u64,
    /// The deepest ply reached since it was last reset (per root move).
    seldepth: u32,
    /// `pv[ply]`: the best line found from the node being searched at that ply.
    pv: Vec<Vec<usize>>,
    deadline: Option<Instant>,
    max_nodes: u64,
    may_abort: bool,
    aborted: bool,
}

impl<'t> Scout<'t> {
    /// Set up the search on `board` (stones with their colours, in history order).
    #[cfg(test)]
    pub fn new(tables: &'t Tables, board: &Board, rule: Rule) -> Self {
        Self::with_hash(tables, None, board, rule)
    }

    /// Set up the search with a hash table kept between searches.
    pub fn with_hash(
        tables: &'t Tables,
        hash: Option<&'t mut HashTable>,
        board: &Board,
        rule: Rule,
    ) -> Self {
        let n = board.size().get() as usize;
        let w = n + 2 * PAD;
        let mut cells = vec![WALL; w * w];
        for y in 0..n {
            for x in 0..n {
                cells[(y + PAD) * w + x + PAD] = 0;
            }
        }
        let wi = w as isize;
        let mut s = Scout {
            tables,
            hash,
            key: 0,
            rule,
            n,
            w,
            dirs: [1, wi, wi + 1, 1 - wi],
            cells,
            shapes: vec![[[Shape::None; 4]; 2]; w * w],
            near: vec![0; w * w],
            potential: [0; 2],
            counts: [[0; Shape::COUNT]; 2],
            board: Board::new(board.size()),
            nodes: 0,
            seldepth: 0,
            pv: Vec::new(),
            deadline: None,
            max_nodes: u64::MAX,
            may_abort: false,
            aborted: false,
        };
        for y in 0..n {
            for x in 0..n {
                let q = s.idx(Pos::new(x as u8, y as u8));
                for d in 0..4 {
                    s.recompute(q, d);
                }
            }
        }
        for &p in board.history() {
            if let Some(c) = board.get(p) {
                s.make(s.idx(p), c);
            }
        }
        s
    }

    fn idx(&self, p: Pos) -> usize {
        (p.y as usize + PAD) * self.w + p.x as usize + PAD
    }

    fn pos(&self, q: usize) -> Pos {
        Pos::new((q % self.w - PAD) as u8, (q / self.w - PAD) as u8)
    }

    fn exact_for(&self, c: usize) -> bool {
        match self.rule {
            Rule::ExactFive | Rule::StandardCaro => true,
            Rule::Renju => c == 0,
            Rule::Freestyle | Rule::Caro => false,
        }
    }

    fn shape_at(&self, q: usize, c: usize, d: usize) -> Shape {
        let step = self.dirs[d];
        let st = &STATE[c];
        let mut code = 0;
        for (k, off) in WINDOW.iter().enumerate() {
            let r = (q as isize + off * step) as usize;
            code += st[self.cells[r] as usize] as usize * POW3[k];
        }
        let table = if self.exact_for(c) {
            &self.tables.exact
        } else {
            &self.tables.free
        };
        let shape = table.get(code);
        if shape == Shape::Five && matches!(self.rule, Rule::Caro | Rule::StandardCaro) {
            // Caro: a five (exact, for the Gomocup judge's caro) closed at both ends by the
            // opponent does not win. The board edge is not a block.
            let own = c as u8 + 1;
            let opp = 2 - c as u8;
            let mut a = q as isize - step;
            while self.cells[a as usize] == own {
                a -= step;
            }
            let mut b = q as isize + step;
            while self.cells[b as usize] == own {
                b += step;
            }
            let len = ((b - a) / step - 1) as usize;
            let blocked = self.cells[a as usize] == opp && self.cells[b as usize] == opp;
            if blocked && len == 5 {
                return Shape::None;
            }
        }
        shape
    }

    fn recompute(&mut self, q: usize, d: usize) {
        for c in 0..2 {
            let new = if self.cells[q] == 0 {
                self.shape_at(q, c, d)
            } else {
                Shape::None
            };
            let old = self.shapes[q][c][d];
            if old != new {
                let weights = &self.tables.weights;
                self.potential[c] += weights.potential(new) - weights.potential(old);
                self.counts[c][old as usize] -= 1;
                self.counts[c][new as usize] += 1;
                self.shapes[q][c][d] = new;
            }
        }
    }

    fn update_lines(&mut self, q: usize) {
        for d in 0..4 {
            let step = self.dirs[d];
            for k in -4..=4isize {
                let r = (q as isize + k * step) as usize;
                if self.cells[r] != WALL {
                    self.recompute(r, d);
                }
            }
        }
    }

    fn touch_near(&mut self, q: usize, add: bool) {
        let w = self.w as isize;
        for dy in -2..=2isize {
            for dx in -2..=2isize {
                let r = (q as isize + dy * w + dx) as usize;
                if add {
                    self.near[r] += 1;
                } else {
                    self.near[r] -= 1;
                }
            }
        }
    }

    fn make(&mut self, q: usize, c: Color) {
        self.key ^= self.hash.as_ref().map_or(0, |h| h.key(q, ci(c)));
        self.cells[q] = ci(c) as u8 + 1;
        let p = self.pos(q);
        self.board.put(p, c);
        self.touch_near(q, true);
        self.update_lines(q);
    }

    fn unmake(&mut self, q: usize) {
        let c = usize::from(self.cells[q].max(1) - 1);
        self.key ^= self.hash.as_ref().map_or(0, |h| h.key(q, c));
        self.cells[q] = 0;
        let p = self.pos(q);
        self.board.remove(p);
        self.touch_near(q, false);
        self.update_lines(q);
    }

    /// Whether black may not play `q` in renju. The library check is only consulted when the
    /// shapes make it possible (two threes or fours, a four in one line, or a long run).
    fn forbidden(&self, q: usize, c: usize) -> bool {
        if self.rule != Rule::Renju || c != 0 {
            return false;
        }
        let sh = &self.shapes[q][0];
        let strong = sh.iter().filter(|&&s| s >= Shape::Three).count();
        let mut possible = strong >= 2 || sh.contains(&Shape::OpenFour);
        if !possible {
            for &step in &self.dirs {
                let mut len = 1;
                let mut r = q as isize - step;
                while self.cells[r as usize] == 1 {
                    len += 1;
                    r -= step;
                }
                let mut r = q as isize + step;
                while self.cells[r as usize] == 1 {
                    len += 1;
                    r += step;
                }
                if len >= 6 {
                    possible = true;
                    break;
                }
            }
        }
        possible && forbidden_kind(&self.board, self.pos(q)).is_some()
    }

    fn move_value(&self, q: usize, c: usize) -> i32 {
        let sh = &self.shapes[q][c];
        let mut cnt = [0u8; Shape::COUNT];
        let mut sum = 0;
        for &s in sh {
            cnt[s as usize] += 1;
            sum += MOVE_VALUE[s as usize];
        }
        let four = cnt[Shape::Four as usize];
        let open_three = cnt[Shape::OpenThree as usize];
        if cnt[Shape::Five as usize] > 0 || cnt[Shape::OpenFour as usize] > 0 {
            return sum;
        }
        if four >= 2 {
            sum + 100_000
        } else if four >= 1 && open_three >= 1 {
            sum + 50_000
        } else if open_three >= 2 {
            sum + 20_000
        } else {
            sum
        }
    }

    fn best_shape(&self, q: usize, c: usize) -> Shape {
        *self.shapes[q][c].iter().max().unwrap_or(&Shape::None)
    }

    fn has(&self, c: usize, s: Shape) -> bool {
        self.counts[c][s as usize] > 0
    }

    fn board_cells(&self) -> impl Iterator<Item = usize> + '_ {
        let (n, w) = (self.n, self.w);
        (0..n).flat_map(move |y| (0..n).map(move |x| (y + PAD) * w + x + PAD))
    }

    /// Start the line of the node at `ply` afresh (the table grows as the search goes deeper).
    fn clear_pv(&mut self, ply: usize) {
        while self.pv.len() <= ply + 1 {
            self.pv.push(Vec::new());
        }
        self.pv[ply].clear();
    }

    /// The line at `ply` becomes `q`, followed by the child's line when `with_child`.
    fn set_pv(&mut self, ply: usize, q: usize, with_child: bool) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(q);
        if with_child {
            line.extend_from_slice(&tail[0]);
        }
    }

    /// Empty cells where colour `c` has a shape `s` in some direction.
    fn cells_with(&self, c: usize, s: Shape) -> Vec<usize> {
        self.board_cells()
            .filter(|&q| self.cells[q] == 0 && self.shapes[q][c].contains(&s))
            .collect()
    }

    /// Candidate moves for `s`, best first: empty points near stones, narrowed to answers to an
    /// opponent's open three when there is one.
    fn ordered_moves(&self, s: usize) -> Vec<(i32, usize)> {
        let o = 1 - s;
        let must_answer_three = self.has(o, Shape::OpenFour) && !self.has(s, Shape::OpenFour);
        let mut moves: Vec<(i32, usize)> = self
            .board_cells()
            .filter(|&q| self.cells[q] == 0 && self.near[q] > 0)
            .filter(|&q| {
                !must_answer_three
                    || self.best_shape(q, s) >= Shape::Four
                    || self.best_shape(q, o) >= Shape::Four
            })
            .map(|q| {
                let att = self.move_value(q, s);
                let def = self.move_value(q, o);
                (att + att / 8 + def, q)
            })
            .collect();
        moves.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        moves
    }

    fn evaluate(&self, s: usize) -> i32 {
        let o = 1 - s;
        // The side to move converts its threats first: weigh them a little more.
        let v = self.potential[s] * 9 / 8 - self.potential[o];
        v.clamp(-(WIN_MIN as i64) + 1, WIN_MIN as i64 - 1) as i32
    }

    fn check_limits(&mut self) {
        if !self.may_abort {
            return;
        }
        if self.nodes >= self.max_nodes {
            self.aborted = true;
        }
        if self.nodes.is_multiple_of(256) {
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.aborted = true;
                }
            }
        }
    }

    fn negamax(&mut self, depth: i32, mut alpha: i32, beta: i32, ply: i32, s: usize) -> i32 {
        self.nodes += 1;
        let at = ply as usize;
        self.seldepth = self.seldepth.max(ply as u32);
        self.clear_pv(at);
        self.check_limits();
        if self.aborted {
            return 0;
        }
        let o = 1 - s;
        if self.has(s, Shape::Five) {
            if let Some(&q) = self.cells_with(s, Shape::Five).first() {
                self.set_pv(at, q, false);
            }
            return WIN - ply;
        }
        if self.board.stone_count() == self.n * self.n {
            return 0;
        }
        if self.has(o, Shape::Five) {
            let threats = self.cells_with(o, Shape::Five);
            if threats.len() >= 2 || self.forbidden(threats[0], s) {
                return -(WIN - ply - 1);
            }
            let q = threats[0];
            self.make(q, color_of(s));
            let v = -self.negamax(depth - 1, -beta, -alpha, ply + 1, o);
            self.unmake(q);
            self.set_pv(at, q, true);
            return v;
        }
        // An open four the opponent cannot answer with a four of its own wins, even at a leaf.
        let opp_fours = self.has(o, Shape::Four) || self.has(o, Shape::OpenFour);
        if self.has(s, Shape::OpenFour) && !opp_fours {
            let wins = self.cells_with(s, Shape::OpenFour);
            if let Some(&q) = wins.iter().find(|&&q| !self.forbidden(q, s)) {
                self.set_pv(at, q, false);
                return WIN - ply - 2;
            }
        }
        if depth <= 0 {
            return self.evaluate(s);
        }
        let mut moves = self.ordered_moves(s);
        // The move that was best here before goes first.
        let key = self.key ^ s as u64;
        if let Some(q) = self.hash.as_ref().and_then(|h| h.probe(key)) {
            if let Some(i) = moves.iter().position(|&(_, r)| r == q) {
                let m = moves.remove(i);
                moves.insert(0, m);
            }
        }
        let mut best = -INF;
        let mut best_move = None;
        for &(_, q) in moves.iter().take(NODE_WIDTH) {
            if self.forbidden(q, s) {
                continue;
            }
            self.make(q, color_of(s));
            let v = -self.negamax(depth - 1, -beta, -alpha, ply + 1, o);
            self.unmake(q);
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                best_move = Some(q);
                if v > alpha {
                    alpha = v;
                    self.set_pv(at, q, true);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if let (Some(q), Some(h)) = (best_move, self.hash.as_mut()) {
            h.store(key, q);
        }
        if best == -INF {
            // No playable candidate (everything near is forbidden): judge the position as is.
            return self.evaluate(s);
        }
        best
    }

    /// Pick a move for `me` with one principal variation, reporting nothing.
    #[cfg(test)]
    pub fn choose(&mut self, me: Color, limits: Limits) -> Option<SearchResult> {
        self.search(me, limits, 1, &mut |_| {})
    }

    /// Report a move found without searching (a five, a lost position, an empty board): its
    /// `line`, `score` and `depth`, no nodes.
    fn found(
        &self,
        start: Instant,
        line: &[usize],
        score: i32,
        depth: u32,
        report: &mut dyn FnMut(&Iteration),
    ) -> Option<SearchResult> {
        let lines = [RootLine {
            score,
            line: line.iter().map(|&q| self.pos(q)).collect(),
            nodes: 0,
            seldepth: depth,
        }];
        report(&Iteration {
            depth,
            total_nodes: self.nodes,
            elapsed: start.elapsed(),
            lines: &lines,
        });
        Some(SearchResult {
            best: self.pos(line[0]),
            score,
            depth,
            nodes: self.nodes,
        })
    }

    /// Pick a move for `me`, searching the best `pvs` root moves exactly, and hand every
    /// completed iteration to `report` (the last one reported is the move returned). `None`
    /// only when no point on the board is legal.
    pub fn search(
        &mut self,
        me: Color,
        limits: Limits,
        pvs: usize,
        report: &mut dyn FnMut(&Iteration),
    ) -> Option<SearchResult> {
        let start = Instant::now();
        let s = ci(me);
        let o = 1 - s;
        self.nodes = 0;
        self.aborted = false;
        self.may_abort = false;
        self.deadline = limits.time.map(|t| start + t);
        self.max_nodes = limits.max_nodes.max(1);

        // Every legal point near the stones, checked with the library's forbidden-point rule.
        let legal = |q: usize| {
            self.cells[q] == 0
                && !(self.rule == Rule::Renju
                    && s == 0
                    && forbidden_kind(&self.board, self.pos(q)).is_some())
        };
        let mut root: Vec<(i32, usize)> = self
            .ordered_moves(s)
            .into_iter()
            .filter(|&(_, q)| legal(q))
            .collect();
        if root.is_empty() {
            if self.board.stone_count() == 0 {
                let c = self.n / 2;
                let q = (c + PAD) * self.w + c + PAD;
                if legal(q) {
                    return self.found(start, &[q], self.evaluate(s), 0, report);
                }
            }
            // Nothing playable near the stones (or narrowed away): any legal point at all.
            let q = self.board_cells().find(|&q| legal(q))?;
            let all: Vec<(i32, usize)> = self
                .board_cells()
                .filter(|&q| self.cells[q] == 0 && self.near[q] > 0 && legal(q))
                .map(|q| (0, q))
                .collect();
            if all.is_empty() {
                return self.found(start, &[q], self.evaluate(s), 0, report);
            }
            root = all;
        }
        if let Some(&(_, q)) = root
            .iter()
            .find(|&&(_, q)| self.shapes[q][s].contains(&Shape::Five))
        {
            return self.found(start, &[q], WIN, 1, report);
        }
        let threats = self.cells_with(o, Shape::Five);
        if !threats.is_empty() {
            let block = threats.iter().copied().find(|&q| legal(q));
            match block {
                // One five to stop: search that move alone, for its real score and line.
                Some(q) if threats.len() == 1 => root = vec![(0, q)],
                _ => {
                    let q = block.unwrap_or(root[0].1);
                    let five = threats.iter().copied().find(|&t| t != q).unwrap_or(q);
                    return self.found(start, &[q, five], -(WIN - 1), 1, report);
                }
            }
        }
        root.truncate(ROOT_WIDTH);
        let root: Vec<RootMove> = root
            .into_iter()
            .map(|(_, q)| RootMove {
                q,
                pv: Vec::new(),
                nodes: 0,
                seldepth: 0,
            })
            .collect();
        self.deepen(me, limits, pvs.clamp(1, root.len()), root, start, report)
    }

    /// Iterative deepening over `root`, keeping the best `pvs` moves exact at each depth.
    fn deepen(
        &mut self,
        me: Color,
        limits: Limits,
        pvs: usize,
        mut root: Vec<RootMove>,
        start: Instant,
        report: &mut dyn FnMut(&Iteration),
    ) -> Option<SearchResult> {
        let o = 1 - ci(me);
        let mut result = None;
        for depth in 1..=limits.max_depth.max(1) {
            self.may_abort = depth > 1;
            // (score, index in root) of the best moves with exact scores, best first.
            let mut top: Vec<(i32, usize)> = Vec::with_capacity(pvs + 1);
            for (i, m) in root.iter_mut().enumerate() {
                // Only a move that beats the n-th best so far needs an exact score.
                let alpha = if top.len() < pvs {
                    -INF
                } else {
                    top[pvs - 1].0
                };
                let before = self.nodes;
                self.seldepth = 0;
                self.make(m.q, me);
                let v = -self.negamax(depth as i32 - 1, -INF, -alpha, 1, o);
                self.unmake(m.q);
                m.nodes += self.nodes - before;
                if self.aborted {
                    break;
                }
                if v > alpha {
                    m.pv.clear();
                    m.pv.push(m.q);
                    m.pv.extend_from_slice(&self.pv[1]);
                    m.seldepth = self.seldepth;
                    let at = top.iter().position(|&(t, _)| t < v).unwrap_or(top.len());
                    top.insert(at, (v, i));
                    top.truncate(pvs);
                }
            }
            if self.aborted {
                break;
            }
            let lines: Vec<RootLine> = top
                .iter()
                .map(|&(score, i)| RootLine {
                    score,
                    line: root[i].pv.iter().map(|&q| self.pos(q)).collect(),
                    nodes: root[i].nodes,
                    seldepth: root[i].seldepth,
                })
                .collect();
            report(&Iteration {
                depth,
                total_nodes: self.nodes,
                elapsed: start.elapsed(),
                lines: &lines,
            });
            let best_score = top[0].0;
            result = Some(SearchResult {
                best: lines[0].line[0],
                score: best_score,
                depth,
                nodes: self.nodes,
            });
            // The best moves first in the next iteration, the others in their order.
            let mut next: Vec<RootMove> = top.iter().map(|&(_, i)| root[i].clone()).collect();
            next.extend(
                root.iter()
                    .enumerate()
                    .filter(|(i, _)| !top.iter().any(|t| t.1 == *i))
                    .map(|(_, m)| m.clone()),
            );
            root = next;
            if best_score >= WIN_MIN || best_score <= -WIN_MIN {
                break;
            }
            if let Some(t) = limits.time {
                // The next iteration costs several times this one: do not start what cannot end.
                if start.elapsed() * 3 > t {
                    break;
                }
            }
        }
        // The first iteration cannot be cut, so there is a result; the node count is the search's.
        result.map(|r| SearchResult {
            nodes: self.nodes,
            ..r
        })
    }
}

/// Search limits from the announced protocol limits and the command-line defaults.
pub fn limits_for(
    announced: &pbrain_kit::Limits,
    default_depth: u32,
    default_nodes: Option<u64>,
    default_time: Duration,
) -> Limits {
    let budget = announced.move_budget(default_time);
    let mut max_depth = announced.max_depth.unwrap_or(default_depth).max(1);
    if budget.is_zero() {
        // `timeout_turn 0`: as fast as possible.
        max_depth = max_depth.min(2);
    }
    Limits {
        max_depth,
        max_nodes: announced.max_node.or(default_nodes).unwrap_or(u64::MAX),
        time: (!budget.is_zero()).then_some(budget),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gomoku_cli::core::board::BoardSize;

    /// Black to move with an open three (x 5..=7 on row 7) that becomes an open four.
    const OPEN_THREE: [&str; 15] = [
        "...............",
        "...............",
        "...............",
        "...............",
        "...............",
        "...............",
        "......O........",
        ".....XXX.......",
        "......O........",
        "...............",
        "....O..........",
        "...............",
        "...............",
        "...............",
        "...............",
    ];

    fn board_from(rows: &[&str]) -> Board {
        Board::from_rows(BoardSize::new(rows.len() as u32).unwrap(), rows).unwrap()
    }

    fn limits(depth: u32) -> Limits {
        Limits {
            max_depth: depth,
            max_nodes: u64::MAX,
            time: None,
        }
    }

    #[test]
    fn takes_a_win_and_blocks_a_five() {
        let t = Tables::new();
        let rows = [
            ".........",
            ".XXXX....",
            ".........",
            "..OOOO...",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
        ];
        let b = board_from(&rows);
        let mut s = Scout::new(&t, &b, Rule::Freestyle);
        let r = s.choose(Color::Black, limits(3)).unwrap();
        assert!(
            r.best == Pos::new(0, 1) || r.best == Pos::new(5, 1),
            "{r:?}"
        );
        let rows = [
            ".........",
            ".XXX.....",
            ".........",
            "..OOOO...",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
        ];
        let b = board_from(&rows);
        let mut s = Scout::new(&t, &b, Rule::Freestyle);
        let r = s.choose(Color::Black, limits(3)).unwrap();
        assert!(
            r.best == Pos::new(1, 3) || r.best == Pos::new(6, 3),
            "{r:?}"
        );
    }

    #[test]
    fn exact_five_does_not_chase_an_overline() {
        let t = Tables::new();
        // X at 0..=2 and 4..=5 on row 0: filling 3 makes six, which does not win under rule 1.
        let rows = [
            "XXX.XX...",
            ".........",
            ".........",
            ".........",
            "...O.O...",
            ".........",
            ".........",
            ".........",
            ".........",
        ];
        let b = board_from(&rows);
        let mut free = Scout::new(&t, &b, Rule::Freestyle);
        assert_eq!(
            free.choose(Color::Black, limits(2)).unwrap().best,
            Pos::new(3, 0)
        );
        let mut exact = Scout::new(&t, &b, Rule::ExactFive);
        assert_ne!(
            exact.choose(Color::Black, limits(2)).unwrap().best,
            Pos::new(3, 0)
        );
    }

    #[test]
    fn incremental_shapes_match_a_fresh_build() {
        let t = Tables::new();
        let rows = [
            ".........",
            ".XX.O....",
            "..XO.....",
            "..OX.X...",
            "....O....",
            ".........",
            ".........",
            ".........",
            ".........",
        ];
        let b = board_from(&rows);
        let mut s = Scout::new(&t, &b, Rule::Renju);
        let before = (s.shapes.clone(), s.potential, s.counts);
        let q = s.idx(Pos::new(4, 4 - 1));
        s.make(q, Color::Black);
        s.unmake(q);
        assert_eq!((s.shapes.clone(), s.potential, s.counts), before);
    }

    /// A middle game on 15x15 with black to move: white has an open three to answer.
    fn midgame() -> Board {
        let mut b = Board::new(BoardSize::STANDARD);
        for (x, y) in [(7, 7), (8, 8), (8, 7), (6, 6), (9, 7), (7, 9), (5, 8)] {
            let c = b.side_to_move();
            assert!(b.put(Pos::new(x, y), c));
        }
        b
    }

    /// Every iteration's lines, in the order reported.
    fn searched(
        b: &Board,
        me: Color,
        limits: Limits,
        pvs: usize,
    ) -> (SearchResult, Vec<Vec<RootLine>>, Vec<u32>) {
        let t = Tables::new();
        let mut s = Scout::new(&t, b, Rule::Freestyle);
        let mut seen = Vec::new();
        let mut depths = Vec::new();
        let r = s
            .search(me, limits, pvs, &mut |it| {
                depths.push(it.depth);
                seen.push(it.lines.to_vec());
            })
            .unwrap();
        (r, seen, depths)
    }

    #[test]
    fn every_iteration_is_reported_and_the_last_is_the_move_played() {
        let b = midgame();
        let (r, seen, depths) = searched(&b, Color::White, limits(4), 1);
        assert_eq!(depths, [1, 2, 3, 4]);
        let last = &seen.last().unwrap()[0];
        assert_eq!(seen.last().unwrap().len(), 1);
        assert_eq!((last.line[0], last.score), (r.best, r.score));
        for lines in &seen {
            // A line is a sequence of distinct empty points.
            let l = &lines[0].line;
            assert!(l.iter().all(|&p| b.is_empty_at(p)), "{l:?}");
            let mut d = l.clone();
            d.sort_by_key(|p| (p.y, p.x));
            d.dedup();
            assert_eq!(d.len(), l.len(), "{l:?}");
        }
        // The multi-PV search answers the same move as the single one.
        let (r3, seen3, _) = searched(&b, Color::White, limits(4), 3);
        assert_eq!(r3.best, r.best);
        assert_eq!(seen3.last().unwrap()[0].line[0], r.best);
    }

    #[test]
    fn several_pvs_are_distinct_root_moves_sorted_by_score() {
        let b = midgame();
        let (_, seen, _) = searched(&b, Color::White, limits(4), 3);
        for lines in &seen {
            assert_eq!(lines.len(), 3);
            let firsts: Vec<Pos> = lines.iter().map(|l| l.line[0]).collect();
            assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
            assert!(
                lines.windows(2).all(|w| w[0].score >= w[1].score),
                "{lines:?}"
            );
            assert!(lines.iter().all(|l| l.nodes > 0));
        }
        // Every move's own score is its exact one: searching it alone gives the same.
        let (one, _, _) = searched(&b, Color::White, limits(4), 1);
        assert_eq!(seen.last().unwrap()[0].score, one.score);
    }

    #[test]
    fn the_search_stops_on_nodes_with_the_last_completed_iteration_reported() {
        let b = midgame();
        let lim = Limits {
            max_depth: 12,
            max_nodes: 2_000,
            time: None,
        };
        let (r, seen, depths) = searched(&b, Color::White, lim, 1);
        assert!(r.depth < 12);
        assert_eq!(*depths.last().unwrap(), r.depth);
        assert_eq!(seen.last().unwrap()[0].line[0], r.best);
    }

    #[test]
    fn wins_and_losses_are_mates_in_plies() {
        assert_eq!(value_of(WIN), Value::Win(1));
        assert_eq!(value_of(WIN - 2), Value::Win(3));
        assert_eq!(value_of(-(WIN - 1)), Value::Loss(2));
        assert_eq!(value_of(35), Value::Score(35));
        assert_eq!(value_of(-(WIN_MIN - 1)), Value::Score(-(WIN_MIN - 1)));
        // Black's open three becomes an open four: a win on the third ply.
        let (r, seen, _) = searched(&board_from(&OPEN_THREE), Color::Black, limits(3), 1);
        let last = &seen.last().unwrap()[0];
        assert_eq!(value_of(last.score), Value::Win(3), "{last:?}");
        assert_eq!(last.line[0], r.best);
        // A five on the spot: reported without a search.
        let rows = [
            ".........",
            ".XXXX....",
            ".........",
            "..OOO....",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
        ];
        let (r, seen, depths) = searched(&board_from(&rows), Color::Black, limits(3), 1);
        assert_eq!(depths, [1]);
        assert_eq!(seen[0][0].line, [r.best]);
        assert_eq!(value_of(seen[0][0].score), Value::Win(1));
    }

    #[test]
    fn finds_an_open_four_from_an_open_three() {
        let t = Tables::new();
        let b = board_from(&OPEN_THREE);
        let mut s = Scout::new(&t, &b, Rule::Freestyle);
        let r = s.choose(Color::Black, limits(3)).unwrap();
        assert!(
            r.best == Pos::new(4, 7) || r.best == Pos::new(8, 7),
            "{r:?}"
        );
        assert!(r.score >= WIN_MIN, "{r:?}");
    }
}
