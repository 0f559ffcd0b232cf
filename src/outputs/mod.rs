//! The files a run writes, below the runner: one path policy (`paths`), the journal and the records a finished game is saved to (`writer`, `records`),
//! completing the last game's records on resume (`records::complete_last`) and the protocol logs
//! (`logs`); files replaced whole go through `atomic_file`. The runner, `export`, `report` and `lib` write through here.

pub mod leftovers;
pub mod logs;
pub mod paths;
pub mod records;
pub mod same_file;
pub mod writer;

use std::path::PathBuf;

use thiserror::Error;

pub use paths::prepare_parent;
pub use writer::{record_targets, Outputs};

/// Which records a finished game goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Records {
    /// The journal and every other record.
    All,
    /// The journal only (`-loseonly` and a game the first engine did not lose).
    JournalOnly,
}

/// An output that cannot be opened or written.
#[derive(Debug, Error)]
pub enum OutputError {
    /// An output file or directory cannot be created or opened.
    #[error("cannot open output {path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A parent of an output path is a file.
    #[error("cannot create {path}: {file} is a file, not a directory")]
    NotADirectory { path: PathBuf, file: PathBuf },
    /// Writing to an output failed (a full disk, a file size limit, an I/O error): the run stops.
    #[error("cannot write to {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `-journal FILE` names a journal that already holds games (of another run).
    #[error("journal {path} already exists and is not empty: a new run never appends to another run's journal; give another -journal path or remove the file")]
    JournalExists { path: PathBuf },
    /// The `-renlib` library cannot be read or written.
    #[error("-renlib: {0}")]
    Renlib(String),
    /// The samples file cannot be opened or written.
    #[error("{0}")]
    Samples(#[from] crate::formats::samples::SampleWriteError),
    /// A journal line that cannot be turned back into the game it records.
    #[error("{0}")]
    Rebuild(#[from] crate::formats::journal::RebuildError),
}
