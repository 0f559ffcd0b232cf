//! What engines said about their search, per move, as the journal keeps it: short keys, absent
//! fields left out, so a game line grows little and journals without reports read unchanged.

use serde::{Deserialize, Serialize};

use crate::core::board::BoardSize;
use crate::core::search::{Eval, PvMove, SearchReport};
use crate::game::record::{moves_text, PlayedMove};

use crate::formats::journal::wire::parse_moves_text;

/// One move's search report in the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchEntry {
    /// Evaluation, side to move's view: `+35`, `-120`, `+M5`, `-M*`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ev: Option<Eval>,
    /// Depth and selective depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sd: Option<u32>,
    /// Nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<u64>,
    /// The engine's own time, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// The principal variation, in the journal's move notation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub pv: String,
    /// With several PVs: each one's first move and evaluation, PV 0 first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mpv: Vec<(String, Option<Eval>)>,
}

impl SearchEntry {
    fn of(r: &SearchReport, size: BoardSize) -> Self {
        SearchEntry {
            ev: r.eval,
            d: r.depth,
            sd: r.seldepth,
            n: r.nodes,
            ms: r.time_ms,
            pv: moves_text(&r.pv, size),
            mpv: r
                .multipv
                .iter()
                .map(|m| (moves_text(&[m.pos], size), m.eval))
                .collect(),
        }
    }

    fn to_report(&self, size: BoardSize) -> Result<SearchReport, (String, String)> {
        let points = |text: &str| {
            parse_moves_text(text, size).map_err(|e| (text.to_string(), e.to_string()))
        };
        let multipv = self
            .mpv
            .iter()
            .map(|(text, eval)| match points(text)?.as_slice() {
                [pos] => Ok(PvMove {
                    pos: *pos,
                    eval: *eval,
                }),
                _ => Err((text.clone(), "not one point".to_string())),
            })
            .collect::<Result<_, _>>()?;
        Ok(SearchReport {
            eval: self.ev,
            depth: self.d,
            seldepth: self.sd,
            nodes: self.n,
            time_ms: self.ms,
            pv: points(&self.pv)?,
            multipv,
        })
    }
}

/// The journal's `search` field for `moves`: empty when no move carries a report (the line is
/// then what it was before engines were heard).
pub fn entries_of(moves: &[PlayedMove], size: BoardSize) -> Vec<Option<SearchEntry>> {
    if moves.iter().all(|m| m.search.is_none()) {
        return Vec::new();
    }
    moves
        .iter()
        .map(|m| m.search.as_deref().map(|r| SearchEntry::of(r, size)))
        .collect()
}

/// The reports of a game line's `search` field, one per move (`None` throughout when the field
/// is absent). `Err` carries the value that cannot be read and why.
pub fn reports_of(
    entries: &[Option<SearchEntry>],
    moves: usize,
    size: BoardSize,
) -> Result<Vec<Option<Box<SearchReport>>>, (String, String)> {
    if entries.is_empty() {
        return Ok(vec![None; moves]);
    }
    if entries.len() != moves {
        return Err((
            format!("{} reports", entries.len()),
            format!("{moves} moves but {} search reports", entries.len()),
        ));
    }
    entries
        .iter()
        .map(|e| match e {
            Some(e) => e.to_report(size).map(|r| Some(Box::new(r))),
            None => Ok(None),
        })
        .collect()
}
