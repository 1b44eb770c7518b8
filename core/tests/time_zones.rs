//! The jq engine reads no file and no environment: time zone names resolve in the tzdb
//! compiled in, whatever `TZ` and `TZDIR` say and whatever the host's zoneinfo holds.
//!
//! The test runs its checks twice: in this process, and in a copy of this test binary started
//! with `TZDIR` pointing at a crafted zoneinfo directory (`America/New_York` there is a fixed
//! UTC+9 zone without daylight saving time, and `Lro/Crafted` exists only there) and `TZ`
//! naming a crafted file. Setting the environment in a child keeps the test free of
//! `std::env::set_var` (unsafe, and racy with the other tests of this binary).

use std::path::Path;
use std::process::Command;

use lro_core::{ErrorCode, ExtractRequest, MemoryHost, OffloadConfig, OffloadRequest, Offloader};
use serde_json::{Value, json};

/// Set in the child process: run the checks under the crafted environment.
const CHILD: &str = "LRO_TIME_ZONES_CHILD";

fn offloader_and_file() -> (Offloader<MemoryHost>, String) {
    let config = OffloadConfig {
        threshold_tokens: 1,
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, MemoryHost::new()).unwrap();
    let records = json!([
        {"t": "2024-03-10 02:30 America/New_York"},
        {"t": "2024-07-01 12:00 Europe/Paris"},
    ]);
    let file = lro
        .offload(&records, &OffloadRequest::new("recall"))
        .unwrap()
        .offloaded()
        .expect("offloaded")
        .file_path
        .clone();
    (lro, file)
}

fn run(lro: &Offloader<MemoryHost>, file: &str, filter: &str) -> Result<Vec<Value>, ErrorCode> {
    let request = ExtractRequest {
        query: Some(filter.to_owned()),
        ..ExtractRequest::default()
    };
    lro.extract(file, &request)
        .map(|response| response.results)
        .map_err(|e| e.code())
}

/// What the engine answers, the same in every environment.
fn check_answers() {
    let (lro, file) = offloader_and_file();
    // 02:30 does not exist in New York on 2024-03-10 (clocks jump from 02:00 to 03:00): the
    // real zone moves it to 03:30. The crafted zone (no DST) would keep 02:30.
    assert_eq!(
        run(
            &lro,
            &file,
            r#".t | strptime("%Y-%m-%d %H:%M %Q") | .[3:5]"#
        )
        .unwrap(),
        vec![json!([3, 30]), json!([12, 0])]
    );
    // A zone only the crafted directory has is unknown.
    let unknown = run(
        &lro,
        &file,
        r#""2024-01-01 00:00 Lro/Crafted" | strptime("%Y-%m-%d %H:%M %Q")"#,
    );
    assert_eq!(unknown, Err(ErrorCode::QueryFailed), "{unknown:?}");
    // The natives that need no database agree with UTC whatever `TZ` says.
    assert_eq!(
        run(
            &lro,
            &file,
            r#"1700000000 | [todate, (gmtime | mktime), strftime("%H:%M %Z"), (todate | fromdate)]"#
        )
        .unwrap()[0],
        json!(["2023-11-14T22:13:20Z", 1700000000, "22:13 UTC", 1700000000])
    );
    // The host's zone and the environment are not reachable at all.
    for filter in [
        "1700000000 | localtime",
        r#"1700000000 | strflocaltime("%H")"#,
        "env",
        "$ENV",
        "now",
    ] {
        assert_eq!(
            run(&lro, &file, filter),
            Err(ErrorCode::InvalidQuery),
            "{filter}"
        );
    }
}

/// A TZif file (version 2) of a fixed zone `offset_seconds` east of UTC named `abbreviation`.
fn fixed_zone(offset_seconds: i32, abbreviation: &str, footer: &str) -> Vec<u8> {
    let mut block = Vec::new();
    block.extend_from_slice(b"TZif2");
    block.extend_from_slice(&[0; 15]);
    // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
    for count in [0u32, 0, 0, 0, 1, abbreviation.len() as u32 + 1] {
        block.extend_from_slice(&count.to_be_bytes());
    }
    block.extend_from_slice(&offset_seconds.to_be_bytes());
    block.extend_from_slice(&[0, 0]);
    block.extend_from_slice(abbreviation.as_bytes());
    block.push(0);
    // Version 2 repeats the header and data (with 64-bit times: none here), then a footer.
    let mut file = block.clone();
    file.extend_from_slice(&block);
    file.extend_from_slice(format!("\n{footer}\n").as_bytes());
    file
}

fn crafted_zoneinfo(dir: &Path) {
    let zone = fixed_zone(9 * 3600, "XST", "XST-9");
    for name in ["America/New_York", "Europe/Paris", "Lro/Crafted", "UTC"] {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &zone).unwrap();
    }
}

#[test]
fn zones_come_from_data_compiled_in_whatever_tz_and_tzdir_say() {
    check_answers();
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    crafted_zoneinfo(dir.path());
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &crate::support::test_name(
                module_path!(),
                "zones_come_from_data_compiled_in_whatever_tz_and_tzdir_say",
            ),
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env("TZDIR", dir.path())
        .env(
            "TZ",
            format!(":{}", dir.path().join("Lro/Crafted").display()),
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "the checks failed under TZDIR/TZ pointing at crafted zones:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
