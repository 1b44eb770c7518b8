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

use serde_json::Value;

use crate::detail::Detail;
use crate::profile::{FieldStats, Profile};

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
}

/// The spec's placeholders, used when the data offers no safe example.
const PLACEHOLDER_NAMESPACE: &str = "_semantic";
const PLACEHOLDER_TYPE: &str = "semantic";
const PLACEHOLDER_TAG: &str = "TAG";
const PLACEHOLDER_KEYWORD: &str = "keyword";

/// A value safe to show inside a single-quoted shell command and a jq string literal.
fn safe_example(value: Option<&str>, placeholder: &str) -> String {
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

fn recipe(number: u8, description: impl Into<String>, filter: impl Into<String>) -> Recipe {
    Recipe {
        number,
        description: description.into(),
        filter: filter.into(),
        slurp: false,
        raw_output: false,
        params: Vec::new(),
        reads: None,
    }
}

impl Recipe {
    fn slurp(mut self) -> Self {
        self.slurp = true;
        self
    }

    fn raw(mut self) -> Self {
        self.raw_output = true;
        self
    }

    fn reads<S: AsRef<str>>(mut self, fields: &[S]) -> Self {
        self.reads = Some(fields.iter().map(|f| f.as_ref().to_owned()).collect());
        self
    }

    fn param(mut self, name: &'static str, example: String) -> Self {
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

    /// The shell command: `tail -n +2 FILE | jq [-r|-s] 'PROGRAM'` (see [`shell_read`] for
    /// files in an object store).
    pub fn shell_command(&self, file: &str) -> String {
        let program = self.filter_with_literals(&[]).replace('\'', r"'\''");
        format!(
            "{} | jq{} '{program}'",
            shell_read(file, "tail -n +2"),
            self.flags()
        )
    }
}

/// How a shell reads `file` with `reader` (`tail -n +2`, `sed -n '2,9p'`, ...): a local file
/// is named to the reader; an object in a store (`s3://bucket/key`) is streamed to stdout by
/// the AWS CLI, which takes credentials, region and endpoint from the same `AWS_*`
/// environment as LRO, and piped into the reader. Nothing secret goes into the descriptor.
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

/// Examples for the MIF recipes' parameters, taken from the data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MifExamples {
    /// Most frequent namespace.
    pub namespace: Option<String>,
    /// Most frequent memory type.
    pub memory_type: Option<String>,
    /// Most frequent tag.
    pub tag: Option<String>,
}

impl MifExamples {
    /// The examples of `records` (pass the first [`crate::profile::SAMPLE_SIZE`]): the most
    /// frequent value of each field, ties to the first seen.
    pub fn from_records(records: &[Value]) -> Self {
        crate::tally::Tally::of_values(records).examples
    }
}

/// The ten recipes for MIF memories at `detail`: 1-8 universal, 9-10 detail-adaptive.
pub fn mif_recipes(detail: Detail, examples: &MifExamples) -> Vec<Recipe> {
    let namespace = safe_example(examples.namespace.as_deref(), PLACEHOLDER_NAMESPACE);
    let memory_type = safe_example(examples.memory_type.as_deref(), PLACEHOLDER_TYPE);
    let tag = safe_example(examples.tag.as_deref(), PLACEHOLDER_TAG);
    let keyword = PLACEHOLDER_KEYWORD.to_owned();
    let mut recipes = vec![
        recipe(
            1,
            "List titles with namespaces",
            r#"[(.title // ""), (.namespace // "")] | @tsv"#,
        )
        .raw()
        .reads(&["title", "namespace"]),
        recipe(
            2,
            "Filter by namespace prefix",
            r#"select((.namespace // "") | startswith($namespace))"#,
        )
        .param("namespace", namespace),
        recipe(
            3,
            "Search titles by keyword",
            r#"select((.title // "") | test($keyword; "i"))"#,
        )
        .param("keyword", keyword.clone()),
        recipe(4, "Extract IDs and titles only", "{id, title, namespace}").reads(&[
            "id",
            "title",
            "namespace",
        ]),
        recipe(
            5,
            "Filter by memory type",
            "select(.memory_type == $memory_type)",
        )
        .param("memory_type", memory_type),
        recipe(
            6,
            "Count by namespace",
            "group_by(.namespace) | map({namespace: .[0].namespace, count: length})",
        )
        .slurp()
        .reads(&["namespace"]),
        recipe(
            7,
            "Filter by tag",
            "select(any((.tags // [])[]?; . == $tag))",
        )
        .param("tag", tag),
        recipe(8, "Sort by created date", "sort_by(.created)").slurp(),
    ];
    match detail {
        Detail::Light => {
            recipes.push(
                recipe(
                    9,
                    "List unique namespaces",
                    "map(.namespace // empty) | unique",
                )
                .slurp()
                .reads(&["namespace"]),
            );
            recipes.push(
                recipe(
                    10,
                    "Count by memory_type",
                    "group_by(.memory_type) | map({memory_type: .[0].memory_type, count: length})",
                )
                .slurp()
                .reads(&["memory_type"]),
            );
        }
        Detail::Medium | Detail::Full => {
            let (field, description) = if detail == Detail::Medium {
                (
                    ".confidence",
                    "Sort by confidence, highest first (.confidence)",
                )
            } else {
                (
                    ".provenance.confidence",
                    "Sort by confidence, highest first (.provenance.confidence)",
                )
            };
            recipes.push(recipe(9, description, format!("sort_by(-({field} // 0))")).slurp());
            recipes.push(
                recipe(
                    10,
                    "Full-text search in content (.content)",
                    r#"select((.content // "") | test($keyword; "i"))"#,
                )
                .param("keyword", keyword),
            );
        }
    }
    recipes
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
fn path(name: &str) -> String {
    if is_plain_identifier(name) {
        format!(".{name}")
    } else {
        format!(".[{}]", Value::from(name))
    }
}

/// Field `name` of the value at `base` (`.[0]`): `.[0].name` or `.[0]["name"]`. jq 1.6 does
/// not accept `.[0].["name"]`.
fn path_after(base: &str, name: &str) -> String {
    if is_plain_identifier(name) {
        format!("{base}.{name}")
    } else {
        format!("{base}[{}]", Value::from(name))
    }
}

/// An object key in jq construction syntax.
fn key(name: &str) -> String {
    Value::from(name).to_string()
}

const LABEL_NAMES: [&str; 13] = [
    "title",
    "name",
    "label",
    "path",
    "text",
    "summary",
    "description",
    "message",
    "content",
    "key",
    "id",
    "uri",
    "url",
];
const GROUP_NAMES: [&str; 14] = [
    "namespace",
    "type",
    "entityType",
    "kind",
    "category",
    "status",
    "group",
    "level",
    "source",
    "language",
    "mimeType",
    "mime_type",
    "relationType",
    "state",
];
const ID_NAMES: [&str; 5] = ["id", "uri", "key", "name", "path"];
const DATE_HINTS: [&str; 6] = [
    "created",
    "date",
    "time",
    "modified",
    "updated",
    "timestamp",
];

/// The roles fields play in raw recipes.
struct Roles<'p> {
    label: Option<&'p FieldStats>,
    group: Option<&'p FieldStats>,
    list: Option<&'p FieldStats>,
    number: Option<&'p FieldStats>,
    date: Option<&'p FieldStats>,
    id: Option<&'p FieldStats>,
}

fn pick<'p>(
    profile: &'p Profile,
    names: &[&str],
    ok: impl Fn(&FieldStats) -> bool,
) -> Option<&'p FieldStats> {
    names
        .iter()
        .filter_map(|n| profile.field(n))
        .find(|f| ok(f))
        .or_else(|| profile.fields.iter().find(|f| ok(f)))
}

impl<'p> Roles<'p> {
    fn of(profile: &'p Profile) -> Self {
        let is_string = |f: &FieldStats| f.only("string");
        // A grouping field repeats: at most half as many values as records, and at least two.
        let groups = |f: &FieldStats| {
            is_string(f)
                && !f.values_capped
                && f.values.len() >= 2
                && f.values.len() * 2 <= profile.sampled.max(2)
        };
        let group = GROUP_NAMES
            .iter()
            .filter_map(|n| profile.field(n))
            .find(|f| groups(f))
            .or_else(|| {
                profile
                    .fields
                    .iter()
                    .filter(|f| groups(f))
                    .min_by_key(|f| f.values.len())
            });
        // The label names a record; prefer a field other than the grouping one.
        let not_group = |f: &FieldStats| is_string(f) && group.is_none_or(|g| g.name != f.name);
        let label = pick(profile, &LABEL_NAMES, not_group)
            .or_else(|| pick(profile, &LABEL_NAMES, is_string));
        let list = profile
            .fields
            .iter()
            .find(|f| f.only("array") && f.string_array);
        let number = profile
            .fields
            .iter()
            .find(|f| f.only("integer") || f.only("number") || numeric(f));
        let date = profile.fields.iter().find(|f| {
            is_string(f)
                && DATE_HINTS
                    .iter()
                    .any(|h| f.name.to_ascii_lowercase().contains(h))
        });
        let id = ID_NAMES.iter().filter_map(|n| profile.field(n)).next();
        Self {
            label,
            group,
            list,
            number,
            date,
            id,
        }
    }
}

fn numeric(f: &FieldStats) -> bool {
    f.present > 0
        && f.types
            .iter()
            .all(|t| matches!(*t, "integer" | "number" | "null"))
}

/// The ten recipes for raw records, built from the fields that exist.
pub fn raw_recipes(profile: &Profile) -> Vec<Recipe> {
    if !profile.all_objects {
        return scalar_recipes();
    }
    let roles = Roles::of(profile);
    let label = roles.label.or(roles.id).or(profile.fields.first());
    let Some(label) = label else {
        return scalar_recipes();
    };
    let text_of = |f: &FieldStats| format!(r#"({} // "" | tostring)"#, path(&f.name));
    let (l, lname) = (text_of(label), label.name.as_str());
    let group = roles.group;
    let mut recipes = Vec::with_capacity(10);

    recipes.push(match group {
        Some(g) => recipe(
            1,
            format!("List {lname} with {}", g.name),
            format!("[{l}, {}] | @tsv", text_of(g)),
        )
        .raw()
        .reads(&[lname, &g.name]),
        None => recipe(1, format!("List {lname}"), l.clone())
            .raw()
            .reads(&[lname]),
    });
    let prefix_field = group.unwrap_or(label);
    recipes.push(
        recipe(
            2,
            format!("Filter by {} prefix", prefix_field.name),
            format!("select({} | startswith($prefix))", text_of(prefix_field)),
        )
        .param("prefix", safe_example(prefix_field.top_value(), "prefix")),
    );
    recipes.push(
        recipe(
            3,
            format!("Search {lname} by keyword"),
            format!(r#"select({l} | test($keyword; "i"))"#),
        )
        .param("keyword", PLACEHOLDER_KEYWORD.to_owned()),
    );
    let mut keys: Vec<&str> = Vec::new();
    for f in [roles.id, Some(label), group].into_iter().flatten() {
        if !keys.contains(&f.name.as_str()) {
            keys.push(&f.name);
        }
    }
    let projection = keys
        .iter()
        .map(|k| format!("{}: {}", key(k), path(k)))
        .collect::<Vec<_>>()
        .join(", ");
    recipes.push(
        recipe(
            4,
            format!("Extract {} only", keys.join(", ")),
            format!("{{{projection}}}"),
        )
        .reads(&keys),
    );
    let value_field = group.unwrap_or(label);
    recipes.push(
        recipe(
            5,
            format!("Filter by {} value", value_field.name),
            format!("select({} == $value)", path(&value_field.name)),
        )
        .param("value", safe_example(value_field.top_value(), "value")),
    );
    recipes.push(match group {
        Some(g) => {
            let (p, first) = (path(&g.name), path_after(".[0]", &g.name));
            recipe(
                6,
                format!("Count by {}", g.name),
                format!(
                    "group_by({p}) | map({{{}: {first}, count: length}})",
                    key(&g.name)
                ),
            )
            .slurp()
            .reads(&[&g.name])
        }
        None => recipe(6, "Count records", "length")
            .slurp()
            .reads::<&str>(&[]),
    });
    recipes.push(match roles.list {
        Some(a) => recipe(
            7,
            format!("Filter by {} item", a.name),
            format!("select(any(({} // [])[]?; . == $item))", path(&a.name)),
        )
        .param("item", safe_example(a.top_item(), "item")),
        None => recipe(
            7,
            "Search all fields by keyword",
            r#"select(tostring | test($keyword; "i"))"#,
        )
        .param("keyword", PLACEHOLDER_KEYWORD.to_owned()),
    });
    let sort_field = roles.date.or(roles.number).unwrap_or(label);
    recipes.push(
        recipe(
            8,
            format!("Sort by {}", sort_field.name),
            format!("sort_by({})", path(&sort_field.name)),
        )
        .slurp(),
    );
    recipes.push(match group {
        Some(g) => recipe(
            9,
            format!("List unique {} values", g.name),
            format!("map({} // empty) | unique", path(&g.name)),
        )
        .slurp()
        .reads(&[&g.name]),
        None => recipe(9, "List field names", "map(keys) | add // [] | unique").slurp(),
    });
    recipes.push(match roles.number {
        Some(n) => recipe(
            10,
            format!("Top 10 by {}, largest first", n.name),
            format!("sort_by(-({} // 0)) | .[:10]", path(&n.name)),
        )
        .slurp(),
        None => recipe(10, "First 10 records", ".[:10]").slurp(),
    });
    recipes
}

/// Recipes for records that are not all objects (strings, numbers, mixed).
fn scalar_recipes() -> Vec<Recipe> {
    let keyword = || PLACEHOLDER_KEYWORD.to_owned();
    vec![
        recipe(1, "List values as text", "tostring").raw(),
        recipe(
            2,
            "Values starting with a prefix",
            "select(tostring | startswith($prefix))",
        )
        .param("prefix", "prefix".to_owned()),
        recipe(
            3,
            "Search values by keyword",
            r#"select(tostring | test($keyword; "i"))"#,
        )
        .param("keyword", keyword()),
        recipe(4, "Values with their types", "{type: type, value: .}"),
        recipe(5, "Values equal to a string", "select(. == $value)")
            .param("value", "value".to_owned()),
        recipe(
            6,
            "Count by type",
            "group_by(type) | map({type: (.[0] | type), count: length})",
        )
        .slurp(),
        recipe(7, "Unique values", "unique").slurp(),
        recipe(8, "Sorted values", "sort").slurp(),
        recipe(9, "Count records", "length").slurp(),
        recipe(10, "First 10 records", ".[:10]").slurp(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn always_ten_and_never_score() {
        for d in [Detail::Light, Detail::Medium, Detail::Full] {
            let r = mif_recipes(d, &MifExamples::default());
            assert_eq!(r.len(), 10);
            assert!(r.iter().all(|r| !r.filter.contains(".score")));
        }
        let medium = mif_recipes(Detail::Medium, &MifExamples::default());
        assert!(
            medium[8].filter.contains(".confidence") && !medium[8].filter.contains("provenance")
        );
        let full = mif_recipes(Detail::Full, &MifExamples::default());
        assert!(full[8].filter.contains(".provenance.confidence"));
        let light = mif_recipes(Detail::Light, &MifExamples::default());
        assert!(
            light
                .iter()
                .all(|r| !r.filter.contains("content") && !r.filter.contains("confidence"))
        );
    }

    #[test]
    fn shell_commands_quote_and_substitute() {
        let r = &mif_recipes(
            Detail::Light,
            &MifExamples {
                namespace: Some("it's".into()),
                ..Default::default()
            },
        )[1];
        assert_eq!(
            r.shell_command("/tmp/a b.jsonl"),
            r#"tail -n +2 '/tmp/a b.jsonl' | jq 'select((.namespace // "") | startswith("_semantic"))'"#
        );
        assert_eq!(
            r.filter_with_literals(&[("namespace", "x\"y")]),
            r#"select((.namespace // "") | startswith("x\"y"))"#
        );
    }

    #[test]
    fn object_store_files_are_fetched_then_piped() {
        let r = &mif_recipes(Detail::Light, &MifExamples::default())[5];
        assert_eq!(
            r.shell_command(
                "s3://lro-bucket/replicas/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl"
            ),
            "aws s3 cp s3://lro-bucket/replicas/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl - | tail -n +2 | jq -s 'group_by(.namespace) | map({namespace: .[0].namespace, count: length})'"
        );
        assert_eq!(
            shell_read("s3://b/it's.jsonl", "tail -n +2"),
            r"aws s3 cp 's3://b/it'\''s.jsonl' - | tail -n +2"
        );
        assert_eq!(
            shell_read("/tmp/x.jsonl", "sed -n '2,9p'"),
            "sed -n '2,9p' /tmp/x.jsonl"
        );
    }

    #[test]
    fn raw_recipes_use_existing_fields_only() {
        let records = [
            json!({"name": "a", "entityType": "person", "observations": ["x"]}),
            json!({"name": "b", "entityType": "person", "observations": []}),
            json!({"name": "c", "entityType": "city", "observations": ["y"]}),
            json!({"name": "d", "entityType": "city"}),
        ];
        let r = raw_recipes(&Profile::of(&records));
        assert_eq!(r.len(), 10);
        for recipe in &r {
            for word in ["title", "namespace", "memory_type", "tags", "content"] {
                assert!(
                    !recipe.filter.contains(word),
                    "{} mentions {word}",
                    recipe.filter
                );
            }
        }
        assert!(r[5].filter.contains(".entityType"));
        assert!(r[6].filter.contains(".observations"));
    }
}
