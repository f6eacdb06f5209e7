//! `snapshot {mode:"data"}`: the page's structured data as the page states it.

use serde_json::{Value, json};

use crate::harness::Harness;

fn item<'a>(items: &'a [Value], source: &str) -> &'a Value {
    items
        .iter()
        .find(|i| i["source"] == source)
        .unwrap_or_else(|| panic!("no {source} in {items:#?}"))
}

#[tokio::test]
async fn json_ld_microdata_and_meta_are_read_and_a_broken_block_is_reported_alone() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("structured.html") }))
        .await;
    let data = h.ok("snapshot", json!({ "mode": "data" })).await;
    let items = data["data"]["structured"].as_array().unwrap();

    let product = item(items, "json-ld #1");
    assert_eq!(product["type"], "Product");
    assert_eq!(product["value"]["offers"]["price"], "49.00");
    let broken = item(items, "json-ld #2");
    assert!(broken.get("value").is_none(), "{broken:#}");
    assert!(
        broken["error"]
            .as_str()
            .is_some_and(|e| e.contains("not valid JSON")),
        "{broken:#}"
    );
    let graph = item(items, "json-ld #3");
    assert_eq!(graph["type"], "BreadcrumbList");
    assert_eq!(graph["value"]["@graph"][1]["datePublished"], "2026-11-30");

    let micro = item(items, "microdata");
    assert_eq!(micro["type"], "https://schema.org/Product");
    assert_eq!(micro["value"]["name"][0], "Brass lamp (microdata)");
    assert_eq!(
        micro["value"]["offers"][0]["properties"]["price"][0],
        "49.00"
    );
    assert_eq!(micro["value"]["releaseDate"][0], "2026-01-15");

    let meta: Vec<(&str, &str)> = items
        .iter()
        .filter(|i| i["source"] == "meta")
        .map(|i| (i["type"].as_str().unwrap(), i["value"].as_str().unwrap()))
        .collect();
    assert!(meta.contains(&("og:title", "Lamp, brass")), "{meta:?}");
    assert!(meta.contains(&("description", "A brass desk lamp.")));
    assert!(
        meta.iter()
            .any(|(k, v)| *k == "canonical" && v.ends_with("/products/lamp"))
    );

    // Archived with its values: recall finds the read by one and returns them.
    let found = h.ok("recall", json!({ "query": "2026-11-30" })).await;
    let observations = found["data"]["observations"].as_array().unwrap();
    let id = data["execution"]["commandId"].as_str().unwrap();
    assert!(observations.iter().any(|o| o["id"] == id), "{found:#}");
    let recalled = h.ok("recall", json!({ "observationId": id })).await;
    let kept = recalled["data"]["text"].as_str().unwrap();
    assert!(kept.contains("\"price\": \"49.00\""), "{kept}");
    assert!(kept.contains("Brass lamp (microdata)"), "{kept}");

    let text = data["data"]["text"].as_str().unwrap();
    assert!(
        text.starts_with("3 JSON-LD blocks (1 not valid), 1 microdata items"),
        "{text}"
    );
    // Everything the page stated is page content, fenced.
    let fenced = data["untrusted"].as_array().unwrap();
    assert!(
        fenced.contains(&json!("/data/structured/0/value")),
        "{fenced:?}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn a_page_without_structured_data_says_so() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("second.html") }))
        .await;
    let data = h.ok("snapshot", json!({ "mode": "data" })).await;
    assert_eq!(data["data"]["structured"], json!([]));
    assert!(
        data["data"]["text"]
            .as_str()
            .unwrap()
            .starts_with("0 JSON-LD blocks, 0 microdata items, 0 meta"),
        "{data:#}"
    );
    h.shutdown().await;
}
