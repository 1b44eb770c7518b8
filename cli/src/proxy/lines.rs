//! One line of the server's output, of any size, read without the copies of a growing
//! buffer.
//!
//! `read_until` grows its `Vec` by doubling: the last growth of a 132 MB line (a FastMCP
//! `str` result of 56 MB, whose text comes twice) copies 128 MiB into a new block while the
//! old one is still there, and the proxy peaked at twice the line before it had done anything
//! with it. A long line is read as chunks instead, then copied once into a buffer of its
//! exact size, the chunks given back to the system as they are copied.

use std::io::{self, BufRead};

use crate::allocator;

/// Lines up to this size are read into one buffer; longer ones as chunks of this size.
const CHUNK: usize = 1 << 20;

/// While a long line is put together, the chunks copied so far are given back to the system
/// after every this many (see [`allocator::release_freed_memory`]).
const RELEASE_EVERY: usize = 16;

/// What [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// The end of the input: nothing was read.
    End,
    /// A line of this many bytes (its `\n` included when it has one).
    Read(usize),
    /// A line longer than the bound (its `\n` not counted). Its start (at most a chunk,
    /// where a message's `id` usually is) is in the buffer, and the rest is left in the
    /// input: [`skip_line`] reads over it, or the caller drops the input.
    TooLong,
    /// A line of this many bytes was read over, but there was no memory to put it together
    /// (`try_reserve` failed, where an allocation would have aborted the process); its first
    /// chunk is in the buffer.
    NoMemory(usize),
}

/// Reads the next line into `line` (cleared first), with its `\n` when it has one, as
/// `read_until(b'\n', line)` does, but keeping at most `max` bytes of it (the `\n` aside):
/// a longer line is [`Line::TooLong`] with only its start in `line`, so a peer that sends
/// an endless line cannot take the proxy's memory (it aborted on the allocation that
/// failed). The buffer of a long line is reserved with `try_reserve`: when memory runs out
/// the line is [`Line::NoMemory`], the process does not abort.
pub fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    line.clear();
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    let mut kept = 0usize;
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            break;
        }
        let (used, done) = match memchr::memchr(b'\n', available) {
            Some(end) => (end + 1, true),
            None => (available.len(), false),
        };
        let content = used - usize::from(done);
        if kept + content > max {
            match chunks.into_iter().next() {
                Some(first) => *line = first,
                None => {
                    // The start of the line, for its id; the rest stays in the input.
                    let start = content.min(CHUNK.saturating_sub(line.len()));
                    line.extend_from_slice(&available[..start]);
                    input.consume(start);
                }
            }
            allocator::release_freed_memory();
            return Ok(Line::TooLong);
        }
        line.extend_from_slice(&available[..used]);
        input.consume(used);
        kept += used;
        if done {
            break;
        }
        if line.len() >= CHUNK {
            // Room for one more read (the reader buffers 64 KiB) past the chunk: it never grows.
            let next = Vec::with_capacity(CHUNK + (1 << 16));
            chunks.push(std::mem::replace(line, next));
        }
    }
    if kept == 0 {
        return Ok(Line::End);
    }
    if chunks.is_empty() {
        return Ok(Line::Read(kept));
    }
    let mut whole = Vec::new();
    if whole.try_reserve_exact(kept).is_err() {
        if let Some(first) = chunks.into_iter().next() {
            *line = first;
        }
        allocator::release_freed_memory();
        return Ok(Line::NoMemory(kept));
    }
    for (i, chunk) in chunks.into_iter().enumerate() {
        whole.extend_from_slice(&chunk);
        drop(chunk);
        if (i + 1) % RELEASE_EVERY == 0 {
            allocator::release_freed_memory();
        }
    }
    whole.extend_from_slice(line);
    *line = whole;
    allocator::release_freed_memory();
    Ok(Line::Read(kept))
}

/// How much of a skipped line's end [`skip_line`] keeps: where a message whose members
/// come in another order (the TypeScript SDK writes `result` before `id`) has its id.
pub const TAIL: usize = 256;

/// Reads over the rest of the current line, its `\n` included, keeping only its last
/// [`TAIL`] bytes (without the line ending) in `tail`.
pub fn skip_line(input: &mut impl BufRead, tail: &mut Vec<u8>) -> io::Result<()> {
    tail.clear();
    // Two bytes more: the line ending, cut below.
    let room = TAIL + 2;
    let keep = |bytes: &[u8], tail: &mut Vec<u8>| {
        let bytes = &bytes[bytes.len().saturating_sub(room)..];
        let drop = (tail.len() + bytes.len()).saturating_sub(room);
        tail.drain(..drop);
        tail.extend_from_slice(bytes);
    };
    let result = skip_over(input, &mut |bytes| keep(bytes, tail));
    let end = super::jsonrpc::trim_line(tail).len();
    tail.truncate(end);
    tail.drain(..tail.len().saturating_sub(TAIL));
    result
}

fn skip_over(input: &mut impl BufRead, seen: &mut impl FnMut(&[u8])) -> io::Result<()> {
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            return Ok(());
        }
        match memchr::memchr(b'\n', available) {
            Some(end) => {
                seen(&available[..=end]);
                input.consume(end + 1);
                return Ok(());
            }
            None => {
                seen(available);
                let all = available.len();
                input.consume(all);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Cursor};

    use super::*;

    /// Lines as `read_until` cuts them, short and long, with and without a last newline.
    #[test]
    fn lines_are_cut_as_read_until_cuts_them() {
        let long = "x".repeat(3 * CHUNK + 12345);
        for input in [
            String::new(),
            "a\nb\n".to_owned(),
            "a\nb".to_owned(),
            format!("{long}\nshort\n{long}"),
            format!("\n\n{long}\n"),
        ] {
            let mut ours = BufReader::with_capacity(1 << 16, Cursor::new(input.as_bytes()));
            let mut theirs = BufReader::with_capacity(1 << 16, Cursor::new(input.as_bytes()));
            loop {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let n = match read_line(&mut ours, &mut a, usize::MAX).unwrap() {
                    Line::Read(n) => n,
                    Line::End => 0,
                    Line::TooLong | Line::NoMemory(_) => unreachable!("no bound, memory enough"),
                };
                let m = theirs.read_until(b'\n', &mut b).unwrap();
                assert_eq!((n, a.len()), (m, b.len()));
                assert!(a == b, "a line of {n} bytes differs");
                if n == 0 {
                    break;
                }
            }
        }
    }

    /// A line longer than the bound keeps its start, and the next line is read whole
    /// after [`skip_line`]; a line exactly at the bound is read.
    #[test]
    fn a_line_past_the_bound_is_cut_and_skipped() {
        let long = "y".repeat(3 * CHUNK + 7);
        let input = format!("{long}\nnext\n12345\n");
        let mut reader = BufReader::with_capacity(1 << 16, Cursor::new(input.as_bytes()));
        let mut line = Vec::new();
        assert_eq!(
            read_line(&mut reader, &mut line, 2 * CHUNK).unwrap(),
            Line::TooLong
        );
        assert_eq!(line.len(), CHUNK, "the first chunk is kept");
        let mut tail = Vec::new();
        skip_line(&mut reader, &mut tail).unwrap();
        assert_eq!(
            tail,
            "y".repeat(TAIL).as_bytes(),
            "the end is kept, not its newline"
        );
        assert_eq!(read_line(&mut reader, &mut line, 5).unwrap(), Line::Read(5));
        assert_eq!(line, b"next\n");
        assert_eq!(read_line(&mut reader, &mut line, 4).unwrap(), Line::TooLong);
        assert_eq!(line, b"12345", "a short line past the bound is its start");
        skip_line(&mut reader, &mut tail).unwrap();
        assert_eq!(tail, b"");
        assert_eq!(read_line(&mut reader, &mut line, 4).unwrap(), Line::End);
    }
}
