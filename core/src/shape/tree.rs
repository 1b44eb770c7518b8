//! Trees: records that nest themselves under one recurring array key (`children`, `nodes`,
//! `items`, ...) become one record per node, so that "every .ts file" is one filter.
//!
//! A key is a tree's when, wherever it appears in the nodes, it holds an array of objects
//! only, at least one such array is not empty, and it recurs: a child node has it too
//! (`children` needs no recurrence, being the universal name for it). Each node is written
//! without that key, with its path from the root and its depth (0 for a root) first: the path
//! joins the nodes' labels (`name`, `title`, `id`, `key`, `label`, the first a node has
//! as a string or number, else its index among its siblings) with `/`. When nodes already have
//! a `path` or `depth` field, the new fields take the first free name of `_path`, `__path`,
//! ... (the header says which). Nodes come in depth-first order, a parent before its children.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// The key that is always a tree's, recurring or not.
pub(crate) const CHILDREN: &str = "children";
/// Fields that label a node in its path, in order of preference.
const LABELS: [&str; 5] = ["name", "title", "id", "key", "label"];

/// How a tree was flattened (recorded in the file's header).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TreeInfo {
    /// The recurring array key the nodes nested under.
    pub key: String,
    /// The field added with each node's path from the root.
    pub path_field: String,
    /// The field added with each node's depth (0 for a root).
    pub depth_field: String,
}

/// The recurring key of `records`, when they form a tree by the rule above.
pub fn detect(records: &[Value]) -> Option<String> {
    let mut candidates: Vec<&str> = Vec::new();
    for record in records {
        let Value::Object(fields) = record else {
            return None;
        };
        for (key, value) in fields {
            if value.is_array() && !candidates.contains(&key.as_str()) {
                candidates.push(key);
            }
        }
    }
    candidates
        .into_iter()
        .find(|key| is_tree_key(records, key))
        .map(str::to_owned)
}

fn is_tree_key(records: &[Value], key: &str) -> bool {
    let mut walk = KeyWalk::new(key);
    walk.nodes(records.iter().map(|r| (r, 0)).collect()) && walk.holds()
}

/// The rule of a tree's key, checked on nodes as they are met: nodes may come in several
/// walks (the records of a large result one at a time, see [`super::raw`]).
#[derive(Debug)]
pub(crate) struct KeyWalk<'k> {
    key: Cow<'k, str>,
    nonempty: bool,
    recurs: bool,
}

impl<'k> KeyWalk<'k> {
    pub(crate) fn new(key: impl Into<Cow<'k, str>>) -> Self {
        let key = key.into();
        Self {
            recurs: key == CHILDREN,
            key,
            nonempty: false,
        }
    }

    /// A node whose key holds an array of objects, at least one: the nodes are not all
    /// leaves.
    pub(crate) fn saw_children(&mut self) {
        self.nonempty = true;
    }

    /// Walks `stack` (nodes and their depths) and every node below them; `false` when a
    /// node breaks the rule (the key is then no tree's, whatever the other nodes hold).
    pub(crate) fn nodes(&mut self, mut stack: Vec<(&Value, usize)>) -> bool {
        while let Some((node, depth)) = stack.pop() {
            let Some(value) = node.get(&*self.key) else {
                continue;
            };
            let Value::Array(children) = value else {
                // A leaf may say `"children": null`; any other kind of value is not a tree.
                if value.is_null() {
                    continue;
                }
                return false;
            };
            if !children.iter().all(Value::is_object) {
                return false;
            }
            self.nonempty |= !children.is_empty();
            self.recurs |= depth > 0;
            stack.extend(children.iter().map(|c| (c, depth + 1)));
        }
        true
    }

    /// A node at `depth` whose key holds `value` (read from its text), walked as above.
    pub(crate) fn field(&mut self, value: Value, depth: usize) -> bool {
        let mut node = Map::with_capacity(1);
        node.insert(self.key.clone().into_owned(), value);
        self.nodes(vec![(&Value::Object(node), depth)])
    }

    /// Whether the nodes walked, none of which broke the rule, make a tree.
    pub(crate) fn holds(&self) -> bool {
        self.nonempty && self.recurs
    }
}

/// Every node of the trees `records` nest under `key`, flattened, with how; `None` when they
/// are not a tree under `key` after all.
pub fn flatten(records: &[Value], key: &str) -> Option<(Vec<Value>, TreeInfo)> {
    if !is_tree_key(records, key) {
        return None;
    }
    let mut taken: Vec<&str> = Vec::new();
    let mut stack: Vec<&Value> = records.iter().collect();
    while let Some(node) = stack.pop() {
        if let Value::Object(fields) = node {
            taken.extend(fields.keys().map(String::as_str).filter(|k| {
                k.trim_start_matches('_') == "path" || k.trim_start_matches('_') == "depth"
            }));
            if let Some(Value::Array(children)) = fields.get(key) {
                stack.extend(children);
            }
        }
    }
    let free = |base: &str| {
        (0..)
            .map(|n| format!("{}{base}", "_".repeat(n)))
            .find(|name| name != key && !taken.contains(&name.as_str()))
            .unwrap_or_default()
    };
    let info = TreeInfo {
        key: key.to_owned(),
        path_field: free("path"),
        depth_field: free("depth"),
    };
    let mut out = Vec::new();
    // (node, its index among siblings, parent path, depth), popped in depth-first order.
    let mut stack: Vec<(&Map<String, Value>, usize, String, usize)> = records
        .iter()
        .enumerate()
        .rev()
        .filter_map(|(i, r)| r.as_object().map(|o| (o, i, String::new(), 0)))
        .collect();
    while let Some((node, index, parent, depth)) = stack.pop() {
        let label = LABELS
            .iter()
            .find_map(|l| match node.get(*l) {
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Number(n)) => Some(n.to_string()),
                _ => None,
            })
            .unwrap_or_else(|| index.to_string());
        let path = if depth == 0 {
            label
        } else {
            format!("{parent}/{label}")
        };
        let mut record = Map::with_capacity(node.len() + 2);
        record.insert(info.path_field.clone(), Value::from(path.as_str()));
        record.insert(info.depth_field.clone(), Value::from(depth));
        for (k, v) in node {
            if k == key && v.is_array() {
                continue;
            }
            record.insert(k.clone(), v.clone());
        }
        out.push(Value::Object(record));
        if let Some(Value::Array(children)) = node.get(key) {
            for (i, child) in children.iter().enumerate().rev() {
                if let Value::Object(child) = child {
                    stack.push((child, i, path.clone(), depth + 1));
                }
            }
        }
    }
    Some((out, info))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tree() -> Vec<Value> {
        vec![
            json!({"name": "src", "type": "directory", "children": [
                {"name": "a.ts", "type": "file"},
                {"name": "lib", "type": "directory", "children": [
                    {"name": "b.ts", "type": "file"},
                    {"name": "empty", "type": "directory", "children": []}
                ]}
            ]}),
            json!({"name": "README.md", "type": "file"}),
        ]
    }

    #[test]
    fn flattens_depth_first_with_paths_and_depths() {
        let records = tree();
        assert_eq!(detect(&records).as_deref(), Some("children"));
        let (nodes, info) = flatten(&records, "children").unwrap();
        assert_eq!(
            info,
            TreeInfo {
                key: "children".into(),
                path_field: "path".into(),
                depth_field: "depth".into()
            }
        );
        assert_eq!(
            nodes,
            vec![
                json!({"path": "src", "depth": 0, "name": "src", "type": "directory"}),
                json!({"path": "src/a.ts", "depth": 1, "name": "a.ts", "type": "file"}),
                json!({"path": "src/lib", "depth": 1, "name": "lib", "type": "directory"}),
                json!({"path": "src/lib/b.ts", "depth": 2, "name": "b.ts", "type": "file"}),
                json!({"path": "src/lib/empty", "depth": 2, "name": "empty", "type": "directory"}),
                json!({"path": "README.md", "depth": 0, "name": "README.md", "type": "file"}),
            ]
        );
    }

    #[test]
    fn other_recurring_keys_and_taken_field_names() {
        let records = vec![json!({"id": 1, "path": "/x", "_path": "y", "nodes": [
            {"id": 2, "nodes": [{"title": "leaf", "nodes": null}]},
            {"nodes": []}
        ]})];
        assert_eq!(detect(&records).as_deref(), Some("nodes"));
        let (nodes, info) = flatten(&records, "nodes").unwrap();
        assert_eq!(info.path_field, "__path");
        assert_eq!(info.depth_field, "depth");
        let paths: Vec<&str> = nodes
            .iter()
            .map(|n| n["__path"].as_str().unwrap())
            .collect();
        assert_eq!(paths, ["1", "1/2", "1/2/leaf", "1/1"]);
        assert_eq!(nodes[2]["nodes"], Value::Null, "a null is kept as it was");
    }

    #[test]
    fn arrays_that_do_not_recur_are_no_tree() {
        // Issues with labels, orders with items: arrays of objects, but no recurrence.
        let issues = vec![
            json!({"id": 1, "labels": [{"id": 7, "name": "bug"}]}),
            json!({"id": 2, "labels": []}),
        ];
        assert_eq!(detect(&issues), None);
        let mixed = vec![json!({"children": [{"children": []}, "text"]})];
        assert_eq!(detect(&mixed), None);
        let scalars = vec![json!(1), json!({"children": [{"children": []}]})];
        assert_eq!(detect(&scalars), None);
        assert_eq!(
            detect(&[json!({"children": []})]),
            None,
            "nothing to flatten"
        );
        let depth_one = vec![json!({"name": "dir", "children": [{"name": "f"}]})];
        assert_eq!(detect(&depth_one).as_deref(), Some("children"));
    }
}
