//! The PikeVM side against the `regex` crate: the same patterns, options and haystacks give
//! the same matches, groups, names and errors.

use super::RegexBuilder;

const PATTERNS: &[&str] = &[
    "",
    "a",
    "a*",
    "a*?",
    "x*",
    "(a)|b",
    "(?<word>\\w+)",
    "\\w+",
    "\\W",
    "\\d+",
    "\\s+",
    "\\S+",
    "\\b",
    "\\B",
    "\\bà\\b",
    "^",
    "$",
    "^\\w",
    "\\w$",
    "(?m)^\\w",
    ".",
    "(?s).",
    "(?-u:.)",
    "(?-u:\\w)",
    "é",
    "É",
    "(?i)é",
    "ß",
    "(?i)ǅ",
    "[[:alpha:]]+",
    "[a-zé]+",
    "[^a]+",
    "(a)(b)?(c)",
    "(?<x>a)|(?<y>b)",
    "(?:ab)+",
    "a{2,3}",
    "a{2,3}?",
    "\\x{1F600}",
    "\\u00e9",
    "(?x) a \\s b # comment",
    "\\p{Greek}",
    "\\pL",
    "(",
    "a{99999999}",
    "[z-a]",
    "\\",
    "(?P<n>",
    "\\bthe\\b",
    "[\\w&&\\d]",
    "[\\p{N}]",
    "(?-u)\\xFF",
    "(a|ab)(c|bcd)(d*)",
    "((a)|b)+",
    "\\d{3}-\\d{4}",
    "(?i)straße",
    "ﬁ",
    "\\w{3,}",
    "a|",
    "|a",
    "(|a)+",
    "(?U)a+",
];

const HAYSTACKS: &[&[u8]] = &[
    b"",
    b"a",
    b"aaa",
    b"abc abcd",
    b"Eclair a Okonom",
    "Éclair à Ökonom ٣ 123-4567".as_bytes(),
    "the theme of the ß STRASSE Straße ǅ ǆ Ǆ".as_bytes(),
    "αβγ ΑΒΓ 😀 ﬁ fi".as_bytes(),
    b"line one\nline two\r\nlast",
    b"\xff\xfe invalid \xc3 utf8 a\xffb",
    b"  \t\n  ",
    b"aXbXab",
];

/// The options every pattern is also built with, besides none.
const FLAGS: &[&str] = &["", "i", "m", "s", "U", "x", "ims"];

/// `pattern` built with `flags` by either side's builder (the two have the same methods).
macro_rules! build {
    ($builder:ty, $pattern:expr, $flags:expr) => {{
        let mut builder = <$builder>::new($pattern);
        for flag in $flags.chars() {
            match flag {
                'i' => builder.case_insensitive(true),
                'm' => builder.multi_line(true),
                's' => builder.dot_matches_new_line(true),
                'U' => builder.swap_greed(true),
                _ => builder.ignore_whitespace(true),
            };
        }
        builder.size_limit(1 << 20).build()
    }};
}

/// What either side's regex answers on `haystack`: whether it matches, every match (offsets,
/// bytes, emptiness), every match's groups.
macro_rules! answers {
    ($regex:expr, $haystack:expr) => {{
        let found: Vec<_> = $regex
            .find_iter($haystack)
            .map(|m| (m.start(), m.end(), m.as_bytes(), m.is_empty()))
            .collect();
        let groups: Vec<Vec<_>> = $regex
            .captures_iter($haystack)
            .map(|c| {
                c.iter()
                    .map(|m| m.map(|m| (m.start(), m.as_bytes())))
                    .collect()
            })
            .collect();
        ($regex.is_match($haystack), found, groups)
    }};
}

#[test]
fn the_pikevm_side_answers_as_the_regex_crate() {
    let mut compared = 0;
    for pattern in PATTERNS {
        for flags in FLAGS {
            let ours = build!(RegexBuilder, pattern, flags);
            let theirs = build!(regex::bytes::RegexBuilder, pattern, flags);
            let at = format!("{pattern:?} with {flags:?}");
            let (ours, theirs) = match (ours, theirs) {
                (Ok(ours), Ok(theirs)) => (ours, theirs),
                (Err(ours), Err(theirs)) => {
                    assert_eq!(ours.to_string(), theirs.to_string(), "{at}");
                    continue;
                }
                // The regex crate here has the property tables this side leaves out.
                (Err(ours), Ok(_)) if pattern.contains("\\p") => {
                    assert!(
                        ours.to_string().contains("Unicode property"),
                        "{at}: {ours}"
                    );
                    continue;
                }
                (ours, theirs) => panic!("{at}: {:?} against {:?}", ours.err(), theirs.err()),
            };
            assert_eq!(
                ours.capture_names().collect::<Vec<_>>(),
                theirs.capture_names().collect::<Vec<_>>(),
                "{at}"
            );
            for haystack in HAYSTACKS {
                let at = format!("{at} on {:?}", String::from_utf8_lossy(haystack));
                assert_eq!(answers!(ours, haystack), answers!(theirs, haystack), "{at}");
                compared += 1;
            }
        }
    }
    assert!(compared > 4000, "{compared} comparisons");
}

#[test]
fn a_pattern_over_the_size_limit_is_refused_as_the_regex_crate_says() {
    let ours = RegexBuilder::new("\\w{500}")
        .size_limit(1000)
        .build()
        .unwrap_err();
    let theirs = regex::bytes::RegexBuilder::new("\\w{500}")
        .size_limit(1000)
        .build()
        .unwrap_err();
    assert_eq!(ours.to_string(), theirs.to_string());
    assert!(
        ours.to_string()
            .starts_with("Compiled regex exceeds size limit")
    );
}
