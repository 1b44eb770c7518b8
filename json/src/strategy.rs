//! Random JSON values for property tests (proptest strategies): every kind of value, strings
//! with escapes and any Unicode, numbers of every width, nested up to four levels.
//!
//! Compiled for this crate's tests and, with the `proptest` feature, for other crates' tests
//! that check their own JSON handling against the same values.

use proptest::prelude::*;
use serde_json::Value;

/// Any JSON value: the leaves serde_json can hold (finite doubles only), in arrays and
/// objects up to four levels deep, keys among short strings that need escapes.
pub fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
        "[\\x00-\\x7f]{0,24}".prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-z\"\\\\\\n]{0,4}", inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}
