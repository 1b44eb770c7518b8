//! Hostile headers and names, through the binary: a header whose sections lie is
//! `invalid_input` (exit 65) for every command that reads a section, never an answer from
//! the lie; and a prefix that is the start of another (`team`, `team-a`) neither removes,
//! lists nor reads the other's files, whose names read as its own.
#![cfg(unix)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::files::{now_millis, set_mtime, ulid_at};
use crate::support::proxy::{Proxy, text};
use crate::support::run::{lro, stderr};

/// Exit code of `lro` for `invalid_input` (EX_DATAERR).
const EXIT_INVALID_INPUT: i32 = 65;
/// Exit code of `lro` for `path_denied` (EX_NOPERM).
const EXIT_DENIED: i32 = 77;

/// A result of two sections of 300 records each (a knowledge graph), offloaded into `dir`
/// with `prefix` and `operation`; the file's path.
fn offload(dir: &Path, prefix: &str, operation: &str) -> PathBuf {
    let graph = json!({
        "entities": (0..300).map(|i| json!({"name": format!("e{i}")})).collect::<Vec<_>>(),
        "relations": (0..300).map(|i| json!({"from": format!("e{i}"), "to": format!("e{}", i + 1)})).collect::<Vec<_>>(),
    });
    let out = lro(
        &[
            "offload",
            "--prefix",
            prefix,
            "--operation",
            operation,
            "--threshold",
            "1",
            "--descriptor",
            "pointer",
            "--output-dir",
            dir.to_str().unwrap(),
        ],
        graph.to_string(),
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let descriptor: Value = serde_json::from_slice(&out.stdout).unwrap();
    PathBuf::from(descriptor["file_path"].as_str().expect("offloaded"))
}

/// Every command that reads the section `relations`, as `lro extract` options.
const SECTION_READERS: [&[&str]; 7] = [
    &["--section", "relations", "--count"],
    &["--section", "relations", "--where", r#"{"from": "e7"}"#],
    &["--section", "relations", "--query", ".to"],
    &["--section", "relations", "--search", "e1"],
    // Recipe 7 counts the records of `relations`, recipe 1 lists the names of `entities`.
    &["--recipe", "7"],
    &["--recipe", "1"],
    &["--describe"],
];

#[test]
fn a_lying_header_is_invalid_input_for_every_reader_of_a_section() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let file = offload(dir, "atlatl", "graph");
    let written = std::fs::read_to_string(&file).unwrap();
    let (header, body) = written.split_once('\n').unwrap();
    let truth: Value = serde_json::from_str(header).unwrap();
    assert_eq!(
        truth["sections"][1],
        json!({"name": "relations", "first_line": 302, "count": 300})
    );
    let count = |file: &Path| {
        lro(
            &[
                "extract",
                "--output-dir",
                dir.to_str().unwrap(),
                file.to_str().unwrap(),
                "--section",
                "relations",
                "--count",
            ],
            "",
            &[],
        )
    };
    let out = count(&file);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "300");
    let with = |entities: Value, relations: Value, count: Option<u64>| {
        let mut header = truth.clone();
        header["sections"] = json!([entities, relations]);
        if let Some(count) = count {
            header["count"] = json!(count);
        }
        header.to_string()
    };
    let entities = json!({"name": "entities", "first_line": 2, "count": 300});
    let relations = |first_line: u64, count: u64| json!({"name": "relations", "first_line": first_line, "count": count});
    let lies = [
        with(entities.clone(), relations(302, 100_000), None),
        with(entities.clone(), relations(302, u64::MAX), None),
        with(entities.clone(), relations(u64::MAX, 300), None),
        with(
            json!({"name": "entities", "first_line": 2, "count": 600}),
            relations(2, 600),
            None,
        ),
        with(entities.clone(), relations(302, 300), None)
            .replace("\"first_line\":302", "\"first_line\":18446744073709551616"),
        // The count lies too, so the sections fit it: the file ends first.
        with(entities.clone(), relations(302, 99_700), Some(100_000)),
    ];
    let mut proxy = Proxy::start_with(&[], Some(dir), &[], &[]);
    proxy.initialize(json!({"name": "hostile", "version": "1"}));
    let mut id = 0;
    let mut names = Vec::new();
    for (i, lie) in lies.iter().enumerate() {
        let name = format!("atlatl-graph-{}.jsonl", ulid_at(now_millis(), i as u8));
        names.push(name.clone());
        let lying = dir.join(&name);
        std::fs::write(&lying, format!("{lie}\n{body}")).unwrap();
        std::fs::set_permissions(&lying, std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .unwrap();
        for reader in SECTION_READERS {
            if i == lies.len() - 1 && reader == ["--recipe", "1"] {
                // A recipe of the first section reads that section, which is all there:
                // the lie is past it.
                continue;
            }
            let mut args = vec![
                "extract",
                "--output-dir",
                dir.to_str().unwrap(),
                lying.to_str().unwrap(),
            ];
            args.extend_from_slice(reader);
            let out = lro(&args, "", &[]);
            let err = stderr(&out);
            assert_eq!(
                out.status.code(),
                Some(EXIT_INVALID_INPUT),
                "{reader:?} on {lie}: {err} {}",
                String::from_utf8_lossy(&out.stdout)
            );
            assert!(err.starts_with("lro: error[invalid_input]: "), "{err}");
        }
        // The proxy's lro_extract, by path and by resource URI, says the same.
        for file_path in [
            lying.to_str().unwrap().to_owned(),
            format!("lro://offloads/{name}"),
        ] {
            id += 1;
            let result = proxy.extract(
                id,
                json!({"file_path": file_path, "section": "relations", "count": true}),
            );
            assert_eq!(result["isError"], true, "{lie}: {result}");
            assert!(
                text(&result).starts_with("error[invalid_input]: "),
                "{result}"
            );
        }
    }
    // Listed all the same (a resource is the file as it is), without sections that do not
    // fit the header's count (the last lie's fit it: only reading the file tells).
    let listed = proxy.call(1000, "resources/list", json!({}));
    let resources = listed["result"]["resources"].as_array().unwrap();
    let ours: Vec<&Value> = resources
        .iter()
        .filter(|r| r["name"].as_str().unwrap().starts_with("atlatl-graph-"))
        .collect();
    assert_eq!(ours.len(), lies.len() + 1, "{listed}");
    let lying = &names[..names.len() - 1];
    for resource in ours
        .iter()
        .filter(|r| lying.iter().any(|n| r["name"] == *n))
    {
        let description = resource["description"].as_str().unwrap();
        assert!(!description.contains("relations"), "{description}");
    }
}

fn name_of(file: &Path) -> String {
    file.file_name().unwrap().to_str().unwrap().to_owned()
}

/// `file` renamed as written ten days ago (the ULID in its name, and its modification time).
fn age(file: &Path, random: u8) -> PathBuf {
    let millis = now_millis() - 10 * 86_400_000;
    let name = file.file_name().unwrap().to_str().unwrap();
    let aged = file.with_file_name(format!(
        "{}{}.jsonl",
        &name[..name.len() - ".jsonl".len() - 26],
        ulid_at(millis, random)
    ));
    std::fs::rename(file, &aged).unwrap();
    set_mtime(&aged, millis);
    aged
}

#[test]
fn a_prefix_never_removes_lists_or_reads_another_prefix_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // `team`'s operation `a-data` and `team-a`'s operation `data`: both named team-a-data-*.
    let team = offload(dir, "team", "a-data");
    let team_a = offload(dir, "team-a", "data");
    let name = name_of;
    assert!(name(&team).starts_with("team-a-data-") && name(&team_a).starts_with("team-a-data-"));

    // Reading: each prefix reads its own file only, by path and by URI.
    for (prefix, own, other) in [("team", &team, &team_a), ("team-a", &team_a, &team)] {
        let extract = |file: &str| {
            lro(
                &[
                    "extract",
                    "--prefix",
                    prefix,
                    "--output-dir",
                    dir.to_str().unwrap(),
                    file,
                    "--section",
                    "entities",
                    "--count",
                ],
                "",
                &[],
            )
        };
        let out = extract(own.to_str().unwrap());
        assert!(out.status.success(), "{prefix}: {}", stderr(&out));
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "300");
        for file in [
            other.to_str().unwrap().to_owned(),
            format!("lro://offloads/{}", name(other)),
        ] {
            let out = extract(&file);
            assert_eq!(out.status.code(), Some(EXIT_DENIED), "{prefix} read {file}");
        }
        // The proxy lists, reads and extracts its own only.
        let mut proxy = Proxy::start_with(
            &[],
            Some(dir),
            &[],
            &[("ATLATL_PROMPT__OFFLOAD__FILE_PREFIX", prefix)],
        );
        proxy.initialize(json!({"name": "hostile", "version": "1"}));
        let listed = proxy.call(1, "resources/list", json!({}));
        let names: Vec<&str> = listed["result"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap())
            .filter(|name| name.starts_with("team-"))
            .collect();
        assert_eq!(names, vec![name(own).as_str()], "{prefix}: {listed}");
        let uri = format!("lro://offloads/{}", name(other));
        let read = proxy.call(2, "resources/read", json!({"uri": uri}));
        assert_eq!(read["error"]["code"], -32602, "{prefix}: {read}");
        let result = proxy.extract(3, json!({"file_path": uri, "count": true}));
        assert_eq!(result["isError"], true, "{prefix}: {result}");
        assert!(
            text(&result).starts_with("error[path_denied]: "),
            "{result}"
        );
    }

    // Cleanup: both files are ten days old; each prefix's cleanup removes its own only.
    let (team, team_a) = (age(&team, 1), age(&team_a, 2));
    let cleanup = |prefix: &str| {
        let out = lro(
            &[
                "cleanup",
                "--prefix",
                prefix,
                "--output-dir",
                dir.to_str().unwrap(),
                "--ttl-seconds",
                "3600",
            ],
            "",
            &[],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let report = cleanup("team");
    assert_eq!(report["removed"].as_array().unwrap().len(), 1, "{report}");
    assert!(!team.exists(), "team's own file was kept");
    assert!(team_a.exists(), "team's cleanup removed team-a's file");
    let report = cleanup("team-a");
    assert_eq!(report["removed"].as_array().unwrap().len(), 1, "{report}");
    assert!(!team_a.exists());
}
