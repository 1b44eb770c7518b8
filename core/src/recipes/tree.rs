//! Recipes for a flattened tree: its nodes carry a path from the root and a depth, so three
//! of the raw records' ten give way to what a tree is asked: the nodes under a path, the
//! nodes whose path ends with a suffix (every `.ts` file), and how many nodes each depth has.

use serde_json::Value;

use super::{Recipe, key, most_frequent, path, path_after, recipe, safe_example};
use crate::shape::TreeInfo;

/// `recipes` (raw records' ten, numbered 1-10) with 2, 8 and 10 made the tree's.
pub fn tree_recipes(mut recipes: Vec<Recipe>, tree: &TreeInfo, sample: &[Value]) -> Vec<Recipe> {
    let (p, d) = (path(&tree.path_field), path(&tree.depth_field));
    let paths: Vec<&str> = sample
        .iter()
        .filter_map(|node| node.get(&tree.path_field)?.as_str())
        .collect();
    let top = most_frequent(paths.iter().filter_map(|p| p.split('/').next())).map(|(top, _)| top);
    let suffix = most_frequent(paths.iter().filter_map(|p| {
        let last = p.rsplit('/').next()?;
        last.rfind('.').filter(|&i| i > 0).map(|i| &last[i..])
    }))
    .map(|(suffix, _)| suffix);
    let replace = |recipes: &mut Vec<Recipe>, new: Recipe| {
        if let Some(slot) = recipes.iter_mut().find(|r| r.number == new.number) {
            *slot = new;
        }
    };
    replace(
        &mut recipes,
        recipe(
            2,
            format!("Nodes under a path (prefix of {})", tree.path_field),
            format!(r#"select(({p} // "") | startswith($prefix))"#),
        )
        .param("prefix", safe_example(top, "prefix")),
    );
    replace(
        &mut recipes,
        recipe(
            8,
            format!("Nodes whose {} ends with a suffix", tree.path_field),
            format!(r#"select(({p} // "") | endswith($suffix))"#),
        )
        .param("suffix", safe_example(suffix, ".txt")),
    );
    replace(
        &mut recipes,
        recipe(
            10,
            format!("Count nodes by {}", tree.depth_field),
            format!(
                "group_by({d}) | map({{{}: {}, count: length}})",
                key(&tree.depth_field),
                path_after(".[0]", &tree.depth_field)
            ),
        )
        .slurp()
        .reads(&[&tree.depth_field]),
    );
    recipes
}
