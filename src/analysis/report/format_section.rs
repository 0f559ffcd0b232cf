//! The report's knockout or Swiss section: the bracket or the rounds, each match with its score,
//! and a Swiss's standings, from a [`FormatView`]. Pure: HTML out.

use crate::analysis::report::escape::escape_text;
use crate::analysis::staged::FormatView;

/// The section; empty for a round robin or a gauntlet.
pub fn section(v: Option<&FormatView>) -> String {
    let Some(v) = v else {
        return String::new();
    };
    let (id, title) = match v.kind {
        "knockout" => ("bracket", "Knockout bracket"),
        _ => ("swiss", "Swiss rounds"),
    };
    let mut out = format!(
        "<section id=\"{id}\">\n<h2>{title}</h2>\n<p class=\"muted\">{}</p>\n",
        escape_text(&v.about)
    );
    if let Some(w) = &v.winner {
        out.push_str(&format!(
            "<p id=\"winner\">Winner: <b>{}</b></p>\n",
            escape_text(w)
        ));
    }
    if let Some(why) = &v.stopped {
        out.push_str(&format!(
            "<p class=\"stopped\">Stopped early: {}</p>\n",
            escape_text(why)
        ));
    }
    out.push_str("<div class=\"rounds\">\n");
    for (i, r) in v.rounds.iter().enumerate() {
        out.push_str(&format!(
            "<table class=\"round\" id=\"round-{}\">\n<caption>{}</caption>\n<tbody>\n",
            i + 1,
            escape_text(&r.title)
        ));
        for t in &r.tables {
            let won = |name: &str| t.winner.as_deref() == Some(name);
            let cell = |name: &str| match won(name) {
                true => format!("<td class=\"engine won\">{}</td>", escape_text(name)),
                false => format!("<td class=\"engine\">{}</td>", escape_text(name)),
            };
            let b = t.b.as_deref().map_or("<td></td>".to_string(), cell);
            out.push_str(&format!(
                "<tr class=\"match\">{}<td class=\"num score\">{}</td>{b}<td class=\"muted\">{}</td></tr>\n",
                cell(&t.a),
                escape_text(&t.score),
                escape_text(&t.note)
            ));
        }
        out.push_str("</tbody>\n</table>\n");
    }
    out.push_str("</div>\n");
    if !v.standings.is_empty() {
        out.push_str(
            "<table id=\"swiss-standings\">\n<caption>Standings</caption>\n<thead><tr>\
             <th class=\"num\">Rank</th><th>Engine</th><th class=\"num\">Points</th>\
             <th class=\"num\" title=\"the sum of the opponents' points\">Buchholz</th>\
             <th class=\"num\">Games</th><th class=\"num\">Byes</th></tr></thead>\n<tbody>\n",
        );
        for s in &v.standings {
            out.push_str(&format!(
                "<tr><td class=\"num\">{}</td><td class=\"engine\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                s.rank,
                escape_text(&s.name),
                s.points,
                s.buchholz,
                s.games,
                s.byes
            ));
        }
        out.push_str("</tbody>\n</table>\n");
    }
    out.push_str("</section>\n\n");
    out
}
