//! Parameter tuning: the parameter files engines' authors write (OpenBench's lines, Rapfi's printed
//! table) and the SPSA step fishtest and OpenBench compute, both pure so that `tune` can replay any
//! iteration from the journal.

pub mod entry;
pub mod params;
pub mod spsa;
pub mod tuner;

pub use tuner::{Point, TuneSetup, Tuner};
