//! gomoku-cli: a tournament runner for gomoku and renju engines that speak the Gomocup (pbrain) protocol.
//!
//! The pure core (board, rules, openings, statistics, records) has no I/O; the engine and runner
//! layers drive processes with tokio.

pub mod adjudicate;
pub mod atomic_file;
pub mod board;
pub mod check;
pub mod cli;
pub mod config;
pub mod engine;
pub mod game;
pub mod journal;
pub mod judge;
pub mod numbers;
pub mod opengen;
pub mod opening;
pub mod openings_audit;
pub mod outputs;
pub mod record;
pub mod renlib;
pub mod report;
pub mod rules;
pub mod runner;
pub mod schedule;
pub mod search;
pub mod settings_diff;
pub mod shard;
pub mod stats;
pub mod swap;
pub mod tracker;
pub mod tune;
