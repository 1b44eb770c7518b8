//! Configuration files: reading one safely, and noticing sections that were meant to be
//! `[prompt.offload]` but are not.
//!
//! TOML names are case-sensitive and LRO reads only `[prompt.offload]`, so `[Prompt.Offload]`
//! or `[prompt.ofload]` used to be ignored without a word: the user believed a setting was
//! on. [`section_warnings`] names such sections (every loader of a file or text surfaces the
//! warnings: the CLI and the proxy on stderr, Python with `warnings.warn`, Node with
//! `process.emitWarning`). Keys inside the section that LRO does not know are errors already
//! (they name the key, and the nearest known key when there is one).
//!
//! [`read_config_file`] is the one way every surface reads a configuration file: a regular
//! file of at most [`MAX_CONFIG_FILE_BYTES`], opened without blocking (a FIFO would block
//! `open` until a writer came; `/dev/zero` would be read until memory ran out).

/// Largest configuration file read, in bytes: a `[prompt.offload]` section is a few hundred.
pub const MAX_CONFIG_FILE_BYTES: u64 = 1024 * 1024;

/// Edit distance (insertions, deletions, substitutions) between two short ASCII-folded names,
/// or `None` once it exceeds `limit`.
fn distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    if a.len().abs_diff(b.len()) > limit || a.len() > 64 || b.len() > 64 {
        return None;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            current.push(
                (previous[j] + cost)
                    .min(previous[j + 1] + 1)
                    .min(current[j] + 1),
            );
        }
        previous = current;
    }
    Some(previous[b.len()]).filter(|d| *d <= limit)
}

/// `name` is not `target` but looks like it: the same but for case, or one or two letters off.
fn looks_like(name: &str, target: &str) -> bool {
    name != target && distance(name, target, 2).is_some()
}

/// The known key nearest to an unknown one (`extrct` gives `extract`), if one is close: the
/// keys of [the table](crate::config::KEYS) and their sections.
/// A key named by a part of its last word (`prefix` for `file_prefix`) gets that key.
pub(crate) fn nearest_key(key: &str) -> Option<&'static str> {
    let keys = || {
        crate::config::KEYS
            .iter()
            .flat_map(|known| known.section().into_iter().chain([known.name]))
    };
    let close = keys()
        .filter(|known| *known != key)
        .filter_map(|known| distance(key, known, 2).map(|d| (d, known)))
        .min()
        .map(|(_, known)| known);
    close.or_else(|| {
        let lower = key.to_ascii_lowercase();
        let (section, word) = lower.rsplit_once('.').unwrap_or(("", &lower));
        let mut named = keys().filter(|known| {
            let (known_section, last) = known.rsplit_once('.').unwrap_or(("", known));
            known_section == section && word.len() >= 3 && last.split('_').any(|part| part == word)
        });
        // Only when one key has that word: `max` would name several.
        match (named.next(), named.next()) {
            (Some(known), None) => Some(known),
            _ => None,
        }
    })
}

/// Warnings for the tables of a TOML document that look like `[prompt.offload]` but are not
/// it (`[Prompt.Offload]`, `[prompt.ofload]`, `[promt.offload]`, `[offload]`,
/// `["prompt.offload"]`): LRO ignores them, and the user should know.
pub fn section_warnings(doc: &toml::de::DeTable<'_>) -> Vec<String> {
    let ignored = |name: String| {
        format!(
            "configuration: [{name}] looks like [prompt.offload] but is not it (TOML names are \
             case-sensitive); it is ignored"
        )
    };
    let mut warnings = Vec::new();
    for (key, value) in doc {
        let key: &str = key.get_ref();
        let prompt_like = key == "prompt" || looks_like(key, "prompt");
        if prompt_like {
            let Some(table) = value.get_ref().as_table() else {
                continue;
            };
            for sub in table.keys() {
                let sub: &str = sub.get_ref();
                let offload_like = sub == "offload" || looks_like(sub, "offload");
                if offload_like && (key != "prompt" || sub != "offload") {
                    warnings.push(ignored(format!("{key}.{sub}")));
                }
            }
        } else {
            let squeezed: String = key
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect();
            if squeezed == "promptoffload" || key == "offload" || looks_like(key, "offload") {
                warnings.push(ignored(format!("{key:?}")));
            } else if let Some(table) = value.get_ref().as_table() {
                nested_sections(table, key, 1, &mut warnings);
            }
        }
    }
    warnings
}

/// Warns about a `[prompt.offload]` nested under other tables (`[tool.prompt.offload]`, as a
/// `pyproject.toml` would hold it): LRO reads the top-level one only.
fn nested_sections(
    table: &toml::de::DeTable<'_>,
    path: &str,
    depth: usize,
    warnings: &mut Vec<String>,
) {
    // Deeper than a configuration file nests its tables in practice; TOML itself has no bound.
    const MAX_DEPTH: usize = 8;
    if depth > MAX_DEPTH {
        return;
    }
    for (key, value) in table {
        let key: &str = key.get_ref();
        let Some(inner) = value.get_ref().as_table() else {
            continue;
        };
        let prompt_like = key == "prompt" || looks_like(key, "prompt");
        let offload = inner
            .keys()
            .map(|sub| -> &str { sub.get_ref() })
            .find(|sub| *sub == "offload" || looks_like(sub, "offload"));
        match offload {
            Some(sub) if prompt_like => warnings.push(format!(
                "configuration: [{path}.{key}.{sub}] looks like [prompt.offload] but is nested \
                 under [{path}]; LRO reads [prompt.offload] at the top level only, so it is ignored"
            )),
            _ => nested_sections(inner, &format!("{path}.{key}"), depth + 1, warnings),
        }
    }
}

/// Reads a configuration file: a regular file (after symbolic links) of at most
/// [`MAX_CONFIG_FILE_BYTES`], in UTF-8. A FIFO, a device, a directory or a larger file is an
/// `invalid_config` error that says so, never a wait or an unbounded read; a file that
/// cannot be opened is `not_found` or `io_error`.
#[cfg(feature = "std-host")]
pub fn read_config_file(path: &std::path::Path) -> crate::Result<String> {
    use std::io::Read;

    use crate::error::{ErrorCode, LroError};

    let refuse = |why: String| {
        LroError::new(
            ErrorCode::InvalidConfig,
            format!("configuration file {}: {why}", path.display()),
        )
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // Without O_NONBLOCK, opening a FIFO waits for a writer: the check below could not run.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        rustix::fs::OFlags::NONBLOCK.bits() as i32,
    );
    let file = options
        .open(path)
        .map_err(|e| LroError::from_io(&e, &format!("cannot read {}", path.display())))?;
    let metadata = file
        .metadata()
        .map_err(|e| LroError::from_io(&e, &format!("cannot read {}", path.display())))?;
    let kind = metadata.file_type();
    if !kind.is_file() {
        let what = if kind.is_dir() {
            "a directory"
        } else {
            "not a regular file (a FIFO, socket or device)"
        };
        return Err(refuse(format!("is {what}; a TOML file is needed")));
    }
    let too_large = || {
        refuse(format!(
            "is larger than {MAX_CONFIG_FILE_BYTES} bytes; a configuration file is a few hundred"
        ))
    };
    if metadata.len() > MAX_CONFIG_FILE_BYTES {
        return Err(too_large());
    }
    // The file may grow after the check: read one byte past the limit at most.
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| LroError::from_io(&e, &format!("cannot read {}", path.display())))?;
    if bytes.len() as u64 > MAX_CONFIG_FILE_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|e| refuse(format!("is not UTF-8 text ({e})")))
}

/// [`read_config_file`] through a [`crate::Host`], for hosts that cannot open without
/// blocking or check an opened handle (the wasm package's JS hosts): the path is resolved and
/// must name a regular file (so a FIFO or a device is never read, and `read` never waits on
/// one), then `read` reads it and more than [`MAX_CONFIG_FILE_BYTES`] is refused. A file
/// swapped between the check and the read, or a regular file of gigabytes, is not caught
/// before it is read, as it is by the native reader. `read` is the host's plain read, not
/// its checked open of offload files: a configuration file may be a link, or have several.
pub fn read_config_file_from_host<H: crate::Host + ?Sized>(
    host: &H,
    path: &std::path::Path,
    read: impl FnOnce(&std::path::Path) -> std::io::Result<Vec<u8>>,
) -> crate::Result<String> {
    use crate::error::{ErrorCode, LroError};
    use crate::host::EntryKind;

    let io = |e: std::io::Error| LroError::from_io(&e, &format!("cannot read {}", path.display()));
    let refuse = |why: String| {
        LroError::new(
            ErrorCode::InvalidConfig,
            format!("configuration file {}: {why}", path.display()),
        )
    };
    let resolved = host.canonicalize(path).map_err(io)?;
    match host.entry_kind(&resolved).map_err(io)? {
        EntryKind::File => {}
        EntryKind::Dir => return Err(refuse("is a directory; a TOML file is needed".into())),
        EntryKind::Symlink | EntryKind::Other => {
            return Err(refuse(
                "is not a regular file (a FIFO, socket or device); a TOML file is needed".into(),
            ));
        }
    }
    let bytes = read(&resolved).map_err(io)?;
    if bytes.len() as u64 > MAX_CONFIG_FILE_BYTES {
        return Err(refuse(format!(
            "is larger than {MAX_CONFIG_FILE_BYTES} bytes; a configuration file is a few hundred"
        )));
    }
    String::from_utf8(bytes).map_err(|e| refuse(format!("is not UTF-8 text ({e})")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warnings(text: &str) -> Vec<String> {
        section_warnings(toml::de::DeTable::parse(text).unwrap().get_ref())
    }

    #[test]
    fn sections_that_look_like_prompt_offload_are_named() {
        assert!(warnings("[prompt.offload]\nenabled = true\n[other]\nx = 1\n").is_empty());
        for (text, name) in [
            ("[Prompt.Offload]\nenabled = true", "[Prompt.Offload]"),
            ("[prompt.ofload]\nenabled = true", "[prompt.ofload]"),
            ("[prompt.Offload]\nenabled = true", "[prompt.Offload]"),
            ("[promt.offload]\nenabled = true", "[promt.offload]"),
            (
                "[PROMPT.OFFLOAD.extract]\ntimeout_ms = 1",
                "[PROMPT.OFFLOAD]",
            ),
            ("[offload]\nenabled = true", "[\"offload\"]"),
            (
                "[\"prompt.offload\"]\nenabled = true",
                "[\"prompt.offload\"]",
            ),
            ("[prompt_offload]\nenabled = true", "[\"prompt_offload\"]"),
        ] {
            let found = warnings(text);
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert!(found[0].contains(name), "{text}: {found:?}");
        }
        // Far from it: not ours to judge.
        assert!(warnings("[tool.ruff]\nx = 1\n[prompt.templates]\ny = 2\n").is_empty());
    }

    #[test]
    fn prompt_offload_nested_under_another_table_is_named() {
        for (text, name) in [
            (
                "[tool.prompt.offload]\nenabled = true",
                "[tool.prompt.offload]",
            ),
            (
                "[atlatl.prompt.offload]\nenabled = true",
                "[atlatl.prompt.offload]",
            ),
            (
                "[a.b.Prompt.offload]\nenabled = true",
                "[a.b.Prompt.offload]",
            ),
            (
                "[tool.lro.prompt.ofload.extract]\ntimeout_ms = 1",
                "[tool.lro.prompt.ofload]",
            ),
        ] {
            let found = warnings(text);
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert!(found[0].contains(name), "{text}: {found:?}");
            assert!(found[0].contains("top level"), "{text}: {found:?}");
        }
        // The real one beside others' nested tables, and nested tables of other names.
        let beside = "[prompt.offload]\nenabled = true\n[tool.ruff.lint]\nx = 1\n[a.prompt.templates]\ny = 2";
        assert!(warnings(beside).is_empty(), "{:?}", warnings(beside));
        // Deeper than any configuration nests: not walked (and no stack spent on it).
        let deep = format!("[{}prompt.offload]\nx = 1", "t.".repeat(40));
        assert!(warnings(&deep).is_empty());
    }

    #[test]
    fn unknown_keys_get_the_nearest_known_one() {
        assert_eq!(nearest_key("extrct"), Some("extract"));
        assert_eq!(nearest_key("Threshold_Tokens"), Some("threshold_tokens"));
        assert_eq!(nearest_key("extract.timeout"), Some("extract.timeout_ms"));
        assert_eq!(nearest_key("extract.timeot_ms"), Some("extract.timeout_ms"));
        assert_eq!(nearest_key("colour"), None);
        // A word of one key's name gets it; a word of several, none.
        assert_eq!(nearest_key("prefix"), Some("file_prefix"));
        assert_eq!(nearest_key("PREFIX"), Some("file_prefix"));
        assert_eq!(
            nearest_key("extract.memory"),
            Some("extract.max_memory_bytes")
        );
        assert_eq!(nearest_key("extract.max"), None);
        // A section is no key of its own to suggest.
        assert_eq!(nearest_key("extract"), None);
    }
}
