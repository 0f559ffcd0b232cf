//! The crash-safe appending writer: one complete batch (one LZ4 frame for bin_lz4 and
//! binpack_lz4) per game, so a file is valid up to its last finished game after any stop.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};

use lz4_flex::frame::FrameEncoder;
use thiserror::Error;

use crate::formats::samples::codec::SampleEncodeError;
use crate::formats::samples::config::SampleConfig;
use crate::formats::samples::lz4::{empty_lz4_frame, frame_encoder};
use crate::formats::samples::sample::{EvalColumn, Sample};
use crate::formats::samples::{encode_batch, SampleFormat};

/// Failures of the sample writer.
#[derive(Debug, Error)]
pub enum SampleWriteError {
    /// A sample the format cannot represent (nothing of its game is written).
    #[error("cannot write samples to {name}: {source}")]
    Encode {
        name: String,
        #[source]
        source: SampleEncodeError,
    },
    /// Writing or flushing the output failed.
    #[error("cannot write samples to {name}: {source}")]
    Io {
        name: String,
        #[source]
        source: io::Error,
    },
}

/// Appends the samples of each finished game to a file (or any `Write`).
///
/// Every game is encoded in memory and written with one `write_all` then flushed, so the output
/// holds only whole games (short of a kill in the middle of that one call). For bin_lz4 and
/// binpack_lz4 every game is a complete LZ4 frame; a file cut after any game decodes with `lz4 -d`. Python's
/// `lz4.frame.decompress` returns only the first frame of a buffer: read such files with
/// `LZ4FrameDecompressor` in a loop over `unused_data` (see the tests), or with `lz4 -d`.
/// Data reaches the kernel after every game (nothing is lost when the process is killed); it is
/// not fsync'ed.
pub struct SampleWriter<W: Write = File> {
    format: SampleFormat,
    /// csv's evaluation column.
    column: EvalColumn,
    name: String,
    out: W,
    /// The uncompressed batch, reused across games.
    buf: Vec<u8>,
    /// The frame encoder, reused across games (each `try_finish` closes one frame).
    lz4: Option<FrameEncoder<Vec<u8>>>,
    samples: u64,
    /// Bytes handed to the output (compressed ones for the LZ4 formats).
    bytes: u64,
}

impl SampleWriter<File> {
    /// Open `config.file` for appending (created if missing), whatever the format: an existing
    /// bin_lz4 or binpack_lz4 file simply gets more frames. (A file left cut mid-game by a kill during a write
    /// stays cut: new games are appended after the damaged tail, which the reader reports.)
    pub fn open(config: &SampleConfig) -> Result<SampleWriter<File>, SampleWriteError> {
        let name = config.file.display().to_string();
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&config.file)
            .map_err(|source| SampleWriteError::Io {
                name: name.clone(),
                source,
            })?;
        let mut writer =
            SampleWriter::new(config.format, file, name).with_eval_column(config.eval_column);
        // A new LZ4 file starts with an empty frame, so that a run (or an export) with no
        // sample yet leaves a valid LZ4 file rather than 0 bytes, which python-lz4's
        // `lz4.frame` (what trainers open such files with) refuses with EOFError.
        let empty = writer.out.metadata().map(|m| m.len() == 0).unwrap_or(false);
        if config.format.compressed() && empty {
            let frame = empty_lz4_frame();
            writer
                .out
                .write_all(&frame)
                .and_then(|()| writer.out.flush())
                .map_err(|e| writer.io_err(e))?;
        }
        Ok(writer)
    }
}

impl<W: Write> SampleWriter<W> {
    /// A writer over any output; `name` is used in error messages.
    pub fn new(format: SampleFormat, out: W, name: impl Into<String>) -> SampleWriter<W> {
        let lz4 = format.compressed().then(frame_encoder);
        SampleWriter {
            format,
            column: EvalColumn::Without,
            name: name.into(),
            out,
            buf: Vec::new(),
            lz4,
            samples: 0,
            bytes: 0,
        }
    }

    /// Write csv lines with (or without, the default) the evaluation column.
    pub fn with_eval_column(mut self, column: EvalColumn) -> SampleWriter<W> {
        self.column = column;
        self
    }

    pub fn format(&self) -> SampleFormat {
        self.format
    }

    /// Bytes written to the output so far (the size the file grew by).
    pub fn bytes_written(&self) -> u64 {
        self.bytes
    }

    /// Samples written so far.
    pub fn samples_written(&self) -> u64 {
        self.samples
    }

    fn io_err(&self, source: io::Error) -> SampleWriteError {
        SampleWriteError::Io {
            name: self.name.clone(),
            source,
        }
    }

    /// Append one game's samples and flush. An empty batch writes nothing (no empty frame). If any
    /// sample cannot be encoded, nothing of this game is written.
    pub fn write_game(&mut self, samples: &[Sample]) -> Result<(), SampleWriteError> {
        if samples.is_empty() {
            return Ok(());
        }
        self.buf.clear();
        encode_batch(self.format, self.column, samples, &mut self.buf).map_err(|source| {
            SampleWriteError::Encode {
                name: self.name.clone(),
                source,
            }
        })?;
        let result = match self.lz4.as_mut() {
            None => self.out.write_all(&self.buf).map(|()| self.buf.len()),
            Some(enc) => {
                enc.get_mut().clear();
                let framed = enc
                    .write_all(&self.buf)
                    .and_then(|()| enc.try_finish().map_err(io::Error::from));
                match framed {
                    Ok(()) => self
                        .out
                        .write_all(enc.get_ref())
                        .map(|()| enc.get_ref().len()),
                    Err(e) => Err(e),
                }
            }
        };
        let result = result.map(|n| self.bytes += n as u64);
        result
            .and_then(|()| self.out.flush())
            .map_err(|e| self.io_err(e))?;
        self.samples += samples.len() as u64;
        Ok(())
    }

    /// Flush and hand back the output. Every game is already complete on disk, so this is only a
    /// final flush; dropping the writer instead loses nothing.
    pub fn finish(mut self) -> Result<W, SampleWriteError> {
        self.out.flush().map_err(|e| self.io_err(e))?;
        Ok(self.out)
    }
}
