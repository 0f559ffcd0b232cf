//! A run's identity: the part of its settings that decides the games, hashed, so a journal tells
//! whether two runs may be mixed (shards, `-resume`, `merge`), and a header edited by hand is
//! caught (its settings no longer give its fingerprint).

use serde::Serialize;
use sha2::Digest;

use crate::formats::journal::{JournalHeader, RunSettings};

use crate::core::numbers::hex;

/// The part of [`RunSettings`] that makes a run's identity, one canonical JSON object (fields in
/// declaration order), hashed with SHA-256: the same value from every build on every machine,
/// so shards on different builds, or a run resumed after an upgrade, find each other. Left out,
/// as each shard has its own or as it decides no game: engine names (from the engines), the
/// shard, `total_games` (follows from the rest), the seed unless openings are drawn at random,
/// the openings' format unless psq and their bytes, `max_memory`, `threads`, `send_by_board`
/// (what engines are told, not what they play), `colours` (follows from `swap`; older journals
/// lack it) and `sprt` (when the run stops).
#[derive(Serialize)]
struct Identity<'a> {
    engines: Vec<EngineIdentity<'a>>,
    rule: u8,
    size: u8,
    tournament: &'a str,
    /// A knockout's `-seeds`, and the seed that places the other engines; left out otherwise,
    /// so earlier runs keep their identity.
    #[serde(skip_serializing_if = "Option::is_none")]
    seeds: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    placement: Option<u64>,
    games: u64,
    rounds: u64,
    repeat: bool,
    /// `-noswap`/`-reverse`; left out when off, so earlier runs keep their identity.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    noswap: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    reverse: bool,
    /// `-ponder` (engines think longer than their own moves); left out when off.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    ponder: bool,
    draw_after: usize,
    swap: Option<&'a str>,
    openings: Option<OpeningIdentity<'a>>,
    /// `-draw`/`-resign` as typed; left out when off, so earlier runs keep their identity.
    #[serde(skip_serializing_if = "Option::is_none")]
    adjudication: Option<&'a str>,
    /// `tune`: its parameters, SPSA settings and seed; left out for a match.
    #[serde(skip_serializing_if = "Option::is_none")]
    tune: Option<&'a crate::tune::entry::TuneSettings>,
    /// `-tournament groups`: the gap and the ratings (which pairs meet); left out for another
    /// format, so earlier runs keep their identity.
    #[serde(skip_serializing_if = "Option::is_none")]
    groups: Option<GroupIdentity<'a>>,
}

#[derive(Serialize)]
struct GroupIdentity<'a> {
    gap: u64,
    ratings: &'a [Option<i64>],
}

#[derive(Serialize)]
struct EngineIdentity<'a> {
    cmd: &'a str,
    tc: &'a str,
    depth: Option<u64>,
    nodes: Option<u64>,
    options: &'a [(String, String)],
    /// A package's SHA-256 (its `cmd` is left empty: the zip may move); left out for a command.
    #[serde(skip_serializing_if = "Option::is_none")]
    package: Option<&'a str>,
}

#[derive(Serialize)]
struct OpeningIdentity<'a> {
    file: &'a str,
    /// Only for a random order.
    seed: Option<u64>,
    transform: bool,
    order: &'a str,
    /// `psq` or `psq moves=N` (the stones of each record that make the opening); else none.
    psq: Option<&'a str>,
    /// `start=N`; left out from 1, so earlier runs keep their identity.
    #[serde(skip_serializing_if = "Option::is_none")]
    start: Option<u64>,
}

impl RunSettings {
    /// Whether the seed places engines: a knockout with more than one engine past its seeds.
    pub fn placed_by_seed(&self) -> bool {
        let seeded = self.seeds.unwrap_or(0);
        self.tournament == "knockout" && self.engines.len().saturating_sub(seeded) > 1
    }

    /// The run's identity (see [`Identity`]): 32 hex digits.
    pub fn identity(&self) -> String {
        let id = Identity {
            engines: (self.engines.iter())
                .map(|e| EngineIdentity {
                    cmd: if e.package.is_some() { "" } else { &e.cmd },
                    tc: &e.tc,
                    depth: e.depth,
                    nodes: e.nodes,
                    options: &e.options,
                    package: e.package.as_deref(),
                })
                .collect(),
            rule: self.rule,
            size: self.size,
            tournament: &self.tournament,
            seeds: self.seeds,
            placement: self.placed_by_seed().then_some(self.seed),
            games: self.games,
            rounds: self.rounds,
            repeat: self.repeat,
            noswap: self.noswap,
            reverse: self.reverse,
            ponder: self.ponder,
            draw_after: self.draw_after,
            swap: self.swap.as_deref(),
            openings: self.openings.as_ref().map(|o| OpeningIdentity {
                file: &o.file,
                seed: (o.order == "random").then_some(self.seed),
                transform: o.transform,
                order: &o.order,
                psq: (o.format.split(' ').next() == Some("psq")).then_some(o.format.as_str()),
                start: o.start,
            }),
            adjudication: self.adjudication.as_deref(),
            tune: self.tune.as_ref(),
            groups: self.groups.as_ref().map(|g| GroupIdentity {
                gap: g.gap,
                ratings: &g.ratings,
            }),
        };
        let text = serde_json::to_string(&id).unwrap_or_default();
        hex(&sha2::Sha256::digest(text.as_bytes())[..16])
    }
}

/// A header whose settings do not give the fingerprint it carries: edited by hand (a rule changed
/// from 0 to 4), so it no longer says how its games were played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: the header's settings give the fingerprint {computed}, not the {claimed} it carries (were they edited?): its games were not played under these settings")]
pub struct HeaderMismatch {
    pub file: String,
    pub claimed: String,
    pub computed: String,
}

impl JournalHeader {
    /// Whether the header's settings still give its fingerprint. Only the SHA-256 form (32 hex
    /// digits) is computed from the header alone; the older `DefaultHasher` one (16 digits, see
    /// [`legacy_identity`]) hashed the configuration with std's unstable hasher and cannot be
    /// recomputed, so such a header, or one with any other value, is taken as it is.
    pub fn check(&self, file: &str) -> Result<(), HeaderMismatch> {
        let sha = self.fingerprint.len() == 32
            && (self.fingerprint.bytes()).all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        let computed = self.settings.identity();
        if !sha || computed == self.fingerprint {
            return Ok(());
        }
        Err(HeaderMismatch {
            file: file.to_string(),
            claimed: self.fingerprint.clone(),
            computed,
        })
    }
}
