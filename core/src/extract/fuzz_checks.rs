//! The whole per-record pipeline of extraction (line reader, batches on worker threads,
//! merge) against parsing each line on its own, and filters under the sandbox's bounds.

use lro_jq::convert::{parse_val, to_value_sized};
use lro_query::reader::is_blank;
use serde_json::Value;

use super::request::ExtractRequest;
use crate::config::{ExtractLimits, OffloadConfig};
use crate::error::ErrorCode;
use crate::host::MemoryHost;
use crate::offload::Offloader;

/// The lines of `body` as the extraction reads them: ending in `\n` (one `\r` before it is
/// part of the ending), and the text after the last one (a `\r` there is text).
fn split_lines(body: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    let last = lines.pop().filter(|l| !l.is_empty());
    let mut lines: Vec<&[u8]> = lines
        .into_iter()
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .collect();
    lines.extend(last);
    lines
}

/// First batch of the extraction pipeline, in records: more than this reaches the workers.
const PARALLEL_RECORDS: usize = 4096 + 8;

/// `data` as the records of an offload file: `lro_extract` with the query `.` returns each
/// record as parsing that line alone does, in file order, or the error of the first bad
/// line, naming it.
pub fn check_extract_records(data: &[u8]) {
    extract_all(data.to_vec());
}

/// [`check_extract_records`] on the lines of `data` repeated past the first batch (within
/// 1 MB), so worker threads parse and filter them and the merge puts them back in order.
pub fn check_extract_batches(data: &[u8]) {
    let records = split_lines(data).len();
    if records == 0 || data.len() * PARALLEL_RECORDS / records >= 1 << 20 {
        return;
    }
    let mut once = data.to_vec();
    if !once.ends_with(b"\n") {
        once.push(b'\n');
    }
    extract_all(once.repeat(PARALLEL_RECORDS.div_ceil(records)));
}

fn extract_all(body: Vec<u8>) {
    let mut expected = Vec::new();
    let mut failure = None;
    for (i, line) in split_lines(&body).into_iter().enumerate() {
        if is_blank(line) {
            continue;
        }
        match parse_val(line) {
            Ok(val) => expected.push(
                to_value_sized(&val)
                    .expect("records are at most 128 deep")
                    .0,
            ),
            Err(err) => {
                // Line 1 of the file is the header.
                failure = Some(format!(
                    "line {} of the file is not valid JSON: {err}",
                    i + 2
                ));
                break;
            }
        }
    }
    let host = MemoryHost::new();
    let path = "/lro/atlatl-fuzz-01JH5X3Q7Y0000000000000000.jsonl";
    let mut file = br#"{"_type":"lro_header"}"#.to_vec();
    file.push(b'\n');
    file.extend_from_slice(&body);
    host.insert_file(path, file);
    let config = OffloadConfig {
        output_dir: "/lro".to_owned(),
        extract: ExtractLimits {
            max_output_records: u64::MAX,
            max_output_bytes: u64::MAX,
            timeout_ms: 600_000,
            ..ExtractLimits::default()
        },
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, &host).expect("a valid configuration");
    let request = ExtractRequest {
        query: Some(".".to_owned()),
        ..ExtractRequest::default()
    };
    match (lro.extract(path, &request), failure) {
        (Ok(response), None) => {
            assert!(!response.truncated, "{:?}", response.limit);
            let got: Vec<Value> = response.results;
            assert_eq!(got.len(), expected.len(), "record count");
            assert!(got == expected, "records differ");
        }
        (Err(err), Some(message)) => {
            assert_eq!(err.code(), ErrorCode::InvalidInput);
            assert_eq!(err.message(), message);
        }
        (got, failure) => panic!("extraction gave {got:?}, expected failure {failure:?}"),
    }
}

/// Pieces of jq a bounded-run input is made of, one per byte: builders that nest, grow,
/// repeat and parse, so most inputs reach the bounds instead of the parser's errors.
const BOUNDED_TOKENS: &[&str] = &[
    ".",
    "[.]",
    "[., .]",
    "{a: .}",
    ".+.",
    ". * 2",
    "\"x\" * 1000",
    "tojson",
    "fromjson",
    "tostring",
    "\"\\(.)\"",
    "length",
    "|",
    ",",
    "(",
    ")",
    "[",
    "]",
    "first(",
    "last(",
    "reduce range(3000) as $i (.; ",
    "foreach range(3000) as $i (.; ",
    "until(length > 1e9; ",
    "repeat(",
    "range(100000)",
    "[range(100000)]",
    "\"<a>\" * 300 | fromxml",
    "\"[\" * 300",
    "setpath([range(2000) | 0]; 1)",
    "getpath([0, 0])",
    "tostream",
    "fromstream(tostream)",
    "group_by(.)",
    "sort",
    "unique",
    "to_entries",
    "paths",
    "..",
    "try ",
    " catch 0",
    "1",
    "0",
    "\"ab\"",
    "null",
    ";",
    "def f: [f]; f",
    "def g: .+. | g; g",
    "limit(3; ",
    "@base64",
    "ascii_downcase",
    "splits(\"a\")",
    "implode",
    "explode",
    "map(",
    "select(",
    "keys",
    "add",
    "flatten",
    "walk(",
    "if . then ",
    " else ",
    " end",
    ".[]?",
    ".[0]",
    " as $x | $x",
    // Natives that print, join, split or parse: their results are checked before they are
    // built (appended, so the seeds above keep their meaning).
    "\"\\u0001\" * 1000",
    "\"\\(.)\\(.)\\(.)\\(.)\\(.)\\(.)\\(.)\\(.)\"",
    "@uri",
    "@csv",
    "@sh",
    "@html",
    "toyaml",
    "strftime(\"%c\" * 1000)",
    "join(\"x\" * 1000)",
    ".[] += \"x\" * 1000",
    "split(\"\")",
    "fromcsv",
    "\"é\" * 1000",
];

/// How an input of the `extract_bounded` target reads as a filter.
fn bounded_filter(data: &[u8]) -> String {
    data.iter()
        .map(|&b| BOUNDED_TOKENS[usize::from(b) % BOUNDED_TOKENS.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// `lro_extract --query` with the limits on: whatever the filter builds (deep, wide, shared,
/// parsed), the extraction returns a result or a typed error, never overflows the stack
/// (libFuzzer would report the crash) nor holds much more memory than the bound (libFuzzer's
/// RSS limit), and stops near its time limit. It runs on a thread with 2 MiB of stack, Rust's
/// default, the least the bounds are sized for.
pub fn check_extract_bounded(data: &[u8]) {
    let filter = bounded_filter(data);
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || run_bounded(&filter))
        .expect("a thread")
        .join()
        .expect("the check passes");
}

fn run_bounded(filter: &str) {
    let host = MemoryHost::new();
    let path = "/lro/atlatl-fuzz-01JH5X3Q7Y0000000000000000.jsonl";
    host.insert_file(
        path,
        b"{\"_type\":\"lro_header\"}\n{\"a\":[1,{\"b\":\"x\"}]}\n\"text\"\n[]\n".to_vec(),
    );
    let config = OffloadConfig {
        output_dir: "/lro".to_owned(),
        extract: ExtractLimits {
            timeout_ms: 300,
            max_memory_bytes: 16 << 20,
            ..ExtractLimits::default()
        },
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, &host).expect("a valid configuration");
    let request = ExtractRequest {
        query: Some(filter.to_owned()),
        ..ExtractRequest::default()
    };
    let started = std::time::Instant::now();
    // The memory host's clock stands still unless moved: move it with the wall clock.
    let done = std::sync::atomic::AtomicBool::new(false);
    let outcome = std::thread::scope(|scope| {
        scope.spawn(|| {
            let base = 1_767_225_600_000u64;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                host.set_now_millis(base + started.elapsed().as_millis() as u64);
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        });
        let outcome = lro.extract(path, &request);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        outcome
    });
    match outcome {
        Ok(_) => {}
        Err(err) => assert!(
            matches!(
                err.code(),
                ErrorCode::InvalidQuery | ErrorCode::QueryFailed | ErrorCode::ResourceLimit
            ),
            "{filter}: {err}"
        ),
    }
    // A walk or a builtin may overrun the limit by a bounded amount, never by much.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{filter}: {:?}",
        started.elapsed()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_inputs_read_as_the_tokens_they_name() {
        assert_eq!(
            bounded_filter(&[20, 1, 15]),
            "reduce range(3000) as $i (.;  [.] )"
        );
        assert_eq!(bounded_filter(&[26]), "\"<a>\" * 300 | fromxml");
        assert_eq!(
            bounded_filter(&[6, 12, 66]),
            "\"x\" * 1000 | \"\\(.)\\(.)\\(.)\\(.)\\(.)\\(.)\\(.)\\(.)\""
        );
        assert_eq!(
            bounded_filter(&[25, 12, 73]),
            "[range(100000)] | join(\"x\" * 1000)"
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 48, failure_persistence: None, ..Default::default()
        })]
        /// The `extract_bounded` fuzz target's check, on random token sequences (where
        /// cargo-fuzz cannot run).
        #[test]
        fn bounded_runs_end_in_a_result_or_a_typed_error(
            data in proptest::collection::vec(proptest::prelude::any::<u8>(), 1..16)
        ) {
            check_extract_bounded(&data);
        }
    }
}
