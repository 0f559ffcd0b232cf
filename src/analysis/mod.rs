//! What a run's games say, computed from the journal: the results tracker (standings, pentanomial
//! pairs, SPRT), the per-opening audit and the HTML report's model and page.

pub mod openings_audit;
pub mod promotion;
pub mod report;
pub mod staged;
pub mod tracker;
