//! The specification's ten recipes for MIF memories: 1-8 universal, 9-10 by detail level.

use serde_json::Value;

use super::{PLACEHOLDER_KEYWORD, Recipe, recipe, safe_example};
use crate::detail::Detail;

/// The spec's placeholders, used when the data offers no safe example.
const PLACEHOLDER_NAMESPACE: &str = "_semantic";
const PLACEHOLDER_TYPE: &str = "semantic";
const PLACEHOLDER_TAG: &str = "TAG";

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
        .param("memory_type", memory_type)
        .matching("memory_type"),
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
        .param("tag", tag)
        .matching("tags"),
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn object_store_files_are_fetched_then_piped() {
        let r = &mif_recipes(Detail::Light, &MifExamples::default())[5];
        assert_eq!(
            r.shell_command(
                "s3://lro-bucket/replicas/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl"
            ),
            format!(
                "aws s3 cp s3://lro-bucket/replicas/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl - | tail -n +2 | jq{} '{}'",
                r.flags(),
                r.filter_with_literals(&[])
            )
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
}
