//! Line-by-line reading of a file of JSON records (after one header line), within a byte
//! limit, from any [`Read`] source.
//!
//! Memory stays bounded by the longest line: one buffer is reused for every line. Reading
//! stops at the byte limit; whether more data was left is remembered so the response can say
//! it was cut rather than pretend the file ended.

use std::io::{BufRead, BufReader, Read};

use crate::error::{Error, ErrorKind, Result};

/// Buffer size for host reads: large enough that per-call overhead vanishes on big files.
const READ_BUFFER: usize = 64 * 1024;

/// Reads newline-terminated lines, counting bytes against a limit.
pub struct LineReader<'h> {
    reader: BufReader<Box<dyn Read + 'h>>,
    line: Vec<u8>,
    bytes_read: u64,
    max_bytes: u64,
    /// Lines returned so far (the header included).
    lines_read: u64,
    /// Reading stopped at the byte limit with data left.
    cut: bool,
    /// The header line, once read.
    header: Option<String>,
    /// The file lines of the section reading is limited to, when it is: its first line and
    /// the line after its last.
    section: Option<(u64, u64)>,
}

impl<'h> LineReader<'h> {
    /// Reads `reader`, at most `max_bytes` of it.
    pub fn new(reader: Box<dyn Read + 'h>, max_bytes: u64) -> Self {
        Self {
            reader: BufReader::with_capacity(READ_BUFFER, reader),
            line: Vec::new(),
            bytes_read: 0,
            max_bytes,
            lines_read: 0,
            cut: false,
            header: None,
            section: None,
        }
    }

    /// The next line without its line ending, or `None` at the end of the file or of the
    /// byte budget (then [`LineReader::cut`] tells which).
    pub fn next_line(&mut self) -> Result<Option<&[u8]>> {
        if self
            .section
            .is_some_and(|(_, end)| self.lines_read + 1 >= end)
        {
            return Ok(None);
        }
        self.line.clear();
        let remaining = self.max_bytes.saturating_sub(self.bytes_read);
        let n = (&mut self.reader)
            .take(remaining)
            .read_until(b'\n', &mut self.line)
            .map_err(Error::io)?;
        self.bytes_read += n as u64;
        let complete = self.line.last() == Some(&b'\n');
        if !complete && self.bytes_read >= self.max_bytes && self.has_more()? {
            // The budget ran out inside (or right before) a line: drop the partial line.
            self.cut = true;
            return Ok(None);
        }
        if n == 0 {
            if let Some((first, end)) = self.section {
                // The file ended, not the byte budget: the section's records are not all there.
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    format!(
                        "the file ends at line {}, before the end of the section its header \
                         places at lines {first} to {}",
                        self.lines_read,
                        end - 1
                    ),
                ));
            }
            return Ok(None);
        }
        if complete {
            self.line.pop();
            if self.line.last() == Some(&b'\r') {
                self.line.pop();
            }
        }
        self.lines_read += 1;
        let in_section = self.section.filter(|&(first, _)| self.lines_read >= first);
        if let Some((first, end)) = in_section.filter(|_| is_blank(&self.line)) {
            // LRO writes no blank line: one inside a section means the section holds fewer
            // records than its header counts.
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "line {} is blank, inside the section its header places at lines {first} \
                     to {}: the file does not hold the records its header counts",
                    self.lines_read,
                    end - 1
                ),
            ));
        }
        Ok(Some(&self.line))
    }

    fn has_more(&mut self) -> Result<bool> {
        let buf = self.reader.fill_buf().map_err(Error::io)?;
        Ok(!buf.is_empty())
    }

    /// Skips the header (line 1). Returns it, if there was one; once read, the same text is
    /// returned again without reading.
    pub fn header(&mut self) -> Result<Option<String>> {
        if self.lines_read == 0 {
            self.header = self
                .next_line()?
                .map(|l| String::from_utf8_lossy(l).into_owned());
        }
        Ok(self.header.clone())
    }

    /// Limits reading to the `count` file lines from line `first` (a section's records):
    /// the lines before `first` are read and skipped now (their bytes count), and reading
    /// ends after the section's last line. The file ending before that line is
    /// `invalid_input` (its header promised records it does not hold), never fewer records
    /// answered as if they were all; the byte limit ending it is a cut, as anywhere.
    pub fn section(&mut self, first: u64, count: u64) -> Result<()> {
        self.header()?;
        self.section = Some((first, first.saturating_add(count)));
        while self.lines_read + 1 < first {
            if self.next_line()?.is_none() {
                break;
            }
        }
        Ok(())
    }

    /// Bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Record lines (after the header) read so far.
    pub fn records_read(&self) -> u64 {
        self.lines_read.saturating_sub(1)
    }

    /// Whether reading stopped at the byte limit with data left.
    pub fn cut(&self) -> bool {
        self.cut
    }

    /// The current file line number (1 = header) of the last line returned.
    pub fn line_number(&self) -> u64 {
        self.lines_read
    }
}

/// A record line already read (while sampling), with its file line number.
pub type Pending = Vec<(u64, Vec<u8>)>;

/// The error of a record line that is not JSON.
pub fn invalid_record(line: u64, err: &serde_json::Error) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        format!("line {line} of the file is not valid JSON: {err}"),
    )
}

/// Whether a line holds only whitespace (skipped, as jq skips it).
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(data: &'static [u8], max: u64) -> (Vec<String>, bool) {
        let mut r = LineReader::new(Box::new(data), max);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push(String::from_utf8(l.to_vec()).unwrap());
        }
        (out, r.cut())
    }

    #[test]
    fn splits_lines_and_respects_the_byte_limit() {
        assert_eq!(
            lines(b"a\nbb\r\nc", 100),
            (vec!["a".into(), "bb".into(), "c".into()], false)
        );
        assert_eq!(
            lines(b"a\nbb\nc\n", 5),
            (vec!["a".into(), "bb".into()], true)
        );
        assert_eq!(lines(b"a\nbb\n", 5), (vec!["a".into(), "bb".into()], false));
        assert_eq!(lines(b"a\nbbbbbb\n", 4), (vec!["a".into()], true));
        assert_eq!(lines(b"", 0), (vec![], false));
        assert_eq!(lines(b"x", 0), (vec![], true));
    }

    #[test]
    fn a_section_reads_its_lines_and_the_header_once() {
        let mut r = LineReader::new(Box::new(&b"h\na\nb\nc\nd\n"[..]), 100);
        r.section(3, 2).unwrap();
        assert_eq!(r.header().unwrap().as_deref(), Some("h"));
        let mut got = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            got.push(String::from_utf8(l.to_vec()).unwrap());
        }
        assert_eq!(got, ["b", "c"]);
        assert_eq!(r.line_number(), 4);
    }

    fn section(data: &'static [u8], max: u64, first: u64, count: u64) -> Result<Vec<String>> {
        let mut r = LineReader::new(Box::new(data), max);
        r.section(first, count)?;
        let mut got = Vec::new();
        while let Some(l) = r.next_line()? {
            got.push(String::from_utf8(l.to_vec()).unwrap());
        }
        Ok(got)
    }

    #[test]
    fn a_blank_line_inside_a_section_is_invalid_input() {
        let err = section(b"h\na\n\nc\nd\n", 100, 2, 3).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains("line 3 is blank"), "{err}");
        // Before and after the section, blank lines are not its business.
        assert_eq!(section(b"h\n\nb\nc\n\n", 100, 3, 2).unwrap(), ["b", "c"]);
    }

    #[test]
    fn a_section_the_file_ends_in_is_invalid_input() {
        assert_eq!(
            section(b"h\na\nb\n", 100, 2, 0).unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(section(b"h\na\nb\n", 100, 3, 1).unwrap(), ["b"]);
        assert_eq!(section(b"h\na\nb", 100, 2, 2).unwrap(), ["a", "b"]);
        for (first, count) in [(2, 3), (3, 5), (9, 1), (u64::MAX, 1), (2, u64::MAX)] {
            let err = section(b"h\na\nb\n", 100, first, count).unwrap_err();
            assert_eq!(
                err.kind(),
                ErrorKind::InvalidInput,
                "{first} {count}: {err:?}"
            );
        }
        // The byte limit ending the section is a cut, not a lie.
        let mut r = LineReader::new(Box::new(&b"h\na\nb\nc\n"[..]), 5);
        r.section(2, 3).unwrap();
        assert_eq!(r.next_line().unwrap(), Some(&b"a"[..]));
        assert_eq!(r.next_line().unwrap(), None);
        assert!(r.cut());
    }
}
