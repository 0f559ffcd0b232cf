//! One game, from the first request to the finished record: the referee loop and its clocks
//! (`play`, `swap_game`), adjudication by the engines' evaluations (`adjudicate`), how a game
//! ends (`termination`: the one table of every end's names) and the finished game (`record`).
//! Files here import one another by their own paths; this file only declares them.

pub mod adjudicate;
pub mod play;
pub mod record;
pub mod swap_game;
pub mod termination;
