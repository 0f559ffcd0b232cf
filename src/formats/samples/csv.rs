//! The csv format: one `position,move,result[,eval]` line per sample, in pos notation, written
//! and read by the csv crate. It records no board size or rule, so it takes every rule, but pos
//! notation stops at 26 columns.

use std::io::{self, Read};

use crate::core::board::{parse_pos_sequence, BoardSize, Pos};
use crate::core::rules::Rule;
use crate::formats::samples::codec::{
    Codec, Damage, EntryCounts, EntrySource, EvalField, Names, SampleEncodeError, CSV_MAX_SIZE,
};
use crate::formats::samples::sample::{EvalColumn, Sample, SampleResult, StoredSample};
use crate::formats::samples::stream::Counting;

/// The csv format.
pub(super) struct Csv;

impl Codec for Csv {
    fn names(&self) -> &Names {
        &Names {
            name: "csv",
            default_file: "sample.csv",
            extensions: &["csv"],
        }
    }

    fn check(&self, size: BoardSize, _rule: Rule) -> Result<(), SampleEncodeError> {
        if size.get() > CSV_MAX_SIZE {
            return Err(SampleEncodeError::BoardTooLargeForCsv { size: size.get() });
        }
        Ok(())
    }

    fn encode(
        &self,
        samples: &[Sample],
        column: EvalColumn,
        out: &mut Vec<u8>,
    ) -> Result<(), SampleEncodeError> {
        encode_csv(samples, column, out)
    }

    fn stored(&self, sample: &Sample) -> StoredSample {
        StoredSample::keeping(sample, false, false)
    }

    fn evals(&self) -> EvalField {
        EvalField::Optional
    }

    fn reader(&self, input: Box<dyn Read>, _framed: bool) -> io::Result<Box<dyn EntrySource>> {
        Ok(Box::new(CsvSource::new(input)))
    }
}

/// Pos notation of one stone straight into a byte buffer (the letter then the 1-based row).
fn push_pos(p: Pos, out: &mut Vec<u8>) {
    out.push(b'a' + p.x);
    let row = p.y as u32 + 1;
    if row >= 10 {
        out.push(b'0' + (row / 10) as u8);
    }
    out.push(b'0' + (row % 10) as u8);
}

/// Append one csv line `position,move,result` per sample (pos notation; an empty position is an
/// empty field; no header line, as the predecessor writes none), with [`EvalColumn::With`] a
/// fourth field, the evaluation (empty when there is none). The csv crate writes the records,
/// so quoting and line ends follow the crate's rules rather than hand-written ones (pos notation and
/// the numbers never need quotes, so the bytes are the plain `h8i9,h9,2\n` or `h8i9,h9,2,-35\n`).
pub fn encode_csv(
    samples: &[Sample],
    column: EvalColumn,
    out: &mut Vec<u8>,
) -> Result<(), SampleEncodeError> {
    // Check the whole batch first: a csv writer cannot take back what it has written.
    if let Some(s) = samples.iter().find(|s| s.size.get() > CSV_MAX_SIZE) {
        return Err(SampleEncodeError::BoardTooLargeForCsv { size: s.size.get() });
    }
    let mut csv = csv::WriterBuilder::new()
        .has_headers(false)
        .terminator(csv::Terminator::Any(b'\n'))
        // The crate's buffer in front of `out` is allocated per batch: keep it small.
        .buffer_capacity(1024)
        .from_writer(out);
    let (mut position, mut mv) = (Vec::new(), Vec::new());
    for s in samples {
        position.clear();
        for &p in &s.position {
            push_pos(p, &mut position);
        }
        mv.clear();
        push_pos(s.mv, &mut mv);
        let result = [b'0' + s.result.code()];
        let eval = s.eval.map(|v| v.to_string()).unwrap_or_default();
        let fields: &[&[u8]] = match column {
            EvalColumn::Without => &[&position, &mv, &result],
            EvalColumn::With => &[&position, &mv, &result, eval.as_bytes()],
        };
        // Writing into a Vec cannot fail, and every record has the same fields.
        csv.write_record(fields).expect("a csv record into memory");
    }
    csv.flush().expect("flushing csv into memory");
    Ok(())
}

/// A csv file read by the csv crate: records of `position,move,result`, no header line.
struct CsvSource {
    reader: csv::Reader<Counting<Box<dyn Read>>>,
    /// The current record, reused.
    record: csv::ByteRecord,
    counts: EntryCounts,
}

impl CsvSource {
    fn new(input: Box<dyn Read>) -> CsvSource {
        let reader = csv::ReaderBuilder::new()
            .has_headers(false)
            // The field count is checked per record, with a message that names the fields.
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(Counting::new(input));
        CsvSource {
            reader,
            record: csv::ByteRecord::new(),
            counts: EntryCounts::default(),
        }
    }
}

impl EntrySource for CsvSource {
    fn next_sample(&mut self) -> Option<Result<StoredSample, Damage>> {
        loop {
            match self.reader.read_byte_record(&mut self.record) {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => return Some(Err(Damage::Io(e.into()))),
            }
            // The crate skips empty lines; a line of blanks is one empty field after trimming.
            if self.record.len() == 1 && self.record[0].is_empty() {
                continue;
            }
            let sample = parse_csv_record(&self.record).map_err(|why| self.damage(why));
            if sample.is_ok() {
                self.counts.entries += 1;
                self.counts.moves += 1;
            }
            return Some(sample);
        }
    }

    fn counts(&self) -> EntryCounts {
        self.counts
    }
}

impl CsvSource {
    /// The damage of the current record, which `why` is wrong with.
    fn damage(&self, why: String) -> Damage {
        let start = self
            .record
            .position()
            .cloned()
            .unwrap_or_else(csv::Position::new);
        // A record that ends the input without a line end is the partial last line of a cut
        // file (our writer ends every line); anywhere else it is a malformed line.
        let input = self.reader.get_ref();
        let cut = input.at_end
            && self.reader.position().byte() == input.read
            && !matches!(input.last, Some(b'\n' | b'\r'));
        let why = if cut {
            format!(
                "the file is cut inside this record, its last, which has no line end: {why} \
                 (as when the writer is killed mid-write; the records before it are complete)"
            )
        } else {
            why
        };
        Damage::Record {
            line: start.line(),
            offset: start.byte(),
            text: self
                .record
                .iter()
                .map(String::from_utf8_lossy)
                .collect::<Vec<_>>()
                .join(","),
            why,
        }
    }
}

fn parse_csv_record(record: &csv::ByteRecord) -> Result<StoredSample, String> {
    // Pos notation has 26 letters; the file does not say the board size, so check against that.
    let letters = BoardSize::new(CSV_MAX_SIZE as u32).expect("26 is a valid board size");
    if !(3..=4).contains(&record.len()) {
        return Err(format!(
            "expected 3 fields: position,move,result, or 4 with eval (found {})",
            record.len()
        ));
    }
    let field = |i: usize, name: &str| {
        std::str::from_utf8(&record[i]).map_err(|_| format!("{name} is not UTF-8 text"))
    };
    let (pos, mv, res) = (
        field(0, "position")?,
        field(1, "move")?,
        field(2, "result")?,
    );
    let position = parse_pos_sequence(pos, letters).map_err(|e| format!("position: {e}"))?;
    let mv = match parse_pos_sequence(mv, letters).map_err(|e| format!("move: {e}"))?[..] {
        [p] => p,
        _ => return Err(format!("move {mv:?} is not a single point")),
    };
    let result = res
        .parse::<u16>()
        .ok()
        .and_then(SampleResult::from_code)
        .ok_or_else(|| format!("result {res:?} is not 0, 1 or 2"))?;
    let eval = match record.get(3).map(|_| field(3, "eval")).transpose()? {
        None | Some("") => None,
        Some(v) => Some(
            v.parse::<i16>()
                .map_err(|_| format!("eval {v:?} is not a number from -32768 to 32767"))?,
        ),
    };
    Ok(StoredSample {
        size: None,
        rule: None,
        position,
        mv,
        result,
        eval,
        alternatives: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::formats::samples::{game_rng, samples_of, SampleFormat, SampleReader};
    use crate::game::record::fixtures::sample_record;

    /// The samples of a csv text, read to the end (the text must be sound).
    fn read_all(text: &str) -> Vec<StoredSample> {
        let mut src = CsvSource::new(Box::new(io::Cursor::new(text.as_bytes().to_vec())));
        std::iter::from_fn(|| src.next_sample())
            .collect::<Result<_, _>>()
            .unwrap()
    }

    /// The first error of reading `text` as the csv file `f.csv`.
    fn first_error(text: &str) -> String {
        let bytes = text.as_bytes().to_vec();
        let reader = SampleReader::new(
            Box::new(io::Cursor::new(bytes)),
            SampleFormat::Csv,
            Path::new("f.csv"),
        );
        reader.unwrap().find_map(Result::err).unwrap().to_string()
    }

    #[test]
    fn csv_has_an_evaluation_column_only_when_asked() {
        let mut s = samples_of(&sample_record(), 1.0, &mut game_rng(0, 0));
        s[0].eval = Some(-35);
        s[1].eval = Some(29995);
        let text = |column| {
            let mut out = Vec::new();
            encode_csv(&s[..3], column, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            text(EvalColumn::Without),
            "h8i9,h9,2\nh8i9h9,i10,0\nh8i9h9i10,h10,2\n"
        );
        assert_eq!(
            text(EvalColumn::With),
            "h8i9,h9,2,-35\nh8i9h9,i10,0,29995\nh8i9h9i10,h10,2,\n"
        );
    }

    #[test]
    fn csv_reads_the_evaluation_column() {
        let text = "h8i9,h9,2,-35\nh8i9h9,i10,0,\nh8i9h9i10,h10,2\n";
        let evals: Vec<Option<i16>> = read_all(text).into_iter().map(|s| s.eval).collect();
        assert_eq!(evals, [Some(-35), None, None]);
        let err = first_error("h8,h9,2,+M5\n");
        assert!(err.contains("eval \"+M5\" is not a number"), "{err}");
    }

    #[test]
    fn csv_reader_takes_what_the_csv_crate_parses() {
        // CR LF line ends, blank lines, a quoted field, blanks around fields, no final newline.
        let text = "h8i9,h9,2\r\n\r\n\"h8i9h9\", i10 ,0\n   \n,j10,1";
        let got = read_all(text);
        let size = BoardSize::new(15).unwrap();
        let seq = |t: &str| parse_pos_sequence(t, size).unwrap();
        let want = [("h8i9", "h9", 2), ("h8i9h9", "i10", 0), ("", "j10", 1)];
        assert_eq!(got.len(), want.len());
        for (s, (position, mv, result)) in got.iter().zip(want) {
            assert_eq!(s.position, seq(position));
            assert_eq!(s.mv, seq(mv)[0]);
            assert_eq!(s.result.code(), result);
            assert_eq!((s.size, s.rule), (None, None));
        }
    }

    #[test]
    fn csv_reader_names_the_line_of_a_bad_record() {
        let text = "h8i9,h9,2\nh8i9,h9\n";
        assert_eq!(
            first_error(text),
            "f.csv:2: expected 3 fields: position,move,result, or 4 with eval (found 2) in \"h8i9,h9\" \
             (the record at byte 10)"
        );
    }
}
