//! The report's charts, drawn in Rust as SVG with plotters' SVG backend (which escapes every
//! text it writes, so engine names in legends are safe). Pure: a [`Report`](crate::analysis::report::Report)'s
//! series in, SVG text out; no script draws anything.

use plotters::coord::ranged1d::SegmentedCoord;
use plotters::coord::types::{RangedCoordf64, RangedCoordusize};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::analysis::report::escape::escape_text;
use crate::analysis::report::figures::{
    thin, Distribution, EloSeries, EngineTerminations, EngineTimes, LlrSeries,
};
use crate::analysis::report::tune::TuneParam;
use crate::game::termination::{termination_label, TerminationKind, OTHER_TERMINATION};

const WIDTH: u32 = 760;
const FONT: &str = "sans-serif";
const HEIGHT: u32 = 320;

/// Engine colours (charts and the page's legend swatches).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// The LLR line's colour; the browser test finds the series by it.
pub const LLR_COLOR: RGBColor = RGBColor(0x1f, 0x77, 0xb4);

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Draw<'a> = Result<(), Box<dyn std::error::Error + 'a>>;

/// Run `draw` on a fresh SVG canvas and return the SVG text (a drawing error becomes a short
/// SVG saying so: a chart never stops a report).
fn svg(draw: impl for<'a> FnOnce(&Area<'a>) -> Draw<'a>) -> String {
    let mut out = String::new();
    let failed = {
        let root = SVGBackend::with_string(&mut out, (WIDTH, HEIGHT)).into_drawing_area();
        let r = root
            .fill(&WHITE)
            .map_err(|e| e.to_string())
            .and_then(|()| draw(&root).map_err(|e| e.to_string()))
            .and_then(|()| root.present().map_err(|e| e.to_string()));
        r.err()
    };
    match failed {
        None => out,
        Some(e) => format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"40\"><text x=\"4\" y=\"20\">chart failed: {}</text></svg>",
            escape_text(&e)
        ),
    }
}

type Plane<'a> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A chart of two numeric axes with their descriptions, drawn on `root`.
fn plane<'a>(
    root: &Area<'a>,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
    (x_desc, y_desc): (&str, &str),
) -> Result<Plane<'a>, Box<dyn std::error::Error + 'a>> {
    let mut c = ChartBuilder::on(root)
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(x, y)?;
    c.configure_mesh()
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .x_desc(x_desc)
        .y_desc(y_desc)
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    Ok(c)
}

type BarPlane<'a> =
    ChartContext<'a, SVGBackend<'a>, Cartesian2d<SegmentedCoord<RangedCoordusize>, RangedCoordf64>>;

/// A bar chart's plane: `n` labelled slots across, counts up to `y1` up.
fn bar_plane<'a>(
    root: &Area<'a>,
    n: usize,
    y1: f64,
    (x_desc, y_desc): (&str, &str),
    label: &dyn Fn(usize) -> String,
) -> Result<BarPlane<'a>, Box<dyn std::error::Error + 'a>> {
    let mut c = ChartBuilder::on(root)
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d((0..n).into_segmented(), 0.0..y1)?;
    c.configure_mesh()
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .disable_x_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => label(*i),
            SegmentValue::Last => String::new(),
        })
        .draw()?;
    Ok(c)
}

/// The series' legend box.
fn legend<'a, X, Y>(
    c: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    at: SeriesLabelPosition,
) -> Draw<'a>
where
    X: plotters::coord::ranged1d::Ranged,
    Y: plotters::coord::ranged1d::Ranged,
{
    c.configure_series_labels()
        .label_font((FONT, 13))
        .position(at)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()?;
    Ok(())
}

/// A range around `values` with some headroom; a flat or empty range is widened.
fn span(values: impl Iterator<Item = f64>, floor: Option<f64>) -> (f64, f64) {
    let (mut lo, mut hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    if let Some(f) = floor {
        lo = lo.min(f);
    }
    if hi - lo < 1e-9 {
        hi = lo + 1.0;
    }
    let pad = (hi - lo) * 0.05;
    (if floor == Some(lo) { lo } else { lo - pad }, hi + pad)
}

/// The LLR after each game, with both bounds and the crossing marked.
pub fn llr(s: &LlrSeries) -> String {
    let pts: Vec<(f64, f64)> = s.points.iter().map(|p| (p.games as f64, p.value)).collect();
    let x_max = pts.last().map_or(1.0, |p| p.0.max(1.0));
    let (y0, y1) = span(pts.iter().map(|p| p.1).chain([s.lower, s.upper]), None);
    svg(|root| {
        let mut c = plane(root, 0.0..x_max, y0..y1, ("games", "LLR"))?;
        for (bound, colour, name) in [
            (s.upper, RGBColor(0x2c, 0xa0, 0x2c), "H1 bound"),
            (s.lower, RGBColor(0xd6, 0x27, 0x28), "H0 bound"),
        ] {
            c.draw_series(LineSeries::new(
                [(0.0, bound), (x_max, bound)],
                colour.stroke_width(1),
            ))?
            .label(format!("{name} {bound:.2}"))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], colour));
        }
        c.draw_series(LineSeries::new(
            pts.iter().copied(),
            LLR_COLOR.stroke_width(2),
        ))?
        .label("LLR")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 14, y)], LLR_COLOR));
        if let Some(x) = &s.crossing {
            c.draw_series([Circle::new(
                (x.games as f64, x.llr),
                5,
                BLACK.stroke_width(2),
            )])?;
        }
        legend(&mut c, SeriesLabelPosition::UpperLeft)?;
        Ok(())
    })
}

/// Games, estimate, lower and upper bound.
type Band = (f64, f64, f64, f64);

/// Each pair's Elo estimate after each of its games, with the 95 % interval as a band.
pub fn elo(series: &[EloSeries], names: &[String]) -> String {
    let shown: Vec<(usize, Vec<Band>)> = series
        .iter()
        .enumerate()
        .take(PALETTE.len())
        .map(|(i, s)| {
            let pts = thin(&s.points)
                .iter()
                .filter(|(_, e)| e.value.is_finite() && e.lower.is_finite() && e.upper.is_finite())
                .map(|(g, e)| (*g as f64, e.value, e.lower, e.upper))
                .collect();
            (i, pts)
        })
        .collect();
    let x_max = shown
        .iter()
        .flat_map(|(_, p)| p.last().map(|q| q.0))
        .fold(1.0, f64::max);
    // The first games' intervals are huge: the range follows the later half of each series.
    let settled = shown
        .iter()
        .flat_map(|(_, p)| p[p.len() / 2..].iter().flat_map(|q| [q.2, q.3]));
    let (y0, y1) = span(settled.chain([0.0]), None);
    let (y0, y1) = (y0.max(-1500.0), y1.min(1500.0));
    svg(|root| {
        let mut c = plane(root, 0.0..x_max, y0..y1, ("games", "Elo"))?;
        c.draw_series(LineSeries::new([(0.0, 0.0), (x_max, 0.0)], BLACK.mix(0.4)))?;
        for (i, pts) in &shown {
            let colour = PALETTE[*i % PALETTE.len()];
            let clamp = |v: f64| v.clamp(y0, y1);
            let band = band_outline(pts.iter().map(|p| (p.0, clamp(p.2), clamp(p.3))));
            if band.len() > 2 {
                c.draw_series([Polygon::new(band, colour.mix(0.15))])?;
            }
            let s = &series[*i];
            let label = format!("{} vs {}", name(names, s.first), name(names, s.second));
            c.draw_series(LineSeries::new(
                pts.iter().map(|p| (p.0, clamp(p.1))),
                colour.stroke_width(2),
            ))?
            .label(label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], colour));
        }
        legend(&mut c, SeriesLabelPosition::UpperRight)?;
        Ok(())
    })
}

/// The outline of a band of `(x, lower, upper)` points: along the upper edge, back along the lower.
fn band_outline(pts: impl DoubleEndedIterator<Item = (f64, f64, f64)> + Clone) -> Vec<(f64, f64)> {
    (pts.clone().map(|p| (p.0, p.2)))
        .chain(pts.rev().map(|p| (p.0, p.1)))
        .collect()
}

/// One tuned parameter's θ after each completed iteration, shaded θ ± c_k (inside its
/// [min, max]), from its start value at 0 iterations; the start as a dashed line.
pub fn tune(p: &TuneParam) -> String {
    let (min, max) = (p.param.min, p.param.max);
    let start = p.param.start;
    let pts: Vec<(f64, f64, f64, f64)> = (p.points.iter())
        .map(|q| {
            let (lo, hi) = (q.value - q.c_k, q.value + q.c_k);
            (q.completed as f64, q.value, lo.max(min), hi.min(max))
        })
        .collect();
    let x_max = pts.last().map_or(1.0, |q| q.0.max(1.0));
    let seen = pts.iter().flat_map(|q| [q.2, q.3]).chain([start]);
    let (y0, y1) = span(seen, None);
    let colour = PALETTE[0];
    svg(|root| {
        let mut c = plane(
            root,
            0.0..x_max,
            y0..y1,
            ("iterations completed", &p.param.name),
        )?;
        let band = band_outline(pts.iter().map(|q| (q.0, q.2, q.3)));
        if band.len() > 2 {
            c.draw_series([Polygon::new(band, colour.mix(0.2))])?
                .label("θ ± c_k")
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 14, y + 5)], colour.mix(0.2).filled())
                });
        }
        let grey = BLACK.mix(0.5);
        c.draw_series(DashedLineSeries::new(
            [(0.0, start), (x_max, start)],
            4,
            4,
            grey.stroke_width(1),
        ))?
        .label(format!("start {start}"))
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], grey));
        let line = [(0.0, start)]
            .into_iter()
            .chain(pts.iter().map(|q| (q.0, q.1)));
        c.draw_series(LineSeries::new(line, colour.stroke_width(2)))?
            .label("θ")
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], colour));
        legend(&mut c, SeriesLabelPosition::UpperRight)?;
        Ok(())
    })
}

fn name(names: &[String], i: usize) -> &str {
    names.get(i).map_or("?", String::as_str)
}

/// Bars of the outcome distribution (pentanomial pairs or W/D/L games).
pub fn distribution(d: &Distribution) -> String {
    let n = d.labels.len();
    let y1 = d.counts.iter().copied().max().unwrap_or(0).max(1) as f64 * 1.1;
    let x_desc = if n == 5 {
        "points of the pair"
    } else {
        "result"
    };
    svg(|root| {
        let label = |i: usize| d.labels.get(i).copied().unwrap_or("").to_string();
        let mut c = bar_plane(root, n, y1, (x_desc, "count"), &label)?;
        c.draw_series(d.counts.iter().enumerate().map(|(i, &v)| {
            let mut bar = Rectangle::new(
                [
                    (SegmentValue::Exact(i), 0.0),
                    (SegmentValue::Exact(i + 1), v as f64),
                ],
                PALETTE[0].mix(0.8).filled(),
            );
            bar.set_margin(0, 0, 12, 12);
            bar
        }))?;
        Ok(())
    })
}

/// Think time by the engine's move number: the median as a line, the middle half as a band.
pub fn times(t: &[EngineTimes], names: &[String]) -> String {
    let x_max = t
        .iter()
        .flat_map(|e| e.by_move.last().map(|m| m.move_number))
        .max()
        .unwrap_or(1)
        .max(2) as f64;
    let (_, y1) = span(
        t.iter()
            .flat_map(|e| e.by_move.iter().map(|m| m.p75 as f64)),
        Some(0.0),
    );
    svg(|root| {
        let mut c = plane(
            root,
            1.0..x_max,
            0.0..y1,
            ("move number (the engine's own moves)", "think time, ms"),
        )?;
        for e in t.iter().take(PALETTE.len()) {
            let colour = PALETTE[e.engine % PALETTE.len()];
            let band: Vec<(f64, f64)> = e
                .by_move
                .iter()
                .map(|m| (m.move_number as f64, m.p75 as f64))
                .chain(
                    e.by_move
                        .iter()
                        .rev()
                        .map(|m| (m.move_number as f64, m.p25 as f64)),
                )
                .collect();
            if band.len() > 2 {
                c.draw_series([Polygon::new(band, colour.mix(0.15))])?;
            }
            c.draw_series(LineSeries::new(
                e.by_move
                    .iter()
                    .map(|m| (m.move_number as f64, m.median as f64)),
                colour.stroke_width(2),
            ))?
            .label(format!("{} (median, 25–75 %)", name(names, e.engine)))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], colour));
            if !e.own_by_move.is_empty() {
                let own: Vec<(f64, f64)> = (e.own_by_move.iter())
                    .map(|m| (m.move_number as f64, m.median as f64))
                    .collect();
                c.draw_series(DashedLineSeries::new(own, 4, 3, colour.stroke_width(1)))?
                    .label(format!("{} (own time, median)", name(names, e.engine)))
                    .legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 5, y)], colour.stroke_width(1))
                    });
            }
        }
        legend(&mut c, SeriesLabelPosition::UpperRight)?;
        Ok(())
    })
}

/// Colours of the termination kinds, in [`TerminationKind::ALL`] order, then "other".
const KIND_COLOURS: [RGBColor; 14] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0xff, 0xbb, 0x78),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x9e, 0xda, 0xe5),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0xc5, 0xb0, 0xd5),
    RGBColor(0x98, 0xdf, 0x8a),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// Each engine's lost games stacked by how they ended (five, forbidden, time, crash, ...).
pub fn terminations(t: &[EngineTerminations], names: &[String]) -> String {
    let n = t.len();
    let kinds: Vec<&str> = TerminationKind::ALL
        .iter()
        .map(|k| k.row().code)
        .chain([OTHER_TERMINATION])
        .collect();
    let y1 = t
        .iter()
        .map(|e| e.lost.values().sum::<u64>())
        .max()
        .unwrap_or(0)
        .max(1) as f64
        * 1.15;
    svg(|root| {
        let label = |i: usize| t.get(i).map_or("", |e| name(names, e.engine)).to_string();
        let mut c = bar_plane(root, n, y1, ("", "games lost"), &label)?;
        for (k, kind) in kinds.iter().enumerate() {
            if t.iter().all(|e| !e.lost.contains_key(kind)) {
                continue;
            }
            let colour = KIND_COLOURS[k % KIND_COLOURS.len()];
            let bars = t.iter().enumerate().filter_map(|(i, e)| {
                let v = *e.lost.get(kind)? as f64;
                let below: u64 = kinds[..k].iter().filter_map(|x| e.lost.get(x)).sum();
                let mut bar = Rectangle::new(
                    [
                        (SegmentValue::Exact(i), below as f64),
                        (SegmentValue::Exact(i + 1), below as f64 + v),
                    ],
                    colour.filled(),
                );
                bar.set_margin(0, 0, 16, 16);
                Some(bar)
            });
            c.draw_series(bars)?
                .label(termination_label(kind))
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled())
                });
        }
        legend(&mut c, SeriesLabelPosition::UpperRight)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::report::figures::Point;
    use crate::analysis::report::figures::MAX_POINTS;

    #[test]
    fn thinning_keeps_short_series_whole_and_the_last_point() {
        let short: Vec<u32> = (0..MAX_POINTS as u32).collect();
        assert_eq!(thin(&short), short);
        for n in [MAX_POINTS + 1, 100_000, 100_001] {
            let long: Vec<u32> = (0..n as u32).collect();
            let t = thin(&long);
            assert!(t.len() <= MAX_POINTS + 1, "{}", t.len());
            assert_eq!(t.first(), Some(&0));
            assert_eq!(t.last(), Some(&(n as u32 - 1)));
            assert!(t.windows(2).all(|w| w[0] < w[1]));
        }
        assert!(thin::<u32>(&[]).is_empty());
    }

    #[test]
    fn the_llr_line_has_a_vertex_per_game_and_names_are_escaped() {
        let s = LlrSeries {
            games: 37,
            points: (1..=37)
                .map(|g| Point {
                    games: g,
                    value: g as f64 / 10.0,
                })
                .collect(),
            lower: -2.94,
            upper: 2.94,
            crossing: None,
        };
        let out = llr(&s);
        let colour = format!(
            "stroke=\"#{:02X}{:02X}{:02X}\"",
            LLR_COLOR.0, LLR_COLOR.1, LLR_COLOR.2
        );
        let line = out
            .lines()
            .find(|l| {
                l.contains("<polyline") && l.contains(&colour) && l.contains("stroke-width=\"2\"")
            })
            .expect("the LLR polyline");
        let points = line.split("points=\"").nth(1).unwrap();
        let points = points.split('"').next().unwrap();
        assert_eq!(points.split_whitespace().count(), 37);
        let e = elo(
            &[EloSeries {
                first: 0,
                second: 1,
                points: vec![],
            }],
            &["<b>&".to_string(), "x".to_string()],
        );
        assert!(e.contains("&lt;b&gt;&amp; vs x"), "{e}");
        assert!(!e.contains("<b>"));
    }
}
