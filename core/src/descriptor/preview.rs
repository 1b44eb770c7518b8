//! The first records of a file, shown in its descriptor (`preview_records = N`): some models
//! query a file better once they have seen what a record looks like.
//!
//! In the full descriptor, a preview only takes the room left: the descriptor is fitted to
//! its budget first, less [`NOTE_RESERVE_TOKENS`], as it would be without one (the
//! specification's parts are given up for nothing else), then the records are added one by
//! one while the whole stays within the budget. The compact descriptor, which gives up its
//! recipes' jq parts first anyway, gives them up before the preview: asked for, a preview is
//! worth more there than a command `recipe=N` runs as well. When fewer records fit than
//! were asked for, or none, the preview says so in its `note`: a model is never left to
//! think the file ends where the preview does.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Estimated tokens set aside, when a preview is asked for, for the note of one that was cut
/// (`"note":"12 of 100 records fit the descriptor's budget"` and the keys around it).
pub(crate) const NOTE_RESERVE_TOKENS: usize = 24;

/// The first records of the file, in a descriptor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Preview {
    /// The file's first records, as written (the file's first section's, when it has
    /// several).
    pub records: Vec<Value>,
    /// Set when fewer records are shown than were asked for (the file has them all): how
    /// many fit the descriptor's budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Preview {
    /// The first `shown` of `records` (the file's first records, as many as were asked for
    /// or as the file has), with a note when that is fewer than all of them.
    pub(crate) fn first(records: &[Value], shown: usize) -> Self {
        let shown = shown.min(records.len());
        Self {
            records: records[..shown].to_vec(),
            note: (shown < records.len()).then(|| {
                format!(
                    "{shown} of {} records fit the descriptor's budget",
                    records.len()
                )
            }),
        }
    }
}

/// How many of `records` might fit `budget` tokens at all: those whose compact JSON, one
/// after another, stays within eight bytes a token (an estimate never counts fewer than a
/// token per four bytes; twice that is room for any estimator). Measuring a preview is then
/// bounded by what a budget can hold, whatever `preview_records` asked for.
pub(crate) fn may_fit(records: &[Value], budget: usize) -> usize {
    let mut bytes = 0;
    records
        .iter()
        .take_while(|record| {
            bytes += crate::json::write::to_string(record).len() + 1;
            bytes <= budget * 8
        })
        .count()
}

/// The largest preview of `records` for which `fits` holds: all of them, or the first that
/// fit with a note saying how many that is (none, when only the note fits). `None` when
/// there is nothing to show.
pub(crate) fn fitted(
    records: &[Value],
    budget: usize,
    mut fits: impl FnMut(&Preview) -> bool,
) -> Option<Preview> {
    if records.is_empty() {
        return None;
    }
    let whole = Preview::first(records, records.len());
    if may_fit(records, budget) == records.len() && fits(&whole) {
        return Some(whole);
    }
    // More records never take fewer tokens: the most that fit, by bisection.
    let (mut fit, mut over) = (0, may_fit(records, budget).min(records.len() - 1) + 1);
    while over - fit > 1 {
        let mid = fit + (over - fit) / 2;
        if fits(&Preview::first(records, mid)) {
            fit = mid;
        } else {
            over = mid;
        }
    }
    Some(Preview::first(records, fit))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn size(preview: &Preview) -> usize {
        serde_json::to_string(preview).unwrap().len()
    }

    #[test]
    fn all_when_they_fit_else_the_first_that_fit_with_a_note() {
        let records: Vec<Value> = (0..5).map(|i| json!({"id": i})).collect();
        let all = fitted(&records, 1000, |_| true).unwrap();
        assert_eq!((all.records.len(), all.note), (5, None));

        // Whatever the budget measures, the most records that fit.
        let some = fitted(&records, 1000, |p| p.records.len() <= 2 && size(p) <= 83).unwrap();
        assert_eq!(some.records, records[..2]);
        assert_eq!(
            some.note.as_deref(),
            Some("2 of 5 records fit the descriptor's budget")
        );
        // Even none still says so.
        let none = fitted(&records, 1000, |p| p.records.is_empty()).unwrap();
        assert_eq!(
            none.note.as_deref(),
            Some("0 of 5 records fit the descriptor's budget")
        );
        assert_eq!(fitted(&[], 1000, |_| true), None);
        // Records a budget cannot hold are not even measured.
        let mut most = 0;
        let some = fitted(&records, 3, |p| {
            most = most.max(p.records.len());
            true
        });
        assert_eq!((most, some.unwrap().records.len()), (2, 2));
        assert_eq!(may_fit(&records, 3), 2);
    }

    #[test]
    fn the_reserve_holds_the_longest_note() {
        let longest = Preview {
            records: Vec::new(),
            note: Some(format!(
                "{} of {} records fit the descriptor's budget",
                u32::MAX,
                u32::MAX
            )),
        };
        let text = format!(",\"preview\":{}", serde_json::to_string(&longest).unwrap());
        assert!(text.len().div_ceil(4) <= NOTE_RESERVE_TOKENS, "{text}");
    }
}
