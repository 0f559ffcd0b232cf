//! The tournament's decisions: the dispatcher, the single owner of a run's state, fed finished
//! games and stops, answering with the next game and the actions for the shell to carry out.

pub mod caps;
pub mod dispatcher;
pub mod events;
