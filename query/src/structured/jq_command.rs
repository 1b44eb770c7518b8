//! The jq equivalent of a structured query, for agents with a shell.
//!
//! Every structured query has a `jq` command that, fed the records' lines (`tail -n +2 FILE |
//! jq ...`), prints the same results under jq 1.6 and later. MongoDB's semantics are spelled
//! out as a few small jq definitions placed before the program, only those it uses: `_l` (the
//! leaves of a path, `[value]` or `[]` for missing), `_c` (a value and, for an array, its
//! elements), `_r`/`_k` (the order of [`crate::order`]), `_sk`/`_by` (sorting), `_po`/`_xo`
//! (projections), `_v` (the values aggregates read). Scalars are compared with jq's own
//! operators, which agree with MongoDB within a type bracket; objects and arrays through `_k`.

use jaq_json::Val;
use serde_json::Value;

use super::compiled::Query;
use crate::aggregate::{Aggregate, group_name};
use crate::filter::{AllItem, CmpOp, Cond, ElemMatch, Filter, Path};
use crate::order::{JQ_ORDER, jq_key, rank, to_json};
use crate::projection::SortKey;

const DEF_LEAVES: &str = r#"def _l($p): if ($p | length) == 0 then [.] elif type == "object" then (if has($p[0]) then (.[$p[0]] | _l($p[1:])) else [] end) elif type == "array" then (if ($p[0] | test("^(0|[1-9][0-9]*)$")) then (($p[0] | tonumber) as $i | if $i < length then (.[$i] | _l($p[1:])) else [] end) else (.[] | if type == "object" then _l($p) else [] end) end) else [] end;"#;
const DEF_CANDIDATES: &str = "def _c: ., (arrays | .[]);";
const DEF_SORT: &str = r#"def _sk($p; $d): [_l($p) | if length == 0 then [1, null] elif (.[0] | type) == "array" then (if (.[0] | length) == 0 then [0] else (.[0][] | _k) end) else (.[0] | _k) end] | (if $d > 0 then min else max end) // [1, null]; def _by(f; $d): group_by(f) | if $d < 0 then reverse else . end;"#;
const DEF_KEEP: &str = r#"def _po($t): def _pv($u): if type == "object" then [_po($u)] elif type == "array" then [map(_pv($u)[])] else [] end; . as $o | reduce (keys_unsorted[] | select(. as $k | $t | has($k))) as $k ({}; if $t[$k] == true then .[$k] = $o[$k] else ($o[$k] | _pv($t[$k])) as $v | if ($v | length) > 0 then .[$k] = $v[0] else . end end);"#;
const DEF_DROP: &str = r#"def _xo($t): def _xv($u): if type == "object" then _xo($u) elif type == "array" then map(_xv($u)) else . end; . as $o | reduce keys_unsorted[] as $k ({}; if ($t | has($k)) then (if $t[$k] == true then . else .[$k] = ($o[$k] | _xv($t[$k])) end) else .[$k] = $o[$k] end);"#;
const DEF_VALUES: &str =
    r#"def _v($p): _l($p) | select(length == 1) | .[0] | if type == "array" then .[] else . end;"#;

/// The definitions a program uses, a bit each, written once each in a fixed order.
#[derive(Default)]
struct Defs(u8);

impl Defs {
    const ORDER: u8 = 0;
    const LEAVES: u8 = 1;
    const CANDIDATES: u8 = 2;
    const SORT: u8 = 3;
    const KEEP: u8 = 4;
    const DROP: u8 = 5;
    const VALUES: u8 = 6;

    /// Marks `defs` as used.
    fn add(&mut self, defs: &[u8]) {
        for def in defs {
            self.0 |= 1 << def;
        }
    }

    fn text(&self) -> String {
        (Self::ORDER..=Self::VALUES)
            .filter(|def| self.0 & (1 << def) != 0)
            .map(|def| match def {
                Self::ORDER => JQ_ORDER,
                Self::LEAVES => DEF_LEAVES,
                Self::CANDIDATES => DEF_CANDIDATES,
                Self::SORT => DEF_SORT,
                Self::KEEP => DEF_KEEP,
                Self::DROP => DEF_DROP,
                _ => DEF_VALUES,
            })
            .map(|d| format!("{d} "))
            .collect()
    }
}

fn path_literal(path: &Path) -> String {
    Value::from(path.text.split('.').collect::<Vec<_>>()).to_string()
}

fn literal(v: &Val) -> String {
    to_json(v).to_string()
}

/// Longest jq equivalent given, in bytes, besides the fixed definitions it uses. A `$in` of
/// many values becomes a clause per value (about 15 times the request); past this an agent
/// is better served by the structured query itself, and the answer stays small whatever the
/// request.
pub const MAX_JQ_COMMAND: usize = 4096;

/// Writes filters and conditions, noting the definitions they use.
struct Writer {
    defs: Defs,
    /// Bytes of clauses written so far: the writer stops adding clauses past
    /// [`MAX_JQ_COMMAND`], so a large query is never expanded in full.
    spent: usize,
}

impl Writer {
    fn over(&self) -> bool {
        self.spent > MAX_JQ_COMMAND
    }

    /// Clauses from `items`, stopping once the command is past its limit.
    fn bounded<T>(
        &mut self,
        items: &[T],
        mut write: impl FnMut(&mut Self, &T) -> String,
    ) -> Vec<String> {
        let mut parts = Vec::new();
        for item in items {
            if self.over() {
                break;
            }
            let part = write(self, item);
            self.spent = self.spent.saturating_add(part.len());
            parts.push(part);
        }
        parts
    }
}

impl Writer {
    fn filter(&mut self, f: &Filter) -> String {
        match f {
            Filter::Always => "true".to_owned(),
            Filter::And(all) => self.join(all, " and "),
            Filter::Or(any) => self.join(any, " or "),
            Filter::Nor(none) => format!("({} | not)", self.join(none, " or ")),
            Filter::Field(path, conds) => {
                self.defs.add(&[Defs::LEAVES]);
                let generator = format!("_l({})", path_literal(path));
                self.conds(conds, &generator, true)
            }
        }
    }

    fn join(&mut self, filters: &[Filter], op: &str) -> String {
        let parts = self.bounded(filters, |w, f| w.filter(f));
        format!("({})", parts.join(op))
    }

    fn conds(&mut self, conds: &[Cond], generator: &str, expand: bool) -> String {
        let parts = self.bounded(conds, |w, c| w.cond(c, generator, expand));
        if parts.len() == 1 {
            parts.into_iter().next().unwrap_or_default()
        } else {
            format!("({})", parts.join(" and "))
        }
    }

    /// `any(GENERATOR; leaf test)`, or its negation.
    fn cond(&mut self, cond: &Cond, generator: &str, expand: bool) -> String {
        let any = |test: String| format!("any({generator}; {test})");
        let none = |test: String| format!("(any({generator}; {test}) | not)");
        match cond {
            Cond::Eq(x) => any(self.equals(x, expand)),
            Cond::Ne(x) => none(self.equals(x, expand)),
            Cond::In(xs) => any(self.in_list(xs, expand)),
            Cond::Nin(xs) => none(self.in_list(xs, expand)),
            Cond::Cmp(CmpOp::Gte | CmpOp::Lte, Val::Null) => any(self.equals(&Val::Null, expand)),
            Cond::Cmp(_, Val::Null) => "false".to_owned(),
            Cond::Cmp(op, x) => {
                let op = match op {
                    CmpOp::Gt => ">",
                    CmpOp::Gte => ">=",
                    CmpOp::Lt => "<",
                    CmpOp::Lte => "<=",
                };
                let test = match x {
                    Val::Num(_) => format!(r#"type == "number" and . {op} {}"#, literal(x)),
                    Val::TStr(_) | Val::BStr(_) => {
                        format!(r#"type == "string" and . {op} {}"#, literal(x))
                    }
                    Val::Bool(_) => format!(r#"type == "boolean" and . {op} {}"#, literal(x)),
                    _ => {
                        self.defs.add(&[Defs::ORDER]);
                        format!("_r == {} and _k {op} {}", rank(x), jq_key(x))
                    }
                };
                any(self.present(&test, expand))
            }
            Cond::Exists(true) => any("length == 1".to_owned()),
            Cond::Exists(false) => none("length == 1".to_owned()),
            Cond::Type(types) => {
                let tests: Vec<&str> = types.iter().map(|t| t.jq_test()).collect();
                any(self.present(&tests.join(" or "), expand))
            }
            Cond::Regex(p) => {
                let pattern = if p.flags.is_empty() {
                    p.source.clone()
                } else {
                    format!("(?{}){}", p.flags, p.source)
                };
                let test = format!(r#"type == "string" and test({})"#, Value::from(pattern));
                any(self.present(&test, expand))
            }
            Cond::Size(n) => any(format!(
                r#"length == 1 and (.[0] | type == "array" and length == {n})"#
            )),
            Cond::All(items) if items.is_empty() => "false".to_owned(),
            Cond::All(items) => {
                let parts: Vec<String> = items
                    .iter()
                    .map(|item| match item {
                        AllItem::Value(x) => any(self.equals(x, expand)),
                        AllItem::ElemMatch(m) => any(self.elem_match(m)),
                    })
                    .collect();
                format!("({})", parts.join(" and "))
            }
            Cond::ElemMatch(m) => any(self.elem_match(m)),
            Cond::Not(conds) => format!("({} | not)", self.conds(conds, generator, expand)),
        }
    }

    /// A test of a leaf (`[value]`, or `[]` when missing) that the value, or one of its
    /// candidates, passes `test`.
    fn present(&mut self, test: &str, expand: bool) -> String {
        if expand {
            self.defs.add(&[Defs::CANDIDATES]);
            format!("length == 1 and (.[0] | any(_c; {test}))")
        } else {
            format!("length == 1 and (.[0] | {test})")
        }
    }

    fn equals(&mut self, x: &Val, expand: bool) -> String {
        let test = match x {
            Val::Null => {
                return format!("length == 0 or ({})", self.present(". == null", expand));
            }
            Val::Arr(_) | Val::Obj(_) => {
                self.defs.add(&[Defs::ORDER]);
                format!("_k == {}", jq_key(x))
            }
            scalar => format!(". == {}", literal(scalar)),
        };
        self.present(&test, expand)
    }

    fn in_list(&mut self, xs: &[Val], expand: bool) -> String {
        if xs.is_empty() {
            return "false".to_owned();
        }
        let parts = self.bounded(xs, |w, x| format!("({})", w.equals(x, expand)));
        parts.join(" or ")
    }

    fn elem_match(&mut self, m: &ElemMatch) -> String {
        let element = match m {
            ElemMatch::Document(filter) => {
                format!(r#"type == "object" and {}"#, self.filter(filter))
            }
            ElemMatch::Values(conds) => self.conds(conds, "[.]", false),
        };
        format!(r#"length == 1 and (.[0] | type == "array" and any(.[]; {element}))"#)
    }

    fn sort(&mut self, keys: &[SortKey]) -> String {
        self.defs.add(&[Defs::ORDER, Defs::LEAVES, Defs::SORT]);
        let by = |k: &SortKey| {
            let d = if k.descending { -1 } else { 1 };
            format!("_by(_sk({}; {d}); {d})", path_literal(&k.path))
        };
        let mut inner = by(&keys[keys.len() - 1]);
        for k in keys[..keys.len() - 1].iter().rev() {
            inner = format!("{} | map({inner})", by(k));
        }
        format!("{inner} | [.{}]", "[]".repeat(keys.len() + 1))
    }
}

/// The flags and the program of `query`'s jq equivalent; `None` when its body would be
/// longer than [`MAX_JQ_COMMAND`].
fn program(query: &Query) -> Option<(&'static str, String)> {
    let mut w = Writer {
        defs: Defs::default(),
        spent: 0,
    };
    let select = match &query.filter {
        Filter::Always => None,
        f => Some(w.filter(f)),
    };
    let project = query.projection.as_ref().map(|p| {
        let (def, name) = if p.include {
            (Defs::KEEP, "_po")
        } else {
            (Defs::DROP, "_xo")
        };
        w.defs.add(&[def]);
        format!(
            r#"if type == "object" then {name}({}) else . end"#,
            p.tree.to_json()
        )
    });
    let window = {
        let mut s = String::new();
        if query.skip > 0 {
            s.push_str(&format!(" | .[{}:]", query.skip));
        }
        if let Some(limit) = query.limit {
            s.push_str(&format!(" | .[:{limit}]"));
        }
        s
    };
    let (flags, body) = match &query.aggregate {
        None if query.sort.is_empty() => {
            records_stream(query, select.as_deref(), project.as_deref())
        }
        None => {
            let mut body = select
                .as_deref()
                .map_or_else(String::new, |s| format!("map(select({s})) | "));
            body.push_str(&format!("{}{window} | .[]", w.sort(&query.sort)));
            if let Some(p) = project {
                body.push_str(&format!(" | {p}"));
            }
            ("-sc", body)
        }
        Some(aggregate) => {
            let mut body = select
                .as_deref()
                .map_or_else(|| ".".to_owned(), |s| format!("map(select({s}))"));
            if !query.sort.is_empty()
                && !window.is_empty()
                && !matches!(aggregate, Aggregate::Count)
            {
                if select.is_none() {
                    body.clear();
                    body.push_str(&w.sort(&query.sort));
                } else {
                    body.push_str(&format!(" | {}", w.sort(&query.sort)));
                }
            }
            body.push_str(&window);
            let (flags, tail) = match aggregate {
                Aggregate::Count => ("-s", " | length".to_owned()),
                Aggregate::GroupBy(path) => {
                    w.defs.add(&[Defs::ORDER, Defs::LEAVES, Defs::VALUES]);
                    (
                        "-sc",
                        format!(
                            r#" | map([_v({p})] | unique_by(_k) | if length == 0 then [null] else . end) | add // [] | group_by(_k) | map({{{name}: .[0], "count": length}}) | sort_by(-.count)"#,
                            p = path_literal(path),
                            name = Value::from(group_name(path)),
                        ),
                    )
                }
                Aggregate::Distinct(path) => {
                    w.defs.add(&[Defs::ORDER, Defs::LEAVES, Defs::VALUES]);
                    (
                        "-sc",
                        format!(" | [.[] | _v({})] | unique_by(_k)", path_literal(path)),
                    )
                }
                Aggregate::Stats(path) => {
                    w.defs.add(&[Defs::LEAVES, Defs::VALUES]);
                    (
                        "-sc",
                        format!(
                            r#" | [.[] | _v({})] | map(numbers) | {{"count": length, "min": min, "max": max, "sum": (add // 0), "avg": (if length > 0 then add / length else null end)}}"#,
                            path_literal(path)
                        ),
                    )
                }
            };
            body.push_str(&tail);
            (flags, body)
        }
    };
    // The definitions the program uses are a fixed text; the limit is on what the query
    // expands to.
    (!w.over() && body.len() <= MAX_JQ_COMMAND).then(|| (flags, format!("{}{body}", w.defs.text())))
}

/// Records one by one: `select(...) | projection`, with `-n` and `inputs` for skip/limit.
fn records_stream(
    query: &Query,
    select: Option<&str>,
    project: Option<&str>,
) -> (&'static str, String) {
    let tail = project.map_or_else(String::new, |p| format!(" | {p}"));
    if query.skip == 0 && query.limit.is_none() {
        let head = select.map_or_else(|| ".".to_owned(), |s| format!("select({s})"));
        return ("-c", format!("{head}{tail}"));
    }
    let source = select.map_or_else(|| "inputs".to_owned(), |s| format!("inputs | select({s})"));
    let skipped = if query.skip > 0 {
        format!(
            "foreach ({source}) as $r (0; . + 1; if . > {} then $r else empty end)",
            query.skip
        )
    } else {
        source
    };
    let limited = match query.limit {
        Some(limit) => format!("limit({limit}; {skipped})"),
        None => skipped,
    };
    ("-nc", format!("{limited}{tail}"))
}

/// The shell command: `SOURCE | jq FLAGS 'PROGRAM'`, where `source` prints the records'
/// lines (`tail -n +2 FILE`, or `sed -n 'A,Bp' FILE` for the lines of one section).
/// `None` when its body is longer than [`MAX_JQ_COMMAND`].
pub(super) fn command(query: &Query, source: &str) -> Option<String> {
    let (flags, program) = program(query)?;
    Some(format!(
        "{source} | jq {flags} '{}'",
        program.replace('\'', r"'\''")
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::spec::Spec;
    use super::*;

    fn query_where(filter: &Value) -> Query {
        Query::compile(&Spec {
            filter: Some(filter),
            ..Spec::default()
        })
        .unwrap()
    }

    #[test]
    fn the_source_is_kept_and_the_program_quoted_for_the_shell() {
        let query = query_where(&json!({"name": "it's"}));
        let command = command(&query, "sed -n '2,4p' 'a b.jsonl'").unwrap();
        let (source, jq) = command.split_once(" | jq -c '").unwrap();
        assert_eq!(source, "sed -n '2,4p' 'a b.jsonl'");
        assert!(jq.contains(r#""it'\''s""#), "{jq}");
        assert!(jq.ends_with('\''), "{jq}");
    }

    #[test]
    fn a_program_past_the_limit_is_left_out() {
        let many: Vec<String> = (0..2000).map(|i| format!("value {i}")).collect();
        let query = query_where(&json!({"name": {"$in": many}}));
        assert_eq!(command(&query, "tail -n +2 f"), None);
        let query = query_where(&json!({"name": {"$in": ["a", "b"]}}));
        assert!(command(&query, "tail -n +2 f").is_some());
    }
}
