//! `describe: true` rebuilds, from the file alone, the full descriptor offload gave: for
//! every conformance vector's offloaded result, whatever profile described it first.

use lro_core::{ExtractRequest, OffloadConfig, OffloadRequest, Offloader, StdHost};
use serde_json::{Value, json};

#[test]
fn describe_gives_back_the_full_descriptor_of_every_vector_result() {
    let vectors = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let mut checked = 0;
    for entry in std::fs::read_dir(vectors).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let vector: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let call = vector["call"].as_str().unwrap_or_default();
        if !["offload", "extract"].contains(&call)
            || vector.pointer("/expect/error").is_some()
            || vector.pointer("/setup").is_some()
            || vector.pointer("/request/scores").is_some()
        {
            continue;
        }
        let name = vector["name"].as_str().unwrap();
        for (guidance, profile) in [("shell", "pointer"), ("native", "compact")] {
            let dir = tempfile::tempdir().unwrap();
            let mut config = vector["config"].clone();
            if !config.is_object() {
                config = json!({});
            }
            config["output_dir"] = json!(dir.path().to_string_lossy());
            config["guidance"] = json!(guidance);
            let lro =
                Offloader::new(OffloadConfig::from_json(&config).unwrap(), StdHost::new()).unwrap();
            let mut request = OffloadRequest::from_json(&vector["request"]).unwrap();
            request.descriptor = Some("full".parse().unwrap());
            // The threshold a call applied is about the call, not the file.
            request.context_remaining_tokens = None;
            let full = lro.offload(&vector["input"], &request).unwrap();
            let Some(full) = full.offloaded() else {
                continue;
            };
            request.descriptor = Some(profile.parse().unwrap());
            let brief = lro.offload(&vector["input"], &request).unwrap().to_value();
            let file = brief["file_path"]
                .as_str()
                .unwrap_or_else(|| panic!("{name} ({profile}): not offloaded: {brief}"));
            let describe = ExtractRequest {
                describe: Some(true),
                ..ExtractRequest::default()
            };
            let described = lro.extract(file, &describe).unwrap();
            assert_eq!(described.count, 1, "{name}");
            // The same descriptor, but for the file it names.
            // (Its file name: the path, and the resource URI, which ends with the name.)
            let name_of = |path: &str| path.rsplit('/').next().unwrap_or(path).to_owned();
            let expected = full
                .to_value()
                .to_string()
                .replace(&name_of(&full.file_path), &name_of(file));
            assert_eq!(
                described.results[0].to_string(),
                expected,
                "{name} ({guidance})"
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} descriptors compared");
}

#[test]
fn describe_refuses_a_file_larger_than_the_read_limit() {
    let dir = tempfile::tempdir().unwrap();
    let config = OffloadConfig::from_json(&json!({
        "output_dir": dir.path().to_string_lossy(),
        "descriptor": "pointer",
        "extract": {"max_read_bytes": 2000},
    }))
    .unwrap();
    let lro = Offloader::new(config, StdHost::new()).unwrap();
    let rows: Vec<Value> = (0..200)
        .map(|i| json!({"id": i, "note": "n".repeat(40)}))
        .collect();
    let outcome = lro
        .offload(&json!(rows), &OffloadRequest::new("rows"))
        .unwrap()
        .to_value();
    let err = lro
        .extract(
            outcome["file_path"].as_str().unwrap(),
            &ExtractRequest {
                describe: Some(true),
                ..ExtractRequest::default()
            },
        )
        .unwrap_err();
    assert_eq!(err.code(), lro_core::ErrorCode::InvalidArgument);
    assert!(err.message().contains("max_read_bytes"), "{err}");
}
