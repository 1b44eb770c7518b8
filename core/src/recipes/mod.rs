//! The ten jq recipes of a descriptor.
//!
//! A [`Recipe`] is one jq program with named parameters (`$namespace`, `$keyword`, ...).
//! The same program serves both interfaces:
//! - the shell command (`tail -n +2 FILE | jq '...'`) has each parameter written in as a JSON
//!   string literal (an example value taken from the data where one is safe to show);
//! - native extraction binds parameters as jq variables, so no value can change the program.
//!
//! Every program runs unchanged under jq 1.6, jq 1.7+ and the embedded engine, also on
//! records with missing or null fields (`// ""`, `// []` guards).
//!
//! Which ten: the specification's for MIF memories (`mif`); for other records, ten built
//! from the fields that exist (`fields`); for text, ten for lines (`text`). A file with
//! several sections gets ten in all, shared between its sections (`sections`), each
//! reading its own lines of the file.

mod fields;
mod mif;
mod sections;
mod text;
mod tree;

use serde_json::Value;

use crate::descriptor::SectionInfo;
use crate::profile::Profile;
use crate::shape::Format;

pub use fields::{column_recipes, raw_recipes, rows_as_objects};
pub use mif::{MifExamples, mif_recipes};
pub use sections::{allocate, in_section, share};
pub use text::text_recipes;

/// A named recipe parameter with the example value shown in the shell command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipeParam {
    /// Variable name, without the `$`.
    pub name: &'static str,
    /// Example value (from the data when one is safe to show, else a placeholder).
    pub example: String,
}

/// One recipe: a jq program, its flags and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipe {
    /// 1 to 10.
    pub number: u8,
    /// What it does, for people and models.
    pub description: String,
    /// The jq program; parameters appear as `$name`.
    pub filter: String,
    /// Runs over all records at once (`jq -s`).
    pub slurp: bool,
    /// Prints strings raw (`jq -r`).
    pub raw_output: bool,
    /// The parameters the program uses.
    pub params: Vec<RecipeParam>,
    /// The top-level fields the program's output depends on, when that is all it reads of
    /// an object record (`None`: it may read anything, e.g. it outputs whole records).
    /// Native extraction builds only these fields of each record; a program run on records
    /// cut to them gives the same output (the jq-equivalence tests run every recipe).
    pub reads: Option<Vec<String>>,
    /// The file lines (first, last; 1 = the header) the recipe reads, when the file has
    /// several sections; `None`: every record.
    pub lines: Option<(usize, usize)>,
    /// The top-level field the parameter is compared with (equal to it, or an array holding
    /// it), when the recipe is such a filter: the native guidance turns it into a `where`.
    pub matches: Option<String>,
}

/// The spec's placeholder for a keyword, used when the data offers no safe example.
const PLACEHOLDER_KEYWORD: &str = "keyword";

/// A value safe to show inside a single-quoted shell command and a jq string literal.
pub(crate) fn safe_example(value: Option<&str>, placeholder: &str) -> String {
    match value {
        Some(v)
            if !v.is_empty()
                && v.len() <= 64
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b" _-./:@#+".contains(&b)) =>
        {
            v.to_owned()
        }
        _ => placeholder.to_owned(),
    }
}

pub(crate) fn recipe(
    number: u8,
    description: impl Into<String>,
    filter: impl Into<String>,
) -> Recipe {
    Recipe {
        number,
        description: description.into(),
        filter: filter.into(),
        slurp: false,
        raw_output: false,
        params: Vec::new(),
        reads: None,
        lines: None,
        matches: None,
    }
}

impl Recipe {
    pub(crate) fn slurp(mut self) -> Self {
        self.slurp = true;
        self
    }

    pub(crate) fn raw(mut self) -> Self {
        self.raw_output = true;
        self
    }

    pub(crate) fn reads<S: AsRef<str>>(mut self, fields: &[S]) -> Self {
        self.reads = Some(fields.iter().map(|f| f.as_ref().to_owned()).collect());
        self
    }

    pub(crate) fn matching(mut self, field: &str) -> Self {
        self.matches = Some(field.to_owned());
        self
    }

    pub(crate) fn param(mut self, name: &'static str, example: String) -> Self {
        self.params.push(RecipeParam { name, example });
        self
    }

    /// The program with every parameter replaced by a JSON string literal: `values` first,
    /// then the examples.
    pub fn filter_with_literals(&self, values: &[(&str, &str)]) -> String {
        let mut program = self.filter.clone();
        for p in &self.params {
            let value = values
                .iter()
                .find(|(n, _)| *n == p.name)
                .map_or(p.example.as_str(), |(_, v)| *v);
            program = program.replace(&format!("${}", p.name), &Value::from(value).to_string());
        }
        program
    }

    /// The jq command line flags (`-r`, `-s`).
    pub fn flags(&self) -> &'static str {
        match (self.raw_output, self.slurp) {
            (true, true) => " -rs",
            (true, false) => " -r",
            (false, true) => " -s",
            (false, false) => "",
        }
    }

    /// The shell command: `tail -n +2 FILE | jq [-r|-s] 'PROGRAM'`, or `sed -n 'A,Bp' FILE
    /// | jq ...` for a recipe that reads one section ([`shell_read`] says how a shell reads
    /// a file in an object store).
    pub fn shell_command(&self, file: &str) -> String {
        let program = self.filter_with_literals(&[]).replace('\'', r"'\''");
        let source = match self.lines {
            Some((first, last)) => shell_read(file, &format!("sed -n '{first},{last}p'")),
            None => shell_read(file, "tail -n +2"),
        };
        format!("{source} | jq{} '{program}'", self.flags())
    }
}

/// The most frequent item with its count, ties to the first seen.
pub(crate) fn most_frequent<'a>(items: impl Iterator<Item = &'a str>) -> Option<(&'a str, usize)> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for item in items {
        match counts.iter_mut().find(|(i, _)| *i == item) {
            Some(entry) => entry.1 += 1,
            None => counts.push((item, 1)),
        }
    }
    let mut best: Option<(&str, usize)> = None;
    for &(item, count) in &counts {
        if best.is_none_or(|(_, b)| count > b) {
            best = Some((item, count));
        }
    }
    best
}

/// How a shell reads `file` with `reader` (`tail -n +2`, `sed -n '2,9p'`): a local file is
/// named to the reader; an object in a store (`s3://bucket/key`) is streamed to stdout by the
/// AWS CLI, which takes credentials, region and endpoint from the same `AWS_*` environment as
/// LRO, and piped into the reader. Nothing secret goes into the descriptor.
///
/// ```
/// use lro_core::recipes::shell_read;
/// assert_eq!(shell_read("/tmp/a b.jsonl", "tail -n +2"), "tail -n +2 '/tmp/a b.jsonl'");
/// assert_eq!(
///     shell_read("s3://lro/agents/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl", "sed -n '2,9p'"),
///     "aws s3 cp s3://lro/agents/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl - | sed -n '2,9p'"
/// );
/// assert_eq!(shell_read("s3://b/it's.jsonl", "tail -n +2"), r"aws s3 cp 's3://b/it'\''s.jsonl' - | tail -n +2");
/// ```
pub fn shell_read(file: &str, reader: &str) -> String {
    if file.starts_with("s3://") {
        format!("aws s3 cp {} - | {reader}", shell_quote(file))
    } else {
        format!("{reader} {}", shell_quote(file))
    }
}

/// Quotes `s` for a POSIX shell when it needs it.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-./:@+,=".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// jq keywords cannot follow a dot in jq 1.6 (`.and` is a syntax error there).
const JQ_KEYWORDS: [&str; 19] = [
    "and", "or", "not", "if", "then", "elif", "else", "end", "as", "def", "reduce", "foreach",
    "try", "catch", "label", "import", "include", "__loc__", "null",
];

/// Whether `.name` parses in every jq (jq 1.6 rejects keywords after a dot: `.and`).
fn is_plain_identifier(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !JQ_KEYWORDS.contains(&name)
}

/// `.name`, or `.["name"]` where a plain identifier would not parse.
pub(crate) fn path(name: &str) -> String {
    if is_plain_identifier(name) {
        format!(".{name}")
    } else {
        format!(".[{}]", Value::from(name))
    }
}

/// Field `name` of the value at `base` (`.[0]`): `.[0].name` or `.[0]["name"]`. jq 1.6 does
/// not accept `.[0].["name"]`.
pub(crate) fn path_after(base: &str, name: &str) -> String {
    if is_plain_identifier(name) {
        format!("{base}.{name}")
    } else {
        format!("{base}[{}]", Value::from(name))
    }
}

/// An object key in jq construction syntax.
pub(crate) fn key(name: &str) -> String {
    Value::from(name).to_string()
}

/// The ten recipes of raw records (not MIF memories) in `sections`, `samples[i]` being the
/// first records of section `i` (at most [`crate::profile::SAMPLE_SIZE`]).
pub fn for_sections(sections: &[SectionInfo], samples: &[Vec<Value>]) -> Vec<Recipe> {
    let own = |i: usize| section_recipes(&sections[i], &samples[i]);
    match sections {
        [_] => own(0),
        _ => share(sections, own),
    }
}

/// A section's own ten recipes, from its first records: text's, rows' (arrays of values,
/// by column), a flattened tree's, or raw records'.
pub fn section_recipes(section: &SectionInfo, sample: &[Value]) -> Vec<Recipe> {
    if section.format == Format::Text {
        return text_recipes(sample);
    }
    if let Some(rows) = rows_as_objects(sample) {
        return column_recipes(&Profile::of(&rows));
    }
    let recipes = raw_recipes(&Profile::of(sample));
    match &section.tree {
        Some(tree) => tree::tree_recipes(recipes, tree, sample),
        None => recipes,
    }
}
