//! The report page: one self-contained HTML file (styles, charts and the viewer's script inline;
//! nothing fetched) rendered from a [`Report`] through a minijinja template that escapes every
//! value for HTML. The game list, the hot loop of a 100,000-game report, is built here with the
//! same escaping; the games' data goes into a `<script type="application/json">` with `<`, `>`
//! and `&` written as JSON escapes, so no text from a journal can close the script.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use crate::analysis::report::charts;
use crate::analysis::report::escape::{escape_text, push_escaped, script_json};
use crate::analysis::report::figures::EngineTerminations;
use crate::analysis::report::model::{Report, RunState};
use crate::analysis::report::ratings::RatingSection;
use crate::core::board::{BoardSize, Pos};
use crate::core::search::Eval;
use crate::game::termination::{termination_label, GameResult, TerminationKind, OTHER_TERMINATION};

const TEMPLATE: &str = include_str!("page.html");
const CSS: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("viewer.js");

/// Rows of the game list written into the page: a browser lays out a table of 100,000 rows in
/// tens of seconds, so a larger run's list shows its first games as HTML and the script pages
/// through all of them (with the same filters) from the embedded data.
pub const LIST_LIMIT: usize = 2000;

/// Letters of the compact point code of the embedded games: `x` then `y`, one letter each.
const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyzABCDEF";

/// What the page says besides the report: when it was built.
#[derive(Debug, Clone)]
pub struct PageOptions {
    /// Shown as "Report built ..." (tests pass a fixed value).
    pub built: String,
}

fn code(points: &[Pos]) -> String {
    let mut s = String::with_capacity(points.len() * 2);
    for p in points {
        s.push(ALPHABET[usize::from(p.x) % 32] as char);
        s.push(ALPHABET[usize::from(p.y) % 32] as char);
    }
    s
}

fn pos_text(points: &[Pos], size: u8) -> String {
    match BoardSize::new(u32::from(size)) {
        Ok(s) => crate::game::record::moves_text(points, s),
        Err(_) => String::new(),
    }
}

/// The games as the viewer reads them: game numbers, and each game as its own JSON text, parsed
/// only when it is opened.
#[derive(Serialize)]
struct ViewerData<'a> {
    size: u8,
    rule: u8,
    engines: &'a [String],
    terms: BTreeMap<&'static str, &'static str>,
    numbers: Vec<u64>,
    games: Vec<String>,
    /// Beyond [`LIST_LIMIT`] games: the list's columns, in `numbers` order, for the script.
    #[serde(skip_serializing_if = "Option::is_none")]
    list: Option<ListColumns>,
}

/// The game list's columns for the script's pages (games in `numbers` order).
#[derive(Serialize)]
struct ListColumns {
    black: Vec<usize>,
    white: Vec<usize>,
    result: Vec<&'static str>,
    termination: Vec<&'static str>,
    moves: Vec<usize>,
    opening: Vec<String>,
    reason: Vec<String>,
}

/// One move's report as the viewer reads it: evaluation (mover's view, as the engine said it),
/// depth, selective depth, nodes, the engine's own time in ms, the PV in pos notation.
type ViewerReport<'a> = (
    Option<Eval>,
    Option<u32>,
    Option<u32>,
    Option<u64>,
    Option<u64>,
    &'a str,
);

fn viewer_json(r: &Report) -> Result<String, serde_json::Error> {
    let mut games = Vec::with_capacity(r.games.len());
    for g in &r.games {
        let forbidden: Vec<(usize, String)> =
            g.forbidden.iter().map(|(k, p)| (*k, code(p))).collect();
        let mut game = serde_json::to_string(&(
            g.game,
            g.black,
            g.white,
            g.result,
            g.termination,
            &g.reason,
            code(&g.opening),
            code(&g.moves),
            &g.times_ms,
            g.forbidden_move.map(|p| code(&[p])),
            forbidden,
            &g.messages,
        ))?;
        // A game with reports gets them as a 13th field; one without stays as before.
        if !g.search.is_empty() {
            let reports: Vec<Option<ViewerReport>> = (g.search.iter())
                .map(|s| {
                    s.as_ref()
                        .map(|s| (s.ev, s.d, s.sd, s.n, s.ms, s.pv.as_str()))
                })
                .collect();
            game.pop();
            game.push(',');
            game.push_str(&serde_json::to_string(&reports)?);
            game.push(']');
        }
        games.push(game);
    }
    let data = ViewerData {
        size: r.size,
        rule: r.rule,
        engines: &r.engines,
        terms: TerminationKind::ALL
            .iter()
            .map(|k| (k.row().code, k.row().label))
            .chain([(OTHER_TERMINATION, termination_label(OTHER_TERMINATION))])
            .collect(),
        numbers: r.games.iter().map(|g| g.game).collect(),
        games,
        list: (r.games.len() > LIST_LIMIT).then(|| ListColumns {
            black: r.games.iter().map(|g| g.black).collect(),
            white: r.games.iter().map(|g| g.white).collect(),
            result: r.games.iter().map(|g| g.result).collect(),
            termination: r.games.iter().map(|g| g.termination).collect(),
            moves: r.games.iter().map(|g| g.moves.len()).collect(),
            opening: r
                .games
                .iter()
                .map(|g| pos_text(&g.opening, r.size))
                .collect(),
            reason: r.games.iter().map(|g| g.reason.clone()).collect(),
        }),
    };
    Ok(script_json(&serde_json::to_string(&data)?))
}

/// The game list's rows, by game number.
fn game_rows(r: &Report) -> String {
    let names: Vec<String> = r.engines.iter().map(|n| escape_text(n)).collect();
    let name = |i: usize| names.get(i).map_or("?", String::as_str);
    let mut order: Vec<usize> = (0..r.games.len()).collect();
    order.sort_by_key(|&i| r.games[i].game);
    order.truncate(LIST_LIMIT);
    let mut out = String::with_capacity(r.games.len() * 160);
    for i in order {
        let g = &r.games[i];
        let result = match g.result.parse() {
            Ok(GameResult::BlackWins) => 'b',
            Ok(GameResult::WhiteWins) => 'w',
            _ => 'd',
        };
        let _ = write!(
            out,
            "<tr class=\"e{} e{} r{result} t-{}\" data-game=\"{}\" title=\"",
            g.black, g.white, g.termination, g.game
        );
        push_escaped(&mut out, &g.reason);
        let _ = write!(
            out,
            "\"><td class=\"num\"><a href=\"#game={n}\">{n}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"mono\">",
            name(g.black),
            name(g.white),
            g.result,
            termination_label(g.termination),
            g.moves.len(),
            n = g.game,
        );
        push_escaped(&mut out, &pos_text(&g.opening, r.size));
        out.push_str("</td></tr>\n");
    }
    out
}

fn fixed(v: f64, digits: usize) -> String {
    if v.is_finite() {
        format!("{v:.digits$}")
    } else if v.is_nan() {
        "—".into()
    } else if v > 0.0 {
        "+∞".into()
    } else {
        "−∞".into()
    }
}

#[derive(Serialize)]
struct Standing {
    rank: usize,
    name: String,
    elo: String,
    error: String,
    games: u64,
    w: u64,
    l: u64,
    d: u64,
    score: String,
    draws: String,
    pairs: String,
}

#[derive(Serialize)]
struct Chart {
    id: &'static str,
    title: String,
    svg: String,
    /// Points of the chart's main series (the LLR: one per game).
    points: usize,
    note: Option<String>,
}

/// What the Elo chart leaves out.
fn elo_note(r: &Report) -> Option<String> {
    let finite = r
        .elo
        .iter()
        .flat_map(|s| &s.points)
        .any(|(_, e)| e.value.is_finite() && e.error.is_finite());
    if !finite {
        return Some("No finite estimate yet: a score of 0 % or 100 % has an infinite Elo.".into());
    }
    (r.elo.len() > charts::PALETTE.len())
        .then(|| format!("The first {} engine pairs.", charts::PALETTE.len()))
}

fn charts_of(r: &Report) -> Vec<Chart> {
    let mut out = Vec::new();
    if let Some(l) = &r.llr {
        out.push(Chart {
            id: "llr",
            title: "Log-likelihood ratio of the SPRT".into(),
            svg: charts::llr(l),
            points: l.games as usize,
            note: (l.points.len() < l.games as usize).then(|| {
                format!(
                    "{} games, drawn as {} evenly spaced points.",
                    l.games,
                    l.points.len()
                )
            }),
        });
    }
    if r.elo.iter().any(|s| !s.points.is_empty()) {
        out.push(Chart {
            id: "elo",
            title: "Elo estimate with its 95 % interval".into(),
            svg: charts::elo(&r.elo, &r.engines),
            points: r.elo.iter().map(|s| s.points.len()).sum(),
            note: elo_note(r),
        });
    }
    if let Some(d) = &r.distribution {
        out.push(Chart {
            id: "distribution",
            title: d.title.clone(),
            svg: charts::distribution(d),
            points: d.counts.len(),
            note: None,
        });
    }
    if r.times.iter().any(|t| t.moves > 0) {
        out.push(Chart {
            id: "times",
            title: "Think time by move number".into(),
            svg: charts::times(&r.times, &r.engines),
            points: r.times.iter().map(|t| t.by_move.len()).sum(),
            note: (r.times.iter().any(|t| !t.own_by_move.is_empty())).then(|| {
                "Dashed: the engine's own time by its search reports (median), beside the \
                 runner's measure."
                    .into()
            }),
        });
    }
    if !r.games.is_empty() {
        out.push(Chart {
            id: "terminations",
            title: "Games lost, by how they ended".into(),
            svg: charts::terminations(&r.terminations, &r.engines),
            points: r.terminations.len(),
            note: None,
        });
    }
    out
}

fn kinds(m: &BTreeMap<&'static str, u64>) -> String {
    if m.is_empty() {
        return "—".into();
    }
    m.iter()
        .map(|(k, v)| format!("{} {v}", termination_label(k)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn termination_rows(
    t: &[EngineTerminations],
    names: &[String],
) -> Vec<BTreeMap<&'static str, String>> {
    t.iter()
        .map(|e| {
            BTreeMap::from([
                ("name", names.get(e.engine).cloned().unwrap_or_default()),
                ("won", kinds(&e.won)),
                ("lost", kinds(&e.lost)),
                ("drawn", kinds(&e.drawn)),
            ])
        })
        .collect()
}

/// The think-time table's rows: one per engine, its moves, times, CPU, memory and what it said.
fn time_rows(r: &Report) -> Vec<minijinja::Value> {
    use minijinja::context;
    r
        .times
        .iter()
        .map(|t| {
            context! {
                name => r.engines.get(t.engine).cloned().unwrap_or_default(),
                moves => t.moves, median => t.median_ms, max => t.max_ms,
                total => format!("{:.1} s", t.total_ms as f64 / 1000.0),
                cpu => format!("{:.1} s", t.cpu_ms as f64 / 1000.0),
                ratio => crate::stats::text::cpu_ratio(t.cpu_ms, t.cpu_think_ms),
                memory => format!("{} MiB", t.peak_memory >> 20),
                reported => format!("{} %", fixed(100.0 * t.reported as f64 / t.moves.max(1) as f64, 0)),
                reported_of => format!("{} of {} moves", t.reported, t.moves),
                errors => t.lines.error,
                stray => t.lines.unknown + t.lines.debug + t.lines.other,
                stray_of => format!("{} UNKNOWN, {} DEBUG, {} other", t.lines.unknown, t.lines.debug, t.lines.other),
                dropped => t.lines.dropped,
                dropped_of => format!("{} bytes", t.lines.dropped_bytes),
            }
        })
        .collect()
}

/// Render the page.
/// The rating list's rows as the page prints them (BayesElo's rounding) and its likelihood of
/// superiority as a heat map: each cell's percentage and a background from red (surely weaker)
/// through white (even) to green (surely stronger).
fn rating_context(s: &RatingSection) -> minijinja::Value {
    use minijinja::context;
    let round = |x: f64| format!("{}", x.round() as i64);
    let rows: Vec<minijinja::Value> = s
        .rows
        .iter()
        .map(|r| {
            context! {
                rank => r.rank, name => &r.name, elo => round(r.elo), minus => round(r.minus),
                plus => round(r.plus), games => r.games, score => format!("{} %", round(100.0 * r.score)),
                opponent => round(r.opponent), draws => format!("{} %", round(100.0 * r.draws)),
            }
        })
        .collect();
    let los: Vec<minijinja::Value> = s
        .los
        .iter()
        .zip(&s.rows)
        .enumerate()
        .map(|(i, (row, r))| {
            let cells: Vec<minijinja::Value> = row
                .iter()
                .enumerate()
                .map(|(j, &p)| {
                    if i == j {
                        return context! { text => "", style => "" };
                    }
                    // White at even odds, towards green (stronger) or red (weaker).
                    let t = ((p - 0.5).abs() * 2.0).clamp(0.0, 1.0);
                    let (r, g, b) = if p >= 0.5 {
                        (90.0, 190.0, 110.0)
                    } else {
                        (225.0, 95.0, 85.0)
                    };
                    let mix = |c: f64| (255.0 + (c - 255.0) * t).round() as u8;
                    context! {
                        text => format!("{}", (100.0 * p).round() as i64),
                        style => format!("background: rgb({}, {}, {})", mix(r), mix(g), mix(b)),
                    }
                })
                .collect();
            context! { name => &r.name, cells }
        })
        .collect();
    let names: Vec<&str> = s.rows.iter().map(|r| r.name.as_str()).collect();
    context! {
        rows, los, names,
        advantage => fixed(s.advantage, 1), drawelo => fixed(s.drawelo, 1),
        los_left_out => s.los.is_empty(),
        max_los => crate::analysis::report::ratings::MAX_LOS_ENGINES,
    }
}

pub fn render(r: &Report, opts: &PageOptions) -> Result<String, minijinja::Error> {
    use minijinja::{context, Environment, Value};
    let mut env = Environment::new();
    // Escape what HTML needs (minijinja's default also turns `/` into `&#x2f;`, which makes
    // command lines and paths hard to read in the source).
    env.set_formatter(|out, _state, value| {
        if value.is_undefined() || value.is_none() {
            return Ok(());
        }
        let text = value.to_string();
        let text = if value.is_safe() {
            text
        } else {
            escape_text(&text)
        };
        out.write_str(&text)
            .map_err(|e| minijinja::Error::new(minijinja::ErrorKind::WriteFailure, e.to_string()))
    });
    env.add_template("page.html", TEMPLATE)?;
    let standings: Vec<Standing> = r
        .standings
        .iter()
        .map(|s| Standing {
            rank: s.rank,
            name: s.name.clone(),
            // The results block's figures and rounding (it is shown above the table).
            elo: crate::stats::text::elo_text(s.elo.value),
            error: crate::stats::text::elo_text(s.elo.error),
            games: s.wld.games(),
            w: s.wld.wins,
            l: s.wld.losses,
            d: s.wld.draws,
            score: format!("{} %", fixed(s.score * 100.0, 1)),
            draws: format!("{} %", fixed(s.draw_ratio * 100.0, 1)),
            pairs: s.pairs.map(|p| format!("{:?}", p.0)).unwrap_or_default(),
        })
        .collect();
    let crosstable = (r.engines.len() > 2).then(|| {
        let names: Vec<&str> = r.standings.iter().map(|s| s.name.as_str()).collect();
        let rows: Vec<Value> = r
            .crosstable
            .iter()
            .zip(&names)
            .map(|(row, name)| {
                let cells: Vec<String> = row
                    .iter()
                    .map(|c| c.map_or("·".into(), |(p, g)| format!("{p}/{g}")))
                    .collect();
                context! { name, cells }
            })
            .collect();
        context! { names, rows }
    });
    let ratings = r.ratings.as_ref().map(rating_context);
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for g in &r.games {
        *counts.entry(g.termination).or_default() += 1;
    }
    let term_filters: Vec<Value> = counts
        .iter()
        .map(|(code, count)| context! { code, label => termination_label(code), count })
        .collect();
    let times = time_rows(r);
    let heading = match r.engines.as_slice() {
        [a, b] => format!("{a} vs {b}"),
        e => format!("Tournament of {} engines", e.len()),
    };
    let colours: Vec<String> = charts::PALETTE
        .iter()
        .map(|c| format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2))
        .collect();
    let data = viewer_json(r).map_err(|e| {
        minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, e.to_string())
    })?;
    env.get_template("page.html")?.render(context! {
        title => format!("gomoku-cli report: {heading}"),
        heading,
        run => &r.run,
        state => match r.state { RunState::Running => "running", RunState::Ended => "ended" },
        status => &r.status,
        status_class => if r.state == RunState::Running { "running" } else if r.verdict.is_some() { "decided" } else { "" },
        built => &opts.built,
        engines => &r.engines,
        results_block => &r.results_block,
        standings,
        paired => r.run.repeat,
        crosstable,
        ratings,
        charts => charts_of(r),
        terminations => termination_rows(&r.terminations, &r.engines),
        usage => r.times.iter().any(|t| t.peak_memory > 0),
        reports => r.times.iter().any(|t| t.reported > 0),
        lines => r.times.iter().any(|t| !t.lines.is_empty()),
        // Forbidden points exist under renju only: the viewer's legend mentions them there only.
        renju => r.rule == crate::core::rules::Rule::Renju.code(),
        times,
        term_filters,
        colours,
        css => Value::from_safe_string(CSS.to_string()),
        rows => Value::from_safe_string(game_rows(r)),
        openings => Value::from_safe_string(crate::analysis::report::openings::section(&r.openings)),
        tune => Value::from_safe_string(crate::analysis::report::tune_section::section(r.tune.as_ref())),
        league => Value::from_safe_string(crate::analysis::report::league::section(r.league.as_ref())),
        format => Value::from_safe_string(crate::analysis::report::format_section::section(r.format.as_ref())),
        listed => r.games.len().min(LIST_LIMIT),
        games_total => r.games.len(),
        data => Value::from_safe_string(data),
        js => Value::from_safe_string(SCRIPT.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::report::model::tests::{entry, header};
    use crate::analysis::report::{ReportBuilder, RunState};

    fn page(names: &[&str], games: &[crate::formats::journal::JournalEntry]) -> String {
        let h = header(names, true, true, 4);
        let mut b = ReportBuilder::new(std::slice::from_ref(&h)).unwrap();
        for g in games {
            b.add(g).unwrap();
        }
        let opts = PageOptions {
            built: "2026-11-21T12:00:00Z".into(),
        };
        render(&b.finish(RunState::Ended), &opts).unwrap()
    }

    #[test]
    fn the_viewer_mentions_forbidden_points_under_renju_only() {
        let opts = PageOptions {
            built: "2026-11-21T12:00:00Z".into(),
        };
        for (rule, shown) in [(4, true), (0, false), (1, false)] {
            let h = header(&["a", "b"], true, false, rule);
            let b = ReportBuilder::new(std::slice::from_ref(&h)).unwrap();
            let html = render(&b.finish(RunState::Ended), &opts).unwrap();
            assert_eq!(
                html.contains("renju forbidden points for black"),
                shown,
                "rule {rule}"
            );
            assert!(html.contains("Red ring: the last stone."));
        }
    }

    fn section<'a>(html: &'a str, id: &str) -> &'a str {
        let start = html.find(&format!("<section id=\"{id}\">")).unwrap();
        let end = start + html[start..].find("</section>").unwrap();
        &html[start..end]
    }

    #[test]
    fn snapshot_of_the_page_text() {
        let games = [
            entry(1, 0, "1-0", "five"),
            entry(2, 1, "0-1", "time_forfeit"),
        ];
        let html = page(&["scout", "random"], &games);
        let rows = &html[html.find("<tbody>\n<tr class=\"e").unwrap()..];
        let rows = &rows[..rows.find("</tbody>").unwrap()];
        insta::assert_snapshot!(
            "report_page_text",
            format!(
                "{}\n{}\n{rows}",
                section(&html, "run"),
                section(&html, "results")
            )
        );
    }

    #[test]
    fn standings_show_the_results_blocks_elo_and_error() {
        // Colour-swapped pairs: the results block's Elo is the pentanomial one, and the
        // standings must show the same two numbers, rounded alike.
        let results = ["1-0", "1-0", "0-1", "1-0", "1/2-1/2", "1-0", "1-0", "0-1"];
        let games: Vec<_> = (1..=8u64)
            .map(|n| entry(n, (n as usize + 1) % 2, results[n as usize - 1], "five"))
            .collect();
        let html = page(&["a", "b"], &games);
        let block = section(&html, "results");
        let elo_line = block
            .lines()
            .find_map(|l| l.split("Elo: ").nth(1))
            .expect("a results block");
        let (elo, rest) = elo_line.split_once(" +/- ").unwrap();
        let error = rest.split(',').next().unwrap();
        let row = block
            .split("<td class=\"engine\">a</td>")
            .nth(1)
            .expect("a's standings row");
        let cells: Vec<&str> = row
            .split("<td class=\"num\">")
            .skip(1)
            .take(2)
            .map(|c| c.split("</td>").next().unwrap())
            .collect();
        assert_eq!(cells, [elo, error], "{block}");
    }

    #[test]
    fn hostile_names_messages_and_reasons_stay_text() {
        let evil = "</script><script>alert(1)</script>";
        let mut games = vec![entry(1, 0, "1-0", "five")];
        games[0].reason = "\"><img src=x onerror=alert(2)>".into();
        games[0].messages = vec![(crate::core::board::Color::Black, format!("{evil}<!--"))];
        let html = page(&[evil, "<b>bold</b>"], &games);
        assert_eq!(
            html.matches("<script").count(),
            2,
            "the data and the viewer only"
        );
        assert!(!html.contains("<img"), "no markup from a reason");
        assert!(!html.contains("<b>bold"), "no markup from a name");
        assert!(html.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
        let data = html.split("id=\"report-data\">").nth(1).unwrap();
        let data = &data[..data.find("</script>").unwrap()];
        let v: serde_json::Value = serde_json::from_str(data).unwrap();
        assert_eq!(v["engines"][0], evil);
        let game: serde_json::Value =
            serde_json::from_str(v["games"][0].as_str().unwrap()).unwrap();
        assert_eq!(game[11][0][1], format!("{evil}<!--"));
    }

    #[test]
    fn reports_reach_the_viewer_data_and_the_engines_table() {
        use crate::game::record::fixtures::{sample_record, with_reports};
        let plain = page(&["scout", "random"], &[entry(1, 0, "1-0", "five")]);
        assert!(!plain.contains(">Reported</th>"));
        let mut r = with_reports(sample_record());
        r.black = crate::schedule::EngineId(0);
        r.white = crate::schedule::EngineId(1);
        let e = crate::formats::journal::JournalEntry::from_record(&r, "f");
        let html = page(&["scout", "random"], &[e, entry(2, 1, "1-0", "five")]);
        let table = section(&html, "terminations");
        assert!(table.contains(">Reported</th>"), "{table}");
        // scout: 3 of its 4 moves in game 1 and none of its 3 in game 2.
        assert!(
            table.contains("title=\"3 of 7 moves\">43 %</td>"),
            "{table}"
        );
        let data = html.split("id=\"report-data\">").nth(1).unwrap();
        let data = &data[..data.find("</script>").unwrap()];
        let v: serde_json::Value = serde_json::from_str(data).unwrap();
        let game = |i: usize| -> serde_json::Value {
            serde_json::from_str(v["games"][i].as_str().unwrap()).unwrap()
        };
        let reports = game(0)[12].clone();
        assert_eq!(reports.as_array().unwrap().len(), 7);
        assert!(reports[0].is_null());
        assert_eq!(
            reports[2],
            serde_json::json!(["+35", 6, 9, 96420, 510, "h9i10h10"])
        );
        assert_eq!(reports[6][0], "-M3");
        assert_eq!(
            game(1).as_array().unwrap().len(),
            12,
            "no reports, no field"
        );
        // The think-time chart says what its dashed lines are.
        assert!(html.contains("the engine&#39;s own time"), "own-time note");
    }
}
