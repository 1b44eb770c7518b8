//! Ten recipes for records that are not MIF memories, built from the fields that exist.

use serde_json::Value;

use super::{PLACEHOLDER_KEYWORD, Recipe, key, path, path_after, recipe, safe_example};
use crate::profile::{FieldStats, Profile};

/// Longest field name a recipe reads, in characters.
const MAX_FIELD_NAME: usize = 64;

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

/// How recipes reach a record's values: by field name, or by column (rows that are arrays).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Fields,
    Columns,
}

impl Access {
    /// `.name` (or `.["name"]`), or `.[N]` for column N.
    fn path(self, name: &str) -> String {
        match self {
            Self::Fields => path(name),
            Self::Columns => format!(".[{name}]"),
        }
    }

    /// The value at `base` (`.[0]`), then field or column `name`.
    fn path_after(self, base: &str, name: &str) -> String {
        match self {
            Self::Fields => path_after(base, name),
            Self::Columns => format!("{base}[{name}]"),
        }
    }

    /// How descriptions and output keys name field or column `name`.
    fn label(self, name: &str) -> String {
        match self {
            Self::Fields => name.to_owned(),
            Self::Columns => format!("column {}", name.parse::<usize>().unwrap_or(0) + 1),
        }
    }

    /// An output object's key for field or column `name`.
    fn key(self, name: &str) -> String {
        key(&self.label(name))
    }
}

/// The ten recipes for raw records, built from the fields that exist.
pub fn raw_recipes(profile: &Profile) -> Vec<Recipe> {
    if !profile.all_objects {
        return scalar_recipes();
    }
    recipes_by(profile, Access::Fields)
}

/// The ten recipes for rows that are arrays of values (a database's tuples), built from the
/// columns that exist: `profile` is of the rows as objects keyed by column index (`"0"`,
/// `"1"`, ...; see [`rows_as_objects`]).
pub fn column_recipes(profile: &Profile) -> Vec<Recipe> {
    recipes_by(profile, Access::Columns)
}

/// Rows (arrays) as objects keyed by column index, for [`column_recipes`]' profile; `None`
/// unless every record is an array.
pub fn rows_as_objects(records: &[Value]) -> Option<Vec<Value>> {
    records
        .iter()
        .map(|record| {
            let Value::Array(cells) = record else {
                return None;
            };
            Some(Value::Object(
                cells
                    .iter()
                    .enumerate()
                    .map(|(i, cell)| (i.to_string(), cell.clone()))
                    .collect(),
            ))
        })
        .collect::<Option<Vec<_>>>()
        .filter(|rows| !rows.is_empty())
}

fn recipes_by(profile: &Profile, access: Access) -> Vec<Recipe> {
    // A field with a very long name would be spelled out in every recipe that reads it:
    // such fields play no role (the descriptor has a budget; see ARCHITECTURE.md).
    let short_names = Profile {
        fields: profile
            .fields
            .iter()
            .filter(|f| f.name.chars().count() <= MAX_FIELD_NAME)
            .cloned()
            .collect(),
        ..profile.clone()
    };
    let profile = &short_names;
    let roles = Roles::of(profile);
    let label = roles.label.or(roles.id).or(profile.fields.first());
    let Some(label) = label else {
        return scalar_recipes();
    };
    let text_of = |f: &FieldStats| format!(r#"({} // "" | tostring)"#, access.path(&f.name));
    let (l, lname) = (text_of(label), access.label(&label.name));
    let name = |f: &FieldStats| access.label(&f.name);
    let group = roles.group;
    let mut recipes = Vec::with_capacity(10);

    recipes.push(match group {
        Some(g) => recipe(
            1,
            format!("List {lname} with {}", name(g)),
            format!("[{l}, {}] | @tsv", text_of(g)),
        )
        .raw()
        .reads(&[&label.name, &g.name]),
        None => recipe(1, format!("List {lname}"), l.clone())
            .raw()
            .reads(&[&label.name]),
    });
    let prefix_field = group.unwrap_or(label);
    recipes.push(
        recipe(
            2,
            format!("Filter by {} prefix", name(prefix_field)),
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
        .map(|k| format!("{}: {}", access.key(k), access.path(k)))
        .collect::<Vec<_>>()
        .join(", ");
    recipes.push(
        recipe(
            4,
            format!(
                "Extract {} only",
                keys.iter()
                    .map(|k| access.label(k))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            format!("{{{projection}}}"),
        )
        .reads(&keys),
    );
    let value_field = group.unwrap_or(label);
    recipes.push(
        recipe(
            5,
            format!("Filter by {} value", name(value_field)),
            format!("select({} == $value)", access.path(&value_field.name)),
        )
        .param("value", safe_example(value_field.top_value(), "value"))
        .matching(&value_field.name),
    );
    recipes.push(match group {
        Some(g) => {
            let (p, first) = (access.path(&g.name), access.path_after(".[0]", &g.name));
            recipe(
                6,
                format!("Count by {}", name(g)),
                format!(
                    "group_by({p}) | map({{{}: {first}, count: length}})",
                    access.key(&g.name)
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
            format!("Filter by {} item", name(a)),
            format!(
                "select(any(({} // [])[]?; . == $item))",
                access.path(&a.name)
            ),
        )
        .param("item", safe_example(a.top_item(), "item"))
        .matching(&a.name),
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
            format!("Sort by {}", name(sort_field)),
            format!("sort_by({})", access.path(&sort_field.name)),
        )
        .slurp(),
    );
    recipes.push(match group {
        Some(g) => recipe(
            9,
            format!("List unique {} values", name(g)),
            format!("map({} // empty) | unique", access.path(&g.name)),
        )
        .slurp()
        .reads(&[&g.name]),
        None if access == Access::Columns => {
            recipe(9, "Row lengths", "map(length) | unique").slurp()
        }
        None => recipe(9, "List field names", "map(keys) | add // [] | unique").slurp(),
    });
    recipes.push(match roles.number {
        Some(n) => recipe(
            10,
            format!("Top 10 by {}, largest first", name(n)),
            format!("sort_by(-({} // 0)) | .[:10]", access.path(&n.name)),
        )
        .slurp(),
        None => recipe(10, "First 10 records", ".[:10]").slurp(),
    });
    if access == Access::Columns {
        // The projecting record parser reads fields of objects; rows are read whole.
        for recipe in &mut recipes {
            recipe.reads = None;
        }
    }
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
