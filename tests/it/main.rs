//! The integration tests, as one test binary (issue 34): each module was a binary of its own,
//! `tests/NAME.rs`, and linked the whole library again; now the library is linked once. Run one
//! module with `cargo test --test it NAME::` (`cargo test --test it e2e_runner::`).
//!
//! The modules share one process and run on parallel threads, so none may change what the
//! process holds for all: the environment, the working directory, signal dispositions, limits.
//! A test that needs such a change runs it in a child process (`engine_session`'s SIGPIPE test
//! re-runs this binary); the renlib fuzz's counting allocator, global by nature, counts each
//! thread apart.

mod common;

mod architecture;
mod e2e_adjudicate;
mod e2e_caps;
mod e2e_chatter;
mod e2e_check;
mod e2e_dispatch;
mod e2e_edges;
mod e2e_fault_matrix;
mod e2e_figrid;
mod e2e_formats;
mod e2e_groups;
mod e2e_judge;
mod e2e_large_cap;
mod e2e_lib;
mod e2e_named;
mod e2e_opengen;
mod e2e_openings;
mod e2e_outputs;
mod e2e_packages;
mod e2e_ratings;
mod e2e_readers;
mod e2e_records;
mod e2e_report;
mod e2e_resume;
mod e2e_runner;
mod e2e_search;
mod e2e_shards;
mod e2e_stats;
mod e2e_swap;
mod e2e_tune;
mod e2e_tune_report;
mod engine_session;
mod examples;
mod forbidden_testdata;
mod fuzz_regressions;
mod openings_files;
mod psq_records;
mod ratings_bayeselo;
mod renlib_files;
mod renlib_fuzz;
mod renlib_props;
mod report_browser;
mod rules_props;
mod samples_evals;
mod samples_formats;
mod sprt_reference;
mod stats_properties;
mod stats_report;
