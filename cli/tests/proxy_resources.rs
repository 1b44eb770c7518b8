//! `lro proxy` serves offload files as MCP resources beside the mock server's one resource:
//! the link in an offloaded result, resources/list and read, lro_extract by URI, and
//! `notifications/resources/list_changed` after an offload and after cleanup removes files.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::files::now_millis;
use crate::support::proxy::{Proxy, descriptor};

#[test]
fn offloads_are_resources_and_the_client_hears_of_new_and_removed_ones() {
    // A cleanup every second: the list changes on its own when a file expires (one planted
    // with a name dated two hours back; the others live an hour, so none expires by the clock
    // while a loaded machine runs the test). With --resource-link and --structured-content,
    // the result links its file and carries the descriptor twice.
    let mut proxy = Proxy::start(
        &[
            "--ttl-seconds",
            "3600",
            "--cleanup-interval",
            "1",
            "--resource-link",
            "--structured-content",
        ],
        &[],
    );
    let init = proxy.initialize(json!({"name": "c", "version": "1"}));
    assert_eq!(
        init["result"]["capabilities"]["resources"],
        json!({"listChanged": true})
    );
    let theirs = json!({"uri": "mock://one", "name": "one"});
    let before = proxy.call(1, "resources/list", json!({}));
    assert_eq!(before["result"], json!({"resources": [theirs]}));

    // An offload: the result links its file, and the client (it listed) hears of it.
    proxy.request(
        json!(2),
        "tools/call",
        json!({"name": "records", "arguments": {"count": 2000}}),
    );
    let (_, response) = proxy.until_response(&json!(2));
    let result = &response["result"];
    let content = result["content"].as_array().unwrap();
    let link = content.last().unwrap();
    assert_eq!(link["type"], "resource_link", "{result}");
    let uri = link["uri"].as_str().unwrap().to_owned();
    let notice = proxy.next();
    assert_eq!(notice["method"], "notifications/resources/list_changed");

    let listed = proxy.call(3, "resources/list", json!({}));
    let resources = listed["result"]["resources"].as_array().unwrap();
    assert_eq!(resources.len(), 2);
    assert_eq!(resources[0]["uri"], uri.as_str());
    assert_eq!(resources[1], theirs);
    assert_eq!(resources[0]["title"], "records: 2000 records");

    let descriptor = descriptor(result);
    assert_eq!(descriptor["resource_uri"], uri.as_str());
    assert_eq!(result["structuredContent"], descriptor);
    let file = descriptor["file_path"].as_str().unwrap();
    let read = proxy.call(4, "resources/read", json!({"uri": uri}));
    let text = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert_eq!(text, std::fs::read_to_string(file).unwrap());
    let records = proxy.call(
        5,
        "resources/read",
        json!({"uri": format!("{uri}/records")}),
    );
    assert_eq!(
        records["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .lines()
            .count(),
        2000
    );

    let counted = proxy.extract(
        6,
        json!({"file_path": uri, "where": {"kind": "gamma"}, "count": true}),
    );
    assert_eq!(counted["content"][0]["text"], "666\n", "{counted}");

    let denied = proxy.call(
        7,
        "resources/read",
        json!({"uri": "lro://offloads/../../../etc/passwd"}),
    );
    assert_eq!(denied["error"]["code"], -32602, "{denied}");

    // A copy of the file named two hours back has expired: the next cleanup removes it and
    // says so; the fresh file and the mock's resource are left.
    let dir = std::path::Path::new(file).parent().unwrap();
    let expired_name = format!(
        "atlatl-records-{}.jsonl",
        ulid::Ulid::from_parts(now_millis() - 2 * 3600 * 1000, 7)
    );
    let staged = proxy.dir.path().join("staged.jsonl");
    std::fs::copy(file, &staged).unwrap();
    std::fs::rename(&staged, dir.join(&expired_name)).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let message = proxy.next();
        if message["method"] == "notifications/resources/list_changed" {
            break;
        }
        assert!(Instant::now() < deadline, "no list_changed after cleanup");
    }
    assert!(
        !dir.join(&expired_name).exists(),
        "the expired copy is removed"
    );
    assert!(
        std::path::Path::new(file).exists(),
        "the fresh file is kept"
    );
    let after = proxy.call(8, "resources/list", json!({}));
    assert_eq!(after["result"]["resources"], listed["result"]["resources"]);
    let gone = proxy.call(
        9,
        "resources/read",
        json!({"uri": format!("lro://offloads/{expired_name}")}),
    );
    assert_eq!(gone["error"]["code"], -32002, "{gone}");
}

#[test]
fn a_client_that_never_asked_gets_no_notifications() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    proxy.request(
        json!(1),
        "tools/call",
        json!({"name": "records", "arguments": {"count": 2000}}),
    );
    let (before, _) = proxy.until_response(&json!(1));
    assert!(before.is_empty());
    // The next message is the answer to a ping: nothing was sent in between.
    let pong = proxy.call(2, "ping", json!({}));
    assert_eq!(pong["result"], json!({}), "{pong}");
}
