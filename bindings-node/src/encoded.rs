//! MIF memories as `lro.js` hands them over for a large offload: not JSON text, but the
//! field values themselves, so that the JS thread does not pay for `JSON.stringify`.
//!
//! `JSON.stringify` spends most of its time escaping strings character by character; the
//! fields a projection reads are nearly all strings, which JS can concatenate for a fraction
//! of that. So for each chunk of records `lro.js` sends one string, every value's text end
//! to end, and a shape (`Int32Array`) saying where each value ends and what it is; the
//! worker thread writes the JSON text back from them (this module), and the core scans that
//! text exactly as it scans `JSON.stringify`'s. The record's field names are the core's own
//! list ([`lro_core::Detail::read_fields`]), in that order, as the JS projector writes them.
//!
//! The shape of a record is one word with a bit per field of the list (bit `i`: field `i`
//! is present), then one word per present field, `(length << 2) | kind`, where `kind` is
//! - [`STRING`]: the value is a string of `length` UTF-16 units of the text;
//! - [`RAW`]: the value is `length` units of JSON text, written by `JSON.stringify`;
//! - [`STRINGS`]: the value is an array of `length` strings, whose lengths follow, one word
//!   each.
//!
//! Strings are written as `JSON.stringify` writes them: `"` and `\` escaped, control
//! characters as `\b`, `\t`, `\n`, `\f`, `\r` or `\u00xx`, a lone surrogate as `\udxxx`,
//! everything else as UTF-8.

use std::fmt;

use lro_core::jsonl::MifChunks;
use lro_core::{ErrorCode, LroError, OffloadRequest};

/// A value that is a string, to escape.
pub const STRING: i32 = 0;
/// A value that is JSON text already.
pub const RAW: i32 = 1;
/// A value that is an array of strings, to escape.
pub const STRINGS: i32 = 2;

/// A chunk whose shape does not match its text: a bug in `lro.js`, never the user's data.
#[derive(Debug)]
pub struct Malformed(&'static str);

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed encoded records: {}", self.0)
    }
}

/// One chunk of records, copied out of JS.
pub struct Encoded {
    /// Every value's text, end to end, in UTF-16 as JS holds it.
    pub text: Vec<u16>,
    /// Where each value ends and what it is (see the module docs).
    pub shape: Vec<i32>,
}

/// Writes chunks as JSON and scans them, in order, into the pieces of one offload.
pub struct ChunkScanner {
    scanned: MifChunks,
    fields: &'static [&'static str],
    /// The JSON of the chunk being scanned, its memory kept for the next.
    json: Vec<u8>,
}

impl ChunkScanner {
    /// A scanner for the records of `request`, whose detail level must read only some
    /// fields (not Full): those are the fields the chunks hold.
    pub fn new(request: &OffloadRequest) -> Result<Self, LroError> {
        let scanned = not_taken(request);
        let fields = scanned.detail().read_fields().ok_or_else(|| {
            LroError::new(
                ErrorCode::InvalidArgument,
                "encoded records need a detail level that reads only some fields",
            )
        })?;
        Ok(Self {
            scanned,
            fields,
            json: Vec::new(),
        })
    }

    /// Scans the next chunk.
    pub fn push(&mut self, chunk: &Encoded) -> Result<(), LroError> {
        self.json.clear();
        chunk
            .write_json(self.fields, &mut self.json)
            .map_err(|e| LroError::new(ErrorCode::InvalidInput, e.to_string()))?;
        self.scanned.push_json(&self.json);
        Ok(())
    }

    /// The pieces scanned.
    pub fn finish(self) -> MifChunks {
        self.scanned
    }
}

/// Pieces with nothing scanned, which the core reports as not MIF memories (`None` from
/// `Offloader::offload_chunks`): what an offload of records that are not MIF memories,
/// found so in JS, hands over.
pub fn not_taken(request: &OffloadRequest) -> MifChunks {
    MifChunks::new(&request.operation, request.detail)
}

/// Reads an [`Encoded`] chunk's text and shape in step.
#[derive(Clone, Copy)]
struct Reader<'a> {
    text: &'a [u16],
    shape: &'a [i32],
}

impl<'a> Reader<'a> {
    fn word(&mut self) -> Result<i32, Malformed> {
        let (&word, rest) = self
            .shape
            .split_first()
            .ok_or(Malformed("the shape ends early"))?;
        self.shape = rest;
        Ok(word)
    }

    /// The text of the record whose present fields are `present`, from the shape read
    /// ahead (the reader does not move).
    fn record_text(mut self, present: i32) -> Result<&'a [u16], Malformed> {
        let start = self.text;
        for _ in 0..present.count_ones() {
            let word = self.word()?;
            let (length, kind) = (word >> 2, word & 3);
            if kind == STRINGS {
                for _ in 0..length {
                    let length = self.word()?;
                    self.units(length)?;
                }
            } else {
                self.units(length)?;
            }
        }
        Ok(&start[..start.len() - self.text.len()])
    }

    fn units(&mut self, length: i32) -> Result<&'a [u16], Malformed> {
        let length = usize::try_from(length).map_err(|_| Malformed("a negative length"))?;
        if length > self.text.len() {
            return Err(Malformed("the text ends early"));
        }
        let (units, rest) = self.text.split_at(length);
        self.text = rest;
        Ok(units)
    }
}

impl Encoded {
    /// Writes the chunk as the JSON array `JSON.stringify` would write of its records, each
    /// with the present ones of `fields`, in order.
    pub fn write_json(&self, fields: &[&str], out: &mut Vec<u8>) -> Result<(), Malformed> {
        if fields.len() > 31 {
            return Err(Malformed("more than 31 fields"));
        }
        // `"name":` for each field, written once.
        let keys: Vec<Vec<u8>> = fields
            .iter()
            .map(|field| {
                let mut key = Vec::with_capacity(field.len() + 3);
                write_string(&field.encode_utf16().collect::<Vec<_>>(), false, &mut key);
                key.push(b':');
                key
            })
            .collect();
        let mut reader = Reader {
            text: &self.text,
            shape: &self.shape,
        };
        out.reserve(self.text.len() + self.shape.len() * 4 + 2);
        out.push(b'[');
        let mut first_record = true;
        while !reader.shape.is_empty() {
            if !first_record {
                out.push(b',');
            }
            first_record = false;
            let present = reader.word()?;
            if present >> fields.len() != 0 {
                return Err(Malformed("a field beyond the list"));
            }
            // Most records are plain ASCII from end to end, which one vectorized pass over
            // their text tells: their strings are then copied with no test per unit.
            let plain = all_plain(reader.record_text(present)?);
            out.push(b'{');
            let mut first_field = true;
            for (i, key) in keys.iter().enumerate() {
                if present & (1 << i) == 0 {
                    continue;
                }
                if !first_field {
                    out.push(b',');
                }
                first_field = false;
                out.extend_from_slice(key);
                let word = reader.word()?;
                let (length, kind) = (word >> 2, word & 3);
                if length < 0 {
                    return Err(Malformed("a negative length"));
                }
                match kind {
                    STRING => write_string(reader.units(length)?, plain, out),
                    RAW if plain => narrow(reader.units(length)?, out),
                    RAW => write_utf8(reader.units(length)?, out),
                    STRINGS => {
                        out.push(b'[');
                        for k in 0..length {
                            if k > 0 {
                                out.push(b',');
                            }
                            let length = reader.word()?;
                            write_string(reader.units(length)?, plain, out);
                        }
                        out.push(b']');
                    }
                    _ => return Err(Malformed("an unknown kind of value")),
                }
            }
            out.push(b'}');
        }
        out.push(b']');
        if reader.text.is_empty() {
            Ok(())
        } else {
            Err(Malformed("text left over"))
        }
    }
}

/// Whether a UTF-16 unit is written as itself: printable ASCII other than `"` and `\`.
fn plain(unit: u16) -> bool {
    (0x20..0x7f).contains(&unit) && unit != u16::from(b'"') && unit != u16::from(b'\\')
}

/// Whether every unit of `units` is [`plain`]: tested 16 at a time, without a branch per
/// unit, so that the compiler can use vector instructions.
fn all_plain(units: &[u16]) -> bool {
    let blocks = units.chunks_exact(16);
    let rest = blocks.remainder();
    blocks
        .into_iter()
        .all(|block| block.iter().fold(true, |all, &unit| all & plain(unit)))
        && rest.iter().all(|&unit| plain(unit))
}

/// Plain units as the ASCII bytes they are, in one loop the compiler vectorizes.
fn narrow(units: &[u16], out: &mut Vec<u8>) {
    // Plain units are ASCII: the cast keeps them whole.
    out.extend(units.iter().map(|&unit| unit as u8));
}

/// `units` as a JSON string, escaped as `JSON.stringify` escapes; `all_plain`: they are
/// all [`plain`], and copied as they are.
fn write_string(units: &[u16], all_plain: bool, out: &mut Vec<u8>) {
    out.push(b'"');
    if all_plain {
        narrow(units, out);
        out.push(b'"');
        return;
    }
    let mut rest = units;
    while !rest.is_empty() {
        // Runs of plain ASCII, the bulk of any memory, byte for unit.
        let run = rest
            .iter()
            .position(|&unit| !plain(unit))
            .unwrap_or(rest.len());
        narrow(&rest[..run], out);
        rest = &rest[run..];
        let Some(&unit) = rest.first() else { break };
        rest = &rest[1..];
        match unit {
            0x22 => out.extend_from_slice(b"\\\""),
            0x5c => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x09 => out.extend_from_slice(b"\\t"),
            0x0a => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            0x0d => out.extend_from_slice(b"\\r"),
            0..0x20 => escape_unit(unit, out),
            0xd800..0xdc00 => match rest.first() {
                Some(&low @ 0xdc00..0xe000) => {
                    rest = &rest[1..];
                    let c =
                        0x10000 + ((u32::from(unit) - 0xd800) << 10) + (u32::from(low) - 0xdc00);
                    push_char(
                        char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER),
                        out,
                    );
                }
                _ => escape_unit(unit, out),
            },
            0xdc00..0xe000 => escape_unit(unit, out),
            _ => push_char(
                char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER),
                out,
            ),
        }
    }
    out.push(b'"');
}

/// `\u` and four lowercase hex digits, as `JSON.stringify` writes control characters and
/// lone surrogates.
fn escape_unit(unit: u16, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.extend_from_slice(b"\\u");
    out.extend(
        (0..4)
            .rev()
            .map(|i| HEX[usize::from((unit >> (4 * i)) & 0xf)]),
    );
}

fn push_char(c: char, out: &mut Vec<u8>) {
    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
}

/// UTF-16 JSON text as UTF-8 (`JSON.stringify` never leaves a lone surrogate unescaped).
fn write_utf8(units: &[u16], out: &mut Vec<u8>) {
    for c in char::decode_utf16(units.iter().copied()) {
        push_char(c.unwrap_or(char::REPLACEMENT_CHARACTER), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    fn json(text: &[u16], shape: Vec<i32>, fields: &[&str]) -> Result<String, Malformed> {
        let mut out = Vec::new();
        Encoded {
            text: text.to_vec(),
            shape,
        }
        .write_json(fields, &mut out)?;
        Ok(String::from_utf8(out).expect("UTF-8"))
    }

    #[test]
    fn writes_records_with_their_present_fields_in_order() {
        let fields = ["id", "title", "tags", "n"];
        let text = utf16("m1ab12m2");
        // m1: id, tags ["a", "b"], n 12; m2: id only.
        let shape = vec![
            0b1101,
            2 << 2,
            (2 << 2) | STRINGS,
            1,
            1,
            (2 << 2) | RAW,
            0b1,
            2 << 2,
        ];
        assert_eq!(
            json(&text, shape, &fields).unwrap(),
            r#"[{"id":"m1","tags":["a","b"],"n":12},{"id":"m2"}]"#
        );
    }

    #[test]
    fn escapes_strings_as_json_stringify_does() {
        let value = "q\"b\\\u{8}\t\n\u{c}\r\u{1}\u{1f}é€😀\u{7f}";
        let mut text = utf16(value);
        text.extend([0xd800, 0x41, 0xdfff]); // a lone high and a lone low surrogate
        let shape = vec![1, (text.len() as i32) << 2];
        assert_eq!(
            json(&text, shape, &["s"]).unwrap(),
            "[{\"s\":\"q\\\"b\\\\\\b\\t\\n\\f\\r\\u0001\\u001fé€😀\u{7f}\\ud800A\\udfff\"}]"
        );
    }

    #[test]
    fn long_plain_runs_are_copied_around_escapes() {
        for (before, after) in [(0, 0), (15, 16), (16, 15), (40, 17), (64, 64)] {
            let value = format!("{}\"é{}", "x".repeat(before), "y".repeat(after));
            let text = utf16(&value);
            let shape = vec![1, (text.len() as i32) << 2];
            let expected = format!("[{{\"s\":{}}}]", serde_json::to_string(&value).unwrap());
            assert_eq!(json(&text, shape, &["s"]).unwrap(), expected);
        }
    }

    #[test]
    fn plain_and_escaped_records_share_a_chunk() {
        // A plain record, one with a quote in a string, one with JSON text (quotes), a plain
        // one again: each is written as its own kind.
        let text = utf16("plaina\"b{\"k\":1}plain");
        let shape = vec![1, 5 << 2, 1, 3 << 2, 1, (7 << 2) | RAW, 1, 5 << 2];
        assert_eq!(
            json(&text, shape, &["s"]).unwrap(),
            r#"[{"s":"plain"},{"s":"a\"b"},{"s":{"k":1}},{"s":"plain"}]"#
        );
    }

    #[test]
    fn an_empty_chunk_is_an_empty_array() {
        assert_eq!(json(&[], vec![], &["id"]).unwrap(), "[]");
    }

    #[test]
    fn a_shape_that_does_not_match_the_text_is_an_error() {
        let text = utf16("abc");
        for shape in [
            vec![1, 4 << 2],              // longer than the text
            vec![1, 2 << 2],              // text left over
            vec![1],                      // no word for a present field
            vec![0b10, 3 << 2],           // a field beyond the list
            vec![1, (3 << 2) | 3],        // an unknown kind
            vec![1, (1 << 2) | STRINGS],  // an array without its lengths
            vec![1, -4],                  // a negative length
            vec![1, (-1 << 2) | STRINGS], // a negative count
        ] {
            assert!(json(&text, shape.clone(), &["id"]).is_err(), "{shape:?}");
        }
    }
}
