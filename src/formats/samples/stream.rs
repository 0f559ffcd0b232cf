//! Reading a stream entry by entry, shared by the formats: a reader that counts the bytes it
//! hands out (so damage can be placed), and [`Entrywise`], the reader of a binary format whose
//! entries each start with a fixed-size head ([`EntryFormat`] reads one).

use std::collections::VecDeque;
use std::io::{self, Read};

use crate::formats::samples::codec::{Damage, EntryCounts, EntrySource};
use crate::formats::samples::sample::StoredSample;

/// A reader that counts the bytes it hands out (the offset of the next bin entry) and remembers
/// whether it met the end of its input and the last byte before it: a csv record that ends the
/// file without a line end may be a cut one.
pub(super) struct Counting<R> {
    inner: R,
    pub(super) read: u64,
    pub(super) at_end: bool,
    pub(super) last: Option<u8>,
}

impl<R> Counting<R> {
    pub(super) fn new(inner: R) -> Counting<R> {
        Counting {
            inner,
            read: 0,
            at_end: false,
            last: None,
        }
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if n > 0 {
            self.last = Some(buf[n - 1]);
        } else if !buf.is_empty() {
            self.at_end = true;
        }
        Ok(n)
    }
}

/// How much of a buffer a read could fill.
enum Fill {
    Full,
    /// Nothing: the stream had already ended.
    Empty,
    /// This many bytes, then the end.
    Partial(usize),
}

/// Read as much of `buf` as there is.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> io::Result<Fill> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(match filled {
        n if n == buf.len() => Fill::Full,
        0 => Fill::Empty,
        n => Fill::Partial(n),
    })
}

/// A binary format's entries: how to read one.
pub(super) trait EntryFormat {
    /// Read one entry from `stream` and push its samples onto `out`: the number of move records
    /// it held, `None` at the end of the stream, or what is wrong with it.
    fn read_entry(
        &self,
        stream: &mut EntryStream,
        out: &mut VecDeque<StoredSample>,
    ) -> Result<Option<u64>, String>;
}

/// The stream of a binary format (the file, or the decompressed frames of an LZ4 file).
pub(super) struct EntryStream {
    input: Counting<Box<dyn Read>>,
    /// Whether the stream is decompressed LZ4 frames.
    framed: bool,
    /// The current entry's bytes after its head, reused.
    buf: Vec<u8>,
}

impl EntryStream {
    /// Why the data stops inside `what`: a cut file, or (decompressed) a frame that ends there.
    fn ends_inside(&self, what: String) -> String {
        if self.framed {
            format!("the decompressed stream ends inside {what}")
        } else {
            format!(
                "the file is cut inside {what} (as when the writer is killed mid-write; \
                 the entries before it are complete)"
            )
        }
    }

    /// Read a head of `N` bytes; `None` at the end of the stream.
    pub(super) fn read_head<const N: usize>(&mut self) -> Result<Option<[u8; N]>, String> {
        let mut head = [0u8; N];
        match fill(&mut self.input, &mut head).map_err(|e| format!("read failed: {e}"))? {
            Fill::Full => Ok(Some(head)),
            Fill::Empty => Ok(None),
            Fill::Partial(n) => {
                Err(self.ends_inside(format!("this entry's head ({n} of {N} bytes)")))
            }
        }
    }

    /// Read the `len` bytes of the entry that follow its `head`-byte head.
    pub(super) fn read_body(&mut self, head: usize, len: usize) -> Result<&[u8], String> {
        self.buf.resize(len, 0);
        let got =
            match fill(&mut self.input, &mut self.buf).map_err(|e| format!("read failed: {e}"))? {
                Fill::Full => return Ok(&self.buf),
                Fill::Empty => 0,
                Fill::Partial(n) => n,
            };
        Err(self.ends_inside(format!(
            "this entry ({} of {} bytes)",
            head + got,
            head + len
        )))
    }
}

/// The reader of a binary format: entry by entry, handing out each entry's samples.
pub(super) struct Entrywise<F> {
    stream: EntryStream,
    format: F,
    /// Samples of the current entry not handed out yet (a binpack entry holds several).
    pending: VecDeque<StoredSample>,
    counts: EntryCounts,
}

impl<F: EntryFormat> Entrywise<F> {
    /// Read `input`, a stream of `format`'s entries; `framed` as in `Codec::reader`.
    pub(super) fn new(input: Box<dyn Read>, framed: bool, format: F) -> Entrywise<F> {
        Entrywise {
            stream: EntryStream {
                input: Counting::new(input),
                framed,
                buf: Vec::new(),
            },
            format,
            pending: VecDeque::new(),
            counts: EntryCounts::default(),
        }
    }
}

impl<F: EntryFormat> EntrySource for Entrywise<F> {
    fn next_sample(&mut self) -> Option<Result<StoredSample, Damage>> {
        // A loop: a binpack entry may hold no move, hence no sample.
        while self.pending.is_empty() {
            let offset = self.stream.input.read;
            match self.format.read_entry(&mut self.stream, &mut self.pending) {
                Ok(Some(moves)) => {
                    self.counts.entries += 1;
                    self.counts.moves += moves;
                }
                Ok(None) => return None,
                Err(why) => return Some(Err(Damage::Entry { offset, why })),
            }
        }
        self.pending.pop_front().map(Ok)
    }

    fn counts(&self) -> EntryCounts {
        self.counts
    }
}
