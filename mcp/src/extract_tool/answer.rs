//! The text of an extract tool answer: the answer alone (one result per line: a count is the
//! bare number, a `group_by` its groups as JSON), then warnings and at most one
//! `[truncated] ...` line, and the equivalent jq command only when the call asked for it.
//!
//! Every answer through MCP is bounded by `extract.answer_max_bytes` and
//! `extract.answer_max_tokens`, so no extraction undoes the offload it reads from: the
//! results are cut at a record boundary, an array result at an item boundary, and one value
//! too large by itself at a character boundary, with the next call to make.

use serde_json::{Value, json};

use lro_core::ToolDefinition;
use lro_core::config::ExtractLimits;
use lro_core::extract::{ExtractResponse, LineUnit, Verb};
use lro_core::host::Host;
use lro_core::offload::Offloader;

use super::arguments::ToolCall;
use super::clip::clip;

/// How the core's warning that the equivalent jq command was left out begins.
const JQ_LEFT_OUT: &str = "the equivalent jq command is left out";

/// Room kept for the `[truncated]` line after the results that fit.
const TRUNCATION_ROOM: u64 = 600;

/// Most characters of one warning: a warning quotes field names and values of the caller's
/// and the data's, which a hostile record or call makes arbitrarily long.
const WARNING_MAX_CHARS: usize = 300;

/// Most warnings shown; the rest are counted (a filter naming 300 absent fields gives 300).
const MAX_WARNINGS: usize = 5;

/// Most characters of the `explain: true` line (the jq command quotes the whole filter).
const EXPLAIN_MAX_CHARS: usize = 2000;

/// The answer's bound, and what is left of it.
#[derive(Debug, Clone, Copy)]
struct Room {
    bytes: u64,
    tokens: u64,
}

impl Room {
    fn of(limits: &ExtractLimits) -> Self {
        Self {
            bytes: limits.answer_max_bytes,
            tokens: limits.answer_max_tokens,
        }
    }

    /// Takes `text` and its newline from the room; `false` (and nothing taken) when it
    /// does not fit.
    fn take(&mut self, text: &str) -> bool {
        let bytes = text.len() as u64 + 1;
        let tokens = lro_core::estimate::estimate_tokens(text.as_bytes()) as u64;
        if bytes > self.bytes || tokens > self.tokens {
            return false;
        }
        self.bytes -= bytes;
        self.tokens -= tokens;
        true
    }

    /// Keeps `reserve` bytes (and their tokens) for what follows.
    fn keep(&mut self, reserve: u64) {
        self.bytes = self.bytes.saturating_sub(reserve);
        self.tokens = self.tokens.saturating_sub(reserve.div_ceil(4));
    }

    /// The longest prefix of `text`, cut at a character boundary, that fits; its byte length.
    fn prefix(&self, text: &str) -> usize {
        let (mut narrow, mut wide) = (0u64, 0u64);
        let mut end = 0;
        for (at, c) in text.char_indices() {
            let next = at + c.len_utf8();
            if c as u32 >= 0x3000 {
                wide += 1;
            } else {
                narrow += 1;
            }
            if next as u64 > self.bytes || narrow.div_ceil(4) + wide > self.tokens {
                break;
            }
            end = next;
        }
        end
    }
}

/// How a result is shown: strings raw for recipes (as recipe #1 prints its lines) and for a
/// range of characters (the characters themselves); JSON otherwise.
fn shown(value: &Value, raw: bool) -> String {
    match value {
        Value::String(s) if raw => s.clone(),
        other => other.to_string(),
    }
}

/// The answer text of `response`, the result of `call`.
pub(crate) fn text<H: Host>(
    lro: &Offloader<H>,
    call: &ToolCall,
    response: &ExtractResponse,
) -> String {
    let verb = call.request.verb().ok();
    let raw = matches!(verb, Some(Verb::Recipe(_)))
        || matches!(verb, Some(Verb::Lines(range)) if range.unit == LineUnit::Chars);
    let answer = Answer {
        lro,
        call,
        response,
        verb,
        raw,
        limits: &lro.config().extract,
    };
    answer.text()
}

/// One answer being built.
struct Answer<'a, H: Host> {
    lro: &'a Offloader<H>,
    call: &'a ToolCall,
    response: &'a ExtractResponse,
    verb: Option<Verb<'a>>,
    raw: bool,
    limits: &'a ExtractLimits,
}

impl<H: Host> Answer<'_, H> {
    fn text(&self) -> String {
        let response = self.response;
        // The jq equivalent is news only to a call that asked for it (`explain`).
        let warnings: Vec<&String> = response
            .warnings
            .iter()
            .filter(|w| !w.starts_with(JQ_LEFT_OUT))
            .collect();
        // Warnings are bounded in number and length, so the answer's bound holds whatever
        // the call or the records name.
        let mut tail: Vec<String> = warnings
            .iter()
            .take(MAX_WARNINGS)
            .map(|w| format!("warning: {}", clip(w, WARNING_MAX_CHARS)))
            .collect();
        if warnings.len() > MAX_WARNINGS {
            tail.push(format!(
                "warning: and {} more warnings",
                warnings.len() - MAX_WARNINGS
            ));
        }
        if self.call.explain {
            tail.push(clip(&self.explained(), EXPLAIN_MAX_CHARS));
        }
        let mut room = Room::of(self.limits);
        for line in &tail {
            room.keep(line.len() as u64 + 1);
        }
        // A bound set below the room for the note still shows some of the answer.
        room.keep(TRUNCATION_ROOM.min(self.limits.answer_max_bytes / 2));
        let mut body = Vec::new();
        let mut cut = None;
        for (index, value) in response.results.iter().enumerate() {
            let line = shown(value, self.raw);
            if room.take(&line) {
                body.push(line);
                continue;
            }
            cut = Some(if index == 0 {
                let (line, note) = self.one_value(value, &line, &room);
                body.push(line);
                note
            } else {
                self.records_cut(index)
            });
            break;
        }
        if response.results.is_empty() {
            body.push("(no results)".to_owned());
        }
        if cut.is_none() && matches!(self.verb, Some(Verb::Describe)) {
            body.extend(self.reference(&mut room));
        }
        let note = cut.or_else(|| {
            response.truncated.then(|| match &response.hint {
                Some(hint) => format!("[truncated] {hint}"),
                None => format!(
                    "[truncated] cut by {}",
                    response.limit.as_deref().unwrap_or("a limit")
                ),
            })
        });
        let mut text = String::new();
        for line in body.iter().chain(tail.iter()).chain(note.iter()) {
            text.push_str(line);
            text.push('\n');
        }
        text
    }

    /// What the short definition leaves out, after a `describe: true` answer's descriptor:
    /// the arguments, each described; a line saying where to find them when they do not fit
    /// the answer's bound.
    fn reference(&self, room: &mut Room) -> Option<String> {
        if self.lro.config().mcp.extract_tool_definition != ToolDefinition::Short {
            return None;
        }
        let mcp = &self.lro.config().mcp;
        let name = (self.call.request.extract_tool.as_deref())
            .or(mcp.extract_tool_name.as_deref())
            .unwrap_or(super::TOOL_NAME);
        let reference = super::arguments_reference(name);
        if room.take(&reference) {
            return Some(reference);
        }
        let note = format!(
            "arguments: their descriptions do not fit the answer bound ({}); the long tool \
             definition (mcp.extract_tool_definition = \"long\") has them",
            self.bound()
        );
        room.take(&note).then_some(note)
    }

    /// The `explain: true` line.
    fn explained(&self) -> String {
        match &self.response.jq {
            Some(jq) => format!("equivalent jq: {jq}"),
            None if matches!(self.verb, Some(Verb::Structured)) => self
                .response
                .warnings
                .iter()
                .find_map(|w| w.strip_prefix(JQ_LEFT_OUT))
                .map_or_else(
                    || "equivalent jq: left out".to_owned(),
                    |why| format!("equivalent jq: left out{why}"),
                ),
            None => "equivalent jq: given for where queries only; each recipe's command is in \
                     the result's jq_recipes (describe: true)"
                .to_owned(),
        }
    }

    /// The bound, as the truncation lines name it.
    fn bound(&self) -> String {
        format!(
            "extract.answer_max_bytes {}, answer_max_tokens {}",
            self.limits.answer_max_bytes, self.limits.answer_max_tokens
        )
    }

    /// The results cut before result `index`: what was returned and the next call.
    fn records_cut(&self, index: usize) -> String {
        let response = self.response;
        let of = match (response.truncated, response.total) {
            (false, _) => response.results.len().to_string(),
            (true, Some(total)) => total.to_string(),
            (true, None) => format!("at least {}", response.results.len()),
        };
        let page = index as u64;
        let next = match self.verb {
            Some(Verb::Lines(range)) => {
                // The rest of the range asked for: to its END, or to the data's end when the
                // range was read whole (never past it), or open-ended.
                let start = range.start + page;
                let end = if response.truncated {
                    range.end
                } else {
                    Some(range.start + response.results.len() as u64)
                };
                let rest = end.map_or(format!("{start}:"), |end| format!("{start}:{end}"));
                same_call_with(&json!({"lines": rest}))
            }
            Some(Verb::Structured) if !self.call.request.is_summary() => {
                // The rest of what was asked: its own limit less this page, or no limit.
                let skip = self.call.request.skip.unwrap_or(0) + page;
                match self.call.request.limit {
                    Some(limit) => {
                        same_call_with(&json!({"skip": skip, "limit": limit.saturating_sub(page)}))
                    }
                    None => same_call_with(&json!({"skip": skip})),
                }
            }
            Some(Verb::Search(_)) => {
                let at = response.results[index]["index"]
                    .as_u64()
                    .unwrap_or_default();
                // lines cannot be combined with search: name calls that work on their own
                // (and arguments the listed definition has: the short one has no max_results).
                let fewer = match self.lro.config().mcp.extract_tool_definition {
                    ToolDefinition::Short => "narrow the pattern",
                    ToolDefinition::Long => "narrow the pattern or lower max_results",
                };
                format!(
                    "the next match is in record {at}: {fewer} to see fewer matches per answer; \
                     a separate call (without search) with {} reads the records from that match on",
                    json!({"lines": format!("{at}:")})
                )
            }
            _ => "narrow the query: select fewer records or keep fewer fields (where with skip \
                  and limit pages through records; lines reads a range of them)"
                .to_owned(),
        };
        format!(
            "[truncated] returned {index} of {of} results (answer bound: {}); {next}",
            self.bound()
        )
    }

    /// The first result, too large for the answer by itself: an array cut to its leading
    /// items, anything else cut at a character boundary; with its truncation line.
    fn one_value(&self, value: &Value, line: &str, room: &Room) -> (String, String) {
        if let (Value::Array(items), false) = (value, self.raw) {
            let mut kept = Vec::new();
            let mut left = *room;
            left.keep(2);
            for item in items {
                if !left.take(&item.to_string()) {
                    break;
                }
                kept.push(item.clone());
            }
            let next = "narrow the query (where, or fewer fields) for the rest";
            return (
                Value::Array(kept.clone()).to_string(),
                format!(
                    "[truncated] returned {} of {} items of the one result (answer bound: {}); {next}",
                    kept.len(),
                    items.len(),
                    self.bound()
                ),
            );
        }
        // A search hit shows its record's line: cut the line itself, so that the next
        // characters are those of the record.
        if let (Some(Verb::Search(_)), Some(text)) = (&self.verb, value["text"].as_str()) {
            let index = value["index"].as_u64().unwrap_or_default();
            let mut hit = value.clone();
            hit["text"] = Value::from("");
            let mut left = *room;
            left.keep(hit.to_string().len() as u64);
            // Escapes may double a character's size inside the JSON string.
            left.bytes /= 2;
            left.tokens /= 2;
            let shown_text = &text[..left.prefix(text)];
            hit["text"] = Value::from(shown_text);
            let note = self.characters_of_record(
                index,
                shown_text.chars().count() as u64,
                text.chars().count() as u64,
            );
            return (hit.to_string(), note);
        }
        let end = room.prefix(line);
        let shown_chars = line[..end].chars().count() as u64;
        let total = line.chars().count() as u64;
        let note = match self.verb {
            Some(Verb::Lines(range)) if range.unit == LineUnit::Chars => {
                // The rest of the range asked for, which ends where the characters read
                // ended (its END, or the data's end before it).
                let start = range.start + shown_chars;
                let stop = if self.response.truncated {
                    range.end
                } else {
                    Some(range.start + total)
                };
                let rest = stop.map_or(format!("{start}:"), |stop| format!("{start}:{stop}"));
                format!(
                    "[truncated] returned characters {}-{} of a range of {total} (answer bound: {}); next: the same call with {}",
                    range.start,
                    start,
                    self.bound(),
                    json!({"chars": rest})
                )
            }
            Some(Verb::Lines(range)) => self.characters_of_record(range.start, shown_chars, total),
            _ => format!(
                "[truncated] returned the first {shown_chars} of {total} characters of one result \
                 (answer bound: {}); return a part of it instead (a field, or a slice such as \
                 query: \".text[0:4000]\"), or read the records in pieces with chars (\"0:{shown_chars}\" \
                 is the first piece of the file's records)",
                self.bound()
            ),
        };
        (line[..end].to_owned(), note)
    }

    /// The truncation line of record `index` shown up to its `shown`th character: the next
    /// call reads the following characters of the file's records.
    fn characters_of_record(&self, index: u64, shown: u64, total: u64) -> String {
        let section = self.call.request.section.as_deref();
        let next = match self
            .lro
            .record_char_offset(&self.call.file_path, section, index)
        {
            Ok(offset) => {
                let start = offset + shown;
                format!(
                    "next: a call with {} (the record's next characters; same file_path and section)",
                    json!({"chars": format!("{start}:{}", start + piece(shown))})
                )
            }
            Err(_) => "read it in pieces with chars".to_owned(),
        };
        format!(
            "[truncated] returned the first {shown} of {total} characters of record {index} \
             (answer bound: {}); {next}",
            self.bound()
        )
    }
}

/// The width of the next character range: what one answer showed (a default when a tiny
/// bound showed nothing, so the next call still moves on).
fn piece(shown: u64) -> u64 {
    if shown == 0 { 1000 } else { shown }
}

/// `next: the same call with {...}`.
fn same_call_with(changes: &Value) -> String {
    format!("next: the same call with {changes}")
}
