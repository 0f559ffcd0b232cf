//! The report's `tune` section: the table of each parameter's start, final value and bounds, then
//! one chart of θ per parameter, from a [`TuneReport`]. Pure: HTML out.

use crate::analysis::report::charts;
use crate::analysis::report::escape::escape_text;
use crate::analysis::report::tune::TuneReport;
use crate::tune::params::{Params, ParamsFormat};

/// The section: the table, then one chart per parameter; empty for a run that is not a tuning.
pub fn section(t: Option<&TuneReport>) -> String {
    let Some(t) = t else {
        return String::new();
    };
    let values = Params {
        format: ParamsFormat::OpenBench,
        list: t.params.iter().map(|p| p.param.clone()).collect(),
    };
    let text = |i: usize, x: f64| escape_text(&values.value_text(i, x));
    let mut out = format!(
        "<section id=\"tune\">\n<h2>Tuning</h2>\n<p class=\"muted\">SPSA: {} of {} iterations \
         completed, {} games ({} colour-swapped game pair{} per iteration). Each chart shows θ \
         after each completed iteration in the order they completed, shaded θ ± c_k: the \
         perturbation of the iteration that made the point.</p>\n<table id=\"tune-table\">\n\
         <thead><tr><th>Parameter</th><th class=\"num\">Start</th><th class=\"num\">Final</th>\
         <th class=\"num\">Min</th><th class=\"num\">Max</th><th class=\"num\">c_end</th>\
         <th class=\"num\">r_end</th></tr></thead>\n<tbody>\n",
        t.completed,
        t.iterations,
        t.games,
        t.pairs,
        if t.pairs == 1 { "" } else { "s" },
    );
    for (i, p) in t.params.iter().enumerate() {
        let q = &p.param;
        out.push_str(&format!(
            "<tr><td class=\"mono\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td></tr>\n",
            escape_text(&q.name),
            text(i, q.start),
            text(i, p.final_value),
            q.min,
            q.max,
            q.c_end,
            q.r_end,
        ));
    }
    out.push_str("</tbody>\n</table>\n<div class=\"charts\">\n");
    for (i, p) in t.params.iter().enumerate() {
        let q = &p.param;
        out.push_str(&format!(
            "<figure id=\"tune-chart-{i}\" class=\"tune-chart\" data-points=\"{}\">\n\
             <figcaption>{} ({}): start {}, final {}, range [{}, {}]</figcaption>\n{}\n</figure>\n",
            p.points.len(),
            escape_text(&q.name),
            q.kind.name(),
            text(i, q.start),
            text(i, p.final_value),
            q.min,
            q.max,
            charts::tune(p),
        ));
    }
    out.push_str("</div>\n</section>\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::report::tune::fixtures::{settings, tune_entry};
    use crate::analysis::report::tune::TuneBuilder;

    #[test]
    fn the_section_has_a_chart_per_parameter_and_nothing_without_a_tuning() {
        assert_eq!(section(None), "");
        let mut b = TuneBuilder::new(&settings());
        b.add(Some(&tune_entry(1, Some((2, [1, -1]))))).unwrap();
        let html = section(Some(&b.finish()));
        assert_eq!(html.matches("class=\"tune-chart\"").count(), 2, "{html}");
        assert_eq!(html.matches("<svg").count(), 2);
        assert!(
            html.contains("1 of 40 iterations completed, 1 games"),
            "{html}"
        );
        assert!(
            html.contains("<tr><td class=\"mono\">four</td><td class=\"num\">150</td>"),
            "{html}"
        );
    }
}
