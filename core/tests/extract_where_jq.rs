//! The jq command every structured response carries gives the same results as the query,
//! under the system jq (Debian's jq 1.6 in CI): random filter documents, shapes and
//! aggregates over random records of every JSON type, run both ways.

use std::process::Command;

use lro_core::{ExtractRequest, OffloadConfig, OffloadRequest, Offloader, StdHost};
use serde_json::{Map, Value, json};

/// xorshift64*: reproducible cases without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const WORDS: [&str; 6] = ["cache", "Cache", "db", "api", "ops", "été"];

fn scalar(rng: &mut Rng) -> Value {
    match rng.below(7) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => json!(rng.below(7) as i64 - 2),
        3 => json!((rng.below(40) as f64) / 4.0 + 0.25),
        _ => json!(rng.pick(&WORDS)),
    }
}

fn value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 1 { 5 } else { 8 }) {
        0..=4 => scalar(rng),
        5 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth + 1)).collect()),
        _ => {
            let mut map = Map::new();
            for key in ["x", "y"] {
                if rng.chance(70) {
                    map.insert(key.to_owned(), value(rng, depth + 1));
                }
            }
            Value::Object(map)
        }
    }
}

fn record(rng: &mut Rng, i: usize) -> Value {
    let mut map = Map::new();
    map.insert("id".to_owned(), json!(i));
    if rng.chance(85) {
        map.insert(
            "n".to_owned(),
            if rng.chance(80) {
                json!(rng.below(10) as i64 - 3)
            } else {
                value(rng, 1)
            },
        );
    }
    if rng.chance(85) {
        map.insert(
            "s".to_owned(),
            if rng.chance(80) {
                json!(rng.pick(&WORDS))
            } else {
                value(rng, 1)
            },
        );
    }
    if rng.chance(80) {
        map.insert(
            "tags".to_owned(),
            Value::Array((0..rng.below(4)).map(|_| json!(rng.pick(&WORDS))).collect()),
        );
    }
    if rng.chance(70) {
        let one = |rng: &mut Rng| json!({"x": rng.below(5), "y": rng.pick(&WORDS)});
        map.insert(
            "o".to_owned(),
            if rng.chance(60) {
                one(rng)
            } else {
                Value::Array((0..rng.below(3)).map(|_| one(rng)).collect())
            },
        );
    }
    if rng.chance(60) {
        map.insert("m".to_owned(), value(rng, 0));
    }
    Value::Object(map)
}

const FIELDS: [&str; 12] = [
    "n", "s", "tags", "o", "o.x", "o.y", "m", "m.x", "tags.0", "o.0.x", "id", "nope",
];

fn condition(rng: &mut Rng, depth: usize) -> Value {
    let operand = |rng: &mut Rng| {
        if rng.chance(80) {
            scalar(rng)
        } else {
            value(rng, 1)
        }
    };
    match rng.below(17) {
        0 => operand(rng),
        1 => json!({"$eq": operand(rng)}),
        2 => json!({"$ne": operand(rng)}),
        3 => json!({*rng.pick(&["$gt", "$gte", "$lt", "$lte"]): operand(rng)}),
        4 => json!({"$gt": rng.below(5), "$lte": rng.below(8)}),
        5 => json!({"$in": (0..rng.below(3) + 1).map(|_| operand(rng)).collect::<Vec<_>>()}),
        6 => json!({"$nin": (0..rng.below(3)).map(|_| operand(rng)).collect::<Vec<_>>()}),
        7 => json!({"$exists": rng.chance(50)}),
        8 => {
            json!({"$type": rng.pick(&["string", "number", "array", "object", "null", "bool", "int", "double"])})
        }
        9 => {
            json!({"$regex": rng.pick(&["^c", "ach", "E$", "^(db|api)$", "t.", "^$"]), "$options": rng.pick(&["", "i", "im", "s", "x"])})
        }
        10 => json!({"$size": rng.below(4)}),
        11 => {
            json!({"$all": (0..rng.below(3)).map(|_| json!(rng.pick(&WORDS))).collect::<Vec<_>>()})
        }
        12 if depth < 2 => json!({"$elemMatch": {"x": condition(rng, depth + 1)}}),
        13 => json!({"$elemMatch": {"$gte": rng.below(4)}}),
        14 if depth < 2 => {
            let inner = condition(rng, depth + 1);
            match inner {
                Value::Object(map) if map.keys().all(|k| k.starts_with('$')) && !map.is_empty() => {
                    json!({"$not": map})
                }
                _ => json!({"$not": {"$eq": inner}}),
            }
        }
        _ => json!(rng.pick(&WORDS)),
    }
}

fn filter(rng: &mut Rng, depth: usize) -> Value {
    let mut doc = Map::new();
    for _ in 0..rng.below(3) {
        if depth < 2 && rng.chance(20) {
            let op = *rng.pick(&["$and", "$or", "$nor"]);
            doc.insert(
                op.to_owned(),
                Value::Array(
                    (0..rng.below(3) + 1)
                        .map(|_| filter(rng, depth + 1))
                        .collect(),
                ),
            );
        } else {
            doc.insert((*rng.pick(&FIELDS)).to_owned(), condition(rng, depth));
        }
    }
    Value::Object(doc)
}

fn request(rng: &mut Rng) -> Value {
    let mut req = Map::new();
    req.insert("where".to_owned(), filter(rng, 0));
    let sortable = ["n", "s", "tags", "o.x", "m", "id", "nope"];
    match rng.below(8) {
        0 => {
            req.insert("count".to_owned(), json!(true));
        }
        1 => {
            req.insert(
                "group_by".to_owned(),
                json!(rng.pick(&["s", "tags", "o.y", "m", "n", "nope"])),
            );
        }
        2 => {
            req.insert(
                "distinct".to_owned(),
                json!(rng.pick(&["s", "tags", "o.x", "m", "n"])),
            );
        }
        3 => {
            req.insert("stats".to_owned(), json!(rng.pick(&["n", "o.x", "m", "s"])));
        }
        _ => {
            if rng.chance(40) {
                let fields: Vec<&str> = (0..rng.below(3) + 1)
                    .map(|_| *rng.pick(&["id", "s", "o.x", "m.y", "tags"]))
                    .collect();
                let mut unique = Vec::new();
                for f in fields {
                    if !unique.contains(&f) {
                        unique.push(f);
                    }
                }
                if rng.chance(70) {
                    req.insert("fields".to_owned(), json!(unique));
                } else {
                    req.insert(
                        "fields".to_owned(),
                        Value::Object(unique.iter().map(|f| ((*f).to_owned(), json!(0))).collect()),
                    );
                }
            }
        }
    }
    if rng.chance(40) {
        let mut sort = Map::new();
        for _ in 0..rng.below(2) + 1 {
            sort.insert(
                (*rng.pick(&sortable)).to_owned(),
                json!(if rng.chance(50) { 1 } else { -1 }),
            );
        }
        req.insert("sort".to_owned(), Value::Object(sort));
    }
    if rng.chance(25) {
        req.insert("skip".to_owned(), json!(rng.below(6)));
    }
    if rng.chance(25) {
        req.insert("limit".to_owned(), json!(rng.below(6)));
    }
    Value::Object(req)
}

/// Numbers compared by value (jq prints `1.0` as `1`), everything else exactly.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
        }
        _ => a == b,
    }
}

fn jq_outputs(command: &str) -> Vec<Value> {
    let out = Command::new("sh").arg("-c").arg(command).output().unwrap();
    assert!(
        out.status.success(),
        "{command}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter::<Value>()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn random_queries_agree_with_their_jq_command() {
    assert!(
        Command::new("jq").arg("--version").output().is_ok(),
        "jq is required: apt-get install jq"
    );
    let dir = tempfile::tempdir().unwrap();
    let config = OffloadConfig {
        output_dir: dir.path().to_string_lossy().into_owned(),
        threshold_tokens: 0,
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, StdHost::new()).unwrap();
    let cases: usize = std::env::var("LRO_JQ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(240);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut files = Vec::new();
    for f in 0..4 {
        let records: Vec<Value> = (0..25 + f * 10).map(|i| record(&mut rng, i)).collect();
        let outcome = lro
            .offload(&json!(records), &OffloadRequest::new("rand"))
            .unwrap();
        files.push(outcome.offloaded().unwrap().file_path.clone());
    }
    let mut nonempty = 0;
    for case in 0..cases {
        let file = &files[case % files.len()];
        let req = request(&mut rng);
        let request: ExtractRequest = serde_json::from_value(req.clone()).unwrap();
        let response = match lro.extract(file, &request) {
            Ok(response) => response,
            // A random document may be malformed (an operator jq has no twin for is not).
            Err(e) => panic!("{req}: {e}"),
        };
        let command = response.jq.clone().expect("structured responses carry jq");
        let theirs = jq_outputs(&command);
        let ours = &response.results;
        if std::env::var("LRO_JQ_SHOW").is_ok() {
            eprintln!("{req}\n  -> {}\n  {command}", Value::from(ours.clone()));
        }
        assert!(
            ours.len() == theirs.len() && ours.iter().zip(&theirs).all(|(a, b)| same(a, b)),
            "case {case}: {req}\nours: {}\njq:   {}\n{command}",
            Value::from(ours.clone()),
            Value::from(theirs)
        );
        if !matches!(ours.first(), None | Some(Value::Number(_)))
            || ours.first().is_some_and(|n| n.as_u64() > Some(0))
        {
            nonempty += 1;
        }
    }
    assert!(
        nonempty * 3 > cases,
        "too few cases match anything ({nonempty} of {cases})"
    );
}
