//! The guidance block of a descriptor: the specification's templates (shell and native),
//! and their forms for data that is not MIF memories.

use serde_json::Value;

use super::SectionInfo;

/// Said after the extract tool's name: the name is the one the server lists, and some
/// clients (Mastra, Claude's) show tools of a server under a prefix.
pub(crate) const PREFIX_NOTE: &str = " (your client may show it with a prefix)";

/// How the native guidance tells the agent to pass the result on without reading it: a
/// result handle in another tool's arguments, replaced by the data before that tool runs.
pub(crate) const PASS_ON: &str = "- Pass on: a tool argument {\"$lro\": resource_uri, \"where\": {...}, \"as\": \"jsonl\"} becomes the records.\n";

/// Sections the guidance names (the descriptor's `sections` lists more).
const GUIDANCE_SECTIONS: usize = 4;
use crate::config::GuidanceMode;
use crate::payload::RecordKind;
use crate::recipes::Recipe;
use crate::shape::Format;

/// Renders the guidance block for a descriptor.
#[allow(
    clippy::too_many_arguments,
    reason = "the template's blanks, each filled once; a struct would only rename them"
)]
pub fn guidance(
    mode: GuidanceMode,
    kind: RecordKind,
    format: Format,
    sections: &[SectionInfo],
    count: usize,
    tokens: usize,
    path: &str,
    recipes: &[Recipe],
    tool: &str,
) -> String {
    let noun = match (kind, format, count) {
        (RecordKind::Mif(_), _, 1) => "memory",
        (RecordKind::Mif(_), _, _) => "memories",
        (RecordKind::Raw, Format::Text, 1) => "line",
        (RecordKind::Raw, Format::Text, _) => "lines",
        (RecordKind::Raw, _, 1) => "record",
        (RecordKind::Raw, _, _) => "records",
    };
    let detail = match format {
        Format::Json => kind.detail_name().to_owned(),
        other => format!(
            "{} (read from {} text)",
            kind.detail_name(),
            format_name(other)
        ),
    };
    let detail = format!("{detail}{}", sections_line(sections));
    match (mode, kind) {
        (GuidanceMode::Shell, RecordKind::Mif(_)) => format!(
            "Results offloaded to JSONL ({count} {noun}, ~{tokens} tokens saved).\n\
             File: {path}\n\
             Detail level: {detail}\n\
             Use the jq recipes above to extract specific data. Common patterns:\n\
             - Browse: recipe #1 (titles with namespaces)\n\
             - Filter: recipe #2 (by namespace) or #3 (by keyword)\n\
             - Analyze: recipe #6 (count by namespace)\n\
             Read the file directly only if you need the complete dataset.\n\
             The header line (line 1) contains metadata; memory objects start at line 2."
        ),
        (GuidanceMode::Shell, RecordKind::Raw) => format!(
            "Results offloaded to JSONL ({count} {noun}, ~{tokens} tokens saved).\n\
             File: {path}\n\
             Detail level: {detail}\n\
             Use the jq recipes above to extract specific data. Common patterns:\n\
             {}\
             Read the file directly only if you need the complete dataset.\n\
             The header line (line 1) contains metadata; records start at line 2.",
            patterns(recipes)
        ),
        (GuidanceMode::Native, RecordKind::Mif(d)) => {
            let custom = match d {
                crate::Detail::Light => r#"select(.memory_type == "semantic")"#,
                crate::Detail::Medium => "select(.confidence > 0.8)",
                crate::Detail::Full => "select(.provenance.confidence > 0.8)",
            };
            format!(
                "Results offloaded to JSONL ({count} {noun}, ~{tokens} tokens saved).\n\
                 Detail level: {detail}\n\
                 Use the `{tool}` tool{PREFIX_NOTE} to query this result set. Examples:\n\
                 - Browse: {tool}(file_path=\"{path}\", recipe=1)\n\
                 - Filter by namespace: {tool}(file_path=\"{path}\", recipe=2, params={{\"namespace\": \"_semantic\"}})\n\
                 - Search by keyword: {tool}(file_path=\"{path}\", recipe=3, params={{\"keyword\": \"your term\"}})\n\
                 {}\
                 - Custom filter: a jq query={}\n\
                 {PASS_ON}\
                 Available recipes: 1=titles+namespaces, 2=filter namespace, 3=search titles,\n\
                 4=IDs+titles, 5=filter type, 6=count by namespace, 7=filter tag, 8=sort by date,\n\
                 9=detail-adaptive, 10=detail-adaptive.",
                where_example(tool, path, recipes, sections),
                Value::from(custom)
            )
        }
        (GuidanceMode::Native, RecordKind::Raw) => {
            let list = recipes
                .iter()
                .map(|r| format!("{}={}", r.number, lower(&r.description)))
                .collect::<Vec<_>>()
                .join(", ");
            let params = |r: &Recipe| {
                r.params.first().map_or(String::new(), |p| {
                    format!(", params={{\"{}\": \"{}\"}}", p.name, p.example)
                })
            };
            format!(
                "Results offloaded to JSONL ({count} {noun}, ~{tokens} tokens saved).\n\
                 Detail level: {detail}\n\
                 Use the `{tool}` tool{PREFIX_NOTE} to query this result set. Examples:\n\
                 - Browse: {tool}(file_path=\"{path}\", recipe=1)\n\
                 - Filter: {tool}(file_path=\"{path}\", recipe=2{})\n\
                 - Search by keyword: {tool}(file_path=\"{path}\", recipe=3, params={{\"keyword\": \"your term\"}})\n\
                 {}\
                 - Custom filter: a jq query=\"select(. != null)\"\n\
                 {PASS_ON}\
                 {}Available recipes: {list}.",
                params(&recipes[1]),
                where_example(tool, path, recipes, sections),
                section_example(tool, sections, path)
            )
        }
    }
}

fn lower(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_lowercase().chain(c).collect())
}

/// How a format is named in guidance.
fn format_name(format: Format) -> &'static str {
    match format {
        Format::Json => "JSON",
        Format::PythonLiteral => "Python literal",
        Format::Csv => "CSV",
        Format::Tsv => "TSV",
        Format::MarkdownTable => "Markdown table",
        Format::Text => "plain",
    }
}

/// `\nSections (file lines): entities 2-401 (400), relations 402-701 (300).`, or nothing for
/// a file without sections.
fn sections_line(sections: &[SectionInfo]) -> String {
    if sections.is_empty() {
        return String::new();
    }
    let mut listed: Vec<String> = sections
        .iter()
        .take(GUIDANCE_SECTIONS)
        .map(|s| {
            let mut text = format!(
                "{} {}-{} ({})",
                s.label(),
                s.first_line,
                s.last_line(),
                s.count
            );
            if let Some(tree) = &s.tree {
                text.push_str(&format!(
                    ", a tree flattened from .{} with .{} and .{}",
                    tree.key, tree.path_field, tree.depth_field
                ));
            }
            if s.format != Format::Json {
                text.push_str(&format!(", from {} text", format_name(s.format)));
            }
            text
        })
        .collect();
    if sections.len() > GUIDANCE_SECTIONS {
        listed.push(format!(
            "and {} more (every one in the header, line 1)",
            sections.len() - GUIDANCE_SECTIONS
        ));
    }
    format!("\nSections (file lines): {}.", listed.join("; "))
}

/// A guidance line with a structured query built from the result's own fields: the first
/// recipe that filters by equality gives the field and the example value (the most
/// frequent one, so the example matches records), the projecting recipe of the same records
/// the fields to return, and, in a file of sections, their section. Empty when no recipe
/// filters by equality (records that are not objects).
fn where_example(tool: &str, path: &str, recipes: &[Recipe], sections: &[SectionInfo]) -> String {
    let Some((recipe, field, value)) = recipes.iter().find_map(|r| {
        Some((
            r,
            r.matches.clone()?,
            Value::from(r.params.first()?.example.as_str()),
        ))
    }) else {
        return String::new();
    };
    let fields = recipes
        .iter()
        .filter(|r| r.lines == recipe.lines && !r.slurp && r.params.is_empty())
        .filter_map(|r| r.reads.as_ref().filter(|f| f.len() >= 2))
        .max_by_key(|f| f.len())
        .map_or_else(String::new, |f| {
            format!(", fields={}", Value::from(f.clone()))
        });
    let section = recipe
        .lines
        .and_then(|(first, _)| sections.iter().find(|s| s.first_line == first))
        .map_or_else(String::new, |s| {
            format!(", section={}", Value::from(s.label()))
        });
    let mut filter = serde_json::Map::new();
    filter.insert(field, value);
    format!(
        "- MongoDB filter: {tool}(file_path=\"{path}\"{section}, where={}{fields})\n",
        Value::Object(filter)
    )
}

/// The native guidance's example of a query scoped to one section, for files with several.
fn section_example(tool: &str, sections: &[SectionInfo], path: &str) -> String {
    match sections {
        [_, second, ..] => format!(
            "- One section: {tool}(file_path=\"{path}\", section={}, query=\".\")\n",
            Value::from(second.label())
        ),
        _ => String::new(),
    }
}

/// The "common patterns" lines of the raw shell template: browse, filter and analyze for one
/// plain set of records; the recipe numbers of each section for a file of several.
fn patterns(recipes: &[Recipe]) -> String {
    if recipes.iter().all(|r| r.lines.is_none()) {
        return format!(
            "- Browse: recipe #1 ({})\n- Filter: recipe #2 or #3 ({})\n- Analyze: recipe #6 ({})\n",
            lower(&recipes[0].description),
            lower(&recipes[2].description),
            lower(&recipes[5].description)
        );
    }
    let mut out = String::new();
    let mut i = 0;
    while i < recipes.len() {
        let lines = recipes[i].lines;
        let end = i + recipes[i..].iter().take_while(|r| r.lines == lines).count();
        let (section, first) = recipes[i]
            .description
            .split_once(": ")
            .unwrap_or(("records", recipes[i].description.as_str()));
        let numbers = if end - i == 1 {
            format!("recipe #{}", recipes[i].number)
        } else {
            format!(
                "recipes #{}-#{}",
                recipes[i].number,
                recipes[end - 1].number
            )
        };
        out.push_str(&format!(
            "- {section}: {numbers} (first: {})\n",
            lower(first)
        ));
        i = end;
    }
    out.push_str("Each recipe reads only its section's lines.\n");
    out
}

/// The guidance of a descriptor that must shrink to fit its budget: the count, the file, and
/// where to go next.
pub fn short_guidance(
    mode: GuidanceMode,
    kind: RecordKind,
    count: usize,
    tokens: usize,
    path: &str,
    tool: &str,
) -> String {
    let noun = if matches!(kind, RecordKind::Mif(_)) {
        "memories"
    } else {
        "records"
    };
    match mode {
        GuidanceMode::Shell => format!(
            "Results offloaded to JSONL ({count} {noun}, ~{tokens} tokens saved).\nFile: {path}\n\
             Use the jq recipes above; line 1 of the file is a header, records start at line 2."
        ),
        GuidanceMode::Native => format!(
            "Results offloaded to JSONL ({count} {noun}, ~{tokens} tokens saved).\n\
             Use the `{tool}` tool{PREFIX_NOTE}: {tool}(file_path=\"{path}\", recipe=1) and recipes 1-10. \
             Pass it on as a tool argument {{\"$lro\": resource_uri}}."
        ),
    }
}
