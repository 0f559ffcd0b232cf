//! gomoku-cli: a tournament runner for gomoku and renju engines that speak the Gomocup (pbrain) protocol.
//!
//! The pure core (board, rules, openings, statistics, records) has no I/O; the engine and runner
//! layers drive processes with tokio.

pub mod analysis;
pub mod cli;
pub mod commands;
pub mod config;
pub mod core;
pub mod engine;
pub mod formats;
pub mod game;
pub mod outputs;
pub mod runner;
pub mod schedule;
pub mod stats;
pub mod tournament;
pub mod tune;
