//! The results journal, the run's single source of truth: its wire contract, its readers and the
//! one rule for repeated games. Resume, shard sync, `merge`, `sprt`, `export`, `lib merge` and the
//! reports all read journals through this module.

pub mod identity;
mod read;
mod repeats;
mod search;
mod wire;

pub use read::*;
pub use repeats::*;
pub use search::*;
pub use wire::*;
