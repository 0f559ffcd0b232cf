//! The pure values everything else is made of: the board and its coordinates, the game rules
//! and their referee, the opening protocols (swap2, swap1), what an engine says about its
//! search, and checked numbers. No I/O, no imports from any other layer.

pub mod board;
pub mod numbers;
pub mod rules;
pub mod search;
pub mod shuffle;
pub mod swap;
