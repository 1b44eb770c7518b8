//! The arguments of a structured query as a request names them, before they are checked.

use serde_json::Value;

/// The arguments of a structured query as a request gives them, unchecked: a borrowed view
/// that [`Query::compile`](super::Query::compile) checks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spec<'a> {
    /// `where`: a MongoDB filter document (`{"tags": "cache"}`), or its JSON text.
    pub filter: Option<&'a Value>,
    /// The fields of each record to return: dotted paths (a list, or one comma-separated
    /// string), or a projection document to keep (`{"title": 1}`) or drop (`{"content": 0}`).
    pub fields: Option<&'a Value>,
    /// Sort order: `{"created": -1}`, `"-created"`, or a list such as `["-created", "title"]`.
    pub sort: Option<&'a Value>,
    /// Matching records to pass over first.
    pub skip: Option<u64>,
    /// Most matching records to return (0: no limit, as in MongoDB).
    pub limit: Option<u64>,
    /// Return the number of matching records instead of the records.
    pub count: bool,
    /// Return `[{"<field>": value, "count": n}, ...]` for this field, largest first.
    pub group_by: Option<&'a str>,
    /// Return the distinct values of this field (arrays unwound) as one array.
    pub distinct: Option<&'a str>,
    /// Return `{count, min, max, sum, avg}` of the numbers in this field.
    pub stats: Option<&'a str>,
}

impl Spec<'_> {
    /// The arguments ask for a structured query: `where`, or a field that shapes or
    /// summarizes one.
    pub fn is_structured(&self) -> bool {
        self.filter.is_some()
            || self.fields.is_some()
            || self.sort.is_some()
            || self.skip.is_some()
            || self.limit.is_some()
            || self.is_summary()
    }

    /// The query summarizes the records (`count`, `group_by`, `distinct`, `stats`) rather
    /// than returning them.
    pub fn is_summary(&self) -> bool {
        self.count || self.group_by.is_some() || self.distinct.is_some() || self.stats.is_some()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn count_false_alone_asks_for_nothing() {
        assert!(!Spec::default().is_structured());
        let spec = Spec {
            count: false,
            ..Spec::default()
        };
        assert!(!spec.is_structured() && !spec.is_summary());
    }

    #[test]
    fn shaping_is_structured_and_summarizing_is_a_summary() {
        let sort = json!("-created");
        let sorted = Spec {
            sort: Some(&sort),
            ..Spec::default()
        };
        assert!(sorted.is_structured() && !sorted.is_summary());
        let limited = Spec {
            limit: Some(0),
            ..Spec::default()
        };
        assert!(limited.is_structured());
        for summary in [
            Spec {
                count: true,
                ..Spec::default()
            },
            Spec {
                group_by: Some("tags"),
                ..Spec::default()
            },
            Spec {
                distinct: Some("tags"),
                ..Spec::default()
            },
            Spec {
                stats: Some("size"),
                ..Spec::default()
            },
        ] {
            assert!(
                summary.is_structured() && summary.is_summary(),
                "{summary:?}"
            );
        }
    }
}
