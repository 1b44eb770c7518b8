//! The recipes of a file, rebuilt exactly as offload built them, and their parameters.
//!
//! The header's `detail` says which set applies: MIF recipes at `light`/`medium`/`full`, with
//! examples from a profile of the records, or recipes inferred from a profile of the first
//! [`SAMPLE_SIZE`] raw records (text's own recipes for text). Offload profiles the same
//! records, so the recipe numbers mean the same program in the descriptor and here. A MIF
//! recipe whose parameters are all given needs no sample at all ([`without_sample`]): only
//! the examples come from the records. In a file of several sections, each recipe belongs
//! to one section, which the header alone tells ([`section_of`]); only that section's first
//! records are sampled and read.
//!
//! Parameters: every parameter of a recipe is a string bound as `$name`. One left out takes
//! the example value the descriptor's shell command shows, so `recipe=2` alone runs exactly
//! the command the agent was shown. A parameter the recipe does not take, or a value that is
//! not a string, is `invalid_argument`.
//!
//! Running one ([`run`]): the recipe rebuilt, its program compiled with its parameters
//! bound, then handed to lro-query's [`execute`] over the records.

use lro_jq::{Program, RecordParser};
use lro_query::budget::Budget;
use lro_query::program::vars_of;
use lro_query::reader::{LineReader, Pending, invalid_record, is_blank};
use lro_query::verbs::jq_filter::execute;
use serde_json::{Map, Value};

use crate::descriptor::{OffloadHeader, SectionInfo};
use crate::error::{ErrorCode, LroError, Result};
use crate::jsonl::checked_header;
use crate::payload::RecordKind;
use crate::profile::SAMPLE_SIZE;
use crate::recipes::{self, MifExamples, Recipe, mif_recipes};

/// The header a header line holds, its sections checked ([`checked_header`]), and the
/// record kind it declares.
pub(crate) fn kind_of_header(header: Option<&str>) -> Result<(OffloadHeader, RecordKind)> {
    let header = checked_header(header)?;
    let kind = RecordKind::from_detail_name(&header.detail).ok_or_else(|| {
        LroError::new(
            ErrorCode::InvalidInput,
            format!(
                "unknown detail level {:?} in the file header",
                header.detail
            ),
        )
    })?;
    Ok((header, kind))
}

/// Which of its section's own recipes recipe `number` of the file is, that section, and
/// whether the file has other sections (only then does the recipe read part of the file).
pub(crate) fn section_of(
    header: &OffloadHeader,
    kind: RecordKind,
    number: u8,
) -> (u8, SectionInfo, bool) {
    let mut sections = header.all_sections();
    if matches!(kind, RecordKind::Mif(_)) || sections.len() == 1 {
        return (number, sections.swap_remove(0), false);
    }
    let (i, own) = recipes::allocate(&sections)[usize::from(number).clamp(1, 10) - 1];
    (own, sections.swap_remove(i), true)
}

/// The ten recipes of `section` (of a file of `kind`) whose first records are `sample` (at
/// most [`crate::profile::SAMPLE_SIZE`] are looked at).
pub(crate) fn recipes_for(
    kind: RecordKind,
    section: &SectionInfo,
    sample: &[Value],
) -> Vec<Recipe> {
    let sample = crate::offload::sample(sample);
    match kind {
        RecordKind::Mif(detail) => mif_recipes(detail, &MifExamples::from_records(sample)),
        RecordKind::Raw => recipes::section_recipes(section, sample),
    }
}

/// Recipe `number` for a file of `kind`, when it can be known without reading records: a
/// MIF recipe's program does not depend on the records, only the examples of its
/// parameters do, so a recipe whose parameters are all given (or that has none) needs no
/// sample. `None`: the caller must sample the records ([`recipes_for`]).
pub(crate) fn without_sample(
    kind: RecordKind,
    number: u8,
    params: Option<&Map<String, Value>>,
) -> Option<Recipe> {
    let RecordKind::Mif(detail) = kind else {
        return None;
    };
    let recipe = pick(mif_recipes(detail, &MifExamples::default()), number).ok()?;
    let given = |name: &str| {
        params
            .and_then(|p| p.get(name))
            .is_some_and(|v| !v.is_null())
    };
    recipe
        .params
        .iter()
        .all(|p| given(p.name))
        .then_some(recipe)
}

/// Recipe `number` of `recipes`, or `invalid_argument`.
pub(crate) fn pick(recipes: Vec<Recipe>, number: u8) -> Result<Recipe> {
    let count = recipes.len();
    recipes
        .into_iter()
        .find(|r| r.number == number)
        .ok_or_else(|| {
            LroError::new(
                ErrorCode::InvalidArgument,
                format!("unknown recipe {number}: recipes are numbered 1 to {count}"),
            )
        })
}

/// Checks a number before any file is read, so a typo fails fast.
pub(crate) fn check_number(number: u8) -> Result<()> {
    if (1..=10).contains(&number) {
        Ok(())
    } else {
        Err(LroError::new(
            ErrorCode::InvalidArgument,
            format!("unknown recipe {number}: recipes are numbered 1 to 10"),
        ))
    }
}

/// The values of the recipe's parameters, in the order of `recipe.params`.
pub(crate) fn bind_params(
    recipe: &Recipe,
    params: Option<&Map<String, Value>>,
) -> Result<Vec<(String, Value)>> {
    let names = || {
        recipe
            .params
            .iter()
            .map(|p| p.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(params) = params {
        if let Some(unknown) = params
            .keys()
            .find(|k| !recipe.params.iter().any(|p| p.name == k.as_str()))
        {
            let takes = if recipe.params.is_empty() {
                "no parameters".to_owned()
            } else {
                format!("only {}", names())
            };
            return Err(LroError::new(
                ErrorCode::InvalidArgument,
                format!(
                    "recipe {} does not take parameter {unknown:?}; it takes {takes}",
                    recipe.number
                ),
            ));
        }
    }
    recipe
        .params
        .iter()
        .map(|p| match params.and_then(|m| m.get(p.name)) {
            None | Some(Value::Null) => Ok((p.name.to_owned(), Value::from(p.example.as_str()))),
            Some(Value::String(s)) => Ok((p.name.to_owned(), Value::from(s.as_str()))),
            Some(other) => Err(LroError::new(
                ErrorCode::InvalidArgument,
                format!(
                    "parameter {:?} of recipe {} must be a string, got {other}",
                    p.name, recipe.number
                ),
            )),
        })
        .collect()
}

/// Runs recipe `number` with `params` over the records of `lines` (of its own section, in a
/// file of several).
pub(crate) fn run(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    number: u8,
    params: Option<&Map<String, Value>>,
) -> Result<()> {
    check_number(number)?;
    let (header, kind) = kind_of_header(lines.header()?.as_deref())?;
    // In a file of several sections the recipe reads its own section only.
    let (number, section, partial) = section_of(&header, kind, number);
    if partial {
        lines.section(section.first_line as u64, section.count as u64)?;
    }
    let mut pending: Pending = Vec::new();
    let recipe = match without_sample(kind, number, params) {
        Some(recipe) => recipe,
        None => {
            // The profile needs the first records; keep their lines to run them afterwards.
            let mut sample = Vec::new();
            while sample.len() < SAMPLE_SIZE {
                let number = lines.line_number() + 1;
                let Some(line) = lines.next_line()? else {
                    break;
                };
                if is_blank(line) {
                    continue;
                }
                sample.push(
                    crate::json::parse::from_slice(line).map_err(|e| invalid_record(number, &e))?,
                );
                pending.push((number, line.to_vec()));
            }
            pick(recipes_for(kind, &section, &sample), number)?
        }
    };
    let bound = bind_params(&recipe, params)?;
    let names: Vec<&str> = bound.iter().map(|(n, _)| n.as_str()).collect();
    let program = Program::cached(&recipe.filter, &names)?;
    let values: Vec<Value> = bound.into_iter().map(|(_, v)| v).collect();
    let vars = vars_of(&values)?;
    Ok(execute(
        lines,
        budget,
        &program,
        vars,
        &values,
        recipe.slurp,
        pending,
        &RecordParser::projecting(recipe.reads.as_deref()),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detail::Detail;
    use serde_json::json;

    #[test]
    fn mif_programs_do_not_depend_on_the_records() {
        let records: Vec<Value> = (0..30)
            .map(|i| json!({"id": i, "namespace": format!("ns{}", i % 4), "memory_type": "episodic", "tags": [format!("t{i}")]}))
            .collect();
        for detail in [Detail::Light, Detail::Medium, Detail::Full] {
            let kind = RecordKind::Mif(detail);
            let whole = SectionInfo {
                name: None,
                first_line: 2,
                count: records.len(),
                format: crate::shape::Format::Json,
                tree: None,
                entries: false,
                table: None,
            };
            let sampled = recipes_for(kind, &whole, &records);
            let bare = mif_recipes(detail, &MifExamples::default());
            for (a, b) in sampled.iter().zip(&bare) {
                assert_eq!(
                    (a.number, &a.filter, a.slurp, a.raw_output),
                    (b.number, &b.filter, b.slurp, b.raw_output)
                );
                let names = |r: &Recipe| r.params.iter().map(|p| p.name).collect::<Vec<_>>();
                assert_eq!(names(a), names(b));
            }
        }
        let all = json!({"namespace": "x", "keyword": "y", "memory_type": "z", "tag": "t"});
        let all = all.as_object().unwrap();
        assert!(
            without_sample(RecordKind::Mif(Detail::Light), 6, None).is_some(),
            "no parameters"
        );
        assert!(without_sample(RecordKind::Mif(Detail::Light), 3, Some(all)).is_some());
        assert!(
            without_sample(RecordKind::Mif(Detail::Light), 2, None).is_none(),
            "needs the example"
        );
        let null = json!({"namespace": null});
        assert!(without_sample(RecordKind::Mif(Detail::Light), 2, null.as_object()).is_none());
        assert!(without_sample(RecordKind::Raw, 6, None).is_none());
    }
}
