//! A ratings file as a league reads it (`-groups ratings=FILE`): each engine's name and Elo,
//! from `gomoku-cli ratings --json` (its `players` array) or from BayesElo's `ratings` table as
//! `gomoku-cli ratings` and BayesElo itself print it (`Rank Name Elo + - games score oppo.
//! draws`, Gomocup's published lists included). Pure: the text is passed in.

use thiserror::Error;

/// One engine of the file: its name, its Elo and the line it is on (1-based).
#[derive(Debug, Clone, PartialEq)]
pub struct FileRating {
    pub name: String,
    pub elo: f64,
    pub line: usize,
}

/// A ratings file that cannot be used, naming the file and the line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RatingsFileError {
    /// A line of the table that is not `RANK NAME ELO + - GAMES SCORE% OPPO DRAWS%`.
    #[error("{file}:{line}: {why} (expected BayesElo's ratings table, `Rank Name Elo + - games score oppo. draws` as `gomoku-cli ratings` prints it, or its --json output)")]
    Line {
        file: String,
        line: usize,
        why: String,
    },
    /// JSON that is not `gomoku-cli ratings --json`'s object.
    #[error("{file}:{line}:{column}: {why}")]
    Json {
        file: String,
        line: usize,
        column: usize,
        why: String,
    },
    /// One engine listed twice: which rating is meant is unclear.
    #[error("{file}:{second}: {name:?} is listed twice (also on line {first})")]
    Twice {
        file: String,
        name: String,
        first: usize,
        second: usize,
    },
    /// Nothing rated in it.
    #[error("{file}: no ratings in it")]
    Empty { file: String },
}

/// The `--json` object's part read here.
#[derive(serde::Deserialize)]
struct JsonList {
    players: Vec<JsonPlayer>,
}

#[derive(serde::Deserialize)]
struct JsonPlayer {
    name: String,
    elo: f64,
}

/// Whether `text` is JSON (its first character that is not a blank is `{`).
pub fn is_json(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('{')
}

/// The ratings of `text` (the file `file`), in file order, each name once.
pub fn parse(text: &str, file: &str) -> Result<Vec<FileRating>, RatingsFileError> {
    let list = match is_json(text) {
        true => parse_json(text, file)?,
        false => parse_table(text, file)?,
    };
    for (i, r) in list.iter().enumerate() {
        if let Some(first) = list[..i].iter().find(|o| o.name == r.name) {
            return Err(RatingsFileError::Twice {
                file: file.into(),
                name: r.name.clone(),
                first: first.line,
                second: r.line,
            });
        }
    }
    match list.is_empty() {
        true => Err(RatingsFileError::Empty { file: file.into() }),
        false => Ok(list),
    }
}

/// `gomoku-cli ratings --json`: one object, its players with their line found by their name.
fn parse_json(text: &str, file: &str) -> Result<Vec<FileRating>, RatingsFileError> {
    let list: JsonList =
        serde_json::from_str(text.trim_start_matches('\u{feff}')).map_err(|e| {
            RatingsFileError::Json {
                file: file.into(),
                line: e.line(),
                column: e.column(),
                why: format!("{e} (expected `gomoku-cli ratings --json` output)"),
            }
        })?;
    // The line of each name (the JSON is one line as the command writes it; by hand, one a line).
    let mut from = 0;
    Ok((list.players.into_iter())
        .map(|p| {
            let quoted = serde_json::to_string(&p.name).unwrap_or_default();
            let at = text[from..].find(&quoted).map_or(from, |i| from + i);
            from = (at + quoted.len()).min(text.len());
            FileRating {
                line: text[..at].matches('\n').count() + 1,
                name: p.name,
                elo: p.elo,
            }
        })
        .collect())
}

/// BayesElo's table: a `Rank Name ...` heading, then one engine a line; blank lines and the text
/// `gomoku-cli ratings` prints after the table (from its first blank line on) are read past.
fn parse_table(text: &str, file: &str) -> Result<Vec<FileRating>, RatingsFileError> {
    let mut out = Vec::new();
    let mut heading = false;
    for (i, line) in text.lines().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let bad = |why: String| RatingsFileError::Line {
            file: file.into(),
            line: i + 1,
            why,
        };
        match (heading, words.first()) {
            (false, None) => continue,
            (false, Some(&"Rank")) => heading = true,
            (false, Some(_)) => return Err(bad("no `Rank Name Elo ...` heading before it".into())),
            // The table ends at its first blank line (the model's parameters follow it).
            (true, None) => break,
            (true, Some(_)) => out.push(table_row(&words, i + 1).map_err(bad)?),
        }
    }
    Ok(out)
}

/// One row: rank, the name (its words), then seven numbers, the first the Elo.
fn table_row(words: &[&str], line: usize) -> Result<FileRating, String> {
    if words.len() < 9 {
        return Err(format!(
            "{} words: a row has a rank, a name and 7 numbers",
            words.len()
        ));
    }
    let (name, numbers) = words[1..].split_at(words.len() - 8);
    if words[0].parse::<u64>().is_err() {
        return Err(format!("rank {:?} is not a whole number", words[0]));
    }
    for n in numbers {
        if n.trim_end_matches('%').parse::<f64>().is_err() {
            return Err(format!("{n:?} is not a number"));
        }
    }
    let elo: f64 = numbers[0]
        .parse()
        .map_err(|_| format!("Elo {:?} is not a number", numbers[0]))?;
    Ok(FileRating {
        name: name.join(" "),
        elo,
        line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `gomoku-cli ratings` output for three engines (the table, then the parameters line).
    const TABLE: &str = "Rank Name        Elo    +    - games score oppo. draws \n   1 Rapfi 21    1803   40   38   120   80%  1500    4% \n   2 embryo       1610   30   30   120   50%  1600    6% \n   3 pbrain-wine  1387   38   40   120   20%  1700    4% \n\nadvantage 0, drawelo 0.01: 180 games, 3 players\n";

    #[test]
    fn the_table_as_ratings_prints_it_is_read_with_names_of_several_words() {
        let got = parse(TABLE, "r.txt").unwrap();
        let names: Vec<(&str, f64, usize)> = got
            .iter()
            .map(|r| (r.name.as_str(), r.elo, r.line))
            .collect();
        assert_eq!(
            names,
            [
                ("Rapfi 21", 1803.0, 2),
                ("embryo", 1610.0, 3),
                ("pbrain-wine", 1387.0, 4)
            ]
        );
        // A table without the text after it, negative ratings (a list centred on 0).
        let plain = "Rank Name Elo + - games score oppo. draws\n1 a 120 5 5 10 60% -1 0%\n2 b -120 5 5 10 40% 1 0%\n";
        let got = parse(plain, "p").unwrap();
        assert_eq!((got[1].name.as_str(), got[1].elo), ("b", -120.0));
    }

    #[test]
    fn the_json_of_ratings_is_read_with_each_names_line() {
        let one_line = r#"{"advantage":0,"drawelo":0.01,"games":2,"unfinished":0,"players":[{"rank":1,"name":"a","elo":10.5,"minus":1,"plus":1,"games":2,"score":1.5,"draws":1,"opponent":0},{"rank":2,"name":"b","elo":-10.5,"minus":1,"plus":1,"games":2,"score":0.5,"draws":1,"opponent":0}],"left_out":[]}"#;
        let got = parse(one_line, "r.json").unwrap();
        assert_eq!((got[0].elo, got[1].elo, got[1].line), (10.5, -10.5, 1));
        let by_hand =
            "{\"players\": [\n {\"name\": \"a\", \"elo\": 1},\n {\"name\": \"a\", \"elo\": 2}\n]}";
        let e = parse(by_hand, "h.json").unwrap_err();
        assert_eq!(
            e.to_string(),
            "h.json:3: \"a\" is listed twice (also on line 2)"
        );
        let e = parse("{\"players\": [{\"name\": \"a\"}]}", "x.json").unwrap_err();
        assert!(e.to_string().starts_with("x.json:1:"), "{e}");
        assert!(e.to_string().contains("missing field `elo`"), "{e}");
    }

    #[test]
    fn what_is_no_ratings_file_is_refused_naming_the_line() {
        let e = |text: &str| parse(text, "f").unwrap_err().to_string();
        assert!(e("hello\n").starts_with("f:1: no `Rank Name Elo ...` heading"));
        let row = "Rank Name Elo + - games score oppo. draws\n1 a x 5 5 10 60% 0 0%\n";
        assert!(
            e(row).starts_with("f:2: \"x\" is not a number"),
            "{}",
            e(row)
        );
        let short = "\nRank Name Elo + - games score oppo. draws\n1 a 5 5 10 60%\n";
        assert!(e(short).starts_with("f:3: 6 words"), "{}", e(short));
        let twice = "Rank Name Elo + - games score oppo. draws\n1 a 5 5 5 10 60% 0 0%\n2 a 4 5 5 10 60% 0 0%\n";
        assert_eq!(e(twice), "f:3: \"a\" is listed twice (also on line 2)");
        assert_eq!(e("Rank Name Elo\n"), "f: no ratings in it");
        assert_eq!(e(""), "f: no ratings in it");
    }
}
