//! Ten recipes for text, whose records are `{"line": N, "text": "..."}`: search, ranges,
//! counts and context, never a sort or a top-N by line number (text is not data to rank).

use serde_json::Value;

use super::{PLACEHOLDER_KEYWORD, Recipe, most_frequent, recipe, safe_example};

/// Lines of context around a match (recipe 5), before and after.
const CONTEXT: usize = 2;

/// Characters of a line the recipes print when the sample has a line longer than this (one
/// long text, such as an echo of a whole document, is a single record): the suggestions
/// then stay bounded, with a note of what was left out, instead of undoing the offload.
pub(crate) const LONG_LINE: usize = 4000;

/// `text`, a jq expression of a string (or null), cut to [`LONG_LINE`] characters, marked
/// `[cut]` when it was longer.
fn cut(text: &str) -> String {
    format!(r#"({text} | .[0:{LONG_LINE}] + (if length > {LONG_LINE} then " [cut]" else "" end))"#)
}

/// The recipes of [`text_recipes`] for a text with long lines: each line printed or returned
/// is cut to its first [`LONG_LINE`] characters.
fn bounded(mut recipes: Vec<Recipe>) -> Vec<Recipe> {
    let line = r#""\(.line): \(.text // "")""#;
    let cut_line = format!(r#""\(.line): \({})""#, cut(r#".text // """#));
    for recipe in &mut recipes {
        recipe.filter = match recipe.number {
            1 | 5 => recipe.filter.replace(line, &cut_line),
            2 | 3 | 4 | 7 | 9 => format!("{} | .text |= {}", recipe.filter, cut(".")),
            10 => recipe.filter.replace(
                "{text: .[0].text,",
                &format!("{{text: {},", cut(".[0].text")),
            ),
            _ => continue,
        };
    }
    // The first suggestion (the one guidance points at to browse) says so; the others' cut
    // shows in their commands, which the descriptor's budget keeps short.
    recipes[0].description = format!(
        "{}, each cut to {LONG_LINE} characters",
        recipes[0].description
    );
    recipes
}

/// The ten recipes for text lines; `sample` (the first lines) gives the examples: the most
/// frequent word that leads a line (`commit`, `INFO`, ...) for the keyword and pattern, and
/// the most frequent first token, when it repeats, for the prefix.
pub fn text_recipes(sample: &[Value]) -> Vec<Recipe> {
    let (word, first) = examples(sample);
    let keyword = safe_example(word.as_deref(), PLACEHOLDER_KEYWORD);
    let pattern = keyword.clone();
    let last = sample.len().clamp(1, 20);
    let long = sample
        .iter()
        .filter_map(|r| r.get("text")?.as_str())
        .any(|text| text.chars().count() > LONG_LINE);
    let recipes = vec![
        recipe(1, "Print lines with their numbers", r#""\(.line): \(.text // "")""#)
            .raw()
            .reads(&["line", "text"]),
        recipe(
            2,
            "Lines containing a keyword (any case)",
            r#"select((.text // "") | test($keyword; "i"))"#,
        )
        .param("keyword", keyword),
        recipe(
            3,
            "Lines matching a regular expression",
            r#"select((.text // "") | test($pattern))"#,
        )
        .param("pattern", pattern.clone()),
        recipe(
            4,
            "Lines in a range of line numbers",
            "select(.line >= ($from | tonumber) and .line <= ($to | tonumber))",
        )
        .param("from", "1".to_owned())
        .param("to", last.to_string()),
        recipe(
            5,
            format!("Lines around each match ({CONTEXT} before and after)"),
            format!(
                r#". as $all | [range(0; length) | select(($all[.].text // "") | test($pattern))] | [.[] as $i | range([$i - {CONTEXT}, 0] | max; [$i + {}, ($all | length)] | min)] | unique | .[] | $all[.] | "\(.line): \(.text // "")""#,
                CONTEXT + 1
            ),
        )
        .slurp()
        .raw()
        .reads(&["line", "text"])
        .param("pattern", pattern.clone()),
        recipe(
            6,
            "Count lines matching a regular expression",
            r#"map(select((.text // "") | test($pattern))) | length"#,
        )
        .slurp()
        .reads(&["text"])
        .param("pattern", pattern),
        recipe(
            7,
            "Lines starting with a prefix",
            r#"select((.text // "") | startswith($prefix))"#,
        )
        .param("prefix", safe_example(first.as_deref(), "prefix")),
        recipe(8, "Count lines", "length").slurp().reads::<&str>(&[]),
        recipe(9, "Last 20 lines", ".[-20:][]").slurp(),
        recipe(
            10,
            "Most frequent lines, top 20",
            "group_by(.text) | map({text: .[0].text, count: length}) | sort_by(-.count) | .[:20]",
        )
        .slurp()
        .reads(&["text"]),
    ];
    if long { bounded(recipes) } else { recipes }
}

/// The most frequent word among the first three tokens of each line (letters, digits, `_`
/// and `-`, with a letter, at most 32 characters, a trailing `:` or `,` dropped), and the
/// most frequent first token when it leads more than one line; ties to the first seen.
fn examples(sample: &[Value]) -> (Option<String>, Option<String>) {
    let lines = || sample.iter().filter_map(|r| r.get("text")?.as_str());
    let firsts = lines().filter_map(|text| text.split_whitespace().next());
    let words = lines().filter_map(|text| {
        text.split_whitespace()
            .take(3)
            .map(|t| t.trim_end_matches([':', ',']))
            .find(|t| {
                t.len() <= 32
                    && t.bytes().any(|b| b.is_ascii_alphabetic())
                    && t.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            })
    });
    let first = most_frequent(firsts)
        .filter(|(_, n)| *n > 1)
        .map(|(t, _)| t.to_owned());
    (most_frequent(words).map(|(w, _)| w.to_owned()), first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::text::text_records;

    #[test]
    fn examples_come_from_the_text_and_nothing_sorts_by_line() {
        let log = text_records("commit a1\nAuthor: x\n\ncommit b2\nAuthor: y\n\ncommit c3\n");
        let recipes = text_recipes(&log);
        assert_eq!(recipes.len(), 10);
        assert_eq!(recipes[1].params[0].example, "commit");
        assert_eq!(recipes[2].params[0].example, "commit");
        assert_eq!(recipes[6].params[0].example, "commit");
        let logs = text_records("2026-11-01T10:00:00Z INFO a\n2026-11-01T10:00:01Z INFO b\n");
        let recipes = text_recipes(&logs);
        assert_eq!(recipes[1].params[0].example, "INFO");
        assert_eq!(
            recipes[6].params[0].example, "prefix",
            "no first token repeats"
        );
        for r in &recipes {
            assert!(!r.filter.contains("sort_by(.line"), "{}", r.filter);
            assert!(!r.description.contains("Sort"), "{}", r.description);
        }
        let empty = text_recipes(&[]);
        assert_eq!(empty[1].params[0].example, "keyword");
    }
}
