//! Chunks of encoded MIF memories (`encoded.rs`) taken from `lro.js`, one call of its
//! `next()` each, and scanned: on a worker thread one chunk behind for `offloadEncoded`, so
//! the JS thread encodes a chunk while the worker writes and scans the one before; all at
//! once, then off the JS thread, for `offloadEncodedAsync`.

use lro_core::jsonl::MifChunks;
use lro_core::{ErrorCode, LroError, OffloadRequest};
use napi::bindgen_prelude::FromNapiValue;
use napi::bindgen_prelude::{Function, Int32ArraySlice, JsObjectValue, Object, Unknown};
use napi::{Env, ValueType};

use crate::encoded::{ChunkScanner, Encoded, not_taken};
use crate::js::unreadable;
use crate::jsstr;

/// What one call of `next()` gave.
enum Next {
    Chunk(Encoded),
    /// `undefined`: every record was taken.
    Done,
    /// `null`: a record is not a MIF memory, so the records are offloaded some other way.
    NotMif,
}

fn next_chunk(env: &Env, next: &Function<'_, (), Unknown<'_>>) -> Result<Next, LroError> {
    // A cycle, a BigInt, a throwing getter or `toJSON` comes back as a JS exception.
    let value = next.call(()).map_err(|e| {
        LroError::new(
            ErrorCode::InvalidInput,
            format!("records cannot be serialized to JSON: {}", e.reason),
        )
    })?;
    match value.get_type().map_err(unreadable)? {
        ValueType::Undefined => return Ok(Next::Done),
        ValueType::Null => return Ok(Next::NotMif),
        _ => {}
    }
    let pair = Object::from_unknown(value).map_err(unreadable)?;
    let text: Unknown<'_> = pair.get_element(0).map_err(unreadable)?;
    let shape: Int32ArraySlice<'_> = pair.get_element(1).map_err(unreadable)?;
    if text.get_type().map_err(unreadable)? != ValueType::String {
        return Err(LroError::new(
            ErrorCode::InvalidInput,
            "malformed encoded records: the text is not a string",
        ));
    }
    Ok(Next::Chunk(Encoded {
        text: jsstr::utf16_units(env, &text).map_err(unreadable)?,
        shape: shape.to_vec(),
    }))
}

/// Whether the chunks hold `fields`, the fields the projection of `request` reads: `lro.js`
/// read the detail level from the options as JS properties, the request comes from their
/// JSON, and the two differ for inherited, non-enumerable or `toJSON`-made options.
fn holds_read_fields(fields: &[String], request: &OffloadRequest) -> bool {
    let detail = request
        .detail
        .unwrap_or_else(|| lro_core::Detail::default_for(&request.operation));
    detail.read_fields().is_some_and(|read| {
        read.len() == fields.len() && read.iter().zip(fields).all(|(read, field)| read == field)
    })
}

/// Every chunk `next` gives, or `None` when it finds a record that is not a MIF memory (or
/// the chunks do not hold `fields`, and `next` is not called).
pub fn take_all(
    env: &Env,
    next: &Function<'_, (), Unknown<'_>>,
    fields: &[String],
    request: &OffloadRequest,
) -> Result<Option<Vec<Encoded>>, LroError> {
    if !holds_read_fields(fields, request) {
        return Ok(None);
    }
    let mut chunks = Vec::new();
    loop {
        match next_chunk(env, next)? {
            Next::Chunk(chunk) => chunks.push(chunk),
            Next::Done => return Ok(Some(chunks)),
            Next::NotMif => return Ok(None),
        }
    }
}

/// `chunks` scanned for `request`, or nothing scanned when they are `None`.
pub fn scan_all(
    chunks: Option<Vec<Encoded>>,
    request: &OffloadRequest,
) -> Result<MifChunks, LroError> {
    let Some(chunks) = chunks else {
        return Ok(not_taken(request));
    };
    let mut scanner = ChunkScanner::new(request)?;
    for chunk in &chunks {
        scanner.push(chunk)?;
    }
    Ok(scanner.finish())
}

/// Whether this process has a single core to run on: asked once, as the answer costs a
/// dozen system calls (std reads the cgroup's CPU quota).
fn one_core() -> bool {
    static ONE_CORE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ONE_CORE.get_or_init(|| std::thread::available_parallelism().map_or(true, |n| n.get() < 2))
}

/// Scans `chunks`, then every chunk `next` gives, on this thread. Nothing scanned when a
/// record is not a MIF memory.
fn scan_in_turn(
    env: &Env,
    next: &Function<'_, (), Unknown<'_>>,
    request: &OffloadRequest,
    chunks: Vec<Encoded>,
) -> Result<MifChunks, LroError> {
    let mut scanner = ChunkScanner::new(request)?;
    for chunk in &chunks {
        scanner.push(chunk)?;
    }
    loop {
        match next_chunk(env, next)? {
            Next::Chunk(chunk) => scanner.push(&chunk)?,
            Next::Done => return Ok(scanner.finish()),
            Next::NotMif => return Ok(not_taken(request)),
        }
    }
}

/// Takes the chunks `next` gives and scans them, on a worker thread one chunk behind when
/// there are two or more and two cores (on this thread when there is no thread to be had).
/// Nothing scanned when the records are not MIF memories or the chunks do not hold
/// `fields`.
pub fn scan(
    env: &Env,
    next: &Function<'_, (), Unknown<'_>>,
    fields: &[String],
    request: &OffloadRequest,
) -> Result<MifChunks, LroError> {
    if !holds_read_fields(fields, request) {
        return Ok(not_taken(request));
    }
    let first = match next_chunk(env, next)? {
        Next::Chunk(chunk) => chunk,
        Next::Done | Next::NotMif => return Ok(not_taken(request)),
    };
    let second = match next_chunk(env, next)? {
        Next::Chunk(chunk) => chunk,
        Next::Done => return scan_in_turn(env, next, request, vec![first]),
        Next::NotMif => return Ok(not_taken(request)),
    };
    if one_core() {
        return scan_in_turn(env, next, request, vec![first, second]);
    }
    std::thread::scope(|scope| {
        // One chunk waiting at most: the memory of two or three chunks, whatever the set.
        let (send, receive) = std::sync::mpsc::sync_channel::<Encoded>(1);
        let worker = std::thread::Builder::new().spawn_scoped(scope, || {
            let mut scanner = ChunkScanner::new(request)?;
            for chunk in receive {
                scanner.push(&chunk)?;
            }
            Ok(scanner.finish())
        });
        let Ok(worker) = worker else {
            return scan_in_turn(env, next, request, vec![first, second]);
        };
        let mut pending = vec![first, second];
        // Whether every record was taken (false: one is not a MIF memory).
        let taken = (|| {
            loop {
                for chunk in pending.drain(..) {
                    // The worker stops early only on an error, which `join` reports below.
                    if send.send(chunk).is_err() {
                        return Ok(true);
                    }
                }
                match next_chunk(env, next)? {
                    Next::Chunk(chunk) => pending.push(chunk),
                    Next::Done => return Ok(true),
                    Next::NotMif => return Ok(false),
                }
            }
        })();
        drop(send);
        let scanned = worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        match taken {
            Ok(true) => scanned,
            Ok(false) => Ok(not_taken(request)),
            Err(err) => Err(err),
        }
    })
}
