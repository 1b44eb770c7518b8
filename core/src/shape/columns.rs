//! Tables given as JSON: column names beside positional rows, read as one named record per
//! row.
//!
//! Data tools rarely answer with an array of objects: pandas (`orient="split"`), ClickHouse
//! (`JSONCompact`), Trino and Presto, BigQuery and spreadsheet APIs send the names once and
//! each row as an array, so records by the usual rules would be bare arrays (and, for
//! pandas, bare index values), which no recipe or query can name. The forms read here:
//!
//! | form | names | rows |
//! |---|---|---|
//! | [`TableForm::PandasSplit`] | `columns: ["a", ...]` (and `index: [...]`, one per row) | `data: [[...], ...]` |
//! | [`TableForm::Clickhouse`] | `meta: [{"name": "a", "type": ...}, ...]` | `data: [[...], ...]` |
//! | [`TableForm::Trino`] | `columns: [{"name": "a", "type": ...}, ...]` | `data: [[...], ...]` |
//! | [`TableForm::Bigquery`] | `schema: {"fields": [{"name": "a", ...}, ...]}` | `rows: [{"f": [{"v": ...}, ...]}, ...]` |
//! | [`TableForm::Spreadsheet`] | the first row of `values` | the other rows of `values` |
//!
//! Detection is strict, because a reading that guesses would rename a tool's data: the names
//! are non-empty strings, none twice; every row has exactly as many cells as there are names;
//! there is at least one row (two for a spreadsheet, whose header row is told from data by its
//! place alone, as a CSV's is; its cells are scalars and `majorDimension`, when given, is
//! `ROWS`); a pandas `index` has one value per row. Anything else is not a table and is laid
//! out as before. Cells are moved into the records as they are, numbers with their text
//! (BigQuery's strings stay strings, a nested `RECORD` keeps its `{"f": [{"v": ...}]}` form).
//!
//! Only the rows are taken. The column list (`columns`, `meta`, `schema`, with the types a
//! form gives) goes to the envelope whole, however long: it describes the records, and as a
//! section it would be the bare lines this reading exists to avoid (an envelope over its
//! bound goes to the file as a whole, as any does). The object's other fields are laid out
//! by the usual rules (`statistics` stays inline, ClickHouse's `totals` row is a section).
//! A pandas index is a value per row, so each record carries its row's, under `index` (or
//! the first free name of `_index`, `__index`, ... when a column is named so; the header
//! says which).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Which table form a section's records were read from (recorded in the file's header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableForm {
    /// pandas `to_json(orient="split")`: `columns`, `data`, maybe `index`.
    PandasSplit,
    /// ClickHouse `JSONCompact`: `meta` (names and types), `data`.
    Clickhouse,
    /// Trino / Presto: `columns` (names and types), `data`.
    Trino,
    /// BigQuery `jobs.query` / `tabledata.list`: `schema.fields`, `rows` of `{"f": [{"v"}]}`.
    Bigquery,
    /// A spreadsheet's `values` (Google Sheets `values.get`): a header row, then rows.
    Spreadsheet,
}

/// How a table was read into records (recorded in the file's header).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableInfo {
    /// The form the rows came in.
    pub form: TableForm,
    /// The field each record carries its pandas index value under, when the table had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_field: Option<String>,
}

/// A table found in an object: where its rows are and what they are called.
#[derive(Debug)]
pub(crate) struct Table {
    /// The key of the rows (`data`, `rows`, `values`): the section's name.
    pub(crate) rows_key: &'static str,
    /// The key of a pandas index, taken into the records.
    pub(crate) index_key: Option<&'static str>,
    /// The key of the column list (`columns`, `meta`, `schema`; none for a spreadsheet).
    pub(crate) names_key: Option<&'static str>,
    names: Vec<String>,
    info: TableInfo,
}

impl Table {
    /// The table in the object `fields`, when it holds one by the rules above.
    pub(crate) fn detect(fields: &Map<String, Value>) -> Option<Self> {
        if let Some(table) = Self::with_data(fields) {
            return Some(table);
        }
        if let Some(names) = bigquery_names(fields) {
            let mut table = Self::new("rows", None, names, TableForm::Bigquery);
            table.names_key = Some("schema");
            return Some(table);
        }
        spreadsheet_names(fields)
            .map(|names| Self::new("values", None, names, TableForm::Spreadsheet))
    }

    /// The forms whose rows are `data`: pandas, ClickHouse, Trino.
    fn with_data(fields: &Map<String, Value>) -> Option<Self> {
        let rows = fields.get("data")?.as_array()?;
        let (names, form, names_key) = if let Some(meta) = fields.get("meta") {
            (described_names(meta)?, TableForm::Clickhouse, "meta")
        } else {
            let columns = fields.get("columns")?.as_array()?;
            match columns.first()? {
                Value::String(_) => (plain_names(columns)?, TableForm::PandasSplit, "columns"),
                _ => (
                    described_names(fields.get("columns")?)?,
                    TableForm::Trino,
                    "columns",
                ),
            }
        };
        if rows.is_empty() || !rows.iter().all(|row| is_row(row, names.len())) {
            return None;
        }
        let mut index_key = None;
        if form == TableForm::PandasSplit {
            if let Some(index) = fields.get("index") {
                if index.as_array()?.len() != rows.len() {
                    return None;
                }
                index_key = Some("index");
            }
        }
        let mut table = Self::new("data", index_key, names, form);
        table.names_key = Some(names_key);
        Some(table)
    }

    fn new(
        rows_key: &'static str,
        index_key: Option<&'static str>,
        names: Vec<String>,
        form: TableForm,
    ) -> Self {
        let index_field = index_key.map(|_| free_name(&names, "index"));
        Self {
            rows_key,
            index_key,
            names_key: None,
            names,
            info: TableInfo { form, index_field },
        }
    }

    /// How the records were read.
    pub(crate) fn info(&self) -> TableInfo {
        self.info.clone()
    }

    /// One record per row of `rows` (the value under [`Self::rows_key`], as detected), its
    /// cells moved under the names, after the row's `index` value when there is one.
    pub(crate) fn records(&self, rows: Value, index: Option<Value>) -> Vec<Value> {
        let Value::Array(rows) = rows else {
            return Vec::new();
        };
        let mut index = match index {
            Some(Value::Array(values)) => Some(values.into_iter()),
            _ => None,
        };
        let mut rows = rows.into_iter();
        if self.info.form == TableForm::Spreadsheet {
            rows.next(); // the header row: the names
        }
        rows.map(|row| {
            let mut record = Map::with_capacity(self.names.len() + 1);
            if let (Some(values), Some(field)) = (index.as_mut(), &self.info.index_field) {
                record.insert(field.clone(), values.next().unwrap_or(Value::Null));
            }
            for (name, cell) in self.names.iter().zip(cells(row, self.info.form)) {
                record.insert(name.clone(), cell);
            }
            Value::Object(record)
        })
        .collect()
    }
}

/// The cells of one row, as detected: an array's elements, or BigQuery's `f[].v`.
fn cells(row: Value, form: TableForm) -> Vec<Value> {
    match (row, form) {
        (Value::Object(mut row), TableForm::Bigquery) => match row.remove("f") {
            Some(Value::Array(cells)) => cells
                .into_iter()
                .map(|cell| match cell {
                    Value::Object(mut cell) => cell.remove("v").unwrap_or(Value::Null),
                    other => other,
                })
                .collect(),
            _ => Vec::new(),
        },
        (Value::Array(cells), _) => cells,
        _ => Vec::new(),
    }
}

/// Whether `row` is an array of exactly `width` cells.
fn is_row(row: &Value, width: usize) -> bool {
    row.as_array().is_some_and(|cells| cells.len() == width)
}

/// Column names given as strings: non-empty, none twice.
fn plain_names(columns: &[Value]) -> Option<Vec<String>> {
    let names = columns
        .iter()
        .map(|name| name.as_str().filter(|n| !n.is_empty()).map(str::to_owned))
        .collect::<Option<Vec<_>>>()?;
    distinct(names)
}

/// Column names given as objects with a `name` (ClickHouse's `meta`, Trino's `columns`,
/// BigQuery's `fields`).
fn described_names(columns: &Value) -> Option<Vec<String>> {
    let names = columns
        .as_array()?
        .iter()
        .map(|column| column.get("name").cloned())
        .collect::<Option<Vec<_>>>()?;
    plain_names(&names)
}

fn distinct(names: Vec<String>) -> Option<Vec<String>> {
    if names.is_empty() {
        return None;
    }
    let mut sorted: Vec<&String> = names.iter().collect();
    sorted.sort_unstable();
    sorted.dedup();
    (sorted.len() == names.len()).then_some(names)
}

/// BigQuery: `schema.fields` names, and `rows` of `{"f": [{"v": ...}]}` as wide.
fn bigquery_names(fields: &Map<String, Value>) -> Option<Vec<String>> {
    let names = described_names(fields.get("schema")?.get("fields")?)?;
    let rows = fields.get("rows")?.as_array()?;
    let is_row = |row: &Value| {
        let Some(row) = row.as_object().filter(|row| row.len() == 1) else {
            return false;
        };
        row.get("f").and_then(Value::as_array).is_some_and(|cells| {
            cells.len() == names.len()
                && cells.iter().all(|cell| {
                    cell.as_object()
                        .is_some_and(|cell| cell.len() == 1 && cell.contains_key("v"))
                })
        })
    };
    (!rows.is_empty() && rows.iter().all(is_row)).then_some(names)
}

/// A spreadsheet: `values` whose first row names the columns, then at least two rows of
/// scalars as wide, laid out by rows.
fn spreadsheet_names(fields: &Map<String, Value>) -> Option<Vec<String>> {
    if fields
        .get("majorDimension")
        .is_some_and(|d| d.as_str() != Some("ROWS"))
    {
        return None;
    }
    let values = fields.get("values")?.as_array()?;
    let (header, rows) = values.split_first()?;
    let names = plain_names(header.as_array()?)?;
    let scalars = |row: &Value| {
        row.as_array().is_some_and(|cells| {
            cells.len() == names.len() && cells.iter().all(|c| !c.is_array() && !c.is_object())
        })
    };
    (rows.len() >= 2 && rows.iter().all(scalars)).then_some(names)
}

/// `base`, or the first of `_base`, `__base`, ... that is not a column's name.
fn free_name(names: &[String], base: &str) -> String {
    let mut name = base.to_owned();
    while names.contains(&name) {
        name.insert(0, '_');
    }
    name
}

#[cfg(test)]
#[path = "columns_tests.rs"]
mod tests;
