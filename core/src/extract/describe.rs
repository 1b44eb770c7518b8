//! `describe: true`: the full descriptor of an offload file, rebuilt from the file alone.
//!
//! A result described by the `compact` or `pointer` profile (or by anyone, long ago) can
//! still give its agent the line schema and the ten recipes with their commands: the header
//! holds what the descriptor was made from (operation, query, count, tokens, detail, format,
//! sections, envelope) and the body the records its schema and recipes are inferred from,
//! exactly as offload inferred them. Only `summary.score_range` is not in the file (search
//! scores are never written), so it is `null` here.

use lro_jq::Deadline;
use lro_query::reader::LineReader;
use lro_query::reader::is_blank;

use super::recipe::kind_of_header;
use super::request::ExtractResponse;
use crate::config::DescriptorProfile;
use crate::error::{ErrorCode, LroError, Result};
use crate::host::Host;
use crate::jsonl::Body;
use crate::offload::{OffloadRequest, Offloader, Prepared};

/// The full descriptor of the file `lines` reads, named `file_path` in it, as `lro` would
/// describe it, its guidance naming the extract tool `extract_tool` (else the configured name).
pub(super) fn describe_file<H: Host>(
    lro: &Offloader<H>,
    lines: &mut LineReader<'_>,
    file_path: String,
    extract_tool: Option<&str>,
    deadline: &Deadline<'_>,
) -> Result<ExtractResponse> {
    let (header, kind) = kind_of_header(lines.header()?.as_deref())?;
    let (mut bytes, mut line_ends) = (Vec::new(), Vec::new());
    while let Some(line) = lines.next_line()? {
        // The descriptor needs every record: past the time limit there is no answer.
        if line_ends.len() % 1024 == 1023 && deadline.passed() {
            return Err(LroError::new(
                ErrorCode::ResourceLimit,
                format!(
                    "describe stopped: {} reached while reading the file",
                    deadline.label()
                ),
            ));
        }
        if is_blank(line) {
            continue;
        }
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        line_ends.push(bytes.len());
    }
    if lines.cut() {
        return Err(LroError::new(
            ErrorCode::InvalidArgument,
            format!(
                "the file is larger than extract.max_read_bytes ({} bytes): its descriptor \
                 needs every record",
                lro.config.extract.max_read_bytes
            ),
        ));
    }
    let body = Body::new(bytes, line_ends);
    // Its sections were checked against its count (`kind_of_header`): the count decides.
    if body.len() != header.count {
        return Err(LroError::new(
            ErrorCode::InvalidInput,
            format!(
                "the header counts {} records but the file holds {}",
                header.count,
                body.len()
            ),
        ));
    }
    let request = OffloadRequest {
        operation: header.operation.clone(),
        query: header.query.clone(),
        descriptor: Some(DescriptorProfile::Full),
        extract_tool: extract_tool.map(str::to_owned),
        ..OffloadRequest::default()
    };
    let prepared = Prepared {
        body,
        tokens: header.estimated_tokens,
        estimate: header.estimate,
        kind,
        format: header.format,
        sections: header.sections,
        envelope: header.envelope.unwrap_or_default(),
        records: None,
        duplicate_keys: header.duplicate_keys,
    };
    let descriptor = lro.describe(&prepared, &request, file_path).to_value();
    Ok(ExtractResponse {
        results: vec![descriptor],
        count: 1,
        truncated: false,
        limit: None,
        returned: None,
        total: None,
        hint: None,
        bytes_read: lines.bytes_read(),
        records_read: lines.records_read(),
        jq: None,
        warnings: Vec::new(),
    })
}
