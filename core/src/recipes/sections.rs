//! Ten recipes for a file of several sections: the specification wants exactly ten, so the
//! sections share them.
//!
//! Each section brings its own ten in order of usefulness (browse first, then count by group,
//! search, filter...). Sections take turns, the largest first, each taking its next most
//! useful recipe, until ten are taken: two sections get five each, ten or more one each (a
//! browsing recipe), the largest first. The recipes are then listed section by section in
//! file order, numbered 1 to 10, each description starting with its section's name, each
//! reading only its section's lines (`sed -n 'A,Bp' FILE`).

use super::Recipe;
use crate::descriptor::SectionInfo;
use crate::shape::Format;

/// Recipe numbers of raw records' ten, most useful first.
pub const RAW_PRIORITY: [u8; 10] = [1, 6, 3, 5, 7, 4, 2, 10, 9, 8];
/// Recipe numbers of text's ten, most useful first.
pub const TEXT_PRIORITY: [u8; 10] = [1, 2, 6, 3, 5, 4, 7, 8, 9, 10];

/// The order of usefulness of a section's own recipes.
pub fn priority(section: &SectionInfo) -> &'static [u8; 10] {
    if section.format == Format::Text {
        &TEXT_PRIORITY
    } else {
        &RAW_PRIORITY
    }
}

/// Which section (an index into `sections`) and which of that section's own recipes each of
/// the file's ten is, in the file's order. It depends on the header alone (counts and
/// formats), so native extraction finds recipe N's section before reading any record.
pub fn allocate(sections: &[SectionInfo]) -> Vec<(usize, u8)> {
    let mut turns: Vec<usize> = (0..sections.len()).collect();
    // The largest section first; equal ones in file order (the sort is stable).
    turns.sort_by_key(|&i| std::cmp::Reverse(sections[i].count));
    // (section index, turn) of each recipe taken.
    let mut taken: Vec<(usize, usize)> = Vec::with_capacity(10);
    'turns: for turn in 0..10 {
        for &i in &turns {
            if taken.len() == 10 {
                break 'turns;
            }
            taken.push((i, turn));
        }
    }
    taken.sort_unstable();
    taken
        .into_iter()
        .map(|(i, turn)| (i, priority(&sections[i])[turn]))
        .collect()
}

/// `recipe` (one of its section's own) as recipe `number` of a file of several sections:
/// named after its section, reading its section's lines only.
pub fn in_section(mut recipe: Recipe, number: u8, section: &SectionInfo) -> Recipe {
    recipe.number = number;
    recipe.description = format!("{}: {}", section.label(), recipe.description);
    recipe.lines = Some((section.first_line, section.last_line()));
    recipe
}

/// The ten recipes of a file of several `sections`, given each section's own ten
/// (`own(i)`, asked at most once per section).
pub fn share(sections: &[SectionInfo], mut own: impl FnMut(usize) -> Vec<Recipe>) -> Vec<Recipe> {
    let mut built: Vec<Option<Vec<Recipe>>> = vec![None; sections.len()];
    allocate(sections)
        .into_iter()
        .zip(1u8..)
        .filter_map(|((i, own_number), number)| {
            let recipes = built[i].get_or_insert_with(|| own(i));
            let recipe = recipes.iter().find(|r| r.number == own_number)?.clone();
            Some(in_section(recipe, number, &sections[i]))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipes::recipe;

    fn section(name: &str, first_line: usize, count: usize, format: Format) -> SectionInfo {
        SectionInfo {
            name: Some(name.into()),
            first_line,
            count,
            format,
            tree: None,
            entries: false,
            table: None,
        }
    }

    fn ten(tag: &str) -> Vec<Recipe> {
        (1..=10)
            .map(|n| recipe(n, format!("{tag} {n}"), format!("{n}")))
            .collect()
    }

    #[test]
    fn sections_take_turns_largest_first_and_list_in_file_order() {
        let sections = [
            section("entities", 2, 400, Format::Json),
            section("relations", 402, 300, Format::Text),
        ];
        let shared = share(&sections, |i| ten(["e", "r"][i]));
        let described: Vec<&str> = shared.iter().map(|r| r.description.as_str()).collect();
        assert_eq!(
            described,
            [
                "entities: e 1",
                "entities: e 6",
                "entities: e 3",
                "entities: e 5",
                "entities: e 7",
                "relations: r 1",
                "relations: r 2",
                "relations: r 6",
                "relations: r 3",
                "relations: r 5"
            ]
        );
        assert_eq!(
            shared.iter().map(|r| r.number).collect::<Vec<_>>(),
            (1..=10).collect::<Vec<_>>()
        );
        assert_eq!(shared[0].lines, Some((2, 401)));
        assert_eq!(shared[9].lines, Some((402, 701)));
        assert!(
            shared[9]
                .shell_command("/f.jsonl")
                .starts_with("sed -n '402,701p' /f.jsonl | jq")
        );

        let many: Vec<SectionInfo> = (0..12)
            .map(|i| section(&format!("s{i}"), 2 + i, 1 + i % 3, Format::Json))
            .collect();
        let shared = share(&many, |_| ten("x"));
        assert_eq!(shared.len(), 10);
        assert!(
            shared.iter().all(|r| r.description.ends_with("x 1")),
            "one browsing recipe each"
        );
        let names: Vec<&str> = shared
            .iter()
            .map(|r| r.description.split(':').next().unwrap())
            .collect();
        assert!(
            !names.contains(&"s6") && !names.contains(&"s9"),
            "the smallest go without: {names:?}"
        );
    }
}
