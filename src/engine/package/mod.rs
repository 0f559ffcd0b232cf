//! Gomocup's engine packages (`-engine pkg=FILE.zip`): a zip unpacked once into a cache keyed
//! by its SHA-256 (`cache`, the I/O) and the program in it that plays the run's rule and board
//! size, chosen as GomocupJudge chooses (`pick`, pure).

pub mod cache;
pub mod pick;

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::core::rules::Rule;

/// Why a package cannot be used.
#[derive(Debug, Error)]
pub enum PackageError {
    /// Reading the zip or writing the cache failed.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// The zip cannot be read as one, or holds absurd numbers.
    #[error("{why}")]
    Corrupt { why: String },
    /// An entry's path leaves the folder it is unpacked into (zip-slip).
    #[error("entry {entry:?} leaves the package's folder (an absolute path or ..)")]
    Escapes { entry: String },
    /// An entry is a symbolic link (it could point anywhere).
    #[error("entry {entry:?} is a symbolic link")]
    Link { entry: String },
    /// No program of the package plays the run.
    #[error("{0}")]
    Pick(#[from] pick::PickError),
}

/// An engine that comes from a package (`EngineSpec::package`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Package {
    /// The zip as the user gave it.
    pub zip: PathBuf,
    /// Its SHA-256 (empty until it is unpacked): the engine's identity in a run.
    pub sha256: String,
    /// The program that runs a Windows executable on another system (Wine); `None` runs the
    /// picked program itself.
    pub launcher: Option<PathBuf>,
}

/// A package unpacked and its program for a run picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    pub unpacked: cache::Unpacked,
    /// The absolute path of the picked program, inside the unpacked folder.
    pub program: PathBuf,
}

impl Prepared {
    /// Whether the picked program is a Windows executable.
    pub fn is_exe(&self) -> bool {
        (self.program.file_name()).is_some_and(|f| pick::is_exe(&f.to_string_lossy()))
    }
}

/// Whether this host is a 64-bit one (GomocupJudge's `platform.machine().endswith("64")`).
pub fn host_is_64() -> bool {
    std::env::consts::ARCH.ends_with("64")
}

/// The zip at `zip` unpacked under `root` and its program for `rule` on a `size`×`size` board.
pub fn prepare(zip: &Path, root: &Path, rule: Rule, size: u32) -> Result<Prepared, PackageError> {
    let unpacked = cache::unpack(zip, root)?;
    let name = pick::pick(&unpacked.files, rule, size, host_is_64())?;
    let dir = std::path::absolute(&unpacked.dir).map_err(|e| PackageError::Io {
        what: format!("cannot resolve {}", unpacked.dir.display()),
        source: e,
    })?;
    Ok(Prepared {
        program: dir.join(name),
        unpacked,
    })
}
