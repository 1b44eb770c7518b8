//! Section names as a descriptor shows them.
//!
//! A section is named by the keys that lead to it in the result, and keys are the data's:
//! 30 arrays under keys of 20 KB made a descriptor of 160 KB, repeated in the line schema's
//! titles, the recipe descriptions and the guidance. A descriptor (and a resource's
//! description, and an error that lists the sections) shows a long name cut to
//! [`MAX_SECTION_LABEL_CHARS`] characters, ending with `…#N` (N: the section's number in
//! the file, from 1), which keeps every label distinct. The file's header keeps the full
//! names; `section` in `lro_extract` takes either the full name or the label shown
//! ([`find`]). The summary's `top_namespaces` (a namespace is the data's too) are cut the
//! same way (N: the rank); the file keeps each record's namespace.

use std::collections::HashSet;

use super::SectionInfo;

/// Longest section label a descriptor shows, in characters (a cut one included).
pub const MAX_SECTION_LABEL_CHARS: usize = 48;

/// The label of section number `number` (from 1) named `name`, before any clash is settled.
fn cut(name: &str, number: usize) -> Option<String> {
    if name.chars().count() <= MAX_SECTION_LABEL_CHARS {
        return None;
    }
    let tail = format!("…#{number}");
    let keep = MAX_SECTION_LABEL_CHARS - tail.chars().count();
    Some(name.chars().take(keep).chain(tail.chars()).collect())
}

/// Each section's label: its name, or the name cut (see the module's documentation). A cut
/// label that happens to equal another section's name or label gets a `#` more until it is
/// distinct (only data written to clash can do that).
fn labels(sections: &[SectionInfo]) -> Vec<String> {
    let names: Vec<&str> = sections.iter().map(SectionInfo::label).collect();
    bounded(&names)
}

/// `names` (distinct names taken from the data: section names, the summary's namespaces)
/// as a descriptor shows them: each cut to [`MAX_SECTION_LABEL_CHARS`] when longer, ending
/// with `…#N` (N: its place in `names`, from 1), all still distinct.
pub(crate) fn bounded<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    let mut taken: HashSet<String> = names.iter().map(|n| n.as_ref().to_owned()).collect();
    names
        .iter()
        .map(AsRef::as_ref)
        .enumerate()
        .map(|(i, name)| match cut(name, i + 1) {
            None => name.to_owned(),
            Some(mut label) => {
                while taken.contains(&label) {
                    label.push('#');
                }
                taken.insert(label.clone());
                label
            }
        })
        .collect()
}

/// The sections as a descriptor shows them: every one as it is, with its name cut when long.
pub fn shown(sections: &[SectionInfo]) -> Vec<SectionInfo> {
    sections
        .iter()
        .zip(labels(sections))
        .map(|(s, label)| SectionInfo {
            name: s.name.as_ref().map(|_| label),
            ..s.clone()
        })
        .collect()
}

/// The section `name` names: by its full name first, else by the label a descriptor showed.
#[cfg(feature = "extract")]
pub(crate) fn find<'s>(sections: &'s [SectionInfo], name: &str) -> Option<&'s SectionInfo> {
    sections.iter().find(|s| s.label() == name).or_else(|| {
        labels(sections)
            .iter()
            .position(|label| label == name)
            .map(|i| &sections[i])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str, first_line: usize) -> SectionInfo {
        SectionInfo {
            name: Some(name.to_owned()),
            first_line,
            count: 1,
            format: crate::shape::Format::Json,
            tree: None,
            entries: false,
            table: None,
        }
    }

    #[test]
    fn long_names_are_cut_distinct_and_found_again() {
        let long_a = format!("k00_{}", "x".repeat(20_000));
        let long_b = format!("k01_{}", "x".repeat(20_000));
        let accents = "é".repeat(100);
        let clash = format!("{}…#4", "k".repeat(MAX_SECTION_LABEL_CHARS - 3));
        let sections = vec![
            named(&long_a, 2),
            named("short", 3),
            named(&accents, 4),
            named(&format!("{}{}", "k".repeat(60), "z"), 5),
            named(&clash, 6),
        ];
        let shown = shown(&sections);
        let labels: Vec<&str> = shown.iter().map(SectionInfo::label).collect();
        assert_eq!(labels[1], "short");
        assert!(labels[0].starts_with("k00_xxx") && labels[0].ends_with("…#1"));
        assert_eq!(labels[2], format!("{}…#3", "é".repeat(45)));
        // The fourth's cut label is the fifth's (uncut) name: it takes a `#` more.
        assert_eq!(labels[3], format!("{clash}#"));
        assert_eq!(labels[4], clash);
        for label in &labels {
            assert!(
                label.chars().count() <= MAX_SECTION_LABEL_CHARS + 1,
                "{label}"
            );
        }
        let distinct: HashSet<&&str> = labels.iter().collect();
        assert_eq!(distinct.len(), labels.len());
        for (i, label) in labels.iter().enumerate() {
            assert_eq!(find(&sections, label).unwrap().first_line, i + 2, "{label}");
        }
        assert_eq!(find(&sections, &long_b), None);
        assert_eq!(find(&sections, &long_a).unwrap().first_line, 2);
        assert_eq!(find(&sections, &clash).unwrap().first_line, 6);
    }
}
