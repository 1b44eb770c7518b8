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

/// Reads the next line into `line` (cleared first), with its `\n` when it has one, as
/// `read_until(b'\n', line)` does; `Ok(0)` at the end of the input.
pub fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<usize> {
    line.clear();
    let mut chunks: Vec<Vec<u8>> = Vec::new();
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
        line.extend_from_slice(&available[..used]);
        input.consume(used);
        if done {
            break;
        }
        if line.len() >= CHUNK {
            // Room for one more read (the reader buffers 64 KiB) past the chunk: it never grows.
            let next = Vec::with_capacity(CHUNK + (1 << 16));
            chunks.push(std::mem::replace(line, next));
        }
    }
    if chunks.is_empty() {
        return Ok(line.len());
    }
    let total = chunks.iter().map(Vec::len).sum::<usize>() + line.len();
    let mut whole = Vec::with_capacity(total);
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
    Ok(total)
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
                let n = read_line(&mut ours, &mut a).unwrap();
                let m = theirs.read_until(b'\n', &mut b).unwrap();
                assert_eq!((n, a.len()), (m, b.len()));
                assert!(a == b, "a line of {n} bytes differs");
                if n == 0 {
                    break;
                }
            }
        }
    }
}
