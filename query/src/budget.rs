//! The limits of one run over lines of records: output records and bytes, memory, and the
//! time deadline.
//!
//! Everything that produces output goes through [`Budget::push`], so no verb can forget a
//! limit, and the first limit hit is the one reported (`truncated` + `limit`).

use lro_jq::Deadline;
use lro_json::size::json_size;
use serde_json::Value;

use crate::reader::LineReader;

/// The bounds of one run over a file's lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes read from the file.
    pub max_read_bytes: u64,
    /// Most output values returned.
    pub max_output_records: u64,
    /// Most output bytes, as compact JSON.
    pub max_output_bytes: u64,
    /// Most memory the values of a jq filter and the output held may take, estimated.
    pub max_memory_bytes: u64,
}

/// The output of a run and how a limit cut it, if one did.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// The output values, in order.
    pub results: Vec<Value>,
    /// Set when a limit cut the result: there was more input or more output.
    pub truncated: bool,
    /// Which limit cut the result, human readable (`max_output_records (10000)`, ...).
    pub limit: Option<String>,
    /// When cut: how many items were returned (the results, or the items of a single
    /// array result cut to its leading items).
    pub returned: Option<u64>,
    /// When cut and known: how many items the full result has.
    pub total: Option<u64>,
    /// When cut: how to ask for less.
    pub hint: Option<String>,
    /// Bytes of the file read, header included.
    pub bytes_read: u64,
    /// Records (lines after the header) read.
    pub records_read: u64,
    /// Things worth knowing about the run (a filter that called `halt`).
    pub warnings: Vec<String>,
}

/// Estimated memory that `count` output values of `bytes` compact JSON take once converted:
/// what the memory bound counts against the output held for the response. Measured on
/// `range(1e9)` (one record's outputs are held twice, by the runner and by the response,
/// each in a vector that doubles): about 200 bytes a small value; values with items and
/// text take about 4 times their JSON.
pub fn held(count: u64, bytes: u64) -> u64 {
    bytes
        .saturating_mul(4)
        .saturating_add(count.saturating_mul(OUTPUT_VALUE_BYTES))
}

/// See [`held`].
const OUTPUT_VALUE_BYTES: u64 = 192;

/// Output collected so far, and the limit that cut it, if any.
pub struct Budget<'d> {
    limits: Limits,
    /// The run's deadline, which workers' clocks follow.
    pub deadline: &'d Deadline<'d>,
    results: Vec<Value>,
    output_bytes: u64,
    limit: Option<String>,
    /// The limit that cut the result is the deadline.
    timed_out: bool,
    /// Items returned and items in the full result, when a cut left them known: a single
    /// array cut to its leading items, or records counted to the end.
    items: Option<(u64, Option<u64>)>,
    /// The filter called `halt`: the records after it were not read.
    halted: bool,
}

impl<'d> Budget<'d> {
    /// An empty output under `limits` and `deadline`.
    pub fn new(limits: &Limits, deadline: &'d Deadline<'d>) -> Self {
        Self {
            limits: limits.clone(),
            deadline,
            results: Vec::new(),
            output_bytes: 0,
            limit: None,
            timed_out: false,
            halted: false,
            items: None,
        }
    }

    /// The output byte limit.
    pub fn max_output_bytes(&self) -> u64 {
        self.limits.max_output_bytes
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Adds one output value; `false` when a limit was hit and the caller must stop.
    pub fn push(&mut self, value: Value) -> bool {
        let size = json_size(&value);
        self.push_sized(value, size)
    }

    /// [`Budget::push`] for a value whose [`json_size`] is known.
    ///
    /// The first output, when it is an array over a limit (a slurping recipe, an
    /// aggregate), is cut to its leading items that fit rather than dropped: its items
    /// count against `max_output_records` too.
    pub fn push_sized(&mut self, value: Value, size: u64) -> bool {
        if self.limit.is_some() {
            return false;
        }
        if self.results.is_empty() {
            if let Value::Array(items) = &value {
                if size > self.limits.max_output_bytes
                    || items.len() as u64 > self.limits.max_output_records
                {
                    self.push_leading_items(value);
                    return false;
                }
            }
        }
        if self.results.len() as u64 >= self.limits.max_output_records {
            self.cut(format!(
                "max_output_records ({})",
                self.limits.max_output_records
            ));
            return false;
        }
        if self.output_bytes.saturating_add(size) > self.limits.max_output_bytes {
            self.cut(format!(
                "max_output_bytes ({})",
                self.limits.max_output_bytes
            ));
            return false;
        }
        // The response is held in memory: past the memory bound it is cut like by the output
        // limits (what came before is useful), not failed.
        if held(
            self.results.len() as u64 + 1,
            self.output_bytes.saturating_add(size),
        ) > self.limits.max_memory_bytes
        {
            self.cut(format!(
                "max_memory_bytes ({})",
                self.limits.max_memory_bytes
            ));
            return false;
        }
        self.output_bytes += size;
        self.results.push(value);
        if self.deadline.passed() {
            self.cut_by_time();
            return false;
        }
        true
    }

    /// Checks the clock between records; `false` when the time is up.
    pub fn in_time(&mut self) -> bool {
        if self.limit.is_some() {
            return false;
        }
        if self.deadline.passed() {
            self.cut_by_time();
            return false;
        }
        true
    }

    /// Pushes the leading items of the array `value` that fit the limits, as one array.
    fn push_leading_items(&mut self, value: Value) {
        let Value::Array(items) = value else {
            return;
        };
        let total = items.len() as u64;
        // The brackets, then each item and its comma.
        let mut bytes = 2u64;
        let mut kept = Vec::new();
        for item in items {
            let size = json_size(&item) + u64::from(!kept.is_empty());
            if kept.len() as u64 >= self.limits.max_output_records
                || bytes.saturating_add(size) > self.limits.max_output_bytes
            {
                break;
            }
            bytes += size;
            kept.push(item);
        }
        let returned = kept.len() as u64;
        if bytes <= self.limits.max_output_bytes {
            self.output_bytes = bytes;
            self.results.push(Value::Array(kept));
        }
        self.items = Some((returned, Some(total)));
        if returned < self.limits.max_output_records {
            self.cut(format!(
                "max_output_bytes ({})",
                self.limits.max_output_bytes
            ));
        } else {
            self.cut(format!(
                "max_output_records ({})",
                self.limits.max_output_records
            ));
        }
    }

    /// Records that the output limits cut a stream of records whose full length, `total`,
    /// is known.
    pub fn cut_output(&mut self, total: u64) {
        if self.results.len() as u64 >= self.limits.max_output_records {
            self.cut(format!(
                "max_output_records ({})",
                self.limits.max_output_records
            ));
        } else {
            self.cut(format!(
                "max_output_bytes ({})",
                self.limits.max_output_bytes
            ));
        }
        self.items = Some((self.results.len() as u64, Some(total)));
    }

    /// The deadline cut the result.
    pub fn timed_out(&self) -> bool {
        self.timed_out
    }

    /// The deadline cut the result (a cancellation, labelled as the deadline says).
    pub fn cut_by_time(&mut self) {
        let label = self.deadline.label();
        if self.limit.is_none() {
            self.timed_out = true;
        }
        self.cut(label);
    }

    /// Records that `limit` cut the result (the first limit wins).
    pub fn cut(&mut self, limit: String) {
        self.limit.get_or_insert(limit);
    }

    /// The filter called `halt`: said in the response, so an output stopped there is never
    /// taken for the whole result.
    pub fn halt(&mut self) {
        self.halted = true;
    }

    /// A limit has cut the result.
    pub fn is_cut(&self) -> bool {
        self.limit.is_some()
    }

    /// The response, with the byte limit reported when reading stopped early.
    pub fn finish(mut self, lines: &LineReader<'_>) -> Output {
        if lines.cut() {
            self.cut(format!("max_read_bytes ({})", self.limits.max_read_bytes));
        }
        let truncated = self.limit.is_some();
        // A cut the request asked for (`search`'s `max_results`) needs no advice.
        let configured = self.limit.as_deref().is_some_and(|l| {
            [
                "max_output_",
                "max_read_bytes",
                "timeout_ms",
                "max_memory_bytes",
            ]
            .iter()
            .any(|name| l.starts_with(name))
        });
        let (returned, total) = match (configured, self.items) {
            (false, _) => (None, None),
            (true, Some((returned, total))) => (Some(returned), total),
            (true, None) => (Some(self.results.len() as u64), None),
        };
        let hint = self.limit.as_deref().filter(|_| configured).map(|limit| {
            let of = total.map_or_else(String::new, |t| format!(" of {t}"));
            format!(
                "Cut by {limit}: {} item(s){of} returned. Narrow the query: filter the records \
                 (where, or a recipe's params), keep fewer fields (fields), or page with skip and limit.",
                returned.unwrap_or_default()
            )
        });
        Output {
            results: self.results,
            truncated,
            limit: self.limit,
            returned,
            total,
            hint,
            bytes_read: lines.bytes_read(),
            records_read: lines.records_read(),
            warnings: if self.halted {
                vec!["the filter called halt: the records after it were not read".to_owned()]
            } else {
                Vec::new()
            },
        }
    }
}
