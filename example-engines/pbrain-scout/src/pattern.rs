//! Line shapes: what a stone on an empty point would make along one line (five, open four, four,
//! open three, three, open two, two, one), read from a table over the 4 cells on each side.
//!
//! The table is built once per "exactness" (does an overline count as five?) by a memoised
//! recursion: a point is a four if one more stone makes five, an open four if two different points
//! do, a three if one more stone can make a four (open three: an open four), and so on down.

/// Cell states inside the window, from the point of view of the colour being judged.
pub const EMPTY: u8 = 0;
pub const OWN: u8 = 1;
/// Opponent stone or board edge.
pub const BLOCK: u8 = 2;

/// Shapes, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    None,
    One,
    Two,
    OpenTwo,
    Three,
    OpenThree,
    Four,
    OpenFour,
    Five,
}

impl Shape {
    pub const COUNT: usize = 9;
    /// The shape one stone short of this one (an open four needs an open three, etc.).
    fn weaker(self) -> Shape {
        match self {
            Shape::Five => Shape::Four,
            Shape::OpenFour => Shape::OpenThree,
            Shape::Four => Shape::Three,
            Shape::OpenThree => Shape::OpenTwo,
            Shape::Three => Shape::Two,
            Shape::OpenTwo | Shape::Two => Shape::One,
            Shape::One | Shape::None => Shape::None,
        }
    }
}

/// Number of window codes: 8 neighbour cells with 3 states each.
pub const CODES: usize = 6561;

/// Powers of three for the 8 neighbours, ordered offset -4..-1 then +1..+4.
pub const POW3: [usize; 8] = [1, 3, 9, 27, 81, 243, 729, 2187];

/// Shape lookup for one exactness.
pub struct ShapeTable {
    shapes: Vec<Shape>,
}

fn decode(code: usize) -> [u8; 9] {
    let mut line = [EMPTY; 9];
    let mut c = code;
    for k in 0..8 {
        let i = if k < 4 { k } else { k + 1 };
        line[i] = (c % 3) as u8;
        c /= 3;
    }
    line[4] = OWN;
    line
}

fn encode(line: &[u8; 9]) -> usize {
    POW3.iter()
        .enumerate()
        .map(|(k, pow)| {
            let i = if k < 4 { k } else { k + 1 };
            line[i] as usize * pow
        })
        .sum()
}

/// Is the run of own stones through the centre a win? `exact`: only a run of exactly five.
fn centre_wins(line: &[u8; 9], exact: bool) -> bool {
    let mut len = 1;
    let mut i = 4;
    while i > 0 && line[i - 1] == OWN {
        len += 1;
        i -= 1;
    }
    let mut j = 4;
    while j < 8 && line[j + 1] == OWN {
        len += 1;
        j += 1;
    }
    if exact {
        len == 5
    } else {
        len >= 5
    }
}

impl ShapeTable {
    pub fn new(exact: bool) -> Self {
        let mut memo: Vec<Option<Shape>> = vec![None; CODES];
        for code in 0..CODES {
            classify(code, exact, &mut memo);
        }
        ShapeTable {
            shapes: memo.into_iter().map(|s| s.unwrap_or(Shape::None)).collect(),
        }
    }

    #[inline]
    pub fn get(&self, code: usize) -> Shape {
        self.shapes[code]
    }
}

fn classify(code: usize, exact: bool, memo: &mut Vec<Option<Shape>>) -> Shape {
    if let Some(s) = memo[code] {
        return s;
    }
    let mut line = decode(code);
    let shape = if centre_wins(&line, exact) {
        Shape::Five
    } else {
        // Points where one more stone wins through the centre.
        let mut wins = 0;
        for e in 0..9 {
            if line[e] == EMPTY {
                line[e] = OWN;
                if centre_wins(&line, exact) {
                    wins += 1;
                }
                line[e] = EMPTY;
            }
        }
        match wins {
            0 => {
                let mut best = Shape::None;
                for e in 0..9 {
                    if line[e] == EMPTY {
                        line[e] = OWN;
                        let next = classify(encode(&line), exact, memo);
                        line[e] = EMPTY;
                        best = best.max(next.weaker());
                    }
                }
                best
            }
            1 => Shape::Four,
            _ => Shape::OpenFour,
        }
    };
    memo[code] = Some(shape);
    shape
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shape of the centre of a 9-cell picture: `X` own, `O` block, `.` empty; centre must be `X`.
    fn shape(t: &ShapeTable, pic: &str) -> Shape {
        let mut line = [EMPTY; 9];
        for (i, ch) in pic.chars().enumerate() {
            line[i] = match ch {
                'X' => OWN,
                'O' => BLOCK,
                _ => EMPTY,
            };
        }
        assert_eq!(line[4], OWN);
        t.get(encode(&line))
    }

    #[test]
    fn recognises_the_classic_shapes() {
        let free = ShapeTable::new(false);
        let exact = ShapeTable::new(true);
        assert_eq!(shape(&free, "..XXXXX.."), Shape::Five);
        assert_eq!(shape(&free, ".XXXXXX.."), Shape::Five);
        assert_eq!(shape(&exact, ".XXXXXX.."), Shape::None);
        assert_eq!(shape(&free, "...XXXX.."), Shape::OpenFour);
        assert_eq!(shape(&free, "..OXXXX.."), Shape::Four);
        assert_eq!(shape(&free, "X.XXX.X.."), Shape::OpenFour);
        assert_eq!(shape(&free, "...XXX..."), Shape::OpenThree);
        assert_eq!(shape(&free, "..OXXX..."), Shape::Three);
        assert_eq!(shape(&free, "..X.XX..."), Shape::OpenThree);
        assert_eq!(shape(&free, "....XX..."), Shape::OpenTwo);
        assert_eq!(shape(&free, "...OXX..."), Shape::Two);
        assert_eq!(shape(&free, "....X...."), Shape::One);
        assert_eq!(shape(&free, "O...XO..."), Shape::None);
        // Black in renju: XXXX.X is not a four because the gap makes an overline.
        assert_eq!(shape(&free, "XXX.XX..."), Shape::Four);
        assert!(shape(&exact, "XXX.XX...") < Shape::Four);
    }
}
