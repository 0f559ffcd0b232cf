//! Every file format the program reads or writes, as codecs of the game's values and the run's
//! settings: the results journal, PGN, SGF, message blocks, Piskvork `.psq`, training samples,
//! RenLib libraries and opening files, plus the one way files are replaced whole.

pub mod atomic_file;
pub mod journal;
pub mod msg;
pub mod openings;
pub mod pgn;
pub mod pgn_tags;
pub mod psq;
pub mod rated_games;
pub mod ratings_file;
#[cfg(test)]
mod render_snapshots;
pub mod renlib;
pub mod samples;
pub mod settings_diff;
pub mod sgf;
pub mod text_records;
